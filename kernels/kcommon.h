/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * kcommon.h - what every bundled benchmark kernel shares: where it runs
 * (placement lines), strict argument parsing and JSON output.
 *
 * Kernels do not link libnumaplan: the error type, the CPU sets, number
 * parsing and the reading of the calling thread's affinity come from
 * libnpcommon (common/).  Like the library, calls return 0 or a negative
 * errno and fill an np_error_t with a message; only main() prints.
 *
 * Exit codes used by every kernel (see np_k_exit below): 0 success,
 * 1 validation failed or run-time error, 2 bad command line.
 */
#ifndef NP_KCOMMON_H
#define NP_KCOMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>

#include <numaplan/error.h>

#include "common/parse.h"

#define NP_K_EXIT_OK       0
#define NP_K_EXIT_FAIL     1   /* validation failed, or a run-time error */
#define NP_K_EXIT_USAGE    2   /* bad command line */

/* ---- placement --------------------------------------------------------- */

#define NP_K_HOST_MAX 64
#define NP_K_LIST_MAX 512

/* Where one rank/thread runs.  Plain bytes (no pointers) so MPI programs
 * can gather it with MPI_BYTE. */
struct np_k_place {
	int rank;                       /* MPI rank, 0 without MPI */
	int thread;                     /* OpenMP thread, 0 without threads */
	char host[NP_K_HOST_MAX];
	char cpus[NP_K_LIST_MAX];       /* sched_getaffinity as a cpulist */
	char numa[NP_K_LIST_MAX / 4];   /* NUMA nodes of those CPUs, or "?" */
	/* thread 0: the adapters and GPUs the rank holds open when placed
	 * (after MPI_Init, which opens the library's), "KIND:NAME" separated
	 * by commas (sysread/open_devices.h: an adapter by name, a GPU by
	 * PCI bus id); "" for none, "?" when they could not be read */
	char devices[NP_K_LIST_MAX / 2];
};

/* Call once, single-threaded, before threads call np_k_place_self():
 * libnuma fills its CPU-to-node cache lazily and without a lock. */
void np_k_place_prepare(void);

/* The variables launchers give a task's rank and its rank on its node in,
 * in the order they are believed (NULL-terminated). */
extern const char *const np_k_rank_vars[];
extern const char *const np_k_local_rank_vars[];

/* The first of vars that is a non-negative integer (up to INT_MAX), 0
 * without one. */
long np_k_env_rank(const char *const *vars);

/* The task's rank from its launcher's environment (np_k_rank_vars), 0
 * without one: a kernel without MPI started as several tasks still tells
 * them apart. */
int np_k_launcher_rank(void);

/* Fill *p for the calling thread (sched_getaffinity(0) is per-thread).
 * Safe from several threads at once after np_k_place_prepare(). */
int np_k_place_self(int rank, int thread, struct np_k_place *p,
                    np_error_t *err);

/* Every OpenMP thread of the task (rank) fills its own record: *out (n
 * of them, the caller frees), after np_k_place_prepare().  0, -ENOMEM,
 * or -EIO when a thread cannot read its affinity.  In kcommon_omp.c,
 * which each OpenMP kernel compiles with its own flags, not in libnpk. */
int np_k_place_threads(int rank, struct np_k_place **out, int *n);

/* "# placement: host H rank R thread T cpus C numa N", and " devices D"
 * when the rank holds any (no newline). */
int np_k_place_format(const struct np_k_place *p, char *buf, size_t len);

/* Print the line above, with a newline, for each of n placements. */
void np_k_place_print(FILE *f, const struct np_k_place *p, size_t n);

/* A JSON array of {"host","rank","thread","cpus","numa"} objects, thread
 * 0's with "devices": ["KIND:NAME", ...]. */
json_t *np_k_place_json(const struct np_k_place *p, size_t n);

/* ---- strict argument parsing -------------------------------------------
 * np_arg_u64, np_arg_int, np_arg_double and np_arg_bytes (common/parse.h):
 * they reject empty strings, trailing garbage, signs where none are
 * allowed, overflow and values outside [min, max], and name the option and
 * the bad value in their message. */

/* Whether the kernel including this was built with OpenMP: libnpk is not,
 * so a kernel passes this for its own. */
#ifdef _OPENMP
#define NP_K_OPENMP 1
#else
#define NP_K_OPENMP 0
#endif

/* --threads T: 1 to 65536, and only 1 in a kernel built without OpenMP
 * (openmp: NP_K_OPENMP).  0, or -EINVAL with the message in err. */
int np_k_arg_threads(const char *arg, int openmp, int *threads,
                     np_error_t *err);

/* What getopt_long returned for a bad option (opterr = 0 and ":" first
 * in optstring): ':' an option without its argument, anything else an
 * unknown option, named from argv[optind - 1].  -EINVAL. */
int np_k_getopt_error(int c, char *const *argv, np_error_t *err);

/* 0 when argv has no words left from optind on, else -EINVAL naming the
 * first. */
int np_k_no_more_args(int argc, char *const *argv, np_error_t *err);

/* ---- output ------------------------------------------------------------ */

/* Print "PROG: MSG" and a --help hint on stderr; returns NP_K_EXIT_USAGE. */
int np_k_usage_error(const char *prog, const char *msg);

/* Write root as one line of JSON followed by a newline; steals root. */
int np_k_json_emit(FILE *f, json_t *root, np_error_t *err);

/* Wall-clock seconds from a monotonic clock. */
double np_k_now(void);

/* {"compiler": "gcc 12.2.0", "cflags": "-O3 -march=native ..."}: how a
 * kernel was built.  cflags is the string its Makefile passed as
 * NP_K_CFLAGS (runs of blanks squeezed); NULL for an unknown. */
json_t *np_k_build_json(const char *cflags);

/* ---- memory: transparent huge pages ------------------------------------
 * Benchmarks that sweep large arrays want 2 MiB pages: fewer TLB misses,
 * fewer page faults.  Where THP is in "madvise" mode (Debian's default)
 * the kernel gives them only to memory advised with MADV_HUGEPAGE. */

enum np_k_thp {
	NP_K_THP_UNKNOWN,               /* no /sys/kernel/mm/transparent_hugepage */
	NP_K_THP_ALWAYS,
	NP_K_THP_MADVISE,
	NP_K_THP_NEVER,
};

#define NP_K_HUGE_PAGE ((size_t)2 << 20)

/* The system's THP mode (the bracketed word of .../enabled), and its name
 * ("always", "madvise", "never", "unknown"). */
enum np_k_thp np_k_thp_mode(void);
const char *np_k_thp_name(enum np_k_thp mode);

/* len bytes (rounded up to whole 2 MiB pages) aligned to 2 MiB, untouched;
 * with advise, madvise(MADV_HUGEPAGE) on them when THP is in madvise mode.
 * *alloc_len (may be NULL) gets the rounded length.  Free with free().
 * NULL with errno set on failure. */
void *np_k_alloc_huge(size_t len, int advise, size_t *alloc_len);

/* kB of anonymous huge pages (AnonHugePages in /proc/self/smaps) of the
 * mappings overlapping [addr, addr + len): whether THP backs an array,
 * read after it was first touched.  Negative errno if smaps is unreadable. */
long np_k_huge_kb(const void *addr, size_t len);

#endif /* NP_KCOMMON_H */

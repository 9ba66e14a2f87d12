/*
 * kcommon.h - what every bundled benchmark kernel shares: where it runs
 * (placement lines), strict argument parsing and JSON output.
 *
 * Kernels do not link libnumaplan, so this is a small, self-contained
 * module.  Like the library, calls return 0 or a negative errno and fill an
 * np_k_err with a message; only main() prints.
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

#define NP_K_EXIT_OK       0
#define NP_K_EXIT_FAIL     1   /* validation failed, or a run-time error */
#define NP_K_EXIT_USAGE    2   /* bad command line */

#define NP_K_ERRMSG_MAX 512

struct np_k_err {
	int code;                       /* negative errno, 0 when no error */
	char msg[NP_K_ERRMSG_MAX];
};

/* Record code and a message; returns code.  err may be NULL. */
int np_k_err_set(struct np_k_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

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
};

/* Call once, single-threaded, before threads call np_k_place_self():
 * libnuma fills its CPU-to-node cache lazily and without a lock. */
void np_k_place_prepare(void);

/* The task's rank from its launcher's environment (SLURM_PROCID, PMI_RANK,
 * PMIX_RANK, OMPI_COMM_WORLD_RANK, the first that is a number), 0 without
 * one: a kernel without MPI started as several tasks still tells them apart. */
int np_k_launcher_rank(void);

/* Fill *p for the calling thread (sched_getaffinity(0) is per-thread).
 * Safe from several threads at once after np_k_place_prepare(). */
int np_k_place_self(int rank, int thread, struct np_k_place *p,
                    struct np_k_err *err);

/* "# placement: host H rank R thread T cpus C numa N" (no newline). */
int np_k_place_format(const struct np_k_place *p, char *buf, size_t len);

/* Print the line above, with a newline, for each of n placements. */
void np_k_place_print(FILE *f, const struct np_k_place *p, size_t n);

/* A JSON array of {"host","rank","thread","cpus","numa"} objects. */
json_t *np_k_place_json(const struct np_k_place *p, size_t n);

/* Format a set of bit indexes (bits[0..nbits)) as a Linux cpulist
 * ("0-3,8,10-11"); "" for an empty set.  -ENOSPC if len is too small. */
int np_k_cpulist_format(const unsigned char *bits, size_t nbits,
                        char *buf, size_t len);

/* ---- strict argument parsing -------------------------------------------
 * Every parser rejects empty strings, trailing garbage, signs where none
 * are allowed, overflow and values outside [min, max], and names the
 * option and the bad value in its message. */
int np_k_parse_u64(const char *opt, const char *s, uint64_t min, uint64_t max,
                   uint64_t *out, struct np_k_err *err);
int np_k_parse_int(const char *opt, const char *s, int min, int max,
                   int *out, struct np_k_err *err);
int np_k_parse_double(const char *opt, const char *s, double min, double max,
                      double *out, struct np_k_err *err);
/* A byte count with an optional binary suffix: 4096, 64K, 4M, 1G. */
int np_k_parse_bytes(const char *opt, const char *s, uint64_t min,
                     uint64_t max, uint64_t *out, struct np_k_err *err);

/* ---- output ------------------------------------------------------------ */

/* Print "PROG: MSG" and a --help hint on stderr; returns NP_K_EXIT_USAGE. */
int np_k_usage_error(const char *prog, const char *msg);

/* Write root as one line of JSON followed by a newline; steals root. */
int np_k_json_emit(FILE *f, json_t *root, struct np_k_err *err);

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

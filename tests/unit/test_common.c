/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_common.c - libnpcommon: strict number parsing, the HPL grid rule,
 * and the calling thread's binding as the kernel reports it (checked
 * against /proc/self/status and against bindings made here with the raw
 * system calls).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/mempolicy.h>
#include <cmocka.h>

#include <numaplan.h>

#include "sysread/affinity.h"
#include "common/plugstack.h"
#include "common/kernel_rules.h"
#include "sysread/kfile.h"
#include "common/parse.h"
#include "common/spool.h"

static void test_parse_u64(void **state)
{
	static const struct { const char *s; int rc; uint64_t v; } cases[] = {
		{ "0", 0, 0 }, { "10", 0, 10 }, { "010", 0, 10 },       /* decimal, not octal */
		{ "11", -ERANGE, 0 }, { "", -EINVAL, 0 }, { " 1", -EINVAL, 0 }, { "1 ", -EINVAL, 0 },
		{ "-1", -EINVAL, 0 }, { "+1", -EINVAL, 0 }, { "1x", -EINVAL, 0 }, { "0x1", -EINVAL, 0 },
		{ "99999999999999999999", -ERANGE, 0 }, { "99999999999999999999x", -EINVAL, 0 },
	};
	uint64_t v;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		v = 12345;
		assert_int_equal(np_parse_u64(cases[i].s, 0, 10, &v), cases[i].rc);
		/* *out is written on success only */
		assert_true(v == (cases[i].rc == 0 ? cases[i].v : 12345));
	}
	assert_int_equal(np_parse_u64("18446744073709551615", 0, UINT64_MAX, &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(np_parse_u64("18446744073709551616", 0, UINT64_MAX, &v), -ERANGE);
	assert_int_equal(np_parse_u64(NULL, 0, 1, &v), -EINVAL);
}

/* GPU index lists: Slurm's SLURM_STEP_GPUS and numaplan plan --gpus */
static void test_index_list(void **state)
{
	static const char *const bad[] = { " 0", "0 ", ",0", "0,", "0,,1", "1-3", "-1", "x", "0,0",
	                                   "2,1,2", "0x1", "+1", NULL };
	unsigned *v = NULL, n = 9;
	char why[96];

	(void)state;
	assert_int_equal(np_parse_index_list("", 7, &v, &n, why, sizeof(why)), 0);
	assert_null(v);
	assert_int_equal(n, 0);
	assert_int_equal(np_parse_index_list("3,0,7", 7, &v, &n, why, sizeof(why)), 0);
	assert_int_equal(n, 3);
	/* the order given is kept */
	assert_int_equal(v[0], 3);
	assert_int_equal(v[1], 0);
	assert_int_equal(v[2], 7);
	free(v);
	for (unsigned i = 0; bad[i]; i++) {
		v = (unsigned *)1;
		assert_int_equal(np_parse_index_list(bad[i], 7, &v, &n, why, sizeof(why)), -EINVAL);
		assert_null(v);
		assert_int_equal(n, 0);
		assert_true(why[0] != '\0');
	}
	assert_int_equal(np_parse_index_list("1,2", 7, &v, &n, NULL, 0), 0);
	free(v);
	assert_int_equal(np_parse_index_list("0,8", 7, &v, &n, why, sizeof(why)), -ERANGE);
	assert_non_null(strstr(why, "'8' is past 7"));
	assert_int_equal(np_parse_index_list("2,1,2", 7, &v, &n, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "'2' is listed twice"));
	assert_int_equal(np_parse_index_list("1,,2", 7, &v, &n, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "an empty entry"));
	assert_int_equal(np_parse_index_list(NULL, 7, &v, &n, why, sizeof(why)), -EINVAL);
}

static void test_parse_int_double(void **state)
{
	unsigned u;
	double d;
	int i;

	(void)state;
	assert_int_equal(np_parse_int("-5", -10, 10, &i), 0);
	assert_int_equal(i, -5);
	assert_int_equal(np_parse_int("-5", 0, 10, &i), -EINVAL);     /* no sign where none is allowed */
	assert_int_equal(np_parse_int("-2147483648", INT_MIN, INT_MAX, &i), 0);
	assert_int_equal(i, INT_MIN);
	assert_int_equal(np_parse_int("2147483648", INT_MIN, INT_MAX, &i), -ERANGE);
	assert_int_equal(np_parse_int("-", -1, 1, &i), -EINVAL);
	assert_int_equal(np_parse_uint("4294967296", 0, UINT_MAX, &u), -ERANGE);
	assert_int_equal(np_parse_double("1.5", 0, 2, &d), 0);
	assert_true(d == 1.5);
	assert_int_equal(np_parse_double("2.5", 0, 2, &d), -ERANGE);
	assert_int_equal(np_parse_double("1e999", -1e300, 1e300, &d), -ERANGE);
	assert_int_equal(np_parse_double("inf", -1e300, 1e300, &d), -EINVAL);
	assert_int_equal(np_parse_double("nan", -1e300, 1e300, &d), -EINVAL);
	assert_int_equal(np_parse_double(" 1", 0, 2, &d), -EINVAL);
	assert_int_equal(np_parse_double("1 ", 0, 2, &d), -EINVAL);
	assert_int_equal(np_parse_double("", 0, 2, &d), -EINVAL);
}

static void test_parse_bytes(void **state)
{
	static const struct { const char *s; int rc; uint64_t v; } cases[] = {
		{ "4096", 0, 4096 }, { "64K", 0, 65536 }, { "4m", 0, 4194304 },
		{ "1G", 0, 1073741824 }, { "1.5G", 0, 1610612736 }, { "64GiB", 0, 68719476736ull },
		{ "64GB", 0, 68719476736ull }, { "4096B", 0, 4096 }, { "2T", 0, 2199023255552ull },
		{ "32768K", 0, 33554432 },        /* a sysfs cache size */
		{ "1Ki", -EINVAL, 0 }, { "1iB", -EINVAL, 0 }, { "K", -EINVAL, 0 }, { "1.K", -EINVAL, 0 },
		{ "1X", -EINVAL, 0 }, { "-1K", -EINVAL, 0 }, { "", -EINVAL, 0 },
		{ "16777216T", -ERANGE, 0 },      /* 2^64 */
	};
	uint64_t v;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		v = 7;
		assert_int_equal(np_parse_bytes(cases[i].s, 0, UINT64_MAX, &v), cases[i].rc);
		if (cases[i].rc == 0)
			assert_true(v == cases[i].v);
	}
	assert_int_equal(np_parse_bytes("1K", 0, 1000, &v), -ERANGE);
}

/* The messages name the option and the value, and say what was wanted. */
static void test_arg_messages(void **state)
{
	np_error_t err = { 0 };
	uint64_t v;
	unsigned u;

	(void)state;
	assert_int_equal(np_arg_uint("--ntasks", "4x", 1, 10, &u, &err), -EINVAL);
	assert_string_equal(err.msg, "--ntasks: '4x' is not a number");
	assert_int_equal(err.code, -EINVAL);
	assert_int_equal(np_arg_uint("--ntasks", "0", 1, 10, &u, &err), -ERANGE);
	assert_string_equal(err.msg, "--ntasks: '0' is out of range (1 to 10)");
	assert_int_equal(np_arg_bytes("-m", "2T", 0, 1ull << 30, &v, &err), -ERANGE);
	assert_string_equal(err.msg, "-m: '2T' is out of range (0 to 1073741824 bytes)");
	assert_int_equal(np_arg_bytes("-m", "4Q", 0, 1ull << 30, &v, &err), -EINVAL);
	assert_string_equal(err.msg, "-m: '4Q' is not a byte count (e.g. 4096, 64K, 4M, 1G)");
}

/* P <= Q, P the largest divisor not above the square root */
static void test_hpl_grid(void **state)
{
	static const unsigned cases[][3] = {
		{ 1, 1, 1 }, { 2, 1, 2 }, { 4, 2, 2 }, { 6, 2, 3 }, { 7, 1, 7 }, { 12, 3, 4 },
		{ 16, 4, 4 }, { 18, 3, 6 }, { 36, 6, 6 }, { 1000, 25, 40 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned p = 0, q = 0;

		np_hpl_grid(cases[i][0], &p, &q);
		assert_int_equal(p, cases[i][1]);
		assert_int_equal(q, cases[i][2]);
	}
}

/* STREAM's rule: 4 bytes of array per byte of cache, in doubles, rounded
 * up to 1024 elements; figures worked by hand */
static void test_stream_rule(void **state)
{
	(void)state;
	/* 32 MiB: 128 MiB of doubles = 16 Mi elements, already a multiple */
	assert_int_equal(np_stream_elements(32u << 20), 16u << 20);
	/* 1,000,000 B: 500,000 elements, up to 489 x 1024 */
	assert_int_equal(np_stream_elements(1000000), 500736);
	/* 3 B: 12 B is 1.5 doubles, 2 elements, up to 1024 */
	assert_int_equal(np_stream_elements(3), 1024);
	assert_int_equal(np_stream_elements(0), 0);
	/* the rule's edge: 16 Mi doubles are exactly 4 x 32 MiB */
	assert_false(np_stream_below_rule(16u << 20, 32u << 20));
	assert_true(np_stream_below_rule((16u << 20) - 1, 32u << 20));
	assert_false(np_stream_below_rule(1, 0));
	/* the default never falls below the rule it rounds */
	for (uint64_t llc = 1; llc < 100000; llc += 997)
		assert_false(np_stream_below_rule(np_stream_elements(llc), llc));
}

/* HPL's N from memory: sqrt(fraction x bytes / 8) down to a multiple of
 * NB; figures worked by hand */
static void test_hpl_n_rule(void **state)
{
	(void)state;
	/* 1 GiB at 0.8: sqrt(107,374,182.4) = 10,362.1; 53 x 192 = 10,176 */
	assert_int_equal(np_hpl_n_from_memory(1ull << 30, 0.8, 192), 10176);
	assert_int_equal(np_hpl_n_from_memory(1ull << 30, 0.8, 0), 10362);
	/* 64 GiB at 1.0: sqrt(8 Gi) = 92,681.9; 482 x 192 = 92,544 */
	assert_int_equal(np_hpl_n_from_memory(64ull << 30, 1.0, 192), 92544);
	/* less than one block is not rounded to 0, and nothing is still 1 */
	assert_int_equal(np_hpl_n_from_memory(800, 1.0, 32), 10);
	assert_int_equal(np_hpl_n_from_memory(0, 0.8, 32), 1);
}

/* Himeno's sizes: RIKEN's MPI version's grids (its MX0-1, MY0-1, MZ0-1:
 * S is 65 x 65 x 129 planes of the serial code, 64 x 64 x 128 points), and
 * its count of 34 FLOPs per interior point */
static void test_himeno_sizes(void **state)
{
	static const struct { const char *name; int mx, my, mz; } riken[] = {
		{ "XS", 32, 32, 64 }, { "S", 64, 64, 128 }, { "M", 128, 128, 256 },
		{ "L", 256, 256, 512 }, { "XL", 512, 512, 1024 },
	};
	char choices[64] = "";
	struct np_himeno_size sz;
	unsigned i;

	(void)state;
	for (i = 0; i < sizeof(riken) / sizeof(riken[0]); i++) {
		assert_int_equal(np_himeno_size_lookup(riken[i].name, &sz), 0);
		assert_string_equal(sz.name, riken[i].name);
		assert_int_equal(sz.mx, riken[i].mx);
		assert_int_equal(sz.my, riken[i].my);
		assert_int_equal(sz.mz, riken[i].mz);
	}
	/* the option's choices are the table's names, in its order */
	for (i = 0; np_himeno_size_at(i); i++) {
		if (i)
			strcat(choices, "|");
		strcat(choices, np_himeno_size_at(i)->name);
	}
	assert_int_equal(i, sizeof(riken) / sizeof(riken[0]));
	assert_string_equal(choices, NP_HIMENO_SIZE_CHOICES);
	assert_int_equal(np_himeno_size_lookup("m", &sz), 0);
	assert_int_equal(sz.mz, 256);
	assert_int_equal(np_himeno_size_lookup("XXL", &sz), -EINVAL);
	assert_int_equal(np_himeno_size_lookup(NULL, &sz), -EINVAL);
	/* S: 62 x 62 x 126 interior points x 34 = 16,467,696, the original's
	 * nflop for its size S */
	assert_int_equal(np_himeno_size_lookup("S", &sz), 0);
	assert_true(np_himeno_flop(&sz) == 16467696.0);
}

/* kfile: what is written is read back, bounded and trimmed; anything but
 * a regular file is refused without being opened or waited on */
static void test_kfile(void **state)
{
	char dir[] = "/tmp/np-kfile.XXXXXX", path[64], fifo[64], link[64], buf[8];
	size_t len = 0;
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/attr", dir);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	snprintf(link, sizeof(link), "%s/link", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(np_write_all(fd, "0-3 \t\nsecond line\n", 18), 0);
	close(fd);
	assert_int_equal(np_kfile_line(path, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "0-3");
	/* 18 bytes into 8: the first 7, and their count */
	assert_int_equal(np_kfile_read(path, buf, sizeof(buf), &len), 0);
	assert_int_equal(len, 7);
	assert_string_equal(buf, "0-3 \t\ns");
	assert_int_equal(np_kfile_read(path, buf, 0, NULL), -EINVAL);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(np_kfile_line(fifo, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(symlink(path, link), 0);
	assert_int_equal(np_kfile_line(link, buf, sizeof(buf)), -EINVAL);
	snprintf(buf, sizeof(buf), "x");
	assert_int_equal(np_kfile_line(dir, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(np_kfile_line("/nonexistent/np-kfile", buf, sizeof(buf)), -ENOENT);
	/* a closed descriptor: write's own errno */
	assert_int_equal(np_write_all(-1, "x", 1), -EBADF);

	/* relative to a root's descriptor, as lib reads a copy of /sys */
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);
	char target[64];
	DIR *d;
	assert_true(dfd >= 0);
	assert_int_equal(np_kfile_line_at(dfd, "attr", 0, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "0-3");
	assert_int_equal(np_kfile_line_at(dfd, "link", 0, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(np_kfile_line_at(dfd, "fifo", 0, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(np_kfile_line_at(dfd, "none", 0, buf, sizeof(buf)), -ENOENT);
	/* believed only when root's alone: a file others may write is not */
	assert_int_equal(chmod(path, 0666), 0);
	assert_int_equal(np_kfile_line_at(dfd, "attr", NP_KFILE_ROOT_OWNED, buf, sizeof(buf)), -EPERM);
	assert_int_equal(chmod(path, 0644), 0);
	assert_int_equal(np_kfile_line_at(dfd, "attr", NP_KFILE_ROOT_OWNED, buf, sizeof(buf)),
	                 geteuid() == 0 ? 0 : -EPERM);
	/* the link's own target, never followed; a short buffer is refused */
	assert_int_equal(np_kfile_readlink_at(dfd, "link", target, sizeof(target)), 0);
	assert_string_equal(target, path);
	assert_int_equal(np_kfile_readlink_at(dfd, "link", target, 4), -ENAMETOOLONG);
	assert_int_equal(np_kfile_readlink_at(dfd, "attr", target, sizeof(target)), -EINVAL);
	assert_non_null(d = np_kfile_opendir_at(dfd, "."));
	closedir(d);
	assert_null(np_kfile_opendir_at(dfd, "attr"));
	close(dfd);
	unlink(link);
	unlink(fifo);
	unlink(path);
	rmdir(dir);
}

/* kfile's whole-file read: a file longer than its first buffer is read
 * whole, one longer than max is cut at max - 1 bytes, procfs (size 0) is
 * read to its end, and the same refusals as a bounded read */
static void test_kfile_slurp(void **state)
{
	char dir[] = "/tmp/np-slurp.XXXXXX", path[64], fifo[64], *out = NULL, *big;
	size_t len = 0, n = 100000;
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/big", dir);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	assert_non_null(big = malloc(n));
	for (size_t i = 0; i < n; i++)
		big[i] = (char)('a' + i % 26);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(np_write_all(fd, big, n), 0);
	close(fd);
	assert_int_equal(np_kfile_slurp(path, 1 << 20, &out, &len), 0);
	assert_int_equal(len, n);
	assert_int_equal(strlen(out), n);
	assert_memory_equal(out, big, n);
	free(out);
	/* max 5000: 4999 bytes, the first of the file */
	assert_int_equal(np_kfile_slurp(path, 5000, &out, &len), 0);
	assert_int_equal(len, 4999);
	assert_memory_equal(out, big, 4999);
	assert_int_equal(out[4999], '\0');
	free(out);
	assert_int_equal(np_kfile_slurp(path, 1, &out, NULL), -EINVAL);
	assert_null(out);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(np_kfile_slurp(fifo, 4096, &out, NULL), -EINVAL);
	assert_null(out);
	assert_int_equal(np_kfile_slurp(dir, 4096, &out, NULL), -EINVAL);
	/* procfs gives no size: this process's status, read to its end */
	assert_int_equal(np_kfile_slurp("/proc/self/status", 1 << 20, &out, &len), 0);
	assert_true(len > 100 && strstr(out, "Cpus_allowed_list:") != NULL);
	assert_int_equal(strlen(out), len);
	free(out);
	free(big);
	unlink(fifo);
	unlink(path);
	rmdir(dir);
}

/* A "Name:\t0-3,8" line of /proc/self/status as a set */
static np_cpuset_t *status_list(const char *name)
{
	char line[65536];
	FILE *f = fopen("/proc/self/status", "r");
	np_cpuset_t *s = np_cpuset_new();
	size_t n = strlen(name);

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, n) && line[n] == ':') {
			assert_int_equal(np_cpuset_parse(s, line + n + 1 + strspn(line + n + 1, "\t ")), 0);
			fclose(f);
			return s;
		}
	fail_msg("no %s in /proc/self/status", name);
	return NULL;
}

static void test_affinity(void **state)
{
	np_cpuset_t *got = np_cpuset_new(), *want = status_list("Cpus_allowed_list");
	np_error_t err = { 0 };
	cpu_set_t one, saved;
	int cpu;

	(void)state;
	assert_int_equal(np_affinity_get(got, &err), 0);
	assert_true(np_cpuset_equal(got, want));
	/* narrowed with the raw call, read back as that one CPU */
	cpu = np_cpuset_last(want);
	assert_int_equal(sched_getaffinity(0, sizeof(saved), &saved), 0);
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
	assert_int_equal(np_affinity_get(got, &err), 0);
	assert_int_equal(np_cpuset_count(got), 1);
	assert_true(np_cpuset_isset(got, (unsigned)cpu));
	assert_int_equal(sched_setaffinity(0, sizeof(saved), &saved), 0);
	np_cpuset_free(got);
	np_cpuset_free(want);
}

static void test_mempolicy(void **state)
{
	np_cpuset_t *nodes = np_cpuset_new(), *want = status_list("Mems_allowed_list");
	np_error_t err = { 0 };
	unsigned long mask = 0;
	int mode = -1, node = np_cpuset_first(want);

	(void)state;
	assert_int_equal(np_mems_allowed(nodes, &err), 0);
	assert_true(np_cpuset_equal(nodes, want));
	assert_int_equal(np_mempolicy_get(&mode, nodes, &err), 0);
	assert_int_equal(mode, MPOL_DEFAULT);
	assert_true(np_cpuset_iszero(nodes));
	/* a policy set with the raw call reads back with its mode and nodes */
	assert_true(node >= 0 && node < 64);
	mask = 1ul << node;
	assert_int_equal(syscall(SYS_set_mempolicy, MPOL_INTERLEAVE, &mask, 65), 0);
	assert_int_equal(np_mempolicy_get(&mode, nodes, &err), 0);
	assert_int_equal(mode, MPOL_INTERLEAVE);
	assert_int_equal(np_cpuset_count(nodes), 1);
	assert_true(np_cpuset_isset(nodes, (unsigned)node));
	assert_int_equal(syscall(SYS_set_mempolicy, MPOL_DEFAULT, NULL, 0), 0);
	np_cpuset_free(nodes);
	np_cpuset_free(want);
}

/* A spool gives back exactly what was written, across its chunks (1 MiB)
 * and in writes both smaller and larger than one. */
static void test_spool(void **state)
{
	size_t n = 3u << 20, len = 0;
	char *want = malloc(n), *got = NULL;
	FILE *f, *out;
	np_spool_t *s;

	(void)state;
	assert_non_null(want);
	for (size_t i = 0; i < n; i++)
		want[i] = (char)('a' + (i * 7 + i / 4099) % 26);
	assert_non_null(s = np_spool_open(&f));
	fputs("x", f);
	fwrite(want + 1, 1, 1000, f);
	fwrite(want + 1001, 1, (3u << 19) - 1001, f);   /* 1.5 MiB in one write */
	for (size_t i = 3u << 19; i < n; i++)
		fputc(want[i], f);
	want[0] = 'x';
	assert_int_equal(np_spool_close(s, f), 0);
	assert_int_equal(np_spool_size(s), n);
	assert_non_null(out = open_memstream(&got, &len));
	np_spool_copy(s, out);
	assert_int_equal(fclose(out), 0);
	assert_int_equal(len, n);
	assert_memory_equal(got, want, n);
	np_spool_free(s);
	free(got);
	free(want);
	/* an empty one */
	assert_non_null(s = np_spool_open(&f));
	assert_int_equal(np_spool_close(s, f), 0);
	assert_int_equal(np_spool_size(s), 0);
	np_spool_free(s);
}

/* topology= for a node, as the plugin and `numaplan topo --site` both
 * read it (common/plugstack.c) */
static void expands(const char *pattern, const char *node, const char *want)
{
	np_error_t err = { 0 };
	char *out = NULL;

	assert_int_equal(np_plugstack_expand(pattern, node, &out, &err), 0);
	assert_string_equal(out, want);
	free(out);
}

static void test_plugstack_expand(void **state)
{
	np_error_t err = { 0 };
	char *out = (char *)"untouched";

	(void)state;
	expands("/etc/np/%n.xml", "node17", "/etc/np/node17.xml");
	expands("/etc/np/%n/%n-100%%.xml", "a.b", "/etc/np/a.b/a.b-100%.xml");
	expands("/etc/np/fixed.xml", NULL, "/etc/np/fixed.xml");
	expands("/etc/np/%x%", "n", "/etc/np/%x%");
	/* no name that leaves the directory, or is none */
	static const char *const bad[] = { "..", "a/b", "/", "../x", "", NULL };
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		out = (char *)"untouched";
		assert_int_equal(np_plugstack_expand("/etc/np/%n/t.xml", bad[i], &out, &err), -EINVAL);
		assert_null(out);
		assert_non_null(strstr(err.msg, "topology=/etc/np/%n/t.xml"));
	}
	/* sysfs= the same way, named in the message */
	out = (char *)"untouched";
	assert_int_equal(np_plugstack_expand_arg("sysfs", "/srv/sys/%n", "a/b", &out, &err), -EINVAL);
	assert_null(out);
	assert_non_null(strstr(err.msg, "sysfs=/srv/sys/%n: no usable node name"));
	assert_int_equal(np_plugstack_expand_arg("sysfs", "/srv/sys/%n", "n3", &out, &err), 0);
	assert_string_equal(out, "/srv/sys/n3");
	free(out);
	assert_false(np_plugstack_node_ok(".."));
	assert_true(np_plugstack_node_ok("..."));
	assert_true(np_plugstack_node_ok("."));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_u64),
		cmocka_unit_test(test_parse_int_double),
		cmocka_unit_test(test_index_list),
		cmocka_unit_test(test_parse_bytes),
		cmocka_unit_test(test_arg_messages),
		cmocka_unit_test(test_hpl_grid),
		cmocka_unit_test(test_stream_rule),
		cmocka_unit_test(test_hpl_n_rule),
		cmocka_unit_test(test_himeno_sizes),
		cmocka_unit_test(test_kfile),
		cmocka_unit_test(test_kfile_slurp),
		cmocka_unit_test(test_affinity),
		cmocka_unit_test(test_mempolicy),
		cmocka_unit_test(test_spool),
		cmocka_unit_test(test_plugstack_expand),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

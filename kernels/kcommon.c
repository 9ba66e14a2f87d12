/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * kcommon.c - placement lines and output helpers shared by the kernels.
 */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <numa.h>

#include "sysread/affinity.h"
#include "sysread/open_devices.h"
#include "kcommon.h"

/* Slurm first (srun sets it whatever the MPI plugin), then the PMI and MPI
 * launchers' own variables. */
const char *const np_k_rank_vars[] = {
	"SLURM_PROCID", "PMI_RANK", "PMIX_RANK", "OMPI_COMM_WORLD_RANK", NULL
};
const char *const np_k_local_rank_vars[] = {
	"SLURM_LOCALID", "MPI_LOCALRANKID", "OMPI_COMM_WORLD_LOCAL_RANK", NULL
};

/* Copy a malloc'ed cpulist into a fixed field of struct np_k_place. */
static int copy_list(char *buf, size_t len, char *list)
{
	int rc = !list ? -ENOMEM : strlen(list) >= len ? -ENOSPC : 0;

	if (rc == 0)
		memcpy(buf, list, strlen(list) + 1);
	free(list);
	return rc;
}

/* NUMA nodes of cpus, as a list; "?" when libnuma cannot tell (no NUMA
 * support in the kernel, or a CPU it does not know). */
static int numa_of_cpus(const np_cpuset_t *cpus, char *buf, size_t len)
{
	np_cpuset_t *nodes;
	int rc;

	if (numa_available() < 0)
		goto unknown;
	if (!(nodes = np_cpuset_new()))
		return -ENOMEM;
	for (int c = np_cpuset_first(cpus); c >= 0; c = np_cpuset_next(cpus, c)) {
		int node = numa_node_of_cpu(c);

		if (node < 0) {
			np_cpuset_free(nodes);
			goto unknown;
		}
		if (np_cpuset_set(nodes, (unsigned)node) < 0) {
			np_cpuset_free(nodes);
			return -ENOMEM;
		}
	}
	rc = copy_list(buf, len, np_cpuset_format(nodes));
	np_cpuset_free(nodes);
	return rc;
unknown:
	snprintf(buf, len, "?");
	return 0;
}

void np_k_place_prepare(void)
{
	int cpu, n;

	if (numa_available() < 0)
		return;
	n = numa_num_configured_cpus();
	for (cpu = 0; cpu < n; cpu++)
		(void)numa_node_of_cpu(cpu);
}

long np_k_env_rank(const char *const *vars)
{
	for (; *vars; vars++) {
		uint64_t n;

		if (np_parse_u64(getenv(*vars), 0, INT_MAX, &n) == 0)
			return (long)n;
	}
	return 0;
}

int np_k_launcher_rank(void)
{
	return (int)np_k_env_rank(np_k_rank_vars);
}

/* The devices this process holds, "KIND:NAME,..." into buf; "?" when
 * they cannot be read, "" when there are too many to say (cut lists
 * would lie). */
static void held_devices(char *buf, size_t len)
{
	np_devopen_t *v = NULL;
	size_t n = 0, off = 0;
	unsigned unread = 0;
	np_error_t err = { 0 };

	buf[0] = '\0';
	/* a descriptor not looked at may hold anything: not "none" */
	if (np_devopen_scan("/proc", "", "self", &v, &n, &unread, &err) < 0 || unread) {
		free(v);
		snprintf(buf, len, "?");
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const char *id = v[i].pci[0] && !np_devkind_is_nic(v[i].kind) ? v[i].pci : v[i].name;
		int k = snprintf(buf + off, len - off, "%s%s:%s", i ? "," : "", np_devkind_name(v[i].kind), id);
		if (k < 0 || (size_t)k >= len - off) {
			snprintf(buf, len, "?");
			break;
		}
		off += (size_t)k;
	}
	free(v);
}

int np_k_place_self(int rank, int thread, struct np_k_place *p,
                    np_error_t *err)
{
	np_cpuset_t *cpus = np_cpuset_new();
	char *dot;
	int rc;

	memset(p, 0, sizeof(*p));
	p->rank = rank;
	p->thread = thread;
	if (gethostname(p->host, sizeof(p->host) - 1) != 0)
		snprintf(p->host, sizeof(p->host), "?");
	/* Short name, as Slurm shows node names. */
	dot = strchr(p->host, '.');
	if (dot != NULL)
		*dot = '\0';
	if (cpus == NULL)
		return np_error_set(err, -ENOMEM, "out of memory");
	/* the descriptors are the process's: once, by its first thread */
	if (thread == 0)
		held_devices(p->devices, sizeof(p->devices));
	rc = np_affinity_get(cpus, err);
	if (rc == 0) {
		rc = copy_list(p->cpus, sizeof(p->cpus), np_cpuset_format(cpus));
		if (rc == 0)
			rc = numa_of_cpus(cpus, p->numa, sizeof(p->numa));
		if (rc < 0)
			np_error_set(err, rc, "cannot format the CPU list: %s",
			             strerror(-rc));
	}
	np_cpuset_free(cpus);
	return rc;
}

int np_k_place_format(const struct np_k_place *p, char *buf, size_t len)
{
	int n = snprintf(buf, len,
	                 "# placement: host %s rank %d thread %d cpus %s numa %s%s%s",
	                 p->host, p->rank, p->thread, p->cpus, p->numa,
	                 p->devices[0] ? " devices " : "", p->devices);

	return (n < 0 || (size_t)n >= len) ? -ENOSPC : 0;
}

void np_k_place_print(FILE *f, const struct np_k_place *p, size_t n)
{
	char line[NP_K_HOST_MAX + 3 * NP_K_LIST_MAX + 96];
	size_t i;

	for (i = 0; i < n; i++) {
		np_k_place_format(&p[i], line, sizeof(line));
		fprintf(f, "%s\n", line);
	}
	fflush(f);
}

/* "rdma:mlx5_0,nvidia:0000:3b:00.0" -> ["rdma:mlx5_0", ...]; "?" -> null */
static json_t *devices_json(const char *list)
{
	json_t *a;
	const char *s = list;

	if (strcmp(list, "?") == 0)
		return json_null();
	if (!(a = json_array()))
		return NULL;
	while (*s) {
		size_t l = strcspn(s, ",");
		json_t *v = json_stringn(s, l);
		if (!v || json_array_append_new(a, v) != 0) {
			json_decref(a);
			return NULL;
		}
		s += l + (s[l] == ',');
	}
	return a;
}

json_t *np_k_place_json(const struct np_k_place *p, size_t n)
{
	json_t *arr = json_array();
	size_t i;

	if (arr == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		json_t *o = json_pack("{s:s, s:i, s:i, s:s, s:s}",
		                      "host", p[i].host, "rank", p[i].rank,
		                      "thread", p[i].thread, "cpus", p[i].cpus,
		                      "numa", p[i].numa);

		if (o != NULL && p[i].thread == 0 &&
		    json_object_set_new(o, "devices", devices_json(p[i].devices)) != 0) {
			json_decref(o);
			o = NULL;
		}
		if (o == NULL || json_array_append_new(arr, o) != 0) {
			json_decref(arr);
			return NULL;
		}
	}
	return arr;
}

int np_k_arg_threads(const char *arg, int openmp, int *threads,
                     np_error_t *err)
{
	if (np_arg_int("--threads", arg, 1, 65536, threads, err) < 0)
		return -EINVAL;
	if (!openmp && *threads > 1)
		return np_error_set(err, -EINVAL, "--threads: built without "
		                    "OpenMP, only 1 thread is possible");
	return 0;
}

int np_k_getopt_error(int c, char *const *argv, np_error_t *err)
{
	if (c == ':')
		return np_error_set(err, -EINVAL, "option '%s' needs an "
		                    "argument", argv[optind - 1]);
	return np_error_set(err, -EINVAL, "unknown option '%s'",
	                    argv[optind - 1]);
}

int np_k_no_more_args(int argc, char *const *argv, np_error_t *err)
{
	if (optind < argc)
		return np_error_set(err, -EINVAL, "unexpected argument '%s'",
		                    argv[optind]);
	return 0;
}

int np_k_usage_error(const char *prog, const char *msg)
{
	fprintf(stderr, "%s: %s\nTry '%s --help' for more information.\n",
	        prog, msg, prog);
	return NP_K_EXIT_USAGE;
}

int np_k_json_emit(FILE *f, json_t *root, np_error_t *err)
{
	int rc;

	if (root == NULL)
		return np_error_set(err, -ENOMEM, "cannot build the JSON output");
	rc = json_dumpf(root, f, JSON_COMPACT | JSON_REAL_PRECISION(12));
	json_decref(root);
	if (rc != 0 || fputc('\n', f) == EOF || fflush(f) != 0)
		return np_error_set(err, -EIO, "cannot write the JSON output");
	return 0;
}

double np_k_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

json_t *np_k_build_json(const char *cflags)
{
	char buf[1024];
	size_t n = 0;
	const char *s;

	/* Makefile variables joined with blanks leave runs of them. */
	for (s = cflags ? cflags : ""; *s != '\0' && n + 1 < sizeof(buf); s++) {
		if (*s == ' ' || *s == '\t') {
			if (n == 0 || buf[n - 1] == ' ')
				continue;
			buf[n++] = ' ';
		} else {
			buf[n++] = *s;
		}
	}
	while (n > 0 && buf[n - 1] == ' ')
		n--;
	buf[n] = '\0';
#if defined(__GNUC__) && !defined(__clang__)
	return json_pack("{s:s, s:s}", "compiler", "gcc " __VERSION__,
	                 "cflags", cflags ? buf : "unknown");
#else
	return json_pack("{s:s, s:s}", "compiler", __VERSION__,
	                 "cflags", cflags ? buf : "unknown");
#endif
}

/*
 * kcommon.c - placement lines and output helpers shared by the kernels.
 */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <numa.h>

#include "kcommon.h"

int np_k_err_set(struct np_k_err *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return code;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return code;
}

int np_k_cpulist_format(const unsigned char *bits, size_t nbits,
                        char *buf, size_t len)
{
	size_t i = 0, used = 0;
	int n;

	if (len == 0)
		return -ENOSPC;
	buf[0] = '\0';
	while (i < nbits) {
		size_t j;

		if (!bits[i]) {
			i++;
			continue;
		}
		for (j = i; j + 1 < nbits && bits[j + 1]; j++)
			;
		if (j == i)
			n = snprintf(buf + used, len - used, "%s%zu",
			             used ? "," : "", i);
		else
			n = snprintf(buf + used, len - used, "%s%zu-%zu",
			             used ? "," : "", i, j);
		if (n < 0 || (size_t)n >= len - used)
			return -ENOSPC;
		used += (size_t)n;
		i = j + 1;
	}
	return 0;
}

/* The affinity mask may be larger than CPU_SETSIZE on very big machines,
 * so grow it until the kernel accepts it. */
static int affinity_bits(unsigned char **bitsp, size_t *nbitsp,
                         struct np_k_err *err)
{
	size_t ncpus = CPU_SETSIZE;

	for (;;) {
		cpu_set_t *set = CPU_ALLOC(ncpus);
		size_t size = CPU_ALLOC_SIZE(ncpus);
		unsigned char *bits;
		size_t i;

		if (set == NULL)
			return np_k_err_set(err, -ENOMEM, "out of memory");
		CPU_ZERO_S(size, set);
		if (sched_getaffinity(0, size, set) != 0) {
			int e = errno;

			CPU_FREE(set);
			if (e == EINVAL && ncpus < (1u << 20)) {
				ncpus *= 2;
				continue;
			}
			return np_k_err_set(err, -e, "sched_getaffinity: %s",
			                    strerror(e));
		}
		bits = calloc(ncpus, 1);
		if (bits == NULL) {
			CPU_FREE(set);
			return np_k_err_set(err, -ENOMEM, "out of memory");
		}
		for (i = 0; i < ncpus; i++)
			bits[i] = CPU_ISSET_S(i, size, set) ? 1 : 0;
		CPU_FREE(set);
		*bitsp = bits;
		*nbitsp = ncpus;
		return 0;
	}
}

/* NUMA nodes of the CPUs in bits, as a list; "?" when libnuma cannot tell
 * (no NUMA support in the kernel, or a CPU it does not know). */
static int numa_of_cpus(const unsigned char *bits, size_t nbits,
                        char *buf, size_t len)
{
	unsigned char *nodes;
	size_t nnodes, i;
	int rc;

	if (numa_available() < 0)
		goto unknown;
	nnodes = (size_t)numa_max_possible_node() + 1;
	nodes = calloc(nnodes, 1);
	if (nodes == NULL)
		return -ENOMEM;
	for (i = 0; i < nbits; i++) {
		int node;

		if (!bits[i])
			continue;
		node = numa_node_of_cpu((int)i);
		if (node < 0 || (size_t)node >= nnodes) {
			free(nodes);
			goto unknown;
		}
		nodes[node] = 1;
	}
	rc = np_k_cpulist_format(nodes, nnodes, buf, len);
	free(nodes);
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

int np_k_launcher_rank(void)
{
	static const char *const vars[] = {
		"SLURM_PROCID", "PMI_RANK", "PMIX_RANK", "OMPI_COMM_WORLD_RANK", NULL
	};

	for (const char *const *v = vars; *v; v++) {
		const char *s = getenv(*v);
		char *end;
		long n;

		if (!s || *s < '0' || *s > '9')
			continue;
		errno = 0;
		n = strtol(s, &end, 10);
		if (!errno && !*end && n <= INT_MAX)
			return (int)n;
	}
	return 0;
}

int np_k_place_self(int rank, int thread, struct np_k_place *p,
                    struct np_k_err *err)
{
	unsigned char *bits = NULL;
	size_t nbits = 0;
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
	rc = affinity_bits(&bits, &nbits, err);
	if (rc < 0)
		return rc;
	rc = np_k_cpulist_format(bits, nbits, p->cpus, sizeof(p->cpus));
	if (rc == 0)
		rc = numa_of_cpus(bits, nbits, p->numa, sizeof(p->numa));
	free(bits);
	if (rc < 0)
		return np_k_err_set(err, rc, "cannot format the CPU list: %s",
		                    strerror(-rc));
	return 0;
}

int np_k_place_format(const struct np_k_place *p, char *buf, size_t len)
{
	int n = snprintf(buf, len,
	                 "# placement: host %s rank %d thread %d cpus %s numa %s",
	                 p->host, p->rank, p->thread, p->cpus, p->numa);

	return (n < 0 || (size_t)n >= len) ? -ENOSPC : 0;
}

void np_k_place_print(FILE *f, const struct np_k_place *p, size_t n)
{
	char line[NP_K_HOST_MAX + 2 * NP_K_LIST_MAX + 96];
	size_t i;

	for (i = 0; i < n; i++) {
		np_k_place_format(&p[i], line, sizeof(line));
		fprintf(f, "%s\n", line);
	}
	fflush(f);
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

		if (o == NULL || json_array_append_new(arr, o) != 0) {
			json_decref(arr);
			return NULL;
		}
	}
	return arr;
}

int np_k_usage_error(const char *prog, const char *msg)
{
	fprintf(stderr, "%s: %s\nTry '%s --help' for more information.\n",
	        prog, msg, prog);
	return NP_K_EXIT_USAGE;
}

int np_k_json_emit(FILE *f, json_t *root, struct np_k_err *err)
{
	int rc;

	if (root == NULL)
		return np_k_err_set(err, -ENOMEM, "cannot build the JSON output");
	rc = json_dumpf(root, f, JSON_COMPACT | JSON_REAL_PRECISION(12));
	json_decref(root);
	if (rc != 0 || fputc('\n', f) == EOF || fflush(f) != 0)
		return np_k_err_set(err, -EIO, "cannot write the JSON output");
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

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_topo.c - libFuzzer target: hwloc XML through the guarded loader
 * (np_topo_load, which has numaplan-topo-check parse it first), then the
 * planner with every policy and every output format, on the topology as
 * loaded and restricted.  Built and run by `make check-fuzz` (clang).
 *
 * hwloc crashes on some inputs; those end in the checker process and come
 * back here as errors, so what can crash this process is numaplan's own
 * code, and the hwloc queries it makes on a topology hwloc accepted.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <numaplan.h>

#define MAX_INPUT (256u << 10)

static FILE *sink;

/* What the inputs reached, said at exit when NP_FUZZ_STATS is set: a run
 * whose inputs all fail to load has fuzzed nothing past hwloc's parser,
 * which tests/fuzz/10-shape.t checks.  NP_FUZZ_WHY=1 prints every refusal. */
static struct {
	unsigned long inputs, loaded, planned, shape_refused;
} stats;

static void print_stats(void)
{
	fprintf(stderr, "fuzz_topo stats: inputs %lu loaded %lu planned %lu shape_refused %lu\n",
	        stats.inputs, stats.loaded, stats.planned, stats.shape_refused);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	sink = fopen("/dev/null", "w");
	/* As the vcluster's slurmd: no plugin loaded at every load (twice as
	 * many inputs a second), the minimalistic parser in this process, so
	 * that files only libxml2 reads take the checker's re-export path. */
	setenv("HWLOC_PLUGINS_BLACKLIST", "hwloc_gl,hwloc_opencl,hwloc_pci,hwloc_xml_libxml", 0);
	setenv("HWLOC_LIBXML_IMPORT", "0", 0);
	if (getenv("NP_FUZZ_STATS"))
		atexit(print_stats);
	return sink ? 0 : -1;
}

/* Plan sizes and options from the input's bytes, so that they are part of
 * what the fuzzer explores. */
static uint32_t mix(const uint8_t *d, size_t n)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < n; i += 1 + n / 64)
		h = (h ^ d[i]) * 16777619u;
	return h;
}

static void write_all_formats(const np_topo_t *t, const np_plan_t *p)
{
	char *list = strdup(np_format_list()), *save = NULL;
	np_error_t err = { 0 };

	for (char *tok = list ? strtok_r(list, ", ", &save) : NULL; tok;
	     tok = strtok_r(NULL, ", ", &save)) {
		np_format_t f;

		if (np_format_parse(tok, &f) == 0)
			(void)np_plan_write(sink, t, p, f, "./a.out", &err);
	}
	free(list);
	free(np_plan_to_json(t, p));
}

static bool plan_all(const np_topo_t *t, uint32_t h)
{
	static const unsigned sizes[] = { 1, 2, 3, 5, 8 };
	bool planned = false;

	for (int pol = 0; pol < NP_POLICY_COUNT; pol++) {
		np_plan_opts_t o = NP_PLAN_OPTS_INIT;
		np_error_t err = { 0 };
		np_plan_t *p = NULL;
		const char *hosts[] = { "n1", "n2" };

		o.policy = (np_policy_t)pol;
		o.ntasks = (h >> 3) % 4 == 0 ? t->ncores + 1 + (h % 7) : sizes[(h >> (pol + 1)) % 5];
		o.cpus_per_task = 1 + (h >> 8) % 3;
		o.threads = (h >> 11) & 1;
		o.mem = (np_mem_t)((h >> 12) % 3);
		o.overcommit = (h >> 14) & 1;
		o.no_fallback = (h >> 15) & 1;
		if ((h >> 16) & 1) {
			o.hosts = hosts;
			o.nhosts = 2;
		}
		if (pol == NP_POLICY_HCA_NEAR && t->ndevices && ((h >> 17) & 1))
			o.hca = t->devices[(h >> 18) % t->ndevices].name;
		if (np_plan_compute(t, &o, &p, &err) == 0) {
			planned = true;
			write_all_formats(t, p);
			np_plan_free(p);
		}
	}
	return planned;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	np_load_opts_t lo = { .xml_path = "fuzz-input.xml", .flags = NP_LOAD_XML_FD,
	                      .check_timeout_ms = 20000 };
	np_error_t err = { 0 };
	np_topo_t *t = NULL;
	bool planned;
	uint32_t h;
	int fd;

	if (size > MAX_INPUT)
		return -1;
	fd = memfd_create("fuzz-input", MFD_CLOEXEC);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	lo.xml_fd = fd;
	h = mix(data, size);
	if ((h & 1) == 0)
		lo.flags |= NP_LOAD_WHOLE_MACHINE;
	stats.inputs++;
	if (np_topo_load(&t, &lo, &err) != 0 && getenv("NP_FUZZ_WHY"))
		fprintf(stderr, "WHY %.150s\n", err.msg);
	if (!t && strstr(err.msg, "a shape no machine has"))
		stats.shape_refused++;
	if (t) {
		np_cpuset_t *half = np_cpuset_new();
		char *js = np_topo_to_json(t);

		stats.loaded++;
		free(js);
		(void)np_topo_write_text(sink, t);
		planned = plan_all(t, h);
		/* the plugin's path: restricted to part of the allowed CPUs */
		if (half && t->npus > 1) {
			unsigned k = 0, want = t->npus / 2;

			for (unsigned c = 0; c < t->ncores && k < want; c++)
				for (unsigned i = 0; i < t->cores[c].npus && k < want; i++, k++)
					np_cpuset_set(half, t->cores[c].pus[i]);
			if (np_topo_restrict(t, half, &err) == 0)
				planned |= plan_all(t, h >> 1);
		}
		stats.planned += planned;
		np_cpuset_free(half);
		np_topo_free(t);
	}
	close(fd);
	return 0;
}

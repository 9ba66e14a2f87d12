/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_formats.c - the launcher formats encode exactly the JSON plan.
 * Each format is parsed back here with its own small reader (the syntax
 * each launcher documents) and compared, rank by rank, with the "cpus",
 * "mems" and "host" fields of the JSON form.  Open MPI 5 rankfiles hold
 * logical indexes: they are read back through hwloc itself, as PRRTE
 * reads them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>
#include <jansson.h>

#include "plan_helpers.h"

struct rankinfo {
	char host[64];
	np_cpuset_t *cpus, *mems;
};

static char *render(const np_topo_t *t, const np_plan_t *p, np_format_t fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	np_error_t err = { 0 };

	assert_non_null(f);
	assert_int_equal(np_plan_write(f, t, p, fmt, "./app --flag", &err), 0);
	fclose(f);
	return buf;
}

/* A string member that must be there: a missing key fails the test with
 * its name, instead of handing NULL to strcmp or printf. */
static const char *member(json_t *o, const char *key)
{
	const char *v = json_string_value(json_object_get(o, key));

	if (!v)
		fail_msg("JSON member '%s' missing or not a string", key);
	return v;
}

static struct rankinfo *from_json(const np_topo_t *t, const np_plan_t *p, size_t *n)
{
	char *txt = render(t, p, NP_FMT_JSON);
	json_error_t je;
	json_t *root = json_loads(txt, 0, &je), *ranks;
	struct rankinfo *ri;

	assert_non_null(root);
	assert_true(json_is_string(json_object_get(root, "policy")));
	ranks = json_object_get(root, "ranks");
	assert_true(json_is_array(ranks));
	*n = json_array_size(ranks);
	ri = calloc(*n, sizeof(*ri));
	for (size_t i = 0; i < *n; i++) {
		json_t *r = json_array_get(ranks, i);

		assert_int_equal(json_integer_value(json_object_get(r, "rank")), (json_int_t)i);
		snprintf(ri[i].host, sizeof(ri[i].host), "%s", member(r, "host"));
		ri[i].cpus = set_of(member(r, "cpus"));
		ri[i].mems = set_of(member(r, "mems"));
		assert_true(json_is_object(json_object_get(r, "env")));
		assert_true(json_is_string(json_object_get(r, "hca")) || json_is_null(json_object_get(r, "hca")));
	}
	json_decref(root);
	free(txt);
	return ri;
}

static void free_info(struct rankinfo *ri, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		np_cpuset_free(ri[i].cpus);
		np_cpuset_free(ri[i].mems);
	}
	free(ri);
}

/* "0x..." -> set */
static np_cpuset_t *from_hex(const char *hex, size_t len)
{
	np_cpuset_t *s = np_cpuset_new();

	assert_true(len > 2 && hex[0] == '0' && hex[1] == 'x');
	for (size_t i = 2; i < len; i++) {
		char c = hex[i];
		unsigned v = c >= 'a' ? (unsigned)(c - 'a' + 10) : (unsigned)(c - '0');

		for (unsigned b = 0; b < 4; b++)
			if (v & (1u << b))
				np_cpuset_set(s, (unsigned)((len - 1 - i) * 4 + b));
	}
	return s;
}

/* What Open MPI 5 binds for a slot list: PRRTE's reader takes each number
 * as the logical index of a core, or of a PU under hwtcpus, and ORs the
 * objects' cpusets.  Done here with hwloc on the XML, not with the
 * planner's arrays. */
static np_cpuset_t *prrte_binding(hwloc_topology_t h, int hwt, const char *list)
{
	np_cpuset_t *logical = set_of(list), *s = np_cpuset_new();

	for (int i = np_cpuset_first(logical); i >= 0; i = np_cpuset_next(logical, i)) {
		hwloc_obj_t o = hwloc_get_obj_by_type(h, hwt ? HWLOC_OBJ_PU : HWLOC_OBJ_CORE, (unsigned)i);
		unsigned pu;

		assert_non_null(o);
		hwloc_bitmap_foreach_begin(pu, o->cpuset)
			np_cpuset_set(s, pu);
		hwloc_bitmap_foreach_end();
	}
	np_cpuset_free(logical);
	return s;
}

/* ompi4: physical PU numbers; ompi (h != NULL): logical, as read above */
static void check_ompi(const char *txt, const struct rankinfo *ri, size_t n, hwloc_topology_t h)
{
	size_t seen = 0;
	char *copy = strdup(txt), *save = NULL;
	int hwt = strstr(txt, "--map-by rankfile:file=FILE:hwtcpus") != NULL;

	assert_non_null(strstr(txt, h ? "--map-by rankfile:file=FILE" : "--mca rmaps_rank_file_physical 1"));
	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		unsigned r;
		char host[64], slot[4096];

		if (l[0] == '#')
			continue;
		assert_int_equal(sscanf(l, "rank %u=%63[^ ] slot=%4095s", &r, host, slot), 3);
		assert_true(r < n);
		assert_string_equal(host, ri[r].host);
		np_cpuset_t *s = h ? prrte_binding(h, hwt, slot) : set_of(slot);

		assert_true(np_cpuset_equal(s, ri[r].cpus));
		np_cpuset_free(s);
		seen++;
	}
	assert_int_equal(seen, n);
	free(copy);
}

/* srun --cpu-bind=mask_cpu:A,B --mem-bind=mask_mem:X,Y, masks by local rank */
static void check_slurm(const char *txt, const struct rankinfo *ri, size_t n, int have_mem)
{
	const char *c = strstr(txt, "--cpu-bind=mask_cpu:"), *m = strstr(txt, "--mem-bind=mask_mem:");
	size_t local = 0;

	assert_non_null(c);
	assert_true(have_mem ? m != NULL : m == NULL);
	for (size_t i = 0; i < n && !strcmp(ri[i].host, ri[0].host); i++)
		local++;
	c += strlen("--cpu-bind=mask_cpu:");
	for (size_t i = 0; i < local; i++) {
		size_t len = strcspn(c, ", ");
		np_cpuset_t *s = from_hex(c, len);

		assert_true(np_cpuset_equal(s, ri[i].cpus));
		np_cpuset_free(s);
		c += len;
		assert_true(*c == (i + 1 < local ? ',' : ' '));
		c++;
	}
	if (m) {
		m += strlen("--mem-bind=mask_mem:");
		for (size_t i = 0; i < local; i++) {
			size_t len = strcspn(m, ", ");
			np_cpuset_t *s = from_hex(m, len);

			assert_true(np_cpuset_equal(s, ri[i].mems));
			np_cpuset_free(s);
			m += len + 1;
		}
	}
	if (n > local) {
		/* the SLURM_HOSTFILE lists each rank's host in rank order */
		const char *h = strstr(txt, "<<'EOF'\n");

		assert_non_null(h);
		h += 8;
		for (size_t i = 0; i < n; i++) {
			size_t len = strcspn(h, "\n");

			assert_int_equal(len, strlen(ri[i].host));
			assert_memory_equal(h, ri[i].host, len);
			h += len + 1;
		}
	}
}

/* -bind-to user:0+64,8+72 */
static void check_mpich(const char *txt, const struct rankinfo *ri, size_t n)
{
	const char *u = strstr(txt, "-bind-to user:");
	size_t local = 0;

	assert_non_null(u);
	for (size_t i = 0; i < n && !strcmp(ri[i].host, ri[0].host); i++)
		local++;
	u += strlen("-bind-to user:");
	for (size_t i = 0; i < local; i++) {
		np_cpuset_t *s = np_cpuset_new();

		for (;;) {
			char *end;
			unsigned long v = strtoul(u, &end, 10);

			assert_true(end != u);
			np_cpuset_set(s, (unsigned)v);
			u = end;
			if (*u != '+')
				break;
			u++;
		}
		assert_true(np_cpuset_equal(s, ri[i].cpus));
		np_cpuset_free(s);
		assert_true(*u == (i + 1 < local ? ',' : ' '));
		u++;
	}
}

static void check_numactl(const char *txt, const struct rankinfo *ri, size_t n)
{
	size_t seen = 0;
	char *copy = strdup(txt), *save = NULL;

	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char cpus[4096], mode[16], mems[256];

		if (l[0] == '#')
			continue;
		/* the rank's variables come first, as env(1) words */
		if (!strncmp(l, "env ", 4))
			l = strstr(l, " numactl --physcpubind=") + 1;
		assert_int_equal(sscanf(l, "numactl --physcpubind=%4095s --%15[a-z]=%255s -- ./app --flag",
		                        cpus, mode, mems), 3);
		np_cpuset_t *c = set_of(cpus), *m = set_of(mems);

		assert_true(np_cpuset_equal(c, ri[seen].cpus));
		assert_true(np_cpuset_equal(m, ri[seen].mems));
		np_cpuset_free(c);
		np_cpuset_free(m);
		seen++;
	}
	assert_int_equal(seen, n);
	free(copy);
}

static void roundtrip_opts(const char *file, np_policy_t pol, unsigned n, unsigned cpt,
                           unsigned nodes, bool threads)
{
	np_topo_t *t = load_topo(file, NULL);
	np_plan_opts_t o = NP_PLAN_OPTS_INIT;
	np_error_t err = { 0 };
	np_plan_t *p;
	struct rankinfo *ri;
	size_t nr;
	char *txt;
	hwloc_topology_t h;

	o.policy = pol;
	o.ntasks = n;
	o.cpus_per_task = cpt;
	o.nnodes = nodes;
	o.threads = threads;
	assert_int_equal(np_plan_compute(t, &o, &p, &err), 0);
	ri = from_json(t, p, &nr);
	assert_int_equal(nr, n);
	assert_int_equal(hwloc_topology_init(&h), 0);
	assert_int_equal(hwloc_topology_set_xml(h, topo_path(file)), 0);
	assert_int_equal(hwloc_topology_load(h), 0);
	txt = render(t, p, NP_FMT_OMPI);
	check_ompi(txt, ri, nr, h);
	free(txt);
	hwloc_topology_destroy(h);
	/* Open MPI's readers overflow a 64-byte buffer on "HOST slot=LIST"
	 * (see format_launchers.c): such a plan must be refused, not written. */
	size_t longest = 0;

	for (size_t i = 0; i < nr; i++) {
		char *l = np_cpuset_format(ri[i].cpus);
		size_t len = strlen(ri[i].host) + strlen(" slot=") + strlen(l);

		longest = len > longest ? len : longest;
		free(l);
	}
	if (longest <= 63) {
		txt = render(t, p, NP_FMT_OMPI4);
		check_ompi(txt, ri, nr, NULL);
		free(txt);
	} else {
		FILE *f = open_memstream(&txt, &(size_t){ 0 });

		assert_int_equal(np_plan_write(f, t, p, NP_FMT_OMPI4, NULL, &err), -E2BIG);
		assert_non_null(strstr(err.msg, "characters"));
		fclose(f);
		free(txt);
	}
	txt = render(t, p, NP_FMT_SLURM);
	check_slurm(txt, ri, nr, 1);
	free(txt);
	txt = render(t, p, NP_FMT_MPICH);
	check_mpich(txt, ri, nr);
	free(txt);
	txt = render(t, p, NP_FMT_NUMACTL);
	check_numactl(txt, ri, nr);
	free(txt);
	free_info(ri, nr);
	np_plan_free(p);
	np_topo_free(t);
}

static void roundtrip(const char *file, np_policy_t pol, unsigned n, unsigned cpt, unsigned nodes)
{
	roundtrip_opts(file, pol, n, cpt, nodes, false);
}

/* Logical and OS numbers differ: PUs of one core are P#k and P#k+40, and
 * the two packages interleave (CLX, Westmere). */
static void test_roundtrip_interleaved(void **state)
{
	const char *clx = "intel-clx6230-2s-snc2-4numa-memsidecache.xml";
	const char *wsm = "intel-wsm-2s-mlx4-3m2070-hp-sl390s.xml";

	(void)state;
	roundtrip(clx, NP_POLICY_SPREAD, 8, 2, 0);
	roundtrip(clx, NP_POLICY_NUMA, 4, 1, 0);
	roundtrip_opts(clx, NP_POLICY_SPREAD, 13, 1, 0, true);
	roundtrip_opts(clx, NP_POLICY_COMPACT, 7, 3, 2, true);
	roundtrip(wsm, NP_POLICY_HCA_NEAR, 6, 1, 0);
	roundtrip_opts(wsm, NP_POLICY_HCA_NEAR, 6, 1, 0, true);
}

static void test_roundtrip_epyc(void **state)
{
	(void)state;
	roundtrip(EPYC7551, NP_POLICY_HCA_NEAR, 16, 1, 0);
	roundtrip(EPYC7551, NP_POLICY_SPREAD, 8, 4, 0);
	roundtrip(EPYC7551, NP_POLICY_NUMA, 8, 1, 0);
}

static void test_roundtrip_multinode(void **state)
{
	(void)state;
	roundtrip(SPR8480, NP_POLICY_HCA_NEAR, 16, 2, 2);
	roundtrip("sgi-uv2000-24s-24numa-mlx4.xml", NP_POLICY_COMPACT, 384, 1, 2);
}

static void test_json_contract(void **state)
{
	np_topo_t *t = load_topo(EPYC7551, NULL);
	np_error_t err = { 0 };
	np_plan_t *p;
	char *txt;
	json_t *root, *r0;

	(void)state;
	assert_int_equal(make_plan(t, NP_POLICY_HCA_NEAR, 2, 1, &p, &err), 0);
	txt = render(t, p, NP_FMT_JSON);
	root = json_loads(txt, 0, NULL);
	assert_string_equal(member(root, "policy"), "hca-near");
	r0 = json_array_get(json_object_get(root, "ranks"), 0);
	assert_true(json_is_integer(json_object_get(r0, "rank")));
	assert_true(json_is_string(json_object_get(r0, "host")));
	assert_string_equal(member(r0, "hca"), "mlx5_0");
	assert_string_equal(member(json_object_get(r0, "env"), "UCX_NET_DEVICES"),
	                    "mlx5_0:1");
	json_decref(root);
	free(txt);
	np_plan_free(p);
	/* unbound memory is "" and no hca is null */
	np_plan_opts_t o = NP_PLAN_OPTS_INIT;

	o.mem = NP_MEM_NONE;
	o.ntasks = 1;
	assert_int_equal(np_plan_compute(t, &o, &p, &err), 0);
	txt = render(t, p, NP_FMT_JSON);
	root = json_loads(txt, 0, NULL);
	r0 = json_array_get(json_object_get(root, "ranks"), 0);
	assert_string_equal(member(r0, "mems"), "");
	assert_true(json_is_null(json_object_get(r0, "hca")));
	json_decref(root);
	free(txt);
	np_plan_free(p);
	np_topo_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip_epyc),
		cmocka_unit_test(test_roundtrip_multinode),
		cmocka_unit_test(test_roundtrip_interleaved),
		cmocka_unit_test(test_json_contract),
	};

	return cmocka_run_group_tests_name("formats", tests, NULL, NULL);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_topo.c - loading real node topologies.  The expected counts and
 * HCA localities are those of tests/topologies/INDEX.md, which were read
 * with hwloc's own tools, not with numaplan.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plan_helpers.h"

struct expect {
	const char *file;
	unsigned pkgs, numa, cores, pus;
	const char *devs;   /* "name>numa-list;..." in any order; "" = none; ">root" = machine root */
};

static const struct expect index_table[] = {
	{ "amd-epyc7401-2s-nps4-8numa-4vega20-mlx5.xml", 2, 8, 48, 96, "mlx5_0>3" },
	{ "amd-epyc7402-2s-nps1-8mi50-mlx5.xml", 2, 2, 48, 96, "mlx5_0>1" },
	{ "amd-epyc7451-1s-nps4-1mi50-mlx5.xml", 1, 4, 24, 48, "mlx5_0>3" },
	{ EPYC7551, 2, 8, 64, 128, "mlx5_0>5" },
	{ "amd-epyc7763-2s-milan-cpuonly-from-cpuid.xml", 2, 2, 128, 128, "" },
	{ "amd-epyc7a53-1s-nps4-8mi250xgcd-4slingshot-tioga.xml", 1, 4, 64, 128,
	  "hsi2>0;hsi1>1;hsi3>2;hsi0>3" },
	{ "amd-mi300a-4apu-cpx-24gpu-4slingshot-tuolumne.xml", 4, 4, 96, 192,
	  "hsi0>0;hsi1>1;hsi2>2;hsi3>3" },
	{ "arm-kunpeng920-2s-4numa.xml", 2, 4, 128, 128, "" },
	{ "arm-nvidia-gh200-grace-1numa.xml", 1, 1, 72, 72, "" },
	{ "arm-thunderx2-2s-4mlx5-ulna.xml", 2, 2, 64, 256, "mlx5_0>0;mlx5_1>0;mlx5_2>0;mlx5_3>1" },
	{ "cisco-ucs-2s-3usnic-manyvfs.xml", 2, 2, 16, 16, "usnic_0>0;usnic_1>0;usnic_2>1" },
	{ "ibm-power9-2s-4v100-4mlx5-lassen.xml", 2, 2, 40, 160, "mlx5_0>0;mlx5_1>0;mlx5_2>8;mlx5_3>8" },
	{ "ibm-power9-2s-4v100-gpunuma-6numa-sierra.xml", 2, 6, 44, 176,
	  "mlx5_0>0;mlx5_1>0;mlx5_2>8;mlx5_3>8" },
	{ "intel-bdw2695v4-2s-2p100-mlx5-pascal.xml", 2, 2, 36, 72, "mlx5_0>0" },
	{ "intel-bdw2695v4-2s-hfi1-opa-quartz.xml", 2, 2, 36, 36, "hfi1_0>1" },
	{ "intel-clx6230-2s-snc2-4numa-memsidecache.xml", 2, 4, 40, 80, "" },
	{ "intel-clx8259cl-2s-8t4-efa-aws-g4dnmetal.xml", 2, 2, 48, 96, "rdmap197s0>1" },
	{ "intel-e7-4870-4s-qib-rootlocality.xml", 4, 4, 40, 40, "qib0>root" },
	{ "intel-knl7250-snc4-flat-8numa-mlx5.xml", 1, 8, 68, 272, "mlx5_0>0,4" },
	{ "intel-snb2650-2s-mlx5-k40-conan.xml", 2, 2, 16, 32, "mlx5_0>1" },
	{ SPR8480, 2, 8, 112, 224, "mlx5_2>1;mlx5_0>3;mlx5_1>3;mlx5_3>5" },
	{ "intel-wsm-2s-mlx4-3m2070-hp-sl390s.xml", 2, 2, 12, 24, "mlx4_0>0" },
	{ "nvidia-dgx2-16v100-nvlink.xml", 2, 2, 4, 4, "" },
	{ "sgi-uv2000-24s-24numa-mlx4.xml", 24, 24, 192, 384, "mlx4_0>6" },
};

/* INDEX.md lists adapters: OpenFabrics devices, or Slingshot NICs where
 * there is none; the other network interfaces are counted apart. */
static unsigned network_devices(const np_topo_t *t)
{
	unsigned n = 0;

	for (unsigned i = 0; i < t->ndevices; i++)
		n += t->devices[i].kind != NP_DEV_GPU && t->devices[i].kind != NP_DEV_NETDEV;
	return n;
}

static void check_devices(const np_topo_t *t, const char *spec, const char *file)
{
	char buf[256], *save = NULL;
	unsigned n = 0;

	snprintf(buf, sizeof(buf), "%s", spec);
	for (char *tok = strtok_r(buf, ";", &save); tok; tok = strtok_r(NULL, ";", &save)) {
		char *gt = strchr(tok, '>');
		int i;

		*gt = '\0';
		i = np_topo_device_by_name(t, tok);
		if (i < 0)
			fail_msg("%s: device %s not found", file, tok);
		if (!strcmp(gt + 1, "root")) {
			assert_true(t->devices[i].at_root);
			/* local to everything */
			assert_true(np_cpuset_included(t->complete, t->devices[i].cpus));
		} else {
			char *numas = np_cpuset_format(t->devices[i].numas);

			if (strcmp(numas, gt + 1))
				fail_msg("%s: %s local to NUMA %s, expected %s", file, tok, numas, gt + 1);
			free(numas);
			assert_false(t->devices[i].at_root);
		}
		n++;
	}
	if (n != network_devices(t))
		fail_msg("%s: %u network devices, expected %u", file, network_devices(t), n);
}

static void test_index_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(index_table) / sizeof(index_table[0]); i++) {
		const struct expect *e = &index_table[i];
		np_topo_t *t = load_topo(e->file, NULL);

		if (t->npackages != e->pkgs || t->nnuma != e->numa || t->ncores != e->cores ||
		    t->npus != e->pus)
			fail_msg("%s: %u pkgs %u numa %u cores %u PUs, expected %u/%u/%u/%u", e->file,
			         t->npackages, t->nnuma, t->ncores, t->npus, e->pkgs, e->numa, e->cores, e->pus);
		check_devices(t, e->devs, e->file);
		np_topo_free(t);
	}
}

static void test_epyc_details(void **state)
{
	np_topo_t *t = load_topo(EPYC7551, NULL);
	np_cpuset_t *n5 = set_of("40-47,104-111");
	int d;

	(void)state;
	/* Naples: 2 dies... one NUMA node per die, 2 CCX (L3) per die */
	assert_int_equal(t->nl3, 16);
	assert_true(np_cpuset_equal(t->numa[5].cpus, n5));
	assert_int_equal(t->numa[5].ncores, 8);
	assert_int_equal(t->numa[5].package, 1);
	d = np_topo_device_by_name(t, "mlx5_0");
	assert_true(d >= 0);
	assert_int_equal(t->devices[d].kind, NP_DEV_IB);
	assert_true(np_cpuset_equal(t->devices[d].cpus, n5));
	assert_true(t->devices[d].nports >= 1);
	/* SLIT of the seed study's machine class: 10 local, 16 same socket, 32 remote */
	assert_non_null(t->distances);
	assert_int_equal(np_topo_distance(t, 5, 5), 10);
	assert_int_equal(np_topo_distance(t, 5, 4), 16);
	assert_int_equal(np_topo_distance(t, 5, 0), 32);
	np_cpuset_free(n5);
	np_topo_free(t);
}

static void test_device_kinds(void **state)
{
	struct { const char *file, *dev; np_dev_kind_t kind; } k[] = {
		{ "arm-thunderx2-2s-4mlx5-ulna.xml", "mlx5_1", NP_DEV_ROCE },
		{ "arm-thunderx2-2s-4mlx5-ulna.xml", "mlx5_0", NP_DEV_IB },
		{ "intel-bdw2695v4-2s-hfi1-opa-quartz.xml", "hfi1_0", NP_DEV_OPA },
		{ "intel-clx8259cl-2s-8t4-efa-aws-g4dnmetal.xml", "rdmap197s0", NP_DEV_EFA },
		{ "cisco-ucs-2s-3usnic-manyvfs.xml", "usnic_2", NP_DEV_USNIC },
		{ "amd-epyc7a53-1s-nps4-8mi250xgcd-4slingshot-tioga.xml", "hsi0", NP_DEV_SLINGSHOT },
		{ "intel-e7-4870-4s-qib-rootlocality.xml", "qib0", NP_DEV_IB },
		/* other interfaces are kept for hca=NAME (TCP, iWARP) */
		{ EPYC7551, "eno1", NP_DEV_NETDEV },
		{ EPYC7551, "ib0", NP_DEV_NETDEV },
		{ "amd-epyc7a53-1s-nps4-8mi250xgcd-4slingshot-tioga.xml", "ens2", NP_DEV_NETDEV },
		/* an IPoIB interface called hsi0 on an InfiniBand node is not Slingshot */
		{ "arm-thunderx2-2s-4mlx5-ulna.xml", "hsi0", NP_DEV_NETDEV },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		np_topo_t *t = load_topo(k[i].file, NULL);
		int d = np_topo_device_by_name(t, k[i].dev);

		assert_true(d >= 0);
		if (t->devices[d].kind != k[i].kind)
			fail_msg("%s %s: kind %s", k[i].file, k[i].dev, np_dev_kind_name(t->devices[d].kind));
		np_topo_free(t);
	}
}

static void test_gpus_and_cpuless_numa(void **state)
{
	np_topo_t *t = load_topo(SPR8480, NULL);

	(void)state;
	assert_int_equal(t->ngpus, 4);
	np_topo_free(t);
	/* Sierra: 4 of 6 NUMA nodes are GPU memory without CPUs */
	t = load_topo("ibm-power9-2s-4v100-gpunuma-6numa-sierra.xml", NULL);
	unsigned cpuless = 0;

	for (unsigned i = 0; i < t->nnuma; i++)
		cpuless += np_cpuset_iszero(t->numa[i].cpus);
	assert_int_equal(cpuless, 4);
	np_topo_free(t);
}

static void test_no_distances_fallback(void **state)
{
	/* The Cisco file has no distance matrix: package boundary only */
	np_topo_t *t = load_topo("cisco-ucs-2s-3usnic-manyvfs.xml", NULL);

	(void)state;
	assert_null(t->distances);
	assert_int_equal(np_topo_distance(t, 0, 0), 10);
	assert_int_equal(np_topo_distance(t, 0, 1), 30);
	np_topo_free(t);
}

static void test_restrict(void **state)
{
	np_topo_t *t = load_topo(EPYC7551, "0-7,64-71");
	np_cpuset_t *s = set_of("8-15");
	np_error_t err = { 0 };

	(void)state;
	assert_int_equal(t->ncores, 8);
	assert_int_equal(t->npus, 16);
	assert_int_equal(t->numa[0].ncores, 8);
	assert_int_equal(t->numa[1].ncores, 0);
	/* restricting to CPUs outside the allowed set is refused and changes nothing */
	assert_int_equal(np_topo_restrict(t, s, &err), -EINVAL);
	assert_int_equal(t->ncores, 8);
	np_cpuset_parse(s, "0-1");
	assert_int_equal(np_topo_restrict(t, s, &err), 0);
	assert_int_equal(t->ncores, 2);
	assert_int_equal(t->npus, 2);
	np_cpuset_free(s);
	np_topo_free(t);
}

static void test_load_errors(void **state)
{
	np_load_opts_t lo = { .xml_path = "/nonexistent/x.xml" };
	np_error_t err = { 0 };
	np_topo_t *t = (np_topo_t *)0x1;
	char path[] = "/tmp/np-test-XXXXXX";
	int fd;

	(void)state;
	assert_int_equal(np_topo_load(&t, &lo, &err), -ENOENT);
	assert_null(t);
	assert_non_null(strstr(err.msg, "/nonexistent/x.xml"));
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "<?xml version=\"1.0\"?>\n<topology><bogus", 38), 38);
	close(fd);
	lo.xml_path = path;
	assert_true(np_topo_load(&t, &lo, &err) < 0);
	assert_non_null(strstr(err.msg, path));
	unlink(path);
	lo.xml_path = topo_path(EPYC7551);
	lo.restrict_cpus = "1-x";
	assert_int_equal(np_topo_load(&t, &lo, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "1-x"));
	lo.restrict_cpus = "500-510";
	assert_int_equal(np_topo_load(&t, &lo, &err), -EINVAL);
}

static void test_live(void **state)
{
	np_load_opts_t lo = { .flags = NP_LOAD_USE_AFFINITY | NP_LOAD_IGNORE_ENV };
	np_error_t err = { 0 };
	np_topo_t *t;

	(void)state;
	/* a user's HWLOC_XMLFILE must not redirect an IGNORE_ENV load: it is
	 * refused, and the environment left as it was */
	setenv("HWLOC_XMLFILE", topo_path(EPYC7551), 1);
	assert_int_equal(np_topo_load(&t, &lo, &err), -EPERM);
	assert_non_null(strstr(err.msg, "HWLOC_XMLFILE"));
	assert_string_equal(getenv("HWLOC_XMLFILE"), topo_path(EPYC7551));
	unsetenv("HWLOC_XMLFILE");
	assert_int_equal(np_topo_load(&t, &lo, &err), 0);
	assert_string_equal(t->source, "live");
	assert_true(t->ncores >= 1);
	assert_true(t->npus <= (unsigned)sysconf(_SC_NPROCESSORS_ONLN));
	np_topo_free(t);
}

static void test_root_safety(void **state)
{
	np_load_opts_t lo = { .flags = NP_LOAD_IGNORE_ENV | NP_LOAD_NO_ENV_CHANGES };
	np_error_t err = { 0 };
	np_topo_t *t = NULL;
	char fifo[] = "/tmp/np-fifo-XXXXXX";

	(void)state;
	/* a steering variable in a root process's environment: refused, untouched */
	setenv("HWLOC_XMLFILE", topo_path(EPYC7551), 1);
	assert_int_equal(np_topo_load(&t, &lo, &err), -EPERM);
	assert_non_null(strstr(err.msg, "HWLOC_XMLFILE"));
	assert_string_equal(getenv("HWLOC_XMLFILE"), topo_path(EPYC7551));
	unsetenv("HWLOC_XMLFILE");
	/* speed settings are allowed and left as they are */
	setenv("HWLOC_PLUGINS_BLACKLIST", "hwloc_gl", 1);
	assert_int_equal(np_topo_load(&t, &lo, &err), 0);
	assert_string_equal(getenv("HWLOC_PLUGINS_BLACKLIST"), "hwloc_gl");
	unsetenv("HWLOC_PLUGINS_BLACKLIST");
	np_topo_free(t);
	/* a FIFO where a topology file should be is an error, not a hang */
	assert_non_null(mktemp(fifo));
	assert_int_equal(mkfifo(fifo, 0600), 0);
	lo.xml_path = fifo;
	assert_int_equal(np_topo_load(&t, &lo, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "not a regular file"));
	unlink(fifo);
}

static void test_whole_machine_logical_cores(void **state)
{
	np_load_opts_t lo = { .xml_path = topo_path(EPYC7551), .restrict_cpus = "8-15",
	                      .flags = NP_LOAD_WHOLE_MACHINE };
	np_error_t err = { 0 };
	np_topo_t *t;

	(void)state;
	assert_int_equal(np_topo_load(&t, &lo, &err), 0);
	/* Slurm's abstract core 8 is the machine's 9th core, whatever is allowed */
	assert_int_equal(t->ncores, 8);
	assert_int_equal(t->cores[0].logical_index, 8);
	assert_int_equal(t->cores[7].logical_index, 15);
	np_topo_free(t);
}

/* A VM's hwloc may show only the L3 of the CPUs a step is allowed: the
 * node with an L3 per core, seen whole and seen from CPU 0, is one node
 * type; the same cores under one shared L3 are another. */
static void test_fingerprint_partial_caches(void **state)
{
	static const char *const files[] = { "l3-per-core.xml", "l3-per-core-cpu0-only.xml", "l3-shared.xml" };
	char fp[3][NP_FINGERPRINT_LEN], path[512];
	np_error_t err = { 0 };

	(void)state;
	for (unsigned i = 0; i < 3; i++) {
		np_load_opts_t lo = { .xml_path = path, .flags = NP_LOAD_WHOLE_MACHINE };
		np_topo_t *t;

		snprintf(path, sizeof(path), "%s/%s", NP_XMLDIR, files[i]);
		assert_int_equal(np_topo_load(&t, &lo, &err), 0);
		np_topo_fingerprint(t, fp[i]);
		np_topo_free(t);
	}
	assert_string_equal(fp[0], fp[1]);
	assert_string_not_equal(fp[0], fp[2]);
}

static void test_fingerprint(void **state)
{
	/* one digest per node type: the same file twice agrees, another
	 * machine does not, nor a load restricted to some of its CPUs
	 * (--cpuset: fewer cores in the view), and the XML export of a node
	 * reads back as the same type */
	np_topo_t *a = load_topo(EPYC7551, NULL), *b = load_topo(EPYC7551, NULL);
	np_topo_t *c = load_topo(SPR8480, NULL), *d = load_topo(EPYC7551, "0-31,64-95"), *u;
	char fa[NP_FINGERPRINT_LEN], fb[NP_FINGERPRINT_LEN], fc[NP_FINGERPRINT_LEN];
	char fd[NP_FINGERPRINT_LEN], fu[NP_FINGERPRINT_LEN];
	np_load_opts_t lo = { 0 };
	np_error_t err = { 0 };
	char dir[] = "/tmp/np-fp-XXXXXX", path[64];

	(void)state;
	np_topo_fingerprint(a, fa);
	np_topo_fingerprint(b, fb);
	np_topo_fingerprint(c, fc);
	np_topo_fingerprint(d, fd);
	assert_int_equal(strlen(fa), 16);
	assert_int_equal(strspn(fa, "0123456789abcdef"), 16);
	assert_string_equal(fa, fb);
	assert_string_not_equal(fa, fc);
	assert_string_not_equal(fa, fd);
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/node.xml", dir);
	assert_int_equal(np_topo_export_xml(a, path, &err), 0);
	lo.xml_path = path;
	assert_int_equal(np_topo_load(&u, &lo, &err), 0);
	np_topo_fingerprint(u, fu);
	assert_string_equal(fa, fu);
	np_topo_free(u);
	unlink(path);
	rmdir(dir);
	np_topo_free(a);
	np_topo_free(b);
	np_topo_free(c);
	np_topo_free(d);
}

static void test_export_roundtrip(void **state)
{
	/* what is exported loads back as the same node */
	np_topo_t *t = load_topo(SPR8480, NULL), *u;
	np_load_opts_t lo = { 0 };
	np_error_t err = { 0 };
	char dir[] = "/tmp/np-export-XXXXXX", path[64];

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/node.xml", dir);
	assert_int_equal(np_topo_export_xml(t, path, &err), 0);
	lo.xml_path = path;
	assert_int_equal(np_topo_load(&u, &lo, &err), 0);
	assert_int_equal(u->ncores, t->ncores);
	assert_int_equal(u->nnuma, t->nnuma);
	assert_int_equal(u->ndevices, t->ndevices);
	assert_true(u->distances != NULL);
	np_topo_free(u);
	snprintf(path, sizeof(path), "%s/missing/node.xml", dir);
	assert_true(np_topo_export_xml(t, path, &err) < 0);
	assert_non_null(strstr(err.msg, dir));
	snprintf(path, sizeof(path), "%s/node.xml", dir);
	unlink(path);
	rmdir(dir);
	np_topo_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_index_table),
		cmocka_unit_test(test_epyc_details),
		cmocka_unit_test(test_device_kinds),
		cmocka_unit_test(test_gpus_and_cpuless_numa),
		cmocka_unit_test(test_no_distances_fallback),
		cmocka_unit_test(test_restrict),
		cmocka_unit_test(test_load_errors),
		cmocka_unit_test(test_live),
		cmocka_unit_test(test_export_roundtrip),
		cmocka_unit_test(test_fingerprint),
		cmocka_unit_test(test_fingerprint_partial_caches),
		cmocka_unit_test(test_root_safety),
		cmocka_unit_test(test_whole_machine_logical_cores),
	};

	return cmocka_run_group_tests_name("topo", tests, NULL, NULL);
}

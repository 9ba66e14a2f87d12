/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_check.c - numaplan check on sysfs trees written here, file by file,
 * with what the kernel writes in them (Documentation/ABI/testing/
 * sysfs-bus-pci, sysfs-class-infiniband, sysfs-devices-edac): each kind,
 * and missing, malformed and planted files (a FIFO, a link), which give a
 * finding of severity unknown and never an error.
 *
 * Expectations come from the trees and topologies as written below:
 *   EPYC 7551: 2 packages of 4 NUMA nodes each (hwloc-calc --intersect numa
 *             package:1 = 4,5,6,7), each 34359214080 bytes (local_memory)
 *             but NUMA 0, 34258255872.
 *   SPR 8480: Intel, 2 packages of 4 NUMA nodes with CPUs (SNC4).
 *   CONAN:    2 packages of 1 NUMA node each, 34330173440 and 34359738368
 *             bytes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plan_helpers.h"

/* ---- trees ---------------------------------------------------------------- */

static void put_link(const char *dir, const char *rel, const char *target)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s.keep", dir, rel);
	put_file(dir, strstr(path, rel), "");         /* the parents */
	unlink(path);
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	if (symlink(target, path) < 0)
		fail_msg("cannot link %s", path);
}

/* A PCI function at devices/PATH (its components from the host bridge,
 * "pci0000:00/0000:00:01.1/0000:41:00.0"), linked from bus/pci/devices;
 * link NULL: no link attribute, else "CUR_SPEED CUR_WIDTH MAX_SPEED
 * MAX_WIDTH" with speeds in GT/s as the kernel prints them. */
static void pci_dev(const char *root, const char *path, const char *cls, const char *vendor, const char *link)
{
	const char *bdf = strrchr(path, '/') + 1;
	char rel[512], tgt[512], cs[16], cw[8], ms[16], mw[8], v[64];

	snprintf(rel, sizeof(rel), "devices/%s/class", path);
	put_file(root, rel, cls);
	snprintf(rel, sizeof(rel), "devices/%s/vendor", path);
	put_file(root, rel, vendor);
	snprintf(rel, sizeof(rel), "devices/%s/device", path);
	put_file(root, rel, "0x1234\n");
	snprintf(rel, sizeof(rel), "bus/pci/devices/%s", bdf);
	snprintf(tgt, sizeof(tgt), "../../../devices/%s", path);
	put_link(root, rel, tgt);
	if (!link)
		return;
	assert_int_equal(sscanf(link, "%15s %7s %15s %7s", cs, cw, ms, mw), 4);
	snprintf(rel, sizeof(rel), "devices/%s/current_link_speed", path);
	snprintf(v, sizeof(v), "%s GT/s PCIe\n", cs);
	put_file(root, rel, v);
	snprintf(rel, sizeof(rel), "devices/%s/max_link_speed", path);
	snprintf(v, sizeof(v), "%s GT/s PCIe\n", ms);
	put_file(root, rel, v);
	snprintf(rel, sizeof(rel), "devices/%s/current_link_width", path);
	snprintf(v, sizeof(v), "%s\n", cw);
	put_file(root, rel, v);
	snprintf(rel, sizeof(rel), "devices/%s/max_link_width", path);
	snprintf(v, sizeof(v), "%s\n", mw);
	put_file(root, rel, v);
}

static void rm_file(const char *dir, const char *rel)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	if (unlink(path) < 0)
		fail_msg("cannot remove %s", path);
}

static np_check_result_t *check_tree(const np_topo_t *t, const char *root, const char *ports)
{
	np_check_opts_t o = { .sysfs = root, .ports_sysfs = ports };
	np_check_result_t *c = NULL;
	np_error_t err = { 0 };

	if (np_check_node(t, &o, &c, &err) < 0)
		fail_msg("np_check_node: %s", err.msg);
	return c;
}

/* The finding of that kind about that object; fails when there is not
 * exactly one. */
static const np_finding_t *find(const np_check_result_t *c, np_check_kind_t k, const char *obj)
{
	const np_finding_t *f = NULL;

	for (unsigned i = 0; i < c->nfindings; i++)
		if (c->findings[i].kind == k && !strcmp(c->findings[i].object, obj)) {
			if (f)
				fail_msg("two %s findings about %s", np_check_kind_name(k), obj);
			f = &c->findings[i];
		}
	if (!f)
		fail_msg("no %s finding about %s", np_check_kind_name(k), obj);
	return f;
}

static unsigned count_kind(const np_check_result_t *c, np_check_kind_t k)
{
	unsigned n = 0;

	for (unsigned i = 0; i < c->nfindings; i++)
		n += c->findings[i].kind == k;
	return n;
}

static void expect(const np_finding_t *f, np_check_severity_t sev, const char *found, const char *expected)
{
	if (f->severity != sev)
		fail_msg("%s: severity %s, expected %s (%s)", f->object, np_check_severity_name(f->severity),
		         np_check_severity_name(sev), f->detail ? f->detail : "");
	assert_string_equal(f->found, found);
	if (expected)
		assert_string_equal(f->expected, expected);
	else
		assert_null(f->expected);
}

static void detail_has(const np_finding_t *f, const char *part)
{
	if (!f->detail || !strstr(f->detail, part))
		fail_msg("%s: detail '%s' lacks '%s'", f->object, f->detail ? f->detail : "(none)", part);
}

/* ---- pcie-link -------------------------------------------------------------- */

static void test_pcie(void **state)
{
	np_topo_t *t = load_topo(EPYC7551, NULL);
	char *root = make_tmpdir();
	np_check_result_t *c;
	const np_finding_t *f;

	(void)state;
	/* a Gen5 GPU at Gen5 x16 below a Gen5 root port: as it should */
	pci_dev(root, "pci0000:00/0000:00:01.1", "0x060400\n", "0x1022\n", "32.0 16 32.0 16");
	pci_dev(root, "pci0000:00/0000:00:01.1/0000:01:00.0", "0x030200\n", "0x10de\n", "32.0 16 32.0 16");
	/* an HCA that can do Gen4 x16 in a Gen5 x16 slot, trained at Gen3 x8 */
	pci_dev(root, "pci0000:00/0000:00:03.1", "0x060400\n", "0x1022\n", "8.0 8 32.0 16");
	pci_dev(root, "pci0000:00/0000:00:03.1/0000:41:00.0", "0x020700\n", "0x15b3\n", "8.0 8 16.0 16");
	/* ... and its virtual function, which shows the same link */
	pci_dev(root, "pci0000:00/0000:00:03.1/0000:41:00.2", "0x020700\n", "0x15b3\n", "8.0 8 16.0 16");
	put_link(root, "devices/pci0000:00/0000:00:03.1/0000:41:00.2/physfn", "../0000:41:00.0");
	/* a Gen4 x4 NVMe drive in a Gen3 x8 slot: the slot is the limit */
	pci_dev(root, "pci0000:00/0000:00:05.1", "0x060400\n", "0x1022\n", "8.0 4 8.0 8");
	pci_dev(root, "pci0000:00/0000:00:05.1/0000:61:00.0", "0x010802\n", "0x144d\n", "8.0 4 16.0 4");
	/* a switch whose uplink trained at Gen3, a GPU below it at Gen4 x16 */
	pci_dev(root, "pci0000:80/0000:80:01.1", "0x060400\n", "0x1022\n", "8.0 16 16.0 16");
	pci_dev(root, "pci0000:80/0000:80:01.1/0000:81:00.0", "0x060400\n", "0x1000\n", "8.0 16 16.0 16");
	pci_dev(root, "pci0000:80/0000:80:01.1/0000:81:00.0/0000:82:00.0", "0x060400\n", "0x1000\n",
	        "16.0 16 16.0 16");
	pci_dev(root, "pci0000:80/0000:80:01.1/0000:81:00.0/0000:82:00.0/0000:83:00.0", "0x030200\n", "0x10de\n",
	        "16.0 16 16.0 16");
	/* an idle GPU runs its link at Gen1 (power states): no fault; one
	 * at x8 is, whatever its speed */
	pci_dev(root, "pci0000:00/0000:00:09.1", "0x060400\n", "0x1022\n", "2.5 16 32.0 16");
	pci_dev(root, "pci0000:00/0000:00:09.1/0000:21:00.0", "0x030200\n", "0x10de\n", "2.5 16 32.0 16");
	pci_dev(root, "pci0000:00/0000:00:0b.1", "0x060400\n", "0x1022\n", "2.5 8 32.0 16");
	pci_dev(root, "pci0000:00/0000:00:0b.1/0000:22:00.0", "0x030200\n", "0x10de\n", "2.5 8 32.0 16");
	/* a BMC's VGA (not a GPU maker's) is not judged */
	pci_dev(root, "pci0000:00/0000:00:07.1", "0x060400\n", "0x1022\n", "5.0 1 8.0 16");
	pci_dev(root, "pci0000:00/0000:00:07.1/0000:02:00.0", "0x030000\n", "0x1a03\n", "2.5 1 5.0 1");
	/* a network function integrated in the root complex: no link */
	pci_dev(root, "pci0000:00/0000:00:14.3", "0x028000\n", "0x8086\n", NULL);
	/* a drive whose link is down ("Unknown"), one without max_link_width */
	pci_dev(root, "pci0000:00/0000:00:05.2", "0x060400\n", "0x1022\n", "8.0 4 8.0 4");
	pci_dev(root, "pci0000:00/0000:00:05.2/0000:62:00.0", "0x010802\n", "0x144d\n", "8.0 4 8.0 4");
	put_file(root, "devices/pci0000:00/0000:00:05.2/0000:62:00.0/current_link_speed", "Unknown\n");
	pci_dev(root, "pci0000:00/0000:00:05.3", "0x060400\n", "0x1022\n", "8.0 4 8.0 4");
	pci_dev(root, "pci0000:00/0000:00:05.3/0000:63:00.0", "0x020000\n", "0x8086\n", "8.0 4 8.0 4");
	rm_file(root, "devices/pci0000:00/0000:00:05.3/0000:63:00.0/max_link_width");
	c = check_tree(t, root, NULL);

	expect(find(c, NP_CHECK_PCIE_LINK, "0000:01:00.0"), NP_CHECK_INFO, "32.0 GT/s x16", NULL);
	f = find(c, NP_CHECK_PCIE_LINK, "0000:21:00.0");
	expect(f, NP_CHECK_INFO, "2.5 GT/s x16", NULL);
	detail_has(f, "idle");
	expect(find(c, NP_CHECK_PCIE_LINK, "0000:22:00.0"), NP_CHECK_FAIL, "2.5 GT/s x8", "32.0 GT/s x16");
	f = find(c, NP_CHECK_PCIE_LINK, "0000:41:00.0");
	expect(f, NP_CHECK_FAIL, "8.0 GT/s x8", "16.0 GT/s x16");
	detail_has(f, "network adapter 15b3:");
	detail_has(f, "0000:00:03.1");
	/* the slot: named as the limit, the drive itself not at fault */
	f = find(c, NP_CHECK_PCIE_LINK, "0000:00:05.1");
	expect(f, NP_CHECK_WARN, "8.0 GT/s x4", "16.0 GT/s x4");
	detail_has(f, "0000:61:00.0");
	expect(find(c, NP_CHECK_PCIE_LINK, "0000:83:00.0"), NP_CHECK_INFO, "16.0 GT/s x16", NULL);
	f = find(c, NP_CHECK_PCIE_LINK, "0000:81:00.0");
	expect(f, NP_CHECK_FAIL, "8.0 GT/s x16", "16.0 GT/s x16");
	detail_has(f, "switch above 0000:83:00.0");
	f = find(c, NP_CHECK_PCIE_LINK, "0000:62:00.0");
	expect(f, NP_CHECK_UNKNOWN, "unknown", NULL);
	detail_has(f, "current_link_speed: malformed: 'Unknown'");
	f = find(c, NP_CHECK_PCIE_LINK, "0000:63:00.0");
	expect(f, NP_CHECK_UNKNOWN, "unknown", NULL);
	detail_has(f, "max_link_width: missing");
	/* and nothing else: not the VF, the VGA, the integrated function,
	 * the bridges that are no limit */
	assert_int_equal(count_kind(c, NP_CHECK_PCIE_LINK), 9);
	assert_int_equal(c->count[NP_CHECK_FAIL], 3);
	np_check_free(c);
	rm_tree(root);
	free(root);
	np_topo_free(t);
}

/* A copy of /sys without a PCI bus, or with a bus/pci/devices entry that
 * is no link into devices/: no crash, an unknown for the latter. */
static void test_pcie_odd_tree(void **state)
{
	np_topo_t *t = load_topo(EPYC7551, NULL);
	char *root = make_tmpdir();
	np_check_result_t *c;

	(void)state;
	c = check_tree(t, root, NULL);
	assert_int_equal(count_kind(c, NP_CHECK_PCIE_LINK), 0);
	np_check_free(c);
	/* a directory where the link should be: unknown; a link that leaves
	 * the tree: its class is not found there, the device is not seen */
	put_file(root, "bus/pci/devices/0000:05:00.0/class", "0x030200\n");
	put_file(root, "bus/pci/devices/0000:05:00.0/vendor", "0x10de\n");
	put_link(root, "bus/pci/devices/0000:06:00.0", "/etc/../devices/pci0000:00/0000:06:00.0");
	put_file(root, "devices/pci0000:00/0000:06:00.0/class", "0x030200\n");
	put_file(root, "devices/pci0000:00/0000:06:00.0/vendor", "0x10de\n");
	c = check_tree(t, root, NULL);
	detail_has(find(c, NP_CHECK_PCIE_LINK, "0000:05:00.0"), "bus/pci/devices/0000:05:00.0");
	assert_int_equal(count_kind(c, NP_CHECK_PCIE_LINK), 1);
	np_check_free(c);
	rm_tree(root);
	free(root);
	np_topo_free(t);
}

/* ---- memory-balance ---------------------------------------------------------- */

static void test_memory(void **state)
{
	/* NUMA 5 (package 1) with 28 GiB where its peers have 32 GiB */
	const xml_edit_t short5[] = {
		{ "allowed_nodeset=\"0x00000020\" local_memory=\"34359214080\"",
		  "allowed_nodeset=\"0x00000020\" local_memory=\"30064771072\"", 0 },
	};
	/* 2% short: within the tolerance of 3% */
	const xml_edit_t near5[] = {
		{ "allowed_nodeset=\"0x00000020\" local_memory=\"34359214080\"",
		  "allowed_nodeset=\"0x00000020\" local_memory=\"33672029798\"", 0 },
	};
	char *root = make_tmpdir(), *x;
	np_check_result_t *c;
	np_topo_t *t;
	const np_finding_t *f;

	(void)state;
	x = derive_xml(EPYC7551, short5, 1);
	t = load_path(x);
	c = check_tree(t, root, NULL);
	f = find(c, NP_CHECK_MEMORY_BALANCE, "NUMA 5");
	/* 30064771072 / 2^30 = 28.0; 34359214080 / 2^30 = 31.99... */
	expect(f, NP_CHECK_FAIL, "28.0 GiB", "32.0 GiB");
	assert_true(f->value == 30064771072.0);
	detail_has(f, "package 1");
	detail_has(f, "12.5% below");
	/* its peers, and NUMA 0 (0.3% short, package 0) are values */
	for (unsigned n = 0; n < 8; n++) {
		char obj[16];
		snprintf(obj, sizeof(obj), "NUMA %u", n);
		if (n != 5)
			assert_int_equal(find(c, NP_CHECK_MEMORY_BALANCE, obj)->severity, NP_CHECK_INFO);
	}
	expect(find(c, NP_CHECK_MEMORY_BALANCE, "NUMA 0"), NP_CHECK_INFO, "31.9 GiB", NULL);
	np_check_free(c);
	np_topo_free(t);
	drop_derived(x);

	x = derive_xml(EPYC7551, near5, 1);
	t = load_path(x);
	c = check_tree(t, root, NULL);
	assert_int_equal(find(c, NP_CHECK_MEMORY_BALANCE, "NUMA 5")->severity, NP_CHECK_INFO);
	assert_int_equal(c->count[NP_CHECK_FAIL], 0);
	np_check_free(c);
	np_topo_free(t);
	drop_derived(x);

	/* one NUMA node per package (CONAN, 2 sockets): the sockets' nodes
	 * are each other's peers; node 1 at 30 GiB against node 0's
	 * 34330173440 bytes (31.97 GiB): 6.2% short */
	{
		const xml_edit_t conan1[] = { { "local_memory=\"34359738368\"", "local_memory=\"32212254720\"", 0 } };
		x = derive_xml("intel-snb2650-2s-mlx5-k40-conan.xml", conan1, 1);
		t = load_path(x);
		c = check_tree(t, root, NULL);
		f = find(c, NP_CHECK_MEMORY_BALANCE, "NUMA 1");
		expect(f, NP_CHECK_FAIL, "30.0 GiB", "32.0 GiB");
		detail_has(f, "packages' nodes");
		assert_int_equal(find(c, NP_CHECK_MEMORY_BALANCE, "NUMA 0")->severity, NP_CHECK_INFO);
		np_check_free(c);
		np_topo_free(t);
		drop_derived(x);
	}
	/* ... and as stored (0.08% apart): values */
	t = load_topo("intel-snb2650-2s-mlx5-k40-conan.xml", NULL);
	c = check_tree(t, root, NULL);
	assert_int_equal(c->count[NP_CHECK_FAIL], 0);
	assert_int_equal(count_kind(c, NP_CHECK_MEMORY_BALANCE), 2);
	np_check_free(c);
	np_topo_free(t);
	rm_tree(root);
	free(root);
}

/* ---- cpu-offline --------------------------------------------------------------- */

static void test_cpus(void **state)
{
	np_topo_t *t = load_topo(EPYC7551, NULL);
	char *root = make_tmpdir();
	np_check_result_t *c;
	const np_finding_t *f;

	(void)state;
	/* possible counts slots with no CPU: present decides */
	put_file(root, "devices/system/cpu/possible", "0-255\n");
	put_file(root, "devices/system/cpu/present", "0-127\n");
	put_file(root, "devices/system/cpu/online", "0-63,66-127\n");
	put_file(root, "devices/system/cpu/smt/control", "on\n");
	c = check_tree(t, root, NULL);
	f = find(c, NP_CHECK_CPU_OFFLINE, "CPUs 64-65");
	expect(f, NP_CHECK_FAIL, "offline", "online");
	detail_has(f, "2 of 128");
	assert_int_equal(count_kind(c, NP_CHECK_CPU_OFFLINE), 1);
	np_check_free(c);

	/* every CPU online: nothing to say */
	put_file(root, "devices/system/cpu/online", "0-127\n");
	c = check_tree(t, root, NULL);
	assert_int_equal(count_kind(c, NP_CHECK_CPU_OFFLINE), 0);
	np_check_free(c);

	/* SMT off: the second thread of each core is offline by design... */
	put_file(root, "devices/system/cpu/online", "0-63\n");
	put_file(root, "devices/system/cpu/smt/control", "off\n");
	c = check_tree(t, root, NULL);
	expect(find(c, NP_CHECK_CPU_OFFLINE, "CPUs 64-127"), NP_CHECK_INFO, "offline", NULL);
	expect(find(c, NP_CHECK_SETTINGS, "smt"), NP_CHECK_INFO, "off", NULL);
	np_check_free(c);
	/* ... but not a core more */
	put_file(root, "devices/system/cpu/online", "0-62\n");
	c = check_tree(t, root, NULL);
	expect(find(c, NP_CHECK_CPU_OFFLINE, "CPUs 63-127"), NP_CHECK_FAIL, "offline", "online");
	np_check_free(c);

	/* malformed online, missing present and possible */
	put_file(root, "devices/system/cpu/online", "0-6x\n");
	c = check_tree(t, root, NULL);
	f = find(c, NP_CHECK_CPU_OFFLINE, "CPUs");
	expect(f, NP_CHECK_UNKNOWN, "unknown", NULL);
	detail_has(f, "devices/system/cpu/online: malformed: '0-6x'");
	np_check_free(c);
	rm_file(root, "devices/system/cpu/present");
	rm_file(root, "devices/system/cpu/possible");
	c = check_tree(t, root, NULL);
	detail_has(find(c, NP_CHECK_CPU_OFFLINE, "CPUs"), "devices/system/cpu/possible: missing");
	np_check_free(c);
	rm_tree(root);
	free(root);
	np_topo_free(t);
}

/* ---- port-rate and firmware ------------------------------------------------------ */

static void port(const char *root, const char *dev, unsigned n, const char *state, const char *rate)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/%u/state", dev, n);
	put_file(root, rel, state);
	snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/%u/link_layer", dev, n);
	put_file(root, rel, "InfiniBand\n");
	if (!rate)
		return;
	snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/%u/rate", dev, n);
	put_file(root, rel, rate);
}

static void adapter(const char *root, const char *dev, const char *model, const char *fw)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "class/infiniband/%s/hca_type", dev);
	put_file(root, rel, model);
	snprintf(rel, sizeof(rel), "class/infiniband/%s/fw_ver", dev);
	put_file(root, rel, fw);
}

static void test_ports(void **state)
{
	np_topo_t *t = load_topo(EPYC7551, NULL);
	char *root = make_tmpdir(), *other = make_tmpdir();
	np_check_result_t *c;
	const np_finding_t *f;

	(void)state;
	adapter(root, "mlx5_0", "MT4123\n", "20.31.1014\n");
	port(root, "mlx5_0", 1, "4: ACTIVE\n", "200 Gb/sec (4X HDR)\n");
	adapter(root, "mlx5_1", "MT4123\n", "20.28.1002\n");
	port(root, "mlx5_1", 1, "4: ACTIVE\n", "100 Gb/sec (4X EDR)\n");
	/* a port that is down shows a rate it does not run at */
	adapter(root, "mlx5_2", "MT4123\n", "20.31.1014\n");
	port(root, "mlx5_2", 1, "1: DOWN\n", "10 Gb/sec (4X SDR)\n");
	/* another model has no peers here */
	adapter(root, "mlx5_3", "MT4129\n", "28.39.1002\n");
	port(root, "mlx5_3", 1, "4: ACTIVE\n", "400 Gb/sec (4X NDR)\n");
	/* malformed and missing rates; a firmware string with a control byte */
	adapter(root, "mlx5_4", "MT4123\n", "20.31\x1b[1m\n");
	port(root, "mlx5_4", 1, "4: ACTIVE\n", "fast\n");
	adapter(root, "mlx5_5", "MT4123\n", "20.31.1014\n");
	port(root, "mlx5_5", 1, "4: ACTIVE\n", NULL);
	c = check_tree(t, root, NULL);

	expect(find(c, NP_CHECK_PORT_RATE, "mlx5_0:1"), NP_CHECK_INFO, "200 Gb/sec (4X HDR)", NULL);
	f = find(c, NP_CHECK_PORT_RATE, "mlx5_1:1");
	expect(f, NP_CHECK_FAIL, "100 Gb/sec (4X EDR)", "200 Gb/sec (4X HDR)");
	assert_true(f->value == 100.0);
	detail_has(f, "mlx5_0:1");
	detail_has(find(c, NP_CHECK_PORT_RATE, "mlx5_2:1"), "not ACTIVE");
	assert_int_equal(find(c, NP_CHECK_PORT_RATE, "mlx5_2:1")->severity, NP_CHECK_INFO);
	assert_int_equal(find(c, NP_CHECK_PORT_RATE, "mlx5_3:1")->severity, NP_CHECK_INFO);
	f = find(c, NP_CHECK_PORT_RATE, "mlx5_4:1");
	expect(f, NP_CHECK_UNKNOWN, "unknown", NULL);
	detail_has(f, "rate: malformed: 'fast'");
	detail_has(find(c, NP_CHECK_PORT_RATE, "mlx5_5:1"), "rate: missing");
	assert_int_equal(count_kind(c, NP_CHECK_PORT_RATE), 6);
	expect(find(c, NP_CHECK_SETTINGS, "firmware mlx5_0"), NP_CHECK_INFO, "20.31.1014", NULL);
	expect(find(c, NP_CHECK_SETTINGS, "firmware mlx5_1"), NP_CHECK_INFO, "20.28.1002", NULL);
	f = find(c, NP_CHECK_SETTINGS, "firmware mlx5_4");
	assert_int_equal(f->severity, NP_CHECK_UNKNOWN);
	/* the control byte is written as an escape, never as itself */
	assert_null(strchr(f->detail, '\x1b'));
	np_check_free(c);

	/* ports_sysfs: the adapters from another root, the rest from this */
	adapter(other, "mlx5_0", "MT4123\n", "20.31.1014\n");
	port(other, "mlx5_0", 1, "4: ACTIVE\n", "200 Gb/sec (4X HDR)\n");
	c = check_tree(t, root, other);
	assert_int_equal(count_kind(c, NP_CHECK_PORT_RATE), 1);
	assert_int_equal(find(c, NP_CHECK_PORT_RATE, "mlx5_0:1")->severity, NP_CHECK_INFO);
	assert_string_equal(c->sysfs, root);
	np_check_free(c);
	rm_tree(other);
	free(other);
	rm_tree(root);
	free(root);
	np_topo_free(t);
}

/* ---- ecc --------------------------------------------------------------------------- */

static void mc(const char *root, unsigned n, const char *ce, const char *ue)
{
	char rel[128];

	snprintf(rel, sizeof(rel), "devices/system/edac/mc/mc%u/mc_name", n);
	put_file(root, rel, "Skylake Socket#0 IMC#0\n");
	if (ce) {
		snprintf(rel, sizeof(rel), "devices/system/edac/mc/mc%u/ce_count", n);
		put_file(root, rel, ce);
	}
	if (ue) {
		snprintf(rel, sizeof(rel), "devices/system/edac/mc/mc%u/ue_count", n);
		put_file(root, rel, ue);
	}
}

static void test_ecc(void **state)
{
	np_topo_t *t = load_topo(EPYC7551, NULL);
	char *root = make_tmpdir();
	np_check_result_t *c;
	const np_finding_t *f;

	(void)state;
	c = check_tree(t, root, NULL);
	expect(find(c, NP_CHECK_ECC, "edac"), NP_CHECK_INFO, "not present", NULL);
	np_check_free(c);
	mc(root, 0, "0\n", "0\n");
	mc(root, 1, "12\n", "0\n");
	mc(root, 2, "3\n", "1\n");
	mc(root, 3, "abc\n", "0\n");
	mc(root, 4, "0\n", NULL);
	/* a huge count still parses; one past 2^64 is malformed */
	mc(root, 10, "18446744073709551615\n", "0\n");
	mc(root, 11, "18446744073709551616\n", "0\n");
	c = check_tree(t, root, NULL);
	expect(find(c, NP_CHECK_ECC, "mc0"), NP_CHECK_INFO, "0 corrected, 0 uncorrected", NULL);
	f = find(c, NP_CHECK_ECC, "mc1");
	expect(f, NP_CHECK_WARN, "12 corrected, 0 uncorrected", "0 corrected");
	detail_has(f, "Skylake Socket#0 IMC#0");
	expect(find(c, NP_CHECK_ECC, "mc2"), NP_CHECK_FAIL, "3 corrected, 1 uncorrected", "0 uncorrected");
	detail_has(find(c, NP_CHECK_ECC, "mc3"), "mc3/ce_count: malformed: 'abc'");
	detail_has(find(c, NP_CHECK_ECC, "mc4"), "mc4/ue_count: missing");
	assert_int_equal(find(c, NP_CHECK_ECC, "mc10")->severity, NP_CHECK_WARN);
	assert_int_equal(find(c, NP_CHECK_ECC, "mc11")->severity, NP_CHECK_UNKNOWN);
	assert_int_equal(count_kind(c, NP_CHECK_ECC), 7);
	/* in controller order: mc2 before mc10 */
	for (unsigned i = 0, seen2 = 0; i < c->nfindings; i++) {
		if (!strcmp(c->findings[i].object, "mc2"))
			seen2 = 1;
		if (!strcmp(c->findings[i].object, "mc10"))
			assert_true(seen2);
	}
	np_check_free(c);
	rm_tree(root);
	free(root);
	np_topo_free(t);
}

/* ---- settings ------------------------------------------------------------------------ */

static void governors(const char *root, const char *gov_low, const char *gov_high)
{
	for (unsigned cpu = 0; cpu < 8; cpu++) {
		char rel[128];
		snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%u/cpufreq/scaling_governor", cpu);
		put_file(root, rel, cpu < 4 ? gov_low : gov_high);
	}
}

static void test_settings(void **state)
{
	np_topo_t *t = load_topo(EPYC7551, NULL), *spr = load_topo(SPR8480, NULL);
	char *root = make_tmpdir();
	np_check_result_t *c;
	const np_finding_t *f;

	(void)state;
	/* nothing to read: unknowns, no cpufreq, no boost control */
	c = check_tree(t, root, NULL);
	detail_has(find(c, NP_CHECK_SETTINGS, "smt"), "smt/control: missing");
	detail_has(find(c, NP_CHECK_SETTINGS, "thp"), "transparent_hugepage/enabled: missing");
	expect(find(c, NP_CHECK_SETTINGS, "boost"), NP_CHECK_INFO, "none", NULL);
	expect(find(c, NP_CHECK_SETTINGS, "nps"), NP_CHECK_INFO, "NPS4", NULL);
	np_check_free(c);

	put_file(root, "devices/system/cpu/online", "0-7\n");
	put_file(root, "devices/system/cpu/present", "0-7\n");
	put_file(root, "devices/system/cpu/smt/control", "on\n");
	put_file(root, "kernel/mm/transparent_hugepage/enabled", "always [madvise] never\n");
	put_file(root, "devices/system/cpu/cpufreq/boost", "1\n");
	governors(root, "performance\n", "performance\n");
	c = check_tree(t, root, NULL);
	expect(find(c, NP_CHECK_SETTINGS, "smt"), NP_CHECK_INFO, "on", NULL);
	expect(find(c, NP_CHECK_SETTINGS, "thp"), NP_CHECK_INFO, "madvise", NULL);
	expect(find(c, NP_CHECK_SETTINGS, "governor"), NP_CHECK_INFO, "performance", NULL);
	expect(find(c, NP_CHECK_SETTINGS, "boost"), NP_CHECK_INFO, "on", NULL);
	assert_int_equal(c->count[NP_CHECK_WARN] + c->count[NP_CHECK_FAIL] + c->count[NP_CHECK_UNKNOWN], 0);
	np_check_free(c);

	/* half the CPUs on another governor; intel_pstate's inverted flag;
	 * a THP file without its bracket; boost 2 */
	governors(root, "performance\n", "powersave\n");
	rm_file(root, "devices/system/cpu/cpufreq/boost");
	put_file(root, "devices/system/cpu/intel_pstate/no_turbo", "1\n");
	put_file(root, "kernel/mm/transparent_hugepage/enabled", "always madvise never\n");
	c = check_tree(spr, root, NULL);
	f = find(c, NP_CHECK_SETTINGS, "governor");
	expect(f, NP_CHECK_WARN, "performance on 0-3, powersave on 4-7", "one governor on every CPU");
	expect(find(c, NP_CHECK_SETTINGS, "boost"), NP_CHECK_INFO, "off", NULL);
	detail_has(find(c, NP_CHECK_SETTINGS, "thp"), "malformed: 'always madvise never'");
	expect(find(c, NP_CHECK_SETTINGS, "nps"), NP_CHECK_INFO, "SNC4", NULL);
	np_check_free(c);
	put_file(root, "devices/system/cpu/intel_pstate/no_turbo", "2\n");
	c = check_tree(spr, root, NULL);
	detail_has(find(c, NP_CHECK_SETTINGS, "boost"), "no_turbo: malformed: '2'");
	np_check_free(c);
	rm_tree(root);
	free(root);
	np_topo_free(spr);
	np_topo_free(t);
}

/* ---- planted files --------------------------------------------------------------------- */

static void test_planted(void **state)
{
	np_topo_t *t = load_topo(EPYC7551, NULL);
	char *root = make_tmpdir(), path[4096];
	np_check_result_t *c;

	(void)state;
	/* a FIFO where smt/control should be: refused, never waited on */
	put_file(root, "devices/system/cpu/online", "0-7\n");
	snprintf(path, sizeof(path), "%s/devices/system/cpu/smt", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/devices/system/cpu/smt/control", root);
	assert_int_equal(mkfifo(path, 0644), 0);
	/* a link to a file outside the tree where thp should be */
	put_link(root, "kernel/mm/transparent_hugepage/enabled", "/etc/hostname");
	c = check_tree(t, root, NULL);
	detail_has(find(c, NP_CHECK_SETTINGS, "smt"), "smt/control: not a regular file");
	assert_int_equal(find(c, NP_CHECK_SETTINGS, "thp")->severity, NP_CHECK_UNKNOWN);
	np_check_free(c);
	rm_tree(root);
	free(root);
	np_topo_free(t);
}

static void test_errors_and_names(void **state)
{
	np_topo_t *t = load_topo(EPYC7551, NULL);
	np_check_opts_t o = { .sysfs = "/nonexistent/numaplan-sysfs" };
	np_check_result_t *c = (void *)1;
	np_error_t err = { 0 };
	np_check_kind_t k;

	(void)state;
	assert_int_equal(np_check_node(t, &o, &c, &err), -EINVAL);
	assert_null(c);
	assert_non_null(strstr(err.msg, "/nonexistent/numaplan-sysfs"));
	o.sysfs = "/etc/hostname";
	assert_int_equal(np_check_node(t, &o, &c, &err), -EINVAL);
	o.sysfs = "/";
	o.ports_sysfs = "";
	assert_int_equal(np_check_node(t, &o, &c, &err), -EINVAL);
	np_check_free(NULL);

	for (unsigned i = 0; i < NP_CHECK_KIND_COUNT; i++) {
		assert_int_equal(np_check_kind_parse(np_check_kind_name((np_check_kind_t)i), &k), 0);
		assert_int_equal(k, i);
	}
	assert_string_equal(np_check_kind_name(NP_CHECK_PCIE_LINK), "pcie-link");
	assert_string_equal(np_check_kind_name(NP_CHECK_MEMORY_BALANCE), "memory-balance");
	assert_string_equal(np_check_kind_name(NP_CHECK_KIND_COUNT), "?");
	assert_int_equal(np_check_kind_parse("PCIe-link", &k), -EINVAL);
	assert_int_equal(np_check_kind_parse(NULL, &k), -EINVAL);
	assert_string_equal(np_check_severity_name(NP_CHECK_UNKNOWN), "unknown");
	assert_string_equal(np_check_severity_name(NP_CHECK_SEVERITY_COUNT), "?");
	np_topo_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pcie),
		cmocka_unit_test(test_pcie_odd_tree),
		cmocka_unit_test(test_memory),
		cmocka_unit_test(test_cpus),
		cmocka_unit_test(test_ports),
		cmocka_unit_test(test_ecc),
		cmocka_unit_test(test_settings),
		cmocka_unit_test(test_planted),
		cmocka_unit_test(test_errors_and_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

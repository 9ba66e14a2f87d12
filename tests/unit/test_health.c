/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_health.c - adapters that are down get no ranks; live port states;
 * named adapters (NAME:PORT, plain interfaces); the environment of each
 * fabric; device names that must never reach an environment.
 *
 * Expectations come from the topologies, read with hwloc's own tools:
 *   SPR 8480: mlx5_2 NUMA 1, mlx5_0 + mlx5_1 NUMA 3, mlx5_3 NUMA 5; only
 *             mlx5_0's port is ACTIVE (Port1State 4), the others DOWN (1);
 *             NUMA 3 = PUs 42-55,154-167, NUMA 5 = 70-83,182-195.
 *   KNL 7250 (derived below): an Omni-Path HFI is on its PCI bus 01 without
 *             an hfi1 OS device; the copy adds hfi1_0 there (NUMA 0+4,
 *             PUs 0-17,68-85,136-153,204-221) and hfi1_1 in the cluster of
 *             NUMA 2+6 (PUs 36-51,104-119,172-187,240-255): hwloc-calc
 *             --physical-input --intersect pu numa:N on the file.
 *   EPYC 7551: mlx5_0 NUMA 5 (40-47,104-111); eno1 NUMA 1 (8-15,72-79):
 *             hwloc-calc --intersect numa os=eno1.
 *   Tioga:    hsi2 NUMA 0, hsi1 1, hsi3 2, hsi0 3, no OpenFabrics device.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plan_helpers.h"

#define KNL "intel-knl7250-snc4-flat-8numa-mlx5.xml"
#define LASSEN "ibm-power9-2s-4v100-4mlx5-lassen.xml"
#define TIOGA "amd-epyc7a53-1s-nps4-8mi250xgcd-4slingshot-tioga.xml"
#define KNL_NUMA0 "0-17,68-85,136-153,204-221"
#define KNL_NUMA2 "36-51,104-119,172-187,240-255"
#define SPR_NUMA3 "42-55,154-167"
#define SPR_NUMA5 "70-83,182-195"

static np_plan_t *plan_hca(const np_topo_t *t, unsigned n, const char *hca, int no_fallback,
                           int want_rc, np_error_t *err)
{
	np_plan_opts_t o = NP_PLAN_OPTS_INIT;
	np_plan_t *p = NULL;
	int rc;

	o.policy = NP_POLICY_HCA_NEAR;
	o.ntasks = n;
	o.hca = hca;
	o.no_fallback = no_fallback;
	rc = np_plan_compute(t, &o, &p, err);
	if (rc != want_rc)
		fail_msg("plan rc %d, expected %d (%s)", rc, want_rc, err->msg);
	return p;
}

static void assert_skipped(const np_plan_t *p, unsigned i, const char *name, const char *reason)
{
	assert_true(i < p->nskipped);
	assert_string_equal(p->skipped[i].name, name);
	if (!strstr(p->skipped[i].reason, reason))
		fail_msg("skipped %s: reason '%s' lacks '%s'", name, p->skipped[i].reason, reason);
}

/* The KNL copy: its mlx5_0 turned into a block device (so the node's
 * fabric is Omni-Path only), hfi1_0 under the HFI on bus 01, hfi1_1 on
 * a second host bridge in the cluster of NUMA 2. */
static char *knl_two_hfis(const char *hfi1_state)
{
	char hfi1[1024];
	xml_edit_t e[3] = {
		{ "name=\"mlx5_0\" osdev_type=\"3\"", "name=\"sdz\" osdev_type=\"0\"", 0 },
		{ "<info name=\"PCISlot\" value=\"802\"/>",
		  "<info name=\"PCISlot\" value=\"802\"/><object type=\"OSDev\" name=\"hfi1_0\" "
		  "osdev_type=\"3\"><info name=\"Port1State\" value=\"4\"/><info name=\"Port1LID\" "
		  "value=\"0x5\"/></object>", 0 },
		{ "<object type=\"NUMANode\" os_index=\"6\"", hfi1, 0 },
	};

	snprintf(hfi1, sizeof(hfi1),
	         "<object type=\"Bridge\" os_index=\"2\" bridge_type=\"0-1\" depth=\"0\" "
	         "bridge_pci=\"0000:[81-81]\"><object type=\"PCIDev\" os_index=\"528384\" "
	         "pci_busid=\"0000:81:00.0\" pci_type=\"0208 [8086:24f0] [8086:24f0] 11\" "
	         "pci_link_speed=\"0.000000\"><object type=\"OSDev\" name=\"hfi1_1\" osdev_type=\"3\">"
	         "<info name=\"Port1State\" value=\"%s\"/><info name=\"Port1LID\" value=\"0x6\"/>"
	         "</object></object></object><object type=\"NUMANode\" os_index=\"6\"", hfi1_state);
	return derive_xml(KNL, e, 3);
}

static void test_knl_hfi1_down(void **state)
{
	char *path = knl_two_hfis("1");
	np_topo_t *t = load_path(path);
	np_error_t err = { 0 };
	np_plan_t *p = plan_hca(t, 8, NULL, 0, 0, &err);

	(void)state;
	for (unsigned i = 0; i < 8; i++) {
		const np_rank_t *r = &p->ranks[i];

		assert_string_equal(r->hca, "hfi1_0");
		assert_int_equal(r->port, 1);
		assert_true(rank_within(r, KNL_NUMA0));
		assert_string_equal(np_rank_getenv(r, "UCX_NET_DEVICES"), "hfi1_0:1");
		/* PSM2 (Open MPI's psm2 MTL, libfabric psm2) and libfabric opx */
		assert_string_equal(np_rank_getenv(r, "HFI_UNIT"), "0");
		assert_string_equal(np_rank_getenv(r, "HFI_PORT"), "1");
		assert_string_equal(np_rank_getenv(r, "FI_OPX_HFI_SELECT"), "0");
		assert_null(np_rank_getenv(r, "OMPI_MCA_btl_openib_if_include"));
	}
	assert_int_equal(p->nskipped, 1);
	assert_skipped(p, 0, "hfi1_1", "port 1 DOWN");
	assert_null(p->note);
	np_plan_free(p);
	np_topo_free(t);
	drop_derived(path);
}

/* The same copy with both ports ACTIVE: half the ranks on each, which
 * shows the state, not the copy, decided the case above. */
static void test_knl_hfi1_both_active(void **state)
{
	char *path = knl_two_hfis("4");
	np_topo_t *t = load_path(path);
	np_error_t err = { 0 };
	np_plan_t *p = plan_hca(t, 8, NULL, 0, 0, &err);

	(void)state;
	for (unsigned i = 0; i < 8; i++) {
		const np_rank_t *r = &p->ranks[i];

		assert_string_equal(r->hca, i < 4 ? "hfi1_0" : "hfi1_1");
		assert_true(rank_within(r, i < 4 ? KNL_NUMA0 : KNL_NUMA2));
		assert_string_equal(np_rank_getenv(r, "HFI_UNIT"), i < 4 ? "0" : "1");
	}
	assert_int_equal(p->nskipped, 0);
	np_plan_free(p);
	np_topo_free(t);
	drop_derived(path);
}

static void test_spr_three_down(void **state)
{
	np_topo_t *t = load_topo(SPR8480, NULL);
	np_error_t err = { 0 };
	np_plan_t *p = plan_hca(t, 8, NULL, 0, 0, &err);

	(void)state;
	for (unsigned i = 0; i < 8; i++) {
		assert_string_equal(p->ranks[i].hca, "mlx5_0");
		assert_true(rank_within(&p->ranks[i], SPR_NUMA3));
		assert_string_equal(np_rank_getenv(&p->ranks[i], "UCX_NET_DEVICES"), "mlx5_0:1");
	}
	/* in the topology's order */
	assert_int_equal(p->nskipped, 3);
	assert_skipped(p, 0, "mlx5_2", "port 1 DOWN");
	assert_skipped(p, 1, "mlx5_1", "port 1 DOWN");
	assert_skipped(p, 2, "mlx5_3", "port 1 DOWN");
	np_plan_free(p);
	np_topo_free(t);
}

static void test_all_down_falls_back(void **state)
{
	const xml_edit_t e[] = { { "<info name=\"Port1State\" value=\"4\"/>",
	                           "<info name=\"Port1State\" value=\"2\"/>", 0 } };
	char *path = derive_xml(SPR8480, e, 1);
	np_topo_t *t = load_path(path);
	np_error_t err = { 0 };
	np_plan_t *p = plan_hca(t, 4, NULL, 0, 0, &err);

	(void)state;
	assert_int_equal(p->policy, NP_POLICY_SPREAD);
	assert_int_equal(p->requested, NP_POLICY_HCA_NEAR);
	assert_non_null(p->note);
	assert_non_null(strstr(p->note, "no usable adapter"));
	assert_non_null(strstr(p->note, "mlx5_0: port 1 INIT"));
	assert_int_equal(p->nskipped, 4);
	for (unsigned i = 0; i < 4; i++) {
		assert_null(p->ranks[i].hca);
		assert_null(np_rank_getenv(&p->ranks[i], "UCX_NET_DEVICES"));
	}
	np_plan_free(p);
	/* --no-fallback / on_error=fail: an error naming every adapter */
	p = plan_hca(t, 4, NULL, 1, -ENODEV, &err);
	assert_null(p);
	for (const char *n = "mlx5_0\0mlx5_1\0mlx5_2\0mlx5_3\0"; *n; n += strlen(n) + 1)
		assert_non_null(strstr(err.msg, n));
	np_topo_free(t);
	drop_derived(path);
}

/* The SGI file records no port state for mlx4_0: unknown is not down. */
static void test_unknown_state_is_usable(void **state)
{
	np_topo_t *t = load_topo("sgi-uv2000-24s-24numa-mlx4.xml", NULL);
	np_error_t err = { 0 };
	np_plan_t *p = plan_hca(t, 4, NULL, 0, 0, &err);

	(void)state;
	assert_int_equal(p->policy, NP_POLICY_HCA_NEAR);
	assert_int_equal(p->nskipped, 0);
	assert_string_equal(np_rank_getenv(&p->ranks[0], "UCX_NET_DEVICES"), "mlx4_0:1");
	np_plan_free(p);
	np_topo_free(t);
}

static void ib_port(const char *root, const char *dev, unsigned port, const char *state,
                    const char *link)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/%u/state", dev, port);
	put_file(root, rel, state);
	snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/%u/link_layer", dev, port);
	put_file(root, rel, link);
}

/* The XML says mlx5_0 ACTIVE and the others DOWN; the live node says the
 * opposite for mlx5_0 and mlx5_3, and has no mlx5_2 at all. */
static void test_live_states_decide(void **state)
{
	np_topo_t *t = load_topo(SPR8480, NULL);
	char *root = make_tmpdir();
	np_error_t err = { 0 };
	np_plan_t *p;
	char want[512];

	(void)state;
	ib_port(root, "mlx5_0", 1, "1: DOWN\n", "InfiniBand\n");
	ib_port(root, "mlx5_1", 1, "1: DOWN\n", "InfiniBand\n");
	ib_port(root, "mlx5_3", 1, "4: ACTIVE\n", "InfiniBand\n");
	put_file(root, "class/infiniband/mlx5_3/ports/1/lid", "0x2a\n");
	assert_int_equal(np_topo_read_ports(t, root, 0, &err), 0);
	assert_string_equal(t->ports_from, root);
	p = plan_hca(t, 4, NULL, 0, 0, &err);
	for (unsigned i = 0; i < 4; i++) {
		assert_string_equal(p->ranks[i].hca, "mlx5_3");
		assert_true(rank_within(&p->ranks[i], SPR_NUMA5));
	}
	assert_int_equal(p->nskipped, 3);
	snprintf(want, sizeof(want), "not present on this node (no %s/class/infiniband/mlx5_2)", root);
	assert_skipped(p, 0, "mlx5_2", want);
	assert_skipped(p, 1, "mlx5_0", "port 1 DOWN");
	assert_skipped(p, 2, "mlx5_1", "port 1 DOWN");
	assert_int_equal(t->devices[np_topo_device_by_name(t, "mlx5_3")].ports[0].lid, 0x2a);
	np_plan_free(p);
	/* read again once mlx5_2 is there (ACTIVE): present and used */
	ib_port(root, "mlx5_2", 1, "4: ACTIVE\n", "InfiniBand\n");
	assert_int_equal(np_topo_read_ports(t, root, 0, &err), 0);
	assert_null(t->devices[np_topo_device_by_name(t, "mlx5_2")].problem);
	p = plan_hca(t, 4, NULL, 0, 0, &err);
	assert_string_equal(p->ranks[0].hca, "mlx5_2");
	assert_string_equal(p->ranks[3].hca, "mlx5_3");
	np_plan_free(p);
	np_topo_free(t);
	rm_tree(root);
	free(root);
}

/* A dual-port card: port 1 not cabled, port 2 ACTIVE. */
static void test_live_second_port(void **state)
{
	np_topo_t *t = load_topo(EPYC7551, NULL);
	char *root = make_tmpdir();
	np_error_t err = { 0 };
	np_plan_t *p;

	(void)state;
	ib_port(root, "mlx5_0", 1, "1: DOWN\n", "InfiniBand\n");
	ib_port(root, "mlx5_0", 2, "4: ACTIVE\n", "InfiniBand\n");
	assert_int_equal(np_topo_read_ports(t, root, 0, &err), 0);
	p = plan_hca(t, 2, NULL, 0, 0, &err);
	assert_int_equal(p->ranks[0].port, 2);
	assert_string_equal(np_rank_getenv(&p->ranks[0], "UCX_NET_DEVICES"), "mlx5_0:2");
	assert_string_equal(np_rank_getenv(&p->ranks[0], "NCCL_IB_HCA"), "=mlx5_0:2");
	np_plan_free(p);
	/* NAME:PORT, as NUMAPLAN_HCA exports it */
	p = plan_hca(t, 2, "mlx5_0:2", 0, 0, &err);
	assert_string_equal(np_rank_getenv(&p->ranks[1], "UCX_NET_DEVICES"), "mlx5_0:2");
	np_plan_free(p);
	p = plan_hca(t, 2, "mlx5_0:1", 0, 0, &err);
	assert_int_equal(p->policy, NP_POLICY_SPREAD);
	assert_skipped(p, 0, "mlx5_0", "port 1 DOWN");
	np_plan_free(p);
	p = plan_hca(t, 2, "mlx5_0:3", 0, -ENODEV, &err);
	assert_non_null(strstr(err.msg, "no port 3 (ports: 1, 2)"));
	np_topo_free(t);
	rm_tree(root);
	free(root);
}

/* Soft-RoCE as the kernel shows it: "4: ACTIVE", link layer Ethernet.
 * The copy names the EPYC's adapter rxe0; its PCI class says InfiniBand,
 * the live link layer says otherwise. */
static void test_live_soft_roce(void **state)
{
	const xml_edit_t e[] = { { "name=\"mlx5_0\" osdev_type=\"3\"", "name=\"rxe0\" osdev_type=\"3\"", 0 } };
	char *path = derive_xml(EPYC7551, e, 1), *root = make_tmpdir();
	np_topo_t *t = load_path(path);
	np_error_t err = { 0 };
	np_plan_t *p;
	int d = np_topo_device_by_name(t, "rxe0");

	(void)state;
	assert_true(d >= 0);
	assert_int_equal(t->devices[d].kind, NP_DEV_IB);
	ib_port(root, "rxe0", 1, "4: ACTIVE\n", "Ethernet\n");
	assert_int_equal(np_topo_read_ports(t, root, 0, &err), 0);
	assert_int_equal(t->devices[d].kind, NP_DEV_ROCE);
	assert_int_equal(t->devices[d].ports[0].state, NP_PORT_ACTIVE);
	assert_int_equal(t->devices[d].ports[0].link, NP_LINK_ETHERNET);
	p = plan_hca(t, 2, NULL, 0, 0, &err);
	assert_string_equal(np_rank_getenv(&p->ranks[0], "UCX_NET_DEVICES"), "rxe0:1");
	assert_true(rank_within(&p->ranks[0], "40-47,104-111"));
	np_plan_free(p);
	np_topo_free(t);
	rm_tree(root);
	free(root);
	drop_derived(path);
}

/* A state that cannot be read is unknown, never the snapshot's: the copy
 * says DOWN, the live file is a FIFO (which must not block either). */
static void test_live_unreadable_is_unknown(void **state)
{
	const xml_edit_t e[] = { { "<info name=\"Port1State\" value=\"4\"/>",
	                           "<info name=\"Port1State\" value=\"1\"/>", 0 } };
	char *path = derive_xml(EPYC7551, e, 1), *root = make_tmpdir(), fifo[4096];
	np_topo_t *t = load_path(path);
	np_error_t err = { 0 };
	np_plan_t *p;

	(void)state;
	p = plan_hca(t, 2, NULL, 0, 0, &err);
	assert_int_equal(p->policy, NP_POLICY_SPREAD);
	np_plan_free(p);
	put_file(root, "class/infiniband/mlx5_0/ports/1/link_layer", "InfiniBand\n");
	snprintf(fifo, sizeof(fifo), "%s/class/infiniband/mlx5_0/ports/1/state", root);
	assert_int_equal(mkfifo(fifo, 0644), 0);
	assert_int_equal(np_topo_read_ports(t, root, 0, &err), 0);
	assert_int_equal(t->devices[0].ports[0].state, -1);
	p = plan_hca(t, 2, NULL, 0, 0, &err);
	assert_int_equal(p->policy, NP_POLICY_HCA_NEAR);
	assert_string_equal(p->ranks[0].hca, "mlx5_0");
	np_plan_free(p);
	np_topo_free(t);
	rm_tree(root);
	free(root);
	drop_derived(path);
}

/* The plugin believes only files root owns and only root may write. */
static void test_live_root_owned(void **state)
{
	np_topo_t *t = load_topo(EPYC7551, NULL);
	char *root = make_tmpdir(), file[4096];
	np_error_t err = { 0 };
	unsigned port;
	char why[128];

	(void)state;
	ib_port(root, "mlx5_0", 1, "1: DOWN\n", "InfiniBand\n");
	assert_int_equal(np_topo_read_ports(t, root, NP_PORTS_ROOT_OWNED, &err), 0);
	if (geteuid() == 0)
		assert_int_equal(t->devices[0].ports[0].state, NP_PORT_DOWN);
	snprintf(file, sizeof(file), "%s/class/infiniband/mlx5_0/ports/1/state", root);
	assert_int_equal(chmod(file, 0666), 0);
	assert_int_equal(np_topo_read_ports(t, root, NP_PORTS_ROOT_OWNED, &err), 0);
	assert_int_equal(t->devices[0].ports[0].state, -1);
	assert_int_equal(np_device_usable(&t->devices[0], 0, &port, why, sizeof(why)), 1);
	/* without the flag (the command line, a user's own tree) it counts */
	assert_int_equal(np_topo_read_ports(t, root, 0, &err), 0);
	assert_int_equal(t->devices[0].ports[0].state, NP_PORT_DOWN);
	assert_int_equal(np_device_usable(&t->devices[0], 0, &port, why, sizeof(why)), 0);
	assert_string_equal(why, "port 1 DOWN");
	/* the root must exist */
	assert_int_equal(np_topo_read_ports(t, "/nonexistent/sys", 0, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "/nonexistent/sys"));
	np_topo_free(t);
	rm_tree(root);
	free(root);
}

/* hca=eno1: a plain Ethernet interface, its locality from hwloc, the
 * variables of TCP transports; its operstate read live. */
static void test_named_interface(void **state)
{
	np_topo_t *t = load_topo(EPYC7551, NULL);
	char *root = make_tmpdir();
	np_error_t err = { 0 };
	np_plan_t *p = plan_hca(t, 8, "eno1", 0, 0, &err);

	(void)state;
	for (unsigned i = 0; i < 8; i++) {
		const np_rank_t *r = &p->ranks[i];

		assert_string_equal(r->hca, "eno1");
		assert_int_equal(r->port, 0);
		assert_true(rank_within(r, "8-15,72-79"));
		assert_string_equal(np_rank_getenv(r, "UCX_NET_DEVICES"), "eno1");
		assert_string_equal(np_rank_getenv(r, "OMPI_MCA_btl_tcp_if_include"), "eno1");
		assert_string_equal(np_rank_getenv(r, "FI_TCP_IFACE"), "eno1");
		assert_string_equal(np_rank_getenv(r, "NCCL_SOCKET_IFNAME"), "=eno1");
		assert_null(np_rank_getenv(r, "OMPI_MCA_btl_openib_if_include"));
	}
	np_plan_free(p);
	/* both kinds named: each its share, nearest first (eno1 on NUMA 1) */
	p = plan_hca(t, 4, "mlx5_0,eno1", 0, 0, &err);
	assert_string_equal(p->ranks[0].hca, "eno1");
	assert_string_equal(p->ranks[1].hca, "eno1");
	assert_string_equal(p->ranks[2].hca, "mlx5_0");
	assert_true(rank_within(&p->ranks[3], "40-47,104-111"));
	np_plan_free(p);
	p = plan_hca(t, 2, "eno1:1", 0, -EINVAL, &err);
	assert_non_null(strstr(err.msg, "has no ports"));
	/* live: down, then up */
	put_file(root, "class/net/eno1/operstate", "down\n");
	put_file(root, "class/infiniband/mlx5_0/ports/1/state", "4: ACTIVE\n");
	assert_int_equal(np_topo_read_ports(t, root, 0, &err), 0);
	p = plan_hca(t, 2, "eno1", 0, 0, &err);
	assert_int_equal(p->policy, NP_POLICY_SPREAD);
	assert_skipped(p, 0, "eno1", "link down");
	np_plan_free(p);
	put_file(root, "class/net/eno1/operstate", "up\n");
	assert_int_equal(np_topo_read_ports(t, root, 0, &err), 0);
	p = plan_hca(t, 2, "eno1", 0, 0, &err);
	assert_string_equal(p->ranks[0].hca, "eno1");
	np_plan_free(p);
	/* eno2 has no entry in this tree: not present */
	p = plan_hca(t, 2, "eno2", 0, 0, &err);
	assert_skipped(p, 0, "eno2", "not present");
	np_plan_free(p);
	np_topo_free(t);
	rm_tree(root);
	free(root);
}

/* Cray MPICH's NIC indexes: cxiN in the order libfabric lists them. */
static void test_slingshot_nic_mapping(void **state)
{
	np_topo_t *t = load_topo(TIOGA, NULL);
	char *root = make_tmpdir();
	np_error_t err = { 0 };
	np_plan_t *p = plan_hca(t, 4, NULL, 0, 0, &err);
	/* hsiN = cxiN by name: ranks on hsi2, hsi1, hsi3, hsi0 */

	(void)state;
	for (unsigned i = 0; i < 4; i++) {
		assert_string_equal(np_rank_getenv(&p->ranks[i], "MPICH_OFI_NIC_POLICY"), "USER");
		assert_string_equal(np_rank_getenv(&p->ranks[i], "MPICH_OFI_NIC_MAPPING"), "0:3;1:1;2:0;3:2");
		assert_null(np_rank_getenv(&p->ranks[i], "FI_CXI_DEVICE_NAME"));
	}
	np_plan_free(p);
	/* the live driver pairs them the other way round, and hsi1 is gone:
	 * the present NICs are cxi0 (hsi3), cxi1 (hsi2), cxi3 (hsi0) */
	put_file(root, "class/net/hsi0/operstate", "up\n");
	put_file(root, "class/net/hsi0/device/cxi/cxi3/x", "");
	put_file(root, "class/net/hsi2/operstate", "up\n");
	put_file(root, "class/net/hsi2/device/cxi/cxi1/x", "");
	put_file(root, "class/net/hsi3/operstate", "up\n");
	put_file(root, "class/net/hsi3/device/cxi/cxi0/x", "");
	assert_int_equal(np_topo_read_ports(t, root, 0, &err), 0);
	p = plan_hca(t, 3, NULL, 0, 0, &err);
	/* rails by locality: hsi2 (NUMA 0), hsi3 (2), hsi0 (3) */
	assert_string_equal(p->ranks[0].hca, "hsi2");
	assert_string_equal(p->ranks[1].hca, "hsi3");
	assert_string_equal(p->ranks[2].hca, "hsi0");
	assert_string_equal(np_rank_getenv(&p->ranks[0], "MPICH_OFI_NIC_MAPPING"), "0:1;1:0;2:2");
	assert_skipped(p, 0, "hsi1", "not present");
	np_plan_free(p);
	np_topo_free(t);
	rm_tree(root);
	free(root);
}

/* Ranks of one node numbered 1, 3, 5, 7 (srun -m cyclic): MPICH counts
 * local ranks in global rank order, whatever the task order. */
static void test_slingshot_mapping_cyclic(void **state)
{
	np_topo_t *t = load_topo(TIOGA, NULL);
	np_plan_opts_t o = NP_PLAN_OPTS_INIT;
	const unsigned ids[] = { 7, 3, 5, 1 };
	np_error_t err = { 0 };
	np_plan_t *p;

	(void)state;
	o.policy = NP_POLICY_HCA_NEAR;
	o.ntasks = 4;
	o.rank_ids = ids;
	assert_int_equal(np_plan_compute(t, &o, &p, &err), 0);
	/* tasks 0..3 on hsi2, hsi1, hsi3, hsi0 = NICs 2, 1, 3, 0; their MPICH
	 * local ranks (order of 7, 3, 5, 1) are 3, 1, 2, 0 */
	assert_string_equal(np_rank_getenv(&p->ranks[0], "MPICH_OFI_NIC_MAPPING"), "0:0;1:1;2:3;3:2");
	np_plan_free(p);
	np_topo_free(t);
}

static void test_bad_names_are_skipped(void **state)
{
	char longname[3001];
	char from2[] = "name=\"mlx5_2\" osdev_type=\"3\"", to2[3100];
	xml_edit_t e[2] = {
		{ "name=\"mlx5_1\" osdev_type=\"3\"", "name=\"mlx5_1&#10;EVIL=1\" osdev_type=\"3\"", 0 },
		{ from2, to2, 0 },
	};
	char *path;
	np_topo_t *t;
	np_error_t err = { 0 };
	np_plan_t *p;

	(void)state;
	memset(longname, 'a', 3000);
	longname[3000] = '\0';
	snprintf(to2, sizeof(to2), "name=\"%s\" osdev_type=\"3\"", longname);
	path = derive_xml(LASSEN, e, 2);
	t = load_path(path);
	p = plan_hca(t, 4, NULL, 0, 0, &err);
	/* mlx5_0 and mlx5_3 are left; nothing of the others gets out */
	for (unsigned i = 0; i < 4; i++) {
		const np_rank_t *r = &p->ranks[i];
		const char *ucx = np_rank_getenv(r, "UCX_NET_DEVICES");

		assert_true(!strcmp(r->hca, "mlx5_0") || !strcmp(r->hca, "mlx5_3"));
		assert_int_equal(strlen(ucx), strlen("mlx5_0:1"));
		for (unsigned k = 0; k < r->nenv; k++) {
			assert_null(strpbrk(r->env[k].value, "\n\r"));
			assert_null(strstr(r->env[k].value, "EVIL"));
		}
	}
	assert_int_equal(p->nskipped, 2);
	assert_skipped(p, 0, "mlx5_1\\x0aEVIL=1", "invalid name");
	assert_non_null(strstr(p->skipped[1].reason, "3000 characters long"));
	assert_true(strlen(p->skipped[1].name) <= 64 + 3);
	assert_null(strchr(p->skipped[0].name, '\n'));
	/* a user cannot name them either */
	assert_int_equal(np_topo_device_by_name(t, "mlx5_1"), -1);
	np_plan_free(p);
	np_topo_free(t);
	drop_derived(path);
}

static void test_hca_list_syntax(void **state)
{
	np_error_t err = { 0 };
	char big[200];
	const char *bad[] = { "", ",", "mlx5_0,", "mlx5_0:", "mlx5_0:0", "mlx5_0:256", "mlx5_0:1:2",
	                      "mlx5_0:x", "a b", "mlx5_0,mlx5_0:2", "../x", "eth0\n" };

	(void)state;
	assert_int_equal(np_hca_list_check("mlx5_0", &err), 0);
	assert_int_equal(np_hca_list_check("mlx5_0:1", &err), 0);
	assert_int_equal(np_hca_list_check("eth0,mlx5_1:2,hsn0", &err), 0);
	assert_int_equal(np_hca_list_check("mlx5_0:255", &err), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (np_hca_list_check(bad[i], &err) != -EINVAL)
			fail_msg("'%s' accepted", bad[i]);
	assert_int_equal(np_hca_list_check("mlx5_0:256", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "'mlx5_0:256'"));
	assert_non_null(strstr(err.msg, "1 to 255"));
	assert_int_equal(np_hca_list_check("mlx5_0,mlx5_0:2", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "named twice"));
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(np_hca_list_check(big, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "too long"));
}

static void test_hca_needs_hca_near(void **state)
{
	np_topo_t *t = load_topo(EPYC7551, NULL);
	np_plan_opts_t o = NP_PLAN_OPTS_INIT;
	np_error_t err = { 0 };
	np_plan_t *p;

	(void)state;
	o.policy = NP_POLICY_COMPACT;
	o.hca = "mlx5_0";
	assert_int_equal(np_plan_compute(t, &o, &p, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "hca-near"));
	assert_non_null(strstr(err.msg, "compact"));
	o.policy = NP_POLICY_SPREAD;
	o.hca = NULL;
	assert_int_equal(np_plan_compute(t, &o, &p, &err), 0);
	assert_int_equal(p->nskipped, 0);
	np_plan_free(p);
	np_topo_free(t);
}

/* What each fabric's stacks read (numaplan(1), ENVIRONMENT). */
static void test_fabric_env(void **state)
{
	np_topo_t *t;
	np_error_t err = { 0 };
	np_plan_t *p;
	const xml_edit_t e[] = { { "name=\"mlx5_3\" osdev_type=\"3\"", "name=\"mlx5_10\" osdev_type=\"3\"", 0 } };
	char *path;

	(void)state;
	t = load_topo(EPYC7551, NULL);
	p = plan_hca(t, 1, NULL, 0, 0, &err);
	assert_string_equal(np_rank_getenv(&p->ranks[0], "OMPI_MCA_btl_openib_if_include"), "mlx5_0:1");
	assert_string_equal(np_rank_getenv(&p->ranks[0], "NCCL_IB_HCA"), "=mlx5_0:1");
	assert_string_equal(np_rank_getenv(&p->ranks[0], "FI_VERBS_DEVICE_NAME"), "mlx5_0");
	assert_string_equal(np_rank_getenv(&p->ranks[0], "PSM3_NIC"), "mlx5_0");
	np_plan_free(p);
	np_topo_free(t);

	t = load_topo("intel-clx8259cl-2s-8t4-efa-aws-g4dnmetal.xml", NULL);
	p = plan_hca(t, 1, NULL, 0, 0, &err);
	assert_string_equal(np_rank_getenv(&p->ranks[0], "FI_EFA_IFACE"), "rdmap197s0");
	assert_null(np_rank_getenv(&p->ranks[0], "OMPI_MCA_btl_openib_if_include"));
	np_plan_free(p);
	np_topo_free(t);

	t = load_topo("cisco-ucs-2s-3usnic-manyvfs.xml", NULL);
	p = plan_hca(t, 1, NULL, 0, 0, &err);
	assert_string_equal(np_rank_getenv(&p->ranks[0], "OMPI_MCA_btl_usnic_if_include"), "usnic_0");
	assert_null(np_rank_getenv(&p->ranks[0], "OMPI_MCA_btl_openib_if_include"));
	np_plan_free(p);
	np_topo_free(t);

	/* libfabric verbs matches prefixes: mlx5_1 would admit mlx5_10 */
	path = derive_xml(LASSEN, e, 1);
	t = load_path(path);
	p = plan_hca(t, 4, NULL, 0, 0, &err);
	for (unsigned i = 0; i < 4; i++) {
		const char *v = np_rank_getenv(&p->ranks[i], "FI_VERBS_DEVICE_NAME");

		if (!strcmp(p->ranks[i].hca, "mlx5_1"))
			assert_null(v);
		else
			assert_string_equal(v, p->ranks[i].hca);
	}
	np_plan_free(p);
	np_topo_free(t);
	drop_derived(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_knl_hfi1_down),
		cmocka_unit_test(test_knl_hfi1_both_active),
		cmocka_unit_test(test_spr_three_down),
		cmocka_unit_test(test_all_down_falls_back),
		cmocka_unit_test(test_unknown_state_is_usable),
		cmocka_unit_test(test_live_states_decide),
		cmocka_unit_test(test_live_second_port),
		cmocka_unit_test(test_live_soft_roce),
		cmocka_unit_test(test_live_unreadable_is_unknown),
		cmocka_unit_test(test_live_root_owned),
		cmocka_unit_test(test_named_interface),
		cmocka_unit_test(test_slingshot_nic_mapping),
		cmocka_unit_test(test_slingshot_mapping_cyclic),
		cmocka_unit_test(test_bad_names_are_skipped),
		cmocka_unit_test(test_hca_list_syntax),
		cmocka_unit_test(test_hca_needs_hca_near),
		cmocka_unit_test(test_fabric_env),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/* test_open_devices.c - the devices a process holds open
 * (common/open_devices.c): against a fake proc/ and sys/ tree written
 * here, laid out as the kernel and the NVIDIA driver lay theirs out,
 * and against this process's own descriptors. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/open_devices.h"

static char root[] = "/tmp/np-devtree-XXXXXX";

static void mkdirs(const char *rel)
{
	char path[1024], *p;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	mkdir(path, 0755);
}

static void put(const char *rel, const char *text)
{
	char path[1024], dir[1024];
	FILE *f;

	snprintf(dir, sizeof(dir), "%s", rel);
	*strrchr(dir, '/') = '\0';
	mkdirs(dir);
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* rel -> target; a target starting with '@' is in the tree */
static void link_to(const char *rel, const char *target)
{
	char path[1024], dir[1024], t[1024];

	snprintf(dir, sizeof(dir), "%s", rel);
	*strrchr(dir, '/') = '\0';
	mkdirs(dir);
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	if (target[0] == '@') {
		snprintf(t, sizeof(t), "%s/%s", root, target + 1);
		mkdirs(target + 1);
	} else {
		snprintf(t, sizeof(t), "%s", target);
	}
	assert_int_equal(symlink(t, path), 0);
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(root))
		return -1;
	/* process 100's descriptors: the kernel's links say the file */
	link_to("proc/100/fd/0", "/dev/null");
	link_to("proc/100/fd/3", "/dev/infiniband/uverbs1");
	link_to("proc/100/fd/4", "/dev/dri/renderD129");
	link_to("proc/100/fd/5", "/dev/nvidia1");
	link_to("proc/100/fd/6", "/dev/kfd");
	link_to("proc/100/fd/7", "/dev/cxi0");
	link_to("proc/100/fd/9", "/dev/infiniband/uverbs1");     /* the same adapter again */
	link_to("proc/100/fd/10", "/dev/nvidiactl");             /* no GPU of its own */
	link_to("proc/100/fd/11", "/dev/dri/card1");
	link_to("proc/100/fd/12", "/home/u/dev/infiniband/uverbs0");
	link_to("proc/100/fd/13", "/dev/infiniband/uverbs1 (deleted)");
	link_to("proc/100/fd/14", "/dev/infiniband/rdma_cm");    /* the CM: no adapter */
	link_to("proc/100/fd/2", "/dev/infiniband/uverbs7");     /* sysfs does not know it */
	mkdirs("proc/101/fd");
	/* sysfs: two adapters on two PCI functions */
	put("sys/class/infiniband_verbs/uverbs0/ibdev", "mlx5_0\n");
	put("sys/class/infiniband_verbs/uverbs1/ibdev", "mlx5_1\n");
	link_to("sys/class/infiniband/mlx5_0/device", "@sys/devices/pci0000:00/0000:3b:00.0");
	link_to("sys/class/infiniband/mlx5_1/device", "@sys/devices/pci0000:80/0000:86:00.0");
	/* a virtio GPU: its DRM device below virtio3, below the function */
	link_to("sys/class/drm/renderD129/device", "@sys/devices/pci0000:80/0000:87:00.0/virtio3");
	link_to("sys/class/drm/card1/device", "@sys/devices/pci0000:80/0000:87:00.0/virtio3");
	link_to("sys/class/drm/renderD128/device", "@sys/devices/pci0000:00/0000:00:02.0");
	/* two AMD GPUs, listed out of bus order, and a bochs display */
	link_to("sys/class/drm/renderD131/device", "@sys/devices/pci0000:00/0000:05:00.0");
	link_to("sys/class/drm/renderD130/device", "@sys/devices/pci0000:c0/0000:c1:00.0");
	put("sys/devices/pci0000:00/0000:05:00.0/vendor", "0x1002\n");
	put("sys/devices/pci0000:c0/0000:c1:00.0/vendor", "0x1002\n");
	put("sys/devices/pci0000:00/0000:00:02.0/vendor", "0x1234\n");
	link_to("sys/class/cxi/cxi0/device", "@sys/devices/pci0000:00/0000:41:00.0");
	/* the NVIDIA driver names its directories by bus id (upper case
	 * hex on some versions) and says the minor inside */
	put("proc/driver/nvidia/gpus/0000:3B:00.0/information", "Model: \t A\nDevice Minor: \t 0\n");
	put("proc/driver/nvidia/gpus/0000:af:00.0/information", "Model: \t B\nIRQ: 5\nDevice Minor: \t 1\n");
	/* ports: one down without counters, one counting 4-byte words, a
	 * software adapter counting packets */
	put("sys/class/infiniband/mlx5_0/ports/1/state", "1: DOWN\n");
	put("sys/class/infiniband/mlx5_1/ports/1/state", "4: ACTIVE\n");
	put("sys/class/infiniband/mlx5_1/ports/1/counters/port_xmit_data", "100\n");
	put("sys/class/infiniband/mlx5_1/ports/1/counters/port_rcv_data", "25\n");
	put("sys/class/infiniband/rxe0/ports/1/state", "4: ACTIVE\n");
	put("sys/class/infiniband/rxe0/ports/1/hw_counters/sent_pkts", "7\n");
	put("sys/class/infiniband/rxe0/ports/1/hw_counters/rcvd_pkts", "9\n");
	return 0;
}

static int teardown(void **state)
{
	char cmd[256];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_classify(void **state)
{
	np_devkind_t k;
	long n;

	(void)state;
	assert_int_equal(np_devopen_classify("/dev/infiniband/uverbs12", &k, &n), 0);
	assert_int_equal(k, NP_DEVK_RDMA);
	assert_int_equal(n, 12);
	assert_int_equal(np_devopen_classify("/dev/dri/card0", &k, &n), 0);
	assert_int_equal(k, NP_DEVK_DRM);
	assert_int_equal(np_devopen_classify("/dev/kfd", &k, &n), 0);
	assert_int_equal(k, NP_DEVK_KFD);
	assert_int_equal(np_devopen_classify("/dev/cxi3", &k, &n), 0);
	assert_int_equal(k, NP_DEVK_CXI);
	assert_int_equal(n, 3);
	/* the NVIDIA control and UVM files, another name, a deleted one */
	assert_int_equal(np_devopen_classify("/dev/nvidiactl", &k, &n), -ENOENT);
	assert_int_equal(np_devopen_classify("/dev/nvidia-uvm", &k, &n), -ENOENT);
	assert_int_equal(np_devopen_classify("/dev/nvidia", &k, &n), -ENOENT);
	assert_int_equal(np_devopen_classify("/dev/dri/renderD128 (deleted)", &k, &n), -ENOENT);
	assert_int_equal(np_devopen_classify("/x/dev/kfd", &k, &n), -ENOENT);
	assert_int_equal(np_devopen_classify("/dev/kfd2", &k, &n), -ENOENT);
}

static void test_scan_tree(void **state)
{
	char proc[600];
	np_devopen_t *v;
	size_t n;
	np_error_t err = { 0 };

	(void)state;
	snprintf(proc, sizeof(proc), "%s/proc", root);
	assert_int_equal(np_devopen_scan(proc, root, "100", &v, &n, &err), 0);
	/* by descriptor: 2 (unknown uverbs7), 3, 4, 5, 6, 7, 11; fd 9 is
	 * fd 3's adapter again, 0/10/12/13/14 are no adapter or GPU */
	assert_int_equal(n, 7);
	assert_int_equal(v[0].fd, 2);
	assert_int_equal(v[0].kind, NP_DEVK_RDMA);
	assert_string_equal(v[0].name, "uverbs7");
	assert_string_equal(v[0].pci, "");
	assert_int_equal(v[1].fd, 3);
	assert_string_equal(v[1].name, "mlx5_1");
	assert_string_equal(v[1].pci, "0000:86:00.0");
	assert_string_equal(v[1].file, "/dev/infiniband/uverbs1");
	assert_int_equal(v[2].kind, NP_DEVK_DRM);
	assert_string_equal(v[2].name, "renderD129");
	assert_string_equal(v[2].pci, "0000:87:00.0");
	assert_int_equal(v[3].kind, NP_DEVK_NVIDIA);
	assert_string_equal(v[3].name, "nvidia1");
	assert_string_equal(v[3].pci, "0000:af:00.0");
	assert_int_equal(v[4].kind, NP_DEVK_KFD);
	assert_string_equal(v[4].pci, "");
	assert_int_equal(v[5].kind, NP_DEVK_CXI);
	assert_string_equal(v[5].name, "cxi0");
	assert_string_equal(v[5].pci, "0000:41:00.0");
	assert_int_equal(v[6].fd, 11);
	assert_string_equal(v[6].name, "card1");
	assert_string_equal(v[6].pci, "0000:87:00.0");
	free(v);
	/* a process holding nothing; one that is gone */
	assert_int_equal(np_devopen_scan(proc, root, "101", &v, &n, &err), 0);
	assert_int_equal(n, 0);
	free(v);
	assert_int_equal(np_devopen_scan(proc, root, "102", &v, &n, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "process 102"));
}

static void test_lookups(void **state)
{
	char buf[64];
	long num = -1;

	(void)state;
	assert_int_equal(np_devopen_uverbs_of(root, "mlx5_0", &num), 0);
	assert_int_equal(num, 0);
	assert_int_equal(np_devopen_uverbs_of(root, "mlx5_9", &num), -ENOENT);
	assert_int_equal(np_devopen_render_of(root, "0000:87:00.0", &num), 0);
	assert_int_equal(num, 129);
	assert_int_equal(np_devopen_render_of(root, "0000:00:02.0", &num), 0);
	assert_int_equal(num, 128);
	assert_int_equal(np_devopen_render_of(root, "0000:99:00.0", &num), -ENOENT);
	assert_int_equal(np_devopen_nvidia_pci(root, 0, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "0000:3b:00.0");
	assert_int_equal(np_devopen_nvidia_pci(root, 2, buf, sizeof(buf)), -ENOENT);
	assert_int_equal(np_devopen_rdma_pci(root, "mlx5_0", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "0000:3b:00.0");
	/* a name that is not one: no path is made of it */
	assert_int_equal(np_devopen_rdma_pci(root, "../../x", buf, sizeof(buf)), -ENOENT);
	assert_int_equal(np_devopen_drm_pci(root, "renderD200", buf, sizeof(buf)), -ENOENT);
}

/* A runtime's GPU i is the i-th of its vendor in bus id order. */
static void test_gpus(void **state)
{
	np_devgpu_t *g;
	size_t n;
	np_error_t err = { 0 };

	(void)state;
	assert_int_equal(np_devopen_gpus(root, NP_DEVK_NVIDIA, 0x10de, &g, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(g[0].pci, "0000:3b:00.0");
	assert_int_equal(g[0].num, 0);
	assert_string_equal(g[1].pci, "0000:af:00.0");
	assert_int_equal(g[1].num, 1);
	free(g);
	assert_int_equal(np_devopen_gpus(root, NP_DEVK_DRM, 0x1002, &g, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(g[0].pci, "0000:05:00.0");
	assert_int_equal(g[0].num, 131);
	assert_string_equal(g[1].pci, "0000:c1:00.0");
	assert_int_equal(g[1].num, 130);
	free(g);
	assert_int_equal(np_devopen_gpus(root, NP_DEVK_DRM, 0x8086, &g, &n, &err), 0);
	assert_int_equal(n, 0);
	free(g);
}

static void test_ports(void **state)
{
	np_devport_t *p;
	size_t n;
	np_error_t err = { 0 };

	(void)state;
	assert_int_equal(np_devport_scan(root, &p, &n, &err), 0);
	assert_int_equal(n, 3);
	assert_string_equal(p[0].adapter, "mlx5_0");
	assert_int_equal(p[0].port, 1);
	assert_string_equal(p[0].state, "DOWN");
	assert_true(p[0].xmit_bytes < 0 && p[0].rcv_bytes < 0 && p[0].xmit_pkts < 0);
	assert_string_equal(p[1].adapter, "mlx5_1");
	assert_string_equal(p[1].state, "ACTIVE");
	/* 4-byte words */
	assert_int_equal(p[1].xmit_bytes, 400);
	assert_int_equal(p[1].rcv_bytes, 100);
	assert_string_equal(p[2].adapter, "rxe0");
	assert_true(p[2].xmit_bytes < 0);
	assert_int_equal(p[2].xmit_pkts, 7);
	assert_int_equal(p[2].rcv_pkts, 9);
	free(p);
	/* a machine without RDMA adapters */
	assert_int_equal(np_devport_scan("/nonexistent", &p, &n, &err), 0);
	assert_int_equal(n, 0);
	free(p);
}

static void test_judge(void **state)
{
	(void)state;
	assert_string_equal(np_devopen_judge("", "mlx5_0", 0), "-");
	assert_string_equal(np_devopen_judge("mlx5_0", "mlx5_0", 0), "match");
	assert_string_equal(np_devopen_judge("0000:3b:00.0,0000:5e:00.0", "0000:3B:00.0", 0), "match");
	assert_string_equal(np_devopen_judge("mlx5_0", "mlx5_1", 0), "mismatch");
	assert_string_equal(np_devopen_judge("mlx5_0", "mlx5_1,mlx5_0", 0), "extra");
	assert_string_equal(np_devopen_judge("mlx5_0", "", 0), "none-open");
	assert_string_equal(np_devopen_judge("mlx5_0", "", 1), "unreadable");
	/* a name is whole: mlx5_1 is not mlx5_10 */
	assert_string_equal(np_devopen_judge("mlx5_10", "mlx5_1", 0), "mismatch");
}

/* This process, live: /dev/null and a pipe are no adapter or GPU. */
static void test_scan_self(void **state)
{
	np_devopen_t *v;
	size_t n, before;
	np_error_t err = { 0 };
	int fd = open("/dev/null", O_RDONLY), p[2];

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(pipe(p), 0);
	assert_int_equal(np_devopen_scan("/proc", "", "self", &v, &n, &err), 0);
	before = n;
	for (size_t i = 0; i < n; i++)
		assert_true(v[i].fd != fd && v[i].fd != p[0] && v[i].fd != p[1]);
	free(v);
	/* and by number, as audit names another process */
	{
		char pid[32];
		snprintf(pid, sizeof(pid), "%ld", (long)getpid());
		assert_int_equal(np_devopen_scan("/proc", "", pid, &v, &n, &err), 0);
		assert_int_equal(n, before);
		free(v);
	}
	close(fd);
	close(p[0]);
	close(p[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_scan_tree),
		cmocka_unit_test(test_lookups),
		cmocka_unit_test(test_gpus),
		cmocka_unit_test(test_ports),
		cmocka_unit_test(test_judge),
		cmocka_unit_test(test_scan_self),
	};

	return cmocka_run_group_tests_name("open_devices", tests, setup, teardown);
}

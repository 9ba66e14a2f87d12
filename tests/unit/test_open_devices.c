/* SPDX-License-Identifier: BSD-3-Clause */
/* test_open_devices.c - the devices a process holds open
 * (sysread/open_devices.c): against a fake proc/ and sys/ tree written
 * here, laid out as the kernel and the NVIDIA driver lay theirs out
 * (the descriptors' files real device nodes of the tree, made as root:
 * a device is its number), and against this process's own descriptors. */
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
#include <signal.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <cmocka.h>

#include "sysread/open_devices.h"
#include "common/text.h"

static char root[] = "/tmp/np-devtree-XXXXXX";
/* device nodes can be made (root): the descriptors' files are real ones */
static bool nodes;

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
	} else {
		snprintf(t, sizeof(t), "%s", target);
	}
	assert_int_equal(symlink(t, path), 0);
}

/* a character device node rel of the tree, maj:min (root only) */
static bool node(const char *rel, unsigned maj, unsigned min)
{
	char path[1024], dir[1024];

	snprintf(dir, sizeof(dir), "%s", rel);
	*strrchr(dir, '/') = '\0';
	mkdirs(dir);
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	return mknod(path, S_IFCHR | 0600, makedev(maj, min)) == 0;
}

/* sysfs's entry of device maj:min: /sys/dev/char/MAJ:MIN, a link into
 * the device's directory (dir, in the tree), whose uevent says its node
 * below /dev, as the kernel's does */
static void sysdev(unsigned maj, unsigned min, const char *dir, const char *devname)
{
	char rel[256], text[256], target[256];

	snprintf(rel, sizeof(rel), "%s/uevent", dir);
	snprintf(text, sizeof(text), "MAJOR=%u\nMINOR=%u\nDEVNAME=%s\n", maj, min, devname);
	put(rel, text);
	snprintf(rel, sizeof(rel), "sys/dev/char/%u:%u", maj, min);
	snprintf(target, sizeof(target), "@%s", dir);
	link_to(rel, target);
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(root))
		return -1;
	/* the devices, by number: uverbs 231:192+, DRM 226, the NVIDIA
	 * driver's 195 (/proc/devices), kfd and cxi some dynamic major */
	put("proc/devices", "Character devices:\n  1 mem\n195 nvidia\n231 infiniband_verbs\n240 kfd\n241 cxi\n"
	                    "\nBlock devices:\n  8 sd\n");
	sysdev(231, 192, "sys/class/infiniband_verbs/uverbs0", "infiniband/uverbs0");
	sysdev(231, 193, "sys/class/infiniband_verbs/uverbs1", "infiniband/uverbs1");
	sysdev(231, 199, "sys/class/infiniband_verbs/uverbs7", "infiniband/uverbs7");
	sysdev(226, 129, "sys/devices/pci0000:80/0000:87:00.0/virtio3/drm/renderD129", "dri/renderD129");
	sysdev(226, 1, "sys/devices/pci0000:80/0000:87:00.0/virtio3/drm/card1", "dri/card1");
	sysdev(240, 0, "sys/devices/virtual/kfd/kfd", "kfd");
	sysdev(241, 0, "sys/devices/pci0000:00/0000:41:00.0/cxi/cxi0", "cxi0");
	/* a device whose node sysfs says is out of /dev: no name taken */
	sysdev(243, 0, "sys/devices/virtual/x/x", "../etc/passwd");
	/* sysfs: two adapters on two PCI functions */
	put("sys/class/infiniband_verbs/uverbs0/ibdev", "mlx5_0\n");
	put("sys/class/infiniband_verbs/uverbs1/ibdev", "mlx5_1\n");
	mkdirs("sys/devices/pci0000:00/0000:3b:00.0");
	mkdirs("sys/devices/pci0000:80/0000:86:00.0");
	link_to("sys/class/infiniband/mlx5_0/device", "@sys/devices/pci0000:00/0000:3b:00.0");
	link_to("sys/class/infiniband/mlx5_1/device", "@sys/devices/pci0000:80/0000:86:00.0");
	/* a virtio GPU: its DRM device below virtio3, below the function */
	link_to("sys/class/drm/renderD129/device", "@sys/devices/pci0000:80/0000:87:00.0/virtio3");
	link_to("sys/class/drm/card1/device", "@sys/devices/pci0000:80/0000:87:00.0/virtio3");
	mkdirs("sys/devices/pci0000:00/0000:00:02.0");
	link_to("sys/class/drm/renderD128/device", "@sys/devices/pci0000:00/0000:00:02.0");
	/* two AMD GPUs, listed out of bus order, and a bochs display */
	put("sys/devices/pci0000:00/0000:05:00.0/vendor", "0x1002\n");
	put("sys/devices/pci0000:c0/0000:c1:00.0/vendor", "0x1002\n");
	put("sys/devices/pci0000:00/0000:00:02.0/vendor", "0x1234\n");
	link_to("sys/class/drm/renderD131/device", "@sys/devices/pci0000:00/0000:05:00.0");
	link_to("sys/class/drm/renderD130/device", "@sys/devices/pci0000:c0/0000:c1:00.0");
	mkdirs("sys/devices/pci0000:00/0000:41:00.0");
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
	/* the device files the processes hold: each its number */
	nodes = geteuid() == 0 && node("dev/infiniband/uverbs1", 231, 193) && node("dev/dri/renderD129", 226, 129) &&
	        node("dev/nvidia1", 195, 1) && node("dev/kfd", 240, 0) && node("dev/cxi0", 241, 0) &&
	        node("dev/mlx-again", 231, 193) && node("dev/nvidiactl", 195, 255) && node("dev/dri/card1", 226, 1) &&
	        node("home/u/dev/infiniband/uverbs0", 231, 192) && node("dev/infiniband/rdma_cm", 242, 0) &&
	        node("dev/infiniband/uverbs7", 231, 199) && node("dev/passwd", 243, 0) &&
	        node("rebound/nvidia0", 195, 1) && node("rebound/renderD128", 226, 129);
	put("dev/infiniband/uverbs2", "a regular file named as an adapter\n");
	/* process 100's descriptors: the kernel's links lead to the file */
	link_to("proc/100/fd/0", "/dev/null");
	link_to("proc/100/fd/2", "@dev/infiniband/uverbs7");   /* sysfs names no adapter */
	link_to("proc/100/fd/3", "@dev/infiniband/uverbs1");
	link_to("proc/100/fd/4", "@dev/dri/renderD129");
	link_to("proc/100/fd/5", "@dev/nvidia1");
	link_to("proc/100/fd/6", "@dev/kfd");
	link_to("proc/100/fd/7", "@dev/cxi0");
	link_to("proc/100/fd/9", "@dev/mlx-again");             /* the same adapter again */
	link_to("proc/100/fd/10", "@dev/nvidiactl");            /* no GPU of its own */
	link_to("proc/100/fd/11", "@dev/dri/card1");
	link_to("proc/100/fd/12", "@home/u/dev/infiniband/uverbs0");
	link_to("proc/100/fd/13", "@dev/gone");                 /* its file cannot be looked at */
	link_to("proc/100/fd/14", "@dev/infiniband/rdma_cm");   /* sysfs knows no such device */
	link_to("proc/100/fd/15", "@dev/infiniband/uverbs2");   /* no device */
	link_to("proc/100/fd/16", "@dev/passwd");
	mkdirs("proc/101/fd");
	/* process 103, in a namespace where GPU 1's node is named nvidia0
	 * and the virtio GPU's renderD128 */
	link_to("proc/103/fd/3", "@rebound/nvidia0");
	link_to("proc/103/fd/4", "@rebound/renderD128");
	return 0;
}

static int teardown(void **state)
{
	char cmd[256];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

/* One device held by several descriptors: the lowest one, its own link,
 * and the device's number, whatever order readdir gives (the Debian 13
 * root's tmpfs gave a higher one first, and the number was lost with the
 * entry).  The processes' fd directories are on a tmpfs (/dev/shm),
 * whose readdir gives the newest name first: process 1 made fd 3 last,
 * process 2 first, so each order is met.  (An ext4 directory's order is
 * a hash of the names, the same for both.) */
static void test_scan_twice(void **state)
{
	char shm[] = "/dev/shm/np-twice-XXXXXX", path[1024], target[1024], want[600], cmd[700];
	np_devopen_t *v;
	size_t n;
	unsigned unread = 9;
	np_error_t err = { 0 };

	(void)state;
	if (!nodes || !mkdtemp(shm)) {
		print_message("# not root, or no /dev/shm: not checked\n");
		return;
	}
	snprintf(target, sizeof(target), "%s/dev/infiniband/uverbs1", root);
	for (int p = 1; p <= 2; p++) {
		snprintf(path, sizeof(path), "%s/%d", shm, p);
		assert_int_equal(mkdir(path, 0755), 0);
		snprintf(path, sizeof(path), "%s/%d/fd", shm, p);
		assert_int_equal(mkdir(path, 0755), 0);
		for (int k = p == 1 ? 9 : 3; k <= 12; k = k == 3 ? 9 : k + 1) {
			snprintf(path, sizeof(path), "%s/%d/fd/%d", shm, p, k);
			assert_int_equal(symlink(target, path), 0);
		}
		if (p == 1) {
			snprintf(path, sizeof(path), "%s/1/fd/3", shm);
			assert_int_equal(symlink(target, path), 0);
		}
	}
	snprintf(want, sizeof(want), "%s/dev/infiniband/uverbs1", root);
	for (int p = 1; p <= 2; p++) {
		char pid[16];
		snprintf(pid, sizeof(pid), "%d", p);
		assert_int_equal(np_devopen_scan(shm, root, pid, &v, &n, &unread, &err), 0);
		assert_int_equal(n, 1);
		assert_int_equal(unread, 0);
		assert_int_equal(v[0].fd, 3);
		assert_string_equal(v[0].name, "mlx5_1");
		assert_string_equal(v[0].file, want);
		assert_int_equal(v[0].major, 231);
		assert_int_equal(v[0].minor, 193);
		free(v);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", shm);
	assert_int_equal(system(cmd), 0);
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
	char proc[600], want[600];
	np_devopen_t *v;
	size_t n;
	unsigned unread = 9;
	np_error_t err = { 0 };

	(void)state;
	snprintf(proc, sizeof(proc), "%s/proc", root);
	/* a process holding nothing; one that is gone */
	assert_int_equal(np_devopen_scan(proc, root, "101", &v, &n, &unread, &err), 0);
	assert_int_equal(n, 0);
	assert_int_equal(unread, 0);
	free(v);
	assert_int_equal(np_devopen_scan(proc, root, "102", &v, &n, &unread, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "process 102"));
	/* (not root: no device node could be made, as test_health's port
	 * states are checked only as root) */
	if (!nodes) {
		print_message("# not root: the device nodes of the tree were not made, their scan not checked\n");
		return;
	}
	assert_int_equal(np_devopen_scan(proc, root, "100", &v, &n, &unread, &err), 0);
	/* by descriptor: 2 (uverbs7, no adapter name), 3, 4, 5, 6, 7, 11, 12;
	 * fd 9 is fd 3's device again, 0/10/14/15/16 no adapter or GPU, 13
	 * not looked at */
	assert_int_equal(n, 8);
	assert_int_equal(unread, 1);
	assert_int_equal(v[0].fd, 2);
	assert_int_equal(v[0].kind, NP_DEVK_RDMA);
	assert_string_equal(v[0].name, "uverbs7");
	assert_string_equal(v[0].pci, "");
	assert_int_equal(v[1].fd, 3);
	assert_string_equal(v[1].name, "mlx5_1");
	assert_string_equal(v[1].pci, "0000:86:00.0");
	assert_int_equal(v[1].major, 231);
	assert_int_equal(v[1].minor, 193);
	/* the link's text, shown as it is */
	snprintf(want, sizeof(want), "%s/dev/infiniband/uverbs1", root);
	assert_string_equal(v[1].file, want);
	assert_int_equal(v[2].kind, NP_DEVK_DRM);
	assert_string_equal(v[2].name, "renderD129");
	assert_string_equal(v[2].pci, "0000:87:00.0");
	assert_int_equal(v[3].kind, NP_DEVK_NVIDIA);
	assert_string_equal(v[3].name, "nvidia1");
	assert_string_equal(v[3].pci, "0000:af:00.0");
	assert_null(v[3].note);
	assert_int_equal(v[4].kind, NP_DEVK_KFD);
	assert_string_equal(v[4].pci, "");
	assert_int_equal(v[5].kind, NP_DEVK_CXI);
	assert_string_equal(v[5].name, "cxi0");
	assert_string_equal(v[5].pci, "0000:41:00.0");
	assert_int_equal(v[6].fd, 11);
	assert_string_equal(v[6].name, "card1");
	assert_string_equal(v[6].pci, "0000:87:00.0");
	/* a path no /dev would have, the device uverbs0 all the same */
	assert_int_equal(v[7].fd, 12);
	assert_int_equal(v[7].kind, NP_DEVK_RDMA);
	assert_string_equal(v[7].name, "mlx5_0");
	assert_string_equal(v[7].pci, "0000:3b:00.0");
	free(v);
}

/* A device is its number, whatever its name: a user namespace that
 * mounts GPU 1's node as /dev/nvidia0 holds GPU 1. */
static void test_scan_rebound(void **state)
{
	char proc[600];
	np_devopen_t *v;
	size_t n;
	unsigned unread = 9;
	np_error_t err = { 0 };

	(void)state;
	if (!nodes) {
		print_message("# not root: no device node, no scan\n");
		return;
	}
	snprintf(proc, sizeof(proc), "%s/proc", root);
	assert_int_equal(np_devopen_scan(proc, root, "103", &v, &n, &unread, &err), 0);
	assert_int_equal(n, 2);
	assert_int_equal(unread, 0);
	/* 195:1: the driver's minor 1, "Device Minor: 1" of 0000:af:00.0 */
	assert_int_equal(v[0].kind, NP_DEVK_NVIDIA);
	assert_string_equal(v[0].name, "nvidia1");
	assert_string_equal(v[0].pci, "0000:af:00.0");
	assert_non_null(strstr(v[0].file, "/rebound/nvidia0"));
	/* 226:129, sysfs's renderD129, on the virtio GPU's function */
	assert_string_equal(v[1].name, "renderD129");
	assert_string_equal(v[1].pci, "0000:87:00.0");
	free(v);
}

/* The H200's own information file, as captured: its node is the
 * driver's minor 0, named anything. */
static void test_scan_h200(void **state)
{
	char h200[] = "/tmp/np-h200-XXXXXX", path[1024], proc[600], cmd[700], *text;
	np_devopen_t *v;
	size_t n;
	unsigned unread = 9;
	np_error_t err = { 0 };
	FILE *f;

	(void)state;
	if (!nodes) {
		print_message("# not root: no device node, no scan\n");
		return;
	}
	assert_non_null(mkdtemp(h200));
	text = np_read_file(NP_NVDATA "/h200-information", NULL, NULL);
	assert_non_null(text);
	snprintf(path, sizeof(path), "mkdir -p '%s/proc/driver/nvidia/gpus/0000:00:06.0' '%s/proc/7/fd' '%s/dev'",
	         h200, h200, h200);
	assert_int_equal(system(path), 0);
	snprintf(path, sizeof(path), "%s/proc/driver/nvidia/gpus/0000:00:06.0/information", h200);
	assert_non_null(f = fopen(path, "w"));
	fputs(text, f);
	fclose(f);
	free(text);
	snprintf(path, sizeof(path), "%s/proc/devices", h200);
	assert_non_null(f = fopen(path, "w"));
	fputs("Character devices:\n  1 mem\n195 nvidia\n238 nvidia-uvm\n\nBlock devices:\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/dev/nvidia3", h200);
	assert_int_equal(mknod(path, S_IFCHR | 0600, makedev(195, 0)), 0);
	snprintf(proc, sizeof(proc), "%s/proc/7/fd/4", h200);
	assert_int_equal(symlink(path, proc), 0);
	snprintf(path, sizeof(path), "%s/dev/nvidia-uvm", h200);
	assert_int_equal(mknod(path, S_IFCHR | 0600, makedev(238, 0)), 0);
	snprintf(proc, sizeof(proc), "%s/proc/7/fd/5", h200);
	assert_int_equal(symlink(path, proc), 0);
	snprintf(proc, sizeof(proc), "%s/proc", h200);
	assert_int_equal(np_devopen_scan(proc, h200, "7", &v, &n, &unread, &err), 0);
	/* nvidia-uvm is no GPU */
	assert_int_equal(n, 1);
	assert_string_equal(v[0].name, "nvidia0");
	assert_string_equal(v[0].pci, "0000:00:06.0");
	free(v);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", h200);
	assert_int_equal(system(cmd), 0);
}

static void on_alarm(int sig)
{
	(void)sig;
	/* only async-signal-safe calls here */
	static const char msg[] = "a driver file held the reader: it hung\n";
	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(3);
	_exit(2);
}

/* A driver information file that is a FIFO, a symbolic link or too long
 * is not read: nothing hangs, the GPU it would name is not named, and
 * the GPU held is said to lack its bus id for that reason. */
static void test_driver_files(void **state)
{
	char fifo[1024], link[1024], big[1024], proc[600], buf[64];
	np_devopen_t *v;
	np_devgpu_t *g;
	size_t n;
	unsigned unread;
	np_error_t err = { 0 };
	FILE *f;

	(void)state;
	mkdirs("proc/driver/nvidia/gpus/0000:c1:00.0");
	snprintf(fifo, sizeof(fifo), "%s/proc/driver/nvidia/gpus/0000:c1:00.0/information", root);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	signal(SIGALRM, on_alarm);
	alarm(30);
	/* minor 2 would be the FIFO's GPU: not read, and said so */
	assert_int_equal(np_devopen_nvidia_pci(root, 2, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(np_devopen_nvidia_pci(root, 1, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "0000:af:00.0");
	assert_int_equal(np_devopen_gpus(root, NP_DEVK_NVIDIA, 0x10de, &g, &n, &err), 0);
	assert_int_equal(n, 2);
	free(g);
	if (nodes) {
		assert_true(node("dev/nvidia2", 195, 2));
		link_to("proc/104/fd/3", "@dev/nvidia2");
		snprintf(proc, sizeof(proc), "%s/proc", root);
		assert_int_equal(np_devopen_scan(proc, root, "104", &v, &n, &unread, &err), 0);
		assert_int_equal(n, 1);
		assert_string_equal(v[0].name, "nvidia2");
		assert_string_equal(v[0].pci, "");
		assert_non_null(v[0].note);
		assert_non_null(strstr(v[0].note, "not a regular file"));
		free(v);
	}
	alarm(0);
	assert_int_equal(unlink(fifo), 0);
	/* a link to a file that says minor 2: not followed */
	snprintf(big, sizeof(big), "%s/minor2", root);
	assert_non_null(f = fopen(big, "w"));
	fputs("Device Minor: \t 2\n", f);
	fclose(f);
	assert_int_equal(symlink(big, fifo), 0);
	assert_int_equal(np_devopen_nvidia_pci(root, 2, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(unlink(fifo), 0);
	/* "Device Minor" past 16 KiB of text: not read */
	assert_non_null(f = fopen(fifo, "w"));
	for (int i = 0; i < 1000; i++)
		fputs("Model:           a long line of a driver file\n", f);
	fputs("Device Minor: \t 2\n", f);
	fclose(f);
	assert_int_equal(np_devopen_nvidia_pci(root, 2, buf, sizeof(buf)), -ENOENT);
	/* the same file, short: read */
	assert_non_null(f = fopen(fifo, "w"));
	fputs("Device Minor: \t 2\n", f);
	fclose(f);
	assert_int_equal(np_devopen_nvidia_pci(root, 2, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "0000:c1:00.0");
	snprintf(link, sizeof(link), "%s/proc/driver/nvidia/gpus/0000:c1:00.0", root);
	assert_int_equal(unlink(fifo), 0);
	assert_int_equal(rmdir(link), 0);
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
	/* some descriptors not read: what was seen proves no match, a
	 * deviation it does */
	assert_string_equal(np_devopen_judge("mlx5_0", "mlx5_0", 1), "unreadable");
	assert_string_equal(np_devopen_judge("mlx5_0", "mlx5_1", 1), "mismatch");
	assert_string_equal(np_devopen_judge("mlx5_0", "mlx5_0,mlx5_1", 1), "extra");
	/* a name is whole: mlx5_1 is not mlx5_10 */
	assert_string_equal(np_devopen_judge("mlx5_10", "mlx5_1", 0), "mismatch");
}

/* This process, live: /dev/null and a pipe are no adapter or GPU. */
static void test_scan_self(void **state)
{
	np_devopen_t *v;
	size_t n, before;
	unsigned unread = 9;
	np_error_t err = { 0 };
	int fd = open("/dev/null", O_RDONLY), p[2];

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(pipe(p), 0);
	assert_int_equal(np_devopen_scan("/proc", "", "self", &v, &n, &unread, &err), 0);
	assert_int_equal(unread, 0);
	before = n;
	for (size_t i = 0; i < n; i++)
		assert_true(v[i].fd != fd && v[i].fd != p[0] && v[i].fd != p[1]);
	free(v);
	/* and by number, as audit names another process */
	{
		char pid[32];
		snprintf(pid, sizeof(pid), "%ld", (long)getpid());
		assert_int_equal(np_devopen_scan("/proc", "", pid, &v, &n, &unread, &err), 0);
		assert_int_equal(n, before);
		free(v);
	}
	close(fd);
	close(p[0]);
	close(p[1]);
}

/* A GPU of a driver tree named by its UUID, as CUDA_VISIBLE_DEVICES may:
 * the H200's captured information file ("GPU UUID", "Bus Location" and
 * "Device Minor" as the driver wrote them), and a second GPU whose file
 * is the same with another minor, bus id and a UUID sharing its first
 * 8 hex digits, so that a short prefix names both. */
static void test_nvidia_uuid(void **state)
{
	char tree[] = "/tmp/np-uuid-XXXXXX", path[1024], cmd[700], busid[32], *text, *other, *p;
	long minor = -1;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(tree));
	text = np_read_file(NP_NVDATA "/h200-information", NULL, NULL);
	assert_non_null(text);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/proc/driver/nvidia/gpus/0000:00:06.0' "
	         "'%s/proc/driver/nvidia/gpus/0000:AF:00.0'", tree, tree);
	assert_int_equal(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/proc/driver/nvidia/gpus/0000:00:06.0/information", tree);
	assert_non_null(f = fopen(path, "w"));
	fputs(text, f);
	fclose(f);
	/* the second GPU: minor 1, UUID GPU-2f5255ea-0000-... */
	other = strdup(text);
	assert_non_null(other);
	assert_non_null(p = strstr(other, "GPU-2f5255ea-7ffa"));
	memcpy(p + 13, "0000", 4);
	assert_non_null(p = strstr(other, "Device Minor:"));
	p[strcspn(p, "0123456789")] = '1';
	snprintf(path, sizeof(path), "%s/proc/driver/nvidia/gpus/0000:AF:00.0/information", tree);
	assert_non_null(f = fopen(path, "w"));
	fputs(other, f);
	fclose(f);

	/* the whole UUID, in either case: the H200 at 0000:00:06.0, minor 0 */
	assert_int_equal(np_devopen_nvidia_uuid(tree, "GPU-2f5255ea-7ffa-c868-d750-837ad136ffc5", busid, sizeof(busid),
	                                        &minor), 0);
	assert_string_equal(busid, "0000:00:06.0");
	assert_int_equal(minor, 0);
	assert_int_equal(np_devopen_nvidia_uuid(tree, "GPU-2F5255EA-7FFA-C868-D750-837AD136FFC5", busid, sizeof(busid),
	                                        &minor), 0);
	assert_int_equal(minor, 0);
	/* a prefix that names one GPU (CUDA's rule) */
	assert_int_equal(np_devopen_nvidia_uuid(tree, "GPU-2f5255ea-0", busid, sizeof(busid), &minor), 0);
	assert_string_equal(busid, "0000:af:00.0");
	assert_int_equal(minor, 1);
	/* one that names both, none, or nothing at all */
	assert_int_equal(np_devopen_nvidia_uuid(tree, "GPU-2f5255ea", busid, sizeof(busid), &minor), -EEXIST);
	assert_int_equal(np_devopen_nvidia_uuid(tree, "GPU-ffff", busid, sizeof(busid), &minor), -ENOENT);
	assert_int_equal(np_devopen_nvidia_uuid(tree, "GPU-", busid, sizeof(busid), &minor), -ENOENT);
	free(text);
	free(other);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tree);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_scan_tree),
		cmocka_unit_test(test_scan_rebound),
		cmocka_unit_test(test_scan_twice),
		cmocka_unit_test(test_scan_h200),
		cmocka_unit_test(test_nvidia_uuid),
		cmocka_unit_test(test_driver_files),
		cmocka_unit_test(test_lookups),
		cmocka_unit_test(test_gpus),
		cmocka_unit_test(test_ports),
		cmocka_unit_test(test_judge),
		cmocka_unit_test(test_scan_self),
	};

	return cmocka_run_group_tests_name("open_devices", tests, setup, teardown);
}

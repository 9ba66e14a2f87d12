/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_errors.c - error paths that only a broken system call reaches, each
 * with the code and message it must give: the topology file's fstat()
 * failing, and this process's affinity not being readable (a seccomp
 * filter makes sched_getaffinity fail in a child process).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "plan_helpers.h"

/* NP_LOAD_XML_FD with a descriptor that is not open: fstat() fails, and
 * the load says so with fstat's own code, naming the file. */
static void test_xml_fd_fstat_fails(void **state)
{
	np_load_opts_t lo = { .xml_path = "node.xml", .xml_fd = -1, .flags = NP_LOAD_XML_FD };
	np_error_t err = { 0 };
	np_topo_t *t = (np_topo_t *)&lo;
	int fd = dup(0);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	lo.xml_fd = fd;         /* closed: EBADF */
	assert_int_equal(np_topo_load(&t, &lo, &err), -EBADF);
	assert_null(t);
	assert_int_equal(err.code, -EBADF);
	assert_string_equal(err.msg, "cannot read topology file 'node.xml': Bad file descriptor");
}

/* In this (child) process, sched_getaffinity fails with err. */
static void forbid_getaffinity(int err)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_sched_getaffinity, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (unsigned)err),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
		_exit(99);
}

/* NP_LOAD_USE_AFFINITY when the affinity cannot be read: the kernel's
 * code, not a guess from a stale errno, and its reason in the message. */
static void test_affinity_unreadable(void **state)
{
	int fds[2], status;
	char msg[NP_ERRMSG_MAX + 16] = "";
	ssize_t n;
	pid_t pid;

	(void)state;
#if !defined(__x86_64__)
	skip();
#endif
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		np_load_opts_t lo = { .xml_path = topo_path(EPYC7551), .flags = NP_LOAD_USE_AFFINITY };
		np_error_t err = { 0 };
		np_topo_t *t = NULL;
		int rc;

		close(fds[0]);
		forbid_getaffinity(EACCES);
		rc = np_topo_load(&t, &lo, &err);
		dprintf(fds[1], "%d %s", rc, err.msg);
		_exit(0);
	}
	close(fds[1]);
	n = read(fds[0], msg, sizeof(msg) - 1);
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_not_equal(WEXITSTATUS(status), 99);     /* the filter went in */
	assert_true(n > 0);
	msg[n] = '\0';
	/* EACCES: a code sched_getaffinity never gives on its own, and none a
	 * failed allocation would leave in errno */
	assert_string_equal(msg, "-13 cannot read this process's CPU affinity: "
	                    "sched_getaffinity: Permission denied");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xml_fd_fstat_fails),
		cmocka_unit_test(test_affinity_unreadable),
	};

	return cmocka_run_group_tests_name("errors", tests, NULL, NULL);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * exec.c - run one of Slurm's commands without a shell, standard
 * output and standard error read apart (sbatch's job id is on the one,
 * its warnings on the other), with a time limit.
 */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "slurmcmd/slurmcmd.h"
#include "common/clock.h"
#include "common/text.h"

void np_slurm_out_free(np_slurm_out_t *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
}

static void append(np_sb_t *b, int fd, bool *open)
{
	char buf[4096];
	ssize_t k = read(fd, buf, sizeof(buf));

	if (k < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (k <= 0) {
		*open = false;
		return;
	}
	np_sb_addn(b, buf, (size_t)k);
}

int np_slurm_exec(const char *const *argv, unsigned timeout_s, np_slurm_out_t *r, np_error_t *err)
{
	int po[2] = { -1, -1 }, pe[2] = { -1, -1 }, ws = 0, rc = 0;
	bool oo = true, eo = true, killed = false;
	long deadline = timeout_s ? (long)np_clock_ms() + timeout_s * 1000L : 0;
	np_sb_t bo, be;
	pid_t pid;

	r->out = r->err = NULL;
	r->status = -1;
	if (pipe2(po, O_CLOEXEC) < 0 || pipe2(pe, O_CLOEXEC) < 0) {
		rc = np_error_set(err, -errno, "cannot run %s: %s", argv[0], strerror(errno));
		goto close;
	}
	if ((pid = fork()) < 0) {
		rc = np_error_set(err, -errno, "cannot run %s: %s", argv[0], strerror(errno));
		goto close;
	}
	if (pid == 0) {
		int dn = open("/dev/null", O_RDONLY);
		if (dn >= 0)
			dup2(dn, STDIN_FILENO);
		dup2(po[1], STDOUT_FILENO);
		dup2(pe[1], STDERR_FILENO);
		/* Ctrl-C reaches the whole foreground group: sbatch killed between
		 * submitting and printing the id would leave a job nobody tracks;
		 * numaplan itself decides, and cancels what it submitted */
		signal(SIGINT, SIG_IGN);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	po[1] = pe[1] = -1;
	np_sb_init(&bo);
	np_sb_init(&be);
	np_sb_add(&bo, "");
	np_sb_add(&be, "");
	while (oo || eo) {
		struct pollfd p[2] = { { oo ? po[0] : -1, POLLIN, 0 }, { eo ? pe[0] : -1, POLLIN, 0 } };
		int wait = 1000;
		if (deadline) {
			long left = deadline - (long)np_clock_ms();
			if (left <= 0) {
				kill(pid, SIGKILL);
				killed = true;
				break;
			}
			wait = left < wait ? (int)left : wait;
		}
		if (poll(p, 2, wait) < 0 && errno != EINTR)
			break;
		if (oo && (p[0].revents & (POLLIN | POLLHUP | POLLERR)))
			append(&bo, po[0], &oo);
		if (eo && (p[1].revents & (POLLIN | POLLHUP | POLLERR)))
			append(&be, pe[0], &eo);
	}
	while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
		;
	r->out = np_sb_take(&bo);
	r->err = np_sb_take(&be);
	if (!r->out || !r->err) {
		np_slurm_out_free(r);
		rc = np_error_set(err, -ENOMEM, "out of memory");
		goto close;
	}
	if (!killed && WIFEXITED(ws))
		r->status = WEXITSTATUS(ws);
	if (r->status == 127 && !*r->out) {
		np_slurm_out_free(r);
		rc = np_error_set(err, -ENOENT, "%s not found in PATH", argv[0]);
	} else if (killed) {
		np_slurm_out_free(r);
		rc = np_error_set(err, -ETIMEDOUT, "%s did not answer within %u s (is the Slurm controller up?)",
		                  argv[0], timeout_s);
	}
close:
	for (int i = 0; i < 2; i++) {
		if (po[i] >= 0)
			close(po[i]);
		if (pe[i] >= 0)
			close(pe[i]);
	}
	return rc;
}

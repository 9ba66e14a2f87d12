/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * run_local.c - run the job script here: --local (mpiexec.mpich and
 * numactl on this machine) and --inline (srun steps of the allocation
 * this command runs in).  The script prints one line per finished step.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run/run.h"
#include "bench_util.h"
#include "common/which.h"

static int need(const char *prog, const char *why, np_error_t *err)
{
	char *p = np_which(prog);

	if (p) {
		free(p);
		return 0;
	}
	return np_error_set(err, -ENOENT, "%s not found in PATH (%s)", prog, why);
}

int np_run_local(np_run_ctx_t *c, const char *script, np_error_t *err)
{
	const np_run_opts_t *o = c->opts;
	unsigned i;
	bool mpi = false, numactl = false;
	pid_t pid;
	int st, rc;

	for (i = 0; i < c->exps.n; i++) {
		mpi |= c->exps.v[i]->mpi;
		numactl |= !c->exps.v[i]->mpi && (c->exps.v[i]->nrank_cpus || c->exps.v[i]->mems);
	}
	if (o->mode == NP_MODE_INLINE) {
		if (!getenv("SLURM_JOB_ID"))
			return np_error_set(err, -EINVAL, "--inline runs inside an allocation (salloc or sbatch), "
			                    "but SLURM_JOB_ID is not set; use --local or submit with sbatch");
		if ((rc = need("srun", "--inline runs srun steps", err)) < 0)
			return rc;
	} else {
		if (mpi && (rc = need("mpiexec.mpich", "--local runs MPI kernels with MPICH: apt-get install mpich", err)) < 0)
			return rc;
		if (numactl && (rc = need("numactl", "apt-get install numactl", err)) < 0)
			return rc;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return np_error_set(err, -errno, "fork: %s", strerror(errno));
	if (pid == 0) {
		if (o->quiet) {
			FILE *f = freopen("/dev/null", "w", stdout);
			(void)f;
		}
		execlp("bash", "bash", script, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return np_error_set(err, -errno, "waitpid: %s", strerror(errno));
	if (WIFSIGNALED(st))
		return np_error_set(err, -ECANCELED, "the job script was stopped by signal %d; partial results follow",
		                    WTERMSIG(st));
	if (WEXITSTATUS(st) == 127)
		return np_error_set(err, -EIO, "could not run bash %s", script);
	return 0;
}

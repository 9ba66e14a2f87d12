/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * query.c - the questions numaplan asks Slurm, each one command
 * about numaplan's own job or the nodes: sinfo, sbatch, scontrol show
 * job/step ID, scancel, sbatch --version.
 *
 * Queries have a time limit: a controller that does not answer must not
 * hang the run that follows a job.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "slurmcmd/slurmcmd.h"
#include "common/text.h"
#include "common/which.h"

#define QUERY_TIMEOUT_S 30

/* Slurm's message on a line of its own, trailing newlines cut. */
static const char *trimmed(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' '))
		s[--n] = '\0';
	return s;
}

/* sinfo with argv: 0 with its output in *r (free it in any case), or an
 * error when it could not run or said no. */
static int sinfo(const char *const *argv, np_slurm_out_t *r, np_error_t *err)
{
	int rc;

	memset(r, 0, sizeof(*r));
	if ((rc = np_slurm_exec(argv, QUERY_TIMEOUT_S, r, err)) < 0)
		return rc;
	if (r->status != 0)
		return np_error_set(err, -EIO, "sinfo could not list the nodes (is the controller up?): %s",
		                    *r->err ? trimmed(r->err) : "no message");
	return 0;
}

int np_slurm_nodes(const char *partition, np_slurm_node_t **nodes, unsigned *n, np_error_t *err)
{
	const char *argv[] = { "sinfo", "-h", "-N", "-o", "%N %t %P", partition ? "-p" : NULL, partition, NULL };
	np_slurm_out_t r;
	int rc;

	*nodes = NULL;
	*n = 0;
	if ((rc = sinfo(argv, &r, err)) == 0)
		rc = np_slurm_parse_nodes(r.out, partition, nodes, n, err);
	np_slurm_out_free(&r);
	return rc;
}

int np_slurm_lost_nodes(np_slurm_lost_node_t **nodes, unsigned *n, np_error_t *err)
{
	/* every partition (-a: hidden ones too): a node of the job may be in
	 * a partition the user does not see by default */
	const char *argv[] = { "sinfo", "-a", "-h", "-N", "-o", "%N %t %E", NULL };
	np_slurm_out_t r;
	int rc;

	*nodes = NULL;
	*n = 0;
	if ((rc = sinfo(argv, &r, err)) == 0)
		rc = np_slurm_parse_lost_nodes(r.out, nodes, n, err);
	np_slurm_out_free(&r);
	return rc;
}

int np_slurm_submit(const char *script, const char *const *args, char *id, size_t idlen, char **notes,
                    np_error_t *err)
{
	const char **argv;
	size_t na = 0, i = 0;
	np_slurm_out_t r;
	int rc;

	*notes = NULL;
	id[0] = '\0';
	while (args && args[na])
		na++;
	if (!(argv = calloc(na + 4, sizeof(char *))))
		return np_error_set(err, -ENOMEM, "out of memory");
	argv[i++] = "sbatch";
	argv[i++] = "--parsable";
	for (size_t k = 0; k < na; k++)
		argv[i++] = args[k];
	argv[i++] = script;
	/* no time limit: a busy controller may take long to accept a job, and
	 * killing sbatch then could leave a job whose id nobody read */
	rc = np_slurm_exec(argv, 0, &r, err);
	free(argv);
	if (rc < 0)
		return rc;
	if (*trimmed(r.err))
		*notes = strdup(r.err);
	if (r.status != 0)
		rc = np_error_set(err, -EIO, "sbatch failed (exit %d; is the Slurm controller up? SLURM_CONF=%s)%s%s",
		                  r.status, getenv("SLURM_CONF") ? getenv("SLURM_CONF") : "(unset)",
		                  *r.err ? ": " : "", r.err);
	else if (np_slurm_parse_jobid(r.out, id, idlen) < 0)
		rc = np_error_set(err, -EIO, "sbatch exited 0 but printed no job id on its output ('%s'); a job may "
		                  "have been submitted: look for it with squeue --me", trimmed(r.out));
	np_slurm_out_free(&r);
	return rc;
}

int np_slurm_job_of_script(const char *script, char *id, size_t idlen, np_error_t *err)
{
	const char *argv[] = { "squeue", "--me", "-h", "-o", "%F|%o", NULL };
	np_slurm_out_t r;
	int rc;

	if ((rc = np_slurm_exec(argv, QUERY_TIMEOUT_S, &r, err)) < 0)
		return rc;
	if (r.status != 0)
		rc = np_error_set(err, -EIO, "squeue failed: %s", *r.err ? trimmed(r.err) : "no message");
	else if ((rc = np_slurm_parse_job_of_script(r.out, script, id, idlen)) < 0)
		np_error_set(err, rc, rc == -EEXIST ? "several of your jobs run %s" : "none of your jobs runs %s", script);
	np_slurm_out_free(&r);
	return rc;
}

int np_slurm_running(const char *partition, np_slurm_running_t **jobs, unsigned *n, np_error_t *err)
{
	const char *argv[] = { "squeue", "-h", "-t", "RUNNING", "-o", "%A %u %P %D", partition ? "-p" : NULL,
			       partition, NULL };
	np_slurm_out_t r;
	int rc;

	*jobs = NULL;
	*n = 0;
	if ((rc = np_slurm_exec(argv, 60, &r, err)) < 0)
		return rc;
	if (r.status != 0)
		rc = np_error_set(err, -EIO, "squeue failed: %s", *r.err ? trimmed(r.err) : "(no message)");
	else
		rc = np_slurm_parse_running(r.out, jobs, n, err);
	np_slurm_out_free(&r);
	return rc;
}

/* What scontrol said when it knows no such job (ended and purged), or
 * the job has no steps yet ("Job step 123. not found"). */
static bool unknown(const char *what, const np_slurm_out_t *r)
{
	return strstr(r->err, "Invalid job id") || strstr(r->out, "Invalid job id") ||
	       (strcmp(what, "step") == 0 && (strstr(r->out, " not found") || strstr(r->err, " not found")));
}

/* Run `scontrol --json show WHAT ID`, or `scontrol show WHAT -o ID` where
 * scontrol has no --json (Slurm 22.05): 1 with its output and *json
 * saying which, 0 when the controller knows no such job, or an error. */
static int show(const char *what, const char *id, char **out, bool *json, np_error_t *err)
{
	/* --local: without it, each call first asks for the federation's
	 * clusters (REQUEST_FED_INFO, which cost slurmctld twice the job's
	 * own record on the vcluster); numaplan's job is the local cluster's */
	const char *jargv[] = { "scontrol", "--local", "--json", "show", what, id, NULL };
	const char *targv[] = { "scontrol", "--local", "show", what, "-o", id, NULL };
	np_slurm_out_t r;
	int rc;

	*out = NULL;
	*json = true;
	if ((rc = np_slurm_exec(jargv, QUERY_TIMEOUT_S, &r, err)) < 0)
		return rc;
	/* scontrol's option parser refuses --json before it asks anything */
	if (r.status != 0 && strstr(r.err, "unrecognized option")) {
		np_slurm_out_free(&r);
		*json = false;
		if ((rc = np_slurm_exec(targv, QUERY_TIMEOUT_S, &r, err)) < 0)
			return rc;
	}
	if (r.status == 0) {
		*out = r.out;
		free(r.err);
		return 1;
	}
	rc = unknown(what, &r) ? 0
	                       : np_error_set(err, -EIO, "scontrol show %s %s failed: %s", what, id,
	                                      *r.err ? trimmed(r.err) : trimmed(r.out));
	np_slurm_out_free(&r);
	return rc;
}

int np_slurm_job(const char *id, np_slurm_job_t **jobs, unsigned *n, np_error_t *err)
{
	char *out;
	bool json;
	int rc;

	*jobs = NULL;
	*n = 0;
	if ((rc = show("job", id, &out, &json, err)) <= 0)
		return rc;
	rc = json ? np_slurm_parse_jobs_json(out, (long long)time(NULL), jobs, n, err)
	          : np_slurm_parse_jobs(out, jobs, n, err);
	free(out);
	return rc < 0 ? rc : *n > 0;
}

int np_slurm_steps(const char *id, np_slurm_step_t **steps, unsigned *n, np_error_t *err)
{
	char *out;
	bool json;
	int rc;

	*steps = NULL;
	*n = 0;
	if ((rc = show("step", id, &out, &json, err)) <= 0)
		return rc;
	/* a job without steps: "No job steps in the system" (text), an
	 * empty list (JSON) */
	if (json)
		rc = np_slurm_parse_steps_json(out, steps, n, err);
	else
		rc = strstr(out, "StepId=") ? np_slurm_parse_steps(out, steps, n, err) : 0;
	free(out);
	return rc;
}

int np_slurm_cancel(const char *id, np_error_t *err)
{
	const char *argv[] = { "scancel", id, NULL };
	np_slurm_out_t r;
	int rc;

	if ((rc = np_slurm_exec(argv, QUERY_TIMEOUT_S, &r, err)) < 0)
		return rc;
	if (r.status != 0)
		rc = np_error_set(err, -EIO, "scancel %s failed: %s", id, *r.err ? trimmed(r.err) : "no message");
	np_slurm_out_free(&r);
	return rc;
}

bool np_slurm_available(void)
{
	char *p = np_which("sbatch");
	bool ok = p != NULL;

	free(p);
	return ok;
}

char *np_slurm_version(void)
{
	const char *argv[] = { "sbatch", "--version", NULL };
	np_slurm_out_t r;
	char *v = NULL;

	if (np_slurm_exec(argv, 10, &r, NULL) < 0)
		return NULL;
	if (r.status == 0 && *trimmed(r.out))
		v = strndup(r.out, strcspn(r.out, "\n"));
	np_slurm_out_free(&r);
	return v;
}

char *np_slurm_plugin_help(const char *partition)
{
	const char *argv[] = { "srun", "--numa-plan=help", NULL, NULL };
	np_slurm_out_t r;
	char *v = NULL, *pa = NULL;

	if (partition && (pa = malloc(strlen(partition) + 16)) != NULL) {
		sprintf(pa, "--partition=%s", partition);
		argv[1] = pa;
		argv[2] = "--numa-plan=help";
	}
	if (np_slurm_exec(argv, 20, &r, NULL) == 0) {
		/* without the plugin srun knows no --numa-plan and fails */
		if (r.status == 0 && r.out && *r.out)
			v = strdup(r.out);
		np_slurm_out_free(&r);
	}
	free(pa);
	return v;
}

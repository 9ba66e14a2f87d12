/*
 * spank_harness.c - run the plugin's Slurm-independent parts in a plain
 * process, for tests and valgrind (numaplan.so itself only runs inside
 * srun and slurmstepd).
 *
 *   numaplan-spank-harness site ARG...
 *   numaplan-spank-harness request VALUE [ARG...]
 *   numaplan-spank-harness help [ARG...]
 *   numaplan-spank-harness stepcpus [PROC_CGROUP CGROUP_ROOT]
 *   numaplan-spank-harness bind VALUE NTASKS[:RANK,...] TASK [ARG...]
 *   numaplan-spank-harness cores CORELIST [ARG...]
 *   numaplan-spank-harness topology NODE [ARG...]
 *   numaplan-spank-harness cpubind CMDLINE_FILE JOB_ARGC
 *
 * ARG are plugstack.conf arguments; unless they have a cache=, cache=none
 * is added, so that a test does not write the default cache directory.
 * `bind` does what the plugin does for one task, to this process: decide,
 * load, plan for NTASKS local tasks (with these global ranks, else 0, 1,
 * ...) in this process's CPUs, bind as local task TASK, read back, export
 * to its own environment, print the verbose line and NUMAPLAN_*, then
 * restore.  `topology` loads as slurmstepd does on node NODE (the site's
 * XML, the cache, or live and then cached) and says where it came from.
 * `cpubind` says whether srun's command line in CMDLINE_FILE (NUL-separated
 * words, like /proc/PID/cmdline), whose last JOB_ARGC words are the
 * command, has its own --cpu-bind, as srun's plugin decides it.
 * Messages are printed as the plugin prints them (escaped).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/affinity.h"
#include "common/parse.h"
#include "export.h"
#include "node_plan.h"
#include "report.h"
#include "request.h"
#include "site_config.h"
#include "step_cpus.h"
#include "topo_source.h"

/* nps_site_parse, with cache=none added unless an argument says cache= */
static int parse_site(nps_site_t *s, int argc, char **argv, np_error_t *err)
{
	char **v = calloc((size_t)argc + 2, sizeof(char *));
	bool have = false;
	int n = argc, rc;

	if (!v)
		return np_error_set(err, -ENOMEM, "out of memory");
	for (int i = 0; i < argc; i++) {
		v[i] = argv[i];
		have |= argv[i] && !strncmp(argv[i], "cache=", 6);
	}
	if (!have)
		v[n++] = (char *)"cache=none";
	rc = nps_site_parse(s, n, v, err);
	free(v);
	return rc;
}

static void print_escaped(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void print_escaped(FILE *f, const char *fmt, ...)
{
	char out[NPS_MSG_SIZE];
	va_list ap;

	va_start(ap, fmt);
	nps_format_message(out, fmt, ap);
	va_end(ap);
	fprintf(f, "%s\n", out);
}

static int fail(const np_error_t *err)
{
	print_escaped(stderr, "numaplan: %s", err->msg);
	return 1;
}

static int cmd_site(int argc, char **argv)
{
	nps_site_t s;
	np_error_t err = { 0 };
	char *text;

	if (nps_site_parse(&s, argc, argv, &err) < 0)
		return fail(&err);
	text = nps_site_describe(&s);
	fputs(text ? text : "?\n", stdout);
	free(text);
	nps_site_free(&s);
	return 0;
}

static int cmd_help(int argc, char **argv)
{
	nps_site_t s;
	np_error_t err = { 0 };
	char *text;

	if (nps_site_parse(&s, argc, argv, &err) < 0)
		return fail(&err);
	text = nps_help_text(&s);
	fputs(text ? text : "?\n", stdout);
	free(text);
	nps_site_free(&s);
	return 0;
}

/* site + request + check + decide, as srun and slurmstepd do */
static int decide(const char *value, int argc, char **argv, nps_site_t *s,
                  nps_request_t *r, nps_decision_t *d, np_error_t *err)
{
	int rc;

	nps_request_init(r);
	if ((rc = parse_site(s, argc, argv, err)) < 0)
		return rc;
	if ((rc = nps_request_parse(r, value, err)) < 0 ||
	    (rc = nps_request_check(r, value, s, err)) < 0 ||
	    (rc = nps_decide(s, r, value, d, err)) < 0) {
		nps_request_free(r);
		nps_site_free(s);
	}
	return rc;
}

static int cmd_request(const char *value, int argc, char **argv)
{
	nps_site_t s;
	nps_request_t r;
	nps_decision_t d;
	np_error_t err = { 0 };

	if (decide(value, argc, argv, &s, &r, &d, &err) < 0)
		return fail(&err);
	printf("policy=%s verbose=%d threads=%d mem=%s hca=%s help=%d from_user=%d\n",
	       np_policy_name(d.policy), d.verbose, d.threads, np_mem_name(d.mem),
	       d.hca ? d.hca : "", r.help, d.from_user);
	if (d.note[0])
		print_escaped(stdout, "note: %s", d.note);
	nps_request_free(&r);
	nps_site_free(&s);
	return 0;
}

static int cmd_stepcpus(int argc, char **argv)
{
	nps_step_cpus_src_t src = NPS_STEP_CPUS_SRC_DEFAULT;
	np_cpuset_t *cpus = np_cpuset_new();
	np_error_t err = { 0 };
	const char *from = "?";
	char *list;
	int rc;

	if (!cpus)
		return 1;
	if (argc >= 2) {
		src.proc_cgroup = argv[0];
		src.cgroup_root = argv[1];
	}
	if (nps_step_cpus(&src, cpus, &from, &err) < 0) {
		np_cpuset_free(cpus);
		return fail(&err);
	}
	list = np_cpuset_format(cpus);
	printf("%s %s\n", list ? list : "?", from);
	rc = list ? 0 : 1;
	free(list);
	np_cpuset_free(cpus);
	return rc;
}

static int env_isset(void *ctx, const char *name)
{
	(void)ctx;
	return getenv(name) != NULL;
}

static int env_set(void *ctx, const char *name, const char *value)
{
	(void)ctx;
	return setenv(name, value, 1) == 0 ? 0 : -errno;
}

static int bind_one(const np_topo_t *t, np_plan_t *p, unsigned task, const nps_decision_t *d,
                    np_error_t *err)
{
	const np_rank_t *r = &p->ranks[task];
	nps_env_ops_t ops = { env_isset, env_set, NULL };
	np_cpuset_t *saved = NULL;
	np_error_t ignored = { 0 };
	unsigned kept = 0;
	char *line;
	int rc;

	if (!r->bound) {
		printf("task %u: not bound (policy %s)\n", task, np_policy_name(p->policy));
		return 0;
	}
	if (!(saved = np_cpuset_new())) {
		rc = np_error_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = np_bind_get_cpus(saved, err)) < 0)
		goto out;
	if ((rc = np_bind_apply(t, r, err)) < 0 || (rc = np_bind_verify(r, err)) < 0) {
		(void)np_bind_reset(t, saved, &ignored);
		goto out;
	}
	if ((rc = nps_export(&ops, p, r, &kept, err)) < 0)
		goto out;
	line = nps_task_line("harness", task, r->rank, r);
	printf("%s\n", line ? line : "?");
	free(line);
	if ((line = nps_plan_lines("harness", p, d->verbose)))
		fputs(line, stdout);
	free(line);
	printf("NUMAPLAN_POLICY=%s\nNUMAPLAN_CPUS=%s\nNUMAPLAN_MEMS=%s\nNUMAPLAN_HCA=%s\n",
	       getenv("NUMAPLAN_POLICY"), getenv("NUMAPLAN_CPUS"),
	       getenv("NUMAPLAN_MEMS"), getenv("NUMAPLAN_HCA"));
	for (unsigned i = 0; i < r->nenv; i++)
		printf("%s=%s\n", r->env[i].name, getenv(r->env[i].name));
	printf("kept=%u\n", kept);
	rc = np_bind_reset(t, saved, err);
out:
	np_cpuset_free(saved);
	return rc;
}

/* "4" or "2:1,3" (two local tasks, global ranks 1 and 3) */
static int parse_tasks(const char *s, unsigned *ntasks, unsigned **ranks)
{
	char *copy = strdup(s), *colon, *save = NULL, *tok;
	unsigned n = 0;
	int rc = -EINVAL;

	*ranks = NULL;
	if (!copy)
		return -ENOMEM;
	if ((colon = strchr(copy, ':')))
		*colon = '\0';
	if (np_parse_uint(copy, 0, 100000, ntasks) < 0 || *ntasks == 0)
		goto out;
	if (!colon) {
		rc = 0;
		goto out;
	}
	if (!(*ranks = calloc(*ntasks, sizeof(unsigned)))) {
		rc = -ENOMEM;
		goto out;
	}
	for (tok = strtok_r(colon + 1, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (n >= *ntasks || np_parse_uint(tok, 0, 100000, &(*ranks)[n++]) < 0)
			goto out;
	rc = n == *ntasks ? 0 : -EINVAL;
out:
	if (rc < 0) {
		free(*ranks);
		*ranks = NULL;
	}
	free(copy);
	return rc;
}

static int cmd_bind(const char *value, const char *ntasks_s, const char *task_s,
                    int argc, char **argv)
{
	nps_site_t s;
	nps_request_t r;
	nps_decision_t d;
	np_error_t err = { 0 };
	np_topo_t *t = NULL;
	np_plan_t *p = NULL;
	np_cpuset_t *cpus = np_cpuset_new(), *mems = np_cpuset_new();
	nps_step_cpus_src_t src = NPS_STEP_CPUS_SRC_DEFAULT;
	nps_node_in_t in = { .decision = &d };
	nps_topo_info_t info;
	const char *from = "?";
	unsigned ntasks, task, *ranks = NULL;
	int rc = 1;

	if (!cpus || !mems)
		goto nomem;
	if (parse_tasks(ntasks_s, &ntasks, &ranks) < 0 || np_parse_uint(task_s, 0, 100000, &task) < 0 ||
	    task >= ntasks) {
		fprintf(stderr, "numaplan-spank-harness: bad NTASKS '%s' or TASK '%s'\n",
			ntasks_s, task_s);
		goto nomem;
	}
	if (decide(value, argc, argv, &s, &r, &d, &err) < 0) {
		rc = fail(&err);
		goto nomem;
	}
	if (d.note[0])
		printf("note: %s\n", d.note);
	if (d.policy == NP_POLICY_NONE) {
		printf("policy none: nothing to do\n");
		rc = 0;
		goto out;
	}
	if (nps_topology_load(&s, "harness", &t, &info, &err) < 0 ||
	    nps_step_cpus(&src, cpus, &from, &err) < 0) {
		rc = fail(&err);
		goto out;
	}
	in.ntasks = ntasks;
	in.rank_ids = ranks;
	in.cpus_per_task = 1;
	in.step_cpus = cpus;
	in.mems_allowed = np_mems_allowed(mems, NULL) == 0 ? mems : NULL;
	in.no_fallback = s.on_error == NPS_ON_ERROR_FAIL;
	if (nps_node_plan(t, &in, &p, &err) < 0 || bind_one(t, p, task, &d, &err) < 0) {
		rc = fail(&err);
		goto out;
	}
	rc = 0;
out:
	np_plan_free(p);
	np_topo_free(t);
	nps_request_free(&r);
	nps_site_free(&s);
nomem:
	free(ranks);
	np_cpuset_free(cpus);
	np_cpuset_free(mems);
	return rc;
}

/* Slurm's abstract core list -> PUs, with the site's topology */
static int cmd_cores(const char *list, int argc, char **argv)
{
	nps_site_t s;
	np_error_t err = { 0 };
	np_topo_t *t = NULL;
	np_cpuset_t *cpus = np_cpuset_new();
	nps_topo_info_t info;
	char *text = NULL;
	int rc = 1;

	if (!cpus)
		return 1;
	if (parse_site(&s, argc, argv, &err) < 0) {
		np_cpuset_free(cpus);
		return fail(&err);
	}
	if (nps_topology_load(&s, "harness", &t, &info, &err) < 0 ||
	    nps_cores_to_cpus(t, list, cpus, &err) < 0) {
		rc = fail(&err);
	} else if ((text = np_cpuset_format(cpus))) {
		printf("%s\n", text);
		rc = 0;
	}
	free(text);
	np_topo_free(t);
	nps_site_free(&s);
	np_cpuset_free(cpus);
	return rc;
}

static int cmd_topology(const char *node, int argc, char **argv)
{
	nps_site_t s;
	np_error_t err = { 0 };
	np_topo_t *t = NULL;
	nps_topo_info_t info;
	char *all;

	if (parse_site(&s, argc, argv, &err) < 0)
		return fail(&err);
	if (nps_topology_load(&s, node, &t, &info, &err) < 0) {
		nps_site_free(&s);
		return fail(&err);
	}
	all = np_cpuset_format(t->complete);
	/* the source's text carries paths and the checker's reasons */
	print_escaped(stdout, "topology: %s", info.text);
	print_escaped(stdout, "source: %s", t->source);
	printf("cpus: %s\n", all ? all : "?");
	free(all);
	np_topo_free(t);
	nps_site_free(&s);
	return 0;
}

static int cmd_cpubind(const char *file, const char *job_argc)
{
	unsigned n;
	int rc;

	if (np_parse_uint(job_argc, 0, 100000, &n) < 0) {
		fprintf(stderr, "numaplan-spank-harness: bad JOB_ARGC '%s'\n", job_argc);
		return 2;
	}
	if ((rc = nps_srun_cpu_bind_given(file, (int)n)) < 0) {
		fprintf(stderr, "numaplan-spank-harness: %s: %s\n", file, strerror(-rc));
		return 1;
	}
	printf("%s\n", rc ? "given" : "not given");
	return 0;
}

static int usage(void)
{
	fputs("usage: numaplan-spank-harness site ARG...\n"
	      "       numaplan-spank-harness request VALUE [ARG...]\n"
	      "       numaplan-spank-harness help [ARG...]\n"
	      "       numaplan-spank-harness stepcpus [PROC_CGROUP CGROUP_ROOT]\n"
	      "       numaplan-spank-harness bind VALUE NTASKS[:RANK,...] TASK [ARG...]\n"
	      "       numaplan-spank-harness cores CORELIST [ARG...]\n"
	      "       numaplan-spank-harness topology NODE [ARG...]\n"
	      "       numaplan-spank-harness cpubind CMDLINE_FILE JOB_ARGC\n", stderr);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "site"))
		return cmd_site(argc - 2, argv + 2);
	if (!strcmp(argv[1], "help"))
		return cmd_help(argc - 2, argv + 2);
	if (!strcmp(argv[1], "request") && argc >= 3)
		return cmd_request(argv[2], argc - 3, argv + 3);
	if (!strcmp(argv[1], "stepcpus"))
		return cmd_stepcpus(argc - 2, argv + 2);
	if (!strcmp(argv[1], "cores") && argc >= 3)
		return cmd_cores(argv[2], argc - 3, argv + 3);
	if (!strcmp(argv[1], "bind") && argc >= 5)
		return cmd_bind(argv[2], argv[3], argv[4], argc - 5, argv + 5);
	if (!strcmp(argv[1], "topology") && argc >= 3)
		return cmd_topology(argv[2], argc - 3, argv + 3);
	if (!strcmp(argv[1], "cpubind") && argc == 4)
		return cmd_cpubind(argv[2], argv[3]);
	return usage();
}

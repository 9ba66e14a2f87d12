/* SPDX-License-Identifier: BSD-3-Clause */
/* test_sequence.c - the plugin's callback sequence (plugin/sequence.c) with
 * a host that answers as a test says: the paths Slurm and the harness
 * cannot be made to take (a failing setenv, a missing item, a value cut to
 * the buffer), and that nothing happens outside slurmstepd. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "node_plan.h"
#include "report.h"
#include "sequence.h"

#define MAXV 32
#define MAXL 32

typedef struct fake {
	nps_ctx_t ctx;
	int is_step;
	unsigned ntasks;
	int ntasks_rc, rank_rc, name_rc;
	int task;
	const char *cores;
	const char *fail_set;           /* setenv of this name fails */
	char *name[MAXV], *value[MAXV];
	char *logs[MAXL], *said[MAXL];
	unsigned nlogs, nsaid;
	unsigned calls;                 /* env and item calls */
} fake_t;

static int find(fake_t *f, const char *n)
{
	for (int i = 0; i < MAXV; i++)
		if (f->name[i] && !strcmp(f->name[i], n))
			return i;
	return -1;
}

static void put(fake_t *f, const char *n, const char *v)
{
	int i = find(f, n);

	if (i < 0)
		for (i = 0; i < MAXV && f->name[i]; i++)
			;
	assert_true(i < MAXV);
	free(f->name[i]);
	free(f->value[i]);
	f->name[i] = strdup(n);
	f->value[i] = strdup(v);
}

static const char *get(fake_t *f, const char *n)
{
	int i = find(f, n);

	return i < 0 ? NULL : f->value[i];
}

static nps_ctx_t f_context(void *c) { return ((fake_t *)c)->ctx; }
static int f_register(void *c, const char **why) { (void)c; (void)why; return 0; }
static int f_job_argc(void *c, int *argc) { ((fake_t *)c)->calls++; *argc = 0; return -EIO; }
static int f_is_job_step(void *c) { ((fake_t *)c)->calls++; return ((fake_t *)c)->is_step; }

static int f_local_tasks(void *c, unsigned *n)
{
	fake_t *f = c;

	f->calls++;
	*n = f->ntasks;
	return f->ntasks_rc;
}

static int f_cpus_per_task(void *c, unsigned *n) { ((fake_t *)c)->calls++; *n = 1; return 0; }

static int f_global_rank(void *c, unsigned task, unsigned *rank)
{
	fake_t *f = c;

	f->calls++;
	*rank = 10 + task;
	return f->rank_rc;
}

static int f_alloc_cores(void *c, const char **cores)
{
	fake_t *f = c;

	f->calls++;
	*cores = f->cores;
	return f->cores ? 0 : -EIO;
}

static int f_task_id(void *c, int *task) { ((fake_t *)c)->calls++; *task = ((fake_t *)c)->task; return 0; }

static int f_node_name(void *c, char *buf, size_t len)
{
	fake_t *f = c;

	f->calls++;
	if (f->name_rc < 0)
		return f->name_rc;
	snprintf(buf, len, "nT");
	return 0;
}

static int f_getenv(void *c, const char *n, char *buf, size_t len)
{
	fake_t *f = c;
	const char *v = get(f, n);

	f->calls++;
	if (!v)
		return -ENOENT;
	return (size_t)snprintf(buf, len, "%s", v) >= len ? -ENOSPC : 0;
}

static int f_setenv(void *c, const char *n, const char *v)
{
	fake_t *f = c;

	f->calls++;
	if (f->fail_set && !strcmp(n, f->fail_set))
		return -EIO;
	put(f, n, v);
	return 0;
}

static int f_unsetenv(void *c, const char *n)
{
	fake_t *f = c;
	int i = find(f, n);

	f->calls++;
	if (i >= 0) {
		free(f->name[i]);
		free(f->value[i]);
		f->name[i] = f->value[i] = NULL;
	}
	return 0;
}

static void f_log(void *c, nps_log_level_t l, const char *msg)
{
	fake_t *f = c;
	char *s;

	assert_true(f->nlogs < MAXL);
	assert_true(asprintf(&s, "%d %s", (int)l, msg) > 0);
	f->logs[f->nlogs++] = s;
}

static void f_say(void *c, const char *line)
{
	fake_t *f = c;

	assert_true(f->nsaid < MAXL);
	f->said[f->nsaid++] = strdup(line);
}

/* no job id: with per-partition arguments the site-wide rules apply */
static int f_job_id(void *c, unsigned *id)
{
	(void)c;
	*id = 0;
	return -ENOENT;
}

static const nps_host_ops_t ops = {
	.context = f_context, .register_option = f_register, .job_argc = f_job_argc,
	.is_job_step = f_is_job_step, .local_tasks = f_local_tasks,
	.cpus_per_task = f_cpus_per_task, .global_rank = f_global_rank,
	.alloc_cores = f_alloc_cores, .task_id = f_task_id, .node_name = f_node_name,
	.job_id = f_job_id, .getenv = f_getenv, .setenv = f_setenv, .unsetenv = f_unsetenv,
	.srun_setenv = f_setenv, .process_getenv = f_getenv, .log = f_log, .say = f_say,
};

/* a step's host: slurmstepd, job step, one task on core 0, no cgroup */
static nps_host_t host(fake_t *f)
{
	memset(f, 0, sizeof(*f));
	f->ctx = NPS_CTX_REMOTE;
	f->is_step = 1;
	f->ntasks = 1;
	f->cores = "0";
	/* "/" has no cpuset of a step: the cores are Slurm's */
	return (nps_host_t){ &ops, f, "/nonexistent", { "/nonexistent", "/nonexistent" } };
}

static void fake_free(fake_t *f)
{
	for (int i = 0; i < MAXV; i++) {
		free(f->name[i]);
		free(f->value[i]);
	}
	for (unsigned i = 0; i < f->nlogs; i++)
		free(f->logs[i]);
	for (unsigned i = 0; i < f->nsaid; i++)
		free(f->said[i]);
}

static bool has(char *const *lines, unsigned n, const char *part)
{
	for (unsigned i = 0; i < n; i++)
		if (strstr(lines[i], part))
			return true;
	return false;
}

/* slurmstepd's callbacks up to the task's, for a --numa-plan value */
static void step(nps_seq_t *q, const nps_host_t *h, const char *value, int ac, char **av)
{
	assert_int_equal(nps_seq_init(q, h, ac, av), 0);
	if (value)
		assert_int_equal(nps_seq_option(q, h, value, 1), 0);
	assert_int_equal(nps_seq_init_post_opt(q, h), 0);
	assert_int_equal(nps_seq_user_init(q, h), 0);
	assert_int_equal(nps_seq_task_init(q, h), 0);
}

static void affinity(cpu_set_t *s)
{
	CPU_ZERO(s);
	assert_int_equal(sched_getaffinity(0, sizeof(*s), s), 0);
}

static void test_outside_slurmstepd(void **state)
{
	char *av[] = { "default=compact", "cache=none" };
	nps_seq_t q;
	fake_t f;
	nps_host_t h = host(&f);

	(void)state;
	f.ctx = NPS_CTX_LOCAL;
	put(&f, "NUMAPLAN_CPUS", "7");
	step(&q, &h, NULL, 2, av);
	/* srun: none of slurmstepd's work, no item asked, no variable touched */
	assert_int_equal(q.state, NPS_SEQ_IDLE);
	assert_null(q.topo);
	assert_string_equal(get(&f, "NUMAPLAN_CPUS"), "7");
	assert_int_equal(f.calls, 0);
	/* and slurmstepd does not run srun's --cpu-bind detection */
	f.ctx = NPS_CTX_REMOTE;
	assert_int_equal(nps_seq_local_user_init(&q, &h), 0);
	assert_null(get(&f, "SLURM_NUMAPLAN_SRUN_CPU_BIND"));
	nps_seq_exit(&q);
	fake_free(&f);
}

static void test_not_a_job_step(void **state)
{
	char *av[] = { "default=compact", "cache=none" };
	nps_seq_t q;
	fake_t f;
	nps_host_t h = host(&f);

	(void)state;
	f.is_step = 0;                  /* the batch or extern step */
	put(&f, "NUMAPLAN_CPUS", "7");
	put(&f, "SLURM_NUMAPLAN_SRUN_CPU_BIND", "1");
	step(&q, &h, "spread", 2, av);
	assert_int_equal(q.state, NPS_SEQ_IDLE);
	assert_null(q.topo);
	assert_null(q.plan);
	/* left alone, but what it inherited of numaplan's is dropped */
	assert_null(get(&f, "NUMAPLAN_CPUS"));
	assert_null(get(&f, "SLURM_NUMAPLAN_SRUN_CPU_BIND"));
	assert_int_equal(f.nsaid, 0);
	assert_null(nps_seq_error(&q));
	nps_seq_exit(&q);
	fake_free(&f);
}

static void test_export_fails(void **state)
{
	char *av[] = { "default=compact", "cache=none" };
	cpu_set_t before, after;
	nps_seq_t q;
	fake_t f;
	nps_host_t h = host(&f);

	(void)state;
	affinity(&before);
	f.fail_set = "NUMAPLAN_CPUS";
	step(&q, &h, "compact,verbose", 2, av);
	assert_int_equal(q.state, NPS_SEQ_PLANNED);
	assert_true(q.task_failed);
	assert_non_null(nps_seq_error(&q));
	assert_non_null(strstr(nps_seq_error(&q), "cannot set NUMAPLAN_CPUS"));
	/* unbound, then: the affinity it had, and nothing said of a binding */
	affinity(&after);
	assert_true(CPU_EQUAL(&before, &after));
	assert_null(get(&f, "NUMAPLAN_POLICY"));
	assert_true(has(f.said, f.nsaid, "numaplan: nT: warning: task 0: cannot set NUMAPLAN_CPUS"));
	assert_true(has(f.said, f.nsaid, "the task runs unbound"));
	assert_false(has(f.said, f.nsaid, "numaplan: nT task 0 (rank 10)"));
	nps_seq_exit(&q);
	fake_free(&f);
}

static void test_no_allocated_cores(void **state)
{
	char *av[] = { "default=compact", "cache=none" };
	cpu_set_t before, after;
	nps_seq_t q;
	fake_t f;
	nps_host_t h = host(&f);

	(void)state;
	affinity(&before);
	f.ntasks = 2;
	f.task = 1;
	f.cores = NULL;                 /* no allocated cores: must not bind */
	step(&q, &h, "compact", 2, av);
	assert_int_equal(q.state, NPS_SEQ_ERROR);
	assert_non_null(strstr(nps_seq_error(&q), "cannot determine the step's CPUs"));
	affinity(&after);
	assert_true(CPU_EQUAL(&before, &after));
	assert_null(get(&f, "NUMAPLAN_CPUS"));
	/* the error is the node's, said by task 0 only */
	assert_int_equal(f.nsaid, 0);
	assert_true(has(f.logs, f.nlogs, "cannot determine the step's CPUs on this node"));
	assert_true(has(f.logs, f.nlogs, "(on_error=warn)"));
	nps_seq_exit(&q);
	fake_free(&f);
}

static void test_missing_items(void **state)
{
	char *av[] = { "default=compact", "cache=none" };
	nps_seq_t q;
	fake_t f;
	nps_host_t h = host(&f);

	(void)state;
	/* no node name: "?"; no global rank: 0, 1, ... */
	f.name_rc = -EIO;
	f.rank_rc = -EIO;
	step(&q, &h, "compact,verbose", 2, av);
	assert_null(nps_seq_error(&q));
	assert_string_equal(q.node, "?");
	assert_int_equal(q.plan->ranks[0].rank, 0);
	assert_true(has(f.logs, f.nlogs, "no global rank for local task 0"));
	assert_true(has(f.said, f.nsaid, "numaplan: ? task 0 (rank 0): cpus "));
	assert_non_null(get(&f, "NUMAPLAN_CPUS"));
	nps_seq_exit(&q);
	fake_free(&f);

	/* no task count: the step's error, said by task 0 */
	h = host(&f);
	f.ntasks_rc = -EIO;
	step(&q, &h, "compact", 2, av);
	assert_int_equal(q.state, NPS_SEQ_ERROR);
	assert_true(has(f.said, f.nsaid, "warning: cannot get the number of local tasks from Slurm; tasks run unbound"));
	nps_seq_exit(&q);
	fake_free(&f);
}

static void test_long_cpu_bind_type(void **state)
{
	char *av[] = { "default=compact", "cache=none" };
	char type[300];
	nps_seq_t q;
	fake_t f;
	nps_host_t h = host(&f);

	(void)state;
	/* longer than the plugin keeps: cut, still a binding type, and the
	 * user's --cpu-bind wins */
	snprintf(type, sizeof(type), "mask_cpu:%0280d", 1);
	put(&f, "SLURM_NUMAPLAN_SRUN_CPU_BIND", "1");
	put(&f, "SLURM_CPU_BIND_TYPE", type);
	step(&q, &h, "compact", 2, av);
	assert_int_equal(q.state, NPS_SEQ_RESPECT);
	assert_int_equal(strlen(q.cpu_bind), sizeof(q.cpu_bind) - 1);
	assert_true(has(f.said, f.nsaid, "an explicit --cpu-bind (mask_cpu:000"));
	assert_null(get(&f, "NUMAPLAN_CPUS"));
	nps_seq_exit(&q);
	fake_free(&f);

	/* a mark that is not exactly "1" is not srun's */
	h = host(&f);
	put(&f, "SLURM_NUMAPLAN_SRUN_CPU_BIND", "1111");
	put(&f, "SLURM_CPU_BIND_TYPE", "mask_cpu:0x1");
	step(&q, &h, "compact", 2, av);
	assert_int_equal(q.state, NPS_SEQ_PLANNED);
	assert_non_null(get(&f, "NUMAPLAN_CPUS"));
	nps_seq_exit(&q);
	fake_free(&f);
}

static void test_value_around_srun(void **state)
{
	char *enforced[] = { "default=compact", "enforce", "cache=none" };
	char *plain[] = { "default=compact", "cache=none" };
	nps_seq_t q;
	fake_t f;
	nps_host_t h = host(&f);

	(void)state;
	/* a value srun would refuse reaches slurmstepd (SPANK's environment
	 * variable): under enforce it is ignored and the site's policy binds */
	step(&q, &h, "bogus", 3, enforced);
	assert_int_equal(q.state, NPS_SEQ_PLANNED);
	assert_int_equal(q.decision.policy, NP_POLICY_COMPACT);
	assert_non_null(get(&f, "NUMAPLAN_CPUS"));
	nps_seq_exit(&q);
	fake_free(&f);

	/* otherwise the step fails, whatever on_error says */
	h = host(&f);
	assert_int_equal(nps_seq_init(&q, &h, 2, plain), 0);
	assert_int_equal(nps_seq_option(&q, &h, "bogus", 1), 0);
	assert_int_equal(nps_seq_init_post_opt(&q, &h), 0);
	assert_int_equal(q.state, NPS_SEQ_ERROR);
	assert_true(q.fail);
	assert_non_null(strstr(nps_seq_error(&q), "invalid --numa-plan value 'bogus'"));
	nps_seq_exit(&q);
	fake_free(&f);
}

/* srun's option passes: a second --numa-plan in one pass is refused; one
 * per het component, the same value, is not; Slurm's variable comes first
 * in a pass and is not the line's */
static void test_repeated_option(void **state)
{
	char *av[] = { "default=compact", "allow=compact,spread", "cache=none" };
	nps_seq_t q;
	fake_t f;
	nps_host_t h = host(&f);

	(void)state;
	f.ctx = NPS_CTX_LOCAL;
	assert_int_equal(nps_seq_init(&q, &h, 3, av), 0);
	assert_int_equal(nps_seq_option(&q, &h, "compact", 0), 0);
	assert_int_equal(nps_seq_option(&q, &h, "spread", 0), -1);
	assert_true(has(f.logs, f.nlogs, "--numa-plan is given twice ('compact', then 'spread')"));
	nps_seq_exit(&q);
	fake_free(&f);

	h = host(&f);
	f.ctx = NPS_CTX_LOCAL;
	put(&f, "SLURM_SPANK__SLURM_SPANK_OPTION_numaplan_numa_plan", "spread");
	assert_int_equal(nps_seq_init(&q, &h, 3, av), 0);
	assert_int_equal(nps_seq_option(&q, &h, "spread", 0), 0);      /* the variable */
	assert_int_equal(nps_seq_option(&q, &h, "compact", 0), 0);     /* the line */
	assert_int_equal(nps_seq_init_post_opt(&q, &h), 0);
	assert_int_equal(nps_seq_option(&q, &h, "spread", 0), 0);      /* next pass */
	assert_int_equal(nps_seq_option(&q, &h, "compact", 0), 0);
	assert_int_equal(nps_seq_init_post_opt(&q, &h), 0);
	assert_int_equal(nps_seq_option(&q, &h, "spread", 0), 0);
	assert_int_equal(nps_seq_option(&q, &h, "spread", 0), -1);     /* changed */
	assert_true(has(f.logs, f.nlogs, "given twice ('compact', then 'spread')"));
	nps_seq_exit(&q);
	fake_free(&f);
}

/* srun's refusal reaches the node as a mark: the step fails there, whatever
 * on_error says; enforce over srun's --cpu-bind binds and says so */
static void test_refusal_and_override(void **state)
{
	char *warn[] = { "default=compact", "on_error=warn", "cache=none" };
	char *enforced[] = { "default=compact", "enforce", "cache=none" };
	nps_seq_t q;
	fake_t f;
	nps_host_t h = host(&f);

	(void)state;
	put(&f, "SLURM_NUMAPLAN_SRUN_REFUSED", "1");
	assert_int_equal(nps_seq_init(&q, &h, 3, warn), 0);
	assert_int_equal(nps_seq_option(&q, &h, "spread", 1), 0);
	assert_int_equal(nps_seq_init_post_opt(&q, &h), 0);
	assert_int_equal(q.state, NPS_SEQ_ERROR);
	assert_true(q.fail);
	assert_null(q.topo);
	assert_non_null(strstr(nps_seq_error(&q), "srun refused --numa-plan=spread"));
	nps_seq_exit(&q);
	fake_free(&f);

	h = host(&f);
	put(&f, "SLURM_NUMAPLAN_SRUN_CPU_BIND", "1");
	put(&f, "SLURM_CPU_BIND_TYPE", "map_cpu:");
	step(&q, &h, NULL, 3, enforced);
	assert_int_equal(q.state, NPS_SEQ_PLANNED);
	assert_non_null(get(&f, "NUMAPLAN_CPUS"));
	assert_true(has(f.said, f.nsaid, "note: policy 'compact' applied; your --cpu-bind (map_cpu:) "
			"is overridden (the site enforces it)"));
	assert_null(get(&f, "SLURM_NUMAPLAN_SRUN_CPU_BIND"));
	nps_seq_exit(&q);
	fake_free(&f);
}


/* srun's option words in a het allocation: the groups a step runs in, as
 * srun(1) defines them (--het-group's default is 0; the list forms
 * "0,4" and "1,3-5"); a component without the option takes the group of
 * its place (srun refused "--het-group=1 ... : ..." on the vcluster as
 * "Duplicate het groups"); a list srun could not take is -EINVAL */
static void test_het_groups(void **state)
{
	static const struct {
		const char *line;
		unsigned size;
		int want;        /* count, or -EINVAL */
		const char *set; /* '1' at each group in the step */
	} cases[] = {
		{ "", 2, 1, "10" },
		{ "-n1 prog arg", 2, 1, "10" },
		{ "--het-group=1 -n1 prog", 2, 1, "01" },
		{ "--het-group 0,1 prog", 2, 2, "11" },
		{ "--het-group=1,3-5 prog", 8, 4, "01011100" },
		{ "-n1 prog : -n1 prog", 2, 2, "11" },
		{ "-n1 --het-group=1 a : --het-group=0 -n1 b", 2, 2, "11" },
		{ "--het-group=1 a : b", 3, 1, "01" },
		{ "--pack-group=2 prog", 3, 1, "001" },
		{ "--het-g=2 prog", 3, 1, "001" },
		{ "--het prog", 2, 1, "10" },
		{ "--hetero=1 prog", 2, 1, "10" },
		{ "--het-group=9 prog", 4, -EINVAL, NULL },
		{ "--het-group=3-1 prog", 4, -EINVAL, NULL },
		{ "--het-group= prog", 4, -EINVAL, NULL },
		{ "--het-group=-1 prog", 4, -EINVAL, NULL },
		{ "--het-group=a prog", 4, -EINVAL, NULL },
		{ "--het-group=0,,1 prog", 4, -EINVAL, NULL },
		{ "--het-group", 4, -EINVAL, NULL },
		{ "a : b : c", 2, -EINVAL, NULL },
	};

	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		char *copy = strdup(cases[c].line), *words[16], *save = NULL;
		bool groups[8];
		int n = 0, got;

		for (char *w = strtok_r(copy, " ", &save); w && n < 16; w = strtok_r(NULL, " ", &save))
			words[n++] = w;
		got = nps_het_groups(n, words, groups, cases[c].size);
		if (got != cases[c].want)
			fail_msg("'%s': %d groups, want %d", cases[c].line, got, cases[c].want);
		for (unsigned g = 0; cases[c].set && g < cases[c].size; g++)
			if (groups[g] != (cases[c].set[g] == '1'))
				fail_msg("'%s': group %u %s", cases[c].line, g,
					 groups[g] ? "in the step, not wanted" : "missing");
		free(copy);
	}
	assert_int_equal(nps_het_groups(0, NULL, (bool[1]){ 0 }, 0), -EINVAL);
}

/* srun's option words: --gpu-bind and, from Slurm 23.11, --tres-bind's
 * gres/gpu part; the last of the two decides (each replaces the other in
 * srun); verbose alone, other TRES, the command's own words do not bind */
static void test_gpu_bind_forms(void **state)
{
	static const struct { int want; const char *line; } cases[] = {
		{ NPS_GPU_BIND_GPU, "--gpu-bind=closest" },
		{ NPS_GPU_BIND_GPU, "--gpu-bind map_gpu:1,0" },
		{ NPS_GPU_BIND_GPU, "--gpu-b=verbose,single:1" },
		{ NPS_GPU_BIND_GPU, "--gpu-bind=none" },
		{ 0, "--gpu-bind=verbose" },
		{ 0, "--gpu-bind=VERBOSE" },
		{ 0, "--gpu-bind" },
		{ 0, "--gpu-=closest" },
		{ 0, "--gpu-freq=high --gpus=2" },
		{ NPS_GPU_BIND_TRES, "--tres-bind=gres/gpu:closest" },
		{ NPS_GPU_BIND_TRES, "--tres-bind gres/gpu:map:1,0" },
		{ NPS_GPU_BIND_TRES, "--tres-b=gres/gpu:verbose,per_task:1" },
		{ NPS_GPU_BIND_TRES, "--tres-bind=gres/nic:closest+gres/gpu:mask:0x3" },
		{ NPS_GPU_BIND_TRES, "--tres-bind=gres/gpu:closest+gres/nic:closest" },
		{ 0, "--tres-bind=gres/gpu:closest+gres/gpu:verbose" },
		{ 0, "--tres-bind=gres/gpu:verbose" },
		{ 0, "--tres-bind=gres/gpu:" },
		{ 0, "--tres-bind=gres/nic:closest" },
		{ 0, "--tres-bind=gres/shard:per_task:1" },
		{ 0, "--tres-bind=gpu:closest" },
		{ 0, "--tres-=gres/gpu:closest" },
		{ 0, "--tres-per-task=gres/gpu=1" },
		{ NPS_GPU_BIND_TRES, "--gpu-bind=closest --tres-bind=gres/gpu:single:2" },
		{ NPS_GPU_BIND_GPU, "--tres-bind=gres/gpu:closest --gpu-bind=closest" },
		{ 0, "--gpu-bind=closest --tres-bind=gres/nic:closest" },
		{ NPS_GPU_BIND_GPU, "--gpu-bind=closest : --tres-bind=gres/nic:closest" },
		{ NPS_GPU_BIND_TRES, "-n1 : --tres-bind=gres/gpu:closest" },
		{ 0, "-n2 -- --gpu-bind=closest" },
	};

	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		char *copy = strdup(cases[c].line), *words[16], *save = NULL;
		int n = 0;

		for (char *w = strtok_r(copy, " ", &save); w && n < 16; w = strtok_r(NULL, " ", &save))
			words[n++] = w;
		if (nps_gpu_bind_given(n, words) != cases[c].want)
			fail_msg("'%s': want %d", cases[c].line, cases[c].want);
		free(copy);
	}
	assert_string_equal(nps_gpu_bind_option(NPS_GPU_BIND_GPU), "--gpu-bind");
	assert_string_equal(nps_gpu_bind_option(NPS_GPU_BIND_TRES), "--tres-bind=gres/gpu");
}

/* the node: srun's mark "2" (--tres-bind=gres/gpu) wins over gpu-near and
 * the note names the option; under enforce it is overridden, and said so;
 * a mark of another value is not srun's */
static void test_tres_bind_mark(void **state)
{
	char *plain[] = { "cache=none" };
	char *enforced[] = { "default=gpu-near", "enforce", "cache=none" };
	nps_seq_t q;
	fake_t f;
	nps_host_t h = host(&f);

	(void)state;
	put(&f, "SLURM_NUMAPLAN_SRUN_GPU_BIND", "2");
	assert_int_equal(nps_seq_init(&q, &h, 1, plain), 0);
	assert_int_equal(nps_seq_option(&q, &h, "gpu-near", 1), 0);
	assert_int_equal(nps_seq_decide(&q, &h), 0);
	assert_int_equal(q.state, NPS_SEQ_RESPECT);
	assert_string_equal(q.respect, "an explicit --tres-bind=gres/gpu");
	nps_seq_exit(&q);
	fake_free(&f);

	h = host(&f);
	put(&f, "SLURM_NUMAPLAN_SRUN_GPU_BIND", "2");
	assert_int_equal(nps_seq_init(&q, &h, 3, enforced), 0);
	assert_int_equal(nps_seq_decide(&q, &h), 1);
	assert_non_null(strstr(q.overridden, "your --tres-bind=gres/gpu is overridden (the site enforces it)"));
	nps_seq_exit(&q);
	fake_free(&f);

	h = host(&f);
	put(&f, "SLURM_NUMAPLAN_SRUN_GPU_BIND", "3");
	assert_int_equal(nps_seq_init(&q, &h, 1, plain), 0);
	assert_int_equal(nps_seq_option(&q, &h, "gpu-near", 1), 0);
	assert_int_equal(nps_seq_decide(&q, &h), 1);
	assert_int_equal(q.respect[0], '\0');
	nps_seq_exit(&q);
	fake_free(&f);
}

/*
 * gpu-near on a node whose GPUs' memory is NUMA nodes (tests/xml/README.md:
 * 252-255 are the memory of the V100s 0004:04:00.0 ... 0035:04:00.0, DRAM
 * nodes 0 and 8): a GPU node the step's cpuset.mems leaves out is dropped
 * from its rank's binding; a CPU node left out still refuses the plan.
 */
static void test_gpu_memory_in_cpuset(void **state)
{
	static const unsigned ids[] = { 0, 1, 2, 3 };
	char *busids[] = { "0004:04:00.0", "0004:05:00.0", "0035:03:00.0", "0035:04:00.0" };
	np_load_opts_t lo = { .xml_path = NP_XMLDIR "/gpumem-power9-2s-4v100-sierra-v2.xml" };
	nps_decision_t d = { .policy = NP_POLICY_GPU_NEAR, .mem = NP_MEM_BIND };
	np_cpuset_t *cpus = np_cpuset_new(), *mems = np_cpuset_new();
	nps_node_in_t in = { .decision = &d, .ntasks = 4, .cpus_per_task = 1, .step_cpus = cpus,
	                     .mems_allowed = mems, .gpu_ids = ids, .ngpu_ids = 4, .gpu_busids = busids };
	static const char *const want[] = { "0,252", "0", "8,254", "8,255" };
	np_error_t err = { 0 };
	np_topo_t *t = NULL;
	np_plan_t *p = NULL;

	(void)state;
	assert_int_equal(np_cpuset_parse(cpus, "0-175"), 0);
	assert_int_equal(np_cpuset_parse(mems, "0,8,252,254-255"), 0);
	assert_int_equal(np_topo_load(&t, &lo, &err), 0);
	assert_int_equal(nps_node_plan(t, &in, &p, &err), 0);
	for (unsigned r = 0; r < 4; r++) {
		np_cpuset_t *w = np_cpuset_new();

		assert_int_equal(np_cpuset_parse(w, want[r]), 0);
		assert_true(np_cpuset_equal(p->ranks[r].mems, w));
		assert_true(np_cpuset_included(p->ranks[r].gpu_mems, w));
		np_cpuset_free(w);
	}
	np_plan_free(p);
	p = NULL;
	assert_int_equal(np_cpuset_parse(mems, "0,252-255"), 0);
	assert_int_equal(nps_node_plan(t, &in, &p, &err), -EPERM);
	assert_null(p);
	assert_non_null(strstr(err.msg, "NUMA nodes 8"));
	np_topo_free(t);
	np_cpuset_free(cpus);
	np_cpuset_free(mems);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_outside_slurmstepd),
		cmocka_unit_test(test_not_a_job_step),
		cmocka_unit_test(test_export_fails),
		cmocka_unit_test(test_no_allocated_cores),
		cmocka_unit_test(test_missing_items),
		cmocka_unit_test(test_long_cpu_bind_type),
		cmocka_unit_test(test_value_around_srun),
		cmocka_unit_test(test_repeated_option),
		cmocka_unit_test(test_refusal_and_override),
		cmocka_unit_test(test_gpu_memory_in_cpuset),
		cmocka_unit_test(test_het_groups),
		cmocka_unit_test(test_gpu_bind_forms),
		cmocka_unit_test(test_tres_bind_mark),
	};

	return cmocka_run_group_tests_name("sequence", tests, NULL, NULL);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmd_plan.c - `numaplan plan`: an offline dry run of the placement, in
 * the format of whichever launcher will use it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/optparse.h"
#include "common/spool.h"
#include "common/escape.h"
#include "commands.h"
#include "opts.h"

struct plan_args {
	const char *xml, *cpuset, *hosts, *sysfs;
	/* as typed: the planner's own parsers read them (their messages) */
	const char *ntasks, *policy, *format, *cpus_per_task, *mem, *rails, *nodes, *gpus, *gpu_visible;
	unsigned *gpu_ids;
	bool help;
	np_plan_opts_t po;
	np_format_t fmt;
	char *cmd;
};

#define O(f) offsetof(struct plan_args, f)
static const np_optdef_t plan_opts[] = {
	{ .name = "topology", .key = 't', .kind = NP_OPT_STR, .off = O(xml), .arg = "FILE",
	  .help = "plan on this hwloc XML file instead of this node" },
	{ .name = "cpuset", .key = 's', .kind = NP_OPT_STR, .off = O(cpuset), .arg = "LIST",
	  .help = "only these CPUs (default: the allowed set)" },
	{ .name = "sysfs", .kind = NP_OPT_STR, .off = O(sysfs), .arg = "DIR",
	  .help = "adapter port states from this copy of /sys" },
	{ .name = "ntasks", .key = 'n', .kind = NP_OPT_STR, .off = O(ntasks), .arg = "N",
	  .help = "ranks, over every host (required)" },
	{ .name = "policy", .key = 'p', .kind = NP_OPT_STR, .off = O(policy), .arg = "P",
	  .help = "placement policy (required)" },
	{ .name = "cpus-per-task", .key = 'c', .kind = NP_OPT_STR, .off = O(cpus_per_task), .arg = "C",
	  .help = "cores (or PUs with --threads) per rank" },
	{ .name = "threads", .kind = NP_OPT_FLAG, .off = O(po.threads), .help = "place on PUs, not whole cores" },
	{ .name = "mem", .key = 'm', .kind = NP_OPT_STR, .off = O(mem), .arg = "MODE",
	  .help = "memory policy of each rank" },
	{ .name = "hca", .kind = NP_OPT_STR, .off = O(po.hca), .arg = "NAME[:PORT][,...]",
	  .help = "hca-near, gpu-near: only these adapters" },
	{ .name = "gpus", .kind = NP_OPT_STR, .off = O(gpus), .arg = "LIST",
	  .help = "gpu-near: only these GPUs (indexes in PCI bus id order), as a Slurm step's" },
	{ .name = "gpu-visible", .kind = NP_OPT_STR, .off = O(gpu_visible), .arg = "own|all",
	  .help = "gpu-near: each rank sees its own GPU(s), or all, its own first" },
	{ .name = "rails", .kind = NP_OPT_STR, .off = O(rails), .arg = "N",
	  .help = "hca-near, gpu-near: adapters per rank" },
	{ .name = "nodes", .key = 'N', .kind = NP_OPT_STR, .off = O(nodes), .arg = "N",
	  .help = "this many hosts, named for the launcher lines" },
	{ .name = "hosts", .key = 'w', .kind = NP_OPT_STR, .off = O(hosts), .arg = "H1,H2,...",
	  .help = "these hosts" },
	{ .name = "overcommit", .kind = NP_OPT_FLAG, .off = O(po.overcommit),
	  .help = "allow more ranks x cpus than allowed cores" },
	{ .name = "no-fallback", .kind = NP_OPT_FLAG, .off = O(po.no_fallback),
	  .help = "hca-near without a usable adapter is an error" },
	{ .name = "format", .key = 'f', .kind = NP_OPT_STR, .off = O(format), .arg = "F",
	  .help = "the launcher's format (default table)" },
	{ .name = "help", .key = 'h', .kind = NP_OPT_FLAG, .off = O(help), .help = "this text",
	  .flags = NP_OPTF_STOP },
	{ .name = NULL },
};
#undef O

static void plan_usage(FILE *f)
{
	fprintf(f,
	        "Usage: numaplan plan [--topology FILE] [--cpuset LIST] [--sysfs DIR] --ntasks N --policy P\n"
	        "                     [--cpus-per-task C] [--threads] [--mem MODE]\n"
	        "                     [--hca NAME[:PORT][,NAME...]] [--gpus LIST] [--gpu-visible own|all]\n"
	        "                     [--rails N]\n"
	        "                     [--nodes N | --hosts H1,H2,...]\n"
	        "                     [--overcommit] [--no-fallback] [--format F] [-- COMMAND...]\n"
	        "Policies: %s\nMemory modes: %s, or a memory kind (dram, hbm, cxl, gpu, nvm) as KIND or MODE:KIND\n"
	        "Formats: %s\n", np_policy_list(), np_mem_list(),
	        np_format_list());
	np_opt_usage(f, plan_opts);
}

/* The command appended to srun/mpiexec/numactl lines, shell-quoted only
 * when it needs to be. */
static char *join_command(int argc, char **argv)
{
	np_sb_t b;

	np_sb_init(&b);
	np_sb_shq_argv(&b, (unsigned)argc, argv);
	return np_sb_take(&b);
}

/* The values the planner's parsers read, with their messages. */
static int convert(struct plan_args *a, np_error_t *err)
{
	if (a->ntasks && np_arg_uint("--ntasks", a->ntasks, 1, 1000000, &a->po.ntasks, err) < 0)
		return -EINVAL;
	if (a->policy && np_policy_parse(a->policy, &a->po.policy) < 0)
		return np_error_set(err, -EINVAL, "unknown policy '%s' (valid: %s)", a->policy, np_policy_list());
	if (a->format && np_format_parse(a->format, &a->fmt) < 0)
		return np_error_set(err, -EINVAL, "unknown format '%s' (valid: %s)", a->format, np_format_list());
	/* none given is 0: gpu-near then gives a rank with several GPUs
	 * their whole locality */
	a->po.cpus_per_task = 0;
	if (a->cpus_per_task &&
	    np_arg_uint("--cpus-per-task", a->cpus_per_task, 1, 100000, &a->po.cpus_per_task, err) < 0)
		return -EINVAL;
	if (a->mem) {
		np_error_t why = { 0 };

		if (np_mem_spec_parse(a->mem, &a->po.mem, &a->po.mem_kind, &why) < 0)
			return np_error_set(err, -EINVAL, "unknown --mem '%s': %s", a->mem, why.msg);
	}
	if (a->rails && np_arg_uint("--rails", a->rails, 1, 64, &a->po.rails, err) < 0)
		return -EINVAL;
	if (a->nodes && np_arg_uint("--nodes", a->nodes, 1, 100000, &a->po.nnodes, err) < 0)
		return -EINVAL;
	if (a->gpu_visible) {
		if (strcmp(a->gpu_visible, "own") && strcmp(a->gpu_visible, "all"))
			return np_error_set(err, -EINVAL, "--gpu-visible '%s': valid: own (each rank its "
			                    "own GPUs) or all (every GPU, the rank's first)", a->gpu_visible);
		a->po.gpus_visible_all = !strcmp(a->gpu_visible, "all");
	}
	if (a->gpus) {
		char why[96];
		int rc = np_parse_index_list(a->gpus, 1023, &a->gpu_ids, &a->po.ngpu_ids, why, sizeof(why));

		if (rc == -ENOMEM)
			return np_error_set(err, -ENOMEM, "out of memory");
		if (rc == 0 && !a->gpu_ids)
			return np_error_set(err, -EINVAL, "--gpus '': the GPU list is empty (give "
			                    "indexes such as 0,2, or leave the option out for every GPU)");
		if (rc < 0)
			return np_error_set(err, -EINVAL, "--gpus '%s': %s (valid: distinct GPU indexes "
			                    "0 to 1023, separated by commas, such as 0,2)", a->gpus, why);
		/* as the plugin passes Slurm's allocation (SLURM_STEP_GPUS) */
		a->po.gpu_ids = a->gpu_ids;
	}
	return 0;
}

/* What the options require of each other. */
static int check_args(struct plan_args *a, np_error_t *err)
{
	if (!a->ntasks)
		return np_error_set(err, -EINVAL, "--ntasks N is required");
	if (!a->policy)
		return np_error_set(err, -EINVAL, "--policy P is required (valid: %s)", np_policy_list());
	/* the library's rules (what the policy takes: --hca, --rails), as
	 * a usage error before any topology is read */
	if (np_plan_opts_check(&a->po, err) < 0)
		return -EINVAL;
	return 0;
}

static int parse_args(int argc, char **argv, struct plan_args *a, np_error_t *err)
{
	np_opttable_t t = { plan_opts, a };
	np_optargs_t o;
	int rc = np_opt_parse("plan", &t, 1, argc, argv, &o, err);

	if (rc == 0 && o.noperands)
		rc = np_error_set(err, -EINVAL, "unexpected argument '%s' (put the command after --)", o.operands[0]);
	if (rc == 0 && o.nrest && !(a->cmd = join_command((int)o.nrest, o.rest)))
		rc = np_error_set(err, -ENOMEM, "out of memory");
	np_optargs_free(&o);
	if (rc)
		return rc;
	if ((rc = convert(a, err)) < 0)
		return rc;
	return check_args(a, err);
}

int np_cmd_plan(int argc, char **argv)
{
	struct plan_args a = { .po = NP_PLAN_OPTS_INIT, .fmt = NP_FMT_TABLE };
	np_error_t err = { 0 };
	np_topo_t *t = NULL;
	np_plan_t *p = NULL;
	char **hosts = NULL;
	np_spool_t *spool = NULL;
	FILE *mem = NULL;
	int wrc;
	int rc = parse_args(argc, argv, &a, &err);

	if (rc == 1) {
		plan_usage(stdout);
		return NP_EXIT_OK;
	}
	if (rc < 0) {
		free(a.cmd);
		free(a.gpu_ids);
		return np_opt_fail("plan", err.msg);
	}
	if (a.hosts) {
		hosts = np_opt_split(a.hosts, &a.po.nhosts);
		if (!hosts) {
			free(a.cmd);
			free(a.gpu_ids);
			return np_opt_fail("plan", "out of memory");
		}
		for (unsigned h = 0; h < a.po.nhosts; h++)
			if (!np_host_name_ok(hosts[h])) {
				np_error_set(&err, -EINVAL, "--hosts: '%.300s' is not a host name (1-255 "
				             "letters, digits, '.', '-', '_', starting with a letter or digit)",
				             hosts[h]);
				free(hosts);
				free(a.cmd);
				free(a.gpu_ids);
				return np_opt_fail("plan", err.msg);
			}
		a.po.hosts = (const char *const *)hosts;
	}
	rc = NP_EXIT_USAGE;
	if (np_opt_load_topology(a.xml, a.cpuset, a.sysfs, &t, &err) < 0 ||
	    np_plan_compute(t, &a.po, &p, &err) < 0) {
		np_opt_fail("plan", err.msg);
		goto out;
	}
	if (p->note)
		np_opt_print("plan: warning: %s", p->note);
	/* Nothing reaches stdout unless the whole plan was written. */
	spool = np_spool_open(&mem);
	wrc = spool ? np_plan_write(mem, t, p, a.fmt, a.cmd, &err) : -ENOMEM;
	if (spool && np_spool_close(spool, mem) < 0 && wrc == 0)
		wrc = np_error_set(&err, -ENOMEM, "out of memory");
	if (wrc < 0) {
		np_opt_fail("plan", err.msg[0] ? err.msg : "out of memory");
		/* a plan the format cannot carry (host names, hydra's limit,
		 * text JSON cannot hold) is bad input; memory and I/O are
		 * failures */
		rc = err.code == -EINVAL || err.code == -E2BIG || err.code == -EILSEQ ?
		     NP_EXIT_USAGE : NP_EXIT_FAIL;
		goto out;
	}
	np_spool_copy(spool, stdout);
	rc = fflush(stdout) == 0 ? NP_EXIT_OK : NP_EXIT_FAIL;
out:
	np_spool_free(spool);
	free(hosts);
	free(a.cmd);
	free(a.gpu_ids);
	np_plan_free(p);
	np_topo_free(t);
	return rc;
}

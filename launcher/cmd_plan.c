/*
 * cmd_plan.c - `numaplan plan`: an offline dry run of the placement, in
 * the format of whichever launcher will use it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "opts.h"

static void plan_usage(FILE *f)
{
	fprintf(f,
	        "Usage: numaplan plan [--topology FILE] [--cpuset LIST] [--sysfs DIR] --ntasks N --policy P\n"
	        "                     [--cpus-per-task C] [--threads] [--mem MODE]\n"
	        "                     [--hca NAME[:PORT][,NAME...]] [--rails N] [--nodes N | --hosts H1,H2,...]\n"
	        "                     [--overcommit] [--no-fallback] [--format F] [-- COMMAND...]\n"
	        "Policies: %s\nMemory modes: %s\nFormats: %s\n", np_policy_list(), np_mem_list(),
	        np_format_list());
}

struct plan_args {
	const char *xml, *cpuset, *hosts, *sysfs;
	np_plan_opts_t po;
	np_format_t fmt;
	char *cmd;
};

/* The command appended to srun/mpiexec/numactl lines, shell-quoted only
 * when it needs to be. */
static char *join_command(int argc, char **argv)
{
	np_sb_t b;

	np_sb_init(&b);
	np_sb_shq_argv(&b, (unsigned)argc, argv);
	return np_sb_take(&b);
}

static int parse_args(int argc, char **argv, struct plan_args *a, np_error_t *err)
{
	static const struct option longopts[] = {
		{ "topology", required_argument, NULL, 't' },
		{ "cpuset", required_argument, NULL, 's' },
		{ "ntasks", required_argument, NULL, 'n' },
		{ "policy", required_argument, NULL, 'p' },
		{ "format", required_argument, NULL, 'f' },
		{ "cpus-per-task", required_argument, NULL, 'c' },
		{ "threads", no_argument, NULL, 'T' },
		{ "mem", required_argument, NULL, 'm' },
		{ "hca", required_argument, NULL, 'H' },
		{ "rails", required_argument, NULL, 'R' },
		{ "nodes", required_argument, NULL, 'N' },
		{ "hosts", required_argument, NULL, 'w' },
		{ "overcommit", no_argument, NULL, 'O' },
		{ "no-fallback", no_argument, NULL, 'F' },
		{ "sysfs", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, have_n = 0, have_p = 0;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+t:s:n:p:f:c:m:N:w:h", longopts, NULL)) != -1) {
		switch (c) {
		case 't': a->xml = optarg; break;
		case 's': a->cpuset = optarg; break;
		case 'n':
			if (np_arg_uint("--ntasks", optarg, 1, 1000000, &a->po.ntasks, err) < 0)
				return -EINVAL;
			have_n = 1;
			break;
		case 'p':
			if (np_policy_parse(optarg, &a->po.policy) < 0)
				return np_error_set(err, -EINVAL, "unknown policy '%s' (valid: %s)", optarg,
				                    np_policy_list());
			have_p = 1;
			break;
		case 'f':
			if (np_format_parse(optarg, &a->fmt) < 0)
				return np_error_set(err, -EINVAL, "unknown format '%s' (valid: %s)", optarg,
				                    np_format_list());
			break;
		case 'c':
			if (np_arg_uint("--cpus-per-task", optarg, 1, 100000, &a->po.cpus_per_task, err) < 0)
				return -EINVAL;
			break;
		case 'T': a->po.threads = true; break;
		case 'm':
			if (np_mem_parse(optarg, &a->po.mem) < 0)
				return np_error_set(err, -EINVAL, "unknown --mem '%s' (valid: %s)", optarg,
				                    np_mem_list());
			break;
		case 'H': a->po.hca = optarg; break;
		case 'R':
			if (np_arg_uint("--rails", optarg, 1, 64, &a->po.rails, err) < 0)
				return -EINVAL;
			break;
		case 'N':
			if (np_arg_uint("--nodes", optarg, 1, 100000, &a->po.nnodes, err) < 0)
				return -EINVAL;
			break;
		case 'w': a->hosts = optarg; break;
		case 'O': a->po.overcommit = true; break;
		case 'F': a->po.no_fallback = true; break;
		case 'S': a->sysfs = optarg; break;
		case 'h': return 1;
		default:
			return np_error_set(err, -EINVAL, "unknown or incomplete option '%s' (see --help)",
			                    argv[optind - 1]);
		}
	}
	if (!have_n)
		return np_error_set(err, -EINVAL, "--ntasks N is required");
	if (!have_p)
		return np_error_set(err, -EINVAL, "--policy P is required (valid: %s)", np_policy_list());
	/* the library's rules (what the policy takes: --hca, --rails), as
	 * a usage error before any topology is read */
	if (np_plan_opts_check(&a->po, err) < 0)
		return -EINVAL;
	if (optind < argc && !strcmp(argv[optind - 1], "--"))
		a->cmd = join_command(argc - optind, argv + optind);
	else if (optind < argc)
		return np_error_set(err, -EINVAL, "unexpected argument '%s' (put the command after --)",
		                    argv[optind]);
	return 0;
}

int np_cmd_plan(int argc, char **argv)
{
	struct plan_args a = { .po = NP_PLAN_OPTS_INIT, .fmt = NP_FMT_TABLE };
	np_error_t err = { 0 };
	np_topo_t *t = NULL;
	np_plan_t *p = NULL;
	char **hosts = NULL, *buf = NULL;
	size_t len = 0;
	FILE *mem;
	int rc = parse_args(argc, argv, &a, &err);

	if (rc == 1) {
		plan_usage(stdout);
		return NP_EXIT_OK;
	}
	if (rc < 0)
		return np_opt_fail("plan", err.msg);
	if (a.hosts) {
		hosts = np_opt_split(a.hosts, &a.po.nhosts);
		if (!hosts)
			return np_opt_fail("plan", "out of memory");
		for (unsigned h = 0; h < a.po.nhosts; h++)
			if (!np_host_name_ok(hosts[h])) {
				np_error_set(&err, -EINVAL, "--hosts: '%.300s' is not a host name (1-255 "
				             "letters, digits, '.', '-', '_', starting with a letter or digit)",
				             hosts[h]);
				free(hosts);
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
	mem = open_memstream(&buf, &len);
	if (!mem || np_plan_write(mem, t, p, a.fmt, a.cmd, &err) < 0) {
		if (mem)
			fclose(mem);
		np_opt_fail("plan", err.msg[0] ? err.msg : "out of memory");
		/* a plan the format cannot carry (host names, hydra's limit) is
		 * bad input; memory and I/O are failures */
		rc = err.code == -EINVAL || err.code == -E2BIG ? NP_EXIT_USAGE : NP_EXIT_FAIL;
		goto out;
	}
	fclose(mem);
	fwrite(buf, 1, len, stdout);
	rc = fflush(stdout) == 0 ? NP_EXIT_OK : NP_EXIT_FAIL;
out:
	free(buf);
	free(hosts);
	free(a.cmd);
	np_plan_free(p);
	np_topo_free(t);
	return rc;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * main.c - the numaplan command: dispatch to a subcommand.
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "common/escape.h"
#include "config.h"
#include <numaplan.h>

static const struct {
	const char *name;
	int (*fn)(int, char **);
	const char *what;
} commands[] = {
	{ "topo", np_cmd_topo, "summarise a node's topology (sockets, NUMA, L3, HCAs, distances)" },
	{ "plan", np_cmd_plan, "compute a per-rank placement and print it in a launcher's format" },
	{ "run", np_cmd_run, "run a benchmark suite with generated placement (Slurm or local)" },
	{ "report", np_cmd_report, "tables and plots from a run directory" },
	{ "accept", np_cmd_accept, "check results against an acceptance spec" },
	{ "audit", np_cmd_audit, "check a running job's bindings against its plan, on every node" },
	{ "check", np_cmd_check, "faults of this node's hardware and settings that sysfs shows" },
	{ "steps", np_cmd_steps, "what the plugin did with the steps: outcomes, fallbacks, metrics" },
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: numaplan COMMAND [OPTIONS]\n\nCommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].what);
	fprintf(f, "\n`numaplan COMMAND --help` for a command's options; man numaplan.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		/* what a site checks after an upgrade: the plugin must match
		 * the Slurm release that loads it (numaplan-spank(8)) */
		printf("numaplan %s%s%s%s\nbuilt against hwloc %s, Slurm %s%s\n", PACKAGE_VERSION,
		       NP_PACKAGE_REVISION[0] ? " (package " : "", NP_PACKAGE_REVISION,
		       NP_PACKAGE_REVISION[0] ? ")" : "", NP_HWLOC_VERSION, NP_SLURM_VERSION,
		       strcmp(NP_SLURM_VERSION, "none") ? "" : " (no SPANK plugin)");
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	{
		char safe[NP_ESCAPED_SIZE(64)];

		fprintf(stderr, "numaplan: unknown command '%s' (valid: topo, plan, run, report, accept, audit, check, steps)\n",
		        np_escape(safe, sizeof(safe), argv[1]));
	}
	return 2;
}

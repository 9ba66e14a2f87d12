/*
 * cmd_topo.c - `numaplan topo`: what the planner sees on a node.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "commands.h"
#include "opts.h"

static void topo_usage(FILE *f)
{
	fprintf(f, "Usage: numaplan topo [--topology FILE] [--cpuset LIST] [--sysfs DIR] [--json]\n");
}

int np_cmd_topo(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "topology", required_argument, NULL, 't' },
		{ "cpuset", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "sysfs", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *xml = NULL, *cpuset = NULL, *sysfs = NULL;
	int json = 0, c, rc;
	np_topo_t *t;
	np_error_t err = { 0 };

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "t:s:jh", longopts, NULL)) != -1) {
		switch (c) {
		case 't': xml = optarg; break;
		case 's': cpuset = optarg; break;
		case 'j': json = 1; break;
		case 'S': sysfs = optarg; break;
		case 'h': topo_usage(stdout); return NP_EXIT_OK;
		default:
			np_opt_print("topo: unknown or incomplete option '%s'", argv[optind - 1]);
			topo_usage(stderr);
			return NP_EXIT_USAGE;
		}
	}
	if (optind < argc)
		return np_opt_fail("topo", "unexpected argument (see --help)");
	if (np_opt_load_topology(xml, cpuset, sysfs, &t, &err) < 0)
		return np_opt_fail("topo", err.msg);
	if (json) {
		char *js = np_topo_to_json(t);

		rc = js ? NP_EXIT_OK : NP_EXIT_FAIL;
		if (js)
			printf("%s\n", js);
		free(js);
	} else {
		rc = np_topo_write_text(stdout, t) < 0 ? NP_EXIT_FAIL : NP_EXIT_OK;
	}
	np_topo_free(t);
	return rc;
}

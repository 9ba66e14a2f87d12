/*
 * cmd_topo.c - `numaplan topo`: what the planner sees on a node, and the
 * node's topology as XML for planning elsewhere (numaplan run's probe).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "commands.h"
#include "opts.h"
#include "site_topo.h"

static void topo_usage(FILE *f)
{
	fprintf(f, "Usage: numaplan topo [--topology FILE | --site] [--cpuset LIST] [--sysfs DIR] [--json]\n"
	           "                     [--export-xml FILE] [--fingerprint]\n");
}

/* --export-xml: the whole node, whatever this process's cgroup (a job
 * step sees only its own CPUs); --site: the file the numaplan plugin
 * plans this node on, when plugstack.conf names one. */
static int load(const char *xml, const char *cpuset, const char *sysfs, int whole, np_topo_t **t,
                np_error_t *err)
{
	np_load_opts_t lo = { .xml_path = xml, .restrict_cpus = cpuset, .flags = NP_LOAD_WHOLE_MACHINE };

	if (!whole || cpuset || sysfs)
		return np_opt_load_topology(xml, cpuset, sysfs, t, err);
	return np_topo_load(t, &lo, err);
}

int np_cmd_topo(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "topology", required_argument, NULL, 't' },
		{ "cpuset", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "sysfs", required_argument, NULL, 'S' },
		{ "site", no_argument, NULL, 'W' },
		{ "export-xml", required_argument, NULL, 'x' },
		{ "fingerprint", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *xml = NULL, *cpuset = NULL, *sysfs = NULL, *export = NULL;
	int json = 0, site = 0, fp = 0, c, rc;
	char *site_xml = NULL, *why = NULL;
	np_topo_t *t;
	np_error_t err = { 0 };
	struct stat st;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "t:s:jh", longopts, NULL)) != -1) {
		switch (c) {
		case 't': xml = optarg; break;
		case 's': cpuset = optarg; break;
		case 'j': json = 1; break;
		case 'S': sysfs = optarg; break;
		case 'W': site = 1; break;
		case 'x': export = optarg; break;
		case 'f': fp = 1; break;
		case 'h': topo_usage(stdout); return NP_EXIT_OK;
		default:
			np_opt_print("topo: unknown or incomplete option '%s'", argv[optind - 1]);
			topo_usage(stderr);
			return NP_EXIT_USAGE;
		}
	}
	if (optind < argc)
		return np_opt_fail("topo", "unexpected argument (see --help)");
	if (site && xml)
		return np_opt_fail("topo", "--site and --topology exclude each other");
	if (site) {
		if (np_site_topology(&site_xml, &why) < 0)
			return np_opt_fail("topo", "out of memory");
		xml = site_xml;
		/* where the topology comes from, for the record (run keeps it) */
		fprintf(stderr, "numaplan topo: topology: %s\n", why);
	}
	rc = load(xml, cpuset, sysfs, export != NULL, &t, &err);
	free(why);
	if (rc < 0) {
		free(site_xml);
		return np_opt_fail("topo", err.msg);
	}
	free(site_xml);
	if (export && lstat(export, &st) == 0 && S_ISLNK(st.st_mode)) {
		/* the library would replace the link itself (never write
		 * through it); a user who names a link means its target:
		 * neither is done, the link is named */
		np_opt_print("topo: '%s' is a symbolic link, not a regular file: not replaced", export);
		rc = NP_EXIT_FAIL;
	} else if (export) {
		rc = np_topo_export_xml(t, export, &err) < 0 ? NP_EXIT_FAIL : NP_EXIT_OK;
		if (rc != NP_EXIT_OK)
			np_opt_print("topo: %s", err.msg);
	} else if (fp) {
		rc = NP_EXIT_OK;
	} else if (json) {
		char *js = np_topo_to_json(t);

		rc = js ? NP_EXIT_OK : NP_EXIT_FAIL;
		if (js)
			printf("%s\n", js);
		free(js);
	} else {
		rc = np_topo_write_text(stdout, t) < 0 ? NP_EXIT_FAIL : NP_EXIT_OK;
	}
	if (fp && rc == NP_EXIT_OK) {
		char f[NP_FINGERPRINT_LEN];

		np_topo_fingerprint(t, f);
		printf("%s\n", f);
	}
	np_topo_free(t);
	return rc;
}

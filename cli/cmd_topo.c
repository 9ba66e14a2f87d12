/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmd_topo.c - `numaplan topo`: what the planner sees on a node, and the
 * node's topology as XML for planning elsewhere (numaplan run's probe).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "common/optparse.h"
#include "commands.h"
#include "opts.h"
#include "site_topo.h"

typedef struct topo_args {
	const char *xml, *cpuset, *sysfs, *export;
	bool json, site, fingerprint, help;
} topo_args_t;

#define O(f) offsetof(topo_args_t, f)
static const np_optdef_t topo_opts[] = {
	{ .name = "topology", .key = 't', .kind = NP_OPT_STR, .off = O(xml), .arg = "FILE",
	  .help = "an hwloc XML file instead of this node" },
	{ .name = "site", .kind = NP_OPT_FLAG, .off = O(site),
	  .help = "the file the numaplan plugin plans this node on (plugstack.conf)" },
	{ .name = "cpuset", .key = 's', .kind = NP_OPT_STR, .off = O(cpuset), .arg = "LIST",
	  .help = "only these CPUs (default: the allowed set)" },
	{ .name = "sysfs", .kind = NP_OPT_STR, .off = O(sysfs), .arg = "DIR",
	  .help = "adapter port states from this copy of /sys" },
	{ .name = "json", .key = 'j', .kind = NP_OPT_FLAG, .off = O(json), .help = "JSON instead of text" },
	{ .name = "export-xml", .kind = NP_OPT_STR, .off = O(export), .arg = "FILE",
	  .help = "write the whole node's topology as hwloc XML" },
	{ .name = "fingerprint", .kind = NP_OPT_FLAG, .off = O(fingerprint),
	  .help = "the topology's fingerprint (what run groups nodes by)" },
	{ .name = "help", .key = 'h', .kind = NP_OPT_FLAG, .off = O(help), .help = "this text",
	  .flags = NP_OPTF_STOP },
	{ .name = NULL },
};
#undef O

static void topo_usage(FILE *f)
{
	fprintf(f, "Usage: numaplan topo [--topology FILE | --site] [--cpuset LIST] [--sysfs DIR] [--json]\n"
	           "                     [--export-xml FILE] [--fingerprint]\n");
	np_opt_usage(f, topo_opts);
}

/* 0, 1 for --help, or an exit status of 2 with the message printed. */
static int parse(int argc, char **argv, topo_args_t *o)
{
	np_opttable_t t = { topo_opts, o };
	np_optargs_t a;
	np_error_t err = { 0 };
	int rc = np_opt_parse("topo", &t, 1, argc, argv, &a, &err);

	if (rc == 0 && (a.noperands || a.nrest))
		rc = np_error_set(&err, -EINVAL, "unexpected argument '%s' (see --help)",
		                  a.noperands ? a.operands[0] : a.rest[0]);
	if (rc == 0 && o->site && o->xml)
		rc = np_error_set(&err, -EINVAL, "--site and --topology exclude each other");
	np_optargs_free(&a);
	if (rc < 0)
		return np_opt_fail("topo", err.msg);
	return rc;
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

/* What the node is, in the form asked. */
static int show(const topo_args_t *o, np_topo_t *t)
{
	np_error_t err = { 0 };
	struct stat st;
	int rc = NP_EXIT_OK;

	if (o->export && lstat(o->export, &st) == 0 && S_ISLNK(st.st_mode)) {
		/* the library would replace the link itself (never write
		 * through it); a user who names a link means its target:
		 * neither is done, the link is named */
		np_opt_print("topo: '%s' is a symbolic link, not a regular file: not replaced", o->export);
		return NP_EXIT_FAIL;
	} else if (o->export) {
		if (np_topo_export_xml(t, o->export, &err) < 0) {
			np_opt_print("topo: %s", err.msg);
			return NP_EXIT_FAIL;
		}
	} else if (o->fingerprint) {
		/* the fingerprint alone */
	} else if (o->json) {
		char *js = np_topo_to_json(t);
		rc = js ? NP_EXIT_OK : NP_EXIT_FAIL;
		if (js)
			printf("%s\n", js);
		free(js);
	} else {
		rc = np_topo_write_text(stdout, t) < 0 ? NP_EXIT_FAIL : NP_EXIT_OK;
	}
	if (o->fingerprint && rc == NP_EXIT_OK) {
		char f[NP_FINGERPRINT_LEN];
		np_topo_fingerprint(t, f);
		printf("%s\n", f);
	}
	return rc;
}

int np_cmd_topo(int argc, char **argv)
{
	topo_args_t o = { 0 };
	char *site_xml = NULL, *why = NULL;
	np_error_t err = { 0 };
	np_topo_t *t;
	int rc = parse(argc, argv, &o);

	if (rc == 1)
		topo_usage(stdout);
	if (rc)
		return rc == 1 ? NP_EXIT_OK : rc;
	if (o.site) {
		if (np_site_topology(&site_xml, &why) < 0)
			return np_opt_fail("topo", "out of memory");
		o.xml = site_xml;
		/* where the topology comes from, for the record (run keeps it) */
		fprintf(stderr, "numaplan topo: topology: %s\n", why);
		free(why);
	}
	rc = load(o.xml, o.cpuset, o.sysfs, o.export != NULL, &t, &err);
	free(site_xml);
	if (rc < 0)
		return np_opt_fail("topo", err.msg);
	rc = show(&o, t);
	np_topo_free(t);
	return rc;
}

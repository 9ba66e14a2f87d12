/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmd_check.c - `numaplan check`: the faults of this node that the kernel
 * shows (numaplan/check.h), printed as text or JSON (check_print.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/optparse.h"
#include "check_print.h"
#include "commands.h"
#include "opts.h"
#include "site_topo.h"

typedef struct check_args {
	const char *xml, *sysfs;
	bool site, json, all, help;
} check_args_t;

#define O(f) offsetof(check_args_t, f)
static const np_optdef_t check_opts[] = {
	{ .name = "topology", .key = 't', .kind = NP_OPT_STR, .off = O(xml), .arg = "FILE",
	  .help = "the NUMA nodes and packages from an hwloc XML file instead of this node" },
	{ .name = "sysfs", .kind = NP_OPT_STR, .off = O(sysfs), .arg = "DIR",
	  .help = "read this copy of /sys instead of the live one" },
	{ .name = "site", .kind = NP_OPT_FLAG, .off = O(site),
	  .help = "the adapters where the numaplan plugin reads them (plugstack.conf sysfs=)" },
	{ .name = "json", .key = 'j', .kind = NP_OPT_FLAG, .off = O(json), .help = "JSON instead of text" },
	{ .name = "all", .key = 'a', .kind = NP_OPT_FLAG, .off = O(all),
	  .help = "text: every value read, not only faults, unknowns and settings" },
	{ .name = "help", .key = 'h', .kind = NP_OPT_FLAG, .off = O(help), .help = "this text",
	  .flags = NP_OPTF_STOP },
	{ .name = NULL },
};
#undef O

static void check_usage(FILE *f)
{
	fprintf(f, "Usage: numaplan check [--topology FILE] [--sysfs DIR | --site] [--json | --all]\n"
	           "Kinds: pcie-link, memory-balance, cpu-offline, port-rate, ecc, settings.\n"
	           "Exit status: 0 no fault, 1 a finding of severity warn or fail, 2 usage or input error.\n");
	np_opt_usage(f, check_opts);
}

/* 0, 1 for --help, or an exit status of 2 with the message printed. */
static int parse(int argc, char **argv, check_args_t *o)
{
	np_opttable_t t = { check_opts, o };
	np_optargs_t a;
	np_error_t err = { 0 };
	int rc = np_opt_parse("check", &t, 1, argc, argv, &a, &err);

	if (rc == 0 && (a.noperands || a.nrest))
		rc = np_error_set(&err, -EINVAL, "unexpected argument '%s' (see --help)",
		                  a.noperands ? a.operands[0] : a.rest[0]);
	if (rc == 0 && o->site && o->sysfs)
		rc = np_error_set(&err, -EINVAL, "--site and --sysfs exclude each other");
	if (rc == 0 && o->json && o->all)
		rc = np_error_set(&err, -EINVAL, "--all is for the text: --json has every finding");
	np_optargs_free(&a);
	if (rc < 0)
		return np_opt_fail("check", err.msg);
	return rc;
}

int np_cmd_check(int argc, char **argv)
{
	check_args_t o = { 0 };
	np_load_opts_t lo = { .flags = NP_LOAD_WHOLE_MACHINE };
	np_check_opts_t co = { 0 };
	np_check_result_t *res = NULL;
	char *site = NULL, *why = NULL;
	np_error_t err = { 0 };
	np_topo_t *t = NULL;
	int rc = parse(argc, argv, &o);

	if (rc == 1)
		check_usage(stdout);
	if (rc)
		return rc == 1 ? NP_EXIT_OK : rc;
	if (o.site) {
		if (np_site_sysfs(&site, &why) < 0)
			return np_opt_fail("check", "out of memory");
		/* where the adapters were read, for the record (run keeps it) */
		fprintf(stderr, "numaplan check: adapters: %s\n", why);
		free(why);
	}
	/* the whole machine whatever this process's cgroup: a check in a
	 * job step is of the node, not of the step's CPUs */
	lo.xml_path = o.xml;
	co.sysfs = o.sysfs;
	co.ports_sysfs = site;
	if ((rc = np_topo_load(&t, &lo, &err)) == 0)
		rc = np_check_node(t, &co, &res, &err);
	if (rc < 0) {
		free(site);
		np_topo_free(t);
		return np_opt_fail("check", err.msg);
	}
	rc = o.json ? np_check_print_json(stdout, t, res, o.xml, site) : np_check_print_text(stdout, t, res, o.all);
	if (rc == 0)
		rc = res->count[NP_CHECK_WARN] || res->count[NP_CHECK_FAIL] ? NP_EXIT_FAIL : NP_EXIT_OK;
	else
		rc = np_opt_fail("check", "cannot write the output");
	np_check_free(res);
	np_topo_free(t);
	free(site);
	return rc;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * steps_main.c - `numaplan steps`: what the plugin did with the steps of a
 * node (or of the nodes whose records are gathered in one directory), as
 * a summary, JSON, or Prometheus metrics written for node_exporter.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "common/optparse.h"
#include "common/text.h"
#include "report/steps.h"

typedef struct steps_args {
	const char *dir, *since, *partition, *user, *output;
	bool json, prometheus, help;
} steps_args_t;

#define O(f) offsetof(steps_args_t, f)
static const np_optdef_t steps_opts[] = {
	{ .name = "dir", .key = 'd', .kind = NP_OPT_STR, .off = O(dir), .arg = "DIR",
	  .help = "the records' directory (the plugin's record=; default " NP_STEPS_DIR_DEFAULT ")" },
	{ .name = "since", .kind = NP_OPT_STR, .off = O(since), .arg = "WHEN",
	  .help = "only records from then on: 24h, 7d, 30m, 90s, or a UTC date 2026-12-01[T10:00:00Z]" },
	{ .name = "partition", .key = 'p', .kind = NP_OPT_STR, .off = O(partition), .arg = "P",
	  .help = "only the steps of jobs in this partition" },
	{ .name = "user", .key = 'u', .kind = NP_OPT_STR, .off = O(user), .arg = "U",
	  .help = "only the steps of this user" },
	{ .name = "json", .key = 'j', .kind = NP_OPT_FLAG, .off = O(json), .help = "JSON instead of text" },
	{ .name = "prometheus", .kind = NP_OPT_FLAG, .off = O(prometheus),
	  .help = "Prometheus text exposition format (node_exporter's textfile collector)" },
	{ .name = "output", .key = 'o', .kind = NP_OPT_STR, .off = O(output), .arg = "FILE",
	  .help = "write to FILE, replacing it whole (a reader sees the old file or the new one)" },
	{ .name = "help", .key = 'h', .kind = NP_OPT_FLAG, .off = O(help), .help = "this text",
	  .flags = NP_OPTF_STOP },
	{ .name = NULL },
};
#undef O

static void steps_usage(FILE *f)
{
	fprintf(f, "Usage: numaplan steps [--dir DIR] [--since WHEN] [--partition P] [--user U]\n"
	           "                      [--json | --prometheus] [--output FILE]\n"
	           "Exit status: 0, 1 when the records cannot be read, 2 usage error.\n");
	np_opt_usage(f, steps_opts);
}

static int parse(int argc, char **argv, steps_args_t *o)
{
	np_opttable_t t = { steps_opts, o };
	np_optargs_t a;
	np_error_t err = { 0 };
	int rc = np_opt_parse("steps", &t, 1, argc, argv, &a, &err);

	if (rc == 0 && (a.noperands || a.nrest))
		rc = np_error_set(&err, -EINVAL, "unexpected argument '%s' (see --help)",
		                  a.noperands ? a.operands[0] : a.rest[0]);
	if (rc == 0 && o->json && o->prometheus)
		rc = np_error_set(&err, -EINVAL, "--json and --prometheus exclude each other");
	np_optargs_free(&a);
	if (rc < 0) {
		np_opt_print("steps: %s", err.msg);
		return 2;
	}
	return rc;
}

/* FILE.tmp in FILE's directory, then renamed over FILE: node_exporter
 * never reads half a file */
static FILE *open_output(const char *path, char **tmp)
{
	int fd;

	if (asprintf(tmp, "%s.XXXXXX", path) < 0) {
		*tmp = NULL;
		return NULL;
	}
	if ((fd = mkstemp(*tmp)) < 0) {
		free(*tmp);
		*tmp = NULL;
		return NULL;
	}
	(void)fchmod(fd, 0644);
	return fdopen(fd, "w");
}

int np_cmd_steps(int argc, char **argv)
{
	steps_args_t o = { 0 };
	np_steps_filter_t f = { 0 };
	np_steps_sum_t s;
	np_error_t err = { 0 };
	char *tmp = NULL;
	FILE *out = stdout;
	int rc = parse(argc, argv, &o);

	if (rc == 1)
		steps_usage(stdout);
	if (rc)
		return rc == 1 ? 0 : rc;
	if (!o.dir)
		o.dir = NP_STEPS_DIR_DEFAULT;
	if (o.since && np_steps_since(o.since, time(NULL), &f.since, &err) < 0) {
		np_opt_print("steps: %s", err.msg);
		return 2;
	}
	f.partition = o.partition;
	f.user = o.user;
	if (np_steps_read(o.dir, &f, &s, &err) < 0) {
		np_opt_print("steps: %s", err.msg);
		return 1;
	}
	if (o.output && !(out = open_output(o.output, &tmp))) {
		np_opt_print("steps: %s: %s", o.output, strerror(errno));
		np_steps_sum_free(&s);
		return 1;
	}
	if (o.prometheus)
		np_steps_print_prometheus(out, &s);
	else if (o.json)
		rc = np_steps_print_json(out, o.dir, &s) < 0 ? -ENOMEM : 0;
	else
		np_steps_print_text(out, o.dir, &s);
	np_steps_sum_free(&s);
	if (o.output) {
		if (fflush(out) != 0 || fsync(fileno(out)) != 0 || rc < 0)
			rc = -errno ? -errno : -EIO;
		if (fclose(out) != 0 && rc == 0)
			rc = -EIO;
		if (rc == 0 && rename(tmp, o.output) < 0)
			rc = -errno;
		if (rc < 0) {
			np_opt_print("steps: %s: %s", o.output, strerror(-rc));
			unlink(tmp);
		}
		free(tmp);
	}
	return rc < 0 ? 1 : 0;
}

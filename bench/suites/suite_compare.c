/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * suite_compare.c - any command under several placements and thread
 * counts: the bind-vs-unbind study (numactl --cpubind vs nothing), judged
 * by wall time and the speed-up over no binding.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "run/suite.h"
#include "tables/table.h"

extern const np_suite_t np_suite_compare;

typedef struct compare_opts {
	np_policies_t policies;
	const char *threads;        /* NULL: 1 and every core of a task */
} compare_opts_t;

#define MAXLIST 16

/* Split a comma list into at most max items of a writable copy. */
static unsigned split_list(char *s, char **items, unsigned max)
{
	unsigned n = 0;
	char *tok, *save = NULL;

	for (tok = strtok_r(s, ",", &save); tok && n < max; tok = strtok_r(NULL, ",", &save))
		if (*tok)
			items[n++] = tok;
	return n;
}

/* Every item of a --threads list; 0, or -EINVAL with err naming the item. */
static int check_list(const char *opt, const char *val, np_error_t *err)
{
	char *copy = strdup(val), *items[MAXLIST];
	unsigned n, i;
	int rc = 0;

	if (!copy)
		return np_error_set(err, -ENOMEM, "out of memory");
	n = split_list(copy, items, MAXLIST);
	if (n == 0)
		rc = np_error_set(err, -EINVAL, "compare: empty %s", opt);
	for (i = 0; i < n && !rc; i++) {
		unsigned t;
		if (np_parse_uint(items[i], 1, UINT_MAX, &t) < 0)
			rc = np_error_set(err, -EINVAL, "compare: bad thread count '%s' in %s", items[i], opt);
	}
	free(copy);
	return rc;
}

static const np_optdef_t options[] = {
	{ .name = "policies", .kind = NP_OPT_POLICIES, .off = offsetof(compare_opts_t, policies), .arg = "LIST",
	  .help = "policies to compare, each once", .dflt = "none,compact,spread" },
	{ .name = "threads", .kind = NP_OPT_STR, .off = offsetof(compare_opts_t, threads), .arg = "LIST",
	  .help = "threads per task (default 1 and every core of a task)", .check = check_list },
	{ .name = NULL },
};

static int generate(np_run_ctx_t *c, np_error_t *err)
{
	const np_run_opts_t *o = c->opts;
	const compare_opts_t *co = np_suite_opts(o, &np_suite_compare);
	char *thr_copy, *thrs[MAXLIST];
	char dflt_thr[32];
	unsigned np, nt, i, j, nodes = np_run_nodes(c, &np_suite_compare);
	unsigned ntasks = o->ntasks ? o->ntasks : nodes;
	np_sb_t cmd;
	int rc = 0;

	if (ntasks % nodes)
		return np_error_set(err, -EINVAL, "--ntasks %u is not a multiple of --nodes %u", ntasks, nodes);
	if (c->topo->ncores > 1)
		snprintf(dflt_thr, sizeof(dflt_thr), "1,%u", c->topo->ncores / (ntasks / nodes ? ntasks / nodes : 1));
	else
		snprintf(dflt_thr, sizeof(dflt_thr), "1");
	thr_copy = strdup(co->threads ? co->threads : dflt_thr);
	np_sb_init(&cmd);
	np_sb_shq_argv(&cmd, o->ncmd, o->cmd);
	if (!thr_copy || cmd.oom) {
		rc = np_error_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	/* the thread lists given were checked when parsed (check_list), not the default */
	np = co->policies.n;
	nt = split_list(thr_copy, thrs, MAXLIST);
	for (i = 0; i < nt && !rc; i++) {
		unsigned t;
		if (np_parse_uint(thrs[i], 1, UINT_MAX, &t) < 0) {
			rc = np_error_set(err, -EINVAL, "compare: bad thread count '%s' in --threads", thrs[i]);
			break;
		}
		for (j = 0; j < np && !rc; j++) {
			const char *pol = np_policy_name(co->policies.v[j]);
			char name[96];
			np_exp_t *e;
			snprintf(name, sizeof(name), "compare.%s.t%u", pol, t);
			e = np_exp_new(c, np_suite_compare.name, "cmd", name, "compare");
			if (!e) {
				rc = np_error_set(err, -ENOMEM, "out of memory");
				break;
			}
			e->nodes = nodes;
			e->ntasks = ntasks;
			e->threads = t;
			e->mpi = ntasks > nodes;
			e->per_node = !e->mpi && nodes > 1;
			e->cmd = strdup(cmd.s);
			e->desc = np_strdup_printf("policy %s, %u task(s) x %u thread(s)", pol, ntasks, t);
			json_object_set_new(e->params, "policy", json_string(pol));
			json_object_set_new(e->params, "threads", json_integer(t));
			rc = np_exp_plan(c, e, co->policies.v[j], ntasks / nodes, t, err);
		}
	}
out:
	free(thr_copy);
	np_sb_free(&cmd);
	return rc;
}

/* A command prints no figure: its wall time is the result, its exit
 * status the validation. */
static int parse(const np_run_ctx_t *c, const np_exp_t *e, np_kout_t *k)
{
	(void)c;
	(void)e;
	json_object_set_new(k->values, "wall_s", json_real(k->wall));
	k->valid = k->rc == 0;
	if (!k->valid)
		snprintf(k->why, sizeof(k->why), "exit %d%s%s", k->rc, *k->errline ? ": " : "", k->errline);
	return 0;
}

static const char *primary(const np_exp_t *e, bool *higher)
{
	(void)e;
	*higher = false;
	return "wall_s";
}

/* derived.speedup of each placement against 'none' at the same thread
 * count (or the first policy when 'none' was not run), summary.compare */
static void derive(json_t *exps, json_t *summary)
{
	json_t *e, *cmp = json_array();
	size_t i;

	json_array_foreach(exps, i, e) {
		json_t *p = json_object_get(e, "params"), *f, *base = NULL;
		size_t j;
		double w, wb;
		if (!np_suite_has(&np_suite_compare, e))
			continue;
		json_array_foreach(exps, j, f) {
			json_t *q = json_object_get(f, "params");
			if (!np_suite_has(&np_suite_compare, f) ||
			    json_integer_value(json_object_get(q, "threads")) != json_integer_value(json_object_get(p, "threads")))
				continue;
			if (!base || np_json_streq(q, "policy", "none"))
				base = f;
			if (np_json_streq(q, "policy", "none"))
				break;
		}
		w = np_rep_stat(e, "wall_s", "median");
		wb = base ? np_rep_stat(base, "wall_s", "median") : NAN;
		if (isfinite(w) && isfinite(wb) && w > 0)
			json_object_set_new(json_object_get(e, "derived"), "speedup", json_real(wb / w));
		json_array_append_new(cmp, json_pack("{s:s, s:I, s:o, s:o}", "policy", np_json_str(p, "policy"),
		                      "threads", json_integer_value(json_object_get(p, "threads")),
		                      "wall_s", isfinite(w) ? json_real(w) : json_null(),
		                      "speedup", isfinite(w) && isfinite(wb) && w > 0 ? json_real(wb / w) : json_null()));
	}
	if (json_array_size(cmp))
		json_object_set(summary, "compare", cmp);
	json_decref(cmp);
}

static void tables(json_t *res, np_report_t *r)
{
	json_t *s = json_object_get(json_object_get(res, "summary"), "compare"), *e;
	np_table_t *t;
	size_t i;

	if (!json_array_size(s))
		return;
	t = np_table_new(r, "compare", "Placement comparison: wall time and speed-up against no binding", 4,
	                 "policy", "threads", "wall s (median)", "speed-up");
	if (!t)
		return;
	json_array_foreach(s, i, e) {
		char th[16], w[32], sp[32];
		snprintf(th, sizeof(th), "%lld", (long long)json_integer_value(json_object_get(e, "threads")));
		np_fmt_num(w, sizeof(w), np_json_real(e, "wall_s"));
		np_fmt_num(sp, sizeof(sp), np_json_real(e, "speedup"));
		np_table_row(t, np_json_str(e, "policy"), th, w, sp);
	}
}

static void plots(json_t *res, np_sb_t *b)
{
	np_report_bars(b, res, &(np_bars_t){ .suite = &np_suite_compare, .metric = "wall_s",
	               .title = "Bind vs unbind: wall time", .ylabel = "seconds (median)" });
	np_report_bars(b, res, &(np_bars_t){ .suite = &np_suite_compare, .metric = "speedup", .derived = true,
	               .title = "Bind vs unbind: speed-up over no binding", .ylabel = "speed-up",
	               .ref = 1.0, .reflabel = "unbound" });
}

const np_suite_t np_suite_compare = {
	.name = "compare",
	.summary = "any command under several policies and thread counts (after --)",
	.command = true,
	.kernels = (const char *const[]){ "cmd", NULL },
	.opts = options,
	.opts_size = sizeof(compare_opts_t),
	.generate = generate,
	.parse = parse,
	.each_output = true,
	.primary = primary,
	.derive = derive,
	.tables = tables,
	.plots = plots,
};

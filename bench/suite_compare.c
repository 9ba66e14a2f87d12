/*
 * run_suite_compare.c - any command under several placements and thread
 * counts: the bind-vs-unbind study (numactl --cpubind vs nothing).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"
#include "run_util.h"

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

int np_suite_compare(np_run_ctx_t *c, np_error_t *err)
{
	const np_run_opts_t *o = c->opts;
	char *pol_copy, *thr_copy, *pols[16], *thrs[16];
	char dflt_thr[32];
	unsigned np, nt, i, j, nodes = np_run_nodes(c, 1);
	unsigned ntasks = o->ntasks ? o->ntasks : nodes;
	np_sb_t cmd;
	int rc = 0;

	if (o->ncmd == 0)
		return np_error_set(err, -EINVAL, "compare needs a command: numaplan run compare [options] -- CMD [ARGS]");
	if (ntasks % nodes)
		return np_error_set(err, -EINVAL, "--ntasks %u is not a multiple of --nodes %u", ntasks, nodes);
	if (c->topo->ncores > 1)
		snprintf(dflt_thr, sizeof(dflt_thr), "1,%u", c->topo->ncores / (ntasks / nodes ? ntasks / nodes : 1));
	else
		snprintf(dflt_thr, sizeof(dflt_thr), "1");
	pol_copy = strdup(o->policies ? o->policies : "none,compact,spread");
	thr_copy = strdup(o->threads ? o->threads : dflt_thr);
	np_sb_init(&cmd);
	for (i = 0; i < o->ncmd; i++) {
		if (i)
			np_sb_add(&cmd, " ");
		np_sb_shq(&cmd, o->cmd[i]);
	}
	if (!pol_copy || !thr_copy || cmd.oom) {
		rc = np_error_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	np = split_list(pol_copy, pols, 16);
	nt = split_list(thr_copy, thrs, 16);
	if (np == 0 || nt == 0) {
		rc = np_error_set(err, -EINVAL, "compare: empty --policies or --threads");
		goto out;
	}
	for (j = 0; j < np; j++) {
		np_policy_t pp;
		if (np_policy_parse(pols[j], &pp) < 0) {
			rc = np_error_set(err, -EINVAL, "unknown policy '%s' (valid: %s)", pols[j], np_policy_list());
			goto out;
		}
	}
	for (i = 0; i < nt && !rc; i++) {
		unsigned t;
		if (!np_parse_uint(thrs[i], &t) || t == 0) {
			rc = np_error_set(err, -EINVAL, "compare: bad thread count '%s' in --threads", thrs[i]);
			break;
		}
		for (j = 0; j < np && !rc; j++) {
			char name[96];
			np_exp_t *e;
			snprintf(name, sizeof(name), "compare.%s.t%u", pols[j], t);
			e = np_exp_new(c, "compare", "cmd", name, "compare");
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
			e->desc = np_strdup_printf("policy %s, %u task(s) x %u thread(s)", pols[j], ntasks, t);
			json_object_set_new(e->params, "policy", json_string(pols[j]));
			json_object_set_new(e->params, "threads", json_integer(t));
			rc = np_exp_plan(c, e, pols[j], ntasks / nodes, t, err);
		}
	}
out:
	free(pol_copy);
	free(thr_copy);
	np_sb_free(&cmd);
	return rc;
}

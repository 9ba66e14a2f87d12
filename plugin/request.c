/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * request.c - parse --numa-plan values and apply the site's precedence.
 */
#define _GNU_SOURCE
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/parse.h"
#include "common/text.h"
#include "request.h"

void nps_request_init(nps_request_t *r)
{
	memset(r, 0, sizeof(*r));
	r->policy = NP_POLICY_NONE;
	r->mem = NP_MEM_BIND;
}

void nps_request_free(nps_request_t *r)
{
	if (!r)
		return;
	free(r->hca);
	nps_request_init(r);
}

const char *nps_modifiers(char *buf)
{
	char mems[64];
	size_t n = 0;

	/* "bind, interleave, none" -> "bind|interleave|none" */
	for (const char *p = np_mem_list(); *p && n + 1 < sizeof(mems); p++)
		if (*p != ' ')
			mems[n++] = *p == ',' ? '|' : *p;
	mems[n] = '\0';
	snprintf(buf, NPS_MODIFIERS_SIZE,
	         "verbose, mem=%s|KIND|MODE:KIND (KIND: dram, hbm, cxl, gpu, nvm), hca=NAME[:PORT][+NAME[:PORT]...], rails=N, "
	         "gpu-visible=own|all, threads, help", mems);
	return buf;
}

const char *nps_option_usage(char *buf)
{
	char mods[NPS_MODIFIERS_SIZE];

	snprintf(buf, NPS_USAGE_SIZE, "NUMA/HCA-aware task placement: POLICY one of %s; MOD: %s "
	         "(see numaplan-spank(8))", np_policy_list(), nps_modifiers(mods));
	return buf;
}

static int bad_value(np_error_t *err, const char *text, const char *what, const char *word)
{
	char mods[NPS_MODIFIERS_SIZE];

	return np_error_set(err, -EINVAL,
		"invalid --numa-plan value '%s': %s '%s'; valid: POLICY[,MODIFIER...] "
		"with POLICY one of %s and MODIFIER one of %s",
		text, what, word, np_policy_list(), nps_modifiers(mods));
}

/* Device names as the kernel spells them (mlx5_0, hfi1_0, hsi2, eth0),
 * each with an optional :PORT (the form NUMAPLAN_HCA exports); '+'
 * separates several, since ',' separates modifiers. */
static int parse_hca(nps_request_t *r, const char *text, const char *v, np_error_t *err)
{
	np_error_t why = { 0 };
	char *list;
	size_t n = strlen(v);

	if (n == 0)
		return np_error_set(err, -EINVAL, "invalid --numa-plan value '%s': 'hca=' is empty; "
				    "give hca=NAME[+NAME...] or leave it out", text);
	if (v[0] == '+' || v[n - 1] == '+' || strstr(v, "++"))
		return bad_value(err, text, "an empty name in the HCA list", v);
	for (const char *p = v; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("_.:-+", *p))
			return bad_value(err, text, "bad character in HCA name", v);
	if (!(list = strdup(v)))
		return np_error_set(err, -ENOMEM, "out of memory");
	for (char *p = list; *p; p++)
		if (*p == '+')
			*p = ',';
	/* the planner's own syntax check, so that srun refuses early */
	if (np_hca_list_check(list, &why) < 0) {
		free(list);
		return np_error_set(err, -EINVAL, "invalid --numa-plan value '%s': %s; "
		                    "valid: hca=NAME[:PORT][+NAME[:PORT]...]", text, why.msg);
	}
	free(r->hca);
	r->hca = list;
	return 0;
}

/* Each modifier at most once: with mem=none,mem=bind one of the two
 * would be dropped without a word. */
static int repeated(np_error_t *err, const char *text, const char *mod)
{
	return np_error_set(err, -EINVAL,
		"invalid --numa-plan value '%s': the modifier '%s' is given twice; "
		"give each modifier at most once", text, mod);
}

static int parse_word(nps_request_t *r, const char *text, const char *w, np_error_t *err)
{
	np_policy_t p;

	if (!*w)
		return bad_value(err, text, "empty word", w);
	if (np_policy_parse(w, &p) == 0) {
		if (r->has_policy)
			return bad_value(err, text, "a second policy", w);
		r->has_policy = true;
		r->policy = p;
	} else if (!strcmp(w, "verbose")) {
		if (r->verbose)
			return repeated(err, text, w);
		r->verbose = true;
	} else if (!strcmp(w, "help")) {
		if (r->help)
			return repeated(err, text, w);
		r->help = true;
	} else if (!strcmp(w, "threads")) {
		if (r->threads)
			return repeated(err, text, w);
		r->threads = true;
	} else if (!strncmp(w, "mem=", 4)) {
		if (r->has_mem)
			return repeated(err, text, "mem=");
		if (np_mem_spec_parse(w + 4, &r->mem, &r->mem_kind, NULL) < 0)
			return bad_value(err, text, "unknown memory mode or kind", w);
		r->has_mem = true;
	} else if (!strncmp(w, "rails=", 6)) {
		if (r->rails)
			return repeated(err, text, "rails=");
		if (np_parse_uint(w + 6, 1, 64, &r->rails) < 0) {
			r->rails = 0;
			return np_error_set(err, -EINVAL, "invalid --numa-plan value '%s': '%s' is not a "
			                    "number of adapters per task; valid: rails=N with N from 1 to 64",
			                    text, w);
		}
	} else if (!strncmp(w, "gpu-visible=", 12)) {
		if (r->has_gpu_visible)
			return repeated(err, text, "gpu-visible=");
		if (strcmp(w + 12, "own") && strcmp(w + 12, "all"))
			return np_error_set(err, -EINVAL, "invalid --numa-plan value '%s': '%s' is not a "
			                    "choice of visible GPUs; valid: gpu-visible=own (each task its "
			                    "own GPUs) or gpu-visible=all (every GPU of the step, the task's "
			                    "own first)", text, w);
		r->has_gpu_visible = true;
		r->gpu_visible_all = !strcmp(w + 12, "all");
	} else if (!strncmp(w, "hca=", 4)) {
		if (r->hca)
			return repeated(err, text, "hca=");
		return parse_hca(r, text, w + 4, err);
	} else {
		return bad_value(err, text, "unknown policy or modifier", w);
	}
	return 0;
}

int nps_request_parse(nps_request_t *r, const char *text, np_error_t *err)
{
	const char *p, *end;
	char word[128], mods[NPS_MODIFIERS_SIZE];
	int rc;

	nps_request_init(r);
	if (!text || !*text)
		return np_error_set(err, -EINVAL,
			"--numa-plan needs a value: POLICY[,MODIFIER...] with POLICY one of %s "
			"and MODIFIER one of %s", np_policy_list(), nps_modifiers(mods));
	for (p = text;; p = end + 1) {
		size_t n;

		end = strchr(p, ',');
		n = end ? (size_t)(end - p) : strlen(p);
		if (n >= sizeof(word)) {
			nps_request_free(r);
			return np_error_set(err, -EINVAL,
				"invalid --numa-plan value: a word is longer than %zu characters",
				sizeof(word) - 1);
		}
		memcpy(word, p, n);
		word[n] = '\0';
		if ((rc = parse_word(r, text, word, err)) < 0) {
			nps_request_free(r);
			return rc;
		}
		if (!end)
			break;
	}
	return 0;
}

/* The library's rules on what the policy p takes (an adapter list,
 * rails), at srun already: refused there, the step never starts. */
static int options_fit_policy(const nps_request_t *r, np_policy_t p, const char *text,
                              np_error_t *err)
{
	np_plan_opts_t po = NP_PLAN_OPTS_INIT;
	np_error_t why = { 0 };
	int rc;

	if (!r)
		return 0;
	po.policy = p;
	po.hca = r->hca;
	po.rails = r->rails;
	po.gpus_visible_all = r->gpu_visible_all;
	if ((rc = np_plan_opts_check(&po, &why)) == 0)
		return 0;
	return np_error_set(err, rc, "--numa-plan=%s refused: %s%s", text, why.msg,
	                    r->has_policy ? "" : " (this cluster's default)");
}

int nps_request_check(const nps_request_t *r, const char *text,
                      const nps_site_t *s, np_error_t *err)
{
	if (s->enforce) {
		const char *pol = np_policy_name(s->default_policy);

		if (r->has_policy && r->policy != s->default_policy)
			return np_error_set(err, -EPERM,
				"--numa-plan=%s refused: this cluster enforces the policy '%s' "
				"for every step; valid: %s[,verbose]", text, pol, pol);
		if (r->threads || r->has_mem || r->hca || r->rails || r->has_gpu_visible)
			return np_error_set(err, -EPERM,
				"--numa-plan=%s refused: this cluster enforces the policy '%s'; "
				"only the modifier 'verbose' may be added (valid: %s[,verbose])",
				text, pol, pol);
		return 0;
	}
	if (r->has_policy && !nps_site_allows(s, r->policy)) {
		char *allowed = nps_site_allowed_list(s);

		np_error_set(err, -EPERM,
			"--numa-plan=%s refused: the policy '%s' is not allowed on this "
			"cluster; valid: %s", text, np_policy_name(r->policy),
			allowed ? allowed : "?");
		free(allowed);
		return -EPERM;
	}
	return options_fit_policy(r, r->has_policy ? r->policy :
	                          s->has_default ? s->default_policy : NP_POLICY_NONE, text, err);
}

int nps_request_check_any(const nps_request_t *r, const char *text, const nps_site_t *s,
                          np_error_t *err)
{
	nps_site_t tmp = *s;    /* only its effective policy keys change */
	int rc;

	(void)nps_site_select(&tmp, NULL);
	if ((rc = nps_request_check(r, text, &tmp, err)) == 0)
		return 0;
	for (unsigned i = 0; i < s->nparts; i++) {
		np_error_t ignored = { 0 };

		(void)nps_site_select(&tmp, s->parts[i].name);
		if (nps_request_check(r, text, &tmp, &ignored) == 0)
			return 0;
	}
	return rc;
}

int nps_decide(const nps_site_t *s, const nps_request_t *r, const char *text,
               nps_decision_t *d, np_error_t *err)
{
	memset(d, 0, sizeof(*d));
	d->policy = NP_POLICY_NONE;
	d->mem = NP_MEM_BIND;
	d->verbose = s->verbose || (r && r->verbose);

	if (s->enforce) {
		/* The option was checked in srun/sbatch; a value that still
		 * differs came around them (environment, another client) and
		 * must not weaken the site's policy. */
		d->policy = s->default_policy;
		if (r && (r->has_policy ? r->policy != s->default_policy : false))
			snprintf(d->note, sizeof(d->note),
				"this cluster enforces the policy '%s'; --numa-plan=%s ignored",
				np_policy_name(s->default_policy), text ? text : "");
		else if (r && (r->threads || r->has_mem || r->hca || r->rails || r->has_gpu_visible))
			snprintf(d->note, sizeof(d->note),
				"this cluster enforces the policy '%s'; modifiers of --numa-plan=%s ignored",
				np_policy_name(s->default_policy), text ? text : "");
		return 0;
	}
	if (r && r->has_policy) {
		if (!nps_site_allows(s, r->policy))
			return nps_request_check(r, text ? text : "", s, err);
		d->policy = r->policy;
		d->from_user = true;
	} else if (s->has_default) {
		d->policy = s->default_policy;
	}
	if (r) {
		d->threads = r->threads;
		if (r->has_mem) {
			d->mem = r->mem;
			d->mem_kind = r->mem_kind;
		}
		d->hca = r->hca;
		d->rails = r->rails;
		d->gpus_visible_all = r->gpu_visible_all;
	}
	return options_fit_policy(r, d->policy, text ? text : "", err);
}

char *nps_help_text(const nps_site_t *s)
{
	char *text, *site = nps_site_describe(s);

	text = np_strdup_printf(
		"Usage: --numa-plan=POLICY[,MODIFIER...]   (see numaplan-spank(8))\n"
		"Policies:\n"
		"  none      leave the tasks as Slurm placed them\n"
		"  compact   fill the allocated cores in order, NUMA node by NUMA node\n"
		"  spread    share the tasks out evenly, top down: over the packages,\n"
		"            then the NUMA nodes of each package, then their L3 domains\n"
		"  numa      each task whole NUMA nodes, or an equal share of one\n"
		"  socket    the same by package\n"
		"  l3        the same by L3 cache domain\n"
		"  hca-near  the allocated cores closest to an InfiniBand/OpenFabrics HCA\n"
		"  gpu-near  each task its GPU(s), the cores and the adapter nearest them\n"
		"Modifiers:\n"
		"  verbose                     print each task's binding on its stderr\n"
		"  mem=bind|interleave|none    memory policy (default bind; local is\n"
		"                              read as bind)\n"
		"  hca=NAME[:PORT][+NAME...]   only these adapters (hca-near, gpu-near); a plain\n"
		"                              interface (eth0) for TCP and iWARP\n"
		"  rails=N                     N adapters per task, nearest first\n"
		"                              (hca-near, gpu-near)\n"
		"  gpu-visible=own|all         gpu-near: each task sees its own GPU(s) (own,\n"
		"                              the default) or every GPU of the step, its\n"
		"                              own first (all: CUDA IPC, peer access, NCCL)\n"
		"  threads                     place on hardware threads, not cores\n"
		"  help                        this text\n"
		"Also settable as #SBATCH --numa-plan=... and through the environment\n"
		"variable SLURM_SPANK__SLURM_SPANK_OPTION_numaplan_numa_plan.\n"
		"Plugin: numaplan %s%s%s%s, built for Slurm %s\n"
		"This cluster:\n%s", PACKAGE_VERSION, NP_PACKAGE_REVISION[0] ? " (package " : "",
		NP_PACKAGE_REVISION, NP_PACKAGE_REVISION[0] ? ")" : "", NP_SLURM_VERSION,
		site ? site : "  (unavailable)\n");
	free(site);
	return text;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * request.h - a user's --numa-plan=POLICY[,MOD...] value, and what the
 * plugin makes of it once the site's policy is applied.
 */
#ifndef NPS_REQUEST_H
#define NPS_REQUEST_H

#include <stdbool.h>

#include <numaplan.h>
#include "site_config.h"

/* The modifiers the option accepts, for messages: "verbose,
 * mem=bind|interleave|none, ...", the memory modes from the library's
 * own list.  Written into buf (NPS_MODIFIERS_SIZE bytes), returned. */
#define NPS_MODIFIERS_SIZE 320
const char *nps_modifiers(char *buf);

/* The --numa-plan line of srun --help: the policies and modifiers from
 * the library's lists, written into buf (NPS_USAGE_SIZE bytes). */
#define NPS_USAGE_SIZE 384
const char *nps_option_usage(char *buf);

typedef struct nps_request {
	bool has_policy;
	np_policy_t policy;
	bool verbose;
	bool help;
	bool threads;
	bool has_mem;
	np_mem_t mem;
	np_memkind_t mem_kind;  /* mem=hbm, mem=bind:cxl...; UNKNOWN: the CPUs' nodes */
	char *hca;              /* comma-separated, malloc'ed, or NULL */
	unsigned rails;         /* rails=N: adapters per task, 0 when not given */
	bool has_gpu_visible;   /* gpu-visible= given */
	bool gpu_visible_all;   /* gpu-visible=all: every GPU, the task's own first */
} nps_request_t;

void nps_request_init(nps_request_t *r);
void nps_request_free(nps_request_t *r);

/* Syntax only.  The message names the whole value, the word at fault and
 * the valid choices.  r is left in its init state on error. */
int nps_request_parse(nps_request_t *r, const char *text, np_error_t *err);

/* Is the request acceptable under the site's policy (allow=, enforce)?
 * hca= with a policy other than hca-near (the user's, else the default)
 * is refused too. */
int nps_request_check(const nps_request_t *r, const char *text,
                      const nps_site_t *s, np_error_t *err);

/* The same before the job's partition is known (srun's option callback):
 * acceptable when the site-wide rules or some partition's accept it; the
 * error is the site-wide rules'. */
int nps_request_check_any(const nps_request_t *r, const char *text, const nps_site_t *s,
                          np_error_t *err);

/* The outcome of precedence (enforce > user option > default). */
typedef struct nps_decision {
	np_policy_t policy;     /* NP_POLICY_NONE: leave the step alone */
	bool verbose;
	bool threads;
	np_mem_t mem;
	np_memkind_t mem_kind;
	const char *hca;        /* points into the request, or NULL */
	unsigned rails;         /* np_plan_opts_t.rails */
	bool gpus_visible_all;  /* np_plan_opts_t.gpus_visible_all */
	bool from_user;         /* the policy is the user's, not the site's */
	char note[256];         /* for the user (e.g. an ignored request), or "" */
} nps_decision_t;

/* r may be NULL (no --numa-plan).  Errors only for a request the site
 * refuses (or hca= with a policy other than hca-near), which srun/sbatch
 * would have caught unless bypassed. */
int nps_decide(const nps_site_t *s, const nps_request_t *r, const char *text,
               nps_decision_t *d, np_error_t *err);

/* The text printed by --numa-plan=help; malloc'ed */
char *nps_help_text(const nps_site_t *s);

#endif /* NPS_REQUEST_H */

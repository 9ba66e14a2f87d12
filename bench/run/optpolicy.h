/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * optpolicy.h - options whose value is a placement policy, or a list of
 * them: the one place bench/ reads a policy's name (the planner's
 * np_policy_parse), as custom kinds of the option tables (common/optparse.h).
 * In a table, `.kind = NP_OPT_POLICY` gives an np_policy_t field,
 * `.kind = NP_OPT_POLICIES` an np_policies_t one.
 */
#ifndef NP_OPTPOLICY_H
#define NP_OPTPOLICY_H

#include <numaplan/plan.h>
#include "common/optparse.h"

/* Policies in the order given, each at most once. */
typedef struct np_policies {
	unsigned n;
	np_policy_t v[NP_POLICY_COUNT];
} np_policies_t;

int np_opt_policy_parse(void *dst, const char *opt, const char *val, np_error_t *err);
int np_opt_policy_format(const void *src, char *buf, size_t n);
int np_opt_policies_parse(void *dst, const char *opt, const char *val, np_error_t *err);
int np_opt_policies_format(const void *src, char *buf, size_t n);

#define NP_OPT_POLICY NP_OPT_CUSTOM, .parse = np_opt_policy_parse, .format = np_opt_policy_format
#define NP_OPT_POLICIES NP_OPT_CUSTOM, .parse = np_opt_policies_parse, .format = np_opt_policies_format

#endif /* NP_OPTPOLICY_H */

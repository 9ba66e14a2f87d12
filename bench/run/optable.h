/*
 * optable.h - command-line options described by tables: each entry names
 * an option, the kind of its value and where in a struct it goes, its
 * default as one would type it, its range, and its help line.  One parser
 * and one usage printer serve `numaplan run` and every suite.
 */
#ifndef NP_OPTABLE_H
#define NP_OPTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <jansson.h>

#include <numaplan/error.h>
#include <numaplan/plan.h>

typedef enum np_optkind {
	NP_OPT_FLAG,                /* bool, no value */
	NP_OPT_STR,                 /* const char * (the argv text) */
	NP_OPT_UINT,                /* unsigned in [min, max] */
	NP_OPT_DOUBLE,              /* double in (min, max] */
	NP_OPT_BYTES,               /* unsigned long long > 0: 64G, 512M, 4096 */
	NP_OPT_CHOICE,              /* const char *, one of choices */
	NP_OPT_LIST,                /* np_optlist_t: each value of a repeated option */
	NP_OPT_POLICY,              /* np_policy_t: a policy's name */
	NP_OPT_POLICIES,            /* np_policies_t: policy names separated by commas */
} np_optkind_t;

/* Policies in the order given, each at most once. */
typedef struct np_policies {
	unsigned n;
	np_policy_t v[NP_POLICY_COUNT];
} np_policies_t;

typedef struct np_optlist {
	const char **v;
	unsigned n;
} np_optlist_t;

/* Recorded in run.json by `run` and restored by `run --collect`, for the
 * options the results depend on. */
#define NP_OPTF_RECORD 1u

typedef struct np_optdef {
	const char *name;           /* --NAME; NULL ends a table */
	char key;                   /* -KEY, or 0 */
	np_optkind_t kind;
	size_t off;                 /* offset of the value in its struct */
	const char *arg;            /* the value in usage: N, DIR... */
	const char *help;
	const char *dflt;           /* default as typed, or NULL */
	double min, max;            /* UINT: [min, max], DOUBLE: (min, max]; 0, 0: any */
	const char *want;           /* "a positive integer": what a value must be */
	const char *choices;        /* CHOICE: "XS|S|M|L|XL" */
	/* further checks of a value that parsed; 0 or -EINVAL with err set */
	int (*check)(const char *opt, const char *val, np_error_t *err);
	unsigned flags;
} np_optdef_t;

/* Store the value text of option d (called opt in messages: "--size" when
 * --size stands for it) into base; 0, or -EINVAL/-ENOMEM with err set.
 * A list keeps every value. */
int np_opt_set(const np_optdef_t *d, void *base, const char *opt, const char *val, np_error_t *err);
/* Every default of a table; an error here is a bug in the table. */
int np_opt_defaults(const np_optdef_t *defs, void *base, np_error_t *err);
/* Free what the values of a table hold (lists). */
void np_opt_release(const np_optdef_t *defs, void *base);
const np_optdef_t *np_opt_find(const np_optdef_t *defs, const char *name);
/* One line per option: "  -N, --nodes N    help (default 1)". */
void np_opt_usage(FILE *f, const np_optdef_t *defs);

/* The value as JSON (for run.json), and back: false when the JSON value
 * is not a valid value of the option. */
json_t *np_opt_to_json(const np_optdef_t *d, const void *base);
bool np_opt_from_json(const np_optdef_t *d, void *base, json_t *v);
/* run.json's key of an option: wrf-domain -> wrf_domain. */
void np_opt_key(const np_optdef_t *d, char *buf, size_t n);

#endif /* NP_OPTABLE_H */

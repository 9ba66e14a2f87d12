/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * optparse.h - the command line of every numaplan command, described by
 * tables: each entry names an option, the kind of its value and where in
 * a struct it goes, its default as one would type it, its range, and its
 * help line.  One parser and one usage printer serve topo, plan, audit,
 * run (with every suite's own table), report and accept.
 *
 * The parser reads GNU-style command lines: --name VALUE, --name=VALUE,
 * a unique prefix of a long name, -k VALUE, -kVALUE, bundled flags (-qh),
 * operands anywhere before "--", and everything after "--" as it is.  A
 * repeated option keeps its last value, a list option every value.
 */
#ifndef NP_OPTPARSE_H
#define NP_OPTPARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <numaplan/error.h>

typedef enum np_optkind {
	NP_OPT_FLAG,                /* bool, no value */
	NP_OPT_STR,                 /* const char * (the argv text) */
	NP_OPT_UINT,                /* unsigned in [min, max] */
	NP_OPT_DOUBLE,              /* double in (min, max] */
	NP_OPT_BYTES,               /* unsigned long long > 0: 64G, 512M, 4096 */
	NP_OPT_CHOICE,              /* const char *, one of choices */
	NP_OPT_ENUM,                /* int: the index of the value in choices */
	NP_OPT_CONST,               /* int set to ival, no value; see below */
	NP_OPT_LIST,                /* np_optlist_t: each value of a repeated option */
	NP_OPT_CUSTOM,              /* a type of the caller's: its parse and format hooks */
} np_optkind_t;

/* NP_OPT_CONST: several options set one field, each to its own value
 * (--local, --inline: the mode); two of them given together with
 * different values exclude each other. */

typedef struct np_optlist {
	const char **v;
	unsigned n;
} np_optlist_t;

/* Recorded in run.json by `run` and restored by `run --collect`, for the
 * options the results depend on. */
#define NP_OPTF_RECORD 1u
/* Parsing stops here and np_opt_parse returns 1 (--help). */
#define NP_OPTF_STOP 2u
/* DOUBLE: the range is [min, max], 0 and min included. */
#define NP_OPTF_CLOSED 4u

typedef struct np_optdef {
	const char *name;           /* --NAME; NULL ends a table */
	char key;                   /* -KEY, or 0 */
	np_optkind_t kind;
	size_t off;                 /* offset of the value in its struct */
	const char *arg;            /* the value in usage: N, DIR... */
	const char *help;
	const char *dflt;           /* default as typed, or NULL */
	double min, max;            /* UINT: [min, max], DOUBLE: (min, max]; max 0: no bound */
	const char *want;           /* "a positive integer": what a value must be */
	const char *choices;        /* CHOICE, ENUM: "XS|S|M|L|XL" */
	int ival;                   /* CONST: the value it sets */
	/* further checks of a value that parsed; 0 or -EINVAL with err set */
	int (*check)(const char *opt, const char *val, np_error_t *err);
	/* CUSTOM: the text into *dst (0, or -EINVAL with err naming opt and
	 * val), and the value back as it would be typed (0, or -1) */
	int (*parse)(void *dst, const char *opt, const char *val, np_error_t *err);
	int (*format)(const void *src, char *buf, size_t n);
	unsigned flags;
} np_optdef_t;

/* A table and the struct its offsets point into. */
typedef struct np_opttable {
	const np_optdef_t *defs;
	void *base;
} np_opttable_t;

/* What a command line holds besides its options.  The arrays point into
 * argv. */
typedef struct np_optargs {
	char **operands;            /* the words that are no option, in order */
	unsigned noperands;
	bool dashdash;              /* "--" was given */
	char **rest;                /* the words after "--" */
	unsigned nrest;
	const np_optdef_t **given;  /* each option given, once, in order */
	unsigned ngiven;
} np_optargs_t;

/* Parse argv[1..argc) (argv[0] names the command) against the tables:
 * an option declared by several tables sets the value in each.  cmd
 * names the command in messages ("unknown option '--x' (see numaplan
 * run --help)").  0; 1 when an NP_OPTF_STOP option was given; or -EINVAL
 * (-ENOMEM) with err naming the option, the value and what is valid.  a
 * is filled in every case and freed by np_optargs_free. */
int np_opt_parse(const char *cmd, const np_opttable_t *tables, unsigned ntables, int argc, char **argv,
                 np_optargs_t *a, np_error_t *err);
void np_optargs_free(np_optargs_t *a);
/* Whether the option called name was given. */
bool np_opt_given(const np_optargs_t *a, const char *name);

/* Store the value text of option d (called opt in messages: "--size" when
 * --size stands for it) into base; 0, or -EINVAL/-ENOMEM with err set.
 * A list keeps every value. */
int np_opt_set(const np_optdef_t *d, void *base, const char *opt, const char *val, np_error_t *err);
/* Every default of a table; an error here is a bug in the table. */
int np_opt_defaults(const np_optdef_t *defs, void *base, np_error_t *err);
/* Free what the values of a table hold (lists). */
void np_opt_release(const np_optdef_t *defs, void *base);
const np_optdef_t *np_opt_find(const np_optdef_t *defs, const char *name);
/* The name of an ENUM value: its choice number i, or NULL. */
const char *np_opt_choice(const np_optdef_t *d, int i, char *buf, size_t n);
/* One line per option: "  -N, --nodes N    help (default 1)". */
void np_opt_usage(FILE *f, const np_optdef_t *defs);

#endif /* NP_OPTPARSE_H */

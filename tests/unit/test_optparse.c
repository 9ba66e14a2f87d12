/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_optparse.c - the option parser of every numaplan command
 * (common/optparse.h): long and short forms, --opt=value and --opt value,
 * missing values, unknown and ambiguous options, repetition, "--", and
 * the tables' typed values.  Expectations follow the GNU conventions the
 * man pages promise, not the parser's output.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/optparse.h"

enum { MODE_A, MODE_B, MODE_C };

typedef struct opts {
	bool verbose, help;
	unsigned count;
	const char *name;
	double ratio, share;
	unsigned long long mem;
	const char *color;
	int bind;
	int mode;
	np_optlist_t extra;
} opts_t;

#define O(f) offsetof(opts_t, f)
static const np_optdef_t defs[] = {
	{ .name = "verbose", .key = 'v', .kind = NP_OPT_FLAG, .off = O(verbose) },
	{ .name = "count", .key = 'c', .kind = NP_OPT_UINT, .off = O(count), .dflt = "3", .min = 1, .max = 100,
	  .want = "an integer from 1 to 100" },
	{ .name = "name", .key = 'n', .kind = NP_OPT_STR, .off = O(name) },
	{ .name = "nickname", .kind = NP_OPT_STR, .off = O(name) },
	{ .name = "ratio", .kind = NP_OPT_DOUBLE, .off = O(ratio), .max = 1 },
	{ .name = "share", .kind = NP_OPT_DOUBLE, .off = O(share), .max = 100, .flags = NP_OPTF_CLOSED,
	  .want = "a percentage from 0 to 100" },
	{ .name = "mem", .kind = NP_OPT_BYTES, .off = O(mem) },
	{ .name = "color", .kind = NP_OPT_CHOICE, .off = O(color), .choices = "red|green" },
	{ .name = "bind", .kind = NP_OPT_ENUM, .off = O(bind), .choices = "masks|plugin|slurm", .dflt = "masks" },
	{ .name = "alpha", .kind = NP_OPT_CONST, .off = O(mode), .ival = MODE_B },
	{ .name = "beta", .kind = NP_OPT_CONST, .off = O(mode), .ival = MODE_C },
	{ .name = "extra", .key = 'x', .kind = NP_OPT_LIST, .off = O(extra) },
	{ .name = "help", .key = 'h', .kind = NP_OPT_FLAG, .off = O(help), .flags = NP_OPTF_STOP },
	{ .name = NULL },
};
#undef O

/* A second table declaring --count too: both get it. */
typedef struct other { unsigned count; bool quiet; } other_t;
static const np_optdef_t other_defs[] = {
	{ .name = "count", .kind = NP_OPT_UINT, .off = offsetof(other_t, count) },
	{ .name = "quiet", .key = 'q', .kind = NP_OPT_FLAG, .off = offsetof(other_t, quiet) },
	{ .name = NULL },
};

static opts_t o;
static other_t ot;
static np_optargs_t a;
static np_error_t err;

/* Parse the NULL-ended words after "cmd" into fresh opts (defaults set). */
static int parse(const char *w, ...)
{
	np_opttable_t t[2] = { { defs, &o }, { other_defs, &ot } };
	char *argv[32] = { (char *)"cmd" };
	int argc = 1;
	va_list ap;

	np_opt_release(defs, &o);
	np_optargs_free(&a);
	memset(&o, 0, sizeof(o));
	memset(&ot, 0, sizeof(ot));
	np_error_clear(&err);
	assert_int_equal(np_opt_defaults(defs, &o, &err), 0);
	va_start(ap, w);
	for (; w && argc < 31; w = va_arg(ap, const char *))
		argv[argc++] = (char *)w;
	va_end(ap);
	return np_opt_parse("test", t, 2, argc, argv, &a, &err);
}

static int teardown(void **state)
{
	(void)state;
	np_opt_release(defs, &o);
	np_optargs_free(&a);
	return 0;
}

static void test_forms(void **state)
{
	(void)state;
	/* defaults */
	assert_int_equal(parse(NULL), 0);
	assert_int_equal(o.count, 3);
	assert_int_equal(o.bind, 0);
	assert_false(o.verbose);
	assert_int_equal(a.noperands, 0);
	assert_false(a.dashdash);

	/* the four ways to give a value, and the short flag */
	assert_int_equal(parse("--count", "7", NULL), 0);
	assert_int_equal(o.count, 7);
	assert_int_equal(parse("--count=8", NULL), 0);
	assert_int_equal(o.count, 8);
	assert_int_equal(parse("-c", "9", NULL), 0);
	assert_int_equal(o.count, 9);
	assert_int_equal(parse("-c10", NULL), 0);
	assert_int_equal(o.count, 10);
	assert_int_equal(parse("-v", NULL), 0);
	assert_true(o.verbose);
	/* flags bundled, the last one taking a value */
	assert_int_equal(parse("-vqc", "4", NULL), 0);
	assert_true(o.verbose);
	assert_true(ot.quiet);
	assert_int_equal(o.count, 4);

	/* --opt=value keeps everything after the first '=' */
	assert_int_equal(parse("--name=a=b", NULL), 0);
	assert_string_equal(o.name, "a=b");
	/* a value that looks like an option is still the value */
	assert_int_equal(parse("--name", "-v", NULL), 0);
	assert_string_equal(o.name, "-v");
	assert_false(o.verbose);

	/* a unique prefix stands for the option */
	assert_int_equal(parse("--verb", NULL), 0);
	assert_true(o.verbose);
	/* an exact name wins over longer names it prefixes */
	assert_int_equal(parse("--name", "x", NULL), 0);
	assert_string_equal(o.name, "x");
}

static void test_values(void **state)
{
	(void)state;
	assert_int_equal(parse("--ratio", "0.5", "--mem", "2K", "--color", "green", "--bind", "slurm", NULL), 0);
	assert_true(o.ratio == 0.5);
	assert_int_equal(o.mem, 2048);
	assert_string_equal(o.color, "green");
	assert_int_equal(o.bind, 2);

	/* out of range or not a value: the option, the value, what is valid */
	assert_int_equal(parse("--count", "0", NULL), -EINVAL);
	assert_string_equal(err.msg, "bad value '0' for --count: an integer from 1 to 100");
	assert_int_equal(parse("-c", "101", NULL), -EINVAL);
	assert_string_equal(err.msg, "bad value '101' for --count: an integer from 1 to 100");
	assert_int_equal(parse("--ratio", "1.5", NULL), -EINVAL);
	assert_int_equal(parse("--ratio", "0", NULL), -EINVAL);     /* (min, max]: 0 is out */
	/* a closed range holds both ends */
	assert_int_equal(parse("--share", "0", NULL), 0);
	assert_true(o.share == 0);
	assert_int_equal(parse("--share", "100", NULL), 0);
	assert_true(o.share == 100);
	assert_int_equal(parse("--share", "-0.5", NULL), -EINVAL);
	assert_string_equal(err.msg, "bad value '-0.5' for --share: a percentage from 0 to 100");
	assert_int_equal(parse("--share", "100.5", NULL), -EINVAL);
	assert_int_equal(parse("--mem", "lots", NULL), -EINVAL);
	assert_int_equal(parse("--color", "blue", NULL), -EINVAL);
	assert_string_equal(err.msg, "bad value 'blue' for --color: one of red, green");
	assert_int_equal(parse("--bind", "", NULL), -EINVAL);
	assert_string_equal(err.msg, "bad value '' for --bind: one of masks, plugin, slurm");
	/* a prefix of a choice is not the choice */
	assert_int_equal(parse("--bind", "plug", NULL), -EINVAL);
}

static void test_errors(void **state)
{
	(void)state;
	/* missing values: at the end, and before "--" */
	assert_int_equal(parse("--count", NULL), -EINVAL);
	assert_string_equal(err.msg, "option --count needs a value");
	assert_int_equal(parse("-c", NULL), -EINVAL);
	assert_string_equal(err.msg, "option -c needs a value");
	assert_int_equal(parse("--name", "--", "x", NULL), -EINVAL);
	assert_string_equal(err.msg, "option --name needs a value");

	/* unknown, long and short, with where to look */
	assert_int_equal(parse("--frobnicate", NULL), -EINVAL);
	assert_string_equal(err.msg, "unknown option '--frobnicate' (see numaplan test --help)");
	assert_int_equal(parse("--frob=1", NULL), -EINVAL);
	assert_string_equal(err.msg, "unknown option '--frob' (see numaplan test --help)");
	assert_int_equal(parse("-Z", NULL), -EINVAL);
	assert_string_equal(err.msg, "unknown option '-Z' (see numaplan test --help)");
	assert_int_equal(parse("-vZ", NULL), -EINVAL);
	assert_string_equal(err.msg, "unknown option '-Z' (see numaplan test --help)");

	/* a prefix of two options is ambiguous; a flag takes no value */
	assert_int_equal(parse("--n", "x", NULL), -EINVAL);
	assert_non_null(strstr(err.msg, "ambiguous"));
	assert_non_null(strstr(err.msg, "--name"));
	assert_non_null(strstr(err.msg, "--nickname"));
	assert_int_equal(parse("--verbose=yes", NULL), -EINVAL);
	assert_string_equal(err.msg, "option --verbose takes no value");
}

static void test_repeats(void **state)
{
	(void)state;
	/* a value given twice: the last one */
	assert_int_equal(parse("--count", "5", "-c", "6", NULL), 0);
	assert_int_equal(o.count, 6);
	assert_int_equal(a.ngiven, 1);
	/* a list: every value, in order */
	assert_int_equal(parse("--extra", "a", "-x", "b", "--extra=c", NULL), 0);
	assert_int_equal(o.extra.n, 3);
	assert_string_equal(o.extra.v[0], "a");
	assert_string_equal(o.extra.v[1], "b");
	assert_string_equal(o.extra.v[2], "c");
	/* one field set by two options: the same value twice is fine, two
	 * values exclude each other, in either order */
	assert_int_equal(parse("--alpha", "--alpha", NULL), 0);
	assert_int_equal(o.mode, MODE_B);
	assert_int_equal(parse("--beta", NULL), 0);
	assert_int_equal(o.mode, MODE_C);
	assert_int_equal(parse("--alpha", "--beta", NULL), -EINVAL);
	assert_string_equal(err.msg, "--alpha and --beta exclude each other");
	assert_int_equal(parse("--beta", "--alpha", NULL), -EINVAL);
	assert_string_equal(err.msg, "--beta and --alpha exclude each other");
	/* two tables declaring an option both get its value */
	assert_int_equal(parse("--count", "12", NULL), 0);
	assert_int_equal(o.count, 12);
	assert_int_equal(ot.count, 12);
	assert_true(np_opt_given(&a, "count"));
	assert_false(np_opt_given(&a, "name"));
}

static void test_operands(void **state)
{
	(void)state;
	/* operands anywhere before "--", in order; "-" is an operand */
	assert_int_equal(parse("one", "-v", "two", "-", "--count", "4", "three", NULL), 0);
	assert_int_equal(a.noperands, 4);
	assert_string_equal(a.operands[0], "one");
	assert_string_equal(a.operands[1], "two");
	assert_string_equal(a.operands[2], "-");
	assert_string_equal(a.operands[3], "three");
	assert_false(a.dashdash);
	/* after "--" nothing is an option, a second "--" included */
	assert_int_equal(parse("-v", "--", "--count", "x", "--", NULL), 0);
	assert_true(a.dashdash);
	assert_int_equal(a.nrest, 3);
	assert_string_equal(a.rest[0], "--count");
	assert_string_equal(a.rest[2], "--");
	assert_int_equal(o.count, 3);
	assert_int_equal(a.noperands, 0);
	/* "--" last: an empty rest, still said */
	assert_int_equal(parse("--", NULL), 0);
	assert_true(a.dashdash);
	assert_int_equal(a.nrest, 0);
	/* --help stops the walk: what follows is not read */
	assert_int_equal(parse("--help", "--frobnicate", NULL), 1);
	assert_true(o.help);
	assert_int_equal(parse("-vh", NULL), 1);
}

static void test_choice_names(void **state)
{
	char buf[16];

	(void)state;
	assert_string_equal(np_opt_choice(np_opt_find(defs, "bind"), 0, buf, sizeof(buf)), "masks");
	assert_string_equal(np_opt_choice(np_opt_find(defs, "bind"), 2, buf, sizeof(buf)), "slurm");
	assert_null(np_opt_choice(np_opt_find(defs, "bind"), 3, buf, sizeof(buf)));
	assert_null(np_opt_choice(np_opt_find(defs, "bind"), -1, buf, sizeof(buf)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_forms, teardown),
		cmocka_unit_test_teardown(test_values, teardown),
		cmocka_unit_test_teardown(test_errors, teardown),
		cmocka_unit_test_teardown(test_repeats, teardown),
		cmocka_unit_test_teardown(test_operands, teardown),
		cmocka_unit_test_teardown(test_choice_names, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

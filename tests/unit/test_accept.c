/* SPDX-License-Identifier: BSD-3-Clause */
/* test_accept.c - acceptance spec names: shell globs, aliases and the
 * node-count-independent "Nn" component; the hardware check's
 * "check: no KIND" lines (bench/accept) */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "accept/accept.h"

/* A results object with experiments NAME:NODES[:ALIAS]. */
static json_t *results(const char *const *exps)
{
	json_t *r = json_object(), *a = json_array();

	for (; *exps; exps++) {
		char buf[128], *nodes, *alias;
		json_t *e;
		snprintf(buf, sizeof(buf), "%s", *exps);
		nodes = strchr(buf, ':');
		*nodes++ = '\0';
		alias = strchr(nodes, ':');
		if (alias)
			*alias++ = '\0';
		e = json_pack("{s:s, s:i}", "name", buf, "nodes", atoi(nodes));
		if (alias)
			json_object_set_new(e, "aliases", json_pack("[s]", alias));
		json_array_append_new(a, e);
	}
	json_object_set_new(r, "experiments", a);
	return r;
}

/* The names of res's experiments the pattern matches, comma-separated. */
static char *matched(json_t *res, const char *pattern)
{
	static char out[512];
	json_t *e;
	size_t i;

	out[0] = '\0';
	json_array_foreach(json_object_get(res, "experiments"), i, e) {
		const char *as = np_accept_match(res, e, pattern);
		if (as)
			snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%s", out[0] ? "," : "", as);
	}
	return out;
}

static void test_nn_any_node_count(void **state)
{
	static const char *const one[] = { "hpl.1n:1", "himeno.1n:1", "stream.node:1", NULL };
	static const char *const two[] = { "hpl.2n:2", "himeno.1n:1", "himeno.2n:2", "stream.node:2", NULL };
	static const char *const four[] = { "himeno.1n:1", "himeno.2n:2", "himeno.4n:4", NULL };
	json_t *r1 = results(one), *r2 = results(two), *r4 = results(four);

	(void)state;
	/* the run's whole allocation, whatever its size */
	assert_string_equal(matched(r1, "hpl.Nn"), "hpl.1n");
	assert_string_equal(matched(r2, "hpl.Nn"), "hpl.2n");
	/* Himeno's reference runs on fewer nodes are not the Nn run */
	assert_string_equal(matched(r2, "himeno.Nn"), "himeno.2n");
	assert_string_equal(matched(r4, "himeno.Nn"), "himeno.4n");
	assert_string_equal(matched(r1, "himeno.Nn"), "himeno.1n");
	/* a glob for every node count, and the fixed names, still work */
	assert_string_equal(matched(r4, "himeno.*n"), "himeno.1n,himeno.2n,himeno.4n");
	assert_string_equal(matched(r2, "hpl.1n"), "");
	assert_string_equal(matched(r2, "himeno.1n"), "himeno.1n");
	assert_string_equal(matched(r1, "hpl.1n"), "hpl.1n");
	/* Nn with a glob elsewhere: the largest count among what it names */
	assert_string_equal(matched(r2, "*.Nn"), "hpl.2n,himeno.2n");
	/* no such suite: nothing, never a different one */
	assert_string_equal(matched(r2, "osu.Nn"), "");
	json_decref(r1);
	json_decref(r2);
	json_decref(r4);
}

static void test_nn_only_a_whole_component(void **state)
{
	static const char *const e[] = { "x.Nn:1", "hpl.2n:2", "xNn.1n:1", "stream.node:1", NULL };
	json_t *r = results(e);

	(void)state;
	/* "Nn" inside a component is literal text for fnmatch */
	assert_string_equal(matched(r, "xNn.*"), "xNn.1n");
	/* a component Nn is symbolic even where a name holds it literally */
	assert_string_equal(matched(r, "hpl.Nn"), "hpl.2n");
	assert_string_equal(matched(r, "stream.node"), "stream.node");
	json_decref(r);
}

static void test_nn_aliases(void **state)
{
	static const char *const e[] = { "osu.latency.numa5:2:osu.latency.hca-local", "hpl.2n:2", NULL };
	json_t *r = results(e);

	(void)state;
	assert_string_equal(matched(r, "osu.latency.hca-local"), "osu.latency.hca-local");
	assert_string_equal(matched(r, "osu.*.numa5"), "osu.latency.numa5");
	json_decref(r);
}

static void test_spec_keeps_nn(void **state)
{
	np_spec_t s;
	np_error_t err;

	(void)state;
	np_error_clear(&err);
	assert_int_equal(np_spec_parse("check hpl.Nn gflops > 0 GFLOPS\ncheck hpl.1n efficiency > 0\n", "t", &s,
	                               &err), 0);
	assert_int_equal(s.nchecks, 2);
	assert_string_equal(s.checks[0].pattern, "hpl.Nn");
	assert_string_equal(s.checks[1].pattern, "hpl.1n");
	np_spec_free(&s);
}

/* check: no KIND lines: one rule per kind, in order, with their line;
 * a spec of them alone has something to accept; bad kinds are errors. */
static void test_spec_check_kinds(void **state)
{
	np_spec_t s;
	np_error_t err = { 0 };

	(void)state;
	assert_int_equal(np_spec_parse("# hardware\ncheck: no pcie-link, no memory-balance  # comment\n"
	                               "check:no ecc\n", "t.accept", &s, &err), 0);
	assert_int_equal(s.nforbids, 3);
	assert_int_equal(s.nchecks, 0);
	assert_string_equal(s.forbids[0].kind, "pcie-link");
	assert_string_equal(s.forbids[0].text, "check: no pcie-link");
	assert_int_equal(s.forbids[0].line, 2);
	assert_string_equal(s.forbids[1].kind, "memory-balance");
	assert_int_equal(s.forbids[1].line, 2);
	assert_string_equal(s.forbids[2].kind, "ecc");
	assert_int_equal(s.forbids[2].line, 3);
	np_spec_free(&s);
	for (const char *const *bad = (const char *const[]){ "check: no pcie_link\n", "check: pcie-link\n",
	                                                     "check: no pcie-link,\n", "check:\n",
	                                                     "check: no ecc no settings\n", NULL }; *bad; bad++) {
		np_error_clear(&err);
		if (np_spec_parse(*bad, "t.accept", &s, &err) != -EINVAL)
			fail_msg("spec '%s' was accepted", *bad);
		assert_non_null(strstr(err.msg, "t.accept:1: "));
		np_spec_free(&s);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nn_any_node_count),
		cmocka_unit_test(test_nn_only_a_whole_component),
		cmocka_unit_test(test_nn_aliases),
		cmocka_unit_test(test_spec_keeps_nn),
		cmocka_unit_test(test_spec_check_kinds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_json_stream.c - the plan JSON written as it goes (lib/format_plan_json.c)
 * against the jansson tree it replaced: byte for byte the same document
 * over every stored topology and policy, several hosts, and strings that
 * need escaping; a string that is not UTF-8 (which jansson refused) is
 * refused, with nothing written.
 *
 * The reference below is the library's writer as it was before it
 * streamed (jansson, JSON_INDENT(2) | JSON_PRESERVE_ORDER), kept here
 * unchanged as the expectation.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "plan_helpers.h"

/* ---- the reference: the jansson writer of numaplan 0.1 */

static void put(json_t *o, const char *key, json_t *v, bool *bad)
{
	if (json_object_set_new(o, key, v) != 0)
		*bad = true;
}

static void push(json_t *a, json_t *v, bool *bad)
{
	if (json_array_append_new(a, v) != 0)
		*bad = true;
}

static char *dump(json_t *root, bool bad)
{
	char *s = bad || !root ? NULL : json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);

	json_decref(root);
	return s;
}

static json_t *cpulist(const np_cpuset_t *s)
{
	char *txt = np_cpuset_format(s);
	json_t *j = txt ? json_string(txt) : NULL;

	free(txt);
	return j;
}

static json_t *rank_json(const np_topo_t *t, const np_rank_t *r, bool *bad)
{
	json_t *o = json_object(), *env = json_object();

	put(o, "rank", json_integer(r->rank), bad);
	put(o, "local_rank", json_integer(r->local_rank), bad);
	put(o, "host", json_string(r->host), bad);
	put(o, "bound", json_boolean(r->bound), bad);
	put(o, "cpus", cpulist(r->cpus), bad);
	put(o, "ncpus", json_integer(np_cpuset_count(r->cpus)), bad);
	put(o, "mems", cpulist(r->mems), bad);
	put(o, "mempolicy", json_string(r->mem == NP_MEM_NONE ? "none" :
	                    r->mem == NP_MEM_INTERLEAVE ? "interleave" : "bind"), bad);
	put(o, "mem_kind", r->mem_kind != NP_MEMKIND_UNKNOWN ? json_string(np_memkind_name(r->mem_kind)) :
	                   json_null(), bad);
	put(o, "hca", r->hca ? json_string(r->hca) : json_null(), bad);
	if (r->hca) {
		put(o, "hca_port", r->port ? json_integer(r->port) : json_null(), bad);
		put(o, "hca_local", json_boolean(r->hca_local), bad);
		if (r->device >= 0)
			put(o, "hca_kind", json_string(np_dev_kind_name(t->devices[r->device].kind)), bad);
	}
	for (unsigned i = 0; i < r->nenv; i++)
		put(env, r->env[i].name, json_string(r->env[i].value), bad);
	put(o, "env", env, bad);
	{
		json_t *g = json_array(), *gi = json_array(), *h = json_array();

		for (unsigned i = 0; i < r->ngpus; i++) {
			push(g, json_string(r->gpus[i]), bad);
			push(gi, json_integer(r->gpu_index[i]), bad);
		}
		for (unsigned i = 0; i < r->nhcas; i++)
			push(h, r->hca_ports[i] ? json_sprintf("%s:%u", r->hcas[i], r->hca_ports[i]) :
			        json_string(r->hcas[i]), bad);
		put(o, "gpus", g, bad);
		put(o, "gpu_index", gi, bad);
		put(o, "gpu_local", r->ngpus ? json_boolean(r->gpu_local) : json_null(), bad);
		put(o, "hcas", h, bad);
		put(o, "gpu_mems", cpulist(r->gpu_mems), bad);
	}
	return o;
}

static json_t *skipped_json(const np_plan_t *p, bool *bad)
{
	json_t *a = json_array();

	for (unsigned i = 0; i < p->nskipped; i++)
		push(a, json_pack("{s:s, s:s}", "name", p->skipped[i].name,
		                                   "reason", p->skipped[i].reason), bad);
	return a;
}

static char *ref_plan_to_json(const np_topo_t *t, const np_plan_t *p)
{
	json_t *root = json_object(), *ranks = json_array(), *hosts = json_array();
	bool failed = false, *bad = &failed;

	put(root, "policy", json_string(np_policy_name(p->policy)), bad);
	put(root, "requested_policy", json_string(np_policy_name(p->requested)), bad);
	put(root, "topology", json_string(t->source), bad);
	put(root, "ntasks", json_integer(p->nranks), bad);
	put(root, "cpus_per_task", json_integer(p->cpus_per_task), bad);
	put(root, "threads", json_boolean(p->threads), bad);
	put(root, "overcommitted", json_boolean(p->overcommitted), bad);
	for (unsigned i = 0; i < p->nhosts; i++)
		push(hosts, json_string(p->hosts[i]), bad);
	put(root, "hosts", hosts, bad);
	put(root, "note", p->note ? json_string(p->note) : json_null(), bad);
	put(root, "port_states", json_string(t->ports_from ? t->ports_from : "topology"), bad);
	put(root, "skipped_devices", skipped_json(p, bad), bad);
	{
		json_t *u = json_array();

		for (unsigned i = 0; i < p->nunused; i++)
			push(u, json_string(p->unused[i]), bad);
		put(root, "unused_devices", u, bad);
	}
	put(root, "gpus_visible_all", json_boolean(p->gpus_visible_all), bad);
	for (unsigned i = 0; i < p->nranks; i++)
		push(ranks, rank_json(t, &p->ranks[i], bad), bad);
	put(root, "ranks", ranks, bad);
	return dump(root, failed);
}


/* ---- the comparison */

/* The plan's JSON three ways: the reference, np_plan_to_json, and
 * np_plan_write's (which adds a newline); all three the same text. */
static void same_json(const np_topo_t *t, const np_plan_t *p, const char *what)
{
	char *want = ref_plan_to_json(t, p), *got = np_plan_to_json(t, p), *buf = NULL;
	size_t len = 0, at = 0;
	FILE *f = open_memstream(&buf, &len);
	np_error_t err = { 0 };

	assert_non_null(want);
	assert_non_null(got);
	if (strcmp(got, want) != 0) {
		while (got[at] == want[at])
			at++;
		fail_msg("%s: np_plan_to_json differs from byte %zu: '%.60s' instead of '%.60s'",
		         what, at, got + at, want + at);
	}
	assert_non_null(f);
	assert_int_equal(np_plan_write(f, t, p, NP_FMT_JSON, NULL, &err), 0);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(len, strlen(want) + 1);
	assert_memory_equal(buf, want, strlen(want));
	assert_int_equal(buf[len - 1], '\n');
	free(buf);
	free(got);
	free(want);
}

static void test_every_topology_and_policy(void **state)
{
	char **files = all_topologies();
	unsigned compared = 0;

	(void)state;
	for (char **fp = files; *fp; fp++) {
		np_topo_t *t = load_topo(*fp, NULL);

		for (int pol = 0; pol < NP_POLICY_COUNT; pol++) {
			/* every core once, then twice over (overcommitted), and a
			 * few ranks of 3 CPUs with interleaved memory over 2 hosts */
			struct { unsigned n, cpt, nnodes; bool over; np_mem_t mem; } runs[] = {
				{ t->ncores, 1, 0, false, NP_MEM_BIND },
				{ 2 * t->ncores, 1, 0, true, NP_MEM_NONE },
				{ 4, 3, 2, false, NP_MEM_INTERLEAVE },
			};

			for (size_t k = 0; k < sizeof(runs) / sizeof(runs[0]); k++) {
				np_plan_opts_t o = NP_PLAN_OPTS_INIT;
				np_error_t err = { 0 };
				np_plan_t *p;
				char what[512];

				o.policy = (np_policy_t)pol;
				o.ntasks = runs[k].n;
				o.cpus_per_task = runs[k].cpt;
				o.nnodes = runs[k].nnodes;
				o.overcommit = runs[k].over;
				o.mem = runs[k].mem;
				o.rails = pol == NP_POLICY_HCA_NEAR || pol == NP_POLICY_GPU_NEAR ? 2 : 0;
				if (np_plan_compute(t, &o, &p, &err) < 0)
					continue;   /* a plan the node cannot have: nothing to write */
				snprintf(what, sizeof(what), "%s, %s, %u ranks", *fp,
				         np_policy_name(o.policy), o.ntasks);
				same_json(t, p, what);
				np_plan_free(p);
				compared++;
			}
		}
		np_topo_free(t);
	}
	print_message("# %u plans compared\n", compared);
	/* 26 topologies x 8 policies x 3 runs, less the ones a node cannot have */
	assert_true(compared >= 300);
	free_list(files);
}

/* Every character JSON escapes, and UTF-8 it does not, in each kind of
 * string a plan carries: host names, the topology's name, the note, an
 * environment value, an adapter. */
static const char *const nasty[] = {
	"quote\"back\\slash/",
	"ctl\b\f\n\r\t\x01\x1f\x7f",
	"caf\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80 \xe2\x80\xa8",
};

static void replace(char **field, const char *s)
{
	free(*field);
	*field = strdup(s);
	assert_non_null(*field);
}

static void test_escaping(void **state)
{
	np_topo_t *t = load_topo(SPR8480, NULL);
	np_plan_opts_t o = NP_PLAN_OPTS_INIT;
	np_error_t err = { 0 };
	np_plan_t *p;

	(void)state;
	o.policy = NP_POLICY_HCA_NEAR;
	o.ntasks = 6;
	o.hosts = nasty;
	o.nhosts = 3;
	assert_int_equal(np_plan_compute(t, &o, &p, &err), 0);
	same_json(t, p, "host names to escape");
	for (unsigned i = 0; i < 3; i++) {
		/* the plan is the test's: its strings are changed in place */
		replace(&p->note, nasty[i]);
		assert_true(p->ranks[i].nenv > 0 && p->ranks[i].hca);
		replace(&p->ranks[i].env[0].value, nasty[i]);
		replace(&p->ranks[i].hca, nasty[i]);
		replace(&p->ranks[i].hcas[0], nasty[i]);
		replace(&t->source, nasty[i]);
		same_json(t, p, nasty[i]);
	}
	np_plan_free(p);
	np_topo_free(t);
}

/* Not UTF-8: a stray continuation byte, an overlong '/', a surrogate, a
 * code point past U+10FFFF, a cut sequence. */
static void test_not_utf8(void **state)
{
	static const char *const bad[] = { "a\x80", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80",
	                                   "\xe4\xb8" };
	np_topo_t *t = load_topo(EPYC7551, NULL);

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *hosts[] = { "ok", bad[i] };
		np_plan_opts_t o = NP_PLAN_OPTS_INIT;
		np_error_t err = { 0 };
		np_plan_t *p;
		char *buf = NULL;
		size_t len = 0;
		FILE *f;

		o.ntasks = 4;
		o.hosts = hosts;
		o.nhosts = 2;
		assert_int_equal(np_plan_compute(t, &o, &p, &err), 0);
		/* jansson refused the string too */
		assert_null(ref_plan_to_json(t, p));
		assert_null(np_plan_to_json(t, p));
		assert_non_null(f = open_memstream(&buf, &len));
		assert_int_equal(np_plan_write(f, t, p, NP_FMT_JSON, NULL, &err), -EILSEQ);
		assert_int_equal(fclose(f), 0);
		assert_int_equal(len, 0);
		assert_non_null(strstr(err.msg, "not UTF-8"));
		free(buf);
		np_plan_free(p);
	}
	np_topo_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_topology_and_policy),
		cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_not_utf8),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * format_plan_json.c - the JSON form of a plan, written as it goes.
 *
 * A plan may hold a million ranks; a jansson tree of them (a hash table
 * per rank and per environment) cost 15 s and gigabytes where the table
 * costs one second, so the ranks are written one after the other straight
 * to the stream.  The text is the one jansson's dump made with
 * JSON_INDENT(2) | JSON_PRESERVE_ORDER (tests/unit/test_json_stream
 * compares the two), and the fields are a contract: the launcher, the
 * tests and external tools read "policy", "ranks"[].{rank,host,cpus,mems,
 * hca,env}; fields are only ever added.
 *
 * JSON carries Unicode text only: every string is checked to be UTF-8, as
 * jansson checked it, before anything is written, so a plan JSON cannot
 * carry is an error and no partial document.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <numaplan/format.h>

#include "format_internal.h"

/* Is s a whole UTF-8 string as JSON may carry it: no overlong form, no
 * surrogate, nothing past U+10FFFF (jansson's rule). */
static bool utf8_ok(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	if (!s)
		return false;
	while (*p) {
		unsigned c = *p++, n, cp;

		if (c < 0x80)
			continue;
		if (c >= 0xc2 && c <= 0xdf) {
			n = 1; cp = c & 0x1f;
		} else if (c >= 0xe0 && c <= 0xef) {
			n = 2; cp = c & 0x0f;
		} else if (c >= 0xf0 && c <= 0xf4) {
			n = 3; cp = c & 0x07;
		} else {
			return false;
		}
		for (unsigned i = 0; i < n; i++, p++) {
			if ((*p & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (*p & 0x3f);
		}
		if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) || cp > 0x10ffff ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return false;
	}
	return true;
}

/* The first string of the plan JSON cannot carry (NULL: none), and what
 * it is in *what. */
static const char *bad_string(const np_topo_t *t, const np_plan_t *p, const char **what)
{
#define CHECK(s, name) do { if (!utf8_ok(s)) { *what = (name); return (s) ? (s) : ""; } } while (0)
	CHECK(t->source, "the topology's name");
	if (t->ports_from)
		CHECK(t->ports_from, "the port states' root");
	if (p->note)
		CHECK(p->note, "the plan's note");
	for (unsigned i = 0; i < p->nhosts; i++)
		CHECK(p->hosts[i], "a host name");
	for (unsigned i = 0; i < p->nskipped; i++) {
		CHECK(p->skipped[i].name, "a skipped device's name");
		CHECK(p->skipped[i].reason, "a skipped device's reason");
	}
	for (unsigned i = 0; i < p->nunused; i++)
		CHECK(p->unused[i], "an unused device's name");
	for (unsigned i = 0; i < p->nranks; i++) {
		const np_rank_t *r = &p->ranks[i];

		CHECK(r->host, "a rank's host");
		if (r->hca)
			CHECK(r->hca, "a rank's adapter");
		for (unsigned k = 0; k < r->nenv; k++) {
			CHECK(r->env[k].name, "an environment variable's name");
			CHECK(r->env[k].value, "an environment variable's value");
		}
		for (unsigned k = 0; k < r->ngpus; k++)
			CHECK(r->gpus[k], "a rank's GPU");
		for (unsigned k = 0; k < r->nhcas; k++)
			CHECK(r->hcas[k], "a rank's adapter");
	}
	return NULL;
#undef CHECK
}

/*
 * The writer: where it is in the document (depth), whether the container
 * open at each depth has a member yet, and whether a set could not be
 * formatted (out of memory).  Layout as jansson's indent of 2: a member
 * per line, "key": value, "[]" and "{}" when empty.  The text goes through
 * a buffer of its own: a rank is some 150 small pieces, and stdio's
 * locking per call would cost more than the rest of the writing.
 */
#define JW_DEPTH 8
#define JW_BUF 65536

typedef struct jw {
	FILE *f;
	unsigned depth;
	bool has[JW_DEPTH];
	bool oom;
	int werr;                   /* errno of a short write, 0 when none */
	size_t len;
	char buf[JW_BUF];
} jw_t;

/* A short count is the failure to note: a memory stream that cannot grow
 * drops the rest without setting its error flag (glibc 2.36). */
static void put_out(jw_t *w, const char *s, size_t n)
{
	errno = 0;
	if (!w->werr && fwrite(s, 1, n, w->f) != n)
		w->werr = errno ? errno : EIO;
}

static void flush(jw_t *w)
{
	if (w->len)
		put_out(w, w->buf, w->len);
	w->len = 0;
}

static void out(jw_t *w, const char *s, size_t n)
{
	if (w->len + n > JW_BUF) {
		flush(w);
		if (n > JW_BUF) {
			put_out(w, s, n);
			return;
		}
	}
	memcpy(w->buf + w->len, s, n);
	w->len += n;
}

static void outs(jw_t *w, const char *s)
{
	out(w, s, strlen(s));
}

static void outc(jw_t *w, char c)
{
	if (w->len == JW_BUF)
		flush(w);
	w->buf[w->len++] = c;
}

static void outu(jw_t *w, unsigned v)
{
	char d[16];
	int i = (int)sizeof(d);

	do
		d[--i] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	out(w, d + i, sizeof(d) - (size_t)i);
}

static void indent(jw_t *w)
{
	static const char spaces[] = "\n                ";
	size_t n = 1 + 2 * (size_t)w->depth;

	out(w, spaces, n < sizeof(spaces) - 1 ? n : sizeof(spaces) - 1);
}

/* s escaped as jansson escapes: quote, backslash and control characters
 * only, the rest of UTF-8 as is */
static void str_body(jw_t *w, const char *s)
{
	const char *run = s;

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		const char *esc;
		char hex[8];

		if (c == '"')
			esc = "\\\"";
		else if (c == '\\')
			esc = "\\\\";
		else if (c >= 0x20)
			continue;
		else if (c == '\b')
			esc = "\\b";
		else if (c == '\f')
			esc = "\\f";
		else if (c == '\n')
			esc = "\\n";
		else if (c == '\r')
			esc = "\\r";
		else if (c == '\t')
			esc = "\\t";
		else
			esc = (snprintf(hex, sizeof(hex), "\\u%04X", c), hex);
		out(w, run, (size_t)(s - run));
		outs(w, esc);
		run = s + 1;
	}
	out(w, run, (size_t)(s - run));
}

static void str(jw_t *w, const char *s)
{
	outc(w, '"');
	str_body(w, s);
	outc(w, '"');
}

static void member(jw_t *w)
{
	if (w->has[w->depth])
		outc(w, ',');
	w->has[w->depth] = true;
	indent(w);
}

static void key(jw_t *w, const char *k)
{
	member(w);
	str(w, k);
	out(w, ": ", 2);
}

static void open_c(jw_t *w, char c)
{
	outc(w, c);
	w->has[++w->depth] = false;
}

static void close_c(jw_t *w, char c)
{
	bool had = w->has[w->depth--];

	if (had)
		indent(w);
	outc(w, c);
}

static void k_str(jw_t *w, const char *k, const char *v)
{
	key(w, k);
	if (v)
		str(w, v);
	else
		outs(w, "null");
}

static void k_uint(jw_t *w, const char *k, unsigned v)
{
	key(w, k);
	outu(w, v);
}

static void k_bool(jw_t *w, const char *k, bool v)
{
	key(w, k);
	outs(w, v ? "true" : "false");
}

static void k_set(jw_t *w, const char *k, const np_cpuset_t *s)
{
	char *txt = np_cpuset_format(s);

	if (!txt) {
		w->oom = true;
		return;
	}
	k_str(w, k, txt);
	free(txt);
}

static void k_strs(jw_t *w, const char *k, unsigned n, char *const *v)
{
	key(w, k);
	open_c(w, '[');
	for (unsigned i = 0; i < n; i++) {
		member(w);
		str(w, v[i]);
	}
	close_c(w, ']');
}

static void write_rank(jw_t *w, const np_topo_t *t, const np_rank_t *r)
{
	member(w);
	open_c(w, '{');
	k_uint(w, "rank", r->rank);
	k_uint(w, "local_rank", r->local_rank);
	k_str(w, "host", r->host);
	k_bool(w, "bound", r->bound);
	k_set(w, "cpus", r->cpus);
	k_uint(w, "ncpus", np_cpuset_count(r->cpus));
	k_set(w, "mems", r->mems);
	k_str(w, "mempolicy", r->mem == NP_MEM_NONE ? "none" :
	                      r->mem == NP_MEM_INTERLEAVE ? "interleave" : "bind");
	k_str(w, "mem_kind", r->mem_kind != NP_MEMKIND_UNKNOWN ? np_memkind_name(r->mem_kind) : NULL);
	k_str(w, "hca", r->hca);
	if (r->hca) {
		key(w, "hca_port");
		if (r->port)
			outu(w, r->port);
		else
			outs(w, "null");
		k_bool(w, "hca_local", r->hca_local);
		if (r->device >= 0)
			k_str(w, "hca_kind", np_dev_kind_name(t->devices[r->device].kind));
	}
	key(w, "env");
	open_c(w, '{');
	for (unsigned i = 0; i < r->nenv; i++)
		k_str(w, r->env[i].name, r->env[i].value);
	close_c(w, '}');
	k_strs(w, "gpus", r->ngpus, r->gpus);
	key(w, "gpu_index");
	open_c(w, '[');
	for (unsigned i = 0; i < r->ngpus; i++) {
		member(w);
		outu(w, r->gpu_index[i]);
	}
	close_c(w, ']');
	key(w, "gpu_local");
	outs(w, !r->ngpus ? "null" : r->gpu_local ? "true" : "false");
	key(w, "hcas");
	open_c(w, '[');
	for (unsigned i = 0; i < r->nhcas; i++) {
		member(w);
		if (r->hca_ports[i]) {
			outc(w, '"');
			str_body(w, r->hcas[i]);
			outc(w, ':');
			outu(w, r->hca_ports[i]);
			outc(w, '"');
		} else {
			str(w, r->hcas[i]);
		}
	}
	close_c(w, ']');
	k_set(w, "gpu_mems", r->gpu_mems);
	close_c(w, '}');
}

static void write_plan(jw_t *w, const np_topo_t *t, const np_plan_t *p)
{
	open_c(w, '{');
	k_str(w, "policy", np_policy_name(p->policy));
	k_str(w, "requested_policy", np_policy_name(p->requested));
	k_str(w, "topology", t->source);
	k_uint(w, "ntasks", p->nranks);
	k_uint(w, "cpus_per_task", p->cpus_per_task);
	k_bool(w, "threads", p->threads);
	k_bool(w, "overcommitted", p->overcommitted);
	k_strs(w, "hosts", p->nhosts, p->hosts);
	k_str(w, "note", p->note);
	k_str(w, "port_states", t->ports_from ? t->ports_from : "topology");
	key(w, "skipped_devices");
	open_c(w, '[');
	for (unsigned i = 0; i < p->nskipped; i++) {
		member(w);
		open_c(w, '{');
		k_str(w, "name", p->skipped[i].name);
		k_str(w, "reason", p->skipped[i].reason);
		close_c(w, '}');
	}
	close_c(w, ']');
	k_strs(w, "unused_devices", p->nunused, p->unused);
	k_bool(w, "gpus_visible_all", p->gpus_visible_all);
	key(w, "ranks");
	open_c(w, '[');
	for (unsigned i = 0; i < p->nranks && !w->oom && !w->werr; i++)
		write_rank(w, t, &p->ranks[i]);
	close_c(w, ']');
	close_c(w, '}');
}

/* The document, and a newline when nl, to f: 0, -ENOMEM when a set could
 * not be formatted or the writer not made, or the negative errno of a
 * write that fell short. */
static int write_doc(FILE *f, const np_topo_t *t, const np_plan_t *p, bool nl)
{
	jw_t *w = malloc(sizeof(*w));
	int rc;

	if (!w)
		return -ENOMEM;
	w->f = f;
	w->depth = 0;
	w->has[0] = false;
	w->oom = false;
	w->werr = 0;
	w->len = 0;
	write_plan(w, t, p);
	if (nl)
		outc(w, '\n');
	flush(w);
	rc = w->oom ? -ENOMEM : -w->werr;
	free(w);
	return rc;
}

int np_plan_write_json(FILE *f, const np_topo_t *t, const np_plan_t *p, np_error_t *err)
{
	const char *what = NULL, *bad = bad_string(t, p, &what);
	int rc;

	if (bad)
		return np_error_set(err, -EILSEQ, "%s is not UTF-8 text, which JSON cannot carry: "
		                    "'%.200s'", what, bad);
	if ((rc = write_doc(f, t, p, true)) == -ENOMEM)
		return np_error_set(err, rc, "out of memory");
	if (rc < 0)
		return np_error_set(err, rc, "cannot write the plan: %s", strerror(-rc));
	return 0;
}

char *np_plan_to_json(const np_topo_t *t, const np_plan_t *p)
{
	const char *what;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (bad_string(t, p, &what) || !(f = open_memstream(&buf, &len)))
		return NULL;
	if (write_doc(f, t, p, false) < 0 || ferror(f)) {
		fclose(f);
		free(buf);
		return NULL;
	}
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

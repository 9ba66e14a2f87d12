/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * accept_spec.c - reading an acceptance spec.  Every error names the file
 * and line; a spec with an error runs nothing.
 */
#include <errno.h>
#include <float.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <numaplan/check.h>

#include "accept/accept.h"
#include "bench_util.h"

typedef struct unit_def {
	const char *name;
	const char *dim;
	double factor;              /* to the dimension's base unit */
} unit_def_t;

static const unit_def_t units[] = {
	{ "B/s", "bw", 1 }, { "KB/s", "bw", 1e3 }, { "MB/s", "bw", 1e6 }, { "GB/s", "bw", 1e9 },
	{ "TB/s", "bw", 1e12 }, { "KiB/s", "bw", 1024.0 }, { "MiB/s", "bw", 1048576.0 },
	{ "GiB/s", "bw", 1073741824.0 }, { "Mb/s", "bw", 1.25e5 }, { "Gb/s", "bw", 1.25e8 },
	{ "Mbit/s", "bw", 1.25e5 }, { "Gbit/s", "bw", 1.25e8 },
	{ "ns", "time", 1e-9 }, { "us", "time", 1e-6 }, { "ms", "time", 1e-3 }, { "s", "time", 1 },
	{ "FLOPS", "flops", 1 }, { "MFLOPS", "flops", 1e6 }, { "GFLOPS", "flops", 1e9 },
	{ "TFLOPS", "flops", 1e12 }, { "Mflop/s", "flops", 1e6 }, { "Gflop/s", "flops", 1e9 },
	{ "Tflop/s", "flops", 1e12 },
	{ "%", "pct", 1 }, { "messages/s", "rate", 1 }, { "msg/s", "rate", 1 },
};

static const unit_def_t *unit_find(const char *u)
{
	unsigned i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(units[i].name, u) == 0)
			return &units[i];
	/* case-insensitive second chance, but never between bits and bytes */
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcasecmp(units[i].name, u) == 0 && !strchr(u, 'b') == !strchr(units[i].name, 'b'))
			return &units[i];
	return NULL;
}

bool np_unit_convert(double v, const char *from, const char *to, double *out)
{
	const unit_def_t *a, *b;

	if ((!from || !*from) && (!to || !*to)) {
		*out = v;
		return true;
	}
	a = from && *from ? unit_find(from) : NULL;
	b = to && *to ? unit_find(to) : NULL;
	if (!a || !b || strcmp(a->dim, b->dim) != 0)
		return false;
	*out = v * a->factor / b->factor;
	return true;
}

/* Split a line into words (spaces/tabs); comments start with #. */
static unsigned words(char *line, char **w, unsigned max)
{
	unsigned n = 0;
	char *p = strchr(line, '#'), *save = NULL, *tok;

	if (p)
		*p = '\0';
	for (tok = strtok_r(line, " \t\r", &save); tok && n < max; tok = strtok_r(NULL, " \t\r", &save))
		w[n++] = tok;
	return n;
}

static int parse_op(const char *s, np_op_t *op)
{
	if (strcmp(s, ">=") == 0) *op = NP_OP_GE;
	else if (strcmp(s, ">") == 0) *op = NP_OP_GT;
	else if (strcmp(s, "<=") == 0) *op = NP_OP_LE;
	else if (strcmp(s, "<") == 0) *op = NP_OP_LT;
	else return -1;
	return 0;
}

static int fail(np_error_t *err, const char *name, unsigned ln, const char *msg, const char *arg)
{
	return np_error_set(err, -EINVAL, "%s:%u: %s%s%s%s", name, ln, msg, arg ? " '" : "", arg ? arg : "",
	                    arg ? "'" : "");
}

static int parse_check(np_spec_t *s, char **w, unsigned n, const char *orig, const char *name, unsigned ln,
                       np_error_t *err)
{
	np_check_t c;
	unsigned i = 1;
	char *colon;
	np_check_t *nc;

	memset(&c, 0, sizeof(c));
	if (n < 5)
		return fail(err, name, ln, "check needs: check EXPERIMENT METRIC[:STAT] OP VALUE [UNIT | x PEAK]", NULL);
	c.line = ln;
	c.pattern = strdup(w[i++]);
	c.metric = strdup(w[i++]);
	colon = strchr(c.metric, ':');
	c.stat = strdup(colon ? colon + 1 : "median");
	if (colon)
		*colon = '\0';
	if (strcmp(c.stat, "min") && strcmp(c.stat, "median") && strcmp(c.stat, "mean") && strcmp(c.stat, "max")) {
		int rc = fail(err, name, ln, "statistic must be min, median, mean or max, not", c.stat);
		free(c.pattern); free(c.metric); free(c.stat);
		return rc;
	}
	if (i < n && strcmp(w[i], "each-node") == 0) {
		c.each_node = true;
		i++;
	}
	if (i + 1 >= n || parse_op(w[i], &c.op) < 0) {
		free(c.pattern); free(c.metric); free(c.stat);
		return fail(err, name, ln, "expected a comparison (>=, >, <=, <) instead of", i < n ? w[i] : "end of line");
	}
	i++;
	if (np_parse_double(w[i], -DBL_MAX, DBL_MAX, &c.value) < 0) {
		free(c.pattern); free(c.metric); free(c.stat);
		return fail(err, name, ln, "not a number:", w[i]);
	}
	i++;
	if (i < n && (strcmp(w[i], "x") == 0 || strcmp(w[i], "*") == 0)) {
		if (i + 1 >= n) {
			free(c.pattern); free(c.metric); free(c.stat);
			return fail(err, name, ln, "'x' needs a peak name (rpeak, baseline or one of the spec's peak lines)",
			            NULL);
		}
		c.peak = strdup(w[i + 1]);
		i += 2;
	} else if (i < n) {
		if (!unit_find(w[i])) {
			free(c.pattern); free(c.metric); free(c.stat);
			return fail(err, name, ln, "unknown unit", w[i]);
		}
		c.unit = strdup(w[i]);
		i++;
	}
	if (i < n) {
		free(c.pattern); free(c.metric); free(c.stat); free(c.unit); free(c.peak);
		return fail(err, name, ln, "unexpected", w[i]);
	}
	if (c.peak && strcmp(c.peak, "rpeak") != 0 && strcmp(c.peak, "baseline") != 0) {
		unsigned k;
		bool found = false;
		for (k = 0; k < s->npeaks; k++)
			found |= strcmp(s->peaks[k].name, c.peak) == 0;
		if (!found) {
			int rc = fail(err, name, ln, "unknown peak (define it earlier with: peak NAME VALUE UNIT):", c.peak);
			free(c.pattern); free(c.metric); free(c.stat); free(c.peak);
			return rc;
		}
	}
	c.text = strdup(strncmp(orig, "check", 5) == 0 ? orig + 5 + strspn(orig + 5, " \t") : orig);
	nc = realloc(s->checks, (s->nchecks + 1) * sizeof(*nc));
	if (!nc)
		return np_error_set(err, -ENOMEM, "out of memory");
	s->checks = nc;
	s->checks[s->nchecks++] = c;
	return 0;
}

/* check: no KIND, no KIND: one rule per kind, named as numaplan check
 * names them. */
static int parse_forbid(np_spec_t *s, const char *orig, const char *name, unsigned ln, np_error_t *err)
{
	char *list = strdup(orig + strlen("check:")), *item, *next;
	int rc = 0;

	if (!list)
		return np_error_set(err, -ENOMEM, "out of memory");
	/* every item between the commas, an empty one too (a stray comma) */
	for (item = list; item && !rc; item = next) {
		char *w[3];
		unsigned n;
		np_check_kind_t k;
		np_forbid_t *nf;

		if ((next = strchr(item, ',')))
			*next++ = '\0';
		n = words(item, w, 3);
		if (n != 2 || strcmp(w[0], "no") != 0) {
			rc = fail(err, name, ln, "check: needs 'no KIND' items separated by commas, not", n ? w[0] : "nothing");
			break;
		}
		if (np_check_kind_parse(w[1], &k) < 0) {
			rc = fail(err, name, ln, "unknown kind (valid: pcie-link, memory-balance, cpu-offline, port-rate, "
			          "ecc, settings):", w[1]);
			break;
		}
		if (!(nf = realloc(s->forbids, (s->nforbids + 1) * sizeof(*nf)))) {
			rc = np_error_set(err, -ENOMEM, "out of memory");
			break;
		}
		s->forbids = nf;
		nf[s->nforbids].line = ln;
		nf[s->nforbids].kind = strdup(w[1]);
		nf[s->nforbids].text = np_strdup_printf("check: no %s", w[1]);
		if (!nf[s->nforbids].kind || !nf[s->nforbids].text) {
			free(nf[s->nforbids].kind);
			free(nf[s->nforbids].text);
			rc = np_error_set(err, -ENOMEM, "out of memory");
			break;
		}
		s->nforbids++;
	}
	if (!rc && !s->nforbids)
		rc = fail(err, name, ln, "check: names no kind", NULL);
	free(list);
	return rc;
}

int np_spec_parse(const char *text, const char *name, np_spec_t *s, np_error_t *err)
{
	const char *line, *nl;
	unsigned ln = 0;
	int rc = 0;

	memset(s, 0, sizeof(*s));
	for (line = text; line && *line && !rc; line = nl ? nl + 1 : NULL) {
		char buf[1024], orig[1024], *w[64];
		size_t len;
		unsigned n, k;
		nl = strchr(line, '\n');
		len = nl ? (size_t)(nl - line) : strlen(line);
		ln++;
		if (len >= sizeof(buf))
			return fail(err, name, ln, "line too long", NULL);
		memcpy(buf, line, len);
		buf[len] = '\0';
		{
			char *h = strchr(buf, '#');
			size_t ol = h ? (size_t)(h - buf) : len;
			while (ol && (buf[ol - 1] == ' ' || buf[ol - 1] == '\t' || buf[ol - 1] == '\r'))
				ol--;
			const char *st = buf;
			while (*st == ' ' || *st == '\t') {
				st++;
				ol--;
			}
			snprintf(orig, sizeof(orig), "%.*s", (int)ol, st);
		}
		n = words(buf, w, 64);
		if (n == 0)
			continue;
		if (strcmp(w[0], "check:") == 0 || (strncmp(w[0], "check:", 6) == 0 && w[0][6])) {
			rc = parse_forbid(s, orig, name, ln, err);
		} else if (strcmp(w[0], "check") == 0) {
			rc = parse_check(s, w, n, orig, name, ln, err);
		} else if (strcmp(w[0], "peak") == 0) {
			np_peak_t *np;
			double v;
			if (n < 3 || n > 4)
				return fail(err, name, ln, "peak needs: peak NAME VALUE [UNIT]", NULL);
			if (np_parse_double(w[2], -DBL_MAX, DBL_MAX, &v) < 0 || v <= 0)
				return fail(err, name, ln, "peak value must be a positive number, not", w[2]);
			if (n == 4 && !unit_find(w[3]))
				return fail(err, name, ln, "unknown unit", w[3]);
			if (strcmp(w[1], "rpeak") == 0)
				return fail(err, name, ln, "rpeak is built in (from the topology, see --clock)", NULL);
			if (strcmp(w[1], "baseline") == 0)
				return fail(err, name, ln, "baseline is built in (the figures of accept --baseline)", NULL);
			np = realloc(s->peaks, (s->npeaks + 1) * sizeof(*np));
			if (!np)
				return np_error_set(err, -ENOMEM, "out of memory");
			s->peaks = np;
			s->peaks[s->npeaks].name = strdup(w[1]);
			s->peaks[s->npeaks].value = v;
			s->peaks[s->npeaks].unit = n == 4 ? strdup(w[3]) : NULL;
			s->npeaks++;
		} else if (strcmp(w[0], "run") == 0) {
			char ***nr;
			unsigned *na;
			if (n < 2)
				return fail(err, name, ln, "run needs a suite: run SUITE [options]", NULL);
			nr = realloc(s->runs, (s->nruns + 1) * sizeof(*nr));
			if (!nr)
				return np_error_set(err, -ENOMEM, "out of memory");
			s->runs = nr;
			na = realloc(s->run_argc, (s->nruns + 1) * sizeof(*na));
			if (!na)
				return np_error_set(err, -ENOMEM, "out of memory");
			s->run_argc = na;
			s->runs[s->nruns] = calloc(n + 1, sizeof(char *));
			if (!s->runs[s->nruns])
				return np_error_set(err, -ENOMEM, "out of memory");
			for (k = 0; k < n; k++)
				s->runs[s->nruns][k] = strdup(w[k]);
			s->run_argc[s->nruns] = n;
			s->nruns++;
		} else if (strcmp(w[0], "allow") == 0) {
			np_allow_t *na;
			if (n != 3 || strcmp(w[1], "misplaced") != 0)
				return fail(err, name, ln, "allow needs: allow misplaced EXP-GLOB", NULL);
			na = realloc(s->allows, (s->nallows + 1) * sizeof(*na));
			if (!na)
				return np_error_set(err, -ENOMEM, "out of memory");
			s->allows = na;
			s->allows[s->nallows].line = ln;
			if (!(s->allows[s->nallows].pattern = strdup(w[2])))
				return np_error_set(err, -ENOMEM, "out of memory");
			s->nallows++;
		} else {
			return fail(err, name, ln, "unknown directive (valid: run, peak, check, check:, allow):", w[0]);
		}
	}
	if (!rc && s->nchecks == 0 && s->nforbids == 0)
		return np_error_set(err, -EINVAL, "%s: no check line: nothing to accept", name);
	return rc;
}

int np_spec_load(const char *path, np_spec_t *s, np_error_t *err)
{
	char *text = np_read_file(path, NULL, err);
	int rc;

	memset(s, 0, sizeof(*s));
	if (!text)
		return err->code ? err->code : -ENOENT;
	rc = np_spec_parse(text, path, s, err);
	free(text);
	return rc;
}

void np_spec_free(np_spec_t *s)
{
	unsigned i, k;

	for (i = 0; i < s->nruns; i++) {
		for (k = 0; s->runs[i][k]; k++)
			free(s->runs[i][k]);
		free(s->runs[i]);
	}
	free(s->runs);
	free(s->run_argc);
	for (i = 0; i < s->nchecks; i++) {
		np_check_t *c = &s->checks[i];
		free(c->text);
		free(c->pattern);
		free(c->metric);
		free(c->stat);
		free(c->unit);
		free(c->peak);
	}
	free(s->checks);
	for (i = 0; i < s->npeaks; i++) {
		free(s->peaks[i].name);
		free(s->peaks[i].unit);
	}
	free(s->peaks);
	for (i = 0; i < s->nallows; i++)
		free(s->allows[i].pattern);
	free(s->allows);
	for (i = 0; i < s->nforbids; i++) {
		free(s->forbids[i].text);
		free(s->forbids[i].kind);
	}
	free(s->forbids);
	memset(s, 0, sizeof(*s));
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_shape_mutator.c - libFuzzer custom mutator for fuzz_topo.c: edits
 * the tree of an hwloc XML file rather than its bytes, so that most
 * inputs still parse and reach the planner with a shape no machine has
 * (issue 22: packages inside a package made the planner write past its
 * arrays, found by hand, not by byte mutation).
 *
 * One to three of: an object's type renamed; an object wrapped in a copy
 * of itself (a level duplicated); the os_index values of one type's
 * objects permuted, alone or with their cpusets; two sibling objects
 * swapped (their logical indexes permuted); cpusets or nodesets permuted.  One input in four
 * gets libFuzzer's byte mutation instead, so the two kinds mix.
 * Linked with fuzz_topo.c into fuzz/fuzz_shape (tests/Makefile.am).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

static uint32_t rng_next(uint32_t *s)
{
	/* xorshift32: reproducible from libFuzzer's seed */
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/* The buffer being edited: text, NUL-terminated inside data[max]. */
struct buf {
	char *p;
	size_t len, max;
};

/* Replace len bytes at off by rep (n bytes); 0 or -1 when it would not fit. */
static int splice(struct buf *b, size_t off, size_t len, const char *rep, size_t n)
{
	if (b->len - len + n + 1 > b->max)
		return -1;
	memmove(b->p + off + n, b->p + off + len, b->len - off - len + 1);
	memcpy(b->p + off, rep, n);
	b->len = b->len - len + n;
	return 0;
}

/* Offsets of every "<object" (up to cap); returns how many. */
static size_t find_objects(const struct buf *b, size_t *at, size_t cap)
{
	size_t n = 0;

	for (const char *q = b->p; n < cap && (q = strstr(q, "<object")); q += 7)
		at[n++] = (size_t)(q - b->p);
	return n;
}

/* End (one past) of the element starting at off: its "/>" or matching
 * "</object>"; 0 when the file is cut. */
static size_t element_end(const struct buf *b, size_t off)
{
	const char *s = b->p + off, *gt = strchr(s, '>');
	int depth = 1;

	if (!gt)
		return 0;
	if (gt > s && gt[-1] == '/')
		return (size_t)(gt + 1 - b->p);
	for (const char *q = gt + 1; *q; q++) {
		if (!strncmp(q, "<object", 7)) {
			const char *g = strchr(q, '>');

			if (!g)
				return 0;
			if (g[-1] != '/')
				depth++;
			q = g;
		} else if (!strncmp(q, "</object>", 9) && --depth == 0) {
			return (size_t)(q + 9 - b->p);
		}
	}
	return 0;
}

/* The value of attribute name inside the tag at off: offset and length. */
static int attr_at(const struct buf *b, size_t off, const char *name, size_t *vo, size_t *vl)
{
	const char *gt = strchr(b->p + off, '>');
	char pat[32];
	const char *a, *e;

	if (!gt || strlen(name) > 24)
		return -1;
	snprintf(pat, sizeof(pat), " %s=\"", name);
	a = strstr(b->p + off, pat);
	if (!a || a > gt)
		return -1;
	a += strlen(pat);
	e = strchr(a, '"');
	if (!e || e > gt)
		return -1;
	*vo = (size_t)(a - b->p);
	*vl = (size_t)(e - a);
	return 0;
}

static const char *const types[] = { "Machine", "Package", "Die", "NUMANode", "L3Cache", "L2Cache",
	                             "L1Cache", "Core", "PU", "Group", "Misc", "MemCache" };
#define NTYPES (sizeof(types) / sizeof(types[0]))
#define MAXOBJ 4096

static int rename_type(struct buf *b, const size_t *at, size_t n, uint32_t *s)
{
	size_t vo, vl;
	const char *t = types[rng_next(s) % NTYPES];

	if (!n || attr_at(b, at[rng_next(s) % n], "type", &vo, &vl) < 0)
		return -1;
	return splice(b, vo, vl, t, strlen(t));
}

/* Wrap an object in a copy of its own opening tag. */
static int duplicate_level(struct buf *b, const size_t *at, size_t n, uint32_t *s)
{
	size_t off, end, tl;
	char *tag;
	int rc;

	if (!n)
		return -1;
	off = at[rng_next(s) % n];
	end = element_end(b, off);
	if (!end)
		return -1;
	tl = (size_t)(strchr(b->p + off, '>') - (b->p + off)) + 1;
	tag = malloc(tl + 1);
	if (!tag)
		return -1;
	memcpy(tag, b->p + off, tl);
	if (tl >= 2 && tag[tl - 2] == '/') {        /* "<object .../>" opens as "<object ...>" */
		tag[tl - 2] = '>';
		tl--;
	}
	rc = splice(b, end, 0, "</object>", 9);
	if (rc == 0)
		rc = splice(b, off, 0, tag, tl);
	free(tag);
	return rc;
}

/* Permute the values of some attributes, moved together, over the objects
 * of one type (or all) that have them all: os_index alone breaks the tie
 * between a PU's number and its cpuset, os_index with cpuset renumbers a
 * machine consistently. */
static int permute_attrs(struct buf *b, const size_t *at, size_t n, uint32_t *s,
                         const char *const *attrs, size_t na)
{
	char want[16] = "";
	size_t vo, vl, m = 0, *pos = malloc((n ? n : 1) * sizeof(size_t));
	char **val = calloc((n ? n : 1) * na, sizeof(char *));
	int rc = -1;

	if (!pos || !val || !n)
		goto out;
	if (rng_next(s) % 4 && attr_at(b, at[rng_next(s) % n], "type", &vo, &vl) == 0 && vl < sizeof(want)) {
		memcpy(want, b->p + vo, vl);
		want[vl] = '\0';
	}
	for (size_t i = 0; i < n; i++) {
		size_t k;

		if (want[0] && (attr_at(b, at[i], "type", &vo, &vl) < 0 || vl != strlen(want) ||
		                strncmp(b->p + vo, want, vl)))
			continue;
		for (k = 0; k < na && attr_at(b, at[i], attrs[k], &vo, &vl) == 0; k++)
			;
		if (k < na)
			continue;
		pos[m] = at[i];
		for (k = 0; k < na; k++) {
			attr_at(b, at[i], attrs[k], &vo, &vl);
			if (!(val[m * na + k] = strndup(b->p + vo, vl)))
				goto out;
		}
		m++;
	}
	if (m < 2)
		goto out;
	for (size_t i = m - 1; i > 0; i--) {
		size_t j = rng_next(s) % (i + 1);

		for (size_t k = 0; k < na; k++) {
			char *x = val[i * na + k];

			val[i * na + k] = val[j * na + k];
			val[j * na + k] = x;
		}
	}
	/* from the last object, so earlier offsets stay valid; inside one
	 * tag every attribute is found again after the previous edit */
	rc = 0;
	for (size_t i = m; i-- > 0 && rc == 0;)
		for (size_t k = 0; k < na && rc == 0; k++)
			if ((rc = attr_at(b, pos[i], attrs[k], &vo, &vl)) == 0)
				rc = splice(b, vo, vl, val[i * na + k], strlen(val[i * na + k]));
out:
	for (size_t i = 0; val && i < n * na; i++)
		free(val[i]);
	free(val);
	free(pos);
	return rc;
}

/* Swap an object with the sibling element right after it. */
static int swap_siblings(struct buf *b, const size_t *at, size_t n, uint32_t *s)
{
	size_t a, ae, c, ce, la, lc;
	char *tmp;

	if (!n)
		return -1;
	a = at[rng_next(s) % n];
	if (!(ae = element_end(b, a)))
		return -1;
	c = ae;
	while (c < b->len && (b->p[c] == ' ' || b->p[c] == '\n' || b->p[c] == '\t'))
		c++;
	if (strncmp(b->p + c, "<object", 7) || !(ce = element_end(b, c)))
		return -1;
	la = ae - a;
	lc = ce - c;
	if (!(tmp = malloc(ce - a)))
		return -1;
	memcpy(tmp, b->p + c, lc);
	memcpy(tmp + lc, b->p + ae, c - ae);
	memcpy(tmp + lc + (c - ae), b->p + a, la);
	memcpy(b->p + a, tmp, ce - a);
	free(tmp);
	return 0;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	uint32_t s = seed ? seed : 1;
	struct buf b;
	size_t *at, n, orig = size;
	unsigned k = 1 + rng_next(&s) % 3;
	int done = 0;
	static const char *const os[] = { "os_index" };
	static const char *const os_cpus[] = { "os_index", "cpuset", "complete_cpuset" };
	static const char *const nodes[] = { "nodeset" };

	if (rng_next(&s) % 4 == 0 || max_size < 2 || size >= max_size || memchr(data, 0, size))
		return LLVMFuzzerMutate(data, size, max_size);
	data[size] = '\0';
	b = (struct buf){ (char *)data, size, max_size };
	if (!(at = malloc(MAXOBJ * sizeof(*at))))
		return LLVMFuzzerMutate(data, size, max_size);
	while (k--) {
		int rc;

		n = find_objects(&b, at, MAXOBJ);
		switch (rng_next(&s) % 7) {
		case 0: rc = rename_type(&b, at, n, &s); break;
		case 1: rc = duplicate_level(&b, at, n, &s); break;
		case 2: rc = permute_attrs(&b, at, n, &s, os, 1); break;
		case 3: rc = swap_siblings(&b, at, n, &s); break;
		case 4: rc = permute_attrs(&b, at, n, &s, os_cpus, 3); break;
		case 5: rc = permute_attrs(&b, at, n, &s, os_cpus + 1, 1); break;
		default: rc = permute_attrs(&b, at, n, &s, nodes, 1); break;
		}
		done += rc == 0;
	}
	free(at);
	if (!done)
		return LLVMFuzzerMutate(data, orig, max_size);
	return b.len;
}

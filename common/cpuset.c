/* cpuset.c - growable bitmap with Linux cpulist text form */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <numaplan/cpuset.h>

/* Refuse absurd indexes from text so a typo cannot allocate gigabytes. */
#define NP_CPUSET_MAX_INDEX (1u << 20)

np_cpuset_t *np_cpuset_new(void)
{
	return calloc(1, sizeof(np_cpuset_t));
}

void np_cpuset_free(np_cpuset_t *s)
{
	if (!s)
		return;
	free(s->words);
	free(s);
}

static int grow(np_cpuset_t *s, size_t nwords)
{
	uint64_t *w;

	if (nwords <= s->nwords)
		return 0;
	w = realloc(s->words, nwords * sizeof(*w));
	if (!w)
		return -ENOMEM;
	memset(w + s->nwords, 0, (nwords - s->nwords) * sizeof(*w));
	s->words = w;
	s->nwords = nwords;
	return 0;
}

int np_cpuset_copy(np_cpuset_t *dst, const np_cpuset_t *src)
{
	if (grow(dst, src->nwords) < 0)
		return -ENOMEM;
	if (dst->nwords)
		memset(dst->words, 0, dst->nwords * sizeof(uint64_t));
	if (src->nwords)
		memcpy(dst->words, src->words, src->nwords * sizeof(uint64_t));
	return 0;
}

np_cpuset_t *np_cpuset_dup(const np_cpuset_t *s)
{
	np_cpuset_t *d = np_cpuset_new();

	if (d && np_cpuset_copy(d, s) < 0) {
		np_cpuset_free(d);
		return NULL;
	}
	return d;
}

int np_cpuset_set(np_cpuset_t *s, unsigned idx)
{
	if (grow(s, idx / 64 + 1) < 0)
		return -ENOMEM;
	s->words[idx / 64] |= UINT64_C(1) << (idx % 64);
	return 0;
}

int np_cpuset_reserve(np_cpuset_t *s, unsigned n)
{
	return grow(s, (n + 63) / 64);
}

void np_cpuset_clr(np_cpuset_t *s, unsigned idx)
{
	if (idx / 64 < s->nwords)
		s->words[idx / 64] &= ~(UINT64_C(1) << (idx % 64));
}

bool np_cpuset_isset(const np_cpuset_t *s, unsigned idx)
{
	return idx / 64 < s->nwords && (s->words[idx / 64] >> (idx % 64)) & 1;
}

void np_cpuset_zero(np_cpuset_t *s)
{
	if (s->nwords)
		memset(s->words, 0, s->nwords * sizeof(uint64_t));
}

unsigned np_cpuset_count(const np_cpuset_t *s)
{
	unsigned n = 0;

	for (size_t i = 0; i < s->nwords; i++)
		n += (unsigned)__builtin_popcountll(s->words[i]);
	return n;
}

bool np_cpuset_iszero(const np_cpuset_t *s)
{
	for (size_t i = 0; i < s->nwords; i++)
		if (s->words[i])
			return false;
	return true;
}

int np_cpuset_next(const np_cpuset_t *s, int prev)
{
	size_t start = prev < 0 ? 0 : (size_t)prev + 1;

	for (size_t w = start / 64; w < s->nwords; w++) {
		uint64_t bits = s->words[w];

		if (w == start / 64)
			bits &= ~UINT64_C(0) << (start % 64);
		if (bits)
			return (int)(w * 64 + (size_t)__builtin_ctzll(bits));
	}
	return -1;
}

int np_cpuset_first(const np_cpuset_t *s)
{
	return np_cpuset_next(s, -1);
}

int np_cpuset_last(const np_cpuset_t *s)
{
	for (size_t w = s->nwords; w-- > 0;)
		if (s->words[w])
			return (int)(w * 64 + 63 - (size_t)__builtin_clzll(s->words[w]));
	return -1;
}

int np_cpuset_or(np_cpuset_t *dst, const np_cpuset_t *src)
{
	if (grow(dst, src->nwords) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < src->nwords; i++)
		dst->words[i] |= src->words[i];
	return 0;
}

void np_cpuset_and(np_cpuset_t *dst, const np_cpuset_t *src)
{
	for (size_t i = 0; i < dst->nwords; i++)
		dst->words[i] &= i < src->nwords ? src->words[i] : 0;
}

void np_cpuset_andnot(np_cpuset_t *dst, const np_cpuset_t *src)
{
	for (size_t i = 0; i < dst->nwords && i < src->nwords; i++)
		dst->words[i] &= ~src->words[i];
}

bool np_cpuset_equal(const np_cpuset_t *a, const np_cpuset_t *b)
{
	size_t n = a->nwords > b->nwords ? a->nwords : b->nwords;

	for (size_t i = 0; i < n; i++) {
		uint64_t x = i < a->nwords ? a->words[i] : 0;
		uint64_t y = i < b->nwords ? b->words[i] : 0;

		if (x != y)
			return false;
	}
	return true;
}

bool np_cpuset_intersects(const np_cpuset_t *a, const np_cpuset_t *b)
{
	for (size_t i = 0; i < a->nwords && i < b->nwords; i++)
		if (a->words[i] & b->words[i])
			return true;
	return false;
}

bool np_cpuset_included(const np_cpuset_t *sub, const np_cpuset_t *super)
{
	for (size_t i = 0; i < sub->nwords; i++) {
		uint64_t sup = i < super->nwords ? super->words[i] : 0;

		if (sub->words[i] & ~sup)
			return false;
	}
	return true;
}

static int parse_index(const char **p, unsigned *out)
{
	unsigned long v;
	char *end;

	if (!isdigit((unsigned char)**p))
		return -EINVAL;
	errno = 0;
	v = strtoul(*p, &end, 10);
	if (errno || v > NP_CPUSET_MAX_INDEX)
		return -EINVAL;
	*p = end;
	*out = (unsigned)v;
	return 0;
}

int np_cpuset_parse(np_cpuset_t *s, const char *list)
{
	np_cpuset_t *tmp = np_cpuset_new();
	const char *p = list;
	int rc = -EINVAL;

	if (!tmp)
		return -ENOMEM;
	while (*p == ' ' || *p == '\n')
		p++;
	while (*p && *p != '\n') {
		unsigned lo, hi;

		if (parse_index(&p, &lo) < 0)
			goto out;
		hi = lo;
		if (*p == '-') {
			p++;
			if (parse_index(&p, &hi) < 0 || hi < lo)
				goto out;
		}
		for (unsigned i = lo; i <= hi; i++)
			if (np_cpuset_set(tmp, i) < 0) {
				rc = -ENOMEM;
				goto out;
			}
		if (*p == ',') {
			p++;
			if (!isdigit((unsigned char)*p))
				goto out;
		} else if (*p && *p != '\n') {
			goto out;
		}
	}
	rc = np_cpuset_copy(s, tmp);
	if (rc == 0) {
		/* drop stale high words so equal sets compare equal cheaply */
		for (size_t i = tmp->nwords; i < s->nwords; i++)
			s->words[i] = 0;
	}
out:
	np_cpuset_free(tmp);
	return rc;
}

char *np_cpuset_format(const np_cpuset_t *s)
{
	size_t cap = 64, len = 0;
	char *buf = malloc(cap);
	int i = np_cpuset_first(s);

	if (!buf)
		return NULL;
	buf[0] = '\0';
	while (i >= 0) {
		int j = i, n;

		while (np_cpuset_isset(s, (unsigned)j + 1))
			j++;
		for (;;) {
			if (j == i)
				n = snprintf(buf + len, cap - len, "%s%d", len ? "," : "", i);
			else
				n = snprintf(buf + len, cap - len, "%s%d-%d", len ? "," : "", i, j);
			if (n >= 0 && (size_t)n < cap - len)
				break;
			char *nb = realloc(buf, cap * 2);

			if (!nb) {
				free(buf);
				return NULL;
			}
			buf = nb;
			cap *= 2;
		}
		len += (size_t)n;
		i = np_cpuset_next(s, j);
	}
	return buf;
}

char *np_cpuset_format_hex(const np_cpuset_t *s)
{
	int last = np_cpuset_last(s);
	unsigned ndigits = last < 0 ? 1 : (unsigned)last / 4 + 1;
	char *buf = malloc(ndigits + 3);

	if (!buf)
		return NULL;
	buf[0] = '0';
	buf[1] = 'x';
	for (unsigned d = 0; d < ndigits; d++) {
		unsigned base = (ndigits - 1 - d) * 4, nib = 0;

		for (unsigned b = 0; b < 4; b++)
			if (np_cpuset_isset(s, base + b))
				nib |= 1u << b;
		buf[2 + d] = "0123456789abcdef"[nib];
	}
	buf[2 + ndigits] = '\0';
	return buf;
}

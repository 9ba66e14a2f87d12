/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * text.c - a growable string (and a whole file or stream read into one),
 * POSIX shell quoting, the one formatter of figures for people, and the
 * escaped error line of the numaplan command.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <numaplan/error.h>

#include "common/text.h"
#include "common/escape.h"

void np_sb_init(np_sb_t *b)
{
	b->s = NULL;
	b->len = b->cap = 0;
	b->oom = false;
}

void np_sb_free(np_sb_t *b)
{
	free(b->s);
	np_sb_init(b);
}

static bool sb_grow(np_sb_t *b, size_t extra)
{
	size_t want;
	char *n;

	if (b->oom)
		return false;
	want = b->len + extra + 1;
	if (want <= b->cap)
		return true;
	if (want < 2 * b->cap)
		want = 2 * b->cap;
	if (want < 64)
		want = 64;
	n = realloc(b->s, want);
	if (!n) {
		b->oom = true;
		return false;
	}
	b->s = n;
	b->cap = want;
	return true;
}

void np_sb_addn(np_sb_t *b, const char *s, size_t n)
{
	if (!sb_grow(b, n))
		return;
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void np_sb_add(np_sb_t *b, const char *s)
{
	np_sb_addn(b, s, strlen(s));
}

static void sb_vprintf(np_sb_t *b, const char *fmt, va_list ap)
{
	va_list ap2;
	int n;

	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0 || !sb_grow(b, (size_t)n))
		return;
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void np_sb_printf(np_sb_t *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sb_vprintf(b, fmt, ap);
	va_end(ap);
}

void np_sb_shq_with(np_sb_t *b, const char *s, const char *plain)
{
	const char *p;
	bool safe = *s != '\0';

	for (p = s; *p && safe; p++)
		if (!strchr(plain, *p))
			safe = false;
	if (safe) {
		np_sb_add(b, s);
		return;
	}
	np_sb_add(b, "'");
	for (p = s; *p; p++) {
		if (*p == '\'')
			np_sb_add(b, "'\\''");
		else
			np_sb_addn(b, p, 1);
	}
	np_sb_add(b, "'");
}

void np_sb_shq(np_sb_t *b, const char *s)
{
	np_sb_shq_with(b, s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+%@");
}

void np_sb_shq_argv(np_sb_t *b, unsigned n, char *const *argv)
{
	unsigned i;

	np_sb_add(b, "");
	for (i = 0; i < n; i++) {
		if (i)
			np_sb_add(b, " ");
		np_sb_shq(b, argv[i]);
	}
}

void np_sb_add_stream(np_sb_t *b, FILE *f)
{
	char buf[8192];
	size_t n;

	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		np_sb_addn(b, buf, n);
}

char *np_sb_take(np_sb_t *b)
{
	char *s;

	if (b->oom) {
		np_sb_free(b);
		return NULL;
	}
	s = b->s ? b->s : strdup("");
	np_sb_init(b);
	return s;
}

void np_strv_free(char **v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

char *np_strdup_printf(const char *fmt, ...)
{
	np_sb_t b;
	va_list ap;

	np_sb_init(&b);
	va_start(ap, fmt);
	sb_vprintf(&b, fmt, ap);
	va_end(ap);
	return np_sb_take(&b);
}

char *np_memstream_close(FILE *f, char **buf)
{
	/* *buf is only final once the stream is closed */
	if (fclose(f) != 0) {
		free(*buf);
		*buf = NULL;
	}
	return *buf;
}

char *np_read_file(const char *path, size_t *len, np_error_t *err)
{
	FILE *f = fopen(path, "r");
	np_sb_t b;

	if (!f) {
		np_error_set(err, -errno, "cannot read %s: %s", path, strerror(errno));
		return NULL;
	}
	np_sb_init(&b);
	np_sb_add(&b, "");
	np_sb_add_stream(&b, f);
	fclose(f);
	if (len)
		*len = b.len;
	if (b.oom)
		np_error_set(err, -ENOMEM, "out of memory reading %s", path);
	return np_sb_take(&b);
}

size_t np_control_len(const char *str, const char *keep)
{
	const unsigned char *s = (const unsigned char *)str;

	if (*s == 0x7f || (*s < 0x20 && !(keep && strchr(keep, *s))))
		return 1;
	return s[0] == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f ? 2 : 0;
}

size_t np_fput_control(FILE *f, const char *s, const char *keep)
{
	size_t n = np_control_len(s, keep);

	for (size_t i = 0; i < n; i++)
		fprintf(f, "\\x%02x", (unsigned char)s[i]);
	return n;
}

void np_fputs_visible(FILE *f, const char *s, const char *keep)
{
	size_t n;

	for (; *s; s += n ? n : 1)
		if ((n = np_fput_control(f, s, keep)) == 0)
			fputc(*s, f);
}

bool np_has_control(const char *s, const char *keep)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (np_control_len((const char *)p, keep))
			return true;
	return false;
}

/* Figures print with about 3 significant digits but never in exponent
 * form above 0.01: 123456, 1234, 12.3, 1.235, 0.123, 0.00123. */
void np_fmt_num(char *buf, size_t n, double v)
{
	if (!isfinite(v))
		snprintf(buf, n, "-");
	else if (fabs(v) >= 1000)
		snprintf(buf, n, "%.0f", v);
	else if (fabs(v) >= 10)
		snprintf(buf, n, "%.1f", v);
	else if (fabs(v) >= 0.01 || v == 0)
		snprintf(buf, n, "%.3f", v);
	else
		snprintf(buf, n, "%.3g", v);
}

void np_opt_print(const char *fmt, ...)
{
	char msg[2 * NP_ERRMSG_MAX], safe[NP_ESCAPED_SIZE(sizeof(msg))];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "numaplan %s\n", np_escape(safe, sizeof(safe), msg));
}

void np_strcut(char *d, size_t n, const char *s)
{
	size_t l = strlen(s);

	if (l >= n)
		l = n - 1;
	memcpy(d, s, l);
	d[l] = '\0';
}

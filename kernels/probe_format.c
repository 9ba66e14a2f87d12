/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * probe_format.c - one task's report as one line: key=value text for
 * people and shell tests, or a JSON object for jq.
 */
#include "config.h"

#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "probe.h"

/* A growing string; on ENOMEM it is freed and stays NULL. */
struct sbuf {
	char *s;
	size_t len, cap;
};

static void sb_add(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_add(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!b->s)
		return;
	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
		if (n < 0) {
			free(b->s);
			b->s = NULL;
			return;
		}
		if ((size_t)n < b->cap - b->len) {
			b->len += (size_t)n;
			return;
		}
		char *ns = realloc(b->s, b->cap * 2 + (size_t)n);

		if (!ns) {
			free(b->s);
			b->s = NULL;
			return;
		}
		b->s = ns;
		b->cap = b->cap * 2 + (size_t)n;
	}
}

static const char *or_dash(const char *s)
{
	return s && *s ? s : "-";
}

int np_probe_format_text(const struct np_probe_info *pi, char **line, np_error_t *err)
{
	struct sbuf b = { malloc(256), 0, 256 };

	if (b.s)
		b.s[0] = '\0';
	sb_add(&b, "host=%s rank=%ld local_rank=%ld", pi->host, pi->rank, pi->local_rank);
	if (pi->have_pmix)
		sb_add(&b, " pmix_rank=%ld pmix_local_rank=%ld", pi->pmix_rank, pi->pmix_local_rank);
	sb_add(&b, " cpus=%s mempolicy=%s mems=%s mems_allowed=%s", or_dash(pi->cpus),
	       pi->mempolicy ? pi->mempolicy : "unknown", or_dash(pi->mems),
	       or_dash(pi->mems_allowed));
	if (pi->touched) {
		const char *sep = "";

		sb_add(&b, " pages=");
		for (unsigned n = 0; n < pi->pages_nnodes; n++)
			if (pi->pages_on[n]) {
				sb_add(&b, "%s%u:%lu", sep, n, pi->pages_on[n]);
				sep = ",";
			}
		if (pi->pages_unknown)
			sb_add(&b, "%s?:%lu", sep, pi->pages_unknown);
	}
	if (pi->devices_read) {
		sb_add(&b, " devices=");
		for (size_t i = 0; i < pi->ndevices; i++)
			sb_add(&b, "%s%s:%s", i ? "," : "", np_devkind_name(pi->devices[i].kind),
			       pi->devices[i].pci[0] && !np_devkind_is_nic(pi->devices[i].kind) ? pi->devices[i].pci
			                                                                   : pi->devices[i].name);
		if (!pi->ndevices)
			sb_add(&b, "-");
	}
	for (const char *const *n = np_probe_env_names; *n; n++) {
		const char *v = getenv(*n);

		if (v)
			sb_add(&b, " %s=%s", *n, v);
	}
	if (!b.s)
		return np_error_set(err, -ENOMEM, "out of memory");
	*line = b.s;
	return 0;
}

static int set_str(json_t *o, const char *key, const char *val)
{
	json_t *v = val ? json_string(val) : json_null();

	return v ? json_object_set_new(o, key, v) : -1;
}

/* "pages": {"0": 512, "3": 512}, nodes with pages only; "pages_total",
 * and "pages_unknown" for pages move_pages(2) could not place. */
static int set_pages(json_t *o, const struct np_probe_info *pi)
{
	json_t *pages = json_object();
	int bad = !pages;

	for (unsigned n = 0; !bad && n < pi->pages_nnodes; n++)
		if (pi->pages_on[n]) {
			char key[16];

			snprintf(key, sizeof(key), "%u", n);
			bad |= json_object_set_new(pages, key, json_integer((json_int_t)pi->pages_on[n])) < 0;
		}
	if (bad) {
		json_decref(pages);
		return -1;
	}
	bad |= json_object_set_new(o, "pages", pages) < 0;
	bad |= json_object_set_new(o, "pages_total", json_integer((json_int_t)pi->pages_total)) < 0;
	bad |= json_object_set_new(o, "pages_unknown", json_integer((json_int_t)pi->pages_unknown)) < 0;
	return bad ? -1 : 0;
}

/* "devices": [{kind, file, name, pci}] as the process holds them;
 * "open_errors": what could not be opened */
static int set_devices(json_t *o, const struct np_probe_info *pi)
{
	json_t *a = json_array(), *e = json_array();
	int bad = !a || !e;

	for (size_t i = 0; !bad && i < pi->ndevices; i++) {
		const np_devopen_t *d = &pi->devices[i];
		json_t *s = json_pack("{s:s, s:s, s:s, s:s}", "kind", np_devkind_name(d->kind), "file", d->file, "name",
		                      d->name, "pci", d->pci);
		bad |= !s || json_array_append_new(a, s) < 0;
	}
	for (size_t i = 0; !bad && i < pi->nopen_errors; i++) {
		json_t *s = json_string(pi->open_errors[i]);
		bad |= json_array_append_new(e, s ? s : json_null()) < 0;
	}
	if (bad) {
		json_decref(a);
		json_decref(e);
		return -1;
	}
	bad |= json_object_set_new(o, "devices", a) < 0;
	bad |= json_object_set_new(o, "open_errors", e) < 0;
	return bad ? -1 : 0;
}

int np_probe_format_json(const struct np_probe_info *pi, char **line, np_error_t *err)
{
	json_t *o = json_object(), *env = json_object();
	int bad = !o || !env;

	/* Environment values need not be UTF-8: those jansson refuses
	 * become null rather than losing the whole line. */
	for (const char *const *n = np_probe_env_names; env && *n; n++) {
		const char *v = getenv(*n);
		json_t *s = v ? json_string(v) : NULL;

		bad |= json_object_set_new(env, *n, s ? s : json_null()) < 0;
	}
	if (!bad) {
		bad |= set_str(o, "host", pi->host) < 0;
		bad |= json_object_set_new(o, "rank", json_integer(pi->rank)) < 0;
		bad |= json_object_set_new(o, "local_rank", json_integer(pi->local_rank)) < 0;
		if (pi->have_pmix) {
			bad |= json_object_set_new(o, "pmix_rank", json_integer(pi->pmix_rank)) < 0;
			bad |= json_object_set_new(o, "pmix_local_rank",
						   json_integer(pi->pmix_local_rank)) < 0;
		}
		if (pi->slurm_procid >= 0)
			bad |= json_object_set_new(o, "slurm_procid", json_integer(pi->slurm_procid)) < 0;
		if (pi->mpi_library[0])
			bad |= set_str(o, "mpi_library", pi->mpi_library) < 0;
		bad |= set_str(o, "cpus", pi->cpus ? pi->cpus : "") < 0;
		bad |= set_str(o, "mempolicy", pi->mempolicy ? pi->mempolicy : "unknown") < 0;
		bad |= set_str(o, "mems", pi->mems ? pi->mems : "") < 0;
		bad |= set_str(o, "mems_allowed", pi->mems_allowed ? pi->mems_allowed : "") < 0;
		if (pi->touched)
			bad |= set_pages(o, pi) < 0;
		if (pi->devices_read)
			bad |= set_devices(o, pi) < 0;
		bad |= json_object_set(o, "env", env) < 0;
	}
	*line = bad ? NULL : json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(env);
	json_decref(o);
	if (!*line)
		return np_error_set(err, -ENOMEM, "cannot build the JSON line");
	return 0;
}

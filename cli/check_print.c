/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * check_print.c - numaplan check's findings as text and as JSON.
 *
 * The library keeps what it read printable, but a copy of /sys is
 * anyone's: text goes through np_fputs_visible all the same.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "check_print.h"
#include "common/text.h"

/* The worst severity found, as the JSON's status: "ok" below warn. */
static const char *status(const np_check_result_t *c)
{
	return c->count[NP_CHECK_FAIL] ? "fail" : c->count[NP_CHECK_WARN] ? "warn" : "ok";
}

static void line(FILE *f, const np_finding_t *x, bool detail)
{
	fprintf(f, "%-7s %-14s ", np_check_severity_name(x->severity), np_check_kind_name(x->kind));
	np_fputs_visible(f, x->object, "");
	fputs(": ", f);
	np_fputs_visible(f, x->found, "");
	if (x->expected) {
		fputs(" (expected ", f);
		np_fputs_visible(f, x->expected, "");
		fputs(")", f);
	}
	fputs("\n", f);
	if (detail && x->detail) {
		fputs("        ", f);
		np_fputs_visible(f, x->detail, "");
		fputs("\n", f);
	}
}

int np_check_print_text(FILE *f, const np_topo_t *t, const np_check_result_t *c, bool all)
{
	unsigned hidden = 0;

	fputs("numaplan check: ", f);
	np_fputs_visible(f, t->hostname ? t->hostname : "this node", "");
	fputs(" (sysfs ", f);
	np_fputs_visible(f, c->sysfs, "");
	fputs(")\n", f);
	for (unsigned i = 0; i < c->nfindings; i++) {
		const np_finding_t *x = &c->findings[i];
		bool info = x->severity == NP_CHECK_INFO;

		if (all || !info || x->kind == NP_CHECK_SETTINGS)
			line(f, x, !info || all);
		else
			hidden++;
	}
	fprintf(f, "%u fault(s): %u fail, %u warn; %u unknown", c->count[NP_CHECK_FAIL] + c->count[NP_CHECK_WARN],
	        c->count[NP_CHECK_FAIL], c->count[NP_CHECK_WARN], c->count[NP_CHECK_UNKNOWN]);
	if (hidden)
		fprintf(f, "; %u value(s) not shown (--all)", hidden);
	fputs("\n", f);
	return fflush(f) == 0 && !ferror(f) ? 0 : -EIO;
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

int np_check_print_json(FILE *f, const np_topo_t *t, const np_check_result_t *c, const char *xml,
                        const char *ports)
{
	json_t *root = json_object(), *counts = json_object(), *fs = json_array();
	char *text;
	int rc = -EIO;

	for (unsigned s = 0; s < NP_CHECK_SEVERITY_COUNT; s++)
		json_object_set_new(counts, np_check_severity_name((np_check_severity_t)s), json_integer(c->count[s]));
	for (unsigned i = 0; i < c->nfindings; i++) {
		const np_finding_t *x = &c->findings[i];
		json_array_append_new(fs, json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:o}",
		                                    "kind", np_check_kind_name(x->kind),
		                                    "severity", np_check_severity_name(x->severity),
		                                    "object", str_or_null(x->object), "found", str_or_null(x->found),
		                                    "expected", str_or_null(x->expected),
		                                    "value", isfinite(x->value) ? json_real(x->value) : json_null(),
		                                    "detail", str_or_null(x->detail)));
	}
	json_object_set_new(root, "schema", json_string("numaplan-check/1"));
	json_object_set_new(root, "node", str_or_null(t->hostname));
	json_object_set_new(root, "topology", json_string(xml ? xml : "live"));
	json_object_set_new(root, "sysfs", str_or_null(c->sysfs));
	json_object_set_new(root, "adapters_sysfs", str_or_null(ports ? ports : c->sysfs));
	json_object_set_new(root, "status", json_string(status(c)));
	json_object_set_new(root, "counts", counts);
	json_object_set_new(root, "findings", fs);
	/* a string that is not UTF-8 (a path) makes jansson drop it: the
	 * array must have every finding */
	if (json_array_size(fs) == c->nfindings && (text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER))) {
		rc = fprintf(f, "%s\n", text) < 0 || fflush(f) != 0 ? -EIO : 0;
		free(text);
	}
	json_decref(root);
	return rc;
}

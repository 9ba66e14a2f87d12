/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * template.h - a text with named fields (@@NAME@@), filled by name: the
 * job script's skeleton (run/jobscript.sh, built into the program as
 * np_jobscript_template) is one, so that an admin reads the script a run
 * submits as a file rather than as the calls that print it.
 */
#ifndef NP_RUN_TEMPLATE_H
#define NP_RUN_TEMPLATE_H

#include <stddef.h>

#include "common/text.h"

typedef struct np_tfield {
	const char *name;   /* without the @@ */
	const char *value;  /* NULL: empty */
} np_tfield_t;

/* Append tmpl to out with every @@NAME@@ replaced by its field's value,
 * as it is (values are not searched for fields).  Lines that start with
 * "#%" are the template's own comments and are left out; a line that
 * holds nothing but one field whose value is empty is left out whole.
 * A name that is not among the fields, or an @@ without its closing @@,
 * is -EINVAL (a template that does not match its program). */
int np_template_fill(np_sb_t *out, const char *tmpl, const np_tfield_t *fields, size_t nfields,
                     np_error_t *err);

/* run/jobscript.sh, as built in (bench/Makefile.am makes it) */
extern const char np_jobscript_template[];

#endif /* NP_RUN_TEMPLATE_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * format_internal.h - what the format files share; not installed.
 */
#ifndef NP_FORMAT_INTERNAL_H
#define NP_FORMAT_INTERNAL_H

#include <stdio.h>

#include <numaplan/format.h>

/* The table for people (format_text.c), one of np_plan_write's formats. */
int np_plan_write_table(FILE *f, const np_topo_t *t, const np_plan_t *p);
/* The JSON document and a newline (format_plan_json.c); -EILSEQ, and
 * nothing written, for a plan with a string that is not UTF-8. */
int np_plan_write_json(FILE *f, const np_topo_t *t, const np_plan_t *p, np_error_t *err);

#endif /* NP_FORMAT_INTERNAL_H */

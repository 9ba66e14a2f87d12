/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * check_print.h - numaplan check's output: the findings as lines for
 * people, or as one JSON object (numaplan-check(1), JSON).
 */
#ifndef NP_CHECK_PRINT_H
#define NP_CHECK_PRINT_H

#include <stdbool.h>
#include <stdio.h>

#include <numaplan.h>

/* The faults, the unknowns and the settings (all: every finding), then a
 * line that counts them.  0, or -EIO when f could not be written. */
int np_check_print_text(FILE *f, const np_topo_t *t, const np_check_result_t *c, bool all);
/* Every finding; xml and ports name the topology file and the adapters'
 * root when not the live ones (NULL). */
int np_check_print_json(FILE *f, const np_topo_t *t, const np_check_result_t *c, const char *xml,
                        const char *ports);

#endif /* NP_CHECK_PRINT_H */

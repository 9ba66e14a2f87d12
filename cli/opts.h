/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * opts.h - option parsing shared by the numaplan subcommands.
 */
#ifndef NP_OPTS_H
#define NP_OPTS_H

#include <numaplan.h>
#include "common/parse.h"
#include "common/text.h"

/* Exit statuses of the numaplan command. */
enum { NP_EXIT_OK = 0, NP_EXIT_FAIL = 1, NP_EXIT_USAGE = 2 };

/* Split "a,b,c" into a NULL-terminated malloc'ed array (one allocation). */
char **np_opt_split(const char *list, unsigned *n);

/* Load the topology named by --topology (NULL = live), restricted to
 * --cpuset (NULL = the allowed set), with the port states of --sysfs
 * (NULL: the live /sys for a live topology, the file's own otherwise). */
int np_opt_load_topology(const char *xml, const char *cpuset, const char *sysfs, np_topo_t **t,
                         np_error_t *err);

/* np_opt_print, the escaped "numaplan ..." message on stderr, is in
 * common/text.h: the benchmark system prints with it too. */

/* Print "numaplan CMD: MSG" (np_opt_print) and return NP_EXIT_USAGE. */
int np_opt_fail(const char *cmd, const char *msg);

#endif /* NP_OPTS_H */

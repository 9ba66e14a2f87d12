/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * check_kinds.h - the hardware check's readers of the node (check_KIND.c)
 * and what they share: the state of one check and the call that records a
 * finding.  lib/check_main.c (np_check_node, numaplan/check.h) runs them.
 * Not installed.
 */
#ifndef NP_SYSREAD_CHECK_KINDS_H
#define NP_SYSREAD_CHECK_KINDS_H

#include <stdbool.h>

#include <numaplan/check.h>

#include "sysread/kfile.h"

typedef struct np_check_ctx {
	const np_topo_t *t;
	int rootfd;                 /* the sysfs root */
	int portsfd;                /* the root of class/infiniband (rootfd or another) */
	double memory_pct;
	np_check_result_t *c;
	unsigned cap;
	bool oom;                   /* sticky: the check fails with -ENOMEM */
} np_check_ctx_t;

/* check_findings.c.  Record a finding; the strings are copied (expected and detail may be
 * NULL).  Running out of memory sets x->oom. */
void np_check_add(np_check_ctx_t *x, np_check_kind_t kind, np_check_severity_t sev, const char *object,
                  const char *found, const char *expected, double value, const char *detail);
/* An NP_CHECK_UNKNOWN finding for a file that could not be read (rc its
 * -errno from np_kfile_line_at) or did not parse (rc 0): "missing",
 * "malformed: 'TEXT'", "unreadable". */
void np_check_unknown(np_check_ctx_t *x, np_check_kind_t kind, const char *object, const char *rel, int rc,
                      const char *text);

/* Each kind, in the order of np_check_kind_t; they only add findings. */
void np_check_pcie(np_check_ctx_t *x);
void np_check_memory(np_check_ctx_t *x);
void np_check_cpus(np_check_ctx_t *x);
void np_check_ports(np_check_ctx_t *x);
void np_check_ecc(np_check_ctx_t *x);
void np_check_settings(np_check_ctx_t *x);

#endif /* NP_SYSREAD_CHECK_KINDS_H */

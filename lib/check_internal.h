/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * check_internal.h - what the files of numaplan check share: the state of
 * one check, the call that records a finding, and each kind's reader
 * (check_KIND.c).  Not installed.
 */
#ifndef NP_LIB_CHECK_INTERNAL_H
#define NP_LIB_CHECK_INTERNAL_H

#include <stdbool.h>

#include <numaplan/check.h>

#include "common/kfile.h"

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

#endif /* NP_LIB_CHECK_INTERNAL_H */

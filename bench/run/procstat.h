/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * procstat.h - CPU time split (user/sys/idle) from /proc/stat samples.
 */
#ifndef NP_PROCSTAT_H
#define NP_PROCSTAT_H

#include <stdbool.h>
#include <jansson.h>

typedef struct np_cpustat {
	unsigned long long user, nice, system, idle, iowait, irq, softirq, steal;
} np_cpustat_t;

/* Parse the aggregate "cpu  ..." line of /proc/stat (leading text before
 * "cpu " is skipped). */
bool np_procstat_parse(const char *line, np_cpustat_t *out);
/* Shares in percent of the time between two samples: user (user+nice),
 * sys (system+irq+softirq), idle (idle+iowait).  false when no time passed. */
bool np_procstat_share(const np_cpustat_t *a, const np_cpustat_t *b,
                       double *user, double *sys, double *idle);
/* A step's sample file: lines "before|after NODE cpu ...".  Returns an
 * object {NODE: {"user_pct","sys_pct","idle_pct"}} (empty when nothing
 * usable) and the mean of the nodes' shares in *mean_* (-1 when none). */
json_t *np_procstat_file(const char *text, double *mean_user, double *mean_sys, double *mean_idle);

#endif /* NP_PROCSTAT_H */

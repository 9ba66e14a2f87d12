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

/* A run is "contended" when the node's CPUs outside the step's were busier
 * than this, in percent of their time, while it ran: another job or
 * another node of the same machine competed for its caches and memory. */
#define NP_CONTENDED_PCT 50.0

/* Parse the counters after a /proc/stat label ("cpu", "cpu3"): at least
 * user, nice, system and idle. */
bool np_procstat_parse(const char *counters, np_cpustat_t *out);
/* Shares in percent of the time between two samples: user (user+nice),
 * sys (system+irq+softirq), idle (idle+iowait).  false when no time passed. */
bool np_procstat_share(const np_cpustat_t *a, const np_cpustat_t *b,
                       double *user, double *sys, double *idle);
/* A step's sample file: for each node, before and after, the lines
 * "WHEN NODE cpu ..." (the machine), "WHEN NODE allowed LIST" (the step's
 * CPUs there) and "WHEN NODE cpuN ..." (each CPU).  Returns an object
 * {NODE: {"user_pct","sys_pct","idle_pct","scope"[,"cpus"],
 * ["others_busy_pct","contended"]}}: the shares are of the step's CPUs
 * where the per-CPU lines and the list are there (scope "step"), else of
 * the machine (scope "machine", the files of earlier versions); the other
 * CPUs' busy share and whether it makes the run contended, where the node
 * has other CPUs.  The nodes' mean shares go to *mean_* (-1 when none).
 * NULL only on ENOMEM. */
json_t *np_procstat_file(const char *text, double *mean_user, double *mean_sys, double *mean_idle);

#endif /* NP_PROCSTAT_H */

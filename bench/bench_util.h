/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_util.h - small helpers shared by run, report and accept: files,
 * commands, time stamps, statistics over doubles, cpulists, JSON members
 * (and, from common/, number parsing and the text helpers, reading a
 * whole file among them).
 */
#ifndef NP_BENCH_UTIL_H
#define NP_BENCH_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <jansson.h>

#include <numaplan/error.h>
#include "common/parse.h"
#include "common/text.h"
#include "common/json_get.h"

/* mkdir -p; 0 or -errno with a message. */
int np_mkdirs(const char *path, np_error_t *err);
/* Write a whole file (mode 0644, or 0755 when exec). */
int np_write_file(const char *path, const char *text, bool exec, np_error_t *err);
/* np_write_file of the text built in b, then b freed; -ENOMEM (with a
 * message) when building it ran out of memory. */
int np_write_sb(const char *path, np_sb_t *b, bool exec, np_error_t *err);
bool np_file_exists(const char *path);
/* Absolute form of a path that may not exist yet (no symlink resolution). */
char *np_abspath(const char *path);
/* The whole stdout of a shell command, and its wait status; NULL when it
 * could not be run or out of memory. */
char *np_cmd_output(const char *shell_cmd, int *status);
/* First line of a command's output (stdout+stderr), or NULL. */
char *np_cmd_firstline(const char *shell_cmd);

/* UTC time as 2026-12-02T09:32:20Z, and a compact form for directory names. */
void np_time_iso(char *buf, size_t n);
void np_time_compact(char *buf, size_t n);

/* Statistics of n values (n >= 1); values is sorted in place. */
typedef struct np_stats {
	unsigned n;
	double min, median, mean, max;
} np_stats_t;
void np_stats_compute(double *values, unsigned n, np_stats_t *out);
/* Median absolute deviation from a median: median of |v[i] - median|.
 * values is left as it was; 0 for n == 0 or out of memory. */
double np_stats_mad(const double *values, unsigned n, double median);
/* The median and MAD of the n values but the skip-th (NAN for n < 2):
 * the yardstick of one node among the others. */
void np_stats_others(const double *values, unsigned n, unsigned skip, double *med, double *mad);
/* The same for every skip at once (med[i], mad[i] without values[i]), in
 * O(n log n) where n calls of np_stats_others take O(n^2 log n). */
int np_stats_others_all(const double *values, unsigned n, double *med, double *mad);

/* Whether a node's value v stands out among n nodes, in the bad
 * direction: more than pct percent worse than med, the median of the
 * nodes, and, with 3 nodes or more and mad_z > 0, more than mad_z robust
 * standard deviations (1.4826 x MAD) from the other nodes (omed, omad: the
 * median and MAD of every node but this one).  *dev_pct gets the
 * deviation from med, *z the robust z-score (infinite when omad is 0 and v
 * differs from omed; NAN with fewer than 3 nodes). */
bool np_node_outlier(double v, double med, double omed, double omad, unsigned n, bool higher, double pct,
                     double mad_z, double *dev_pct, double *z);

/* "0-3,8" -> "0+1+2+3+8" (MPICH's user binding element). */
char *np_cpulist_plus(const char *cpulist);

/* A statistic (median, min...) of a figure of an experiment of
 * results.json, NAN when missing. */
double np_rep_stat(json_t *exp, const char *metric, const char *stat);

#endif /* NP_BENCH_UTIL_H */

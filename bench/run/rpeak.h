/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpeak.h - theoretical double-precision peak of a node:
 * cores x clock x FLOP/cycle, each figure detected or overridden, and each
 * recorded with where it came from.
 */
#ifndef NP_RPEAK_H
#define NP_RPEAK_H

#include <stdbool.h>
#include <jansson.h>

#include <numaplan.h>

typedef struct np_rpeak_opts {
	double ghz;                 /* 0: detect */
	double flops_per_cycle;     /* 0: detect */
	unsigned cores;             /* 0: the topology's allowed cores */
} np_rpeak_opts_t;

typedef struct np_rpeak {
	unsigned cores;
	double ghz;                 /* 0 when unknown */
	double flops_per_cycle;     /* 0 when unknown */
	double gflops;              /* 0 when a figure is unknown */
	char cores_src[96];
	char ghz_src[160];
	char fpc_src[160];
} np_rpeak_t;

/* live: the topology is this machine, so /proc/cpuinfo and cpufreq apply.
 * cpuinfo: a /proc/cpuinfo text to use instead of the real one (tests),
 * or NULL. */
void np_rpeak_compute(const np_topo_t *t, bool live, const char *cpuinfo,
                      const np_rpeak_opts_t *o, np_rpeak_t *out);
/* FLOP/cycle for a set of /proc/cpuinfo facts; src gets the reason. */
double np_rpeak_fpc_from_cpu(const char *vendor, int family, int model,
                             const char *flags, const char *model_name,
                             char *src, size_t srclen);
json_t *np_rpeak_to_json(const np_rpeak_t *r, unsigned nodes);

#endif /* NP_RPEAK_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * numaplan/check.h - the faults of a node that the kernel shows (API 0.5).
 *
 * A node that boots and runs jobs can still be slow for reasons sysfs
 * states in milliseconds: a PCIe link trained narrower or slower than its
 * ends can go, a NUMA node short of memory (a DIMM missing or failed),
 * CPUs offline, an adapter port at a lower rate than its twins, ECC errors,
 * a setting (SMT, THP, frequency governor, boost) unlike the rest of the
 * partition.  np_check_node() reads them from a sysfs root (the live /sys
 * or a copy of it, through the same code) and the node's topology, and
 * judges what one node can judge alone.  Values that only differ between
 * nodes (a setting, a firmware version, a link width on every node of a
 * type) are recorded as findings of severity NP_CHECK_INFO, for a caller
 * that compares nodes (numaplan run screen).
 *
 * A file that is missing where it should be, or does not read as the
 * kernel writes it, gives a finding of severity NP_CHECK_UNKNOWN naming
 * it, never an error: a check is about the node, and a copy of /sys taken
 * without some of its files still says something.
 */
#ifndef NUMAPLAN_CHECK_H
#define NUMAPLAN_CHECK_H

#include <numaplan/api.h>
#include <numaplan/error.h>
#include <numaplan/topo.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum np_check_kind {
	NP_CHECK_PCIE_LINK,         /* "pcie-link": a link below what its ends can do */
	NP_CHECK_MEMORY_BALANCE,    /* "memory-balance": a NUMA node unlike its peers */
	NP_CHECK_CPU_OFFLINE,       /* "cpu-offline": present CPUs that are offline */
	NP_CHECK_PORT_RATE,         /* "port-rate": a port slower than its model's others */
	NP_CHECK_ECC,               /* "ecc": EDAC's error counts */
	NP_CHECK_SETTINGS,          /* "settings": SMT, THP, governor, boost, NPS/SNC, firmware */
	NP_CHECK_KIND_COUNT
} np_check_kind_t;

/* In increasing gravity; a finding of NP_CHECK_WARN or NP_CHECK_FAIL is
 * a fault (numaplan check exits 1). */
typedef enum np_check_severity {
	NP_CHECK_INFO,              /* a value, recorded for comparing nodes */
	NP_CHECK_UNKNOWN,           /* a file missing or malformed */
	NP_CHECK_WARN,              /* a loss that may be a choice (a slot narrower than its card) */
	NP_CHECK_FAIL,              /* a loss of capacity, or errors */
	NP_CHECK_SEVERITY_COUNT
} np_check_severity_t;

typedef struct np_finding {
	np_check_kind_t kind;
	np_check_severity_t severity;
	/* What it is about, printable ASCII: a PCI address ("0000:41:00.0"),
	 * "NUMA 1", "CPUs 4-7", a port ("mlx5_0:1"), a memory controller
	 * ("mc0"), a setting ("smt", "thp", "governor", "boost", "nps",
	 * "firmware mlx5_0").  Kind and object name a value across nodes. */
	char *object;
	char *found;                /* the value as read, "unknown" when it could not be */
	char *expected;             /* what it should be, or NULL (INFO) */
	/* The same value as a number where one compares with a tolerance
	 * (bytes of a NUMA node, Gb/s of a port), else NaN. */
	double value;
	/* Why, in words: which device ("NVIDIA GPU 10de:2330"), which file
	 * could not be read.  NULL when nothing needs saying. */
	char *detail;
} np_finding_t;

typedef struct np_check_result {
	char *sysfs;                /* the root read */
	unsigned nfindings;
	/* by kind, then in the order the node shows them */
	np_finding_t *findings;
	unsigned count[NP_CHECK_SEVERITY_COUNT];
} np_check_result_t;

typedef struct np_check_opts {
	const char *sysfs;          /* NULL: "/sys" */
	/* The adapters (ROOT/class/infiniband) from this root instead, or
	 * NULL: what the numaplan plugin's sysfs= stands in for. */
	const char *ports_sysfs;
	/* memory-balance's tolerance in percent; 0: 3 */
	double memory_pct;
} np_check_opts_t;

/* Check the node t describes (the hwloc part: NUMA nodes, their memory,
 * kinds and packages, the CPU model) against the sysfs root.  0 with
 * *out allocated (np_check_free), or -EINVAL (a root that is not a
 * directory), -ENOMEM, with err naming the cause. */
NP_API int np_check_node(const np_topo_t *t, const np_check_opts_t *opts, np_check_result_t **out,
                         np_error_t *err);
NP_API void np_check_free(np_check_result_t *c);

/* "pcie-link", ...; "?" past the end.  parse: the same names, -EINVAL
 * for any other. */
NP_API const char *np_check_kind_name(np_check_kind_t k);
NP_API int np_check_kind_parse(const char *name, np_check_kind_t *out);
/* "info", "unknown", "warn", "fail"; "?" past the end */
NP_API const char *np_check_severity_name(np_check_severity_t s);

#ifdef __cplusplus
}
#endif

#endif /* NUMAPLAN_CHECK_H */

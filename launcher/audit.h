/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * audit.h - `numaplan audit JOBID`: how the tasks of a running job are
 * bound, against what their step's plan says.
 *
 * The front end (cmd_audit.c) runs `numaplan audit --collect JOBID` as a
 * short step of the job on every node (srun --jobid --overlap); the
 * collector (audit_collect.c) reads each task's /proc there and prints one
 * JSON object for its node; the check (audit_check.c) compares every
 * process and thread with the plan the task carries: NUMAPLAN_CPUS and
 * NUMAPLAN_MEMS as the SPANK plugin exported them at exec, or srun's own
 * --cpu-bind masks (SLURM_CPU_BIND_LIST).  Nothing here walks hwloc: the
 * NUMA nodes of CPUs come from the planner's topology.
 */
#ifndef NP_AUDIT_H
#define NP_AUDIT_H

#include <stdbool.h>
#include <jansson.h>

#include "numaplan.h"

/* ---- collect (runs inside the job, on each node) ---- */

/* One node's record: {node, numa: {os: cpulist}, processes: [...],
 * errors: [...], ports: [...]}.  Each process: pid, tid list with each
 * thread's cpus, step, localid (or null for a task's descendant), rank,
 * comm, cpus, mems_allowed, policy (the task's memory policy as
 * numa_maps shows it: "default", "bind:0", "interleave:0-3", ...),
 * pages_kb {numa: kB of anonymous memory}, env {NUMAPLAN_*,
 * SLURM_CPU_BIND_TYPE/LIST, SLURM_PROCID, SLURM_LOCALID}, devices (the
 * adapters and GPUs it holds open, common/open_devices.h: [{kind, file,
 * name, pci}], null when its descriptors could not be read),
 * devices_unreadable (its descriptors whose file could not be looked
 * at: they may hold any device).  ports:
 * every RDMA adapter port of the node, {adapter, port, state, seconds,
 * xmit_bytes, rcv_bytes, xmit_pkts, rcv_pkts} with the counts over the
 * collection, at least traffic_s seconds (-1: no such counter).  proc is
 * "/proc" and root (under which sys/ and proc/driver are read) "" but
 * for tests; the steps skipped are batch, extern and self_step (the
 * collector's own). */
json_t *np_audit_collect(const char *proc, const char *root, const char *jobid, const char *self_step,
                         double traffic_s, np_error_t *err);

/* Parsers of /proc text, for the collector and the tests. */
/* numa_maps: the task's policy (its heap's or stack's VMA, else the most
 * common one of its anonymous VMAs) and kB per NUMA node of the
 * anonymous VMAs (no file=). */
void np_audit_numa_maps(const char *text, char *policy, size_t n, json_t *pages_kb);
/* The value of "Key:" in a status text ("Cpus_allowed_list"), trimmed;
 * malloc'ed or NULL. */
char *np_audit_status_field(const char *text, const char *key);

/* ---- check ---- */

typedef struct np_audit_opts {
	double far_pct;             /* a process's anonymous memory on far nodes above this share */
} np_audit_opts_t;

/* Every deviation of the nodes' records (an array of node objects), as
 * [{node, step, rank, pid, tid, kind, expected, found, plan}] with kind
 * one of re-bound, thread-outside, mempolicy, far-pages; and counts in
 * summary {nodes, processes, threads, tasks, unplanned, deviations}. */
json_t *np_audit_check(json_t *nodes, const np_audit_opts_t *o, json_t *summary);

/* The adapter and GPUs of each task (audit_devices.c): [{node, step,
 * rank, pid, nic_planned, nic_open, nic, gpu_planned, gpu_open, gpu,
 * kfd}] with nic and gpu one of match, mismatch, extra, none-open,
 * unreadable, no-device-file (nic only) or "-" (nothing planned); each
 * mismatch, extra and planned port not ACTIVE appended to devs (kinds
 * nic-mismatch, nic-extra, gpu-mismatch, gpu-extra, port-down), and
 * summary's deviations and device_unverified (tasks with a planned
 * device none-open or unreadable) set. */
json_t *np_audit_devices(json_t *nodes, json_t *devs, json_t *summary);

/* ---- gather (the front end, from the audit step's output) ---- */

/* The most one node's answer may be: a record takes some 50 bytes a
 * thread, about 1 MiB for 256 tasks of 64 threads. */
#define NP_AUDIT_NODE_MAX ((size_t)16 << 20)

/* The nodes' records from the audit step's output (out, len bytes), as
 * srun --label writes it ("TASK: text" lines; a task's lines joined are
 * what it wrote), one task on each of the job's n nodes.  Each task's
 * output must be one record (np_audit_collect's members and no other)
 * and nothing else, at most node_max bytes, of a node of the job that no
 * other task named.  *records gets the records read well (an array, the
 * caller's), problems a message for each line, task or record that is
 * not so, missing the names of the job's nodes that no record names.
 * 0 when every node answered once and nothing else came, -EBADMSG when
 * not, -ENOMEM. */
int np_audit_gather(const char *out, size_t len, char *const *nodes, unsigned n, size_t node_max,
                    json_t **records, json_t *problems, json_t *missing);

/* ---- output ---- */

/* json_dumps(j, flags) in ASCII only: every character past it, the C1
 * controls included, and DEL written \uXXXX.  Malloc'ed, NULL when out
 * of memory. */
char *np_audit_dumps(json_t *j, size_t flags);

/* srun's mask for one task: "0x3" -> "0-1" (malloc'ed), NULL if malformed. */
char *np_audit_mask_to_list(const char *hex);

#endif /* NP_AUDIT_H */

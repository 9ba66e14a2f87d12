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
 * records: [...], errors: [...], ports: [...]}.  Each process: pid,
 * tid list with each thread's cpus, step, comm, cpus, mems_allowed,
 * policy (the task's memory policy as numa_maps shows it: "default",
 * "bind:0", "interleave:0-3", ...), pages_kb {numa: kB of anonymous
 * memory}, env {NUMAPLAN_*, SLURM_CPU_BIND_TYPE/LIST, SLURM_PROCID,
 * SLURM_LOCALID}, plan (np_audit_plan_of: what it is judged by),
 * devices (the adapters and GPUs it holds open, sysread/open_devices.h:
 * [{kind, file, name, pci}], null when its descriptors could not be
 * read), devices_unreadable (its descriptors whose file could not be
 * looked at: they may hold any device).  records: the plan records of
 * the job's tasks on this node (np_audit_records), whether their process
 * is still there or not.  ports: every RDMA adapter port of the node,
 * {adapter, port, state, seconds, xmit_bytes, rcv_bytes, xmit_pkts,
 * rcv_pkts} with the counts over the collection, at least traffic_s
 * seconds (-1: no such counter).  proc is "/proc" and root (under which
 * sys/ and proc/driver are read) "" but for tests; plans is the
 * directory of plan records (NULL: none); every process of the job's
 * cgroups is reported, batch, extern and interactive steps included,
 * but self_step's (the collector's own) and root's slurmstepd. */
json_t *np_audit_collect(const char *proc, const char *root, const char *plans, const char *jobid,
                         const char *self_step, double traffic_s, np_error_t *err);

/* ---- plan records (audit_records.c, audit_plan.c) ---- */

/* Whether every component of dir is a directory (no link) of root's
 * that nobody else may write: 0, or -EPERM and the like with a message. */
int np_audit_records_dir_ok(const char *dir, np_error_t *err);
/* The plan records of job jobid on node in dir (plugin/plan_record.h):
 * {"STEP.TASK": {job, step, task, rank, pid, node, binding, policy, cpus,
 * mems, hca, gpus, cpu_bind_type, cpu_bind_list}}, every value a string.
 * A record that is not a plain file of root's alone (or dir not root's),
 * or not a record, is named in errors and left out.  No dir: {}. */
json_t *np_audit_records(const char *dir, const char *jobid, const char *node, json_t *errors);
/* batch, extern and interactive: steps no plan places */
bool np_audit_step_unplaced(const char *step);
/* The plan a process of step is judged by: {source (record, step,
 * environ or none), via (record: task or ancestor), binding (numaplan,
 * slurm, step or none), rank, task, policy, cpus, mems, hca, gpus,
 * cpu_bind_type, cpu_bind_list}.  parent(ctx, pid) is its parent's pid
 * (0 when unknown). */
json_t *np_audit_plan_of(json_t *recs, const char *step, long long pid, json_t *env,
                         long long (*parent)(void *ctx, long long pid), void *ctx);

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

/* ---- every running job (audit_all.c) ---- */

typedef struct np_audit_all {
	const char *partition;      /* NULL: every partition (--all) */
	unsigned parallel, timeout;
	double traffic, far_pct;
	bool json;
} np_audit_all_t;

/* Audit every running job (of o->partition), o->parallel at a time; one
 * line per job, or JSON.  The exit status: 1 when a job deviates, else 2
 * when one could not be audited, else 3 when a device is unverified, else
 * 0 (numaplan-audit(1)). */
int np_audit_all(const np_audit_all_t *o);

/* This program, to run on the nodes and for each job of --all */
char *np_audit_self_exe(void);

/* srun's mask for one task: "0x3" -> "0-1" (malloc'ed), NULL if malformed. */
char *np_audit_mask_to_list(const char *hex);

#endif /* NP_AUDIT_H */

/*
 * node_plan.h - one plan per node and step: load the node's topology (the
 * site's XML or live discovery), keep only the step's CPUs, plan the
 * node's local tasks, and check that the result stays inside the step.
 */
#ifndef NPS_NODE_PLAN_H
#define NPS_NODE_PLAN_H

#include "numaplan.h"
#include "request.h"
#include "site_config.h"

/* Load as root from the site's topology= (node expands %n) or live.
 * HWLOC_* variables never steer it: the loader ignores them and any in
 * this process's environment are hidden while it runs. */
int nps_topology_load(const nps_site_t *s, const char *node, np_topo_t **out,
                      np_error_t *err);

typedef struct nps_node_in {
	const nps_decision_t *decision;
	unsigned ntasks;                /* tasks of the step on this node */
	unsigned cpus_per_task;
	unsigned first_rank;            /* global rank of local task 0 */
	const np_cpuset_t *step_cpus;   /* what Slurm gave the step here */
	const np_cpuset_t *mems_allowed;/* NUMA nodes the step may use, or NULL */
} nps_node_in_t;

/* t is restricted to the step's CPUs in place. */
int nps_node_plan(np_topo_t *t, const nps_node_in_t *in, np_plan_t **out,
                  np_error_t *err);

#endif /* NPS_NODE_PLAN_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * node_plan.h - one plan per node and step: keep only the step's CPUs of
 * the node's topology (topo_source.h), plan the node's local tasks, and
 * check that the result stays inside the step.
 */
#ifndef NPS_NODE_PLAN_H
#define NPS_NODE_PLAN_H

#include <numaplan.h>
#include "request.h"
#include "site_config.h"
#include "topo_source.h"

typedef struct nps_node_in {
	const nps_decision_t *decision;
	unsigned ntasks;                /* tasks of the step on this node */
	unsigned cpus_per_task;
	/* global rank of each local task (ntasks entries), or NULL for
	 * 0, 1, ...: a cyclic distribution numbers a node's tasks 0, 2, ... */
	const unsigned *rank_ids;
	const np_cpuset_t *step_cpus;   /* what Slurm gave the step here */
	const np_cpuset_t *mems_allowed;/* NUMA nodes the step may use, or NULL */
	bool no_fallback;               /* hca-near without a usable adapter fails */
	/* the step's GPUs here (gpu_alloc.h): bus-order indexes for the
	 * planner (never NULL: none is an empty list, not "all") and their
	 * bus ids, which every rank's GPUs must be among */
	const unsigned *gpu_ids;
	unsigned ngpu_ids;
	char *const *gpu_busids;
} nps_node_in_t;

/* t is restricted to the step's CPUs in place. */
int nps_node_plan(np_topo_t *t, const nps_node_in_t *in, np_plan_t **out,
                  np_error_t *err);

#endif /* NPS_NODE_PLAN_H */

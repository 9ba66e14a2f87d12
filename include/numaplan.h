/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * numaplan.h - the whole public interface of libnumaplan, the NUMA/HCA-aware
 * planner (numaplan(3)).
 *
 * One planner for every front end: the numaplan command and the Slurm SPANK
 * plugin go through these calls.  Each module has its header, which may be
 * included alone:
 *
 *   <numaplan/api.h>     NUMAPLAN_API_VERSION, np_get_api_version()
 *   <numaplan/error.h>   np_error_t
 *   <numaplan/cpuset.h>  np_cpuset_t, sets of CPU or NUMA node indexes
 *   <numaplan/topo.h>    np_topo_load() and the node it describes
 *   <numaplan/plan.h>    policies, np_plan_compute() and the plan
 *   <numaplan/format.h>  plans and topologies as text, JSON, rankfiles...
 *   <numaplan/bind.h>    a rank's binding applied to the calling thread
 *   <numaplan/check.h>   np_check_node(), the faults of a node sysfs shows
 *
 *   np_topo_t *t;  np_plan_t *p;  np_error_t err;
 *   np_load_opts_t lo = { .xml_path = "node.xml" };
 *   np_plan_opts_t po = NP_PLAN_OPTS_INIT;
 *   po.policy = NP_POLICY_HCA_NEAR; po.ntasks = 8;
 *   if (np_topo_load(&t, &lo, &err) < 0 || np_plan_compute(t, &po, &p, &err) < 0)
 *           fprintf(stderr, "%s\n", err.msg);
 *
 * Compile and link with `pkg-config --cflags --libs numaplan`.
 */
#ifndef NUMAPLAN_H
#define NUMAPLAN_H

#include <numaplan/api.h>
#include <numaplan/error.h>
#include <numaplan/cpuset.h>
#include <numaplan/topo.h>
#include <numaplan/plan.h>
#include <numaplan/format.h>
#include <numaplan/bind.h>
#include <numaplan/check.h>

#endif /* NUMAPLAN_H */

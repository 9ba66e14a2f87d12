/*
 * numaplan.h - public interface of libnumaplan, the NUMA/HCA-aware planner.
 *
 * One planner for every front end: the numaplan command, the Slurm SPANK
 * plugin and the binding probe all go through these calls.
 *
 *   np_topo_t *t;  np_plan_t *p;  np_error_t err;
 *   np_load_opts_t lo = { .xml_path = "node.xml" };
 *   np_plan_opts_t po = NP_PLAN_OPTS_INIT;
 *   po.policy = NP_POLICY_HCA_NEAR; po.ntasks = 8;
 *   if (np_topo_load(&t, &lo, &err) < 0 || np_plan_compute(t, &po, &p, &err) < 0)
 *           fprintf(stderr, "%s\n", err.msg);
 */
#ifndef NUMAPLAN_H
#define NUMAPLAN_H

#include <numaplan/error.h>
#include <numaplan/cpuset.h>
#include <numaplan/topo.h>
#include <numaplan/plan.h>
#include <numaplan/format.h>
#include <numaplan/bind.h>

#endif /* NUMAPLAN_H */

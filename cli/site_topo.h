/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * site_topo.h - the topology the site's numaplan plugin plans a node on,
 * and where it reads the adapters' states.
 */
#ifndef NP_SITE_TOPO_H
#define NP_SITE_TOPO_H

#include <numaplan.h>
#include "common/text.h"

/* The topology= file of numaplan.so in plugstack.conf (found through
 * SLURM_CONF or /etc/slurm/slurm.conf, includes followed), with %n
 * expanded to SLURMD_NODENAME or the short host name: *path is it, or
 * NULL when the plugin discovers the node live.  *why says which, for
 * the record ("file X (topology= of numaplan.so in P)", "live discovery
 * (...)").  Both malloc'ed; -ENOMEM only. */
int np_site_topology(char **path, char **why);
/* The same for sysfs= (the directory standing in for /sys where the
 * plugin reads adapter states, %n expanded likewise): *path, or NULL for
 * the live /sys. */
int np_site_sysfs(char **path, char **why);
/* Where the plugin keeps the tasks' plan records (plugin/plan_record.h):
 * its plans=DIR, else /run/numaplan/plans; NULL with plans=none.  *dir
 * and *why malloc'ed; -ENOMEM only. */
int np_site_plan_records(char **dir, char **why);

#endif /* NP_SITE_TOPO_H */

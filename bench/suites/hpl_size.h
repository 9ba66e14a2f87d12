/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hpl_size.h - how `numaplan run` sizes HPL (suite_hpl.c), for every suite
 * that runs it (the screen too).
 */
#ifndef NP_HPL_SIZE_H
#define NP_HPL_SIZE_H

#include "numaplan.h"
/* N from a memory size: np_hpl_n_from_memory(), with the kernels' rules */
#include "common/kernel_rules.h"

/* A node's memory: its NUMA nodes' in the topology, else this machine's
 * MemTotal; 0 when unknown. */
unsigned long long np_node_memory(const np_topo_t *t);

#endif /* NP_HPL_SIZE_H */

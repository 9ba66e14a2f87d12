/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * numaplan/plan.h - the placement engine: policy + topology -> one binding
 * per rank.
 *
 * np_plan_t, like np_topo_t (see numaplan/topo.h), is a documented struct
 * that callers read and never write: the library allocates it and its
 * parts, np_plan_free() releases them.  The slot pool and the rails the
 * policies work with are the library's own and appear in no header.
 */
#ifndef NUMAPLAN_PLAN_H
#define NUMAPLAN_PLAN_H

#include <stdbool.h>

#include <numaplan/cpuset.h>
#include <numaplan/error.h>
#include <numaplan/topo.h>
#include <numaplan/api.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum np_policy {
	NP_POLICY_NONE,
	NP_POLICY_COMPACT,
	NP_POLICY_SPREAD,
	NP_POLICY_NUMA,
	NP_POLICY_SOCKET,
	NP_POLICY_L3,
	NP_POLICY_HCA_NEAR,
	NP_POLICY_GPU_NEAR,
	NP_POLICY_COUNT
} np_policy_t;

/* The memory policy of a rank, named as the kernel's modes (and the
 * "mempolicy" of the JSON plan, and numaplan-probe) name them. */
typedef enum np_mem {
	/* "bind": MPOL_BIND to the NUMA nodes of the rank's CPUs, and under
	 * gpu-near its GPUs' own memory nodes (np_rank_t.gpu_mems) */
	NP_MEM_BIND,
	NP_MEM_INTERLEAVE,  /* "interleave": MPOL_INTERLEAVE over those nodes */
	NP_MEM_NONE,        /* "none": leave the memory policy alone */
	NP_MEM_COUNT
} np_mem_t;
/* The name before API 0.1.0, when the mode was called "local" (which
 * np_mem_parse() still takes). */
#define NP_MEM_LOCAL NP_MEM_BIND

/* Names shared by every front end, and the lists of them for messages
 * ("none, compact, ..."), in enum order.  Parsing is -EINVAL on an
 * unknown name; a name for an unknown value is "?". */
NP_API int np_policy_parse(const char *name, np_policy_t *out);
NP_API const char *np_policy_name(np_policy_t p);
NP_API const char *np_policy_list(void);
/* What a policy takes besides the options every policy takes, as
 * NP_ACCEPT_* bits (0 for an unknown policy): the one table the front
 * ends' rules come from (np_plan_opts_check). */
typedef enum np_accept {
	NP_ACCEPT_HCA = 1u << 0,    /* np_plan_opts_t.hca: the adapters to use (hca-near, gpu-near) */
	NP_ACCEPT_RAILS = 1u << 1,  /* np_plan_opts_t.rails: adapters per rank */
	NP_ACCEPT_GPUS = 1u << 2,   /* np_plan_opts_t.gpu_ids: the GPUs to use */
	/* np_plan_opts_t.gpus_visible_all: every GPU visible, the rank's first */
	NP_ACCEPT_GPUS_VISIBLE = 1u << 3,
} np_accept_t;
NP_API unsigned np_policy_accepts(np_policy_t p);
NP_API int np_mem_parse(const char *name, np_mem_t *out);
NP_API const char *np_mem_name(np_mem_t m);
NP_API const char *np_mem_list(void);
/* A memory choice as front ends take it (API 0.4): MODE (np_mem_parse),
 * KIND (np_memkind_parse; binds to that kind), or MODE:KIND with MODE
 * bind or interleave.  *kind is NP_MEMKIND_UNKNOWN without a KIND.
 * -EINVAL with the reason in err (which does not repeat spec: the caller
 * names it as its users typed it). */
NP_API int np_mem_spec_parse(const char *spec, np_mem_t *mode, np_memkind_t *kind,
                             np_error_t *err);

typedef struct np_plan_opts {
	np_policy_t policy;
	unsigned ntasks;            /* total ranks, over every host */
	/* 0 is taken as 1, but says the user gave no count: under gpu-near
	 * a rank holding several GPUs then takes the whole locality of its
	 * GPUs (its GPUs' share of it when others share it) */
	unsigned cpus_per_task;
	bool threads;               /* place on PUs rather than whole cores */
	np_mem_t mem;
	/* hca-near, gpu-near: the adapters to use, NAME[:PORT] separated by
	 * commas (see np_hca_list_check), or NULL for the best usable ones */
	const char *hca;
	bool overcommit;            /* allow more ranks x cpus than allowed cores */
	bool no_fallback;           /* a plan short of what was asked is an error (np_plan_compute) */
	/* Hosts: either an explicit list, or nnodes generated names, or
	 * (both empty) the single host of the topology. */
	const char *const *hosts;
	unsigned nhosts;
	unsigned nnodes;
	unsigned first_rank;        /* global rank of local rank 0 (plugin use) */
	/* Global ranks of the tasks, ntasks entries, single host only: a
	 * cyclic or arbitrary distribution does not number a node's tasks
	 * contiguously.  NULL: first_rank, first_rank + 1, ... */
	const unsigned *rank_ids;
	unsigned rails;              /* adapters per rank, 0 is taken as 1 (hca-near and gpu-near) */
	/* gpu-near: the GPUs the step may use, as Slurm's gres/gpu indexes:
	 * the node's GPUs in PCI-bus-id order, a partitioned GPU (np_gpu_t
	 * .partitions > 1) counting once per partition; NULL = all */
	const unsigned *gpu_ids;
	unsigned ngpu_ids;
	/* API 0.4: the kind of memory ranks bind to (with NP_MEM_BIND or
	 * NP_MEM_INTERLEAVE): for each NUMA node of a rank's CPUs, the nodes
	 * of that kind attached with it (the smallest locality that holds its
	 * CPUs), else the nearest by distance.  NP_MEMKIND_UNKNOWN (0): the
	 * CPUs' own nodes.  A kind the node has none of is -ENODEV, and the
	 * message lists the kinds it has. */
	np_memkind_t mem_kind;
	/* gpu-near (API 0.4): each rank's visible-devices values list every
	 * GPU of its host's ranks, its own first, instead of its own alone
	 * (CUDA IPC, peer access and NCCL's intra-node paths need the other
	 * GPUs visible); its CPUs, memory and adapters stay its own GPU's. */
	bool gpus_visible_all;
} np_plan_opts_t;

#define NP_PLAN_OPTS_INIT { .policy = NP_POLICY_COMPACT, .ntasks = 1, \
	.cpus_per_task = 1, .mem = NP_MEM_BIND }

typedef struct np_env {
	char *name;
	char *value;
} np_env_t;

typedef struct np_rank {
	unsigned rank;              /* global */
	unsigned local_rank;        /* on its host */
	const char *host;           /* points into np_plan_t.hosts */
	bool bound;                 /* false for policy none */
	np_cpuset_t *cpus;          /* OS PU indexes */
	np_cpuset_t *mems;          /* NUMA OS indexes; empty when memory is not bound
	                             * (gpu-near: with gpu_mems, see below) */
	np_mem_t mem;
	int device;                 /* index in topo->devices, -1 when none */
	char *hca;                  /* device name or NULL */
	unsigned port;              /* 0 when none */
	bool hca_local;             /* every CPU of the rank is local to its device */
	unsigned nenv;
	np_env_t *env;
	/* gpu-near: the rank's GPUs, as PCI bus ids (physical), and the index
	 * the task selects each by: its position among the GPUs of its vendor
	 * the step may use (np_plan_opts_t.gpu_ids, in PCI order), which is
	 * what CUDA_VISIBLE_DEVICES holds once Slurm's own constraint hides the
	 * others.  A partitioned GPU's partitions are GPUs of their own here
	 * (as for its runtime and for Slurm): one entry each, with the bus id
	 * of the GPU they are part of.  ngpus is 0 under the other policies. */
	unsigned ngpus;
	char **gpus;
	unsigned *gpu_index;
	/* every CPU of the rank is local to one of its GPUs, and each of its
	 * GPUs has a CPU of the rank in its locality */
	bool gpu_local;
	/* Every adapter of the rank (rails), nearest first: hcas[0] is hca.
	 * nhcas is 0 when the rank has none. */
	unsigned nhcas;
	char **hcas;
	unsigned *hca_ports;
	/* gpu-near (API 0.3): the memory nodes of the rank's GPUs
	 * (np_gpu_t.mems) that mems holds besides its CPUs' nodes, and for a
	 * rank with several GPUs the NUMA nodes (with allowed CPUs) of their
	 * localities; empty under the other policies and when memory is not
	 * bound. */
	np_cpuset_t *gpu_mems;
	/* API 0.4: np_plan_opts_t.mem_kind when memory is bound, else
	 * NP_MEMKIND_UNKNOWN */
	np_memkind_t mem_kind;
	/* gpu-near (API 0.4): Slurm's gres/gpu index of each of the rank's
	 * GPUs (np_plan_opts_t.gpu_ids numbering), ngpus entries */
	unsigned *gpu_gres;
} np_rank_t;

/* An adapter hca-near left out, and why ("port 1 DOWN"). */
typedef struct np_skip {
	char *name;
	char *reason;
} np_skip_t;

typedef struct np_plan {
	np_policy_t requested;
	np_policy_t policy;         /* what ran: differs after a fallback */
	unsigned nranks;
	np_rank_t *ranks;
	unsigned nhosts;
	char **hosts;
	unsigned ranks_per_host;    /* largest count on one host */
	unsigned cpus_per_task;
	bool threads;
	bool overcommitted;
	char *note;                 /* a warning for the user (fallback...), or NULL */
	unsigned nskipped;
	np_skip_t *skipped;         /* hca-near: adapters not used, in topology order */
	/* hca-near, gpu-near: usable adapters no rank of the first host uses
	 * (fewer ranks than adapters), in locality order */
	unsigned nunused;
	char **unused;
	/* gpu-near (API 0.4): the plan lists every GPU to each rank, its own
	 * first (np_plan_opts_t.gpus_visible_all) */
	bool gpus_visible_all;
} np_plan_t;

/* The options alone, before any topology: 0, or -EINVAL with a message
 * that names the value at fault and what is valid.  Refused: an unknown
 * policy or memory mode, no task, unreasonable counts, an option the
 * policy does not take (np_policy_accepts: an HCA list, rails, a GPU
 * list), a malformed HCA list, rails past 64, rank ids over several
 * hosts, --nodes against a host list of another length.  np_plan_compute
 * runs it first; front ends run it to refuse early (srun, not the step). */
NP_API int np_plan_opts_check(const np_plan_opts_t *opts, np_error_t *err);

/* Build a plan.  Errors: -EINVAL bad options (np_plan_opts_check, and a
 * GPU id past the node's GPUs (partitions) or given twice), -ENOSPC not enough allowed
 * cores (the message names both numbers), -ENODEV hca-near without a
 * usable adapter and no_fallback, gpu-near without a GPU to use and
 * no_fallback, gpu-near with adapters none of which is usable and
 * no_fallback, rails past the usable adapters and no_fallback (without
 * no_fallback these are notes), or an HCA (or port) that is not on the
 * node. */
NP_API int np_plan_compute(const np_topo_t *t, const np_plan_opts_t *opts,
                           np_plan_t **out, np_error_t *err);
NP_API void np_plan_free(np_plan_t *p);

/* Syntax of an HCA list: NAME[:PORT] separated by commas, each NAME a
 * valid device name (np_device_name_check), PORT 1-255, no adapter twice.
 * 0 or -EINVAL with a message naming the list and the entry at fault. */
NP_API int np_hca_list_check(const char *list, np_error_t *err);

/* Value of an env variable of a rank, or NULL. */
NP_API const char *np_rank_getenv(const np_rank_t *r, const char *name);

#ifdef __cplusplus
}
#endif

#endif /* NUMAPLAN_PLAN_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * policy_table.c - the policies: the names users type for them (and for
 * the memory modes), and what each takes besides the options of every
 * policy (an adapter list, rails, GPUs).
 *
 * Each list a message shows ("valid: none, compact, ...") is made from the
 * same table as the names, at compile time, so that a new policy cannot
 * be parsed yet missing from the messages, or the other way round; the
 * rules every front end applies (np_plan_opts_check, plan_check.c) read
 * the same table.
 */
#include <errno.h>
#include <string.h>

#include <numaplan/plan.h>

/* hca-near gives ranks adapters, and may be told which (hca=); gpu-near
 * gives ranks GPUs, from the step's (gpu_ids), and the adapters nearest
 * them, among those it may be told to use (hca=, as hca-near), and may
 * show every GPU to each rank, its own first. */
#define POLICIES(X) \
	X(NP_POLICY_NONE, "none", 0) \
	X(NP_POLICY_COMPACT, "compact", 0) \
	X(NP_POLICY_SPREAD, "spread", 0) \
	X(NP_POLICY_NUMA, "numa", 0) \
	X(NP_POLICY_SOCKET, "socket", 0) \
	X(NP_POLICY_L3, "l3", 0) \
	X(NP_POLICY_HCA_NEAR, "hca-near", NP_ACCEPT_HCA | NP_ACCEPT_RAILS) \
	X(NP_POLICY_GPU_NEAR, "gpu-near", NP_ACCEPT_HCA | NP_ACCEPT_RAILS | NP_ACCEPT_GPUS | \
	  NP_ACCEPT_GPUS_VISIBLE)

#define MEMS(X) \
	X(NP_MEM_BIND, "bind", 0) \
	X(NP_MEM_INTERLEAVE, "interleave", 0) \
	X(NP_MEM_NONE, "none", 0)

#define NAME(value, name, accepts) [value] = name,
#define ACCEPTS(value, name, accepts) [value] = accepts,
#define LISTED(value, name, accepts) ", " name
#define COUNTED(value, name, accepts) + 1

static const char *const policy_names[NP_POLICY_COUNT] = { POLICIES(NAME) };
static const unsigned policy_accepts[NP_POLICY_COUNT] = { POLICIES(ACCEPTS) };
static const char *const mem_names[NP_MEM_COUNT] = { MEMS(NAME) };
/* ", none, compact, ...": handed out from after the first ", " */
static const char policy_list[] = POLICIES(LISTED);
static const char mem_list[] = MEMS(LISTED);

_Static_assert(0 POLICIES(COUNTED) == NP_POLICY_COUNT, "a policy without a name");
_Static_assert(0 MEMS(COUNTED) == NP_MEM_COUNT, "a memory mode without a name");

/* A table of names, and the list of them for messages */
typedef struct names {
	const char *const *name;
	unsigned n;
	const char *list;
} names_t;

static const names_t policies = { policy_names, NP_POLICY_COUNT, policy_list + 2 };
static const names_t mems = { mem_names, NP_MEM_COUNT, mem_list + 2 };

/* index of name in t, or -1 */
static int lookup(const names_t *t, const char *name)
{
	for (unsigned i = 0; name && i < t->n; i++)
		if (!strcmp(name, t->name[i]))
			return (int)i;
	return -1;
}

static const char *name_at(const names_t *t, unsigned i)
{
	return i < t->n ? t->name[i] : "?";
}

int np_policy_parse(const char *name, np_policy_t *out)
{
	int i = lookup(&policies, name);

	if (i >= 0)
		*out = (np_policy_t)i;
	return i < 0 ? -EINVAL : 0;
}

const char *np_policy_name(np_policy_t p)
{
	return name_at(&policies, (unsigned)p);
}

const char *np_policy_list(void)
{
	return policies.list;
}

unsigned np_policy_accepts(np_policy_t p)
{
	return (unsigned)p < NP_POLICY_COUNT ? policy_accepts[p] : 0;
}

int np_mem_parse(const char *name, np_mem_t *out)
{
	/* "local" named MPOL_BIND before it was called so */
	int i = name && !strcmp(name, "local") ? NP_MEM_BIND : lookup(&mems, name);

	if (i >= 0)
		*out = (np_mem_t)i;
	return i < 0 ? -EINVAL : 0;
}

const char *np_mem_name(np_mem_t m)
{
	return name_at(&mems, (unsigned)m);
}

const char *np_mem_list(void)
{
	return mems.list;
}

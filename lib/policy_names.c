/*
 * policy_names.c - the names users type for policies and memory modes.
 *
 * Each list a message shows ("valid: none, compact, ...") is made from the
 * same table as the names, at compile time, so that a new policy cannot
 * be parsed yet missing from the messages, or the other way round.
 */
#include <errno.h>
#include <string.h>

#include <numaplan/plan.h>

#define POLICIES(X) \
	X(NP_POLICY_NONE, "none") \
	X(NP_POLICY_COMPACT, "compact") \
	X(NP_POLICY_SPREAD, "spread") \
	X(NP_POLICY_NUMA, "numa") \
	X(NP_POLICY_SOCKET, "socket") \
	X(NP_POLICY_L3, "l3") \
	X(NP_POLICY_HCA_NEAR, "hca-near") \
	X(NP_POLICY_GPU_NEAR, "gpu-near")

#define MEMS(X) \
	X(NP_MEM_BIND, "bind") \
	X(NP_MEM_INTERLEAVE, "interleave") \
	X(NP_MEM_NONE, "none")

#define NAME(value, name) [value] = name,
#define LISTED(value, name) ", " name
#define COUNTED(value, name) + 1

static const char *const policy_names[NP_POLICY_COUNT] = { POLICIES(NAME) };
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

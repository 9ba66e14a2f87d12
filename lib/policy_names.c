/* policy_names.c - the names users type for policies and memory modes */
#include <errno.h>
#include <string.h>

#include <numaplan/plan.h>

static const char *const policy_names[NP_POLICY_COUNT] = {
	[NP_POLICY_NONE] = "none",
	[NP_POLICY_COMPACT] = "compact",
	[NP_POLICY_SPREAD] = "spread",
	[NP_POLICY_NUMA] = "numa",
	[NP_POLICY_SOCKET] = "socket",
	[NP_POLICY_L3] = "l3",
	[NP_POLICY_HCA_NEAR] = "hca-near",
};

int np_policy_parse(const char *name, np_policy_t *out)
{
	for (int i = 0; i < NP_POLICY_COUNT; i++)
		if (name && !strcmp(name, policy_names[i])) {
			*out = (np_policy_t)i;
			return 0;
		}
	return -EINVAL;
}

const char *np_policy_name(np_policy_t p)
{
	return (unsigned)p < NP_POLICY_COUNT ? policy_names[p] : "?";
}

const char *np_policy_list(void)
{
	return "none, compact, spread, numa, socket, l3, hca-near";
}

int np_mem_parse(const char *name, np_mem_t *out)
{
	if (!name)
		return -EINVAL;
	if (!strcmp(name, "local"))
		*out = NP_MEM_LOCAL;
	else if (!strcmp(name, "interleave"))
		*out = NP_MEM_INTERLEAVE;
	else if (!strcmp(name, "none"))
		*out = NP_MEM_NONE;
	else
		return -EINVAL;
	return 0;
}

const char *np_mem_name(np_mem_t m)
{
	switch (m) {
	case NP_MEM_LOCAL: return "local";
	case NP_MEM_INTERLEAVE: return "interleave";
	case NP_MEM_NONE: return "none";
	}
	return "?";
}

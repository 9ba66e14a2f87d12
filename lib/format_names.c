/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * format_names.c - names of the plan output formats; the list the
 * messages show is made from the same table (see policy_table.c).
 */
#include <errno.h>
#include <string.h>

#include <numaplan/format.h>

/* in the order users see them: ompi4 next to ompi */
#define FORMATS(X) \
	X(NP_FMT_TABLE, "table") \
	X(NP_FMT_JSON, "json") \
	X(NP_FMT_OMPI, "ompi") \
	X(NP_FMT_OMPI4, "ompi4") \
	X(NP_FMT_SLURM, "slurm") \
	X(NP_FMT_MPICH, "mpich") \
	X(NP_FMT_NUMACTL, "numactl")

#define ENTRY(value, name) { name, value },
#define LISTED(value, name) ", " name

static const struct {
	const char *name;
	np_format_t fmt;
} formats[] = { FORMATS(ENTRY) };
static const char format_list[] = FORMATS(LISTED);

int np_format_parse(const char *name, np_format_t *out)
{
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (name && !strcmp(name, formats[i].name)) {
			*out = formats[i].fmt;
			return 0;
		}
	return -EINVAL;
}

const char *np_format_list(void)
{
	return format_list + 2;
}

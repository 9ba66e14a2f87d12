/* format_names.c - names of the plan output formats */
#include <errno.h>
#include <string.h>

#include <numaplan/format.h>

static const struct {
	const char *name;
	np_format_t fmt;
} formats[] = {
	{ "table", NP_FMT_TABLE }, { "json", NP_FMT_JSON }, { "ompi", NP_FMT_OMPI },
	{ "ompi4", NP_FMT_OMPI4 },
	{ "slurm", NP_FMT_SLURM }, { "mpich", NP_FMT_MPICH }, { "numactl", NP_FMT_NUMACTL },
};

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
	return "table, json, ompi, ompi4, slurm, mpich, numactl";
}

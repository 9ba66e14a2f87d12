/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * format_internal.h - what the format files share; not installed.
 */
#ifndef NP_FORMAT_INTERNAL_H
#define NP_FORMAT_INTERNAL_H

#include <stdbool.h>
#include <stdio.h>

#include <numaplan/format.h>

/* The table for people (format_text.c), one of np_plan_write's formats. */
int np_plan_write_table(FILE *f, const np_topo_t *t, const np_plan_t *p);
/* The JSON document and a newline (format_plan_json.c); -EILSEQ, and
 * nothing written, for a plan with a string that is not UTF-8. */
int np_plan_write_json(FILE *f, const np_topo_t *t, const np_plan_t *p, np_error_t *err);

/* Variables a format leaves out of the ranks' environment, because the
 * launcher sets them its own way (srun's --gpu-bind the GPU variables). */
typedef struct np_env_skip {
	const char *const *names;
	unsigned n;
} np_env_skip_t;

/* How a rank's variables are written (format_env.c), each preceded by a
 * blank: " -x NAME=VALUE" (Open MPI, per app context or global),
 * " -env NAME VALUE" and " -genv NAME VALUE" (hydra), " NAME=VALUE" for
 * env(1) on a shell line, and the same for srun's --multi-prog file,
 * quoted for its reader. */
typedef enum np_env_style {
	NP_ENV_OMPI,
	NP_ENV_HYDRA,
	NP_ENV_HYDRA_GLOBAL,
	NP_ENV_WORDS,
	NP_ENV_MULTI_PROG,
} np_env_style_t;

/* Does some bound rank carry a variable (skip may be NULL)? */
bool np_env_any(const np_plan_t *p, const np_env_skip_t *skip);
/* Do all ranks carry the same variables with the same values? */
bool np_env_uniform(const np_plan_t *p, const np_env_skip_t *skip);
/* Rank r's variables in the given style; 0 or -ENOMEM. */
int np_env_write(FILE *f, const np_rank_t *r, np_env_style_t style, const np_env_skip_t *skip);

#endif /* NP_FORMAT_INTERNAL_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * plugstack.h - numaplan.so's line in Slurm's plugstack.conf and the
 * topology= file it names for a node.  One reader for both front ends:
 * the SPANK plugin gets its arguments from Slurm and expands topology=
 * with it; `numaplan topo --site` reads the file (srun reads it on every
 * host, so users may too) and must land on the same file, or on none
 * where the plugin would refuse.
 */
#ifndef NP_COMMON_PLUGSTACK_H
#define NP_COMMON_PLUGSTACK_H

#include <stdbool.h>

#include <numaplan/error.h>

/* Whether a node name may stand for %n in a path: not empty, no '/', not
 * "..".  The name comes from slurmd's configuration (or the host name),
 * but the path must stay in the admin's directory all the same. */
bool np_plugstack_node_ok(const char *node);

/* The topology= template for a node: %n becomes the node name, %% a '%'.
 * 0 and *out malloc'ed; -EINVAL (the template needs %n and the node name
 * is not np_plugstack_node_ok) or -ENOMEM, with a message naming the
 * template.  *out is NULL on error. */
int np_plugstack_expand(const char *pattern, const char *node, char **out, np_error_t *err);
/* The same for another argument's template (sysfs=), named key in the
 * message. */
int np_plugstack_expand_arg(const char *key, const char *pattern, const char *node, char **out,
                            np_error_t *err);

/* plugstack.conf of a slurm.conf: its PlugStackConfig=, else the file
 * beside it.  malloc'ed, NULL without memory. */
char *np_plugstack_path(const char *slurm_conf);

/* The arguments of the first line that loads the plugin named so (a
 * file name such as "numaplan.so", in any directory) in the plugstack
 * file path and the files it includes (4 levels deep at most).  1: found,
 * *args (*nargs strings, NULL-ended) and *from, the file of the line,
 * malloc'ed (free *args with np_plugstack_args_free); 0: no such line;
 * -ENOMEM. */
int np_plugstack_args(const char *path, const char *so, char ***args, unsigned *nargs, char **from);
void np_plugstack_args_free(char **args);

#endif /* NP_COMMON_PLUGSTACK_H */

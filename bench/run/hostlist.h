/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hostlist.h - Slurm host list expressions to node names.
 */
#ifndef NP_HOSTLIST_H
#define NP_HOSTLIST_H

#include <numaplan/error.h>

/* "n[1-3,7],gpu[01-02]" -> n1 n2 n3 n7 gpu01 gpu02 (zero padding kept,
 * several bracket groups in a name expanded in order).  0, or -EINVAL
 * with err naming the list; the caller frees with np_strv_free
 * (common/text.h). */
int np_hostlist_expand(const char *list, char ***names, unsigned *n, np_error_t *err);

#endif /* NP_HOSTLIST_H */

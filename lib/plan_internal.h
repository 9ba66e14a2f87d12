/*
 * plan_internal.h - what the planner files share; not installed.
 */
#ifndef NP_PLAN_INTERNAL_H
#define NP_PLAN_INTERNAL_H

#include "np_plan.h"
#include "plan_pool.h"

int np_rank_setenv(np_rank_t *r, const char *name, const char *value);
int np_rank_fill_env(const np_topo_t *t, const np_plan_t *p, np_rank_t *r);

/* The devices hca-near may use, best rail class first, sorted by
 * locality then name.  Fills idx (ndevices entries) and *n. */
int np_hca_select(const np_topo_t *t, const char *only, int *idx, unsigned *n, np_error_t *err);

/* Place the nlocal ranks starting at ranks[0] with hca-near. */
int np_place_hca_near(const np_topo_t *t, np_pool_t *pool, const int *devs, unsigned ndevs,
                      np_rank_t *ranks, unsigned nlocal, unsigned cpt);

int np_place_compact(np_pool_t *pool, np_rank_t *ranks, unsigned nlocal, unsigned cpt);
int np_place_spread(np_pool_t *pool, np_rank_t *ranks, unsigned nlocal, unsigned cpt);
int np_place_domains(const np_topo_t *t, np_pool_t *pool, np_scope_t scope, np_rank_t *ranks,
                     unsigned nlocal);

#endif /* NP_PLAN_INTERNAL_H */

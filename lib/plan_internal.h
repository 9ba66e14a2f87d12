/*
 * plan_internal.h - what the planner files share; not installed.
 */
#ifndef NP_PLAN_INTERNAL_H
#define NP_PLAN_INTERNAL_H

#include <numaplan/plan.h>
#include "plan_pool.h"

int np_rank_setenv(np_rank_t *r, const char *name, const char *value);
/* nic_map: Cray MPICH's MPICH_OFI_NIC_MAPPING of the rank's host, or NULL */
int np_rank_fill_env(const np_topo_t *t, const np_plan_t *p, np_rank_t *r, const char *nic_map);
/* The MPICH_OFI_NIC_MAPPING of the nlocal ranks of one host (Slingshot),
 * malloc'ed in *out; NULL when the ranks use no Slingshot NIC. */
int np_nic_mapping(const np_topo_t *t, const np_rank_t *ranks, unsigned nlocal, char **out);

/* One adapter named by the user: NAME or NAME:PORT (port 0 when not given). */
typedef struct np_hca_want {
	char name[NP_DEVNAME_MAX + 1];
	unsigned port;
} np_hca_want_t;

/* Syntax of a comma-separated list; *out is malloc'ed. */
int np_hca_list_parse(const char *list, np_hca_want_t **out, unsigned *n, np_error_t *err);

/* A device hca-near gives ranks to, and the port they use (0: none). */
typedef struct np_rail {
	int dev;
	unsigned port;
} np_rail_t;

/*
 * The rails hca-near may use: the usable devices of the best class present
 * (or exactly the usable devices of the list only), sorted by locality then
 * name, in rails (ndevices entries) and *n.  Devices left out because they
 * cannot be used (np_device_usable) go to p->skipped.  *n may be 0.
 * Errors: a bad list, a name that is not on the node, a port the device
 * does not have.
 */
int np_hca_select(const np_topo_t *t, const char *only, np_plan_t *p, np_rail_t *rails,
                  unsigned *n, np_error_t *err);

/* Place the nlocal ranks starting at ranks[0] with hca-near. */
int np_place_hca_near(const np_topo_t *t, np_pool_t *pool, const np_rail_t *rails,
                      unsigned nrails, np_rank_t *ranks, unsigned nlocal, unsigned cpt);

int np_place_compact(np_pool_t *pool, np_rank_t *ranks, unsigned nlocal, unsigned cpt);
int np_place_spread(np_pool_t *pool, np_rank_t *ranks, unsigned nlocal, unsigned cpt);
int np_place_domains(const np_topo_t *t, np_pool_t *pool, np_scope_t scope, np_rank_t *ranks,
                     unsigned nlocal);

#endif /* NP_PLAN_INTERNAL_H */

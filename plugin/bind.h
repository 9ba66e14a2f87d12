/*
 * bind.h - apply one rank's binding to the calling process, read it back.
 *
 * Runs in the task just before exec, as the user: sched_setaffinity and
 * set_mempolicy act on the calling thread, which then becomes the program.
 */
#ifndef NPS_BIND_H
#define NPS_BIND_H

#include <numaplan.h>

/* What the task had before numaplan touched it, to go back to. */
typedef struct nps_saved {
	np_cpuset_t *cpus;
} nps_saved_t;

int nps_bind_save(nps_saved_t *s, np_error_t *err);
/* Back to the saved affinity and the default memory policy. */
int nps_bind_restore(const nps_saved_t *s, np_error_t *err);
void nps_saved_free(nps_saved_t *s);

/* The NUMA nodes this process may allocate from (cpuset.mems). */
int nps_mems_allowed(np_cpuset_t *out, np_error_t *err);

/* Set affinity to r->cpus and the memory policy r->mem over r->mems. */
int nps_bind_apply(const np_rank_t *r, np_error_t *err);

/* Read affinity and memory policy back; -EIO with both sides named on a
 * mismatch. */
int nps_bind_verify(const np_rank_t *r, np_error_t *err);

#endif /* NPS_BIND_H */

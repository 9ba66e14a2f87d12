/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * job_record.h - the job's partition, as Slurm's credential says it, kept
 * on the node for the job's steps.
 *
 * SPANK gives slurmstepd no partition item (Slurm 22.05 has no
 * S_JOB_PARTITION), and the step's SLURM_JOB_PARTITION comes from the
 * client (srun), which could say anything.  The job's prolog environment
 * does come from slurmd: its SLURM_JOB_PARTITION is the one in the job
 * credential slurmctld signed.  So slurm_spank_job_prolog (root, before
 * any step of the job starts on the node) writes it to
 * DIR/jobs/JOBID@NODE, and slurmstepd (root) reads it back; the job's
 * epilog removes it.  DIR is cache= (or /run/numaplan, also with
 * cache=none); DIR and DIR/jobs are made and checked like the cache
 * directory (root's alone, topo_cache.h).
 */
#ifndef NPS_JOB_RECORD_H
#define NPS_JOB_RECORD_H

#include <stddef.h>

#include <numaplan.h>
#include "site_config.h"

/* DIR of the site: cache=DIR, else NPS_CACHE_DEFAULT */
const char *nps_job_record_base(const nps_site_t *s);

/* Write the job's partition (a valid name, nps_partition_name_ok) */
int nps_job_record_write(const char *base, unsigned job_id, const char *node,
                         const char *partition, np_error_t *err);

/* Read it into buf (NPS_PARTITION_MAX + 1 bytes at least); -ENOENT when
 * there is none, other errors when there is one nobody should trust. */
int nps_job_record_read(const char *base, unsigned job_id, const char *node,
                        char *buf, size_t len, np_error_t *err);

/* Remove it; no record is no error. */
int nps_job_record_remove(const char *base, unsigned job_id, const char *node,
                          np_error_t *err);

#endif /* NPS_JOB_RECORD_H */

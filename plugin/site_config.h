/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * site_config.h - the site's policy for numaplan.so, from the plugstack.conf
 * arguments (default=, allow=, enforce, topology=, cache=, on_error=,
 * verbose, respect_cpu_bind=, respect_gpu_bind=, sysfs=).  These come from
 * root-owned configuration only.
 *
 * default, allow and enforce also have per-partition forms,
 * default[gpu,a100]=gpu-near, allow[gpu]=gpu-near,hca-near, enforce[gpu]
 * (or enforce[cpu]=no): for a job in one of the partitions named, that
 * key's per-partition value replaces the site-wide one (the form without
 * brackets); keys the partition does not name keep the site-wide value.
 * nps_site_select() makes a partition's values the effective ones.
 */
#ifndef NPS_SITE_CONFIG_H
#define NPS_SITE_CONFIG_H

#include <stdbool.h>

#include <numaplan.h>

typedef enum nps_on_error {
	NPS_ON_ERROR_WARN,      /* the task runs unbound, the user is warned */
	NPS_ON_ERROR_FAIL,      /* the step fails with the reason */
} nps_on_error_t;

/* The policy keys of one partition (or of the whole site): which of them
 * were given, and their values. */
typedef struct nps_part_rule {
	char *name;                     /* the partition; NULL: site-wide */
	bool has_default;
	np_policy_t default_policy;
	bool allow_set;
	bool allowed[NP_POLICY_COUNT];
	bool has_enforce;
	bool enforce;
} nps_part_rule_t;

/* Partition names as Slurm's slurm.conf may spell them, within reason */
#define NPS_PARTITION_MAX 64

typedef struct nps_site {
	/* ---- the effective policy keys: the site-wide ones, or after
	 * nps_site_select() those of the job's partition */
	bool has_default;
	np_policy_t default_policy;
	bool allow_set;                 /* false: every policy may be asked for */
	bool allowed[NP_POLICY_COUNT];
	bool enforce;
	/* ---- the policy keys as given */
	nps_part_rule_t global;         /* the forms without [...] */
	nps_part_rule_t *parts;         /* one per partition named, in order */
	unsigned nparts;
	/* the partition selected, "" for none (site-wide keys) */
	char partition[NPS_PARTITION_MAX + 1];
	bool partition_ruled;           /* it has keys of its own */
	char *topology;                 /* absolute path template (%n, %%) or NULL */
	char *cache;                    /* cache=DIR; NULL: NPS_CACHE_DEFAULT */
	bool cache_off;                 /* cache=none */
	nps_on_error_t on_error;
	bool verbose;
	bool respect_cpu_bind;
	bool respect_gpu_bind;
	/* sysfs=DIR: adapter states from DIR/class/... instead of /sys (an
	 * emulated node's adapters); NULL for /sys */
	char *sysfs;
	/* plans=DIR: the tasks' plan records for the audit (plan_record.h);
	 * NULL: NPS_PLANS_DEFAULT; plans_off: plans=none, no records */
	char *plans;
	bool plans_off;
	/* record=DIR: the step records (step_record.h); NULL:
	 * NPS_RECORD_DEFAULT; record_off: record=none (or off); record_max:
	 * the size a day's file rotates at, in bytes */
	char *record;
	bool record_off;
	size_t record_max;
} nps_site_t;

void nps_site_init(nps_site_t *s);
void nps_site_free(nps_site_t *s);

/* Parse the plugstack.conf arguments.  On error the message names the
 * argument and what would have been valid; s is left in its init state. */
int nps_site_parse(nps_site_t *s, int argc, char *const argv[], np_error_t *err);

/* Make the keys of this partition the effective ones (NULL or "": the
 * site-wide keys).  Returns 1 when the partition has keys of its own, 0
 * when it gets the site-wide ones, -EINVAL for a name that is no
 * partition name (the site-wide keys are selected then). */
int nps_site_select(nps_site_t *s, const char *partition);

/* Is this a partition name the plugin takes (letters, digits, _ . - ;
 * 1 to NPS_PARTITION_MAX characters)? */
bool nps_partition_name_ok(const char *name);

bool nps_site_allows(const nps_site_t *s, np_policy_t p);

/* "compact, numa" (the policies a user may request); malloc'ed */
char *nps_site_allowed_list(const nps_site_t *s);

/* The topology path for a node: %n becomes the node name, %% a '%'.
 * *out is NULL when the site uses live discovery. */
int nps_site_topology_path(const nps_site_t *s, const char *node, char **out,
                           np_error_t *err);
/* The sysfs= directory for node, %n expanded likewise (*out NULL when
 * there is none: /sys). */
int nps_site_sysfs_path(const nps_site_t *s, const char *node, char **out, np_error_t *err);

/* Where live discovery is cached (NULL: not cached, because of cache=none
 * or because topology= names the site's own files). */
#define NPS_CACHE_DEFAULT "/run/numaplan"
const char *nps_site_cache_dir(const nps_site_t *s);

#define NPS_PLANS_DEFAULT "/run/numaplan/plans"
/* Where the tasks' plan records go: plans=, else NPS_PLANS_DEFAULT; NULL
 * with plans=none. */
const char *nps_site_plans_dir(const nps_site_t *s);

/* Where the step records go: record=, else NPS_RECORD_DEFAULT; NULL with
 * record=none */
const char *nps_site_record_dir(const nps_site_t *s);

/* Where the plugin keeps what it learned about the node: the cache file
 * and the list of topology files that passed the checker (topo_trust.h).
 * The cache directory, also under topology=; NULL with cache=none. */
const char *nps_site_state_dir(const nps_site_t *s);

/* Multi-line, human-readable settings (for --numa-plan=help); malloc'ed */
char *nps_site_describe(const nps_site_t *s);

#endif /* NPS_SITE_CONFIG_H */

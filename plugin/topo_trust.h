/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * topo_trust.h - a node's memory of topology files that passed the
 * checker (np_xml_trust_t), so that a step pays for the check only when
 * the file is new or has changed.
 *
 * DIR/verified (DIR: cache=, default /run/numaplan; nothing with
 * cache=none) holds one key a line, most recent first, at most
 * NPS_TRUST_MAX of them.  A key names the file's bytes (device, inode,
 * size, modification and change times) and slurmd's hwloc configuration;
 * see np_xml_trust_t.  A key in it means "loading these bytes did not
 * crash the checker", so it is trusted as the cache file is: DIR and the
 * path to it root's alone, the file regular, root's, not group- or
 * world-writable; anything else is ignored (every step checks) and
 * replaced when a check passes.  Written to a temporary file and renamed;
 * two steps writing at once may lose a key, which costs one more check.
 */
#ifndef NPS_TOPO_TRUST_H
#define NPS_TOPO_TRUST_H

#include <numaplan.h>

#define NPS_TRUST_FILE "verified"
#define NPS_TRUST_MAX 64

typedef struct nps_trust {
	np_xml_trust_t ops;     /* hand &ops to np_load_opts_t.trust */
	const char *dir;
	/* DIR already opened and checked by the caller (nps_cache_dir_open),
	 * or -1: the cache file's load reads the list through the descriptor
	 * it found the file in, instead of walking the path again */
	int dfd;
} nps_trust_t;

/* Set up t for DIR (kept by pointer, not copied), with dfd -1. */
void nps_trust_init(nps_trust_t *t, const char *dir);

#endif /* NPS_TOPO_TRUST_H */

/* SPDX-License-Identifier: BSD-3-Clause */
/* plan_helpers.h - shared fixtures of the planner unit tests */
#ifndef NP_TEST_PLAN_HELPERS_H
#define NP_TEST_PLAN_HELPERS_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <numaplan.h>

#define EPYC7551 "amd-epyc7551-2s-nps4-8numa-mlx5.xml"
#define SPR8480 "intel-spr8480-2s-snc4-8numa-4h100-4mlx5.xml"

/* Path of a test topology in tests/topologies (static buffer). */
const char *topo_path(const char *file);
/* Load a test topology (optionally restricted), failing the test on error. */
np_topo_t *load_topo(const char *file, const char *cpuset);
/* Plan; returns the rc and sets *out (NULL on error). */
int make_plan(const np_topo_t *t, np_policy_t pol, unsigned n, unsigned cpt, np_plan_t **out,
              np_error_t *err);
/* Set from a cpulist literal (test-owned; free with np_cpuset_free). */
np_cpuset_t *set_of(const char *list);
/* Is every CPU of the rank inside the cpulist? */
int rank_within(const np_rank_t *r, const char *list);
/*
 * A test copy of a stored topology (or, given an absolute path, of that
 * file) with literal edits, written to a
 * temporary file whose path is returned (free it with drop_derived).  The
 * stored files are never touched.  Each edit replaces `from` by `to`; it
 * must occur exactly once, or at least once when `all` is set, else the
 * test fails: an edit that silently misses would test the original.
 */
typedef struct xml_edit {
	const char *from, *to;
	int all;
} xml_edit_t;
char *derive_xml(const char *file, const xml_edit_t *edits, unsigned n);
/* A whole file, NUL-terminated (malloc'ed); fails the test on error. */
char *read_text(const char *path);
void drop_derived(char *path);
np_topo_t *load_path(const char *path);

/* A directory tree for fake sysfs roots: mkdtemp'ed; put_file creates the
 * parents of DIR/REL and writes the text; rm_tree removes it. */
char *make_tmpdir(void);
void put_file(const char *dir, const char *rel, const char *text);
void rm_tree(const char *dir);

/* NULL-terminated list of every *.xml in the topology directory. */
char **all_topologies(void);
void free_list(char **v);

#endif

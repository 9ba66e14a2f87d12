/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * check_main.c - numaplan check on one node (numaplan/check.h): the roots
 * opened once, each kind's reader run in turn (sysread/check_KIND.c),
 * their findings by kind, and freeing them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sysread/check_kinds.h"

/* By kind, each kind's findings in the order they were found (a stable
 * insertion sort: a node has tens of findings, not thousands). */
static void by_kind(np_check_result_t *c)
{
	for (unsigned i = 1; i < c->nfindings; i++) {
		np_finding_t f = c->findings[i];
		unsigned j = i;

		for (; j > 0 && c->findings[j - 1].kind > f.kind; j--)
			c->findings[j] = c->findings[j - 1];
		c->findings[j] = f;
	}
}

static int open_root(const char *root, const char *what, int *fd, np_error_t *err)
{
	if (!*root)
		return np_error_set(err, -EINVAL, "check: empty %s path", what);
	if ((*fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return np_error_set(err, errno == ENOTDIR || errno == ENOENT ? -EINVAL : -errno,
		                    "check: %s %s: %s", what, root, strerror(errno));
	return 0;
}

int np_check_node(const np_topo_t *t, const np_check_opts_t *opts, np_check_result_t **out, np_error_t *err)
{
	const char *root = opts && opts->sysfs ? opts->sysfs : "/sys";
	const char *ports = opts && opts->ports_sysfs ? opts->ports_sysfs : NULL;
	np_check_ctx_t x = { .t = t, .rootfd = -1, .portsfd = -1 };
	int rc;

	*out = NULL;
	x.memory_pct = opts && opts->memory_pct > 0 ? opts->memory_pct : 3.0;
	if ((rc = open_root(root, "sysfs root", &x.rootfd, err)) < 0)
		return rc;
	if (ports && (rc = open_root(ports, "adapters' sysfs root", &x.portsfd, err)) < 0) {
		close(x.rootfd);
		return rc;
	}
	if (!ports)
		x.portsfd = x.rootfd;
	if (!(x.c = calloc(1, sizeof(*x.c))) || !(x.c->sysfs = strdup(root))) {
		x.oom = true;
		goto done;
	}
	np_check_pcie(&x);
	np_check_memory(&x);
	np_check_cpus(&x);
	np_check_ports(&x);
	np_check_ecc(&x);
	np_check_settings(&x);
	by_kind(x.c);
done:
	if (x.portsfd != x.rootfd)
		close(x.portsfd);
	close(x.rootfd);
	if (x.oom) {
		np_check_free(x.c);
		return np_error_set(err, -ENOMEM, "check: out of memory");
	}
	*out = x.c;
	return 0;
}

void np_check_free(np_check_result_t *c)
{
	if (!c)
		return;
	for (unsigned i = 0; i < c->nfindings; i++) {
		free(c->findings[i].object);
		free(c->findings[i].found);
		free(c->findings[i].expected);
		free(c->findings[i].detail);
	}
	free(c->findings);
	free(c->sysfs);
	free(c);
}

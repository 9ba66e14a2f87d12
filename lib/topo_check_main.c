/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * topo_check_main.c - numaplan-topo-check: load hwloc XML from standard
 * input as np_topo_load would, in a process of its own, so that a file
 * hwloc aborts or crashes on ends this process and not the caller (see
 * topo_xml_check.c, which runs it).  Not meant to be run by hand.
 *
 *   numaplan-topo-check [--whole-machine] [--export] < FILE
 *
 * Exit status 0: hwloc loaded it (with --export, hwloc's own re-export of
 * it is on standard output); 1: hwloc refused it (why, on standard error);
 * 2: bad usage or no memory; 3: hwloc loaded it but the planner cannot use
 * it: OS indexes past its sets, or a tree no machine has (why, on standard
 * error).  A crash ends it by a signal, which is the
 * point.  The caller chooses the importer through the environment.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "topo_internal.h"

/* what np_topo_load reads, and a re-export of it */
#define NP_CHECK_MAX_INPUT (256u << 20)

#if defined(__SANITIZE_ADDRESS__)
#define NP_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NP_SANITIZED 1
#endif
#endif

static void limit_self(void)
{
	struct rlimit none = { 0, 0 }, cpu = { 60, 60 };

	/* expected crashes leave no core file behind (as root, in slurmd's
	 * working directory), and a checker whose parent died goes too */
	setrlimit(RLIMIT_CORE, &none);
	setrlimit(RLIMIT_CPU, &cpu);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
#ifndef NP_SANITIZED
	{
		/* a file that makes hwloc allocate without end fails here,
		 * not in the node's OOM killer (ASan needs the address space) */
		struct rlimit as = { 4ul << 30, 4ul << 30 };

		setrlimit(RLIMIT_AS, &as);
	}
#endif
}

static char *read_stdin(size_t *len)
{
	size_t cap = 1 << 20, got = 0;
	char *buf = malloc(cap + 1);
	ssize_t n;

	while (buf) {
		if (got == cap) {
			char *b2 = cap >= NP_CHECK_MAX_INPUT ? NULL : realloc(buf, 2 * cap + 1);

			if (!b2) {
				free(buf);
				return NULL;
			}
			buf = b2;
			cap *= 2;
		}
		n = read(0, buf + got, cap - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(buf);
			return NULL;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	if (buf) {
		buf[got] = '\0';
		*len = got;
	}
	return buf;
}

int main(int argc, char **argv)
{
	unsigned flags = 0;
	bool export = false;
	hwloc_topology_t h;
	size_t len = 0;
	char *buf;

	limit_self();
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--whole-machine")) {
			flags |= NP_LOAD_WHOLE_MACHINE;
		} else if (!strcmp(argv[i], "--export")) {
			export = true;
		} else {
			fprintf(stderr, "usage: numaplan-topo-check [--whole-machine] [--export] < FILE\n");
			return 2;
		}
	}
	/* hwloc's reasons for refusing a file, for the caller's message;
	 * they change what is printed, not what is parsed */
	setenv("HWLOC_XML_VERBOSE", "1", 1);
	if (!(buf = read_stdin(&len))) {
		fprintf(stderr, "cannot read the file: %s\n", strerror(errno ? errno : ENOMEM));
		return 2;
	}
	if (hwloc_topology_init(&h) < 0) {
		fprintf(stderr, "hwloc_topology_init failed: %s\n", strerror(errno));
		return 2;
	}
	np_topo_hwloc_setup(h, flags);
	if (hwloc_topology_set_xmlbuffer(h, buf, (int)(len + 1)) < 0 || hwloc_topology_load(h) < 0) {
		fprintf(stderr, "hwloc could not load it: %s\n", strerror(errno));
		return 1;
	}
	{
		char why[160];

		if (np_topo_hwloc_usable(h, why, sizeof(why)) < 0) {
			fprintf(stderr, "%s\n", why);
			return 3;
		}
	}
	/* No hwloc_topology_check() (it aborts rather than answers): the
	 * planner needs the shape np_topo_hwloc_usable tested above, not
	 * every invariant of hwloc's; the views are checked again in the
	 * load, and the whole is fuzzed (tests/fuzz). */
	if (export) {
		char *xb = NULL;
		int xl = 0;
		size_t done = 0;
		ssize_t n;

		if (hwloc_topology_export_xmlbuffer(h, &xb, &xl, 0) < 0 || xl < 1) {
			fprintf(stderr, "hwloc could not export it: %s\n", strerror(errno));
			return 1;
		}
		/* xl counts the terminating NUL */
		while (done < (size_t)xl - 1 && (n = write(1, xb + done, (size_t)xl - 1 - done)) > 0)
			done += (size_t)n;
		if (done < (size_t)xl - 1)
			return 2;
	}
	/* nothing to tidy: the process ends here */
	return 0;
}

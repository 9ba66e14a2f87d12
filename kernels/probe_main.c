/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * probe_main.c - numaplan-probe [--json] [--mpi | --no-mpi]: one line per
 * task saying where it may run and which memory policy it has.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probe.h"

#define EXIT_USAGE 2

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s [--json] [--touch SIZE] [--open] [--hold SECONDS] [--mpi | --no-mpi]\n"
		"Print, per task: host, rank, local rank, allowed CPUs, memory policy and\n"
		"nodes, and the NUMAPLAN_*/UCX_NET_DEVICES/OpenMP variables.\n"
		"  --json     one JSON object per task per line\n"
		"  --touch SIZE  write SIZE bytes (K, M, G suffixes) of fresh memory and\n"
		"             report the NUMA node of every page (pages=NODE:COUNT,...)\n"
		"  --open     open the adapters and GPUs the environment selects, as UCX\n"
		"             and the GPU runtimes would (UCX_NET_DEVICES, CUDA_VISIBLE_DEVICES,\n"
		"             ROCR_VISIBLE_DEVICES, ZE_AFFINITY_MASK), and report the devices\n"
		"             the process holds (devices=KIND:NAME,...)\n"
		"  --hold SECONDS  after the report, keep running (and the devices open)\n"
		"             this long, for numaplan audit to see (0 to 86400)\n"
		"  --mpi      use MPI for the ranks (numaplan-probe-mpi; default when a\n"
		"             PMI launcher started it)\n"
		"  --no-mpi   never initialise MPI\n"
		"  --help     this text\n", prog);
}

/* One write(2), so the lines of tasks sharing a pipe do not interleave. */
static int write_line(const char *line, np_error_t *err)
{
	size_t len = strlen(line);
	char *buf = malloc(len + 1);
	size_t off = 0;

	if (!buf)
		return np_error_set(err, -ENOMEM, "out of memory");
	memcpy(buf, line, len);
	buf[len++] = '\n';
	while (off < len) {
		ssize_t n = write(STDOUT_FILENO, buf + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			free(buf);
			return np_error_set(err, -e, "writing the output: %s", strerror(e));
		}
		off += (size_t)n;
	}
	free(buf);
	return 0;
}

/* "64M", "4096", "1G": a byte count, strictly (no sign, no garbage). */
static int parse_size(const char *s, size_t *out)
{
	unsigned long long v, mult = 1;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -EINVAL;
	switch (*end) {
	case 'K': case 'k': mult = 1ull << 10; end++; break;
	case 'M': case 'm': mult = 1ull << 20; end++; break;
	case 'G': case 'g': mult = 1ull << 30; end++; break;
	}
	if (*end || v == 0 || v > (64ull << 30) / mult)
		return -EINVAL;
	*out = (size_t)(v * mult);
	return 0;
}

int main(int argc, char **argv)
{
	const char *prog = "numaplan-probe";
	struct np_probe_info pi = { .mempolicy = "unknown" };
	np_error_t err = { 0 };
	int json = 0, mpi = -1, status = 0, use_mpi, open_devs = 0;
	unsigned long hold = 0;
	size_t touch = 0;
	char *line = NULL;

	if (argc > 0 && argv[0] && strrchr(argv[0], '/'))
		prog = strrchr(argv[0], '/') + 1;
	else if (argc > 0 && argv[0])
		prog = argv[0];
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = 1;
		} else if (!strcmp(argv[i], "--touch") || !strncmp(argv[i], "--touch=", 8)) {
			const char *v = argv[i][7] == '=' ? argv[i] + 8 : i + 1 < argc ? argv[++i] : NULL;

			if (parse_size(v, &touch) < 0) {
				fprintf(stderr, "%s: --touch '%s': not a size from 1 byte to 64G (e.g. 16M)\n",
					prog, v ? v : "");
				return EXIT_USAGE;
			}
		} else if (!strcmp(argv[i], "--open")) {
			open_devs = 1;
		} else if (!strcmp(argv[i], "--hold") || !strncmp(argv[i], "--hold=", 7)) {
			const char *v = argv[i][6] == '=' ? argv[i] + 7 : i + 1 < argc ? argv[++i] : NULL;
			char *end = NULL;

			errno = 0;
			hold = v && *v >= '0' && *v <= '9' ? strtoul(v, &end, 10) : 0;
			if (!v || !end || *end || errno || hold > 86400) {
				fprintf(stderr, "%s: --hold '%s': not a number of seconds from 0 to 86400\n",
					prog, v ? v : "");
				return EXIT_USAGE;
			}
		} else if (!strcmp(argv[i], "--mpi")) {
			mpi = 1;
		} else if (!strcmp(argv[i], "--no-mpi")) {
			mpi = 0;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout, prog);
			return 0;
		} else {
			fprintf(stderr, "%s: unknown argument '%s'\n", prog, argv[i]);
			usage(stderr, prog);
			return EXIT_USAGE;
		}
	}
	if (mpi == 1 && !np_probe_mpi_built()) {
		fprintf(stderr, "%s: --mpi: built without MPI; use numaplan-probe-mpi\n", prog);
		return EXIT_USAGE;
	}
	use_mpi = mpi == 1 || (mpi == -1 && np_probe_mpi_launched());

	/* Read the binding before any runtime starts threads or rebinds. */
	if (np_probe_affinity(&pi, &err) < 0) {
		fprintf(stderr, "%s: %s\n", prog, err.msg);
		return 1;
	}
	if (np_probe_mempolicy(&pi, &err) < 0) {
		fprintf(stderr, "%s: %s\n", prog, err.msg);
		status = 1;
	}
	/* after the policy is read, before any runtime allocates on its own */
	if (touch && np_probe_touch(&pi, touch, &err) < 0) {
		fprintf(stderr, "%s: %s\n", prog, err.msg);
		status = 1;
	}
	if (np_probe_host(&pi, &err) < 0) {
		fprintf(stderr, "%s: %s\n", prog, err.msg);
		status = 1;
	}
	np_probe_env_ranks(&pi);
	/* as a library opens its devices: before the ranks talk */
	if (open_devs) {
		if (np_probe_open_devices(&pi, &err) < 0) {
			fprintf(stderr, "%s: %s\n", prog, err.msg);
			status = 1;
		}
		for (size_t i = 0; i < pi.nopen_errors; i++)
			fprintf(stderr, "%s: %s\n", prog, pi.open_errors[i]);
		if (pi.nopen_errors)
			status = 1;
	}
	if (use_mpi) {
		if (np_probe_mpi_init(&argc, &argv, &pi, &err) < 0) {
			fprintf(stderr, "%s: %s\n", prog, err.msg);
			np_probe_close_devices(&pi);
			np_probe_info_free(&pi);
			return 1;
		}
	} else {
		np_probe_pmix(&pi);
	}

	if ((json ? np_probe_format_json(&pi, &line, &err)
		  : np_probe_format_text(&pi, &line, &err)) < 0) {
		fprintf(stderr, "%s: %s\n", prog, err.msg);
		status = 1;
		/* an MPI run still joins the gather, so the others finish */
		line = NULL;
	}
	if (use_mpi) {
		if (np_probe_mpi_print(line ? line : "", &err) < 0) {
			fprintf(stderr, "%s: %s\n", prog, err.msg);
			status = 1;
		}
		np_probe_mpi_finalize();
	} else if (line && write_line(line, &err) < 0) {
		fprintf(stderr, "%s: %s\n", prog, err.msg);
		status = 1;
	}
	free(line);
	/* the devices stay open while it waits */
	if (hold)
		for (unsigned long left = hold; left;)
			left = sleep((unsigned)left);
	np_probe_close_devices(&pi);
	np_probe_info_free(&pi);
	return status;
}

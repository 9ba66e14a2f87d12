/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_planner.c - load and plan times over the stored topologies, live
 * discovery for comparison, plan time against the task count up to
 * 1,000,000 ranks, and the time to write such plans in every format.  Not
 * a test: it prints figures.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <numaplan.h>

#include "common/spool.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Best of reps, in milliseconds: the machine is shared, minima are honest. */
static double time_load(const char *xml, int reps, np_topo_t **keep)
{
	double best = 1e9;

	for (int i = 0; i < reps; i++) {
		np_load_opts_t lo = { .xml_path = xml };
		np_error_t err;
		np_topo_t *t;
		double t0 = now(), dt;

		if (np_topo_load(&t, &lo, &err) < 0) {
			fprintf(stderr, "%s: %s\n", xml ? xml : "live", err.msg);
			exit(1);
		}
		dt = (now() - t0) * 1e3;
		if (dt < best)
			best = dt;
		if (keep && i == reps - 1)
			*keep = t;
		else
			np_topo_free(t);
	}
	return best;
}

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One plan of n ranks (overcommitted beyond the cores): best wall and
 * best CPU time of reps, in ms, np_plan_compute alone and with the free. */
struct scale_time {
	double wall, cpu, wall_free;
};

static struct scale_time time_scale(const np_topo_t *t, np_policy_t pol, unsigned n, int reps)
{
	struct scale_time best = { 1e12, 1e12, 1e12 };

	for (int i = 0; i < reps; i++) {
		np_plan_opts_t o = NP_PLAN_OPTS_INIT;
		np_error_t err;
		np_plan_t *p;
		double w0, c0, w1, c1;

		o.policy = pol;
		o.ntasks = n;
		o.overcommit = true;
		w0 = now();
		c0 = cpu_now();
		if (np_plan_compute(t, &o, &p, &err) < 0) {
			fprintf(stderr, "plan: %s\n", err.msg);
			exit(1);
		}
		w1 = now();
		c1 = cpu_now();
		np_plan_free(p);
		if ((w1 - w0) * 1e3 < best.wall)
			best.wall = (w1 - w0) * 1e3;
		if ((c1 - c0) * 1e3 < best.cpu)
			best.cpu = (c1 - c0) * 1e3;
		if ((now() - w0) * 1e3 < best.wall_free)
			best.wall_free = (now() - w0) * 1e3;
	}
	return best;
}

/*
 * Plan time against the task count, from 500 ranks to the documented
 * maximum of 1,000,000, side by side with a linear reference: "step" is
 * the CPU time's growth from the previous row divided by the rank count's
 * growth - 1.0 is linear, log-linear stays near 1, a quadratic planner
 * shows about 10 on each tenfold row.  Wall times are best of a few runs
 * (the machine is shared); CPU time (user + system, page faults included)
 * is steadier.
 */
static void scaling_table(const char *dir, const char *file)
{
	static const np_policy_t pols[] = { NP_POLICY_COMPACT, NP_POLICY_SPREAD, NP_POLICY_NUMA,
	                                    NP_POLICY_HCA_NEAR };
	static const unsigned counts[] = { 500, 5000, 50000, 500000, 1000000 };
	char path[4096];
	np_topo_t *t = NULL;
	double worst_1m = 0, worst_500 = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	time_load(path, 1, &t);
	printf("\n== plan scaling: %s (%u cores; beyond them, overcommitted)\n", file, t->ncores);
	printf("%-9s %9s %11s %11s %13s %11s %8s\n", "policy", "ranks", "wall ms", "cpu ms",
	       "cpu ns/rank", "+free ms", "step");
	for (size_t k = 0; k < sizeof(pols) / sizeof(pols[0]); k++) {
		double prev = 0;

		for (size_t j = 0; j < sizeof(counts) / sizeof(counts[0]); j++) {
			unsigned n = counts[j];
			struct scale_time st = time_scale(t, pols[k], n, n >= 500000 ? 3 : n >= 50000 ? 5 : 20);
			char step[32] = "-";

			if (j > 0)
				snprintf(step, sizeof(step), "%.2f",
				         (st.cpu / prev) / ((double)n / counts[j - 1]));
			prev = st.cpu;
			printf("%-9s %9u %11.3f %11.3f %13.0f %11.3f %8s\n", np_policy_name(pols[k]), n,
			       st.wall, st.cpu, st.cpu * 1e6 / n, st.wall_free, step);
			if (n == 500 && st.wall > worst_500)
				worst_500 = st.wall;
			if (n == 1000000 && st.wall > worst_1m)
				worst_1m = st.wall;
		}
	}
	printf("slowest 500-rank plan: %.3f ms (goal < 1 ms); slowest 1,000,000-rank plan: %.0f ms wall "
	       "(goal < 2000 ms)\n", worst_500, worst_1m);
	np_topo_free(t);
}

static double time_plan(const np_topo_t *t, np_policy_t pol, unsigned n, int reps)
{
	double best = 1e9;

	for (int i = 0; i < reps; i++) {
		np_plan_opts_t o = NP_PLAN_OPTS_INIT;
		np_error_t err;
		np_plan_t *p;
		double t0, dt;

		o.policy = pol;
		o.ntasks = n;
		t0 = now();
		if (np_plan_compute(t, &o, &p, &err) < 0) {
			fprintf(stderr, "plan: %s\n", err.msg);
			exit(1);
		}
		dt = (now() - t0) * 1e3;
		np_plan_free(p);
		if (dt < best)
			best = dt;
	}
	return best;
}

/* Writing one plan in a format into memory, as `numaplan plan` does before
 * anything reaches stdout (a spool): best wall and CPU time of reps in ms,
 * and the size. */
static struct scale_time time_write(const np_topo_t *t, const np_plan_t *p, np_format_t fmt,
                                    int reps, size_t *size)
{
	struct scale_time best = { 1e12, 1e12, 1e12 };

	for (int i = 0; i < reps; i++) {
		FILE *f;
		np_spool_t *s = np_spool_open(&f);
		np_error_t err;
		double w0 = now(), c0 = cpu_now(), w, c;

		if (!s || np_plan_write(f, t, p, fmt, "./a.out", &err) < 0 ||
		    np_spool_close(s, f) < 0) {
			fprintf(stderr, "write: %s\n", s ? err.msg : "out of memory");
			exit(1);
		}
		w = (now() - w0) * 1e3;
		c = (cpu_now() - c0) * 1e3;
		if (w < best.wall)
			best.wall = w;
		if (c < best.cpu)
			best.cpu = c;
		*size = np_spool_size(s);
		np_spool_free(s);
	}
	return best;
}

/*
 * Plan output at scale: 100,000 and 1,000,000 overcommitted compact ranks,
 * the plan's time and then each format's, as a ratio to the table (the
 * format for people, written line by line) and per rank.  "plan+write" is
 * what `numaplan plan --format F` spends besides loading the topology; the
 * goal is under 2 s at 1,000,000 ranks in every format.  Wall and CPU
 * times are both best of a few; on a shared machine the CPU time (one
 * thread: user + system) is what an idle one would take.
 */
static void output_table(const char *dir, const char *file)
{
	static const struct { np_format_t fmt; const char *name; } fmts[] = {
		{ NP_FMT_TABLE, "table" }, { NP_FMT_JSON, "json" }, { NP_FMT_OMPI, "ompi" },
		{ NP_FMT_OMPI4, "ompi4" }, { NP_FMT_SLURM, "slurm" }, { NP_FMT_MPICH, "mpich" },
		{ NP_FMT_NUMACTL, "numactl" },
	};
	static const unsigned counts[] = { 100000, 1000000 };
	char path[4096];
	np_topo_t *t = NULL;
	double worst = 0, worst_wall = 0;
	const char *worst_fmt = "";

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	time_load(path, 1, &t);
	printf("\n== plan output: %s (%u cores; compact, overcommitted)\n", file, t->ncores);
	printf("%-8s %8s %9s %9s %9s %9s %8s %8s %7s %11s %11s\n", "format", "ranks", "plan wall",
	       "plan cpu", "out wall", "out cpu", "x table", "ns/rank", "MB", "total wall",
	       "total cpu");
	for (size_t j = 0; j < sizeof(counts) / sizeof(counts[0]); j++) {
		unsigned n = counts[j];
		int reps = n >= 1000000 ? 2 : 3;
		struct scale_time plan = time_scale(t, NP_POLICY_COMPACT, n, reps);
		double table = 0;
		np_plan_opts_t o = NP_PLAN_OPTS_INIT;
		np_error_t err;
		np_plan_t *p;

		o.ntasks = n;
		o.overcommit = true;
		if (np_plan_compute(t, &o, &p, &err) < 0) {
			fprintf(stderr, "plan: %s\n", err.msg);
			exit(1);
		}
		for (size_t k = 0; k < sizeof(fmts) / sizeof(fmts[0]); k++) {
			size_t size;
			struct scale_time w = time_write(t, p, fmts[k].fmt, reps, &size);

			if (k == 0)
				table = w.cpu;
			printf("%-8s %8u %9.0f %9.0f %9.0f %9.0f %8.2f %8.0f %7.1f %11.0f %11.0f\n",
			       fmts[k].name, n, plan.wall, plan.cpu, w.wall, w.cpu, w.cpu / table,
			       w.cpu * 1e6 / n, (double)size / 1e6, plan.wall + w.wall, plan.cpu + w.cpu);
			if (n == 1000000 && plan.cpu + w.cpu > worst) {
				worst = plan.cpu + w.cpu;
				worst_wall = plan.wall + w.wall;
				worst_fmt = fmts[k].name;
			}
		}
		np_plan_free(p);
	}
	printf("(x table and ns/rank: CPU time of the output)\n");
	printf("slowest 1,000,000-rank plan and output: %.0f ms CPU, %.0f ms wall (%s; goal < 2000 ms)\n",
	       worst, worst_wall, worst_fmt);
	np_topo_free(t);
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "tests/topologies";
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort);
	double live, worst_all = 0, xml_sum = 0;
	int nxml = 0;

	if (n < 0) {
		perror(dir);
		return 1;
	}
	/* bench_planner DIR output: the plan-output figures alone */
	if (argc > 2 && !strcmp(argv[2], "output")) {
		while (n--)
			free(names[n]);
		free(names);
		output_table(dir, "amd-epyc7763-2s-milan-cpuonly-from-cpuid.xml");
		return 0;
	}
	live = time_load(NULL, 5, NULL);
	printf("%-52s %9s %5s %10s %10s %10s %10s\n", "topology", "load ms", "cores", "1 rank",
	       "64 ranks", "all cores", "hca-near");
	for (int i = 0; i < n; i++) {
		const char *f = names[i]->d_name;
		size_t len = strlen(f);
		char path[4096];
		np_topo_t *t = NULL;
		double ld, p1, p64, pall, phca;

		if (len < 5 || strcmp(f + len - 4, ".xml")) {
			free(names[i]);
			continue;
		}
		snprintf(path, sizeof(path), "%s/%s", dir, f);
		ld = time_load(path, 5, &t);
		p1 = time_plan(t, NP_POLICY_SPREAD, 1, 50);
		p64 = t->ncores >= 64 ? time_plan(t, NP_POLICY_SPREAD, 64, 50) : -1;
		pall = time_plan(t, NP_POLICY_SPREAD, t->ncores, 50);
		phca = time_plan(t, NP_POLICY_HCA_NEAR, t->ncores, 50);
		if (pall > worst_all)
			worst_all = pall;
		printf("%-52s %9.2f %5u %10.4f %10s %10.4f %10.4f\n", f, ld, t->ncores, p1,
		       p64 < 0 ? "-" : (snprintf(path, sizeof(path), "%.4f", p64), path), pall, phca);
		xml_sum += ld;
		nxml++;
		np_topo_free(t);
		free(names[i]);
	}
	free(names);
	printf("\nlive discovery: %.2f ms; mean XML load: %.2f ms (%.1fx faster)\n", live,
	       xml_sum / nxml, live / (xml_sum / nxml));
	printf("slowest all-core spread plan: %.4f ms (goal: < 1 ms for the 384-PU UV2000)\n", worst_all);
	scaling_table(dir, "amd-epyc7551-2s-nps4-8numa-mlx5.xml");
	scaling_table(dir, "sgi-uv2000-24s-24numa-mlx4.xml");
	/* two 64-core EPYCs, the size of the EPYC 7742 nodes the figures
	 * were first taken on (the tree has the 7763, Milan, of that size) */
	output_table(dir, "amd-epyc7763-2s-milan-cpuonly-from-cpuid.xml");
	return 0;
}

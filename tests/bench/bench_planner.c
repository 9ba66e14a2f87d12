/*
 * bench_planner.c - load and plan times over the stored topologies, and
 * live discovery for comparison.  Not a test: it prints figures.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "numaplan.h"

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
	return 0;
}

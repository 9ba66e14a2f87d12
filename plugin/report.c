/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * report.c - verbose lines, escaped messages and --cpu-bind/--gpu-bind detection.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "common/parse.h"
#include "sysread/kfile.h"
#include "export.h"
#include "report.h"

char *nps_task_line(const char *node, unsigned task, unsigned rank, const np_rank_t *r,
                    const char *gpus)
{
	char *cpus = np_cpuset_format(r->cpus);
	char *mems = r->mems ? np_cpuset_format(r->mems) : strdup("");
	char *hca = nps_rank_hca(r);
	char *line = NULL;
	char memtxt[300];
	int n = -1;

	if (!cpus || !mems || !hca)
		goto out;
	if (r->mem == NP_MEM_NONE || !*mems)
		snprintf(memtxt, sizeof(memtxt), "any");
	else
		snprintf(memtxt, sizeof(memtxt), "%s%s", mems,
			 r->mem == NP_MEM_INTERLEAVE ? " (interleave)" : "");
	n = asprintf(&line, "numaplan: %s task %u (rank %u): cpus %s mems %s hca %s%s%s%s%s",
		     node ? node : "?", task, rank, cpus, memtxt, *hca ? hca : "none",
		     !*hca ? "" : r->hca_local ? " (local)" : " (not local)",
		     gpus ? " gpus " : "", gpus ? gpus : "",
		     !gpus ? "" : r->gpu_local ? " (local)" : " (not local)");
out:
	free(cpus);
	free(mems);
	free(hca);
	return n < 0 ? NULL : line;
}

char *nps_plan_lines(const char *node, const np_plan_t *p, bool verbose)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	if (p->note && (verbose || p->policy != p->requested))
		fprintf(f, "numaplan: %s: note: %s\n", node, p->note);
	for (unsigned i = 0; verbose && i < p->nskipped; i++)
		fprintf(f, "numaplan: %s: adapter %s not used: %s\n", node, p->skipped[i].name,
			p->skipped[i].reason);
	if (fclose(f) != 0 || len == 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

bool nps_plan_degraded(const np_plan_t *p, unsigned rails)
{
	bool any = false, fewer = false;

	if (p->policy != NP_POLICY_HCA_NEAR && p->policy != NP_POLICY_GPU_NEAR)
		return false;
	for (unsigned i = 0; i < p->nranks; i++) {
		any |= p->ranks[i].nhcas > 0;
		fewer |= rails > 1 && p->ranks[i].nhcas < rails;
	}
	return fewer || (p->nskipped > 0 && !any);
}

char *nps_mpich_numa_warning(const char *node, unsigned task, unsigned rank, const char *value,
                             const np_cpuset_t *cpus, const np_cpuset_t *numas)
{
	char *c, *m, *line = NULL;
	int n = -1;

	if (!value || strcasecmp(value, "NUMA") || np_cpuset_count(numas) < 2)
		return NULL;
	c = np_cpuset_format(cpus);
	m = np_cpuset_format(numas);
	if (c && m)
		n = asprintf(&line, "numaplan: %s task %u (rank %u): warning: MPICH_OFI_NIC_POLICY=NUMA "
		             "(set in the environment, so kept) and the task's cpus %s span NUMA nodes %s: "
		             "Cray MPICH aborts in MPI_Init on such a task; unset MPICH_OFI_NIC_POLICY "
		             "(numaplan's NIC mapping or MPICH's default then applies), or ask for fewer "
		             "cpus per task", node ? node : "?", task, rank, c, m);
	free(c);
	free(m);
	return n < 0 ? NULL : line;
}

bool nps_cpu_bind_explicit(const char *bind_type)
{
	return bind_type && *bind_type;
}

void nps_host_log(const nps_host_t *h, nps_log_level_t level, const char *fmt, ...)
{
	char out[NPS_MSG_SIZE];
	va_list ap;

	va_start(ap, fmt);
	nps_format_message(out, fmt, ap);
	va_end(ap);
	h->ops->log(h->ctx, level, out);
}

char *nps_format_message(char *out, const char *fmt, va_list ap)
{
	char msg[NPS_MSG_MAX];

	/* a cut message says so, like np_escape's */
	if (vsnprintf(msg, sizeof(msg), fmt, ap) >= (int)sizeof(msg))
		memcpy(msg + sizeof(msg) - 4, "...", 4);
	return np_escape(out, NPS_MSG_SIZE, msg);
}

static bool cpu_bind_name(const char *name, size_t len)
{
	return (len >= 5 && len <= 8 && !strncmp(name, "cpu-bind", len)) ||
	       (len >= 4 && len <= 8 && !strncmp(name, "cpu_bind", len));
}

bool nps_cpu_bind_given(int nwords, char *const words[])
{
	for (int i = 0; i < nwords; i++) {
		const char *w = words[i];

		if (!w || strncmp(w, "--", 2) != 0)
			continue;
		if (!w[2])
			break;          /* "--": srun's options end here */
		if (cpu_bind_name(w + 2, strcspn(w + 2, "=")))
			return true;
	}
	return false;
}

static bool gpu_bind_name(const char *name, size_t len)
{
	/* srun's other --gpu* options: --gpu-freq, --gpus, --gpus-per-... */
	return len >= 5 && len <= 8 && !strncmp(name, "gpu-bind", len);
}

static bool tres_bind_name(const char *name, size_t len)
{
	/* and --tres-per-task */
	return len >= 6 && len <= 9 && !strncmp(name, "tres-bind", len);
}

/* A --gpu-bind value, or a gres/gpu part's type: "verbose" alone binds
 * nothing (srun 23.11 and later refuse it) */
static bool gpu_type_binds(const char *v, size_t len)
{
	if (len >= 8 && !strncasecmp(v, "verbose,", 8)) {
		v += 8;
		len -= 8;
	}
	return len > 0 && !(len == 7 && !strncasecmp(v, "verbose", 7));
}

/* A --tres-bind value: parts joined by '+', each TRES:TYPE; the gres/gpu
 * part's type (Slurm keeps the last one given) */
static bool tres_binds_gpu(const char *v)
{
	bool binds = false;

	while (v && *v) {
		size_t n = strcspn(v, "+");

		if (n >= 9 && !strncmp(v, "gres/gpu:", 9))
			binds = gpu_type_binds(v + 9, n - 9);
		v += n + (v[n] == '+');
	}
	return binds;
}

int nps_gpu_bind_given(int nwords, char *const words[])
{
	int given = 0;

	for (int i = 0; i < nwords; i++) {
		const char *w = words[i], *v;
		size_t n;
		bool tres;

		if (w && !strcmp(w, ":")) {
			/* the next het component: the first that asks decides */
			if (given)
				break;
			continue;
		}
		if (!w || strncmp(w, "--", 2) != 0)
			continue;
		if (!w[2])
			break;
		n = strcspn(w + 2, "=");
		tres = tres_bind_name(w + 2, n);
		if (!tres && !gpu_bind_name(w + 2, n))
			continue;
		if (w[2 + n] == '=')
			v = w + 3 + n;
		else
			v = i + 1 < nwords ? words[++i] : NULL;
		/* each replaces what the one before asked */
		if (tres)
			given = tres_binds_gpu(v) ? NPS_GPU_BIND_TRES : 0;
		else
			given = v && gpu_type_binds(v, strlen(v)) ? NPS_GPU_BIND_GPU : 0;
	}
	return given;
}

const char *nps_gpu_bind_option(int given)
{
	return given == NPS_GPU_BIND_TRES ? "--tres-bind=gres/gpu" : "--gpu-bind";
}

/* A process's command line file: its words (NUL-separated) in *words,
 * pointing into *buf; both malloc'ed. */
static int read_cmdline(const char *cmdline_path, char **bufp, char ***wordsp, int *np)
{
	size_t len = 0;
	char *buf = NULL, **words = NULL;
	int n = 0, rc;

	*bufp = NULL;
	*wordsp = NULL;
	*np = 0;
	/* the words and their NULs; ARG_MAX keeps it far below the bound */
	if ((rc = np_kfile_slurp(cmdline_path, 64u << 20, &buf, &len)) < 0)
		goto out;
	for (size_t i = 0; i < len; i++)
		n += buf[i] == '\0';
	if (len && buf[len - 1] != '\0')
		n++;
	if (!(words = calloc((size_t)n + 1, sizeof(*words)))) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0, w = 0; i < len && w < (size_t)n; i += strlen(buf + i) + 1)
		words[w++] = buf + i;
	*bufp = buf;
	*wordsp = words;
	*np = n;
	return 0;
out:
	free(buf);
	return rc;
}

/* srun's option words of a command line: words[1 .. n - 1 - job_argc] */
static int srun_option(const char *cmdline_path, int job_argc,
                       int (*given)(int, char *const[]))
{
	char *buf, **words;
	int n, rc;

	if ((rc = read_cmdline(cmdline_path, &buf, &words, &n)) < 0)
		return rc;
	/* words[0] is srun itself; the last job_argc words are the command */
	rc = n - 1 - job_argc > 0 ? given(n - 1 - job_argc, words + 1) : 0;
	free(words);
	free(buf);
	return rc;
}

static int cpu_bind_given(int n, char *const w[])
{
	return nps_cpu_bind_given(n, w);
}

int nps_srun_cpu_bind_given(const char *cmdline_path, int job_argc)
{
	return srun_option(cmdline_path, job_argc, cpu_bind_given);
}

int nps_srun_gpu_bind_given(const char *cmdline_path, int job_argc)
{
	return srun_option(cmdline_path, job_argc, nps_gpu_bind_given);
}

/* "--het-group" or "--pack-group" (its old name), or an abbreviation
 * getopt_long takes for them: down to "--het-g", "--pack-g" */
static bool het_group_name(const char *name, size_t n)
{
	return (n >= 5 && n <= 9 && !strncmp(name, "het-group", n)) ||
	       (n >= 6 && n <= 10 && !strncmp(name, "pack-group", n));
}

/* One --het-group value, "1,3-5", into groups[0 .. size - 1] */
static int het_group_list(const char *v, bool *groups, unsigned size)
{
	char item[32];

	if (!v || !*v)
		return -EINVAL;
	while (*v) {
		size_t n = strcspn(v, ",");
		unsigned lo, hi;
		char *dash;

		if (n == 0 || n >= sizeof(item))
			return -EINVAL;
		memcpy(item, v, n);
		item[n] = '\0';
		if ((dash = strchr(item, '-')))
			*dash = '\0';
		if (np_parse_uint(item, 0, size - 1, &lo) < 0 ||
		    np_parse_uint(dash ? dash + 1 : item, lo, size - 1, &hi) < 0)
			return -EINVAL;
		for (unsigned g = lo; g <= hi; g++)
			groups[g] = true;
		v += n + (v[n] == ',');
	}
	return 0;
}

int nps_het_groups(int nwords, char *const words[], bool *groups, unsigned size)
{
	unsigned comp = 0, count = 0;
	bool given = false;

	if (!size)
		return -EINVAL;
	memset(groups, 0, size * sizeof(*groups));
	for (int i = 0; i <= nwords; i++) {
		const char *w = i < nwords ? words[i] : ":";
		size_t n;
		int rc;

		if (w && !strcmp(w, ":")) {
			/* a component without the option is the group of
			 * its own place on the line */
			if (!given) {
				if (comp >= size)
					return -EINVAL;
				groups[comp] = true;
			}
			comp++;
			given = false;
			continue;
		}
		if (!w || strncmp(w, "--", 2) != 0 || !w[2])
			continue;
		n = strcspn(w + 2, "=");
		if (!het_group_name(w + 2, n))
			continue;
		if ((rc = het_group_list(w[2 + n] == '=' ? w + 3 + n : i + 1 < nwords ? words[++i] : NULL,
					 groups, size)) < 0)
			return rc;
		given = true;
	}
	for (unsigned g = 0; g < size; g++)
		count += groups[g];
	return (int)count;
}

int nps_srun_het_groups(const char *cmdline_path, bool *groups, unsigned size)
{
	char *buf, **words;
	int n, rc;

	if ((rc = read_cmdline(cmdline_path, &buf, &words, &n)) < 0)
		return rc;
	rc = n > 1 ? nps_het_groups(n - 1, words + 1, groups, size) : nps_het_groups(0, NULL, groups, size);
	free(words);
	free(buf);
	return rc;
}

int nps_srun_partition(const char *cmdline_path, char *out, size_t len)
{
	char *buf, **words;
	const char *v = NULL;
	int n, rc;

	if ((rc = read_cmdline(cmdline_path, &buf, &words, &n)) < 0)
		return rc;
	for (int i = 1; i < n; i++) {
		const char *w = words[i];
		size_t k;

		if (!strcmp(w, "--"))
			break;
		if (!strcmp(w, "-p") && i + 1 < n) {
			v = words[++i];
		} else if (!strncmp(w, "-p", 2) && w[2] && w[1] == 'p') {
			v = w + 2;
		} else if (!strncmp(w, "--", 2) && (k = strcspn(w + 2, "=")) >= 4 &&
			   k <= 9 && !strncmp(w + 2, "partition", k)) {
			if (w[2 + k] == '=')
				v = w + 3 + k;
			else if (i + 1 < n)
				v = words[++i];
		}
	}
	rc = 0;
	if (v && *v && strlen(v) < len) {
		memcpy(out, v, strlen(v) + 1);
		rc = 1;
	}
	free(words);
	free(buf);
	return rc;
}

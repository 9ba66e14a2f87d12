/*
 * report.c - verbose lines, escaped messages and --cpu-bind detection.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export.h"
#include "report.h"

char *nps_task_line(const char *node, unsigned task, unsigned rank, const np_rank_t *r)
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
	n = asprintf(&line, "numaplan: %s task %u (rank %u): cpus %s mems %s hca %s%s",
		     node ? node : "?", task, rank, cpus, memtxt, *hca ? hca : "none",
		     !*hca ? "" : r->hca_local ? " (local)" : " (not local)");
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

bool nps_cpu_bind_explicit(const char *bind_type)
{
	return bind_type && *bind_type;
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

int nps_srun_cpu_bind_given(const char *cmdline_path, int job_argc)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap), **words = NULL;
	int fd, n = 0, rc;
	ssize_t got;

	if (!buf)
		return -ENOMEM;
	if ((fd = open(cmdline_path, O_RDONLY | O_CLOEXEC)) < 0) {
		rc = -errno;
		goto out;
	}
	while ((got = read(fd, buf + len, cap - len - 1)) > 0) {
		len += (size_t)got;
		if (cap - len - 1 == 0) {
			char *more = cap < (64u << 20) ? realloc(buf, cap * 2) : NULL;

			if (!more) {
				close(fd);
				rc = -ENOMEM;
				goto out;
			}
			buf = more;
			cap *= 2;
		}
	}
	rc = got < 0 ? -errno : 0;
	close(fd);
	if (rc < 0)
		goto out;
	buf[len] = '\0';
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
	/* words[0] is srun itself; the last job_argc words are the command */
	rc = n - 1 - job_argc > 0 ? nps_cpu_bind_given(n - 1 - job_argc, words + 1) : 0;
out:
	free(words);
	free(buf);
	return rc;
}

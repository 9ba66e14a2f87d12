/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * audit_collect.c - `numaplan audit --collect JOBID`, inside a step of the
 * job: every process of the job's other steps on this node, as /proc
 * shows it now.
 *
 * The processes come from the job's cgroup (a path component job_JOBID and
 * a step_STEP below it, as Slurm's cgroup plugins name them under v1 and
 * v2), which holds the tasks and everything they started; the task's
 * environment says its rank.  Reading another process's environ and
 * numa_maps needs to be its owner or root: the job's owner runs this.
 *
 * Names and values are the processes' own (a thread can name itself
 * anything with prctl): they reach JSON as valid UTF-8, an invalid byte
 * written \xHH, and a process that still cannot be packed is counted
 * as unreported, never dropped, so no name hides a task from the audit.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "audit.h"
#include "common/json_get.h"
#include "common/text.h"
#include "common/clock.h"
#include "sysread/kfile.h"
#include "sysread/open_devices.h"

/* A JSON string of text a process chose: valid UTF-8 kept, each byte of
 * an invalid sequence (and the backslash, so the form is unambiguous)
 * written \xHH / \\.  NULL only when memory ran out. */
static json_t *jstr(const char *s, size_t len)
{
	np_sb_t b;
	json_t *j;
	size_t i = 0;

	np_sb_init(&b);
	np_sb_add(&b, "");
	while (i < len) {
		const unsigned char *u = (const unsigned char *)s + i;
		size_t n = u[0] < 0x80 ? 1 : (u[0] & 0xe0) == 0xc0 ? 2 : (u[0] & 0xf0) == 0xe0 ? 3 :
		           (u[0] & 0xf8) == 0xf0 ? 4 : 0;
		bool ok = n > 0 && i + n <= len && u[0] != 0;
		for (size_t k = 1; ok && k < n; k++)
			ok = (u[k] & 0xc0) == 0x80;
		/* overlong forms, surrogates and code points past U+10FFFF are
		 * what jansson refuses as well */
		if (ok && n == 2)
			ok = u[0] >= 0xc2;
		if (ok && n == 3)
			ok = !(u[0] == 0xe0 && u[1] < 0xa0) && !(u[0] == 0xed && u[1] >= 0xa0);
		if (ok && n == 4)
			ok = !(u[0] == 0xf0 && u[1] < 0x90) && u[0] <= 0xf4 && !(u[0] == 0xf4 && u[1] >= 0x90);
		if (ok && u[0] == '\\')
			np_sb_add(&b, "\\\\");
		else if (ok)
			np_sb_addn(&b, s + i, n);
		else
			np_sb_printf(&b, "\\x%02x", u[0]);
		i += ok ? n : 1;
	}
	if (b.oom) {
		np_sb_free(&b);
		return NULL;
	}
	j = json_string(b.s);
	np_sb_free(&b);
	return j;
}

static json_t *jstr0(const char *s)
{
	return jstr(s ? s : "", s ? strlen(s) : 0);
}

/* the variables a task's binding is judged by, and its place */
static const char *const env_keys[] = {
	"NUMAPLAN_POLICY", "NUMAPLAN_CPUS", "NUMAPLAN_MEMS", "NUMAPLAN_HCA", "NUMAPLAN_GPUS", "SLURM_CPU_BIND_TYPE",
	"SLURM_CPU_BIND_LIST", "SLURM_PROCID", "SLURM_LOCALID", NULL,
};

char *np_audit_status_field(const char *text, const char *key)
{
	size_t kl = strlen(key);
	const char *p = text;

	while (p && *p) {
		if (strncmp(p, key, kl) == 0 && p[kl] == ':') {
			const char *v = p + kl + 1, *e;
			while (*v == ' ' || *v == '\t')
				v++;
			e = strchr(v, '\n');
			if (!e)
				e = v + strlen(v);
			while (e > v && isspace((unsigned char)e[-1]))
				e--;
			return strndup(v, (size_t)(e - v));
		}
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return NULL;
}

void np_audit_numa_maps(const char *text, char *policy, size_t n, json_t *pages_kb)
{
	json_t *count = json_object();
	const char *p = text, *best = NULL;
	char mark[64] = "";
	long long bestn = 0;
	const char *k;
	json_t *v;

	snprintf(policy, n, "?");
	while (p && *p) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		char *line = strndup(p, len), *save = NULL, *tok, pol[64] = "";
		long long kb = 4;
		bool anon = true, marked = false;
		json_t *pages = json_object();
		unsigned i = 0;

		for (tok = line ? strtok_r(line, " ", &save) : NULL; tok; tok = strtok_r(NULL, " ", &save), i++) {
			if (i == 1)
				snprintf(pol, sizeof(pol), "%s", tok);
			else if (strncmp(tok, "file=", 5) == 0)
				anon = false;
			else if (strcmp(tok, "heap") == 0 || strcmp(tok, "stack") == 0)
				marked = true;
			else if (strncmp(tok, "kernelpagesize_kB=", 18) == 0)
				kb = atoll(tok + 18);
			else if (tok[0] == 'N' && isdigit((unsigned char)tok[1]) && strchr(tok, '=')) {
				char node[16];
				snprintf(node, sizeof(node), "%.*s", (int)(strchr(tok, '=') - tok - 1), tok + 1);
				json_object_set_new(pages, node, json_integer(atoll(strchr(tok, '=') + 1)));
			}
		}
		if (anon && pol[0]) {
			json_object_foreach(pages, k, v) {
				json_int_t prev = json_integer_value(json_object_get(pages_kb, k));
				json_object_set_new(pages_kb, k, json_integer(prev + json_integer_value(v) * kb));
			}
			/* heap and stack follow the task's policy unless mbind()
			 * gave them their own: the first of them names it */
			if (marked && !mark[0])
				snprintf(mark, sizeof(mark), "%s", pol);
			json_object_set_new(count, pol, json_integer(json_integer_value(json_object_get(count, pol)) + 1));
		}
		json_decref(pages);
		free(line);
		p = e ? e + 1 : NULL;
	}
	json_object_foreach(count, k, v)
		if (json_integer_value(v) > bestn) {
			bestn = json_integer_value(v);
			best = k;
		}
	if (mark[0])
		snprintf(policy, n, "%s", mark);
	else if (best)
		snprintf(policy, n, "%s", best);
	json_decref(count);
}

static char *read_proc(const char *proc, const char *pid, const char *what, size_t *len)
{
	char *path = np_strdup_printf("%s/%s/%s", proc, pid, what), *t = NULL;

	/* numa_maps has a line per mapping: megabytes for a large process */
	if (path)
		np_kfile_slurp(path, 256u << 20, &t, len);
	free(path);
	return t;
}

/* The job's step this process is in, from its cgroup path (".../job_5/
 * step_0/..."), on this node: the path up to job_5 must be one of ours
 * (prefixes).  1 with the step copied, 0 when not in that job here (on
 * the vcluster every node sees every node's processes, as ../npvc-nK/...
 * paths outside its cgroup namespace). */
static int step_of(const char *cgroup, const char *jobid, json_t *prefixes, char *step, size_t n)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "/job_%s/step_", jobid);
	for (p = cgroup; p && (p = strstr(p, pat)); p++) {
		const char *s = p + strlen(pat), *bol = p;
		size_t l = strcspn(s, "/\n");
		char *prefix;
		bool ours;

		while (bol > cgroup && bol[-1] != '\n')
			bol--;
		bol = strchr(bol, ':') ? strchr(strchr(bol, ':') + 1, ':') : NULL;
		if (!bol || bol > p)
			continue;
		prefix = strndup(bol + 1, (size_t)(p - bol - 1));
		ours = prefix && json_object_get(prefixes, prefix);
		free(prefix);
		if (ours && l && l < n) {
			snprintf(step, n, "%.*s", (int)l, s);
			return 1;
		}
	}
	return 0;
}

/* Where this job's cgroups are on this node: the paths of our own
 * cgroups up to job_JOBID, one per hierarchy. */
static json_t *job_prefixes(const char *proc, const char *jobid)
{
	char *cg = read_proc(proc, "self", "cgroup", NULL), pat[64];
	json_t *set = json_object();
	const char *p;

	snprintf(pat, sizeof(pat), "/job_%s/", jobid);
	for (p = cg; p && *p;) {
		const char *e = strchr(p, '\n'), *c1 = strchr(p, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		const char *j = c2 ? strstr(c2, pat) : NULL;
		if (j && (!e || j < e)) {
			char *prefix = strndup(c2 + 1, (size_t)(j - c2 - 1));
			if (prefix)
				json_object_set_new(set, prefix, json_true());
			free(prefix);
		}
		p = e ? e + 1 : NULL;
	}
	free(cg);
	return set;
}

static json_t *env_of(const char *environ, size_t len)
{
	json_t *env = json_object();
	const char *p = environ, *end = environ + len;

	while (p && p < end) {
		size_t l = strnlen(p, (size_t)(end - p));
		for (unsigned i = 0; env_keys[i]; i++) {
			size_t kl = strlen(env_keys[i]);
			if (l > kl && strncmp(p, env_keys[i], kl) == 0 && p[kl] == '=') {
				json_object_set_new(env, env_keys[i], jstr(p + kl + 1, l - kl - 1));
			}
		}
		p += l + 1;
	}
	return env;
}

/* Each thread of a process with its CPUs; *lost counts those that could
 * not be packed. */
static json_t *threads_of(const char *proc, const char *pid, unsigned *lost)
{
	char *dir = np_strdup_printf("%s/%s/task", proc, pid);
	DIR *d = dir ? np_kfile_opendir_at(AT_FDCWD, dir) : NULL;
	json_t *a = json_array();
	struct dirent *de;

	while (d && (de = readdir(d))) {
		char *rel, *st, *cpus, *name;
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		rel = np_strdup_printf("task/%s/status", de->d_name);
		st = rel ? read_proc(proc, pid, rel, NULL) : NULL;
		cpus = st ? np_audit_status_field(st, "Cpus_allowed_list") : NULL;
		name = st ? np_audit_status_field(st, "Name") : NULL;
		if (cpus && json_array_append_new(a, json_pack("{s:I, s:o, s:o}", "tid", (json_int_t)atoll(de->d_name),
		                                               "cpus", jstr0(cpus), "comm", jstr0(name))) < 0)
			++*lost;
		free(rel);
		free(st);
		free(cpus);
		free(name);
	}
	if (d)
		closedir(d);
	free(dir);
	return a;
}

/* The adapters and GPUs a process holds open: [{kind, file, name, pci}],
 * or null (with the reason in errors) when its descriptors cannot be
 * read: unseen is not "none".  *unread: its descriptors whose file could
 * not be looked at, which may hold any device. */
static json_t *devices_of(const char *proc, const char *root, const char *pid, json_t *errors, unsigned *unread)
{
	np_devopen_t *v = NULL;
	size_t n = 0;
	np_error_t err = { 0 };
	json_t *a;

	*unread = 0;
	if (np_devopen_scan(proc, root, pid, &v, &n, unread, &err) < 0) {
		json_array_append_new(errors, json_sprintf("%s", err.msg));
		return json_null();
	}
	if (*unread)
		json_array_append_new(errors, json_sprintf("process %s: %u of its descriptors could not be looked at: "
		                                           "the devices it holds are not all known", pid, *unread));
	a = json_array();
	for (size_t i = 0; i < n; i++) {
		/* the link's text is the process's: shown as a process's text */
		json_array_append_new(a, json_pack("{s:s, s:o, s:s, s:s}", "kind", np_devkind_name(v[i].kind), "file",
		                                   jstr0(v[i].file), "name", v[i].name, "pci", v[i].pci));
		if (v[i].note)
			json_array_append_new(errors, json_sprintf("process %s: %s: %s", pid, v[i].name, v[i].note));
	}
	free(v);
	return a;
}

/* The parent of a process, from its status (0 when it is gone) */
typedef struct parent_ctx {
	const char *proc;
} parent_ctx_t;

static long long parent_of(void *ctx, long long pid)
{
	char id[32], *st, *pp;
	long long v;

	snprintf(id, sizeof(id), "%lld", pid);
	st = read_proc(((parent_ctx_t *)ctx)->proc, id, "status", NULL);
	pp = st ? np_audit_status_field(st, "PPid") : NULL;
	v = pp ? atoll(pp) : 0;
	free(st);
	free(pp);
	return v;
}

/* One process of the job: what its binding is now, and the plan it is
 * judged by (recs).  NULL when it went away meanwhile, or is slurmstepd. */
static json_t *process(const char *proc, const char *root, const char *pid, const char *step, json_t *recs,
                       json_t *errors, unsigned *lost)
{
	size_t elen = 0;
	char *status = read_proc(proc, pid, "status", NULL);
	char *environ = read_proc(proc, pid, "environ", &elen);
	char *maps = read_proc(proc, pid, "numa_maps", NULL);
	char *cpus = status ? np_audit_status_field(status, "Cpus_allowed_list") : NULL;
	char *mems = status ? np_audit_status_field(status, "Mems_allowed_list") : NULL;
	char *comm = status ? np_audit_status_field(status, "Name") : NULL;
	char *uid = status ? np_audit_status_field(status, "Uid") : NULL;
	json_t *pages = json_object(), *p = NULL, *env, *threads, *devices, *plan;
	parent_ctx_t pc = { proc };
	unsigned tlost = 0, unread = 0;
	char policy[96];

	if (!cpus)
		goto out;
	/* slurmstepd joins the step's cgroup too: root's, and no task of a
	 * user's can be root.  Every other process is reported, with a rank
	 * or without: an `env -i` child is still the job's. */
	if (comm && strcmp(comm, "slurmstepd") == 0 && uid && atoi(uid) == 0)
		goto out;
	if (!environ || !maps)
		json_array_append_new(errors, json_sprintf("process %s: cannot read its %s (not its owner?)", pid,
		                                           !environ ? "environ" : "numa_maps"));
	env = environ ? env_of(environ, elen) : json_object();
	plan = np_audit_plan_of(recs, step, atoll(pid), env, parent_of, &pc);
	np_audit_numa_maps(maps ? maps : "", policy, sizeof(policy), pages);
	threads = threads_of(proc, pid, &tlost);
	devices = devices_of(proc, root, pid, errors, &unread);
	p = json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:i}", "pid", (json_int_t)atoll(pid),
	              "step", jstr0(step), "comm", jstr0(comm), "cpus", jstr0(cpus), "mems_allowed", jstr0(mems),
	              "policy", jstr0(maps ? policy : "?"), "pages_kb", pages, "env", env, "plan",
	              plan ? plan : json_null(), "threads", threads, "devices", devices, "devices_unreadable",
	              (int)unread);
	pages = NULL;
	/* a task the audit cannot show is said so, not left out */
	if (!p || tlost || !plan) {
		json_array_append_new(errors, json_sprintf("process %s: %s could not be reported (out of memory)", pid,
		                                           p ? "some of it" : "it"));
		++*lost;
	}
out:
	json_decref(pages);
	free(status);
	free(environ);
	free(maps);
	free(cpus);
	free(mems);
	free(comm);
	free(uid);
	return p;
}

static json_t *numa_of(np_error_t *err)
{
	np_load_opts_t lo = { .flags = NP_LOAD_WHOLE_MACHINE };
	np_topo_t *t = NULL;
	json_t *m;

	/* the whole machine: other steps' CPUs are outside this one's */
	if (np_topo_load(&t, &lo, err) < 0)
		return NULL;
	m = json_object();
	for (unsigned i = 0; i < t->nnuma; i++) {
		char *c = np_cpuset_format(t->numa[i].cpus), key[16];
		snprintf(key, sizeof(key), "%u", t->numa[i].os_index);
		json_object_set_new(m, key, json_string(c ? c : ""));
		free(c);
	}
	np_topo_free(t);
	return m;
}

static long long delta(long long a, long long b)
{
	return a >= 0 && b >= a ? b - a : -1;
}

/* The RDMA adapters' ports of this node: their state now and the bytes
 * and packets they carried between the two samples (-1: not counted). */
static json_t *ports_of(const np_devport_t *a, size_t na, const np_devport_t *b, size_t nb, double secs)
{
	json_t *arr = json_array();

	for (size_t i = 0; i < nb; i++) {
		const np_devport_t *p = NULL;
		for (size_t k = 0; k < na && !p; k++)
			if (strcmp(a[k].adapter, b[i].adapter) == 0 && a[k].port == b[i].port)
				p = &a[k];
		json_array_append_new(arr, json_pack("{s:o, s:i, s:s, s:f, s:I, s:I, s:I, s:I}", "adapter",
		                      jstr0(b[i].adapter), "port", (int)b[i].port, "state", b[i].state, "seconds", secs,
		                      "xmit_bytes", (json_int_t)(p ? delta(p->xmit_bytes, b[i].xmit_bytes) : -1),
		                      "rcv_bytes", (json_int_t)(p ? delta(p->rcv_bytes, b[i].rcv_bytes) : -1),
		                      "xmit_pkts", (json_int_t)(p ? delta(p->xmit_pkts, b[i].xmit_pkts) : -1),
		                      "rcv_pkts", (json_int_t)(p ? delta(p->rcv_pkts, b[i].rcv_pkts) : -1)));
	}
	return arr;
}

json_t *np_audit_collect(const char *proc, const char *root, const char *plans, const char *jobid,
                         const char *self_step, double traffic_s, np_error_t *err)
{
	json_t *node, *procs = json_array(), *errors = json_array(), *numa, *prefixes, *ports, *recs, *list, *rec;
	const char *rk;
	np_devport_t *pa = NULL, *pb = NULL;
	size_t na = 0, nb = 0;
	double t0, left;
	unsigned lost = 0;
	DIR *d = np_kfile_opendir_at(AT_FDCWD, proc);
	struct dirent *de;
	char host[256] = "?";
	const char *nn = getenv("SLURMD_NODENAME");

	if (!d) {
		json_decref(procs);
		json_decref(errors);
		np_error_set(err, -errno, "cannot read %s: %s", proc, strerror(errno));
		return NULL;
	}
	if (!(numa = numa_of(err))) {
		closedir(d);
		json_decref(procs);
		json_decref(errors);
		return NULL;
	}
	if (nn && *nn)
		snprintf(host, sizeof(host), "%s", nn);
	else
		gethostname(host, sizeof(host) - 1);
	t0 = np_clock_s();
	if (np_devport_scan(root, &pa, &na, err) < 0) {
		closedir(d);
		json_decref(procs);
		json_decref(errors);
		json_decref(numa);
		return NULL;
	}
	recs = np_audit_records(plans, jobid, host, errors);
	if (!recs) {
		closedir(d);
		json_decref(procs);
		json_decref(errors);
		json_decref(numa);
		free(pa);
		np_error_set(err, -ENOMEM, "out of memory");
		return NULL;
	}
	prefixes = job_prefixes(proc, jobid);
	if (!json_object_size(prefixes))
		json_array_append_new(errors, json_sprintf("this step is in no cgroup of job %s: the job's processes "
		                                           "cannot be told apart (cgroups not in use?)", jobid));
	while ((de = readdir(d))) {
		char *cg, step[32];
		json_t *p;
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		cg = read_proc(proc, de->d_name, "cgroup", NULL);
		/* every step but ours (which is us); batch, extern and
		 * interactive are listed, with no plan to judge them by */
		if (cg && step_of(cg, jobid, prefixes, step, sizeof(step)) &&
		    !(self_step && strcmp(step, self_step) == 0) &&
		    (p = process(proc, root, de->d_name, step, recs, errors, &lost)))
			json_array_append_new(procs, p);
		free(cg);
	}
	closedir(d);
	json_decref(prefixes);
	/* the adapters' traffic over traffic_s seconds, the scan included */
	if (traffic_s > 0 && (left = traffic_s - (np_clock_s() - t0)) > 0) {
		struct timespec ts = { (time_t)left, (long)((left - (double)(time_t)left) * 1e9) };
		while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
	}
	list = json_array();
	json_object_foreach(recs, rk, rec)
		json_array_append(list, rec);
	json_decref(recs);
	if (np_devport_scan(root, &pb, &nb, err) < 0) {
		free(pa);
		json_decref(list);
		json_decref(procs);
		json_decref(errors);
		json_decref(numa);
		return NULL;
	}
	ports = ports_of(pa, na, pb, nb, np_clock_s() - t0);
	free(pa);
	free(pb);
	node = json_pack("{s:o, s:o, s:o, s:o, s:o, s:i, s:o}", "node", jstr0(host), "numa", numa, "processes", procs,
	                 "records", list, "errors", errors, "unreported", (int)lost, "ports", ports);
	if (!node)
		np_error_set(err, -ENOMEM, "out of memory");
	return node;
}

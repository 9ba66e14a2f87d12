/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * parse_text.c - reading what sinfo, sbatch --parsable and scontrol's
 * one-line form print, in the forms Slurm 22.05 and 24.11 share (see
 * tests/unit/data/slurm/README for which outputs the tests hold).
 *
 * scontrol's lines are "Key=value" fields separated by spaces.  Values
 * Slurm writes have no spaces, except names a user chose (JobName,
 * a step's Name), which are read up to the field Slurm always prints
 * after them.  Nothing marks where such a name ends: a job named
 * "x UserId=root(0) JobState=COMPLETED" spells fields of its own before
 * Slurm's.  Slurm prints each field once, so a record in which a field
 * read here appears twice is refused (-EBADMSG), never read either way;
 * where scontrol has --json, that is read instead (parse_json.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "slurmcmd/slurmcmd.h"
#include "common/text.h"

/* ---- nodes ------------------------------------------------------------------- */

/* sinfo's short states that can take a job now.  Flags after the state
 * that rule a node out: not responding (*), powered down or powering
 * up or down (~ # % !), maintenance ($), reboot asked or issued (@ ^).
 * Planned (-) and completing (+) nodes still take jobs. */
static bool usable(const char *state, const char *flags)
{
	static const char *const ok[] = { "idle", "mix", "alloc", "comp", "plnd" };

	if (strpbrk(flags, "*~#%!$@^"))
		return false;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (strcmp(state, ok[i]) == 0)
			return true;
	return false;
}

int np_slurm_parse_nodes(const char *text, const char *partition, np_slurm_node_t **nodes, unsigned *n,
                         np_error_t *err)
{
	const char *p = text ? text : "";
	unsigned lineno = 0;

	*nodes = NULL;
	*n = 0;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char line[512], name[128], state[64], part[160];
		np_slurm_node_t *v, *x;
		size_t sl, pl;

		lineno++;
		snprintf(line, sizeof(line), "%.*s", (int)(len < sizeof(line) ? len : sizeof(line) - 1), p);
		p += len + (nl ? 1 : 0);
		if (strspn(line, " \t") == strlen(line))
			continue;
		if (sscanf(line, "%127s %63s %159s", name, state, part) != 3) {
			free(*nodes);
			*nodes = NULL;
			*n = 0;
			return np_error_set(err, -EINVAL, "sinfo line %u is not 'NODE STATE PARTITION': %s", lineno, line);
		}
		if (!(v = realloc(*nodes, (*n + 1) * sizeof(*v)))) {
			free(*nodes);
			*nodes = NULL;
			*n = 0;
			return np_error_set(err, -ENOMEM, "out of memory");
		}
		*nodes = v;
		x = &v[*n];
		memset(x, 0, sizeof(*x));
		np_strcut(x->name, sizeof(x->name), name);
		sl = strcspn(state, "*~#%!$@^-+");
		np_strcut(x->flags, sizeof(x->flags), state + sl);
		state[sl] = '\0';
		np_strcut(x->state, sizeof(x->state), state);
		pl = strlen(part);
		x->default_partition = pl > 1 && part[pl - 1] == '*';
		if (x->default_partition)
			part[pl - 1] = '\0';
		np_strcut(x->partition, sizeof(x->partition), part);
		x->usable = usable(x->state, x->flags);
		if (partition ? strcmp(x->partition, partition) == 0 : x->default_partition)
			(*n)++;
	}
	return 0;
}

/* States (sinfo's short form) of a node Slurm took away from jobs: it
 * was drained (or is draining), went down, is failing or in maintenance;
 * or, whatever its state, it does not respond. */
static bool lost(const char *state, const char *flags)
{
	static const char *const gone[] = { "drain", "drng", "down", "fail", "failg", "maint" };

	if (strchr(flags, '*'))
		return true;
	for (size_t i = 0; i < sizeof(gone) / sizeof(gone[0]); i++)
		if (strcmp(state, gone[i]) == 0)
			return true;
	return false;
}

int np_slurm_parse_lost_nodes(const char *text, np_slurm_lost_node_t **nodes, unsigned *n, np_error_t *err)
{
	const char *p = text ? text : "";
	unsigned lineno = 0, i;

	*nodes = NULL;
	*n = 0;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char line[512], name[128], state[64], flags[64];
		np_slurm_lost_node_t *v, *x;
		size_t sl, rl;
		int off = 0;
		bool dup = false;

		lineno++;
		snprintf(line, sizeof(line), "%.*s", (int)(len < sizeof(line) ? len : sizeof(line) - 1), p);
		p += len + (nl ? 1 : 0);
		if (strspn(line, " \t") == strlen(line))
			continue;
		if (sscanf(line, "%127s %63s %n", name, state, &off) < 2) {
			free(*nodes);
			*nodes = NULL;
			*n = 0;
			return np_error_set(err, -EINVAL, "sinfo line %u is not 'NODE STATE REASON': %s", lineno, line);
		}
		sl = strcspn(state, "*~#%!$@^-+");
		np_strcut(flags, sizeof(flags), state + sl);
		state[sl] = '\0';
		for (i = 0; i < *n; i++)
			dup = dup || strcmp((*nodes)[i].name, name) == 0;
		if (dup || !lost(state, flags))
			continue;
		if (!(v = realloc(*nodes, (*n + 1) * sizeof(*v)))) {
			free(*nodes);
			*nodes = NULL;
			*n = 0;
			return np_error_set(err, -ENOMEM, "out of memory");
		}
		*nodes = v;
		x = &v[(*n)++];
		memset(x, 0, sizeof(*x));
		np_strcut(x->name, sizeof(x->name), name);
		np_strcut(x->state, sizeof(x->state), state);
		np_strcut(x->flags, sizeof(x->flags), flags);
		/* the reason: the rest of the line, trailing blanks cut; sinfo
		 * prints "none" for a node without one */
		rl = strlen(line + off);
		while (rl && (line[off + rl - 1] == ' ' || line[off + rl - 1] == '\r'))
			rl--;
		line[off + rl] = '\0';
		if (strcmp(line + off, "none") != 0)
			np_strcut(x->reason, sizeof(x->reason), line + off);
	}
	return 0;
}

/* ---- sbatch ------------------------------------------------------------------ */

int np_slurm_parse_jobid(const char *out, char *id, size_t idlen)
{
	const char *p = out ? out : "";

	/* the job id is the line sbatch --parsable writes last; anything
	 * before it came from a plugin or a wrapper */
	const char *found = NULL;
	size_t flen = 0;
	while (*p) {
		size_t len = strcspn(p, "\n"), d = strspn(p, "0123456789");
		size_t end = len;
		while (end > 0 && (p[end - 1] == '\r' || p[end - 1] == ' '))
			end--;
		/* "123" or "123;cluster" */
		if (d > 0 && d <= 12 && (d == end || p[d] == ';')) {
			found = p;
			flen = d;
		}
		p += len + (p[len] ? 1 : 0);
	}
	if (!found || flen >= idlen)
		return -EINVAL;
	memcpy(id, found, flen);
	id[flen] = '\0';
	return 0;
}

int np_slurm_parse_job_of_script(const char *text, const char *script, char *id, size_t idlen)
{
	const char *p = text ? text : "";
	size_t sl = strlen(script);
	int found = 0;

	while (*p) {
		size_t len = strcspn(p, "\n"), d = strspn(p, "0123456789");
		if (d > 0 && d < idlen && p[d] == '|' && len == d + 1 + sl && strncmp(p + d + 1, script, sl) == 0) {
			/* the tasks of one array share its id */
			if (found && (strlen(id) != d || strncmp(id, p, d) != 0))
				return -EEXIST;
			memcpy(id, p, d);
			id[d] = '\0';
			found = 1;
		}
		p += len + (p[len] ? 1 : 0);
	}
	return found ? 0 : -ENOENT;
}

/* ---- squeue ------------------------------------------------------------------ */

int np_slurm_parse_running(const char *text, np_slurm_running_t **jobs, unsigned *n, np_error_t *err)
{
	const char *p = text ? text : "";
	np_slurm_running_t *v = NULL;

	*jobs = NULL;
	*n = 0;
	while (*p) {
		size_t len = strcspn(p, "\n");
		char line[512];
		np_slurm_running_t j, *more;

		snprintf(line, sizeof(line), "%.*s", (int)(len < sizeof(line) ? len : sizeof(line) - 1), p);
		p += len + (p[len] ? 1 : 0);
		memset(&j, 0, sizeof(j));
		/* %A is a plain number: the audit names scratch files by it */
		if (sscanf(line, "%31s %63s %63s %15s", j.id, j.user, j.partition, j.nodes) != 4 ||
		    strspn(j.id, "0123456789") != strlen(j.id))
			continue;
		if (!(more = realloc(v, (*n + 1) * sizeof(*v)))) {
			free(v);
			*n = 0;
			return np_error_set(err, -ENOMEM, "out of memory");
		}
		v = more;
		v[(*n)++] = j;
	}
	*jobs = v;
	return 0;
}

/* ---- scontrol's one-line records --------------------------------------------- */

/* Whether the field "key=" starts at p of a one-line record: at the
 * line's start or after a space (the caller keeps p + kl inside it). */
static bool at_key(const char *line, const char *p, const char *key, size_t kl)
{
	return (p == line || p[-1] == ' ') && strncmp(p, key, kl) == 0 && p[kl] == '=';
}

/* The value of "key=" in a one-line record (at its start or after a
 * space), up to the next space, or up to " until=" when until is given;
 * "" when absent. */
static void field(const char *line, size_t len, const char *key, const char *until, char *buf, size_t n)
{
	size_t kl = strlen(key);
	const char *p = line, *end = line + len;

	buf[0] = '\0';
	for (; p + kl < end; p++) {
		const char *v, *e = NULL;
		if (!at_key(line, p, key, kl))
			continue;
		v = p + kl + 1;
		if (until) {
			size_t ul = strlen(until);
			for (const char *q = v; q + ul + 2 <= end && !e; q++)
				if (q[0] == ' ' && strncmp(q + 1, until, ul) == 0 && q[ul + 1] == '=')
					e = q;
		}
		if (!e)
			for (e = v; e < end && *e != ' '; e++)
				;
		snprintf(buf, n, "%.*s", (int)(e - v), v);
		return;
	}
}

/* How many times "key=" starts a field (at the line's start or after a
 * space) in a one-line record. */
static unsigned occurrences(const char *line, size_t len, const char *key)
{
	size_t kl = strlen(key);
	unsigned k = 0;

	for (const char *p = line; p + kl < line + len; p++)
		if (at_key(line, p, key, kl))
			k++;
	return k;
}

/* -EBADMSG with err when one of keys (NULL-ended) is in the record more
 * than once: a value a user chose spells it, and which is Slurm's cannot
 * be told from the text. */
static int once_each(const char *line, size_t len, const char *const *keys, const char *what, np_error_t *err)
{
	for (; *keys; keys++)
		if (occurrences(line, len, *keys) > 1)
			return np_error_set(err, -EBADMSG,
			                    "scontrol's record of %s has the field %s more than once (a name that "
			                    "spells Slurm's fields?): it cannot be read from text",
			                    what, *keys);
	return 0;
}

/* Split text into lines and call one(line, len, slot) for each that is
 * not empty, growing *v by size bytes a record. */
static int records(const char *text, size_t size, void **v, unsigned *n,
                   int (*one)(const char *, size_t, void *, np_error_t *), np_error_t *err)
{
	const char *p = text ? text : "";

	*v = NULL;
	*n = 0;
	while (*p) {
		size_t len = strcspn(p, "\n");
		void *g;
		int rc;
		if (strspn(p, " \t\r") < len) {
			if (!(g = realloc(*v, (*n + 1) * size))) {
				free(*v);
				*v = NULL;
				*n = 0;
				return np_error_set(err, -ENOMEM, "out of memory");
			}
			*v = g;
			memset((char *)g + *n * size, 0, size);
			if ((rc = one(p, len, (char *)g + *n * size, err)) < 0) {
				free(*v);
				*v = NULL;
				*n = 0;
				return rc;
			}
			(*n)++;
		}
		p += len + (p[len] ? 1 : 0);
	}
	return 0;
}

static int one_job(const char *line, size_t len, void *slot, np_error_t *err)
{
	static const char *const read[] = { "JobId", "JobState", "ArrayJobId", "ArrayTaskId", "Reason", "ExitCode",
		                            "RunTime", "UserId", "NumNodes", "NodeList", NULL };
	np_slurm_job_t *j = slot;
	char user[128], nodes[32], what[48];
	int rc;

	field(line, len, "JobId", NULL, j->id, sizeof(j->id));
	field(line, len, "JobState", NULL, j->state, sizeof(j->state));
	if (!j->id[0] || !j->state[0])
		return np_error_set(err, -EINVAL, "scontrol printed a job without JobId or JobState: %.*s",
		                    (int)(len > 200 ? 200 : len), line);
	snprintf(what, sizeof(what), "job %s", j->id);
	if ((rc = once_each(line, len, read, what, err)) < 0)
		return rc;
	field(line, len, "ArrayJobId", NULL, j->array_id, sizeof(j->array_id));
	field(line, len, "ArrayTaskId", NULL, j->array_tasks, sizeof(j->array_tasks));
	field(line, len, "Reason", NULL, j->reason, sizeof(j->reason));
	field(line, len, "ExitCode", NULL, j->exit_code, sizeof(j->exit_code));
	field(line, len, "RunTime", NULL, j->run_time, sizeof(j->run_time));
	field(line, len, "UserId", NULL, user, sizeof(user));
	user[strcspn(user, "(")] = '\0';
	np_strcut(j->user, sizeof(j->user), user);
	field(line, len, "NumNodes", NULL, nodes, sizeof(nodes));
	j->nodes = (unsigned)strtoul(nodes, NULL, 10);
	field(line, len, "NodeList", NULL, j->nodelist, sizeof(j->nodelist));
	/* a list cut to fit would name other nodes: none, said by its end */
	if (strlen(j->nodelist) == sizeof(j->nodelist) - 1)
		snprintf(j->nodelist, sizeof(j->nodelist), "[cut]");
	return 0;
}

int np_slurm_hostnames(const char *list, char ***names, unsigned *n, np_error_t *err)
{
	return np_hostlist_expand(list, names, n, err);
}

int np_slurm_parse_jobs(const char *text, np_slurm_job_t **jobs, unsigned *n, np_error_t *err)
{
	return records(text, sizeof(**jobs), (void **)jobs, n, one_job, err);
}

static int one_step(const char *line, size_t len, void *slot, np_error_t *err)
{
	static const char *const read[] = { "StepId", "State", "NodeList", "Name", "Network", "Tasks", NULL };
	np_slurm_step_t *s = slot;
	char tasks[32], what[64];
	int rc;

	field(line, len, "StepId", NULL, s->id, sizeof(s->id));
	field(line, len, "State", NULL, s->state, sizeof(s->state));
	if (!s->id[0] || !s->state[0])
		return np_error_set(err, -EINVAL, "scontrol printed a step without StepId or State: %.*s",
		                    (int)(len > 200 ? 200 : len), line);
	snprintf(what, sizeof(what), "step %s", s->id);
	if ((rc = once_each(line, len, read, what, err)) < 0)
		return rc;
	field(line, len, "NodeList", NULL, s->nodes, sizeof(s->nodes));
	field(line, len, "Name", "Network", s->name, sizeof(s->name));
	field(line, len, "Tasks", NULL, tasks, sizeof(tasks));
	s->tasks = (unsigned)strtoul(tasks, NULL, 10);
	return 0;
}

int np_slurm_parse_steps(const char *text, np_slurm_step_t **steps, unsigned *n, np_error_t *err)
{
	return records(text, sizeof(**steps), (void **)steps, n, one_step, err);
}

bool np_slurm_state_ended(const char *s)
{
	static const char *const t[] = { "COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL",
	                                 "OUT_OF_MEMORY", "PREEMPTED", "BOOT_FAIL", "DEADLINE", "REVOKED",
	                                 "SPECIAL_EXIT" };

	for (size_t i = 0; s && i < sizeof(t) / sizeof(t[0]); i++)
		if (strncmp(s, t[i], strlen(t[i])) == 0)
			return true;
	return false;
}

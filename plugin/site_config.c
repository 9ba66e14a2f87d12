/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * site_config.c - parse and describe the plugstack.conf arguments.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/plugstack.h"
#include "common/text.h"
#include "site_config.h"
#include "step_record.h"

#define SITE_ARGS "default[[PART,...]]=POLICY, allow[[PART,...]]=POLICY[,POLICY...], " \
	"enforce[[PART,...]][=yes|no], " \
	"topology=/ABSOLUTE/PATH (%n = node name), cache=/ABSOLUTE/DIR|none, " \
	"on_error=warn|fail, verbose, respect_cpu_bind=yes|no, respect_gpu_bind=yes|no, " \
	"sysfs=/ABSOLUTE/DIR, plans=/ABSOLUTE/DIR|none, record=/ABSOLUTE/DIR|none, " \
	"record_max=SIZE[K|M|G]"

void nps_site_init(nps_site_t *s)
{
	memset(s, 0, sizeof(*s));
	s->default_policy = NP_POLICY_NONE;
	s->global.default_policy = NP_POLICY_NONE;
	s->on_error = NPS_ON_ERROR_WARN;
	s->respect_cpu_bind = true;
	s->respect_gpu_bind = true;
	s->record_max = NPS_RECORD_MAX_DEFAULT;
}

void nps_site_free(nps_site_t *s)
{
	if (!s)
		return;
	for (unsigned i = 0; i < s->nparts; i++)
		free(s->parts[i].name);
	free(s->parts);
	free(s->topology);
	free(s->cache);
	free(s->plans);
	free(s->record);
	free(s->sysfs);
	nps_site_init(s);
}

static int parse_yes_no(const char *v, bool *out)
{
	if (!strcmp(v, "yes") || !strcmp(v, "1") || !strcmp(v, "true"))
		*out = true;
	else if (!strcmp(v, "no") || !strcmp(v, "0") || !strcmp(v, "false"))
		*out = false;
	else
		return -EINVAL;
	return 0;
}

static int parse_allow(nps_part_rule_t *s, const char *list, np_error_t *err)
{
	char *copy = strdup(list), *save = NULL, *tok;

	if (!copy)
		return np_error_set(err, -ENOMEM, "out of memory");
	if (!*copy) {
		free(copy);
		return np_error_set(err, -EINVAL,
			"plugstack.conf: allow= needs at least one policy (valid: %s)",
			np_policy_list());
	}
	s->allow_set = true;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		np_policy_t p;

		if (np_policy_parse(tok, &p) < 0) {
			np_error_set(err, -EINVAL,
				"plugstack.conf: allow=%s: unknown policy '%s' (valid: %s)",
				list, tok, np_policy_list());
			free(copy);
			return -EINVAL;
		}
		s->allowed[p] = true;
	}
	free(copy);
	return 0;
}

static int parse_default(nps_part_rule_t *r, const char *arg, const char *v, np_error_t *err)
{
	if (np_policy_parse(v, &r->default_policy) < 0)
		return np_error_set(err, -EINVAL,
			"plugstack.conf: %s: unknown policy '%s' (valid: %s)",
			arg, v, np_policy_list());
	r->has_default = true;
	return 0;
}

bool nps_partition_name_ok(const char *name)
{
	size_t n = name ? strlen(name) : 0;

	if (n == 0 || n > NPS_PARTITION_MAX)
		return false;
	for (const char *p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '_' || *p == '.' || *p == '-'))
			return false;
	return true;
}

/* The rule of a partition, made when it is first named */
static nps_part_rule_t *rule_of(nps_site_t *s, const char *name, np_error_t *err)
{
	nps_part_rule_t *more;

	for (unsigned i = 0; i < s->nparts; i++)
		if (!strcmp(s->parts[i].name, name))
			return &s->parts[i];
	if (!(more = realloc(s->parts, (s->nparts + 1) * sizeof(*more)))) {
		np_error_set(err, -ENOMEM, "out of memory");
		return NULL;
	}
	s->parts = more;
	memset(&more[s->nparts], 0, sizeof(*more));
	more[s->nparts].default_policy = NP_POLICY_NONE;
	if (!(more[s->nparts].name = strdup(name))) {
		np_error_set(err, -ENOMEM, "out of memory");
		return NULL;
	}
	return &s->parts[s->nparts++];
}

#define PART_FORMS "default[PART,...]=POLICY, allow[PART,...]=POLICY[,POLICY...], " \
	"enforce[PART,...] or enforce[PART,...]=yes|no"

/*
 * default[P,...]=POLICY, allow[P,...]=LIST, enforce[P,...][=yes|no]: one
 * rule per partition named.  A partition given the same key twice (in one
 * list or in two arguments) is refused: which of the two would win is not
 * something an admin should have to look up.
 */
static int parse_partition_form(nps_site_t *s, const char *arg, np_error_t *err)
{
	const char *open = strchr(arg, '['), *close = open ? strchr(open, ']') : NULL;
	const char *v = close && close[1] == '=' ? close + 2 : NULL;
	char key[16], *list = NULL, *save = NULL, *tok;
	size_t klen = open ? (size_t)(open - arg) : 0;
	int rc = 0;

	if (!open || !close || klen == 0 || klen >= sizeof(key) || strchr(open + 1, '[') ||
	    strchr(close + 1, ']') || (close[1] && close[1] != '='))
		return np_error_set(err, -EINVAL,
			"plugstack.conf: '%s': malformed per-partition argument (valid forms: %s)",
			arg, PART_FORMS);
	memcpy(key, arg, klen);
	key[klen] = '\0';
	if (strcmp(key, "default") && strcmp(key, "allow") && strcmp(key, "enforce"))
		return np_error_set(err, -EINVAL,
			"plugstack.conf: '%s': only default, allow and enforce have per-partition "
			"forms (valid forms: %s)", arg, PART_FORMS);
	if (strcmp(key, "enforce") && !v)
		return np_error_set(err, -EINVAL,
			"plugstack.conf: '%s': %s[...] needs a value (valid forms: %s)",
			arg, key, PART_FORMS);
	if (v && !*v)
		return np_error_set(err, -EINVAL, "plugstack.conf: '%s': empty value (valid forms: %s)",
				    arg, PART_FORMS);
	if (close == open + 1)
		return np_error_set(err, -EINVAL,
			"plugstack.conf: '%s': no partition between [ and ] (valid forms: %s)",
			arg, PART_FORMS);
	if (!(list = strndup(open + 1, (size_t)(close - open - 1))))
		return np_error_set(err, -ENOMEM, "out of memory");
	if (list[0] == ',' || list[strlen(list) - 1] == ',' || strstr(list, ",,")) {
		rc = np_error_set(err, -EINVAL,
			"plugstack.conf: '%s': an empty partition name in the list", arg);
		goto out;
	}
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		nps_part_rule_t *r;
		bool yes = true;

		if (!nps_partition_name_ok(tok)) {
			rc = np_error_set(err, -EINVAL,
				"plugstack.conf: '%s': '%s' is not a partition name (letters, digits, "
				"'_', '.', '-'; at most %d characters)", arg, tok, NPS_PARTITION_MAX);
			goto out;
		}
		if (!(r = rule_of(s, tok, err))) {
			rc = -ENOMEM;
			goto out;
		}
		if ((!strcmp(key, "default") && r->has_default) ||
		    (!strcmp(key, "allow") && r->allow_set) ||
		    (!strcmp(key, "enforce") && r->has_enforce)) {
			rc = np_error_set(err, -EINVAL,
				"plugstack.conf: '%s': the partition '%s' is given %s twice; "
				"give each partition each key once", arg, tok, key);
			goto out;
		}
		if (!strcmp(key, "default")) {
			rc = parse_default(r, arg, v, err);
		} else if (!strcmp(key, "allow")) {
			rc = parse_allow(r, v, err);
		} else {
			if (v && parse_yes_no(v, &yes) < 0) {
				rc = np_error_set(err, -EINVAL,
					"plugstack.conf: '%s': valid values for enforce[...] are yes, no "
					"(or none: enforce[PART])", arg);
				goto out;
			}
			r->has_enforce = true;
			r->enforce = yes;
		}
		if (rc < 0)
			goto out;
	}
out:
	free(list);
	return rc;
}

/* KEY=DIR|none for a directory root creates and trusts: an absolute path
 * with no way out of it */
static int dir_arg(const char *key, const char *v, char **dir, bool *off, np_error_t *err)
{
	free(*dir);
	*dir = NULL;
	*off = !strcmp(v, "none");
	if (*off)
		return 0;
	if (v[0] != '/' || strstr(v, "/../") || !strcmp(v, "/") ||
	    (strlen(v) >= 3 && !strcmp(v + strlen(v) - 3, "/..")))
		return np_error_set(err, -EINVAL,
			"plugstack.conf: %s=%s: must be an absolute directory path or 'none'", key, v);
	if (!(*dir = strdup(v)))
		return np_error_set(err, -ENOMEM, "out of memory");
	return 0;
}

/* record_max=SIZE: bytes, or K, M, G (powers of 1024); at least 4K, so
 * that one record always fits */
static int parse_size(const char *v, size_t *out, np_error_t *err)
{
	unsigned long long n, mul = 1;
	char *end;

	errno = 0;
	n = strtoull(v, &end, 10);
	if (end != v && *end && !end[1])
		mul = *end == 'K' || *end == 'k' ? 1ull << 10 : *end == 'M' || *end == 'm' ? 1ull << 20 :
		      *end == 'G' || *end == 'g' ? 1ull << 30 : 0;
	else if (*end)
		mul = 0;
	if (end == v || !isdigit((unsigned char)v[0]) || errno || !mul || n > (SIZE_MAX >> 30) ||
	    n * mul < 4096)
		return np_error_set(err, -EINVAL, "plugstack.conf: record_max=%s: a size of at "
				    "least 4K (bytes, or with K, M, G)", v);
	*out = (size_t)(n * mul);
	return 0;
}

static int parse_one(nps_site_t *s, const char *arg, np_error_t *err)
{
	const char *eq = strchr(arg, '=');
	size_t klen = eq ? (size_t)(eq - arg) : strlen(arg);
	const char *v = eq ? eq + 1 : NULL;

#define KEY(k) (klen == strlen(k) && !strncmp(arg, k, klen))
	if (KEY("enforce") && !v) {
		s->global.has_enforce = s->global.enforce = true;
	} else if (KEY("verbose") && !v) {
		s->verbose = true;
	} else if (KEY("default") && v) {
		return parse_default(&s->global, arg, v, err);
	} else if (KEY("allow") && v) {
		return parse_allow(&s->global, v, err);
	} else if (memchr(arg, '[', klen) || memchr(arg, ']', klen)) {
		return parse_partition_form(s, arg, err);
	} else if (KEY("topology") && v) {
		/* Only an admin's absolute path: never resolved against the
		 * daemon's working directory. */
		if (v[0] != '/')
			return np_error_set(err, -EINVAL,
				"plugstack.conf: topology=%s: must be an absolute path", v);
		free(s->topology);
		if (!(s->topology = strdup(v)))
			return np_error_set(err, -ENOMEM, "out of memory");
	} else if (KEY("cache") && v) {
		return dir_arg("cache", v, &s->cache, &s->cache_off, err);
	} else if (KEY("plans") && v) {
		return dir_arg("plans", v, &s->plans, &s->plans_off, err);
	} else if (KEY("record") && v) {
		return dir_arg("record", !strcmp(v, "off") ? "none" : v, &s->record, &s->record_off, err);
	} else if (KEY("record_max") && v) {
		return parse_size(v, &s->record_max, err);
	} else if (KEY("sysfs") && v) {
		/* where adapter states are read (tests with emulated adapters);
		 * its ownership is checked where it is used, in slurmstepd */
		if (v[0] != '/' || strstr(v, "/../") || strstr(v, "/./") ||
		    (strlen(v) >= 3 && !strcmp(v + strlen(v) - 3, "/..")))
			return np_error_set(err, -EINVAL,
				"plugstack.conf: sysfs=%s: must be an absolute directory path", v);
		free(s->sysfs);
		if (!(s->sysfs = strdup(v)))
			return np_error_set(err, -ENOMEM, "out of memory");
	} else if (KEY("on_error") && v) {
		if (!strcmp(v, "warn"))
			s->on_error = NPS_ON_ERROR_WARN;
		else if (!strcmp(v, "fail"))
			s->on_error = NPS_ON_ERROR_FAIL;
		else
			return np_error_set(err, -EINVAL,
				"plugstack.conf: on_error=%s: valid values are warn, fail", v);
	} else if (KEY("respect_cpu_bind") && v) {
		if (parse_yes_no(v, &s->respect_cpu_bind) < 0)
			return np_error_set(err, -EINVAL,
				"plugstack.conf: respect_cpu_bind=%s: valid values are yes, no", v);
	} else if (KEY("respect_gpu_bind") && v) {
		if (parse_yes_no(v, &s->respect_gpu_bind) < 0)
			return np_error_set(err, -EINVAL,
				"plugstack.conf: respect_gpu_bind=%s: valid values are yes, no", v);
	} else {
		return np_error_set(err, -EINVAL,
			"plugstack.conf: unknown argument '%s' (valid: %s)", arg, SITE_ARGS);
	}
#undef KEY
	return 0;
}

/* The earlier argument with the same key (the text before '='), or NULL */
static const char *same_key(int i, char *const argv[])
{
	size_t k = strcspn(argv[i], "=");

	for (int j = 0; j < i; j++)
		if (argv[j] && strcspn(argv[j], "=") == k && !strncmp(argv[j], argv[i], k))
			return argv[j];
	return NULL;
}

/* The effective keys: the site-wide ones, then the partition's own */
static void apply_rules(nps_site_t *s, const nps_part_rule_t *r)
{
	s->has_default = s->global.has_default;
	s->default_policy = s->global.default_policy;
	s->allow_set = s->global.allow_set;
	memcpy(s->allowed, s->global.allowed, sizeof(s->allowed));
	s->enforce = s->global.enforce;
	if (!r)
		return;
	if (r->has_default) {
		s->has_default = true;
		s->default_policy = r->default_policy;
	}
	if (r->allow_set) {
		s->allow_set = true;
		memcpy(s->allowed, r->allowed, sizeof(s->allowed));
	}
	if (r->has_enforce)
		s->enforce = r->enforce;
}

static const nps_part_rule_t *find_rule(const nps_site_t *s, const char *partition)
{
	for (unsigned i = 0; partition && i < s->nparts; i++)
		if (!strcmp(s->parts[i].name, partition))
			return &s->parts[i];
	return NULL;
}

int nps_site_select(nps_site_t *s, const char *partition)
{
	const nps_part_rule_t *r;

	s->partition[0] = '\0';
	s->partition_ruled = false;
	if (!partition || !*partition) {
		apply_rules(s, NULL);
		return 0;
	}
	if (!nps_partition_name_ok(partition)) {
		apply_rules(s, NULL);
		return -EINVAL;
	}
	snprintf(s->partition, sizeof(s->partition), "%s", partition);
	r = find_rule(s, partition);
	apply_rules(s, r);
	s->partition_ruled = r != NULL;
	return r != NULL;
}

/* The checks every set of effective keys must pass: the site-wide set
 * (every partition not named) and each named partition's */
static int check_rules(nps_site_t *s, const char *partition, np_error_t *err)
{
	char where[NPS_PARTITION_MAX + 32] = "";

	(void)nps_site_select(s, partition);
	if (partition)
		snprintf(where, sizeof(where), " for the partition '%s'", partition);
	if (s->enforce && !s->has_default)
		return partition ?
			np_error_set(err, -EINVAL, "plugstack.conf: 'enforce'%s needs default=POLICY "
				     "or default[%s]=POLICY (the policy to enforce)", where, partition) :
			np_error_set(err, -EINVAL, "plugstack.conf: 'enforce' needs default=POLICY "
				     "(the policy to enforce)");
	if (s->has_default && s->allow_set && !s->enforce && !s->allowed[s->default_policy])
		return np_error_set(err, -EINVAL,
			"plugstack.conf: the default policy %s%s is not in its allow= list",
			np_policy_name(s->default_policy), where);
	return 0;
}

int nps_site_parse(nps_site_t *s, int argc, char *const argv[], np_error_t *err)
{
	const char *first;
	int rc;

	nps_site_init(s);
	for (int i = 0; i < argc; i++) {
		if (!argv[i])
			continue;
		if ((rc = parse_one(s, argv[i], err)) < 0)
			goto fail;
		/* "on_error=fail on_error=warn" must not quietly mean warn */
		if ((first = same_key(i, argv))) {
			rc = np_error_set(err, -EINVAL,
				"plugstack.conf: '%.*s' is given twice ('%s', then '%s'); "
				"give each argument once", (int)strcspn(argv[i], "="), argv[i],
				first, argv[i]);
			goto fail;
		}
	}
	if ((rc = check_rules(s, NULL, err)) < 0)
		goto fail;
	for (unsigned i = 0; i < s->nparts; i++)
		if ((rc = check_rules(s, s->parts[i].name, err)) < 0)
			goto fail;
	(void)nps_site_select(s, NULL);
	return 0;
fail:
	nps_site_free(s);
	return rc;
}

const char *nps_site_plans_dir(const nps_site_t *s)
{
	if (s->plans_off)
		return NULL;
	return s->plans ? s->plans : NPS_PLANS_DEFAULT;
}

const char *nps_site_record_dir(const nps_site_t *s)
{
	if (s->record_off)
		return NULL;
	return s->record ? s->record : NPS_RECORD_DEFAULT;
}

const char *nps_site_cache_dir(const nps_site_t *s)
{
	if (s->cache_off || s->topology)
		return NULL;
	return s->cache ? s->cache : NPS_CACHE_DEFAULT;
}

const char *nps_site_state_dir(const nps_site_t *s)
{
	if (s->cache_off)
		return NULL;
	return s->cache ? s->cache : NPS_CACHE_DEFAULT;
}

bool nps_site_allows(const nps_site_t *s, np_policy_t p)
{
	if ((unsigned)p >= NP_POLICY_COUNT)
		return false;
	if (s->enforce)
		return p == s->default_policy;
	return !s->allow_set || s->allowed[p];
}

char *nps_site_allowed_list(const nps_site_t *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	bool first = true;

	if (!f)
		return NULL;
	for (int p = 0; p < NP_POLICY_COUNT; p++) {
		if (!nps_site_allows(s, (np_policy_t)p))
			continue;
		fprintf(f, "%s%s", first ? "" : ", ", np_policy_name((np_policy_t)p));
		first = false;
	}
	return np_memstream_close(f, &buf);
}

int nps_site_topology_path(const nps_site_t *s, const char *node, char **out,
                           np_error_t *err)
{
	*out = NULL;
	if (!s->topology)
		return 0;
	/* shared with `numaplan topo --site` (common/plugstack.c), so that
	 * both land on the same file, and refuse the same node names */
	return np_plugstack_expand(s->topology, node, out, err);
}

int nps_site_sysfs_path(const nps_site_t *s, const char *node, char **out, np_error_t *err)
{
	*out = NULL;
	if (!s->sysfs)
		return 0;
	/* %n as in topology=, and as `numaplan check --site` expands it */
	return np_plugstack_expand_arg("sysfs", s->sysfs, node, out, err);
}

char *nps_site_describe(const nps_site_t *s)
{
	char *buf = NULL, *allowed = nps_site_allowed_list(s);
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f) {
		free(allowed);
		return NULL;
	}
	if (s->partition[0])
		fprintf(f, "  your partition     : %s (%s)\n", s->partition,
			s->partition_ruled ? "rules of its own, below" : "the site-wide rules");
	else if (s->nparts)
		fprintf(f, "  your partition     : not known yet (the site-wide rules below; "
			"inside an allocation, or with -p, they are the partition's)\n");
	fprintf(f, "  default policy     : %s\n",
		s->has_default ? np_policy_name(s->default_policy) : "none (no binding unless asked)");
	fprintf(f, "  enforced           : %s\n", s->enforce ? "yes (every step gets the default)" : "no");
	fprintf(f, "  policies you may ask for: %s\n", allowed ? allowed : "?");
	if (s->topology)
		fprintf(f, "  topology           : %s\n", s->topology);
	else if (nps_site_cache_dir(s))
		fprintf(f, "  topology           : live discovery, cached in %s\n", nps_site_cache_dir(s));
	else
		fprintf(f, "  topology           : live discovery (not cached)\n");
	fprintf(f, "  adapter states     : read at launch from %s\n", s->sysfs ? s->sysfs : "/sys");
	fprintf(f, "  plan records       : %s\n", nps_site_plans_dir(s) ? nps_site_plans_dir(s) :
	        "none (plans=none: numaplan audit judges tasks by their environment)");
	fprintf(f, "  step records       : %s\n", nps_site_record_dir(s) ? nps_site_record_dir(s) :
	        "none (record=none)");
	fprintf(f, "  on error           : %s\n",
		s->on_error == NPS_ON_ERROR_FAIL ? "fail the step" : "warn and run unbound");
	fprintf(f, "  verbose for all    : %s\n", s->verbose ? "yes" : "no");
	fprintf(f, "  explicit --cpu-bind: %s\n",
		s->enforce ? "ignored (policy enforced)" :
		s->respect_cpu_bind ? "wins over --numa-plan" : "ignored (respect_cpu_bind=no)");
	fprintf(f, "  explicit --gpu-bind: %s\n",
		s->enforce ? "ignored (policy enforced)" :
		s->respect_gpu_bind ? "wins over gpu-near" : "ignored (respect_gpu_bind=no)");
	for (unsigned i = 0; i < s->nparts; i++) {
		const nps_part_rule_t *r = &s->parts[i];

		fprintf(f, "%s %s:", i ? "\n   " : "  per-partition rules:\n   ", r->name);
		if (r->has_default)
			fprintf(f, " default %s;", np_policy_name(r->default_policy));
		if (r->allow_set) {
			fprintf(f, " allow");
			for (int p = 0, n = 0; p < NP_POLICY_COUNT; p++)
				if (r->allowed[p])
					fprintf(f, "%s%s", n++ ? "," : " ", np_policy_name((np_policy_t)p));
			fprintf(f, ";");
		}
		if (r->has_enforce)
			fprintf(f, " %s;", r->enforce ? "enforced" : "not enforced");
		if (i + 1 == s->nparts)
			fprintf(f, "\n");
	}
	free(allowed);
	return np_memstream_close(f, &buf);
}

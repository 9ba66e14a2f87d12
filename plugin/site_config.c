/*
 * site_config.c - parse and describe the plugstack.conf arguments.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "site_config.h"

#define SITE_ARGS "default=POLICY, allow=POLICY[,POLICY...], enforce, " \
	"topology=/ABSOLUTE/PATH (%n = node name), cache=/ABSOLUTE/DIR|none, " \
	"on_error=warn|fail, verbose, respect_cpu_bind=yes|no, sysfs=/ABSOLUTE/DIR"

void nps_site_init(nps_site_t *s)
{
	memset(s, 0, sizeof(*s));
	s->default_policy = NP_POLICY_NONE;
	s->on_error = NPS_ON_ERROR_WARN;
	s->respect_cpu_bind = true;
}

void nps_site_free(nps_site_t *s)
{
	if (!s)
		return;
	free(s->topology);
	free(s->cache);
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

static int parse_allow(nps_site_t *s, const char *list, np_error_t *err)
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

static int parse_one(nps_site_t *s, const char *arg, np_error_t *err)
{
	const char *eq = strchr(arg, '=');
	size_t klen = eq ? (size_t)(eq - arg) : strlen(arg);
	const char *v = eq ? eq + 1 : NULL;

#define KEY(k) (klen == strlen(k) && !strncmp(arg, k, klen))
	if (KEY("enforce") && !v) {
		s->enforce = true;
	} else if (KEY("verbose") && !v) {
		s->verbose = true;
	} else if (KEY("default") && v) {
		if (np_policy_parse(v, &s->default_policy) < 0)
			return np_error_set(err, -EINVAL,
				"plugstack.conf: default=%s: unknown policy (valid: %s)",
				v, np_policy_list());
		s->has_default = true;
	} else if (KEY("allow") && v) {
		return parse_allow(s, v, err);
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
		free(s->cache);
		s->cache = NULL;
		s->cache_off = !strcmp(v, "none");
		if (s->cache_off)
			return 0;
		/* root creates and trusts this directory: an absolute path
		 * with no way out of it */
		if (v[0] != '/' || strstr(v, "/../") || !strcmp(v, "/") ||
		    (strlen(v) >= 3 && !strcmp(v + strlen(v) - 3, "/..")))
			return np_error_set(err, -EINVAL,
				"plugstack.conf: cache=%s: must be an absolute directory path or 'none'", v);
		if (!(s->cache = strdup(v)))
			return np_error_set(err, -ENOMEM, "out of memory");
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
	if (s->enforce && !s->has_default) {
		rc = np_error_set(err, -EINVAL,
			"plugstack.conf: 'enforce' needs default=POLICY (the policy to enforce)");
		goto fail;
	}
	if (s->has_default && s->allow_set && !s->enforce && !s->allowed[s->default_policy]) {
		rc = np_error_set(err, -EINVAL,
			"plugstack.conf: default=%s is not in allow=",
			np_policy_name(s->default_policy));
		goto fail;
	}
	return 0;
fail:
	nps_site_free(s);
	return rc;
}

const char *nps_site_cache_dir(const nps_site_t *s)
{
	if (s->cache_off || s->topology)
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
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

int nps_site_topology_path(const nps_site_t *s, const char *node, char **out,
                           np_error_t *err)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	*out = NULL;
	if (!s->topology)
		return 0;
	/* A node name comes from slurmd's configuration, but a path must
	 * not be steerable out of the admin's directory all the same. */
	if (strstr(s->topology, "%n") &&
	    (!node || !*node || strchr(node, '/') || !strcmp(node, "..")))
		return np_error_set(err, -EINVAL,
			"topology=%s: no usable node name to expand %%n", s->topology);
	if (!(f = open_memstream(&buf, &len)))
		return np_error_set(err, -ENOMEM, "out of memory");
	for (const char *p = s->topology; *p; p++) {
		if (p[0] == '%' && p[1] == 'n') {
			fputs(node, f);
			p++;
		} else if (p[0] == '%' && p[1] == '%') {
			fputc('%', f);
			p++;
		} else {
			fputc(*p, f);
		}
	}
	if (fclose(f) != 0) {
		free(buf);
		return np_error_set(err, -ENOMEM, "out of memory");
	}
	*out = buf;
	return 0;
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
	fprintf(f, "  on error           : %s\n",
		s->on_error == NPS_ON_ERROR_FAIL ? "fail the step" : "warn and run unbound");
	fprintf(f, "  verbose for all    : %s\n", s->verbose ? "yes" : "no");
	fprintf(f, "  explicit --cpu-bind: %s\n",
		s->enforce ? "ignored (policy enforced)" :
		s->respect_cpu_bind ? "wins over --numa-plan" : "ignored (respect_cpu_bind=no)");
	free(allowed);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

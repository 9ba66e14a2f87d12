/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * plugstack.c - numaplan.so's line in plugstack.conf, and the topology=
 * template expanded for a node (plugstack.h): the plugin and `numaplan
 * topo --site` share it, so that they cannot drift apart on which file a
 * node's topology is.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/plugstack.h"
#include "common/text.h"

#define MAX_INCLUDE_DEPTH 4
#define MAX_WORDS 64

bool np_plugstack_node_ok(const char *node)
{
	return node && *node && !strchr(node, '/') && strcmp(node, "..") != 0;
}

int np_plugstack_expand(const char *pattern, const char *node, char **out, np_error_t *err)
{
	return np_plugstack_expand_arg("topology", pattern, node, out, err);
}

int np_plugstack_expand_arg(const char *key, const char *pattern, const char *node, char **out,
                            np_error_t *err)
{
	np_sb_t b;

	*out = NULL;
	if (strstr(pattern, "%n") && !np_plugstack_node_ok(node))
		return np_error_set(err, -EINVAL, "%s=%s: no usable node name to expand %%n", key, pattern);
	np_sb_init(&b);
	np_sb_add(&b, "");
	for (const char *p = pattern; *p; p++) {
		if (p[0] == '%' && p[1] == 'n') {
			np_sb_add(&b, node);
			p++;
		} else if (p[0] == '%' && p[1] == '%') {
			np_sb_add(&b, "%");
			p++;
		} else {
			np_sb_addn(&b, p, 1);
		}
	}
	if (!(*out = np_sb_take(&b)))
		return np_error_set(err, -ENOMEM, "out of memory");
	return 0;
}

char *np_plugstack_path(const char *conf)
{
	char *text = np_read_file(conf, NULL, NULL), *line, *save = NULL, *res = NULL;
	const char *slash;

	for (line = text ? strtok_r(text, "\n", &save) : NULL; line && !res; line = strtok_r(NULL, "\n", &save)) {
		char *w, *s2 = NULL;

		if (strchr(line, '#'))
			*strchr(line, '#') = '\0';
		for (w = strtok_r(line, " \t\r", &s2); w; w = strtok_r(NULL, " \t\r", &s2))
			if (strncasecmp(w, "PlugStackConfig=", 16) == 0 && w[16]) {
				res = strdup(w + 16);
				break;
			}
	}
	free(text);
	if (res)
		return res;
	slash = strrchr(conf, '/');
	return slash ? np_strdup_printf("%.*s/plugstack.conf", (int)(slash - conf), conf) : strdup("plugstack.conf");
}

void np_plugstack_args_free(char **args)
{
	for (unsigned i = 0; args && args[i]; i++)
		free(args[i]);
	free(args);
}

/* A copy of the n words w, NULL-ended, in *args; -ENOMEM. */
static int copy_words(char *const *w, unsigned n, char ***args)
{
	char **v = calloc(n + 1, sizeof(char *));

	for (unsigned i = 0; v && i < n; i++)
		if (!(v[i] = strdup(w[i]))) {
			np_plugstack_args_free(v);
			v = NULL;
		}
	*args = v;
	return v ? 0 : -ENOMEM;
}

static int scan(const char *path, int depth, const char *so, char ***args, unsigned *nargs, char **from)
{
	char *text = depth <= MAX_INCLUDE_DEPTH ? np_read_file(path, NULL, NULL) : NULL, *line, *save = NULL;
	int found = 0;

	for (line = text ? strtok_r(text, "\n", &save) : NULL; line && !found; line = strtok_r(NULL, "\n", &save)) {
		char *w[MAX_WORDS], *s2 = NULL, *tok;
		unsigned n = 0;
		const char *base;

		if (strchr(line, '#'))
			*strchr(line, '#') = '\0';
		for (tok = strtok_r(line, " \t\r", &s2); tok && n < MAX_WORDS; tok = strtok_r(NULL, " \t\r", &s2))
			w[n++] = tok;
		if (n >= 2 && strcmp(w[0], "include") == 0) {
			glob_t g;

			if (glob(w[1], 0, NULL, &g) == 0) {
				for (size_t k = 0; k < g.gl_pathc && !found; k++)
					found = scan(g.gl_pathv[k], depth + 1, so, args, nargs, from);
				globfree(&g);
			}
			continue;
		}
		if (n < 2 || (strcmp(w[0], "required") && strcmp(w[0], "optional")))
			continue;
		base = strrchr(w[1], '/');
		if (strcmp(base ? base + 1 : w[1], so) != 0)
			continue;
		found = copy_words(w + 2, n - 2, args) < 0 || !(*from = strdup(path)) ? -ENOMEM : 1;
		*nargs = n - 2;
	}
	free(text);
	return found;
}

int np_plugstack_args(const char *path, const char *so, char ***args, unsigned *nargs, char **from)
{
	int rc;

	*args = NULL;
	*nargs = 0;
	*from = NULL;
	if ((rc = scan(path, 0, so, args, nargs, from)) < 0) {
		np_plugstack_args_free(*args);
		free(*from);
		*args = NULL;
		*from = NULL;
		*nargs = 0;
	}
	return rc;
}

/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hca_list.c - the adapters a user names: "mlx5_0", "mlx5_0:2", "eth0",
 * several separated by commas (the plugin's hca= separates them with '+'
 * and turns those into commas).  NAME:PORT is the form NUMAPLAN_HCA
 * exports, so a value copied from it is taken back as it is.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_internal.h"

static int bad(np_error_t *err, const char *list, size_t n, const char *item, const char *why)
{
	return np_error_set(err, -EINVAL, "invalid HCA list '%s': '%.*s': %s", list, (int)n, item, why);
}

int np_hca_list_parse(const char *list, np_hca_want_t **out, unsigned *nout, np_error_t *err)
{
	np_hca_want_t *v;
	unsigned count = 1, n = 0;

	*out = NULL;
	*nout = 0;
	if (!list || !*list)
		return np_error_set(err, -EINVAL, "the HCA list is empty (expected NAME[:PORT][,NAME...])");
	for (const char *p = list; *p; p++)
		count += *p == ',';
	if (!(v = calloc(count, sizeof(*v))))
		return np_error_set(err, -ENOMEM, "out of memory");
	for (const char *p = list; p;) {
		const char *end = strchr(p, ','), *colon;
		size_t len = end ? (size_t)(end - p) : strlen(p), nlen;
		char why[128];
		int rc = 0;

		colon = memchr(p, ':', len);
		nlen = colon ? (size_t)(colon - p) : len;
		if (len == 0)
			rc = np_error_set(err, -EINVAL, "invalid HCA list '%s': an empty name", list);
		else if (nlen > NP_DEVNAME_MAX)
			rc = bad(err, list, len > 80 ? 80 : len, p, "the name is too long");
		if (rc == 0) {
			memcpy(v[n].name, p, nlen);
			v[n].name[nlen] = '\0';
			if (np_device_name_check(v[n].name, why, sizeof(why)) < 0)
				rc = bad(err, list, len, p, why);
		}
		if (rc == 0 && colon) {
			const char *q = colon + 1;
			size_t plen = len - nlen - 1;
			unsigned long port = 0;

			if (plen == 0 || plen > 3 || strspn(q, "0123456789") < plen)
				rc = bad(err, list, len, p, "the port must be a number from 1 to 255");
			for (size_t i = 0; rc == 0 && i < plen; i++)
				port = port * 10 + (unsigned long)(q[i] - '0');
			if (rc == 0 && (port < 1 || port > 255))
				rc = bad(err, list, len, p, "the port must be a number from 1 to 255");
			v[n].port = (unsigned)port;
		}
		for (unsigned k = 0; rc == 0 && k < n; k++)
			if (!strcmp(v[k].name, v[n].name))
				rc = bad(err, list, len, p, "this adapter is named twice (one port per adapter)");
		if (rc < 0) {
			free(v);
			return rc;
		}
		n++;
		p = end ? end + 1 : NULL;
	}
	*out = v;
	*nout = n;
	return 0;
}

int np_hca_list_check(const char *list, np_error_t *err)
{
	np_hca_want_t *v;
	unsigned n;
	int rc = np_hca_list_parse(list, &v, &n, err);

	free(v);
	return rc;
}

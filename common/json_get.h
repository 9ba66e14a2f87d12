/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * json_get.h - the members of a JSON object (jansson) that may be missing
 * or of another type, read without a check at every use: np_json_str
 * gives "" then, np_json_real NAN, np_json_num false (and a number only
 * when finite), np_json_streq false.
 *
 * Inline, so that only the files that include it need jansson: the
 * libraries below every front end (libnpcommon, in the plugin too) link
 * no JSON library.
 */
#ifndef NP_JSON_GET_H
#define NP_JSON_GET_H

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include <jansson.h>

static inline const char *np_json_str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

static inline double np_json_real(const json_t *o, const char *key)
{
	json_t *x = json_object_get(o, key);

	return json_is_number(x) ? json_number_value(x) : NAN;
}

static inline bool np_json_num(const json_t *o, const char *key, double *out)
{
	double v = np_json_real(o, key);

	if (!isfinite(v))
		return false;
	*out = v;
	return true;
}

static inline bool np_json_streq(const json_t *o, const char *key, const char *s)
{
	const char *v = json_string_value(json_object_get(o, key));

	return v && s && strcmp(v, s) == 0;
}

#endif /* NP_JSON_GET_H */

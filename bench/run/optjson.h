/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * optjson.h - option values as run.json records them: `run` writes the
 * options the results depend on (NP_OPTF_RECORD), `run --collect` reads
 * them back into the suites' option structs.
 */
#ifndef NP_OPTJSON_H
#define NP_OPTJSON_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#include "common/optparse.h"

/* The value as JSON, and back: false when the JSON value is not a valid
 * value of the option (the value is then left as it was). */
json_t *np_opt_to_json(const np_optdef_t *d, const void *base);
bool np_opt_from_json(const np_optdef_t *d, void *base, json_t *v);
/* run.json's key of an option: wrf-domain -> wrf_domain. */
void np_opt_key(const np_optdef_t *d, char *buf, size_t n);

#endif /* NP_OPTJSON_H */

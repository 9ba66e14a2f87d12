/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * numaplan/error.h - how libnumaplan reports failure.
 *
 * Every fallible call returns 0 or a negative errno-style code and, when an
 * np_error is given, fills it with a message for a human.  The library never
 * prints; only the outermost front end decides where a message goes.
 */
#ifndef NUMAPLAN_ERROR_H
#define NUMAPLAN_ERROR_H

#include <stddef.h>
#include <numaplan/api.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NP_ERRMSG_MAX 512

typedef struct np_error {
	int code;                       /* negative errno, 0 when no error */
	char msg[NP_ERRMSG_MAX];
} np_error_t;

/* Record code and a printf-style message; returns code so callers can
 * write `return np_error_set(err, -EINVAL, "...")`.  err may be NULL. */
NP_API int np_error_set(np_error_t *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

NP_API void np_error_clear(np_error_t *err);


#ifdef __cplusplus
}
#endif

#endif /* NUMAPLAN_ERROR_H */

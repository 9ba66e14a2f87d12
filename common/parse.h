/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * parse.h - strict number parsing, for command lines, plugstack.conf
 * arguments, environment variables and the files numaplan reads.
 *
 * strtoul() takes " -3" (as a huge number), "12abc" and "" without a
 * word, and its base 0 reads "010" as eight.  These take the whole string
 * and refuse those: a whole number is decimal digits only (no sign, blank
 * or base prefix), nothing may follow, and it must fit.
 *
 * Return 0, -EINVAL when the text is not such a number, -ERANGE when it
 * is one but outside [min, max].  *out is written only on success.
 */
#ifndef NP_COMMON_PARSE_H
#define NP_COMMON_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include <numaplan/error.h>

/* Decimal digits at *p (at least one), stopping at the first other
 * character, which *p is left on: for a number inside a larger text
 * ("0-3,8").  -ERANGE above max. */
int np_scan_u64(const char **p, uint64_t max, uint64_t *out);

int np_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
int np_parse_uint(const char *s, unsigned min, unsigned max, unsigned *out);
/* digits with a '-' in front when min < 0 */
int np_parse_int(const char *s, int min, int max, int *out);
/* strtod's syntax, finite, no leading blank */
int np_parse_double(const char *s, double min, double max, double *out);
/* A byte count: a number (1.5G has decimals) with an optional suffix K, M,
 * G or T (powers of 1024, either case), then an optional "iB" or "B"
 * (64GiB, 64GB, 64G and 4096B are all understood). */
int np_parse_bytes(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* A list of distinct indexes, "0,2,5": numbers as np_parse_uint takes
 * them, at most max, separated by single commas; "" is the empty list.
 * *out is malloc'ed (NULL for the empty list), *n its length.  -EINVAL
 * for anything else (a blank, an empty entry, a range, an index twice),
 * -ERANGE for an index above max, -ENOMEM; why (len bytes, may be NULL)
 * then names the entry at fault.  One parser for Slurm's SLURM_STEP_GPUS
 * (the plugin) and numaplan plan --gpus, so that both read one syntax. */
int np_parse_index_list(const char *s, unsigned max, unsigned **out, unsigned *n, char *why,
                        size_t len);

/*
 * The same for the value of an option (or variable) named opt, with a
 * message in err that names both: "--ntasks: '4x' is not a number",
 * "-m: '2T' is out of range (0 to 1073741824)".
 */
int np_arg_u64(const char *opt, const char *s, uint64_t min, uint64_t max, uint64_t *out,
               np_error_t *err);
int np_arg_uint(const char *opt, const char *s, unsigned min, unsigned max, unsigned *out,
                np_error_t *err);
int np_arg_int(const char *opt, const char *s, int min, int max, int *out, np_error_t *err);
int np_arg_double(const char *opt, const char *s, double min, double max, double *out,
                  np_error_t *err);
int np_arg_bytes(const char *opt, const char *s, uint64_t min, uint64_t max, uint64_t *out,
                 np_error_t *err);

#endif /* NP_COMMON_PARSE_H */

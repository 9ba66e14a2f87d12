/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * osu_args.c - numaplan-osu's command line, OSU style.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <string.h>

#include "osu.h"

const char *np_osu_test_name(enum np_osu_test t)
{
	switch (t) {
	case NP_OSU_LATENCY: return "latency";
	case NP_OSU_BW: return "bw";
	case NP_OSU_BIBW: return "bibw";
	case NP_OSU_MBW_MR: return "mbw_mr";
	case NP_OSU_ALLREDUCE: return "allreduce";
	case NP_OSU_ALLTOALL: return "alltoall";
	}
	return "?";
}

void np_osu_counts(const struct np_osu_opts *o, uint64_t size, int *iters,
                   int *skip)
{
	int large = size > NP_OSU_LARGE;

	if (o->test == NP_OSU_LATENCY) {
		*iters = large ? NP_OSU_LAT_ITERS_L : NP_OSU_LAT_ITERS;
		*skip = large ? NP_OSU_LAT_SKIP_L : NP_OSU_LAT_SKIP;
	} else if (NP_OSU_IS_COLL(o->test)) {
		*iters = large ? NP_OSU_COLL_ITERS_L : NP_OSU_COLL_ITERS;
		*skip = large ? NP_OSU_COLL_SKIP_L : NP_OSU_COLL_SKIP;
	} else {
		*iters = large ? NP_OSU_BW_ITERS_L : NP_OSU_BW_ITERS;
		*skip = large ? NP_OSU_BW_SKIP_L : NP_OSU_BW_SKIP;
	}
	/* -i and -x apply to every size, as in OSU. */
	if (o->iters >= 0)
		*iters = o->iters;
	if (o->skip >= 0)
		*skip = o->skip;
}

static int parse_range(const char *s, struct np_osu_opts *o,
                       np_error_t *err)
{
	const char *colon = strchr(s, ':');
	char lo[64];

	if (colon == NULL) {
		if (np_arg_bytes("-m", s, 0, (uint64_t)1 << 30,
		                     &o->max_size, err) < 0)
			return -EINVAL;
	} else {
		if ((size_t)(colon - s) >= sizeof(lo))
			return np_error_set(err, -EINVAL, "-m: '%s' is not "
			                    "[MIN:]MAX", s);
		memcpy(lo, s, (size_t)(colon - s));
		lo[colon - s] = '\0';
		if (np_arg_bytes("-m", lo, 0, (uint64_t)1 << 30,
		                     &o->min_size, err) < 0 ||
		    np_arg_bytes("-m", colon + 1, 0, (uint64_t)1 << 30,
		                     &o->max_size, err) < 0)
			return -EINVAL;
	}
	if (o->min_size > o->max_size)
		return np_error_set(err, -EINVAL, "-m: '%s': MIN is larger than "
		                    "MAX", s);
	return 0;
}

int np_osu_parse(int argc, char **argv, struct np_osu_opts *o,
                 np_error_t *err)
{
	static const struct option longopts[] = {
		{ "message-size", required_argument, NULL, 'm' },
		{ "iterations", required_argument, NULL, 'i' },
		{ "warmup", required_argument, NULL, 'x' },
		{ "window-size", required_argument, NULL, 'W' },
		{ "full", no_argument, NULL, 'f' },
		{ "validation", no_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "corrupt", no_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *range = NULL;
	int c, have_window = 0;
	static const char tests[] = "latency, bw, bibw, mbw_mr, allreduce "
	                            "or alltoall";

	memset(o, 0, sizeof(*o));
	o->iters = -1;
	o->skip = -1;
	o->window = NP_OSU_WINDOW;
	o->max_size = NP_OSU_MAX_SIZE;
	opterr = 0;
	/* GNU getopt moves the test name behind the options, so options may
	 * come before or after it, as with the OSU programs. */
	while ((c = getopt_long(argc, argv, ":m:i:x:W:fcjh", longopts,
	                        NULL)) != -1) {
		switch (c) {
		case 'm': range = optarg; break;
		case 'i':
			if (np_arg_int("-i", optarg, 1, 1 << 30, &o->iters,
			                   err) < 0)
				return -EINVAL;
			break;
		case 'x':
			if (np_arg_int("-x", optarg, 0, 1 << 30, &o->skip,
			                   err) < 0)
				return -EINVAL;
			break;
		case 'W':
			if (np_arg_int("-W", optarg, 1, 1 << 16, &o->window,
			                   err) < 0)
				return -EINVAL;
			have_window = 1;
			break;
		case 'f': o->full = 1; break;
		case 'c': o->check = 1; break;
		case 'j': o->json = 1; break;
		case 'C': o->corrupt = 1; break;
		case 'h': o->help = 1; return 0;
		default:
			return np_k_getopt_error(c, argv, err);
		}
	}
	if (optind >= argc)
		return np_error_set(err, -EINVAL, "which test? %s", tests);
	if (strcmp(argv[optind], "latency") == 0)
		o->test = NP_OSU_LATENCY;
	else if (strcmp(argv[optind], "bw") == 0)
		o->test = NP_OSU_BW;
	else if (strcmp(argv[optind], "bibw") == 0)
		o->test = NP_OSU_BIBW;
	else if (strcmp(argv[optind], "mbw_mr") == 0)
		o->test = NP_OSU_MBW_MR;
	else if (strcmp(argv[optind], "allreduce") == 0)
		o->test = NP_OSU_ALLREDUCE;
	else if (strcmp(argv[optind], "alltoall") == 0)
		o->test = NP_OSU_ALLTOALL;
	else
		return np_error_set(err, -EINVAL, "unknown test '%s' (%s)",
		                    argv[optind], tests);
	optind++;
	if (np_k_no_more_args(argc, argv, err) < 0)
		return -EINVAL;
	if (o->test != NP_OSU_LATENCY)
		o->min_size = 1;
	if (NP_OSU_IS_COLL(o->test))
		o->max_size = NP_OSU_COLL_MAX_SIZE;
	if (range != NULL && parse_range(range, o, err) < 0)
		return -EINVAL;
	if (have_window && (o->test == NP_OSU_LATENCY ||
	                    NP_OSU_IS_COLL(o->test)))
		return np_error_set(err, -EINVAL, "-W: the %s test has no "
		                    "window (only bw, bibw and mbw_mr)",
		                    np_osu_test_name(o->test));
	if (o->full && !NP_OSU_IS_COLL(o->test))
		return np_error_set(err, -EINVAL, "-f: only the collectives "
		                    "(allreduce, alltoall) have min/max "
		                    "columns");
	/* allreduce: a size of no whole float has nothing to reduce */
	if (o->test == NP_OSU_ALLREDUCE && o->max_size < NP_OSU_FLOAT_BYTES)
		return np_error_set(err, -EINVAL, "-m: allreduce sums floats of "
		                    "%d bytes: MAX must be at least %d",
		                    NP_OSU_FLOAT_BYTES, NP_OSU_FLOAT_BYTES);
	return 0;
}

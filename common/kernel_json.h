/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * kernel_json.h - the fields of the JSON object a bundled kernel prints
 * with --json that `numaplan run` reads back (bench/run/run_parse.c and
 * each suite's parser).  The writer (kernels/) and the reader (bench/)
 * spell each name once, here, so that renaming one side cannot silently
 * turn a figure into "no JSON result".  A kernel's other fields are for
 * people and for the raw files; they are not part of this contract.
 */
#ifndef NP_COMMON_KERNEL_JSON_H
#define NP_COMMON_KERNEL_JSON_H

/* every kernel */
#define NP_KJ_PLACEMENT     "placement"     /* where each rank ran */
#define NP_KJ_BUILD         "build"         /* compiler and flags */
#define NP_KJ_VALIDATED     "validated"     /* the kernel's own check */
#define NP_KJ_SECONDS       "seconds"       /* the timed part */

/* numaplan-stream: best rate of each operation, MB/s */
#define NP_KJ_STREAM_COPY   "copy_mbps"
#define NP_KJ_STREAM_SCALE  "scale_mbps"
#define NP_KJ_STREAM_ADD    "add_mbps"
#define NP_KJ_STREAM_TRIAD  "triad_mbps"
#define NP_KJ_STREAM_STORES "stores"        /* "nt" or "normal" */
#define NP_KJ_STREAM_TRIAL  "stores_trial"  /* the trial that chose them */

/* numaplan-hpl */
#define NP_KJ_HPL_GFLOPS    "gflops"
#define NP_KJ_HPL_RESIDUAL  "residual"      /* HPL's scaled residual */
#define NP_KJ_HPL_PASSED    "passed"        /* solved, residual below 16 */

/* numaplan-himeno */
#define NP_KJ_HIMENO_MFLOPS "mflops"
#define NP_KJ_HIMENO_GOSA   "gosa"          /* the last iteration's residual */

/* numaplan-osu: the test's name and its series of points */
#define NP_KJ_OSU_TEST      "test"
#define NP_KJ_OSU_RESULTS   "results"
#define NP_KJ_OSU_SIZE      "size"          /* a point's message size, bytes */
#define NP_KJ_OSU_VALUE     "value"         /* its latency (us) or MB/s */
#define NP_KJ_OSU_RATE      "rate"          /* mbw_mr: messages per second */

#endif /* NP_COMMON_KERNEL_JSON_H */

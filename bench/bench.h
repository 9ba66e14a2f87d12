/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench.h - the benchmark system (libnpbench): the `numaplan run`,
 * `report` and `accept` commands, and `steps`, whose records `report
 * --steps` reports too.  Each takes the arguments after its own
 * name (argv[0] is the subcommand) and returns the process exit status:
 * 0 success, 1 failure of what was run, 2 usage or input error.
 */
#ifndef NP_BENCH_H
#define NP_BENCH_H

int np_cmd_run(int argc, char **argv);
int np_cmd_report(int argc, char **argv);
int np_cmd_accept(int argc, char **argv);
int np_cmd_steps(int argc, char **argv);

#endif /* NP_BENCH_H */

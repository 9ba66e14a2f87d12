/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * commands.h - the numaplan subcommands.  Each takes the arguments after
 * its own name (argv[0] is the subcommand) and returns the process exit
 * status: 0 success, 1 failure of what was run, 2 usage or input error.
 * run, report, accept and steps are the benchmark system's (bench.h).
 */
#ifndef NP_COMMANDS_H
#define NP_COMMANDS_H

#include "bench/bench.h"

int np_cmd_topo(int argc, char **argv);
int np_cmd_plan(int argc, char **argv);
int np_cmd_audit(int argc, char **argv);
int np_cmd_check(int argc, char **argv);

#endif /* NP_COMMANDS_H */

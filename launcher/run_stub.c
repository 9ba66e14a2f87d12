/* Placeholder until the run/report/accept work lands; replaced by it. */
#include <stdio.h>
#include "commands.h"

static int not_yet(const char *what)
{
	fprintf(stderr, "numaplan %s: not built yet\n", what);
	return 2;
}
int np_cmd_run(int argc, char **argv) { (void)argc; (void)argv; return not_yet("run"); }
int np_cmd_report(int argc, char **argv) { (void)argc; (void)argv; return not_yet("report"); }
int np_cmd_accept(int argc, char **argv) { (void)argc; (void)argv; return not_yet("accept"); }

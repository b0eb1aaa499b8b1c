/*
 * optmsg: the one wording of a command line getopt_long() refused, for
 * the front ends that parse their own options (jobdeck run, jobdeck mcp):
 * "PROG: option '--cwd' needs a value", "PROG: unknown option '-x'".
 * The caller sets opterr = 0 and prints its usage after.
 *
 * optmsg has no state and prints to stderr only.
 */
#ifndef JOBDECK_OPTMSG_H
#define JOBDECK_OPTMSG_H

void	optmsg_getopt(const char *prog, int ch, char *const *argv);

#endif

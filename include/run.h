/*
 * run: `jobdeck run`, one command run to its end without a screen, for
 * scripts and tools:
 *
 *	jobdeck run [-c FILE] [--json] [--timeout S] [--input TEXT]
 *	    [--cwd DIR] [--env K=V]... [--param K=V]...
 *	    (JOBNAME | -- PROGRAM [ARG...])
 *
 * The child's stdout and stderr are read from two pipes (never a pty);
 * with --json the result is one JSON object on stdout (success,
 * return_code, signal, timed_out, duration_ms, stdout, stderr), else the
 * output is passed through as it comes and the child's status becomes
 * jobdeck's.  The exit statuses are listed at the top of src/run.c and in
 * jobdeck(1).
 *
 * run is a front end like main: it prints, runs its own loop and returns
 * the exit status; it never calls exit().  It ignores SIGPIPE and makes
 * the process a child subreaper for its lifetime (the process ends soon
 * after).  Its own stdout and stderr never block the loop: a pipe or
 * terminal is written through a private non-blocking reopening (the open
 * file descriptions it inherited keep their flags), and a stalled reader
 * stalls the child, never the timeout or signals (see src/run.c).
 *
 * Ownership: argv belongs to the caller; argv[0] is "run".
 */
#ifndef JOBDECK_RUN_H
#define JOBDECK_RUN_H

#include <stdio.h>

int	run_main(int argc, char **argv);
void	run_usage(FILE *, const char *lead);

#endif

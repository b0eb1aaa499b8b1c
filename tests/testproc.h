/*
 * testproc: the processes of this machine, as tests look for what a job
 * left behind.  testproc_count() counts the live processes whose command
 * line is exactly `sleep ARG` (tests start sleeps with unique arguments,
 * so their leftovers are told apart from everything else); a zombie's
 * command line is empty, so it is not counted.  testproc_scan() walks
 * every process's command line for a test's own matcher.
 */
#ifndef JOBDECK_TESTPROC_H
#define JOBDECK_TESTPROC_H

#include <sys/types.h>

#include <stddef.h>

int	testproc_scan(char *buf, size_t size,
	    void (*each)(pid_t, char *, size_t, void *), void *arg);
int	testproc_sleeps(const char *arg, pid_t *one);

#endif

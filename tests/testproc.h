/*
 * testproc: the processes of this machine, as tests look for what a job
 * left behind.  testproc_count() counts the live processes whose command
 * line is exactly `sleep ARG` (tests start sleeps with unique arguments,
 * so their leftovers are told apart from everything else); a zombie's
 * command line is empty, so it is not counted.  testproc_scan() walks
 * every process's command line for a test's own matcher.
 *
 * testproc_stat() is the tests' one reader of /proc/PID/stat (the fields
 * they look at: state, parent, group, session, tty, start time);
 * testproc_state() and testproc_dead() are what most of them ask of it.
 */
#ifndef JOBDECK_TESTPROC_H
#define JOBDECK_TESTPROC_H

#include <sys/types.h>

#include <stddef.h>

/* What testproc_stat() reads of a process. */
struct testproc_stat {
	int			state;	/* 'R', 'S', 'Z' (a zombie), ... */
	long			ppid;
	long			pgrp;
	long			sid;
	long			tty;	/* tty_nr */
	unsigned long long	start;	/* field 22: ticks after boot */
};

int	testproc_stat(pid_t, struct testproc_stat *);
int	testproc_state(pid_t, long *ppid);
int	testproc_dead(pid_t);
int	testproc_scan(char *buf, size_t size,
	    void (*each)(pid_t, char *, size_t, void *), void *arg);
int	testproc_sleeps(const char *arg, pid_t *one);

#endif

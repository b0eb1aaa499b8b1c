/*
 * ttywait: is a job blocked reading its terminal?  Given the master of a
 * job's pty and the pid of the job's leader, ttywait_probe() looks at the
 * terminal's foreground process group (tcgetpgrp() on the master) and,
 * among the leader and its descendants (at most TTYWAIT_MAX_PROCS), at
 * the members of that group: one asleep in a read of the terminal (Linux:
 * /proc/PID/task/TID/syscall says read or readv on an fd that is the
 * pty's slave or /dev/tty, or poll, ppoll, select or pselect6 waiting for
 * such an fd to be readable; wchan "n_tty_read" when the syscall file
 * cannot be read) is waiting for input, and a password when the
 * terminal's mode has echo off in canonical mode.  A probe costs a few
 * small reads of /proc; it never blocks and never signals anything.
 *
 * Ownership: the caller keeps the fd; nothing is allocated.  The names of
 * ttywait_name() are static.
 */
#ifndef JOBDECK_TTYWAIT_H
#define JOBDECK_TTYWAIT_H

#include <sys/types.h>

enum ttywait {
	TTYWAIT_NONE,		/* not waiting, or cannot tell */
	TTYWAIT_INPUT,		/* blocked reading the terminal */
	TTYWAIT_PASSWORD	/* the same, with echo off (canonical mode) */
};

#define TTYWAIT_MAX_PROCS	64	/* processes looked at per probe */

enum ttywait	 ttywait_probe(int master_fd, pid_t leader);
const char	*ttywait_name(enum ttywait);

#endif

/*
 * child: the one fork of jobdeck, with its hygiene.  child_fork() blocks
 * every signal across fork(), so no handler of ours (the loop's self-pipe
 * writer) runs in the child; the child then joins a cgroup when asked
 * (writes "0" to spec->join before anything else), resets every signal's
 * disposition to SIG_DFL and unblocks them all, starts a session of its
 * own when asked (and takes fd 0, a pty's slave, as its controlling
 * terminal), puts spec->fds[i] on its fd i, keeps the exec report on fd
 * nfds (close-on-exec), closes every other descriptor, and calls the
 * caller's exec callback.  If that returns, or any step before it fails,
 * the child exits 127 (reporting errno).
 *
 * Between fork and exec only async-signal-safe calls are made: write,
 * sigaction, sigprocmask, setsid, ioctl, fcntl, dup2, dup3, close_range,
 * close, _exit, and glibc's strerrordesc_np and strlen, which only read
 * constant tables.  The exec callback must keep to the same (no stdio, no
 * malloc, no locale): what it needs is prepared by the parent before
 * child_fork().  child_exit() and child_say() are for it.
 *
 * The exec report (spec->report, the write end of a close-on-exec pipe,
 * or -1): execve() closes it, so the parent reads end of file; a child
 * that cannot go on writes its errno there first (child_exit()).
 *
 * child_wait() waits for a child of ours for a bounded time, for the
 * synchronous ends after the loop (a deck's teardown, jobdeck mcp).
 *
 * Ownership: the fds in the spec stay the caller's (the child has its
 * copies); the caller owns the pid and reaps it.
 */
#ifndef JOBDECK_CHILD_H
#define JOBDECK_CHILD_H

#include <sys/types.h>

#include <stdint.h>

#define CHILD_FDS_MAX	8

struct child_spec {
	int	 fds[CHILD_FDS_MAX];	/* its fd i is fds[i] (>= 0) */
	int	 nfds;		/* how many: 0 to CHILD_FDS_MAX */
	int	 report;	/* -1, or the exec report's write end */
	int	 join;		/* -1, or a cgroup.procs: "0" written */
	int	 session;	/* 1: setsid() */
	int	 tty;		/* 1: fd 0 its controlling terminal */
};

/* What runs in the child once it is ready; it execs, or returns. */
struct child_exec {
	void	(*exec)(void *arg);
};

void	child_spec_init(struct child_spec *);
pid_t	child_fork(const struct child_spec *, const struct child_exec *,
	    void *arg);
void	child_exit(int error, int status) __attribute__((noreturn));
void	child_say(const char *a, const char *b, int error);
int	child_wait(pid_t pid, int64_t ms, int *status);

#endif

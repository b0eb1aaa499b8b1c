/*
 * waitstatus: how a process ended, said one way everywhere.  Every face
 * (the panel, !ps, !status, ctl's JSON, events, jobdeck run) describes an
 * end through these functions, so a signal is always named the same
 * ("SIGTERM", "SIGRTMIN+2", "SIG99") and JSON always carries "exit_code"
 * (a number, or null) and "signal" (a name, or null).
 *
 * A status is a wait status from waitpid(), or WAITSTATUS_NONE for a
 * process that has not ended or never ran (a queued job that was killed,
 * a program that could not be started): it has neither an exit code nor
 * a signal.
 *
 * A run's end as an exit code is decided here once, for every face that
 * gives one (ctl wait, logs --follow, jobdeck up, jobdeck run, MCP's run,
 * a job object's "code"): waitstatus_end_code() over a struct
 * waitstatus_end, which each face fills from what it knows (job.c's
 * job_end_code() from a job, jobfield.c from a stored run, run.c from its
 * child).  The policy, after timeout(1) and POSIX shells:
 *
 *	0	completed
 *	N	exited with N (an end that did not complete but exited 0,
 *		canceled or failed by jobdeck, gives 1)
 *	128+N	killed by signal N
 *	124	timed out: its own timeout, or a wait that gave up on it
 *		while it still ran
 *	125	never ran, or jobdeck failed: canceled before it started, a
 *		dependency failed, a start that failed before exec
 *	126	found but could not be executed	} the child's own exit
 *	127	not found			} status (pty.c)
 *
 * Ownership: the buffers are the caller's; nothing is allocated.
 */
#ifndef JOBDECK_WAITSTATUS_H
#define JOBDECK_WAITSTATUS_H

#include <stddef.h>

struct json_buf;

#define WAITSTATUS_NONE		(-1)
#define WAITSTATUS_NAME_MAX	32	/* room for any signal's name */

/* The codes of the policy that are not a process's own exit code. */
#define WAITSTATUS_TIMED_OUT	124
#define WAITSTATUS_NOT_RUN	125
#define WAITSTATUS_NOT_EXECUTABLE 126
#define WAITSTATUS_NOT_FOUND	127

/* How a run ended, as waitstatus_end_code() reads it. */
struct waitstatus_end {
	int	status;		/* wait status; WAITSTATUS_NONE: never ran */
	int	timed_out;	/* its timeout (or a wait's) ended it */
	int	completed;	/* it exited 0 by itself: not canceled or */
				/*   failed by jobdeck */
};

const char	*waitstatus_signal_name(int sig, char *buf, size_t size);
int		 waitstatus_parse_signal(const char *s);
int		 waitstatus_signal(int status);
int		 waitstatus_exit_code(int status);
int		 waitstatus_end_code(const struct waitstatus_end *);
const char	*waitstatus_short(int status, char *buf, size_t size);
const char	*waitstatus_long(int status, char *buf, size_t size);
void		 waitstatus_json(struct json_buf *, int status);

#endif

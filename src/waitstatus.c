/*
 * waitstatus.c: one description of a process's end -- its exit code, the
 * name of the signal that killed it, the short form of a table column,
 * the long form of the panel, the JSON fields, and the one exit code
 * policy (waitstatus_end_code()).
 */
#include <sys/wait.h>

#include <ctype.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "json.h"
#include "waitstatus.h"

/* Write the name of signal sig into buf ("SIGTERM", "SIGRTMIN+2"). */
const char *
waitstatus_signal_name(int sig, char *buf, size_t size)
{
	const char	*abbrev = sig > 0 && sig < NSIG ? sigabbrev_np(sig) :
			    NULL;

	if (abbrev != NULL)
		snprintf(buf, size, "SIG%s", abbrev);
	else if (sig >= SIGRTMIN && sig <= SIGRTMAX)
		snprintf(buf, size, "SIGRTMIN+%d", sig - SIGRTMIN);
	else
		snprintf(buf, size, "SIG%d", sig);
	return buf;
}

/*
 * Parse a signal as a user writes it ("9", "KILL", "SIGKILL", "sigterm",
 * "RTMIN+2"); its number, or -1 for none.
 */
int
waitstatus_parse_signal(const char *s)
{
	char	 name[WAITSTATUS_NAME_MAX];
	char	*end;
	long	 n;
	int	 sig;

	if (isdigit((unsigned char)*s)) {
		n = strtol(s, &end, 10);
		if (*end != '\0' || n < 1 || n >= NSIG)
			return -1;
		return (int)n;
	}
	if (strncasecmp(s, "SIG", 3) != 0) {
		if (strlen(s) + 4 > sizeof name)
			return -1;
		snprintf(name, sizeof name, "SIG%s", s);
		s = name;
	}
	for (sig = 1; sig < NSIG; sig++) {
		char	buf[WAITSTATUS_NAME_MAX];

		if (strcasecmp(waitstatus_signal_name(sig, buf, sizeof buf),
		    s) == 0)
			return sig;
	}
	return -1;
}

/* Return the signal that ended the process, or 0. */
int
waitstatus_signal(int status)
{
	if (status == WAITSTATUS_NONE || !WIFSIGNALED(status))
		return 0;
	return WTERMSIG(status);
}

/* Return the process's exit code, or -1 if it did not exit by itself. */
int
waitstatus_exit_code(int status)
{
	if (status == WAITSTATUS_NONE || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/*
 * Return a run's end as an exit code, by the one policy (waitstatus.h):
 * 124 when it timed out, 125 when it never ran, 128+N for signal N, else
 * its exit code (126 and 127 are the child's own when exec failed), but
 * 1 for an exit 0 that was not a completion.
 */
int
waitstatus_end_code(const struct waitstatus_end *e)
{
	if (e->timed_out)
		return WAITSTATUS_TIMED_OUT;
	if (e->status == WAITSTATUS_NONE)
		return WAITSTATUS_NOT_RUN;
	if (WIFSIGNALED(e->status))
		return 128 + WTERMSIG(e->status);
	if (WEXITSTATUS(e->status) == 0 && !e->completed)
		return 1;
	return WEXITSTATUS(e->status);
}

/* Write the end for a table column: "0", "1", "SIGTERM", or "-". */
const char *
waitstatus_short(int status, char *buf, size_t size)
{
	if (status == WAITSTATUS_NONE)
		snprintf(buf, size, "-");
	else if (WIFSIGNALED(status))
		waitstatus_signal_name(WTERMSIG(status), buf, size);
	else
		snprintf(buf, size, "%d", WEXITSTATUS(status));
	return buf;
}

/* Write the end as a sentence: "Exited 1", "Killed by SIGTERM", "Never ran". */
const char *
waitstatus_long(int status, char *buf, size_t size)
{
	char	name[WAITSTATUS_NAME_MAX];

	if (status == WAITSTATUS_NONE)
		snprintf(buf, size, "Never ran");
	else if (WIFSIGNALED(status))
		snprintf(buf, size, "Killed by %s", waitstatus_signal_name(
		    WTERMSIG(status), name, sizeof name));
	else
		snprintf(buf, size, "Exited %d", WEXITSTATUS(status));
	return buf;
}

/* Write "exit_code" and "signal" into the open JSON object jb. */
void
waitstatus_json(struct json_buf *jb, int status)
{
	char	name[WAITSTATUS_NAME_MAX];
	int	code = waitstatus_exit_code(status);
	int	sig = waitstatus_signal(status);

	json_key(jb, "exit_code");
	if (code >= 0)
		json_put_int(jb, code);
	else
		json_put_null(jb);
	json_key(jb, "signal");
	if (sig > 0)
		json_put_string(jb, waitstatus_signal_name(sig, name,
		    sizeof name));
	else
		json_put_null(jb);
}

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
 * Ownership: the buffers are the caller's; nothing is allocated.
 */
#ifndef JOBDECK_WAITSTATUS_H
#define JOBDECK_WAITSTATUS_H

#include <stddef.h>

struct json_buf;

#define WAITSTATUS_NONE		(-1)
#define WAITSTATUS_NAME_MAX	32	/* room for any signal's name */

const char	*waitstatus_signal_name(int sig, char *buf, size_t size);
int		 waitstatus_parse_signal(const char *s);
int		 waitstatus_signal(int status);
int		 waitstatus_exit_code(int status);
int		 waitstatus_shell_code(int status);
const char	*waitstatus_short(int status, char *buf, size_t size);
const char	*waitstatus_long(int status, char *buf, size_t size);
void		 waitstatus_json(struct json_buf *, int status);

#endif

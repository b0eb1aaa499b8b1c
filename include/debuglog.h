/*
 * debuglog: the deck's diagnostic log, on with -v.  One line per event,
 * each stamped with the monotonic time in milliseconds, appended to a
 * file in the state directory ($XDG_STATE_HOME/jobdeck/debug-NAME.log,
 * 0600 in a 0700 directory, no symlink followed), so the draw pacing, the
 * control socket's clients and the jobs' lives can be traced in the field.
 * Off (the default), debuglog() costs one branch.  The file stops growing
 * at DEBUGLOG_MAX bytes with a last line that says so; a write error turns
 * the log off.  Text from jobs and clients is escaped before it is written.
 *
 * Ownership: the log is the process's one; debuglog_open() and
 * debuglog_close() own its fd.
 */
#ifndef JOBDECK_DEBUGLOG_H
#define JOBDECK_DEBUGLOG_H

#define DEBUGLOG_MAX	(64 * 1024 * 1024)

int	 debuglog_open(const char *path, char **cause);
void	 debuglog_close(void);
int	 debuglog_enabled(void);
void	 debuglog(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif

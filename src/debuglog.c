/*
 * debuglog.c: the -v log, a file of stamped lines with a size cap.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "debuglog.h"
#include "textesc.h"
#include "xmalloc.h"

static int	debuglog_fd = -1;
static size_t	debuglog_size;

/* Open (append to) the log at path; 0, or -1 with *cause. */
int
debuglog_open(const char *path, char **cause)
{
	struct stat	sb;
	int		fd;

	debuglog_close();
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
	    0600);
	if (fd == -1) {
		*cause = xprintf("%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) ||
	    sb.st_uid != geteuid()) {
		*cause = xprintf("%s: not a file of this user", path);
		close(fd);
		return -1;
	}
	debuglog_fd = fd;
	debuglog_size = (size_t)sb.st_size;
	debuglog("jobdeck %s: log opened, pid %ld", JOBDECK_VERSION,
	    (long)getpid());
	return 0;
}

/* Close the log; later debuglog() calls do nothing. */
void
debuglog_close(void)
{
	if (debuglog_fd != -1)
		close(debuglog_fd);
	debuglog_fd = -1;
}

/* Return whether the log is on. */
int
debuglog_enabled(void)
{
	return debuglog_fd != -1;
}

/* Append one stamped line, escaped, to the log if it is on. */
void
debuglog(const char *fmt, ...)
{
	struct timespec	 ts;
	va_list		 ap;
	char		*msg, *safe, *line;
	ssize_t		 n;
	int		 len;

	if (debuglog_fd == -1)
		return;
	va_start(ap, fmt);
	len = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (len == -1)
		return;
	safe = textesc_visible(msg, (size_t)len);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	if (debuglog_size >= DEBUGLOG_MAX)
		line = xprintf("%lld.%03ld log full at %d bytes: stopped\n",
		    (long long)ts.tv_sec, ts.tv_nsec / 1000000, DEBUGLOG_MAX);
	else
		line = xprintf("%lld.%03ld %s\n", (long long)ts.tv_sec,
		    ts.tv_nsec / 1000000, safe);
	n = write(debuglog_fd, line, strlen(line));
	if (n == -1 || debuglog_size >= DEBUGLOG_MAX)
		debuglog_close();
	else
		debuglog_size += (size_t)n;
	free(line);
	free(safe);
	free(msg);
}

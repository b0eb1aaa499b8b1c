/*
 * testproc: processes found by their command line (see testproc.h).
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "testproc.h"

/*
 * Call each(pid, cmdline, len, arg) for every process of /proc with its
 * command line (its NUL-separated words, at most size - 1 bytes read into
 * buf); a process that cannot be read is passed over.  -1 without /proc.
 */
int
testproc_scan(char *buf, size_t size, void (*each)(pid_t, char *, size_t,
    void *), void *arg)
{
	struct dirent	*de;
	DIR		*d;
	char		 path[300];
	ssize_t		 n;
	int		 fd;

	if ((d = opendir("/proc")) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "/proc/%s/cmdline", de->d_name);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
			continue;
		n = read(fd, buf, size - 1);
		close(fd);
		if (n > 0)
			each((pid_t)atol(de->d_name), buf, (size_t)n, arg);
	}
	closedir(d);
	return 0;
}

/* What testproc_sleeps() looks for, and what it found. */
struct testproc_sleep {
	char	 want[64];
	size_t	 wlen;
	int	 count;
	pid_t	*one;
};

/* Count a process whose command line is the one wanted. */
static void
testproc_sleep_each(pid_t pid, char *cmdline, size_t len, void *arg)
{
	struct testproc_sleep	*ts = arg;

	if (len == ts->wlen && memcmp(cmdline, ts->want, len) == 0 &&
	    ts->count++ == 0 && ts->one != NULL)
		*ts->one = pid;
}

/*
 * Count the live processes whose command line is `sleep ARG`; the pid of
 * the first found goes to *one unless it is NULL.
 */
int
testproc_sleeps(const char *arg, pid_t *one)
{
	struct testproc_sleep	ts;
	char			buf[256];

	memset(&ts, 0, sizeof ts);
	ts.wlen = (size_t)snprintf(ts.want, sizeof ts.want, "sleep%c%s%c",
	    '\0', arg, '\0');
	ts.one = one;
	ck_assert_int_eq(testproc_scan(buf, sizeof buf, testproc_sleep_each,
	    &ts), 0);
	return ts.count;
}

/*
 * testproc: processes found by their command line, and the one reader of
 * /proc/PID/stat (see testproc.h).
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
 * Read pid's /proc/PID/stat (0: this process's) into *st: 0, or -1 when
 * there is no such process (or its line cannot be read).  The command
 * name, in parentheses, may hold anything: the fields after it are
 * counted from its last ')'.
 */
int
testproc_stat(pid_t pid, struct testproc_stat *st)
{
	char	 path[64], buf[1024], *p, state;
	ssize_t	 n;
	int	 fd, i;

	if (pid == 0)
		snprintf(path, sizeof path, "/proc/self/stat");
	else
		snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* "PID (COMM) STATE PPID PGRP SID TTY ... START (22) ...". */
	memset(st, 0, sizeof *st);
	if ((p = strrchr(buf, ')')) == NULL || p[1] != ' ' ||
	    sscanf(p + 2, "%c %ld %ld %ld %ld", &state, &st->ppid, &st->pgrp,
	    &st->sid, &st->tty) != 5)
		return -1;
	st->state = (unsigned char)state;
	for (i = 2; p != NULL && i < 22; i++)
		p = strchr(p + 1, ' ');
	if (p != NULL)
		st->start = strtoull(p + 1, NULL, 10);
	return 0;
}

/*
 * Return pid's state letter ('Z' for a zombie), its parent in *ppid
 * unless ppid is NULL, or 0 when it is gone.
 */
int
testproc_state(pid_t pid, long *ppid)
{
	struct testproc_stat	st;

	if (testproc_stat(pid, &st) == -1)
		return 0;
	if (ppid != NULL)
		*ppid = st.ppid;
	return st.state;
}

/* Return whether pid is dead: gone, or a zombie (or dead, 'X'). */
int
testproc_dead(pid_t pid)
{
	int	state = testproc_state(pid, NULL);

	return state == 0 || state == 'Z' || state == 'X';
}

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

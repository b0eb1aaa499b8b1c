/*
 * ttywait.c: the probe of whether a job's foreground process group is
 * blocked reading its terminal.  The leader's descendants are found
 * through /proc/PID/task/TID/children; each member of the foreground
 * group asleep ('S') is asked what its threads wait in: the syscall file
 * gives the call and its arguments, and for poll and select the fds they
 * wait on are read from the process (process_vm_readv(), which the same
 * permission as the syscall file allows).  An fd is the terminal when
 * /proc/PID/fd/N is the slave's name, or /dev/tty of a process whose
 * controlling terminal is the slave.
 */
#include <sys/types.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "ttywait.h"

#define TTYWAIT_MAX_TASKS	32	/* threads looked at per process */
#define TTYWAIT_MAX_POLLFDS	64	/* pollfds read of a poll() */
#define TTYWAIT_MAX_SELECT	1024	/* fds of a select() looked at */

/* What the probe knows of the terminal. */
struct ttywait_tty {
	char	name[128];	/* the slave's path */
	dev_t	rdev;		/* its device */
};

/* Read a small /proc file into buf (NUL-terminated); its length or -1. */
static ssize_t
ttywait_read(const char *path, char *buf, size_t size)
{
	ssize_t	n;
	int	fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

/* Read state, process group and controlling tty of pid; 0 or -1. */
static int
ttywait_stat(pid_t pid, char *state, pid_t *pgrp, dev_t *tty)
{
	char	path[64], buf[1024], *p;
	long	ppid, pg, sid;
	int	tty_nr;

	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	if (ttywait_read(path, buf, sizeof buf) <= 0)
		return -1;
	/* The name may hold spaces and parentheses: skip to the last ')'. */
	if ((p = strrchr(buf, ')')) == NULL || p[1] != ' ' || p[2] == '\0')
		return -1;
	*state = p[2];
	if (sscanf(p + 3, " %ld %ld %ld %d", &ppid, &pg, &sid, &tty_nr) != 4)
		return -1;
	*pgrp = (pid_t)pg;
	*tty = (dev_t)tty_nr;
	return 0;
}

/* Return whether fd of pid (whose controlling tty is ctty) is the tty. */
static int
ttywait_is_tty(pid_t pid, long fd, dev_t ctty, const struct ttywait_tty *t)
{
	char	path[64], link[256];
	ssize_t	n;

	if (fd < 0)
		return 0;
	snprintf(path, sizeof path, "/proc/%ld/fd/%ld", (long)pid, fd);
	if ((n = readlink(path, link, sizeof link - 1)) <= 0)
		return 0;
	link[n] = '\0';
	if (strcmp(link, t->name) == 0)
		return 1;
	return strcmp(link, "/dev/tty") == 0 && ctty == t->rdev;
}

/* Return whether a poll() of pid waits to read the tty. */
static int
ttywait_poll(pid_t pid, unsigned long addr, unsigned long nfds, dev_t ctty,
    const struct ttywait_tty *t)
{
	struct pollfd	 fds[TTYWAIT_MAX_POLLFDS];
	struct iovec	 local, remote;
	ssize_t		 n;
	size_t		 i;

	if (nfds > TTYWAIT_MAX_POLLFDS)
		nfds = TTYWAIT_MAX_POLLFDS;
	local.iov_base = fds;
	local.iov_len = nfds * sizeof fds[0];
	remote.iov_base = (void *)addr;
	remote.iov_len = local.iov_len;
	n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	if (n <= 0)
		return 0;
	for (i = 0; i < (size_t)n / sizeof fds[0]; i++) {
		if ((fds[i].events & POLLIN) &&
		    ttywait_is_tty(pid, fds[i].fd, ctty, t))
			return 1;
	}
	return 0;
}

/* Return whether a select() of pid waits to read the tty. */
static int
ttywait_select(pid_t pid, unsigned long nfds, unsigned long addr,
    dev_t ctty, const struct ttywait_tty *t)
{
	unsigned char	 set[TTYWAIT_MAX_SELECT / 8];
	struct iovec	 local, remote;
	ssize_t		 n;
	long		 fd;

	if (addr == 0)
		return 0;
	if (nfds > TTYWAIT_MAX_SELECT)
		nfds = TTYWAIT_MAX_SELECT;
	local.iov_base = set;
	local.iov_len = (nfds + 7) / 8;
	remote.iov_base = (void *)addr;
	remote.iov_len = local.iov_len;
	n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	if (n <= 0)
		return 0;
	/* fd_set is an array of longs: bits in little-endian byte order. */
	for (fd = 0; fd < (long)nfds && fd / 8 < n; fd++) {
		if ((set[fd / 8] & (1 << (fd % 8))) &&
		    ttywait_is_tty(pid, fd, ctty, t))
			return 1;
	}
	return 0;
}

/*
 * Return whether thread tid of pid is blocked reading the tty: by its
 * syscall file, else (unreadable) by its wchan and fd 0.
 */
static int
ttywait_task(pid_t pid, const char *tid, dev_t ctty,
    const struct ttywait_tty *t)
{
	char		path[384], buf[512];
	long		nr;
	unsigned long	a[4];

	snprintf(path, sizeof path, "/proc/%ld/task/%s/syscall", (long)pid,
	    tid);
	if (ttywait_read(path, buf, sizeof buf) <= 0) {
		snprintf(path, sizeof path, "/proc/%ld/task/%s/wchan",
		    (long)pid, tid);
		if (ttywait_read(path, buf, sizeof buf) <= 0)
			return 0;
		return strcmp(buf, "n_tty_read") == 0 &&
		    ttywait_is_tty(pid, 0, ctty, t);
	}
	if (sscanf(buf, "%ld %lx %lx %lx %lx", &nr, &a[0], &a[1], &a[2],
	    &a[3]) != 5)
		return 0;	/* "running", or a blocked thread's "-1 ..." */
	switch (nr) {
	case SYS_read:
	case SYS_readv:
		return ttywait_is_tty(pid, (long)a[0], ctty, t);
#ifdef SYS_poll
	case SYS_poll:
#endif
	case SYS_ppoll:
		return ttywait_poll(pid, a[0], a[1], ctty, t);
#ifdef SYS_select
	case SYS_select:
#endif
	case SYS_pselect6:
		return ttywait_select(pid, a[0], a[1], ctty, t);
	}
	return 0;
}

/* Return whether some thread of pid is blocked reading the tty. */
static int
ttywait_process(pid_t pid, dev_t ctty, const struct ttywait_tty *t)
{
	DIR		*d;
	struct dirent	*de;
	char		 path[64];
	int		 n = 0, found = 0;

	snprintf(path, sizeof path, "/proc/%ld/task", (long)pid);
	if ((d = opendir(path)) == NULL)
		return 0;
	while (!found && n < TTYWAIT_MAX_TASKS && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		n++;
		found = ttywait_task(pid, de->d_name, ctty, t);
	}
	closedir(d);
	return found;
}

/*
 * Append the children of pid (every thread's) to pids, up to max in all;
 * return the new count.
 */
static int
ttywait_children(pid_t pid, pid_t *pids, int n, int max)
{
	DIR		*d;
	struct dirent	*de;
	FILE		*f;
	char		 path[384];
	long		 child;

	snprintf(path, sizeof path, "/proc/%ld/task", (long)pid);
	if ((d = opendir(path)) == NULL)
		return n;
	while (n < max && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "/proc/%ld/task/%s/children",
		    (long)pid, de->d_name);
		if ((f = fopen(path, "re")) == NULL)
			continue;
		while (n < max && fscanf(f, "%ld", &child) == 1)
			pids[n++] = (pid_t)child;
		fclose(f);
	}
	closedir(d);
	return n;
}

/* Say whether the job on master_fd, led by leader, waits for input. */
enum ttywait
ttywait_probe(int master_fd, pid_t leader)
{
	struct ttywait_tty	 t;
	struct termios		 tio;
	struct stat		 sb;
	pid_t			 fg, pgrp, pids[TTYWAIT_MAX_PROCS];
	dev_t			 ctty;
	char			 state;
	int			 n, i, found = 0;

	if (master_fd == -1 || leader <= 0)
		return TTYWAIT_NONE;
	if ((fg = tcgetpgrp(master_fd)) <= 0)
		return TTYWAIT_NONE;
	if (ptsname_r(master_fd, t.name, sizeof t.name) != 0 ||
	    stat(t.name, &sb) != 0)
		return TTYWAIT_NONE;
	t.rdev = sb.st_rdev;

	/* The leader and its descendants, breadth first. */
	pids[0] = leader;
	n = 1;
	for (i = 0; i < n && !found; i++) {
		if (ttywait_stat(pids[i], &state, &pgrp, &ctty) == -1)
			continue;
		if (pgrp == fg && state == 'S')
			found = ttywait_process(pids[i], ctty, &t);
		if (!found)
			n = ttywait_children(pids[i], pids, n,
			    TTYWAIT_MAX_PROCS);
	}
	if (!found)
		return TTYWAIT_NONE;
	if (tcgetattr(master_fd, &tio) == 0 && !(tio.c_lflag & ECHO) &&
	    (tio.c_lflag & ICANON))
		return TTYWAIT_PASSWORD;
	return TTYWAIT_INPUT;
}

/* The word for a state: "input", "password", or NULL for none. */
const char *
ttywait_name(enum ttywait w)
{
	switch (w) {
	case TTYWAIT_INPUT:
		return "input";
	case TTYWAIT_PASSWORD:
		return "password";
	default:
		return NULL;
	}
}

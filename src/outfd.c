/*
 * outfd.c: how our own output is opened so that writing it never blocks
 * the loop (see outfd.h).
 */
#include <sys/stat.h>

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "outfd.h"

/*
 * Open our fd (1 or 2) for writing without blocking: *out is the fd to
 * write (-1 for none), *own says whether it is a new opening to close.
 */
enum outfd_mode
outfd_open(int fd, int *out, int *own)
{
	struct stat	st;
	char		path[32];
	int		flags, nfd;

	*out = -1;
	*own = 0;
	if (fstat(fd, &st) != 0 || (flags = fcntl(fd, F_GETFL)) == -1 ||
	    (flags & O_ACCMODE) == O_RDONLY)
		return OUTFD_NONE;
	*out = fd;
	if (S_ISREG(st.st_mode) || S_ISBLK(st.st_mode))
		return OUTFD_DIRECT;
	if (!S_ISFIFO(st.st_mode) && !isatty(fd))
		return OUTFD_POLLED;
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	nfd = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (nfd == -1)
		return OUTFD_POLLED;
	*out = nfd;
	*own = 1;
	return OUTFD_DIRECT;
}

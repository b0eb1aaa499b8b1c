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
 * Count the live processes whose command line is `sleep ARG`; the pid of
 * the first found goes to *one unless it is NULL.
 */
int
testproc_sleeps(const char *arg, pid_t *one)
{
	struct dirent	*de;
	DIR		*d;
	char		 path[300], buf[256], want[64];
	ssize_t		 n;
	size_t		 wlen;
	int		 fd, count = 0;

	wlen = (size_t)snprintf(want, sizeof want, "sleep%c%s%c", '\0', arg,
	    '\0');
	ck_assert_ptr_nonnull(d = opendir("/proc"));
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "/proc/%s/cmdline", de->d_name);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
			continue;
		n = read(fd, buf, sizeof buf);
		close(fd);
		if (n == (ssize_t)wlen && memcmp(buf, want, wlen) == 0) {
			if (count++ == 0 && one != NULL)
				*one = (pid_t)atol(de->d_name);
		}
	}
	closedir(d);
	return count;
}

/*
 * entropy: the kernel's random bytes (see entropy.h).
 */
#include <sys/random.h>

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "entropy.h"

/* Fill buf with len random bytes; 0, or -1 with errno when there are none. */
int
entropy_fill(void *buf, size_t len)
{
	unsigned char	*p = buf;
	size_t		 got = 0;
	ssize_t		 n;
	int		 fd, error;

	while (got < len) {
		n = getrandom(p + got, len - got, GRND_NONBLOCK);
		if (n > 0)
			got += (size_t)n;
		else if (n == -1 && errno != EINTR)
			break;
	}
	if (got == len)
		return 0;
	if ((fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	while (got < len) {
		n = read(fd, p + got, len - got);
		if (n > 0)
			got += (size_t)n;
		else if (n == 0 || errno != EINTR)
			break;
	}
	error = errno;
	close(fd);
	if (got == len)
		return 0;
	errno = got > 0 && error == 0 ? EIO : error;
	return -1;
}

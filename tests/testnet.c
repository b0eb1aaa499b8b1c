/*
 * testnet.c: loopback ports for the tests that need a listener or a
 * refused connect (probes, the stack, the browser, the commands).
 */
#include <sys/socket.h>

#include <netinet/in.h>

#include <check.h>
#include <string.h>
#include <unistd.h>

#include "testnet.h"

/* Return a socket bound to a free port of 127.0.0.1, that port in *port. */
int
testnet_bound(int *port)
{
	struct sockaddr_in	sin;
	socklen_t		len = sizeof sin;
	int			fd;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(fd, 0);
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sin, sizeof sin), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&sin, &len), 0);
	*port = ntohs(sin.sin_port);
	return fd;
}

/* Return a port of 127.0.0.1 that nothing listens on now. */
int
testnet_closed_port(void)
{
	int	fd, port;

	fd = testnet_bound(&port);
	close(fd);
	return port;
}

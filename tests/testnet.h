/*
 * testnet: loopback TCP ports for tests.  testnet_bound() gives a socket
 * bound to a free port on 127.0.0.1 (not listening: the caller listens,
 * or keeps it to hold the port); testnet_closed_port() a port nothing
 * listens on now, for a connect that must be refused.  Both fail the
 * running check test when the system says no.
 *
 * Ownership: the caller owns the socket testnet_bound() returns.
 */
#ifndef JOBDECK_TESTNET_H
#define JOBDECK_TESTNET_H

int	testnet_bound(int *port);
int	testnet_closed_port(void);

#endif

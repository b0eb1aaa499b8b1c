/*
 * hostport: the one rule for a TCP target, "host:port" (ready_tcp,
 * liveness_tcp): config.c checks it when the file is read and probe.c
 * splits it before it connects, so both say the same of the same text.
 * The host is localhost or a numeric address (an IPv6 one in brackets,
 * "[::1]:80"): names are refused, since resolving one could hold up the
 * loop on DNS; the port is decimal, 1 to 65535.
 *
 * Ownership: *host and *port are allocated for the caller.
 */
#ifndef JOBDECK_HOSTPORT_H
#define JOBDECK_HOSTPORT_H

int	hostport_split(const char *what, const char *s, char **host,
	    char **port, char **cause);

#endif

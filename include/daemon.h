/*
 * daemon: a deck started in the background, as a server its terminals
 * attach to (server.h, client.h): a session of its own, nobody's child,
 * its stdin and stdout /dev/null, what it says while it starts (errors)
 * handed to the starter to print.  daemon_start() returns in the starting process only, once the
 * deck listens on its control socket (or failed to start).
 *
 * Ownership: the configuration is the deck's (the starter's copy is
 * left to the starter to free).
 */
#ifndef JOBDECK_DAEMON_H
#define JOBDECK_DAEMON_H

struct config;
struct deck_opts;

int	daemon_start(struct config *, const struct deck_opts *, int *status,
	    char **said);

#endif

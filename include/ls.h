/*
 * ls: `jobdeck ls [--json]`, the running decks of this user.  Every
 * NAME.sock in the sockets' directory (ctl_socket_names(), ctl.h) is
 * asked `--json deck` (cmd-deck.c) through its read-only socket, all at
 * once on a loop (ctlconn.h), each within CTL_ANSWER_TIMEOUT_MS.  The
 * answers are printed sorted by name: a table (texttable.h) of NAME,
 * PID, STARTED (UTC), JOBS (running/total), CLIENTS and CONFIG, or with
 * --json one array of the decks' objects ({"name","pid","started",
 * "started_at","jobs","running","clients","config"}).  A socket nobody
 * listens on (a deck killed with SIGKILL leaves it) is passed over; no
 * deck at all prints nothing, or "[]".
 *
 * Exit status: 0; 1 when a deck was found that could not be described
 * (it did not answer in time, refused, or answered something else: said
 * on stderr, the others listed); 2 for a usage error or a sockets'
 * directory that cannot be used.
 */
#ifndef JOBDECK_LS_H
#define JOBDECK_LS_H

#include <stdio.h>

int	ls_main(int argc, char **argv);
void	ls_usage(FILE *, const char *lead);

#endif

/*
 * deck: one running deck, the wiring of its parts and the order of their
 * setup and teardown.  deck_new() binds the control socket first, so that
 * a second deck of the same name stops before it touches the screen; then
 * the loop (it owns signal delivery), containment (a cgroup per job, or
 * the environment marker) with what dead decks left swept, the session,
 * the job table and the store, the stack, the session shell, the browser,
 * and the front end: a server of attached terminals (server.h; the deck
 * owns no terminal of its own), or `jobdeck up`'s lines.  deck_run()
 * starts the socket's server, the browser, the configured jobs and the
 * commands given, runs the loop until the deck quits, and returns the exit
 * status.  Quitting (!quit, `ctl quit`, SIGTERM, on_last_detach) stops
 * every job, the attached clients showing it, and leaves the loop once
 * none is left.  deck_free() stops every job, gives every attached
 * terminal back, stops the browser (its profile removed), kills
 * everything of the deck's cgroups and marker and anything still
 * parented to jobdeck, frees the rest, and last tells each client the
 * deck quit (so a client returns once all is gone): the one teardown,
 * for a deck that ran and one that failed to start alike.
 *
 * Ownership: the deck owns the configuration it is given and everything it
 * makes; it borrows the strings of its struct deck_opts.
 */
#ifndef JOBDECK_DECK_H
#define JOBDECK_DECK_H

#include "up.h"

struct config;
struct deck;

struct deck_opts {
	const char	 *name;		/* -S NAME */
	int		  headless;	/* jobdeck up: lines, not a screen */
	int		  serve;	/* a server terminals attach to */
					/*   (up -d: with up's jobs) */
	int		  verbose;	/* -v: the debug log */
	struct up_opts	  up;		/* jobdeck up's options */
	char		**words;	/* commands to start (up: job names) */
	int		  nwords;
};

struct deck	*deck_new(struct config *, const struct deck_opts *,
		    char **cause, int *status);
int		 deck_run(struct deck *);
void		 deck_free(struct deck *);

#endif

/*
 * server: the deck's attached clients.  A terminal attaches through the
 * control socket (`attach`, ctl.h): ctl hands over the connection and the
 * terminal's fds (SCM_RIGHTS) and server_attach() makes a front end (a
 * struct ui, its own view) that draws straight to that terminal.  The
 * connection stays open as the client's line to the deck:
 *
 *   client to deck: "resize\n" (its SIGWINCH), "detach\n" (SIGHUP,
 *   SIGTERM: it leaves), "suspend\n" (SIGTSTP: give the terminal back),
 *   "resume\n" (SIGCONT: take it again, all drawn anew).
 *   deck to client: "0\n" once attached (or "2\n" and the reason, and
 *   the connection closed), "\036suspended\n" once the terminal is given
 *   back for a suspend, and last "\036exit N TEXT\n": the client prints
 *   TEXT ("[detached from NAME]", "[deck NAME quit]") and exits N.
 *
 * A client leaves when it asks (!detach, the detach key, "detach"), when
 * its terminal hangs up or fails, when it takes nothing of a frame for
 * UI_TERM_STALL_MS, or when the connection closes: its terminal is given
 * back (curses ended, modes off), what is queued for it is written for
 * up to SERVER_LEAVE_MS, then it hears its exit line.  The jobs run on.
 * When the last client leaves, on_last_detach = "quit" ends the deck
 * (server_cbs quit), as a terminal that closes did before there were
 * clients.
 *
 * The jobs' terminals have one size: the pane of the client that last
 * typed to a job or resized ("latest"), or the smallest or largest rows
 * and columns of the attached clients' panes; a read-only client never
 * sizes them (a size is a change: the jobs get SIGWINCH), nor does a
 * suspended one.  A read-only client brings no commands to start.  A client that attaches after the last one
 * left hears what happened while none was attached ("2 jobs ended while
 * detached: [2] exited 1, [3] completed").
 *
 * Ownership: the server owns its clients (their fds and front ends); it
 * borrows the loop, job table, session and what struct server_opts
 * points to, which outlive it.
 */
#ifndef JOBDECK_SERVER_H
#define JOBDECK_SERVER_H

#include "ui.h"

struct ctl_attach;
struct job;
struct jobtable;
struct loop;
struct config;
struct server;
struct session;

#define SERVER_LEAVE_MS		2000	/* a leaving client's last bytes */
#define SERVER_CLIENTS_MAX	64	/* attached at once */

/* What the jobs' terminal size follows: [settings] pty_size's choices. */
enum server_size {
	SERVER_SIZE_LATEST,
	SERVER_SIZE_SMALLEST,
	SERVER_SIZE_LARGEST
};

struct server_opts {
	const char		*name;		/* the deck's, for messages */
	const char		*config_path;	/* the deck's file, or NULL */
	int			 quit_on_last;	/* on_last_detach = "quit" */
	enum server_size	 size;
	struct ui_opts		 ui;		/* each client's (owner set */
						/*   by the server) */
};

/* What the server asks of the deck, with arg. */
struct server_cbs {
	/* Stop every job and end the deck (!quit, the last client left). */
	void	(*quit)(void *arg);
	/* Start a command a client gave (`jobdeck CMD` on a running deck). */
	void	(*start)(const char *command, const char *cwd, void *arg);
};

struct server	*server_new(struct loop *, struct jobtable *,
		    struct session *, const struct server_opts *,
		    const struct server_cbs *, void *arg);
void		 server_release(struct server *);
void		 server_free(struct server *, int code, const char *why);
void		 server_attach(struct server *, const struct ctl_attach *);
void		 server_draw(struct server *);
void		 server_message(struct server *, const char *msg, int error);
void		 server_quitting(struct server *);
void		 server_focus_job(struct server *, struct job *);
void		 server_set_config(struct server *, const struct config *);
int		 server_clients(const struct server *);

#endif

/*
 * ui: the curses front end and the only user of curses drawing.  It lays
 * out the panel of jobs, the pane with the selected job's terminal and the
 * prompt line; reads keys (the line editor, bindings, focus mode that hands
 * keys to the selected job, text views); runs typed lines through cmd; and
 * draws when its owner calls ui_draw() from the loop's before-sleep hook,
 * once per turn, only what changed, coalescing to a frame rate while
 * output floods.  A struct ui is one client: a terminal attached to the
 * deck, with its own view (selection, focus, zoom, modes, prompt,
 * history); the deck holds one for each attached terminal (server.h).
 * What is the deck's, not the client's, the client asks of its owner
 * (struct ui_owner_cbs): the jobs' terminal size, detaching, quitting.
 *
 * Ownership: the owner owns the struct ui and keeps the loop, jobtable and
 * session alive while it exists.  ui_new() takes the client's terminal
 * fds (newterm) and ui_free() gives the terminal back (endwin) and closes
 * them.  The owner callbacks may come from inside any ui call or loop
 * callback of the ui: the owner must not free the ui from within them.
 */
#ifndef JOBDECK_UI_H
#define JOBDECK_UI_H

#include <stddef.h>

struct bind;
struct browser;
struct config;
struct config_job;
struct job;
struct jobtable;
struct loop;
struct session;
struct ui;

struct sessionsh;

/* Why a client leaves. */
enum ui_detach {
	UI_DETACH_ASKED,	/* !detach, the detach key */
	UI_DETACH_GONE,		/* its terminal hung up or failed */
	UI_DETACH_STALLED	/* its terminal took nothing for seconds */
};

/* What a client asks of the deck, with owner_arg. */
struct ui_owner_cbs {
	/* The client leaves (the owner ends it later, not from here). */
	void	(*detach)(struct ui *, enum ui_detach, void *arg);
	/* !quit: stop every job and end the deck. */
	void	(*quit)(struct ui *, void *arg);
	/*
	 * The client's pane changed size (resized) or it typed to a job:
	 * the owner sizes the jobs' terminals (ui_pane_size()).
	 */
	void	(*sized)(struct ui *, int resized, void *arg);
};

/* A client's terminal: its fds (taken), TERM, COLORTERM, LC_CTYPE. */
struct ui_client {
	int		 in_fd;
	int		 out_fd;
	const char	*term;
	const char	*colorterm;
	const char	*ctype;
	int		 read_only;	/* sees all, types nothing (-r) */
};

struct cmd_deck;
struct ui_opts {
	const struct ui_owner_cbs *owner;	/* with owner_arg */
	void		*owner_arg;
	const struct cmd_deck *deck;	/* !deck; may be NULL */
	const struct config *config;	/* for !run and autostart; may be */
					/*   NULL */
	const struct bind *bind;	/* the keys in force, the config's */
					/*   [keys] applied; the caller's */
	struct stack	*stack;		/* starts configured jobs; the */
					/*   caller's */
	struct browser	*browser;	/* the browser row, !browser; the */
					/*   caller's */
	struct sessionsh *sessionsh;	/* the session shell, or NULL; the */
					/*   caller's */
};

struct ui	*ui_new(struct loop *, struct jobtable *, struct session *,
		    const struct ui_opts *, const struct ui_client *,
		    char **cause);
void		 ui_free(struct ui *);
void		 ui_draw(struct ui *);
void		 ui_resized(struct ui *);
void		 ui_quitting(struct ui *);
void		 ui_end(struct ui *);
void		 ui_resume(struct ui *);
size_t		 ui_pending(const struct ui *);
void		 ui_pane_size(const struct ui *, int *rows, int *cols);
struct config_settings;
void		 ui_set_settings(struct ui *, const struct config_settings *);
void		 ui_message(struct ui *, const char *msg, int error);
void		 ui_focus_job(struct ui *, struct job *);

#endif

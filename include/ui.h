/*
 * ui: the curses front end and the only user of curses drawing.  It lays
 * out the panel of jobs, the pane with the selected job's terminal and the
 * prompt line; reads keys (the line editor, bindings, focus mode that hands
 * keys to the selected job, text views); runs typed lines through cmd; and
 * draws in the loop's before-sleep hook, once per turn, only what changed,
 * coalescing to a frame rate while output floods.
 *
 * Ownership: the caller owns the struct ui and keeps the loop, jobtable and
 * session alive while it exists.  ui_new() takes the terminal (initscr) and
 * ui_free() gives it back (endwin).
 */
#ifndef JOBDECK_UI_H
#define JOBDECK_UI_H

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

struct ui_opts {
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
		    const struct ui_opts *, char **cause);
void		 ui_free(struct ui *);
void		 ui_quit(struct ui *);
void		 ui_message(struct ui *, const char *msg, int error);
int		 ui_start_job(struct ui *, const char *command);
void		 ui_start_stack(struct ui *);
void		 ui_focus_job(struct ui *, struct job *);

#endif

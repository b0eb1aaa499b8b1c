/*
 * up: `jobdeck up`, the stack without a screen, for CI and terminals
 * that are not to be taken over.  Every job's output goes to stdout as
 * lines prefixed with the job's name, coloured (when stdout is a
 * terminal, unless --no-color) and padded to the longest name, and
 * optionally a time (foreman's "12:00:01 web.1  | " format); job starts
 * and ends are said on such lines too.  SIGINT or SIGTERM stops every job
 * in dependency order (a second one kills at once); `jobdeck up` exits
 * when no job is left live, with the first failing job's status (its
 * exit code, 128+signal) or 0 when all succeeded.  The control socket
 * works as with the screen.  With stay (`jobdeck up --stay`, the deck
 * `jobdeck mcp --start` runs) it does not leave when no job is live, but
 * only once up_quit() (`ctl quit`, SIGTERM, SIGINT, SIGHUP) has stopped
 * every job, and its jobs' failures do not make its exit status.
 *
 * Ownership: main owns the struct up; it borrows the loop, the jobtable
 * and the stack.
 */
#ifndef JOBDECK_UP_H
#define JOBDECK_UP_H

struct browser;
struct jobtable;
struct loop;
struct stack;
struct up;

struct up_opts {
	int		 timestamps;	/* -t: prefix a wall-clock time */
	int		 colour;	/* 1: colour names, 0: never, */
					/*   -1: when stdout is a terminal */
	const char	*deck;		/* -S NAME, for `jobdeck ctl -S NAME` */
	struct browser	*browser;	/* its changes as lines; the */
					/*   caller's, or NULL */
	int		 stay;		/* --stay: leave on up_quit() only */
};

struct up	*up_new(struct loop *, struct jobtable *, struct stack *,
		    const struct up_opts *);
void		 up_free(struct up *);
void		 up_quit(struct up *);
int		 up_status(const struct up *);

#endif

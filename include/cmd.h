/*
 * cmd: the command language.  Each command is a const struct cmd_entry
 * listed in cmd_table[]; the prompt, key bindings and the control socket
 * (ctl.c) all run commands through cmd_find()/cmd_execute(), so they behave
 * the same.  cmd_run_line() is the prompt's dispatcher: `!name args` runs a
 * command, `cd`, `export` and `unset` change the session, and anything else
 * starts a new job.  Commands never print: results and errors go to the
 * client's callbacks.  With ctx->json set, a command hands its result to
 * cmd_json() as one JSON document instead of text; commands that only
 * report a message leave that to the client.  A command whose result
 * comes later (wait; grep and logs on the control socket) begins a task
 * on the face's sink, ctx->sink (cmdsink.h): cmd_execute() returns
 * CMD_RETURN_WAIT, the face writes its opening and starts the task,
 * which writes through the sink and ends with the sink's done.
 *
 * show() hands over a titled text whose first header lines (0 or 1) are
 * column names, not content: a view keeps them in sight and does not count
 * them.
 *
 * Ownership: a struct cmd_ctx borrows everything it points to (its sink
 * the face's, which owns a task begun on it).  Strings and line arrays
 * passed to the client are only valid during the callback.
 */
#ifndef JOBDECK_CMD_H
#define JOBDECK_CMD_H

#include <stdint.h>

#include "bind.h"

struct browser;
struct cmd_sink;
struct config;
struct config_job;
struct expand_param;
struct grep;
struct store_meta;
struct job;
struct jobtable;
struct json_buf;
struct session;
struct sessionsh;
struct stack;
struct stack_change;
struct texttable;

/* A message a client showed (!messages): when (wall seconds), its text. */
struct cmd_msg {
	int64_t		 time;
	int		 error;		/* shown as an error */
	const char	*text;
};

/*
 * Where a command's results go; any member may be NULL.  events turns the
 * client into a stream of every job's events (`events`); 0, or -1 with
 * *cause.  Only the control socket streams; without events the command
 * fails.  (A job's log, `logs ID`, `logs --follow ID` and `logs RUN`, is
 * a task on ctx->sink, cmd-logs.c.)  show_run opens the store's
 * run (a log of this deck or an earlier one) in a view at line (-1: the
 * end), following its new lines while live is set; 0, or -1 with *cause
 * when the run cannot be read (no fd left, removed).  grep takes over a
 * search (and owns it, failing or not) to show it in a view of its own
 * (the prompt), stepping it through its loop; without it, a search runs
 * as a task on ctx->sink, else here to CMD_GREP_MAX matches.  paste sends
 * the client's paste buffer to a job (NULL: the selected one); 0, or -1
 * once the client has said why not (an empty buffer, say).  later
 * says that the command's results come after it returns (a line of the
 * session shell): its messages and errors arrive later, then answered();
 * 0, or -1 with *cause; a client without it gets them as they come.
 * messages hands over the messages the client has shown, newest first
 * (the client's, valid during the command): their count, *msgs set; a
 * client without it keeps none (!messages fails).  screen runs one of the
 * keys' actions at the prompt (bind.h: BIND_NEXT_JOB, BIND_ZOOM...) on the
 * client's screen, for a CMD_SCREEN command or !focus without a job; a
 * client without it has no screen, and those commands are refused.
 */
struct cmd_client {
	void	(*message)(const char *msg, void *arg);
	void	(*error)(const char *msg, void *arg);
	void	(*show)(const char *title, char **lines, int count,
		    int header, void *arg);
	void	(*select)(struct job *, int focus, void *arg);
	void	(*quit)(void *arg);
	void	(*json)(const char *document, void *arg);
	int	(*events)(void *arg, char **cause);
	int	(*show_run)(const char *title, const char *dir,
		    const char *run, int64_t line, int live, void *arg,
		    char **cause);
	int	(*grep)(struct grep *, void *arg, char **cause);
	int	(*paste)(struct job *, void *arg);
	int	(*later)(void *arg, char **cause);
	void	(*answered)(void *arg);
	int	(*messages)(const struct cmd_msg **msgs, void *arg);
	void	(*screen)(enum bind_action, void *arg);
};

/*
 * What cmd_execute() returns: the command is over (its messages told), it
 * failed (ctx->failed says how), or it goes on as a task on ctx->sink
 * (cmdsink.h), which the face starts now.
 */
enum cmd_retval {
	CMD_RETURN_ERROR = -1,
	CMD_RETURN_NORMAL = 0,
	CMD_RETURN_WAIT = 1
};

/* Values of cmd_ctx.failed after a command. */
#define CMD_FAILED	1	/* it failed: no such job, cannot start... */
#define CMD_USAGE	2	/* misused: unknown command, bad option */

/*
 * An option of a command: "--name", its short alias, and the name of its
 * value (NULL for a flag).  cmd_execute() parses options before the
 * operands (to the first operand or "--"), as "--name VALUE",
 * "--name=VALUE" or the alias, into ctx->opts, indexed as the table.
 */
struct cmd_option {
	const char	*name;
	const char	*alias;
	const char	*value;

#define CMD_OPT_REPEAT	0x1	/* may be given more than once */
	int		 flags;
};

/* One option's values after parsing: count 0 when it was not given. */
struct cmd_optval {
	const char	 *value;	/* the last one ("" for a flag) */
	const char	**all;		/* every one, with CMD_OPT_REPEAT */
	int		  count;
};

#define CMD_OPTIONS_MAX	12

struct cmd_entry;

/* The deck a command runs in, for !deck; NULL: not known (a test). */
struct cmd_reload;

struct cmd_deck {
	const char	*name;		/* -S NAME */
	const char	*config;	/* its configuration file, or NULL */
	int64_t		 started_ms;	/* wall clock, ms */
	int		(*clients)(void *arg);	/* attached now; may be NULL */
	void		*clients_arg;
	/*
	 * Move the deck to cfg (taken; NULL: its file read again), its
	 * settings applied where they can be and its stack reloaded; what
	 * was done in *out (cmd_reload_clear()).  -1 with *cause when the
	 * file does not load (nothing changed).  May be NULL: no reloads.
	 */
	int		(*reload)(struct config *cfg, struct cmd_reload *out,
			    char **cause, void *arg);
	void		*reload_arg;
};

/* What a reload did: the stack's changes, then the settings'. */
struct cmd_reload {
	struct stack_change	*changes;	/* one per configured job */
	size_t			 nchanges;
	char			**notes;	/* "kill_timeout applied", */
	size_t			 nnotes;	/*   "log_dir not applied: ..." */
};

struct cmd_ctx {
	struct jobtable		*jt;
	struct session		*session;
	struct sessionsh	*sessionsh;	/* the session shell; NULL: */
						/*   cd, export, unset built in */
	const struct cmd_client	*client;
	void			*arg;
	struct cmd_sink		*sink;		/* where a task writes (wait, */
						/*   grep); NULL: none here */
	struct stack		*stack;		/* the configured jobs (its */
						/*   configuration, the deck's */
						/*   now); NULL: none (!run fails) */
	struct browser		*browser;	/* !browser; NULL: none */
	int			 json;		/* results as JSON */
	int			 read_only;	/* only CMD_READ_ONLY commands, */
						/*   and those only look (the */
						/*   read-only socket) */
	const struct bind	*bind;		/* keys for !help; NULL: defaults */
	const struct cmd_deck	*deck;		/* !deck; NULL: not known */
	int			 width;		/* the client's view, columns; */
						/*   0: unknown (tables keep */
						/*   every column) */
	int			 failed;	/* 0, CMD_FAILED, CMD_USAGE */
	const struct cmd_entry	*entry;		/* the command running */
	const char		*line;		/* its words as typed, or NULL */
	struct cmd_optval	 opts[CMD_OPTIONS_MAX];	/* its options */
	int			 first;		/* argv index of its operands */
};


/*
 * A command: its name and alias, its options and operands (from which its
 * usage is made, see cmd_usage()), a line of help, how many operands it
 * takes, and exec, which reports through cmd_message(), cmd_error() and
 * friends: a command failed if and only if it reported an error.
 */
struct cmd_entry {
	const char		*name;
	const char		*alias;
	const struct cmd_option	*options;	/* NULL-terminated, or NULL */
	const char		*args;		/* the operands, for usage */
	const char		*help;
	int			 min_args;	/* operands */
	int			 max_args;	/* -1: no limit */

#define CMD_BARE	0x1	/* also runs without the leading ! (cd) */
#define CMD_READ_ONLY	0x2	/* only looks: allowed with ctx->read_only */
#define CMD_SCREEN	0x4	/* a key's action on the screen (screen */
				/*   below): refused by a client without */
				/*   one, found by its whole name only */
	int			 flags;
	enum bind_action	 screen;	/* CMD_SCREEN: what it asks */

	void		(*exec)(struct cmd_ctx *, int argc, char **argv);
};

extern const struct cmd_entry *const cmd_table[];
extern const struct bind_commands cmd_bind_commands;	/* for bind.h */

const struct cmd_entry	*cmd_find(const char *name, char **cause);
const struct cmd_entry	*cmd_find_bare(const char *s, size_t len);
enum cmd_retval		 cmd_execute(struct cmd_ctx *, int argc, char **argv);
int			 cmd_run_line(struct cmd_ctx *, const char *line);
int			 cmd_run_words(struct cmd_ctx *, const char *line);
int			 cmd_is_session_line(const char *line);
int			 cmd_session_line(struct cmd_ctx *, const char *line);
const char		*cmd_raw_tail(const struct cmd_ctx *, int argc, int i);
void			 cmd_later_disown(const void *arg);
struct job		*cmd_start_job(struct cmd_ctx *, const char *command,
			    const char *cwd);
struct job		*cmd_find_job(struct cmd_ctx *, const char *id);
char			*cmd_leave_hint(void);
int			 cmd_parse_seconds(const char *, double max, double *);
char			*cmd_reload_line(const struct cmd_reload *);
void			 cmd_reload_clear(struct cmd_reload *);
struct job		*cmd_start_config_job(struct cmd_ctx *,
			    const struct config_job *,
			    const struct expand_param *, size_t);

void	cmd_error(struct cmd_ctx *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
void	cmd_usage_error(struct cmd_ctx *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
void	cmd_usage_fail(struct cmd_ctx *);
int	cmd_refuse_write(struct cmd_ctx *, const char *what);
char	*cmd_usage(const struct cmd_entry *);
void	cmd_message(struct cmd_ctx *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
void	cmd_show(struct cmd_ctx *, const char *title, char **lines, int count,
	    int header);
void	cmd_json(struct cmd_ctx *, const char *document);
void	cmd_json_buf(struct cmd_ctx *, struct json_buf *);
void	cmd_json_job_doc(struct cmd_ctx *, struct job *);
void	cmd_show_jobs(struct cmd_ctx *, struct job **, int);
void	cmd_show_jobs_runs(struct cmd_ctx *, struct job **, int,
	    const struct store_meta *, int);
int	cmd_history_runs(struct cmd_ctx *, int all, int limit,
	    struct store_meta **);
void	cmd_history_free(struct store_meta *, int);
void	cmd_history_json_runs(struct json_buf *, const char *key,
	    const struct store_meta *, int);
struct texttable *cmd_history_table(const struct store_meta *, int);
int	cmd_history_logs(struct cmd_ctx *, const char *id);
int	cmd_logs_stream(struct cmd_ctx *, struct job *, int follow,
	    char **cause);
int	cmd_logs_stream_run(struct cmd_ctx *, const char *dir,
	    const char *run, char **cause);
const char *cmd_browser_state_text(const struct browser *);
char	*cmd_browser_detail(const struct browser *);

#endif

/*
 * config: jobdeck's configuration.  One table, config_options[], names
 * every option (its section, name, type, default, bounds and one line of
 * help); it drives parsing, validation, defaults, `jobdeck --help-config`
 * and the option list of the man page (a test holds the two together).
 * A config comes from a TOML file (config.toml), from a Procfile (`name:
 * command` lines), or from the defaults alone.
 *
 * Errors name the place: "config.toml:12:5: expected '=' after key",
 * "config.toml:20:1: unknown key 'comand' in [[job]] (did you mean
 * 'command'?)", "config.toml:8:11: kill_timeout must be a number between
 * 0 and 3600".  config never prints and never exits.
 *
 * Ownership: config_load() and friends return a struct config the caller
 * frees with config_free(); every string and array in it belongs to it.
 */
#ifndef JOBDECK_CONFIG_H
#define JOBDECK_CONFIG_H

#include <stddef.h>

struct expand_command;

struct expand_param;

enum config_restart {
	CONFIG_RESTART_NO,
	CONFIG_RESTART_ON_FAILURE,
	CONFIG_RESTART_ALWAYS
};

/* What a job on a timer does when a run is due and the last still runs. */
enum config_overlap {
	CONFIG_OVERLAP_SKIP,		/* nothing; the skip is counted */
	CONFIG_OVERLAP_QUEUE,		/* one run starts once it ends */
	CONFIG_OVERLAP_RESTART		/* stop it, then start again */
};

/* The shortest every, in seconds. */
#define CONFIG_MIN_EVERY	0.1

/* [settings]; the defaults and bounds are in config_options[]. */
struct store_limits;

struct config_settings {
	char		*shell;		/* NULL: $SHELL, else /bin/sh */
	int		 scrollback;	/* lines kept above the screen */
	double		 kill_timeout;	/* seconds from SIGTERM to SIGKILL */
	char		*log_dir;	/* the store; NULL: $XDG_STATE_HOME/jobdeck */
	int		 max_log_size;	/* MiB of output kept per run */
	int		 keep_history;	/* runs of earlier decks kept */
	int		 keep_history_days;	/* and for how long */
	int		 max_state_size;	/* MiB of the whole store */
	char		*focus_key;	/* "C-t": an alias of [keys] focus, */
					/*   which wins when both are set */
	int		 max_running;	/* 0: no limit; others wait queued */
	int		 keep_finished;	/* finished jobs kept in the panel,
					   oldest dropped first; 0: none */
	int		 panel_width;	/* columns; 0: a third, 30 to 48 */
	int		 clipboard;	/* copies also go to the outer */
					/*   terminal's clipboard (OSC 52) */
	int		 bell;		/* a failed job rings the bell */
	int		 on_last_detach;	/* 0 keep, 1 quit (server.h) */
	int		 pty_size;	/* enum server_size: latest, */
					/*   smallest, largest */
	int		 reload;	/* 0 manual (!reload), 1 auto: */
					/*   the files watched */
	char		*ssh_command;	/* the ssh program and its options */
					/*   (sh words; JOBDECK_SSH_COMMAND */
					/*   wins); NULL: "ssh" */
	char		**env_file;	/* dotenv files every job reads, */
	size_t		 nenv_file;	/*   relative to the config's dir; */
					/*   also a top-level key */
	int		 port_base;	/* a Procfile's first $PORT */
};

/* When a dependency (depends_on) lets a job start. */
enum config_cond {
	CONFIG_COND_STARTED,		/* it runs (or has run) */
	CONFIG_COND_READY,		/* its readiness probe passed */
	CONFIG_COND_COMPLETED,		/* it ended, any status */
	CONFIG_COND_COMPLETED_OK	/* it ended with status 0 */
};

/*
 * One entry of depends_on = { NAME = "CONDITION" }.  The name "browser",
 * when no [[job]] has it, is the deck's [browser] (CDP Ready is ready).
 */
#define CONFIG_DEP_BROWSER	"browser"

/*
 * The longest time any timeout may be, in seconds: a year.  A job's
 * timeout option, spawn --timeout, wait --timeout and run --timeout.
 */
#define CONFIG_MAX_SECONDS	31536000.0

/* The most replicas a job may have (replicas = N). */
#define CONFIG_MAX_REPLICAS	100
struct config_dep {
	char		*name;		/* a [[job]] of this file, or */
	int		 browser;	/*   1: "browser", the [browser] */
					/*   (started or ready only) */
	enum config_cond cond;
	int		 restart;	/* { condition = C, restart = true }: */
					/*   a reload that restarts the job */
					/*   restarts this one after it */
	int		 line;		/* where it was written */
	int		 col;
};

/*
 * A probe (ready_* or liveness_*): at most one of log (liveness: none),
 * cmd, tcp and http is set; none: no probe.
 */
struct config_probe {
	char		*log;		/* regex (POSIX ERE) over output lines */
	char		*cmd;		/* shell string: exit 0 passes */
	char		*tcp;		/* "host:port" accepts a connection */
	char		*http;		/* URL answers 2xx or 3xx */
	double		 interval;	/* seconds between attempts */
	double		 timeout;	/* seconds one attempt may take */
	double		 initial_delay;	/* seconds before the first */
	int		 retries;	/* failures in a row before it fails; */
					/*   ready: 0 is no limit */
};

/*
 * One [[job]] (or one Procfile line).  command, args, cwd, input and the
 * env values are templates, already checked to expand with params
 * (command, args and input through expand_command()); launch_new()
 * expands them.
 */
struct config_job {
	char		*name;		/* unique, name_check_job(): */
					/*   [A-Za-z0-9_.-]+, not all digits */
	char		*command;	/* shell string, or the program if args */
	char		**args;		/* NULL: command is a shell string */
	size_t		 nargs;		/* args[nargs] is NULL */
	char		*cwd;		/* NULL: the session's (on a host: */
					/*   the login directory) */
	char		*host;		/* NULL: here; a [hosts] name, or */
					/*   an ssh destination */
	char		**env;		/* "KEY=VALUE", in file order, NULL- */
	size_t		 nenv;		/*   terminated; NULL when not set; */
					/*   KEY is name_check_env()'s */
	int		 inherit_env;	/* 0: start from env alone */
	double		 timeout;	/* seconds, 0: none */
	char		*input;		/* written to stdin at start, or NULL */
	int		 autostart;
	enum config_restart restart;	/* after an exit; on-failure: status */
					/*   other than 0, or a signal */
	double		 restart_delay;	/* seconds */
	int		 max_restarts;	/* restarts in a row, then it stays */
					/*   stopped; 0: no limit (default 5) */
	int		 pty;		/* 0: run on pipes */
	struct expand_param *params;	/* {name} defaults, keys and values */
	size_t		 nparams;	/*   owned here (const-cast); params
					   [nparams].key is NULL */
	int		 line;		/* where it was defined, 0 if nowhere */

	/* A stack: order, readiness, environment, stopping, groups. */
	struct config_dep *deps;	/* depends_on, in file order; names */
	size_t		 ndeps;		/*   checked, no cycles */
	struct config_probe ready;	/* "starting" until it passes */
	struct config_probe liveness;	/* fails the job when it fails */
	char		**env_file;	/* dotenv files, over [settings]' */
	size_t		 nenv_file;
	int		 port;		/* $PORT; 0: none */
	char		*stop_signal;	/* "SIGINT"; NULL: SIGTERM */
	char		*stop_command;	/* run instead of a signal, or NULL */
	double		 stop_timeout;	/* seconds to SIGKILL; -1: */
					/*   kill_timeout */
	double		 start_delay;	/* seconds before each first start */
	double		 restart_delay_max; /* the backoff's cap; a run */
					/*   longer than it resets it */
	int		 replicas;	/* config_replica_name(): NAME.1 */
					/*   ..NAME.N; 1: just NAME */
	char		*group;		/* NULL: none */
	int		 priority;	/* higher starts first from the queue */
	char		**watch;	/* globs (** spans directories) relative to */
	size_t		 nwatch;	/*   cwd (else the config's dir) */
	char		**watch_ignore;	/* globs never watched */
	size_t		 nwatch_ignore;
	double		 watch_debounce;	/* seconds of quiet before the */
						/*   restart */

	/* On a timer: at most one of schedule and every (config-stack.c). */
	char		*schedule;	/* a cron expression (cron.h), or NULL */
	char		*every;		/* a duration (duration.h) from the */
					/*   deck's start, or NULL */
	enum config_overlap overlap;	/* a run still going when due */
};

/* One [groups.NAME] table. */
struct config_group {
	char		*name;
	int		 max_running;	/* 0: no limit */
	int		 line;
};

/*
 * A [hosts.NAME] table: where jobs with host = NAME run.  Exactly one
 * of ssh (an ssh destination: [user@]host, an ~/.ssh/config alias) and
 * slurm (srun's options, NULL-terminated; an empty array is allowed).
 */
struct config_host {
	char		*name;		/* name_check_job()'s rules */
	char		*ssh;
	char		**slurm;
	size_t		 nslurm;
	int		 line;
};

/*
 * One entry of [keys] ([keys.view], [keys.copy], [keys.edit]): a mode's
 * action and its keys as space-separated names ("none": unbound), already
 * checked with bind_set() in file order after focus_key.
 */
struct config_key {
	int		 mode;		/* enum bind_mode */
	char		*action;	/* "zoom" */
	char		*keys;		/* "C-g F5", or "none" */
	int		 line;		/* where its value was written */
	int		 col;
};

/*
 * [browser]: the deck's headless Chrome (browser.h).  cdp_url is "auto" or
 * a ws:// or wss:// URL; NULL when absent or false (no browser).
 */
struct config_browser {
	char		*cdp_url;
	char		*image;		/* browser_image: auto runs it in */
					/*   Docker when a daemon answers */
	char		*command;	/* browser_command: auto's program; */
					/*   NULL: the first known on PATH */
	char		**args;		/* browser_args: extra flags, */
	size_t		 nargs;		/*   NULL-terminated; NULL: none */
	double		 timeout;	/* browser_timeout: seconds a start */
					/*   may take */
	int		 line;		/* where [browser] was written, or 0 */
};

struct config {
	char			*path;	/* the file it came from, or NULL */
	int			 procfile;	/* it came from a Procfile: */
					/*   its jobs' ports follow port_base */
	struct config_settings	 settings;
	struct config_job	*jobs;
	size_t			 njobs;
	struct config_key	*keys;	/* [keys], in file order */
	size_t			 nkeys;
	struct config_group	*groups;	/* [groups.NAME], file order */
	size_t			 ngroups;
	struct config_browser	 browser;	/* [browser] */
	struct config_host	*hosts;		/* [hosts.NAME], file order */
	size_t			 nhosts;
};

/* What an option is, for the table. */
enum config_type {
	CONFIG_STRING,
	CONFIG_INT,
	CONFIG_NUMBER,		/* integer or float */
	CONFIG_BOOL,
	CONFIG_ENUM,		/* a string among choices, "|"-separated */
	CONFIG_STRING_ARRAY,
	CONFIG_STRING_TABLE,	/* a table of string values: env, params */
	CONFIG_DEPS,		/* depends_on: names to conditions */
	CONFIG_STRING_OR_FALSE	/* a string, or false for none (NULL): */
				/*   cdp_url; true is refused */
};

struct config_option {
	const char	*section;	/* "settings", "job", "groups", */
					/*   "hosts" or "browser" */
	const char	*name;
	enum config_type type;
	const char	*def;		/* default as TOML text; NULL: none */
	double		 min, max;	/* bounds for numbers */
	const char	*choices;	/* CONFIG_ENUM: "no|on-failure|always" */
					/*   CONFIG_STRING_OR_FALSE: the */
					/*   string to write for true, "auto" */
	const char	*off;		/* CONFIG_STRING_OR_FALSE: what false */
					/*   means, "no browser" */
	const char	*help;		/* one line */

	/* How config.c stores and checks it; the fields above describe it. */
#define CONFIG_REQUIRED	0x1	/* every [[job]] must set it */
#define CONFIG_NONEMPTY	0x2	/* a string that may not be "" */
#define CONFIG_PAIRS	0x4	/* table kept as expand_param, not "K=V" */
#define CONFIG_TEMPLATE	0x8	/* expanded at start: checked by expand */
	int		 flags;
	size_t		 offset;	/* of its field in config_settings, */
					/*   config_job, config_group, */
					/*   config_host or config_browser */
	size_t		 count;		/* arrays, tables: their size_t count */
	int		(*check)(const char *, char **); /* strings and table
					   keys: extra rule, or NULL */
};

extern const struct config_option	config_options[];
extern const size_t			config_noptions;

/* The option called name in section ("settings", "job"...), or NULL. */
const struct config_option *config_find_option(const char *section,
		     const char *name);
/*
 * "string", "integer", "number", "boolean", "array of strings", "string
 * or false", ...
 */
const char	*config_type_name(enum config_type);
/*
 * Apply focus_key and then [keys] to b, in that order (cfg may be NULL:
 * nothing).  Both were checked at load time, so this cannot fail.
 */
struct bind;
void		 config_apply_keys(const struct config *, struct bind *);

/*
 * config_default() has the table's defaults and no jobs.  config_parse()
 * reads TOML, config_parse_procfile() a Procfile; name only prefixes
 * messages ("NAME:LINE:COL: message", "NAME:LINE: message").
 * config_load() reads path, or config_default_path() when path is NULL
 * (a missing default file gives the defaults, a missing path is an
 * error), as a Procfile if procfile is set or the file is named Procfile
 * or Procfile.*; it refuses a file writable by group or others, owned by
 * another user than the caller or root, or larger than TOML_MAX_INPUT.
 * A Procfile's jobs get ports as foreman gives them (port_base + 100 a
 * line; none past 65535), and its directory's .env, when there is one,
 * becomes settings.env_file (an absolute path); a TOML file's env_file
 * and watch paths stay as written.  config_set_port_base() changes
 * port_base and, for a Procfile, its jobs' ports (--port-base).
 * config_default_path() is $XDG_CONFIG_HOME/jobdeck/config.toml, else
 * $HOME/.config/jobdeck/config.toml, else NULL; the caller frees it.
 * config_help_text() is the text of `jobdeck --help-config`, to free.
 * On error *out is NULL and *cause an allocated message.
 */
struct config	*config_default(void);
int		 config_parse(const char *name, const char *buf, size_t len,
		     struct config **out, char **cause);
int		 config_parse_procfile(const char *name, const char *buf,
		     size_t len, struct config **out, char **cause);
int		 config_load(const char *path, int procfile,
		     struct config **out, char **cause);
char		*config_default_path(void);
char		*config_help_text(void);
void		 config_store_limits(const struct config *,
		    struct store_limits *);
const struct config_job *config_find_job(const struct config *,
		     const char *name);
/*
 * Where a job runs (issue 28), the one rule for every front end: a job's
 * host is a [hosts] name of cfg (config_find_host(); cfg may be NULL:
 * none) or else an ssh destination: [user@]host or an ssh:// URL, with no
 * blank or control character, no '-' first (ssh would read an option), at
 * most one '@', and a non-empty part on each side of it, the host part not
 * starting with '-' either.  config_check_host() returns 0, or -1 with
 * *cause 'host "VALUE": not a [hosts] name or an ssh destination' (VALUE
 * escaped, cut short); config_ssh_destination() is the destination rule
 * alone ([hosts.NAME] ssh).
 */
const struct config_host *config_find_host(const struct config *,
		     const char *name);
int		 config_check_host(const struct config *, const char *host,
		     char **cause);
int		 config_ssh_destination(const char *);
void		 config_job_command(const struct config_job *,
		     const char *shell, struct expand_command *);
void		 config_set_port_base(struct config *, int base);
char		*config_dir(const struct config *);
/*
 * The one rule for replica names: replica r (1..N) of job NAME is
 * "NAME.r"; config_replica_parse() is its inverse (0: not a replica's
 * name; else the replica and *base, NAME, to free).
 */
char		*config_replica_name(const char *name, int r);
int		 config_replica_parse(const char *name, char **base);

/*
 * One job as text, for !edit and !dup (src/config-write.c).
 * config_job_toml() writes j as one [[job]] table that config_parse()
 * and config_parse_job() read back to an equal job (every option of
 * config_options[]; not line, nor a dependency's place): the options in
 * the table's order, those equal to their default left out, strings as
 * TOML basic strings (escaped as JSON escapes them, DEL too), env,
 * params and depends_on as inline tables in file order.  The caller
 * frees the text.
 *
 * config_parse_job() reads such a text (name prefixes messages, as for
 * config_parse()): exactly one [[job]] table and nothing else, checked as
 * in a file ("NAME:LINE:COL: message"), and as one job of base's stack
 * (NULL: an empty one), which it joins or, when base has a job of its
 * name, replaces: base's settings (the shell, [browser]) apply, its
 * depends_on names base's jobs and makes no cycle with them (the error
 * is at its own dependency), and no name is a replica's of another.  On
 * success *out is the job, freed with config_job_free(); base is not
 * changed.  On error *out is NULL and *cause an allocated message.
 */
char		*config_job_toml(const struct config_job *j);
int		 config_parse_job(const char *name, const char *buf,
		     size_t len, const struct config *base,
		     struct config_job **out, char **cause);
void		 config_job_free(struct config_job *);
void		 config_free(struct config *);

/*
 * config_diff() compares two structs of one section ("job", "settings",
 * "groups", "hosts", "browser") over config_options[]: changed(name,
 * arg), when not NULL, hears each option whose value differs (in table
 * order); it returns how many did.  Where a job was written (line) is no option.
 */
int		 config_diff(const char *section, const void *a, const void *b,
		    void (*changed)(const char *, void *), void *arg);
int		 config_option_same(const struct config_option *,
		    const void *a, const void *b);

/*
 * config_copy() returns a copy of a configuration that owns all it holds
 * (config_free()); config_copy_job() copies one job into dst, which then
 * owns its strings (config_clear_job() frees them).
 */
struct config	*config_copy(const struct config *);
void		 config_copy_job(struct config_job *dst,
		    const struct config_job *src);
void		 config_clear_job(struct config_job *);

#endif

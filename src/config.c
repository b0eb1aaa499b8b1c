/*
 * config.c: the option table, and turning a TOML tree or a Procfile into a
 * struct config.
 *
 * config_options[] is the schema, after tmux's options-table.c: one row
 * per option with its section, type, default (as TOML text), bounds and
 * help, plus where the value is stored.  Defaults, validation, freeing,
 * `jobdeck --help-config` and (through a test) the man page all read it;
 * nothing else in this file names an option, except that command, args
 * and input are checked together (found by their offsets), since args
 * decides whether command is a shell string.
 *
 * The file (TOML 1.0 through toml.c) has these parts:
 *
 *	[settings]	a table of the "settings" options
 *	[[job]]		an array of tables of the "job" options
 *	[groups.NAME]	a table of the "groups" options for each group
 *	[browser]	a table of the "browser" options: the deck's
 *			headless Chrome (browser.h)
 *	env_file	a top-level key, the same as [settings] env_file
 *	[keys]		key bindings: action = "KEY" or ["KEY", ...], with
 *			[keys.view], [keys.copy] and [keys.edit] for the
 *			other modes (bind.h names the actions)
 *
 * They may also be written inline (settings = {...}, job = [{...}]).  Any
 * other key is an error, with a suggestion when a known name is at most
 * two edits away (Damerau-Levenshtein, optimal string alignment) and at
 * most one edit per three letters of the longer of the two ("foo" is not
 * "job" misspelt, "dbb" is "db"), or with the section it belongs in when
 * it is an option of another one.  A job name in depends_on gets the
 * same suggestion among the file's jobs.
 * Types are strict: an integer option takes a TOML integer, or a float with
 * no fraction (5.0); a number option takes either; NaN and infinities are
 * never in bounds.  Strings may not hold NUL bytes.  Job names follow
 * name_check_job() and env names name_check_env() (include/name.h), and
 * duplicate names are found through a hash set, so 100,000 jobs load in a
 * fraction of a second.
 *
 * A job's command, args, cwd, input and env values are templates.  Once
 * the whole file is applied (the shell of [settings] matters, wherever it
 * is written), they are expanded here with the job's params and no
 * environment: command, args and input together through expand_command(),
 * as launch_new() will, the others through expand_text().  So a bad
 * template, and a {name} where no quoting keeps it from being read as
 * code (for a shell that is not POSIX, after fish -c, in python -c...), is
 * a load error at the template at fault and not a failure at start.
 * Procfile commands are checked the same way.
 *
 * Once every job is read, the stack is checked: each depends_on name is
 * a job of the file and not the job itself (or "browser", when no job is
 * called that: the [browser], which must set cdp_url and is only started
 * or ready), the dependencies make no
 * cycle ("dependency cycle: api -> worker -> api", at the edge that
 * closes it), and no replica (NAME-1 .. NAME-N) has another job's name.
 * Within a job, at most one readiness and one liveness probe are set,
 * ready_log is an ERE rxbound_compile() takes, *_tcp is host:port, *_http an
 * http(s):// URL and stop_signal a signal waitstatus_parse_signal() reads.
 *
 * A Procfile's jobs get $PORT as foreman gives it, port_base plus 100 a
 * line; config_load() makes a .env beside it the settings' env_file.
 *
 * Errors stop at the first one, "NAME:LINE:COL: message", pointing at the
 * value for a bad value, at the key for an unknown key, and at the [[job]]
 * header for a missing key; templates are checked after everything else.
 * Names quoted in messages are cut to 32 bytes with control characters
 * shown as '?'.
 *
 * config_load() reads with open/fstat/read, at most TOML_MAX_INPUT bytes.
 * The file holds commands jobdeck runs, so, as ssh does with its files,
 * one that is writable by group or others, or owned by someone other than
 * the user or root, is refused.  /dev/null is the empty configuration.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <regex.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "bind.h"
#include "config.h"
#include "expand.h"
#include "hostport.h"
#include "fatal.h"
#include "name.h"
#include "procfile.h"
#include "rxbound.h"
#include "store.h"
#include "textesc.h"
#include "toml.h"
#include "waitstatus.h"
#include "xmalloc.h"

/* The largest distance for a "did you mean" suggestion. */
#define CONFIG_SUGGEST_MAX	2

/* Bytes of a user's name or key quoted in a message. */
#define CONFIG_EXCERPT_MAX	32

/* Jobs of a dependency cycle named in full; a longer one is cut short. */
#define CONFIG_CYCLE_SHOWN	15

#define SET(f)	offsetof(struct config_settings, f)
#define JOB(f)	offsetof(struct config_job, f)
#define GRP(f)	offsetof(struct config_group, f)
#define BRW(f)	offsetof(struct config_browser, f)

/* An enum option is stored as an int, the index of its choice. */
_Static_assert(sizeof (enum config_restart) == sizeof (int),
    "enum options are stored as int");

/* One parse: the name for messages. */
struct config_ctx {
	const char	*name;
	char		**cause;
};

/*
 * The job names seen so far, for duplicates: an open-addressed hash set
 * of job indices plus one (0 is an empty slot), at most half full.
 */
struct config_names {
	size_t	*slot;
	size_t	 size;		/* a power of two */
};

/* A growing string for config_help_text(). */
struct config_buf {
	char	*s;
	size_t	 len;
	size_t	 size;
};

/* The sections of config_options[], in the order help lists them. */
static const char *const config_sections[] = { "settings", "job", "groups",
    "browser" };
#define CONFIG_NSECTIONS (sizeof config_sections / sizeof config_sections[0])

static int	 config_check_key(const char *, char **);
static int	 config_check_param(const char *, char **);
static int	 config_check_group(const char *, char **);
static int	 config_check_regex(const char *, char **);
static int	 config_check_signal(const char *, char **);
static int	 config_check_ready_tcp(const char *, char **);
static int	 config_check_ready_http(const char *, char **);
static int	 config_check_liveness_tcp(const char *, char **);
static int	 config_check_liveness_http(const char *, char **);
static int	 config_check_cdp_url(const char *, char **);
static int	 config_check_image(const char *, char **);

const struct config_option config_options[] = {
	{ .section = "settings", .name = "shell", .type = CONFIG_STRING,
	  .help = "shell for command strings; unset: $SHELL, else /bin/sh",
	  .flags = CONFIG_NONEMPTY, .offset = SET(shell) },
	{ .section = "settings", .name = "scrollback", .type = CONFIG_INT,
	  .def = "10000", .min = 0, .max = 1000000,
	  .help = "lines of output each job keeps above its screen (0: none)",
	  .offset = SET(scrollback) },
	{ .section = "settings", .name = "kill_timeout", .type = CONFIG_NUMBER,
	  .def = "5", .min = 0, .max = 3600,
	  .help = "seconds from SIGTERM to SIGKILL when a job is stopped",
	  .offset = SET(kill_timeout) },
	{ .section = "settings", .name = "log_dir", .type = CONFIG_STRING,
	  .help = "the output store's directory; unset: $XDG_STATE_HOME/jobdeck",
	  .flags = CONFIG_NONEMPTY, .offset = SET(log_dir) },
	{ .section = "settings", .name = "max_log_size", .type = CONFIG_INT,
	  .def = "128", .min = 1, .max = 1048576,
	  .help = "MiB of output kept per run; older segments are dropped",
	  .offset = SET(max_log_size) },
	{ .section = "settings", .name = "keep_history", .type = CONFIG_INT,
	  .def = "1000", .min = 0, .max = 1000000,
	  .help = "runs of earlier decks kept in the store, newest first",
	  .offset = SET(keep_history) },
	{ .section = "settings", .name = "keep_history_days", .type = CONFIG_INT,
	  .def = "14", .min = 0, .max = 36500,
	  .help = "days the runs of earlier decks are kept",
	  .offset = SET(keep_history_days) },
	{ .section = "settings", .name = "max_state_size", .type = CONFIG_INT,
	  .def = "4096", .min = 1, .max = 16777216,
	  .help = "MiB the whole store may use; the oldest runs go first",
	  .offset = SET(max_state_size) },
	{ .section = "settings", .name = "focus_key", .type = CONFIG_STRING,
	  .def = "\"C-t\"",
	  .help = "key to focus a job and back: C-a to C-z but C-i, C-j, C-m",
	  .offset = SET(focus_key), .check = config_check_key },
	{ .section = "settings", .name = "max_running", .type = CONFIG_INT,
	  .def = "0", .min = 0, .max = 10000,
	  .help = "jobs running at once, the others wait queued; 0: no limit",
	  .offset = SET(max_running) },
	{ .section = "settings", .name = "keep_finished", .type = CONFIG_INT,
	  .def = "100", .min = 0, .max = 10000,
	  .help = "finished jobs kept in the panel, oldest dropped first",
	  .offset = SET(keep_finished) },
	{ .section = "settings", .name = "panel_width", .type = CONFIG_INT,
	  .def = "0", .min = 0, .max = 1000,
	  .help = "columns of the panel of jobs; 0: a third, 30 to 48",
	  .offset = SET(panel_width) },
	{ .section = "settings", .name = "clipboard", .type = CONFIG_BOOL,
	  .def = "true",
	  .help = "copies also go to the terminal's clipboard (OSC 52)",
	  .offset = SET(clipboard) },
	{ .section = "settings", .name = "bell", .type = CONFIG_BOOL,
	  .def = "false",
	  .help = "ring the terminal's bell when a job fails",
	  .offset = SET(bell) },

	{ .section = "job", .name = "name", .type = CONFIG_STRING,
	  .help = "unique; letters, digits, _ . -, and not only digits",
	  .flags = CONFIG_REQUIRED | CONFIG_NONEMPTY, .offset = JOB(name),
	  .check = name_check_job },
	{ .section = "job", .name = "command", .type = CONFIG_STRING,
	  .help = "shell string, or the program to run when args is set",
	  .flags = CONFIG_REQUIRED | CONFIG_NONEMPTY | CONFIG_TEMPLATE,
	  .offset = JOB(command) },
	{ .section = "job", .name = "args", .type = CONFIG_STRING_ARRAY,
	  .help = "arguments for command, which then runs without a shell",
	  .flags = CONFIG_TEMPLATE, .offset = JOB(args), .count = JOB(nargs) },
	{ .section = "job", .name = "cwd", .type = CONFIG_STRING,
	  .help = "working directory; unset: the session's",
	  .flags = CONFIG_NONEMPTY | CONFIG_TEMPLATE, .offset = JOB(cwd) },
	{ .section = "job", .name = "env", .type = CONFIG_STRING_TABLE,
	  .help = "environment variables set for the job, in file order",
	  .flags = CONFIG_TEMPLATE, .offset = JOB(env), .count = JOB(nenv),
	  .check = name_check_env },
	{ .section = "job", .name = "inherit_env", .type = CONFIG_BOOL,
	  .def = "true",
	  .help = "start from jobdeck's environment; false: from env alone",
	  .offset = JOB(inherit_env) },
	{ .section = "job", .name = "timeout", .type = CONFIG_NUMBER,
	  .def = "0", .min = 0, .max = 31536000,
	  .help = "seconds a run may last before it is stopped; 0: no limit",
	  .offset = JOB(timeout) },
	{ .section = "job", .name = "input", .type = CONFIG_STRING,
	  .help = "text written to the job's input when it starts",
	  .flags = CONFIG_TEMPLATE, .offset = JOB(input) },
	{ .section = "job", .name = "autostart", .type = CONFIG_BOOL,
	  .def = "true",
	  .help = "start with jobdeck; false: only when asked",
	  .offset = JOB(autostart) },
	{ .section = "job", .name = "restart", .type = CONFIG_ENUM,
	  .def = "\"no\"", .choices = "no|on-failure|always",
	  .help = "restart after it exits: never, after a failure, always",
	  .offset = JOB(restart) },
	{ .section = "job", .name = "restart_delay", .type = CONFIG_NUMBER,
	  .def = "1", .min = 0, .max = 3600,
	  .help = "seconds from an exit to the restart",
	  .offset = JOB(restart_delay) },
	{ .section = "job", .name = "max_restarts", .type = CONFIG_INT,
	  .def = "5", .min = 0, .max = 1000000,
	  .help = "restarts in a row before it stays stopped; 0: no limit",
	  .offset = JOB(max_restarts) },
	{ .section = "job", .name = "pty", .type = CONFIG_BOOL,
	  .def = "true",
	  .help = "run on a pseudo-terminal; false: on pipes",
	  .offset = JOB(pty) },
	{ .section = "job", .name = "params", .type = CONFIG_STRING_TABLE,
	  .help = "values for {name} in command, args, cwd and input",
	  .flags = CONFIG_PAIRS, .offset = JOB(params),
	  .count = JOB(nparams), .check = config_check_param },

	{ .section = "job", .name = "depends_on", .type = CONFIG_DEPS,
	  .choices = "started|ready|completed|completed_successfully",
	  .help = "jobs to wait for and when: { db = \"ready\" }",
	  .offset = JOB(deps), .count = JOB(ndeps) },
#define PROBE_OPTIONS(kind, field, what)				\
	{ .section = "job", .name = kind "_cmd", .type = CONFIG_STRING,	\
	  .help = what ": a shell command that exits 0",		\
	  .flags = CONFIG_NONEMPTY, .offset = JOB(field.cmd) },	\
	{ .section = "job", .name = kind "_tcp", .type = CONFIG_STRING,	\
	  .help = what ": host:port accepts a connection",		\
	  .flags = CONFIG_NONEMPTY, .offset = JOB(field.tcp),		\
	  .check = config_check_ ## field ## _tcp },			\
	{ .section = "job", .name = kind "_http", .type = CONFIG_STRING,	\
	  .help = what ": an http:// URL answers 2xx or 3xx",		\
	  .flags = CONFIG_NONEMPTY, .offset = JOB(field.http),	\
	  .check = config_check_ ## field ## _http },			\
	{ .section = "job", .name = kind "_interval", .type = CONFIG_NUMBER, \
	  .def = "1", .min = 0.01, .max = 86400,			\
	  .help = "seconds between " kind " probes",			\
	  .offset = JOB(field.interval) },				\
	{ .section = "job", .name = kind "_timeout", .type = CONFIG_NUMBER, \
	  .def = "1", .min = 0.01, .max = 3600,				\
	  .help = "seconds one " kind " probe may take",		\
	  .offset = JOB(field.timeout) },				\
	{ .section = "job", .name = kind "_initial_delay",		\
	  .type = CONFIG_NUMBER, .def = "0", .min = 0, .max = 86400,	\
	  .help = "seconds from the start to the first " kind " probe",	\
	  .offset = JOB(field.initial_delay) }
	{ .section = "job", .name = "ready_log", .type = CONFIG_STRING,
	  .help = "ready when an output line matches this regex (ERE)",
	  .flags = CONFIG_NONEMPTY, .offset = JOB(ready.log),
	  .check = config_check_regex },
	PROBE_OPTIONS("ready", ready, "ready when"),
	{ .section = "job", .name = "ready_retries", .type = CONFIG_INT,
	  .def = "0", .min = 0, .max = 1000000,
	  .help = "failed ready probes before the job counts as failed; "
	  "0: no limit",
	  .offset = JOB(ready.retries) },
	PROBE_OPTIONS("liveness", liveness, "alive while"),
	{ .section = "job", .name = "liveness_retries", .type = CONFIG_INT,
	  .def = "3", .min = 1, .max = 1000000,
	  .help = "failed liveness probes in a row that fail (and restart) "
	  "the job",
	  .offset = JOB(liveness.retries) },
#undef PROBE_OPTIONS
	{ .section = "job", .name = "env_file", .type = CONFIG_STRING_ARRAY,
	  .help = "dotenv files read in order, after [settings]' env_file",
	  .offset = JOB(env_file), .count = JOB(nenv_file) },
	{ .section = "job", .name = "port", .type = CONFIG_INT,
	  .def = "0", .min = 0, .max = 65535,
	  .help = "$PORT for the job; 0: none (Procfiles: as foreman)",
	  .offset = JOB(port) },
	{ .section = "job", .name = "stop_signal", .type = CONFIG_STRING,
	  .help = "signal that stops the job, e.g. \"SIGINT\"; unset: SIGTERM",
	  .flags = CONFIG_NONEMPTY, .offset = JOB(stop_signal),
	  .check = config_check_signal },
	{ .section = "job", .name = "stop_command", .type = CONFIG_STRING,
	  .help = "shell command run to stop the job instead of a signal",
	  .flags = CONFIG_NONEMPTY, .offset = JOB(stop_command) },
	{ .section = "job", .name = "stop_timeout", .type = CONFIG_NUMBER,
	  .min = 0, .max = 3600,
	  .help = "seconds from the stop to SIGKILL; unset: kill_timeout",
	  .offset = JOB(stop_timeout) },
	{ .section = "job", .name = "start_delay", .type = CONFIG_NUMBER,
	  .def = "0", .min = 0, .max = 86400,
	  .help = "seconds to wait before starting, once dependencies allow",
	  .offset = JOB(start_delay) },
	{ .section = "job", .name = "restart_delay_max", .type = CONFIG_NUMBER,
	  .def = "60", .min = 0, .max = 86400,
	  .help = "cap of the restart delay, doubled each restart; a long run "
	  "resets it",
	  .offset = JOB(restart_delay_max) },
	{ .section = "job", .name = "replicas", .type = CONFIG_INT,
	  .def = "1", .min = 1, .max = 100,
	  .help = "copies to run, named NAME-1 to NAME-N (PORT +1 each)",
	  .offset = JOB(replicas) },
	{ .section = "job", .name = "group", .type = CONFIG_STRING,
	  .help = "group name, for [groups.NAME] limits and !kill-group",
	  .flags = CONFIG_NONEMPTY, .offset = JOB(group),
	  .check = config_check_group },
	{ .section = "job", .name = "priority", .type = CONFIG_INT,
	  .def = "0", .min = -1000, .max = 1000,
	  .help = "queued jobs start highest priority first, then in order",
	  .offset = JOB(priority) },
	{ .section = "job", .name = "watch", .type = CONFIG_STRING_ARRAY,
	  .help = "globs of files whose change restarts the job (** for "
	  "any depth)",
	  .offset = JOB(watch), .count = JOB(nwatch) },
	{ .section = "job", .name = "watch_ignore", .type = CONFIG_STRING_ARRAY,
	  .help = "globs of files and directories watch leaves out",
	  .offset = JOB(watch_ignore), .count = JOB(nwatch_ignore) },
	{ .section = "job", .name = "watch_debounce", .type = CONFIG_NUMBER,
	  .def = "0.5", .min = 0, .max = 3600,
	  .help = "seconds of quiet after a change before the restart",
	  .offset = JOB(watch_debounce) },

	{ .section = "settings", .name = "env_file", .type = CONFIG_STRING_ARRAY,
	  .help = "dotenv files every job reads (also a top-level key)",
	  .offset = SET(env_file), .count = SET(nenv_file) },
	{ .section = "settings", .name = "port_base", .type = CONFIG_INT,
	  .def = "5000", .min = 1, .max = 65535,
	  .help = "a Procfile's first $PORT; +100 a process type, +1 a replica",
	  .offset = SET(port_base) },

	{ .section = "groups", .name = "max_running", .type = CONFIG_INT,
	  .def = "0", .min = 0, .max = 10000,
	  .help = "jobs of [groups.NAME] running at once; 0: no limit",
	  .offset = GRP(max_running) },

	{ .section = "browser", .name = "cdp_url",
	  .type = CONFIG_STRING_OR_FALSE, .def = "false", .choices = "auto",
	  .off = "no browser",
	  .help = "\"auto\" starts a headless Chrome, a ws:// URL connects to "
	  "one",
	  .offset = BRW(cdp_url), .check = config_check_cdp_url },
	{ .section = "browser", .name = "browser_image", .type = CONFIG_STRING,
	  .help = "Docker image auto runs when a daemon answers",
	  .flags = CONFIG_NONEMPTY, .offset = BRW(image),
	  .check = config_check_image },
	{ .section = "browser", .name = "browser_command",
	  .type = CONFIG_STRING,
	  .help = "auto's program; unset: chromium-headless-shell, chromium...",
	  .flags = CONFIG_NONEMPTY, .offset = BRW(command) },
	{ .section = "browser", .name = "browser_args",
	  .type = CONFIG_STRING_ARRAY,
	  .help = "extra flags for the browser auto starts",
	  .offset = BRW(args), .count = BRW(nargs) },
	{ .section = "browser", .name = "browser_timeout",
	  .type = CONFIG_NUMBER,
	  .def = "30", .min = 1, .max = 3600,
	  .help = "seconds a browser's start may take before it fails",
	  .offset = BRW(timeout) },
};
const size_t config_noptions = sizeof config_options / sizeof config_options[0];

static int	 config_fail(struct config_ctx *, int, int, char *);
static size_t	 config_distance(const char *, size_t, const char *);
static const struct config_option *config_lookup(const char *, const char *,
		     size_t);
static const char *config_suggest(const char *, const char *, size_t);
static char	*config_type_error(const struct config_option *);
static void	 config_set_default(const struct config_option *, void *);
static void	 config_init(const char *, void *);
static void	 config_clear(const char *, void *);
static int	 config_get_string(struct config_ctx *,
		     const struct config_option *, const char *,
		     const struct toml_value *, char **);
static int	 config_set_enum(struct config_ctx *,
		     const struct config_option *, const struct toml_value *,
		     void *);
static int	 config_set_array(struct config_ctx *,
		     const struct config_option *, const struct toml_value *,
		     void *);
static int	 config_set_table(struct config_ctx *,
		     const struct config_option *, const struct toml_value *,
		     void *);
static int	 config_set_deps(struct config_ctx *,
		     const struct config_option *, const struct toml_value *,
		     void *);
static int	 config_set(struct config_ctx *, const struct config_option *,
		     const struct toml_value *, void *);
static const char *config_section_table(const char *);
static int	 config_section(struct config_ctx *, const char *,
		     const char *, const struct toml_value *, void *);
static uint32_t	 config_hash(const char *);
static int	 config_names_add(struct config_names *,
		     const struct config_job *, size_t);
static const struct toml_value *config_job_value(const struct toml_value *,
		     size_t);
static int	 config_check_text(struct config_ctx *,
		     const struct config_job *, const char *,
		     const struct toml_value *);
static int	 config_check_command(struct config_ctx *,
		     const struct config *, const struct config_job *,
		     const struct toml_value *);
static int	 config_check_templates(struct config_ctx *,
		     const struct config *, const struct config_job *,
		     const struct toml_value *);
static int	 config_check_job(struct config_ctx *, const struct config *,
		     size_t, const struct toml_value *,
		     const struct toml_value *, struct config_names *);
static int	 config_jobs(struct config_ctx *, struct config *,
		     const struct toml_value *);
static int	 config_unknown_root(struct config_ctx *, const char *, size_t,
		     const struct toml_value *, int, int);
static int	 config_root(struct config_ctx *, struct config *,
		     const struct toml_value *);
static int	 config_is_procfile(const char *);
static int	 config_read(const char *, int, char **, size_t *, char **);
static void	 buf_printf(struct config_buf *, const char *, ...)
		     __attribute__((format(printf, 2, 3)));
static const char *config_keys_table(enum bind_mode);

/*
 * Check focus_key: a key name bind_key_parse() reads, and one of C-a to
 * C-z other than C-i, C-j and C-m (Tab and Enter to a terminal).
 */
static int
config_check_key(const char *s, char **cause)
{
	char	*pcause = NULL;
	int	 key;

	if (bind_key_parse(s, &key, &pcause) == 0 && key >= 1 && key <= 26 &&
	    key != '\t' && key != '\n' && key != '\r')
		return 0;
	free(pcause);
	*cause = xstrdup("focus_key must be C-a to C-z, except C-i, C-j and "
	    "C-m");
	return -1;
}

/* Check a params name: what {name} can refer to, [A-Za-z_][A-Za-z0-9_]*. */
static int
config_check_param(const char *s, char **cause)
{
	char	*e;

	if (name_is_ident(s, strlen(s)))
		return 0;
	e = textesc_excerpt(s, strlen(s), CONFIG_EXCERPT_MAX);
	*cause = xprintf("params name '%s' must be [A-Za-z_][A-Za-z0-9_]*", e);
	free(e);
	return -1;
}

/* Check a group's name ([groups.NAME], group =): a job name's rule. */
static int
config_check_group(const char *s, char **cause)
{
	char	*e;

	if (name_check_job(s, cause) == 0)
		return 0;
	free(*cause);
	e = textesc_excerpt(s, strlen(s), CONFIG_EXCERPT_MAX);
	*cause = xprintf("group name '%s' must be like a job name: letters, "
	    "digits, '_', '.' and '-', not only digits", e);
	free(e);
	return -1;
}

/* Check ready_log: a POSIX extended regex that rxbound_compile() takes. */
static int
config_check_regex(const char *s, char **cause)
{
	regex_t	 re;
	char	*why = NULL;

	if (rxbound_compile(&re, s, REG_EXTENDED | REG_NOSUB, &why) == 0) {
		regfree(&re);
		return 0;
	}
	*cause = xprintf("ready_log is not a valid regex (ERE): %s", why);
	free(why);
	return -1;
}

/* Check stop_signal: a name or number waitstatus_parse_signal() reads. */
static int
config_check_signal(const char *s, char **cause)
{
	if (waitstatus_parse_signal(s) != -1)
		return 0;
	*cause = xstrdup("stop_signal must be a signal's name or number, as "
	    "\"SIGINT\", \"INT\" or \"2\"");
	return -1;
}

/* Return 1 if s[0..len) has no blank, control character or DEL. */
static int
config_graphic(const char *s, size_t len)
{
	size_t	i;

	for (i = 0; i < len; i++) {
		if ((unsigned char)s[i] <= ' ' || s[i] == 0x7f)
			return 0;
	}
	return 1;
}

/* Check the target of option name, a TCP probe: hostport.h's rule. */
static int
config_check_tcp(const char *name, const char *s, char **cause)
{
	char	*host, *port;

	if (hostport_split(name, s, &host, &port, cause) != 0)
		return -1;
	free(host);
	free(port);
	return 0;
}

/* Check the target of option name, an HTTP probe: an http(s):// URL. */
static int
config_check_http(const char *name, const char *s, char **cause)
{
	size_t	n;

	if (strncasecmp(s, "http://", 7) == 0)
		n = 7;
	else if (strncasecmp(s, "https://", 8) == 0)
		n = 8;
	else
		n = 0;
	if (n != 0 && s[n] != '\0' && s[n] != '/' &&
	    config_graphic(s, strlen(s)))
		return 0;
	*cause = xprintf("%s must be a URL that starts with http:// or "
	    "https://", name);
	return -1;
}

/* Check ready_tcp. */
static int
config_check_ready_tcp(const char *s, char **cause)
{
	return config_check_tcp("ready_tcp", s, cause);
}

/* Check ready_http. */
static int
config_check_ready_http(const char *s, char **cause)
{
	return config_check_http("ready_http", s, cause);
}

/* Check liveness_tcp. */
static int
config_check_liveness_tcp(const char *s, char **cause)
{
	return config_check_tcp("liveness_tcp", s, cause);
}

/* Check liveness_http. */
static int
config_check_liveness_http(const char *s, char **cause)
{
	return config_check_http("liveness_http", s, cause);
}

/*
 * Check cdp_url: "auto", or a ws:// or wss:// URL by hostport_ws_url()'s
 * rule (the one browser.c reads it by; a host name allowed, as http.h
 * resolves names off the loop).
 */
static int
config_check_cdp_url(const char *s, char **cause)
{
	char	*msg = NULL;
	int	 r;

	if (strcmp(s, "auto") == 0)
		return 0;
	if (strncmp(s, "ws://", 5) != 0 && strncmp(s, "wss://", 6) != 0) {
		*cause = xstrdup("cdp_url must be \"auto\", a ws:// URL or "
		    "false");
		return -1;
	}
	if ((r = hostport_ws_url("cdp_url", s, 1, NULL, NULL, &msg)) == 0)
		return 0;
	if (r == HOSTPORT_BAD_HOST) {
		*cause = msg;
		return -1;
	}
	free(msg);
	*cause = xstrdup("cdp_url must be ws://HOST:PORT or wss://HOST:PORT "
	    "and an optional /path, with a port from 1 to 65535 (IPv6 as "
	    "ws://[::1]:9222)");
	return -1;
}

/*
 * Check browser_image: a name docker run reads as the image, so no
 * blanks and no leading '-' (which it would take for an option).
 */
static int
config_check_image(const char *s, char **cause)
{
	if (s[0] != '-' && config_graphic(s, strlen(s)))
		return 0;
	*cause = xstrdup("browser_image must be an image name such as "
	    "\"zenika/alpine-chrome:latest\": no blanks, and no '-' first");
	return -1;
}

/* Set *cause to "NAME:LINE:COL: msg", free msg and return -1. */
static int
config_fail(struct config_ctx *ctx, int line, int col, char *msg)
{
	*ctx->cause = xprintf("%s:%d:%d: %s", ctx->name, line, col, msg);
	free(msg);
	return -1;
}

/*
 * Return the optimal string alignment distance between a[0..alen) and b
 * (insertions, deletions, substitutions and swaps of neighbours), or
 * CONFIG_SUGGEST_MAX + 1 when it is surely larger than that.
 */
static size_t
config_distance(const char *a, size_t alen, const char *b)
{
	size_t	blen = strlen(b), i, j, cost, v;
	size_t	d[3][32];	/* rows i-2, i-1 and i, by i % 3 */

	if (alen > blen + CONFIG_SUGGEST_MAX ||
	    blen > alen + CONFIG_SUGGEST_MAX || blen >= 32)
		return CONFIG_SUGGEST_MAX + 1;
	for (j = 0; j <= blen; j++)
		d[0][j] = j;
	for (i = 1; i <= alen; i++) {
		d[i % 3][0] = i;
		for (j = 1; j <= blen; j++) {
			cost = a[i - 1] == b[j - 1] ? 0 : 1;
			v = d[(i - 1) % 3][j] + 1;
			if (d[i % 3][j - 1] + 1 < v)
				v = d[i % 3][j - 1] + 1;
			if (d[(i - 1) % 3][j - 1] + cost < v)
				v = d[(i - 1) % 3][j - 1] + cost;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] &&
			    d[(i - 2) % 3][j - 2] + 1 < v)
				v = d[(i - 2) % 3][j - 2] + 1;
			d[i % 3][j] = v;
		}
	}
	return d[alen % 3][blen];
}

/* Return the option called key (len bytes) in section, or NULL. */
static const struct config_option *
config_lookup(const char *section, const char *key, size_t len)
{
	const struct config_option	*o;
	size_t				 i;

	for (i = 0; i < config_noptions; i++) {
		o = &config_options[i];
		if (strcmp(o->section, section) == 0 &&
		    strlen(o->name) == len && memcmp(o->name, key, len) == 0)
			return o;
	}
	return NULL;
}

/*
 * Return 1 if cand is closer to key (len bytes) than *bestd edits, and
 * close enough to suggest: within CONFIG_SUGGEST_MAX edits and one per
 * three letters of the longer (two edits turn "foo" into "job", one "dbb"
 * into "db"); then set *bestd to its distance.
 */
static int
config_near(const char *key, size_t len, const char *cand, size_t *bestd)
{
	size_t	d, longer;

	d = config_distance(key, len, cand);
	longer = strlen(cand) > len ? strlen(cand) : len;
	if (d >= *bestd || d * 3 > longer || d >= len)
		return 0;
	*bestd = d;
	return 1;
}

/*
 * Return the name in section (NULL: the top level's tables and keys)
 * closest to key (len bytes) by config_near(), or NULL; the first in
 * table order wins a tie.
 */
static const char *
config_suggest(const char *section, const char *key, size_t len)
{
	static const char	*top[] = { "settings", "job", "keys", "groups",
				     "browser", "env_file" };
	const char		*best = NULL, *cand;
	size_t			 i, n, bestd = CONFIG_SUGGEST_MAX + 1;

	n = section == NULL ? sizeof top / sizeof top[0] : config_noptions;
	for (i = 0; i < n; i++) {
		if (section == NULL)
			cand = top[i];
		else if (strcmp(config_options[i].section, section) != 0)
			continue;
		else
			cand = config_options[i].name;
		if (config_near(key, len, cand, &bestd))
			best = cand;
	}
	return best;
}

/* Return the name of a type for help and the man page. */
const char *
config_type_name(enum config_type type)
{
	switch (type) {
	case CONFIG_STRING:
	case CONFIG_ENUM:
		return "string";
	case CONFIG_INT:
		return "integer";
	case CONFIG_NUMBER:
		return "number";
	case CONFIG_BOOL:
		return "boolean";
	case CONFIG_STRING_ARRAY:
		return "array of strings";
	case CONFIG_STRING_TABLE:
		return "table of strings";
	case CONFIG_DEPS:
		return "table of job names";
	case CONFIG_STRING_OR_FALSE:
		return "string or false";
	}
	return "unknown";
}

/* Return the option called name in section, or NULL. */
const struct config_option *
config_find_option(const char *section, const char *name)
{
	if (section == NULL || name == NULL)
		return NULL;
	return config_lookup(section, name, strlen(name));
}

/* Return "NAME must be ..." for a value of the wrong type or range. */
static char *
config_type_error(const struct config_option *o)
{
	struct config_buf	 b = { NULL, 0, 0 };
	const char		*p, *bar;

	switch (o->type) {
	case CONFIG_STRING:
		return xprintf("%s must be a string", o->name);
	case CONFIG_INT:
		return xprintf("%s must be an integer between %.15g and %.15g",
		    o->name, o->min, o->max);
	case CONFIG_NUMBER:
		return xprintf("%s must be a number between %.15g and %.15g",
		    o->name, o->min, o->max);
	case CONFIG_BOOL:
		return xprintf("%s must be true or false", o->name);
	case CONFIG_ENUM:
		buf_printf(&b, "%s must be one of ", o->name);
		for (p = o->choices; p != NULL; p = bar == NULL ? NULL :
		    bar + 1) {
			bar = strchr(p, '|');
			buf_printf(&b, "%s\"%.*s\"", p == o->choices ? "" :
			    ", ", bar == NULL ? (int)strlen(p) : (int)(bar - p),
			    p);
		}
		return b.s;
	case CONFIG_STRING_ARRAY:
		return xprintf("%s must be an array of strings", o->name);
	case CONFIG_STRING_TABLE:
		return xprintf("%s must be a table of strings", o->name);
	case CONFIG_DEPS:
		buf_printf(&b, "%s must be a table of job names to ", o->name);
		for (p = o->choices; p != NULL; p = bar == NULL ? NULL :
		    bar + 1) {
			bar = strchr(p, '|');
			buf_printf(&b, "%s\"%.*s\"", p == o->choices ? "" :
			    bar == NULL ? " or " : ", ", bar == NULL ?
			    (int)strlen(p) : (int)(bar - p), p);
		}
		return b.s;
	case CONFIG_STRING_OR_FALSE:
		return xprintf("%s must be a string or false", o->name);
	}
	return xprintf("%s has an unknown type", o->name);
}

/* Store o's default (TOML text from the table) in its field of base. */
static void
config_set_default(const struct config_option *o, void *base)
{
	char		*field = (char *)base + o->offset;
	const char	*p, *bar;
	size_t		 len;
	int		 i, n;
	double		 d;

	if (o->def == NULL)
		return;
	switch (o->type) {
	case CONFIG_STRING:
		len = strlen(o->def);
		*(char **)field = xstrndup(o->def + 1, len - 2);
		break;
	case CONFIG_INT:
		i = (int)strtol(o->def, NULL, 10);
		memcpy(field, &i, sizeof i);
		break;
	case CONFIG_NUMBER:
		d = strtod(o->def, NULL);
		memcpy(field, &d, sizeof d);
		break;
	case CONFIG_BOOL:
		i = strcmp(o->def, "true") == 0;
		memcpy(field, &i, sizeof i);
		break;
	case CONFIG_ENUM:
		len = strlen(o->def) - 2;
		i = 0;
		for (p = o->choices, n = 0; p != NULL; p = bar == NULL ? NULL :
		    bar + 1, n++) {
			bar = strchr(p, '|');
			if ((size_t)(bar == NULL ? strlen(p) : (size_t)(bar -
			    p)) == len && memcmp(p, o->def + 1, len) == 0)
				i = n;
		}
		memcpy(field, &i, sizeof i);
		break;
	case CONFIG_STRING_ARRAY:
	case CONFIG_STRING_TABLE:
	case CONFIG_DEPS:
	case CONFIG_STRING_OR_FALSE:	/* false: NULL */
		break;
	}
}

/* Zero the struct of section at base and fill in the defaults. */
static void
config_init(const char *section, void *base)
{
	size_t	i;

	if (strcmp(section, "settings") == 0)
		memset(base, 0, sizeof (struct config_settings));
	else if (strcmp(section, "groups") == 0)
		memset(base, 0, sizeof (struct config_group));
	else if (strcmp(section, "browser") == 0)
		memset(base, 0, sizeof (struct config_browser));
	else
		memset(base, 0, sizeof (struct config_job));
	for (i = 0; i < config_noptions; i++) {
		if (strcmp(config_options[i].section, section) == 0)
			config_set_default(&config_options[i], base);
	}
	/* Unset: the deck's kill_timeout. */
	if (strcmp(section, "job") == 0)
		((struct config_job *)base)->stop_timeout = -1;
}

/* Free everything the struct of section at base owns. */
static void
config_clear(const char *section, void *base)
{
	const struct config_option	*o;
	struct expand_param		*pp;
	struct config_dep		*dp;
	char				*field, **sp;
	size_t				 i, j, n;

	for (i = 0; i < config_noptions; i++) {
		o = &config_options[i];
		if (strcmp(o->section, section) != 0)
			continue;
		field = (char *)base + o->offset;
		n = 0;
		if (o->type == CONFIG_STRING_ARRAY ||
		    o->type == CONFIG_STRING_TABLE || o->type == CONFIG_DEPS)
			memcpy(&n, (char *)base + o->count, sizeof n);
		if (o->type == CONFIG_STRING ||
		    o->type == CONFIG_STRING_OR_FALSE)
			free(*(char **)field);
		else if (o->type == CONFIG_DEPS) {
			dp = *(struct config_dep **)field;
			for (j = 0; j < n; j++)
				free(dp[j].name);
			free(dp);
		}
		else if (o->type == CONFIG_STRING_TABLE &&
		    (o->flags & CONFIG_PAIRS)) {
			pp = *(struct expand_param **)field;
			for (j = 0; j < n; j++) {
				free((char *)pp[j].key);
				free((char *)pp[j].value);
			}
			free(pp);
		} else if (o->type == CONFIG_STRING_ARRAY ||
		    o->type == CONFIG_STRING_TABLE) {
			sp = *(char ***)field;
			for (j = 0; j < n; j++)
				free(sp[j]);
			free(sp);
		}
	}
}

/*
 * Get the string v into *s (owned by the tree) for option o, checking it
 * has no NUL; what names what is being checked ("args", "env values").
 */
static int
config_get_string(struct config_ctx *ctx, const struct config_option *o,
    const char *what, const struct toml_value *v, char **s)
{
	const char	*str;
	size_t		 len;

	if (toml_type(v) != TOML_STRING)
		return config_fail(ctx, toml_line(v), toml_col(v),
		    config_type_error(o));
	str = toml_string(v, &len);
	if (strlen(str) != len)
		return config_fail(ctx, toml_line(v), toml_col(v),
		    xprintf("%s must not contain NUL bytes", what));
	if (len == 0 && (o->flags & CONFIG_NONEMPTY))
		return config_fail(ctx, toml_line(v), toml_col(v),
		    xprintf("%s must not be empty", what));
	*s = (char *)str;
	return 0;
}

/* Set enum option o from v. */
static int
config_set_enum(struct config_ctx *ctx, const struct config_option *o,
    const struct toml_value *v, void *field)
{
	const char	*s, *p, *bar;
	size_t		 len, n;
	int		 i;

	if (toml_type(v) == TOML_STRING) {
		s = toml_string(v, &len);
		for (p = o->choices, i = 0; p != NULL; p = bar == NULL ? NULL :
		    bar + 1, i++) {
			bar = strchr(p, '|');
			n = bar == NULL ? strlen(p) : (size_t)(bar - p);
			if (n == len && memcmp(p, s, len) == 0) {
				memcpy(field, &i, sizeof i);
				return 0;
			}
		}
	}
	return config_fail(ctx, toml_line(v), toml_col(v),
	    config_type_error(o));
}

/* Set array option o from v: a NULL-terminated copy of its strings. */
static int
config_set_array(struct config_ctx *ctx, const struct config_option *o,
    const struct toml_value *v, void *base)
{
	char	**arr, *s;
	size_t	  n, i, count = 0;

	if (toml_type(v) != TOML_ARRAY)
		return config_fail(ctx, toml_line(v), toml_col(v),
		    config_type_error(o));
	n = toml_array_size(v);
	arr = xcalloc(n + 1, sizeof *arr);
	memcpy((char *)base + o->offset, &arr, sizeof arr);
	for (i = 0; i < n; i++) {
		if (config_get_string(ctx, o, o->name, toml_array_get(v, i),
		    &s) != 0)
			return -1;
		arr[i] = xstrdup(s);
		count = i + 1;
		memcpy((char *)base + o->count, &count, sizeof count);
	}
	return 0;
}

/*
 * Set table option o from v: "KEY=VALUE" strings, or expand_param pairs
 * with CONFIG_PAIRS; both NULL-terminated (a NULL key) and in file order.
 */
static int
config_set_table(struct config_ctx *ctx, const struct config_option *o,
    const struct toml_value *v, void *base)
{
	struct expand_param	*pp = NULL;
	const struct toml_value	*tv;
	const char		*key;
	char			**sp = NULL, *s, *what, *msg, *e;
	size_t			 n, i, len, count;
	int			 r;

	if (toml_type(v) != TOML_TABLE)
		return config_fail(ctx, toml_line(v), toml_col(v),
		    config_type_error(o));
	n = toml_table_size(v);
	if (o->flags & CONFIG_PAIRS) {
		pp = xcalloc(n + 1, sizeof *pp);
		memcpy((char *)base + o->offset, &pp, sizeof pp);
	} else {
		sp = xcalloc(n + 1, sizeof *sp);
		memcpy((char *)base + o->offset, &sp, sizeof sp);
	}
	for (i = 0; i < n; i++) {
		key = toml_table_key(v, i, &len);
		if (strlen(key) != len) {
			e = textesc_excerpt(key, len, CONFIG_EXCERPT_MAX);
			msg = xprintf("%s name '%s' must not contain NUL bytes",
			    o->name, e);
			free(e);
			return config_fail(ctx, toml_table_key_line(v, i),
			    toml_table_key_col(v, i), msg);
		}
		if (o->check != NULL && o->check(key, &msg) != 0)
			return config_fail(ctx, toml_table_key_line(v, i),
			    toml_table_key_col(v, i), msg);
		tv = toml_table_value(v, i);
		if (toml_type(tv) != TOML_STRING)
			return config_fail(ctx, toml_line(tv), toml_col(tv),
			    xprintf("%s values must be strings", o->name));
		what = xprintf("%s values", o->name);
		r = config_get_string(ctx, o, what, tv, &s);
		free(what);
		if (r != 0)
			return -1;
		if (pp != NULL) {
			pp[i].key = xstrdup(key);
			pp[i].value = xstrdup(s);
		} else
			sp[i] = xprintf("%s=%s", key, s);
		count = i + 1;
		memcpy((char *)base + o->count, &count, sizeof count);
	}
	return 0;
}

/*
 * Set depends_on option o from the table v: job names (the job name rule;
 * which jobs they are is checked once every job is read) to one of o's
 * conditions, in file order.
 */
static int
config_set_deps(struct config_ctx *ctx, const struct config_option *o,
    const struct toml_value *v, void *base)
{
	struct config_dep	*dp;
	const struct toml_value	*tv;
	const char		*key;
	char			*msg, *full;
	size_t			 n, i, len, count;
	int			 cond;

	if (toml_type(v) != TOML_TABLE)
		return config_fail(ctx, toml_line(v), toml_col(v),
		    config_type_error(o));
	n = toml_table_size(v);
	dp = xcalloc(n + 1, sizeof *dp);
	memcpy((char *)base + o->offset, &dp, sizeof dp);
	for (i = 0; i < n; i++) {
		key = toml_table_key(v, i, &len);
		if (strlen(key) != len || name_check_job(key, &msg) != 0) {
			if (strlen(key) != len)
				msg = xstrdup("job names must not contain NUL "
				    "bytes");
			full = xprintf("%s: %s", o->name, msg);
			free(msg);
			return config_fail(ctx, toml_table_key_line(v, i),
			    toml_table_key_col(v, i), full);
		}
		tv = toml_table_value(v, i);
		if (config_set_enum(ctx, o, tv, &cond) != 0)
			return -1;
		dp[i].name = xstrdup(key);
		dp[i].cond = (enum config_cond)cond;
		dp[i].line = toml_table_key_line(v, i);
		dp[i].col = toml_table_key_col(v, i);
		count = i + 1;
		memcpy((char *)base + o->count, &count, sizeof count);
	}
	return 0;
}

/*
 * Set the string-or-false option o from the boolean v: false is none
 * (NULL), true an error that names the string to write.
 */
static int
config_set_false(struct config_ctx *ctx, const struct config_option *o,
    const struct toml_value *v, char *field)
{
	if (toml_bool(v))
		return config_fail(ctx, toml_line(v), toml_col(v),
		    xprintf("%s cannot be true: write %s = \"%s\", or false "
		    "for %s", o->name, o->name, o->choices, o->off));
	free(*(char **)field);
	*(char **)field = NULL;
	return 0;
}

/* Set option o in the struct at base from the value v. */
static int
config_set(struct config_ctx *ctx, const struct config_option *o,
    const struct toml_value *v, void *base)
{
	char		*field = (char *)base + o->offset, *s, *msg;
	enum toml_type	 t = toml_type(v);
	double		 d;
	int		 i;

	switch (o->type) {
	case CONFIG_STRING_OR_FALSE:
		if (t == TOML_BOOL)
			return config_set_false(ctx, o, v, field);
		/* FALLTHROUGH */
	case CONFIG_STRING:
		if (config_get_string(ctx, o, o->name, v, &s) != 0)
			return -1;
		if (o->check != NULL && o->check(s, &msg) != 0)
			return config_fail(ctx, toml_line(v), toml_col(v), msg);
		free(*(char **)field);
		*(char **)field = xstrdup(s);
		return 0;
	case CONFIG_INT:
	case CONFIG_NUMBER:
		if (t == TOML_INTEGER)
			d = (double)toml_integer(v);
		else if (t == TOML_FLOAT)
			d = toml_float(v);
		else
			break;
		/* NaN fails both comparisons. */
		if (!(d >= o->min && d <= o->max))
			break;
		if (d == 0)
			d = 0;	/* no -0.0 */
		if (o->type == CONFIG_NUMBER) {
			memcpy(field, &d, sizeof d);
			return 0;
		}
		i = (int)d;
		if ((double)i != d)
			break;
		memcpy(field, &i, sizeof i);
		return 0;
	case CONFIG_BOOL:
		if (t != TOML_BOOL)
			break;
		i = toml_bool(v) ? 1 : 0;
		memcpy(field, &i, sizeof i);
		return 0;
	case CONFIG_ENUM:
		return config_set_enum(ctx, o, v, field);
	case CONFIG_STRING_ARRAY:
		return config_set_array(ctx, o, v, base);
	case CONFIG_STRING_TABLE:
		return config_set_table(ctx, o, v, base);
	case CONFIG_DEPS:
		return config_set_deps(ctx, o, v, base);
	}
	return config_fail(ctx, toml_line(v), toml_col(v),
	    config_type_error(o));
}

/* Return how a section's table is written: "[[job]]", "[groups.NAME]". */
static const char *
config_section_table(const char *section)
{
	if (strcmp(section, "job") == 0)
		return "[[job]]";
	if (strcmp(section, "groups") == 0)
		return "[groups.NAME]";
	if (strcmp(section, "browser") == 0)
		return "[browser]";
	return "[settings]";
}

/*
 * Apply the table t to the struct of section at base: every key must be
 * one of the section's options.  where names the table in messages
 * ("[settings]", "[groups.backend]"); an unknown key gets the nearest
 * option of the section, else the other section that has it.
 */
static int
config_section(struct config_ctx *ctx, const char *section,
    const char *where, const struct toml_value *t, void *base)
{
	const struct config_option	*o;
	const char			*key, *near, *other = NULL;
	char				*e, *msg;
	size_t				 i, k, len;

	for (i = 0; i < toml_table_size(t); i++) {
		key = toml_table_key(t, i, &len);
		if ((o = config_lookup(section, key, len)) != NULL) {
			if (config_set(ctx, o, toml_table_value(t, i),
			    base) != 0)
				return -1;
			continue;
		}
		for (k = 0; other == NULL && k < CONFIG_NSECTIONS; k++) {
			if (strcmp(config_sections[k], section) != 0 &&
			    config_lookup(config_sections[k], key, len) != NULL)
				other = config_section_table(
				    config_sections[k]);
		}
		e = textesc_excerpt(key, len, CONFIG_EXCERPT_MAX);
		if ((near = config_suggest(section, key, len)) != NULL)
			msg = xprintf("unknown key '%s' in %s (did you mean "
			    "'%s'?)", e, where, near);
		else if (other != NULL)
			msg = xprintf("unknown key '%s' in %s (it belongs in "
			    "%s)", e, where, other);
		else
			msg = xprintf("unknown key '%s' in %s", e, where);
		free(e);
		return config_fail(ctx, toml_table_key_line(t, i),
		    toml_table_key_col(t, i), msg);
	}
	return 0;
}

/* Return the FNV-1a hash of s. */
static uint32_t
config_hash(const char *s)
{
	uint32_t	h = 2166136261u;

	for (; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/*
 * Return the slot of the set where name is, or the empty slot where it
 * would go.
 */
static size_t
config_names_slot(const struct config_names *names,
    const struct config_job *jobs, const char *name)
{
	size_t	i, mask = names->size - 1;

	for (i = config_hash(name) & mask; names->slot[i] != 0;
	    i = (i + 1) & mask) {
		if (strcmp(jobs[names->slot[i] - 1].name, name) == 0)
			break;
	}
	return i;
}

/*
 * Add job n of jobs to the set; return 0, or the index plus one of the
 * job that had its name first.
 */
static int
config_names_add(struct config_names *names, const struct config_job *jobs,
    size_t n)
{
	size_t	i;

	i = config_names_slot(names, jobs, jobs[n].name);
	if (names->slot[i] != 0)
		return (int)names->slot[i];
	names->slot[i] = n + 1;
	return 0;
}

/* Return the index plus one of the job called name, or 0. */
static size_t
config_names_find(const struct config_names *names,
    const struct config_job *jobs, const char *name)
{
	return names->slot[config_names_slot(names, jobs, name)];
}

/* Return the job option stored at offset, or NULL. */
static const struct config_option *
config_job_option(size_t offset)
{
	size_t	i;

	for (i = 0; i < config_noptions; i++) {
		if (strcmp(config_options[i].section, "job") == 0 &&
		    config_options[i].offset == offset)
			return &config_options[i];
	}
	return NULL;
}

/* Return the value in job table t of the option stored at offset. */
static const struct toml_value *
config_job_value(const struct toml_value *t, size_t offset)
{
	const struct config_option	*o;

	if ((o = config_job_option(offset)) == NULL)
		return NULL;
	return toml_table_get(t, o->name);
}

/* Return 1 if value a was written before value b. */
static int
config_before(const struct toml_value *a, const struct toml_value *b)
{
	return toml_line(a) < toml_line(b) ||
	    (toml_line(a) == toml_line(b) && toml_col(a) < toml_col(b));
}

/*
 * Check the template in the string value v of job j (what names it in a
 * message) with expand_text(): values verbatim, no environment yet.
 */
static int
config_check_text(struct config_ctx *ctx, const struct config_job *j,
    const char *what, const struct toml_value *v)
{
	char	*r, *msg = NULL, *full;

	r = expand_text(toml_string(v, NULL), NULL, NULL, j->params,
	    j->nparams, 0, &msg);
	if (r != NULL) {
		free(r);
		return 0;
	}
	full = xprintf("%s: %s", what, msg == NULL ? "cannot expand" : msg);
	free(msg);
	return config_fail(ctx, toml_line(v), toml_col(v), full);
}

/*
 * Fill c with what job j runs: its command, args and input, and the shell
 * a command string goes to (NULL: not known yet), as expand_command()
 * takes them.
 */
void
config_job_command(const struct config_job *j, const char *shell,
    struct expand_command *c)
{
	memset(c, 0, sizeof *c);
	c->command = j->command;
	c->args = j->args;
	c->nargs = j->nargs;
	c->input = j->input;
	c->shell = shell;
	c->terminal = j->pty;
}

/*
 * Check the command, args and input of job j (its table t) together with
 * expand_command(), as launch_new() will expand them but with no
 * environment yet, and point at the template at fault.
 */
static int
config_check_command(struct config_ctx *ctx, const struct config *cfg,
    const struct config_job *j, const struct toml_value *t)
{
	struct expand_command	 c;
	struct expand_result	 res;
	const struct toml_value	*v;
	char			*msg = NULL;

	config_job_command(j, cfg->settings.shell, &c);
	if (expand_command(&c, NULL, NULL, j->params, j->nparams, &res,
	    &msg) == 0) {
		expand_result_clear(&res);
		return 0;
	}
	switch (res.field) {
	case EXPAND_IN_ARG:
		v = toml_array_get(config_job_value(t, JOB(args)), res.index);
		break;
	case EXPAND_IN_INPUT:
		v = config_job_value(t, JOB(input));
		break;
	default:
		v = config_job_value(t, JOB(command));
		break;
	}
	if (v == NULL)
		v = t;
	return config_fail(ctx, toml_line(v), toml_col(v), msg);
}

/*
 * Check every template of job j, whose table is t: command, args and
 * input together, the others (cwd, env values) one by one.
 */
static int
config_check_templates(struct config_ctx *ctx, const struct config *cfg,
    const struct config_job *j, const struct toml_value *t)
{
	const struct config_option	*o;
	const struct toml_value		*v;
	size_t				 i, k;
	char				*what;
	int				 r;

	if (config_check_command(ctx, cfg, j, t) != 0)
		return -1;
	for (i = 0; i < config_noptions; i++) {
		o = &config_options[i];
		if (strcmp(o->section, "job") != 0 ||
		    !(o->flags & CONFIG_TEMPLATE) || o->offset == JOB(command) ||
		    o->offset == JOB(args) || o->offset == JOB(input) ||
		    (v = toml_table_get(t, o->name)) == NULL)
			continue;
		if (o->type == CONFIG_STRING) {
			if (config_check_text(ctx, j, o->name, v) != 0)
				return -1;
			continue;
		}
		for (k = 0; k < toml_table_size(v); k++) {
			what = xprintf("%s %s", o->name,
			    toml_table_key(v, k, NULL));
			r = config_check_text(ctx, j, what,
			    toml_table_value(v, k));
			free(what);
			if (r != 0)
				return -1;
		}
	}
	return 0;
}

/*
 * Check that job j, whose table is t, sets at most one kind of the probe
 * at offset (what: "readiness"): of those set, the second written is the
 * error, naming the first.
 */
static int
config_check_probe(struct config_ctx *ctx, const struct config_job *j,
    const struct toml_value *t, size_t offset, const char *what)
{
	static const size_t		 kinds[] = {
		offsetof(struct config_probe, log),
		offsetof(struct config_probe, cmd),
		offsetof(struct config_probe, tcp),
		offsetof(struct config_probe, http)
	};
	const struct config_probe	*p;
	const struct config_option	*o, *oa = NULL, *ob = NULL;
	const struct toml_value		*v, *a = NULL, *b = NULL;
	size_t				 i;

	/* The common case, at most one set, without looking at the table. */
	p = (const struct config_probe *)(const void *)((const char *)j +
	    offset);
	if ((p->log != NULL) + (p->cmd != NULL) + (p->tcp != NULL) +
	    (p->http != NULL) < 2)
		return 0;
	for (i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
		if ((o = config_job_option(offset + kinds[i])) == NULL ||
		    (v = toml_table_get(t, o->name)) == NULL)
			continue;
		if (a == NULL || config_before(v, a)) {
			b = a;
			ob = oa;
			a = v;
			oa = o;
		} else if (b == NULL || config_before(v, b)) {
			b = v;
			ob = o;
		}
	}
	if (b == NULL)
		return 0;
	return config_fail(ctx, toml_line(b), toml_col(b), xprintf("%s and %s "
	    "(line %d) are both set: a job has at most one %s probe",
	    ob->name, oa->name, toml_line(a), what));
}

/*
 * Check job n of cfg once its table t is applied: required keys, one
 * probe of each sort and a unique name.  jobs is the whole array, for
 * messages.
 */
static int
config_check_job(struct config_ctx *ctx, const struct config *cfg,
    size_t n, const struct toml_value *t, const struct toml_value *jobs,
    struct config_names *names)
{
	const struct config_job		*j = &cfg->jobs[n];
	const struct config_option	*o;
	const struct toml_value		*v, *first;
	size_t				 i;
	int				 k;
	char				*e, *msg;

	for (i = 0; i < config_noptions; i++) {
		o = &config_options[i];
		if (strcmp(o->section, "job") == 0 &&
		    (o->flags & CONFIG_REQUIRED) &&
		    toml_table_get(t, o->name) == NULL)
			return config_fail(ctx, toml_line(t), toml_col(t),
			    xprintf("[[job]] needs a %s", o->name));
	}
	if (config_check_probe(ctx, j, t, JOB(ready), "readiness") != 0 ||
	    config_check_probe(ctx, j, t, JOB(liveness), "liveness") != 0)
		return -1;
	if ((k = config_names_add(names, cfg->jobs, n)) == 0)
		return 0;
	v = config_job_value(t, JOB(name));
	first = config_job_value(toml_array_get(jobs, (size_t)k - 1),
	    JOB(name));
	e = textesc_excerpt(j->name, strlen(j->name), CONFIG_EXCERPT_MAX);
	msg = xprintf("duplicate job name '%s' (first at line %d)", e,
	    toml_line(first));
	free(e);
	return config_fail(ctx, toml_line(v), toml_col(v), msg);
}

/*
 * Check that no replica of job n of cfg (NAME-1 .. NAME-N) has the name
 * of a job; t is the job's table.
 */
static int
config_check_replicas(struct config_ctx *ctx, const struct config *cfg,
    size_t n, const struct toml_value *t, const struct config_names *names)
{
	const struct config_job	*j = &cfg->jobs[n];
	const struct toml_value	*v;
	size_t			 k;
	char			*name, *e, *msg;
	int			 r;

	for (r = 1; r <= j->replicas && j->replicas > 1; r++) {
		name = xprintf("%s-%d", j->name, r);
		k = config_names_find(names, cfg->jobs, name);
		if (k == 0) {
			free(name);
			continue;
		}
		v = config_job_value(t, JOB(replicas));
		e = textesc_excerpt(name, strlen(name), CONFIG_EXCERPT_MAX);
		msg = xprintf("replicas: '%s' is already the name of the job "
		    "at line %d", e, cfg->jobs[k - 1].line);
		free(e);
		free(name);
		return config_fail(ctx, toml_line(v), toml_col(v), msg);
	}
	return 0;
}

/*
 * Report dependency d, which names no job of cfg: suggest the job whose
 * replica it names, else the nearest job name.
 */
static int
config_unknown_dep(struct config_ctx *ctx, const struct config *cfg,
    const struct config_dep *d, const struct config_names *names)
{
	const struct config_job	*j;
	const char		*best = NULL, *dash;
	char			*e, *b, *base, *hint, *msg, *end;
	size_t			 i, k, bestd = CONFIG_SUGGEST_MAX + 1;
	long			 r;

	hint = NULL;
	if ((dash = strrchr(d->name, '-')) != NULL && dash[1] >= '1' &&
	    dash[1] <= '9') {
		r = strtol(dash + 1, &end, 10);
		base = xstrndup(d->name, (size_t)(dash - d->name));
		k = config_names_find(names, cfg->jobs, base);
		j = k != 0 ? &cfg->jobs[k - 1] : NULL;
		if (*end == '\0' && j != NULL && r <= j->replicas) {
			b = textesc_excerpt(base, strlen(base),
			    CONFIG_EXCERPT_MAX);
			hint = xprintf(" ('%s' stands for all its replicas)",
			    b);
			free(b);
		}
		free(base);
	}
	for (i = 0; hint == NULL && i < cfg->njobs; i++) {
		if (config_near(d->name, strlen(d->name), cfg->jobs[i].name,
		    &bestd))
			best = cfg->jobs[i].name;
	}
	if (hint == NULL && best != NULL) {
		b = textesc_excerpt(best, strlen(best), CONFIG_EXCERPT_MAX);
		hint = xprintf(" (did you mean '%s'?)", b);
		free(b);
	}
	e = textesc_excerpt(d->name, strlen(d->name), CONFIG_EXCERPT_MAX);
	msg = xprintf("unknown job '%s' in depends_on%s", e,
	    hint != NULL ? hint : "");
	free(e);
	free(hint);
	return config_fail(ctx, d->line, d->col, msg);
}

/*
 * Report the dependency cycle closed by dependency d of job path[k]: the
 * jobs path[0..k], each depending on the next, and d on path[0]; past
 * CONFIG_CYCLE_SHOWN jobs, the middle is left out.
 */
static int
config_cycle(struct config_ctx *ctx, const struct config *cfg,
    const size_t *path, size_t k, const struct config_dep *d)
{
	struct config_buf	 b = { NULL, 0, 0 };
	const char		*name;
	char			*e;
	size_t			 i;

	buf_printf(&b, "dependency cycle: ");
	for (i = 0; i <= k; i++) {
		if (i >= CONFIG_CYCLE_SHOWN && i < k) {
			if (i == CONFIG_CYCLE_SHOWN)
				buf_printf(&b, "... -> ");
			continue;
		}
		name = cfg->jobs[path[i]].name;
		e = textesc_excerpt(name, strlen(name), CONFIG_EXCERPT_MAX);
		buf_printf(&b, "%s -> ", e);
		free(e);
	}
	e = textesc_excerpt(d->name, strlen(d->name), CONFIG_EXCERPT_MAX);
	buf_printf(&b, "%s", e);
	free(e);
	return config_fail(ctx, d->line, d->col, b.s);
}

/*
 * Check the jobs' dependencies once every job is read: each names a job
 * of the file, not the job itself, and they make no cycle (a depth-first
 * walk with an explicit stack, so a long chain cannot overflow it).  The
 * jobs' replicas are checked here too, since they need every name.
 */
static int
config_check_stack(struct config_ctx *ctx, const struct config *cfg,
    const struct toml_value *jobs, const struct config_names *names)
{
	const struct config_job	*j;
	const struct config_dep	*d;
	size_t			*first, *target, *path, *next, i, k, sp, u, w;
	unsigned char		*state;	/* 0 unseen, 1 on the path, 2 done */
	char			*e;
	int			 r = 0;

	first = xcalloc(cfg->njobs + 1, sizeof *first);
	for (i = 0; i < cfg->njobs; i++) {
		j = &cfg->jobs[i];
		if (config_check_replicas(ctx, cfg, i, toml_array_get(jobs, i),
		    names) != 0) {
			free(first);
			return -1;
		}
		first[i + 1] = first[i] + j->ndeps;
	}
	target = xcalloc(first[cfg->njobs] + 1, sizeof *target);
	for (i = 0; r == 0 && i < cfg->njobs; i++) {
		j = &cfg->jobs[i];
		for (k = 0; r == 0 && k < j->ndeps; k++) {
			d = &j->deps[k];
			w = config_names_find(names, cfg->jobs, d->name);
			if (w == 0 && strcmp(d->name, CONFIG_DEP_BROWSER) == 0)
				((struct config_dep *)d)->browser = 1;
			else if (w == 0)
				r = config_unknown_dep(ctx, cfg, d, names);
			else if (w - 1 == i) {
				e = textesc_excerpt(d->name, strlen(d->name),
				    CONFIG_EXCERPT_MAX);
				r = config_fail(ctx, d->line, d->col,
				    xprintf("job '%s' depends on itself", e));
				free(e);
			} else
				target[first[i] + k] = w - 1;
		}
	}

	state = xcalloc(cfg->njobs + 1, 1);
	path = xcalloc(cfg->njobs + 1, sizeof *path);
	next = xcalloc(cfg->njobs + 1, sizeof *next);
	for (i = 0; r == 0 && i < cfg->njobs; i++) {
		if (state[i] != 0)
			continue;
		state[i] = 1;
		path[0] = i;
		next[0] = 0;
		sp = 1;
		while (r == 0 && sp > 0) {
			u = path[sp - 1];
			if (next[sp - 1] == cfg->jobs[u].ndeps) {
				state[u] = 2;
				sp--;
				continue;
			}
			k = next[sp - 1]++;
			if (cfg->jobs[u].deps[k].browser)
				continue;
			w = target[first[u] + k];
			if (state[w] == 0) {
				state[w] = 1;
				path[sp] = w;
				next[sp++] = 0;
			} else if (state[w] == 1) {
				for (k = 0; path[k] != w; k++)
					/* nothing */;
				r = config_cycle(ctx, cfg, path + k, sp - 1 - k,
				    &cfg->jobs[u].deps[next[sp - 1] - 1]);
			}
		}
	}
	free(next);
	free(path);
	free(state);
	free(target);
	free(first);
	return r;
}

/* Apply the job array v: one struct config_job per table, in order. */
static int
config_jobs(struct config_ctx *ctx, struct config *cfg,
    const struct toml_value *v)
{
	const struct toml_value	*t;
	struct config_names	 names;
	size_t			 n, i;
	int			 r = 0;

	if (toml_type(v) != TOML_ARRAY)
		return config_fail(ctx, toml_line(v), toml_col(v),
		    xstrdup("job must be an array of tables ([[job]])"));
	n = toml_array_size(v);
	cfg->jobs = xcalloc(n == 0 ? 1 : n, sizeof *cfg->jobs);
	for (names.size = 16; names.size < 2 * n; names.size *= 2)
		/* nothing */;
	names.slot = xcalloc(names.size, sizeof *names.slot);
	for (i = 0; r == 0 && i < n; i++) {
		t = toml_array_get(v, i);
		if (toml_type(t) != TOML_TABLE) {
			r = config_fail(ctx, toml_line(t), toml_col(t),
			    xstrdup("job must be an array of tables "
			    "([[job]])"));
			break;
		}
		config_init("job", &cfg->jobs[i]);
		cfg->jobs[i].line = toml_line(t);
		cfg->njobs = i + 1;
		if (config_section(ctx, "job", "[[job]]", t,
		    &cfg->jobs[i]) != 0 ||
		    config_check_job(ctx, cfg, i, t, v, &names) != 0)
			r = -1;
	}
	if (r == 0)
		r = config_check_stack(ctx, cfg, v, &names);
	free(names.slot);
	return r;
}

/* Report the unknown top-level key (len bytes) whose value is v. */
static int
config_unknown_root(struct config_ctx *ctx, const char *key, size_t len,
    const struct toml_value *v, int line, int col)
{
	const char	*near;
	char		*e, *hint, *msg;
	size_t		 k;
	int		 header;

	near = config_suggest(NULL, key, len);
	if (near != NULL && strcmp(near, "env_file") == 0)
		hint = xstrdup(" (did you mean 'env_file'?)");
	else if (near != NULL)
		hint = xprintf(" (did you mean %s?)", strcmp(near, "keys") == 0 ?
		    "[keys]" : config_section_table(near));
	else
		hint = NULL;
	for (k = 0; hint == NULL && k < CONFIG_NSECTIONS; k++) {
		if (config_lookup(config_sections[k], key, len) != NULL)
			hint = xprintf(" (it belongs in %s)",
			    config_section_table(config_sections[k]));
	}
	if (hint == NULL)
		hint = xstrdup("");

	/* A header's '[' comes before its key; a key = value's value after. */
	header = toml_line(v) < line ||
	    (toml_line(v) == line && toml_col(v) < col);
	e = textesc_excerpt(key, len, CONFIG_EXCERPT_MAX);
	if (header && toml_type(v) == TOML_TABLE)
		msg = xprintf("unknown table [%s]%s", e, hint);
	else if (header && toml_type(v) == TOML_ARRAY)
		msg = xprintf("unknown table [[%s]]%s", e, hint);
	else
		msg = xprintf("unknown key '%s'%s", e, hint);
	if (header) {
		line = toml_line(v);
		col = toml_col(v);
	}
	free(e);
	free(hint);
	return config_fail(ctx, line, col, msg);
}

/*
 * Apply the groups table v: a [groups.NAME] table of the "groups" options
 * for each group, NAME following the rule of job names.
 */
static int
config_groups(struct config_ctx *ctx, struct config *cfg,
    const struct toml_value *v)
{
	struct config_group	*g;
	const struct toml_value	*gv;
	const char		*key;
	char			*e, *msg, *where;
	size_t			 n, i, len;
	int			 r;

	if (toml_type(v) != TOML_TABLE)
		return config_fail(ctx, toml_line(v), toml_col(v),
		    xstrdup("groups must be a table of tables "
		    "([groups.NAME])"));
	n = toml_table_size(v);
	cfg->groups = xcalloc(n == 0 ? 1 : n, sizeof *cfg->groups);
	for (i = 0; i < n; i++) {
		key = toml_table_key(v, i, &len);
		if (strlen(key) != len)
			msg = xstrdup("group names must not contain NUL bytes");
		else if (config_check_group(key, &msg) == 0)
			msg = NULL;
		if (msg != NULL)
			return config_fail(ctx, toml_table_key_line(v, i),
			    toml_table_key_col(v, i), msg);
		e = textesc_excerpt(key, len, CONFIG_EXCERPT_MAX);
		gv = toml_table_value(v, i);
		if (toml_type(gv) != TOML_TABLE) {
			msg = xprintf("groups.%s must be a table "
			    "([groups.%s])", e, e);
			free(e);
			return config_fail(ctx, toml_line(gv), toml_col(gv),
			    msg);
		}
		where = xprintf("[groups.%s]", e);
		free(e);
		g = &cfg->groups[i];
		config_init("groups", g);
		g->name = xstrndup(key, len);
		g->line = toml_line(gv);
		cfg->ngroups = i + 1;
		r = config_section(ctx, "groups", where, gv, g);
		free(where);
		if (r != 0)
			return -1;
	}
	return 0;
}

/*
 * Apply the top-level env_file v, the same option as [settings] env_file
 * (settings, the root's settings value, may set it too: an error at the
 * later of the two).
 */
static int
config_env_file(struct config_ctx *ctx, struct config *cfg,
    const struct toml_value *v, const struct toml_value *settings)
{
	const struct toml_value	*sv = NULL, *later;

	if (settings != NULL && toml_type(settings) == TOML_TABLE)
		sv = toml_table_get(settings, "env_file");
	if (sv != NULL) {
		later = config_before(v, sv) ? sv : v;
		return config_fail(ctx, toml_line(later), toml_col(later),
		    xprintf("env_file is set both at the top level (line %d) "
		    "and in [settings] (line %d): keep one", toml_line(v),
		    toml_line(sv)));
	}
	return config_set(ctx, config_find_option("settings", "env_file"), v,
	    &cfg->settings);
}

/* Return the name of a mode's [keys] table: "[keys]", "[keys.view]". */
static const char *
config_keys_table(enum bind_mode mode)
{
	switch (mode) {
	case BIND_VIEW:
		return "[keys.view]";
	case BIND_COPY:
		return "[keys.copy]";
	case BIND_EDIT:
		return "[keys.edit]";
	default:
		return "[keys]";
	}
}

/*
 * Return the action of mode closest to key (len bytes) by config_near(),
 * or NULL.
 */
static const char *
config_suggest_action(enum bind_mode mode, const char *key, size_t len)
{
	const struct bind_entry	*e;
	const char		*best = NULL;
	size_t			 bestd = CONFIG_SUGGEST_MAX + 1;

	for (e = bind_defaults; e->action != BIND_NONE; e++) {
		if (e->mode == mode && config_near(key, len, e->name, &bestd))
			best = e->name;
	}
	return best;
}

/*
 * Check one key name v of a [keys] value (a string of the array, or one
 * word of a string) with bind_key_parse(); 0, or -1 with ctx's cause at
 * v's position.
 */
static int
config_key_name(struct config_ctx *ctx, const struct toml_value *v,
    const char *name)
{
	char	*msg = NULL;
	int	 key;

	if (bind_key_parse(name, &key, &msg) == 0)
		return 0;
	return config_fail(ctx, toml_line(v), toml_col(v), msg);
}

/*
 * Read the value v of action (len bytes) of mode in [keys] into a new
 * entry of cfg: a string of space-separated key names ("none": unbound),
 * or an array of key names ([]: unbound).
 */
static int
config_key_entry(struct config_ctx *ctx, struct config *cfg,
    enum bind_mode mode, const char *action, size_t len,
    const struct toml_value *v, int kline, int kcol)
{
	struct config_key	*k;
	const struct toml_value	*el;
	const char		*s, *near;
	char			*e, *msg, *copy, *word, *save = NULL;
	char			*keys = NULL, *joined;
	size_t			 slen, i;

	e = textesc_excerpt(action, len, CONFIG_EXCERPT_MAX);
	if (strlen(action) != len || bind_entry_find(mode, action) == NULL) {
		near = strlen(action) == len ?
		    config_suggest_action(mode, action, len) : NULL;
		if (near != NULL)
			msg = xprintf("unknown action '%s' in %s (did you "
			    "mean '%s'?)", e, config_keys_table(mode), near);
		else
			msg = xprintf("unknown action '%s' in %s", e,
			    config_keys_table(mode));
		free(e);
		return config_fail(ctx, kline, kcol, msg);
	}
	if (toml_type(v) == TOML_STRING) {
		s = toml_string(v, &slen);
		if (strlen(s) != slen || slen == 0) {
			msg = xprintf("%s in %s must name keys (\"none\" "
			    "unbinds it)", e, config_keys_table(mode));
			free(e);
			return config_fail(ctx, toml_line(v), toml_col(v), msg);
		}
		if (strcmp(s, "none") != 0) {
			copy = xstrdup(s);
			for (word = strtok_r(copy, " ", &save); word != NULL;
			    word = strtok_r(NULL, " ", &save)) {
				if (config_key_name(ctx, v, word) != 0) {
					free(copy);
					free(e);
					return -1;
				}
			}
			free(copy);
		}
		keys = xstrdup(s);
	} else if (toml_type(v) == TOML_ARRAY) {
		for (i = 0; i < toml_array_size(v); i++) {
			el = toml_array_get(v, i);
			s = toml_string(el, &slen);
			if (toml_type(el) != TOML_STRING ||
			    strlen(s) != slen || strchr(s, ' ') != NULL) {
				free(keys);
				msg = xprintf("%s in %s: each key must be a "
				    "string with one key name", e,
				    config_keys_table(mode));
				free(e);
				return config_fail(ctx, toml_line(el),
				    toml_col(el), msg);
			}
			if (config_key_name(ctx, el, s) != 0) {
				free(keys);
				free(e);
				return -1;
			}
			joined = keys == NULL ? xstrdup(s) :
			    xprintf("%s %s", keys, s);
			free(keys);
			keys = joined;
		}
		if (keys == NULL)
			keys = xstrdup("none");
	} else {
		msg = xprintf("%s in %s must be a key name or an array of "
		    "them", e, config_keys_table(mode));
		free(e);
		return config_fail(ctx, toml_line(v), toml_col(v), msg);
	}
	free(e);
	cfg->keys = xreallocarray(cfg->keys, cfg->nkeys + 1,
	    sizeof *cfg->keys);
	k = &cfg->keys[cfg->nkeys++];
	k->mode = (int)mode;
	k->action = xstrndup(action, len);
	k->keys = keys;
	k->line = toml_line(v);
	k->col = toml_col(v);
	return 0;
}

/*
 * Apply the [keys] table t of mode: actions and their keys, and, in
 * [keys] itself, the tables of the other modes.
 */
static int
config_keys(struct config_ctx *ctx, struct config *cfg, enum bind_mode mode,
    const struct toml_value *t)
{
	const struct toml_value	*v;
	const char		*key;
	enum bind_mode		 sub;
	size_t			 i, len;
	int			 kline, kcol;

	if (toml_type(t) != TOML_TABLE)
		return config_fail(ctx, toml_line(t), toml_col(t),
		    xstrdup("keys must be a table ([keys])"));
	for (i = 0; i < toml_table_size(t); i++) {
		key = toml_table_key(t, i, &len);
		v = toml_table_value(t, i);
		kline = toml_table_key_line(t, i);
		kcol = toml_table_key_col(t, i);
		if (mode == BIND_MAIN && toml_type(v) == TOML_TABLE &&
		    strlen(key) == len && bind_mode_parse(key, &sub) == 0) {
			if (config_keys(ctx, cfg, sub, v) != 0)
				return -1;
			continue;
		}
		if (config_key_entry(ctx, cfg, mode, key, len, v, kline,
		    kcol) != 0)
			return -1;
	}
	return 0;
}

/*
 * Check the bindings as they will be applied: focus_key, then [keys] in
 * file order through bind_set(), which refuses typed text at the prompt
 * and a focus key that is not a character; the focus key must be left
 * with a key at the end.
 */
static int
config_check_keys(struct config_ctx *ctx, const struct config *cfg)
{
	struct bind		*b;
	const struct config_key	*k, *took = NULL;
	char			*msg = NULL;
	size_t			 i;

	b = bind_new();
	if (cfg->settings.focus_key != NULL && bind_set(b, BIND_MAIN,
	    "focus", cfg->settings.focus_key, &msg) != 0)
		fatal("focus_key %s: %s", cfg->settings.focus_key, msg);
	for (i = 0; i < cfg->nkeys; i++) {
		k = &cfg->keys[i];
		if (bind_set(b, (enum bind_mode)k->mode, k->action, k->keys,
		    &msg) != 0) {
			bind_free(b);
			return config_fail(ctx, k->line, k->col, msg);
		}
		if (bind_first_key(b, BIND_MAIN, BIND_FOCUS) == BIND_NO_KEY) {
			if (took == NULL)
				took = k;
		} else
			took = NULL;
	}
	bind_free(b);
	if (took != NULL) {
		msg = xprintf("%s takes the focus key, which must be left "
		    "with one: bind focus to another key too", took->action);
		return config_fail(ctx, took->line, took->col, msg);
	}
	return 0;
}

/* Apply focus_key, then [keys], to b: both were checked at load time. */
void
config_apply_keys(const struct config *cfg, struct bind *b)
{
	size_t	 i;
	char	*cause = NULL;

	if (cfg == NULL)
		return;
	if (cfg->settings.focus_key != NULL && bind_set(b, BIND_MAIN,
	    "focus", cfg->settings.focus_key, &cause) != 0)
		fatal("focus_key: %s", cause);
	for (i = 0; i < cfg->nkeys; i++) {
		if (bind_set(b, (enum bind_mode)cfg->keys[i].mode,
		    cfg->keys[i].action, cfg->keys[i].keys, &cause) != 0)
			fatal("keys: %s: %s", cfg->keys[i].action, cause);
	}
}

/*
 * Check the dependencies on the browser once [browser] is read, wherever
 * it is: it must be configured to start, and it is never completed.
 */
static int
config_check_browser_deps(struct config_ctx *ctx, const struct config *cfg)
{
	const struct config_dep	*d;
	size_t			 i, k;

	for (i = 0; i < cfg->njobs; i++) {
		for (k = 0; k < cfg->jobs[i].ndeps; k++) {
			d = &cfg->jobs[i].deps[k];
			if (!d->browser)
				continue;
			if (cfg->browser.cdp_url == NULL)
				return config_fail(ctx, d->line, d->col,
				    xstrdup("depends_on names the browser, "
				    "but [browser] sets no cdp_url (write "
				    "cdp_url = \"auto\" there)"));
			if (d->cond != CONFIG_COND_STARTED &&
			    d->cond != CONFIG_COND_READY)
				return config_fail(ctx, d->line, d->col,
				    xstrdup("the browser never completes: "
				    "depends_on it with \"started\" or "
				    "\"ready\""));
		}
	}
	return 0;
}

/*
 * Apply the root table: [settings], [[job]], [keys], [groups.NAME],
 * [browser] and env_file only; then check the key bindings (focus_key
 * and [keys] together) and the jobs' templates, which need the settings
 * (the shell), wherever they are.
 */
static int
config_root(struct config_ctx *ctx, struct config *cfg,
    const struct toml_value *root)
{
	const struct toml_value	*v, *jobs;
	const char		*key;
	size_t			 i, len;

	for (i = 0; i < toml_table_size(root); i++) {
		key = toml_table_key(root, i, &len);
		v = toml_table_value(root, i);
		if (len == 8 && memcmp(key, "settings", 8) == 0) {
			if (toml_type(v) != TOML_TABLE)
				return config_fail(ctx, toml_line(v),
				    toml_col(v), xstrdup("settings must be a "
				    "table ([settings])"));
			if (config_section(ctx, "settings", "[settings]", v,
			    &cfg->settings) != 0)
				return -1;
		} else if (len == 3 && memcmp(key, "job", 3) == 0) {
			if (config_jobs(ctx, cfg, v) != 0)
				return -1;
		} else if (len == 4 && memcmp(key, "keys", 4) == 0) {
			if (config_keys(ctx, cfg, BIND_MAIN, v) != 0)
				return -1;
		} else if (len == 6 && memcmp(key, "groups", 6) == 0) {
			if (config_groups(ctx, cfg, v) != 0)
				return -1;
		} else if (len == 8 && memcmp(key, "env_file", 8) == 0) {
			if (config_env_file(ctx, cfg, v,
			    toml_table_get(root, "settings")) != 0)
				return -1;
		} else if (len == 7 && memcmp(key, "browser", 7) == 0) {
			if (toml_type(v) != TOML_TABLE)
				return config_fail(ctx, toml_line(v),
				    toml_col(v), xstrdup("browser must be a "
				    "table ([browser])"));
			cfg->browser.line = toml_line(v);
			if (config_section(ctx, "browser", "[browser]", v,
			    &cfg->browser) != 0)
				return -1;
		} else
			return config_unknown_root(ctx, key, len, v,
			    toml_table_key_line(root, i),
			    toml_table_key_col(root, i));
	}
	if (config_check_keys(ctx, cfg) != 0)
		return -1;
	if (config_check_browser_deps(ctx, cfg) != 0)
		return -1;
	jobs = toml_table_get(root, "job");
	for (i = 0; i < cfg->njobs; i++) {
		if (config_check_templates(ctx, cfg, &cfg->jobs[i],
		    toml_array_get(jobs, i)) != 0)
			return -1;
	}
	return 0;
}

/* Return a config with the defaults of every setting and no jobs. */
struct config *
config_default(void)
{
	struct config	*cfg;

	cfg = xcalloc(1, sizeof *cfg);
	config_init("settings", &cfg->settings);
	config_init("browser", &cfg->browser);
	return cfg;
}

/* Return 1 if step is the key name. */
static int
config_step_is(const struct toml_step *step, const char *name)
{
	return step->key != NULL && step->len == strlen(name) &&
	    memcmp(step->key, name, step->len) == 0;
}

/*
 * Return the option a null error's path (toml.h) was written for, the
 * null being its value: NAME at the top level, [SECTION] NAME,
 * [[job]] NAME or [groups.G] NAME; else NULL.
 */
static const struct config_option *
config_null_option(const struct toml_error *err)
{
	const struct toml_step	*path = err->path, *last;
	size_t			 n = err->npath, k;

	if (n == 0 || path[n - 1].key == NULL)
		return NULL;
	last = &path[n - 1];
	if (n == 1)
		return config_step_is(last, "env_file") ?
		    config_find_option("settings", "env_file") : NULL;
	if (n == 3 && config_step_is(&path[0], "job") && path[1].key == NULL)
		return config_lookup("job", last->key, last->len);
	if (n == 3 && config_step_is(&path[0], "groups") &&
	    path[1].key != NULL)
		return config_lookup("groups", last->key, last->len);
	for (k = 0; n == 2 && k < CONFIG_NSECTIONS; k++) {
		if (strcmp(config_sections[k], "job") != 0 &&
		    strcmp(config_sections[k], "groups") != 0 &&
		    config_step_is(&path[0], config_sections[k]))
			return config_lookup(config_sections[k], last->key,
			    last->len);
	}
	return NULL;
}

/*
 * Report the TOML error err as "NAME:LINE:COL: message"; a null written
 * for an option that takes false says how to write none.
 */
static int
config_toml_error(struct config_ctx *ctx, const struct toml_error *err)
{
	const struct config_option	*o;

	if (err->code == TOML_ERROR_NULL &&
	    (o = config_null_option(err)) != NULL &&
	    o->type == CONFIG_STRING_OR_FALSE)
		return config_fail(ctx, err->line, err->col, xprintf("%s = %s "
		    "is not TOML: leave %s out, or write %s = false, for %s",
		    o->name, err->word, o->name, o->name, o->off));
	return config_fail(ctx, err->line, err->col, xstrdup(err->message));
}

/*
 * Parse the TOML text buf (len bytes) into *out; return 0, or -1 with *out
 * NULL and *cause "NAME:LINE:COL: message".  name is only for messages.
 */
int
config_parse(const char *name, const char *buf, size_t len,
    struct config **out, char **cause)
{
	struct config_ctx	 ctx;
	struct toml_value	*root;
	struct toml_error	 err;
	struct config		*cfg;

	*out = NULL;
	*cause = NULL;
	ctx.name = name == NULL ? "config" : name;
	ctx.cause = cause;
	if (buf == NULL)
		buf = "";
	if ((root = toml_parse_report(buf, len, &err)) == NULL) {
		config_toml_error(&ctx, &err);
		toml_error_clear(&err);
		return -1;
	}
	cfg = config_default();
	if (config_root(&ctx, cfg, root) != 0) {
		toml_free(root);
		config_free(cfg);
		return -1;
	}
	toml_free(root);
	*out = cfg;
	return 0;
}

/*
 * Give a Procfile's jobs their ports as foreman does: port_base, and 100
 * more for each process type before it; none (0) past 65535.
 */
static void
config_procfile_ports(struct config *cfg)
{
	size_t	i;
	long	port;

	for (i = 0; i < cfg->njobs; i++) {
		port = (long)cfg->settings.port_base + 100 * (long)i;
		cfg->jobs[i].port = port <= 65535 ? (int)port : 0;
	}
}

/*
 * Parse the Procfile text buf (len bytes) into *out: one job per line with
 * the line's command as a shell string, its port as foreman gives it,
 * and defaults for the rest.  Return 0, or -1 with *out NULL and *cause
 * "NAME:LINE: message".
 */
int
config_parse_procfile(const char *name, const char *buf, size_t len,
    struct config **out, char **cause)
{
	struct procfile_entry	*ents;
	struct config		*cfg;
	struct config_job	*j;
	struct expand_command	 c;
	struct expand_result	 res;
	char			*pcause = NULL, *msg;
	size_t			 n, i;

	*out = NULL;
	*cause = NULL;
	if (name == NULL)
		name = "Procfile";
	if (procfile_parse(buf, len, &ents, &n, &pcause) != 0) {
		*cause = xprintf("%s:%s", name, pcause == NULL ?
		    "0: cannot parse" : pcause);
		free(pcause);
		return -1;
	}
	cfg = config_default();
	cfg->jobs = xcalloc(n == 0 ? 1 : n, sizeof *cfg->jobs);
	for (i = 0; i < n; i++) {
		j = &cfg->jobs[i];
		config_init("job", j);
		cfg->njobs = i + 1;
		j->line = (int)ents[i].line;
		j->name = xstrdup(ents[i].name);
		j->command = xstrdup(ents[i].command);
		msg = NULL;
		config_job_command(j, NULL, &c);
		if (expand_command(&c, NULL, NULL, NULL, 0, &res, &msg) != 0)
			goto fail;
		expand_result_clear(&res);
	}
	procfile_free(ents, n);
	cfg->procfile = 1;
	config_procfile_ports(cfg);
	*out = cfg;
	return 0;

fail:
	*cause = xprintf("%s:%zu: %s", name, ents[i].line, msg);
	free(msg);
	procfile_free(ents, n);
	config_free(cfg);
	return -1;
}

/* Return 1 if path's last component is Procfile or Procfile.something. */
static int
config_is_procfile(const char *path)
{
	const char	*base;

	base = strrchr(path, '/');
	base = base == NULL ? path : base + 1;
	return strcmp(base, "Procfile") == 0 ||
	    strncmp(base, "Procfile.", 9) == 0;
}

/*
 * Read path into *buf and *len, refusing what others could have written.
 * Return 0, 1 if missing_ok and the file does not exist, or -1 with
 * *cause set.
 */
static int
config_read(const char *path, int missing_ok, char **buf, size_t *len,
    char **cause)
{
	struct stat	 sb, null;
	char		*b = NULL;
	size_t		 n = 0, size = 0;
	ssize_t		 r;
	int		 fd;

	*buf = NULL;
	*len = 0;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) == -1) {
		if (missing_ok && (errno == ENOENT || errno == ENOTDIR))
			return 1;
		*cause = xprintf("cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &sb) != 0) {
		*cause = xprintf("cannot open %s: %s", path, strerror(errno));
		goto fail;
	}
	if (S_ISDIR(sb.st_mode)) {
		*cause = xprintf("cannot read %s: %s", path, strerror(EISDIR));
		goto fail;
	}
	if (S_ISCHR(sb.st_mode) && stat("/dev/null", &null) == 0 &&
	    S_ISCHR(null.st_mode) && null.st_rdev == sb.st_rdev) {
		close(fd);
		*buf = xstrdup("");
		return 0;
	}
	if (!S_ISREG(sb.st_mode) && !S_ISFIFO(sb.st_mode)) {
		*cause = xprintf("%s: not a regular file", path);
		goto fail;
	}
	if (sb.st_uid != getuid() && sb.st_uid != 0) {
		*cause = xprintf("%s: owned by another user (uid %lu); it must "
		    "be yours or root's", path, (unsigned long)sb.st_uid);
		goto fail;
	}
	if (sb.st_mode & (S_IWGRP | S_IWOTH)) {
		*cause = xprintf("%s: writable by %s (mode %04o); chmod go-w "
		    "it", path, (sb.st_mode & S_IWOTH) ? "others" : "group",
		    (unsigned)(sb.st_mode & 07777));
		goto fail;
	}
	if (S_ISREG(sb.st_mode) && sb.st_size > TOML_MAX_INPUT)
		goto too_big;

	for (;;) {
		if (n == size) {
			if (size > TOML_MAX_INPUT)
				goto too_big;
			/* Room for one byte too many, to see it is there. */
			size = size == 0 ? 8192 : size * 2;
			if (size > TOML_MAX_INPUT)
				size = TOML_MAX_INPUT + 1;
			b = xreallocarray(b, size + 1, 1);
		}
		r = read(fd, b + n, size - n);
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1) {
			*cause = xprintf("cannot read %s: %s", path,
			    strerror(errno));
			goto fail;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (n > TOML_MAX_INPUT)
		goto too_big;
	close(fd);
	if (b == NULL)
		b = xmalloc(1);
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;

too_big:
	*cause = xprintf("%s: larger than %d MiB", path,
	    TOML_MAX_INPUT / (1024 * 1024));
fail:
	free(b);
	close(fd);
	return -1;
}

/*
 * Return the default configuration file, $XDG_CONFIG_HOME/jobdeck/
 * config.toml (when that is an absolute path), else $HOME/.config/jobdeck/
 * config.toml, or NULL when neither is set.  The caller frees it.
 */
char *
config_default_path(void)
{
	const char	*dir;

	if ((dir = getenv("XDG_CONFIG_HOME")) != NULL && dir[0] == '/')
		return xprintf("%s/jobdeck/config.toml", dir);
	if ((dir = getenv("HOME")) != NULL && dir[0] != '\0')
		return xprintf("%s/.config/jobdeck/config.toml", dir);
	return NULL;
}

/*
 * Make the .env beside the Procfile cfg came from, when there is one, the
 * settings' env_file, as an absolute path (foreman reads it from there).
 */
static void
config_procfile_env(struct config *cfg)
{
	struct stat	 sb;
	char		*dir, *env;

	if ((dir = config_dir(cfg)) == NULL)
		return;
	env = xprintf("%s/.env", strcmp(dir, "/") == 0 ? "" : dir);
	free(dir);
	if (env[0] != '/' || stat(env, &sb) != 0) {
		free(env);
		return;
	}
	cfg->settings.env_file = xcalloc(2, sizeof *cfg->settings.env_file);
	cfg->settings.env_file[0] = env;
	cfg->settings.nenv_file = 1;
}

/*
 * Load the configuration at path (NULL: the default path, which may be
 * missing), as a Procfile when procfile is set or the file is called
 * Procfile or Procfile.* (with the .env beside it), else as TOML.  Return
 * 0 with *out set, or -1 with *out NULL and *cause set.
 */
int
config_load(const char *path, int procfile, struct config **out,
    char **cause)
{
	char	*def = NULL, *buf;
	size_t	 len;
	int	 r;

	*out = NULL;
	*cause = NULL;
	if (path == NULL) {
		if ((def = config_default_path()) == NULL) {
			*out = config_default();
			return 0;
		}
		path = def;
	}
	r = config_read(path, def != NULL, &buf, &len, cause);
	if (r == 1) {
		free(def);
		*out = config_default();
		return 0;
	}
	if (r == -1) {
		free(def);
		return -1;
	}
	if (procfile || config_is_procfile(path)) {
		r = config_parse_procfile(path, buf, len, out, cause);
		if (r == 0) {
			(*out)->path = xstrdup(path);
			config_procfile_env(*out);
		}
	} else {
		r = config_parse(path, buf, len, out, cause);
		if (r == 0)
			(*out)->path = xstrdup(path);
	}
	free(buf);
	free(def);
	return r;
}

/* Append printf-style text to b. */
static void
buf_printf(struct config_buf *b, const char *fmt, ...)
{
	va_list	ap;
	int	n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (b->len + (size_t)n + 1 > b->size) {
		b->size = (b->len + (size_t)n + 1) * 2;
		b->s = xreallocarray(b->s, b->size, 1);
	}
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, b->size - b->len, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

/* Append the [keys] part of `jobdeck --help-config`: every action. */
static void
config_help_keys(struct config_buf *b)
{
	static const enum bind_mode	 modes[] = { BIND_MAIN, BIND_EDIT,
					     BIND_VIEW, BIND_COPY };
	const struct bind_entry		*e;
	size_t				 i;

	buf_printf(b, "\nKey bindings, a table per mode: ACTION = \"KEY\" or "
	    "[\"KEY\", ...]; \"none\" or []\nunbinds; keys are named as "
	    "C-t, Enter, PageUp, F5, g.  [settings] focus_key is an\n"
	    "alias of focus; [keys] focus wins when both are set.\n");
	for (i = 0; i < sizeof modes / sizeof modes[0]; i++) {
		buf_printf(b, "\n%s\n", config_keys_table(modes[i]));
		for (e = bind_defaults; e->action != BIND_NONE; e++) {
			if (e->mode == modes[i])
				buf_printf(b, "    %-16s  %-18s  %s\n", e->name,
				    e->keys, e->note);
		}
	}
}

/*
 * Return the text of `jobdeck --help-config`: every option, by section, in
 * columns of name, type (with bounds or choices), default and help, what
 * the columns cannot say, and the key bindings.
 */
char *
config_help_text(void)
{
	const struct config_option	*o;
	struct config_buf		 b = { NULL, 0, 0 };
	char				**type, **def;
	size_t				 i, k, wname = 0, wtype = 0, wdef = 0;

	type = xcalloc(config_noptions, sizeof *type);
	def = xcalloc(config_noptions, sizeof *def);
	for (i = 0; i < config_noptions; i++) {
		o = &config_options[i];
		if (o->type == CONFIG_INT || o->type == CONFIG_NUMBER)
			type[i] = xprintf("%s %.15g..%.15g",
			    config_type_name(o->type), o->min, o->max);
		else if (o->type == CONFIG_ENUM)
			type[i] = xstrdup(o->choices);
		else
			type[i] = xstrdup(config_type_name(o->type));
		if (o->flags & CONFIG_REQUIRED)
			def[i] = xstrdup("required");
		else
			def[i] = xstrdup(o->def == NULL ? "-" : o->def);
		if (strlen(o->name) > wname)
			wname = strlen(o->name);
		if (strlen(type[i]) > wtype)
			wtype = strlen(type[i]);
		if (strlen(def[i]) > wdef)
			wdef = strlen(def[i]);
	}
	buf_printf(&b, "jobdeck configuration options (TOML):\n");
	for (k = 0; k < CONFIG_NSECTIONS; k++) {
		buf_printf(&b, "\n%s\n", config_section_table(
		    config_sections[k]));
		for (i = 0; i < config_noptions; i++) {
			o = &config_options[i];
			if (strcmp(o->section, config_sections[k]) != 0)
				continue;
			buf_printf(&b, "  %-*s  %-*s  %-*s  %s\n", (int)wname,
			    o->name, (int)wtype, type[i], (int)wdef, def[i],
			    o->help);
		}
	}
	buf_printf(&b, "\nenv_file may also be written at the top level, "
	    "before any table: the same\noption as [settings] env_file "
	    "(setting both is an error).  A job's group\nneeds no "
	    "[groups.NAME] table: it has no limit then.  depends_on names "
	    "jobs\nof the file (a job with replicas stands for all of "
	    "them), or browser, the\n[browser] (\"started\" or \"ready\": "
	    "CDP Ready), when no job has that name;\n\"ready\" waits for "
	    "the readiness probe, and a job with none is ready once\n"
	    "started.  At most one ready_* and one liveness_* probe a job."
	    "\n[browser] cdp_url = false, or no cdp_url, starts no browser "
	    "(TOML has no\nnull); browser_image, browser_command and "
	    "browser_args are for \"auto\" and\nfor !browser start.\n");
	config_help_keys(&b);
	for (i = 0; i < config_noptions; i++) {
		free(type[i]);
		free(def[i]);
	}
	free(type);
	free(def);
	return b.s;
}

/* Return the job called name in cfg, or NULL. */
const struct config_job *
config_find_job(const struct config *cfg, const char *name)
{
	size_t	i;

	if (cfg == NULL || name == NULL)
		return NULL;
	for (i = 0; i < cfg->njobs; i++) {
		if (cfg->jobs[i].name != NULL &&
		    strcmp(cfg->jobs[i].name, name) == 0)
			return &cfg->jobs[i];
	}
	return NULL;
}

/* Free cfg and everything in it; NULL is allowed. */
void
config_free(struct config *cfg)
{
	size_t	i;

	if (cfg == NULL)
		return;
	for (i = 0; i < cfg->njobs; i++)
		config_clear("job", &cfg->jobs[i]);
	free(cfg->jobs);
	for (i = 0; i < cfg->nkeys; i++) {
		free(cfg->keys[i].action);
		free(cfg->keys[i].keys);
	}
	free(cfg->keys);
	for (i = 0; i < cfg->ngroups; i++) {
		config_clear("groups", &cfg->groups[i]);
		free(cfg->groups[i].name);
	}
	free(cfg->groups);
	config_clear("settings", &cfg->settings);
	config_clear("browser", &cfg->browser);
	free(cfg->path);
	free(cfg);
}

/*
 * Make base a Procfile's first $PORT (--port-base): the settings' and,
 * when cfg came from a Procfile, its jobs' ports as foreman gives them.
 */
void
config_set_port_base(struct config *cfg, int base)
{
	cfg->settings.port_base = base;
	if (cfg->procfile)
		config_procfile_ports(cfg);
}

/*
 * Fill lim with the output store's limits the settings give (the store's
 * defaults when cfg is NULL).
 */
void
config_store_limits(const struct config *cfg, struct store_limits *lim)
{
	store_default_limits(lim);
	if (cfg == NULL)
		return;
	lim->max_run_bytes = (int64_t)cfg->settings.max_log_size << 20;
	lim->keep_runs = cfg->settings.keep_history;
	lim->keep_age_ms = (int64_t)cfg->settings.keep_history_days * 24 *
	    60 * 60 * 1000;
	lim->max_total_bytes = (int64_t)cfg->settings.max_state_size << 20;
}

/*
 * Return the absolute directory of the file cfg came from, which relative
 * env_file and watch paths are taken from (allocated), or NULL when it
 * came from no file.
 */
char *
config_dir(const struct config *cfg)
{
	const char	*slash;
	char		*dir, *abs;

	if (cfg == NULL || cfg->path == NULL)
		return NULL;
	if ((slash = strrchr(cfg->path, '/')) == NULL)
		dir = xstrdup(".");
	else if (slash == cfg->path)
		dir = xstrdup("/");
	else
		dir = xstrndup(cfg->path, (size_t)(slash - cfg->path));
	if ((abs = realpath(dir, NULL)) == NULL)
		return dir;
	free(dir);
	return abs;
}

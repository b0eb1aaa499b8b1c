/*
 * config.c: the option table, and setting a struct config's values from
 * it (config-private.h says which part of the configuration owns what).
 *
 * config_options[] is the schema, after tmux's options-table.c: one row
 * per option with its section, type, default (as TOML text), bounds and
 * help, plus where the value is stored.  Defaults, validation, freeing,
 * `jobdeck --help-config` and (through a test) the man page all read it;
 * nothing else names an option, except that command, args and input are
 * checked together (found by their offsets, config-stack.c), since args
 * decides whether command is a shell string.
 *
 * Any key not in the table is an error, with a suggestion when a known
 * name is at most two edits away (Damerau-Levenshtein, optimal string
 * alignment) and at most one edit per three letters of the longer of the
 * two ("foo" is not "job" misspelt, "dbb" is "db"), or with the section it
 * belongs in when it is an option of another one.  Types are strict: an
 * integer option takes a TOML integer, or a float with no fraction (5.0);
 * a number option takes either; NaN and infinities are never in bounds.
 * Strings may not hold NUL bytes.  Job names follow name_check_job() and
 * env names name_check_env() (include/name.h); ready_log is an ERE
 * rxbound_compile() takes, *_tcp is host:port, *_http an http(s):// URL
 * and stop_signal a signal waitstatus_parse_signal() reads; a job's host
 * and [hosts.NAME] ssh follow config_check_host() (config-stack.c, once
 * every [hosts] table is read).  Errors point
 * at the value for a bad value and at the key for an unknown key; names
 * quoted in messages are cut to 32 bytes with control characters shown as
 * '?'.
 */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "config-private.h"
#include "cron.h"
#include "duration.h"
#include "expand.h"
#include "hostport.h"
#include "name.h"
#include "rxbound.h"
#include "store.h"
#include "textesc.h"
#include "waitstatus.h"
#include "xmalloc.h"

#define SET(f)	offsetof(struct config_settings, f)
#define GRP(f)	offsetof(struct config_group, f)
#define HST(f)	offsetof(struct config_host, f)
#define BRW(f)	offsetof(struct config_browser, f)

/* An enum option is stored as an int, the index of its choice. */
_Static_assert(sizeof (enum config_restart) == sizeof (int),
    "enum options are stored as int");
_Static_assert(sizeof (enum config_overlap) == sizeof (int),
    "enum options are stored as int");

/* The sections of config_options[], in the order help lists them. */
const char *const config_sections[] = { "settings", "job", "groups",
    "hosts", "browser" };
const size_t config_nsections = sizeof config_sections /
    sizeof config_sections[0];

static int	 config_check_key(const char *, char **);
static int	 config_check_param(const char *, char **);
static int	 config_check_regex(const char *, char **);
static int	 config_check_ssh(const char *, char **);
static int	 config_check_signal(const char *, char **);
static int	 config_check_ready_tcp(const char *, char **);
static int	 config_check_ready_http(const char *, char **);
static int	 config_check_liveness_tcp(const char *, char **);
static int	 config_check_liveness_http(const char *, char **);
static int	 config_check_cdp_url(const char *, char **);
static int	 config_check_image(const char *, char **);
static int	 config_check_schedule(const char *, char **);
static int	 config_check_every(const char *, char **);
static size_t	 config_distance(const char *, size_t, const char *);
static char	*config_type_error(const struct config_option *);
static void	 config_set_default(const struct config_option *, void *);
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
static int	 config_set_dep_table(struct config_ctx *,
		     const struct config_option *, const struct toml_value *,
		     int *, int *);
static int	 config_set_deps(struct config_ctx *,
		     const struct config_option *, const struct toml_value *,
		     void *);

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
	{ .section = "settings", .name = "on_last_detach", .type = CONFIG_ENUM,
	  .def = "\"keep\"", .choices = "keep|quit",
	  .help = "the last terminal detached: keep the deck running, or quit",
	  .offset = SET(on_last_detach) },
	{ .section = "settings", .name = "reload", .type = CONFIG_ENUM,
	  .def = "\"manual\"", .choices = "manual|auto",
	  .help = "auto: reload once the config, Procfile or .env changed",
	  .offset = SET(reload) },
	{ .section = "settings", .name = "pty_size", .type = CONFIG_ENUM,
	  .def = "\"latest\"", .choices = "latest|smallest|largest",
	  .help = "jobs' terminal size: latest client's pane, smallest, largest",
	  .offset = SET(pty_size) },
	{ .section = "settings", .name = "ssh_command", .type = CONFIG_STRING,
	  .help = "ssh and its options, for hosts; $JOBDECK_SSH_COMMAND wins",
	  .flags = CONFIG_NONEMPTY, .offset = SET(ssh_command) },

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
	{ .section = "job", .name = "host", .type = CONFIG_STRING,
	  .help = "where it runs: a [hosts.NAME] or an ssh destination; "
	  "unset: here",
	  .flags = CONFIG_NONEMPTY, .offset = JOB(host) },
	{ .section = "job", .name = "env", .type = CONFIG_STRING_TABLE,
	  .help = "environment variables set for the job, in file order",
	  .flags = CONFIG_TEMPLATE, .offset = JOB(env), .count = JOB(nenv),
	  .check = name_check_env },
	{ .section = "job", .name = "inherit_env", .type = CONFIG_BOOL,
	  .def = "true",
	  .help = "start from jobdeck's environment; false: from env alone",
	  .offset = JOB(inherit_env) },
	{ .section = "job", .name = "timeout", .type = CONFIG_NUMBER,
	  .def = "0", .min = 0, .max = CONFIG_MAX_SECONDS,
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
	  .def = "1", .min = 1, .max = CONFIG_MAX_REPLICAS,
	  .help = "copies to run, named NAME.1 to NAME.N (PORT +1 each)",
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
	{ .section = "job", .name = "schedule", .type = CONFIG_STRING,
	  .help = "start on a cron timetable in local time: \"*/5 * * * *\", "
	  "\"@daily\"",
	  .flags = CONFIG_NONEMPTY, .offset = JOB(schedule),
	  .check = config_check_schedule },
	{ .section = "job", .name = "every", .type = CONFIG_STRING,
	  .help = "start every so long from the deck's start: \"30s\", "
	  "\"5m\", \"1h30m\"",
	  .flags = CONFIG_NONEMPTY, .offset = JOB(every),
	  .check = config_check_every },
	{ .section = "job", .name = "overlap", .type = CONFIG_ENUM,
	  .def = "\"skip\"", .choices = "skip|queue|restart",
	  .help = "when due while the last run goes on: skip, queue one, "
	  "restart it",
	  .offset = JOB(overlap) },

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

	{ .section = "hosts", .name = "ssh", .type = CONFIG_STRING,
	  .help = "ssh destination: [user@]host or a ~/.ssh/config alias",
	  .flags = CONFIG_NONEMPTY, .offset = HST(ssh),
	  .check = config_check_ssh },
	{ .section = "hosts", .name = "slurm", .type = CONFIG_STRING_ARRAY,
	  .help = "srun options of a Slurm host (not with ssh)",
	  .offset = HST(slurm), .count = HST(nslurm) },

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

/*
 * Check the name s of a what ("group", "host"), a table's NAME: a job
 * name's rule.
 */
static int
config_check_like_job(const char *what, const char *s, char **cause)
{
	char	*e;

	if (name_check_job(s, cause) == 0)
		return 0;
	free(*cause);
	e = textesc_excerpt(s, strlen(s), CONFIG_EXCERPT_MAX);
	*cause = xprintf("%s name '%s' must be like a job name: letters, "
	    "digits, '_', '.' and '-', not only digits", what, e);
	free(e);
	return -1;
}

/* Check a group's name ([groups.NAME], group =): a job name's rule. */
int
config_check_group(const char *s, char **cause)
{
	return config_check_like_job("group", s, cause);
}

/* Check a host's name ([hosts.NAME]): a job name's rule. */
int
config_check_host_name(const char *s, char **cause)
{
	return config_check_like_job("host", s, cause);
}

/* Check [hosts.NAME] ssh: config_ssh_destination()'s rule. */
static int
config_check_ssh(const char *s, char **cause)
{
	char	*e;

	if (config_ssh_destination(s))
		return 0;
	e = textesc_excerpt(s, strlen(s), CONFIG_EXCERPT_MAX);
	*cause = xprintf("ssh \"%s\" is not an ssh destination ([user@]host, "
	    "no blanks, no '-' first)", e);
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
int
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

/* Check a schedule: a cron expression or macro (cron.h). */
static int
config_check_schedule(const char *s, char **cause)
{
	struct cron	*c;

	if ((c = cron_parse(s, cause)) == NULL)
		return -1;
	cron_free(c);
	return 0;
}

/* Check an every: a duration (duration.h) of at least CONFIG_MIN_EVERY. */
static int
config_check_every(const char *s, char **cause)
{
	double	secs;

	if (duration_parse("every", s, CONFIG_MAX_SECONDS, &secs, cause) != 0)
		return -1;
	if (secs >= CONFIG_MIN_EVERY)
		return 0;
	*cause = xprintf("every must be at least %.0fms", CONFIG_MIN_EVERY *
	    1000);
	return -1;
}

/* Set *cause to "NAME:LINE:COL: msg", free msg and return -1. */
int
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
const struct config_option *
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
int
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
const char *
config_suggest(const char *section, const char *key, size_t len)
{
	static const char	*top[] = { "settings", "job", "keys", "groups",
				     "hosts", "browser", "env_file" };
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
		config_buf_printf(&b, "%s must be one of ", o->name);
		for (p = o->choices; p != NULL; p = bar == NULL ? NULL :
		    bar + 1) {
			bar = strchr(p, '|');
			config_buf_printf(&b, "%s\"%.*s\"", p == o->choices ?
			    "" : ", ", bar == NULL ? (int)strlen(p) :
			    (int)(bar - p), p);
		}
		return b.s;
	case CONFIG_STRING_ARRAY:
		return xprintf("%s must be an array of strings", o->name);
	case CONFIG_STRING_TABLE:
		return xprintf("%s must be a table of strings", o->name);
	case CONFIG_DEPS:
		config_buf_printf(&b, "%s must be a table of job names to ",
		    o->name);
		for (p = o->choices; p != NULL; p = bar == NULL ? NULL :
		    bar + 1) {
			bar = strchr(p, '|');
			config_buf_printf(&b, "%s\"%.*s\"", p == o->choices ?
			    "" : bar == NULL ? " or " : ", ", bar == NULL ?
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
void
config_init(const char *section, void *base)
{
	size_t	i;

	if (strcmp(section, "settings") == 0)
		memset(base, 0, sizeof (struct config_settings));
	else if (strcmp(section, "groups") == 0)
		memset(base, 0, sizeof (struct config_group));
	else if (strcmp(section, "hosts") == 0)
		memset(base, 0, sizeof (struct config_host));
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
 * Read one dependency written as a table, { condition = "ready", restart
 * = true }: its condition (required) and whether a reload that restarts
 * the job depended on restarts this one after it (as docker compose's
 * depends_on restart).
 */
static int
config_set_dep_table(struct config_ctx *ctx, const struct config_option *o,
    const struct toml_value *tv, int *cond, int *restart)
{
	const struct toml_value	*c, *r;
	const char		*key;
	size_t			 i, len;

	for (i = 0; i < toml_table_size(tv); i++) {
		key = toml_table_key(tv, i, &len);
		if (strcmp(key, "condition") != 0 && strcmp(key, "restart") != 0)
			return config_fail(ctx, toml_table_key_line(tv, i),
			    toml_table_key_col(tv, i), xprintf("%s: unknown "
			    "key '%.*s' in a dependency (condition, restart)",
			    o->name, CONFIG_EXCERPT_MAX, key));
	}
	if ((c = toml_table_get(tv, "condition")) == NULL)
		return config_fail(ctx, toml_line(tv), toml_col(tv),
		    xprintf("%s: a dependency written as a table needs "
		    "condition = \"%s\"", o->name, "started"));
	if (config_set_enum(ctx, o, c, cond) != 0)
		return -1;
	*restart = 0;
	if ((r = toml_table_get(tv, "restart")) != NULL) {
		if (toml_type(r) != TOML_BOOL)
			return config_fail(ctx, toml_line(r), toml_col(r),
			    xprintf("%s: restart must be true or false",
			    o->name));
		*restart = toml_bool(r);
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
		if (toml_type(tv) == TOML_TABLE) {
			if (config_set_dep_table(ctx, o, tv, &cond,
			    &dp[i].restart) != 0)
				return -1;
		} else if (config_set_enum(ctx, o, tv, &cond) != 0)
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
int
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
const char *
config_section_table(const char *section)
{
	if (strcmp(section, "job") == 0)
		return "[[job]]";
	if (strcmp(section, "groups") == 0)
		return "[groups.NAME]";
	if (strcmp(section, "hosts") == 0)
		return "[hosts.NAME]";
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
int
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
		for (k = 0; other == NULL && k < config_nsections; k++) {
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

/* Append printf-style text to b. */
void
config_buf_printf(struct config_buf *b, const char *fmt, ...)
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

/*
 * Return the name of replica r (1..N) of the job called name: "NAME.r",
 * as foreman names a formation's processes (allocated).
 */
char *
config_replica_name(const char *name, int r)
{
	return xprintf("%s.%d", name, r);
}

/*
 * Split name as config_replica_name() builds it: return the replica
 * number (1 or more) and the job's name in *base (allocated), or 0 when
 * name is no replica's name (*base NULL).
 */
int
config_replica_parse(const char *name, char **base)
{
	const char	*dot;
	char		*end;
	long		 r;

	*base = NULL;
	if ((dot = strrchr(name, '.')) == NULL || dot == name ||
	    dot[1] < '1' || dot[1] > '9')
		return 0;
	r = strtol(dot + 1, &end, 10);
	if (*end != '\0' || r > CONFIG_MAX_REPLICAS)
		return 0;
	*base = xstrndup(name, (size_t)(dot - name));
	return (int)r;
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
	for (i = 0; i < cfg->nhosts; i++) {
		config_clear("hosts", &cfg->hosts[i]);
		free(cfg->hosts[i].name);
	}
	free(cfg->hosts);
	config_clear("settings", &cfg->settings);
	config_clear("browser", &cfg->browser);
	free(cfg->path);
	free(cfg);
}

/* Free what one configured job holds (not the struct itself). */
void
config_clear_job(struct config_job *cj)
{
	config_clear("job", cj);
}

/* Free job j (config_parse_job()'s) and everything in it; NULL is allowed. */
void
config_job_free(struct config_job *j)
{
	if (j == NULL)
		return;
	config_clear_job(j);
	free(j);
}

/*
 * Give a Procfile's jobs their ports as foreman does: port_base, and 100
 * more for each process type before it; none (0) past 65535.
 */
void
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

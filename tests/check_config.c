/*
 * check_config.c: tests for the configuration: every option valid and
 * invalid with its exact message and position, suggestions, duplicate
 * names, Procfiles, loading (default paths, missing files, permissions,
 * sizes, 100,000 jobs), defaults from the table, the help text, the
 * example file and the man page against the table; and launch_new(), the
 * configured job turned into what runs: hostile {name} values through
 * real shells, and templated env values; one job's text written and read
 * back (config_job_toml(), config_parse_job()).  Run from the top of the
 * tree.
 */
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <check.h>
#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bind.h"
#include "config.h"
#include "store.h"
#include "expand.h"
#include "job.h"
#include "launch.h"
#include "procfile.h"
#include "session.h"
#include "xmalloc.h"

/* A job with what it needs, for cases about one more key (lines 1-3). */
#define JOB	"[[job]]\nname = \"web\"\ncommand = \"run\"\n"

/* The temporary directory of the file tests. */
static char	tmp[PATH_MAX];

/* A growing string for the dumps. */
struct dump {
	char	buf[4096];
	size_t	len;
};

/* Append printf-style text to d. */
static void __attribute__((format(printf, 2, 3)))
dump_add(struct dump *d, const char *fmt, ...)
{
	va_list	ap;
	int	n;

	va_start(ap, fmt);
	n = vsnprintf(d->buf + d->len, sizeof d->buf - d->len, fmt, ap);
	va_end(ap);
	ck_assert_int_ge(n, 0);
	ck_assert_uint_lt(d->len + (size_t)n, sizeof d->buf);
	d->len += (size_t)n;
}

/* Return s, or "(null)". */
static const char *
str(const char *s)
{
	return s == NULL ? "(null)" : s;
}

/* Write the strings arr[0..n) into d as "[a,b]", NULL-terminated. */
static void
dump_strings(struct dump *d, char **arr, size_t n)
{
	size_t	i;

	dump_add(d, "[");
	for (i = 0; i < n; i++)
		dump_add(d, "%s%s", i == 0 ? "" : ",", arr[i]);
	dump_add(d, "]");
	if (arr != NULL)
		ck_assert_ptr_null(arr[n]);
}

/*
 * Write the settings of cfg into d as " key=value ... ", field by field
 * (not through the table, so the table's offsets are checked too).
 */
static void
dump_settings(struct dump *d, const struct config *cfg)
{
	const struct config_settings	*s = &cfg->settings;

	dump_add(d, " shell=%s scrollback=%d kill_timeout=%g log_dir=%s "
	    "focus_key=%s max_running=%d keep_finished=%d ", str(s->shell),
	    s->scrollback, s->kill_timeout, str(s->log_dir), str(s->focus_key),
	    s->max_running, s->keep_finished);
	dump_add(d, "env_file=");
	dump_strings(d, s->env_file, s->nenv_file);
	dump_add(d, " port_base=%d ssh_command=%s ", s->port_base,
	    str(s->ssh_command));
}

/* Write probe p into d as " name=log|cmd|tcp|http,interval,...". */
static void
dump_probe(struct dump *d, const char *name, const struct config_probe *p)
{
	dump_add(d, " %s=%s|%s|%s|%s,%g,%g,%g,%d", name, str(p->log),
	    str(p->cmd), str(p->tcp), str(p->http), p->interval, p->timeout,
	    p->initial_delay, p->retries);
}

/* Write the stack options of job j into d as " key=value ... ". */
static void
dump_stack(struct dump *d, const struct config_job *j)
{
	size_t	i;

	dump_add(d, " deps=[");
	for (i = 0; i < j->ndeps; i++)
		dump_add(d, "%s%s%s:%d%s@%d:%d", i == 0 ? "" : ",",
		    j->deps[i].name, j->deps[i].browser ? "(the browser)" : "",
		    (int)j->deps[i].cond, j->deps[i].restart ? "+restart" : "",
		    j->deps[i].line, j->deps[i].col);
	dump_add(d, "]");
	dump_probe(d, "ready", &j->ready);
	dump_probe(d, "liveness", &j->liveness);
	dump_add(d, " env_file=");
	dump_strings(d, j->env_file, j->nenv_file);
	dump_add(d, " port=%d stop_signal=%s stop_command=%s stop_timeout=%g "
	    "start_delay=%g restart_delay_max=%g replicas=%d group=%s "
	    "priority=%d watch=", j->port, str(j->stop_signal),
	    str(j->stop_command), j->stop_timeout, j->start_delay,
	    j->restart_delay_max, j->replicas, str(j->group), j->priority);
	dump_strings(d, j->watch, j->nwatch);
	dump_add(d, " watch_ignore=");
	dump_strings(d, j->watch_ignore, j->nwatch_ignore);
	dump_add(d, " watch_debounce=%g ", j->watch_debounce);
	dump_add(d, "schedule=%s every=%s overlap=%d ", str(j->schedule),
	    str(j->every), (int)j->overlap);
	dump_add(d, "host=%s ", str(j->host));
}

/* Write the groups of cfg into d as " groups=[name:max_running@line] ". */
static void
dump_groups(struct dump *d, const struct config *cfg)
{
	size_t	i;

	dump_add(d, " groups=[");
	for (i = 0; i < cfg->ngroups; i++)
		dump_add(d, "%s%s:%d@%d", i == 0 ? "" : ",",
		    cfg->groups[i].name, cfg->groups[i].max_running,
		    cfg->groups[i].line);
	dump_add(d, "] ");
}

/* Write the hosts of cfg into d as " hosts=[name:ssh:slurm@line] ". */
static void
dump_hosts(struct dump *d, const struct config *cfg)
{
	size_t	i;

	dump_add(d, " hosts=[");
	for (i = 0; i < cfg->nhosts; i++) {
		dump_add(d, "%s%s:%s:", i == 0 ? "" : ",", cfg->hosts[i].name,
		    str(cfg->hosts[i].ssh));
		if (cfg->hosts[i].slurm == NULL)
			dump_add(d, "(null)");
		else
			dump_strings(d, cfg->hosts[i].slurm,
			    cfg->hosts[i].nslurm);
		dump_add(d, "@%d", cfg->hosts[i].line);
	}
	dump_add(d, "] ");
}

/*
 * Write [browser] of cfg into d as " cdp_url=... image=... ", field by
 * field.
 */
static void
dump_browser(struct dump *d, const struct config *cfg)
{
	const struct config_browser	*b = &cfg->browser;

	dump_add(d, " cdp_url=%s image=%s command=%s args=", str(b->cdp_url),
	    str(b->image), str(b->command));
	dump_strings(d, b->args, b->nargs);
	dump_add(d, " timeout=%g line=%d ", b->timeout, b->line);
}

/* Write job j into d as " key=value ... ". */
static void
dump_job(struct dump *d, const struct config_job *j)
{
	size_t	i;

	dump_add(d, " name=%s command=%s args=", str(j->name),
	    str(j->command));
	if (j->args == NULL)
		dump_add(d, "(null)");
	else {
		dump_add(d, "[");
		for (i = 0; i < j->nargs; i++)
			dump_add(d, "%s%s", i == 0 ? "" : ",", j->args[i]);
		dump_add(d, "]");
		ck_assert_ptr_null(j->args[j->nargs]);
	}
	dump_add(d, " cwd=%s env=[", str(j->cwd));
	for (i = 0; i < j->nenv; i++)
		dump_add(d, "%s%s", i == 0 ? "" : ",", j->env[i]);
	if (j->env != NULL)
		ck_assert_ptr_null(j->env[j->nenv]);
	dump_add(d, "] inherit_env=%d timeout=%g input=%s autostart=%d "
	    "restart=%d restart_delay=%g max_restarts=%d pty=%d params=[",
	    j->inherit_env, j->timeout, str(j->input), j->autostart,
	    (int)j->restart, j->restart_delay, j->max_restarts, j->pty);
	for (i = 0; i < j->nparams; i++)
		dump_add(d, "%s%s:%s", i == 0 ? "" : ",", j->params[i].key,
		    j->params[i].value);
	if (j->params != NULL)
		ck_assert_ptr_null(j->params[j->nparams].key);
	dump_add(d, "] line=%d ", j->line);
}

/* Parse text, failing the test with the message on error. */
static struct config *
parse_ok(const char *text)
{
	struct config	*cfg;
	char		*cause = NULL;

	if (config_parse("config.toml", text, strlen(text), &cfg,
	    &cause) != 0)
		ck_abort_msg("parse failed: %s\n--- text:\n%s", cause, text);
	ck_assert_ptr_null(cause);
	ck_assert_ptr_nonnull(cfg);
	return cfg;
}

/* Read the whole file path into an allocated string, *len its length. */
static char *
slurp(const char *path, size_t *len)
{
	FILE	*f;
	char	*buf;
	long	 n;

	f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	ck_assert_int_ge(n, 0);
	rewind(f);
	buf = malloc((size_t)n + 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	if (len != NULL)
		*len = (size_t)n;
	return buf;
}

/* Write text to tmp/name with mode, and return the path (static). */
static const char *
put(const char *name, const char *text, mode_t mode)
{
	static char	path[PATH_MAX * 2];
	int		fd;

	snprintf(path, sizeof path, "%s/%s", tmp, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	ck_assert_int_eq(fchmod(fd, mode), 0);
	close(fd);
	return path;
}

/* Make the temporary directory. */
static void
setup(void)
{
	char	tmpl[] = "/tmp/check_config.XXXXXX";

	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	ck_assert_ptr_nonnull(realpath(tmpl, tmp));
}

/* Remove it. */
static void
teardown(void)
{
	char	cmd[PATH_MAX + 32];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
	if (system(cmd) != 0)
		fprintf(stderr, "cleanup of %s failed\n", tmp);
}

/* Configurations that must be refused, with their exact message. */
static const struct {
	const char	*text;
	const char	*want;
} bad[] = {
	/* The TOML parser's own errors, with the file name in front. */
	{ "[settings]\nshell \"x\"",
	  "config.toml:2:7: expected '=' after key" },
	{ "a = ",
	  "config.toml:1:5: expected a value" },

	/* The top level. */
	{ "[setings]\n",
	  "config.toml:1:1: unknown table [setings] (did you mean "
	  "[settings]?)" },
	{ "[[jobs]]\nname = \"x\"",
	  "config.toml:1:1: unknown table [[jobs]] (did you mean [[job]]?)" },
	{ "[foo]\n",
	  "config.toml:1:1: unknown table [foo]" },
	{ "title = \"x\"",
	  "config.toml:1:1: unknown key 'title'" },
	{ "\n\nsetings.shell = \"x\"",
	  "config.toml:3:1: unknown key 'setings' (did you mean "
	  "[settings]?)" },
	{ "shell = \"/bin/sh\"",
	  "config.toml:1:1: unknown key 'shell' (it belongs in [settings])" },
	{ "command = \"x\"",
	  "config.toml:1:1: unknown key 'command' (it belongs in [[job]])" },
	{ "settings = 5",
	  "config.toml:1:12: settings must be a table ([settings])" },
	{ "[[settings]]\n",
	  "config.toml:1:1: settings must be a table ([settings])" },
	{ "[job]\nname = \"x\"",
	  "config.toml:1:1: job must be an array of tables ([[job]])" },
	{ "job = [1]",
	  "config.toml:1:8: job must be an array of tables ([[job]])" },

	/* [settings], option by option. */
	{ "[settings]\nshell = 1",
	  "config.toml:2:9: shell must be a string" },
	{ "[settings]\nshell = \"\"",
	  "config.toml:2:9: shell must not be empty" },
	/* 0 would be the emulator's default, not none: refused. */
	{ "[settings]\nscrollback = -2",
	  "config.toml:2:14: scrollback must be an integer between 0 and "
	  "1000000" },
	{ "[settings]\nscrollback = -1",
	  "config.toml:2:14: scrollback must be an integer between 0 and "
	  "1000000" },
	{ "[settings]\nscrollback = 1000001",
	  "config.toml:2:14: scrollback must be an integer between 0 and "
	  "1000000" },
	{ "[settings]\nscrollback = 1.5",
	  "config.toml:2:14: scrollback must be an integer between 0 and "
	  "1000000" },
	{ "[settings]\nscrollback = \"10\"",
	  "config.toml:2:14: scrollback must be an integer between 0 and "
	  "1000000" },
	{ "[settings]\nscrollback = 9223372036854775807",
	  "config.toml:2:14: scrollback must be an integer between 0 and "
	  "1000000" },
	{ "[settings]\nkill_timeout = 3600.5",
	  "config.toml:2:16: kill_timeout must be a number between 0 and "
	  "3600" },
	{ "[settings]\nkill_timeout = true",
	  "config.toml:2:16: kill_timeout must be a number between 0 and "
	  "3600" },
	{ "[settings]\nkill_timeout = nan",
	  "config.toml:2:16: kill_timeout must be a number between 0 and "
	  "3600" },
	{ "[settings]\nkill_timeout = -inf",
	  "config.toml:2:16: kill_timeout must be a number between 0 and "
	  "3600" },
	{ "[settings]\nlog_dir = []",
	  "config.toml:2:11: log_dir must be a string" },
	{ "[settings]\nfocus_key = \"C-m\"",
	  "config.toml:2:13: focus_key must be C-a to C-z, except C-i, C-j "
	  "and C-m" },
	{ "[settings]\nfocus_key = \"C-i\"",
	  "config.toml:2:13: focus_key must be C-a to C-z, except C-i, C-j "
	  "and C-m" },
	{ "[settings]\nfocus_key = \"C-tt\"",
	  "config.toml:2:13: focus_key must be C-a to C-z, except C-i, C-j "
	  "and C-m" },
	{ "[settings]\nfocus_key = \"M-t\"",
	  "config.toml:2:13: focus_key must be C-a to C-z, except C-i, C-j "
	  "and C-m" },
	{ "[settings]\nfocus_key = 20",
	  "config.toml:2:13: focus_key must be a string" },
	{ "[settings]\nmax_running = 10001",
	  "config.toml:2:15: max_running must be an integer between 0 and "
	  "10000" },
	{ "[settings]\nkeep_finished = -5",
	  "config.toml:2:17: keep_finished must be an integer between 0 and "
	  "10000" },
	{ "[settings]\nscrolback = 5",
	  "config.toml:2:1: unknown key 'scrolback' in [settings] (did you "
	  "mean 'scrollback'?)" },
	{ "[settings]\nkill-timeout = 5",
	  "config.toml:2:1: unknown key 'kill-timeout' in [settings] (did "
	  "you mean 'kill_timeout'?)" },
	{ "[settings]\ncommand = \"x\"",
	  "config.toml:2:1: unknown key 'command' in [settings] (it belongs "
	  "in [[job]])" },
	{ "[settings]\nbogus = 1",
	  "config.toml:2:1: unknown key 'bogus' in [settings]" },
	{ "[settings.x]\n",
	  "config.toml:1:11: unknown key 'x' in [settings]" },
	{ "[settings]\n\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\" = 1",
	  "config.toml:2:1: unknown key 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...' "
	  "in [settings]" },
	{ "[settings]\n\"a\\tb\\u0000\" = 1",
	  "config.toml:2:1: unknown key 'a\\tb\\x00' in [settings]" },

	/* [[job]]: what it must have. */
	{ "[[job]]\ncommand = \"x\"",
	  "config.toml:1:1: [[job]] needs a name" },
	{ "[[job]]\nname = \"x\"",
	  "config.toml:1:1: [[job]] needs a command" },
	{ JOB "\n[[job]]\nname = \"db\"\n",
	  "config.toml:5:1: [[job]] needs a command" },
	{ "job = [{ name = \"a\" }]",
	  "config.toml:1:8: [[job]] needs a command" },
	{ JOB "[[job]]\nname = \"web\"\ncommand = \"b\"",
	  "config.toml:5:8: duplicate job name 'web' (first at line 2)" },
	{ JOB "[[job]]\nname = \"db\"\ncommand = \"b\"\n"
	  "[[job]]\ncommand = \"c\"\nname = \"db\"",
	  "config.toml:9:8: duplicate job name 'db' (first at line 5)" },

	/* [[job]], option by option. */
	{ "[[job]]\nname = 5\ncommand = \"x\"",
	  "config.toml:2:8: name must be a string" },
	{ "[[job]]\nname = \"\"\ncommand = \"x\"",
	  "config.toml:2:8: name must not be empty" },
	{ "[[job]]\nname = \"12\"\ncommand = \"x\"",
	  "config.toml:2:8: job name '12' must not be all digits (ids are "
	  "numbers)" },
	{ "[[job]]\nname = \"we b\"\ncommand = \"x\"",
	  "config.toml:2:8: job name 'we b' may only have letters, digits, "
	  "'_', '.' and '-'" },
	{ "[[job]]\nname = \"a/b\"\ncommand = \"x\"",
	  "config.toml:2:8: job name 'a/b' may only have letters, digits, "
	  "'_', '.' and '-'" },
	{ "[[job]]\nname = \"a\"\ncommand = \"\"",
	  "config.toml:3:11: command must not be empty" },
	{ "[[job]]\nname = \"a\"\ncommand = [\"ls\"]",
	  "config.toml:3:11: command must be a string" },
	{ "[[job]]\nname = \"a\"\ncommand = \"echo ${\"",
	  "config.toml:3:11: command: unterminated ${ at column 6" },
	{ "[[job]]\nname = \"a\"\ncommand = \"echo `{p}`\"\n"
	  "params = { p = \"x\" }",
	  "config.toml:3:11: command: cannot quote {p} at column 7 inside "
	  "backquotes" },
	/*
	 * Where no quoting keeps a value from being read as code, a {name}
	 * is refused when the file is read, at the template at fault.
	 */
	{ "[[job]]\nname = \"a\"\ncommand = \"fish\"\n"
	  "args = [\"-c\", \"echo {x}\"]\nparams = { x = \"1\" }",
	  "config.toml:4:15: args: fish reads this word as code and is not "
	  "a POSIX shell: cannot use {x} at column 6 here" },
	{ "[[job]]\nname = \"a\"\ncommand = \"/usr/bin/python3\"\n"
	  "args = [\"-c\", \"print({x})\"]\nparams = { x = \"1\" }",
	  "config.toml:4:15: args: python3 reads this word as code (hand it "
	  "values as arguments of their own, or in env): cannot use {x} at "
	  "column 7 here" },
	{ "[[job]]\nname = \"a\"\ncommand = \"python3\"\nargs = []\n"
	  "input = \"print({x})\"\nparams = { x = \"1\" }",
	  "config.toml:5:9: input: python3 reads its input as code: cannot "
	  "use {x} at column 7 here" },
	{ "[[job]]\nname = \"a\"\ncommand = \"fish\"\n"
	  "input = \"echo {x}\"\nparams = { x = \"1\" }",
	  "config.toml:4:9: input: fish reads its input as code and is not a "
	  "POSIX shell: cannot use {x} at column 6 here" },
	{ "[[job]]\nname = \"a\"\ncommand = \"bash -c 'echo {x}'\"\n"
	  "params = { x = \"1\" }",
	  "config.toml:3:11: command: bash reads the word 'echo {x}' as code, "
	  "where the quoting of values for the shell is undone (put the "
	  "words in args instead): cannot use {x} at column 6 here" },
	{ "[[job]]\nname = \"a\"\ncommand = \"{p}\"\n"
	  "args = [\"-c\", \"x\"]\nparams = { p = \"sh\" }",
	  "config.toml:3:11: command: a {name} value would make the program "
	  "sh, which reads its words differently: write the program's name "
	  "out" },
	{ "[[job]]\nname = \"a\"\ncommand = \"sh\"\n"
	  "args = [\"{o}\", \"echo\"]\nparams = { o = \"-c\" }",
	  "config.toml:4:9: args: a {name} value would make this word an "
	  "option of sh" },
	/* The shell's quoting is not sh's, wherever [settings] is. */
	{ "[[job]]\nname = \"a\"\ncommand = \"echo {x}\"\n"
	  "params = { x = \"1\" }\n[settings]\nshell = \"/usr/bin/fish\"",
	  "config.toml:3:11: command: {name} values are quoted for sh and "
	  "/usr/bin/fish is not a POSIX shell (set shell = \"/bin/sh\", or "
	  "use args): cannot use {x} at column 6 here" },
	/* env values are templates too. */
	{ JOB "env = { A = \"x\", B = \"${\" }",
	  "config.toml:4:22: env B: unterminated ${ at column 1" },
	{ JOB "[job.env]\nA = \"${X:+y}\"",
	  "config.toml:5:5: env A: unsupported '${X:+y}' at column 1: only "
	  "${NAME} and ${NAME:-default}" },
	{ JOB "args = \"x\"",
	  "config.toml:4:8: args must be an array of strings" },
	{ JOB "args = [\"a\", 2]",
	  "config.toml:4:14: args must be an array of strings" },
	{ JOB "args = [\"a\", \"${1x}\"]",
	  "config.toml:4:14: args: invalid variable name '1x' at column 1" },
	{ JOB "cwd = \"\"",
	  "config.toml:4:7: cwd must not be empty" },
	{ JOB "cwd = \"${X:+y}\"",
	  "config.toml:4:7: cwd: unsupported '${X:+y}' at column 1: only "
	  "${NAME} and ${NAME:-default}" },
	{ JOB "env = [\"A=1\"]",
	  "config.toml:4:7: env must be a table of strings" },
	{ JOB "env = { A = 1 }",
	  "config.toml:4:13: env values must be strings" },
	{ JOB "env = { A = \"a\\u0000\" }",
	  "config.toml:4:13: env values must not contain NUL bytes" },
	{ JOB "env = { \"A=B\" = \"1\" }",
	  "config.toml:4:9: env name 'A=B' must be a letter or '_' followed "
	  "by letters, digits and '_'" },
	{ JOB "env = { \"\" = \"1\" }",
	  "config.toml:4:9: env name '' must be a letter or '_' followed by "
	  "letters, digits and '_'" },
	/* One rule for env names, as export, unset and ${NAME} have it. */
	{ JOB "env = { \"1A\" = \"1\" }",
	  "config.toml:4:9: env name '1A' must be a letter or '_' followed "
	  "by letters, digits and '_'" },
	{ JOB "env = { \"A-B\" = \"1\" }",
	  "config.toml:4:9: env name 'A-B' must be a letter or '_' followed "
	  "by letters, digits and '_'" },
	{ JOB "env = { \"A\\u0000\" = \"1\" }",
	  "config.toml:4:9: env name 'A\\x00' must not contain NUL bytes" },
	{ JOB "[job.env]\nA = 1",
	  "config.toml:5:5: env values must be strings" },
	{ JOB "inherit_env = \"yes\"",
	  "config.toml:4:15: inherit_env must be true or false" },
	{ JOB "timeout = -1",
	  "config.toml:4:11: timeout must be a number between 0 and "
	  "31536000" },
	{ JOB "timeout = 31536001",
	  "config.toml:4:11: timeout must be a number between 0 and "
	  "31536000" },
	{ JOB "input = 1",
	  "config.toml:4:9: input must be a string" },
	{ JOB "input = \"a\\u0000b\"",
	  "config.toml:4:9: input must not contain NUL bytes" },
	{ JOB "autostart = 1",
	  "config.toml:4:13: autostart must be true or false" },
	{ JOB "restart = \"never\"",
	  "config.toml:4:11: restart must be one of \"no\", \"on-failure\", "
	  "\"always\"" },
	{ JOB "restart = true",
	  "config.toml:4:11: restart must be one of \"no\", \"on-failure\", "
	  "\"always\"" },
	{ JOB "restart_delay = 3601",
	  "config.toml:4:17: restart_delay must be a number between 0 and "
	  "3600" },
	{ JOB "max_restarts = 2.5",
	  "config.toml:4:16: max_restarts must be an integer between 0 and "
	  "1000000" },
	{ JOB "max_restarts = -1",
	  "config.toml:4:16: max_restarts must be an integer between 0 and "
	  "1000000" },
	{ JOB "pty = 0",
	  "config.toml:4:7: pty must be true or false" },
	{ JOB "params = \"x\"",
	  "config.toml:4:10: params must be a table of strings" },
	{ JOB "params = { \"a-b\" = \"x\" }",
	  "config.toml:4:12: params name 'a-b' must be "
	  "[A-Za-z_][A-Za-z0-9_]*" },
	{ JOB "params = { p = 1 }",
	  "config.toml:4:16: params values must be strings" },
	{ JOB "comand = \"x\"",
	  "config.toml:4:1: unknown key 'comand' in [[job]] (did you mean "
	  "'command'?)" },
	{ JOB "cdw = \"/\"",
	  "config.toml:4:1: unknown key 'cdw' in [[job]] (did you mean "
	  "'cwd'?)" },
	{ JOB "restarts = \"no\"",
	  "config.toml:4:1: unknown key 'restarts' in [[job]] (did you mean "
	  "'restart'?)" },
	{ JOB "scrollback = 5",
	  "config.toml:4:1: unknown key 'scrollback' in [[job]] (it belongs "
	  "in [settings])" },
	{ JOB "x = 1",
	  "config.toml:4:1: unknown key 'x' in [[job]]" },
	{ JOB "port_base = 1",
	  "config.toml:4:1: unknown key 'port_base' in [[job]] (it belongs "
	  "in [settings])" },

	/* [groups.NAME]: the section is named in messages. */
	{ "[groups.backend]\nmax_runing = 2",
	  "config.toml:2:1: unknown key 'max_runing' in [groups.backend] "
	  "(did you mean 'max_running'?)" },
	{ "[groups.backend]\ncommand = \"x\"",
	  "config.toml:2:1: unknown key 'command' in [groups.backend] (it "
	  "belongs in [[job]])" },
	{ "[groups.backend]\nscrollback = 1",
	  "config.toml:2:1: unknown key 'scrollback' in [groups.backend] (it "
	  "belongs in [settings])" },
	{ "[groups.backend]\nbogus = 1",
	  "config.toml:2:1: unknown key 'bogus' in [groups.backend]" },
	{ "[groups.a]\n[groups.b]\nmax_running = 10001",
	  "config.toml:3:15: max_running must be an integer between 0 and "
	  "10000" },
	{ "groups = { b = { max_running = -1 } }",
	  "config.toml:1:32: max_running must be an integer between 0 and "
	  "10000" },
	{ "[groups.\"a b\"]\n",
	  "config.toml:1:9: group name 'a b' must be like a job name: "
	  "letters, digits, '_', '.' and '-', not only digits" },
	{ "[groups.12]\n",
	  "config.toml:1:9: group name '12' must be like a job name: "
	  "letters, digits, '_', '.' and '-', not only digits" },
	{ "[groups.\"a\\u0000\"]\n",
	  "config.toml:1:9: group names must not contain NUL bytes" },
	{ "groups = 5",
	  "config.toml:1:10: groups must be a table of tables "
	  "([groups.NAME])" },
	{ "[[groups]]\n",
	  "config.toml:1:1: groups must be a table of tables "
	  "([groups.NAME])" },
	{ "groups.x = 5",
	  "config.toml:1:12: groups.x must be a table ([groups.x])" },
	{ "[group]\n",
	  "config.toml:1:1: unknown table [group] (did you mean "
	  "[groups.NAME]?)" },
	{ "max_running = 1",
	  "config.toml:1:1: unknown key 'max_running' (it belongs in "
	  "[settings])" },
	{ JOB "group = \"a b\"",
	  "config.toml:4:9: group name 'a b' must be like a job name: "
	  "letters, digits, '_', '.' and '-', not only digits" },
	{ JOB "group = \"\"",
	  "config.toml:4:9: group must not be empty" },

	/* env_file: in [settings] or at the top level, not both. */
	{ "env_file = [\"a\"]\n[settings]\nenv_file = [\"b\"]",
	  "config.toml:3:12: env_file is set both at the top level (line 1) "
	  "and in [settings] (line 3): keep one" },
	{ "settings = { env_file = [\"b\"] }\nenv_file = [\"a\"]",
	  "config.toml:2:12: env_file is set both at the top level (line 2) "
	  "and in [settings] (line 1): keep one" },
	{ "env_file = \"a\"",
	  "config.toml:1:12: env_file must be an array of strings" },
	{ "env_file = [\"a\", 1]",
	  "config.toml:1:18: env_file must be an array of strings" },
	{ "env_files = []",
	  "config.toml:1:1: unknown key 'env_files' (did you mean "
	  "'env_file'?)" },
	{ JOB "env_file = [[]]",
	  "config.toml:4:13: env_file must be an array of strings" },

	/* depends_on: names, conditions, then the jobs as a whole. */
	{ JOB "depends_on = { dbb = \"ready\" }\n"
	  "[[job]]\nname = \"db\"\ncommand = \"y\"",
	  "config.toml:4:16: unknown job 'dbb' in depends_on (did you mean "
	  "'db'?)" },
	{ JOB "depends_on = { zzz = \"started\" }",
	  "config.toml:4:16: unknown job 'zzz' in depends_on" },
	{ JOB "depends_on = { web = \"started\" }",
	  "config.toml:4:16: job 'web' depends on itself" },
	/* The browser: configured to start, never completed. */
	{ JOB "depends_on = { browser = \"ready\" }",
	  "config.toml:4:16: depends_on names the browser, but [browser] sets "
	  "no cdp_url (write cdp_url = \"auto\" there)" },
	{ "[browser]\ncdp_url = false\n" JOB
	  "depends_on = { browser = \"started\" }",
	  "config.toml:6:16: depends_on names the browser, but [browser] sets "
	  "no cdp_url (write cdp_url = \"auto\" there)" },
	{ JOB "depends_on = { browser = \"completed\" }\n"
	  "[browser]\ncdp_url = \"auto\"",
	  "config.toml:4:16: the browser never completes: depends_on it with "
	  "\"started\" or \"ready\"" },
	{ "[browser]\ncdp_url = \"ws://127.0.0.1:9222\"\n" JOB
	  "depends_on = { browser = \"completed_successfully\" }",
	  "config.toml:6:16: the browser never completes: depends_on it with "
	  "\"started\" or \"ready\"" },
	/* browser is the [browser] only when no job has that name. */
	{ JOB "depends_on = { browsr = \"ready\" }\n"
	  "[browser]\ncdp_url = \"auto\"",
	  "config.toml:4:16: unknown job 'browsr' in depends_on" },
	{ "[[job]]\nname = \"api\"\ncommand = \"x\"\n"
	  "depends_on = { worker = \"ready\" }\n"
	  "[[job]]\nname = \"worker\"\ncommand = \"y\"\n"
	  "depends_on = { api = \"started\" }",
	  "config.toml:8:16: dependency cycle: api -> worker -> api" },
	/* The cycle alone, without the job that leads into it. */
	{ "[[job]]\nname = \"a\"\ncommand = \"x\"\n"
	  "depends_on = { b = \"ready\" }\n"
	  "[[job]]\nname = \"b\"\ncommand = \"x\"\n"
	  "depends_on = { c = \"completed\" }\n"
	  "[[job]]\nname = \"c\"\ncommand = \"x\"\n"
	  "[job.depends_on]\nz = \"started\"\nb = \"started\"\n"
	  "[[job]]\nname = \"z\"\ncommand = \"x\"\n",
	  "config.toml:14:1: dependency cycle: b -> c -> b" },
	{ JOB "replicas = 2\n[[job]]\nname = \"w\"\ncommand = \"y\"\n"
	  "depends_on = { \"web.2\" = \"started\" }",
	  "config.toml:8:16: unknown job 'web.2' in depends_on ('web' stands "
	  "for all its replicas)" },
	/* A dependency as a table: condition, and restart with a reload. */
	{ JOB "depends_on = { db = { restart = true } }\n"
	  "[[job]]\nname = \"db\"\ncommand = \"y\"",
	  "config.toml:4:21: depends_on: a dependency written as a table "
	  "needs condition = \"started\"" },
	{ JOB "depends_on = { db = { condition = \"ready\", restrat = true } "
	  "}\n[[job]]\nname = \"db\"\ncommand = \"y\"",
	  "config.toml:4:44: depends_on: unknown key 'restrat' in a "
	  "dependency (condition, restart)" },
	{ JOB "depends_on = { db = { condition = \"ready\", restart = 1 } }\n"
	  "[[job]]\nname = \"db\"\ncommand = \"y\"",
	  "config.toml:4:54: depends_on: restart must be true or false" },
	{ JOB "depends_on = { db = { condition = \"up\" } }\n"
	  "[[job]]\nname = \"db\"\ncommand = \"y\"",
	  "config.toml:4:35: depends_on must be a table of job names to "
	  "\"started\", \"ready\", \"completed\" or "
	  "\"completed_successfully\"" },
	{ JOB "depends_on = { db = \"up\" }",
	  "config.toml:4:21: depends_on must be a table of job names to "
	  "\"started\", \"ready\", \"completed\" or "
	  "\"completed_successfully\"" },
	{ JOB "depends_on = [\"db\"]",
	  "config.toml:4:14: depends_on must be a table of job names to "
	  "\"started\", \"ready\", \"completed\" or "
	  "\"completed_successfully\"" },
	{ JOB "depends_on = { \"d\\u0000\" = \"ready\" }",
	  "config.toml:4:16: depends_on: job names must not contain NUL "
	  "bytes" },
	{ JOB "depends_on = { \"d b\" = \"ready\" }",
	  "config.toml:4:16: depends_on: job name 'd b' may only have "
	  "letters, digits, '_', '.' and '-'" },

	/* replicas: NAME.1 .. NAME.N are no other job's names. */
	{ JOB "replicas = 3\n[[job]]\nname = \"web.2\"\ncommand = \"y\"",
	  "config.toml:4:12: replicas: 'web.2' is already the name of the "
	  "job at line 5" },
	{ "[[job]]\nname = \"web.1\"\ncommand = \"y\"\n" JOB
	  "replicas = 2",
	  "config.toml:7:12: replicas: 'web.1' is already the name of the "
	  "job at line 1" },
	{ JOB "replicas = 0",
	  "config.toml:4:12: replicas must be an integer between 1 and "
	  "100" },

	/* Probes: one of each sort, and targets of the right form. */
	{ JOB "ready_log = \"a\"\nready_tcp = \"127.0.0.1:1\"",
	  "config.toml:5:13: ready_tcp and ready_log (line 4) are both set: "
	  "a job has at most one readiness probe" },
	{ JOB "ready_http = \"http://h/\"\nready_cmd = \"true\"\n"
	  "ready_log = \"x\"",
	  "config.toml:5:13: ready_cmd and ready_http (line 4) are both set: "
	  "a job has at most one readiness probe" },
	{ JOB "liveness_cmd = \"true\"\nliveness_http = \"http://h/\"",
	  "config.toml:5:17: liveness_http and liveness_cmd (line 4) are both "
	  "set: a job has at most one liveness probe" },
	{ "job = [{ name = \"a\", command = \"b\", liveness_tcp = \"[::1]:1\", "
	  "liveness_cmd = \"c\" }]",
	  "config.toml:1:78: liveness_cmd and liveness_tcp (line 1) are both "
	  "set: a job has at most one liveness probe" },
	{ JOB "ready_tcp = \"::1:80\"",
	  "config.toml:4:13: ready_tcp must be host:port with a port from 1 "
	  "to 65535 (IPv6 as [::1]:80)" },
	{ JOB "ready_tcp = \"localhost\"",
	  "config.toml:4:13: ready_tcp must be host:port with a port from 1 "
	  "to 65535 (IPv6 as [::1]:80)" },
	{ JOB "ready_tcp = \"h:0\"",
	  "config.toml:4:13: ready_tcp must be host:port with a port from 1 "
	  "to 65535 (IPv6 as [::1]:80)" },
	{ JOB "ready_tcp = \"h:65536\"",
	  "config.toml:4:13: ready_tcp must be host:port with a port from 1 "
	  "to 65535 (IPv6 as [::1]:80)" },
	{ JOB "ready_tcp = \"h:99999999999999999999\"",
	  "config.toml:4:13: ready_tcp must be host:port with a port from 1 "
	  "to 65535 (IPv6 as [::1]:80)" },
	{ JOB "ready_tcp = \"h:\"",
	  "config.toml:4:13: ready_tcp must be host:port with a port from 1 "
	  "to 65535 (IPv6 as [::1]:80)" },
	{ JOB "ready_tcp = \":80\"",
	  "config.toml:4:13: ready_tcp must be host:port with a port from 1 "
	  "to 65535 (IPv6 as [::1]:80)" },
	{ JOB "ready_tcp = \"h:+80\"",
	  "config.toml:4:13: ready_tcp must be host:port with a port from 1 "
	  "to 65535 (IPv6 as [::1]:80)" },
	{ JOB "ready_tcp = \"h:80 \"",
	  "config.toml:4:13: ready_tcp must be host:port with a port from 1 "
	  "to 65535 (IPv6 as [::1]:80)" },
	{ JOB "ready_tcp = \"a b:80\"",
	  "config.toml:4:13: ready_tcp must be host:port with a port from 1 "
	  "to 65535 (IPv6 as [::1]:80)" },
	{ JOB "ready_tcp = \"[::1]80\"",
	  "config.toml:4:13: ready_tcp must be host:port with a port from 1 "
	  "to 65535 (IPv6 as [::1]:80)" },
	{ JOB "ready_tcp = \"[]:80\"",
	  "config.toml:4:13: ready_tcp must be host:port with a port from 1 "
	  "to 65535 (IPv6 as [::1]:80)" },
	{ JOB "ready_tcp = \"[::1:80\"",
	  "config.toml:4:13: ready_tcp must be host:port with a port from 1 "
	  "to 65535 (IPv6 as [::1]:80)" },
	{ JOB "liveness_tcp = \"db\"",
	  "config.toml:4:16: liveness_tcp must be host:port with a port from "
	  "1 to 65535 (IPv6 as [::1]:80)" },
	/* A name would be looked up on the loop: refused when read. */
	{ JOB "ready_tcp = \"db.internal:5432\"",
	  "config.toml:4:13: ready_tcp: host \"db.internal\" is neither an IP "
	  "address nor localhost (names are not resolved, so the loop never "
	  "waits on DNS)" },
	{ JOB "ready_tcp = \"[db]:5432\"",
	  "config.toml:4:13: ready_tcp: host \"db\" is neither an IP "
	  "address nor localhost (names are not resolved, so the loop never "
	  "waits on DNS)" },
	{ JOB "ready_tcp = \"\"",
	  "config.toml:4:13: ready_tcp must not be empty" },
	{ JOB "ready_http = \"ftp://h/\"",
	  "config.toml:4:14: ready_http must be a URL that starts with "
	  "http:// or https://" },
	{ JOB "ready_http = \"localhost:80\"",
	  "config.toml:4:14: ready_http must be a URL that starts with "
	  "http:// or https://" },
	{ JOB "ready_http = \"http://\"",
	  "config.toml:4:14: ready_http must be a URL that starts with "
	  "http:// or https://" },
	{ JOB "ready_http = \"http:///x\"",
	  "config.toml:4:14: ready_http must be a URL that starts with "
	  "http:// or https://" },
	{ JOB "ready_http = \"http://h/a b\"",
	  "config.toml:4:14: ready_http must be a URL that starts with "
	  "http:// or https://" },
	{ JOB "liveness_http = \"https:/h\"",
	  "config.toml:4:17: liveness_http must be a URL that starts with "
	  "http:// or https://" },
	{ JOB "ready_log = \"\"",
	  "config.toml:4:13: ready_log must not be empty" },
	/* There is no liveness_log. */
	{ JOB "liveness_log = \"x\"",
	  "config.toml:4:1: unknown key 'liveness_log' in [[job]]" },
	{ JOB "ready_interval = 0",
	  "config.toml:4:18: ready_interval must be a number between 0.01 "
	  "and 86400" },
	{ JOB "liveness_retries = 0",
	  "config.toml:4:20: liveness_retries must be an integer between 1 "
	  "and 1000000" },

	/* On a timer: cron.h's and duration.h's messages, at the value. */
	{ JOB "schedule = \"0 24 * * *\"",
	  "config.toml:4:12: schedule: field 2 (hour): 24 is out of range "
	  "0-23" },
	{ JOB "schedule = \"* * * *\"",
	  "config.toml:4:12: schedule: expected 5 fields (minute hour "
	  "day-of-month month day-of-week), found 4" },
	{ JOB "schedule = \"@reboot\"",
	  "config.toml:4:12: schedule: unknown macro '@reboot' (known: "
	  "@yearly @annually @monthly @weekly @daily @midnight @hourly)" },
	{ JOB "schedule = \"\"",
	  "config.toml:4:12: schedule must not be empty" },
	{ JOB "schedule = 5",
	  "config.toml:4:12: schedule must be a string" },
	{ JOB "every = \"5x\"",
	  "config.toml:4:9: every: '5x' is not a duration (as 30s, 5m, "
	  "1h30m, 500ms; a number alone is seconds)" },
	{ JOB "every = \"0s\"",
	  "config.toml:4:9: every must be at least 100ms" },
	{ JOB "every = \"400d\"",
	  "config.toml:4:9: every: 400d is more than 31536000 seconds" },
	{ JOB "every = \"1s\"\nschedule = \"@daily\"",
	  "config.toml:5:12: schedule and every (line 4) are both set: a job "
	  "has one timetable" },
	{ JOB "schedule = \"@daily\"\nevery = \"1s\"",
	  "config.toml:5:9: every and schedule (line 4) are both set: a job "
	  "has one timetable" },
	{ JOB "every = \"1s\"\noverlap = \"wait\"",
	  "config.toml:5:11: overlap must be one of \"skip\", \"queue\", "
	  "\"restart\"" },

	/* stop_signal: what waitstatus_parse_signal() reads. */
	{ JOB "stop_signal = \"SIGFOO\"",
	  "config.toml:4:15: stop_signal must be a signal's name or number, "
	  "as \"SIGINT\", \"INT\" or \"2\"" },
	{ JOB "stop_signal = \"0\"",
	  "config.toml:4:15: stop_signal must be a signal's name or number, "
	  "as \"SIGINT\", \"INT\" or \"2\"" },
	{ JOB "stop_signal = \"2x\"",
	  "config.toml:4:15: stop_signal must be a signal's name or number, "
	  "as \"SIGINT\", \"INT\" or \"2\"" },
	{ JOB "stop_signal = \"\"",
	  "config.toml:4:15: stop_signal must not be empty" },
	{ JOB "stop_signal = 2",
	  "config.toml:4:15: stop_signal must be a string" },
	{ JOB "port = 65536",
	  "config.toml:4:8: port must be an integer between 0 and 65535" },
	{ JOB "stop_timeout = -1",
	  "config.toml:4:16: stop_timeout must be a number between 0 and "
	  "3600" },

	/* [browser]: the table, cdp_url's forms, each option. */
	{ "browser = 1",
	  "config.toml:1:11: browser must be a table ([browser])" },
	{ "[[browser]]\n",
	  "config.toml:1:1: browser must be a table ([browser])" },
	{ "[browsr]\n",
	  "config.toml:1:1: unknown table [browsr] (did you mean "
	  "[browser]?)" },
	{ "cdp_url = \"auto\"",
	  "config.toml:1:1: unknown key 'cdp_url' (it belongs in [browser])" },
	{ "[settings]\ncdp_url = \"auto\"",
	  "config.toml:2:1: unknown key 'cdp_url' in [settings] (it belongs "
	  "in [browser])" },
	{ "[browser]\ncdp_ur = \"auto\"",
	  "config.toml:2:1: unknown key 'cdp_ur' in [browser] (did you mean "
	  "'cdp_url'?)" },
	{ "[browser]\nbrowser_imag = \"x\"",
	  "config.toml:2:1: unknown key 'browser_imag' in [browser] (did you "
	  "mean 'browser_image'?)" },
	{ "[browser]\nshell = \"sh\"",
	  "config.toml:2:1: unknown key 'shell' in [browser] (it belongs in "
	  "[settings])" },
	{ "[browser]\ncdp_url = true",
	  "config.toml:2:11: cdp_url cannot be true: write cdp_url = \"auto\", "
	  "or false for no browser" },
	{ "[browser]\ncdp_url = \"yes\"",
	  "config.toml:2:11: cdp_url must be \"auto\", a ws:// URL or false" },
	{ "[browser]\ncdp_url = \"Auto\"",
	  "config.toml:2:11: cdp_url must be \"auto\", a ws:// URL or false" },
	{ "[browser]\ncdp_url = \"\"",
	  "config.toml:2:11: cdp_url must be \"auto\", a ws:// URL or false" },
	{ "[browser]\ncdp_url = \"http://localhost:9222\"",
	  "config.toml:2:11: cdp_url must be \"auto\", a ws:// URL or false" },
	{ "[browser]\ncdp_url = \"WS://localhost:9222\"",
	  "config.toml:2:11: cdp_url must be \"auto\", a ws:// URL or false" },
	{ "[browser]\ncdp_url = \"localhost:9222\"",
	  "config.toml:2:11: cdp_url must be \"auto\", a ws:// URL or false" },
	{ "[browser]\ncdp_url = 9222",
	  "config.toml:2:11: cdp_url must be a string or false" },
	{ "[browser]\ncdp_url = [\"auto\"]",
	  "config.toml:2:11: cdp_url must be a string or false" },
	{ "[browser]\ncdp_url = \"ws://localhost\"",
	  "config.toml:2:11: cdp_url must be ws://HOST:PORT or wss://HOST:PORT "
	  "and an optional /path, with a port from 1 to 65535 (IPv6 as "
	  "ws://[::1]:9222)" },
	{ "[browser]\ncdp_url = \"ws://localhost:0\"",
	  "config.toml:2:11: cdp_url must be ws://HOST:PORT or wss://HOST:PORT "
	  "and an optional /path, with a port from 1 to 65535 (IPv6 as "
	  "ws://[::1]:9222)" },
	{ "[browser]\ncdp_url = \"ws://localhost:65536/\"",
	  "config.toml:2:11: cdp_url must be ws://HOST:PORT or wss://HOST:PORT "
	  "and an optional /path, with a port from 1 to 65535 (IPv6 as "
	  "ws://[::1]:9222)" },
	{ "[browser]\ncdp_url = \"ws://:9222\"",
	  "config.toml:2:11: cdp_url must be ws://HOST:PORT or wss://HOST:PORT "
	  "and an optional /path, with a port from 1 to 65535 (IPv6 as "
	  "ws://[::1]:9222)" },
	{ "[browser]\ncdp_url = \"ws://\"",
	  "config.toml:2:11: cdp_url must be ws://HOST:PORT or wss://HOST:PORT "
	  "and an optional /path, with a port from 1 to 65535 (IPv6 as "
	  "ws://[::1]:9222)" },
	{ "[browser]\ncdp_url = \"ws://::1:9222\"",
	  "config.toml:2:11: cdp_url must be ws://HOST:PORT or wss://HOST:PORT "
	  "and an optional /path, with a port from 1 to 65535 (IPv6 as "
	  "ws://[::1]:9222)" },
	{ "[browser]\ncdp_url = \"ws://localhost:9222/a b\"",
	  "config.toml:2:11: cdp_url must be ws://HOST:PORT or wss://HOST:PORT "
	  "and an optional /path, with a port from 1 to 65535 (IPv6 as "
	  "ws://[::1]:9222)" },
	{ "[browser]\ncdp_url = \"ws://user@localhost:9222\"",
	  "config.toml:2:11: cdp_url: host \"user@localhost\" is neither a "
	  "host name nor an IP address" },
	{ "[browser]\ncdp_url = \"ws://-x:9222\"",
	  "config.toml:2:11: cdp_url: host \"-x\" is neither a host name nor "
	  "an IP address" },
	{ "[browser]\nbrowser_image = \"\"",
	  "config.toml:2:17: browser_image must not be empty" },
	{ "[browser]\nbrowser_image = \"--privileged\"",
	  "config.toml:2:17: browser_image must be an image name such as "
	  "\"zenika/alpine-chrome:latest\": no blanks, and no '-' first" },
	{ "[browser]\nbrowser_image = \"alpine chrome\"",
	  "config.toml:2:17: browser_image must be an image name such as "
	  "\"zenika/alpine-chrome:latest\": no blanks, and no '-' first" },
	{ "[browser]\nbrowser_image = false",
	  "config.toml:2:17: browser_image must be a string" },
	{ "[browser]\nbrowser_command = \"\"",
	  "config.toml:2:19: browser_command must not be empty" },
	{ "[browser]\nbrowser_command = [\"chromium\"]",
	  "config.toml:2:19: browser_command must be a string" },
	{ "[browser]\nbrowser_args = \"--headless\"",
	  "config.toml:2:16: browser_args must be an array of strings" },
	{ "[browser]\nbrowser_args = [\"--a\", 1]",
	  "config.toml:2:24: browser_args must be an array of strings" },
	{ "[browser]\nbrowser_timeout = 0",
	  "config.toml:2:19: browser_timeout must be a number between 1 and "
	  "3600" },
	{ "[browser]\nbrowser_timeout = 3600.5",
	  "config.toml:2:19: browser_timeout must be a number between 1 and "
	  "3600" },
	{ "[browser]\nbrowser_timeout = \"30\"",
	  "config.toml:2:19: browser_timeout must be a number between 1 and "
	  "3600" },
	{ "[browser]\nbrowser_timeout = nan",
	  "config.toml:2:19: browser_timeout must be a number between 1 and "
	  "3600" },

	/*
	 * TOML has no null: toml.c says so wherever one is written, and an
	 * option that takes false (cdp_url) is told how to write none.
	 */
	{ "[browser]\ncdp_url = null",
	  "config.toml:2:11: cdp_url = null is not TOML: leave cdp_url out, or "
	  "write cdp_url = false, for no browser" },
	{ "browser = { cdp_url = null }",
	  "config.toml:1:23: cdp_url = null is not TOML: leave cdp_url out, or "
	  "write cdp_url = false, for no browser" },
	{ "browser.cdp_url = None",
	  "config.toml:1:19: cdp_url = None is not TOML: leave cdp_url out, or "
	  "write cdp_url = false, for no browser" },
	{ "[browser]\nbrowser_timeout = 3\ncdp_url = NULL",
	  "config.toml:3:11: cdp_url = NULL is not TOML: leave cdp_url out, or "
	  "write cdp_url = false, for no browser" },
	{ "[browser]\nbrowser_image = null",
	  "config.toml:2:17: TOML has no null value: leave the key out" },
	{ "[browser]\nbrowser_args = [\"--a\", null]",
	  "config.toml:2:24: TOML has no null value: leave the element out" },
	{ "cdp_url = null",
	  "config.toml:1:11: TOML has no null value: leave the key out" },
	{ "[browser.x]\ncdp_url = null",
	  "config.toml:2:11: TOML has no null value: leave the key out" },
	{ "[settings]\nshell = nil",
	  "config.toml:2:9: TOML has no null value ('nil'): leave the key "
	  "out" },
	{ "env_file = undefined",
	  "config.toml:1:12: TOML has no null value ('undefined'): leave the "
	  "key out" },
	{ JOB "cwd = null",
	  "config.toml:4:7: TOML has no null value: leave the key out" },
	{ JOB "[[job]]\ncdp_url = null",
	  "config.toml:5:11: TOML has no null value: leave the key out" },
	{ JOB "env = { A = null }",
	  "config.toml:4:13: TOML has no null value: leave the key out" },
	{ "[groups.g]\nmax_running = null",
	  "config.toml:2:15: TOML has no null value: leave the key out" },
	{ "[hosts.g]\nssh = null",
	  "config.toml:2:7: TOML has no null value: leave the key out" },

	/* [hosts.NAME]: exactly one of ssh and slurm, NAME a job name's. */
	{ "[hosts.gpu]\nssh = \"a\"\nslurm = []",
	  "config.toml:3:9: hosts.gpu: ssh and slurm are exclusive" },
	{ "[hosts.gpu]\nslurm = [\"-p\", \"x\"]\nssh = \"a\"",
	  "config.toml:3:7: hosts.gpu: ssh and slurm are exclusive" },
	{ "[hosts.gpu]\n",
	  "config.toml:1:1: hosts.gpu: needs ssh or slurm" },
	{ "[hosts.a]\nssh = \"a\"\n[hosts.b]\n",
	  "config.toml:3:1: hosts.b: needs ssh or slurm" },
	{ "[hosts.\"a b\"]\nssh = \"x\"",
	  "config.toml:1:8: host name 'a b' must be like a job name: "
	  "letters, digits, '_', '.' and '-', not only digits" },
	{ "[hosts.12]\n",
	  "config.toml:1:8: host name '12' must be like a job name: "
	  "letters, digits, '_', '.' and '-', not only digits" },
	{ "[hosts.\"-x\"]\n",
	  "config.toml:1:8: host name '-x' must be like a job name: "
	  "letters, digits, '_', '.' and '-', not only digits" },
	{ "[hosts.\"a\\u0000\"]\n",
	  "config.toml:1:8: host names must not contain NUL bytes" },
	{ "hosts = 5",
	  "config.toml:1:9: hosts must be a table of tables "
	  "([hosts.NAME])" },
	{ "hosts.x = 5",
	  "config.toml:1:11: hosts.x must be a table ([hosts.x])" },
	{ "[host]\n",
	  "config.toml:1:1: unknown table [host] (did you mean "
	  "[hosts.NAME]?)" },
	{ "[hosts.x]\nshh = \"a\"",
	  "config.toml:2:1: unknown key 'shh' in [hosts.x] (did you mean "
	  "'ssh'?)" },
	{ "[hosts.x]\nssh = \"\"",
	  "config.toml:2:7: ssh must not be empty" },
	{ "[hosts.x]\nssh = \"-oProxyCommand=x\"",
	  "config.toml:2:7: ssh \"-oProxyCommand=x\" is not an ssh "
	  "destination ([user@]host, no blanks, no '-' first)" },
	{ "[hosts.x]\nssh = \"a b\"",
	  "config.toml:2:7: ssh \"a b\" is not an ssh destination "
	  "([user@]host, no blanks, no '-' first)" },
	{ "[hosts.x]\nslurm = \"-p gpu\"",
	  "config.toml:2:9: slurm must be an array of strings" },
	{ "[hosts.x]\nslurm = [1]",
	  "config.toml:2:10: slurm must be an array of strings" },
	{ "[settings]\nssh_command = \"\"",
	  "config.toml:2:15: ssh_command must not be empty" },

	/* A job's host: a [hosts] name or an ssh destination. */
	{ JOB "host = \"-oProxyCommand=x\"",
	  "config.toml:4:8: job web: host \"-oProxyCommand=x\": not a "
	  "[hosts] name or an ssh destination" },
	{ JOB "host = \"a b\"\n[hosts.a]\nssh = \"a\"",
	  "config.toml:4:8: job web: host \"a b\": not a [hosts] name or an "
	  "ssh destination" },
	{ JOB "host = \"me@\"",
	  "config.toml:4:8: job web: host \"me@\": not a [hosts] name or an "
	  "ssh destination" },
	{ JOB "host = \"@box\"",
	  "config.toml:4:8: job web: host \"@box\": not a [hosts] name or "
	  "an ssh destination" },
	{ JOB "host = \"a@b@c\"",
	  "config.toml:4:8: job web: host \"a@b@c\": not a [hosts] name or "
	  "an ssh destination" },
	{ JOB "host = \"me@-oProxyCommand=x\"",
	  "config.toml:4:8: job web: host \"me@-oProxyCommand=x\": not a "
	  "[hosts] name or an ssh destination" },
	{ JOB "host = \"box\\nx\"",
	  "config.toml:4:8: job web: host \"box\\nx\": not a [hosts] name "
	  "or an ssh destination" },
	{ JOB "host = \"\"",
	  "config.toml:4:8: host must not be empty" },
	{ JOB "host = 1",
	  "config.toml:4:8: host must be a string" },
	/* A stop command would run here, not on the job's host. */
	{ JOB "host = \"box\"\nstop_command = \"kill x\"",
	  "config.toml:5:16: job web: stop_command does not run on a host: "
	  "use stop_signal" },
};

START_TEST(test_parse_bad)
{
	struct config	*cfg = (struct config *)1;
	char		*cause = NULL;
	const char	*text = bad[_i].text;

	ck_assert_int_eq(config_parse("config.toml", text, strlen(text), &cfg,
	    &cause), -1);
	ck_assert_ptr_null(cfg);
	ck_assert_ptr_nonnull(cause);
	ck_assert_msg(strcmp(cause, bad[_i].want) == 0,
	    "case %d:\n got  %s\n want %s", _i, cause, bad[_i].want);
	free(cause);
}
END_TEST

/*
 * Configurations that must load, and what the settings (job -1), the
 * groups (job -2), [browser] (job -3), the hosts (job -4) or job number job (its options,
 * then its stack's) must then contain, as a substring of its dump.
 */
static const struct {
	const char	*text;
	int		 job;
	const char	*want;
} good[] = {
	/* On a timer: no autostart unless the table says so. */
	{ JOB "schedule = \"*/5 * * * *\"", 0, " autostart=0 " },
	{ JOB "schedule = \"*/5 * * * *\"", 0, "schedule=*/5 * * * * "
	  "every=(null) overlap=0 " },
	{ JOB "every = \"1h30m\"\noverlap = \"restart\"", 0,
	  "schedule=(null) every=1h30m overlap=2 " },
	{ JOB "every = \"500ms\"\noverlap = \"queue\"\nautostart = true", 0,
	  " autostart=1 " },
	{ JOB "every = \"100ms\"", 0, "every=100ms overlap=0 " },
	{ JOB, 0, " autostart=1 " },
	{ "", -1,
	  " shell=(null) scrollback=10000 kill_timeout=5 log_dir=(null) "
	  "focus_key=C-t max_running=0 keep_finished=100 " },
	{ "# only a comment\n\n[settings]\n", -1, " scrollback=10000 " },
	{ "[settings]\nshell = \"/bin/bash\"", -1, " shell=/bin/bash " },
	{ "[settings]\nscrollback = 1", -1, " scrollback=1 " },
	{ "[settings]\nscrollback = 0", -1, " scrollback=0 " },
	{ "[settings]\nscrollback = 1000000", -1, " scrollback=1000000 " },
	{ "[settings]\nscrollback = 5.0", -1, " scrollback=5 " },
	{ "[settings]\nscrollback = 1e3", -1, " scrollback=1000 " },
	{ "[settings]\nkill_timeout = 0.5", -1, " kill_timeout=0.5 " },
	{ "[settings]\nkill_timeout = 3600", -1, " kill_timeout=3600 " },
	{ "[settings]\nkill_timeout = -0.0", -1, " kill_timeout=0 " },
	{ "[settings]\nlog_dir = \"/var/log/jd\"", -1,
	  " log_dir=/var/log/jd " },
	{ "[settings]\nfocus_key = \"C-a\"", -1, " focus_key=C-a " },
	{ "[settings]\nfocus_key = \"C-Z\"", -1, " focus_key=C-Z " },
	{ "[settings]\nmax_running = 10000", -1, " max_running=10000 " },
	{ "[settings]\nkeep_finished = 0", -1, " keep_finished=0 " },
	{ "settings = { scrollback = 7, focus_key = \"C-b\" }", -1,
	  " scrollback=7 kill_timeout=5 log_dir=(null) focus_key=C-b " },
	{ "settings.max_running = 3", -1, " max_running=3 " },

	{ JOB, 0,
	  " name=web command=run args=(null) cwd=(null) env=[] inherit_env=1 "
	  "timeout=0 input=(null) autostart=1 restart=0 restart_delay=1 "
	  "max_restarts=5 pty=1 params=[] line=1 " },
	{ "[[job]]\nname = \"a.b-c_1\"\ncommand = \"x\"", 0, " name=a.b-c_1 " },
	{ "[[job]]\nname = \"1a\"\ncommand = \"x\"", 0, " name=1a " },
	{ JOB "args = []", 0, " args=[] " },
	{ JOB "args = [\"-c\", \"5\", \"\"]", 0, " args=[-c,5,] " },
	{ JOB "cwd = \"${HOME:-/tmp}/src\"", 0, " cwd=${HOME:-/tmp}/src " },
	{ JOB "env = { B = \"2\", A = \"1\", C = \"\" }", 0,
	  " env=[B=2,A=1,C=] " },
	{ JOB "env.PATH = \"/bin\"", 0, " env=[PATH=/bin] " },
	{ JOB "[job.env]\nX = \"y\"", 0, " env=[X=y] " },
	{ JOB "inherit_env = false", 0, " inherit_env=0 " },
	{ JOB "timeout = 0.25", 0, " timeout=0.25 " },
	{ JOB "timeout = 31536000", 0, " timeout=3.1536e+07 " },
	{ JOB "input = \"yes\\n\"", 0, " input=yes\n " },
	{ JOB "autostart = false", 0, " autostart=0 " },
	{ JOB "restart = \"no\"", 0, " restart=0 " },
	{ JOB "restart = \"on-failure\"", 0, " restart=1 " },
	{ JOB "restart = \"always\"", 0, " restart=2 " },
	{ JOB "restart_delay = 0", 0, " restart_delay=0 " },
	{ JOB "restart_delay = 2.5", 0, " restart_delay=2.5 " },
	{ JOB "max_restarts = 0", 0, " max_restarts=0 " },
	{ JOB "max_restarts = 1000000", 0, " max_restarts=1000000 " },
	{ JOB "pty = false", 0, " pty=0 " },
	{ JOB "params = { port = \"8080\", _x1 = \"\" }", 0,
	  " params=[port:8080,_x1:] " },
	{ "[[job]]\nname = \"a\"\ncommand = \"serve -p {port}\"\n"
	  "params = { port = \"1\" }", 0, " command=serve -p {port} " },
	/* Values quoted after sh -c, verbatim after it, in env. */
	{ "[[job]]\nname = \"a\"\ncommand = \"/bin/sh\"\n"
	  "args = [\"-ec\", \"echo `date` {x}\", \"sh\", \"`{x}`\"]\n"
	  "params = { x = \"1\" }", 0,
	  " args=[-ec,echo `date` {x},sh,`{x}`] " },
	{ "[[job]]\nname = \"a\"\ncommand = \"python3\"\n"
	  "args = [\"-c\", \"import sys; print(sys.argv[1])\", \"{x}\"]\n"
	  "params = { x = \"1\" }", 0, " name=a " },
	{ JOB "env = { D = \"${HOME}/{x}\", E = \"${D}\" }\n"
	  "params = { x = \"1\" }", 0, " env=[D=${HOME}/{x},E=${D}] " },
	/* Without a shell, {p} in backquotes is just text. */
	{ "[[job]]\nname = \"a\"\ncommand = \"x\"\nargs = [\"`{p}`\"]\n"
	  "params = { p = \"1\" }", 0, " args=[`{p}`] " },
	{ "[[job]]\nname = \"a\"\ncommand = \"echo $${X%.*} $HOME\"", 0,
	  " command=echo $${X%.*} $HOME " },
	{ "job = [{ name = \"a\", command = \"b\" }, "
	  "{ name = \"c\", command = \"d\", pty = false }]", 1,
	  " name=c command=d " },
	{ "\n\n" JOB "\n[[job]]\nname = \"db\"\ncommand = \"x\"", 1,
	  " name=db command=x args=(null) " },
	{ "\n\n" JOB "\n[[job]]\nname = \"db\"\ncommand = \"x\"", 1,
	  " line=7 " },
	{ "job = []", -1, " scrollback=10000 " },

	/* The stack's options: defaults, then each accepted form. */
	{ "", -1, " env_file=[] port_base=5000 " },
	{ JOB, 0,
	  " deps=[] ready=(null)|(null)|(null)|(null),1,1,0,0 "
	  "liveness=(null)|(null)|(null)|(null),1,1,0,3 env_file=[] port=0 "
	  "stop_signal=(null) stop_command=(null) stop_timeout=-1 "
	  "start_delay=0 restart_delay_max=60 replicas=1 group=(null) "
	  "priority=0 watch=[] watch_ignore=[] watch_debounce=0.5 " },
	{ "", -2, " groups=[] " },
	{ "[groups.backend]\nmax_running = 2\n\n[groups.batch-1]\n", -2,
	  " groups=[backend:2@1,batch-1:0@4] " },
	{ "groups = { a = { max_running = 1 }, b = {} }", -2,
	  " groups=[a:1@1,b:0@1] " },
	{ "groups.web.max_running = 7", -2, " groups=[web:7@1] " },
	/* env_file at the top level is [settings]' env_file, as written. */
	{ "env_file = [\".env\", \"../shared.env\"]\n" JOB, -1,
	  " env_file=[.env,../shared.env] " },
	{ "[settings]\nenv_file = [\"/etc/app.env\"]", -1,
	  " env_file=[/etc/app.env] " },
	{ "env_file = []", -1, " env_file=[] " },
	{ "[settings]\nport_base = 3000", -1, " port_base=3000 " },
	{ JOB "depends_on = { db = \"started\", mig = \"completed\", "
	  "api = \"ready\", x = \"completed_successfully\" }\n"
	  "[[job]]\nname = \"db\"\ncommand = \"y\"\n"
	  "[[job]]\nname = \"mig\"\ncommand = \"y\"\n"
	  "[[job]]\nname = \"api\"\ncommand = \"y\"\n"
	  "[[job]]\nname = \"x\"\ncommand = \"y\"", 0,
	  " deps=[db:0@4:16,mig:2@4:32,api:1@4:51,x:3@4:66] " },
	{ JOB "depends_on = { db = { condition = \"ready\", restart = true }, "
	  "mig = { condition = \"completed\" } }\n"
	  "[[job]]\nname = \"db\"\ncommand = \"y\"\n"
	  "[[job]]\nname = \"mig\"\ncommand = \"y\"", 0,
	  " deps=[db:1+restart@4:16,mig:2@4:62] " },
	/* A dependency on a later job, and a diamond: no cycle. */
	{ "[[job]]\nname = \"w\"\ncommand = \"x\"\n"
	  "depends_on = { a = \"ready\", b = \"ready\" }\n"
	  "[[job]]\nname = \"a\"\ncommand = \"x\"\n"
	  "depends_on = { db = \"started\" }\n"
	  "[[job]]\nname = \"b\"\ncommand = \"x\"\n"
	  "depends_on = { db = \"started\" }\n"
	  "[[job]]\nname = \"db\"\ncommand = \"x\"", 0,
	  " deps=[a:1@4:16,b:1@4:29] " },
	/* The browser, before or after [browser]; a job called browser. */
	{ JOB "depends_on = { browser = \"ready\", db = \"started\" }\n"
	  "[[job]]\nname = \"db\"\ncommand = \"y\"\n"
	  "[browser]\ncdp_url = \"auto\"", 0,
	  " deps=[browser(the browser):1@4:16,db:0@4:35] " },
	{ "[browser]\ncdp_url = \"ws://127.0.0.1:9222\"\n" JOB
	  "depends_on = { browser = \"started\" }", 0,
	  " deps=[browser(the browser):0@6:16] " },
	{ JOB "depends_on = { browser = \"completed\" }\n"
	  "[[job]]\nname = \"browser\"\ncommand = \"y\"\n"
	  "[browser]\ncdp_url = \"auto\"", 0,
	  " deps=[browser:2@4:16] " },
	/* "ready" on a job without a readiness probe: ready once started. */
	{ JOB "[[job]]\nname = \"w\"\ncommand = \"x\"\n"
	  "depends_on = { web = \"ready\" }", 1, " deps=[web:1@7:16] " },
	/* On a job with replicas: all of them. */
	{ JOB "replicas = 3\n[[job]]\nname = \"w\"\ncommand = \"x\"\n"
	  "[job.depends_on]\nweb = \"started\"", 1,
	  " deps=[web:0@9:1] " },
	{ JOB "replicas = 3\n[[job]]\nname = \"web.4\"\ncommand = \"x\"",
	  0, " replicas=3 " },
	/* The old naming is no replica's: web-1 is a job of its own. */
	{ JOB "replicas = 3\n[[job]]\nname = \"web-1\"\ncommand = \"x\"",
	  0, " replicas=3 " },
	{ JOB "replicas = 100", 0, " replicas=100 " },
	{ JOB "ready_log = \"^listening on (port )?[0-9]+$\"", 0,
	  " ready=^listening on (port )?[0-9]+$|(null)|(null)|(null),1,1,0,0 " },
	{ JOB "ready_cmd = \"pg_isready\"\nready_interval = 0.25\n"
	  "ready_timeout = 3\nready_initial_delay = 2\nready_retries = 10",
	  0, " ready=(null)|pg_isready|(null)|(null),0.25,3,2,10 " },
	{ JOB "ready_tcp = \"localhost:5432\"", 0,
	  " ready=(null)|(null)|localhost:5432|(null)," },
	{ JOB "ready_tcp = \"127.0.0.1:1\"", 0,
	  " ready=(null)|(null)|127.0.0.1:1|(null)," },
	{ JOB "ready_tcp = \"[::1]:65535\"", 0,
	  " ready=(null)|(null)|[::1]:65535|(null)," },
	{ JOB "ready_tcp = \"10.0.0.7:080\"", 0,
	  " ready=(null)|(null)|10.0.0.7:080|(null)," },
	{ JOB "ready_http = \"http://127.0.0.1:8765/\"", 0,
	  " ready=(null)|(null)|(null)|http://127.0.0.1:8765/," },
	{ JOB "ready_http = \"HTTPS://example.com/health?full=1\"", 0,
	  " ready=(null)|(null)|(null)|HTTPS://example.com/health?full=1," },
	/* One readiness and one liveness probe: fine. */
	{ JOB "ready_log = \"up\"\nliveness_http = \"http://h:1/ok\"\n"
	  "liveness_interval = 5\nliveness_timeout = 0.5\n"
	  "liveness_initial_delay = 10\nliveness_retries = 1", 0,
	  " ready=up|(null)|(null)|(null),1,1,0,0 "
	  "liveness=(null)|(null)|(null)|http://h:1/ok,5,0.5,10,1 " },
	{ JOB "liveness_tcp = \"[fe80::1%eth0]:22\"", 0,
	  " liveness=(null)|(null)|[fe80::1%eth0]:22|(null),1,1,0,3 " },
	{ JOB "liveness_cmd = \"curl -sf localhost\"", 0,
	  " liveness=(null)|curl -sf localhost|(null)|(null)," },
	{ JOB "env_file = [\".env\", \"/abs.env\"]", 0,
	  " env_file=[.env,/abs.env] " },
	{ JOB "port = 8080", 0, " port=8080 " },
	{ JOB "stop_signal = \"SIGINT\"", 0, " stop_signal=SIGINT " },
	{ JOB "stop_signal = \"INT\"", 0, " stop_signal=INT " },
	{ JOB "stop_signal = \"2\"", 0, " stop_signal=2 " },
	{ JOB "stop_signal = \"sigquit\"", 0, " stop_signal=sigquit " },
	{ JOB "stop_signal = \"RTMIN+2\"", 0, " stop_signal=RTMIN+2 " },
	{ JOB "stop_command = \"docker compose down\"\nstop_timeout = 0", 0,
	  " stop_command=docker compose down stop_timeout=0 " },
	{ JOB "start_delay = 1.5\nrestart_delay_max = 0", 0,
	  " start_delay=1.5 restart_delay_max=0 " },
	{ JOB "group = \"backend\"\npriority = -1000", 0,
	  " group=backend priority=-1000 " },
	{ JOB "watch = [\"src/**/*.py\"]\nwatch_ignore = [\"**/__pycache__\"]"
	  "\nwatch_debounce = 0", 0, " watch=[src/**/*.py] "
	  "watch_ignore=[**/__pycache__] watch_debounce=0 " },

	/* [browser]: absent, each mode, each option, each way to write it. */
	{ "", -3, " cdp_url=(null) image=(null) command=(null) args=[] "
	  "timeout=30 line=0 " },
	{ JOB "\n[browser]\n", -3, " cdp_url=(null) image=(null) "
	  "command=(null) args=[] timeout=30 line=5 " },
	{ "[browser]\ncdp_url = \"auto\"", -3, " cdp_url=auto image=(null) "
	  "command=(null) args=[] timeout=30 line=1 " },
	{ "\n[browser]\ncdp_url = false", -3, " cdp_url=(null) image=(null) "
	  "command=(null) args=[] timeout=30 line=2 " },
	{ "[browser]\ncdp_url = \"ws://localhost:9222\"", -3,
	  " cdp_url=ws://localhost:9222 " },
	{ "[browser]\ncdp_url = "
	  "\"ws://127.0.0.1:9222/devtools/browser/0f1e-2d3c\"", -3,
	  " cdp_url=ws://127.0.0.1:9222/devtools/browser/0f1e-2d3c " },
	/* Names are fine here: http.h resolves them off the loop. */
	{ "[browser]\ncdp_url = \"wss://chrome.internal:443/x?y=1\"", -3,
	  " cdp_url=wss://chrome.internal:443/x?y=1 " },
	{ "[browser]\ncdp_url = \"ws://browser_1:9222\"", -3,
	  " cdp_url=ws://browser_1:9222 " },
	{ "[browser]\ncdp_url = \"ws://[::1]:65535/\"", -3,
	  " cdp_url=ws://[::1]:65535/ " },
	/* Image, command and args without cdp_url: for a later start. */
	{ "[browser]\nbrowser_image = \"zenika/alpine-chrome:latest\"\n"
	  "browser_command = \"/opt/chrome/chrome\"\n"
	  "browser_args = [\"--disable-gpu\", \"--lang=en-GB\"]\n"
	  "browser_timeout = 2.5", -3, " cdp_url=(null) "
	  "image=zenika/alpine-chrome:latest command=/opt/chrome/chrome "
	  "args=[--disable-gpu,--lang=en-GB] timeout=2.5 line=1 " },
	{ "[browser]\nbrowser_args = []\nbrowser_timeout = 1", -3,
	  " args=[] timeout=1 " },
	{ "[browser]\nbrowser_timeout = 3600", -3, " timeout=3600 " },
	{ "browser = { cdp_url = \"auto\", browser_timeout = 5 }", -3,
	  " cdp_url=auto image=(null) command=(null) args=[] timeout=5 "
	  "line=1 " },
	{ "browser.cdp_url = \"auto\"", -3, " cdp_url=auto " },

	/* [hosts.NAME]: one of ssh and slurm; a job's host names one. */
	{ "[hosts.build]\nssh = \"deploy@build1.example\"\n"
	  "[hosts.gpu]\nslurm = [\"--partition=gpu\", \"--gres=gpu:1\"]\n"
	  "[hosts.any]\nslurm = []\n", -4,
	  " hosts=[build:deploy@build1.example:(null)@1,"
	  "gpu:(null):[--partition=gpu,--gres=gpu:1]@3,any:(null):[]@5] " },
	{ "hosts = { a = { ssh = \"ssh://me@box:2222\" } }", -4,
	  " hosts=[a:ssh://me@box:2222:(null)@1] " },
	{ "[settings]\nssh_command = \"ssh -F /x/config -p 2222\"", -1,
	  " ssh_command=ssh -F /x/config -p 2222 " },
	{ "[settings]\n", -1, " ssh_command=(null) " },
	{ JOB "host = \"gpu\"\n[hosts.gpu]\nslurm = []", 0, " host=gpu " },
	{ JOB "host = \"me@box.example\"", 0, " host=me@box.example " },
	{ JOB, 0, " host=(null) " },
	/* No [hosts.gpu], but "gpu" is an ssh destination (an alias). */
	{ JOB "host = \"gpu\"\n[hosts.build]\nssh = \"b\"", 0,
	  " host=gpu " },
	{ JOB "host = \"build.example:2222\"", 0,
	  " host=build.example:2222 " },
};

START_TEST(test_parse_good)
{
	struct config	*cfg;
	struct dump	 d = { "", 0 };

	cfg = parse_ok(good[_i].text);
	if (good[_i].job == -1)
		dump_settings(&d, cfg);
	else if (good[_i].job == -2)
		dump_groups(&d, cfg);
	else if (good[_i].job == -3)
		dump_browser(&d, cfg);
	else if (good[_i].job == -4)
		dump_hosts(&d, cfg);
	else {
		ck_assert_uint_gt(cfg->njobs, (size_t)good[_i].job);
		dump_job(&d, &cfg->jobs[good[_i].job]);
		dump_stack(&d, &cfg->jobs[good[_i].job]);
	}
	ck_assert_msg(strstr(d.buf, good[_i].want) != NULL,
	    "case %d:\n got  '%s'\n want '%s'", _i, d.buf, good[_i].want);
	ck_assert_ptr_null(cfg->path);
	config_free(cfg);
}
END_TEST

START_TEST(test_defaults_from_table)
{
	const struct config_option	*o;
	struct config			*def, *cfg;
	struct dump			 want = { "", 0 }, got;
	char				 text[512];
	size_t				 i;

	/* config_default(): the settings of the table, and no jobs. */
	def = config_default();
	ck_assert_uint_eq(def->njobs, 0);
	ck_assert_ptr_null(def->jobs);
	ck_assert_ptr_null(def->path);
	ck_assert_int_eq(def->settings.scrollback, 10000);
	ck_assert(def->settings.kill_timeout == 5);
	ck_assert_str_eq(def->settings.focus_key, "C-t");
	ck_assert_int_eq(def->settings.max_running, 0);
	ck_assert_int_eq(def->settings.keep_finished, 100);
	ck_assert_ptr_null(def->browser.cdp_url);
	ck_assert_ptr_null(def->browser.image);
	ck_assert(def->browser.timeout == 30);
	dump_settings(&want, def);
	config_free(def);

	/*
	 * Each default, written out as TOML, is valid, in bounds, and gives
	 * what the default gives.
	 */
	for (i = 0; i < config_noptions; i++) {
		o = &config_options[i];
		ck_assert_ptr_nonnull(o->help);
		ck_assert_msg(strlen(o->help) < 70, "%s: help too long",
		    o->name);
		if (o->def == NULL)
			continue;
		memset(&got, 0, sizeof got);
		if (strcmp(o->section, "settings") == 0) {
			snprintf(text, sizeof text, "[settings]\n%s = %s\n",
			    o->name, o->def);
			cfg = parse_ok(text);
			dump_settings(&got, cfg);
			ck_assert_str_eq(got.buf, want.buf);
		} else if (strcmp(o->section, "browser") == 0) {
			/* [browser] alone, then with the default. */
			struct dump	 plain = { "", 0 };
			struct config	*p = parse_ok("[browser]\n");

			dump_browser(&plain, p);
			config_free(p);
			snprintf(text, sizeof text, "[browser]\n%s = %s\n",
			    o->name, o->def);
			cfg = parse_ok(text);
			dump_browser(&got, cfg);
			ck_assert_str_eq(got.buf, plain.buf);
		} else if (strcmp(o->section, "groups") == 0) {
			/* A group's table alone, then with the default. */
			struct dump	 plain = { "", 0 };
			struct config	*p = parse_ok("[groups.g]\n");

			dump_groups(&plain, p);
			config_free(p);
			snprintf(text, sizeof text, "[groups.g]\n%s = %s\n",
			    o->name, o->def);
			cfg = parse_ok(text);
			dump_groups(&got, cfg);
			ck_assert_str_eq(got.buf, plain.buf);
		} else {
			struct dump	 plain = { "", 0 };
			struct config	*p = parse_ok(JOB);

			dump_job(&plain, &p->jobs[0]);
			dump_stack(&plain, &p->jobs[0]);
			config_free(p);
			snprintf(text, sizeof text, JOB "%s = %s\n", o->name,
			    o->def);
			cfg = parse_ok(text);
			dump_job(&got, &cfg->jobs[0]);
			dump_stack(&got, &cfg->jobs[0]);
			ck_assert_str_eq(got.buf, plain.buf);
		}
		config_free(cfg);
	}
}
END_TEST

/*
 * The store's limits from the settings: the defaults of the option table
 * are the store's own, and each setting lands in its limit, in bytes and
 * milliseconds.
 */
START_TEST(test_store_limits)
{
	struct store_limits	 want, got;
	struct config		*cfg;
	char			*cause = NULL;
	static const char	 text[] = "[settings]\nmax_log_size = 3\n"
	    "keep_history = 7\nkeep_history_days = 2\nmax_state_size = 5\n";

	store_default_limits(&want);
	cfg = config_default();
	config_store_limits(cfg, &got);
	ck_assert_int_eq(got.max_run_bytes, want.max_run_bytes);
	ck_assert_int_eq(got.keep_runs, want.keep_runs);
	ck_assert_int_eq(got.keep_age_ms, want.keep_age_ms);
	ck_assert_int_eq(got.max_total_bytes, want.max_total_bytes);
	config_free(cfg);
	ck_assert_int_eq(config_parse("config.toml", text, sizeof text - 1, &cfg,
	    &cause), 0);
	config_store_limits(cfg, &got);
	ck_assert_int_eq(got.max_run_bytes, 3 << 20);
	ck_assert_int_eq(got.keep_runs, 7);
	ck_assert_int_eq(got.keep_age_ms, 2 * 24 * 3600 * 1000LL);
	ck_assert_int_eq(got.max_total_bytes, 5 << 20);
	config_free(cfg);
	config_store_limits(NULL, &got);
	ck_assert_int_eq(got.max_run_bytes, want.max_run_bytes);
}
END_TEST

START_TEST(test_table_shape)
{
	const struct config_option	*o;
	size_t				 i, j;

	ck_assert_uint_eq(config_noptions, 75);
	for (i = 0; i < config_noptions; i++) {
		o = &config_options[i];
		ck_assert(strcmp(o->section, "settings") == 0 ||
		    strcmp(o->section, "job") == 0 ||
		    strcmp(o->section, "groups") == 0 ||
		    strcmp(o->section, "hosts") == 0 ||
		    strcmp(o->section, "browser") == 0);
		ck_assert_ptr_eq(config_find_option(o->section, o->name), o);
		/* Names are unique in a section. */
		for (j = 0; j < i; j++) {
			if (strcmp(config_options[j].section, o->section) == 0)
				ck_assert_str_ne(config_options[j].name,
				    o->name);
		}
		/* A name in two sections is the same kind of option. */
		for (j = 0; j < i; j++) {
			if (strcmp(config_options[j].name, o->name) != 0)
				continue;
			ck_assert_int_eq(config_options[j].type, o->type);
			ck_assert(config_options[j].min == o->min);
			ck_assert(config_options[j].max == o->max);
		}
		if (o->type == CONFIG_INT || o->type == CONFIG_NUMBER)
			ck_assert(o->min < o->max);
		if (o->type == CONFIG_ENUM)
			ck_assert_ptr_nonnull(o->choices);
		/* What true is written as, what false means. */
		if (o->type == CONFIG_STRING_OR_FALSE) {
			ck_assert_ptr_nonnull(o->choices);
			ck_assert_ptr_nonnull(o->off);
			ck_assert_str_eq(o->def, "false");
		}
	}
	ck_assert_ptr_null(config_find_option("settings", "name"));
	ck_assert_ptr_null(config_find_option("job", "nope"));
	ck_assert_ptr_nonnull(config_find_option("groups", "max_running"));
	ck_assert_ptr_null(config_find_option("groups", "name"));
	ck_assert_ptr_null(config_find_option(NULL, "name"));
	ck_assert_str_eq(config_type_name(CONFIG_INT), "integer");
	ck_assert_str_eq(config_type_name(CONFIG_STRING_TABLE),
	    "table of strings");
	ck_assert_str_eq(config_type_name(CONFIG_STRING_OR_FALSE),
	    "string or false");
	ck_assert_ptr_nonnull(config_find_option("browser", "cdp_url"));
	ck_assert_ptr_null(config_find_option("settings", "cdp_url"));
}
END_TEST

/* Parse text that must fail with exactly want. */
static void
keys_error(const char *text, const char *want)
{
	struct config	*cfg = NULL;
	char		*cause = NULL;

	ck_assert_int_eq(config_parse("config.toml", text, strlen(text), &cfg,
	    &cause), -1);
	ck_assert_ptr_null(cfg);
	ck_assert_msg(cause != NULL && strcmp(cause, want) == 0,
	    "%s\ngave: %s\nwant: %s", text, cause, want);
	free(cause);
}

/* [keys]: rebinding, arrays, unbinding, the focus_key alias, errors. */
START_TEST(test_keys)
{
	struct config	*cfg;
	struct bind	*b;
	char		*cause = NULL;
	const char	*text;

	text = "[settings]\nfocus_key = \"C-b\"\n[keys]\nnext-job = \"C-g\"\n"
	    "zoom = [\"F5\", \"C-o\"]\npaste = \"none\"\ncopy-mode = []\n"
	    "focus = \"C-a\"\n[keys.view]\nquit = \"x\"\n[keys.edit]\n"
	    "home = \"Home\"\n";
	ck_assert_int_eq(config_parse("config.toml", text, strlen(text), &cfg,
	    &cause), 0);
	ck_assert_uint_eq(cfg->nkeys, 7);
	ck_assert_str_eq(cfg->keys[1].keys, "F5 C-o");
	ck_assert_str_eq(cfg->keys[3].keys, "none");
	ck_assert_int_eq(cfg->keys[0].line, 4);
	ck_assert_int_eq(cfg->keys[0].col, 12);
	b = bind_new();
	config_apply_keys(cfg, b);
	ck_assert_int_eq(bind_lookup(b, BIND_MAIN, 7), BIND_NEXT_JOB);
	ck_assert_int_eq(bind_lookup(b, BIND_MAIN, 14), BIND_NONE);
	ck_assert_int_eq(bind_lookup(b, BIND_MAIN, BIND_CURSES | KEY_F(5)),
	    BIND_ZOOM);
	ck_assert_int_eq(bind_lookup(b, BIND_MAIN, 15), BIND_ZOOM);
	ck_assert_int_eq(bind_lookup(b, BIND_MAIN, 26), BIND_NONE);
	ck_assert_int_eq(bind_first_key(b, BIND_MAIN, BIND_PASTE),
	    BIND_NO_KEY);
	ck_assert_int_eq(bind_first_key(b, BIND_MAIN, BIND_COPY_MODE),
	    BIND_NO_KEY);
	/* keys.focus wins over focus_key, and C-a left the line editor. */
	ck_assert_int_eq(bind_first_key(b, BIND_MAIN, BIND_FOCUS), 1);
	ck_assert_int_eq(bind_lookup(b, BIND_MAIN, 2), BIND_NONE);
	ck_assert_int_eq(bind_lookup(b, BIND_EDIT, 1), BIND_NONE);
	ck_assert_int_eq(bind_lookup(b, BIND_VIEW, 'x'), BIND_QUIT);
	ck_assert_int_eq(bind_lookup(b, BIND_VIEW, 'q'), BIND_NONE);
	bind_free(b);
	config_free(cfg);

	/* focus_key alone is the focus key. */
	text = "[settings]\nfocus_key = \"C-g\"\n";
	ck_assert_int_eq(config_parse("config.toml", text, strlen(text), &cfg,
	    &cause), 0);
	b = bind_new();
	config_apply_keys(cfg, b);
	ck_assert_int_eq(bind_first_key(b, BIND_MAIN, BIND_FOCUS), 7);
	ck_assert_int_eq(bind_lookup(b, BIND_MAIN, 0x14), BIND_NONE);
	bind_free(b);
	config_free(cfg);

	keys_error("[keys]\nzom = \"C-g\"",
	    "config.toml:2:1: unknown action 'zom' in [keys] (did you mean "
	    "'zoom'?)");
	keys_error("[keys.view]\nzoom = \"z\"",
	    "config.toml:2:1: unknown action 'zoom' in [keys.view]");
	keys_error("[keys]\nzoom = \"C-gg\"",
	    "config.toml:2:8: unknown key 'C-gg': use a character, C-a to "
	    "C-z, Enter, Tab, Esc, Space, Backspace, Up, Down, Left, Right, "
	    "Home, End, PageUp, PageDown, Insert, Delete, S-Home, S-End, "
	    "S-PageUp, S-PageDown or F1 to F63");
	keys_error("[keys]\nzoom = [\"F5\",\n  \"Hyper-x\"]",
	    "config.toml:3:3: unknown key 'Hyper-x': use a character, C-a to "
	    "C-z, Enter, Tab, Esc, Space, Backspace, Up, Down, Left, Right, "
	    "Home, End, PageUp, PageDown, Insert, Delete, S-Home, S-End, "
	    "S-PageUp, S-PageDown or F1 to F63");
	keys_error("[keys]\nzoom = \"z\"",
	    "config.toml:2:8: 'z' is typed text at the prompt: bind a control "
	    "or named key");
	keys_error("[keys.edit]\nhome = \"Space\"",
	    "config.toml:2:8: 'Space' is typed text at the prompt: bind a "
	    "control or named key");
	keys_error("[keys]\nfocus = \"F5\"",
	    "config.toml:2:9: the focus key must be a character key such as "
	    "C-t: it is compared before keys are decoded for the job");
	keys_error("[keys]\nfocus = \"none\"",
	    "config.toml:2:9: the focus key cannot be unbound: it is the only "
	    "way out of focus mode");
	keys_error("[keys]\nfocus = []",
	    "config.toml:2:9: the focus key cannot be unbound: it is the only "
	    "way out of focus mode");
	keys_error("[keys]\nzoom = \"C-t\"",
	    "config.toml:2:8: zoom takes the focus key, which must be left "
	    "with one: bind focus to another key too");
	keys_error("[keys]\nzoom = 5",
	    "config.toml:2:8: zoom in [keys] must be a key name or an array "
	    "of them");
	keys_error("[keys]\nzoom = [5]",
	    "config.toml:2:9: zoom in [keys]: each key must be a string with "
	    "one key name");
	keys_error("[keys]\nzoom = \"\"",
	    "config.toml:2:8: zoom in [keys] must name keys (\"none\" "
	    "unbinds it)");
	keys_error("keys = 1",
	    "config.toml:1:8: keys must be a table ([keys])");
	keys_error("[key]\nzoom = \"F5\"",
	    "config.toml:1:1: unknown table [key] (did you mean [keys]?)");
	/* Taking the focus key is fine when focus gets another later. */
	text = "[keys]\nzoom = \"C-t\"\nfocus = \"C-g\"\n";
	ck_assert_int_eq(config_parse("config.toml", text, strlen(text), &cfg,
	    &cause), 0);
	config_free(cfg);
}
END_TEST

START_TEST(test_find_job)
{
	struct config	*cfg;

	cfg = parse_ok(JOB "[[job]]\nname = \"db\"\ncommand = \"pg\"\n");
	ck_assert_uint_eq(cfg->njobs, 2);
	ck_assert_ptr_eq(config_find_job(cfg, "web"), &cfg->jobs[0]);
	ck_assert_ptr_eq(config_find_job(cfg, "db"), &cfg->jobs[1]);
	ck_assert_ptr_null(config_find_job(cfg, "we"));
	ck_assert_ptr_null(config_find_job(cfg, NULL));
	ck_assert_ptr_null(config_find_job(NULL, "db"));
	config_free(cfg);
	config_free(NULL);
}
END_TEST

/* Procfiles: good ones, and the errors with "NAME:LINE: " in front. */
static const struct {
	const char	*text;
	const char	*want;		/* NULL: must parse */
} procfiles[] = {
	{ "web: bundle exec rails s -p ${PORT:-5000}\n"
	  "# a comment\n\nworker:   sidekiq -q default  \n", NULL },
	{ "", NULL },
	{ "web\n", "Procfile:1: expected 'name: command'" },
	{ "web: a\n12: b\n",
	  "Procfile:2: job name '12' must not be all digits (ids are "
	  "numbers)" },
	{ "web: a\nweb: b\n", "Procfile:2: duplicate name 'web' (first on "
	  "line 1)" },
	{ "web: echo ${\n", "Procfile:1: command: unterminated ${ at column "
	  "6" },
};

START_TEST(test_procfile)
{
	struct config	*cfg = NULL;
	char		*cause = NULL;
	const char	*text = procfiles[_i].text;
	int		 r;

	r = config_parse_procfile("Procfile", text, strlen(text), &cfg,
	    &cause);
	if (procfiles[_i].want != NULL) {
		ck_assert_int_eq(r, -1);
		ck_assert_ptr_null(cfg);
		ck_assert_str_eq(cause, procfiles[_i].want);
		free(cause);
		return;
	}
	ck_assert_msg(r == 0, "case %d: %s", _i, cause);
	ck_assert_ptr_null(cause);
	ck_assert_int_eq(cfg->settings.scrollback, 10000);
	/* A Procfile has no [browser]: none, with the table's defaults. */
	ck_assert_ptr_null(cfg->browser.cdp_url);
	ck_assert_ptr_null(cfg->browser.args);
	ck_assert(cfg->browser.timeout == 30);
	ck_assert_int_eq(cfg->browser.line, 0);
	if (_i == 0) {
		struct dump	d = { "", 0 };

		ck_assert_uint_eq(cfg->njobs, 2);
		dump_job(&d, &cfg->jobs[1]);
		ck_assert_str_eq(d.buf, " name=worker command=sidekiq -q "
		    "default args=(null) cwd=(null) env=[] inherit_env=1 "
		    "timeout=0 input=(null) autostart=1 restart=0 "
		    "restart_delay=1 max_restarts=5 pty=1 params=[] line=4 ");
		ck_assert_str_eq(cfg->jobs[0].command,
		    "bundle exec rails s -p ${PORT:-5000}");
		ck_assert_int_eq(cfg->jobs[0].line, 1);
	} else
		ck_assert_uint_eq(cfg->njobs, 0);
	config_free(cfg);
}
END_TEST

/*
 * ready_log must compile as a POSIX ERE within rxbound.h's bounds; the
 * message is regerror()'s, which the C library words, or rxbound's, after
 * the option's own words.
 */
START_TEST(test_ready_log_regex)
{
	static const char	*bad_re[] = { "a(", "(b", "x{2,1}", "[z-a]",
				    "a**(", "(a?){500}", "(a)\\\\1" };
	struct config		*cfg = NULL;
	char			 text[256], *cause = NULL;
	const char		*want = "config.toml:4:13: ready_log is not a "
				    "valid regex (ERE): ";
	size_t			 i;

	for (i = 0; i < sizeof bad_re / sizeof bad_re[0]; i++) {
		snprintf(text, sizeof text, JOB "ready_log = \"%s\"",
		    bad_re[i]);
		ck_assert_int_eq(config_parse("config.toml", text,
		    strlen(text), &cfg, &cause), -1);
		ck_assert_ptr_null(cfg);
		ck_assert_msg(strncmp(cause, want, strlen(want)) == 0 &&
		    strlen(cause) > strlen(want), "%s: %s", bad_re[i], cause);
		free(cause);
		cause = NULL;
	}
	/* ERE, not BRE: a(b)+ and x{2} are fine, and \( is a parenthesis. */
	cfg = parse_ok(JOB "ready_log = 'a(b)+ x{2} \\( [[:digit:]]$'");
	ck_assert_str_eq(cfg->jobs[0].ready.log, "a(b)+ x{2} \\( [[:digit:]]$");
	config_free(cfg);
}
END_TEST

/*
 * A Procfile's jobs get $PORT as foreman gives it: port_base (5000) for
 * the first process type, 100 more for each after it; --port-base moves
 * them all (config_set_port_base()), and a port past 65535 is none.
 */
START_TEST(test_procfile_ports)
{
	struct config	*cfg = NULL;
	char		*cause = NULL, *text;
	const char	*three = "web: a\n# c\n\nworker: b\nclock: c\n";
	size_t		 i, len;

	ck_assert_int_eq(config_parse_procfile("Procfile", three,
	    strlen(three), &cfg, &cause), 0);
	ck_assert_int_eq(cfg->procfile, 1);
	ck_assert_int_eq(cfg->settings.port_base, 5000);
	ck_assert_int_eq(cfg->jobs[0].port, 5000);
	ck_assert_int_eq(cfg->jobs[1].port, 5100);
	ck_assert_int_eq(cfg->jobs[2].port, 5200);

	config_set_port_base(cfg, 3000);
	ck_assert_int_eq(cfg->settings.port_base, 3000);
	ck_assert_int_eq(cfg->jobs[0].port, 3000);
	ck_assert_int_eq(cfg->jobs[1].port, 3100);
	ck_assert_int_eq(cfg->jobs[2].port, 3200);

	config_set_port_base(cfg, 65400);
	ck_assert_int_eq(cfg->jobs[0].port, 65400);
	ck_assert_int_eq(cfg->jobs[1].port, 65500);
	ck_assert_int_eq(cfg->jobs[2].port, 0);

	config_set_port_base(cfg, 1);
	ck_assert_int_eq(cfg->jobs[2].port, 201);
	config_free(cfg);

	/* As many process types as a Procfile may have (256). */
	len = 0;
	text = malloc(PROCFILE_MAX_ENTRIES * 16);
	ck_assert_ptr_nonnull(text);
	for (i = 0; i < PROCFILE_MAX_ENTRIES; i++)
		len += (size_t)sprintf(text + len, "p%zu: x\n", i);
	ck_assert_int_eq(config_parse_procfile("Procfile", text, len, &cfg,
	    &cause), 0);
	ck_assert_int_eq(cfg->jobs[PROCFILE_MAX_ENTRIES - 1].port,
	    5000 + 100 * (PROCFILE_MAX_ENTRIES - 1));
	config_set_port_base(cfg, 60000);
	ck_assert_int_eq(cfg->jobs[55].port, 65500);
	ck_assert_int_eq(cfg->jobs[56].port, 0);
	ck_assert_int_eq(cfg->jobs[PROCFILE_MAX_ENTRIES - 1].port, 0);
	config_free(cfg);
	free(text);

	/* A TOML file's jobs keep the ports they set: base is a setting. */
	cfg = parse_ok(JOB "port = 8080\n[[job]]\nname = \"db\"\n"
	    "command = \"x\"\n");
	ck_assert_int_eq(cfg->procfile, 0);
	config_set_port_base(cfg, 3000);
	ck_assert_int_eq(cfg->settings.port_base, 3000);
	ck_assert_int_eq(cfg->jobs[0].port, 8080);
	ck_assert_int_eq(cfg->jobs[1].port, 0);
	config_free(cfg);

	/* The defaults alone: no jobs, the base set. */
	cfg = config_default();
	ck_assert_int_eq(cfg->procfile, 0);
	config_set_port_base(cfg, 7000);
	ck_assert_int_eq(cfg->settings.port_base, 7000);
	config_free(cfg);
}
END_TEST

START_TEST(test_load_procfile_by_name)
{
	struct config	*cfg;
	char		*cause = NULL;
	const char	*path;

	path = put("Procfile", "web: serve\n", 0644);
	ck_assert_int_eq(config_load(path, 0, &cfg, &cause), 0);
	ck_assert_uint_eq(cfg->njobs, 1);
	ck_assert_str_eq(cfg->jobs[0].name, "web");
	ck_assert_str_eq(cfg->path, path);
	config_free(cfg);

	path = put("Procfile.dev", "db: pg\n", 0600);
	ck_assert_int_eq(config_load(path, 0, &cfg, &cause), 0);
	ck_assert_str_eq(cfg->jobs[0].command, "pg");
	config_free(cfg);

	/* Any name with the flag; a Procfile error names the file. */
	path = put("jobs.txt", "web serve\n", 0600);
	ck_assert_int_eq(config_load(path, 1, &cfg, &cause), -1);
	ck_assert_ptr_null(cfg);
	ck_assert_ptr_nonnull(strstr(cause, "/jobs.txt:1: expected"));
	free(cause);

	/* Without the flag, the same file is TOML. */
	ck_assert_int_eq(config_load(path, 0, &cfg, &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "/jobs.txt:1:"));
	free(cause);

	/* "Procfiles" and "my.Procfile" are not Procfiles. */
	path = put("Procfiles", "web: serve\n", 0600);
	ck_assert_int_eq(config_load(path, 0, &cfg, &cause), -1);
	free(cause);
}
END_TEST

/*
 * A .env beside a loaded Procfile is every job's env_file, as an
 * absolute path however the Procfile was named; none when there is no
 * .env; a TOML file's env_file paths stay as written.
 */
START_TEST(test_load_procfile_env)
{
	struct config	*cfg = NULL;
	char		*cause = NULL, want[PATH_MAX * 2], sub[PATH_MAX * 2];
	char		 path[PATH_MAX * 2];

	/* No .env: no env_file. */
	snprintf(path, sizeof path, "%s", put("Procfile", "web: serve\n",
	    0600));
	ck_assert_int_eq(config_load(path, 0, &cfg, &cause), 0);
	ck_assert_uint_eq(cfg->settings.nenv_file, 0);
	ck_assert_ptr_null(cfg->settings.env_file);
	ck_assert_int_eq(cfg->jobs[0].port, 5000);
	config_free(cfg);

	put(".env", "A=1\n", 0600);
	snprintf(want, sizeof want, "%s/.env", tmp);
	ck_assert_int_eq(config_load(path, 0, &cfg, &cause), 0);
	ck_assert_uint_eq(cfg->settings.nenv_file, 1);
	ck_assert_str_eq(cfg->settings.env_file[0], want);
	ck_assert_ptr_null(cfg->settings.env_file[1]);
	config_free(cfg);

	/* Named by -f (any name), and relative to the working directory. */
	snprintf(path, sizeof path, "%s", put("jobs.txt", "web: serve\n",
	    0600));
	ck_assert_int_eq(config_load(path, 1, &cfg, &cause), 0);
	ck_assert_str_eq(cfg->settings.env_file[0], want);
	config_free(cfg);
	ck_assert_int_eq(chdir(tmp), 0);
	ck_assert_int_eq(config_load("Procfile", 0, &cfg, &cause), 0);
	ck_assert_str_eq(cfg->settings.env_file[0], want);
	config_free(cfg);
	ck_assert_int_eq(config_load("./jobs.txt", 1, &cfg, &cause), 0);
	ck_assert_str_eq(cfg->settings.env_file[0], want);
	config_free(cfg);

	/* In a directory below, through "..": still an absolute path. */
	snprintf(sub, sizeof sub, "%s/sub", tmp);
	ck_assert_int_eq(mkdir(sub, 0700), 0);
	put("sub/Procfile.dev", "a: x\nb: y\n", 0600);
	put("sub/.env", "B=2\n", 0600);
	ck_assert_int_eq(chdir(sub), 0);
	ck_assert_int_eq(config_load("../sub/Procfile.dev", 0, &cfg, &cause),
	    0);
	snprintf(want, sizeof want, "%s/sub/.env", tmp);
	ck_assert_str_eq(cfg->settings.env_file[0], want);
	ck_assert_int_eq(cfg->jobs[1].port, 5100);
	config_free(cfg);

	/* TOML: the paths as written, even with a .env beside it. */
	snprintf(path, sizeof path, "%s", put("config.toml", "env_file = "
	    "[\".env\"]\n" JOB "env_file = [\"local.env\"]\n", 0600));
	ck_assert_int_eq(config_load(path, 0, &cfg, &cause), 0);
	ck_assert_str_eq(cfg->settings.env_file[0], ".env");
	ck_assert_str_eq(cfg->jobs[0].env_file[0], "local.env");
	ck_assert_int_eq(cfg->procfile, 0);
	config_free(cfg);
	ck_assert_int_eq(config_load(put("bare.toml", JOB, 0600), 0, &cfg,
	    &cause), 0);
	ck_assert_ptr_null(cfg->settings.env_file);
	config_free(cfg);
}
END_TEST

START_TEST(test_load_errors)
{
	struct config	*cfg = NULL;
	char		*cause = NULL, want[PATH_MAX * 3], big[PATH_MAX * 2];
	const char	*path;
	int		 fd;

	/* A missing explicit file. */
	snprintf(want, sizeof want, "cannot open %s/x.toml: No such file or "
	    "directory", tmp);
	snprintf(big, sizeof big, "%s/x.toml", tmp);
	ck_assert_int_eq(config_load(big, 0, &cfg, &cause), -1);
	ck_assert_ptr_null(cfg);
	ck_assert_str_eq(cause, want);
	free(cause);

	/* A syntax error names the file as given. */
	path = put("bad.toml", "[settings]\nscrollback = \"x\"\n", 0600);
	snprintf(want, sizeof want, "%s: scrollback must be an integer "
	    "between 0 and 1000000", "2:14");
	ck_assert_int_eq(config_load(path, 0, &cfg, &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, want));
	ck_assert_int_eq(strncmp(cause, path, strlen(path)), 0);
	free(cause);

	/* A directory. */
	snprintf(want, sizeof want, "cannot read %s: Is a directory", tmp);
	ck_assert_int_eq(config_load(tmp, 0, &cfg, &cause), -1);
	ck_assert_str_eq(cause, want);
	free(cause);

	/* Larger than 16 MiB (a sparse file). */
	snprintf(big, sizeof big, "%s/big.toml", tmp);
	fd = open(big, O_WRONLY | O_CREAT, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, 16 * 1024 * 1024 + 1), 0);
	close(fd);
	snprintf(want, sizeof want, "%s: larger than 16 MiB", big);
	ck_assert_int_eq(config_load(big, 0, &cfg, &cause), -1);
	ck_assert_str_eq(cause, want);
	free(cause);

	/* /dev/null is the empty configuration. */
	ck_assert_int_eq(config_load("/dev/null", 0, &cfg, &cause), 0);
	ck_assert_uint_eq(cfg->njobs, 0);
	ck_assert_str_eq(cfg->path, "/dev/null");
	config_free(cfg);

	/* Other devices are not. */
	ck_assert_int_eq(config_load("/dev/zero", 0, &cfg, &cause), -1);
	ck_assert_str_eq(cause, "/dev/zero: not a regular file");
	free(cause);
}
END_TEST

START_TEST(test_load_permissions)
{
	struct config	*cfg = NULL;
	char		*cause = NULL, want[PATH_MAX * 3];
	const char	*path;

	path = put("config.toml", JOB, 0666);
	snprintf(want, sizeof want, "%s: writable by others (mode 0666); "
	    "chmod go-w it", path);
	ck_assert_int_eq(config_load(path, 0, &cfg, &cause), -1);
	ck_assert_ptr_null(cfg);
	ck_assert_str_eq(cause, want);
	free(cause);

	path = put("config.toml", JOB, 0620);
	snprintf(want, sizeof want, "%s: writable by group (mode 0620); "
	    "chmod go-w it", path);
	ck_assert_int_eq(config_load(path, 0, &cfg, &cause), -1);
	ck_assert_str_eq(cause, want);
	free(cause);

	/* A Procfile too: it holds commands just the same. */
	path = put("Procfile", "web: x\n", 0602);
	snprintf(want, sizeof want, "%s: writable by others (mode 0602); "
	    "chmod go-w it", path);
	ck_assert_int_eq(config_load(path, 0, &cfg, &cause), -1);
	ck_assert_str_eq(cause, want);
	free(cause);

	path = put("config.toml", JOB, 0644);
	ck_assert_int_eq(config_load(path, 0, &cfg, &cause), 0);
	ck_assert_uint_eq(cfg->njobs, 1);
	config_free(cfg);

	/* Owned by someone else (only root can arrange that). */
	if (geteuid() == 0) {
		path = put("config.toml", JOB, 0644);
		ck_assert_int_eq(chown(path, 12345, 12345), 0);
		snprintf(want, sizeof want, "%s: owned by another user (uid "
		    "12345); it must be yours or root's", path);
		ck_assert_int_eq(config_load(path, 0, &cfg, &cause), -1);
		ck_assert_str_eq(cause, want);
		free(cause);
	}
}
END_TEST

START_TEST(test_default_path)
{
	char	*p, want[PATH_MAX * 2];

	setenv("XDG_CONFIG_HOME", "/xdg", 1);
	setenv("HOME", "/home/u", 1);
	p = config_default_path();
	ck_assert_str_eq(p, "/xdg/jobdeck/config.toml");
	free(p);

	/* A relative XDG_CONFIG_HOME is ignored, as the spec says. */
	setenv("XDG_CONFIG_HOME", "rel", 1);
	p = config_default_path();
	ck_assert_str_eq(p, "/home/u/.config/jobdeck/config.toml");
	free(p);
	setenv("XDG_CONFIG_HOME", "", 1);
	p = config_default_path();
	ck_assert_str_eq(p, "/home/u/.config/jobdeck/config.toml");
	free(p);
	unsetenv("XDG_CONFIG_HOME");
	p = config_default_path();
	ck_assert_str_eq(p, "/home/u/.config/jobdeck/config.toml");
	free(p);

	unsetenv("HOME");
	ck_assert_ptr_null(config_default_path());

	snprintf(want, sizeof want, "%s/jobdeck/config.toml", tmp);
	setenv("XDG_CONFIG_HOME", tmp, 1);
	p = config_default_path();
	ck_assert_str_eq(p, want);
	free(p);
}
END_TEST

START_TEST(test_load_default)
{
	struct config	*cfg = NULL;
	char		*cause = NULL, dir[PATH_MAX * 2];

	/* The default file missing (even its directory): the defaults. */
	setenv("XDG_CONFIG_HOME", tmp, 1);
	ck_assert_int_eq(config_load(NULL, 0, &cfg, &cause), 0);
	ck_assert_ptr_null(cause);
	ck_assert_ptr_null(cfg->path);
	ck_assert_uint_eq(cfg->njobs, 0);
	ck_assert_int_eq(cfg->settings.scrollback, 10000);
	config_free(cfg);

	/* No HOME and no XDG_CONFIG_HOME: the defaults as well. */
	unsetenv("XDG_CONFIG_HOME");
	unsetenv("HOME");
	ck_assert_int_eq(config_load(NULL, 0, &cfg, &cause), 0);
	ck_assert_ptr_null(cfg->path);
	config_free(cfg);

	/* Once there, it is read. */
	setenv("XDG_CONFIG_HOME", tmp, 1);
	snprintf(dir, sizeof dir, "%s/jobdeck", tmp);
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	put("jobdeck/config.toml", "[settings]\nscrollback = 42\n" JOB, 0600);
	ck_assert_int_eq(config_load(NULL, 0, &cfg, &cause), 0);
	ck_assert_int_eq(cfg->settings.scrollback, 42);
	ck_assert_uint_eq(cfg->njobs, 1);
	ck_assert_ptr_nonnull(cfg->path);
	ck_assert_ptr_nonnull(strstr(cfg->path, "/jobdeck/config.toml"));
	config_free(cfg);

	/* A bad default file is an error like any other. */
	put("jobdeck/config.toml", "[settings]\nscrollback = -1\n", 0600);
	ck_assert_int_eq(config_load(NULL, 0, &cfg, &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "/jobdeck/config.toml:2:14: "
	    "scrollback must be"));
	free(cause);

	/* Through $HOME when XDG_CONFIG_HOME is unset. */
	unsetenv("XDG_CONFIG_HOME");
	setenv("HOME", tmp, 1);
	snprintf(dir, sizeof dir, "%s/.config", tmp);
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	snprintf(dir, sizeof dir, "%s/.config/jobdeck", tmp);
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	put(".config/jobdeck/config.toml", "[settings]\nmax_running = 2\n",
	    0600);
	ck_assert_int_eq(config_load(NULL, 0, &cfg, &cause), 0);
	ck_assert_int_eq(cfg->settings.max_running, 2);
	config_free(cfg);
}
END_TEST

START_TEST(test_example_file)
{
	static const char *const uncomment[] = { "\n#[browser]\n",
	    "\n#cdp_url = \"auto\"\n", "\n#browser_image = ",
	    "\n#browser_command = ", "\n#browser_args = ",
	    "\n#browser_timeout = " };
	const struct config_job	*j;
	struct config		*cfg = NULL;
	char			*text, *cause = NULL;
	const char		*path;
	size_t			 len, i, k;

	/* Loaded through config_load() from a private copy (mode 0600). */
	text = slurp("config.toml.example", &len);
	path = put("example.toml", text, 0600);
	free(text);
	if (config_load(path, 0, &cfg, &cause) != 0)
		ck_abort_msg("config.toml.example: %s", cause);

	ck_assert_int_eq(cfg->settings.scrollback, 10000);
	ck_assert_str_eq(cfg->settings.focus_key, "C-t");
	ck_assert_int_eq(cfg->settings.keep_finished, 100);
	ck_assert_int_eq(cfg->settings.port_base, 5000);
	ck_assert_uint_eq(cfg->settings.nenv_file, 0);

	/*
	 * The stack make run starts: migrate ends, web waits for it and is
	 * ready when it answers HTTP on its port, worker waits for both.
	 */
	ck_assert_uint_eq(cfg->njobs, 3);
	j = config_find_job(cfg, "migrate");
	ck_assert_ptr_nonnull(j);
	ck_assert_uint_eq(j->ndeps, 0);
	ck_assert_int_eq(j->restart, CONFIG_RESTART_NO);
	ck_assert_uint_eq(j->nenv, 1);
	ck_assert_int_eq(strncmp(j->env[0], "DEMO=", 5), 0);

	j = config_find_job(cfg, "web");
	ck_assert_ptr_nonnull(j);
	ck_assert_ptr_nonnull(strstr(j->command, "python3 -m http.server"));
	ck_assert_int_eq(j->port, 8765);
	ck_assert_ptr_nonnull(strstr(j->command, "${PORT:-8765}"));
	ck_assert_str_eq(j->ready.http, "http://127.0.0.1:8765/");
	ck_assert_uint_eq(j->ndeps, 1);
	ck_assert_str_eq(j->deps[0].name, "migrate");
	ck_assert_int_eq(j->deps[0].cond, CONFIG_COND_COMPLETED_OK);
	ck_assert_str_eq(j->stop_signal, "SIGINT");
	ck_assert_str_eq(j->group, "stack");

	j = config_find_job(cfg, "worker");
	ck_assert_ptr_nonnull(j);
	ck_assert_str_eq(j->command, "python3");
	ck_assert_uint_eq(j->nargs, 3);
	ck_assert_ptr_nonnull(strstr(j->args[2], "http://127.0.0.1:8765/"));
	ck_assert_uint_eq(j->ndeps, 2);
	ck_assert_str_eq(j->deps[0].name, "web");
	ck_assert_int_eq(j->deps[0].cond, CONFIG_COND_READY);
	ck_assert_str_eq(j->deps[1].name, "migrate");
	ck_assert_int_eq(j->deps[1].cond, CONFIG_COND_COMPLETED_OK);
	ck_assert_int_eq(j->restart, CONFIG_RESTART_ON_FAILURE);

	ck_assert_uint_eq(cfg->ngroups, 1);
	ck_assert_str_eq(cfg->groups[0].name, "stack");
	ck_assert_int_eq(cfg->groups[0].max_running, 3);
	ck_assert_uint_eq(cfg->nkeys, 2);

	/* [browser] is commented out, so make run starts no browser... */
	ck_assert_ptr_null(cfg->browser.cdp_url);
	ck_assert_int_eq(cfg->browser.line, 0);
	config_free(cfg);

	/* ...and loads as documented once uncommented. */
	text = slurp("config.toml.example", &len);
	for (k = 0; k < sizeof uncomment / sizeof uncomment[0]; k++) {
		char	*at = strstr(text, uncomment[k]);

		ck_assert_msg(at != NULL, "no %s", uncomment[k] + 1);
		ck_assert_int_eq(at[1], '#');
		memmove(at + 1, at + 2, strlen(at + 2) + 1);
	}
	cfg = NULL;
	if (config_parse("example.toml", text, strlen(text), &cfg,
	    &cause) != 0)
		ck_abort_msg("uncommented [browser]: %s", cause);
	free(text);
	ck_assert_str_eq(cfg->browser.cdp_url, "auto");
	ck_assert_str_eq(cfg->browser.image, "zenika/alpine-chrome:latest");
	ck_assert_str_eq(cfg->browser.command, "/usr/bin/chromium");
	ck_assert_uint_eq(cfg->browser.nargs, 2);
	ck_assert(cfg->browser.timeout == 30);
	ck_assert_int_gt(cfg->browser.line, 0);

	/* Every option is documented in the example, by name. */
	text = slurp("config.toml.example", &len);
	for (i = 0; i < config_noptions; i++) {
		const char	*name = config_options[i].name, *p;
		int		 found = 0;

		k = strlen(name);
		for (p = text; (p = strstr(p, name)) != NULL; p++) {
			if ((p == text || p[-1] == '\n' || p[-1] == '#' ||
			    p[-1] == ' ') && p[k] == ' ')
				found = 1;
		}
		ck_assert_msg(found, "%s is not in config.toml.example", name);
	}
	free(text);
	config_free(cfg);
}
END_TEST

/* Build the man page's .It line for option o, as the man page has it. */
static void
man_line(const struct config_option *o, char *buf, size_t size)
{
	char	extra[256] = "";
	size_t	n;

	if (o->type == CONFIG_INT || o->type == CONFIG_NUMBER)
		snprintf(extra, sizeof extra, "%.15g to %.15g", o->min, o->max);
	n = strlen(extra);
	if (o->flags & CONFIG_REQUIRED)
		snprintf(extra + n, sizeof extra - n, "%srequired",
		    n ? " , " : "");
	else if (o->def != NULL && o->def[0] == '"')
		snprintf(extra + n, sizeof extra - n, "%sdefault Qq %.*s",
		    n ? " , " : "", (int)strlen(o->def) - 2, o->def + 1);
	else if (o->def != NULL)
		snprintf(extra + n, sizeof extra - n, "%sdefault %s",
		    n ? " , " : "", o->def);
	snprintf(buf, size, "\n.It Cm %s No = Ar %s%s%s\n", o->name,
	    config_type_name(o->type), extra[0] != '\0' ? " Pq " : "", extra);
}

START_TEST(test_man_page)
{
	const struct config_option	*o;
	char				*man, line[512], *p, *end, name[64];
	const char			*c, *bar;
	size_t				 i, n;

	man = slurp("man/jobdeck.1", NULL);

	/* Each option, with its type, bounds and default. */
	for (i = 0; i < config_noptions; i++) {
		o = &config_options[i];
		man_line(o, line, sizeof line);
		ck_assert_msg(strstr(man, line) != NULL,
		    "man/jobdeck.1 lacks the line%s", line);
		for (c = o->choices; c != NULL; c = bar == NULL ? NULL :
		    bar + 1) {
			bar = strchr(c, '|');
			n = bar == NULL ? strlen(c) : (size_t)(bar - c);
			snprintf(line, sizeof line, ".Qq %.*s", (int)n, c);
			ck_assert_msg(strstr(man, line) != NULL,
			    "man/jobdeck.1 lacks %s", line);
		}
	}

	/* And no option the table does not have. */
	for (p = man; (p = strstr(p, "\n.It Cm ")) != NULL; p++) {
		end = strchr(p + 1, '\n');
		if (end == NULL || memmem(p, (size_t)(end - p), " No = Ar ",
		    9) == NULL)
			continue;
		n = strcspn(p + 8, " ");
		ck_assert_uint_lt(n, sizeof name);
		memcpy(name, p + 8, n);
		name[n] = '\0';
		ck_assert_msg(config_find_option("settings", name) != NULL ||
		    config_find_option("job", name) != NULL ||
		    config_find_option("groups", name) != NULL ||
		    config_find_option("hosts", name) != NULL ||
		    config_find_option("browser", name) != NULL,
		    "man/jobdeck.1 documents unknown option %s", name);
	}

	/* The three tables, and what the table's columns cannot say. */
	ck_assert_ptr_nonnull(strstr(man, "\n.Ic [groups. Ns Ar NAME ]\n"
	    "table sets limits"));
	ck_assert_ptr_nonnull(strstr(man, "It may also be written at the top "
	    "level of the file"));
	ck_assert_ptr_nonnull(strstr(man, "(a job with no readiness probe is "
	    "ready\nonce started)"));
	ck_assert_ptr_nonnull(strstr(man, "\n.Ic [browser]\ntable starts"));
	ck_assert_ptr_nonnull(strstr(man, "cdp_url = null"));
	free(man);
}
END_TEST

START_TEST(test_help_text)
{
	const struct config_option	*o;
	char				*help, *line, *p;
	ssize_t				 col = -1, c;
	size_t				 i, n = 0;

	help = config_help_text();
	ck_assert_ptr_nonnull(help);
	ck_assert_ptr_nonnull(strstr(help, "\n[settings]\n"));
	ck_assert_ptr_nonnull(strstr(help, "\n[[job]]\n"));
	ck_assert_ptr_nonnull(strstr(help, "\n[groups.NAME]\n"));
	ck_assert(strstr(help, "[settings]") < strstr(help, "[[job]]"));
	ck_assert(strstr(help, "\n[[job]]") < strstr(help, "\n[groups.NAME]"));
	ck_assert(strstr(help, "\n[groups.NAME]") < strstr(help,
	    "\n[hosts.NAME]\n"));
	ck_assert(strstr(help, "\n[hosts.NAME]") < strstr(help,
	    "\n[browser]\n"));
	ck_assert_ptr_nonnull(strstr(help, "A [hosts.NAME] sets exactly one of "
	    "ssh and slurm"));
	ck_assert_ptr_nonnull(strstr(help, " string or false "));
	ck_assert_ptr_nonnull(strstr(help, " integer 0..1000000 "));
	ck_assert_ptr_nonnull(strstr(help, " no|on-failure|always "));
	ck_assert_ptr_nonnull(strstr(help, " required "));
	/* What the columns cannot say. */
	ck_assert_ptr_nonnull(strstr(help, "env_file may also be written at "
	    "the top level"));
	ck_assert_ptr_nonnull(strstr(help, "a job with none is ready once\n"
	    "started"));
	ck_assert_ptr_nonnull(strstr(help, "or browser, the\n[browser] "
	    "(\"started\" or \"ready\": CDP Ready), when no job has that "
	    "name"));
	ck_assert_ptr_nonnull(strstr(help, "[browser] cdp_url = false, or no "
	    "cdp_url, starts no browser (TOML has no\nnull)"));

	/* One line per option in its section, the help column in line. */
	for (i = 0; i < config_noptions; i++) {
		char	*from, *to;

		o = &config_options[i];
		from = strstr(help, strcmp(o->section, "settings") == 0 ?
		    "\n[settings]\n" : strcmp(o->section, "job") == 0 ?
		    "\n[[job]]\n" : strcmp(o->section, "groups") == 0 ?
		    "\n[groups.NAME]\n" : strcmp(o->section, "hosts") == 0 ?
		    "\n[hosts.NAME]\n" : "\n[browser]\n");
		ck_assert_ptr_nonnull(from);
		to = strstr(from + 1, "\n\n");
		ck_assert_ptr_nonnull(to);
		line = NULL;
		for (p = from; (p = strstr(p, "\n  ")) != NULL &&
		    p < to; p++) {
			if (strncmp(p + 3, o->name, strlen(o->name)) == 0 &&
			    p[3 + strlen(o->name)] == ' ')
				line = p + 1;
		}
		ck_assert_msg(line != NULL, "%s not in the help", o->name);
		p = strstr(line, o->help);
		ck_assert_ptr_nonnull(p);
		ck_assert(p < strchr(line, '\n'));
		c = p - line;
		if (col == -1)
			col = c;
		ck_assert_int_eq(c, col);
		if (o->def != NULL && !(o->flags & CONFIG_REQUIRED))
			ck_assert(strstr(line, o->def) < p);
		n++;
	}
	ck_assert_uint_eq(n, config_noptions);
	free(help);
}
END_TEST

/*
 * Robustness (what a fuzzer would try, in miniature): every prefix of the
 * example and seeded mutations of it either load or fail with a message
 * in the form of the file's; never a crash or a leak (under ASan).
 */
START_TEST(test_robust)
{
	static const char	 pieces[] = "[]{}=\"'\\\n#.,0x \t\x01\xff";
	struct config		*cfg;
	char			*text, *copy, *cause;
	size_t			 len, i, k, at;
	unsigned long		 seed = 12345;

	text = slurp("config.toml.example", &len);
	for (i = 0; i <= len; i += 7) {
		cause = NULL;
		if (config_parse("f", text, i, &cfg, &cause) == 0)
			config_free(cfg);
		else {
			ck_assert_int_eq(strncmp(cause, "f:", 2), 0);
			free(cause);
		}
	}
	copy = malloc(len);
	ck_assert_ptr_nonnull(copy);
	for (i = 0; i < 3000; i++) {
		memcpy(copy, text, len);
		for (k = 0; k < 1 + i % 6; k++) {
			seed = seed * 6364136223846793005UL +
			    1442695040888963407UL;
			at = (size_t)(seed >> 33) % len;
			copy[at] = pieces[(seed >> 20) % (sizeof pieces - 1)];
		}
		cause = NULL;
		if (config_parse("f", copy, len, &cfg, &cause) == 0)
			config_free(cfg);
		else {
			ck_assert_int_eq(strncmp(cause, "f:", 2), 0);
			free(cause);
		}
		cause = NULL;
		if (config_parse_procfile("P", copy, len, &cfg, &cause) == 0)
			config_free(cfg);
		else
			free(cause);
	}
	free(copy);
	free(text);

	/* Deep nesting stops in the parser, not on the stack. */
	len = 100000;
	text = malloc(len + 16);
	ck_assert_ptr_nonnull(text);
	memcpy(text, "a = ", 4);
	memset(text + 4, '[', len);
	ck_assert_int_eq(config_parse("f", text, len + 4, &cfg, &cause), -1);
	free(cause);
	free(text);
}
END_TEST

/* Return the CPU time this process has used, in seconds. */
static double
cpu_seconds(void)
{
	struct timespec	ts;

	ck_assert_int_eq(clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts), 0);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * A config of 100,000 jobs loads in linear-ish time (the duplicate-name
 * check was quadratic: 10 s and more): eight times the jobs cost less
 * than 24 times the CPU (linear: 8, quadratic: 64), a ratio that neither
 * a busy nor a slow machine moves.  It is still right: every job in
 * order, found by name, and a duplicate at the very end still caught.
 */
START_TEST(test_many_jobs)
{
	struct config	*cfg;
	struct timeval	 t0, t1;
	char		*text, *cause = NULL, name[32];
	size_t		 size = 100000 * 80 + 256, len = 0, eighth = 0, i;
	double		 c0, small, big;
	int		 n;

	text = malloc(size);
	ck_assert_ptr_nonnull(text);
	for (i = 0; i < 100000; i++) {
		n = snprintf(text + len, size - len, "[[job]]\nname = \"j%zu\"\n"
		    "command = \"echo {x} %zu\"\nparams = { x = \"v\" }\n", i,
		    i);
		/* (Not ck_assert: a write to the parent per job.) */
		if (n <= 0 || (size_t)n >= size - len)
			ck_abort_msg("job %zu does not fit", i);
		len += (size_t)n;
		if (i + 1 == 100000 / 8)
			eighth = len;
	}
	c0 = cpu_seconds();
	ck_assert_msg(config_parse("big.toml", text, eighth, &cfg, &cause) ==
	    0, "%s", cause);
	small = cpu_seconds() - c0;
	ck_assert_uint_eq(cfg->njobs, 100000 / 8);
	config_free(cfg);
	gettimeofday(&t0, NULL);
	c0 = cpu_seconds();
	ck_assert_msg(config_parse("big.toml", text, len, &cfg, &cause) == 0,
	    "%s", cause);
	big = cpu_seconds() - c0;
	gettimeofday(&t1, NULL);
	fprintf(stderr, "check_config: 100,000 jobs loaded in %.3f s (CPU "
	    "%.3f s; 12,500 in %.3f s)\n", (double)(t1.tv_sec - t0.tv_sec) +
	    (double)(t1.tv_usec - t0.tv_usec) / 1e6, big, small);
	ck_assert_msg(big < 24 * small, "100,000 jobs took %.3f s of CPU, "
	    "12,500 %.3f s: not linear", big, small);
	ck_assert_uint_eq(cfg->njobs, 100000);
	for (i = 0; i < 100000; i += 9973) {
		snprintf(name, sizeof name, "j%zu", i);
		ck_assert_str_eq(cfg->jobs[i].name, name);
		ck_assert_int_eq(cfg->jobs[i].line, (int)(4 * i + 1));
	}
	ck_assert_ptr_eq(config_find_job(cfg, "j99999"), &cfg->jobs[99999]);
	config_free(cfg);

	n = snprintf(text + len, size - len, "[[job]]\nname = \"j4242\"\n"
	    "command = \"x\"\n");
	len += (size_t)n;
	ck_assert_int_eq(config_parse("big.toml", text, len, &cfg, &cause),
	    -1);
	ck_assert_str_eq(cause, "big.toml:400002:8: duplicate job name "
	    "'j4242' (first at line 16970)");
	free(cause);
	free(text);
}
END_TEST

/*
 * 100,000 jobs in one chain of dependencies load (the cycle check walks
 * them without recursion), and the same chain closed into a cycle is
 * named, cut short, at the dependency that closes it.
 */
START_TEST(test_many_deps)
{
	struct config	*cfg;
	char		*text, *cause = NULL;
	size_t		 size = 100000 * 80 + 256, len = 0, i;
	int		 n;

	text = malloc(size);
	ck_assert_ptr_nonnull(text);
	for (i = 0; i < 100000; i++) {
		n = snprintf(text + len, size - len, "[[job]]\nname = \"j%zu\"\n"
		    "command = \"x\"\ndepends_on = { j%zu = \"started\" }\n", i,
		    i + 1);
		if (n <= 0 || (size_t)n >= size - len)
			ck_abort_msg("job %zu does not fit", i);
		len += (size_t)n;
	}
	n = snprintf(text + len, size - len, "[[job]]\nname = \"j100000\"\n"
	    "command = \"x\"\n");
	ck_assert_msg(config_parse("big.toml", text, len + (size_t)n, &cfg,
	    &cause) == 0, "%s", cause);
	ck_assert_uint_eq(cfg->njobs, 100001);
	ck_assert_str_eq(cfg->jobs[0].deps[0].name, "j1");
	config_free(cfg);

	/* The last job depends on the first instead: a cycle of them all. */
	n = snprintf(text + len - 23, size - len, " j0 = \"started\" }\n");
	ck_assert_int_eq(config_parse("big.toml", text, len - 23 + (size_t)n,
	    &cfg, &cause), -1);
	ck_assert_str_eq(cause, "big.toml:400000:16: dependency cycle: j0 -> "
	    "j1 -> j2 -> j3 -> j4 -> j5 -> j6 -> j7 -> j8 -> j9 -> j10 -> "
	    "j11 -> j12 -> j13 -> j14 -> ... -> j99999 -> j0");
	free(cause);
	free(text);
}
END_TEST

/* Values that would run a command if a shell re-parsed them. */
static const char *const hostile[] = {
	"$(touch pwned)",
	"`touch pwned`",
	"'; touch pwned; '",
	"\"; touch pwned; \"",
	"a\ntouch pwned\nb",
	"' \"$(touch pwned)\" `touch pwned` '",
	"x'\\''$(touch pwned)",
	"\\",
	"x\\",
	"'",
	"-e",
	"$HOME ${HOME} $$ ! * ~ {x} %s",
	"",
	"  spaced  \t out  ",
};
#define NHOSTILE (sizeof hostile / sizeof hostile[0])

/* Jobs that each print their {x} as <x> through a shell. */
static const char launch_config[] =
    "[settings]\n"
    "shell = \"/bin/sh\"\n"
    "[[job]]\n"				/* the issue's own case */
    "name = \"after_c\"\n"
    "command = \"sh\"\n"
    "args = [\"-c\", \"printf '<%s>\\\\n' {x}\"]\n"
    "[[job]]\n"
    "name = \"cluster_dq\"\n"
    "command = \"/bin/bash\"\n"
    "args = [\"-ec\", \"printf '<%s>\\\\n' \\\"{x}\\\"\"]\n"
    "[[job]]\n"
    "name = \"through_env\"\n"
    "command = \"env\"\n"
    "args = [\"-u\", \"NOPE\", \"A=1\", \"dash\", \"-c\", "
    "\"printf '<%s>\\\\n' {x}\"]\n"
    "[[job]]\n"
    "name = \"positional\"\n"
    "command = \"sh\"\n"
    "args = [\"-c\", \"printf '<%s>\\\\n' \\\"$1\\\"\", \"sh\", \"{x}\"]\n"
    "[[job]]\n"
    "name = \"string\"\n"
    "command = \"printf '<%s>\\\\n' {x}\"\n"
    "[[job]]\n"
    "name = \"stdin_sh\"\n"
    "command = \"sh\"\n"
    "input = \"printf '<%s>\\\\n' {x}\\n\"\n"
    "pty = false\n"
    "[[job]]\n"
    "name = \"stdin_bash\"\n"
    "command = \"bash\"\n"
    "args = [\"-s\"]\n"
    "input = \"printf '<%s>\\\\n' {x}\\n\"\n"
    "pty = false\n"
    "[[job]]\n"
    "name = \"data\"\n"
    "command = \"cat\"\n"
    "args = []\n"
    "input = \"<{x}>\\n\"\n"
    "pty = false\n";

/*
 * Run what spec says (its argv, or its shell with -c and its command) in
 * dir with its environment and its input on a pipe; return its output.
 */
static char *
run_spec(const struct job_spec *spec, const char *dir)
{
	int	 in[2], out[2], status;
	pid_t	 pid;
	char	*buf;
	size_t	 len = 0, size = 65536;
	ssize_t	 n;

	ck_assert_int_eq(pipe(in), 0);
	ck_assert_int_eq(pipe(out), 0);
	if ((pid = fork()) == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[0]);
		close(in[1]);
		close(out[0]);
		close(out[1]);
		if (chdir(dir) != 0)
			_exit(126);
		if (spec->argv != NULL)
			execvpe(spec->argv[0], spec->argv, spec->envp);
		else
			execle(spec->shell, spec->shell, "-c", spec->command,
			    (char *)NULL, spec->envp);
		_exit(127);
	}
	ck_assert_int_gt(pid, 0);
	close(in[0]);
	close(out[1]);
	if (spec->input != NULL &&
	    write(in[1], spec->input, strlen(spec->input)) < 0)
		ck_assert_int_eq(errno, EPIPE);
	close(in[1]);
	buf = malloc(size);
	ck_assert_ptr_nonnull(buf);
	while ((n = read(out[0], buf + len, size - 1 - len)) > 0)
		len += (size_t)n;
	buf[len] = '\0';
	close(out[0]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "%s exited with %d", spec->argv != NULL ? spec->argv[0] :
	    spec->command, status);
	return buf;
}

/*
 * The issue's defect: with command = "sh" and args = ["-c", "... {x}"], a
 * value like $(touch pwned) ran; so did values in input fed to a shell.
 * Through launch_new() and real shells, every hostile value arrives as
 * its text, in every job, and nothing runs.
 */
START_TEST(test_launch_hostile)
{
	struct config		*cfg;
	struct session		*session;
	struct launch		*l;
	struct expand_param	 p;
	extern char		**environ;
	char			*cause = NULL, *out, want[512], pwned[PATH_MAX * 2];
	size_t			 i, k;

	signal(SIGPIPE, SIG_IGN);
	cfg = parse_ok(launch_config);
	session = session_new(environ);
	snprintf(pwned, sizeof pwned, "%s/pwned", tmp);
	for (k = 0; k < cfg->njobs; k++) {
		for (i = 0; i < NHOSTILE; i++) {
			p.key = "x";
			p.value = hostile[i];
			l = launch_new(&cfg->jobs[k], &cfg->settings, session,
			    &p, 1, &cause);
			ck_assert_msg(l != NULL, "%s: %s", cfg->jobs[k].name,
			    cause);
			out = run_spec(launch_spec(l), tmp);
			snprintf(want, sizeof want, "<%s>\n", hostile[i]);
			ck_assert_msg(strcmp(out, want) == 0, "job %s, value "
			    "%zu: got '%s', want '%s'", cfg->jobs[k].name, i,
			    out, want);
			ck_assert_msg(access(pwned, F_OK) != 0, "job %s, value "
			    "%zu ran a command", cfg->jobs[k].name, i);
			free(out);
			launch_free(l);
		}
	}
	session_free(session);
	config_free(cfg);
}
END_TEST

/*
 * A shell reading its commands from a terminal gets no value its line
 * editing would act on: refused at start, with the reason.
 */
/*
 * A job's host reaches its spec; its cwd is then a directory on that
 * host, kept as written (~ and all), and no cwd is none (the login
 * directory there), where a local job's is the session's.
 */
START_TEST(test_launch_host)
{
	struct config		*cfg;
	struct session		*session;
	struct launch		*l;
	extern char		**environ;
	char			*cause = NULL;

	cfg = parse_ok("[hosts.build]\nssh = \"me@build1\"\n"
	    "[[job]]\nname = \"a\"\ncommand = \"make\"\nhost = \"build\"\n"
	    "cwd = \"~/src/{p}\"\nparams = { p = \"app\" }\n"
	    "[[job]]\nname = \"b\"\ncommand = \"make\"\nhost = \"me@box\"\n"
	    "[[job]]\nname = \"c\"\ncommand = \"make\"\n");
	session = session_new(environ);
	l = launch_new(&cfg->jobs[0], &cfg->settings, session, NULL, 0,
	    &cause);
	ck_assert_msg(l != NULL, "%s", cause);
	ck_assert_str_eq(launch_spec(l)->host, "build");
	ck_assert_str_eq(launch_spec(l)->cwd, "~/src/app");
	launch_free(l);
	l = launch_new(&cfg->jobs[1], &cfg->settings, session, NULL, 0,
	    &cause);
	ck_assert_msg(l != NULL, "%s", cause);
	ck_assert_str_eq(launch_spec(l)->host, "me@box");
	ck_assert_ptr_null(launch_spec(l)->cwd);
	launch_free(l);
	l = launch_new(&cfg->jobs[2], &cfg->settings, session, NULL, 0,
	    &cause);
	ck_assert_msg(l != NULL, "%s", cause);
	ck_assert_ptr_null(launch_spec(l)->host);
	ck_assert_str_eq(launch_spec(l)->cwd, session_cwd(session));
	launch_free(l);
	session_free(session);
	config_free(cfg);
}
END_TEST

START_TEST(test_launch_terminal)
{
	struct config		*cfg;
	struct session		*session;
	struct launch		*l;
	struct expand_param	 p = { "x", "a\x15touch pwned #" };
	extern char		**environ;
	char			*cause = NULL;

	cfg = parse_ok("[[job]]\nname = \"tty\"\ncommand = \"bash\"\n"
	    "input = \"echo {x}\\n\"\n");
	session = session_new(environ);
	ck_assert_ptr_null(launch_new(&cfg->jobs[0], &cfg->settings, session,
	    &p, 1, &cause));
	ck_assert_str_eq(cause, "input: cannot quote {x} at column 6 for a "
	    "terminal: the value has a control character or a byte above "
	    "0x7e");
	free(cause);
	p.value = "it's \"fine\"\nreally";
	l = launch_new(&cfg->jobs[0], &cfg->settings, session, &p, 1, &cause);
	ck_assert_ptr_nonnull(l);
	ck_assert_str_eq(launch_spec(l)->input,
	    "echo 'it'\\''s \"fine\"\nreally'\n");
	launch_free(l);
	session_free(session);
	config_free(cfg);
}
END_TEST

/* Return name's value in the NULL-terminated NAME=VALUE array env. */
static const char *
env_get(char *const *env, const char *name)
{
	size_t	len = strlen(name);

	for (; *env != NULL; env++) {
		if (strncmp(*env, name, len) == 0 && (*env)[len] == '=')
			return *env + len + 1;
	}
	return NULL;
}

/*
 * env values are templates: ${VAR} from the entries before them, then
 * the session's environment (inherited or not); {name} verbatim.
 */
START_TEST(test_launch_env)
{
	static char		*base[] = { "HOME=/home/u", "PATH=/bin",
				    "B=base", NULL };
	static const char	 text[] =
	    "[[job]]\n"
	    "name = \"e\"\n"
	    "command = \"printenv D\"\n"
	    "cwd = \"${D}\"\n"
	    "inherit_env = %s\n"
	    "env = { D = \"${HOME}/sub\", A = \"${B}\", B = \"own\", "
	    "E = \"${D}:{x}:${B}\", PATH = \"${PATH}:/extra\", "
	    "L = \"$${HOME} $$\", U = \"${NOPE:-dflt}\" }\n"
	    "params = { x = \"$(p)\" }\n";
	struct config		*cfg;
	struct session		*session;
	struct launch		*l;
	const struct job_spec	*spec;
	char			 buf[sizeof text + 16], *cause = NULL;
	int			 inherit;

	session = session_new(base);
	for (inherit = 0; inherit < 2; inherit++) {
		snprintf(buf, sizeof buf, text, inherit ? "true" : "false");
		cfg = parse_ok(buf);
		l = launch_new(&cfg->jobs[0], &cfg->settings, session, NULL,
		    0, &cause);
		ck_assert_msg(l != NULL, "%s", cause);
		spec = launch_spec(l);
		ck_assert_str_eq(env_get(spec->envp, "D"), "/home/u/sub");
		ck_assert_str_eq(env_get(spec->envp, "A"), "base");
		ck_assert_str_eq(env_get(spec->envp, "B"), "own");
		ck_assert_str_eq(env_get(spec->envp, "E"),
		    "/home/u/sub:$(p):own");
		ck_assert_str_eq(env_get(spec->envp, "PATH"), "/bin:/extra");
		ck_assert_str_eq(env_get(spec->envp, "L"), "${HOME} $");
		ck_assert_str_eq(env_get(spec->envp, "U"), "dflt");
		ck_assert_str_eq(spec->cwd, "/home/u/sub");
		if (inherit)
			ck_assert_str_eq(env_get(spec->envp, "HOME"),
			    "/home/u");
		else
			ck_assert_ptr_null(env_get(spec->envp, "HOME"));
		launch_free(l);
		config_free(cfg);
	}
	session_free(session);
}
END_TEST

/*
 * One job's text (config_job_toml(), config_parse_job()): a deck's stack
 * the edited jobs join, with jobs to depend on (one named like a
 * replica) and one that depends on api, for cycles.
 */
static const char job_base_toml[] =
    "[[job]]\nname = \"db\"\ncommand = \"db\"\n"
    "[[job]]\nname = \"cache\"\ncommand = \"cache\"\n"
    "[[job]]\nname = \"web.1\"\ncommand = \"web\"\n"
    "[[job]]\nname = \"api\"\ncommand = \"api\"\n"
    "[[job]]\nname = \"worker\"\ncommand = \"work\"\n"
    "depends_on = { api = \"started\" }\n"
    "[[job]]\nname = \"queue\"\ncommand = \"q\"\nreplicas = 3\n";

/* The job every sample below is added to (lines 1-3). */
#define SAMPLE_JOB	"[[job]]\nname = \"w\"\ncommand = \"c\"\n"

/*
 * A value other than the default for every job option (name and command:
 * SAMPLE_JOB's); alt marks what a job cannot have with the others (the
 * probes, a host with a stop_command).
 */
static const struct {
	const char	*name;
	const char	*line;
	int		 alt;
} job_samples[] = {
	{ "name", NULL, 0 },
	{ "command", NULL, 0 },
	{ "args", "args = [\"-a\", \"b c\", \"\"]", 0 },
	{ "cwd", "cwd = \"/tmp/x y\"", 0 },
	{ "env", "env = { A = \"1\", B_2 = \"two words\", EMPTY = \"\" }", 0 },
	{ "inherit_env", "inherit_env = false", 0 },
	{ "timeout", "timeout = 86399.123456789", 0 },
	{ "input", "input = \"hello\\nworld\\n\"", 0 },
	{ "autostart", "autostart = false", 0 },
	{ "restart", "restart = \"on-failure\"", 0 },
	{ "restart_delay", "restart_delay = 0.25", 0 },
	{ "max_restarts", "max_restarts = 0", 0 },
	{ "pty", "pty = false", 0 },
	{ "params", "params = { who = \"world\", n = \"1\" }", 0 },
	{ "depends_on", "depends_on = { db = \"ready\", \"web.1\" = "
	  "\"completed_successfully\", cache = { condition = \"completed\", "
	  "restart = true } }", 0 },
	{ "ready_log", "ready_log = \"^listening on [0-9]+$\"", 1 },
	{ "ready_cmd", "ready_cmd = \"curl -f localhost\"", 1 },
	{ "ready_tcp", "ready_tcp = \"127.0.0.1:8080\"", 1 },
	{ "ready_http", "ready_http = \"http://localhost:8080/health\"", 0 },
	{ "ready_interval", "ready_interval = 0.1", 0 },
	{ "ready_timeout", "ready_timeout = 3", 0 },
	{ "ready_initial_delay", "ready_initial_delay = 1.5", 0 },
	{ "ready_retries", "ready_retries = 4", 0 },
	{ "liveness_cmd", "liveness_cmd = \"test -e /tmp\"", 0 },
	{ "liveness_tcp", "liveness_tcp = \"localhost:99\"", 1 },
	{ "liveness_http", "liveness_http = \"https://example.com/\"", 1 },
	{ "liveness_interval", "liveness_interval = 7", 0 },
	{ "liveness_timeout", "liveness_timeout = 0.5", 0 },
	{ "liveness_initial_delay", "liveness_initial_delay = 86400", 0 },
	{ "liveness_retries", "liveness_retries = 7", 0 },
	{ "env_file", "env_file = [\".env\", \"b.env\"]", 0 },
	{ "port", "port = 8080", 0 },
	{ "stop_signal", "stop_signal = \"SIGINT\"", 0 },
	{ "stop_command", "stop_command = \"docker compose down\"", 0 },
	{ "stop_timeout", "stop_timeout = 0", 0 },
	{ "start_delay", "start_delay = 0.5", 0 },
	{ "restart_delay_max", "restart_delay_max = 120", 0 },
	{ "replicas", "replicas = 3", 0 },
	{ "group", "group = \"batch\"", 0 },
	{ "priority", "priority = -5", 0 },
	{ "watch", "watch = [\"src/**/*.c\"]", 0 },
	{ "watch_ignore", "watch_ignore = [\"build\", \"*.o\"]", 0 },
	{ "watch_debounce", "watch_debounce = 1e-05", 0 },
	{ "schedule", "schedule = \"*/5 9-17 * * MON-FRI\"", 0 },
	{ "every", "every = \"1h30m\"", 1 },
	{ "overlap", "overlap = \"queue\"", 0 },
	{ "host", "host = \"deploy@build1.example\"", 1 },
};

/* Return the config of job_base_toml. */
static struct config *
job_base(void)
{
	struct config	*base = NULL;
	char		*cause = NULL;

	ck_assert_msg(config_parse("config.toml", job_base_toml,
	    strlen(job_base_toml), &base, &cause) == 0, "%s", cause);
	return base;
}

/* Return the job text parses to against base; fail with its cause. */
static struct config_job *
job_parse(const char *text, const struct config *base)
{
	struct config_job	*j = NULL;
	char			*cause = NULL;

	ck_assert_msg(config_parse_job("edit", text, strlen(text), base, &j,
	    &cause) == 0, "parse failed: %s\n%s", cause, text);
	ck_assert_ptr_nonnull(j);
	ck_assert_ptr_null(cause);
	return j;
}

/* Return 1 if the strings a[0..n) and b[0..n) are equal (both NULL too). */
static int
same_strings(char **a, char **b, size_t n)
{
	size_t	i;

	if (a == NULL || b == NULL)
		return a == b;
	for (i = 0; i < n; i++) {
		if (strcmp(a[i], b[i]) != 0)
			return 0;
	}
	return a[n] == NULL && b[n] == NULL;
}

/*
 * Return 1 if option o of the job section has the same value in a and b,
 * read at its offset by its type (the test's own reading of the table,
 * not config-write.c's).
 */
static int
same_option(const struct config_option *o, const struct config_job *a,
    const struct config_job *b)
{
	const char			*fa = (const char *)a + o->offset;
	const char			*fb = (const char *)b + o->offset;
	const struct expand_param	*pa, *pb;
	const struct config_dep		*da, *db;
	char				*sa, *sb, **aa, **ab;
	size_t				 na = 0, nb = 0, i;
	double				 xa, xb;
	int				 ia, ib;

	if (o->count != 0) {
		memcpy(&na, (const char *)a + o->count, sizeof na);
		memcpy(&nb, (const char *)b + o->count, sizeof nb);
		if (na != nb)
			return 0;
	}
	switch (o->type) {
	case CONFIG_STRING:
	case CONFIG_STRING_OR_FALSE:
		memcpy(&sa, fa, sizeof sa);
		memcpy(&sb, fb, sizeof sb);
		return sa == NULL ? sb == NULL : sb != NULL &&
		    strcmp(sa, sb) == 0;
	case CONFIG_INT:
	case CONFIG_BOOL:
	case CONFIG_ENUM:
		memcpy(&ia, fa, sizeof ia);
		memcpy(&ib, fb, sizeof ib);
		return ia == ib;
	case CONFIG_NUMBER:
		memcpy(&xa, fa, sizeof xa);
		memcpy(&xb, fb, sizeof xb);
		return xa == xb;
	case CONFIG_STRING_ARRAY:
		memcpy(&aa, fa, sizeof aa);
		memcpy(&ab, fb, sizeof ab);
		return same_strings(aa, ab, na);
	case CONFIG_STRING_TABLE:
		if (!(o->flags & CONFIG_PAIRS)) {
			memcpy(&aa, fa, sizeof aa);
			memcpy(&ab, fb, sizeof ab);
			return same_strings(aa, ab, na);
		}
		memcpy(&pa, fa, sizeof pa);
		memcpy(&pb, fb, sizeof pb);
		if (pa == NULL || pb == NULL)
			return pa == pb;
		for (i = 0; i < na; i++) {
			if (strcmp(pa[i].key, pb[i].key) != 0 ||
			    strcmp(pa[i].value, pb[i].value) != 0)
				return 0;
		}
		return pa[na].key == NULL && pb[na].key == NULL;
	case CONFIG_DEPS:
		memcpy(&da, fa, sizeof da);
		memcpy(&db, fb, sizeof db);
		if (da == NULL || db == NULL)
			return da == db;
		for (i = 0; i < na; i++) {
			if (strcmp(da[i].name, db[i].name) != 0 ||
			    da[i].cond != db[i].cond ||
			    da[i].browser != db[i].browser)
				return 0;
		}
		return 1;
	}
	return 0;
}

/* Assert that jobs a and b are equal in every option (what: the case). */
static void
assert_same_job(const struct config_job *a, const struct config_job *b,
    const char *what, const char *text)
{
	size_t	i;

	for (i = 0; i < config_noptions; i++) {
		if (strcmp(config_options[i].section, "job") == 0)
			ck_assert_msg(same_option(&config_options[i], a, b),
			    "%s: %s differs after the round trip:\n%s", what,
			    config_options[i].name, text);
	}
}

/*
 * Write j, read it back against base and assert the two are equal; the
 * text is one line per option (no raw control character but the line
 * ends).  Return the text, to free.
 */
static char *
round_trip(const struct config_job *j, const struct config *base,
    const char *what)
{
	struct config_job	*back;
	struct config		*cfg = NULL;
	char			*text, *cause = NULL;
	const unsigned char	*p;

	text = config_job_toml(j);
	ck_assert_ptr_nonnull(text);
	ck_assert_msg(strncmp(text, "[[job]]\n", 8) == 0, "%s", text);
	for (p = (const unsigned char *)text; *p != '\0'; p++)
		ck_assert_msg(*p == '\n' || (*p >= 0x20 && *p != 0x7f),
		    "%s: byte 0x%02x at %zu of the text", what, *p,
		    (size_t)(p - (const unsigned char *)text));
	back = job_parse(text, base);
	assert_same_job(j, back, what, text);
	config_job_free(back);
	/* config_parse() reads it too, as one job of a file. */
	if (j->ndeps == 0) {
		ck_assert_msg(config_parse("t", text, strlen(text), &cfg,
		    &cause) == 0, "%s: %s", what, cause);
		ck_assert_uint_eq(cfg->njobs, 1);
		assert_same_job(j, &cfg->jobs[0], what, text);
		config_free(cfg);
	}
	return text;
}

/*
 * Each option in turn set to a value other than its default, alone: it
 * is written (the text names it), and read back equal; a writer that
 * forgot an option, or took a value for the default, fails here.  Every
 * job option of the table has a sample.
 */
START_TEST(test_job_toml_each)
{
	const struct config_option	*o;
	struct config_job		*j, *def;
	struct config			*base;
	char				*text, *in, key[64];
	size_t				 i, k;

	for (i = 0; i < config_noptions; i++) {
		if (strcmp(config_options[i].section, "job") != 0)
			continue;
		for (k = 0; k < sizeof job_samples / sizeof job_samples[0];
		    k++) {
			if (strcmp(job_samples[k].name,
			    config_options[i].name) == 0)
				break;
		}
		ck_assert_msg(k < sizeof job_samples / sizeof job_samples[0],
		    "job option %s has no sample", config_options[i].name);
	}

	k = (size_t)_i;
	o = config_find_option("job", job_samples[k].name);
	ck_assert_ptr_nonnull(o);
	base = job_base();
	def = job_parse(SAMPLE_JOB, base);
	in = xprintf("%s%s\n", SAMPLE_JOB, job_samples[k].line != NULL ?
	    job_samples[k].line : "");
	j = job_parse(in, base);
	if (job_samples[k].line != NULL)
		ck_assert_msg(!same_option(o, j, def),
		    "the sample of %s is its default", o->name);
	text = round_trip(j, base, o->name);
	snprintf(key, sizeof key, "\n%s = ", o->name);
	ck_assert_msg(strstr(text, key) != NULL, "%s not written:\n%s",
	    o->name, text);
	free(text);

	/* Defaults are left out: the job alone is its two lines. */
	text = config_job_toml(def);
	ck_assert_str_eq(text, "[[job]]\nname = \"w\"\ncommand = \"c\"\n");
	free(text);
	config_job_free(def);
	config_job_free(j);
	free(in);
	config_free(base);
}
END_TEST

/* config_diff()'s callback: the names heard, space-separated. */
static void
diff_names(const char *name, void *arg)
{
	char	*names = arg;
	size_t	 n = strlen(names);

	snprintf(names + n, 256 - n, "%s%s", n > 0 ? " " : "", name);
}

/*
 * config_diff() over each job option: a job differing from the sample
 * job by that option alone differs by exactly that option (and by
 * nothing from itself or its copy); config_copy_job()'s copy is equal
 * and owns its strings (the original freed first).
 */
START_TEST(test_diff_each)
{
	struct config_job	*j, *def, copy;
	struct config		*base;
	char			*in, names[256], want[64];
	size_t			 k = (size_t)_i;
	int			 timer;

	if (job_samples[k].line == NULL)
		return;		/* name and command: the sample's own */
	/* A job on a timer does not autostart unless it says so. */
	timer = strcmp(job_samples[k].name, "schedule") == 0 ||
	    strcmp(job_samples[k].name, "every") == 0;
	snprintf(want, sizeof want, "%s%s", timer ? "autostart " : "",
	    job_samples[k].name);
	base = job_base();
	def = job_parse(SAMPLE_JOB, base);
	in = xprintf("%s%s\n", SAMPLE_JOB, job_samples[k].line);
	j = job_parse(in, base);
	names[0] = '\0';
	ck_assert_int_eq(config_diff("job", def, j, diff_names, names),
	    1 + timer);
	ck_assert_str_eq(names, want);
	names[0] = '\0';
	ck_assert_int_eq(config_diff("job", j, def, diff_names, names),
	    1 + timer);
	ck_assert_str_eq(names, want);
	ck_assert_int_eq(config_diff("job", j, j, NULL, NULL), 0);
	config_copy_job(&copy, j);
	config_job_free(j);
	j = job_parse(in, base);
	ck_assert_int_eq(config_diff("job", j, &copy, NULL, NULL), 0);
	config_clear_job(&copy);
	config_job_free(j);
	config_job_free(def);
	free(in);
	config_free(base);
}
END_TEST

/*
 * A whole configuration copied (config_copy()) is equal to it section by
 * section, owns all it holds (the original freed first), and a change to
 * each section of the copy is seen by config_diff().
 */
START_TEST(test_copy_config)
{
	static const char	 text[] =
	    "[settings]\nkill_timeout = 3\nenv_file = [\"a.env\"]\n"
	    "[keys]\nzoom = \"F6\"\n"
	    "[groups.batch]\nmax_running = 2\n"
	    "[hosts.build]\nssh = \"me@build\"\n"
	    "[hosts.gpu]\nslurm = [\"-p\", \"gpu\"]\n"
	    "[browser]\ncdp_url = \"ws://127.0.0.1:9/x\"\n"
	    "[[job]]\nname = \"a\"\ncommand = \"x\"\nenv = { K = \"v\" }\n"
	    "params = { p = \"1\" }\ngroup = \"batch\"\n"
	    "[[job]]\nname = \"b\"\ncommand = \"y\"\n"
	    "depends_on = { a = \"ready\" }\nready_tcp = \"127.0.0.1:9\"\n";
	struct config	*cfg = NULL, *again = NULL, *copy;
	char		*cause = NULL;
	size_t		 i;

	ck_assert_msg(config_parse("c.toml", text, strlen(text), &cfg,
	    &cause) == 0, "%s", cause);
	ck_assert_msg(config_parse("c.toml", text, strlen(text), &again,
	    &cause) == 0, "%s", cause);
	copy = config_copy(cfg);
	config_free(cfg);
	ck_assert_int_eq(config_diff("settings", &again->settings,
	    &copy->settings, NULL, NULL), 0);
	ck_assert_int_eq(config_diff("browser", &again->browser,
	    &copy->browser, NULL, NULL), 0);
	ck_assert_uint_eq(copy->njobs, 2);
	for (i = 0; i < copy->njobs; i++)
		ck_assert_int_eq(config_diff("job", &again->jobs[i],
		    &copy->jobs[i], NULL, NULL), 0);
	ck_assert_uint_eq(copy->ngroups, 1);
	ck_assert_str_eq(copy->groups[0].name, "batch");
	ck_assert_int_eq(config_diff("groups", &again->groups[0],
	    &copy->groups[0], NULL, NULL), 0);
	ck_assert_uint_eq(copy->nhosts, 2);
	for (i = 0; i < copy->nhosts; i++) {
		ck_assert_str_eq(copy->hosts[i].name, again->hosts[i].name);
		ck_assert_int_eq(copy->hosts[i].line, again->hosts[i].line);
		ck_assert_int_eq(config_diff("hosts", &again->hosts[i],
		    &copy->hosts[i], NULL, NULL), 0);
	}
	ck_assert_ptr_null(copy->hosts[1].slurm[2]);
	ck_assert_uint_eq(copy->nkeys, 1);
	ck_assert_str_eq(copy->keys[0].keys, "F6");
	copy->settings.kill_timeout = 4;
	ck_assert_int_eq(config_diff("settings", &again->settings,
	    &copy->settings, NULL, NULL), 1);
	copy->groups[0].max_running = 3;
	ck_assert_int_eq(config_diff("groups", &again->groups[0],
	    &copy->groups[0], NULL, NULL), 1);
	free(copy->hosts[1].slurm[1]);
	copy->hosts[1].slurm[1] = strdup("cpu");
	ck_assert_int_eq(config_diff("hosts", &again->hosts[1],
	    &copy->hosts[1], NULL, NULL), 1);
	config_free(copy);
	config_free(again);
}
END_TEST

/*
 * A job on a timer that autostarts says so in its text (its default is
 * not to), and one that does not leaves it out: both read back equal.
 */
START_TEST(test_job_toml_timer_autostart)
{
	struct config_job	*j;
	struct config		*base;
	char			*text;

	base = job_base();
	j = job_parse(SAMPLE_JOB "every = \"5m\"\nautostart = true\n", base);
	ck_assert_int_eq(j->autostart, 1);
	text = round_trip(j, base, "every, autostart");
	ck_assert_ptr_nonnull(strstr(text, "\nautostart = true\n"));
	free(text);
	config_job_free(j);
	j = job_parse(SAMPLE_JOB "every = \"5m\"\n", base);
	ck_assert_int_eq(j->autostart, 0);
	text = round_trip(j, base, "every");
	free(text);
	config_job_free(j);
	config_free(base);
}
END_TEST

/* A job with every option but the other probes: written, read back equal. */
START_TEST(test_job_toml_every_key)
{
	struct config_job	*j, *def;
	struct config		*base;
	char			*in, *text, *t;
	size_t			 k, i;

	base = job_base();
	in = xstrdup(SAMPLE_JOB);
	for (k = 0; k < sizeof job_samples / sizeof job_samples[0]; k++) {
		if (job_samples[k].line == NULL || job_samples[k].alt)
			continue;
		t = xprintf("%s%s\n", in, job_samples[k].line);
		free(in);
		in = t;
	}
	j = job_parse(in, base);
	def = job_parse(SAMPLE_JOB, base);
	for (i = 0; i < config_noptions; i++) {
		if (strcmp(config_options[i].section, "job") != 0 ||
		    strcmp(config_options[i].name, "name") == 0 ||
		    strcmp(config_options[i].name, "command") == 0)
			continue;
		for (k = 0; strcmp(job_samples[k].name,
		    config_options[i].name) != 0; k++)
			/* nothing */;
		ck_assert_int_eq(same_option(&config_options[i], j, def),
		    job_samples[k].alt);
	}
	text = round_trip(j, base, "every key");
	/* In the table's order: name first, overlap last. */
	ck_assert_msg(strncmp(text, "[[job]]\nname = \"w\"\ncommand = \"c\"\n"
	    "args = [\"-a\", \"b c\", \"\"]\n", 50) == 0, "%s", text);
	ck_assert_ptr_nonnull(strstr(text, "\ndepends_on = { db = \"ready\", "
	    "\"web.1\" = \"completed_successfully\", cache = { condition = "
	    "\"completed\", restart = true } }\n"));
	ck_assert_ptr_nonnull(strstr(text, "\nenv = { A = \"1\", B_2 = "
	    "\"two words\", EMPTY = \"\" }\n"));
	ck_assert_ptr_nonnull(strstr(text, "\nstop_timeout = 0\n"));
	ck_assert_ptr_nonnull(strstr(text, "\nwatch_debounce = 1e-05\n"));
	ck_assert_msg(strlen(text) > 18 && strcmp(text + strlen(text) - 18,
	    "overlap = \"queue\"\n") == 0, "%s", text);
	free(text);
	config_job_free(def);
	config_job_free(j);
	free(in);
	config_free(base);
}
END_TEST

/*
 * Hostile strings survive the round trip byte for byte: quotes,
 * backslashes, line ends, C0 controls, ESC, DEL, non-ASCII (two-, three-
 * and four-byte UTF-8, U+2028), TOML's own syntax, in every kind of
 * string a job holds; an empty args array and an empty env table stay.
 */
START_TEST(test_job_toml_hostile)
{
	static const char *const hostile[] = {
		"\"",
		"\\",
		"a \"quoted\" \\\"thing\\\" \\n not a newline",
		"line 1\nline 2\r\nline 3\n",
		"\t\b\f\x01\x02\x1b[31mred\x1b[0m\x7f\x1f end",
		"caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80 "
		"\xe2\x80\xa8 sep",
		"''' \"\"\" [[job]]\nname = \"evil\"\n# not a comment",
		"\\u0041 \\U0001F600 \\x41 \\e",
		" ",
	};
	struct config_job	*j;
	struct config		*base;
	struct expand_param	*pp;
	char			*text, what[32];
	size_t			 i;

	base = job_base();
	for (i = 0; i < sizeof hostile / sizeof hostile[0]; i++) {
		j = job_parse(SAMPLE_JOB "args = []\nenv = {}\n", base);
		ck_assert_ptr_nonnull(j->args);
		ck_assert_uint_eq(j->nargs, 0);
		ck_assert_ptr_nonnull(j->env);
		ck_assert_uint_eq(j->nenv, 0);
		text = round_trip(j, base, "empty args and env");
		ck_assert_ptr_nonnull(strstr(text, "\nargs = []\nenv = {}\n"));
		free(text);

		/* Set the strings by hand: no TOML of ours in between. */
		free(j->command);
		j->command = xstrdup(hostile[i]);
		j->args = xreallocarray(j->args, 3, sizeof *j->args);
		j->args[0] = xstrdup(hostile[i]);
		j->args[1] = xstrdup("");
		j->args[2] = NULL;
		j->nargs = 2;
		j->env = xreallocarray(j->env, 2, sizeof *j->env);
		j->env[0] = xprintf("HOSTILE=%s", hostile[i]);
		j->env[1] = NULL;
		j->nenv = 1;
		j->cwd = xstrdup(hostile[i]);
		j->input = xstrdup(hostile[i]);
		j->stop_command = xstrdup(hostile[i]);
		j->ready.cmd = xstrdup(hostile[i]);
		pp = xcalloc(2, sizeof *pp);
		pp[0].key = xstrdup("p");
		pp[0].value = xstrdup(hostile[i]);
		j->params = pp;
		j->nparams = 1;
		j->env_file = xcalloc(2, sizeof *j->env_file);
		j->env_file[0] = xstrdup(hostile[i]);
		j->nenv_file = 1;
		snprintf(what, sizeof what, "hostile string %zu", i);
		text = round_trip(j, base, what);
		free(text);
		config_job_free(j);
	}
	config_free(base);
}
END_TEST

/* Edited texts that are refused, with their place, against job_base. */
static const struct {
	const char	*text;
	const char	*want;
} job_bad[] = {
	{ SAMPLE_JOB "host = \"-oProxyCommand=x\"",
	  "edit:4:8: job w: host \"-oProxyCommand=x\": not a [hosts] name or "
	  "an ssh destination" },
	{ SAMPLE_JOB "comand = \"x\"",
	  "edit:4:1: unknown key 'comand' in [[job]] (did you mean "
	  "'command'?)" },
	{ SAMPLE_JOB "port = \"80\"",
	  "edit:4:8: port must be an integer between 0 and 65535" },
	{ SAMPLE_JOB "env = { A = \"unterminated }\n",
	  "edit:4:13: unterminated string" },
	{ SAMPLE_JOB "depends_on = { nope = \"started\" }",
	  "edit:4:16: unknown job 'nope' in depends_on" },
	{ SAMPLE_JOB "depends_on = { dbb = \"started\" }",
	  "edit:4:16: unknown job 'dbb' in depends_on (did you mean 'db'?)" },
	{ SAMPLE_JOB "depends_on = { \"queue.2\" = \"started\" }",
	  "edit:4:16: unknown job 'queue.2' in depends_on ('queue' stands "
	  "for all its replicas)" },
	{ SAMPLE_JOB "depends_on = { w = \"started\" }",
	  "edit:4:16: job 'w' depends on itself" },
	{ SAMPLE_JOB "depends_on = { browser = \"ready\" }",
	  "edit:4:16: depends_on names the browser, but [browser] sets no "
	  "cdp_url (write cdp_url = \"auto\" there)" },
	/* api edited to depend on worker, which depends on api. */
	{ "[[job]]\nname = \"api\"\ncommand = \"api\"\n"
	  "depends_on = { db = \"started\", worker = \"started\" }",
	  "edit:4:32: dependency cycle: api -> worker -> api" },
	/* Replica names against the deck's jobs, both ways. */
	{ "[[job]]\nname = \"queue.2\"\ncommand = \"x\"",
	  "edit:2:8: 'queue.2' is the name of a replica of 'queue' "
	  "(replicas = 3)" },
	{ "[[job]]\nname = \"web\"\ncommand = \"x\"\nreplicas = 2",
	  "edit:4:12: replicas: 'web.1' is already the name of another "
	  "job" },
	{ SAMPLE_JOB "command = \"again\"",
	  "edit:4:1: duplicate key 'command'" },
	{ "[[job]]\nname = \"w\"",
	  "edit:1:1: [[job]] needs a command" },
	{ SAMPLE_JOB "args = [\"a\", \"${1x}\"]",
	  "edit:4:14: args: invalid variable name '1x' at column 1" },
	/* One [[job]] and nothing else. */
	{ "", "edit:1:1: the text must be one [[job]] table" },
	{ "# nothing\n", "edit:1:1: the text must be one [[job]] table" },
	{ SAMPLE_JOB "[[job]]\nname = \"v\"\ncommand = \"c\"",
	  "edit:4:1: a second [[job]]: the text is one job" },
	{ SAMPLE_JOB "[settings]\nshell = \"/bin/sh\"",
	  "edit:4:2: 'settings' is not part of a job: the text is one [[job]] "
	  "table" },
	{ "env_file = [\"x\"]\n" SAMPLE_JOB,
	  "edit:1:1: 'env_file' is not part of a job: the text is one [[job]] "
	  "table" },
	{ "job = 1", "edit:1:7: the text must be one [[job]] table" },
};

/*
 * An edited text with an error is refused with its place, the deck's
 * stack unchanged: *out NULL and a cause "edit:LINE:COL: message".
 */
START_TEST(test_parse_job_bad)
{
	struct config		*base;
	struct config_job	*j = (struct config_job *)&j;
	char			*cause = NULL, *before, *after;
	const char		*text = job_bad[_i].text;
	size_t			 k;

	base = job_base();
	before = config_job_toml(&base->jobs[4]);
	ck_assert_int_eq(config_parse_job("edit", text, strlen(text), base,
	    &j, &cause), -1);
	ck_assert_ptr_null(j);
	ck_assert_ptr_nonnull(cause);
	ck_assert_str_eq(cause, job_bad[_i].want);
	free(cause);
	after = config_job_toml(&base->jobs[4]);
	ck_assert_str_eq(before, after);
	ck_assert_uint_eq(base->njobs, 6);
	for (k = 0; k < base->njobs; k++)
		ck_assert_int_ne(base->jobs[k].line, 0);
	free(before);
	free(after);
	config_free(base);
}
END_TEST

/*
 * A good edit: depends_on the deck's jobs, the browser when [browser] is
 * set, a job of the deck replaced by its own name (its dependants still
 * satisfied), a new one; with no base, an empty stack.
 */
START_TEST(test_parse_job_good)
{
	static const char	 browser[] = "[browser]\ncdp_url = \"auto\"\n"
	    "[[job]]\nname = \"db\"\ncommand = \"db\"\n";
	static const char	 lone[] = SAMPLE_JOB "depends_on = { db = "
	    "\"ready\" }";
	struct config		*base, *bcfg = NULL;
	struct config_job	*j;
	char			*cause = NULL;

	base = job_base();
	j = job_parse("[[job]]\nname = \"api\"\ncommand = \"api --new\"\n"
	    "depends_on = { db = \"ready\", \"queue\" = \"started\" }\n", base);
	ck_assert_str_eq(j->name, "api");
	ck_assert_str_eq(j->command, "api --new");
	ck_assert_uint_eq(j->ndeps, 2);
	ck_assert_str_eq(j->deps[1].name, "queue");
	ck_assert_int_eq(j->deps[1].line, 4);
	ck_assert_int_eq(j->deps[1].col, 30);
	ck_assert_int_eq(j->line, 1);
	config_job_free(j);
	/* Replicas that clash with nothing; a name the deck does not have. */
	j = job_parse("[[job]]\nname = \"web\"\ncommand = \"w\"\n"
	    "replicas = 1\n", base);
	config_job_free(j);
	j = job_parse("[[job]]\nname = \"queue.4\"\ncommand = \"x\"\n", base);
	config_job_free(j);
	/* The edited job depends on the deck's web.1, a job of its own. */
	j = job_parse(SAMPLE_JOB "depends_on = { \"web.1\" = \"ready\" }\n",
	    base);
	ck_assert_int_eq(j->deps[0].browser, 0);
	config_job_free(j);
	config_free(base);

	ck_assert_int_eq(config_parse("config.toml", browser, strlen(browser),
	    &bcfg, &cause), 0);
	j = job_parse(SAMPLE_JOB "depends_on = { browser = \"ready\", db = "
	    "\"started\" }\n", bcfg);
	ck_assert_int_eq(j->deps[0].browser, 1);
	ck_assert_int_eq(j->deps[1].browser, 0);
	config_job_free(j);
	config_free(bcfg);

	j = job_parse(SAMPLE_JOB, NULL);
	config_job_free(j);
	ck_assert_int_eq(config_parse_job("edit", lone, strlen(lone), NULL, &j,
	    &cause), -1);
	ck_assert_str_eq(cause, "edit:4:16: unknown job 'db' in depends_on");
	free(cause);
	config_job_free(NULL);
}
END_TEST

/*
 * config_check_host(), the rule every front end checks a host by: a
 * [hosts] name (found by config_find_host()) or an ssh destination; a
 * value that ssh would read as an option, or with blanks, control
 * characters or a second '@', is refused with the value escaped.
 */
START_TEST(test_check_host)
{
	static const char *const ok[] = { "build", "me@box", "box.example",
	    "ssh://me@box:2222", "10.0.0.1", "[::1]", "a-b", "u@h-1" };
	static const char *const no[] = { "-x", "-oProxyCommand=x", "a b",
	    "a\tb", "@box", "me@", "a@b@c", "me@-p", "", "box\x7f" };
	static const char	 text[] = "[hosts.gpu]\nslurm = []\n"
	    "[hosts.build]\nssh = \"me@build1\"\n";
	const struct config_host *h;
	struct config		*cfg;
	char			*cause = NULL;
	size_t			 i;

	cfg = parse_ok(text);
	h = config_find_host(cfg, "build");
	ck_assert_ptr_nonnull(h);
	ck_assert_str_eq(h->ssh, "me@build1");
	ck_assert_ptr_eq(config_find_host(cfg, "gpu"), &cfg->hosts[0]);
	ck_assert_ptr_null(config_find_host(cfg, "me@build1"));
	ck_assert_ptr_null(config_find_host(NULL, "gpu"));
	for (i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		ck_assert_msg(config_check_host(cfg, ok[i], &cause) == 0,
		    "%s: %s", ok[i], cause);
		ck_assert_msg(config_check_host(NULL, ok[i], &cause) == 0,
		    "%s: %s", ok[i], cause);
	}
	for (i = 0; i < sizeof no / sizeof no[0]; i++) {
		ck_assert_msg(config_check_host(cfg, no[i], &cause) == -1,
		    "%s accepted", no[i]);
		ck_assert_ptr_nonnull(strstr(cause, "\": not a [hosts] name "
		    "or an ssh destination"));
		free(cause);
		ck_assert_int_eq(config_ssh_destination(no[i]), 0);
	}
	ck_assert_int_eq(config_check_host(cfg, "a\tb", &cause), -1);
	ck_assert_str_eq(cause, "host \"a\\tb\": not a [hosts] name or an "
	    "ssh destination");
	free(cause);
	config_free(cfg);
}
END_TEST

/* The config suite. */
static Suite *
config_suite(void)
{
	Suite	*s = suite_create("config");
	TCase	*tc;

	tc = tcase_create("parse");
	tcase_add_loop_test(tc, test_parse_bad, 0, sizeof bad / sizeof bad[0]);
	tcase_add_loop_test(tc, test_parse_good, 0,
	    sizeof good / sizeof good[0]);
	tcase_add_test(tc, test_defaults_from_table);
	tcase_add_test(tc, test_table_shape);
	tcase_add_test(tc, test_store_limits);
	tcase_add_test(tc, test_keys);
	tcase_add_test(tc, test_find_job);
	tcase_add_test(tc, test_check_host);
	tcase_add_test(tc, test_ready_log_regex);
	tcase_add_test(tc, test_procfile_ports);
	tcase_add_loop_test(tc, test_procfile, 0,
	    sizeof procfiles / sizeof procfiles[0]);
	suite_add_tcase(s, tc);

	tc = tcase_create("load");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_load_procfile_by_name);
	tcase_add_test(tc, test_load_procfile_env);
	tcase_add_test(tc, test_load_errors);
	tcase_add_test(tc, test_load_permissions);
	tcase_add_test(tc, test_default_path);
	tcase_add_test(tc, test_load_default);
	tcase_add_test(tc, test_example_file);
	suite_add_tcase(s, tc);

	tc = tcase_create("many");
	/* A hang guard: a sanitizer's build, on a busy host, takes a while. */
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_many_jobs);
	tcase_add_test(tc, test_many_deps);
	suite_add_tcase(s, tc);

	tc = tcase_create("launch");
	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_launch_hostile);
	tcase_add_test(tc, test_launch_terminal);
	tcase_add_test(tc, test_launch_host);
	tcase_add_test(tc, test_launch_env);
	suite_add_tcase(s, tc);

	tc = tcase_create("jobtext");
	tcase_add_loop_test(tc, test_job_toml_each, 0,
	    sizeof job_samples / sizeof job_samples[0]);
	tcase_add_test(tc, test_job_toml_every_key);
	tcase_add_test(tc, test_job_toml_timer_autostart);
	tcase_add_loop_test(tc, test_diff_each, 0,
	    sizeof job_samples / sizeof job_samples[0]);
	tcase_add_test(tc, test_copy_config);
	tcase_add_test(tc, test_job_toml_hostile);
	tcase_add_loop_test(tc, test_parse_job_bad, 0,
	    sizeof job_bad / sizeof job_bad[0]);
	tcase_add_test(tc, test_parse_job_good);
	suite_add_tcase(s, tc);

	tc = tcase_create("docs");
	tcase_add_test(tc, test_man_page);
	tcase_add_test(tc, test_help_text);
	suite_add_tcase(s, tc);

	tc = tcase_create("robust");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_robust);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite. */
int
main(void)
{
	SRunner	*sr = srunner_create(config_suite());
	int	 failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

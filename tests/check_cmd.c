/*
 * check_cmd.c: tests for the command language through cmd_run_line(), as
 * the prompt uses it, with real jobs on a real loop: error messages
 * (table-driven), unique and ambiguous prefixes, !ps, !kill with signals,
 * !kill-all, !logs, !focus, !help, !quit, the session builtins cd, export
 * and unset as later jobs see them, and plain lines starting jobs.  The
 * client's callbacks record what the commands report.
 */
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <netinet/in.h>

#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bind.h"
#include "browser.h"
#include "cmd.h"
#include "config.h"
#include "job.h"
#include "jobfield.h"
#include "jobtable.h"
#include "jsonval.h"
#include "loop.h"
#include "session.h"
#include "sessionsh.h"
#include "stack.h"
#include "store.h"
#include "testdeck.h"
#include "testnet.h"
#include "texttable.h"

static char *const test_env[] = {
	"PATH=/usr/bin:/bin", "LC_ALL=C", "HOME=/", "FOO=outer", NULL
};

#define MAX_REC	16

/* What the client was told, and the objects under test. */
struct rec {
	struct store	*store;		/* every test's output store */
	char		*errors[MAX_REC];
	int		 nerrors;
	char		*messages[MAX_REC];
	int		 nmessages;
	char		*title;		/* the last show */
	char		**lines;
	int		 count;
	int		 header;
	int		 nshows;
	struct job	*selected;	/* the last select */
	int		 focus;
	int		 nselects;
	int		 quits;
	char		*json;		/* the last JSON document */

	struct loop	*loop;
	struct jobtable	*jt;
	struct session	*session;
	struct cmd_ctx	 ctx;
	char		 dir[64];
	char		*cwd0;		/* the session's first cwd */
	struct config	*config;	/* stack_load()'s, or NULL */
	struct stack	*stack;
	struct browser	*browser;	/* browser_make()'s, or NULL */
};

static struct rec	rec;

/* Keep an error. */
static void
rec_error(const char *msg, void *arg)
{
	struct rec	*r = arg;

	ck_assert_int_lt(r->nerrors, MAX_REC);
	r->errors[r->nerrors++] = strdup(msg);
}

/* Keep a message. */
static void
rec_message(const char *msg, void *arg)
{
	struct rec	*r = arg;

	ck_assert_int_lt(r->nmessages, MAX_REC);
	r->messages[r->nmessages++] = strdup(msg);
}

/* Forget the last show. */
static void
rec_free_show(struct rec *r)
{
	int	i;

	for (i = 0; i < r->count; i++)
		free(r->lines[i]);
	free(r->lines);
	free(r->title);
	r->lines = NULL;
	r->title = NULL;
	r->count = 0;
}

/* Keep a copy of a shown text. */
static void
rec_show(const char *title, char **lines, int count, int header,
    void *arg)
{
	struct rec	*r = arg;
	int		 i;

	rec_free_show(r);
	r->header = header;
	r->title = strdup(title);
	r->lines = calloc((size_t)count + 1, sizeof *r->lines);
	for (i = 0; i < count; i++)
		r->lines[i] = strdup(lines[i]);
	r->count = count;
	r->nshows++;
}

/* Keep the selected job. */
static void
rec_select(struct job *job, int focus, void *arg)
{
	struct rec	*r = arg;

	r->selected = job;
	r->focus = focus;
	r->nselects++;
}

/* Count a quit. */
static void
rec_quit(void *arg)
{
	struct rec	*r = arg;

	r->quits++;
}

/* Keep a JSON document. */
static void
rec_json(const char *doc, void *arg)
{
	struct rec	*r = arg;

	free(r->json);
	r->json = strdup(doc);
}

static const struct cmd_client rec_client = {
	.message = rec_message,
	.error = rec_error,
	.show = rec_show,
	.select = rec_select,
	.quit = rec_quit,
	.json = rec_json,
};

/* Forget everything the client was told. */
static void
rec_clear(void)
{
	int	i;

	for (i = 0; i < rec.nerrors; i++)
		free(rec.errors[i]);
	for (i = 0; i < rec.nmessages; i++)
		free(rec.messages[i]);
	rec_free_show(&rec);
	free(rec.json);
	rec.json = NULL;
	rec.nerrors = rec.nmessages = rec.nshows = rec.nselects = 0;
	rec.quits = 0;
	rec.selected = NULL;
	rec.focus = -1;
}

/* Make a loop, a jobtable, a session and a context that records. */
static void
setup(void)
{
	memset(&rec, 0, sizeof rec);
	strcpy(rec.dir, "/tmp/check_cmd.XXXXXX");
	testdeck_open(rec.dir, &rec.loop, &rec.jt, &rec.store);
	rec.session = session_new(test_env);
	rec.cwd0 = strdup(session_cwd(rec.session));
	rec.ctx.jt = rec.jt;
	rec.ctx.session = rec.session;
	rec.ctx.client = &rec_client;
	rec.ctx.arg = &rec;
	rec_clear();
}

/* Kill what is left and free everything. */
static void
teardown(void)
{
	char	cmd[128];
	int	i;

	rec_clear();
	for (i = 0; i < jobtable_count(rec.jt); i++)
		job_signal(jobtable_get(rec.jt, i), SIGKILL);
	stack_free(rec.stack);
	if (rec.browser != NULL)
		browser_free(rec.browser);
	jobtable_free(rec.jt);
	config_free(rec.config);
	store_free(rec.store);
	loop_free(rec.loop);
	session_free(rec.session);
	free(rec.cwd0);
	jobtable_kill_strays();
	snprintf(cmd, sizeof cmd, "rm -rf %s", rec.dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cleanup of %s failed\n", rec.dir);
}

/* Run a prompt line; assert it succeeded and reported no error. */
static void
run_ok(const char *line)
{
	int	rc;

	rc = cmd_run_line(&rec.ctx, line);
	ck_assert_msg(rc == 0 && rec.nerrors == 0, "%s: rc %d, error %s", line,
	    rc, rec.nerrors > 0 ? rec.errors[0] : "none");
}

/* Run a prompt line that must fail with exactly the error want. */
static void run_error(const char *, const char *);
static void wait_text_has(struct job *, const char *);

/* Forget what the client was told, then run_error(). */
static void
run_error_again(const char *line, const char *want)
{
	rec_clear();
	run_error(line, want);
}

/* Run a prompt line that must fail with exactly the error want. */
static void
run_error(const char *line, const char *want)
{
	int	rc;

	rc = cmd_run_line(&rec.ctx, line);
	ck_assert_msg(rc == -1, "%s: rc %d", line, rc);
	ck_assert_msg(rec.nerrors == 1, "%s: %d errors", line, rec.nerrors);
	ck_assert_str_eq(rec.errors[0], want);
}

/* Whether the job has been reaped and its output closed. */
static int
is_done(struct job *job)
{
	return !job_is_running(job) && job_out_fd(job) == -1;
}

/* Turn the loop until job is done (at most 5 s). */
static void
wait_done(struct job *job)
{
	int64_t	end = loop_now_ms() + 5000;

	while (!is_done(job)) {
		ck_assert_msg(loop_now_ms() < end, "job %d (%s) did not end",
		    job_id(job), job_command(job));
		loop_run_once(rec.loop, 20);
	}
}

/* Turn the loop until job is in state, for at most 5 s. */
static void
wait_state(struct job *job, enum job_state state)
{
	int64_t	end = loop_now_ms() + 5000;

	while (job_state(job) != state) {
		ck_assert_msg(loop_now_ms() < end, "job %d is %s, not %s",
		    job_id(job), job_state_name(job_state(job)),
		    job_state_name(state));
		loop_run_once(rec.loop, 20);
	}
}

/*
 * Turn the loop until nothing is left of any job in the table (no group,
 * no leftover), for at most 5 s.
 */
static void
wait_all_gone(void)
{
	struct job	*job;
	int64_t		 end = loop_now_ms() + 5000;
	int		 i;

	for (i = 0; i < jobtable_count(rec.jt); i++) {
		job = jobtable_get(rec.jt, i);
		while (job_is_running(job) || job_signal(job, 0) == 0 ||
		    job_lingers(job)) {
			ck_assert_msg(loop_now_ms() < end, "job %d (%s) is not "
			    "gone", job_id(job), job_command(job));
			loop_run_once(rec.loop, 20);
		}
	}
}

/* Turn the loop for ms milliseconds. */
static void
run_for(int ms)
{
	int64_t	end = loop_now_ms() + ms;

	while (loop_now_ms() < end)
		loop_run_once(rec.loop, end - loop_now_ms());
}

/* Start a plain line as a job, wait for its end and return it. */
static struct job *
run_job(const char *line)
{
	struct job	*job;

	rec_clear();
	run_ok(line);
	ck_assert_int_eq(rec.nselects, 1);
	job = rec.selected;
	ck_assert_ptr_nonnull(job);
	wait_done(job);
	return job;
}

/* Assert that the job's text has a line equal to want. */
static void
assert_text_line(const struct job *job, const char *want)
{
	char	**lines;
	int	  count, i, found = 0;

	lines = job_text_lines(job, &count);
	for (i = 0; i < count && !found; i++)
		found = strcmp(lines[i], want) == 0;
	ck_assert_msg(found, "no line \"%s\" in %d lines (first \"%s\")", want,
	    count, count > 0 ? lines[0] : "");
	job_text_free(lines, count);
}

/* Which lines the session shell runs, and which are jobs. */
START_TEST(test_session_line_rule)
{
	static const struct {
		const char	*line;
		int		 session;
	} cases[] = {
		{ "cd /my-app && export API_KEY=secret", 1 },
		{ "source venv/bin/activate", 1 },
		{ ". ./env.sh; alias ll='ls -l'", 1 },
		{ "pushd /tmp || popd", 1 },
		{ "unset A; unalias ll; set -o noclobber; shopt -s extglob", 1 },
		{ "umask 077", 1 },
		{ "greet() { echo hi; }", 1 },
		{ "function greet { echo hi; }", 1 },
		{ "export X=$(date)", 1 },
		{ "npm start", 0 },
		{ "cd /tmp && npm start", 0 },
		{ "export X=1 | cat", 0 },
		{ "cd /tmp &", 0 },
		{ "exporter --flag", 0 },
		{ "echo cd", 0 },
	};
	size_t	i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
		ck_assert_msg(cmd_is_session_line(cases[i].line) ==
		    cases[i].session, "%s: %d", cases[i].line,
		    !cases[i].session);
}
END_TEST

/*
 * With a session shell: a job typed right after a session line waits for
 * it and starts in its state; a failing list shows the error and changes
 * nothing; a job's own cd is its own.
 */
START_TEST(test_session_shell_order)
{
	struct job	*job;
	char		*cause = NULL, line[512];
	int64_t		 end;

	rec.ctx.sessionsh = sessionsh_new(rec.loop, rec.jt, NULL, rec.session,
	    0, &cause);
	ck_assert_msg(rec.ctx.sessionsh != NULL, "%s", cause);
	snprintf(line, sizeof line, "cd %s && export API_KEY=secret", rec.dir);
	rec_clear();
	run_ok(line);
	run_ok("echo \"$(pwd) $API_KEY\"");
	ck_assert_int_eq(jobtable_count(rec.jt), 0);
	end = loop_now_ms() + 10000;
	while (rec.nselects == 0 && loop_now_ms() < end)
		loop_run_once(rec.loop, 50);
	ck_assert_int_eq(rec.nselects, 1);
	ck_assert_int_eq(rec.nerrors, 0);
	ck_assert_str_eq(rec.messages[0], rec.dir);
	job = rec.selected;
	wait_done(job);
	snprintf(line, sizeof line, "%s secret", rec.dir);
	assert_text_line(job, line);

	rec_clear();
	run_ok("cd nowhere && export X=1");
	end = loop_now_ms() + 10000;
	while (rec.nerrors == 0 && loop_now_ms() < end)
		loop_run_once(rec.loop, 50);
	ck_assert_int_eq(rec.nerrors, 1);
	ck_assert_msg(strstr(rec.errors[0], "nowhere") != NULL, "%s",
	    rec.errors[0]);
	ck_assert_str_eq(session_cwd(rec.session), rec.dir);
	ck_assert_ptr_null(session_getenv(rec.session, "X"));

	job = run_job("cd / && pwd");
	assert_text_line(job, "/");
	ck_assert_str_eq(session_cwd(rec.session), rec.dir);
	sessionsh_free(rec.ctx.sessionsh);
	rec.ctx.sessionsh = NULL;
}
END_TEST

/*
 * A session line that succeeds but writes to stderr (a sourced script's
 * warning) is no failure: what it wrote is a message, not an error, so
 * that a ctl client's answer is 0 as the shell's status was.
 */
START_TEST(test_session_shell_warning)
{
	char		*cause = NULL, file[512], line[600];
	int64_t		 end;
	FILE		*fp;

	rec.ctx.sessionsh = sessionsh_new(rec.loop, rec.jt, NULL, rec.session,
	    0, &cause);
	ck_assert_msg(rec.ctx.sessionsh != NULL, "%s", cause);
	snprintf(file, sizeof file, "%s/warns.sh", rec.dir);
	fp = fopen(file, "w");
	ck_assert_ptr_nonnull(fp);
	fprintf(fp, "echo 'warning: old' >&2\nexport W=1\n");
	fclose(fp);
	snprintf(line, sizeof line, ". '%s'", file);
	rec_clear();
	run_ok(line);
	end = loop_now_ms() + 10000;
	while (session_getenv(rec.session, "W") == NULL &&
	    loop_now_ms() < end)
		loop_run_once(rec.loop, 50);
	ck_assert_str_eq(session_getenv(rec.session, "W"), "1");
	ck_assert_int_eq(rec.nerrors, 0);
	ck_assert_int_eq(rec.nmessages, 1);
	ck_assert_str_eq(rec.messages[0], "warning: old");
	sessionsh_free(rec.ctx.sessionsh);
	rec.ctx.sessionsh = NULL;
}
END_TEST

/*
 * A session line that exports a variable too large to pass to programs
 * is an error naming it, and the session goes on: a later cd answers
 * with the new cwd (it froze: no error, and cd answered the old cwd, so
 * ctl cd said 0 with a stale directory).
 */
START_TEST(test_session_shell_big_variable)
{
	char		*cause = NULL, line[512];
	int64_t		 end;

	rec.ctx.sessionsh = sessionsh_new(rec.loop, rec.jt, NULL, rec.session,
	    0, &cause);
	ck_assert_msg(rec.ctx.sessionsh != NULL, "%s", cause);
	rec_clear();
	run_ok("export BIG=$(printf '%0200000d' 0)");
	/* Within the test's 10 s: it never came before (no error at all). */
	end = loop_now_ms() + 7000;
	while (rec.nerrors == 0 && loop_now_ms() < end)
		loop_run_once(rec.loop, 50);
	ck_assert_msg(rec.nerrors == 1, "no error (%d messages: %s)",
	    rec.nmessages, rec.nmessages > 0 ? rec.messages[0] : "");
	ck_assert_msg(strstr(rec.errors[0], "BIG is too large") != NULL,
	    "%s", rec.errors[0]);
	ck_assert_ptr_null(session_getenv(rec.session, "BIG"));

	rec_clear();
	snprintf(line, sizeof line, "cd %s", rec.dir);
	run_ok(line);
	end = loop_now_ms() + 10000;
	while (rec.nmessages + rec.nerrors == 0 && loop_now_ms() < end)
		loop_run_once(rec.loop, 50);
	ck_assert_int_eq(rec.nerrors, 0);
	ck_assert_int_eq(rec.nmessages, 1);
	ck_assert_str_eq(rec.messages[0], rec.dir);
	ck_assert_str_eq(session_cwd(rec.session), rec.dir);
	sessionsh_free(rec.ctx.sessionsh);
	rec.ctx.sessionsh = NULL;
}
END_TEST

/*
 * cd into a directory whose name holds a newline: the answer and the
 * session's cwd are that directory exactly (it was cut at the newline),
 * and a job started next runs there.
 */
START_TEST(test_session_shell_newline_cwd)
{
	struct job	*job;
	char		*cause = NULL, dir[128], line[256], want[160];
	int64_t		 end;
	size_t		 i;

	rec.ctx.sessionsh = sessionsh_new(rec.loop, rec.jt, NULL, rec.session,
	    0, &cause);
	ck_assert_msg(rec.ctx.sessionsh != NULL, "%s", cause);
	/* Cut at the newline it was rec.dir/a, which is there too. */
	snprintf(line, sizeof line, "%s/a", rec.dir);
	ck_assert_int_eq(mkdir(line, 0700), 0);
	snprintf(dir, sizeof dir, "%s/a\nb", rec.dir);
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	rec_clear();
	snprintf(line, sizeof line, "cd '%s'", dir);
	run_ok(line);
	end = loop_now_ms() + 10000;
	while (rec.nmessages + rec.nerrors == 0 && loop_now_ms() < end)
		loop_run_once(rec.loop, 50);
	ck_assert_int_eq(rec.nerrors, 0);
	ck_assert_int_eq(rec.nmessages, 1);
	/* The answer reaches a terminal: its newline is shown as \n. */
	snprintf(want, sizeof want, "%s/a\\nb", rec.dir);
	ck_assert_str_eq(rec.messages[0], want);
	ck_assert_str_eq(session_cwd(rec.session), dir);

	job = run_job("pwd | tr '\\n' '|'");
	snprintf(want, sizeof want, "%s|", dir);
	for (i = 0; want[i] != '\0'; i++)
		if (want[i] == '\n')
			want[i] = '|';
	assert_text_line(job, want);
	sessionsh_free(rec.ctx.sessionsh);
	rec.ctx.sessionsh = NULL;
}
END_TEST

/* A prompt line and the one error it must give (or contain). */
static const struct err_case {
	const char	*line;
	const char	*error;
	int		 contains;
} err_cases[] = {
	{ "!frobnicate", "unknown command: !frobnicate", 0 },
	{ "!frobnicate now", "unknown command: !frobnicate", 0 },
	{ "!k", "ambiguous command: !k (!kill, !kill-all, !kill-group)", 0 },
	{ "!kill-", "ambiguous command: !kill- (!kill-all, !kill-group)", 0 },
	{ "!kill 999", "no such job: 999", 0 },
	{ "!kill", "usage: !kill [-SIGNAL] ID...", 0 },
	{ "!kill -9", "usage: !kill [-SIGNAL] ID...", 0 },
	{ "!kill -NOPE 1", "kill: unknown signal: NOPE", 0 },
	{ "!kill -99 1", "kill: unknown signal: 99", 0 },
	{ "!kill-all now", "usage: !kill-all", 0 },
	{ "!logs", "usage: !logs [--follow] [--all] ID...", 0 },
	{ "!logs 1 2", "no such job: 1", 0 },
	{ "!logs --all 1", "logs: --all takes no ID", 0 },
	{ "!logs --all", "logs: no jobs", 0 },
	{ "!logs 999", "no such job: 999", 0 },
	{ "!focus nope", "no such job: nope", 0 },
	{ "!ps -a", "usage: !ps", 0 },
	{ "!quit now", "usage: !quit", 0 },
	{ "!", "missing command after !  (try !help)", 0 },
	{ "cd /nope", "cd: /nope: No such file or directory", 0 },
	{ "!cd /nope", "cd: /nope: No such file or directory", 0 },
	{ "cd /tmp /", "cd [DIR | -]", 1 },
	{ "cd -", "cd: OLDPWD not set", 0 },
	{ "export 1x=2", "export: `1x=2': not a valid identifier", 0 },
	{ "export", "export NAME=VALUE...", 1 },
	{ "unset 'A B'", "unset: `A B': not a valid identifier", 0 },
	{ "!logs 'unterminated", "unterminated quote", 0 },
	{ "!logs ${X", "unterminated ${", 0 },
	{ "!logs --follow", "usage: !logs [--follow] [--all] ID...", 0 },
	{ "!list --status bogus", "list: unknown status: bogus (queued, "
	    "waiting, running, stopped, completed, failed, canceled, "
	    "timed-out, blocked)", 0 },
	{ "!list --group", "list: --group needs a value (GROUP)", 0 },
	{ "!start-group", "usage: !start-group GROUP", 0 },
	{ "!kill-group a b", "usage: !kill-group GROUP", 0 },
	{ "!start-group backend", "start-group: no configured stack here", 0 },
	{ "!kill-group backend", "kill-group: no configured stack here", 0 },
	{ "!list --limit", "list: --limit needs a value (N)", 0 },
	{ "!list --bogus", "list: unknown option: --bogus", 0 },
	{ "!list --status=running --status=failed", "list: --status given "
	    "twice", 0 },
	{ "!ps extra", "usage: !ps", 0 },
	{ "!status", "usage: !status [--incremental] [--since MARK] "
	    "[--max-bytes N] [--split] ID", 0 },
	{ "!status 999", "no such job: 999", 0 },
	{ "!spawn --name x", "usage: !spawn [--name N] [--cwd DIR] [--host H] "
	    "[--env K=V]... [--no-shell] [--agent NAME] [--pipes] [--input "
	    "TEXT] [--timeout S] [--escaped] [--] COMMAND...", 0 },
	{ "!spawn --host -x -- true", "spawn: --host: host \"-x\": not a "
	    "[hosts] name or an ssh destination", 0 },
	{ "!spawn --host 'a b' -- true", "spawn: --host: host \"a b\": not "
	    "a [hosts] name or an ssh destination", 0 },
	{ "!spawn --timeout soon -- true", "spawn: --timeout wants seconds "
	    "from 0 to 31536000 (0: none), not 'soon'", 0 },
	{ "!spawn --input 'a\\q' -- true", "spawn: --input: unknown escape "
	    "\\q (\\n \\r \\t \\\\ \\xHH)", 0 },
	{ "!spawn --input 'a\\x00' -- true", "spawn: --input cannot hold a "
	    "NUL byte (\\x00)", 0 },
	{ "!status --split 1", "status: --split gives JSON only (ctl --json)",
	    0 },
	{ "!spawn --cwd /nope -- true", "spawn: /nope: No such file or "
	    "directory", 0 },
	{ "!status --since xyz 1", "status: --since wants LINE:BYTES as a "
	    "\"next\" gave: xyz", 0 },
	{ "!status --since 1: 1", "status: --since wants LINE:BYTES as a "
	    "\"next\" gave: 1:", 0 },
	{ "!status --since -1:0 1", "status: --since wants LINE:BYTES as a "
	    "\"next\" gave: -1:0", 0 },
	{ "!status --since 1:2x 1", "status: --since wants LINE:BYTES as a "
	    "\"next\" gave: 1:2x", 0 },
	{ "!status --since 0:0 --incremental 1", "status: --incremental and "
	    "--since do not go together", 0 },
	{ "!status --max-bytes 10 1", "status: --max-bytes goes with --since "
	    "or --split", 0 },
	{ "!status --since 0:0 --max-bytes 0 1", "status: --max-bytes wants "
	    "a number of bytes from 1 to 1048576: 0", 0 },
	{ "!status --since 0:0 --max-bytes 1048577 1", "status: --max-bytes "
	    "wants a number of bytes from 1 to 1048576: 1048577", 0 },
	{ "!send 1", "usage: !send ID [--] TEXT...", 0 },
	{ "!send 999 x", "no such job: 999", 0 },
	{ "!events", "events works only through the control socket "
	    "(jobdeck ctl events)", 0 },
	{ "!browser", "browser: no browser here", 0 },
	{ "!browser start", "browser: no browser here", 0 },
	{ "!browser frob", "browser: unknown word: frob (start, stop, "
	    "restart or status)", 0 },
	{ "!browser start now", "usage: !browser [start | stop | restart | "
	    "status]", 0 },
};

/* Each bad line gives its error, and starts, shows and selects nothing. */
START_TEST(test_errors)
{
	const struct err_case	*c = &err_cases[_i];

	if (c->contains) {
		ck_assert_int_eq(cmd_run_line(&rec.ctx, c->line), -1);
		ck_assert_int_eq(rec.nerrors, 1);
		ck_assert_msg(strncmp(rec.errors[0], "usage: ", 7) == 0 &&
		    strstr(rec.errors[0], c->error) != NULL, "%s: error %s",
		    c->line, rec.errors[0]);
	} else
		run_error(c->line, c->error);
	ck_assert_int_eq(rec.nmessages, 0);
	ck_assert_int_eq(rec.nshows, 0);
	ck_assert_int_eq(rec.nselects, 0);
	ck_assert_int_eq(rec.quits, 0);
	ck_assert_int_eq(jobtable_count(rec.jt), 0);
	ck_assert_str_eq(session_cwd(rec.session), rec.cwd0);
}
END_TEST

/* Commands are found by name, alias and unique prefix. */
START_TEST(test_find)
{
	char	*cause = NULL;
	int	 i;

	for (i = 0; cmd_table[i] != NULL; i++)
		ck_assert_ptr_eq(cmd_find(cmd_table[i]->name, &cause),
		    cmd_table[i]);
	ck_assert_str_eq(cmd_find("kill", &cause)->name, "kill");
	ck_assert_str_eq(cmd_find("kill-a", &cause)->name, "kill-all");
	ck_assert_str_eq(cmd_find("kill-g", &cause)->name, "kill-group");
	ck_assert_str_eq(cmd_find("start", &cause)->name, "start-group");
	ck_assert_str_eq(cmd_find("killall", &cause)->name, "kill-all");
	ck_assert_str_eq(cmd_find("he", &cause)->name, "help");
	ck_assert_str_eq(cmd_find("?", &cause)->name, "help");
	ck_assert_str_eq(cmd_find("q", &cause)->name, "quit");
	ck_assert_str_eq(cmd_find("l", &cause)->name, "logs");
	ck_assert_ptr_null(cause);
	ck_assert_ptr_null(cmd_find("", &cause));
	ck_assert_str_eq(cause, "unknown command: !");
	free(cause);
	ck_assert_ptr_null(cmd_find("helpme", &cause));
	ck_assert_str_eq(cause, "unknown command: !helpme");
	free(cause);
}
END_TEST

/* !help (and !he, and !?) lists every command of cmd_table. */
/*
 * Return whether the help text help, wrapped at 78 columns under column
 * 27, follows the usage on line j (beside it or below).
 */
static int
help_at(int j, const char *help)
{
	char	text[1024];
	int	i, start;

	for (start = j; start <= j + 1 && start < rec.count; start++) {
		text[0] = '\0';
		for (i = start; i < rec.count && strlen(rec.lines[i]) > 27;
		    i++) {
			if (i > start && strncmp(rec.lines[i],
			    "                           ", 27) != 0)
				break;
			if (strlen(rec.lines[i]) > 78)
				return 0;
			if (text[0] != '\0')
				strcat(text, " ");
			strncat(text, rec.lines[i] + 27, sizeof text -
			    strlen(text) - 1);
			if (strcmp(text, help) == 0)
				return 1;
		}
	}
	return 0;
}

/*
 * Return how many lines the usage starting at line j takes: one, or more
 * when it is wider than the view (continued on lines indented by 4).
 */
static int
usage_lines(int j)
{
	int	n = 1;

	while (j + n < rec.count && strlen(rec.lines[j + n - 1]) <= 78 &&
	    strncmp(rec.lines[j + n], "    [", 5) == 0)
		n++;
	return n;
}

/* Return whether the usage want ("  !cmd ...") begins at line j. */
static int
usage_at(int j, const char *want)
{
	char	text[1024];
	int	i, n = usage_lines(j);

	snprintf(text, sizeof text, "%s", rec.lines[j]);
	for (i = 1; i < n; i++) {
		strncat(text, rec.lines[j + i] + 3, sizeof text - strlen(text) -
		    1);
	}
	return strncmp(text, want, strlen(want)) == 0;
}

START_TEST(test_help)
{
	static const char *const lines[] = { "!help", "!he", "!?", "  !hel  " };
	const struct cmd_entry	*e;
	char			 want[128], *usage;
	size_t			 k;
	int			 i, j, found;

	for (k = 0; k < sizeof lines / sizeof lines[0]; k++) {
		rec_clear();
		run_ok(lines[k]);
		ck_assert_int_eq(rec.nshows, 1);
		ck_assert_str_eq(rec.title, "Help");
		for (i = 0; (e = cmd_table[i]) != NULL; i++) {
			/* The generated usage, its help beside or below. */
			usage = cmd_usage(e);
			snprintf(want, sizeof want, "  %s", usage);
			free(usage);
			for (j = 0, found = 0; j < rec.count && !found; j++)
				found = usage_at(j, want) &&
				    help_at(j + usage_lines(j) - 1, e->help);
			ck_assert_msg(found, "%s: no line for %s", lines[k],
			    e->name);
		}
	}
}
END_TEST

/* !quit and !q call the client's quit. */
START_TEST(test_quit)
{
	run_ok("!quit");
	ck_assert_int_eq(rec.quits, 1);
	run_ok("!q");
	ck_assert_int_eq(rec.quits, 2);
	ck_assert_int_eq(rec.nshows, 0);
}
END_TEST

/* A plain line starts a job and selects it; blank lines do nothing. */
START_TEST(test_plain_line_starts_job)
{
	struct job	*job;

	run_ok("");
	run_ok("   \t");
	ck_assert_int_eq(jobtable_count(rec.jt), 0);
	ck_assert_int_eq(rec.nselects, 0);

	run_ok("  echo one | tr a-z A-Z && echo two");
	ck_assert_int_eq(jobtable_count(rec.jt), 1);
	job = jobtable_get(rec.jt, 0);
	ck_assert_int_eq(rec.nselects, 1);
	ck_assert_ptr_eq(rec.selected, job);
	ck_assert_int_eq(rec.focus, 0);
	ck_assert_int_eq(job_is_pty(job), 1);
	wait_done(job);
	ck_assert_int_eq(job_state(job), JOB_COMPLETED);
	assert_text_line(job, "ONE");
	assert_text_line(job, "two");

	/* A word that only starts like a builtin is a job too. */
	job = run_job("cdx=1; exportx=2; echo $cdx$exportx");
	assert_text_line(job, "12");
	ck_assert_int_eq(jobtable_count(rec.jt), 2);
}
END_TEST

/* !focus ID selects the job with focus. */
START_TEST(test_focus)
{
	struct job	*job;

	run_ok("sleep 100");
	job = rec.selected;
	run_ok("echo hi");
	ck_assert_ptr_ne(rec.selected, job);
	rec_clear();
	run_ok("!focus 1");
	ck_assert_int_eq(rec.nselects, 1);
	ck_assert_ptr_eq(rec.selected, job);
	ck_assert_int_eq(rec.focus, 1);
	rec_clear();
	run_ok("!f 2");
	ck_assert_ptr_eq(rec.selected, jobtable_get(rec.jt, 1));
	ck_assert_int_eq(rec.focus, 1);
}
END_TEST

/* One !ps row: the fields it shows. */
struct ps_row {
	int	id;
	long	pid;
	char	state[32];
	char	exit[32];
	char	time[32];
	char	command[128];
};

/* Parse a !ps row (PID "-": -1, as job_pid()); return 0 if it does not. */
static int
ps_parse(const char *line, struct ps_row *r)
{
	char	pid[32], *end;
	int	m, s, n = 0;

	/* READY, CPU and MEM are skipped. */
	if (sscanf(line, "%d %31s %31s %*s %31s %dm %ds %*s %*s %n", &r->id,
	    pid, r->state, r->exit, &m, &s, &n) != 6 || n == 0)
		return 0;
	r->pid = strcmp(pid, "-") == 0 ? -1 : strtol(pid, &end, 10);
	if (strcmp(pid, "-") != 0 && *end != '\0')
		return 0;
	snprintf(r->time, sizeof r->time, "%dm %02ds", m, s);
	snprintf(r->command, sizeof r->command, "%s", line + n);
	return 1;
}

/* Show !ps and parse its rows into rows; assert the header. */
static int
ps(struct ps_row *rows, int max)
{
	const char	*h;
	int		 i;

	rec_clear();
	run_ok("!ps");
	ck_assert_int_eq(rec.nshows, 1);
	ck_assert_int_ge(rec.count, 1);
	h = rec.lines[0];
	ck_assert_msg(strstr(h, "ID") == h &&
	    strstr(h, "PID") > h && strstr(h, "STATE") > strstr(h, "PID") &&
	    strstr(h, "READY") > strstr(h, "STATE") &&
	    strstr(h, "EXIT") > strstr(h, "READY") &&
	    strstr(h, "TIME") > strstr(h, "EXIT") &&
	    strstr(h, "COMMAND") > strstr(h, "TIME"), "header: %s", h);
	ck_assert_int_le(rec.count - 1, max);
	for (i = 1; i < rec.count; i++)
		ck_assert_msg(ps_parse(rec.lines[i], &rows[i - 1]),
		    "row: %s", rec.lines[i]);
	return rec.count - 1;
}

/* !ps shows one row per job with its state, exit and command. */
START_TEST(test_ps)
{
	struct ps_row	 rows[8];
	struct job	*j1, *j2, *j3;
	static const struct {
		const char	*state;
		const char	*exit;
		const char	*command;
	} want[] = {
		{ "completed", "0", "true" },
		{ "failed", "3", "exit 3" },
		{ "running", "-", "sleep 100" },
		{ "canceled", "SIGTERM", "sleep 100" },
	};
	int		 n, i;

	n = ps(rows, 8);
	ck_assert_int_eq(n, 0);

	j1 = run_job("true");
	j2 = run_job("exit 3");
	rec_clear();
	run_ok("sleep 100");
	j3 = rec.selected;
	run_for(100);
	n = ps(rows, 8);
	ck_assert_int_eq(n, 3);
	for (i = 0; i < 3; i++) {
		ck_assert_int_eq(rows[i].id, i + 1);
		ck_assert_str_eq(rows[i].state, want[i].state);
		ck_assert_str_eq(rows[i].exit, want[i].exit);
		ck_assert_str_eq(rows[i].command, want[i].command);
	}
	ck_assert_int_eq(rows[0].pid, job_pid(j1));
	ck_assert_int_eq(rows[1].pid, job_pid(j2));
	ck_assert_int_eq(rows[2].pid, job_pid(j3));
	ck_assert_str_eq(rows[0].time, "0m 00s");

	rec_clear();
	run_ok("!kill 3");
	ck_assert_int_eq(rec.nmessages, 1);
	ck_assert_str_eq(rec.messages[0], "sent SIGTERM to 1 job");
	wait_done(j3);
	n = ps(rows, 8);
	ck_assert_int_eq(n, 3);
	ck_assert_str_eq(rows[2].state, want[3].state);
	ck_assert_str_eq(rows[2].exit, want[3].exit);
	ck_assert_str_eq(rows[2].command, want[3].command);
}
END_TEST

/* A !kill line and the signal the job must die of. */
static const struct kill_case {
	const char	*line;
	int		 sig;
	const char	*message;
} kill_cases[] = {
	{ "!kill 1", SIGTERM, "sent SIGTERM to 1 job" },
	{ "!kill -9 1", SIGKILL, "sent SIGKILL to 1 job" },
	{ "!kill -KILL 1", SIGKILL, "sent SIGKILL to 1 job" },
	{ "!kill -SIGKILL 1", SIGKILL, "sent SIGKILL to 1 job" },
	{ "!kill -hup 1", SIGHUP, "sent SIGHUP to 1 job" },
	{ "!kill -INT 1", SIGINT, "sent SIGINT to 1 job" },
	{ "!kill -USR1 1", SIGUSR1, "sent SIGUSR1 to 1 job" },
};

/* Each row's !kill delivers its signal to the job. */
START_TEST(test_kill_signals)
{
	const struct kill_case	*c = &kill_cases[_i];
	struct job		*job;

	run_ok("sleep 100");
	job = rec.selected;
	run_for(100);
	rec_clear();
	run_ok(c->line);
	ck_assert_int_eq(rec.nmessages, 1);
	ck_assert_str_eq(rec.messages[0], c->message);
	wait_done(job);
	ck_assert(WIFSIGNALED(job_exit_status(job)));
	ck_assert_int_eq(WTERMSIG(job_exit_status(job)), c->sig);
	ck_assert_int_eq(job_state(job),
	    c->sig == SIGUSR1 ? JOB_FAILED : JOB_CANCELED);
}
END_TEST

/* !kill takes several ids and reports the bad ones. */
START_TEST(test_kill_several)
{
	run_ok("sleep 100");
	run_ok("sleep 100");
	run_for(100);
	rec_clear();
	ck_assert_int_eq(cmd_run_line(&rec.ctx, "!kill 1 999 2"), -1);
	ck_assert_int_eq(rec.nerrors, 1);
	ck_assert_str_eq(rec.errors[0], "no such job: 999");
	wait_done(jobtable_get(rec.jt, 0));
	wait_done(jobtable_get(rec.jt, 1));
	ck_assert_int_eq(job_state(jobtable_get(rec.jt, 0)), JOB_CANCELED);
	ck_assert_int_eq(job_state(jobtable_get(rec.jt, 1)), JOB_CANCELED);

	/* Killing a job that has ended is an error. */
	wait_all_gone();
	rec_clear();
	run_error("!kill 1", "kill: job 1 is not running");
}
END_TEST

/* !kill-all stops every job; with none running it says so. */
START_TEST(test_kill_all)
{
	int	i, status;

	run_ok("sleep 100");
	/* The mark comes after the trap: SIGTERM is ignored from then on. */
	run_ok("trap '' TERM; echo armed; sleep 100");
	run_ok("true");
	wait_done(jobtable_get(rec.jt, 2));
	wait_text_has(jobtable_get(rec.jt, 1), "armed");
	rec_clear();
	run_ok("!kill-all");
	ck_assert_int_eq(rec.nmessages, 1);
	ck_assert_str_eq(rec.messages[0], "stopping 2 jobs");
	for (i = 0; i < 2; i++) {
		wait_done(jobtable_get(rec.jt, i));
		ck_assert_int_eq(job_state(jobtable_get(rec.jt, i)),
		    JOB_CANCELED);
	}
	ck_assert_int_eq(job_state(jobtable_get(rec.jt, 2)), JOB_COMPLETED);
	/* SIGTERM ended the first; only the grace's SIGKILL ended the second. */
	status = job_exit_status(jobtable_get(rec.jt, 0));
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM,
	    "job 1 ended with status %#x, not SIGTERM", status);
	status = job_exit_status(jobtable_get(rec.jt, 1));
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
	    "job 2 ended with status %#x, not SIGKILL", status);
	wait_all_gone();
	rec_clear();
	run_ok("!killall");
	ck_assert_str_eq(rec.messages[0], "no running jobs");
}
END_TEST

/* !rm removes finished jobs, never a running one; !clear every finished. */
START_TEST(test_rm_clear)
{
	run_ok("sleep 100");
	run_job("true");
	run_job("false");
	run_job("echo hi");
	ck_assert_int_eq(jobtable_count(rec.jt), 4);

	rec_clear();
	run_error("!rm 1", "[1] is running: !kill it first");
	rec_clear();
	run_error("!rm 999", "no such job: 999");
	rec_clear();
	ck_assert_int_eq(cmd_run_line(&rec.ctx, "!rm 2 999"), -1);
	ck_assert_str_eq(rec.errors[0], "no such job: 999");
	ck_assert_int_eq(jobtable_count(rec.jt), 3);
	ck_assert_ptr_null(jobtable_find(rec.jt, "2", NULL));
	rec_clear();
	run_error("!rm", "usage: !rm ID...");

	rec_clear();
	run_ok("!clear");
	ck_assert_str_eq(rec.messages[0], "removed 2 finished jobs");
	ck_assert_int_eq(jobtable_count(rec.jt), 1);
	ck_assert_int_eq(job_id(jobtable_get(rec.jt, 0)), 1);
	rec_clear();
	run_ok("!clear");
	ck_assert_str_eq(rec.messages[0], "no finished jobs");
}
END_TEST

/* !rename names a job by the job name rules; names stay unique. */
START_TEST(test_rename)
{
	struct job	*job;

	run_ok("sleep 100");
	run_ok("sleep 100");
	rec_clear();
	run_ok("!rename 1 web");
	ck_assert_str_eq(rec.messages[0], "[1] is named web");
	job = jobtable_find(rec.jt, "web", NULL);
	ck_assert_ptr_nonnull(job);
	ck_assert_int_eq(job_id(job), 1);
	ck_assert_str_eq(job_name(job), "web");
	rec_clear();
	run_ok("!ps");
	ck_assert_ptr_nonnull(strstr(rec.lines[1], "web"));

	rec_clear();
	run_error("!rename 2 web",
	    "rename: a job named web is running already (job 1)");
	rec_clear();
	run_error("!rename 999 api", "no such job: 999");
	rec_clear();
	run_error("!rename 2 'we b'", "rename: job name 'we b' may only "
	    "have letters, digits, '_', '.' and '-'");
	rec_clear();
	run_error("!rename 2 42", "rename: job name '42' must not be all "
	    "digits (ids are numbers)");
	rec_clear();
	run_error("!rename 2", "usage: !rename ID NAME");
	/* Renaming a job to its own name is fine. */
	rec_clear();
	run_ok("!rename web web");
}
END_TEST

/* !logs ID shows the job's lines from the first. */
START_TEST(test_logs)
{
	struct job	*job;
	char		 want[16];
	int		 i, bad = -1;

	job = run_job("seq 1 50");
	rec_clear();
	run_ok("!logs 1");
	ck_assert_int_eq(rec.nshows, 1);
	ck_assert_str_eq(rec.title, "Logs [1] seq 1 50");
	ck_assert_int_eq(rec.count, 50);
	for (i = 0; i < rec.count && bad == -1; i++) {
		snprintf(want, sizeof want, "%d", i + 1);
		if (strcmp(rec.lines[i], want) != 0)
			bad = i;
	}
	ck_assert_msg(bad == -1, "line %d is %s", bad + 1, rec.lines[bad]);
	ck_assert_uint_eq(job_output_bytes(job), 9 + 41 * 2 + 50 * 2);

	/* A job that printed nothing has no lines. */
	run_job("true");
	rec_clear();
	run_ok("!logs 2");
	ck_assert_int_eq(rec.nshows, 1);
	ck_assert_str_eq(rec.title, "Logs [2] true");
	ck_assert_int_eq(rec.count, 0);

	/* Longer than the scrollback: the store gives every line. */
	jobtable_set_scrollback(rec.ctx.jt, 100);
	run_job("seq 1 3000");
	rec_clear();
	run_ok("!logs 3");
	ck_assert_str_eq(rec.title, "Logs [3] seq 1 3000");
	ck_assert_int_eq(rec.count, 3000);
	ck_assert_str_eq(rec.lines[0], "1");
	ck_assert_str_eq(rec.lines[2999], "3000");
}
END_TEST

/* cd changes where later jobs start; cd - goes back; errors change nothing. */
START_TEST(test_cd)
{
	struct job	*job;

	run_error("cd /nope", "cd: /nope: No such file or directory");
	rec_clear();
	run_ok("cd /tmp");
	ck_assert_int_eq(rec.nmessages, 1);
	ck_assert_str_eq(rec.messages[0], "/tmp");
	ck_assert_int_eq(jobtable_count(rec.jt), 0);
	job = run_job("pwd");
	assert_text_line(job, "/tmp");
	ck_assert_str_eq(job_cwd(job), "/tmp");

	rec_clear();
	run_ok("!cd /usr/bin");
	job = run_job("pwd; echo $PWD $OLDPWD");
	assert_text_line(job, "/usr/bin");
	assert_text_line(job, "/usr/bin /tmp");
	rec_clear();
	run_ok("cd -");
	ck_assert_str_eq(session_cwd(rec.session), "/tmp");
	rec_clear();
	run_ok("cd");
	ck_assert_str_eq(session_cwd(rec.session), "/");
	rec_clear();
	run_error("cd /nope", "cd: /nope: No such file or directory");
	ck_assert_str_eq(session_cwd(rec.session), "/");
}
END_TEST

/* export and unset change the environment of later jobs. */
START_TEST(test_export_unset)
{
	struct job	*job;

	job = run_job("echo \"[$FOO]\"");
	assert_text_line(job, "[outer]");
	rec_clear();
	run_ok("export FOO=bar");
	ck_assert_int_eq(jobtable_count(rec.jt), 1);
	job = run_job("echo $FOO");
	assert_text_line(job, "bar");

	rec_clear();
	run_ok("export A=1 B='two words' C=\"$FOO-x\"");
	job = run_job("echo \"$A|$B|$C\"");
	assert_text_line(job, "1|two words|bar-x");

	rec_clear();
	run_ok("unset FOO");
	job = run_job("echo \"[$FOO]\"; env | grep -c '^FOO='");
	assert_text_line(job, "[]");
	assert_text_line(job, "0");

	rec_clear();
	run_ok("!export FOO=again");
	job = run_job("echo $FOO");
	assert_text_line(job, "again");
}
END_TEST

/*
 * Kill the jobs a failed test left behind: check ends a failed test with
 * _exit(), so its teardown does not run, and its jobs are reparented to
 * this process, a subreaper.
 */
static void
kill_leftovers(void)
{
	jobtable_kill_strays();
}

/*
 * !help lists the keys as bound (ctx->bind), never a default it does not
 * use, and every line fits the 78 columns of a text view.
 */
START_TEST(test_help_focus_key)
{
	struct bind	*b = bind_new();
	char		*cause = NULL;
	int		 i, found = 0, redraw = 0, zoom = 0;

	ck_assert_int_eq(bind_set(b, BIND_MAIN, "focus", "C-g", &cause), 0);
	ck_assert_int_eq(bind_set(b, BIND_MAIN, "zoom", "F5", &cause), 0);
	rec.ctx.bind = b;
	run_ok("!help");
	rec.ctx.bind = NULL;
	for (i = 0; i < rec.count; i++) {
		ck_assert_msg(strstr(rec.lines[i], "C-t") == NULL,
		    "help line mentions C-t: %s", rec.lines[i]);
		ck_assert_msg(strlen(rec.lines[i]) <= 78, "help line of %zu "
		    "bytes: %s", strlen(rec.lines[i]), rec.lines[i]);
		found += strstr(rec.lines[i], "C-g ") != NULL &&
		    strstr(rec.lines[i], " focus ") != NULL;
		zoom += strstr(rec.lines[i], "F5 ") != NULL &&
		    strstr(rec.lines[i], " zoom ") != NULL;
		redraw += strstr(rec.lines[i], "C-l ") != NULL &&
		    strstr(rec.lines[i], " redraw ") != NULL;
	}
	ck_assert_int_eq(found, 1);
	ck_assert_int_eq(zoom, 1);
	ck_assert_int_eq(redraw, 1);
	bind_free(b);
}
END_TEST

/* !help without bindings lists the defaults: C-t focuses. */
START_TEST(test_help_default_keys)
{
	int	i, found = 0;

	run_ok("!help");
	for (i = 0; i < rec.count; i++)
		found += strstr(rec.lines[i], "C-t ") != NULL &&
		    strstr(rec.lines[i], " focus ") != NULL;
	ck_assert_int_eq(found, 1);
}
END_TEST

/* !paste needs a client with a paste buffer: not the control socket. */
START_TEST(test_paste_no_client)
{
	run_error("!paste", "paste needs the terminal: no paste buffer here");
	run_error_again("!paste 1 2", "usage: !paste [ID]");
}
END_TEST

/* !ps marks its column names as a header; !logs has none. */
START_TEST(test_ps_header)
{
	run_job("true");
	rec_clear();
	run_ok("!ps");
	ck_assert_int_eq(rec.count, 2);
	ck_assert_int_eq(rec.header, 1);
	rec_clear();
	run_ok("!logs 1");
	ck_assert_int_eq(rec.header, 0);
}
END_TEST

/* A queued job that is killed never ran: canceled, and no exit code. */
START_TEST(test_kill_queued)
{
	struct ps_row	 rows[4];
	struct job	*queued;
	int		 n;

	jobtable_set_max_running(rec.jt, 1);
	run_ok("sleep 100");
	run_ok("sleep 100");
	queued = jobtable_get(rec.jt, 1);
	ck_assert_int_eq(job_state(queued), JOB_QUEUED);
	/* Only a signal that stops a job cancels one that waits. */
	run_error_again("!stop 2", "stop: job 2 is not running");
	run_error_again("!kill -USR1 2", "kill: job 2 is not running");
	ck_assert_int_eq(job_state(queued), JOB_QUEUED);
	rec_clear();
	run_ok("!kill 2");
	ck_assert_int_eq(job_state(queued), JOB_CANCELED);
	ck_assert_int_eq(job_end_status(queued), -1);
	n = ps(rows, 4);
	ck_assert_int_eq(n, 2);
	ck_assert_str_eq(rows[1].state, "canceled");
	ck_assert_str_eq(rows[1].exit, "-");
}
END_TEST

/*
 * !stop pauses a job's group and !cont resumes it; a SIGSTOP from outside
 * shows too, and a stopped job can still be killed.
 */
START_TEST(test_stop_cont)
{
	struct ps_row	 rows[4];
	struct job	*job;

	run_ok("sleep 100");
	job = rec.selected;
	run_for(100);
	rec_clear();
	run_ok("!stop 1");
	ck_assert_str_eq(rec.messages[0], "paused 1 job");
	wait_state(job, JOB_STOPPED);
	ck_assert_int_eq(ps(rows, 4), 1);
	ck_assert_str_eq(rows[0].state, "stopped");
	ck_assert_str_eq(rows[0].exit, "-");
	rec_clear();
	run_ok("!cont 1");
	ck_assert_str_eq(rec.messages[0], "resumed 1 job");
	wait_state(job, JOB_RUNNING);

	/* Stopped by someone else: ^Z, or kill -STOP. */
	ck_assert_int_eq(kill(-job_pid(job), SIGSTOP), 0);
	wait_state(job, JOB_STOPPED);
	ck_assert(job_is_running(job));
	rec_clear();
	run_ok("!list --status stopped");
	ck_assert_int_eq(rec.count, 2);

	/* SIGTERM reaches a stopped group: it is continued too. */
	rec_clear();
	run_ok("!kill 1");
	wait_done(job);
	ck_assert_int_eq(job_state(job), JOB_CANCELED);
	rec_clear();
	run_error("!stop 1", "stop: job 1 is not running");
}
END_TEST

/* Return whether s holds a byte a terminal acts on. */
static int
has_control(const char *s)
{
	for (; *s != '\0'; s++) {
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 1;
		if ((unsigned char)s[0] == 0xc2 && (unsigned char)s[1] >= 0x80 &&
		    (unsigned char)s[1] < 0xa0)
			return 1;
	}
	return 0;
}

/*
 * A name or command with terminal escapes in it comes back escaped in
 * every text reply (!ps, !status, messages, errors), never raw.
 */
START_TEST(test_text_escaped)
{
	int	i;

	/* A name with escapes is refused, and the refusal is escaped. */
	run_error_again("!spawn --name \"\033]52;c;SGVsbG8=\a\" -- sleep 100",
	    "spawn: job name '\\e]52;c;SGVsbG8=\\a' may only have letters, "
	    "digits, '_', '.' and '-'");
	rec_clear();
	run_ok("!spawn -- sleep 100 # \033]52;c;SGVsbG8=\a");
	run_ok("!spawn -- sleep 100 \"#\033]0;t\a\"");
	for (i = 0; i < rec.nmessages; i++)
		ck_assert_msg(!has_control(rec.messages[i]), "message %s",
		    rec.messages[i]);
	rec_clear();
	run_ok("!ps");
	for (i = 0; i < rec.count; i++)
		ck_assert_msg(!has_control(rec.lines[i]), "!ps line %d", i);
	ck_assert_ptr_nonnull(strstr(rec.lines[1], "\\e]52;c;SGVsbG8=\\a"));
	ck_assert_ptr_nonnull(strstr(rec.lines[2], "#\\e]0;t\\a"));
	rec_clear();
	run_ok("!status 1");
	for (i = 0; i < rec.count; i++)
		ck_assert_msg(!has_control(rec.lines[i]), "!status line %d", i);
	ck_assert_msg(!has_control(rec.title), "title");
	rec_clear();
	run_error("!status \"\033[2J\xc2\x9b\"", "no such job: \\e[2J\\u009b");
}
END_TEST

/* Wait until job's text has the line want. */
static void
wait_text_line(struct job *job, const char *want)
{
	char	**lines;
	int64_t	  end = loop_now_ms() + 5000;
	int	  n, i, found = 0;

	while (!found) {
		ck_assert_msg(loop_now_ms() < end, "no line %s", want);
		loop_run_once(rec.loop, 20);
		lines = job_text_lines(job, &n);
		for (i = 0; i < n && !found; i++)
			found = strcmp(lines[i], want) == 0;
		job_text_free(lines, n);
	}
}

/*
 * A line of session commands joined by && || ; runs as a shell would; a
 * job after them starts in the state they left; what cannot be done as a
 * shell does it is refused whole, before any part runs.
 */
START_TEST(test_session_lists)
{
	struct job	*job;

	run_ok("cd /tmp && export API_KEY=secret");
	ck_assert_str_eq(session_cwd(rec.session), "/tmp");
	ck_assert_str_eq(session_getenv(rec.session, "API_KEY"), "secret");

	/* A job after them: in their state, with its own syntax intact. */
	rec_clear();
	run_ok("export A=1; echo \"[$A|$PWD]\"; echo x");
	ck_assert_str_eq(session_getenv(rec.session, "A"), "1");
	ck_assert_ptr_null(session_getenv(rec.session, "echo"));
	ck_assert_ptr_null(session_getenv(rec.session, "x"));
	job = rec.selected;
	ck_assert_ptr_nonnull(job);
	wait_done(job);
	assert_text_line(job, "[1|/tmp]");
	assert_text_line(job, "x");

	/* && stops at a failure, || goes on after one. */
	rec_clear();
	ck_assert_int_eq(cmd_run_line(&rec.ctx, "cd /nope && export B=1"), -1);
	ck_assert_str_eq(rec.errors[0], "cd: /nope: No such file or directory");
	ck_assert_ptr_null(session_getenv(rec.session, "B"));
	rec_clear();
	ck_assert_int_eq(cmd_run_line(&rec.ctx, "cd /nope && export B=1 ; "
	    "export C=2"), 0);
	ck_assert_str_eq(rec.errors[0], "cd: /nope: No such file or directory");
	ck_assert_str_eq(session_getenv(rec.session, "C"), "2");
	ck_assert_ptr_null(session_getenv(rec.session, "B"));
	rec_clear();
	ck_assert_int_eq(cmd_run_line(&rec.ctx, "cd /nope || cd /"), 0);
	ck_assert_str_eq(session_cwd(rec.session), "/");

	/* Refused whole: nothing of the line runs. */
	run_error_again("cd /tmp | cat", "cd: `|' cannot be used with a "
	    "session command (cd, export, unset); run it as a job, or "
	    "without it");
	run_error_again("export D=$(date)", "export: `$(' cannot be used with "
	    "a session command (cd, export, unset); run it as a job, or "
	    "without it");
	run_error_again("cd /tmp > out", "cd: `>' cannot be used with a "
	    "session command (cd, export, unset); run it as a job, or "
	    "without it");
	run_error_again("cd /tmp && true; cd /usr", "cd: a session command "
	    "after a job would change only the job's shell; give it a line "
	    "of its own");
	run_error_again("cd /tmp &&", "syntax error: the line ends after `&&'");
	run_error_again("export E=1 ;; cd /", "syntax error near `;'");
	ck_assert_str_eq(session_cwd(rec.session), "/");
	ck_assert_ptr_null(session_getenv(rec.session, "D"));
	ck_assert_ptr_null(session_getenv(rec.session, "E"));
	ck_assert_int_eq(jobtable_count(rec.jt), 1);

	/* An operator ends a word, as in a shell: no blanks needed. */
	rec_clear();
	run_ok("cd;export G=1&&cd /tmp");
	ck_assert_str_eq(session_getenv(rec.session, "G"), "1");
	ck_assert_str_eq(session_cwd(rec.session), "/tmp");
	run_ok("cd /");

	/* Quotes and comments are the shell's. */
	rec_clear();
	run_ok("export F='a && b;c' # && cd /usr");
	ck_assert_str_eq(session_getenv(rec.session, "F"), "a && b;c");
	ck_assert_str_eq(session_cwd(rec.session), "/");
}
END_TEST

/*
 * !send takes the rest of the line as typed, so its escapes arrive; !spawn
 * runs what follows -- as typed; from a script (no typed line) its words
 * keep their meaning.
 */
START_TEST(test_send_spawn_as_typed)
{
	char		*argv[] = { "spawn", "--name", "s", "--", "sh", "-c",
			    "echo a; echo 'b c'", NULL };
	struct job	*job;

	run_ok("!spawn --name w -- while read l; do echo \"[$l]\"; done");
	job = rec.selected;
	ck_assert_str_eq(job_command(job), "while read l; do echo \"[$l]\"; "
	    "done");
	rec_clear();
	run_ok("!send w hello\\nwor  ld\\n");
	ck_assert_str_eq(rec.messages[0], "sent 14 bytes to [1]");
	wait_text_line(job, "[hello]");
	wait_text_line(job, "[wor  ld]");

	rec_clear();
	ck_assert_int_eq(cmd_execute(&rec.ctx, 7, argv), 0);
	job = rec.selected;
	ck_assert_str_eq(job_command(job),
	    "sh -c 'echo a; echo '\\''b c'\\'''");
	wait_done(job);
	assert_text_line(job, "a");
	assert_text_line(job, "b c");
}
END_TEST


/* Build the cmd suite. */
/*
 * Write a run as an earlier deck would: a store of its own in the same
 * directory, a run with two lines, ended (state given) or left running
 * when its deck dies (in a child that exits without a word, as a
 * SIGKILLed deck does); its run id goes to run.
 */
static void
earlier_deck(const char *state, char run[STORE_ID_LEN + 1])
{
	struct store_limits	 lim;
	struct store_meta	 m;
	struct store		*old;
	struct store_run	*w;
	char			*cause = NULL;
	int			 fds[2], status;
	pid_t			 pid;

	ck_assert_int_eq(pipe(fds), 0);
	if ((pid = fork()) == 0) {
		close(fds[0]);
		store_default_limits(&lim);
		if ((old = store_open(rec.dir, &lim, &cause)) == NULL)
			_exit(2);
		memset(&m, 0, sizeof m);
		m.job = 7;
		m.start = 1;
		m.name = "old";
		m.command = "echo one; echo two";
		m.shell = "/bin/sh";
		m.cwd = rec.dir;
		m.envp = (char **)test_env;
		m.pty = 1;
		m.pid = 424242;
		m.started = 1700000000000LL;
		m.state = "running";
		if ((w = store_run_new(old, &m, &cause)) == NULL)
			_exit(3);
		if (store_run_write(w, STORE_TTY, "one\r\ntwo\r\n", 10,
		    1700000000100LL) != 0)
			_exit(4);
		if (write(fds[1], m.run, STORE_ID_LEN) != STORE_ID_LEN)
			_exit(5);
		if (strcmp(state, "running") != 0) {
			m.state = (char *)state;
			m.ended = 1700000001000LL;
			m.status = 0;
			m.has_status = 1;
			if (store_run_update(w, &m) != 0)
				_exit(6);
			store_run_close(w);
			store_free(old);
		}
		_exit(0);	/* a running run is left as a dead deck leaves it */
	}
	close(fds[1]);
	ck_assert_int_eq(read(fds[0], run, STORE_ID_LEN), STORE_ID_LEN);
	run[STORE_ID_LEN] = '\0';
	close(fds[0]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "earlier deck: status %d", status);
}

/*
 * History: a run of an earlier deck is listed by !history and list --all,
 * its log opens by run id, !rerun starts it again where it ran; a run
 * whose deck died while it ran is found lost by the sweep.
 */
START_TEST(test_history_rerun)
{
	struct store_sweep	 *sw;
	struct store_meta	  m;
	struct job		 *job;
	char			  done[STORE_ID_LEN + 1], lost[STORE_ID_LEN + 1];
	char			**runs, *cause = NULL, line[128];
	int			  i, n, found = 0;

	earlier_deck("completed", done);
	earlier_deck("running", lost);
	ck_assert(store_id_valid(done));
	ck_assert_int_eq(store_deck_alive(rec.dir, store_deck(rec.store)), 1);

	/* Our own run is not history; the earlier deck's are. */
	run_job("echo mine");
	rec_clear();
	run_ok("!history");
	ck_assert_int_eq(rec.nshows, 1);
	ck_assert_int_eq(rec.count, 3);
	for (i = 1; i < rec.count; i++) {
		ck_assert_msg(strstr(rec.lines[i], "mine") == NULL, "%s",
		    rec.lines[i]);
		if (strstr(rec.lines[i], done) != NULL) {
			ck_assert_ptr_nonnull(strstr(rec.lines[i], "completed"));
			ck_assert_ptr_nonnull(strstr(rec.lines[i],
			    "old: echo one; echo two"));
			found++;
		}
	}
	ck_assert_int_eq(found, 1);

	/* Its log, by run id, as the program's lines. */
	rec_clear();
	snprintf(line, sizeof line, "!logs %s", done);
	run_ok(line);
	ck_assert_int_eq(rec.count, 2);
	ck_assert_str_eq(rec.lines[0], "one");
	ck_assert_str_eq(rec.lines[1], "two");
	rec_clear();
	ck_assert_int_eq(cmd_run_line(&rec.ctx,
	    "!logs 20991231T000000-deadbeef"), -1);
	ck_assert_int_eq(rec.nerrors, 1);
	ck_assert_msg(strncmp(rec.errors[0], "logs: no such run: "
	    "20991231T000000-deadbeef", 43) == 0, "%s", rec.errors[0]);

	/* The sweep finds the run whose deck died while it ran. */
	sw = store_sweep_new(rec.store, 1700000009000LL);
	ck_assert_ptr_nonnull(sw);
	while (store_sweep_step(sw, 8) > 0)
		;
	n = store_sweep_lost(sw, &runs);
	ck_assert_int_eq(n, 1);
	ck_assert_str_eq(runs[0], lost);
	free(runs[0]);
	free(runs);
	store_sweep_free(sw);
	ck_assert_int_eq(store_meta_read(rec.dir, lost, &m, &cause), 0);
	ck_assert_str_eq(m.state, "lost");
	store_meta_clear(&m);
	rec_clear();
	run_ok("!history");
	for (i = 1, found = 0; i < rec.count; i++)
		found += strstr(rec.lines[i], lost) != NULL &&
		    strstr(rec.lines[i], "lost") != NULL;
	ck_assert_int_eq(found, 1);

	/* Run again: a new job with its command, in its cwd. */
	rec_clear();
	snprintf(line, sizeof line, "!rerun %s", done);
	run_ok(line);
	ck_assert_int_eq(rec.nselects, 1);
	job = rec.selected;
	ck_assert_str_eq(job_command(job), "echo one; echo two");
	ck_assert_str_eq(job_cwd(job), rec.dir);
	ck_assert_str_eq(job_name(job), "old");
	wait_done(job);
	assert_text_line(job, "two");
	run_error_again("!rerun nosuchjob", "no such job: nosuchjob");

	/* list --all: the jobs, then the history. */
	rec_clear();
	run_ok("!list --all");
	for (i = 0, found = 0; i < rec.count; i++)
		found += strstr(rec.lines[i], done) != NULL;
	ck_assert_int_eq(found, 1);
}
END_TEST

/* Parse a configuration and make its stack on the test's jobtable. */
static void
stack_load(const char *text)
{
	char	*cause = NULL;

	ck_assert_msg(config_parse("test.toml", text, strlen(text),
	    &rec.config, &cause) == 0, "config: %s", cause);
	rec.stack = stack_new(rec.loop, rec.jt, rec.config, rec.session, NULL);
	rec.ctx.stack = rec.stack;
}

/* Return the job called name, which must be in the table. */
static struct job *
job_named(const char *name)
{
	struct job	*job;
	char		*cause = NULL;

	job = jobtable_find(rec.jt, name, &cause);
	ck_assert_msg(job != NULL, "%s: %s", name, cause);
	return job;
}

/* Wait until a line of job's text holds want. */
static void
wait_text_has(struct job *job, const char *want)
{
	char	**lines;
	int64_t	  end = loop_now_ms() + 5000;
	int	  n, i, found = 0;

	for (;;) {
		lines = job_text_lines(job, &n);
		for (i = 0; i < n && !found; i++)
			found = strstr(lines[i], want) != NULL;
		job_text_free(lines, n);
		if (found)
			return;
		ck_assert_msg(loop_now_ms() < end, "job %d: no \"%s\"",
		    job_id(job), want);
		loop_run_once(rec.loop, 20);
	}
}

/* Run a line with JSON results; assert the document holds each of want. */
static void
json_has(const char *line, const char *const *want)
{
	rec_clear();
	rec.ctx.json = 1;
	run_ok(line);
	rec.ctx.json = 0;
	ck_assert_msg(rec.json != NULL, "%s: no JSON", line);
	for (; *want != NULL; want++)
		ck_assert_msg(strstr(rec.json, *want) != NULL,
		    "%s: no %s in %s", line, *want, rec.json);
}

/*
 * Groups: !start-group starts a group's jobs (its [groups.NAME] limit
 * queues one), !list --group shows them, the JSON job says its group and
 * priority, !kill-group stops them and leaves the others.
 */
START_TEST(test_stack_groups)
{
	static const char *const json_b[] = { "\"group\":\"backend\"",
	    "\"priority\":5", "\"state\":\"queued\"", NULL };
	static const char *const json_c[] = { "\"group\":null",
	    "\"priority\":0", "\"waiting_for\":null", "\"ready\":null",
	    "\"note\":null", NULL };
	struct job	*a, *b, *c;

	stack_load("[groups.backend]\nmax_running = 1\n"
	    "[[job]]\nname = \"a\"\ncommand = \"sleep 100\"\n"
	    "group = \"backend\"\nautostart = false\n"
	    "[[job]]\nname = \"b\"\ncommand = \"sleep 100\"\n"
	    "group = \"backend\"\nautostart = false\npriority = 5\n"
	    "[[job]]\nname = \"c\"\ncommand = \"sleep 100\"\n"
	    "autostart = false\n");
	run_error_again("!start-group nope", "no jobs in group: nope");
	run_error_again("!kill-group nope", "no jobs in group: nope");
	ck_assert_int_eq(jobtable_count(rec.jt), 0);

	rec_clear();
	run_ok("!start-group backend");
	ck_assert_str_eq(rec.messages[0], "starting 2 jobs of backend");
	a = job_named("a");
	b = job_named("b");
	wait_state(a, JOB_RUNNING);
	ck_assert_int_eq(job_state(b), JOB_QUEUED);
	rec_clear();
	run_ok("!run c");
	c = job_named("c");
	wait_state(c, JOB_RUNNING);

	rec_clear();
	run_ok("!list --group backend");
	ck_assert_int_eq(rec.count, 3);
	rec_clear();
	run_ok("!list --group backend --status queued");
	ck_assert_int_eq(rec.count, 2);
	ck_assert_ptr_nonnull(strstr(rec.lines[1], "b: sleep 100"));
	rec_clear();
	run_ok("!list --group nope");
	ck_assert_int_eq(rec.count, 1);
	json_has("!status b", json_b);
	json_has("!status c", json_c);

	rec_clear();
	run_ok("!start-group backend");
	ck_assert_str_eq(rec.messages[0], "every job of backend runs already");
	rec_clear();
	run_ok("!kill-group backend");
	ck_assert_str_eq(rec.messages[0], "stopping 2 jobs of backend");
	wait_done(a);
	ck_assert_int_eq(job_state(a), JOB_CANCELED);
	ck_assert_int_eq(job_state(b), JOB_CANCELED);
	run_for(100);
	ck_assert_int_eq(job_state(c), JOB_RUNNING);
	rec_clear();
	run_ok("!kill-group backend");
	ck_assert_str_eq(rec.messages[0], "no running jobs in backend");
}
END_TEST

/*
 * Dependencies: !run starts what a job depends on first; the dependants
 * wait (state, !ps, !list --status waiting, JSON) until the condition
 * holds; !restart goes through the same gate, and a migration that
 * fails fails the job waiting for its success, with the reason.
 */
START_TEST(test_stack_depends)
{
	static const char *const json_api[] = { "\"state\":\"waiting\"",
	    "\"waiting_for\":\"migrate (completed_successfully)\"", NULL };
	struct ps_row	 rows[4];
	struct job	*migrate, *api, *web;
	char		 last[256];

	stack_load("[[job]]\nname = \"migrate\"\n"
	    "command = \"head -n 1 | grep -qx ok\"\nautostart = false\n"
	    "[[job]]\nname = \"api\"\ncommand = \"sleep 100\"\n"
	    "autostart = false\n"
	    "depends_on = { migrate = \"completed_successfully\" }\n"
	    "[[job]]\nname = \"web\"\ncommand = \"sleep 100\"\n"
	    "autostart = false\ndepends_on = { api = \"started\" }\n");
	rec_clear();
	run_ok("!run web");
	ck_assert_int_eq(jobtable_count(rec.jt), 3);
	migrate = job_named("migrate");
	api = job_named("api");
	web = job_named("web");
	ck_assert_ptr_eq(rec.selected, web);
	wait_state(migrate, JOB_RUNNING);
	ck_assert_int_eq(job_state(api), JOB_WAITING);
	ck_assert_str_eq(job_wait_reason(api),
	    "migrate (completed_successfully)");
	ck_assert_int_eq(job_state(web), JOB_WAITING);
	ck_assert_str_eq(job_wait_reason(web), "api (started)");
	ck_assert_int_eq(ps(rows, 4), 3);
	ck_assert_str_eq(rows[1].state, "waiting");
	ck_assert_str_eq(rows[1].command, "api: sleep 100  (waiting for "
	    "migrate (completed_successfully))");
	rec_clear();
	run_ok("!list --status waiting");
	ck_assert_int_eq(rec.count, 3);
	json_has("!status api", json_api);

	run_ok("!send migrate ok\\n");
	wait_state(api, JOB_RUNNING);
	wait_state(web, JOB_RUNNING);
	ck_assert_int_eq(job_state(migrate), JOB_COMPLETED);

	/* !restart asks the gate again: api waits for the new migration. */
	rec_clear();
	run_ok("!kill api");
	wait_done(api);
	run_ok("!restart migrate");
	wait_state(migrate, JOB_RUNNING);
	run_ok("!restart api");
	wait_state(api, JOB_WAITING);
	ck_assert_str_eq(job_wait_reason(api),
	    "migrate (completed_successfully)");
	run_ok("!send migrate no\\n");
	wait_state(api, JOB_BLOCKED);
	job_last_line(api, last, sizeof last);
	ck_assert_str_eq(last, "jobdeck: blocked: migrate failed (exited 1)");
	ck_assert_int_eq(job_state(web), JOB_RUNNING);
}
END_TEST

/*
 * A dependency that fails fails its dependants in turn, each with its
 * reason; nothing waits for ever.
 */
START_TEST(test_stack_dep_fails)
{
	struct job	*api, *web;

	stack_load("[[job]]\nname = \"migrate\"\ncommand = \"exit 2\"\n"
	    "autostart = false\n"
	    "[[job]]\nname = \"api\"\ncommand = \"sleep 100\"\n"
	    "autostart = false\n"
	    "depends_on = { migrate = \"completed_successfully\" }\n"
	    "[[job]]\nname = \"web\"\ncommand = \"sleep 100\"\n"
	    "autostart = false\ndepends_on = { api = \"ready\" }\n");
	rec_clear();
	run_ok("!run web");
	api = job_named("api");
	web = job_named("web");
	wait_state(web, JOB_BLOCKED);
	ck_assert_int_eq(job_state(api), JOB_BLOCKED);
	ck_assert_int_eq(job_state(job_named("migrate")), JOB_FAILED);
	wait_text_has(api, "blocked: migrate failed (exited 2)");
	wait_text_has(web, "blocked: api is blocked");
}
END_TEST

/*
 * !kill-group stops a group's jobs in the reverse order of their
 * dependencies: api (which depends on db) first, db once api has ended.
 */
START_TEST(test_stack_kill_group_order)
{
	char	 toml[2048], path[128], buf[256];
	FILE	*f;
	size_t	 n;

	snprintf(path, sizeof path, "%s/stops", rec.dir);
	snprintf(toml, sizeof toml,
	    "[[job]]\nname = \"db\"\ngroup = \"be\"\nautostart = false\n"
	    "command = '''trap 'echo db >> %s; exit 0' TERM; "
	    "echo trapped; while :; do sleep 0.05; done'''\n"
	    "[[job]]\nname = \"api\"\ngroup = \"be\"\nautostart = false\n"
	    "command = '''trap 'sleep 0.3; echo api >> %s; exit 0' TERM; "
	    "echo trapped; while :; do sleep 0.05; done'''\n"
	    "depends_on = { db = \"started\" }\n", path, path);
	stack_load(toml);
	rec_clear();
	run_ok("!start-group be");
	wait_state(job_named("db"), JOB_RUNNING);
	wait_state(job_named("api"), JOB_RUNNING);
	/* Both shells have set their traps. */
	wait_text_has(job_named("db"), "trapped");
	wait_text_has(job_named("api"), "trapped");
	rec_clear();
	run_ok("!kill-group be");
	ck_assert_str_eq(rec.messages[0], "stopping 2 jobs of be");
	wait_state(job_named("db"), JOB_CANCELED);
	ck_assert_int_eq(job_state(job_named("api")), JOB_CANCELED);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	ck_assert_str_eq(buf, "api\ndb\n");
}
END_TEST

/*
 * replicas = 2 starts api.1 and api.2; a job depending on api waits for
 * both, and the stack knows each replica's configured job.
 */
START_TEST(test_stack_replicas)
{
	struct job	*a1, *a2, *web;

	stack_load("[[job]]\nname = \"api\"\nreplicas = 2\nautostart = false\n"
	    "command = \"head -n 1 >/dev/null\"\n"
	    "[[job]]\nname = \"web\"\ncommand = \"sleep 100\"\n"
	    "autostart = false\ndepends_on = { api = \"completed\" }\n");
	rec_clear();
	run_ok("!run web");
	a1 = job_named("api.1");
	a2 = job_named("api.2");
	web = job_named("web");
	ck_assert_ptr_eq(stack_job_config(rec.stack, a1),
	    config_find_job(rec.config, "api"));
	ck_assert_ptr_eq(stack_job_config(rec.stack, a2),
	    config_find_job(rec.config, "api"));
	ck_assert_ptr_eq(stack_job_config(rec.stack, web),
	    config_find_job(rec.config, "web"));
	wait_state(a1, JOB_RUNNING);
	wait_state(a2, JOB_RUNNING);
	ck_assert_int_eq(job_state(web), JOB_WAITING);
	run_ok("!send api.1 x\\n");
	wait_state(a1, JOB_COMPLETED);
	run_for(200);
	ck_assert_int_eq(job_state(web), JOB_WAITING);
	run_ok("!send api.2 x\\n");
	wait_state(web, JOB_RUNNING);
}
END_TEST

/*
 * A dependency whose restart is pending holds its dependant; once the
 * user kills it (calling the restart off) the dependant fails at once
 * with the reason, instead of waiting for a restart that will not come.
 */
START_TEST(test_stack_pending_restart_killed)
{
	struct job	*migrate, *api;
	char		 last[256];

	stack_load("[[job]]\nname = \"migrate\"\ncommand = \"exit 2\"\n"
	    "autostart = false\nrestart = \"on-failure\"\n"
	    "restart_delay = 30\n"
	    "[[job]]\nname = \"api\"\ncommand = \"sleep 100\"\n"
	    "autostart = false\n"
	    "depends_on = { migrate = \"completed_successfully\" }\n");
	rec_clear();
	run_ok("!run api");
	migrate = job_named("migrate");
	api = job_named("api");
	wait_state(migrate, JOB_FAILED);
	run_for(200);
	ck_assert_int_eq(job_state(api), JOB_WAITING);
	ck_assert_int_eq(jobtable_is_live(rec.jt, migrate), 1);
	run_ok("!kill migrate");
	ck_assert_int_eq(jobtable_is_live(rec.jt, migrate), 0);
	wait_state(api, JOB_BLOCKED);
	job_last_line(api, last, sizeof last);
	ck_assert_str_eq(last, "jobdeck: blocked: migrate failed (exited 2)");
}
END_TEST

/* start_delay holds a job waiting ("start delay 0.3s"), then it runs. */
START_TEST(test_stack_start_delay)
{
	struct job	*job;
	int64_t		 t0;

	stack_load("[[job]]\nname = \"slow\"\ncommand = \"echo go\"\n"
	    "start_delay = 0.3\nautostart = false\n");
	t0 = loop_now_ms();
	rec_clear();
	run_ok("!run slow");
	job = job_named("slow");
	ck_assert_int_eq(job_state(job), JOB_WAITING);
	ck_assert_str_eq(job_wait_reason(job), "start delay 0.3s");
	wait_state(job, JOB_COMPLETED);
	ck_assert_int_ge(loop_now_ms() - t0, 300);
	assert_text_line(job, "go");
}
END_TEST

/*
 * Make the context's browser: cdp_url (NULL: off), a start bounded at
 * timeout_ms.
 */
static void
browser_make(const char *cdp_url, int64_t timeout_ms)
{
	struct browser_spec	 spec;
	char			*cause = NULL;

	memset(&spec, 0, sizeof spec);
	spec.cdp_url = cdp_url;
	spec.timeout_ms = timeout_ms;
	rec.browser = browser_new(rec.loop, rec.jt, NULL, NULL, &spec, &cause);
	ck_assert_msg(rec.browser != NULL, "browser_new: %s", cause);
	rec.ctx.browser = rec.browser;
}

/*
 * A browser that is off: !browser and !browser status say so as text (the
 * state's word and what the panel shows, what it is, its mode) and as one
 * JSON object with nulls where nothing is known.
 */
START_TEST(test_browser_idle)
{
	static const char *const json[] = { "{\"mode\":\"off\",\"kind\":null,"
	    "\"state\":\"idle\",\"label\":\"Chrome Headless\",\"url\":null,"
	    "\"product\":null,\"pid\":null,\"container\":null,"
	    "\"profile\":null,\"error\":null}", NULL };
	static const char *const lines[] = { "!browser", "!browser status",
	    "!br status" };
	size_t	k;

	browser_make(NULL, 5000);
	for (k = 0; k < sizeof lines / sizeof lines[0]; k++) {
		rec_clear();
		run_ok(lines[k]);
		ck_assert_int_eq(rec.nshows, 1);
		ck_assert_str_eq(rec.title, "Browser");
		ck_assert_int_eq(rec.count, 3);
		ck_assert_str_eq(rec.lines[0], "state      idle (Off)");
		ck_assert_str_eq(rec.lines[1], "browser    Chrome Headless");
		ck_assert_str_eq(rec.lines[2], "mode       off");
		json_has(lines[k], json);
	}
	ck_assert_str_eq(cmd_browser_state_text(rec.browser), "Off");
	ck_assert_ptr_null(cmd_browser_detail(rec.browser));
}
END_TEST

/* Turn the loop until the browser is in state (at most 10 s). */
static void
browser_wait(enum browser_state state)
{
	int64_t	end = loop_now_ms() + 10000;

	while (browser_state(rec.browser) != state) {
		ck_assert_msg(loop_now_ms() < end, "browser is %s, not %s",
		    browser_state_name(browser_state(rec.browser)),
		    browser_state_name(state));
		loop_run_once(rec.loop, 20);
	}
}

/*
 * A ws:// URL nothing answers at (a real connect, refused): !browser
 * start says it starts, and once it has failed the status gives the
 * reason as text, as the panel's detail and as JSON; a start while one is
 * under way is refused with the browser's reason.
 */
START_TEST(test_browser_refused)
{
	static const char *const json[] = { "\"mode\":\"connect\"",
	    "\"kind\":\"remote\"", "\"state\":\"failed\"", "\"url\":null",
	    "\"pid\":null", "Connection refused\"}", NULL };
	char	url[64], want[128], *detail;
	int	port = testnet_closed_port();

	snprintf(url, sizeof url, "ws://127.0.0.1:%d", port);
	browser_make(url, 5000);
	run_ok("!browser start");
	ck_assert_int_eq(rec.nmessages, 1);
	snprintf(want, sizeof want, "browser: starting Chrome at 127.0.0.1:%d",
	    port);
	ck_assert_str_eq(rec.messages[0], want);
	browser_wait(BROWSER_FAILED);

	rec_clear();
	run_ok("!browser");
	ck_assert_int_eq(rec.nshows, 1);
	ck_assert_str_eq(rec.lines[0], "state      failed (Failed)");
	snprintf(want, sizeof want, "browser    Chrome at 127.0.0.1:%d", port);
	ck_assert_str_eq(rec.lines[1], want);
	ck_assert_str_eq(rec.lines[2], "mode       connect, remote");
	snprintf(want, sizeof want, "why        http://127.0.0.1:%d/json/"
	    "version: connect: Connection refused", port);
	ck_assert_str_eq(rec.lines[rec.count - 1], want);
	json_has("!browser status", json);
	ck_assert_str_eq(cmd_browser_state_text(rec.browser), "Failed");
	detail = cmd_browser_detail(rec.browser);
	snprintf(want, sizeof want, "Failed: http://127.0.0.1:%d/json/"
	    "version: connect: Connection refused", port);
	ck_assert_str_eq(detail, want);
	free(detail);

	/* Again: it starts over; a second start meanwhile is refused. */
	rec_clear();
	run_ok("!browser restart");
	ck_assert_int_ne(browser_state(rec.browser), BROWSER_FAILED);
	run_error_again("!browser start", "the browser is already starting");
	browser_wait(BROWSER_FAILED);
}
END_TEST

/*
 * spawn --agent NAME marks the job: JSON's "agent" (null without), the
 * !ps row; an empty name, one over 64 bytes and one with a control byte
 * (C0, DEL, C1) or invalid UTF-8 are refused with a usage error.
 */
START_TEST(test_spawn_agent)
{
	static const char *const	json_agent[] = {
		"\"agent\":\"claude code é\"", NULL
	};
	static const char *const	json_none[] = { "\"agent\":null", NULL };
	static const struct {
		const char	*name;
		const char	*error;
	} bad[] = {
		{ "", "spawn: --agent: an agent's name cannot be empty" },
		{ "a\001b", "spawn: --agent: an agent's name must be printable "
		    "text: a\\x01b" },
		{ "a\033[2Jb", "spawn: --agent: an agent's name must be "
		    "printable text: a\\e[2Jb" },
		{ "del\177", "spawn: --agent: an agent's name must be "
		    "printable text: del\\x7f" },
		{ "c1\302\233x", "spawn: --agent: an agent's name must be "
		    "printable text: c1\\u009bx" },
		{ "bad\377", "spawn: --agent: an agent's name must be "
		    "printable text: bad\\xff" },
		{ "0123456789012345678901234567890123456789012345678901234567"
		    "8901234", "spawn: --agent: an agent's name is at most 64 "
		    "bytes (65 given)" },
	};
	char		*argv[] = { "spawn", "--agent", NULL, "--", "true", NULL };
	char		 name64[65];
	struct ps_row	 rows[4];
	size_t		 k;
	int		 n;

	json_has("!spawn --agent 'claude code é' -- sleep 100", json_agent);
	json_has("!status 1", json_agent);
	json_has("!spawn -- sleep 100", json_none);
	rec_clear();
	run_ok("!ps");
	ck_assert_int_eq(rec.count, 3);
	ck_assert_msg(strstr(rec.lines[1], "sleep 100  (agent claude code "
	    "é)") != NULL, "ps row: %s", rec.lines[1]);
	ck_assert_msg(strstr(rec.lines[2], "agent") == NULL, "ps row: %s",
	    rec.lines[2]);
	n = ps(rows, 4);
	ck_assert_int_eq(n, 2);

	memset(name64, 'x', 64);
	name64[64] = '\0';
	argv[2] = name64;
	rec_clear();
	ck_assert_int_eq(cmd_execute(&rec.ctx, 5, argv), 0);
	ck_assert_str_eq(job_agent(rec.selected), name64);
	for (k = 0; k < sizeof bad / sizeof bad[0]; k++) {
		rec_clear();
		argv[2] = (char *)bad[k].name;
		ck_assert_int_eq(cmd_execute(&rec.ctx, 5, argv), -1);
		ck_assert_int_eq(rec.ctx.failed, CMD_USAGE);
		ck_assert_int_eq(rec.nerrors, 1);
		ck_assert_str_eq(rec.errors[0], bad[k].error);
		ck_assert_int_eq(jobtable_count(rec.jt), 3);
	}
}
END_TEST

/* Run a line with JSON results and return the document, parsed. */
static struct jsonval *
json_run(const char *line)
{
	struct jsonval	*v;
	char		*cause = NULL;

	rec_clear();
	rec.ctx.json = 1;
	run_ok(line);
	rec.ctx.json = 0;
	ck_assert_msg(rec.json != NULL, "%s: no JSON", line);
	v = jsonval_parse(rec.json, strlen(rec.json), &cause);
	ck_assert_msg(v != NULL, "%s: %s: %s", line, cause, rec.json);
	return v;
}

/* Return the integer member key of obj (it must be one). */
static int64_t
json_int(const struct jsonval *obj, const char *key)
{
	int64_t	n;

	ck_assert_msg(jsonval_int(jsonval_get(obj, key), &n) == 0,
	    "no integer %s", key);
	return n;
}

/* Return the boolean member key of obj (it must be one). */
static int
json_bool(const struct jsonval *obj, const char *key)
{
	int	b;

	ck_assert_msg(jsonval_bool(jsonval_get(obj, key), &b) == 0,
	    "no boolean %s", key);
	return b;
}

/* Return row i of a screen document's "lines". */
static const char *
screen_line(const struct jsonval *doc, size_t i)
{
	const char	*s;

	s = jsonval_string(jsonval_at(jsonval_get(doc, "lines"), i));
	ck_assert_msg(s != NULL, "no line %zu", i);
	return s;
}

/* Turn the loop until `!screen ID` (JSON) has want on row; the document. */
static struct jsonval *
screen_wait(int id, size_t row, const char *want)
{
	struct jsonval	*doc;
	char		 line[64];
	int64_t		 end = loop_now_ms() + 5000;

	snprintf(line, sizeof line, "!screen %d", id);
	for (;;) {
		doc = json_run(line);
		if (strcmp(screen_line(doc, row), want) == 0)
			return doc;
		ck_assert_msg(loop_now_ms() < end, "screen %d row %zu: \"%s\", "
		    "not \"%s\"", id, row, screen_line(doc, row), want);
		jsonval_free(doc);
		loop_run_once(rec.loop, 20);
	}
}

/*
 * !screen: a real child's text at the places it printed it (a wide
 * character once), the cursor, the title, the alternate screen and a
 * hidden cursor; a job that printed nothing has blank rows of its size;
 * the text form is the rows.
 */
START_TEST(test_screen)
{
	struct jsonval		*doc;
	const struct jsonval	*cur;
	char			 wide[64];
	int64_t			 rows, cols;
	int			 i;

	run_ok("printf '\\033]2;my title\\007\\033[2J\\033[3;5Hhello"
	    "\\033[10;20H\\344\\270\\226\\347\\225\\214x\\033[5;7H'; "
	    "exec sleep 100");
	doc = screen_wait(1, 2, "    hello");
	rows = json_int(doc, "rows");
	cols = json_int(doc, "cols");
	ck_assert_int_gt(rows, 10);
	ck_assert_int_gt(cols, 25);
	ck_assert_int_eq(json_int(doc, "id"), 1);
	ck_assert_uint_eq(jsonval_count(jsonval_get(doc, "lines")),
	    (size_t)rows);
	snprintf(wide, sizeof wide, "%19s世界x", "");
	ck_assert_str_eq(screen_line(doc, 9), wide);
	for (i = 0; i < rows; i++) {
		if (i != 2 && i != 9)
			ck_assert_str_eq(screen_line(doc, (size_t)i), "");
	}
	cur = jsonval_get(doc, "cursor");
	ck_assert_int_eq(json_int(cur, "row"), 4);
	ck_assert_int_eq(json_int(cur, "col"), 6);
	ck_assert(json_bool(cur, "visible"));
	ck_assert(!json_bool(doc, "alt_screen"));
	ck_assert_str_eq(jsonval_get_string(doc, "title"), "my title");
	jsonval_free(doc);

	rec_clear();
	run_ok("!screen 1");
	ck_assert_int_eq(rec.nshows, 1);
	ck_assert_str_eq(rec.title, "Screen [1] printf '\\033]2;my title\\007"
	    "\\033[2J\\033[3;5Hhello\\033[10;20H\\344\\270\\226\\347\\225\\214x"
	    "\\033[5;7H'; exec sleep 100");
	ck_assert_int_eq(rec.count, rows);
	ck_assert_str_eq(rec.lines[2], "    hello");
	ck_assert_str_eq(rec.lines[9], wide);

	/* A full-screen program: the alternate screen, its cursor hidden. */
	run_ok("printf 'main\\033[?1049h\\033[Halt\\033[?25l'; exec sleep 100");
	doc = screen_wait(2, 0, "alt");
	ck_assert(json_bool(doc, "alt_screen"));
	cur = jsonval_get(doc, "cursor");
	ck_assert_int_eq(json_int(cur, "row"), 0);
	ck_assert_int_eq(json_int(cur, "col"), 3);
	ck_assert(!json_bool(cur, "visible"));
	ck_assert(jsonval_type(jsonval_get(doc, "title")) == JSONVAL_NULL);
	jsonval_free(doc);

	/* Nothing printed: blank rows of its size. */
	run_ok("exec sleep 100");
	run_for(100);
	doc = json_run("!screen 3");
	ck_assert_int_eq(json_int(doc, "rows"), rows);
	ck_assert_int_eq(json_int(doc, "cols"), cols);
	ck_assert_uint_eq(jsonval_count(jsonval_get(doc, "lines")),
	    (size_t)rows);
	for (i = 0; i < rows; i++)
		ck_assert_str_eq(screen_line(doc, (size_t)i), "");
	cur = jsonval_get(doc, "cursor");
	ck_assert_int_eq(json_int(cur, "row"), 0);
	ck_assert_int_eq(json_int(cur, "col"), 0);
	jsonval_free(doc);
	run_error_again("!screen 9", "no such job: 9");
}
END_TEST

/*
 * Run `!status --since MARK --max-bytes max ID` (JSON); the document,
 * its "output" in *out (borrowed) and its "next" copied into next.
 */
static struct jsonval *
status_since(int id, const char *mark, int max, const char **out,
    size_t *len, char next[64])
{
	struct jsonval	*doc;
	char		 line[128];

	snprintf(line, sizeof line, "!status --since %s --max-bytes %d %d",
	    mark, max, id);
	doc = json_run(line);
	*out = jsonval_string(jsonval_get(doc, "output"));
	ck_assert_ptr_nonnull(*out);
	*len = jsonval_string_len(jsonval_get(doc, "output"));
	ck_assert_ptr_nonnull(jsonval_get_string(doc, "next"));
	snprintf(next, 64, "%s", jsonval_get_string(doc, "next"));
	return doc;
}

/*
 * Page through a job's lines from "0:0" at max bytes a page: each line
 * "line N" (1 to n) comes exactly once, in order, no page over max,
 * output_from where the last page ended; the job's own mark stays.
 */
static void
page_all(struct job *job, int n, int max)
{
	struct jsonval		*doc;
	struct store_mark	 own;
	const char		*out, *p, *nl;
	char			 next[64], want[32];
	size_t			 len;
	int			 expect = 1, pages = 0, more;

	snprintf(next, sizeof next, "0:0");
	do {
		doc = status_since(job_id(job), next, max, &out, &len, next);
		ck_assert_uint_le(len, (size_t)max);
		ck_assert_int_eq(json_int(doc, "output_from"), expect - 1);
		ck_assert(!json_bool(doc, "output_partial"));
		for (p = out; *p != '\0'; p = nl + 1) {
			nl = strchr(p, '\n');
			ck_assert_ptr_nonnull(nl);
			snprintf(want, sizeof want, "line %d", expect++);
			ck_assert_msg((size_t)(nl - p) == strlen(want) &&
			    strncmp(p, want, strlen(want)) == 0,
			    "page %d: \"%.*s\", not \"%s\"", pages,
			    (int)(nl - p), p, want);
		}
		more = json_bool(doc, "output_truncated");
		ck_assert_int_eq(json_int(doc, "lines_left"), n - expect + 1);
		jsonval_free(doc);
		pages++;
	} while (more);
	ck_assert_int_eq(expect, n + 1);
	ck_assert_int_ge(pages, n * 8 / max);
	job_text_mark(job, &own);
	ck_assert_int_eq(own.line, 0);
}

/*
 * status --since pages through 5000 lines at 4 KiB each, every line once
 * in order, from the store and from the emulator when there is none; a
 * line over --max-bytes is cut; "next" is in every status.
 */
START_TEST(test_status_since)
{
	struct jsonval	*doc;
	struct job	*job;
	struct job_reader *r;
	const char	*out;
	char		 next[64];
	size_t		 len;

	job = run_job("seq -f 'line %g' 1 5000");
	page_all(job, 5000, 4096);
	doc = status_since(1, "4999:0", 4096, &out, &len, next);
	ck_assert_str_eq(out, "line 5000\n");
	ck_assert_str_eq(next, "5000:0");
	jsonval_free(doc);
	doc = status_since(1, "5000:0", 4096, &out, &len, next);
	ck_assert_str_eq(out, "");
	ck_assert_str_eq(next, "5000:0");
	ck_assert(!json_bool(doc, "output_truncated"));
	jsonval_free(doc);
	doc = json_run("!status 1");
	ck_assert_str_eq(jsonval_get_string(doc, "next"), "5000:0");
	jsonval_free(doc);

	/* One line longer than the cap: cut to it, then on. */
	job = run_job("printf 'abcdefghij\\nxyz\\n'");
	doc = status_since(2, "0:0", 4, &out, &len, next);
	ck_assert_str_eq(out, "abcd\n");
	ck_assert_str_eq(next, "1:0");
	ck_assert(json_bool(doc, "output_truncated"));
	ck_assert_int_eq(json_int(doc, "lines_left"), 1);
	jsonval_free(doc);
	doc = status_since(2, next, 4, &out, &len, next);
	ck_assert_str_eq(out, "xyz\n");
	ck_assert_str_eq(next, "2:0");
	ck_assert(!json_bool(doc, "output_truncated"));
	jsonval_free(doc);

	/* No store: the emulator's lines. */
	jobtable_set_store(rec.jt, NULL);
	job = run_job("seq -f 'line %g' 1 200");
	r = job_reader_open(job, 0, NULL);
	ck_assert_int_eq(job_reader_source(r), JOB_SOURCE_VT);
	job_reader_close(r);
	page_all(job, 200, 100);
	jobtable_set_store(rec.jt, rec.store);
}
END_TEST

/*
 * A partial last line (a prompt) comes with output_partial, not again
 * while it has not grown, then again whole once it ends; the text form
 * says how to read on.
 */
START_TEST(test_status_since_partial)
{
	struct jsonval	*doc;
	const char	*out;
	char		 next[64];
	size_t		 len;
	int64_t		 end;

	run_ok("printf 'a\\nprompt> '; read x; echo \"got $x\"; "
	    "exec sleep 100");
	end = loop_now_ms() + 5000;
	for (;;) {
		doc = status_since(1, "0:0", 4096, &out, &len, next);
		/* The text view has no trailing blanks. */
		if (strcmp(out, "a\nprompt>") == 0)
			break;
		ck_assert_msg(loop_now_ms() < end, "output: \"%s\"", out);
		jsonval_free(doc);
		loop_run_once(rec.loop, 20);
	}
	ck_assert(json_bool(doc, "output_partial"));
	ck_assert(!json_bool(doc, "output_truncated"));
	ck_assert_int_eq(json_int(doc, "lines_left"), 0);
	ck_assert_msg(strncmp(next, "1:", 2) == 0 && strcmp(next, "1:0") != 0,
	    "next %s", next);
	jsonval_free(doc);
	doc = status_since(1, next, 4096, &out, &len, next);
	ck_assert_str_eq(out, "");
	ck_assert(!json_bool(doc, "output_partial"));
	jsonval_free(doc);

	rec_clear();
	run_ok("!send 1 yes\\n");
	end = loop_now_ms() + 5000;
	for (;;) {
		doc = status_since(1, next, 4096, &out, &len, next);
		if (*out != '\0')
			break;
		ck_assert_msg(loop_now_ms() < end, "nothing after the prompt");
		jsonval_free(doc);
		loop_run_once(rec.loop, 20);
	}
	/* The prompt's line comes whole (the answer echoed), and on. */
	ck_assert_msg(strncmp(out, "prompt> yes\n", 12) == 0, "output \"%s\"",
	    out);
	jsonval_free(doc);

	rec_clear();
	run_ok("!status --since 0:0 1");
	ck_assert_str_eq(rec.lines[9], "ready:    -");
	ck_assert_str_eq(rec.lines[10], "output (from line 0):");
	ck_assert_str_eq(rec.lines[11], "a");
	ck_assert_msg(strncmp(rec.lines[rec.count - 1], "next: status --since "
	    "", 21) == 0 && strstr(rec.lines[rec.count - 1], " 1") != NULL,
	    "last line: %s", rec.lines[rec.count - 1]);
}
END_TEST

/*
 * A mark past the end of the output (past a partial last line, or past
 * every line) gives nothing and says nothing more is there, so a reader
 * that reads on while output_truncated stops.
 */
START_TEST(test_status_since_past_end)
{
	static const char *const marks[] = { "2:0", "2:3", "9:0", "9:99" };
	struct jsonval	*doc;
	const char	*out;
	char		 next[64];
	size_t		 len;
	size_t		 i;

	run_job("printf 'x\\ny'");
	doc = status_since(1, "0:0", 4096, &out, &len, next);
	ck_assert_str_eq(out, "x\ny");
	ck_assert(json_bool(doc, "output_partial"));
	jsonval_free(doc);
	for (i = 0; i < sizeof marks / sizeof marks[0]; i++) {
		doc = status_since(1, marks[i], 4096, &out, &len, next);
		ck_assert_str_eq(out, "");
		ck_assert_int_eq(json_int(doc, "lines_left"), 0);
		ck_assert_msg(!json_bool(doc, "output_truncated"),
		    "mark %s: output_truncated", marks[i]);
		jsonval_free(doc);
	}
}
END_TEST

/*
 * A restarted job: its "run" changes and "0:0" reads the new run from its
 * start.
 */
START_TEST(test_status_since_restart)
{
	struct jsonval	*doc;
	struct job	*job;
	const char	*out;
	char		 next[64], run1[64], line[256];
	size_t		 len;

	snprintf(line, sizeof line, "echo \"run $(cat %s/runs.txt "
	    "2>/dev/null)\"; echo x >> %s/runs.txt", rec.dir, rec.dir);
	run_ok(line);
	job = rec.selected;
	wait_done(job);
	doc = status_since(1, "0:0", 4096, &out, &len, next);
	ck_assert_str_eq(out, "run\n");
	snprintf(run1, sizeof run1, "%s", jsonval_get_string(doc, "run"));
	jsonval_free(doc);
	rec_clear();
	run_ok("!restart 1");
	wait_state(job, JOB_RUNNING);
	wait_done(job);
	doc = status_since(1, "0:0", 4096, &out, &len, next);
	ck_assert_str_ne(jsonval_get_string(doc, "run"), run1);
	ck_assert_str_eq(out, "run x\n");
	ck_assert_str_eq(next, "1:0");
	jsonval_free(doc);
}
END_TEST

/* Run spawn with these words (NULL-ended) and return the job. */
static struct job *
spawn_words(const char *const *words)
{
	char	*argv[32];
	int	 n = 0;

	argv[n++] = "spawn";
	while (*words != NULL && n < 31)
		argv[n++] = (char *)*words++;
	argv[n] = NULL;
	rec_clear();
	ck_assert_int_eq(cmd_execute(&rec.ctx, n, argv), 0);
	ck_assert_int_eq(rec.nerrors, 0);
	ck_assert_ptr_nonnull(rec.selected);
	return rec.selected;
}

/* Return `!status --split [--max-bytes max] ID`'s document (max 0: none). */
static struct jsonval *
status_split(struct job *job, int max)
{
	char	line[128];

	if (max > 0)
		snprintf(line, sizeof line, "!status --split --max-bytes %d %d",
		    max, job_id(job));
	else
		snprintf(line, sizeof line, "!status --split %d", job_id(job));
	return json_run(line);
}

/* Assert a string member of a document: exactly len bytes of want. */
static void
json_bytes(const struct jsonval *doc, const char *key, const char *want,
    size_t len)
{
	const struct jsonval	*v = jsonval_get(doc, key);

	ck_assert_msg(jsonval_string(v) != NULL, "no %s", key);
	ck_assert_msg(jsonval_string_len(v) == len &&
	    memcmp(jsonval_string(v), want, len) == 0, "%s: \"%s\", not "
	    "\"%s\"", key, jsonval_string(v), want);
}

/*
 * spawn --pipes: stdout and stderr apart, byte-exact (escapes kept,
 * invalid UTF-8 as U+FFFD in JSON, a partial last line as it is), each
 * cut by --max-bytes with the whole sizes; without --input, stdin is
 * /dev/null.
 */
/*
 * status --split reads a bounded part of the run, not all of it: past
 * JOB_SPLIT_SCAN_MIN bytes with stdout full, stderr written after them is
 * not looked for, and says so (stderr_truncated), so a huge log costs the
 * deck's loop no more than the request asked.
 */
START_TEST(test_spawn_pipes_split_bounded)
{
	static const char *const	big[] = { "--pipes", "--no-shell", "--",
		"sh", "-c", "i=0; while [ $i -lt 40000 ]; do echo "
		"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx; "
		"i=$((i+1)); done; echo late >&2", NULL };
	struct jsonval		*doc;
	struct job		*job;

	job = spawn_words(big);
	wait_done(job);
	ck_assert_int_eq(job_state(job), JOB_COMPLETED);
	doc = status_split(job, 100);
	ck_assert(json_bool(doc, "stdout_truncated"));
	json_bytes(doc, "stderr", "", 0);
	ck_assert(json_bool(doc, "stderr_truncated"));
	jsonval_free(doc);
	/* A larger cap reads further. */
	doc = status_split(job, 1024 * 1024);
	json_bytes(doc, "stderr", "late\n", 5);
	ck_assert(!json_bool(doc, "stderr_truncated"));
	jsonval_free(doc);
}
END_TEST

START_TEST(test_spawn_pipes_split)
{
	static const char *const	both[] = { "--pipes", "--no-shell", "--",
		"sh", "-c", "printf 'out1\\n\\033[31mred\\033[0m\\nno newline'; "
		"printf 'err1\\n\\377x\\n' >&2", NULL };
	static const char *const	cat[] = { "--pipes", "--", "cat", NULL };
	static const char	 out[] = "out1\n\033[31mred\033[0m\nno newline";
	struct jsonval		*doc;
	struct job		*job;

	job = spawn_words(both);
	ck_assert(!job_is_pty(job));
	wait_done(job);
	ck_assert_int_eq(job_state(job), JOB_COMPLETED);
	doc = status_split(job, 0);
	json_bytes(doc, "stdout", out, sizeof out - 1);
	json_bytes(doc, "stderr", "err1\n\357\277\275x\n", 10);
	ck_assert(!json_bool(doc, "stdout_truncated"));
	ck_assert(!json_bool(doc, "stderr_truncated"));
	ck_assert(jsonval_type(jsonval_get(doc, "exec_error")) ==
	    JSONVAL_NULL);
	ck_assert(!json_bool(doc, "pty"));
	jsonval_free(doc);

	doc = status_split(job, 7);
	json_bytes(doc, "stdout", "out1\n\033[", 7);
	json_bytes(doc, "stderr", "err1\n\357\277\275x", 9);
	ck_assert(json_bool(doc, "stdout_truncated"));
	ck_assert(json_bool(doc, "stderr_truncated"));
	ck_assert(jsonval_get(doc, "stdout_bytes") == NULL);
	jsonval_free(doc);

	/* No --input: stdin is /dev/null, so cat ends at once. */
	job = spawn_words(cat);
	wait_done(job);
	ck_assert_int_eq(job_state(job), JOB_COMPLETED);

	/* A pty job has everything in stdout. */
	job = run_job("echo tty; echo err >&2");
	doc = status_split(job, 0);
	json_bytes(doc, "stdout", "tty\r\nerr\r\n", 10);
	json_bytes(doc, "stderr", "", 0);
	jsonval_free(doc);
}
END_TEST

/*
 * spawn --input: the text (escapes decoded) on stdin; on pipes then EOF,
 * so cat ends; on a pty it is typed and the job goes on.
 */
START_TEST(test_spawn_input)
{
	static const char *const	pipes[] = { "--pipes", "--input",
		"a\\nb\\x21\\n", "--", "cat", NULL };
	static const char *const	pty[] = { "--input", "hello\\n", "--",
		"read x; echo \"got $x\"; exec sleep 100", NULL };
	struct jsonval		*doc;
	struct job		*job;

	job = spawn_words(pipes);
	wait_done(job);
	ck_assert_int_eq(job_state(job), JOB_COMPLETED);
	doc = status_split(job, 0);
	json_bytes(doc, "stdout", "a\nb!\n", 5);
	jsonval_free(doc);

	job = spawn_words(pty);
	ck_assert(job_is_pty(job));
	wait_text_line(job, "got hello");
	ck_assert(job_is_running(job));
}
END_TEST

/*
 * spawn --escaped: the command, the arguments, --cwd and --env's values
 * carry send's escapes, so a request line (which cannot hold a newline)
 * starts a multi-line script; a \x00 is refused, as a word cannot hold it.
 */
START_TEST(test_spawn_escaped)
{
	static const char *const	sh[] = { "--pipes", "--escaped", "--env",
		"JD_E=two\\nlines", "--cwd", "/\\x74mp", "--",
		"printf '%s\\n' \"$JD_E\"\\npwd", NULL };
	static const char *const	argv[] = { "--pipes", "--escaped",
		"--no-shell", "--", "printf", "[%s]", "a\\tb", "c\\\\d",
		NULL };
	struct jsonval		*doc;
	struct job		*job;
	char			*w[8];

	job = spawn_words(sh);
	wait_done(job);
	ck_assert_int_eq(job_state(job), JOB_COMPLETED);
	doc = status_split(job, 0);
	json_bytes(doc, "stdout", "two\nlines\n/tmp\n", 15);
	jsonval_free(doc);

	job = spawn_words(argv);
	wait_done(job);
	doc = status_split(job, 0);
	json_bytes(doc, "stdout", "[a\tb][c\\d]", 10);
	jsonval_free(doc);

	w[0] = "spawn";
	w[1] = "--escaped";
	w[2] = "--";
	w[3] = "echo a\\x00b";
	w[4] = NULL;
	rec_clear();
	ck_assert_int_ne(cmd_execute(&rec.ctx, 4, w), 0);
	ck_assert_int_eq(rec.nerrors, 1);
	ck_assert_msg(strstr(rec.errors[0], "\\x00") != NULL, "%s",
	    rec.errors[0]);
	ck_assert_ptr_null(rec.selected);
}
END_TEST

/*
 * exec_error: a program not found, a file that is not executable and a
 * cwd gone before the start are said (pipes, no shell); failed; a shell
 * command that is not found is the shell's 127, exec_error null.
 */
START_TEST(test_spawn_exec_error)
{
	static const char *const	nf[] = { "--pipes", "--no-shell", "--",
		"no-such-program-jd", NULL };
	static const char *const	sh[] = { "--pipes", "--",
		"no-such-program-jd", NULL };
	const char			*noexec[] = { "--pipes", "--no-shell",
		"--", NULL, NULL };
	struct jsonval		*doc;
	struct job		*job;
	char			 path[128];
	FILE			*f;

	job = spawn_words(nf);
	wait_done(job);
	ck_assert_int_eq(job_state(job), JOB_FAILED);
	ck_assert_str_eq(job_exec_error(job), "not found");
	doc = json_run("!status 1");
	ck_assert_str_eq(jsonval_get_string(doc, "exec_error"), "not found");
	jsonval_free(doc);

	snprintf(path, sizeof path, "%s/noexec", rec.dir);
	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	fputs("#!/bin/sh\necho hi\n", f);
	fclose(f);
	noexec[3] = path;
	job = spawn_words(noexec);
	wait_done(job);
	ck_assert_int_eq(job_state(job), JOB_FAILED);
	ck_assert_str_eq(job_exec_error(job), "Permission denied");

	job = spawn_words(sh);
	wait_done(job);
	ck_assert_int_eq(job_state(job), JOB_FAILED);
	ck_assert_ptr_null(job_exec_error(job));
	ck_assert_int_eq(WEXITSTATUS(job_exit_status(job)), 127);
}
END_TEST

/* spawn --timeout: the job is stopped when its time is up: timed-out. */
START_TEST(test_spawn_timeout)
{
	static const char *const	words[] = { "--timeout", "0.3", "--",
		"sleep 100", NULL };
	struct job	*job;

	job = spawn_words(words);
	wait_state(job, JOB_TIMED_OUT);
	wait_done(job);
}
END_TEST

/* ---- issue 24 (ui1): leaving, tables, history, labels, messages ---- */

/*
 * exit, quit and logout alone start no job and say how to leave; with
 * arguments they are a shell's words and the line a job.
 */
START_TEST(test_leave_words)
{
	static const char *const	 lines[] = { "exit", "quit", "logout",
		"  quit\t ", NULL };
	static const char *const	 words[] = { "exit", "quit", "logout",
		"quit" };
	struct job			*job;
	char				 want[256];
	int				 i;

	for (i = 0; lines[i] != NULL; i++) {
		snprintf(want, sizeof want, "%s starts no job here; to leave "
		    "jobdeck, type !quit (it stops every job)", words[i]);
		run_error_again(lines[i], want);
		ck_assert_int_eq(rec.ctx.failed, CMD_USAGE);
		ck_assert_int_eq(rec.nselects, 0);
		ck_assert_int_eq(rec.quits, 0);
		ck_assert_int_eq(jobtable_count(rec.jt), 0);
	}
	/* exit 3 makes a job that fails with 3, as documented. */
	job = run_job("exit 3");
	ck_assert_int_eq(job_state(job), JOB_FAILED);
	ck_assert_int_eq(WEXITSTATUS(job_exit_status(job)), 3);
	ck_assert_int_eq(jobtable_count(rec.jt), 1);
}
END_TEST

/* Return the column at which word starts in line (it must be there). */
static int
column_of(const char *line, const char *word)
{
	const char	*p = strstr(line, word);

	ck_assert_msg(p != NULL, "no %s in \"%s\"", word, line);
	return (int)(p - line);
}

/*
 * !ps: columns sized from their contents, COMMAND where the header says;
 * the label "NAME: COMMAND" with control characters escaped; in a narrow
 * view MEM and CPU go, COMMAND keeps TEXTTABLE_LAST_MIN columns.
 */
START_TEST(test_ps_columns)
{
	struct job	*job;
	int		 col;

	run_job("true");
	rec_clear();
	run_ok("sleep 100 # a comment");
	job = rec.selected;
	run_ok("!rename 2 tests");
	run_job("printf 'a\nb'");
	rec_clear();
	run_ok("!ps");
	ck_assert_int_eq(rec.count, 4);
	col = column_of(rec.lines[0], "COMMAND");
	/* ID, PID, STATE, EXIT, TIME, CPU, MEM: at most 55 columns now. */
	ck_assert_msg(col <= 55, "COMMAND at column %d: %s", col,
	    rec.lines[0]);
	ck_assert_int_eq(column_of(rec.lines[1], "true"), col);
	ck_assert_int_eq(column_of(rec.lines[2], "tests: sleep 100 # a comment"),
	    col);
	ck_assert_int_eq(column_of(rec.lines[3], "printf 'a\\nb'"), col);
	ck_assert_int_eq(column_of(rec.lines[0], "STATE"),
	    column_of(rec.lines[2], "running"));

	/* Narrow: MEM and CPU go, to give the command room. */
	rec_clear();
	rec.ctx.width = 60;
	run_ok("!ps");
	rec.ctx.width = 0;
	ck_assert_ptr_null(strstr(rec.lines[0], "CPU"));
	ck_assert_ptr_null(strstr(rec.lines[0], "MEM"));
	ck_assert_int_lt(column_of(rec.lines[0], "COMMAND"), col - 8);
	col = column_of(rec.lines[0], "COMMAND");
	ck_assert_int_eq(column_of(rec.lines[2], "tests:"), col);
	/* Wide enough: every column stays. */
	rec_clear();
	rec.ctx.width = col + 20 + TEXTTABLE_LAST_MIN;
	run_ok("!ps");
	rec.ctx.width = 0;
	ck_assert_ptr_nonnull(strstr(rec.lines[0], "CPU"));
	ck_assert_ptr_nonnull(strstr(rec.lines[0], "MEM"));
	job_signal(job, SIGKILL);
	wait_done(job);
}
END_TEST

/*
 * One label for a job: "NAME: COMMAND" (brief: the name), the command
 * alone without a name, what a terminal obeys escaped.
 */
START_TEST(test_job_label)
{
	struct job	*job;
	char		*s;

	job = run_job("printf 'x\ty\033[2J'");
	s = jobfield_label(job, 0);
	ck_assert_str_eq(s, "printf 'x\\ty\\e[2J'");
	free(s);
	s = jobfield_label(job, 1);
	ck_assert_str_eq(s, "printf 'x\\ty\\e[2J'");
	free(s);
	run_ok("!rename 1 tests");
	s = jobfield_label(job, 0);
	ck_assert_str_eq(s, "tests: printf 'x\\ty\\e[2J'");
	free(s);
	s = jobfield_label(job, 1);
	ck_assert_str_eq(s, "tests");
	free(s);
}
END_TEST

/*
 * Write runs completed runs as an earlier deck (a process of its own
 * with a store of its own: a deck id of its own) would; their ids in
 * ids[0..runs).
 */
static void
earlier_runs(int runs, char ids[][STORE_ID_LEN + 1])
{
	struct store_limits	 lim;
	struct store_meta	 m;
	struct store		*old;
	struct store_run	*w;
	char			*cause = NULL, cmd[32];
	int			 fds[2], status, i;
	pid_t			 pid;

	ck_assert_int_eq(pipe(fds), 0);
	if ((pid = fork()) == 0) {
		close(fds[0]);
		store_default_limits(&lim);
		if ((old = store_open(rec.dir, &lim, &cause)) == NULL)
			_exit(2);
		for (i = 0; i < runs; i++) {
			memset(&m, 0, sizeof m);
			snprintf(cmd, sizeof cmd, "echo run %d", i);
			m.job = i + 1;
			m.start = 1;
			m.command = cmd;
			m.shell = "/bin/sh";
			m.cwd = rec.dir;
			m.pty = 1;
			m.pid = 4242 + i;
			m.started = 1700000000000LL + i;
			m.state = "running";
			if ((w = store_run_new(old, &m, &cause)) == NULL)
				_exit(3);
			m.state = "completed";
			m.ended = m.started + 1;
			m.has_status = 1;
			if (store_run_update(w, &m) != 0)
				_exit(4);
			store_run_close(w);
			if (write(fds[1], m.run, STORE_ID_LEN) != STORE_ID_LEN)
				_exit(5);
		}
		store_free(old);
		_exit(0);
	}
	close(fds[1]);
	for (i = 0; i < runs; i++) {
		ck_assert_int_eq(read(fds[0], ids[i], STORE_ID_LEN),
		    STORE_ID_LEN);
		ids[i][STORE_ID_LEN] = '\0';
	}
	close(fds[0]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "earlier deck: status %d", status);
}

/* qsort() comparison: run ids newest (greatest) first. */
static int
id_newest_first(const void *a, const void *b)
{
	return -strcmp(a, b);
}

/*
 * Item 8: !history (text and JSON), --limit N, --all and list --all show
 * the newest runs first, the N newest; 12 runs over three earlier decks
 * and one of this deck's.
 */
START_TEST(test_history_newest)
{
	char			 ids[13][STORE_ID_LEN + 1], line[64];
	struct jsonval		*doc;
	const struct jsonval	*runs;
	struct job		*job;
	int			 i;

	earlier_runs(4, &ids[0]);
	earlier_runs(4, &ids[4]);
	earlier_runs(4, &ids[8]);
	qsort(ids, 12, sizeof ids[0], id_newest_first);

	/* Text: the 5 newest, newest first; every one by default. */
	rec_clear();
	run_ok("!history --limit 5");
	ck_assert_int_eq(rec.count, 6);
	for (i = 0; i < 5; i++)
		ck_assert_msg(strncmp(rec.lines[i + 1], ids[i],
		    STORE_ID_LEN) == 0, "row %d: %s, want %s", i,
		    rec.lines[i + 1], ids[i]);
	rec_clear();
	run_ok("!history");
	ck_assert_int_eq(rec.count, 13);
	for (i = 0; i < 12; i++)
		ck_assert(strncmp(rec.lines[i + 1], ids[i], STORE_ID_LEN) == 0);

	/* JSON: the same order. */
	doc = json_run("!history --limit 3");
	runs = jsonval_get(doc, "runs");
	ck_assert_uint_eq(jsonval_count(runs), 3);
	for (i = 0; i < 3; i++)
		ck_assert_str_eq(jsonval_get_string(jsonval_at(runs, (size_t)i),
		    "run"), ids[i]);
	jsonval_free(doc);

	/* --all: this deck's run among them, in its place. */
	job = run_job("echo mine");
	snprintf(ids[12], sizeof ids[12], "%s", job_run_id(job));
	qsort(ids, 13, sizeof ids[0], id_newest_first);
	doc = json_run("!history --all --limit 2");
	runs = jsonval_get(doc, "runs");
	ck_assert_uint_eq(jsonval_count(runs), 2);
	ck_assert_str_eq(jsonval_get_string(jsonval_at(runs, 0), "run"),
	    ids[0]);
	ck_assert_str_eq(jsonval_get_string(jsonval_at(runs, 1), "run"),
	    ids[1]);
	jsonval_free(doc);

	/* list --all: the history part too, earlier decks' only. */
	doc = json_run("!list --all --limit 4");
	runs = jsonval_get(doc, "history");
	ck_assert_uint_eq(jsonval_count(runs), 4);
	for (i = 0, snprintf(line, sizeof line, "%s", job_run_id(job));
	    i < 4; i++)
		ck_assert_str_ne(jsonval_get_string(jsonval_at(runs,
		    (size_t)i), "run"), line);
	for (i = 1; i < 4; i++)
		ck_assert_int_gt(strcmp(jsonval_get_string(jsonval_at(runs,
		    (size_t)i - 1), "run"), jsonval_get_string(jsonval_at(runs,
		    (size_t)i), "run")), 0);
	jsonval_free(doc);
}
END_TEST

/*
 * The history table: STARTED (wider than its header) and COMMAND where
 * their headers are; narrow, STARTED goes.
 */
START_TEST(test_history_columns)
{
	char	ids[2][STORE_ID_LEN + 1];
	int	i;

	earlier_runs(2, ids);
	rec_clear();
	run_ok("!history");
	ck_assert_int_eq(rec.count, 3);
	for (i = 1; i < 3; i++) {
		ck_assert_int_eq(column_of(rec.lines[i], "2023-11-14T"),
		    column_of(rec.lines[0], "STARTED"));
		ck_assert_int_eq(column_of(rec.lines[i], "echo run"),
		    column_of(rec.lines[0], "COMMAND"));
	}
	rec_clear();
	rec.ctx.width = 78;
	run_ok("!history");
	rec.ctx.width = 0;
	ck_assert_ptr_null(strstr(rec.lines[0], "STARTED"));
	ck_assert_ptr_null(strstr(rec.lines[1], "2023-11-14T"));
	ck_assert_int_le(column_of(rec.lines[0], "COMMAND"),
	    78 - TEXTTABLE_LAST_MIN);
	ck_assert_int_eq(column_of(rec.lines[1], "echo run"),
	    column_of(rec.lines[0], "COMMAND"));
}
END_TEST

/* The messages a test client has shown, newest first. */
static const struct cmd_msg	test_msgs[] = {
	{ 1700000000, 1, "[1] nosuchprogram one two three four five six seven "
	    "eight nine ten eleven twelve failed (exited 127)" },
	{ 1700000000, 0, "stopping 2 jobs" },
};

/* The client's messages callback: test_msgs. */
static int
rec_messages(const struct cmd_msg **msgs, void *arg)
{
	(void)arg;
	*msgs = test_msgs;
	return (int)(sizeof test_msgs / sizeof test_msgs[0]);
}

/*
 * !messages shows the client's messages whole, wrapped to the view's
 * width, an error marked; a client that keeps none is told so.
 */
START_TEST(test_messages)
{
	struct cmd_client	client = rec_client;
	int			i;

	run_error_again("!messages", "messages: only a screen keeps its "
	    "messages (each ctl reply carries its own)");
	client.messages = rec_messages;
	rec.ctx.client = &client;
	rec.ctx.width = 60;
	rec_clear();
	run_ok("!messages");
	rec.ctx.width = 0;
	rec.ctx.client = &rec_client;
	ck_assert_str_eq(rec.title, "Messages");
	ck_assert_int_eq(rec.header, 1);
	ck_assert_int_ge(rec.count, 4);
	for (i = 0; i < rec.count; i++)
		ck_assert_msg((int)strlen(rec.lines[i]) <= 60, "%s",
		    rec.lines[i]);
	ck_assert_ptr_nonnull(strstr(rec.lines[1], "  error  [1] "
	    "nosuchprogram one"));
	ck_assert_ptr_nonnull(strstr(rec.lines[rec.count - 2],
	    "(exited 127)"));
	ck_assert_ptr_nonnull(strstr(rec.lines[rec.count - 1],
	    "  info   stopping 2 jobs"));
}
END_TEST

/* The deck's attached terminals, for !deck: what the test says. */
static int
deck_clients(void *arg)
{
	return *(int *)arg;
}

/* !deck without a deck to describe says so, and changes nothing. */
START_TEST(test_deck_unknown)
{
	run_error("!deck", "deck: not known here");
	ck_assert_int_eq(rec.nshows, 0);
	ck_assert_ptr_null(rec.json);
	rec_clear();
	rec.ctx.json = 1;
	run_error("!deck", "deck: not known here");
	rec.ctx.json = 0;
	ck_assert_ptr_null(rec.json);
}
END_TEST

/*
 * !deck's text: the deck's name, our pid, its start in UTC, the jobs in
 * the table and those running (a sleep and an ended true), the clients
 * its callback counts, its configuration; the same on the read-only
 * socket (it only looks), and !de finds it.
 */
START_TEST(test_deck_text)
{
	struct cmd_deck	 deck;
	struct job	*sleeper;
	char		 pid[32];
	size_t		 k;
	int		 clients = 3, i;
	const char	*want[] = { "name: unit", pid,
	    "started: 2023-11-14T22:13:20.123Z", "jobs: 2", "running: 1",
	    "clients: 3", "config: /etc/jobdeck/unit.toml" };

	memset(&deck, 0, sizeof deck);
	deck.name = "unit";
	deck.config = "/etc/jobdeck/unit.toml";
	deck.started_ms = INT64_C(1700000000123);
	deck.clients = deck_clients;
	deck.clients_arg = &clients;
	rec.ctx.deck = &deck;
	snprintf(pid, sizeof pid, "pid: %ld", (long)getpid());

	rec_clear();
	run_ok("sleep 30");
	sleeper = rec.selected;
	ck_assert_ptr_nonnull(sleeper);
	wait_state(sleeper, JOB_RUNNING);
	run_job("true");

	for (i = 0; i < 3; i++) {
		rec_clear();
		rec.ctx.read_only = i == 1;
		run_ok(i == 2 ? "!de" : "!deck");
		rec.ctx.read_only = 0;
		ck_assert_int_eq(rec.nshows, 1);
		ck_assert_str_eq(rec.title, "Deck");
		ck_assert_int_eq(rec.header, 0);
		ck_assert_int_eq(rec.count, (int)(sizeof want /
		    sizeof want[0]));
		for (k = 0; k < sizeof want / sizeof want[0]; k++)
			ck_assert_str_eq(rec.lines[k], want[k]);
	}

	/* No configuration, no clients' count, not started: said so. */
	deck.config = NULL;
	deck.clients = NULL;
	deck.started_ms = 0;
	rec_clear();
	run_ok("!deck");
	ck_assert_str_eq(rec.lines[2], "started: -");
	ck_assert_str_eq(rec.lines[5], "clients: 0");
	ck_assert_str_eq(rec.lines[6], "config: none");
	job_signal(sleeper, SIGKILL);
	wait_done(sleeper);
	rec.ctx.deck = NULL;
}
END_TEST

/*
 * !deck --json: one object with every member by value: name, pid,
 * started (seconds) and started_at (ISO 8601 UTC), jobs, running,
 * clients and config; null for what is not known.
 */
START_TEST(test_deck_json)
{
	struct cmd_deck	 deck;
	struct jsonval	*v;
	struct job	*job;
	int		 clients = 0;

	memset(&deck, 0, sizeof deck);
	deck.name = "json-deck";
	deck.config = "/tmp/a \"quoted\" path.toml";
	deck.started_ms = INT64_C(1700000000999);
	deck.clients = deck_clients;
	deck.clients_arg = &clients;
	rec.ctx.deck = &deck;

	v = json_run("!deck");
	ck_assert_int_eq(jsonval_type(v), JSONVAL_OBJECT);
	ck_assert_uint_eq(jsonval_count(v), 8);
	ck_assert_str_eq(jsonval_get_string(v, "name"), "json-deck");
	ck_assert_int_eq(json_int(v, "pid"), getpid());
	ck_assert_int_eq(json_int(v, "started"), 1700000000);
	ck_assert_str_eq(jsonval_get_string(v, "started_at"),
	    "2023-11-14T22:13:20.999Z");
	ck_assert_int_eq(json_int(v, "jobs"), 0);
	ck_assert_int_eq(json_int(v, "running"), 0);
	ck_assert_int_eq(json_int(v, "clients"), 0);
	ck_assert_str_eq(jsonval_get_string(v, "config"),
	    "/tmp/a \"quoted\" path.toml");
	jsonval_free(v);

	/* A job running, two clients; nothing known of the rest. */
	rec_clear();
	run_ok("sleep 30");
	job = rec.selected;
	wait_state(job, JOB_RUNNING);
	clients = 2;
	deck.config = NULL;
	deck.started_ms = 0;
	v = json_run("!deck");
	ck_assert_int_eq(json_int(v, "jobs"), 1);
	ck_assert_int_eq(json_int(v, "running"), 1);
	ck_assert_int_eq(json_int(v, "clients"), 2);
	ck_assert_int_eq(jsonval_type(jsonval_get(v, "config")), JSONVAL_NULL);
	ck_assert_ptr_nonnull(jsonval_get(v, "config"));
	ck_assert_int_eq(jsonval_type(jsonval_get(v, "started")),
	    JSONVAL_NULL);
	ck_assert_ptr_nonnull(jsonval_get(v, "started_at"));
	ck_assert_int_eq(jsonval_type(jsonval_get(v, "started_at")),
	    JSONVAL_NULL);
	jsonval_free(v);
	job_signal(job, SIGKILL);
	wait_done(job);
	rec.ctx.deck = NULL;
}
END_TEST

static Suite *
cmd_suite(void)
{
	Suite	*s = suite_create("cmd");
	TCase	*tc;

	tc = tcase_create("lookup");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_unchecked_fixture(tc, NULL, kill_leftovers);
	tcase_set_timeout(tc, 10);
	tcase_add_loop_test(tc, test_errors, 0,
	    (int)(sizeof err_cases / sizeof err_cases[0]));
	tcase_add_test(tc, test_find);
	tcase_add_test(tc, test_session_line_rule);
	tcase_add_test(tc, test_session_shell_order);
	tcase_add_test(tc, test_session_shell_warning);
	tcase_add_test(tc, test_help);
	tcase_add_test(tc, test_help_focus_key);
	tcase_add_test(tc, test_help_default_keys);
	tcase_add_test(tc, test_paste_no_client);
	tcase_add_test(tc, test_quit);
	tcase_add_test(tc, test_session_shell_big_variable);
	tcase_add_test(tc, test_session_shell_newline_cwd);
	suite_add_tcase(s, tc);

	tc = tcase_create("browser");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_unchecked_fixture(tc, NULL, kill_leftovers);
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_browser_idle);
	tcase_add_test(tc, test_browser_refused);
	suite_add_tcase(s, tc);

	tc = tcase_create("jobs");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_unchecked_fixture(tc, NULL, kill_leftovers);
	tcase_set_timeout(tc, 10);
	tcase_add_test(tc, test_plain_line_starts_job);
	tcase_add_test(tc, test_focus);
	tcase_add_test(tc, test_ps);
	tcase_add_loop_test(tc, test_kill_signals, 0,
	    (int)(sizeof kill_cases / sizeof kill_cases[0]));
	tcase_add_test(tc, test_kill_several);
	tcase_add_test(tc, test_kill_all);
	tcase_add_test(tc, test_rm_clear);
	tcase_add_test(tc, test_rename);
	tcase_add_test(tc, test_logs);
	tcase_add_test(tc, test_ps_header);
	tcase_add_test(tc, test_kill_queued);
	tcase_add_test(tc, test_stop_cont);
	tcase_add_test(tc, test_text_escaped);
	suite_add_tcase(s, tc);

	tc = tcase_create("session");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_unchecked_fixture(tc, NULL, kill_leftovers);
	tcase_set_timeout(tc, 10);
	tcase_add_test(tc, test_cd);
	tcase_add_test(tc, test_export_unset);
	tcase_add_test(tc, test_session_lists);
	tcase_add_test(tc, test_send_spawn_as_typed);
	tcase_add_test(tc, test_spawn_agent);
	tcase_add_test(tc, test_screen);
	tcase_add_test(tc, test_status_since);
	tcase_add_test(tc, test_status_since_partial);
	tcase_add_test(tc, test_status_since_past_end);
	tcase_add_test(tc, test_status_since_restart);
	tcase_add_test(tc, test_spawn_pipes_split);
	tcase_add_test(tc, test_spawn_pipes_split_bounded);
	tcase_add_test(tc, test_spawn_input);
	tcase_add_test(tc, test_spawn_escaped);
	tcase_add_test(tc, test_spawn_exec_error);
	tcase_add_test(tc, test_spawn_timeout);
	tcase_add_test(tc, test_history_rerun);
	suite_add_tcase(s, tc);

	tc = tcase_create("stack");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_unchecked_fixture(tc, NULL, kill_leftovers);
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_stack_groups);
	tcase_add_test(tc, test_stack_depends);
	tcase_add_test(tc, test_stack_dep_fails);
	tcase_add_test(tc, test_stack_start_delay);
	tcase_add_test(tc, test_stack_kill_group_order);
	tcase_add_test(tc, test_stack_replicas);
	tcase_add_test(tc, test_stack_pending_restart_killed);
	suite_add_tcase(s, tc);

	tc = tcase_create("issue24_ui");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_unchecked_fixture(tc, NULL, kill_leftovers);
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_leave_words);
	tcase_add_test(tc, test_ps_columns);
	tcase_add_test(tc, test_job_label);
	tcase_add_test(tc, test_history_newest);
	tcase_add_test(tc, test_history_columns);
	tcase_add_test(tc, test_messages);
	suite_add_tcase(s, tc);

	tc = tcase_create("deck");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_unchecked_fixture(tc, NULL, kill_leftovers);
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_deck_unknown);
	tcase_add_test(tc, test_deck_text);
	tcase_add_test(tc, test_deck_json);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite as a subreaper; exit non-zero if any test failed. */
int
main(void)
{
	SRunner	*sr;
	int	 failed;

	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0)
		perror("check_cmd: PR_SET_CHILD_SUBREAPER");
	sr = srunner_create(cmd_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

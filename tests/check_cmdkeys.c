/*
 * check_cmdkeys: keys that run commands (bind.h on cmd.h's
 * cmd_bind_commands).  A prompt key bound to a command line with an
 * argument runs it through the command language on a real job and
 * !help lists it with its command's help; a line that is no command (a
 * prefix, a misspelling) or misuses one is refused with the command's
 * usage, by bind_set() and by the configuration with its LINE:COL; each
 * action of the prompt's table is a command of its name, which asks the
 * screen for that action; a client without a screen (the control
 * socket, the read-only one) refuses them with a clear error.
 */
#include <sys/prctl.h>

#include <check.h>
#include <curses.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bind.h"
#include "cmd.h"
#include "config.h"
#include "job.h"
#include "jobtable.h"
#include "loop.h"
#include "session.h"
#include "store.h"

#define CK_ERRORS_MAX	8
#define CK_ACTIONS_MAX	8

/* What the client was told, and the objects under test. */
static struct {
	struct loop		*loop;
	struct jobtable		*jt;
	struct store		*store;
	struct session		*session;
	struct cmd_ctx		 ctx;
	char			 dir[64];

	char			*errors[CK_ERRORS_MAX];
	int			 nerrors;
	char			*title;		/* the last text shown */
	char			**lines;
	int			 count;
	enum bind_action	 actions[CK_ACTIONS_MAX];	/* asked of */
	int			 nactions;			/*   the screen */
} ck;

/* Keep an error. */
static void
ck_error(const char *msg, void *arg)
{
	(void)arg;
	ck_assert_int_lt(ck.nerrors, CK_ERRORS_MAX);
	ck.errors[ck.nerrors++] = strdup(msg);
}

/* Forget the text shown last. */
static void
ck_show_free(void)
{
	int	i;

	for (i = 0; i < ck.count; i++)
		free(ck.lines[i]);
	free(ck.lines);
	free(ck.title);
	ck.lines = NULL;
	ck.title = NULL;
	ck.count = 0;
}

/* Keep a copy of a text shown. */
static void
ck_show(const char *title, char **lines, int count, int header, void *arg)
{
	int	i;

	(void)header;
	(void)arg;
	ck_show_free();
	ck.title = strdup(title);
	ck.lines = calloc((size_t)count + 1, sizeof *ck.lines);
	for (i = 0; i < count; i++)
		ck.lines[i] = strdup(lines[i]);
	ck.count = count;
}

/* Keep what a command asked of the screen. */
static void
ck_screen(enum bind_action action, void *arg)
{
	(void)arg;
	ck_assert_int_lt(ck.nactions, CK_ACTIONS_MAX);
	ck.actions[ck.nactions++] = action;
}

/* A client with a screen, as the deck's ui. */
static const struct cmd_client ck_screen_client = {
	.error = ck_error,
	.show = ck_show,
	.screen = ck_screen,
};

/* A client without one, as a control connection. */
static const struct cmd_client ck_socket_client = {
	.error = ck_error,
	.show = ck_show,
};

/* Forget everything the client was told. */
static void
ck_clear(void)
{
	int	i;

	for (i = 0; i < ck.nerrors; i++)
		free(ck.errors[i]);
	ck.nerrors = 0;
	ck.nactions = 0;
	ck_show_free();
}

/* A loop, a jobtable on a store, a session and a screen's context. */
static void
setup(void)
{
	struct store_limits	 lim;
	char			*cause = NULL;

	memset(&ck, 0, sizeof ck);
	signal(SIGPIPE, SIG_IGN);
	ck_assert_int_eq(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);
	strcpy(ck.dir, "/tmp/check_cmdkeys.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(ck.dir));
	ck.loop = loop_new();
	ck.jt = jobtable_new(ck.loop);
	store_default_limits(&lim);
	ck.store = store_open(ck.dir, &lim, &cause);
	ck_assert_msg(ck.store != NULL, "store: %s", cause);
	jobtable_set_store(ck.jt, ck.store);
	ck.session = session_new(NULL);
	ck.ctx.jt = ck.jt;
	ck.ctx.session = ck.session;
	ck.ctx.client = &ck_screen_client;
	bind_set_commands(&cmd_bind_commands);
}

/* Kill what is left and free everything. */
static void
teardown(void)
{
	char	cmd[128];
	int	i;

	bind_set_commands(NULL);
	ck_clear();
	for (i = 0; i < jobtable_count(ck.jt); i++)
		job_signal(jobtable_get(ck.jt, i), SIGKILL);
	jobtable_free(ck.jt);
	store_free(ck.store);
	loop_free(ck.loop);
	session_free(ck.session);
	jobtable_kill_strays();
	snprintf(cmd, sizeof cmd, "rm -rf %s", ck.dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cleanup of %s failed\n", ck.dir);
}

/* Whether a line shown contains every one of the words given. */
static int
ck_shown(const char *a, const char *b, const char *c)
{
	int	i;

	for (i = 0; i < ck.count; i++) {
		if (strstr(ck.lines[i], a) != NULL &&
		    strstr(ck.lines[i], b) != NULL &&
		    (c == NULL || strstr(ck.lines[i], c) != NULL))
			return 1;
	}
	return 0;
}

/* bind_set() on b must fail with exactly want. */
static void
ck_set_fails(struct bind *b, const char *line, const char *want)
{
	char	*cause = NULL;

	ck_assert_int_eq(bind_set(b, BIND_MAIN, line, "F9", &cause), -1);
	ck_assert_str_eq(cause, want);
	free(cause);
	ck_assert_ptr_null(bind_command(b, BIND_MAIN, BIND_CURSES | KEY_F(9)));
}

/*
 * "logs 1" bound to F3 runs !logs 1 on a real job: the key's line is
 * the command's, its output is shown; !help lists it with logs' help;
 * rebinding it moves it, "none" unbinds it.
 */
START_TEST(test_bound_line_runs)
{
	struct bind	*b = bind_new();
	struct job	*job;
	const char	*line;
	char		*cause = NULL, keys[64];
	int64_t		 end;

	ck_assert_int_eq(cmd_run_line(&ck.ctx, "echo BOUND-OUT"), 0);
	job = jobtable_get(ck.jt, 0);
	end = loop_now_ms() + 10000;
	while (job_is_running(job) || job_out_fd(job) != -1) {
		ck_assert_msg(loop_now_ms() < end, "the job did not end");
		loop_run_once(ck.loop, 20);
	}

	ck_assert_msg(bind_set(b, BIND_MAIN, "logs 1", "F3", &cause) == 0,
	    "%s", cause);
	ck_assert_int_eq(bind_lookup(b, BIND_MAIN, BIND_CURSES | KEY_F(3)),
	    BIND_COMMAND);
	line = bind_command(b, BIND_MAIN, BIND_CURSES | KEY_F(3));
	ck_assert_str_eq(line, "logs 1");
	ck_assert_str_eq(bind_command_nth(b, BIND_MAIN, 0), "logs 1");
	ck_assert_ptr_null(bind_command_nth(b, BIND_MAIN, 1));
	/* A table action's key gives its name, the command it runs. */
	ck_assert_str_eq(bind_command(b, BIND_MAIN, 0x1a), "zoom");

	/* The key's line runs as the prompt runs !logs 1. */
	ck_assert_int_eq(cmd_run_words(&ck.ctx, line), 0);
	ck_assert_int_eq(ck.nerrors, 0);
	ck_assert_ptr_nonnull(ck.title);
	ck_assert_msg(strncmp(ck.title, "Logs [1]", 8) == 0, "title %s",
	    ck.title);
	ck_assert_msg(ck.count >= 1 && strcmp(ck.lines[0], "BOUND-OUT") == 0,
	    "the bound !logs 1 showed %d lines", ck.count);

	/* !help lists it, with the help of logs. */
	ck.ctx.bind = b;
	ck_assert_int_eq(cmd_run_line(&ck.ctx, "!help"), 0);
	ck.ctx.bind = NULL;
	ck_assert_msg(ck_shown("  F3 ", " logs 1 ", "show a job's whole "
	    "output"), "!help lacks F3 logs 1");

	/* Bound again, it moves; "none" unbinds it. */
	ck_assert_int_eq(bind_set(b, BIND_MAIN, "logs 1", "F4 C-o", &cause), 0);
	ck_assert_ptr_null(bind_command(b, BIND_MAIN, BIND_CURSES | KEY_F(3)));
	bind_command_keys_text(b, BIND_MAIN, "logs 1", keys, sizeof keys);
	ck_assert_str_eq(keys, "F4, C-o");
	ck_assert_int_eq(bind_set(b, BIND_MAIN, "logs 1", "none", &cause), 0);
	ck_assert_ptr_null(bind_command_nth(b, BIND_MAIN, 0));
	bind_command_keys_text(b, BIND_MAIN, "logs 1", keys, sizeof keys);
	ck_assert_str_eq(keys, "unbound");
	bind_free(b);
}
END_TEST

/*
 * What is no command a key may run: a misspelling, a prefix (it could
 * find another command later), a misuse (the command's usage), a line
 * that does not split, a command line in another mode, and any command
 * line while the command layer has not said which there are.
 */
START_TEST(test_bound_line_refused)
{
	struct bind	*b = bind_new();
	char		*cause = NULL;

	ck_set_fails(b, "frobnicate", "no action 'frobnicate' in main mode");
	ck_set_fails(b, "kill-a", "no action 'kill-a' in main mode");
	ck_set_fails(b, "!logs 1", "no action '!logs 1' in main mode");
	ck_set_fails(b, "kill-all 3", "usage: !kill-all");
	ck_set_fails(b, "rename 1", "usage: !rename ID NAME");
	ck_set_fails(b, "logs --frob 1", "logs: unknown option: --frob");
	ck_set_fails(b, "logs '1", "unterminated quote");
	ck_assert_int_eq(bind_set(b, BIND_VIEW, "logs 1", "F9", &cause), -1);
	ck_assert_str_eq(cause, "no action 'logs 1' in view mode");
	free(cause);
	/* An alias is the command's name too. */
	ck_assert_int_eq(bind_set(b, BIND_MAIN, "l 1", "F8", &cause), 0);
	ck_assert_str_eq(bind_command(b, BIND_MAIN, BIND_CURSES | KEY_F(8)),
	    "l 1");
	bind_set_commands(NULL);
	ck_set_fails(b, "kill-all", "no action 'kill-all' in main mode");
	ck_assert_int_eq(bind_set(b, BIND_MAIN, "zoom", "F5", &cause), 0);
	bind_free(b);
}
END_TEST

/*
 * [keys] binds command lines (quoted keys), taking their keys from the
 * line editor; a line that is no command is an error at its LINE:COL,
 * with the nearest command's name as a suggestion (check_keys_e2e has
 * the rest of the errors, from --check-config).
 */
START_TEST(test_config_lines)
{
	const char	*text = "[keys]\n\"logs 1\" = \"F3\"\n"
			    "\"kill-all\" = \"C-k\"\nzoom = \"F5\"\n";
	struct config	*cfg = NULL;
	struct bind	*b;
	char		*cause = NULL;

	ck_assert_msg(config_parse("config.toml", text, strlen(text), &cfg,
	    &cause) == 0, "%s", cause);
	b = bind_new();
	config_apply_keys(cfg, b);
	ck_assert_str_eq(bind_command(b, BIND_MAIN, BIND_CURSES | KEY_F(3)),
	    "logs 1");
	ck_assert_str_eq(bind_command(b, BIND_MAIN, 0x0b), "kill-all");
	/* C-k left the line editor (kill-end) for the prompt's command. */
	ck_assert_int_eq(bind_lookup(b, BIND_EDIT, 0x0b), BIND_NONE);
	ck_assert_int_eq(bind_lookup(b, BIND_MAIN, BIND_CURSES | KEY_F(5)),
	    BIND_ZOOM);
	bind_free(b);
	config_free(cfg);

	text = "[keys]\n\"logz 1\" = \"F3\"\n";
	ck_assert_int_eq(config_parse("config.toml", text, strlen(text), &cfg,
	    &cause), -1);
	ck_assert_str_eq(cause, "config.toml:2:1: unknown action 'logz 1' in "
	    "[keys] (did you mean 'logs'?)");
	free(cause);
}
END_TEST

/*
 * Each action of the prompt's table is the command of its name: with a
 * screen it asks for that action (focus: !focus without a job); the
 * screen's commands are found by their whole name only, so the old
 * prefixes still find what they found.
 */
START_TEST(test_screen_commands)
{
	const struct bind_entry	*e;
	const struct cmd_entry	*c;
	char			*cause = NULL, line[64];
	int			 n = 0, i;

	for (e = bind_defaults; e->action != BIND_NONE; e++) {
		if (e->mode != BIND_MAIN)
			continue;
		c = cmd_find(e->name, &cause);
		ck_assert_msg(c != NULL && strcmp(c->name, e->name) == 0,
		    "the key action %s is no command", e->name);
		if (!(c->flags & CMD_SCREEN) && e->action != BIND_FOCUS)
			continue;
		ck_clear();
		snprintf(line, sizeof line, "!%s", e->name);
		ck_assert_int_eq(cmd_run_line(&ck.ctx, line), 0);
		ck_assert_int_eq(ck.nactions, 1);
		ck_assert_msg(ck.actions[0] == e->action, "%s asked for %d",
		    e->name, ck.actions[0]);
		n++;
	}
	ck_assert_int_eq(n, 12);
	/* A screen command asks for the action of its own name. */
	for (i = 0; cmd_table[i] != NULL; i++) {
		c = cmd_table[i];
		if (!(c->flags & CMD_SCREEN))
			continue;
		e = bind_entry_find(BIND_MAIN, c->name);
		ck_assert_msg(e != NULL && e->action == c->screen, "!%s asks "
		    "for another action than its key's", c->name);
	}
	ck_assert_str_eq(cmd_find("co", &cause)->name, "cont");
	ck_assert_str_eq(cmd_find("scr", &cause)->name, "screen");
	ck_assert_ptr_null(cmd_find("zo", &cause));
	ck_assert_str_eq(cause, "unknown command: !zo");
	free(cause);
}
END_TEST

/*
 * Where there is no screen (a control connection) the screen's commands
 * are refused saying so, on the read-only connection too: they only
 * change a client's view, so a read-only client (attach -r) may use
 * them; !focus, which gives a job the keys, is refused there as every
 * command that does more than look (the gate comes first); and !focus
 * wants a job.
 */
START_TEST(test_screen_refused)
{
	static const char *const names[] = { "zoom", "next-job", "redraw",
	    "copy-mode" };
	char	want[256];
	size_t	i;
	int	ro;

	ck.ctx.client = &ck_socket_client;
	for (ro = 0; ro <= 1; ro++) {
		ck.ctx.read_only = ro;
		for (i = 0; i < sizeof names / sizeof names[0]; i++) {
			ck_clear();
			snprintf(want, sizeof want, "!%s", names[i]);
			ck_assert_int_eq(cmd_run_line(&ck.ctx, want), -1);
			ck_assert_int_eq(ck.ctx.failed, CMD_FAILED);
			ck_assert_int_eq(ck.nerrors, 1);
			snprintf(want, sizeof want, "%s: a key's action "
			    "on the deck's screen: there is no screen "
			    "here (press its key, or type !%s at the "
			    "deck's prompt)", names[i], names[i]);
			ck_assert_msg(strncmp(ck.errors[0], want,
			    strlen(want)) == 0, "!%s%s: \"%s\"", names[i],
			    ro ? " (read-only)" : "", ck.errors[0]);
		}
	}
	ck_clear();
	ck_assert_int_eq(cmd_run_line(&ck.ctx, "!focus"), -1);
	ck_assert_msg(strncmp(ck.errors[0], "focus: not allowed here: this "
	    "connection may only look (", 56) == 0, "!focus (read-only): "
	    "\"%s\"", ck.errors[0]);
	ck.ctx.read_only = 0;
	ck_clear();
	ck_assert_int_eq(cmd_run_line(&ck.ctx, "!focus"), -1);
	ck_assert_int_eq(ck.ctx.failed, CMD_USAGE);
	ck_assert_str_eq(ck.errors[0], "focus: name a job: only the deck's "
	    "screen has a selected job");
	ck_assert_int_eq(ck.nactions, 0);
}
END_TEST

/*
 * A read-only client (attach -r) types a line that is no !command: it
 * neither starts a job nor runs a session line (cd), whatever it is; the
 * refusal names what was refused.  (It started the job before.)
 */
START_TEST(test_read_only_lines)
{
	static const char *const lines[] = { "echo typed-by-a-viewer",
	    "cd /tmp", "sleep 1 && echo x" };
	size_t	i;

	ck.ctx.read_only = 1;
	for (i = 0; i < sizeof lines / sizeof lines[0]; i++) {
		ck_clear();
		ck_assert_int_eq(cmd_run_line(&ck.ctx, lines[i]), -1);
		ck_assert_int_eq(ck.nerrors, 1);
		ck_assert_msg(strncmp(ck.errors[0], "starting a job or a "
		    "session line: not allowed here: this connection may only "
		    "look (", 83) == 0, "%s: \"%s\"", lines[i], ck.errors[0]);
		ck_assert_int_eq(jobtable_count(ck.jt), 0);
	}
	ck.ctx.read_only = 0;
}
END_TEST

/* The suite. */
static Suite *
cmdkeys_suite(void)
{
	Suite	*s = suite_create("cmdkeys");
	TCase	*tc = tcase_create("cmdkeys");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_bound_line_runs);
	tcase_add_test(tc, test_bound_line_refused);
	tcase_add_test(tc, test_config_lines);
	tcase_add_test(tc, test_screen_commands);
	tcase_add_test(tc, test_screen_refused);
	tcase_add_test(tc, test_read_only_lines);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite; the exit status says whether every test passed. */
int
main(void)
{
	SRunner	*sr = srunner_create(cmdkeys_suite());
	int	 failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}

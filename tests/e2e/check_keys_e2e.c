/*
 * check_keys_e2e: keys as data, end to end on the real binary (120x40,
 * screen read back through libvterm).  A [keys] rebinding shows in !help
 * and works while the old key no longer does; a bad [keys] entry gives
 * its FILE:LINE:COL error from --check-config; the focus key pressed
 * twice reaches `cat -v` as ^T and the job stays focused; pressed once it
 * leaves focus, and once again later only focuses; a key bound to a
 * command line runs it.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "e2e/e2e.h"

#define WAIT_MS		5000	/* default wait for text */
#define QUIET_MS	700	/* time for a key to have had its effect */

static const struct term_rect panel = { 0, 0, 39, 40 };
static const struct term_rect pane = { 1, 40, 37, 80 };
static const struct term_rect pane_title = { 0, 40, 1, 80 };
static const struct term_rect bottom = { 39, 0, 1, 120 };
static const struct term_rect pane_title_zoomed = { 0, 0, 1, 120 };

/* Start jobdeck on a configuration holding text; wait for its panel. */
static struct term *
keys_start(const char *text)
{
	const char	*args[3];

	args[0] = "-c";
	args[1] = e2e_cfg_write("config.toml", text);
	args[2] = NULL;
	return e2e_start(args, NULL);
}

/*
 * --check-config on a configuration holding text exits 2 and says want,
 * after the file's name.
 */
static void
keys_check_fails(const char *text, const char *want)
{
	char		 out[32768], args[256], line[512];
	const char	*path;

	path = e2e_cfg_write("config.toml", text);
	snprintf(args, sizeof args, "--check-config -c %s", path);
	ck_assert_int_eq(e2e_batch(args, out, sizeof out), 2);
	snprintf(line, sizeof line, "%s%s", path, want);
	ck_assert_msg(strstr(out, line) != NULL, "want: %s\ngot: %s", line,
	    out);
	e2e_cfg_remove();
}

/*
 * [keys] next-job = "C-g", zoom = "F5": !help lists them; C-g selects the
 * next job and C-n, its old key, no longer does.
 */
START_TEST(test_rebind)
{
	struct term	*t;
	char		 line[128];

	t = keys_start("[keys]\nnext-job = \"C-g\"\nzoom = \"F5\"\n\n"
	    "[[job]]\nname = \"one\"\ncommand = \"echo FIRST-OUT; "
	    "sleep 1000\"\n\n"
	    "[[job]]\nname = \"two\"\ncommand = \"echo SECOND-OUT; "
	    "sleep 1000\"\n");
	/* The last job started is selected. */
	EXPECT_IN(t, &panel, "[2] two:", WAIT_MS);
	EXPECT_IN(t, &pane, "SECOND-OUT", WAIT_MS);

	/* The old key: nothing happens. */
	term_key(t, TERM_KEY_CTRL_N);
	term_pump(t, QUIET_MS);
	E2E_ASSERT(t, term_find_in(t, &pane, "SECOND-OUT", NULL, NULL) &&
	    !term_find_in(t, &pane, "FIRST-OUT", NULL, NULL),
	    "C-n still selects the next job after next-job = \"C-g\"");
	/* The new one selects the next job (round to the first). */
	term_type(t, "\007");
	EXPECT_IN(t, &pane, "FIRST-OUT", WAIT_MS);
	term_type(t, "\007");
	EXPECT_IN(t, &pane, "SECOND-OUT", WAIT_MS);

	/* !help says so, from the bindings in force. */
	e2e_run(t, "!help");
	snprintf(line, sizeof line, "%-18s %-15s select the next job", "C-g",
	    "next-job");
	E2E_ASSERT(t, e2e_page_to(t, line, 5, WAIT_MS), "!help lacks the "
	    "rebound next-job line");
	E2E_ASSERT(t, !term_find(t, "C-n                next-job", NULL,
	    NULL), "!help still names C-n for next-job");
	snprintf(line, sizeof line, "%-18s %-15s hide the panel", "F5",
	    "zoom");
	E2E_ASSERT(t, e2e_page_to(t, line, 5, WAIT_MS), "!help lacks the "
	    "rebound zoom line");
	snprintf(line, sizeof line, "%-18s %-15s redraw the screen", "C-l",
	    "redraw");
	E2E_ASSERT(t, e2e_page_to(t, line, 5, WAIT_MS), "!help lacks C-l");
	term_close(t);
	e2e_cfg_remove();
}
END_TEST

/* A bad [keys] entry: its FILE:LINE:COL error from --check-config. */
START_TEST(test_bad_keys)
{
	static const struct {
		const char	*text;
		const char	*want;
	} cases[] = {
		{ "[settings]\nbell = true\n[keys]\nzoom = \"z\"\n",
		  ":4:8: 'z' is typed text at the prompt: bind a control or "
		  "named key" },
		{ "[keys]\nnext-jbo = \"C-g\"\n",
		  ":2:1: unknown action 'next-jbo' in [keys] (did you mean "
		  "'next-job'?)" },
		{ "[keys.view]\nquit = [\"q\", \"Hyper-q\"]\n",
		  ":2:14: unknown key 'Hyper-q': use a character" },
		{ "[keys]\nfocus = \"F5\"\n",
		  ":2:9: the focus key must be a character key such as C-t" },
	};
	char		 out[32768];
	size_t		 i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
		keys_check_fails(cases[i].text, cases[i].want);
	/* --help-config lists [keys]. */
	ck_assert_int_eq(e2e_batch("--help-config", out, sizeof out), 0);
	ck_assert_msg(strstr(out, "[keys.copy]") != NULL, "got: %s", out);
}
END_TEST

/*
 * The focus key twice at once gives `cat -v` a ^T and the job stays
 * focused; once, it leaves focus; once more much later, it only focuses.
 */
START_TEST(test_focus_twice)
{
	struct term	*t;

	t = keys_start("[[job]]\nname = \"catv\"\ncommand = \"cat -v\"\n");
	EXPECT_IN(t, &panel, "[1] catv:", WAIT_MS);
	term_key(t, TERM_KEY_CTRL_T);
	EXPECT_IN(t, &pane_title, "[Focused]", WAIT_MS);
	EXPECT_IN(t, &bottom, "C-t: back", WAIT_MS);

	/* Once: focus is left, and the job got nothing. */
	term_key(t, TERM_KEY_CTRL_T);
	EXPECT_GONE_IN(t, &pane_title, "[Focused]", WAIT_MS);
	term_pump(t, QUIET_MS);
	E2E_ASSERT(t, !term_find_in(t, &pane_title, "[Focused]", NULL, NULL),
	    "one focus key did not stay out of focus");
	/* Once more, long after: focus, and still nothing sent. */
	term_key(t, TERM_KEY_CTRL_T);
	EXPECT_IN(t, &pane_title, "[Focused]", WAIT_MS);
	term_pump(t, QUIET_MS);
	E2E_ASSERT(t, !term_find_in(t, &pane, "^T", NULL, NULL),
	    "a single focus key reached the job");

	/* Twice, typed together: out and back in, and ^T to the job. */
	term_type(t, "\024\024");
	term_pump(t, QUIET_MS);
	term_type(t, "x");
	term_key(t, TERM_KEY_ENTER);
	EXPECT_IN(t, &pane, "^Tx", WAIT_MS);
	E2E_ASSERT(t, term_find_in(t, &pane_title, "[Focused]", NULL, NULL),
	    "the job is not focused after the focus key twice");

	/* Another key between the two: only focus again, nothing sent. */
	term_type(t, "\024q\024");
	term_pump(t, QUIET_MS);
	E2E_ASSERT(t, term_find_in(t, &pane_title, "[Focused]", NULL, NULL),
	    "the focus key after a typed key did not focus");
	term_type(t, "y");
	term_key(t, TERM_KEY_ENTER);
	EXPECT_IN(t, &pane, "y", WAIT_MS);
	term_pump(t, QUIET_MS);
	E2E_ASSERT(t, !term_find_in(t, &pane, "^Ty", NULL, NULL),
	    "the focus key reached the job with a key between the two");
	term_close(t);
	e2e_cfg_remove();
}
END_TEST

/*
 * scroll-top (S-Home) goes to the ring's oldest line, scroll-bottom
 * (S-End) back to the live screen; with more in the store than in the
 * ring, scroll-top opens the log at its first line.  !paste with nothing
 * copied says so.
 */
START_TEST(test_scroll_top)
{
	struct term	*t;

	t = keys_start("[[job]]\nname = \"short\"\n"
	    "command = \"seq -f L%03g 1 200; sleep 1000\"\n");
	EXPECT_IN(t, &pane, "L200", WAIT_MS);
	term_type(t, "\033[1;2H");		/* S-Home */
	EXPECT_IN(t, &pane, "L001", WAIT_MS);
	EXPECT_GONE_IN(t, &pane, "L200", WAIT_MS);
	term_type(t, "\033[1;2F");		/* S-End */
	EXPECT_IN(t, &pane, "L200", WAIT_MS);
	EXPECT_GONE_IN(t, &pane, "L001", WAIT_MS);
	e2e_run(t, "!paste");
	EXPECT_IN(t, &bottom, "the paste buffer is empty", WAIT_MS);
	term_close(t);
	e2e_cfg_remove();

	t = keys_start("[[job]]\nname = \"long\"\n"
	    "command = \"seq -f M%05g 1 3000; sleep 1000\"\n");
	EXPECT_IN(t, &pane, "M03000", WAIT_MS);
	term_type(t, "\033[1;2H");		/* S-Home */
	EXPECT_IN(t, NULL, "Logs [1]", WAIT_MS);
	EXPECT_IN(t, NULL, "M00001", WAIT_MS);
	term_close(t);
	e2e_cfg_remove();
}
END_TEST

/*
 * [keys.view] quit without Esc: a long search's status names the key that
 * stops it (C-g), not Esc.
 */
START_TEST(test_stop_hint)
{
	struct term	*t;
	const char	*raw;
	size_t		 len;

	t = keys_start("[keys.view]\nquit = [\"q\", \"C-g\"]\n\n"
	    "[[job]]\nname = \"big\"\ncommand = \"seq 1 4000000\"\n");
	EXPECT_IN(t, &panel, "Exited 0", 4 * WAIT_MS);
	e2e_run(t, "!logs 1");
	EXPECT_IN(t, &bottom, "/: search", WAIT_MS);
	term_raw_start(t);
	term_type(t, "/nothing-such\r");
	EXPECT_IN(t, &bottom, "Pattern not found", 6 * WAIT_MS);
	term_raw_stop(t);
	raw = term_raw_bytes(t, &len);
	E2E_ASSERT(t, memmem(raw, len, "searching", 9) != NULL,
	    "the search ended in one turn: no status to look at");
	E2E_ASSERT(t, memmem(raw, len, "(C-g: stop)", 11) != NULL &&
	    memmem(raw, len, "Esc: stop", 9) == NULL,
	    "the search's status does not name C-g as its stop key");
	term_close(t);
	e2e_cfg_remove();
}
END_TEST

/*
 * Issue 24: the messages key is in the binding table: [keys] messages =
 * "C-o" opens the recent messages (the default C-g then does not), and
 * !help lists it; C-d on an empty prompt says how to leave.
 */
START_TEST(test_messages_key)
{
	struct term	*t;

	t = keys_start("[keys]\nmessages = \"C-o\"\n");
	e2e_run(t, "!kill 999");
	EXPECT_IN(t, &bottom, "no such job: 999", WAIT_MS);
	term_type(t, "\x07");			/* C-g: bound to nothing now */
	term_pump(t, QUIET_MS);
	E2E_ASSERT(t, !term_find(t, "Messages", NULL, NULL),
	    "the old key still opens the messages");
	term_type(t, "\x0f");			/* C-o */
	EXPECT_IN(t, NULL, "Messages", WAIT_MS);
	EXPECT_IN(t, NULL, "error  no such job: 999", WAIT_MS);
	term_type(t, "q");
	EXPECT_GONE_IN(t, NULL, "Messages", WAIT_MS);
	term_type(t, "\x04");			/* C-d on an empty line */
	EXPECT_IN(t, &bottom, "to leave jobdeck, type !quit", WAIT_MS);
	e2e_run(t, "!help");
	E2E_ASSERT(t, e2e_page_to(t, "C-o                messages", 5,
	    WAIT_MS), "!help lacks the messages key");
	term_close(t);
	e2e_cfg_remove();
}
END_TEST

/*
 * Issue 25: keys run commands.  [keys] "logs 1" = "C-o" opens job 1's
 * log and "kill-all" = "C-x" stops it; !help lists both lines; an
 * unknown command, or one misused, is a --check-config error at its
 * place; zoom, a key's action on the screen, is refused over the control
 * socket saying why, and !zoom at the prompt hides the panel.
 */
START_TEST(test_bound_commands)
{
	static const struct {
		const char	*text;
		const char	*want;
	} bad[] = {
		{ "[keys]\nzoom = \"F5\"\n\"logz 1\" = \"F3\"\n",
		  ":3:1: unknown action 'logz 1' in [keys] (did you mean "
		  "'logs'?)" },
		{ "[settings]\nbell = true\n[keys]\nzoom = \"F5\"\n"
		  "  \"kill-all 3\" = \"F3\"\n",
		  ":5:3: kill-all 3 in [keys]: usage: !kill-all" },
		{ "[keys]\n\"spawn --frob x\" = \"F3\"\n",
		  ":2:1: spawn --frob x in [keys]: spawn: unknown option: "
		  "--frob" },
		{ "[keys.view]\n\"logs 1\" = \"F3\"\n",
		  ":2:1: unknown action 'logs 1' in [keys.view]" },
		{ "[keys]\n\"logs 1\" = \"x\"\n",
		  ":2:12: 'x' is typed text at the prompt: bind a control or "
		  "named key" },
	};
	const char *const	 zoom[] = { "zoom", NULL };
	struct term		*t;
	char			 want[512], run[1024], *reply;
	size_t			 i;
	int			 status;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
		keys_check_fails(bad[i].text, bad[i].want);

	t = keys_start("[keys]\n\"logs 1\" = \"C-o\"\n"
	    "\"kill-all\" = \"C-x\"\n\n"
	    "[[job]]\nname = \"one\"\ncommand = \"echo BOUND-OUT; "
	    "sleep 1000\"\n");
	EXPECT_IN(t, &panel, "[1] one:", WAIT_MS);
	EXPECT_IN(t, &pane, "BOUND-OUT", WAIT_MS);

	/* C-o runs !logs 1: its view opens on the job's output. */
	term_type(t, "\017");
	EXPECT_IN(t, NULL, "Logs [1]", WAIT_MS);
	term_type(t, "q");
	EXPECT_GONE_IN(t, NULL, "Logs [1]", WAIT_MS);

	/* !help lists the bound lines with their commands' help. */
	e2e_run(t, "!help");
	snprintf(want, sizeof want, "%-18s %-15s show a job's whole output",
	    "C-o", "logs 1");
	E2E_ASSERT(t, e2e_page_to(t, want, 6, WAIT_MS), "!help lacks the "
	    "logs 1 key");
	term_type(t, "q");
	EXPECT_GONE_IN(t, NULL, "Help", WAIT_MS);

	/* Over the control socket the screen's zoom is refused. */
	snprintf(run, sizeof run, "%s/run", term_tmpdir(t));
	reply = e2e_ctl(t, "default", run, zoom, 1, WAIT_MS, &status);
	E2E_ASSERT(t, status == 1 && strstr(reply, "zoom: a key's action on "
	    "the deck's screen: there is no screen here") != NULL,
	    e2e_fmt("ctl zoom: %d: %s", status, reply));
	free(reply);
	/* At the prompt it hides the panel. */
	e2e_run(t, "!zoom");
	EXPECT_IN(t, &pane_title_zoomed, "[Zoom]", WAIT_MS);
	e2e_run(t, "!zoom");
	EXPECT_GONE_IN(t, NULL, "[Zoom]", WAIT_MS);
	EXPECT_IN(t, &panel, "[1] one:", WAIT_MS);

	/* C-x runs !kill-all. */
	term_type(t, "\030");
	EXPECT_IN(t, &bottom, "killed 1 job", WAIT_MS);
	term_close(t);
	e2e_cfg_remove();
}
END_TEST

/* The suite: one case each, with generous time limits. */
static Suite *
keys_e2e_suite(void)
{
	static const struct e2e_case	cases[] = {
		{ "rebind", &test_rebind, 30 },
		{ "bad_keys", &test_bad_keys, 20 },
		{ "focus_twice", &test_focus_twice, 30 },
		{ "scroll_top", &test_scroll_top, 30 },
		{ "stop_hint", &test_stop_hint, 90 },
		{ "messages_key", &test_messages_key, 30 },
		{ "bound_commands", &test_bound_commands, 40 },
	};
	Suite				*s = suite_create("keys_e2e");

	e2e_add_cases(s, cases, sizeof cases / sizeof cases[0]);
	return s;
}

/* Run the suite; the exit status says whether every test passed. */
int
main(void)
{
	return e2e_main(keys_e2e_suite());
}

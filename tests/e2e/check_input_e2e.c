/*
 * check_input_e2e.c: end-to-end tests of pastes and the mouse (issue 12):
 * the real binary on a 120x40 pty (tests/e2e/term.h), pasting and using
 * the mouse as the outer terminal does in the modes jobdeck asked for
 * (term_paste, term_mouse), the screen read back.  Layout at 120x40: the panel is columns
 * 0-39, the pane columns 40-119 with its inside on rows 1-37 and columns
 * 41-118, the prompt on row 39.  SGR reports count rows and columns from 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "e2e/e2e.h"
#include "need.h"
#include "skip.h"

#define WAIT_MS		8000

static const struct term_rect panel = { 0, 0, 39, 40 };
static const struct term_rect pane = { 1, 40, 37, 80 };
static const struct term_rect pane_title = { 0, 40, 1, 80 };
static const struct term_rect bottom = { 39, 0, 1, 120 };

/* Start jobdeck (config file config, or /dev/null) running cmd, if any. */
static struct term *
deck_start(const char *config, const char *cmd)
{
	const char	*args[4];

	args[0] = "-c";
	args[1] = config != NULL ? config : "/dev/null";
	args[2] = cmd;
	args[3] = NULL;
	return e2e_start(args, NULL);
}

/*
 * Use the mouse at screen cell row, col as the outer terminal would, in
 * the modes jobdeck asked for: button 0 (32: a drag with it), 64/65 the
 * wheel.
 */
static void
mouse(struct term *t, int button, int row, int col, int press)
{
	term_mouse(t, button == 32 ? -1 : button, row, col, press);
}

/* A four-line indented paste into vim with autoindent: no staircase. */
START_TEST(test_paste_vim)
{
	static const char	 want[] = "def f():\n    if x:\n"
	    "        y = 1\n    return 2\n";
	struct term		*t;
	char			 buf[512];
	int			 i;

	NEED("vim");
	t = deck_start(NULL, "vim -u NONE -N -c 'set autoindent' out.txt");
	EXPECT_IN(t, &pane, "~", WAIT_MS);
	term_key(t, TERM_KEY_CTRL_T);
	EXPECT_IN(t, &pane_title, "[Focused]", WAIT_MS);
	term_type(t, "i");
	EXPECT_IN(t, &pane, "-- INSERT --", WAIT_MS);
	term_paste(t, ("def f():\r    if x:\r        y = 1\r    return 2"));
	EXPECT_IN(t, &pane, "    return 2", WAIT_MS);
	term_key(t, TERM_KEY_ESC);
	EXPECT_GONE_IN(t, &pane, "-- INSERT --", WAIT_MS);
	term_type(t, ":wq\r");
	for (i = 0; i < 100 && e2e_read_file(t, "out.txt", buf, sizeof buf) < 0; i++)
		term_pump(t, 100);
	EXPECT_IN(t, &panel, "Exited 0", WAIT_MS);
	ck_assert_int_ge(e2e_read_file(t, "out.txt", buf, sizeof buf), 0);
	ck_assert_msg(strcmp(buf, want) == 0, "vim wrote \"%s\", want \"%s\"",
	    buf, want);
	term_close(t);
}
END_TEST

/* A multi-line paste at the prompt is one job, never one per line. */
START_TEST(test_paste_prompt)
{
	struct term	*t = deck_start(NULL, NULL);

	term_paste(t, ("echo one\recho two\r\necho three\r"));
	EXPECT_IN(t, &bottom, "pasted 3 lines: Enter runs them as one job",
	    WAIT_MS);
	EXPECT_IN(t, &bottom, "> echo one⏎echo two⏎echo three", WAIT_MS);
	/* Nothing ran: no job yet. */
	term_pump(t, 300);
	ck_assert_msg(!term_find_in(t, &panel, "[1]", NULL, NULL),
	    "the paste started a job\n%s", term_dump(t));
	term_key(t, TERM_KEY_ENTER);
	EXPECT_IN(t, &pane, "three", WAIT_MS);
	EXPECT_IN(t, &pane, "one", WAIT_MS);
	EXPECT_IN(t, &panel, "Exited 0", WAIT_MS);
	term_pump(t, 300);
	ck_assert_msg(!term_find_in(t, &panel, "[2]", NULL, NULL),
	    "the paste started more than one job\n%s", term_dump(t));
	/* A ! command of several lines is refused, and nothing runs. */
	term_paste(t, ("!kill 1\rtouch ran\r"));
	term_key(t, TERM_KEY_ENTER);
	EXPECT_IN(t, &bottom, "a ! command is one line: the paste has 2 lines",
	    WAIT_MS);
	/* So is a session command; pasted controls are text, not keys. */
	term_key(t, TERM_KEY_CTRL_C);
	term_paste(t, ("cd /\x03\rtouch ran"));
	term_key(t, TERM_KEY_ENTER);
	EXPECT_IN(t, &bottom, "a cd command is one line: the paste has 2 lines",
	    WAIT_MS);
	term_pump(t, 300);
	ck_assert_msg(!term_find_in(t, &panel, "[2]", NULL, NULL),
	    "a refused paste started a job\n%s", term_dump(t));
	term_close(t);
}
END_TEST

/* The wheel scrolls the pane's scrollback and a text view. */
START_TEST(test_wheel)
{
	struct term	*t = deck_start(NULL, "seq 1 500");
	int		 i;

	EXPECT_IN(t, &panel, "Exited 0", WAIT_MS);
	EXPECT_IN(t, &pane, "500", WAIT_MS);
	for (i = 0; i < 10; i++)
		mouse(t, 64, 20, 80, 1);
	EXPECT_IN(t, &pane_title, "↑30", WAIT_MS);
	EXPECT_GONE_IN(t, &pane, "500", WAIT_MS);
	EXPECT_IN(t, &pane, "440", WAIT_MS);
	for (i = 0; i < 10; i++)
		mouse(t, 65, 20, 80, 1);
	EXPECT_IN(t, &pane, "500", WAIT_MS);
	EXPECT_GONE_IN(t, &pane_title, "↑", WAIT_MS);

	/* A text view: !logs of the job, from its first line. */
	term_type(t, "!logs 1\r");
	EXPECT_IN(t, NULL, "Logs", WAIT_MS);
	term_key(t, TERM_KEY_HOME);
	term_pump(t, 300);
	ck_assert_msg(!term_find(t, "200", NULL, NULL), "line 200 shown at "
	    "the top of the view\n%s", term_dump(t));
	for (i = 0; i < 60; i++)
		mouse(t, 65, 10, 60, 1);
	EXPECT_IN(t, NULL, "200", WAIT_MS);
	term_close(t);
}
END_TEST

/* Mouse reports reach a focused program that asked, in pane coordinates. */
START_TEST(test_mouse_passthrough)
{
	struct term	*t = deck_start(NULL, "printf '\\033[?1000h\\033[?1006h'; "
	    "stty raw -echo; dd bs=1 count=18 2>/dev/null | od -c");

	EXPECT_IN(t, &panel, "◉ Active", WAIT_MS);
	term_pump(t, 300);
	term_key(t, TERM_KEY_CTRL_T);
	EXPECT_IN(t, &pane_title, "[Focused]", WAIT_MS);
	/* Screen cell (3, 45) is the pane's (2, 4): SGR 5;3. */
	mouse(t, 0, 3, 45, 1);
	mouse(t, 0, 3, 45, 0);
	/* od -c in raw mode: the press and the release, then "3   m". */
	EXPECT_IN(t, &pane, "<   0   ;   5   ;   3   M 033   [   <   0   ;"
	    "   5   ;", WAIT_MS);
	EXPECT_IN(t, &pane, "3   m", WAIT_MS);
	term_close(t);
}
END_TEST

/* A click in the panel selects the job under it. */
START_TEST(test_click_panel)
{
	struct term	*t = deck_start(NULL, "sleep 101");

	EXPECT_IN(t, &panel, "[1] sleep 101", WAIT_MS);
	term_type(t, "sleep 102\r");
	EXPECT_IN(t, &pane_title, "[2] sleep 102", WAIT_MS);
	/* The first entry is rows 1-3 of the panel. */
	mouse(t, 0, 2, 10, 1);
	mouse(t, 0, 2, 10, 0);
	EXPECT_IN(t, &pane_title, "[1] sleep 101", WAIT_MS);
	mouse(t, 0, 5, 10, 1);
	mouse(t, 0, 5, 10, 0);
	EXPECT_IN(t, &pane_title, "[2] sleep 102", WAIT_MS);
	/* The wheel over the panel selects the next and previous. */
	mouse(t, 64, 10, 10, 1);
	EXPECT_IN(t, &pane_title, "[1] sleep 101", WAIT_MS);
	term_close(t);
}
END_TEST

/* A drag in the pane selects inside it only and copies that text. */
START_TEST(test_drag_copy)
{
	struct term		*t;
	struct term_cell	 c;
	char			 dir[] = "/tmp/jobdeck-input.XXXXXX", conf[64];
	FILE			*f;

	/* No OSC 52, so the message gives the paste buffer's size. */
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(conf, sizeof conf, "%s/deck.toml", dir);
	f = fopen(conf, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "[settings]\nclipboard = false\n");
	fclose(f);
	t = deck_start(conf, "printf 'alpha beta\\ngamma delta\\n'; sleep 100");
	EXPECT_IN(t, &pane, "gamma delta", WAIT_MS);
	/* From "beta" (pane row 0, col 6) to "gamma" (row 1, col 4). */
	mouse(t, 0, 1, 47, 1);
	mouse(t, 32, 2, 44, 1);
	E2E_WAIT(t, term_cell(t, 1, 47, &c) == 0 && c.reverse, WAIT_MS,
	    "the selection is not highlighted");
	ck_assert_msg(term_cell(t, 1, 45, &c) == 0 && !c.reverse,
	    "a cell before the selection is highlighted\n%s", term_dump(t));
	mouse(t, 0, 2, 45, 0);
	EXPECT_IN(t, &bottom, "copied 2 lines (10 bytes) to the paste buffer",
	    WAIT_MS);
	/* A drag from the pane out over the panel stays in the pane: "alpha b". */
	mouse(t, 0, 1, 47, 1);
	mouse(t, 32, 1, 10, 1);
	mouse(t, 0, 1, 10, 0);
	EXPECT_IN(t, &bottom, "copied 1 line (7 bytes) to the paste buffer",
	    WAIT_MS);
	term_close(t);
	unlink(conf);
	rmdir(dir);
}
END_TEST

/* Build the suite. */
static Suite *
input_e2e_suite(void)
{
	static const struct e2e_case	cases[] = {
		{ "paste_vim", &test_paste_vim, 30 },
		{ "paste_prompt", &test_paste_prompt, 30 },
		{ "wheel", &test_wheel, 30 },
		{ "mouse_passthrough", &test_mouse_passthrough, 30 },
		{ "click_panel", &test_click_panel, 30 },
		{ "drag_copy", &test_drag_copy, 30 },
	};
	Suite				*s = suite_create("input_e2e");

	e2e_add_cases(s, cases, sizeof cases / sizeof cases[0]);
	return s;
}

/* Run the suite; the exit status says whether every test passed. */
int
main(void)
{
	return e2e_main(input_e2e_suite());
}

/*
 * check_panel_e2e.c: end-to-end tests of the panel (issue 12): the
 * selected job kept visible across resizes with "↑ N more" / "↓ N more"
 * in the panel's borders, zoom resizing the child, the one-line entries
 * of a narrow screen, failure notices, !rm, !clear and !rename through
 * the prompt, a live !ps, and jobs waiting for input (issue 16).
 *
 * The binary is $JOBDECK_BIN, else ./jobdeck, started as `jobdeck -c
 * /dev/null` on the harness's 120x40 pty.  At 120x40 the panel is
 * columns 0-39 (three lines a job, 12 jobs), the pane 40-119, the prompt
 * and message row 39.  Every failed expectation carries the screen.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "e2e/e2e.h"

#define WAIT_MS		5000	/* default wait for text */

static const struct term_rect	screen = { 0, 0, 0, 0 };

/* Start jobdeck with no config on a fresh 120x40 terminal. */
static struct term *
panel_start(void)
{
	static const char *const	args[] = { "-c", "/dev/null", NULL };

	return e2e_start(args, NULL);
}

/* Return the panel's rectangle at a size: beside the pane, or above it. */
static struct term_rect
panel_rect(int rows, int cols)
{
	int	pw;

	if (cols < 60)
		return (struct term_rect){ 0, 0, (rows - 1) / 3, cols };
	pw = cols / 3;
	if (pw < 30 && cols - 30 >= cols * 2 / 3)
		pw = 30;
	if (pw > 48)
		pw = 48;
	return (struct term_rect){ 0, 0, rows - 1, pw };
}

/* Resize the terminal and wait for the panel to be drawn at that size. */
static struct term_rect
panel_resize(struct term *t, int rows, int cols)
{
	struct term_rect	r = panel_rect(rows, cols);

	term_resize(t, rows, cols);
	term_pump(t, 300);
	EXPECT_IN(t, &r, "Processes (", WAIT_MS);
	return r;
}

/* Expect job id's entry in the panel r, drawn in reverse (selected). */
static void
panel_expect_selected(struct term *t, const struct term_rect *r, int id)
{
	struct term_cell	c;
	char			text[16];
	int			row, col;

	snprintf(text, sizeof text, "[%d] ", id);
	EXPECT_IN(t, r, text, WAIT_MS);
	E2E_ASSERT(t, term_find_in(t, r, text, &row, &col), text);
	term_cell(t, row, col, &c);
	E2E_ASSERT(t, c.reverse, "the selected job is not highlighted");
}

/* Start n `sleep 1000` jobs and wait until all run. */
static void
panel_sleepers(struct term *t, int n)
{
	char	text[64];
	int	i;

	for (i = 0; i < n; i++)
		e2e_run(t, "sleep 1000");
	snprintf(text, sizeof text, "Processes (%d running)", n);
	EXPECT_IN(t, &screen, text, 3 * WAIT_MS);
}

/* Press a key code n times. */
static void
panel_press(struct term *t, enum term_keyname key, int n)
{
	while (n-- > 0) {
		term_key(t, key);
		term_pump(t, 30);
	}
}

/*
 * 20 jobs, job 10 selected: it stays on the panel at 120x40, 80x24 and
 * 160x50, and the more-markers count what is off the panel; with job 18
 * selected, growing the screen fills the panel from above instead of
 * leaving blank rows at its end.
 */
START_TEST(test_panel_resize)
{
	struct term		*t = panel_start();
	struct term_rect	 r = panel_rect(40, 120);

	/* The last job typed is selected: one more step wraps to job 1. */
	panel_sleepers(t, 20);
	panel_press(t, TERM_KEY_CTRL_N, 10);
	panel_expect_selected(t, &r, 10);
	EXPECT_IN(t, &r, "↓ 8 more", WAIT_MS);
	E2E_ASSERT(t, !term_find_in(t, &r, "↑", NULL, NULL),
	    "an up marker with nothing above");

	/* 80x24: a line a job (the panel is narrow), all 20 fit. */
	r = panel_resize(t, 24, 80);
	panel_expect_selected(t, &r, 10);
	EXPECT_IN(t, &r, "[1] ◉ sleep 1000", WAIT_MS);
	EXPECT_IN(t, &r, "[20] ◉ sleep 1000", WAIT_MS);
	EXPECT_GONE_IN(t, &r, "more", WAIT_MS);

	/* 160x50: three lines a job again, 15 of them. */
	r = panel_resize(t, 50, 160);
	panel_expect_selected(t, &r, 10);
	EXPECT_IN(t, &r, "↓ 5 more", WAIT_MS);
	E2E_ASSERT(t, !term_find_in(t, &r, "↑", NULL, NULL),
	    "an up marker with nothing above");

	/* Job 18 at 120x40: 7-18 shown. */
	r = panel_resize(t, 40, 120);
	panel_press(t, TERM_KEY_CTRL_N, 8);
	panel_expect_selected(t, &r, 18);
	EXPECT_IN(t, &r, "↑ 6 more", WAIT_MS);
	EXPECT_IN(t, &r, "↓ 2 more", WAIT_MS);

	/* 160x50: 6-20, a full panel, nothing hidden below. */
	r = panel_resize(t, 50, 160);
	panel_expect_selected(t, &r, 18);
	EXPECT_IN(t, &r, "↑ 5 more", WAIT_MS);
	EXPECT_IN(t, &r, "[6] sleep 1000", WAIT_MS);
	EXPECT_IN(t, &r, "[20] sleep 1000", WAIT_MS);
	E2E_ASSERT(t, !term_find_in(t, &r, "↓", NULL, NULL),
	    "a down marker with nothing below");

	/* 80x16: short, a line a job, 13 of them. */
	r = panel_resize(t, 16, 80);
	panel_expect_selected(t, &r, 18);
	EXPECT_IN(t, &r, "↑ 5 more", WAIT_MS);
	EXPECT_IN(t, &r, "↓ 2 more", WAIT_MS);
	term_close(t);
}
END_TEST

/* Zoom gives the child the whole width, and back; the title says so. */
START_TEST(test_panel_zoom)
{
	struct term			*t = panel_start();
	static const struct term_rect	 pane = { 1, 40, 37, 80 };
	static const struct term_rect	 top = { 0, 0, 1, 120 };
	static const struct term_rect	 wide = { 1, 0, 37, 120 };

	e2e_run(t, "sh -c 'while :; do stty size; sleep 0.3; done'");
	EXPECT_IN(t, &pane, "37 78", WAIT_MS);
	term_type(t, "\x1a");			/* Ctrl+Z */
	EXPECT_IN(t, &wide, "37 118", WAIT_MS);
	EXPECT_IN(t, &top, "[Zoom]", WAIT_MS);
	EXPECT_GONE_IN(t, &top, "Processes", WAIT_MS);
	term_type(t, "\x1a");
	EXPECT_IN(t, &top, "Processes", WAIT_MS);
	EXPECT_GONE_IN(t, &top, "[Zoom]", WAIT_MS);
	term_pump(t, 500);
	EXPECT_IN(t, &pane, "37 78", WAIT_MS);
	term_close(t);
}
END_TEST

/*
 * Below 60 columns the panel sits above the pane, a line a job; the
 * focused pane's title keeps the command.
 */
START_TEST(test_panel_narrow)
{
	struct term		*t = panel_start();
	struct term_rect	 r;
	static const char	*cmd = "sh -c 'echo ready; exec sleep 1000'";

	e2e_run(t, cmd);
	e2e_run(t, "sleep 1000");
	EXPECT_IN(t, &screen, "Processes (2 running)", WAIT_MS);
	r = panel_resize(t, 30, 50);
	EXPECT_IN(t, &r, "[1] ◉ sh -c", WAIT_MS);
	EXPECT_IN(t, &r, "[2] ◉ sleep 1000", WAIT_MS);
	panel_press(t, TERM_KEY_CTRL_P, 1);
	term_key(t, TERM_KEY_CTRL_T);
	EXPECT_IN(t, &screen, "[Focused]", WAIT_MS);
	EXPECT_IN(t, &screen, "[1] sh -c 'echo ready;", WAIT_MS);
	term_resize(t, 30, 32);
	EXPECT_IN(t, &screen, "[F]", WAIT_MS);
	EXPECT_IN(t, &screen, "[1] sh -c 'ech", WAIT_MS);
	term_key(t, TERM_KEY_CTRL_T);
	term_close(t);
}
END_TEST

/*
 * A job that fails on its own: one line on the message row, a mark on
 * its entry until it is selected.
 */
START_TEST(test_panel_notice)
{
	struct term			*t = panel_start();
	static const struct term_rect	 bottom = { 39, 0, 1, 120 };
	static const struct term_rect	 r = { 0, 0, 39, 40 };

	e2e_run(t, "sleep 1000");
	e2e_run(t, "sh -c 'sleep 1; exit 2'");
	EXPECT_IN(t, &r, "[2] sh -c", WAIT_MS);
	panel_press(t, TERM_KEY_CTRL_P, 1);	/* job 1 shown */
	EXPECT_IN(t, &bottom, "[2] sh -c 'sleep 1; exit 2' failed (exited 2)",
	    WAIT_MS);
	EXPECT_IN(t, &r, "! [2] sh -c", WAIT_MS);
	term_key(t, TERM_KEY_CTRL_N);
	EXPECT_GONE_IN(t, &r, "! [2]", WAIT_MS);
	EXPECT_IN(t, &r, "[2] sh -c", WAIT_MS);
	term_close(t);
}
END_TEST

/* !rm, !clear and !rename typed at the prompt change the panel. */
START_TEST(test_panel_job_commands)
{
	struct term			*t = panel_start();
	static const struct term_rect	 bottom = { 39, 0, 1, 120 };
	static const struct term_rect	 r = { 0, 0, 39, 40 };

	e2e_run(t, "sleep 1000");
	e2e_run(t, "true");
	e2e_run(t, "echo two");
	e2e_run(t, "echo three");
	EXPECT_IN(t, &r, "Processes (1 running)", WAIT_MS);
	EXPECT_IN(t, &r, "[4] echo three", WAIT_MS);
	e2e_run(t, "!rm 1");
	EXPECT_IN(t, &bottom, "[1] is running: !kill it first", WAIT_MS);
	e2e_run(t, "!rm 2");
	EXPECT_GONE_IN(t, &r, "[2] true", WAIT_MS);
	EXPECT_IN(t, &r, "[1] sleep 1000", WAIT_MS);
	e2e_run(t, "!rename 1 napper");
	EXPECT_IN(t, &r, "[1] napper: sleep 1000", WAIT_MS);
	e2e_run(t, "!rename 1 'no good'");
	EXPECT_IN(t, &bottom, "rename: job name 'no good' may only have",
	    WAIT_MS);
	e2e_run(t, "!clear");
	EXPECT_IN(t, &bottom, "removed 2 finished jobs", WAIT_MS);
	EXPECT_GONE_IN(t, &r, "[3] echo", WAIT_MS);
	EXPECT_GONE_IN(t, &r, "[4] echo", WAIT_MS);
	EXPECT_IN(t, &r, "[1] napper: sleep 1000", WAIT_MS);
	term_close(t);
}
END_TEST

/* !ps stays live: a job that ends while it is shown changes state. */
START_TEST(test_panel_live_ps)
{
	struct term	*t = panel_start();
	int		 row, col;
	char		 line[512];

	e2e_run(t, "sleep 1000");
	e2e_run(t, "sh -c 'sleep 3; exit 3'");
	EXPECT_IN(t, &screen, "Processes (2 running)", WAIT_MS);
	e2e_run(t, "!ps");
	EXPECT_IN(t, &screen, "sh -c 'sleep 3; exit 3'", WAIT_MS);
	E2E_ASSERT(t, term_find(t, "sh -c 'sleep 3", &row, &col),
	    "no row of job 2");
	snprintf(line, sizeof line, "%s", term_row_text(t, row));
	E2E_ASSERT(t, strstr(line, "running") != NULL,
	    "job 2 is not running in !ps");
	/* No key pressed: the view redraws itself as job 2 fails. */
	EXPECT_IN(t, &screen, "failed", 3 * WAIT_MS);
	E2E_ASSERT(t, term_find(t, "sh -c 'sleep 3", &row, &col),
	    "no row of job 2");
	E2E_ASSERT(t, strstr(term_row_text(t, row), "failed") != NULL,
	    "job 2 is not failed in !ps");
	term_close(t);
}
END_TEST

/* The panel's cases. */
/*
 * settings.panel_width sets the panel's width (the pane's frame starts at
 * column 60), and settings.bell rings the bell (BEL) when a job fails;
 * without it no BEL is written.
 */
START_TEST(test_panel_width_bell)
{
	const char	*args[] = { "-c", NULL, NULL }, *raw;
	struct term	*t;
	struct term_cell c;
	size_t		 len;
	int		 bell;

	for (bell = 0; bell <= 1; bell++) {
		args[1] = e2e_cfg_write("config.toml", bell ?
		    "[settings]\npanel_width = 60\nbell = true\n" :
		    "[settings]\npanel_width = 60\n");
		t = e2e_start(args, NULL);
		E2E_ASSERT(t, term_cell(t, 0, 60, &c) == 0 &&
		    strcmp(c.text, "┌") == 0 && term_cell(t, 0, 59, &c) == 0 &&
		    strcmp(c.text, "┐") == 0,
		    "panel_width = 60: the pane does not start at column 60");
		term_raw_start(t);
		e2e_run(t, "sh -c 'exit 3'");
		EXPECT_IN(t, &screen, "failed (exited 3)", WAIT_MS);
		term_pump(t, 200);
		term_raw_stop(t);
		raw = term_raw_bytes(t, &len);
		E2E_ASSERT(t, (memchr(raw, '\a', len) != NULL) == bell,
		    bell ? "bell = true: no BEL when the job failed" :
		    "bell = false: a BEL was written");
		term_close(t);
		e2e_cfg_remove();
	}
}
END_TEST

/*
 * A job spawned over the control socket with --agent carries the mark
 * "agent NAME": on its entry's third line before "Last output", on the
 * right of its one line when narrow, and in !ps; a job typed at the
 * prompt has none.
 */
START_TEST(test_panel_agent)
{
	const char *const	 args[] = { "-c", "/dev/null", "-S", "agentdeck",
				    NULL };
	const char *const	 spawn[] = { "spawn", "--agent", "claude-code",
				    "--", "sleep 1000", NULL };
	static const struct term_rect	 wide = { 0, 0, 39, 40 };
	struct term		*t;
	struct term_rect	 r;
	char			 run[256], *out;
	int			 status, row, col, hrow, hcol;

	t = e2e_start(args, NULL);
	ck_assert(snprintf(run, sizeof run, "%s/run", term_tmpdir(t)) <
	    (int)sizeof run);
	e2e_run(t, "sleep 2000");
	EXPECT_IN(t, &wide, "[1] sleep 2000", WAIT_MS);
	out = e2e_ctl(t, "agentdeck", run, spawn, 1, WAIT_MS, &status);
	E2E_ASSERT(t, status == 0, out);
	free(out);
	EXPECT_IN(t, &wide, "[2] sleep 1000", WAIT_MS);
	EXPECT_IN(t, &wide, "Running for", WAIT_MS);
	EXPECT_IN(t, &wide, "agent claude-code · Last output:", WAIT_MS);
	E2E_ASSERT(t, term_find_in(t, &wide, "agent claude-code", &row, &col),
	    "no mark");
	E2E_ASSERT(t, term_find_in(t, &wide, "[2] sleep 1000", &hrow, &hcol) &&
	    row == hrow + 2, "the mark is not on job 2's third line");
	E2E_ASSERT(t, term_find_in(t, &wide, "[1] sleep 2000", &hrow, &hcol) &&
	    row != hrow + 2, "job 1 is marked");

	r = panel_resize(t, 30, 50);
	EXPECT_IN(t, &r, "[2] ◉ sleep 1000", WAIT_MS);
	EXPECT_IN(t, &r, "agent claude-code", WAIT_MS);
	E2E_ASSERT(t, term_find_in(t, &r, "agent claude-code", &row, &col) &&
	    term_find_in(t, &r, "[2] ◉", &hrow, &hcol) && row == hrow,
	    "narrow: the mark is not on job 2's line");

	panel_resize(t, 40, 120);
	e2e_run(t, "!ps");
	EXPECT_IN(t, &screen, "sleep 1000  (agent claude-code)", WAIT_MS);
	term_close(t);
}
END_TEST

/*
 * Jobs blocked reading their terminal (issue 16): "⌨ Waiting for input"
 * and "⌨ Waiting for password" in place of "◉ Active"; the short forms
 * in a narrow panel, the symbol in one-line entries; !ps says it, and
 * input sent ends it.
 */
START_TEST(test_panel_input)
{
	struct term		*t = panel_start();
	struct term_rect	 r = panel_rect(40, 120);
	int			 row, col, hrow, hcol;

	/* Short commands: !ps shows what they wait for after them. */
	e2e_run(t, "bash -c 'read -p n: v;sleep 99'");
	e2e_run(t, "bash -c 'read -s v'");
	e2e_run(t, "sleep 1000");
	EXPECT_IN(t, &screen, "Processes (3 running)", WAIT_MS);
	EXPECT_IN(t, &r, "⌨ Waiting for input", WAIT_MS);
	EXPECT_IN(t, &r, "⌨ Waiting for password", WAIT_MS);
	E2E_ASSERT(t, term_find_in(t, &r, "Waiting for input", &row, &col) &&
	    term_find_in(t, &r, "[1] bash -c 'read -p n:", &hrow, &hcol) &&
	    row == hrow + 1, "the input mark is not on job 1's second line");
	E2E_ASSERT(t, term_find_in(t, &r, "Waiting for password", &row,
	    &col) && term_find_in(t, &r, "[2] bash -c 'read -s v'", &hrow,
	    &hcol) && row == hrow + 1,
	    "the password mark is not on job 2's second line");
	E2E_ASSERT(t, term_find_in(t, &r, "◉ Active", &row, &col) &&
	    term_find_in(t, &r, "[3] sleep 1000", &hrow, &hcol) &&
	    row == hrow + 1, "job 3 is not active");

	/* A narrow panel (32 columns): the short forms. */
	r = panel_resize(t, 40, 96);
	EXPECT_IN(t, &r, "⌨ Input", WAIT_MS);
	EXPECT_IN(t, &r, "⌨ Password", WAIT_MS);
	/* One line a job: the symbol. */
	r = panel_resize(t, 30, 50);
	EXPECT_IN(t, &r, "[1] ⌨ bash -c", WAIT_MS);
	EXPECT_IN(t, &r, "[2] ⌨ bash -c", WAIT_MS);
	EXPECT_IN(t, &r, "[3] ◉ sleep 1000", WAIT_MS);

	r = panel_resize(t, 40, 120);
	e2e_run(t, "!ps");
	EXPECT_IN(t, &screen, "(waiting for input)", WAIT_MS);
	EXPECT_IN(t, &screen, "(waiting for password)", WAIT_MS);
	term_type(t, "q");
	e2e_run(t, "!send 1 bob\\n");
	EXPECT_GONE_IN(t, &r, "Waiting for input", WAIT_MS);
	EXPECT_IN(t, &r, "Waiting for password", WAIT_MS);
	term_close(t);
}
END_TEST

/*
 * Issue 24: the pane's title names a job as the panel does ("NAME:
 * COMMAND"), and a command's newline shows escaped (\n) in the panel, the
 * title, the focus hint and !ps alike, never as '?'.
 */
START_TEST(test_panel_label)
{
	struct term			*t = panel_start();
	static const struct term_rect	 r = { 0, 0, 39, 40 };
	static const struct term_rect	 title = { 0, 40, 1, 80 };
	static const struct term_rect	 bottom = { 39, 0, 1, 120 };

	e2e_run(t, "!spawn --name tests -- sleep 1000");
	EXPECT_IN(t, &r, "[1] tests: sleep 1000", WAIT_MS);
	EXPECT_IN(t, &title, "[1] tests: sleep 1000", WAIT_MS);

	/* A pasted newline: one job, its command escaped everywhere. */
	term_paste(t, "echo a\rsleep 1000");
	term_key(t, TERM_KEY_ENTER);
	EXPECT_IN(t, &r, "[2] echo a\\nsleep 1000", WAIT_MS);
	EXPECT_IN(t, &title, "[2] echo a\\nsleep 1000", WAIT_MS);
	E2E_ASSERT(t, !term_find(t, "echo a?sleep", NULL, NULL),
	    "a newline shows as ?");
	term_key(t, TERM_KEY_CTRL_T);
	EXPECT_IN(t, &bottom, "keys go to [2] echo a\\nsleep 1000  ·  C-t: "
	    "back", WAIT_MS);
	term_key(t, TERM_KEY_CTRL_T);
	EXPECT_GONE_IN(t, &bottom, "[Focused]", WAIT_MS);
	e2e_run(t, "!ps");
	EXPECT_IN(t, &screen, "tests: sleep 1000", WAIT_MS);
	EXPECT_IN(t, &screen, "echo a\\nsleep 1000", WAIT_MS);
	term_type(t, "q");
	term_close(t);
}
END_TEST

/* Whether the panel's title row (within r) has as many ( as ). */
static int
panel_title_balanced(struct term *t, const struct term_rect *r)
{
	struct term_rect	 row = { r->row, r->col, 1, r->cols };
	const char		*s = term_text_in(t, &row);
	int			 depth = 0;

	for (; *s != '\0'; s++) {
		if (*s == '(')
			depth++;
		else if (*s == ')' && --depth < 0)
			return 0;
	}
	return depth == 0;
}

/*
 * Issue 24: a panel too narrow for "Processes (20 running)" cuts inside
 * the brackets and keeps the ")" (at 80 columns it lost it), also beside
 * the "↑ N more" mark.
 */
START_TEST(test_panel_title_narrow)
{
	struct term		*t = panel_start();
	struct term_rect	 r;

	panel_sleepers(t, 20);
	r = panel_resize(t, 24, 80);
	EXPECT_IN(t, &r, "Processes (20 run", WAIT_MS);
	E2E_ASSERT(t, panel_title_balanced(t, &r),
	    "the panel's title lost its closing bracket");
	/* 80x16: jobs above the panel, their mark in the same border. */
	term_resize(t, 16, 80);
	r = panel_rect(16, 80);
	EXPECT_IN(t, &r, "↑ 7 more", WAIT_MS);
	EXPECT_IN(t, &r, "Processes", WAIT_MS);
	E2E_ASSERT(t, panel_title_balanced(t, &r),
	    "the panel's title lost its closing bracket beside ↑");
	term_close(t);
}
END_TEST

static Suite *
panel_suite(void)
{
	static const struct e2e_case	cases[] = {
		{ "panel_resize", &test_panel_resize, 40 },
		{ "panel_zoom", &test_panel_zoom, 20 },
		{ "panel_narrow", &test_panel_narrow, 20 },
		{ "panel_notice", &test_panel_notice, 20 },
		{ "panel_job_commands", &test_panel_job_commands, 20 },
		{ "panel_live_ps", &test_panel_live_ps, 20 },
		{ "panel_width_bell", &test_panel_width_bell, 30 },
		{ "panel_agent", &test_panel_agent, 30 },
		{ "panel_input", &test_panel_input, 40 },
		{ "panel_label", &test_panel_label, 20 },
		{ "panel_title_narrow", &test_panel_title_narrow, 40 },
	};
	Suite				*s = suite_create("panel_e2e");

	e2e_add_cases(s, cases, sizeof cases / sizeof cases[0]);
	return s;
}

/* Run the suite; the exit status says whether every test passed. */
int
main(void)
{
	return e2e_main(panel_suite());
}

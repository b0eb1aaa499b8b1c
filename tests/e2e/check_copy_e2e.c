/*
 * check_copy_e2e.c: end-to-end tests of copy mode and search (issue 12):
 * the real binary on a 120x40 pty (tests/e2e/term.h), keys typed, the
 * screen read back, the bytes it writes to the terminal captured raw (OSC
 * 52), and a paste checked in the file a `cat` wrote.  Layout as in
 * check_e2e.c: the panel is columns 0-39, the pane columns 40-119 with its
 * title on row 0 and its body on rows 1-37; row 39 is the bottom line.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "e2e/e2e.h"

#define WAIT_MS		5000

static const struct term_rect	panel = { 0, 0, 39, 40 };
static const struct term_rect	pane = { 1, 41, 37, 78 };	/* body */
static const struct term_rect	pane_title = { 0, 40, 1, 80 };
static const struct term_rect	bottom = { 39, 0, 1, 120 };

#define EXPECT_LINE(t, r, text, ms)					\
	ck_assert_msg(copy_wait_line((t), (r), (text), (ms)) >= 0,	\
	    "no line \"%s\" in %s after %d ms\n%s", (text), #r, (ms),	\
	    term_dump(t))

/* Start jobdeck (-c cfg, /dev/null if NULL) and wait for its panel. */
static struct term *
copy_start(const char *cfg)
{
	const char	*args[3];

	args[0] = "-c";
	args[1] = cfg != NULL ? cfg : "/dev/null";
	args[2] = NULL;
	return e2e_start(args, NULL);
}

/*
 * Return the row of r holding a line that is text once blanks are
 * stripped (its first column in *col), or -1.  Only rows of ASCII count:
 * r is a pane's body, whose seq output is one byte a cell.
 */
static int
copy_find_line(struct term *t, const struct term_rect *r, const char *text,
    int *col)
{
	struct term_rect	 one = *r;
	const char		*s;
	size_t			 n, start;

	for (one.row = r->row; one.row < r->row + r->rows; one.row++) {
		one.rows = 1;
		s = term_text_in(t, &one);
		start = strspn(s, " ");
		n = strlen(s);
		while (n > start && (s[n - 1] == ' ' || s[n - 1] == '\n'))
			n--;
		if (n - start == strlen(text) &&
		    memcmp(s + start, text, n - start) == 0) {
			if (col != NULL)
				*col = r->col + (int)start;
			return one.row;
		}
	}
	return -1;
}

/* Wait up to ms for a line of r that is text; its row, or -1. */
static int
copy_wait_line(struct term *t, const struct term_rect *r, const char *text,
    int ms)
{
	int64_t	deadline = term_now_ms() + ms;
	int	row;

	while ((row = copy_find_line(t, r, text, NULL)) < 0 &&
	    term_now_ms() < deadline)
		term_pump(t, 30);
	return row;
}

/* Type a key n times, letting the screen catch up. */
static void
copy_keys(struct term *t, const char *key, int n)
{
	int	i;

	for (i = 0; i < n; i++) {
		term_type(t, key);
		term_pump(t, 5);
	}
}

/* Select job id: C-n until the pane's title names it. */
static void
copy_select(struct term *t, int id)
{
	char	want[16];
	int	i;

	snprintf(want, sizeof want, "[%d] ", id);
	for (i = 0; i < 10 && !term_wait_text_in(t, &pane_title, want, 200);
	    i++)
		term_key(t, TERM_KEY_CTRL_N);
	EXPECT_IN(t, &pane_title, want, WAIT_MS);
}

/* Read a command's output into buf; returns its length. */
static size_t
copy_popen(const char *cmd, char *buf, size_t size)
{
	FILE	*f;
	size_t	 n;

	f = popen(cmd, "r");
	ck_assert_ptr_nonnull(f);
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	pclose(f);
	return n;
}

/* Tell whether the cell at row, col is drawn reversed. */
static int
copy_reversed(struct term *t, int row, int col)
{
	struct term_cell	c;

	return term_cell(t, row, col, &c) == 0 && c.reverse;
}

/*
 * Copy mode across a scrolled region: seq 1 300 in job 1, C-v, up past
 * the screen with C-u, v, j down to 180, $ and y; the selection is drawn
 * reversed, OSC 52 carries its base64, and C-y pastes it into `cat >
 * copied` (job 2), whose file then holds exactly `seq 120 180`.
 */
START_TEST(test_copy_paste)
{
	struct term	*t = copy_start(NULL);
	char		 want[4096], got[4096], b64[8192], osc[8300];
	const char	*raw;
	size_t		 wlen, rlen;
	ssize_t		 n = -1;
	int64_t		 deadline;
	int		 row, col;

	e2e_run(t, "seq 1 300");
	EXPECT_IN(t, &panel, "✓ Done", WAIT_MS);
	e2e_run(t, "cat > copied");
	EXPECT_IN(t, &panel, "cat > copied", WAIT_MS);
	copy_select(t, 1);
	EXPECT_LINE(t, &pane, "300", WAIT_MS);

	term_type(t, "\026");		/* C-v */
	EXPECT_IN(t, &pane_title, "[Copy]", WAIT_MS);
	EXPECT_IN(t, &pane_title, "300/300", WAIT_MS);
	/* The panel and the bottom line stay. */
	EXPECT_IN(t, &panel, "Processes (", WAIT_MS);
	copy_keys(t, "\025", 10);	/* C-u: 10 half pages of 18 */
	EXPECT_IN(t, &pane_title, "120/300", WAIT_MS);
	EXPECT_LINE(t, &pane, "120", WAIT_MS);
	term_type(t, "0v");
	copy_keys(t, "j", 60);
	term_type(t, "$");
	EXPECT_IN(t, &pane_title, "180/300", WAIT_MS);
	/* Line 120 scrolled away; what is shown of the selection is reversed. */
	row = copy_find_line(t, &pane, "150", &col);
	E2E_ASSERT(t, row >= 0, "no line 150 in the pane");
	E2E_ASSERT(t, copy_reversed(t, row, col) &&
	    copy_reversed(t, row, col + 2), "line 150 is not drawn reversed");
	row = copy_find_line(t, &pane, "180", &col);
	E2E_ASSERT(t, row >= 0 && copy_reversed(t, row, col), "line 180 is "
	    "not drawn reversed");

	term_raw_start(t);
	term_type(t, "y");
	EXPECT_IN(t, &bottom, "copied 61 lines", WAIT_MS);
	ck_assert_msg(term_wait_gone_in(t, &pane_title, "[Copy]", WAIT_MS),
	    "copy mode did not end\n%s", term_dump(t));
	wlen = copy_popen("seq 120 180", want, sizeof want);
	copy_popen("seq 120 180 | base64 -w0", b64, sizeof b64);
	snprintf(osc, sizeof osc, "\033]52;c;%s\a", b64);
	raw = term_raw_bytes(t, &rlen);
	if (getenv("COPY_DEBUG") != NULL)
		fwrite(raw, 1, rlen, stderr);
	E2E_ASSERT(t, strstr(raw, osc) != NULL, e2e_fmt("no OSC 52 with "
	    "the copy's base64 in the %zu bytes written", rlen));
	term_raw_stop(t);

	copy_select(t, 2);
	term_type(t, "\031");		/* C-y */
	deadline = term_now_ms() + WAIT_MS;
	while (term_now_ms() < deadline) {
		n = e2e_read_file(t, "copied", got, sizeof got);
		if (n == (ssize_t)wlen)
			break;
		term_pump(t, 50);
	}
	E2E_ASSERT(t, n == (ssize_t)wlen && memcmp(got, want, wlen) == 0,
	    e2e_fmt("cat wrote %zd bytes, not the %zu of seq 120 180:\n%s",
	    n, wlen, n > 0 ? got : ""));
	/* The pty echoed the paste on cat's screen. */
	EXPECT_LINE(t, &pane, "180", WAIT_MS);
	term_close(t);
}
END_TEST

/*
 * With clipboard = false a copy goes to the paste buffer only: no OSC 52
 * is written.
 */
START_TEST(test_copy_no_clipboard)
{
	char		 dir[] = "/tmp/jd-copy-cfg.XXXXXX", path[128], cmd[160];
	const char	*text = "[settings]\nclipboard = false\n", *raw;
	struct term	*t;
	size_t		 rlen;
	int		 fd;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/jobdeck.toml", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	t = copy_start(path);
	e2e_run(t, "echo hello");
	EXPECT_IN(t, &panel, "✓ Done", WAIT_MS);
	term_type(t, "\026");
	EXPECT_IN(t, &pane_title, "[Copy]", WAIT_MS);
	term_raw_start(t);
	term_type(t, "y");
	EXPECT_IN(t, &bottom, "copied 1 line (5 bytes) to the paste buffer",
	    WAIT_MS);
	raw = term_raw_bytes(t, &rlen);
	E2E_ASSERT(t, strstr(raw, "\033]52;") == NULL, "OSC 52 written with "
	    "clipboard = false");
	term_close(t);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
}
END_TEST

/*
 * Search in a pane: C-s, a pattern, Enter: the cursor's line and the
 * match (drawn reversed) are on the screen; n goes to the next match.
 */
START_TEST(test_copy_search_pane)
{
	struct term	*t = copy_start(NULL);
	int		 row, col;

	e2e_run(t, "seq 1 300");
	EXPECT_IN(t, &panel, "✓ Done", WAIT_MS);
	EXPECT_LINE(t, &pane, "300", WAIT_MS);
	term_type(t, "\023");		/* C-s */
	EXPECT_IN(t, &pane_title, "[Copy]", WAIT_MS);
	EXPECT_IN(t, &bottom, "/", WAIT_MS);
	term_type(t, "25");
	term_key(t, TERM_KEY_ENTER);
	/* From the last line forward: it wraps to the first match, 25. */
	EXPECT_IN(t, &pane_title, "25/300", WAIT_MS);
	EXPECT_IN(t, &bottom, "search wrapped", WAIT_MS);
	row = copy_wait_line(t, &pane, "25", WAIT_MS);
	E2E_ASSERT(t, row >= 0, "the match's line is not on the screen");
	copy_find_line(t, &pane, "25", &col);
	E2E_ASSERT(t, copy_reversed(t, row, col) &&
	    copy_reversed(t, row, col + 1), "the match is not highlighted");
	term_type(t, "n");
	EXPECT_IN(t, &pane_title, "125/300", WAIT_MS);
	row = copy_wait_line(t, &pane, "125", WAIT_MS);
	E2E_ASSERT(t, row >= 0, "the next match's line is not on the screen");
	copy_find_line(t, &pane, "125", &col);
	E2E_ASSERT(t, !copy_reversed(t, row, col) &&
	    copy_reversed(t, row, col + 1) && copy_reversed(t, row, col + 2),
	    "the match in 125 is not highlighted alone");
	term_type(t, "q");
	ck_assert_msg(term_wait_gone_in(t, &pane_title, "[Copy]", WAIT_MS),
	    "q did not leave copy mode\n%s", term_dump(t));
	term_close(t);
}
END_TEST

/* /5000 in !logs of a job that printed seq 10000 shows line 5000. */
START_TEST(test_copy_search_logs)
{
	struct term	*t = copy_start(NULL);

	e2e_run(t, "seq 10000");
	EXPECT_IN(t, &panel, "✓ Done", WAIT_MS);
	e2e_run(t, "!logs 1");
	EXPECT_IN(t, NULL, "of 10000", WAIT_MS);
	term_type(t, "/5000");
	term_key(t, TERM_KEY_ENTER);
	EXPECT_IN(t, NULL, "5000-", WAIT_MS);
	ck_assert_msg(copy_wait_line(t, &(struct term_rect){ 1, 1, 37, 118 },
	    "5000", WAIT_MS) >= 0, "no line 5000 on the screen\n%s",
	    term_dump(t));
	/* Half a page down (C-d), from the table. */
	term_type(t, "\004");
	EXPECT_IN(t, NULL, "5018-", WAIT_MS);
	term_close(t);
}
END_TEST

/* The suite: one case each, generous timeouts for a loaded machine. */
static Suite *
copy_suite(void)
{
	static const struct e2e_case	cases[] = {
		{ "copy_paste", &test_copy_paste, 40 },
		{ "copy_no_clipboard", &test_copy_no_clipboard, 20 },
		{ "copy_search_pane", &test_copy_search_pane, 20 },
		{ "copy_search_logs", &test_copy_search_logs, 20 },
	};
	Suite				*s = suite_create("copy_e2e");

	e2e_add_cases(s, cases, sizeof cases / sizeof cases[0]);
	return s;
}

/* Run the suite; the exit status says whether every test passed. */
int
main(void)
{
	return e2e_main(copy_suite());
}

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
 * Search in a pane: C-s, a pattern, Enter: from the live bottom it goes
 * back, so the first match is the newest (259 of seq 1 300, not 25); the
 * cursor's line and the match (drawn reversed) are on the screen; n goes
 * on backward (258), N turns forward again (259).
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
	EXPECT_IN(t, &pane_title, "259/300", WAIT_MS);
	E2E_ASSERT(t, !term_find_in(t, &bottom, "search wrapped", NULL, NULL),
	    "the search from the bottom wrapped");
	row = copy_wait_line(t, &pane, "259", WAIT_MS);
	E2E_ASSERT(t, row >= 0, "the match's line is not on the screen");
	copy_find_line(t, &pane, "259", &col);
	E2E_ASSERT(t, copy_reversed(t, row, col) &&
	    copy_reversed(t, row, col + 1) && !copy_reversed(t, row, col + 2),
	    "the match in 259 is not highlighted alone");
	term_type(t, "n");
	EXPECT_IN(t, &pane_title, "258/300", WAIT_MS);
	row = copy_wait_line(t, &pane, "258", WAIT_MS);
	E2E_ASSERT(t, row >= 0, "the next match's line is not on the screen");
	term_type(t, "N");
	EXPECT_IN(t, &pane_title, "259/300", WAIT_MS);
	/* Up at the first matches, n goes on to 225, 125 and 25. */
	copy_keys(t, "n", 10);
	EXPECT_IN(t, &pane_title, "225/300", WAIT_MS);
	copy_keys(t, "n", 2);
	EXPECT_IN(t, &pane_title, " 25/300", WAIT_MS);
	term_type(t, "q");
	ck_assert_msg(term_wait_gone_in(t, &pane_title, "[Copy]", WAIT_MS),
	    "q did not leave copy mode\n%s", term_dump(t));
	term_close(t);
}
END_TEST

/*
 * In !logs following a live run, / searches back from the end too: the
 * newest match first (259), n the one before (258).
 */
START_TEST(test_copy_search_following)
{
	struct term	*t = copy_start(NULL);

	e2e_run(t, "seq 1 300; exec sleep 1000");
	EXPECT_LINE(t, &pane, "300", WAIT_MS);
	e2e_run(t, "!logs 1");
	EXPECT_IN(t, NULL, "following", WAIT_MS);
	EXPECT_IN(t, NULL, "of 300", WAIT_MS);
	term_type(t, "/25");
	term_key(t, TERM_KEY_ENTER);
	EXPECT_IN(t, NULL, "259-295 of 300", WAIT_MS);
	term_type(t, "n");
	EXPECT_IN(t, NULL, "258-294 of 300", WAIT_MS);
	term_type(t, "N");
	term_type(t, "N");
	EXPECT_IN(t, &bottom, "search wrapped", WAIT_MS);
	EXPECT_IN(t, NULL, "25-61 of 300", WAIT_MS);
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

/*
 * Return the row of r whose text (blanks stripped) starts with prefix and
 * holds text too, or -1; its first column in *col.
 */
static int
copy_find_row(struct term *t, const struct term_rect *r, const char *prefix,
    const char *text, int *col)
{
	struct term_rect	 one = *r;
	const char		*s;
	size_t			 start;

	for (one.row = r->row; one.row < r->row + r->rows; one.row++) {
		one.rows = 1;
		s = term_text_in(t, &one);
		start = strspn(s, " ");
		if (strncmp(s + start, prefix, strlen(prefix)) == 0 &&
		    strstr(s + start, text) != NULL) {
			if (col != NULL)
				*col = r->col + (int)start;
			return one.row;
		}
	}
	return -1;
}

/* Wait up to ms for copy_find_row() to find a row; the row, or -1. */
static int
copy_wait_row(struct term *t, const struct term_rect *r, const char *prefix,
    const char *text, int *col, int ms)
{
	int64_t	deadline = term_now_ms() + ms;
	int	row;

	while ((row = copy_find_row(t, r, prefix, text, col)) < 0 &&
	    term_now_ms() < deadline)
		term_pump(t, 30);
	return row;
}

/* Tell whether row of r (blanks stripped) starts with prefix, holds text. */
static int
copy_row_has(struct term *t, const struct term_rect *r, int row,
    const char *prefix, const char *text)
{
	struct term_rect	 one = *r;

	one.row = row;
	one.rows = 1;
	return copy_find_row(t, &one, prefix, text, NULL) == row;
}

/*
 * Wait up to ms for the line text (prefix and text: a row starting with
 * prefix and holding text) to be on row of r; whether it came.
 */
static int
copy_wait_at(struct term *t, const struct term_rect *r, const char *prefix,
    const char *text, int row, int ms)
{
	int64_t	deadline = term_now_ms() + ms;

	for (;;) {
		if (prefix != NULL ? copy_row_has(t, r, row, prefix, text) :
		    copy_find_line(t, r, text, NULL) == row)
			return 1;
		if (term_now_ms() >= deadline)
			return 0;
		term_pump(t, 30);
	}
}

/* Wait up to ms for name in the deck's directory to hold text. */
static int
copy_wait_file(struct term *t, const char *name, const char *text, int ms)
{
	int64_t	deadline = term_now_ms() + ms;
	char	buf[256];

	do {
		if (e2e_read_file(t, name, buf, sizeof buf) >= 0 &&
		    strcmp(buf, text) == 0)
			return 1;
		term_pump(t, 30);
	} while (term_now_ms() < deadline);
	return 0;
}

/*
 * The script of the run tests: a counter in the file count, run n
 * printing what the case asks (its first argument selects the case).
 */
static const char copy_runs_sh[] =
    "n=$(cat count 2>/dev/null || echo 0); n=$((n + 1))\n"
    "echo $n > count\n"
    "case $1.$n in\n"
    "marks.1) printf 'partial-one'; exit 1;;\n"
    "marks.2) printf '\\033[?1049h\\033[7malt-text\\033]0;half'; exit 2;;\n"
    "marks.*) echo third-run; exec sleep 1000;;\n"
    "runs.*) echo run-$n-begin; i=0\n"
    "    while [ $i -lt 50 ]; do echo fill-$n-$i; i=$((i + 1)); done\n"
    "    echo run-$n-end; [ $n -ge 3 ] && exec sleep 1000; exit $n;;\n"
    "esac\n";

/*
 * Run marks: a job restarted with !restart goes on in the same pane under
 * a reversed mark line of its own, "── run 2 · HH:MM:SS · restarted
 * (exited 1) ──", on a fresh line after a partial one; a run that died on
 * the alternate screen, reversed and inside an OSC string leaves the next
 * run a sane screen: its text shows, on the main screen, not reversed.
 */
START_TEST(test_copy_run_marks)
{
	struct term	*t = copy_start(NULL);
	int		 r1, r2, r3, r4, col;

	e2e_put_file(term_tmpdir(t), "runs.sh", copy_runs_sh, 0600);
	e2e_run(t, "sh runs.sh marks");
	EXPECT_IN(t, &panel, "Exited 1", WAIT_MS);
	EXPECT_LINE(t, &pane, "partial-one", WAIT_MS);
	e2e_run(t, "!restart 1");
	E2E_ASSERT(t, copy_wait_file(t, "count", "2\n", WAIT_MS),
	    "!restart did not run the job again");
	EXPECT_IN(t, &panel, "Exited 2", WAIT_MS);
	e2e_run(t, "!restart 1");
	EXPECT_LINE(t, &pane, "third-run", WAIT_MS);
	r1 = copy_find_line(t, &pane, "partial-one", NULL);
	r2 = copy_wait_row(t, &pane, "── run 2 · ",
	    " · restarted (exited 1) ──", &col, WAIT_MS);
	E2E_ASSERT(t, r2 >= 0 && copy_reversed(t, r2, col),
	    "no reversed mark of run 2");
	r3 = copy_wait_row(t, &pane, "── run 3 · ",
	    " · restarted (exited 2) ──", NULL, WAIT_MS);
	r4 = copy_find_line(t, &pane, "third-run", &col);
	E2E_ASSERT(t, r1 >= 0 && r1 < r2 && r2 < r3 && r3 < r4,
	    e2e_fmt("rows %d, %d, %d, %d: not partial-one, the marks and "
	    "third-run in order", r1, r2, r3, r4));
	E2E_ASSERT(t, !copy_reversed(t, r4, col), "the third run's text is "
	    "drawn reversed");
	E2E_ASSERT(t, !term_find_in(t, &pane, "alt-text", NULL, NULL),
	    "the pane is still on the second run's alternate screen");
	term_close(t);
}
END_TEST

/* The body of a text view over the whole screen. */
static const struct term_rect	view = { 1, 1, 37, 118 };

/* Run `jobdeck ctl ARGS...` beside t's deck; assert it answered 0. */
static void
copy_ctl(struct term *t, const char *const *args)
{
	char	 run[1024], *out;
	int	 status;

	snprintf(run, sizeof run, "%s/run", term_tmpdir(t));
	out = e2e_ctl(t, "default", run, args, 1, WAIT_MS, &status);
	E2E_ASSERT(t, status == 0, e2e_fmt("ctl %s: %s", args[0], out));
	free(out);
}

/*
 * Earlier runs: !logs of a restarted job reaches its earlier runs above
 * the current one, each after its mark (g: the first run's first line; a
 * backward search finds text in an earlier run); a followed view goes on
 * into a run started while it is open; !logs of the ended job opens on
 * its last run, and scrolling up shows that run's mark, then the end of
 * the one before; copy mode reaches the first run too.
 */
START_TEST(test_copy_earlier_runs)
{
	const char *const	 restart[] = { "restart", "1", NULL };
	const char *const	 kill[] = { "kill", "1", NULL };
	struct term		*t = copy_start(NULL);
	int			 r1, r2, r3;

	e2e_put_file(term_tmpdir(t), "runs.sh", copy_runs_sh, 0600);
	e2e_run(t, "sh runs.sh runs");
	EXPECT_IN(t, &panel, "Exited 1", WAIT_MS);
	e2e_run(t, "!restart 1");
	EXPECT_IN(t, &panel, "Exited 2", WAIT_MS);
	e2e_run(t, "!restart 1");
	EXPECT_LINE(t, &pane, "run-3-end", WAIT_MS);

	/* Following the live run; g goes up to the first run's start. */
	e2e_run(t, "!logs 1");
	EXPECT_IN(t, NULL, "following", WAIT_MS);
	EXPECT_LINE(t, &view, "run-3-end", WAIT_MS);
	term_type(t, "g");
	EXPECT_IN(t, NULL, "run 1/3 · 1-37 of 52", WAIT_MS);
	E2E_ASSERT(t, copy_wait_at(t, &view, NULL, "run-1-begin", 1, WAIT_MS),
	    "the first run's first line is not at the top");
	/* The second page: lines 37-73, the run 1's 52 and a mark first. */
	term_type(t, "f");
	r1 = copy_wait_at(t, &view, NULL, "run-1-end", 15, WAIT_MS);
	r2 = copy_wait_at(t, &view, "── run 2 · ",
	    " · restarted (exited 1) ──", 16, WAIT_MS);
	r3 = copy_wait_at(t, &view, NULL, "run-2-begin", 17, WAIT_MS);
	E2E_ASSERT(t, r1 && r2 && r3, "not run-1-end, the mark of run 2 and "
	    "run-2-begin on rows 15, 16, 17");

	/* Back at the end, a restart comes into the followed view. */
	term_type(t, "G");
	EXPECT_IN(t, NULL, "following", WAIT_MS);
	copy_ctl(t, restart);
	EXPECT_LINE(t, &view, "run-4-end", WAIT_MS);
	EXPECT_IN(t, NULL, "run 4/4", WAIT_MS);
	term_type(t, "?run-1-beg");
	term_key(t, TERM_KEY_ENTER);
	EXPECT_LINE(t, &view, "run-1-begin", WAIT_MS);
	EXPECT_IN(t, NULL, "run 1/4 · 1-", WAIT_MS);
	term_type(t, "q");
	EXPECT_IN(t, &panel, "Processes (", WAIT_MS);

	/* The ended job's log opens on its last run; up is the one before. */
	copy_ctl(t, kill);
	EXPECT_IN(t, &panel, "Canceled", WAIT_MS);
	e2e_run(t, "!logs 1");
	EXPECT_IN(t, NULL, "run 4/4 · 1-37 of 52", WAIT_MS);
	E2E_ASSERT(t, copy_wait_at(t, &view, NULL, "run-4-begin", 1, WAIT_MS),
	    "the last run's first line is not at the top");
	term_type(t, "k");
	E2E_ASSERT(t, copy_wait_at(t, &view, "── run 4 · ",
	    " · restarted (killed by SIGTERM) ──", 1, WAIT_MS),
	    "no mark of run 4 at the top after k");
	term_type(t, "k");
	EXPECT_IN(t, NULL, "run 3/4", WAIT_MS);
	E2E_ASSERT(t, copy_wait_at(t, &view, NULL, "run-3-end", 1, WAIT_MS),
	    "the third run's end is not at the top after k k");
	term_type(t, "q");
	EXPECT_IN(t, &panel, "Processes (", WAIT_MS);

	/* Copy mode reaches the first run. */
	term_type(t, "\026");		/* C-v */
	EXPECT_IN(t, &pane_title, "run 4/4 · 52/52", WAIT_MS);
	term_type(t, "g");
	EXPECT_IN(t, &pane_title, "run 1/4 · 1/52", WAIT_MS);
	EXPECT_LINE(t, &pane, "run-1-begin", WAIT_MS);
	term_close(t);
}
END_TEST

/*
 * A job of 1,000 runs: !logs opens on a page of its last runs (the view
 * reads the runs before them only as it reaches them), g goes up to the
 * first run and G back to the last; copy mode's g too.
 */
START_TEST(test_copy_thousand_runs)
{
	static const char	 script[] =
	    "d=$(dirname \"$0\"); n=$(cat \"$d/count\" 2>/dev/null || "
	    "echo 0)\nn=$((n + 1)); echo $n > \"$d/count\"; echo run-$n-only\n"
	    "[ $n -lt 1000 ] || exec sleep 1000\n";
	const char		*args[3];
	struct term		*t;
	char			 dir[256], cfg[512], buf[64], last[64];
	int64_t			 deadline;

	snprintf(dir, sizeof dir, "%s", e2e_cfg_write("many.sh", script));
	*strrchr(dir, '/') = '\0';
	snprintf(cfg, sizeof cfg, "[[job]]\nname = \"many\"\n"
	    "command = \"sh %s/many.sh\"\nrestart = \"always\"\n"
	    "restart_delay = 0\nmax_restarts = 0\n", dir);
	e2e_put_file(dir, "config.toml", cfg, 0600);
	snprintf(cfg, sizeof cfg, "%s/config.toml", dir);
	args[0] = "-c";
	args[1] = cfg;
	args[2] = NULL;
	t = e2e_start(args, NULL);
	/* However slow the machine, the runs go on: a stall is a failure. */
	deadline = term_now_ms() + 30000;
	last[0] = '\0';
	while (strcmp(e2e_get_file(dir, "count", buf, sizeof buf),
	    "1000\n") != 0 && term_now_ms() < deadline) {
		if (strcmp(buf, last) != 0) {
			snprintf(last, sizeof last, "%s", buf);
			deadline = term_now_ms() + 30000;
		}
		term_pump(t, 100);
	}
	E2E_ASSERT(t, strcmp(buf, "1000\n") == 0, e2e_fmt("no run after run "
	    "%s for 30 s", buf));
	EXPECT_LINE(t, &pane, "run-1000-only", WAIT_MS);

	/* A page of the last runs, the last one at the bottom. */
	e2e_run(t, "!logs many");
	EXPECT_IN(t, NULL, "following", WAIT_MS);
	E2E_ASSERT(t, copy_wait_at(t, &view, NULL, "run-1000-only", 37,
	    WAIT_MS) && copy_wait_at(t, &view, "── run ",
	    " · restarted (exited 0) ──", 36, WAIT_MS) && copy_wait_at(t,
	    &view, NULL, "run-999-only", 35, WAIT_MS), "the page does not "
	    "end with the last runs");
	term_type(t, "g");
	EXPECT_IN(t, NULL, "run 1/", WAIT_MS);
	EXPECT_IN(t, NULL, " · 1-1 of 1", WAIT_MS);
	E2E_ASSERT(t, copy_wait_at(t, &view, NULL, "run-1-only", 1, WAIT_MS),
	    "the first run is not at the top after g");
	E2E_ASSERT(t, copy_wait_at(t, &view, "── run 2 · ",
	    " · restarted (exited 0) ──", 2, WAIT_MS),
	    "no mark of run 2 under the first run");
	term_type(t, "G");
	E2E_ASSERT(t, copy_wait_at(t, &view, NULL, "run-1000-only", 37,
	    WAIT_MS), "G does not end the page with the last run");
	term_type(t, "q");
	EXPECT_IN(t, &panel, "Processes (", WAIT_MS);
	term_type(t, "\026");		/* C-v */
	EXPECT_IN(t, &pane_title, " · 1/1", WAIT_MS);
	term_type(t, "g");
	EXPECT_IN(t, &pane_title, "run 1/", WAIT_MS);
	EXPECT_LINE(t, &pane, "run-1-only", WAIT_MS);
	term_close(t);
	e2e_cfg_remove();
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
		{ "copy_search_following", &test_copy_search_following, 20 },
		{ "copy_run_marks", &test_copy_run_marks, 30 },
		{ "copy_earlier_runs", &test_copy_earlier_runs, 60 },
		{ "copy_thousand_runs", &test_copy_thousand_runs, 900 },
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

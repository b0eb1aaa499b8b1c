/*
 * check_colour_e2e.c: end-to-end tests of colour (issue 12): truecolor
 * passes through when the outer terminal has direct colour (a direct
 * TERM, or COLORTERM=truecolor with a 256-colour TERM), is lowered to
 * the nearest of the palette otherwise, and the colour pair table never
 * runs out.  Each test runs the real binary (`jobdeck -v -c /dev/null`,
 * $JOBDECK_BIN else ./jobdeck) on a 120x40 pty through the term harness
 * and reads the colours of the cells back.
 *
 * The pane's inner area is columns 41-118, rows 1-37.  The -v log in the
 * state directory says which terminal curses started on.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "e2e/e2e.h"
#include "need.h"

#define WAIT_MS		10000	/* a generous wait on a loaded machine */

static const struct term_rect pane = { 1, 40, 37, 80 };

/* Fail with a message and a dump of the screen. */
#define COLOUR_ASSERT(t, cond, ...) do {				\
	if (!(cond))							\
		ck_abort_msg("%s\n%s", e2e_fmt(__VA_ARGS__),		\
		    term_dump(t));					\
} while (0)

/*
 * Start jobdeck with TERM=term and COLORTERM=colorterm (NULL: unset) and
 * JOBDECK_TRUECOLOR=force (NULL: unset), and wait for its panel.
 */
static struct term *
colour_start(const char *term, const char *colorterm, const char *force)
{
	static const char *const	 args[] = { "-v", "-c", "/dev/null",
	    NULL };
	static char			 tv[64], cv[64], fv[64];
	const char			*env[4];

	snprintf(tv, sizeof tv, "TERM=%s", term);
	env[0] = tv;
	if (colorterm != NULL)
		snprintf(cv, sizeof cv, "COLORTERM=%s", colorterm);
	else
		snprintf(cv, sizeof cv, "COLORTERM");
	env[1] = cv;
	if (force != NULL)
		snprintf(fv, sizeof fv, "JOBDECK_TRUECOLOR=%s", force);
	else
		snprintf(fv, sizeof fv, "JOBDECK_TRUECOLOR");
	env[2] = fv;
	env[3] = NULL;
	return e2e_start(args, env);
}

/* Return the deck's -v log (a static buffer), "" when there is none. */
static const char *
colour_log(struct term *t)
{
	static char	buf[64 * 1024];
	char		path[4096];
	ssize_t		n;
	int		fd;

	snprintf(path, sizeof path, "%s/state/jobdeck/debug-default.log",
	    term_tmpdir(t));
	buf[0] = '\0';
	if ((fd = open(path, O_RDONLY)) == -1)
		return buf;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

/* Write a shell script into the deck's directory (its cwd). */
static void
colour_script(struct term *t, const char *name, const char *text)
{
	char	path[4096];
	FILE	*f;

	snprintf(path, sizeof path, "%s/%s", term_tmpdir(t), name);
	f = fopen(path, "w");
	ck_assert_msg(f != NULL, "cannot write %s", path);
	fputs(text, f);
	fclose(f);
}

/* Check that a colour is direct RGB r, g, b (what may be e2e_fmt's). */
static void
colour_expect_rgb(struct term *t, const struct term_color *c,
    const char *whatfmt, int r, int g, int b)
{
	char	what[128];

	snprintf(what, sizeof what, "%s", whatfmt);
	COLOUR_ASSERT(t, !c->is_default && c->index == -1 && c->r == r &&
	    c->g == g && c->b == b, "%s: want rgb %d,%d,%d, got index %d "
	    "rgb %d,%d,%d default %d", what, r, g, b, c->index, c->r, c->g,
	    c->b, c->is_default);
}

/* Check that a colour is palette index idx (what may be e2e_fmt's). */
static void
colour_expect_index(struct term *t, const struct term_color *c,
    const char *whatfmt, int idx)
{
	char	what[128];

	snprintf(what, sizeof what, "%s", whatfmt);
	COLOUR_ASSERT(t, !c->is_default && c->index == idx, "%s: want index "
	    "%d, got index %d rgb %d,%d,%d default %d", what, idx, c->index,
	    c->r, c->g, c->b, c->is_default);
}

/* The job of the truecolor cases: X in one RGB colour, Y on another. */
#define XY_JOB	"printf '\\033[38;2;10;200;30mX\\033[48;2;200;10;30mY" \
		"\\033[0m-\\033[38;2;0;0;5mN\\033[0m'"

/* Find X, Y and N of XY_JOB in the pane; the cells of X, Y and N. */
static void
colour_xy(struct term *t, struct term_cell *x, struct term_cell *y,
    struct term_cell *n)
{
	int	row, col;

	EXPECT_IN(t, &pane, "XY-N", WAIT_MS);
	term_find_in(t, &pane, "XY-N", &row, &col);
	term_cell(t, row, col, x);
	term_cell(t, row, col + 1, y);
	term_cell(t, row, col + 3, n);
}

/*
 * The palette test: rows of 64 cells, fg index 0-255 (four rows) then bg
 * index 0-255 (four rows), each row after a label.
 */
static const char palette_sh[] =
    "i=0\n"
    "while [ $i -lt 512 ]; do\n"
    "  [ $((i % 64)) = 0 ] && printf '\\033[0m\\r\\nP%d:' $((i / 64))\n"
    "  if [ $i -lt 256 ]; then printf '\\033[38;5;%dmo' $i\n"
    "  else printf '\\033[48;5;%dmo' $((i - 256)); fi\n"
    "  i=$((i + 1))\n"
    "done\n"
    "printf '\\033[0m\\r\\nPEND\\r\\n'\n";

/* Check that the palette test's cells have every index unchanged. */
static void
colour_expect_palette(struct term *t)
{
	struct term_cell	c;
	char			label[16];
	int			row, col, i;

	EXPECT_IN(t, &pane, "PEND", WAIT_MS);
	for (i = 0; i < 512; i++) {
		if (i % 64 == 0) {
			snprintf(label, sizeof label, "P%d:", i / 64);
			COLOUR_ASSERT(t, term_find_in(t, &pane, label, &row,
			    &col), "no %s", label);
			col += 3;
		}
		term_cell(t, row, col + i % 64, &c);
		if (i < 256)
			colour_expect_index(t, &c.fg, e2e_fmt("fg %d", i),
			    i);
		else
			colour_expect_index(t, &c.bg, e2e_fmt("bg %d",
			    i - 256), i - 256);
	}
}

/* COLORTERM=truecolor with xterm-256color: exact RGB, indices kept. */
START_TEST(test_truecolor_colorterm)
{
	struct term		*t;
	struct term_cell	 x, y, n;

	NEED("xterm-direct256");
	t = colour_start("xterm-256color", "truecolor", NULL);
	ck_assert_msg(strstr(colour_log(t), "colour: xterm-direct256") !=
	    NULL, "curses did not start on xterm-direct256:\n%s",
	    colour_log(t));
	e2e_run(t, XY_JOB);
	colour_xy(t, &x, &y, &n);
	colour_expect_rgb(t, &x.fg, "X fg", 10, 200, 30);
	COLOUR_ASSERT(t, x.bg.is_default, "X bg is not the default");
	colour_expect_rgb(t, &y.fg, "Y fg", 10, 200, 30);
	colour_expect_rgb(t, &y.bg, "Y bg", 200, 10, 30);
	/* 0x000005 would be read as index 5: green is nudged by one. */
	colour_expect_rgb(t, &n.fg, "N fg", 0, 1, 5);
	colour_script(t, "palette.sh", palette_sh);
	e2e_run(t, "sh palette.sh");
	colour_expect_palette(t);
	/* Keys still come from xterm-256color's own (same) definitions. */
	term_type(t, "xcho k1y2");
	term_key(t, TERM_KEY_LEFT);
	term_key(t, TERM_KEY_LEFT);
	term_type(t, "-");
	term_key(t, TERM_KEY_HOME);
	term_key(t, TERM_KEY_DELETE);
	term_type(t, "e");
	term_key(t, TERM_KEY_ENTER);
	EXPECT_IN(t, &pane, "k1-y2", WAIT_MS);
	term_close(t);
}
END_TEST

/* COLORTERM=24bit works too. */
START_TEST(test_truecolor_24bit)
{
	struct term		*t;
	struct term_cell	 x, y, n;

	NEED("xterm-direct256");
	t = colour_start("xterm-256color", "24bit", NULL);
	e2e_run(t, XY_JOB);
	colour_xy(t, &x, &y, &n);
	colour_expect_rgb(t, &x.fg, "X fg", 10, 200, 30);
	colour_expect_rgb(t, &y.bg, "Y bg", 200, 10, 30);
	term_close(t);
}
END_TEST

/* Without COLORTERM: the nearest of the 256 colours, indices kept. */
START_TEST(test_truecolor_none)
{
	struct term		*t;
	struct term_cell	 x, y, n;

	NEED("xterm-256color");
	t = colour_start("xterm-256color", NULL, NULL);
	ck_assert_msg(strstr(colour_log(t), "colour: xterm-256color") !=
	    NULL, "curses did not start on xterm-256color:\n%s",
	    colour_log(t));
	e2e_run(t, XY_JOB);
	colour_xy(t, &x, &y, &n);
	/* 10,200,30 is nearest cube 0,215,0; 200,10,30 nearest 215,0,0. */
	colour_expect_index(t, &x.fg, "X fg", 40);
	colour_expect_index(t, &y.fg, "Y fg", 40);
	colour_expect_index(t, &y.bg, "Y bg", 160);
	colour_expect_index(t, &n.fg, "N fg", 16);
	colour_script(t, "palette.sh", palette_sh);
	e2e_run(t, "sh palette.sh");
	colour_expect_palette(t);
	term_close(t);
}
END_TEST

/* JOBDECK_TRUECOLOR=0 turns direct colour off despite COLORTERM. */
START_TEST(test_truecolor_off)
{
	struct term		*t;
	struct term_cell	 x, y, n;

	NEED("xterm-256color");
	t = colour_start("xterm-256color", "truecolor", "0");
	e2e_run(t, XY_JOB);
	colour_xy(t, &x, &y, &n);
	colour_expect_index(t, &x.fg, "X fg", 40);
	colour_expect_index(t, &y.bg, "Y bg", 160);
	term_close(t);
}
END_TEST

/*
 * TERM=xterm-direct (RGB in terminfo, 8 palette colours): exact RGB;
 * indices 0-7 stay, others become the palette's RGB.
 */
START_TEST(test_truecolor_direct_term)
{
	struct term		*t;
	struct term_cell	 x, y, n, c;
	int			 row, col;

	NEED("xterm-direct");
	t = colour_start("xterm-direct", NULL, NULL);
	e2e_run(t, XY_JOB);
	colour_xy(t, &x, &y, &n);
	colour_expect_rgb(t, &x.fg, "X fg", 10, 200, 30);
	colour_expect_rgb(t, &y.fg, "Y fg", 10, 200, 30);
	colour_expect_rgb(t, &y.bg, "Y bg", 200, 10, 30);
	/* 0x000005 would be read as index 5 of 8: nudged too. */
	colour_expect_rgb(t, &n.fg, "N fg", 0, 1, 5);
	e2e_run(t, "printf '\\033[33mA\\033[38;5;100mB\\033[0m!'");
	EXPECT_IN(t, &pane, "AB!", WAIT_MS);
	term_find_in(t, &pane, "AB!", &row, &col);
	term_cell(t, row, col, &c);
	colour_expect_index(t, &c.fg, "A fg (33)", 3);
	term_cell(t, row, col + 1, &c);
	colour_expect_rgb(t, &c.fg, "B fg (38;5;100)", 135, 135, 0);
	term_close(t);
}
END_TEST

/* One screen of 2,072 distinct RGB pairs: every cell exact. */
START_TEST(test_truecolor_gradient)
{
	static const char	 grad_sh[] =
	    "awk 'BEGIN {\n"
	    "  for (r = 0; r < 28; r++) {\n"
	    "    printf \"\\033[0m\\r\\nG%02d\", r\n"
	    "    for (c = 0; c < 74; c++)\n"
	    "      printf \"\\033[38;2;%d;%d;7;48;2;%d;%d;200mo\", "
	    "5 + r * 9, c * 3, c * 3, 250 - r * 9\n"
	    "  }\n"
	    "  printf \"\\033[0m\\r\\nGEND\\r\\n\"\n"
	    "}'\n";
	struct term		*t;
	struct term_cell	 c;
	char			 label[16];
	int			 row, col, r, i;

	NEED("xterm-direct256");
	t = colour_start("xterm-256color", "truecolor", NULL);
	colour_script(t, "grad.sh", grad_sh);
	e2e_run(t, "sh grad.sh");
	EXPECT_IN(t, &pane, "GEND", WAIT_MS);
	/* 28 rows of 74 cells (2,072 pairs), each after a label. */
	for (r = 0; r < 28; r++) {
		snprintf(label, sizeof label, "G%02d", r);
		COLOUR_ASSERT(t, term_find_in(t, &pane, label, &row, &col),
		    "no %s", label);
		for (i = 0; i < 74; i++) {
			term_cell(t, row, col + 3 + i, &c);
			colour_expect_rgb(t, &c.fg, e2e_fmt("row %d cell %d "
			    "fg", r, i), 5 + r * 9, i * 3, 7);
			colour_expect_rgb(t, &c.bg, e2e_fmt("row %d cell %d "
			    "bg", r, i), i * 3, 250 - r * 9, 200);
		}
	}
	term_close(t);
}
END_TEST

/*
 * The pair table fills and is renewed: screen after screen of distinct
 * fg/bg index pairs, 65,536 of them in all (more than the 65,535 pairs
 * xterm-256color has), each screen drawn before the next is printed
 * (the job waits for a file the test makes once it saw the screen); the
 * last screens are still drawn right.
 */
START_TEST(test_pairs_renewed)
{
	static const char	 pairs_sh[] =
	    "k=0\n"
	    "while [ $k -lt 26 ]; do\n"
	    "  awk -v k=$k 'BEGIN {\n"
	    "    printf \"\\033[0m\\033[H\\033[2JS%02d\", k\n"
	    "    for (r = 0; r < 35; r++) {\n"
	    "      printf \"\\033[0m\\r\\n\"\n"
	    "      for (c = 0; c < 74; c++) {\n"
	    "        n = (k * 35 * 74 + r * 74 + c) % 65536\n"
	    "        printf \"\\033[38;5;%d;48;5;%dmo\", n % 256, "
	    "int(n / 256)\n"
	    "      }\n"
	    "    }\n"
	    "    printf \"\\033[0m\"\n"
	    "  }'\n"
	    "  while [ ! -e go$k ]; do sleep 0.02; done\n"
	    "  k=$((k + 1))\n"
	    "done\n"
	    "printf '\\033[0m\\033[H\\033[2JPDONE'\n"
	    "sleep 1000\n";
	struct term		*t;
	struct term_cell	 c;
	char			 label[16], path[4096], first[128];
	int			 row, col, k, r, i, n, fd, bad;

	NEED("xterm-256color");
	t = colour_start("xterm-256color", NULL, NULL);
	colour_script(t, "pairs.sh", pairs_sh);
	e2e_run(t, "sh pairs.sh");
	for (k = 0; k < 26; k++) {
		snprintf(label, sizeof label, "S%02d", k);
		EXPECT_IN(t, &pane, label, WAIT_MS);
		/* The whole screen is drawn in one frame with its label. */
		term_find_in(t, &pane, label, &row, &col);
		term_pump(t, 50);
		if (k >= 23) {
			bad = 0;
			for (r = 0; r < 35; r++)
				for (i = 0; i < 74; i++) {
					n = (k * 35 * 74 + r * 74 + i) % 65536;
					term_cell(t, row + 1 + r, col + i, &c);
					if (c.fg.index == n % 256 &&
					    c.bg.index == n / 256)
						continue;
					if (bad++ == 0)
						snprintf(first, sizeof first,
						    "row %d cell %d: want %d on "
						    "%d, got %d on %d", r, i,
						    n % 256, n / 256,
						    c.fg.index, c.bg.index);
				}
			COLOUR_ASSERT(t, bad == 0, "screen %d: %d cells with "
			    "the wrong colours, first %s", k, bad, first);
		}
		snprintf(path, sizeof path, "%s/go%d", term_tmpdir(t), k);
		fd = open(path, O_WRONLY | O_CREAT, 0600);
		ck_assert_int_ne(fd, -1);
		close(fd);
	}
	EXPECT_IN(t, &pane, "PDONE", WAIT_MS);
	ck_assert_msg(strstr(colour_log(t), "pairs are all taken, renewed") !=
	    NULL, "the pair table was never renewed:\n%s", colour_log(t));
	term_close(t);
}
END_TEST

/* The suite. */
static Suite *
colour_suite(void)
{
	static const struct e2e_case	cases[] = {
		{ "truecolor_colorterm", &test_truecolor_colorterm, 30 },
		{ "truecolor_24bit", &test_truecolor_24bit, 20 },
		{ "truecolor_none", &test_truecolor_none, 30 },
		{ "truecolor_off", &test_truecolor_off, 20 },
		{ "truecolor_direct_term", &test_truecolor_direct_term, 20 },
		{ "truecolor_gradient", &test_truecolor_gradient, 30 },
		{ "pairs_renewed", &test_pairs_renewed, 90 },
	};
	Suite				*s = suite_create("colour");

	e2e_add_cases(s, cases, sizeof cases / sizeof cases[0]);
	return s;
}

/* Run the suite; the exit status says whether every test passed. */
int
main(void)
{
	return e2e_main(colour_suite());
}

/*
 * check_echo_e2e.c: what jobdeck draws for one echoed key (issue 12).  The
 * real binary on the harness's 120x40 pty, a focused cat, and the raw
 * bytes jobdeck writes to the terminal for each key counted: an echo needs
 * the character and at most a cursor move, not the panel's copy of the
 * same line.  No timing is asserted; the waits are generous.  The panel's
 * "Last output" line of the selected job is drawn later, never lost.
 *
 * The binary is $JOBDECK_BIN, else ./jobdeck; it runs as `jobdeck -c
 * /dev/null COMMAND` in the harness's temporary directory.  Layout at
 * 120x40 as in check_e2e.c: the panel is columns 0-39, the pane columns
 * 40-119 (title on row 0), the prompt row 39.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "e2e/e2e.h"

#define WAIT_MS		5000	/* default wait for text */
#define ECHO_KEYS	11	/* keys typed and counted one by one */
#define ECHO_AFTER_MS	80	/* read on after each echo for what follows */
#define ECHO_MAX_BYTES	8	/* the median key may draw at most this */

static const struct term_rect panel = { 0, 0, 39, 40 };
static const struct term_rect pane = { 1, 40, 37, 80 };
static const struct term_rect pane_title = { 0, 40, 1, 80 };

static struct term	*echo_start(const char *);
static void		 echo_focus(struct term *);
static const char	*echo_visible(const char *, size_t, char *, size_t);
static int		 echo_cmp(const void *, const void *);

/* Start jobdeck with one job and wait for its panel. */
static struct term *
echo_start(const char *command)
{
	const char	*args[4];

	args[0] = "-c";
	args[1] = "/dev/null";
	args[2] = command;
	args[3] = NULL;
	return e2e_start(args, NULL);
}

/* Focus the selected job and let the screen settle. */
static void
echo_focus(struct term *t)
{
	term_key(t, TERM_KEY_CTRL_T);
	EXPECT_IN(t, &pane_title, "[Focused]", WAIT_MS);
	term_pump(t, 300);
}

/* Bytes made readable for a failure message: ESC as \e, others as \xHH. */
static const char *
echo_visible(const char *s, size_t len, char *out, size_t size)
{
	unsigned char	c;
	size_t		i, o = 0;

	for (i = 0; i < len && o + 5 < size; i++) {
		c = (unsigned char)s[i];
		if (c == 0x1b)
			o += (size_t)snprintf(out + o, size - o, "\\e");
		else if (c < 0x20 || c >= 0x7f)
			o += (size_t)snprintf(out + o, size - o, "\\x%02x", c);
		else
			out[o++] = (char)c;
	}
	out[o] = '\0';
	return out;
}

/* Order sizes for the median. */
static int
echo_cmp(const void *a, const void *b)
{
	size_t	x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Keys typed one at a time into a focused cat: each key's bytes, from
 * typing it until a while after its echo is on the screen.  The median
 * key draws at most ECHO_MAX_BYTES (the once-a-second tick of the panel's
 * durations may land in a few keys' windows, hence the median).
 */
START_TEST(test_echo_bytes)
{
	struct term	*t;
	const char	*raw;
	char		 typed[ECHO_KEYS + 1], key[2], shown[1024];
	char		 all[ECHO_KEYS][256];
	size_t		 sizes[ECHO_KEYS], sorted[ECHO_KEYS], len, med;
	int		 i;

	t = echo_start("cat");
	echo_focus(t);
	for (i = 0; i < ECHO_KEYS; i++) {
		key[0] = (char)('a' + i);
		key[1] = '\0';
		typed[i] = key[0];
		typed[i + 1] = '\0';
		term_raw_start(t);
		term_type(t, key);
		EXPECT_IN(t, &pane, typed, WAIT_MS);
		term_pump(t, ECHO_AFTER_MS);
		term_raw_stop(t);
		raw = term_raw_bytes(t, &len);
		ck_assert_msg(memchr(raw, key[0], len) != NULL,
		    "key %d: '%c' not among the bytes drawn: \"%s\"", i,
		    key[0], echo_visible(raw, len, shown, sizeof shown));
		sizes[i] = len;
		echo_visible(raw, len, all[i], sizeof all[i]);
	}
	memcpy(sorted, sizes, sizeof sorted);
	qsort(sorted, ECHO_KEYS, sizeof sorted[0], echo_cmp);
	med = sorted[ECHO_KEYS / 2];
	ck_assert_msg(med <= ECHO_MAX_BYTES, "the median key drew %zu bytes "
	    "(at most %d expected); first keys: \"%s\" \"%s\" \"%s\"", med,
	    ECHO_MAX_BYTES, all[0], all[1], all[2]);
	term_close(t);
}
END_TEST

/*
 * The selected job's "Last output" in the panel is drawn later than its
 * pane, never lost: what was typed shows there within a few seconds.
 */
START_TEST(test_echo_panel_catches_up)
{
	struct term	*t;

	t = echo_start("cat");
	echo_focus(t);
	term_type(t, "quokka");
	EXPECT_IN(t, &pane, "quokka", WAIT_MS);
	EXPECT_IN(t, &panel, "Last output: quokka", WAIT_MS);
	term_close(t);
}
END_TEST

/*
 * Output of a selected job whose leader has ended (a child that ignores
 * SIGTERM still holds the terminal) reaches its panel row, though no job
 * runs and the panel's tick has stopped.
 */
START_TEST(test_echo_panel_after_exit)
{
	struct term	*t;

	/* The leader waits for the child's trap, then ends. */
	t = echo_start("(trap '' TERM HUP; : >trapped; sleep 1; "
	    "echo late-words) & while [ ! -e trapped ]; do sleep 0.05; done; "
	    "echo early-words");
	EXPECT_IN(t, &panel, "Last output: early-words", WAIT_MS);
	EXPECT_IN(t, &panel, "Processes (0 running)", WAIT_MS);
	EXPECT_IN(t, &pane, "late-words", WAIT_MS);
	EXPECT_IN(t, &panel, "Last output: late-words", WAIT_MS);
	term_close(t);
}
END_TEST

/* Build the suite: one test case per test, each with its own timeout. */
static Suite *
echo_suite(void)
{
	static const struct e2e_case	cases[] = {
		{ "echo_bytes", &test_echo_bytes, 60 },
		{ "echo_panel_catches_up", &test_echo_panel_catches_up, 30 },
		{ "echo_panel_after_exit", &test_echo_panel_after_exit, 30 },
	};
	Suite				*s = suite_create("echo_e2e");

	e2e_add_cases(s, cases, sizeof cases / sizeof cases[0]);
	return s;
}

/* Run the suite; the exit status says whether every test passed. */
int
main(void)
{
	return e2e_main(echo_suite());
}

/*
 * check_input.c: tests for the outer terminal's reports parsed out of the
 * key stream: plain keys pass, bracketed pastes (UTF-8, Enter, function
 * keys, nested starts, stray ends, ESC inside, the cap, flush), SGR mouse
 * reports (buttons, wheel, motion, modifiers, release) and hostile ones
 * (cut, malformed, digits without end, huge numbers), and the paste as
 * prompt text.  Keys are fed as curses gives them: characters, or codes.
 * The suite runs in the C.UTF-8 locale, as jobdeck does.
 */
#include <check.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input.h"

/* Feed the characters of s; fail unless each is consumed. */
static void
feed_consumed(struct input *in, const char *s)
{
	struct input_event	ev;

	for (; *s != '\0'; s++)
		ck_assert_int_eq(input_feed(in, 0, (unsigned char)*s, &ev),
		    INPUT_NONE);
}

/* Feed the characters of s except the last, then the last; return its kind. */
static enum input_kind
feed_report(struct input *in, const char *s, struct input_event *ev)
{
	size_t	len = strlen(s);

	ck_assert_int_eq(input_feed(in, 1, INPUT_KEY_MOUSE, ev), INPUT_NONE);
	for (; len > 1; len--, s++)
		ck_assert_int_eq(input_feed(in, 0, (unsigned char)*s, ev),
		    INPUT_NONE);
	return input_feed(in, 0, (unsigned char)*s, ev);
}

START_TEST(test_keys_pass)
{
	struct input		*in = input_new();
	struct input_event	 ev;

	ck_assert_int_eq(input_feed(in, 0, 'a', &ev), INPUT_KEY);
	ck_assert_int_eq(ev.code, 0);
	ck_assert_uint_eq(ev.key, 'a');
	ck_assert_int_eq(input_feed(in, 1, 0403, &ev), INPUT_KEY);
	ck_assert_int_eq(ev.code, 1);
	ck_assert_uint_eq(ev.key, 0403);
	ck_assert_int_eq(input_feed(in, 0, 0x1b, &ev), INPUT_KEY);
	ck_assert_int_eq(input_busy(in), 0);
	/* An end marker with no paste open is dropped. */
	ck_assert_int_eq(input_feed(in, 1, INPUT_KEY_PASTE_END, &ev),
	    INPUT_NONE);
	ck_assert_int_eq(input_feed(in, 0, 'b', &ev), INPUT_KEY);
	input_free(in);
}
END_TEST

START_TEST(test_paste)
{
	struct input		*in = input_new();
	struct input_event	 ev;

	ck_assert_int_eq(input_feed(in, 1, INPUT_KEY_PASTE_START, &ev),
	    INPUT_NONE);
	ck_assert_int_eq(input_busy(in), 1);
	feed_consumed(in, "  if x:\r");
	/* Enter as a code is "\r"; another code is dropped; wide is UTF-8. */
	ck_assert_int_eq(input_feed(in, 1, INPUT_ENTER, &ev), INPUT_NONE);
	ck_assert_int_eq(input_feed(in, 1, 0403, &ev), INPUT_NONE);
	ck_assert_int_eq(input_feed(in, 0, 0xe9, &ev), INPUT_NONE);
	ck_assert_int_eq(input_feed(in, 0, 0x1f600, &ev), INPUT_NONE);
	/* ESC and ^C inside a paste are text, not keys. */
	ck_assert_int_eq(input_feed(in, 0, 0x1b, &ev), INPUT_NONE);
	ck_assert_int_eq(input_feed(in, 0, 0x03, &ev), INPUT_NONE);
	/* A second start inside is ignored: one paste. */
	ck_assert_int_eq(input_feed(in, 1, INPUT_KEY_PASTE_START, &ev),
	    INPUT_NONE);
	ck_assert_int_eq(input_feed(in, 1, INPUT_KEY_PASTE_END, &ev),
	    INPUT_PASTE);
	ck_assert_uint_eq(ev.paste_len, 17);
	ck_assert_mem_eq(ev.paste, "  if x:\r\r\xc3\xa9\xf0\x9f\x98\x80\x1b\x03",
	    17);
	ck_assert_int_eq(ev.cut, 0);
	ck_assert_int_eq(input_busy(in), 0);
	ck_assert_int_eq(input_feed(in, 0, 'z', &ev), INPUT_KEY);
	/* An empty paste is delivered empty. */
	input_feed(in, 1, INPUT_KEY_PASTE_START, &ev);
	ck_assert_int_eq(input_feed(in, 1, INPUT_KEY_PASTE_END, &ev),
	    INPUT_PASTE);
	ck_assert_uint_eq(ev.paste_len, 0);
	input_free(in);
}
END_TEST

START_TEST(test_paste_cap)
{
	struct input		*in = input_new();
	struct input_event	 ev;
	size_t			 i;
	int			 pastes = 0;

	input_feed(in, 1, INPUT_KEY_PASTE_START, &ev);
	for (i = 0; i < INPUT_PASTE_MAX + 1000; i++) {
		if (input_feed(in, 0, 'a' + i % 26, &ev) == INPUT_PASTE) {
			pastes++;
			ck_assert_uint_eq(i, INPUT_PASTE_MAX - 1);
			ck_assert_uint_eq(ev.paste_len, INPUT_PASTE_MAX);
			ck_assert_int_eq(ev.cut, 1);
		}
	}
	ck_assert_int_eq(pastes, 1);
	/* The rest is dropped up to the end marker; then keys again. */
	ck_assert_int_eq(input_feed(in, 0, '\r', &ev), INPUT_NONE);
	ck_assert_int_eq(input_feed(in, 1, INPUT_KEY_PASTE_END, &ev),
	    INPUT_NONE);
	ck_assert_int_eq(input_feed(in, 0, 'q', &ev), INPUT_KEY);
	/* A wide character that would cross the cap ends the paste too. */
	input_feed(in, 1, INPUT_KEY_PASTE_START, &ev);
	for (i = 0; i < INPUT_PASTE_MAX - 1; i++)
		input_feed(in, 0, 'x', &ev);
	ck_assert_int_eq(input_feed(in, 0, 0xe9, &ev), INPUT_PASTE);
	ck_assert_uint_eq(ev.paste_len, INPUT_PASTE_MAX - 1);
	ck_assert_int_eq(ev.cut, 1);
	input_free(in);
}
END_TEST

START_TEST(test_paste_flush)
{
	struct input		*in = input_new();
	struct input_event	 ev;

	/* A paste that never ends is closed by the quiet flush. */
	input_feed(in, 1, INPUT_KEY_PASTE_START, &ev);
	feed_consumed(in, "ls");
	ck_assert_int_eq(input_busy(in), 1);
	ck_assert_int_eq(input_flush(in, &ev), INPUT_PASTE);
	ck_assert_mem_eq(ev.paste, "ls", 2);
	ck_assert_int_eq(input_busy(in), 0);
	ck_assert_int_eq(input_feed(in, 0, 'k', &ev), INPUT_KEY);
	/* A cut mouse report is dropped by it. */
	input_feed(in, 1, INPUT_KEY_MOUSE, &ev);
	feed_consumed(in, "0;1");
	ck_assert_int_eq(input_flush(in, &ev), INPUT_NONE);
	ck_assert_int_eq(input_feed(in, 0, '5', &ev), INPUT_KEY);
	ck_assert_int_eq(input_flush(in, &ev), INPUT_NONE);
	input_free(in);
}
END_TEST

static const struct {
	const char	*body;
	int		 y, x, button, press, motion;
	unsigned int	 mods;
} mouse_cases[] = {
	{ "0;10;5M", 4, 9, INPUT_BUTTON_LEFT, 1, 0, 0 },
	{ "0;10;5m", 4, 9, INPUT_BUTTON_LEFT, 0, 0, 0 },
	{ "2;1;1M", 0, 0, INPUT_BUTTON_RIGHT, 1, 0, 0 },
	{ "32;7;3M", 2, 6, INPUT_BUTTON_LEFT, 1, 1, 0 },
	{ "35;7;3M", 2, 6, INPUT_BUTTON_NONE, 1, 1, 0 },
	{ "64;120;40M", 39, 119, INPUT_WHEEL_UP, 1, 0, 0 },
	{ "65;3;4M", 3, 2, INPUT_WHEEL_DOWN, 1, 0, 0 },
	{ "4;2;2M", 1, 1, INPUT_BUTTON_LEFT, 1, 0, INPUT_MOD_SHIFT },
	{ "24;2;2M", 1, 1, INPUT_BUTTON_LEFT, 1, 0,
	    INPUT_MOD_ALT | INPUT_MOD_CTRL },
	{ "0;0;0M", 0, 0, INPUT_BUTTON_LEFT, 1, 0, 0 },
	/* Huge numbers are clamped, never overflow. */
	{ "0;99999999999999999999;3M", 2, INPUT_MOUSE_COORD_MAX - 1,
	    INPUT_BUTTON_LEFT, 1, 0, 0 },
};

START_TEST(test_mouse)
{
	struct input		*in = input_new();
	struct input_event	 ev;

	ck_assert_int_eq(feed_report(in, mouse_cases[_i].body, &ev),
	    INPUT_MOUSE);
	ck_assert_int_eq(ev.mouse.y, mouse_cases[_i].y);
	ck_assert_int_eq(ev.mouse.x, mouse_cases[_i].x);
	ck_assert_int_eq(ev.mouse.button, mouse_cases[_i].button);
	ck_assert_int_eq(ev.mouse.press, mouse_cases[_i].press);
	ck_assert_int_eq(ev.mouse.motion, mouse_cases[_i].motion);
	ck_assert_uint_eq(ev.mouse.mods, mouse_cases[_i].mods);
	ck_assert_int_eq(input_busy(in), 0);
	ck_assert_int_eq(input_feed(in, 0, '1', &ev), INPUT_KEY);
	input_free(in);
}
END_TEST

/* Malformed reports: dropped whole, or ended by the key that follows. */
static const struct {
	const char	*body;
	const char	*keys;	/* what comes out as keys afterwards */
} bad_cases[] = {
	{ "0;1M", "" },			/* too few parameters */
	{ "M", "" },
	{ "0;1;2;3M", ";3M" },		/* a fourth: ends at the ';' */
	{ ";1;2M", ";1;2M" },		/* no button */
	{ "0;1;2x", "x" },		/* a letter ends it */
	{ "0;\033[A", "\033[A" },	/* an ESC ends it, a key after */
	{ "0;1;2\r", "\r" },
};

START_TEST(test_mouse_malformed)
{
	struct input		*in = input_new();
	struct input_event	 ev;
	const char		*s = bad_cases[_i].body;
	char			 keys[64];
	size_t			 n = 0;

	ck_assert_int_eq(input_feed(in, 1, INPUT_KEY_MOUSE, &ev), INPUT_NONE);
	for (; *s != '\0'; s++) {
		ck_assert_int_ne(input_feed(in, 0, (unsigned char)*s, &ev),
		    INPUT_MOUSE);
		if (ev.kind == INPUT_KEY)
			keys[n++] = (char)ev.key;
	}
	keys[n] = '\0';
	ck_assert_str_eq(keys, bad_cases[_i].keys);
	ck_assert_int_eq(input_feed(in, 0, 'k', &ev), INPUT_KEY);
	input_free(in);
}
END_TEST

START_TEST(test_mouse_hostile)
{
	struct input		*in = input_new();
	struct input_event	 ev;
	int			 i, keys = 0;

	/* Digits without end: at most INPUT_MOUSE_MAX are taken. */
	input_feed(in, 1, INPUT_KEY_MOUSE, &ev);
	for (i = 0; i < 1000; i++)
		if (input_feed(in, 0, '7', &ev) == INPUT_KEY)
			keys++;
	ck_assert_int_eq(keys, 1000 - INPUT_MOUSE_MAX);
	ck_assert_int_eq(input_busy(in), 0);
	/* A function key ends a report and is itself a key. */
	input_feed(in, 1, INPUT_KEY_MOUSE, &ev);
	ck_assert_int_eq(input_feed(in, 1, 0403, &ev), INPUT_KEY);
	ck_assert_uint_eq(ev.key, 0403);
	/* A paste start cuts a report short and opens the paste. */
	input_feed(in, 1, INPUT_KEY_MOUSE, &ev);
	feed_consumed(in, "0;4");
	ck_assert_int_eq(input_feed(in, 1, INPUT_KEY_PASTE_START, &ev),
	    INPUT_NONE);
	feed_consumed(in, "hi");
	ck_assert_int_eq(input_feed(in, 1, INPUT_KEY_PASTE_END, &ev),
	    INPUT_PASTE);
	ck_assert_mem_eq(ev.paste, "hi", 2);
	/* A report prefix inside a paste is part of the text. */
	input_feed(in, 1, INPUT_KEY_PASTE_START, &ev);
	ck_assert_int_eq(input_feed(in, 1, INPUT_KEY_MOUSE, &ev), INPUT_NONE);
	feed_consumed(in, "0;1;1M");
	ck_assert_int_eq(input_feed(in, 1, INPUT_KEY_PASTE_END, &ev),
	    INPUT_PASTE);
	ck_assert_uint_eq(ev.paste_len, 6);
	/* A report right after another. */
	ck_assert_int_eq(feed_report(in, "0;2;3M", &ev), INPUT_MOUSE);
	ck_assert_int_eq(feed_report(in, "0;2;3m", &ev), INPUT_MOUSE);
	ck_assert_int_eq(ev.mouse.press, 0);
	input_free(in);
}
END_TEST

static const struct {
	const char	*in;
	const char	*out;
	int		 lines;
} text_cases[] = {
	{ "ls", "ls", 1 },
	{ "", "", 0 },
	{ "a\r\nb\rc\nd\r\n", "a\nb\nc\nd", 4 },
	{ "\r\r\r", "", 0 },
	{ "x\ty\x03\x1b[A\x7fz", "x y[Az", 1 },
	{ "\n\nab\n", "\n\nab", 3 },
	{ "\xc3\xa9\r", "\xc3\xa9", 1 },
};

START_TEST(test_paste_text)
{
	char	buf[64];
	size_t	n;
	int	lines = -1;

	snprintf(buf, sizeof buf, "%s", text_cases[_i].in);
	n = input_paste_text(buf, strlen(buf), &lines);
	ck_assert_uint_eq(n, strlen(text_cases[_i].out));
	ck_assert_mem_eq(buf, text_cases[_i].out, n);
	ck_assert_int_eq(lines, text_cases[_i].lines);
}
END_TEST

/* Build the input suite. */
static Suite *
input_suite(void)
{
	Suite	*s = suite_create("input");
	TCase	*tc;

	tc = tcase_create("paste");
	tcase_add_test(tc, test_keys_pass);
	tcase_add_test(tc, test_paste);
	tcase_add_test(tc, test_paste_cap);
	tcase_add_test(tc, test_paste_flush);
	tcase_add_loop_test(tc, test_paste_text, 0,
	    (int)(sizeof text_cases / sizeof text_cases[0]));
	suite_add_tcase(s, tc);

	tc = tcase_create("mouse");
	tcase_add_loop_test(tc, test_mouse, 0,
	    (int)(sizeof mouse_cases / sizeof mouse_cases[0]));
	tcase_add_loop_test(tc, test_mouse_malformed, 0,
	    (int)(sizeof bad_cases / sizeof bad_cases[0]));
	tcase_add_test(tc, test_mouse_hostile);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite in a UTF-8 locale; exit non-zero if any test failed. */
int
main(void)
{
	SRunner	*sr;
	int	 failed;

	if (setlocale(LC_ALL, "C.UTF-8") == NULL) {
		fprintf(stderr, "check_input: no C.UTF-8 locale\n");
		return EXIT_FAILURE;
	}
	sr = srunner_create(input_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

/*
 * check_rawtext.c: tests for turning raw terminal output into text lines.
 * One table of byte streams and the lines they must give: escape sequences
 * stripped (CSI, OSC ended by BEL or ST, DCS and the other strings, charset
 * and other ESC sequences), progress lines redrawn after CR keeping their
 * last state, CRLF, backspace, tabs, control characters, UTF-8 and what
 * is not UTF-8 (overlong forms and surrogates included).  Every case is
 * also fed one byte at a time and cut at every pair of places, and must
 * give the same lines as when fed whole, also when the finished lines are
 * taken (rawtext_take) after every piece.  Lines longer than
 * RAWTEXT_LINE_MAX are cut.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rawtext.h"

#define MAX_LINES	8

/* U+FFFD, what stands for bytes that are not UTF-8. */
#define FFFD		"\xef\xbf\xbd"

/* The input as a string literal and its length (it may hold NUL bytes). */
#define IN(s)		s, sizeof(s) - 1

/* A byte stream and the lines it must give. */
struct rt_case {
	const char	*name;
	const char	*in;
	size_t		 len;
	const char	*want[MAX_LINES];	/* NULL-terminated */
};

static const struct rt_case rt_cases[] = {
	/* Lines. */
	{ "empty", IN(""), { NULL } },
	{ "lines", IN("hello\nworld\n"), { "hello", "world", NULL } },
	{ "no final newline", IN("a\nb"), { "a", "b", NULL } },
	{ "blank lines", IN("a\n\n\nb\n"), { "a", "", "", "b", NULL } },
	{ "only newline", IN("\n"), { "", NULL } },
	{ "crlf", IN("one\r\ntwo\r\n\r\nthree\r\n"),
	    { "one", "two", "", "three", NULL } },
	{ "cr cr lf", IN("x\r\r\ny\n"), { "x", "y", NULL } },
	{ "trailing blanks", IN("a   \n  b  \n"), { "a", "  b", NULL } },
	{ "utf-8", IN("h\xc3\xa9llo \xe6\x97\xa5\xe6\x9c\xac\n"),
	    { "h\xc3\xa9llo \xe6\x97\xa5\xe6\x9c\xac", NULL } },

	/* CSI sequences. */
	{ "sgr", IN("\033[1;31mred\033[0m plain\033[m\n"),
	    { "red plain", NULL } },
	{ "sgr 256 and rgb", IN("\033[38;5;196ma\033[48;2;1;2;3mb\033[0m\r\n"),
	    { "ab", NULL } },
	{ "private modes", IN("\033[?25l\033[?1049hA\033[?1049l\033[?25hB\n"),
	    { "AB", NULL } },
	{ "csi intermediate", IN("A\033[2 qB\033[!pC\n"), { "ABC", NULL } },
	{ "cursor moves", IN("\033[H\033[2J\033[10;5Htext\033[K\n"),
	    { "text", NULL } },
	{ "csi cut by esc", IN("\033[31\033[0mX\n"), { "X", NULL } },

	/* OSC, DCS and the other strings. */
	{ "osc bel", IN("\033]0;my title\007after\n"), { "after", NULL } },
	{ "osc st", IN("\033]2;title [x] m;\033\\after\n"),
	    { "after", NULL } },
	{ "osc 8 link",
	    IN("see \033]8;;http://e.x/\033\\link\033]8;;\033\\.\n"),
	    { "see link.", NULL } },
	{ "dcs", IN("\033Pq#0;2;0;0;0#0~~@@vv\033\\ok\n"), { "ok", NULL } },
	{ "dcs decrqss", IN("\033P$qm\033\\x\033P1$r0m\033\\y\n"),
	    { "xy", NULL } },
	{ "apc pm sos", IN("\033_app\033\\a\033^pm\033\\b\033Xsos\033\\c\n"),
	    { "abc", NULL } },

	/* Two- and three-byte ESC sequences. */
	{ "charset", IN("\033(Bx\033)0y\033(0q\033(B\033%Gz\n"),
	    { "xyqz", NULL } },
	{ "esc two byte", IN("\0337a\0338b\033=c\033>d\033Me\033Df\033cg\n"),
	    { "abcdefg", NULL } },
	{ "esc hash", IN("\033#8z\n"), { "z", NULL } },
	{ "esc at end", IN("abc\033"), { "abc", NULL } },

	/* Carriage returns that redraw a line. */
	{ "progress", IN("  0%\r 50%\r100%\n"), { "100%", NULL } },
	{ "progress shorter", IN("100% done\r5%\ndone\n"),
	    { "5%", "done", NULL } },
	{ "progress no newline", IN("10%\r20%\r"), { "20%", NULL } },
	{ "progress erase", IN("dl 10%\r\033[Kdl 20%\r\033[Kdl 30%\r\n"),
	    { "dl 30%", NULL } },
	{ "progress coloured",
	    IN("\r\033[32m[###   ]\033[0m\r\033[32m[######]\033[0m\r\n"),
	    { "[######]", NULL } },
	{ "clock", IN("\r12:00:01\r12:00:02\r12:00:03"), { "12:00:03", NULL } },

	/* Backspace, tabs and other controls. */
	{ "backspace", IN("abc\bX\n"), { "abX", NULL } },
	{ "backspace at start", IN("ab\b\b\bc\n"), { "cb", NULL } },
	{ "echoed erase", IN("ab\b \b\n"), { "a", NULL } },
	{ "tab", IN("a\tb\n"), { "a       b", NULL } },
	{ "tab at stop", IN("12345678\tx\n"), { "12345678        x", NULL } },
	{ "tab first", IN("\tx\t\n"), { "        x", NULL } },
	{ "controls vanish", IN("a\001b\007c\177d\000e\016f\n"),
	    { "abcdef", NULL } },

	/* Not UTF-8 (utf8.h): one U+FFFD per maximal subpart. */
	{ "invalid bytes", IN("a\xff" "b\x80" "c\xc3(\n"),
	    { "a" FFFD "b" FFFD "c" FFFD "(", NULL } },
	{ "overlong", IN("\xc0\xaf \xe0\x80\xaf \xf0\x8f\xbf\xbf\n"),
	    { FFFD FFFD " " FFFD FFFD FFFD " " FFFD FFFD FFFD FFFD, NULL } },
	{ "surrogate", IN("<\xed\xa0\x80\xed\xbf\xbf>\n"),
	    { "<" FFFD FFFD FFFD FFFD FFFD FFFD ">", NULL } },
	{ "above U+10FFFF", IN("\xf4\x90\x80\x80\xf4\x8f\xbf\xbf\n"),
	    { FFFD FFFD FFFD FFFD "\xf4\x8f\xbf\xbf", NULL } },
	{ "cut short", IN("\xe2\x82\033[1mA\xf0\x9f\x98\n\xe2"),
	    { FFFD "A" FFFD, FFFD, NULL } },
};

/* Feed pieces of c->in cut at the given places; return the lines. */
static char **
convert(const struct rt_case *c, const size_t *cuts, int ncuts, int *count)
{
	struct rawtext	*rt = rawtext_new();
	size_t		 at = 0;
	int		 i;

	for (i = 0; i < ncuts; i++) {
		rawtext_feed(rt, c->in + at, cuts[i] - at);
		at = cuts[i];
	}
	rawtext_feed(rt, c->in + at, c->len - at);
	return rawtext_finish(rt, count);
}

/* Assert that lines are c->want; how says how the input was cut. */
static void
assert_lines(const struct rt_case *c, char **lines, int count,
    const char *how)
{
	int	n, i;

	for (n = 0; c->want[n] != NULL; n++)
		;
	ck_assert_msg(count == n, "%s (%s): %d lines, want %d%s%s", c->name,
	    how, count, n, count > 0 ? "; first: " : "",
	    count > 0 ? lines[0] : "");
	for (i = 0; i < n; i++) {
		ck_assert_msg(strcmp(lines[i], c->want[i]) == 0,
		    "%s (%s): line %d is \"%s\", want \"%s\"", c->name, how, i,
		    lines[i], c->want[i]);
	}
	rawtext_free_lines(lines, count);
}

/* Each case fed whole gives its lines. */
START_TEST(test_whole)
{
	const struct rt_case	*c = &rt_cases[_i];
	char			**lines;
	int			  count;

	lines = convert(c, NULL, 0, &count);
	assert_lines(c, lines, count, "whole");
}
END_TEST

/* Each case fed one byte at a time gives the same lines. */
START_TEST(test_bytewise)
{
	const struct rt_case	*c = &rt_cases[_i];
	struct rawtext		*rt = rawtext_new();
	char			**lines;
	size_t			  i;
	int			  count;

	for (i = 0; i < c->len; i++) {
		rawtext_feed(rt, c->in + i, 1);
		rawtext_feed(rt, c->in + i, 0);
	}
	lines = rawtext_finish(rt, &count);
	assert_lines(c, lines, count, "bytewise");
}
END_TEST

/* Each case cut in two and in three at every place gives the same lines. */
START_TEST(test_every_split)
{
	const struct rt_case	*c = &rt_cases[_i];
	char			**lines, how[64];
	size_t			  cuts[2];
	int			  count;

	for (cuts[0] = 0; cuts[0] <= c->len; cuts[0]++) {
		snprintf(how, sizeof how, "cut at %zu", cuts[0]);
		lines = convert(c, cuts, 1, &count);
		assert_lines(c, lines, count, how);
		for (cuts[1] = cuts[0]; cuts[1] <= c->len; cuts[1]++) {
			snprintf(how, sizeof how, "cut at %zu and %zu",
			    cuts[0], cuts[1]);
			lines = convert(c, cuts, 2, &count);
			assert_lines(c, lines, count, how);
		}
	}
}
END_TEST

/*
 * A long line and many lines grow the buffers without losing bytes; a
 * line longer than RAWTEXT_LINE_MAX goes on as the next line.
 */
START_TEST(test_large)
{
	struct rawtext	*rt = rawtext_new();
	char		**lines, buf[32], *longline;
	int		  count, i;
	size_t		  n = RAWTEXT_LINE_MAX + 1000, k;

	longline = malloc(n + 1);
	ck_assert_ptr_nonnull(longline);
	for (k = 0; k < n; k++)
		longline[k] = (char)('a' + k % 26);
	longline[n] = '\n';
	rawtext_feed(rt, longline, n + 1);
	for (i = 1; i <= 20000; i++) {
		snprintf(buf, sizeof buf, "\033[1m%d\033[0m\r\n", i);
		rawtext_feed(rt, buf, strlen(buf));
	}
	lines = rawtext_finish(rt, &count);
	ck_assert_int_eq(count, 20002);
	ck_assert_uint_eq(strlen(lines[0]), RAWTEXT_LINE_MAX);
	ck_assert_int_eq(memcmp(lines[0], longline, RAWTEXT_LINE_MAX), 0);
	ck_assert_uint_eq(strlen(lines[1]), 1000);
	ck_assert_int_eq(memcmp(lines[1], longline + RAWTEXT_LINE_MAX, 1000),
	    0);
	ck_assert_str_eq(lines[2], "1");
	ck_assert_str_eq(lines[20001], "20000");
	rawtext_free_lines(lines, count);
	free(longline);
}
END_TEST

/*
 * Each case cut at every place, the finished lines taken after each
 * piece: together with what finish returns, the same lines as whole.
 */
START_TEST(test_take)
{
	const struct rt_case	*c = &rt_cases[_i];
	struct rawtext		*rt;
	char			**all, **lines, how[64];
	size_t			  cut;
	int			  n, count, i;

	for (cut = 0; cut <= c->len; cut++) {
		all = calloc(MAX_LINES + 1, sizeof *all);
		ck_assert_ptr_nonnull(all);
		n = 0;
		rt = rawtext_new();
		rawtext_feed(rt, c->in, cut);
		lines = rawtext_take(rt, &count);
		/* Only lines a newline ended so far. */
		ck_assert_int_le(count, (int)(memchr(c->in, '\n', cut) !=
		    NULL ? cut : 0));
		for (i = 0; i < count && n < MAX_LINES; i++)
			all[n++] = lines[i];
		free(lines);
		rawtext_feed(rt, c->in + cut, c->len - cut);
		lines = rawtext_take(rt, &count);
		for (i = 0; i < count && n < MAX_LINES; i++)
			all[n++] = lines[i];
		free(lines);
		lines = rawtext_finish(rt, &count);
		for (i = 0; i < count && n < MAX_LINES; i++)
			all[n++] = lines[i];
		free(lines);
		snprintf(how, sizeof how, "taken, cut at %zu", cut);
		assert_lines(c, all, n, how);
	}
}
END_TEST

/*
 * take hands over finished lines only: the partial line and an escape
 * sequence cut in two stay in the converter until more comes.
 */
START_TEST(test_take_partial)
{
	struct rawtext	*rt = rawtext_new();
	char		**lines;
	int		  count;

	lines = rawtext_take(rt, &count);
	ck_assert_ptr_null(lines);
	ck_assert_int_eq(count, 0);
	rawtext_feed(rt, IN("one\r\ntw"));
	lines = rawtext_take(rt, &count);
	ck_assert_int_eq(count, 1);
	ck_assert_str_eq(lines[0], "one");
	rawtext_free_lines(lines, count);
	rawtext_feed(rt, IN("o\033[3"));
	lines = rawtext_take(rt, &count);
	ck_assert_int_eq(count, 0);
	ck_assert_ptr_null(lines);
	rawtext_feed(rt, IN("1mthree\n\033]0;a\nb\007four"));
	lines = rawtext_take(rt, &count);
	ck_assert_int_eq(count, 1);
	ck_assert_str_eq(lines[0], "twothree");
	rawtext_free_lines(lines, count);
	lines = rawtext_finish(rt, &count);
	ck_assert_int_eq(count, 1);
	ck_assert_str_eq(lines[0], "four");
	rawtext_free_lines(lines, count);
}
END_TEST

/*
 * A line with no end, fed in pieces and taken as it goes, comes out in
 * pieces of RAWTEXT_LINE_MAX characters: memory stays bounded by one.
 */
START_TEST(test_take_endless_line)
{
	struct rawtext	*rt = rawtext_new();
	char		**lines, chunk[4096];
	size_t		  total = 0, fed = 0;
	int		  count, i;

	memset(chunk, 'x', sizeof chunk);
	while (fed < 10 * RAWTEXT_LINE_MAX + 5) {
		rawtext_feed(rt, chunk, sizeof chunk);
		fed += sizeof chunk;
		lines = rawtext_take(rt, &count);
		for (i = 0; i < count; i++) {
			ck_assert_uint_eq(strlen(lines[i]), RAWTEXT_LINE_MAX);
			total += strlen(lines[i]);
		}
		rawtext_free_lines(lines, count);
	}
	lines = rawtext_finish(rt, &count);
	ck_assert_int_eq(count, 1);
	total += strlen(lines[0]);
	rawtext_free_lines(lines, count);
	ck_assert_uint_eq(total, fed);
}
END_TEST

/*
 * rawtext_free() abandons the input: the lines not taken, the partial
 * line and a sequence cut in two are freed with it (ASan sees a leak).
 */
START_TEST(test_free)
{
	struct rawtext	*rt;
	char		 chunk[8192];	/* past the line buffer kept */

	rawtext_free(NULL);
	rt = rawtext_new();
	rawtext_free(rt);
	memset(chunk, 'y', sizeof chunk);
	rt = rawtext_new();
	rawtext_feed(rt, IN("one\ntwo\n"));
	rawtext_feed(rt, chunk, sizeof chunk);
	rawtext_feed(rt, IN("\xc3"));
	rawtext_free(rt);
}
END_TEST

/*
 * Backspace and overwriting work in characters, so the text stays valid
 * UTF-8: a tty with IUTF8 echoes "\b \b" once to erase a typed "é".
 */
static const struct rt_case rt_utf8_cases[] = {
	{ "erase a two-byte character", IN("\xc3\xa9\b \b\n"), { "", NULL } },
	{ "erase after text", IN("caf\xc3\xa9\b \b\bx\n"), { "cax", NULL } },
	{ "overwrite a character", IN("\xc3\xa9t\xc3\xa9\b\bX\n"),
	    { "\xc3\xa9X\xc3\xa9", NULL } },
};

/* Backspace over UTF-8 steps back one character, not one byte. */
START_TEST(test_backspace_utf8)
{
	const struct rt_case	*c = &rt_utf8_cases[_i];
	char			**lines;
	int			  count;

	lines = convert(c, NULL, 0, &count);
	assert_lines(c, lines, count, "whole");
}
END_TEST

/* Build the rawtext suite. */
/* One line on its own: plain, text, and with SGR kept. */
START_TEST(test_line)
{
	static const struct {
		const char	*in;
		int		 flags;
		const char	*want;
	} cases[] = {
		{ "plain text  ", 0, "plain text" },
		{ "a pty's line\r", 0, "a pty's line" },
		{ "10%\r100%\r\r", 0, "100%" },
		{ "long line\rshort\r", 0, "short" },
		{ "\033[32mok\033[0m\r", RAWTEXT_SGR, "\033[32mok\033[0m" },
		{ "he\033[31mllo\033[0m", 0, "hello" },
		{ "he\033[31mllo\033[0m", RAWTEXT_SGR, "he\033[31mllo\033[0m" },
		{ "\033[1;38;5;196mX\033[m", RAWTEXT_SGR,
		    "\033[1;38;5;196mX\033[m" },
		{ "\033[38:2::1:2:3mX", RAWTEXT_SGR, "\033[38:2::1:2:3mX" },
		/* Other escapes go, private "m" sequences too. */
		{ "\033[?25lA\033[2KB\033[>4;2mC\033]0;t\007D", RAWTEXT_SGR,
		    "ABCD" },
		/* A redrawn line keeps the colours of its last state. */
		{ "\033[31m10%\r\033[32m100%", RAWTEXT_SGR, "\033[32m100%" },
		{ "e\xcc\x81 caf\xc3\xa9", 0, "e\xcc\x81 caf\xc3\xa9" },
		{ "a\tb", 0, "a       b" },
		{ "abc\bd", 0, "abd" },
		{ "", 0, "" },
		{ "\033[0m", RAWTEXT_SGR, "\033[0m" },
	};
	char	*out;
	size_t	 i, len;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		out = rawtext_line(cases[i].in, strlen(cases[i].in),
		    cases[i].flags, &len);
		ck_assert_msg(strcmp(out, cases[i].want) == 0,
		    "case %zu: got \"%s\"", i, out);
		ck_assert_uint_eq(len, strlen(out));
		free(out);
	}
}
END_TEST

static Suite *
rawtext_suite(void)
{
	Suite	*s = suite_create("rawtext");
	TCase	*tc;
	int	 n = (int)(sizeof rt_cases / sizeof rt_cases[0]);

	tc = tcase_create("table");
	tcase_add_loop_test(tc, test_whole, 0, n);
	tcase_add_loop_test(tc, test_bytewise, 0, n);
	tcase_add_loop_test(tc, test_every_split, 0, n);
	tcase_add_loop_test(tc, test_take, 0, n);
	suite_add_tcase(s, tc);

	tc = tcase_create("more");
	tcase_add_test(tc, test_large);
	tcase_add_test(tc, test_take_partial);
	tcase_add_test(tc, test_take_endless_line);
	tcase_add_test(tc, test_free);
	tcase_add_test(tc, test_line);
	tcase_add_loop_test(tc, test_backspace_utf8, 0,
	    (int)(sizeof rt_utf8_cases / sizeof rt_utf8_cases[0]));
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite; exit non-zero if any test failed. */
int
main(void)
{
	SRunner	*sr = srunner_create(rawtext_suite());
	int	 failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

/*
 * check_lineedit.c: tests for the prompt's line editor: inserting, moving
 * and deleting, the Ctrl+U/K/W kills and Ctrl+C (table-driven), history
 * browsing that keeps the line being typed, duplicate and blank entries,
 * the history bound, and wide characters in and UTF-8 out.  The suite runs
 * in the C.UTF-8 locale, as jobdeck does in a UTF-8 terminal.
 */
#include <check.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "lineedit.h"

/* Type the wide string s at the cursor. */
static void
type(struct lineedit *le, const wchar_t *s)
{
	while (*s != L'\0')
		lineedit_insert(le, *s++);
}

/* Type the wide string s, take the line and free it (enter it). */
static void
enter(struct lineedit *le, const wchar_t *s)
{
	type(le, s);
	free(lineedit_take(le));
}

/* Assert that the line is want and the cursor is at cursor (test line at). */
static void
assert_line_at(int at, const struct lineedit *le, const wchar_t *want,
    size_t cursor)
{
	const wchar_t	*text;
	size_t		 len;
	char		 got[256], exp[256];

	text = lineedit_text(le, &len);
	snprintf(got, sizeof got, "%ls", text);
	snprintf(exp, sizeof exp, "%ls", want);
	ck_assert_msg(len == wcslen(want) && wmemcmp(text, want, len) == 0,
	    "line %d: line is \"%s\" (%zu), want \"%s\"", at, got, len, exp);
	ck_assert_msg(text[len] == L'\0', "line %d: line not terminated", at);
	ck_assert_msg(lineedit_cursor(le) == cursor,
	    "line %d: cursor at %zu, want %zu", at, lineedit_cursor(le),
	    cursor);
}
#define assert_line(le, want, cursor) \
	assert_line_at(__LINE__, (le), (want), (cursor))

/* Typing inserts at the cursor; the moves stop at both ends. */
START_TEST(test_insert_and_move)
{
	struct lineedit	*le = lineedit_new(10);
	int		 i;

	assert_line(le, L"", 0);
	lineedit_do(le, LINEEDIT_LEFT);
	lineedit_do(le, LINEEDIT_BACKSPACE);
	lineedit_do(le, LINEEDIT_DELETE);
	assert_line(le, L"", 0);

	type(le, L"helo");
	assert_line(le, L"helo", 4);
	lineedit_do(le, LINEEDIT_LEFT);
	lineedit_insert(le, L'l');
	assert_line(le, L"hello", 4);
	lineedit_do(le, LINEEDIT_HOME);
	assert_line(le, L"hello", 0);
	lineedit_do(le, LINEEDIT_LEFT);
	assert_line(le, L"hello", 0);
	lineedit_insert(le, L'>');
	assert_line(le, L">hello", 1);
	lineedit_do(le, LINEEDIT_END);
	assert_line(le, L">hello", 6);
	lineedit_do(le, LINEEDIT_RIGHT);
	assert_line(le, L">hello", 6);
	lineedit_do(le, LINEEDIT_LEFT);
	lineedit_do(le, LINEEDIT_LEFT);
	lineedit_do(le, LINEEDIT_RIGHT);
	assert_line(le, L">hello", 5);

	/* A line longer than the first allocation. */
	lineedit_do(le, LINEEDIT_CLEAR);
	for (i = 0; i < 1000; i++)
		lineedit_insert(le, (wchar_t)(L'a' + i % 26));
	ck_assert_uint_eq(lineedit_cursor(le), 1000);
	ck_assert_int_eq(lineedit_text(le, NULL)[999], L'a' + 999 % 26);
	lineedit_free(le);
}
END_TEST

/* One editing action on a line with the cursor at a given place. */
static const struct edit_case {
	const wchar_t		*text;
	size_t			 cursor;
	enum lineedit_action	 action;
	const wchar_t		*want;
	size_t			 want_cursor;
} edit_cases[] = {
	{ L"hello", 5, LINEEDIT_BACKSPACE, L"hell", 4 },
	{ L"hello", 2, LINEEDIT_BACKSPACE, L"hllo", 1 },
	{ L"hello", 0, LINEEDIT_BACKSPACE, L"hello", 0 },
	{ L"hello", 2, LINEEDIT_DELETE, L"helo", 2 },
	{ L"hello", 0, LINEEDIT_DELETE, L"ello", 0 },
	{ L"hello", 5, LINEEDIT_DELETE, L"hello", 5 },
	{ L"hello", 3, LINEEDIT_HOME, L"hello", 0 },
	{ L"hello", 3, LINEEDIT_END, L"hello", 5 },

	/* Ctrl+U: delete from the start of the line to the cursor. */
	{ L"hello world", 6, LINEEDIT_KILL_START, L"world", 0 },
	{ L"hello world", 11, LINEEDIT_KILL_START, L"", 0 },
	{ L"hello world", 0, LINEEDIT_KILL_START, L"hello world", 0 },

	/* Ctrl+K: delete from the cursor to the end of the line. */
	{ L"hello world", 5, LINEEDIT_KILL_END, L"hello", 5 },
	{ L"hello world", 0, LINEEDIT_KILL_END, L"", 0 },
	{ L"hello world", 11, LINEEDIT_KILL_END, L"hello world", 11 },

	/* Ctrl+W: the blanks before the cursor, then the word before them. */
	{ L"echo foo bar", 12, LINEEDIT_KILL_WORD, L"echo foo ", 9 },
	{ L"echo foo  \t", 11, LINEEDIT_KILL_WORD, L"echo ", 5 },
	{ L"echo foobar", 8, LINEEDIT_KILL_WORD, L"echo bar", 5 },
	{ L"echo foo bar", 9, LINEEDIT_KILL_WORD, L"echo bar", 5 },
	{ L"ls -l /tmp", 10, LINEEDIT_KILL_WORD, L"ls -l ", 6 },
	{ L"word", 4, LINEEDIT_KILL_WORD, L"", 0 },
	{ L"   ", 3, LINEEDIT_KILL_WORD, L"", 0 },
	{ L"echo foo", 0, LINEEDIT_KILL_WORD, L"echo foo", 0 },

	/* Ctrl+C: an empty line. */
	{ L"echo foo", 3, LINEEDIT_CLEAR, L"", 0 },
};

/* Each row of edit_cases gives the expected line and cursor. */
START_TEST(test_edit_table)
{
	const struct edit_case	*c = &edit_cases[_i];
	struct lineedit		*le = lineedit_new(10);
	size_t			 k;

	type(le, c->text);
	lineedit_do(le, LINEEDIT_HOME);
	for (k = 0; k < c->cursor; k++)
		lineedit_do(le, LINEEDIT_RIGHT);
	assert_line(le, c->text, c->cursor);
	lineedit_do(le, c->action);
	assert_line(le, c->want, c->want_cursor);
	lineedit_free(le);
}
END_TEST

/* lineedit_take returns the line, adds it to history and starts afresh. */
START_TEST(test_take)
{
	struct lineedit	*le = lineedit_new(10);
	char		*s;

	type(le, L"echo hi");
	lineedit_do(le, LINEEDIT_HOME);
	s = lineedit_take(le);
	ck_assert_str_eq(s, "echo hi");
	free(s);
	assert_line(le, L"", 0);

	s = lineedit_take(le);
	ck_assert_str_eq(s, "");
	free(s);
	lineedit_do(le, LINEEDIT_PREV);
	assert_line(le, L"echo hi", 7);
	lineedit_free(le);
}
END_TEST

/* Up and Down walk the history and Down past the newest restores the draft. */
START_TEST(test_history_browse_keeps_draft)
{
	struct lineedit	*le = lineedit_new(10);
	char		*s;

	/* With no history, Up and Down change nothing. */
	type(le, L"x");
	lineedit_do(le, LINEEDIT_PREV);
	assert_line(le, L"x", 1);
	lineedit_do(le, LINEEDIT_NEXT);
	assert_line(le, L"x", 1);
	lineedit_do(le, LINEEDIT_CLEAR);

	enter(le, L"one");
	enter(le, L"two");
	type(le, L"draft");
	lineedit_do(le, LINEEDIT_LEFT);
	lineedit_do(le, LINEEDIT_PREV);
	assert_line(le, L"two", 3);
	lineedit_do(le, LINEEDIT_PREV);
	assert_line(le, L"one", 3);
	lineedit_do(le, LINEEDIT_PREV);
	assert_line(le, L"one", 3);
	lineedit_do(le, LINEEDIT_NEXT);
	assert_line(le, L"two", 3);
	lineedit_do(le, LINEEDIT_NEXT);
	assert_line(le, L"draft", 5);
	lineedit_do(le, LINEEDIT_NEXT);
	assert_line(le, L"draft", 5);

	/* An entry recalled and edited is taken as edited. */
	lineedit_do(le, LINEEDIT_PREV);
	lineedit_do(le, LINEEDIT_PREV);
	type(le, L"!");
	s = lineedit_take(le);
	ck_assert_str_eq(s, "one!");
	free(s);
	assert_line(le, L"", 0);
	lineedit_do(le, LINEEDIT_PREV);
	assert_line(le, L"one!", 4);
	lineedit_do(le, LINEEDIT_PREV);
	assert_line(le, L"two", 3);

	/* Ctrl+C while browsing leaves an empty new line. */
	lineedit_do(le, LINEEDIT_CLEAR);
	assert_line(le, L"", 0);
	lineedit_do(le, LINEEDIT_NEXT);
	assert_line(le, L"", 0);
	lineedit_do(le, LINEEDIT_PREV);
	assert_line(le, L"one!", 4);
	lineedit_do(le, LINEEDIT_NEXT);
	assert_line(le, L"", 0);
	lineedit_free(le);
}
END_TEST

/* Repeating the last entry adds nothing; blank lines add nothing either. */
START_TEST(test_history_no_duplicates_or_blanks)
{
	struct lineedit	*le = lineedit_new(10);
	static const wchar_t *const want[] = { L"ls", L"pwd", L"ls" };
	int		 i;

	enter(le, L"ls");
	enter(le, L"ls");
	enter(le, L"pwd");
	enter(le, L"   ");
	enter(le, L"\t");
	enter(le, L"");
	enter(le, L"ls");
	enter(le, L"ls");
	for (i = 2; i >= 0; i--) {
		lineedit_do(le, LINEEDIT_PREV);
		assert_line(le, want[i], wcslen(want[i]));
	}
	lineedit_do(le, LINEEDIT_PREV);
	assert_line(le, L"ls", 2);
	for (i = 1; i < 3; i++) {
		lineedit_do(le, LINEEDIT_NEXT);
		assert_line(le, want[i], wcslen(want[i]));
	}
	lineedit_do(le, LINEEDIT_NEXT);
	assert_line(le, L"", 0);
	lineedit_free(le);
}
END_TEST

/* The history keeps only the newest history_max entries. */
START_TEST(test_history_bound)
{
	struct lineedit	*le = lineedit_new(3);
	static const wchar_t *const lines[] = { L"a", L"b", L"c", L"d", L"e" };
	int		 i;

	for (i = 0; i < 5; i++)
		enter(le, lines[i]);
	for (i = 4; i >= 2; i--) {
		lineedit_do(le, LINEEDIT_PREV);
		assert_line(le, lines[i], 1);
	}
	lineedit_do(le, LINEEDIT_PREV);
	assert_line(le, L"c", 1);
	lineedit_free(le);

	/* A bound below one still keeps the last line. */
	le = lineedit_new(0);
	enter(le, L"x");
	enter(le, L"y");
	lineedit_do(le, LINEEDIT_PREV);
	assert_line(le, L"y", 1);
	lineedit_do(le, LINEEDIT_PREV);
	assert_line(le, L"y", 1);
	lineedit_free(le);
}
END_TEST

/* Wide characters count as one each and come out of take as UTF-8. */
START_TEST(test_wide_characters)
{
	struct lineedit	*le = lineedit_new(10);
	char		*s;

	type(le, L"echo 日本é");
	lineedit_insert(le, (wchar_t)0x1f600);	/* an emoji, outside the BMP */
	assert_line(le, L"echo 日本é\U0001F600", 9);
	lineedit_do(le, LINEEDIT_LEFT);
	lineedit_do(le, LINEEDIT_LEFT);
	lineedit_do(le, LINEEDIT_BACKSPACE);
	assert_line(le, L"echo 日é\U0001F600", 6);
	lineedit_do(le, LINEEDIT_DELETE);
	assert_line(le, L"echo 日\U0001F600", 6);
	s = lineedit_take(le);
	ck_assert_str_eq(s, "echo \xe6\x97\xa5\xf0\x9f\x98\x80");
	free(s);

	/* Recalled from history, the line is wide characters again. */
	lineedit_do(le, LINEEDIT_PREV);
	assert_line(le, L"echo 日\U0001F600", 7);
	lineedit_do(le, LINEEDIT_LEFT);
	lineedit_do(le, LINEEDIT_KILL_WORD);
	assert_line(le, L"echo \U0001F600", 5);
	s = lineedit_take(le);
	ck_assert_str_eq(s, "echo \xf0\x9f\x98\x80");
	free(s);
	lineedit_free(le);
}
END_TEST

/* Build the lineedit suite. */
static Suite *
lineedit_suite(void)
{
	Suite	*s = suite_create("lineedit");
	TCase	*tc;

	tc = tcase_create("edit");
	tcase_add_test(tc, test_insert_and_move);
	tcase_add_loop_test(tc, test_edit_table, 0,
	    (int)(sizeof edit_cases / sizeof edit_cases[0]));
	tcase_add_test(tc, test_take);
	tcase_add_test(tc, test_wide_characters);
	suite_add_tcase(s, tc);

	tc = tcase_create("history");
	tcase_add_test(tc, test_history_browse_keeps_draft);
	tcase_add_test(tc, test_history_no_duplicates_or_blanks);
	tcase_add_test(tc, test_history_bound);
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
		fprintf(stderr, "check_lineedit: no C.UTF-8 locale\n");
		return EXIT_FAILURE;
	}
	sr = srunner_create(lineedit_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

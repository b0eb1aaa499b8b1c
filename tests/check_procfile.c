/*
 * check_procfile.c: tests for the Procfile parser: the accepted forms
 * (comments, blanks, CRLF, colons in commands, a byte order mark), every
 * error message with its line number, and the limits.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "procfile.h"

/*
 * The table: input (len 0 means strlen) and the entries, each written
 * name=command@line and joined by '|', or "!message" for an error.
 */
static const struct {
	const char	*in;
	size_t		 len;
	const char	*want;
} procfile_cases[] = {
	/* Accepted forms. */
	{ "", 0, "" },
	{ "web: ./server\n", 0, "web=./server@1" },
	{ "web: a\nworker: b", 0, "web=a@1|worker=b@2" },
	{ "web:cmd", 0, "web=cmd@1" },
	{ "web:    spaced  out \t \n", 0, "web=spaced  out@1" },
	{ "\n\n# comment\n   # indented: x\nweb: x\n", 0, "web=x@5" },
	{ "web: a\r\nworker: b\r\n", 0, "web=a@1|worker=b@2" },
	{ "\r\n \t\r\n", 0, "" },
	{ "# only: comments\n#web: x", 0, "" },
	{ "web: echo a:b c:d", 0, "web=echo a:b c:d@1" },
	{ "web : x", 0, "web=x@1" },
	{ "  web: x", 0, "web=x@1" },
	{ "my-app_2: x\nWEB: y\nweb: z", 0, "my-app_2=x@1|WEB=y@2|web=z@3" },
	{ "\xef\xbb\xbfweb: x", 0, "web=x@1" },
	{ "web: echo # not a comment", 0, "web=echo # not a comment@1" },
	{ "web: a\rb", 0, "web=a\rb@1" },
	{ "web: abcdef", 8, "web=abc@1" },
	{ "1a: x\nw.eb: y", 0, "1a=x@1|w.eb=y@2" },

	/* Errors, each with its line. */
	{ "web", 0, "!1: expected 'name: command'" },
	{ "ok: x\n\nno colon here\n", 0, "!3: expected 'name: command'" },
	{ ": x", 0, "!1: expected 'name: command'" },
	{ "  \t: x", 0, "!1: expected 'name: command'" },
	{ "web:\n", 0, "!1: empty command for 'web'" },
	{ "a: b\n\nweb:   \t\r\n", 0, "!3: empty command for 'web'" },
	{ "a: x\nweb: y\nb: z\nweb: w", 0,
	    "!4: duplicate name 'web' (first on line 2)" },
	{ "web: x\r\nweb: x\r\n", 0,
	    "!2: duplicate name 'web' (first on line 1)" },
	/* Names follow name_check_job(), as in config.toml and !spawn. */
	{ "x: y\nwe b: c", 0, "!2: job name 'we b' may only have letters, "
	    "digits, '_', '.' and '-'" },
	{ "1: x", 0, "!1: job name '1' must not be all digits (ids are "
	    "numbers)" },
	/* A name is a command's operand: it cannot look like an option. */
	{ "-web: x", 0, "!1: job name '-web' must not start with '-' (it "
	    "would read as an option)" },
	{ "w\xc3\xa9" "b: x", 0, "!1: job name 'w\xc3\xa9" "b' may only "
	    "have letters, digits, '_', '.' and '-'" },
	/* Control characters (ESC, BEL, C1 NEL, DEL) never get in. */
	{ "a\x1b" "b: x", 0, "!1: job name 'a\\eb' may only have letters, "
	    "digits, '_', '.' and '-'" },
	{ "a\x07: x", 0, "!1: job name 'a\\a' may only have letters, "
	    "digits, '_', '.' and '-'" },
	{ "a\xc2\x85: x", 0, "!1: job name 'a\\u0085' may only have "
	    "letters, digits, '_', '.' and '-'" },
	{ "a\x7f: x", 0, "!1: job name 'a\\x7f' may only have letters, "
	    "digits, '_', '.' and '-'" },
	{ "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa b: x", 0,
	    "!1: job name 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...' may only have "
	    "letters, digits, '_', '.' and '-'" },
	{ "web: a\0b", 8, "!1: NUL byte in line" },
	{ "web: a\n# x\0y\n", 13, "!2: NUL byte in line" },
	{ "\0", 1, "!1: NUL byte in line" },
};
#define NCASES (sizeof procfile_cases / sizeof procfile_cases[0])

/* Render entries as name=command@line joined by '|' (caller frees). */
static char *
render(const struct procfile_entry *ents, size_t n)
{
	char	*s, *t;
	size_t	 i;

	s = strdup("");
	ck_assert_ptr_nonnull(s);
	for (i = 0; i < n; i++) {
		if (asprintf(&t, "%s%s%s=%s@%zu", s, i == 0 ? "" : "|",
		    ents[i].name, ents[i].command, ents[i].line) == -1)
			ck_abort();
		free(s);
		s = t;
	}
	return s;
}

/* One row of the table (a loop test, so each row counts as a check). */
START_TEST(test_procfile_table)
{
	struct procfile_entry	*ents = (void *)1;
	const char		*in = procfile_cases[_i].in;
	const char		*want = procfile_cases[_i].want;
	char			*got, *cause = NULL;
	size_t			 len = procfile_cases[_i].len, n = 99;
	int			 r;

	if (len == 0)
		len = strlen(in);
	r = procfile_parse(in, len, &ents, &n, &cause);
	if (want[0] == '!') {
		ck_assert_msg(r == -1, "case %d did not fail", _i);
		ck_assert_ptr_null(ents);
		ck_assert_uint_eq(n, 0);
		ck_assert_msg(strcmp(cause, want + 1) == 0,
		    "case %d: got <%s>, want <%s>", _i, cause, want + 1);
		free(cause);
		return;
	}
	ck_assert_msg(r == 0, "case %d: %s", _i, cause);
	got = render(ents, n);
	ck_assert_msg(strcmp(got, want) == 0, "case %d: got <%s>, want <%s>",
	    _i, got, want);
	free(got);
	procfile_free(ents, n);
}
END_TEST

START_TEST(test_line_limit)
{
	char			*buf, *cause = NULL;
	struct procfile_entry	*ents;
	size_t			 n, len;

	/* A line of exactly the limit is fine, one byte more is not. */
	len = PROCFILE_MAX_LINE + 64;
	buf = malloc(len);
	ck_assert_ptr_nonnull(buf);
	memcpy(buf, "a: ok\nweb: ", 11);
	memset(buf + 11, 'x', len - 11);
	ck_assert_int_eq(procfile_parse(buf, 6 + PROCFILE_MAX_LINE, &ents, &n,
	    &cause), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(strlen(ents[1].command), PROCFILE_MAX_LINE - 5);
	procfile_free(ents, n);
	ck_assert_int_eq(procfile_parse(buf, 7 + PROCFILE_MAX_LINE, &ents, &n,
	    &cause), -1);
	ck_assert_str_eq(cause, "2: line longer than 65536 bytes");
	free(cause);
	free(buf);
}
END_TEST

START_TEST(test_entry_limit)
{
	char			*buf, *cause = NULL;
	struct procfile_entry	*ents;
	size_t			 n, len = 0, i;

	buf = malloc((PROCFILE_MAX_ENTRIES + 1) * 32);
	ck_assert_ptr_nonnull(buf);
	for (i = 0; i < PROCFILE_MAX_ENTRIES; i++)
		len += (size_t)sprintf(buf + len, "p%zu: run %zu\n", i, i);
	ck_assert_int_eq(procfile_parse(buf, len, &ents, &n, &cause), 0);
	ck_assert_uint_eq(n, PROCFILE_MAX_ENTRIES);
	ck_assert_str_eq(ents[n - 1].name, "p255");
	ck_assert_str_eq(ents[n - 1].command, "run 255");
	procfile_free(ents, n);

	len += (size_t)sprintf(buf + len, "# fine\nextra: x\n");
	ck_assert_int_eq(procfile_parse(buf, len, &ents, &n, &cause), -1);
	ck_assert_str_eq(cause, "258: more than 256 entries");
	free(cause);
	free(buf);
}
END_TEST

START_TEST(test_null_and_free)
{
	struct procfile_entry	*ents = (void *)1;
	char			*cause = NULL;
	size_t			 n = 7;

	ck_assert_int_eq(procfile_parse(NULL, 0, &ents, &n, &cause), 0);
	ck_assert_ptr_null(ents);
	ck_assert_uint_eq(n, 0);
	procfile_free(NULL, 0);
	ck_assert_ptr_null(cause);
}
END_TEST

START_TEST(test_not_terminated)
{
	struct procfile_entry	*ents;
	char			*buf, *cause = NULL;
	size_t			 n;

	/* An exact-size heap copy: no byte past len is ever read. */
	buf = malloc(11);
	ck_assert_ptr_nonnull(buf);
	memcpy(buf, "web: x\nw: y", 11);
	ck_assert_int_eq(procfile_parse(buf, 11, &ents, &n, &cause), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(ents[1].command, "y");
	procfile_free(ents, n);
	memcpy(buf, "web: x\nw:  ", 11);
	ck_assert_int_eq(procfile_parse(buf, 11, &ents, &n, &cause), -1);
	ck_assert_str_eq(cause, "2: empty command for 'w'");
	free(cause);
	free(buf);
}
END_TEST

/* Build the procfile suite. */
static Suite *
procfile_suite(void)
{
	Suite	*s = suite_create("procfile");
	TCase	*tc;

	tc = tcase_create("table");
	tcase_add_loop_test(tc, test_procfile_table, 0, (int)NCASES);
	suite_add_tcase(s, tc);

	tc = tcase_create("limits");
	tcase_add_test(tc, test_line_limit);
	tcase_add_test(tc, test_entry_limit);
	tcase_add_test(tc, test_null_and_free);
	tcase_add_test(tc, test_not_terminated);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite; exit non-zero if any test failed. */
int
main(void)
{
	SRunner	*sr = srunner_create(procfile_suite());
	int	 failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

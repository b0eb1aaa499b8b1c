/*
 * check_cliopt.c: tests for cliopt: one table drives the parse, the usage
 * line and the help; refused options are said in one wording.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cliopt.h"

#define T_UP	0x100

static const struct cliopt t_opts[] = {
	{ NULL, 'c', "FILE", "a file", 0 },
	{ "json", 0, NULL, "as JSON", 0 },
	{ "env", 0, "K=V", "a variable\n(may be repeated)", CLIOPT_REPEAT },
	{ "stay", 0, NULL, "up only", T_UP },
	{ "verbose", 'v', NULL, "say more", 0 },
	{ "help", 'h', NULL, "show this help", CLIOPT_HIDDEN },
};
#define T_N	CLIOPT_COUNT(t_opts)

/* Parse argv (NULL-terminated) and return the rows seen, as a string of
 * their indexes ("0 2 2"), with "E" for a refused option and the first
 * operand's index after '|'. */
static char *
t_parse(char **argv, char **values)
{
	struct cliopt_parser	 p;
	char			*out;
	size_t			 len = 0;
	FILE			*f;
	int			 argc = 0, i, nv = 0;

	while (argv[argc] != NULL)
		argc++;
	f = open_memstream(&out, &len);
	cliopt_begin(&p, "prog", t_opts, T_N);
	while ((i = cliopt_next(&p, argc, argv)) != -1) {
		if (i == -2) {
			fprintf(f, "E ");
			continue;
		}
		fprintf(f, "%d ", i);
		if (p.value != NULL && values != NULL)
			values[nv++] = p.value;
	}
	fprintf(f, "|%d", p.first);
	cliopt_end(&p);
	fclose(f);
	return out;
}

/* Run t_parse with stderr caught; return what it said there. */
static char *
t_parse_err(char **argv, char **rows)
{
	char	*err;
	FILE	*tmp = tmpfile();
	long	 n;
	int	 saved = dup(STDERR_FILENO);

	ck_assert_ptr_nonnull(tmp);
	fflush(stderr);
	dup2(fileno(tmp), STDERR_FILENO);
	*rows = t_parse(argv, NULL);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	n = ftell(tmp);
	err = calloc(1, (size_t)n + 1);
	rewind(tmp);
	ck_assert_int_eq(fread(err, 1, (size_t)n, tmp), (size_t)n);
	fclose(tmp);
	return err;
}

/* Short, long-only and repeated options come back as their rows, in order. */
START_TEST(test_rows)
{
	char	*argv[] = { "prog", "-c", "a.toml", "--json", "--env", "A=1",
	    "--env=B=2", "-v", "word", "--json", NULL };
	char	*values[8] = { 0 }, *rows;

	rows = t_parse(argv, values);
	ck_assert_str_eq(rows, "0 1 2 2 4 |8");
	ck_assert_str_eq(values[0], "a.toml");
	ck_assert_str_eq(values[1], "A=1");
	ck_assert_str_eq(values[2], "B=2");
	free(rows);
}
END_TEST

/* "--" ends the options; the operands start after it. */
START_TEST(test_dashdash)
{
	char	*argv[] = { "prog", "-v", "--", "-c", NULL }, *rows;

	rows = t_parse(argv, NULL);
	ck_assert_str_eq(rows, "4 |3");
	free(rows);
}
END_TEST

/* A missing value, an unknown letter and an unknown long name: one wording. */
START_TEST(test_refused)
{
	char	*a1[] = { "prog", "-c", NULL };
	char	*a2[] = { "prog", "-x", NULL };
	char	*a3[] = { "prog", "--nope", NULL };
	char	*a4[] = { "prog", "--env", NULL };
	char	*err, *rows;

	err = t_parse_err(a1, &rows);
	ck_assert_str_eq(err, "prog: option '-c' needs a value\n");
	ck_assert_str_eq(rows, "E |2");
	free(err);
	free(rows);
	err = t_parse_err(a2, &rows);
	ck_assert_str_eq(err, "prog: unknown option '-x'\n");
	free(err);
	free(rows);
	err = t_parse_err(a3, &rows);
	ck_assert_str_eq(err, "prog: unknown option '--nope'\n");
	free(err);
	free(rows);
	err = t_parse_err(a4, &rows);
	ck_assert_str_eq(err, "prog: option '--env' needs a value\n");
	free(err);
	free(rows);
}
END_TEST

/* Print a usage line into a string. */
static char *
t_usage(const char *prog, unsigned int modes, const char *operands)
{
	char	*out;
	size_t	 len;
	FILE	*f = open_memstream(&out, &len);

	cliopt_usage(f, "usage:", prog, t_opts, T_N, modes, operands);
	fclose(f);
	return out;
}

/* The usage line: rows of other modes and hidden rows left out, "..." on
 * repeated ones; with the mode, its rows are in. */
START_TEST(test_usage)
{
	char	*u;

	u = t_usage("prog", 0, "ARG");
	ck_assert_str_eq(u, "usage: prog [-c FILE] [--json] [--env K=V]... "
	    "[-v] ARG\n");
	free(u);
	u = t_usage("prog up", T_UP, NULL);
	ck_assert_str_eq(u, "usage: prog up [-c FILE] [--json] [--env K=V]... "
	    "[--stay] [-v]\n");
	free(u);
}
END_TEST

/* A long usage wraps before column 79, under the first option. */
START_TEST(test_usage_wraps)
{
	char	*u, *line, *save = NULL;
	int	 n = 0;

	u = t_usage("jobdeck a-long-subcommand", T_UP,
	    "(JOBNAME | -- PROGRAM [ARG...])");
	for (line = strtok_r(u, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save), n++) {
		ck_assert_int_lt((int)strlen(line), 79);
		if (n > 0)
			ck_assert_msg(strspn(line, " ") == 33,
			    "continuation not under the first option: '%s'",
			    line);
	}
	ck_assert_int_ge(n, 2);
	free(u);
}
END_TEST

/* Help: both forms, multi-line texts aligned, other modes' rows out. */
START_TEST(test_help)
{
	char	*out;
	size_t	 len;
	FILE	*f = open_memstream(&out, &len);

	cliopt_help(f, t_opts, T_N, 0);
	fclose(f);
	ck_assert_str_eq(out,
	    "  -c FILE            a file\n"
	    "  --json             as JSON\n"
	    "  --env K=V          a variable\n"
	    "                     (may be repeated)\n"
	    "  -v, --verbose      say more\n"
	    "  -h, --help         show this help\n");
	free(out);
}
END_TEST

/* Build the cliopt suite. */
static Suite *
cliopt_suite(void)
{
	Suite	*s = suite_create("cliopt");
	TCase	*tc = tcase_create("cliopt");

	tcase_add_test(tc, test_rows);
	tcase_add_test(tc, test_dashdash);
	tcase_add_test(tc, test_refused);
	tcase_add_test(tc, test_usage);
	tcase_add_test(tc, test_usage_wraps);
	tcase_add_test(tc, test_help);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite; exit non-zero if any test failed. */
int
main(void)
{
	SRunner	*sr;
	int	 failed;

	sr = srunner_create(cliopt_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

/*
 * check_need: scripts/deps.list, the one list of what the build and the
 * tests need from outside the tree, and the two that read it: need.c
 * (a test asks for what it needs) and scripts/deps.sh (installs it).
 * Every NEED("...") in the tests' sources must be named by the list, so
 * a fresh machine that ran deps.sh has everything the suite uses.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "need.h"

#ifndef JOBDECK_SRCDIR
#define JOBDECK_SRCDIR "."
#endif

static char	tmpdir[64];

/* Make a scratch directory. */
static void
setup(void)
{
	strcpy(tmpdir, "/tmp/check_need.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

/* Remove the scratch directory and what it holds. */
static void
teardown(void)
{
	char	cmd[128];

	snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "cleanup of %s failed\n", tmpdir);
}

/* Write a list of text into the scratch directory; return its path. */
static const char *
write_list(const char *text)
{
	static char	 path[128];
	FILE		*f;

	snprintf(path, sizeof path, "%s/deps.list", tmpdir);
	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	ck_assert_int_ge(fputs(text, f), 0);
	ck_assert_int_eq(fclose(f), 0);
	return path;
}

/* Return whether s is a Debian package name (policy 5.6.1). */
static int
package_name(const char *s)
{
	size_t	i;

	if (strlen(s) < 2 || !((s[0] >= 'a' && s[0] <= 'z') ||
	    (s[0] >= '0' && s[0] <= '9')))
		return 0;
	for (i = 1; s[i] != '\0'; i++) {
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= '0' && s[i] <= '9') || strchr("+-.", s[i])))
			return 0;
	}
	return 1;
}

/* The tree's list: every line a package, a known kind and a thing. */
START_TEST(test_list_well_formed)
{
	FILE	*f;
	char	 line[1024], pkg[256], kind[64], what[512], extra[8];
	int	 no = 0, lines = 0;

	f = fopen(need_list(), "r");
	ck_assert_msg(f != NULL, "%s: %s", need_list(), strerror(errno));
	while (fgets(line, sizeof line, f) != NULL) {
		no++;
		if (line[0] == '#' || strspn(line, " \t\n") == strlen(line))
			continue;
		ck_assert_msg(sscanf(line, "%255s %63s %511s %7s", pkg, kind,
		    what, extra) == 3, "%s:%d: want PACKAGE KIND WHAT",
		    need_list(), no);
		ck_assert_msg(package_name(pkg), "%s:%d: %s is not a package "
		    "name", need_list(), no, pkg);
		ck_assert_msg(need_here(kind, "x") != -1, "%s:%d: unknown "
		    "kind %s", need_list(), no, kind);
		lines++;
	}
	fclose(f);
	ck_assert_int_gt(lines, 10);
}
END_TEST

/*
 * Check every NEED("what") (and need_or_fail("what", ...)) of one source
 * file against the tree's list; return how many there were.
 */
static int
scan_file(const char *path)
{
	static const char *const asks[] = { "NEED(\"", "need_or_fail(\"" };
	FILE		*f;
	char		 line[4096], what[512], why[1024], *p, *q;
	enum need_result r;
	size_t		 k;
	int		 found = 0, no = 0;

	ck_assert_msg((f = fopen(path, "r")) != NULL, "%s: %s", path,
	    strerror(errno));
	while (fgets(line, sizeof line, f) != NULL) {
		no++;
		for (k = 0; k < sizeof asks / sizeof asks[0]; k++) {
			for (p = line; (p = strstr(p, asks[k])) != NULL;
			    p = q) {
				p += strlen(asks[k]);
				ck_assert_ptr_nonnull(q = strchr(p, '"'));
				ck_assert_int_lt(q - p, (int)sizeof what);
				memcpy(what, p, (size_t)(q - p));
				what[q - p] = '\0';
				r = need_check(need_list(), what, why,
				    sizeof why);
				ck_assert_msg(r == NEED_HERE ||
				    r == NEED_MISSING, "%s:%d: %s", path, no,
				    why);
				found++;
			}
		}
	}
	fclose(f);
	return found;
}

/* Check the NEED()s of every .c file in a directory; return how many. */
static int
scan_dir(const char *dir)
{
	DIR		*d;
	struct dirent	*de;
	char		 path[PATH_MAX];
	size_t		 len;
	int		 found = 0;

	ck_assert_msg((d = opendir(dir)) != NULL, "%s: %s", dir,
	    strerror(errno));
	while ((de = readdir(d)) != NULL) {
		len = strlen(de->d_name);
		if (len < 3 || strcmp(de->d_name + len - 2, ".c") != 0 ||
		    strcmp(de->d_name, "need.c") == 0 ||
		    strcmp(de->d_name, "check_need.c") == 0)
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		found += scan_file(path);
	}
	closedir(d);
	return found;
}

/* Every NEED() in the tests' sources names something the list names. */
START_TEST(test_every_need_listed)
{
	int	found;

	found = scan_dir(JOBDECK_SRCDIR "/tests");
	found += scan_dir(JOBDECK_SRCDIR "/tests/e2e");
	ck_assert_int_gt(found, 5);
}
END_TEST

/* Present, missing (its package named) and unlisted, on a list of ours. */
START_TEST(test_check_results)
{
	const char	*list;
	char		 why[512];

	list = write_list("# a comment\n\n"
	    "base-files\tfile\t/\n"
	    "jd-fake-pkg\tprogram\tjd-no-such-program\n"
	    "jd-fake-term\tterminfo\tjd-no-such-terminal\n");
	ck_assert_int_eq(need_check(list, "/", why, sizeof why), NEED_HERE);
	ck_assert_int_eq(need_check(list, "jd-no-such-program", why,
	    sizeof why), NEED_MISSING);
	ck_assert_str_eq(why, "needs program jd-no-such-program, which "
	    "Debian's jd-fake-pkg brings (scripts/deps.sh installs it: make "
	    "check runs it)");
	ck_assert_int_eq(need_check(list, "jd-no-such-terminal", why,
	    sizeof why), NEED_MISSING);
	ck_assert_ptr_nonnull(strstr(why, "jd-fake-term"));
	ck_assert_int_eq(need_check(list, "sh", why, sizeof why),
	    NEED_UNLISTED);
	ck_assert_ptr_nonnull(strstr(why, "the test needs sh, which "));
	ck_assert_ptr_nonnull(strstr(why, "does not name"));
	list = write_list("pkg program\n");
	ck_assert_int_eq(need_check(list, "x", why, sizeof why), NEED_BAD_LIST);
	ck_assert_ptr_nonnull(strstr(why, "deps.list:1: want PACKAGE KIND "
	    "WHAT"));
	list = write_list("pkg gadget thing\n");
	ck_assert_int_eq(need_check(list, "thing", why, sizeof why),
	    NEED_BAD_LIST);
	ck_assert_ptr_nonnull(strstr(why, "unknown kind 'gadget'"));
	ck_assert_int_eq(need_check("/nonexistent/deps.list", "x", why,
	    sizeof why), NEED_BAD_LIST);
}
END_TEST

/* Run scripts/deps.sh --dry-run on list; return its stdout (static). */
static const char *
deps_dry_run(const char *list, int *status)
{
	static char	 out[4096];
	char		 cmd[PATH_MAX * 2];
	FILE		*p;
	size_t		 n;

	snprintf(cmd, sizeof cmd, "JOBDECK_DEPS_LIST='%s' sh '%s/scripts/"
	    "deps.sh' --dry-run 2>&1", list, JOBDECK_SRCDIR);
	ck_assert_ptr_nonnull(p = popen(cmd, "r"));
	n = fread(out, 1, sizeof out - 1, p);
	out[n] = '\0';
	*status = pclose(p);
	return out;
}

/* deps.sh reads the same list: what is missing is what it installs. */
START_TEST(test_deps_sh_reads_list)
{
	const char	*list, *out;
	int		 status;

	list = write_list("base-files file /\n"
	    "jd-fake-pkg program jd-no-such-program\n"
	    "jd-fake-pkg program jd-no-such-program-2\n"
	    "jd-other-pkg terminfo jd-no-such-terminal\n");
	out = deps_dry_run(list, &status);
	ck_assert_int_eq(status, 0);
	ck_assert_str_eq(out, "jobdeck: would install: jd-fake-pkg "
	    "jd-other-pkg\n");
	list = write_list("# nothing missing\nbase-files file /\n");
	out = deps_dry_run(list, &status);
	ck_assert_int_eq(status, 0);
	ck_assert_str_eq(out, "");
}
END_TEST

/* make, told nothing by the make that runs the tests, run dry. */
#define MAKE_DRY "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -n"

/*
 * Plain make on a machine without the libraries says, in one line, what
 * is missing and what to run; the goals that install first go ahead.
 */
START_TEST(test_make_says_missing)
{
	char	 cmd[PATH_MAX + 128], out[4096];
	FILE	*p;
	size_t	 n;
	int	 status;

	snprintf(cmd, sizeof cmd, "%s -C '%s' PKG_CONFIG=false jobdeck 2>&1",
	    MAKE_DRY, JOBDECK_SRCDIR);
	ck_assert_ptr_nonnull(p = popen(cmd, "r"));
	n = fread(out, 1, sizeof out - 1, p);
	out[n] = '\0';
	status = pclose(p);
	ck_assert_int_ne(status, 0);
	ck_assert_msg(strstr(out, "jobdeck: missing libraries: ncursesw "
	    "vterm libcurl jansson. Run `make run` or `make check`, which "
	    "install what is missing first (or sh scripts/deps.sh)") != NULL,
	    "make said: %s", out);
	ck_assert_msg(strchr(out, '\n') == strrchr(out, '\n'), "more than "
	    "one line: %s", out);
	snprintf(cmd, sizeof cmd, "%s -C '%s' PKG_CONFIG=false deps "
	    ">/dev/null 2>&1", MAKE_DRY, JOBDECK_SRCDIR);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* The suite. */
static Suite *
need_suite(void)
{
	Suite	*s = suite_create("need");
	TCase	*tc = tcase_create("need");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_list_well_formed);
	tcase_add_test(tc, test_every_need_listed);
	tcase_add_test(tc, test_check_results);
	tcase_add_test(tc, test_deps_sh_reads_list);
	tcase_add_test(tc, test_make_says_missing);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner	*sr = srunner_create(need_suite());
	int	 failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

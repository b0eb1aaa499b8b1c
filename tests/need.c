/*
 * need: a test's outside needs looked up in scripts/deps.list and on this
 * machine (see need.h).
 */
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "need.h"

#ifndef JOBDECK_DEPS_LIST
#define JOBDECK_DEPS_LIST "scripts/deps.list"
#endif
#ifndef JOBDECK_DEPS_SH
#define JOBDECK_DEPS_SH "scripts/deps.sh"
#endif

/* Return the list to read: the environment's, else the tree's. */
const char *
need_list(void)
{
	const char	*env = getenv("JOBDECK_DEPS_LIST");

	return env != NULL && *env != '\0' ? env : JOBDECK_DEPS_LIST;
}

/*
 * Return 1 if what, of kind, is here; 0 if not; -1 for a kind unknown:
 * scripts/deps.sh --have answers, so "here" is what deps.sh checks
 * before it installs (a program on the PATH, a terminfo entry where
 * curses looks, a pkg-config module, a file).
 */
int
need_here(const char *kind, const char *what)
{
	const char	*argv[] = { "sh", JOBDECK_DEPS_SH, "--have", kind, what,
	    NULL };
	pid_t		 pid;
	int		 status, fd;

	if ((pid = fork()) == -1)
		return -1;
	if (pid == 0) {
		if ((fd = open("/dev/null", O_WRONLY)) != -1)
			dup2(fd, 2);
		execv("/bin/sh", (char *const *)argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) > 1)
		return -1;
	return WEXITSTATUS(status) == 0;
}

/*
 * Look what up in list and on this machine; why gets a sentence for
 * everything but NEED_HERE.
 */
enum need_result
need_check(const char *list, const char *what, char *why, size_t len)
{
	FILE		*f;
	char		 line[1024], pkg[256], kind[64], thing[512];
	int		 no = 0, here;

	if ((f = fopen(list, "r")) == NULL) {
		snprintf(why, len, "%s: %s", list, strerror(errno));
		return NEED_BAD_LIST;
	}
	while (fgets(line, sizeof line, f) != NULL) {
		no++;
		if (line[0] == '#' || strspn(line, " \t\n") == strlen(line))
			continue;
		if (sscanf(line, "%255s %63s %511s", pkg, kind, thing) != 3) {
			snprintf(why, len, "%s:%d: want PACKAGE KIND WHAT",
			    list, no);
			fclose(f);
			return NEED_BAD_LIST;
		}
		if (strcmp(thing, what) != 0)
			continue;
		fclose(f);
		if ((here = need_here(kind, thing)) == -1) {
			snprintf(why, len, "%s:%d: unknown kind '%s'", list,
			    no, kind);
			return NEED_BAD_LIST;
		}
		if (here)
			return NEED_HERE;
		snprintf(why, len, "needs %s %s, which Debian's %s brings "
		    "(scripts/deps.sh installs it: make check runs it)", kind,
		    thing, pkg);
		return NEED_MISSING;
	}
	fclose(f);
	snprintf(why, len, "the test needs %s, which %s does not name: add "
	    "the package that brings it, so scripts/deps.sh installs it",
	    what, list);
	return NEED_UNLISTED;
}

/*
 * NEED()'s work: *missing is 1 (with why) when what is listed but not
 * here; the test fails when the list does not name it or cannot be read.
 */
void
need_or_fail(const char *what, char *why, size_t len, int *missing)
{
	enum need_result	r;

	*missing = 0;
	r = need_check(need_list(), what, why, len);
	ck_assert_msg(r == NEED_HERE || r == NEED_MISSING, "%s", why);
	*missing = r == NEED_MISSING;
}

/*
 * need: a test's outside needs looked up in scripts/deps.list and on this
 * machine (see need.h).
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "need.h"

#ifndef JOBDECK_DEPS_LIST
#define JOBDECK_DEPS_LIST "scripts/deps.list"
#endif

/* Return the list to read: the environment's, else the tree's. */
const char *
need_list(void)
{
	const char	*env = getenv("JOBDECK_DEPS_LIST");

	return env != NULL && *env != '\0' ? env : JOBDECK_DEPS_LIST;
}

/* Return whether a program is an executable file in a directory of PATH. */
static int
need_program(const char *name)
{
	const char	*path = getenv("PATH"), *p, *colon, *dir;
	char		 full[4096];
	int		 dlen;

	if (strchr(name, '/') != NULL)
		return access(name, X_OK) == 0;
	if (path == NULL)
		path = "/usr/bin:/bin";
	for (p = path; ; p = colon + 1) {
		colon = strchr(p, ':');
		dir = p;
		dlen = colon != NULL ? (int)(colon - p) : (int)strlen(p);
		if (dlen == 0) {	/* an empty entry is the cwd */
			dir = ".";
			dlen = 1;
		}
		if (snprintf(full, sizeof full, "%.*s/%s", dlen, dir,
		    name) < (int)sizeof full && access(full, X_OK) == 0)
			return 1;
		if (colon == NULL)
			return 0;
	}
}

/* Return whether curses would find a terminfo entry (Debian's places). */
static int
need_terminfo(const char *name)
{
	const char	*dirs[] = { getenv("TERMINFO"), NULL, "/etc/terminfo",
	    "/lib/terminfo", "/usr/share/terminfo" };
	const char	*home = getenv("HOME");
	char		 path[4096], mine[4096];
	size_t		 i;

	if (home != NULL) {
		snprintf(mine, sizeof mine, "%s/.terminfo", home);
		dirs[1] = mine;
	}
	for (i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
		if (dirs[i] == NULL)
			continue;
		snprintf(path, sizeof path, "%s/%c/%s", dirs[i], name[0], name);
		if (access(path, R_OK) == 0)
			return 1;
	}
	return 0;
}

/* Return whether a pkg-config module is installed (pkg-config asked). */
static int
need_pc(const char *module)
{
	char	cmd[512];

	snprintf(cmd, sizeof cmd, "pkg-config --exists '%s' 2>/dev/null",
	    module);
	return system(cmd) == 0;
}

/* Return 1 if what, of kind, is here; 0 if not; -1 for an unknown kind. */
int
need_here(const char *kind, const char *what)
{
	if (strcmp(kind, "program") == 0)
		return need_program(what);
	if (strcmp(kind, "terminfo") == 0)
		return need_terminfo(what);
	if (strcmp(kind, "file") == 0)
		return access(what, F_OK) == 0;
	if (strcmp(kind, "pc") == 0)
		return need_pc(what);
	return -1;
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

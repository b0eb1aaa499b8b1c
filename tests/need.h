/*
 * need: what a test needs from outside the tree (a program, a terminal
 * description, a file) is asked for here by the WHAT of its line in
 * scripts/deps.list, which names the Debian package that brings it and
 * which scripts/deps.sh installs.  Something the list does not name fails
 * the test (deps.sh would never install it on a fresh machine); something
 * it names that is missing here skips it, naming the package.
 *
 * The list is the tree's own (JOBDECK_DEPS_LIST, made absolute by the
 * Makefile), or the environment's JOBDECK_DEPS_LIST when set.  Whether a
 * thing is here is scripts/deps.sh's answer (--have KIND WHAT), so the
 * tests and the installer share one rule.
 */
#ifndef JOBDECK_TEST_NEED_H
#define JOBDECK_TEST_NEED_H

#include "skip.h"

enum need_result {
	NEED_HERE,		/* listed and present */
	NEED_MISSING,		/* listed, missing here: *why names its package */
	NEED_UNLISTED,		/* not in the list: *why says so */
	NEED_BAD_LIST		/* the list cannot be read or is malformed */
};

enum need_result need_check(const char *list, const char *what,
		    char *why, size_t len);
const char	*need_list(void);
int		 need_here(const char *kind, const char *what);
void		 need_or_fail(const char *what, char *why, size_t len,
		    int *missing);

/* Skip the test, naming the package, when what is missing; fail it when
 * scripts/deps.list does not name what. */
#define NEED(what) do {							\
	char	need_why_[512];						\
	int	need_missing_;						\
	need_or_fail((what), need_why_, sizeof need_why_,		\
	    &need_missing_);						\
	if (need_missing_)						\
		TEST_SKIP("%s", need_why_);				\
} while (0)

#endif

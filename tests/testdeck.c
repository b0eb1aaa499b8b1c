/*
 * testdeck.c: a loop, a job table and its store in a new temporary
 * directory, for a test of commands (testdeck.h).
 */
#include <sys/prctl.h>

#include <check.h>
#include <signal.h>
#include <stdlib.h>

#include "jobtable.h"
#include "loop.h"
#include "store.h"
#include "testdeck.h"

#define TESTDECK_GRACE_MS	500	/* a kill's grace before SIGKILL */

/* Make dir (a mkdtemp() template), a loop, a job table and its store. */
void
testdeck_open(char *dir, struct loop **loop, struct jobtable **jt,
    struct store **store)
{
	struct store_limits	 lim;
	char			*cause = NULL;

	signal(SIGPIPE, SIG_IGN);
	ck_assert_int_eq(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	*loop = loop_new();
	*jt = jobtable_new(*loop);
	store_default_limits(&lim);
	*store = store_open(dir, &lim, &cause);
	ck_assert_msg(*store != NULL, "store: %s", cause);
	jobtable_set_store(*jt, *store);
	jobtable_set_grace(*jt, TESTDECK_GRACE_MS);
}

/*
 * up.c: `jobdeck up`, the stack's output as prefixed lines (see up.h).
 * Groundwork stub.
 */
#include <stdlib.h>

#include "jobtable.h"
#include "loop.h"
#include "up.h"
#include "xmalloc.h"

struct up {
	struct loop	*loop;
	struct jobtable	*jt;
	struct stack	*stack;
	struct up_opts	 opts;
};

/* Make the line front end. */
struct up *
up_new(struct loop *loop, struct jobtable *jt, struct stack *stack,
    const struct up_opts *opts)
{
	struct up	*up;

	up = xcalloc(1, sizeof *up);
	up->loop = loop;
	up->jt = jt;
	up->stack = stack;
	up->opts = *opts;
	return up;
}

/* Free it. */
void
up_free(struct up *up)
{
	free(up);
}

/* Stop every job and leave. */
void
up_quit(struct up *up)
{
	jobtable_kill_all(up->jt);
	loop_stop(up->loop);
}

/* The exit status. */
int
up_status(const struct up *up)
{
	(void)up;
	return 0;
}

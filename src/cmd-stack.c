/*
 * cmd-stack.c: the commands of a configured stack's groups: !start-group
 * GROUP starts every configured job of a group that is not live (and
 * what they depend on), !kill-group GROUP stops every live job of it,
 * the ones that depend on others first (see stack.h).
 */
#include <stdio.h>
#include <stdlib.h>

#include "cmd.h"
#include "stack.h"

static void	cmd_start_group_exec(struct cmd_ctx *, int, char **);
static void	cmd_kill_group_exec(struct cmd_ctx *, int, char **);

const struct cmd_entry cmd_start_group_entry = {
	.name = "start-group",
	.args = "GROUP",
	.help = "start the configured jobs of a group that do not run (and "
	    "what they depend on)",
	.min_args = 1,
	.max_args = 1,
	.exec = cmd_start_group_exec,
};

const struct cmd_entry cmd_kill_group_entry = {
	.name = "kill-group",
	.args = "GROUP",
	.help = "stop every job of a group, the ones that depend on others "
	    "first",
	.min_args = 1,
	.max_args = 1,
	.exec = cmd_kill_group_exec,
};

/* Return the stack, or NULL after saying there is none. */
static struct stack *
cmd_stack(struct cmd_ctx *ctx)
{
	if (ctx->stack == NULL)
		cmd_error(ctx, "%s: no configured stack here",
		    ctx->entry->name);
	return ctx->stack;
}

/* !start-group GROUP */
static void
cmd_start_group_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct stack	*st;
	char		*cause = NULL;
	int		 n;

	(void)argc;
	if ((st = cmd_stack(ctx)) == NULL)
		return;
	if (stack_start_group(st, argv[1], &n, &cause) != 0) {
		cmd_error(ctx, "%s", cause);
		free(cause);
		return;
	}
	if (n == 0)
		cmd_message(ctx, "every job of %s runs already", argv[1]);
	else
		cmd_message(ctx, "starting %d job%s of %s", n, n == 1 ? "" :
		    "s", argv[1]);
}

/* !kill-group GROUP */
static void
cmd_kill_group_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct stack	*st;
	char		*cause = NULL;
	int		 n;

	(void)argc;
	if ((st = cmd_stack(ctx)) == NULL)
		return;
	if (stack_kill_group(st, argv[1], &n, &cause) != 0) {
		cmd_error(ctx, "%s", cause);
		free(cause);
		return;
	}
	if (n == 0)
		cmd_message(ctx, "no running jobs in %s", argv[1]);
	else
		cmd_message(ctx, "stopping %d job%s of %s", n, n == 1 ? "" :
		    "s", argv[1]);
}

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

static void	cmd_group_exec(struct cmd_ctx *, int, char **);

const struct cmd_entry cmd_start_group_entry = {
	.name = "start-group",
	.args = "GROUP",
	.help = "start the configured jobs of a group that do not run (and "
	    "what they depend on)",
	.min_args = 1,
	.max_args = 1,
	.exec = cmd_group_exec,
};

const struct cmd_entry cmd_kill_group_entry = {
	.name = "kill-group",
	.args = "GROUP",
	.help = "stop every job of a group, the ones that depend on others "
	    "first",
	.min_args = 1,
	.max_args = 1,
	.exec = cmd_group_exec,
};

/* What each group command does and says: data, not two functions. */
static const struct {
	const struct cmd_entry	*entry;
	int			(*act)(struct stack *, const char *, int *,
				    char **);
	const char		*none;		/* nothing to do */
	const char		*verb;		/* "starting" N jobs of G */
} cmd_group_acts[] = {
	{ &cmd_start_group_entry, stack_start_group,
	  "every job of %s runs already", "starting" },
	{ &cmd_kill_group_entry, stack_kill_group,
	  "no running jobs in %s", "stopping" },
};

/* !start-group GROUP and !kill-group GROUP. */
static void
cmd_group_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	size_t	 i;
	char	*cause = NULL;
	int	 n;

	(void)argc;
	for (i = 0; cmd_group_acts[i].entry != ctx->entry; i++)
		/* nothing: ctx->entry is one of the table's */;
	if (ctx->stack == NULL) {
		cmd_error(ctx, "%s: no configured stack here",
		    ctx->entry->name);
		return;
	}
	if (cmd_group_acts[i].act(ctx->stack, argv[1], &n, &cause) != 0) {
		cmd_error(ctx, "%s", cause);
		free(cause);
		return;
	}
	if (n == 0)
		cmd_message(ctx, cmd_group_acts[i].none, argv[1]);
	else
		cmd_message(ctx, "%s %d job%s of %s", cmd_group_acts[i].verb,
		    n, n == 1 ? "" : "s", argv[1]);
}

/*
 * cmd-session.c: the shell-like builtins that change the session for every
 * later job: cd, export and unset.  They run with or without a leading !.
 */
#include <stdlib.h>

#include "cmd.h"
#include "session.h"

static void	cmd_cd_exec(struct cmd_ctx *, int, char **);
static void	cmd_export_exec(struct cmd_ctx *, int, char **);
static void	cmd_unset_exec(struct cmd_ctx *, int, char **);

const struct cmd_entry cmd_cd_entry = {
	.name = "cd",
	.args = "[DIR | -]",
	.help = "change the directory later jobs start in ($HOME by default)",
	.min_args = 0,
	.max_args = 1,
	.flags = CMD_BARE,
	.exec = cmd_cd_exec,
};

const struct cmd_entry cmd_export_entry = {
	.name = "export",
	.args = "NAME=VALUE...",
	.help = "set environment variables for later jobs",
	.min_args = 1,
	.max_args = -1,
	.flags = CMD_BARE,
	.exec = cmd_export_exec,
};

const struct cmd_entry cmd_unset_entry = {
	.name = "unset",
	.args = "NAME...",
	.help = "remove environment variables for later jobs",
	.min_args = 1,
	.max_args = -1,
	.flags = CMD_BARE,
	.exec = cmd_unset_exec,
};

/* cd [DIR | -]: change the session's directory. */
static void
cmd_cd_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	char	*cause = NULL;

	if (session_cd(ctx->session, argc > 1 ? argv[1] : NULL, &cause) != 0) {
		cmd_error(ctx, "%s", cause);
		free(cause);
		return;
	}
	cmd_message(ctx, "%s", session_cwd(ctx->session));
}

/* export NAME=VALUE...: set variables in the session's environment. */
static void
cmd_export_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	char	*cause = NULL;
	int	 i;

	for (i = 1; i < argc; i++) {
		if (session_export(ctx->session, argv[i], &cause) != 0) {
			cmd_error(ctx, "%s", cause);
			free(cause);
			return;
		}
	}
}

/* unset NAME...: remove variables from the session's environment. */
static void
cmd_unset_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	char	*cause = NULL;
	int	 i;

	for (i = 1; i < argc; i++) {
		if (session_unset(ctx->session, argv[i], &cause) != 0) {
			cmd_error(ctx, "%s", cause);
			free(cause);
			return;
		}
	}
}

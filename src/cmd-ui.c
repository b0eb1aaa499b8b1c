/*
 * cmd-ui.c: the commands that act on the front end: !focus, !help, !quit.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "job.h"
#include "keys.h"
#include "xmalloc.h"

static void	cmd_focus_exec(struct cmd_ctx *, int, char **);
static void	cmd_help_exec(struct cmd_ctx *, int, char **);
static void	cmd_quit_exec(struct cmd_ctx *, int, char **);

const struct cmd_entry cmd_focus_entry = {
	.name = "focus",
	.args = "ID",
	.help = "select a job and send it the keyboard (the focus key "
	    "returns)",
	.min_args = 1,
	.max_args = 1,
	.exec = cmd_focus_exec,
};

const struct cmd_entry cmd_help_entry = {
	.name = "help",
	.alias = "?",
	.args = "",
	.help = "list commands and keys",
	.min_args = 0,
	.max_args = 0,
	.exec = cmd_help_exec,
};

const struct cmd_entry cmd_quit_entry = {
	.name = "quit",
	.alias = "q",
	.args = "",
	.help = "stop every job and leave",
	.min_args = 0,
	.max_args = 0,
	.exec = cmd_quit_exec,
};

/*
 * The keys the help text lists, after the commands; %s is the focus key's
 * name (focus_key in the config).
 */
static const char *const cmd_help_keys[] = {
	"",
	"Keys at the prompt",
	"  Enter            run the line: a !command, cd/export/unset, or a new job",
	"  %-16s focus the selected job: keys go to it; %s again returns",
	"  Ctrl+N / Ctrl+P  select the next / previous job (a mouse click too)",
	"  PgUp / PgDn      scroll the selected job's scrollback",
	"  Up / Down        command history",
	"  Left / Right, Home / End, Ctrl+A / Ctrl+E   move in the line",
	"  Backspace / Delete, Ctrl+U / Ctrl+K / Ctrl+W   delete",
	"  Ctrl+C           clear the line",
	"",
	"In a text view (!ps, !logs, !help)",
	"  Up / Down, PgUp / PgDn, Home / End, g / G   move;  q or Esc   close",
	"",
	"Anything that does not start with ! runs as a job through $SHELL -c.",
	NULL
};

/* !focus ID: select a job and give it the keyboard. */
static void
cmd_focus_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct job	*job;

	(void)argc;
	job = cmd_find_job(ctx, argv[1]);
	if (job == NULL)
		return;
	if (ctx->client != NULL && ctx->client->select != NULL)
		ctx->client->select(job, 1, ctx->arg);
}

/* !help: list every command from the table, then the keys. */
static void
cmd_help_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	const struct cmd_entry	*const *e;
	char			**lines, *usage, key[32];
	int			  n = 0, i;

	(void)argc;
	(void)argv;
	for (i = 0; cmd_table[i] != NULL; i++)
		;
	for (n = 0; cmd_help_keys[n] != NULL; n++)
		;
	lines = xcalloc((size_t)(2 * i + n + 1), sizeof *lines);
	n = 0;
	lines[n++] = xstrdup("Commands");
	for (e = cmd_table; *e != NULL; e++) {
		/* A long usage gets a line of its own, its help below. */
		usage = cmd_usage(*e);
		if (strlen(usage) > 24) {
			lines[n++] = xprintf("  %s", usage);
			lines[n++] = xprintf("  %-24s %s", "", (*e)->help);
		} else
			lines[n++] = xprintf("  %-24s %s", usage, (*e)->help);
		free(usage);
	}
	keys_ctrl_name(ctx->focus_key > 0 ? ctx->focus_key : CMD_FOCUS_KEY,
	    key, sizeof key);
	for (i = 0; cmd_help_keys[i] != NULL; i++) {
		if (strstr(cmd_help_keys[i], "%s") != NULL)
			lines[n++] = xprintf(cmd_help_keys[i], key, key);
		else
			lines[n++] = xstrdup(cmd_help_keys[i]);
	}
	cmd_show(ctx, "Help", lines, n, 0);
	for (i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
}

/* !quit: stop every job and leave. */
static void
cmd_quit_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	if (ctx->client != NULL && ctx->client->quit != NULL)
		ctx->client->quit(ctx->arg);
}

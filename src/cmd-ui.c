/*
 * cmd-ui.c: the commands that act on the front end: !focus, !help,
 * !messages, !paste, !quit (the keys' other actions are cmd-screen.c's).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd.h"
#include "job.h"
#include "json.h"
#include "bind.h"
#include "utf8.h"
#include "xmalloc.h"

static void	cmd_focus_exec(struct cmd_ctx *, int, char **);
static void	cmd_help_exec(struct cmd_ctx *, int, char **);
static void	cmd_quit_exec(struct cmd_ctx *, int, char **);
static void	cmd_paste_exec(struct cmd_ctx *, int, char **);
static void	cmd_messages_exec(struct cmd_ctx *, int, char **);

#define CMD_HELP_WIDTH	78	/* !help's lines fit the text view */
#define CMD_HELP_KEYS	18	/* the keys' column */
#define CMD_HELP_ACTION	15	/* the action's column */
#define CMD_HELP_NOTE	(2 + CMD_HELP_KEYS + 1 + CMD_HELP_ACTION + 1)
#define CMD_MESSAGES_INDENT	17	/* "HH:MM:SS  error  " */

const struct cmd_entry cmd_focus_entry = {
	.name = "focus",
	.args = "[ID]",
	.help = "select a job and send it the keyboard (the selected one; "
	    "the focus key returns)",
	.min_args = 0,
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
	.flags = CMD_READ_ONLY,
	.exec = cmd_help_exec,
};

const struct cmd_entry cmd_messages_entry = {
	.name = "messages",
	.args = "",
	.help = "the messages shown below the prompt, newest first, whole "
	    "(the last 100)",
	.min_args = 0,
	.max_args = 0,
	.flags = CMD_READ_ONLY,
	.exec = cmd_messages_exec,
};

const struct cmd_entry cmd_paste_entry = {
	.name = "paste",
	.args = "[ID]",
	.help = "send the paste buffer to a job (the selected one)",
	.min_args = 0,
	.max_args = 1,
	.exec = cmd_paste_exec,
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
 * !focus [ID]: select a job and give it the keyboard; without one, the
 * screen's selected job (the focus key's action).
 */
static void
cmd_focus_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct job	*job;

	if (argc == ctx->first) {
		if (ctx->client != NULL && ctx->client->screen != NULL)
			ctx->client->screen(BIND_FOCUS, ctx->arg);
		else
			cmd_usage_error(ctx, "focus: name a job: only the "
			    "deck's screen has a selected job");
		return;
	}
	job = cmd_find_job(ctx, argv[ctx->first]);
	if (job == NULL)
		return;
	if (ctx->client != NULL && ctx->client->select != NULL)
		ctx->client->select(job, 1, ctx->arg);
}

/* A growing array of help lines. */
struct cmd_help {
	char	**lines;
	int	  n;
	int	  size;
};

/* Append a line to the help. */
static void
cmd_help_add(struct cmd_help *h, char *line)
{
	if (h->n == h->size) {
		h->size = h->size == 0 ? 128 : h->size * 2;
		h->lines = xreallocarray(h->lines, (size_t)h->size,
		    sizeof *h->lines);
	}
	h->lines[h->n++] = line;
}

/*
 * Append head (indent columns wide, or wider: then alone on its line,
 * broken before an option when wider than width) followed by text
 * wrapped at words to width columns, its later lines indented as deep;
 * a word wider than that is cut, at a character's start.
 */
static void
cmd_help_wrap(struct cmd_help *h, const char *head, int indent,
    const char *text, int width)
{
	const char	*p = text, *end, *space;
	char		*rest = NULL, *tmp;
	int		 room = width - indent, len;

	if (room < 10)
		room = 10;
	/* A usage wider than the view breaks before an option. */
	while ((len = (int)strlen(head)) > width) {
		for (end = head + width; end > head + 4 &&
		    strncmp(end, " [", 2) != 0; end--)
			;
		if (end <= head + 4)
			break;
		cmd_help_add(h, xprintf("%.*s", (int)(end - head), head));
		tmp = xprintf("    %s", end + 1);
		free(rest);
		head = rest = tmp;
	}
	if ((int)strlen(head) > indent) {
		cmd_help_add(h, xprintf("%s", head));
		head = "";
	}
	while (*p != '\0') {
		len = (int)strlen(p);
		if (len > room) {
			end = p + room;
			for (space = end; space > p && *space != ' '; space--)
				;
			if (space > p)
				end = space;
			else {
				/* No blank: cut, but not inside a character. */
				end = p + utf8_cut(p, (size_t)room);
			}
			len = (int)(end - p);
		}
		cmd_help_add(h, xprintf("%-*s%.*s", indent, head, len, p));
		head = "";
		p += len;
		while (*p == ' ')
			p++;
	}
	free(rest);
}

/*
 * Append one action's line: its keys (on a line of their own when too
 * wide; keys is changed), its name and its note.
 */
static void
cmd_help_key(struct cmd_help *h, char *keys, const char *name,
    const char *note)
{
	char	*head;

	if (strlen(keys) > CMD_HELP_KEYS) {
		cmd_help_add(h, xprintf("  %s", keys));
		keys[0] = '\0';
	}
	head = xprintf("  %-*s %-*s ", CMD_HELP_KEYS, keys, CMD_HELP_ACTION,
	    name);
	cmd_help_wrap(h, head, CMD_HELP_NOTE, note, CMD_HELP_WIDTH);
	free(head);
}

/* Return the help of the command a bound line runs ("" if none). */
static const char *
cmd_help_of_line(const char *line)
{
	const struct cmd_entry	*e;
	char			*word, *cause = NULL;

	word = xstrndup(line, strcspn(line, " \t"));
	e = cmd_find(word, &cause);
	free(word);
	free(cause);
	return e != NULL ? e->help : "";
}

/*
 * Append the keys of one mode as bound in b: keys, action and note; then
 * the command lines bound beyond the table's actions, each with its
 * command's help.
 */
static void
cmd_help_mode(struct cmd_help *h, const struct bind *b, enum bind_mode mode,
    const char *title)
{
	const struct bind_entry	*e;
	const char		*line;
	char			 keys[128];
	int			 i;

	cmd_help_add(h, xstrdup(""));
	cmd_help_add(h, xstrdup(title));
	for (e = bind_defaults; e->action != BIND_NONE; e++) {
		if (e->mode != mode)
			continue;
		bind_keys_text(b, mode, e->action, keys, sizeof keys);
		cmd_help_key(h, keys, e->name, e->note);
	}
	for (i = 0; (line = bind_command_nth(b, mode, i)) != NULL; i++) {
		bind_command_keys_text(b, mode, line, keys, sizeof keys);
		cmd_help_key(h, keys, line, cmd_help_of_line(line));
	}
}

/*
 * !help: every command from the table, then the keys of every mode as
 * they are bound (ctx->bind, or the defaults).
 */
static void
cmd_help_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	const struct cmd_entry	*const *e;
	struct cmd_help		 h = { NULL, 0, 0 };
	struct bind		*defaults = NULL;
	const struct bind	*b = ctx->bind;
	char			*usage, *head;
	int			 i;

	(void)argc;
	(void)argv;
	if (b == NULL)
		b = defaults = bind_new();
	cmd_help_add(&h, xstrdup("Commands"));
	for (e = cmd_table; *e != NULL; e++) {
		/* A long usage gets a line of its own, its help below. */
		usage = cmd_usage(*e);
		head = xprintf("  %-24s ", usage);
		cmd_help_wrap(&h, head, 27, (*e)->help, CMD_HELP_WIDTH);
		free(head);
		free(usage);
	}
	cmd_help_mode(&h, b, BIND_MAIN, "Keys at the prompt");
	cmd_help_mode(&h, b, BIND_EDIT, "Keys editing a line (the prompt, "
	    "a search)");
	cmd_help_mode(&h, b, BIND_VIEW, "Keys in a text view (!ps, !logs, "
	    "!help, !grep)");
	cmd_help_mode(&h, b, BIND_COPY, "Keys in copy mode");
	cmd_help_add(&h, xstrdup(""));
	cmd_help_add(&h, xstrdup("A line made only of session commands (cd, "
	    "pushd, popd, export, unset,"));
	cmd_help_add(&h, xstrdup("source, ., alias, unalias, set, shopt, "
	    "umask, function definitions,"));
	cmd_help_add(&h, xstrdup("and &&, ||, ; lists of them) runs in the "
	    "session shell; every later"));
	cmd_help_add(&h, xstrdup("job starts in the state it leaves (!session "
	    "shows it). Anything else"));
	cmd_help_add(&h, xstrdup("that does not start with ! runs as a job "
	    "through $SHELL -c, and its"));
	cmd_help_add(&h, xstrdup("cd is its own."));
	cmd_show(ctx, "Help", h.lines, h.n, 0);
	for (i = 0; i < h.n; i++)
		free(h.lines[i]);
	free(h.lines);
	bind_free(defaults);
}

/* Write msgs[0..n) as {"messages": [{"time", "error", "text"}, ...]}. */
static void
cmd_messages_json(struct cmd_ctx *ctx, const struct cmd_msg *msgs, int n)
{
	struct json_buf	 jb;
	int		 i;

	json_init(&jb);
	json_object_begin(&jb);
	json_key(&jb, "messages");
	json_array_begin(&jb);
	for (i = 0; i < n; i++) {
		json_object_begin(&jb);
		json_key(&jb, "time");
		json_put_int(&jb, msgs[i].time);
		json_key(&jb, "error");
		json_put_bool(&jb, msgs[i].error);
		json_key(&jb, "text");
		json_put_string(&jb, msgs[i].text);
		json_object_end(&jb);
	}
	json_array_end(&jb);
	json_object_end(&jb);
	cmd_json_buf(ctx, &jb);
}

/*
 * !messages: the messages the client has shown, newest first, each whole:
 * wrapped at words to the client's width (CMD_HELP_WIDTH when unknown),
 * its time (local) and whether it was an error before it.
 */
static void
cmd_messages_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	const struct cmd_msg	*msgs;
	struct cmd_help		 h = { NULL, 0, 0 };
	char			 stamp[16], *head;
	int			 n, i;

	(void)argc;
	(void)argv;
	if (ctx->client == NULL || ctx->client->messages == NULL) {
		cmd_error(ctx, "messages: only a screen keeps its messages "
		    "(each ctl reply carries its own)");
		return;
	}
	n = ctx->client->messages(&msgs, ctx->arg);
	if (ctx->json) {
		cmd_messages_json(ctx, msgs, n);
		return;
	}
	if (n == 0) {
		cmd_message(ctx, "no messages yet");
		return;
	}
	cmd_help_add(&h, xprintf("%-*s%s", CMD_MESSAGES_INDENT,
	    "TIME      KIND", "MESSAGE"));
	for (i = 0; i < n; i++) {
		job_format_clock(msgs[i].time * 1000, 0, stamp, sizeof stamp);
		head = xprintf("%-8s  %-5s  ", stamp, msgs[i].error ? "error" :
		    "info");
		cmd_help_wrap(&h, head, CMD_MESSAGES_INDENT, msgs[i].text,
		    ctx->width > 0 ? ctx->width : CMD_HELP_WIDTH);
		free(head);
	}
	cmd_show(ctx, "Messages", h.lines, h.n, 1);
	for (i = 0; i < h.n; i++)
		free(h.lines[i]);
	free(h.lines);
}

/* !paste [ID]: the client's paste buffer to a job (the selected one). */
static void
cmd_paste_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct job	*job = NULL;

	if (ctx->client == NULL || ctx->client->paste == NULL) {
		cmd_error(ctx, "paste needs the terminal: no paste buffer here");
		return;
	}
	if (argc > ctx->first && (job = cmd_find_job(ctx,
	    argv[ctx->first])) == NULL)
		return;
	if (ctx->client->paste(job, ctx->arg) != 0)
		ctx->failed = CMD_FAILED;
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

/*
 * cmd.c: the command table, lookup by name or unique prefix, argument
 * checking, and the prompt's line dispatcher.  The commands themselves live
 * in cmd-job.c (jobs), cmd-run.c (run, restart), cmd-stack.c (groups),
 * cmd-browser.c (browser), cmd-ctl.c (list, status, spawn, send,
 * events), cmd-wait.c (wait), cmd-session.c (cd, export, unset),
 * cmd-deck.c (deck), cmd-ui.c (focus, help, messages, quit) and
 * cmd-screen.c (the keys' actions at the prompt: next-job, zoom,
 * copy-mode...).  A key bound to a command line (bind.h) runs it here
 * too: cmd_bind_commands tells the bindings which lines are commands.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cmdsink.h"
#include "duration.h"
#include "job.h"
#include "json.h"
#include "jobtable.h"
#include "session.h"
#include "sessionsh.h"
#include "textesc.h"
#include "xmalloc.h"

extern const struct cmd_entry cmd_ps_entry;
extern const struct cmd_entry cmd_kill_entry;
extern const struct cmd_entry cmd_kill_all_entry;
extern const struct cmd_entry cmd_logs_entry;
extern const struct cmd_entry cmd_stop_entry;
extern const struct cmd_entry cmd_cont_entry;
extern const struct cmd_entry cmd_run_entry;
extern const struct cmd_entry cmd_restart_entry;
extern const struct cmd_entry cmd_cd_entry;
extern const struct cmd_entry cmd_export_entry;
extern const struct cmd_entry cmd_unset_entry;
extern const struct cmd_entry cmd_session_entry;
extern const struct cmd_entry cmd_deck_entry;
extern const struct cmd_entry cmd_focus_entry;
extern const struct cmd_entry cmd_help_entry;
extern const struct cmd_entry cmd_paste_entry;
extern const struct cmd_entry cmd_quit_entry;
extern const struct cmd_entry cmd_messages_entry;
extern const struct cmd_entry cmd_list_entry;
extern const struct cmd_entry cmd_status_entry;
extern const struct cmd_entry cmd_spawn_entry;
extern const struct cmd_entry cmd_send_entry;
extern const struct cmd_entry cmd_events_entry;
extern const struct cmd_entry cmd_screen_entry;
extern const struct cmd_entry cmd_grep_entry;
extern const struct cmd_entry cmd_history_entry;
extern const struct cmd_entry cmd_rerun_entry;
extern const struct cmd_entry cmd_rm_entry;
extern const struct cmd_entry cmd_clear_entry;
extern const struct cmd_entry cmd_rename_entry;
extern const struct cmd_entry cmd_wait_entry;
extern const struct cmd_entry cmd_start_group_entry;
extern const struct cmd_entry cmd_kill_group_entry;
extern const struct cmd_entry cmd_reload_entry;
extern const struct cmd_entry cmd_scale_entry;
extern const struct cmd_entry cmd_dup_entry;
extern const struct cmd_entry cmd_edit_entry;
extern const struct cmd_entry cmd_graph_entry;
extern const struct cmd_entry cmd_browser_entry;
extern const struct cmd_entry cmd_next_job_entry;
extern const struct cmd_entry cmd_prev_job_entry;
extern const struct cmd_entry cmd_scroll_up_entry;
extern const struct cmd_entry cmd_scroll_down_entry;
extern const struct cmd_entry cmd_scroll_top_entry;
extern const struct cmd_entry cmd_scroll_bottom_entry;
extern const struct cmd_entry cmd_zoom_entry;
extern const struct cmd_entry cmd_copy_mode_entry;
extern const struct cmd_entry cmd_search_entry;
extern const struct cmd_entry cmd_redraw_entry;
extern const struct cmd_entry cmd_detach_entry;

static const char	*cmd_bind_name(size_t);
static int		 cmd_bind_check(const char *, char **);

const struct bind_commands cmd_bind_commands = {
	.name = cmd_bind_name,
	.check = cmd_bind_check,
};

const struct cmd_entry *const cmd_table[] = {
	&cmd_ps_entry,
	&cmd_list_entry,
	&cmd_status_entry,
	&cmd_kill_entry,
	&cmd_kill_all_entry,
	&cmd_stop_entry,
	&cmd_cont_entry,
	&cmd_logs_entry,
	&cmd_rm_entry,
	&cmd_clear_entry,
	&cmd_rename_entry,
	&cmd_grep_entry,
	&cmd_history_entry,
	&cmd_rerun_entry,
	&cmd_run_entry,
	&cmd_restart_entry,
	&cmd_start_group_entry,
	&cmd_kill_group_entry,
	&cmd_reload_entry,
	&cmd_scale_entry,
	&cmd_dup_entry,
	&cmd_edit_entry,
	&cmd_graph_entry,
	&cmd_browser_entry,
	&cmd_spawn_entry,
	&cmd_send_entry,
	&cmd_events_entry,
	&cmd_screen_entry,
	&cmd_wait_entry,
	&cmd_focus_entry,
	&cmd_next_job_entry,
	&cmd_prev_job_entry,
	&cmd_scroll_up_entry,
	&cmd_scroll_down_entry,
	&cmd_scroll_top_entry,
	&cmd_scroll_bottom_entry,
	&cmd_zoom_entry,
	&cmd_copy_mode_entry,
	&cmd_search_entry,
	&cmd_paste_entry,
	&cmd_redraw_entry,
	&cmd_detach_entry,
	&cmd_cd_entry,
	&cmd_export_entry,
	&cmd_unset_entry,
	&cmd_session_entry,
	&cmd_deck_entry,
	&cmd_help_entry,
	&cmd_messages_entry,
	&cmd_quit_entry,
	NULL
};

/*
 * Find a command by exact name or alias, else by unique prefix (a
 * CMD_SCREEN command only by its name: the keys' names would make
 * prefixes that found one command ambiguous); NULL with *cause when there
 * is none or the prefix is ambiguous.
 */
const struct cmd_entry *
cmd_find(const char *name, char **cause)
{
	const struct cmd_entry	*const *e, *found = NULL;
	size_t			 len = strlen(name);
	char			*list = NULL, *tmp;
	int			 matches = 0;

	for (e = cmd_table; *e != NULL; e++) {
		if (strcmp((*e)->name, name) == 0 ||
		    ((*e)->alias != NULL && strcmp((*e)->alias, name) == 0))
			return *e;
	}
	for (e = cmd_table; len > 0 && *e != NULL; e++) {
		if (((*e)->flags & CMD_SCREEN) ||
		    strncmp((*e)->name, name, len) != 0)
			continue;
		found = *e;
		matches++;
		tmp = xprintf("%s%s!%s", list == NULL ? "" : list,
		    list == NULL ? "" : ", ", (*e)->name);
		free(list);
		list = tmp;
	}
	if (matches == 1) {
		free(list);
		return found;
	}
	if (matches > 1)
		*cause = xprintf("ambiguous command: !%s (%s)", name, list);
	else
		*cause = xprintf("unknown command: !%s", name);
	free(list);
	return NULL;
}

/*
 * Return a command's usage, made from its table entry: "!logs [--follow]
 * ID", "cd [DIR | -]".
 */
char *
cmd_usage(const struct cmd_entry *e)
{
	const struct cmd_option	*o;
	char			*u, *tmp;

	u = xprintf("%s%s", (e->flags & CMD_BARE) ? "" : "!", e->name);
	for (o = e->options; o != NULL && o->name != NULL; o++) {
		tmp = xprintf("%s [%s%s%s]%s", u, o->name, o->value != NULL ?
		    " " : "", o->value != NULL ? o->value : "",
		    (o->flags & CMD_OPT_REPEAT) ? "..." : "");
		free(u);
		u = tmp;
	}
	if (e->args != NULL && *e->args != '\0') {
		tmp = xprintf("%s %s", u, e->args);
		free(u);
		u = tmp;
	}
	return u;
}

/* Report the running command's usage as its error. */
void
cmd_usage_fail(struct cmd_ctx *ctx)
{
	char	*u = cmd_usage(ctx->entry);

	cmd_usage_error(ctx, "usage: %s", u);
	free(u);
}

/* Forget the options parsed for the last command. */
static void
cmd_options_clear(struct cmd_ctx *ctx)
{
	int	k;

	for (k = 0; k < CMD_OPTIONS_MAX; k++)
		free(ctx->opts[k].all);
	memset(ctx->opts, 0, sizeof ctx->opts);
}

/*
 * Parse the running command's options from argv[1] on into ctx->opts,
 * leaving ctx->first at the first operand; -1 after a usage error.
 */
static int
cmd_options_parse(struct cmd_ctx *ctx, int argc, char **argv)
{
	const struct cmd_option	*opts = ctx->entry->options, *o;
	struct cmd_optval	*v;
	const char		*a, *value, *eq;
	size_t			 len;
	int			 i = 1, k;

	while (opts != NULL && i < argc && argv[i][0] == '-' &&
	    argv[i][1] != '\0') {
		a = argv[i++];
		if (strcmp(a, "--") == 0)
			break;
		eq = strchr(a, '=');
		len = eq != NULL && a[1] == '-' ? (size_t)(eq - a) : strlen(a);
		for (k = 0, o = opts; o->name != NULL; k++, o++) {
			if ((strlen(o->name) == len &&
			    strncmp(o->name, a, len) == 0) ||
			    (o->alias != NULL && strcmp(o->alias, a) == 0))
				break;
		}
		if (o->name == NULL) {
			cmd_usage_error(ctx, "%s: unknown option: %s",
			    ctx->entry->name, a);
			return -1;
		}
		value = "";
		if (o->value != NULL) {
			if (len < strlen(a))
				value = a + len + 1;
			else if (i < argc)
				value = argv[i++];
			else {
				cmd_usage_error(ctx, "%s: %s needs a value (%s)",
				    ctx->entry->name, o->name, o->value);
				return -1;
			}
		} else if (len < strlen(a)) {
			cmd_usage_error(ctx, "%s: %s takes no value",
			    ctx->entry->name, o->name);
			return -1;
		}
		v = &ctx->opts[k];
		if (v->count > 0 && !(o->flags & CMD_OPT_REPEAT)) {
			cmd_usage_error(ctx, "%s: %s given twice",
			    ctx->entry->name, o->name);
			return -1;
		}
		v->all = xreallocarray(v->all, (size_t)v->count + 2,
		    sizeof *v->all);
		v->all[v->count++] = value;
		v->all[v->count] = NULL;
		v->value = value;
	}
	ctx->first = i;
	return 0;
}

/*
 * Parse the running command's options and check how many operands it
 * has; 0, or -1 after a usage error.
 */
static int
cmd_args_check(struct cmd_ctx *ctx, int argc, char **argv)
{
	const struct cmd_entry	*entry = ctx->entry;
	int			 nargs;

	if (cmd_options_parse(ctx, argc, argv) != 0)
		return -1;
	nargs = argc - ctx->first;
	if (nargs < entry->min_args ||
	    (entry->max_args >= 0 && nargs > entry->max_args)) {
		cmd_usage_fail(ctx);
		return -1;
	}
	return 0;
}

/*
 * Run argv[0] (without the !) with its arguments: find it, parse its
 * options, check how many operands it has, run it: CMD_RETURN_NORMAL,
 * CMD_RETURN_ERROR when it reported an error, or CMD_RETURN_WAIT when it
 * began a task on ctx->sink (cmdsink.h) for the face to start.  A key's
 * action on the screen is refused by a client that has none (the control
 * socket).
 */
enum cmd_retval
cmd_execute(struct cmd_ctx *ctx, int argc, char **argv)
{
	const struct cmd_entry	*entry;
	char			*cause = NULL;
	int			 busy;

	ctx->failed = 0;
	entry = cmd_find(argv[0], &cause);
	if (entry == NULL) {
		cmd_usage_error(ctx, "%s", cause);
		free(cause);
		return CMD_RETURN_ERROR;
	}
	ctx->entry = entry;
	cmd_options_clear(ctx);
	/* A look-only client hears that first, whatever else is wrong. */
	if (ctx->read_only && !(entry->flags & CMD_READ_ONLY)) {
		cmd_refuse_write(ctx, entry->name);
		return CMD_RETURN_ERROR;
	}
	if ((entry->flags & CMD_SCREEN) &&
	    (ctx->client == NULL || ctx->client->screen == NULL)) {
		cmd_error(ctx, "%s: a key's action on the deck's screen: there "
		    "is no screen here (press its key, or type !%s at the "
		    "deck's prompt)", entry->name, entry->name);
		return CMD_RETURN_ERROR;
	}
	busy = ctx->sink != NULL && cmd_sink_busy(ctx->sink);
	if (cmd_args_check(ctx, argc, argv) == 0)
		entry->exec(ctx, argc, argv);
	cmd_options_clear(ctx);
	if (ctx->failed)
		return CMD_RETURN_ERROR;
	if (!busy && ctx->sink != NULL && cmd_sink_busy(ctx->sink))
		return CMD_RETURN_WAIT;
	return CMD_RETURN_NORMAL;
}

/* Return the name of cmd_table[i], or NULL past the last (bind.h). */
static const char *
cmd_bind_name(size_t i)
{
	size_t	n;

	for (n = 0; n < i && cmd_table[n] != NULL; n++)
		/* nothing */;
	return cmd_table[n] != NULL ? cmd_table[n]->name : NULL;
}

/* Keep the first error of a line cmd_bind_check() looks at. */
static void
cmd_bind_error(const char *msg, void *arg)
{
	char	**cause = arg;

	if (*cause == NULL)
		*cause = xstrdup(msg);
}

/*
 * Whether line (without the !) is a command a key may run: its first word
 * a command's whole name or alias (a prefix could find another command
 * once one is added), its options and operands as the command takes
 * them; 0, or -1 with *cause NULL when there is no such command, else the
 * misuse (a usage) in *cause (bind.h's check).  Nothing runs.
 */
static int
cmd_bind_check(const char *line, char **cause)
{
	static const struct cmd_client	 client = {
		.error = cmd_bind_error,
	};
	const struct cmd_entry		*e;
	struct cmd_ctx			 ctx;
	struct session			*s;
	char				**argv, *why = NULL;
	int				 argc, rc = -1;

	*cause = NULL;
	s = session_new(NULL);
	if (session_split(s, line, &argc, &argv, cause) != 0) {
		session_free(s);
		return -1;
	}
	if (argc > 0 && (e = cmd_find(argv[0], &why)) != NULL &&
	    (strcmp(e->name, argv[0]) == 0 ||
	    (e->alias != NULL && strcmp(e->alias, argv[0]) == 0))) {
		memset(&ctx, 0, sizeof ctx);
		ctx.session = s;
		ctx.client = &client;
		ctx.arg = cause;
		ctx.entry = e;
		rc = cmd_args_check(&ctx, argc, argv);
		cmd_options_clear(&ctx);
	}
	free(why);
	session_split_free(argc, argv);
	session_free(s);
	return rc;
}

/*
 * Refuse what (a command, or a command and the words that make it change
 * something) on a read-only context, naming the commands that only look
 * (made from cmd_table[]); always returns -1.
 */
int
cmd_refuse_write(struct cmd_ctx *ctx, const char *what)
{
	const struct cmd_entry	*const *e;
	char			*list = NULL, *tmp;

	for (e = cmd_table; *e != NULL; e++) {
		if (!((*e)->flags & CMD_READ_ONLY))
			continue;
		tmp = xprintf("%s%s%s", list == NULL ? "" : list,
		    list == NULL ? "" : ", ", (*e)->name);
		free(list);
		list = tmp;
	}
	cmd_error(ctx, "%s: not allowed here: this connection may only look "
	    "(%s)", what, list != NULL ? list : "nothing");
	free(list);
	return -1;
}

/*
 * Return the length of the first word of s (at most len bytes): up to a
 * blank or a shell operator, as a shell would end it.
 */
static size_t
cmd_first_word(const char *s, size_t len)
{
	size_t	n = strcspn(s, " \t\n;&|<>()");

	return n < len ? n : len;
}

/*
 * Return the command that runs without ! (cd, export, unset) whose name
 * is the first word of s (len bytes), or NULL.
 */
const struct cmd_entry *
cmd_find_bare(const char *s, size_t len)
{
	const struct cmd_entry	*const *e;

	len = cmd_first_word(s, len);
	for (e = cmd_table; *e != NULL; e++) {
		if (((*e)->flags & CMD_BARE) && strlen((*e)->name) == len &&
		    strncmp((*e)->name, s, len) == 0)
			return *e;
	}
	return NULL;
}

/*
 * Run one command line (without its "!"), as typed after a ! or bound to
 * a key: split it into words and run the command, which may look at the
 * words as typed through cmd_raw_tail().
 */
int
cmd_run_words(struct cmd_ctx *ctx, const char *line)
{
	char	**argv, *cause = NULL;
	int	  argc, rc;

	if (session_split(ctx->session, line, &argc, &argv, &cause) != 0) {
		cmd_error(ctx, "%s", cause);
		free(cause);
		return -1;
	}
	if (argc == 0) {
		cmd_usage_error(ctx, "missing command after !  (try !help)");
		rc = -1;
	} else {
		ctx->line = line;
		rc = cmd_execute(ctx, argc, argv) == CMD_RETURN_ERROR ? -1 : 0;
		ctx->line = NULL;
	}
	session_split_free(argc, argv);
	return rc;
}

/*
 * Run a line that starts with a session command (cd, export, unset) as a
 * shell runs an and-or list: each session command in order, && and ||
 * deciding on the last status; the first part that is not a session
 * command starts, with the rest of the line, a job in the state the
 * session commands left.  What a session command cannot do as a shell
 * would (a pipe, a redirection, &, a subshell, a command substitution, or
 * a session command after the job) refuses the whole line before any of
 * it runs.
 */
static int
cmd_run_list(struct cmd_ctx *ctx, const char *line)
{
	struct session_list	 l;
	struct session_part	*p;
	char			*cause = NULL, *text;
	int			 i, w, job = -1, status = 0, rc = 0;

	if (session_split_list(line, &l, &cause) != 0) {
		cmd_usage_error(ctx, "%s", cause);
		free(cause);
		return -1;
	}
	/* Everything is checked before anything runs. */
	for (i = 0; i < l.count && rc == 0; i++) {
		p = &l.parts[i];
		w = (int)cmd_first_word(p->text, p->len);
		if (cmd_find_bare(p->text, p->len) == NULL) {
			if (job == -1)
				job = i;
		} else if (job != -1) {
			cmd_usage_error(ctx, "%.*s: a session command after a "
			    "job would change only the job's shell; give it "
			    "a line of its own", w, p->text);
			rc = -1;
		} else if (p->other != NULL) {
			cmd_usage_error(ctx, "%.*s: `%s' cannot be used with "
			    "a session command (cd, export, unset); run it as "
			    "a job, or without it", w, p->text, p->other);
			rc = -1;
		}
	}
	if (rc != 0)
		goto out;
	for (i = 0; i < l.count; i++) {
		p = &l.parts[i];
		if ((p->op == SESSION_OP_AND && status != 0) ||
		    (p->op == SESSION_OP_OR && status == 0))
			continue;
		if (job != -1 && i >= job) {
			/* The rest of the line, from here, is one job. */
			status = cmd_start_job(ctx, p->text, NULL) == NULL ? -1 : 0;
			break;
		}
		text = xstrndup(p->text, p->len);
		status = cmd_run_words(ctx, text);
		free(text);
	}
	rc = status;
out:
	session_list_clear(&l);
	if (rc == 0)
		ctx->failed = 0;
	return rc;
}

/* The first words of the commands that change the session shell. */
static const char *const cmd_session_words[] = {
	"cd", "pushd", "popd", "export", "unset", "source", ".", "alias",
	"unalias", "set", "shopt", "umask", NULL
};

/* Whether s (len bytes) starts a function definition: NAME() or function. */
static int
cmd_is_function(const char *s, size_t len)
{
	size_t	n = 0;

	if (len > 9 && strncmp(s, "function", 8) == 0 &&
	    (s[8] == ' ' || s[8] == '\t'))
		return 1;
	while (n < len && (s[n] == '_' || (s[n] >= 'a' && s[n] <= 'z') ||
	    (s[n] >= 'A' && s[n] <= 'Z') || (n > 0 && s[n] >= '0' &&
	    s[n] <= '9')))
		n++;
	if (n == 0)
		return 0;
	while (n < len && (s[n] == ' ' || s[n] == '\t'))
		n++;
	return n + 1 < len && s[n] == '(' && s[n + 1] == ')';
}

/* Whether the command s (len bytes) is a session command. */
static int
cmd_is_session_part(const char *s, size_t len)
{
	const char	*const *w;
	size_t		 n;

	while (len > 0 && (*s == ' ' || *s == '\t' || *s == '\n')) {
		s++;
		len--;
	}
	if (cmd_is_function(s, len))
		return 1;
	n = cmd_first_word(s, len);
	for (w = cmd_session_words; *w != NULL; w++) {
		if (strlen(*w) == n && strncmp(*w, s, n) == 0)
			return 1;
	}
	return 0;
}

/*
 * Whether line is made only of session commands (cd, pushd/popd, export,
 * unset, source/., alias/unalias, set/shopt/umask, a function definition)
 * and &&, ||, ; lists of them: the session shell runs it.  A line that
 * starts with a function definition is one; a pipe or a & makes a job.
 */
int
cmd_is_session_line(const char *line)
{
	struct session_list	 l;
	char			*cause = NULL;
	int			 i, yes = 1;

	line += strspn(line, " \t\n");
	if (cmd_is_function(line, strlen(line)))
		return 1;
	if (session_split_list(line, &l, &cause) != 0) {
		free(cause);
		return cmd_is_session_part(line, strlen(line));
	}
	for (i = 0; i < l.count && yes; i++) {
		if (!cmd_is_session_part(l.parts[i].text, l.parts[i].len) ||
		    (l.parts[i].other != NULL &&
		    (strcmp(l.parts[i].other, "|") == 0 ||
		    strcmp(l.parts[i].other, "&") == 0)))
			yes = 0;
	}
	session_list_clear(&l);
	return yes;
}

/* What a line of the session shell waits to do: run, or start a job. */
struct cmd_later {
	struct cmd_ctx	 ctx;		/* a copy: the client and its arg */
	char		*line;
	int		 job;		/* start line as a job when reached */
	int		 answer;	/* the client took the answer (later) */
	struct cmd_later *next;		/* every line still waiting */
};

/* The session lines still waiting, for cmd_later_disown(). */
static struct cmd_later	*cmd_laters;

/* Take a waiting line off the list. */
static void
cmd_later_unlink(struct cmd_later *l)
{
	struct cmd_later	**p;

	for (p = &cmd_laters; *p != NULL; p = &(*p)->next) {
		if (*p == l) {
			*p = l->next;
			return;
		}
	}
}

/*
 * A client goes (a terminal detached) while lines it typed still wait for
 * the session shell: they run, but tell it nothing and select nothing.
 */
void
cmd_later_disown(const void *arg)
{
	struct cmd_later	*l;

	for (l = cmd_laters; l != NULL; l = l->next) {
		if (l->ctx.arg == arg) {
			l->ctx.client = NULL;
			l->ctx.arg = NULL;
			l->answer = 0;
		}
	}
}

/* Whether line starts with cd, pushd or popd (its cwd is worth saying). */
static int
cmd_line_moves(const char *line)
{
	size_t	n;

	line += strspn(line, " \t");
	n = cmd_first_word(line, strlen(line));
	return (n == 2 && strncmp(line, "cd", 2) == 0) ||
	    (n == 5 && strncmp(line, "pushd", 5) == 0) ||
	    (n == 4 && strncmp(line, "popd", 4) == 0);
}

/* Report a session line's end: its output, its errors, its status. */
static void
cmd_later_done(int status, const char *output, const char *errors, void *arg)
{
	struct cmd_later	*l = arg;
	struct cmd_ctx		*ctx = &l->ctx;
	size_t			 n;

	cmd_later_unlink(l);
	if (output == NULL) {
		/* Dropped as the deck ends: its client may be gone. */
		free(l->line);
		free(l);
		return;
	}
	ctx->failed = 0;
	if (l->job)
		cmd_start_job(ctx, l->line, NULL);
	else {
		n = strlen(output);
		if (n > 0 && output[n - 1] == '\n')
			n--;
		if (n > 0)
			cmd_message(ctx, "%.*s", (int)n, output);
		else if (status == 0 && *errors == '\0' &&
		    cmd_line_moves(l->line))
			cmd_message(ctx, "%s", session_cwd(ctx->session));
		/* What a line that succeeded wrote to stderr is no failure. */
		if (*errors != '\0' && status == 0)
			cmd_message(ctx, "%s", errors);
		else if (*errors != '\0')
			cmd_error(ctx, "%s", errors);
		else if (status != 0)
			cmd_error(ctx, "exit status %d: %s", status, l->line);
	}
	if (l->answer && ctx->client != NULL && ctx->client->answered != NULL)
		ctx->client->answered(ctx->arg);
	free(l->line);
	free(l);
}

/*
 * Queue line for the session shell (job: as a job started once the lines
 * before it are done); the client answers when it has run if it can
 * (later), else hears as it comes.  0, or -1 after reporting an error.
 */
static int
cmd_later_queue(struct cmd_ctx *ctx, const char *line, int job)
{
	struct cmd_later	*l;
	char			*cause = NULL;
	int			 rc;

	l = xcalloc(1, sizeof *l);
	l->ctx = *ctx;
	memset(l->ctx.opts, 0, sizeof l->ctx.opts);
	l->ctx.entry = NULL;
	l->ctx.line = NULL;
	l->line = xstrdup(line);
	l->job = job;
	if (ctx->client != NULL && ctx->client->later != NULL &&
	    ctx->client->answered != NULL) {
		if (ctx->client->later(ctx->arg, &cause) != 0) {
			cmd_error(ctx, "%s", cause);
			free(cause);
			free(l->line);
			free(l);
			return -1;
		}
		l->answer = 1;
	}
	l->next = cmd_laters;
	cmd_laters = l;
	if (job)
		rc = sessionsh_then(ctx->sessionsh, cmd_later_done, l, &cause);
	else
		rc = sessionsh_run(ctx->sessionsh, line, cmd_later_done, l,
		    &cause);
	if (rc != 0) {
		cmd_later_unlink(l);
		/* The client has its answer now: the error. */
		cmd_error(ctx, "%s", cause);
		free(cause);
		if (l->answer && ctx->client->answered != NULL)
			ctx->client->answered(ctx->arg);
		free(l->line);
		free(l);
		return -1;
	}
	return 0;
}

/* Run a line of session commands in the session shell. */
int
cmd_session_line(struct cmd_ctx *ctx, const char *line)
{
	return cmd_later_queue(ctx, line, 0);
}

/*
 * The ways out of a deck, as the hint that a shell's way out typed at the
 * prompt (or Ctrl+D on an empty line) gets: each says how and what it
 * does, joined with "or".
 */
static const char *const cmd_leave_ways[] = {
	"type !quit (it stops every job)",
	NULL
};

/* The words a shell leaves with; typed alone, they start no job. */
static const char *const cmd_leave_words[] = {
	"exit", "quit", "logout", NULL
};

/* Return the hint of how to leave jobdeck (cmd_leave_ways[]); free it. */
char *
cmd_leave_hint(void)
{
	const char	*const *w;
	char		*hint, *tmp;

	hint = xstrdup("to leave jobdeck,");
	for (w = cmd_leave_ways; *w != NULL; w++) {
		tmp = xprintf("%s%s %s", hint, w == cmd_leave_ways ? "" :
		    " or", *w);
		free(hint);
		hint = tmp;
	}
	return hint;
}

/*
 * Return the leave word (exit, quit, logout) that line is alone, blanks
 * around it allowed, or NULL.  With arguments (exit 3) or in a longer
 * line it is a shell's word like any other, and the line a job.
 */
static const char *
cmd_leave_word(const char *line)
{
	const char	*const *w;
	size_t		 len;

	line += strspn(line, " \t");
	len = strcspn(line, " \t");
	if (line[len + strspn(line + len, " \t")] != '\0')
		return NULL;
	for (w = cmd_leave_words; *w != NULL; w++) {
		if (strlen(*w) == len && strncmp(*w, line, len) == 0)
			return *w;
	}
	return NULL;
}

/*
 * Run one line typed at the prompt: a !command, a line of session
 * commands or a new job; a shell's way out alone (exit, quit, logout)
 * starts nothing and says how to leave; a read-only client's line that is
 * no !command is refused.  With a session shell, a line made only of
 * session commands (cmd_is_session_line()) runs there and anything else
 * is a job in the state it left (started once the lines before it are
 * done); without one, cd, export and unset are built in (an and-or list
 * of them, see cmd_run_list()).  Returns 0, or -1 after reporting an
 * error.
 */
int
cmd_run_line(struct cmd_ctx *ctx, const char *line)
{
	const char	*word;
	char		*hint;

	line += strspn(line, " \t");
	if (*line == '\0')
		return 0;
	if (*line == '!')
		return cmd_run_words(ctx, line + 1);
	/* A look-only client (attach -r) starts nothing, runs nothing. */
	if (ctx->read_only)
		return cmd_refuse_write(ctx, "starting a job or a session line");
	if ((word = cmd_leave_word(line)) != NULL) {
		hint = cmd_leave_hint();
		cmd_usage_error(ctx, "%s starts no job here; %s", word, hint);
		free(hint);
		return -1;
	}
	if (ctx->sessionsh != NULL) {
		if (cmd_is_session_line(line))
			return cmd_later_queue(ctx, line, 0);
		if (!sessionsh_idle(ctx->sessionsh))
			return cmd_later_queue(ctx, line, 1);
		return cmd_start_job(ctx, line, NULL) == NULL ? -1 : 0;
	}
	if (cmd_find_bare(line, strlen(line)) != NULL)
		return cmd_run_list(ctx, line);
	return cmd_start_job(ctx, line, NULL) == NULL ? -1 : 0;
}

/*
 * Return the running command's words after its first i (of argc) as they
 * were typed, quotes and backslashes kept, or NULL when there is no typed
 * line (the control socket) or its words do not match argv one for one.
 */
const char *
cmd_raw_tail(const struct cmd_ctx *ctx, int argc, int i)
{
	const char	*tail;
	int		 total;

	if (ctx->line == NULL)
		return NULL;
	tail = session_raw_tail(ctx->line, i, &total);
	return total == argc ? tail : NULL;
}

/*
 * Start a shell command as a new job in the session's env and cwd (or
 * cwd, when not NULL: a client's own, `jobdeck CMD` on a running deck).
 */
struct job *
cmd_start_job(struct cmd_ctx *ctx, const char *command, const char *cwd)
{
	struct job_spec	 spec;
	struct job	*job;
	char		**env, *cause = NULL;

	env = session_env(ctx->session);
	memset(&spec, 0, sizeof spec);
	spec.command = command;
	spec.shell = session_shell(ctx->session);
	spec.cwd = cwd != NULL ? cwd : session_cwd(ctx->session);
	spec.envp = env;
	job = jobtable_spawn(ctx->jt, &spec, &cause);
	session_env_free(env);
	if (job == NULL) {
		cmd_error(ctx, "cannot start job (%s): %s", cause, command);
		free(cause);
		return NULL;
	}
	if (ctx->client != NULL && ctx->client->select != NULL)
		ctx->client->select(job, 0, ctx->arg);
	return job;
}

/*
 * Parse a duration as a user writes it ("2", "0.5", "5m", "1h30m":
 * duration.h), from 0 to max seconds, into *out; 0, or -1 if it is not
 * one.
 */
int
cmd_parse_seconds(const char *s, double max, double *out)
{
	char	*cause = NULL;

	if (duration_parse("seconds", s, max, out, &cause) != 0) {
		free(cause);
		return -1;
	}
	return 0;
}

/* Find a job by id or name, reporting "no such job: X" if there is none. */
struct job *
cmd_find_job(struct cmd_ctx *ctx, const char *id)
{
	struct job	*job;
	char		*cause = NULL;

	job = jobtable_find(ctx->jt, id, &cause);
	if (job == NULL) {
		cmd_error(ctx, "%s", cause);
		free(cause);
	}
	return job;
}

/*
 * Return s as a text client may print it: with what a terminal would act
 * on escaped, or NULL when s is safe as it is (and always for JSON, which
 * escapes control characters itself).  Free what it returns.
 */
static char *
cmd_safe(const struct cmd_ctx *ctx, const char *s)
{
	size_t	len = strlen(s);

	if (ctx->json || !textesc_needed(s, len))
		return NULL;
	return textesc_visible(s, len);
}

/*
 * Format a message, escape what a terminal would act on (it may quote a
 * job's name or a user's words), and hand it to one of the client's
 * callbacks.
 */
static void
cmd_report(struct cmd_ctx *ctx, void (*cb)(const char *, void *),
    const char *fmt, va_list ap)
{
	char	*msg, *safe;

	msg = xvprintf(fmt, ap);
	safe = cmd_safe(ctx, msg);
	if (cb != NULL)
		cb(safe != NULL ? safe : msg, ctx->arg);
	free(safe);
	free(msg);
}

/* Report an error to the client and mark the command failed. */
void
cmd_error(struct cmd_ctx *ctx, const char *fmt, ...)
{
	va_list	ap;

	if (ctx->failed == 0)
		ctx->failed = CMD_FAILED;
	va_start(ap, fmt);
	cmd_report(ctx, ctx->client != NULL ? ctx->client->error : NULL, fmt,
	    ap);
	va_end(ap);
}

/* Report a misuse (unknown command, bad option) and mark the command so. */
void
cmd_usage_error(struct cmd_ctx *ctx, const char *fmt, ...)
{
	va_list	ap;

	ctx->failed = CMD_USAGE;
	va_start(ap, fmt);
	cmd_report(ctx, ctx->client != NULL ? ctx->client->error : NULL, fmt,
	    ap);
	va_end(ap);
}

/* Report a short success message to the client. */
void
cmd_message(struct cmd_ctx *ctx, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	cmd_report(ctx, ctx->client != NULL ? ctx->client->message : NULL, fmt,
	    ap);
	va_end(ap);
}

/*
 * Hand a titled text, its first header lines column names, to the client;
 * lines that need escaping are replaced in place (see cmd_safe()).
 */
void
cmd_show(struct cmd_ctx *ctx, const char *title, char **lines, int count,
    int header)
{
	char	*safe;
	int	 i;

	if (ctx->client == NULL || ctx->client->show == NULL)
		return;
	/*
	 * Names, commands and output lines: nothing may reach a terminal.
	 * A line that needs an escape is replaced in the caller's array,
	 * which the caller frees as ever; the rest are passed as they are.
	 */
	for (i = 0; i < count; i++) {
		if ((safe = cmd_safe(ctx, lines[i])) != NULL) {
			free(lines[i]);
			lines[i] = safe;
		}
	}
	safe = cmd_safe(ctx, title);
	ctx->client->show(safe != NULL ? safe : title, lines, count, header,
	    ctx->arg);
	free(safe);
}

/* Hand a command's JSON result (one document) to the client. */
void
cmd_json(struct cmd_ctx *ctx, const char *document)
{
	if (ctx->client != NULL && ctx->client->json != NULL)
		ctx->client->json(document, ctx->arg);
}

/* Finish the JSON document built in jb, hand it to the client, clear jb. */
void
cmd_json_buf(struct cmd_ctx *ctx, struct json_buf *jb)
{
	char	*doc;

	doc = json_finish(jb, NULL);
	json_clear(jb);
	cmd_json(ctx, doc);
	free(doc);
}

/*
 * cmd-reload.c: changing the stack while it runs.  !reload reads the
 * deck's configuration (or Procfile and .env) again and applies the
 * difference (the deck's reload, struct cmd_deck); !scale NAME N runs N
 * replicas of a configured job; !dup ID [NAME] starts a copy of a job (a
 * configured one's spec joins a copy of the deck's configuration, until
 * the next reload).  Each reports one line ("reload: 2
 * restarted, 1 added, 1 removed, 7 unchanged") and a detail view of every
 * configured job and setting, or with --json one object: the names by
 * change ("restarted", "updated", "added", "removed", "scaled",
 * "unchanged"), "jobs" ({name, change, what, replicas_before,
 * replicas_after}), "settings" (the notes) and "summary" (the line).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "config.h"
#include "job.h"
#include "jobtable.h"
#include "expand.h"
#include "json.h"
#include "loop.h"
#include "name.h"
#include "session.h"
#include "stack.h"
#include "xmalloc.h"

static void	cmd_reload_exec(struct cmd_ctx *, int, char **);
static void	cmd_scale_exec(struct cmd_ctx *, int, char **);
static void	cmd_dup_exec(struct cmd_ctx *, int, char **);
static void	cmd_edit_exec(struct cmd_ctx *, int, char **);

const struct cmd_entry cmd_reload_entry = {
	.name = "reload",
	.help = "read the configuration again: restart what changed, start "
	    "what is new, stop what went",
	.min_args = 0,
	.max_args = 0,
	.exec = cmd_reload_exec,
};

const struct cmd_entry cmd_scale_entry = {
	.name = "scale",
	.args = "NAME N",
	.help = "run N replicas of configured job NAME (NAME.1 ... NAME.N)",
	.min_args = 2,
	.max_args = 2,
	.exec = cmd_scale_exec,
};

const struct cmd_entry cmd_dup_entry = {
	.name = "dup",
	.args = "ID [NAME]",
	.help = "start a copy of a job's spec as NAME (a configured job's "
	    "lasts until the next !reload)",
	.min_args = 1,
	.max_args = 2,
	.exec = cmd_dup_exec,
};

const struct cmd_entry cmd_edit_entry = {
	.name = "edit",
	.args = "ID",
	.help = "edit a configured job's spec in $VISUAL or $EDITOR; saved, "
	    "it applies (until the next !reload)",
	.min_args = 1,
	.max_args = 1,
	.exec = cmd_edit_exec,
};

/* The kinds of change in the order the report gives them. */
static const enum stack_change_kind cmd_reload_kinds[] = {
	STACK_RESTARTED, STACK_UPDATED, STACK_ADDED, STACK_REMOVED,
	STACK_SCALED, STACK_UNCHANGED
};
#define CMD_RELOAD_NKINDS (sizeof cmd_reload_kinds / sizeof cmd_reload_kinds[0])

/* Return how many of r's jobs had a change of kind. */
static int
cmd_reload_count(const struct cmd_reload *r, enum stack_change_kind kind)
{
	size_t	i;
	int	n = 0;

	for (i = 0; i < r->nchanges; i++)
		n += r->changes[i].kind == kind;
	return n;
}

/* Return how many of r's notes say a setting was not applied. */
static int
cmd_reload_refused(const struct cmd_reload *r)
{
	size_t	i;
	int	n = 0;

	for (i = 0; i < r->nnotes; i++)
		n += strstr(r->notes[i], " not applied") != NULL;
	return n;
}

/*
 * Return a reload's line: "reload: 2 restarted, 1 added, 1 removed, 7
 * unchanged" ("scale: ..." for !scale; updated and scaled only when some
 * were), and the settings not applied.
 */
char *
cmd_reload_line(const struct cmd_reload *r)
{
	struct xbuf	 b;
	const char	*word;
	char		 part[64];
	size_t		 k;
	int		 n, refused;

	memset(&b, 0, sizeof b);
	xbuf_add(&b, r->verb != NULL ? r->verb : "reload",
	    strlen(r->verb != NULL ? r->verb : "reload"));
	xbuf_add(&b, ":", 1);
	for (k = 0; k < CMD_RELOAD_NKINDS; k++) {
		n = cmd_reload_count(r, cmd_reload_kinds[k]);
		if (n == 0 && (cmd_reload_kinds[k] == STACK_UPDATED ||
		    cmd_reload_kinds[k] == STACK_SCALED))
			continue;
		word = stack_change_word(cmd_reload_kinds[k]);
		snprintf(part, sizeof part, "%s %d %s", b.s[b.len - 1] == ':' ?
		    "" : ",", n, word);
		xbuf_add(&b, part, strlen(part));
	}
	if ((refused = cmd_reload_refused(r)) > 0) {
		snprintf(part, sizeof part, "; %d setting%s not applied",
		    refused, refused == 1 ? "" : "s");
		xbuf_add(&b, part, strlen(part));
	}
	return b.s;
}

/* Free what a reload's report holds. */
void
cmd_reload_clear(struct cmd_reload *r)
{
	size_t	i;

	stack_changes_free(r->changes, r->nchanges);
	for (i = 0; i < r->nnotes; i++)
		free(r->notes[i]);
	free(r->notes);
	memset(r, 0, sizeof *r);
}

/* Write a reload's report as one JSON object. */
static void
cmd_reload_json(struct cmd_ctx *ctx, const struct cmd_reload *r)
{
	const struct stack_change	*ch;
	struct json_buf			 jb;
	char				*line;
	size_t				 i, k;

	json_init(&jb);
	json_object_begin(&jb);
	line = cmd_reload_line(r);
	json_key(&jb, "summary");
	json_put_string(&jb, line);
	free(line);
	for (k = 0; k < CMD_RELOAD_NKINDS; k++) {
		json_key(&jb, stack_change_word(cmd_reload_kinds[k]));
		json_array_begin(&jb);
		for (i = 0; i < r->nchanges; i++) {
			if (r->changes[i].kind == cmd_reload_kinds[k])
				json_put_string(&jb, r->changes[i].name);
		}
		json_array_end(&jb);
	}
	json_key(&jb, "jobs");
	json_array_begin(&jb);
	for (i = 0; i < r->nchanges; i++) {
		ch = &r->changes[i];
		json_object_begin(&jb);
		json_key(&jb, "name");
		json_put_string(&jb, ch->name);
		json_key(&jb, "change");
		json_put_string(&jb, stack_change_word(ch->kind));
		json_key(&jb, "what");
		json_put_string(&jb, ch->what);
		json_key(&jb, "replicas_before");
		json_put_int(&jb, ch->was);
		json_key(&jb, "replicas_after");
		json_put_int(&jb, ch->now);
		json_object_end(&jb);
	}
	json_array_end(&jb);
	json_key(&jb, "settings");
	json_array_begin(&jb);
	for (i = 0; i < r->nnotes; i++)
		json_put_string(&jb, r->notes[i]);
	json_array_end(&jb);
	json_object_end(&jb);
	cmd_json_buf(ctx, &jb);
}

/*
 * Show a reload's report: its line, then a line for every configured job
 * ("restarted  worker (command, env)") and setting; the line alone when
 * nothing but unchanged jobs is left to say.
 */
static void
cmd_reload_text(struct cmd_ctx *ctx, const struct cmd_reload *r)
{
	const struct stack_change	*ch;
	char				*line, **lines;
	size_t				 i, k;
	int				 n = 0;

	line = cmd_reload_line(r);
	if ((size_t)cmd_reload_count(r, STACK_UNCHANGED) == r->nchanges &&
	    r->nnotes == 0) {
		cmd_message(ctx, "%s", line);
		free(line);
		return;
	}
	lines = xcalloc(r->nchanges + r->nnotes + 2, sizeof *lines);
	lines[n++] = xstrdup(line);
	for (k = 0; k < CMD_RELOAD_NKINDS; k++) {
		for (i = 0; i < r->nchanges; i++) {
			ch = &r->changes[i];
			if (ch->kind != cmd_reload_kinds[k])
				continue;
			if (ch->kind == STACK_SCALED)
				lines[n++] = xprintf("%-10s %s: %d -> %d "
				    "replicas", stack_change_word(ch->kind),
				    ch->name, ch->was, ch->now);
			else
				lines[n++] = xprintf("%-10s %s%s%s%s",
				    stack_change_word(ch->kind), ch->name,
				    ch->what != NULL ? " (" : "",
				    ch->what != NULL ? ch->what : "",
				    ch->what != NULL ? ")" : "");
		}
	}
	for (i = 0; i < r->nnotes; i++)
		lines[n++] = xprintf("%-10s %s", "setting", r->notes[i]);
	cmd_show(ctx, "Reload", lines, n, 0);
	for (i = 0; i < (size_t)n; i++)
		free(lines[i]);
	free(lines);
	free(line);
}

/* Report a reload (or a scale) in the form the client asked for. */
static void
cmd_reload_report(struct cmd_ctx *ctx, const struct cmd_reload *r)
{
	if (ctx->json)
		cmd_reload_json(ctx, r);
	else
		cmd_reload_text(ctx, r);
}

/* !reload: the deck's configuration read again and applied. */
static void
cmd_reload_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct cmd_reload	 r;
	char			*cause = NULL;

	(void)argc;
	(void)argv;
	if (ctx->deck == NULL || ctx->deck->reload == NULL) {
		cmd_error(ctx, "reload: not possible here");
		return;
	}
	if (ctx->deck->reload(NULL, &r, &cause, ctx->deck->reload_arg) != 0) {
		cmd_error(ctx, "reload: %s", cause);
		free(cause);
		return;
	}
	cmd_reload_report(ctx, &r);
	cmd_reload_clear(&r);
}

/* !scale NAME N */
static void
cmd_scale_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct cmd_reload	 r;
	char			*end, *cause = NULL;
	long			 n;

	(void)argc;
	if (ctx->stack == NULL) {
		cmd_error(ctx, "scale: no configured jobs here");
		return;
	}
	if (jobtable_closed(ctx->jt)) {
		cmd_error(ctx, "scale: the deck is quitting");
		return;
	}
	n = strtol(argv[2], &end, 10);
	if (*argv[2] == '\0' || *end != '\0' || n < 0 || n > 100000) {
		cmd_usage_error(ctx, "scale: not a count of replicas: %s",
		    argv[2]);
		return;
	}
	memset(&r, 0, sizeof r);
	r.verb = "scale";
	if (stack_scale(ctx->stack, argv[1], (int)n, &r.changes,
	    &r.nchanges, &cause) != 0) {
		cmd_error(ctx, "scale: %s", cause);
		free(cause);
		return;
	}
	cmd_reload_report(ctx, &r);
	cmd_reload_clear(&r);
}

/*
 * Return whether name is free for a new job: no configured job, no
 * replica of one and no live job of the table has it; else report why.
 */
static int
cmd_dup_name_free(struct cmd_ctx *ctx, const struct config *cfg,
    const char *name)
{
	struct job	*job;
	char		*cause = NULL, *base = NULL;
	int		 taken;

	if (name_check_job(name, &cause) != 0) {
		cmd_error(ctx, "dup: %s", cause);
		free(cause);
		return 0;
	}
	if (cfg != NULL && config_find_job(cfg, name) != NULL) {
		cmd_error(ctx, "dup: a configured job is named %s", name);
		return 0;
	}
	if (cfg != NULL && config_replica_parse(name, &base) != 0) {
		taken = config_find_job(cfg, base) != NULL;
		if (taken)
			cmd_error(ctx, "dup: %s is the name of a replica of %s",
			    name, base);
		free(base);
		if (taken)
			return 0;
	}
	if ((job = jobtable_find(ctx->jt, name, &cause)) != NULL &&
	    jobtable_is_live(ctx->jt, job)) {
		cmd_error(ctx, "dup: a job named %s is running already (job "
		    "%d)", name, job_id(job));
		return 0;
	}
	free(cause);
	return 1;
}

/* Return NAME-2, NAME-3... the first free for a copy of name. */
static char *
cmd_dup_default_name(struct cmd_ctx *ctx, const struct config *cfg,
    const char *name)
{
	struct job	*job;
	char		*try, *cause = NULL;
	int		 n;

	for (n = 2;; n++) {
		try = xprintf("%s-%d", name, n);
		job = jobtable_find(ctx->jt, try, &cause);
		free(cause);
		cause = NULL;
		if ((cfg == NULL || config_find_job(cfg, try) == NULL) &&
		    (job == NULL || !jobtable_is_live(ctx->jt, job)))
			return try;
		free(try);
	}
}

/*
 * Dup a configured job: the deck moves to a copy of its configuration
 * with cj copied as name (one replica, autostart), which starts.
 */
static void
cmd_dup_configured(struct cmd_ctx *ctx, const struct config_job *cj,
    const char *name)
{
	struct config		*cfg;
	struct config_job	*nj;
	struct cmd_reload	 r;
	struct job		*job;
	char			*cause = NULL, *from;

	if (ctx->deck == NULL || ctx->deck->reload == NULL) {
		cmd_error(ctx, "dup: not possible here");
		return;
	}
	from = xstrdup(cj->name);	/* cj goes with the old configuration */
	cfg = config_copy(stack_config(ctx->stack));
	cfg->jobs = xreallocarray(cfg->jobs, cfg->njobs + 1,
	    sizeof *cfg->jobs);
	nj = &cfg->jobs[cfg->njobs++];
	config_copy_job(nj, cj);
	free(nj->name);
	nj->name = xstrdup(name);
	nj->replicas = 1;
	nj->autostart = 1;
	nj->line = 0;
	if (ctx->deck->reload(cfg, &r, &cause, ctx->deck->reload_arg) != 0) {
		cmd_error(ctx, "dup: %s", cause);
		free(cause);
		free(from);
		return;
	}
	cmd_reload_clear(&r);
	if ((job = jobtable_find(ctx->jt, name, &cause)) == NULL) {
		cmd_error(ctx, "dup: %s did not start: %s", name, cause);
		free(cause);
		free(from);
		return;
	}
	if (ctx->client != NULL && ctx->client->select != NULL)
		ctx->client->select(job, 0, ctx->arg);
	if (ctx->json)
		cmd_json_job_doc(ctx, job);
	else
		cmd_message(ctx, "started [%d] %s, a copy of %s (in the deck "
		    "until the next !reload)", job_id(job), name, from);
	free(from);
}

/* Dup a job not from the configuration: its spec spawned as name. */
static void
cmd_dup_spec(struct cmd_ctx *ctx, struct job *orig, const char *name)
{
	struct job_spec	 spec = *job_spec(orig);
	struct job	*job;
	char		*cause = NULL;

	spec.name = name;
	if ((job = jobtable_spawn(ctx->jt, &spec, &cause)) == NULL) {
		cmd_error(ctx, "dup: %s", cause);
		free(cause);
		return;
	}
	if (ctx->client != NULL && ctx->client->select != NULL)
		ctx->client->select(job, 0, ctx->arg);
	if (ctx->json)
		cmd_json_job_doc(ctx, job);
	else
		cmd_message(ctx, "started [%d] %s, a copy of [%d]", job_id(job),
		    name, job_id(orig));
}

/* !dup ID [NAME] */
static void
cmd_dup_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	const struct config_job	*cj = NULL;
	const struct config	*cfg = NULL;
	struct job		*orig;
	char			*name;

	if ((orig = cmd_find_job(ctx, argv[1])) == NULL)
		return;
	if (jobtable_closed(ctx->jt)) {
		cmd_error(ctx, "dup: the deck is quitting");
		return;
	}
	if (ctx->stack != NULL) {
		cfg = stack_config(ctx->stack);
		cj = stack_job_config(ctx->stack, orig);
	}
	if (argc > 2)
		name = xstrdup(argv[2]);
	else
		name = cmd_dup_default_name(ctx, cfg, cj != NULL ? cj->name :
		    job_name(orig) != NULL ? job_name(orig) : "job");
	if (cmd_dup_name_free(ctx, cfg, name)) {
		if (cj != NULL)
			cmd_dup_configured(ctx, cj, name);
		else
			cmd_dup_spec(ctx, orig, name);
	}
	free(name);
}

/* The largest spec !edit reads back, in bytes. */
#define CMD_EDIT_MAX	(256 * 1024)

/* An !edit under way: its editor job, its file, the job it edits. */
struct cmd_edit {
	struct jobtable		*jt;
	struct stack		*stack;
	const struct cmd_deck	*deck;
	int			 sub;		/* the table subscription */
	struct job		*editor;
	uint64_t		 timer;		/* the editor ended: apply */
	char			*path;		/* the spec, in TMPDIR */
	char			*name;		/* the configured job's */
	char			*before;	/* the text given */
};

/* Say an !edit's outcome on every terminal and on the editor's job. */
static void
cmd_edit_say(struct cmd_edit *e, int error, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void
cmd_edit_say(struct cmd_edit *e, int error, const char *fmt, ...)
{
	va_list	 ap;
	char	*msg;

	va_start(ap, fmt);
	msg = xvprintf(fmt, ap);
	va_end(ap);
	if (e->deck->say != NULL)
		e->deck->say(msg, error, e->deck->reload_arg);
	free(msg);
}

static char	*cmd_edit_read(const char *, size_t *, char **);

/* End an !edit: its file removed, its subscription and memory freed. */
static void
cmd_edit_free(struct cmd_edit *e)
{
	if (e->sub != -1)
		jobtable_unsubscribe(e->jt, e->sub);
	if (e->timer != 0)
		loop_cancel_timer(jobtable_loop(e->jt), e->timer);
	unlink(e->path);
	free(e->path);
	free(e->name);
	free(e->before);
	free(e);
}

/*
 * Read the edited spec back and move the deck to a copy of its
 * configuration with it in place of the job's; an error (the editor's
 * status, the text's place) changes nothing.
 */
static void
cmd_edit_apply(struct cmd_edit *e)
{
	struct config		*cfg;
	struct config_job	*nj = NULL;
	struct cmd_reload	 r;
	char			*text, *cause = NULL, *line, *label;
	size_t			 len, i;
	int			 status = job_end_code(e->editor);

	if (status != 0) {
		cmd_edit_say(e, 1, "edit %s: the editor exited %d: nothing "
		    "changed", e->name, status);
		return;
	}
	if ((text = cmd_edit_read(e->path, &len, &cause)) == NULL) {
		cmd_edit_say(e, 1, "edit %s: %s", e->name, cause);
		free(cause);
		return;
	}
	if (strcmp(text, e->before) == 0) {
		cmd_edit_say(e, 0, "edit %s: no change", e->name);
		free(text);
		return;
	}
	label = xprintf("%s.toml", e->name);
	if (config_parse_job(label, text, len, stack_config(e->stack), &nj,
	    &cause) != 0) {
		cmd_edit_say(e, 1, "edit %s: %s (nothing changed)", e->name,
		    cause);
		goto out;
	}
	if (strcmp(nj->name, e->name) != 0) {
		cmd_edit_say(e, 1, "edit %s: the name must stay %s (!dup makes "
		    "a copy under another)", e->name, e->name);
		goto out;
	}
	cfg = config_copy(stack_config(e->stack));
	for (i = 0; i < cfg->njobs && strcmp(cfg->jobs[i].name, e->name) !=
	    0; i++)
		;
	if (i == cfg->njobs) {
		config_free(cfg);
		cmd_edit_say(e, 1, "edit %s: the job is no longer in the "
		    "configuration", e->name);
		goto out;
	}
	config_clear_job(&cfg->jobs[i]);
	config_copy_job(&cfg->jobs[i], nj);
	if (e->deck->reload(cfg, &r, &cause, e->deck->reload_arg) != 0) {
		cmd_edit_say(e, 1, "edit %s: %s", e->name, cause);
		goto out;
	}
	line = cmd_reload_line(&r);
	cmd_edit_say(e, 0, "edit %s: %s (in the deck until the next "
	    "!reload)", e->name, line);
	free(line);
	cmd_reload_clear(&r);
out:
	config_job_free(nj);
	free(cause);
	free(label);
	free(text);
}

/* The editor ended, a turn ago: apply the edit, take the editor away. */
static void
cmd_edit_timer_cb(void *arg)
{
	struct cmd_edit	*e = arg;
	char		*cause = NULL;

	e->timer = 0;
	cmd_edit_apply(e);
	if (jobtable_remove(e->jt, e->editor, &cause) != 0)
		free(cause);	/* still ending: it stays in the panel */
	cmd_edit_free(e);
}

/* A job ended: the editor's end applies the edit on the next turn. */
static void
cmd_edit_exited(struct job *job, void *arg)
{
	struct cmd_edit	*e = arg;

	if (job != e->editor || e->timer != 0)
		return;
	jobtable_unsubscribe(e->jt, e->sub);
	e->sub = -1;
	e->timer = loop_add_timer(jobtable_loop(e->jt), 0, cmd_edit_timer_cb,
	    e);
}

/* A job left the table: the editor's going ends the edit untouched. */
static void
cmd_edit_removed(struct job *job, void *arg)
{
	struct cmd_edit	*e = arg;

	if (job == e->editor && e->timer == 0)
		cmd_edit_free(e);
}

static const struct jobtable_cbs cmd_edit_cbs = {
	.exited = cmd_edit_exited,
	.removed = cmd_edit_removed,
};

/* Read at most CMD_EDIT_MAX bytes of path; NULL with *cause. */
static char *
cmd_edit_read(const char *path, size_t *len, char **cause)
{
	FILE	*f;
	char	*buf;

	if ((f = fopen(path, "r")) == NULL) {
		*cause = xprintf("%s: %s", path, strerror(errno));
		return NULL;
	}
	buf = xmalloc(CMD_EDIT_MAX + 1);
	*len = fread(buf, 1, CMD_EDIT_MAX + 1, f);
	fclose(f);
	if (*len > CMD_EDIT_MAX) {
		free(buf);
		*cause = xprintf("the spec is over %d KiB", CMD_EDIT_MAX / 1024);
		return NULL;
	}
	buf[*len] = '\0';
	return buf;
}

/*
 * Write the spec of job cj, with a header saying what saving does, to a
 * new private file in TMPDIR; its path, or NULL with *cause.
 */
static char *
cmd_edit_write(const struct config_job *cj, char **text, char **cause)
{
	const char	*tmp = getenv("TMPDIR");
	char		*path, *spec;
	size_t		 len;
	int		 fd;

	spec = config_job_toml(cj);
	*text = xprintf("# jobdeck: the spec of %s.  Save and quit to apply it "
	    "(its jobs restart);\n# quit without saving (or :cq) to change "
	    "nothing.  The change lives in the\n# deck until the next "
	    "!reload, which reads the configuration file again.\n%s",
	    cj->name, spec);
	free(spec);
	path = xprintf("%s/jobdeck-edit-%s-XXXXXX.toml", tmp != NULL &&
	    *tmp == '/' ? tmp : "/tmp", cj->name);
	if ((fd = mkstemps(path, 5)) == -1) {
		*cause = xprintf("%s: %s", path, strerror(errno));
		goto fail;
	}
	len = strlen(*text);
	if (write(fd, *text, len) != (ssize_t)len) {
		*cause = xprintf("%s: %s", path, strerror(errno));
		close(fd);
		unlink(path);
		goto fail;
	}
	close(fd);
	return path;

fail:
	free(path);
	free(*text);
	*text = NULL;
	return NULL;
}

/*
 * !edit ID: the configured job's spec opened in $VISUAL, else $EDITOR,
 * else vi, as a job of its own given the keyboard (a real terminal);
 * once the editor ends, the saved spec applies as a reload of that job.
 */
static void
cmd_edit_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	const struct config_job	*cj;
	const char		*editor;
	struct cmd_edit		*e;
	struct job		*job;
	char			*path, *text, *quoted, *command, *cause = NULL;

	(void)argc;
	if ((job = cmd_find_job(ctx, argv[1])) == NULL)
		return;
	if (ctx->client == NULL || ctx->client->screen == NULL) {
		cmd_error(ctx, "edit: needs a terminal: run it at the deck's "
		    "prompt");
		return;
	}
	if (ctx->stack == NULL || ctx->deck == NULL ||
	    ctx->deck->reload == NULL ||
	    (cj = stack_job_config(ctx->stack, job)) == NULL) {
		cmd_error(ctx, "edit: [%d] is not a configured job (!dup copies "
		    "any job)", job_id(job));
		return;
	}
	if ((path = cmd_edit_write(cj, &text, &cause)) == NULL) {
		cmd_error(ctx, "edit: %s", cause);
		free(cause);
		return;
	}
	if ((editor = session_getenv(ctx->session, "VISUAL")) == NULL ||
	    *editor == '\0')
		editor = session_getenv(ctx->session, "EDITOR");
	if (editor == NULL || *editor == '\0')
		editor = "vi";
	quoted = expand_shell_quote(path);
	command = xprintf("%s %s", editor, quoted);
	free(quoted);
	e = xcalloc(1, sizeof *e);
	e->jt = ctx->jt;
	e->stack = ctx->stack;
	e->deck = ctx->deck;
	e->path = path;
	e->name = xstrdup(cj->name);
	e->before = text;
	e->sub = -1;
	if ((e->editor = cmd_start_job(ctx, command, NULL)) == NULL) {
		free(command);
		cmd_edit_free(e);
		return;
	}
	free(command);
	e->sub = jobtable_subscribe(ctx->jt, &cmd_edit_cbs, e);
	if (ctx->client->select != NULL)
		ctx->client->select(e->editor, 1, ctx->arg);
	cmd_message(ctx, "edit %s: [%d] is the editor (saved, the spec "
	    "applies)", e->name, job_id(e->editor));
}

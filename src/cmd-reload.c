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
 * replicas_after}) and "settings" (the notes).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "config.h"
#include "job.h"
#include "jobtable.h"
#include "json.h"
#include "name.h"
#include "stack.h"
#include "xmalloc.h"

static void	cmd_reload_exec(struct cmd_ctx *, int, char **);
static void	cmd_scale_exec(struct cmd_ctx *, int, char **);
static void	cmd_dup_exec(struct cmd_ctx *, int, char **);

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
 * unchanged" (updated and scaled only when some were), and the settings
 * not applied.
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
	xbuf_add(&b, "reload:", 7);
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
	size_t				 i, k;

	json_init(&jb);
	json_object_begin(&jb);
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
	n = strtol(argv[2], &end, 10);
	if (*argv[2] == '\0' || *end != '\0' || n < 0 || n > 100000) {
		cmd_usage_error(ctx, "scale: not a count of replicas: %s",
		    argv[2]);
		return;
	}
	memset(&r, 0, sizeof r);
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
	char		*cause = NULL;

	if (name_check_job(name, &cause) != 0) {
		cmd_error(ctx, "dup: %s", cause);
		free(cause);
		return 0;
	}
	if (cfg != NULL && config_find_job(cfg, name) != NULL) {
		cmd_error(ctx, "dup: a configured job is named %s", name);
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
	cfg->jobs = xreallocarray(cfg->jobs, cfg->njobs + 2,
	    sizeof *cfg->jobs);
	nj = &cfg->jobs[cfg->njobs++];
	memset(&cfg->jobs[cfg->njobs], 0, sizeof *nj);
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

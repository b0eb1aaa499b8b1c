/*
 * cmd-history.c: the runs the output store keeps, of this deck and of
 * earlier ones: !history lists them, !rerun starts one again with its
 * spec, cwd and environment, and !logs RUN opens one (cmd-job.c asks
 * cmd_history_logs() first).  list --all (cmd-ctl.c) adds them to the
 * jobs through cmd_history_runs().
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "job.h"
#include "jobfield.h"
#include "jobtable.h"
#include "json.h"
#include "session.h"
#include "store.h"
#include "texttable.h"
#include "xmalloc.h"

#define CMD_HISTORY_LIMIT	50	/* runs !history shows by default */
#define CMD_HISTORY_TEXT_MAX	100000	/* lines of a run a client gets */

static void	cmd_history_exec(struct cmd_ctx *, int, char **);
static void	cmd_rerun_exec(struct cmd_ctx *, int, char **);

enum { HISTORY_LIMIT, HISTORY_ALL };
static const struct cmd_option cmd_history_options[] = {
	[HISTORY_LIMIT] = { .name = "--limit", .value = "N" },
	[HISTORY_ALL] = { .name = "--all", .alias = "-a" },
	{ .name = NULL }
};

const struct cmd_entry cmd_history_entry = {
	.name = "history",
	.options = cmd_history_options,
	.args = "",
	.help = "list the runs of earlier decks the store keeps, newest first "
	    "(--all: this deck's too; --limit: the N newest, 50 by default)",
	.min_args = 0,
	.max_args = 0,
	.flags = CMD_READ_ONLY,
	.exec = cmd_history_exec,
};

const struct cmd_entry cmd_rerun_entry = {
	.name = "rerun",
	.args = "RUN|ID",
	.help = "start a run again (of an earlier deck too) with its command, "
	    "cwd and environment",
	.min_args = 1,
	.max_args = 1,
	.exec = cmd_rerun_exec,
};

/* Return the store's directory, or NULL after saying there is none. */
static const char *
cmd_history_dir(struct cmd_ctx *ctx)
{
	struct store	*store = jobtable_store(ctx->jt);

	if (store == NULL) {
		cmd_error(ctx, "%s: no output store (see log_dir)",
		    ctx->entry->name);
		return NULL;
	}
	return store_dir(store);
}

/*
 * Read the metadata of up to limit runs (limit <= 0: every one), newest
 * first (of every deck with all, else of earlier ones); their count, or
 * -1 after an error.  Run ids sort by age, so the newest are the last
 * names of the store's list, and only their metas are read: the limit
 * bounds the work and the memory, however many runs the store keeps
 * (this deck's own runs are read to be skipped without all).
 */
int
cmd_history_runs(struct cmd_ctx *ctx, int all, int limit,
    struct store_meta **out)
{
	struct store_meta	*metas;
	struct store		*store = jobtable_store(ctx->jt);
	const char		*dir;
	char			**runs, *cause = NULL;
	int			  n, i, count = 0, max;

	*out = NULL;
	if ((dir = cmd_history_dir(ctx)) == NULL)
		return -1;
	if (store_list(dir, &runs, &n, &cause) != 0) {
		cmd_error(ctx, "%s: %s", ctx->entry->name, cause);
		free(cause);
		return -1;
	}
	max = limit > 0 && limit < n ? limit : n;
	metas = xcalloc((size_t)max + 1, sizeof *metas);
	for (i = n - 1; i >= 0 && count < max; i--) {
		if (store_meta_read(dir, runs[i], &metas[count], &cause) != 0) {
			/* Removed by a sweep meanwhile, or damaged: skip it. */
			free(cause);
			cause = NULL;
			continue;
		}
		if (!all && strcmp(metas[count].deck, store_deck(store)) == 0) {
			store_meta_clear(&metas[count]);
			continue;
		}
		count++;
	}
	store_list_free(runs, n);
	*out = metas;
	return count;
}

/* Free what cmd_history_runs() read. */
void
cmd_history_free(struct store_meta *metas, int count)
{
	int	i;

	for (i = 0; i < count; i++)
		store_meta_clear(&metas[i]);
	free(metas);
}

/* Add key and an array of the runs' objects to a JSON object being written. */
void
cmd_history_json_runs(struct json_buf *jb, const char *key,
    const struct store_meta *metas, int n)
{
	int	i;

	json_key(jb, key);
	json_array_begin(jb);
	for (i = 0; i < n; i++) {
		json_object_begin(jb);
		jobfield_json_stored(jb, &metas[i]);
		json_object_end(jb);
	}
	json_array_end(jb);
}

/*
 * The runs table's view (jobfield.h): RUN, JOB, STATE, EXIT, STARTED,
 * COMMAND ("NAME: COMMAND" when the run had a name); STARTED goes first
 * when narrow (the run id holds its start time too).
 */
static const struct jobfield_col cmd_history_cols[] = {
	{ JOBFIELD_RUN, "RUN", 0 },
	{ JOBFIELD_ID, "JOB", 0 },
	{ JOBFIELD_STATE, "STATE", 0 },
	{ JOBFIELD_EXIT, "EXIT", 0 },
	{ JOBFIELD_STARTED_AT, "STARTED", TEXTTABLE_OPTIONAL },
	{ JOBFIELD_LABEL, "COMMAND", 0 },
};

#define CMD_HISTORY_NCOLS \
	(sizeof cmd_history_cols / sizeof cmd_history_cols[0])

/* Return the table of runs (texttable.h), in cmd_history_cols' view. */
struct texttable *
cmd_history_table(const struct store_meta *metas, int n)
{
	struct texttable	*t;
	int			 i;

	t = jobfield_table_new(cmd_history_cols, CMD_HISTORY_NCOLS);
	for (i = 0; i < n; i++)
		jobfield_table_add_stored(t, cmd_history_cols,
		    CMD_HISTORY_NCOLS, &metas[i]);
	return t;
}

/*
 * !history [--all] [--limit N]: the runs of earlier decks (--all: and of
 * this one), newest first.
 */
static void
cmd_history_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct store_meta	 *metas;
	struct json_buf		  jb;
	struct texttable	 *t;
	const char		 *value;
	char			**lines, *end;
	long			  limit = CMD_HISTORY_LIMIT;
	int			  n, count;

	(void)argc;
	(void)argv;
	if ((value = ctx->opts[HISTORY_LIMIT].value) != NULL) {
		errno = 0;
		limit = strtol(value, &end, 10);
		if (*value == '\0' || *end != '\0' || errno != 0 ||
		    limit < 1 || limit > INT_MAX) {
			cmd_usage_error(ctx, "history: --limit wants a "
			    "positive number: %s", value);
			return;
		}
	}
	n = cmd_history_runs(ctx, ctx->opts[HISTORY_ALL].count > 0,
	    (int)limit, &metas);
	if (n < 0)
		return;
	if (ctx->json) {
		json_init(&jb);
		json_object_begin(&jb);
		cmd_history_json_runs(&jb, "runs", metas, n);
		json_object_end(&jb);
		cmd_json_buf(ctx, &jb);
		cmd_history_free(metas, n);
		return;
	}
	t = cmd_history_table(metas, n);
	lines = texttable_lines(t, ctx->width, &count);
	texttable_free(t);
	cmd_show(ctx, "History", lines, count, 1);
	texttable_lines_free(lines, count);
	cmd_history_free(metas, n);
}

/*
 * Read the metadata of the run id names: a run id, or a job of this deck
 * (its last run); 0, or -1 after saying why.
 */
static int
cmd_history_find(struct cmd_ctx *ctx, const char *id, struct store_meta *m)
{
	struct job	*job;
	const char	*dir, *run = id;
	char		*cause = NULL;

	if ((dir = cmd_history_dir(ctx)) == NULL)
		return -1;
	if (!store_id_valid(id)) {
		if ((job = cmd_find_job(ctx, id)) == NULL)
			return -1;
		if ((run = job_run_id(job)) == NULL) {
			cmd_error(ctx, "%s: job %d has no run in the store",
			    ctx->entry->name, job_id(job));
			return -1;
		}
	}
	if (store_meta_read(dir, run, m, &cause) != 0) {
		cmd_error(ctx, "%s: no such run: %s (%s)", ctx->entry->name,
		    run, cause);
		free(cause);
		return -1;
	}
	return 0;
}

/*
 * !logs RUN: when id is a run id, show that run (streamed by a client
 * that reads it as it sends it, in a view that reads it a screen at a
 * time, or its last lines) and return 1; else 0.  A run damaged in the
 * store is shown up to its damage, and the command fails saying why.
 */
int
cmd_history_logs(struct cmd_ctx *ctx, const char *id)
{
	struct store_meta	  m;
	struct store_reader	 *r;
	struct store_line	 *sl;
	struct json_buf		  jb;
	const char		 *dir, *why;
	char			**lines, *title, *cause = NULL;
	char			 *damage = NULL;
	int			  n = 0, live, more;

	if (!store_id_valid(id))
		return 0;
	if (cmd_history_find(ctx, id, &m) != 0)
		return 1;
	dir = store_dir(jobtable_store(ctx->jt));
	live = store_deck_alive(dir, m.deck) && m.ended == 0;
	title = xprintf("Logs %s [%d] %s", m.run, m.job, m.command != NULL ?
	    m.command : "");
	if (ctx->sink != NULL) {
		if (cmd_logs_stream_run(ctx, dir, m.run, &cause) != 0) {
			cmd_error(ctx, "logs: %s", cause);
			free(cause);
		}
		goto out;
	}
	if (!ctx->json && ctx->client != NULL && ctx->client->show_run !=
	    NULL) {
		if (ctx->client->show_run(title, dir, m.run, 0, live,
		    ctx->arg, &cause) != 0) {
			cmd_error(ctx, "logs: %s", cause);
			free(cause);
		}
		goto out;
	}
	if ((r = store_reader_open(dir, m.run, &cause)) == NULL) {
		cmd_error(ctx, "logs: %s", cause);
		free(cause);
		goto out;
	}
	if (store_reader_tail(r, CMD_HISTORY_TEXT_MAX, STORE_TEXT, &sl, &n,
	    &more) != 0)
		n = 0;
	if ((why = store_reader_damage(r)) != NULL)
		damage = xstrdup(why);
	store_reader_close(r);
	lines = store_lines_take(sl, n);
	if (ctx->json) {
		json_init(&jb);
		json_object_begin(&jb);
		json_key(&jb, "run");
		json_put_string(&jb, m.run);
		json_key(&jb, "lines");
		json_put_strings(&jb, lines, n);
		if (damage != NULL) {
			json_key(&jb, "error");
			json_put_string(&jb, damage);
		}
		json_object_end(&jb);
		cmd_json_buf(ctx, &jb);
	} else
		cmd_show(ctx, title, lines, n, 0);
	job_text_free(lines, n);
	if (damage != NULL)
		cmd_error(ctx, "logs: %s", damage);
	free(damage);
out:
	free(title);
	store_meta_clear(&m);
	return 1;
}

/*
 * !rerun RUN|ID: start the run again as a new job, with its command (or
 * argv), shell, cwd, environment and pty.
 */
static void
cmd_rerun_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct store_meta	 m;
	struct job_spec		 spec;
	struct job		*job, *other;
	char			*cause = NULL, **env = NULL;

	(void)argc;
	if (cmd_history_find(ctx, argv[ctx->first], &m) != 0)
		return;
	memset(&spec, 0, sizeof spec);
	/* A live job may hold the name: the new one goes without it. */
	other = m.name != NULL ? jobtable_find(ctx->jt, m.name, NULL) : NULL;
	spec.name = other == NULL || !job_is_running(other) ? m.name : NULL;
	spec.command = m.argv == NULL ? m.command : NULL;
	spec.argv = m.argv;
	spec.shell = m.shell != NULL ? m.shell : session_shell(ctx->session);
	spec.cwd = m.cwd;
	/* An empty environment was kept as none: the session's then. */
	if (m.envp == NULL)
		env = session_env(ctx->session);
	spec.envp = m.envp != NULL ? m.envp : env;
	spec.no_pty = !m.pty;
	if (spec.command == NULL && spec.argv == NULL) {
		cmd_error(ctx, "rerun: run %s has no command", m.run);
		store_meta_clear(&m);
		return;
	}
	job = jobtable_spawn(ctx->jt, &spec, &cause);
	if (env != NULL)
		session_env_free(env);
	if (job == NULL) {
		cmd_error(ctx, "rerun: %s", cause);
		free(cause);
	} else {
		cmd_message(ctx, "[%d] %s (again, from run %s)", job_id(job),
		    job_command(job), m.run);
		if (ctx->client != NULL && ctx->client->select != NULL)
			ctx->client->select(job, 0, ctx->arg);
	}
	store_meta_clear(&m);
}

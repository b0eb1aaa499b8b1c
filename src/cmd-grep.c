/*
 * cmd-grep.c: !grep [-i] [-E] [-F] PATTERN [ID...]: search the output
 * store, every run of it (newest first) or the runs of the jobs and the
 * run ids given.  A client that shows a search in a view of its own (the
 * prompt: cmd_client.grep) takes the search over; on a face's sink
 * (cmdsink.h: the control socket) the search is a task that steps it
 * through the loop, CMD_GREP_BUDGET bytes a step while the sink is not
 * stalled, and writes the matches as they come; for any other client the
 * command steps it to the end itself and shows the first CMD_GREP_MAX
 * matching lines.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cmdsink.h"
#include "grep.h"
#include "job.h"
#include "jobtable.h"
#include "json.h"
#include "loop.h"
#include "store.h"
#include "textesc.h"
#include "xmalloc.h"

#define CMD_GREP_MAX	1000		/* matches shown without streaming */
#define CMD_GREP_STEP	(1024 * 1024)	/* bytes a step when stepping here */
#define CMD_GREP_BUDGET	(4 * 1024 * 1024)	/* a step on a sink */

static void	cmd_grep_exec(struct cmd_ctx *, int, char **);

enum { GREP_OPT_ICASE, GREP_OPT_EXTENDED, GREP_OPT_FIXED };
static const struct cmd_option cmd_grep_options[] = {
	[GREP_OPT_ICASE] = { .name = "--ignore-case", .alias = "-i" },
	[GREP_OPT_EXTENDED] = { .name = "--extended-regexp", .alias = "-E" },
	[GREP_OPT_FIXED] = { .name = "--fixed-strings", .alias = "-F" },
	{ .name = NULL }
};

const struct cmd_entry cmd_grep_entry = {
	.name = "grep",
	.options = cmd_grep_options,
	.args = "PATTERN [ID...]",
	.help = "search the output of every run (of this deck and earlier "
	    "ones), or of the jobs and run ids given, newest first",
	.min_args = 1,
	.max_args = -1,
	.flags = CMD_READ_ONLY,
	.exec = cmd_grep_exec,
};

/* The matching lines collected when the command steps the search itself. */
struct cmd_grep_lines {
	char	**lines;
	int	  count;
};

/* Add a run id to a growing list. */
static void
cmd_grep_add(char ***runs, int *count, const char *run)
{
	*runs = xreallocarray(*runs, (size_t)*count + 1, sizeof **runs);
	(*runs)[(*count)++] = xstrdup(run);
}

/* Free a list of run ids. */
static void
cmd_grep_free_runs(char **runs, int count)
{
	int	i;

	for (i = 0; i < count; i++)
		free(runs[i]);
	free(runs);
}

/* Return whether id is one of the count job ids in jobs. */
static int
cmd_grep_has_job(const int *jobs, int count, int id)
{
	int	i;

	for (i = 0; i < count; i++) {
		if (jobs[i] == id)
			return 1;
	}
	return 0;
}

/*
 * Add the runs of this deck's jobs with the given ids (their current
 * and earlier runs) to the list: the runs whose meta names this deck and
 * one of the jobs.  0, or -1 after reporting an error.
 */
static int
cmd_grep_job_runs(struct cmd_ctx *ctx, const struct store *store,
    const int *jobs, int njobs, char ***runs, int *count)
{
	struct store_meta	  meta;
	const char		 *dir = store_dir(store);
	char			**all, *cause = NULL;
	int			  i, nall;

	if (store_list(dir, &all, &nall, &cause) != 0) {
		cmd_error(ctx, "grep: %s", cause);
		free(cause);
		return -1;
	}
	for (i = 0; i < nall; i++) {
		memset(&meta, 0, sizeof meta);
		if (store_meta_read(dir, all[i], &meta, &cause) != 0) {
			free(cause);	/* gone since listed: not ours */
			cause = NULL;
			continue;
		}
		if (strcmp(meta.deck, store_deck(store)) == 0 &&
		    cmd_grep_has_job(jobs, njobs, meta.job))
			cmd_grep_add(runs, count, all[i]);
		store_meta_clear(&meta);
	}
	store_list_free(all, nall);
	return 0;
}

/*
 * Turn the operands into the runs to search: a job id or name of this
 * deck stands for its runs, anything else must be a run id in the store.
 * 0, or -1 after reporting an error.
 */
static int
cmd_grep_runs(struct cmd_ctx *ctx, const struct store *store, int argc,
    char **argv, char ***runs, int *count)
{
	struct store_meta	 meta;
	struct job		*job;
	char			*cause = NULL;
	int			*jobs, njobs = 0, i;

	*runs = NULL;
	*count = 0;
	jobs = xreallocarray(NULL, (size_t)argc, sizeof *jobs);
	for (i = 0; i < argc; i++) {
		if ((job = jobtable_find(ctx->jt, argv[i], &cause)) != NULL) {
			jobs[njobs++] = job_id(job);
			continue;
		}
		free(cause);
		cause = NULL;
		memset(&meta, 0, sizeof meta);
		if (store_meta_read(store_dir(store), argv[i], &meta,
		    &cause) != 0) {
			free(cause);
			cmd_error(ctx, "grep: no such job or run: %s", argv[i]);
			goto fail;
		}
		store_meta_clear(&meta);
		cmd_grep_add(runs, count, argv[i]);
	}
	if (njobs > 0 &&
	    cmd_grep_job_runs(ctx, store, jobs, njobs, runs, count) != 0)
		goto fail;
	if (*count == 0) {
		cmd_error(ctx, "grep: no stored output for %s%s", argv[0],
		    argc > 1 ? " and the others given" : "");
		goto fail;
	}
	free(jobs);
	return 0;

fail:
	free(jobs);
	cmd_grep_free_runs(*runs, *count);
	*runs = NULL;
	*count = 0;
	return -1;
}

/* Keep one matching line as "RUN [JOB] NAME:LINE: text"; stop at the cap. */
static int
cmd_grep_collect(const struct grep_match *m, void *arg)
{
	struct cmd_grep_lines	*c = arg;
	const struct store_meta	*meta = m->meta;
	const char		*name;

	if (meta->name != NULL)
		name = meta->name;
	else if (meta->command != NULL)
		name = meta->command;
	else if (meta->argv != NULL && meta->argv[0] != NULL)
		name = meta->argv[0];
	else
		name = "-";
	c->lines = xreallocarray(c->lines, (size_t)c->count + 1,
	    sizeof *c->lines);
	c->lines[c->count++] = xprintf("%s [%d] %s:%lld: %.*s", m->run,
	    meta->job, name, (long long)m->line + 1, (int)m->len, m->text);
	return c->count >= CMD_GREP_MAX;
}

/*
 * Step a search to its end (or to CMD_GREP_MAX matches) here and show
 * what it found.
 */
static void
cmd_grep_show(struct cmd_ctx *ctx, struct grep *g)
{
	static const struct grep_cbs	cbs = { .match = cmd_grep_collect };
	struct cmd_grep_lines		c = { NULL, 0 };
	const char			*why;
	char				*title;
	int				 i, damaged;

	while (c.count < CMD_GREP_MAX && grep_step(g, CMD_GREP_STEP, &cbs, &c))
		;	/* nothing: each step reports through cbs */
	if ((damaged = grep_damaged(g, &why)) > 0)
		cmd_message(ctx, "grep: %d run%s damaged, searched up to the "
		    "damage: %s", damaged, damaged == 1 ? "" : "s", why);
	if (c.count == 0) {
		cmd_message(ctx, "grep: no match for %s (%llu bytes searched)",
		    grep_pattern(g), (unsigned long long)grep_bytes(g));
		return;
	}
	if (!grep_done(g))
		title = xprintf("grep %s: stopped after %d matches",
		    grep_pattern(g), c.count);
	else
		title = xprintf("grep %s: %d match%s", grep_pattern(g),
		    c.count, c.count == 1 ? "" : "es");
	cmd_show(ctx, title, c.lines, c.count, 0);
	free(title);
	for (i = 0; i < c.count; i++)
		free(c.lines[i]);
	free(c.lines);
}

/* A search on a sink: its next step, or held until the sink drains. */
struct cmd_grep_task {
	struct cmd_sink	*sink;
	struct loop	*loop;
	struct grep	*grep;
	int		 json;
	uint64_t	 timer;		/* the next step */
	int		 held;		/* stalled: step when writable */
};

static void	cmd_grep_task_step(void *);
static void	cmd_grep_task_writable(void *);
static void	cmd_grep_task_free(void *);

static const struct cmd_task_ops cmd_grep_task_ops = {
	.start = cmd_grep_task_step,
	.writable = cmd_grep_task_writable,
	.free = cmd_grep_task_free,
	.flags = CMD_TASK_CODE,
};

/* Free a search on a sink: its timer and the search. */
static void
cmd_grep_task_free(void *arg)
{
	struct cmd_grep_task	*t = arg;

	if (t->timer != 0)
		loop_cancel_timer(t->loop, t->timer);
	grep_free(t->grep);
	free(t);
}

/*
 * A match of a search on a sink: "RUN [ID NAME]:LINE: text" (escaped), or
 * a JSON object.
 */
static int
cmd_grep_task_match(const struct grep_match *m, void *arg)
{
	struct cmd_grep_task	*t = arg;
	struct json_buf		 jb;
	char			*line, *text;

	if (t->json) {
		json_init(&jb);
		json_object_begin(&jb);
		json_key(&jb, "run");
		json_put_string(&jb, m->run);
		json_key(&jb, "id");
		json_put_int(&jb, m->meta != NULL ? m->meta->job : 0);
		json_key(&jb, "name");
		json_put_string(&jb, m->meta != NULL ? m->meta->name : NULL);
		json_key(&jb, "line");
		json_put_int(&jb, m->line + 1);
		json_key(&jb, "time_ms");
		json_put_int(&jb, m->time);
		json_key(&jb, "text");
		json_put_stringn(&jb, m->text, m->len);
		json_key(&jb, "match");
		json_array_begin(&jb);
		json_put_int(&jb, (int64_t)m->so);
		json_put_int(&jb, (int64_t)m->eo);
		json_array_end(&jb);
		json_object_end(&jb);
		line = json_finish(&jb, NULL);
		json_clear(&jb);
		cmd_sink_json(t->sink, line, strlen(line));
	} else {
		text = textesc_needed(m->text, m->len) ?
		    textesc_visible(m->text, m->len) : xstrndup(m->text, m->len);
		line = xprintf("%s [%d%s%s]:%lld: %s", m->run, m->meta != NULL ?
		    m->meta->job : 0, m->meta != NULL && m->meta->name != NULL ?
		    " " : "", m->meta != NULL && m->meta->name != NULL ?
		    m->meta->name : "", (long long)m->line + 1, text);
		free(text);
		cmd_sink_text(t->sink, line, strlen(line));
	}
	free(line);
	return 0;
}

/*
 * A step of a search on a sink, while the sink is not stalled (else when
 * it drains); at the end done: 0 when something matched, 1 when nothing
 * did.  Damaged runs are searched up to their damage, as grep_step()
 * does, and told before the end: "error" "grep: " the first one's
 * damage, "damaged" how many.
 */
static void
cmd_grep_task_step(void *arg)
{
	static const struct grep_cbs	 cbs = {
		.match = cmd_grep_task_match,
	};
	struct cmd_grep_task		*t = arg;
	const char			*why;
	char				 count[16], *text, *err;
	int				 rc, damaged;

	t->timer = 0;
	if (cmd_sink_stalled(t->sink)) {
		t->held = 1;
		return;
	}
	rc = grep_step(t->grep, CMD_GREP_BUDGET, &cbs, t);
	if (rc <= 0) {
		if ((damaged = grep_damaged(t->grep, &why)) > 0) {
			text = textesc_visible(why, strlen(why));
			err = xprintf("grep: %s", text);
			cmd_sink_control(t->sink, "error", err);
			free(err);
			free(text);
			snprintf(count, sizeof count, "%d", damaged);
			cmd_sink_control(t->sink, "damaged", count);
		}
		cmd_sink_done(t->sink, grep_matches(t->grep) > 0 ? 0 : 1);
		return;
	}
	if (cmd_sink_stalled(t->sink))
		t->held = 1;
	else
		t->timer = loop_add_timer(t->loop, 0, cmd_grep_task_step, t);
}

/* The sink drained: a held search steps on. */
static void
cmd_grep_task_writable(void *arg)
{
	struct cmd_grep_task	*t = arg;

	if (!t->held || t->timer != 0)
		return;
	t->held = 0;
	t->timer = loop_add_timer(t->loop, 0, cmd_grep_task_step, t);
}

/* Hand a search to the face's sink as a task (it owns the search now). */
static void
cmd_grep_begin(struct cmd_ctx *ctx, struct grep *g)
{
	struct cmd_grep_task	*t;
	char			*cause = NULL;

	t = xcalloc(1, sizeof *t);
	t->sink = ctx->sink;
	t->loop = cmd_sink_loop(ctx->sink);
	t->grep = g;
	t->json = ctx->json;
	if (cmd_sink_begin(ctx->sink, &cmd_grep_task_ops, t, &cause) != 0) {
		cmd_error(ctx, "grep: %s", cause);
		free(cause);
	}
}

/* !grep [-i] [-E] [-F] PATTERN [ID...]: search the output store. */
static void
cmd_grep_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct store	 *store = jobtable_store(ctx->jt);
	struct grep	 *g;
	char		**runs = NULL, *cause = NULL;
	int		  nruns = 0, flags = 0, nargs = argc - ctx->first;

	if (ctx->opts[GREP_OPT_EXTENDED].count > 0 &&
	    ctx->opts[GREP_OPT_FIXED].count > 0) {
		cmd_usage_error(ctx, "grep: -E and -F cannot be used together");
		return;
	}
	if (ctx->opts[GREP_OPT_ICASE].count > 0)
		flags |= GREP_ICASE;
	if (ctx->opts[GREP_OPT_EXTENDED].count > 0)
		flags |= GREP_EXTENDED;
	if (ctx->opts[GREP_OPT_FIXED].count > 0)
		flags |= GREP_FIXED;
	if (store == NULL) {
		cmd_error(ctx, "grep: no output store (logging is off)");
		return;
	}
	if (nargs > 1 && cmd_grep_runs(ctx, store, nargs - 1,
	    argv + ctx->first + 1, &runs, &nruns) != 0)
		return;
	g = grep_new(store_dir(store), argv[ctx->first], flags, runs, nruns,
	    &cause);
	cmd_grep_free_runs(runs, nruns);
	if (g == NULL) {
		cmd_error(ctx, "grep: %s", cause);
		free(cause);
		return;
	}
	if (ctx->client != NULL && ctx->client->grep != NULL) {
		/* The client owns the search now, failing or not. */
		if (ctx->client->grep(g, ctx->arg, &cause) != 0) {
			cmd_error(ctx, "grep: %s", cause);
			free(cause);
		}
		return;
	}
	if (ctx->sink != NULL) {
		cmd_grep_begin(ctx, g);
		return;
	}
	cmd_grep_show(ctx, g);
	grep_free(g);
}

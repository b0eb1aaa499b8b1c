/*
 * cmd-logs-merge.c: `!logs ID ID...` and `!logs --all`: the logs of
 * several jobs as one, their lines in the order they were written
 * (logmerge.h), each prefixed with its job's label as `jobdeck up` does
 * (lineprefix.h).  At the prompt the client shows them in a view that
 * reads a screen at a time (show_merged); on a face's sink (ctl) they are
 * streamed as a task, a window of each job's run at a time while the sink
 * is not stalled, as `logs` streams one job (cmd-logs.c).
 *
 * Each job's current run is merged, and with --follow (and in a live
 * view) the runs it starts later as they come (cmd_logs_merge_sync()).
 * Plain `logs` stops where each run was when it was asked for; --follow
 * gives complete lines as the jobs print and ends once every job has
 * ended, with the first non-zero exit code among them (in the order
 * given), else 0.  A job that has not run yet joins when it starts.
 *
 * What is written: "LABEL | text" lines (no colour: ctl logs has none);
 * with --json, {"ids":[...],"lines":[...]} whose lines are "output"
 * event objects with the job's "name" when it has one (jobevent.h), and
 * with --follow
 * those events as lines, then each job's "exited" event as it ends.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cmdsink.h"
#include "job.h"
#include "jobevent.h"
#include "jobtable.h"
#include "json.h"
#include "lineprefix.h"
#include "logmerge.h"
#include "store.h"
#include "textesc.h"
#include "waitstatus.h"
#include "xmalloc.h"

#define CMD_MLOGS_LINES	256		/* merged lines per read */

/* A merged log stream on a sink. */
struct cmd_mlogs {
	struct cmd_sink		*sink;
	struct jobtable		*jt;
	int			 json;
	int			 follow;
	struct logmerge		*m;
	int			*ids;		/* the jobs, in the order given */
	char			**names;	/* their names, or NULL */
	char			**labels;
	int			*ended;		/* follow: each one's end told */
	int			 n;
	size_t			 width;		/* the longest label */
	int			 exit;		/* the exit code, or -1 */
	int			 nlines;	/* lines sent (JSON: commas) */
	char			*tail;		/* sent after the last line */

#define CMD_MLOGS_WAITING	0x1	/* at the end: wait for output */
#define CMD_MLOGS_FOLLOWING	0x2	/* until every job has ended */
	int			 flags;
};

/* Return the job of id in jt, or NULL once it has left the table. */
static struct job *
cmd_logs_merge_job(struct jobtable *jt, int id)
{
	struct job	*job;
	int		 i, n = jobtable_count(jt);

	for (i = 0; i < n; i++) {
		job = jobtable_get(jt, i);
		if (job_id(job) == id)
			return job;
	}
	return NULL;
}

/*
 * Add to a merge the runs the jobs ids[0..n) (labels 0..n-1) have started
 * since their last one in it (their current run at first); returns
 * whether one was added.
 */
int
cmd_logs_merge_sync(struct logmerge *m, struct jobtable *jt, const int *ids,
    int n)
{
	struct job	*job;
	const char	*run, *last;
	char		*cause = NULL;
	int		 i, s, k, added = 0, from;

	for (i = 0; i < n; i++) {
		if ((job = cmd_logs_merge_job(jt, ids[i])) == NULL ||
		    (run = job_run_id(job)) == NULL ||
		    job_store_dir(job) == NULL)
			continue;
		last = NULL;
		for (s = logmerge_streams(m) - 1; s >= 0 && last == NULL; s--)
			if (logmerge_label(m, s) == i)
				last = logmerge_run(m, s);
		if (last != NULL && strcmp(last, run) == 0)
			continue;
		/* The runs after the last merged (all kept: its first). */
		from = job_run_count(job) - 1;
		for (k = job_run_count(job) - 1; k >= 0 && last != NULL; k--) {
			if (strcmp(job_run_nth(job, k, NULL), last) == 0) {
				from = k + 1;
				break;
			}
		}
		for (k = from; k < job_run_count(job); k++) {
			if (logmerge_add(m, job_run_nth(job, k, NULL), i,
			    &cause) == 0)
				added = 1;
			free(cause);
			cause = NULL;
		}
	}
	return added;
}

/*
 * Find the jobs of a merged log: every job (all), else each ID of
 * argv[first..argc) once (duplicates ignored); their ids in *ids, *n of
 * them.  0, or -1 once the error is told (no such job, none, not logged).
 */
static int
cmd_logs_merge_jobs(struct cmd_ctx *ctx, int all, int argc, char **argv,
    int **ids, int *n)
{
	struct job	*job;
	int		 i, k, count;

	*n = 0;
	count = all ? jobtable_count(ctx->jt) : argc - ctx->first;
	*ids = xcalloc((size_t)count + 1, sizeof **ids);
	for (i = 0; i < count; i++) {
		if (all)
			job = jobtable_get(ctx->jt, i);
		else if ((job = cmd_find_job(ctx, argv[ctx->first + i])) ==
		    NULL)
			goto fail;
		for (k = 0; k < *n && (*ids)[k] != job_id(job); k++)
			;
		if (k < *n)
			continue;
		if (job_store_dir(job) == NULL) {
			cmd_error(ctx, "logs: job %d is not logged (%s)",
			    job_id(job), job_log_error(job) != NULL ?
			    job_log_error(job) : "logging is off");
			goto fail;
		}
		(*ids)[(*n)++] = job_id(job);
	}
	if (*n == 0) {
		cmd_error(ctx, "logs: no jobs");
		goto fail;
	}
	return 0;
fail:
	free(*ids);
	*ids = NULL;
	return -1;
}

/* Free a merged stream. */
static void
cmd_mlogs_free(void *arg)
{
	struct cmd_mlogs	*l = arg;
	int			 i;

	logmerge_free(l->m);
	for (i = 0; i < l->n; i++) {
		free(l->names[i]);
		free(l->labels[i]);
	}
	free(l->names);
	free(l->labels);
	free(l->ids);
	free(l->ended);
	free(l->tail);
	free(l);
}

/* Write merged lines and free them: prefixed text, or JSON objects. */
static void
cmd_mlogs_lines(struct cmd_mlogs *l, struct store_line *sl, int *st, int n)
{
	struct xbuf	 b = { NULL, 0, 0 };
	char		*text;
	int		 i, k;

	for (i = 0; i < n; i++) {
		k = logmerge_label(l->m, st[i]);
		if (l->json) {
			if (!l->follow && l->nlines + i > 0)
				xbuf_add(&b, ",", 1);
			jobevent_output_named(&b, l->ids[k], l->names[k],
			    &sl[i], 1);
			if (!l->follow)
				b.s[--b.len] = '\0';	/* an element */
			continue;
		}
		lineprefix_add(&b, NULL, l->labels[k], l->width,
		    LINEPREFIX_NONE);
		/* rawtext took the C0 controls; C1 ones are escaped. */
		if (textesc_needed(sl[i].text, sl[i].len)) {
			text = textesc_visible(sl[i].text, sl[i].len);
			xbuf_add(&b, text, strlen(text));
			free(text);
		} else
			xbuf_add(&b, sl[i].text, sl[i].len);
		cmd_sink_text(l->sink, b.s, b.len);
		xbuf_clear(&b);
	}
	if (b.len > 0)
		cmd_sink_raw(l->sink, b.s, b.len);
	xbuf_clear(&b);
	l->nlines += n;
	store_lines_free(sl, n);
	free(st);
}

/*
 * End the stream: the tail, then done with the exit code; a run the
 * store could not read to its end says why (control "error", an exit
 * code of 1 at least).  The stream is freed.
 */
static void
cmd_mlogs_end(struct cmd_mlogs *l)
{
	const char	*why = NULL;
	char		*text, *line;
	int		 s, code = l->exit;

	for (s = 0; s < logmerge_streams(l->m) && why == NULL; s++)
		why = logmerge_damage(l->m, s);
	if (l->tail != NULL)
		cmd_sink_raw(l->sink, l->tail, strlen(l->tail));
	if (why != NULL) {
		text = textesc_visible(why, strlen(why));
		line = xprintf("logs: %s", text);
		cmd_sink_control(l->sink, "error", line);
		free(line);
		free(text);
		if (code <= 0)
			code = 1;
	}
	cmd_sink_done(l->sink, code);
}

/* Return whether the stream has lines to be pulled now. */
static int
cmd_mlogs_more(void *arg)
{
	struct cmd_mlogs	*l = arg;

	return !(l->flags & CMD_MLOGS_WAITING);
}

/*
 * Write merged lines while the sink is not stalled and *budget lasts; at
 * the end wait for the jobs' output (followed) or end the stream.
 */
static void
cmd_mlogs_fill(size_t *budget, void *arg)
{
	struct cmd_mlogs	*l = arg;
	struct store_line	*sl;
	size_t			 len;
	int			*st, n, i, refreshed = 0;

	while (cmd_mlogs_more(l) && *budget > 0 &&
	    !cmd_sink_stalled(l->sink)) {
		if (logmerge_next(l->m, CMD_MLOGS_LINES, STORE_TEXT, &sl, &st,
		    &n) != 0 || n == 0) {
			if (!refreshed && (l->flags & CMD_MLOGS_FOLLOWING)) {
				cmd_logs_merge_sync(l->m, l->jt, l->ids, l->n);
				logmerge_refresh(l->m);
				refreshed = 1;
				continue;
			}
			if (l->flags & CMD_MLOGS_FOLLOWING)
				l->flags |= CMD_MLOGS_WAITING;
			else
				cmd_mlogs_end(l);
			return;
		}
		for (i = 0, len = 0; i < n; i++)
			len += sl[i].len + l->width + 4;
		*budget -= len < *budget ? len : *budget;
		cmd_mlogs_lines(l, sl, st, n);
	}
}

/* Return the index of a job among the stream's, or -1. */
static int
cmd_mlogs_index(const struct cmd_mlogs *l, const struct job *job)
{
	int	i;

	for (i = 0; i < l->n; i++)
		if (l->ids[i] == job_id(job))
			return i;
	return -1;
}

/*
 * Note that job k of the stream ended with code (-1: it left before it
 * ended), telling it (JSON: its "exited" event, when job is not NULL);
 * once every job has, the stream reads to the runs' ends and stops there
 * with the first non-zero code among them.
 */
static void
cmd_mlogs_ended(struct cmd_mlogs *l, int k, struct job *job, int code)
{
	char	*ev, *t;
	size_t	 len;
	int	 i, all = 1;

	if (l->ended[k])
		return;
	l->ended[k] = (code >= 0 ? code : WAITSTATUS_NOT_RUN) + 1;
	if (l->json && job != NULL) {
		ev = jobevent_exited(job, &len);
		if (l->tail == NULL)
			l->tail = ev;
		else {
			t = xprintf("%s%s", l->tail, ev);
			free(l->tail);
			free(ev);
			l->tail = t;
		}
	}
	for (i = 0; i < l->n; i++)
		all &= l->ended[i] != 0;
	if (!all)
		return;
	l->exit = 0;
	for (i = 0; i < l->n && l->exit == 0; i++)
		l->exit = l->ended[i] - 1;
	cmd_logs_merge_sync(l->m, l->jt, l->ids, l->n);
	logmerge_refresh(l->m);
	logmerge_limit(l->m, LOGMERGE_ALL);
	l->flags &= ~(CMD_MLOGS_FOLLOWING | CMD_MLOGS_WAITING);
	cmd_sink_ready(l->sink);
}

/* A followed job ended or leaves the table. */
static void
cmd_mlogs_exited(struct job *job, void *arg)
{
	struct cmd_mlogs	*l = arg;
	int			 k;

	if ((l->flags & CMD_MLOGS_FOLLOWING) &&
	    (k = cmd_mlogs_index(l, job)) >= 0)
		cmd_mlogs_ended(l, k, job, job_end_code(job));
}

/* A followed job printed: a stream waiting at the end reads on. */
static void
cmd_mlogs_output(struct job *job, const char *buf, size_t len, void *arg)
{
	struct cmd_mlogs	*l = arg;

	(void)buf;
	(void)len;
	if ((l->flags & CMD_MLOGS_WAITING) && cmd_mlogs_index(l, job) >= 0) {
		l->flags &= ~CMD_MLOGS_WAITING;
		cmd_sink_ready(l->sink);
	}
}

/* Start the stream once the face has opened it. */
static void
cmd_mlogs_start(void *arg)
{
	struct cmd_mlogs	*l = arg;
	struct json_buf		 jb;
	struct job		*job;
	int			 i;

	if (l->json && !l->follow) {
		json_init(&jb);
		json_object_begin(&jb);
		json_key(&jb, "ids");
		json_array_begin(&jb);
		for (i = 0; i < l->n; i++)
			json_put_int(&jb, l->ids[i]);
		json_array_end(&jb);
		json_key(&jb, "lines");
		cmd_sink_raw(l->sink, jb.data, jb.len);
		cmd_sink_raw(l->sink, "[", 1);
		json_clear(&jb);
		l->tail = xstrdup("]}\n");
	}
	if (!l->follow) {
		logmerge_limit(l->m, LOGMERGE_ALL);
		cmd_sink_ready(l->sink);
		return;
	}
	l->flags |= CMD_MLOGS_FOLLOWING;
	logmerge_limit(l->m, LOGMERGE_COMPLETE);
	for (i = 0; i < l->n && (l->flags & CMD_MLOGS_FOLLOWING); i++) {
		job = cmd_logs_merge_job(l->jt, l->ids[i]);
		if (job == NULL)
			cmd_mlogs_ended(l, i, NULL, -1);
		else if (job_end_code(job) >= 0)
			cmd_mlogs_ended(l, i, job, job_end_code(job));
	}
	cmd_sink_ready(l->sink);
}

static const struct cmd_task_ops cmd_mlogs_ops = {
	.start = cmd_mlogs_start,
	.more = cmd_mlogs_more,
	.fill = cmd_mlogs_fill,
	.free = cmd_mlogs_free,
};

static const struct cmd_task_ops cmd_mlogs_follow_ops = {
	.start = cmd_mlogs_start,
	.more = cmd_mlogs_more,
	.fill = cmd_mlogs_fill,
	.output = cmd_mlogs_output,
	.exited = cmd_mlogs_exited,
	.removed = cmd_mlogs_exited,
	.free = cmd_mlogs_free,
	.flags = CMD_TASK_CODE | CMD_TASK_QUIET,
};

/*
 * Begin a merged stream of jobs ids[0..n) (taken) on the command's sink;
 * 0, or -1 with *cause.
 */
static int
cmd_logs_merge_stream(struct cmd_ctx *ctx, int *ids, int n, int follow,
    char **cause)
{
	struct cmd_mlogs	*l;
	struct job		*job;
	size_t			 len;
	int			 i;

	l = xcalloc(1, sizeof *l);
	l->sink = ctx->sink;
	l->jt = ctx->jt;
	l->json = ctx->json;
	l->follow = follow;
	l->exit = -1;
	l->ids = ids;
	l->n = n;
	l->names = xcalloc((size_t)n, sizeof *l->names);
	l->labels = xcalloc((size_t)n, sizeof *l->labels);
	l->ended = xcalloc((size_t)n, sizeof *l->ended);
	l->m = logmerge_new(store_dir(jobtable_store(ctx->jt)));
	for (i = 0; i < n; i++) {
		job = cmd_logs_merge_job(ctx->jt, ids[i]);
		if (job_name(job) != NULL)
			l->names[i] = xstrdup(job_name(job));
		l->labels[i] = lineprefix_label(job_name(job), ids[i]);
		if ((len = strlen(l->labels[i])) > l->width)
			l->width = len;
	}
	cmd_logs_merge_sync(l->m, ctx->jt, ids, n);
	return cmd_sink_begin(ctx->sink, follow ? &cmd_mlogs_follow_ops :
	    &cmd_mlogs_ops, l, cause);
}

/*
 * !logs ID ID... or !logs --all (all): the jobs' logs merged, in a view
 * of the client's (show_merged) or streamed on the sink (follow: until
 * every job has ended).  Errors: a job that does not exist or is not
 * logged, none at all, --follow without a sink, a face that can do
 * neither.
 */
void
cmd_logs_merged(struct cmd_ctx *ctx, int all, int follow, int argc,
    char **argv)
{
	struct job	*job;
	char		*title, *t, *label, *cause = NULL;
	int		*ids, n, i;

	if (cmd_logs_merge_jobs(ctx, all, argc, argv, &ids, &n) != 0)
		return;
	if (jobtable_store(ctx->jt) == NULL) {
		cmd_error(ctx, "logs: no output store (logging is off)");
		free(ids);
		return;
	}
	if (ctx->sink != NULL) {
		if (cmd_logs_merge_stream(ctx, ids, n, follow, &cause) != 0) {
			cmd_error(ctx, "logs: %s", cause);
			free(cause);
		}
		return;
	}
	if (follow || ctx->json || ctx->client == NULL ||
	    ctx->client->show_merged == NULL) {
		cmd_error(ctx, "logs: several jobs' logs are %s (jobdeck ctl "
		    "logs%s ID ID...)", follow ? "followed only through the "
		    "control socket" : "shown in a view, or streamed",
		    follow ? " --follow" : "");
		free(ids);
		return;
	}
	title = xstrdup("Logs");
	for (i = 0; i < n; i++) {
		job = cmd_logs_merge_job(ctx->jt, ids[i]);
		label = lineprefix_label(job_name(job), ids[i]);
		t = xprintf("%s%s %s", title, i > 0 ? "," : "", label);
		free(label);
		free(title);
		title = t;
	}
	if (ctx->client->show_merged(title, ids, n, ctx->arg, &cause) != 0) {
		cmd_error(ctx, "logs: %s", cause);
		free(cause);
	}
	free(title);
	free(ids);
}

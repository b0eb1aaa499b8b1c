/*
 * cmd-logs.c: a job's output, or a run of the store, streamed as a task on
 * a face's sink (cmdsink.h): `logs ID`, `logs --follow ID` and `logs RUN`
 * on the control socket (cmd-job.c and cmd-history.c begin them).
 *
 * The job's run is read from its start, CMD_LOGS_LINES lines at a time
 * and only while the sink is not stalled, as far as the face's budget
 * for a fill goes; so a peer holds tens of KiB and a turn of the loop
 * does a bounded amount of work for it, whatever the size of the log.
 * Plain `logs` stops at the size the log had when it was asked for;
 * `logs --follow` waits at the end of the log for the job's next output
 * and stops at the size the log has when the job ends.  A job that is not
 * logged (no log directory, or logging failed) is streamed from its
 * emulator's text, which its scrollback bounds; followed, those lines
 * are pushed as the job prints (the face bounds what may wait).  `logs
 * RUN` streams a run of the store (of any deck) the same way.  A run
 * damaged in the store is streamed up to its damage, and the stream ends
 * saying why (control "error" "logs: ...") with an exit code of 1 at
 * least; so does one whose run could not be read at all, after the
 * emulator's lines.
 *
 * What is written: text lines; with --json, {"id":N,"dropped":N,
 * "lines":[...]} (logs RUN: {"run":RUN,"lines":[...]}) written as the
 * lines come, or for --follow "output" events and the "exited" one
 * (jobevent.h).  Only --follow and a damaged run end with an exit code.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cmdsink.h"
#include "job.h"
#include "jobevent.h"
#include "json.h"
#include "rawtext.h"
#include "store.h"
#include "textesc.h"
#include "waitstatus.h"
#include "xmalloc.h"

#define CMD_LOGS_LINES	256		/* lines of a run per read */
#define CMD_LOGS_OPEN	INT64_MAX	/* follow: no end known yet */

/* A log stream: where it is in the run, and how it ends. */
struct cmd_logs {
	struct cmd_sink		*sink;
	int			 json;
	int			 follow;	/* logs --follow */
	struct job		*job;		/* followed, until it ends */
	int			 job_id;
	struct job_reader	*reader;	/* its run in the store, or NULL */
	char			*unread;	/* why it could not be opened */
	char			*run;		/* logs RUN: the run's id */
	int			 exit;		/* the exit code, or -1 */
	int64_t			 next;		/* the next line to send */
	int64_t			 end;		/* where to stop, or OPEN */
	struct store_mark	 mark;		/* not logged: lines sent */
	int			 nlines;	/* lines sent (JSON: commas) */
	char			*tail;		/* sent after the last line */

#define CMD_LOGS_LOG	0x1	/* reading the run */
#define CMD_LOGS_WAITING 0x2	/* at the end of the run: wait for output */
#define CMD_LOGS_VT	0x4	/* the job is not logged: its emulator */
#define CMD_LOGS_FOLLOWING 0x8	/* following the job until it ends */
	int			 flags;
};

static void	cmd_logs_start(void *);
static int	cmd_logs_more(void *);
static void	cmd_logs_fill(size_t *, void *);
static void	cmd_logs_output(struct job *, const char *, size_t, void *);
static void	cmd_logs_exited(struct job *, void *);
static void	cmd_logs_free(void *);
static void	cmd_logs_end(struct cmd_logs *);

static const struct cmd_task_ops cmd_logs_ops = {
	.start = cmd_logs_start,
	.more = cmd_logs_more,
	.fill = cmd_logs_fill,
	.free = cmd_logs_free,
};

static const struct cmd_task_ops cmd_logs_follow_ops = {
	.start = cmd_logs_start,
	.more = cmd_logs_more,
	.fill = cmd_logs_fill,
	.output = cmd_logs_output,
	.exited = cmd_logs_exited,
	.removed = cmd_logs_exited,
	.free = cmd_logs_free,
	.flags = CMD_TASK_CODE | CMD_TASK_QUIET,
};

/* Free a log stream: its reader and strings. */
static void
cmd_logs_free(void *arg)
{
	struct cmd_logs	*l = arg;

	job_reader_close(l->reader);
	free(l->unread);
	free(l->run);
	free(l->tail);
	free(l);
}

/*
 * Append lines of a job's text to b as the elements of a JSON array, after
 * nsent sent before: one writer for them all, its array's text without
 * the brackets.
 */
static void
cmd_logs_json_elements(struct xbuf *b, int nsent, char **lines, int count)
{
	struct json_buf	jb;
	int		i;

	if (count == 0)
		return;
	json_init(&jb);
	json_array_begin(&jb);
	for (i = 0; i < count; i++)
		json_put_string(&jb, lines[i]);
	if (nsent > 0)
		xbuf_add(b, ",", 1);
	xbuf_add(b, jb.data + 1, jb.len - 1);
	json_clear(&jb);
}

/* Write what b holds as it is, and clear it. */
static void
cmd_logs_raw(struct cmd_logs *l, struct xbuf *b)
{
	if (b->len > 0)
		cmd_sink_raw(l->sink, b->s, b->len);
	xbuf_clear(b);
}

/*
 * Write lines of a job's text and free them: text lines, "output" events
 * (follow --json) or elements of the "lines" array.
 */
static void
cmd_logs_lines(struct cmd_logs *l, char **lines, int count)
{
	struct xbuf	 b = { NULL, 0, 0 };
	char		*text;
	size_t		 len;
	int		 i;

	if (!l->json) {
		for (i = 0; i < count; i++) {
			/* rawtext took the C0 controls; C1 ones are escaped. */
			len = strlen(lines[i]);
			if (!textesc_needed(lines[i], len)) {
				cmd_sink_text(l->sink, lines[i], len);
				continue;
			}
			text = textesc_visible(lines[i], len);
			cmd_sink_text(l->sink, text, strlen(text));
			free(text);
		}
	} else if (l->follow)
		jobevent_output_lines(&b, l->job_id, lines, count);
	else
		cmd_logs_json_elements(&b, l->nlines, lines, count);
	cmd_logs_raw(l, &b);
	l->nlines += count;
	rawtext_free_lines(lines, count);
}

/*
 * Write lines read from the store and free them: text lines, "output"
 * events (follow --json) or elements of the "lines" array.
 */
static void
cmd_logs_store_lines(struct cmd_logs *l, struct store_line *sl, int n)
{
	struct xbuf	  b = { NULL, 0, 0 };
	char		**lines;

	if (l->json && l->follow) {
		jobevent_output_store(&b, l->job_id, sl, n);
		cmd_logs_raw(l, &b);
		l->nlines += n;
		store_lines_free(sl, n);
		return;
	}
	lines = store_lines_take(sl, n);
	cmd_logs_lines(l, lines, n);
}

/*
 * Keep a reader of a streamed job's output when it reads the job's run in
 * the store; a run that cannot be read keeps why, for the stream's end.
 */
static void
cmd_logs_open(struct cmd_logs *l, struct job *job)
{
	struct job_reader	*r;

	if (l->reader != NULL)
		return;
	r = job_reader_open(job, 0, &l->unread);
	if (job_reader_source(r) == JOB_SOURCE_STORE)
		l->reader = r;
	else
		job_reader_close(r);
}

/* Return the lines of a streamed run now, a partial last one too. */
static int64_t
cmd_logs_count(struct cmd_logs *l)
{
	if (l->reader == NULL)
		return 0;
	job_reader_refresh(l->reader);
	return job_reader_count(l->reader);
}

/* Return whether the stream has lines of the run to be pulled now. */
static int
cmd_logs_more(void *arg)
{
	struct cmd_logs	*l = arg;

	return (l->flags & (CMD_LOGS_LOG | CMD_LOGS_WAITING)) == CMD_LOGS_LOG;
}

/*
 * Read more of a streamed run, CMD_LOGS_LINES lines at a time, while the
 * sink is not stalled and *budget lasts; at the end of what is written
 * wait for more (follow: complete lines only) or end the stream.  At
 * damage in the store the stream ends there, followed or not
 * (cmd_logs_end() says why).
 */
static void
cmd_logs_fill(size_t *budget, void *arg)
{
	struct cmd_logs		*l = arg;
	struct store_line	*sl;
	int64_t			 avail, to;
	size_t			 len;
	int			 n, i, refreshed = 0;

	while (cmd_logs_more(l) && *budget > 0 &&
	    !cmd_sink_stalled(l->sink)) {
		if (l->next >= l->end) {
			cmd_logs_end(l);
			return;
		}
		if (l->reader == NULL) {
			/* Followed, and nothing stored yet. */
			l->flags |= CMD_LOGS_WAITING;
			return;
		}
		avail = l->end == CMD_LOGS_OPEN ?
		    job_reader_complete(l->reader) :
		    job_reader_count(l->reader);
		if (avail > l->end)
			avail = l->end;
		if (l->next < job_reader_first(l->reader))
			l->next = job_reader_first(l->reader);
		if (l->next >= avail) {
			if (!refreshed) {
				job_reader_refresh(l->reader);
				refreshed = 1;
				continue;
			}
			if (l->end == CMD_LOGS_OPEN &&
			    job_reader_damage(l->reader) == NULL)
				l->flags |= CMD_LOGS_WAITING;
			else
				cmd_logs_end(l);
			return;
		}
		to = avail - l->next > CMD_LOGS_LINES ?
		    l->next + CMD_LOGS_LINES : avail;
		if (job_reader_get(l->reader, l->next, to, STORE_TEXT, &sl,
		    &n) != 0 || n == 0) {
			/* Damaged (cmd_logs_end() says so), or removed. */
			cmd_logs_end(l);
			return;
		}
		for (i = 0, len = 0; i < n; i++)
			len += sl[i].len + 1;
		l->next = sl[n - 1].no + 1;
		*budget -= len < *budget ? len : *budget;
		cmd_logs_store_lines(l, sl, n);
	}
}

/*
 * End the stream once its log is read: the tail (JSON's "]}", or
 * follow's "exited" event), then done with the exit code (follow's; -1:
 * none).  A run the store could not read to its end (damaged, or not at
 * all: the emulator's lines were sent) says why: JSON's "error", control
 * "error" "logs: why", and an exit code of 1 at least.  A follow that
 * ends so before its job does is done with the job.  The stream is freed.
 */
static void
cmd_logs_end(struct cmd_logs *l)
{
	struct json_buf	 jb;
	const char	*why = NULL;
	char		*text, *line;
	int		 code = l->exit;

	if (l->reader != NULL)
		why = job_reader_damage(l->reader);
	if (why == NULL)
		why = l->unread;
	if (why != NULL && l->json && !l->follow && l->tail != NULL) {
		/* {"id":N,"lines":[...],"error":"why"} */
		json_init(&jb);
		json_put_string(&jb, why);
		free(l->tail);
		l->tail = xprintf("],\"error\":%.*s}\n", (int)jb.len, jb.data);
		json_clear(&jb);
	}
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
	if ((l->flags & CMD_LOGS_FOLLOWING) && code < 0)
		code = 1;	/* cut by damage while its job runs */
	cmd_sink_done(l->sink, code);
}

/*
 * The exit code that ends logs --follow: the code of the job's end
 * (job_end_code()), or 125 for a job that left before it ended.
 */
static int
cmd_logs_follow_code(const struct job *job)
{
	int	code = job_end_code(job);

	return code >= 0 ? code : WAITSTATUS_NOT_RUN;
}

/*
 * A followed job has ended (or is going): its end becomes the stream's
 * tail ("exited" with --json, then the exit code), and the stream goes on
 * to the log's size now, or takes the emulator's last lines and ends.
 */
static void
cmd_logs_follow_end(struct cmd_logs *l)
{
	struct job	 *job = l->job;
	char		**lines;
	size_t		  n;
	int		  count, partial;

	if (l->json)
		l->tail = jobevent_exited(job, &n);
	l->exit = cmd_logs_follow_code(job);
	cmd_sink_pushed(l->sink, 0);
	if (l->flags & CMD_LOGS_VT) {
		lines = job_text_since(job, &l->mark, &count, &partial);
		cmd_logs_lines(l, lines, count);
	} else {
		cmd_logs_open(l, job);
		l->end = cmd_logs_count(l);
	}
	l->flags &= ~(CMD_LOGS_FOLLOWING | CMD_LOGS_WAITING);
	l->job = NULL;
	if (l->flags & CMD_LOGS_VT) {
		cmd_logs_end(l);
		return;
	}
	cmd_sink_ready(l->sink);
}

/* A job ended or leaves the table: the end of its follow. */
static void
cmd_logs_exited(struct job *job, void *arg)
{
	struct cmd_logs	*l = arg;

	if ((l->flags & CMD_LOGS_FOLLOWING) && l->job == job)
		cmd_logs_follow_end(l);
}

/*
 * A job printed: a follow of it takes its emulator's new complete lines
 * (not logged), or reads on at the end of its log.
 */
static void
cmd_logs_output(struct job *job, const char *buf, size_t len, void *arg)
{
	struct cmd_logs	 *l = arg;
	char		**lines;
	int		  count, partial;

	if (!(l->flags & CMD_LOGS_FOLLOWING) || l->job != job)
		return;
	if (l->flags & CMD_LOGS_VT) {
		/* Without a newline, no line of the emulator's can end. */
		if (memchr(buf, '\n', len) == NULL)
			return;
		lines = job_text_since(job, &l->mark, &count, &partial);
		cmd_logs_lines(l, lines, count);
	} else if (l->flags & CMD_LOGS_WAITING) {
		cmd_logs_open(l, job);
		l->flags &= ~CMD_LOGS_WAITING;
		cmd_sink_ready(l->sink);
	}
}

/*
 * End the stream's JSON object in jb with an empty "lines" array, write
 * all of it but its last "]}" now (the lines go in between) and keep that
 * as the stream's tail; jb is cleared.
 */
static void
cmd_logs_json_open(struct cmd_logs *l, struct json_buf *jb)
{
	char	*doc;
	size_t	 len;

	json_key(jb, "lines");
	json_array_begin(jb);
	json_array_end(jb);
	json_object_end(jb);
	doc = json_finish(jb, NULL);
	json_clear(jb);
	len = strlen(doc);
	cmd_sink_raw(l->sink, doc, len - 2);
	l->tail = xprintf("%s\n", doc + len - 2);
	free(doc);
}

/*
 * Start a stream of a run of the store (logs RUN), to the run's size
 * now: text lines, or {"run":RUN,"lines":[...]}.
 */
static void
cmd_logs_start_run(struct cmd_logs *l)
{
	struct json_buf	 jb;

	l->flags |= CMD_LOGS_LOG;
	if (l->json) {
		json_init(&jb);
		json_object_begin(&jb);
		json_key(&jb, "run");
		json_put_string(&jb, l->run);
		cmd_logs_json_open(l, &jb);
	}
	l->end = cmd_logs_count(l);
	cmd_sink_ready(l->sink);
}

/*
 * Start a stream once the face has opened it: logs (to the log's size
 * now), logs --follow (until the job ends) or logs RUN.
 */
static void
cmd_logs_start(void *arg)
{
	struct cmd_logs	 *l = arg;
	struct job	 *job = l->job;
	struct json_buf	  jb;
	char		**lines;
	int		  count, ended, partial;

	if (l->run != NULL) {
		cmd_logs_start_run(l);
		return;
	}
	l->job = NULL;
	ended = !job_is_running(job) && job_state(job) != JOB_QUEUED;
	/* No log, or a run the store cannot read: the terminal's lines. */
	cmd_logs_open(l, job);
	l->flags |= l->reader != NULL ? CMD_LOGS_LOG : CMD_LOGS_VT;
	if (l->follow) {
		l->job = job;
		l->flags |= CMD_LOGS_FOLLOWING;
		if (ended)
			cmd_logs_follow_end(l);
		else if (l->flags & CMD_LOGS_VT) {
			lines = job_text_since(job, &l->mark, &count,
			    &partial);
			cmd_logs_lines(l, lines, count);
			/* Pushed as the job writes: a limit to what waits. */
			cmd_sink_pushed(l->sink, 1);
			l->flags |= CMD_LOGS_WAITING;
		} else {
			l->end = CMD_LOGS_OPEN;
			cmd_sink_ready(l->sink);
		}
		return;
	}
	if (l->json) {
		json_init(&jb);
		json_object_begin(&jb);
		json_key(&jb, "id");
		json_put_int(&jb, l->job_id);
		/* Lines the store's cap dropped before the first one sent. */
		json_key(&jb, "dropped");
		json_put_int(&jb, l->reader != NULL ?
		    job_reader_first(l->reader) : 0);
		cmd_logs_json_open(l, &jb);
	}
	if (l->flags & CMD_LOGS_VT) {
		lines = job_text_lines(job, &count);
		cmd_logs_lines(l, lines, count);
		cmd_logs_end(l);
		return;
	}
	l->end = cmd_logs_count(l);
	cmd_sink_ready(l->sink);
}

/* Make a log stream for the command's sink. */
static struct cmd_logs *
cmd_logs_new(struct cmd_ctx *ctx)
{
	struct cmd_logs	*l;

	l = xcalloc(1, sizeof *l);
	l->sink = ctx->sink;
	l->json = ctx->json;
	l->exit = -1;
	return l;
}

/*
 * Begin a stream of a job's output on the command's sink (follow: until
 * the job ends); 0, or -1 with *cause (the face refused it).
 */
int
cmd_logs_stream(struct cmd_ctx *ctx, struct job *job, int follow,
    char **cause)
{
	struct cmd_logs	*l;

	l = cmd_logs_new(ctx);
	l->job = job;
	l->job_id = job_id(job);
	l->follow = follow;
	return cmd_sink_begin(ctx->sink, follow ? &cmd_logs_follow_ops :
	    &cmd_logs_ops, l, cause);
}

/*
 * Begin a stream of a run of the store in dir (of any deck) on the
 * command's sink, as far as it goes now; 0, or -1 with *cause when it
 * cannot be read or the face refused it.
 */
int
cmd_logs_stream_run(struct cmd_ctx *ctx, const char *dir, const char *run,
    char **cause)
{
	struct cmd_logs	*l;

	l = cmd_logs_new(ctx);
	if ((l->reader = job_reader_open_run(dir, run, cause)) == NULL) {
		cmd_logs_free(l);
		return -1;
	}
	l->run = xstrdup(run);
	return cmd_sink_begin(ctx->sink, &cmd_logs_ops, l, cause);
}

/*
 * ctl-stream.c: a client that became a stream of a job's output (logs,
 * logs --follow, logs RUN) (ctl-private.h).
 *
 * `logs` is not collected: the command hands the job over (the client's
 * logs and follow callbacks) and the client becomes a log stream.  The
 * job's log file is read from its start, a chunk at a time and only while
 * less than CTL_STREAM_LOW bytes wait to be sent, at most CTL_FILL_MAX
 * bytes per flush, and each chunk goes through one rawtext_take(); so a
 * client holds tens of KiB and one line whatever the size of the log, and
 * a turn of the loop does a bounded amount of work for it.  Plain `logs`
 * stops at the size the log had when it was asked for; `logs --follow`
 * waits at the end of the log for the job's next output and stops at the
 * size the log has when the job ends.  A job that is not logged (no log
 * directory, or logging failed) is streamed from its emulator's text,
 * which its scrollback bounds.  `logs RUN` streams a run of the store
 * (of any deck) the same way.  A run damaged in the store is streamed up
 * to its damage, and the stream ends saying why ("\036error logs: ...")
 * with a non-zero exit line; so does one whose run could not be read at
 * all, after the emulator's lines.
 */

#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "ctl-private.h"
#include "debuglog.h"
#include "job.h"
#include "jobevent.h"
#include "json.h"
#include "loop.h"
#include "outq.h"
#include "textesc.h"
#include "waitstatus.h"
#include "rawtext.h"


static void	ctl_stream_end(struct ctl_client *);

/*
 * Append lines of a job's text to b as the elements of a JSON array, after
 * nsent sent before: one writer for them all, its array's text without
 * the brackets.
 */
static void
ctl_buf_json_elements(struct xbuf *b, int nsent, char **lines, int count)
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

/*
 * Append lines of a job's text to a log stream and free them: text lines,
 * "output" events (follow --json) or elements of the "lines" array.
 */
void
ctl_stream_lines(struct ctl_client *c, char **lines, int count)
{
	struct xbuf	 b = { NULL, 0, 0 };
	char		*text;
	size_t		 len;
	int		 i;

	if (!c->json) {
		for (i = 0; i < count; i++) {
			/* rawtext took the C0 controls; C1 ones are escaped. */
			len = strlen(lines[i]);
			if (!textesc_needed(lines[i], len)) {
				ctl_buf_line(&b, lines[i]);
				continue;
			}
			text = textesc_visible(lines[i], len);
			ctl_buf_line(&b, text);
			free(text);
		}
	} else if (c->stream == CTL_STREAM_FOLLOW)
		jobevent_output_lines(&b, c->job_id, lines, count);
	else
		ctl_buf_json_elements(&b, c->nlines, lines, count);
	ctl_client_queue(c, &b);
	c->nlines += count;
	if (count > 0)
		c->flags |= CTL_SENT;
	rawtext_free_lines(lines, count);
}

/*
 * Append lines read from the store to a log stream and free them: text
 * lines, "output" events (follow --json) or elements of the "lines" array.
 */
static void
ctl_stream_store_lines(struct ctl_client *c, struct store_line *sl, int n)
{
	struct xbuf	  b = { NULL, 0, 0 };
	char		**lines;

	if (c->json && c->stream == CTL_STREAM_FOLLOW) {
		jobevent_output_store(&b, c->job_id, sl, n);
		ctl_client_queue(c, &b);
		c->nlines += n;
		if (n > 0)
			c->flags |= CTL_SENT;
		store_lines_free(sl, n);
		return;
	}
	lines = store_lines_take(sl, n);
	ctl_stream_lines(c, lines, n);
}

/*
 * Keep a reader of a streamed job's output when it reads the job's run in
 * the store; a run that cannot be read keeps why, for the stream's end.
 */
void
ctl_stream_open(struct ctl_client *c, struct job *job)
{
	struct job_reader	*r;

	if (c->reader != NULL)
		return;
	r = job_reader_open(job, 0, &c->unread);
	if (job_reader_source(r) == JOB_SOURCE_STORE)
		c->reader = r;
	else
		job_reader_close(r);
}

/* Return the lines of a streamed run now, a partial last one too. */
static int64_t
ctl_stream_count(struct ctl_client *c)
{
	if (c->reader == NULL)
		return 0;
	job_reader_refresh(c->reader);
	return job_reader_count(c->reader);
}

/*
 * Read more of a streamed run into the client's output, CTL_LOG_LINES
 * lines at a time, while less than CTL_STREAM_LOW bytes wait and *budget
 * lasts; at the end of what is written wait for more (follow: complete
 * lines only) or end the stream.  At damage in the store the stream ends
 * there, followed or not (ctl_stream_end() says why).
 */
void
ctl_stream_fill(struct ctl_client *c, size_t *budget)
{
	struct store_line	*sl;
	int64_t			 avail, to;
	size_t			 len;
	int			 n, i, refreshed = 0;

	while ((c->flags & (CTL_LOG | CTL_WAITING)) == CTL_LOG &&
	    *budget > 0 && ctl_client_pending(c) < CTL_STREAM_LOW) {
		if (c->next >= c->end) {
			ctl_stream_end(c);
			return;
		}
		if (c->reader == NULL) {
			/* Followed, and nothing stored yet. */
			c->flags |= CTL_WAITING;
			return;
		}
		avail = c->end == CTL_END_OPEN ?
		    job_reader_complete(c->reader) :
		    job_reader_count(c->reader);
		if (avail > c->end)
			avail = c->end;
		if (c->next < job_reader_first(c->reader))
			c->next = job_reader_first(c->reader);
		if (c->next >= avail) {
			if (!refreshed) {
				job_reader_refresh(c->reader);
				refreshed = 1;
				continue;
			}
			if (c->end == CTL_END_OPEN &&
			    job_reader_damage(c->reader) == NULL)
				c->flags |= CTL_WAITING;
			else
				ctl_stream_end(c);
			return;
		}
		to = avail - c->next > CTL_LOG_LINES ? c->next + CTL_LOG_LINES :
		    avail;
		if (job_reader_get(c->reader, c->next, to, STORE_TEXT, &sl,
		    &n) != 0 || n == 0) {
			/* Damaged (ctl_stream_end() says so), or removed. */
			ctl_stream_end(c);
			return;
		}
		for (i = 0, len = 0; i < n; i++)
			len += sl[i].len + 1;
		c->next = sl[n - 1].no + 1;
		*budget -= len < *budget ? len : *budget;
		ctl_stream_store_lines(c, sl, n);
	}
}

/*
 * The exit status that ends logs --follow: the code of the job's end
 * (job_end_code()), or 125 for a job that left before it ended.
 */
static int
ctl_follow_status(const struct job *job)
{
	int	code = job_end_code(job);

	return code >= 0 ? code : WAITSTATUS_NOT_RUN;
}

/*
 * End a log stream once its log is read: the tail (JSON's "]}", or
 * follow's "exited" event), then the exit line (follow's), and close once
 * all is sent.  A run the store could not read to its end (damaged, or
 * not at all: the emulator's lines were sent) says why: JSON's "error",
 * "\036error logs: why", and an exit line of 1 at least.  A follow that
 * ends so before its job does is done with the job.
 */
static void
ctl_stream_end(struct ctl_client *c)
{
	struct json_buf	 jb;
	const char	*why = NULL;
	char		*line, *text;
	int		 code = c->exit;

	if (c->reader != NULL)
		why = job_reader_damage(c->reader);
	if (why == NULL)
		why = c->unread;
	if (why != NULL && c->json && c->stream != CTL_STREAM_FOLLOW &&
	    c->tail != NULL) {
		/* {"id":N,"lines":[...],"error":"why"} */
		json_init(&jb);
		json_put_string(&jb, why);
		free(c->tail);
		c->tail = xprintf("],\"error\":%.*s}\n", (int)jb.len, jb.data);
		json_clear(&jb);
	}
	if (c->tail != NULL) {
		outq_add(c->out, c->tail, strlen(c->tail));
		free(c->tail);
		c->tail = NULL;
	}
	if (why != NULL) {
		text = textesc_visible(why, strlen(why));
		line = xprintf("%cerror logs: %s\n", CTL_CONTROL, text);
		outq_add(c->out, line, strlen(line));
		free(line);
		free(text);
		if (code <= 0)
			code = 1;
	}
	if (c->flags & CTL_FOLLOW) {
		/* Cut by damage while its job runs. */
		c->ctl->nfollow--;
		c->flags &= ~CTL_FOLLOW;
		c->job = NULL;
		if (code < 0)
			code = 1;
	}
	if (code >= 0) {
		line = xprintf("%cexit %d\n", CTL_CONTROL, code);
		outq_add(c->out, line, strlen(line));
		free(line);
	}
	job_reader_close(c->reader);
	c->reader = NULL;
	c->flags &= ~(CTL_LOG | CTL_WAITING);
	c->flags |= CTL_CLOSING;
}

/*
 * A followed job has ended (or is going): its end becomes the stream's
 * tail ("exited" with --json, then the exit line), and the stream goes on
 * to the log's size now, or takes the emulator's last lines.
 */
void
ctl_follow_end(struct ctl_client *c)
{
	struct job	 *job = c->job;
	char		**lines, *exited = NULL;
	size_t		  n;
	int		  count, partial;

	if (c->json)
		exited = jobevent_exited(job, &n);
	c->tail = exited;
	c->exit = ctl_follow_status(job);
	outq_set_limit(c->out, 0, OUTQ_LIMIT_FAIL);	/* no longer pushed */
	if (c->flags & CTL_VT) {
		lines = job_text_since(job, &c->mark, &count, &partial);
		ctl_stream_lines(c, lines, count);
	} else {
		ctl_stream_open(c, job);
		c->end = ctl_stream_count(c);
	}
	c->ctl->nfollow--;
	c->flags &= ~(CTL_FOLLOW | CTL_WAITING);
	c->job = NULL;
	if (c->flags & CTL_VT)
		ctl_stream_end(c);
	ctl_client_flush(c);
}

/*
 * End a stream's JSON object in jb with an empty "lines" array, send all
 * of it but its last "]}" now (the lines go in between) and keep that as
 * the stream's tail; jb is cleared.
 */
static void
ctl_stream_json_open(struct ctl_client *c, struct json_buf *jb)
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
	outq_add(c->out, doc, len - 2);
	c->tail = xprintf("%s\n", doc + len - 2);
	free(doc);
}

/*
 * Start a log stream after its "0" status line: logs (to the log's size
 * now) or logs --follow (until the job ends).
 */
void
ctl_stream_start(struct ctl_client *c, struct job *job)
{
	const struct job_spec	 *spec = job_spec(job);
	struct json_buf		  jb;
	char			**lines, line[16];
	int			  count, ended, partial;

	(void)spec;
	c->job_id = job_id(job);
	ended = !job_is_running(job) && job_state(job) != JOB_QUEUED;
	/* No log, or a run the store cannot read: the terminal's lines. */
	ctl_stream_open(c, job);
	if (c->reader != NULL)
		c->flags |= CTL_LOG;
	else
		c->flags |= CTL_VT;
	if (c->stream == CTL_STREAM_FOLLOW) {
		snprintf(line, sizeof line, "%cfollow\n", CTL_CONTROL);
		outq_add(c->out, line, strlen(line));
		c->job = job;
		c->flags |= CTL_FOLLOW;
		c->ctl->nfollow++;
		ctl_keepalive_start(c->ctl);
		if (ended)
			ctl_follow_end(c);
		else if (c->flags & CTL_VT) {
			lines = job_text_since(job, &c->mark, &count,
			    &partial);
			ctl_stream_lines(c, lines, count);
			/* Pushed as the job writes: a limit to what waits. */
			outq_set_limit(c->out, CTL_OUTPUT_MAX, OUTQ_LIMIT_FAIL);
			c->flags |= CTL_WAITING;
			ctl_client_flush(c);
		} else {
			c->end = CTL_END_OPEN;
			ctl_client_flush(c);
		}
		return;
	}
	if (c->json) {
		json_init(&jb);
		json_object_begin(&jb);
		json_key(&jb, "id");
		json_put_int(&jb, c->job_id);
		/* Lines the store's cap dropped before the first one sent. */
		json_key(&jb, "dropped");
		json_put_int(&jb, c->reader != NULL ?
		    job_reader_first(c->reader) : 0);
		ctl_stream_json_open(c, &jb);
	}
	if (c->flags & CTL_VT) {
		lines = job_text_lines(job, &count);
		ctl_stream_lines(c, lines, count);
		ctl_stream_end(c);
	} else
		c->end = ctl_stream_count(c);
	ctl_client_flush(c);
}

/*
 * Start a stream of a run of the store (logs RUN) after its "0" status
 * line, to the run's size now: text lines, or {"run":RUN,"lines":[...]}.
 */
void
ctl_stream_start_run(struct ctl_client *c)
{
	struct json_buf	 jb;

	c->flags |= CTL_LOG;
	if (c->json) {
		json_init(&jb);
		json_object_begin(&jb);
		json_key(&jb, "run");
		json_put_string(&jb, c->run);
		ctl_stream_json_open(c, &jb);
	}
	c->end = ctl_stream_count(c);
	ctl_client_flush(c);
}

/*
 * Turn the client into a stream once the reply starts; 0, or -1 when it
 * streams already or the streams' budget is spent (CTL_STREAMS_MAX, and
 * CTL_RO_STREAMS_MAX of them from NAME.ro).
 */
int
ctl_cmd_stream(struct ctl_client *c, enum ctl_stream stream,
    struct job *job, char **cause)
{
	struct ctl	*ctl = c->ctl;
	int		 read_only = (c->flags & CTL_READ_ONLY) != 0;

	if (c->stream != CTL_STREAM_NONE) {
		*cause = xstrdup("already streaming");
		return -1;
	}
	if (ctl_count(ctl, CTL_STREAMING, CTL_STREAMING) >= CTL_STREAMS_MAX ||
	    (read_only && ctl_count(ctl, CTL_STREAMING | CTL_READ_ONLY,
	    CTL_STREAMING | CTL_READ_ONLY) >= CTL_RO_STREAMS_MAX)) {
		debuglog("ctl: client %d refused a stream: too many", c->fd);
		*cause = xprintf("too many streams at once (%d%s); try again "
		    "when one has ended", read_only ? CTL_RO_STREAMS_MAX :
		    CTL_STREAMS_MAX, read_only ? " on the read-only socket" :
		    "");
		return -1;
	}
	c->stream = stream;
	c->stream_job = job;
	return 0;
}

/* events or logs --follow: the client streams once the reply starts. */
int
ctl_cmd_follow(struct job *job, void *arg, char **cause)
{
	return ctl_cmd_stream(arg, job == NULL ? CTL_STREAM_EVENTS :
	    CTL_STREAM_FOLLOW, job, cause);
}

/* logs: the client streams the job's log as far as it goes now. */
int
ctl_cmd_logs(struct job *job, void *arg, char **cause)
{
	return ctl_cmd_stream(arg, CTL_STREAM_LOGS, job, cause);
}

/*
 * logs RUN: the client streams a run of the store in dir (of any deck) as
 * far as it goes now; -1 with *cause when it cannot be read.
 */
int
ctl_cmd_logs_run(const char *dir, const char *run, void *arg, char **cause)
{
	struct ctl_client	*c = arg;

	if (ctl_cmd_stream(c, CTL_STREAM_LOGS, NULL, cause) != 0)
		return -1;
	if ((c->reader = job_reader_open_run(dir, run, cause)) == NULL) {
		c->stream = CTL_STREAM_NONE;
		return -1;
	}
	c->run = xstrdup(run);
	return 0;
}

/*
 * ctl-events.c: the job events of `events` clients, and the feeds that
 * cut each job's output into lines for them (ctl-private.h).
 *
 * `events` clients are sent every job event as it happens: a job's output
 * is cut into lines by one rawtext per job.  An events client (or a
 * task that pushes a job's output as it prints, ctl-sink.c) whose unsent
 * output would pass CTL_OUTPUT_MAX is dropped (its queue's limit).
 */

#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "ctl-private.h"
#include "job.h"
#include "jobevent.h"
#include "jobfield.h"
#include "jobtable.h"
#include "json.h"
#include "loop.h"
#include "outq.h"
#include "rawtext.h"


/* The fields of each job event (jobfield.h), after "event" and "id". */
static const enum jobfield_id ctl_ev_started[] = {
	JOBFIELD_NAME, JOBFIELD_PID, JOBFIELD_COMMAND
};
static const enum jobfield_id ctl_ev_queued[] = {
	JOBFIELD_NAME, JOBFIELD_COMMAND
};
static const enum jobfield_id ctl_ev_changed[] = {
	JOBFIELD_STATE, JOBFIELD_WAITING_FOR, JOBFIELD_READY,
	JOBFIELD_READY_PROBE, JOBFIELD_NOTE
};
#define CTL_EV_FIELDS(a)	(sizeof (a) / sizeof (a)[0])

static void	ctl_partial_cb(void *);

/* Send a line to every client streaming events. */
static void
ctl_broadcast(struct ctl *ctl, const char *line, size_t len)
{
	struct ctl_client	*c;
	int			 i;

	for (i = 0; i < ctl->nclients; i++) {
		c = ctl->clients[i];
		if ((c->flags & CTL_EVENTS) && !(c->flags & CTL_DEAD))
			ctl_client_send(c, line, len);
	}
}

/* Send "output" events for lines of a job's text, and free them. */
static void
ctl_broadcast_lines(struct ctl *ctl, struct job *job, char **lines,
    int count)
{
	struct xbuf	all = { NULL, 0, 0 };

	jobevent_output_lines(&all, job_id(job), lines, count);
	rawtext_free_lines(lines, count);
	if (all.len > 0)
		ctl_broadcast(ctl, all.s, all.len);
	xbuf_clear(&all);
}

/* The first events client: a feed for every job, from its output now. */
void
ctl_feeds_start(struct ctl *ctl)
{
	int	i, n = jobtable_count(ctl->jt);

	for (i = 0; i < n; i++)
		ctl_feed(ctl, jobtable_get(ctl->jt, i), 1);
}

/* Send "output" events for lines read from the store, and free them. */
static void
ctl_broadcast_store_lines(struct ctl *ctl, struct job *job,
    struct store_line *sl, int n)
{
	struct xbuf	all = { NULL, 0, 0 };

	jobevent_output_store(&all, job_id(job), sl, n);
	store_lines_free(sl, n);
	if (all.len > 0)
		ctl_broadcast(ctl, all.s, all.len);
	xbuf_clear(&all);
}

/* Free what a feed holds. */
void
ctl_feed_clear(struct ctl_feed *f)
{
	job_reader_close(f->reader);
	f->reader = NULL;
	rawtext_free(f->rt);
	f->rt = NULL;
}

/*
 * Point a feed at the job's current run (a restart is a new run) from
 * line from on when its reader reads the store, or else at a converter of
 * its bytes.
 */
static void
ctl_feed_reset(struct ctl_feed *f, struct job *job, int64_t from)
{
	ctl_feed_clear(f);
	memset(&f->mark, 0, sizeof f->mark);
	f->quiet_at = 0;
	f->reader = job_reader_open(job, 0, NULL);
	if (job_reader_source(f->reader) != JOB_SOURCE_STORE) {
		job_reader_close(f->reader);
		f->reader = NULL;
		f->rt = rawtext_new();
		return;
	}
	if (from < 0) {
		job_reader_refresh(f->reader);
		from = job_reader_complete(f->reader);
	}
	f->mark.line = from;
}

/*
 * Return the feed of a job, made if make is set (from the run's end now,
 * or its start when the job has just started); NULL if none.
 */
struct ctl_feed *
ctl_feed(struct ctl *ctl, struct job *job, int make)
{
	struct ctl_feed	*f;
	int		 i;

	for (i = 0; i < ctl->nfeeds; i++) {
		if (ctl->feeds[i].job == job)
			return &ctl->feeds[i];
	}
	if (!make)
		return NULL;
	ctl->feeds = xreallocarray(ctl->feeds, ctl->nfeeds + 1,
	    sizeof *ctl->feeds);
	f = &ctl->feeds[ctl->nfeeds++];
	memset(f, 0, sizeof *f);
	f->job = job;
	ctl_feed_reset(f, job, make > 1 ? 0 : -1);
	return f;
}

/*
 * Send the lines of a feed's run written since it last sent: the complete
 * ones, and with partial (after a quiet time, or at the end) the partial
 * last line too, once for each time it grew.
 */
static void
ctl_feed_read(struct ctl *ctl, struct ctl_feed *f, int partial)
{
	struct store_line	*sl;
	int			 n;

	if (f->reader == NULL)
		return;
	job_reader_refresh(f->reader);
	if (job_reader_since(f->reader, &f->mark, -1, partial, &sl, &n,
	    NULL) == 0)
		ctl_broadcast_store_lines(ctl, f->job, sl, n);
}

/* Arm the partial-line timer for the earliest feed that waits, if any. */
static void
ctl_partial_arm(struct ctl *ctl)
{
	int64_t	due = 0, now = loop_now_ms();
	int	i;

	if (ctl->partial_timer != 0)
		loop_cancel_timer(ctl->loop, ctl->partial_timer);
	ctl->partial_timer = 0;
	for (i = 0; i < ctl->nfeeds; i++) {
		if (ctl->feeds[i].quiet_at != 0 && (due == 0 ||
		    ctl->feeds[i].quiet_at < due))
			due = ctl->feeds[i].quiet_at;
	}
	if (due != 0)
		ctl->partial_timer = loop_add_timer(ctl->loop, due > now ?
		    due - now : 0, ctl_partial_cb, ctl);
}

/* A job has been quiet: send the partial last lines of feeds now due. */
static void
ctl_partial_cb(void *arg)
{
	struct ctl	*ctl = arg;
	int64_t		 now = loop_now_ms();
	int		 i;

	ctl->partial_timer = 0;
	for (i = 0; i < ctl->nfeeds; i++) {
		if (ctl->feeds[i].quiet_at == 0 || ctl->feeds[i].quiet_at > now)
			continue;
		ctl->feeds[i].quiet_at = 0;
		if (ctl->nevents > 0)
			ctl_feed_read(ctl, &ctl->feeds[i], 1);
	}
	ctl_partial_arm(ctl);
}

/* Send what a job's feed has not sent, its last line too; forget it. */
static void
ctl_feed_flush(struct ctl *ctl, struct job *job)
{
	struct ctl_feed	 *f;
	char		**lines;
	int		  count, i;

	if ((f = ctl_feed(ctl, job, 0)) == NULL)
		return;
	if (f->rt != NULL) {
		lines = rawtext_finish(f->rt, &count);
		f->rt = NULL;
		if (ctl->nevents > 0)
			ctl_broadcast_lines(ctl, job, lines, count);
		else
			rawtext_free_lines(lines, count);
	} else if (ctl->nevents > 0)
		ctl_feed_read(ctl, f, 1);
	ctl_feed_clear(f);
	i = (int)(f - ctl->feeds);
	memmove(&ctl->feeds[i], &ctl->feeds[i + 1],
	    (size_t)(ctl->nfeeds - i - 1) * sizeof *ctl->feeds);
	ctl->nfeeds--;
	ctl_partial_arm(ctl);
}

/* Tell the events clients that a job started or was queued. */
static void
ctl_announce(struct ctl *ctl, struct job *job, const char *what)
{
	struct json_buf	 jb;
	char		*line;
	size_t		 n;

	if (ctl->nevents == 0)
		return;
	jobevent_begin(&jb, what, job_id(job));
	if (strcmp(what, "queued") == 0)
		jobfield_json_some(&jb, job, ctl_ev_queued,
		    CTL_EV_FIELDS(ctl_ev_queued));
	else
		jobfield_json_some(&jb, job, ctl_ev_started,
		    CTL_EV_FIELDS(ctl_ev_started));
	line = jobevent_end(&jb, &n);
	ctl_broadcast(ctl, line, n);
	free(line);
}

/* A job started (a new run): tell the events clients, read it from line 0. */
void
ctl_job_started(struct job *job, void *arg)
{
	struct ctl	*ctl = arg;
	struct ctl_feed	*f;

	ctl_announce(ctl, job, "started");
	if (ctl->nevents == 0)
		return;
	if ((f = ctl_feed(ctl, job, 0)) != NULL)
		ctl_feed_reset(f, job, 0);
	else
		ctl_feed(ctl, job, 2);
}

/* A job waits for a free slot: tell the events clients. */
void
ctl_job_queued(struct job *job, void *arg)
{
	ctl_announce(arg, job, "queued");
}

/*
 * What is shown of a job changed (it waits for something else, became
 * ready, got a note, stopped, continued, was renamed): tell the events
 * clients.
 */
void
ctl_job_changed(struct job *job, void *arg)
{
	struct ctl	*ctl = arg;
	struct json_buf	 jb;
	char		*line;
	size_t		 n;

	if (ctl->nevents == 0)
		return;
	jobevent_begin(&jb, "changed", job_id(job));
	jobfield_json_some(&jb, job, ctl_ev_changed,
	    CTL_EV_FIELDS(ctl_ev_changed));
	line = jobevent_end(&jb, &n);
	ctl_broadcast(ctl, line, n);
	free(line);
}

/* A job printed: its complete lines to the events clients. */
void
ctl_job_output(struct job *job, const char *buf, size_t len, void *arg)
{
	struct ctl		 *ctl = arg;
	struct ctl_feed		 *f;
	char			**lines;
	int			  count;

	if (ctl->nevents > 0) {
		f = ctl_feed(ctl, job, 1);
		if (f->rt != NULL) {
			rawtext_feed(f->rt, buf, len);
			lines = rawtext_take(f->rt, &count);
			ctl_broadcast_lines(ctl, job, lines, count);
		} else {
			ctl_feed_read(ctl, f, 0);
			f->quiet_at = loop_now_ms() + CTL_PARTIAL_MS;
			ctl_partial_arm(ctl);
		}
	}
}

/* A job ended: its last line and "exited" to events. */
void
ctl_job_exited(struct job *job, void *arg)
{
	struct ctl		*ctl = arg;
	char			*line;
	size_t			 n;

	ctl_feed_flush(ctl, job);
	if (ctl->nevents > 0) {
		line = jobevent_exited(job, &n);
		ctl_broadcast(ctl, line, n);
		free(line);
	}
}

/* A job leaves the table: forget it everywhere, tell events clients. */
void
ctl_job_removed(struct job *job, void *arg)
{
	struct ctl		*ctl = arg;
	struct json_buf		 jb;
	char			*line;
	size_t			 n;

	ctl_feed_flush(ctl, job);
	if (ctl->nevents == 0)
		return;
	jobevent_begin(&jb, "removed", job_id(job));
	line = jobevent_end(&jb, &n);
	ctl_broadcast(ctl, line, n);
	free(line);
}

/* events: the client streams every job's events once the reply starts. */
int
ctl_cmd_events(void *arg, char **cause)
{
	return ctl_cmd_stream(arg, CTL_STREAM_EVENTS, cause);
}

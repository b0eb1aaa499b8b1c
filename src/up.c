/*
 * up.c: `jobdeck up`, the stack's output as prefixed lines (see up.h).
 *
 * Every job gets a record (struct up_job) when up first hears of it: its
 * label (its name, else its id), its colour (foreman's cycle, in the
 * order jobs appear) and a rawtext converter of its output, so a job's
 * lines are the text !logs shows: escape sequences dropped, carriage
 * returns and backspaces replayed.  A partial last line is held until its
 * newline, UP_PARTIAL_MS of quiet, the job's end, or RAWTEXT_LINE_MAX
 * characters (where rawtext cuts it).  What rawtext leaves that a
 * terminal would act on (C1 controls) goes through textesc.
 *
 * Lines, and the jobs' starts, waits, readiness and ends, are queued in
 * the order they come; the loop's before-sleep hook formats them once a
 * turn, each label padded to the longest known by then (so jobs started
 * together line up from their first line, and the deck's own "jobdeck"
 * lines too, as foreman pads to "system"), into the output buffer.
 *
 * Output never blocks the loop: stdout is written through outq.h (a
 * private non-blocking opening of it, so nothing is changed that others
 * share) as far as it takes, the rest once the loop says POLLOUT.  At
 * most UP_OUT_MAX bytes wait (the queue refuses a job's line past that,
 * never a start, an end or the deck's own); a refused line is counted,
 * and once the reader has caught up (below UP_OUT_LOW) a line says how
 * many went and where every line is kept.  A reader that goes away
 * (EPIPE) ends the writing; the jobs go on.
 *
 * The browser (up_opts.browser) is told as a job is, under the label
 * "browser": a line each time what it shows changes ("CDP Ready ws://...",
 * "Failed: why", "Stopped"), in the words of the panel (cmd.h).  Once no
 * job is live it is stopped, after the jobs as a deck's quit does, and
 * the end waits for it, so its last line is told.
 *
 * The hook also judges each end once the job's restart policy has acted
 * (its restart timer is armed after subscribers hear of the end): the
 * first job that ended failed and is not live any more gives the exit
 * status.  When no job is live, what output is left is written as long
 * as the reader takes some at least every UP_DRAIN_MS, then the loop
 * stops.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "browser.h"
#include "cmd.h"
#include "job.h"
#include "jobtable.h"
#include "lineprefix.h"
#include "loop.h"
#include "outq.h"
#include "rawtext.h"
#include "store.h"
#include "textesc.h"
#include "up.h"
#include "vt.h"
#include "waitstatus.h"
#include "xmalloc.h"

#define UP_PARTIAL_MS	200			/* quiet before a partial line */
#define UP_OUT_MAX	(8 * 1024 * 1024)	/* output waiting, then drops */
#define UP_OUT_LOW	(UP_OUT_MAX / 2)	/* drops are told below this */
#define UP_DRAIN_MS	2000	/* at the end: wait so long for the reader */
#define UP_LABEL	"jobdeck"		/* the deck's own lines */
#define UP_BROWSER	"browser"		/* the browser's */
#define UP_STATE_NONE	(-1)			/* no state told yet */


/* What up knows of one job. */
struct up_job {
	struct job	*job;		/* NULL once removed */
	int		 id;
	char		*label;		/* its name, or its id */
	int		 colour;	/* lineprefix_colour()'s */
	struct rawtext	*rt;		/* its output being cut, or NULL */
	int		 partial;	/* rt may hold part of a line */
	int64_t		 quiet_at;	/* when that goes out; 0: not due */
	int		 started;	/* a run started since its last end */
	int		 state;		/* the state told, or UP_STATE_NONE */
	char		*waiting;	/* what it waits for, as told */
	int		 ready;		/* readiness told for this run */
	char		*note;		/* the note told, or NULL */
	enum job_state	 end_state;	/* its last end */
	int		 end_code;	/* its code (job_end_code()) */
	uint64_t	 dropped;	/* lines dropped, not told yet */
	char		*where;		/* where they are kept, or NULL */
};

/* A line to print: a job's (or the deck's), with its time. */
struct up_line {
	struct up_job	*uj;		/* NULL: the deck's own */
	int64_t		 wall;		/* ms since the epoch */
	char		*text;

#define UP_OUTPUT	0x1	/* the job's output: may be dropped */
#define UP_END		0x2	/* the job's end: "restarting"? */
	int		 flags;
};

struct up {
	struct loop	 *loop;
	struct jobtable	 *jt;
	struct stack	 *stack;
	struct up_opts	  opts;
	char		 *deck;
	int		  colour;	/* colour is on */
	int		  handle;	/* the jobtable subscription */

	struct up_job	**jobs;		/* in the order they appeared */
	int		  njobs;
	int		  ajobs;
	int		  next_colour;
	size_t		  width;	/* the longest label yet */
	struct up_job	 *browser;	/* the browser's record (job NULL, */
					/*   never in jobs), or NULL */
	char		 *browser_told;	/* its last line, or NULL */

	struct up_line	 *lines;	/* to format this turn */
	int		  nlines;
	int		  alines;
	struct up_job	**ended;	/* ends to judge, in order */
	int		  nended;
	int		  aended;

	struct outq	 *out;		/* stdout */

	uint64_t	  partial_timer;
	int		  draining;	/* nothing live: the last output */
	int		  quitting;	/* 1: stopping, 2: killing */
	int		  failed;	/* a job failed for good: status */
	int		  status;
};

static void	up_job_started(struct job *, void *);
static void	up_job_output(struct job *, const char *, size_t, void *);
static void	up_job_exited(struct job *, void *);
static void	up_job_queued(struct job *, void *);
static void	up_job_changed(struct job *, void *);
static void	up_job_removed(struct job *, void *);
static void	up_hook(void *);
static void	up_out_written(struct outq *, void *);
static void	up_out_stalled(struct outq *, void *);

static void	up_browser_changed(struct browser *, void *);

static const struct outq_cbs up_outq_cbs = {
	.written = up_out_written,
	.stalled = up_out_stalled,
};

static const struct browser_cbs up_browser_cbs = {
	.changed = up_browser_changed,
};

static const struct jobtable_cbs up_jobtable_cbs = {
	.started = up_job_started,
	.output = up_job_output,
	.exited = up_job_exited,
	.queued = up_job_queued,
	.changed = up_job_changed,
	.removed = up_job_removed,
};

/* Return whether two strings (either may be NULL) are the same. */
static int
up_same(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	return strcmp(a, b) == 0;
}

/* Set a record's label from its job: its name, or its id. */
static void
up_job_label(struct up_job *uj, struct job *job)
{
	const char	*name = job_name(job);

	free(uj->label);
	uj->label = lineprefix_label(name, uj->id);
}

/* Return the record of job, or NULL if up has none (make: make one). */
static struct up_job *
up_job_find(struct up *up, struct job *job, int make)
{
	struct up_job	*uj;
	int		 i;

	for (i = up->njobs - 1; i >= 0; i--) {
		if (up->jobs[i]->job == job)
			return up->jobs[i];
	}
	if (!make)
		return NULL;
	uj = xcalloc(1, sizeof *uj);
	uj->job = job;
	uj->id = job_id(job);
	uj->colour = lineprefix_colour(up->next_colour++);
	uj->state = UP_STATE_NONE;
	up_job_label(uj, job);
	if (up->njobs == up->ajobs) {
		up->ajobs = up->ajobs == 0 ? 16 : up->ajobs * 2;
		up->jobs = xreallocarray(up->jobs, up->ajobs,
		    sizeof *up->jobs);
	}
	up->jobs[up->njobs++] = uj;
	return uj;
}

/* Queue a line (text is taken) of a job (uj), or of the deck (NULL). */
static void
up_add(struct up *up, struct up_job *uj, char *text, int flags)
{
	struct up_line	*l;

	if (up->nlines == up->alines) {
		up->alines = up->alines == 0 ? 64 : up->alines * 2;
		up->lines = xreallocarray(up->lines, up->alines,
		    sizeof *up->lines);
	}
	l = &up->lines[up->nlines++];
	l->uj = uj;
	l->wall = loop_wall_ms();
	l->text = text;
	l->flags = flags;
}

/* Queue a formatted line of a job, or of the deck (uj NULL). */
static void __attribute__((format(printf, 3, 4)))
up_say(struct up *up, struct up_job *uj, const char *fmt, ...)
{
	va_list	 ap;
	char	*text;

	va_start(ap, fmt);
	text = xvprintf(fmt, ap);
	va_end(ap);
	up_add(up, uj, text, 0);
}

/* Queue lines of a job's output (rawtext's array, taken and freed). */
static void
up_add_lines(struct up *up, struct up_job *uj, char **lines, int count)
{
	int	i;

	for (i = 0; i < count; i++)
		up_add(up, uj, lines[i], UP_OUTPUT);
	free(lines);
}

/* Send a job's held partial line now, ending its converter's input. */
static void
up_job_flush(struct up *up, struct up_job *uj)
{
	char	**lines;
	int	  count;

	uj->partial = 0;
	uj->quiet_at = 0;
	if (uj->rt == NULL)
		return;
	lines = rawtext_finish(uj->rt, &count);
	uj->rt = NULL;
	up_add_lines(up, uj, lines, count);
}

/* The partial lines of jobs quiet for UP_PARTIAL_MS go out. */
static void
up_partial_cb(void *arg)
{
	struct up	*up = arg;
	int64_t		 now = loop_now_ms(), next = 0;
	int		 i;

	up->partial_timer = 0;
	for (i = 0; i < up->njobs; i++) {
		if (up->jobs[i]->quiet_at == 0)
			continue;
		if (up->jobs[i]->quiet_at <= now)
			up_job_flush(up, up->jobs[i]);
		else if (next == 0 || up->jobs[i]->quiet_at < next)
			next = up->jobs[i]->quiet_at;
	}
	if (next != 0)
		up->partial_timer = loop_add_timer(up->loop, next - now,
		    up_partial_cb, up);
}

/*
 * Say what changed of a job that is not starting or ending: that it waits
 * (and for what), is queued, suspended or resumed, ready, its note, its
 * new name.
 */
static void
up_job_tell(struct up *up, struct up_job *uj, struct job *job)
{
	enum job_state	 state = job_state(job);
	const char	*why = job_wait_reason(job), *note = job_note(job);

	up_job_label(uj, job);
	if (state == JOB_WAITING && ((int)state != uj->state ||
	    !up_same(why, uj->waiting))) {
		free(uj->waiting);
		uj->waiting = why != NULL ? xstrdup(why) : NULL;
		up_say(up, uj, "waiting for %s", why != NULL ? why :
		    "its turn");
	} else if (state == JOB_QUEUED && uj->state != JOB_QUEUED)
		up_say(up, uj, "queued");
	else if (state == JOB_STOPPED && uj->state != JOB_STOPPED)
		up_say(up, uj, "suspended");
	else if (state == JOB_RUNNING && uj->state == JOB_STOPPED)
		up_say(up, uj, "resumed");
	uj->state = (int)state;
	if (job_is_running(job) && job_ready(job) == JOB_READY_YES &&
	    !uj->ready) {
		uj->ready = 1;
		up_say(up, uj, "ready");
	}
	if (!up_same(note, uj->note)) {
		free(uj->note);
		uj->note = note != NULL ? xstrdup(note) : NULL;
		if (note != NULL)
			up_say(up, uj, "%s", note);
	}
}

/* A job started (a new run): say so with its pid. */
static void
up_job_started(struct job *job, void *arg)
{
	struct up	*up = arg;
	struct up_job	*uj = up_job_find(up, job, 1);

	up_job_flush(up, uj);
	uj->started = 1;
	uj->ready = 0;
	free(uj->waiting);
	uj->waiting = NULL;
	uj->state = (int)job_state(job);
	up_say(up, uj, "started (pid %ld)", (long)job_pid(job));
	up_job_tell(up, uj, job);
}

/* A job printed: its complete lines; a partial one waits for quiet. */
static void
up_job_output(struct job *job, const char *buf, size_t len, void *arg)
{
	struct up	 *up = arg;
	struct up_job	 *uj = up_job_find(up, job, 1);
	char		**lines;
	int		  count;

	if (len == 0)
		return;
	if (uj->rt == NULL)
		uj->rt = rawtext_new();
	rawtext_feed(uj->rt, buf, len);
	lines = rawtext_take(uj->rt, &count);
	up_add_lines(up, uj, lines, count);
	uj->partial = buf[len - 1] != '\n';
	uj->quiet_at = 0;
	if (!uj->partial)
		return;
	uj->quiet_at = loop_now_ms() + UP_PARTIAL_MS;
	if (up->partial_timer == 0)
		up->partial_timer = loop_add_timer(up->loop, UP_PARTIAL_MS,
		    up_partial_cb, up);
}

/*
 * Describe how a job's run ended: "exited with code 1", "killed by
 * SIGKILL", "stopped: killed by SIGTERM", "timed out: ...", or why it
 * did not start (job_start_error()).
 */
static char *
up_end_text(const struct up_job *uj, struct job *job)
{
	char		 how[64], name[WAITSTATUS_NAME_MAX];
	const char	*why;
	int		 status = job_end_status(job);
	int		 code = waitstatus_exit_code(status);
	int		 sig = waitstatus_signal(status);

	if (!uj->started) {
		if (job_state(job) == JOB_CANCELED)
			return xstrdup("canceled before it started");
		if (job_state(job) == JOB_BLOCKED)
			return xprintf("blocked: %s", job_start_error(job));
		if ((why = job_start_error(job)) == NULL)
			return xstrdup("could not start");
		return xprintf("could not start: %s", why);
	}
	if (code >= 0)
		snprintf(how, sizeof how, "exited with code %d", code);
	else if (sig > 0)
		snprintf(how, sizeof how, "killed by %s",
		    waitstatus_signal_name(sig, name, sizeof name));
	else
		snprintf(how, sizeof how, "ended");
	if (job_state(job) == JOB_CANCELED)
		return xprintf("stopped: %s", how);
	if (job_state(job) == JOB_TIMED_OUT)
		return xprintf("timed out: %s", how);
	return xstrdup(how);
}

/* A job's run ended: its last line, how it ended; judged in the hook. */
static void
up_job_exited(struct job *job, void *arg)
{
	struct up	*up = arg;
	struct up_job	*uj = up_job_find(up, job, 1);

	up_job_flush(up, uj);
	up_add(up, uj, up_end_text(uj, job), UP_END);
	uj->started = 0;
	uj->state = (int)job_state(job);
	uj->end_state = job_state(job);
	uj->end_code = job_end_code(job);
	if (up->nended == up->aended) {
		up->aended = up->aended == 0 ? 16 : up->aended * 2;
		up->ended = xreallocarray(up->ended, up->aended,
		    sizeof *up->ended);
	}
	up->ended[up->nended++] = uj;
}

/* A job waits: for a slot (queued), or for what it depends on. */
static void
up_job_queued(struct job *job, void *arg)
{
	struct up	*up = arg;

	up_job_tell(up, up_job_find(up, job, 1), job);
}

/* Something shown of a job changed: waiting, ready, note, name... */
static void
up_job_changed(struct job *job, void *arg)
{
	struct up	*up = arg;

	up_job_tell(up, up_job_find(up, job, 1), job);
}

/* A job leaves the table: its last words, then forget its pointer. */
static void
up_job_removed(struct job *job, void *arg)
{
	struct up	*up = arg;
	struct up_job	*uj = up_job_find(up, job, 0);

	if (uj == NULL)
		return;
	up_job_flush(up, uj);
	uj->job = NULL;
}

/*
 * The browser changed: a line under its own label when what it shows
 * changed ("Starting…", "CDP Ready URL", "Failed: WHY", "Stopped").
 */
static void
up_browser_changed(struct browser *b, void *arg)
{
	struct up	*up = arg;
	char		*detail, *text;

	if (browser_state(b) == BROWSER_IDLE)
		return;
	detail = cmd_browser_detail(b);
	if (browser_state(b) == BROWSER_READY && detail != NULL)
		text = xprintf("%s %s", cmd_browser_state_text(b), detail);
	else if (detail != NULL)
		text = xstrdup(detail);
	else
		text = xstrdup(cmd_browser_state_text(b));
	free(detail);
	if (up_same(text, up->browser_told)) {
		free(text);
		return;
	}
	free(up->browser_told);
	up->browser_told = xstrdup(text);
	if (up->browser == NULL) {
		up->browser = xcalloc(1, sizeof *up->browser);
		up->browser->id = -1;
		up->browser->label = xstrdup(UP_BROWSER);
		up->browser->colour = lineprefix_colour(up->next_colour++);
		up->browser->state = UP_STATE_NONE;
	}
	up_add(up, up->browser, text, 0);
}

/*
 * Judge the ends of this turn, now that restart policies have acted: the
 * first job that failed, timed out or was blocked (125: a dependency
 * failed) and will not run again gives the exit status, the code of its
 * end (job_end_code()).  A job the user or
 * the deck stopped (canceled) has not failed.
 */
static void
up_judge(struct up *up)
{
	struct up_job	*uj;
	int		 i;

	for (i = 0; i < up->nended; i++) {
		uj = up->ended[i];
		if (up->failed || (uj->job != NULL &&
		    jobtable_is_live(up->jt, uj->job)))
			continue;
		if (uj->end_state != JOB_FAILED &&
		    uj->end_state != JOB_TIMED_OUT &&
		    uj->end_state != JOB_BLOCKED)
			continue;
		up->failed = 1;
		up->status = uj->end_code;
	}
	up->nended = 0;
}

/*
 * Format a line into the output: "[HH:MM:SS ]LABEL | text", the label
 * padded to the longest, the prefix coloured when colour is on.  Returns
 * -1 (and queues nothing) when the line is refused: a job's output
 * (may_drop) that would pass UP_OUT_MAX waiting.
 */
static int
up_out_line(struct up *up, const struct up_line *l, int restarting,
    int may_drop)
{
	struct tm	 tm;
	time_t		 secs = (time_t)(l->wall / 1000);
	struct xbuf	 b = { NULL, 0, 0 };
	char		 stamp[16] = "", *text;
	const char	*label = l->uj != NULL ? l->uj->label : UP_LABEL;
	const char	*end = restarting ? " (restarting)\n" : "\n";
	int		 rc;

	if (up->opts.timestamps && localtime_r(&secs, &tm) != NULL)
		strftime(stamp, sizeof stamp, "%H:%M:%S ", &tm);
	text = textesc_needed(l->text, strlen(l->text)) ?
	    textesc_visible(l->text, strlen(l->text)) : NULL;
	lineprefix_add(&b, stamp, label, up->width, up->colour &&
	    l->uj != NULL ? l->uj->colour : LINEPREFIX_NONE);
	xbuf_add(&b, text != NULL ? text : l->text, strlen(text != NULL ?
	    text : l->text));
	xbuf_add(&b, end, strlen(end));
	free(text);
	if (may_drop)
		rc = outq_add(up->out, b.s, b.len);
	else
		rc = outq_add_always(up->out, b.s, b.len);
	xbuf_clear(&b);
	return rc;
}

/*
 * Return where a job's lines are kept for someone who missed them on
 * stdout: `jobdeck ctl` while the deck runs, the run's directory in the
 * store after; NULL if its reader does not read the store (not logged,
 * or a run that cannot be read).
 */
static char *
up_where(const struct up *up, struct job *job)
{
	struct job_reader	*r;
	const char		*dir, *run;
	char			*path, *where = NULL;

	if (job == NULL)
		return NULL;
	r = job_reader_open(job, 0, NULL);
	if (job_reader_source(r) == JOB_SOURCE_STORE) {
		run = job_reader_run(r, &dir);
		path = store_run_path(dir, run);
		where = xprintf("jobdeck ctl -S %s logs %d, or the store: %s",
		    up->deck, job_id(job), path);
		free(path);
	}
	job_reader_close(r);
	return where;
}

/* Tell how many lines of each job were dropped, and where they are. */
static void
up_tell_drops(struct up *up)
{
	struct up_job	*uj;
	struct up_line	 l;
	int		 i;

	for (i = 0; i < up->njobs; i++) {
		uj = up->jobs[i];
		if (uj->dropped == 0)
			continue;
		memset(&l, 0, sizeof l);
		l.uj = uj;
		l.wall = loop_wall_ms();
		if (uj->where != NULL)
			l.text = xprintf("%llu line%s dropped: stdout did not "
			    "keep up; every line is kept (%s)",
			    (unsigned long long)uj->dropped, uj->dropped == 1 ?
			    "" : "s", uj->where);
		else
			l.text = xprintf("%llu line%s dropped: stdout did not "
			    "keep up (and the output store is off)",
			    (unsigned long long)uj->dropped, uj->dropped == 1 ?
			    "" : "s");
		up_out_line(up, &l, 0, 0);
		free(l.text);
		uj->dropped = 0;
		free(uj->where);
		uj->where = NULL;
	}
}

/*
 * Format the lines of this turn into the output buffer.  A line of a
 * job's output that would pass UP_OUT_MAX waiting is dropped and counted;
 * the counts are told once less than UP_OUT_LOW waits (or at once with
 * force).  Starts, ends and the deck's own lines are never dropped.
 */
static void
up_format(struct up *up, int force)
{
	struct up_line	*l;
	struct up_job	*uj;
	size_t		 len;
	int		 i, dropped = 0, restarting;

	len = strlen(UP_LABEL);
	if (up->width < len)
		up->width = len;
	if (up->browser != NULL && (len = strlen(UP_BROWSER)) > up->width)
		up->width = len;
	for (i = 0; i < up->njobs; i++) {
		if ((len = strlen(up->jobs[i]->label)) > up->width)
			up->width = len;
	}
	for (i = 0; i < up->njobs && !dropped; i++)
		dropped = up->jobs[i]->dropped > 0;
	if (dropped && (force || outq_pending(up->out) < UP_OUT_LOW))
		up_tell_drops(up);
	for (i = 0; i < up->nlines; i++) {
		l = &up->lines[i];
		uj = l->uj;
		restarting = (l->flags & UP_END) && uj->job != NULL &&
		    jobtable_is_live(up->jt, uj->job);
		if (outq_error(up->out) == 0 && up_out_line(up, l, restarting,
		    l->flags & UP_OUTPUT) != 0) {
			if (uj->dropped++ == 0)
				uj->where = up_where(up, uj->job);
		}
		free(l->text);
	}
	up->nlines = 0;
	if (force)
		up_tell_drops(up);
}

/* Forget the records of jobs gone from the table with nothing left. */
static void
up_tidy(struct up *up)
{
	struct up_job	*uj;
	int		 i, j;

	for (i = j = 0; i < up->njobs; i++) {
		uj = up->jobs[i];
		if (uj->job != NULL || uj->dropped > 0 || uj->rt != NULL) {
			up->jobs[j++] = uj;
			continue;
		}
		free(uj->label);
		free(uj->waiting);
		free(uj->note);
		free(uj->where);
		free(uj);
	}
	up->njobs = j;
}

/* stdout had room, or failed: at the end, stop once all is out. */
static void
up_out_written(struct outq *q, void *arg)
{
	struct up	*up = arg;

	if (up->draining && outq_pending(q) == 0)
		loop_stop(up->loop);
}

/* At the end: give up on a reader that took nothing for UP_DRAIN_MS. */
static void
up_out_stalled(struct outq *q, void *arg)
{
	struct up	*up = arg;

	(void)q;
	if (up->draining)
		loop_stop(up->loop);
}

/*
 * With no job live: stop the browser if it runs or starts; return whether
 * it is still on its way to stopped (the end waits for it).
 */
static int
up_browser_busy(struct up *up)
{
	struct browser	*b = up->opts.browser;
	char		*cause = NULL;

	if (b == NULL)
		return 0;
	switch (browser_state(b)) {
	case BROWSER_STARTING:
	case BROWSER_READY:
		if (browser_stop(b, &cause) == 0)
			return 1;
		up_say(up, NULL, "%s", cause);
		free(cause);
		return 0;
	case BROWSER_STOPPING:
		return 1;
	default:
		return 0;
	}
}

/* Return whether any job runs, waits or will restart. */
static int
up_live(const struct up *up)
{
	int	i, n = jobtable_count(up->jt);

	for (i = 0; i < n; i++) {
		if (jobtable_is_live(up->jt, jobtable_get(up->jt, i)))
			return 1;
	}
	return 0;
}

/*
 * Once a turn, before the loop sleeps: judge the ends, format and write
 * the lines, forget what is gone; with no job live, stop the browser and
 * wait for it, then write what is left (for as long as the reader takes
 * some) and stop the loop.
 */
static void
up_hook(void *arg)
{
	struct up	*up = arg;

	up_judge(up);
	up_format(up, 0);
	(void)outq_flush(up->out);
	up_tidy(up);
	/* --stay: as if a job were live until told to quit. */
	if (up_live(up) || (up->opts.stay && up->quitting == 0)) {
		if (up->draining)
			outq_set_stall(up->out, 0);
		up->draining = 0;
		return;
	}
	if (up_browser_busy(up))
		return;
	if (outq_pending(up->out) == 0) {
		loop_stop(up->loop);
		return;
	}
	if (!up->draining) {
		up->draining = 1;
		outq_set_stall(up->out, UP_DRAIN_MS);
	}
}

/*
 * Make the line front end: subscribe to the jobtable, open stdout for
 * writing without blocking, and format and write in the loop's hook.
 */
struct up *
up_new(struct loop *loop, struct jobtable *jt, struct stack *stack,
    const struct up_opts *opts)
{
	struct up	*up;

	up = xcalloc(1, sizeof *up);
	up->loop = loop;
	up->jt = jt;
	up->stack = stack;
	up->opts = *opts;
	up->deck = xstrdup(opts->deck != NULL ? opts->deck : "default");
	up->opts.deck = up->deck;
	up->colour = opts->colour == -1 ? isatty(STDOUT_FILENO) :
	    opts->colour != 0;
	up->out = outq_open(loop, STDOUT_FILENO, OUTQ_WATCH, &up_outq_cbs, up);
	outq_set_limit(up->out, UP_OUT_MAX, OUTQ_LIMIT_REFUSE);
	up->handle = jobtable_subscribe(jt, &up_jobtable_cbs, up);
	if (opts->browser != NULL)
		browser_subscribe(opts->browser, &up_browser_cbs, up);
	loop_set_hook(loop, up_hook, up);
	return up;
}

/*
 * Free it: the lines still held go out as far as stdout takes them now
 * without waiting (the loop has given the reader its time; a stdout
 * written only on POLLOUT gets nothing more), and our opening of stdout
 * is closed; stdout itself was never changed.
 */
void
up_free(struct up *up)
{
	struct up_job	*uj;
	int		 i;

	if (up == NULL)
		return;
	loop_set_hook(up->loop, NULL, NULL);
	if (up->handle != -1)
		jobtable_unsubscribe(up->jt, up->handle);
	if (up->partial_timer != 0)
		loop_cancel_timer(up->loop, up->partial_timer);
	for (i = 0; i < up->njobs; i++)
		up_job_flush(up, up->jobs[i]);
	up_judge(up);
	up_format(up, 1);
	(void)outq_flush(up->out);
	outq_free(up->out);
	for (i = 0; i < up->njobs; i++) {
		uj = up->jobs[i];
		free(uj->label);
		free(uj->waiting);
		free(uj->note);
		free(uj->where);
		free(uj);
	}
	if (up->browser != NULL) {
		free(up->browser->label);
		free(up->browser);
	}
	free(up->browser_told);
	free(up->jobs);
	free(up->lines);
	free(up->ended);
	free(up->deck);
	free(up);
}

/*
 * Stop every job (in dependency order: the jobtable's policy holds a job
 * its dependants still need), and leave once all have ended; a second
 * call kills every job that is still live at once.
 */
void
up_quit(struct up *up)
{
	struct job	*job;
	int		 i;

	if (up->quitting == 0) {
		up->quitting = 1;
		up_say(up, NULL, "stopping (Ctrl+C again to kill)");
		jobtable_kill_all(up->jt);
		return;
	}
	if (up->quitting == 1)
		up_say(up, NULL, "killing every job now");
	up->quitting = 2;
	for (i = 0; i < jobtable_count(up->jt); i++) {
		job = jobtable_get(up->jt, i);
		if (job_is_running(job))
			jobtable_kill(up->jt, job, SIGKILL);
		else if (jobtable_is_live(up->jt, job))
			jobtable_kill(up->jt, job, SIGTERM);
	}
}

/*
 * The exit status: the first job that failed for good (its exit code,
 * 128+N for signal N), else 0; always 0 with stay (a server of jobs).
 */
int
up_status(const struct up *up)
{
	return up->failed && !up->opts.stay ? up->status : 0;
}

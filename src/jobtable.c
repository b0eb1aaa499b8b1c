/*
 * jobtable.c: the set of jobs.  Spawning, lookup, the loop watches that read
 * every job's output (with a read budget), what a job's end means (the
 * reaping, the signals and the grace are the proc layer's: each run is a
 * supervised process, proc.h), and the subscribers told about it all.
 * Jobs live in an array (glibc's sys/queue.h has no safe foreach); one is
 * freed while the table lives only when keep_finished drops it, after the
 * removed callback, so whoever holds a job pointer must forget it there.
 * Stopping a job is jobtable-stop.c's, when a job may start
 * jobtable-schedule.c's; the three share jobtable-private.h.
 *
 * Other processes the deck starts for a job (a probe's command) are
 * supervised by the same reaper (jobtable_reaper()).
 *
 * Waiting for input: a running pty job quiet for JOBTABLE_QUIET_MS (no
 * output, no input since) is probed by ttywait_probe() on one table
 * timer, at most JOBTABLE_PROBE_BATCH jobs a turn; a quiet job is probed
 * again after an interval that doubles up to JOBTABLE_PROBE_MAX_MS, on a
 * grid of JOBTABLE_PROBE_GRID_MS, so hundreds of idle jobs cost a few
 * wake-ups and small /proc reads a second, and no timer is armed while
 * no job is due.  Output or input clears the state at once; every change
 * is told through the changed callback.
 */
#include <sys/types.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "debuglog.h"
#include "host.h"
#include "job.h"
#include "jobtable.h"
#include "jobtable-private.h"
#include "loop.h"
#include "name.h"
#include "proc.h"
#include "pty.h"
#include "ttywait.h"
#include "xmalloc.h"

#define JOBTABLE_READ_SLICE_NS	200000	/* time one job may take per turn */
#define JOBTABLE_HELD_MS	200	/* quiet time before a held line is stored */
#define JOBTABLE_QUIET_MS	300	/* quiet time before the input probe */
#define JOBTABLE_PROBE_MAX_MS	8000	/* the probe's interval on a quiet job */
					/*   doubles up to it */
#define JOBTABLE_PROBE_WAIT_MS	1000	/* its interval while a job waits */
#define JOBTABLE_PROBE_BATCH	16	/* probes per turn at most */
#define JOBTABLE_PROBE_GRID_MS	500	/* later probes fall on this grid, */
					/*   so that one wake-up does many */
#define JOBTABLE_PROBE_TURN_MS	20	/* the next turn, when more are due */

static void	jobtable_fd_cb(int, short, void *);
static void	jobtable_err_cb(int, short, void *);
static void	jobtable_reaped_cb(void *);
static void	jobtable_exited_cb(struct proc *, int, void *);
static void	jobtable_stopped_cb(struct proc *, int, void *);
static void	jobtable_cancel_timers(struct jobtable_entry *);
static int	jobtable_live(const struct jobtable_entry *);
static int	jobtable_name_taken(struct jobtable *, const char *,
		    const struct job *, char **);

/* What the reaper tells the table after every batch of children. */
static const struct proc_reaper_cbs jobtable_reaper_cbs = {
	.reaped = jobtable_reaped_cb,
};

/* What a job's run tells the table. */
static const struct proc_cbs jobtable_proc_cbs = {
	.exited = jobtable_exited_cb,
	.stopped = jobtable_stopped_cb,
	.killed = jobtable_killed_cb,
};

/* Create an empty table that watches its jobs on loop. */
struct jobtable *
jobtable_new(struct loop *loop)
{
	struct jobtable	*jt;

	jt = xcalloc(1, sizeof *jt);
	jt->loop = loop;
	jt->next_id = 1;
	jt->rows = 24;
	jt->cols = 80;
	jt->grace_ms = JOBTABLE_KILL_GRACE_MS;
	jt->keep_finished = -1;
	jt->scrollback = JOBTABLE_SCROLLBACK;
	jt->reaper = proc_reaper_new(loop);
	proc_reaper_set_cbs(jt->reaper, &jobtable_reaper_cbs, jt);
	return jt;
}

/* Free the table and its jobs; processes still running are not touched. */
void
jobtable_free(struct jobtable *jt)
{
	struct jobtable_entry	*e;
	size_t			 k;
	int			 i;

	if (jt == NULL)
		return;
	if (jt->held_timer != 0)
		loop_cancel_timer(jt->loop, jt->held_timer);
	if (jt->probe_timer != 0)
		loop_cancel_timer(jt->loop, jt->probe_timer);
	for (i = 0; i < jt->count; i++) {
		e = jt->entries[i];
		jobtable_unwatch(e);
		jobtable_cancel_timers(e);
		jobtable_stop_close(e);
		proc_free(e->stop);
		job_free(e->respec);
		job_free(e->job);
		free(e);
	}
	for (i = 0; i < jt->ngroups; i++)
		free(jt->groups[i].name);
	free(jt->groups);
	free(jt->entries);
	free(jt->store_error);
	for (k = 0; k < jt->nenv; k++)
		free(jt->env[k]);
	free(jt->env);
	proc_reaper_free(jt->reaper);
	free(jt);
}

/* Add a subscriber; returns a handle for jobtable_unsubscribe() or -1. */
int
jobtable_subscribe(struct jobtable *jt, const struct jobtable_cbs *cbs,
    void *arg)
{
	int	i;

	for (i = 0; i < JOBTABLE_MAX_SUBS; i++) {
		if (jt->subs[i].cbs == NULL) {
			jt->subs[i].cbs = cbs;
			jt->subs[i].arg = arg;
			return i;
		}
	}
	return -1;
}

/* Remove a subscriber. */
void
jobtable_unsubscribe(struct jobtable *jt, int handle)
{
	if (handle >= 0 && handle < JOBTABLE_MAX_SUBS)
		jt->subs[handle].cbs = NULL;
}

/*
 * Tell every subscriber that a job started, ended, was queued, changed
 * state while running (stopped, continued) or is removed.
 */
void
jobtable_emit(struct jobtable *jt, enum jobtable_event ev, struct job *job)
{
	const struct jobtable_cbs	*cbs;
	void				(*cb)(struct job *, void *);
	int				 i;

	for (i = 0; i < JOBTABLE_MAX_SUBS; i++) {
		if ((cbs = jt->subs[i].cbs) == NULL)
			continue;
		switch (ev) {
		case JOBTABLE_STARTED:
			cb = cbs->started;
			break;
		case JOBTABLE_EXITED:
			cb = cbs->exited;
			break;
		case JOBTABLE_QUEUED:
			cb = cbs->queued;
			break;
		case JOBTABLE_CHANGED:
			cb = cbs->changed;
			break;
		default:
			cb = cbs->removed;
			break;
		}
		if (cb != NULL)
			cb(job, jt->subs[i].arg);
	}
}

/*
 * Tell every subscriber about a piece of output from stream (len 0, to
 * the stream callback alone: the stream is at its end).
 */
static void
jobtable_emit_output(struct jobtable *jt, struct job *job,
    enum store_stream stream, const char *buf, size_t len)
{
	const struct jobtable_cbs	*cbs;
	int				 i;

	for (i = 0; i < JOBTABLE_MAX_SUBS; i++) {
		if ((cbs = jt->subs[i].cbs) == NULL)
			continue;
		if (cbs->output != NULL && len > 0)
			cbs->output(job, buf, len, jt->subs[i].arg);
		if (cbs->stream != NULL)
			cbs->stream(job, stream, buf, len, jt->subs[i].arg);
	}
}

/* Store the partial lines every job's run holds back after a quiet time. */
static void
jobtable_held_cb(void *arg)
{
	struct jobtable	*jt = arg;
	int		 i;

	jt->held_timer = 0;
	for (i = 0; i < jt->count; i++)
		job_store_flush(jt->entries[i]->job);
}

static void	jobtable_probe_cb(void *);

/* Arm the probe timer to fire at due (monotonic ms) unless it fires sooner. */
static void
jobtable_probe_arm(struct jobtable *jt, int64_t due, int64_t now)
{
	if (jt->probe_timer != 0) {
		if (jt->probe_due <= due)
			return;
		loop_cancel_timer(jt->loop, jt->probe_timer);
	}
	jt->probe_due = due;
	jt->probe_timer = loop_add_timer(jt->loop, due > now ? due - now : 0,
	    jobtable_probe_cb, jt);
}

/*
 * The job of an entry had output or was given input: it is not waiting
 * for input (subscribers told if it was), and the probe looks again once
 * it has been quiet for JOBTABLE_QUIET_MS.  Only running pty jobs are
 * probed.
 */
static void
jobtable_probe_reset(struct jobtable_entry *e)
{
	struct jobtable	*jt = e->jt;
	int64_t		 now;

	if (!job_is_pty(e->job) || !job_is_running(e->job)) {
		e->probe_at = 0;
		return;
	}
	now = loop_now_ms();
	e->probe_step = JOBTABLE_QUIET_MS;
	e->probe_at = now + JOBTABLE_QUIET_MS;
	jobtable_probe_arm(jt, e->probe_at, now);
	if (job_input_wait(e->job) != TTYWAIT_NONE) {
		job_set_input_wait(e->job, TTYWAIT_NONE);
		jobtable_emit(jt, JOBTABLE_CHANGED, e->job);
	}
}

/*
 * Probe the quiet running pty jobs whose time has come, at most
 * JOBTABLE_PROBE_BATCH a turn: whether each is blocked reading its
 * terminal (ttywait.h).  A quiet job is probed again after an interval
 * that doubles up to JOBTABLE_PROBE_MAX_MS, a waiting one every
 * JOBTABLE_PROBE_WAIT_MS, rounded up to JOBTABLE_PROBE_GRID_MS so that
 * hundreds of quiet jobs share a few wake-ups a second; subscribers hear
 * of every change.
 */
static void
jobtable_probe_cb(void *arg)
{
	struct jobtable		*jt = arg;
	struct jobtable_entry	*e;
	enum ttywait		 w;
	int64_t			 now, next = 0;
	int			 changed[JOBTABLE_PROBE_BATCH];
	int			 i, n = 0, nchanged = 0;
	struct job		*job;

	jt->probe_timer = 0;
	now = loop_now_ms();
	for (i = 0; i < jt->count; i++) {
		e = jt->entries[i];
		if (e->probe_at == 0)
			continue;
		/* A job on a host has only its ssh or srun client here. */
		if (!job_is_running(e->job) || !job_is_pty(e->job) ||
		    job_is_remote(e->job)) {
			e->probe_at = 0;
			continue;
		}
		if (e->probe_at <= now && n < JOBTABLE_PROBE_BATCH &&
		    job_state(e->job) == JOB_RUNNING) {
			n++;
			w = ttywait_probe(job_out_fd(e->job), job_pid(e->job));
			if (w != job_input_wait(e->job)) {
				job_set_input_wait(e->job, w);
				changed[nchanged++] = job_id(e->job);
			}
			if (w != TTYWAIT_NONE)
				e->probe_step = JOBTABLE_PROBE_WAIT_MS;
			else if ((e->probe_step *= 2) > JOBTABLE_PROBE_MAX_MS)
				e->probe_step = JOBTABLE_PROBE_MAX_MS;
			e->probe_at = now + e->probe_step;
			e->probe_at += JOBTABLE_PROBE_GRID_MS -
			    e->probe_at % JOBTABLE_PROBE_GRID_MS;
		} else if (e->probe_at <= now)
			e->probe_at = now + (n < JOBTABLE_PROBE_BATCH ?
			    e->probe_step : JOBTABLE_PROBE_TURN_MS);
		if (next == 0 || e->probe_at < next)
			next = e->probe_at;
	}
	if (next != 0)
		jobtable_probe_arm(jt, next, now);
	/* Subscribers may change the table: find each job again. */
	for (i = 0; i < nchanged; i++) {
		if ((job = jobtable_find_id(jt, changed[i])) != NULL)
			jobtable_emit(jt, JOBTABLE_CHANGED, job);
	}
}

/* Tell subscribers about output and see that what the store holds is kept. */
void
jobtable_output(struct jobtable_entry *e, enum store_stream stream,
    const char *buf, size_t len)
{
	struct jobtable	*jt = e->jt;
	struct job	*job = e->job;

	jobtable_emit_output(jt, job, stream, buf, len);
	jobtable_probe_reset(e);
	if (jt->held_timer == 0 && job_store_held(job))
		jt->held_timer = loop_add_timer(jt->loop, JOBTABLE_HELD_MS,
		    jobtable_held_cb, jt);
}

/* Set the size new jobs get and resize every job to it. */
void
jobtable_set_size(struct jobtable *jt, int rows, int cols)
{
	int	i;

	jt->rows = rows;
	jt->cols = cols;
	for (i = 0; i < jt->count; i++)
		job_resize(jt->entries[i]->job, rows, cols);
}

/* Give the job table the deck's output store (the caller keeps it). */
void
jobtable_set_store(struct jobtable *jt, struct store *store)
{
	jt->store = store;
}

/* Say why the deck has no output store; every job started says so too. */
void
jobtable_set_store_error(struct jobtable *jt, const char *why)
{
	free(jt->store_error);
	jt->store_error = why != NULL ? xstrdup(why) : NULL;
}

/* Return the deck's output store, or NULL. */
struct store *
jobtable_store(const struct jobtable *jt)
{
	return jt->store;
}

/*
 * Take no new job from now on (the deck quits): every spawn is refused
 * with "the deck is quitting".
 */
void
jobtable_close(struct jobtable *jt)
{
	jt->closed = 1;
}

/* Return whether the table takes no new job (jobtable_close()). */
int
jobtable_closed(const struct jobtable *jt)
{
	return jt->closed;
}

/* Return the loop the table runs on. */
struct loop *
jobtable_loop(const struct jobtable *jt)
{
	return jt->loop;
}

/* Return the grace period between SIGTERM and SIGKILL in milliseconds. */
int
jobtable_grace(const struct jobtable *jt)
{
	return jt->grace_ms;
}

/* Set the grace period between SIGTERM and SIGKILL. */
void
jobtable_set_grace(struct jobtable *jt, int ms)
{
	jt->grace_ms = ms;
}

/* Set how many lines of scrollback every later job keeps (0: none). */
void
jobtable_set_scrollback(struct jobtable *jt, int lines)
{
	jt->scrollback = lines >= 0 ? lines : JOBTABLE_SCROLLBACK;
}

/* Run every later job on pipes (no pseudo-terminal) when no_pty is set. */
void
jobtable_set_no_pty(struct jobtable *jt, int no_pty)
{
	jt->no_pty = no_pty;
}

/*
 * Give every job started from now on name=value in its environment, over
 * its own (value NULL: no longer); name is name_check_env()'s.
 */
void
jobtable_set_env(struct jobtable *jt, const char *name, const char *value)
{
	size_t	i, len = strlen(name);

	for (i = 0; i < jt->nenv; i++) {
		if (strncmp(jt->env[i], name, len) == 0 &&
		    jt->env[i][len] == '=')
			break;
	}
	if (i < jt->nenv) {
		free(jt->env[i]);
		if (value != NULL) {
			jt->env[i] = xprintf("%s=%s", name, value);
			return;
		}
		jt->env[i] = jt->env[--jt->nenv];
		jt->env[jt->nenv] = NULL;
		return;
	}
	if (value == NULL)
		return;
	jt->env = xreallocarray(jt->env, jt->nenv + 2, sizeof *jt->env);
	jt->env[jt->nenv++] = xprintf("%s=%s", name, value);
	jt->env[jt->nenv] = NULL;
}

/*
 * Contain every job started from now on with cg (NULL: none but its
 * process group), and the other processes the deck supervises through
 * jobtable_reaper(); cg is the caller's and must outlive the table.
 */
void
jobtable_set_cgroup(struct jobtable *jt, struct cgroup *cg)
{
	proc_reaper_set_cgroup(jt->reaper, cg);
}

/* A host's state moved: the jobs that wait for it look again. */
static void
jobtable_hosts_cb(void *arg)
{
	jobtable_recheck(arg);
}

/*
 * Give the jobtable the hosts its jobs with a host run on (host.h); their
 * gate is asked after the policy's.  The hosts stay the caller's.
 */
void
jobtable_set_hosts(struct jobtable *jt, struct hosts *hs)
{
	jt->hosts = hs;
	if (hs != NULL)
		hosts_set_recheck(hs, jobtable_hosts_cb, jt);
}

/*
 * Return the deck's reaper, which supervises the processes it starts
 * beside its jobs (probe and stop commands, the browser, the session
 * shell): proc.h.
 */
struct proc_reaper *
jobtable_reaper(const struct jobtable *jt)
{
	return jt->reaper;
}

/* Watch the entry's fds for what the job needs now. */
static void
jobtable_update_watch(struct jobtable_entry *e)
{
	struct jobtable	*jt = e->jt;
	int		 in_fd, out_fd, pending;

	out_fd = job_out_fd(e->job);
	in_fd = job_in_fd(e->job);
	pending = job_input_pending(e->job);

	if (e->out_fd != -1 && e->out_fd != out_fd) {
		loop_unwatch_fd(jt->loop, e->out_fd);
		e->out_fd = -1;
	}
	if (e->in_fd != -1 && (e->in_fd != in_fd || !pending)) {
		loop_unwatch_fd(jt->loop, e->in_fd);
		e->in_fd = -1;
	}
	if (out_fd == -1)
		return;
	if (in_fd == out_fd) {
		if (e->out_fd == -1) {
			loop_watch_fd(jt->loop, out_fd, POLLIN, jobtable_fd_cb, e);
			e->out_fd = out_fd;
		}
		loop_set_events(jt->loop, out_fd, e->hung || e->out_paused ?
		    0 : POLLIN | (pending ? POLLOUT : 0));
		return;
	}
	if (e->out_fd == -1) {
		loop_watch_fd(jt->loop, out_fd, POLLIN, jobtable_fd_cb, e);
		e->out_fd = out_fd;
	}
	loop_set_events(jt->loop, out_fd, e->hung || e->out_paused ? 0 :
	    POLLIN);
	if (pending && in_fd != -1 && e->in_fd == -1) {
		loop_watch_fd(jt->loop, in_fd, POLLOUT, jobtable_fd_cb, e);
		e->in_fd = in_fd;
	}
	if (e->err_fd == -1 && !e->err_eof && job_err_fd(e->job) != -1) {
		e->err_fd = job_err_fd(e->job);
		loop_watch_fd(jt->loop, e->err_fd, POLLIN, jobtable_err_cb, e);
	}
	if (e->err_fd != -1)
		loop_set_events(jt->loop, e->err_fd, e->err_paused ? 0 :
		    POLLIN);
}

/* Return the stream a job's output fd carries (its stdout when split). */
static enum store_stream
jobtable_out_stream(const struct jobtable_entry *e)
{
	return job_err_fd(e->job) != -1 ? STORE_STDOUT : STORE_TTY;
}

/* Tell the stream callbacks, once, that a stream of the job is at its end. */
static void
jobtable_stream_end(struct jobtable_entry *e, enum store_stream stream)
{
	int	*told = stream == STORE_STDERR ? &e->err_eof : &e->out_eof;

	if (*told)
		return;
	*told = 1;
	jobtable_emit_output(e->jt, e->job, stream, "", 0);
}

/*
 * Once the job has ended and each of its streams is at its end, close its
 * output (its run in the store ends); 1 if it was closed now.
 */
static int
jobtable_output_over(struct jobtable_entry *e)
{
	if (job_is_running(e->job) || !e->out_eof || e->out_fd == -1 ||
	    (job_err_fd(e->job) != -1 && !e->err_eof))
		return 0;
	jobtable_unwatch(e);
	job_close_output(e->job);
	return 1;
}

/* Read up to budget bytes of the job's stderr pipe; 0 once it has ended. */
static int
jobtable_drain_err(struct jobtable_entry *e, size_t budget)
{
	struct jobtable	*jt = e->jt;
	size_t		 done = 0;
	ssize_t		 n;

	if (e->err_fd == -1)
		return 0;
	while (done < budget && !e->err_paused) {
		n = job_read_err(e->job, jt->buf, sizeof jt->buf);
		if (n > 0) {
			done += (size_t)n;
			jobtable_output(e, STORE_STDERR, jt->buf, (size_t)n);
			continue;
		}
		if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
			loop_unwatch_fd(jt->loop, e->err_fd);
			e->err_fd = -1;
			jobtable_stream_end(e, STORE_STDERR);
			return 0;
		}
		break;
	}
	return 1;
}

/*
 * Handle readiness on a job's own stderr pipe; at its end, an ended job's
 * output may be over.
 */
static void
jobtable_err_cb(int fd, short revents, void *arg)
{
	struct jobtable_entry	*e = arg;

	(void)fd;
	(void)revents;
	if (jobtable_drain_err(e, JOBTABLE_READ_BUDGET) == 0 &&
	    jobtable_output_over(e))
		jobtable_trim_finished(e->jt);
}

/* Stop watching every fd of the entry's run. */
void
jobtable_unwatch(struct jobtable_entry *e)
{
	struct jobtable	*jt = e->jt;

	if (e->out_fd != -1)
		loop_unwatch_fd(jt->loop, e->out_fd);
	if (e->in_fd != -1 && e->in_fd != e->out_fd)
		loop_unwatch_fd(jt->loop, e->in_fd);
	if (e->err_fd != -1)
		loop_unwatch_fd(jt->loop, e->err_fd);
	e->out_fd = e->in_fd = e->err_fd = -1;
}

/* Return the monotonic clock in nanoseconds. */
static int64_t
jobtable_now_ns(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * Read the job's output up to budget bytes and, when sliced, for at most a
 * time slice, so a flooding job cannot keep the keyboard or the other jobs
 * waiting for more than a fraction of a millisecond; returns 0 at the end
 * of the output.  At reap time the drain is not sliced, so what the child
 * left in its pty is read before its exit is reported.
 */
static int
jobtable_drain(struct jobtable_entry *e, size_t budget, int sliced)
{
	struct jobtable	*jt = e->jt;
	size_t		 done = 0;
	ssize_t		 n;
	int64_t		 start = jobtable_now_ns();

	while (done < budget && !e->out_paused) {
		n = job_read(e->job, jt->buf, sizeof jt->buf);
		if (n > 0) {
			done += (size_t)n;
			jobtable_output(e, jobtable_out_stream(e), jt->buf,
			    (size_t)n);
			if (sliced &&
			    jobtable_now_ns() - start > JOBTABLE_READ_SLICE_NS)
				break;
			continue;
		}
		if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
			/*
			 * The child closed its side but lives on: closing a
			 * pty master now would hang it up (SIGHUP), so keep
			 * the fd, unpolled, until the child is reaped; an
			 * ended one's output is over once its stderr is too.
			 */
			e->hung = 1;
			loop_set_events(jt->loop, e->out_fd, 0);
			jobtable_stream_end(e, jobtable_out_stream(e));
			if (!job_is_running(e->job)) {
				/* Nothing can write to it any more. */
				(void)jobtable_drain_err(e,
				    JOBTABLE_READ_BUDGET);
				(void)jobtable_output_over(e);
			}
			return 0;
		}
		break;
	}
	return 1;
}

/* Handle readiness on a job's fd: read its output, write its input. */
static void
jobtable_fd_cb(int fd, short revents, void *arg)
{
	struct jobtable_entry	*e = arg;

	if ((revents & POLLOUT) || fd == e->in_fd) {
		if (job_flush_input(e->job) == -1 && fd == e->in_fd &&
		    fd != e->out_fd) {
			loop_unwatch_fd(e->jt->loop, e->in_fd);
			e->in_fd = -1;
		}
	}
	if (fd == e->out_fd && (revents & (POLLIN | POLLHUP | POLLERR))) {
		if (jobtable_drain(e, JOBTABLE_READ_BUDGET, 1) == 0) {
			/* An ended job's output is over: one more finished. */
			if (!job_is_running(e->job))
				jobtable_trim_finished(e->jt);
			return;
		}
	}
	jobtable_update_watch(e);
}

/*
 * Return whether a live job other than except has the name, with *cause
 * saying which: names are unique among live jobs.
 */
static int
jobtable_name_taken(struct jobtable *jt, const char *name,
    const struct job *except, char **cause)
{
	struct job	*job;
	int		 i;

	for (i = 0; i < jt->count; i++) {
		job = jt->entries[i]->job;
		if (job == except || !jobtable_live(jt->entries[i]) ||
		    job_name(job) == NULL || strcmp(job_name(job), name) != 0)
			continue;
		*cause = xprintf("a job named %s is running already (job %d)",
		    name, job_id(job));
		return 1;
	}
	return 0;
}

/*
 * Spawn a job from spec at the table's size; NULL with *cause on error.
 * The job may be running, queued, waiting or (the policy said it cannot
 * start) failed.
 */
struct job *
jobtable_spawn(struct jobtable *jt, const struct job_spec *spec,
    char **cause)
{
	struct jobtable_entry	*e;
	struct job		*job;
	struct job_spec		 full = *spec;
	int			 id;

	if (jt->closed) {
		*cause = xstrdup("the deck is quitting");
		return NULL;
	}
	/* The deck's settings, never the caller's copies of them. */
	full.store = jt->store;
	full.store_error = jt->store_error;
	full.scrollback = jt->scrollback;
	full.no_pty = spec->no_pty || jt->no_pty;
	spec = &full;
	if (spec->name != NULL && jobtable_name_taken(jt, spec->name, NULL,
	    cause))
		return NULL;
	id = jt->next_id++;
	job = job_new(id, spec);
	if (jt->count == jt->alloc) {
		jt->alloc = jt->alloc == 0 ? 16 : jt->alloc * 2;
		jt->entries = xreallocarray(jt->entries, jt->alloc,
		    sizeof *jt->entries);
	}
	e = xcalloc(1, sizeof *e);
	e->jt = jt;
	e->job = job;
	e->out_fd = e->in_fd = e->err_fd = e->stop_fd = -1;
	job_set_reaper(job, jt->reaper, &jobtable_proc_cbs, e);
	job_set_hosts(job, jt->hosts);
	jt->entries[jt->count++] = e;

	if (!jobtable_schedule(e, 1))
		return job;
	if (job_start(job, jt->rows, jt->cols, jt->env, cause) != 0) {
		/* Nobody has heard of it: it goes as if never made. */
		jt->count--;
		if (jt->next_id == id + 1)
			jt->next_id = id;
		job_free(job);
		free(e);
		return NULL;
	}
	debuglog("job %d started: %s", id, job_command(job));
	jobtable_started(e);
	return job;
}

/*
 * Return whether an entry's job runs, waits (in the queue, for the
 * policy, for a restart).
 */
static int
jobtable_live(const struct jobtable_entry *e)
{
	return job_is_running(e->job) || job_state(e->job) == JOB_QUEUED ||
	    job_state(e->job) == JOB_WAITING || e->restart_timer != 0 ||
	    e->start_pending;
}

/* Cancel the timers an entry has armed. */
static void
jobtable_cancel_timers(struct jobtable_entry *e)
{
	struct loop	*loop = e->jt->loop;

	if (e->timeout_timer != 0)
		loop_cancel_timer(loop, e->timeout_timer);
	if (e->restart_timer != 0)
		loop_cancel_timer(loop, e->restart_timer);
	e->timeout_timer = e->restart_timer = 0;
}

/* Kill a job whose time is up; it will end as "timed out". */
static void
jobtable_timeout_cb(void *arg)
{
	struct jobtable_entry	*e = arg;

	e->timeout_timer = 0;
	job_set_timed_out(e->job);
	jobtable_kill(e->jt, e->job, SIGTERM);
}

/* A job's process started: watch it, arm its time limit, tell everyone. */
void
jobtable_started(struct jobtable_entry *e)
{
	struct jobtable		*jt = e->jt;
	const struct job_spec	*spec = job_spec(e->job);

	e->hung = 0;
	e->stopping = 0;
	e->err_eof = 0;
	e->out_eof = 0;
	e->out_paused = e->err_paused = 0;
	e->held = 0;
	jobtable_update_watch(e);
	jobtable_probe_reset(e);
	if (spec->timeout_ms > 0)
		e->timeout_timer = loop_add_timer(jt->loop, spec->timeout_ms,
		    jobtable_timeout_cb, e);
	jobtable_emit(jt, JOBTABLE_STARTED, e->job);
}

/* Remove entry i: tell subscribers, unwatch, free the job. */
static void
jobtable_remove_entry(struct jobtable *jt, int i)
{
	struct jobtable_entry	*e = jt->entries[i];

	jobtable_emit(jt, JOBTABLE_REMOVED, e->job);
	jobtable_unwatch(e);
	jobtable_cancel_timers(e);
	jobtable_stop_close(e);
	proc_release(e->stop);
	job_free(e->respec);
	job_free(e->job);
	free(e);
	memmove(&jt->entries[i], &jt->entries[i + 1],
	    (size_t)(jt->count - i - 1) * sizeof *jt->entries);
	jt->count--;
}

/*
 * Return whether an entry's job is over and may leave the table: not live,
 * its output closed, nothing of it left for a pending SIGKILL and no stop
 * command of its running.
 */
static int
jobtable_removable(struct jobtable_entry *e)
{
	return !jobtable_live(e) && e->out_fd == -1 && e->stop == NULL &&
	    (!jobtable_in_grace(e) || !job_lingers(e->job));
}

/* Drop the oldest finished jobs beyond keep_finished (their logs stay). */
void
jobtable_trim_finished(struct jobtable *jt)
{
	struct jobtable_entry	*e;
	int			 i, finished = 0;

	if (jt->keep_finished < 0)
		return;
	for (i = 0; i < jt->count; i++)
		finished += jobtable_removable(jt->entries[i]);
	for (i = 0; i < jt->count && finished > jt->keep_finished;) {
		e = jt->entries[i];
		if (jobtable_removable(e)) {
			jobtable_remove_entry(jt, i);
			finished--;
		} else
			i++;
	}
}

/*
 * Remove a finished job from the table (its logs stay), as keep_finished
 * would; -1 with *cause when it runs or waits still.
 */
int
jobtable_remove(struct jobtable *jt, struct job *job, char **cause)
{
	struct jobtable_entry	*e;
	int			 i;

	for (i = 0; i < jt->count; i++) {
		if (jt->entries[i]->job == job)
			break;
	}
	if (i == jt->count) {
		*cause = xprintf("no such job: %d", job_id(job));
		return -1;
	}
	e = jt->entries[i];
	if (jobtable_live(e)) {
		*cause = xprintf("[%d] is %s: !kill it first", job_id(job),
		    job_state(job) == JOB_WAITING ? "waiting" : "running");
		return -1;
	}
	if (!jobtable_removable(e)) {
		*cause = xprintf("[%d] is still ending: try again in a moment",
		    job_id(job));
		return -1;
	}
	jobtable_remove_entry(jt, i);
	return 0;
}

/* Remove every finished job that can leave the table; return how many. */
int
jobtable_clear_finished(struct jobtable *jt)
{
	int	i, n = 0;

	for (i = 0; i < jt->count;) {
		if (jobtable_removable(jt->entries[i])) {
			jobtable_remove_entry(jt, i);
			n++;
		} else
			i++;
	}
	return n;
}

/*
 * Name a job (the job name rules; unique among live jobs); -1 with
 * *cause when the name cannot be its.
 */
int
jobtable_rename(struct jobtable *jt, struct job *job, const char *name,
    char **cause)
{
	if (name_check_job(name, cause) != 0)
		return -1;
	if (jobtable_name_taken(jt, name, job, cause))
		return -1;
	job_set_name(job, name);
	jobtable_emit(jt, JOBTABLE_CHANGED, job);
	return 0;
}

/* Return a live job other than job that has job's name, or NULL. */
struct job *
jobtable_namesake(const struct jobtable *jt, const struct job *job)
{
	const char	*name = job_name(job), *other;
	int		 i;

	for (i = 0; name != NULL && i < jt->count; i++) {
		if (jt->entries[i]->job == job ||
		    !jobtable_live(jt->entries[i]))
			continue;
		other = job_name(jt->entries[i]->job);
		if (other != NULL && strcmp(other, name) == 0)
			return jt->entries[i]->job;
	}
	return NULL;
}

/* Keep at most n finished jobs (-1: all), dropping the oldest first. */
void
jobtable_set_keep_finished(struct jobtable *jt, int n)
{
	jt->keep_finished = n < 0 ? -1 : n;
	jobtable_trim_finished(jt);
}

/* Return the entry holding job, or NULL. */
struct jobtable_entry *
jobtable_entry(const struct jobtable *jt, const struct job *job)
{
	int	i;

	for (i = 0; i < jt->count; i++) {
		if (jt->entries[i]->job == job)
			return jt->entries[i];
	}
	return NULL;
}

/* Find a job by id ("3") or name ("web"); NULL with *cause if none. */
struct job *
jobtable_find(struct jobtable *jt, const char *s, char **cause)
{
	const char	*name;
	char		*end;
	long		 id;
	int		 i;

	if (s[0] != '\0' && isdigit((unsigned char)s[0])) {
		errno = 0;
		id = strtol(s, &end, 10);
		if (*end == '\0' && errno == 0) {
			for (i = 0; i < jt->count; i++) {
				if (job_id(jt->entries[i]->job) == id)
					return jt->entries[i]->job;
			}
		}
	}
	for (i = jt->count - 1; i >= 0; i--) {
		name = job_name(jt->entries[i]->job);
		if (name != NULL && strcmp(name, s) == 0)
			return jt->entries[i]->job;
	}
	if (cause != NULL)
		*cause = xprintf("no such job: %s", s);
	return NULL;
}

/* Return how many jobs the table holds. */
int
jobtable_count(const struct jobtable *jt)
{
	return jt->count;
}

/* Return the job at index (0 = oldest), or NULL. */
struct job *
jobtable_get(const struct jobtable *jt, int index)
{
	if (index < 0 || index >= jt->count)
		return NULL;
	return jt->entries[index]->job;
}

/*
 * Return whether job is live: it runs, waits (in the queue, for what it
 * depends on) or has a restart pending; 0 for a job not in the table.
 */
int
jobtable_is_live(const struct jobtable *jt, const struct job *job)
{
	struct jobtable_entry	*e = jobtable_entry(jt, job);

	return e != NULL && jobtable_live(e);
}

/*
 * Return whether job is being stopped for good: a stop is under way (a
 * kill, its grace) and no start is to follow it.
 */
int
jobtable_is_stopping(const struct jobtable *jt, const struct job *job)
{
	struct jobtable_entry	*e = jobtable_entry(jt, job);

	return e != NULL && job_is_running(job) && (e->stopping ||
	    e->stop != NULL) && !e->restart_asked && !e->start_pending;
}

/* Return how many jobs are running. */
int
jobtable_running(const struct jobtable *jt)
{
	int	i, n = 0;

	for (i = 0; i < jt->count; i++)
		n += job_is_running(jt->entries[i]->job);
	return n;
}

/* Return the job with id, or NULL. */
struct job *
jobtable_find_id(const struct jobtable *jt, int id)
{
	int	i;

	for (i = 0; i < jt->count; i++) {
		if (job_id(jt->entries[i]->job) == id)
			return jt->entries[i]->job;
	}
	return NULL;
}

/* A job's leader stopped or continued: record it, tell. */
static void
jobtable_stopped_cb(struct proc *p, int stopped, void *arg)
{
	struct jobtable_entry	*e = arg;

	if (job_proc(e->job) != p || !job_is_running(e->job))
		return;
	job_set_stopped(e->job, stopped);
	jobtable_emit(e->jt, JOBTABLE_CHANGED, e->job);
}

/* A job's leader was reaped with status: record it, tell, stop the rest. */
static void
jobtable_exited_cb(struct proc *p, int status, void *arg)
{
	struct jobtable_entry	*e = arg;
	struct jobtable		*jt = e->jt;

	if (job_proc(e->job) != p || !job_is_running(e->job))
		return;
	/*
	 * Show what it wrote before it went; more, from children
	 * still holding the terminal, is read on later turns.
	 */
	if (e->out_fd != -1 && !e->hung)
		jobtable_drain(e, JOBTABLE_READ_BUDGET, 0);
	jobtable_drain_err(e, JOBTABLE_READ_BUDGET);
	job_set_exited(e->job, status, loop_now_ms());
	debuglog("job %d (pid %ld) ended: %s", job_id(e->job),
	    (long)proc_pid(p), job_state_name(job_state(e->job)));
	if (e->hung) {
		e->hung = 0;
		jobtable_drain(e, JOBTABLE_READ_BUDGET, 0);
	}
	jobtable_stop_leftovers(e);
	jobtable_emit(jt, JOBTABLE_EXITED, e->job);
	if (e->out_fd != -1)
		jobtable_update_watch(e);
	jobtable_after_exit(e);
	jobtable_release_held(jt);
}

/*
 * What was reaped may have been the last of a finished job's leftovers,
 * which kept it in the table (jobtable_removable()): keep_finished looks
 * again.
 */
static void
jobtable_reaped_cb(void *arg)
{
	jobtable_trim_finished(arg);
}

/*
 * Reap every child that has exited, recording the jobs' statuses (the
 * reaper's work, proc.h; it does it on SIGCHLD).
 */
void
jobtable_reap(struct jobtable *jt)
{
	proc_reaper_reap(jt->reaper);
}

/*
 * Pause (paused 1) or resume the reading of one stream of a job
 * (STORE_STDERR: its own stderr pipe; else its output), for a subscriber
 * whose reader is slow: the child then waits on the pipe.  A pause holds
 * from the next read on, its end (EOF) included.
 */
void
jobtable_pause_output(struct jobtable *jt, struct job *job,
    enum store_stream stream, int paused)
{
	struct jobtable_entry	*e;

	if ((e = jobtable_entry(jt, job)) == NULL)
		return;
	if (stream == STORE_STDERR)
		e->err_paused = paused != 0;
	else
		e->out_paused = paused != 0;
	jobtable_update_watch(e);
}

/* Queue input for a job; 0 or -1 if it can take no input. */
int
jobtable_write(struct jobtable *jt, struct job *job, const char *buf,
    size_t len)
{
	struct jobtable_entry	*e;
	int			 rc;

	e = jobtable_entry(jt, job);
	if (e == NULL)
		return -1;
	rc = job_write(job, buf, len);
	jobtable_update_watch(e);
	jobtable_probe_reset(e);
	return rc;
}

/*
 * Watch a job's fds for what it needs now (after input was queued): the
 * input also ends its waiting for input.
 */
void
jobtable_update(struct jobtable *jt, struct job *job)
{
	struct jobtable_entry	*e;

	e = jobtable_entry(jt, job);
	if (e != NULL) {
		jobtable_update_watch(e);
		jobtable_probe_reset(e);
	}
}

/* Tell every subscriber that what is shown of job changed (note, ready). */
void
jobtable_changed(struct jobtable *jt, struct job *job)
{
	jobtable_emit(jt, JOBTABLE_CHANGED, job);
}

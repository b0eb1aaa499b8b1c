/*
 * jobtable.c: the set of jobs.  Spawning, lookup, the loop watches that read
 * every job's output, what a job's end and stop mean (the reaping, the
 * signals and the grace are the proc layer's: each run is a supervised
 * process, proc.h), and the subscribers told about it all.  Jobs live in
 * an array (glibc's sys/queue.h has no safe foreach); one is freed while
 * the table lives only when keep_finished drops it, after the removed
 * callback, so whoever holds a job pointer must forget it there.
 *
 * Stopping a job, with a deck's containment set (jobtable_set_cgroup()):
 * !kill, !kill-all and a time limit send SIGTERM (or the signal asked
 * for, if SIGHUP or SIGINT) to the job's process group and, at the same
 * moment, to every process of the run that left the group (its cgroup, or
 * its marker), each followed by SIGCONT; after the grace period SIGKILL
 * goes to the group and empties the cgroup (cgroup.kill), or kills what
 * carries the marker.  When the job's leader exits by itself, whatever is
 * left of the run (the group's members, the cgroup's processes; not the
 * marker's, which would take a scan of /proc on every exit) gets the same
 * SIGTERM, then SIGKILL after the grace period.  Once a run is over and
 * its cgroup empty, the cgroup is removed; the reaper's timer retries
 * while one is not empty yet and sends the signals queued for marked
 * processes.
 *
 * A stop (SIGTERM asked for: !kill, !kill-all, quit, a time limit, a
 * restart) is the job's own when its spec has one: its stop_command, run
 * instead of any signal (SHELL -c, in the job's cwd and environment, its
 * output shown as the job's; if it cannot start or fails, the stop signal
 * follows at once), else its stop_signal; the SIGKILL stage comes after
 * the job's stop_timeout, else the deck's grace.  Escapees get the stop
 * signal with the group (nothing while a stop command runs) and SIGKILL
 * at the end of the grace.  A stop command is a supervised process of
 * its own (a cgroup of its own or its own marker), and whatever it
 * leaves behind is killed when it ends, or with it at the end of the
 * grace.
 *
 * Other processes the deck starts for a job (a probe's command) are
 * supervised by the same reaper (jobtable_reaper()).
 *
 * The policy (jobtable_set_policy()) is asked before every start:
 * jobtable_spawn(), the queue, jobtable_restart() and the restart
 * policy's timer; a job it holds is JOB_WAITING until jobtable_recheck()
 * lets it go.  A job with no room (max_running, its group's limit) is
 * queued; the queue starts the highest priority first, then the one
 * queued first, passing over a job whose group is full.  Restarts by
 * policy wait job_restart_delay_ms() (the backoff), and a stable run
 * (longer than the backoff's cap) starts the count again.
 * jobtable_kill_all() holds a running job while stop_later says so, asks
 * again after every exit, and stops every held job at once when nothing
 * else is left running that could end (a policy that never lets go).
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
#include <sys/wait.h>

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
#include "job.h"
#include "jobtable.h"
#include "loop.h"
#include "name.h"
#include "proc.h"
#include "pty.h"
#include "ttywait.h"
#include "waitstatus.h"
#include "xmalloc.h"

#define JOBTABLE_MAX_SUBS	16
#define JOBTABLE_READ_CHUNK	(16 * 1024)
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

/* One job and the loop state the table keeps for it. */
struct jobtable_entry {
	struct jobtable	*jt;
	struct job	*job;
	int		 out_fd;	/* watched output fd, or -1 */
	int		 in_fd;		/* watched input fd (pipes), or -1 */
	int		 err_fd;	/* watched stderr pipe, or -1 */
	int		 err_eof;	/* its stderr pipe is at its end */
	int		 hung;		/* output ended while the job runs */
	uint64_t	 timeout_timer;	/* its time limit, 0: none armed */
	uint64_t	 restart_timer;	/* its restart delay, 0: none armed */
	int		 restart_asked;	/* jobtable_restart() while it ran */
	int		 stopping;	/* got a kill that ends in SIGKILL */
	uint64_t	 queue_seq;	/* when it joined the queue */
	int		 held;		/* kill_all's stop waits on stop_later */
	struct proc	*stop;		/* its stop command, NULL: none runs */
	int		 stop_fd;	/* that command's output, or -1 */
	int		 start_pending;	/* a start waits for that command */
	int64_t		 probe_at;	/* the next input probe, 0: none */
	int64_t		 probe_step;	/* the interval after it */
};

/* A [groups.NAME] limit. */
struct jobtable_group {
	char		*name;
	int		 max_running;	/* > 0 */
};

struct jobtable_sub {
	const struct jobtable_cbs	*cbs;
	void				*arg;
};

struct jobtable {
	struct loop		 *loop;
	struct jobtable_entry	**entries;
	int			  count;
	int			  alloc;
	int			  next_id;
	int			  rows;
	int			  cols;
	int			  grace_ms;
	int			  max_running;	/* 0: no limit */
	int			  keep_finished;	/* -1: keep every finished job */
	struct store		 *store;	/* the output store, or NULL */
	char			 *store_error;	/* why there is none, or NULL */
	char			**env;		/* jobtable_set_env()'s NAME=VALUE, */
	size_t			  nenv;		/*   NULL-terminated */
	int			  scrollback;	/* lines per job */
	int			  no_pty;	/* every job on pipes */
	struct proc_reaper	 *reaper;	/* SIGCHLD, containment */
	uint64_t		  held_timer;	/* stores held partial lines */
	uint64_t		  probe_timer;	/* the input probes, 0: none */
	int64_t			  probe_due;	/* when it fires */
	struct jobtable_sub	  subs[JOBTABLE_MAX_SUBS];
	const struct jobtable_policy *policy;	/* NULL: every job may go */
	void			 *policy_arg;
	struct jobtable_group	 *groups;	/* limits, any order */
	int			  ngroups;
	uint64_t		  queue_seq;	/* the next job queued gets it */
	int			  starting;	/* in jobtable_start_queued() */
	int			  rechecking;	/* in jobtable_recheck() */
	int			  recheck_again;	/* asked for meanwhile */
	char			  buf[JOBTABLE_READ_CHUNK];
};

static void	jobtable_fd_cb(int, short, void *);
static void	jobtable_err_cb(int, short, void *);
static void	jobtable_unwatch(struct jobtable_entry *);
static void	jobtable_reaped_cb(void *);
static void	jobtable_exited_cb(struct proc *, int, void *);
static void	jobtable_stopped_cb(struct proc *, int, void *);
static void	jobtable_killed_cb(struct proc *, void *);
static void	jobtable_stop_done_cb(struct proc *, int, void *);
static int	jobtable_in_grace(struct jobtable_entry *);
static struct jobtable_entry *jobtable_entry(const struct jobtable *,
		    const struct job *);
static void	jobtable_cancel_timers(struct jobtable_entry *);
static int	jobtable_live(const struct jobtable_entry *);
static void	jobtable_started(struct jobtable_entry *);
static void	jobtable_after_exit(struct jobtable_entry *);
static void	jobtable_trim_finished(struct jobtable *);
static int	jobtable_name_taken(struct jobtable *, const char *,
		    const struct job *, char **);
static void	jobtable_start_queued(struct jobtable *);
static void	jobtable_release_held(struct jobtable *);
static void	jobtable_stop_close(struct jobtable_entry *);
static struct job *jobtable_find_id(const struct jobtable *, int);

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

/* What a stop command tells the table. */
static const struct proc_cbs jobtable_stop_cbs = {
	.exited = jobtable_stop_done_cb,
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

/* The events with nothing but a job to tell. */
enum jobtable_event {
	JOBTABLE_STARTED,
	JOBTABLE_EXITED,
	JOBTABLE_QUEUED,
	JOBTABLE_CHANGED,
	JOBTABLE_REMOVED
};

/*
 * Tell every subscriber that a job started, ended, was queued, changed
 * state while running (stopped, continued) or is removed.
 */
static void
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

/* Tell every subscriber about a piece of output. */
static void
jobtable_emit_output(struct jobtable *jt, struct job *job, const char *buf,
    size_t len)
{
	int	i;

	for (i = 0; i < JOBTABLE_MAX_SUBS; i++) {
		if (jt->subs[i].cbs != NULL && jt->subs[i].cbs->output != NULL)
			jt->subs[i].cbs->output(job, buf, len, jt->subs[i].arg);
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
		if (!job_is_running(e->job) || !job_is_pty(e->job)) {
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
static void
jobtable_output(struct jobtable_entry *e, const char *buf, size_t len)
{
	struct jobtable	*jt = e->jt;
	struct job	*job = e->job;

	jobtable_emit_output(jt, job, buf, len);
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
		loop_set_events(jt->loop, out_fd, e->hung ? 0 :
		    POLLIN | (pending ? POLLOUT : 0));
		return;
	}
	if (e->out_fd == -1) {
		loop_watch_fd(jt->loop, out_fd, e->hung ? 0 : POLLIN,
		    jobtable_fd_cb, e);
		e->out_fd = out_fd;
	}
	if (pending && in_fd != -1 && e->in_fd == -1) {
		loop_watch_fd(jt->loop, in_fd, POLLOUT, jobtable_fd_cb, e);
		e->in_fd = in_fd;
	}
	if (e->err_fd == -1 && !e->err_eof && job_err_fd(e->job) != -1) {
		e->err_fd = job_err_fd(e->job);
		loop_watch_fd(jt->loop, e->err_fd, POLLIN, jobtable_err_cb, e);
	}
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
	while (done < budget) {
		n = job_read_err(e->job, jt->buf, sizeof jt->buf);
		if (n > 0) {
			done += (size_t)n;
			jobtable_output(e, jt->buf, (size_t)n);
			continue;
		}
		if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
			loop_unwatch_fd(jt->loop, e->err_fd);
			e->err_fd = -1;
			e->err_eof = 1;
			return 0;
		}
		break;
	}
	return 1;
}

/* Handle readiness on a job's own stderr pipe. */
static void
jobtable_err_cb(int fd, short revents, void *arg)
{
	(void)fd;
	(void)revents;
	jobtable_drain_err(arg, JOBTABLE_READ_BUDGET);
}

/* Stop watching every fd of the entry's run. */
static void
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

	while (done < budget) {
		n = job_read(e->job, jt->buf, sizeof jt->buf);
		if (n > 0) {
			done += (size_t)n;
			jobtable_output(e, jt->buf, (size_t)n);
			if (sliced &&
			    jobtable_now_ns() - start > JOBTABLE_READ_SLICE_NS)
				break;
			continue;
		}
		if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
			if (job_is_running(e->job)) {
				/*
				 * The child closed its side but lives on:
				 * closing a pty master now would hang it up
				 * (SIGHUP), so keep the fd, unpolled, until
				 * the child is reaped.
				 */
				e->hung = 1;
				loop_set_events(jt->loop, e->out_fd, 0);
				return 0;
			}
			/* Nothing can write to it any more. */
			while (jobtable_drain_err(e, JOBTABLE_READ_BUDGET))
				;
			jobtable_unwatch(e);
			job_close_output(e->job);
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

/* Return the limit of group (0: none). */
static int
jobtable_group_limit(const struct jobtable *jt, const char *group)
{
	int	i;

	for (i = 0; group != NULL && i < jt->ngroups; i++) {
		if (strcmp(jt->groups[i].name, group) == 0)
			return jt->groups[i].max_running;
	}
	return 0;
}

/* Return whether fewer jobs of the entry's group run than its limit. */
static int
jobtable_group_room(struct jobtable *jt, struct jobtable_entry *e)
{
	const char	*group = job_spec(e->job)->group, *other;
	int		 limit, i, n = 0;

	if ((limit = jobtable_group_limit(jt, group)) == 0)
		return 1;
	for (i = 0; i < jt->count; i++) {
		if (!job_is_running(jt->entries[i]->job))
			continue;
		other = job_spec(jt->entries[i]->job)->group;
		if (other != NULL && strcmp(other, group) == 0)
			n++;
	}
	return n < limit;
}

/*
 * Return whether the entry's job may run now as far as the limits go:
 * fewer than max_running jobs run, and fewer than its group's limit of
 * its group.
 */
static int
jobtable_room(struct jobtable *jt, struct jobtable_entry *e)
{
	if (jt->max_running > 0 && jobtable_running(jt) >= jt->max_running)
		return 0;
	return jobtable_group_room(jt, e);
}

/* Return whether queued a starts before queued b: priority, then FIFO. */
static int
jobtable_before(struct jobtable_entry *a, struct jobtable_entry *b)
{
	int	pa = job_spec(a->job)->priority, pb = job_spec(b->job)->priority;

	return pa > pb || (pa == pb && a->queue_seq < b->queue_seq);
}

/* Put the entry's job in the queue (the back of its priority). */
static void
jobtable_enqueue(struct jobtable_entry *e)
{
	job_set_queued(e->job);
	e->queue_seq = e->jt->queue_seq++;
}

/*
 * Ask the policy whether the entry's job may start now (fresh: it was just
 * made, and nobody has heard of it yet).  A job told to wait is held
 * JOB_WAITING with the reason, and subscribers are told: of a fresh job
 * as of a queued one, else of a change when the reason is new.  A job
 * told it cannot start ends failed with the reason as its start error;
 * subscribers hear of its end.  Returns what the policy said.
 */
static enum jobtable_gate
jobtable_gate(struct jobtable_entry *e, int fresh)
{
	struct jobtable		*jt = e->jt;
	struct job		*job = e->job;
	const struct jobtable_policy *p = jt->policy;
	enum jobtable_gate	 gate;
	const char		*old;
	char			*why = NULL;
	int			 same;

	if (p == NULL || p->may_start == NULL)
		return JOBTABLE_GO;
	gate = p->may_start(job, &why, jt->policy_arg);
	switch (gate) {
	case JOBTABLE_WAIT:
		old = job_wait_reason(job);
		same = job_state(job) == JOB_WAITING && (old == why ||
		    (old != NULL && why != NULL && strcmp(old, why) == 0));
		job_set_waiting(job, why);
		debuglog("job %d waits: %s", job_id(job), why != NULL ? why :
		    "(no reason)");
		free(why);
		if (fresh)
			jobtable_emit(jt, JOBTABLE_QUEUED, job);
		else if (!same)
			jobtable_emit(jt, JOBTABLE_CHANGED, job);
		return JOBTABLE_WAIT;
	case JOBTABLE_FAIL:
		/* What is left of an earlier run's output is over too. */
		jobtable_unwatch(e);
		job_close_output(job);
		job_set_start_error(job, why, loop_now_ms());
		debuglog("job %d cannot start: %s", job_id(job), why != NULL ?
		    why : "(no reason)");
		free(why);
		if (fresh)
			jobtable_emit(jt, JOBTABLE_QUEUED, job);
		jobtable_emit(jt, JOBTABLE_EXITED, job);
		return JOBTABLE_FAIL;
	default:
		free(why);
		return JOBTABLE_GO;
	}
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
	jt->entries[jt->count++] = e;

	if (jobtable_gate(e, 1) != JOBTABLE_GO)
		return job;
	if (!jobtable_room(jt, e)) {
		jobtable_enqueue(e);
		debuglog("job %d queued: %s", id, job_command(job));
		jobtable_emit(jt, JOBTABLE_QUEUED, job);
		return job;
	}
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
static void
jobtable_started(struct jobtable_entry *e)
{
	struct jobtable		*jt = e->jt;
	const struct job_spec	*spec = job_spec(e->job);

	e->hung = 0;
	e->stopping = 0;
	e->err_eof = 0;
	e->held = 0;
	jobtable_update_watch(e);
	jobtable_probe_reset(e);
	if (spec->timeout_ms > 0)
		e->timeout_timer = loop_add_timer(jt->loop, spec->timeout_ms,
		    jobtable_timeout_cb, e);
	jobtable_emit(jt, JOBTABLE_STARTED, e->job);
}

/*
 * Start an entry's job again once the policy lets it (else it waits, or
 * ends failed), or queue it when there is no room for it; a job that
 * cannot start ends as failed (exit 127) with the reason in its log's
 * error.
 */
static void
jobtable_start_entry(struct jobtable_entry *e)
{
	struct jobtable	*jt = e->jt;
	char		*cause = NULL;

	if (e->stop != NULL) {
		/* The last run's stop command is still at work. */
		e->start_pending = 1;
		return;
	}
	if (jobtable_gate(e, 0) != JOBTABLE_GO)
		return;
	if (!jobtable_room(jt, e)) {
		jobtable_enqueue(e);
		jobtable_emit(jt, JOBTABLE_QUEUED, e->job);
		return;
	}
	/* What is left of the last run in its grace goes now. */
	if (jobtable_in_grace(e))
		proc_kill(job_proc(e->job));
	/* The last run's fds are closed by job_start: unwatch them first. */
	jobtable_unwatch(e);
	if (job_start(e->job, jt->rows, jt->cols, jt->env, &cause) != 0) {
		job_set_start_error(e->job, cause, loop_now_ms());
		free(cause);
		jobtable_emit(jt, JOBTABLE_EXITED, e->job);
		return;
	}
	jobtable_started(e);
}

/*
 * Start queued jobs while there is room: the highest priority first, then
 * the one queued first; a job whose group is full waits without holding
 * up the others.  Calls made while it runs (from subscribers) leave the
 * work to it: it looks again after every start.
 */
static void
jobtable_start_queued(struct jobtable *jt)
{
	struct jobtable_entry	*e, *best;
	int			 i;

	if (jt->starting)
		return;
	jt->starting = 1;
	for (;;) {
		if (jt->max_running > 0 &&
		    jobtable_running(jt) >= jt->max_running)
			break;
		best = NULL;
		for (i = 0; i < jt->count; i++) {
			e = jt->entries[i];
			if (job_state(e->job) != JOB_QUEUED ||
			    (best != NULL && !jobtable_before(e, best)) ||
			    !jobtable_group_room(jt, e))
				continue;
			best = e;
		}
		if (best == NULL)
			break;
		jobtable_start_entry(best);
	}
	jt->starting = 0;
}

/* A restart delay is over: run the job again. */
static void
jobtable_restart_cb(void *arg)
{
	struct jobtable_entry	*e = arg;

	e->restart_timer = 0;
	jobtable_start_entry(e);
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
static void
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

/*
 * Return whether the job's run that just ended was stable: with a backoff
 * (restart_delay_max_ms above restart_delay_ms), longer than its cap and
 * at least its delay.
 */
static int
jobtable_run_stable(struct job *job)
{
	const struct job_spec	*spec = job_spec(job);
	int64_t			 ran = job_duration_ms(job, loop_now_ms());

	return spec->restart_delay_max_ms > spec->restart_delay_ms &&
	    ran > spec->restart_delay_max_ms && ran >= spec->restart_delay_ms;
}

/*
 * After a job ended: start it again if the user asked or its policy says
 * so (after the backoff's delay; a stable run starts the count again),
 * else perhaps drop old finished jobs; then fill the free slot.
 */
static void
jobtable_after_exit(struct jobtable_entry *e)
{
	struct jobtable	*jt = e->jt;
	int64_t		 delay;

	if (e->timeout_timer != 0) {
		loop_cancel_timer(jt->loop, e->timeout_timer);
		e->timeout_timer = 0;
	}
	if (jobtable_run_stable(e->job))
		job_clear_starts(e->job);
	if (e->restart_asked) {
		e->restart_asked = 0;
		job_clear_starts(e->job);
		jobtable_start_entry(e);
	} else if (job_restart_due(e->job)) {
		delay = job_restart_delay_ms(e->job);
		debuglog("job %d: restart in %lld ms", job_id(e->job),
		    (long long)delay);
		e->restart_timer = loop_add_timer(jt->loop, delay,
		    jobtable_restart_cb, e);
	}
	jobtable_start_queued(jt);
	jobtable_trim_finished(jt);
}

/* Return a live job other than job that has job's name, or NULL. */
static struct job *
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

/*
 * Run a job again with its original spec, as the same id: at once if it
 * has ended (or waits), else once the SIGTERM sent now has ended it.  An
 * ended job whose name a live job has taken since cannot run again.
 */
int
jobtable_restart(struct jobtable *jt, struct job *job, char **cause)
{
	struct jobtable_entry	*e;
	struct job		*other;

	if ((e = jobtable_entry(jt, job)) == NULL) {
		*cause = xprintf("no such job");
		return -1;
	}
	if ((other = jobtable_namesake(jt, job)) != NULL) {
		*cause = xprintf("a job named %s is running already (job %d)",
		    job_name(job), job_id(other));
		return -1;
	}
	if (job_is_running(job)) {
		if (jobtable_kill(jt, job, SIGTERM) != 0 && errno == ESRCH) {
			*cause = xprintf("job %d cannot be stopped",
			    job_id(job));
			return -1;
		}
		/* After the kill, which calls off any earlier restart. */
		e->restart_asked = 1;
		return 0;
	}
	if (e->restart_timer != 0) {
		loop_cancel_timer(jt->loop, e->restart_timer);
		e->restart_timer = 0;
	}
	job_clear_starts(job);
	if (job_state(job) == JOB_QUEUED)
		return 0;
	jobtable_start_entry(e);
	return 0;
}

/* Let at most n jobs run at once (0: no limit); the rest wait queued. */
void
jobtable_set_max_running(struct jobtable *jt, int n)
{
	jt->max_running = n > 0 ? n : 0;
	jobtable_start_queued(jt);
}

/* Keep at most n finished jobs (-1: all), dropping the oldest first. */
void
jobtable_set_keep_finished(struct jobtable *jt, int n)
{
	jt->keep_finished = n < 0 ? -1 : n;
	jobtable_trim_finished(jt);
}

/* Return the entry holding job, or NULL. */
static struct jobtable_entry *
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

/* Return how many jobs are running. */
int
jobtable_running(const struct jobtable *jt)
{
	int	i, n = 0;

	for (i = 0; i < jt->count; i++)
		n += job_is_running(jt->entries[i]->job);
	return n;
}

/* Return the time from a stop of the entry's job to its SIGKILL. */
static int64_t
jobtable_job_grace(struct jobtable_entry *e)
{
	const struct job_spec	*spec = job_spec(e->job);

	return spec->stop_timeout_ms > 0 ? spec->stop_timeout_ms :
	    e->jt->grace_ms;
}

/*
 * Return whether the entry's last run is in the grace of a stop (SIGKILL
 * is to come).
 */
static int
jobtable_in_grace(struct jobtable_entry *e)
{
	struct proc	*p = job_proc(e->job);

	return p != NULL && proc_stopping(p);
}

/*
 * A job's grace period is over and the proc layer has sent SIGKILL to its
 * group and emptied its cgroup: its stop command goes too, and an ended
 * job may then leave the panel.
 */
static void
jobtable_killed_cb(struct proc *p, void *arg)
{
	struct jobtable_entry	*e = arg;

	(void)p;
	if (e->stop != NULL)
		proc_kill(e->stop);
	if (!job_is_running(e->job))
		jobtable_trim_finished(e->jt);
}

/*
 * Stop what is left of a run whose leader exited by itself (not through a
 * kill that ends in SIGKILL, which sees to the rest): SIGTERM (and
 * SIGCONT) to its group and its cgroup, SIGKILL after the grace period.
 */
static void
jobtable_stop_leftovers(struct jobtable_entry *e)
{
	if (e->stopping || jobtable_in_grace(e) || !job_lingers(e->job))
		return;
	proc_stop(job_proc(e->job), SIGTERM, jobtable_job_grace(e));
}

/* Close the entry's stop command's output, if it is open. */
static void
jobtable_stop_close(struct jobtable_entry *e)
{
	if (e->stop_fd == -1)
		return;
	loop_unwatch_fd(e->jt->loop, e->stop_fd);
	close(e->stop_fd);
	e->stop_fd = -1;
}

/*
 * Read what the entry's stop command wrote (up to the read budget) and
 * show it as the job's; close it at its end, or once the command has
 * ended and nothing more is there.
 */
static void
jobtable_stop_read(struct jobtable_entry *e)
{
	struct jobtable	*jt = e->jt;
	ssize_t		 n;
	size_t		 done = 0;

	while (e->stop_fd != -1 && done < JOBTABLE_READ_BUDGET) {
		do
			n = read(e->stop_fd, jt->buf, sizeof jt->buf);
		while (n == -1 && errno == EINTR);
		if (n > 0) {
			done += (size_t)n;
			job_feed(e->job, jt->buf, (size_t)n);
			jobtable_output(e, jt->buf, (size_t)n);
			continue;
		}
		if (n == -1 && errno == EAGAIN && e->stop != NULL)
			return;
		jobtable_stop_close(e);
	}
}

/* Handle readiness on a stop command's output. */
static void
jobtable_stop_fd_cb(int fd, short revents, void *arg)
{
	struct jobtable_entry	*e = arg;

	(void)fd;
	(void)revents;
	jobtable_stop_read(e);
}

/*
 * The entry's stop command ended: show the rest of what it wrote; if it
 * failed while the job runs on in its grace, the stop signal goes now.
 * A start put off until it ended goes ahead.
 */
static void
jobtable_stop_done_cb(struct proc *p, int status, void *arg)
{
	struct jobtable_entry	*e = arg;
	struct jobtable		*jt = e->jt;
	struct job		*job = e->job;
	pid_t			 pid = proc_pid(p);
	char			 buf[64];
	int			 sig;

	e->stop = NULL;
	jobtable_stop_read(e);
	/* Nothing it left behind outlives it. */
	proc_release(p);
	debuglog("job %d: stop command %ld ended: %s", job_id(job),
	    (long)pid, waitstatus_short(status, buf, sizeof buf));
	if (job_is_running(job) && jobtable_in_grace(e) &&
	    (!WIFEXITED(status) || WEXITSTATUS(status) != 0)) {
		sig = job_spec(job)->stop_signal;
		if (sig <= 0)
			sig = SIGTERM;
		if (job_signal(job, sig) == 0)
			job_signal(job, SIGCONT);
		job_signal_escapees(job, sig);
	}
	if (e->start_pending) {
		e->start_pending = 0;
		jobtable_start_entry(e);
	} else if (!job_is_running(job))
		jobtable_trim_finished(jt);
}

/*
 * Run the entry's stop command: SHELL -c COMMAND in the job's cwd and
 * environment, on pipes with stdin from /dev/null, its output shown as
 * the job's, a supervised process of its own (contained apart from the
 * job) whose end is told to jobtable_stop_done_cb().  0, or -1 when it
 * cannot be run.  One that runs already goes on.
 */
static int
jobtable_stop_command(struct jobtable_entry *e)
{
	struct jobtable		*jt = e->jt;
	const struct job_spec	*spec = job_spec(e->job);
	struct pty_spec		 ps;
	struct pty_child	 child;
	struct proc		*p;
	char			*argv[4], *cause = NULL;

	if (e->stop != NULL)
		return 0;
	jobtable_stop_close(e);
	argv[0] = (char *)spec->shell;
	argv[1] = (char *)"-c";
	argv[2] = (char *)spec->stop_command;
	argv[3] = NULL;
	p = proc_new(jt->reaper, proc_reaper_cgroup(jt->reaper),
	    job_id(e->job), &jobtable_stop_cbs, e);
	memset(&ps, 0, sizeof ps);
	ps.path = spec->shell;
	ps.argv = argv;
	ps.envp = spec->envp;
	ps.cwd = spec->cwd;
	ps.rows = 24;
	ps.cols = 80;
	ps.no_pty = 1;
	ps.null_stdin = 1;
	memset(&child, 0, sizeof child);
	if (proc_spawn(p, &ps, &child, &cause) != 0) {
		proc_free(p);
		debuglog("job %d: stop command: %s", job_id(e->job), cause);
		free(cause);
		return -1;
	}
	e->stop = p;
	e->stop_fd = child.out_fd;
	if (child.in_fd != -1)
		close(child.in_fd);
	loop_watch_fd(jt->loop, e->stop_fd, POLLIN, jobtable_stop_fd_cb, e);
	debuglog("job %d: stop command %ld: %s", job_id(e->job),
	    (long)child.pid, spec->stop_command);
	return 0;
}

/* End a queued or waiting job, which never ran this time, as canceled. */
static void
jobtable_cancel_unstarted(struct jobtable_entry *e)
{
	job_set_cancel(e->job);
	job_set_exited(e->job, WAITSTATUS_NONE, loop_now_ms());
}

/*
 * Signal an entry's job (see jobtable_kill()); a stop (SIGTERM) of a
 * running job is its stop command or stop signal.  For a failure
 * (jobtable_fail()) it ends failed, not canceled, and nothing pending is
 * called off.
 */
static int
jobtable_signal(struct jobtable_entry *e, int sig, int failure)
{
	struct jobtable	*jt = e->jt;
	struct job	*job = e->job;
	int		 stop, group, send = sig, command = 0;

	stop = sig == SIGTERM || sig == SIGKILL || sig == SIGINT ||
	    sig == SIGHUP || sig == SIGQUIT;
	/*
	 * Only a signal that stops a job reaches one that does not run (it
	 * cancels a queued or waiting job or a pending restart, and what an
	 * ended one left); SIGSTOP, SIGCONT, SIGUSR1... need a running job.
	 */
	if (!stop && !job_is_running(job)) {
		errno = ESRCH;
		return -1;
	}
	if (job_state(job) == JOB_QUEUED || job_state(job) == JOB_WAITING) {
		jobtable_cancel_unstarted(e);
		jobtable_emit(jt, JOBTABLE_EXITED, job);
		return 0;
	}
	if (e->restart_timer != 0 || e->start_pending) {
		/* Waiting to run again: it stays ended, no longer live. */
		if (e->restart_timer != 0)
			loop_cancel_timer(jt->loop, e->restart_timer);
		e->restart_timer = 0;
		e->start_pending = 0;
		jobtable_emit(jt, JOBTABLE_CHANGED, job);
		return 0;
	}
	/* An ended job's escapees may be left in its cgroup. */
	group = job_signal(job, 0) == 0;
	if (!group && !(stop && job_lingers(job))) {
		errno = ESRCH;
		return -1;
	}
	if (stop && failure)
		job_set_fail(job);
	else if (stop) {
		/* The user stops it: a restart still pending is called off. */
		job_set_cancel(job);
		e->restart_asked = 0;
	}
	if (stop)
		e->held = 0;
	if (sig == SIGTERM && job_is_running(job)) {
		/* A stop: the job's own way, if it has one. */
		if (job_spec(job)->stop_command != NULL &&
		    jobtable_stop_command(e) == 0)
			command = 1;
		else if (job_spec(job)->stop_signal > 0)
			send = job_spec(job)->stop_signal;
	}
	if (!command) {
		if (group && job_signal(job, send) == -1)
			return -1;
		debuglog("job %d: signal %d to its group", job_id(job), send);
		if (stop)
			job_signal_escapees(job, send);
	}
	if (sig == SIGKILL)
		e->stopping = 1;
	if (sig == SIGTERM || sig == SIGHUP || sig == SIGINT) {
		e->stopping = 1;
		/* A stopped group never sees the signal otherwise. */
		if (group)
			job_signal(job, SIGCONT);
		/* SIGKILL after the grace, unless one runs already. */
		proc_stop(job_proc(job), 0, jobtable_job_grace(e));
	}
	return 0;
}

/*
 * Signal a job's group, and for the signals that stop it (TERM, HUP, INT,
 * QUIT, KILL) its processes that left the group too; for SIGTERM, SIGHUP
 * and SIGINT, SIGKILL after the grace period (the job's stop_timeout, if
 * it has one).  SIGTERM is a stop: a running job with a stop_command runs
 * it instead, one with a stop_signal gets that.  A queued or waiting job
 * ends canceled at once.
 */
int
jobtable_kill(struct jobtable *jt, struct job *job, int sig)
{
	struct jobtable_entry	*e;

	if ((e = jobtable_entry(jt, job)) == NULL) {
		errno = ESRCH;
		return -1;
	}
	return jobtable_signal(e, sig, 0);
}

/*
 * Stop a running job for a failure (a liveness probe's): why becomes its
 * note, the stop is its own (as jobtable_kill()'s SIGTERM) and it ends
 * failed, so its restart policy applies.  A queued or waiting job ends
 * failed at once with why as its start error.  -1 (ESRCH) if it has
 * ended.
 */
int
jobtable_fail(struct jobtable *jt, struct job *job, const char *why)
{
	struct jobtable_entry	*e;
	int			 rc;

	if ((e = jobtable_entry(jt, job)) == NULL || (!job_is_running(job) &&
	    job_state(job) != JOB_QUEUED && job_state(job) != JOB_WAITING)) {
		errno = ESRCH;
		return -1;
	}
	debuglog("job %d fails: %s", job_id(job), why != NULL ? why : "");
	job_set_note(job, why);
	if (!job_is_running(job)) {
		job_set_start_error(job, why, loop_now_ms());
		jobtable_emit(jt, JOBTABLE_EXITED, job);
		return 0;
	}
	rc = jobtable_signal(e, SIGTERM, 1);
	jobtable_emit(jt, JOBTABLE_CHANGED, job);
	return rc;
}

/* Return whether the policy says the entry's job must stop later. */
static int
jobtable_stop_later(struct jobtable_entry *e)
{
	const struct jobtable_policy	*p = e->jt->policy;

	return p != NULL && p->stop_later != NULL &&
	    p->stop_later(e->job, e->jt->policy_arg);
}

/*
 * Stop the jobs kill_all holds that stop_later lets go now; when nothing
 * but held jobs runs (nothing left whose end could change an answer),
 * stop every held job.
 */
static void
jobtable_release_held(struct jobtable *jt)
{
	struct jobtable_entry	*e;
	int			 i, held = 0, others = 0;

	for (i = 0; i < jt->count; i++) {
		e = jt->entries[i];
		if (!e->held)
			continue;
		if (!job_is_running(e->job))
			e->held = 0;
		else if (!jobtable_stop_later(e))
			jobtable_signal(e, SIGTERM, 0);
	}
	for (i = 0; i < jt->count; i++) {
		e = jt->entries[i];
		if (job_is_running(e->job)) {
			if (e->held)
				held++;
			else
				others++;
		}
	}
	if (held == 0 || others > 0)
		return;
	for (i = 0; i < jt->count; i++) {
		e = jt->entries[i];
		if (e->held) {
			debuglog("job %d: stopped, though held", job_id(e->job));
			jobtable_signal(e, SIGTERM, 0);
		}
	}
}

/* Return the job with id, or NULL. */
static struct job *
jobtable_find_id(const struct jobtable *jt, int id)
{
	int	i;

	for (i = 0; i < jt->count; i++) {
		if (job_id(jt->entries[i]->job) == id)
			return jt->entries[i]->job;
	}
	return NULL;
}

/*
 * Stop every job: queued and waiting ones end canceled at once; running
 * ones get their stop (see jobtable_kill()), all at once, but for those
 * the policy's stop_later holds until it lets them go (asked again after
 * every exit).  Returns how many jobs it stops (held ones too).
 */
int
jobtable_kill_all(struct jobtable *jt)
{
	struct jobtable_entry	*e;
	struct job		*job;
	int			*ids, nids = 0, i, n = 0;

	/* Every one in the queue ends before anyone is told: none starts. */
	ids = xcalloc((size_t)jt->count + 1, sizeof *ids);
	for (i = 0; i < jt->count; i++) {
		e = jt->entries[i];
		if (job_state(e->job) == JOB_QUEUED ||
		    job_state(e->job) == JOB_WAITING) {
			jobtable_cancel_unstarted(e);
			ids[nids++] = job_id(e->job);
			n++;
		} else if (!job_is_running(e->job) &&
		    jobtable_signal(e, SIGTERM, 0) == 0)
			n++;
	}
	for (i = 0; i < jt->count; i++) {
		e = jt->entries[i];
		if (!job_is_running(e->job))
			continue;
		if (!e->stopping && jobtable_stop_later(e)) {
			debuglog("job %d: held until others stop",
			    job_id(e->job));
			e->held = 1;
			job_set_cancel(e->job);
			e->restart_asked = 0;
			n++;
		} else if (jobtable_signal(e, SIGTERM, 0) == 0)
			n++;
	}
	jobtable_release_held(jt);
	for (i = 0; i < nids; i++) {
		if ((job = jobtable_find_id(jt, ids[i])) != NULL)
			jobtable_emit(jt, JOBTABLE_EXITED, job);
	}
	free(ids);
	jobtable_trim_finished(jt);
	return n;
}

/*
 * Return whether any job is running (held ones too), any kill is still in
 * its grace or any stop command runs.
 */
int
jobtable_busy(const struct jobtable *jt)
{
	struct jobtable_entry	*e;
	int			 i;

	for (i = 0; i < jt->count; i++) {
		e = jt->entries[i];
		if (job_is_running(e->job) || e->held || e->stop != NULL)
			return 1;
		if (jobtable_in_grace(e) && job_lingers(e->job))
			return 1;
	}
	return 0;
}

/* Set the policy asked before starts and stops (NULL: none). */
void
jobtable_set_policy(struct jobtable *jt, const struct jobtable_policy *p,
    void *arg)
{
	jt->policy = p;
	jt->policy_arg = arg;
}

/*
 * Ask the policy again for every waiting job, in id order, and start (or
 * queue, or fail) those it lets go.  A call made meanwhile (from a
 * subscriber told of a start) makes it go round once more.
 */
void
jobtable_recheck(struct jobtable *jt)
{
	struct jobtable_entry	*e;
	int			 i, last;

	if (jt->rechecking) {
		jt->recheck_again = 1;
		return;
	}
	jt->rechecking = 1;
	do {
		jt->recheck_again = 0;
		last = 0;
		for (;;) {
			/* The next waiting job after last: the table changes. */
			e = NULL;
			for (i = 0; i < jt->count; i++) {
				if (job_id(jt->entries[i]->job) > last &&
				    job_state(jt->entries[i]->job) ==
				    JOB_WAITING) {
					e = jt->entries[i];
					break;
				}
			}
			if (e == NULL)
				break;
			last = job_id(e->job);
			jobtable_start_entry(e);
		}
	} while (jt->recheck_again);
	jt->rechecking = 0;
}

/*
 * Let at most max_running jobs of group run at once (0: no limit); the
 * rest wait queued.
 */
void
jobtable_set_group_limit(struct jobtable *jt, const char *group,
    int max_running)
{
	int	i;

	for (i = 0; i < jt->ngroups; i++) {
		if (strcmp(jt->groups[i].name, group) == 0)
			break;
	}
	if (i == jt->ngroups) {
		if (max_running <= 0)
			return;
		jt->groups = xreallocarray(jt->groups, (size_t)jt->ngroups + 1,
		    sizeof *jt->groups);
		jt->groups[jt->ngroups].name = xstrdup(group);
		jt->ngroups++;
	}
	if (max_running > 0)
		jt->groups[i].max_running = max_running;
	else {
		free(jt->groups[i].name);
		jt->groups[i] = jt->groups[--jt->ngroups];
	}
	jobtable_start_queued(jt);
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

/*
 * After the loop: kill every process still parented to jobdeck (strays
 * that escaped their job's group and were reparented to this subreaper)
 * and reap them (proc_kill_strays()).
 */
void
jobtable_kill_strays(void)
{
	proc_kill_strays();
}

/* Tell every subscriber that what is shown of job changed (note, ready). */
void
jobtable_changed(struct jobtable *jt, struct job *job)
{
	jobtable_emit(jt, JOBTABLE_CHANGED, job);
}

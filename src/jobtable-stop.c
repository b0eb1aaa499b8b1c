/*
 * jobtable-stop.c: stopping the jobtable's jobs: the stop signal or
 * command, the grace, kill-all and its held jobs, the escapees.
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
 * The policy (jobtable_set_policy()) has a say in stops too:
 * jobtable_kill_all() holds a running job while stop_later says so, asks
 * again after every exit, and stops every held job at once when nothing
 * else is left running that could end (a policy that never lets go).
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "debuglog.h"
#include "job.h"
#include "jobtable.h"
#include "jobtable-private.h"
#include "loop.h"
#include "proc.h"
#include "pty.h"
#include "waitstatus.h"
#include "xmalloc.h"

static void	jobtable_stop_done_cb(struct proc *, int, void *);

/* What a stop command tells the table. */
static const struct proc_cbs jobtable_stop_cbs = {
	.exited = jobtable_stop_done_cb,
};
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
int
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
void
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
 * SIGCONT) to its group and its cgroup, SIGKILL after the grace period;
 * unless the job's owner stops it (own_leftovers).
 */
void
jobtable_stop_leftovers(struct jobtable_entry *e)
{
	if (e->stopping || jobtable_in_grace(e) ||
	    job_spec(e->job)->own_leftovers || !job_lingers(e->job))
		return;
	proc_stop(job_proc(e->job), SIGTERM, jobtable_job_grace(e));
}

/* Close the entry's stop command's output, if it is open. */
void
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
			jobtable_output(e, job_is_pty(e->job) ? STORE_TTY :
			    STORE_STDERR, jt->buf, (size_t)n);
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
void
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

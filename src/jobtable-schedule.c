/*
 * jobtable-schedule.c: when the jobtable's jobs start: the policy's
 * gate, max_running, the groups' limits, the priority queue and the
 * restart backoff.  jobtable_schedule() is the one place a start is
 * decided: jobtable_spawn() and every later start ask it.
 *
 * The policy (jobtable_set_policy()) is asked before every start:
 * jobtable_spawn(), the queue, jobtable_restart() and the restart
 * policy's timer; a job it holds is JOB_WAITING until jobtable_recheck()
 * lets it go.  A job with no room (max_running, its group's limit) is
 * queued; the queue starts the highest priority first, then the one
 * queued first, passing over a job whose group is full.  Restarts by
 * policy wait job_restart_delay_ms() (the backoff), and a stable run
 * (longer than the backoff's cap) starts the count again.
 */
#include <sys/types.h>

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "debuglog.h"
#include "host.h"
#include "job.h"
#include "jobtable.h"
#include "jobtable-private.h"
#include "loop.h"
#include "proc.h"
#include "xmalloc.h"

static void	jobtable_start_queued(struct jobtable *);

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
 * told it cannot start ends blocked (job_set_blocked()) with the reason;
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

	gate = JOBTABLE_GO;
	if (p != NULL && p->may_start != NULL)
		gate = p->may_start(job, &why, jt->policy_arg);
	if (gate == JOBTABLE_GO && jt->hosts != NULL &&
	    job_spec(job)->host != NULL) {
		switch (hosts_gate(jt->hosts, job_spec(job)->host, job_id(job),
		    &why)) {
		case HOST_GO:
			break;
		case HOST_WAIT:
			gate = JOBTABLE_WAIT;
			break;
		case HOST_FAIL:
			gate = JOBTABLE_FAIL;
			break;
		}
	}
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
		job_set_blocked(job, why, loop_now_ms());
		debuglog("job %d blocked: %s", job_id(job), why != NULL ?
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
 * Decide whether the entry's job starts now (fresh: it was just made, and
 * nobody has heard of it yet), the one place where a start is decided:
 * the policy's gate first (a job told to wait or to fail is left so, see
 * jobtable_gate()), then the room (max_running, its group's limit); a job
 * with no room joins the queue and subscribers are told.  Returns 1 when
 * the caller may start it.
 */
int
jobtable_schedule(struct jobtable_entry *e, int fresh)
{
	if (jobtable_gate(e, fresh) != JOBTABLE_GO)
		return 0;
	if (!jobtable_room(e->jt, e)) {
		jobtable_enqueue(e);
		debuglog("job %d queued: %s", job_id(e->job),
		    job_command(e->job));
		jobtable_emit(e->jt, JOBTABLE_QUEUED, e->job);
		return 0;
	}
	return 1;
}

/*
 * Start an entry's job again once the policy lets it (else it waits, or
 * ends failed), or queue it when there is no room for it; a job that
 * cannot start ends as failed (exit 127) with the reason in its log's
 * error.
 */
void
jobtable_start_entry(struct jobtable_entry *e)
{
	struct jobtable	*jt = e->jt;
	char		*cause = NULL;

	if (e->stop != NULL) {
		/* The last run's stop command is still at work. */
		e->start_pending = 1;
		return;
	}
	jobtable_respec_apply(e);
	if (!jobtable_schedule(e, 0))
		return;
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
void
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

/* Give an entry's job the spec jobtable_respec() left for its next start. */
void
jobtable_respec_apply(struct jobtable_entry *e)
{
	if (e->respec == NULL)
		return;
	job_set_spec(e->job, job_spec(e->respec));
	job_free(e->respec);
	e->respec = NULL;
}

/*
 * Give a job a new spec (its name kept), filled in with the deck's
 * settings as jobtable_spawn() fills one: for its next start, and with
 * restart set that start comes now (jobtable_restart()).  -1 with *cause
 * when the restart cannot be.
 */
int
jobtable_respec(struct jobtable *jt, struct job *job,
    const struct job_spec *spec, int restart, char **cause)
{
	struct jobtable_entry	*e;
	struct job_spec		 full = *spec;

	if ((e = jobtable_entry(jt, job)) == NULL) {
		*cause = xprintf("no such job");
		return -1;
	}
	full.name = job_name(job);
	full.store = jt->store;
	full.store_error = jt->store_error;
	full.scrollback = jt->scrollback;
	full.no_pty = spec->no_pty || jt->no_pty;
	job_free(e->respec);
	e->respec = job_new(0, &full);
	if (!job_is_running(job) && e->stop == NULL)
		jobtable_respec_apply(e);
	if (!restart)
		return 0;
	return jobtable_restart(jt, job, cause);
}

/* Let at most n jobs run at once (0: no limit); the rest wait queued. */
void
jobtable_set_max_running(struct jobtable *jt, int n)
{
	jt->max_running = n > 0 ? n : 0;
	jobtable_start_queued(jt);
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

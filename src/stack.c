/*
 * stack.c: the configured jobs as a stack (see stack.h).  The stack is
 * the jobtable's policy: its gate holds a configured job (JOB_WAITING)
 * until each depends_on condition holds over every replica of the job
 * depended on, then for its start_delay, and fails it when a condition
 * can never hold; its stop_later keeps a job running while a running job
 * depends on it.  It subscribes to the table to run each run's probes,
 * and to recheck the gate after every start, readiness and exit (on the
 * next turn, never inside the table's own calls).
 *
 * Every configured job has a slot per replica (one when it has none);
 * a slot points to its latest job in the table and, once the table has
 * forgotten that job, remembers how it ended, so a job depending on a
 * migration that completed can still start after the migration left the
 * panel.  A job of the table is known by its run (struct stack_run),
 * made when the stack spawns it and forgotten when the table removes it.
 */
#include <sys/wait.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "browser.h"
#include "config.h"
#include "debuglog.h"
#include "http.h"
#include "job.h"
#include "jobtable.h"
#include "launch.h"
#include "loop.h"
#include "probe.h"
#include "session.h"
#include "stack.h"
#include "timetable.h"
#include "waitstatus.h"
#include "watch.h"
#include "xmalloc.h"

struct stack_slot;

/* One job of the table that came from a configured job. */
struct stack_run {
	struct stack		*st;
	struct job		*job;
	struct stack_slot	*slot;
	struct probe		*ready;		/* this run's readiness probe */
	struct probe		*live;		/* and its liveness probe */
	int			 was_ready;	/* this run passed readiness */
	int64_t			 held_since;	/* held before a start, since */
	int64_t			 waited_ms;	/* before its last start; -1 */
	uint64_t		 delay_timer;	/* start_delay, 0: none armed */
	int			 delayed;	/* start_delay is over */

#define STACK_STOP_ASKED	1	/* !kill-group: stop it once no */
#define STACK_STOP_SENT		2	/*   job being stopped needs it */
	int			 stopping;
	char			*await;		/* a reload restarted the job */
						/*   named: held until it */
						/*   starts again, or NULL */
};

/* A count of replicas !scale gave a configured job, over its file's. */
struct stack_scale {
	char			*name;
	int			 replicas;
};

/* One replica of a configured job (the job itself without replicas). */
struct stack_slot {
	const struct config_job	*cj;
	int			 replica;	/* 1..N; 0: no replicas */
	struct stack_run	*cur;		/* its latest job, or NULL */
	char			*print;		/* what its job was launched */
	size_t			 nprint;	/*   with (stack_print()) */
	int			 after_leave;	/* a leaving job has its name: */
						/*   start once that has gone */

	/* How its last job ended, once the table forgot it. */
	int			 gone;
	enum job_state		 gone_state;
	int			 gone_status;
	int			 gone_ran;
	int			 gone_ready;
};

/* The files watched for one configured job. */
struct stack_watch {
	struct stack		*st;
	const struct config_job	*cj;
	struct watch		*w;
};

struct stack {
	struct loop		 *loop;
	struct jobtable		 *jt;
	const struct config	 *config;
	struct session		 *session;
	struct http		 *http;		/* the caller's, or */
	int			  own_http;	/*   made here on first need */
	struct browser		 *browser;	/* depends_on browser; or NULL */
	char			 *dir;		/* the config file's dir */
	int			  sub;		/* the table subscription */

	struct stack_slot	 *slots;	/* never moved: runs point */
	size_t			  nslots;	/*   into it */
	struct stack_run	**runs;
	size_t			  nruns;
	size_t			  aruns;
	struct stack_slot	 *spawning;	/* the slot being spawned */
	struct stack_run	 *spawned;	/*   and its new run */

	struct stack_watch	 *watches;
	size_t			  nwatches;
	char			 *watch_errors;	/* said by stack_start_all() */

	uint64_t		  tick_timer;	/* the next turn's work */
	int			  recheck;	/* ask the gate again then */

	struct job		**leaving;	/* jobs a reload took out of */
	size_t			  nleaving;	/*   the stack: removed from */
	uint64_t		  leave_timer;	/*   the table once ended */
	struct stack_scale	 *scales;	/* !scale's counts, by name */
	size_t			  nscales;

	struct timetable	 *timetable;	/* jobs on a timer */
};

/* What is known of one replica of a job depended on. */
struct stack_facts {
	int		exists;		/* it has (or had) a job */
	int		running;
	int		ready;		/* running and ready */
	int		ended;
	int		ran;		/* its last run had a process */
	int		was_ready;	/* its last run was ready once */
	int		pending;	/* ended, but a restart will come */
	enum job_state	state;
	int		status;
};

static enum jobtable_gate stack_may_start(struct job *, char **, void *);
static int	stack_stop_later(struct job *, void *);
static void	stack_job_started(struct job *, void *);
static void	stack_job_output(struct job *, const char *, size_t, void *);
static void	stack_job_exited(struct job *, void *);
static void	stack_job_changed(struct job *, void *);
static void	stack_job_removed(struct job *, void *);
static void	stack_ready_result(struct probe *, int, const char *, void *);
static void	stack_ready_attempt(struct probe *, int, const char *, void *);
static void	stack_live_result(struct probe *, int, const char *, void *);
static void	stack_watch_changed(const char *, void *);
static void	stack_stop_pending(struct stack *);
static int	stack_leaving_index(const struct stack *, const struct job *);
static void	stack_leave_soon(struct stack *);
static int	stack_cj_live(struct stack *, const struct config_job *);
static void	stack_release_awaits(struct stack *, const char *, int);
static int	stack_schedule_busy(const struct config_job *, void *);
static void	stack_schedule_fire(const struct config_job *, void *);
static void	stack_start_after_leave(struct stack *);

static const struct jobtable_policy stack_policy = {
	.may_start = stack_may_start,
	.stop_later = stack_stop_later,
};

static const struct jobtable_cbs stack_cbs = {
	.started = stack_job_started,
	.output = stack_job_output,
	.exited = stack_job_exited,
	.changed = stack_job_changed,
	.removed = stack_job_removed,
};

static const struct probe_cbs stack_ready_cbs = {
	.result = stack_ready_result,
	.attempt = stack_ready_attempt,
};

static const struct probe_cbs stack_live_cbs = {
	.result = stack_live_result,
};

static const struct watch_cbs stack_watch_cbs = {
	.changed = stack_watch_changed,
};

static const struct timetable_cbs stack_schedule_cbs = {
	.busy = stack_schedule_busy,
	.fire = stack_schedule_fire,
};

/* Return whether a probe is configured (one of its kinds is set). */
static int
stack_has_probe(const struct config_probe *cp)
{
	return cp->log != NULL || cp->cmd != NULL || cp->tcp != NULL ||
	    cp->http != NULL;
}

/* Return whether a job has ended (and is not waiting or queued). */
static int
stack_ended(const struct job *job)
{
	return job_is_ended(job);
}

/*
 * Let the runs held for a restarting job go: those awaiting name (NULL:
 * any), or with gone set only those whose job has no live job left (its
 * restart failed); the gate decides again.
 */
static void
stack_release_awaits(struct stack *st, const char *name, int gone)
{
	const struct config_job	*cj;
	struct stack_run	*r;
	size_t			 i;

	for (i = 0; i < st->nruns; i++) {
		r = st->runs[i];
		if (r->await == NULL || (name != NULL && strcmp(r->await,
		    name) != 0))
			continue;
		if (gone && (cj = config_find_job(st->config, r->await)) !=
		    NULL && stack_cj_live(st, cj))
			continue;
		free(r->await);
		r->await = NULL;
		st->recheck = 1;
	}
}

/* The work of the next turn: ask the gate again, stop a group's jobs. */
static void
stack_tick_cb(void *arg)
{
	struct stack	*st = arg;

	st->tick_timer = 0;
	stack_release_awaits(st, NULL, 1);
	if (st->recheck) {
		st->recheck = 0;
		jobtable_recheck(st->jt);
	}
	stack_stop_pending(st);
}

/* Arrange for stack_tick_cb() to run on the next turn. */
static void
stack_soon(struct stack *st)
{
	if (st->tick_timer == 0)
		st->tick_timer = loop_add_timer(st->loop, 0, stack_tick_cb, st);
}

/* Ask the gate about every waiting job again, on the next turn. */
static void
stack_recheck(struct stack *st)
{
	st->recheck = 1;
	stack_soon(st);
}

/*
 * End a run's probes (its process ended, or it runs again); a probe may
 * be freed from its own result callback (probe.h).
 */
static void
stack_run_end_probes(struct stack_run *r)
{
	if (r->ready != NULL)
		probe_free(r->ready);
	if (r->live != NULL)
		probe_free(r->live);
	r->ready = r->live = NULL;
}

/* Call off a run's start delay. */
static void
stack_run_end_delay(struct stack_run *r)
{
	if (r->delay_timer != 0)
		loop_cancel_timer(r->st->loop, r->delay_timer);
	r->delay_timer = 0;
	r->delayed = 0;
}

/* Return the name a slot's job gets: NAME, or NAME.N for a replica. */
static char *
stack_slot_name(const struct stack_slot *s)
{
	if (s->replica > 0)
		return config_replica_name(s->cj->name, s->replica);
	return xstrdup(s->cj->name);
}

/* Return the first slot of configured job cj and how many it has. */
static struct stack_slot *
stack_slots_of(struct stack *st, const struct config_job *cj, size_t *n)
{
	size_t	i, k;

	for (i = 0; i < st->nslots; i++) {
		if (st->slots[i].cj != cj)
			continue;
		for (k = i; k < st->nslots && st->slots[k].cj == cj; k++)
			;
		*n = k - i;
		return &st->slots[i];
	}
	*n = 0;
	return NULL;
}

/* Return the index of job's run, or -1. */
static int
stack_run_index(const struct stack *st, const struct job *job)
{
	size_t	i;

	for (i = 0; i < st->nruns; i++) {
		if (st->runs[i]->job == job)
			return (int)i;
	}
	return -1;
}

/*
 * Return job's run, or NULL for a job not from the configuration; a job
 * first seen while its slot is being spawned (the gate or its start are
 * told before jobtable_spawn() returns) gets its run here.
 */
static struct stack_run *
stack_run_of(struct stack *st, struct job *job)
{
	struct stack_run	*r;
	char			*name;
	int			 i, match;

	if ((i = stack_run_index(st, job)) != -1)
		return st->runs[i];
	if (st->spawning == NULL || st->spawned != NULL ||
	    job_name(job) == NULL)
		return NULL;
	name = stack_slot_name(st->spawning);
	match = strcmp(name, job_name(job)) == 0;
	free(name);
	if (!match)
		return NULL;
	r = xcalloc(1, sizeof *r);
	r->st = st;
	r->job = job;
	r->held_since = loop_now_ms();
	r->waited_ms = -1;
	r->slot = st->spawning;
	r->slot->cur = r;
	if (st->nruns == st->aruns) {
		st->aruns = st->aruns == 0 ? 16 : st->aruns * 2;
		st->runs = xreallocarray(st->runs, st->aruns, sizeof *st->runs);
	}
	st->runs[st->nruns++] = r;
	st->spawned = r;
	return r;
}

/* Forget run i: its probes, its timer, its place in its slot. */
static void
stack_run_forget(struct stack *st, size_t i)
{
	struct stack_run	*r = st->runs[i];
	struct stack_slot	*s = r->slot;

	if (s->cur == r) {
		s->cur = NULL;
		s->gone = 1;
		s->gone_state = job_state(r->job);
		s->gone_status = job_end_status(r->job);
		s->gone_ran = job_pid(r->job) > 0;
		s->gone_ready = r->was_ready || (s->gone_ran &&
		    !stack_has_probe(&s->cj->ready));
	}
	stack_run_end_probes(r);
	stack_run_end_delay(r);
	free(r->await);
	free(r);
	memmove(&st->runs[i], &st->runs[i + 1], (st->nruns - i - 1) *
	    sizeof *st->runs);
	st->nruns--;
}

/*
 * Forget a run made for a job that jobtable_spawn() then freed without a
 * word (it could not start): its slot points to prev again.
 */
static void
stack_run_unborn(struct stack *st, struct stack_run *r,
    struct stack_run *prev)
{
	int	i;

	for (i = 0; i < (int)st->nruns && st->runs[i] != r; i++)
		;
	r->slot->cur = prev;
	stack_run_end_probes(r);
	stack_run_end_delay(r);
	free(r);
	memmove(&st->runs[i], &st->runs[i + 1], (st->nruns - (size_t)i - 1) *
	    sizeof *st->runs);
	st->nruns--;
}

/* Fill f with what is known of slot s's job now. */
static void
stack_facts(struct stack *st, const struct stack_slot *s,
    struct stack_facts *f)
{
	struct job	*job;

	memset(f, 0, sizeof *f);
	f->status = WAITSTATUS_NONE;
	if (s->cur == NULL) {
		if (!s->gone)
			return;
		f->exists = f->ended = 1;
		f->ran = s->gone_ran;
		f->was_ready = s->gone_ready;
		f->state = s->gone_state;
		f->status = s->gone_status;
		return;
	}
	job = s->cur->job;
	f->exists = 1;
	f->state = job_state(job);
	f->status = job_end_status(job);
	f->running = job_is_running(job);
	f->ready = f->running && (!stack_has_probe(&s->cj->ready) ||
	    job_ready(job) == JOB_READY_YES);
	f->ended = stack_ended(job);
	f->ran = job_pid(job) > 0;
	f->was_ready = s->cur->was_ready || (f->ran &&
	    !stack_has_probe(&s->cj->ready));
	f->pending = f->ended && jobtable_is_live(st->jt, job);
}

/*
 * Say how a job ended, for a reason: "exited 1", "SIGKILL", "canceled",
 * "blocked".
 */
static const char *
stack_end_text(const struct stack_facts *f, char *buf, size_t size)
{
	char	code[WAITSTATUS_NAME_MAX];

	if (f->state == JOB_CANCELED)
		snprintf(buf, size, "canceled");
	else if (f->state == JOB_TIMED_OUT)
		snprintf(buf, size, "timed out");
	else if (f->state == JOB_BLOCKED)
		snprintf(buf, size, "blocked");
	else if (f->status == WAITSTATUS_NONE)
		snprintf(buf, size, "never ran");
	else if (WIFSIGNALED(f->status))
		snprintf(buf, size, "%s", waitstatus_short(f->status, code,
		    sizeof code));
	else
		snprintf(buf, size, "exited %s", waitstatus_short(f->status,
		    code, sizeof code));
	return buf;
}

/*
 * Decide one condition over one replica: GO when it holds, WAIT while it
 * may, FAIL with *why (allocated; NULL: not wanted) once it cannot.
 */
static enum jobtable_gate
stack_cond(const struct config_dep *dep, const char *name,
    const struct stack_facts *f, char **why)
{
	char	end[64];
	int	can_fail = f->ended && !f->pending;

	stack_end_text(f, end, sizeof end);
	if (can_fail && f->state == JOB_BLOCKED &&
	    dep->cond != CONFIG_COND_COMPLETED) {
		if (why != NULL)
			*why = xprintf("%s is blocked", name);
		return JOBTABLE_FAIL;
	}
	switch (dep->cond) {
	case CONFIG_COND_STARTED:
		if (f->running || (f->ended && f->ran))
			return JOBTABLE_GO;
		if (!can_fail)
			return JOBTABLE_WAIT;
		if (why != NULL)
			*why = xprintf("%s never started (%s)", name, end);
		return JOBTABLE_FAIL;
	case CONFIG_COND_READY:
		if (f->ready)
			return JOBTABLE_GO;
		if (!can_fail)
			return JOBTABLE_WAIT;
		if (why != NULL && !f->ran)
			*why = xprintf("%s never started (%s)", name, end);
		else if (why != NULL && f->was_ready)
			*why = xprintf("%s is not running (%s)", name, end);
		else if (why != NULL)
			*why = xprintf("%s exited before it was ready (%s)",
			    name, end);
		return JOBTABLE_FAIL;
	case CONFIG_COND_COMPLETED:
		return f->ended ? JOBTABLE_GO : JOBTABLE_WAIT;
	case CONFIG_COND_COMPLETED_OK:
		if (f->ended && f->state == JOB_COMPLETED)
			return JOBTABLE_GO;
		if (!can_fail)
			return JOBTABLE_WAIT;
		if (why != NULL && !f->ran)
			*why = xprintf("%s never started (%s)", name, end);
		else if (why != NULL)
			*why = xprintf("%s failed (%s)", name, end);
		return JOBTABLE_FAIL;
	}
	return JOBTABLE_GO;
}

/*
 * Decide a dependency on the deck's browser: GO once it is started (or
 * ready, as the condition says), FAIL with *why once it has failed, WAIT
 * otherwise (none yet, starting, stopped: a start may come).
 */
static enum jobtable_gate
stack_browser_gate(struct stack *st, const struct config_dep *dep,
    char **why)
{
	enum browser_state	s;

	s = st->browser != NULL ? browser_state(st->browser) : BROWSER_IDLE;
	if (s == BROWSER_READY || (s == BROWSER_STARTING &&
	    dep->cond == CONFIG_COND_STARTED))
		return JOBTABLE_GO;
	if (s != BROWSER_FAILED)
		return JOBTABLE_WAIT;
	if (why != NULL)
		*why = xprintf("the browser failed: %s",
		    browser_why(st->browser) != NULL ?
		    browser_why(st->browser) : "no reason given");
	return JOBTABLE_FAIL;
}

/*
 * Decide one dependency over every replica of the job depended on: FAIL
 * (with *why) if one can no longer meet it, else WAIT if one does not
 * yet (or it has no job at all), else GO.
 */
static enum jobtable_gate
stack_dep_gate(struct stack *st, const struct config_dep *dep, char **why)
{
	const struct config_job	*dcj;
	struct stack_slot	*s;
	struct stack_facts	 f;
	enum jobtable_gate	 g, worst = JOBTABLE_GO;
	char			*name;
	size_t			 n, i;

	if (dep->browser)
		return stack_browser_gate(st, dep, why);
	if ((dcj = config_find_job(st->config, dep->name)) == NULL)
		return JOBTABLE_GO;	/* the config checked every name */
	s = stack_slots_of(st, dcj, &n);
	for (i = 0; i < n; i++) {
		stack_facts(st, &s[i], &f);
		if (!f.exists) {
			worst = JOBTABLE_WAIT;
			continue;
		}
		name = stack_slot_name(&s[i]);
		g = stack_cond(dep, name, &f, why);
		free(name);
		if (g == JOBTABLE_FAIL)
			return g;
		if (g == JOBTABLE_WAIT)
			worst = g;
	}
	return worst;
}

/* Return a condition's name as depends_on writes it. */
static const char *
stack_cond_name(enum config_cond cond)
{
	switch (cond) {
	case CONFIG_COND_STARTED:
		return "started";
	case CONFIG_COND_READY:
		return "ready";
	case CONFIG_COND_COMPLETED:
		return "completed";
	case CONFIG_COND_COMPLETED_OK:
		return "completed_successfully";
	}
	return "";
}

/* A job's start delay is over: let the gate pass it. */
static void
stack_delay_cb(void *arg)
{
	struct stack_run	*r = arg;

	r->delay_timer = 0;
	r->delayed = 1;
	stack_recheck(r->st);
}

/*
 * The gate: jobs not from the configuration go; a configured one waits
 * for its dependencies ("db (ready), migrate (completed_successfully)"),
 * fails when one can no longer be met, then waits out its start_delay
 * before a first start.
 */
static enum jobtable_gate
stack_may_start(struct job *job, char **why, void *arg)
{
	struct stack		*st = arg;
	struct stack_run	*r;
	const struct config_job	*cj;
	const struct config_dep	*dep;
	char			*wait = NULL, *tmp;
	size_t			 i;

	if ((r = stack_run_of(st, job)) == NULL)
		return JOBTABLE_GO;
	cj = r->slot->cj;
	if (r->await != NULL) {
		*why = xprintf("%s (restarting)", r->await);
		return JOBTABLE_WAIT;
	}
	for (i = 0; i < cj->ndeps; i++) {
		dep = &cj->deps[i];
		switch (stack_dep_gate(st, dep, why)) {
		case JOBTABLE_FAIL:
			free(wait);
			return JOBTABLE_FAIL;
		case JOBTABLE_WAIT:
			tmp = xprintf("%s%s%s (%s)", wait != NULL ? wait : "",
			    wait != NULL ? ", " : "", dep->name,
			    stack_cond_name(dep->cond));
			free(wait);
			wait = tmp;
			break;
		case JOBTABLE_GO:
			break;
		}
	}
	if (wait != NULL) {
		*why = wait;
		if (r->held_since == 0)
			r->held_since = loop_now_ms();
		return JOBTABLE_WAIT;
	}
	if (cj->start_delay > 0 && job_starts(job) == 0 && !r->delayed) {
		if (r->delay_timer == 0)
			r->delay_timer = loop_add_timer(st->loop,
			    (int64_t)(cj->start_delay * 1000), stack_delay_cb,
			    r);
		*why = xprintf("start delay %gs", cj->start_delay);
		return JOBTABLE_WAIT;
	}
	return JOBTABLE_GO;
}

/*
 * Return whether a running job other than r's (one being stopped, if
 * stopping) depends on r's configured job.
 */
static int
stack_serves(struct stack *st, struct stack_run *r, int stopping)
{
	struct stack_run	*q;
	const struct config_job	*qcj;
	size_t			 i, k;

	for (i = 0; i < st->nruns; i++) {
		q = st->runs[i];
		if (q == r || !job_is_running(q->job) ||
		    (stopping && q->stopping == 0))
			continue;
		qcj = q->slot->cj;
		for (k = 0; k < qcj->ndeps; k++) {
			if (strcmp(qcj->deps[k].name, r->slot->cj->name) == 0)
				return 1;
		}
	}
	return 0;
}

/* The stop order: a job goes on running while a running job needs it. */
static int
stack_stop_later(struct job *job, void *arg)
{
	struct stack		*st = arg;
	struct stack_run	*r;

	if ((r = stack_run_of(st, job)) == NULL)
		return 0;
	return stack_serves(st, r, 0);
}

/* Make and start a probe of job r as cp says; -1 with *cause. */
static int
stack_probe_start(struct stack_run *r, const struct config_probe *cp,
    enum probe_mode mode, struct probe **out, char **cause)
{
	struct stack		*st = r->st;
	const struct job_spec	*js = job_spec(r->job);
	struct probe_spec	 ps;

	*out = NULL;
	memset(&ps, 0, sizeof ps);
	ps.mode = mode;
	if (cp->log != NULL) {
		ps.kind = PROBE_LOG;
		ps.target = cp->log;
	} else if (cp->cmd != NULL) {
		ps.kind = PROBE_CMD;
		ps.target = cp->cmd;
	} else if (cp->tcp != NULL) {
		ps.kind = PROBE_TCP;
		ps.target = cp->tcp;
	} else if (cp->http != NULL) {
		ps.kind = PROBE_HTTP;
		ps.target = cp->http;
	} else
		return 0;
	if (ps.kind == PROBE_HTTP && st->http == NULL) {
		if ((st->http = http_new(st->loop, cause)) == NULL)
			return -1;
		st->own_http = 1;
	}
	ps.shell = js->shell;
	ps.cwd = js->cwd;
	ps.envp = js->envp;
	ps.interval_ms = (int64_t)(cp->interval * 1000);
	ps.timeout_ms = (int64_t)(cp->timeout * 1000);
	ps.initial_delay_ms = (int64_t)(cp->initial_delay * 1000);
	ps.retries = cp->retries;
	*out = probe_new(st->loop, st->jt, st->http, &ps, mode == PROBE_READY ?
	    &stack_ready_cbs : &stack_live_cbs, r, cause);
	return *out == NULL ? -1 : 0;
}

/* Fail a run's job with prefix and why ("not ready: connect: refused"). */
static void
stack_run_fail(struct stack_run *r, const char *prefix, const char *why)
{
	char	*msg;

	msg = xprintf("%s: %s", prefix, why);
	jobtable_fail(r->st->jt, r->job, msg);
	free(msg);
}

/* Start a run's liveness probe, if its job has one. */
static void
stack_run_live(struct stack_run *r)
{
	char	*cause = NULL;

	if (!stack_has_probe(&r->slot->cj->liveness))
		return;
	if (stack_probe_start(r, &r->slot->cj->liveness, PROBE_LIVE, &r->live,
	    &cause) != 0) {
		stack_run_fail(r, "liveness", cause);
		free(cause);
	}
}

/*
 * Keep the short text of a readiness attempt on the job ("GET /health →
 * 503", for the panel and its JSON); subscribers hear of a new one.
 */
static void
stack_ready_text(struct stack_run *r, const char *text)
{
	const char	*old = job_ready_text(r->job);

	if (text == NULL || (old != NULL && strcmp(old, text) == 0))
		return;
	job_set_ready_text(r->job, text);
	jobtable_changed(r->st->jt, r->job);
}

/* A readiness attempt ended (not the last): say how on the job. */
static void
stack_ready_attempt(struct probe *p, int ok, const char *text, void *arg)
{
	struct stack_run	*r = arg;

	(void)ok;
	if (p == r->ready && job_is_running(r->job))
		stack_ready_text(r, text);
}

/* The readiness probe said: ready (then liveness), or it gave up. */
static void
stack_ready_result(struct probe *p, int ok, const char *why, void *arg)
{
	struct stack_run	*r = arg;
	struct stack		*st = r->st;

	if (p != r->ready && r->ready != NULL)
		return;		/* an earlier run's */
	if (job_is_running(r->job) && probe_last(p) != NULL)
		job_set_ready_text(r->job, probe_last(p));
	if (!ok)
		stack_run_fail(r, "not ready", why);
	else if (job_is_running(r->job)) {
		r->was_ready = 1;
		job_set_ready(r->job, JOB_READY_YES);
		jobtable_changed(st->jt, r->job);
		stack_recheck(st);
		stack_run_live(r);
	}
}

/*
 * The liveness probe failed: the job fails, which notes why (its restart
 * policy applies).
 */
static void
stack_live_result(struct probe *p, int ok, const char *why, void *arg)
{
	struct stack_run	*r = arg;

	if ((p != r->live && r->live != NULL) || ok)
		return;
	stack_run_fail(r, "liveness", why);
}

/*
 * A job started (a new run): a configured one's readiness probe makes it
 * "starting" until it passes; without one it is ready, and its liveness
 * probe starts at once.
 */
static void
stack_job_started(struct job *job, void *arg)
{
	struct stack		*st = arg;
	struct stack_run	*r;
	const struct config_job	*cj;
	char			*cause = NULL;

	if ((r = stack_run_of(st, job)) == NULL)
		return;
	cj = r->slot->cj;
	stack_release_awaits(st, cj->name, 0);
	stack_run_end_probes(r);
	stack_run_end_delay(r);
	r->waited_ms = r->held_since != 0 ? loop_now_ms() - r->held_since : 0;
	r->held_since = 0;
	r->was_ready = 0;
	r->stopping = 0;
	stack_recheck(st);
	if (!stack_has_probe(&cj->ready)) {
		job_set_ready(job, JOB_READY_NONE);
		stack_run_live(r);
		return;
	}
	job_set_ready(job, JOB_READY_STARTING);
	jobtable_changed(st->jt, job);
	if (stack_probe_start(r, &cj->ready, PROBE_READY, &r->ready,
	    &cause) != 0) {
		stack_run_fail(r, "not ready", cause);
		free(cause);
		return;
	}
	if (probe_last(r->ready) != NULL)
		stack_ready_text(r, probe_last(r->ready));
}

/* A job printed: its log probes read the output. */
static void
stack_job_output(struct job *job, const char *buf, size_t len, void *arg)
{
	struct stack		*st = arg;
	struct stack_run	*r;
	int			 i;

	if ((i = stack_run_index(st, job)) == -1)
		return;
	r = st->runs[i];
	if (r->ready != NULL)
		probe_feed(r->ready, buf, len);
	if (r->live != NULL)
		probe_feed(r->live, buf, len);
}

/* A job ended (or never started): its probes go, the gate is asked again. */
static void
stack_job_exited(struct job *job, void *arg)
{
	struct stack	*st = arg;
	int		 i;

	if ((i = stack_run_index(st, job)) != -1) {
		stack_run_end_probes(st->runs[i]);
		stack_run_end_delay(st->runs[i]);
		job_set_ready(job, JOB_READY_NONE);
		timetable_ended(st->timetable, st->runs[i]->slot->cj);
		/* Held until it ended without a start (blocked, canceled). */
		if (st->runs[i]->held_since != 0) {
			st->runs[i]->waited_ms = loop_now_ms() -
			    st->runs[i]->held_since;
			st->runs[i]->held_since = 0;
		}
	}
	if (stack_leaving_index(st, job) != -1)
		stack_leave_soon(st);
	stack_recheck(st);
}

/*
 * Something of a job changed (a pending restart called off, say): a
 * configured job's dependants are asked about again.
 */
static void
stack_job_changed(struct job *job, void *arg)
{
	struct stack	*st = arg;

	if (stack_run_index(st, job) != -1)
		stack_recheck(st);
}

/* A job leaves the table: forget it. */
static void
stack_job_removed(struct job *job, void *arg)
{
	struct stack	*st = arg;
	int		 k;

	if ((k = stack_run_index(st, job)) != -1)
		stack_run_forget(st, (size_t)k);
	if ((k = stack_leaving_index(st, job)) != -1) {
		memmove(&st->leaving[k], &st->leaving[k + 1],
		    (st->nleaving - (size_t)k - 1) * sizeof *st->leaving);
		st->nleaving--;
	}
}

/* Watched files of a configured job changed: restart its jobs. */
static void
stack_watch_changed(const char *path, void *arg)
{
	struct stack_watch	*sw = arg;
	struct stack		*st = sw->st;
	struct stack_slot	*s;
	struct job		*job;
	char			*note, *cause = NULL;
	size_t			 n, i;

	note = xprintf("restarted: %s changed", path);
	s = stack_slots_of(st, sw->cj, &n);
	for (i = 0; i < n; i++) {
		if (s[i].cur == NULL)
			continue;
		job = s[i].cur->job;
		if (!job_is_running(job) && !stack_ended(job))
			continue;	/* it has not started yet */
		job_set_note(job, note);
		if (jobtable_restart(st->jt, job, &cause) != 0) {
			free(note);
			note = xprintf("not restarted: %s", cause);
			job_set_note(job, note);
			free(cause);
			cause = NULL;
		}
		jobtable_changed(st->jt, job);
	}
	free(note);
}

/*
 * Return the directory a job's watch globs are relative to: its cwd when
 * that is set and has no template in it, else the config file's.
 */
static char *
stack_watch_base(const struct stack *st, const struct config_job *cj)
{
	const char	*cwd = cj->cwd;

	if (cwd != NULL && strpbrk(cwd, "${") == NULL) {
		if (*cwd == '/')
			return xstrdup(cwd);
		return xprintf("%s/%s", session_cwd(st->session), cwd);
	}
	if (st->dir != NULL)
		return xstrdup(st->dir);
	return xstrdup(session_cwd(st->session));
}

/* Watch the files of every configured job that names some. */
static void
stack_watch_all(struct stack *st)
{
	const struct config_job	*cj;
	struct stack_watch	*sw;
	char			*base, *cause = NULL, *tmp;
	size_t			 i;

	st->watches = xcalloc(st->config->njobs + 1, sizeof *st->watches);
	for (i = 0; i < st->config->njobs; i++) {
		cj = &st->config->jobs[i];
		if (cj->nwatch == 0)
			continue;
		sw = &st->watches[st->nwatches];
		sw->st = st;
		sw->cj = cj;
		base = stack_watch_base(st, cj);
		sw->w = watch_new(st->loop, base, cj->watch, cj->nwatch,
		    cj->watch_ignore, cj->nwatch_ignore,
		    (int64_t)(cj->watch_debounce * 1000), &stack_watch_cbs, sw,
		    &cause);
		free(base);
		if (sw->w == NULL) {
			tmp = xprintf("%s%scannot watch the files of %s: %s",
			    st->watch_errors != NULL ? st->watch_errors : "",
			    st->watch_errors != NULL ? "\n" : "", cj->name,
			    cause);
			free(st->watch_errors);
			free(cause);
			cause = NULL;
			st->watch_errors = tmp;
			continue;
		}
		st->nwatches++;
	}
}

/* Return the index of !scale's count for configured job cj, or -1. */
static int
stack_scale_index(const struct stack *st, const struct config_job *cj)
{
	size_t	i;

	for (i = 0; i < st->nscales; i++) {
		if (strcmp(st->scales[i].name, cj->name) == 0)
			return (int)i;
	}
	return -1;
}

/* Return how many replicas configured job cj runs: !scale's, or its own. */
static int
stack_replicas(const struct stack *st, const struct config_job *cj)
{
	int	i;

	if ((i = stack_scale_index(st, cj)) != -1)
		return st->scales[i].replicas;
	return cj->replicas > 1 ? cj->replicas : 1;
}

/*
 * Make the slots of config's jobs, each job's replicas together; *n says
 * how many.
 */
static struct stack_slot *
stack_slots_make(const struct stack *st, const struct config *config,
    size_t *n)
{
	struct stack_slot	*slots;
	const struct config_job	*cj;
	size_t			 i, all;
	int			 r, nr;

	for (i = all = 0; config != NULL && i < config->njobs; i++)
		all += (size_t)stack_replicas(st, &config->jobs[i]);
	slots = xcalloc(all + 1, sizeof *slots);
	*n = 0;
	for (i = 0; config != NULL && i < config->njobs; i++) {
		cj = &config->jobs[i];
		nr = stack_replicas(st, cj);
		for (r = 1; r <= nr; r++) {
			slots[*n].cj = cj;
			/* Scaled once, its jobs keep their numbers. */
			slots[*n].replica = nr > 1 || cj->replicas > 1 ||
			    stack_scale_index(st, cj) != -1 ? r : 0;
			(*n)++;
		}
	}
	return slots;
}

/*
 * Make the stack of config's jobs on jt: the table's policy, its
 * subscriber, the groups' limits and the watched files.
 */
struct stack *
stack_new(struct loop *loop, struct jobtable *jt, const struct config *config,
    struct session *session, struct http *http)
{
	struct stack		*st;
	size_t			 i;

	st = xcalloc(1, sizeof *st);
	st->loop = loop;
	st->jt = jt;
	st->config = config;
	st->session = session;
	st->http = http;
	st->dir = config_dir(config);
	st->sub = -1;
	st->slots = stack_slots_make(st, config, &st->nslots);
	jobtable_set_policy(jt, &stack_policy, st);
	st->sub = jobtable_subscribe(jt, &stack_cbs, st);
	for (i = 0; config != NULL && i < config->ngroups; i++)
		jobtable_set_group_limit(jt, config->groups[i].name,
		    config->groups[i].max_running);
	if (config != NULL)
		stack_watch_all(st);
	st->timetable = timetable_new(loop, config, &stack_schedule_cbs, st);
	return st;
}

/*
 * Gate jobs that depend on the browser by b's state (NULL: none); the
 * caller calls jobtable_recheck() when that changes.
 */
void
stack_set_browser(struct stack *st, struct browser *b)
{
	st->browser = b;
	stack_recheck(st);
}

/* Free the stack: the table forgets its policy, probes and watches end. */
void
stack_free(struct stack *st)
{
	size_t	i;

	if (st == NULL)
		return;
	timetable_free(st->timetable);
	jobtable_set_policy(st->jt, NULL, NULL);
	if (st->sub != -1)
		jobtable_unsubscribe(st->jt, st->sub);
	for (i = 0; i < st->nwatches; i++)
		watch_free(st->watches[i].w);
	free(st->watches);
	while (st->nruns > 0)
		stack_run_forget(st, st->nruns - 1);
	free(st->runs);
	if (st->tick_timer != 0)
		loop_cancel_timer(st->loop, st->tick_timer);
	if (st->own_http)
		http_free(st->http);
	if (st->leave_timer != 0)
		loop_cancel_timer(st->loop, st->leave_timer);
	free(st->leaving);
	for (i = 0; i < st->nscales; i++)
		free(st->scales[i].name);
	free(st->scales);
	for (i = 0; i < st->nslots; i++)
		free(st->slots[i].print);
	free(st->slots);
	free(st->watch_errors);
	free(st->dir);
	free(st);
}

/*
 * Start the deck's browser for cj, which depends on it, unless it runs
 * or is starting; 0, or -1 with *cause.
 */
static int
stack_start_browser(struct stack *st, const struct config_job *cj,
    char **cause)
{
	char	*why = NULL;

	if (st->browser == NULL)
		return 0;
	switch (browser_state(st->browser)) {
	case BROWSER_IDLE:
	case BROWSER_FAILED:
	case BROWSER_STOPPED:
		break;
	default:
		return 0;
	}
	if (browser_start(st->browser, &why) == 0)
		return 0;
	*cause = xprintf("cannot start %s (the browser: %s)", cj->name, why);
	free(why);
	return -1;
}

/* Return whether a job of configured job cj runs or will run. */
static int
stack_cj_live(struct stack *st, const struct config_job *cj)
{
	struct stack_slot	*s;
	size_t			 n, i;

	s = stack_slots_of(st, cj, &n);
	for (i = 0; i < n; i++) {
		if (s[i].cur != NULL && jobtable_is_live(st->jt,
		    s[i].cur->job))
			return 1;
	}
	return 0;
}

/* Add a tag and a string that may be NULL ("-") to a print, NUL ended. */
static void
stack_print_add(struct xbuf *b, char tag, const char *str)
{
	xbuf_add(b, &tag, 1);
	if (str == NULL)
		xbuf_add(b, "-", 2);
	else
		xbuf_add(b, str, strlen(str) + 1);
}

/*
 * Return what slot s's job would be launched with, whatever the session
 * holds: its command, argv, cwd, input and environment (env files read
 * now) as *len bytes, or NULL when it cannot be launched.  A reload
 * restarts a job whose print changed (an env file's text, say).
 */
static char *
stack_print(struct stack *st, const struct config *cfg,
    const struct stack_slot *s, size_t *len)
{
	static char *const	 none[] = { NULL };
	struct session		*bare;
	struct launch		*l;
	const struct job_spec	*js;
	struct xbuf		 b;
	char			*why = NULL;
	size_t			 i;

	bare = session_new(none);
	l = launch_new_at(s->cj, &cfg->settings, bare, NULL, 0, s->replica,
	    st->dir, &why);
	if (l == NULL) {
		session_free(bare);
		free(why);
		return NULL;
	}
	js = launch_spec(l);
	memset(&b, 0, sizeof b);
	stack_print_add(&b, 'c', js->command);
	stack_print_add(&b, 'd', js->cwd);
	stack_print_add(&b, 'i', js->input);
	for (i = 0; js->argv != NULL && js->argv[i] != NULL; i++)
		stack_print_add(&b, 'a', js->argv[i]);
	for (i = 0; js->envp != NULL && js->envp[i] != NULL; i++)
		stack_print_add(&b, 'e', js->envp[i]);
	launch_free(l);
	session_free(bare);	/* the spec's cwd may be the session's */
	*len = b.len;
	return b.s;
}

/*
 * Spawn slot s's job with params over its own; *job is it.  -1 with
 * *cause when it cannot start.
 */
static int
stack_spawn_slot(struct stack *st, struct stack_slot *s,
    const struct expand_param *params, size_t nparams, struct job **job,
    char **cause)
{
	struct stack_run	*prev;
	struct launch		*l;
	char			*why = NULL;

	l = launch_new_at(s->cj, &st->config->settings, st->session,
	    params, nparams, s->replica, st->dir, &why);
	if (l == NULL)
		goto fail;
	prev = s->cur;
	st->spawning = s;
	st->spawned = NULL;
	*job = jobtable_spawn(st->jt, launch_spec(l), &why);
	launch_free(l);
	if (*job == NULL) {
		/* A run the gate made for it goes with it. */
		if (st->spawned != NULL)
			stack_run_unborn(st, st->spawned, prev);
		st->spawning = NULL;
		goto fail;
	}
	stack_run_of(st, *job);	/* the gate may not have seen it */
	st->spawning = NULL;
	free(s->print);
	s->print = stack_print(st, st->config, s, &s->nprint);
	/* The table told of it as queued: say for what it waits. */
	if (job_state(*job) == JOB_WAITING)
		jobtable_changed(st->jt, *job);
	return 0;

fail:
	*cause = xprintf("cannot start %s (%s)", s->cj->name, why);
	free(why);
	return -1;
}

/*
 * Spawn each replica of cj (after what it depends on that neither lives
 * nor is satisfied, transitively; path holds the jobs being started, so
 * a loop, which the config refuses, still ends).
 */
static int
stack_start_one(struct stack *st, const struct config_job *cj,
    const struct expand_param *params, size_t nparams, struct job **first,
    const struct config_job **path, size_t depth, char **cause)
{
	const struct config_job	*dcj;
	struct stack_slot	*s;
	struct job		*job;
	size_t			 i, n;

	for (i = 0; i < depth; i++) {
		if (path[i] == cj) {
			*cause = xprintf("cannot start %s (it depends on "
			    "itself through %s)", cj->name,
			    path[depth - 1]->name);
			return -1;
		}
	}
	path[depth] = cj;
	for (i = 0; i < cj->ndeps; i++) {
		if (cj->deps[i].browser) {
			if (stack_start_browser(st, cj, cause) != 0)
				return -1;
			continue;
		}
		dcj = config_find_job(st->config, cj->deps[i].name);
		if (dcj == NULL || stack_cj_live(st, dcj) ||
		    stack_dep_gate(st, &cj->deps[i], NULL) == JOBTABLE_GO)
			continue;
		if (stack_start_one(st, dcj, NULL, 0, NULL, path, depth + 1,
		    cause) != 0)
			return -1;
	}

	s = stack_slots_of(st, cj, &n);
	if (n == 0) {
		*cause = xprintf("cannot start %s (%s)", cj->name,
		    stack_replicas(st, cj) == 0 ? "scaled to 0 replicas: "
		    "!scale it" : "not a job of the stack's configuration");
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (stack_spawn_slot(st, &s[i], params, nparams, &job,
		    cause) != 0)
			return -1;
		if (first != NULL && *first == NULL)
			*first = job;
	}
	return 0;
}

/*
 * Start configured job cj (each of its replicas) with params over its
 * own, after the jobs it depends on that are not live; *first (if not
 * NULL) is the first job of cj started.  -1 with *cause.
 */
int
stack_start(struct stack *st, const struct config_job *cj,
    const struct expand_param *params, size_t nparams, struct job **first,
    char **cause)
{
	const struct config_job	**path;
	int			  rc;

	if (first != NULL)
		*first = NULL;
	path = xcalloc(st->config->njobs + 1, sizeof *path);
	rc = stack_start_one(st, cj, params, nparams, first, path, 0, cause);
	free(path);
	return rc;
}

/* Append line to the lines in *all. */
static void
stack_add_line(char **all, const char *line)
{
	char	*tmp;

	tmp = xprintf("%s%s%s", *all != NULL ? *all : "", *all != NULL ?
	    "\n" : "", line);
	free(*all);
	*all = tmp;
}

/*
 * Start the named configured jobs (names NULL: every autostart job) and
 * what they depend on, each once; a job already live is left alone.  -1
 * with *cause (every failure, one a line, and the watches that could not
 * be made) if any could not start.
 */
int
stack_start_all(struct stack *st, char *const *names, int n, char **cause)
{
	const struct config_job	*cj;
	char			*why, *all = NULL;
	size_t			 i;
	int			 k;

	if (st->watch_errors != NULL) {
		all = st->watch_errors;
		st->watch_errors = NULL;
	}
	for (k = 0; names != NULL && k < n; k++) {
		if (config_find_job(st->config, names[k]) == NULL) {
			why = xprintf("no configured job named %s", names[k]);
			stack_add_line(&all, why);
			free(why);
		}
	}
	for (i = 0; st->config != NULL && i < st->config->njobs; i++) {
		cj = &st->config->jobs[i];
		if (names == NULL && !cj->autostart)
			continue;
		for (k = 0; names != NULL && k < n; k++) {
			if (strcmp(names[k], cj->name) == 0)
				break;
		}
		if ((names != NULL && k == n) || stack_cj_live(st, cj))
			continue;
		why = NULL;
		if (stack_start(st, cj, NULL, 0, NULL, &why) != 0) {
			stack_add_line(&all, why);
			free(why);
		}
	}
	if (all == NULL)
		return 0;
	*cause = all;
	return -1;
}

/* Return whether a configured job or a job of the table is in group. */
static int
stack_group_known(struct stack *st, const char *group)
{
	const struct job_spec	*js;
	size_t			 i;
	int			 k;

	for (i = 0; st->config != NULL && i < st->config->njobs; i++) {
		if (st->config->jobs[i].group != NULL &&
		    strcmp(st->config->jobs[i].group, group) == 0)
			return 1;
	}
	for (k = 0; k < jobtable_count(st->jt); k++) {
		js = job_spec(jobtable_get(st->jt, k));
		if (js->group != NULL && strcmp(js->group, group) == 0)
			return 1;
	}
	return 0;
}

/*
 * Start every configured job of group that is not live (and what they
 * depend on); *started says how many.  -1 with *cause when the group has
 * no jobs or one could not start.
 */
int
stack_start_group(struct stack *st, const char *group, int *started,
    char **cause)
{
	const struct config_job	*cj;
	char			*why, *all = NULL;
	size_t			 i;

	*started = 0;
	if (!stack_group_known(st, group)) {
		*cause = xprintf("no jobs in group: %s", group);
		return -1;
	}
	for (i = 0; st->config != NULL && i < st->config->njobs; i++) {
		cj = &st->config->jobs[i];
		if (cj->group == NULL || strcmp(cj->group, group) != 0 ||
		    stack_cj_live(st, cj))
			continue;
		why = NULL;
		if (stack_start(st, cj, NULL, 0, NULL, &why) != 0) {
			stack_add_line(&all, why);
			free(why);
			continue;
		}
		(*started)++;
	}
	if (all == NULL)
		return 0;
	*cause = all;
	return -1;
}

/*
 * Stop the jobs !kill-group asked to stop once no running job being
 * stopped depends on them (dependants first); the others wait for the
 * next exit.
 */
static void
stack_stop_pending(struct stack *st)
{
	struct stack_run	*r;
	size_t			 i;

	for (i = 0; i < st->nruns; i++) {
		r = st->runs[i];
		if (r->stopping == 0)
			continue;
		if (!jobtable_is_live(st->jt, r->job))
			r->stopping = 0;
		else if (r->stopping == STACK_STOP_SENT ||
		    (job_is_running(r->job) && stack_serves(st, r, 1)))
			continue;
		else {
			r->stopping = STACK_STOP_SENT;
			jobtable_kill(st->jt, r->job, SIGTERM);
			i = (size_t)-1;	/* the kill's callbacks may change runs */
		}
	}
}

/*
 * Stop every live job of group, the ones depending on others first;
 * *stopped says how many.  -1 with *cause when the group has no jobs.
 */
int
stack_kill_group(struct stack *st, const char *group, int *stopped,
    char **cause)
{
	const struct config_job	*cj;
	struct stack_run	*r;
	size_t			 i;

	*stopped = 0;
	if (!stack_group_known(st, group)) {
		*cause = xprintf("no jobs in group: %s", group);
		return -1;
	}
	for (i = 0; i < st->nruns; i++) {
		r = st->runs[i];
		cj = r->slot->cj;
		if (cj->group == NULL || strcmp(cj->group, group) != 0 ||
		    !jobtable_is_live(st->jt, r->job))
			continue;
		if (r->stopping == 0)
			r->stopping = STACK_STOP_ASKED;
		(*stopped)++;
	}
	stack_stop_pending(st);
	return 0;
}

/* Return the configuration the stack runs now (after reloads), or NULL. */
const struct config *
stack_config(const struct stack *st)
{
	return st->config;
}

/* Return the configured job job was started from, or NULL. */
const struct config_job *
stack_job_config(const struct stack *st, const struct job *job)
{
	int	i;

	if ((i = stack_run_index(st, job)) == -1)
		return NULL;
	return st->runs[i]->slot->cj;
}

/*
 * Reload: the stack moved to another configuration (stack_reload()) or
 * another count of a job's replicas (stack_scale()).  Slots are matched
 * by their job's name; a slot's state moves with it, so an unchanged
 * job's run goes on untouched.
 */

/* A reload's changes as they are found. */
struct stack_changes {
	struct stack_change	*v;
	size_t			 n;
};

/* Add a change of kind to configured job name; return it. */
static struct stack_change *
stack_change_add(struct stack_changes *c, const char *name,
    enum stack_change_kind kind, const char *what)
{
	struct stack_change	*ch;

	c->v = xreallocarray(c->v, c->n + 1, sizeof *c->v);
	ch = &c->v[c->n++];
	ch->name = xstrdup(name);
	ch->kind = kind;
	ch->what = what != NULL ? xstrdup(what) : NULL;
	ch->was = ch->now = 0;
	return ch;
}

/* Return the change told of configured job name, or NULL. */
static struct stack_change *
stack_change_find(struct stack_changes *c, const char *name)
{
	size_t	i;

	for (i = 0; i < c->n; i++) {
		if (strcmp(c->v[i].name, name) == 0)
			return &c->v[i];
	}
	return NULL;
}

/* Free changes as stack_reload() returned them. */
void
stack_changes_free(struct stack_change *v, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].what);
	}
	free(v);
}

/* Return the word of a change's kind: "restarted", "added"... */
const char *
stack_change_word(enum stack_change_kind kind)
{
	switch (kind) {
	case STACK_UNCHANGED:
		return "unchanged";
	case STACK_RESTARTED:
		return "restarted";
	case STACK_UPDATED:
		return "updated";
	case STACK_ADDED:
		return "added";
	case STACK_REMOVED:
		return "removed";
	case STACK_SCALED:
		return "scaled";
	}
	return "?";
}

/*
 * The options whose change needs no restart: the count of replicas (the
 * slots change), autostart (for the next deck), the watched files (made
 * anew).
 */
static int
stack_option_restarts(const char *name)
{
	static const char *const	 quiet[] = { "replicas", "autostart",
	    "watch", "watch_ignore", "watch_debounce", "schedule", "every",
	    "overlap" };
	size_t				 i;

	for (i = 0; i < sizeof quiet / sizeof quiet[0]; i++) {
		if (strcmp(quiet[i], name) == 0)
			return 0;
	}
	return 1;
}

/* config_diff()'s callback: add a changed option's name to a list. */
static void
stack_diff_cb(const char *name, void *arg)
{
	struct xbuf	*b = arg;

	if (!stack_option_restarts(name))
		return;
	if (b->len > 0)
		xbuf_add(b, ", ", 2);
	xbuf_add(b, name, strlen(name));
}

/*
 * Remove the leaving jobs that have ended (ones still ending are tried
 * again shortly).
 */
static void
stack_leave_cb(void *arg)
{
	struct stack	*st = arg;
	struct job	*job;
	char		*why = NULL;
	size_t		 i;
	int		 again = 0;

	st->leave_timer = 0;
	for (i = 0; i < st->nleaving; i++) {
		job = st->leaving[i];
		if (jobtable_is_live(st->jt, job))
			continue;	/* its end calls again */
		if (jobtable_remove(st->jt, job, &why) == 0) {
			i = (size_t)-1;	/* the removal dropped it */
			continue;
		}
		free(why);
		why = NULL;
		again = 1;		/* still ending: its leftovers */
	}
	if (again)
		st->leave_timer = loop_add_timer(st->loop, 100, stack_leave_cb,
		    st);
	stack_start_after_leave(st);
}

/* Remove the leaving jobs that have ended, on the next turn. */
static void
stack_leave_soon(struct stack *st)
{
	if (st->leave_timer == 0 && st->nleaving > 0)
		st->leave_timer = loop_add_timer(st->loop, 0, stack_leave_cb,
		    st);
}

/* Return the index of job among the leaving, or -1. */
static int
stack_leaving_index(const struct stack *st, const struct job *job)
{
	size_t	i;

	for (i = 0; i < st->nleaving; i++) {
		if (st->leaving[i] == job)
			return (int)i;
	}
	return -1;
}

/* Return whether a job leaving the stack still has slot s's name. */
static int
stack_name_leaving(const struct stack *st, const struct stack_slot *s)
{
	const char	*jn;
	char		*name;
	size_t		 i;
	int		 found = 0;

	name = stack_slot_name(s);
	for (i = 0; i < st->nleaving && !found; i++) {
		jn = job_name(st->leaving[i]);
		found = jn != NULL && strcmp(jn, name) == 0;
	}
	free(name);
	return found;
}

/*
 * Start the slots that waited for a leaving job of their name to go (a
 * job put back, or a replica scaled back, before its old job ended).
 */
static void
stack_start_after_leave(struct stack *st)
{
	struct stack_slot	*s;
	struct job		*job;
	char			*why = NULL;
	size_t			 i;

	for (i = 0; i < st->nslots; i++) {
		s = &st->slots[i];
		if (!s->after_leave || stack_name_leaving(st, s))
			continue;
		s->after_leave = 0;
		if (s->cur == NULL && stack_spawn_slot(st, s, NULL, 0, &job,
		    &why) != 0) {
			free(why);	/* as a start that fails at once */
			why = NULL;
		}
	}
}

/*
 * Mark the new slots of cj whose name a leaving job still has, to start
 * once it has gone; return how many.
 */
static int
stack_slots_after_leave(struct stack *st, const struct config_job *cj)
{
	struct stack_slot	*s;
	size_t			 i, n;
	int			 marked = 0;

	s = stack_slots_of(st, cj, &n);
	for (i = 0; i < n; i++) {
		if (s[i].cur == NULL && !s[i].gone && stack_name_leaving(st,
		    &s[i])) {
			s[i].after_leave = 1;
			marked++;
		}
	}
	return marked;
}

/*
 * Take run r's job out of the stack: it is stopped as !kill stops it
 * (its stop signal or command, its grace) and leaves the table once
 * ended; its runs stay in the store.
 */
static void
stack_leave(struct stack *st, struct stack_run *r)
{
	struct job	*job = r->job;

	stack_run_forget(st, (size_t)stack_run_index(st, job));
	st->leaving = xreallocarray(st->leaving, st->nleaving + 1,
	    sizeof *st->leaving);
	st->leaving[st->nleaving++] = job;
	if (jobtable_is_live(st->jt, job))
		jobtable_kill(st->jt, job, SIGTERM);
	stack_leave_soon(st);
}

/* Append cfg's job cj and what it depends on (first) to order, once. */
static void
stack_order_add(const struct config *cfg, const struct config_job *cj,
    const struct config_job **order, size_t *n, size_t depth)
{
	const struct config_job	*d;
	size_t			 i;

	for (i = 0; i < *n; i++) {
		if (order[i] == cj)
			return;
	}
	for (i = 0; i < cj->ndeps && depth < cfg->njobs; i++) {
		if ((d = config_find_job(cfg, cj->deps[i].name)) != NULL)
			stack_order_add(cfg, d, order, n, depth + 1);
	}
	for (i = 0; i < *n; i++) {
		if (order[i] == cj)
			return;
	}
	order[(*n)++] = cj;
}

/*
 * Give every job of configured job cj the spec cfg now makes of it: a
 * live one restarts with it (after a stop as !restart's), an ended one
 * (or one being stopped for good) keeps it for its next start.  Return how many restarted; an error is
 * said in ch's text.
 */
static int
stack_respec(struct stack *st, const struct config_job *cj,
    struct stack_change *ch)
{
	struct stack_slot	*s;
	struct launch		*l;
	struct job		*job;
	char			*why = NULL, *tmp;
	size_t			 i, n;
	int			 live, restarted = 0;

	s = stack_slots_of(st, cj, &n);
	for (i = 0; i < n; i++) {
		if (s[i].cur == NULL)
			continue;
		job = s[i].cur->job;
		l = launch_new_at(cj, &st->config->settings, st->session, NULL,
		    0, s[i].replica, st->dir, &why);
		if (l != NULL) {
			/* One the user is stopping keeps the spec for later. */
			live = jobtable_is_live(st->jt, job) &&
			    !jobtable_is_stopping(st->jt, job);
			if (jobtable_respec(st->jt, job, launch_spec(l), live,
			    &why) == 0) {
				restarted += live;
				free(s[i].print);
				s[i].print = stack_print(st, st->config, &s[i],
				    &s[i].nprint);
				if (live)
					job_set_note(job, "restarted: its "
					    "configuration changed");
				launch_free(l);
				continue;
			}
			launch_free(l);
		}
		tmp = xprintf("%s; not restarted: %s", ch->what, why);
		free(ch->what);
		ch->what = tmp;
		free(why);
		why = NULL;
	}
	return restarted;
}

/*
 * A job whose dependency declared restart = true and which that reload
 * restarted: restart its live jobs too, each held by the gate until the
 * dependency has started again (then its condition, as at a start).
 */
static void
stack_restart_dependant(struct stack *st, const struct config_job *cj,
    struct stack_changes *c, struct stack_change *ch)
{
	const struct config_dep	*dep = NULL;
	struct stack_change	*dch;
	struct stack_slot	*s;
	struct job		*job;
	char			*why = NULL;
	size_t			 i, n;
	int			 await;

	for (i = 0; i < cj->ndeps && dep == NULL; i++) {
		if (cj->deps[i].restart && (dch = stack_change_find(c,
		    cj->deps[i].name)) != NULL && dch->kind == STACK_RESTARTED)
			dep = &cj->deps[i];
	}
	if (dep == NULL)
		return;
	/* Its old run still ends: wait for the new one's start. */
	s = stack_slots_of(st, config_find_job(st->config, dep->name), &n);
	for (i = 0, await = 0; i < n; i++)
		await |= s[i].cur != NULL && job_is_running(s[i].cur->job);
	s = stack_slots_of(st, cj, &n);
	for (i = 0; i < n; i++) {
		if (s[i].cur == NULL || !jobtable_is_live(st->jt,
		    s[i].cur->job))
			continue;
		job = s[i].cur->job;
		free(s[i].cur->await);
		s[i].cur->await = await ? xstrdup(dep->name) : NULL;
		if (jobtable_restart(st->jt, job, &why) != 0) {
			free(why);
			why = NULL;
			continue;
		}
		job_set_note(job, "restarted: a dependency restarted");
		ch->kind = STACK_RESTARTED;
		free(ch->what);
		ch->what = xprintf("%s restarted", dep->name);
	}
}

/* End the file watches; stack_watch_all() makes them anew. */
static void
stack_unwatch_all(struct stack *st)
{
	size_t	i;

	for (i = 0; i < st->nwatches; i++)
		watch_free(st->watches[i].w);
	free(st->watches);
	st->watches = NULL;
	st->nwatches = 0;
	free(st->watch_errors);
	st->watch_errors = NULL;
}

/*
 * Move slot os's state (its run, how its last job ended, its print) to
 * ns, which takes os's place.
 */
static void
stack_slot_move(struct stack_slot *ns, struct stack_slot *os)
{
	const struct config_job	*cj = ns->cj;
	int			 replica = ns->replica;

	*ns = *os;
	ns->cj = cj;
	ns->replica = replica;
	if (ns->cur != NULL)
		ns->cur->slot = ns;
	os->cur = NULL;
	os->print = NULL;
}

/*
 * New slot ns takes old slot os's place (its state moves): an unchanged
 * job whose print under os's number differs (its env file's text, say)
 * is marked to restart (unless scaling); renumbered (NAME to NAME.1 or
 * back), ns's print is what it is launched with from now on.
 */
static void
stack_slot_take(struct stack *st, const struct config *cfg,
    struct stack_slot *ns, struct stack_slot *os, struct stack_changes *c,
    int scaling)
{
	struct stack_change	*ch;
	struct stack_slot	 as = *ns;
	char			*print;
	size_t			 nprint;

	ch = stack_change_find(c, ns->cj->name);
	if (!scaling && ch != NULL && ch->kind == STACK_UNCHANGED &&
	    os->print != NULL) {
		as.replica = os->replica;
		print = stack_print(st, cfg, &as, &nprint);
		if (print == NULL || nprint != os->nprint ||
		    memcmp(print, os->print, nprint) != 0) {
			ch->kind = STACK_RESTARTED;
			free(ch->what);
			ch->what = xstrdup("its env files' text");
		}
		free(print);
	}
	stack_slot_move(ns, os);
	if (ns->replica != os->replica && ns->print != NULL) {
		free(ns->print);
		ns->print = stack_print(st, cfg, ns, &ns->nprint);
	}
}

/*
 * A job scaled from one unnumbered job to replicas: its job, if that
 * slot is left, becomes replica 1 (renamed NAME.1) rather than stopping;
 * scaled back to one, replica 1's job becomes the job itself (NAME).
 */
static void
stack_slots_promote(struct stack *st, const struct config *cfg,
    struct stack_slot *ns, size_t nn, int *taken, struct stack_changes *c,
    int scaling)
{
	struct stack_slot	*os = st->slots;
	char			*name, *why = NULL;
	size_t			 i, k;
	int			 from;

	for (i = 0; i < nn; i++) {
		if (ns[i].replica > 1 || ns[i].cur != NULL || ns[i].gone)
			continue;
		from = ns[i].replica == 1 ? 0 : 1;
		for (k = 0; k < st->nslots; k++) {
			if (!taken[k] && os[k].replica == from &&
			    strcmp(os[k].cj->name, ns[i].cj->name) == 0)
				break;
		}
		if (k == st->nslots)
			continue;
		if (os[k].cur != NULL) {
			name = stack_slot_name(&ns[i]);
			if (jobtable_rename(st->jt, os[k].cur->job, name,
			    &why) != 0) {
				free(why);	/* the name is taken: it goes */
				why = NULL;
				free(name);
				continue;
			}
			free(name);
		}
		taken[k] = 1;
		stack_slot_take(st, cfg, &ns[i], &os[k], c, scaling);
	}
}

/*
 * Match the new slots to the old by name (stack_slot_take()), then by
 * number (stack_slots_promote()); old slots left over leave the stack.
 */
static void
stack_slots_match(struct stack *st, const struct config *cfg,
    struct stack_slot *ns, size_t nn, struct stack_changes *c, int scaling)
{
	struct stack_slot	*os = st->slots;
	char			*nname, *oname;
	size_t			 i, k;
	int			*taken;

	taken = xcalloc(st->nslots + 1, sizeof *taken);
	for (i = 0; i < nn; i++) {
		nname = stack_slot_name(&ns[i]);
		for (k = 0; k < st->nslots; k++) {
			if (taken[k])
				continue;
			oname = stack_slot_name(&os[k]);
			if (strcmp(oname, nname) == 0) {
				free(oname);
				break;
			}
			free(oname);
		}
		free(nname);
		if (k == st->nslots)
			continue;
		taken[k] = 1;
		stack_slot_take(st, cfg, &ns[i], &os[k], c, scaling);
	}
	stack_slots_promote(st, cfg, ns, nn, taken, c, scaling);
	for (k = 0; k < st->nslots; k++) {
		if (!taken[k] && os[k].cur != NULL)
			stack_leave(st, os[k].cur);
		free(os[k].print);
	}
	free(taken);
}

/* Say what each of cfg's jobs is to the old configuration: c's entries. */
static void
stack_classify(struct stack *st, const struct config *cfg,
    struct stack_changes *c)
{
	const struct config	*old = st->config;
	const struct config_job	*cj, *ocj;
	struct xbuf		 b;
	size_t			 i;

	for (i = 0; cfg != NULL && i < cfg->njobs; i++) {
		cj = &cfg->jobs[i];
		ocj = old != NULL ? config_find_job(old, cj->name) : NULL;
		if (ocj == NULL) {
			stack_change_add(c, cj->name, STACK_ADDED, NULL);
			continue;
		}
		memset(&b, 0, sizeof b);
		config_diff("job", ocj, cj, stack_diff_cb, &b);
		stack_change_add(c, cj->name, b.len > 0 ? STACK_RESTARTED :
		    STACK_UNCHANGED, b.s);
		xbuf_clear(&b);
	}
	for (i = 0; old != NULL && i < old->njobs; i++) {
		if (cfg == NULL || config_find_job(cfg, old->jobs[i].name) ==
		    NULL)
			stack_change_add(c, old->jobs[i].name, STACK_REMOVED,
			    NULL);
	}
}

/* Forget !scale's counts of jobs gone, or whose replicas the file changed. */
static void
stack_scales_keep(struct stack *st, const struct config *cfg)
{
	const struct config_job	*ocj, *ncj;
	size_t			 i;

	for (i = 0; i < st->nscales; i++) {
		ocj = config_find_job(st->config, st->scales[i].name);
		ncj = cfg != NULL ? config_find_job(cfg, st->scales[i].name) :
		    NULL;
		if (ocj != NULL && ncj != NULL && ocj->replicas ==
		    ncj->replicas)
			continue;
		free(st->scales[i].name);
		st->scales[i--] = st->scales[--st->nscales];
	}
}

/* Add text to what a change says ("command; cannot start..."). */
static void
stack_change_say(struct stack_change *ch, const char *text)
{
	char	*tmp;

	tmp = xprintf("%s%s%s", ch->what != NULL ? ch->what : "",
	    ch->what != NULL ? "; " : "", text);
	free(ch->what);
	ch->what = tmp;
}

/*
 * Start the slots of cj that have never had a job (an added job that
 * autostarts, new replicas of a job that runs or was scaled), a slot
 * whose name a job leaving the stack still has once that has gone; a
 * failure is said in ch's text.
 */
static void
stack_start_new_slots(struct stack *st, const struct config_job *cj,
    struct stack_change *ch, int scaling)
{
	struct stack_slot	*s;
	struct job		*job;
	char			*why = NULL;
	size_t			 i, n;

	if (ch->kind == STACK_ADDED && !cj->autostart)
		return;
	if (ch->kind != STACK_ADDED && !scaling && !stack_cj_live(st, cj) &&
	    !cj->autostart)
		return;
	if (stack_slots_after_leave(st, cj) > 0)
		stack_change_say(ch, "starts once its old job has stopped");
	else if (ch->kind == STACK_ADDED) {
		if (stack_start(st, cj, NULL, 0, NULL, &why) == 0)
			return;
		goto fail;
	}
	s = stack_slots_of(st, cj, &n);
	for (i = 0; i < n; i++) {
		if (s[i].cur != NULL || s[i].gone || s[i].after_leave)
			continue;
		if (stack_spawn_slot(st, &s[i], NULL, 0, &job, &why) != 0)
			goto fail;
	}
	return;

fail:
	stack_change_say(ch, why);
	free(why);
}

/* Apply cfg's [groups.NAME] limits, lifting the ones old had and cfg has not. */
static void
stack_groups_apply(struct stack *st, const struct config *old,
    const struct config *cfg)
{
	size_t	i, k;

	for (i = 0; old != NULL && i < old->ngroups; i++) {
		for (k = 0; cfg != NULL && k < cfg->ngroups; k++) {
			if (strcmp(old->groups[i].name, cfg->groups[k].name) ==
			    0)
				break;
		}
		if (cfg == NULL || k == cfg->ngroups)
			jobtable_set_group_limit(st->jt, old->groups[i].name,
			    0);
	}
	for (i = 0; cfg != NULL && i < cfg->ngroups; i++)
		jobtable_set_group_limit(st->jt, cfg->groups[i].name,
		    cfg->groups[i].max_running);
}

/*
 * Move the stack to cfg (scaling: the same configuration, other counts
 * of replicas): match slots, stop what left, restart what changed in
 * dependency order, start what is new; the changes found, one per
 * configured job, go to *out.
 */
static void
stack_apply(struct stack *st, const struct config *cfg, int scaling,
    struct stack_change **out, size_t *nout)
{
	const struct config	 *old = st->config;
	const struct config_job	**order;
	struct stack_changes	  c = { NULL, 0 };
	struct stack_change	 *ch;
	struct stack_slot	 *ns;
	size_t			  nn, i, n, norder = 0, before;

	if (!scaling)
		stack_scales_keep(st, cfg);
	stack_classify(st, cfg, &c);
	/* How many replicas each job had, for "scaled". */
	for (i = 0; i < c.n; i++) {
		ch = &c.v[i];
		if (ch->kind == STACK_ADDED || old == NULL)
			continue;
		before = 0;
		(void)stack_slots_of(st, config_find_job(old, ch->name),
		    &before);
		ch->was = (int)before;
	}
	ns = stack_slots_make(st, cfg, &nn);
	stack_slots_match(st, cfg, ns, nn, &c, scaling);
	free(st->slots);
	st->slots = ns;
	st->nslots = nn;
	st->config = cfg;
	if (!scaling) {
		free(st->dir);
		st->dir = config_dir(cfg);
		stack_groups_apply(st, old, cfg);
		timetable_reload(st->timetable, cfg);
	}
	order = xcalloc((cfg != NULL ? cfg->njobs : 0) + 1, sizeof *order);
	for (i = 0; cfg != NULL && i < cfg->njobs; i++)
		stack_order_add(cfg, &cfg->jobs[i], order, &norder, 0);
	for (i = 0; i < norder; i++) {
		ch = stack_change_find(&c, order[i]->name);
		(void)stack_slots_of(st, order[i], &n);
		if (ch->kind != STACK_ADDED && ch->kind != STACK_REMOVED &&
		    ch->was != (int)n && ch->kind == STACK_UNCHANGED)
			ch->kind = STACK_SCALED;
		ch->now = (int)n;
		if (ch->kind == STACK_RESTARTED &&
		    stack_respec(st, order[i], ch) == 0)
			ch->kind = STACK_UPDATED;
		else if (ch->kind == STACK_UNCHANGED ||
		    ch->kind == STACK_SCALED)
			stack_restart_dependant(st, order[i], &c, ch);
		stack_start_new_slots(st, order[i], ch, scaling);
	}
	free(order);
	if (!scaling) {
		stack_unwatch_all(st);
		stack_watch_all(st);
	}
	stack_recheck(st);
	*out = c.v;
	*nout = c.n;
}

/*
 * Move the stack to cfg, which the caller frees after the stack (the old
 * configuration may go once this returns): unchanged jobs go on, changed
 * ones restart with their new spec (dependencies first), added ones
 * start if they autostart, removed ones are stopped and leave the table.
 * Jobs not from the configuration are never touched.  *out (free with
 * stack_changes_free()) says what became of each configured job, old or
 * new, in cfg's order then the removed.
 */
void
stack_reload(struct stack *st, const struct config *cfg,
    struct stack_change **out, size_t *nout)
{
	stack_apply(st, cfg, 0, out, nout);
}

/*
 * Run n replicas of configured job name (0 stops them all), stopping the
 * highest-numbered first, starting new ones as the others run; until a
 * reload changes its replicas.  -1 with *cause for an unknown job or a
 * count out of bounds.
 */
int
stack_scale(struct stack *st, const char *name, int n,
    struct stack_change **out, size_t *nout, char **cause)
{
	const struct config_option	*o;
	const struct config_job		*cj;
	size_t				 i;

	o = config_find_option("job", "replicas");
	if (st->config == NULL || (cj = config_find_job(st->config, name)) ==
	    NULL) {
		*cause = xprintf("no configured job named %s", name);
		return -1;
	}
	if (n < 0 || n > (int)o->max) {
		*cause = xprintf("replicas must be a number between 0 and %d",
		    (int)o->max);
		return -1;
	}
	for (i = 0; i < st->nscales; i++) {
		if (strcmp(st->scales[i].name, cj->name) == 0)
			break;
	}
	if (i == st->nscales) {
		st->scales = xreallocarray(st->scales, st->nscales + 1,
		    sizeof *st->scales);
		st->scales[st->nscales++].name = xstrdup(cj->name);
	}
	st->scales[i].replicas = n;
	stack_apply(st, st->config, 1, out, nout);
	return 0;
}

/*
 * stack_schedule_*: the configured jobs on a timer (timetable.h) start
 * as !restart and !run start them: a job of the table that has ended
 * runs again as itself (jobtable_restart(), which stops a running one
 * first: overlap = "restart"); a job with none in the table is started
 * with what it depends on (stack_start()).
 */

/* Return whether a run of configured job cj lives (timetable's busy). */
static int
stack_schedule_busy(const struct config_job *cj, void *arg)
{
	return stack_cj_live(arg, cj);
}

/* Configured job cj is due: run each of its jobs again, or start it. */
static void
stack_schedule_fire(const struct config_job *cj, void *arg)
{
	struct stack		*st = arg;
	struct stack_slot	*s;
	struct job		*job;
	char			*cause = NULL, *note;
	size_t			 n, i, had = 0;

	s = stack_slots_of(st, cj, &n);
	for (i = 0; i < n; i++) {
		if (s[i].cur == NULL)
			continue;
		had++;
		job = s[i].cur->job;
		if (jobtable_restart(st->jt, job, &cause) == 0)
			continue;
		note = xprintf("not started on schedule: %s", cause);
		job_set_note(job, note);
		jobtable_changed(st->jt, job);
		free(note);
		free(cause);
		cause = NULL;
	}
	if (had > 0)
		return;
	if (stack_start(st, cj, NULL, 0, NULL, &cause) != 0) {
		debuglog("stack: %s", cause);
		free(cause);
	}
}

/*
 * The deck quits (or jobdeck up ends): no job starts on its timer any
 * more, so that stopping them all comes to an end.
 */
void
stack_end_timers(struct stack *st)
{
	if (st == NULL)
		return;
	timetable_free(st->timetable);
	st->timetable = NULL;
}

/* Return the next due time (wall ms) of job's configured job, or -1. */
int64_t
stack_next_run(const struct stack *st, const struct job *job)
{
	if (st == NULL)
		return -1;
	return timetable_next(st->timetable, stack_job_config(st, job));
}

/* Return how many due runs of job's configured job were skipped, or -1. */
int64_t
stack_skipped_runs(const struct stack *st, const struct job *job)
{
	if (st == NULL)
		return -1;
	return timetable_skipped(st->timetable, stack_job_config(st, job));
}

/*
 * Return the dependency graph of the stack (stack.h): a node per
 * configured job (its first replica's job), an edge per depends_on
 * condition with whether it holds; free it with stack_graph_free().
 */
struct stack_graph *
stack_graph_new(struct stack *st)
{
	struct stack_graph	*g;
	struct stack_graph_node	*node;
	struct stack_graph_edge	*edge;
	const struct config_job	*cj;
	struct stack_slot	*s;
	struct stack_run	*r;
	size_t			 i, k, n, nedges = 0;

	g = xcalloc(1, sizeof *g);
	for (i = 0; st->config != NULL && i < st->config->njobs; i++)
		nedges += st->config->jobs[i].ndeps;
	g->nodes = xcalloc(st->nslots + 1, sizeof *g->nodes);
	g->edges = xcalloc(nedges + 1, sizeof *g->edges);
	for (i = 0; st->config != NULL && i < st->config->njobs; i++) {
		cj = &st->config->jobs[i];
		node = &g->nodes[g->nnodes++];
		node->name = cj->name;
		node->waited_ms = -1;
		s = stack_slots_of(st, cj, &n);
		if (n > 0 && (r = s[0].cur) != NULL) {
			node->job = r->job;
			node->state = job_state_name(job_state(r->job));
			node->started_at = job_start_time(r->job);
			node->waiting = r->held_since != 0;
			if (node->waiting)
				node->waited_ms = loop_now_ms() -
				    r->held_since;
			else
				node->waited_ms = r->waited_ms;
		} else if (n > 0 && s[0].gone)
			node->state = job_state_name(s[0].gone_state);
		for (k = 0; k < cj->ndeps; k++) {
			edge = &g->edges[g->nedges++];
			edge->from = cj->name;
			edge->to = cj->deps[k].browser ? "browser" :
			    cj->deps[k].name;
			edge->condition = stack_cond_name(cj->deps[k].cond);
			edge->gate = stack_dep_gate(st, &cj->deps[k], NULL);
		}
	}
	return g;
}

/* Free a graph of stack_graph_new(). */
void
stack_graph_free(struct stack_graph *g)
{
	if (g == NULL)
		return;
	free(g->nodes);
	free(g->edges);
	free(g);
}

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
#include "http.h"
#include "job.h"
#include "jobtable.h"
#include "launch.h"
#include "loop.h"
#include "probe.h"
#include "session.h"
#include "stack.h"
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
};

/* One replica of a configured job (the job itself without replicas). */
struct stack_slot {
	const struct config_job	*cj;
	int			 replica;	/* 1..N; 0: no replicas */
	struct stack_run	*cur;		/* its latest job, or NULL */

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

/* The work of the next turn: ask the gate again, stop a group's jobs. */
static void
stack_tick_cb(void *arg)
{
	struct stack	*st = arg;

	st->tick_timer = 0;
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

/* Return the name a slot's job gets: NAME, or NAME-N for a replica. */
static char *
stack_slot_name(const struct stack_slot *s)
{
	if (s->replica > 0)
		return xprintf("%s-%d", s->cj->name, s->replica);
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
		/* Held until it ended without a start (blocked, canceled). */
		if (st->runs[i]->held_since != 0) {
			st->runs[i]->waited_ms = loop_now_ms() -
			    st->runs[i]->held_since;
			st->runs[i]->held_since = 0;
		}
	}
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

/*
 * Make the stack of config's jobs on jt: the table's policy, its
 * subscriber, the groups' limits and the watched files.
 */
struct stack *
stack_new(struct loop *loop, struct jobtable *jt, const struct config *config,
    struct session *session, struct http *http)
{
	struct stack		*st;
	const struct config_job	*cj;
	size_t			 i, n;
	int			 r, nr;

	st = xcalloc(1, sizeof *st);
	st->loop = loop;
	st->jt = jt;
	st->config = config;
	st->session = session;
	st->http = http;
	st->dir = config_dir(config);
	st->sub = -1;
	for (i = n = 0; config != NULL && i < config->njobs; i++)
		n += config->jobs[i].replicas > 1 ?
		    (size_t)config->jobs[i].replicas : 1;
	st->slots = xcalloc(n + 1, sizeof *st->slots);
	for (i = 0; config != NULL && i < config->njobs; i++) {
		cj = &config->jobs[i];
		nr = cj->replicas > 1 ? cj->replicas : 1;
		for (r = 1; r <= nr; r++) {
			st->slots[st->nslots].cj = cj;
			st->slots[st->nslots].replica = nr > 1 ? r : 0;
			st->nslots++;
		}
	}
	jobtable_set_policy(jt, &stack_policy, st);
	st->sub = jobtable_subscribe(jt, &stack_cbs, st);
	for (i = 0; config != NULL && i < config->ngroups; i++)
		jobtable_set_group_limit(jt, config->groups[i].name,
		    config->groups[i].max_running);
	if (config != NULL)
		stack_watch_all(st);
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
	struct stack_run	*prev;
	struct launch		*l;
	struct job		*job;
	char			*why = NULL;
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
		*cause = xprintf("cannot start %s (not a job of the stack's "
		    "configuration)", cj->name);
		return -1;
	}
	for (i = 0; i < n; i++) {
		l = launch_new_at(cj, &st->config->settings, st->session,
		    params, nparams, s[i].replica, st->dir, &why);
		if (l == NULL)
			goto fail;
		prev = s[i].cur;
		st->spawning = &s[i];
		st->spawned = NULL;
		job = jobtable_spawn(st->jt, launch_spec(l), &why);
		launch_free(l);
		if (job == NULL) {
			/* A run the gate made for it goes with it. */
			if (st->spawned != NULL)
				stack_run_unborn(st, st->spawned, prev);
			st->spawning = NULL;
			goto fail;
		}
		stack_run_of(st, job);	/* the gate may not have seen it */
		st->spawning = NULL;
		/* The table told of it as queued: say for what it waits. */
		if (job_state(job) == JOB_WAITING)
			jobtable_changed(st->jt, job);
		if (first != NULL && *first == NULL)
			*first = job;
	}
	return 0;

fail:
	*cause = xprintf("cannot start %s (%s)", cj->name, why);
	free(why);
	return -1;
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

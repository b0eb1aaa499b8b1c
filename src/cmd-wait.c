/*
 * cmd-wait.c: !wait [--timeout S] ID..., for scripts (jobdeck ctl wait):
 * the jobs are found here and watched as a task on the face's sink
 * (cmdsink.h), with no polling: it answers once every job it names has
 * ended for good (not live: no restart pending, see jobtable_is_live())
 * or left the table, or its time limit passed, with a line per job (or
 * an array of job objects) and the exit code of the policy
 * (waitstatus_end_code()); cut short when the deck quits.  A face
 * without a sink (the prompt) cannot wait: there the command fails.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cmdsink.h"
#include "config.h"
#include "job.h"
#include "jobfield.h"
#include "jobtable.h"
#include "loop.h"
#include "textesc.h"
#include "waitstatus.h"
#include "xmalloc.h"

static void	cmd_wait_exec(struct cmd_ctx *, int, char **);

enum { WAIT_TIMEOUT };
static const struct cmd_option cmd_wait_options[] = {
	[WAIT_TIMEOUT] = { .name = "--timeout", .alias = "-t",
	    .value = "S" },
	{ .name = NULL }
};

const struct cmd_entry cmd_wait_entry = {
	.name = "wait",
	.options = cmd_wait_options,
	.args = "ID...",
	.help = "wait until the jobs end (no restart pending), then say how "
	    "each ended; the status is the first failure's (control socket "
	    "only; --timeout: give up after S seconds)",
	.min_args = 1,
	.max_args = -1,
	.flags = CMD_READ_ONLY,
	.exec = cmd_wait_exec,
};

/*
 * One job of a wait: until it ends, the job; then how it ended, said at
 * once (the job may leave the table before the others end).
 */
struct cmd_wait_job {
	struct job	*job;		/* NULL once it left the table */
	int		 done;		/* the order it ended in, 0: not yet */
	int		 code;		/* its exit status */
	char		*text;		/* "[3] web: failed (exit 2)" */
	char		*json;		/* its job object, with --json */
};

/* A wait: its jobs as given, its time limit, the sink it answers on. */
struct cmd_wait {
	struct cmd_sink		*sink;
	struct jobtable		*jt;
	struct loop		*loop;
	int			 json;
	struct cmd_wait_job	*jobs;
	int			 n;
	int			 ndone;		/* how many have ended */
	int64_t			 ms;		/* its time limit, 0: none */
	uint64_t		 timer;		/* ... armed */
	uint64_t		 soon;		/* a look after an end */
};

static void	cmd_wait_start(void *);
static void	cmd_wait_exited(struct job *, void *);
static void	cmd_wait_removed(struct job *, void *);
static void	cmd_wait_stop(const char *, void *);
static void	cmd_wait_free(void *);

static const struct cmd_task_ops cmd_wait_task = {
	.start = cmd_wait_start,
	.exited = cmd_wait_exited,
	.removed = cmd_wait_removed,
	.stop = cmd_wait_stop,
	.free = cmd_wait_free,
	.flags = CMD_TASK_CODE | CMD_TASK_QUIET,
};

/* Free a wait: its timers, lines and objects. */
static void
cmd_wait_free(void *arg)
{
	struct cmd_wait	*w = arg;
	int		 i;

	if (w->loop != NULL && w->timer != 0)
		loop_cancel_timer(w->loop, w->timer);
	if (w->loop != NULL && w->soon != 0)
		loop_cancel_timer(w->loop, w->soon);
	for (i = 0; i < w->n; i++) {
		free(w->jobs[i].text);
		free(w->jobs[i].json);
	}
	free(w->jobs);
	free(w);
}

/*
 * Return the exit status a wait gives for a job: its end's code
 * (job_end_code()), or live, the code of why the wait gave up on it while
 * it is still live (WAITSTATUS_TIMED_OUT: the wait's timeout).
 */
static int
cmd_wait_code(struct jobtable *jt, const struct job *job, int live)
{
	int	code;

	if (jobtable_is_live(jt, job) || (code = job_end_code(job)) < 0)
		return live;
	return code;
}

/*
 * Return a wait's line for a job: "[3] web: completed", "[4] api: failed
 * (exit 2)", "[5] db: canceled (SIGTERM)", "[6] web: blocked: api failed
 * (exited 2)", or how a live one stands and
 * why it is told now ("running (the wait timed out)").
 */
static char *
cmd_wait_line(struct jobtable *jt, struct job *job, const char *why)
{
	char		 how[256], name[WAITSTATUS_NAME_MAX], *line, *safe;
	const char	*label = job_name(job), *state;
	int		 status = job_end_status(job), code, sig;

	if (label == NULL)
		label = job_command(job);
	state = job_state_name(job_state(job));
	code = waitstatus_exit_code(status);
	sig = waitstatus_signal(status);
	if (jobtable_is_live(jt, job) && !job_is_running(job) &&
	    job_state(job) != JOB_QUEUED && job_state(job) != JOB_WAITING)
		snprintf(how, sizeof how, "restarting");
	else if (jobtable_is_live(jt, job) ||
	    job_state(job) == JOB_COMPLETED)
		snprintf(how, sizeof how, "%s", state);
	else if (job_state(job) == JOB_BLOCKED)
		snprintf(how, sizeof how, "%s: %s", state,
		    job_start_error(job));
	else if (code >= 0)
		snprintf(how, sizeof how, "%s (exit %d)", state, code);
	else if (sig > 0)
		snprintf(how, sizeof how, "%s (%s)", state,
		    waitstatus_signal_name(sig, name, sizeof name));
	else
		snprintf(how, sizeof how, "%s", state);
	line = xprintf("[%d] %s: %s%s%s%s", job_id(job), label, how,
	    why != NULL ? " (" : "", why != NULL ? why : "",
	    why != NULL ? ")" : "");
	if (!textesc_needed(line, strlen(line)))
		return line;
	safe = textesc_visible(line, strlen(line));
	free(line);
	return safe;
}

/*
 * A job of a wait has ended (or the wait gives up on it, saying why, with
 * live the code of that): keep how it stands now, its line and (--json)
 * its object, and its place in the order of ends.
 */
static void
cmd_wait_done(struct cmd_wait *w, struct cmd_wait_job *wj, const char *why,
    int live)
{
	wj->done = ++w->ndone;
	wj->code = cmd_wait_code(w->jt, wj->job, live);
	wj->text = cmd_wait_line(w->jt, wj->job, why);
	if (w->json)
		wj->json = jobfield_json_doc(wj->job, NULL);
}

/*
 * Answer: what is still live is told as it stands (why: the wait timed
 * out, the deck quits; live: the code of that, see cmd_wait_code()), then
 * a line per job in the order given (--json: an array of job objects),
 * and done with the code of the first job, in the order they ended, that
 * did not complete; 0 when all did.  The wait is freed.
 */
static void
cmd_wait_answer(struct cmd_wait *w, const char *why, int live)
{
	struct cmd_wait_job	*wj;
	struct xbuf		 b = { NULL, 0, 0 };
	int			 i, k, status = 0;

	for (i = 0; i < w->n; i++) {
		if (w->jobs[i].done == 0 && w->jobs[i].job != NULL)
			cmd_wait_done(w, &w->jobs[i], why, live);
	}
	for (k = 1; k <= w->ndone && status == 0; k++) {
		for (i = 0; i < w->n; i++) {
			if (w->jobs[i].done == k)
				status = w->jobs[i].code;
		}
	}
	if (w->json)
		xbuf_add(&b, "[", 1);
	for (i = 0; i < w->n; i++) {
		wj = &w->jobs[i];
		if (w->json) {
			if (i > 0)
				xbuf_add(&b, ",", 1);
			xbuf_add(&b, wj->json, strlen(wj->json));
		} else
			cmd_sink_text(w->sink, wj->text, strlen(wj->text));
	}
	if (w->json) {
		xbuf_add(&b, "]", 1);
		cmd_sink_json(w->sink, b.s, b.len);
		xbuf_clear(&b);
	}
	cmd_sink_done(w->sink, status);
}

/*
 * Look at a wait's jobs: those that have ended for good (not live: no
 * restart pending) are done; once all are, answer (the wait is freed).
 */
static void
cmd_wait_check(struct cmd_wait *w)
{
	struct cmd_wait_job	*wj;
	int			 i;

	for (i = 0; i < w->n; i++) {
		wj = &w->jobs[i];
		if (wj->done == 0 && wj->job != NULL &&
		    !jobtable_is_live(w->jt, wj->job))
			cmd_wait_done(w, wj, NULL, WAITSTATUS_NOT_RUN);
	}
	if (w->ndone == w->n)
		cmd_wait_answer(w, NULL, WAITSTATUS_NOT_RUN);
}

/* A wait's time limit: answer with what is still live as it stands. */
static void
cmd_wait_timeout_cb(void *arg)
{
	struct cmd_wait	*w = arg;

	w->timer = 0;
	cmd_wait_answer(w, "the wait timed out", WAITSTATUS_TIMED_OUT);
}

/* After a job ended (its restart policy has acted by now): look. */
static void
cmd_wait_soon_cb(void *arg)
{
	struct cmd_wait	*w = arg;

	w->soon = 0;
	cmd_wait_check(w);
}

/*
 * Look soon: a job's end is told before its restart policy acts, so a
 * zero-delay timer lets the policy arm its restart first.
 */
static void
cmd_wait_soon(struct cmd_wait *w)
{
	if (w->soon == 0)
		w->soon = loop_add_timer(w->loop, 0, cmd_wait_soon_cb, w);
}

/* A job ended: look at the wait soon. */
static void
cmd_wait_exited(struct job *job, void *arg)
{
	(void)job;
	cmd_wait_soon(arg);
}

/*
 * A job of the wait leaves the table: it has ended (only an ended job
 * leaves), so how it ended is kept now, before it is freed.
 */
static void
cmd_wait_removed(struct job *job, void *arg)
{
	struct cmd_wait	*w = arg;
	int		 i;

	for (i = 0; i < w->n; i++) {
		if (w->jobs[i].job != job)
			continue;
		if (w->jobs[i].done == 0)
			cmd_wait_done(w, &w->jobs[i], NULL, WAITSTATUS_NOT_RUN);
		w->jobs[i].job = NULL;
	}
	cmd_wait_soon(w);
}

/* The deck quits: answer with how things stand. */
static void
cmd_wait_stop(const char *why, void *arg)
{
	cmd_wait_answer(arg, why, WAITSTATUS_NOT_RUN);
}

/*
 * The face has opened the answer: arm the time limit, and answer at once
 * if the jobs have all ended already.
 */
static void
cmd_wait_start(void *arg)
{
	struct cmd_wait	*w = arg;

	if (w->ms > 0)
		w->timer = loop_add_timer(w->loop, w->ms, cmd_wait_timeout_cb,
		    w);
	cmd_wait_check(w);
}

/*
 * !wait [--timeout S] ID...: every ID must name a job (else a usage error,
 * so `jobdeck ctl wait` exits 2 at once), then a task on the sink waits.
 */
static void
cmd_wait_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	const struct cmd_optval	*t = &ctx->opts[WAIT_TIMEOUT];
	struct cmd_wait		*w;
	struct job		*job;
	char			*cause = NULL;
	double			 secs = 0;
	int			 i;

	if (ctx->sink == NULL) {
		cmd_error(ctx, "wait works only through the control socket "
		    "(jobdeck ctl wait)");
		return;
	}
	if (t->count > 0 && cmd_parse_seconds(t->value, CONFIG_MAX_SECONDS,
	    &secs) != 0) {
		cmd_usage_error(ctx, "wait: --timeout wants seconds from 0 to "
		    "%.0f, not '%s'", CONFIG_MAX_SECONDS, t->value);
		return;
	}
	w = xcalloc(1, sizeof *w);
	w->sink = ctx->sink;
	w->jt = ctx->jt;
	w->loop = cmd_sink_loop(ctx->sink);
	w->json = ctx->json;
	w->jobs = xcalloc((size_t)(argc - ctx->first), sizeof *w->jobs);
	for (i = ctx->first; i < argc; i++) {
		if ((job = jobtable_find(ctx->jt, argv[i], &cause)) == NULL) {
			cmd_usage_error(ctx, "%s", cause);
			free(cause);
			cmd_wait_free(w);
			return;
		}
		w->jobs[w->n++].job = job;
	}
	w->ms = (int64_t)(secs * 1000);
	if (w->ms == 0 && secs > 0)
		w->ms = 1;
	if (cmd_sink_begin(ctx->sink, &cmd_wait_task, w, &cause) != 0) {
		cmd_error(ctx, "wait: %s", cause);
		free(cause);
	}
}

/*
 * ctl-wait.c: `wait ID...` over the control socket (ctl-private.h): a
 * client that answers once every job it names has ended for good or left
 * the table, or its time limit passed, with a line per job and the exit
 * code of the policy (waitstatus_end_code()); cut short when the deck
 * quits.
 */

#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "ctl-private.h"
#include "job.h"
#include "jobfield.h"
#include "jobtable.h"
#include "loop.h"
#include "outq.h"
#include "textesc.h"
#include "waitstatus.h"


static void	ctl_wait_done(struct ctl_client *, struct ctl_wait *,
		    const char *, int);

/*
 * A job of a wait leaves the table: it has ended (only an ended job
 * leaves), so how it ended is kept now, before it is freed.
 */
void
ctl_waits_removed(struct ctl *ctl, struct job *job)
{
	struct ctl_client	*c;
	int			 i, k;

	for (i = 0; i < ctl->nclients; i++) {
		c = ctl->clients[i];
		if (!(c->flags & CTL_WAIT) || (c->flags & CTL_DEAD))
			continue;
		for (k = 0; k < c->nwaits; k++) {
			if (c->waits[k].job != job)
				continue;
			if (c->waits[k].done == 0)
				ctl_wait_done(c, &c->waits[k], NULL,
				    WAITSTATUS_NOT_RUN);
			c->waits[k].job = NULL;
		}
	}
	ctl_waits_soon(ctl);
}

/* wait: the client answers once the jobs have ended (ctl_wait_check()). */
int
ctl_cmd_wait(struct job **jobs, int n, int64_t timeout_ms, void *arg,
    char **cause)
{
	struct ctl_client	*c = arg;
	int			 i;

	if (ctl_cmd_stream(c, CTL_STREAM_WAIT, NULL, cause) != 0)
		return -1;
	c->waits = xcalloc((size_t)n, sizeof *c->waits);
	for (i = 0; i < n; i++)
		c->waits[i].job = jobs[i];
	c->nwaits = n;
	c->wait_ms = timeout_ms;
	return 0;
}

/* Free what a wait holds. */
void
ctl_wait_free(struct ctl_client *c)
{
	int	i;

	for (i = 0; i < c->nwaits; i++) {
		free(c->waits[i].text);
		free(c->waits[i].json);
	}
	free(c->waits);
	c->waits = NULL;
	c->nwaits = 0;
}

/*
 * Return the exit status a wait gives for a job: its end's code
 * (job_end_code()), or live, the code of why the wait gave up on it while
 * it is still live (WAITSTATUS_TIMED_OUT: the wait's timeout).
 */
static int
ctl_wait_code(const struct ctl *ctl, const struct job *job, int live)
{
	int	code;

	if (jobtable_is_live(ctl->jt, job) || (code = job_end_code(job)) < 0)
		return live;
	return code;
}

/*
 * Return a wait's line for a job: "[3] web: completed", "[4] api: failed
 * (exit 2)", "[5] db: canceled (SIGTERM)", or how a live one stands and
 * why it is told now ("running (the wait timed out)").
 */
static char *
ctl_wait_line(const struct ctl *ctl, struct job *job, const char *why)
{
	char		 how[64], name[WAITSTATUS_NAME_MAX], *line, *safe;
	const char	*label = job_name(job), *state;
	int		 status = job_end_status(job), code, sig;

	if (label == NULL)
		label = job_command(job);
	state = job_state_name(job_state(job));
	code = waitstatus_exit_code(status);
	sig = waitstatus_signal(status);
	if (jobtable_is_live(ctl->jt, job) && !job_is_running(job) &&
	    job_state(job) != JOB_QUEUED && job_state(job) != JOB_WAITING)
		snprintf(how, sizeof how, "restarting");
	else if (jobtable_is_live(ctl->jt, job) ||
	    job_state(job) == JOB_COMPLETED)
		snprintf(how, sizeof how, "%s", state);
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
ctl_wait_done(struct ctl_client *c, struct ctl_wait *w, const char *why,
    int live)
{
	w->done = ++c->ndone;
	w->code = ctl_wait_code(c->ctl, w->job, live);
	w->text = ctl_wait_line(c->ctl, w->job, why);
	if (c->json)
		w->json = jobfield_json_doc(w->job, NULL);
}

/*
 * Answer a wait: what is still live is told as it stands (why: the wait
 * timed out, the deck quits; live: the code of that, see ctl_wait_code()),
 * then a line per job in the order given (--json: an array of job
 * objects) and the exit line: the code of the first job, in the order
 * they ended, that did not complete; 0 when all did.  The caller flushes.
 */
void
ctl_wait_answer(struct ctl_client *c, const char *why, int live)
{
	struct ctl	*ctl = c->ctl;
	struct ctl_wait	*w;
	char		*tail;
	int		 i, k, status = 0;

	for (i = 0; i < c->nwaits; i++) {
		if (c->waits[i].done == 0 && c->waits[i].job != NULL)
			ctl_wait_done(c, &c->waits[i], why, live);
	}
	for (k = 1; k <= c->ndone && status == 0; k++) {
		for (i = 0; i < c->nwaits; i++) {
			if (c->waits[i].done == k)
				status = c->waits[i].code;
		}
	}
	if (c->json)
		outq_add(c->out, "[", 1);
	for (i = 0; i < c->nwaits; i++) {
		w = &c->waits[i];
		if (c->json) {
			if (i > 0)
				outq_add(c->out, ",", 1);
			outq_add(c->out, w->json, strlen(w->json));
		} else {
			outq_add(c->out, w->text, strlen(w->text));
			outq_add(c->out, "\n", 1);
		}
	}
	if (c->json)
		outq_add(c->out, "]\n", 2);
	tail = xprintf("%cexit %d\n", CTL_CONTROL, status);
	outq_add(c->out, tail, strlen(tail));
	free(tail);
	if (c->wait_timer != 0 && ctl->loop != NULL)
		loop_cancel_timer(ctl->loop, c->wait_timer);
	c->wait_timer = 0;
	ctl->nwait--;
	c->flags &= ~CTL_WAIT;
	c->flags |= CTL_CLOSING | CTL_SENT;
}

/*
 * Look at a wait's jobs: those that have ended for good (not live: no
 * restart pending) are done; once all are, answer.  Returns whether it
 * answered.
 */
static int
ctl_wait_check(struct ctl_client *c)
{
	struct ctl_wait	*w;
	int		 i;

	for (i = 0; i < c->nwaits; i++) {
		w = &c->waits[i];
		if (w->done == 0 && w->job != NULL &&
		    !jobtable_is_live(c->ctl->jt, w->job))
			ctl_wait_done(c, w, NULL, WAITSTATUS_NOT_RUN);
	}
	if (c->ndone < c->nwaits)
		return 0;
	ctl_wait_answer(c, NULL, WAITSTATUS_NOT_RUN);
	return 1;
}

/* A wait's time limit: answer with what is still live as it stands. */
static void
ctl_wait_timeout_cb(void *arg)
{
	struct ctl_client	*c = arg;

	c->wait_timer = 0;
	if ((c->flags & CTL_DEAD) || !(c->flags & CTL_WAIT))
		return;
	ctl_wait_answer(c, "the wait timed out", WAITSTATUS_TIMED_OUT);
	ctl_client_flush(c);
}

/*
 * After a job ended (its restart policy has acted by now) or left the
 * table: look at every wait.
 */
static void
ctl_waits_cb(void *arg)
{
	struct ctl		*ctl = arg;
	struct ctl_client	*c;
	int			 i;

	ctl->wait_timer = 0;
	for (i = 0; i < ctl->nclients; i++) {
		c = ctl->clients[i];
		if ((c->flags & CTL_WAIT) && !(c->flags & CTL_DEAD) &&
		    ctl_wait_check(c))
			ctl_client_flush(c);
	}
}

/*
 * Look at the waits soon: a job's end is told before its restart policy
 * acts, so a zero-delay timer lets the policy arm its restart first.
 */
void
ctl_waits_soon(struct ctl *ctl)
{
	if (ctl->nwait > 0 && ctl->wait_timer == 0)
		ctl->wait_timer = loop_add_timer(ctl->loop, 0, ctl_waits_cb,
		    ctl);
}

/*
 * Start a wait after its "0" status line: a follow line (so the client
 * takes the exit line's status), keepalives while it waits (so the
 * client's time limit never cuts it), its own time limit, and an answer
 * at once if its jobs have all ended already.
 */
void
ctl_wait_start(struct ctl_client *c)
{
	struct ctl	*ctl = c->ctl;
	char		 line[16];

	snprintf(line, sizeof line, "%cfollow\n", CTL_CONTROL);
	outq_add(c->out, line, strlen(line));
	c->flags |= CTL_WAIT;
	ctl->nwait++;
	ctl_keepalive_start(ctl);
	if (c->wait_ms > 0)
		c->wait_timer = loop_add_timer(ctl->loop, c->wait_ms,
		    ctl_wait_timeout_cb, c);
	ctl_wait_check(c);
	ctl_client_flush(c);
}

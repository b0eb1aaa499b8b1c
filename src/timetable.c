/*
 * timetable.c: the configured jobs on a timer (timetable.h).  One entry
 * per job with a schedule or an every: its parsed cron expression or
 * period, its next due time in wall milliseconds, its loop timer, its
 * skips and whether a run is queued.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config.h"
#include "cron.h"
#include "debuglog.h"
#include "duration.h"
#include "fatal.h"
#include "loop.h"
#include "timetable.h"
#include "xmalloc.h"

#define TIMETABLE_MAX_WAIT	60000	/* ms a timer waits at most */

struct timetable_entry {
	struct timetable	*tt;
	const struct config_job	*cj;
	struct cron		*cron;		/* a schedule, or NULL */
	int64_t			 period;	/* an every's ms, or 0 */
	int64_t			 due;		/* wall ms; -1: never again */
	uint64_t		 timer;
	uint64_t		 soon;		/* a queued run's check */
	int64_t			 skipped;
	int			 queued;
};

struct timetable {
	struct loop			*loop;
	const struct timetable_cbs	*cbs;
	void				*arg;
	int64_t				 start;	/* wall ms: every's anchor */
	struct timetable_entry		*entries;
	size_t				 nentries;
};

static void	timetable_timer_cb(void *);
static void	timetable_soon_cb(void *);

/* Return the first due time of e strictly after wall ms now, or -1. */
static int64_t
timetable_due_after(const struct timetable_entry *e, int64_t now)
{
	time_t	t;
	int64_t	k;

	if (e->cron != NULL) {
		t = cron_next(e->cron, (time_t)(now / 1000));
		return t == (time_t)-1 ? -1 : (int64_t)t * 1000;
	}
	k = now < e->tt->start ? 0 : (now - e->tt->start) / e->period;
	return e->tt->start + (k + 1) * e->period;
}

/* Arm e's timer for its due time (a minute at most), unless it has none. */
static void
timetable_arm(struct timetable_entry *e, int64_t now)
{
	int64_t	wait;

	if (e->timer != 0)
		loop_cancel_timer(e->tt->loop, e->timer);
	e->timer = 0;
	if (e->due < 0)
		return;
	wait = e->due - now;
	if (wait < 0)
		wait = 0;
	if (wait > TIMETABLE_MAX_WAIT)
		wait = TIMETABLE_MAX_WAIT;
	e->timer = loop_add_timer(e->tt->loop, wait, timetable_timer_cb, e);
}

/* A job is due: start it, or as its overlap says while a run is live. */
static void
timetable_due(struct timetable_entry *e)
{
	struct timetable	*tt = e->tt;

	if (!tt->cbs->busy(e->cj, tt->arg)) {
		e->queued = 0;
		tt->cbs->fire(e->cj, tt->arg);
		return;
	}
	switch (e->cj->overlap) {
	case CONFIG_OVERLAP_RESTART:
		tt->cbs->fire(e->cj, tt->arg);
		return;
	case CONFIG_OVERLAP_QUEUE:
		if (!e->queued) {
			e->queued = 1;
			return;
		}
		break;
	case CONFIG_OVERLAP_SKIP:
		break;
	}
	e->skipped++;
	debuglog("timetable: %s still runs, its run is skipped (%lld)",
	    e->cj->name, (long long)e->skipped);
}

/*
 * A timer of e went off: before its due time (the wall clock moved, or
 * the wait was capped) it waits again; at or after it, the job is due
 * and the next due time is the first after now.
 */
static void
timetable_timer_cb(void *arg)
{
	struct timetable_entry	*e = arg;
	int64_t			 now = loop_wall_ms();

	e->timer = 0;
	if (now < e->due) {
		/* The clock went back: a due time far ahead is recomputed. */
		if (e->due - now > 2 * TIMETABLE_MAX_WAIT && e->cron != NULL)
			e->due = timetable_due_after(e, now);
		timetable_arm(e, now);
		return;
	}
	e->due = timetable_due_after(e, now);
	timetable_arm(e, now);
	timetable_due(e);
}

/* A queued run's check, on the turn after a run ended. */
static void
timetable_soon_cb(void *arg)
{
	struct timetable_entry	*e = arg;
	struct timetable	*tt = e->tt;

	e->soon = 0;
	if (e->queued && !tt->cbs->busy(e->cj, tt->arg)) {
		e->queued = 0;
		tt->cbs->fire(e->cj, tt->arg);
	}
}

/* Return whether two strings are both NULL or equal. */
static int
timetable_same(const char *a, const char *b)
{
	return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

/*
 * Make the entries of config's jobs on a timer (config NULL: none) at
 * now; an entry of old (n of them, NULL: none) for a job of the same
 * name and timetable keeps its due time, skips and queued run.
 */
static void
timetable_make(struct timetable *tt, const struct config *config,
    const struct timetable_entry *old, size_t n, int64_t now)
{
	struct timetable_entry	*e;
	const struct config_job	*cj;
	char			*cause = NULL;
	double			 secs;
	size_t			 i, k;

	tt->entries = NULL;
	tt->nentries = 0;
	if (config == NULL)
		return;
	tt->entries = xcalloc(config->njobs + 1, sizeof *tt->entries);
	for (i = 0; i < config->njobs; i++) {
		cj = &config->jobs[i];
		if (cj->schedule == NULL && cj->every == NULL)
			continue;
		e = &tt->entries[tt->nentries++];
		e->tt = tt;
		e->cj = cj;
		/* Both were checked at load (config.c): neither fails. */
		if (cj->schedule != NULL &&
		    (e->cron = cron_parse(cj->schedule, &cause)) == NULL)
			fatal("timetable: %s: %s", cj->name, cause);
		if (cj->every != NULL) {
			if (duration_parse("every", cj->every,
			    CONFIG_MAX_SECONDS, &secs, &cause) != 0)
				fatal("timetable: %s: %s", cj->name, cause);
			e->period = (int64_t)(secs * 1000 + 0.5);
			if (e->period < 1)
				e->period = 1;
		}
		e->due = timetable_due_after(e, now);
		for (k = 0; k < n; k++) {
			if (strcmp(old[k].cj->name, cj->name) != 0)
				continue;
			e->skipped = old[k].skipped;
			e->queued = old[k].queued;
			if (timetable_same(old[k].cj->schedule, cj->schedule) &&
			    timetable_same(old[k].cj->every, cj->every))
				e->due = old[k].due;
			break;
		}
		timetable_arm(e, now);
		if (e->queued)
			e->soon = loop_add_timer(tt->loop, 0,
			    timetable_soon_cb, e);
	}
}

/* Call off the entries' timers and free them. */
static void
timetable_clear(struct timetable *tt)
{
	size_t	i;

	for (i = 0; i < tt->nentries; i++) {
		if (tt->entries[i].timer != 0)
			loop_cancel_timer(tt->loop, tt->entries[i].timer);
		if (tt->entries[i].soon != 0)
			loop_cancel_timer(tt->loop, tt->entries[i].soon);
		cron_free(tt->entries[i].cron);
	}
	free(tt->entries);
	tt->entries = NULL;
	tt->nentries = 0;
}

/*
 * Make the timetable of config's jobs on a timer (config NULL: none),
 * starting now: the first due time of each is after now.
 */
struct timetable *
timetable_new(struct loop *loop, const struct config *config,
    const struct timetable_cbs *cbs, void *arg)
{
	struct timetable	*tt;

	tt = xcalloc(1, sizeof *tt);
	tt->loop = loop;
	tt->cbs = cbs;
	tt->arg = arg;
	tt->start = loop_wall_ms();
	timetable_make(tt, config, NULL, 0, tt->start);
	return tt;
}

/*
 * Move the timetable to config (a reload; the old config may go once
 * this returns): a job whose schedule or every is unchanged keeps its
 * due time, its skips and a queued run; every keeps the deck's start as
 * its anchor.
 */
void
timetable_reload(struct timetable *tt, const struct config *config)
{
	struct timetable_entry	*old;
	size_t			 n, i;

	if (tt == NULL)
		return;
	old = tt->entries;
	n = tt->nentries;
	for (i = 0; i < n; i++) {
		if (old[i].timer != 0)
			loop_cancel_timer(tt->loop, old[i].timer);
		if (old[i].soon != 0)
			loop_cancel_timer(tt->loop, old[i].soon);
		old[i].timer = old[i].soon = 0;
	}
	tt->entries = NULL;
	tt->nentries = 0;
	timetable_make(tt, config, old, n, loop_wall_ms());
	for (i = 0; i < n; i++)
		cron_free(old[i].cron);
	free(old);
}

/* Free the timetable: its timers are called off. */
void
timetable_free(struct timetable *tt)
{
	if (tt == NULL)
		return;
	timetable_clear(tt);
	free(tt);
}

/* Return the entry of configured job cj, or NULL when it has no timer. */
static struct timetable_entry *
timetable_entry(const struct timetable *tt, const struct config_job *cj)
{
	size_t	i;

	for (i = 0; tt != NULL && cj != NULL && i < tt->nentries; i++) {
		if (tt->entries[i].cj == cj)
			return &tt->entries[i];
	}
	return NULL;
}

/*
 * A run of cj ended: a run queued for it starts on the next turn, once
 * no run of it is live.
 */
void
timetable_ended(struct timetable *tt, const struct config_job *cj)
{
	struct timetable_entry	*e;

	if ((e = timetable_entry(tt, cj)) == NULL || !e->queued ||
	    e->soon != 0)
		return;
	e->soon = loop_add_timer(tt->loop, 0, timetable_soon_cb, e);
}

/* Return cj's next due time in wall ms, or -1 (no timer, or never). */
int64_t
timetable_next(const struct timetable *tt, const struct config_job *cj)
{
	struct timetable_entry	*e;

	if ((e = timetable_entry(tt, cj)) == NULL)
		return -1;
	return e->due;
}

/* Return how many of cj's runs were skipped, or -1 when it has no timer. */
int64_t
timetable_skipped(const struct timetable *tt, const struct config_job *cj)
{
	struct timetable_entry	*e;

	if ((e = timetable_entry(tt, cj)) == NULL)
		return -1;
	return e->skipped;
}

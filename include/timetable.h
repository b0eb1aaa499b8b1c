/*
 * timetable: the configured jobs of a stack that run on a timer, a
 * schedule (a cron expression, cron.h) or an every (a duration from the
 * timetable's start, duration.h).  Each has one loop timer for its next
 * due time, computed from the timetable alone (the next matching minute
 * after now, or start + k * every), never from when a run ended, so a
 * schedule does not drift with load; a due time missed (a suspended
 * machine) is not made up, the next one after now is.  The timer is
 * capped at a minute and checked against the wall clock when it fires,
 * so a changed clock is followed within a minute.
 *
 * When a job is due, the owner is asked whether a run of it is still
 * live (busy); if not, it is started (fire).  If it is, its overlap
 * decides: skip counts the skip; queue starts one run once the live one
 * ends (timetable_ended(); a second due while one is queued is a skip);
 * restart fires at once (the owner stops the run, then starts it).
 *
 * A reload (timetable_reload()) keeps, for each job by name, its skips,
 * a queued run and, when its schedule or every is the same, its due time.
 *
 * Ownership: the caller owns the struct timetable and frees it before
 * the loop; it borrows the loop and the config (whose jobs it points
 * to, until timetable_reload() moves it to another), and owns its
 * timers.
 */
#ifndef JOBDECK_TIMETABLE_H
#define JOBDECK_TIMETABLE_H

#include <stdint.h>

struct config;
struct config_job;
struct loop;
struct timetable;

/* What a timetable asks of its owner; neither is called re-entrantly. */
struct timetable_cbs {
	int	(*busy)(const struct config_job *, void *arg);
	void	(*fire)(const struct config_job *, void *arg);
};

struct timetable *timetable_new(struct loop *, const struct config *,
		    const struct timetable_cbs *, void *arg);
void		 timetable_reload(struct timetable *, const struct config *);
void		 timetable_free(struct timetable *);
void		 timetable_ended(struct timetable *, const struct config_job *);
int64_t		 timetable_next(const struct timetable *,
		    const struct config_job *);
int64_t		 timetable_skipped(const struct timetable *,
		    const struct config_job *);

#endif

/*
 * cron: standard five-field cron expressions in local time.
 *
 *	minute hour day-of-month month day-of-week
 *
 * Each field is a comma-separated list of items; an item is `*`, a value,
 * or a range `A-B`, each optionally followed by a step `/S` (`*`/5,
 * 1-10/2; `A/S` is A to the field's end by S, as cronie reads it).
 * Months take JAN..DEC and days of the week SUN..SAT, in any case, also
 * in ranges; in the day of the week both 0 and 7 are Sunday (5-7 is
 * Friday to Sunday).  The macros @yearly (@annually), @monthly, @weekly,
 * @daily (@midnight) and @hourly stand for their five fields.  When both
 * the day of the month and the day of the week are restricted (neither
 * field starts with `*`), a day matching either is a day to run, as in
 * every cron since Vixie's; otherwise both must match.  An expression
 * whose day of the month exists in none of its months ("0 0 30 2 *") is
 * refused.  Errors name the field: "schedule: field 2 (hour): 24 is out
 * of range 0-23".
 *
 * cron_next() is the first minute strictly after a time whose local
 * wall-clock time matches, found field by field (never minute by minute
 * over the years; at most about eight years ahead, for a 29 February).
 * Daylight saving time, as systemd's timers treat it rather than Vixie
 * cron: a local time that does not exist (skipped when the clocks go
 * forward) does not fire that day, and nothing fires in its place; a
 * local time that happens twice (the clocks go back) fires once, at its
 * first occurrence, unless the hour field starts with `*`, in which case
 * the repeated hour's matching minutes fire again (an "every 5 minutes"
 * keeps its pace through the repeated hour).
 *
 * Ownership: cron_parse() returns a struct cron the caller frees with
 * cron_free(); *cause is allocated on error.
 */
#ifndef JOBDECK_CRON_H
#define JOBDECK_CRON_H

#include <time.h>

struct cron;

struct cron	*cron_parse(const char *text, char **cause);
void		 cron_free(struct cron *);
time_t		 cron_next(const struct cron *, time_t after);

#endif

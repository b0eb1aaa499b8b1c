/*
 * check_cron.c: cron expressions (cron.h) and durations (duration.h).
 * Next times are asked from a UTC instant and compared as local times
 * with their zone's abbreviation, under TZ set here (UTC for the plain
 * cases; Europe/Berlin and America/New_York across both DST changes of
 * 2026), so a case says exactly which instant it wants.  Every parse
 * error is compared whole.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cron.h"
#include "duration.h"
#include "need.h"
#include "skip.h"

/*
 * Set the local time zone to tz ("UTC", or a zone of tzdata, which
 * scripts/deps.list names: the test skips, naming the package, without it).
 */
#define USE_TZ(tz) do {							\
	if (strcmp((tz), "Europe/Berlin") == 0)				\
		NEED("/usr/share/zoneinfo/Europe/Berlin");		\
	else if (strcmp((tz), "America/New_York") == 0)			\
		NEED("/usr/share/zoneinfo/America/New_York");		\
	else								\
		ck_assert_str_eq((tz), "UTC");				\
	setenv("TZ", (tz), 1);						\
	tzset();							\
} while (0)

/* Return the UTC instant "YYYY-MM-DD HH:MM:SS". */
static time_t
utc(const char *s)
{
	struct tm	tm;

	memset(&tm, 0, sizeof tm);
	ck_assert_msg(strptime(s, "%Y-%m-%d %H:%M:%S", &tm) != NULL,
	    "bad time %s", s);
	return timegm(&tm);
}

/* Write t as a local time with its zone ("2026-03-30 02:30 CEST"). */
static const char *
local(time_t t, char *buf, size_t size)
{
	struct tm	tm;

	if (t == (time_t)-1)
		return "none";
	localtime_r(&t, &tm);
	strftime(buf, size, "%Y-%m-%d %H:%M %Z", &tm);
	return buf;
}

static const struct next_case {
	const char	*tz;
	const char	*expr;
	const char	*after;		/* UTC */
	const char	*want;		/* local */
} next_cases[] = {
	/* Steps, lists, ranges. */
	{ "UTC", "*/5 * * * *", "2026-03-10 10:07:30", "2026-03-10 10:10 UTC" },
	{ "UTC", "*/5 * * * *", "2026-03-10 10:10:00", "2026-03-10 10:15 UTC" },
	{ "UTC", "* * * * *", "2026-03-10 10:00:00", "2026-03-10 10:01 UTC" },
	{ "UTC", "* * * * *", "2026-03-10 10:00:59", "2026-03-10 10:01 UTC" },
	{ "UTC", "0 * * * *", "2026-03-10 10:00:00", "2026-03-10 11:00 UTC" },
	{ "UTC", "1-10/2 * * * *", "2026-03-10 10:09:00",
	    "2026-03-10 11:01 UTC" },
	{ "UTC", "1-10/2 * * * *", "2026-03-10 10:06:00",
	    "2026-03-10 10:07 UTC" },
	{ "UTC", "10/20 * * * *", "2026-03-10 10:31:00",
	    "2026-03-10 10:50 UTC" },
	{ "UTC", "5,10,15 8 * * *", "2026-03-10 08:12:00",
	    "2026-03-10 08:15 UTC" },
	{ "UTC", "5,10,15 8 * * *", "2026-03-10 08:15:00",
	    "2026-03-11 08:05 UTC" },
	{ "UTC", "0 9-17/4 * * *", "2026-03-10 13:00:00",
	    "2026-03-10 17:00 UTC" },
	{ "UTC", "0 0 1 */3 *", "2026-03-10 00:00:00",
	    "2026-04-01 00:00 UTC" },
	/* Names, in any case; 0 and 7 are Sunday. */
	{ "UTC", "30 9 * * MON-FRI", "2026-03-13 10:00:00",
	    "2026-03-16 09:30 UTC" },
	{ "UTC", "0 0 * * 7", "2026-03-10 00:00:00", "2026-03-15 00:00 UTC" },
	{ "UTC", "0 0 * * 0", "2026-03-10 00:00:00", "2026-03-15 00:00 UTC" },
	{ "UTC", "0 0 * * sun", "2026-03-10 00:00:00",
	    "2026-03-15 00:00 UTC" },
	{ "UTC", "0 0 * * 5-7", "2026-03-12 12:00:00",
	    "2026-03-13 00:00 UTC" },
	{ "UTC", "0 0 * * 5-7", "2026-03-14 12:00:00",
	    "2026-03-15 00:00 UTC" },
	{ "UTC", "0 0 * * 5-7", "2026-03-15 12:00:00",
	    "2026-03-20 00:00 UTC" },
	{ "UTC", "0 12 * Feb,mAR sUn", "2026-03-29 12:00:00",
	    "2027-02-07 12:00 UTC" },
	{ "UTC", "0 0 1 jan-MAR/2 *", "2026-01-01 00:00:00",
	    "2026-03-01 00:00 UTC" },
	/* Macros. */
	{ "UTC", "@yearly", "2026-03-10 10:00:00", "2027-01-01 00:00 UTC" },
	{ "UTC", "@annually", "2026-03-10 10:00:00", "2027-01-01 00:00 UTC" },
	{ "UTC", "@monthly", "2026-03-10 10:00:00", "2026-04-01 00:00 UTC" },
	{ "UTC", "@weekly", "2026-03-10 10:00:00", "2026-03-15 00:00 UTC" },
	{ "UTC", "@daily", "2026-03-10 10:00:00", "2026-03-11 00:00 UTC" },
	{ "UTC", "@midnight", "2026-03-10 10:00:00", "2026-03-11 00:00 UTC" },
	{ "UTC", "@hourly", "2026-03-10 10:00:00", "2026-03-10 11:00 UTC" },
	{ "UTC", "  @HOURLY ", "2026-03-10 10:59:59", "2026-03-10 11:00 UTC" },
	/* Both days restricted: either will do; one `*`: both must. */
	{ "UTC", "0 0 13 * FRI", "2026-03-14 00:00:00",
	    "2026-03-20 00:00 UTC" },
	{ "UTC", "0 0 1 * MON", "2026-03-24 00:00:00",
	    "2026-03-30 00:00 UTC" },
	{ "UTC", "0 0 15 * SAT", "2026-03-14 00:00:00",
	    "2026-03-15 00:00 UTC" },
	{ "UTC", "0 0 */2 * MON", "2026-03-10 00:00:00",
	    "2026-03-23 00:00 UTC" },
	{ "UTC", "0 0 13 * *", "2026-03-14 00:00:00", "2026-04-13 00:00 UTC" },
	{ "UTC", "0 0 30 2 MON", "2026-02-01 00:00:00",
	    "2026-02-02 00:00 UTC" },
	/* Days some months lack, leap years, the year's end. */
	{ "UTC", "0 0 31 * *", "2026-03-31 12:00:00", "2026-05-31 00:00 UTC" },
	{ "UTC", "0 0 29 2 *", "2026-03-01 00:00:00", "2028-02-29 00:00 UTC" },
	{ "UTC", "0 0 29 2 *", "2096-03-01 00:00:00", "2104-02-29 00:00 UTC" },
	{ "UTC", "0 0 * * *", "2026-12-31 23:59:30", "2027-01-01 00:00 UTC" },
	{ "UTC", "59 23 31 12 *", "2026-12-31 23:59:00",
	    "2027-12-31 23:59 UTC" },

	/* Berlin springs forward 2026-03-29 02:00 CET -> 03:00 CEST. */
	{ "Europe/Berlin", "30 2 * * *", "2026-03-28 12:00:00",
	    "2026-03-30 02:30 CEST" },
	{ "Europe/Berlin", "*/30 * * * *", "2026-03-29 00:45:00",
	    "2026-03-29 03:00 CEST" },
	{ "Europe/Berlin", "0 3 * * *", "2026-03-28 12:00:00",
	    "2026-03-29 03:00 CEST" },
	/* And falls back 2026-10-25 03:00 CEST -> 02:00 CET. */
	{ "Europe/Berlin", "30 2 * * *", "2026-10-24 12:00:00",
	    "2026-10-25 02:30 CEST" },
	{ "Europe/Berlin", "30 2 * * *", "2026-10-25 00:30:00",
	    "2026-10-26 02:30 CET" },
	{ "Europe/Berlin", "*/30 * * * *", "2026-10-25 00:40:00",
	    "2026-10-25 02:00 CET" },
	{ "Europe/Berlin", "@daily", "2026-10-24 12:00:00",
	    "2026-10-25 00:00 CEST" },

	/* New York springs forward 2026-03-08 02:00 EST -> 03:00 EDT. */
	{ "America/New_York", "30 2 * * *", "2026-03-07 12:00:00",
	    "2026-03-09 02:30 EDT" },
	{ "America/New_York", "30 2 8 3 *", "2026-03-07 12:00:00",
	    "2027-03-08 02:30 EST" },
	/* And falls back 2026-11-01 02:00 EDT -> 01:00 EST. */
	{ "America/New_York", "30 1 * * *", "2026-11-01 00:00:00",
	    "2026-11-01 01:30 EDT" },
	{ "America/New_York", "30 1 * * *", "2026-11-01 05:30:00",
	    "2026-11-02 01:30 EST" },
	{ "America/New_York", "15 * * * *", "2026-11-01 05:10:00",
	    "2026-11-01 01:15 EDT" },
	{ "America/New_York", "15 * * * *", "2026-11-01 05:20:00",
	    "2026-11-01 01:15 EST" },
	{ "America/New_York", "50 * * * *", "2026-11-01 05:20:00",
	    "2026-11-01 01:50 EDT" },
	{ "America/New_York", "*/20 * * * *", "2026-11-01 05:50:00",
	    "2026-11-01 01:00 EST" },
};

/* Each case's next time, as a local time. */
START_TEST(test_next)
{
	const struct next_case	*c = &next_cases[_i];
	struct cron		*cr;
	char			*cause = NULL, buf[64];

	USE_TZ(c->tz);
	cr = cron_parse(c->expr, &cause);
	ck_assert_msg(cr != NULL, "%s: %s", c->expr, cause);
	ck_assert_msg(strcmp(local(cron_next(cr, utc(c->after)), buf,
	    sizeof buf), c->want) == 0, "%s after %s UTC (%s): %s, not %s",
	    c->expr, c->after, c->tz, buf, c->want);
	cron_free(cr);
}
END_TEST

/*
 * The next times one after another across a change, as a scheduler
 * asks them: strictly increasing instants, none skipped or repeated but
 * as cron.h says.
 */
static void
check_series(const char *tz, const char *expr, const char *from,
    const char *const *want, int n)
{
	struct cron	*cr;
	char		*cause = NULL, buf[64];
	time_t		 t, prev;
	int		 i;

	cr = cron_parse(expr, &cause);
	ck_assert_msg(cr != NULL, "%s: %s", expr, cause);
	t = utc(from);
	for (i = 0; i < n; i++) {
		prev = t;
		t = cron_next(cr, t);
		ck_assert_int_gt(t, prev);
		ck_assert_msg(strcmp(local(t, buf, sizeof buf), want[i]) == 0,
		    "%s in %s, step %d: %s, not %s", expr, tz, i, buf, want[i]);
	}
	cron_free(cr);
}

/* Berlin's autumn: every half hour goes on through the repeated hour. */
START_TEST(test_series_fall)
{
	static const char *const want[] = {
		"2026-10-25 01:30 CEST", "2026-10-25 02:00 CEST",
		"2026-10-25 02:30 CEST", "2026-10-25 02:00 CET",
		"2026-10-25 02:30 CET", "2026-10-25 03:00 CET",
	};

	USE_TZ("Europe/Berlin");
	check_series("Europe/Berlin", "*/30 * * * *", "2026-10-24 23:00:00",
	    want, (int)(sizeof want / sizeof want[0]));
}
END_TEST

/* New York's spring: the hour that is not there is not scheduled. */
START_TEST(test_series_spring)
{
	static const char *const want[] = {
		"2026-03-08 01:00 EST", "2026-03-08 01:30 EST",
		"2026-03-08 03:00 EDT", "2026-03-08 03:30 EDT",
	};

	USE_TZ("America/New_York");
	check_series("America/New_York", "*/30 * * * *", "2026-03-08 05:45:00",
	    want, (int)(sizeof want / sizeof want[0]));
}
END_TEST

/* A fixed time on the repeated hour fires once, day after day. */
START_TEST(test_series_fixed)
{
	static const char *const want[] = {
		"2026-10-31 01:30 EDT", "2026-11-01 01:30 EDT",
		"2026-11-02 01:30 EST", "2026-11-03 01:30 EST",
	};

	USE_TZ("America/New_York");
	check_series("America/New_York", "30 1 * * *", "2026-10-31 00:00:00",
	    want, (int)(sizeof want / sizeof want[0]));
}
END_TEST

/* Every minute of a year, in Berlin: each next is one minute later. */
START_TEST(test_every_minute_year)
{
	struct cron	*cr;
	char		*cause = NULL;
	time_t		 t, next;
	int		 i;

	USE_TZ("Europe/Berlin");
	cr = cron_parse("* * * * *", &cause);
	ck_assert_ptr_nonnull(cr);
	t = utc("2026-01-01 00:00:00");
	for (i = 0; i < 366 * 24; i++, t += 3600) {
		next = cron_next(cr, t + 17);
		ck_assert_msg(next == t + 60, "after %lld: %lld",
		    (long long)t + 17, (long long)next);
	}
	cron_free(cr);
}
END_TEST

static const struct error_case {
	const char	*expr;
	const char	*want;
} error_cases[] = {
	{ "", "schedule: empty (five fields, as \"*/5 * * * *\", or a "
	    "macro, as \"@daily\")" },
	{ " \t ", "schedule: empty (five fields, as \"*/5 * * * *\", or a "
	    "macro, as \"@daily\")" },
	{ "* * * *", "schedule: expected 5 fields (minute hour day-of-month "
	    "month day-of-week), found 4" },
	{ "* * * * * *", "schedule: expected 5 fields (minute hour "
	    "day-of-month month day-of-week), found 6" },
	{ "60 * * * *", "schedule: field 1 (minute): 60 is out of range "
	    "0-59" },
	{ "0 24 * * *", "schedule: field 2 (hour): 24 is out of range 0-23" },
	{ "* * 0 * *", "schedule: field 3 (day of month): 0 is out of range "
	    "1-31" },
	{ "* * 32 * *", "schedule: field 3 (day of month): 32 is out of "
	    "range 1-31" },
	{ "* * * 13 *", "schedule: field 4 (month): 13 is out of range "
	    "1-12" },
	{ "* * * 0 *", "schedule: field 4 (month): 0 is out of range 1-12" },
	{ "* * * * 8", "schedule: field 5 (day of week): 8 is out of range "
	    "0-7" },
	{ "99999999999 * * * *", "schedule: field 1 (minute): 99999999999 "
	    "is out of range 0-59" },
	{ "x * * * *", "schedule: field 1 (minute): 'x' is not a number" },
	{ "* MON * * *", "schedule: field 2 (hour): 'MON' is not a number" },
	{ "* * * FOO *", "schedule: field 4 (month): 'FOO' is not a number or "
	    "a month name (JAN..DEC)" },
	{ "* * * JANUARY *", "schedule: field 4 (month): 'JANUARY' is not a "
	    "number or a month name (JAN..DEC)" },
	{ "* * * * MONDAY", "schedule: field 5 (day of week): 'MONDAY' is "
	    "not a number or a day name (SUN..SAT)" },
	{ "* * * * JAN", "schedule: field 5 (day of week): 'JAN' is not a "
	    "number or a day name (SUN..SAT)" },
	{ "5-1 * * * *", "schedule: field 1 (minute): range 5-1 goes "
	    "backwards" },
	{ "* * * * FRI-MON", "schedule: field 5 (day of week): range FRI-MON "
	    "goes backwards" },
	{ "*/0 * * * *", "schedule: field 1 (minute): step 0 is out of range "
	    "1-60" },
	{ "*/61 * * * *", "schedule: field 1 (minute): step 61 is out of "
	    "range 1-60" },
	{ "* * * * */8", "schedule: field 5 (day of week): step 8 is out of "
	    "range 1-7" },
	{ "*/ * * * *", "schedule: field 1 (minute): '*/' needs a number "
	    "after '/'" },
	{ "1,,2 * * * *", "schedule: field 1 (minute): empty item between "
	    "','" },
	{ ",1 * * * *", "schedule: field 1 (minute): a list may not start "
	    "with ','" },
	{ "1, * * * *", "schedule: field 1 (minute): a list may not end with "
	    "','" },
	{ "1-2-3 * * * *", "schedule: field 1 (minute): unexpected '-' after "
	    "'1-2'" },
	{ "5x * * * *", "schedule: field 1 (minute): unexpected 'x' after "
	    "'5'" },
	{ "* * * * 1-", "schedule: field 5 (day of week): '1-' needs a value "
	    "after '-'" },
	{ "1-/5 * * * *", "schedule: field 1 (minute): '1-' needs a value "
	    "after '-'" },
	{ "/5 * * * *", "schedule: field 1 (minute): '/' is not a number" },
	{ "0 0 30 2 *", "schedule: field 3 (day of month): no day of it "
	    "comes in the months of field 4 (month)" },
	{ "0 0 31 4,6,9,11 *", "schedule: field 3 (day of month): no day of "
	    "it comes in the months of field 4 (month)" },
	{ "@reboot", "schedule: unknown macro '@reboot' (known: @yearly "
	    "@annually @monthly @weekly @daily @midnight @hourly)" },
	{ "@daily 5", "schedule: unknown macro '@daily 5' (known: @yearly "
	    "@annually @monthly @weekly @daily @midnight @hourly)" },
	{ "* * * *\n*", "schedule: a control character in the expression" },
};

/* Each wrong expression is refused with its whole message. */
START_TEST(test_errors)
{
	const struct error_case	*c = &error_cases[_i];
	struct cron		*cr;
	char			*cause = NULL;

	cr = cron_parse(c->expr, &cause);
	ck_assert_msg(cr == NULL, "'%s' was accepted", c->expr);
	ck_assert_ptr_nonnull(cause);
	ck_assert_str_eq(cause, c->want);
	free(cause);
}
END_TEST

static const struct dur_case {
	const char	*in;
	double		 want;		/* -1: refused */
} dur_cases[] = {
	{ "500ms", 0.5 }, { "30s", 30 }, { "5m", 300 }, { "2h", 7200 },
	{ "1h30m", 5400 }, { "30", 30 }, { "0.5", 0.5 }, { "1.5h", 5400 },
	{ "1d", 86400 }, { "1m30s500ms", 90.5 }, { "0", 0 }, { "0s", 0 },
	{ "2h0m5s", 7205 },
	{ "", -1 }, { "x", -1 }, { "5x", -1 }, { "1h30", -1 },
	{ "30m1h", -1 }, { "1s1s", -1 }, { "-1", -1 }, { "1e3", -1 },
	{ " 5", -1 }, { "5 s", -1 }, { "5.", -1 }, { "h", -1 },
	{ "5S", -1 }, { "5sec", -1 }, { "inf", -1 }, { "0x10", -1 },
};

/* Durations as people write them, and what is not one. */
START_TEST(test_duration)
{
	const struct dur_case	*c = &dur_cases[_i];
	char			*cause = NULL;
	double			 v = -2;
	int			 rc;

	rc = duration_parse("every", c->in, 1e6, &v, &cause);
	if (c->want < 0) {
		ck_assert_msg(rc == -1, "'%s' was read as %g", c->in, v);
		ck_assert_msg(strncmp(cause, "every: '", 8) == 0, "%s", cause);
		free(cause);
		return;
	}
	ck_assert_msg(rc == 0, "'%s': %s", c->in, cause);
	ck_assert_msg(v > c->want - 1e-9 && v < c->want + 1e-9,
	    "'%s' is %g, not %g", c->in, v, c->want);
}
END_TEST

/* A duration's messages, whole. */
START_TEST(test_duration_messages)
{
	char	*cause = NULL;
	double	 v;

	ck_assert_int_eq(duration_parse("every", "5x", 100, &v, &cause), -1);
	ck_assert_str_eq(cause, "every: '5x' is not a duration (as 30s, 5m, "
	    "1h30m, 500ms; a number alone is seconds)");
	free(cause);
	cause = NULL;
	ck_assert_int_eq(duration_parse("every", "2m", 100, &v, &cause), -1);
	ck_assert_str_eq(cause, "every: 2m is more than 100 seconds");
	free(cause);
	cause = NULL;
	ck_assert_int_eq(duration_parse("every", "1m40s", 100, &v, &cause), 0);
	ck_assert(v == 100);
	ck_assert_int_eq(duration_parse("every", "\033[2J", 100, &v, &cause),
	    -1);
	ck_assert_str_eq(cause, "every: '\\e[2J' is not a duration (as 30s, "
	    "5m, 1h30m, 500ms; a number alone is seconds)");
	free(cause);
}
END_TEST

/* Build the cron suite. */
static Suite *
cron_suite(void)
{
	Suite	*s = suite_create("cron");
	TCase	*tc;

	tc = tcase_create("next");
	tcase_add_loop_test(tc, test_next, 0,
	    (int)(sizeof next_cases / sizeof next_cases[0]));
	tcase_add_test(tc, test_series_fall);
	tcase_add_test(tc, test_series_spring);
	tcase_add_test(tc, test_series_fixed);
	tcase_add_test(tc, test_every_minute_year);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_add_loop_test(tc, test_errors, 0,
	    (int)(sizeof error_cases / sizeof error_cases[0]));
	suite_add_tcase(s, tc);

	tc = tcase_create("duration");
	tcase_add_loop_test(tc, test_duration, 0,
	    (int)(sizeof dur_cases / sizeof dur_cases[0]));
	tcase_add_test(tc, test_duration_messages);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite; exit non-zero if any test failed. */
int
main(void)
{
	SRunner	*sr;
	int	 failed;

	sr = srunner_create(cron_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

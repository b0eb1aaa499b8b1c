/*
 * check_sched_e2e.c: jobs on a timer end to end (issue 27, "On a
 * timer").  Each test writes a configuration into a private directory,
 * which is also the jobs' cwd, starts the real deck on the 120x40 pty
 * with it and reads it through the real `jobdeck ctl -S NAME --json`
 * (tests/jsonread.h) and its screen.  Jobs append lines to files; the
 * test polls them with generous deadlines and checks their order, never
 * the time between them.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <check.h>

#include "e2e/e2e.h"
#include "jsonread.h"

#define WAIT_MS		30000	/* a few runs of a job every second */

static const struct term_rect panel = { 0, 0, 39, 40 };

/* A deck under test and its directory. */
struct deck {
	struct term	*t;
	char		 name[32];
	char		 run[PATH_MAX];	/* its XDG_RUNTIME_DIR */
	char		 dir[128];	/* config and the jobs' cwd */
	char		 cfg[256];
};

/*
 * Write the deck's configuration toml, each "@" in it standing for the
 * deck's directory.
 */
static void
deck_config(struct deck *d, const char *toml)
{
	const char	*p;
	char		*text, *q;

	text = malloc(strlen(toml) * (strlen(d->dir) + 1) + 1);
	ck_assert_ptr_nonnull(text);
	for (p = toml, q = text; *p != '\0'; p++) {
		if (*p == '@')
			q = stpcpy(q, d->dir);
		else
			*q++ = *p;
	}
	*q = '\0';
	e2e_put_file(d->dir, "sched.toml", text, 0600);
	free(text);
}

/* Write the configuration toml and start the deck named name on it. */
static void
deck_start(struct deck *d, const char *name, const char *toml)
{
	const char	*args[] = { "-c", d->cfg, "-S", name, NULL };
	const char	*path;
	char		*slash;

	memset(d, 0, sizeof *d);
	path = e2e_cfg_write("sched.toml", "");
	snprintf(d->cfg, sizeof d->cfg, "%s", path);
	snprintf(d->dir, sizeof d->dir, "%s", path);
	slash = strrchr(d->dir, '/');
	ck_assert_ptr_nonnull(slash);
	*slash = '\0';
	deck_config(d, toml);
	snprintf(d->name, sizeof d->name, "%s", name);
	d->t = e2e_start(args, NULL);
	ck_assert(snprintf(d->run, sizeof d->run, "%s/run",
	    term_tmpdir(d->t)) < (int)sizeof d->run);
}

/* Quit the deck, close its terminal and remove its directory. */
static void
deck_end(struct deck *d)
{
	term_close(d->t);
	d->t = NULL;
	e2e_cfg_remove();
}

/* Run `jobdeck ctl ARGS...` (NULL-ended) on the deck; its output (to free). */
static char *
ctl(struct deck *d, ...)
{
	va_list	 ap;
	char	*out;

	va_start(ap, d);
	out = e2e_ctl_okv(d->t, d->name, d->run, 0, ap);
	va_end(ap);
	return out;
}

/* Parse text as JSON, or fail saying what it was. */
static struct jsonread *
parse(const char *text)
{
	struct jsonread	*root;
	char		*cause = NULL;

	root = jsonread_parse(text, strlen(text), &cause);
	ck_assert_msg(root != NULL, "bad JSON (%s): %s", cause, text);
	return root;
}

/* Return job name of `ctl --json ps` (NULL: none) in *job; free root. */
static struct jsonread *
job_json(struct deck *d, const char *name, const struct jsonread **job)
{
	struct jsonread		*root;
	const struct jsonread	*jobs, *j;
	const char		*jn;
	char			*out;
	size_t			 i;

	out = ctl(d, "--json", "ps", (const char *)NULL);
	root = parse(out);
	free(out);
	jobs = jsonread_get(root, "jobs");
	*job = NULL;
	for (i = 0; i < jsonread_count(jobs); i++) {
		j = jsonread_index(jobs, i);
		jn = jsonread_string(jsonread_get(j, "name"), NULL);
		if (jn != NULL && strcmp(jn, name) == 0)
			*job = j;
	}
	return root;
}

/* Return job name's number key now (-1: no job, or not a number). */
static double
job_number(struct deck *d, const char *name, const char *key)
{
	const struct jsonread	*job, *v;
	struct jsonread		*root;
	double			 n = -1;

	root = job_json(d, name, &job);
	if (job != NULL && (v = jsonread_get(job, key)) != NULL &&
	    jsonread_type(v) == JSONREAD_NUMBER)
		n = jsonread_number(v);
	jsonread_free(root);
	return n;
}

/* Return how many lines of the file name in the deck's directory hold what. */
static int
count_lines(const struct deck *d, const char *name, const char *what)
{
	char		 buf[65536];
	const char	*p = e2e_get_file(d->dir, name, buf, sizeof buf), *nl;
	int		 n = 0;

	for (; *p != '\0'; p = nl + 1) {
		if ((nl = strchr(p, '\n')) == NULL)
			break;
		if (memmem(p, (size_t)(nl - p), what, strlen(what)) != NULL)
			n++;
	}
	return n;
}

/*
 * Assert that the lines of name are "start" and "end" by turns from the
 * first: no run started while another ran.
 */
static void
assert_one_at_a_time(const struct deck *d, const char *name)
{
	char		 buf[65536];
	const char	*p = e2e_get_file(d->dir, name, buf, sizeof buf);
	int		 i = 0;

	for (; *p != '\0'; p = strchr(p, '\n') + 1, i++) {
		ck_assert_msg(strchr(p, '\n') != NULL, "%s: a line cut", name);
		ck_assert_msg(strncmp(p, i % 2 == 0 ? "start\n" : "end\n",
		    i % 2 == 0 ? 6 : 4) == 0, "%s: line %d is not \"%s\" (two "
		    "runs at once?):\n%s", name, i + 1, i % 2 == 0 ? "start" :
		    "end", buf);
	}
}

/*
 * every = "1s": the job runs again and again; once it has run, the job
 * object (ps and status) has next_run and skipped 0, and the panel says
 * when it runs next.
 */
START_TEST(test_sched_every)
{
	struct deck		 d;
	struct jsonread		*root;
	const struct jsonread	*job, *v;
	const char		*s;
	char			*out;

	deck_start(&d, "sched-every",
	    "[[job]]\n"
	    "name = \"tick\"\n"
	    "command = \"echo tick >> @/ticks\"\n"
	    "every = \"1s\"\n"
	    "pty = false\n");
	/* Not at the start: its first run is at its first due time. */
	E2E_WAIT(d.t, count_lines(&d, "ticks", "tick") >= 3, WAIT_MS,
	    "tick did not run three times");
	root = job_json(&d, "tick", &job);
	ck_assert_ptr_nonnull(job);
	v = jsonread_get(job, "next_run");
	ck_assert_msg(v != NULL && jsonread_type(v) == JSONREAD_STRING,
	    "ps: tick's next_run is %s", jsonread_text(job, "next_run"));
	s = jsonread_string(v, NULL);
	ck_assert_msg(strlen(s) >= 20 && s[4] == '-' && s[10] == 'T',
	    "next_run %s is not ISO 8601", s);
	ck_assert_int_eq((int)jsonread_number(jsonread_get(job, "skipped")),
	    0);
	jsonread_free(root);

	out = ctl(&d, "--json", "status", "tick", (const char *)NULL);
	ck_assert_msg(strstr(out, "\"next_run\":\"") != NULL, "status: no "
	    "next_run: %s", out);
	free(out);

	/* Between two runs, its panel entry says when the next is. */
	EXPECT_IN(d.t, &panel, "next ", WAIT_MS);
	deck_end(&d);
}
END_TEST

/*
 * overlap = "skip" (the default): a job every second that runs for 2.5 s
 * has its dues while it runs skipped and counted, and never runs twice at
 * once.
 */
START_TEST(test_sched_overlap_skip)
{
	struct deck	d;

	deck_start(&d, "sched-skip",
	    "[[job]]\n"
	    "name = \"slow\"\n"
	    "command = \"echo start >> @/runs; sleep 2.5; "
	    "echo end >> @/runs\"\n"
	    "every = \"1s\"\n"
	    "pty = false\n");
	E2E_WAIT(d.t, count_lines(&d, "runs", "end") >= 2, WAIT_MS,
	    "slow did not end twice");
	E2E_WAIT(d.t, job_number(&d, "slow", "skipped") > 0, WAIT_MS,
	    "no run of slow was skipped");
	assert_one_at_a_time(&d, "runs");
	deck_end(&d);
}
END_TEST

/*
 * overlap = "queue": a due while it runs starts it again once it ends,
 * one at most (a second due meanwhile is skipped); never two at once.
 */
START_TEST(test_sched_overlap_queue)
{
	struct deck	d;

	deck_start(&d, "sched-queue",
	    "[[job]]\n"
	    "name = \"slow\"\n"
	    "command = \"echo start >> @/runs; sleep 2.5; "
	    "echo end >> @/runs\"\n"
	    "every = \"1s\"\n"
	    "overlap = \"queue\"\n"
	    "pty = false\n");
	E2E_WAIT(d.t, count_lines(&d, "runs", "end") >= 3, WAIT_MS,
	    "slow did not end three times");
	E2E_WAIT(d.t, job_number(&d, "slow", "skipped") > 0, WAIT_MS,
	    "no run of slow was skipped");
	assert_one_at_a_time(&d, "runs");
	deck_end(&d);
}
END_TEST

/*
 * A deck that quits starts no job on its timer: a job every second with
 * overlap = "restart" that takes 2 s to stop has its due runs while it
 * stops; none may start it again (counted once the quit is acknowledged:
 * any start after that is the timetable's).
 */
START_TEST(test_sched_quit)
{
	struct deck	d;
	char		buf[4096];
	int		status, n;

	deck_start(&d, "sched-quit",
	    "[[job]]\n"
	    "name = \"long\"\n"
	    "command = \"echo start >> @/runs; trap 'sleep 2; exit 0' TERM; "
	    "sleep 60 & wait\"\n"
	    "every = \"1s\"\n"
	    "overlap = \"restart\"\n"
	    "pty = false\n");
	E2E_WAIT(d.t, count_lines(&d, "runs", "start") >= 2, WAIT_MS,
	    "long was not started twice");
	free(ctl(&d, "quit", (const char *)NULL));
	n = count_lines(&d, "runs", "start");
	ck_assert_msg(term_wait_exit(d.t, WAIT_MS, &status), "the deck did "
	    "not quit within %d ms\n%s", WAIT_MS, e2e_dump(d.t));
	ck_assert_msg(count_lines(&d, "runs", "start") == n, "long started "
	    "again after the quit (%d starts before it):\n%s", n,
	    e2e_get_file(d.dir, "runs", buf, sizeof buf));
	deck_end(&d);
}
END_TEST

/* Return job name's next_run as a time_t (-1: none), failing on bad text. */
static time_t
job_next_run(struct deck *d, const char *name)
{
	const struct jsonread	*job, *v;
	struct jsonread		*root;
	struct tm		 tm;
	time_t			 t = -1;
	const char		*s, *end;

	root = job_json(d, name, &job);
	ck_assert_msg(job != NULL, "no job %s", name);
	v = jsonread_get(job, "next_run");
	if (v != NULL && jsonread_type(v) == JSONREAD_STRING) {
		s = jsonread_string(v, NULL);
		memset(&tm, 0, sizeof tm);
		end = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
		ck_assert_msg(end != NULL && (strcmp(end, "Z") == 0 ||
		    (end[0] == '.' && end[4] == 'Z')), "next_run %s", s);
		t = timegm(&tm);
	}
	jsonread_free(root);
	return t;
}

/*
 * A reload moves the timetable to the file's: every = "1s" made "1h"
 * runs next an hour after the deck's start, not within the second; a
 * changed timer restarts nothing (the job is "unchanged") and the job
 * keeps its skips (0, not null).
 */
START_TEST(test_sched_reload)
{
	static const char	 cfg1[] =
	    "[[job]]\n"
	    "name = \"tick\"\n"
	    "command = \"echo tick >> @/ticks\"\n"
	    "every = \"1s\"\n"
	    "pty = false\n";
	static const char	 cfg2[] =
	    "[[job]]\n"
	    "name = \"tick\"\n"
	    "command = \"echo tick >> @/ticks\"\n"
	    "every = \"1h\"\n"
	    "pty = false\n";
	struct deck		 d;
	char			*out;
	time_t			 before;

	deck_start(&d, "sched-reload", cfg1);
	E2E_WAIT(d.t, count_lines(&d, "ticks", "tick") >= 2, WAIT_MS,
	    "tick did not run twice");
	before = time(NULL);
	deck_config(&d, cfg2);
	out = ctl(&d, "reload", (const char *)NULL);
	ck_assert_msg(strstr(out, "1 unchanged") != NULL, "reload: %s", out);
	free(out);
	/* A wide margin: the hour counts from the deck's start. */
	ck_assert_msg(job_next_run(&d, "tick") > before + 1800, "next_run is "
	    "not an hour on after the reload");
	ck_assert_int_eq((int)job_number(&d, "tick", "skipped"), 0);
	deck_end(&d);
}
END_TEST

static Suite *
sched_suite(void)
{
	static const struct e2e_case	cases[] = {
		{ "sched_every", &test_sched_every, 60 },
		{ "sched_overlap_skip", &test_sched_overlap_skip, 60 },
		{ "sched_overlap_queue", &test_sched_overlap_queue, 60 },
		{ "sched_quit", &test_sched_quit, 60 },
		{ "sched_reload", &test_sched_reload, 60 },
	};
	Suite				*s = suite_create("sched_e2e");

	e2e_add_cases(s, cases, sizeof cases / sizeof cases[0]);
	return s;
}

/* Run the suite; the exit status says whether every test passed. */
int
main(void)
{
	return e2e_main(sched_suite());
}

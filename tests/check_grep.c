/*
 * check_grep.c: tests for the search of the output store (grep.c) and
 * the !grep command (cmd-grep.c), on real store runs written with
 * store_run_write() in a temporary directory: literal, -i, -E, -F with
 * metacharacters, a word split by colour escapes, \r progress, several
 * runs newest first, line numbers and times, a 200,000-character line,
 * stepping with any budget, a bad pattern, runs removed mid-search,
 * damaged runs passed over and counted; and the command through
 * cmd_run_line() on a real job table, with a job whose disk fills (a
 * real tmpfs): its run still ends in its meta, and the warning comes once.
 */
#include <sys/prctl.h>
#include <sys/stat.h>

#include <check.h>
#include <locale.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "grep.h"
#include "job.h"
#include "jobtable.h"
#include "loop.h"
#include "rxbound.h"
#include "session.h"
#include "skip.h"
#include "store.h"
#include "testmnt.h"

#define T0	1700000000000LL		/* the wall time of the first write */

/* A match as the callback saw it, copied. */
struct hit {
	char	 run[STORE_ID_LEN + 1];
	int	 job;
	int64_t	 line;
	int64_t	 time;
	char	*text;
	size_t	 so;
	size_t	 eo;
};

/* The matches of a search, and whether the callback stops after each. */
struct hits {
	struct hit	*v;
	int		 n;
	int		 alloc;
	int		 stop_each;
};

static char		 dir[64];
static struct store	*store;

/* Make a store in a new temporary directory. */
static void
setup(void)
{
	struct store_limits	 lim;
	char			*cause = NULL;

	strcpy(dir, "/tmp/check_grep.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	store_default_limits(&lim);
	store = store_open(dir, &lim, &cause);
	ck_assert_msg(store != NULL, "store_open: %s", cause);
}

/* Close the store and remove its directory. */
static void
teardown(void)
{
	char	cmd[128];

	store_free(store);
	store = NULL;
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cleanup of %s failed\n", dir);
}

/*
 * Write a run of job (named name) to st: the writes are the pieces of
 * text split at '|' (a '|' alone is kept out), the i-th at T0 + i * 1000;
 * its id goes to id.
 */
static void
make_run_in(struct store *st, int job, const char *name, const char *text,
    char *id)
{
	struct store_meta	 meta;
	struct store_run	*run;
	const char		*p = text, *bar;
	char			*cause = NULL;
	int64_t			 t = T0;

	memset(&meta, 0, sizeof meta);
	meta.job = job;
	meta.start = 1;
	meta.name = (char *)name;
	meta.command = (char *)"printf stuff";
	meta.started = T0;
	meta.state = (char *)"completed";
	run = store_run_new(st, &meta, &cause);
	ck_assert_msg(run != NULL, "store_run_new: %s", cause);
	for (;;) {
		bar = strchr(p, '|');
		ck_assert_int_eq(store_run_write(run, STORE_TTY, p,
		    bar == NULL ? strlen(p) : (size_t)(bar - p), t), 0);
		t += 1000;
		if (bar == NULL)
			break;
		p = bar + 1;
	}
	ck_assert_ptr_null(store_run_error(run));
	strcpy(id, store_run_id(run));
	store_run_close(run);
}

/* make_run_in() on the test's store. */
static void
make_run(int job, const char *name, const char *text, char *id)
{
	make_run_in(store, job, name, text, id);
}

/*
 * Wait until a run made now gets an id after prev's: an id is made of the
 * millisecond it starts in (then random bits), so a run made in the same
 * millisecond may sort on either side of prev.
 */
static void
wait_past(const char *prev)
{
	struct timespec	 ts, pause = { 0, 100000 };
	struct tm	 tm;
	char		 now[32];
	int		 i;

	for (i = 0;; i++) {
		clock_gettime(CLOCK_REALTIME, &ts);
		gmtime_r(&ts.tv_sec, &tm);
		ck_assert_uint_eq(strftime(now, sizeof now, "%Y%m%dT%H%M%S",
		    &tm), 15);
		snprintf(now + 15, sizeof now - 15, "-%03x",
		    (unsigned)(ts.tv_nsec / 1000000));
		if (strncmp(now, prev, 19) > 0)
			return;
		ck_assert_msg(i < 100000, "the clock stays before %s", prev);
		nanosleep(&pause, NULL);
	}
}

/* Write a run of len bytes from buf, as reads of a child; its id to id. */
static void
make_run_bytes(int job, const char *buf, size_t len, char *id)
{
	struct store_meta	 meta;
	struct store_run	*run;
	char			*cause = NULL;
	size_t			 off, n;

	memset(&meta, 0, sizeof meta);
	meta.job = job;
	meta.name = (char *)"big";
	run = store_run_new(store, &meta, &cause);
	ck_assert_msg(run != NULL, "store_run_new: %s", cause);
	for (off = 0; off < len; off += n) {
		n = len - off < STORE_CHUNK_MAX ? len - off : STORE_CHUNK_MAX;
		ck_assert_int_eq(store_run_write(run, STORE_TTY, buf + off, n,
		    T0), 0);
	}
	strcpy(id, store_run_id(run));
	store_run_close(run);
}

/* Keep a copy of a match; stop after it when asked to. */
static int
hits_add(const struct grep_match *m, void *arg)
{
	struct hits	*h = arg;
	struct hit	*x;

	if (h->n == h->alloc) {
		h->alloc = h->alloc == 0 ? 64 : h->alloc * 2;
		h->v = realloc(h->v, (size_t)h->alloc * sizeof *h->v);
		ck_assert_ptr_nonnull(h->v);
	}
	x = &h->v[h->n++];
	/*
	 * Checked in plain C, the assertion made only when one fails: a
	 * search finds 100,000 matches, and each ck_assert is a write to
	 * the test's parent (under a sanitizer on a busy machine, the case
	 * took most of its time limit).
	 */
	if (strlen(m->run) != STORE_ID_LEN || strcmp(m->meta->run, m->run) !=
	    0 || memchr(m->text, '\0', m->len) != NULL || m->so > m->eo ||
	    m->eo > m->len)
		ck_abort_msg("match %d: run %s (meta %s), so %zu, eo %zu, len "
		    "%zu, text %.*s", h->n, m->run, m->meta->run, m->so, m->eo,
		    m->len, (int)m->len, m->text);
	strcpy(x->run, m->run);
	x->job = m->meta->job;
	x->line = m->line;
	x->time = m->time;
	x->text = strndup(m->text, m->len);
	x->so = m->so;
	x->eo = m->eo;
	return h->stop_each;
}

/* Free what a search found. */
static void
hits_free(struct hits *h)
{
	int	i;

	for (i = 0; i < h->n; i++)
		free(h->v[i].text);
	free(h->v);
	memset(h, 0, sizeof *h);
}

static const struct grep_cbs hits_cbs = { .match = hits_add };

/* Step g to its end with budget, keeping its matches in h. */
static void
step_all(struct grep *g, size_t budget, struct hits *h)
{
	int64_t	before = grep_matches(g) - h->n;
	int	steps = 0;

	while (grep_step(g, budget, &hits_cbs, h)) {
		ck_assert_msg(++steps < 10000000, "the search never ends");
		ck_assert(!grep_done(g));
	}
	ck_assert(grep_done(g));
	ck_assert_int_eq(grep_matches(g) - before, h->n);
}

/* Search the runs (all when runs is NULL) for pattern; matches to h. */
static void
search(const char *pattern, int flags, char **runs, int nruns,
    struct hits *h)
{
	struct grep	*g;
	char		*cause = NULL;

	g = grep_new(dir, pattern, flags, runs, nruns, &cause);
	ck_assert_msg(g != NULL, "grep_new %s: %s", pattern, cause);
	ck_assert_str_eq(grep_pattern(g), pattern);
	step_all(g, 1024 * 1024, h);
	grep_free(g);
}

/* Assert hit i is line of run with text and its match at [so, eo). */
static void
assert_hit(const struct hits *h, int i, const char *run, int64_t line,
    const char *text, size_t so, size_t eo)
{
	ck_assert_msg(i < h->n, "only %d matches, no %d", h->n, i);
	ck_assert_str_eq(h->v[i].run, run);
	ck_assert_int_eq(h->v[i].line, line);
	ck_assert_str_eq(h->v[i].text, text);
	ck_assert_uint_eq(h->v[i].so, so);
	ck_assert_uint_eq(h->v[i].eo, eo);
}

/* A plain word: every line holding it, the match where it is. */
START_TEST(test_literal)
{
	struct hits	h = { 0 };
	char		run[STORE_ID_LEN + 1];

	make_run(1, "web", "alpha\nbeta\ngamma beta\nBETA\ndelta\n", run);
	search("beta", 0, NULL, 0, &h);
	ck_assert_int_eq(h.n, 2);
	assert_hit(&h, 0, run, 1, "beta", 0, 4);
	assert_hit(&h, 1, run, 2, "gamma beta", 6, 10);
	ck_assert_int_eq(h.v[0].job, 1);
	hits_free(&h);

	/* A basic regex without metacharacters is the same search. */
	search("a b", 0, NULL, 0, &h);
	ck_assert_int_eq(h.n, 1);
	assert_hit(&h, 0, run, 2, "gamma beta", 4, 7);
	hits_free(&h);

	search("zeta", 0, NULL, 0, &h);
	ck_assert_int_eq(h.n, 0);
	hits_free(&h);

	/* The empty pattern matches every line, as grep's does. */
	search("", 0, NULL, 0, &h);
	ck_assert_int_eq(h.n, 5);
	assert_hit(&h, 4, run, 4, "delta", 0, 0);
	hits_free(&h);
}
END_TEST

/* -i: ASCII case folded for a plain word and a regex; the locale's too. */
START_TEST(test_icase)
{
	struct hits	h = { 0 };
	char		run[STORE_ID_LEN + 1];

	make_run(1, "web", "Hello World\nhello\nHELLO wORLD\nhelo\n", run);
	search("WORLD", 0, NULL, 0, &h);
	ck_assert_int_eq(h.n, 0);
	hits_free(&h);
	search("WORLD", GREP_ICASE, NULL, 0, &h);
	ck_assert_int_eq(h.n, 2);
	assert_hit(&h, 0, run, 0, "Hello World", 6, 11);
	assert_hit(&h, 1, run, 2, "HELLO wORLD", 6, 11);
	hits_free(&h);
	search("h.llo", GREP_ICASE, NULL, 0, &h);
	ck_assert_int_eq(h.n, 3);
	hits_free(&h);
	search("o w", GREP_ICASE | GREP_FIXED, NULL, 0, &h);
	ck_assert_int_eq(h.n, 2);
	assert_hit(&h, 1, run, 2, "HELLO wORLD", 4, 7);
	hits_free(&h);

}
END_TEST

/* -i outside ASCII: the locale folds case, plain string or regex. */
START_TEST(test_icase_locale)
{
	struct hits	h = { 0 };
	char		run[STORE_ID_LEN + 1];

	if (setlocale(LC_CTYPE, "C.UTF-8") == NULL &&
	    setlocale(LC_CTYPE, "en_US.UTF-8") == NULL)
		TEST_SKIP("no UTF-8 locale (C.UTF-8, en_US.UTF-8)");
	make_run(1, "web", "ecole\n\xc3\x89" "cole\n", run);
	search("\xc3\xa9" "cole", GREP_ICASE, NULL, 0, &h);
	ck_assert_int_eq(h.n, 1);
	assert_hit(&h, 0, run, 1, "\xc3\x89" "cole", 0, 6);
	hits_free(&h);
	search("\xc3\xa9" "cole", GREP_ICASE | GREP_FIXED, NULL, 0, &h);
	ck_assert_int_eq(h.n, 1);
	hits_free(&h);
	setlocale(LC_CTYPE, "C");
}
END_TEST

/* -E: alternation and groups; in a basic regex they are plain characters. */
START_TEST(test_extended)
{
	struct hits	h = { 0 };
	char		run[STORE_ID_LEN + 1];

	const char	*text = "error: 1\nerrno 2\nerr(or|no)\nerr\n";

	make_run_bytes(1, text, strlen(text), run);
	search("err(or|no)", GREP_EXTENDED, NULL, 0, &h);
	ck_assert_int_eq(h.n, 2);
	assert_hit(&h, 0, run, 0, "error: 1", 0, 5);
	assert_hit(&h, 1, run, 1, "errno 2", 0, 5);
	hits_free(&h);
	search("err(or|no)", 0, NULL, 0, &h);
	ck_assert_int_eq(h.n, 1);
	assert_hit(&h, 0, run, 2, "err(or|no)", 0, 10);
	hits_free(&h);
	search("^err$", 0, NULL, 0, &h);
	ck_assert_int_eq(h.n, 1);
	assert_hit(&h, 0, run, 3, "err", 0, 3);
	hits_free(&h);
	search("[0-9]$", GREP_EXTENDED, NULL, 0, &h);
	ck_assert_int_eq(h.n, 2);
	assert_hit(&h, 1, run, 1, "errno 2", 6, 7);
	hits_free(&h);
	/* A class that holds the newline never joins two lines. */
	search("r[[:space:]]*e", 0, NULL, 0, &h);
	ck_assert_int_eq(h.n, 0);
	hits_free(&h);
}
END_TEST

/* -F: metacharacters are themselves. */
START_TEST(test_fixed)
{
	struct hits	h = { 0 };
	char		run[STORE_ID_LEN + 1];

	make_run(1, "web", "axb c\nx a.b[c]* y\na.b[c]\n^$\n", run);
	search("a.b[c]*", GREP_FIXED, NULL, 0, &h);
	ck_assert_int_eq(h.n, 1);
	assert_hit(&h, 0, run, 1, "x a.b[c]* y", 2, 9);
	hits_free(&h);
	search("^$", GREP_FIXED, NULL, 0, &h);
	ck_assert_int_eq(h.n, 1);
	assert_hit(&h, 0, run, 3, "^$", 0, 2);
	hits_free(&h);
	search("A.B[C]", GREP_FIXED | GREP_ICASE, NULL, 0, &h);
	ck_assert_int_eq(h.n, 2);
	hits_free(&h);
}
END_TEST

/* Escapes are not text: a word split by colours matches, as seen. */
START_TEST(test_colour_split)
{
	struct hits	h = { 0 };
	char		run[STORE_ID_LEN + 1];

	make_run(1, "web", "say he\033[1mllo\033[0m there\n"
	    "\033[31mred\033[m hello\n\033[32mgreen\033[m\n", run);
	search("hello", 0, NULL, 0, &h);
	ck_assert_int_eq(h.n, 2);
	assert_hit(&h, 0, run, 0, "say hello there", 4, 9);
	assert_hit(&h, 1, run, 1, "red hello", 4, 9);
	hits_free(&h);
	search("HELLO", GREP_ICASE, NULL, 0, &h);
	ck_assert_int_eq(h.n, 2);
	assert_hit(&h, 0, run, 0, "say hello there", 4, 9);
	hits_free(&h);
	search("he(l+)o t", GREP_EXTENDED, NULL, 0, &h);
	ck_assert_int_eq(h.n, 1);
	assert_hit(&h, 0, run, 0, "say hello there", 4, 11);
	hits_free(&h);
	/* The escape's own bytes are not text. */
	search("[31m", GREP_FIXED, NULL, 0, &h);
	ck_assert_int_eq(h.n, 0);
	hits_free(&h);
	search("^green$", 0, NULL, 0, &h);
	ck_assert_int_eq(h.n, 1);
	assert_hit(&h, 0, run, 2, "green", 0, 5);
	hits_free(&h);
}
END_TEST

/* \r progress: only the final state of a line is its text. */
START_TEST(test_progress)
{
	struct hits	h = { 0 };
	char		run[STORE_ID_LEN + 1];

	make_run(1, "web", "start\nprogress 10%\rprogress 50%\r"
	    "done 100%   \nend\tx\n", run);
	search("50%", 0, NULL, 0, &h);
	ck_assert_int_eq(h.n, 0);
	hits_free(&h);
	search("progress", 0, NULL, 0, &h);
	ck_assert_int_eq(h.n, 0);
	hits_free(&h);
	search("done 1", GREP_FIXED, NULL, 0, &h);
	ck_assert_int_eq(h.n, 1);
	assert_hit(&h, 0, run, 1, "done 100%", 0, 6);
	hits_free(&h);
	/* A tab is the spaces a user sees. */
	search("end     x", 0, NULL, 0, &h);
	ck_assert_int_eq(h.n, 1);
	assert_hit(&h, 0, run, 2, "end     x", 0, 9);
	hits_free(&h);
}
END_TEST

/* Several runs: the newest first, each run's matches in order. */
START_TEST(test_runs_newest_first)
{
	struct hits	 h = { 0 };
	char		 r1[STORE_ID_LEN + 1], r2[STORE_ID_LEN + 1];
	char		 r3[STORE_ID_LEN + 1], *some[2];

	make_run(1, "one", "x 1\nno\nx 2\n", r1);
	wait_past(r1);
	make_run(2, "two", "x 3\n", r2);
	wait_past(r2);
	make_run(3, "three", "no\nx 4\n", r3);
	ck_assert_str_lt(r1, r2);
	ck_assert_str_lt(r2, r3);
	search("x", 0, NULL, 0, &h);
	ck_assert_int_eq(h.n, 4);
	assert_hit(&h, 0, r3, 1, "x 4", 0, 1);
	assert_hit(&h, 1, r2, 0, "x 3", 0, 1);
	assert_hit(&h, 2, r1, 0, "x 1", 0, 1);
	assert_hit(&h, 3, r1, 2, "x 2", 0, 1);
	ck_assert_int_eq(h.v[0].job, 3);
	ck_assert_int_eq(h.v[2].job, 1);
	hits_free(&h);

	/* Runs given in any order, one twice: newest first, once. */
	some[0] = r1;
	some[1] = r3;
	search("x", 0, some, 2, &h);
	ck_assert_int_eq(h.n, 3);
	assert_hit(&h, 0, r3, 1, "x 4", 0, 1);
	assert_hit(&h, 1, r1, 0, "x 1", 0, 1);
	hits_free(&h);
	some[1] = r1;
	search("x", 0, some, 2, &h);
	ck_assert_int_eq(h.n, 2);
	hits_free(&h);
}
END_TEST

/* Line numbers and times are the lines', whatever the writes were. */
START_TEST(test_lines_and_times)
{
	struct hits	h = { 0 };
	char		run[STORE_ID_LEN + 1];

	/* Writes at T0, T0 + 1 s, ...: a line's time is its first byte's. */
	make_run(1, "web", "a\nb x|\nc\nd x|\npart|ial x\ne\n|f x", run);
	search("x", 0, NULL, 0, &h);
	ck_assert_int_eq(h.n, 4);
	assert_hit(&h, 0, run, 1, "b x", 2, 3);
	ck_assert_int_eq(h.v[0].time, T0);
	assert_hit(&h, 1, run, 3, "d x", 2, 3);
	ck_assert_int_eq(h.v[1].time, T0 + 1000);
	assert_hit(&h, 2, run, 4, "partial x", 8, 9);
	ck_assert_int_eq(h.v[2].time, T0 + 2000);
	/* The partial last line, with no newline yet. */
	assert_hit(&h, 3, run, 6, "f x", 2, 3);
	ck_assert_int_eq(h.v[3].time, T0 + 4000);
	hits_free(&h);
}
END_TEST

/* A 200,000-character line is one line and matches at its end. */
START_TEST(test_long_line)
{
	struct hits	 h = { 0 };
	char		 run[STORE_ID_LEN + 1], *buf;
	size_t		 n = 200000, len;

	buf = malloc(n + 64);
	ck_assert_ptr_nonnull(buf);
	memcpy(buf, "first\n", 6);
	memset(buf + 6, 'a', n - 6);
	memcpy(buf + n - 6, "NEEDLE\nlast\n", 12);
	len = n + 6;
	make_run_bytes(1, buf, len, run);
	search("NEEDLE", 0, NULL, 0, &h);
	ck_assert_int_eq(h.n, 1);
	ck_assert_int_eq(h.v[0].line, 1);
	ck_assert_uint_eq(strlen(h.v[0].text), n - 6);
	ck_assert_uint_eq(h.v[0].so, n - 12);
	ck_assert_uint_eq(h.v[0].eo, n - 6);
	hits_free(&h);
	search("needle$", GREP_ICASE, NULL, 0, &h);
	ck_assert_int_eq(h.n, 1);
	ck_assert_uint_eq(h.v[0].so, n - 12);
	hits_free(&h);
	search("^last", 0, NULL, 0, &h);
	ck_assert_int_eq(h.n, 1);
	ck_assert_int_eq(h.v[0].line, 2);
	hits_free(&h);
	free(buf);
}
END_TEST

/*
 * Compare two searches' matches: the same runs, lines, texts and places
 * (in plain C; the assertions are made on the first that differs).
 */
static void
assert_same(const struct hits *a, const struct hits *b)
{
	int	i;

	ck_assert_int_eq(a->n, b->n);
	for (i = 0; i < a->n; i++) {
		if (strcmp(a->v[i].run, b->v[i].run) == 0 &&
		    a->v[i].line == b->v[i].line &&
		    a->v[i].time == b->v[i].time &&
		    strcmp(a->v[i].text, b->v[i].text) == 0 &&
		    a->v[i].so == b->v[i].so && a->v[i].eo == b->v[i].eo)
			continue;
		ck_assert_str_eq(a->v[i].run, b->v[i].run);
		ck_assert_int_eq(a->v[i].line, b->v[i].line);
		ck_assert_int_eq(a->v[i].time, b->v[i].time);
		ck_assert_str_eq(a->v[i].text, b->v[i].text);
		ck_assert_uint_eq(a->v[i].so, b->v[i].so);
		ck_assert_uint_eq(a->v[i].eo, b->v[i].eo);
	}
}

/* Run pattern once in one big step, then with budget, stopping or not. */
static void
assert_steps_same(const char *pattern, int flags, size_t budget,
    int stop_each)
{
	struct hits	 whole = { 0 }, steps = { 0 };
	struct grep	*g;
	char		*cause = NULL;

	search(pattern, flags, NULL, 0, &whole);
	ck_assert_int_gt(whole.n, 50);
	g = grep_new(dir, pattern, flags, NULL, 0, &cause);
	ck_assert_ptr_nonnull(g);
	steps.stop_each = stop_each;
	step_all(g, budget, &steps);
	ck_assert_uint_gt(grep_bytes(g), 4 * 1024 * 1024);
	grep_free(g);
	assert_same(&whole, &steps);
	hits_free(&whole);
	hits_free(&steps);
}

/* Budget stepping finds what one big step finds, in the same order. */
START_TEST(test_budget_steps)
{
	char	 run[STORE_ID_LEN + 1], *buf;
	size_t	 len = 0, cap = 6 * 1024 * 1024;
	int	 i;

	buf = malloc(cap);
	ck_assert_ptr_nonnull(buf);
	/* 5 MB over several blocks; some lines coloured, some matching. */
	for (i = 0; len + 200 < cap - 1024 * 1024; i++) {
		len += (size_t)sprintf(buf + len, i % 7 == 0 ?
		    "line %d \033[1mmat\033[mch %d\n" : i % 3 == 0 ?
		    "line %d match here %d\n" : "line %d nothing %d\n", i,
		    i * 31);
	}
	make_run_bytes(1, buf, len / 2, run);
	make_run_bytes(2, buf + len / 2, len - len / 2, run);
	/* (A stop costs a block read again: stop on rare matches only.) */
	assert_steps_same("match", 0, 1, 0);
	assert_steps_same("00 match", 0, 100000, 1);
	assert_steps_same("MATCH", GREP_ICASE, 4096, 0);
	assert_steps_same("ma[t]ch [0-9]*1$", 0, 65536, 0);
	assert_steps_same("line [0-9]*00 ma[t]ch", 0, 1, 1);
	free(buf);
}
END_TEST

/* Expect grep_new() to refuse pattern with a cause that holds want. */
static void
assert_refused(const char *pattern, int flags, const char *want)
{
	struct grep	*g;
	char		*cause = NULL;

	g = grep_new(dir, pattern, flags, NULL, 0, &cause);
	ck_assert_msg(g == NULL, "%s: taken", pattern);
	ck_assert_msg(strncmp(cause, "bad pattern: ", 13) == 0 &&
	    strstr(cause, want) != NULL, "%s: %s", pattern, cause);
	free(cause);
}

/* Expect grep_new() to take pattern. */
static void
assert_taken(const char *pattern, int flags)
{
	struct grep	*g;
	char		*cause = NULL;

	g = grep_new(dir, pattern, flags, NULL, 0, &cause);
	ck_assert_msg(g != NULL, "%s: %s", pattern, cause);
	grep_free(g);
}

/*
 * A pattern that would make regcomp() take gigabytes (each stacked '+'
 * doubles what it repeats: the fuzzer's out-of-memory input was like
 * this), or a back-reference that makes regexec() exponential, is refused
 * with its reason before it reaches the C library; their neighbours
 * within the bounds still work, and -F takes any of them as text.
 */
START_TEST(test_hostile_pattern)
{
	static const char	*too_large = "too large once its repetitions";
	char			 deep[2 * RXBOUND_DEPTH_MAX + 8];
	size_t			 n;

	assert_refused("w++++++++++++++++++++++++++++++++++++++++++",
	    GREP_EXTENDED, too_large);
	assert_refused("w\\+\\+\\+\\+\\+\\+\\+\\+\\+\\+\\+\\+", 0,
	    too_large);
	assert_refused("(a?){500}", GREP_EXTENDED, too_large);
	assert_refused("((a?){22}){22}", GREP_EXTENDED | GREP_ICASE,
	    too_large);
	assert_refused("\\(a?\\)\\{30\\}\\{30\\}", 0, too_large);
	assert_refused("(.*)(.*)\\2\\1x", GREP_EXTENDED,
	    "back-references such as \\2 are not supported");
	assert_refused("\\(a*\\)*\\1b", 0, "back-references such as \\1");
	/* Within the bounds, and the same text where it means less. */
	assert_taken("(a?){400}", GREP_EXTENDED);
	assert_taken("w+++", GREP_EXTENDED);
	assert_taken("w++++++++++++++++++++++++++++++++++++++++++", 0);
	assert_taken("a{1000}{1000}", 0);
	assert_taken("(.*)(.*)\\2\\1x", GREP_FIXED);
	assert_taken("[\\1]x", GREP_EXTENDED);
	/* Groups nest RXBOUND_DEPTH_MAX deep, not one more. */
	for (n = 0; n < RXBOUND_DEPTH_MAX; n++)
		deep[n] = '(';
	deep[n++] = 'a';
	memset(deep + n, ')', RXBOUND_DEPTH_MAX);
	deep[n + RXBOUND_DEPTH_MAX] = '\0';
	assert_taken(deep, GREP_EXTENDED);
	memmove(deep + 1, deep, strlen(deep) + 1);
	strcat(deep, ")");
	assert_refused(deep, GREP_EXTENDED, "groups nested more than 64 deep");
}
END_TEST

/* A bad regex: a clear error, no search. */
START_TEST(test_bad_pattern)
{
	struct grep	*g;
	char		*cause = NULL;

	g = grep_new(dir, "a[b", 0, NULL, 0, &cause);
	ck_assert_ptr_null(g);
	ck_assert_msg(strncmp(cause, "bad pattern: ", 13) == 0 &&
	    strlen(cause) > 14, "cause: %s", cause);
	free(cause);
	cause = NULL;
	g = grep_new(dir, "(a", GREP_EXTENDED, NULL, 0, &cause);
	ck_assert_ptr_null(g);
	ck_assert_msg(strncmp(cause, "bad pattern: ", 13) == 0, "%s", cause);
	free(cause);
	cause = NULL;
	/* The same text is fine as a plain string and in a basic regex. */
	g = grep_new(dir, "a[b", GREP_FIXED, NULL, 0, &cause);
	ck_assert_ptr_nonnull(g);
	grep_free(g);
	g = grep_new(dir, "(a", 0, NULL, 0, &cause);
	ck_assert_ptr_nonnull(g);
	grep_free(g);
}
END_TEST

/* Remove a run's directory. */
static void
remove_run(const char *run)
{
	char	cmd[256];

	snprintf(cmd, sizeof cmd, "rm -rf %s/runs/%s", dir, run);
	ck_assert_int_eq(system(cmd), 0);
}

/* Stop after the first match. */
static int
stop_first(const struct grep_match *m, void *arg)
{
	(void)m;
	(void)arg;
	return 1;
}

/* Runs removed during a search are skipped without an error. */
START_TEST(test_run_removed)
{
	static const struct grep_cbs	 stop_cbs = { .match = stop_first };
	struct hits			 h = { 0 };
	struct grep			*g;
	char				 r1[STORE_ID_LEN + 1];
	char				 r2[STORE_ID_LEN + 1];
	char				 r3[STORE_ID_LEN + 1];
	char				*cause = NULL;

	make_run(1, "one", "x 1\nx 2\n", r1);
	wait_past(r1);
	make_run(2, "two", "x 3\nx 4\n", r2);
	wait_past(r2);
	make_run(3, "three", "x 5\nx 6\n", r3);
	g = grep_new(dir, "x", 0, NULL, 0, &cause);
	ck_assert_ptr_nonnull(g);
	/* In the newest run, the middle one goes, then the current one. */
	ck_assert_int_eq(grep_step(g, 1024, &stop_cbs, NULL), 1);
	ck_assert_int_eq(grep_matches(g), 1);
	remove_run(r2);
	remove_run(r3);
	step_all(g, 1024, &h);
	/* What r3's reader still held may come; r2 never does; r1 whole. */
	ck_assert_int_ge(h.n, 2);
	ck_assert_str_eq(h.v[h.n - 2].run, r1);
	assert_hit(&h, h.n - 1, r1, 1, "x 2", 0, 1);
	ck_assert_int_le(h.n, 3);
	if (h.n == 3)
		assert_hit(&h, 0, r3, 1, "x 6", 0, 1);
	hits_free(&h);
	grep_free(g);

	/* Runs given by id that are gone before the search starts. */
	g = grep_new(dir, "x", 0, (char *[]){ r3, r1 }, 2, &cause);
	ck_assert_ptr_nonnull(g);
	step_all(g, 1024, &h);
	ck_assert_int_eq(h.n, 2);
	hits_free(&h);
	grep_free(g);
}
END_TEST

/* Make a run that has lost its index (idx.0), as a crash could leave. */
static void
make_run_without_index(int job, const char *text, char *id)
{
	char	path[256];

	make_run(job, "noidx", text, id);
	snprintf(path, sizeof path, "%s/runs/%s/idx.0", dir, id);
	ck_assert_int_eq(unlink(path), 0);
}

/*
 * Make a run of about 200 KiB of lines "x NNNNNN" in segments of 64 KiB
 * whose out.1 is then cut to 1000 bytes (truncate -s, freeing disk).
 */
static void
make_run_cut(int job, char *id)
{
	struct store_limits	 lim;
	struct store		*small;
	char			 path[256], *text, *cause = NULL;
	size_t			 len = 0;
	int			 i = 0;

	store_default_limits(&lim);
	lim.max_run_bytes = 256 * 1024;
	small = store_open(dir, &lim, &cause);
	ck_assert_msg(small != NULL, "store_open: %s", cause);
	text = malloc(200 * 1024 + 32);
	ck_assert_ptr_nonnull(text);
	while (len < 200 * 1024)
		len += (size_t)sprintf(text + len, "x %06d\n", i++);
	make_run_in(small, job, "cut", text, id);
	store_free(small);
	free(text);
	snprintf(path, sizeof path, "%s/runs/%s/out.1", dir, id);
	ck_assert_int_eq(truncate(path, 1000), 0);
}

/*
 * A damaged run is searched up to its damage, one none of which can be
 * read passed over, and both counted with the first one's reason: the
 * search ends (a run without its index crashed it, a cut out file made
 * it spin), with every match of what can be read (a run with a cut
 * segment was passed over whole: its intact segment too).
 */
START_TEST(test_damaged_runs)
{
	struct hits	 h = { 0 };
	struct grep	*g;
	const char	*why;
	char		 r1[STORE_ID_LEN + 1], r2[STORE_ID_LEN + 1];
	char		 r3[STORE_ID_LEN + 1], want[256], *cause = NULL;

	make_run(1, "good", "x 1\nno\n", r1);
	wait_past(r1);
	make_run_without_index(2, "x 2\n", r2);
	wait_past(r2);
	make_run_cut(3, r3);
	/* r3 reads to out.0's end: lines "x 007280" and the part "x 00728". */
	g = grep_new(dir, "x 1\\|x 00728", 0, NULL, 0, &cause);
	ck_assert_ptr_nonnull(g);
	step_all(g, 4096, &h);
	ck_assert_int_eq(h.n, 3);
	assert_hit(&h, 0, r3, 7280, "x 007280", 0, 7);
	assert_hit(&h, 1, r3, 7281, "x 00728", 0, 7);
	assert_hit(&h, 2, r1, 0, "x 1", 0, 3);
	ck_assert_int_eq(grep_damaged(g, &why), 2);
	snprintf(want, sizeof want, "runs/%s is damaged: out.1 holds 1000 "
	    "bytes, its index 65536; cut after line 7282 (139268 bytes after "
	    "it cannot be read)", r3);
	ck_assert_str_eq(why, want);
	hits_free(&h);
	grep_free(g);

	/* The run without its index, given by id. */
	g = grep_new(dir, "x", 0, (char *[]){ r2 }, 1, &cause);
	ck_assert_ptr_nonnull(g);
	step_all(g, 1, &h);
	ck_assert_int_eq(h.n, 0);
	ck_assert_int_eq(grep_damaged(g, &why), 1);
	snprintf(want, sizeof want, "runs/%s is damaged: it has no index "
	    "(idx.N)", r2);
	ck_assert_str_eq(why, want);
	grep_free(g);
}
END_TEST

/* grep_line_match() is the search's matcher on a given text. */
START_TEST(test_line_match)
{
	struct grep	*g;
	char		*cause = NULL;
	size_t		 so, eo;

	g = grep_new(dir, "wor+ld", GREP_EXTENDED | GREP_ICASE, NULL, 0,
	    &cause);
	ck_assert_ptr_nonnull(g);
	ck_assert_int_eq(grep_line_match(g, "hello WORRLD!", 13, &so, &eo), 1);
	ck_assert_uint_eq(so, 6);
	ck_assert_uint_eq(eo, 12);
	/* Only len bytes count. */
	ck_assert_int_eq(grep_line_match(g, "hello WORRLD!", 10, &so, &eo), 0);
	grep_free(g);
	g = grep_new(dir, "LD", GREP_ICASE, NULL, 0, &cause);
	ck_assert_ptr_nonnull(g);
	ck_assert_int_eq(grep_line_match(g, "hello world", 11, &so, &eo), 1);
	ck_assert_uint_eq(so, 9);
	ck_assert_uint_eq(eo, 11);
	ck_assert_int_eq(grep_line_match(g, "hello worl", 10, &so, &eo), 0);
	grep_free(g);
}
END_TEST

/* The command: a job table, a session and a client that records. */
struct crec {
	char		*errors[8];
	int		 nerrors;
	char		*messages[8];
	int		 nmessages;
	char		*title;
	char		**lines;
	int		 count;
	struct grep	*grep;	/* what the grep callback was given */

	struct loop	*loop;
	struct jobtable	*jt;
	struct session	*session;
	struct cmd_ctx	 ctx;
};

static struct crec	crec;
static struct store	*full_store;	/* test_cmd_disk_full's, on a tmpfs */
static char		 full_mnt[128];

/* Keep an error. */
static void
crec_error(const char *msg, void *arg)
{
	struct crec	*r = arg;

	ck_assert_int_lt(r->nerrors, 8);
	r->errors[r->nerrors++] = strdup(msg);
}

/* Keep a message. */
static void
crec_message(const char *msg, void *arg)
{
	struct crec	*r = arg;

	ck_assert_int_lt(r->nmessages, 8);
	r->messages[r->nmessages++] = strdup(msg);
}

/* Keep a copy of a shown text. */
static void
crec_show(const char *title, char **lines, int count, int header,
    void *arg)
{
	struct crec	*r = arg;
	int		 i;

	ck_assert_int_eq(header, 0);
	ck_assert_ptr_null(r->title);
	r->title = strdup(title);
	r->lines = calloc((size_t)count + 1, sizeof *r->lines);
	for (i = 0; i < count; i++)
		r->lines[i] = strdup(lines[i]);
	r->count = count;
}

/* Take a search over, as a streaming client does. */
static int
crec_grep(struct grep *g, void *arg, char **cause)
{
	struct crec	*r = arg;

	(void)cause;
	ck_assert_ptr_null(r->grep);
	r->grep = g;
	return 0;
}

static const struct cmd_client crec_client = {
	.message = crec_message,
	.error = crec_error,
	.show = crec_show,
};

static const struct cmd_client crec_stream_client = {
	.message = crec_message,
	.error = crec_error,
	.show = crec_show,
	.grep = crec_grep,
};

/* Forget what the client was told. */
static void
crec_clear(void)
{
	int	i;

	for (i = 0; i < crec.nerrors; i++)
		free(crec.errors[i]);
	for (i = 0; i < crec.nmessages; i++)
		free(crec.messages[i]);
	for (i = 0; i < crec.count; i++)
		free(crec.lines[i]);
	free(crec.lines);
	free(crec.title);
	grep_free(crec.grep);
	crec.nerrors = crec.nmessages = crec.count = 0;
	crec.lines = NULL;
	crec.title = NULL;
	crec.grep = NULL;
}

static char *const test_env[] = {
	"PATH=/usr/bin:/bin", "LC_ALL=C", "HOME=/", NULL
};

/* A store, a loop, a job table with the store, a session, a context. */
static void
cmd_setup(void)
{
	setup();
	memset(&crec, 0, sizeof crec);
	signal(SIGPIPE, SIG_IGN);
	crec.loop = loop_new();
	crec.jt = jobtable_new(crec.loop);
	jobtable_set_grace(crec.jt, 500);
	jobtable_set_store(crec.jt, store);
	crec.session = session_new(test_env);
	crec.ctx.jt = crec.jt;
	crec.ctx.session = crec.session;
	crec.ctx.client = &crec_client;
	crec.ctx.arg = &crec;
}

/* Kill the jobs, free everything. */
static void
cmd_teardown(void)
{
	int	i;

	crec_clear();
	for (i = 0; i < jobtable_count(crec.jt); i++)
		job_signal(jobtable_get(crec.jt, i), SIGKILL);
	jobtable_free(crec.jt);
	loop_free(crec.loop);
	session_free(crec.session);
	jobtable_kill_strays();
	store_free(full_store);
	full_store = NULL;
	if (full_mnt[0] != '\0')
		testmnt_umount(full_mnt);
	full_mnt[0] = '\0';
	teardown();
}

/* Run a prompt line that must succeed without an error. */
static void
cmd_ok(const char *line)
{
	int	rc;

	crec_clear();
	rc = cmd_run_line(&crec.ctx, line);
	ck_assert_msg(rc == 0 && crec.nerrors == 0, "%s: rc %d, error %s",
	    line, rc, crec.nerrors > 0 ? crec.errors[0] : "none");
}

/* Run a prompt line that must fail with exactly the error want. */
static void
cmd_fails(const char *line, const char *want)
{
	int	rc;

	crec_clear();
	rc = cmd_run_line(&crec.ctx, line);
	ck_assert_msg(rc == -1, "%s: rc %d", line, rc);
	ck_assert_int_eq(crec.nerrors, 1);
	ck_assert_str_eq(crec.errors[0], want);
}

/* !grep shows "RUN [JOB] NAME:LINE: text", newest run first. */
START_TEST(test_cmd_show)
{
	char	r1[STORE_ID_LEN + 1], r2[STORE_ID_LEN + 1], want[256];

	make_run(1, "web", "GET /a\nPOST /b\nGET /c\n", r1);
	wait_past(r1);
	make_run(2, "db", "ready\nget \033[1mit\033[m\n", r2);
	cmd_ok("!grep -i get");
	ck_assert_str_eq(crec.title, "grep get: 3 matches");
	ck_assert_int_eq(crec.count, 3);
	snprintf(want, sizeof want, "%s [2] db:2: get it", r2);
	ck_assert_str_eq(crec.lines[0], want);
	snprintf(want, sizeof want, "%s [1] web:1: GET /a", r1);
	ck_assert_str_eq(crec.lines[1], want);
	snprintf(want, sizeof want, "%s [1] web:3: GET /c", r1);
	ck_assert_str_eq(crec.lines[2], want);

	/* A run id as an operand; options long and short; -- */
	snprintf(want, sizeof want, "!grep --fixed-strings -- /b %s", r1);
	cmd_ok(want);
	ck_assert_int_eq(crec.count, 1);
	cmd_ok("!grep -E 'GET|ready'");
	ck_assert_int_eq(crec.count, 3);
	cmd_ok("!grep nothing-like-it");
	ck_assert_int_eq(crec.count, 0);
	ck_assert_int_eq(crec.nmessages, 1);
	ck_assert_msg(strncmp(crec.messages[0],
	    "grep: no match for nothing-like-it", 34) == 0, "%s",
	    crec.messages[0]);
}
END_TEST

/* !grep ID: this deck's runs of the job, not another deck's of its id. */
START_TEST(test_cmd_jobs)
{
	struct store_limits	 lim;
	struct store		*other;
	char			 r1[STORE_ID_LEN + 1], r2[STORE_ID_LEN + 1];
	char			 r3[STORE_ID_LEN + 1], want[256], *cause;

	cmd_ok("sleep 30");
	ck_assert_int_eq(jobtable_count(crec.jt), 1);
	ck_assert_int_eq(job_id(jobtable_get(crec.jt, 0)), 1);
	store_default_limits(&lim);
	cause = NULL;
	other = store_open(dir, &lim, &cause);
	ck_assert_ptr_nonnull(other);
	make_run(1, "sleep", "hit one\n", r1);
	make_run(2, "two", "hit two\n", r2);
	make_run_in(other, 1, "elsewhere", "hit three\n", r3);
	store_free(other);

	cmd_ok("!grep hit 1");
	ck_assert_int_eq(crec.count, 1);
	snprintf(want, sizeof want, "%s [1] sleep:1: hit one", r1);
	ck_assert_str_eq(crec.lines[0], want);
	/* Every run of every deck without operands. */
	cmd_ok("!grep hit");
	ck_assert_int_eq(crec.count, 3);
	/* A job and a run of another deck. */
	snprintf(want, sizeof want, "!grep hit %s 1", r3);
	cmd_ok(want);
	ck_assert_int_eq(crec.count, 2);
	cmd_fails("!grep hit nosuch", "grep: no such job or run: nosuch");
	cmd_fails("!grep hit ../x", "grep: no such job or run: ../x");
}
END_TEST

/* The command's errors. */
START_TEST(test_cmd_errors)
{
	cmd_fails("!grep 'a[b'", "grep: bad pattern: Unmatched [, [^, "
	    "[:, [., or [=");
	cmd_fails("!grep -E -F x", "grep: -E and -F cannot be used together");
	cmd_fails("!grep", "usage: !grep [--ignore-case] "
	    "[--extended-regexp] [--fixed-strings] PATTERN [ID...]");
	jobtable_set_store(crec.jt, NULL);
	cmd_fails("!grep x", "grep: no output store (logging is off)");
}
END_TEST

/* Without streaming, the command stops after 1,000 matches and says so. */
START_TEST(test_cmd_cap)
{
	char	run[STORE_ID_LEN + 1], *buf;
	size_t	len = 0;
	int	i;

	buf = malloc(1500 * 16);
	ck_assert_ptr_nonnull(buf);
	for (i = 0; i < 1500; i++)
		len += (size_t)sprintf(buf + len, "m %d\n", i);
	make_run_bytes(1, buf, len, run);
	free(buf);
	cmd_ok("!grep m");
	ck_assert_int_eq(crec.count, 1000);
	ck_assert_str_eq(crec.title, "grep m: stopped after 1000 matches");
}
END_TEST

/* A client that streams takes the search over. */
START_TEST(test_cmd_stream)
{
	struct hits	h = { 0 };
	char		run[STORE_ID_LEN + 1];

	make_run(1, "web", "a\nb\na\n", run);
	crec.ctx.client = &crec_stream_client;
	cmd_ok("!grep a");
	ck_assert_ptr_nonnull(crec.grep);
	ck_assert_ptr_null(crec.title);
	ck_assert_str_eq(grep_pattern(crec.grep), "a");
	step_all(crec.grep, 1, &h);
	ck_assert_int_eq(h.n, 2);
	hits_free(&h);
}
END_TEST

/* !grep says how many runs it could not read, and why the first. */
START_TEST(test_cmd_damaged)
{
	char	r1[STORE_ID_LEN + 1], r2[STORE_ID_LEN + 1], want[256];

	make_run(1, "web", "GET /a\n", r1);
	make_run_without_index(2, "GET /b\n", r2);
	cmd_ok("!grep GET");
	ck_assert_int_eq(crec.count, 1);
	ck_assert_str_eq(crec.title, "grep GET: 1 match");
	ck_assert_int_eq(crec.nmessages, 1);
	snprintf(want, sizeof want, "grep: 1 run damaged, searched up to the "
	    "damage: runs/%s is damaged: it has no index (idx.N)", r2);
	ck_assert_str_eq(crec.messages[0], want);
	snprintf(want, sizeof want, "!grep POST %s", r2);
	cmd_ok(want);
	ck_assert_int_eq(crec.count, 0);
	ck_assert_int_eq(crec.nmessages, 2);
	ck_assert(strncmp(crec.messages[0], "grep: 1 run damaged, ", 21) ==
	    0);
	ck_assert(strncmp(crec.messages[1], "grep: no match for POST", 23) ==
	    0);
}
END_TEST

/* Whether the job has been reaped and its output closed. */
static int
job_done(void *arg)
{
	struct job	*job = arg;

	return !job_is_running(job) && job_out_fd(job) == -1;
}

/* Turn the loop until cond(arg) holds or ms pass; return whether it held. */
static int
run_until(int (*cond)(void *), void *arg, int ms)
{
	int64_t	end = loop_now_ms() + ms;

	while (!cond(arg)) {
		if (loop_now_ms() >= end)
			return 0;
		ck_assert_int_ne(loop_run_once(crec.loop, 20), -1);
	}
	return 1;
}

/*
 * A job whose output fills the disk (a 128 KiB tmpfs under the store):
 * the job goes on unlogged and says why once, and its end still reaches
 * its run's meta (it showed as running, then lost), with no meta.tmp.
 */
START_TEST(test_cmd_disk_full)
{
	struct store_meta	 m;
	struct job		*job;
	struct stat		 sb;
	const char		*why;
	char			 path[256], *cause = NULL;

	snprintf(full_mnt, sizeof full_mnt, "%s/full", dir);
	if (testmnt_tmpfs(full_mnt, 128 * 1024, "disk full under a job") !=
	    0) {
		full_mnt[0] = '\0';
		return;
	}
	full_store = store_open(full_mnt, NULL, &cause);
	ck_assert_msg(full_store != NULL, "store_open: %s", cause);
	jobtable_set_store(crec.jt, full_store);
	cmd_ok("head -c 300000 /dev/zero | tr '\\0' y; echo; echo end");
	ck_assert_int_eq(jobtable_count(crec.jt), 1);
	job = jobtable_get(crec.jt, 0);
	ck_assert_msg(run_until(job_done, job, 20000), "the job did not end");
	ck_assert_ptr_nonnull(job_run_id(job));
	ck_assert_int_eq(store_meta_read(full_mnt, job_run_id(job), &m,
	    &cause), 0);
	ck_assert_str_eq(m.state, "completed");
	ck_assert_int_gt(m.ended, 0);
	ck_assert_int_eq(m.has_status, 1);
	ck_assert_int_eq(m.status, 0);
	store_meta_clear(&m);
	snprintf(path, sizeof path, "%s/runs/%s/meta.tmp", full_mnt,
	    job_run_id(job));
	ck_assert_int_eq(lstat(path, &sb), -1);
	ck_assert_ptr_nonnull(why = job_log_warning(job));
	ck_assert_msg(strncmp(why, "No space left on device, writing runs/",
	    38) == 0, "%s", why);
	ck_assert_ptr_null(job_log_warning(job));
}
END_TEST

/* Whether the job has printed at least arg's bytes. */
static int
job_printed(void *arg)
{
	return jobtable_count(crec.jt) > 0 &&
	    job_output_bytes(jobtable_get(crec.jt, 0)) >= strlen(arg);
}

/*
 * !logs of a damaged run shows it up to its damage and fails saying so
 * and what was cut (a run without its index crashed the deck, a cut
 * segment hid the whole run); !logs of a live job whose run was damaged
 * shows its terminal's lines instead, and says why.
 */
START_TEST(test_cmd_logs_damaged)
{
	struct job	*job;
	char		 r1[STORE_ID_LEN + 1], r2[STORE_ID_LEN + 1];
	char		 line[128], want[256], path[256];

	make_run_cut(1, r1);
	make_run_without_index(2, "x\n", r2);
	snprintf(line, sizeof line, "!logs %s", r1);
	snprintf(want, sizeof want, "logs: runs/%s is damaged: out.1 holds "
	    "1000 bytes, its index 65536; cut after line 7282 (139268 bytes "
	    "after it cannot be read)", r1);
	cmd_fails(line, want);
	ck_assert_int_eq(crec.count, 7282);
	ck_assert_str_eq(crec.lines[7280], "x 007280");
	ck_assert_str_eq(crec.lines[7281], "x 00728");
	snprintf(line, sizeof line, "!logs %s", r2);
	snprintf(want, sizeof want, "logs: runs/%s is damaged: it has no "
	    "index (idx.N)", r2);
	cmd_fails(line, want);

	cmd_ok("echo hello-there; sleep 30");
	ck_assert_msg(run_until(job_printed, "hello-there\r\n", 10000),
	    "no output");
	job = jobtable_get(crec.jt, 0);
	snprintf(path, sizeof path, "%s/runs/%s/idx.0", dir, job_run_id(job));
	ck_assert_int_eq(unlink(path), 0);
	snprintf(want, sizeof want, "logs: runs/%s is damaged: it has no "
	    "index (idx.N)", job_run_id(job));
	cmd_fails("!logs 1", want);
	ck_assert_int_ge(crec.count, 1);
	ck_assert_str_eq(crec.lines[0], "hello-there");
}
END_TEST

/* Build the grep suite. */
static Suite *
grep_suite(void)
{
	Suite	*s = suite_create("grep");
	TCase	*tc;

	tc = tcase_create("search");
	tcase_add_checked_fixture(tc, setup, teardown);
	/* budget_steps greps 5 MB ten times: a sanitizer's, on a busy host. */
	tcase_set_timeout(tc, 90);
	tcase_add_test(tc, test_literal);
	tcase_add_test(tc, test_icase);
	tcase_add_test(tc, test_icase_locale);
	tcase_add_test(tc, test_extended);
	tcase_add_test(tc, test_fixed);
	tcase_add_test(tc, test_colour_split);
	tcase_add_test(tc, test_progress);
	tcase_add_test(tc, test_runs_newest_first);
	tcase_add_test(tc, test_lines_and_times);
	tcase_add_test(tc, test_long_line);
	tcase_add_test(tc, test_budget_steps);
	tcase_add_test(tc, test_bad_pattern);
	tcase_add_test(tc, test_hostile_pattern);
	tcase_add_test(tc, test_run_removed);
	tcase_add_test(tc, test_damaged_runs);
	tcase_add_test(tc, test_line_match);
	suite_add_tcase(s, tc);

	tc = tcase_create("command");
	tcase_add_checked_fixture(tc, cmd_setup, cmd_teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_cmd_show);
	tcase_add_test(tc, test_cmd_jobs);
	tcase_add_test(tc, test_cmd_errors);
	tcase_add_test(tc, test_cmd_cap);
	tcase_add_test(tc, test_cmd_stream);
	tcase_add_test(tc, test_cmd_damaged);
	tcase_add_test(tc, test_cmd_logs_damaged);
	tcase_add_test(tc, test_cmd_disk_full);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite. */
int
main(void)
{
	SRunner	*sr;
	int	 failed;

	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0)
		perror("check_grep: PR_SET_CHILD_SUBREAPER");
	sr = srunner_create(grep_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

/*
 * check_logmerge.c: tests for the merge of several runs into one log on a
 * real store in a fresh directory: three runs with interleaved times
 * read whole, page by page backward across the merge's windows and line
 * by line in any order, all against a plain sort of what was written;
 * equal times kept in the order the streams were given; the merged
 * numbers as the runs grow and a partial line held back; a new run of a
 * followed job; and reading a page at either end of three big runs
 * reads a bounded number of bytes.
 */
#include <sys/stat.h>

#include <check.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "logmerge.h"
#include "skip.h"
#include "store.h"

static char	tdir[64];

/* Make a fresh directory for a test. */
static void
setup(void)
{
	snprintf(tdir, sizeof tdir, "/tmp/check_logmerge.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tdir));
}

/* Remove one entry of the test directory. */
static int
rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	if (flag == FTW_DP)
		return rmdir(path);
	return unlink(path);
}

/* Remove the test directory. */
static void
teardown(void)
{
	nftw(tdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Open a store in the test directory. */
static struct store *
open_store(void)
{
	struct store_limits	 lim;
	struct store		*st;
	char			*cause = NULL;

	store_default_limits(&lim);
	st = store_open(tdir, &lim, &cause);
	ck_assert_msg(st != NULL, "store_open: %s", cause);
	return st;
}

/* Start a run of job id. */
static struct store_run *
new_run(struct store *st, int id)
{
	struct store_meta	 m;
	struct store_run	*sr;
	char			*cause = NULL;

	memset(&m, 0, sizeof m);
	m.job = id;
	m.start = 1;
	m.command = (char *)"echo";
	m.state = (char *)"running";
	m.started = 1;
	sr = store_run_new(st, &m, &cause);
	ck_assert_msg(sr != NULL, "store_run_new: %s", cause);
	return sr;
}

/* Write a string to a run at time t. */
static void
put(struct store_run *sr, const char *s, int64_t t)
{
	ck_assert_int_eq(store_run_write(sr, STORE_TTY, s, strlen(s), t), 0);
}

/* Make a merge of runs, each its own label (its index). */
static struct logmerge *
merge_of(struct store_run **runs, int n)
{
	struct logmerge	*m = logmerge_new(tdir);
	char		*cause = NULL;
	int		 i;

	for (i = 0; i < n; i++)
		ck_assert_msg(logmerge_add(m, store_run_id(runs[i]), i,
		    &cause) == 0, "logmerge_add: %s", cause);
	return m;
}

/* One line written: its time, stream (run) and text, for the plain sort. */
struct wrote {
	int64_t	time;
	int	stream;
	int	no;
	char	text[32];
};

/* Order lines as the merge must: time, then stream, then line. */
static int
wrote_cmp(const void *a, const void *b)
{
	const struct wrote	*x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->stream != y->stream)
		return x->stream - y->stream;
	return x->no - y->no;
}

/* Check merged lines [from, to) against the sorted lines written. */
static void
check_range(struct logmerge *m, int64_t from, int64_t to,
    const struct wrote *want)
{
	struct store_line	*l;
	int			*streams, n, i;

	ck_assert_int_eq(logmerge_get(m, from, to, STORE_TEXT, &l, &streams,
	    &n), 0);
	ck_assert_int_eq(n, (int)(to - from));
	for (i = 0; i < n; i++) {
		ck_assert_int_eq(l[i].no, from + i);
		ck_assert_msg(strcmp(l[i].text, want[from + i].text) == 0 &&
		    streams[i] == want[from + i].stream,
		    "line %lld: got %s (stream %d), want %s (stream %d)",
		    (long long)(from + i), l[i].text, streams[i],
		    want[from + i].text, want[from + i].stream);
		ck_assert_int_eq(l[i].time, want[from + i].time);
	}
	store_lines_free(l, n);
	free(streams);
}

#define NLINES	700	/* per run: more than a window of the merge */

START_TEST(test_interleaved)
{
	struct store		*st = open_store();
	struct store_run	*runs[3];
	struct logmerge		*m;
	struct wrote		*want;
	char			 buf[64];
	int64_t			 t, from, count;
	int			 i, j, k, total = 0;

	want = calloc(3 * NLINES, sizeof *want);
	for (j = 0; j < 3; j++)
		runs[j] = new_run(st, j + 1);
	/*
	 * Lines of each run at times that interleave, with ties among the
	 * runs; run 0 writes some of its lines three to a write (one time).
	 */
	for (j = 0; j < 3; j++) {
		for (i = 0; i < NLINES; i++) {
			t = 1000 + (int64_t)((i * (3 + j) + j * 5) / 4) * 10;
			if (j == 0 && i % 30 == 0 && i + 2 < NLINES) {
				snprintf(buf, sizeof buf, "%c%d\n%c%d\n%c%d\n",
				    'a' + j, i, 'a' + j, i + 1, 'a' + j, i + 2);
				put(runs[j], buf, t);
				for (k = 0; k < 3; k++) {
					want[total].time = t;
					want[total].stream = j;
					want[total].no = i + k;
					snprintf(want[total].text,
					    sizeof want[total].text, "%c%d",
					    'a' + j, i + k);
					total++;
				}
				i += 2;
				continue;
			}
			snprintf(buf, sizeof buf, "%c%d\n", 'a' + j, i);
			put(runs[j], buf, t);
			want[total].time = t;
			want[total].stream = j;
			want[total].no = i;
			snprintf(want[total].text, sizeof want[total].text,
			    "%c%d", 'a' + j, i);
			total++;
		}
	}
	ck_assert_int_eq(total, 3 * NLINES);
	qsort(want, (size_t)total, sizeof *want, wrote_cmp);
	m = merge_of(runs, 3);
	ck_assert_int_eq(logmerge_first(m), 0);
	count = logmerge_count(m);
	ck_assert_int_eq(count, total);
	/* Whole. */
	check_range(m, 0, count, want);
	/* Backward a page at a time from the end, as a view pages up. */
	for (from = count - 23; from > -23; from -= 23)
		check_range(m, from < 0 ? 0 : from, from + 23, want);
	/* A line at a time, from here and there. */
	for (i = 0; i < total; i += 37)
		check_range(m, (total - 1 - i) % total, (total - 1 - i) %
		    total + 1, want);
	for (i = 0; i < total; i++)
		check_range(m, i, i + 1, want);
	/* Forward from a seek, through logmerge_next() in pieces. */
	logmerge_seek(m, 1000);
	for (from = 1000; logmerge_left(m); ) {
		struct store_line	*l;
		int			*streams, n;

		ck_assert_int_eq(logmerge_next(m, 300, STORE_TEXT, &l,
		    &streams, &n), 0);
		ck_assert_int_gt(n, 0);
		for (k = 0; k < n; k++) {
			ck_assert_str_eq(l[k].text, want[from + k].text);
			ck_assert_int_eq(streams[k], want[from + k].stream);
		}
		from += n;
		store_lines_free(l, n);
		free(streams);
	}
	ck_assert_int_eq(from, total);
	logmerge_free(m);
	for (j = 0; j < 3; j++)
		store_run_close(runs[j]);
	store_free(st);
	free(want);
}
END_TEST

/* Return merged lines [from, to) as "TEXT/STREAM" words in one string. */
static char *
words(struct logmerge *m, int64_t from, int64_t to)
{
	struct store_line	*l;
	static char		 s[1024];
	size_t			 len = 0;
	int			*streams, n, i;

	s[0] = '\0';
	ck_assert_int_eq(logmerge_get(m, from, to, STORE_TEXT, &l, &streams,
	    &n), 0);
	for (i = 0; i < n; i++)
		len += (size_t)snprintf(s + len, sizeof s - len, "%s%s/%d",
		    i > 0 ? " " : "", l[i].text, streams[i]);
	store_lines_free(l, n);
	free(streams);
	return s;
}

START_TEST(test_equal_times_in_given_order)
{
	struct store		*st = open_store();
	struct store_run	*a = new_run(st, 1), *b = new_run(st, 2);
	struct store_run	*c = new_run(st, 3), *order[3];
	struct logmerge		*m;

	put(a, "a0\na1\n", 100);
	put(b, "b0\n", 100);
	put(c, "c0\nc1\n", 100);
	put(b, "b1\n", 200);
	put(a, "a2\n", 200);
	put(c, "c2\n", 150);
	/* Given as b, c, a: ties go b, then c, then a. */
	order[0] = b;
	order[1] = c;
	order[2] = a;
	m = merge_of(order, 3);
	ck_assert_str_eq(words(m, 0, 8),
	    "b0/0 c0/1 c1/1 a0/2 a1/2 c2/1 b1/0 a2/2");
	/* Found by number, each line the same. */
	ck_assert_str_eq(words(m, 3, 4), "a0/2");
	ck_assert_str_eq(words(m, 5, 7), "c2/1 b1/0");
	ck_assert_str_eq(words(m, 7, 8), "a2/2");
	ck_assert_str_eq(words(m, 0, 1), "b0/0");
	logmerge_free(m);
	store_run_close(a);
	store_run_close(b);
	store_run_close(c);
	store_free(st);
}
END_TEST

START_TEST(test_growing_and_partial)
{
	struct store		*st = open_store();
	struct store_run	*runs[2], *again;
	struct store_line	*l;
	struct logmerge		*m;
	char			*cause = NULL;
	int			 n;

	runs[0] = new_run(st, 1);
	runs[1] = new_run(st, 2);
	put(runs[0], "x0\n", 10);
	put(runs[1], "y0\n", 20);
	m = merge_of(runs, 2);
	logmerge_limit(m, LOGMERGE_COMPLETE);
	ck_assert_int_eq(logmerge_next(m, 10, STORE_TEXT, &l, NULL, &n), 0);
	ck_assert_int_eq(n, 2);
	store_lines_free(l, n);
	ck_assert(!logmerge_left(m));
	/* New lines come after; a partial one waits while followed. */
	put(runs[1], "y1\n", 30);
	put(runs[0], "x1\nx2-part", 40);
	ck_assert_int_eq(logmerge_refresh(m), 1);
	ck_assert_int_eq(logmerge_count(m), 4);
	ck_assert_str_eq(words(m, 0, 4), "x0/0 y0/1 y1/1 x1/0");
	logmerge_limit(m, LOGMERGE_ALL);
	ck_assert_int_eq(logmerge_count(m), 5);
	ck_assert_str_eq(words(m, 2, 5), "y1/1 x1/0 x2-part/0");
	/* A new run of the first job: its lines come after. */
	again = new_run(st, 1);
	put(again, "z0\n", 50);
	ck_assert_int_eq(logmerge_add(m, store_run_id(again), 0, &cause), 0);
	ck_assert_int_eq(logmerge_streams(m), 3);
	ck_assert_int_eq(logmerge_label(m, 2), 0);
	ck_assert_str_eq(logmerge_run(m, 2), store_run_id(again));
	ck_assert_int_eq(logmerge_count(m), 6);
	ck_assert_str_eq(words(m, 0, 6),
	    "x0/0 y0/1 y1/1 x1/0 x2-part/0 z0/2");
	/* A run that is not there. */
	ck_assert_int_eq(logmerge_add(m, "20990101T000000-00000000", 1,
	    &cause), -1);
	ck_assert_ptr_nonnull(cause);
	free(cause);
	ck_assert_int_eq(logmerge_streams(m), 3);
	logmerge_free(m);
	store_run_close(runs[0]);
	store_run_close(runs[1]);
	store_run_close(again);
	store_free(st);
}
END_TEST

/* Return this process's bytes read so far (rchar in /proc/self/io). */
static long long
bytes_read(void)
{
	FILE		*f;
	char		 line[128];
	long long	 v = -1;

	if ((f = fopen("/proc/self/io", "r")) == NULL)
		return -1;
	while (fgets(line, sizeof line, f) != NULL) {
		if (sscanf(line, "rchar: %lld", &v) == 1)
			break;
	}
	fclose(f);
	return v;
}

#define BIGLINES	500000	/* per run: 3 runs of 4.5 MB */

START_TEST(test_pages_are_bounded)
{
	struct store		*st = open_store();
	struct store_run	*runs[3];
	struct logmerge		*m;
	char			*buf, want[32];
	size_t			 len, off, n;
	long long		 before, after;
	int64_t			 i, count;
	int			 j;

	buf = malloc((size_t)BIGLINES * 9 + 1);
	for (j = 0; j < 3; j++) {
		runs[j] = new_run(st, j + 1);
		len = 0;
		for (i = 0; i < BIGLINES; i++)
			len += (size_t)sprintf(buf + len, "%c%07lld\n",
			    'a' + j, (long long)i);
		/* A write of 4,500 lines a millisecond, runs a third apart. */
		for (off = 0; off < len; off += n) {
			n = len - off < 40500 ? len - off : 40500;
			ck_assert_int_eq(store_run_write(runs[j], STORE_TTY,
			    buf + off, n, (int64_t)(off / 40500) * 3 + j), 0);
		}
	}
	free(buf);
	if ((before = bytes_read()) < 0) {
		for (j = 0; j < 3; j++)
			store_run_close(runs[j]);
		store_free(st);
		TEST_SKIP("no /proc/self/io here");
	}
	m = merge_of(runs, 3);
	count = logmerge_count(m);
	ck_assert_int_eq(count, 3 * BIGLINES);
	/* The last page, then the top, then one in the middle. */
	ck_assert_str_eq(words(m, count - 3, count), "c0499997/2 c0499998/2 "
	    "c0499999/2");
	ck_assert_str_eq(words(m, 0, 2), "a0000000/0 a0000001/0");
	/* Each millisecond's 4,500 lines, a's, then b's, then c's. */
	snprintf(want, sizeof want, "b%07d/1", 4500 * 100);
	ck_assert_str_eq(words(m, 3 * 4500 * 100 + 4500, 3 * 4500 * 100 +
	    4501), want);
	after = bytes_read();
	/*
	 * 13.5 MB of output: the readers opened, the writes the pages are
	 * in (40 KB each, and the one before each) and searches of indexes.
	 */
	ck_assert_msg(after - before < 1536 * 1024, "read %lld bytes",
	    after - before);
	logmerge_free(m);
	for (j = 0; j < 3; j++)
		store_run_close(runs[j]);
	store_free(st);
}
END_TEST

/* Build the merge suite. */
static Suite *
logmerge_suite(void)
{
	Suite	*s = suite_create("logmerge");
	TCase	*tc = tcase_create("merge");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_interleaved);
	tcase_add_test(tc, test_equal_times_in_given_order);
	tcase_add_test(tc, test_growing_and_partial);
	tcase_add_test(tc, test_pages_are_bounded);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the merge suite. */
int
main(void)
{
	SRunner	*sr = srunner_create(logmerge_suite());
	int	 failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

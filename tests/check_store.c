/*
 * check_store.c: tests for the output store with real files in a fresh
 * directory: lines written and read back whole (long ones too), text and
 * colour modes, partial lines, split streams held and not mixed, times,
 * writes in pieces of any size against a naive split of the same bytes,
 * the per-run cap, live readers, scans with budgets, meta files with
 * hostile strings and malformed ones, run and deck ids, deck liveness
 * through a child, write errors, bounded reading of a big run, and the
 * sweep (lost runs, age, count, total, live decks, legacy logs); damaged
 * runs (no index, an out file cut short) read as damaged, a run that
 * cannot be made leaves nothing, a full disk (a real tmpfs) still gets a
 * run's end into its meta, and the sweep removes what dead decks left.
 */
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "store.h"
#include "skip.h"
#include "testmnt.h"

static char	tdir[64];

/* Make a fresh directory for a test. */
static void
setup(void)
{
	snprintf(tdir, sizeof tdir, "/tmp/check_store.XXXXXX");
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
	chmod(tdir, 0700);
	nftw(tdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Open a store in the test directory with a per-run cap. */
static struct store *
open_store(int64_t max_run_bytes)
{
	struct store_limits	 lim;
	struct store		*st;
	char			*cause = NULL;

	store_default_limits(&lim);
	if (max_run_bytes > 0)
		lim.max_run_bytes = max_run_bytes;
	st = store_open(tdir, &lim, &cause);
	ck_assert_msg(st != NULL, "store_open: %s", cause);
	return st;
}

/* Start a run with a small meta. */
static struct store_run *
new_run(struct store *st)
{
	struct store_meta	 m;
	struct store_run	*sr;
	char			*cause = NULL;

	memset(&m, 0, sizeof m);
	m.job = 1;
	m.start = 1;
	m.command = (char *)"echo hi";
	m.state = (char *)"running";
	m.started = 1000;
	sr = store_run_new(st, &m, &cause);
	ck_assert_msg(sr != NULL, "store_run_new: %s", cause);
	ck_assert_str_eq(m.run, store_run_id(sr));
	ck_assert_str_eq(m.deck, store_deck(st));
	return sr;
}

/* Write a string to a run. */
static void
put(struct store_run *sr, enum store_stream s, const char *str, int64_t t)
{
	ck_assert_int_eq(store_run_write(sr, s, str, strlen(str), t), 0);
}

/* Open a reader on a run of the test directory. */
static struct store_reader *
open_reader(const char *run)
{
	struct store_reader	*r;
	char			*cause = NULL;

	r = store_reader_open(tdir, run, &cause);
	ck_assert_msg(r != NULL, "store_reader_open: %s", cause);
	return r;
}

/* Read lines [from, to) and check there are n of them. */
static struct store_line *
get(struct store_reader *r, int64_t from, int64_t to, int flags, int n)
{
	struct store_line	*l;
	int			 count;

	ck_assert_int_eq(store_reader_get(r, from, to, flags, &l, &count), 0);
	ck_assert_int_eq(count, n);
	return l;
}

START_TEST(test_lines_round_trip)
{
	struct store		*st = open_store(0);
	struct store_run	*sr = new_run(st);
	struct store_reader	*r;
	struct store_line	*l;
	char			*l100, *l200k;

	l100 = malloc(101);
	memset(l100, 'x', 100);
	l100[100] = '\0';
	l200k = malloc(200001);
	memset(l200k, 'y', 200000);
	l200k[200000] = '\0';
	put(sr, STORE_TTY, "a\nbb\n\nccc\n", 1);
	put(sr, STORE_TTY, l100, 2);
	put(sr, STORE_TTY, "\n", 2);
	put(sr, STORE_TTY, l200k, 3);
	put(sr, STORE_TTY, "\nlast\n", 4);
	ck_assert_uint_eq(store_run_bytes(sr), 10 + 101 + 200001 + 5);

	r = open_reader(store_run_id(sr));
	ck_assert_int_eq(store_reader_first(r), 0);
	ck_assert_int_eq(store_reader_count(r), 7);
	ck_assert_int_eq(store_reader_partial(r), 0);
	ck_assert_uint_eq(store_reader_bytes(r), store_run_bytes(sr));
	l = get(r, 0, 7, STORE_RAW, 7);
	ck_assert_str_eq(l[0].text, "a");
	ck_assert_str_eq(l[1].text, "bb");
	ck_assert_str_eq(l[2].text, "");
	ck_assert_str_eq(l[3].text, "ccc");
	ck_assert_str_eq(l[4].text, l100);
	ck_assert_uint_eq(l[4].len, 100);
	ck_assert_str_eq(l[5].text, l200k);
	ck_assert_uint_eq(l[5].len, 200000);
	ck_assert_int_eq(l[5].cut, 0);
	ck_assert_str_eq(l[6].text, "last");
	ck_assert_int_eq(l[6].no, 6);
	ck_assert_int_eq(l[6].partial, 0);
	ck_assert_int_eq(l[4].time, 2);
	ck_assert_int_eq(l[5].time, 3);
	store_lines_free(l, 7);

	/* Lines N..M, and ranges clamped to what there is. */
	l = get(r, 2, 4, STORE_TEXT, 2);
	ck_assert_str_eq(l[0].text, "");
	ck_assert_str_eq(l[1].text, "ccc");
	ck_assert_int_eq(l[1].no, 3);
	store_lines_free(l, 2);
	l = get(r, 5, 100, STORE_TEXT, 2);
	ck_assert_uint_eq(l[0].len, 200000);
	store_lines_free(l, 2);
	l = get(r, 7, 9, STORE_RAW, 0);
	ck_assert_ptr_null(l);

	store_reader_close(r);
	store_run_close(sr);
	store_free(st);
	free(l100);
	free(l200k);
}
END_TEST

START_TEST(test_long_line_cut)
{
	struct store		*st = open_store(0);
	struct store_run	*sr = new_run(st);
	struct store_reader	*r;
	struct store_line	*l;
	char			*big;
	size_t			 len = STORE_LINE_MAX + 5000;

	big = malloc(len);
	memset(big, 'z', len);
	ck_assert_int_eq(store_run_write(sr, STORE_TTY, big, len, 1), 0);
	put(sr, STORE_TTY, "\nafter\n", 2);
	r = open_reader(store_run_id(sr));
	ck_assert_int_eq(store_reader_count(r), 2);
	l = get(r, 0, 2, STORE_RAW, 2);
	ck_assert_int_eq(l[0].cut, 1);
	ck_assert_uint_eq(l[0].len, STORE_LINE_MAX);
	ck_assert_str_eq(l[1].text, "after");
	ck_assert_int_eq(l[1].cut, 0);
	store_lines_free(l, 2);
	store_reader_close(r);
	store_run_close(sr);
	store_free(st);
	free(big);
}
END_TEST

START_TEST(test_text_and_color)
{
	struct store		*st = open_store(0);
	struct store_run	*sr = new_run(st);
	struct store_reader	*r;
	struct store_line	*l;

	put(sr, STORE_TTY, "10%\r50%\r100%\r\n", 1);
	put(sr, STORE_TTY, "he\033[31mllo\033[0m\n", 1);
	put(sr, STORE_TTY, "caf\x65\xcc\x81 e\xcc\x81\n", 1);
	put(sr, STORE_TTY, "\033]0;title\007\033[2Ktab\there\033[?25l\n", 1);
	r = open_reader(store_run_id(sr));

	l = get(r, 0, 4, STORE_RAW, 4);
	ck_assert_str_eq(l[0].text, "10%\r50%\r100%\r");
	ck_assert_str_eq(l[1].text, "he\033[31mllo\033[0m");
	store_lines_free(l, 4);

	l = get(r, 0, 4, STORE_TEXT, 4);
	ck_assert_str_eq(l[0].text, "100%");
	ck_assert_str_eq(l[1].text, "hello");
	/* Combining marks stay. */
	ck_assert_str_eq(l[2].text, "caf\x65\xcc\x81 e\xcc\x81");
	ck_assert_str_eq(l[3].text, "tab     here");
	ck_assert_uint_eq(l[3].len, strlen("tab     here"));
	store_lines_free(l, 4);

	l = get(r, 0, 4, STORE_TEXT | STORE_COLOR, 4);
	ck_assert_str_eq(l[0].text, "100%");
	ck_assert_str_eq(l[1].text, "he\033[31mllo\033[0m");
	ck_assert_str_eq(l[3].text, "tab     here");
	store_lines_free(l, 4);

	store_reader_close(r);
	store_run_close(sr);
	store_free(st);
}
END_TEST

START_TEST(test_partial_line)
{
	struct store		*st = open_store(0);
	struct store_run	*sr = new_run(st);
	struct store_reader	*r;
	struct store_line	*l;

	put(sr, STORE_TTY, "hello\nPassword: ", 5);
	r = open_reader(store_run_id(sr));
	ck_assert_int_eq(store_reader_count(r), 2);
	ck_assert_int_eq(store_reader_partial(r), 1);
	l = get(r, 0, 2, STORE_RAW, 2);
	ck_assert_int_eq(l[0].partial, 0);
	ck_assert_int_eq(l[1].partial, 1);
	ck_assert_str_eq(l[1].text, "Password: ");
	store_lines_free(l, 2);

	/* The prompt is answered: the line ends, no partial any more. */
	put(sr, STORE_TTY, "\n", 6);
	ck_assert_int_eq(store_reader_refresh(r), 0);
	ck_assert_int_eq(store_reader_count(r), 2);
	ck_assert_int_eq(store_reader_partial(r), 0);
	l = get(r, 1, 2, STORE_RAW, 1);
	ck_assert_str_eq(l[0].text, "Password: ");
	ck_assert_int_eq(l[0].partial, 0);
	ck_assert_int_eq(l[0].time, 5);
	store_lines_free(l, 1);
	store_reader_close(r);
	store_run_close(sr);
	store_free(st);
}
END_TEST

/*
 * store_reader_since(): complete lines after the mark, the partial last
 * line once for each time it grew and again whole when it ends, the
 * newest max when more are new, and what was passed over counted.
 */
START_TEST(test_since)
{
	struct store		*st = open_store(0);
	struct store_run	*sr = new_run(st);
	struct store_reader	*r;
	struct store_line	*l;
	struct store_mark	 m = { 0, 0 };
	int64_t			 skipped;
	int			 n;

	put(sr, STORE_TTY, "a\nPass", 1);
	r = open_reader(store_run_id(sr));
	ck_assert_int_eq(store_reader_since(r, &m, STORE_TEXT, -1, 1, &l, &n,
	    &skipped), 0);
	ck_assert_int_eq(n, 2);
	ck_assert_str_eq(l[0].text, "a");
	ck_assert_str_eq(l[1].text, "Pass");
	ck_assert_int_eq(l[1].partial, 1);
	ck_assert_int_eq(skipped, 0);
	store_lines_free(l, n);
	/* Not grown: nothing; without partial: never the partial line. */
	ck_assert_int_eq(store_reader_since(r, &m, STORE_TEXT, -1, 1, &l, &n,
	    NULL), 0);
	ck_assert_int_eq(n, 0);
	put(sr, STORE_TTY, "word: ", 2);
	store_reader_refresh(r);
	ck_assert_int_eq(store_reader_since(r, &m, STORE_TEXT, -1, 0, &l, &n,
	    NULL), 0);
	ck_assert_int_eq(n, 0);
	ck_assert_int_eq(store_reader_since(r, &m, STORE_TEXT, -1, 1, &l, &n,
	    NULL), 0);
	ck_assert_int_eq(n, 1);
	ck_assert_str_eq(l[0].text, "Password:");
	store_lines_free(l, n);
	/* It ends: whole, then three more of which max 2 come. */
	put(sr, STORE_TTY, "x\n1\n2\n3\n", 3);
	store_reader_refresh(r);
	ck_assert_int_eq(store_reader_since(r, &m, STORE_TEXT, -1, 1, &l, &n,
	    NULL), 0);
	ck_assert_int_eq(n, 4);
	ck_assert_str_eq(l[0].text, "Password: x");
	ck_assert_int_eq(l[0].partial, 0);
	store_lines_free(l, n);
	put(sr, STORE_TTY, "4\n5\n6\n", 4);
	store_reader_refresh(r);
	ck_assert_int_eq(store_reader_since(r, &m, STORE_TEXT, 2, 1, &l, &n,
	    &skipped), 0);
	ck_assert_int_eq(n, 2);
	ck_assert_str_eq(l[0].text, "5");
	ck_assert_int_eq(skipped, 1);
	ck_assert_int_eq(m.line, 8);
	store_lines_free(l, n);
	store_reader_close(r);
	store_run_close(sr);
	store_free(st);
}
END_TEST

START_TEST(test_split_streams)
{
	struct store		*st = open_store(0);
	struct store_run	*sr = new_run(st);
	struct store_reader	*r;
	struct store_line	*l;

	put(sr, STORE_STDOUT, "out1\nout-par", 1);
	put(sr, STORE_STDERR, "err1\nerr-", 2);
	ck_assert_int_eq(store_run_held(sr), 1);
	put(sr, STORE_STDERR, "par", 3);
	put(sr, STORE_STDOUT, "tial\n", 4);
	ck_assert_int_eq(store_run_held(sr), 1);

	r = open_reader(store_run_id(sr));
	ck_assert_int_eq(store_reader_count(r), 3);
	ck_assert_int_eq(store_reader_partial(r), 0);
	l = get(r, 0, 3, STORE_RAW, 3);
	ck_assert_str_eq(l[0].text, "out1");
	ck_assert_int_eq(l[0].stream, STORE_STDOUT);
	ck_assert_str_eq(l[1].text, "err1");
	ck_assert_int_eq(l[1].stream, STORE_STDERR);
	ck_assert_str_eq(l[2].text, "out-partial");
	ck_assert_int_eq(l[2].stream, STORE_STDOUT);
	ck_assert_int_eq(l[2].time, 1);
	store_lines_free(l, 3);

	ck_assert_int_eq(store_run_flush(sr, 9), 0);
	ck_assert_int_eq(store_run_held(sr), 0);
	ck_assert_int_eq(store_reader_refresh(r), 0);
	ck_assert_int_eq(store_reader_count(r), 4);
	ck_assert_int_eq(store_reader_partial(r), 1);
	l = get(r, 3, 4, STORE_RAW, 1);
	ck_assert_str_eq(l[0].text, "err-par");
	ck_assert_int_eq(l[0].stream, STORE_STDERR);
	ck_assert_int_eq(l[0].partial, 1);
	ck_assert_int_eq(l[0].time, 2);
	store_lines_free(l, 1);

	/* A pty's partial line is not held. */
	put(sr, STORE_TTY, "\nprompt> ", 10);
	ck_assert_int_eq(store_run_held(sr), 0);
	ck_assert_int_eq(store_reader_refresh(r), 0);
	ck_assert_int_eq(store_reader_count(r), 5);
	store_reader_close(r);
	store_run_close(sr);
	store_free(st);
}
END_TEST

START_TEST(test_times)
{
	struct store		*st = open_store(0);
	struct store_run	*sr = new_run(st);
	struct store_reader	*r;
	struct store_line	*l;

	put(sr, STORE_TTY, "one\ntw", 1000);
	put(sr, STORE_TTY, "o\nthree\n", 2000);
	put(sr, STORE_TTY, "four\n", 3000);
	r = open_reader(store_run_id(sr));
	l = get(r, 0, 4, STORE_RAW, 4);
	ck_assert_int_eq(l[0].time, 1000);
	ck_assert_int_eq(l[1].time, 1000);	/* it started at 1000 */
	ck_assert_str_eq(l[1].text, "two");
	ck_assert_int_eq(l[2].time, 2000);
	ck_assert_int_eq(l[3].time, 3000);
	store_lines_free(l, 4);
	ck_assert_int_eq(store_reader_find_time(r, 0), 0);
	ck_assert_int_eq(store_reader_find_time(r, 1000), 0);
	ck_assert_int_eq(store_reader_find_time(r, 1001), 2);
	ck_assert_int_eq(store_reader_find_time(r, 2000), 2);
	ck_assert_int_eq(store_reader_find_time(r, 2500), 3);
	ck_assert_int_eq(store_reader_find_time(r, 3000), 3);
	ck_assert_int_eq(store_reader_find_time(r, 3001), 4);
	store_reader_close(r);
	store_run_close(sr);
	store_free(st);
}
END_TEST

/* A small deterministic generator (xorshift), so a failure repeats. */
static uint32_t
rnd(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/* Make len bytes of lines of random lengths (some long, some empty). */
static char *
random_text(uint32_t *seed, size_t len)
{
	char	*buf = malloc(len);
	size_t	 i = 0, n;

	while (i < len) {
		n = rnd(seed) % 16 == 0 ? rnd(seed) % 90000 : rnd(seed) % 120;
		while (n-- > 0 && i < len)
			buf[i++] = (char)('a' + rnd(seed) % 26);
		if (i < len)
			buf[i++] = '\n';
	}
	return buf;
}

/* Write buf in pieces of at most piece bytes, then check every line. */
static void
check_pieces(size_t len, size_t piece, uint32_t seed)
{
	struct store		*st = open_store(256 * 1024);
	struct store_run	*sr = new_run(st);
	struct store_reader	*r;
	struct store_line	*l;
	char			*buf = random_text(&seed, len), *p, *nl;
	size_t			 off = 0, n;
	int64_t			 no, count = 0;
	int			 got;

	while (off < len) {
		n = piece == 1 ? 1 : 1 + rnd(&seed) % piece;
		if (n > len - off)
			n = len - off;
		ck_assert_int_eq(store_run_write(sr, STORE_TTY, buf + off, n,
		    (int64_t)off), 0);
		off += n;
	}
	r = open_reader(store_run_id(sr));
	for (p = buf; p < buf + len; count++) {
		nl = memchr(p, '\n', (size_t)(buf + len - p));
		p = nl == NULL ? buf + len : nl + 1;
	}
	ck_assert_int_eq(store_reader_first(r), 0);
	ck_assert_int_eq(store_reader_count(r), count);
	ck_assert_int_eq(store_reader_partial(r), buf[len - 1] != '\n');
	ck_assert_int_eq(store_reader_get(r, 0, count, STORE_RAW, &l, &got),
	    0);
	ck_assert_int_eq(got, count);
	p = buf;
	for (no = 0; no < count; no++) {
		nl = memchr(p, '\n', (size_t)(buf + len - p));
		n = nl == NULL ? (size_t)(buf + len - p) : (size_t)(nl - p);
		ck_assert_int_eq(l[no].no, no);
		ck_assert_uint_eq(l[no].len, n);
		ck_assert_msg(memcmp(l[no].text, p, n) == 0, "line %lld",
		    (long long)no);
		/* The time is the offset of the write it started in. */
		ck_assert_int_le(l[no].time, (int64_t)(p - buf));
		p += n + 1;
	}
	store_lines_free(l, got);

	/* Each line alone too, from the end back. */
	for (no = count - 1; no >= 0; no -= 1 + (int64_t)(rnd(&seed) % 7)) {
		l = get(r, no, no + 1, STORE_RAW, 1);
		ck_assert_int_eq(l[0].no, no);
		store_lines_free(l, 1);
	}
	store_reader_close(r);
	store_run_close(sr);
	store_free(st);
	free(buf);
}

START_TEST(test_pieces_of_one_byte)
{
	check_pieces(150 * 1024, 1, 12345);
}
END_TEST

START_TEST(test_pieces_of_64k)
{
	/* Under the cap (4 segments of 64 KiB), over three segments. */
	check_pieces(250 * 1024, 64 * 1024, 777);
	check_pieces(200 * 1024, 64 * 1024, 4242);
}
END_TEST

/* Sum the sizes of the files of a run whose names start with prefix. */
static off_t
run_size(const char *run, const char *prefix, int *files)
{
	DIR		*d;
	struct dirent	*de;
	struct stat	 sb;
	char		 path[1024];
	off_t		 total = 0;

	*files = 0;
	snprintf(path, sizeof path, "%s/runs/%s", tdir, run);
	ck_assert_ptr_nonnull(d = opendir(path));
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, prefix, strlen(prefix)) != 0)
			continue;
		snprintf(path, sizeof path, "%s/runs/%s/%s", tdir, run,
		    de->d_name);
		ck_assert_int_eq(stat(path, &sb), 0);
		total += sb.st_size;
		(*files)++;
	}
	closedir(d);
	return total;
}

START_TEST(test_cap)
{
	struct store		*st = open_store(1024 * 1024);
	struct store_run	*sr = new_run(st);
	struct store_reader	*r;
	struct store_line	*l;
	char			*buf, want[32];
	size_t			 len = 0, off;
	int64_t			 total = 0, first, i;
	int			 files;

	buf = malloc(10 * 1024 * 1024 + 64);
	while (len < 10 * 1024 * 1024) {
		len += (size_t)sprintf(buf + len, "yes %08lld\n",
		    (long long)total);
		total++;
	}
	for (off = 0; off < len; off += 64 * 1024)
		ck_assert_int_eq(store_run_write(sr, STORE_TTY, buf + off,
		    len - off < 64 * 1024 ? len - off : 64 * 1024, 7), 0);

	ck_assert_int_le(run_size(store_run_id(sr), "out.", &files),
	    1024 * 1024 + 256 * 1024);
	ck_assert_int_le(files, 5);
	ck_assert_int_le(run_size(store_run_id(sr), "idx.", &files),
	    64 * 1024);

	r = open_reader(store_run_id(sr));
	first = store_reader_first(r);
	ck_assert_int_gt(first, 0);
	ck_assert_int_eq(store_reader_count(r), total);
	ck_assert_uint_eq(store_reader_bytes(r), len);
	/* The newest lines are exact, and so is the first kept one. */
	l = get(r, total - 10, total, STORE_TEXT, 10);
	for (i = 0; i < 10; i++) {
		snprintf(want, sizeof want, "yes %08lld",
		    (long long)(total - 10 + i));
		ck_assert_str_eq(l[i].text, want);
	}
	store_lines_free(l, 10);
	l = get(r, 0, first + 1, STORE_RAW, 1);
	snprintf(want, sizeof want, "yes %08lld", (long long)first);
	ck_assert_str_eq(l[0].text, want);
	ck_assert_int_eq(l[0].no, first);
	store_lines_free(l, 1);
	ck_assert_int_eq(store_reader_find_time(r, 0), first);
	store_reader_close(r);
	store_run_close(sr);
	store_free(st);
	free(buf);
}
END_TEST

START_TEST(test_live_reader)
{
	struct store		*st = open_store(256 * 1024);
	struct store_run	*sr = new_run(st);
	struct store_reader	*r;
	struct store_line	*l;
	char			 line[64];
	int			 i;

	r = open_reader(store_run_id(sr));
	ck_assert_int_eq(store_reader_count(r), 0);
	ck_assert_int_eq(store_reader_get(r, 0, 10, STORE_RAW, &l, &i), 0);
	ck_assert_int_eq(i, 0);
	put(sr, STORE_TTY, "first\n", 1);
	ck_assert_int_eq(store_reader_count(r), 0);
	ck_assert_int_eq(store_reader_refresh(r), 0);
	ck_assert_int_eq(store_reader_count(r), 1);

	/* Across segments and past the cap, the reader follows. */
	for (i = 0; i < 20000; i++) {
		snprintf(line, sizeof line, "line %06d of the live run\n", i);
		put(sr, STORE_TTY, line, 2);
	}
	ck_assert_int_eq(store_reader_refresh(r), 0);
	ck_assert_int_eq(store_reader_count(r), 20001);
	ck_assert_int_gt(store_reader_first(r), 0);
	l = get(r, 20000, 20001, STORE_RAW, 1);
	ck_assert_str_eq(l[0].text, "line 019999 of the live run");
	store_lines_free(l, 1);
	store_reader_close(r);
	store_run_close(sr);
	store_free(st);
}
END_TEST

/* What a scan saw: every line's text in order, checked against want. */
struct scan_state {
	const char	*want;		/* the bytes written */
	size_t		 pos;		/* where the next line starts there */
	int64_t		 next;		/* the next line number */
	int		 blocks;
	int		 stop_after;	/* stop after so many blocks, or 0 */
};

/* Check a block's lines against the text written. */
static int
scan_block(int64_t first, const char *block, size_t len, void *arg)
{
	struct scan_state	*ss = arg;
	const char		*p = block, *nl, *w;
	size_t			 n, wn;

	ck_assert_int_eq(first, ss->next);
	ck_assert_uint_gt(len, 0);
	while (p < block + len) {
		nl = memchr(p, '\n', (size_t)(block + len - p));
		n = nl == NULL ? (size_t)(block + len - p) : (size_t)(nl - p);
		w = ss->want + ss->pos;
		wn = strcspn(w, "\n");
		if (wn > STORE_LINE_MAX) {
			ck_assert_uint_eq(n, STORE_LINE_MAX);
			ck_assert(memcmp(p, w, n) == 0);
		} else {
			ck_assert_uint_eq(n, wn);
			ck_assert(memcmp(p, w, n) == 0);
		}
		ss->pos += wn + (w[wn] == '\n');
		ss->next++;
		p += n + (nl != NULL);
	}
	ss->blocks++;
	return ss->stop_after != 0 && ss->blocks >= ss->stop_after;
}

START_TEST(test_scan)
{
	static const struct store_scan_cbs cbs = { scan_block };
	static const size_t	budgets[] = { 1, 100, 5000, 300000,
				    (size_t)1 << 40 };
	struct store		*st = open_store(0);
	struct store_run	*sr = new_run(st);
	struct store_reader	*r;
	struct scan_state	 ss;
	uint32_t		 seed = 99;
	char			*text, *big;
	size_t			 i, len = 3 * 1024 * 1024;
	int64_t			 at, count, steps;

	text = random_text(&seed, len + 1);
	text[len] = '\0';
	/* One line longer than a block and STORE_LINE_MAX. */
	big = text + 1000000;
	memset(big, 'L', 1500000);
	big[1500000] = '\n';
	text[len - 1] = 'p';		/* a partial last line */
	ck_assert_int_eq(store_run_write(sr, STORE_TTY, text, len, 1), 0);
	r = open_reader(store_run_id(sr));
	count = store_reader_count(r);
	ck_assert_int_eq(store_reader_partial(r), 1);

	for (i = 0; i < sizeof budgets / sizeof budgets[0]; i++) {
		memset(&ss, 0, sizeof ss);
		ss.want = text;
		at = 0;
		steps = 0;
		while (at < count) {
			at = store_reader_scan(r, at, budgets[i], &cbs, &ss);
			ck_assert_int_ge(at, 0);
			ck_assert_int_eq(at, ss.next);
			ck_assert_int_lt(++steps, 100000);
		}
		ck_assert_int_eq(at, count);
		ck_assert_uint_eq(ss.pos, len);
		if (budgets[i] >= 300000)
			ck_assert_int_lt(steps, 20);
	}

	/* The callback stops it; it goes on from where it stopped. */
	memset(&ss, 0, sizeof ss);
	ss.want = text;
	ss.stop_after = 1;
	at = store_reader_scan(r, 0, (size_t)1 << 40, &cbs, &ss);
	ck_assert_int_gt(at, 0);
	ck_assert_int_lt(at, count);
	ss.stop_after = 0;
	ck_assert_int_eq(store_reader_scan(r, at, (size_t)1 << 40, &cbs, &ss),
	    count);
	ck_assert_int_eq(store_reader_scan(r, count, 100, &cbs, &ss), count);
	store_reader_close(r);
	store_run_close(sr);
	store_free(st);
	free(text);
}
END_TEST

START_TEST(test_corrupt_index)
{
	struct store		*st = open_store(0);
	struct store_run	*sr = new_run(st);
	struct store_reader	*r;
	struct store_line	*l;
	char			 path[256], *big, *cause = NULL;
	uint32_t		 len = 150000;
	int			 fd, n;

	big = malloc(200000);
	memset(big, 'b', 200000);
	put(sr, STORE_TTY, "a\nb", 1);
	ck_assert_int_eq(store_run_write(sr, STORE_TTY, big, 200000, 2), 0);
	put(sr, STORE_TTY, "\n", 3);
	/* The first record claims more bytes than a record may hold. */
	snprintf(path, sizeof path, "%s/runs/%s/idx.0", tdir, store_run_id(sr));
	ck_assert_int_ne(fd = open(path, O_WRONLY), -1);
	ck_assert_int_eq(pwrite(fd, &len, sizeof len, 24), (ssize_t)sizeof len);
	close(fd);
	r = store_reader_open(tdir, store_run_id(sr), &cause);
	if (r != NULL) {
		/* Without the check, this read overflows the reader's window. */
		n = -1;
		if (store_reader_get(r, 1, 2, STORE_RAW, &l, &n) == 0)
			store_lines_free(l, n);
		store_reader_close(r);
		ck_abort_msg("a corrupt index was read");
	}
	snprintf(path, sizeof path, "runs/%s is damaged: idx.0 holds a record "
	    "the store did not write", store_run_id(sr));
	ck_assert_str_eq(cause, path);
	free(cause);
	store_run_close(sr);
	store_free(st);
	free(big);
}
END_TEST

START_TEST(test_meta_round_trip)
{
	static const char	*hostile = "a\nb\\n\\\r\t\x01\x1b[31m\x7f\xff"
				    "\xc3\xa9 end ";
	struct store		*st = open_store(0);
	struct store_run	*sr;
	struct store_meta	 m, back, copy;
	char			*argv[] = { (char *)"prog", (char *)hostile,
				    (char *)"", NULL };
	char			*envp[] = { (char *)"A=1", (char *)"B=x\ny",
				    NULL };
	char			*cause = NULL;

	memset(&m, 0, sizeof m);
	m.job = 42;
	m.start = 3;
	m.name = (char *)hostile;
	m.command = (char *)"sh -c 'echo \\\\ hi'\n";
	m.argv = argv;
	m.shell = (char *)"/bin/sh";
	m.cwd = (char *)"/tmp/with space\\";
	m.envp = envp;
	m.pty = 1;
	m.pid = 12345;
	m.started = 1700000000123LL;
	m.ended = 0;
	m.state = (char *)"running";
	sr = store_run_new(st, &m, &cause);
	ck_assert_ptr_nonnull(sr);

	ck_assert_int_eq(store_meta_read(tdir, m.run, &back, &cause), 0);
	ck_assert_str_eq(back.run, m.run);
	ck_assert_str_eq(back.deck, store_deck(st));
	ck_assert_int_eq(back.job, 42);
	ck_assert_int_eq(back.start, 3);
	ck_assert_str_eq(back.name, hostile);
	ck_assert_str_eq(back.command, m.command);
	ck_assert_str_eq(back.argv[0], "prog");
	ck_assert_str_eq(back.argv[1], hostile);
	ck_assert_str_eq(back.argv[2], "");
	ck_assert_ptr_null(back.argv[3]);
	ck_assert_str_eq(back.shell, "/bin/sh");
	ck_assert_str_eq(back.cwd, "/tmp/with space\\");
	ck_assert_str_eq(back.envp[1], "B=x\ny");
	ck_assert_ptr_null(back.envp[2]);
	ck_assert_int_eq(back.pty, 1);
	ck_assert_int_eq(back.pid, 12345);
	ck_assert_int_eq(back.started, 1700000000123LL);
	ck_assert_int_eq(back.ended, 0);
	ck_assert_str_eq(back.state, "running");
	ck_assert_int_eq(back.has_status, 0);

	store_meta_copy(&copy, &back);
	store_meta_clear(&back);
	ck_assert_str_eq(copy.argv[1], hostile);
	ck_assert_ptr_null(back.name);

	/* The update replaces it; the ids stay the run's. */
	copy.state = (free(copy.state), strdup("failed"));
	copy.ended = 1700000009999LL;
	copy.status = 256;
	copy.has_status = 1;
	memset(copy.run, 0, sizeof copy.run);
	ck_assert_int_eq(store_run_update(sr, &copy), 0);
	ck_assert_int_eq(store_meta_read(tdir, m.run, &back, &cause), 0);
	ck_assert_str_eq(back.run, m.run);
	ck_assert_str_eq(back.state, "failed");
	ck_assert_int_eq(back.status, 256);
	ck_assert_int_eq(back.has_status, 1);
	ck_assert_int_eq(back.ended, 1700000009999LL);
	ck_assert_str_eq(back.name, hostile);
	store_meta_clear(&back);
	store_meta_clear(&copy);
	store_run_close(sr);
	store_free(st);
}
END_TEST

/* Write text as the meta file of a run directory of its own. */
static void
write_meta(const char *run, const char *text, size_t len)
{
	char	path[256];
	int	fd;

	snprintf(path, sizeof path, "%s/runs", tdir);
	mkdir(path, 0700);
	snprintf(path, sizeof path, "%s/runs/%s", tdir, run);
	mkdir(path, 0700);
	snprintf(path, sizeof path, "%s/runs/%s/meta", tdir, run);
	ck_assert_int_ne(fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600),
	    -1);
	ck_assert_int_eq(write(fd, text, len), (ssize_t)len);
	close(fd);
}

START_TEST(test_meta_errors)
{
	static const struct {
		const char	*text;
		const char	*error;
	} cases[] = {
		{ "version 1\nfuture-key whatever\\q\nstate done\n", NULL },
		{ "version 2\n", "meta:1: unknown version: version" },
		{ "version 1\njob x\n", "meta:2: bad number: job" },
		{ "version 1\njob 99999999999\n", "meta:2: bad number: job" },
		{ "version 1\nname a\\qb\n", "meta:2: bad escape: name" },
		{ "version 1\nname a\\x4\n", "meta:2: bad escape: name" },
		{ "version 1\nname a\\x00\n", "meta:2: bad escape: name" },
		{ "version 1\nname trailing\\\n", "meta:2: bad escape: name" },
		{ "version 1\nnovalue\n", "meta:2: not \"key value\"" },
		{ "version 1\n\n", "meta:2: not \"key value\"" },
		{ "version 1\nstate x", "meta:2: no newline at the end" },
		{ "version 1\nrun ../../x\n", "meta:2: bad id: run" },
		{ "version 1\nsegment 1000\n", "meta:2: bad number: segment" },
	};
	static const char	run[] = "20240101T000000-0000abcd";
	struct store_meta	m;
	char			*cause, *big;
	size_t			 i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		write_meta(run, cases[i].text, strlen(cases[i].text));
		cause = NULL;
		if (cases[i].error == NULL) {
			ck_assert_int_eq(store_meta_read(tdir, run, &m,
			    &cause), 0);
			ck_assert_str_eq(m.state, "done");
			store_meta_clear(&m);
			continue;
		}
		ck_assert_int_eq(store_meta_read(tdir, run, &m, &cause), -1);
		ck_assert_ptr_nonnull(cause);
		ck_assert_msg(strstr(cause, cases[i].error) != NULL &&
		    strncmp(cause, "runs/20240101T000000-0000abcd/", 30) == 0,
		    "case %zu: %s", i, cause);
		free(cause);
	}

	/* A meta file over 4 MiB is refused, not read. */
	big = malloc(4 * 1024 * 1024 + 20);
	memset(big, 'x', 4 * 1024 * 1024 + 20);
	memcpy(big, "version 1\nname ", 15);
	big[4 * 1024 * 1024 + 19] = '\n';
	write_meta(run, big, 4 * 1024 * 1024 + 20);
	cause = NULL;
	ck_assert_int_eq(store_meta_read(tdir, run, &m, &cause), -1);
	ck_assert_str_eq(cause, "runs/20240101T000000-0000abcd/meta: larger "
	    "than 4 MiB");
	free(cause);
	free(big);
}
END_TEST

START_TEST(test_bad_run_ids)
{
	static const char	*bad[] = { "../x", "", "..",
	    "20240101T000000-0000ABCD", "20240101T000000-0000abc",
	    "20240101T000000-0000abcde", "20240101x000000-0000abcd",
	    "2024010 T000000-0000abcd", "20240101T000000_0000abcd",
	    "../runs/20240101T000000-0000abcd" };
	struct store_meta	 m;
	struct store		*st = open_store(0);
	char			*cause, want[128];
	size_t			 i;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		snprintf(want, sizeof want, "bad run id: \"%s\"", bad[i]);
		cause = NULL;
		ck_assert_ptr_null(store_reader_open(tdir, bad[i], &cause));
		ck_assert_str_eq(cause, want);
		free(cause);
		cause = NULL;
		ck_assert_int_eq(store_meta_read(tdir, bad[i], &m, &cause), -1);
		ck_assert_str_eq(cause, want);
		free(cause);
		ck_assert_int_eq(store_deck_alive(tdir, bad[i]), 0);
	}
	cause = NULL;
	ck_assert_ptr_null(store_reader_open(tdir, NULL, &cause));
	free(cause);
	cause = NULL;
	ck_assert_ptr_null(store_reader_open(tdir, "20240101T000000-0000abcd",
	    &cause));
	ck_assert_ptr_nonnull(strstr(cause, "no run 20240101T000000-0000abcd"));
	free(cause);
	store_free(st);
}
END_TEST

START_TEST(test_ids_unique_across_decks)
{
	struct store		*a = open_store(0), *b = open_store(0);
	struct store_run	*r;
	static char		  ia[200][STORE_ID_LEN + 1];
	static char		  ib[200][STORE_ID_LEN + 1];
	char			**runs;
	int			  i, j, n;
	char			 *cause = NULL;

	ck_assert_str_ne(store_deck(a), store_deck(b));
	/* Closed as they go: a run holds fds, a user has about 1024. */
	for (i = 0; i < 200; i++) {
		r = new_run(a);
		memcpy(ia[i], store_run_id(r), sizeof ia[i]);
		store_run_close(r);
		r = new_run(b);
		memcpy(ib[i], store_run_id(r), sizeof ib[i]);
		store_run_close(r);
	}
	for (i = 0; i < 200; i++) {
		for (j = 0; j < 200; j++) {
			ck_assert_str_ne(ia[i], ib[j]);
			if (i != j)
				ck_assert_str_ne(ia[i], ia[j]);
		}
	}
	ck_assert_int_eq(store_list(tdir, &runs, &n, &cause), 0);
	ck_assert_int_eq(n, 400);
	for (i = 1; i < n; i++)
		ck_assert_int_lt(strcmp(runs[i - 1], runs[i]), 0);
	store_list_free(runs, n);
	store_free(a);
	store_free(b);
}
END_TEST

START_TEST(test_files_and_modes)
{
	struct store		*st = open_store(0);
	struct store_run	*sr = new_run(st);
	struct stat		 sb;
	char			 path[256];

	snprintf(path, sizeof path, "%s/runs/%s", tdir, store_run_id(sr));
	ck_assert_int_eq(stat(path, &sb), 0);
	ck_assert_int_eq(sb.st_mode & 07777, 0700);
	snprintf(path, sizeof path, "%s/runs/%s/out.0", tdir,
	    store_run_id(sr));
	ck_assert_int_eq(stat(path, &sb), 0);
	ck_assert_int_eq(sb.st_mode & 07777, 0600);
	snprintf(path, sizeof path, "%s/runs/%s/meta", tdir, store_run_id(sr));
	ck_assert_int_eq(stat(path, &sb), 0);
	ck_assert_int_eq(sb.st_mode & 07777, 0600);
	snprintf(path, sizeof path, "%s/decks/%s.lock", tdir, store_deck(st));
	ck_assert_int_eq(stat(path, &sb), 0);
	ck_assert_int_eq(sb.st_mode & 07777, 0600);
	snprintf(path, sizeof path, "%s/decks", tdir);
	ck_assert_int_eq(stat(path, &sb), 0);
	ck_assert_int_eq(sb.st_mode & 07777, 0700);
	snprintf(path, sizeof path, "%s/decks/%s.lock", tdir, store_deck(st));
	store_run_close(sr);
	store_free(st);
	/* A deck that ends cleanly takes its lock file with it. */
	ck_assert_int_eq(stat(path, &sb), -1);
}
END_TEST

START_TEST(test_symlinked_runs_refused)
{
	struct store		*st;
	struct store_limits	 lim;
	char			 path[256], target[256], *cause = NULL;

	snprintf(target, sizeof target, "%s/elsewhere", tdir);
	ck_assert_int_eq(mkdir(target, 0700), 0);
	snprintf(path, sizeof path, "%s/runs", tdir);
	ck_assert_int_eq(symlink(target, path), 0);
	store_default_limits(&lim);
	ck_assert_ptr_null(st = store_open(tdir, &lim, &cause));
	ck_assert_ptr_nonnull(strstr(cause, "/runs: "));
	free(cause);
}
END_TEST

START_TEST(test_deck_alive)
{
	struct store	*st = open_store(0);
	char		 deck[STORE_ID_LEN + 1], go = 'x';
	int		 up[2], down[2], status;
	pid_t		 pid;

	ck_assert_int_eq(store_deck_alive(tdir, store_deck(st)), 1);
	ck_assert_int_eq(store_deck_alive(tdir, "20200101T000000-00000000"),
	    0);
	ck_assert_int_eq(pipe(up), 0);
	ck_assert_int_eq(pipe(down), 0);
	pid = fork();
	ck_assert_int_ne(pid, -1);
	if (pid == 0) {
		struct store	*cs;
		char		*cause = NULL;

		cs = store_open(tdir, NULL, &cause);
		if (cs == NULL)
			_exit(1);
		if (write(up[1], store_deck(cs), STORE_ID_LEN) != STORE_ID_LEN)
			_exit(1);
		if (read(down[0], &go, 1) != 1)
			_exit(1);
		_exit(0);	/* dies without store_free() */
	}
	ck_assert_int_eq(read(up[0], deck, STORE_ID_LEN), STORE_ID_LEN);
	deck[STORE_ID_LEN] = '\0';
	ck_assert_int_eq(store_deck_alive(tdir, deck), 1);
	ck_assert_int_eq(store_deck_alive(tdir, deck), 1);
	ck_assert_int_eq(write(down[1], &go, 1), 1);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_int_eq(store_deck_alive(tdir, deck), 0);
	ck_assert_int_eq(store_deck_alive(tdir, store_deck(st)), 1);
	store_free(st);
}
END_TEST

/* Return the path of a file of a run in the test directory (static). */
static const char *
run_file(const char *run, const char *name)
{
	static char	path[256];

	snprintf(path, sizeof path, "%s/runs/%s/%s", tdir, run, name);
	return path;
}

/* Count a scan's blocks: the callback of the damage tests. */
static int
count_block(int64_t first, const char *block, size_t len, void *arg)
{
	int64_t	*n = arg;

	(void)first;
	(void)block;
	ck_assert_uint_gt(len, 0);
	(*n)++;
	return 0;
}

/*
 * Every read of a reader on a damaged run none of which can be read ends
 * at once with nothing (lines asked for: an error), and says why: lines,
 * the tail, new lines, a time, a scan.
 */
static void
assert_reads_end(struct store_reader *r)
{
	static const struct store_scan_cbs cbs = { count_block };
	struct store_mark	 mark = { 0, 0 };
	struct store_line	*l = NULL;
	int64_t			 blocks = 0, skipped;
	int			 n = -1, more;

	ck_assert_int_eq(store_reader_count(r), 0);
	ck_assert_int_eq(store_reader_first(r), 0);
	ck_assert_uint_eq(store_reader_bytes(r), 0);
	ck_assert_ptr_nonnull(store_reader_damage(r));
	ck_assert_int_eq(store_reader_get(r, 0, 100, STORE_TEXT, &l, &n), -1);
	ck_assert_int_eq(n, 0);
	ck_assert_ptr_null(l);
	ck_assert_int_eq(store_reader_tail(r, 10, STORE_RAW, &l, &n, &more),
	    0);
	ck_assert_int_eq(n, 0);
	ck_assert_int_eq(store_reader_since(r, &mark, STORE_RAW, -1, 1, &l,
	    &n, &skipped), 0);
	ck_assert_int_eq(n, 0);
	ck_assert_int_eq(store_reader_find_time(r, 5), 0);
	ck_assert_int_eq(store_reader_scan(r, 0, 4096, &cbs, &blocks), 0);
	ck_assert_int_eq(blocks, 0);
}

/* A run without its index (or its out file) is damaged, never read. */
START_TEST(test_run_without_index)
{
	struct store		*st = open_store(0);
	struct store_run	*sr = new_run(st), *sr2 = new_run(st);
	struct store_reader	*early;
	char			 want[256], *cause = NULL;

	put(sr, STORE_TTY, "one\ntwo\n", 1);
	early = open_reader(store_run_id(sr));
	ck_assert_int_eq(store_reader_count(early), 2);
	/* Its meta there, idx.0 gone: a crash between them, or a user. */
	ck_assert_int_eq(unlink(run_file(store_run_id(sr), "idx.0")), 0);
	ck_assert_ptr_null(store_reader_open(tdir, store_run_id(sr), &cause));
	snprintf(want, sizeof want, "runs/%s is damaged: it has no index "
	    "(idx.N)", store_run_id(sr));
	ck_assert_str_eq(cause, want);
	free(cause);
	cause = NULL;
	/* A reader that had it sees an empty run from then on. */
	ck_assert_int_eq(store_reader_refresh(early), -1);
	assert_reads_end(early);
	store_reader_close(early);

	put(sr2, STORE_TTY, "three\n", 1);
	ck_assert_int_eq(unlink(run_file(store_run_id(sr2), "out.0")), 0);
	ck_assert_ptr_null(store_reader_open(tdir, store_run_id(sr2),
	    &cause));
	snprintf(want, sizeof want, "runs/%s is damaged: out.0: No such "
	    "file or directory", store_run_id(sr2));
	ck_assert_str_eq(cause, want);
	free(cause);
	store_run_close(sr);
	store_run_close(sr2);
	store_free(st);
}
END_TEST

/* Return the number of entries of a directory, . and .. left out. */
static int
dir_entries(const char *dir)
{
	DIR		*d;
	struct dirent	*de;
	int		 n = 0;

	if ((d = opendir(dir)) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			n++;
	}
	closedir(d);
	return n;
}

/*
 * A run whose first segment cannot be made (no fd left for idx.0) fails
 * and leaves nothing: no run without its index is ever seen.
 */
START_TEST(test_run_new_leaves_nothing)
{
	int	status;
	pid_t	pid;

	pid = fork();
	ck_assert_int_ne(pid, -1);
	if (pid == 0) {
		struct store		*st;
		struct store_meta	 m;
		struct rlimit		 rl, old;
		char			*cause = NULL, runs[128];
		int			 fd;

		memset(&m, 0, sizeof m);
		m.state = (char *)"running";
		if ((st = store_open(tdir, NULL, &cause)) == NULL)
			_exit(2);
		/* Room for two more fds: the run's directory and out.0. */
		if ((fd = open("/dev/null", O_RDONLY)) == -1)
			_exit(2);
		close(fd);
		if (fcntl(fd + 1, F_GETFD) != -1 || getrlimit(RLIMIT_NOFILE,
		    &old) != 0)
			_exit(77);
		rl = old;
		rl.rlim_cur = (rlim_t)fd + 2;
		if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
			_exit(2);
		if (store_run_new(st, &m, &cause) != NULL)
			_exit(3);
		setrlimit(RLIMIT_NOFILE, &old);
		if (strstr(cause, "Too many open files, writing runs/") ==
		    NULL || strstr(cause, "/idx.0") == NULL)
			_exit(4);
		snprintf(runs, sizeof runs, "%s/runs", tdir);
		if (dir_entries(runs) != 0)
			_exit(5);
		store_free(st);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status), "child status %d", status);
	if (WEXITSTATUS(status) == 77)
		TEST_SKIP("fd %s is in use", "above the lowest free one");
	ck_assert_msg(WEXITSTATUS(status) != 3, "the run was made");
	ck_assert_msg(WEXITSTATUS(status) != 4, "not the idx.0 error");
	ck_assert_msg(WEXITSTATUS(status) != 5, "the failed run left its "
	    "directory behind");
	ck_assert_int_eq(WEXITSTATUS(status), 0);
}
END_TEST

/* Write lines "line NNNNNN" to a run until it holds about len bytes. */
static void
put_lines(struct store_run *sr, size_t len)
{
	char	*buf;
	size_t	 n = 0, off, piece;
	int	 i = 0;

	buf = malloc(len + 32);
	ck_assert_ptr_nonnull(buf);
	while (n < len)
		n += (size_t)sprintf(buf + n, "line %06d\n", i++);
	for (off = 0; off < n; off += piece) {
		piece = n - off < 64 * 1024 ? n - off : 64 * 1024;
		ck_assert_int_eq(store_run_write(sr, STORE_TTY, buf + off,
		    piece, 1), 0);
	}
	free(buf);
}

/* Write n lines "line NNNNNN", one write (one index record) each. */
static void
put_one_by_one(struct store_run *sr, int n)
{
	char	line[32];
	int	i;

	for (i = 0; i < n; i++) {
		snprintf(line, sizeof line, "line %06d\n", i);
		put(sr, STORE_TTY, line, 1000 + i);
	}
}

/*
 * Read a run the way a log stream does, 256 lines at a time from its
 * first, until a read gives fewer than it asked for or the count is
 * reached; check each line is the one its number says.  Returns how many
 * lines came.
 */
static int64_t
read_all_lines(struct store_reader *r)
{
	struct store_line	*l;
	char			 want[32];
	int64_t			 no = store_reader_first(r), to;
	int			 n, i;

	while (no < store_reader_count(r)) {
		to = no + 256;
		if (store_reader_get(r, no, to, STORE_RAW, &l, &n) != 0)
			break;
		for (i = 0; i < n; i++) {
			ck_assert_int_eq(l[i].no, no + i);
			snprintf(want, sizeof want, "line %06lld",
			    (long long)(no + i));
			if (!l[i].partial)
				ck_assert_str_eq(l[i].text, want);
		}
		store_lines_free(l, n);
		no += n;
		if (n == 0 || (no < to && no < store_reader_count(r)))
			break;
	}
	return no - store_reader_first(r);
}

/*
 * An out file cut below its index (truncate -s, as a user freeing disk
 * does): the run is read up to the bytes that are there, and says what
 * was cut; a reader that had it stops where the bytes go, and every scan
 * of it ends.  (Before, the whole run was refused: its intact segment
 * too.)
 */
START_TEST(test_truncated_segment)
{
	static const struct store_scan_cbs cbs = { count_block };
	struct store		*st = open_store(256 * 1024);
	struct store_run	*sr = new_run(st), *sr2 = new_run(st);
	struct store_reader	*early, *r;
	struct store_line	*l;
	char			 want[256];
	int64_t			 at, blocks = 0, count;
	int			 n, steps = 0;

	/* Segments of 64 KiB: out.0 to out.3; out.1 one record. */
	put_lines(sr, 200 * 1024);
	early = open_reader(store_run_id(sr));
	count = store_reader_count(early);
	ck_assert_int_eq(store_reader_first(early), 0);
	ck_assert_ptr_null(store_reader_damage(early));
	ck_assert_int_eq(truncate(run_file(store_run_id(sr), "out.1"), 1000),
	    0);
	/* Read up to out.0's end: 5,461 lines of 12 bytes, and "line". */
	r = open_reader(store_run_id(sr));
	ck_assert_int_eq(store_reader_count(r), 5462);
	ck_assert_int_eq(store_reader_partial(r), 1);
	ck_assert_uint_eq(store_reader_bytes(r), 65536);
	snprintf(want, sizeof want, "runs/%s is damaged: out.1 holds 1000 "
	    "bytes, its index 65536; cut after line 5462 (%llu bytes after "
	    "it cannot be read)", store_run_id(sr),
	    (unsigned long long)(store_run_bytes(sr) - 65536));
	ck_assert_str_eq(store_reader_damage(r), want);
	ck_assert_int_eq(read_all_lines(r), 5462);
	l = get(r, 5460, 5470, STORE_RAW, 2);
	ck_assert_str_eq(l[0].text, "line 005460");
	ck_assert_str_eq(l[1].text, "line");
	ck_assert_int_eq(l[1].partial, 1);
	store_lines_free(l, 2);
	ck_assert_int_eq(store_reader_get(r, 6000, 6010, STORE_RAW, &l, &n),
	    -1);
	ck_assert_int_eq(store_reader_refresh(r), -1);
	ck_assert_int_eq(store_reader_count(r), 5462);
	store_reader_close(r);

	/* The reader that had it: the scan stops where the bytes go. */
	for (at = 0; at < store_reader_count(early); steps++) {
		ck_assert_msg(steps < 1000, "the scan makes no progress");
		at = store_reader_scan(early, at, 4096, &cbs, &blocks);
	}
	ck_assert_int_eq(at, 5462);
	ck_assert_int_lt(store_reader_count(early), count);
	ck_assert_int_gt(blocks, 0);
	ck_assert_str_eq(store_reader_damage(early), want);
	/* Its first segment is whole: those lines still come. */
	l = get(early, 0, 3, STORE_RAW, 3);
	ck_assert_str_eq(l[2].text, "line 000002");
	store_lines_free(l, 3);
	ck_assert_int_eq(store_reader_refresh(early), -1);
	ck_assert_int_eq(store_reader_count(early), 5462);
	store_reader_close(early);

	/* The newest segment cut: the older one reads. */
	put_lines(sr2, 100 * 1024);
	ck_assert_int_eq(truncate(run_file(store_run_id(sr2), "out.1"), 10),
	    0);
	r = open_reader(store_run_id(sr2));
	ck_assert_int_eq(store_reader_count(r), 5462);
	snprintf(want, sizeof want, "runs/%s is damaged: out.1 holds 10 "
	    "bytes, its index %d; cut after line 5462 (%d bytes after it "
	    "cannot be read)", store_run_id(sr2),
	    (int)(store_run_bytes(sr2) - 65536),
	    (int)(store_run_bytes(sr2) - 65536));
	ck_assert_str_eq(store_reader_damage(r), want);
	store_reader_close(r);
	store_run_close(sr);
	store_run_close(sr2);
	store_free(st);
}
END_TEST

/*
 * What a crash leaves (out and idx are written without an order between
 * them): out.N a byte short of its last index record, or idx.N ending in
 * zeros.  The run is read up to its last whole record and says what was
 * cut; nothing else of it is lost.  (Before, the whole run was refused.)
 */
START_TEST(test_crash_torn_end)
{
	static const char	 zeros[64];
	struct store		*st = open_store(0);
	struct store_run	*sr = new_run(st), *sr2 = new_run(st);
	struct store_reader	*r;
	struct stat		 sb;
	char			 want[256];
	int			 fd;

	put_one_by_one(sr, 1000);
	ck_assert_int_eq(stat(run_file(store_run_id(sr), "out.0"), &sb), 0);
	ck_assert_int_eq(truncate(run_file(store_run_id(sr), "out.0"),
	    sb.st_size - 1), 0);
	r = open_reader(store_run_id(sr));
	ck_assert_int_eq(store_reader_count(r), 999);
	ck_assert_int_eq(store_reader_partial(r), 0);
	snprintf(want, sizeof want, "runs/%s is damaged: out.0 holds 11999 "
	    "bytes, its index 12000; cut after line 999 (12 bytes after it "
	    "cannot be read)", store_run_id(sr));
	ck_assert_str_eq(store_reader_damage(r), want);
	ck_assert_int_eq(read_all_lines(r), 999);
	store_reader_close(r);

	/* Two records of zeros at the end of idx.0. */
	put_one_by_one(sr2, 1000);
	ck_assert_int_ne(fd = open(run_file(store_run_id(sr2), "idx.0"),
	    O_WRONLY | O_APPEND), -1);
	ck_assert_int_eq(write(fd, zeros, sizeof zeros), sizeof zeros);
	close(fd);
	r = open_reader(store_run_id(sr2));
	ck_assert_int_eq(store_reader_count(r), 1000);
	snprintf(want, sizeof want, "runs/%s is damaged: idx.0 holds a record "
	    "the store did not write (record 1000); cut after line 1000",
	    store_run_id(sr2));
	ck_assert_str_eq(store_reader_damage(r), want);
	ck_assert_int_eq(read_all_lines(r), 1000);
	store_reader_close(r);
	store_run_close(sr);
	store_run_close(sr2);
	store_free(st);
}
END_TEST

/* An index record as the store writes it (store.c's struct store_rec). */
struct test_rec {
	uint64_t	off;
	uint64_t	line;
	int64_t		time;
	uint32_t	len;
	uint8_t		stream;
	uint8_t		starts;
	uint8_t		pad[2];
};

/* Read record k of a run's idx.0 into rec, or write rec over it. */
static void
rec_io(const char *run, int64_t k, struct test_rec *rec, int write_it)
{
	int	fd;
	ssize_t	n;

	ck_assert_uint_eq(sizeof *rec, 32);
	ck_assert_int_ne(fd = open(run_file(run, "idx.0"), O_RDWR), -1);
	if (write_it)
		n = pwrite(fd, rec, sizeof *rec, k * (off_t)sizeof *rec);
	else
		n = pread(fd, rec, sizeof *rec, k * (off_t)sizeof *rec);
	ck_assert_int_eq(n, (ssize_t)sizeof *rec);
	close(fd);
}

/*
 * Damage inside a segment, where the checks of its first and last
 * records cannot see it: a record in the middle of idx.0 with no bytes,
 * one pointing past out.0, one whose line number is forged up or down.
 * Read as a log stream reads it, the run gives its lines up to the
 * damage, each the right one, and says it is damaged; a read of a line
 * the forged record would place gives the right line or none.  (Before,
 * reads stopped early with no word of damage, and a forged line number
 * gave the wrong line as this one.)
 */
START_TEST(test_damage_in_the_middle)
{
	struct store		*st = open_store(0);
	struct store_run	*sr;
	struct store_reader	*r;
	struct store_line	*l;
	struct test_rec		 rec;
	const char		*why;
	char			 want[64];
	int64_t			 got;
	int			 kind, n;

	for (kind = 0; kind < 4; kind++) {
		sr = new_run(st);
		put_one_by_one(sr, 3000);
		rec_io(store_run_id(sr), 1500, &rec, 0);
		ck_assert_int_eq(rec.line, 1500);
		ck_assert_int_eq(rec.len, 12);
		if (kind == 0)
			rec.len = 0;
		else if (kind == 1)
			rec.len = 60000;	/* out.0 holds 36,000 */
		else if (kind == 2)
			rec.line++;
		else
			rec.line--;
		rec_io(store_run_id(sr), 1500, &rec, 1);

		/* A line the forged record would place, read first. */
		r = open_reader(store_run_id(sr));
		ck_assert_int_le(store_reader_count(r), 3000);
		if (store_reader_get(r, 1501, 1502, STORE_RAW, &l, &n) == 0 &&
		    n > 0) {
			ck_assert_int_eq(n, 1);
			ck_assert_str_eq(l[0].text, "line 001501");
			store_lines_free(l, n);
		}
		store_reader_close(r);

		/* A log stream's read: every line before the damage. */
		r = open_reader(store_run_id(sr));
		got = read_all_lines(r);
		ck_assert_msg(got == 1500, "kind %d: %lld lines read", kind,
		    (long long)got);
		ck_assert_int_eq(store_reader_count(r), 1500);
		why = store_reader_damage(r);
		ck_assert_msg(why != NULL, "kind %d: no word of damage", kind);
		snprintf(want, sizeof want, "; cut after line 1500 (");
		ck_assert_msg(strstr(why, want) != NULL && strncmp(why, "runs/",
		    5) == 0, "kind %d: %s", kind, why);
		/* The cut stays: a refresh does not read past it. */
		ck_assert_int_eq(store_reader_refresh(r), -1);
		ck_assert_int_eq(store_reader_count(r), 1500);
		ck_assert_int_eq(store_reader_get(r, 2000, 2010, STORE_RAW, &l,
		    &n), -1);
		store_reader_close(r);
		store_run_close(sr);
	}
	store_free(st);
}
END_TEST

/*
 * A FIFO (or anything not a regular file) where a run's file should be
 * is refused at once, not waited on: out.N or idx.N of a reader, the
 * meta, a deck's lock, meta.tmp and the next out.N of the writer.  (Before,
 * each open blocked, and with it the deck's loop: ctl grep and ctl ps
 * hung.)  A test that blocks ends by the suite's time limit.
 */
START_TEST(test_fifo_files)
{
	struct store		*st = open_store(256 * 1024);
	struct store_run	*sr = new_run(st), *sr2 = new_run(st);
	struct store_reader	*r;
	struct store_meta	 m;
	char			 want[256], path[256], big[8192], *cause = NULL;
	const char		*run = store_run_id(sr);

	/* Segments of 64 KiB: out.0 to out.3; out.2 a FIFO. */
	put_lines(sr, 200 * 1024);
	ck_assert_int_eq(unlink(run_file(run, "out.2")), 0);
	ck_assert_int_eq(mkfifo(run_file(run, "out.2"), 0600), 0);
	r = open_reader(run);
	ck_assert_uint_eq(store_reader_bytes(r), 2 * 65536);
	snprintf(want, sizeof want, "runs/%s is damaged: out.2: not a regular "
	    "file; cut after line %lld", run,
	    (long long)store_reader_count(r));
	ck_assert_str_eq(store_reader_damage(r), want);
	store_reader_close(r);

	/* idx.0 a FIFO: nothing can be read. */
	ck_assert_int_eq(unlink(run_file(run, "idx.0")), 0);
	ck_assert_int_eq(mkfifo(run_file(run, "idx.0"), 0600), 0);
	ck_assert_ptr_null(store_reader_open(tdir, run, &cause));
	snprintf(want, sizeof want, "runs/%s is damaged: idx.0: not a "
	    "regular file", run);
	ck_assert_str_eq(cause, want);
	free(cause);
	cause = NULL;

	/* The meta a FIFO. */
	ck_assert_int_eq(unlink(run_file(run, "meta")), 0);
	ck_assert_int_eq(mkfifo(run_file(run, "meta"), 0600), 0);
	ck_assert_int_eq(store_meta_read(tdir, run, &m, &cause), -1);
	snprintf(want, sizeof want, "runs/%s/meta: not a regular file", run);
	ck_assert_str_eq(cause, want);
	free(cause);
	cause = NULL;
	ck_assert_ptr_null(store_reader_open(tdir, run, &cause));
	ck_assert_str_eq(cause, want);
	free(cause);
	cause = NULL;

	/* A deck's lock a FIFO: not a live deck. */
	snprintf(path, sizeof path, "%s/decks/%s.lock", tdir,
	    "20200101T000000-00000000");
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	ck_assert_int_eq(store_deck_alive(tdir, "20200101T000000-00000000"),
	    0);

	/* The writer: meta.tmp a FIFO, then its next out.N. */
	ck_assert_int_eq(mkfifo(run_file(store_run_id(sr2), "meta.tmp"),
	    0600), 0);
	memset(&m, 0, sizeof m);
	m.state = (char *)"running";
	ck_assert_int_eq(store_run_update(sr2, &m), -1);
	snprintf(want, sizeof want, "not a regular file, writing runs/%s/"
	    "meta.tmp", store_run_id(sr2));
	ck_assert_str_eq(store_run_error(sr2), want);
	store_run_close(sr2);
	sr2 = new_run(st);
	ck_assert_int_eq(mkfifo(run_file(store_run_id(sr2), "out.1"), 0600),
	    0);
	put_lines(sr2, 60 * 1024);
	ck_assert_int_eq(store_run_write(sr2, STORE_TTY, "x\n", 2, 1), 0);
	memset(big, 'y', sizeof big);
	ck_assert_int_eq(store_run_write(sr2, STORE_TTY, big, sizeof big, 1),
	    -1);
	snprintf(want, sizeof want, "not a regular file, writing runs/%s/"
	    "out.1", store_run_id(sr2));
	ck_assert_str_eq(store_run_error(sr2), want);
	store_run_close(sr);
	store_run_close(sr2);
	store_free(st);
}
END_TEST

/*
 * A disk that fills (a 256 KiB tmpfs): the output stops with the reason,
 * but the run's later states and its end still reach its meta (written in
 * place), and no meta.tmp is left; a run that cannot start on the full
 * disk leaves nothing behind.
 */
START_TEST(test_full_disk)
{
	static char		*env[] = { "PATH=/usr/bin:/bin", "HOME=/root",
				    "LANG=C.UTF-8", NULL };
	struct store		*st;
	struct store_run	*sr;
	struct store_meta	 m, back;
	struct stat		 sb;
	char			 mnt[128], path[256], want[256], *buf;
	char			 first[STORE_ID_LEN + 1], *cause = NULL;
	int			 i, r = 0, fd;

	snprintf(mnt, sizeof mnt, "%s/full", tdir);
	if (testmnt_tmpfs(mnt, 256 * 1024, "full disk") != 0)
		return;
	st = store_open(mnt, NULL, &cause);
	ck_assert_msg(st != NULL, "store_open: %s", cause);
	memset(&m, 0, sizeof m);
	m.job = 1;
	m.start = 1;
	m.command = (char *)"yes";
	m.shell = (char *)"/bin/sh";
	m.cwd = (char *)"/";
	m.envp = env;
	m.pty = 1;
	m.pid = 4242;
	m.started = 1700000000000LL;
	m.state = (char *)"running";
	ck_assert_ptr_nonnull(sr = store_run_new(st, &m, &cause));
	buf = malloc(64 * 1024);
	memset(buf, 'y', 64 * 1024);
	for (i = 0; i < 100 && r == 0; i++)
		r = store_run_write(sr, STORE_TTY, buf, 64 * 1024, 1);
	free(buf);
	ck_assert_int_eq(r, -1);
	snprintf(want, sizeof want, "No space left on device, writing "
	    "runs/%s/out.", m.run);
	ck_assert_msg(strncmp(store_run_error(sr), want, strlen(want)) == 0,
	    "%s", store_run_error(sr));
	/* Really full: not a page more. */
	snprintf(path, sizeof path, "%s/page", mnt);
	ck_assert_int_ne(fd = open(path, O_WRONLY | O_CREAT, 0600), -1);
	ck_assert_int_eq(write(fd, want, sizeof want), -1);
	ck_assert_int_eq(errno, ENOSPC);
	close(fd);
	unlink(path);

	m.state = (char *)"stopped";
	ck_assert_int_eq(store_run_update(sr, &m), 0);
	m.state = (char *)"completed";
	m.ended = 1700000009999LL;
	m.status = 0;
	m.has_status = 1;
	ck_assert_int_eq(store_run_update(sr, &m), 0);
	ck_assert_int_eq(store_meta_read(mnt, m.run, &back, &cause), 0);
	ck_assert_str_eq(back.state, "completed");
	ck_assert_int_eq(back.ended, 1700000009999LL);
	ck_assert_int_eq(back.has_status, 1);
	ck_assert_str_eq(back.envp[2], "LANG=C.UTF-8");
	ck_assert_int_eq(back.pid, 4242);
	store_meta_clear(&back);
	snprintf(path, sizeof path, "%s/runs/%s/meta.tmp", mnt, m.run);
	ck_assert_int_eq(lstat(path, &sb), -1);
	/* The first reason is the one kept. */
	ck_assert_msg(strncmp(store_run_error(sr), want, strlen(want)) == 0,
	    "%s", store_run_error(sr));
	store_run_close(sr);

	/* A run that cannot start leaves no directory, no meta.tmp. */
	memcpy(first, m.run, sizeof m.run);
	ck_assert_ptr_null(store_run_new(st, &m, &cause));
	ck_assert_msg(strstr(cause, "No space left on device") != NULL, "%s",
	    cause);
	free(cause);
	snprintf(path, sizeof path, "%s/runs", mnt);
	ck_assert_int_eq(dir_entries(path), 1);
	snprintf(path, sizeof path, "%s/runs/%s/meta", mnt, first);
	ck_assert_int_eq(lstat(path, &sb), 0);
	store_free(st);
	testmnt_umount(mnt);
}
END_TEST

/* Remove a run's directory under its writer. */
static void
remove_run_dir(const char *run)
{
	char	path[256];

	snprintf(path, sizeof path, "%s/runs/%s", tdir, run);
	ck_assert_int_eq(nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS), 0);
}

START_TEST(test_write_error_dir_removed)
{
	struct store		*st = open_store(256 * 1024);
	struct store_run	*sr = new_run(st);
	struct store_meta	 m;
	char			*buf, want[128];
	int			 i, r = 0;

	put(sr, STORE_TTY, "before\n", 1);
	remove_run_dir(store_run_id(sr));
	memset(&m, 0, sizeof m);
	m.state = (char *)"running";
	ck_assert_int_eq(store_run_update(sr, &m), -1);
	snprintf(want, sizeof want, "No such file or directory, writing "
	    "runs/%s/meta.tmp", store_run_id(sr));
	ck_assert_str_eq(store_run_error(sr), want);
	store_run_close(sr);

	/* Writes that need the next segment fail, once and for good. */
	sr = new_run(st);
	remove_run_dir(store_run_id(sr));
	buf = calloc(1, 64 * 1024);
	for (i = 0; i < 8 && r == 0; i++)
		r = store_run_write(sr, STORE_TTY, buf, 64 * 1024, 1);
	ck_assert_int_eq(r, -1);
	snprintf(want, sizeof want, "No such file or directory, writing "
	    "runs/%s/out.1", store_run_id(sr));
	ck_assert_str_eq(store_run_error(sr), want);
	ck_assert_int_eq(store_run_write(sr, STORE_TTY, "x\n", 2, 1), -1);
	ck_assert_int_eq(store_run_flush(sr, 1), -1);
	ck_assert_int_eq(store_run_held(sr), 0);
	store_run_close(sr);
	store_free(st);
	free(buf);
}
END_TEST

START_TEST(test_write_error_file_too_large)
{
	int	status;
	pid_t	pid;

	pid = fork();
	ck_assert_int_ne(pid, -1);
	if (pid == 0) {
		struct store		*st;
		struct store_run	*sr;
		struct store_meta	 m;
		struct rlimit		 rl = { 100000, 100000 };
		char			*cause = NULL, buf[4096], want[128];
		int			 i, r = 0;

		signal(SIGXFSZ, SIG_IGN);
		memset(&m, 0, sizeof m);
		memset(buf, 'a', sizeof buf);
		if ((st = store_open(tdir, NULL, &cause)) == NULL ||
		    (sr = store_run_new(st, &m, &cause)) == NULL)
			_exit(2);
		setrlimit(RLIMIT_FSIZE, &rl);
		for (i = 0; i < 100 && r == 0; i++)
			r = store_run_write(sr, STORE_TTY, buf, sizeof buf, 1);
		snprintf(want, sizeof want, "File too large, writing "
		    "runs/%s/out.0", store_run_id(sr));
		if (r != -1 || store_run_error(sr) == NULL ||
		    strcmp(store_run_error(sr), want) != 0)
			_exit(3);
		store_run_close(sr);
		store_free(st);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "child status %d", status);
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

START_TEST(test_reading_is_bounded)
{
	struct store		*st = open_store(0);
	struct store_run	*sr = new_run(st);
	struct store_reader	*r;
	struct store_line	*l;
	char			*buf, want[32];
	size_t			 len = 0, off, n;
	long long		 before, after;
	int64_t			 i;

	buf = malloc(3000000 * 9 + 1);
	for (i = 0; i < 3000000; i++)
		len += (size_t)sprintf(buf + len, "%08lld\n", (long long)i);
	for (off = 0; off < len; off += n) {
		n = len - off < 65536 ? len - off : 65536;
		ck_assert_int_eq(store_run_write(sr, STORE_TTY, buf + off, n,
		    (int64_t)off), 0);
	}
	free(buf);
	if ((before = bytes_read()) < 0) {
		store_run_close(sr);
		store_free(st);
		TEST_SKIP("no /proc/self/io here");
	}
	r = open_reader(store_run_id(sr));
	ck_assert_int_eq(store_reader_count(r), 3000000);
	l = get(r, 1000000, 1000010, STORE_TEXT, 10);
	after = bytes_read();
	for (i = 0; i < 10; i++) {
		snprintf(want, sizeof want, "%08lld", (long long)(1000000 + i));
		ck_assert_str_eq(l[i].text, want);
	}
	store_lines_free(l, 10);
	/* 27 MB of output, 100 KiB of index: a few blocks of each read. */
	ck_assert_msg(after - before < 512 * 1024, "read %lld bytes",
	    after - before);
	store_reader_close(r);
	store_run_close(sr);
	store_free(st);
}
END_TEST

#define DAY_MS		(24LL * 60 * 60 * 1000)

/* One run a dead deck leaves behind. */
struct dead_run {
	const char	*state;
	int64_t		 started;
	int64_t		 ended;
	size_t		 bytes;
	char		 id[STORE_ID_LEN + 1];
};

/*
 * Make runs in a deck of a child that then dies (without store_free(),
 * as a SIGKILLed deck would); their ids are filled in.  Returns the
 * deck's id in deck.
 */
static void
dead_deck(struct dead_run *runs, int n, char *deck)
{
	int	fds[2], i, status;
	pid_t	pid;

	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	ck_assert_int_ne(pid, -1);
	if (pid == 0) {
		struct store		*cs;
		struct store_run	*sr;
		struct store_meta	 m;
		char			*cause = NULL, *buf;

		close(fds[0]);
		if ((cs = store_open(tdir, NULL, &cause)) == NULL)
			_exit(1);
		if (write(fds[1], store_deck(cs), STORE_ID_LEN) != STORE_ID_LEN)
			_exit(1);
		for (i = 0; i < n; i++) {
			memset(&m, 0, sizeof m);
			m.job = i + 1;
			m.state = (char *)runs[i].state;
			m.started = runs[i].started;
			m.ended = runs[i].ended;
			if ((sr = store_run_new(cs, &m, &cause)) == NULL)
				_exit(1);
			buf = calloc(1, runs[i].bytes + 1);
			if (store_run_write(sr, STORE_TTY, buf, runs[i].bytes,
			    1) != 0 || write(fds[1], m.run, STORE_ID_LEN) !=
			    STORE_ID_LEN)
				_exit(1);
		}
		_exit(0);
	}
	close(fds[1]);
	ck_assert_int_eq(read(fds[0], deck, STORE_ID_LEN), STORE_ID_LEN);
	deck[STORE_ID_LEN] = '\0';
	for (i = 0; i < n; i++) {
		ck_assert_int_eq(read(fds[0], runs[i].id, STORE_ID_LEN),
		    STORE_ID_LEN);
		runs[i].id[STORE_ID_LEN] = '\0';
	}
	close(fds[0]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* Return 1 if the run's directory exists. */
static int
run_exists(const char *run)
{
	struct stat	sb;
	char		path[256];

	snprintf(path, sizeof path, "%s/runs/%s", tdir, run);
	return lstat(path, &sb) == 0;
}

/* Return 1 if a path under the test directory exists. */
static int
path_exists(const char *name)
{
	struct stat	sb;
	char		path[256];

	snprintf(path, sizeof path, "%s/%s", tdir, name);
	return lstat(path, &sb) == 0;
}

/* Run a sweep to its end with budget 1; returns the lost runs. */
static int
sweep_all(struct store *st, int64_t now, char ***lost)
{
	struct store_sweep	*sw;
	int			 steps = 0, n;

	ck_assert_ptr_nonnull(sw = store_sweep_new(st, now));
	while (store_sweep_step(sw, 1) > 0)
		ck_assert_int_lt(++steps, 10000);
	ck_assert_int_gt(steps, 1);
	n = store_sweep_lost(sw, lost);
	store_sweep_free(sw);
	return n;
}

/* Make an old-style log file with a modification time age_ms ago. */
static void
make_log(const char *name, int64_t now, int64_t age_ms)
{
	struct timespec	ts[2];
	char		path[256];
	int		fd;

	snprintf(path, sizeof path, "%s/logs", tdir);
	mkdir(path, 0700);
	snprintf(path, sizeof path, "%s/logs/%s", tdir, name);
	ck_assert_int_ne(fd = open(path, O_WRONLY | O_CREAT, 0600), -1);
	ts[0].tv_sec = ts[1].tv_sec = (time_t)((now - age_ms) / 1000);
	ts[0].tv_nsec = ts[1].tv_nsec = 0;
	ck_assert_int_eq(futimens(fd, ts), 0);
	close(fd);
}

START_TEST(test_sweep_lost_and_age)
{
	struct timespec		 tsn;
	struct store		*st, *live;
	struct store_run	*own, *lr;
	struct store_meta	 m;
	struct dead_run		 dead[3];
	char			**lost, *cause = NULL, lock[128];
	char			 deck[STORE_ID_LEN + 1], liverun[STORE_ID_LEN + 1];
	int64_t			 now;
	int			 n;

	clock_gettime(CLOCK_REALTIME, &tsn);
	now = (int64_t)tsn.tv_sec * 1000;
	memset(dead, 0, sizeof dead);
	dead[0].state = "running";
	dead[0].started = now - 3600 * 1000;
	dead[1].state = "completed";
	dead[1].started = now - 31 * DAY_MS;
	dead[1].ended = now - 30 * DAY_MS;
	dead[2].state = "stopped";
	dead[2].started = now - DAY_MS;
	dead[0].bytes = dead[1].bytes = dead[2].bytes = 100;
	st = open_store(0);
	dead_deck(dead, 3, deck);
	ck_assert_int_eq(store_deck_alive(tdir, deck), 0);

	/* A live deck's old run and our own are never touched. */
	live = open_store(0);
	memset(&m, 0, sizeof m);
	m.state = (char *)"running";
	m.started = now - 40 * DAY_MS;
	ck_assert_ptr_nonnull(lr = store_run_new(live, &m, &cause));
	memcpy(liverun, m.run, sizeof liverun);
	m.state = (char *)"completed";
	m.ended = now - 39 * DAY_MS;
	ck_assert_ptr_nonnull(own = store_run_new(st, &m, &cause));

	make_log("123-1.log", now, 30 * DAY_MS);
	make_log("124-2.log", now, DAY_MS);
	make_log("debug-x.log", now, 30 * DAY_MS);

	n = sweep_all(st, now, &lost);
	ck_assert_int_eq(n, 2);
	ck_assert_str_eq(lost[0], strcmp(dead[0].id, dead[2].id) < 0 ?
	    dead[0].id : dead[2].id);
	ck_assert_str_eq(lost[1], strcmp(dead[0].id, dead[2].id) < 0 ?
	    dead[2].id : dead[0].id);
	free(lost[0]);
	free(lost[1]);
	free(lost);
	ck_assert_int_eq(store_meta_read(tdir, dead[0].id, &m, &cause), 0);
	ck_assert_str_eq(m.state, "lost");
	ck_assert_int_eq(m.ended, now);
	store_meta_clear(&m);
	ck_assert(run_exists(dead[0].id));
	ck_assert(!run_exists(dead[1].id));	/* 30 days old */
	ck_assert(run_exists(dead[2].id));
	ck_assert(run_exists(liverun));
	ck_assert(run_exists(store_run_id(own)));
	ck_assert(!path_exists("logs/123-1.log"));
	ck_assert(path_exists("logs/124-2.log"));
	ck_assert(path_exists("logs/debug-x.log"));
	snprintf(lock, sizeof lock, "decks/%s.lock", deck);
	ck_assert(path_exists(lock));

	/* A lost run is found once; a month later it goes, and its deck. */
	ck_assert_int_eq(sweep_all(st, now, &lost), 0);
	free(lost);
	ck_assert_int_eq(sweep_all(st, now + 30 * DAY_MS, &lost), 0);
	free(lost);
	ck_assert(!run_exists(dead[0].id));
	ck_assert(!run_exists(dead[2].id));
	ck_assert(!path_exists(lock));
	ck_assert(run_exists(liverun));
	ck_assert(run_exists(store_run_id(own)));
	ck_assert_int_eq(store_meta_read(tdir, liverun, &m, &cause), 0);
	ck_assert_str_eq(m.state, "running");
	store_meta_clear(&m);

	store_run_close(own);
	store_run_close(lr);
	store_free(live);
	store_free(st);
}
END_TEST

START_TEST(test_sweep_count_and_total)
{
	struct timespec		 tsn;
	struct store_limits	 lim;
	struct store		*st;
	struct dead_run		 dead[10];
	char			**lost, *cause = NULL, deck[STORE_ID_LEN + 1];
	int64_t			 now;
	int			 i;

	clock_gettime(CLOCK_REALTIME, &tsn);
	now = (int64_t)tsn.tv_sec * 1000;
	memset(dead, 0, sizeof dead);
	for (i = 0; i < 10; i++) {
		dead[i].state = "completed";
		dead[i].started = now - 100000 + i * 1000;
		dead[i].ended = dead[i].started + 500;
		dead[i].bytes = 10000;
	}
	dead_deck(dead, 10, deck);
	store_default_limits(&lim);
	lim.keep_runs = 6;
	ck_assert_ptr_nonnull(st = store_open(tdir, &lim, &cause));
	ck_assert_int_eq(sweep_all(st, now, &lost), 0);
	free(lost);
	for (i = 0; i < 10; i++)
		ck_assert_int_eq(run_exists(dead[i].id), i >= 4);
	store_free(st);

	/* The total: about three runs' worth keeps the newest three. */
	lim.max_total_bytes = 3 * 10000 + 3 * 1000;
	ck_assert_ptr_nonnull(st = store_open(tdir, &lim, &cause));
	ck_assert_int_eq(sweep_all(st, now, &lost), 0);
	free(lost);
	for (i = 0; i < 10; i++)
		ck_assert_int_eq(run_exists(dead[i].id), i >= 7);
	store_free(st);
}
END_TEST

/* Make an id of the time ms ago (as store ids are) in id. */
static void
id_at(int64_t ms, const char *tail, char *id)
{
	struct tm	tm;
	time_t		t = (time_t)(ms / 1000);

	gmtime_r(&t, &tm);
	ck_assert_uint_eq(strftime(id, STORE_ID_LEN + 1, "%Y%m%dT%H%M%S",
	    &tm), 15);
	snprintf(id + 15, STORE_ID_LEN + 1 - 15, "-%s", tail);
}

/* Set the modification time of a run's directory to ms. */
static void
age_dir(const char *run, int64_t ms)
{
	struct timespec	ts[2];
	char		path[256];

	snprintf(path, sizeof path, "%s/runs/%s", tdir, run);
	ts[0].tv_sec = ts[1].tv_sec = (time_t)(ms / 1000);
	ts[0].tv_nsec = ts[1].tv_nsec = 0;
	ck_assert_int_eq(utimensat(AT_FDCWD, path, ts, 0), 0);
}

/* Create an empty file under the test directory. */
static void
touch(const char *name)
{
	char	path[256];
	int	fd;

	snprintf(path, sizeof path, "%s/%s", tdir, name);
	ck_assert_int_ne(fd = open(path, O_WRONLY | O_CREAT, 0600), -1);
	close(fd);
}

/*
 * What dead decks leave goes at once, whatever the limits: a run with
 * only meta.tmp or nothing, a run with no index, the meta.tmp beside a
 * meta.  A run without meta being made now, and live decks' runs, stay.
 */
START_TEST(test_sweep_leftovers)
{
	struct timespec		 tsn;
	struct store		*st;
	struct store_run	*own, *young;
	struct dead_run		 dead[2];
	char			**lost, deck[STORE_ID_LEN + 1], name[128];
	char			 old1[STORE_ID_LEN + 1], old2[STORE_ID_LEN + 1];
	int64_t			 now;

	clock_gettime(CLOCK_REALTIME, &tsn);
	now = (int64_t)tsn.tv_sec * 1000;
	memset(dead, 0, sizeof dead);
	dead[0].state = dead[1].state = "completed";
	dead[0].started = dead[1].started = now - 3600 * 1000;
	dead[0].ended = dead[1].ended = now - 3000 * 1000;
	dead[0].bytes = dead[1].bytes = 100;
	st = open_store(0);
	dead_deck(dead, 2, deck);
	snprintf(name, sizeof name, "runs/%s/meta.tmp", dead[0].id);
	touch(name);
	ck_assert_int_eq(unlink(run_file(dead[1].id, "idx.0")), 0);
	/* Two hours old: past an hour, well within the age kept. */
	id_at(now - 2 * 3600 * 1000, "00000001", old1);
	id_at(now - 2 * 3600 * 1000, "00000002", old2);
	snprintf(name, sizeof name, "%s/runs/%s", tdir, old1);
	ck_assert_int_eq(mkdir(name, 0700), 0);
	snprintf(name, sizeof name, "runs/%s/meta.tmp", old1);
	touch(name);
	snprintf(name, sizeof name, "%s/runs/%s", tdir, old2);
	ck_assert_int_eq(mkdir(name, 0700), 0);
	age_dir(old1, now - 2 * 3600 * 1000);
	age_dir(old2, now - 2 * 3600 * 1000);
	/* Ours: one being made (no meta yet), one with a meta.tmp. */
	young = new_run(st);
	ck_assert_int_eq(unlink(run_file(store_run_id(young), "meta")), 0);
	own = new_run(st);
	snprintf(name, sizeof name, "runs/%s/meta.tmp", store_run_id(own));
	touch(name);

	ck_assert_int_eq(sweep_all(st, now, &lost), 0);
	free(lost);
	ck_assert(run_exists(dead[0].id));
	ck_assert(!path_exists(run_file(dead[0].id, "meta.tmp") +
	    strlen(tdir) + 1));
	ck_assert(!run_exists(dead[1].id));
	ck_assert(!run_exists(old1));
	ck_assert(!run_exists(old2));
	ck_assert(run_exists(store_run_id(young)));
	ck_assert(path_exists(name));

	/* Two minutes on, the run without meta is no one's. */
	ck_assert_int_eq(sweep_all(st, now + 120 * 1000, &lost), 0);
	free(lost);
	ck_assert(!run_exists(store_run_id(young)));
	ck_assert(run_exists(store_run_id(own)));
	ck_assert(run_exists(dead[0].id));
	store_run_close(young);
	store_run_close(own);
	store_free(st);
}
END_TEST

/* Set or unset an environment variable for the test. */
static void
set_env(const char *name, const char *value)
{
	if (value == NULL)
		unsetenv(name);
	else
		setenv(name, value, 1);
}

START_TEST(test_default_dir)
{
	struct store_limits	 lim;
	char			*d, want[64];

	set_env("XDG_STATE_HOME", "/xdg/state");
	set_env("HOME", "/home/u");
	d = store_default_dir();
	ck_assert_str_eq(d, "/xdg/state/jobdeck");
	free(d);
	set_env("XDG_STATE_HOME", "/xdg/state//");
	d = store_default_dir();
	ck_assert_str_eq(d, "/xdg/state/jobdeck");
	free(d);
	set_env("XDG_STATE_HOME", "/");
	d = store_default_dir();
	ck_assert_str_eq(d, "/jobdeck");
	free(d);

	/* Relative or empty XDG values are ignored, as the spec says. */
	set_env("XDG_STATE_HOME", "relative/state");
	d = store_default_dir();
	ck_assert_str_eq(d, "/home/u/.local/state/jobdeck");
	free(d);
	set_env("XDG_STATE_HOME", "");
	d = store_default_dir();
	ck_assert_str_eq(d, "/home/u/.local/state/jobdeck");
	free(d);

	set_env("XDG_STATE_HOME", NULL);
	set_env("HOME", NULL);
	d = store_default_dir();
	snprintf(want, sizeof want, "/tmp/jobdeck-%u/state",
	    (unsigned)getuid());
	ck_assert_str_eq(d, want);
	free(d);
	set_env("HOME", "relative");
	d = store_default_dir();
	ck_assert_str_eq(d, want);
	free(d);

	store_default_limits(&lim);
	ck_assert_int_eq(lim.max_run_bytes, 128LL << 20);
	ck_assert_int_eq(lim.keep_age_ms, 14LL * 24 * 3600 * 1000);
	ck_assert_int_eq(lim.keep_runs, 1000);
	ck_assert_int_eq(lim.max_total_bytes, 4LL << 30);
}
END_TEST

/* Build the store suite. */
static Suite *
store_suite(void)
{
	Suite	*s = suite_create("store");
	TCase	*tc;

	tc = tcase_create("lines");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_lines_round_trip);
	tcase_add_test(tc, test_long_line_cut);
	tcase_add_test(tc, test_text_and_color);
	tcase_add_test(tc, test_partial_line);
	tcase_add_test(tc, test_since);
	tcase_add_test(tc, test_split_streams);
	tcase_add_test(tc, test_times);
	tcase_add_test(tc, test_pieces_of_one_byte);
	tcase_add_test(tc, test_pieces_of_64k);
	tcase_add_test(tc, test_cap);
	tcase_add_test(tc, test_live_reader);
	tcase_add_test(tc, test_scan);
	tcase_add_test(tc, test_reading_is_bounded);
	tcase_add_test(tc, test_corrupt_index);
	suite_add_tcase(s, tc);

	tc = tcase_create("damage");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_run_without_index);
	tcase_add_test(tc, test_run_new_leaves_nothing);
	tcase_add_test(tc, test_truncated_segment);
	tcase_add_test(tc, test_crash_torn_end);
	tcase_add_test(tc, test_damage_in_the_middle);
	tcase_add_test(tc, test_full_disk);
	suite_add_tcase(s, tc);

	/* Each open that would block ends by this time limit. */
	tc = tcase_create("fifos");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_fifo_files);
	suite_add_tcase(s, tc);

	tc = tcase_create("files");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_meta_round_trip);
	tcase_add_test(tc, test_meta_errors);
	tcase_add_test(tc, test_bad_run_ids);
	tcase_add_test(tc, test_ids_unique_across_decks);
	tcase_add_test(tc, test_files_and_modes);
	tcase_add_test(tc, test_symlinked_runs_refused);
	tcase_add_test(tc, test_deck_alive);
	tcase_add_test(tc, test_write_error_dir_removed);
	tcase_add_test(tc, test_write_error_file_too_large);
	tcase_add_test(tc, test_default_dir);
	suite_add_tcase(s, tc);

	tc = tcase_create("sweep");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_sweep_lost_and_age);
	tcase_add_test(tc, test_sweep_count_and_total);
	tcase_add_test(tc, test_sweep_leftovers);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite; exit non-zero if any test failed. */
int
main(void)
{
	SRunner	*sr = srunner_create(store_suite());
	int	 failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

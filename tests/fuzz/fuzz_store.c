/*
 * fuzz_store.c: fuzz target for the output store's readers
 * (include/store.h) and its search (include/grep.h) on files that are not
 * what the writer made: a run's files damaged by a crash, a full disk or
 * another program.  The input is three parts, each after a 16-bit
 * little-endian length: the meta file, idx.0 and out.0; what is left is
 * out.1, and idx.1 is made of the last records of idx.0 moved up a
 * segment.  A length of 0xffff (FUZZ_STORE_ABSENT) takes no bytes and
 * leaves the part's files out: no meta, no idx.N at all (a crash between
 * the meta and the first segment), no out.0.  They are written to a run
 * directory of a store in a private temporary directory, then read back
 * every way a reader can: the meta, the counts, lines of every kind, a
 * scan in small steps, a search by time, a grep.  Nothing may crash, hang
 * or read without bound, and what comes back must keep the header's
 * promises: lines read one after another from the first and the scan's
 * blocks are the same bytes (one a prefix of the other, equal when
 * neither met damage), and once the lines were read one after another
 * (every record they crossed checked), a line read alone is the same
 * line.
 */
#include <sys/stat.h>

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "grep.h"
#include "store.h"

#define FUZZ_STORE_RUN		"20260101T000000-0badc0de"
#define FUZZ_STORE_LINES	64	/* lines read back at most */
#define FUZZ_STORE_STEPS	64	/* scan steps at most */
#define FUZZ_STORE_ABSENT	0xffff	/* a part's length: no such files */
#define FUZZ_STORE_GREP		4096	/* bytes a grep step */
#define FUZZ_STORE_ALL		8192	/* lines read one after another */

static char	fuzz_store_dir[64];

/* Remove the private store directory, at exit. */
static void
fuzz_store_cleanup(void)
{
	static const char *const files[] = {
		"meta", "idx.0", "idx.1", "out.0", "out.1", NULL
	};
	char	path[192];
	size_t	i;

	for (i = 0; files[i] != NULL; i++) {
		snprintf(path, sizeof path, "%s/runs/%s/%s", fuzz_store_dir,
		    FUZZ_STORE_RUN, files[i]);
		unlink(path);
	}
	snprintf(path, sizeof path, "%s/runs/%s", fuzz_store_dir,
	    FUZZ_STORE_RUN);
	rmdir(path);
	snprintf(path, sizeof path, "%s/runs", fuzz_store_dir);
	rmdir(path);
	rmdir(fuzz_store_dir);
}

/* Make the private store directory once; its path. */
static const char *
fuzz_store_setup(void)
{
	char	path[128];

	if (fuzz_store_dir[0] != '\0')
		return fuzz_store_dir;
	snprintf(fuzz_store_dir, sizeof fuzz_store_dir,
	    "/tmp/fuzz_store.XXXXXX");
	if (mkdtemp(fuzz_store_dir) == NULL)
		abort();
	atexit(fuzz_store_cleanup);
	snprintf(path, sizeof path, "%s/runs", fuzz_store_dir);
	if (mkdir(path, 0700) != 0)
		abort();
	snprintf(path, sizeof path, "%s/runs/%s", fuzz_store_dir,
	    FUZZ_STORE_RUN);
	if (mkdir(path, 0700) != 0)
		abort();
	return fuzz_store_dir;
}

/* Replace a file of the run with len bytes of data (NULL: remove it). */
static void
fuzz_store_put(const char *name, const uint8_t *data, size_t len)
{
	char	path[192];
	int	fd;

	snprintf(path, sizeof path, "%s/runs/%s/%s", fuzz_store_dir,
	    FUZZ_STORE_RUN, name);
	if (data == NULL) {
		unlink(path);
		return;
	}
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600)) == -1)
		abort();
	if (len > 0 && write(fd, data, len) != (ssize_t)len)
		abort();
	close(fd);
}

/*
 * Take the next part of the input: a 16-bit length, then its bytes; NULL
 * for FUZZ_STORE_ABSENT.
 */
static const uint8_t *
fuzz_store_part(const uint8_t **data, size_t *size, size_t *len)
{
	const uint8_t	*p;

	if (*size < 2) {
		*len = 0;
		return *data;
	}
	*len = (size_t)(*data)[0] | (size_t)(*data)[1] << 8;
	*data += 2;
	*size -= 2;
	if (*len == FUZZ_STORE_ABSENT) {
		*len = 0;
		return NULL;
	}
	if (*len > *size)
		*len = *size;
	p = *data;
	*data += *len;
	*size -= *len;
	return p;
}

/* Abort unless the lines read back keep the promises of the header. */
static void
fuzz_store_lines(const struct store_line *l, int n, int64_t from, int64_t to)
{
	int	i;

	if (n < 0 || n > to - from)
		abort();
	for (i = 0; i < n; i++) {
		if (l[i].text == NULL || strlen(l[i].text) > l[i].len ||
		    l[i].no < from || l[i].no >= to ||
		    (i > 0 && l[i].no <= l[i - 1].no))
			abort();
		if (l[i].stream != STORE_TTY && l[i].stream != STORE_STDOUT &&
		    l[i].stream != STORE_STDERR)
			abort();
	}
}

/* Bytes gathered: a run's lines as they were written, or its blocks. */
struct fuzz_store_bytes {
	char	*p;
	size_t	 len;
	int64_t	 next;		/* the line the next block must start with */
};

/* Append len bytes to b. */
static void
fuzz_store_add(struct fuzz_store_bytes *b, const char *p, size_t len)
{
	char	*q;

	if ((q = realloc(b->p, b->len + len + 1)) == NULL)
		abort();
	b->p = q;
	memcpy(b->p + b->len, p, len);
	b->len += len;
}

/*
 * Gather a scan's block: the callback of store_reader_scan().  Blocks come
 * in order, each starting with the line after the last one's.
 */
static int
fuzz_store_block(int64_t first, const char *block, size_t len, void *arg)
{
	struct fuzz_store_bytes	*b = arg;
	size_t			 i;

	if (first < 0 || block == NULL || len == 0 ||
	    len > 64 * 1024 * 1024 || first != b->next)
		abort();
	fuzz_store_add(b, block, len);
	for (i = 0; i < len; i++)
		b->next += block[i] == '\n';
	b->next += block[len - 1] != '\n';
	return 0;
}

static const struct store_scan_cbs fuzz_store_scan_cbs = {
	.block = fuzz_store_block,
};

/* Check a match of the grep (text is not NUL-terminated): grep_step()'s. */
static int
fuzz_store_match(const struct grep_match *m, void *arg)
{
	(void)arg;
	if (m->line < 0 || m->text == NULL || m->so > m->eo ||
	    m->eo > m->len)
		abort();
	return 0;
}

static const struct grep_cbs fuzz_store_grep_cbs = {
	.match = fuzz_store_match,
};

/*
 * Grep the run (a plain string and a regex): every step reads or passes
 * the run over, so the search ends within a step per FUZZ_STORE_GREP
 * bytes of input, a few more for the runs themselves.
 */
static void
fuzz_store_grep(const char *dir, size_t size)
{
	static const char *const patterns[] = { "e", "^[a-z]+$" };
	char			*run = (char *)FUZZ_STORE_RUN, *cause = NULL;
	struct grep		*g;
	size_t			 k, steps;

	for (k = 0; k < sizeof patterns / sizeof patterns[0]; k++) {
		g = grep_new(dir, patterns[k], k == 0 ? 0 : GREP_EXTENDED,
		    &run, 1, &cause);
		if (g == NULL)
			abort();
		for (steps = 0; grep_step(g, FUZZ_STORE_GREP,
		    &fuzz_store_grep_cbs, NULL); steps++) {
			if (steps > size / FUZZ_STORE_GREP + 4)
				abort();	/* no progress */
		}
		grep_free(g);
	}
}

/*
 * Read the run one line after another from its first as raw bytes (each
 * line, and its '\n' unless partial) into all, and the texts of its first
 * lines (up to FUZZ_STORE_LINES); then, once all are read, on the same
 * reader read each of those alone, which must be the same.  Returns the
 * lines read.
 */
static int64_t
fuzz_store_all(struct store_reader *r, struct fuzz_store_bytes *all)
{
	struct store_line	*l, *one;
	char			*texts[FUZZ_STORE_LINES];
	int64_t			 first = store_reader_first(r), no = first;
	int64_t			 k;
	int			 n, i, m, partial = 0;

	memset(texts, 0, sizeof texts);
	while (no < store_reader_count(r) && no - first < FUZZ_STORE_ALL &&
	    !partial) {
		if (store_reader_get(r, no, no + FUZZ_STORE_LINES, STORE_RAW,
		    &l, &n) != 0 || n == 0)
			break;
		fuzz_store_lines(l, n, no, no + FUZZ_STORE_LINES);
		for (i = 0; i < n; i++) {
			if (l[i].no != no + i || partial)
				abort();	/* one after another */
			fuzz_store_add(all, l[i].text, l[i].len);
			if (!l[i].partial)
				fuzz_store_add(all, "\n", 1);
			partial = l[i].partial;
			if (no + i - first < FUZZ_STORE_LINES && !l[i].cut)
				texts[no + i - first] = strdup(l[i].text);
		}
		store_lines_free(l, n);
		no += n;
	}
	/* Every record the lines crossed was checked: alone, the same. */
	for (k = first; k < no && (no == store_reader_count(r) || partial) &&
	    k - first < FUZZ_STORE_LINES; k++) {
		if (texts[k - first] == NULL)
			continue;
		if (store_reader_get(r, k, k + 1, STORE_RAW, &one, &m) != 0 ||
		    m != 1 || strcmp(one[0].text, texts[k - first]) != 0)
			abort();
		store_lines_free(one, m);
	}
	for (i = 0; i < FUZZ_STORE_LINES; i++)
		free(texts[i]);
	return no - first;
}

/*
 * Read the run one line after another, and scan it on another reader:
 * the same bytes, one a prefix of the other, equal when neither met
 * damage.
 */
static void
fuzz_store_same(const char *dir)
{
	struct store_reader	*r, *r2;
	struct fuzz_store_bytes	 all = { NULL, 0, 0 }, scanned = { NULL, 0, 0 };
	char			*cause = NULL;
	int64_t			 next, lines;
	size_t			 n;
	int			 steps;

	if ((r = store_reader_open(dir, FUZZ_STORE_RUN, &cause)) == NULL) {
		free(cause);
		return;
	}
	if ((r2 = store_reader_open(dir, FUZZ_STORE_RUN, &cause)) == NULL)
		abort();	/* the same files */
	lines = fuzz_store_all(r, &all);
	scanned.next = store_reader_first(r2);
	next = scanned.next;
	for (steps = 0; next >= 0 && next < store_reader_count(r2) &&
	    next - store_reader_first(r2) < FUZZ_STORE_ALL &&
	    steps < FUZZ_STORE_ALL; steps++)
		next = store_reader_scan(r2, next, 4096, &fuzz_store_scan_cbs,
		    &scanned);
	if (lines < FUZZ_STORE_ALL && next - store_reader_first(r2) <
	    FUZZ_STORE_ALL) {
		n = all.len < scanned.len ? all.len : scanned.len;
		if (n > 0 && memcmp(all.p, scanned.p, n) != 0)
			abort();
		if (store_reader_damage(r) == NULL &&
		    store_reader_damage(r2) == NULL && all.len != scanned.len)
			abort();
	}
	free(all.p);
	free(scanned.p);
	store_reader_close(r);
	store_reader_close(r2);
}

/* Read the run back every way a reader can. */
static void
fuzz_store_read(const char *dir)
{
	static const int	 kinds[] = { STORE_RAW, STORE_TEXT,
	    STORE_TEXT | STORE_COLOR };
	struct store_meta	 m;
	struct store_reader	*r;
	struct store_line	*l;
	struct fuzz_store_bytes	 seen = { NULL, 0, 0 };
	char			*cause = NULL;
	int64_t			 first, count, next;
	uint64_t		 bytes;
	size_t			 k;
	int			 n, steps;

	memset(&m, 0, sizeof m);
	if (store_meta_read(dir, FUZZ_STORE_RUN, &m, &cause) == 0)
		store_meta_clear(&m);
	else if (cause == NULL || *cause == '\0')
		abort();
	free(cause);
	cause = NULL;

	if ((r = store_reader_open(dir, FUZZ_STORE_RUN, &cause)) == NULL) {
		if (cause == NULL || *cause == '\0')
			abort();
		free(cause);
		return;
	}
	store_reader_refresh(r);
	first = store_reader_first(r);
	count = store_reader_count(r);
	bytes = store_reader_bytes(r);
	if (first < 0 || count < 0 || first > count ||
	    (uint64_t)(count - first) > store_reader_bytes(r) + 1)
		abort();
	for (k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
		if (store_reader_get(r, first, first + FUZZ_STORE_LINES,
		    kinds[k], &l, &n) == 0) {
			fuzz_store_lines(l, n, first, first +
			    FUZZ_STORE_LINES);
			store_lines_free(l, n);
		}
		if (count > 2 && store_reader_get(r, count - 2, count + 5,
		    kinds[k], &l, &n) == 0) {
			fuzz_store_lines(l, n, count - 2, count + 5);
			store_lines_free(l, n);
		}
	}
	seen.next = first;
	for (next = first, steps = 0; next >= 0 && next <
	    store_reader_count(r) && steps < FUZZ_STORE_STEPS; steps++) {
		if (next != seen.next)
			seen.next = next;	/* damage cut, then on */
		next = store_reader_scan(r, next, 4096, &fuzz_store_scan_cbs,
		    &seen);
	}
	free(seen.p);
	if (store_reader_bytes(r) > bytes || store_reader_first(r) < 0 ||
	    store_reader_first(r) > store_reader_count(r))
		abort();		/* damage only cuts a run shorter */
	(void)store_reader_find_time(r, 0);
	(void)store_reader_find_time(r, INT64_MAX);
	(void)store_reader_bytes(r);
	(void)store_reader_partial(r);
	store_reader_close(r);
}

/* Write the input as a run's files and read them back. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t	*meta, *idx;
	const char	*dir = fuzz_store_setup();
	size_t		 meta_len, idx_len, out_len, half, all = size;
	const uint8_t	*out;

	meta = fuzz_store_part(&data, &size, &meta_len);
	idx = fuzz_store_part(&data, &size, &idx_len);
	out = fuzz_store_part(&data, &size, &out_len);
	fuzz_store_put("meta", meta, meta_len);
	/* The last records, if any, as a second segment's index. */
	half = idx_len / 64 * 32;
	fuzz_store_put("idx.0", idx, idx_len - half);
	fuzz_store_put("idx.1", idx == NULL ? NULL : idx + idx_len - half,
	    half);
	fuzz_store_put("out.0", out, out_len);
	fuzz_store_put("out.1", data, size);
	fuzz_store_read(dir);
	fuzz_store_same(dir);
	fuzz_store_grep(dir, all);
	return 0;
}

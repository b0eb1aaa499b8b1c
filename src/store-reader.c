/*
 * store-reader.c: a reader of any run of the store (store.h): its
 * segments found, checked and cut where damaged, and its records read.
 *
 * The reader never reads a whole file: it finds a segment by the first
 * record of each idx.N, a record by binary search with pread(), and a
 * line's start by scanning the bytes of that one record.  What it sees is
 * fixed at store_reader_refresh(), once it has checked each segment's
 * first and last records and that its out file holds their bytes; every
 * other record is checked as it is read (a block of them at a time: each
 * sane and following on from the one before; a record found by a search
 * against the bytes of the one before it; a record lines cross into
 * against the lines read).  Damage cuts the run where it is found: it is
 * read up to there, and store_reader_damage() says why and what was cut.
 * Every read asks for exactly the bytes it needs and takes fewer as
 * damage, never as a short read to go round on; a cut is kept, and
 * every cut leaves fewer bytes to read, so no loop over the data goes
 * round without moving on.  A reader goes on from where it last stopped
 * without a search, so lines read one after another are checked record
 * by record.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store-private.h"
#include "xmalloc.h"

/* pread() all of len bytes, or as many as there are; -1 on error. */
static ssize_t
store_pread(int fd, void *buf, size_t len, off_t off)
{
	size_t	got = 0;
	ssize_t	n;

	while (got < len) {
		n = pread(fd, (char *)buf + got, len - got, off + (off_t)got);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return -1;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

/* Close the segments a reader has open from index from on. */
static void
store_reader_drop_from(struct store_reader *r, int from)
{
	int	i;

	for (i = from; i < r->nsegs; i++) {
		if (r->segs[i].idx_fd != -1)
			close(r->segs[i].idx_fd);
		if (r->segs[i].out_fd != -1)
			close(r->segs[i].out_fd);
	}
	if (from < r->nsegs)
		r->nsegs = from;
	if (r->cache_seg >= r->nsegs)
		r->cache_seg = -1;
}

/* Close the segments a reader has open. */
static void
store_reader_drop(struct store_reader *r)
{
	store_reader_drop_from(r, 0);
	free(r->segs);
	r->segs = NULL;
	r->nsegs = 0;
	r->cache_seg = -1;
	r->win_len = 0;
}

/* Order segment numbers. */
static int
store_cmp_seg(const void *a, const void *b)
{
	int64_t	x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * List the numbers of the run's idx.N files, sorted: only names the
 * writer makes (no sign, no leading zero) and numbers whose segment's
 * offsets fit in 64 bits; -1 with errno if the directory cannot be read.
 */
static int
store_reader_list(struct store_reader *r, int64_t **nos, int *count)
{
	DIR		*d;
	struct dirent	*de;
	char		*end, name[32];
	long long	 v;
	int		 fd, n = 0, alloc = 0, error;

	*nos = NULL;
	*count = 0;
	fd = openat(r->dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd == -1 || (d = fdopendir(fd)) == NULL) {
		error = errno;
		if (fd != -1)
			close(fd);
		errno = error;
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, "idx.", 4) != 0 ||
		    de->d_name[4] < '0' || de->d_name[4] > '9')
			continue;
		errno = 0;
		v = strtoll(de->d_name + 4, &end, 10);
		if (*end != '\0' || errno != 0 ||
		    v >= INT64_MAX / r->seg - 1)
			continue;
		snprintf(name, sizeof name, "idx.%lld", v);
		if (strcmp(name, de->d_name) != 0)
			continue;	/* idx.01: not the writer's */
		if (n == alloc) {
			alloc = alloc == 0 ? 8 : alloc * 2;
			*nos = xreallocarray(*nos, (size_t)alloc, sizeof **nos);
		}
		(*nos)[n++] = v;
	}
	closedir(d);
	if (n > 0)
		qsort(*nos, (size_t)n, sizeof **nos, store_cmp_seg);
	*count = n;
	return 0;
}

/*
 * Return 1 if a record can be one the writer wrote in segment sg: its
 * bytes inside the segment, at most STORE_CHUNK_MAX of them, a line
 * number no greater than its offset (every line before it took a byte at
 * least) and a stream there is.
 */
static int
store_rec_sane(const struct store_reader *r, const struct store_seg *sg,
    const struct store_rec *rec)
{
	uint64_t	start = (uint64_t)sg->no * (uint64_t)r->seg;

	return rec->len > 0 && rec->len <= STORE_CHUNK_MAX &&
	    rec->off >= start && rec->off - start + rec->len <=
	    (uint64_t)r->seg && rec->line <= rec->off &&
	    rec->stream <= STORE_STDERR;
}

/*
 * Return 1 if record rec can come right after record p: its bytes follow
 * on from p's, and its line is p's plus the newlines p's bytes can hold
 * (a line started at rec when p ended one: one at least; else p's last
 * byte is not one).
 */
static int
store_rec_follows(const struct store_rec *p, const struct store_rec *rec)
{
	uint64_t	d;

	if (rec->off != p->off + p->len || rec->line < p->line)
		return 0;
	d = rec->line - p->line;
	return rec->starts ? d >= 1 && d <= p->len : d < p->len;
}

/*
 * Read record k of segment sg straight from its index (no cache): 0 if it
 * can be one the writer wrote there (store_rec_sane()), else -1.
 */
static int
store_reader_pread_rec(const struct store_reader *r,
    const struct store_seg *sg, int64_t k, struct store_rec *rec)
{
	if (k < 0 || store_pread(sg->idx_fd, rec, sizeof *rec, (off_t)k *
	    (off_t)sizeof *rec) != (ssize_t)sizeof *rec)
		return -1;
	return store_rec_sane(r, sg, rec) ? 0 : -1;
}

/*
 * Take note that the run is damaged from record k of segment no on, for
 * why (a new string, taken): kept when it is the earliest damage known.
 */
static void
store_reader_damaged(struct store_reader *r, int64_t no, int64_t k,
    char *why)
{
	if (r->why == NULL || no < r->cut_no || (no == r->cut_no &&
	    k < r->cut_rec)) {
		free(r->why);
		r->why = why;
		r->cut_no = no;
		r->cut_rec = k;
	} else
		free(why);
}

/*
 * Cut the run at record k of segment index s (store_reader_damaged()):
 * that record and every one after it are read no more.  Its ends are
 * worked out again by store_reader_ends(), which must follow.
 */
void
store_reader_trim(struct store_reader *r, int s, int64_t k, char *why)
{
	struct store_seg	*sg = &r->segs[s];

	store_reader_damaged(r, sg->no, k, why);
	store_reader_drop_from(r, s + 1);
	if (k < sg->nrec)
		sg->nrec = k;
	if (r->cache_seg == s && r->cache_base + r->cache_n > k) {
		if (k > r->cache_base)
			r->cache_n = (int)(k - r->cache_base);
		else
			r->cache_seg = -1;
	}
	r->win_len = 0;
}

/*
 * Return how many of segment s's first records hang together: each sane,
 * at or after its first record in offset and in line (a line takes a
 * byte at least) and with its bytes within the first size bytes of its
 * out file.  A binary search: the records that do not are taken to be a
 * tail (a crash's zeros, a file cut short); those in the middle are found
 * as they are read.
 */
static int64_t
store_reader_holds(const struct store_reader *r, int s, uint64_t size)
{
	const struct store_seg	*sg = &r->segs[s];
	const struct store_rec	*f = &sg->first;
	struct store_rec	 rec;
	uint64_t		 start = (uint64_t)sg->no * (uint64_t)r->seg;
	int64_t			 lo, hi, m;
	int			 ok;

	lo = -1;
	hi = sg->nrec;
	while (hi - lo > 1) {
		/* The last first: a whole segment costs one read. */
		m = hi == sg->nrec && lo == -1 ? hi - 1 : lo + (hi - lo) / 2;
		ok = store_reader_pread_rec(r, sg, m, &rec) == 0 &&
		    rec.off >= f->off && rec.line >= f->line &&
		    rec.line - f->line <= rec.off - f->off &&
		    rec.off + rec.len - start <= size;
		if (ok)
			lo = m;
		else
			hi = m;
	}
	return lo + 1;
}

/*
 * Out file bytes [in, ...) of segment s could not be read (got: what
 * store_pread() gave, -1 with errno): cut the run before the first
 * record they do not hold (a file cut short), or before the whole
 * segment (an I/O error).  store_reader_ends() must follow.
 */
static void
store_reader_out_failed(struct store_reader *r, int s, uint64_t in,
    ssize_t got)
{
	struct store_seg	*sg = &r->segs[s];
	struct stat		 sb;
	uint64_t		 start = (uint64_t)sg->no * (uint64_t)r->seg;
	uint64_t		 size, end;
	int64_t			 k;
	int			 error = errno;

	if (got < 0) {
		store_reader_trim(r, s, 0, xprintf("out.%lld: %s",
		    (long long)sg->no, strerror(error)));
		return;
	}
	size = in + (uint64_t)got;
	if (fstat(sg->out_fd, &sb) == 0 && (uint64_t)sb.st_size < size)
		size = (uint64_t)sb.st_size;
	k = store_reader_holds(r, s, size);
	if (k >= sg->nrec)
		k = sg->nrec - 1;	/* it said so, but gave less */
	end = sg->last.off + sg->last.len - start;
	store_reader_trim(r, s, k, xprintf("out.%lld holds %llu bytes, its "
	    "index %llu", (long long)sg->no, (unsigned long long)size,
	    (unsigned long long)end));
}

/*
 * Read the bytes of record rec of segment s into a new buffer; NULL when
 * they cannot be read (the run is cut before them: store_reader_ends()
 * must follow).
 */
static char *
store_reader_rec_bytes(struct store_reader *r, int s,
    const struct store_rec *rec)
{
	uint64_t	 start = (uint64_t)r->segs[s].no * (uint64_t)r->seg;
	ssize_t		 got;
	char		*buf;

	buf = xmalloc(rec->len);
	got = store_pread(r->segs[s].out_fd, buf, rec->len,
	    (off_t)(rec->off - start));
	if (got == (ssize_t)rec->len)
		return buf;
	free(buf);
	store_reader_out_failed(r, s, rec->off - start, got);
	return NULL;
}

/*
 * Work out the run's first line, line count, partial last line and bytes
 * from its last record, whose bytes are read for the lines they end, and
 * which is checked against the record before it (its line is that one's
 * and the lines its bytes end), so a count is never made of a forged
 * line number.  A last record or bytes that cannot be read, or that do
 * not follow on, cut the run before them, and the one before is tried.
 */
void
store_reader_ends(struct store_reader *r)
{
	struct store_seg	*sg;
	struct store_rec	 p;
	int64_t			 k;
	size_t			 nl;
	char			*buf;
	int			 f, l, ps, ok;

	for (;;) {
		for (f = 0; f < r->nsegs && r->segs[f].nrec == 0; f++)
			;
		for (l = r->nsegs - 1; l > f && r->segs[l].nrec == 0; l--)
			;
		if (f == r->nsegs) {
			r->first = r->count = 0;
			r->partial = 0;
			r->bytes = 0;
			return;
		}
		sg = &r->segs[l];
		if (store_reader_pread_rec(r, sg, sg->nrec - 1, &sg->last) !=
		    0) {
			k = store_reader_holds(r, l, UINT64_MAX);
			if (k >= sg->nrec)
				k = sg->nrec - 1;
			store_reader_trim(r, l, k, xprintf("idx.%lld holds a "
			    "record the store did not write",
			    (long long)sg->no));
			continue;
		}
		/* The record before it, and what its bytes end. */
		ps = sg->nrec > 1 ? l : l - 1;
		if (ps >= f) {
			ok = ps == l ? store_reader_pread_rec(r, sg,
			    sg->nrec - 2, &p) == 0 : 1;
			if (ps < l)
				p = r->segs[ps].last;
			if (!ok || (buf = store_reader_rec_bytes(r, ps,
			    &p)) == NULL) {
				if (!ok)
					store_reader_trim(r, l, sg->nrec - 1,
					    xprintf("idx.%lld holds a record "
					    "the store did not write",
					    (long long)sg->no));
				continue;
			}
			nl = store_count_nl(buf, p.len);
			ok = sg->last.line - p.line == nl && sg->last.starts ==
			    (buf[p.len - 1] == '\n');
			free(buf);
			if (!ok) {
				store_reader_trim(r, l, sg->nrec - 1,
				    xprintf("idx.%lld record %lld says line "
				    "%llu, the output before it ends line %llu",
				    (long long)sg->no,
				    (long long)(sg->nrec - 1),
				    (unsigned long long)sg->last.line + 1,
				    (unsigned long long)(p.line + nl)));
				continue;
			}
		}
		if ((buf = store_reader_rec_bytes(r, l, &sg->last)) == NULL)
			continue;
		r->partial = buf[sg->last.len - 1] != '\n';
		r->count = (int64_t)sg->last.line +
		    (int64_t)store_count_nl(buf, sg->last.len) + r->partial;
		free(buf);
		r->bytes = sg->last.off + sg->last.len;
		r->first = (int64_t)r->segs[f].first.line +
		    (r->segs[f].first.starts ? 0 : 1);
		if (r->first > r->count)
			r->first = r->count;
		return;
	}
}

/*
 * Read record i of segment s through a small cache that reads a block of
 * records at once and checks each as it comes: sane, inside its segment's
 * first and last, and following on from the record before it.  The first
 * that is not cuts the run there.  -1 when the record is not read (cut,
 * now or before).
 */
int
store_reader_rec(struct store_reader *r, int s, int64_t i,
    struct store_rec *rec)
{
	struct store_rec	 buf[STORE_REC_BLOCK + 1], *p;
	struct store_seg	*sg;
	int64_t			 base, want, k, got, have;
	ssize_t			 n;
	char			*why = NULL;

	if (s < 0 || s >= r->nsegs || i < 0 || i >= r->segs[s].nrec)
		return -1;
	if (r->cache_seg == s && i >= r->cache_base &&
	    i < r->cache_base + r->cache_n) {
		*rec = r->cache[i - r->cache_base];
		return 0;
	}
	sg = &r->segs[s];
	base = i / STORE_REC_BLOCK * STORE_REC_BLOCK;
	want = sg->nrec - base;
	if (want > STORE_REC_BLOCK)
		want = STORE_REC_BLOCK;
	have = base > 0;	/* the record before, to follow on from */
	n = store_pread(sg->idx_fd, buf, (size_t)(want + have) * sizeof *buf,
	    (off_t)(base - have) * (off_t)sizeof *buf);
	got = n < 0 ? 0 : n / (ssize_t)sizeof *buf;
	r->cache_seg = -1;
	for (k = 0; k < want; k++) {
		p = &buf[have + k];
		if (have + k >= got) {
			why = xprintf("idx.%lld cannot be read at record %lld",
			    (long long)sg->no, (long long)(base + k));
			break;
		}
		if (!store_rec_sane(r, sg, p) || p->off < sg->first.off ||
		    p->off + p->len > sg->last.off + sg->last.len) {
			why = xprintf("idx.%lld holds a record the store did "
			    "not write (record %lld)", (long long)sg->no,
			    (long long)(base + k));
			break;
		}
		if (have + k > 0 && !store_rec_follows(p - 1, p)) {
			why = xprintf("idx.%lld record %lld does not follow on "
			    "from the one before", (long long)sg->no,
			    (long long)(base + k));
			break;
		}
	}
	if (k > 0) {
		memcpy(r->cache, buf + have, (size_t)k * sizeof *buf);
		r->cache_seg = s;
		r->cache_base = base;
		r->cache_n = (int)k;
	}
	if (why != NULL) {
		store_reader_trim(r, s, base + k, why);
		store_reader_ends(r);
	}
	if (r->cache_seg != s || i < r->cache_base ||
	    i >= r->cache_base + r->cache_n)
		return -1;
	*rec = r->cache[i - r->cache_base];
	return 0;
}

/*
 * Read exactly len bytes at global offset off from the segments' out
 * files into buf: 0, or -1 when any of them is not there.  Every caller
 * asks for bytes its records cover, so a short read is damage, never the
 * end: the run is cut before the bytes that went missing.
 */
int
store_reader_read(struct store_reader *r, uint64_t off, char *buf,
    size_t len)
{
	struct store_seg	*sg;
	uint64_t		 no, in;
	size_t			 want;
	ssize_t			 got;

	if (off > r->bytes || len > r->bytes - off)
		return -1;	/* cut meanwhile */
	while (len > 0) {
		no = off / (uint64_t)r->seg;
		if (r->nsegs == 0 || no < (uint64_t)r->segs[0].no ||
		    no - (uint64_t)r->segs[0].no >= (uint64_t)r->nsegs)
			return -1;
		sg = &r->segs[no - (uint64_t)r->segs[0].no];
		in = off - no * (uint64_t)r->seg;
		want = len;
		if (want > (uint64_t)r->seg - in)
			want = (size_t)((uint64_t)r->seg - in);
		got = store_pread(sg->out_fd, buf, want, (off_t)in);
		if (got != (ssize_t)want) {
			store_reader_out_failed(r, (int)(sg - r->segs), in,
			    got);
			store_reader_ends(r);
			return -1;
		}
		buf += want;
		off += want;
		len -= want;
	}
	return 0;
}

/*
 * Open segment no's idx and out files (regular files only) into sg; -1
 * with errno and *why ("idx.N: why").
 */
static int
store_reader_segment(struct store_reader *r, int64_t no,
    struct store_seg *sg, char **why)
{
	struct stat	sb;
	char		name[32];
	int		error;

	memset(sg, 0, sizeof *sg);
	sg->no = no;
	sg->out_fd = -1;
	snprintf(name, sizeof name, "idx.%lld", (long long)no);
	sg->idx_fd = store_open_file(r->dir_fd, name, O_RDONLY, 0);
	if (sg->idx_fd == -1 || fstat(sg->idx_fd, &sb) != 0)
		goto fail;
	sg->nrec = sb.st_size / (off_t)sizeof(struct store_rec);
	snprintf(name, sizeof name, "out.%lld", (long long)no);
	sg->out_fd = store_open_file(r->dir_fd, name, O_RDONLY, 0);
	if (sg->out_fd == -1)
		goto fail;
	return 0;

fail:
	error = errno;
	*why = xprintf("%s: %s", name, store_strerror(error));
	if (sg->idx_fd != -1)
		close(sg->idx_fd);
	if (sg->out_fd != -1)
		close(sg->out_fd);
	sg->idx_fd = sg->out_fd = -1;
	errno = error;
	return -1;
}

/*
 * Check segment s as it is opened: its first record at the segment's
 * first byte (and segment 0's at line 0) and following on from the
 * segment before; its records hanging together from the first to the
 * last; its out file holding their bytes; and a segment before another
 * ending where that one starts.  Damage cuts the run where it starts:
 * returns 0 when the segments after it may be checked, -1 when the run
 * ends here.
 */
static int
store_reader_check(struct store_reader *r, int s)
{
	struct store_seg	*sg = &r->segs[s];
	const struct store_seg	*prev = s > 0 ? &r->segs[s - 1] : NULL;
	const struct store_rec	*f = &sg->first, *p;
	struct stat		 sb;
	uint64_t		 start = (uint64_t)sg->no * (uint64_t)r->seg;
	uint64_t		 end;
	int64_t			 k;

	if (store_reader_pread_rec(r, sg, 0, &sg->first) != 0 ||
	    f->off != start || (sg->no == 0 && (f->line != 0 || !f->starts))) {
		store_reader_trim(r, s, 0, xprintf("idx.%lld holds a record "
		    "the store did not write", (long long)sg->no));
		return -1;
	}
	p = prev != NULL ? &prev->last : NULL;
	if (p != NULL && !store_rec_follows(p, f)) {
		store_reader_trim(r, s, 0, xprintf("idx.%lld does not follow "
		    "on from idx.%lld", (long long)sg->no,
		    (long long)prev->no));
		return -1;
	}
	k = store_reader_holds(r, s, UINT64_MAX);
	if (k < sg->nrec) {
		store_reader_trim(r, s, k, xprintf(store_reader_pread_rec(r,
		    sg, k, &sg->last) == 0 ? "the records of idx.%lld are out "
		    "of order (record %lld)" : "idx.%lld holds a record the "
		    "store did not write (record %lld)", (long long)sg->no,
		    (long long)k));
		return -1;
	}
	if (store_reader_pread_rec(r, sg, sg->nrec - 1, &sg->last) != 0) {
		/* It changed since it was read a moment ago. */
		store_reader_trim(r, s, sg->nrec - 1, xprintf("idx.%lld cannot "
		    "be read", (long long)sg->no));
		return -1;
	}
	end = sg->last.off + sg->last.len - start;
	if (fstat(sg->out_fd, &sb) != 0) {
		store_reader_out_failed(r, s, 0, -1);
		return -1;
	}
	if ((uint64_t)sb.st_size < end) {
		store_reader_out_failed(r, s, 0, (ssize_t)sb.st_size);
		return -1;
	}
	if (s + 1 < r->nsegs && end != (uint64_t)r->seg) {
		store_reader_trim(r, s + 1, 0, xprintf("idx.%lld ends %llu "
		    "bytes before its segment does", (long long)sg->no,
		    (unsigned long long)((uint64_t)r->seg - end)));
		return -1;
	}
	return 0;
}

/* Forget what a reader saw: no segments, no lines. */
static void
store_reader_empty(struct store_reader *r)
{
	store_reader_drop(r);
	r->first = r->count = 0;
	r->partial = 0;
	r->bytes = 0;
}

/*
 * A run none of which can be read (no index, a directory that cannot be
 * read) for why (taken): no segments, no lines.
 */
static int
store_reader_lost(struct store_reader *r, char *why)
{
	store_reader_empty(r);
	free(r->why);
	r->why = why;
	r->cut_no = INT64_MIN;	/* forgotten once segments are there */
	r->cut_rec = 0;
	return -1;
}

/*
 * Apply the cut found before to the segments just opened: forgotten when
 * its segment is no longer kept (the cap removed it and what was
 * damaged), else nothing read from it on.
 */
static void
store_reader_recut(struct store_reader *r)
{
	int	s;

	if (r->why == NULL || r->nsegs == 0)
		return;
	if (r->cut_no < r->segs[0].no) {
		free(r->why);
		r->why = NULL;
		return;
	}
	for (s = 0; s < r->nsegs; s++) {
		if (r->segs[s].no > r->cut_no) {
			store_reader_drop_from(r, s);
			return;
		}
		if (r->segs[s].no == r->cut_no) {
			if (r->cut_rec < r->segs[s].nrec)
				r->segs[s].nrec = r->cut_rec;
			store_reader_drop_from(r, s + 1);
			return;
		}
	}
}

/*
 * See the run as it is now: open its segments (the newest consecutive
 * ones; an older one removed meanwhile by the cap drops it and those
 * before it), check each one's first and last records as it comes, and
 * work out its first line, line count and bytes.  A damaged run is read
 * up to its damage (r->why says why, store_reader_damage() what was cut),
 * and a damage found before stays.  -1 when none of it can be read (no
 * index, a directory that cannot be read), r->why set.
 */
static int
store_reader_load(struct store_reader *r)
{
	struct store_seg	*sg;
	struct store_rec	 rec;
	int64_t			*nos;
	char			*why = NULL;
	int			 count, lo, i, s, k;

	store_reader_empty(r);
	if (store_reader_list(r, &nos, &count) != 0)
		return store_reader_lost(r, xprintf("its directory cannot be "
		    "read: %s", strerror(errno)));
	if (count == 0)
		return store_reader_lost(r, xstrdup("it has no index (idx.N)"));
	for (lo = count - 1; lo > 0 && nos[lo - 1] == nos[lo] - 1; lo--)
		;
	r->segs = xcalloc((size_t)(count - lo), sizeof *r->segs);
	for (i = lo; i < count; i++) {
		if (store_reader_segment(r, nos[i], &r->segs[r->nsegs],
		    &why) == 0) {
			r->nsegs++;
			continue;
		}
		if (i == count - 1 || errno != ENOENT)
			break;
		/* The cap removed it meanwhile: the older ones go too. */
		free(why);
		why = NULL;
		store_reader_drop_from(r, 0);
	}
	/* What the newest index says was written, to tell what is cut. */
	sg = &r->segs[r->nsegs > 0 ? r->nsegs - 1 : 0];
	if (i == count && r->nsegs > 0 && sg->nrec > 0 &&
	    store_reader_pread_rec(r, sg, sg->nrec - 1, &rec) == 0)
		r->written = rec.off + rec.len;
	if (why != NULL) {
		/* Read up to the segment that cannot be opened. */
		store_reader_damaged(r, nos[i], 0, why);
	}
	free(nos);
	store_reader_recut(r);

	/* Empty segments only at the end: the writer's newest, say. */
	for (s = 0; s < r->nsegs; s++) {
		if (r->segs[s].nrec == 0) {
			for (k = s + 1; k < r->nsegs; k++) {
				if (r->segs[k].nrec > 0)
					break;
			}
			if (k < r->nsegs)
				store_reader_trim(r, s, 0, xprintf("idx.%lld "
				    "is empty", (long long)r->segs[s].no));
			break;
		}
		if (store_reader_check(r, s) != 0)
			break;
	}
	store_reader_ends(r);
	if (r->nsegs == 0 && r->why == NULL)
		return store_reader_lost(r, xstrdup("it has no index (idx.N)"));
	return 0;
}

/*
 * See the run as it is now (store_reader_load()): 0, or -1 when it is
 * damaged, and then it is read up to the damage (store_reader_damage()).
 */
int
store_reader_refresh(struct store_reader *r)
{
	store_reader_load(r);
	return r->why == NULL ? 0 : -1;
}

/*
 * Open a reader on run of the store at dir (any deck's, live or not);
 * NULL with *cause when it cannot be read: "runs/RUN is damaged: why" for
 * a damaged run none of whose lines can be read.  A damaged run some of
 * whose lines can be is opened, read up to the damage.
 */
struct store_reader *
store_reader_open(const char *dir, const char *run, char **cause)
{
	struct store_reader	*r;
	struct store_meta	 m;
	int64_t			 seg;
	int			 fd;

	if ((fd = store_open_run(dir, run, cause)) == -1)
		return NULL;
	if (store_meta_load(fd, run, &m, &seg, cause) != 0) {
		close(fd);
		return NULL;
	}
	store_meta_clear(&m);
	if (seg == 0) {
		*cause = xprintf("runs/%s/meta: no segment size", run);
		close(fd);
		return NULL;
	}
	r = xcalloc(1, sizeof *r);
	memcpy(r->run, run, sizeof r->run);
	r->dir_fd = fd;
	r->seg = seg;
	r->cache_seg = -1;
	r->at_line = r->at_no = -1;
	if (store_reader_load(r) != 0 || (r->why != NULL &&
	    r->count == r->first)) {
		*cause = xprintf("runs/%s is damaged: %s", run, r->why);
		store_reader_close(r);
		return NULL;
	}
	return r;
}

/* Close a reader. */
void
store_reader_close(struct store_reader *r)
{
	if (r == NULL)
		return;
	store_reader_drop(r);
	close(r->dir_fd);
	free(r->why);
	free(r->text);
	free(r->win);
	free(r->block);
	free(r);
}

/* Return the first line still kept (the lines before were dropped). */
int64_t
store_reader_first(const struct store_reader *r)
{
	return r->first;
}

/* Return the number of lines, a partial last line included. */
int64_t
store_reader_count(const struct store_reader *r)
{
	return r->count;
}

/* Return 1 if the last line has no '\n' yet. */
int
store_reader_partial(const struct store_reader *r)
{
	return r->partial;
}

/*
 * Tell the times of the first and last writes the reader holds in *first
 * and *last (wall ms, from the index in memory: nothing is read); 0, or
 * -1 when it holds none.
 */
int
store_reader_times(const struct store_reader *r, int64_t *first,
    int64_t *last)
{
	int	f, l;

	for (f = 0; f < r->nsegs && r->segs[f].nrec == 0; f++)
		;
	for (l = r->nsegs - 1; l >= f && r->segs[l].nrec == 0; l--)
		;
	if (f >= r->nsegs || l < f)
		return -1;
	*first = r->segs[f].first.time;
	*last = r->segs[l].last.time;
	return 0;
}

/* Return the end of the run's output the reader covers (dropped bytes too). */
uint64_t
store_reader_bytes(const struct store_reader *r)
{
	return r->bytes;
}

/*
 * Return what damage does to the run, or NULL while it reads whole:
 * "runs/RUN is damaged: why; cut after line N (B bytes after it cannot be
 * read)", where line N is the last one read (B when its index says).
 * Valid until the next call on r.
 */
const char *
store_reader_damage(struct store_reader *r)
{
	char	bytes[64];

	if (r->why == NULL)
		return NULL;
	free(r->text);
	bytes[0] = '\0';
	if (r->written > r->bytes)
		snprintf(bytes, sizeof bytes, " (%llu bytes after it cannot "
		    "be read)", (unsigned long long)(r->written - r->bytes));
	if (r->count > r->first)
		r->text = xprintf("runs/%s is damaged: %s; cut after line %lld"
		    "%s", r->run, r->why, (long long)r->count, bytes);
	else
		r->text = xprintf("runs/%s is damaged: %s; none of its lines "
		    "can be read", r->run, r->why);
	return r->text;
}

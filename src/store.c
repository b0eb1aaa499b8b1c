/*
 * store.c: the output store's directory, the writer of a run and the
 * reader of any run.
 *
 * The writer appends each piece of output to out.N and one 32-byte
 * record to idx.N, with one write(2) each and no buffering (on split
 * pipes, each stream's unfinished line is held back first).  A piece that
 * crosses a segment boundary is cut there, so every record of idx.N lies
 * in out.N.  The first write error stops the run's writing for good and
 * says why (store_run_error()); the meta is still updated after it.
 *
 * The reader never reads a whole file: it finds a segment by the first
 * record of each idx.N, a record by binary search with pread(), and a
 * line's start by scanning the bytes of that one record.  What it sees is
 * fixed at store_reader_refresh(): the bytes its records cover, once it
 * has checked each segment's first and last records and that its out
 * file holds them.  Every read asks for exactly the bytes it needs and
 * fails on fewer, so bytes that went missing since are an error, never a
 * short read to go round on.
 */
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "entropy.h"
#include "rawtext.h"
#include "store-private.h"
#include "xmalloc.h"

#define STORE_SEG_MIN		(64 * 1024)	/* smallest segment */
#define STORE_SEG_ALIGN		4096		/* segments are pages */
#define STORE_SCAN_BLOCK	(1024 * 1024)	/* bytes scanned at once */
#define STORE_SCAN_MIN		4096		/* a scan reads at least */
#define STORE_REC_BLOCK		64		/* records read at once */
#define STORE_ID_TRIES		16		/* fresh ids tried on EEXIST */

/* One index record: one write (or one piece of it), 32 bytes on disk. */
struct store_rec {
	uint64_t	off;		/* global offset of its first byte */
	uint64_t	line;		/* the line its first byte belongs to */
	int64_t		time;		/* wall ms */
	uint32_t	len;		/* bytes */
	uint8_t		stream;		/* enum store_stream */
	uint8_t		starts;		/* a line starts at off */
	uint8_t		pad[2];
};
_Static_assert(sizeof(struct store_rec) == 32, "an index record is 32 bytes");

/* A stream's unfinished line, held back on split pipes. */
struct store_held {
	char		*buf;		/* STORE_CHUNK_MAX, once used */
	size_t		 len;
	int64_t		 time;		/* when its first byte came */
};

struct store_run {
	char		 id[STORE_ID_LEN + 1];
	char		 deck[STORE_ID_LEN + 1];
	int		 dir_fd;	/* runs/RUN */
	int		 out_fd;	/* out.segno, -1 after an error */
	int		 idx_fd;
	int64_t		 seg;		/* segment size */
	int64_t		 keep;		/* segments kept */
	int64_t		 segno;		/* the segment being written */
	int64_t		 oldest;	/* the oldest segment not removed */
	uint64_t	 off;		/* bytes written */
	uint64_t	 line;		/* '\n's written */
	int		 at_start;	/* the next byte starts a line */
	struct store_held held[2];	/* STORE_STDOUT, STORE_STDERR */
	char		*error;
};

/* One segment a reader sees. */
struct store_seg {
	int64_t		 no;
	int		 idx_fd;
	int		 out_fd;
	int64_t		 nrec;
	uint64_t	 out_size;	/* bytes in out.no */
	struct store_rec first;		/* its first record, if nrec > 0 */
	struct store_rec last;		/* its last record, if nrec > 0 */
};

struct store_reader {
	char		 run[STORE_ID_LEN + 1];
	int		 dir_fd;
	int64_t		 seg;		/* segment size, from meta */
	struct store_seg *segs;		/* oldest first, consecutive */
	int		 nsegs;
	int64_t		 first;
	int64_t		 count;
	int		 partial;
	uint64_t	 bytes;		/* end of the bytes records cover */

	int		 cache_seg;	/* records cached: segs[cache_seg] */
	int64_t		 cache_base;	/* ... from this one */
	int		 cache_n;
	struct store_rec cache[STORE_REC_BLOCK];

	char		*win;		/* STORE_CHUNK_MAX bytes of output */
	uint64_t	 win_off;
	size_t		 win_len;
	char		*block;		/* store_reader_scan()'s buffer */
};

/* Return the segment size for a per-run cap. */
int64_t
store_segment_size(int64_t max_run_bytes)
{
	int64_t	seg = max_run_bytes / 4;

	if (seg < STORE_SEG_MIN)
		seg = STORE_SEG_MIN;
	return (seg + STORE_SEG_ALIGN - 1) / STORE_SEG_ALIGN * STORE_SEG_ALIGN;
}

/* Return how many segments a run keeps under its cap. */
static int64_t
store_segment_keep(int64_t max_run_bytes, int64_t seg)
{
	int64_t	keep = (max_run_bytes + seg - 1) / seg;

	return keep < 1 ? 1 : keep;
}

/* Return 32 random bits: the kernel's (entropy.h), else time and pid. */
static uint32_t
store_random(void)
{
	struct timespec	ts;
	uint32_t	r, x;

	if (entropy_fill(&r, sizeof r) == 0)
		return r;
	clock_gettime(CLOCK_REALTIME, &ts);
	x = (uint32_t)ts.tv_nsec ^ (uint32_t)ts.tv_sec * 2654435761u ^
	    (uint32_t)getpid() << 16;
	x ^= x >> 15;
	x *= 0x2c1b3c6du;
	x ^= x >> 12;
	return x;
}

/*
 * Make a new id, YYYYMMDDTHHMMSS-XXXXXXXX, in id (STORE_ID_LEN + 1): the
 * UTC second, then the millisecond in the first three hex digits and 20
 * random bits, so ids sort by age to the millisecond.
 */
void
store_id_new(char *id)
{
	struct timespec	ts;
	struct tm	tm;
	time_t		now;
	char		stamp[32], hex[16];

	clock_gettime(CLOCK_REALTIME, &ts);
	now = ts.tv_sec;
	gmtime_r(&now, &tm);
	if (strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%S", &tm) != 15)
		memcpy(stamp, "99991231T235959", 16);
	snprintf(hex, sizeof hex, "%03x%05x", (unsigned)(ts.tv_nsec /
	    1000000), (unsigned)store_random() & 0xfffff);
	memcpy(id, stamp, 15);
	id[15] = '-';
	memcpy(id + 16, hex, 8);
	id[STORE_ID_LEN] = '\0';
}

/* Return 1 if id has exactly the shape of a run or deck id. */
int
store_id_valid(const char *id)
{
	int	i;
	char	c;

	for (i = 0; i < STORE_ID_LEN; i++) {
		c = id[i];
		if (i == 8) {
			if (c != 'T')
				return 0;
		} else if (i == 15) {
			if (c != '-')
				return 0;
		} else if (i < 15) {
			if (c < '0' || c > '9')
				return 0;
		} else if ((c < '0' || c > '9') && (c < 'a' || c > 'f'))
			return 0;
	}
	return id[STORE_ID_LEN] == '\0';
}

/*
 * Create dir and its missing parents with mode 0700, like mkdir -p; the
 * final directory must be this user's and not writable by others.
 */
int
store_make_dir(const char *dir, char **cause)
{
	struct stat	 sb;
	char		*copy, *p;
	int		 last, error;

	copy = xstrdup(dir);
	p = copy;
	for (;;) {
		while (*p == '/')
			p++;
		while (*p != '\0' && *p != '/')
			p++;
		last = (*p == '\0' || p[strspn(p, "/")] == '\0');
		*p = '\0';
		/* An existing directory may still fail (EROFS, EACCES). */
		if (mkdir(copy, 0700) != 0 && (error = errno) != EEXIST &&
		    (stat(copy, &sb) != 0 || !S_ISDIR(sb.st_mode))) {
			*cause = xprintf("%s: %s", copy, strerror(error));
			free(copy);
			return -1;
		}
		if (last)
			break;
		*p++ = '/';
	}
	free(copy);

	if (stat(dir, &sb) != 0) {
		*cause = xprintf("%s: %s", dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(sb.st_mode)) {
		*cause = xprintf("%s: %s", dir, strerror(ENOTDIR));
		return -1;
	}
	if (sb.st_uid != geteuid()) {
		*cause = xprintf("%s: not owned by this user", dir);
		return -1;
	}
	/* Others could swap a file for a link to a file of ours. */
	if (sb.st_mode & (S_IWGRP | S_IWOTH)) {
		*cause = xprintf("%s: writable by group or others (mode %04o)",
		    dir, (unsigned)(sb.st_mode & 07777));
		return -1;
	}
	return 0;
}

/*
 * Return a new string: the default store directory for this user,
 * $XDG_STATE_HOME/jobdeck (an absolute value only), else
 * $HOME/.local/state/jobdeck, else /tmp/jobdeck-UID/state.
 */
char *
store_default_dir(void)
{
	const char	*v;
	size_t		 len;

	if ((v = getenv("XDG_STATE_HOME")) != NULL && v[0] == '/') {
		len = strlen(v);
		while (len > 1 && v[len - 1] == '/')
			len--;
		if (len == 1)
			return xstrdup("/jobdeck");
		return xprintf("%.*s/jobdeck", (int)len, v);
	}
	if ((v = getenv("HOME")) != NULL && v[0] == '/') {
		len = strlen(v);
		while (len > 1 && v[len - 1] == '/')
			len--;
		if (len == 1)
			return xstrdup("/.local/state/jobdeck");
		return xprintf("%.*s/.local/state/jobdeck", (int)len, v);
	}
	return xprintf("/tmp/jobdeck-%u/state", (unsigned)getuid());
}

/* Fill lim with the default limits. */
void
store_default_limits(struct store_limits *lim)
{
	lim->max_run_bytes = (int64_t)128 << 20;
	lim->keep_age_ms = (int64_t)14 * 24 * 60 * 60 * 1000;
	lim->keep_runs = 1000;
	lim->max_total_bytes = (int64_t)4 << 30;
}

/* Make DIR/sub (0700) if missing and open it; -1 with *cause. */
static int
store_open_made(int dfd, const char *dir, const char *sub, char **cause)
{
	int	fd;

	if (mkdirat(dfd, sub, 0700) != 0 && errno != EEXIST) {
		*cause = xprintf("%s/%s: %s", dir, sub, strerror(errno));
		return -1;
	}
	fd = openat(dfd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd == -1)
		*cause = xprintf("%s/%s: %s", dir, sub, strerror(errno));
	return fd;
}

/*
 * Open the store in dir (made if missing) with limits lim (the defaults if
 * NULL), and start this deck in it: a new deck id whose lock is held
 * until store_free().
 */
struct store *
store_open(const char *dir, const struct store_limits *lim, char **cause)
{
	struct store	*st;
	char		 name[STORE_ID_LEN + 8];
	int		 dfd, decks_fd, tries;

	if (dir == NULL || *dir == '\0') {
		*cause = xstrdup("no store directory");
		return NULL;
	}
	if (store_make_dir(dir, cause) != 0)
		return NULL;
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		*cause = xprintf("%s: %s", dir, strerror(errno));
		return NULL;
	}
	st = xcalloc(1, sizeof *st);
	st->dir = xstrdup(dir);
	st->lock_fd = -1;
	if (lim != NULL)
		st->lim = *lim;
	else
		store_default_limits(&st->lim);
	st->runs_fd = store_open_made(dfd, dir, "runs", cause);
	decks_fd = st->runs_fd == -1 ? -1 :
	    store_open_made(dfd, dir, "decks", cause);
	close(dfd);
	if (decks_fd == -1) {
		store_free(st);
		return NULL;
	}
	for (tries = 0; tries < STORE_ID_TRIES; tries++) {
		store_id_new(st->deck);
		snprintf(name, sizeof name, "%s.lock", st->deck);
		st->lock_fd = openat(decks_fd, name, O_RDWR | O_CREAT | O_EXCL |
		    O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600);
		if (st->lock_fd != -1 || errno != EEXIST)
			break;
	}
	if (st->lock_fd == -1 || flock(st->lock_fd, LOCK_EX | LOCK_NB) != 0) {
		*cause = xprintf("%s/decks/%s.lock: %s", dir, st->deck,
		    strerror(errno));
		close(decks_fd);
		store_free(st);
		return NULL;
	}
	close(decks_fd);
	return st;
}

/* Close the store: this deck's lock is released and its file removed. */
void
store_free(struct store *st)
{
	char	name[STORE_ID_LEN + 8], *cause = NULL;
	int	decks_fd;

	if (st == NULL)
		return;
	if (st->lock_fd != -1) {
		decks_fd = store_open_sub(st->dir, "decks", &cause);
		if (decks_fd != -1) {
			snprintf(name, sizeof name, "%s.lock", st->deck);
			unlinkat(decks_fd, name, 0);
			close(decks_fd);
		}
		free(cause);
		close(st->lock_fd);
	}
	if (st->runs_fd != -1)
		close(st->runs_fd);
	free(st->dir);
	free(st);
}

/* Return the store's directory. */
const char *
store_dir(const struct store *st)
{
	return st->dir;
}

/* Return this deck's id. */
const char *
store_deck(const struct store *st)
{
	return st->deck;
}

/* Write all of buf to fd; -1 with errno set (ENOSPC for no progress). */
static int
store_write_all(int fd, const void *buf, size_t len)
{
	const char	*p = buf;
	ssize_t		 n;

	while (len > 0) {
		n = write(fd, p, len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = ENOSPC;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Count the newlines in buf. */
static size_t
store_count_nl(const char *buf, size_t len)
{
	size_t	i, n = 0;

	for (i = 0; i < len; i++)
		n += buf[i] == '\n';
	return n;
}

/*
 * Stop the run's writing for good because of why (a new string, taken;
 * the first reason is the one kept).
 */
static int
store_run_stop(struct store_run *sr, char *why)
{
	if (sr->error == NULL)
		sr->error = why;
	else
		free(why);
	if (sr->out_fd != -1)
		close(sr->out_fd);
	if (sr->idx_fd != -1)
		close(sr->idx_fd);
	sr->out_fd = sr->idx_fd = -1;
	return -1;
}

/* Stop the run's writing after error on file (out.N, idx.N, ...). */
static int
store_run_fail(struct store_run *sr, const char *file, int error)
{
	/* The reason first: a message line may cut the rest. */
	return store_run_stop(sr, xprintf("%s, writing runs/%s/%s",
	    strerror(error), sr->id, file));
}

/*
 * Start writing segment no: open out.no and idx.no, then remove the
 * segments that fall out of the cap.
 */
static int
store_run_segment(struct store_run *sr, int64_t no)
{
	char	name[32];
	int	fd;

	if (sr->out_fd != -1)
		close(sr->out_fd);
	if (sr->idx_fd != -1)
		close(sr->idx_fd);
	sr->out_fd = sr->idx_fd = -1;
	snprintf(name, sizeof name, "out.%lld", (long long)no);
	fd = openat(sr->dir_fd, name, O_WRONLY | O_CREAT | O_APPEND |
	    O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600);
	if (fd == -1)
		return store_run_fail(sr, name, errno);
	sr->out_fd = fd;
	snprintf(name, sizeof name, "idx.%lld", (long long)no);
	fd = openat(sr->dir_fd, name, O_WRONLY | O_CREAT | O_APPEND |
	    O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600);
	if (fd == -1)
		return store_run_fail(sr, name, errno);
	sr->idx_fd = fd;
	sr->segno = no;
	for (; sr->oldest <= no - sr->keep; sr->oldest++) {
		snprintf(name, sizeof name, "out.%lld", (long long)sr->oldest);
		unlinkat(sr->dir_fd, name, 0);
		snprintf(name, sizeof name, "idx.%lld", (long long)sr->oldest);
		unlinkat(sr->dir_fd, name, 0);
	}
	return 0;
}

/*
 * Undo a run store_run_new() could not finish: its files (whichever were
 * made) and its directory are removed, and sr freed.
 */
static void
store_run_unmake(struct store *st, struct store_run *sr)
{
	static const char *const files[] = { "out.0", "idx.0", "meta.tmp",
	    "meta" };
	size_t			 i;

	if (sr->out_fd != -1)
		close(sr->out_fd);
	if (sr->idx_fd != -1)
		close(sr->idx_fd);
	for (i = 0; i < sizeof files / sizeof files[0]; i++)
		unlinkat(sr->dir_fd, files[i], 0);
	close(sr->dir_fd);
	unlinkat(st->runs_fd, sr->id, AT_REMOVEDIR);
	free(sr->error);
	free(sr);
}

/*
 * Create a run of this deck: a new run id (set in m->run, and the deck's
 * in m->deck), its directory, its first segment's files and then its
 * meta file, which is what makes a run: a run with a meta has its files.
 * On failure nothing of it is left behind.
 */
struct store_run *
store_run_new(struct store *st, struct store_meta *m, char **cause)
{
	struct store_run	*sr;
	int			 tries, error = 0;

	sr = xcalloc(1, sizeof *sr);
	sr->out_fd = sr->idx_fd = -1;
	for (tries = 0; tries < STORE_ID_TRIES; tries++) {
		store_id_new(sr->id);
		if (mkdirat(st->runs_fd, sr->id, 0700) == 0)
			break;
		if ((error = errno) != EEXIST)
			break;
	}
	if (tries == STORE_ID_TRIES || error != 0) {
		*cause = xprintf("%s/runs/%s: %s", st->dir, sr->id,
		    strerror(error));
		free(sr);
		return NULL;
	}
	sr->dir_fd = openat(st->runs_fd, sr->id, O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC);
	if (sr->dir_fd == -1) {
		*cause = xprintf("%s/runs/%s: %s", st->dir, sr->id,
		    strerror(errno));
		unlinkat(st->runs_fd, sr->id, AT_REMOVEDIR);
		free(sr);
		return NULL;
	}
	memcpy(sr->deck, st->deck, sizeof sr->deck);
	memcpy(m->run, sr->id, sizeof m->run);
	memcpy(m->deck, sr->deck, sizeof m->deck);
	sr->seg = store_segment_size(st->lim.max_run_bytes);
	sr->keep = store_segment_keep(st->lim.max_run_bytes, sr->seg);
	sr->at_start = 1;
	if (store_run_segment(sr, 0) != 0) {
		*cause = sr->error;
		sr->error = NULL;
		store_run_unmake(st, sr);
		return NULL;
	}
	if (store_meta_write(sr->dir_fd, m, sr->seg, cause) != 0) {
		store_run_unmake(st, sr);
		return NULL;
	}
	return sr;
}

/*
 * Write one piece of output: split at segment boundaries and at
 * STORE_CHUNK_MAX, one write to out.N and one record to idx.N each.
 */
static int
store_run_piece(struct store_run *sr, enum store_stream stream,
    const char *buf, size_t len, int64_t wall_ms)
{
	struct store_rec	rec;
	char			name[32];
	uint64_t		end;
	size_t			n;

	if (sr->error != NULL)
		return -1;
	while (len > 0) {
		end = (uint64_t)(sr->segno + 1) * (uint64_t)sr->seg;
		if (sr->off == end) {
			if (store_run_segment(sr, sr->segno + 1) != 0)
				return -1;
			end += (uint64_t)sr->seg;
		}
		n = len;
		if (n > end - sr->off)
			n = (size_t)(end - sr->off);
		if (n > STORE_CHUNK_MAX)
			n = STORE_CHUNK_MAX;
		if (store_write_all(sr->out_fd, buf, n) != 0) {
			snprintf(name, sizeof name, "out.%lld",
			    (long long)sr->segno);
			return store_run_fail(sr, name, errno);
		}
		memset(&rec, 0, sizeof rec);
		rec.off = sr->off;
		rec.line = sr->line;
		rec.time = wall_ms;
		rec.len = (uint32_t)n;
		rec.stream = (uint8_t)stream;
		rec.starts = (uint8_t)sr->at_start;
		if (store_write_all(sr->idx_fd, &rec, sizeof rec) != 0) {
			snprintf(name, sizeof name, "idx.%lld",
			    (long long)sr->segno);
			return store_run_fail(sr, name, errno);
		}
		sr->line += store_count_nl(buf, n);
		sr->at_start = buf[n - 1] == '\n';
		sr->off += n;
		buf += n;
		len -= n;
	}
	return 0;
}

/* Write what a stream holds back. */
static int
store_run_release(struct store_run *sr, enum store_stream stream)
{
	struct store_held	*h = &sr->held[stream - STORE_STDOUT];
	size_t			 len = h->len;

	h->len = 0;
	if (len == 0)
		return 0;
	return store_run_piece(sr, stream, h->buf, len, h->time);
}

/*
 * Write output that arrived at wall_ms.  A pty's goes to disk at once; on
 * split pipes each stream's complete lines do, and its unfinished line is
 * held (up to STORE_CHUNK_MAX) until it ends or store_run_flush().
 * Returns -1 once writing has failed (store_run_error()).
 */
int
store_run_write(struct store_run *sr, enum store_stream stream,
    const void *buf, size_t len, int64_t wall_ms)
{
	struct store_held	*h;
	const char		*p = buf, *nl;
	size_t			 done;

	if (sr->error != NULL)
		return -1;
	if (len == 0)
		return 0;
	if (stream != STORE_STDOUT && stream != STORE_STDERR)
		return store_run_piece(sr, STORE_TTY, p, len, wall_ms);
	h = &sr->held[stream - STORE_STDOUT];
	if ((nl = memrchr(p, '\n', len)) == NULL) {
		if (h->len + len > STORE_CHUNK_MAX) {
			if (store_run_release(sr, stream) != 0)
				return -1;
			if (len >= STORE_CHUNK_MAX)
				return store_run_piece(sr, stream, p, len,
				    wall_ms);
		}
		if (h->buf == NULL)
			h->buf = xmalloc(STORE_CHUNK_MAX);
		if (h->len == 0)
			h->time = wall_ms;
		memcpy(h->buf + h->len, p, len);
		h->len += len;
		return 0;
	}
	done = (size_t)(nl - p) + 1;
	if (store_run_release(sr, stream) != 0 ||
	    store_run_piece(sr, stream, p, done, wall_ms) != 0)
		return -1;
	if (done == len)
		return 0;
	return store_run_write(sr, stream, p + done, len - done, wall_ms);
}

/* Write the unfinished lines held back, the older first. */
int
store_run_flush(struct store_run *sr, int64_t wall_ms)
{
	struct store_held	*out = &sr->held[0], *err = &sr->held[1];
	int			 r;

	(void)wall_ms;		/* held bytes keep the time they came */
	if (sr->error != NULL)
		return -1;
	if (err->len > 0 && (out->len == 0 || err->time < out->time))
		r = store_run_release(sr, STORE_STDERR) |
		    store_run_release(sr, STORE_STDOUT);
	else
		r = store_run_release(sr, STORE_STDOUT) |
		    store_run_release(sr, STORE_STDERR);
	return r == 0 ? 0 : -1;
}

/* Return 1 if an unfinished line is held back. */
int
store_run_held(const struct store_run *sr)
{
	return sr->error == NULL && (sr->held[0].len > 0 ||
	    sr->held[1].len > 0);
}

/*
 * Replace the run's meta file with m (its run and deck ids are kept),
 * even once writing output has failed, so that the run's end is known.
 * -1 when it cannot be written; that stops the output too, and
 * store_run_error() keeps the first reason.
 */
int
store_run_update(struct store_run *sr, const struct store_meta *m)
{
	struct store_meta	 copy = *m;
	char			*cause = NULL;

	memcpy(copy.run, sr->id, sizeof copy.run);
	memcpy(copy.deck, sr->deck, sizeof copy.deck);
	if (store_meta_write(sr->dir_fd, &copy, sr->seg, &cause) != 0)
		return store_run_stop(sr, cause);
	return 0;
}

/* Write what is held back and close the run. */
void
store_run_close(struct store_run *sr)
{
	if (sr == NULL)
		return;
	store_run_flush(sr, 0);
	if (sr->out_fd != -1)
		close(sr->out_fd);
	if (sr->idx_fd != -1)
		close(sr->idx_fd);
	if (sr->dir_fd != -1)
		close(sr->dir_fd);
	free(sr->held[0].buf);
	free(sr->held[1].buf);
	free(sr->error);
	free(sr);
}

/* Return the run's id. */
const char *
store_run_id(const struct store_run *sr)
{
	return sr->id;
}

/* Return why the run stopped writing, or NULL. */
const char *
store_run_error(const struct store_run *sr)
{
	return sr->error;
}

/* Return the bytes written to disk (those dropped by the cap included). */
uint64_t
store_run_bytes(const struct store_run *sr)
{
	return sr->off;
}

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

/* Close the segments a reader has open. */
static void
store_reader_drop(struct store_reader *r)
{
	int	i;

	for (i = 0; i < r->nsegs; i++) {
		if (r->segs[i].idx_fd != -1)
			close(r->segs[i].idx_fd);
		if (r->segs[i].out_fd != -1)
			close(r->segs[i].out_fd);
	}
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

/* Read record i of segment s (through a small cache); -1 on error. */
static int
store_reader_rec(struct store_reader *r, int s, int64_t i,
    struct store_rec *rec)
{
	struct store_seg	*sg = &r->segs[s];
	int64_t			 base, want, k;
	ssize_t			 n;

	if (r->cache_seg != s || i < r->cache_base ||
	    i >= r->cache_base + r->cache_n) {
		base = i / STORE_REC_BLOCK * STORE_REC_BLOCK;
		want = sg->nrec - base;
		if (want > STORE_REC_BLOCK)
			want = STORE_REC_BLOCK;
		n = store_pread(sg->idx_fd, r->cache, (size_t)want *
		    sizeof *rec, (off_t)base * (off_t)sizeof *rec);
		r->cache_seg = -1;
		if (n < 0 || (size_t)n < (size_t)want * sizeof *rec)
			return -1;
		for (k = 0; k < want; k++) {
			if (!store_rec_sane(r, sg, &r->cache[k]))
				return -1;
		}
		r->cache_seg = s;
		r->cache_base = base;
		r->cache_n = (int)want;
	}
	*rec = r->cache[i - r->cache_base];
	return 0;
}

/*
 * Read exactly len bytes at global offset off from the segments' out
 * files into buf: 0, or -1 when any of them is not there (a segment not
 * kept, an out file shorter than its index, an I/O error).  Every caller
 * asks for bytes its records cover, so a short read is damage, never the
 * end.
 */
static int
store_reader_read(struct store_reader *r, uint64_t off, char *buf,
    size_t len)
{
	struct store_seg	*sg;
	uint64_t		 no, in;
	size_t			 want;

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
		if (store_pread(sg->out_fd, buf, want, (off_t)in) !=
		    (ssize_t)want)
			return -1;
		buf += want;
		off += want;
		len -= want;
	}
	return 0;
}

/*
 * Open segment no's idx and out files into sg, with the size of each;
 * -1 with errno and the file's name in name (32 bytes).
 */
static int
store_reader_segment(struct store_reader *r, int64_t no,
    struct store_seg *sg, char *name)
{
	struct stat	sb;
	int		error;

	memset(sg, 0, sizeof *sg);
	sg->no = no;
	sg->out_fd = -1;
	snprintf(name, 32, "idx.%lld", (long long)no);
	sg->idx_fd = openat(r->dir_fd, name, O_RDONLY | O_NOFOLLOW |
	    O_CLOEXEC | O_NOCTTY);
	if (sg->idx_fd == -1 || fstat(sg->idx_fd, &sb) != 0)
		goto fail;
	sg->nrec = sb.st_size / (off_t)sizeof(struct store_rec);
	snprintf(name, 32, "out.%lld", (long long)no);
	sg->out_fd = openat(r->dir_fd, name, O_RDONLY | O_NOFOLLOW |
	    O_CLOEXEC | O_NOCTTY);
	if (sg->out_fd == -1 || fstat(sg->out_fd, &sb) != 0)
		goto fail;
	sg->out_size = (uint64_t)sb.st_size;
	return 0;

fail:
	error = errno;
	if (sg->idx_fd != -1)
		close(sg->idx_fd);
	if (sg->out_fd != -1)
		close(sg->out_fd);
	sg->idx_fd = sg->out_fd = -1;
	errno = error;
	return -1;
}

/*
 * Check that a segment's records can be the writer's: its first and last
 * sane, in order (a line takes a byte at least), and its out file holding
 * every byte they cover; prev, if not NULL, is the segment before it, whose
 * last record its first must follow on from.  NULL, or why not.
 */
static char *
store_reader_check(struct store_reader *r, struct store_seg *sg,
    const struct store_seg *prev)
{
	const struct store_rec	*f = &sg->first, *l = &sg->last;
	const struct store_rec	*p = prev != NULL ? &prev->last : NULL;
	uint64_t		 start = (uint64_t)sg->no * (uint64_t)r->seg;

	if (store_pread(sg->idx_fd, &sg->first, sizeof sg->first, 0) !=
	    (ssize_t)sizeof sg->first || store_pread(sg->idx_fd, &sg->last,
	    sizeof sg->last, (off_t)(sg->nrec - 1) *
	    (off_t)sizeof sg->last) != (ssize_t)sizeof sg->last)
		return xprintf("idx.%lld cannot be read", (long long)sg->no);
	if (!store_rec_sane(r, sg, f) || !store_rec_sane(r, sg, l))
		return xprintf("idx.%lld holds a record the store did not "
		    "write", (long long)sg->no);
	if (l->off < f->off || l->line < f->line ||
	    l->line - f->line > l->off - f->off)
		return xprintf("the records of idx.%lld are out of order",
		    (long long)sg->no);
	if (p != NULL && (f->off != p->off + p->len || f->line < p->line ||
	    f->line - p->line > p->len))
		return xprintf("idx.%lld does not follow on from idx.%lld",
		    (long long)sg->no, (long long)prev->no);
	if (sg->out_size < l->off + l->len - start)
		return xprintf("out.%lld holds %llu bytes, its index %llu",
		    (long long)sg->no, (unsigned long long)sg->out_size,
		    (unsigned long long)(l->off + l->len - start));
	return NULL;
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
 * See the run as it is now: open its segments (the newest consecutive
 * ones; an older one removed meanwhile by the cap drops it and those
 * before it), check them, and work out its first line, line count and
 * bytes.  A damaged run (no index, an index that is not the writer's,
 * an out file shorter than its index) is seen as empty: -1 with *why.
 */
static int
store_reader_load(struct store_reader *r, char **why)
{
	struct store_seg	*sg, *prev = NULL;
	struct store_rec	 last;
	char			 name[32], *buf;
	int64_t			*nos;
	int			 count, lo, i, k, f, l;

	store_reader_empty(r);
	if (store_reader_list(r, &nos, &count) != 0) {
		*why = xprintf("its directory cannot be read: %s",
		    strerror(errno));
		return -1;
	}
	if (count == 0) {
		*why = xstrdup("it has no index (idx.N)");
		return -1;
	}
	for (lo = count - 1; lo > 0 && nos[lo - 1] == nos[lo] - 1; lo--)
		;
	r->segs = xcalloc((size_t)(count - lo), sizeof *r->segs);
	for (i = lo; i < count; i++) {
		sg = &r->segs[r->nsegs];
		if (store_reader_segment(r, nos[i], sg, name) == 0) {
			r->nsegs++;
			continue;
		}
		if (i == count - 1 || errno != ENOENT) {
			*why = xprintf("%s: %s", name, strerror(errno));
			free(nos);
			goto fail;
		}
		for (k = 0; k < r->nsegs; k++) {
			close(r->segs[k].idx_fd);
			close(r->segs[k].out_fd);
		}
		r->nsegs = 0;
	}
	free(nos);

	/* Empty segments only at the ends: the writer's newest, say. */
	for (f = 0; f < r->nsegs && r->segs[f].nrec == 0; f++)
		;
	for (l = r->nsegs - 1; l >= 0 && r->segs[l].nrec == 0; l--)
		;
	if (f == r->nsegs)
		return 0;
	for (i = f; i <= l; i++) {
		sg = &r->segs[i];
		if (sg->nrec == 0) {
			*why = xprintf("idx.%lld is empty", (long long)sg->no);
			goto fail;
		}
		if ((*why = store_reader_check(r, sg, prev)) != NULL)
			goto fail;
		prev = sg;
	}
	last = r->segs[l].last;
	buf = xmalloc(last.len);
	if (store_reader_read(r, last.off, buf, last.len) != 0) {
		*why = xprintf("out.%lld cannot be read",
		    (long long)r->segs[l].no);
		free(buf);
		goto fail;
	}
	r->partial = buf[last.len - 1] != '\n';
	r->count = (int64_t)last.line + (int64_t)store_count_nl(buf,
	    last.len) + r->partial;
	free(buf);
	r->bytes = last.off + last.len;
	r->first = (int64_t)r->segs[f].first.line +
	    (r->segs[f].first.starts ? 0 : 1);
	if (r->first > r->count)
		r->first = r->count;
	return 0;

fail:
	store_reader_empty(r);
	return -1;
}

/*
 * See the run as it is now (store_reader_load()); -1 when it is damaged,
 * and then it has no lines.
 */
int
store_reader_refresh(struct store_reader *r)
{
	char	*why = NULL;
	int	 rc;

	rc = store_reader_load(r, &why);
	free(why);
	return rc;
}

/*
 * Open a reader on run of the store at dir (any deck's, live or not);
 * NULL with *cause when it cannot be read, a damaged run saying why.
 */
struct store_reader *
store_reader_open(const char *dir, const char *run, char **cause)
{
	struct store_reader	*r;
	struct store_meta	 m;
	int64_t			 seg;
	char			*why = NULL;
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
	if (store_reader_load(r, &why) != 0) {
		*cause = xprintf("runs/%s is damaged: %s", run, why);
		free(why);
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

/* Return the bytes of output the run has written (dropped ones too). */
uint64_t
store_reader_bytes(const struct store_reader *r)
{
	return r->bytes;
}

/* Return whether record rec is at or before the start of line no. */
static int
store_rec_before(const struct store_rec *rec, int64_t no)
{
	return (int64_t)rec->line < no || ((int64_t)rec->line == no &&
	    rec->starts);
}

/*
 * Find where line no starts: *off, and the record it starts in (*s, *i);
 * -1 if it is not kept.
 */
static int
store_reader_line(struct store_reader *r, int64_t no, uint64_t *off,
    int *s, int64_t *i)
{
	struct store_rec	 rec, mid;
	int64_t			 lo, hi, m, want;
	char			*p, *end;

	if (no < r->first || no >= r->count)
		return -1;
	for (*s = r->nsegs - 1; *s >= 0; (*s)--) {
		if (r->segs[*s].nrec > 0 &&
		    store_rec_before(&r->segs[*s].first, no))
			break;
	}
	if (*s < 0)
		return -1;
	lo = 0;
	hi = r->segs[*s].nrec;
	while (hi - lo > 1) {
		m = lo + (hi - lo) / 2;
		if (store_reader_rec(r, *s, m, &mid) != 0)
			return -1;
		if (store_rec_before(&mid, no))
			lo = m;
		else
			hi = m;
	}
	if (store_reader_rec(r, *s, lo, &rec) != 0)
		return -1;
	*i = lo;
	if ((int64_t)rec.line == no && rec.starts) {
		*off = rec.off;
		return 0;
	}
	if (r->win == NULL)
		r->win = xmalloc(STORE_CHUNK_MAX);
	r->win_len = 0;
	if (store_reader_read(r, rec.off, r->win, rec.len) != 0)
		return -1;
	r->win_off = rec.off;
	r->win_len = rec.len;
	p = r->win;
	end = r->win + rec.len;
	for (want = no - (int64_t)rec.line; want > 0; want--) {
		if ((p = memchr(p, '\n', (size_t)(end - p))) == NULL)
			return -1;
		p++;
	}
	*off = rec.off + (uint64_t)(p - r->win);
	return 0;
}

/* Step (*s, *i) to the next record; -1 at the last. */
static int
store_reader_next(struct store_reader *r, int *s, int64_t *i)
{
	if (*i + 1 < r->segs[*s].nrec) {
		(*i)++;
		return 0;
	}
	while (*s + 1 < r->nsegs) {
		(*s)++;
		*i = 0;
		if (r->segs[*s].nrec > 0)
			return 0;
	}
	return -1;
}

/*
 * Return the output at off: a pointer into the reader's window and the
 * bytes there (0 at the end, -1 on error).
 */
static ssize_t
store_reader_at(struct store_reader *r, uint64_t off, const char **p)
{
	size_t	want;

	if (off >= r->bytes)
		return 0;
	if (off < r->win_off || off >= r->win_off + r->win_len) {
		if (r->win == NULL)
			r->win = xmalloc(STORE_CHUNK_MAX);
		want = STORE_CHUNK_MAX;
		if (want > r->bytes - off)
			want = (size_t)(r->bytes - off);
		r->win_len = 0;
		if (store_reader_read(r, off, r->win, want) != 0)
			return -1;
		r->win_off = off;
		r->win_len = want;
	}
	*p = r->win + (off - r->win_off);
	return (ssize_t)(r->win_len - (off - r->win_off));
}

/*
 * Read one line's bytes from *off (moved past its '\n') into a new buffer
 * of at most STORE_LINE_MAX bytes; -1 on error.
 */
static int
store_reader_take(struct store_reader *r, uint64_t *off,
    struct store_line *line, char **bytes, size_t *len)
{
	const char	*p, *nl;
	char		*buf = NULL;
	size_t		 take, room, alloc = 0;
	ssize_t		 n;

	*len = 0;
	line->partial = 1;
	if (*off >= r->bytes)
		return -1;	/* a line the bytes do not hold: damage */
	while (*off < r->bytes) {
		if ((n = store_reader_at(r, *off, &p)) <= 0) {
			free(buf);
			return -1;
		}
		nl = memchr(p, '\n', (size_t)n);
		take = nl == NULL ? (size_t)n : (size_t)(nl - p);
		room = STORE_LINE_MAX - *len;
		if (take > room)
			line->cut = 1;
		if (take > 0 && room > 0) {
			if (take < room)
				room = take;
			if (*len + room > alloc) {
				alloc = (*len + room) * 2;
				if (alloc > STORE_LINE_MAX)
					alloc = STORE_LINE_MAX;
				buf = xreallocarray(buf, alloc + 1, 1);
			}
			memcpy(buf + *len, p, room);
			*len += room;
		}
		*off += take;
		if (nl != NULL) {
			(*off)++;
			line->partial = 0;
			break;
		}
	}
	if (buf == NULL)
		buf = xmalloc(1);
	buf[*len] = '\0';
	*bytes = buf;
	return 0;
}

/*
 * Read lines [from, to) (clamped to the lines kept) as flags say: a new
 * array in *lines of *count lines.  Memory and reading are proportional
 * to the lines asked for.
 */
int
store_reader_get(struct store_reader *r, int64_t from, int64_t to,
    int flags, struct store_line **lines, int *count)
{
	struct store_line	*out, *line;
	struct store_rec	 rec;
	uint64_t		 off;
	int64_t			 i, no;
	char			*bytes;
	size_t			 len;
	int			 s, n = 0;

	*lines = NULL;
	*count = 0;
	if (from < r->first)
		from = r->first;
	if (to > r->count)
		to = r->count;
	if (from >= to)
		return 0;
	if (to - from > INT32_MAX / (int64_t)sizeof *out)
		to = from + INT32_MAX / (int64_t)sizeof *out;
	if (store_reader_line(r, from, &off, &s, &i) != 0 ||
	    store_reader_rec(r, s, i, &rec) != 0)
		return -1;
	out = xcalloc((size_t)(to - from), sizeof *out);
	for (no = from; no < to; no++) {
		while (off >= rec.off + rec.len &&
		    store_reader_next(r, &s, &i) == 0) {
			if (store_reader_rec(r, s, i, &rec) != 0)
				goto fail;
		}
		line = &out[n];
		line->no = no;
		line->time = rec.time;
		line->stream = (enum store_stream)rec.stream;
		if (store_reader_take(r, &off, line, &bytes, &len) != 0)
			goto fail;
		n++;
		if (flags & STORE_TEXT) {
			line->text = rawtext_line(bytes, len,
			    (flags & STORE_COLOR) ? RAWTEXT_SGR : 0,
			    &line->len);
			free(bytes);
		} else {
			line->text = bytes;
			line->len = len;
		}
	}
	*lines = out;
	*count = n;
	return 0;

fail:
	store_lines_free(out, n);
	return -1;
}

/*
 * Give the lines of r after *mark (flags as store_reader_get()'s) and move
 * *mark past them: the complete ones, at most the newest max of them (-1:
 * all), then, with partial set, the partial last line if the run grew
 * since it was last given (it comes again whole once it ends).  *skipped,
 * if not NULL, counts the lines left out: dropped by the cap or by max.
 * 0, or -1 when the lines cannot be read.
 */
int
store_reader_since(struct store_reader *r, struct store_mark *mark,
    int flags, int max, int partial, struct store_line **lines, int *count,
    int64_t *skipped)
{
	struct store_line	*sl = NULL, *pl;
	int64_t			 total, complete, from;
	uint64_t		 bytes;
	int			 n = 0, np;

	*lines = NULL;
	*count = 0;
	total = store_reader_count(r);
	complete = total - store_reader_partial(r);
	from = mark->line > store_reader_first(r) ? mark->line :
	    store_reader_first(r);
	if (max >= 0 && complete - from > max)
		from = complete - max;
	if (skipped != NULL)
		*skipped = from > mark->line ? from - mark->line : 0;
	if (from < complete && store_reader_get(r, from, complete, flags, &sl,
	    &n) != 0)
		return -1;
	if (complete > mark->line)
		mark->line = complete;
	bytes = store_reader_bytes(r);
	if (partial && complete < total && bytes != mark->partial &&
	    store_reader_get(r, complete, total, flags, &pl, &np) == 0) {
		if (np == 1) {
			sl = xreallocarray(sl, (size_t)n + 1, sizeof *sl);
			sl[n++] = pl[0];
			free(pl);
			mark->partial = bytes;
		} else
			store_lines_free(pl, np);
	}
	*lines = sl;
	*count = n;
	return 0;
}

/*
 * Give the last max lines of r (flags as store_reader_get()'s); *more says
 * whether earlier lines were left out, by max or dropped by the cap.  0,
 * or -1 when they cannot be read.
 */
int
store_reader_tail(struct store_reader *r, int max, int flags,
    struct store_line **lines, int *count, int *more)
{
	int64_t	total = store_reader_count(r), from;

	from = total - max > store_reader_first(r) ? total - max :
	    store_reader_first(r);
	*more = from > 0;
	*lines = NULL;
	*count = 0;
	if (from >= total)
		return 0;
	return store_reader_get(r, from, total, flags, lines, count);
}

/*
 * Take the texts of lines as a NULL-terminated array (the caller frees
 * each string and the array) and free the rest of lines.
 */
char **
store_lines_take(struct store_line *lines, int count)
{
	char	**texts;
	int	  i;

	texts = xcalloc((size_t)count + 1, sizeof *texts);
	for (i = 0; i < count; i++) {
		texts[i] = lines[i].text;
		lines[i].text = NULL;
	}
	store_lines_free(lines, count);
	return texts;
}

/* Free what store_reader_get() returned. */
void
store_lines_free(struct store_line *lines, int count)
{
	int	i;

	if (lines == NULL)
		return;
	for (i = 0; i < count; i++)
		free(lines[i].text);
	free(lines);
}

/*
 * Return the first line whose time is at or after wall_ms (the line
 * count if none): a binary search of the records' times.
 */
int64_t
store_reader_find_time(struct store_reader *r, int64_t wall_ms)
{
	struct store_rec	rec;
	int64_t			lo, hi, m, no;
	int			s, k;

	for (s = -1, k = 0; k < r->nsegs; k++) {
		if (r->segs[k].nrec > 0 && r->segs[k].first.time < wall_ms)
			s = k;
	}
	if (s == -1)
		return r->first;
	lo = 0;
	hi = r->segs[s].nrec;
	while (hi - lo > 1) {
		m = lo + (hi - lo) / 2;
		if (store_reader_rec(r, s, m, &rec) != 0)
			return -1;
		if (rec.time < wall_ms)
			lo = m;
		else
			hi = m;
	}
	if (store_reader_next(r, &s, &lo) != 0 ||
	    store_reader_rec(r, s, lo, &rec) != 0)
		return r->count;
	no = (int64_t)rec.line + (rec.starts ? 0 : 1);
	if (no < r->first)
		no = r->first;
	return no > r->count ? r->count : no;
}

/*
 * Skip the rest of a line longer than a block, from off; returns the
 * offset after its '\n' (or the end) and adds what it read to *done.
 * Each pass reads a byte at least, so it ends.
 */
static int64_t
store_reader_skip(struct store_reader *r, uint64_t off, size_t *done)
{
	const char	*nl;
	size_t		 want;

	while (off < r->bytes) {
		want = STORE_SCAN_BLOCK;
		if (want > r->bytes - off)
			want = (size_t)(r->bytes - off);
		if (store_reader_read(r, off, r->block, want) != 0)
			return -1;
		*done += want;
		if ((nl = memchr(r->block, '\n', want)) != NULL)
			return (int64_t)(off + (uint64_t)(nl - r->block) + 1);
		off += (uint64_t)want;
	}
	return (int64_t)off;
}

/*
 * Read the lines from line from on in blocks of whole lines (up to 1 MiB;
 * a longer line comes as a block of its own, cut at STORE_LINE_MAX with a
 * '\n' added) and give each to cb->block, stopping after about budget
 * bytes or when it returns non-zero.  Every pass gives a block of a byte
 * at least and moves past it, or fails.  Returns the line to go on from
 * (the line count when done), or -1 when the run cannot be read there.
 */
int64_t
store_reader_scan(struct store_reader *r, int64_t from, size_t budget,
    const struct store_scan_cbs *cb, void *arg)
{
	uint64_t	 off;
	int64_t		 i, next;
	size_t		 done = 0, want, blen, more;
	const char	*nl;
	int		 s, stop;

	if (from < r->first)
		from = r->first;
	if (from >= r->count)
		return r->count;
	if (store_reader_line(r, from, &off, &s, &i) != 0)
		return -1;
	if (r->block == NULL)
		r->block = xmalloc(STORE_SCAN_BLOCK + 1);
	while (off < r->bytes && done < budget) {
		want = budget - done;
		if (want < STORE_SCAN_MIN)
			want = STORE_SCAN_MIN;
		if (want > STORE_SCAN_BLOCK)
			want = STORE_SCAN_BLOCK;
		if (want > r->bytes - off)
			want = (size_t)(r->bytes - off);
		if (store_reader_read(r, off, r->block, want) != 0)
			return -1;
		blen = want;
		if (off + blen < r->bytes && blen < STORE_SCAN_BLOCK &&
		    memrchr(r->block, '\n', blen) == NULL) {
			/* One line longer than the budget: a block of it. */
			more = STORE_SCAN_BLOCK;
			if (more > r->bytes - off)
				more = (size_t)(r->bytes - off);
			if (store_reader_read(r, off + blen, r->block + blen,
			    more - blen) != 0)
				return -1;
			blen = more;
		}
		if (off + blen < r->bytes) {
			nl = memrchr(r->block, '\n', blen);
			if (nl == NULL) {
				/* Longer than a block (blen is one): cut. */
				r->block[blen] = '\n';
				done += blen;
				stop = cb->block(from, r->block, blen + 1, arg);
				next = store_reader_skip(r, off + blen, &done);
				if (next == -1)
					return -1;
				off = (uint64_t)next;
				from++;
				if (stop)
					break;
				continue;
			}
			blen = (size_t)(nl - r->block) + 1;
		}
		done += blen;
		stop = cb->block(from, r->block, blen, arg);
		from += (int64_t)store_count_nl(r->block, blen) +
		    (r->block[blen - 1] != '\n');
		off += blen;
		if (stop)
			break;
	}
	return from;
}

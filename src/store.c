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
	int64_t		 nrec;		/* records read (a cut: fewer) */
	struct store_rec first;		/* its first record, if nrec > 0 */
	struct store_rec last;		/* record nrec - 1, if nrec > 0 */
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

	/*
	 * Damage: why the run is cut (NULL: it is whole), and where: no
	 * record is read from record cut_rec of segment cut_no on.  Kept
	 * across loads while that segment is kept.
	 */
	char		*why;
	int64_t		 cut_no;
	int64_t		 cut_rec;
	uint64_t	 written;	/* bytes the newest index says, or 0 */
	char		*text;		/* store_reader_damage()'s */

	/*
	 * Where the last read stopped: line at_line starts at at_off, and
	 * (after store_reader_get()) line at_line - 1 starts in record at_i
	 * of segment at_no, the last record it checked.
	 */
	int64_t		 at_line;	/* -1: nowhere */
	uint64_t	 at_off;
	int64_t		 at_no;		/* -1: not known */
	int64_t		 at_i;

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
	    store_strerror(error), sr->id, file));
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
	fd = store_open_file(sr->dir_fd, name, O_WRONLY | O_CREAT | O_APPEND,
	    0600);
	if (fd == -1)
		return store_run_fail(sr, name, errno);
	sr->out_fd = fd;
	snprintf(name, sizeof name, "idx.%lld", (long long)no);
	fd = store_open_file(sr->dir_fd, name, O_WRONLY | O_CREAT | O_APPEND,
	    0600);
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
static void
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
static void
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
static int
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
static int
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

/* Return whether record rec is at or before the start of line no. */
static int
store_rec_before(const struct store_rec *rec, int64_t no)
{
	return (int64_t)rec->line < no || ((int64_t)rec->line == no &&
	    rec->starts);
}

/*
 * Check record i of segment s, found by a search of line numbers, against
 * the record before it: its line must be that one's and the lines that
 * one's bytes end, and it starts a line if that one ended one.  A record
 * that does not (a line number forged or flipped) cuts the run there.
 * 0, or -1 (cut, or the bytes cannot be read).
 */
static int
store_reader_anchor(struct store_reader *r, int s, int64_t i,
    const struct store_rec *rec)
{
	struct store_rec	 p;
	int64_t			 no = r->segs[s].no;
	size_t			 nl;

	if (i == 0 && s == 0)
		return 0;	/* checked as the run's first (or a cap's) */
	if (i > 0) {
		if (store_reader_rec(r, s, i - 1, &p) != 0)
			return -1;
	} else
		p = r->segs[s - 1].last;
	if (r->win == NULL)
		r->win = xmalloc(STORE_CHUNK_MAX);
	r->win_len = 0;
	if (store_reader_read(r, p.off, r->win, p.len) != 0)
		return -1;
	r->win_off = p.off;
	r->win_len = p.len;
	nl = store_count_nl(r->win, p.len);
	if (rec->line - p.line == nl && rec->starts == (r->win[p.len - 1] ==
	    '\n'))
		return 0;
	if (s < r->nsegs && i < r->segs[s].nrec) {
		store_reader_trim(r, s, i, xprintf("idx.%lld record %lld says "
		    "line %llu, the output before it ends line %llu",
		    (long long)no, (long long)i,
		    (unsigned long long)rec->line + 1,
		    (unsigned long long)(p.line + nl)));
		store_reader_ends(r);
	}
	return -1;
}

/* Cut the run at the record after record i of segment s, for why (taken). */
static void
store_reader_trim_after(struct store_reader *r, int s, int64_t i, char *why)
{
	if (i + 1 < r->segs[s].nrec || s + 1 >= r->nsegs)
		store_reader_trim(r, s, i + 1, why);
	else
		store_reader_trim(r, s + 1, 0, why);
	store_reader_ends(r);
}

/* Whether rec is at or before line *key (an int64_t): its start in it. */
static int
store_rec_line_at_most(const struct store_rec *rec, const void *key)
{
	return store_rec_before(rec, *(const int64_t *)key);
}

/* Whether rec starts at or before byte *key (a uint64_t). */
static int
store_rec_off_at_most(const struct store_rec *rec, const void *key)
{
	return rec->off <= *(const uint64_t *)key;
}

/*
 * Find in segment s the last record for which at_most() holds, by a
 * binary search (the first record is taken to hold it): its index in
 * *lo; -1 when a record cannot be read.
 */
static int
store_reader_search(struct store_reader *r, int s,
    int (*at_most)(const struct store_rec *, const void *), const void *key,
    int64_t *lo)
{
	struct store_rec	mid;
	int64_t			hi, m;

	*lo = 0;
	hi = r->segs[s].nrec;
	while (hi - *lo > 1) {
		m = *lo + (hi - *lo) / 2;
		if (store_reader_rec(r, s, m, &mid) != 0)
			return -1;
		if (at_most(&mid, key))
			*lo = m;
		else
			hi = m;
	}
	return 0;
}

/*
 * Find where line no starts: *off, and the record it starts in (*s, *i),
 * by a binary search of the records' line numbers, the record found
 * checked against the one before it (store_reader_anchor()).  -1 when it
 * is not kept, or damage was found on the way (the run is cut there).
 */
static int
store_reader_line(struct store_reader *r, int64_t no, uint64_t *off,
    int *s, int64_t *i)
{
	struct store_rec	 rec;
	int64_t			 lo, want;
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
	if (store_reader_search(r, *s, store_rec_line_at_most, &no,
	    &lo) != 0)
		return -1;
	if (store_reader_rec(r, *s, lo, &rec) != 0 ||
	    store_reader_anchor(r, *s, lo, &rec) != 0)
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
		if ((p = memchr(p, '\n', (size_t)(end - p))) == NULL) {
			/* The next record says a line it does not hold. */
			store_reader_trim_after(r, *s, lo, xprintf("the line "
			    "numbers of idx.%lld are wrong after record %lld",
			    (long long)r->segs[*s].no, (long long)lo));
			return -1;
		}
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
 * Find the record holding byte off (*s, *i, *rec), by a binary search of
 * the records' offsets; -1 when it is not kept or damage was found.
 */
static int
store_reader_at_rec(struct store_reader *r, uint64_t off, int *s,
    int64_t *i, struct store_rec *rec)
{
	uint64_t		no = off / (uint64_t)r->seg;
	int64_t			lo;

	if (off >= r->bytes || r->nsegs == 0 ||
	    no < (uint64_t)r->segs[0].no ||
	    no - (uint64_t)r->segs[0].no >= (uint64_t)r->nsegs)
		return -1;
	*s = (int)(no - (uint64_t)r->segs[0].no);
	if (store_reader_search(r, *s, store_rec_off_at_most, &off, &lo) != 0)
		return -1;
	if (store_reader_rec(r, *s, lo, rec) != 0 || off < rec->off ||
	    off >= rec->off + rec->len)
		return -1;
	*i = lo;
	return 0;
}

/*
 * Find where line no starts, and a record to read on from (the one it
 * starts in, or one before it whose successors a read checks as it
 * crosses them): where the last read stopped if it stopped there, else by
 * store_reader_line().  Damage found on the way may cut the run after
 * line no: then it is looked for again.  0, or -1 when it is not kept.
 */
static int
store_reader_start(struct store_reader *r, int64_t no, uint64_t *off,
    int *s, int64_t *i, struct store_rec *rec)
{
	uint64_t	bytes;

	for (;;) {
		bytes = r->bytes;
		if (no < r->first || no >= r->count)
			return -1;
		if (r->at_line == no && r->at_off < r->bytes && r->at_no >= 0 &&
		    r->nsegs > 0 && r->at_no >= r->segs[0].no &&
		    r->at_no - r->segs[0].no < r->nsegs) {
			/* The record the last read checked last. */
			*s = (int)(r->at_no - r->segs[0].no);
			*i = r->at_i;
			if (store_reader_rec(r, *s, *i, rec) == 0 &&
			    rec->off <= r->at_off) {
				*off = r->at_off;
				return 0;
			}
			r->at_no = -1;
			continue;
		}
		if (r->at_line == no && r->at_off < r->bytes) {
			if (store_reader_at_rec(r, r->at_off, s, i, rec) == 0) {
				*off = r->at_off;
				if (rec->off != *off || ((int64_t)rec->line ==
				    no && rec->starts))
					return 0;
				store_reader_trim(r, *s, *i, xprintf("idx.%lld "
				    "record %lld says line %llu, its output "
				    "line %lld", (long long)r->segs[*s].no,
				    (long long)*i,
				    (unsigned long long)rec->line + 1,
				    (long long)no + 1));
				store_reader_ends(r);
			} else if (r->bytes >= bytes) {
				/* Its segment is gone: search for it. */
				r->at_line = -1;
				continue;
			}
		} else if (store_reader_line(r, no, off, s, i) == 0 &&
		    store_reader_rec(r, *s, *i, rec) == 0)
			return 0;
		if (r->bytes >= bytes)
			return -1;	/* not for damage: no use again */
	}
}

/*
 * Check a record a line crossed into as lines are read one after another:
 * line no starts at off, after line no - 1, so a record starting at off
 * says line no and that a line starts there, and one starting before it
 * (inside line no - 1) says line no - 1 and that none does.  One that
 * does not cuts the run there: 0 then, else 1.
 */
static int
store_reader_crossed(struct store_reader *r, int s, int64_t i,
    const struct store_rec *rec, int64_t no, uint64_t off)
{
	int64_t	want = rec->off == off ? no : no - 1;

	if ((int64_t)rec->line == want && rec->starts == (rec->off == off))
		return 1;
	store_reader_trim(r, s, i, xprintf("idx.%lld record %lld says line "
	    "%llu, its output line %lld", (long long)r->segs[s].no,
	    (long long)i, (unsigned long long)rec->line + 1,
	    (long long)want + 1));
	store_reader_ends(r);
	return 0;
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
	want = r->win_len - (size_t)(off - r->win_off);
	if (want > r->bytes - off)
		want = (size_t)(r->bytes - off);
	return (ssize_t)want;
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
	uint64_t	 at = *off;

	*len = 0;
	line->partial = 1;
	line->cut = 0;
	if (at >= r->bytes)
		return -1;
	while (at < r->bytes) {
		if ((n = store_reader_at(r, at, &p)) <= 0) {
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
		at += take;
		if (nl != NULL) {
			at++;
			line->partial = 0;
			break;
		}
	}
	if (buf == NULL)
		buf = xmalloc(1);
	buf[*len] = '\0';
	*bytes = buf;
	*off = at;
	return 0;
}

/*
 * Step (*s, *i, *rec) on over the records that start at or before off,
 * where line no starts after line no - 1: each must say so
 * (store_reader_crossed()), and lines the run counts must be in its
 * records.  0, or -1 when damage cut the run on the way.
 */
static int
store_reader_cross(struct store_reader *r, int *s, int64_t *i,
    struct store_rec *rec, int64_t no, uint64_t off)
{
	int	l;

	while (off >= rec->off + rec->len) {
		if (store_reader_next(r, s, i) != 0) {
			if (no >= r->count)
				return 0;	/* the run's end */
			/* Lines its last record does not hold. */
			for (l = r->nsegs - 1; l > 0 && r->segs[l].nrec == 0;
			    l--)
				;
			store_reader_trim(r, l, r->segs[l].nrec - 1,
			    xprintf("idx.%lld says %lld lines, its output "
			    "%lld", (long long)r->segs[l].no,
			    (long long)r->count, (long long)no));
			store_reader_ends(r);
			return -1;
		}
		if (store_reader_rec(r, *s, *i, rec) != 0 ||
		    !store_reader_crossed(r, *s, *i, rec, no, off))
			return -1;
	}
	return 0;
}

/*
 * Read lines [from, to) (clamped to the lines kept) as flags say: a new
 * array in *lines of *count lines.  Memory and reading are proportional
 * to the lines asked for.  A line is given once the records it crossed
 * into say so (store_reader_cross()), and damage found on the way cuts
 * the run: the lines before it are given (the last as far as it goes),
 * store_reader_damage() says why.  0, or -1 with no lines when the run
 * is damaged and none of them can be read.
 */
int
store_reader_get(struct store_reader *r, int64_t from, int64_t to,
    int flags, struct store_line **lines, int *count)
{
	struct store_line	*out, *line;
	struct store_rec	 rec, lrec;
	uint64_t		 off, end, bytes;
	int64_t			 i, li, no, asked = to;
	char			*bytes_of;
	size_t			 len;
	int			 s, ls, n = 0;

	*lines = NULL;
	*count = 0;
	if (from < r->first)
		from = r->first;
	if (to > r->count)
		to = r->count;
	if (from >= to)
		return r->why != NULL && asked > from ? -1 : 0;
	if (to - from > INT32_MAX / (int64_t)sizeof *out)
		to = from + INT32_MAX / (int64_t)sizeof *out;
	out = xcalloc((size_t)(to - from), sizeof *out);
	no = from;
	for (;;) {
		bytes = r->bytes;
		if (store_reader_start(r, no, &off, &s, &i, &rec) != 0)
			goto done;
		if (store_reader_cross(r, &s, &i, &rec, no, off) == 0)
			break;
		if (r->bytes >= bytes || no >= r->count)
			goto done;	/* damage after it: again */
	}
	while (no < to && no < r->count) {
		/* rec holds where line no starts (off). */
		lrec = rec;
		ls = s;
		li = i;
		line = &out[n];
		line->no = no;
		line->time = lrec.time;
		line->stream = (enum store_stream)lrec.stream;
		bytes = r->bytes;
		end = off;
		if (store_reader_take(r, &end, line, &bytes_of, &len) != 0) {
			/* Cut inside this line: read what is left of it. */
			if (r->bytes < bytes && no < r->count)
				continue;
			goto done;
		}
		if (store_reader_cross(r, &s, &i, &rec, no + 1, end) != 0 ||
		    r->bytes < bytes) {
			/* Damage in or after it: what is left of it, again. */
			free(bytes_of);
			rec = lrec;
			s = ls;
			i = li;
			if (r->bytes < bytes && no < r->count)
				continue;
			goto done;
		}
		off = end;
		n++;
		no++;
		if (flags & STORE_TEXT) {
			line->text = rawtext_line(bytes_of, len,
			    (flags & STORE_COLOR) ? RAWTEXT_SGR : 0,
			    &line->len);
			free(bytes_of);
		} else {
			line->text = bytes_of;
			line->len = len;
		}
	}
	if (no == r->count && off < r->bytes && s < r->nsegs) {
		/* Its records say fewer lines than its bytes hold. */
		store_reader_trim_after(r, s, i, xprintf("idx.%lld says the "
		    "run has %lld lines, its output more",
		    (long long)r->segs[s].no, (long long)no));
	}
	/* Where it stopped, for the next read to go on from. */
	r->at_line = off < r->bytes ? no : -1;
	r->at_off = off;
	r->at_no = s < r->nsegs ? r->segs[s].no : -1;
	r->at_i = i;

done:
	if (n == 0) {
		free(out);
		return r->why != NULL ? -1 : 0;
	}
	*lines = out;
	*count = n;
	return 0;
}

/*
 * Give the lines of r after *mark (flags as store_reader_get()'s) and move
 * *mark past them: the complete ones, at most the newest max of them (-1:
 * all), then, with partial set, the partial last line if the run grew
 * since it was last given (it comes again whole once it ends).  *skipped,
 * if not NULL, counts the lines left out: dropped by the cap or by max.
 * A damaged run's lines are given up to its damage
 * (store_reader_damage()).  0, or -1 when the lines cannot be read.
 */
int
store_reader_since(struct store_reader *r, struct store_mark *mark,
    int flags, int max, int partial, struct store_line **lines, int *count,
    int64_t *skipped)
{
	struct store_line	*sl = NULL, *pl;
	int64_t			 complete, from;
	uint64_t		 bytes;
	int			 n = 0, np;

	*lines = NULL;
	*count = 0;
	complete = r->count - r->partial;
	from = mark->line > r->first ? mark->line : r->first;
	if (max >= 0 && complete - from > max)
		from = complete - max;
	if (skipped != NULL)
		*skipped = from > mark->line ? from - mark->line : 0;
	if (from < complete && store_reader_get(r, from, complete, flags, &sl,
	    &n) != 0)
		n = 0;
	/* Damage found on the way may leave the last one given partial. */
	if (n > 0 && sl[n - 1].partial) {
		free(sl[n - 1].text);
		n--;
	}
	if (from + n > mark->line)
		mark->line = from + n;
	bytes = r->bytes;
	if (partial && r->partial && mark->line == r->count - 1 &&
	    bytes != mark->partial && store_reader_get(r, mark->line,
	    r->count, flags, &pl, &np) == 0) {
		if (np == 1 && pl[0].partial) {
			sl = xreallocarray(sl, (size_t)n + 1, sizeof *sl);
			sl[n++] = pl[0];
			free(pl);
			mark->partial = bytes;
		} else
			store_lines_free(pl, np);
	}
	if (n == 0) {
		free(sl);
		sl = NULL;
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
 * count if none): a binary search of the records' times.  -1 when
 * damage was found on the way.
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
	if (s >= r->nsegs || lo >= r->segs[s].nrec)
		return -1;
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
 * at least and moves past it, or meets damage, which cuts the run there
 * (store_reader_damage()).  Returns the line to go on from: the line
 * count when done, and no further than the lines given when damage was
 * met (the count may then be lower: see store_reader_count()).
 */
int64_t
store_reader_scan(struct store_reader *r, int64_t from, size_t budget,
    const struct store_scan_cbs *cb, void *arg)
{
	struct store_rec	 rec;
	uint64_t		 off;
	int64_t			 i, next;
	size_t			 done = 0, want, blen, more;
	const char		*nl;
	int			 s, stop;

	if (from < r->first)
		from = r->first;
	if (from >= r->count)
		return r->count;
	if (r->at_line == from && r->at_off < r->bytes)
		off = r->at_off;
	else if (store_reader_start(r, from, &off, &s, &i, &rec) != 0)
		return from < r->count ? from : r->count;
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
			break;
		blen = want;
		if (off + blen < r->bytes && blen < STORE_SCAN_BLOCK &&
		    memrchr(r->block, '\n', blen) == NULL) {
			/* One line longer than the budget: a block of it. */
			more = STORE_SCAN_BLOCK;
			if (more > r->bytes - off)
				more = (size_t)(r->bytes - off);
			if (store_reader_read(r, off + blen, r->block + blen,
			    more - blen) != 0)
				break;
			blen = more;
		}
		if (off + blen < r->bytes) {
			nl = memrchr(r->block, '\n', blen);
			if (nl == NULL) {
				/* Longer than a block (blen is one): cut. */
				r->block[blen] = '\n';
				done += blen;
				stop = cb->block(from, r->block, blen + 1, arg);
				from++;
				next = store_reader_skip(r, off + blen, &done);
				if (next == -1) {
					/* Cut inside it: no more. */
					r->at_line = r->at_no = -1;
					return from;
				}
				off = (uint64_t)next;
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
	/* Where it stopped (a line's start), for the next scan. */
	r->at_line = off < r->bytes ? from : -1;
	r->at_off = off;
	r->at_no = -1;
	return from;
}

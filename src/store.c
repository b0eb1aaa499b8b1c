/*
 * store.c: the output store's directory and the writer of a run (the
 * readers are store-reader.c and store-lines.c; store-private.h says who
 * owns what).
 *
 * The writer appends each piece of output to out.N and one 32-byte
 * record to idx.N, with one write(2) each and no buffering (on split
 * pipes, each stream's unfinished line is held back first).  A piece that
 * crosses a segment boundary is cut there, so every record of idx.N lies
 * in out.N.  The first write error stops the run's writing for good and
 * says why (store_run_error()); the meta is still updated after it.
 */
#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store-private.h"
#include "xmalloc.h"

#define STORE_SEG_MIN		(64 * 1024)	/* smallest segment */
#define STORE_SEG_ALIGN		4096		/* segments are pages */
#define STORE_ID_TRIES		16		/* fresh ids tried on EEXIST */

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

/* Count the newlines in buf. */
size_t
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


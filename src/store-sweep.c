/*
 * store-sweep.c: retention and lost runs, a bounded step at a time.
 *
 * A sweep lists the runs, then reads each one's meta and size (a step
 * handles budget runs).  A run whose meta says it is running, stopped or
 * queued while its deck is dead was lost with its deck: its meta is
 * rewritten as "lost", ended now.  Then runs of dead decks are removed,
 * oldest first: those older than keep_age_ms (by their end, else their
 * start), then while more than keep_runs runs exist, then while the runs
 * take more than max_total_bytes.  Runs of this deck and of live decks
 * are never removed.  Last, dead decks' lock files whose runs are all
 * gone, and the old DIR/logs/PID-ID.log files older than keep_age_ms.
 *
 * Leftovers go at once, whatever the limits: a run directory with no meta
 * (a run is made with its files first and its meta last, and removed if
 * that fails, so one older than a minute was left by a deck that died
 * making it, or by an older jobdeck), a dead deck's run with no index at
 * all (nothing of it can be read), and the meta.tmp a dead deck left
 * beside its run's meta.
 *
 * Removal unlinks the files of a run directory with unlinkat() on its fd
 * (a link is removed, never followed), then the directory.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store-private.h"
#include "xmalloc.h"

#define STORE_SWEEP_YOUNG_MS	(60 * 60 * 1000)	/* runs without meta kept */
#define STORE_SWEEP_LOCK_MS	(60 * 1000)		/* a deck still starting */

enum store_sweep_phase {
	SWEEP_LIST,
	SWEEP_READ,
	SWEEP_REMOVE,
	SWEEP_DECKS,
	SWEEP_LEGACY,
	SWEEP_DONE
};

/* What the sweep knows of one run. */
struct store_sweep_run {
	char		 id[STORE_ID_LEN + 1];
	char		 deck[STORE_ID_LEN + 1];	/* "" if unknown */
	int64_t		 when;		/* ended, else started */
	uint64_t	 bytes;
	int		 keep;		/* never removed by this sweep */
	int		 leftover;	/* removed whatever the limits */
	int		 remove;
	int		 gone;		/* removed, or not there to read */
};

/* A deck's liveness, asked once per sweep. */
struct store_sweep_deck {
	char		 id[STORE_ID_LEN + 1];
	int		 alive;
};

struct store_sweep {
	char			*dir;
	char			 deck[STORE_ID_LEN + 1];
	struct store_limits	 lim;
	int64_t			 now;
	enum store_sweep_phase	 phase;

	struct store_sweep_run	*runs;
	int			 nruns;
	int			 pos;
	struct store_sweep_deck	*decks;
	int			 ndecks;
	char			**names;	/* lock files or old logs */
	int			 nnames;
	char			**lost;
	int			 nlost;
};

/* Start a sweep of st's directory as of now_wall_ms. */
struct store_sweep *
store_sweep_new(struct store *st, int64_t now_wall_ms)
{
	struct store_sweep	*sw;

	if (st == NULL)
		return NULL;
	sw = xcalloc(1, sizeof *sw);
	sw->dir = xstrdup(st->dir);
	memcpy(sw->deck, st->deck, sizeof sw->deck);
	sw->lim = st->lim;
	sw->now = now_wall_ms;
	sw->phase = SWEEP_LIST;
	return sw;
}

/* Free a sweep (and the lost runs not taken). */
void
store_sweep_free(struct store_sweep *sw)
{
	int	i;

	if (sw == NULL)
		return;
	for (i = 0; i < sw->nnames; i++)
		free(sw->names[i]);
	free(sw->names);
	for (i = 0; i < sw->nlost; i++)
		free(sw->lost[i]);
	free(sw->lost);
	free(sw->runs);
	free(sw->decks);
	free(sw->dir);
	free(sw);
}

/*
 * Hand over the runs this sweep found lost (a new array of new strings,
 * the caller frees both) and return how many.
 */
int
store_sweep_lost(struct store_sweep *sw, char ***runs)
{
	int	n = sw->nlost;

	*runs = sw->lost;
	sw->lost = NULL;
	sw->nlost = 0;
	return n;
}

/* Return 1 if deck is this one or alive (asked once per sweep). */
static int
store_sweep_alive(struct store_sweep *sw, const char *deck)
{
	struct store_sweep_deck	*d;
	int			 i;

	if (*deck == '\0')
		return 0;
	if (strcmp(deck, sw->deck) == 0)
		return 1;
	for (i = 0; i < sw->ndecks; i++) {
		if (strcmp(sw->decks[i].id, deck) == 0)
			return sw->decks[i].alive;
	}
	sw->decks = xreallocarray(sw->decks, (size_t)sw->ndecks + 1,
	    sizeof *sw->decks);
	d = &sw->decks[sw->ndecks++];
	memcpy(d->id, deck, sizeof d->id);
	d->alive = store_deck_alive(sw->dir, deck);
	return d->alive;
}

/* List the runs. */
static void
store_sweep_list(struct store_sweep *sw)
{
	char	**ids, *cause = NULL;
	int	  n, i;

	sw->phase = SWEEP_READ;
	if (store_list(sw->dir, &ids, &n, &cause) != 0) {
		free(cause);
		sw->phase = SWEEP_DONE;
		return;
	}
	sw->runs = xcalloc(n == 0 ? 1 : (size_t)n, sizeof *sw->runs);
	for (i = 0; i < n; i++)
		memcpy(sw->runs[i].id, ids[i], sizeof sw->runs[i].id);
	sw->nruns = n;
	store_list_free(ids, n);
}

#define SWEEP_HAS_IDX	0x1	/* an idx.N file */
#define SWEEP_HAS_TMP	0x2	/* a meta.tmp file */
#define SWEEP_HAS_META	0x4	/* a meta file */

/*
 * Return the bytes of the files in a run directory; *has says which of
 * them are there (SWEEP_HAS_*).
 */
static uint64_t
store_sweep_size(int run_fd, int *has)
{
	DIR		*d;
	struct dirent	*de;
	struct stat	 sb;
	uint64_t	 total = 0;
	int		 fd;

	*has = 0;
	fd = openat(run_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd == -1 || (d = fdopendir(fd)) == NULL) {
		if (fd != -1)
			close(fd);
		*has = SWEEP_HAS_IDX | SWEEP_HAS_META;	/* unknown: kept */
		return 0;
	}
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, "idx.", 4) == 0)
			*has |= SWEEP_HAS_IDX;
		else if (strcmp(de->d_name, "meta.tmp") == 0)
			*has |= SWEEP_HAS_TMP;
		else if (strcmp(de->d_name, "meta") == 0)
			*has |= SWEEP_HAS_META;
		if (fstatat(run_fd, de->d_name, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISREG(sb.st_mode))
			total += (uint64_t)sb.st_size;
	}
	closedir(d);
	return total;
}

/*
 * Return 1 if the run directory in fd (a run without meta) has been as it
 * is for a minute at least, by its id and by its last change: no live
 * deck is still making it.
 */
static int
store_sweep_settled(struct store_sweep *sw, struct store_sweep_run *sr,
    int fd)
{
	struct stat	sb;
	int64_t		mtime;

	if (fstat(fd, &sb) != 0)
		return 0;
	mtime = (int64_t)sb.st_mtim.tv_sec * 1000 +
	    sb.st_mtim.tv_nsec / 1000000;
	return sw->now - store_id_time(sr->id) >= STORE_SWEEP_LOCK_MS &&
	    sw->now - mtime >= STORE_SWEEP_LOCK_MS;
}

/*
 * Read one run's meta and size; mark it lost if it was alive when its
 * deck died, or a leftover (see the top of the file).
 */
static void
store_sweep_read(struct store_sweep *sw, struct store_sweep_run *sr)
{
	struct store_meta	 m;
	int64_t			 segment;
	char			*cause = NULL;
	int			 fd, has;

	if ((fd = store_open_run(sw->dir, sr->id, &cause)) == -1) {
		free(cause);
		sr->gone = 1;
		return;
	}
	sr->bytes = store_sweep_size(fd, &has);
	if (!(has & SWEEP_HAS_META) && store_sweep_settled(sw, sr, fd)) {
		sr->leftover = 1;
		sr->when = store_id_time(sr->id);
		close(fd);
		return;
	}
	if (store_meta_load(fd, sr->id, &m, &segment, &cause) != 0) {
		/* Being made by a live deck, or broken: judged by its age. */
		free(cause);
		sr->when = store_id_time(sr->id);
		sr->keep = sw->now - sr->when < STORE_SWEEP_YOUNG_MS;
		close(fd);
		return;
	}
	memcpy(sr->deck, m.deck, sizeof sr->deck);
	sr->keep = store_sweep_alive(sw, sr->deck);
	if (!sr->keep && (has & SWEEP_HAS_TMP))
		unlinkat(fd, "meta.tmp", 0);
	if (!sr->keep && !(has & SWEEP_HAS_IDX))
		sr->leftover = 1;
	else if (!sr->keep && m.state != NULL &&
	    (strcmp(m.state, "running") == 0 ||
	    strcmp(m.state, "stopped") == 0 || strcmp(m.state, "queued") == 0)) {
		free(m.state);
		m.state = xstrdup("lost");
		m.ended = sw->now;
		if (store_meta_write(fd, &m, segment, &cause) == 0) {
			sw->lost = xreallocarray(sw->lost, (size_t)sw->nlost + 1,
			    sizeof *sw->lost);
			sw->lost[sw->nlost++] = xstrdup(sr->id);
		} else
			free(cause);
	}
	sr->when = m.ended != 0 ? m.ended : m.started;
	if (sr->when == 0)
		sr->when = store_id_time(sr->id);
	store_meta_clear(&m);
	close(fd);
}

/* Order runs oldest first: by their end (else start), then id. */
static int
store_sweep_cmp(const void *a, const void *b)
{
	const struct store_sweep_run	*x = a, *y = b;

	if (x->when != y->when)
		return x->when < y->when ? -1 : 1;
	return strcmp(x->id, y->id);
}

/* Choose the runs to remove: by age, then count, then total size. */
static void
store_sweep_choose(struct store_sweep *sw)
{
	struct store_sweep_run	*sr;
	uint64_t		 total = 0;
	int			 i, count = 0;

	if (sw->nruns > 1)
		qsort(sw->runs, (size_t)sw->nruns, sizeof *sw->runs,
		    store_sweep_cmp);
	for (i = 0; i < sw->nruns; i++) {
		sr = &sw->runs[i];
		if (sr->gone)
			continue;
		count++;
		total += sr->bytes;
		if (!sr->keep && (sr->leftover ||
		    sw->now - sr->when > sw->lim.keep_age_ms)) {
			sr->remove = 1;
			count--;
			total -= sr->bytes;
		}
	}
	for (i = 0; i < sw->nruns && count > sw->lim.keep_runs; i++) {
		sr = &sw->runs[i];
		if (!sr->gone && !sr->keep && !sr->remove) {
			sr->remove = 1;
			count--;
			total -= sr->bytes;
		}
	}
	for (i = 0; i < sw->nruns && total > (uint64_t)sw->lim.max_total_bytes;
	    i++) {
		sr = &sw->runs[i];
		if (!sr->gone && !sr->keep && !sr->remove) {
			sr->remove = 1;
			total -= sr->bytes;
		}
	}
}

/*
 * Remove a run: its files by unlinkat() in its directory, then the
 * directory.  Returns the number of files handled.
 */
static int
store_sweep_remove(struct store_sweep *sw, const char *id)
{
	DIR		*d;
	struct dirent	*de;
	char		*cause = NULL;
	int		 runs_fd, fd, dfd, n = 1;

	if ((runs_fd = store_open_sub(sw->dir, "runs", &cause)) == -1) {
		free(cause);
		return n;
	}
	fd = openat(runs_fd, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (fd != -1 && (d = fdopendir(fd)) != NULL) {
		dfd = dirfd(d);
		while ((de = readdir(d)) != NULL) {
			if (strcmp(de->d_name, ".") == 0 ||
			    strcmp(de->d_name, "..") == 0)
				continue;
			unlinkat(dfd, de->d_name, 0);
			n++;
		}
		closedir(d);
	} else if (fd != -1)
		close(fd);
	unlinkat(runs_fd, id, AT_REMOVEDIR);
	close(runs_fd);
	return n;
}

/* List the entries of DIR/sub that match (lock files or old logs). */
static void
store_sweep_names(struct store_sweep *sw, const char *sub,
    int (*match)(const char *))
{
	DIR		*d;
	struct dirent	*de;
	char		*cause = NULL;
	int		 fd;

	sw->nnames = 0;
	sw->pos = 0;
	if ((fd = store_open_sub(sw->dir, sub, &cause)) == -1) {
		free(cause);
		return;
	}
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		if (!match(de->d_name))
			continue;
		sw->names = xreallocarray(sw->names, (size_t)sw->nnames + 1,
		    sizeof *sw->names);
		sw->names[sw->nnames++] = xstrdup(de->d_name);
	}
	closedir(d);
}

/* Free the names listed. */
static void
store_sweep_names_free(struct store_sweep *sw)
{
	int	i;

	for (i = 0; i < sw->nnames; i++)
		free(sw->names[i]);
	free(sw->names);
	sw->names = NULL;
	sw->nnames = 0;
	sw->pos = 0;
}

/* Return 1 for DECK.lock. */
static int
store_sweep_is_lock(const char *name)
{
	char	id[STORE_ID_LEN + 1];

	if (strlen(name) != STORE_ID_LEN + 5 ||
	    strcmp(name + STORE_ID_LEN, ".lock") != 0)
		return 0;
	memcpy(id, name, STORE_ID_LEN);
	id[STORE_ID_LEN] = '\0';
	return store_id_valid(id);
}

/* Return 1 for the old log names, PID-ID.log. */
static int
store_sweep_is_log(const char *name)
{
	size_t	pid, id;

	pid = strspn(name, "0123456789");
	if (pid == 0 || name[pid] != '-')
		return 0;
	id = strspn(name + pid + 1, "0123456789");
	return id > 0 && strcmp(name + pid + 1 + id, ".log") == 0;
}

/* Remove a dead deck's lock file once none of its runs remain. */
static void
store_sweep_deck(struct store_sweep *sw, const char *name)
{
	char	 id[STORE_ID_LEN + 1], *cause = NULL;
	int	 i, fd;

	memcpy(id, name, STORE_ID_LEN);
	id[STORE_ID_LEN] = '\0';
	/* A deck makes its lock file, then locks it: give it time. */
	if (sw->now - store_id_time(id) < STORE_SWEEP_LOCK_MS ||
	    store_sweep_alive(sw, id))
		return;
	for (i = 0; i < sw->nruns; i++) {
		if (!sw->runs[i].gone && strcmp(sw->runs[i].deck, id) == 0)
			return;
	}
	if ((fd = store_open_sub(sw->dir, "decks", &cause)) == -1) {
		free(cause);
		return;
	}
	unlinkat(fd, name, 0);
	close(fd);
}

/* Remove an old log file older than keep_age_ms. */
static void
store_sweep_log(struct store_sweep *sw, const char *name)
{
	struct stat	 sb;
	char		*cause = NULL;
	int64_t		 mtime;
	int		 fd;

	if ((fd = store_open_sub(sw->dir, "logs", &cause)) == -1) {
		free(cause);
		return;
	}
	if (fstatat(fd, name, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
	    (S_ISREG(sb.st_mode) || S_ISLNK(sb.st_mode))) {
		mtime = (int64_t)sb.st_mtim.tv_sec * 1000 +
		    sb.st_mtim.tv_nsec / 1000000;
		if (sw->now - mtime > sw->lim.keep_age_ms)
			unlinkat(fd, name, 0);
	}
	close(fd);
}

/*
 * Do about budget units of the sweep (a run read or removed, a file
 * handled); returns 1 while there is more to do, 0 when it is done.
 */
int
store_sweep_step(struct store_sweep *sw, int budget)
{
	struct store_sweep_run	*sr;

	if (budget < 1)
		budget = 1;
	while (budget > 0 && sw->phase != SWEEP_DONE) {
		switch (sw->phase) {
		case SWEEP_LIST:
			store_sweep_list(sw);
			budget--;
			break;
		case SWEEP_READ:
			if (sw->pos == sw->nruns) {
				store_sweep_choose(sw);
				sw->pos = 0;
				sw->phase = SWEEP_REMOVE;
				break;
			}
			store_sweep_read(sw, &sw->runs[sw->pos++]);
			budget--;
			break;
		case SWEEP_REMOVE:
			if (sw->pos == sw->nruns) {
				store_sweep_names(sw, "decks",
				    store_sweep_is_lock);
				sw->phase = SWEEP_DECKS;
				break;
			}
			sr = &sw->runs[sw->pos++];
			if (sr->remove && !sr->gone) {
				budget -= store_sweep_remove(sw, sr->id);
				sr->gone = 1;
			}
			break;
		case SWEEP_DECKS:
			if (sw->pos == sw->nnames) {
				store_sweep_names_free(sw);
				store_sweep_names(sw, "logs",
				    store_sweep_is_log);
				sw->phase = SWEEP_LEGACY;
				break;
			}
			store_sweep_deck(sw, sw->names[sw->pos++]);
			budget--;
			break;
		case SWEEP_LEGACY:
			if (sw->pos == sw->nnames) {
				store_sweep_names_free(sw);
				sw->phase = SWEEP_DONE;
				break;
			}
			store_sweep_log(sw, sw->names[sw->pos++]);
			budget--;
			break;
		case SWEEP_DONE:
			break;
		}
	}
	return sw->phase != SWEEP_DONE;
}

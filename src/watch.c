/*
 * watch.c: files that restart a job when they change (see watch.h).
 *
 * Globs.  A glob and a path are split at '/' into components; empty
 * components and "." are dropped from both, so "src//x.c", "./src/x.c"
 * and "/src/x.c" are "src/x.c" (every glob is anchored at the base) and
 * "src/" matches "src".  A component that is exactly "**" matches zero or
 * more whole components: "src" then "**" matches src itself and
 * everything below it, "**" alone every path; "**" inside a component is
 * "*".  Any other component is matched against one path component by
 * fnmatch(3) with no flags: `*`, `?`, `[...]` with `!` or `^` negation,
 * ranges and classes, `\` quoting the next character; a leading '.' is
 * matched by wildcards like any other character.  The components are
 * matched in one pass over the path that keeps the set of glob positions
 * still possible (no backtracking, so several "**" cost no more than one).
 *
 * Directories.  The base is watched, and every directory below it that
 * some glob could still match a path under, that no ignore glob matches,
 * and that is not left out by default, breadth first: a glob's fixed
 * leading components limit the walk ("src/" then "**" walks src only,
 * "*.toml" the base only).  Left out by default: dot-directories (.git
 * among them) and node_modules, unless a glob names them, that is reaches
 * them with a component that is not "**" and does not start with a
 * wildcard (".github/x.yml", ".git*" and "node_modules" do; "*" and "**"
 * do not).  Symbolic links to directories are not followed (the base
 * itself may be one).  At most WATCH_MAX_DIRS directories are held and a
 * walk reads at most that many, so it is bounded: at start more is
 * watch_new()'s error; later the watch stops adding directories.
 *
 * Events.  A directory created or moved in is walked, and the files
 * already in it that match count as a change (they raced with its watch);
 * one deleted or moved away is forgotten with everything below it (moved
 * away, it counts as a change).  An event for a file (IN_CLOSE_WRITE,
 * IN_MOVED_TO, IN_MOVED_FROM, IN_CREATE, IN_DELETE, IN_ATTRIB) whose path
 * matches a glob and no ignore glob keeps the first such path since the
 * last call and (re)arms the debounce timer, once per batch of events
 * read; when the timer fires, changed() runs once with that path.  So a
 * save through a temporary file renamed over the target (vim) is one
 * change.  A queue overflow is a change of "." and walks the tree again
 * for directories it may have missed.
 *
 * changed() may free the watch: the timer callback touches nothing of it
 * after the call.
 */
#include <sys/inotify.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loop.h"
#include "watch.h"
#include "xmalloc.h"

/* What a watched directory reports. */
#define WATCH_MASK	(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | \
			 IN_CREATE | IN_DELETE | IN_ATTRIB)
#define WATCH_READ_SIZE	65536	/* bytes of events read at once */
#define WATCH_READ_ROUNDS 16	/* reads a turn, so floods leave the loop be */

/* Flags of watch_match_split(). */
#define WATCH_BELOW	0x1	/* the path is a directory: may a path under */
				/*   it match? */
#define WATCH_NAMED	0x2	/* the path's last component must be named */

/* A glob or a path split into components (pointing into buf). */
struct watch_split {
	char	 *buf;
	char	**comp;
	size_t	  n;
};

/* A watched directory. */
struct watch_dir {
	int	 wd;
	char	*path;		/* relative to the base; "" for the base */
};

struct watch {
	struct loop		*loop;
	char			*base;
	struct watch_split	*globs;
	size_t			 nglobs;
	struct watch_split	*ignore;
	size_t			 nignore;
	int64_t			 debounce_ms;
	const struct watch_cbs	*cbs;
	void			*arg;

	int			 fd;		/* inotify */
	struct watch_dir	*dirs;		/* sorted by wd */
	size_t			 ndirs;
	size_t			 dirs_size;
	int			 full;		/* WATCH_MAX_DIRS reached */

	uint64_t		 timer;		/* 0: none pending */
	char			*pending;	/* first changed path or NULL */
	int			 rearm;		/* a change in this batch */
};

static void	 watch_split(const char *, int, struct watch_split *);
static void	 watch_split_free(struct watch_split *);
static int	 watch_is_star(const char *);
static int	 watch_names(const char *);
static int	 watch_check_glob(const struct watch_split *, const char *,
		    char **);
static int	 watch_match_split(const struct watch_split *,
		    const struct watch_split *, int);
static int	 watch_ignored(struct watch *, const struct watch_split *);
static int	 watch_wanted_dir(struct watch *, const char *);
static int	 watch_wanted_file(struct watch *, const char *);
static char	*watch_join(const char *, const char *);
static char	*watch_full(struct watch *, const char *);
static size_t	 watch_find(struct watch *, int);
static int	 watch_add_dir(struct watch *, const char *, char **);
static void	 watch_forget(struct watch *, size_t);
static int	 watch_forget_below(struct watch *, const char *);
static int	 watch_is_dir(DIR *, const struct dirent *);
static int	 watch_walk(struct watch *, const char *, int, char **);
static void	 watch_note(struct watch *, const char *);
static void	 watch_event(struct watch *, const struct inotify_event *);
static void	 watch_read_cb(int, short, void *);
static void	 watch_timer_cb(void *);

/*
 * Split s into components at '/', dropping empty ones and "."; for a glob,
 * runs of "**" become one.
 */
static void
watch_split(const char *s, int glob, struct watch_split *out)
{
	char	*p, *c;

	out->buf = xstrdup(s);
	out->comp = xreallocarray(NULL, strlen(s) / 2 + 1, sizeof *out->comp);
	out->n = 0;
	for (p = out->buf; p != NULL; ) {
		c = strsep(&p, "/");
		if (*c == '\0' || strcmp(c, ".") == 0)
			continue;
		if (glob && watch_is_star(c) && out->n > 0 &&
		    watch_is_star(out->comp[out->n - 1]))
			continue;
		out->comp[out->n++] = c;
	}
}

/* Free what watch_split() made. */
static void
watch_split_free(struct watch_split *s)
{
	free(s->comp);
	free(s->buf);
}

/* Return 1 if the glob component c is "**". */
static int
watch_is_star(const char *c)
{
	return strcmp(c, "**") == 0;
}

/* Return 1 if the glob component c names a directory (no leading wildcard). */
static int
watch_names(const char *c)
{
	return *c != '*' && *c != '?' && *c != '[';
}

/* Refuse a split glob that names nothing or leaves the base. */
static int
watch_check_glob(const struct watch_split *g, const char *glob, char **cause)
{
	size_t	i;

	if (g->n == 0) {
		*cause = xprintf("watch glob '%s' names no file", glob);
		return -1;
	}
	for (i = 0; i < g->n; i++) {
		if (strcmp(g->comp[i], "..") == 0) {
			*cause = xprintf("watch glob '%s': '..' leaves the "
			    "directory watched", glob);
			return -1;
		}
	}
	return 0;
}

/*
 * Return 1 if glob g matches path p (see the top of the file).  With
 * WATCH_BELOW, if g could match a path under the directory p; with
 * WATCH_NAMED, only ways in which p's last component is matched by a
 * component that names it count.
 */
static int
watch_match_split(const struct watch_split *g, const struct watch_split *p,
    int flags)
{
	unsigned char	*cur, *next, *swap;
	size_t		 gi, pi;
	int		 last, any, ok = 0;

	/* cur[gi]: glob components before gi can match path's before pi. */
	cur = xcalloc(g->n + 1, 1);
	next = xcalloc(g->n + 1, 1);
	cur[0] = 1;
	for (pi = 0;; pi++) {
		for (gi = 0; gi < g->n; gi++) {
			if (cur[gi] && watch_is_star(g->comp[gi]))
				cur[gi + 1] = 1;
		}
		if (pi == p->n)
			break;
		last = (flags & WATCH_NAMED) && pi == p->n - 1;
		memset(next, 0, g->n + 1);
		any = 0;
		for (gi = 0; gi < g->n; gi++) {
			if (!cur[gi])
				continue;
			if (watch_is_star(g->comp[gi])) {
				if (!last)
					next[gi] = any = 1;
			} else if ((!last || watch_names(g->comp[gi])) &&
			    fnmatch(g->comp[gi], p->comp[pi], 0) == 0)
				next[gi + 1] = any = 1;
		}
		swap = cur;
		cur = next;
		next = swap;
		if (!any)
			goto out;
	}
	if (flags & WATCH_BELOW) {
		for (gi = 0; gi < g->n && !ok; gi++)
			ok = cur[gi];
	} else
		ok = cur[g->n];
out:
	free(next);
	free(cur);
	return ok;
}

/* Return 1 if path matches glob (see the top of the file). */
int
watch_match(const char *glob, const char *path)
{
	struct watch_split	g, p;
	int			ok;

	watch_split(glob, 1, &g);
	watch_split(path, 0, &p);
	ok = watch_match_split(&g, &p, 0);
	watch_split_free(&p);
	watch_split_free(&g);
	return ok;
}

/* Return 1 if some ignore glob matches the split path. */
static int
watch_ignored(struct watch *w, const struct watch_split *p)
{
	size_t	i;

	for (i = 0; i < w->nignore; i++) {
		if (watch_match_split(&w->ignore[i], p, 0))
			return 1;
	}
	return 0;
}

/* Return 1 if the directory rel (not the base) is to be watched. */
static int
watch_wanted_dir(struct watch *w, const char *rel)
{
	struct watch_split	 p;
	const char		*name;
	size_t			 i;
	int			 flags = WATCH_BELOW, ok = 0;

	watch_split(rel, 0, &p);
	if (p.n == 0 || watch_ignored(w, &p))
		goto out;
	name = p.comp[p.n - 1];
	if (*name == '.' || strcmp(name, "node_modules") == 0)
		flags |= WATCH_NAMED;
	for (i = 0; i < w->nglobs && !ok; i++)
		ok = watch_match_split(&w->globs[i], &p, flags);
out:
	watch_split_free(&p);
	return ok;
}

/* Return 1 if a change of the file rel counts. */
static int
watch_wanted_file(struct watch *w, const char *rel)
{
	struct watch_split	p;
	size_t			i;
	int			ok = 0;

	watch_split(rel, 0, &p);
	for (i = 0; i < w->nglobs && !ok; i++)
		ok = watch_match_split(&w->globs[i], &p, 0);
	if (ok && watch_ignored(w, &p))
		ok = 0;
	watch_split_free(&p);
	return ok;
}

/* Return dir/name, or name when dir is "" (the base). */
static char *
watch_join(const char *dir, const char *name)
{
	if (*dir == '\0')
		return xstrdup(name);
	return xprintf("%s/%s", dir, name);
}

/* Return the path of rel on the file system. */
static char *
watch_full(struct watch *w, const char *rel)
{
	if (*rel == '\0')
		return xstrdup(w->base);
	return xprintf("%s/%s", w->base, rel);
}

/* Return the index of the directory with watch descriptor wd, or ndirs. */
static size_t
watch_find(struct watch *w, int wd)
{
	size_t	lo = 0, hi = w->ndirs, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (w->dirs[mid].wd == wd)
			return mid;
		if (w->dirs[mid].wd < wd)
			lo = mid + 1;
		else
			hi = mid;
	}
	return w->ndirs;
}

/*
 * Watch the directory rel: return 1 if it is watched now (or was), 0 if it
 * is not the base and cannot be (gone, not a directory, not readable), or
 * -1 with *cause set (WATCH_MAX_DIRS, the system's limit, other errors).
 */
static int
watch_add_dir(struct watch *w, const char *rel, char **cause)
{
	char	*full;
	size_t	 i;
	int	 wd;

	full = watch_full(w, rel);
	wd = inotify_add_watch(w->fd, full, WATCH_MASK | IN_ONLYDIR |
	    (*rel == '\0' ? 0 : IN_DONT_FOLLOW));
	if (wd == -1) {
		if (*rel != '\0' && (errno == ENOENT || errno == ENOTDIR ||
		    errno == EACCES || errno == ELOOP)) {
			free(full);
			return 0;
		}
		if (errno == ENOSPC) {
			*cause = xprintf("cannot watch %s: the system's limit "
			    "of inotify watches is reached "
			    "(fs.inotify.max_user_watches)", full);
		} else
			*cause = xprintf("cannot watch %s: %s", full,
			    strerror(errno));
		free(full);
		return -1;
	}
	free(full);
	if (watch_find(w, wd) != w->ndirs)
		return 1;
	if (w->ndirs == WATCH_MAX_DIRS) {
		inotify_rm_watch(w->fd, wd);
		w->full = 1;
		*cause = xprintf("more than %d directories to watch under %s: "
		    "narrow the watch globs or add watch_ignore",
		    WATCH_MAX_DIRS, w->base);
		return -1;
	}
	if (w->ndirs == w->dirs_size) {
		w->dirs_size = w->dirs_size * 2 + 16;
		w->dirs = xreallocarray(w->dirs, w->dirs_size, sizeof *w->dirs);
	}
	/* Descriptors grow, so this is an append but for a wrap-around. */
	for (i = w->ndirs; i > 0 && w->dirs[i - 1].wd > wd; i--)
		/* nothing */;
	memmove(&w->dirs[i + 1], &w->dirs[i], (w->ndirs - i) *
	    sizeof *w->dirs);
	w->dirs[i].wd = wd;
	w->dirs[i].path = xstrdup(rel);
	w->ndirs++;
	return 1;
}

/* Drop the directory at index i from the table (its watch is gone). */
static void
watch_forget(struct watch *w, size_t i)
{
	free(w->dirs[i].path);
	memmove(&w->dirs[i], &w->dirs[i + 1], (w->ndirs - i - 1) *
	    sizeof *w->dirs);
	w->ndirs--;
}

/* Stop watching rel and every directory under it; return how many. */
static int
watch_forget_below(struct watch *w, const char *rel)
{
	size_t	i, len = strlen(rel);
	int	n = 0;
	char	*p;

	for (i = 0; i < w->ndirs; ) {
		p = w->dirs[i].path;
		if (strncmp(p, rel, len) == 0 && (p[len] == '\0' ||
		    p[len] == '/')) {
			inotify_rm_watch(w->fd, w->dirs[i].wd);
			watch_forget(w, i);
			n++;
		} else
			i++;
	}
	return n;
}

/* Return 1 if the entry e of the open directory d is a directory. */
static int
watch_is_dir(DIR *d, const struct dirent *e)
{
	struct stat	st;

	if (e->d_type != DT_UNKNOWN)
		return e->d_type == DT_DIR;
	if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return 0;
	return S_ISDIR(st.st_mode);
}

/*
 * Watch the directory rel and the wanted ones under it, breadth first,
 * reading at most WATCH_MAX_DIRS of them; with report, matching files
 * found count as changes.  Return 0, or -1 with *cause set.
 */
static int
watch_walk(struct watch *w, const char *rel, int report, char **cause)
{
	char		**queue, *full, *child;
	size_t		  nqueue = 1, qsize = 16, qi;
	DIR		 *d;
	struct dirent	 *e;
	int		  rc = 0, added;

	queue = xreallocarray(NULL, qsize, sizeof *queue);
	queue[0] = xstrdup(rel);
	for (qi = 0; qi < nqueue; qi++) {
		if (qi == WATCH_MAX_DIRS) {
			w->full = 1;
			*cause = xprintf("more than %d directories to watch "
			    "under %s: narrow the watch globs or add "
			    "watch_ignore", WATCH_MAX_DIRS, w->base);
			rc = -1;
			break;
		}
		if ((added = watch_add_dir(w, queue[qi], cause)) == -1) {
			rc = -1;
			break;
		}
		full = watch_full(w, queue[qi]);
		d = added ? opendir(full) : NULL;
		free(full);
		if (d == NULL)
			continue;
		while ((e = readdir(d)) != NULL) {
			if (strcmp(e->d_name, ".") == 0 ||
			    strcmp(e->d_name, "..") == 0)
				continue;
			child = watch_join(queue[qi], e->d_name);
			if (!watch_is_dir(d, e)) {
				if (report && watch_wanted_file(w, child))
					watch_note(w, child);
				free(child);
				continue;
			}
			if (!watch_wanted_dir(w, child)) {
				free(child);
				continue;
			}
			if (nqueue == qsize) {
				qsize *= 2;
				queue = xreallocarray(queue, qsize,
				    sizeof *queue);
			}
			queue[nqueue++] = child;
		}
		closedir(d);
	}
	for (qi = 0; qi < nqueue; qi++)
		free(queue[qi]);
	free(queue);
	return rc;
}

/* Count a change of rel: keep the first path, re-arm after the batch. */
static void
watch_note(struct watch *w, const char *rel)
{
	if (w->pending == NULL)
		w->pending = xstrdup(rel);
	w->rearm = 1;
}

/* Handle one inotify event. */
static void
watch_event(struct watch *w, const struct inotify_event *ev)
{
	char	*rel, *cause = NULL;
	size_t	 i;

	if (ev->mask & IN_Q_OVERFLOW) {
		watch_note(w, ".");
		if (!w->full && watch_walk(w, "", 0, &cause) != 0)
			free(cause);
		return;
	}
	if ((i = watch_find(w, ev->wd)) == w->ndirs)
		return;
	if (ev->mask & IN_IGNORED) {
		watch_forget(w, i);
		return;
	}
	if (ev->len == 0 || ev->name[0] == '\0')
		return;
	rel = watch_join(w->dirs[i].path, ev->name);
	if (!(ev->mask & IN_ISDIR)) {
		if (watch_wanted_file(w, rel))
			watch_note(w, rel);
	} else if (ev->mask & (IN_CREATE | IN_MOVED_TO)) {
		if (!w->full && watch_wanted_dir(w, rel) &&
		    watch_walk(w, rel, 1, &cause) != 0)
			free(cause);
	} else if (ev->mask & (IN_MOVED_FROM | IN_DELETE)) {
		if (watch_forget_below(w, rel) > 0 &&
		    (ev->mask & IN_MOVED_FROM))
			watch_note(w, rel);
	}
	free(rel);
}

/* Read the pending events, a bounded number of reads a turn. */
static void
watch_read_cb(int fd, short revents, void *arg)
{
	struct watch			*w = arg;
	union {
		struct inotify_event	 ev;
		char			 buf[WATCH_READ_SIZE];
	}				 u;
	const struct inotify_event	*ev;
	ssize_t				 n, off;
	int				 round;

	(void)revents;
	for (round = 0; round < WATCH_READ_ROUNDS; round++) {
		n = read(fd, u.buf, sizeof u.buf);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		for (off = 0; off + (ssize_t)sizeof *ev <= n;
		    off += (ssize_t)(sizeof *ev + ev->len)) {
			ev = (const struct inotify_event *)(u.buf + off);
			watch_event(w, ev);
		}
	}
	if (w->rearm) {
		w->rearm = 0;
		if (w->timer != 0)
			loop_cancel_timer(w->loop, w->timer);
		w->timer = loop_add_timer(w->loop, w->debounce_ms,
		    watch_timer_cb, w);
	}
}

/* The changes have been quiet for the debounce time: call changed once. */
static void
watch_timer_cb(void *arg)
{
	struct watch	*w = arg;
	char		*path = w->pending;
	void		(*changed)(const char *, void *) = NULL;

	w->timer = 0;
	w->pending = NULL;
	if (w->cbs != NULL)
		changed = w->cbs->changed;
	if (path != NULL && changed != NULL)
		changed(path, w->arg);
	free(path);
}

/*
 * Start watching: globs and ignore globs relative to base, changed() after
 * debounce_ms of quiet.  Return the watch, or NULL with *cause set.
 */
struct watch *
watch_new(struct loop *loop, const char *base, char *const *globs,
    size_t nglobs, char *const *ignore, size_t nignore, int64_t debounce_ms,
    const struct watch_cbs *cbs, void *arg, char **cause)
{
	struct watch	*w;
	size_t		 i;

	if (nglobs == 0) {
		*cause = xstrdup("no files to watch (watch is empty)");
		return NULL;
	}
	w = xcalloc(1, sizeof *w);
	w->loop = loop;
	w->base = xstrdup(base);
	w->debounce_ms = debounce_ms < 0 ? 0 : debounce_ms;
	w->cbs = cbs;
	w->arg = arg;
	w->fd = -1;
	w->globs = xcalloc(nglobs, sizeof *w->globs);
	for (i = 0; i < nglobs; i++) {
		watch_split(globs[i], 1, &w->globs[i]);
		w->nglobs++;
		if (watch_check_glob(&w->globs[i], globs[i], cause) != 0)
			goto fail;
	}
	w->ignore = xcalloc(nignore == 0 ? 1 : nignore, sizeof *w->ignore);
	for (i = 0; i < nignore; i++, w->nignore++)
		watch_split(ignore[i], 1, &w->ignore[i]);

	w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (w->fd == -1) {
		*cause = xprintf("inotify: %s", strerror(errno));
		goto fail;
	}
	if (watch_walk(w, "", 0, cause) != 0)
		goto fail;
	if (loop_watch_fd(loop, w->fd, POLLIN, watch_read_cb, w) != 0) {
		*cause = xprintf("cannot watch the inotify fd: %s",
		    strerror(errno));
		goto fail;
	}
	return w;

fail:
	if (w->fd != -1) {
		close(w->fd);
		w->fd = -1;
	}
	watch_free(w);
	return NULL;
}

/* Stop watching: no callback runs after this; NULL is ignored. */
void
watch_free(struct watch *w)
{
	size_t	i;

	if (w == NULL)
		return;
	if (w->fd != -1) {
		loop_unwatch_fd(w->loop, w->fd);
		close(w->fd);
	}
	if (w->timer != 0)
		loop_cancel_timer(w->loop, w->timer);
	for (i = 0; i < w->ndirs; i++)
		free(w->dirs[i].path);
	free(w->dirs);
	for (i = 0; i < w->nglobs; i++)
		watch_split_free(&w->globs[i]);
	free(w->globs);
	for (i = 0; i < w->nignore; i++)
		watch_split_free(&w->ignore[i]);
	free(w->ignore);
	free(w->pending);
	free(w->base);
	free(w);
}

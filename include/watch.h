/*
 * watch: files that restart a job when they change.  Globs (`*`, `?`,
 * `[...]` within a name; `**` for any number of directories) relative to a
 * base directory select the files; ignore globs leave files and whole
 * directories out.  inotify watches every directory under the base that
 * a glob could reach (new directories are added as they appear, gone ones
 * dropped, the number bounded), and the callback runs once the changes
 * have been quiet for the debounce time, with the first changed path.
 * Nothing blocks the loop: events are read from a non-blocking inotify fd.
 *
 * Ownership: the caller owns the struct watch; it owns its inotify fd and
 * its timer.  The path passed to changed is only valid during the call.
 */
#ifndef JOBDECK_WATCH_H
#define JOBDECK_WATCH_H

#include <stddef.h>
#include <stdint.h>

struct loop;
struct watch;

#define WATCH_MAX_DIRS	4096	/* directories one watch may hold */

struct watch_cbs {
	void	(*changed)(const char *path, void *arg);  /* relative to base */
};

struct watch	*watch_new(struct loop *, const char *base,
		    char *const *globs, size_t nglobs,
		    char *const *ignore, size_t nignore, int64_t debounce_ms,
		    const struct watch_cbs *, void *arg, char **cause);
void		 watch_free(struct watch *);
int		 watch_match(const char *glob, const char *path);

#endif

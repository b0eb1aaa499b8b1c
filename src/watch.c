/* watch.c: files that restart a job (see watch.h).  Groundwork stub. */
#include <stdlib.h>

#include "watch.h"
#include "xmalloc.h"

/* Start watching (not built yet). */
struct watch *
watch_new(struct loop *loop, const char *base, char *const *globs,
    size_t nglobs, char *const *ignore, size_t nignore, int64_t debounce_ms,
    const struct watch_cbs *cbs, void *arg, char **cause)
{
	(void)loop;
	(void)base;
	(void)globs;
	(void)nglobs;
	(void)ignore;
	(void)nignore;
	(void)debounce_ms;
	(void)cbs;
	(void)arg;
	*cause = xstrdup("watch is not built yet");
	return NULL;
}

/* Stop watching. */
void
watch_free(struct watch *w)
{
	(void)w;
}

/* Return whether path matches glob (not built yet). */
int
watch_match(const char *glob, const char *path)
{
	(void)glob;
	(void)path;
	return 0;
}

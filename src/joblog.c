/*
 * joblog.c: an append-only file of one job's raw output.
 *
 * joblog_open() creates each missing directory of the path with mode 0700
 * (existing ones are left as they are) and refuses a final directory owned
 * by another user, since the /tmp fallback of joblog_default_dir() is in a
 * shared place.  The file is opened O_APPEND with mode 0600; symbolic
 * links are followed.  The first write error closes the file and records
 * "log disabled: PATH: strerror"; that write returns -1 and every later one
 * is ignored and returns 0, so the job goes on without its log.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "joblog.h"
#include "store-private.h"
#include "xmalloc.h"

struct joblog {
	int	 fd;		/* -1 once logging is off */
	char	*path;
	char	*error;		/* why logging is off, or NULL */
	off_t	 size;
	int	 idle;		/* fd closed by joblog_idle(), reopened on write */
};



/*
 * Create dir and its missing parents with mode 0700, like mkdir -p: the
 * store's rule (store_make_dir()), until the log goes with this file.
 */
int
joblog_make_dir(const char *dir, char **cause)
{
	return store_make_dir(dir, cause);
}

/* Open (creating if needed) dir/name for appending, making dir if missing. */
struct joblog *
joblog_open(const char *dir, const char *name, char **cause)
{
	struct joblog	*jl;
	struct stat	 sb;
	char		*path;
	int		 fd;

	if (dir == NULL || *dir == '\0') {
		*cause = xstrdup("no log directory");
		return NULL;
	}
	if (name == NULL || *name == '\0' || strchr(name, '/') != NULL ||
	    strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
		*cause = xprintf("bad log file name: \"%s\"",
		    name == NULL ? "" : name);
		return NULL;
	}
	if (joblog_make_dir(dir, cause) != 0)
		return NULL;

	if (dir[strlen(dir) - 1] == '/')
		path = xprintf("%s%s", dir, name);
	else
		path = xprintf("%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOCTTY |
	    O_NOFOLLOW, 0600);
	if (fd == -1 || fstat(fd, &sb) != 0) {
		*cause = xprintf("%s: %s", path, strerror(errno));
		if (fd != -1)
			close(fd);
		free(path);
		return NULL;
	}

	jl = xcalloc(1, sizeof *jl);
	jl->fd = fd;
	jl->path = path;
	jl->size = S_ISREG(sb.st_mode) ? sb.st_size : 0;
	return jl;
}

/* Close the file and free the log. */
void
joblog_close(struct joblog *jl)
{
	if (jl == NULL)
		return;
	if (jl->fd != -1)
		close(jl->fd);
	free(jl->path);
	free(jl->error);
	free(jl);
}

/* Append all of buf; on error turn logging off and return -1, once. */
int
joblog_write(struct joblog *jl, const void *buf, size_t len)
{
	const char	*p = buf;
	ssize_t		 n;
	int		 error;

	if (jl->fd == -1 && jl->idle) {
		jl->idle = 0;
		jl->fd = open(jl->path, O_WRONLY | O_CREAT | O_APPEND |
		    O_CLOEXEC | O_NOCTTY | O_NOFOLLOW, 0600);
		if (jl->fd == -1) {
			jl->error = xprintf("log disabled: %s: %s", jl->path,
			    strerror(errno));
			return -1;
		}
	}
	if (jl->fd == -1)
		return 0;
	while (len > 0) {
		n = write(jl->fd, p, len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0) {
			error = n == 0 ? ENOSPC : errno;
			jl->error = xprintf("log disabled: %s: %s", jl->path,
			    strerror(error));
			close(jl->fd);
			jl->fd = -1;
			return -1;
		}
		p += n;
		len -= (size_t)n;
		jl->size += n;
	}
	return 0;
}

/*
 * Close the file while nothing can be written to it (the job's output has
 * ended), so a finished job holds no descriptor; a later write (the job
 * restarted) opens it again.
 */
void
joblog_idle(struct joblog *jl)
{
	if (jl->fd == -1 || jl->error != NULL)
		return;
	close(jl->fd);
	jl->fd = -1;
	jl->idle = 1;
}

/* Return the log file's path. */
const char *
joblog_path(const struct joblog *jl)
{
	return jl->path;
}

/* Return why logging was turned off, or NULL while it is on. */
const char *
joblog_error(const struct joblog *jl)
{
	return jl->error;
}

/* Return the file's size: what it held when opened plus what was written. */
off_t
joblog_size(const struct joblog *jl)
{
	return jl->size;
}

/*
 * Return a new string: the default log directory for this user, logs in
 * the store's default directory (store_default_dir()).
 */
char *
joblog_default_dir(void)
{
	char	*dir, *logs;

	dir = store_default_dir();
	logs = xprintf("%s/logs", dir);
	free(dir);
	return logs;
}

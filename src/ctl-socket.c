/*
 * ctl-socket.c: where a deck's control sockets are and who may use them
 * (ctl-private.h): the runtime directory (owned by the user, 0700, else a
 * private fallback), the names NAME.sock and NAME.ro, the lock held while
 * probing, a probe that tells a running deck from a crashed one's socket,
 * and bind/unbind of one socket.  The client (ctl-client.c) checks the
 * same paths through ctl_socket_path(), and `jobdeck ls` (ls.c) lists
 * the decks' sockets through ctl_socket_names().
 */
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl.h"
#include "ctl-private.h"
#include "fatal.h"


/* Return whether name can name a deck: [A-Za-z0-9_.-]+, at most 64. */
static int
ctl_valid_name(const char *name)
{
	size_t	len = strlen(name);

	return len > 0 && len <= CTL_NAME_MAX &&
	    strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789_.-") == len;
}

/*
 * Check (and with create, make) the socket directory: a real directory,
 * owned by us, that group and others cannot write.  A missing directory
 * is fine without create (no deck runs there).
 */
static int
ctl_check_dir(const char *dir, int create, char **cause)
{
	struct stat	sb;

	if (lstat(dir, &sb) != 0) {
		if (errno != ENOENT) {
			*cause = xprintf("%s: %s", dir, strerror(errno));
			return -1;
		}
		if (!create)
			return 0;
		if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
			*cause = xprintf("cannot create %s: %s", dir,
			    strerror(errno));
			return -1;
		}
		if (lstat(dir, &sb) != 0) {
			*cause = xprintf("%s: %s", dir, strerror(errno));
			return -1;
		}
	}
	if (!S_ISDIR(sb.st_mode)) {
		*cause = xprintf("%s is not a directory", dir);
		return -1;
	}
	if (sb.st_uid != geteuid()) {
		*cause = xprintf("%s is owned by uid %ld, not by this user "
		    "(uid %ld); refusing to use it", dir, (long)sb.st_uid,
		    (long)geteuid());
		return -1;
	}
	if (sb.st_mode & (S_IWGRP | S_IWOTH)) {
		*cause = xprintf("%s can be written by group or others (mode "
		    "%04o); refusing to use it (chmod 700 it)", dir,
		    (unsigned int)(sb.st_mode & 07777));
		return -1;
	}
	return 0;
}

/*
 * Return the socket directory under /run/user/UID (where a session's
 * XDG_RUNTIME_DIR is) when that is the user's own directory that no one
 * else may enter, for a process started without XDG_RUNTIME_DIR (an MCP
 * client passes its server a few variables only); else NULL.
 */
static char *
ctl_runtime_fallback(void)
{
	struct stat	 sb;
	char		*run;

	run = xprintf("/run/user/%ld", (long)geteuid());
	if (stat(run, &sb) != 0 || !S_ISDIR(sb.st_mode) ||
	    sb.st_uid != geteuid() || (sb.st_mode & 077) != 0) {
		free(run);
		return NULL;
	}
	free(run);
	return xprintf("/run/user/%ld/jobdeck", (long)geteuid());
}

/*
 * Work out the sockets' directory ($XDG_RUNTIME_DIR/jobdeck, else
 * /run/user/UID/jobdeck, else /tmp/jobdeck-UID) and check it (made with
 * create); 0 with *dir (for the caller to free), or -1 with *cause.
 */
int
ctl_socket_dir(int create, char **dir, char **cause)
{
	const char	*runtime;

	runtime = getenv("XDG_RUNTIME_DIR");
	if (runtime != NULL && runtime[0] == '/')
		*dir = xprintf("%s/jobdeck", runtime);
	else if ((*dir = ctl_runtime_fallback()) == NULL)
		*dir = xprintf("/tmp/jobdeck-%ld", (long)geteuid());
	if (ctl_check_dir(*dir, create, cause) != 0) {
		free(*dir);
		*dir = NULL;
		return -1;
	}
	return 0;
}

/*
 * Work out the socket path of deck name (NAME.sock, or NAME.ro with
 * CTL_PATH_READ_ONLY: no name's .sock or .lock can be it) and check its
 * directory (made with CTL_PATH_CREATE); 0 with *path (for the caller to
 * free), or -1 with *cause.
 */
int
ctl_socket_path(const char *name, int flags, char **path, char **cause)
{
	struct sockaddr_un	 sun;
	char			*dir;

	*path = NULL;
	if (!ctl_valid_name(name)) {
		*cause = xprintf("bad deck name: %s (letters, digits, '_', "
		    "'.' and '-', at most %d)", name, CTL_NAME_MAX);
		return -1;
	}
	if (ctl_socket_dir((flags & CTL_PATH_CREATE) != 0, &dir, cause) != 0)
		return -1;
	*path = xprintf("%s/%s.%s", dir, name,
	    (flags & CTL_PATH_READ_ONLY) ? "ro" : "sock");
	free(dir);
	if (strlen(*path) >= sizeof sun.sun_path) {
		*cause = xprintf("socket path too long: %s", *path);
		free(*path);
		*path = NULL;
		return -1;
	}
	return 0;
}

/* Order two names for qsort(). */
static int
ctl_name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * List the decks whose sockets are in the sockets' directory: every
 * NAME.sock that is a socket and whose NAME is a deck's, sorted by name
 * (a deck killed with SIGKILL leaves its socket: the list says nothing of
 * who listens).  0 with *names (*count of them; free each and the array),
 * none when the directory does not exist, or -1 with *cause.
 */
int
ctl_socket_names(char ***names, size_t *count, char **cause)
{
	struct dirent	 *de;
	struct stat	  sb;
	DIR		 *dp;
	char		 *dir, *name;
	size_t		  len, n = 0;

	*names = NULL;
	*count = 0;
	if (ctl_socket_dir(0, &dir, cause) != 0)
		return -1;
	if ((dp = opendir(dir)) == NULL) {
		if (errno == ENOENT) {
			free(dir);
			return 0;
		}
		*cause = xprintf("%s: %s", dir, strerror(errno));
		free(dir);
		return -1;
	}
	while ((de = readdir(dp)) != NULL) {
		len = strlen(de->d_name);
		if (len <= 5 || strcmp(de->d_name + len - 5, ".sock") != 0)
			continue;
		if (fstatat(dirfd(dp), de->d_name, &sb,
		    AT_SYMLINK_NOFOLLOW) != 0 || !S_ISSOCK(sb.st_mode))
			continue;
		name = xstrndup(de->d_name, len - 5);
		if (!ctl_valid_name(name)) {
			free(name);
			continue;
		}
		*names = xreallocarray(*names, n + 1, sizeof **names);
		(*names)[n++] = name;
	}
	closedir(dp);
	free(dir);
	if (n > 0)
		qsort(*names, n, sizeof **names, ctl_name_cmp);
	*count = n;
	return 0;
}

/* Fill a Unix socket address with path (checked to fit). */
static void
ctl_sockaddr(struct sockaddr_un *sun, const char *path)
{
	memset(sun, 0, sizeof *sun);
	sun->sun_family = AF_UNIX;
	snprintf(sun->sun_path, sizeof sun->sun_path, "%s", path);
}

/*
 * Return 1 if a deck answers on path, 0 if nothing does (no socket, or a
 * stale one, which is removed), -1 with *cause if path is unusable.
 */
int
ctl_probe(const char *path, char **cause)
{
	struct sockaddr_un	sun;
	struct stat		sb;
	int			fd, rc;

	if (lstat(path, &sb) != 0) {
		if (errno == ENOENT)
			return 0;
		*cause = xprintf("%s: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISSOCK(sb.st_mode)) {
		*cause = xprintf("%s exists and is not a socket", path);
		return -1;
	}
	/* Non-blocking: a full backlog is EAGAIN, not a wait in connect(). */
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd == -1) {
		*cause = xprintf("socket: %s", strerror(errno));
		return -1;
	}
	ctl_sockaddr(&sun, path);
	do
		rc = connect(fd, (struct sockaddr *)&sun, sizeof sun);
	while (rc == -1 && errno == EINTR);
	close(fd);
	if (rc == 0 || errno == EAGAIN)
		return 1;	/* EAGAIN: a deck whose backlog is full */
	if (errno == ECONNREFUSED) {
		/* Left by a deck that died: nobody listens any more. */
		if (sb.st_uid != geteuid()) {
			*cause = xprintf("%s is owned by uid %ld, not by this "
			    "user; refusing to replace it", path,
			    (long)sb.st_uid);
			return -1;
		}
		if (unlink(path) != 0 && errno != ENOENT) {
			*cause = xprintf("cannot remove the stale socket %s: "
			    "%s", path, strerror(errno));
			return -1;
		}
		return 0;
	}
	*cause = xprintf("%s: %s", path, strerror(errno));
	return -1;
}

/*
 * Take NAME.lock beside the socket at path, so that decks of one name
 * start one at a time: without it, one could find the socket of another
 * that has bound but not yet listened "stale" and remove it.  Returns the
 * lock's fd (closing it ends the lock), or -1 with *cause.
 */
int
ctl_lock(const char *path, char **cause)
{
	char	*lock;
	int	 fd, rc;

	lock = xprintf("%.*s.lock", (int)(strlen(path) - 5), path);
	fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY,
	    0600);
	if (fd == -1) {
		*cause = xprintf("%s: %s", lock, strerror(errno));
		free(lock);
		return -1;
	}
	do
		rc = flock(fd, LOCK_EX);
	while (rc == -1 && errno == EINTR);
	if (rc != 0) {
		*cause = xprintf("%s: %s", lock, strerror(errno));
		close(fd);
		fd = -1;
	}
	free(lock);
	return fd;
}

/*
 * Bind a socket at sock's path (a stale one was removed), 0600, and
 * listen on it; 0 with sock's fd and file, or -1 with *cause (no file
 * left behind).
 */
int
ctl_bind(const char *name, struct ctl_sock *sock, char **cause)
{
	struct sockaddr_un	 sun;
	struct stat		 sb;
	const char		*path = sock->path;
	mode_t			 mask;
	int			 fd, rc, error;

	if (path == NULL)
		fatal("ctl_bind: no path");

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd == -1) {
		*cause = xprintf("socket: %s", strerror(errno));
		return -1;
	}
	ctl_sockaddr(&sun, path);
	mask = umask(0177);
	rc = bind(fd, (struct sockaddr *)&sun, sizeof sun);
	error = errno;
	umask(mask);
	if (rc != 0) {
		if (error == EADDRINUSE)
			*cause = xprintf("a deck named %s is running (%s)",
			    name, path);
		else
			*cause = xprintf("%s: %s", path, strerror(error));
		close(fd);
		return -1;
	}
	if (chmod(path, 0600) != 0 || listen(fd, CTL_CLIENTS_MAX) != 0 ||
	    stat(path, &sb) != 0) {
		*cause = xprintf("%s: %s", path, strerror(errno));
		unlink(path);
		close(fd);
		return -1;
	}
	sock->fd = fd;
	sock->dev = sb.st_dev;
	sock->ino = sb.st_ino;
	return 0;
}

/*
 * Close a listening socket, remove its file if it is still ours, and
 * free its path.
 */
void
ctl_unbind(struct ctl_sock *sock)
{
	struct stat	sb;

	if (sock->fd != -1) {
		close(sock->fd);
		sock->fd = -1;
		if (stat(sock->path, &sb) == 0 && sb.st_dev == sock->dev &&
		    sb.st_ino == sock->ino)
			unlink(sock->path);
	}
	free(sock->path);
	sock->path = NULL;
}

/*
 * Connect to a deck's socket at path; -1 with errno.  A full backlog (a
 * deck that accepts nothing) makes connect() wait as long as a send may,
 * CTL_ANSWER_TIMEOUT_MS, then EAGAIN; with CTL_CONNECT_NOWAIT it is EAGAIN
 * at once.  The socket is blocking once connected.
 */
int
ctl_connect(const char *path, int flags)
{
	struct sockaddr_un	sun;
	struct timeval		tv;
	int			fd, rc;

	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC |
	    ((flags & CTL_CONNECT_NOWAIT) ? SOCK_NONBLOCK : 0), 0)) == -1)
		return -1;
	tv.tv_sec = CTL_ANSWER_TIMEOUT_MS / 1000;
	tv.tv_usec = (CTL_ANSWER_TIMEOUT_MS % 1000) * 1000;
	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof sun.sun_path, "%s", path);
	if (!(flags & CTL_CONNECT_NOWAIT) && setsockopt(fd, SOL_SOCKET,
	    SO_SNDTIMEO, &tv, sizeof tv) != 0)
		goto fail;
	do
		rc = connect(fd, (struct sockaddr *)&sun, sizeof sun);
	while (rc == -1 && errno == EINTR);
	if (rc == -1)
		goto fail;
	if ((flags & CTL_CONNECT_NOWAIT) &&
	    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) == -1)
		goto fail;
	return fd;

fail:
	rc = errno;
	close(fd);
	errno = rc;
	return -1;
}

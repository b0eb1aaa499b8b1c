/*
 * browser-local.c: the deck's local headless Chromium (browser-private.h):
 * its profile directory made, the process started as a supervised
 * process (proc.h) and its "DevTools listening on ws://..." line read, its
 * end, and its profile removed once its group is gone; profiles of dead
 * decks swept.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "browser-private.h"
#include "browser.h"
#include "cgroup.h"
#include "debuglog.h"
#include "jobtable.h"
#include "loop.h"
#include "proc.h"
#include "pty.h"
#include "waitstatus.h"
#include "xmalloc.h"

static void	browser_local_read(struct browser *);
static void	browser_local_fd_cb(int, short, void *);
static void	browser_local_line(struct browser *);
static void	browser_local_exited(struct proc *, int, void *);
static void	browser_local_killed(struct proc *, void *);
static void	browser_local_gone(struct proc *, void *);
static void	browser_local_done(struct browser *);
static int	browser_rmtree_at(int, const char *, int);
static void	browser_rmtree(const char *);
static const char *browser_tmpdir(void);

/* What the local browser tells. */
static const struct proc_cbs browser_local_cbs = {
	.exited = browser_local_exited,
	.killed = browser_local_killed,
	.gone = browser_local_gone,
};

/* Start a local headless Chromium with a private profile. */
void
browser_local_begin(struct browser *b)
{
	static const char *const known[] = {
		"chromium-headless-shell", "chromium", "google-chrome", NULL
	};
	char		**argv, *path = NULL, *dir, *cause = NULL;
	const char	 *tmp, *name;
	size_t		  n, i;
	int		  rc;

	b->kind = BROWSER_KIND_LOCAL;
	browser_set_str(&b->label, "Chrome Headless");
	if (b->command != NULL)
		path = pty_find_program(b->command, NULL);
	for (i = 0; b->command == NULL && known[i] != NULL && path == NULL;
	    i++)
		path = pty_find_program(known[i], NULL);
	if (path == NULL) {
		if (b->command != NULL)
			browser_fail(b, "%s: not found", b->command);
		else
			browser_fail(b, "no browser found: install "
			    "chromium-headless-shell or set browser_command");
		return;
	}
	name = strrchr(path, '/') != NULL ? strrchr(path, '/') + 1 : path;
	browser_set_str(&b->prog, name);

	/* Its deck's token in its name, for a sweep if the deck dies. */
	tmp = browser_tmpdir();
	if (b->cg != NULL)
		dir = xprintf("%s/" BROWSER_PROFILE "%s-XXXXXX", tmp,
		    cgroup_token(b->cg));
	else
		dir = xprintf("%s/" BROWSER_PROFILE "XXXXXX", tmp);
	if (mkdtemp(dir) == NULL) {
		browser_fail(b, "mkdtemp %s: %s", dir, strerror(errno));
		free(dir);
		free(path);
		return;
	}
	b->profile = dir;

	for (n = 0; b->args[n] != NULL; n++)
		;
	argv = xcalloc(n + 12, sizeof *argv);
	i = 0;
	argv[i++] = xstrdup(name);
	argv[i++] = xstrdup("--headless");
	argv[i++] = xstrdup("--remote-debugging-port=0");
	argv[i++] = xstrdup("--remote-debugging-address=127.0.0.1");
	argv[i++] = xprintf("--user-data-dir=%s", dir);
	argv[i++] = xstrdup("--no-first-run");
	argv[i++] = xstrdup("--no-default-browser-check");
	argv[i++] = xstrdup("--disable-gpu");
	if (geteuid() == 0)
		argv[i++] = xstrdup("--no-sandbox");
	for (n = 0; b->args[n] != NULL; n++)
		argv[i++] = xstrdup(b->args[n]);
	argv[i++] = xstrdup("about:blank");
	argv[i] = NULL;

	b->proc = proc_new(jobtable_reaper(b->jt), b->cg, 0,
	    &browser_local_cbs, b);
	b->linelen = 0;
	b->last[0] = '\0';
	rc = browser_spawn(path, argv, b->proc, &b->fd, &cause);
	for (i = 0; argv[i] != NULL; i++)
		free(argv[i]);
	free(argv);
	if (rc != 0) {
		proc_free(b->proc);
		b->proc = NULL;
		b->fd = -1;
		browser_fail(b, "%s: %s", path, cause);
		free(cause);
		free(path);
		return;
	}
	loop_watch_fd(b->loop, b->fd, POLLIN, browser_local_fd_cb, b);
	debuglog("browser: started %s (pid %ld, profile %s)", path,
	    (long)proc_pid(b->proc), dir);
	free(path);
}

/* Read what the local browser wrote (a turn's worth), line by line. */
static void
browser_local_read(struct browser *b)
{
	char	buf[4096];
	ssize_t	n;
	size_t	total = 0, i;

	while (b->fd != -1 && total < BROWSER_READ_MAX) {
		n = read(b->fd, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0) {
			loop_unwatch_fd(b->loop, b->fd);
			close(b->fd);
			b->fd = -1;
			if (b->linelen > 0)
				browser_local_line(b);
			return;
		}
		total += (size_t)n;
		for (i = 0; i < (size_t)n; i++) {
			if (buf[i] == '\n')
				browser_local_line(b);
			else if (buf[i] != '\r' &&
			    b->linelen < sizeof b->line - 1)
				b->line[b->linelen++] = buf[i];
		}
	}
}

/* The local browser's output is readable. */
static void
browser_local_fd_cb(int fd, short revents, void *arg)
{
	struct browser	*b = arg;

	(void)fd;
	(void)revents;
	browser_local_read(b);
}

/*
 * A whole line of the local browser's: kept when not empty, and while
 * starting, its "DevTools listening on ws://..." tells what to ask.
 */
static void
browser_local_line(struct browser *b)
{
	const char	*ws;
	char		*tok, *json;

	b->line[b->linelen] = '\0';
	b->linelen = 0;
	if (strspn(b->line, " \t") == strlen(b->line))
		return;
	memcpy(b->last, b->line, sizeof b->last);
	if (b->state != BROWSER_STARTING || b->json_url != NULL ||
	    (ws = strstr(b->line, "DevTools listening on ")) == NULL)
		return;
	ws += strlen("DevTools listening on ");
	tok = xstrndup(ws, strcspn(ws, " \t"));
	json = browser_json_url(tok, 0, NULL);
	debuglog("browser: DevTools at %s", tok);
	if (json == NULL) {
		/* A line that lies: the next may not; the timeout says. */
		free(b->ask_error);
		b->ask_error = xprintf("not a local ws:// URL: %s", tok);
		free(tok);
		return;
	}
	free(tok);
	b->json_url = json;
	browser_ask(b);
}

/* The local browser's leader ended: a failure unless it was stopped. */
static void
browser_local_exited(struct proc *p, int status, void *arg)
{
	struct browser	*b = arg;
	char		 how[64];

	browser_local_read(b);
	waitstatus_long(status, how, sizeof how);
	debuglog("browser: pid %ld ended: %s", (long)proc_pid(p), how);
	if (b->state == BROWSER_STARTING || b->state == BROWSER_READY) {
		if (b->last[0] != '\0')
			browser_fail(b, "%s: %s: %s", b->prog, how, b->last);
		else
			browser_fail(b, "%s: %s", b->prog, how);
		return;
	}
	proc_end(p, BROWSER_REAP_MS);
}

/* The grace is over: the proc layer has sent SIGKILL. */
static void
browser_local_killed(struct proc *p, void *arg)
{
	(void)arg;
	debuglog("browser: pid %ld: SIGKILL after %d ms", (long)proc_pid(p),
	    BROWSER_GRACE_MS);
}

/*
 * Nothing of the local browser's group and containment is left (or the
 * bound is over): it is released, the state moves on.
 */
static void
browser_local_gone(struct proc *p, void *arg)
{
	struct browser	*b = arg;

	(void)p;
	browser_local_done(b);
}

/*
 * Nothing of the local browser runs: close its output, remove its
 * profile, let its containment go.
 */
void
browser_local_release(struct browser *b)
{
	if (b->fd != -1) {
		loop_unwatch_fd(b->loop, b->fd);
		close(b->fd);
		b->fd = -1;
	}
	if (b->profile != NULL) {
		browser_rmtree(b->profile);
		debuglog("browser: removed %s", b->profile);
		browser_set_str(&b->profile, NULL);
	}
	proc_free(b->proc);
	b->proc = NULL;
}

/* The local browser is gone: released, the state moves on. */
static void
browser_local_done(struct browser *b)
{
	browser_local_release(b);
	browser_settled(b);
}

/*
 * Remove name in directory dfd and, for a directory, everything inside
 * it first, never following a symbolic link; 0 or -1.
 */
static int
browser_rmtree_at(int dfd, const char *name, int depth)
{
	struct dirent	*de;
	DIR		*d;
	int		 fd, rc = 0;

	if (unlinkat(dfd, name, 0) == 0 || errno == ENOENT)
		return 0;
	if ((errno != EISDIR && errno != EPERM) ||
	    depth >= BROWSER_RMTREE_DEPTH)
		return -1;
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (fd == -1 || (d = fdopendir(fd)) == NULL) {
		if (fd != -1)
			close(fd);
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (browser_rmtree_at(dirfd(d), de->d_name, depth + 1) != 0)
			rc = -1;
	}
	closedir(d);
	if (unlinkat(dfd, name, AT_REMOVEDIR) != 0 && errno != ENOENT)
		rc = -1;
	return rc;
}

/* Remove a profile directory and everything in it. */
static void
browser_rmtree(const char *path)
{
	const char	*slash = strrchr(path, '/');
	char		*parent;
	int		 dfd;

	if (slash == NULL)
		return;
	parent = slash == path ? xstrdup("/") :
	    xstrndup(path, (size_t)(slash - path));
	dfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(parent);
	if (dfd == -1)
		return;
	if (browser_rmtree_at(dfd, slash + 1, 0) != 0)
		debuglog("browser: cannot remove all of %s", path);
	close(dfd);
}

/* Return where profiles are made: $TMPDIR when absolute, else /tmp. */
static const char *
browser_tmpdir(void)
{
	const char	*tmp = getenv("TMPDIR");

	return tmp != NULL && *tmp == '/' ? tmp : "/tmp";
}

/*
 * Remove the profiles that decks which have ended left where profiles are
 * made (a deck SIGKILLed while its browser ran): directories of ours
 * named jobdeck-browser-TOKEN-XXXXXX whose TOKEN's deck no longer runs
 * (cgroup_token_dead()).  A symbolic link is never followed, nor removed
 * by this; nothing else is touched.
 */
void
browser_sweep_profiles(void)
{
	struct dirent	*de;
	struct stat	 sb;
	const char	*tok;
	size_t		 len;
	DIR		*d;

	if ((d = opendir(browser_tmpdir())) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, BROWSER_PROFILE,
		    strlen(BROWSER_PROFILE)) != 0)
			continue;
		tok = de->d_name + strlen(BROWSER_PROFILE);
		len = strcspn(tok, "-");
		/* mkdtemp()'s six characters after the token. */
		if (tok[len] != '-' || strlen(tok + len + 1) != 6 ||
		    !cgroup_token_dead(tok, len))
			continue;
		if (fstatat(dirfd(d), de->d_name, &sb, AT_SYMLINK_NOFOLLOW) !=
		    0 || !S_ISDIR(sb.st_mode) || sb.st_uid != geteuid())
			continue;
		debuglog("browser: removing %s/%s, a dead deck's profile",
		    browser_tmpdir(), de->d_name);
		if (browser_rmtree_at(dirfd(d), de->d_name, 0) != 0)
			debuglog("browser: cannot remove all of %s/%s",
			    browser_tmpdir(), de->d_name);
	}
	closedir(d);
}

/*
 * After the loop: end the local browser, bounded (proc_finish()):
 * SIGTERM, SIGKILL after the grace, what is left of its group and
 * containment killed (and its members we inherited reaped), its profile
 * removed.
 */
void
browser_free_local(struct browser *b)
{
	if (b->fd != -1) {
		loop_unwatch_fd(b->loop, b->fd);
		close(b->fd);
		b->fd = -1;
	}
	if (b->proc != NULL) {
		proc_finish(b->proc, SIGTERM, BROWSER_GRACE_MS,
		    BROWSER_REAP_MS);
		debuglog("browser: pid %ld ended (free)",
		    (long)proc_pid(b->proc));
	}
	if (b->profile != NULL) {
		browser_rmtree(b->profile);
		browser_set_str(&b->profile, NULL);
	}
	proc_free(b->proc);
	b->proc = NULL;
}

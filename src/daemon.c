/*
 * daemon.c: a deck started in the background (include/daemon.h).
 *
 * The starting process forks with every signal blocked; the child starts
 * a session of its own (no controlling terminal: a terminal that closes
 * sends it nothing) and forks again, so the deck is nobody's child and
 * can never take a terminal back; the middle process exits at once.  The
 * deck keeps the starter's cwd (its jobs' start there), reads /dev/null,
 * writes stdout to /dev/null, and writes stderr to a pipe the starter
 * reads until the deck says it listens: what goes wrong while it starts
 * (a bad store, a deck of that name running) is printed by the starter.
 * Once it listens, stderr goes to /dev/null (the -v debug log has the
 * rest).  Every other inherited descriptor is closed in the deck.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl.h"
#include "daemon.h"
#include "deck.h"
#include "fatal.h"
#include "xmalloc.h"

#define DAEMON_READY	"\036ready\n"

/* Put /dev/null on fd (0, 1 or 2). */
static void
daemon_null(int fd)
{
	int	n;

	if ((n = open("/dev/null", O_RDWR)) == -1)
		return;
	if (n != fd) {
		dup2(n, fd);
		close(n);
	}
}

/*
 * The deck's process: fds set, the deck made, "ready" told through the
 * pipe (or why not, and the status), run, ended; never returns.
 */
static void __attribute__((noreturn))
daemon_run(struct config *cfg, const struct deck_opts *opts, int report)
{
	struct deck	*d;
	char		*cause = NULL;
	int		 status;

	daemon_null(STDIN_FILENO);
	daemon_null(STDOUT_FILENO);
	if (report != STDERR_FILENO) {
		dup2(report, STDERR_FILENO);
		close(report);
	}
	/* Every other descriptor the starter had is not the deck's. */
	if (close_range(3, ~0U, 0) == -1) {
		long	fd, max = sysconf(_SC_OPEN_MAX);

		for (fd = 3; fd < max; fd++)
			close((int)fd);
	}
	if ((d = deck_new(cfg, opts, &cause, &status)) == NULL) {
		fprintf(stderr, "%s\n\036fail %d\n", cause, status);
		free(cause);
		_exit(status);
	}
	fputs(DAEMON_READY, stderr);
	fflush(stderr);
	daemon_null(STDERR_FILENO);
	status = deck_run(d);
	deck_free(d);
	exit(status);
}

/*
 * Read the deck's start until "ready" (0) or its failure (-1, *status its
 * exit status): what it wrote on stderr meanwhile is kept in *said (NUL
 * ended; the caller prints it, or not, and frees it).
 */
static int
daemon_wait_ready(int fd, int *status, char **said)
{
	struct xbuf	 b = { NULL, 0, 0 };
	FILE		*f;
	char		 line[4096];
	int		 rc = -1;

	*status = 1;
	if ((f = fdopen(fd, "r")) == NULL)
		fatal("fdopen: %s", strerror(errno));
	while (fgets(line, sizeof line, f) != NULL) {
		if (strcmp(line, DAEMON_READY) == 0) {
			rc = 0;
			break;
		}
		if (strncmp(line, "\036fail ", 6) == 0) {
			*status = atoi(line + 6);
			break;
		}
		xbuf_add(&b, line, strlen(line));
	}
	fclose(f);
	if (rc != 0 && *status == 0)
		*status = 1;
	xbuf_add(&b, "", 1);
	*said = b.s;
	return rc;
}

/*
 * Start a deck of cfg (given to it) in the background and wait until it
 * listens on its socket; 0, or -1 with *status; either way *said is what
 * the deck wrote on stderr while it started (for the caller to print).
 * Only the starting process returns.
 */
int
daemon_start(struct config *cfg, const struct deck_opts *opts, int *status,
    char **said)
{
	sigset_t	all, old;
	pid_t		pid, mid;
	int		pfd[2], wstatus;

	if (pipe2(pfd, O_CLOEXEC) == -1) {
		*said = xprintf("jobdeck: pipe: %s\n", strerror(errno));
		*status = 1;
		return -1;
	}
	fflush(NULL);
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	if ((mid = fork()) == -1) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		*said = xprintf("jobdeck: fork: %s\n", strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		*status = 1;
		return -1;
	}
	if (mid == 0) {
		close(pfd[0]);
		setsid();
		if ((pid = fork()) != 0)
			_exit(pid == -1 ? 1 : 0);
		signal(SIGHUP, SIG_IGN);	/* until the deck's own */
		sigprocmask(SIG_SETMASK, &old, NULL);
		fcntl(pfd[1], F_SETFD, 0);
		daemon_run(cfg, opts, pfd[1]);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(pfd[1]);
	while (waitpid(mid, &wstatus, 0) == -1 && errno == EINTR)
		continue;
	return daemon_wait_ready(pfd[0], status, said);
}

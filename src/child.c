/*
 * child.c: fork with hygiene (see child.h).  The only caller of fork().
 *
 * In the child the descriptors are moved in two passes, so that no dup2()
 * onto fd i clobbers another that is still to be moved: a source that
 * sits where a target will be written (below nfds) is first copied above
 * all the places the child fills (nfds, and one more for the exec
 * report), then each is put in its place.  What is left above is closed
 * by close_range(), or one by one up to the fd limit the parent looked up
 * before fork where the kernel has no close_range() (it does not stop at
 * gaps).
 */
#include <sys/ioctl.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "child.h"

#define CHILD_WAIT_STEP_MS	10	/* child_wait()'s look again */

/* In the child: where child_exit() reports, or -1. */
static int	child_report = -1;

static void	child_defaults(void);
static int	child_fds(const struct child_spec *, int);
static int64_t	child_now_ms(void);

/* Fill a spec with nothing kept, no report, no cgroup, no session. */
void
child_spec_init(struct child_spec *spec)
{
	memset(spec, 0, sizeof *spec);
	spec->report = -1;
	spec->join = -1;
}

/* In the child: every signal back to its default disposition, none blocked. */
static void
child_defaults(void)
{
	struct sigaction	sa;
	sigset_t		set;
	int			sig;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	for (sig = 1; sig < NSIG; sig++) {
		if (sig != SIGKILL && sig != SIGSTOP)
			sigaction(sig, &sa, NULL);
	}
	sigemptyset(&set);
	sigprocmask(SIG_SETMASK, &set, NULL);
}

/*
 * In the child: put spec->fds[i] on fd i and the report on fd nfds
 * (close-on-exec), then close everything above; 0, or -1 with errno.
 * Only a source that sits where a target will be written is copied out
 * of the way first, so a child at its fd limit (the deck's at its own)
 * needs no descriptor more than it has.
 */
static int
child_fds(const struct child_spec *spec, int open_max)
{
	int	src[CHILD_FDS_MAX], rep = spec->report, i, first, fd;

	first = spec->nfds + (rep != -1 ? 1 : 0);
	for (i = 0; i < spec->nfds; i++) {
		src[i] = spec->fds[i];
		if (src[i] < spec->nfds && src[i] != i &&
		    (src[i] = fcntl(src[i], F_DUPFD, first)) == -1)
			return -1;
	}
	if (rep != -1 && rep < spec->nfds) {
		if ((rep = fcntl(rep, F_DUPFD_CLOEXEC, first)) == -1)
			return -1;
		child_report = rep;
	}
	for (i = 0; i < spec->nfds; i++) {
		if (src[i] == i) {
			/* dup2() onto itself would leave close-on-exec. */
			if (fcntl(i, F_SETFD, 0) == -1)
				return -1;
		} else if (dup2(src[i], i) == -1)
			return -1;
	}
	if (rep != -1 && rep != spec->nfds) {
		if (dup3(rep, spec->nfds, O_CLOEXEC) == -1)
			return -1;
		child_report = spec->nfds;
	}
	if (close_range((unsigned int)first, ~0U, 0) != 0) {
		for (fd = first; fd < open_max; fd++)
			close(fd);
	}
	return 0;
}

/*
 * Fork a child made ready as the spec says (see child.h) that runs
 * cbs->exec(arg); its pid, or -1 with errno.  Only the child runs the
 * callback.
 */
pid_t
child_fork(const struct child_spec *spec, const struct child_exec *cbs,
    void *arg)
{
	sigset_t	all, old;
	long		max;
	pid_t		pid;
	ssize_t		r;
	int		error, open_max;

	if (spec->nfds < 0 || spec->nfds > CHILD_FDS_MAX) {
		errno = EINVAL;
		return -1;
	}
	max = sysconf(_SC_OPEN_MAX);
	open_max = max <= 0 || max > INT_MAX ? 65536 : (int)max;

	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	pid = fork();
	if (pid == 0) {
		child_report = spec->report;
		if (spec->join != -1) {
			r = write(spec->join, "0", 1);
			(void)r;
		}
		child_defaults();
		if (spec->session && setsid() == -1)
			child_exit(errno, 127);
		if (child_fds(spec, open_max) != 0)
			child_exit(errno, 127);
		if (spec->tty && ioctl(STDIN_FILENO, TIOCSCTTY, 0) == -1)
			child_exit(errno, 127);
		errno = 0;
		cbs->exec(arg);
		child_exit(errno, 127);
	}
	error = errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	errno = error;
	return pid;
}

/*
 * In a child of child_fork(): write error to the exec report, if there
 * is one, and exit with status.
 */
void
child_exit(int error, int status)
{
	ssize_t	r;

	if (child_report != -1) {
		r = write(child_report, &error, sizeof error);
		(void)r;
	}
	_exit(status);
}

/*
 * Write "A: B: strerror", "A: B" or "A: strerror" (error 0 or b NULL
 * leave out their part) to stderr, async-signal-safely: for a child
 * between fork and exec.
 */
void
child_say(const char *a, const char *b, int error)
{
	const char	*msg = NULL;
	ssize_t		 r;

	if (error != 0 && (msg = strerrordesc_np(error)) == NULL)
		msg = "Unknown error";
	r = write(STDERR_FILENO, a, strlen(a));
	if (b != NULL) {
		r = write(STDERR_FILENO, ": ", 2);
		r = write(STDERR_FILENO, b, strlen(b));
	}
	if (msg != NULL) {
		r = write(STDERR_FILENO, ": ", 2);
		r = write(STDERR_FILENO, msg, strlen(msg));
	}
	r = write(STDERR_FILENO, "\n", 1);
	(void)r;
}

/* Return the monotonic clock in milliseconds. */
static int64_t
child_now_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Wait at most ms for pid (a child of ours) to end, reaping it (its wait
 * status in *status unless NULL); 1 once reaped, or when it is not ours
 * to wait for, 0 when it still runs.  It blocks: only outside the loop.
 */
int
child_wait(pid_t pid, int64_t ms, int *status)
{
	struct timespec	 ts = { 0, CHILD_WAIT_STEP_MS * 1000 * 1000 };
	int64_t		 end = child_now_ms() + ms;
	pid_t		 r;
	int		 st;

	for (;;) {
		r = waitpid(pid, &st, WNOHANG);
		if (r == pid && status != NULL)
			*status = st;
		if (r == pid || (r == -1 && errno != EINTR))
			return 1;
		if (child_now_ms() >= end)
			return 0;
		nanosleep(&ts, NULL);
	}
}

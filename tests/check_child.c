/*
 * check_child.c: child_fork() with real children, looked at from outside
 * through /proc while they wait: the fds they were given and no other
 * (moved without clobbering each other, a high stray closed), default
 * signal dispositions and mask whatever ours are, a session of their own
 * and a controlling terminal when asked, the cgroup join's write, the
 * exec report (errno, or end of file once exec'd), exit 127 when the
 * exec callback returns, and child_wait().
 */
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "child.h"
#include "skip.h"
#include "testproc.h"

/* openpty() is libutil's; our include/pty.h shadows the system's. */
int	openpty(int *, int *, char *, const struct termios *,
	    const struct winsize *);

#define WAIT_MS	10000	/* a generous bound on anything awaited */

/*
 * In the child: say "r" on fd 1, then wait until fd 0 reads a byte or
 * its end, and exit 0: the parent looks at it meanwhile.
 */
static void
wait_exec(void *arg)
{
	char	c;
	ssize_t	r;

	(void)arg;
	r = write(STDOUT_FILENO, "r", 1);
	r = read(STDIN_FILENO, &c, 1);
	(void)r;
	_exit(0);
}

static const struct child_exec wait_cbs = { wait_exec };

/* In the child: exec a program that is not there; child_fork() exits. */
static void
missing_exec(void *arg)
{
	char *const	argv[] = { "missing", NULL };

	(void)arg;
	execv("/nonexistent/jobdeck-check-child", argv);
}

static const struct child_exec missing_cbs = { missing_exec };

/* In the child: exec /bin/sh -c 'exit 3'. */
static void
sh_exec(void *arg)
{
	char *const	argv[] = { "sh", "-c", "exit 3", NULL };

	(void)arg;
	execv("/bin/sh", argv);
}

static const struct child_exec sh_cbs = { sh_exec };

/* In the child: wait for a signal for ever. */
static void
pause_exec(void *arg)
{
	(void)arg;
	for (;;)
		pause();
}

static const struct child_exec pause_cbs = { pause_exec };

/* A handler of ours, which the child must not keep. */
static void
on_signal(int sig)
{
	(void)sig;
	abort();
}

/* Read one byte from fd within WAIT_MS; the byte, or -1. */
static int
read_byte(int fd)
{
	struct pollfd	pfd = { fd, POLLIN, 0 };
	char		c;

	if (poll(&pfd, 1, WAIT_MS) != 1 || read(fd, &c, 1) != 1)
		return -1;
	return (unsigned char)c;
}

/* Return what /proc/PID/fd/FD (or /proc/self/fd/FD, pid 0) links to. */
static char *
fd_link(pid_t pid, int fd, char *buf, size_t size)
{
	char	path[64];
	ssize_t	n;

	if (pid == 0)
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	else
		snprintf(path, sizeof path, "/proc/%ld/fd/%d", (long)pid, fd);
	n = readlink(path, buf, size - 1);
	ck_assert_msg(n > 0, "readlink %s: %s", path, strerror(errno));
	buf[n] = '\0';
	return buf;
}

/* Return a mask of the fds (below 64) the process pid has open. */
static unsigned long long
fd_set_of(pid_t pid)
{
	struct dirent		*de;
	DIR			*d;
	char			 path[64];
	unsigned long long	 set = 0;
	long			 fd;

	snprintf(path, sizeof path, "/proc/%ld/fd", (long)pid);
	d = opendir(path);
	ck_assert_msg(d != NULL, "%s: %s", path, strerror(errno));
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		fd = strtol(de->d_name, NULL, 10);
		ck_assert_msg(fd >= 0 && fd < 64, "child has fd %ld", fd);
		set |= 1ULL << fd;
	}
	closedir(d);
	return set;
}

/* Return the hex value of a "Name:\tHEX" line of /proc/PID/status. */
static unsigned long long
status_mask(pid_t pid, const char *name)
{
	FILE			*f;
	char			 path[64], line[256];
	size_t			 len = strlen(name);
	unsigned long long	 v = ~0ULL;

	snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
	f = fopen(path, "re");
	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof line, f) != NULL) {
		if (strncmp(line, name, len) == 0 && line[len] == ':')
			v = strtoull(line + len + 1, NULL, 16);
	}
	fclose(f);
	return v;
}

/* Read fields 5-7 of /proc/PID/stat: process group, session, tty. */
static void
stat_ids(pid_t pid, long *pgrp, long *sid, long *tty)
{
	struct testproc_stat	st;

	ck_assert_msg(testproc_stat(pid, &st) == 0, "no /proc/%ld/stat",
	    (long)pid);
	*pgrp = st.pgrp;
	*sid = st.sid;
	*tty = st.tty;
}

/*
 * Make the go and ready pipes of a wait_exec() child and a spec that
 * gives it go's read end as fd 0 and ready's write end as fds 1 and 2.
 */
static void
waiter_spec(struct child_spec *cs, int *go, int *ready)
{
	ck_assert_int_eq(pipe(go), 0);
	ck_assert_int_eq(pipe(ready), 0);
	child_spec_init(cs);
	cs->fds[0] = go[0];
	cs->fds[1] = cs->fds[2] = ready[1];
	cs->nfds = 3;
}

/* Let a child of wait_exec() go (a byte on its fd 0), reap it: status. */
static int
release(pid_t pid, int go)
{
	int	status;

	ck_assert_int_eq(write(go, "x", 1), 1);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return status;
}

/*
 * The child has exactly fds 0-2, each what it was given, though the
 * places overlap (its fd 2 comes from our fd 0, which its fd 0 fills
 * first) and a stray fd far above is open here without close-on-exec.
 */
START_TEST(test_only_given_fds)
{
	struct child_spec	cs;
	char			a[256], b[256];
	int			go[2], ready[2], file, stray;
	pid_t			pid;

	ck_assert_int_eq(pipe(go), 0);
	ck_assert_int_eq(pipe(ready), 0);
	file = open("/dev/zero", O_RDONLY);
	ck_assert_int_ge(file, 0);
	ck_assert_int_eq(dup2(file, STDIN_FILENO), STDIN_FILENO);
	stray = dup2(file, 60);
	ck_assert_int_eq(stray, 60);
	child_spec_init(&cs);
	cs.fds[0] = go[0];
	cs.fds[1] = ready[1];
	cs.fds[2] = STDIN_FILENO;
	cs.nfds = 3;
	pid = child_fork(&cs, &wait_cbs, NULL);
	ck_assert_int_gt(pid, 0);
	ck_assert_int_eq(read_byte(ready[0]), 'r');

	ck_assert_uint_eq(fd_set_of(pid), 0x7);
	ck_assert_str_eq(fd_link(pid, 0, a, sizeof a),
	    fd_link(0, go[0], b, sizeof b));
	ck_assert_str_eq(fd_link(pid, 1, a, sizeof a),
	    fd_link(0, ready[1], b, sizeof b));
	ck_assert_str_eq(fd_link(pid, 2, a, sizeof a), "/dev/zero");

	ck_assert_int_eq(release(pid, go[1]), 0);
}
END_TEST

/*
 * The bits of the signals glibc keeps for itself (32 up to SIGRTMIN):
 * sigaction() refuses them, so a child keeps what its parent had (a test
 * harness may start us with them ignored).
 */
static unsigned long long
glibc_signals(void)
{
	unsigned long long	bits = 0;
	int		sig;

	for (sig = 32; sig < SIGRTMIN; sig++)
		bits |= 1ULL << (sig - 1);
	return bits;
}

/*
 * Whatever our handlers, ignored signals and mask, the child starts with
 * every disposition at its default and nothing blocked; ours are as
 * they were once child_fork() returns.
 */
START_TEST(test_default_signals)
{
	struct sigaction	sa;
	struct child_spec	cs;
	sigset_t		set, now;
	int			go[2], ready[2];
	pid_t			pid;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = SIG_IGN;
	ck_assert_int_eq(sigaction(SIGPIPE, &sa, NULL), 0);
	ck_assert_int_eq(sigaction(SIGHUP, &sa, NULL), 0);
	sa.sa_handler = on_signal;
	ck_assert_int_eq(sigaction(SIGUSR1, &sa, NULL), 0);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	sigaddset(&set, SIGTERM);
	ck_assert_int_eq(sigprocmask(SIG_BLOCK, &set, NULL), 0);
	ck_assert_uint_ne(status_mask(getpid(), "SigIgn"), 0);
	ck_assert_uint_ne(status_mask(getpid(), "SigCgt"), 0);
	ck_assert_uint_ne(status_mask(getpid(), "SigBlk"), 0);

	waiter_spec(&cs, go, ready);
	pid = child_fork(&cs, &wait_cbs, NULL);
	ck_assert_int_gt(pid, 0);
	ck_assert_int_eq(sigprocmask(SIG_BLOCK, NULL, &now), 0);
	ck_assert(sigismember(&now, SIGUSR2) && sigismember(&now, SIGTERM));
	ck_assert(!sigismember(&now, SIGCHLD) && !sigismember(&now, SIGINT));
	ck_assert_int_eq(read_byte(ready[0]), 'r');

	ck_assert_uint_eq(status_mask(pid, "SigIgn") & ~glibc_signals(), 0);
	ck_assert_uint_eq(status_mask(pid, "SigCgt") & ~glibc_signals(), 0);
	ck_assert_uint_eq(status_mask(pid, "SigBlk") & ~glibc_signals(), 0);
	ck_assert_int_eq(release(pid, go[1]), 0);
}
END_TEST

/* Asked for a session, the child leads it and its group; else ours. */
START_TEST(test_session)
{
	struct child_spec	cs;
	long			pgrp, sid, tty;
	int			go[2], ready[2];
	pid_t			pid;

	waiter_spec(&cs, go, ready);
	cs.session = _i;
	pid = child_fork(&cs, &wait_cbs, NULL);
	ck_assert_int_gt(pid, 0);
	ck_assert_int_eq(read_byte(ready[0]), 'r');
	stat_ids(pid, &pgrp, &sid, &tty);
	if (_i) {
		ck_assert_int_eq(pgrp, pid);
		ck_assert_int_eq(sid, pid);
		ck_assert_int_eq(tty, 0);
	} else {
		ck_assert_int_eq(pgrp, getpgrp());
		ck_assert_int_eq(sid, getsid(0));
	}
	ck_assert_int_eq(release(pid, go[1]), 0);
}
END_TEST

/*
 * With tty, fd 0 (a pty's slave, as pty.c gives it) becomes the
 * controlling terminal of the child's new session: /proc says it.
 */
START_TEST(test_controlling_tty)
{
	struct child_spec	cs;
	struct stat		sb;
	long			pgrp, sid, tty, want;
	int			master, slave, ready[2];
	pid_t			pid;

	if (openpty(&master, &slave, NULL, NULL, NULL) != 0)
		TEST_SKIP("openpty: %s", strerror(errno));
	ck_assert_int_eq(fcntl(master, F_SETFD, FD_CLOEXEC), 0);
	ck_assert_int_eq(pipe(ready), 0);
	ck_assert_int_eq(fstat(slave, &sb), 0);
	child_spec_init(&cs);
	cs.fds[0] = slave;
	cs.fds[1] = ready[1];
	cs.fds[2] = slave;
	cs.nfds = 3;
	cs.session = 1;
	cs.tty = 1;
	pid = child_fork(&cs, &wait_cbs, NULL);
	ck_assert_int_gt(pid, 0);
	close(slave);
	ck_assert_int_eq(read_byte(ready[0]), 'r');
	stat_ids(pid, &pgrp, &sid, &tty);
	want = (long)((minor(sb.st_rdev) & 0xff) | (major(sb.st_rdev) << 8) |
	    ((minor(sb.st_rdev) & ~0xffU) << 12));
	ck_assert_int_eq(sid, pid);
	ck_assert_int_eq(tty, want);
	ck_assert_int_eq(tcgetsid(master), pid);
	/* A byte typed on the terminal lets it go. */
	ck_assert_int_eq(write(master, "x\n", 2), 2);
	ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
	close(master);
}
END_TEST

/*
 * The join fd gets "0" (the child's own pid, for a cgroup.procs) before
 * anything else, and is not kept.
 */
START_TEST(test_join)
{
	struct child_spec	cs;
	int			join[2], go[2], ready[2];
	pid_t			pid;

	ck_assert_int_eq(pipe(join), 0);
	waiter_spec(&cs, go, ready);
	cs.join = join[1];
	pid = child_fork(&cs, &wait_cbs, NULL);
	ck_assert_int_gt(pid, 0);
	close(join[1]);
	ck_assert_int_eq(read_byte(ready[0]), 'r');
	ck_assert_int_eq(read_byte(join[0]), '0');
	ck_assert_uint_eq(fd_set_of(pid), 0x7);
	ck_assert_int_eq(release(pid, go[1]), 0);
	/* Nobody else holds its write end: end of file. */
	ck_assert_int_eq(read(join[0], &cs, 1), 0);
}
END_TEST

/*
 * An exec callback that returns (the program is not there) makes the
 * child exit 127, with the errno in the report; an exec that happens
 * closes the report (end of file) and the program's status is the
 * child's.  The report is on fd nfds, close-on-exec.
 */
START_TEST(test_exec_report)
{
	struct child_spec	cs;
	int			report[2], error, status, null;
	ssize_t			n;
	pid_t			pid;

	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	ck_assert_int_ge(null, 0);
	ck_assert_int_eq(pipe2(report, O_CLOEXEC), 0);
	child_spec_init(&cs);
	cs.fds[0] = cs.fds[1] = cs.fds[2] = null;
	cs.nfds = 3;
	cs.report = report[1];
	pid = child_fork(&cs, &missing_cbs, NULL);
	ck_assert_int_gt(pid, 0);
	close(report[1]);
	error = 0;
	n = read(report[0], &error, sizeof error);
	ck_assert_int_eq(n, (ssize_t)sizeof error);
	ck_assert_int_eq(error, ENOENT);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 127);
	close(report[0]);

	ck_assert_int_eq(pipe2(report, O_CLOEXEC), 0);
	cs.report = report[1];
	pid = child_fork(&cs, &sh_cbs, NULL);
	ck_assert_int_gt(pid, 0);
	close(report[1]);
	ck_assert_int_eq(read(report[0], &error, sizeof error), 0);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 3);
	close(report[0]);
	close(null);
}
END_TEST

/*
 * At its fd limit (as a deck that ran out of them is), the child still
 * gets its fds: those that sit above the places it fills are put there
 * without a copy of their own first, for which it has no room.
 */
START_TEST(test_at_fd_limit)
{
	struct child_spec	cs;
	struct rlimit		rl;
	int			go[2], ready[2], status, fill[64], n = 0;
	pid_t			pid;

	rl.rlim_cur = rl.rlim_max = 64;
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	waiter_spec(&cs, go, ready);
	while (n < 64 && (fill[n] = open("/dev/null", O_RDONLY)) != -1)
		n++;
	ck_assert_int_lt(n, 64);
	ck_assert_int_eq(errno, EMFILE);
	pid = child_fork(&cs, &wait_cbs, NULL);
	ck_assert_int_gt(pid, 0);
	ck_assert_int_eq(read_byte(ready[0]), 'r');
	status = release(pid, go[1]);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	/* Room again, for whatever runs at exit (the leak checker). */
	while (n > 0)
		close(fill[--n]);
}
END_TEST

/* Too many fds for the spec: refused before any fork. */
START_TEST(test_bad_spec)
{
	struct child_spec	cs;

	child_spec_init(&cs);
	cs.nfds = CHILD_FDS_MAX + 1;
	errno = 0;
	ck_assert_int_eq(child_fork(&cs, &pause_cbs, NULL), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1);
	ck_assert_int_eq(errno, ECHILD);
}
END_TEST

/*
 * child_wait() gives up on a child that runs on (0) and reaps one that
 * ended, its status told (1); a pid that is not our child is not waited
 * for.
 */
START_TEST(test_wait)
{
	struct child_spec	cs;
	int			null, status = 0;
	pid_t			pid;

	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	ck_assert_int_ge(null, 0);
	child_spec_init(&cs);
	cs.fds[0] = cs.fds[1] = cs.fds[2] = null;
	cs.nfds = 3;
	pid = child_fork(&cs, &pause_cbs, NULL);
	ck_assert_int_gt(pid, 0);
	ck_assert_int_eq(child_wait(pid, 50, &status), 0);
	ck_assert_int_eq(kill(pid, SIGKILL), 0);
	ck_assert_int_eq(child_wait(pid, WAIT_MS, &status), 1);
	ck_assert(WIFSIGNALED(status));
	ck_assert_int_eq(WTERMSIG(status), SIGKILL);
	ck_assert_int_eq(child_wait(pid, WAIT_MS, NULL), 1);
	ck_assert_int_eq(child_wait(1, WAIT_MS, NULL), 1);
	close(null);
}
END_TEST

/* Build the suite. */
static Suite *
child_suite(void)
{
	Suite	*s = suite_create("child");
	TCase	*tc;

	tc = tcase_create("fork");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_only_given_fds);
	tcase_add_test(tc, test_default_signals);
	tcase_add_loop_test(tc, test_session, 0, 2);
	tcase_add_test(tc, test_controlling_tty);
	tcase_add_test(tc, test_join);
	tcase_add_test(tc, test_exec_report);
	tcase_add_test(tc, test_at_fd_limit);
	tcase_add_test(tc, test_bad_spec);
	tcase_add_test(tc, test_wait);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite; exit non-zero if any test failed. */
int
main(void)
{
	SRunner	*sr = srunner_create(child_suite());
	int	 failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

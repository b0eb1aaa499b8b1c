/*
 * check_ssh.c: the real sshd of tests/testssh.h that issue 28's tests of
 * jobs on ssh hosts stand on, and the OpenSSH behaviour they rely on: the
 * server starts and both aliases log in; ControlMaster with a ControlPath
 * in a private directory carries 20 sessions on ONE TCP connection; a
 * killed master ends its clients and its connection (and what that does
 * to the remote commands, with and without a pty: the latter skipped
 * where sshd gives no pty); an unreachable host, a silent one and a
 * refused key fail with ssh's own message.
 *
 * Each test's process is a child subreaper, so a remote command whose
 * sshd went away comes back to it (the server runs on this machine) and
 * is killed and reaped.
 */
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "child.h"
#include "skip.h"
#include "testproc.h"
#include "testssh.h"

#define WAIT_MS		60000	/* the most anything is waited for */
#define STEP_MS		20	/* a wait's look again */
#define SESSIONS	20	/* sessions over one master */

/* Sleep one step of a wait. */
static void
step(void)
{
	struct timespec	ts = { 0, STEP_MS * 1000000L };

	nanosleep(&ts, NULL);
}

/* Return the monotonic clock in milliseconds. */
static int64_t
now_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Make this test's process the reaper of what its children leave. */
static void
subreaper(void)
{
	ck_assert_int_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
}

/* Run ssh -F config with args (NULL-ended, at most 16); return its status. */
static int
ssh_run(const struct testssh *ts, char *out, size_t len, ...)
{
	const char	*argv[24];
	const char	*a;
	va_list		 ap;
	int		 n = 0;

	argv[n++] = "ssh";
	argv[n++] = "-F";
	argv[n++] = ts->config;
	va_start(ap, len);
	while ((a = va_arg(ap, const char *)) != NULL && n < 23)
		argv[n++] = a;
	va_end(ap);
	argv[n] = NULL;
	return testssh_run(argv, WAIT_MS, out, len);
}

/* Wait until ts has n established connections; return how many it has. */
static int
wait_connections(const struct testssh *ts, int n)
{
	int64_t	end = now_ms() + WAIT_MS;
	int	have;

	while ((have = testssh_connections(ts)) != n && now_ms() < end)
		step();
	return have;
}

/* Read fd until want is among what came; 1 if it came, 0 at EOF or time. */
static int
wait_text(int fd, const char *want, char *buf, size_t len)
{
	struct pollfd	pfd = { fd, POLLIN, 0 };
	int64_t		end = now_ms() + WAIT_MS;
	size_t		have = 0;
	ssize_t		n;

	buf[0] = '\0';
	while (strstr(buf, want) == NULL && now_ms() < end) {
		if (poll(&pfd, 1, (int)(end - now_ms())) <= 0)
			continue;
		if ((n = read(fd, buf + have, len - have - 1)) == -1 &&
		    errno == EINTR)
			continue;
		if (n <= 0 || have + (size_t)n + 1 >= len)
			return 0;
		have += (size_t)n;
		buf[have] = '\0';
	}
	return strstr(buf, want) != NULL;
}

/* Wait for pid to end within WAIT_MS; return its status or -1. */
static int
wait_end(pid_t pid)
{
	int	status = -1;

	return child_wait(pid, WAIT_MS, &status) ? status : -1;
}

/* Wait until n processes are `sleep arg`; return how many are. */
static int
wait_sleeps(const char *arg, int n)
{
	int64_t	end = now_ms() + WAIT_MS;
	int	have;

	/* A zombie has no command line: not counted, so none is reaped. */
	while ((have = testproc_sleeps(arg, NULL)) != n && now_ms() < end)
		step();
	return have;
}

/* Kill every live `sleep arg`, wait until none is left; return how many. */
static int
kill_sleeps(const char *arg)
{
	int64_t	end = now_ms() + WAIT_MS;
	pid_t	one;
	int	first = testproc_sleeps(arg, &one), n;

	while ((n = testproc_sleeps(arg, &one)) > 0 && now_ms() < end) {
		kill(one, SIGKILL);
		/* Ours when its sshd went (the subreaper); only it is reaped. */
		waitpid(one, NULL, WNOHANG);
		step();
	}
	ck_assert_int_eq(n, 0);
	return first;
}

/*
 * Start the master of ts's jd-a on control path cp (ControlPersist off:
 * it is the test's child) and wait until ssh -O check finds it.
 */
static pid_t
master_start(const struct testssh *ts, const char *cp)
{
	char		 opt[160], out[512];
	const char	*argv[] = { "ssh", "-F", ts->config, "-N", "-o",
	    "ControlMaster=yes", "-o", opt, "jd-a", NULL };
	int64_t		 end = now_ms() + WAIT_MS;
	pid_t		 pid;
	int		 null, st = -1;

	snprintf(opt, sizeof opt, "ControlPath=%s", cp);
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	ck_assert_int_ge(null, 0);
	pid = testssh_spawn(argv, null, null, null);
	close(null);
	ck_assert_int_gt(pid, 0);
	while (now_ms() < end) {
		st = ssh_run(ts, out, sizeof out, "-o", opt, "-O", "check",
		    "jd-a", NULL);
		if (st == 0)
			break;
		ck_assert_int_eq(waitpid(pid, NULL, WNOHANG), 0);
		step();
	}
	ck_assert_msg(st == 0, "ssh -O check: %d: %s", st, out);
	return pid;
}

/*
 * Start n sessions through control path cp, each running `echo up;
 * exec sleep arg` (with a remote pty when tty); fds[i] reads session i's
 * output; wait until every one said up.
 */
static void
sessions_start(const struct testssh *ts, const char *cp, const char *arg,
    int tty, int n, pid_t *pids, int *fds)
{
	char		 opt[160], cmd[128], buf[256];
	const char	*argv[] = { "ssh", "-F", ts->config, "-o",
	    "ControlMaster=no", "-o", opt, tty ? "-tt" : "-T", "jd-a", cmd,
	    NULL };
	int		 i, p[2], null;

	snprintf(opt, sizeof opt, "ControlPath=%s", cp);
	snprintf(cmd, sizeof cmd, "echo up; exec sleep %s", arg);
	null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(null, 0);
	for (i = 0; i < n; i++) {
		ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
		pids[i] = testssh_spawn(argv, null, p[1], p[1]);
		ck_assert_int_gt(pids[i], 0);
		close(p[1]);
		fds[i] = p[0];
	}
	close(null);
	for (i = 0; i < n; i++)
		ck_assert_msg(wait_text(fds[i], "up", buf, sizeof buf),
		    "session %d said: %s", i, buf);
}

/* sshd starts: its banner, its log, its port in the ssh_config. */
START_TEST(sshd_starts)
{
	struct testssh	 ts;
	struct stat	 sb;
	char		 path[160];

	TESTSSH_START(&ts);
	ck_assert_int_gt(ts.pid, 0);
	ck_assert_int_eq(testproc_dead(ts.pid), 0);
	ck_assert_int_gt(ts.port, 0);
	ck_assert_str_eq(ts.command + strlen(ts.command) -
	    strlen("/ssh_config"), "/ssh_config");
	ck_assert_int_eq(strncmp(ts.command, "ssh -F /tmp/", 12), 0);
	snprintf(path, sizeof path, "%s/host_key", ts.dir);
	ck_assert_int_eq(stat(path, &sb), 0);
	ck_assert_int_eq(sb.st_mode & 077, 0);
	ck_assert_int_eq(testssh_connections(&ts), 0);
	strcpy(path, ts.dir);
	testssh_stop(&ts);
	ck_assert_int_eq(stat(path, &sb), -1);
	ck_assert_int_eq(errno, ENOENT);
}
END_TEST

/* `ssh jd-a true` exits 0; both aliases log in as this user, in its home. */
START_TEST(ssh_true)
{
	struct testssh	 ts;
	char		 out[1024], want[256];
	int		 st;

	TESTSSH_START(&ts);
	st = ssh_run(&ts, out, sizeof out, "jd-a", "true", NULL);
	ck_assert_msg(st == 0, "ssh jd-a true: status %d: %s", st, out);
	ck_assert_str_eq(out, "");
	st = ssh_run(&ts, out, sizeof out, "jd-b", "id -u; echo \"$PWD\"",
	    NULL);
	ck_assert_msg(st == 0, "ssh jd-b: status %d: %s", st, out);
	snprintf(want, sizeof want, "%ld\n%s\n", (long)geteuid(),
	    getenv("HOME") != NULL ? getenv("HOME") : "/");
	ck_assert_str_eq(out, want);
	/* The remote side's exit status comes back as ssh's own. */
	st = ssh_run(&ts, out, sizeof out, "jd-a", "exit 7", NULL);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 7);
	testssh_stop(&ts);
}
END_TEST

/* 20 sessions over one master in a private directory: one connection. */
START_TEST(mux_one_connection)
{
	struct testssh	 ts;
	char		 cp[160], arg[64], opt[192], out[512];
	pid_t		 master, pids[SESSIONS];
	int		 fds[SESSIONS], i, st;

	subreaper();
	TESTSSH_START(&ts);
	snprintf(cp, sizeof cp, "%s/cm", ts.dir);
	ck_assert_int_eq(mkdir(cp, 0700), 0);
	/* %C: a hash of the destination, short enough for a socket. */
	snprintf(cp, sizeof cp, "%s/cm/%%C", ts.dir);
	snprintf(arg, sizeof arg, "4%d.%ld", getpid(), (long)time(NULL));
	master = master_start(&ts, cp);
	ck_assert_int_eq(wait_connections(&ts, 1), 1);
	sessions_start(&ts, cp, arg, 0, SESSIONS, pids, fds);
	ck_assert_int_eq(wait_sleeps(arg, SESSIONS), SESSIONS);
	ck_assert_int_eq(testssh_connections(&ts), 1);
	/* A session ending ends its command, leaves the connection. */
	snprintf(opt, sizeof opt, "ControlPath=%s", cp);
	st = ssh_run(&ts, out, sizeof out, "-o", opt, "jd-a", "true", NULL);
	ck_assert_msg(st == 0, "%d: %s", st, out);
	kill_sleeps(arg);
	for (i = 0; i < SESSIONS; i++) {
		st = wait_end(pids[i]);
		ck_assert_msg(WIFEXITED(st), "session %d: status %d", i, st);
		close(fds[i]);
	}
	ck_assert_int_eq(testssh_connections(&ts), 1);
	kill(master, SIGTERM);
	ck_assert_int_ne(wait_end(master), -1);
	ck_assert_int_eq(wait_connections(&ts, 0), 0);
	testssh_stop(&ts);
}
END_TEST

/*
 * Kill (SIGKILL) the master of n sessions of `sleep arg` started with a
 * remote pty or not: each client exits 255 and the connection goes.
 */
static void
master_killed(int tty, const char *arg)
{
	struct testssh	 ts;
	char		 cp[160];
	pid_t		 master, pids[4];
	int		 fds[4], i, st;

	TESTSSH_START(&ts);
	if (tty)
		TESTSSH_NEED_PTY(&ts);
	snprintf(cp, sizeof cp, "%s/cm", ts.dir);
	ck_assert_int_eq(mkdir(cp, 0700), 0);
	snprintf(cp, sizeof cp, "%s/cm/%%C", ts.dir);
	master = master_start(&ts, cp);
	sessions_start(&ts, cp, arg, tty, 4, pids, fds);
	ck_assert_int_eq(wait_sleeps(arg, 4), 4);
	ck_assert_int_eq(testssh_connections(&ts), 1);
	kill(master, SIGKILL);
	ck_assert_int_ne(wait_end(master), -1);
	for (i = 0; i < 4; i++) {
		st = wait_end(pids[i]);
		ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 255,
		    "session %d: status %d", i, st);
		close(fds[i]);
	}
	ck_assert_int_eq(wait_connections(&ts, 0), 0);
	if (tty) {
		/* The pty's commands are hung up... */
		ck_assert_int_eq(wait_sleeps(arg, 0), 0);
	} else {
		/* ...the others are left running, orphans of the host. */
		ck_assert_int_eq(kill_sleeps(arg), 4);
	}
	testssh_stop(&ts);
}

/*
 * A killed master ends its sessions; a command without a remote pty
 * goes on running on the host: what ends a remote job is not the end of
 * its connection.
 */
START_TEST(mux_master_killed)
{
	char	arg[64];

	subreaper();
	snprintf(arg, sizeof arg, "5%d.%ld", getpid(), (long)time(NULL));
	master_killed(0, arg);
}
END_TEST

/* A killed master ends its sessions; a remote pty's command is hung up. */
START_TEST(mux_master_killed_pty)
{
	char	arg[64];

	subreaper();
	snprintf(arg, sizeof arg, "6%d.%ld", getpid(), (long)time(NULL));
	master_killed(1, arg);
}
END_TEST

/* Unreachable, silent and refusing hosts fail with ssh's own message. */
START_TEST(ssh_failures)
{
	struct testssh	 ts;
	char		 out[1024], want[128];
	int		 st;

	TESTSSH_START(&ts);
	st = ssh_run(&ts, out, sizeof out, "-o", "ConnectTimeout=5",
	    "jd-refused", "true", NULL);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 255, "%d", st);
	snprintf(want, sizeof want, "ssh: connect to host 127.0.0.1 port %d: "
	    "Connection refused", ts.refused_port);
	ck_assert_msg(strstr(out, want) != NULL, "%s", out);
	/* TCP connects, no banner: only ConnectTimeout ends the wait. */
	st = ssh_run(&ts, out, sizeof out, "-o", "ConnectTimeout=2",
	    "jd-silent", "true", NULL);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 255, "%d", st);
	ck_assert_msg(strstr(out, "Connection timed out during banner "
	    "exchange") != NULL, "%s", out);
	st = ssh_run(&ts, out, sizeof out, "-o", "ConnectTimeout=5",
	    "jd-badkey", "true", NULL);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 255, "%d", st);
	ck_assert_msg(strstr(out, "Permission denied (publickey)") != NULL,
	    "%s", out);
	testssh_stop(&ts);
}
END_TEST

/* The suite. */
static Suite *
ssh_suite(void)
{
	Suite	*s = suite_create("ssh");
	TCase	*tc = tcase_create("sshd");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, sshd_starts);
	tcase_add_test(tc, ssh_true);
	tcase_add_test(tc, mux_one_connection);
	tcase_add_test(tc, mux_master_killed);
	tcase_add_test(tc, mux_master_killed_pty);
	tcase_add_test(tc, ssh_failures);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite; exit 0 when every test passed. */
int
main(void)
{
	SRunner	*sr;
	int	 failed;

	sr = srunner_create(ssh_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

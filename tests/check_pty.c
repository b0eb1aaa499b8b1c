/*
 * check_pty.c: tests for pty_spawn with real children on real ptys and
 * pipes: output, session and process group, window size, environment,
 * cwd, inherited fds, exec errors, signal state, the pipe fallback, and
 * joining a cgroup before exec (as root; a "SKIP: " line otherwise).
 */
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "skip.h"
#include "pty.h"

static char *const test_env[] = {
	"TERM=xterm-256color", "PATH=/usr/bin:/bin", "LC_ALL=C", NULL
};

/* Output read from a child, with every \r removed. */
struct out {
	char	buf[16384];
	size_t	len;
};

/* Return monotonic milliseconds. */
static long long
now_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Read from fd into o until want appears (NULL: until EOF); 1 if seen. */
static int
read_until(int fd, struct out *o, const char *want, int timeout_ms)
{
	struct pollfd	 pfd = { fd, POLLIN, 0 };
	long long	 end = now_ms() + timeout_ms;
	char		 tmp[4096];
	ssize_t		 n, i;

	for (;;) {
		if (want != NULL && strstr(o->buf, want) != NULL)
			return 1;
		if (now_ms() >= end)
			return 0;
		if (poll(&pfd, 1, 100) <= 0)
			continue;
		n = read(fd, tmp, sizeof tmp);
		if (n == -1 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n <= 0)	/* EOF, or EIO once the pty slave is gone */
			return want == NULL;
		for (i = 0; i < n && o->len + 1 < sizeof o->buf; i++) {
			if (tmp[i] != '\r')
				o->buf[o->len++] = tmp[i];
		}
		o->buf[o->len] = '\0';
	}
}

/* Wait for pid (up to 10 s) and return its wait status. */
static int
wait_child(pid_t pid)
{
	long long	end = now_ms() + 10000;
	int		status;
	pid_t		r;

	while ((r = waitpid(pid, &status, WNOHANG)) == 0 && now_ms() < end)
		usleep(5000);
	ck_assert_int_eq(r, pid);
	return status;
}

/* Spawn argv with the test environment; fail the test on error. */
static void
spawn(struct pty_child *c, const char *path, char *const *argv,
    char *const *envp, const char *cwd, int no_pty)
{
	struct pty_spec	 spec;
	char		*cause = NULL;

	memset(&spec, 0, sizeof spec);
	spec.path = path;
	spec.argv = argv;
	spec.envp = envp != NULL ? envp : test_env;
	spec.cwd = cwd;
	spec.rows = 30;
	spec.cols = 100;
	spec.no_pty = no_pty;
	if (pty_spawn(&spec, c, &cause) != 0)
		ck_abort_msg("pty_spawn: %s", cause);
	ck_assert_int_gt(c->pid, 0);
}

/* Run /bin/sh -c script to its end; return the status, output in o. */
static int
run_sh(const char *script, int no_pty, struct out *o)
{
	struct pty_child	 c;
	char *const		 argv[] = { "sh", "-c", (char *)script, NULL };
	int			 status;

	memset(o, 0, sizeof *o);
	spawn(&c, "/bin/sh", argv, NULL, NULL, no_pty);
	ck_assert(read_until(c.out_fd, o, NULL, 10000));
	status = wait_child(c.pid);
	pty_child_close(&c);
	return status;
}

START_TEST(test_echo_on_pty)
{
	struct pty_child	 c;
	struct out		 o = { .len = 0 };
	char *const		 argv[] = { "sh", "-c", "echo hi", NULL };
	int			 status, fl;

	spawn(&c, "/bin/sh", argv, NULL, NULL, 0);
	ck_assert_int_eq(c.is_pty, 1);
	ck_assert_int_eq(c.pty_errno, 0);
	ck_assert_int_eq(c.in_fd, c.out_fd);
	ck_assert(isatty(c.out_fd));
	fl = fcntl(c.out_fd, F_GETFL);
	ck_assert(fl != -1 && (fl & O_NONBLOCK));
	fl = fcntl(c.out_fd, F_GETFD);
	ck_assert(fl != -1 && (fl & FD_CLOEXEC));
	ck_assert(read_until(c.out_fd, &o, NULL, 10000));
	ck_assert_str_eq(o.buf, "hi\n");
	status = wait_child(c.pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);

	pty_child_close(&c);
	ck_assert_int_eq(c.out_fd, -1);
	ck_assert_int_eq(c.in_fd, -1);
	pty_child_close(&c);	/* a second close is harmless */
}
END_TEST

/* Check that the child, waiting on stdin, leads its own session and group. */
static void
check_session_leader(int no_pty)
{
	struct pty_child	 c;
	struct out		 o = { .len = 0 };
	char *const		 argv[] = { "sh", "-c",
	    "echo pid=$$; read x; echo got=$x", NULL };
	char			 want[64];
	int			 status;

	spawn(&c, "/bin/sh", argv, NULL, NULL, no_pty);
	ck_assert_int_eq(c.is_pty, !no_pty);
	snprintf(want, sizeof want, "pid=%d\n", (int)c.pid);
	ck_assert(read_until(c.out_fd, &o, want, 10000));
	ck_assert_int_eq(getsid(c.pid), c.pid);
	ck_assert_int_eq(getpgid(c.pid), c.pid);
	ck_assert_int_ne(getsid(c.pid), getsid(0));
	ck_assert_int_ne(getpgid(c.pid), getpgrp());

	ck_assert_int_eq(write(c.in_fd, "abc\n", 4), 4);
	ck_assert(read_until(c.out_fd, &o, NULL, 10000));
	ck_assert_ptr_nonnull(strstr(o.buf, "got=abc\n"));
	status = wait_child(c.pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	pty_child_close(&c);
}

START_TEST(test_session_leader_pty)
{
	check_session_leader(0);
}
END_TEST

START_TEST(test_session_leader_pipes)
{
	check_session_leader(1);
}
END_TEST

START_TEST(test_controlling_tty)
{
	struct out	o;
	int		status;

	/* The pty is the controlling terminal: /dev/tty opens. */
	status = run_sh("tty; echo ok >/dev/tty", 0, &o);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_msg(strncmp(o.buf, "/dev/pts/", 9) == 0, "tty: %s", o.buf);
	ck_assert_ptr_nonnull(strstr(o.buf, "\nok\n"));
}
END_TEST

START_TEST(test_window_size)
{
	struct pty_child	 c;
	struct out		 o = { .len = 0 };
	char *const		 argv[] = { "sh", "-c",
	    "stty size; read x; stty size", NULL };
	int			 status;

	spawn(&c, "/bin/sh", argv, NULL, NULL, 0);
	ck_assert(read_until(c.out_fd, &o, "30 100\n", 10000));
	ck_assert_int_eq(pty_set_size(&c, 40, 120), 0);
	ck_assert_int_eq(write(c.in_fd, "\n", 1), 1);
	ck_assert(read_until(c.out_fd, &o, NULL, 10000));
	ck_assert_str_eq(o.buf, "30 100\n\n40 120\n");
	status = wait_child(c.pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_int_eq(pty_set_size(&c, 0, 10), -1);
	pty_child_close(&c);
}
END_TEST

START_TEST(test_resize_sends_sigwinch)
{
	struct pty_child	 c;
	struct out		 o = { .len = 0 };
	char *const		 argv[] = { "sh", "-c",
	    "trap 'stty size; exit 0' WINCH; echo ready;"
	    " while :; do sleep 0.05; done", NULL };
	int			 status;

	spawn(&c, "/bin/sh", argv, NULL, NULL, 0);
	ck_assert(read_until(c.out_fd, &o, "ready\n", 10000));
	ck_assert_int_eq(pty_set_size(&c, 12, 34), 0);
	ck_assert(read_until(c.out_fd, &o, "12 34\n", 10000));
	status = wait_child(c.pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	pty_child_close(&c);
}
END_TEST

/* Return 1 if word appears in text between blanks or line ends. */
static int
has_word(const char *text, const char *word)
{
	const char	*p = text;
	size_t		 len = strlen(word);

	while ((p = strstr(p, word)) != NULL) {
		if ((p == text || p[-1] == ' ' || p[-1] == '\n') &&
		    (p[len] == ' ' || p[len] == '\n' || p[len] == '\0'))
			return 1;
		p += len;
	}
	return 0;
}

START_TEST(test_termios_cooked)
{
	struct out	o;
	int		status;

	status = run_sh("stty -a", 0, &o);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert(has_word(o.buf, "icanon"));
	ck_assert(has_word(o.buf, "echo"));
	ck_assert(has_word(o.buf, "isig"));
	ck_assert(has_word(o.buf, "iexten"));
	ck_assert(has_word(o.buf, "iutf8"));
	ck_assert(has_word(o.buf, "icrnl"));
	ck_assert(has_word(o.buf, "opost"));
	ck_assert(has_word(o.buf, "onlcr"));
	ck_assert(has_word(o.buf, "cs8"));
	ck_assert(has_word(o.buf, "-ixon"));
	ck_assert_ptr_nonnull(strstr(o.buf, "intr = ^C"));
	ck_assert_ptr_nonnull(strstr(o.buf, "erase = ^?"));
}
END_TEST

START_TEST(test_env_exact)
{
	struct pty_child	 c;
	struct out		 o = { .len = 0 };
	char *const		 argv[] = { "env", NULL };
	char *const		 envp[] = { "TERM=dumb", "FOO=bar baz",
	    "EMPTY=", "PATH=/nowhere", NULL };
	int			 status;

	/* PATH is not used to find an absolute path. */
	spawn(&c, "/usr/bin/env", argv, envp, NULL, 0);
	ck_assert(read_until(c.out_fd, &o, NULL, 10000));
	ck_assert_str_eq(o.buf,
	    "TERM=dumb\nFOO=bar baz\nEMPTY=\nPATH=/nowhere\n");
	status = wait_child(c.pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	pty_child_close(&c);
}
END_TEST

START_TEST(test_cwd)
{
	struct pty_child	 c;
	struct out		 o = { .len = 0 };
	char			 dir[] = "/tmp/check_pty.XXXXXX";
	char *const		 argv[] = { "pwd", "-P", NULL };
	char			 want[64];
	int			 status;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	spawn(&c, "/bin/pwd", argv, NULL, dir, 0);
	ck_assert(read_until(c.out_fd, &o, NULL, 10000));
	snprintf(want, sizeof want, "%s\n", dir);
	ck_assert_str_eq(o.buf, want);
	wait_child(c.pid);
	pty_child_close(&c);

	/* A cwd that cannot be entered: the child says so and exits 127. */
	memset(&o, 0, sizeof o);
	spawn(&c, "/bin/pwd", argv, NULL, "/nonexistent/dir", 1);
	ck_assert(read_until(c.out_fd, &o, NULL, 10000));
	ck_assert_str_eq(o.buf,
	    "cd: /nonexistent/dir: No such file or directory\n");
	status = wait_child(c.pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 127);
	pty_child_close(&c);
	rmdir(dir);
}
END_TEST

/* Check the child inherits only fds 0-2, with stray fds left open here. */
static void
check_no_fds(int no_pty)
{
	struct out	o;
	int		fd1, fd2, p[2], status;

	fd1 = open("/dev/null", O_RDONLY);
	ck_assert_int_ge(fd1, 3);
	ck_assert_int_eq(pipe(p), 0);
	/* Leave gaps so closing cannot stop at the first EBADF. */
	fd2 = dup2(fd1, 200);
	ck_assert_int_eq(fd2, 200);
	ck_assert_int_eq(dup2(fd1, 1000), 1000);

	/* The glob's own directory fd is closed again by the time of -e. */
	status = run_sh("for f in /proc/$$/fd/*; do"
	    " if [ -e \"$f\" ]; then echo ${f##*/}; fi; done", no_pty, &o);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_str_eq(o.buf, "0\n1\n2\n");
	close(fd1);
	close(fd2);
	close(1000);
	close(p[0]);
	close(p[1]);
}

START_TEST(test_no_inherited_fds_pty)
{
	check_no_fds(0);
}
END_TEST

START_TEST(test_no_inherited_fds_pipes)
{
	check_no_fds(1);
}
END_TEST

START_TEST(test_not_found)
{
	struct pty_child	 c;
	struct out		 o = { .len = 0 };
	char *const		 argv[] = { "no-such-program-xyz", "a", NULL };
	char *const		 argv2[] = { "prog", NULL };
	int			 status;

	spawn(&c, "no-such-program-xyz", argv, NULL, NULL, 0);
	ck_assert(read_until(c.out_fd, &o, NULL, 10000));
	ck_assert_str_eq(o.buf, "no-such-program-xyz: not found\n");
	status = wait_child(c.pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 127);
	pty_child_close(&c);

	memset(&o, 0, sizeof o);
	spawn(&c, "/nonexistent/prog", argv2, NULL, NULL, 1);
	ck_assert(read_until(c.out_fd, &o, NULL, 10000));
	ck_assert_str_eq(o.buf,
	    "/nonexistent/prog: No such file or directory\n");
	status = wait_child(c.pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 127);
	pty_child_close(&c);
}
END_TEST

/* Write a file with the given mode. */
static void
write_file(const char *path, const char *text, mode_t mode)
{
	FILE	*f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	ck_assert_int_eq(chmod(path, mode), 0);
}

START_TEST(test_path_search_and_exec_errors)
{
	struct pty_child	 c;
	struct out		 o = { .len = 0 };
	char			 dir[] = "/tmp/check_pty.XXXXXX";
	char			 path[256], envpath[160], file[160];
	char *const		 argv[] = { "hello", "one", "two", NULL };
	char *const		 argv2[] = { "noshebang", "x", NULL };
	char *const		 argv3[] = { "noexec", NULL };
	char			*envp[] = { path, "TERM=dumb", NULL };
	int			 status;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(file, sizeof file, "%s/hello", dir);
	write_file(file, "#!/bin/sh\necho \"hello $1 $2\"\n", 0755);
	snprintf(file, sizeof file, "%s/noshebang", dir);
	write_file(file, "echo \"plain $1\"\n", 0755);
	snprintf(file, sizeof file, "%s/noexec", dir);
	write_file(file, "#!/bin/sh\necho no\n", 0644);
	/* The search uses PATH from envp, not this process's PATH. */
	snprintf(envpath, sizeof envpath, "/nonexistent:%s:/bin", dir);
	snprintf(path, sizeof path, "PATH=%s", envpath);

	spawn(&c, "hello", argv, envp, NULL, 0);
	ck_assert(read_until(c.out_fd, &o, NULL, 10000));
	ck_assert_str_eq(o.buf, "hello one two\n");
	status = wait_child(c.pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	pty_child_close(&c);

	/* No #! line: run with /bin/sh, as execvp does. */
	memset(&o, 0, sizeof o);
	spawn(&c, "noshebang", argv2, envp, NULL, 1);
	ck_assert(read_until(c.out_fd, &o, NULL, 10000));
	ck_assert_str_eq(o.buf, "plain x\n");
	status = wait_child(c.pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	pty_child_close(&c);

	/* Found but not executable: Permission denied, 126. */
	memset(&o, 0, sizeof o);
	spawn(&c, "noexec", argv3, envp, NULL, 1);
	ck_assert(read_until(c.out_fd, &o, NULL, 10000));
	ck_assert_str_eq(o.buf, "noexec: Permission denied\n");
	status = wait_child(c.pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 126);
	pty_child_close(&c);

	/* A relative PATH entry is taken from the child's cwd. */
	snprintf(path, sizeof path, "PATH=.");
	memset(&o, 0, sizeof o);
	spawn(&c, "hello", argv, envp, dir, 1);
	ck_assert(read_until(c.out_fd, &o, NULL, 10000));
	ck_assert_str_eq(o.buf, "hello one two\n");
	wait_child(c.pid);
	pty_child_close(&c);

	snprintf(file, sizeof file, "rm -rf %s", dir);
	ck_assert_int_eq(system(file), 0);
}
END_TEST

START_TEST(test_pipe_fallback)
{
	struct pty_child	 c;
	struct out		 o = { .len = 0 };
	char *const		 argv[] = { "sh", "-c",
	    "echo out; echo err >&2; echo out2; read x; echo got:$x;"
	    " read y || echo eof; [ -t 0 ] || echo notty", NULL };
	int			 status, fl;

	spawn(&c, "/bin/sh", argv, NULL, NULL, 1);
	ck_assert_int_eq(c.is_pty, 0);
	ck_assert_int_eq(c.pty_errno, 0);
	ck_assert_int_ne(c.in_fd, c.out_fd);
	ck_assert(!isatty(c.out_fd));
	fl = fcntl(c.out_fd, F_GETFL);
	ck_assert(fl != -1 && (fl & O_NONBLOCK));
	fl = fcntl(c.in_fd, F_GETFL);
	ck_assert(fl != -1 && (fl & O_NONBLOCK));
	ck_assert(fcntl(c.in_fd, F_GETFD) & FD_CLOEXEC);
	ck_assert(fcntl(c.out_fd, F_GETFD) & FD_CLOEXEC);
	ck_assert_int_eq(pty_set_size(&c, 10, 10), 0);

	ck_assert(read_until(c.out_fd, &o, "out2\n", 10000));
	ck_assert_int_eq(write(c.in_fd, "abc\n", 4), 4);
	ck_assert(read_until(c.out_fd, &o, "got:abc\n", 10000));
	/* Closing our end of stdin gives the child EOF. */
	close(c.in_fd);
	c.in_fd = -1;
	ck_assert(read_until(c.out_fd, &o, NULL, 10000));
	ck_assert_str_eq(o.buf, "out\nerr\nout2\ngot:abc\neof\nnotty\n");
	status = wait_child(c.pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	pty_child_close(&c);
	ck_assert_int_eq(c.out_fd, -1);
}
END_TEST

static volatile sig_atomic_t usr1_hits;

/* A handler the child must not keep. */
static void
usr1_handler(int signo)
{
	(void)signo;
	usr1_hits++;
}

/* Return the hex mask on the line starting with key in text, or ~0. */
static unsigned long long
status_mask(const char *text, const char *key)
{
	const char	*p = strstr(text, key);

	if (p == NULL)
		return ~0ULL;
	return strtoull(p + strlen(key), NULL, 16);
}

/*
 * Return the /proc status mask bits of the signals glibc keeps for itself
 * (32 up to SIGRTMIN - 1): sigaction() refuses to change them, so a child
 * keeps whatever disposition the test's own environment gave them.
 */
static unsigned long long
libc_reserved(void)
{
	unsigned long long	mask = 0;
	int			sig;

	for (sig = 32; sig < SIGRTMIN; sig++)
		mask |= 1ULL << (sig - 1);
	return mask;
}

/* Check that ignored and blocked signals here are reset in the child. */
static void
check_signals_reset(int no_pty)
{
	struct pty_child	 c;
	struct out		 o = { .len = 0 };
	struct sigaction	 sa;
	sigset_t		 set, cur;
	char *const		 argv[] = { "cat", "/proc/self/status", NULL };

	usr1_hits = 0;
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = usr1_handler;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);

	spawn(&c, "/bin/cat", argv, NULL, NULL, no_pty);
	ck_assert(read_until(c.out_fd, &o, NULL, 10000));
	wait_child(c.pid);
	pty_child_close(&c);
	ck_assert_msg((status_mask(o.buf, "SigBlk:") & ~libc_reserved()) == 0,
	    "%s", o.buf);
	ck_assert_msg((status_mask(o.buf, "SigIgn:") & ~libc_reserved()) == 0,
	    "%s", o.buf);
	ck_assert_msg((status_mask(o.buf, "SigCgt:") & ~libc_reserved()) == 0,
	    "%s", o.buf);

	/* The parent's own mask is back as it was. */
	sigprocmask(SIG_BLOCK, NULL, &cur);
	ck_assert(sigismember(&cur, SIGTERM));
	ck_assert(sigismember(&cur, SIGCHLD));
	ck_assert(!sigismember(&cur, SIGUSR1));
	ck_assert(!sigismember(&cur, SIGHUP));
	raise(SIGUSR1);
	ck_assert_int_eq(usr1_hits, 1);
}

START_TEST(test_signals_reset_pty)
{
	check_signals_reset(0);
}
END_TEST

START_TEST(test_signals_reset_pipes)
{
	check_signals_reset(1);
}
END_TEST

START_TEST(test_bad_spec)
{
	struct pty_spec		 spec;
	struct pty_child	 c;
	char			*cause = NULL;

	memset(&spec, 0, sizeof spec);
	spec.path = "/bin/true";
	spec.envp = test_env;
	ck_assert_int_eq(pty_spawn(&spec, &c, &cause), -1);
	ck_assert_ptr_nonnull(cause);
	ck_assert_int_eq(c.pid, -1);
	ck_assert_int_eq(c.out_fd, -1);
	free(cause);
}
END_TEST

/* Hide the pty multiplexer in a private mount namespace; 0 on success. */
static int
hide_ptmx(void)
{
	if (unshare(CLONE_NEWNS) != 0)
		return -1;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
		return -1;
	return mount("/dev/null", "/dev/ptmx", NULL, MS_BIND, NULL);
}

static int	can_hide_ptmx(void);

START_TEST(test_fallback_when_no_pty)
{
	struct pty_child	 c;
	struct out		 o = { .len = 0 };
	char *const		 argv[] = { "sh", "-c",
	    "echo out; echo err >&2", NULL };
	int			 status;

	if (!can_hide_ptmx())
		TEST_SKIP("cannot hide /dev/ptmx here (a private mount "
		    "namespace needs root)");
	ck_assert_int_eq(hide_ptmx(), 0);
	spawn(&c, "/bin/sh", argv, NULL, NULL, 0);
	ck_assert_int_eq(c.is_pty, 0);
	ck_assert_int_ne(c.pty_errno, 0);
	ck_assert(read_until(c.out_fd, &o, NULL, 10000));
	ck_assert_str_eq(o.buf, "out\nerr\n");
	status = wait_child(c.pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_int_eq(getsid(0) != c.pid, 1);
	pty_child_close(&c);
}
END_TEST

/* Return 1 if this process may hide /dev/ptmx (tried in a child). */
static int
can_hide_ptmx(void)
{
	pid_t	pid;
	int	status;

	if ((pid = fork()) == 0)
		_exit(hide_ptmx() == 0 ? 0 : 1);
	if (pid == -1 || waitpid(pid, &status, 0) != pid)
		return 0;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* Spawn argv in split mode (stderr apart, exec reported); fail on error. */
static void
spawn_split(struct pty_child *c, const char *path, char *const *argv,
    const char *cwd, int null_stdin)
{
	struct pty_spec	 spec;
	char		*cause = NULL;

	memset(&spec, 0, sizeof spec);
	spec.path = path;
	spec.argv = argv;
	spec.envp = test_env;
	spec.cwd = cwd;
	spec.split_stderr = 1;
	spec.null_stdin = null_stdin;
	if (pty_spawn(&spec, c, &cause) != 0)
		ck_abort_msg("pty_spawn: %s", cause);
	ck_assert_int_gt(c->pid, 0);
	ck_assert_int_eq(c->is_pty, 0);
	ck_assert_int_gt(c->err_fd, 2);
	ck_assert(fcntl(c->err_fd, F_GETFD) & FD_CLOEXEC);
	ck_assert(fcntl(c->err_fd, F_GETFL) & O_NONBLOCK);
}

START_TEST(test_split_stderr)
{
	struct pty_child	 c;
	struct out		 o = { .len = 0 }, e = { .len = 0 };
	char *const		 argv[] = { "sh", "-c",
	    "echo out; echo err >&2; read x; echo got:$x; echo err2 >&2;"
	    " for f in /proc/$$/fd/*; do"
	    " if [ -e \"$f\" ]; then echo ${f##*/}; fi; done", NULL };
	int			 status;

	spawn_split(&c, "/bin/sh", argv, NULL, 0);
	ck_assert_int_eq(c.exec_errno, 0);
	ck_assert_int_ne(c.in_fd, -1);
	ck_assert(read_until(c.out_fd, &o, "out\n", 10000));
	ck_assert(read_until(c.err_fd, &e, "err\n", 10000));
	ck_assert_int_eq(write(c.in_fd, "abc\n", 4), 4);
	ck_assert(read_until(c.err_fd, &e, NULL, 10000));
	ck_assert(read_until(c.out_fd, &o, NULL, 10000));
	/* Only 0-2: neither the exec report nor any other pipe leaked. */
	ck_assert_str_eq(o.buf, "out\ngot:abc\n0\n1\n2\n");
	ck_assert_str_eq(e.buf, "err\nerr2\n");
	status = wait_child(c.pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	pty_child_close(&c);
	ck_assert_int_eq(c.err_fd, -1);
	ck_assert_int_ne(fcntl(0, F_GETFD), -1);
}
END_TEST

/* Spawn a split child that cannot start; check errno, message and 127/126. */
static void
check_split_failure(const char *path, const char *cwd, int want_errno,
    const char *want_msg, int want_status)
{
	struct pty_child	 c;
	struct out		 o = { .len = 0 }, e = { .len = 0 };
	char *const		 argv[] = { (char *)path, NULL };
	int			 status;

	spawn_split(&c, path, argv, cwd, 1);
	ck_assert_int_eq(c.exec_errno, want_errno);
	ck_assert(read_until(c.err_fd, &e, NULL, 10000));
	ck_assert(read_until(c.out_fd, &o, NULL, 10000));
	ck_assert_str_eq(e.buf, want_msg);
	ck_assert_str_eq(o.buf, "");
	status = wait_child(c.pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == want_status);
	pty_child_close(&c);
}

START_TEST(test_split_exec_report)
{
	char	dir[] = "/tmp/check_pty.XXXXXX", file[160], msg[200];

	check_split_failure("no-such-program-xyz", NULL, ENOENT,
	    "no-such-program-xyz: not found\n", 127);
	check_split_failure("/nonexistent/prog", NULL, ENOENT,
	    "/nonexistent/prog: No such file or directory\n", 127);
	check_split_failure("/bin/true", "/nonexistent/dir", ENOENT,
	    "cd: /nonexistent/dir: No such file or directory\n", 127);

	/* Found but not executable. */
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(file, sizeof file, "%s/noexec", dir);
	write_file(file, "#!/bin/sh\necho no\n", 0644);
	snprintf(msg, sizeof msg, "%s: Permission denied\n", file);
	check_split_failure(file, NULL, EACCES, msg, 126);
	unlink(file);
	rmdir(dir);
}
END_TEST

START_TEST(test_null_stdin)
{
	struct pty_child	 c;
	struct out		 o = { .len = 0 };
	char *const		 argv[] = { "readlink", "/proc/self/fd/0",
	    NULL };

	spawn_split(&c, "readlink", argv, NULL, 1);
	ck_assert_int_eq(c.in_fd, -1);
	ck_assert(read_until(c.out_fd, &o, NULL, 10000));
	ck_assert_str_eq(o.buf, "/dev/null\n");
	wait_child(c.pid);
	pty_child_close(&c);
}
END_TEST

/*
 * null_output: stdin, stdout and stderr are /dev/null (no pty even when
 * one could be had), the parent gets no fd at all, and the child leads
 * its own session and has no other fd: seen in /proc once it has exec'd.
 */
START_TEST(test_null_output)
{
	struct pty_spec		 spec;
	struct pty_child	 c;
	struct dirent		*de;
	DIR			*d;
	char			 path[64], buf[256], *cause = NULL;
	char *const		 argv[] = { "sleep", "100", NULL };
	long long		 end;
	ssize_t			 n;
	int			 fd, i, fds = 0;

	memset(&spec, 0, sizeof spec);
	spec.path = "sleep";
	spec.argv = argv;
	spec.envp = test_env;
	spec.null_stdin = 1;
	spec.null_output = 1;
	if (pty_spawn(&spec, &c, &cause) != 0)
		ck_abort_msg("pty_spawn: %s", cause);
	ck_assert_int_gt(c.pid, 0);
	ck_assert_int_eq(c.is_pty, 0);
	ck_assert_int_eq(c.out_fd, -1);
	ck_assert_int_eq(c.in_fd, -1);
	ck_assert_int_eq(c.err_fd, -1);
	/* Exec'd: its command line is sleep's. */
	snprintf(path, sizeof path, "/proc/%ld/cmdline", (long)c.pid);
	end = now_ms() + 10000;
	for (;;) {
		ck_assert_int_ge(fd = open(path, O_RDONLY), 0);
		n = read(fd, buf, sizeof buf);
		close(fd);
		if (n == 10 && memcmp(buf, "sleep\0" "100\0", 10) == 0)
			break;
		ck_assert_msg(now_ms() < end, "sleep never ran");
		usleep(5000);
	}
	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof path, "/proc/%ld/fd/%d", (long)c.pid, i);
		n = readlink(path, buf, sizeof buf - 1);
		ck_assert_int_gt(n, 0);
		buf[n] = '\0';
		ck_assert_str_eq(buf, "/dev/null");
	}
	snprintf(path, sizeof path, "/proc/%ld/fd", (long)c.pid);
	ck_assert_ptr_nonnull(d = opendir(path));
	while ((de = readdir(d)) != NULL)
		fds += de->d_name[0] != '.';
	closedir(d);
	ck_assert_int_eq(fds, 3);
	ck_assert_int_eq(getsid(c.pid), c.pid);
	ck_assert_int_eq(kill(c.pid, SIGKILL), 0);
	wait_child(c.pid);
	pty_child_close(&c);
}
END_TEST

START_TEST(test_zeroed_child_keeps_fd0)
{
	struct pty_child	*c;

	/* job.c's pattern: calloc, then only out_fd and in_fd set to -1. */
	c = calloc(1, sizeof *c);
	ck_assert_ptr_nonnull(c);
	c->pid = -1;
	c->out_fd = c->in_fd = -1;
	ck_assert_int_eq(c->err_fd, 0);
	pty_child_close(c);
	ck_assert_int_ne(fcntl(0, F_GETFD), -1);
	ck_assert_int_eq(c->err_fd, -1);
	pty_child_close(c);
	ck_assert_int_ne(fcntl(0, F_GETFD), -1);
	free(c);
}
END_TEST

START_TEST(test_split_with_std_fds_closed)
{
	struct pty_child	 c;
	struct out		 e = { .len = 0 };
	char *const		 argv[] = { "sh", "-c", "echo err >&2", NULL };
	pid_t			 pid;
	int			 status;

	/* In a child of ours: with 0-2 closed, err_fd still lands above 2. */
	pid = fork();
	ck_assert_int_ne(pid, -1);
	if (pid == 0) {
		close(0);
		close(1);
		close(2);
		spawn_split(&c, "/bin/sh", argv, NULL, 0);
		if (c.err_fd <= 2 || !read_until(c.err_fd, &e, NULL, 10000) ||
		    strcmp(e.buf, "err\n") != 0)
			_exit(1);
		waitpid(c.pid, NULL, 0);
		pty_child_close(&c);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}
END_TEST

/*
 * Spawn script on a pty (mode 0), pipes (1) or split pipes (2) with
 * cgroup_procs set to fd; return its output (stdout) and wait status.
 */
static int
run_joined(const char *script, int mode, int fd, struct out *o)
{
	struct pty_spec		 spec;
	struct pty_child	 c;
	char *const		 argv[] = { "sh", "-c", (char *)script, NULL };
	char			*cause = NULL;

	memset(&spec, 0, sizeof spec);
	memset(o, 0, sizeof *o);
	spec.path = "/bin/sh";
	spec.argv = argv;
	spec.envp = test_env;
	spec.no_pty = mode == 1;
	spec.split_stderr = mode == 2;
	spec.cgroup_procs = fd;
	if (pty_spawn(&spec, &c, &cause) != 0)
		ck_abort_msg("pty_spawn: %s", cause);
	ck_assert(read_until(c.out_fd, o, NULL, 10000));
	pty_child_close(&c);
	return wait_child(c.pid);
}

/* Shell commands that list the shell's open fds, "fd0" a line. */
#define FDS_SCRIPT "for f in /proc/$$/fd/*; do if [ -e \"$f\" ]; then " \
    "echo fd${f##*/}; fi; done"

/* The script that shows the child's cgroup and its open fds. */
static const char join_script[] = "sed -n 's/^0:://p' /proc/$$/cgroup; "
    FDS_SCRIPT;

/*
 * The child is in its cgroup before it execs (the shell's first command
 * sees it there) and does not inherit the cgroup.procs fd: pty, pipes and
 * split pipes.
 */
START_TEST(test_cgroup_join)
{
	struct cgroup		*cg;
	struct cgroup_job	*cgj;
	struct out		 o;
	char			 want[512];
	int			 status;

	if (geteuid() != 0)
		TEST_SKIP("needs root");
	cg = cgroup_new(0);
	if (cgroup_dir(cg) == NULL) {
		TEST_SKIP_LINE("%s", cgroup_warning(cg));
		cgroup_free(cg);
		return;
	}
	cgj = cgroup_job_new(cg, 1);
	ck_assert_int_gt(cgroup_job_procs_fd(cgj), 2);
	status = run_joined(join_script, _i, cgroup_job_procs_fd(cgj), &o);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	snprintf(want, sizeof want, "/%s/job-1-1\nfd0\nfd1\nfd2\n",
	    cgroup_token(cg));
	ck_assert_msg(strstr(o.buf, want) != NULL && o.buf[0] == '/',
	    "output \"%s\", wanted it to end in \"%s\"", o.buf, want);
	cgroup_job_started(cgj, 0);
	ck_assert_int_eq(cgroup_job_remove(cgj), 0);
	cgroup_job_release(cgj);
	cgroup_free(cg);
}
END_TEST

/*
 * A cgroup.procs fd that refuses the write (/dev/full) does not stop the
 * child, which does not inherit it; one of 0-2 is not written to at all.
 */
START_TEST(test_cgroup_join_fails)
{
	struct out	o;
	int		full, status;

	full = open("/dev/full", O_WRONLY | O_CLOEXEC);
	ck_assert_int_gt(full, 2);
	status = run_joined("echo ran; " FDS_SCRIPT, _i, full, &o);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_str_eq(o.buf, "ran\nfd0\nfd1\nfd2\n");
	close(full);
	status = run_joined("echo ran", _i, STDOUT_FILENO, &o);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_str_eq(o.buf, "ran\n");
}
END_TEST

/* Build the pty suite. */
static Suite *
pty_suite(void)
{
	Suite	*s = suite_create("pty");
	TCase	*tc;

	tc = tcase_create("spawn");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_echo_on_pty);
	tcase_add_test(tc, test_session_leader_pty);
	tcase_add_test(tc, test_session_leader_pipes);
	tcase_add_test(tc, test_controlling_tty);
	tcase_add_test(tc, test_window_size);
	tcase_add_test(tc, test_resize_sends_sigwinch);
	tcase_add_test(tc, test_termios_cooked);
	tcase_add_test(tc, test_env_exact);
	tcase_add_test(tc, test_cwd);
	tcase_add_test(tc, test_bad_spec);
	suite_add_tcase(s, tc);

	tc = tcase_create("hygiene");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_no_inherited_fds_pty);
	tcase_add_test(tc, test_no_inherited_fds_pipes);
	tcase_add_test(tc, test_signals_reset_pty);
	tcase_add_test(tc, test_signals_reset_pipes);
	suite_add_tcase(s, tc);

	tc = tcase_create("cgroup");
	tcase_set_timeout(tc, 30);
	tcase_add_loop_test(tc, test_cgroup_join, 0, 3);
	tcase_add_loop_test(tc, test_cgroup_join_fails, 0, 3);
	suite_add_tcase(s, tc);

	tc = tcase_create("exec");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_not_found);
	tcase_add_test(tc, test_path_search_and_exec_errors);
	suite_add_tcase(s, tc);

	tc = tcase_create("pipes");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_pipe_fallback);
	tcase_add_test(tc, test_split_stderr);
	tcase_add_test(tc, test_split_exec_report);
	tcase_add_test(tc, test_null_stdin);
	tcase_add_test(tc, test_null_output);
	tcase_add_test(tc, test_zeroed_child_keeps_fd0);
	tcase_add_test(tc, test_split_with_std_fds_closed);
	/* Needs a private mount namespace (root); left out otherwise. */
	tcase_add_test(tc, test_fallback_when_no_pty);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite; exit non-zero if any test failed. */
int
main(void)
{
	SRunner	*sr = srunner_create(pty_suite());
	int	 failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

/*
 * check_remote_e2e.c: a deck on another host reached through ssh (issue
 * 28): `jobdeck ctl -H DEST`, `jobdeck ls -H DEST` and `jobdeck attach
 * -H DEST`.  Each test starts the tests' sshd (tests/testssh.h; jd-a is
 * this machine as another "host"), a real deck on a pty in the term
 * harness's private XDG_RUNTIME_DIR, and sets JOBDECK_SSH_COMMAND to the
 * server's ssh command.  The sshd's sessions get sshd's environment, not
 * the test's, so JOBDECK_REMOTE_JOBDECK names a script in the test's
 * directory that sets the deck's XDG_RUNTIME_DIR and execs the binary
 * under test (what README says to do for a remote environment).  The
 * front end itself runs with an XDG_RUNTIME_DIR of its own where no deck
 * is, so an answer can only have come through ssh.
 *
 * The binary is $JOBDECK_BIN, else ./jobdeck.  While a front end runs
 * the test keeps reading the deck's terminal.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "e2e/e2e.h"
#include "testssh.h"

#define WAIT_MS		30000	/* the most anything is waited for */
#define DECK		"rem"	/* the deck's name */
#define NOT_FOUND	"(install jobdeck there, or set " \
			"JOBDECK_REMOTE_JOBDECK)"

/* One test's server, deck and the paths around them. */
struct rem {
	struct testssh	 ts;
	struct term	*t;			/* the deck */
	char		 run[PATH_MAX];		/* its XDG_RUNTIME_DIR */
	char		 jd[PATH_MAX];		/* the remote jobdeck: a script */
	char		 here[PATH_MAX];	/* the front end's: no deck */
	char		 ssh[160];		/* JOBDECK_SSH_COMMAND=... */
	char		 remote[PATH_MAX + 32];	/* JOBDECK_REMOTE_JOBDECK=... */
};

/*
 * Start a deck (the server is started already), write the remote jobdeck
 * script and point this process's environment at the server and the
 * script.
 */
static void
rem_open(struct rem *r)
{
	static const char *const	 args[] = { "-c", "/dev/null", "-S",
					     DECK, NULL };
	char				 bin[PATH_MAX], text[3 * PATH_MAX];
	const char			*dir;

	ck_assert_msg(realpath(e2e_bin(), bin) != NULL, "%s: %s", e2e_bin(),
	    strerror(errno));
	r->t = e2e_start(args, NULL);
	dir = term_tmpdir(r->t);
	ck_assert(snprintf(r->run, sizeof r->run, "%s/run", dir) <
	    (int)sizeof r->run);
	ck_assert(snprintf(r->jd, sizeof r->jd, "%s/jd-remote", dir) <
	    (int)sizeof r->jd);
	ck_assert(snprintf(r->here, sizeof r->here, "%s/here", dir) <
	    (int)sizeof r->here);
	ck_assert_int_eq(mkdir(r->here, 0700), 0);
	snprintf(text, sizeof text, "#!/bin/sh\nXDG_RUNTIME_DIR='%s' "
	    "exec '%s' \"$@\"\n", r->run, bin);
	e2e_put_file(dir, "jd-remote", text, 0700);
	snprintf(r->ssh, sizeof r->ssh, "JOBDECK_SSH_COMMAND=%s",
	    r->ts.command);
	snprintf(r->remote, sizeof r->remote, "JOBDECK_REMOTE_JOBDECK=%s",
	    r->jd);
	setenv("JOBDECK_SSH_COMMAND", r->ts.command, 1);
	setenv("JOBDECK_REMOTE_JOBDECK", r->jd, 1);
	setenv("XDG_RUNTIME_DIR", r->here, 1);
}

/* End the deck and the server. */
static void
rem_close(struct rem *r)
{
	term_close(r->t);
	testssh_stop(&r->ts);
}

/*
 * Run the binary with the NULL-ended words after it, stdin /dev/null,
 * stdout and stderr together in *out (to free), reading the deck's
 * terminal meanwhile; its exit status (-1: killed by a signal).
 */
static int
rem_run(struct rem *r, char **out, ...)
{
	const char	*argv[32];
	struct pollfd	 pfd;
	va_list		 ap;
	size_t		 n = 0, len = 0;
	int64_t		 end = term_now_ms() + WAIT_MS;
	int		 p[2], null, st;
	pid_t		 pid;

	argv[n++] = e2e_bin();
	va_start(ap, out);
	while ((argv[n] = va_arg(ap, const char *)) != NULL && n < 31)
		n++;
	va_end(ap);
	argv[n] = NULL;
	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	pid = fork();
	ck_assert_int_ne(pid, -1);
	if (pid == 0) {
		null = open("/dev/null", O_RDWR);
		dup2(null, 0);
		dup2(p[1], 1);
		dup2(p[1], 2);
		close_range(3, ~0U, 0);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(p[1]);
	*out = calloc(1, 1);
	ck_assert_ptr_nonnull(*out);
	pfd.fd = p[0];
	pfd.events = POLLIN;
	for (;;) {
		ck_assert_msg(term_now_ms() < end, "jobdeck %s did not finish "
		    "within %d ms: %s", argv[1], WAIT_MS, *out);
		if (poll(&pfd, 1, 10) > 0 && !e2e_drain(pfd.fd, out, &len))
			break;
		term_pump(r->t, 1);
	}
	close(p[0]);
	while (waitpid(pid, &st, 0) == -1 && errno == EINTR)
		;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Run `jobdeck ctl -S DECK ARGS...` here, which must succeed; its output. */
static char *
rem_ctl_here(struct rem *r, ...)
{
	char	*out;
	va_list	 ap;

	va_start(ap, r);
	out = e2e_ctl_okv(r->t, DECK, r->run, 0, ap);
	va_end(ap);
	return out;
}

/*
 * ctl -H jd-a gives what the local ctl gives: a job's list and status,
 * and a job spawned through ssh runs in that deck; without -H the front
 * end's own XDG_RUNTIME_DIR has no deck.
 */
START_TEST(ctl_same_answer)
{
	struct rem	 r;
	char		*here, *there;
	int		 rc;

	TESTSSH_START(&r.ts);
	rem_open(&r);
	free(rem_ctl_here(&r, "spawn", "--name", "one", "--", "sh", "-c",
	    "echo one-out", NULL));
	/* Ended: its TIME, CPU and MEM no longer change between asks. */
	free(rem_ctl_here(&r, "wait", "one", NULL));

	rc = rem_run(&r, &there, "ctl", "-S", DECK, "list", NULL);
	ck_assert_msg(rc == 2 && strstr(there, "no deck named") != NULL,
	    "a deck here?: %d %s", rc, there);
	free(there);

	here = rem_ctl_here(&r, "list", NULL);
	rc = rem_run(&r, &there, "ctl", "-H", "jd-a", "-S", DECK, "list",
	    NULL);
	ck_assert_msg(rc == 0, "ctl -H list: %d %s", rc, there);
	ck_assert_str_eq(there, here);
	ck_assert_ptr_nonnull(strstr(there, "one"));
	free(here);
	free(there);

	/* Options in their long forms, and --json after COMMAND. */
	here = rem_ctl_here(&r, "logs", "one", "--json", NULL);
	rc = rem_run(&r, &there, "ctl", "--host=jd-a", "-S", DECK, "logs",
	    "one", "--json", NULL);
	ck_assert_msg(rc == 0, "ctl --host= logs: %d %s", rc, there);
	ck_assert_str_eq(there, here);
	free(here);
	free(there);

	rc = rem_run(&r, &there, "ctl", "-H", "jd-a", "-S", DECK, "spawn",
	    "--name", "two", "--", "sh", "-c", "echo two-out", NULL);
	ck_assert_msg(rc == 0, "ctl -H spawn: %d %s", rc, there);
	free(there);
	e2e_wait_logs(r.t, DECK, r.run, "two", "two-out", WAIT_MS);
	rem_close(&r);
}
END_TEST

/* ls -H jd-a lists the deck there as ls there does. */
START_TEST(ls_remote)
{
	struct rem	 r;
	char		*here, *there;
	int		 rc;

	TESTSSH_START(&r.ts);
	rem_open(&r);
	rc = rem_run(&r, &here, "ls", NULL);
	ck_assert_msg(rc == 0 && here[0] == '\0', "decks here: %d %s", rc,
	    here);
	free(here);

	rc = rem_run(&r, &there, "ls", "-H", "jd-a", NULL);
	ck_assert_msg(rc == 0, "ls -H: %d %s", rc, there);
	ck_assert_msg(strncmp(there, "NAME", 4) == 0 &&
	    strstr(there, "\n" DECK " ") != NULL, "%s", there);
	setenv("XDG_RUNTIME_DIR", r.run, 1);
	rc = rem_run(&r, &here, "ls", NULL);
	ck_assert_msg(rc == 0, "ls: %d %s", rc, here);
	ck_assert_str_eq(there, here);
	free(here);
	free(there);

	rc = rem_run(&r, &there, "ls", "--json", "-H", "jd-a", NULL);
	ck_assert_msg(rc == 0 && there[0] == '[' &&
	    strstr(there, "\"name\":\"" DECK "\"") != NULL, "ls --json -H: "
	    "%d %s", rc, there);
	free(there);
	rem_close(&r);
}
END_TEST

/*
 * Words with spaces, quotes, $(), backquotes and a backslash reach the
 * deck there byte-exact: the remote shell runs none of them.
 */
START_TEST(ctl_words_exact)
{
	struct rem	 r;
	char		*out;
	int		 rc;

	TESTSSH_START(&r.ts);
	rem_open(&r);
	rc = rem_run(&r, &out, "ctl", "-H", "jd-a", "-S", DECK, "spawn",
	    "--name", "q", "--", "printf", "<%s>", "a  b", "$(echo x)",
	    "it's", "\"dq\"", "`id`", "back\\slash", "semi;colon", NULL);
	ck_assert_msg(rc == 0, "ctl -H spawn: %d %s", rc, out);
	free(out);
	e2e_wait_logs(r.t, DECK, r.run, "q", "<a  b><$(echo x)><it's>"
	    "<\"dq\"><`id`><back\\slash><semi;colon>", WAIT_MS);
	rem_close(&r);
}
END_TEST

/*
 * No jobdeck there: a clear error naming the host and the way out, exit
 * 127; a remote job's own 127 passed on by `ctl wait` is not taken for
 * it.
 */
START_TEST(remote_not_found)
{
	struct rem	 r;
	char		*out;
	int		 rc;

	TESTSSH_START(&r.ts);
	rem_open(&r);
	setenv("JOBDECK_REMOTE_JOBDECK", "/nonexistent/jobdeck", 1);
	rc = rem_run(&r, &out, "ctl", "-H", "jd-a", "-S", DECK, "list",
	    NULL);
	ck_assert_msg(rc == 127 && strstr(out, "/nonexistent/jobdeck: not "
	    "found on jd-a " NOT_FOUND "\n") != NULL, "%d %s", rc, out);
	free(out);
	rc = rem_run(&r, &out, "attach", "-H", "jd-a", "-S", DECK, NULL);
	ck_assert_msg(rc == 127 && strstr(out, "not found on jd-a") != NULL,
	    "%d %s", rc, out);
	free(out);

	/* The default name, where the remote PATH has no jobdeck. */
	unsetenv("JOBDECK_REMOTE_JOBDECK");
	rc = rem_run(&r, &out, "ls", "-H", "jd-b", NULL);
	if (strstr(out, "jobdeck: not found") == NULL) {
		fprintf(stderr, "note: %s: a jobdeck in the remote PATH: %d "
		    "%s\n", __func__, rc, out);
	} else
		ck_assert_msg(rc == 127 && strstr(out, "jobdeck: not found on "
		    "jd-b " NOT_FOUND "\n") != NULL, "%d %s", rc, out);
	free(out);

	setenv("JOBDECK_REMOTE_JOBDECK", r.jd, 1);
	free(rem_ctl_here(&r, "spawn", "--name", "gone", "--", "sh", "-c",
	    "exit 127", NULL));
	rc = rem_run(&r, &out, "ctl", "-H", "jd-a", "-S", DECK, "wait",
	    "gone", NULL);
	ck_assert_msg(rc == 127 && strstr(out, "not found on") == NULL,
	    "wait for a job's 127: %d %s", rc, out);
	free(out);
	rem_close(&r);
}
END_TEST

/*
 * ssh's own failure passes through: its message and 255.  A destination
 * that would be an ssh option is refused before any ssh runs.
 */
START_TEST(ssh_fails)
{
	struct rem	 r;
	char		*out, opt[PATH_MAX + 96], mark[PATH_MAX + 16];
	int		 rc;

	TESTSSH_START(&r.ts);
	rem_open(&r);
	rc = rem_run(&r, &out, "ctl", "-H", "jd-refused", "-S", DECK, "list",
	    NULL);
	ck_assert_msg(rc == 255 && strstr(out, "Connection refused") != NULL,
	    "%d %s", rc, out);
	free(out);
	rc = rem_run(&r, &out, "ls", "-H", "jd-badkey", NULL);
	ck_assert_msg(rc == 255 && strstr(out, "Permission denied") != NULL,
	    "%d %s", rc, out);
	free(out);

	snprintf(mark, sizeof mark, "%s/proxy-ran", r.here);
	snprintf(opt, sizeof opt, "-oProxyCommand=touch %s", mark);
	rc = rem_run(&r, &out, "ctl", "-H", opt, "-S", DECK, "list", NULL);
	ck_assert_msg(rc == 2, "%d %s", rc, out);
	ck_assert_msg(strncmp(out, "jobdeck ctl: -H -oProxyCommand=touch ",
	    37) == 0 && strstr(out, ": not an ssh destination\n") != NULL,
	    "%s", out);
	ck_assert_int_eq(access(mark, F_OK), -1);
	free(out);
	rc = rem_run(&r, &out, "attach", "--host", "-oProxyCommand=x", NULL);
	ck_assert_msg(rc == 2 && strcmp(out, "jobdeck attach: -H "
	    "-oProxyCommand=x: not an ssh destination\n") == 0, "%d %s", rc,
	    out);
	free(out);
	rem_close(&r);
}
END_TEST

/*
 * attach -H jd-a on a terminal: ssh -t gives the remote jobdeck one; the
 * deck's screen shows, C-\ detaches, the client exits 0 and the deck
 * runs on.
 */
START_TEST(attach_remote)
{
	struct rem	 r;
	struct term	*c;
	const char	*argv[] = { e2e_bin(), "attach", "-H", "jd-a", "-S",
			    DECK, NULL };
	const char	*env[3];
	char		*out;
	int		 status;

	TESTSSH_START(&r.ts);
	TESTSSH_NEED_PTY(&r.ts);
	rem_open(&r);
	free(rem_ctl_here(&r, "spawn", "--name", "far-job", "--", "sh", "-c",
	    "echo far-output; sleep 600", NULL));
	env[0] = r.ssh;
	env[1] = r.remote;
	env[2] = NULL;
	c = term_start(argv, env);
	ck_assert_msg(c != NULL, "cannot start %s: %s", argv[0],
	    strerror(errno));
	EXPECT_IN(c, NULL, "Processes (", WAIT_MS);
	EXPECT_IN(c, NULL, "far-job", WAIT_MS);
	term_type(c, "\x1c");
	ck_assert_msg(term_wait_exit(c, WAIT_MS, &status), "the client did "
	    "not exit\n%s", e2e_dump(c));
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "wait status 0x%x\n%s", status, e2e_dump(c));
	EXPECT_IN(c, NULL, "[detached from " DECK "]", WAIT_MS);
	term_close(c);
	out = rem_ctl_here(&r, "deck", NULL);
	ck_assert_ptr_nonnull(strstr(out, DECK));
	free(out);
	rem_close(&r);
}
END_TEST

/* attach and kill-deck take -h and -H (attach --help was refused). */
START_TEST(help_lines)
{
	char	out[4096];
	int	rc;

	rc = e2e_batch("attach --help", out, sizeof out);
	ck_assert_msg(rc == 0 && strncmp(out, "usage: jobdeck attach [-S NAME] "
	    "[-H DEST] [-r]\n", 47) == 0 && strstr(out, "--host DEST") != NULL,
	    "%d %s", rc, out);
	rc = e2e_batch("kill-deck --help", out, sizeof out);
	ck_assert_msg(rc == 0 && strncmp(out, "usage: jobdeck kill-deck "
	    "[-S NAME] [-H DEST]\n", 45) == 0, "%d %s", rc, out);
	rc = e2e_batch("ctl --help", out, sizeof out);
	ck_assert_msg(rc == 0 && strstr(out, "-H, --host DEST") != NULL,
	    "%d %s", rc, out);
	rc = e2e_batch("ls --help", out, sizeof out);
	ck_assert_msg(rc == 0 && strncmp(out, "usage: jobdeck ls [-H DEST] "
	    "[--json]\n", 37) == 0, "%d %s", rc, out);
	rc = e2e_batch("kill-deck -r", out, sizeof out);
	ck_assert_msg(rc == 2 && strstr(out, "-r is for jobdeck attach") !=
	    NULL, "%d %s", rc, out);
}
END_TEST

/* The suite: each case with its timeout. */
int
main(void)
{
	static const struct e2e_case	cases[] = {
		{ "ctl_same_answer", &ctl_same_answer, 120 },
		{ "ls_remote", &ls_remote, 120 },
		{ "ctl_words_exact", &ctl_words_exact, 120 },
		{ "remote_not_found", &remote_not_found, 120 },
		{ "ssh_fails", &ssh_fails, 120 },
		{ "attach_remote", &attach_remote, 120 },
		{ "help_lines", &help_lines, 60 },
	};
	Suite	*s = suite_create("remote_e2e");

	e2e_add_cases(s, cases, sizeof cases / sizeof cases[0]);
	return e2e_main(s);
}

/*
 * check_up_e2e.c: `jobdeck up` and `jobdeck ctl wait` end to end: the real
 * binary with real jobs, its stdout and stderr on pipes (so no colour),
 * in a private directory per test that holds the configuration, the files
 * the jobs write, and HOME, XDG_CONFIG_HOME, XDG_STATE_HOME and
 * XDG_RUNTIME_DIR (so `jobdeck ctl -S NAME` finds the deck's socket and
 * nothing of the user's is touched).  Nothing waits a fixed time: the
 * tests wait, with generous deadlines, for lines of output, files the
 * jobs write, or the exit.
 *
 * The binary is $JOBDECK_BIN, else ./jobdeck.
 */
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "e2e/e2e.h"
#include "jsonread.h"

#define WAIT_MS		20000	/* for a line, a file or an exit */
#define MAX_ARGS	32

/* A private directory: the config, the jobs' files, the XDG homes. */
struct box {
	char	dir[64];
};

/* A running `jobdeck up` or `jobdeck ctl`: its pipes and what came. */
struct proc {
	pid_t	 pid;
	int	 out;		/* -1 once at its end */
	int	 err;
	char	*obuf;
	size_t	 olen;
	char	*ebuf;
	size_t	 elen;
	int	 status;	/* exit status, 128+N for signal N; -1 running */
	int	 noread;	/* its stdout is never read */
};

/* Make a box: a fresh directory with the XDG directories in it. */
static void
box_open(struct box *b)
{
	char	path[PATH_MAX];

	snprintf(b->dir, sizeof b->dir, "/tmp/jd-up.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(b->dir));
	snprintf(path, sizeof path, "%s/run", b->dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
}

/* Remove a box and everything in it. */
static void
box_close(struct box *b)
{
	char	cmd[128];

	snprintf(cmd, sizeof cmd, "rm -rf %s", b->dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", b->dir);
}

/* Write text to name in the box (0600, as a config must be). */
static void
box_write(struct box *b, const char *name, const char *text)
{
	char	path[PATH_MAX];
	int	fd;

	snprintf(path, sizeof path, "%s/%s", b->dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/* Read name in the box into buf; its length, or -1 if it is not there. */
static ssize_t
box_read(struct box *b, const char *name, char *buf, size_t size)
{
	char	 path[PATH_MAX];
	FILE	*f;
	size_t	 n;

	snprintf(path, sizeof path, "%s/%s", b->dir, name);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	fclose(f);
	return (ssize_t)n;
}

/*
 * Start the binary with args (NULL-ended) in the box: its cwd, homes and
 * runtime directory, SHELL=/bin/sh; stdin /dev/null, stdout and stderr
 * on pipes.
 */
static void
proc_start(struct proc *p, struct box *b, const char *const *args)
{
	const char	*argv[MAX_ARGS + 2];
	char		 path[PATH_MAX];
	int		 o[2], e[2], null, n = 0;

	memset(p, 0, sizeof *p);
	p->status = -1;
	argv[n++] = e2e_bin();
	for (; *args != NULL && n < MAX_ARGS + 1; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	ck_assert_int_eq(pipe2(o, O_CLOEXEC), 0);
	ck_assert_int_eq(pipe2(e, O_CLOEXEC), 0);
	p->pid = fork();
	ck_assert_int_ne(p->pid, -1);
	if (p->pid == 0) {
		null = open("/dev/null", O_RDONLY);
		dup2(null, 0);
		dup2(o[1], 1);
		dup2(e[1], 2);
		if (chdir(b->dir) != 0)
			_exit(98);
		setenv("HOME", b->dir, 1);
		setenv("XDG_CONFIG_HOME", b->dir, 1);
		snprintf(path, sizeof path, "%s/state", b->dir);
		setenv("XDG_STATE_HOME", path, 1);
		snprintf(path, sizeof path, "%s/run", b->dir);
		setenv("XDG_RUNTIME_DIR", path, 1);
		setenv("SHELL", "/bin/sh", 1);
		execv(argv[0], (char *const *)argv);
		dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(99);
	}
	close(o[1]);
	close(e[1]);
	p->out = o[0];
	p->err = e[0];
	fcntl(p->out, F_SETFL, O_NONBLOCK);
	fcntl(p->err, F_SETFL, O_NONBLOCK);
	p->obuf = calloc(1, 1);
	p->ebuf = calloc(1, 1);
}

/* Start the binary with a NULL-ended list of arguments. */
static void
proc_startl(struct proc *p, struct box *b, const char *first, ...)
{
	const char	*args[MAX_ARGS + 1];
	va_list		 ap;
	int		 n = 0;

	va_start(ap, first);
	for (args[n] = first; args[n] != NULL && n < MAX_ARGS;
	    args[++n] = va_arg(ap, const char *))
		;
	va_end(ap);
	args[n] = NULL;
	proc_start(p, b, args);
}

/*
 * Read what a process wrote for up to ms (stdout not if noread), and see
 * whether it has exited; returns whether it has.
 */
static int
proc_pump(struct proc *p, int ms)
{
	struct pollfd	pfd[2];
	int		st, n = 0;

	if (p->out != -1 && !p->noread) {
		pfd[n].fd = p->out;
		pfd[n++].events = POLLIN;
	}
	if (p->err != -1) {
		pfd[n].fd = p->err;
		pfd[n++].events = POLLIN;
	}
	if (n > 0 && poll(pfd, (nfds_t)n, ms) > 0) {
		if (p->out != -1 && !p->noread &&
		    !e2e_drain(p->out, &p->obuf, &p->olen)) {
			close(p->out);
			p->out = -1;
		}
		if (p->err != -1 && !e2e_drain(p->err, &p->ebuf,
		    &p->elen)) {
			close(p->err);
			p->err = -1;
		}
	} else if (n == 0)
		usleep((useconds_t)ms * 1000);
	if (p->status == -1 && waitpid(p->pid, &st, WNOHANG) == p->pid)
		p->status = WIFEXITED(st) ? WEXITSTATUS(st) :
		    128 + WTERMSIG(st);
	return p->status != -1 && (p->out == -1 || p->noread) &&
	    p->err == -1;
}

/* Wait for a process to exit (its output read to the end) within ms. */
static void
proc_wait(struct proc *p, int ms)
{
	int64_t	end = term_now_ms() + ms;

	while (!proc_pump(p, 10)) {
		if (term_now_ms() > end) {
			kill(p->pid, SIGKILL);
			ck_abort_msg("%s did not end within %d ms\nstdout:\n%s\n"
			    "stderr:\n%s", e2e_bin(), ms, p->obuf, p->ebuf);
		}
	}
}

/* Free what a process's record holds (it has ended). */
static void
proc_free(struct proc *p)
{
	if (p->out != -1)
		close(p->out);
	if (p->err != -1)
		close(p->err);
	free(p->obuf);
	free(p->ebuf);
	memset(p, 0, sizeof *p);
}

/* Wait until a process's stdout holds text (within ms), pumping others. */
static void
proc_wait_text(struct proc *p, const char *text, int ms)
{
	int64_t	end = term_now_ms() + ms;

	while (strstr(p->obuf, text) == NULL) {
		ck_assert_msg(term_now_ms() <= end && p->status == -1,
		    "no \"%s\" within %d ms (status %d)\nstdout:\n%s\n"
		    "stderr:\n%s", text, ms, p->status, p->obuf, p->ebuf);
		proc_pump(p, 10);
	}
}

/* Wait until the box holds file name (within ms), reading up's output. */
static void
wait_file(struct box *b, struct proc *up, const char *name, int ms)
{
	int64_t	end = term_now_ms() + ms;
	char	buf[16];

	while (box_read(b, name, buf, sizeof buf) < 0) {
		ck_assert_msg(term_now_ms() <= end, "no file %s within %d ms"
		    "\nstdout:\n%s\nstderr:\n%s", name, ms, up->obuf,
		    up->ebuf);
		proc_pump(up, 10);
	}
}

/*
 * Run `jobdeck ctl -S name ARGS...` (NULL-ended) in the box to its end,
 * reading up's output meanwhile.
 */
static void
ctl_run(struct box *b, struct proc *up, struct proc *c, const char *name,
    ...)
{
	const char	*args[MAX_ARGS + 1];
	va_list		 ap;
	int		 n = 0;
	int64_t		 end = term_now_ms() + WAIT_MS;

	args[n++] = "ctl";
	args[n++] = "-S";
	args[n++] = name;
	va_start(ap, name);
	while (n < MAX_ARGS && (args[n] = va_arg(ap, const char *)) != NULL)
		n++;
	va_end(ap);
	args[n] = NULL;
	proc_start(c, b, args);
	while (!proc_pump(c, 10)) {
		if (up != NULL)
			proc_pump(up, 0);
		ck_assert_msg(term_now_ms() <= end, "jobdeck ctl %s did not "
		    "end", args[3]);
	}
}

/*
 * Return the lines of out that start with prefix, each with "(pid N)"
 * made "(pid P)", joined with newlines (static).
 */
static const char *
lines_of(const char *out, const char *prefix)
{
	static char	 buf[8192];
	const char	*p = out, *nl, *pid;
	size_t		 n = 0, len;

	buf[0] = '\0';
	while (*p != '\0') {
		nl = strchr(p, '\n');
		len = nl != NULL ? (size_t)(nl - p) : strlen(p);
		if (strncmp(p, prefix, strlen(prefix)) == 0 &&
		    n + len + 2 < sizeof buf) {
			memcpy(buf + n, p, len);
			buf[n + len] = '\0';
			if ((pid = strstr(buf + n, "(pid ")) != NULL) {
				snprintf((char *)pid, sizeof buf -
				    (size_t)(pid - buf), "(pid P)");
				len = strlen(buf + n);
			}
			n += len;
			buf[n++] = '\n';
			buf[n] = '\0';
		}
		if (nl == NULL)
			break;
		p = nl + 1;
	}
	return buf;
}

/* Count the lines of out. */
static int
count_lines(const char *out)
{
	int	n = 0;

	for (; *out != '\0'; out++)
		n += *out == '\n';
	return n;
}

/* With every job succeeding, up runs them all and exits 0. */
START_TEST(up_all_succeed)
{
	struct box	b;
	struct proc	p;

	box_open(&b);
	box_write(&b, "up.toml",
	    "[[job]]\nname = \"one\"\ncommand = \"echo first\"\n"
	    "[[job]]\nname = \"two\"\ncommand = \"echo second\"\n"
	    "[[job]]\nname = \"three\"\ncommand = \"exit 0\"\n");
	proc_startl(&p, &b, "up", "-c", "up.toml", "-S", "all", NULL);
	proc_wait(&p, WAIT_MS);
	ck_assert_msg(p.status == 0, "exit %d\n%s\n%s", p.status, p.obuf,
	    p.ebuf);
	ck_assert_str_eq(lines_of(p.obuf, "one "),
	    "one     | started (pid P)\n"
	    "one     | first\n"
	    "one     | exited with code 0\n");
	ck_assert_str_eq(lines_of(p.obuf, "two "),
	    "two     | started (pid P)\n"
	    "two     | second\n"
	    "two     | exited with code 0\n");
	ck_assert_str_eq(lines_of(p.obuf, "three "),
	    "three   | started (pid P)\n"
	    "three   | exited with code 0\n");
	ck_assert_int_eq(count_lines(p.obuf), 8);
	ck_assert_str_eq(p.ebuf, "");
	proc_free(&p);
	box_close(&b);
}
END_TEST

/*
 * One failing job among three: up waits for all and exits with its
 * status (3); a job killed by a signal gives 128+N when it fails first.
 */
START_TEST(up_one_fails)
{
	struct box	b;
	struct proc	p;

	box_open(&b);
	box_write(&b, "up.toml",
	    "[[job]]\nname = \"ok\"\ncommand = \"echo fine\"\n"
	    "[[job]]\nname = \"bad\"\ncommand = \"exit 3\"\n"
	    "[[job]]\nname = \"slow\"\n"
	    "command = \"while [ ! -e go ]; do sleep 0.05; done\"\n");
	proc_startl(&p, &b, "up", "-c", "up.toml", "-S", "fail", NULL);
	/* slow outlives bad: up goes on until every job has ended. */
	proc_wait_text(&p, "bad     | exited with code 3\n", WAIT_MS);
	ck_assert_int_eq(p.status, -1);
	box_write(&b, "go", "");
	proc_wait(&p, WAIT_MS);
	ck_assert_msg(p.status == 3, "exit %d\n%s", p.status, p.obuf);
	ck_assert_ptr_nonnull(strstr(p.obuf, "slow    | exited with code 0"));
	proc_free(&p);

	box_write(&b, "up.toml",
	    "[[job]]\nname = \"killed\"\ncommand = \"kill -KILL $$$$\"\n"
	    "[[job]]\nname = \"later\"\n"
	    "command = \"while [ ! -e go2 ]; do sleep 0.05; done; exit 4\"\n");
	proc_startl(&p, &b, "up", "-c", "up.toml", "-S", "fail", NULL);
	proc_wait_text(&p, "killed  | killed by SIGKILL\n", WAIT_MS);
	box_write(&b, "go2", "");
	proc_wait(&p, WAIT_MS);
	ck_assert_msg(p.status == 128 + SIGKILL, "exit %d\n%s", p.status,
	    p.obuf);
	ck_assert_ptr_nonnull(strstr(p.obuf, "later   | exited with code 4"));
	proc_free(&p);
	box_close(&b);
}
END_TEST

/*
 * The lines exactly: names padded to the longest (here longer than the
 * deck's own "jobdeck"), output as text (colours stripped, a progress
 * line's last state, tabs expanded, a C1 control escaped, a last line
 * without its newline), ends described; -t puts the time first.
 */
START_TEST(up_lines_exact)
{
	static const char	*cfg =
	    "[[job]]\nname = \"a\"\n"
	    "command = '''printf 'one\\n'; printf '\\033[31mred\\033[0m\\n'; "
	    "printf '10%%\\r50%%\\r100%%\\n'; printf '\\302\\233x\\n'; "
	    "printf 'tail' '''\n"
	    "[[job]]\nname = \"longname\"\n"
	    "command = '''printf 'x\\ty\\n'; exit 2'''\n";
	static const char	*want_a =
	    "a        | started (pid P)\n"
	    "a        | one\n"
	    "a        | red\n"
	    "a        | 100%\n"
	    "a        | \\u009bx\n"
	    "a        | tail\n"
	    "a        | exited with code 0\n";
	static const char	*want_long =
	    "longname | started (pid P)\n"
	    "longname | x       y\n"
	    "longname | exited with code 2\n";
	struct box		 b;
	struct proc		 p;
	const char		*l;
	char			 copy[8192];
	int			 i;

	box_open(&b);
	box_write(&b, "up.toml", cfg);
	proc_startl(&p, &b, "up", "-c", "up.toml", "-S", "lines", NULL);
	proc_wait(&p, WAIT_MS);
	ck_assert_msg(p.status == 2, "exit %d\n%s", p.status, p.obuf);
	ck_assert_str_eq(lines_of(p.obuf, "a "), want_a);
	ck_assert_str_eq(lines_of(p.obuf, "longname "), want_long);
	ck_assert_int_eq(count_lines(p.obuf), 10);
	ck_assert_ptr_null(strchr(p.obuf, '\033'));
	proc_free(&p);

	/* -t: "HH:MM:SS " before each of the same lines. */
	proc_startl(&p, &b, "up", "-t", "-c", "up.toml", "-S", "lines", NULL);
	proc_wait(&p, WAIT_MS);
	ck_assert_int_eq(p.status, 2);
	ck_assert_int_eq(count_lines(p.obuf), 10);
	for (l = p.obuf, i = 0; *l != '\0'; l = strchr(l, '\n') + 1, i++) {
		ck_assert_msg(l[0] >= '0' && l[0] <= '2' && l[2] == ':' &&
		    l[5] == ':' && l[8] == ' ', "no time: %.40s", l);
	}
	snprintf(copy, sizeof copy, "%s", p.obuf);
	for (l = copy; *l != '\0'; l = strchr(l, '\n') + 1)
		memset((char *)l, '#', 9);
	ck_assert_str_eq(lines_of(copy, "#########a "), e2e_fmt(
	    "#########a        | started (pid P)\n"
	    "#########a        | one\n"
	    "#########a        | red\n"
	    "#########a        | 100%%\n"
	    "#########a        | \\u009bx\n"
	    "#########a        | tail\n"
	    "#########a        | exited with code 0\n"));
	proc_free(&p);
	box_close(&b);
}
END_TEST

/* A partial line goes out after a quiet time, before its newline. */
START_TEST(up_partial_line)
{
	struct box	b;
	struct proc	p;

	box_open(&b);
	box_write(&b, "up.toml",
	    "[[job]]\nname = \"ask\"\n"
	    "command = '''printf 'question? '; "
	    "while [ ! -e go ]; do sleep 0.05; done; echo answer'''\n");
	proc_startl(&p, &b, "up", "-c", "up.toml", "-S", "part", NULL);
	/* The job waits for the test, so only the quiet can send it. */
	proc_wait_text(&p, "ask     | question?\n", WAIT_MS);
	box_write(&b, "go", "");
	proc_wait(&p, WAIT_MS);
	ck_assert_int_eq(p.status, 0);
	ck_assert_str_eq(lines_of(p.obuf, "ask "),
	    "ask     | started (pid P)\n"
	    "ask     | question?\n"
	    "ask     | answer\n"
	    "ask     | exited with code 0\n");
	proc_free(&p);
	box_close(&b);
}
END_TEST

/*
 * A restart policy: up waits through the restarts, says so, and the job's
 * last failure is the status.
 */
START_TEST(up_restarts)
{
	struct box	b;
	struct proc	p;

	box_open(&b);
	box_write(&b, "up.toml",
	    "[[job]]\nname = \"flaky\"\ncommand = \"exit 5\"\n"
	    "restart = \"on-failure\"\nrestart_delay = 0.1\n"
	    "max_restarts = 2\n");
	proc_startl(&p, &b, "up", "-c", "up.toml", "-S", "again", NULL);
	proc_wait(&p, WAIT_MS);
	ck_assert_msg(p.status == 5, "exit %d\n%s", p.status, p.obuf);
	ck_assert_str_eq(lines_of(p.obuf, "flaky "),
	    "flaky   | started (pid P)\n"
	    "flaky   | exited with code 5 (restarting)\n"
	    "flaky   | started (pid P)\n"
	    "flaky   | exited with code 5 (restarting)\n"
	    "flaky   | started (pid P)\n"
	    "flaky   | exited with code 5\n");
	proc_free(&p);
	box_close(&b);
}
END_TEST

/*
 * A foreman Procfile with a .env beside it: every process sees the .env's
 * variables and its $PORT (5000, 5100; --port-base 6000: 6000, 6100).
 */
START_TEST(up_procfile_env_port)
{
	struct box	b;
	struct proc	p;

	box_open(&b);
	box_write(&b, "Procfile",
	    "web: echo \"web PORT=$PORT GREETING=$GREETING\"\n"
	    "worker: echo \"worker PORT=$PORT GREETING=$GREETING\"\n");
	box_write(&b, ".env", "# foreman's .env\nGREETING=\"hello there\"\n");
	proc_startl(&p, &b, "up", "-f", "Procfile", "-S", "proc", NULL);
	proc_wait(&p, WAIT_MS);
	ck_assert_msg(p.status == 0, "exit %d\n%s\n%s", p.status, p.obuf,
	    p.ebuf);
	ck_assert_msg(strstr(p.obuf, "web     | web PORT=5000 "
	    "GREETING=hello there\n") != NULL, "%s", p.obuf);
	ck_assert_msg(strstr(p.obuf, "worker  | worker PORT=5100 "
	    "GREETING=hello there\n") != NULL, "%s", p.obuf);
	proc_free(&p);

	proc_startl(&p, &b, "up", "-f", "Procfile", "--port-base", "6000",
	    "-S", "proc", NULL);
	proc_wait(&p, WAIT_MS);
	ck_assert_int_eq(p.status, 0);
	ck_assert_msg(strstr(p.obuf, "web     | web PORT=6000 ") != NULL,
	    "%s", p.obuf);
	ck_assert_msg(strstr(p.obuf, "worker  | worker PORT=6100 ") != NULL,
	    "%s", p.obuf);
	proc_free(&p);
	box_close(&b);
}
END_TEST

/*
 * A dependency that fails: its dependant does not start, and says why,
 * whole, though the reason is longer than the job's screen is wide; the
 * first failure (the dependency's) is the exit status.
 */
START_TEST(up_dependency_fails)
{
	static const char	*dep =
	    "a-migration-with-a-name-long-enough-to-wrap-the-reason-line";
	struct box		 b;
	struct proc		 p;

	box_open(&b);
	box_write(&b, "up.toml", e2e_fmt(
	    "[[job]]\nname = \"%s\"\ncommand = \"exit 2\"\n"
	    "[[job]]\nname = \"api\"\ncommand = \"echo never\"\n"
	    "depends_on = { %s = \"completed_successfully\" }\n", dep, dep));
	proc_startl(&p, &b, "up", "-c", "up.toml", "-S", "depfail", NULL);
	proc_wait(&p, WAIT_MS);
	ck_assert_msg(p.status == 2, "exit %d\n%s", p.status, p.obuf);
	ck_assert_msg(strstr(p.obuf, e2e_fmt("api%*s | blocked: %s "
	    "failed (exited 2)\n", (int)strlen(dep) - 3, "", dep)) != NULL,
	    "%s", p.obuf);
	ck_assert_ptr_null(strstr(p.obuf, "never"));
	proc_free(&p);
	box_close(&b);
}
END_TEST

/*
 * SIGINT stops the stack in reverse dependency order: api (which depends
 * on db) is stopped, and ends, before db is told to stop, though api takes
 * its time; up says so and exits 128+SIGINT (nothing failed).
 */
START_TEST(up_sigint_order)
{
	struct box	b;
	struct proc	p;
	char		order[256];

	box_open(&b);
	box_write(&b, "up.toml",
	    "[[job]]\nname = \"db\"\n"
	    "command = '''trap 'echo db-stop >> order; exit 0' TERM; "
	    "echo db-up; while :; do sleep 0.05; done'''\n"
	    "[[job]]\nname = \"api\"\n"
	    "command = '''trap 'sleep 0.5; echo api-stop >> order; exit 0' "
	    "TERM; echo api-up; while :; do sleep 0.05; done'''\n"
	    "depends_on = { db = \"started\" }\n");
	proc_startl(&p, &b, "up", "-c", "up.toml", "-S", "order", NULL);
	proc_wait_text(&p, "db      | db-up\n", WAIT_MS);
	proc_wait_text(&p, "api     | api-up\n", WAIT_MS);
	kill(p.pid, SIGINT);
	proc_wait(&p, WAIT_MS);
	ck_assert_msg(p.status == 128 + SIGINT, "exit %d\n%s", p.status,
	    p.obuf);
	ck_assert_ptr_nonnull(strstr(p.obuf,
	    "jobdeck | stopping (Ctrl+C again to kill)\n"));
	ck_assert_int_ge(box_read(&b, "order", order, sizeof order), 0);
	ck_assert_str_eq(order, "api-stop\ndb-stop\n");
	proc_free(&p);
	box_close(&b);
}
END_TEST

/*
 * A second SIGINT kills what the first is still stopping, at once: the
 * job ignores SIGTERM and the grace is a minute.
 */
START_TEST(up_sigint_twice)
{
	struct box	b;
	struct proc	p;
	int64_t		t0;

	box_open(&b);
	box_write(&b, "up.toml",
	    "[settings]\nkill_timeout = 60\n"
	    "[[job]]\nname = \"stubborn\"\n"
	    "command = '''trap '' TERM; echo up; "
	    "while :; do sleep 0.05; done'''\n");
	proc_startl(&p, &b, "up", "-c", "up.toml", "-S", "twice", NULL);
	proc_wait_text(&p, "stubborn | up\n", WAIT_MS);
	kill(p.pid, SIGINT);
	proc_wait_text(&p, "stopping (Ctrl+C again to kill)\n", WAIT_MS);
	ck_assert_int_eq(p.status, -1);
	t0 = term_now_ms();
	kill(p.pid, SIGINT);
	proc_wait(&p, WAIT_MS);
	ck_assert_msg(term_now_ms() - t0 < 30000, "took %lld ms",
	    (long long)(term_now_ms() - t0));
	ck_assert_msg(p.status == 128 + SIGINT, "exit %d\n%s", p.status,
	    p.obuf);
	ck_assert_ptr_nonnull(strstr(p.obuf, "killing every job now\n"));
	ck_assert_ptr_nonnull(strstr(p.obuf,
	    "stubborn | stopped: killed by SIGKILL\n"));
	proc_free(&p);
	box_close(&b);
}
END_TEST

/* Nothing to run, or a name that is not configured: a clear error, 2. */
START_TEST(up_nothing_to_run)
{
	struct box	b;
	struct proc	p;

	box_open(&b);
	box_write(&b, "empty.toml", "[settings]\nscrollback = 100\n");
	proc_startl(&p, &b, "up", "-c", "empty.toml", "-S", "none", NULL);
	proc_wait(&p, WAIT_MS);
	ck_assert_int_eq(p.status, 2);
	ck_assert_msg(strstr(p.ebuf, "nothing to run: ") != NULL &&
	    strstr(p.ebuf, "has no jobs") != NULL, "%s", p.ebuf);
	ck_assert_str_eq(p.obuf, "");
	proc_free(&p);

	box_write(&b, "up.toml", "[[job]]\nname = \"web\"\ncommand = \"true\"\n");
	proc_startl(&p, &b, "up", "-c", "up.toml", "-S", "none", "web", "nope",
	    NULL);
	proc_wait(&p, WAIT_MS);
	ck_assert_int_eq(p.status, 2);
	ck_assert_msg(strstr(p.ebuf, "no job named nope in ") != NULL, "%s",
	    p.ebuf);
	ck_assert_str_eq(p.obuf, "");
	proc_free(&p);
	box_close(&b);
}
END_TEST

/*
 * up --stay with no configuration: no "nothing to run", it answers ctl ps
 * and stays; it runs a job spawned over ctl (one that fails, too) and
 * stays when it ends; ctl quit ends it with status 0.  SIGTERM ends one
 * as it ends up (128 + 15).
 */
START_TEST(up_stay)
{
	struct box	b;
	struct proc	p, c;
	int64_t		end;

	box_open(&b);
	proc_startl(&p, &b, "up", "--stay", "-S", "stay", NULL);
	end = term_now_ms() + WAIT_MS;
	for (;;) {
		ctl_run(&b, &p, &c, "stay", "ps", NULL);
		if (c.status == 0)
			break;
		ck_assert_msg(term_now_ms() <= end && p.status == -1,
		    "ctl ps: %d %s\nup: %d %s", c.status, c.ebuf, p.status,
		    p.ebuf);
		proc_free(&c);
		proc_pump(&p, 50);
	}
	ck_assert_msg(strncmp(c.obuf, "ID ", 3) == 0, "%s", c.obuf);
	proc_free(&c);
	proc_pump(&p, 300);
	ck_assert_msg(p.status == -1, "up --stay left: %d\n%s", p.status,
	    p.ebuf);

	ctl_run(&b, &p, &c, "stay", "spawn", "--agent", "test", "--",
	    "echo spawned; exit 3", NULL);
	ck_assert_msg(c.status == 0, "ctl spawn: %d %s", c.status, c.ebuf);
	proc_free(&c);
	proc_wait_text(&p, "1       | spawned\n", WAIT_MS);
	proc_wait_text(&p, "1       | exited with code 3\n", WAIT_MS);
	proc_pump(&p, 300);
	ck_assert_msg(p.status == -1, "up --stay left: %d\n%s", p.status,
	    p.ebuf);
	ctl_run(&b, &p, &c, "stay", "ps", NULL);
	ck_assert_msg(c.status == 0 && strstr(c.obuf, "(agent test)") !=
	    NULL, "ctl ps: %d %s", c.status, c.obuf);
	proc_free(&c);

	ctl_run(&b, &p, &c, "stay", "quit", NULL);
	ck_assert_int_eq(c.status, 0);
	proc_free(&c);
	proc_wait(&p, WAIT_MS);
	ck_assert_msg(p.status == 0, "exit %d\n%s\n%s", p.status, p.obuf,
	    p.ebuf);
	ck_assert_str_eq(p.ebuf, "");
	proc_free(&p);

	proc_startl(&p, &b, "up", "--stay", "-S", "stay2", NULL);
	end = term_now_ms() + WAIT_MS;
	for (;;) {
		ctl_run(&b, &p, &c, "stay2", "ps", NULL);
		if (c.status == 0)
			break;
		ck_assert_msg(term_now_ms() <= end && p.status == -1,
		    "ctl ps: %d %s", c.status, c.ebuf);
		proc_free(&c);
		proc_pump(&p, 50);
	}
	proc_free(&c);
	kill(p.pid, SIGTERM);
	proc_wait(&p, WAIT_MS);
	ck_assert_int_eq(p.status, 128 + SIGTERM);
	proc_free(&p);

	/* --stay belongs to up. */
	proc_startl(&p, &b, "--stay", NULL);
	proc_wait(&p, WAIT_MS);
	ck_assert_int_eq(p.status, 2);
	ck_assert_str_eq(p.ebuf, "jobdeck: --stay is for jobdeck up\n");
	proc_free(&p);
	box_close(&b);
}
END_TEST

/* The control socket works while up runs: list shows its jobs. */
START_TEST(up_ctl_list)
{
	struct box	b;
	struct proc	p, c;

	box_open(&b);
	box_write(&b, "up.toml",
	    "[[job]]\nname = \"server\"\n"
	    "command = \"echo serving; while :; do sleep 0.05; done\"\n");
	proc_startl(&p, &b, "up", "-c", "up.toml", "-S", "ctlup", NULL);
	proc_wait_text(&p, "server  | serving\n", WAIT_MS);
	ctl_run(&b, &p, &c, "ctlup", "list", NULL);
	ck_assert_msg(c.status == 0, "ctl list: %d %s", c.status, c.ebuf);
	ck_assert_msg(strstr(c.obuf, "running") != NULL &&
	    strstr(c.obuf, "server: ") != NULL, "%s", c.obuf);
	proc_free(&c);
	/* quit through the socket ends up, as !quit would. */
	ctl_run(&b, &p, &c, "ctlup", "quit", NULL);
	ck_assert_int_eq(c.status, 0);
	proc_free(&c);
	proc_wait(&p, WAIT_MS);
	ck_assert_msg(p.status == 0, "exit %d\n%s", p.status, p.obuf);
	ck_assert_ptr_nonnull(strstr(p.obuf,
	    "server  | stopped: killed by SIGTERM\n"));
	proc_free(&p);
	box_close(&b);
}
END_TEST

/*
 * ctl wait: on a job that exits 3 it exits 3, on two that succeed 0, on
 * an unknown id 2 at once; jobs already ended answer at once (--json: an
 * array of job objects); --timeout gives up with 124.
 */
START_TEST(ctl_wait)
{
	struct box	 b;
	struct proc	 p, c;
	struct jsonread	*j;
	char		*cause = NULL;

	box_open(&b);
	box_write(&b, "up.toml",
	    "[[job]]\nname = \"keeper\"\n"
	    "command = \"while :; do sleep 0.05; done\"\n"
	    "[[job]]\nname = \"three\"\n"
	    "command = \"while [ ! -e go3 ]; do sleep 0.05; done; exit 3\"\n"
	    "[[job]]\nname = \"ok1\"\n"
	    "command = \"while [ ! -e go ]; do sleep 0.05; done\"\n"
	    "[[job]]\nname = \"ok2\"\n"
	    "command = \"while [ ! -e go ]; do sleep 0.05; done\"\n");
	proc_startl(&p, &b, "up", "-c", "up.toml", "-S", "waits", NULL);
	proc_wait_text(&p, "ok2     | started", WAIT_MS);

	/* Started before the job ends: it answers when it does. */
	proc_startl(&c, &b, "ctl", "-S", "waits", "wait", "three", NULL);
	box_write(&b, "go3", "");
	proc_wait(&c, WAIT_MS);
	ck_assert_msg(c.status == 3, "wait three: %d %s %s", c.status, c.obuf,
	    c.ebuf);
	ck_assert_msg(strstr(c.obuf, "] three: failed (exit 3)\n") != NULL,
	    "%s", c.obuf);
	ck_assert_int_eq(count_lines(c.obuf), 1);
	proc_free(&c);

	proc_startl(&c, &b, "ctl", "-S", "waits", "wait", "ok1", "ok2", NULL);
	box_write(&b, "go", "");
	proc_wait(&c, WAIT_MS);
	ck_assert_msg(c.status == 0, "wait ok1 ok2: %d %s %s", c.status,
	    c.obuf, c.ebuf);
	ck_assert_msg(strstr(c.obuf, "] ok1: completed\n") != NULL &&
	    strstr(c.obuf, "] ok2: completed\n") > strstr(c.obuf, "] ok1"),
	    "%s", c.obuf);
	ck_assert_int_eq(count_lines(c.obuf), 2);
	proc_free(&c);

	ctl_run(&b, &p, &c, "waits", "wait", "99", NULL);
	ck_assert_int_eq(c.status, 2);
	ck_assert_str_eq(c.ebuf, "jobdeck ctl: no such job: 99\n");
	ck_assert_str_eq(c.obuf, "");
	proc_free(&c);

	/* Ended already: at once; the first that failed gives the status. */
	ctl_run(&b, &p, &c, "waits", "--json", "wait", "ok1", "three", NULL);
	ck_assert_int_eq(c.status, 3);
	j = jsonread_parse(c.obuf, c.olen, &cause);
	ck_assert_msg(j != NULL, "%s: %s", cause, c.obuf);
	ck_assert_int_eq(jsonread_type(j), JSONREAD_ARRAY);
	ck_assert_uint_eq(jsonread_count(j), 2);
	ck_assert_str_eq(jsonread_string(jsonread_get(jsonread_index(j, 0),
	    "name"), NULL), "ok1");
	ck_assert_str_eq(jsonread_string(jsonread_get(jsonread_index(j, 0),
	    "state"), NULL), "completed");
	ck_assert_str_eq(jsonread_string(jsonread_get(jsonread_index(j, 1),
	    "state"), NULL), "failed");
	ck_assert(jsonread_number(jsonread_get(jsonread_index(j, 1),
	    "exit_code")) == 3);
	jsonread_free(j);
	proc_free(&c);

	ctl_run(&b, &p, &c, "waits", "wait", "--timeout", "0.2", "keeper",
	    NULL);
	ck_assert_int_eq(c.status, 124);
	ck_assert_msg(strstr(c.obuf, "] keeper: running (the wait timed "
	    "out)\n") != NULL, "%s", c.obuf);
	proc_free(&c);

	kill(p.pid, SIGTERM);
	proc_wait(&p, WAIT_MS);
	/* three failed first: that is up's status too. */
	ck_assert_msg(p.status == 3, "exit %d\n%s", p.status, p.obuf);
	proc_free(&p);
	box_close(&b);
}
END_TEST

/* A job's name and the code its end is given (waitstatus.h's policy). */
struct up_code {
	const char	*name;
	int		 code;
};

/*
 * The ends of codes_toml's jobs, once ok to slow have ended by
 * themselves and term, trapped and queued were killed: every row of the
 * exit code policy.
 */
static const struct up_code wait_codes[] = {
	{ "ok", 0 },			/* completed */
	{ "three", 3 },			/* exited with N */
	{ "killed", 128 + SIGKILL },	/* killed by signal N */
	{ "slow", 124 },		/* its own timeout */
	{ "nf", 127 },			/* not found */
	{ "nx", 126 },			/* not executable */
	{ "after", 125 },		/* its dependency failed */
	{ "queued", 125 },		/* canceled before it started */
	{ "term", 128 + SIGTERM },	/* canceled: SIGTERM ended it */
	{ "trapped", 1 },		/* canceled, yet it exited 0 */
};

/* The jobs of wait_codes (first holds queued's group's one place). */
static const char codes_toml[] =
    "[groups.one]\nmax_running = 1\n"
    "[[job]]\nname = \"ok\"\ncommand = \"true\"\n"
    "[[job]]\nname = \"three\"\ncommand = \"exit 3\"\n"
    "[[job]]\nname = \"killed\"\ncommand = \"kill -KILL $$$$\"\n"
    "[[job]]\nname = \"slow\"\ncommand = \"sleep 30\"\ntimeout = 0.3\n"
    "[[job]]\nname = \"nf\"\ncommand = \"no-such-program-jd\"\n"
    "[[job]]\nname = \"nx\"\ncommand = \"./noexec\"\n"
    "[[job]]\nname = \"term\"\ncommand = \"echo up; sleep 30\"\n"
    "[[job]]\nname = \"after\"\ncommand = \"echo never\"\n"
    "depends_on = { term = \"completed_successfully\" }\n"
    "[[job]]\nname = \"first\"\ncommand = \"sleep 30\"\ngroup = \"one\"\n"
    "[[job]]\nname = \"queued\"\ncommand = \"echo never\"\n"
    "group = \"one\"\n"
    "[[job]]\nname = \"trapped\"\ncommand = "
    "\"trap 'exit 0' TERM; echo up; while :; do sleep 0.05; done\"\n";

/*
 * One code for a job's end through every face of the deck: ctl wait and
 * ctl logs --follow exit with it, and the job objects of wait --json and
 * status --json carry it as "code" beside exit_code and signal.
 */
START_TEST(up_wait_codes)
{
	struct box		 b;
	struct proc		 p, c;
	struct jsonread		*j;
	const struct jsonread	*o;
	char			*cause = NULL;
	size_t			 i, k;

	box_open(&b);
	box_write(&b, "up.toml", codes_toml);
	box_write(&b, "noexec", "#!/bin/sh\necho ran\n");
	proc_startl(&p, &b, "up", "-c", "up.toml", "-S", "codes", NULL);
	proc_wait_text(&p, "term    | up\n", WAIT_MS);
	proc_wait_text(&p, "trapped | up\n", WAIT_MS);
	proc_wait_text(&p, "first   | started", WAIT_MS);
	proc_wait_text(&p, "queued  | ", WAIT_MS);
	ctl_run(&b, &p, &c, "codes", "kill", "queued", "term", "trapped",
	    NULL);
	ck_assert_msg(c.status == 0, "kill: %d %s", c.status, c.ebuf);
	proc_free(&c);

	for (i = 0; i < sizeof wait_codes / sizeof wait_codes[0]; i++) {
		for (k = 0; k < 2; k++) {
			/* wait NAME; logs --follow NAME */
			ctl_run(&b, &p, &c, "codes", k == 0 ? "wait" : "logs",
			    k == 0 ? wait_codes[i].name : "--follow",
			    k == 0 ? NULL : wait_codes[i].name, NULL);
			ck_assert_msg(c.status == wait_codes[i].code, "%s %s: "
			    "%d, not %d: %s %s", k == 0 ? "wait" : "logs -f",
			    wait_codes[i].name, c.status, wait_codes[i].code,
			    c.obuf, c.ebuf);
			proc_free(&c);
		}
		ctl_run(&b, &p, &c, "codes", "--json", "status",
		    wait_codes[i].name, NULL);
		ck_assert_msg(c.status == 0, "status: %d %s", c.status,
		    c.ebuf);
		j = jsonread_parse(c.obuf, c.olen, &cause);
		ck_assert_msg(j != NULL, "%s: %s", cause, c.obuf);
		ck_assert_msg(jsonread_number(jsonread_get(j, "code")) ==
		    wait_codes[i].code, "status %s: %s", wait_codes[i].name,
		    c.obuf);
		jsonread_free(j);
		proc_free(&c);
	}

	/* All at once: the first in the order given... */
	ctl_run(&b, &p, &c, "codes", "--json", "wait", "ok", "after", "term",
	    NULL);
	j = jsonread_parse(c.obuf, c.olen, &cause);
	ck_assert_msg(j != NULL, "%s: %s", cause, c.obuf);
	ck_assert_uint_eq(jsonread_count(j), 3);
	for (i = 0; i < 3; i++) {
		o = jsonread_index(j, i);
		ck_assert(jsonread_number(jsonread_get(o, "code")) ==
		    (i == 0 ? 0 : i == 1 ? 125 : 128 + SIGTERM));
	}
	/* ... that did not complete, in the order they ended. */
	ck_assert_msg(c.status == 125 || c.status == 128 + SIGTERM,
	    "wait: %d", c.status);
	jsonread_free(j);
	proc_free(&c);

	/* A wait that gives up on a job still running: 124. */
	ctl_run(&b, &p, &c, "codes", "wait", "--timeout", "0.1", "first",
	    NULL);
	ck_assert_msg(c.status == 124, "wait first: %d %s", c.status,
	    c.obuf);
	ck_assert_ptr_nonnull(strstr(c.obuf, "] first: running (the wait "
	    "timed out)\n"));
	proc_free(&c);

	ctl_run(&b, &p, &c, "codes", "quit", NULL);
	proc_free(&c);
	proc_wait(&p, WAIT_MS);
	ck_assert_msg(p.status != 0 && p.status != 128 + SIGTERM, "up: %d\n%s",
	    p.status, p.obuf);
	proc_free(&p);
	box_close(&b);
}
END_TEST

/*
 * jobdeck up exits with the code of the first job that failed or timed
 * out (waitstatus.h's policy): 124 for its own timeout, 125 for a job
 * whose dependency failed, 126 and 127 for a program not executable and
 * not found.
 */
START_TEST(up_codes)
{
	static const struct {
		const char	*toml;
		int		 code;
		const char	*line;
	} runs[] = {
		{ "[[job]]\nname = \"slow\"\ncommand = \"sleep 30\"\n"
		  "timeout = 0.3\n", 124,
		  "slow    | timed out: killed by SIGTERM\n" },
		{ "[[job]]\nname = \"nf\"\ncommand = \"no-such-program-jd\"\n",
		  127, "nf      | exited with code 127\n" },
		{ "[[job]]\nname = \"nx\"\ncommand = \"./noexec\"\n", 126,
		  "nx      | exited with code 126\n" },
		{ "[[job]]\nname = \"held\"\ncommand = \"echo up; sleep 30\"\n"
		  "[[job]]\nname = \"after\"\ncommand = \"echo never\"\n"
		  "depends_on = { held = \"completed_successfully\" }\n", 125,
		  "after   | blocked: held " },
	};
	struct box	b;
	struct proc	p, c;
	size_t		i;

	box_open(&b);
	box_write(&b, "noexec", "#!/bin/sh\necho ran\n");
	for (i = 0; i < sizeof runs / sizeof runs[0]; i++) {
		box_write(&b, "up.toml", runs[i].toml);
		proc_startl(&p, &b, "up", "-c", "up.toml", "-S", "upcodes",
		    NULL);
		if (runs[i].code == 125) {
			/* Canceled (no failure): its dependant is blocked. */
			proc_wait_text(&p, "held    | up\n", WAIT_MS);
			ctl_run(&b, &p, &c, "upcodes", "kill", "held", NULL);
			ck_assert_int_eq(c.status, 0);
			proc_free(&c);
		}
		proc_wait(&p, WAIT_MS);
		ck_assert_msg(p.status == runs[i].code, "up: %d, not %d\n%s",
		    p.status, runs[i].code, p.obuf);
		ck_assert_msg(strstr(p.obuf, runs[i].line) != NULL, "%s",
		    p.obuf);
		proc_free(&p);
	}
	box_close(&b);
}
END_TEST

/*
 * A stdout nobody reads stops neither the jobs nor the control socket:
 * a job floods (more than up keeps) and goes on to its end, ctl answers,
 * and up exits soon after its signal, having given the reader its time.
 */
START_TEST(up_unread_stdout)
{
	struct box	b;
	struct proc	p, c;
	int64_t		t0;

	box_open(&b);
	box_write(&b, "up.toml",
	    "[[job]]\nname = \"flood\"\n"
	    "command = '''yes 'a line of flood, a line of flood, a line' | "
	    "head -n 300000; echo done > flooded'''\n"
	    "[[job]]\nname = \"keeper\"\n"
	    "command = \"while :; do sleep 0.05; done\"\n");
	proc_startl(&p, &b, "up", "-c", "up.toml", "-S", "stall", NULL);
	p.noread = 1;
	wait_file(&b, &p, "flooded", WAIT_MS);
	ctl_run(&b, &p, &c, "stall", "list", NULL);
	ck_assert_msg(c.status == 0, "ctl list: %d %s", c.status, c.ebuf);
	proc_free(&c);
	ctl_run(&b, &p, &c, "stall", "wait", "flood", NULL);
	ck_assert_msg(c.status == 0, "ctl wait: %d %s %s", c.status, c.obuf,
	    c.ebuf);
	proc_free(&c);
	t0 = term_now_ms();
	kill(p.pid, SIGTERM);
	proc_wait(&p, WAIT_MS);
	ck_assert_msg(term_now_ms() - t0 < 15000, "took %lld ms",
	    (long long)(term_now_ms() - t0));
	ck_assert_int_eq(p.status, 128 + SIGTERM);
	proc_free(&p);
	box_close(&b);
}
END_TEST

static const struct e2e_case up_cases[] = {
	{ "up_all_succeed", &up_all_succeed, 60 },
	{ "up_one_fails", &up_one_fails, 60 },
	{ "up_lines_exact", &up_lines_exact, 60 },
	{ "up_partial_line", &up_partial_line, 60 },
	{ "up_restarts", &up_restarts, 60 },
	{ "up_procfile_env_port", &up_procfile_env_port, 60 },
	{ "up_dependency_fails", &up_dependency_fails, 60 },
	{ "up_sigint_order", &up_sigint_order, 60 },
	{ "up_sigint_twice", &up_sigint_twice, 60 },
	{ "up_nothing_to_run", &up_nothing_to_run, 60 },
	{ "up_ctl_list", &up_ctl_list, 60 },
	{ "up_stay", &up_stay, 90 },
	{ "ctl_wait", &ctl_wait, 90 },
	{ "up_wait_codes", &up_wait_codes, 120 },
	{ "up_codes", &up_codes, 90 },
	{ "up_unread_stdout", &up_unread_stdout, 90 },
};

/* The suite: every case in a test case of its own. */
static Suite *
up_suite(void)
{
	Suite	*s = suite_create("up");

	e2e_add_cases(s, up_cases, sizeof up_cases / sizeof up_cases[0]);
	return s;
}

/* Run the suite. */
int
main(void)
{
	return e2e_main(up_suite());
}

/*
 * check_ctl.c: end-to-end tests of the control socket (issue "Scripting
 * jobdeck").  Each test runs a real deck on a 120x40 pty through the term
 * harness, named with -S after the test, in the harness's private
 * XDG_RUNTIME_DIR (<tmpdir>/run), and drives it through the real
 * `jobdeck ctl` binary, or through raw connections to its socket where the
 * test needs to misbehave (bad requests, half-sent requests, clients that
 * never read, another uid).  JSON results are parsed (tests/jsonread.h)
 * and checked by value.
 *
 * The binary is $JOBDECK_BIN, else ./jobdeck.  While a test waits for a
 * client it keeps reading the deck's terminal, so the deck never blocks
 * on its own screen.
 */
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <check.h>

#include "need.h"
#include "skip.h"
#include "e2e/e2e.h"
#include "jsonread.h"

#define WAIT_MS		5000	/* wait for text or a client */
#define CTL_WAIT_MS	10000	/* a ctl command's time limit */
#define NOBODY		65534

static const struct term_rect panel = { 0, 0, 39, 40 };
static const struct term_rect bottom = { 39, 0, 1, 120 };
static const struct term_rect pane_title = { 0, 40, 1, 80 };

/* A deck under test: its terminal, name and socket. */
struct deck {
	struct term	*t;
	char		 name[64];
	char		 run[PATH_MAX];	/* its XDG_RUNTIME_DIR */
	char		 dir[PATH_MAX];	/* the socket's directory */
	char		 sock[PATH_MAX];
	char		 ro[PATH_MAX];	/* the read-only socket */
};

/* What a `jobdeck ctl` run gave. */
struct ctlres {
	int	 status;	/* exit status, or -1 */
	char	*out;
	size_t	 outlen;
	char	*err;
};

/* A `jobdeck ctl` left running (events, logs --follow). */
struct bg {
	pid_t	 pid;
	int	 fd;		/* its stdout */
	char	*buf;
	size_t	 len;
	int	 eof;
};

/* Run jobdeck ctl and expect an exit status. */
#define CTL_EXPECT(d, r, want, ...) do {				\
	ctl_run((d), (r), __VA_ARGS__, (const char *)NULL);		\
	ck_assert_msg((r)->status == (want), "ctl %s: exit %d, not %d"	\
	    "\nstdout: %s\nstderr: %s", ctl_args_text(__VA_ARGS__,	\
	    (const char *)NULL), (r)->status, (want), (r)->out,	\
	    (r)->err);							\
} while (0)

/* Return the binary under test, as an absolute path. */
static const char *
bin_path(void)
{
	static char	 path[PATH_MAX];
	const char	*bin;

	if (path[0] != '\0')
		return path;
	if ((bin = getenv("JOBDECK_BIN")) == NULL || *bin == '\0')
		bin = "./jobdeck";
	if (realpath(bin, path) == NULL)
		snprintf(path, sizeof path, "%s", bin);
	return path;
}

/* Join a NULL-ended argument list for a failure message. */
static const char *
ctl_args_text(const char *first, ...)
{
	static char	 buf[1024];
	const char	*a;
	va_list		 ap;
	size_t		 n = 0;

	buf[0] = '\0';
	va_start(ap, first);
	for (a = first; a != NULL && n < sizeof buf - 2; a = va_arg(ap,
	    const char *))
		n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s",
		    n > 0 ? " " : "", a);
	va_end(ap);
	return buf;
}

/* Join a NULL-ended argument vector, each word after a blank. */
static const char *
argv_text(const char *const *argv)
{
	static char	buf[1024];
	size_t		n = 0;

	buf[0] = '\0';
	for (; *argv != NULL && n < sizeof buf - 2; argv++)
		n += (size_t)snprintf(buf + n, sizeof buf - n, " %s", *argv);
	return buf;
}

/*
 * Start a deck named name with extra options (NULL-ended, may be NULL)
 * and commands, and env added to its environment; wait for its panel
 * unless nowait.
 */
static void
deck_open(struct deck *d, const char *name, const char *const *opts,
    const char *const *cmds, const char *const *env, int nowait)
{
	const char	*argv[32];
	size_t		 n = 0, i;

	memset(d, 0, sizeof *d);
	snprintf(d->name, sizeof d->name, "%s", name);
	argv[n++] = bin_path();
	if (opts == NULL) {
		argv[n++] = "-c";
		argv[n++] = "/dev/null";
	}
	for (i = 0; opts != NULL && opts[i] != NULL && n < 20; i++)
		argv[n++] = opts[i];
	argv[n++] = "-S";
	argv[n++] = name;
	for (i = 0; cmds != NULL && cmds[i] != NULL && n < 31; i++)
		argv[n++] = cmds[i];
	argv[n] = NULL;
	d->t = term_start(argv, env);
	ck_assert_msg(d->t != NULL, "cannot start %s: %s", argv[0],
	    strerror(errno));
	ck_assert(snprintf(d->run, sizeof d->run, "%s/run",
	    term_tmpdir(d->t)) < (int)sizeof d->run);
	ck_assert(snprintf(d->dir, sizeof d->dir, "%s/jobdeck", d->run) <
	    (int)sizeof d->dir);
	ck_assert(snprintf(d->sock, sizeof d->sock, "%s/%s.sock", d->dir,
	    name) < (int)sizeof d->sock);
	ck_assert(snprintf(d->ro, sizeof d->ro, "%s/%s.ro", d->dir, name) <
	    (int)sizeof d->ro);
	if (!nowait)
		EXPECT_IN(d->t, &panel, "Processes (", WAIT_MS);
}

/* Point b (started with a's XDG_RUNTIME_DIR) at a's socket directory. */
static void
deck_share_run(struct deck *b, const struct deck *a)
{
	memcpy(b->run, a->run, sizeof b->run);
	memcpy(b->dir, a->dir, sizeof b->dir);
	ck_assert(snprintf(b->sock, sizeof b->sock, "%s/%s.sock", b->dir,
	    b->name) < (int)sizeof b->sock);
	ck_assert(snprintf(b->ro, sizeof b->ro, "%s/%s.ro", b->dir, b->name) <
	    (int)sizeof b->ro);
}

/* Start a deck with commands and wait for its panel. */
static void
deck_start(struct deck *d, const char *name, const char *const *cmds)
{
	deck_open(d, name, NULL, cmds, NULL, 0);
}

/* Free a ctl result's strings. */
static void
ctlres_free(struct ctlres *r)
{
	free(r->out);
	free(r->err);
	memset(r, 0, sizeof *r);
}

/*
 * Fork the binary with argv (NULL-ended, argv[0] the binary) with the
 * deck's XDG_RUNTIME_DIR, its stdout on *out_fd and stderr on *err_fd
 * (either may be NULL: /dev/null).
 */
static pid_t
bin_spawn(const struct deck *d, const char *const *argv, int *out_fd,
    int *err_fd)
{
	int	o[2], e[2], null;
	pid_t	pid;

	ck_assert_int_eq(pipe2(o, O_CLOEXEC), 0);
	ck_assert_int_eq(pipe2(e, O_CLOEXEC), 0);
	pid = fork();
	ck_assert_int_ne(pid, -1);
	if (pid == 0) {
		null = open("/dev/null", O_RDWR);
		dup2(null, 0);
		dup2(o[1], 1);
		dup2(e[1], 2);
		setenv("XDG_RUNTIME_DIR", d->run, 1);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(o[1]);
	close(e[1]);
	if (out_fd != NULL)
		*out_fd = o[0];
	else
		close(o[0]);
	if (err_fd != NULL)
		*err_fd = e[0];
	else
		close(e[0]);
	return pid;
}

#define CTL_ARGV_MAX	64

/*
 * Fill argv (CTL_ARGV_MAX) with `jobdeck ctl -S NAME ARGS...`: the deck's
 * name, or another (name != NULL).
 */
static void
ctl_argv(const struct deck *d, const char *name, const char *const *args,
    const char **argv)
{
	size_t	n = 0, i;

	argv[n++] = bin_path();
	argv[n++] = "ctl";
	argv[n++] = "-S";
	argv[n++] = name != NULL ? name : d->name;
	for (i = 0; args[i] != NULL && n < CTL_ARGV_MAX - 1; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
}

/*
 * Fork `jobdeck ctl -S NAME ARGS...` with the deck's XDG_RUNTIME_DIR
 * (another deck name: name != NULL), its stdout on *out_fd and stderr on
 * *err_fd (either may be NULL: /dev/null).
 */
static pid_t
ctl_spawn(struct deck *d, const char *name, const char *const *args,
    int *out_fd, int *err_fd)
{
	const char	*argv[CTL_ARGV_MAX];

	ctl_argv(d, name, args, argv);
	return bin_spawn(d, argv, out_fd, err_fd);
}

/*
 * Run the binary with argv (NULL-ended, argv[0] the binary) with the
 * deck's XDG_RUNTIME_DIR to its end, reading the deck's terminal (if it
 * has one) meanwhile; fail if it does not finish within ms.
 */
static void
bin_runv_ms(struct deck *d, struct ctlres *r, const char *const *argv,
    int ms)
{
	struct pollfd	pfd[2];
	int64_t		end = term_now_ms() + ms;
	size_t		errlen = 0;
	pid_t		pid;
	int		status, open_fds = 2, i;

	memset(r, 0, sizeof *r);
	r->out = calloc(1, 1);
	r->err = calloc(1, 1);
	pid = bin_spawn(d, argv, &pfd[0].fd, &pfd[1].fd);
	while (open_fds > 0) {
		ck_assert_msg(term_now_ms() < end, "jobdeck%s did not finish "
		    "in %d ms", argv_text(argv + 1), ms);
		pfd[0].events = pfd[1].events = POLLIN;
		if (poll(pfd, 2, 10) > 0) {
			for (i = 0; i < 2; i++) {
				if (pfd[i].fd == -1 || pfd[i].revents == 0)
					continue;
				if (!e2e_drain(pfd[i].fd, i == 0 ? &r->out :
				    &r->err, i == 0 ? &r->outlen : &errlen)) {
					close(pfd[i].fd);
					pfd[i].fd = -1;
					open_fds--;
				}
			}
		}
		if (d->t != NULL)
			term_pump(d->t, 1);
	}
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		continue;
	r->status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/*
 * Run jobdeck ctl with a NULL-ended argument vector on deck name; fail if
 * it does not finish within ms.
 */
static void
ctl_runv_ms(struct deck *d, const char *name, struct ctlres *r,
    const char *const *args, int ms)
{
	const char	*argv[CTL_ARGV_MAX];

	ctl_argv(d, name, args, argv);
	bin_runv_ms(d, r, argv, ms);
}

/* Run jobdeck ctl with a NULL-ended argument vector on deck name. */
static void
ctl_runv(struct deck *d, const char *name, struct ctlres *r,
    const char *const *args)
{
	ctl_runv_ms(d, name, r, args, CTL_WAIT_MS);
}

/* Run jobdeck ctl ARGS... (NULL-ended) on the deck. */
static void
ctl_run(struct deck *d, struct ctlres *r, const char *first, ...)
{
	const char	*args[64];
	va_list		 ap;
	size_t		 n = 0;

	va_start(ap, first);
	for (args[n] = first; args[n] != NULL && n < 63;
	    args[++n] = va_arg(ap, const char *))
		;
	va_end(ap);
	args[n] = NULL;
	ctl_runv(d, NULL, r, args);
}

/* Parse JSON text, failing the test with the reader's message. */
static struct jsonread *
json_parse(const char *text)
{
	struct jsonread	*j;
	char		*cause = NULL;

	j = jsonread_parse(text, strlen(text), &cause);
	ck_assert_msg(j != NULL, "bad JSON (%s): %s", cause, text);
	return j;
}

/* Return a number member, failing if it is not a number. */
static double
json_num(const struct jsonread *j, const char *key)
{
	const struct jsonread	*v = jsonread_get(j, key);

	ck_assert_msg(v != NULL && jsonread_type(v) == JSONREAD_NUMBER,
	    "\"%s\" is not a number", key);
	return jsonread_number(v);
}

/* Return a string member, failing if it is not a string. */
static const char *
json_str(const struct jsonread *j, const char *key)
{
	const struct jsonread	*v = jsonread_get(j, key);
	const char		*s;

	s = jsonread_string(v, NULL);
	ck_assert_msg(s != NULL, "\"%s\" is not a string", key);
	return s;
}

/* Return whether a member is null. */
static int
json_is_null(const struct jsonread *j, const char *key)
{
	const struct jsonread	*v = jsonread_get(j, key);

	return v != NULL && jsonread_type(v) == JSONREAD_NULL;
}

/* Wait until `ctl status --json ID` says state (at most ms). */
static struct jsonread *
wait_state(struct deck *d, const char *id, const char *state, int ms)
{
	struct ctlres	 r;
	struct jsonread	*j;
	int64_t		 end = term_now_ms() + ms;

	for (;;) {
		CTL_EXPECT(d, &r, 0, "status", "--json", id);
		j = json_parse(r.out);
		if (strcmp(json_str(j, "state"), state) == 0) {
			ctlres_free(&r);
			return j;
		}
		ck_assert_msg(term_now_ms() < end, "job %s is %s, not %s, "
		    "after %d ms: %s", id, json_str(j, "state"), state, ms,
		    r.out);
		jsonread_free(j);
		ctlres_free(&r);
		term_pump(d->t, 50);
	}
}

/* Wait until `ctl logs ID` holds text (at most ms). */
static void
wait_logs(struct deck *d, const char *id, const char *text, int ms)
{
	struct ctlres	r;
	int64_t		end = term_now_ms() + ms;

	for (;;) {
		CTL_EXPECT(d, &r, 0, "logs", id);
		if (strstr(r.out, text) != NULL) {
			ctlres_free(&r);
			return;
		}
		ck_assert_msg(term_now_ms() < end, "no \"%s\" in the logs of "
		    "%s after %d ms: %s", text, id, ms, r.out);
		ctlres_free(&r);
		term_pump(d->t, 50);
	}
}

/* Start a ctl that keeps running; its stdout is read by bg_wait_text. */
static void
bg_start(struct deck *d, struct bg *b, const char *const *args)
{
	memset(b, 0, sizeof *b);
	b->pid = ctl_spawn(d, NULL, args, &b->fd, NULL);
	fcntl(b->fd, F_SETFL, O_NONBLOCK);
	b->buf = calloc(1, 1);
}

/* Read a background ctl's output for up to ms (less at end of file). */
static void
bg_pump(struct deck *d, struct bg *b, int ms)
{
	struct pollfd	pfd;

	pfd.fd = b->fd;
	pfd.events = POLLIN;
	if (!b->eof && poll(&pfd, 1, ms < 10 ? ms : 10) > 0 &&
	    !e2e_drain(b->fd, &b->buf, &b->len))
		b->eof = 1;
	term_pump(d->t, 1);
}

/* Wait for text in a background ctl's output. */
static int
bg_wait_text(struct deck *d, struct bg *b, const char *text, int ms)
{
	int64_t	end = term_now_ms() + ms;

	while (strstr(b->buf, text) == NULL) {
		if (term_now_ms() >= end || b->eof)
			return strstr(b->buf, text) != NULL;
		bg_pump(d, b, 10);
	}
	return 1;
}

/* Wait for a background ctl to exit; its exit status or -1. */
static int
bg_wait_exit(struct deck *d, struct bg *b, int ms)
{
	int64_t	end = term_now_ms() + ms;
	int	status;

	while (term_now_ms() < end) {
		bg_pump(d, b, 10);
		if (waitpid(b->pid, &status, WNOHANG) == b->pid) {
			b->pid = -1;
			while (!b->eof)
				bg_pump(d, b, 10);
			return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
		}
	}
	return -1;
}

/* Stop a background ctl and free it. */
static void
bg_stop(struct bg *b)
{
	if (b->pid > 0) {
		kill(b->pid, SIGKILL);
		waitpid(b->pid, NULL, 0);
	}
	close(b->fd);
	free(b->buf);
	memset(b, 0, sizeof *b);
}

/* Connect to the deck's socket directly; the fd, blocking. */
static int
sock_connect(const char *path)
{
	struct sockaddr_un	sun;
	int			fd;

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ck_assert_int_ne(fd, -1);
	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof sun.sun_path, "%s", path);
	ck_assert_msg(connect(fd, (struct sockaddr *)&sun, sizeof sun) == 0,
	    "connect %s: %s", path, strerror(errno));
	return fd;
}

/* Write all of buf to a socket; 0, or -1 if the deck closed it. */
static int
sock_write(int fd, const char *buf, size_t len)
{
	ssize_t	n;

	while (len > 0) {
		n = send(fd, buf, len, MSG_NOSIGNAL);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Read a socket until the deck closes it (at most ms), keeping the deck's
 * screen read; the reply (NUL-terminated, for the caller to free), or
 * NULL if it did not close in time.
 */
static char *
sock_reply(struct deck *d, int fd, int ms, size_t *lenp)
{
	struct pollfd	 pfd;
	int64_t		 end = term_now_ms() + ms;
	char		*buf = calloc(1, 1);
	size_t		 len = 0;

	pfd.fd = fd;
	pfd.events = POLLIN;
	for (;;) {
		if (term_now_ms() >= end) {
			free(buf);
			return NULL;
		}
		if (poll(&pfd, 1, 10) > 0 && !e2e_drain(fd, &buf, &len))
			break;
		term_pump(d->t, 1);
	}
	if (lenp != NULL)
		*lenp = len;
	return buf;
}

/* Send a raw request to the socket at path and return the whole reply. */
static char *
sock_request_at(struct deck *d, const char *path, const char *req,
    size_t len)
{
	char	*reply;
	int	 fd;

	fd = sock_connect(path);
	sock_write(fd, req, len);
	reply = sock_reply(d, fd, WAIT_MS, NULL);
	close(fd);
	ck_assert_msg(reply != NULL, "no reply to a raw request");
	return reply;
}

/* Send a raw request to the deck's socket and return the whole reply. */
static char *
sock_request(struct deck *d, const char *req, size_t len)
{
	return sock_request_at(d, d->sock, req, len);
}

/* Assert that `ctl ps` still answers. */
static void
assert_deck_works(struct deck *d)
{
	struct ctlres	r;

	CTL_EXPECT(d, &r, 0, "ps");
	ck_assert_msg(strncmp(r.out, "ID ", 3) == 0, "ps gave: %s", r.out);
	ctlres_free(&r);
}

/* ps and list, as text and JSON; filters and their errors. */
START_TEST(test_ps_list)
{
	static const char *const cmds[] = { "echo one", "sleep 100", NULL };
	struct deck			 d;
	struct ctlres			 r;
	struct jsonread			*j;
	const struct jsonread		*jobs, *job;

	deck_start(&d, "ps-list", cmds);
	j = wait_state(&d, "1", "completed", WAIT_MS);
	jsonread_free(j);

	CTL_EXPECT(&d, &r, 0, "ps");
	ck_assert_msg(strncmp(r.out, "ID  PID", 7) == 0 &&
	    strstr(r.out, "STATE") != NULL &&
	    strstr(r.out, "completed") != NULL &&
	    strstr(r.out, "sleep 100") != NULL, "ps: %s", r.out);
	ck_assert_str_eq(r.err, "");
	ctlres_free(&r);

	CTL_EXPECT(&d, &r, 0, "--json", "ps");
	j = json_parse(r.out);
	jobs = jsonread_get(j, "jobs");
	ck_assert_int_eq(jsonread_count(jobs), 2);
	job = jsonread_index(jobs, 0);
	ck_assert_int_eq((int)json_num(job, "id"), 1);
	ck_assert_str_eq(json_str(job, "command"), "echo one");
	ck_assert_str_eq(json_str(job, "state"), "completed");
	ck_assert_int_eq((int)json_num(job, "exit_code"), 0);
	ck_assert(json_is_null(job, "signal"));
	job = jsonread_index(jobs, 1);
	ck_assert_str_eq(json_str(job, "state"), "running");
	ck_assert(json_num(job, "pid") > 1);
	ck_assert(json_is_null(job, "exit_code"));
	ck_assert_str_eq(json_str(job, "cwd"), term_tmpdir(d.t));
	jsonread_free(j);
	ctlres_free(&r);

	/* --json may come after the command, too. */
	CTL_EXPECT(&d, &r, 0, "list", "--status", "running", "--json");
	j = json_parse(r.out);
	jobs = jsonread_get(j, "jobs");
	ck_assert_int_eq(jsonread_count(jobs), 1);
	ck_assert_int_eq((int)json_num(jsonread_index(jobs, 0), "id"), 2);
	jsonread_free(j);
	ctlres_free(&r);

	CTL_EXPECT(&d, &r, 0, "list", "--status=completed,failed", "--json");
	j = json_parse(r.out);
	jobs = jsonread_get(j, "jobs");
	ck_assert_int_eq(jsonread_count(jobs), 1);
	ck_assert_int_eq((int)json_num(jsonread_index(jobs, 0), "id"), 1);
	jsonread_free(j);
	ctlres_free(&r);

	CTL_EXPECT(&d, &r, 0, "list", "--limit", "1", "--json");
	j = json_parse(r.out);
	jobs = jsonread_get(j, "jobs");
	ck_assert_int_eq(jsonread_count(jobs), 1);
	ck_assert_int_eq((int)json_num(jsonread_index(jobs, 0), "id"), 2);
	jsonread_free(j);
	ctlres_free(&r);

	CTL_EXPECT(&d, &r, 0, "list", "--status", "timed-out");
	ck_assert_msg(strchr(r.out, '\n') == strrchr(r.out, '\n'),
	    "more than the header: %s", r.out);
	ctlres_free(&r);

	CTL_EXPECT(&d, &r, 2, "list", "--status", "bogus");
	ck_assert_msg(strstr(r.err, "jobdeck ctl: list: unknown status: "
	    "bogus") == r.err, "stderr: %s", r.err);
	ck_assert_str_eq(r.out, "");
	ctlres_free(&r);
	CTL_EXPECT(&d, &r, 2, "list", "--limit", "0");
	ctlres_free(&r);
	CTL_EXPECT(&d, &r, 2, "ps", "extra");
	ck_assert_str_eq(r.err, "jobdeck ctl: usage: !ps\n");
	ctlres_free(&r);
	term_close(d.t);
}
END_TEST

/* status: every field; --incremental twice gives only what is new. */
START_TEST(test_status)
{
	static const char *const cmds[] = {
		"echo first; while read l; do echo \"got $l\"; done", NULL
	};
	struct deck		 d;
	struct ctlres		 r;
	struct jsonread		*j;
	const char		*s;

	deck_start(&d, "status", cmds);
	/* Not the screen: "first" is in the command shown in the panel. */
	wait_logs(&d, "1", "first", WAIT_MS);

	CTL_EXPECT(&d, &r, 0, "status", "1");
	ck_assert_msg(strstr(r.out, "id:       1\n") == r.out &&
	    strstr(r.out, "state:    running\n") != NULL &&
	    strstr(r.out, "exit:     -\n") != NULL &&
	    strstr(r.out, "output:\nfirst\n") != NULL, "status: %s", r.out);
	ctlres_free(&r);

	CTL_EXPECT(&d, &r, 0, "status", "--json", "1");
	j = json_parse(r.out);
	ck_assert_int_eq((int)json_num(j, "id"), 1);
	ck_assert(json_is_null(j, "name"));
	ck_assert_str_eq(json_str(j, "state"), "running");
	ck_assert_msg(strstr(json_str(j, "command"), "got $l") != NULL,
	    "command: %s", json_str(j, "command"));
	ck_assert_str_eq(json_str(j, "cwd"), term_tmpdir(d.t));
	ck_assert(json_num(j, "pid") > 1);
	s = json_str(j, "started_at");
	/* 2026-11-22T09:05:03.042Z */
	ck_assert_msg(strlen(s) == 24 && s[4] == '-' && s[10] == 'T' &&
	    s[19] == '.' && s[23] == 'Z', "started_at: %s", s);
	ck_assert(json_num(j, "duration_ms") >= 0);
	ck_assert(json_is_null(j, "exit_code"));
	ck_assert(json_is_null(j, "signal"));
	ck_assert_str_eq(json_str(j, "output"), "first\n");
	jsonread_free(j);
	ctlres_free(&r);

	/* The first incremental read has it all, the second nothing. */
	CTL_EXPECT(&d, &r, 0, "status", "--incremental", "--json", "1");
	j = json_parse(r.out);
	ck_assert_str_eq(json_str(j, "output"), "first\n");
	jsonread_free(j);
	ctlres_free(&r);
	CTL_EXPECT(&d, &r, 0, "status", "--incremental", "--json", "1");
	j = json_parse(r.out);
	ck_assert_str_eq(json_str(j, "output"), "");
	jsonread_free(j);
	ctlres_free(&r);

	/* New lines: only they come, once (the pty echoes the input). */
	CTL_EXPECT(&d, &r, 0, "send", "1", "two\\n");
	ctlres_free(&r);
	EXPECT_IN(d.t, NULL, "got two", WAIT_MS);
	CTL_EXPECT(&d, &r, 0, "status", "--incremental", "--json", "1");
	j = json_parse(r.out);
	ck_assert_str_eq(json_str(j, "output"), "two\ngot two\n");
	jsonread_free(j);
	ctlres_free(&r);
	CTL_EXPECT(&d, &r, 0, "status", "--incremental", "1");
	ck_assert_msg(strlen(r.out) > 14 && strcmp(r.out + strlen(r.out) - 14,
	    "output (new):\n") == 0, "status: %s", r.out);
	ctlres_free(&r);

	/* The whole output is still there without --incremental. */
	CTL_EXPECT(&d, &r, 0, "status", "--json", "1");
	j = json_parse(r.out);
	ck_assert_str_eq(json_str(j, "output"), "first\ntwo\ngot two\n");
	jsonread_free(j);
	ctlres_free(&r);

	/* Ended by a signal: the state, the signal, no exit code. */
	CTL_EXPECT(&d, &r, 0, "kill", "1");
	ctlres_free(&r);
	j = wait_state(&d, "1", "canceled", WAIT_MS);
	ck_assert_str_eq(json_str(j, "signal"), "SIGTERM");
	ck_assert(json_is_null(j, "exit_code"));
	jsonread_free(j);
	CTL_EXPECT(&d, &r, 0, "status", "1");
	ck_assert_msg(strstr(r.out, "exit:     SIGTERM\n") != NULL,
	    "status: %s", r.out);
	ctlres_free(&r);

	CTL_EXPECT(&d, &r, 1, "status", "9");
	ck_assert_str_eq(r.err, "jobdeck ctl: no such job: 9\n");
	ctlres_free(&r);
	CTL_EXPECT(&d, &r, 2, "status");
	ctlres_free(&r);
	term_close(d.t);
}
END_TEST

/* logs, logs --json and logs --follow until the job ends. */
START_TEST(test_logs)
{
	static const char *const cmds[] = {
		"echo one; read go; for i in 2 3 4; do echo line$i; "
		    "sleep 0.2; done; printf 'no newline'", NULL
	};
	static const char *const follow[] = { "logs", "--follow", "1", NULL };
	static const char *const follow_json[] = {
		"--json", "logs", "--follow", "1", NULL
	};
	struct deck		 d;
	struct ctlres		 r;
	struct bg		 b;
	struct jsonread		*j;
	const struct jsonread	*lines;

	deck_start(&d, "logs", cmds);
	EXPECT_IN(d.t, NULL, "one", WAIT_MS);
	bg_start(&d, &b, follow);
	ck_assert_msg(bg_wait_text(&d, &b, "one\n", WAIT_MS),
	    "follow: %s", b.buf);
	CTL_EXPECT(&d, &r, 0, "send", "1", "\\n");
	ctlres_free(&r);
	ck_assert_int_eq(bg_wait_exit(&d, &b, WAIT_MS), 0);
	/* The echoed empty line of the input, then every line, once. */
	ck_assert_str_eq(b.buf, "one\n\nline2\nline3\nline4\nno newline\n");
	bg_stop(&b);

	CTL_EXPECT(&d, &r, 0, "logs", "1");
	ck_assert_str_eq(r.out, "one\n\nline2\nline3\nline4\nno newline\n");
	ctlres_free(&r);
	CTL_EXPECT(&d, &r, 0, "logs", "--json", "1");
	j = json_parse(r.out);
	ck_assert_int_eq((int)json_num(j, "id"), 1);
	lines = jsonread_get(j, "lines");
	ck_assert_int_eq(jsonread_count(lines), 6);
	ck_assert_str_eq(jsonread_string(jsonread_index(lines, 2), NULL),
	    "line2");
	jsonread_free(j);
	ctlres_free(&r);

	/* A job that has ended: all of it at once, and the end. */
	bg_start(&d, &b, follow_json);
	ck_assert_int_eq(bg_wait_exit(&d, &b, WAIT_MS), 0);
	ck_assert_msg(strstr(b.buf, "{\"event\":\"output\",\"id\":1,"
	    "\"text\":\"line4\",\"line\":5,\"stream\":\"stdout\"}\n") !=
	    NULL && strstr(b.buf,
	    "\"event\":\"exited\"") != NULL, "follow --json: %s", b.buf);
	bg_stop(&b);

	CTL_EXPECT(&d, &r, 1, "logs", "--follow", "7");
	ck_assert_str_eq(r.err, "jobdeck ctl: no such job: 7\n");
	ctlres_free(&r);
	term_close(d.t);
}
END_TEST

/* Return text without its lines that end in " | r" (the jobs' ready). */
static const char *
merged_lines(const char *text)
{
	static char	 buf[4096];
	const char	*p, *nl;
	size_t		 n = 0, len;

	buf[0] = '\0';
	for (p = text; *p != '\0'; p = nl + 1) {
		if ((nl = strchr(p, '\n')) == NULL)
			nl = p + strlen(p) - 1;
		len = (size_t)(nl - p) + 1;
		if (len >= 5 && strncmp(nl - 4, " | r", 4) == 0)
			continue;
		if (n + len < sizeof buf) {
			memcpy(buf + n, p, len);
			n += len;
			buf[n] = '\0';
		}
	}
	return buf;
}

/*
 * Job id prints its next line (it waits for a line of input for each):
 * sent, and waited for in its log; then the clock moves on a little, so
 * the next line has a later time.
 */
static void
merged_say(struct deck *d, const char *id, const char *text)
{
	struct ctlres	r;
	char		want[32];
	int64_t		t;

	CTL_EXPECT(d, &r, 0, "send", id, "\\n");
	ctlres_free(&r);
	snprintf(want, sizeof want, "\n%s\n", text);
	wait_logs(d, id, want, WAIT_MS);
	t = term_now_ms();
	while (term_now_ms() < t + 3)
		term_pump(d->t, 1);
}

/*
 * !logs 1 2 3 and ctl logs [--follow] 1 2 3: three jobs' lines in the
 * order they were printed, each after its job's label; --follow gets the
 * new lines as they come and ends with the jobs; the view at the prompt
 * shows the labels in colour; a bad ID is refused, duplicates ignored.
 */
START_TEST(test_logs_merged)
{
	static const char *const cmds[] = {
		"stty -echo; echo r; for i in 1 2 3; do read x; echo a$i; "
		    "done",
		"stty -echo; echo r; for i in 1 2 3; do read x; echo b$i; "
		    "done",
		"stty -echo; echo r; for i in 1 2 3; do read x; echo c$i; "
		    "done", NULL
	};
	static const char *const follow[] = {
		"logs", "--follow", "1", "2", "3", NULL
	};
	static const char *const order =
	    "1 | a1\n2 | b1\n3 | c1\n2 | b2\n1 | a2\n3 | c2\n";
	static const char *const shown[] = {
		"1 | a1", "2 | b1", "3 | c1", "2 | b2", "1 | a2", "3 | c2",
		"3 | c3", "1 | a3", "2 | b3"
	};
	struct deck		 d;
	struct ctlres		 r;
	struct bg		 b;
	struct term_cell	 c;
	char			 want[256];
	int			 i, row, col, last = -1;

	deck_start(&d, "logsm", cmds);
	for (i = 1; i <= 3; i++)
		wait_logs(&d, i == 1 ? "1" : i == 2 ? "2" : "3", "r\n",
		    WAIT_MS);
	merged_say(&d, "1", "a1");
	merged_say(&d, "2", "b1");
	merged_say(&d, "3", "c1");
	merged_say(&d, "2", "b2");
	merged_say(&d, "1", "a2");
	merged_say(&d, "3", "c2");
	CTL_EXPECT(&d, &r, 0, "logs", "1", "2", "3");
	ck_assert_str_eq(merged_lines(r.out), order);
	ctlres_free(&r);
	/* Duplicates ignored, --all the same jobs. */
	CTL_EXPECT(&d, &r, 0, "logs", "1", "2", "3", "2", "1");
	ck_assert_str_eq(merged_lines(r.out), order);
	ctlres_free(&r);
	CTL_EXPECT(&d, &r, 0, "logs", "--all");
	ck_assert_str_eq(merged_lines(r.out), order);
	ctlres_free(&r);
	CTL_EXPECT(&d, &r, 1, "logs", "1", "999");
	ck_assert_str_eq(r.err, "jobdeck ctl: no such job: 999\n");
	ctlres_free(&r);
	/* JSON: output events with their job. */
	CTL_EXPECT(&d, &r, 0, "--json", "logs", "3", "1");
	ck_assert_msg(strstr(r.out, "{\"ids\":[3,1],\"lines\":[") == r.out &&
	    strstr(r.out, "{\"event\":\"output\",\"id\":1,\"text\":\"a2\","
	    "\"line\":3,\"stream\":\"stdout\"},{\"event\":\"output\","
	    "\"id\":3,\"text\":\"c2\"") != NULL, "json: %s", r.out);
	ctlres_free(&r);

	/* Followed: what is there, then the new lines, then the end. */
	bg_start(&d, &b, follow);
	ck_assert_msg(bg_wait_text(&d, &b, "3 | c2\n", WAIT_MS),
	    "follow: %s", b.buf);
	merged_say(&d, "3", "c3");
	ck_assert_msg(bg_wait_text(&d, &b, "3 | c3\n", WAIT_MS),
	    "follow: %s", b.buf);
	merged_say(&d, "1", "a3");
	merged_say(&d, "2", "b3");
	ck_assert_int_eq(bg_wait_exit(&d, &b, WAIT_MS), 0);
	snprintf(want, sizeof want, "%s3 | c3\n1 | a3\n2 | b3\n", order);
	ck_assert_str_eq(merged_lines(b.buf), want);
	bg_stop(&b);

	/* At the prompt: a view, in that order, the labels in colour. */
	term_type(d.t, "!logs 1 2 3");
	term_key(d.t, TERM_KEY_ENTER);
	EXPECT_IN(d.t, NULL, "2 | b3", WAIT_MS);
	for (i = 0; i < (int)(sizeof shown / sizeof shown[0]); i++) {
		E2E_ASSERT(d.t, term_find(d.t, shown[i], &row, &col) &&
		    row > last, shown[i]);
		last = row;
	}
	ck_assert_int_eq(term_find(d.t, "1 | a1", &row, &col), 1);
	ck_assert_int_eq(term_cell(d.t, row, col, &c), 0);
	E2E_ASSERT(d.t, !c.fg.is_default, "the label's colour");
	ck_assert_int_eq(term_cell(d.t, row, col + 4, &c), 0);
	E2E_ASSERT(d.t, c.fg.is_default, "the text's colour");
	term_type(d.t, "q");
	term_type(d.t, "!logs 1 999");
	term_key(d.t, TERM_KEY_ENTER);
	EXPECT_IN(d.t, &bottom, "no such job: 999", WAIT_MS);
	term_close(d.t);
}
END_TEST

/* kill with signals, kill-all, restart and quit, with --json. */
START_TEST(test_kill_restart_quit)
{
	static const char *const cmds[] = {
		"sleep 100", "sleep 101", "sleep 102", NULL
	};
	struct deck	 d;
	struct ctlres	 r;
	struct jsonread	*j;
	struct stat	 sb;
	double		 pid;
	int		 status;

	deck_start(&d, "kill", cmds);
	EXPECT_IN(d.t, &panel, "Processes (3 running)", WAIT_MS);

	CTL_EXPECT(&d, &r, 0, "kill", "-KILL", "1");
	ck_assert_str_eq(r.out, "sent SIGKILL to 1 job\n");
	ctlres_free(&r);
	j = wait_state(&d, "1", "canceled", WAIT_MS);
	ck_assert_str_eq(json_str(j, "signal"), "SIGKILL");
	jsonread_free(j);

	CTL_EXPECT(&d, &r, 1, "kill", "99");
	ck_assert_str_eq(r.err, "jobdeck ctl: no such job: 99\n");
	ctlres_free(&r);
	CTL_EXPECT(&d, &r, 2, "kill", "-NOPE", "2");
	ck_assert_str_eq(r.err, "jobdeck ctl: kill: unknown signal: NOPE\n");
	ctlres_free(&r);

	/* restart: the same id, a new process. */
	j = wait_state(&d, "2", "running", WAIT_MS);
	pid = json_num(j, "pid");
	jsonread_free(j);
	CTL_EXPECT(&d, &r, 0, "--json", "restart", "2");
	j = json_parse(r.out);
	ck_assert_int_eq((int)json_num(j, "id"), 2);
	jsonread_free(j);
	ctlres_free(&r);
	for (;;) {
		j = wait_state(&d, "2", "running", WAIT_MS);
		if (json_num(j, "pid") != pid) {
			jsonread_free(j);
			break;
		}
		jsonread_free(j);
		term_pump(d.t, 50);
	}

	CTL_EXPECT(&d, &r, 0, "kill-all", "--json");
	j = json_parse(r.out);
	ck_assert_int_eq(jsonread_bool(jsonread_get(j, "ok")), 1);
	ck_assert_str_eq(json_str(j, "message"), "stopping 2 jobs");
	jsonread_free(j);
	ctlres_free(&r);
	EXPECT_IN(d.t, &panel, "Processes (0 running)", WAIT_MS);

	CTL_EXPECT(&d, &r, 0, "quit");
	ctlres_free(&r);
	ck_assert_msg(term_wait_exit(d.t, WAIT_MS, &status), "the deck did "
	    "not quit");
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "the deck's status %d", status);
	ck_assert_msg(lstat(d.sock, &sb) == -1 && errno == ENOENT,
	    "the socket is still there");
	CTL_EXPECT(&d, &r, 2, "ps");
	ck_assert_str_eq(r.err, e2e_fmt("jobdeck ctl: no deck named kill is "
	    "running (%s)\n", d.sock));
	ctlres_free(&r);
	term_close(d.t);
}
END_TEST

/* rm, clear and rename through the socket, with their errors. */
START_TEST(test_rm_clear_rename)
{
	static const char *const cmds[] = {
		"sleep 100", "true", "false", NULL
	};
	struct deck	 d;
	struct ctlres	 r;
	struct jsonread	*j;

	deck_start(&d, "tidy", cmds);
	EXPECT_IN(d.t, &panel, "Processes (1 running)", WAIT_MS);
	jsonread_free(wait_state(&d, "2", "completed", WAIT_MS));
	jsonread_free(wait_state(&d, "3", "failed", WAIT_MS));

	CTL_EXPECT(&d, &r, 1, "rm", "1");
	ck_assert_str_eq(r.err, "jobdeck ctl: [1] is running: !kill it first\n");
	ctlres_free(&r);
	CTL_EXPECT(&d, &r, 1, "rm", "999");
	ck_assert_str_eq(r.err, "jobdeck ctl: no such job: 999\n");
	ctlres_free(&r);
	CTL_EXPECT(&d, &r, 0, "rm", "2");
	ck_assert_str_eq(r.out, "removed 1 job\n");
	ctlres_free(&r);
	CTL_EXPECT(&d, &r, 1, "status", "2");
	ctlres_free(&r);

	CTL_EXPECT(&d, &r, 0, "rename", "1", "web");
	ck_assert_str_eq(r.out, "[1] is named web\n");
	ctlres_free(&r);
	CTL_EXPECT(&d, &r, 0, "--json", "status", "web");
	j = json_parse(r.out);
	ck_assert_int_eq((int)json_num(j, "id"), 1);
	ck_assert_str_eq(json_str(j, "name"), "web");
	jsonread_free(j);
	ctlres_free(&r);
	CTL_EXPECT(&d, &r, 0, "list");
	ck_assert_ptr_nonnull(strstr(r.out, "web"));
	ctlres_free(&r);
	EXPECT_IN(d.t, &panel, "[1] web: sleep 100", WAIT_MS);
	CTL_EXPECT(&d, &r, 1, "rename", "1", "we b");
	ck_assert_str_eq(r.err, "jobdeck ctl: rename: job name 'we b' may "
	    "only have letters, digits, '_', '.' and '-'\n");
	ctlres_free(&r);
	CTL_EXPECT(&d, &r, 1, "rename", "999", "api");
	ck_assert_str_eq(r.err, "jobdeck ctl: no such job: 999\n");
	ctlres_free(&r);

	CTL_EXPECT(&d, &r, 0, "clear");
	ck_assert_str_eq(r.out, "removed 1 finished job\n");
	ctlres_free(&r);
	ck_assert_msg(term_wait_gone_in(d.t, &panel, "[3] false", WAIT_MS),
	    "[3] is still on the panel\n%s", term_dump(d.t));
	CTL_EXPECT(&d, &r, 0, "clear");
	ck_assert_str_eq(r.out, "no finished jobs\n");
	ctlres_free(&r);
	term_close(d.t);
}
END_TEST

/* Write a config file in a fresh directory; its path (static). */
static const char *
config_write(const char *text, char *dir)
{
	static char	 path[PATH_MAX];
	FILE		*f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/config.toml", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	chmod(path, 0600);
	return path;
}

/* run NAME key=value starts a configured job. */
START_TEST(test_run)
{
	static const char	 text[] = "[[job]]\nname = \"greet\"\n"
	    "command = \"echo hello {who}\"\nparams = { who = \"world\" }\n"
	    "autostart = false\n";
	struct deck		 d;
	struct ctlres		 r;
	struct jsonread		*j;
	const char		*opts[3];
	char			 dir[] = "/tmp/jobdeck-ctl-cfg.XXXXXX";

	opts[0] = "-c";
	opts[1] = config_write(text, dir);
	opts[2] = NULL;
	deck_open(&d, "run", opts, NULL, NULL, 0);

	CTL_EXPECT(&d, &r, 0, "run", "greet", "who=ctl");
	ck_assert_msg(strncmp(r.out, "started [1] echo hello", 22) == 0,
	    "run: %s", r.out);
	ctlres_free(&r);
	j = wait_state(&d, "greet", "completed", WAIT_MS);
	ck_assert_str_eq(json_str(j, "output"), "hello ctl\n");
	ck_assert_str_eq(json_str(j, "name"), "greet");
	jsonread_free(j);
	CTL_EXPECT(&d, &r, 0, "--json", "run", "greet");
	j = json_parse(r.out);
	ck_assert_int_eq((int)json_num(j, "id"), 2);
	jsonread_free(j);
	ctlres_free(&r);
	CTL_EXPECT(&d, &r, 1, "run", "nosuch");
	ck_assert_str_eq(r.err, "jobdeck ctl: run: no configured job named "
	    "nosuch\n");
	ctlres_free(&r);
	term_close(d.t);
	unlink(opts[1]);
	rmdir(dir);
}
END_TEST

/*
 * Where a job runs reaches its spec, and so its job object's host
 * ({"name", "engine"}): spawn --host
 * with a [hosts] name or a bare ssh destination (--cwd then a directory
 * there, not checked here), a configured job's host through run; a value
 * ssh would read as an option, or that is no destination, is refused
 * before anything starts.
 */
START_TEST(test_spawn_host)
{
	static const char	 text[] = "[hosts.build]\nssh = \"jd-a\"\n"
	    "[[job]]\nname = \"far\"\ncommand = \"true\"\n"
	    "host = \"build\"\nautostart = false\n";
	struct deck		 d;
	struct ctlres		 r;
	struct jsonread		*j;
	const char		*opts[3];
	char			 dir[] = "/tmp/jobdeck-ctl-cfg.XXXXXX";

	opts[0] = "-c";
	opts[1] = config_write(text, dir);
	opts[2] = NULL;
	deck_open(&d, "spawnhost", opts, NULL, NULL, 0);

	CTL_EXPECT(&d, &r, 0, "spawn", "--json", "--host", "build", "--",
	    "true");
	j = json_parse(r.out);
	ck_assert_str_eq(json_str(jsonread_get(j, "host"), "name"), "build");
	ck_assert_str_eq(json_str(jsonread_get(j, "host"), "engine"), "ssh");
	ck_assert(json_is_null(j, "cwd"));
	jsonread_free(j);
	ctlres_free(&r);
	CTL_EXPECT(&d, &r, 0, "spawn", "--json", "--host", "me@box.invalid",
	    "--cwd", "~/src/app", "--name", "bare", "--", "true");
	j = json_parse(r.out);
	ck_assert_str_eq(json_str(jsonread_get(j, "host"), "name"),
	    "me@box.invalid");
	ck_assert_str_eq(json_str(j, "cwd"), "~/src/app");
	jsonread_free(j);
	ctlres_free(&r);
	CTL_EXPECT(&d, &r, 0, "--json", "run", "far");
	j = json_parse(r.out);
	ck_assert_str_eq(json_str(jsonread_get(j, "host"), "name"), "build");
	ck_assert_str_eq(json_str(j, "name"), "far");
	jsonread_free(j);
	ctlres_free(&r);

	/* Refused, and nothing started: ids 1 to 3 only. */
	CTL_EXPECT(&d, &r, 2, "spawn", "--host", "-oProxyCommand=touch x",
	    "--", "true");
	ck_assert_str_eq(r.err, "jobdeck ctl: spawn: --host: host "
	    "\"-oProxyCommand=touch x\": not a [hosts] name or an ssh "
	    "destination\n");
	ctlres_free(&r);
	CTL_EXPECT(&d, &r, 2, "spawn", "--host", "a@b@c", "--", "true");
	ck_assert_msg(strstr(r.err, "host \"a@b@c\": not a [hosts] name") !=
	    NULL, "stderr: %s", r.err);
	ctlres_free(&r);
	CTL_EXPECT(&d, &r, 1, "status", "4");
	ctlres_free(&r);

	/* A local job's host is null. */
	CTL_EXPECT(&d, &r, 0, "spawn", "--json", "--", "true");
	j = json_parse(r.out);
	ck_assert_int_eq((int)json_num(j, "id"), 4);
	ck_assert(json_is_null(j, "host"));
	jsonread_free(j);
	ctlres_free(&r);
	term_close(d.t);
	unlink(opts[1]);
	rmdir(dir);
}
END_TEST

/* spawn: a shell string or a program, name, cwd, env, session cwd. */
START_TEST(test_spawn)
{
	struct deck	 d;
	struct ctlres	 r;
	struct jsonread	*j;
	char		 sub[PATH_MAX];
	int64_t		 end;

	deck_start(&d, "spawn", NULL);
	snprintf(sub, sizeof sub, "%s/sub dir", term_tmpdir(d.t));
	ck_assert_int_eq(mkdir(sub, 0700), 0);

	CTL_EXPECT(&d, &r, 0, "spawn", "--json", "--name", "web", "--cwd",
	    "sub dir", "--env", "FOO=bar baz", "--",
	    "echo \"$FOO\" \"$PWD\"; sleep 100");
	j = json_parse(r.out);
	ck_assert_int_eq((int)json_num(j, "id"), 1);
	ck_assert_str_eq(json_str(j, "name"), "web");
	ck_assert_str_eq(json_str(j, "cwd"), sub);
	ck_assert_str_eq(json_str(j, "command"), "echo \"$FOO\" \"$PWD\"; "
	    "sleep 100");
	ck_assert(json_is_null(j, "argv"));
	jsonread_free(j);
	ctlres_free(&r);
	EXPECT_IN(d.t, NULL, "bar baz", WAIT_MS);
	CTL_EXPECT(&d, &r, 0, "logs", "web");
	ck_assert_str_eq(r.out, e2e_fmt("bar baz %s\n", sub));
	ctlres_free(&r);

	/* The name is taken while web runs. */
	CTL_EXPECT(&d, &r, 1, "spawn", "--name", "web", "--", "true");
	ck_assert_msg(strstr(r.err, "a job named web is running already") !=
	    NULL, "stderr: %s", r.err);
	ctlres_free(&r);

	/* No shell: the words are the argv, nothing is expanded. */
	CTL_EXPECT(&d, &r, 0, "spawn", "--no-shell", "--", "printf",
	    "<%s>", "a b", "$HOME", "it's");
	ck_assert_str_eq(r.out, "started [2] printf '<%s>' 'a b' '$HOME' "
	    "'it'\\''s'\n");
	ctlres_free(&r);
	j = wait_state(&d, "2", "completed", WAIT_MS);
	ck_assert_str_eq(json_str(j, "output"), "<a b><$HOME><it's>\n");
	ck_assert_int_eq(jsonread_count(jsonread_get(j, "argv")), 5);
	jsonread_free(j);

	/*
	 * Without --cwd, the session's directory (cd at the prompt), once
	 * the session has it (the typed line holds "/tmp" before it runs).
	 */
	term_type(d.t, "cd /tmp");
	term_key(d.t, TERM_KEY_ENTER);
	end = term_now_ms() + WAIT_MS;
	for (;;) {
		CTL_EXPECT(&d, &r, 0, "session");
		if (strncmp(r.out, "cwd: /tmp\n", 10) == 0)
			break;
		ck_assert_msg(term_now_ms() < end, "the session's cwd is not "
		    "/tmp after %d ms: %s", WAIT_MS, r.out);
		ctlres_free(&r);
		term_pump(d.t, 50);
	}
	ctlres_free(&r);
	CTL_EXPECT(&d, &r, 0, "spawn", "pwd");
	ctlres_free(&r);
	j = wait_state(&d, "3", "completed", WAIT_MS);
	ck_assert_str_eq(json_str(j, "output"), "/tmp\n");
	jsonread_free(j);

	CTL_EXPECT(&d, &r, 1, "spawn", "--cwd", "/nope", "--", "true");
	ck_assert_str_eq(r.err, "jobdeck ctl: spawn: /nope: No such file or "
	    "directory\n");
	ctlres_free(&r);
	CTL_EXPECT(&d, &r, 2, "spawn", "--name", "x");
	ctlres_free(&r);
	CTL_EXPECT(&d, &r, 2, "spawn", "--env", "1=2", "--", "true");
	ctlres_free(&r);
	CTL_EXPECT(&d, &r, 2, "spawn", "--frob", "--", "true");
	ctlres_free(&r);
	/* A program that is not there fails as a shell would say. */
	CTL_EXPECT(&d, &r, 0, "spawn", "--no-shell", "--",
	    "/nonexistent/program");
	ctlres_free(&r);
	j = wait_state(&d, "4", "failed", WAIT_MS);
	ck_assert_int_eq((int)json_num(j, "exit_code"), 127);
	jsonread_free(j);
	/* Several words after --: a program and its arguments, quoting kept. */
	CTL_EXPECT(&d, &r, 0, "spawn", "--", "sh", "-c",
	    "echo a; echo 'b  c'");
	ck_assert_str_eq(r.out,
	    "started [5] sh -c 'echo a; echo '\\''b  c'\\'''\n");
	ctlres_free(&r);
	j = wait_state(&d, "5", "completed", WAIT_MS);
	ck_assert_str_eq(json_str(j, "output"), "a\nb  c\n");
	jsonread_free(j);
	term_close(d.t);
}
END_TEST

/*
 * The session over the socket: cd and export go through the session
 * shell and are answered once it has run them, so a spawn right after
 * starts in that state; a failing cd says why and changes nothing;
 * session shows the state.
 */
START_TEST(test_session_socket)
{
	struct deck	 d;
	struct ctlres	 r;
	struct jsonread	*j;
	char		 sub[PATH_MAX], want[PATH_MAX + 32], *reply;

	deck_start(&d, "session", NULL);
	snprintf(sub, sizeof sub, "%s/sub dir", term_tmpdir(d.t));
	ck_assert_int_eq(mkdir(sub, 0700), 0);
	CTL_EXPECT(&d, &r, 0, "cd", sub);
	ctlres_free(&r);
	CTL_EXPECT(&d, &r, 0, "export", "API_KEY=se cret");
	ctlres_free(&r);
	CTL_EXPECT(&d, &r, 1, "cd", "nowhere");
	ck_assert_msg(strstr(r.err, "nowhere") != NULL, "stderr: %s", r.err);
	ctlres_free(&r);
	CTL_EXPECT(&d, &r, 0, "spawn", "echo \"$(pwd) $API_KEY\"");
	ctlres_free(&r);
	j = wait_state(&d, "1", "completed", WAIT_MS);
	snprintf(want, sizeof want, "%s se cret\n", sub);
	ck_assert_str_eq(json_str(j, "output"), want);
	jsonread_free(j);
	CTL_EXPECT(&d, &r, 0, "--json", "session");
	ck_assert_msg(strstr(r.out, "\"API_KEY\":\"se cret\"") != NULL,
	    "session: %s", r.out);
	ctlres_free(&r);
	/* NAME.ro sees the names set, never their values (secrets). */
	reply = sock_request_at(&d, d.ro, "--json session\n", 15);
	ck_assert_msg(strncmp(reply, "0\n", 2) == 0 &&
	    strstr(reply, "API_KEY") != NULL &&
	    strstr(reply, "se cret") == NULL, "ro: %s", reply);
	free(reply);
	reply = sock_request_at(&d, d.ro, "session\n", 8);
	ck_assert_msg(strncmp(reply, "0\n", 2) == 0 &&
	    strstr(reply, "API_KEY") != NULL &&
	    strstr(reply, "se cret") == NULL, "ro: %s", reply);
	free(reply);
	term_close(d.t);
}
END_TEST

/* send: escapes, a job that has ended, bad escapes. */
START_TEST(test_send)
{
	static const char *const cmds[] = { "cat -v", "true", NULL };
	struct deck	 d;
	struct ctlres	 r;
	struct jsonread	*j;

	deck_start(&d, "send", cmds);
	j = wait_state(&d, "2", "completed", WAIT_MS);
	jsonread_free(j);
	CTL_EXPECT(&d, &r, 0, "send", "1", "a\\x41\\\\b\\x01");
	ck_assert_str_eq(r.out, "sent 5 bytes to [1]\n");
	ctlres_free(&r);
	CTL_EXPECT(&d, &r, 0, "--json", "send", "1", "--", "--json\\n");
	j = json_parse(r.out);
	ck_assert_str_eq(json_str(j, "message"), "sent 7 bytes to [1]");
	jsonread_free(j);
	ctlres_free(&r);
	wait_logs(&d, "1", "\naA\\b^A--json\n", WAIT_MS);
	CTL_EXPECT(&d, &r, 0, "send", "1", "x\\ty\\n");
	ctlres_free(&r);
	/* The terminal's echo and cat's copy, the tab expanded. */
	wait_logs(&d, "1", "\nx       y\nx       y\n", WAIT_MS);

	CTL_EXPECT(&d, &r, 1, "send", "2", "late");
	ck_assert_str_eq(r.err, "jobdeck ctl: send: job 2 is not running\n");
	ctlres_free(&r);
	CTL_EXPECT(&d, &r, 2, "send", "1", "bad\\q");
	ck_assert_msg(strstr(r.err, "unknown escape \\q") != NULL,
	    "stderr: %s", r.err);
	ctlres_free(&r);
	CTL_EXPECT(&d, &r, 2, "send", "1", "\\x4");
	ctlres_free(&r);
	CTL_EXPECT(&d, &r, 2, "send", "1", "two\nlines");
	ck_assert_msg(strstr(r.err, "newline") != NULL, "stderr: %s", r.err);
	ctlres_free(&r);
	term_close(d.t);
}
END_TEST

/* Find the JSON line of event kind for job id in text; parsed, or NULL. */
static struct jsonread *
find_event(const char *text, const char *kind, int id)
{
	struct jsonread	*j;
	const char	*p = text, *nl;
	char		*line;

	for (; (nl = strchr(p, '\n')) != NULL; p = nl + 1) {
		line = strndup(p, (size_t)(nl - p));
		j = json_parse(line);
		free(line);
		if (strcmp(json_str(j, "event"), kind) == 0 &&
		    (int)json_num(j, "id") == id)
			return j;
		jsonread_free(j);
	}
	return NULL;
}

/* events: started, output by line (escapes stripped) and exited. */
START_TEST(test_events)
{
	static const char *const events[] = { "events", NULL };
	struct deck		 d;
	struct ctlres		 r;
	struct bg		 b;
	struct jsonread		*j;

	deck_start(&d, "events", NULL);
	bg_start(&d, &b, events);
	term_pump(d.t, 200);
	CTL_EXPECT(&d, &r, 0, "spawn", "--name", "ev", "--",
	    "printf 'hello \\033[1;31mred\\033[0m\\n\\nsecond'; exit 3");
	ctlres_free(&r);
	ck_assert_msg(bg_wait_text(&d, &b, "\"event\":\"exited\"", WAIT_MS),
	    "events: %s", b.buf);

	j = find_event(b.buf, "started", 1);
	ck_assert_msg(j != NULL, "no started event: %s", b.buf);
	ck_assert_str_eq(json_str(j, "name"), "ev");
	ck_assert(json_num(j, "pid") > 1);
	ck_assert_msg(strncmp(json_str(j, "command"), "printf", 6) == 0,
	    "command: %s", json_str(j, "command"));
	jsonread_free(j);
	ck_assert_msg(strstr(b.buf, "{\"event\":\"output\",\"id\":1,\"text\":"
	    "\"hello red\",\"line\":1,\"stream\":\"stdout\"}\n"
	    "{\"event\":\"output\",\"id\":1,\"text\":\"\",\"line\":2,"
	    "\"stream\":\"stdout\"}\n{\"event\":\"output\",\"id\":1,"
	    "\"text\":\"second\",\"line\":3,\"stream\":\"stdout\","
	    "\"partial\":true}\n") != NULL, "output events: %s", b.buf);
	j = find_event(b.buf, "exited", 1);
	ck_assert_int_eq((int)json_num(j, "exit_code"), 3);
	ck_assert(json_is_null(j, "signal"));
	ck_assert_str_eq(json_str(j, "state"), "failed");
	ck_assert(json_num(j, "duration_ms") >= 0);
	jsonread_free(j);

	/* Still streaming: a second job shows up too. */
	CTL_EXPECT(&d, &r, 0, "spawn", "echo again");
	ctlres_free(&r);
	ck_assert_msg(bg_wait_text(&d, &b, "\"text\":\"again\"", WAIT_MS),
	    "events: %s", b.buf);
	bg_stop(&b);
	assert_deck_works(&d);
	term_close(d.t);
}
END_TEST

/* Return the ids of `list --status waiting --json`, as "2,3". */
static char *
waiting_ids(struct deck *d)
{
	struct ctlres		 r;
	struct jsonread		*j;
	const struct jsonread	*jobs;
	char			 ids[256] = "";
	size_t			 i;

	CTL_EXPECT(d, &r, 0, "list", "--status", "waiting", "--json");
	j = json_parse(r.out);
	jobs = jsonread_get(j, "jobs");
	for (i = 0; i < jsonread_count(jobs); i++)
		snprintf(ids + strlen(ids), sizeof ids - strlen(ids), "%s%d",
		    i > 0 ? "," : "", (int)json_num(jsonread_index(jobs, i),
		    "id"));
	jsonread_free(j);
	ctlres_free(&r);
	return strdup(ids);
}

/*
 * Jobs blocked reading their terminal: a changed event with waiting_for
 * "password" (read -s) and "input" (read -p), the job object and ps say
 * so, list --status waiting has them (not the sleeping one); input sent
 * clears it (a changed event with waiting_for null).
 */
START_TEST(test_waiting_input)
{
	static const char *const events[] = { "events", NULL };
	struct deck		 d;
	struct ctlres		 r;
	struct bg		 b;
	struct jsonread		*j;
	char			*ids;
	int64_t			 end;

	deck_start(&d, "waiting", NULL);
	bg_start(&d, &b, events);
	term_pump(d.t, 200);
	CTL_EXPECT(&d, &r, 0, "spawn", "sleep 100");
	ctlres_free(&r);
	CTL_EXPECT(&d, &r, 0, "spawn", "--", "bash -c 'read -s -p pw: v; "
	    "echo got-$v; sleep 100'");
	ctlres_free(&r);
	CTL_EXPECT(&d, &r, 0, "spawn", "--", "bash -c 'read -p name: v'");
	ctlres_free(&r);
	ck_assert_msg(bg_wait_text(&d, &b, "\"waiting_for\":\"password\"",
	    WAIT_MS), "events: %s", b.buf);
	ck_assert_msg(bg_wait_text(&d, &b, "\"waiting_for\":\"input\"",
	    WAIT_MS), "events: %s", b.buf);
	j = find_event(b.buf, "changed", 2);
	ck_assert_msg(j != NULL, "no changed event of job 2: %s", b.buf);
	ck_assert_str_eq(json_str(j, "state"), "running");
	ck_assert_str_eq(json_str(j, "waiting_for"), "password");
	jsonread_free(j);

	ids = waiting_ids(&d);
	ck_assert_str_eq(ids, "2,3");
	free(ids);
	CTL_EXPECT(&d, &r, 0, "status", "--json", "3");
	j = json_parse(r.out);
	ck_assert_str_eq(json_str(j, "waiting_for"), "input");
	jsonread_free(j);
	ctlres_free(&r);
	CTL_EXPECT(&d, &r, 0, "ps");
	ck_assert_msg(strstr(r.out, "(waiting for password)") != NULL,
	    "ps: %s", r.out);
	ctlres_free(&r);
	CTL_EXPECT(&d, &r, 0, "status", "3");
	ck_assert_msg(strstr(r.out, "state:    running, waiting for input\n")
	    != NULL, "status: %s", r.out);
	ctlres_free(&r);

	/* Input clears it at once; the job goes on. */
	CTL_EXPECT(&d, &r, 0, "send", "2", "abc\\n");
	ctlres_free(&r);
	ck_assert_msg(bg_wait_text(&d, &b, "got-abc", WAIT_MS),
	    "events: %s", b.buf);
	end = term_now_ms() + WAIT_MS;
	for (;;) {
		ids = waiting_ids(&d);
		if (strcmp(ids, "3") == 0)
			break;
		ck_assert_msg(term_now_ms() < end, "waiting: %s", ids);
		free(ids);
		term_pump(d.t, 50);
	}
	free(ids);
	CTL_EXPECT(&d, &r, 0, "status", "--json", "2");
	j = json_parse(r.out);
	ck_assert(json_is_null(j, "waiting_for"));
	jsonread_free(j);
	ctlres_free(&r);
	ck_assert_msg(strstr(b.buf, "{\"event\":\"changed\",\"id\":2,"
	    "\"state\":\"running\",\"waiting_for\":null") != NULL,
	    "no change back: %s", b.buf);
	bg_stop(&b);
	term_close(d.t);
}
END_TEST

/* The new commands work at the prompt; the streams say they cannot. */
START_TEST(test_prompt)
{
	static const char *const cmds[] = { "echo hi-prompt; sleep 100",
	    NULL };
	struct deck	 d;
	struct ctlres	 r;
	struct jsonread	*j;

	deck_start(&d, "prompt", cmds);
	term_type(d.t, "!status 1");
	term_key(d.t, TERM_KEY_ENTER);
	EXPECT_IN(d.t, NULL, "state:    running", WAIT_MS);
	EXPECT_IN(d.t, NULL, "hi-prompt", WAIT_MS);
	term_type(d.t, "q");
	term_type(d.t, "!events");
	term_key(d.t, TERM_KEY_ENTER);
	EXPECT_IN(d.t, &bottom, "events works only through the control "
	    "socket", WAIT_MS);
	term_type(d.t, "!logs --follow 1");
	term_key(d.t, TERM_KEY_ENTER);
	EXPECT_IN(d.t, &bottom, "logs --follow works only through the "
	    "control socket", WAIT_MS);
	term_type(d.t, "!spawn --name pr -- echo from-spawn");
	term_key(d.t, TERM_KEY_ENTER);
	EXPECT_IN(d.t, &panel, "[2] pr: echo from-spawn", WAIT_MS);
	term_type(d.t, "!send 1 x");
	term_key(d.t, TERM_KEY_ENTER);
	EXPECT_IN(d.t, &bottom, "sent 1 byte to [1]", WAIT_MS);
	term_type(d.t, "!list --status completed");
	term_key(d.t, TERM_KEY_ENTER);
	EXPECT_IN(d.t, NULL, "completed", WAIT_MS);

	/* focus through the socket closes the view and focuses the job. */
	CTL_EXPECT(&d, &r, 0, "focus", "1");
	ctlres_free(&r);
	EXPECT_IN(d.t, &pane_title, "[Focused]", WAIT_MS);
	EXPECT_IN(d.t, &pane_title, "[1]", WAIT_MS);
	/* help is text, or in JSON its title and lines. */
	CTL_EXPECT(&d, &r, 0, "--json", "help");
	j = json_parse(r.out);
	ck_assert_str_eq(json_str(j, "title"), "Help");
	ck_assert_int_gt(jsonread_count(jsonread_get(j, "lines")), 10);
	jsonread_free(j);
	ctlres_free(&r);
	term_close(d.t);
}
END_TEST

/* Bad requests get the prompt's errors, and the deck carries on. */
START_TEST(test_malformed)
{
	static const struct {
		const char	*req;
		size_t		 len;
		const char	*reply;
	} cases[] = {
		{ "'unterminated\n", 14, "2\nunterminated quote\n" },
		{ "ps\0junk\n", 8, "2\nbad request: it holds a NUL byte\n" },
		{ "frobnicate now\n", 15, "2\nunknown command: !frobnicate\n" },
		{ "\n", 1, "2\nempty request (try: help)\n" },
		{ "--json\n", 7, "2\nempty request (try: help)\n" },
		{ "kill\n", 5, "2\nusage: !kill [-SIGNAL] ID...\n" },
		{ "kill 999\n", 9, "1\nno such job: 999\n" },
		{ "!ps -a\n", 7, "2\nusage: !ps\n" },
		{ "--json ps\n", 10, "0\n{\"jobs\":[]}\n" },
		{ "ps", 2, "0\nID  PID  STATE  READY  EXIT  TIME  CPU  MEM  "
		    "COMMAND\n" },
	};
	struct deck	 d;
	struct ctlres	 r;
	char		*reply;
	size_t		 i;
	int		 fd;

	deck_start(&d, "malformed", NULL);
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		if (cases[i].req[cases[i].len - 1] != '\n') {
			/* No newline: the end of the request is EOF. */
			fd = sock_connect(d.sock);
			sock_write(fd, cases[i].req, cases[i].len);
			shutdown(fd, SHUT_WR);
			reply = sock_reply(&d, fd, WAIT_MS, NULL);
			close(fd);
		} else
			reply = sock_request(&d, cases[i].req, cases[i].len);
		ck_assert_msg(reply != NULL, "no reply to case %zu", i);
		ck_assert_str_eq(reply, cases[i].reply);
		free(reply);
	}
	/* Connecting and leaving at once is nothing. */
	close(sock_connect(d.sock));
	assert_deck_works(&d);
	CTL_EXPECT(&d, &r, 2, "frob");
	ck_assert_str_eq(r.err, "jobdeck ctl: unknown command: !frob\n");
	ctlres_free(&r);
	term_close(d.t);
}
END_TEST

/* A 1 MiB request is refused; the deck carries on. */
START_TEST(test_oversized)
{
	struct deck	 d;
	char		*big, *reply;
	size_t		 len = 1024 * 1024;
	int		 fd;

	deck_start(&d, "oversized", NULL);
	big = malloc(len);
	memset(big, 'a', len);
	big[len - 1] = '\n';
	fd = sock_connect(d.sock);
	/* The deck stops reading at its limit: this write may fail. */
	fcntl(fd, F_SETFL, O_NONBLOCK);
	sock_write(fd, big, len);
	reply = sock_reply(&d, fd, WAIT_MS, NULL);
	ck_assert_msg(reply != NULL, "no reply to 1 MiB");
	ck_assert_str_eq(reply, "2\nrequest too long (more than 65536 "
	    "bytes)\n");
	free(reply);
	close(fd);
	free(big);
	assert_deck_works(&d);
	term_close(d.t);
}
END_TEST

/*
 * A half-sent request times out; meanwhile others are served: ps gets its
 * answer while the half-sent request still waits for its end.
 */
START_TEST(test_half_sent)
{
	struct deck	 d;
	struct pollfd	 pfd;
	char		*reply;
	int64_t		 start;
	int		 fd;

	deck_start(&d, "half", NULL);
	fd = sock_connect(d.sock);
	sock_write(fd, "ps", 2);
	start = term_now_ms();
	assert_deck_works(&d);
	pfd.fd = fd;
	pfd.events = POLLIN;
	ck_assert_msg(poll(&pfd, 1, 0) == 0, "ps waited behind the half-sent "
	    "request (revents 0x%x after %lld ms)", pfd.revents,
	    (long long)(term_now_ms() - start));
	reply = sock_reply(&d, fd, 10000, NULL);
	ck_assert_msg(reply != NULL, "the half-sent request was not dropped");
	ck_assert_str_eq(reply, "2\nrequest timed out after 5000 ms\n");
	ck_assert_msg(term_now_ms() - start >= 4000, "dropped too early");
	free(reply);
	close(fd);
	assert_deck_works(&d);
	term_close(d.t);
}
END_TEST

/* 100 clients at once are all answered. */
START_TEST(test_many_clients)
{
	struct deck	 d;
	char		*reply;
	int		 fds[100], i;

	deck_start(&d, "many", NULL);
	for (i = 0; i < 100; i++)
		fds[i] = sock_connect(d.sock);
	for (i = 0; i < 100; i++)
		ck_assert_int_eq(sock_write(fds[i], "--json ps\n", 10), 0);
	for (i = 0; i < 100; i++) {
		reply = sock_reply(&d, fds[i], WAIT_MS, NULL);
		ck_assert_msg(reply != NULL, "client %d: no reply", i);
		ck_assert_str_eq(reply, "0\n{\"jobs\":[]}\n");
		free(reply);
		close(fds[i]);
	}
	assert_deck_works(&d);
	term_close(d.t);
}
END_TEST

/*
 * Streams hold no short request's place: with 128 events streams on
 * NAME.sock (all it took before: the 129th was refused "too many
 * clients"), a 129th client asking ps is served.
 */
START_TEST(test_client_limit)
{
	struct deck	 d;
	char		 head[2], *reply;
	int		 fds[128], fd, i;

	deck_start(&d, "limit", NULL);
	for (i = 0; i < 128; i++) {
		fds[i] = sock_connect(d.sock);
		ck_assert_int_eq(sock_write(fds[i], "events\n", 7), 0);
		if (i % 32 == 31)
			term_pump(d.t, 50);
	}
	for (i = 0; i < 128; i++) {
		ck_assert_int_eq(term_read_fd(d.t, fds[i], head, 2, WAIT_MS), 2);
		ck_assert_msg(head[0] == '0' && head[1] == '\n',
		    "events client %d: %.2s", i, head);
	}
	fd = sock_connect(d.sock);
	ck_assert_int_eq(sock_write(fd, "--json ps\n", 10), 0);
	reply = sock_reply(&d, fd, WAIT_MS, NULL);
	ck_assert_msg(reply != NULL, "the 129th client was not answered");
	ck_assert_str_eq(reply, "0\n{\"jobs\":[]}\n");
	free(reply);
	close(fd);
	for (i = 0; i < 128; i++)
		close(fds[i]);
	term_pump(d.t, 300);
	assert_deck_works(&d);
	term_close(d.t);
}
END_TEST

/*
 * Streams have a budget of their own: CTL_RO_STREAMS_MAX (256) events
 * streams on NAME.ro are served, the 257th is told why (status 1), and
 * short requests on both sockets are still served meanwhile.
 */
START_TEST(test_ro_client_limit)
{
	struct deck	 d;
	struct ctlres	 r;
	char		 head[2], *reply;
	int		 fds[257], i;

	deck_start(&d, "rolimit", NULL);
	for (i = 0; i < 257; i++) {
		fds[i] = sock_connect(d.ro);
		/* (A refused client may be closed before it writes.) */
		(void)sock_write(fds[i], "events\n", 7);
		if (i % 32 == 31)
			term_pump(d.t, 50);
	}
	for (i = 0; i < 256; i++) {
		ck_assert_int_eq(term_read_fd(d.t, fds[i], head, 2, WAIT_MS),
		    2);
		ck_assert_msg(head[0] == '0' && head[1] == '\n',
		    "read-only events client %d: %.2s", i, head);
	}
	reply = sock_reply(&d, fds[256], WAIT_MS, NULL);
	ck_assert_msg(reply != NULL, "the 257th stream was not answered");
	ck_assert_str_eq(reply, "1\nevents: too many streams at once (256 on "
	    "the read-only socket); try again when one has ended\n");
	free(reply);
	CTL_EXPECT(&d, &r, 0, "ps");
	ctlres_free(&r);
	CTL_EXPECT(&d, &r, 0, "--read-only", "ps");
	ctlres_free(&r);
	for (i = 0; i < 257; i++)
		close(fds[i]);
	term_pump(d.t, 300);
	assert_deck_works(&d);
	term_close(d.t);
}
END_TEST

/*
 * 128 connections that send one byte and nothing more do not lock real
 * clients out: a new connection takes the place of the oldest one still
 * sending its request (which is told why), and 30 requests in a row are
 * all served, none after an idle one's time limit.
 */
START_TEST(test_slowloris)
{
	struct deck	 d;
	struct ctlres	 r;
	char		*reply;
	int		 fds[128], i;

	deck_start(&d, "slowloris", NULL);
	for (i = 0; i < 128; i++) {
		fds[i] = sock_connect(d.sock);
		ck_assert_int_eq(sock_write(fds[i], "p", 1), 0);
		if (i % 32 == 31)
			term_pump(d.t, 50);
	}
	term_pump(d.t, 300);
	/*
	 * Each is served at once, not after an idle one's time limit: the
	 * oldest idle one was dropped for the first of them (its reply says
	 * so; one that had timed out would say "request timed out").
	 */
	for (i = 0; i < 30; i++) {
		CTL_EXPECT(&d, &r, 0, "ps");
		ctlres_free(&r);
	}
	reply = sock_reply(&d, fds[0], WAIT_MS, NULL);
	ck_assert_msg(reply != NULL, "the oldest idle connection was kept");
	ck_assert_str_eq(reply, "2\nrequest not complete: dropped for a new "
	    "client (too many clients at once)\n");
	free(reply);
	for (i = 0; i < 128; i++)
		close(fds[i]);
	assert_deck_works(&d);
	term_close(d.t);
}
END_TEST

/*
 * A client that asks for events and never reads while output floods does
 * not block the deck; it is dropped once its backlog passes the limit.
 */
START_TEST(test_slow_reader)
{
	struct deck	 d;
	struct ctlres	 r;
	struct jsonread	*j;
	struct pollfd	 pfd;
	char		 buf[65536];
	int64_t		 end;
	size_t		 total = 0;
	ssize_t		 n;
	int		 fd, ps_runs = 0, dropped = 0;

	deck_start(&d, "slow", NULL);
	fd = sock_connect(d.sock);
	sock_write(fd, "events\n", 7);
	term_pump(d.t, 200);
	/*
	 * 200,000 lines make about 12 MB of events, many times the backlog
	 * allowed; the flood's length is the machine's business, so it is
	 * waited for without a clock (the case's own timeout ends a hang).
	 */
	CTL_EXPECT(&d, &r, 0, "spawn", "seq 1 200000");
	ctlres_free(&r);
	/* The deck answers all along. */
	for (;;) {
		/* (status would carry the whole flood each time.) */
		CTL_EXPECT(&d, &r, 0, "list", "--json", "--status",
		    "completed");
		ps_runs++;
		j = json_parse(r.out);
		ctlres_free(&r);
		if (jsonread_count(jsonread_get(j, "jobs")) == 1) {
			jsonread_free(j);
			break;
		}
		jsonread_free(j);
		term_pump(d.t, 20);
	}
	ck_assert_int_ge(ps_runs, 1);
	/* Now read: what was queued, then the end: the deck let it go. */
	pfd.fd = fd;
	pfd.events = POLLIN;
	end = term_now_ms() + 120000;
	while (term_now_ms() < end) {
		if (poll(&pfd, 1, 50) > 0) {
			n = read(fd, buf, sizeof buf);
			if (n <= 0) {
				dropped = 1;
				break;
			}
			total += (size_t)n;
		}
		term_pump(d.t, 1);
	}
	ck_assert_msg(dropped, "the slow client was not dropped (%zu bytes)",
	    total);
	ck_assert_msg(total < 40 * 1024 * 1024, "it got %zu bytes", total);
	close(fd);
	assert_deck_works(&d);
	term_close(d.t);
}
END_TEST

/*
 * Run in a child as nobody: connect to path and send ps; exit 0 if the
 * deck refused with its message, 11 if connect() was denied, else 1-3.
 */
static int
other_uid_probe(const char *path)
{
	struct sockaddr_un	sun;
	char			buf[512];
	ssize_t			n;
	size_t			len = 0;
	int			fd;
	pid_t			pid;
	int			status;

	pid = fork();
	ck_assert_int_ne(pid, -1);
	if (pid == 0) {
		if (setgroups(0, NULL) != 0 || setgid(NOBODY) != 0 ||
		    setuid(NOBODY) != 0)
			_exit(1);
		fd = socket(AF_UNIX, SOCK_STREAM, 0);
		memset(&sun, 0, sizeof sun);
		sun.sun_family = AF_UNIX;
		snprintf(sun.sun_path, sizeof sun.sun_path, "%s", path);
		if (connect(fd, (struct sockaddr *)&sun, sizeof sun) != 0)
			_exit(errno == EACCES ? 11 : 2);
		/* The deck may have answered and closed already: EPIPE. */
		(void)send(fd, "ps\n", 3, MSG_NOSIGNAL);
		while ((n = read(fd, buf + len, sizeof buf - 1 - len)) > 0)
			len += (size_t)n;
		buf[len] = '\0';
		_exit(strcmp(buf, "2\npermission denied: this deck belongs "
		    "to uid 0\n") == 0 ? 0 : 3);
	}
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		continue;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/*
 * Another uid cannot use the deck: not through the file, nor the socket,
 * nor the read-only socket.
 */
START_TEST(test_other_uid)
{
	struct deck	d;
	char		tmp[PATH_MAX];

	if (geteuid() != 0)
		TEST_SKIP("needs root to become uid %d", NOBODY);
	deck_start(&d, "uid", NULL);
	/* The directory and the socket keep others out. */
	ck_assert_int_eq(other_uid_probe(d.sock), 11);
	ck_assert_int_eq(other_uid_probe(d.ro), 11);
	/* Let them reach it: the deck itself must refuse them. */
	snprintf(tmp, sizeof tmp, "%s", term_tmpdir(d.t));
	ck_assert_int_eq(chmod(tmp, 0711), 0);
	ck_assert_int_eq(chmod(d.run, 0711), 0);
	ck_assert_int_eq(chmod(d.dir, 0711), 0);
	ck_assert_int_eq(chmod(d.sock, 0666), 0);
	ck_assert_int_eq(other_uid_probe(d.sock), 0);
	/* The read-only socket too: looking is not for others either. */
	ck_assert_int_eq(chmod(d.ro, 0666), 0);
	ck_assert_int_eq(other_uid_probe(d.ro), 0);
	assert_deck_works(&d);
	chmod(tmp, 0700);
	term_close(d.t);
}
END_TEST

/*
 * A second jobdeck with a name in use attaches to that deck (its job is
 * on the screen, and !detach leaves it running); a second deck that would
 * start (jobdeck up) says the name is in use and exits 2.
 */
START_TEST(test_second_deck)
{
	static const char *const up[] = { "up", "--stay", "-c", "/dev/null",
	    NULL };
	static const char *const cmds[] = { "echo first-deck-job; sleep 300",
	    NULL };
	struct deck	 a, b;
	const char	*env[2];
	char		 var[PATH_MAX + 32];
	int		 status;

	deck_start(&a, "dup", cmds);
	snprintf(var, sizeof var, "XDG_RUNTIME_DIR=%s", a.run);
	env[0] = var;
	env[1] = NULL;
	deck_open(&b, "dup", NULL, NULL, env, 0);
	EXPECT_IN(b.t, NULL, "first-deck-job", WAIT_MS);
	term_type(b.t, "!detach\r");
	EXPECT_IN(b.t, NULL, "[detached from dup]", WAIT_MS);
	ck_assert_msg(term_wait_exit(b.t, WAIT_MS, &status), "the second "
	    "client did not exit");
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "status %d", status);
	term_close(b.t);
	assert_deck_works(&a);

	deck_open(&b, "dup", up, NULL, env, 1);
	EXPECT_IN(b.t, NULL, e2e_fmt("jobdeck: a deck named dup is running (%s)",
	    a.sock), WAIT_MS);
	ck_assert_msg(term_wait_exit(b.t, WAIT_MS, &status), "the second "
	    "deck did not exit");
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 2,
	    "status %d", status);
	ck_assert_msg(!term_find(b.t, "Processes", NULL, NULL),
	    "the second deck drew its screen");
	term_close(b.t);
	assert_deck_works(&a);

	/* Another name is fine beside it. */
	deck_open(&b, "dup2", NULL, NULL, env, 0);
	term_close(b.t);
	assert_deck_works(&a);
	term_close(a.t);
}
END_TEST

/* A socket left by a crashed deck is replaced. */
START_TEST(test_stale_socket)
{
	struct sockaddr_un	 sun;
	struct deck		 a, b;
	struct stat		 sb;
	const char		*env[2];
	char			 var[PATH_MAX + 32], *reply;
	int			 fd, status;

	/* A deck killed with SIGKILL leaves its socket behind. */
	deck_start(&a, "stale", NULL);
	ck_assert_int_eq(kill(e2e_deck_pid(a.t), SIGKILL), 0);
	ck_assert(term_wait_exit(a.t, WAIT_MS, &status));
	ck_assert_int_eq(lstat(a.sock, &sb), 0);
	ck_assert(S_ISSOCK(sb.st_mode));

	snprintf(var, sizeof var, "XDG_RUNTIME_DIR=%s", a.run);
	env[0] = var;
	env[1] = NULL;
	deck_open(&b, "stale", NULL, NULL, env, 0);
	deck_share_run(&b, &a);
	reply = sock_request(&b, "--json ps\n", 10);
	ck_assert_str_eq(reply, "0\n{\"jobs\":[]}\n");
	free(reply);

	/* A socket file nobody listens on, made by hand, likewise. */
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	ck_assert(snprintf(sun.sun_path, sizeof sun.sun_path, "%s/byhand.sock",
	    a.dir) < (int)sizeof sun.sun_path);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sun, sizeof sun), 0);
	close(fd);
	term_close(b.t);
	deck_open(&b, "byhand", NULL, NULL, env, 0);
	deck_share_run(&b, &a);
	reply = sock_request(&b, "--json ps\n", 10);
	ck_assert_str_eq(reply, "0\n{\"jobs\":[]}\n");
	free(reply);
	term_close(b.t);
	term_close(a.t);
}
END_TEST

/*
 * Two decks of one name starting at once: the one still starting (bound,
 * not yet listening, holding NAME.lock) must not lose its socket to the
 * other, which gives way once the first listens and attaches to it
 * instead; this "deck" never answers, so it says so after 10 s, exit 2.
 */
START_TEST(test_start_race)
{
	struct sockaddr_un	 sun;
	struct deck		 a, b;
	struct stat		 sb, now;
	const char		*env[2];
	char			 var[PATH_MAX + 32], lock[PATH_MAX];
	int			 fd, lfd, status;

	deck_start(&a, "first", NULL);
	/* Play a deck of the name "race" between its bind() and listen(). */
	ck_assert(snprintf(lock, sizeof lock, "%s/race.lock", a.dir) <
	    (int)sizeof lock);
	lfd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	ck_assert_int_ne(lfd, -1);
	ck_assert_int_eq(flock(lfd, LOCK_EX), 0);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	ck_assert(snprintf(sun.sun_path, sizeof sun.sun_path, "%s/race.sock",
	    a.dir) < (int)sizeof sun.sun_path);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sun, sizeof sun), 0);
	ck_assert_int_eq(lstat(sun.sun_path, &sb), 0);

	snprintf(var, sizeof var, "XDG_RUNTIME_DIR=%s", a.run);
	env[0] = var;
	env[1] = NULL;
	deck_open(&b, "race", NULL, NULL, env, 1);
	term_pump(b.t, 500);
	ck_assert_msg(lstat(sun.sun_path, &now) == 0 && now.st_ino == sb.st_ino,
	    "the second deck removed the starting deck's socket");
	ck_assert(!term_find(b.t, "Processes", NULL, NULL));

	/* The first one is up: the second one gives way. */
	ck_assert_int_eq(listen(fd, 8), 0);
	close(lfd);
	EXPECT_IN(b.t, NULL, "jobdeck: the deck did not answer the attach "
	    "within 10 s", 10000 + WAIT_MS);
	ck_assert(term_wait_exit(b.t, WAIT_MS, &status));
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 2,
	    "status %d", status);
	ck_assert_int_eq(lstat(sun.sun_path, &now), 0);
	ck_assert_int_eq(now.st_ino, sb.st_ino);
	term_close(b.t);
	close(fd);
	assert_deck_works(&a);
	term_close(a.t);
}
END_TEST

/*
 * A deck too busy to accept (its backlog full) is running: a second deck
 * of its name says so at once rather than wait in connect().
 */
START_TEST(test_busy_deck)
{
	struct sockaddr_un	 sun;
	struct deck		 a, b;
	const char		*env[2];
	char			 var[PATH_MAX + 32];
	int			 fd, fds[64], n = 0, status;

	deck_start(&a, "idle", NULL);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	ck_assert(snprintf(sun.sun_path, sizeof sun.sun_path, "%s/busy.sock",
	    a.dir) < (int)sizeof sun.sun_path);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sun, sizeof sun), 0);
	ck_assert_int_eq(listen(fd, 0), 0);
	/* Fill its backlog; it never accepts. */
	for (n = 0; n < 64; n++) {
		fds[n] = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK |
		    SOCK_CLOEXEC, 0);
		if (connect(fds[n], (struct sockaddr *)&sun, sizeof sun) != 0) {
			ck_assert_int_eq(errno, EAGAIN);
			close(fds[n]);
			break;
		}
	}
	ck_assert_int_lt(n, 64);

	snprintf(var, sizeof var, "XDG_RUNTIME_DIR=%s", a.run);
	env[0] = var;
	env[1] = NULL;
	deck_open(&b, "busy", NULL, NULL, env, 1);
	EXPECT_IN(b.t, NULL, e2e_fmt("jobdeck: a deck named busy is running (%s)",
	    sun.sun_path), WAIT_MS);
	ck_assert(term_wait_exit(b.t, WAIT_MS, &status));
	ck_assert_int_eq(WEXITSTATUS(status), 2);
	term_close(b.t);
	while (n > 0)
		close(fds[--n]);
	close(fd);
	assert_deck_works(&a);
	term_close(a.t);
}
END_TEST

/* A dead socket that another user made is not removed, nor used. */
START_TEST(test_stale_foreign)
{
	struct sockaddr_un	 sun;
	struct deck		 a, b;
	struct stat		 sb;
	const char		*env[2];
	char			 var[PATH_MAX + 32];
	int			 fd, status;

	if (geteuid() != 0)
		TEST_SKIP("needs root to make a file of uid %d", NOBODY);
	deck_start(&a, "owner", NULL);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	ck_assert(snprintf(sun.sun_path, sizeof sun.sun_path, "%s/theirs.sock",
	    a.dir) < (int)sizeof sun.sun_path);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sun, sizeof sun), 0);
	close(fd);
	ck_assert_int_eq(lchown(sun.sun_path, NOBODY, NOBODY), 0);

	snprintf(var, sizeof var, "XDG_RUNTIME_DIR=%s", a.run);
	env[0] = var;
	env[1] = NULL;
	deck_open(&b, "theirs", NULL, NULL, env, 1);
	EXPECT_IN(b.t, NULL, e2e_fmt("jobdeck: %s is owned by uid %d",
	    sun.sun_path, NOBODY), WAIT_MS);
	ck_assert(term_wait_exit(b.t, WAIT_MS, &status));
	ck_assert_int_eq(WEXITSTATUS(status), 2);
	term_close(b.t);
	ck_assert_int_eq(lstat(sun.sun_path, &sb), 0);
	ck_assert_int_eq(sb.st_uid, NOBODY);
	assert_deck_works(&a);
	term_close(a.t);
}
END_TEST

/* An unsafe socket directory is refused by the deck and by ctl. */
START_TEST(test_dir_perms)
{
	struct deck	 a, b;
	struct ctlres	 r;
	const char	*env[2];
	char		 var[PATH_MAX + 32];
	int		 status;

	deck_start(&a, "perm", NULL);
	ck_assert_int_eq(chmod(a.dir, 0777), 0);
	CTL_EXPECT(&a, &r, 2, "ps");
	ck_assert_str_eq(r.err, e2e_fmt("jobdeck ctl: %s can be written by group "
	    "or others (mode 0777); refusing to use it (chmod 700 it)\n",
	    a.dir));
	ctlres_free(&r);

	snprintf(var, sizeof var, "XDG_RUNTIME_DIR=%s", a.run);
	env[0] = var;
	env[1] = NULL;
	deck_open(&b, "perm2", NULL, NULL, env, 1);
	EXPECT_IN(b.t, NULL, e2e_fmt("jobdeck: %s can be written by group or "
	    "others", a.dir), WAIT_MS);
	ck_assert(term_wait_exit(b.t, WAIT_MS, &status));
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 2,
	    "status %d", status);
	term_close(b.t);

	if (geteuid() == 0) {
		ck_assert_int_eq(chmod(a.dir, 0700), 0);
		ck_assert_int_eq(chown(a.dir, NOBODY, NOBODY), 0);
		deck_open(&b, "perm3", NULL, NULL, env, 1);
		EXPECT_IN(b.t, NULL, e2e_fmt("jobdeck: %s is owned by uid %d, "
		    "not by this user", a.dir, NOBODY), WAIT_MS);
		ck_assert(term_wait_exit(b.t, WAIT_MS, &status));
		ck_assert_int_eq(WEXITSTATUS(status), 2);
		term_close(b.t);
		ck_assert_int_eq(chown(a.dir, 0, 0), 0);
	}
	ck_assert_int_eq(chmod(a.dir, 0700), 0);
	assert_deck_works(&a);

	/* A bad name never reaches the file system. */
	CTL_EXPECT(&a, &r, 2, "-S", "../x", "ps");
	ctlres_free(&r);
	deck_open(&b, "a/b", NULL, NULL, env, 1);
	EXPECT_IN(b.t, NULL, "jobdeck: bad deck name: a/b", WAIT_MS);
	ck_assert(term_wait_exit(b.t, WAIT_MS, &status));
	ck_assert_int_eq(WEXITSTATUS(status), 2);
	term_close(b.t);
	term_close(a.t);
}
END_TEST

/*
 * A stopped deck (SIGSTOP) answers nothing: jobdeck ctl gives up after
 * 10 s with a clear message and status 2, both when the kernel takes the
 * connection for the deck and when the deck's backlog is full, so that
 * connect() itself waits.
 */
START_TEST(test_stopped_deck)
{
	static const char *const ps[] = { "ps", NULL };
	struct sockaddr_un	 sun;
	struct deck		 d;
	struct ctlres		 r;
	int64_t			 start, took;
	int			 fds[1024], n = 0, round;

	deck_start(&d, "stopped", NULL);
	ck_assert_int_eq(kill(e2e_deck_pid(d.t), SIGSTOP), 0);
	for (round = 0; round < 2; round++) {
		if (round == 1) {
			/* Fill the backlog: connect() would wait now. */
			memset(&sun, 0, sizeof sun);
			sun.sun_family = AF_UNIX;
			ck_assert(snprintf(sun.sun_path, sizeof sun.sun_path,
			    "%.*s", (int)sizeof sun.sun_path - 1, d.sock) <
			    (int)sizeof sun.sun_path);
			for (n = 0; n < 1024; n++) {
				fds[n] = socket(AF_UNIX, SOCK_STREAM |
				    SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
				if (connect(fds[n], (struct sockaddr *)&sun,
				    sizeof sun) != 0) {
					ck_assert_int_eq(errno, EAGAIN);
					close(fds[n]);
					break;
				}
			}
			ck_assert_int_lt(n, 1024);
		}
		start = term_now_ms();
		ctl_runv_ms(&d, NULL, &r, ps, 25000);
		took = term_now_ms() - start;
		ck_assert_msg(r.status == 2, "ctl ps against a stopped deck "
		    "(round %d): exit %d\nstderr: %s", round, r.status, r.err);
		ck_assert_str_eq(r.err, "jobdeck ctl: deck 'stopped' did not "
		    "answer within 10 s\n");
		ck_assert_str_eq(r.out, "");
		ck_assert_msg(took >= 9000 && took < 20000, "round %d: gave up "
		    "after %lld ms", round, (long long)took);
		ctlres_free(&r);
	}
	ck_assert_int_eq(kill(e2e_deck_pid(d.t), SIGCONT), 0);
	while (n > 0)
		close(fds[--n]);
	assert_deck_works(&d);
	term_close(d.t);
}
END_TEST

/*
 * Streams never time out while the deck lives: events and logs --follow
 * stay quiet for 13 s (longer than the client's 10 s limit) and then
 * still deliver; the deck's keepalives never reach the output.
 */
START_TEST(test_quiet_stream)
{
	static const char *const cmds[] = { "echo hi; read x; echo bye", NULL };
	static const char *const events[] = { "events", NULL };
	static const char *const follow[] = { "logs", "--follow", "1", NULL };
	struct deck	 d;
	struct ctlres	 r;
	struct bg	 ev, fo;
	int64_t		 end;

	deck_start(&d, "quiet", cmds);
	wait_logs(&d, "1", "hi", WAIT_MS);
	bg_start(&d, &ev, events);
	bg_start(&d, &fo, follow);
	ck_assert_msg(bg_wait_text(&d, &fo, "hi\n", WAIT_MS), "follow: %s",
	    fo.buf);
	end = term_now_ms() + 13000;
	while (term_now_ms() < end) {
		bg_pump(&d, &ev, 10);
		bg_pump(&d, &fo, 10);
	}
	ck_assert_msg(!ev.eof && waitpid(ev.pid, NULL, WNOHANG) == 0,
	    "events ended while the deck was quiet: %s", ev.buf);
	ck_assert_msg(!fo.eof && waitpid(fo.pid, NULL, WNOHANG) == 0,
	    "logs --follow ended while the deck was quiet: %s", fo.buf);
	CTL_EXPECT(&d, &r, 0, "send", "1", "\\n");
	ctlres_free(&r);
	ck_assert_int_eq(bg_wait_exit(&d, &fo, WAIT_MS), 0);
	ck_assert_str_eq(fo.buf, "hi\n\nbye\n");
	ck_assert_msg(bg_wait_text(&d, &ev, "\"text\":\"bye\"", WAIT_MS),
	    "events: %s", ev.buf);
	ck_assert_msg(memchr(ev.buf, '\036', ev.len) == NULL, "a keepalive "
	    "in the output of events: %s", ev.buf);
	bg_stop(&ev);
	bg_stop(&fo);
	term_close(d.t);
}
END_TEST

/* Follow a job in the background while send ID TEXT; its exit status. */
static int
follow_send(struct deck *d, const char *id, const char *text, int json)
{
	const char	*args[6];
	struct ctlres	 r;
	struct bg	 b;
	int		 n = 0, status;

	if (json)
		args[n++] = "--json";
	args[n++] = "logs";
	args[n++] = "--follow";
	args[n++] = id;
	args[n] = NULL;
	bg_start(d, &b, args);
	term_pump(d->t, 300);
	if (text != NULL) {
		CTL_EXPECT(d, &r, 0, "send", id, text);
		ctlres_free(&r);
	} else {
		CTL_EXPECT(d, &r, 0, "kill", id);
		ctlres_free(&r);
	}
	status = bg_wait_exit(d, &b, WAIT_MS);
	ck_assert_msg(memchr(b.buf, '\036', b.len) == NULL, "a control line "
	    "in the output of logs --follow %s: %s", id, b.buf);
	bg_stop(&b);
	return status;
}

/*
 * logs --follow exits with the job's status, live and after the end,
 * text and JSON alike: its exit code, 128+N for signal N, 124 when it
 * timed out, and a canceled job's own status (143 for SIGTERM).
 */
START_TEST(test_follow_status)
{
	static const char	 text[] =
	    "[[job]]\nname = \"slow\"\ncommand = \"sleep 100\"\n"
	    "timeout = 1\n"
	    "[[job]]\nname = \"three\"\ncommand = \"read x; exit 3\"\n"
	    "[[job]]\nname = \"killed\"\n"
	    "command = \"read x; kill -KILL $$$$\"\n"
	    "[[job]]\nname = \"long\"\ncommand = \"sleep 100\"\n"
	    "[[job]]\nname = \"fine\"\ncommand = \"echo fine\"\n";
	static const char *const slow[] = { "logs", "--follow", "slow", NULL };
	struct deck		 d;
	struct ctlres		 r;
	struct bg		 b;
	struct jsonread		*j;
	const char		*opts[3], *last;
	char			 dir[] = "/tmp/jobdeck-ctl-cfg.XXXXXX";

	opts[0] = "-c";
	opts[1] = config_write(text, dir);
	opts[2] = NULL;
	deck_open(&d, "fstatus", opts, NULL, NULL, 0);

	bg_start(&d, &b, slow);
	ck_assert_int_eq(bg_wait_exit(&d, &b, WAIT_MS), 124);
	bg_stop(&b);
	ck_assert_int_eq(follow_send(&d, "three", "\\n", 0), 3);
	ck_assert_int_eq(follow_send(&d, "killed", "\\n", 1), 128 + SIGKILL);
	ck_assert_int_eq(follow_send(&d, "long", NULL, 0), 128 + SIGTERM);

	/* After the end: all of it, then the same status. */
	CTL_EXPECT(&d, &r, 3, "logs", "--follow", "three");
	ck_assert_str_eq(r.out, "\n");
	ck_assert_str_eq(r.err, "");
	ctlres_free(&r);
	CTL_EXPECT(&d, &r, 3, "--json", "logs", "--follow", "three");
	ck_assert_msg(r.outlen > 0 && r.out[r.outlen - 1] == '\n' &&
	    memchr(r.out, '\036', r.outlen) == NULL, "follow --json: %s",
	    r.out);
	r.out[r.outlen - 1] = '\0';
	last = strrchr(r.out, '\n') != NULL ? strrchr(r.out, '\n') + 1 :
	    r.out;
	j = json_parse(last);
	ck_assert_str_eq(json_str(j, "event"), "exited");
	ck_assert_int_eq((int)json_num(j, "exit_code"), 3);
	ck_assert_str_eq(json_str(j, "state"), "failed");
	jsonread_free(j);
	ctlres_free(&r);
	CTL_EXPECT(&d, &r, 128 + SIGKILL, "logs", "-f", "killed");
	ctlres_free(&r);
	CTL_EXPECT(&d, &r, 124, "logs", "-f", "slow");
	ctlres_free(&r);
	j = wait_state(&d, "fine", "completed", WAIT_MS);
	jsonread_free(j);
	CTL_EXPECT(&d, &r, 0, "logs", "--follow", "fine");
	ck_assert_str_eq(r.out, "fine\n");
	ctlres_free(&r);
	/* Plain logs is not a stream: it says nothing of the job's end. */
	CTL_EXPECT(&d, &r, 0, "logs", "three");
	ctlres_free(&r);
	term_close(d.t);
	unlink(opts[1]);
	rmdir(dir);
}
END_TEST

/*
 * A client that stops reading while its reply waits is dropped after
 * about 5 s (CTL_WRITE_TIMEOUT_MS); one that reads slowly but steadily
 * is not; others are served all along.
 */
START_TEST(test_write_timeout)
{
	static const char *const cmds[] = { "seq 1 1000000", NULL };
	struct deck	 d;
	struct jsonread	*j;
	struct pollfd	 pfd;
	char		 buf[16384];
	int64_t		 start, now, hup = 0, next_read;
	size_t		 got = 0, want;
	ssize_t		 n;
	int		 stalled, slow, i;

	deck_start(&d, "wtimeout", cmds);
	j = wait_state(&d, "1", "completed", 30000);
	jsonread_free(j);
	/* "0\n", then 1..9 (2 bytes each), 10..99 (3)... 1000000 (8). */
	for (want = 2, i = 1; i <= 1000000; i++)
		want += (size_t)snprintf(buf, sizeof buf, "%d\n", i);
	stalled = sock_connect(d.sock);
	slow = sock_connect(d.sock);
	ck_assert_int_eq(sock_write(stalled, "logs 1\n", 7), 0);
	ck_assert_int_eq(sock_write(slow, "logs 1\n", 7), 0);
	fcntl(slow, F_SETFL, O_NONBLOCK);
	start = next_read = term_now_ms();
	while ((now = term_now_ms()) - start < 15000 && hup == 0) {
		if (now >= next_read) {
			n = read(slow, buf, sizeof buf);
			ck_assert_msg(n != 0, "the slow reader was dropped "
			    "after %zu bytes", got);
			if (n > 0)
				got += (size_t)n;
			next_read = now + 500;
		}
		pfd.fd = stalled;
		pfd.events = 0;
		if (poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLHUP))
			hup = now - start;
		term_pump(d.t, 20);
	}
	ck_assert_msg(hup != 0, "a client that read nothing for 15 s was "
	    "kept");
	ck_assert_msg(hup >= 4000, "a client that stopped reading was "
	    "dropped after %lld ms, before the 5 s limit", (long long)hup);
	pfd.fd = slow;
	pfd.events = 0;
	ck_assert_msg(poll(&pfd, 1, 0) == 0, "the slow reader was dropped "
	    "(revents 0x%x) after %zu bytes", pfd.revents, got);
	assert_deck_works(&d);
	free(sock_reply(&d, stalled, WAIT_MS, &got));
	ck_assert_msg(got < want, "the dropped client got all %zu bytes",
	    got);
	close(stalled);
	close(slow);
	term_close(d.t);
}
END_TEST

/*
 * logs streams a big log whole and in order, as text and as JSON, and
 * logs --follow catches up with a big log before it goes on live.
 */
START_TEST(test_logs_stream)
{
	static const char *const cmds[] = {
		"seq 1 200000; printf tail",
		"seq 1 100000; read x; echo last",
		"seq 1 20000; printf tail",
		NULL
	};
	static const char *const follow[] = { "logs", "--follow", "2", NULL };
	struct deck		 d;
	struct ctlres		 r;
	struct bg		 b;
	struct jsonread		*j;
	const struct jsonread	*lines;
	char			*want, *want2;
	size_t			 len = 0, len2 = 0;
	int			 i;

	want = malloc(200000 * 8 + 16);
	ck_assert_ptr_nonnull(want);
	for (i = 1; i <= 200000; i++) {
		len += (size_t)sprintf(want + len, "%d\n", i);
		if (i == 100000)
			len2 = len;
	}
	len += (size_t)sprintf(want + len, "tail\n");
	deck_start(&d, "stream", cmds);
	j = wait_state(&d, "1", "completed", 30000);
	jsonread_free(j);
	CTL_EXPECT(&d, &r, 0, "logs", "1");
	ck_assert_msg(r.outlen == len && memcmp(r.out, want, len) == 0,
	    "logs 1: %zu bytes, want %zu", r.outlen, len);
	ctlres_free(&r);
	/* (Smaller: the test's JSON reader is slow under ASan.) */
	j = wait_state(&d, "3", "completed", 30000);
	jsonread_free(j);
	CTL_EXPECT(&d, &r, 0, "logs", "--json", "3");
	j = json_parse(r.out);
	ck_assert_int_eq((int)json_num(j, "id"), 3);
	lines = jsonread_get(j, "lines");
	ck_assert_int_eq(jsonread_count(lines), 20001);
	ck_assert_str_eq(jsonread_string(jsonread_index(lines, 0), NULL), "1");
	ck_assert_str_eq(jsonread_string(jsonread_index(lines, 19999), NULL),
	    "20000");
	ck_assert_str_eq(jsonread_string(jsonread_index(lines, 20000), NULL),
	    "tail");
	jsonread_free(j);
	ctlres_free(&r);

	wait_logs(&d, "2", "\n100000\n", 30000);
	bg_start(&d, &b, follow);
	ck_assert_msg(bg_wait_text(&d, &b, "\n100000\n", 30000),
	    "follow caught up to %zu bytes", b.len);
	CTL_EXPECT(&d, &r, 0, "send", "2", "\\n");
	ctlres_free(&r);
	ck_assert_int_eq(bg_wait_exit(&d, &b, WAIT_MS), 0);
	want2 = malloc(len2 + 16);
	ck_assert_ptr_nonnull(want2);
	memcpy(want2, want, len2);
	memcpy(want2 + len2, "\nlast\n", 7);
	ck_assert_msg(b.len == len2 + 6 && memcmp(b.buf, want2, len2 + 6) ==
	    0, "follow: %zu bytes, want %zu", b.len, len2 + 6);
	bg_stop(&b);
	free(want);
	free(want2);
	term_close(d.t);
}
END_TEST

/*
 * A stream client that shuts down its side after the request still gets
 * its stream; one that closes is let go at once, so 140 of them in a row
 * never fill the table.
 */
START_TEST(test_stream_close)
{
	struct deck	 d;
	struct ctlres	 r;
	char		 head[2], buf[4096];
	size_t		 len = 0;
	ssize_t		 n;
	int64_t		 end;
	int		 fd, i;

	deck_start(&d, "sclose", NULL);
	fd = sock_connect(d.sock);
	ck_assert_int_eq(sock_write(fd, "events\n", 7), 0);
	ck_assert_int_eq(shutdown(fd, SHUT_WR), 0);
	ck_assert_int_eq(term_read_fd(d.t, fd, head, 2, WAIT_MS), 2);
	term_pump(d.t, 300);
	CTL_EXPECT(&d, &r, 0, "spawn", "echo half-closed");
	ctlres_free(&r);
	fcntl(fd, F_SETFL, O_NONBLOCK);
	end = term_now_ms() + WAIT_MS;
	while (term_now_ms() < end && (len == 0 || memmem(buf, len,
	    "half-closed\"", 12) == NULL) && len < sizeof buf - 1) {
		n = read(fd, buf + len, sizeof buf - 1 - len);
		if (n > 0)
			len += (size_t)n;
		ck_assert_msg(n != 0, "a half-closed events client was dropped");
		term_pump(d.t, 10);
	}
	ck_assert_msg(memmem(buf, len, "half-closed\"", 12) != NULL,
	    "half-closed events client: %.*s", (int)len, buf);
	close(fd);

	for (i = 0; i < 140; i++) {
		fd = sock_connect(d.sock);
		ck_assert_int_eq(sock_write(fd, "events\n", 7), 0);
		ck_assert_int_eq(term_read_fd(d.t, fd, head, 2, WAIT_MS), 2);
		ck_assert_msg(head[0] == '0', "events client %d: %.2s", i,
		    head);
		close(fd);
	}
	assert_deck_works(&d);
	term_close(d.t);
}
END_TEST

/*
 * The output store through the control socket: the program's lines (a
 * line longer than the pane is one line; combining marks stay) in logs,
 * logs --follow and status; a prompt without its newline in status
 * --incremental and, after a quiet time, in events (partial); on a deck
 * without ptys, stderr lines tagged in events.
 */
START_TEST(test_store_lines)
{
	static const char *const events[] = { "events", NULL };
	static const char *const nopty[] = { "JOBDECK_NO_PTY=1", NULL };
	struct deck		 d;
	struct ctlres		 r;
	struct bg		 b;
	struct jsonread		*j;
	char			 longline[101];

	memset(longline, 'a', 100);
	longline[100] = '\0';
	deck_start(&d, "lines", NULL);
	bg_start(&d, &b, events);
	term_pump(d.t, 200);
	CTL_EXPECT(&d, &r, 0, "spawn", "--name", "long", "--",
	    "head -c 100 /dev/zero | tr '\\0' a; echo; "
	    "printf 'e\\314\\201\\n'");
	ctlres_free(&r);
	jsonread_free(wait_state(&d, "long", "completed", WAIT_MS));
	CTL_EXPECT(&d, &r, 0, "logs", "long");
	ck_assert_str_eq(r.out, e2e_fmt("%s\ne\xcc\x81\n", longline));
	ctlres_free(&r);
	CTL_EXPECT(&d, &r, 0, "status", "long");
	ck_assert_msg(strstr(r.out, e2e_fmt("\n%s\n", longline)) != NULL,
	    "status: %s", r.out);
	ctlres_free(&r);
	ck_assert_msg(bg_wait_text(&d, &b, e2e_fmt("\"text\":\"%s\",\"line\":1,"
	    "\"stream\":\"stdout\"", longline), WAIT_MS), "events: %s",
	    b.buf);

	/* A prompt: partial in status --incremental, then in events. */
	CTL_EXPECT(&d, &r, 0, "spawn", "--name", "pw", "--",
	    "printf 'Password: '; read x; echo got $x");
	ctlres_free(&r);
	/* Text as shown: trailing blanks are not kept. */
	ck_assert_msg(bg_wait_text(&d, &b, "\"text\":\"Password:\",\"line\":1,"
	    "\"stream\":\"stdout\",\"partial\":true}", WAIT_MS),
	    "events: %s", b.buf);
	CTL_EXPECT(&d, &r, 0, "status", "--json", "--incremental", "pw");
	j = json_parse(r.out);
	ck_assert_str_eq(json_str(j, "output"), "Password:");
	ck_assert(jsonread_bool(jsonread_get(j, "output_partial")));
	jsonread_free(j);
	ctlres_free(&r);
	/* Not again while it has not grown. */
	CTL_EXPECT(&d, &r, 0, "status", "--json", "--incremental", "pw");
	j = json_parse(r.out);
	ck_assert_str_eq(json_str(j, "output"), "");
	jsonread_free(j);
	ctlres_free(&r);
	CTL_EXPECT(&d, &r, 0, "send", "pw", "s3\\n");
	ctlres_free(&r);
	jsonread_free(wait_state(&d, "pw", "completed", WAIT_MS));
	CTL_EXPECT(&d, &r, 0, "status", "--json", "--incremental", "pw");
	j = json_parse(r.out);
	ck_assert_str_eq(json_str(j, "output"), "Password: s3\ngot s3\n");
	jsonread_free(j);
	ctlres_free(&r);
	bg_stop(&b);
	term_close(d.t);

	/* Pipes: stderr is told from stdout. */
	deck_open(&d, "pipes", NULL, NULL, nopty, 0);
	bg_start(&d, &b, events);
	term_pump(d.t, 200);
	CTL_EXPECT(&d, &r, 0, "spawn", "--", "echo out1; echo err1 >&2; "
	    "echo out2");
	ctlres_free(&r);
	ck_assert_msg(bg_wait_text(&d, &b, "\"text\":\"err1\",\"line\":",
	    WAIT_MS), "events: %s", b.buf);
	ck_assert_msg(bg_wait_text(&d, &b, "\"text\":\"out2\"", WAIT_MS),
	    "events: %s", b.buf);
	ck_assert_msg(strstr(b.buf, "\"text\":\"err1\",\"line\":2,\"stream\":"
	    "\"stderr\"") != NULL || strstr(b.buf, "\"text\":\"err1\","
	    "\"line\":1,\"stream\":\"stderr\"") != NULL ||
	    strstr(b.buf, "\"text\":\"err1\",\"line\":3,\"stream\":"
	    "\"stderr\"") != NULL, "events: %s", b.buf);
	ck_assert_msg(strstr(b.buf, "\"text\":\"out1\",\"line\":") != NULL &&
	    strstr(strstr(b.buf, "\"text\":\"out1\""), "\"stream\":\"stdout\"")
	    != NULL, "events: %s", b.buf);
	bg_stop(&b);
	term_close(d.t);
}
END_TEST

/*
 * max_log_size caps a flood: the run keeps its newest segments on disk
 * (not more than the cap and a segment), logs starts after the dropped
 * lines and ends with the last one.
 */
START_TEST(test_store_cap)
{
	struct deck	 d;
	struct ctlres	 r;
	struct jsonread	*j;
	char		 path[PATH_MAX], cmd[PATH_MAX + 64], *nl;
	FILE		*f;
	long		 kib, lines = 0, dropped = 0;

	snprintf(path, sizeof path, "/tmp/jobdeck-cap-%ld.toml",
	    (long)getpid());
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "[settings]\nmax_log_size = 1\n");
	fclose(f);
	{
		const char *const o[] = { "-c", path, NULL };

		deck_open(&d, "cap", o, NULL, NULL, 0);
	}
	CTL_EXPECT(&d, &r, 0, "spawn", "--name", "flood", "--",
	    "yes | head -c 6000000; echo LAST");
	ctlres_free(&r);
	j = wait_state(&d, "flood", "completed", 60000);
	snprintf(cmd, sizeof cmd, "du -sk %s", json_str(j, "log"));
	jsonread_free(j);
	f = popen(cmd, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fscanf(f, "%ld", &kib), 1);
	pclose(f);
	ck_assert_msg(kib <= 1024 + 256 + 64, "the run uses %ld KiB", kib);
	ctl_runv_ms(&d, NULL, &r, (const char *const []){ "logs", "flood",
	    NULL }, 60000);
	ck_assert_int_eq(r.status, 0);
	for (nl = r.out; (nl = strchr(nl, '\n')) != NULL; nl++)
		lines++;
	ck_assert_msg(lines > 100000 && lines < 1000000, "%ld lines", lines);
	ck_assert_msg(r.outlen > 5 && strcmp(r.out + r.outlen - 5, "LAST\n")
	    == 0, "ends: %s", r.out + (r.outlen > 20 ? r.outlen - 20 : 0));
	ck_assert_msg(strncmp(r.out, "y\n", 2) == 0, "starts: %.20s", r.out);
	ctlres_free(&r);
	/* JSON says how many lines the cap dropped before the first. */
	ctl_runv_ms(&d, NULL, &r, (const char *const []){ "--json", "logs",
	    "flood", NULL }, 60000);
	ck_assert_int_eq(r.status, 0);
	/*
	 * 6,000,000 bytes of "y\n", then LAST.  (Read from the head of the
	 * document: parsing 300,000 strings is slow under AddressSanitizer.)
	 */
	ck_assert_msg(strncmp(r.out, "{\"id\":1,\"dropped\":", 18) == 0 &&
	    sscanf(r.out + 18, "%ld", &dropped) == 1, "logs --json: %.80s",
	    r.out);
	ck_assert_msg(dropped + lines == 3000001, "%ld dropped and %ld kept "
	    "of 3000001 lines", dropped, lines);
	ctlres_free(&r);
	unlink(path);
	term_close(d.t);
}
END_TEST

/*
 * status --incremental on a run past its cap: the lines the cap dropped
 * are not passed over silently (output_truncated), and one call gives at
 * most the last 1000 lines new since the last, not the whole run.
 */
START_TEST(test_store_incremental_cap)
{
	struct deck	 d;
	struct ctlres	 r;
	struct jsonread	*j;
	char		 path[PATH_MAX];
	const char	*out, *nl;
	FILE		*f;
	long		 lines = 0;

	snprintf(path, sizeof path, "/tmp/jobdeck-inccap-%ld.toml",
	    (long)getpid());
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "[settings]\nmax_log_size = 1\n");
	fclose(f);
	{
		const char *const o[] = { "-c", path, NULL };

		deck_open(&d, "inccap", o, NULL, NULL, 0);
	}
	CTL_EXPECT(&d, &r, 0, "spawn", "--name", "flood", "--",
	    "yes | head -c 4000000; echo LAST");
	ctlres_free(&r);
	jsonread_free(wait_state(&d, "flood", "completed", 60000));
	CTL_EXPECT(&d, &r, 0, "status", "--json", "--incremental", "flood");
	j = json_parse(r.out);
	out = json_str(j, "output");
	for (nl = out; (nl = strchr(nl, '\n')) != NULL; nl++)
		lines++;
	ck_assert_msg(jsonread_bool(jsonread_get(j, "output_truncated")),
	    "the dropped lines are not said to be left out");
	ck_assert_msg(lines <= 1000, "%ld lines in one status", lines);
	ck_assert_msg(strlen(out) >= 5 && strcmp(out + strlen(out) - 5,
	    "LAST\n") == 0, "ends: %s", out + (strlen(out) > 20 ?
	    strlen(out) - 20 : 0));
	jsonread_free(j);
	ctlres_free(&r);
	unlink(path);
	term_close(d.t);
}
END_TEST

/*
 * History across decks: a deck SIGKILLed while its job ran leaves the
 * run; the next deck on the same state directory lists it as lost
 * (list --all, history --json), its logs read by run id, rerun starts it
 * again.
 */
START_TEST(test_store_history)
{
	struct deck		 a, b;
	struct ctlres		 r;
	struct jsonread		*j;
	const struct jsonread	*runs, *run;
	char			 env[PATH_MAX + 32], runid[64], newrun[64];
	const char		*envv[2];
	pid_t			 sleeper;
	int64_t			 end;
	size_t			 i;
	int			 lost = 0;

	deck_start(&a, "hist", NULL);
	CTL_EXPECT(&a, &r, 0, "spawn", "--name", "sleeper", "--",
	    "echo before-the-crash; exec sleep 1000");
	ctlres_free(&r);
	wait_logs(&a, "sleeper", "before-the-crash", WAIT_MS);
	j = wait_state(&a, "sleeper", "running", WAIT_MS);
	snprintf(runid, sizeof runid, "%s", json_str(j, "run"));
	sleeper = (pid_t)json_num(j, "pid");
	jsonread_free(j);
	ck_assert_int_eq(strlen(runid), 24);
	ck_assert_int_eq(kill(e2e_deck_pid(a.t), SIGKILL), 0);
	term_wait_exit(a.t, WAIT_MS, NULL);

	snprintf(env, sizeof env, "XDG_STATE_HOME=%s/state",
	    term_tmpdir(a.t));
	envv[0] = env;
	envv[1] = NULL;
	deck_open(&b, "hist2", NULL, NULL, envv, 0);
	/* What the dead deck left running is ended by the next one. */
	ck_assert_msg(term_wait_pid_dead(b.t, sleeper, WAIT_MS),
	    "the dead deck's job %ld still runs", (long)sleeper);
	end = term_now_ms() + WAIT_MS;
	while (!lost) {
		ck_assert_msg(term_now_ms() < end, "not lost");
		CTL_EXPECT(&b, &r, 0, "history", "--json");
		j = json_parse(r.out);
		runs = jsonread_get(j, "runs");
		for (i = 0; i < jsonread_count(runs); i++) {
			run = jsonread_index(runs, i);
			if (strcmp(json_str(run, "run"), runid) == 0 &&
			    strcmp(json_str(run, "state"), "lost") == 0)
				lost = 1;
		}
		jsonread_free(j);
		ctlres_free(&r);
		term_pump(b.t, 50);
	}
	CTL_EXPECT(&b, &r, 0, "list", "--all");
	ck_assert_msg(strstr(r.out, runid) != NULL && strstr(r.out, "lost")
	    != NULL, "list --all: %s", r.out);
	ctlres_free(&r);
	CTL_EXPECT(&b, &r, 0, "logs", runid);
	ck_assert_str_eq(r.out, "before-the-crash\n");
	ctlres_free(&r);
	CTL_EXPECT(&b, &r, 0, "rerun", runid);
	ctlres_free(&r);
	wait_logs(&b, "sleeper", "before-the-crash", WAIT_MS);
	j = wait_state(&b, "sleeper", "running", WAIT_MS);
	ck_assert_str_ne(json_str(j, "run"), runid);
	snprintf(newrun, sizeof newrun, "%s", json_str(j, "run"));
	jsonread_free(j);

	/* A search finds both runs, of both decks, the newest first. */
	CTL_EXPECT(&b, &r, 0, "grep", "before-the");
	ck_assert_msg(strstr(r.out, e2e_fmt("%s [1 sleeper]:1: before-the-crash\n",
	    newrun)) == r.out && strstr(r.out, e2e_fmt("\n%s [1 sleeper]:1: "
	    "before-the-crash\n", runid)) != NULL, "grep: %s", r.out);
	ctlres_free(&r);
	CTL_EXPECT(&b, &r, 0, "--json", "grep", "-i", "BEFORE");
	/* One object a line: the first is the newest run's. */
	ck_assert_ptr_nonnull(strchr(r.out, '\n'));
	*strchr(r.out, '\n') = '\0';
	j = json_parse(r.out);
	ck_assert_str_eq(json_str(j, "run"), newrun);
	ck_assert_str_eq(json_str(j, "text"), "before-the-crash");
	jsonread_free(j);
	ctlres_free(&r);
	CTL_EXPECT(&b, &r, 1, "grep", "no-such-words");
	ck_assert_str_eq(r.out, "");
	ctlres_free(&r);
	CTL_EXPECT(&b, &r, 1, "grep", "-E", "(");
	ck_assert_msg(strstr(r.err, "bad pattern") != NULL, "%s", r.err);
	ctlres_free(&r);
	CTL_EXPECT(&b, &r, 0, "kill-all");
	ctlres_free(&r);
	term_close(b.t);
	term_close(a.t);
}
END_TEST

/*
 * Start a deck named name in a PID namespace of its own (unshare), so
 * its pid and its jobs' pids are the same every time, as in a container;
 * state is the XDG_STATE_HOME it shares with the deck before it.  It
 * sees the machine's cgroups but not its processes: its token names its
 * PID namespace, so it never takes another deck's cgroup for a dead
 * deck's (it did, and killed the jobs of decks run beside this test).
 */
static void
deck_open_pidns(struct deck *d, const char *name, const char *state)
{
	const char	*argv[] = { "/usr/bin/unshare", "--pid", "--fork",
	    "--mount-proc", "--kill-child", bin_path(), "-c", "/dev/null", "-S",
	    name, NULL };
	const char	*env[] = { state, NULL };

	memset(d, 0, sizeof *d);
	snprintf(d->name, sizeof d->name, "%s", name);
	d->t = term_start(argv, state != NULL ? env : NULL);
	ck_assert_msg(d->t != NULL, "cannot start unshare: %s",
	    strerror(errno));
	ck_assert(snprintf(d->run, sizeof d->run, "%s/run",
	    term_tmpdir(d->t)) < (int)sizeof d->run);
	ck_assert(snprintf(d->dir, sizeof d->dir, "%s/jobdeck", d->run) <
	    (int)sizeof d->dir);
	ck_assert(snprintf(d->sock, sizeof d->sock, "%s/%s.sock", d->dir,
	    name) < (int)sizeof d->sock);
	EXPECT_IN(d->t, &panel, "Processes (", WAIT_MS);
}

/*
 * Two decks, one after the other, each in a fresh PID namespace (the
 * same pids, as in a container), on one state directory: the second
 * deck's job 1 shows its own output only.  (The logs were named
 * PID-ID.log, so the second deck's job 1 got the first's output too.)
 */
START_TEST(test_store_pid_reuse)
{
	struct deck	 a, b;
	struct ctlres	 r;
	char		 env[PATH_MAX + 32];

	if (geteuid() != 0)
		TEST_SKIP("needs root for a PID namespace");
	NEED("unshare");
	deck_open_pidns(&a, "pidns", NULL);
	CTL_EXPECT(&a, &r, 0, "spawn", "--", "echo from-the-first-deck");
	ctlres_free(&r);
	wait_logs(&a, "1", "from-the-first-deck", WAIT_MS);
	CTL_EXPECT(&a, &r, 0, "quit");
	ctlres_free(&r);
	term_wait_exit(a.t, WAIT_MS, NULL);

	snprintf(env, sizeof env, "XDG_STATE_HOME=%s/state",
	    term_tmpdir(a.t));
	deck_open_pidns(&b, "pidns", env);
	/* The sockets live in the deck's own XDG_RUNTIME_DIR. */
	CTL_EXPECT(&b, &r, 0, "spawn", "--", "echo from-the-second-deck");
	ctlres_free(&r);
	wait_logs(&b, "1", "from-the-second-deck", WAIT_MS);
	CTL_EXPECT(&b, &r, 0, "logs", "1");
	ck_assert_str_eq(r.out, "from-the-second-deck\n");
	ctlres_free(&r);
	term_close(b.t);
	term_close(a.t);
}
END_TEST

/*
 * A deck in a PID namespace of its own and a deck outside it, on one
 * machine's cgroups: neither takes the other for a dead deck.  The one
 * inside starts while the outer one's job runs, and a new outer deck
 * starts while the inner one's job runs; both jobs live on.  (A deck
 * judged others by pids of its own namespace: it SIGKILLed their jobs and
 * cgroups, and an outer deck killed a container deck's jobs by marker.)
 */
START_TEST(test_pidns_decks_apart)
{
	struct deck	 out, in, next;
	struct ctlres	 r;
	struct jsonread	*j;

	if (geteuid() != 0)
		TEST_SKIP("needs root for a PID namespace");
	NEED("unshare");
	deck_start(&out, "outer", NULL);
	CTL_EXPECT(&out, &r, 0, "spawn", "--name", "o", "--",
	    "echo outer-up; exec sleep 1000");
	ctlres_free(&r);
	wait_logs(&out, "o", "outer-up", WAIT_MS);
	/* The inner deck answers once its start (and its sweep) is over. */
	deck_open_pidns(&in, "inner", NULL);
	CTL_EXPECT(&in, &r, 0, "spawn", "--name", "i", "--",
	    "echo inner-up; exec sleep 1000");
	ctlres_free(&r);
	wait_logs(&in, "i", "inner-up", WAIT_MS);
	deck_start(&next, "outer2", NULL);
	CTL_EXPECT(&next, &r, 0, "ps");
	ctlres_free(&r);
	j = wait_state(&out, "o", "running", WAIT_MS);
	jsonread_free(j);
	j = wait_state(&in, "i", "running", WAIT_MS);
	jsonread_free(j);
	assert_deck_works(&out);
	term_close(next.t);
	term_close(in.t);
	term_close(out.t);
}
END_TEST

/*
 * Assert that a ctl result is the read-only socket's refusal of what:
 * status 1 and "what: not allowed here: ..." naming the commands that
 * only look.
 */
static void
assert_ro_refused(const struct ctlres *r, const char *what)
{
	const char	*want;

	want = e2e_fmt("jobdeck ctl: %s: not allowed here: this connection "
	    "may only look (ps, list, status, ", what);
	ck_assert_msg(r->status == 1, "%s: exit %d, not 1\nstdout: %s\n"
	    "stderr: %s", what, r->status, r->out, r->err);
	ck_assert_msg(strncmp(r->err, want, strlen(want)) == 0 &&
	    strstr(r->err, ", help") != NULL && strchr(r->err, '\n') ==
	    r->err + strlen(r->err) - 1, "%s: stderr %s", what, r->err);
	ck_assert_msg(r->out[0] == '\0', "%s: stdout %s", what, r->out);
}

/*
 * Everything that only looks works through the read-only socket (jobdeck
 * ctl -r): ps, list, status, logs, grep, history, help, browser status,
 * wait, and the streams logs --follow and events.
 */
START_TEST(test_ro_reads)
{
	static const char *const cmds[] = { "echo ro-out; sleep 100", NULL };
	static const char *const events[] = { "-r", "events", NULL };
	struct deck	 d;
	struct ctlres	 r;
	struct jsonread	*j;
	struct bg	 b;

	deck_start(&d, "roreads", cmds);
	wait_logs(&d, "1", "ro-out", WAIT_MS);

	CTL_EXPECT(&d, &r, 0, "-r", "ps");
	ck_assert_msg(strncmp(r.out, "ID ", 3) == 0 && strstr(r.out,
	    "sleep 100") != NULL, "ps: %s", r.out);
	ctlres_free(&r);
	CTL_EXPECT(&d, &r, 0, "--read-only", "--json", "list");
	j = json_parse(r.out);
	ck_assert_int_eq(jsonread_count(jsonread_get(j, "jobs")), 1);
	jsonread_free(j);
	ctlres_free(&r);
	CTL_EXPECT(&d, &r, 0, "-r", "status", "--json", "1");
	j = json_parse(r.out);
	ck_assert_str_eq(json_str(j, "state"), "running");
	ck_assert_msg(strstr(json_str(j, "output"), "ro-out\n") != NULL,
	    "output: %s", json_str(j, "output"));
	jsonread_free(j);
	ctlres_free(&r);
	CTL_EXPECT(&d, &r, 0, "-r", "status", "1");
	ck_assert_msg(strstr(r.out, "state:    running") != NULL, "status: %s",
	    r.out);
	ctlres_free(&r);
	CTL_EXPECT(&d, &r, 0, "-r", "logs", "1");
	ck_assert_str_eq(r.out, "ro-out\n");
	ctlres_free(&r);
	CTL_EXPECT(&d, &r, 0, "-r", "grep", "ro-o");
	ck_assert_msg(strstr(r.out, "ro-out") != NULL, "grep: %s", r.out);
	ctlres_free(&r);
	CTL_EXPECT(&d, &r, 0, "-r", "history", "--all");
	ctlres_free(&r);
	CTL_EXPECT(&d, &r, 0, "-r", "help");
	ck_assert_msg(strstr(r.out, "kill") != NULL, "help: %s", r.out);
	ctlres_free(&r);
	ctl_run(&d, &r, "-r", "browser", "status", (const char *)NULL);
	ck_assert_msg(strstr(r.err, "not allowed") == NULL, "browser status: "
	    "%s", r.err);
	ctlres_free(&r);
	/* wait: a running job times out (status 124); an ended one answers. */
	CTL_EXPECT(&d, &r, 124, "-r", "wait", "--timeout", "0.2", "1");
	ck_assert_msg(strstr(r.out, "running (the wait timed out)") != NULL,
	    "wait: %s", r.out);
	ctlres_free(&r);

	/* The streams: events, and logs --follow until the job ends. */
	bg_start(&d, &b, events);
	term_pump(d.t, 200);
	CTL_EXPECT(&d, &r, 0, "spawn", "--name", "later", "--",
	    "sleep 0.5; echo ro-late");
	ctlres_free(&r);
	CTL_EXPECT(&d, &r, 0, "-r", "logs", "--follow", "later");
	ck_assert_str_eq(r.out, "ro-late\n");
	ctlres_free(&r);
	CTL_EXPECT(&d, &r, 0, "-r", "wait", "later");
	ck_assert_str_eq(r.out, "[2] later: completed\n");
	ctlres_free(&r);
	ck_assert_msg(bg_wait_text(&d, &b, "\"text\":\"ro-late\"", WAIT_MS),
	    "events: %s", b.buf);
	bg_stop(&b);
	assert_deck_works(&d);
	term_close(d.t);
}
END_TEST

/*
 * Every command that changes something is refused through the read-only
 * socket, with status 1 and the same words, and the deck is unchanged
 * afterwards: the job runs as it did, no job came or went, the session's
 * cwd and environment are as they were, nothing is focused, the job's
 * incremental mark did not move, and the deck still answers.
 */
START_TEST(test_ro_refused)
{
	static const char *const cmds[] = { "echo ro-keep; sleep 100", NULL };
	static const struct {
		const char	*what;
		const char	*args[6];
	} refused[] = {
		{ "kill", { "kill", "1", NULL } },
		{ "kill", { "kill", "-KILL", "1", NULL } },
		{ "kill-all", { "kill-all", NULL } },
		{ "spawn", { "spawn", "--", "echo nope", NULL } },
		{ "send", { "send", "1", "--", "x", NULL } },
		{ "stop", { "stop", "1", NULL } },
		{ "cont", { "cont", "1", NULL } },
		{ "rm", { "rm", "1", NULL } },
		{ "clear", { "clear", NULL } },
		{ "rename", { "rename", "1", "other", NULL } },
		{ "run", { "run", "web", NULL } },
		{ "restart", { "restart", "1", NULL } },
		{ "rerun", { "rerun", "1", NULL } },
		{ "start-group", { "start-group", "g", NULL } },
		{ "kill-group", { "kill-group", "g", NULL } },
		{ "focus", { "focus", "1", NULL } },
		{ "paste", { "paste", "1", NULL } },
		{ "cd", { "cd", "/", NULL } },
		{ "export", { "export", "RO_VAR=1", NULL } },
		{ "unset", { "unset", "PATH", NULL } },
		{ "browser start", { "browser", "start", NULL } },
		{ "browser stop", { "browser", "stop", NULL } },
		{ "browser restart", { "browser", "restart", NULL } },
		{ "status --incremental", { "status", "--incremental", "1",
		    NULL } },
		{ "quit", { "quit", NULL } },
		{ "quit", { "--json", "quit", NULL } },
		{ "kill", { "!kill", "1", NULL } },
	};
	const char	*args[10];
	struct deck	 d;
	struct ctlres	 r;
	struct jsonread	*j, *job;
	char		*cwd, *reply;
	double		 pid;
	size_t		 i, k;

	deck_start(&d, "rorefuse", cmds);
	wait_logs(&d, "1", "ro-keep", WAIT_MS);
	j = wait_state(&d, "1", "running", WAIT_MS);
	pid = json_num(j, "pid");
	cwd = strdup(json_str(j, "cwd"));
	jsonread_free(j);

	for (i = 0; i < sizeof refused / sizeof refused[0]; i++) {
		args[0] = "-r";
		for (k = 0; refused[i].args[k] != NULL; k++)
			args[k + 1] = refused[i].args[k];
		args[k + 1] = NULL;
		ctl_runv(&d, NULL, &r, args);
		assert_ro_refused(&r, refused[i].what);
		ctlres_free(&r);
	}

	/* Nothing changed: one job, the same, still running, unnamed. */
	CTL_EXPECT(&d, &r, 0, "--json", "list");
	j = json_parse(r.out);
	ck_assert_int_eq(jsonread_count(jsonread_get(j, "jobs")), 1);
	job = (struct jsonread *)jsonread_index(jsonread_get(j, "jobs"), 0);
	ck_assert_int_eq((int)json_num(job, "id"), 1);
	ck_assert_str_eq(json_str(job, "state"), "running");
	ck_assert(json_num(job, "pid") == pid);
	ck_assert(json_is_null(job, "name"));
	jsonread_free(j);
	ctlres_free(&r);
	ck_assert_msg(!term_find(d.t, "[Focused]", NULL, NULL), "a read-only "
	    "client focused a job:\n%s", e2e_dump(d.t));
	/* The job's own incremental mark is where it was: at the start. */
	CTL_EXPECT(&d, &r, 0, "status", "--incremental", "--json", "1");
	j = json_parse(r.out);
	ck_assert_msg(strstr(json_str(j, "output"), "ro-keep") != NULL,
	    "the incremental mark moved: %s", r.out);
	jsonread_free(j);
	ctlres_free(&r);
	/* The session: the cwd and environment a new job gets. */
	CTL_EXPECT(&d, &r, 0, "spawn", "--name", "probe", "--",
	    "echo \"var=${RO_VAR-none} path=${PATH:+set}\"");
	ctlres_free(&r);
	wait_logs(&d, "probe", "var=none path=set", WAIT_MS);
	j = wait_state(&d, "probe", "completed", WAIT_MS);
	ck_assert_str_eq(json_str(j, "cwd"), cwd);
	jsonread_free(j);
	free(cwd);

	/* A raw connection to NAME.ro gets the same answers. */
	reply = sock_request_at(&d, d.ro, "kill 1\n", 7);
	ck_assert_msg(strncmp(reply, "1\nkill: not allowed here: this "
	    "connection may only look (ps, ", 60) == 0, "raw: %s", reply);
	free(reply);
	reply = sock_request_at(&d, d.ro, "--json quit\n", 12);
	ck_assert_msg(strncmp(reply, "1\nquit: not allowed here: ", 26) == 0,
	    "raw: %s", reply);
	free(reply);
	reply = sock_request_at(&d, d.ro, "'status' '--incremental' '1'\n", 29);
	ck_assert_msg(strncmp(reply, "1\nstatus --incremental: not allowed "
	    "here: ", 42) == 0, "raw: %s", reply);
	free(reply);
	reply = sock_request_at(&d, d.ro, "--json ps\n", 10);
	ck_assert_msg(strncmp(reply, "0\n{\"jobs\":[{\"id\":1,", 19) == 0,
	    "raw: %s", reply);
	free(reply);
	reply = sock_request_at(&d, d.ro, "frob\n", 5);
	ck_assert_str_eq(reply, "2\nunknown command: !frob\n");
	free(reply);

	j = wait_state(&d, "1", "running", WAIT_MS);
	ck_assert(json_num(j, "pid") == pid);
	jsonread_free(j);
	assert_deck_works(&d);
	term_close(d.t);
}
END_TEST

/*
 * The read-only socket's file: 0600 beside NAME.sock, gone with it when
 * the deck quits; one left by a deck that died is replaced; one a live
 * listener holds means the name is in use; anything else is refused.
 */
START_TEST(test_ro_socket_file)
{
	struct sockaddr_un	 sun;
	struct deck		 a, b;
	struct ctlres		 r;
	struct stat		 sb;
	const char		*env[2];
	char			 var[PATH_MAX + 32];
	int			 fd, status;

	deck_start(&a, "rofile", NULL);
	ck_assert_int_eq(lstat(a.ro, &sb), 0);
	ck_assert(S_ISSOCK(sb.st_mode));
	ck_assert_int_eq(sb.st_mode & 07777, 0600);
	ck_assert_int_eq(sb.st_uid, geteuid());
	CTL_EXPECT(&a, &r, 0, "quit");
	ctlres_free(&r);
	ck_assert_msg(term_wait_exit(a.t, WAIT_MS, &status), "the deck did "
	    "not quit");
	ck_assert_msg(lstat(a.sock, &sb) == -1 && errno == ENOENT,
	    "NAME.sock is still there");
	ck_assert_msg(lstat(a.ro, &sb) == -1 && errno == ENOENT,
	    "NAME.ro is still there");
	CTL_EXPECT(&a, &r, 2, "-r", "ps");
	ck_assert_str_eq(r.err, e2e_fmt("jobdeck ctl: no deck named rofile is "
	    "running (%s)\n", a.ro));
	ctlres_free(&r);
	term_close(a.t);

	/* A deck killed with SIGKILL leaves both: the next one replaces them. */
	deck_start(&a, "rostale", NULL);
	ck_assert_int_eq(kill(e2e_deck_pid(a.t), SIGKILL), 0);
	ck_assert(term_wait_exit(a.t, WAIT_MS, &status));
	ck_assert_int_eq(lstat(a.ro, &sb), 0);
	snprintf(var, sizeof var, "XDG_RUNTIME_DIR=%s", a.run);
	env[0] = var;
	env[1] = NULL;
	deck_open(&b, "rostale", NULL, NULL, env, 0);
	deck_share_run(&b, &a);
	CTL_EXPECT(&b, &r, 0, "-r", "--json", "ps");
	ck_assert_str_eq(r.out, "{\"jobs\":[]}\n");
	ctlres_free(&r);
	term_close(b.t);

	/* A stale NAME.ro alone, made by hand, likewise. */
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	ck_assert(snprintf(sun.sun_path, sizeof sun.sun_path, "%s/rohand.ro",
	    a.dir) < (int)sizeof sun.sun_path);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sun, sizeof sun), 0);
	close(fd);
	deck_open(&b, "rohand", NULL, NULL, env, 0);
	deck_share_run(&b, &a);
	CTL_EXPECT(&b, &r, 1, "-r", "kill-all");
	ctlres_free(&r);
	CTL_EXPECT(&b, &r, 0, "quit");
	ctlres_free(&r);
	ck_assert(term_wait_exit(b.t, WAIT_MS, &status));
	ck_assert_msg(lstat(sun.sun_path, &sb) == -1 && errno == ENOENT,
	    "rohand.ro is still there");
	term_close(b.t);

	/* Someone listens on NAME.ro: the name is in use. */
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sun, sizeof sun), 0);
	ck_assert_int_eq(listen(fd, 8), 0);
	deck_open(&b, "rohand", NULL, NULL, env, 1);
	EXPECT_IN(b.t, NULL, e2e_fmt("jobdeck: a deck named rohand is running "
	    "(%s)", sun.sun_path), WAIT_MS);
	ck_assert(term_wait_exit(b.t, WAIT_MS, &status));
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 2,
	    "status %d", status);
	term_close(b.t);
	ck_assert_msg(lstat(b.sock, &sb) == -1 && errno == ENOENT,
	    "the deck that gave way left rohand.sock");
	ck_assert_int_eq(lstat(sun.sun_path, &sb), 0);
	close(fd);
	unlink(sun.sun_path);

	/* A NAME.ro that is no socket is not touched. */
	fd = open(sun.sun_path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	ck_assert_int_ne(fd, -1);
	close(fd);
	deck_open(&b, "rohand", NULL, NULL, env, 1);
	EXPECT_IN(b.t, NULL, e2e_fmt("jobdeck: %s exists and is not a socket",
	    sun.sun_path), WAIT_MS);
	ck_assert(term_wait_exit(b.t, WAIT_MS, &status));
	ck_assert_int_eq(WEXITSTATUS(status), 2);
	term_close(b.t);
	ck_assert_int_eq(lstat(sun.sun_path, &sb), 0);
	ck_assert(S_ISREG(sb.st_mode));
	term_close(a.t);
}
END_TEST

/*
 * Without XDG_RUNTIME_DIR (an MCP client starts its server with a few
 * variables only), the socket directory is /run/user/UID when that is
 * the user's own 0700 directory, as XDG_RUNTIME_DIR would be there, and
 * not /tmp/jobdeck-UID: a deck of a desktop session and `jobdeck mcp`
 * started bare find each other.  Needs root to make /run/user/0 (or a
 * user whose /run/user/UID exists).
 */
START_TEST(test_runtime_fallback)
{
	char		 dir[64], deck[64], sock[256], cmd[1024];
	int		 made = 0, rc, left;
	struct stat	 sb;

	snprintf(dir, sizeof dir, "/run/user/%ld", (long)geteuid());
	if (stat(dir, &sb) != 0) {
		if (geteuid() != 0 || mkdir(dir, 0700) != 0)
			TEST_SKIP("no %s, and not root to make it", dir);
		made = 1;
	} else if (sb.st_uid != geteuid() || (sb.st_mode & 077) != 0)
		TEST_SKIP("%s is not this user's own 0700 directory", dir);
	snprintf(deck, sizeof deck, "jd-rt-%ld", (long)getpid());
	snprintf(sock, sizeof sock, "%s/jobdeck/%s.sock", dir, deck);
	/* The deck with nothing set; ctl as a session would run it. */
	snprintf(cmd, sizeof cmd, "env -u XDG_RUNTIME_DIR %s up --stay -S %s "
	    "</dev/null >/dev/null 2>&1 & i=0; while [ ! -S %s ] && "
	    "[ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done; "
	    "XDG_RUNTIME_DIR=%s %s ctl -S %s ps >/dev/null && "
	    "XDG_RUNTIME_DIR=%s %s ctl -S %s quit >/dev/null", e2e_bin(), deck,
	    sock, dir, e2e_bin(), deck, dir, e2e_bin(), deck);
	rc = system(cmd);
	/* Wherever it went, the deck leaves. */
	snprintf(cmd, sizeof cmd, "env -u XDG_RUNTIME_DIR %s ctl -S %s quit "
	    ">/dev/null 2>&1", e2e_bin(), deck);
	(void)system(cmd);
	snprintf(cmd, sizeof cmd, "i=0; while [ -e %s ] && [ $i -lt 100 ]; "
	    "do sleep 0.05; i=$((i+1)); done; [ ! -e %s ]", sock, sock);
	left = system(cmd);
	/* The lock stays by design: the directory goes with it. */
	snprintf(cmd, sizeof cmd, "%s/jobdeck/%s.lock", dir, deck);
	(void)unlink(cmd);
	snprintf(cmd, sizeof cmd, "%s/jobdeck", dir);
	(void)rmdir(cmd);
	if (made)
		(void)rmdir(dir);
	ck_assert_msg(rc == 0, "no deck met at %s", sock);
	ck_assert_msg(left == 0, "%s left", sock);
}
END_TEST

/*
 * A prompt line that exports a variable too large to pass to programs
 * shows an error naming it, and the session goes on: ctl cd answers 0
 * with the new directory (it answered 0 with the old one: the session
 * froze once env -0 failed) and ctl session shows it, without BIG.
 */
START_TEST(test_session_big_variable)
{
	static const char *const env[] = { "SHELL=/bin/sh", NULL };
	struct deck	 d;
	struct ctlres	 r;
	char		 sub[PATH_MAX], want[PATH_MAX + 16];

	deck_open(&d, "sessbig", NULL, NULL, env, 0);
	snprintf(sub, sizeof sub, "%s/after", term_tmpdir(d.t));
	ck_assert_int_eq(mkdir(sub, 0700), 0);
	term_type(d.t, "export BIG=$(printf '%0200000d' 0)");
	term_key(d.t, TERM_KEY_ENTER);
	EXPECT_IN(d.t, &bottom, "BIG is too large", WAIT_MS);
	CTL_EXPECT(&d, &r, 0, "cd", sub);
	ck_assert_msg(strstr(r.out, sub) != NULL, "cd answered: %s", r.out);
	ctlres_free(&r);
	CTL_EXPECT(&d, &r, 0, "--json", "session");
	snprintf(want, sizeof want, "\"cwd\":\"%s\"", sub);
	ck_assert_msg(strstr(r.out, want) != NULL &&
	    strstr(r.out, "\"BIG\"") == NULL, "session: %s", r.out);
	ctlres_free(&r);
	term_close(d.t);
}
END_TEST

/*
 * Long-lived clients lock no one out: 130 `wait` clients on NAME.sock
 * and 130 on NAME.ro (more than CTL_CLIENTS_MAX each) are all served,
 * `ctl ps` and `ctl kill` still answer, and the kill's end reaches every
 * wait.
 */
START_TEST(test_wait_flood)
{
	static const char *const cmds[] = { "sleep 300", NULL };
	struct deck	 d;
	struct ctlres	 r;
	char		 head[2], *reply;
	int		 fds[260], i;

	deck_start(&d, "waitflood", cmds);
	EXPECT_IN(d.t, &panel, "[1] sleep 300", WAIT_MS);
	for (i = 0; i < 260; i++) {
		fds[i] = sock_connect(i < 130 ? d.sock : d.ro);
		/* (A refused client may be closed before it writes.) */
		(void)sock_write(fds[i], "wait 1\n", 7);
		if (i % 32 == 31)
			term_pump(d.t, 50);
	}
	for (i = 0; i < 260; i++) {
		ck_assert_int_eq(term_read_fd(d.t, fds[i], head, 2, WAIT_MS),
		    2);
		ck_assert_msg(head[0] == '0' && head[1] == '\n', "wait client "
		    "%d (%s): %.2s%s", i, i < 130 ? "NAME.sock" : "NAME.ro",
		    head, head[0] != '0' ? sock_reply(&d, fds[i], WAIT_MS,
		    NULL) : "");
	}
	CTL_EXPECT(&d, &r, 0, "ps");
	ck_assert_msg(strstr(r.out, "sleep 300") != NULL, "ps: %s", r.out);
	ctlres_free(&r);
	CTL_EXPECT(&d, &r, 0, "kill", "1");
	ctlres_free(&r);
	for (i = 0; i < 260; i++) {
		reply = sock_reply(&d, fds[i], WAIT_MS, NULL);
		ck_assert_msg(reply != NULL, "wait client %d: no answer", i);
		ck_assert_msg(strstr(reply, "[1] sleep 300: canceled") !=
		    NULL && strstr(reply, "\036exit 143\n") != NULL,
		    "wait client %d: %s", i, reply);
		free(reply);
		close(fds[i]);
	}
	assert_deck_works(&d);
	term_close(d.t);
}
END_TEST

/*
 * `ctl logs` of a live job whose run in the store is damaged (its index
 * removed, as a user freeing disk might) gives the job's terminal lines,
 * as !logs does, instead of nothing with status 0, and says the run is
 * damaged, with status 1.
 */
START_TEST(test_logs_damaged_run)
{
	struct deck		 d;
	struct ctlres		 r;
	struct jsonread		*j;
	char			 path[PATH_MAX + 64];

	deck_start(&d, "damaged", NULL);
	CTL_EXPECT(&d, &r, 0, "spawn", "--name", "w", "--",
	    "echo before-the-damage; exec sleep 1000");
	ctlres_free(&r);
	wait_logs(&d, "w", "before-the-damage", WAIT_MS);
	j = wait_state(&d, "w", "running", WAIT_MS);
	snprintf(path, sizeof path, "%s/state/jobdeck/runs/%s/idx.0",
	    term_tmpdir(d.t), json_str(j, "run"));
	jsonread_free(j);
	ck_assert_msg(unlink(path) == 0, "%s: %s", path, strerror(errno));
	CTL_EXPECT(&d, &r, 1, "logs", "w");
	ck_assert_msg(strstr(r.out, "before-the-damage") != NULL,
	    "logs of the damaged run gave: \"%s\"", r.out);
	ck_assert_msg(strstr(r.err, "jobdeck ctl: logs: runs/") != NULL &&
	    strstr(r.err, "is damaged: it has no index (idx.N)") != NULL,
	    "stderr: %s", r.err);
	ctlres_free(&r);
	assert_deck_works(&d);
	term_close(d.t);
}
END_TEST

/*
 * A grep over a run the store cannot read passes it over and says so on
 * stderr (the deck's "\036error" and "\036damaged N" lines); the other
 * runs are searched.
 */
START_TEST(test_grep_damaged_run)
{
	struct deck		 d;
	struct ctlres		 r;
	struct jsonread		*j;
	char			 path[PATH_MAX + 64];

	deck_start(&d, "grepdamaged", NULL);
	CTL_EXPECT(&d, &r, 0, "spawn", "--name", "cut", "--",
	    "echo needle-one; exec sleep 1000");
	ctlres_free(&r);
	CTL_EXPECT(&d, &r, 0, "spawn", "--name", "whole", "--",
	    "echo needle-two; exec sleep 1000");
	ctlres_free(&r);
	wait_logs(&d, "cut", "needle-one", WAIT_MS);
	wait_logs(&d, "whole", "needle-two", WAIT_MS);
	j = wait_state(&d, "cut", "running", WAIT_MS);
	snprintf(path, sizeof path, "%s/state/jobdeck/runs/%s/idx.0",
	    term_tmpdir(d.t), json_str(j, "run"));
	jsonread_free(j);
	ck_assert_msg(unlink(path) == 0, "%s: %s", path, strerror(errno));
	CTL_EXPECT(&d, &r, 0, "grep", "needle");
	ck_assert_msg(strstr(r.out, "needle-two") != NULL &&
	    strstr(r.out, "needle-one") == NULL, "grep gave: %s", r.out);
	ck_assert_msg(strstr(r.err, "jobdeck ctl: 1 run is damaged in the "
	    "store: searched up to its damage") != NULL && strstr(r.err,
	    "jobdeck ctl: grep: runs/") != NULL && strstr(r.err,
	    "is damaged: it has no index (idx.N)") != NULL,
	    "stderr: %s", r.err);
	ctlres_free(&r);
	assert_deck_works(&d);
	term_close(d.t);
}
END_TEST

/* Return the path of a file of a run in the deck's store (static). */
static const char *
run_file(struct deck *d, const char *run, const char *name)
{
	static char	path[PATH_MAX + 96];

	snprintf(path, sizeof path, "%s/state/jobdeck/runs/%s/%s",
	    term_tmpdir(d->t), run, name);
	return path;
}

/*
 * Damage the record in the middle of a run's idx.0 (the 32 bytes the
 * store writes: offset, line, time, length, stream, starts): kind 0 gives
 * it no bytes, 1 points it past out.0, 2 forges its line number.
 */
static void
damage_record(struct deck *d, const char *run, int kind)
{
	struct stat	sb;
	uint64_t	v;
	uint32_t	len;
	off_t		at;
	int		fd;

	fd = open(run_file(d, run, "idx.0"), O_RDWR);
	ck_assert_msg(fd != -1 && fstat(fd, &sb) == 0, "idx.0: %s",
	    strerror(errno));
	ck_assert_int_ge(sb.st_size / 32, 8);
	at = sb.st_size / 32 / 2 * 32;
	if (kind == 0) {
		len = 0;
		ck_assert_int_eq(pwrite(fd, &len, 4, at + 24), 4);
	} else {
		ck_assert_int_eq(pread(fd, &v, 8, at + (kind == 1 ? 0 : 8)),
		    8);
		v += kind == 1 ? 1024 * 1024 : 1;
		ck_assert_int_eq(pwrite(fd, &v, 8, at + (kind == 1 ? 0 : 8)),
		    8);
	}
	close(fd);
}

/*
 * Check that out holds lines "1", "2", ... each on its own, n of them
 * (the last may be cut short: the part of its line before the damage);
 * return n.
 */
static long
count_seq_lines(const char *out)
{
	const char	*p = out, *nl;
	char		 num[24];
	long		 n = 0;

	while ((nl = strchr(p, '\n')) != NULL) {
		n++;
		snprintf(num, sizeof num, "%ld", n);
		ck_assert_msg((nl - p == (int)strlen(num) || nl[1] == '\0') &&
		    nl - p <= (int)strlen(num) && strncmp(p, num,
		    (size_t)(nl - p)) == 0, "line %ld is \"%.*s\"", n,
		    (int)(nl - p), p);
		p = nl + 1;
	}
	ck_assert_msg(*p == '\0', "no newline after: %s", p);
	return n;
}

/*
 * Damage inside a run's index, where the checks of a segment's first and
 * last records cannot see it (a record with no bytes, one pointing past
 * out.0, a forged line number): `ctl logs` of the job and of its run give
 * every line up to the damage, each the right one, then say the run is
 * damaged and what was cut, with status 1 (text and --json); status
 * --since (what MCP reads) says so in "output_error"; !logs RUN's view
 * says so on its last line.  (They ended early with status 0, and no word
 * of damage.)
 */
START_TEST(test_logs_damaged_middle)
{
	struct deck		 d;
	struct ctlres		 r;
	struct jsonread		*j;
	char			 name[16], run[64], run0[64], want[160];
	long			 n;
	int			 kind;

	deck_start(&d, "middle", NULL);
	for (kind = 0; kind < 3; kind++) {
		snprintf(name, sizeof name, "d%d", kind);
		CTL_EXPECT(&d, &r, 0, "spawn", "--name", name, "--",
		    "seq 1 20000");
		ctlres_free(&r);
		j = wait_state(&d, name, "completed", WAIT_MS);
		snprintf(run, sizeof run, "%s", json_str(j, "run"));
		jsonread_free(j);
		damage_record(&d, run, kind);
		if (kind == 0)
			memcpy(run0, run, sizeof run0);

		CTL_EXPECT(&d, &r, 1, "logs", name);
		n = count_seq_lines(r.out);
		ck_assert_msg(n > 0 && n < 20000, "kind %d: %ld lines", kind,
		    n);
		snprintf(want, sizeof want, "jobdeck ctl: logs: runs/%s is "
		    "damaged: idx.0 ", run);
		ck_assert_msg(strstr(r.err, want) != NULL, "kind %d: %s", kind,
		    r.err);
		snprintf(want, sizeof want, "; cut after line %ld", n);
		ck_assert_msg(strstr(r.err, want) != NULL, "kind %d: %s", kind,
		    r.err);
		ctlres_free(&r);

		CTL_EXPECT(&d, &r, 1, "logs", run);
		ck_assert_int_eq(count_seq_lines(r.out), n);
		ck_assert_msg(strstr(r.err, want) != NULL, "kind %d: %s", kind,
		    r.err);
		ctlres_free(&r);

		CTL_EXPECT(&d, &r, 1, "--json", "logs", name);
		j = json_parse(r.out);
		ck_assert_int_eq(jsonread_count(jsonread_get(j, "lines")), n);
		ck_assert_msg(strstr(json_str(j, "error"), want) != NULL,
		    "kind %d: %s", kind, r.out);
		jsonread_free(j);
		ctlres_free(&r);

		CTL_EXPECT(&d, &r, 0, "--json", "status", "--since", "0:0",
		    "--max-bytes", "1048576", name);
		j = json_parse(r.out);
		ck_assert_msg(jsonread_get(j, "output_error") != NULL &&
		    strstr(json_str(j, "output_error"), want) != NULL,
		    "kind %d: %s", kind, r.out);
		jsonread_free(j);
		ctlres_free(&r);
	}

	/*
	 * The view: its end is where the damage is, its last line says
	 * what it is (the search for the end meets the record: it is in the
	 * middle).
	 */
	snprintf(want, sizeof want, "!logs %s", run0);
	term_type(d.t, want);
	term_key(d.t, TERM_KEY_ENTER);
	EXPECT_IN(d.t, NULL, "Logs ", WAIT_MS);
	term_type(d.t, "G");
	EXPECT_IN(d.t, NULL, "is damaged: idx.0 holds a record the store",
	    WAIT_MS);
	term_type(d.t, "q");
	assert_deck_works(&d);
	term_close(d.t);
}
END_TEST

/*
 * A FIFO where a run's file should be (rm out.0; mkfifo out.0) is refused
 * ("not a regular file"), never opened to wait on: `ctl grep` searches
 * the other runs and says the run is damaged, `ctl logs RUN` says why,
 * and `ctl ps` answers.  (The deck's loop blocked in open(): ctl grep
 * and even ctl ps hung, reachable from the read-only socket.)
 */
START_TEST(test_fifo_run_file)
{
	struct deck		 d;
	struct ctlres		 r;
	struct jsonread		*j;
	char			 run[64], want[160];

	deck_start(&d, "fifo", NULL);
	CTL_EXPECT(&d, &r, 0, "spawn", "--name", "f", "--",
	    "echo needle-fifo");
	ctlres_free(&r);
	CTL_EXPECT(&d, &r, 0, "spawn", "--name", "g", "--",
	    "echo needle-whole");
	ctlres_free(&r);
	j = wait_state(&d, "f", "completed", WAIT_MS);
	snprintf(run, sizeof run, "%s", json_str(j, "run"));
	jsonread_free(j);
	jsonread_free(wait_state(&d, "g", "completed", WAIT_MS));
	ck_assert_int_eq(unlink(run_file(&d, run, "out.0")), 0);
	ck_assert_int_eq(mkfifo(run_file(&d, run, "out.0"), 0600), 0);

	CTL_EXPECT(&d, &r, 0, "-r", "grep", "needle");
	ck_assert_msg(strstr(r.out, "needle-whole") != NULL &&
	    strstr(r.out, "needle-fifo") == NULL, "grep gave: %s", r.out);
	snprintf(want, sizeof want, "jobdeck ctl: grep: runs/%s is damaged: "
	    "out.0: not a regular file", run);
	ck_assert_msg(strstr(r.err, want) != NULL, "stderr: %s", r.err);
	ctlres_free(&r);
	CTL_EXPECT(&d, &r, 1, "logs", run);
	snprintf(want, sizeof want, "jobdeck ctl: logs: runs/%s is damaged: "
	    "out.0: not a regular file", run);
	ck_assert_msg(strstr(r.err, want) != NULL, "stderr: %s", r.err);
	ctlres_free(&r);
	CTL_EXPECT(&d, &r, 0, "ps");
	ck_assert_msg(strstr(r.out, "needle-whole") != NULL, "ps: %s", r.out);
	ctlres_free(&r);
	assert_deck_works(&d);
	term_close(d.t);
}
END_TEST

/* Build the suite: one test case per test, each with its own timeout. */
/*
 * Start `jobdeck up --stay [-c cfg] -S name` headless (on a terminal the
 * test reads, no screen drawn), with the socket directory of share when
 * it is not NULL, and wait until its socket answers.
 */
static void
deck_up(struct deck *d, const char *name, const char *cfg,
    const struct deck *share)
{
	const char	*opts[6], *env[2];
	char		 var[PATH_MAX + 32];
	struct ctlres	 r;
	int64_t		 end;
	size_t		 n = 0;

	opts[n++] = "up";
	opts[n++] = "--stay";
	if (cfg != NULL) {
		opts[n++] = "-c";
		opts[n++] = cfg;
	}
	opts[n] = NULL;
	env[0] = NULL;
	if (share != NULL) {
		snprintf(var, sizeof var, "XDG_RUNTIME_DIR=%s", share->run);
		env[0] = var;
		env[1] = NULL;
	}
	deck_open(d, name, opts, NULL, env, 1);
	if (share != NULL)
		deck_share_run(d, share);
	end = term_now_ms() + 2 * WAIT_MS;
	for (;;) {
		ctl_run(d, &r, "ps", NULL);
		if (r.status == 0)
			break;
		ck_assert_msg(term_now_ms() < end && term_pid_alive(term_pid(
		    d->t)), "deck %s does not answer: %d %s\n%s", name,
		    r.status, r.err, e2e_dump(d->t));
		ctlres_free(&r);
		term_pump(d->t, 50);
	}
	ctlres_free(&r);
}

/* Run `jobdeck ls` (with --json if json) with d's socket directory. */
static void
ls_run(struct deck *d, struct ctlres *r, int json)
{
	const char	*argv[4];

	argv[0] = bin_path();
	argv[1] = "ls";
	argv[2] = json ? "--json" : NULL;
	argv[3] = NULL;
	bin_runv_ms(d, r, argv, 2 * CTL_WAIT_MS);
}

/*
 * Return the line of `jobdeck ls`'s table that starts with name and a
 * blank (static), or fail.
 */
static const char *
ls_line(const char *out, const char *name)
{
	static char	 line[1024];
	const char	*p = out, *nl;
	size_t		 len = strlen(name);

	while (*p != '\0') {
		nl = strchr(p, '\n');
		if (nl == NULL)
			nl = p + strlen(p);
		if ((size_t)(nl - p) > len && strncmp(p, name, len) == 0 &&
		    p[len] == ' ') {
			snprintf(line, sizeof line, "%.*s", (int)(nl - p), p);
			return line;
		}
		p = *nl == '\0' ? nl : nl + 1;
	}
	ck_abort_msg("no line for %s in:\n%s", name, out);
	return NULL;
}

/*
 * Check a row of `jobdeck ls`'s table: name, pid, a start in UTC, jobs
 * (running/total), clients and configuration.
 */
static void
ls_check_row(const char *out, const char *name, pid_t pid, const char *jobs,
    const char *config, const char *started_at)
{
	const char	*line = ls_line(out, name);
	char		 n[64], started[64], j[32], cfg[PATH_MAX];
	long		 p;
	int		 clients;

	ck_assert_msg(sscanf(line, "%63s %ld %63s %31s %d %4095s", n, &p,
	    started, j, &clients, cfg) == 6, "bad row: %s", line);
	ck_assert_str_eq(n, name);
	ck_assert_int_eq(p, pid);
	ck_assert_str_eq(started, started_at);
	ck_assert_str_eq(j, jobs);
	ck_assert_int_eq(clients, 0);
	ck_assert_str_eq(cfg, config);
}

/*
 * Check one object of `jobdeck ls --json` (or `ctl --json deck`): every
 * member, by value where the test knows it; its started_at returned.
 */
static const char *
ls_check_object(const struct jsonread *o, const char *name, pid_t pid,
    int jobs, int running, const char *config)
{
	const char	*at;
	int64_t		 now = (int64_t)time(NULL);

	ck_assert_int_eq(jsonread_type(o), JSONREAD_OBJECT);
	ck_assert_uint_eq(jsonread_count(o), 8);
	ck_assert_str_eq(json_str(o, "name"), name);
	ck_assert_int_eq((pid_t)json_num(o, "pid"), pid);
	ck_assert_msg(json_num(o, "started") > (double)(now - 600) &&
	    json_num(o, "started") <= (double)now, "started %.0f, now %lld",
	    json_num(o, "started"), (long long)now);
	at = json_str(o, "started_at");
	ck_assert_msg(strlen(at) == 24 && at[10] == 'T' && at[23] == 'Z',
	    "started_at %s", at);
	ck_assert_int_eq((int)json_num(o, "jobs"), jobs);
	ck_assert_int_eq((int)json_num(o, "running"), running);
	ck_assert_int_eq((int)json_num(o, "clients"), 0);
	if (config == NULL)
		ck_assert_msg(json_is_null(o, "config"), "config not null");
	else
		ck_assert_str_eq(json_str(o, "config"), config);
	return at;
}

/*
 * jobdeck ls lists the user's running decks: two decks started headless
 * (up --stay), one with a configuration and a job, one without, are
 * listed by name with their pids, jobs and configuration, as a table and
 * as JSON, in the order of their names; ctl deck says the same.  Once one
 * is SIGKILLed, its socket (left behind) is passed over without a word;
 * with none left, or no socket directory at all, ls prints nothing, or
 * [], and exits 0.
 */
START_TEST(test_ls)
{
	struct deck	 a, b, none;
	struct ctlres	 r;
	struct jsonread	*j;
	struct stat	 sb;
	char		 dir[] = "/tmp/jd-ls.XXXXXX", cfg[PATH_MAX];
	char		 at_a[64], at_b[64];
	int		 status;

	ck_assert_ptr_nonnull(realpath(config_write("[[job]]\n"
	    "name = \"nap\"\ncommand = \"sleep 300\"\n", dir), cfg));
	deck_up(&a, "ls-a", cfg, NULL);
	deck_up(&b, "ls-b", NULL, &a);
	jsonread_free(wait_state(&a, "nap", "running", WAIT_MS));

	/* JSON: both, in the order of their names, every member. */
	ls_run(&a, &r, 1);
	ck_assert_msg(r.status == 0 && r.err[0] == '\0', "ls --json: %d %s",
	    r.status, r.err);
	j = json_parse(r.out);
	ck_assert_int_eq(jsonread_type(j), JSONREAD_ARRAY);
	ck_assert_uint_eq(jsonread_count(j), 2);
	snprintf(at_a, sizeof at_a, "%s", ls_check_object(jsonread_index(j,
	    0), "ls-a", term_pid(a.t), 1, 1, cfg));
	snprintf(at_b, sizeof at_b, "%s", ls_check_object(jsonread_index(j,
	    1), "ls-b", term_pid(b.t), 0, 0, NULL));
	jsonread_free(j);
	ctlres_free(&r);

	/* ctl deck, the command ls asks, says the same of one deck. */
	CTL_EXPECT(&a, &r, 0, "--json", "deck");
	j = json_parse(r.out);
	ck_assert_str_eq(ls_check_object(j, "ls-a", term_pid(a.t), 1, 1, cfg),
	    at_a);
	jsonread_free(j);
	ctlres_free(&r);

	/* The table: a header, then a row a deck. */
	ls_run(&a, &r, 0);
	ck_assert_msg(r.status == 0 && r.err[0] == '\0', "ls: %d %s",
	    r.status, r.err);
	ck_assert_msg(strncmp(r.out, "NAME  PID ", 10) == 0 &&
	    strstr(r.out, " STARTED ") != NULL && strstr(r.out, " JOBS ") !=
	    NULL && strstr(r.out, " CLIENTS  CONFIG\n") != NULL, "header: %s",
	    r.out);
	ls_check_row(r.out, "ls-a", term_pid(a.t), "1/1", cfg, at_a);
	ls_check_row(r.out, "ls-b", term_pid(b.t), "0/0", "-", at_b);
	ck_assert_msg(strstr(r.out, "\nls-a ") != NULL && strstr(r.out,
	    "\nls-a ") < strstr(r.out, "\nls-b "), "not in order: %s", r.out);
	ctlres_free(&r);

	/* A deck killed with SIGKILL leaves its socket: passed over. */
	ck_assert_int_eq(kill(term_pid(b.t), SIGKILL), 0);
	ck_assert(term_wait_exit(b.t, WAIT_MS, &status));
	ck_assert_int_eq(lstat(b.sock, &sb), 0);
	ck_assert(S_ISSOCK(sb.st_mode));
	ls_run(&a, &r, 0);
	ck_assert_msg(r.status == 0 && r.err[0] == '\0', "ls: %d %s",
	    r.status, r.err);
	ls_check_row(r.out, "ls-a", term_pid(a.t), "1/1", cfg, at_a);
	ck_assert_msg(strstr(r.out, "ls-b") == NULL, "%s", r.out);
	ctlres_free(&r);
	ls_run(&a, &r, 1);
	ck_assert_int_eq(r.status, 0);
	j = json_parse(r.out);
	ck_assert_uint_eq(jsonread_count(j), 1);
	ls_check_object(jsonread_index(j, 0), "ls-a", term_pid(a.t), 1, 1,
	    cfg);
	jsonread_free(j);
	ctlres_free(&r);

	/* None left (the stale socket still there): nothing, or []. */
	CTL_EXPECT(&a, &r, 0, "quit");
	ctlres_free(&r);
	ck_assert(term_wait_exit(a.t, 2 * WAIT_MS, &status));
	ck_assert_int_eq(lstat(b.sock, &sb), 0);
	ls_run(&a, &r, 0);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out, "");
	ck_assert_str_eq(r.err, "");
	ctlres_free(&r);
	ls_run(&a, &r, 1);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out, "[]\n");
	ck_assert_str_eq(r.err, "");
	ctlres_free(&r);

	/* No socket directory at all: the same. */
	memset(&none, 0, sizeof none);
	snprintf(none.run, sizeof none.run, "%s/run", dir);
	ls_run(&none, &r, 1);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out, "[]\n");
	ck_assert_str_eq(r.err, "");
	ctlres_free(&r);
	ls_run(&none, &r, 0);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out, "");
	ctlres_free(&r);

	term_close(b.t);
	term_close(a.t);
	unlink(cfg);
	rmdir(dir);
}
END_TEST

/*
 * A deck that does not answer (SIGSTOPped) is named on stderr after the
 * client's time limit and ls exits 1, the others listed all the same;
 * once it goes on, it is listed again.  ls goes with --help and refuses
 * an operand or an unknown option with its usage (status 2).
 */
START_TEST(test_ls_stopped)
{
	static const char *const usage[][4] = {
		{ "ls", "extra", NULL, NULL },
		{ "ls", "--frob", NULL, NULL },
	};
	struct deck	 a, b;
	struct ctlres	 r;
	const char	*argv[5];
	size_t		 i;

	deck_up(&a, "ls-stop", NULL, NULL);
	deck_up(&b, "ls-go", NULL, &a);
	ck_assert_int_eq(kill(term_pid(a.t), SIGSTOP), 0);
	ls_run(&b, &r, 0);
	ck_assert_msg(r.status == 1, "ls: %d %s", r.status, r.err);
	ck_assert_str_eq(r.err, "jobdeck ls: ls-stop: deck 'ls-stop' did "
	    "not answer within 10 s\n");
	ls_line(r.out, "ls-go");
	ck_assert_msg(strstr(r.out, "ls-stop") == NULL, "%s", r.out);
	ctlres_free(&r);
	ck_assert_int_eq(kill(term_pid(a.t), SIGCONT), 0);
	ls_run(&b, &r, 0);
	ck_assert_msg(r.status == 0 && r.err[0] == '\0', "ls: %d %s",
	    r.status, r.err);
	ls_line(r.out, "ls-go");
	ls_line(r.out, "ls-stop");
	ctlres_free(&r);

	argv[0] = bin_path();
	argv[1] = "ls";
	argv[2] = "--help";
	argv[3] = NULL;
	bin_runv_ms(&b, &r, argv, CTL_WAIT_MS);
	ck_assert_int_eq(r.status, 0);
	ck_assert_msg(strncmp(r.out, "usage: jobdeck ls [-H DEST] [--json]\n",
	    37) == 0, "%s", r.out);
	ctlres_free(&r);
	for (i = 0; i < sizeof usage / sizeof usage[0]; i++) {
		argv[1] = usage[i][0];
		argv[2] = usage[i][1];
		bin_runv_ms(&b, &r, argv, CTL_WAIT_MS);
		ck_assert_int_eq(r.status, 2);
		ck_assert_str_eq(r.out, "");
		ck_assert_msg(strstr(r.err, "usage: jobdeck ls [-H DEST] "
		    "[--json]\n") != NULL, "%s", r.err);
		ctlres_free(&r);
	}
	term_close(b.t);
	term_close(a.t);
}
END_TEST

/* A socket bound at dir/name, listening when listening is set; its fd. */
static int
ls_fake_socket(const char *dir, const char *name, int listening)
{
	struct sockaddr_un	sun;
	int			fd;

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ck_assert_int_ne(fd, -1);
	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	ck_assert(snprintf(sun.sun_path, sizeof sun.sun_path, "%s/%s", dir,
	    name) < (int)sizeof sun.sun_path);
	ck_assert_msg(bind(fd, (struct sockaddr *)&sun, sizeof sun) == 0,
	    "bind %s: %s", sun.sun_path, strerror(errno));
	if (listening)
		ck_assert_int_eq(listen(fd, 8), 0);
	return fd;
}

/*
 * Fork a fake deck on each listening fd: it takes one connection, reads
 * the request to its end (it must ask `--json deck`) and writes the
 * reply of the same index; the child exits 0 when each was served, 1
 * if a request was not ls's, 2 after 20 s.
 */
static pid_t
ls_fake_decks(const int *fds, const char *const *replies, int n)
{
	struct pollfd	pfd[8];
	char		req[256];
	size_t		len;
	ssize_t		r;
	pid_t		pid;
	int		i, c, left = n, bad = 0;

	pid = fork();
	ck_assert_int_ne(pid, -1);
	if (pid != 0)
		return pid;
	for (i = 0; i < n; i++) {
		pfd[i].fd = fds[i];
		pfd[i].events = POLLIN;
	}
	while (left > 0) {
		if (poll(pfd, (nfds_t)n, 20000) <= 0)
			_exit(2);
		for (i = 0; i < n; i++) {
			if (pfd[i].fd == -1 || !(pfd[i].revents & POLLIN))
				continue;
			if ((c = accept(pfd[i].fd, NULL, NULL)) == -1)
				_exit(2);
			len = 0;
			while (len < sizeof req - 1 && (r = read(c, req + len,
			    sizeof req - 1 - len)) > 0)
				len += (size_t)r;
			req[len] = '\0';
			if (strstr(req, "--json") == NULL ||
			    strstr(req, "deck") == NULL)
				bad = 1;
			if (write(c, replies[i], strlen(replies[i])) < 0)
				bad = 1;
			close(c);
			pfd[i].fd = -1;
			left--;
		}
	}
	_exit(bad);
}

/*
 * What jobdeck ls does with what is not a deck's answer: an error (an
 * older deck that does not know `deck`), JSON that is not an object,
 * text that is not JSON: each named on stderr, status 1, and the deck
 * that answered well listed all the same; a socket with no .ro beside it
 * (nobody to ask), a file that is not a socket and a name no deck can
 * have are passed over without a word.
 */
START_TEST(test_ls_bad_answers)
{
	static const char *const names[] = { "good", "old", "junk", "bad" };
	static const char *const replies[] = {
		"0\n{\"name\":\"good\",\"pid\":42,\"started\":1700000000,"
		    "\"started_at\":\"2023-11-14T22:13:20.000Z\",\"jobs\":3,"
		    "\"running\":2,\"clients\":1,\"config\":\"/c\\u001b.toml\"}"
		    "\n",
		"1\nunknown command: !deck\n",
		"0\n[1,2]\n",
		"0\n{nope\n",
	};
	struct deck	 none;
	struct ctlres	 r;
	char		 dir[] = "/tmp/jd-ls.XXXXXX", *sdir = none.dir;
	char		 file[PATH_MAX + 16], name[80], cmd[PATH_MAX + 16];
	const char	*argv[] = { bin_path(), "ls", NULL };
	int		 fds[4], plain[5], status, i;
	pid_t		 pid;
	FILE		*f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	memset(&none, 0, sizeof none);
	snprintf(none.run, sizeof none.run, "%s/run", dir);
	ck_assert(snprintf(none.dir, sizeof none.dir, "%s/jobdeck",
	    none.run) < (int)sizeof none.dir);
	ck_assert_int_eq(mkdir(none.run, 0700), 0);
	ck_assert_int_eq(mkdir(sdir, 0700), 0);
	for (i = 0; i < 4; i++) {
		snprintf(name, sizeof name, "%s.sock", names[i]);
		plain[i] = ls_fake_socket(sdir, name, 0);
		snprintf(name, sizeof name, "%s.ro", names[i]);
		fds[i] = ls_fake_socket(sdir, name, 1);
	}
	plain[4] = ls_fake_socket(sdir, "lonely.sock", 0);
	close(ls_fake_socket(sdir, "no way.sock", 1));
	snprintf(file, sizeof file, "%s/file.sock", sdir);
	ck_assert_ptr_nonnull(f = fopen(file, "w"));
	fclose(f);

	pid = ls_fake_decks(fds, replies, 4);
	bin_runv_ms(&none, &r, argv, 2 * CTL_WAIT_MS);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "the fake decks: %d", status);
	ck_assert_msg(r.status == 1, "ls: %d\n%s", r.status, r.err);
	ck_assert_str_eq(r.out,
	    "NAME  PID  STARTED                   JOBS  CLIENTS  CONFIG\n"
	    "good  42   2023-11-14T22:13:20.000Z  2/3   1        /c\\e.toml\n");
	ck_assert_msg(strstr(r.err, "jobdeck ls: old: unknown command: "
	    "!deck\n") != NULL, "%s", r.err);
	ck_assert_msg(strstr(r.err, "jobdeck ls: junk: bad answer: array, "
	    "not an object\n") != NULL, "%s", r.err);
	ck_assert_msg(strstr(r.err, "jobdeck ls: bad: bad answer: ") != NULL,
	    "%s", r.err);
	ck_assert_msg(strstr(r.err, "lonely") == NULL && strstr(r.err,
	    "file") == NULL && strstr(r.err, "no way") == NULL, "%s", r.err);
	ctlres_free(&r);

	for (i = 0; i < 4; i++)
		close(fds[i]);
	for (i = 0; i < 5; i++)
		close(plain[i]);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/*
 * A deck with a terminal attached: ls gives the server's pid (not the
 * client's on the terminal) and one client; !deck at its prompt says the
 * same on the screen.
 */
START_TEST(test_ls_clients)
{
	struct deck	 d;
	struct ctlres	 r;
	struct jsonread	*j;
	pid_t		 pid;

	deck_start(&d, "ls-tui", NULL);
	pid = e2e_deck_pid(d.t);
	ck_assert_int_gt(pid, 0);
	ls_run(&d, &r, 1);
	ck_assert_msg(r.status == 0 && r.err[0] == '\0', "ls --json: %d %s",
	    r.status, r.err);
	j = json_parse(r.out);
	ck_assert_uint_eq(jsonread_count(j), 1);
	ck_assert_str_eq(json_str(jsonread_index(j, 0), "name"), "ls-tui");
	ck_assert_int_eq((pid_t)json_num(jsonread_index(j, 0), "pid"), pid);
	ck_assert_int_eq((int)json_num(jsonread_index(j, 0), "clients"), 1);
	jsonread_free(j);
	ctlres_free(&r);

	term_type(d.t, "!deck");
	term_key(d.t, TERM_KEY_ENTER);
	EXPECT_IN(d.t, NULL, "name: ls-tui", WAIT_MS);
	EXPECT_IN(d.t, NULL, e2e_fmt("pid: %ld", (long)pid), WAIT_MS);
	EXPECT_IN(d.t, NULL, "clients: 1", WAIT_MS);
	term_close(d.t);
}
END_TEST

static Suite *
ctl_suite(void)
{
	static const struct e2e_case	cases[] = {
		{ "ps_list", &test_ps_list, 30 },
		{ "status", &test_status, 30 },
		{ "logs", &test_logs, 30 },
		{ "logs_merged", &test_logs_merged, 60 },
		{ "kill_restart_quit", &test_kill_restart_quit, 30 },
		{ "rm_clear_rename", &test_rm_clear_rename, 30 },
		{ "run", &test_run, 30 },
		{ "spawn", &test_spawn, 30 },
		{ "spawn_host", &test_spawn_host, 30 },
		{ "session_socket", &test_session_socket, 30 },
		{ "send", &test_send, 30 },
		{ "events", &test_events, 30 },
		{ "waiting_input", &test_waiting_input, 30 },
		{ "prompt", &test_prompt, 30 },
		{ "malformed", &test_malformed, 30 },
		{ "oversized", &test_oversized, 30 },
		{ "half_sent", &test_half_sent, 30 },
		{ "many_clients", &test_many_clients, 30 },
		{ "client_limit", &test_client_limit, 30 },
		{ "ro_client_limit", &test_ro_client_limit, 30 },
		{ "slowloris", &test_slowloris, 60 },
		{ "stream_close", &test_stream_close, 60 },
		{ "stopped_deck", &test_stopped_deck, 90 },
		{ "quiet_stream", &test_quiet_stream, 60 },
		{ "follow_status", &test_follow_status, 60 },
		{ "write_timeout", &test_write_timeout, 60 },
		{ "logs_stream", &test_logs_stream, 90 },
		{ "slow_reader", &test_slow_reader, 300 },
		{ "other_uid", &test_other_uid, 30 },
		{ "second_deck", &test_second_deck, 30 },
		{ "stale_socket", &test_stale_socket, 30 },
		{ "start_race", &test_start_race, 60 },
		{ "busy_deck", &test_busy_deck, 30 },
		{ "stale_foreign", &test_stale_foreign, 30 },
		{ "dir_perms", &test_dir_perms, 30 },
		{ "runtime_fallback", &test_runtime_fallback, 30 },
		{ "ro_reads", &test_ro_reads, 60 },
		{ "ro_refused", &test_ro_refused, 90 },
		{ "ro_socket_file", &test_ro_socket_file, 60 },
		{ "store_lines", &test_store_lines, 60 },
		{ "store_cap", &test_store_cap, 120 },
		{ "store_incremental_cap", &test_store_incremental_cap, 120 },
		{ "store_history", &test_store_history, 60 },
		{ "store_pid_reuse", &test_store_pid_reuse, 60 },
		{ "pidns_decks_apart", &test_pidns_decks_apart, 60 },
		{ "session_big_variable", &test_session_big_variable, 30 },
		{ "wait_flood", &test_wait_flood, 90 },
		{ "logs_damaged_run", &test_logs_damaged_run, 30 },
		{ "grep_damaged_run", &test_grep_damaged_run, 30 },
		{ "logs_damaged_middle", &test_logs_damaged_middle, 120 },
		{ "fifo_run_file", &test_fifo_run_file, 60 },
		{ "ls", &test_ls, 90 },
		{ "ls_stopped", &test_ls_stopped, 90 },
		{ "ls_bad_answers", &test_ls_bad_answers, 60 },
		{ "ls_clients", &test_ls_clients, 60 },
	};
	Suite				*s = suite_create("ctl");

	e2e_add_cases(s, cases, sizeof cases / sizeof cases[0]);
	return s;
}

/* Run the suite; the exit status says whether every test passed. */
int
main(void)
{
	return e2e_main(ctl_suite());
}

/*
 * check_stack_e2e.c: stacks end to end (issue 13).  Each test writes a
 * configuration and the small scripts its jobs run into a private
 * directory, which is also every job's cwd (their logs land there),
 * starts the real deck on the 120x40 pty with it, and drives it through
 * the real `jobdeck ctl -S NAME ... --json`, parsing what it says
 * (tests/jsonread.h).  Order is never inferred from time slept in the
 * test: jobs append "WHAT <CLOCK_MONOTONIC ns>" lines to files (stamp.py)
 * and the test polls with deadlines, comparing the stamps.
 *
 * Containment: what a probe's command or a stop_command leaves behind
 * (setsid -f) is killed when its attempt or the command ends, when the
 * deck quits, and by the next deck when the deck was SIGKILLed; with a
 * cgroup each (as root, where one can be made) and with the marker alone
 * (JOBDECK_NO_CGROUP=1).
 *
 * Needs python3 (scripts/deps.sh installs it): the TCP listener, the
 * HTTP server (python3 -m http.server) and the stamps.
 */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <netinet/in.h>

#include <dirent.h>
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
#include "skip.h"
#include "testnet.h"
#include "testproc.h"

#define WAIT_MS		10000	/* a state, a file's line, a screen */
#define CTL_MS		10000	/* one jobdeck ctl */
#define QUIET_MS	1500	/* no second restart within this */

static const struct term_rect panel = { 0, 0, 39, 40 };

/* Appends its arguments and the monotonic clock in ns to a file. */
static const char stamp_py[] =
    "import sys, time\n"
    "with open(sys.argv[1], 'a') as f:\n"
    "    f.write(' '.join(sys.argv[2:]) + ' %d\\n' % time.monotonic_ns())\n";

/* A TCP listener that takes a second before it listens. */
static const char listen_py[] =
    "import socket, sys, time\n"
    "port, log = int(sys.argv[1]), sys.argv[2]\n"
    "def stamp(what):\n"
    "    with open(log, 'a') as f:\n"
    "        f.write('%s %d\\n' % (what, time.monotonic_ns()))\n"
    "stamp('db start')\n"
    "time.sleep(1.0)\n"
    "s = socket.socket()\n"
    "s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\n"
    "s.bind(('127.0.0.1', port))\n"
    "s.listen(16)\n"
    "stamp('db listening')\n"
    "while True:\n"
    "    c, _ = s.accept()\n"
    "    c.close()\n";

/* An HTTP server whose /health answers 503 until the file "up" is there. */
static const char health_py[] =
    "import http.server, os, sys\n"
    "class H(http.server.BaseHTTPRequestHandler):\n"
    "    def do_GET(self):\n"
    "        self.send_response(200 if os.path.exists('up') else 503)\n"
    "        self.end_headers()\n"
    "    def log_message(self, *a):\n"
    "        pass\n"
    "http.server.HTTPServer(('127.0.0.1', int(sys.argv[1])), H)"
    ".serve_forever()\n";

/* A deck under test and its directory. */
struct deck {
	struct term	*t;
	char		 name[32];
	char		 run[PATH_MAX];	/* its XDG_RUNTIME_DIR */
	char		 dir[128];	/* config, scripts, the jobs' cwd */
	char		 cfg[256];
	const char	*env;		/* NAME=VALUE for the deck, or NULL */
};

/* A `jobdeck ctl events` left running. */
struct bg {
	pid_t	 pid;
	int	 fd;
	char	*buf;
	size_t	 len;
};

/* Return how many lines of name hold what. */
static int
count_lines(const struct deck *d, const char *name, const char *what)
{
	char		 buf[16384];
	const char	*p = e2e_get_file(d->dir, name, buf, sizeof buf), *nl;
	int		 n = 0;

	for (; *p != '\0'; p = nl + 1) {
		if ((nl = strchr(p, '\n')) == NULL)
			break;
		if (what == NULL || (memmem(p, (size_t)(nl - p), what,
		    strlen(what)) != NULL))
			n++;
	}
	return n;
}

/* Return the stamp of the line of name that starts with what, or -1. */
static long long
stamp_of(const struct deck *d, const char *name, const char *what)
{
	char		 buf[16384];
	const char	*p = e2e_get_file(d->dir, name, buf, sizeof buf);
	size_t		 len = strlen(what);

	for (; p != NULL && *p != '\0'; p = strchr(p, '\n'), p = p != NULL ?
	    p + 1 : NULL) {
		if (strncmp(p, what, len) == 0 && p[len] == ' ')
			return strtoll(p + len + 1, NULL, 10);
	}
	return -1;
}

/* Wait until name has n lines holding what (what NULL: any lines). */
static void
wait_lines(struct deck *d, const char *name, const char *what, int n)
{
	int64_t	end = term_now_ms() + WAIT_MS;
	char	buf[16384];

	while (count_lines(d, name, what) < n) {
		ck_assert_msg(term_now_ms() < end, "%s: not %d lines of %s "
		    "after %d ms:\n%s", name, n, what != NULL ? what : "any",
		    WAIT_MS, e2e_get_file(d->dir, name, buf, sizeof buf));
		term_pump(d->t, 20);
	}
}

/* Make the deck's directory with stamp.py and listen.py in it. */
static void
deck_dir(struct deck *d, const char *name)
{
	const char	*path;
	char		*slash;

	memset(d, 0, sizeof *d);
	snprintf(d->name, sizeof d->name, "%s", name);
	path = e2e_cfg_write("stack.toml", "");
	snprintf(d->cfg, sizeof d->cfg, "%s", path);
	snprintf(d->dir, sizeof d->dir, "%s", path);
	slash = strrchr(d->dir, '/');
	ck_assert_ptr_nonnull(slash);
	*slash = '\0';
	e2e_put_file(d->dir, "stamp.py", stamp_py, 0600);
	e2e_put_file(d->dir, "listen.py", listen_py, 0600);
}

/*
 * Write the configuration toml (each "@" in it stands for the deck's
 * directory) and start the deck on it, named name.
 */
static void
deck_start(struct deck *d, const char *name, const char *toml)
{
	const char	*args[] = { "-c", d->cfg, "-S", name, NULL };
	const char	*env[] = { d->env, NULL };
	char		*text, *q;
	const char	*p;
	size_t		 n = 0;

	text = malloc(strlen(toml) * 4 + strlen(d->dir) * 64 + 1);
	ck_assert_ptr_nonnull(text);
	for (p = toml, q = text; *p != '\0'; p++) {
		if (*p == '@') {
			ck_assert_int_lt(n++, 64);
			q = stpcpy(q, d->dir);
		} else
			*q++ = *p;
	}
	*q = '\0';
	e2e_put_file(d->dir, "stack.toml", text, 0600);
	free(text);
	snprintf(d->name, sizeof d->name, "%s", name);
	d->t = e2e_start(args, d->env != NULL ? env : NULL);
	ck_assert(snprintf(d->run, sizeof d->run, "%s/run",
	    term_tmpdir(d->t)) < (int)sizeof d->run);
}

/* Close the deck's terminal (its jobs die with it). */
static void
deck_close(struct deck *d)
{
	term_close(d->t);
	d->t = NULL;
}

/* Run `jobdeck ctl ARGS...` (NULL-ended) on the deck; its output (to free). */
static char *
ctl(struct deck *d, ...)
{
	va_list	 ap;
	char	*out;

	va_start(ap, d);
	out = e2e_ctl_okv(d->t, d->name, d->run, 0, ap);
	va_end(ap);
	return out;
}

/* Return the job called name of `ctl --json list` (the latest), parsed. */
static struct jsonread *
job_json(struct deck *d, const char *name, const struct jsonread **job)
{
	struct jsonread		*root;
	const struct jsonread	*jobs, *j;
	const char		*jn;
	char			*out, *cause = NULL;
	size_t			 i;

	out = ctl(d, "--json", "list", (const char *)NULL);
	root = jsonread_parse(out, strlen(out), &cause);
	ck_assert_msg(root != NULL, "bad JSON (%s): %s", cause, out);
	free(out);
	jobs = jsonread_get(root, "jobs");
	*job = NULL;
	for (i = 0; i < jsonread_count(jobs); i++) {
		j = jsonread_index(jobs, i);
		jn = jsonread_string(jsonread_get(j, "name"), NULL);
		if (jn != NULL && strcmp(jn, name) == 0)
			*job = j;
	}
	return root;
}

/*
 * Wait until `ctl --json list` says job name's key is want; a failure
 * says what it was.
 */
static void
wait_job(struct deck *d, const char *name, const char *key, const char *want)
{
	const struct jsonread	*job;
	struct jsonread		*root;
	int64_t			 end = term_now_ms() + WAIT_MS;
	char			 was[256];

	for (;;) {
		root = job_json(d, name, &job);
		snprintf(was, sizeof was, "%s", job != NULL ? jsonread_text(job, key) :
		    "(no such job)");
		jsonread_free(root);
		if (strcmp(was, want) == 0)
			return;
		ck_assert_msg(term_now_ms() < end, "job %s: %s is \"%s\", not "
		    "\"%s\", after %d ms\n%s", name, key, was, want, WAIT_MS,
		    e2e_dump(d->t));
		term_pump(d->t, 30);
	}
}

/* Assert that job name's key is want now. */
static void
assert_job(struct deck *d, const char *name, const char *key,
    const char *want)
{
	const struct jsonread	*job;
	struct jsonread		*root;

	root = job_json(d, name, &job);
	ck_assert_msg(job != NULL, "no job %s", name);
	ck_assert_msg(strcmp(jsonread_text(job, key), want) == 0, "job %s: %s is "
	    "\"%s\", not \"%s\"", name, key, jsonread_text(job, key), want);
	jsonread_free(root);
}

/* Assert that job name's key starts with want now. */
static void
assert_job_prefix(struct deck *d, const char *name, const char *key,
    const char *want)
{
	const struct jsonread	*job;
	struct jsonread		*root;

	root = job_json(d, name, &job);
	ck_assert_msg(job != NULL, "no job %s", name);
	ck_assert_msg(strncmp(jsonread_text(job, key), want, strlen(want)) == 0,
	    "job %s: %s is \"%s\", not \"%s...\"", name, key,
	    jsonread_text(job, key), want);
	jsonread_free(root);
}

/* Wait until `ctl logs NAME` holds text. */
#define wait_logs(d_, job_, text_)					\
	e2e_wait_logs((d_)->t, (d_)->name, (d_)->run, (job_), (text_), WAIT_MS)

/* Start `ctl events` in the background. */
static void
bg_start(struct deck *d, struct bg *b)
{
	static const char *const args[] = { "events", NULL };

	memset(b, 0, sizeof *b);
	b->pid = e2e_ctl_spawn(d->name, d->run, args, 0, &b->fd);
	fcntl(b->fd, F_SETFL, O_NONBLOCK);
	b->buf = calloc(1, 1);
}

/* Wait for a line of the events holding every one of the texts. */
static int
bg_wait_line(struct deck *d, struct bg *b, const char *const *texts,
    int ms)
{
	int64_t		 end = term_now_ms() + ms;
	const char	*p, *nl;
	size_t		 i;

	for (;;) {
		e2e_drain(b->fd, &b->buf, &b->len);
		for (p = b->buf; (nl = strchr(p, '\n')) != NULL; p = nl + 1) {
			for (i = 0; texts[i] != NULL; i++) {
				if (memmem(p, (size_t)(nl - p), texts[i],
				    strlen(texts[i])) == NULL)
					break;
			}
			if (texts[i] == NULL)
				return 1;
		}
		if (term_now_ms() >= end)
			return 0;
		term_pump(d->t, 10);
	}
}

/*
 * Wait until the events stream is served: once it has told of a job
 * spawned after it, it tells of every later one.
 */
static void
bg_sync(struct deck *d, struct bg *b)
{
	const char	*texts[2];
	char		 name[32], want[64];
	int64_t		 end = term_now_ms() + WAIT_MS;
	int		 i;

	for (i = 0; term_now_ms() < end; i++) {
		snprintf(name, sizeof name, "sync%d", i);
		snprintf(want, sizeof want, "\"name\":\"%s\"", name);
		texts[0] = want;
		texts[1] = NULL;
		free(ctl(d, "spawn", "--name", name, "--", "true",
		    (const char *)NULL));
		if (bg_wait_line(d, b, texts, 300))
			return;
	}
	ck_abort_msg("the events stream told of no job: %s", b->buf);
}

/* Stop the background ctl. */
static void
bg_stop(struct bg *b)
{
	kill(b->pid, SIGKILL);
	waitpid(b->pid, NULL, 0);
	close(b->fd);
	free(b->buf);
}

/*
 * The three-job stack: db listens a second after it starts and is ready
 * by ready_tcp; api waits for it ("Waiting for db (ready)" in the panel,
 * events say so); worker waits for migrate to complete successfully (and
 * api to have started).  The stamps prove the order.
 */
START_TEST(test_stack_order)
{
	static const char *const ev_wait[] = { "\"event\":\"changed\"",
	    "\"waiting_for\":\"db (ready)\"", NULL };
	static const char *const ev_ready[] = { "\"event\":\"changed\"",
	    "\"ready\":true", NULL };
	struct deck	 d;
	struct bg	 b;
	char		 toml[4096], buf[4096], *out;
	long long	 listening, api, done, worker;
	int		 port = testnet_closed_port();

	deck_dir(&d, "order");
	snprintf(toml, sizeof toml,
	    "[[job]]\nname = \"db\"\ncwd = \"@\"\nautostart = false\n"
	    "command = \"exec python3 listen.py %d order.log\"\n"
	    "ready_tcp = \"127.0.0.1:%d\"\nready_interval = 0.1\n"
	    "[[job]]\nname = \"migrate\"\ncwd = \"@\"\nautostart = false\n"
	    "command = \"python3 stamp.py order.log migrate start; sleep 0.3; "
	    "python3 stamp.py order.log migrate done\"\n"
	    "[[job]]\nname = \"api\"\ncwd = \"@\"\nautostart = false\n"
	    "command = \"python3 stamp.py order.log api start; exec sleep "
	    "100\"\ndepends_on = { db = \"ready\" }\n"
	    "[[job]]\nname = \"worker\"\ncwd = \"@\"\nautostart = false\n"
	    "command = \"python3 stamp.py order.log worker start; exec sleep "
	    "100\"\n"
	    "depends_on = { migrate = \"completed_successfully\", "
	    "api = \"started\" }\n", port, port);
	deck_start(&d, "order", toml);
	bg_start(&d, &b);
	bg_sync(&d, &b);
	out = ctl(&d, "run", "worker", (const char *)NULL);
	free(out);
	EXPECT_IN(d.t, &panel, "Waiting for db (ready)", WAIT_MS);
	wait_job(&d, "api", "state", "running");
	wait_job(&d, "worker", "state", "running");
	assert_job(&d, "db", "ready", "true");
	assert_job(&d, "api", "ready", "");
	assert_job(&d, "worker", "waiting_for", "");
	assert_job(&d, "migrate", "state", "completed");
	wait_lines(&d, "order.log", "worker start", 1);
	wait_lines(&d, "order.log", "api start", 1);

	listening = stamp_of(&d, "order.log", "db listening");
	api = stamp_of(&d, "order.log", "api start");
	done = stamp_of(&d, "order.log", "migrate done");
	worker = stamp_of(&d, "order.log", "worker start");
	e2e_get_file(d.dir, "order.log", buf, sizeof buf);
	ck_assert_msg(listening > 0 && api > listening, "api started before "
	    "db listened:\n%s", buf);
	ck_assert_msg(done > 0 && worker > done, "worker started before "
	    "migrate was done:\n%s", buf);
	ck_assert_msg(bg_wait_line(&d, &b, ev_wait, WAIT_MS), "no changed "
	    "event for db (ready): %s", b.buf);
	ck_assert_msg(bg_wait_line(&d, &b, ev_ready, WAIT_MS), "no changed "
	    "event for a ready job: %s", b.buf);
	bg_stop(&b);
	deck_close(&d);
	e2e_cfg_remove();
}
END_TEST

/*
 * ready_log and ready_http (python3 -m http.server as the job) make
 * their dependants start; a dependency that exits before it is ready
 * fails its dependant with the reason.
 */
START_TEST(test_stack_probes)
{
	struct deck	 d;
	char		 toml[4096];
	int		 port = testnet_closed_port();

	deck_dir(&d, "probes");
	snprintf(toml, sizeof toml,
	    "[[job]]\nname = \"logger\"\ncwd = \"@\"\nautostart = false\n"
	    "command = \"sleep 0.5; echo service listening now; exec sleep "
	    "100\"\nready_log = \"listening now\"\n"
	    "[[job]]\nname = \"after_log\"\ncwd = \"@\"\nautostart = false\n"
	    "command = \"exec sleep 100\"\n"
	    "depends_on = { logger = \"ready\" }\n"
	    "[[job]]\nname = \"web\"\ncwd = \"@\"\nautostart = false\n"
	    "command = \"exec python3 -m http.server %d --bind 127.0.0.1\"\n"
	    "ready_http = \"http://127.0.0.1:%d/\"\nready_interval = 0.1\n"
	    "[[job]]\nname = \"after_http\"\ncwd = \"@\"\nautostart = false\n"
	    "command = \"exec sleep 100\"\n"
	    "depends_on = { web = \"ready\" }\n"
	    "[[job]]\nname = \"bad\"\ncwd = \"@\"\nautostart = false\n"
	    "command = \"sleep 0.2; exit 3\"\nready_cmd = \"false\"\n"
	    "[[job]]\nname = \"after_bad\"\ncwd = \"@\"\nautostart = false\n"
	    "command = \"exec sleep 100\"\n"
	    "depends_on = { bad = \"ready\" }\n", port, port);
	deck_start(&d, "probes", toml);
	free(ctl(&d, "run", "after_log", (const char *)NULL));
	free(ctl(&d, "run", "after_http", (const char *)NULL));
	free(ctl(&d, "run", "after_bad", (const char *)NULL));
	wait_job(&d, "after_log", "state", "running");
	assert_job(&d, "logger", "ready", "true");
	wait_job(&d, "after_http", "state", "running");
	assert_job(&d, "web", "ready", "true");
	wait_job(&d, "after_bad", "state", "blocked");
	assert_job(&d, "bad", "state", "failed");
	wait_logs(&d, "after_bad", "blocked: bad exited before it was ready "
	    "(exited 3)");
	deck_close(&d);
	e2e_cfg_remove();
}
END_TEST

/* Return a number member of job name's object (`ctl --json list`). */
static int64_t
job_number(struct deck *d, const char *name, const char *key)
{
	const struct jsonread	*job;
	struct jsonread		*root;
	int64_t			 n;

	root = job_json(d, name, &job);
	ck_assert_msg(job != NULL, "no job %s", name);
	ck_assert_msg(jsonread_type(jsonread_get(job, key)) ==
	    JSONREAD_NUMBER, "job %s: %s is not a number", name, key);
	n = (int64_t)jsonread_number(jsonread_get(job, key));
	jsonread_free(root);
	return n;
}

/*
 * While a job's readiness probe fails, its panel line says how ("ready:
 * GET /health → 503" beside "◌ Starting"), !ps's READY says no and its
 * JSON has ready false and the probe's last result; once the probe
 * passes, ready is true, ready_at says when, and READY says yes.
 */
START_TEST(test_stack_ready_line)
{
	struct deck	 d;
	char		 toml[2048], *out;
	int		 port = testnet_closed_port();

	deck_dir(&d, "readyline");
	e2e_put_file(d.dir, "health.py", health_py, 0600);
	snprintf(toml, sizeof toml,
	    "[[job]]\nname = \"web\"\ncwd = \"@\"\nautostart = false\n"
	    "command = \"exec python3 health.py %d\"\n"
	    "ready_http = \"http://127.0.0.1:%d/health\"\n"
	    "ready_interval = 0.1\n", port, port);
	deck_start(&d, "readyline", toml);
	free(ctl(&d, "run", "web", (const char *)NULL));
	wait_job(&d, "web", "ready_probe", "GET /health → 503");
	assert_job(&d, "web", "state", "running");
	assert_job(&d, "web", "ready", "false");
	assert_job(&d, "web", "ready_at", "");
	EXPECT_IN(d.t, &panel, "ready: GET /health → 503", WAIT_MS);
	EXPECT_IN(d.t, &panel, "◌ Starting", WAIT_MS);
	out = ctl(&d, "ps", (const char *)NULL);
	ck_assert_msg(strstr(out, " READY ") != NULL && strstr(out,
	    " running  no ") != NULL, "%s", out);
	free(out);
	out = ctl(&d, "status", "web", (const char *)NULL);
	ck_assert_msg(strstr(out, "ready:    no (GET /health → 503)\n") != NULL,
	    "%s", out);
	free(out);

	e2e_put_file(d.dir, "up", "", 0600);
	wait_job(&d, "web", "ready", "true");
	assert_job(&d, "web", "ready_probe", "GET /health → 200");
	assert_job_prefix(&d, "web", "ready_at", "20");
	EXPECT_GONE_IN(d.t, &panel, "GET /health → 503", WAIT_MS);
	EXPECT_IN(d.t, &panel, "Running for", WAIT_MS);
	out = ctl(&d, "ps", (const char *)NULL);
	ck_assert_msg(strstr(out, " running  yes ") != NULL, "%s", out);
	free(out);
	deck_close(&d);
	e2e_cfg_remove();
}
END_TEST

/*
 * A job whose dependency failed never runs: it is blocked, says which
 * dependency failed and how (state, panel, message line, log, ctl wait),
 * has no exit code (exit_code null, code 125), and ctl wait on it ends
 * with 125.  A job depending on it is blocked in turn.
 */
START_TEST(test_stack_blocked)
{
	static const struct term_rect	 bottom = { 39, 0, 1, 120 };
	const char			*args[] = { "wait", "api", NULL };
	struct deck			 d;
	char				*out;
	int				 status;

	deck_dir(&d, "blocked");
	deck_start(&d, "blocked",
	    "[[job]]\nname = \"migrate\"\ncwd = \"@\"\nautostart = false\n"
	    "command = \"sleep 0.3; exit 1\"\n"
	    "[[job]]\nname = \"api\"\ncwd = \"@\"\nautostart = false\n"
	    "command = \"echo never-api; exec sleep 100\"\n"
	    "depends_on = { migrate = \"completed_successfully\" }\n"
	    "[[job]]\nname = \"web\"\ncwd = \"@\"\nautostart = false\n"
	    "command = \"echo never-web; exec sleep 100\"\n"
	    "depends_on = { api = \"ready\" }\n");
	free(ctl(&d, "run", "web", (const char *)NULL));
	wait_job(&d, "api", "state", "blocked");
	wait_job(&d, "web", "state", "blocked");
	assert_job(&d, "migrate", "state", "failed");
	assert_job(&d, "api", "exit_code", "");
	assert_job(&d, "api", "signal", "");
	assert_job(&d, "api", "pid", "");
	ck_assert_int_eq(job_number(&d, "api", "code"), 125);
	ck_assert_int_eq(job_number(&d, "migrate", "exit_code"), 1);
	wait_logs(&d, "api", "jobdeck: blocked: migrate failed (exited 1)");
	wait_logs(&d, "web", "jobdeck: blocked: api is blocked");
	EXPECT_IN(d.t, &panel, "⊗ Blocked", WAIT_MS);
	EXPECT_IN(d.t, &panel, "Blocked: migrate failed", WAIT_MS);
	EXPECT_IN(d.t, &bottom, "blocked: api is blocked", WAIT_MS);

	out = e2e_ctl(d.t, d.name, d.run, args, 0, CTL_MS, &status);
	ck_assert_msg(status == 125, "ctl wait api: %d: %s", status, out);
	ck_assert_msg(strstr(out, "] api: blocked: migrate failed (exited "
	    "1)\n") != NULL, "%s", out);
	free(out);
	out = ctl(&d, "logs", "api", (const char *)NULL);
	ck_assert_msg(strstr(out, "never-api") == NULL, "%s", out);
	free(out);
	deck_close(&d);
	e2e_cfg_remove();
}
END_TEST

/* Return the member of `ctl --json graph`'s array key whose name is name. */
static const struct jsonread *
graph_node(const struct jsonread *root, const char *name)
{
	const struct jsonread	*nodes = jsonread_get(root, "nodes"), *n;
	size_t			 i;

	for (i = 0; i < jsonread_count(nodes); i++) {
		n = jsonread_index(nodes, i);
		if (strcmp(jsonread_text(n, "name"), name) == 0)
			return n;
	}
	ck_abort_msg("no node %s", name);
	return NULL;
}

/*
 * !graph and ctl graph on a stack of three (web needs api started, api
 * needs db ready): a tree from web down, each edge's condition and
 * whether it holds, each job's state and wait; --json: the nodes and the
 * edges.
 */
START_TEST(test_stack_graph)
{
	static const struct term_rect	 screen = { 0, 0, 40, 120 };
	struct deck			 d;
	struct jsonread			*root;
	const struct jsonread		*edges, *e, *n;
	char				*out, *cause = NULL;
	size_t				 i;
	int				 found = 0;

	deck_dir(&d, "graph");
	deck_start(&d, "graph",
	    "[[job]]\nname = \"db\"\ncwd = \"@\"\nautostart = false\n"
	    "command = \"exec sleep 100\"\nready_cmd = \"test -e up\"\n"
	    "ready_interval = 0.1\n"
	    "[[job]]\nname = \"api\"\ncwd = \"@\"\nautostart = false\n"
	    "command = \"exec sleep 100\"\ndepends_on = { db = \"ready\" }\n"
	    "[[job]]\nname = \"web\"\ncwd = \"@\"\nautostart = false\n"
	    "command = \"exec sleep 100\"\n"
	    "depends_on = { api = \"started\" }\n");
	free(ctl(&d, "run", "web", (const char *)NULL));
	wait_job(&d, "db", "state", "running");
	wait_job(&d, "api", "state", "waiting");
	out = ctl(&d, "graph", (const char *)NULL);
	ck_assert_msg(strncmp(out, "web: waiting, ", 14) == 0 &&
	    strstr(out, "\n└─ api (started …): waiting, ") != NULL &&
	    strstr(out, "\n   └─ db (ready …): running, waited ") != NULL,
	    "%s", out);
	free(out);

	e2e_put_file(d.dir, "up", "", 0600);
	wait_job(&d, "web", "state", "running");
	out = ctl(&d, "graph", (const char *)NULL);
	ck_assert_msg(strncmp(out, "web: running, waited ", 21) == 0 &&
	    strstr(out, "\n└─ api (started ✓): running, waited ") != NULL &&
	    strstr(out, "\n   └─ db (ready ✓): running, waited ") != NULL,
	    "%s", out);
	free(out);

	out = ctl(&d, "--json", "graph", (const char *)NULL);
	root = jsonread_parse(out, strlen(out), &cause);
	ck_assert_msg(root != NULL, "bad JSON (%s): %s", cause, out);
	ck_assert_int_eq(jsonread_count(jsonread_get(root, "nodes")), 3);
	n = graph_node(root, "api");
	ck_assert_str_eq(jsonread_text(n, "state"), "running");
	ck_assert_msg(jsonread_number(jsonread_get(n, "waited_ms")) > 0,
	    "api waited no time: %s", out);
	ck_assert_msg(strncmp(jsonread_text(n, "started_at"), "20", 2) == 0,
	    "%s", out);
	ck_assert_str_eq(jsonread_text(n, "waiting"), "false");
	n = graph_node(root, "db");
	ck_assert_str_eq(jsonread_text(n, "state"), "running");
	edges = jsonread_get(root, "edges");
	ck_assert_int_eq(jsonread_count(edges), 2);
	for (i = 0; i < jsonread_count(edges); i++) {
		e = jsonread_index(edges, i);
		if (strcmp(jsonread_text(e, "from"), "api") == 0) {
			ck_assert_str_eq(jsonread_text(e, "to"), "db");
			ck_assert_str_eq(jsonread_text(e, "condition"),
			    "ready");
			found++;
		} else {
			ck_assert_str_eq(jsonread_text(e, "from"), "web");
			ck_assert_str_eq(jsonread_text(e, "to"), "api");
			ck_assert_str_eq(jsonread_text(e, "condition"),
			    "started");
			found++;
		}
		ck_assert_str_eq(jsonread_text(e, "satisfied"), "true");
	}
	ck_assert_int_eq(found, 2);
	jsonread_free(root);
	free(out);

	/* At the prompt: the same tree in a view. */
	e2e_run(d.t, "!graph");
	EXPECT_IN(d.t, &screen, "└─ api (started ✓): running", WAIT_MS);
	EXPECT_IN(d.t, &screen, "└─ db (ready ✓): running", WAIT_MS);
	deck_close(&d);
	e2e_cfg_remove();
}
END_TEST

/*
 * A liveness probe that fails fails the job, and restart = "on-failure"
 * starts it again.
 */
START_TEST(test_stack_liveness)
{
	struct deck	d;
	char		path[PATH_MAX];

	deck_dir(&d, "live");
	deck_start(&d, "live",
	    "[[job]]\nname = \"svc\"\ncwd = \"@\"\n"
	    "command = \"touch alive; python3 stamp.py runs.log run; exec "
	    "sleep 100\"\n"
	    "liveness_cmd = \"test -e alive\"\nliveness_interval = 0.2\n"
	    "liveness_retries = 2\nrestart = \"on-failure\"\n"
	    "restart_delay = 0.2\n");
	wait_lines(&d, "runs.log", "run", 1);
	wait_job(&d, "svc", "state", "running");
	snprintf(path, sizeof path, "%s/alive", d.dir);
	ck_assert_int_eq(unlink(path), 0);
	wait_lines(&d, "runs.log", "run", 2);
	wait_job(&d, "svc", "state", "running");
	assert_job_prefix(&d, "svc", "note", "liveness: ");
	deck_close(&d);
	e2e_cfg_remove();
}
END_TEST

/* The stop test's stack: db <- api (SIGINT) <- web (a stop_command). */
static const char stop_toml[] =
    "[[job]]\nname = \"db\"\ncwd = \"@\"\n"
    "command = '''trap 'python3 stamp.py stop.log db TERM; exit 0' TERM; "
    "python3 stamp.py stop.log db up; while :; do sleep 0.1; done'''\n"
    "[[job]]\nname = \"api\"\ncwd = \"@\"\nstop_signal = \"SIGINT\"\n"
    "command = '''trap 'python3 stamp.py stop.log api INT; exit 0' INT; "
    "trap 'python3 stamp.py stop.log api TERM; exit 0' TERM; "
    "python3 stamp.py stop.log api up; while :; do sleep 0.1; done'''\n"
    "depends_on = { db = \"started\" }\n"
    "[[job]]\nname = \"web\"\ncwd = \"@\"\nstop_command = \"touch web.stop\"\n"
    "command = '''rm -f web.stop; python3 stamp.py stop.log web up; "
    "while [ ! -e web.stop ]; do sleep 0.1; done; "
    "python3 stamp.py stop.log web stop_command'''\n"
    "depends_on = { api = \"started\" }\n";

/* Assert stop.log says web, then api (by SIGINT), then db stopped. */
static void
assert_stop_order(struct deck *d)
{
	long long	web, api, db;
	char		buf[4096];

	wait_lines(d, "stop.log", "db TERM", 1);
	web = stamp_of(d, "stop.log", "web stop_command");
	api = stamp_of(d, "stop.log", "api INT");
	db = stamp_of(d, "stop.log", "db TERM");
	e2e_get_file(d->dir, "stop.log", buf, sizeof buf);
	ck_assert_msg(web > 0 && api > web && db > api, "not stopped web, "
	    "api (SIGINT), db:\n%s", buf);
	ck_assert_msg(strstr(buf, "api TERM") == NULL, "api got SIGTERM:\n%s",
	    buf);
}

/*
 * Stopping: stop_signal = "SIGINT" reaches the job's trap, stop_command
 * runs instead of a signal, and !kill-all (then quitting) stops the jobs
 * in the reverse order of their dependencies.
 */
START_TEST(test_stack_stop)
{
	struct deck	d;
	char		path[PATH_MAX], *out;
	int		status;

	deck_dir(&d, "stop");
	deck_start(&d, "stop", stop_toml);
	wait_lines(&d, "stop.log", " up", 3);
	out = ctl(&d, "kill-all", (const char *)NULL);
	free(out);
	assert_stop_order(&d);
	wait_job(&d, "db", "state", "canceled");
	deck_close(&d);

	/* Again, quitting: a new deck on the same stack. */
	snprintf(path, sizeof path, "%s/stop.log", d.dir);
	ck_assert_int_eq(unlink(path), 0);
	deck_start(&d, "stop2", stop_toml);
	wait_lines(&d, "stop.log", " up", 3);
	out = ctl(&d, "quit", (const char *)NULL);
	free(out);
	ck_assert_msg(term_wait_exit(d.t, WAIT_MS, &status), "the deck did "
	    "not quit");
	assert_stop_order(&d);
	deck_close(&d);
	e2e_cfg_remove();
}
END_TEST

/*
 * A chain of five (l1 <- l2 <- ... <- l5) whose traps take 0.6 s each:
 * quitting stops it a layer at a time for about 3 s, longer than the
 * quit's first wait (the 1 s grace and a second), and every layer still
 * gets its SIGTERM in order (the deck used to stop waiting after the first
 * wait and kill the rest outright).
 */
START_TEST(test_stack_quit_layers)
{
	struct deck	d;
	char		toml[4096], *out, buf[4096];
	long long	prev = 0, t;
	size_t		len;
	int		i, status;

	len = (size_t)snprintf(toml, sizeof toml,
	    "[settings]\nkill_timeout = 1\n");
	for (i = 1; i <= 5; i++) {
		len += (size_t)snprintf(toml + len, sizeof toml - len,
		    "[[job]]\nname = \"l%d\"\ncwd = \"@\"\n"
		    "command = '''trap 'sleep 0.6; python3 stamp.py "
		    "quit.log l%d TERM; exit 0' TERM; python3 stamp.py "
		    "quit.log l%d up; while :; do sleep 0.1; done'''\n",
		    i, i, i);
		if (i > 1)
			len += (size_t)snprintf(toml + len, sizeof toml - len,
			    "depends_on = { l%d = \"started\" }\n", i - 1);
	}
	ck_assert_uint_lt(len, sizeof toml);
	deck_dir(&d, "layers");
	deck_start(&d, "layers", toml);
	wait_lines(&d, "quit.log", " up", 5);
	out = ctl(&d, "quit", (const char *)NULL);
	free(out);
	ck_assert_msg(term_wait_exit(d.t, 20000, &status), "the deck did not "
	    "quit");
	e2e_get_file(d.dir, "quit.log", buf, sizeof buf);
	for (i = 5; i >= 1; i--) {
		snprintf(toml, sizeof toml, "l%d TERM", i);
		t = stamp_of(&d, "quit.log", toml);
		ck_assert_msg(t > prev, "l%d did not stop by its trap after "
		    "l%d:\n%s", i, i + 1, buf);
		prev = t;
	}
	deck_close(&d);
	e2e_cfg_remove();
}
END_TEST

/* Return the most jobs of a start/end log that ran at once. */
static int
max_running(const struct deck *d, const char *name, int njobs)
{
	char		 buf[8192], what[32];
	const char	*p;
	long long	 t[32], ns;
	int		 start[32], n = 0, i, k, run = 0, most = 0;

	e2e_get_file(d->dir, name, buf, sizeof buf);
	for (p = buf; *p != '\0' && n < 32; p = strchr(p, '\n') + 1) {
		if (sscanf(p, "%*s %31s %lld", what, &ns) != 2)
			break;
		t[n] = ns;
		start[n++] = strcmp(what, "start") == 0;
		if (strchr(p, '\n') == NULL)
			break;
	}
	ck_assert_msg(n == njobs * 2, "%d lines, not %d:\n%s", n, njobs * 2,
	    buf);
	/* In stamp order: +1 a start, -1 an end. */
	for (;;) {
		for (i = -1, k = 0; k < n; k++) {
			if (t[k] >= 0 && (i == -1 || t[k] < t[i]))
				i = k;
		}
		if (i == -1)
			break;
		run += start[i] ? 1 : -1;
		if (run > most)
			most = run;
		t[i] = -1;
	}
	return most;
}

/* [groups.g] max_running = 2: four jobs of g, never more than two at once. */
START_TEST(test_stack_groups)
{
	struct deck	d;
	char		toml[4096];
	size_t		n = 0;
	int		i, most;

	deck_dir(&d, "groups");
	n += (size_t)snprintf(toml + n, sizeof toml - n,
	    "[groups.g]\nmax_running = 2\n");
	for (i = 1; i <= 4; i++)
		n += (size_t)snprintf(toml + n, sizeof toml - n,
		    "[[job]]\nname = \"g%d\"\ncwd = \"@\"\ngroup = \"g\"\n"
		    "command = \"python3 stamp.py g.log g%d start; sleep 0.4; "
		    "python3 stamp.py g.log g%d end\"\n", i, i, i);
	deck_start(&d, "groups", toml);
	wait_lines(&d, "g.log", "end", 4);
	most = max_running(&d, "g.log", 4);
	ck_assert_msg(most == 2, "%d jobs of g ran at once", most);
	deck_close(&d);
	e2e_cfg_remove();
}
END_TEST

/*
 * priority: with one job running at a time, the queue starts the highest
 * priority first, then in order.
 */
START_TEST(test_stack_priority)
{
	struct deck	d;
	char		buf[4096];
	long long	high, mid, low, mid2;

	deck_dir(&d, "prio");
	deck_start(&d, "prio",
	    "[settings]\nmax_running = 1\n"
	    "[[job]]\nname = \"first\"\ncwd = \"@\"\n"
	    "command = \"python3 stamp.py prio.log first; sleep 0.3\"\n"
	    "[[job]]\nname = \"low\"\ncwd = \"@\"\npriority = -1\n"
	    "command = \"python3 stamp.py prio.log low\"\n"
	    "[[job]]\nname = \"mid\"\ncwd = \"@\"\n"
	    "command = \"python3 stamp.py prio.log mid\"\n"
	    "[[job]]\nname = \"high\"\ncwd = \"@\"\npriority = 10\n"
	    "command = \"python3 stamp.py prio.log high\"\n"
	    "[[job]]\nname = \"mid2\"\ncwd = \"@\"\n"
	    "command = \"python3 stamp.py prio.log mid2\"\n");
	wait_lines(&d, "prio.log", NULL, 5);
	high = stamp_of(&d, "prio.log", "high");
	mid = stamp_of(&d, "prio.log", "mid");
	mid2 = stamp_of(&d, "prio.log", "mid2");
	low = stamp_of(&d, "prio.log", "low");
	e2e_get_file(d.dir, "prio.log", buf, sizeof buf);
	ck_assert_msg(stamp_of(&d, "prio.log", "first") < high && high < mid &&
	    mid < mid2 && mid2 < low, "not first, high, mid, mid2, low:\n%s",
	    buf);
	deck_close(&d);
	e2e_cfg_remove();
}
END_TEST

/*
 * watch: two quick writes to a watched file restart the job once, after
 * the debounce; the panel and the JSON say why.
 */
START_TEST(test_stack_watch)
{
	struct deck	d;
	char		path[PATH_MAX];
	int64_t		end;
	int		i;

	deck_dir(&d, "watch");
	snprintf(path, sizeof path, "%s/src", d.dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	e2e_put_file(d.dir, "src/a.py", "one\n", 0600);
	e2e_put_file(d.dir, "src/b.txt", "one\n", 0600);
	deck_start(&d, "watch",
	    "[[job]]\nname = \"w\"\ncwd = \"@\"\n"
	    "command = \"python3 stamp.py watch.log run; exec sleep 100\"\n"
	    "watch = [\"src/*.py\"]\nwatch_debounce = 0.3\n");
	wait_lines(&d, "watch.log", "run", 1);
	wait_job(&d, "w", "state", "running");

	/* Not a watched file: nothing. */
	e2e_put_file(d.dir, "src/b.txt", "two\n", 0600);
	for (i = 0; i < 2; i++)
		e2e_put_file(d.dir, "src/a.py", i == 0 ? "two\n" : "three\n", 0600);
	wait_lines(&d, "watch.log", "run", 2);
	EXPECT_IN(d.t, &panel, "restarted: src/a.py changed", WAIT_MS);
	wait_job(&d, "w", "state", "running");
	assert_job(&d, "w", "note", "restarted: src/a.py changed");
	end = term_now_ms() + QUIET_MS;
	while (term_now_ms() < end) {
		ck_assert_msg(count_lines(&d, "watch.log", "run") == 2,
		    "two quick writes restarted the job twice");
		term_pump(d.t, 50);
	}
	deck_close(&d);
	e2e_cfg_remove();
}
END_TEST

/*
 * Wait until `sleep ARG` runs (want 1) or none is left (want 0), reading
 * the deck's screen when it still runs; a failure says when.
 */
static pid_t
wait_sleeps(struct deck *d, const char *arg, int want, const char *when)
{
	int64_t	end = term_now_ms() + WAIT_MS;
	pid_t	pid = 0;
	int	n;

	while ((n = testproc_sleeps(arg, &pid)) != want && !(want && n > 0)) {
		ck_assert_msg(term_now_ms() < end, "%s: %d `sleep %s` after %d "
		    "ms", when, n, arg, WAIT_MS);
		if (d != NULL)
			term_pump(d->t, 30);
		else
			usleep(30000);
	}
	return pid;
}

/* Copy pid's cgroup v2 path ("0::" line of /proc/PID/cgroup) into buf. */
static void
cgroup_of(pid_t pid, char *buf, size_t size)
{
	char	path[64], text[4096], *p, *end;
	ssize_t	n;
	int	fd;

	buf[0] = '\0';
	snprintf(path, sizeof path, "/proc/%ld/cgroup", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return;
	n = read(fd, text, sizeof text - 1);
	close(fd);
	text[n > 0 ? n : 0] = '\0';
	if ((p = strstr(text, "0::")) == NULL)
		return;
	p += 3;
	if ((end = strchr(p, '\n')) != NULL)
		*end = '\0';
	snprintf(buf, size, "%s", p);
}

/*
 * Tell whether a deck started here could make a cgroup: a directory made
 * and removed in ours, under the cgroup2 mount.
 */
static int
cgroups_possible(void)
{
	char	 self[4096], line[4096], root[PATH_MAX], mnt[PATH_MAX] = "";
	char	 probe[2 * PATH_MAX + 64];
	FILE	*fp;

	cgroup_of(getpid(), self, sizeof self);
	if (self[0] != '/' || (fp = fopen("/proc/self/mountinfo", "re")) ==
	    NULL)
		return 0;
	while (mnt[0] == '\0' && fgets(line, sizeof line, fp) != NULL) {
		if (strstr(line, " - cgroup2 ") == NULL ||
		    sscanf(line, "%*s %*s %*s %4095s %4095s", root, mnt) != 2 ||
		    strcmp(root, "/") != 0)
			mnt[0] = '\0';
	}
	fclose(fp);
	if (mnt[0] == '\0')
		return 0;
	snprintf(probe, sizeof probe, "%s%s/jobdeck-test-probe.%ld", mnt,
	    strcmp(self, "/") == 0 ? "" : self, (long)getpid());
	if (mkdir(probe, 0755) != 0)
		return 0;
	rmdir(probe);
	return 1;
}

/* Tell whether pid's environment holds a jobdeck marker. */
static int
has_marker(pid_t pid)
{
	static char	 env[256 * 1024];
	static const char want[] = "JOBDECK_JOB=jobdeck.";
	char		 path[64], *p;
	size_t		 got = 0;
	ssize_t		 n;
	int		 fd;

	snprintf(path, sizeof path, "/proc/%ld/environ", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return 0;
	while (got < sizeof env - 1 &&
	    (n = read(fd, env + got, sizeof env - 1 - got)) > 0)
		got += (size_t)n;
	close(fd);
	env[got] = '\0';
	for (p = env; p < env + got; p += strlen(p) + 1) {
		if (strncmp(p, want, sizeof want - 1) == 0)
			return 1;
	}
	return 0;
}

/*
 * Assert how the escapee pid is held: in a run's cgroup in a deck's, or
 * by the marker in its environment.
 */
static void
assert_held(pid_t pid, int marker, const char *what)
{
	char	in[4096];

	if (marker) {
		ck_assert_msg(has_marker(pid), "%s (%ld) carries no marker",
		    what, (long)pid);
		return;
	}
	cgroup_of(pid, in, sizeof in);
	ck_assert_msg(strstr(in, "/jobdeck.") != NULL && strstr(in, "/job-") !=
	    NULL, "%s (%ld) is in the cgroup \"%s\", not a deck's", what,
	    (long)pid, in);
}

/* The containment test's stack; %s are the sleeps' unique arguments. */
static const char contain_toml[] =
    "[[job]]\nname = \"probed\"\ncwd = \"@\"\ncommand = \"exec sleep 100\"\n"
    "ready_cmd = \"setsid -f sleep %s; exit 1\"\nready_interval = 0.1\n"
    "ready_retries = 3\n"
    "[[job]]\nname = \"stopper\"\ncwd = \"@\"\n"
    "command = \"echo $$ > stopper.pid; exec sleep 100\"\n"
    "stop_command = \"setsid -f sleep %s; kill $(cat stopper.pid)\"\n"
    "[[job]]\nname = \"leaky\"\ncwd = \"@\"\nautostart = false\n"
    "command = \"exec sleep 100\"\n"
    "ready_cmd = \"setsid -f sleep %s; exec sleep 100\"\nready_timeout = 600\n";

/*
 * Nothing a probe's command or a stop_command starts escapes: a
 * ready_cmd's escapees (setsid -f) are gone once its attempts have
 * failed, a stop_command's once it has stopped its job; one that runs
 * survives a SIGKILL of the deck (the deck's death alone kills nothing)
 * and the next deck's sweep kills it; one that runs when the deck quits
 * goes with the deck.  With a cgroup each, or the marker when asked to.
 */
static void
stack_contained(int marker)
{
	struct deck	 d, d2;
	char		 toml[2048], a[32], b[32], c[32], path[PATH_MAX];
	int		 status;
	int64_t		 end;
	pid_t		 pid;

	snprintf(a, sizeof a, "7771%05d", (int)(getpid() % 100000));
	snprintf(b, sizeof b, "7772%05d", (int)(getpid() % 100000));
	snprintf(c, sizeof c, "7773%05d", (int)(getpid() % 100000));
	snprintf(toml, sizeof toml, contain_toml, a, b, c);
	deck_dir(&d, "contain");
	d.env = marker ? "JOBDECK_NO_CGROUP=1" : NULL;
	deck_start(&d, "contain", toml);

	/* Three failed attempts of the ready_cmd: the job failed. */
	wait_job(&d, "probed", "state", "failed");
	assert_job_prefix(&d, "probed", "note", "not ready: ");
	wait_sleeps(&d, a, 0, "the ready_cmd's attempts are over");

	/* The stop_command stops its job, and what it left goes. */
	snprintf(path, sizeof path, "%s/stopper.pid", d.dir);
	end = term_now_ms() + WAIT_MS;
	while (access(path, F_OK) != 0) {
		ck_assert_msg(term_now_ms() < end, "stopper never started");
		term_pump(d.t, 30);
	}
	wait_job(&d, "stopper", "state", "running");
	free(ctl(&d, "kill", "stopper", (const char *)NULL));
	wait_job(&d, "stopper", "state", "canceled");
	wait_sleeps(&d, b, 0, "the stop_command has ended");

	/* An escapee of a probe that runs outlives a SIGKILLed deck... */
	free(ctl(&d, "run", "leaky", (const char *)NULL));
	pid = wait_sleeps(&d, c, 1, "leaky's ready_cmd runs");
	assert_held(pid, marker, "leaky's ready_cmd's escapee");
	ck_assert_int_eq(kill(e2e_deck_pid(d.t), SIGKILL), 0);
	ck_assert_msg(term_wait_exit(d.t, WAIT_MS, &status), "the deck "
	    "outlived SIGKILL");
	ck_assert_msg(testproc_sleeps(c, NULL) == 1, "the escapee died with the "
	    "deck: the sweep below proves nothing");
	/* ...and the next deck's sweep kills it. */
	d2 = d;
	deck_start(&d2, "contain2", toml);
	wait_sleeps(&d2, c, 0, "the next deck swept");

	/* One that runs when the deck quits goes with it. */
	free(ctl(&d2, "run", "leaky", (const char *)NULL));
	pid = wait_sleeps(&d2, c, 1, "leaky's ready_cmd runs again");
	assert_held(pid, marker, "leaky's ready_cmd's escapee");
	free(ctl(&d2, "quit", (const char *)NULL));
	ck_assert_msg(term_wait_exit(d2.t, WAIT_MS, &status), "the deck did "
	    "not quit");
	wait_sleeps(NULL, c, 0, "the deck quit");
	wait_sleeps(NULL, a, 0, "the deck quit");
	wait_sleeps(NULL, b, 0, "the deck quit");
	deck_close(&d);
	deck_close(&d2);
	e2e_cfg_remove();
}

/* stack_contained() with a cgroup each, where one can be made. */
START_TEST(test_stack_contained)
{
	if (!cgroups_possible())
		TEST_SKIP("no cgroup can be made here (not root, or not "
		    "delegated)");
	stack_contained(0);
}
END_TEST

/* stack_contained() with the marker alone (JOBDECK_NO_CGROUP=1). */
START_TEST(test_stack_contained_marker)
{
	stack_contained(1);
}
END_TEST

static Suite *
stack_suite(void)
{
	static const struct e2e_case	cases[] = {
		{ "stack_order", &test_stack_order, 30 },
		{ "stack_probes", &test_stack_probes, 30 },
		{ "stack_ready_line", &test_stack_ready_line, 30 },
		{ "stack_blocked", &test_stack_blocked, 30 },
		{ "stack_graph", &test_stack_graph, 30 },
		{ "stack_liveness", &test_stack_liveness, 30 },
		{ "stack_stop", &test_stack_stop, 40 },
		{ "stack_groups", &test_stack_groups, 30 },
		{ "stack_priority", &test_stack_priority, 30 },
		{ "stack_watch", &test_stack_watch, 30 },
		{ "stack_quit_layers", &test_stack_quit_layers, 40 },
		{ "stack_contained", &test_stack_contained, 60 },
		{ "stack_contained_marker", &test_stack_contained_marker, 60 },
	};
	Suite				*s = suite_create("stack_e2e");

	e2e_add_cases(s, cases, sizeof cases / sizeof cases[0]);
	return s;
}

/* Run the suite; the exit status says whether every test passed. */
int
main(void)
{
	return e2e_main(stack_suite());
}

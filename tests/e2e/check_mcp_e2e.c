/*
 * check_mcp_e2e.c: jobdeck mcp end to end.  A real deck (the TUI on a
 * term, so the panel can be read) and the official MCP TypeScript SDK as
 * the client: each case runs `node tests/mcp/interop.mjs SCENARIO DECK`,
 * which spawns `$JOBDECK_BIN mcp -S DECK` through the SDK's
 * StdioClientTransport, asserts with node's assert and prints one JSON
 * line of what it saw; here its exit status and that line are checked,
 * and what the deck shows (the agent's mark on the panel and in ps).
 * Without node or the SDK (tests/mcp/node_modules, installed by `make
 * test` with npm ci, which leaves node_modules/.jobdeck-stamp when it
 * ran to its end) those cases SKIP, saying why.  The --start cases
 * need no node: they speak JSON-RPC to `jobdeck mcp --start` themselves.
 *
 * The client's directory is $JOBDECK_MCP_DIR, else tests/mcp (make runs
 * the suites from the top of the tree).
 */
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "e2e/e2e.h"
#include "jsonread.h"
#include "need.h"
#include "skip.h"

#define NODE_MS		90000	/* one scenario, on a loaded machine */
#define CTL_MS		15000
#define EXIT_MS		10000	/* mcp and its deck leaving at EOF */
#define CLIENT_NAME	"interop-agent"	/* interop.mjs's clientInfo.name */

static const struct term_rect	panel = { 0, 0, 39, 40 };

/* A deck under test. */
struct deck {
	struct term	*t;
	char		 name[32];
	char		 run[PATH_MAX];	/* its XDG_RUNTIME_DIR */
	char		 cfg[PATH_MAX];	/* its configuration file */
};

/* What a scenario gave. */
struct node_out {
	int		 status;
	char		*out;
	char		*err;
	struct jsonread	*json;
};

/* Return the client's directory. */
static const char *
mcp_dir(void)
{
	const char	*d = getenv("JOBDECK_MCP_DIR");

	return d != NULL && *d != '\0' ? d : "tests/mcp";
}

/*
 * Return NULL if node and the SDK are here, else why not (for the skip
 * line).
 */
static const char *
sdk_missing(void)
{
	static char	why[PATH_MAX + 64];
	char		path[PATH_MAX];
	int		missing;

	need_or_fail("node", why, sizeof why, &missing);
	if (missing)
		return why;
	snprintf(path, sizeof path, "%s/interop.mjs", mcp_dir());
	if (access(path, R_OK) != 0) {
		snprintf(why, sizeof why, "no %s (set JOBDECK_MCP_DIR)", path);
		return why;
	}
	/* The Makefile's stamp: npm ci ran to its end. */
	snprintf(path, sizeof path, "%s/node_modules/.jobdeck-stamp",
	    mcp_dir());
	if (access(path, R_OK) != 0) {
		snprintf(why, sizeof why, "the MCP SDK is not installed in "
		    "%s/node_modules (`make mcp-sdk`: npm ci could not "
		    "reach the registry?)", mcp_dir());
		return why;
	}
	return NULL;
}

/* Start a deck called name: the TUI on a term, configured by text. */
static void
deck_start_cfg(struct deck *d, const char *name, const char *text)
{
	const char	*cfg = e2e_cfg_write("mcp.toml", text);
	const char	*args[] = { "-c", cfg, "-S", name, NULL };

	memset(d, 0, sizeof *d);
	snprintf(d->name, sizeof d->name, "%s", name);
	snprintf(d->cfg, sizeof d->cfg, "%s", cfg);
	d->t = e2e_start(args, NULL);
	ck_assert(snprintf(d->run, sizeof d->run, "%s/run",
	    term_tmpdir(d->t)) < (int)sizeof d->run);
}

/* Start a deck called name: the TUI on a term, no configuration. */
static void
deck_start(struct deck *d, const char *name)
{
	deck_start_cfg(d, name, "");
}

/* Close the deck's term (its jobs die with it). */
static void
deck_close(struct deck *d)
{
	term_close(d->t);
	d->t = NULL;
	e2e_cfg_remove();
}

/* Run `jobdeck ctl ARGS` on the deck; its output, status 0 asserted. */
static char *
ctl(struct deck *d, const char *const *args)
{
	char	*out;
	int	 status;

	out = e2e_ctl(d->t, d->name, d->run, args, 1, CTL_MS, &status);
	ck_assert_msg(status == 0, "ctl %s: status %d: %s", args[0], status,
	    out);
	return out;
}

/* Return an absolute path for the binary under test. */
static const char *
abs_bin(void)
{
	static char	path[PATH_MAX];

	if (realpath(e2e_bin(), path) == NULL)
		ck_abort_msg("%s: %s", e2e_bin(), strerror(errno));
	return path;
}

/*
 * Run scenario (with arg, may be NULL) of interop.mjs against the deck,
 * pumping its screen meanwhile; fill o (free with node_free()).
 */
static void
node_run(struct deck *d, const char *scenario, const char *arg,
    struct node_out *o)
{
	struct pollfd	 pfd[2];
	char		 script[PATH_MAX], *cause = NULL;
	size_t		 olen = 0, elen = 0;
	int64_t		 end = term_now_ms() + NODE_MS;
	int		 po[2], pe[2], st, open_fds = 2, null;
	pid_t		 pid;

	memset(o, 0, sizeof *o);
	o->out = calloc(1, 1);
	o->err = calloc(1, 1);
	ck_assert(o->out != NULL && o->err != NULL);
	snprintf(script, sizeof script, "%s/interop.mjs", mcp_dir());
	ck_assert_int_eq(pipe2(po, O_CLOEXEC), 0);
	ck_assert_int_eq(pipe2(pe, O_CLOEXEC), 0);
	pid = fork();
	ck_assert_int_ne(pid, -1);
	if (pid == 0) {
		null = open("/dev/null", O_RDONLY);
		dup2(null, 0);
		dup2(po[1], 1);
		dup2(pe[1], 2);
		setenv("XDG_RUNTIME_DIR", d->run, 1);
		setenv("JOBDECK_BIN", abs_bin(), 1);
		execlp("node", "node", script, scenario, d->name, arg,
		    (char *)NULL);
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	pfd[0].fd = po[0];
	pfd[1].fd = pe[0];
	pfd[0].events = pfd[1].events = POLLIN;
	while (open_fds > 0) {
		if (term_now_ms() > end) {
			kill(pid, SIGKILL);
			ck_abort_msg("node %s did not finish in %d ms\n"
			    "stdout: %s\nstderr: %s", scenario, NODE_MS,
			    o->out, o->err);
		}
		if (poll(pfd, 2, 10) > 0) {
			if (pfd[0].fd != -1 && pfd[0].revents != 0 &&
			    !e2e_drain(pfd[0].fd, &o->out, &olen)) {
				close(pfd[0].fd);
				pfd[0].fd = -1;
				open_fds--;
			}
			if (pfd[1].fd != -1 && pfd[1].revents != 0 &&
			    !e2e_drain(pfd[1].fd, &o->err, &elen)) {
				close(pfd[1].fd);
				pfd[1].fd = -1;
				open_fds--;
			}
		}
		term_pump(d->t, 1);
	}
	while (waitpid(pid, &st, 0) == -1 && errno == EINTR)
		;
	o->status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	if (o->status == 0) {
		o->json = jsonread_parse(o->out, strlen(o->out), &cause);
		ck_assert_msg(o->json != NULL, "node %s: bad JSON line (%s): "
		    "%s", scenario, cause, o->out);
	}
}

/* Free what node_run() filled. */
static void
node_free(struct node_out *o)
{
	jsonread_free(o->json);
	free(o->out);
	free(o->err);
}

/* Run scenario; assert it exited 0 with "ok": true. */
static void
node_ok(struct deck *d, const char *scenario, const char *arg,
    struct node_out *o)
{
	node_run(d, scenario, arg, o);
	ck_assert_msg(o->status == 0, "interop %s: exit %d\nstdout: %s\n"
	    "stderr: %s\n%s", scenario, o->status, o->out, o->err,
	    e2e_dump(d->t));
	ck_assert_msg(jsonread_bool(jsonread_get(o->json, "ok")) == 1,
	    "interop %s: %s", scenario, o->out);
	if (getenv("CHECK_MCP_VERBOSE") != NULL)
		fprintf(stderr, "%s", o->out);
}

/* Skip the calling test when the SDK is missing. */
#define NEED_SDK() do {							\
	const char	*why_ = sdk_missing();				\
	if (why_ != NULL)						\
		TEST_SKIP("%s", why_);					\
} while (0)

/* initialize: serverInfo, the protocol version, capabilities. */
START_TEST(test_initialize)
{
	struct deck	 d;
	struct node_out	 o;

	NEED_SDK();
	deck_start(&d, "mcp-init");
	node_ok(&d, "initialize", NULL, &o);
	ck_assert_str_eq(jsonread_text(jsonread_get(o.json, "serverInfo"),
	    "name"), "jobdeck");
	ck_assert_str_eq(jsonread_text(o.json, "protocolVersion"),
	    "2025-11-25");
	ck_assert_ptr_nonnull(jsonread_get(jsonread_get(o.json,
	    "capabilities"), "tools"));
	node_free(&o);
	deck_close(&d);
}
END_TEST

/* tools/list: the nine tools. */
START_TEST(test_tools)
{
	struct deck		 d;
	struct node_out		 o;
	const struct jsonread	*tools;

	NEED_SDK();
	deck_start(&d, "mcp-tools");
	node_ok(&d, "tools", NULL, &o);
	tools = jsonread_get(o.json, "tools");
	ck_assert_uint_eq(jsonread_count(tools), 9);
	node_free(&o);
	deck_close(&d);
}
END_TEST

/*
 * An async job polled until completed, every line once; the panel and ps
 * show it as the agent's.
 */
START_TEST(test_async)
{
	const char	*ps[] = { "ps", NULL };
	struct deck	 d;
	struct node_out	 o;
	char		*out;

	NEED_SDK();
	deck_start(&d, "mcp-async");
	node_ok(&d, "async", NULL, &o);
	ck_assert_int_eq((int)jsonread_number(jsonread_get(o.json, "lines")),
	    60);
	ck_assert_str_eq(jsonread_text(o.json, "agent"), CLIENT_NAME);
	EXPECT_IN(d.t, &panel, CLIENT_NAME, 10000);
	out = ctl(&d, ps);
	ck_assert_msg(strstr(out, CLIENT_NAME) != NULL, "ps has no agent "
	    "mark:\n%s", out);
	free(out);
	node_free(&o);
	deck_close(&d);
}
END_TEST

/* Output over the cap: every line once across polls; offset reads on. */
START_TEST(test_big)
{
	struct deck	 d;
	struct node_out	 o;

	NEED_SDK();
	deck_start(&d, "mcp-big");
	node_ok(&d, "big", NULL, &o);
	ck_assert_int_eq((int)jsonread_number(jsonread_get(o.json, "lines")),
	    30000);
	node_free(&o);
	deck_close(&d);
}
END_TEST

/* Cancel a running job: previous status running, then canceled. */
START_TEST(test_cancel)
{
	struct deck	 d;
	struct node_out	 o;

	NEED_SDK();
	deck_start(&d, "mcp-cancel");
	node_ok(&d, "cancel", NULL, &o);
	ck_assert_str_eq(jsonread_text(o.json, "previous_status"), "running");
	ck_assert_str_eq(jsonread_text(o.json, "status"), "canceled");
	node_free(&o);
	deck_close(&d);
}
END_TEST

/* Answer a read -p prompt through terminal_send_input. */
START_TEST(test_prompt)
{
	struct deck	 d;
	struct node_out	 o;

	NEED_SDK();
	deck_start(&d, "mcp-prompt");
	node_ok(&d, "prompt", NULL, &o);
	ck_assert_ptr_nonnull(strstr(jsonread_text(o.json, "output"),
	    "got=s3cret"));
	node_free(&o);
	deck_close(&d);
}
END_TEST

/* A full-screen program read through terminal_screen. */
START_TEST(test_screen)
{
	struct deck	 d;
	struct node_out	 o;

	NEED_SDK();
	deck_start(&d, "mcp-screen");
	node_ok(&d, "screen", NULL, &o);
	ck_assert_str_eq(jsonread_text(o.json, "first"),
	    "row 001 of the file");
	node_free(&o);
	deck_close(&d);
}
END_TEST

/* One-shot runs: a timeout, streams apart, input_data, not found. */
START_TEST(test_run)
{
	struct deck	 d;
	struct node_out	 o;

	NEED_SDK();
	deck_start(&d, "mcp-run");
	node_ok(&d, "run", NULL, &o);
	ck_assert_int_eq(jsonread_bool(jsonread_get(o.json, "timed_out")), 1);
	ck_assert_str_eq(jsonread_text(o.json, "stdout"), "hello\nworld\n");
	ck_assert_str_eq(jsonread_text(o.json, "stderr"), "err\n");
	node_free(&o);
	deck_close(&d);
}
END_TEST

/*
 * The read-only profile: three tools, a cancel refused, and the job
 * (started here over ctl) still running afterwards; it works with the
 * deck's full socket moved away (it uses NAME.ro only).
 */
START_TEST(test_read_only)
{
	const char		*spawn[] = { "--json", "spawn", "--",
				    "sleep", "300", NULL };
	const char		*status[] = { "--json", "status", NULL,
				    NULL };
	struct deck		 d;
	struct node_out		 o;
	struct jsonread		*job;
	char			*out, *cause = NULL, id[32];
	char			 sock[PATH_MAX + 32], away[PATH_MAX + 40];

	NEED_SDK();
	deck_start(&d, "mcp-ro");
	out = ctl(&d, spawn);
	job = jsonread_parse(out, strlen(out), &cause);
	ck_assert_msg(job != NULL, "spawn: %s: %s", cause, out);
	ck_assert_int_eq(jsonread_type(jsonread_get(job, "id")),
	    JSONREAD_NUMBER);
	snprintf(id, sizeof id, "%.0f", jsonread_number(jsonread_get(job,
	    "id")));
	jsonread_free(job);
	free(out);
	/*
	 * The full socket out of the way: the Ask profile talks to the
	 * deck's read-only one, so the deck itself refuses what it must.
	 */
	snprintf(sock, sizeof sock, "%s/jobdeck/mcp-ro.sock", d.run);
	snprintf(away, sizeof away, "%s.away", sock);
	ck_assert_int_eq(rename(sock, away), 0);
	node_run(&d, "readonly", id, &o);
	ck_assert_int_eq(rename(away, sock), 0);
	ck_assert_msg(o.status == 0, "interop readonly: exit %d\nstdout: %s\n"
	    "stderr: %s", o.status, o.out, o.err);
	ck_assert_uint_eq(jsonread_count(jsonread_get(o.json, "tools")), 3);
	node_free(&o);
	status[2] = id;
	out = ctl(&d, status);
	job = jsonread_parse(out, strlen(out), &cause);
	ck_assert_msg(job != NULL, "status: %s: %s", cause, out);
	ck_assert_str_eq(jsonread_text(job, "state"), "running");
	jsonread_free(job);
	free(out);
	deck_close(&d);
}
END_TEST

/*
 * 200 terminal calls at once (150 of them waiting two seconds for their
 * job's end) are all answered, each with its own job: the mcp queues its
 * requests of the deck, and the deck's streams do not take the short
 * requests' places.  The deck keeps every finished job, so each wait's
 * status read finds its own.
 */
START_TEST(test_burst)
{
	const char	*ps[] = { "--json", "list", "--all", NULL };
	struct deck	 d;
	struct node_out	 o;
	char		*out;

	NEED_SDK();
	deck_start_cfg(&d, "mcp-burst", "[settings]\nkeep_finished = 1000\n");
	node_ok(&d, "burst", NULL, &o);
	ck_assert_int_eq((int)jsonread_number(jsonread_get(o.json, "answered")),
	    200);
	ck_assert_int_eq((int)jsonread_number(jsonread_get(o.json, "jobs")),
	    200);
	node_free(&o);
	out = ctl(&d, ps);
	ck_assert_msg(strstr(out, "burst-199") != NULL, "%.300s", out);
	free(out);
	deck_close(&d);
}
END_TEST

/* Return how many processes carry tag in their environment. */
static int
tagged_procs(const char *tag, pid_t *one)
{
	DIR		*dir;
	struct dirent	*de;
	char		 path[300], env[65536];
	ssize_t		 n, i;
	size_t		 tlen = strlen(tag);
	int		 fd, count = 0;

	ck_assert_ptr_nonnull(dir = opendir("/proc"));
	while ((de = readdir(dir)) != NULL) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "/proc/%s/environ", de->d_name);
		if ((fd = open(path, O_RDONLY)) == -1)
			continue;
		n = read(fd, env, sizeof env - 1);
		close(fd);
		for (i = 0; n > 0 && i < n; i += (ssize_t)strlen(env + i) + 1) {
			env[n] = '\0';
			if (strncmp(env + i, tag, tlen) == 0 &&
			    env[i + (ssize_t)tlen] == '\0') {
				if (one != NULL)
					*one = (pid_t)atoi(de->d_name);
				count++;
				break;
			}
		}
	}
	closedir(dir);
	return count;
}

/* Read one line from fd within ms into buf; its length, or -1. */
static ssize_t
read_line(int fd, char **buf, size_t *len, int ms)
{
	int64_t		 end = term_now_ms() + ms;
	struct pollfd	 pfd = { .fd = fd, .events = POLLIN };
	char		*nl;
	size_t		 n;

	for (;;) {
		if (*buf != NULL && (nl = memchr(*buf, '\n', *len)) != NULL) {
			n = (size_t)(nl - *buf);
			return (ssize_t)n;
		}
		if (term_now_ms() > end)
			return -1;
		if (poll(&pfd, 1, 50) > 0 && !e2e_drain(fd, buf, len))
			return -1;
	}
}

/* Take the first line (and its newline) off buf. */
static void
drop_line(char *buf, size_t *len)
{
	char	*nl = memchr(buf, '\n', *len);
	size_t	 n = (size_t)(nl - buf) + 1;

	memmove(buf, buf + n, *len - n + 1);
	*len -= n;
}

/*
 * --start: no deck runs; mcp starts one, the tools work on it, and when
 * the session ends (stdin closed, or signo) mcp leaves with status 0 and
 * the deck and its jobs are gone and its socket removed.
 */
static void
start_case(int signo)
{
	static const char *const msgs[] = {
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
		    "\"params\":{\"protocolVersion\":\"2025-06-18\","
		    "\"capabilities\":{},\"clientInfo\":{\"name\":\"c-test\","
		    "\"version\":\"1\"}}}",
		"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
		"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\","
		    "\"params\":{\"name\":\"terminal\",\"arguments\":"
		    "{\"command\":\"sleep 300\"}}}",
		"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\","
		    "\"params\":{\"name\":\"terminal_job_list\","
		    "\"arguments\":{}}}",
	};
	char		 dir[] = "/tmp/jd-mcp-start.XXXXXX", run[64];
	char		 tag[128], sock[PATH_MAX], *buf = NULL, *cause = NULL;
	size_t		 len = 0, i;
	ssize_t		 n;
	struct jsonread	*j;
	const struct jsonread *sc;
	int		 in[2], out[2], st, null, rc;
	int64_t		 end;
	pid_t		 pid, left = 0;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(run, sizeof run, "%s/run", dir);
	ck_assert_int_eq(mkdir(run, 0700), 0);
	snprintf(tag, sizeof tag, "JOBDECK_MCP_E2E_TAG=%s", dir);
	snprintf(sock, sizeof sock, "%s/jobdeck/mcp-start.sock", run);
	ck_assert_int_eq(pipe2(in, O_CLOEXEC), 0);
	ck_assert_int_eq(pipe2(out, O_CLOEXEC), 0);
	pid = fork();
	ck_assert_int_ne(pid, -1);
	if (pid == 0) {
		null = open("/dev/null", O_WRONLY);
		dup2(in[0], 0);
		dup2(out[1], 1);
		dup2(null, 2);
		setenv("XDG_RUNTIME_DIR", run, 1);
		setenv("HOME", dir, 1);
		putenv(tag);
		execl(e2e_bin(), e2e_bin(), "mcp", "-S", "mcp-start",
		    "--start", (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	for (i = 0; i < sizeof msgs / sizeof msgs[0]; i++) {
		ck_assert(write(in[1], msgs[i], strlen(msgs[i])) ==
		    (ssize_t)strlen(msgs[i]));
		ck_assert(write(in[1], "\n", 1) == 1);
		if (i == 1)
			continue;	/* a notification: no answer */
		n = read_line(out[0], &buf, &len, CTL_MS);
		ck_assert_msg(n >= 0, "no answer to message %zu: %s", i,
		    buf != NULL ? buf : "");
		buf[n] = '\0';
		j = jsonread_parse(buf, (size_t)n, &cause);
		ck_assert_msg(j != NULL, "%s: %s", cause, buf);
		ck_assert_msg(jsonread_get(j, "error") == NULL, "%s", buf);
		ck_assert_int_eq((int)jsonread_number(jsonread_get(j, "id")),
		    (int)i + (i == 0 ? 1 : 0));
		if (i == 0)
			ck_assert_str_eq(jsonread_text(jsonread_get(j,
			    "result"), "protocolVersion"), "2025-06-18");
		else {
			sc = jsonread_get(jsonread_get(j, "result"),
			    "structuredContent");
			ck_assert_msg(jsonread_bool(jsonread_get(jsonread_get(
			    j, "result"), "isError")) != 1, "%s", buf);
			ck_assert_msg(sc != NULL, "%s", buf);
			if (i == 3)
				ck_assert_int_eq((int)jsonread_number(
				    jsonread_get(sc, "running")), 1);
		}
		jsonread_free(j);
		buf[n] = '\n';
		drop_line(buf, &len);
	}
	ck_assert_msg(access(sock, F_OK) == 0, "no socket %s", sock);
	/*
	 * mcp, its deck and the sleep at least (the sleep may still be in
	 * its exec, its environment unreadable for a moment).
	 */
	end = term_now_ms() + EXIT_MS;
	while ((n = tagged_procs(tag, NULL)) < 3 && term_now_ms() < end)
		(void)poll(NULL, 0, 20);
	ck_assert_int_ge(n, 3);
	if (signo != 0)
		ck_assert_int_eq(kill(pid, signo), 0);
	else
		close(in[1]);
	end = term_now_ms() + EXIT_MS;
	while ((rc = waitpid(pid, &st, WNOHANG)) == 0 && term_now_ms() < end)
		(void)poll(NULL, 0, 20);
	if (rc == 0)
		kill(pid, SIGKILL);
	ck_assert_msg(rc == pid, "mcp --start still runs %d ms after EOF",
	    EXIT_MS);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "mcp: status "
	    "%d", st);
	while (tagged_procs(tag, &left) > 0 && term_now_ms() < end)
		(void)poll(NULL, 0, 20);
	if (left != 0 && tagged_procs(tag, &left) > 0) {
		kill(left, SIGKILL);
		ck_abort_msg("process %d is left after mcp --start ended",
		    (int)left);
	}
	ck_assert_msg(access(sock, F_OK) != 0, "socket %s is left", sock);
	free(buf);
	if (signo != 0)
		close(in[1]);
	close(out[0]);
	ck_assert_int_eq(system(e2e_fmt("rm -rf %s", dir)), 0);
}

/* --start, the session ended by closing stdin. */
START_TEST(test_start)
{
	start_case(0);
}
END_TEST

/* --start, the session ended by SIGTERM. */
START_TEST(test_start_sigterm)
{
	start_case(SIGTERM);
}
END_TEST

/* --start, the session ended by SIGHUP (the agent's terminal went). */
START_TEST(test_start_sighup)
{
	start_case(SIGHUP);
}
END_TEST

/*
 * Run `jobdeck ctl -S deck ARGS` with XDG_RUNTIME_DIR=run; its exit
 * status, and its stdout in out (size n).
 */
static int
ctl_at(const char *run, const char *deck, const char *args, char *out,
    size_t n)
{
	FILE	*f;
	size_t	 len = 0, r;
	int	 st;

	f = popen(e2e_fmt("XDG_RUNTIME_DIR='%s' '%s' ctl -S %s %s 2>&1", run,
	    abs_bin(), deck, args), "r");
	ck_assert_ptr_nonnull(f);
	while (len < n - 1 && (r = fread(out + len, 1, n - 1 - len, f)) > 0)
		len += r;
	out[len] = '\0';
	st = pclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/*
 * --start loses a race: the deck it starts still reads its configuration
 * (a FIFO the test holds shut) when another deck of that name starts and
 * runs a job; ours then finds the name taken and ends.  mcp works on the
 * other deck, says so, and when its session ends leaves that deck and
 * its job running (it sent that deck quit: another session's jobs died).
 */
START_TEST(test_start_race)
{
	static const char init[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
	    "\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
	    "\"capabilities\":{},\"clientInfo\":{\"name\":\"c-test\","
	    "\"version\":\"1\"}}}\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":"
	    "\"tools/call\",\"params\":{\"name\":\"terminal_job_list\","
	    "\"arguments\":{}}}\n";
	static const char cfg[] = "[[job]]\nname = \"nap\"\n"
	    "command = \"sleep 300\"\n";
	char		 dir[] = "/tmp/jd-mcp-race.XXXXXX", run[64], path[128];
	char		 fifo[PATH_MAX], sock[PATH_MAX], tagm[128], taga[128];
	char		 out[8192], *buf = NULL, *err = calloc(1, 1);
	size_t		 len = 0, elen = 0;
	ssize_t		 n;
	int		 in[2], o[2], e[2], fd, st, rc, null;
	int64_t		 end;
	pid_t		 mcp, deck;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(run, sizeof run, "%s/run", dir);
	ck_assert_int_eq(mkdir(run, 0700), 0);
	snprintf(sock, sizeof sock, "%s/jobdeck/mcp-race.sock", run);
	snprintf(path, sizeof path, "%s/b", dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof path, "%s/b/jobdeck", dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	snprintf(fifo, sizeof fifo, "%s/config.toml", path);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	snprintf(path, sizeof path, "%s/a.toml", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	ck_assert_int_ne(fd, -1);
	ck_assert(write(fd, cfg, strlen(cfg)) == (ssize_t)strlen(cfg));
	close(fd);
	snprintf(tagm, sizeof tagm, "JOBDECK_MCP_E2E_TAG=%s/m", dir);
	snprintf(taga, sizeof taga, "JOBDECK_MCP_E2E_TAG=%s/a", dir);

	/* mcp --start: its deck waits on the FIFO. */
	ck_assert_int_eq(pipe2(in, O_CLOEXEC), 0);
	ck_assert_int_eq(pipe2(o, O_CLOEXEC), 0);
	ck_assert_int_eq(pipe2(e, O_CLOEXEC), 0);
	mcp = fork();
	ck_assert_int_ne(mcp, -1);
	if (mcp == 0) {
		dup2(in[0], 0);
		dup2(o[1], 1);
		dup2(e[1], 2);
		setenv("XDG_RUNTIME_DIR", run, 1);
		setenv("XDG_CONFIG_HOME", e2e_fmt("%s/b", dir), 1);
		setenv("HOME", dir, 1);
		putenv(tagm);
		execl(abs_bin(), abs_bin(), "mcp", "-S", "mcp-race", "--start",
		    (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(o[1]);
	close(e[1]);
	end = term_now_ms() + EXIT_MS;
	while (tagged_procs(tagm, NULL) < 2) {
		ck_assert_msg(term_now_ms() < end, "mcp --start started no "
		    "deck");
		(void)poll(NULL, 0, 20);
	}

	/* The other deck takes the name, and runs its job. */
	deck = fork();
	ck_assert_int_ne(deck, -1);
	if (deck == 0) {
		null = open("/dev/null", O_RDWR);
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		setenv("XDG_RUNTIME_DIR", run, 1);
		setenv("HOME", dir, 1);
		putenv(taga);
		execl(abs_bin(), abs_bin(), "up", "--stay", "-S", "mcp-race",
		    "-c", path, (char *)NULL);
		_exit(127);
	}
	end = term_now_ms() + EXIT_MS;
	while (tagged_procs(taga, NULL) < 2 || access(sock, F_OK) != 0) {
		ck_assert_msg(term_now_ms() < end, "the other deck did not "
		    "start its job");
		ck_assert_int_eq(waitpid(deck, &st, WNOHANG), 0);
		(void)poll(NULL, 0, 20);
	}

	/* Now mcp's deck reads an empty configuration, and loses. */
	end = term_now_ms() + EXIT_MS;
	while ((fd = open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC)) == -1) {
		ck_assert_msg(errno == ENXIO && term_now_ms() < end,
		    "%s: %s", fifo, strerror(errno));
		(void)poll(NULL, 0, 20);
	}
	close(fd);

	/* The session works on the other deck. */
	ck_assert(write(in[1], init, strlen(init)) == (ssize_t)strlen(init));
	n = read_line(o[0], &buf, &len, CTL_MS);
	ck_assert_msg(n >= 0, "no answer to initialize");
	drop_line(buf, &len);
	n = read_line(o[0], &buf, &len, CTL_MS);
	ck_assert_msg(n >= 0, "no answer to terminal_job_list");
	buf[n] = '\0';
	ck_assert_msg(strstr(buf, "\"running\":1") != NULL, "%s", buf);
	close(in[1]);
	end = term_now_ms() + EXIT_MS;
	while ((rc = waitpid(mcp, &st, WNOHANG)) == 0 && term_now_ms() < end)
		(void)poll(NULL, 0, 20);
	if (rc == 0)
		kill(mcp, SIGKILL);
	ck_assert_msg(rc == mcp, "mcp still runs %d ms after EOF", EXIT_MS);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "mcp: status "
	    "%d", st);
	while (e2e_drain(e[0], &err, &elen))
		;
	close(e[0]);
	close(o[0]);

	/* The other deck lives on, its job running. */
	ck_assert_msg(waitpid(deck, &st, WNOHANG) == 0, "mcp quit the deck "
	    "it did not start (status %d); its stderr: %s", st, err);
	rc = ctl_at(run, "mcp-race", "ps", out, sizeof out);
	ck_assert_msg(rc == 0 && strstr(out, "sleep 300") != NULL &&
	    strstr(out, "running") != NULL, "ctl ps: %d: %s", rc, out);
	ck_assert_msg(strstr(err, "another deck 'mcp-race' started "
	    "meanwhile") != NULL, "mcp's stderr: %s", err);
	ck_assert_int_eq(ctl_at(run, "mcp-race", "quit", out, sizeof out), 0);
	end = term_now_ms() + EXIT_MS;
	while ((rc = waitpid(deck, &st, WNOHANG)) == 0 && term_now_ms() < end)
		(void)poll(NULL, 0, 20);
	if (rc == 0)
		kill(deck, SIGKILL);
	ck_assert_msg(rc == deck, "the other deck does not quit");
	free(buf);
	free(err);
	ck_assert_int_eq(system(e2e_fmt("rm -rf %s", dir)), 0);
}
END_TEST

/*
 * The stack tools on a deck of one configured job, web: the client
 * changes the file, stack_reload names the job added and the deck runs
 * it, web untouched; stack_scale runs web.1 and web.2; a file that does
 * not load is an error at its place.
 */
START_TEST(test_stack)
{
	const char		*list[] = { "list", NULL };
	struct deck		 d;
	struct node_out		 o;
	const struct jsonread	*added;
	char			*out;

	NEED_SDK();
	deck_start_cfg(&d, "mcp-stack", "[[job]]\nname = \"web\"\n"
	    "command = \"sleep 301\"\n");
	node_ok(&d, "stack", d.cfg, &o);
	added = jsonread_get(o.json, "added");
	ck_assert_uint_eq(jsonread_count(added), 1);
	ck_assert_str_eq(jsonread_string(jsonread_index(added, 0), NULL),
	    "extra");
	ck_assert_int_eq((int)jsonread_number(jsonread_get(o.json,
	    "replicas")), 2);
	ck_assert_msg(strstr(jsonread_text(o.json, "broken"), "mcp.toml:3:") !=
	    NULL, "%s", o.out);
	node_free(&o);
	out = ctl(&d, list);
	ck_assert_msg(strstr(out, "extra: sleep 302") != NULL &&
	    strstr(out, "web.1: sleep 301") != NULL &&
	    strstr(out, "web.2: sleep 301") != NULL, "%s", out);
	free(out);
	deck_close(&d);
}
END_TEST

static const struct e2e_case cases[] = {
	{ "initialize", &test_initialize, 120 },
	{ "tools", &test_tools, 120 },
	{ "async", &test_async, 120 },
	{ "big", &test_big, 120 },
	{ "cancel", &test_cancel, 120 },
	{ "prompt", &test_prompt, 120 },
	{ "screen", &test_screen, 120 },
	{ "run", &test_run, 120 },
	{ "read_only", &test_read_only, 120 },
	{ "start", &test_start, 60 },
	{ "start_sigterm", &test_start_sigterm, 60 },
	{ "start_sighup", &test_start_sighup, 60 },
	{ "start_race", &test_start_race, 90 },
	{ "burst", &test_burst, 120 },
	{ "stack", &test_stack, 120 },
};

/* Run the suite. */
int
main(void)
{
	Suite	*s = suite_create("mcp_e2e");

	e2e_add_cases(s, cases, sizeof cases / sizeof cases[0]);
	return e2e_main(s);
}

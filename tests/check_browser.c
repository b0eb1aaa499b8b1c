/*
 * check_browser.c: the browser on a real loop with a real jobtable as its
 * reaper, driving the installed chromium-headless-shell: auto reaches
 * READY with a ws://127.0.0.1:N/devtools/browser/... URL whose
 * /json/version answers; stop leaves no process and no profile; a crash
 * is FAILED with its reason and a restart works; a missing program, one
 * that exits at once and one that never prints DevTools (timed out,
 * killed) are FAILED with what happened; a given ws:// URL that is
 * refused is FAILED, one that answers READY (and FAILED once its browser
 * goes away), one whose reply points elsewhere is FAILED; browser_free()
 * while running leaves nothing; dead decks' profiles are removed, nothing
 * else; Docker falls back to a local browser when no daemon answers (what
 * its commands leave is killed), and runs an image only where one does
 * (else SKIP).
 *
 * Each test has TMPDIR pointing at a directory of its own, so its
 * browser's profile is made there.  Each test's process is a child
 * subreaper, as jobdeck is, so everything the browser starts (its zygotes
 * and renderers, the docker stand-in's "container") stays its descendant
 * and is reaped by the jobtable; "nothing left" means no live process
 * descends from the test's and no profile is left in its directory.
 */
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "browser.h"
#include "cgroup.h"
#include "http.h"
#include "jobtable.h"
#include "jsonval.h"
#include "loop.h"
#include "skip.h"
#include "testdir.h"
#include "testnet.h"
#include "testproc.h"

#define READY_MS	60000	/* a browser's start on a loaded machine */
#define WAIT_MS		15000	/* anything else */
#define TAG_ENV		"CHECK_BROWSER_TAG"	/* this run's dirs' prefix */

/* What one test drives. */
struct fx {
	struct loop	*loop;
	struct jobtable	*jt;
	struct http	*http;
	struct cgroup	*cg;
	struct browser	*b;
	char		 dir[128];	/* TMPDIR, a real path */
};

/* What a subscriber saw. */
struct seen {
	int		 n;
	char		 states[256];	/* one letter a change */
};

/* What an HTTP GET of the test's answered. */
struct got {
	int		 done;
	long		 status;
	char		*body;
	char		*error;
};

static struct fx fx;

/* Record a change: the state's first letter (stoppinG, stoppeD). */
static void
changed_cb(struct browser *b, void *arg)
{
	struct seen		*s = arg;
	enum browser_state	 st = browser_state(b);
	size_t			 len = strlen(s->states);

	s->n++;
	if (len + 1 < sizeof s->states) {
		s->states[len] = st == BROWSER_STOPPING ? 'g' :
		    st == BROWSER_STOPPED ? 'd' :
		    browser_state_name(st)[0];
		s->states[len + 1] = '\0';
	}
}

static const struct browser_cbs cbs = { changed_cb };

/* A loop, a jobtable, an http client and TMPDIR of the test's own. */
static void
setup(void)
{
	char	 tmpl[128], real[PATH_MAX];
	char	*cause = NULL;

	ck_assert_int_eq(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);
	signal(SIGPIPE, SIG_IGN);
	memset(&fx, 0, sizeof fx);
	snprintf(tmpl, sizeof tmpl, "/tmp/%s.XXXXXX", getenv(TAG_ENV));
	fx.loop = loop_new();
	fx.jt = jobtable_new(fx.loop);
	fx.http = http_new(fx.loop, &cause);
	ck_assert_msg(fx.http != NULL, "http_new: %s", cause);
	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	ck_assert_ptr_nonnull(realpath(tmpl, real));
	ck_assert_uint_lt(strlen(real), sizeof fx.dir);
	strcpy(fx.dir, real);
	ck_assert_int_eq(setenv("TMPDIR", fx.dir, 1), 0);
}

/* What procs_with() looks for, whether it kills, and how many it found. */
struct procs_with {
	const char	*s;
	int		 kill_them;
	int		 found;
};

/* Count (and kill, if asked) a process with the string in its argv. */
static void
procs_with_each(pid_t pid, char *cmdline, size_t len, void *arg)
{
	struct procs_with	*pw = arg;
	size_t			 i;

	for (i = 0; i < len; i++) {
		if (cmdline[i] == '\0')
			cmdline[i] = ' ';
	}
	cmdline[len] = '\0';
	if (strstr(cmdline, pw->s) != NULL) {
		pw->found++;
		if (pw->kill_them)
			kill(pid, SIGKILL);
	}
}

/*
 * Return how many processes have s in their argv, killing them with kill
 * (a failed test's leftovers, when the suite ends).
 */
static int
procs_with(const char *s, int kill_them)
{
	struct procs_with	pw = { s, kill_them, 0 };
	char			buf[8192];

	if (testproc_scan(buf, sizeof buf, procs_with_each, &pw) != 0)
		return -1;
	return pw.found;
}

/* One process of /proc: its pid, its parent and whether it is a zombie. */
struct proc {
	pid_t	pid;
	pid_t	ppid;
	int	zombie;
};

/* Read every process's pid, parent and state; how many, or -1. */
static int
procs_read(struct proc *ps, int max)
{
	struct testproc_stat	 st;
	struct dirent		*de;
	DIR			*d;
	int			 n = 0;

	if ((d = opendir("/proc")) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL && n < max) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		if (testproc_stat((pid_t)atol(de->d_name), &st) == -1)
			continue;
		ps[n].pid = (pid_t)atol(de->d_name);
		ps[n].zombie = st.state == 'Z' || st.state == 'X';
		ps[n].ppid = (pid_t)st.ppid;
		n++;
	}
	closedir(d);
	return n;
}

/*
 * Return how many live processes descend from this one (the test's
 * process is a subreaper, so nothing the browser started escapes it), or
 * that have the test's directory in their argv.
 */
static int
count_procs(void)
{
	static struct proc	 ps[65536];
	pid_t			 self = getpid(), p;
	int			 n, i, k, hops, found = 0;

	if ((n = procs_read(ps, 65536)) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		if (ps[i].zombie || ps[i].pid == self)
			continue;
		for (p = ps[i].ppid, hops = 0; p > 1 && p != self &&
		    hops < 64; hops++) {
			for (k = 0; k < n && ps[k].pid != p; k++)
				;
			p = k < n ? ps[k].ppid : 0;
		}
		if (p == self)
			found++;
	}
	if (found == 0)
		found = procs_with(fx.dir, 0);
	return found;
}

/* Return how many entries the test's directory has (profiles, files). */
static int
count_entries(const char *prefix)
{
	struct dirent	*de;
	DIR		*d;
	int		 n = 0;

	d = opendir(fx.dir);
	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, prefix, strlen(prefix)) == 0)
			n++;
	}
	closedir(d);
	return n;
}

/* Run loop turns for ms milliseconds. */
static void
run_for(int64_t ms)
{
	int64_t	end = loop_now_ms() + ms;

	while (loop_now_ms() < end)
		ck_assert_int_eq(loop_run_once(fx.loop, 20), 0);
}

/* Run loop turns until b is in state st; 0 if it is not within ms. */
static int
run_until_state(struct browser *b, enum browser_state st, int64_t ms)
{
	int64_t	end = loop_now_ms() + ms;

	while (browser_state(b) != st && loop_now_ms() < end)
		ck_assert_int_eq(loop_run_once(fx.loop, 20), 0);
	return browser_state(b) == st;
}

/* Run loop turns until nothing of the test's runs (at most WAIT_MS). */
static void
run_until_gone(void)
{
	int64_t	end = loop_now_ms() + WAIT_MS;

	while ((count_procs() != 0 || count_entries("jobdeck-browser-") != 0) &&
	    loop_now_ms() < end)
		ck_assert_int_eq(loop_run_once(fx.loop, 20), 0);
}

/* Free the browser and what setup() made; nothing may be left. */
static void
teardown(void)
{
	int		 procs, entries, i;

	browser_free(fx.b);
	/* A SIGKILL is sent at once, but takes a moment to end a process. */
	for (i = 0; i < 300 && count_procs() != 0; i++)
		usleep(10000);
	procs = count_procs();
	entries = count_entries("jobdeck-browser-");
	http_free(fx.http);
	jobtable_free(fx.jt);
	loop_free(fx.loop);
	if (fx.cg != NULL)
		cgroup_free(fx.cg);
	testdir_remove(fx.dir);
	ck_assert_msg(procs == 0, "%d processes left after browser_free",
	    procs);
	ck_assert_msg(entries == 0, "%d profiles left after browser_free",
	    entries);
}

/* Make the test's browser for cdp_url with command and timeout. */
static struct browser *
make(const char *cdp_url, const char *image, const char *command,
    int64_t timeout_ms, struct seen *s)
{
	struct browser_spec	 spec;
	char			*cause = NULL;

	memset(&spec, 0, sizeof spec);
	spec.cdp_url = cdp_url;
	spec.image = image;
	spec.command = command;
	spec.timeout_ms = timeout_ms;
	fx.b = browser_new(fx.loop, fx.jt, fx.cg, NULL, &spec, &cause);
	ck_assert_msg(fx.b != NULL, "browser_new: %s", cause);
	if (s != NULL)
		browser_subscribe(fx.b, &cbs, s);
	return fx.b;
}

/* Start b; fails the test if browser_start() refuses. */
static void
start(struct browser *b)
{
	char	*cause = NULL;

	ck_assert_msg(browser_start(b, &cause) == 0, "browser_start: %s",
	    cause);
}

/* Start b and wait until it is ready; its URL is checked. */
static void
start_ready(struct browser *b)
{
	const char	*url;

	start(b);
	ck_assert_int_eq(browser_state(b), BROWSER_STARTING);
	ck_assert_msg(run_until_state(b, BROWSER_READY, READY_MS),
	    "not ready: %s: %s", browser_state_name(browser_state(b)),
	    browser_why(b) != NULL ? browser_why(b) : "");
	url = browser_url(b);
	ck_assert_ptr_nonnull(url);
	ck_assert_msg(strncmp(url, "ws://127.0.0.1:", 15) == 0, "url %s", url);
	ck_assert_msg(strstr(url, "/devtools/browser/") != NULL, "url %s", url);
}

/* Record an HTTP answer. */
static void
got_cb(long status, const char *body, size_t len, const char *error,
    void *arg)
{
	struct got	*g = arg;

	(void)len;
	g->done = 1;
	g->status = status;
	g->body = body != NULL ? strdup(body) : NULL;
	g->error = error != NULL ? strdup(error) : NULL;
}

/* GET url through the test's http client and wait for the answer. */
static void
get(const char *url, struct got *g)
{
	int64_t	 end = loop_now_ms() + WAIT_MS;
	char	*cause = NULL;

	memset(g, 0, sizeof *g);
	ck_assert_msg(http_get(fx.http, url, WAIT_MS, got_cb, g, &cause) !=
	    NULL, "http_get: %s", cause);
	while (!g->done && loop_now_ms() < end)
		ck_assert_int_eq(loop_run_once(fx.loop, 20), 0);
	ck_assert(g->done);
}

/* The /json/version URL of a ws://127.0.0.1:PORT/... URL. */
static void
json_url(const char *ws, char *buf, size_t size)
{
	int	port = atoi(ws + strlen("ws://127.0.0.1:"));

	snprintf(buf, size, "http://127.0.0.1:%d/json/version", port);
}

/*
 * Serve body to every HTTP request on the bound socket fd (closed here)
 * from a forked child of the test's (its pid in *pid, killed by the
 * caller).
 */
static void
serve_fd(int fd, const char *body, pid_t *pid)
{
	char	req[4096], *head;
	int	c;

	ck_assert_int_eq(listen(fd, 16), 0);
	head = NULL;
	ck_assert_int_ge(asprintf(&head, "HTTP/1.1 200 OK\r\nContent-Type: "
	    "application/json\r\nContent-Length: %zu\r\nConnection: close"
	    "\r\n\r\n", strlen(body)), 0);
	*pid = fork();
	ck_assert_int_ge(*pid, 0);
	if (*pid == 0) {
		for (;;) {
			if ((c = accept(fd, NULL, NULL)) == -1)
				continue;
			(void)read(c, req, sizeof req);
			(void)write(c, head, strlen(head));
			(void)write(c, body, strlen(body));
			close(c);
		}
	}
	free(head);
	close(fd);
}

/* serve_fd() on a free port of 127.0.0.1; its port. */
static int
serve(const char *body, pid_t *pid)
{
	int	port, fd;

	fd = testnet_bound(&port);
	serve_fd(fd, body, pid);
	return port;
}

/* End serve()'s child. */
static void
serve_end(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* Write an executable script into the test's directory; its path. */
static void
script(const char *name, const char *body, char *path, size_t size)
{
	FILE	*f;

	snprintf(path, size, "%s/%s", fx.dir, name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "#!/bin/sh\n%s\n", body);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(chmod(path, 0755), 0);
}

/*
 * auto reaches READY with a real browser whose /json/version answers;
 * two subscribers are told of every change; stop leaves no process and
 * no profile directory.
 */
START_TEST(test_auto_ready_then_stop)
{
	struct browser	*b;
	struct seen	 s1, s2;
	struct got	 g;
	struct stat	 sb;
	char		 url[128], *cause = NULL, profile[PATH_MAX];
	pid_t		 pid;

	memset(&s1, 0, sizeof s1);
	memset(&s2, 0, sizeof s2);
	b = make("auto", NULL, NULL, 0, &s1);
	browser_subscribe(b, &cbs, &s2);
	ck_assert_int_eq(browser_mode(b), BROWSER_AUTO);
	ck_assert_int_eq(browser_state(b), BROWSER_IDLE);
	ck_assert_str_eq(browser_state_name(browser_state(b)), "idle");
	ck_assert_ptr_null(browser_url(b));
	ck_assert_str_eq(browser_label(b), "Chrome Headless");
	start_ready(b);
	ck_assert_int_eq(browser_kind(b), BROWSER_KIND_LOCAL);
	ck_assert_str_eq(browser_state_name(browser_state(b)), "ready");
	ck_assert_ptr_null(browser_why(b));
	ck_assert_ptr_null(browser_container(b));
	ck_assert_msg(browser_product(b) != NULL &&
	    strncmp(browser_product(b), "HeadlessChrome/", 15) == 0,
	    "product %s", browser_product(b));
	pid = browser_pid(b);
	ck_assert_int_gt(pid, 0);
	ck_assert_ptr_nonnull(browser_profile(b));
	snprintf(profile, sizeof profile, "%s", browser_profile(b));
	ck_assert_msg(strncmp(profile, fx.dir, strlen(fx.dir)) == 0 &&
	    strstr(profile, "/jobdeck-browser-") != NULL, "profile %s",
	    profile);
	ck_assert_int_eq(stat(profile, &sb), 0);
	ck_assert(S_ISDIR(sb.st_mode));
	ck_assert_int_gt(count_procs(), 0);

	json_url(browser_url(b), url, sizeof url);
	get(url, &g);
	ck_assert_msg(g.error == NULL, "GET %s: %s", url, g.error);
	ck_assert_int_eq(g.status, 200);
	ck_assert_ptr_nonnull(strstr(g.body, browser_url(b)));
	free(g.body);

	ck_assert_int_eq(browser_start(b, &cause), -1);
	ck_assert_str_eq(cause, "the browser is already running");
	free(cause);

	ck_assert_int_eq(browser_stop(b, &cause), 0);
	ck_assert_int_eq(browser_state(b), BROWSER_STOPPING);
	ck_assert_ptr_null(browser_url(b));
	ck_assert(run_until_state(b, BROWSER_STOPPED, WAIT_MS));
	ck_assert_int_eq(browser_pid(b), 0);
	ck_assert_ptr_null(browser_profile(b));
	ck_assert_int_eq(stat(profile, &sb), -1);
	ck_assert_int_eq(kill(-pid, 0), -1);
	ck_assert_int_eq(errno, ESRCH);
	ck_assert_int_eq(count_procs(), 0);
	ck_assert_int_eq(count_entries("jobdeck-browser-"), 0);
	ck_assert_str_eq(s1.states, "srgd");
	ck_assert_str_eq(s2.states, "srgd");

	ck_assert_int_eq(browser_stop(b, &cause), -1);
	ck_assert_str_eq(cause, "the browser is not running");
	free(cause);
}
END_TEST

/*
 * A crash (SIGKILL to its pid) is FAILED with the reason, everything of
 * it is killed and its profile removed; a restart then reaches READY,
 * and browser_free() while it runs leaves nothing (teardown checks).
 * Contained in a cgroup where one can be made, else by the marker.
 */
static void
crash_then_restart(int flags)
{
	struct browser	*b;
	struct seen	 s;
	char		*cause = NULL;
	pid_t		 pid;

	fx.cg = cgroup_new(flags);
	if (!(flags & CGROUP_NO_CGROUP) && cgroup_dir(fx.cg) == NULL)
		TEST_SKIP("no cgroup: %s", cgroup_warning(fx.cg));
	memset(&s, 0, sizeof s);
	b = make("auto", NULL, NULL, 0, &s);
	start_ready(b);
	pid = browser_pid(b);
	ck_assert_int_eq(kill(pid, SIGKILL), 0);
	ck_assert(run_until_state(b, BROWSER_FAILED, WAIT_MS));
	ck_assert_ptr_nonnull(browser_why(b));
	ck_assert_msg(strstr(browser_why(b), "Killed by SIGKILL") != NULL,
	    "why: %s", browser_why(b));
	ck_assert_ptr_null(browser_url(b));
	run_until_gone();
	ck_assert_int_eq(count_procs(), 0);
	ck_assert_int_eq(kill(-pid, 0), -1);
	ck_assert_int_eq(errno, ESRCH);
	ck_assert_int_eq(count_entries("jobdeck-browser-"), 0);
	ck_assert_ptr_null(browser_profile(b));
	ck_assert_str_eq(browser_state_name(browser_state(b)), "failed");

	ck_assert_int_eq(browser_restart(b, &cause), 0);
	ck_assert(run_until_state(b, BROWSER_READY, READY_MS));
	ck_assert_int_ne(browser_pid(b), pid);
	ck_assert_int_gt(count_procs(), 0);
	/* teardown: browser_free() while it runs leaves nothing. */
}

START_TEST(test_crash_then_restart_cgroup)
{
	crash_then_restart(0);
}
END_TEST

START_TEST(test_crash_then_restart_marker)
{
	crash_then_restart(CGROUP_NO_CGROUP);
}
END_TEST

/* restart while ready: stopped, then ready again with another browser. */
START_TEST(test_restart_ready)
{
	struct browser	*b;
	struct seen	 s;
	char		*cause = NULL;
	pid_t		 pid;

	memset(&s, 0, sizeof s);
	b = make("auto", NULL, NULL, 0, &s);
	start_ready(b);
	pid = browser_pid(b);
	ck_assert_int_eq(browser_restart(b, &cause), 0);
	ck_assert_int_eq(browser_state(b), BROWSER_STOPPING);
	ck_assert(run_until_state(b, BROWSER_READY, READY_MS));
	ck_assert_int_ne(browser_pid(b), pid);
	ck_assert_int_eq(kill(-pid, 0), -1);
	ck_assert_str_eq(s.states, "srgdsr");
	ck_assert_int_eq(count_entries("jobdeck-browser-"), 1);
}
END_TEST

/* A browser_command that is not there, or none at all on PATH. */
START_TEST(test_missing_command)
{
	struct browser	*b;
	char		*path, *cause = NULL;

	b = make("auto", NULL, "/nonexistent/chromium", 0, NULL);
	start(b);
	ck_assert_int_eq(browser_state(b), BROWSER_FAILED);
	ck_assert_str_eq(browser_why(b), "/nonexistent/chromium: not found");
	ck_assert_int_eq(count_entries("jobdeck-browser-"), 0);
	browser_free(b);

	path = strdup(getenv("PATH"));
	ck_assert_int_eq(setenv("PATH", fx.dir, 1), 0);
	b = make(NULL, NULL, NULL, 0, NULL);
	ck_assert_int_eq(browser_mode(b), BROWSER_OFF);
	ck_assert_int_eq(browser_stop(b, &cause), -1);
	ck_assert_str_eq(cause, "the browser is not running");
	free(cause);
	start(b);
	setenv("PATH", path, 1);
	free(path);
	ck_assert_int_eq(browser_state(b), BROWSER_FAILED);
	ck_assert_str_eq(browser_why(b), "no browser found: install "
	    "chromium-headless-shell or set browser_command");
}
END_TEST

/* A program that exits at once is FAILED with its status. */
START_TEST(test_exits_at_once)
{
	struct browser	*b;
	char		 path[PATH_MAX];

	script("fake-browser", "echo 'cannot start: no display' >&2; exit 3",
	    path, sizeof path);
	b = make("auto", NULL, path, 0, NULL);
	start(b);
	ck_assert(run_until_state(b, BROWSER_FAILED, WAIT_MS));
	ck_assert_str_eq(browser_why(b),
	    "fake-browser: Exited 3: cannot start: no display");
	run_until_gone();
	ck_assert_int_eq(count_entries("jobdeck-browser-"), 0);
	browser_free(b);

	b = make("auto", NULL, "false", 0, NULL);
	start(b);
	ck_assert(run_until_state(b, BROWSER_FAILED, WAIT_MS));
	ck_assert_str_eq(browser_why(b), "false: Exited 1");
}
END_TEST

/*
 * A start asked for while a failed browser is still being cleaned up is
 * STARTING at once (a job that waits for the browser must not see it
 * FAILED after asking for a start), and starts once the cleanup is done.
 */
START_TEST(test_start_during_cleanup)
{
	struct browser	*b;
	struct seen	 s;
	char		 path[PATH_MAX], *cause = NULL;

	/* Its child outlives it a moment: the cleanup has to wait. */
	script("dying-browser", "sleep 100 & exit 3", path, sizeof path);
	memset(&s, 0, sizeof s);
	b = make("auto", NULL, path, 0, &s);
	start(b);
	ck_assert(run_until_state(b, BROWSER_FAILED, WAIT_MS));
	ck_assert_str_eq(browser_why(b), "dying-browser: Exited 3");
	ck_assert_ptr_nonnull(browser_profile(b));	/* not yet removed */
	ck_assert_int_eq(browser_start(b, &cause), 0);
	ck_assert_int_eq(browser_state(b), BROWSER_STARTING);
	ck_assert_ptr_null(browser_why(b));
	ck_assert_int_eq(browser_start(b, &cause), -1);
	ck_assert_str_eq(cause, "the browser is already starting");
	free(cause);
	ck_assert(run_until_state(b, BROWSER_FAILED, WAIT_MS));
	ck_assert_str_eq(browser_why(b), "dying-browser: Exited 3");
	ck_assert_str_eq(s.states, "sfsf");
	run_until_gone();
	ck_assert_int_eq(count_procs(), 0);
	ck_assert_int_eq(count_entries("jobdeck-browser-"), 0);

	/* A stop while it waits for the cleanup: STOPPED, nothing started. */
	start(b);
	ck_assert(run_until_state(b, BROWSER_FAILED, WAIT_MS));
	start(b);
	ck_assert_int_eq(browser_stop(b, &cause), 0);
	ck_assert(run_until_state(b, BROWSER_STOPPED, WAIT_MS));
	run_for(200);
	ck_assert_int_eq(browser_state(b), BROWSER_STOPPED);
	ck_assert_str_eq(s.states, "sfsfsfsgd");
	ck_assert_int_eq(count_procs(), 0);
	ck_assert_int_eq(count_entries("jobdeck-browser-"), 0);
}
END_TEST

/*
 * A program that never says DevTools is killed at the start's bound and
 * FAILED; its child (sleep) goes with it, and the profile.
 */
START_TEST(test_never_ready_times_out)
{
	struct browser	*b;
	char		 path[PATH_MAX];
	int64_t		 t0;

	script("silent-browser", "sleep 100 & wait", path, sizeof path);
	b = make("auto", NULL, path, 1500, NULL);
	t0 = loop_now_ms();
	start(b);
	ck_assert_ptr_nonnull(browser_profile(b));
	ck_assert(run_until_state(b, BROWSER_FAILED, WAIT_MS));
	ck_assert_int_ge(loop_now_ms() - t0, 1400);
	ck_assert_str_eq(browser_why(b),
	    "timed out after 1.5 s waiting for DevTools");
	run_until_gone();
	ck_assert_int_eq(count_procs(), 0);
	ck_assert_int_eq(count_entries("jobdeck-browser-"), 0);
}
END_TEST

/*
 * A program that says DevTools is listening where nothing answers is
 * asked again until the bound, and the reason says what the last ask
 * met.
 */
START_TEST(test_devtools_never_answers)
{
	struct browser	*b;
	char		 path[PATH_MAX], body[256], want[256];
	int		 port = testnet_closed_port();

	snprintf(body, sizeof body, "echo 'DevTools listening on "
	    "ws://127.0.0.1:%d/devtools/browser/0f0f' >&2; exec sleep 100",
	    port);
	script("mute-browser", body, path, sizeof path);
	b = make("auto", NULL, path, 2000, NULL);
	start(b);
	ck_assert(run_until_state(b, BROWSER_FAILED, WAIT_MS));
	snprintf(want, sizeof want, "timed out after 2 s waiting for "
	    "DevTools (http://127.0.0.1:%d/json/version: connect: "
	    "Connection refused)", port);
	ck_assert_str_eq(browser_why(b), want);
	run_until_gone();
	ck_assert_int_eq(count_procs(), 0);
	ck_assert_int_eq(count_entries("jobdeck-browser-"), 0);
}
END_TEST

/*
 * The profile is removed without following a symbolic link in it: what
 * a link points to stays.
 */
START_TEST(test_profile_links_not_followed)
{
	struct browser	*b;
	struct stat	 sb;
	char		 path[PATH_MAX], victim[256], body[2048];
	FILE		*f;

	snprintf(victim, sizeof victim, "%s/victim", fx.dir);
	ck_assert_int_eq(mkdir(victim, 0700), 0);
	snprintf(path, sizeof path, "%s/victim/keep", fx.dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fclose(f);
	snprintf(body, sizeof body,
	    "for a; do case $a in --user-data-dir=*) d=${a#*=} ;; esac; done\n"
	    "mkdir -p \"$d/a/b/c\" && touch \"$d/a/b/c/f\" \"$d/a/g\"\n"
	    "ln -s '%s' \"$d/link\"; ln -s '%s' \"$d/a/b/link\"\n"
	    "ln -s '%s/keep' \"$d/a/flink\"\n"
	    "exit 1", victim, victim, victim);
	script("linking-browser", body, path, sizeof path);
	b = make("auto", NULL, path, 0, NULL);
	start(b);
	ck_assert(run_until_state(b, BROWSER_FAILED, WAIT_MS));
	run_until_gone();
	ck_assert_int_eq(count_entries("jobdeck-browser-"), 0);
	snprintf(path, sizeof path, "%s/victim/keep", fx.dir);
	ck_assert_int_eq(stat(path, &sb), 0);
	unlink(path);
	rmdir(victim);
}
END_TEST

/* A token for a deck that is dead: a child's pid and start, reaped. */
static void
dead_token(char *buf, size_t size)
{
	struct testproc_stat	 st;
	pid_t			 pid;
	int			 fds[2];
	char			 c;

	ck_assert_int_eq(pipe(fds), 0);
	if ((pid = fork()) == 0) {
		close(fds[1]);
		while (read(fds[0], &c, 1) == -1 && errno == EINTR)
			;
		_exit(0);
	}
	ck_assert_int_gt(pid, 0);
	close(fds[0]);
	ck_assert_int_eq(testproc_stat(pid, &st), 0);
	close(fds[1]);
	waitpid(pid, NULL, 0);
	snprintf(buf, size, "jobdeck.%ld.%llu", (long)pid, st.start);
}

/* Make dir/name a directory holding a file, a/b/f, and a link to to. */
static void
fake_profile(const char *name, const char *to)
{
	char	path[PATH_MAX];
	FILE	*f;

	snprintf(path, sizeof path, "%s/%s", fx.dir, name);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof path, "%s/%s/a", fx.dir, name);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof path, "%s/%s/a/b", fx.dir, name);
	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	fclose(f);
	snprintf(path, sizeof path, "%s/%s/a/link", fx.dir, name);
	ck_assert_int_eq(symlink(to, path), 0);
}

/* Return whether dir/name exists (a link itself counts). */
static int
exists(const char *name)
{
	struct stat	sb;
	char		path[PATH_MAX];

	snprintf(path, sizeof path, "%s/%s", fx.dir, name);
	return lstat(path, &sb) == 0;
}

/*
 * A new browser (a new deck's) removes the profiles of decks that ended
 * (jobdeck-browser-TOKEN-XXXXXX, TOKEN a dead deck's), without following
 * a link in one; it leaves a live deck's, a link named as a dead deck's
 * profile, other names, and (as root) another user's.
 */
START_TEST(test_sweep_profiles)
{
	char		 dead[96], name[256], victim[512], path[PATH_MAX];
	char		 keep[8][256];
	struct stat	 sb;
	FILE		*f;
	size_t		 nkeep = 0, i;

	dead_token(dead, sizeof dead);
	fx.cg = cgroup_new(CGROUP_NO_CGROUP);
	snprintf(victim, sizeof victim, "%s/victim", fx.dir);
	ck_assert_int_eq(mkdir(victim, 0700), 0);
	snprintf(path, sizeof path, "%s/keep", victim);
	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	fclose(f);

	snprintf(name, sizeof name, "jobdeck-browser-%s-Ab12Cd", dead);
	fake_profile(name, victim);
	snprintf(keep[nkeep++], sizeof keep[0], "jobdeck-browser-%s-Ab12Cd",
	    cgroup_token(fx.cg));
	fake_profile(keep[nkeep - 1], victim);
	snprintf(keep[nkeep++], sizeof keep[0], "jobdeck-browser-%s-linked",
	    dead);
	snprintf(path, sizeof path, "%s/%s", fx.dir, keep[nkeep - 1]);
	ck_assert_int_eq(symlink(victim, path), 0);
	snprintf(keep[nkeep++], sizeof keep[0], "jobdeck-browser-%s-short",
	    dead);
	fake_profile(keep[nkeep - 1], victim);
	snprintf(keep[nkeep++], sizeof keep[0], "jobdeck-browser-kFIbSj");
	fake_profile(keep[nkeep - 1], victim);
	if (geteuid() == 0) {
		snprintf(keep[nkeep++], sizeof keep[0],
		    "jobdeck-browser-%s-nobody", dead);
		fake_profile(keep[nkeep - 1], victim);
		snprintf(path, sizeof path, "%s/%s", fx.dir, keep[nkeep - 1]);
		ck_assert_int_eq(chown(path, 65534, 65534), 0);
	}

	make(NULL, NULL, NULL, 0, NULL);
	ck_assert_msg(!exists(name), "the dead deck's profile %s is left",
	    name);
	for (i = 0; i < nkeep; i++)
		ck_assert_msg(exists(keep[i]), "%s was removed", keep[i]);
	snprintf(path, sizeof path, "%s/keep", victim);
	ck_assert_msg(stat(path, &sb) == 0, "a link was followed");

	/* What is kept is the test's to remove. */
	for (i = 0; i < nkeep; i++) {
		snprintf(path, sizeof path, "rm -rf '%s/%s'", fx.dir, keep[i]);
		ck_assert_int_eq(system(path), 0);
	}
}
END_TEST

/* A given ws:// URL nobody listens on is FAILED: Connection refused. */
START_TEST(test_connect_refused)
{
	struct browser	*b;
	struct seen	 s;
	char		 url[64], want[128];
	int		 port = testnet_closed_port();

	memset(&s, 0, sizeof s);
	snprintf(url, sizeof url, "ws://127.0.0.1:%d", port);
	b = make(url, NULL, NULL, 0, &s);
	ck_assert_int_eq(browser_mode(b), BROWSER_CONNECT);
	snprintf(want, sizeof want, "Chrome at 127.0.0.1:%d", port);
	ck_assert_str_eq(browser_label(b), want);
	start(b);
	ck_assert(run_until_state(b, BROWSER_FAILED, WAIT_MS));
	ck_assert_int_eq(browser_kind(b), BROWSER_KIND_REMOTE);
	ck_assert_msg(strstr(browser_why(b), "Connection refused") != NULL,
	    "why: %s", browser_why(b));
	snprintf(want, sizeof want, "http://127.0.0.1:%d/json/version: ",
	    port);
	ck_assert_msg(strncmp(browser_why(b), want, strlen(want)) == 0,
	    "why: %s", browser_why(b));
	ck_assert_str_eq(s.states, "sf");
}
END_TEST

/*
 * Connecting to the running browser's ws URL is READY with that URL; to
 * its host alone READY with the reply's; stopping only forgets it; once
 * the browser goes away a check finds it FAILED.
 */
START_TEST(test_connect_running)
{
	struct browser		*local, *remote, *bare;
	struct browser_spec	 spec;
	char			 url[128], *cause = NULL;
	int			 port;

	local = make("auto", NULL, NULL, 0, NULL);
	start_ready(local);
	memset(&spec, 0, sizeof spec);
	spec.cdp_url = browser_url(local);
	remote = browser_new(fx.loop, fx.jt, NULL, fx.http, &spec, &cause);
	ck_assert_ptr_nonnull(remote);
	start(remote);
	ck_assert(run_until_state(remote, BROWSER_READY, WAIT_MS));
	ck_assert_str_eq(browser_url(remote), browser_url(local));
	ck_assert_int_eq(browser_pid(remote), 0);
	ck_assert_ptr_null(browser_profile(remote));
	ck_assert_int_eq(browser_stop(remote, &cause), 0);
	ck_assert_int_eq(browser_state(remote), BROWSER_STOPPED);
	ck_assert_int_eq(browser_state(local), BROWSER_READY);

	port = atoi(browser_url(local) + strlen("ws://127.0.0.1:"));
	snprintf(url, sizeof url, "ws://127.0.0.1:%d/", port);
	spec.cdp_url = url;
	bare = browser_new(fx.loop, fx.jt, NULL, NULL, &spec, &cause);
	ck_assert_ptr_nonnull(bare);
	start(bare);
	ck_assert(run_until_state(bare, BROWSER_READY, WAIT_MS));
	ck_assert_str_eq(browser_url(bare), browser_url(local));
	ck_assert_msg(browser_product(bare) != NULL, "no product");

	ck_assert_int_eq(browser_stop(local, &cause), 0);
	ck_assert(run_until_state(local, BROWSER_STOPPED, WAIT_MS));
	ck_assert(run_until_state(bare, BROWSER_FAILED,
	    BROWSER_CHECK_MS + WAIT_MS));
	ck_assert_msg(strstr(browser_why(bare), "Connection refused") != NULL,
	    "why: %s", browser_why(bare));
	browser_free(bare);
	browser_free(remote);
}
END_TEST

/*
 * Connect mode: a /json/version reply whose webSocketDebuggerUrl is at
 * another host, or another port, than the cdp_url is FAILED with why,
 * and no URL is given out; one at the same host (its name in other
 * case) and port is READY with it.
 */
START_TEST(test_connect_foreign_ws)
{
	static const struct {
		const char	*host;		/* the cdp_url's */
		const char	*path;		/* ... after HOST:PORT */
		const char	*ws;		/* the reply's host */
		int		 delta;		/* ... its port, from ours */
		int		 ready;
		const char	*scheme;	/* the reply's */
	} cases[] = {
		{ "127.0.0.1", "", "10.11.12.13", 0, 0, "ws" },
		{ "127.0.0.1", "", "127.0.0.1", 1, 0, "ws" },
		{ "localhost", "", "localhost.evil.example", 0, 0, "ws" },
		{ "127.0.0.1", "/devtools/browser/given", "203.0.113.9", 0, 0,
		    "ws" },
		{ "127.0.0.1", "", "127.0.0.1", 0, 0, "wss" },
		{ "localhost", "", "LocalHost", 0, 1, "ws" },
		{ "127.0.0.1", "/", "127.0.0.1", 0, 1, "ws" },
	};
	struct browser	*b;
	char		 hp[128], cdp[256], ws[128], body[512], want[512];
	pid_t		 pid;
	size_t		 i;
	int		 fd, port;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		fd = testnet_bound(&port);
		snprintf(hp, sizeof hp, "%s:%d", cases[i].host, port);
		snprintf(cdp, sizeof cdp, "ws://%s%s", hp, cases[i].path);
		snprintf(ws, sizeof ws, "%s://%s:%d/devtools/browser/x",
		    cases[i].scheme, cases[i].ws, port + cases[i].delta);
		snprintf(body, sizeof body, "{\"Browser\": \"Fake/1\", "
		    "\"webSocketDebuggerUrl\": \"%s\"}", ws);
		serve_fd(fd, body, &pid);
		b = make(cdp, NULL, NULL, 0, NULL);
		start(b);
		ck_assert(run_until_state(b, BROWSER_FAILED, WAIT_MS) ||
		    browser_state(b) == BROWSER_READY);
		if (cases[i].ready) {
			ck_assert_msg(browser_state(b) == BROWSER_READY,
			    "%s, %s: %s", cdp, ws, browser_why(b));
			ck_assert_str_eq(browser_url(b), ws);
		} else {
			ck_assert_msg(browser_state(b) == BROWSER_FAILED,
			    "%s: ready with %s", cdp, browser_url(b));
			ck_assert_ptr_null(browser_url(b));
			snprintf(want, sizeof want, "http://%s/json/version: "
			    "refused the webSocketDebuggerUrl %s: not ws://%s, "
			    "the cdp_url's scheme, host and port", hp, ws, hp);
			ck_assert_str_eq(browser_why(b), want);
		}
		browser_free(b);
		fx.b = NULL;
		serve_end(pid);
	}
}
END_TEST

/*
 * A /json/version reply whose webSocketDebuggerUrl is not a URL that
 * may reach a terminal or a job's environment (a newline, an escape, a
 * blank, a quote, overlong, not a string, port 0) never makes READY;
 * the same reply with a plain URL does (so the harness can fail).
 */
START_TEST(test_hostile_ws_url)
{
	static const char *const bad[] = {
		"\"ws://127.0.0.1:1/devtools\\nJOBDECK_X=1\"",
		"\"ws://127.0.0.1:1/devtools\\u001b]0;owned\\u0007\"",
		"\"ws://127.0.0.1:1/dev tools\"",
		"\"ws://127.0.0.1:1/dev\\\"tools\"",
		"\"ws://127.0.0.1:0/devtools\"",
		"\"ws://127.0.0.1:99999/devtools\"",
		"\"ws://a b:1/devtools\"",
		"9222",
		NULL	/* overlong, made below */
	};
	struct browser	*b;
	char		 path[PATH_MAX], sh[256], *body, *url;
	pid_t		 pid;
	size_t		 i;
	int		 port;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		if (bad[i] != NULL)
			ck_assert_int_ge(asprintf(&body,
			    "{\"webSocketDebuggerUrl\": %s}", bad[i]), 0);
		else {
			url = malloc(5000);
			memset(url, 'a', 4999);
			url[4999] = '\0';
			ck_assert_int_ge(asprintf(&body,
			    "{\"webSocketDebuggerUrl\": "
			    "\"ws://127.0.0.1:1/%s\"}", url), 0);
			free(url);
		}
		port = serve(body, &pid);
		snprintf(sh, sizeof sh, "echo 'DevTools listening on "
		    "ws://127.0.0.1:%d/devtools/browser/0f0f' >&2; "
		    "exec sleep 100", port);
		script("lying-browser", sh, path, sizeof path);
		b = make("auto", NULL, path, 1000, NULL);
		start(b);
		ck_assert(run_until_state(b, BROWSER_FAILED, WAIT_MS) ||
		    browser_state(b) == BROWSER_READY);
		ck_assert_msg(browser_state(b) == BROWSER_FAILED,
		    "ready with %s", body);
		ck_assert_msg(strstr(browser_why(b), "no webSocketDebuggerUrl")
		    != NULL, "%s: why %s", body, browser_why(b));
		browser_free(b);
		fx.b = NULL;
		serve_end(pid);
		free(body);
	}
	ck_assert_int_ge(asprintf(&body, "{\"webSocketDebuggerUrl\": "
	    "\"ws://127.0.0.1:1/devtools/browser/a?b=c%%20d\"}"), 0);
	port = serve(body, &pid);
	snprintf(sh, sizeof sh, "echo 'DevTools listening on "
	    "ws://127.0.0.1:%d/devtools/browser/0f0f' >&2; exec sleep 100",
	    port);
	script("plain-browser", sh, path, sizeof path);
	b = make("auto", NULL, path, 0, NULL);
	start(b);
	ck_assert(run_until_state(b, BROWSER_READY, WAIT_MS));
	ck_assert_str_eq(browser_url(b),
	    "ws://127.0.0.1:1/devtools/browser/a?b=c%20d");
	serve_end(pid);
	free(body);
}
END_TEST

/*
 * "DevTools listening on" lines that lie (port 0, 99999, garbage, a
 * host that is not an address) are passed over, and the true one after
 * them is asked; the timeout of one that only lies says what it said.
 */
START_TEST(test_devtools_line_lies)
{
	struct browser	*b;
	char		 path[PATH_MAX], sh[1024];
	pid_t		 pid;
	int		 port;

	port = serve("{\"webSocketDebuggerUrl\": "
	    "\"ws://127.0.0.1:1/devtools/browser/x\"}", &pid);
	snprintf(sh, sizeof sh,
	    "echo 'DevTools listening on ws://127.0.0.1:0/devtools/browser/x' >&2\n"
	    "echo 'DevTools listening on ws://127.0.0.1:99999/d' >&2\n"
	    "echo 'DevTools listening on garbage' >&2\n"
	    "echo 'DevTools listening on ws://example.invalid:%d/d' >&2\n"
	    "echo 'DevTools listening on ws://127.0.0.1:%d/d\a' >&2\n"
	    "sleep 0.3\n"
	    "echo 'DevTools listening on ws://127.0.0.1:%d/devtools/browser/x' >&2\n"
	    "exec sleep 100", port, port, port);
	script("liar-browser", sh, path, sizeof path);
	b = make("auto", NULL, path, 0, NULL);
	start(b);
	ck_assert_msg(run_until_state(b, BROWSER_READY, WAIT_MS), "%s: %s",
	    browser_state_name(browser_state(b)),
	    browser_why(b) != NULL ? browser_why(b) : "");
	ck_assert_str_eq(browser_url(b), "ws://127.0.0.1:1/devtools/browser/x");
	browser_free(b);

	script("liar-only", "echo 'DevTools listening on "
	    "ws://127.0.0.1:0/x' >&2; exec sleep 100", path, sizeof path);
	b = make("auto", NULL, path, 1000, NULL);
	start(b);
	ck_assert(run_until_state(b, BROWSER_FAILED, WAIT_MS));
	ck_assert_str_eq(browser_why(b), "timed out after 1 s waiting for "
	    "DevTools (not a local ws:// URL: ws://127.0.0.1:0/x)");
	serve_end(pid);
}
END_TEST

/* Specs browser_new() refuses, and the words of every state. */
START_TEST(test_refused_specs)
{
	struct browser_spec	 spec;
	const char		*bad[] = { "http://127.0.0.1:9222", "ws://",
				    "ws:///x", "null", "", "ws://a b:1",
				    "ws://127.0.0.1", "ws://127.0.0.1:0",
				    "ws://h:1/a\nb", "ws://h:1/\033[2J" };
	char			*cause = NULL;
	size_t			 i;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		memset(&spec, 0, sizeof spec);
		spec.cdp_url = bad[i];
		ck_assert_ptr_null(browser_new(fx.loop, fx.jt, NULL, NULL,
		    &spec, &cause));
		ck_assert_msg(strstr(cause, "cdp_url: expected") != NULL,
		    "%s: %s", bad[i], cause);
		free(cause);
	}
	ck_assert_str_eq(browser_state_name(BROWSER_STARTING), "starting");
	ck_assert_str_eq(browser_state_name(BROWSER_FAILED), "failed");
	ck_assert_str_eq(browser_state_name(BROWSER_STOPPING), "stopping");
	ck_assert_str_eq(browser_state_name(BROWSER_STOPPED), "stopped");
}
END_TEST

/*
 * Starting twice is refused; a stop while starting stops it; browser_free
 * during a start leaves nothing (teardown checks).
 */
START_TEST(test_stop_while_starting)
{
	struct browser	*b;
	char		*cause = NULL;

	b = make("auto", NULL, NULL, 0, NULL);
	start(b);
	ck_assert_int_eq(browser_start(b, &cause), -1);
	ck_assert_str_eq(cause, "the browser is already starting");
	free(cause);
	run_for(100);
	ck_assert_int_eq(browser_stop(b, &cause), 0);
	ck_assert(run_until_state(b, BROWSER_STOPPED, WAIT_MS));
	ck_assert_int_eq(count_procs(), 0);
	ck_assert_int_eq(count_entries("jobdeck-browser-"), 0);
	start(b);
	run_for(300);
	/* teardown frees it while it starts */
}
END_TEST

/* A subscriber that stops the browser as soon as it is starting. */
static void
stop_at_start_cb(struct browser *b, void *arg)
{
	char	*cause = NULL;
	int	*stops = arg;

	if (browser_state(b) == BROWSER_STARTING && (*stops)++ == 0) {
		ck_assert_msg(browser_stop(b, &cause) == 0, "%s", cause);
	}
}

/*
 * A subscriber told of STARTING may stop it there: nothing is started
 * behind its back (once, the start went on and left a browser running
 * while STOPPED).
 */
START_TEST(test_stop_from_subscriber)
{
	static const struct browser_cbs stop_cbs = { stop_at_start_cb };
	struct browser	*b;
	struct seen	 s;
	int		 stops = 0;

	memset(&s, 0, sizeof s);
	b = make("auto", NULL, NULL, 0, NULL);
	browser_subscribe(b, &stop_cbs, &stops);
	browser_subscribe(b, &cbs, &s);
	start(b);
	run_for(1500);
	ck_assert_int_eq(stops, 1);
	ck_assert_int_eq(browser_state(b), BROWSER_STOPPED);
	ck_assert_int_eq(browser_pid(b), 0);
	ck_assert_int_eq(count_procs(), 0);
	ck_assert_int_eq(count_entries("jobdeck-browser-"), 0);
}
END_TEST

/* A subscriber that starts the browser again once it has stopped. */
static void
start_at_stopped_cb(struct browser *b, void *arg)
{
	char	*cause = NULL;
	int	*starts = arg;

	if (browser_state(b) == BROWSER_STOPPED) {
		(*starts)++;
		ck_assert_msg(browser_start(b, &cause) == 0, "%s", cause);
	}
}

/*
 * A restart whose STOPPED a subscriber answers with a start of its own
 * starts one browser (once, the restart started a second one over it,
 * whose first was never stopped).
 */
START_TEST(test_restart_and_subscriber_start)
{
	static const struct browser_cbs start_cbs = { start_at_stopped_cb };
	struct browser	*b;
	char		*cause = NULL;
	int		 starts = 0;

	b = make("auto", NULL, NULL, 0, NULL);
	start_ready(b);
	browser_subscribe(b, &start_cbs, &starts);
	ck_assert_int_eq(browser_restart(b, &cause), 0);
	ck_assert(run_until_state(b, BROWSER_READY, READY_MS));
	run_for(500);
	ck_assert_int_eq(starts, 1);
	ck_assert_int_eq(browser_state(b), BROWSER_READY);
	ck_assert_int_eq(count_entries("jobdeck-browser-"), 1);
}
END_TEST

/* Return whether a Docker daemon answers here. */
static int
docker_answers(void)
{
	return system("docker version --format '{{.Server.Version}}' "
	    ">/dev/null 2>&1") == 0;
}

/*
 * With an image and no daemon that answers, auto starts a local browser
 * (a Docker daemon here: that case cannot be tested, SKIP).
 */
START_TEST(test_docker_falls_back)
{
	struct browser	*b;
	char		 path[PATH_MAX], *saved;

	/* A docker that cannot reach its daemon, whatever PATH has. */
	script("docker", "echo 'Cannot connect to the Docker daemon' >&2; "
	    "exit 1", path, sizeof path);
	saved = strdup(getenv("PATH"));
	snprintf(path, sizeof path, "%s:%s", fx.dir, saved);
	setenv("PATH", path, 1);
	b = make("auto", "example/chrome:latest", NULL, 0, NULL);
	ck_assert_str_eq(browser_label(b), "Chrome in Docker "
	    "(example/chrome:latest)");
	start(b);
	ck_assert_int_eq(browser_kind(b), BROWSER_KIND_DOCKER);
	ck_assert(run_until_state(b, BROWSER_READY, READY_MS));
	setenv("PATH", saved, 1);
	free(saved);
	ck_assert_int_eq(browser_kind(b), BROWSER_KIND_LOCAL);
	ck_assert_str_eq(browser_label(b), "Chrome Headless");
	ck_assert_ptr_null(browser_container(b));
}
END_TEST

/*
 * A stand-in for the docker program, for the steps around a container:
 * it logs its words, `version` answers, `run` starts a real
 * chromium-headless-shell in a session of its own (as a daemon would, out
 * of the deck's reach) on a port of its choosing, `port` says where that
 * is once it listens, `rm -f` kills it.
 */
static const char docker_stand_in[] =
	"d=\"$(dirname \"$0\")\"\n"
	"echo \"$*\" >>\"$d/docker.log\"\n"
	"case \"$1\" in\n"
	"version) echo 99.0.0-test ;;\n"
	"run)\n"
	"	while [ \"$1\" != --name ]; do shift; done\n"
	"	name=$2\n"
	"	mkdir \"$d/c-$name\"\n"
	"	setsid chromium-headless-shell --headless --no-sandbox \\\n"
	"	    --remote-debugging-port=0 --user-data-dir=\"$d/c-$name\" \\\n"
	"	    about:blank >/dev/null 2>&1 </dev/null &\n"
	"	echo $! >\"$d/c-$name.pid\"\n"
	"	echo 4f1c2a9b8e7d ;;\n"
	"port)\n"
	"	f=\"$d/c-$2/DevToolsActivePort\"\n"
	"	i=0; while [ ! -s \"$f\" ] && [ $i -lt 100 ]; do\n"
	"		sleep 0.1; i=$((i + 1)); done\n"
	"	echo \"0.0.0.0:$(head -n 1 \"$f\")\"\n"
	"	echo \"[::]:$(head -n 1 \"$f\")\" ;;\n"
	"rm)\n"
	"	pid=$(cat \"$d/c-$3.pid\") || exit 1\n"
	"	pkill -KILL -s \"$pid\"; rm -rf \"$d/c-$3\" \"$d/c-$3.pid\"\n"
	"	echo \"$3\" ;;\n"
	"*) exit 2 ;;\n"
	"esac";

/* Put the test's directory first on PATH; the old PATH, to restore. */
static char *
path_first(void)
{
	char	*saved, path[PATH_MAX];

	saved = strdup(getenv("PATH"));
	snprintf(path, sizeof path, "%s:%s", fx.dir, saved);
	setenv("PATH", path, 1);
	return saved;
}

/* Read the stand-in's log of its words. */
static void
docker_log(char *buf, size_t size)
{
	char	 path[PATH_MAX];
	FILE	*f;
	size_t	 n;

	snprintf(path, sizeof path, "%s/docker.log", fx.dir);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	fclose(f);
}

/*
 * What a docker command leaves behind (setsid -f) is killed once the
 * command has ended: by a cgroup (_i 0, as root) or by the marker (_i 1).
 */
START_TEST(test_docker_contained)
{
	struct browser	*b;
	char		 path[PATH_MAX], body[1024], *saved;
	int64_t		 end;
	pid_t		 esc = 0;
	FILE		*f;

	fx.cg = cgroup_new(_i ? CGROUP_NO_CGROUP : 0);
	if (_i == 0 && cgroup_dir(fx.cg) == NULL)
		TEST_SKIP("no cgroup: %s", cgroup_warning(fx.cg));
	snprintf(body, sizeof body, "setsid -f sh -c 'echo $$ > %s/esc.tmp; "
	    "mv %s/esc.tmp %s/esc; exec sleep 100'; "
	    "while [ ! -e %s/esc ]; do sleep 0.01; done; "
	    "echo 'Cannot connect to the Docker daemon' >&2; exit 1",
	    fx.dir, fx.dir, fx.dir, fx.dir);
	script("docker", body, path, sizeof path);
	saved = strdup(getenv("PATH"));
	snprintf(path, sizeof path, "%s:%s", fx.dir, saved);
	setenv("PATH", path, 1);
	b = make("auto", "example/chrome:latest", NULL, 0, NULL);
	start(b);
	end = loop_now_ms() + WAIT_MS;
	while (browser_kind(b) == BROWSER_KIND_DOCKER) {
		ck_assert_msg(loop_now_ms() < end, "docker version never ended");
		ck_assert_int_eq(loop_run_once(fx.loop, 20), 0);
	}
	setenv("PATH", saved, 1);
	free(saved);
	snprintf(path, sizeof path, "%s/esc", fx.dir);
	ck_assert_ptr_nonnull(f = fopen(path, "r"));
	ck_assert_int_eq(fscanf(f, "%d", &esc), 1);
	fclose(f);
	ck_assert_int_gt(esc, 1);
	while (kill(esc, 0) == 0) {
		if (loop_now_ms() >= end)
			kill(esc, SIGKILL);
		ck_assert_msg(loop_now_ms() < end, "docker's escapee %ld lives "
		    "on", (long)esc);
		ck_assert_int_eq(loop_run_once(fx.loop, 20), 0);
	}
}
END_TEST

/*
 * Docker's steps with the stand-in: version, run with the port on
 * 127.0.0.1 and the flags, port, /json/version until it answers: READY
 * with the container named; stop runs `docker rm -f NAME` and is
 * STOPPED once that has ended; browser_free() removes a running one.
 */
START_TEST(test_docker_steps)
{
	struct browser	*b;
	struct seen	 s;
	char		 path[PATH_MAX], log[4096], want[512], name[64];
	char		*saved, *cause = NULL, *args[] = { "--mute-audio", NULL };
	struct browser_spec spec;

	script("docker", docker_stand_in, path, sizeof path);
	saved = path_first();
	memset(&s, 0, sizeof s);
	memset(&spec, 0, sizeof spec);
	spec.cdp_url = "auto";
	spec.image = "example/chrome:1";
	spec.args = args;
	fx.b = b = browser_new(fx.loop, fx.jt, NULL, NULL, &spec, &cause);
	ck_assert_ptr_nonnull(b);
	browser_subscribe(b, &cbs, &s);
	start(b);
	ck_assert(run_until_state(b, BROWSER_READY, READY_MS));
	ck_assert_int_eq(browser_kind(b), BROWSER_KIND_DOCKER);
	ck_assert_str_eq(browser_label(b),
	    "Chrome in Docker (example/chrome:1)");
	snprintf(name, sizeof name, "jobdeck-browser-%ld-1", (long)getpid());
	ck_assert_str_eq(browser_container(b), name);
	ck_assert_ptr_null(browser_profile(b));
	ck_assert_int_eq(browser_pid(b), 0);
	ck_assert_msg(strncmp(browser_url(b), "ws://127.0.0.1:", 15) == 0,
	    "url %s", browser_url(b));
	ck_assert_int_gt(count_procs(), 0);

	ck_assert_int_eq(browser_stop(b, &cause), 0);
	ck_assert(run_until_state(b, BROWSER_STOPPED, WAIT_MS));
	ck_assert_ptr_null(browser_container(b));
	run_until_gone();
	ck_assert_int_eq(count_procs(), 0);
	docker_log(log, sizeof log);
	snprintf(want, sizeof want, "version --format {{.Server.Version}}\n"
	    "run -d --rm -p 127.0.0.1::9222 --name %s example/chrome:1 "
	    "--no-sandbox --remote-debugging-address=0.0.0.0 "
	    "--remote-debugging-port=9222 --mute-audio\n"
	    "port %s 9222/tcp\n"
	    "rm -f %s\n", name, name, name);
	ck_assert_str_eq(log, want);
	ck_assert_str_eq(s.states, "srgd");

	/* Again, and browser_free() while it runs. */
	start(b);
	ck_assert(run_until_state(b, BROWSER_READY, READY_MS));
	snprintf(name, sizeof name, "jobdeck-browser-%ld-2", (long)getpid());
	ck_assert_str_eq(browser_container(b), name);
	ck_assert_int_gt(count_procs(), 0);
	browser_free(b);
	fx.b = NULL;
	run_until_gone();
	ck_assert_int_eq(count_procs(), 0);
	docker_log(log, sizeof log);
	snprintf(want, sizeof want, "rm -f %s\n", name);
	ck_assert_msg(strlen(log) > strlen(want) &&
	    strcmp(log + strlen(log) - strlen(want), want) == 0, "log: %s",
	    log);
	setenv("PATH", saved, 1);
	free(saved);
}
END_TEST

/*
 * docker run that fails is FAILED with its last line; the container it
 * may have made is removed all the same.
 */
START_TEST(test_docker_run_fails)
{
	struct browser	*b;
	char		 path[PATH_MAX], log[4096], *saved;

	script("docker", "echo \"$*\" >>\"$(dirname \"$0\")/docker.log\"\n"
	    "case $1 in version) echo 1 ;; run) echo 'Unable to find image' "
	    ">&2; echo 'docker: pull access denied' >&2; exit 125 ;; "
	    "rm) exit 1 ;; esac", path, sizeof path);
	saved = path_first();
	b = make("auto", "no/such:image", NULL, 0, NULL);
	start(b);
	ck_assert(run_until_state(b, BROWSER_FAILED, WAIT_MS));
	ck_assert_str_eq(browser_why(b),
	    "docker run: docker: pull access denied");
	run_for(300);
	docker_log(log, sizeof log);
	ck_assert_msg(strstr(log, "\nrm -f jobdeck-browser-") != NULL,
	    "log: %s", log);
	ck_assert_ptr_null(browser_container(b));
	setenv("PATH", saved, 1);
	free(saved);
}
END_TEST

/*
 * A `docker port` answer that is not HOST:PORT by hostport.h's rule
 * ("127.0.0.1:9222junk": atoi() read 9222 and asked there) is FAILED at
 * once, and the container is removed.
 */
START_TEST(test_docker_port_garbage)
{
	struct browser	*b;
	char		 path[PATH_MAX], log[4096], *saved;

	script("docker", "echo \"$*\" >>\"$(dirname \"$0\")/docker.log\"\n"
	    "case $1 in version) echo 1 ;; run) echo 4f1c ;; "
	    "port) echo 127.0.0.1:9222junk ;; rm) echo ok ;; esac", path,
	    sizeof path);
	saved = path_first();
	b = make("auto", "some/image", NULL, 0, NULL);
	start(b);
	ck_assert(run_until_state(b, BROWSER_FAILED, WAIT_MS));
	ck_assert_str_eq(browser_why(b), "docker port: no port published");
	run_for(300);
	docker_log(log, sizeof log);
	ck_assert_msg(strstr(log, "\nrm -f jobdeck-browser-") != NULL,
	    "log: %s", log);
	setenv("PATH", saved, 1);
	free(saved);
}
END_TEST

/* With a daemon: the image runs, READY, and stop removes the container. */
START_TEST(test_docker_image)
{
	struct browser	*b;
	const char	*image = getenv("JOBDECK_TEST_BROWSER_IMAGE");
	char		 cmd[256], name[128], *cause = NULL;

	if (!docker_answers())
		TEST_SKIP("no Docker daemon answers here");
	if (image == NULL)
		image = "zenika/alpine-chrome:latest";
	b = make("auto", image, NULL, 0, NULL);
	start_ready(b);
	ck_assert_int_eq(browser_kind(b), BROWSER_KIND_DOCKER);
	ck_assert_ptr_nonnull(browser_container(b));
	snprintf(name, sizeof name, "%s", browser_container(b));
	ck_assert_int_eq(browser_stop(b, &cause), 0);
	ck_assert(run_until_state(b, BROWSER_STOPPED, WAIT_MS));
	snprintf(cmd, sizeof cmd, "docker inspect %s >/dev/null 2>&1", name);
	ck_assert_int_ne(system(cmd), 0);
}
END_TEST

/* Build the browser suite. */
static Suite *
browser_suite(void)
{
	Suite	*s = suite_create("browser");
	TCase	*tc;

	tc = tcase_create("local");
	tcase_set_timeout(tc, 180);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_auto_ready_then_stop);
	tcase_add_test(tc, test_crash_then_restart_cgroup);
	tcase_add_test(tc, test_crash_then_restart_marker);
	tcase_add_test(tc, test_restart_ready);
	tcase_add_test(tc, test_stop_while_starting);
	tcase_add_test(tc, test_stop_from_subscriber);
	tcase_add_test(tc, test_restart_and_subscriber_start);
	suite_add_tcase(s, tc);

	tc = tcase_create("fail");
	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_missing_command);
	tcase_add_test(tc, test_exits_at_once);
	tcase_add_test(tc, test_start_during_cleanup);
	tcase_add_test(tc, test_never_ready_times_out);
	tcase_add_test(tc, test_devtools_never_answers);
	tcase_add_test(tc, test_profile_links_not_followed);
	tcase_add_test(tc, test_sweep_profiles);
	tcase_add_test(tc, test_refused_specs);
	tcase_add_test(tc, test_hostile_ws_url);
	tcase_add_test(tc, test_devtools_line_lies);
	suite_add_tcase(s, tc);

	tc = tcase_create("connect");
	tcase_set_timeout(tc, 180);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_connect_refused);
	tcase_add_test(tc, test_connect_running);
	tcase_add_test(tc, test_connect_foreign_ws);
	suite_add_tcase(s, tc);

	tc = tcase_create("docker");
	tcase_set_timeout(tc, 180);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_docker_falls_back);
	tcase_add_loop_test(tc, test_docker_contained, 0, 2);
	tcase_add_test(tc, test_docker_steps);
	tcase_add_test(tc, test_docker_run_fails);
	tcase_add_test(tc, test_docker_port_garbage);
	tcase_add_test(tc, test_docker_image);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite; exit non-zero if any test failed. */
int
main(void)
{
	SRunner	*sr;
	char	 tag[64], cmd[128];
	int	 failed, left;

	/* Every test's TMPDIR starts with this run's tag. */
	snprintf(tag, sizeof tag, "check_browser-%ld", (long)getpid());
	setenv(TAG_ENV, tag, 1);
	sr = srunner_create(browser_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	/* A failed test skips its teardown: nothing of it may stay. */
	if ((left = procs_with(tag, 1)) != 0) {
		fprintf(stderr, "check_browser: %d processes left, killed\n",
		    left);
		failed++;
	}
	snprintf(cmd, sizeof cmd, "rm -rf /tmp/%s.*", tag);
	if (system(cmd) != 0)
		failed++;
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

/*
 * check_probe.c: tests for probes and HTTP with real things on a real
 * loop, with a real jobtable as the one reaper: TCP listeners the test
 * opens (ready once listening, refused after N attempts, a connect that
 * hangs on a full backlog, localhost and IPv6), an HTTP server the test
 * forks (200, 503, 302 with a body, a body past HTTP_BODY_MAX, one that
 * never answers), shell commands (a file appearing, cwd and environment,
 * an exit status, one that hangs killed at its time limit with nothing
 * left of it), log lines split across chunks and colour escapes, liveness
 * counting failures in a row, targets refused at probe_new(),
 * probe_free() during an attempt leaving no process, fd or timer, and a
 * command's escapees (setsid -f) killed with its attempt, through a
 * cgroup (as root) or the JOBDECK_JOB marker alone.
 *
 * Each test's process is made a child subreaper, as jobdeck is, so what
 * a probe's command leaves behind comes back to it and is reaped.
 */
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <check.h>
#include <netdb.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cgroup.h"
#include "http.h"
#include "jobtable.h"
#include "loop.h"
#include "probe.h"
#include "skip.h"
#include "testdir.h"
#include "testnet.h"
#include "testproc.h"

#define WAIT_MS		10000	/* the most anything is waited for */

/* What one test drives. */
struct fx {
	struct loop	*loop;
	struct jobtable	*jt;
	struct http	*http;
	struct cgroup	*cg;		/* the jobtable's containment, or NULL */
	char		 dir[128];	/* a scratch directory, real path */
};

/* What a probe reported. */
struct seen {
	int		 n;
	int		 ok;
	char		 why[512];
	int		 free_it;	/* probe_free() from the callback */
	struct probe	*p;
	int		 attempts;	/* told of by attempt_cb() */
	char		 text[512];	/* the last attempt's text */
};

/* What the test's HTTP server answers. */
enum server_mode {
	SERVER_200,
	SERVER_503,
	SERVER_302,
	SERVER_BIG,
	SERVER_SILENT
};

/* The test's HTTP server: a forked child and its port. */
struct server {
	pid_t		 pid;
	int		 port;
};

static struct fx fx;

/* Record the report; free the probe if the test asks for it. */
static void
result_cb(struct probe *p, int ok, const char *why, void *arg)
{
	struct seen	*s = arg;

	s->n++;
	s->ok = ok;
	snprintf(s->why, sizeof s->why, "%s", why != NULL ? why : "");
	if (s->free_it) {
		probe_free(p);
		s->p = NULL;
	}
}

static const struct probe_cbs cbs = { result_cb, NULL };

/* Record an attempt's short text (probe_last()). */
static void
attempt_cb(struct probe *p, int ok, const char *text, void *arg)
{
	struct seen	*s = arg;

	(void)ok;
	s->attempts++;
	ck_assert_ptr_nonnull(text);
	ck_assert_str_eq(text, probe_last(p));
	snprintf(s->text, sizeof s->text, "%s", text);
}

static const struct probe_cbs attempt_cbs = { result_cb, attempt_cb };

/* A loop, a jobtable to reap, an http client and a scratch directory. */
static void
setup(void)
{
	char	 tmpl[] = "/tmp/check_probe.XXXXXX";
	char	 real[PATH_MAX];
	char	*cause = NULL;

	/* Per test: check forks each one, and fork does not keep it. */
	ck_assert_int_eq(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);
	fx.loop = loop_new();
	fx.jt = jobtable_new(fx.loop);
	fx.http = http_new(fx.loop, &cause);
	ck_assert_msg(fx.http != NULL, "http_new: %s", cause);
	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	ck_assert_ptr_nonnull(realpath(tmpl, real));
	ck_assert_uint_lt(strlen(real), sizeof fx.dir);
	strcpy(fx.dir, real);
}

/* Free what setup() made and empty the scratch directory. */
static void
teardown(void)
{

	http_free(fx.http);
	jobtable_free(fx.jt);
	if (fx.cg != NULL) {
		cgroup_kill_all(fx.cg);
		cgroup_free(fx.cg);
		fx.cg = NULL;
	}
	loop_free(fx.loop);
	testdir_remove(fx.dir);
}

/* Run loop turns for ms milliseconds. */
static void
run_for(int64_t ms)
{
	int64_t	end = loop_now_ms() + ms;

	while (loop_now_ms() < end)
		ck_assert_int_eq(loop_run_once(fx.loop, 20), 0);
}

/* Run loop turns until the probe reported (at most WAIT_MS). */
static void
run_until_report(struct seen *s)
{
	int64_t	end = loop_now_ms() + WAIT_MS;

	while (s->n == 0 && loop_now_ms() < end)
		ck_assert_int_eq(loop_run_once(fx.loop, 20), 0);
	ck_assert_msg(s->n == 1, "no report in %d ms", WAIT_MS);
}

/* Make a probe of kind on target; fails the test if it cannot. */
static struct probe *
start_probe(struct seen *s, enum probe_kind kind, enum probe_mode mode,
    const char *target, int64_t interval_ms, int64_t timeout_ms, int retries)
{
	struct probe_spec	 spec;
	char			*cause = NULL;

	memset(&spec, 0, sizeof spec);
	spec.kind = kind;
	spec.mode = mode;
	spec.target = target;
	spec.shell = "/bin/sh";
	spec.interval_ms = interval_ms;
	spec.timeout_ms = timeout_ms;
	spec.retries = retries;
	s->p = probe_new(fx.loop, fx.jt, fx.http, &spec, &cbs, s, &cause);
	ck_assert_msg(s->p != NULL, "probe_new(%s): %s", target, cause);
	return s->p;
}

/*
 * A listener whose accept queue is full (backlog 0, filled by connects of
 * our own, never accepted): a further SYN is dropped, so a connect to it
 * stays in progress.  The fillers are closed with close_fillers().
 */
static int
tcp_full(int *port, int fillers[3])
{
	struct sockaddr_in	sin;
	int			fd, i;

	fd = testnet_bound(port);
	ck_assert_int_eq(listen(fd, 0), 0);
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons(*port);
	for (i = 0; i < 3; i++) {
		fillers[i] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK |
		    SOCK_CLOEXEC, 0);
		ck_assert_int_ge(fillers[i], 0);
		(void)connect(fillers[i], (struct sockaddr *)&sin, sizeof sin);
	}
	return fd;
}

/* Close the connects that filled a backlog. */
static void
close_fillers(int fillers[3])
{
	int	i;

	for (i = 0; i < 3; i++)
		close(fillers[i]);
}

/* Count this process's open fds. */
static int
count_fds(void)
{
	struct dirent	*de;
	DIR		*d;
	int		 n = 0;

	d = opendir("/proc/self/fd");
	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] != '.')
			n++;
	}
	closedir(d);
	return n - 1;	/* the directory's own */
}

/*
 * Nothing of a probe is left: as many fds as before it, and (after a
 * turn that takes a signal already pending) a loop turn allowed to sleep
 * until `until` (past the time limit of the attempt the probe was freed
 * in), and at least 400 ms, sleeps that long: no watch woke it and no
 * timer was due.
 */
static void
assert_quiet(int fds, int64_t until)
{
	int64_t	t0, wait;

	ck_assert_int_eq(count_fds(), fds);
	/*
	 * The SIGCHLD of a command the free killed may still wait in the
	 * self-pipe (it woke this turn at once under load): one turn that
	 * does not sleep takes it; a watch that is ready stays ready.
	 */
	(void)loop_run_once(fx.loop, 0);
	t0 = loop_now_ms();
	wait = until - t0 > 400 ? until - t0 : 400;
	ck_assert_int_eq(loop_run_once(fx.loop, wait), 0);
	ck_assert_int_ge(loop_now_ms() - t0, wait - 10);
}

/* In the server child: read a request up to its blank line. */
static void
server_read_request(int c)
{
	char	buf[4096];
	size_t	len = 0;
	ssize_t	n;

	while (len < sizeof buf - 1) {
		n = read(c, buf + len, sizeof buf - 1 - len);
		if (n <= 0)
			return;
		len += (size_t)n;
		buf[len] = '\0';
		if (strstr(buf, "\r\n\r\n") != NULL)
			return;
	}
}

/* In the server child: write all of buf. */
static void
server_write(int c, const char *buf, size_t len)
{
	ssize_t	n;

	while (len > 0) {
		n = write(c, buf, len);
		if (n <= 0)
			return;
		buf += n;
		len -= (size_t)n;
	}
}

/* In the server child: answer every connection as mode says, forever. */
static void
server_child(int lfd, enum server_mode mode)
{
	char	 head[256], *big;
	size_t	 blen = HTTP_BODY_MAX + 500000;
	int	 c;

	signal(SIGPIPE, SIG_IGN);
	for (;;) {
		if ((c = accept(lfd, NULL, NULL)) == -1)
			continue;
		if (mode == SERVER_SILENT)
			continue;	/* held open, never answered */
		server_read_request(c);
		switch (mode) {
		case SERVER_200:
			server_write(c, "HTTP/1.0 200 OK\r\n\r\nup", 21);
			break;
		case SERVER_503:
			server_write(c, "HTTP/1.0 503 Service Unavailable"
			    "\r\n\r\ndown", 41);
			break;
		case SERVER_302:
			snprintf(head, sizeof head, "HTTP/1.0 302 Found\r\n"
			    "Location: http://127.0.0.1:1/\r\n"
			    "Content-Length: 5\r\n\r\nmoved");
			server_write(c, head, strlen(head));
			break;
		case SERVER_BIG:
			snprintf(head, sizeof head, "HTTP/1.0 200 OK\r\n"
			    "Content-Length: %zu\r\n\r\n", blen);
			server_write(c, head, strlen(head));
			big = malloc(blen);
			memset(big, 'x', blen);
			server_write(c, big, blen);
			free(big);
			break;
		case SERVER_SILENT:
			break;
		}
		close(c);
	}
}

/* Fork the HTTP server on a free port of 127.0.0.1; listening on return. */
static void
server_start(struct server *sv, enum server_mode mode)
{
	int	lfd;

	lfd = testnet_bound(&sv->port);
	ck_assert_int_eq(listen(lfd, 16), 0);
	sv->pid = fork();
	ck_assert_int_ge(sv->pid, 0);
	if (sv->pid == 0) {
		server_child(lfd, mode);
		_exit(0);
	}
	close(lfd);
}

/* Kill the HTTP server and collect it. */
static void
server_stop(struct server *sv)
{
	kill(sv->pid, SIGKILL);
	(void)waitpid(sv->pid, NULL, 0);
}

/* Read the numbers a command wrote to path; return how many. */
static int
read_numbers(const char *path, long *v, int max)
{
	FILE	*f;
	int	 n = 0;

	if ((f = fopen(path, "r")) == NULL)
		return 0;
	while (n < max && fscanf(f, "%ld", &v[n]) == 1)
		n++;
	fclose(f);
	return n;
}

/* Run the loop until every pid is gone (reaped), at most WAIT_MS. */
static void
wait_gone(const long *pids, int n)
{
	int64_t	end = loop_now_ms() + WAIT_MS;
	int	i, alive;

	do {
		alive = 0;
		for (i = 0; i < n; i++) {
			if (kill((pid_t)pids[i], 0) == 0 || errno != ESRCH)
				alive++;
		}
		if (alive == 0)
			return;
		ck_assert_int_eq(loop_run_once(fx.loop, 20), 0);
	} while (loop_now_ms() < end);
	ck_abort_msg("%d process(es) left after %d ms", alive, WAIT_MS);
}

/* Wait for a file the probe's command writes. */
static void
wait_file(const char *path)
{
	int64_t	end = loop_now_ms() + WAIT_MS;

	while (access(path, F_OK) != 0) {
		ck_assert_msg(loop_now_ms() < end, "%s never came", path);
		ck_assert_int_eq(loop_run_once(fx.loop, 20), 0);
	}
}

/* TCP: refused until the test listens, then ready (it retried). */
START_TEST(test_tcp_ready_once_listening)
{
	struct seen	s = { 0 };
	char		target[64];
	int		fd, port;

	fd = testnet_bound(&port);
	snprintf(target, sizeof target, "127.0.0.1:%d", port);
	start_probe(&s, PROBE_TCP, PROBE_READY, target, 50, 1000, 0);
	run_for(300);
	ck_assert_int_eq(s.n, 0);
	ck_assert_int_eq(listen(fd, 16), 0);
	run_until_report(&s);
	ck_assert_int_eq(s.ok, 1);
	run_for(150);
	ck_assert_int_eq(s.n, 1);	/* one report, then nothing */
	probe_free(s.p);
	close(fd);
}
END_TEST

/* TCP: a refused port fails after `retries` attempts, with the reason. */
START_TEST(test_tcp_refused_after_retries)
{
	struct seen	s = { 0 };
	char		target[64];
	int		fd, port;
	int64_t		t0;

	fd = testnet_bound(&port);
	snprintf(target, sizeof target, "127.0.0.1:%d", port);
	s.free_it = 1;
	t0 = loop_now_ms();
	start_probe(&s, PROBE_TCP, PROBE_READY, target, 100, 1000, 3);
	run_until_report(&s);
	ck_assert_int_eq(s.ok, 0);
	ck_assert_str_eq(s.why, "connect: Connection refused");
	/* Three attempts, 100 ms apart: at 0, 100 and 200 ms. */
	ck_assert_int_ge(loop_now_ms() - t0, 195);
	ck_assert_ptr_null(s.p);
	close(fd);
}
END_TEST

/* TCP: "localhost" is 127.0.0.1 (then ::1), without DNS. */
START_TEST(test_tcp_localhost)
{
	struct seen	s = { 0 };
	char		target[64];
	int		fd, port;

	fd = testnet_bound(&port);
	ck_assert_int_eq(listen(fd, 16), 0);
	snprintf(target, sizeof target, "localhost:%d", port);
	start_probe(&s, PROBE_TCP, PROBE_READY, target, 50, 1000, 2);
	run_until_report(&s);
	ck_assert_int_eq(s.ok, 1);
	probe_free(s.p);
	close(fd);
}
END_TEST

/* TCP: a bracketed IPv6 address (needs ::1 here). */
START_TEST(test_tcp_ipv6)
{
	struct sockaddr_in6	sin6;
	struct seen		s = { 0 };
	socklen_t		len = sizeof sin6;
	char			target[64];
	int			fd;

	fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
	memset(&sin6, 0, sizeof sin6);
	sin6.sin6_family = AF_INET6;
	sin6.sin6_addr = in6addr_loopback;
	if (fd == -1 || bind(fd, (struct sockaddr *)&sin6, sizeof sin6) != 0) {
		if (fd != -1)
			close(fd);
		TEST_SKIP("no IPv6 loopback here");
	}
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&sin6, &len), 0);
	ck_assert_int_eq(listen(fd, 16), 0);
	snprintf(target, sizeof target, "[::1]:%d", ntohs(sin6.sin6_port));
	start_probe(&s, PROBE_TCP, PROBE_READY, target, 50, 1000, 2);
	run_until_report(&s);
	ck_assert_int_eq(s.ok, 1);
	probe_free(s.p);
	close(fd);
}
END_TEST

/* TCP: a connect that never completes fails at its time limit. */
START_TEST(test_tcp_timeout)
{
	struct seen	s = { 0 };
	char		target[64];
	int		fd, port, fillers[3];
	int64_t		t0;

	fd = tcp_full(&port, fillers);
	snprintf(target, sizeof target, "127.0.0.1:%d", port);
	t0 = loop_now_ms();
	start_probe(&s, PROBE_TCP, PROBE_READY, target, 50, 300, 1);
	run_until_report(&s);
	ck_assert_int_eq(s.ok, 0);
	ck_assert_str_eq(s.why, "connect: timed out after 300 ms");
	ck_assert_int_ge(loop_now_ms() - t0, 295);
	probe_free(s.p);
	close_fillers(fillers);
	close(fd);
}
END_TEST

/* Specs refused by probe_new(), each with its reason; probe_describe(). */
START_TEST(test_refused_specs)
{
	static const struct {
		enum probe_kind	 kind;
		enum probe_mode	 mode;
		const char	*target;
		const char	*shell;
		int64_t		 interval_ms;
		const char	*cause;
	} t[] = {
		{ PROBE_TCP, PROBE_READY, "db.internal:5432", NULL, 100,
		  "host \"db.internal\" is neither an IP address nor "
		  "localhost (names are not resolved" },
		{ PROBE_TCP, PROBE_READY, "[db]:80", NULL, 100,
		  "names are not resolved" },
		{ PROBE_TCP, PROBE_READY, "127.0.0.1", NULL, 100,
		  "tcp probe must be host:port with a port from 1 to "
		  "65535 (IPv6 as [::1]:80)" },
		{ PROBE_TCP, PROBE_READY, "::1:80", NULL, 100,
		  "tcp probe must be host:port with a port from 1 to "
		  "65535 (IPv6 as [::1]:80)" },
		{ PROBE_TCP, PROBE_READY, "[::1]80", NULL, 100,
		  "tcp probe must be host:port with a port from 1 to "
		  "65535 (IPv6 as [::1]:80)" },
		{ PROBE_TCP, PROBE_READY, "127.0.0.1:0", NULL, 100,
		  "tcp probe must be host:port with a port from 1 to "
		  "65535 (IPv6 as [::1]:80)" },
		{ PROBE_TCP, PROBE_READY, "127.0.0.1:65536", NULL, 100,
		  "tcp probe must be host:port with a port from 1 to "
		  "65535 (IPv6 as [::1]:80)" },
		{ PROBE_TCP, PROBE_READY, "127.0.0.1:80x", NULL, 100,
		  "tcp probe must be host:port with a port from 1 to "
		  "65535 (IPv6 as [::1]:80)" },
		{ PROBE_TCP, PROBE_READY, ":80", NULL, 100,
		  "tcp probe must be host:port" },
		{ PROBE_TCP, PROBE_READY, "127.0.0.1:80", NULL, 0,
		  "must be positive" },
		{ PROBE_LOG, PROBE_READY, "(unclosed", NULL, 100,
		  "log probe: regex \"(unclosed\": " },
		{ PROBE_LOG, PROBE_LIVE, "ready", NULL, 100,
		  "a log probe can only say a job is ready" },
		{ PROBE_HTTP, PROBE_READY, "ftp://127.0.0.1/", NULL, 100,
		  "is not an http:// or https:// URL" },
		{ PROBE_CMD, PROBE_READY, "true", "sh", 100,
		  "the shell must be an absolute path" },
		{ PROBE_CMD, PROBE_READY, "", "/bin/sh", 100,
		  "nothing to check" },
	};
	struct probe_spec	 spec;
	struct probe		*p;
	struct seen		 s = { 0 };
	char			*cause;
	size_t			 i;

	for (i = 0; i < sizeof t / sizeof t[0]; i++) {
		memset(&spec, 0, sizeof spec);
		spec.kind = t[i].kind;
		spec.mode = t[i].mode;
		spec.target = t[i].target;
		spec.shell = t[i].shell;
		spec.interval_ms = t[i].interval_ms;
		spec.timeout_ms = 1000;
		spec.retries = 1;
		cause = NULL;
		p = probe_new(fx.loop, fx.jt, fx.http, &spec, &cbs, &s,
		    &cause);
		ck_assert_msg(p == NULL, "%s accepted", t[i].target);
		ck_assert_msg(cause != NULL && strstr(cause, t[i].cause) !=
		    NULL, "%s: \"%s\", wanted \"%s\"", t[i].target, cause,
		    t[i].cause);
		free(cause);
	}

	/* HTTP without a client. */
	memset(&spec, 0, sizeof spec);
	spec.kind = PROBE_HTTP;
	spec.target = "http://127.0.0.1:1/";
	spec.interval_ms = spec.timeout_ms = 100;
	cause = NULL;
	ck_assert_ptr_null(probe_new(fx.loop, fx.jt, NULL, &spec, &cbs, &s,
	    &cause));
	ck_assert_str_eq(cause, "http probe: HTTP is not available");
	free(cause);

	start_probe(&s, PROBE_TCP, PROBE_READY, "127.0.0.1:5432", 100, 100,
	    1);
	ck_assert_str_eq(probe_describe(s.p), "tcp 127.0.0.1:5432");
	probe_free(s.p);
	start_probe(&s, PROBE_HTTP, PROBE_LIVE, "http://127.0.0.1:1/health",
	    100, 100, 1);
	ck_assert_str_eq(probe_describe(s.p),
	    "http http://127.0.0.1:1/health");
	probe_free(s.p);
	ck_assert_int_eq(s.n, 0);
}
END_TEST

/* HTTP: a 200 passes. */
START_TEST(test_http_200)
{
	struct server	sv;
	struct seen	s = { 0 };
	char		url[128];

	server_start(&sv, SERVER_200);
	snprintf(url, sizeof url, "http://127.0.0.1:%d/health", sv.port);
	start_probe(&s, PROBE_HTTP, PROBE_READY, url, 50, 2000, 3);
	run_until_report(&s);
	ck_assert_int_eq(s.ok, 1);
	probe_free(s.p);

	/* A name: libcurl resolves it off the loop. */
	memset(&s, 0, sizeof s);
	snprintf(url, sizeof url, "http://localhost:%d/health", sv.port);
	start_probe(&s, PROBE_HTTP, PROBE_READY, url, 50, 2000, 3);
	run_until_report(&s);
	ck_assert_msg(s.ok == 1, "%s", s.why);
	probe_free(s.p);
	server_stop(&sv);
}
END_TEST

/*
 * HTTP: a host name that is not localhost (which libcurl knows without
 * asking) goes through libcurl's threaded resolver, still on the loop;
 * here the machine's own name, where it means 127.0.0.1.
 */
START_TEST(test_http_resolved_name)
{
	struct addrinfo	 hints, *res, *ai;
	struct server	 sv;
	struct seen	 s = { 0 };
	char		 host[256], url[512];
	int		 loopback = 0;

	if (gethostname(host, sizeof host) != 0 ||
	    strcasecmp(host, "localhost") == 0)
		TEST_SKIP("no host name here");
	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_INET;
	hints.ai_socktype = SOCK_STREAM;
	if (getaddrinfo(host, NULL, &hints, &res) != 0)
		TEST_SKIP("%s does not resolve here", host);
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		if (((struct sockaddr_in *)ai->ai_addr)->sin_addr.s_addr ==
		    htonl(INADDR_LOOPBACK))
			loopback = 1;
	}
	freeaddrinfo(res);
	if (!loopback)
		TEST_SKIP("%s is not 127.0.0.1 here", host);

	server_start(&sv, SERVER_200);
	snprintf(url, sizeof url, "http://%s:%d/", host, sv.port);
	start_probe(&s, PROBE_HTTP, PROBE_READY, url, 50, 5000, 3);
	run_until_report(&s);
	ck_assert_msg(s.ok == 1, "%s", s.why);
	probe_free(s.p);
	server_stop(&sv);
}
END_TEST

/* HTTP: a 503 fails, after its retries, saying so. */
START_TEST(test_http_503)
{
	struct server	sv;
	struct seen	s = { 0 };
	char		url[128];

	server_start(&sv, SERVER_503);
	snprintf(url, sizeof url, "http://127.0.0.1:%d/", sv.port);
	s.free_it = 1;
	start_probe(&s, PROBE_HTTP, PROBE_READY, url, 50, 2000, 2);
	run_until_report(&s);
	ck_assert_int_eq(s.ok, 0);
	ck_assert_str_eq(s.why, "HTTP 503");
	server_stop(&sv);
}
END_TEST

/* HTTP: a server that never answers times out at timeout_ms. */
START_TEST(test_http_timeout)
{
	struct server	sv;
	struct seen	s = { 0 };
	char		url[128];
	int64_t		t0, took;

	server_start(&sv, SERVER_SILENT);
	snprintf(url, sizeof url, "http://127.0.0.1:%d/", sv.port);
	t0 = loop_now_ms();
	start_probe(&s, PROBE_HTTP, PROBE_READY, url, 50, 300, 1);
	run_until_report(&s);
	took = loop_now_ms() - t0;
	ck_assert_int_eq(s.ok, 0);
	ck_assert_str_eq(s.why, "timed out after 300 ms");
	ck_assert_int_ge(took, 295);
	ck_assert_int_lt(took, 5000);
	probe_free(s.p);
	server_stop(&sv);
}
END_TEST

/* What an http_get() was answered. */
struct answer {
	int	 n;
	long	 status;
	char	*body;
	size_t	 len;
	char	*error;
};

/* Keep an http_get()'s answer. */
static void
answer_cb(long status, const char *body, size_t len, const char *error,
    void *arg)
{
	struct answer	*a = arg;

	a->n++;
	a->status = status;
	a->body = malloc(len + 1);
	memcpy(a->body, body, len + 1);
	a->len = len;
	a->error = error != NULL ? strdup(error) : NULL;
}

/* Run the loop until an http_get() was answered. */
static void
run_until_answer(struct answer *a)
{
	int64_t	end = loop_now_ms() + WAIT_MS;

	while (a->n == 0 && loop_now_ms() < end)
		ck_assert_int_eq(loop_run_once(fx.loop, 20), 0);
	ck_assert_msg(a->n == 1, "no answer in %d ms", WAIT_MS);
}

/* HTTP: a 302 is the answer (not followed) and passes; bodies are kept. */
START_TEST(test_http_redirect_and_bodies)
{
	struct server	 sv;
	struct answer	 a = { 0 };
	struct seen	 s = { 0 };
	char		 url[128], *cause = NULL;
	int		 fd, port;

	server_start(&sv, SERVER_302);
	snprintf(url, sizeof url, "http://127.0.0.1:%d/", sv.port);
	ck_assert_ptr_nonnull(http_get(fx.http, url, 2000, answer_cb, &a,
	    &cause));
	run_until_answer(&a);
	ck_assert_ptr_null(a.error);
	ck_assert_int_eq(a.status, 302);
	ck_assert_str_eq(a.body, "moved");
	free(a.body);
	start_probe(&s, PROBE_HTTP, PROBE_READY, url, 50, 2000, 1);
	run_until_report(&s);
	ck_assert_int_eq(s.ok, 1);
	probe_free(s.p);
	server_stop(&sv);

	/* A body past HTTP_BODY_MAX is cut there, NUL terminated. */
	memset(&a, 0, sizeof a);
	server_start(&sv, SERVER_BIG);
	snprintf(url, sizeof url, "http://127.0.0.1:%d/", sv.port);
	ck_assert_ptr_nonnull(http_get(fx.http, url, 5000, answer_cb, &a,
	    &cause));
	run_until_answer(&a);
	ck_assert_ptr_null(a.error);
	ck_assert_int_eq(a.status, 200);
	ck_assert_uint_eq(a.len, HTTP_BODY_MAX);
	ck_assert_int_eq(a.body[0], 'x');
	ck_assert_int_eq(a.body[a.len - 1], 'x');
	ck_assert_int_eq(a.body[a.len], '\0');
	free(a.body);
	server_stop(&sv);

	/* A refused connection: no status, an error. */
	memset(&a, 0, sizeof a);
	fd = testnet_bound(&port);
	snprintf(url, sizeof url, "http://127.0.0.1:%d/", port);
	ck_assert_ptr_nonnull(http_get(fx.http, url, 2000, answer_cb, &a,
	    &cause));
	run_until_answer(&a);
	ck_assert_int_eq(a.status, 0);
	ck_assert_ptr_nonnull(a.error);
	ck_assert_msg(strstr(a.error, "refused") != NULL, "%s", a.error);
	free(a.error);
	free(a.body);
	close(fd);
}
END_TEST

/* cmd: `test -e FILE` fails until the test makes FILE, then passes. */
START_TEST(test_cmd_file_appears)
{
	struct seen	s = { 0 };
	char		file[256], target[1024];
	int		fd;

	snprintf(file, sizeof file, "%s/ready", fx.dir);
	snprintf(target, sizeof target, "test -e '%s'", file);
	start_probe(&s, PROBE_CMD, PROBE_READY, target, 50, 5000, 0);
	run_for(300);
	ck_assert_int_eq(s.n, 0);
	fd = open(file, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);
	run_until_report(&s);
	ck_assert_int_eq(s.ok, 1);
	probe_free(s.p);
}
END_TEST

/* cmd: it runs in the spec's cwd with the spec's environment; exit codes. */
START_TEST(test_cmd_cwd_env_status)
{
	struct probe_spec	 spec;
	struct seen		 s = { 0 };
	char			*env[] = { "PATH=/usr/bin:/bin", "PROBE_X=yes",
				    NULL };
	char			 target[1024], *cause = NULL;

	snprintf(target, sizeof target, "test \"$PROBE_X\" = yes && "
	    "test \"$(pwd -P)\" = '%s' && test -z \"$HOME\"", fx.dir);
	memset(&spec, 0, sizeof spec);
	spec.kind = PROBE_CMD;
	spec.mode = PROBE_READY;
	spec.target = target;
	spec.shell = "/bin/sh";
	spec.cwd = fx.dir;
	spec.envp = env;
	spec.interval_ms = 50;
	spec.timeout_ms = 5000;
	spec.retries = 1;
	s.p = probe_new(fx.loop, fx.jt, fx.http, &spec, &cbs, &s, &cause);
	ck_assert_msg(s.p != NULL, "%s", cause);
	run_until_report(&s);
	ck_assert_msg(s.ok == 1, "%s", s.why);
	probe_free(s.p);

	memset(&s, 0, sizeof s);
	s.free_it = 1;
	start_probe(&s, PROBE_CMD, PROBE_READY, "exit 3", 50, 5000, 2);
	run_until_report(&s);
	ck_assert_int_eq(s.ok, 0);
	ck_assert_str_eq(s.why, "command: Exited 3");

	memset(&s, 0, sizeof s);
	start_probe(&s, PROBE_CMD, PROBE_READY, "kill -SEGV $$", 50, 5000, 1);
	run_until_report(&s);
	ck_assert_str_eq(s.why, "command: Killed by SIGSEGV");
	probe_free(s.p);
}
END_TEST

/* cmd: one that hangs is killed at its time limit, its group with it. */
START_TEST(test_cmd_hang_killed)
{
	struct seen	s = { 0 };
	char		pidfile[256], target[1024];
	long		pids[2];
	int64_t		t0;

	snprintf(pidfile, sizeof pidfile, "%s/pids", fx.dir);
	snprintf(target, sizeof target, "sleep 100 & echo $! > '%s'; "
	    "echo $$ >> '%s'; wait", pidfile, pidfile);
	t0 = loop_now_ms();
	start_probe(&s, PROBE_CMD, PROBE_READY, target, 50, 1000, 1);
	run_until_report(&s);
	ck_assert_int_eq(s.ok, 0);
	ck_assert_str_eq(s.why, "command: timed out after 1000 ms");
	ck_assert_int_ge(loop_now_ms() - t0, 995);
	ck_assert_int_eq(read_numbers(pidfile, pids, 2), 2);
	wait_gone(pids, 2);
	probe_free(s.p);
}
END_TEST

/* log: a regex matched across chunks and through colour escapes. */
START_TEST(test_log_chunks_and_colour)
{
	static const char *chunks[] = {
		"starting up\r\n",
		"\033[1",
		";32mserver: listening on po",
		"rt 80\033[",
		"0m80",
	};
	struct seen	s = { 0 };
	size_t		i;

	start_probe(&s, PROBE_LOG, PROBE_READY,
	    "^server: listening on port [0-9]+$", 50, 0, 0);
	for (i = 0; i < sizeof chunks / sizeof chunks[0]; i++) {
		probe_feed(s.p, chunks[i], strlen(chunks[i]));
		run_for(20);
		ck_assert_msg(s.n == 0, "reported after chunk %zu", i);
	}
	/* The line matches once it is complete. */
	probe_feed(s.p, "\r\n", 2);
	ck_assert_int_eq(s.n, 1);
	ck_assert_int_eq(s.ok, 1);
	probe_feed(s.p, "server: listening on port 1\n", 28);
	run_for(100);
	ck_assert_int_eq(s.n, 1);
	probe_free(s.p);
}
END_TEST

/*
 * Each kind's short text of its last attempt (the panel's "ready: ..."),
 * told after every attempt: "GET /health → 503", "tcp HOST:PORT →
 * connection refused", "cmd → exited 1", "log /re/ → not seen yet".
 */
START_TEST(test_last_texts)
{
	struct probe_spec	 spec;
	struct server		 sv;
	struct seen		 s;
	char			 url[128], target[64], want[128];
	char			*cause = NULL;

	server_start(&sv, SERVER_503);
	snprintf(url, sizeof url, "http://127.0.0.1:%d/health?x=1", sv.port);
	memset(&spec, 0, sizeof spec);
	spec.kind = PROBE_HTTP;
	spec.mode = PROBE_READY;
	spec.target = url;
	spec.interval_ms = 50;
	spec.timeout_ms = 2000;
	spec.retries = 3;
	memset(&s, 0, sizeof s);
	s.p = probe_new(fx.loop, fx.jt, fx.http, &spec, &attempt_cbs, &s,
	    &cause);
	ck_assert_msg(s.p != NULL, "%s", cause);
	ck_assert_ptr_null(probe_last(s.p));
	run_until_report(&s);
	ck_assert_int_eq(s.attempts, 3);
	ck_assert_str_eq(s.text, "GET /health?x=1 → 503");
	ck_assert_str_eq(probe_last(s.p), "GET /health?x=1 → 503");
	probe_free(s.p);
	server_stop(&sv);

	server_start(&sv, SERVER_200);
	snprintf(url, sizeof url, "http://127.0.0.1:%d", sv.port);
	spec.target = url;
	memset(&s, 0, sizeof s);
	s.p = probe_new(fx.loop, fx.jt, fx.http, &spec, &attempt_cbs, &s,
	    &cause);
	ck_assert_msg(s.p != NULL, "%s", cause);
	run_until_report(&s);
	ck_assert_int_eq(s.ok, 1);
	ck_assert_str_eq(probe_last(s.p), "GET / → 200");
	probe_free(s.p);
	server_stop(&sv);

	snprintf(target, sizeof target, "127.0.0.1:%d", testnet_closed_port());
	memset(&s, 0, sizeof s);
	start_probe(&s, PROBE_TCP, PROBE_READY, target, 50, 1000, 1);
	run_until_report(&s);
	snprintf(want, sizeof want, "tcp %s → connection refused", target);
	ck_assert_str_eq(probe_last(s.p), want);
	probe_free(s.p);

	memset(&s, 0, sizeof s);
	start_probe(&s, PROBE_CMD, PROBE_READY, "exit 1", 50, 2000, 1);
	run_until_report(&s);
	ck_assert_str_eq(probe_last(s.p), "cmd → exited 1");
	probe_free(s.p);

	memset(&s, 0, sizeof s);
	start_probe(&s, PROBE_LOG, PROBE_READY, "^ready", 50, 0, 0);
	ck_assert_str_eq(probe_last(s.p), "log /^ready/ → not seen yet");
	probe_feed(s.p, "ready now\n", 10);
	ck_assert_int_eq(s.ok, 1);
	ck_assert_str_eq(probe_last(s.p), "log /^ready/ → seen");
	probe_free(s.p);
}
END_TEST

/* log: with retries, no matching line fails after retries intervals. */
START_TEST(test_log_no_match)
{
	struct seen	s = { 0 };
	int64_t		t0;

	s.free_it = 1;
	t0 = loop_now_ms();
	start_probe(&s, PROBE_LOG, PROBE_READY, "ready", 100, 0, 2);
	probe_feed(s.p, "not yet\n", 8);
	run_until_report(&s);
	ck_assert_int_eq(s.ok, 0);
	ck_assert_str_eq(s.why, "no line matched \"ready\"");
	ck_assert_int_ge(loop_now_ms() - t0, 195);
}
END_TEST

/* LIVE tcp: passes while up; three failures in a row once it closes. */
START_TEST(test_live_tcp)
{
	struct seen	s = { 0 };
	char		target[64];
	int		fd, port;
	int64_t		t0;

	fd = testnet_bound(&port);
	ck_assert_int_eq(listen(fd, 64), 0);
	snprintf(target, sizeof target, "127.0.0.1:%d", port);
	start_probe(&s, PROBE_TCP, PROBE_LIVE, target, 50, 1000, 3);
	run_for(400);
	ck_assert_int_eq(s.n, 0);
	close(fd);
	t0 = loop_now_ms();
	run_until_report(&s);
	ck_assert_int_eq(s.ok, 0);
	ck_assert_str_eq(s.why, "connect: Connection refused");
	/* Three attempts at least 50 ms apart. */
	ck_assert_int_ge(loop_now_ms() - t0, 95);
	probe_free(s.p);
}
END_TEST

/* LIVE cmd: failures that alternate with passes never add up to 3. */
START_TEST(test_live_in_a_row)
{
	struct seen	s = { 0 };
	char		target[1024], count[256];
	char		stop[256];
	long		n = 0;
	int64_t		end;
	int		fd;

	snprintf(count, sizeof count, "%s/count", fx.dir);
	snprintf(stop, sizeof stop, "%s/stop", fx.dir);
	snprintf(target, sizeof target, "test -e '%s' && exit 1; "
	    "n=$(cat '%s' 2>/dev/null || echo 0); n=$((n + 1)); "
	    "echo $n > '%s'; test $((n %% 2)) -eq 0", stop, count, count);
	start_probe(&s, PROBE_CMD, PROBE_LIVE, target, 20, 5000, 3);
	end = loop_now_ms() + WAIT_MS;
	while (read_numbers(count, &n, 1) == 0 || n < 8) {
		ck_assert_msg(s.n == 0, "reported after %ld attempts: %s", n,
		    s.why);
		ck_assert_msg(loop_now_ms() < end, "only %ld attempts", n);
		ck_assert_int_eq(loop_run_once(fx.loop, 20), 0);
	}
	ck_assert_int_eq(s.n, 0);
	fd = open(stop, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);
	run_until_report(&s);
	ck_assert_int_eq(s.ok, 0);
	ck_assert_str_eq(s.why, "command: Exited 1");
	probe_free(s.p);
}
END_TEST

/* probe_free() while a command runs: no process, fd or timer is left. */
START_TEST(test_free_during_cmd)
{
	struct seen	s = { 0 };
	char		pidfile[256], target[1024];
	long		pids[2];
	int		fds;
	int64_t		t0;

	snprintf(pidfile, sizeof pidfile, "%s/pids", fx.dir);
	snprintf(target, sizeof target, "sleep 100 & echo $! > '%s'; "
	    "echo $$ >> '%s'; wait", pidfile, pidfile);
	fds = count_fds();
	t0 = loop_now_ms();
	start_probe(&s, PROBE_CMD, PROBE_LIVE, target, 50, 800, 3);
	wait_file(pidfile);
	run_for(50);
	ck_assert_int_eq(read_numbers(pidfile, pids, 2), 2);
	probe_free(s.p);
	wait_gone(pids, 2);
	ck_assert_int_eq(s.n, 0);
	assert_quiet(fds, t0 + 1200);
}
END_TEST

/* probe_free() while a connect is in progress: no fd or timer is left. */
START_TEST(test_free_during_tcp)
{
	struct seen	s = { 0 };
	char		target[64];
	int		fd, port, fillers[3], fds;
	int64_t		t0, end;

	fd = tcp_full(&port, fillers);
	snprintf(target, sizeof target, "127.0.0.1:%d", port);
	fds = count_fds();
	t0 = loop_now_ms();
	start_probe(&s, PROBE_TCP, PROBE_LIVE, target, 50, 800, 3);
	end = loop_now_ms() + WAIT_MS;
	while (count_fds() == fds) {
		ck_assert_msg(loop_now_ms() < end, "no connect started");
		ck_assert_int_eq(loop_run_once(fx.loop, 20), 0);
	}
	run_for(50);
	probe_free(s.p);
	ck_assert_int_eq(s.n, 0);
	assert_quiet(fds, t0 + 1200);
	close_fillers(fillers);
	close(fd);
}
END_TEST

/* probe_free() while a GET waits for its answer: no fd or timer is left. */
START_TEST(test_free_during_http)
{
	struct server	sv;
	struct seen	s = { 0 };
	char		url[128];
	int		fds;
	int64_t		t0, end;

	server_start(&sv, SERVER_SILENT);
	snprintf(url, sizeof url, "http://127.0.0.1:%d/", sv.port);
	fds = count_fds();
	t0 = loop_now_ms();
	start_probe(&s, PROBE_HTTP, PROBE_LIVE, url, 50, 800, 3);
	end = loop_now_ms() + WAIT_MS;
	while (count_fds() == fds) {
		ck_assert_msg(loop_now_ms() < end, "no request started");
		ck_assert_int_eq(loop_run_once(fx.loop, 20), 0);
	}
	run_for(100);
	probe_free(s.p);
	ck_assert_int_eq(s.n, 0);
	assert_quiet(fds, t0 + 1200);
	server_stop(&sv);
}
END_TEST

/*
 * Contain the jobtable's processes, probes' commands among them: with a
 * cgroup each (flags 0; 0 returned, and "SKIP: " said, where none can be
 * made) or the marker alone.
 */
static int
contain(int flags, const char *test)
{
	fx.cg = cgroup_new(flags);
	if (!(flags & CGROUP_NO_CGROUP) && cgroup_dir(fx.cg) == NULL) {
		TEST_SKIP_LINE("%s: %s", test, cgroup_warning(fx.cg));
		return 0;
	}
	jobtable_set_cgroup(fx.jt, fx.cg);
	return 1;
}

/* Run the loop until no `sleep ARG` is left, at most WAIT_MS. */
static void
wait_no_sleeps(const char *arg, const char *when)
{
	int64_t	end = loop_now_ms() + WAIT_MS;
	int	n;

	while ((n = testproc_sleeps(arg, NULL)) > 0) {
		ck_assert_msg(loop_now_ms() < end, "%s: %d `sleep %s` left "
		    "after %d ms", when, n, arg, WAIT_MS);
		ck_assert_int_eq(loop_run_once(fx.loop, 20), 0);
	}
}

/* Whether the deck's cgroup holds a run's cgroup still. */
static int
job_cgroups(void)
{
	struct dirent	*de;
	DIR		*d;
	int		 n = 0;

	if ((d = opendir(cgroup_dir(fx.cg))) == NULL)
		return 0;
	while ((de = readdir(d)) != NULL)
		n += strncmp(de->d_name, "job-", 4) == 0;
	closedir(d);
	return n;
}

/*
 * cmd: a command whose escapee leaves its session (setsid -f) at each
 * attempt leaves nothing once the attempt is over: after the report of
 * three failed attempts, and when the probe is freed during an attempt.
 * Through a cgroup (_i 0, whose directories go too) or the marker (_i 1).
 */
START_TEST(test_cmd_escapees_contained)
{
	struct seen	s = { 0 };
	char		arg[32], target[512], mark[256];
	int64_t		end;

	if (!contain(_i ? CGROUP_NO_CGROUP : 0, "cmd_escapees_contained"))
		return;
	snprintf(arg, sizeof arg, "7771%05d", (int)(getpid() % 100000));
	snprintf(target, sizeof target, "setsid -f sleep %s; exit 1", arg);
	start_probe(&s, PROBE_CMD, PROBE_READY, target, 50, 5000, 3);
	run_until_report(&s);
	ck_assert_int_eq(s.ok, 0);
	ck_assert_str_eq(s.why, "command: Exited 1");
	wait_no_sleeps(arg, "after three attempts");
	probe_free(s.p);

	/* Freed while an attempt and its escapee run. */
	snprintf(mark, sizeof mark, "%s/escaped", fx.dir);
	snprintf(target, sizeof target, "setsid -f sleep %s; touch '%s'; "
	    "exec sleep 100", arg, mark);
	memset(&s, 0, sizeof s);
	start_probe(&s, PROBE_CMD, PROBE_LIVE, target, 50, 60000, 1);
	wait_file(mark);
	end = loop_now_ms() + WAIT_MS;
	while (testproc_sleeps(arg, NULL) == 0) {
		ck_assert_msg(loop_now_ms() < end, "no escapee started");
		ck_assert_int_eq(loop_run_once(fx.loop, 20), 0);
	}
	probe_free(s.p);
	wait_no_sleeps(arg, "after probe_free()");
	ck_assert_int_eq(s.n, 0);
	if (_i == 0) {
		end = loop_now_ms() + WAIT_MS;
		while (job_cgroups() > 0) {
			ck_assert_msg(loop_now_ms() < end, "%d attempts' "
			    "cgroups left in %s", job_cgroups(),
			    cgroup_dir(fx.cg));
			ck_assert_int_eq(loop_run_once(fx.loop, 20), 0);
		}
	}
}
END_TEST

/* Build the probe suite. */
static Suite *
probe_suite(void)
{
	Suite	*s = suite_create("probe");
	TCase	*tc;

	tc = tcase_create("tcp");
	tcase_set_timeout(tc, 30);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_tcp_ready_once_listening);
	tcase_add_test(tc, test_tcp_refused_after_retries);
	tcase_add_test(tc, test_tcp_localhost);
	tcase_add_test(tc, test_tcp_ipv6);
	tcase_add_test(tc, test_tcp_timeout);
	tcase_add_test(tc, test_refused_specs);
	suite_add_tcase(s, tc);

	tc = tcase_create("http");
	tcase_set_timeout(tc, 30);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_http_200);
	tcase_add_test(tc, test_http_resolved_name);
	tcase_add_test(tc, test_http_503);
	tcase_add_test(tc, test_http_timeout);
	tcase_add_test(tc, test_http_redirect_and_bodies);
	suite_add_tcase(s, tc);

	tc = tcase_create("cmd");
	tcase_set_timeout(tc, 30);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_cmd_file_appears);
	tcase_add_test(tc, test_cmd_cwd_env_status);
	tcase_add_test(tc, test_cmd_hang_killed);
	tcase_add_loop_test(tc, test_cmd_escapees_contained, 0, 2);
	suite_add_tcase(s, tc);

	tc = tcase_create("log");
	tcase_set_timeout(tc, 30);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_log_chunks_and_colour);
	tcase_add_test(tc, test_log_no_match);
	tcase_add_test(tc, test_last_texts);
	suite_add_tcase(s, tc);

	tc = tcase_create("live");
	tcase_set_timeout(tc, 30);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_live_tcp);
	tcase_add_test(tc, test_live_in_a_row);
	suite_add_tcase(s, tc);

	tc = tcase_create("free");
	tcase_set_timeout(tc, 30);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_free_during_cmd);
	tcase_add_test(tc, test_free_during_tcp);
	tcase_add_test(tc, test_free_during_http);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite; exit non-zero if any test failed. */
int
main(void)
{
	SRunner	*sr;
	int	 failed;

	sr = srunner_create(probe_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

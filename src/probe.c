/*
 * probe.c: readiness and liveness probes on the loop (see probe.h).
 *
 * An attempt starts initial_delay_ms after probe_new(), the next one
 * interval_ms after the start of the one before (at once if that one took
 * longer), and each is bounded by timeout_ms.  PROBE_READY reports ok at
 * the first attempt that passes, or not ok once `retries` attempts have
 * failed (0: it never gives up); PROBE_LIVE reports not ok once `retries`
 * attempts in a row have failed (a pass starts the count again; 0 counts
 * as 1).  The report is made with nothing of the probe left running (no
 * timer, socket, request or process), so the result callback may call
 * probe_free().
 *
 * PROBE_LOG: the bytes probe_feed() is given go through rawtext (escapes
 * stripped, CR and BS replayed, a line cut at RAWTEXT_LINE_MAX characters,
 * which bounds what is held), and every completed line is matched with
 * the ERE compiled in probe_new(); a line still open is not matched.  A
 * match passes at once, whenever it comes; with retries set it fails when
 * no line matched within initial_delay_ms + retries * interval_ms.  Only
 * readiness: a log cannot say a job stopped being alive.
 *
 * PROBE_CMD: `shell -c target`, a supervised process (proc.h) of the
 * jobtable's reaper started by proc_spawn() (pty.c, child.c's fork
 * hygiene) with the probe's cwd and envp, stdin, stdout and stderr on
 * /dev/null, in a session and process group of its own, and contained as
 * a job is: each attempt gets its own cgroup, or its own JOBDECK_JOB
 * marker, so nothing it starts (setsid -f, a double fork) is out of
 * reach.  The reaper tells us of its end; exit 0 passes.  When the
 * command has ended what is left in its containment is killed
 * (proc_release()); an attempt cut short (its time limit, probe_free())
 * kills all of it (proc_kill(): its group too), and a leader not reaped
 * yet is reaped as a stray.
 *
 * PROBE_TCP: "host:port", "[v6addr]:port".  getaddrinfo() of a name can
 * block, so names are refused in probe_new() with a message that says so:
 * the host must be a numeric address (parsed with AI_NUMERICHOST, which
 * never looks anything up) or "localhost", tried as 127.0.0.1 and then
 * ::1.  Each address gets a non-blocking connect(); completion is POLLOUT
 * on the loop and SO_ERROR says how it went.  A connection is closed as
 * soon as it is made.
 *
 * PROBE_HTTP: a GET through http.h; a 2xx or 3xx answer passes (redirects
 * are not followed).
 */
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <ctype.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "hostport.h"
#include "http.h"
#include "jobtable.h"
#include "loop.h"
#include "probe.h"
#include "proc.h"
#include "pty.h"
#include "rawtext.h"
#include "rxbound.h"
#include "waitstatus.h"
#include "xmalloc.h"

#define PROBE_ADDRS	2	/* localhost: 127.0.0.1, then ::1 */

struct probe {
	struct loop		*loop;
	struct jobtable		*jt;
	struct http		*http;
	const struct probe_cbs	*cbs;
	void			*arg;

	enum probe_kind		 kind;
	enum probe_mode		 mode;
	char			*target;
	char			*describe;
	char			*subject;	/* "GET /health", "cmd" */
	char			*last;		/* subject → last outcome */
	int64_t			 interval_ms;
	int64_t			 timeout_ms;
	int			 retries;

	int			 done;		/* reported */
	int			 fails;		/* failed attempts (in a row) */
	uint64_t		 timer;		/* next attempt, this one's */
						/*   limit, or the log's end */
	int64_t			 started;	/* this attempt's start */

	/* PROBE_LOG */
	regex_t			 re;
	int			 re_set;
	struct rawtext		*raw;

	/* PROBE_CMD */
	char			*shell;
	char			*cwd;
	char			**envp;		/* NULL: jobdeck's */
	char			*argv[4];	/* shell -c target */
	struct proc		*proc;		/* running, or NULL */

	/* PROBE_TCP */
	struct sockaddr_storage	 addrs[PROBE_ADDRS];
	socklen_t		 addrlens[PROBE_ADDRS];
	int			 naddrs;
	int			 addr;		/* the one being tried */
	int			 fd;		/* connecting, -1: none */
	int			 tcp_error;	/* the first address's errno */

	/* PROBE_HTTP */
	struct http_req		*req;
};

static const char *probe_kind_name(enum probe_kind);
static int	probe_check_spec(const struct probe_spec *, struct http *,
		    char **);
static int	probe_tcp_addr(struct probe *, const char *, const char *,
		    char **);
static int	probe_tcp_parse(struct probe *, const char *, char **);
static char   **probe_copy_env(char *const *);
static void	probe_report(struct probe *, int, const char *);
static void	probe_outcome(struct probe *, const char *);
static void	probe_attempt_end(struct probe *, int, const char *);
static void	probe_attempt_cb(void *);
static void	probe_limit_cb(void *);
static void	probe_log_end_cb(void *);
static void	probe_cmd_start(struct probe *);
static void	probe_cmd_exited(struct proc *, int, void *);
static void	probe_cmd_kill(struct probe *);
static void	probe_tcp_start(struct probe *);
static void	probe_tcp_next(struct probe *);
static void	probe_tcp_cb(int, short, void *);
static void	probe_tcp_close(struct probe *);
static void	probe_http_start(struct probe *);
static void	probe_http_done(long, const char *, size_t, const char *,
		    void *);
static void	probe_stop_attempt(struct probe *);

/* What an attempt's command tells the probe. */
static const struct proc_cbs probe_cmd_cbs = {
	.exited = probe_cmd_exited,
};

/* Return the word a kind is described by. */
static const char *
probe_kind_name(enum probe_kind kind)
{
	switch (kind) {
	case PROBE_LOG:
		return "log";
	case PROBE_CMD:
		return "cmd";
	case PROBE_TCP:
		return "tcp";
	case PROBE_HTTP:
		return "http";
	}
	return "?";
}

/* Check what every kind needs of a spec; -1 with *cause if it lacks it. */
static int
probe_check_spec(const struct probe_spec *spec, struct http *http,
    char **cause)
{
	const char	*name = probe_kind_name(spec->kind);

	if (spec->target == NULL || spec->target[0] == '\0') {
		*cause = xprintf("%s probe: nothing to check", name);
		return -1;
	}
	if (spec->interval_ms <= 0 || spec->retries < 0 ||
	    (spec->kind != PROBE_LOG && spec->timeout_ms <= 0)) {
		*cause = xprintf("%s probe: the interval and the timeout must "
		    "be positive and the retries not negative", name);
		return -1;
	}
	switch (spec->kind) {
	case PROBE_LOG:
		if (spec->mode == PROBE_LIVE) {
			*cause = xstrdup("a log probe can only say a job is "
			    "ready, not that it is alive");
			return -1;
		}
		break;
	case PROBE_CMD:
		if (spec->shell == NULL || spec->shell[0] != '/') {
			*cause = xstrdup("cmd probe: the shell must be an "
			    "absolute path");
			return -1;
		}
		break;
	case PROBE_HTTP:
		if (http == NULL) {
			*cause = xstrdup("http probe: HTTP is not available");
			return -1;
		}
		if (strncasecmp(spec->target, "http://", 7) != 0 &&
		    strncasecmp(spec->target, "https://", 8) != 0) {
			*cause = xprintf("http probe: \"%s\" is not an http:// "
			    "or https:// URL", spec->target);
			return -1;
		}
		break;
	case PROBE_TCP:
		break;
	default:
		*cause = xstrdup("unknown probe kind");
		return -1;
	}
	return 0;
}

/* Add the numeric address host, port to the TCP probe's list. */
static int
probe_tcp_addr(struct probe *p, const char *host, const char *port,
    char **cause)
{
	struct addrinfo	 hints, *res;
	int		 rc;

	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
	if ((rc = getaddrinfo(host, port, &hints, &res)) != 0) {
		*cause = xprintf("tcp probe: %s: %s", host, gai_strerror(rc));
		return -1;
	}
	if (res->ai_addrlen > sizeof p->addrs[0] || p->naddrs == PROBE_ADDRS) {
		freeaddrinfo(res);
		*cause = xprintf("tcp probe: %s: unusable address", host);
		return -1;
	}
	memcpy(&p->addrs[p->naddrs], res->ai_addr, res->ai_addrlen);
	p->addrlens[p->naddrs++] = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

/* Split "host:port" (hostport.h's rule) into the probe's addresses. */
static int
probe_tcp_parse(struct probe *p, const char *target, char **cause)
{
	char	*host, *port;
	int	 rc;

	if (hostport_split("tcp probe", target, &host, &port, cause) != 0)
		return -1;
	if (strcasecmp(host, "localhost") == 0) {
		rc = probe_tcp_addr(p, "127.0.0.1", port, cause);
		if (rc == 0)
			rc = probe_tcp_addr(p, "::1", port, cause);
	} else
		rc = probe_tcp_addr(p, host, port, cause);
	free(host);
	free(port);
	return rc;
}

/* Copy a NULL-terminated environment. */
static char **
probe_copy_env(char *const *envp)
{
	char	**copy;
	size_t	  n, i;

	for (n = 0; envp[n] != NULL; n++)
		/* nothing */;
	copy = xcalloc(n + 1, sizeof *copy);
	for (i = 0; i < n; i++)
		copy[i] = xstrdup(envp[i]);
	return copy;
}

/*
 * Return what a probe's short text names before its outcome: "GET
 * /health" (the URL's path), "tcp 127.0.0.1:5432", "cmd", "log /re/".
 */
static char *
probe_subject(enum probe_kind kind, const char *target)
{
	const char	*path;

	switch (kind) {
	case PROBE_HTTP:
		path = strstr(target, "://");
		path = path != NULL ? strchr(path + 3, '/') : NULL;
		return xprintf("GET %s", path != NULL ? path : "/");
	case PROBE_TCP:
		return xprintf("tcp %s", target);
	case PROBE_LOG:
		return xprintf("log /%s/", target);
	case PROBE_CMD:
		break;
	}
	return xstrdup("cmd");
}

/*
 * Keep the outcome of the last attempt as the probe's short text,
 * "GET /health → 503"; the first letter of outcome is made lower case
 * ("Connection refused" reads "connection refused").
 */
static void
probe_outcome(struct probe *p, const char *outcome)
{
	free(p->last);
	p->last = xprintf("%s → %s", p->subject, outcome);
	if (p->last[strlen(p->subject) + 5] != '\0')
		p->last[strlen(p->subject) + 5] = (char)tolower(
		    (unsigned char)p->last[strlen(p->subject) + 5]);
}

/*
 * Return the short text of the probe's last attempt ("GET /health →
 * 503", "tcp 127.0.0.1:5432 → connection refused", "cmd → exited 1",
 * "log /ready/ → not seen yet"), or NULL before the first one ends.
 */
const char *
probe_last(const struct probe *p)
{
	return p->last;
}

/*
 * Make a probe and arm its first attempt; NULL with *cause when the spec
 * cannot be probed (a bad regex, a host name, a URL that is not HTTP).
 */
struct probe *
probe_new(struct loop *loop, struct jobtable *jt, struct http *http,
    const struct probe_spec *spec, const struct probe_cbs *cbs, void *arg,
    char **cause)
{
	struct probe	*p;
	char		*why = NULL;
	int		 rc;
	int64_t		 delay, end;

	if (probe_check_spec(spec, http, cause) != 0)
		return NULL;
	p = xcalloc(1, sizeof *p);
	p->loop = loop;
	p->jt = jt;
	p->http = http;
	p->cbs = cbs;
	p->arg = arg;
	p->kind = spec->kind;
	p->mode = spec->mode;
	p->target = xstrdup(spec->target);
	p->describe = xprintf("%s %s", probe_kind_name(spec->kind),
	    spec->target);
	p->subject = probe_subject(spec->kind, spec->target);
	if (p->kind == PROBE_LOG)
		probe_outcome(p, "not seen yet");
	p->interval_ms = spec->interval_ms;
	p->timeout_ms = spec->timeout_ms;
	p->retries = spec->retries;
	if (p->mode == PROBE_LIVE && p->retries < 1)
		p->retries = 1;
	p->fd = -1;
	delay = spec->initial_delay_ms > 0 ? spec->initial_delay_ms : 0;

	switch (p->kind) {
	case PROBE_LOG:
		rc = rxbound_compile(&p->re, p->target,
		    REG_EXTENDED | REG_NOSUB, &why);
		if (rc != 0) {
			*cause = xprintf("log probe: regex \"%s\": %s",
			    p->target, why);
			free(why);
			probe_free(p);
			return NULL;
		}
		p->re_set = 1;
		p->raw = rawtext_new();
		if (p->retries > 0) {
			end = delay;
			if (p->interval_ms > (INT64_MAX / 4 - end) / p->retries)
				end = INT64_MAX / 4;
			else
				end += p->interval_ms * p->retries;
			p->timer = loop_add_timer(loop, end, probe_log_end_cb,
			    p);
		}
		return p;
	case PROBE_CMD:
		p->shell = xstrdup(spec->shell);
		p->cwd = spec->cwd != NULL ? xstrdup(spec->cwd) : NULL;
		p->envp = spec->envp != NULL ? probe_copy_env(spec->envp) :
		    NULL;
		p->argv[0] = p->shell;
		p->argv[1] = (char *)"-c";
		p->argv[2] = p->target;
		break;
	case PROBE_TCP:
		if (probe_tcp_parse(p, p->target, cause) != 0) {
			probe_free(p);
			return NULL;
		}
		break;
	case PROBE_HTTP:
		break;
	}
	p->timer = loop_add_timer(loop, delay, probe_attempt_cb, p);
	return p;
}

/* Feed a log probe the job's output; other kinds ignore it. */
void
probe_feed(struct probe *p, const char *buf, size_t len)
{
	char	**lines;
	int	  n, i, matched = 0;

	if (p->kind != PROBE_LOG || p->done || len == 0)
		return;
	rawtext_feed(p->raw, buf, len);
	lines = rawtext_take(p->raw, &n);
	for (i = 0; i < n && !matched; i++)
		matched = regexec(&p->re, lines[i], 0, NULL, 0) == 0;
	rawtext_free_lines(lines, n);
	if (!matched)
		return;
	if (p->timer != 0) {
		loop_cancel_timer(p->loop, p->timer);
		p->timer = 0;
	}
	probe_outcome(p, "seen");
	probe_report(p, 1, NULL);
}

/* Say what the probe checks: "tcp 127.0.0.1:5432", "log ^ready". */
const char *
probe_describe(const struct probe *p)
{
	return p->describe;
}

/* Stop what the current attempt runs: its timer, process, socket, GET. */
static void
probe_stop_attempt(struct probe *p)
{
	if (p->timer != 0) {
		loop_cancel_timer(p->loop, p->timer);
		p->timer = 0;
	}
	if (p->proc != NULL)
		probe_cmd_kill(p);
	probe_tcp_close(p);
	if (p->req != NULL) {
		http_cancel(p->req);
		p->req = NULL;
	}
}

/* Free a probe, killing its command and closing its socket and request. */
void
probe_free(struct probe *p)
{
	size_t	i;

	if (p == NULL)
		return;
	probe_stop_attempt(p);
	if (p->re_set)
		regfree(&p->re);
	if (p->raw != NULL)
		rawtext_free(p->raw);
	if (p->envp != NULL) {
		for (i = 0; p->envp[i] != NULL; i++)
			free(p->envp[i]);
		free(p->envp);
	}
	free(p->shell);
	free(p->cwd);
	free(p->target);
	free(p->describe);
	free(p->subject);
	free(p->last);
	free(p);
}

/* Make the one report; the callback may free the probe. */
static void
probe_report(struct probe *p, int ok, const char *why)
{
	p->done = 1;
	if (p->cbs != NULL && p->cbs->result != NULL)
		p->cbs->result(p, ok, why, p->arg);
}

/*
 * An attempt is over (everything it ran is stopped; its outcome kept by
 * probe_outcome()): tell the caller of it, then report, or arm the next
 * attempt.  The probe may be freed when this returns.
 */
static void
probe_attempt_end(struct probe *p, int ok, const char *why)
{
	int64_t	delay;

	if (p->cbs != NULL && p->cbs->attempt != NULL)
		p->cbs->attempt(p, ok, p->last, p->arg);

	if (ok) {
		if (p->mode == PROBE_READY) {
			probe_report(p, 1, NULL);
			return;
		}
		p->fails = 0;
	} else {
		p->fails++;
		if (p->retries > 0 && p->fails >= p->retries) {
			probe_report(p, 0, why);
			return;
		}
	}
	delay = p->started + p->interval_ms - loop_now_ms();
	p->timer = loop_add_timer(p->loop, delay, probe_attempt_cb, p);
}

/* Time for an attempt: start the kind's check. */
static void
probe_attempt_cb(void *arg)
{
	struct probe	*p = arg;

	p->timer = 0;
	p->started = loop_now_ms();
	switch (p->kind) {
	case PROBE_CMD:
		probe_cmd_start(p);
		break;
	case PROBE_TCP:
		probe_tcp_start(p);
		break;
	case PROBE_HTTP:
		probe_http_start(p);
		break;
	case PROBE_LOG:
		break;
	}
}

/* The attempt's time limit: stop it and count a failure. */
static void
probe_limit_cb(void *arg)
{
	struct probe	*p = arg;
	char		*why;

	p->timer = 0;
	why = xprintf("%s: timed out after %lld ms",
	    p->kind == PROBE_TCP ? "connect" : "command",
	    (long long)p->timeout_ms);
	probe_outcome(p, "timed out");
	probe_stop_attempt(p);
	probe_attempt_end(p, 0, why);
	free(why);
}

/* A log probe's time is up without a matching line. */
static void
probe_log_end_cb(void *arg)
{
	struct probe	*p = arg;
	char		*why;

	p->timer = 0;
	why = xprintf("no line matched \"%s\"", p->target);
	probe_outcome(p, "not seen");
	probe_report(p, 0, why);
	free(why);
}

/*
 * Start the command: shell -c target, a supervised process of the
 * jobtable's reaper in a containment of its own.
 */
static void
probe_cmd_start(struct probe *p)
{
	struct proc_reaper	*r = jobtable_reaper(p->jt);
	struct pty_spec		 spec;
	struct pty_child	 child;
	char			*cause = NULL, *why;

	p->proc = proc_new(r, proc_reaper_cgroup(r), 0, &probe_cmd_cbs, p);
	memset(&spec, 0, sizeof spec);
	spec.path = p->shell;
	spec.argv = p->argv;
	spec.envp = p->envp != NULL ? p->envp : environ;
	spec.cwd = p->cwd;
	spec.no_pty = 1;
	spec.null_stdin = 1;
	spec.null_output = 1;
	memset(&child, 0, sizeof child);
	if (proc_spawn(p->proc, &spec, &child, &cause) != 0) {
		proc_free(p->proc);
		p->proc = NULL;
		why = xprintf("command: %s", cause);
		probe_outcome(p, cause);
		free(cause);
		probe_attempt_end(p, 0, why);
		free(why);
		return;
	}
	pty_child_close(&child);
	p->timer = loop_add_timer(p->loop, p->timeout_ms, probe_limit_cb, p);
}

/* The reaper says the command ended: exit 0 passes. */
static void
probe_cmd_exited(struct proc *proc, int status, void *arg)
{
	struct probe	*p = arg;
	char		 buf[64];
	char		*why = NULL;

	(void)proc;
	if (p->timer != 0) {
		loop_cancel_timer(p->loop, p->timer);
		p->timer = 0;
	}
	/* The attempt is over: nothing it started outlives it. */
	proc_release(p->proc);
	p->proc = NULL;
	waitstatus_long(status, buf, sizeof buf);
	probe_outcome(p, buf);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		why = xprintf("command: %s", buf);
	probe_attempt_end(p, why == NULL, why);
	free(why);
}

/*
 * SIGKILL all of the attempt's command (its group and containment) and
 * let it go; a leader not reaped yet is reaped as a stray.
 */
static void
probe_cmd_kill(struct probe *p)
{
	proc_kill(p->proc);
	proc_free(p->proc);
	p->proc = NULL;
}

/* Start connecting to the first address. */
static void
probe_tcp_start(struct probe *p)
{
	p->addr = 0;
	p->tcp_error = 0;
	probe_tcp_next(p);
}

/*
 * Connect to addrs[addr] and on: wait for one in progress, pass at one
 * made, fail with the first address's error when none is left.
 */
static void
probe_tcp_next(struct probe *p)
{
	const struct sockaddr	*sa;
	int			 fd, error;
	char			*why;

	for (; p->addr < p->naddrs; p->addr++) {
		sa = (const struct sockaddr *)&p->addrs[p->addr];
		fd = socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK |
		    SOCK_CLOEXEC, 0);
		if (fd == -1)
			error = errno;
		else if (connect(fd, sa, p->addrlens[p->addr]) == 0) {
			close(fd);
			if (p->timer != 0) {
				loop_cancel_timer(p->loop, p->timer);
				p->timer = 0;
			}
			probe_outcome(p, "connected");
			probe_attempt_end(p, 1, NULL);
			return;
		} else if ((error = errno) == EINPROGRESS) {
			p->fd = fd;
			loop_watch_fd(p->loop, fd, POLLOUT, probe_tcp_cb, p);
			if (p->timer == 0)
				p->timer = loop_add_timer(p->loop,
				    p->timeout_ms, probe_limit_cb, p);
			return;
		} else
			close(fd);
		if (p->tcp_error == 0)
			p->tcp_error = error;
	}
	if (p->timer != 0) {
		loop_cancel_timer(p->loop, p->timer);
		p->timer = 0;
	}
	why = xprintf("connect: %s", strerror(p->tcp_error));
	probe_outcome(p, strerror(p->tcp_error));
	probe_attempt_end(p, 0, why);
	free(why);
}

/* The connect in progress finished: SO_ERROR says how. */
static void
probe_tcp_cb(int fd, short revents, void *arg)
{
	struct probe	*p = arg;
	socklen_t	 len = sizeof(int);
	int		 error = 0;

	(void)revents;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len) != 0)
		error = errno;
	probe_tcp_close(p);
	if (error == 0) {
		if (p->timer != 0) {
			loop_cancel_timer(p->loop, p->timer);
			p->timer = 0;
		}
		probe_outcome(p, "connected");
		probe_attempt_end(p, 1, NULL);
		return;
	}
	if (p->tcp_error == 0)
		p->tcp_error = error;
	p->addr++;
	probe_tcp_next(p);
}

/* Unwatch and close the socket being connected, if any. */
static void
probe_tcp_close(struct probe *p)
{
	if (p->fd == -1)
		return;
	loop_unwatch_fd(p->loop, p->fd);
	close(p->fd);
	p->fd = -1;
}

/* Start the GET; http.c bounds it by the timeout. */
static void
probe_http_start(struct probe *p)
{
	char	*cause = NULL;

	p->req = http_get(p->http, p->target, p->timeout_ms,
	    probe_http_done, p, &cause);
	if (p->req == NULL) {
		probe_outcome(p, cause);
		probe_attempt_end(p, 0, cause);
		free(cause);
	}
}

/* The GET ended: 2xx and 3xx pass. */
static void
probe_http_done(long status, const char *body, size_t len,
    const char *error, void *arg)
{
	struct probe	*p = arg;
	char		*why = NULL, code[32];

	(void)body;
	(void)len;
	p->req = NULL;
	if (error != NULL)
		why = xstrdup(error);
	else if (status == 0)
		why = xstrdup("no HTTP status");
	else if (status < 200 || status > 399)
		why = xprintf("HTTP %ld", status);
	if (error == NULL && status != 0) {
		snprintf(code, sizeof code, "%ld", status);
		probe_outcome(p, code);
	} else
		probe_outcome(p, why);
	probe_attempt_end(p, why == NULL, why);
	free(why);
}

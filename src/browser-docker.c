/*
 * browser-docker.c: the deck's browser in a container (browser-private.h):
 * `docker version`, `docker run -d`, `docker port` and `docker rm -f`,
 * one at a time, each a supervised process (proc.h) whose output is read
 * into a bounded buffer and whose end moves the start on.
 */
#include <sys/wait.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "browser-private.h"
#include "browser.h"
#include "debuglog.h"
#include "hostport.h"
#include "jobtable.h"
#include "loop.h"
#include "proc.h"
#include "pty.h"
#include "waitstatus.h"
#include "xmalloc.h"

static int	browser_cmd_run(struct browser *, enum browser_step,
		    char **, int64_t);
static void	browser_docker_run(struct browser *);
static void	browser_cmd_read(struct browser *);
static void	browser_cmd_fd_cb(int, short, void *);
static void	browser_cmd_exited(struct proc *, int, void *);
static void	browser_cmd_timeout_cb(void *);
static void	browser_cmd_contain_end(struct browser *);
static const char *browser_cmd_last(struct browser *);
static void	browser_cmd_done(struct browser *, int);

/* What a docker command tells. */
static const struct proc_cbs browser_cmd_cbs = {
	.exited = browser_cmd_exited,
};

/* Start in Docker when a daemon answers, else locally. */
void
browser_docker_begin(struct browser *b)
{
	char	*argv[5];

	b->kind = BROWSER_KIND_DOCKER;
	browser_set_str(&b->label, NULL);
	b->label = xprintf("Chrome in Docker (%s)", b->image);
	argv[0] = (char *)"docker";
	argv[1] = (char *)"version";
	argv[2] = (char *)"--format";
	argv[3] = (char *)"{{.Server.Version}}";
	argv[4] = NULL;
	if (browser_cmd_run(b, BROWSER_STEP_VERSION, argv,
	    BROWSER_VERSION_MS) != 0) {
		debuglog("browser: no docker: not on PATH; local instead");
		browser_local_begin(b);
	}
}

/*
 * Run a docker command for step with a bound (ms); its output is kept
 * and browser_cmd_done() told of its end.  -1 when docker is not found
 * or cannot be started.
 */
static int
browser_cmd_run(struct browser *b, enum browser_step step, char **argv,
    int64_t ms)
{
	char	*path, *cause = NULL;
	int	 rc;

	if ((path = pty_find_program("docker", NULL)) == NULL)
		return -1;
	/* Contained as the browser is: nothing it starts outlives it. */
	b->cmd.proc = proc_new(jobtable_reaper(b->jt), b->cg, 0,
	    &browser_cmd_cbs, b);
	rc = browser_spawn(path, argv, b->cmd.proc, &b->cmd.fd, &cause);
	free(path);
	if (rc != 0) {
		debuglog("browser: docker %s: %s", argv[1], cause);
		free(cause);
		proc_free(b->cmd.proc);
		b->cmd.proc = NULL;
		b->cmd.fd = -1;
		return -1;
	}
	b->cmd.step = step;
	b->cmd.len = 0;
	loop_watch_fd(b->loop, b->cmd.fd, POLLIN, browser_cmd_fd_cb, b);
	b->cmd.timer = loop_add_timer(b->loop, ms, browser_cmd_timeout_cb, b);
	debuglog("browser: docker %s (pid %ld)", argv[1],
	    (long)proc_pid(b->cmd.proc));
	return 0;
}

/*
 * Run `docker VERB ARG NAME` (rm -f) or `docker port NAME 9222/tcp` for
 * step; 0 or -1 as browser_cmd_run().
 */
int
browser_docker(struct browser *b, enum browser_step step, const char *verb,
    const char *arg, int64_t ms)
{
	char	*argv[5];

	argv[0] = (char *)"docker";
	argv[1] = (char *)verb;
	if (step == BROWSER_STEP_PORT) {
		argv[2] = b->cname;
		argv[3] = (char *)arg;
	} else {
		argv[2] = (char *)arg;
		argv[3] = b->cname;
	}
	argv[4] = NULL;
	return browser_cmd_run(b, step, argv, ms);
}

/* Run the image: docker run -d --rm with the CDP port on 127.0.0.1. */
static void
browser_docker_run(struct browser *b)
{
	char	**argv;
	size_t	  n, i = 0;

	for (n = 0; b->args[n] != NULL; n++)
		;
	argv = xcalloc(n + 14, sizeof *argv);
	argv[i++] = (char *)"docker";
	argv[i++] = (char *)"run";
	argv[i++] = (char *)"-d";
	argv[i++] = (char *)"--rm";
	argv[i++] = (char *)"-p";
	argv[i++] = (char *)"127.0.0.1::9222";
	argv[i++] = (char *)"--name";
	argv[i++] = b->cname;
	argv[i++] = b->image;
	argv[i++] = (char *)"--no-sandbox";
	argv[i++] = (char *)"--remote-debugging-address=0.0.0.0";
	argv[i++] = (char *)"--remote-debugging-port=9222";
	for (n = 0; b->args[n] != NULL; n++)
		argv[i++] = b->args[n];
	argv[i] = NULL;
	debuglog("browser: docker run %s as %s", b->image, b->cname);
	if (browser_cmd_run(b, BROWSER_STEP_RUN, argv, b->timeout_ms) != 0)
		browser_fail(b, "docker run: cannot run docker");
	free(argv);
}

/* Read the docker command's output, keeping what fits. */
static void
browser_cmd_read(struct browser *b)
{
	char	buf[4096];
	ssize_t	n;
	size_t	room;

	while (b->cmd.fd != -1) {
		n = read(b->cmd.fd, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0) {
			loop_unwatch_fd(b->loop, b->cmd.fd);
			close(b->cmd.fd);
			b->cmd.fd = -1;
			return;
		}
		room = sizeof b->cmd.out - 1 - b->cmd.len;
		if ((size_t)n < room)
			room = (size_t)n;
		memcpy(b->cmd.out + b->cmd.len, buf, room);
		b->cmd.len += room;
		b->cmd.out[b->cmd.len] = '\0';
	}
}

/* The docker command's output is readable. */
static void
browser_cmd_fd_cb(int fd, short revents, void *arg)
{
	(void)fd;
	(void)revents;
	browser_cmd_read(arg);
}

/* The docker command ended. */
static void
browser_cmd_exited(struct proc *p, int status, void *arg)
{
	struct browser	*b = arg;

	(void)p;
	browser_cancel_timer(b, &b->cmd.timer);
	browser_cmd_read(b);
	if (b->cmd.fd != -1) {
		loop_unwatch_fd(b->loop, b->cmd.fd);
		close(b->cmd.fd);
		b->cmd.fd = -1;
	}
	/* Whatever is left in its containment is killed. */
	proc_release(b->cmd.proc);
	b->cmd.proc = NULL;
	browser_cmd_done(b, status);
}

/* The docker command took too long: killed, it failed. */
static void
browser_cmd_timeout_cb(void *arg)
{
	struct browser	*b = arg;
	int		 len;

	b->cmd.timer = 0;
	browser_cmd_kill(b);
	len = snprintf(b->cmd.out, sizeof b->cmd.out, "timed out");
	b->cmd.len = (size_t)len;
	browser_cmd_done(b, WAITSTATUS_NONE);
}

/*
 * Kill the docker command in flight and what it started, and forget it
 * (a leader not reaped yet is reaped as a stray).
 */
void
browser_cmd_kill(struct browser *b)
{
	browser_cancel_timer(b, &b->cmd.timer);
	if (b->cmd.fd != -1) {
		loop_unwatch_fd(b->loop, b->cmd.fd);
		close(b->cmd.fd);
		b->cmd.fd = -1;
	}
	browser_cmd_contain_end(b);
}

/*
 * The docker command is given up on: all of it (its group, its
 * containment) is killed, and it is let go of.
 */
static void
browser_cmd_contain_end(struct browser *b)
{
	if (b->cmd.proc == NULL)
		return;
	proc_kill(b->cmd.proc);
	proc_free(b->cmd.proc);
	b->cmd.proc = NULL;
}

/*
 * Return the last non-empty line of the docker command's output (the
 * blanks after it cut off).
 */
static const char *
browser_cmd_last(struct browser *b)
{
	char	*nl;

	while (b->cmd.len > 0 &&
	    strchr(" \t\r\n", b->cmd.out[b->cmd.len - 1]) != NULL)
		b->cmd.out[--b->cmd.len] = '\0';
	b->cmd.out[b->cmd.len] = '\0';
	nl = strrchr(b->cmd.out, '\n');
	return nl != NULL ? nl + 1 : b->cmd.out;
}

/* The docker command ended with status (WAITSTATUS_NONE: timed out). */
static void
browser_cmd_done(struct browser *b, int status)
{
	enum browser_step	 step = b->cmd.step;
	char			 how[64], *host, *port, *why = NULL;
	int			 ok;

	b->cmd.step = BROWSER_STEP_NONE;
	ok = status != WAITSTATUS_NONE && WIFEXITED(status) &&
	    WEXITSTATUS(status) == 0;
	if (!ok && status != WAITSTATUS_NONE) {
		waitstatus_long(status, how, sizeof how);
		if (b->cmd.len == 0)
			snprintf(b->cmd.out, sizeof b->cmd.out, "%s", how);
	}
	switch (step) {
	case BROWSER_STEP_VERSION:
		if (b->state != BROWSER_STARTING)
			return;
		if (ok && b->cmd.len > 0) {
			b->cname = xprintf("jobdeck-browser-%ld-%u",
			    (long)getpid(), ++b->runs);
			browser_docker_run(b);
			return;
		}
		debuglog("browser: no docker daemon (%s); local instead",
		    browser_cmd_last(b));
		browser_local_begin(b);
		return;
	case BROWSER_STEP_RUN:
		if (b->state != BROWSER_STARTING)
			return;
		if (!ok) {
			browser_fail(b, "docker run: %s", browser_cmd_last(b));
			return;
		}
		browser_set_str(&b->container, b->cname);
		if (browser_docker(b, BROWSER_STEP_PORT, "port", "9222/tcp",
		    b->timeout_ms) != 0)
			browser_fail(b, "docker port: cannot run docker");
		return;
	case BROWSER_STEP_PORT:
		if (b->state != BROWSER_STARTING)
			return;
		/* "127.0.0.1:49153", by the one rule for a TCP target. */
		b->cmd.out[strcspn(b->cmd.out, "\n")] = '\0';
		if (!ok || hostport_split("docker port", b->cmd.out, &host,
		    &port, &why) != 0) {
			browser_fail(b, "docker port: %s", ok ?
			    "no port published" : browser_cmd_last(b));
			free(why);
			return;
		}
		b->json_url = xprintf("http://127.0.0.1:%s/json/version",
		    port);
		free(host);
		free(port);
		browser_ask(b);
		return;
	case BROWSER_STEP_RM:
		if (!ok)
			debuglog("browser: docker rm -f %s: %s", b->cname,
			    browser_cmd_last(b));
		browser_set_str(&b->cname, NULL);
		browser_set_str(&b->container, NULL);
		browser_settled(b);
		return;
	case BROWSER_STEP_NONE:
		return;
	}
}

/*
 * After the loop: kill a docker command in flight and remove the
 * container with `docker rm -f`, waited for at most BROWSER_DOCKER_RM_MS.
 */
void
browser_free_docker(struct browser *b)
{
	if (b->cmd.proc != NULL) {
		proc_finish(b->cmd.proc, SIGKILL, BROWSER_GRACE_MS, 0);
		browser_cmd_kill(b);
	}
	if (b->cname == NULL)
		return;
	if (browser_docker(b, BROWSER_STEP_RM, "rm", "-f", 0) == 0) {
		if (!proc_finish(b->cmd.proc, 0, BROWSER_DOCKER_RM_MS, 0))
			debuglog("browser: docker rm -f %s: still running "
			    "after %d ms", b->cname, BROWSER_DOCKER_RM_MS);
		browser_cmd_kill(b);
	}
	browser_set_str(&b->cname, NULL);
	browser_set_str(&b->container, NULL);
}

/*
 * browser-docker.c: the deck's browser in a container (browser-private.h):
 * `docker version`, `docker run -d`, `docker port` and `docker rm -f`,
 * one at a time, each a short supervised command (supcmd.h) whose output
 * is kept in a bounded buffer and whose end moves the start on.
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
#include "supcmd.h"
#include "waitstatus.h"
#include "xmalloc.h"

static int	browser_cmd_run(struct browser *, enum browser_step,
		    char **, int64_t);
static void	browser_docker_run(struct browser *);
static void	browser_cmd_ended(struct supcmd *, int, const char *,
		    size_t, void *);
static const char *browser_cmd_last(struct browser *);
static void	browser_cmd_done(struct browser *, int);

/* What a docker command tells. */
static const struct supcmd_cbs browser_cmd_cbs = {
	.done = browser_cmd_ended,
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

	if ((path = pty_find_program("docker", NULL)) == NULL)
		return -1;
	free(path);
	/* Contained as the deck's jobs are: nothing it starts outlives it. */
	b->cmd.len = 0;
	b->cmd.out[0] = '\0';
	b->cmd.sc = supcmd_start(b->loop, jobtable_reaper(b->jt), b->cg,
	    argv, NULL, ms, &browser_cmd_cbs, b, &cause);
	if (b->cmd.sc == NULL) {
		debuglog("browser: docker %s: %s", argv[1], cause);
		free(cause);
		return -1;
	}
	b->cmd.step = step;
	debuglog("browser: docker %s", argv[1]);
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

/*
 * The docker command ended (WAITSTATUS_NONE: it ran past its bound and
 * was killed): what it said kept, as much as fits.
 */
static void
browser_cmd_ended(struct supcmd *sc, int status, const char *out,
    size_t len, void *arg)
{
	struct browser	*b = arg;

	(void)sc;
	b->cmd.sc = NULL;
	if (status == WAITSTATUS_NONE) {
		out = "timed out";
		len = strlen(out);
	}
	if (len > sizeof b->cmd.out - 1)
		len = sizeof b->cmd.out - 1;
	memcpy(b->cmd.out, out, len);
	b->cmd.out[len] = '\0';
	b->cmd.len = len;
	browser_cmd_done(b, status);
}

/* Kill the docker command in flight and what it started, and forget it. */
void
browser_cmd_kill(struct browser *b)
{
	supcmd_cancel(b->cmd.sc);
	b->cmd.sc = NULL;
}

/*
 * Return the last non-empty line of the docker command's output (the
 * blanks after it cut off).
 */
static const char *
browser_cmd_last(struct browser *b)
{
	const char	*last = supcmd_last_line(b->cmd.out);

	b->cmd.len = strlen(b->cmd.out);
	return last;
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
	if (b->cmd.sc != NULL) {
		(void)supcmd_finish(b->cmd.sc, SIGKILL, BROWSER_GRACE_MS);
		b->cmd.sc = NULL;
	}
	if (b->cname == NULL)
		return;
	if (browser_docker(b, BROWSER_STEP_RM, "rm", "-f", 0) == 0) {
		if (!supcmd_finish(b->cmd.sc, 0, BROWSER_DOCKER_RM_MS))
			debuglog("browser: docker rm -f %s: still running "
			    "after %d ms", b->cname, BROWSER_DOCKER_RM_MS);
		b->cmd.sc = NULL;
	}
	browser_set_str(&b->cname, NULL);
	browser_set_str(&b->container, NULL);
}

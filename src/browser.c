/*
 * browser.c: the deck's headless Chrome's lifecycle (see browser.h): a
 * local Chromium or a container started, or a given browser found, and
 * asked /json/version, all on the loop; its state, its subscribers and
 * its teardown (browser-private.h names the files of the steps).
 *
 * One start is a chain of steps, each ended by a callback: for a local
 * browser the child's "DevTools listening on ws://..." line, then
 * /json/version; for Docker `docker version`, `docker run`, `docker
 * port`, then /json/version (asked again every BROWSER_RETRY_MS, the
 * container needs a moment); for a given URL /json/version alone.  The
 * start timer (timeout_ms) bounds the whole chain.
 *
 * Ending (a stop, a failure, a timeout) is browser_teardown(): the local
 * browser's group and containment get SIGTERM (SIGKILL on a failure),
 * SIGKILL after BROWSER_GRACE_MS (proc_stop()); once its leader has ended
 * the rest of its group and containment is killed and waited for
 * (proc_end(): looked at as the reaper reaps, at most BROWSER_REAP_MS)
 * and only then is its profile removed, so no dying process writes into
 * a directory being removed.  A container is removed with `docker rm
 * -f`.  The state moves on (STOPPED, or a pending start) in
 * browser_settled() once all that is done; a failed browser shows FAILED
 * at once and is cleaned up behind.
 *
 * Children (the browser, the docker commands) are supervised processes
 * of the jobtable's reaper (proc.h), started by proc_spawn() on pipes
 * with /dev/null as stdin, each in a containment of its own; their
 * output is read through loop watches into bounded buffers.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "browser-private.h"
#include "browser.h"
#include "debuglog.h"
#include "http.h"
#include "loop.h"
#include "proc.h"
#include "pty.h"
#include "xmalloc.h"

static void	browser_begin(struct browser *);
static void	browser_launch(struct browser *);
static void	browser_teardown(struct browser *, int);
static void	browser_start_cb(void *);

/* Tell every subscriber of a change. */
void
browser_notify(struct browser *b)
{
	size_t	i;

	for (i = 0; i < b->nsubs; i++) {
		if (b->subs[i].cbs.changed != NULL)
			b->subs[i].cbs.changed(b, b->subs[i].arg);
	}
}

/* Replace an owned string with a copy of s (NULL: none). */
void
browser_set_str(char **p, const char *s)
{
	free(*p);
	*p = s != NULL ? xstrdup(s) : NULL;
}

/* Make the deck's browser; NULL with *cause when the spec is not usable. */
struct browser *
browser_new(struct loop *loop, struct jobtable *jt, struct cgroup *cg,
    struct http *http, const struct browser_spec *spec, char **cause)
{
	struct browser	*b;
	char		*json;
	size_t		 n, i;
	int		 path;

	browser_sweep_profiles();
	b = xcalloc(1, sizeof *b);
	b->loop = loop;
	b->jt = jt;
	b->cg = cg;
	b->http = http;
	b->fd = -1;
	b->cdp_url = spec->cdp_url != NULL ? xstrdup(spec->cdp_url) : NULL;
	b->image = spec->image != NULL ? xstrdup(spec->image) : NULL;
	b->command = spec->command != NULL ? xstrdup(spec->command) : NULL;
	for (n = 0; spec->args != NULL && spec->args[n] != NULL; n++)
		;
	b->args = xcalloc(n + 1, sizeof *b->args);
	for (i = 0; i < n; i++)
		b->args[i] = xstrdup(spec->args[i]);
	b->timeout_ms = spec->timeout_ms > 0 ? spec->timeout_ms :
	    BROWSER_TIMEOUT_MS;
	b->label = xstrdup("Chrome Headless");
	if (b->cdp_url == NULL)
		b->mode = BROWSER_OFF;
	else if (strcmp(b->cdp_url, "auto") == 0) {
		b->mode = BROWSER_AUTO;
		if (b->image != NULL) {
			free(b->label);
			b->label = xprintf("Chrome in Docker (%s)", b->image);
		}
	} else if ((json = browser_json_url(b->cdp_url, 1, &path)) != NULL) {
		b->mode = BROWSER_CONNECT;
		free(b->label);
		n = strcspn(b->cdp_url + strcspn(b->cdp_url, ":") + 3, "/?#");
		b->target = xstrndup(b->cdp_url + strcspn(b->cdp_url, ":") + 3,
		    n);
		b->label = xprintf("Chrome at %s", b->target);
		free(json);
	} else {
		*cause = xprintf("cdp_url: expected \"auto\" or a ws:// or "
		    "wss:// URL, not '%s'", b->cdp_url);
		browser_free(b);
		return NULL;
	}
	return b;
}

/* Subscribe to changes; several may. */
void
browser_subscribe(struct browser *b, const struct browser_cbs *cbs,
    void *arg)
{
	b->subs = xreallocarray(b->subs, b->nsubs + 1, sizeof *b->subs);
	b->subs[b->nsubs].cbs = *cbs;
	b->subs[b->nsubs].arg = arg;
	b->nsubs++;
}

/* Stop telling a subscriber (by its arg) of the browser's changes. */
void
browser_unsubscribe(struct browser *b, void *arg)
{
	size_t	i;

	for (i = 0; i < b->nsubs; i++) {
		if (b->subs[i].arg != arg)
			continue;
		memmove(&b->subs[i], &b->subs[i + 1],
		    (b->nsubs - i - 1) * sizeof *b->subs);
		b->nsubs--;
		i--;
	}
}

/* Cancel a timer if it is set. */
void
browser_cancel_timer(struct browser *b, uint64_t *id)
{
	if (*id != 0) {
		loop_cancel_timer(b->loop, *id);
		*id = 0;
	}
}

/* Start the browser: STARTING (or once the last one is cleaned up). */
int
browser_start(struct browser *b, char **cause)
{
	switch (b->state) {
	case BROWSER_STARTING:
		*cause = xstrdup("the browser is already starting");
		return -1;
	case BROWSER_READY:
		*cause = xstrdup("the browser is already running");
		return -1;
	case BROWSER_STOPPING:
		b->start_after = 1;
		return 0;
	default:
		break;
	}
	browser_begin(b);
	return 0;
}

/* Stop the browser: STOPPING, then STOPPED once it is gone. */
int
browser_stop(struct browser *b, char **cause)
{
	switch (b->state) {
	case BROWSER_STARTING:
	case BROWSER_READY:
		break;
	case BROWSER_STOPPING:
		if (b->start_after) {
			b->start_after = 0;	/* a restart: stop only */
			return 0;
		}
		*cause = xstrdup("the browser is already stopping");
		return -1;
	default:
		if (b->start_after) {
			b->start_after = 0;
			return 0;
		}
		*cause = xstrdup("the browser is not running");
		return -1;
	}
	debuglog("browser: stop");
	b->start_after = 0;
	b->launch_after = 0;
	b->state = BROWSER_STOPPING;
	browser_set_str(&b->url, NULL);
	browser_notify(b);
	browser_teardown(b, SIGTERM);
	return 0;
}

/* Restart: stop what runs, then start once it has stopped. */
int
browser_restart(struct browser *b, char **cause)
{
	switch (b->state) {
	case BROWSER_STARTING:
	case BROWSER_READY:
		if (browser_stop(b, cause) != 0)
			return -1;
		if (b->state == BROWSER_STOPPED && !b->cleaning) {
			browser_begin(b);	/* a remote one: at once */
			return 0;
		}
		b->start_after = 1;
		return 0;
	case BROWSER_STOPPING:
		b->start_after = 1;
		return 0;
	default:
		return browser_start(b, cause);
	}
}

/*
 * Begin a start: STARTING at once, and its first step now, or once what
 * the last one left is cleaned up.
 */
static void
browser_begin(struct browser *b)
{
	unsigned int	gen;

	browser_set_str(&b->why, NULL);
	browser_set_str(&b->url, NULL);
	browser_set_str(&b->product, NULL);
	browser_set_str(&b->ask_error, NULL);
	browser_set_str(&b->json_url, NULL);
	b->state = BROWSER_STARTING;
	b->launch_after = b->cleaning;
	gen = ++b->starts;
	browser_notify(b);
	/* A subscriber may have stopped it, or restarted it already. */
	if (b->state != BROWSER_STARTING || b->starts != gen)
		return;
	if (!b->launch_after)
		browser_launch(b);
}

/* Take a start's first step, of its kind; its bound begins. */
static void
browser_launch(struct browser *b)
{
	b->start_timer = loop_add_timer(b->loop, b->timeout_ms,
	    browser_start_cb, b);
	if (b->mode == BROWSER_CONNECT) {
		b->kind = BROWSER_KIND_REMOTE;
		b->json_url = browser_json_url(b->cdp_url, 1, NULL);
		debuglog("browser: connect %s", b->cdp_url);
		browser_ask(b);
	} else if (b->mode == BROWSER_AUTO && b->image != NULL)
		browser_docker_begin(b);
	else
		browser_local_begin(b);
}

/*
 * The start or the running browser failed: FAILED with the reason, and
 * whatever runs ended behind it.
 */
void
browser_fail(struct browser *b, const char *fmt, ...)
{
	va_list	ap;
	char	*why;

	va_start(ap, fmt);
	why = xvprintf(fmt, ap);
	va_end(ap);
	free(b->why);
	b->why = why;
	debuglog("browser: failed: %s", b->why);
	browser_set_str(&b->url, NULL);
	b->state = BROWSER_FAILED;
	browser_teardown(b, SIGKILL);
	browser_notify(b);
}

/*
 * End whatever runs: the start's steps, the checks, the local browser
 * (sig first, SIGKILL after the grace), a container; browser_settled()
 * once all of it is gone.
 */
static void
browser_teardown(struct browser *b, int sig)
{
	browser_cancel_timer(b, &b->start_timer);
	browser_cancel_timer(b, &b->check_timer);
	browser_cancel_timer(b, &b->retry_timer);
	if (b->req != NULL) {
		http_cancel(b->req);
		b->req = NULL;
	}
	b->cleaning = 1;
	if (b->cmd.sc != NULL && b->cmd.step != BROWSER_STEP_RM)
		browser_cmd_kill(b);
	if (b->proc != NULL) {
		if (proc_reaped(b->proc))
			proc_end(b->proc, BROWSER_REAP_MS);
		else if (sig == SIGKILL)
			proc_kill(b->proc);
		else
			proc_stop(b->proc, sig, BROWSER_GRACE_MS);
		return;
	}
	browser_local_release(b);
	if (b->cname != NULL) {
		if (b->cmd.sc == NULL && browser_docker(b, BROWSER_STEP_RM,
		    "rm", "-f", BROWSER_DOCKER_RM_MS) != 0) {
			browser_set_str(&b->cname, NULL);
			browser_set_str(&b->container, NULL);
		} else
			return;
	}
	browser_settled(b);
}

/*
 * Everything of the last start is gone: STOPPED after a stop, and a
 * pending start begins.
 */
void
browser_settled(struct browser *b)
{
	b->cleaning = 0;
	if (b->launch_after) {
		b->launch_after = 0;
		if (b->state == BROWSER_STARTING)
			browser_launch(b);
		return;
	}
	if (b->state == BROWSER_STOPPING) {
		debuglog("browser: stopped");
		b->state = BROWSER_STOPPED;
		browser_notify(b);
	}
	/* Unless a subscriber told of STOPPED started it already. */
	if (b->start_after && !b->cleaning) {
		b->start_after = 0;
		if (b->state == BROWSER_STOPPED || b->state == BROWSER_FAILED)
			browser_begin(b);
	}
}

/* The start took longer than its bound. */
static void
browser_start_cb(void *arg)
{
	struct browser	*b = arg;

	b->start_timer = 0;
	if (b->ask_error != NULL)
		browser_fail(b, "timed out after %g s waiting for DevTools "
		    "(%s)", (double)b->timeout_ms / 1000, b->ask_error);
	else
		browser_fail(b, "timed out after %g s waiting for DevTools",
		    (double)b->timeout_ms / 1000);
}

/*
 * Start argv as p (a supervised process, in its containment) on pipes
 * with /dev/null as stdin, in its own session and group, with this
 * process's environment (and p's marker); its output fd; -1 with *cause.
 */
int
browser_spawn(const char *path, char **argv, struct proc *p, int *fd,
    char **cause)
{
	struct pty_spec		 ps;
	struct pty_child	 child;

	memset(&ps, 0, sizeof ps);
	ps.path = path;
	ps.argv = argv;
	ps.envp = environ;
	ps.rows = 24;
	ps.cols = 80;
	ps.no_pty = 1;
	ps.null_stdin = 1;
	memset(&child, 0, sizeof child);
	if (proc_spawn(p, &ps, &child, cause) != 0)
		return -1;
	if (child.in_fd != -1 && child.in_fd != child.out_fd)
		close(child.in_fd);
	*fd = child.out_fd;
	return 0;
}

/*
 * Free the browser after the loop: whatever still runs is stopped and
 * waited for, bounded (see browser.h).
 */
void
browser_free(struct browser *b)
{
	size_t	i;

	if (b == NULL)
		return;
	browser_cancel_timer(b, &b->start_timer);
	browser_cancel_timer(b, &b->check_timer);
	browser_cancel_timer(b, &b->retry_timer);
	if (b->req != NULL) {
		http_cancel(b->req);
		b->req = NULL;
	}
	browser_free_local(b);
	browser_free_docker(b);
	if (b->own_http)
		http_free(b->http);
	for (i = 0; b->args[i] != NULL; i++)
		free(b->args[i]);
	free(b->args);
	free(b->cdp_url);
	free(b->image);
	free(b->command);
	free(b->url);
	free(b->why);
	free(b->label);
	free(b->product);
	free(b->profile);
	free(b->container);
	free(b->cname);
	free(b->json_url);
	free(b->target);
	free(b->ask_error);
	free(b->prog);
	free(b->subs);
	free(b);
}

/* Return the mode the spec asked for. */
enum browser_mode
browser_mode(const struct browser *b)
{
	return b->mode;
}

/* Return how the last start ran it (BROWSER_KIND_NONE before one). */
enum browser_kind
browser_kind(const struct browser *b)
{
	return b->kind;
}

/* Return the state. */
enum browser_state
browser_state(const struct browser *b)
{
	return b->state;
}

/* Return the state's word for JSON and !browser status. */
const char *
browser_state_name(enum browser_state s)
{
	switch (s) {
	case BROWSER_IDLE:
		return "idle";
	case BROWSER_STARTING:
		return "starting";
	case BROWSER_READY:
		return "ready";
	case BROWSER_FAILED:
		return "failed";
	case BROWSER_STOPPING:
		return "stopping";
	case BROWSER_STOPPED:
		return "stopped";
	}
	return "unknown";
}

/* Return the CDP URL while ready, else NULL. */
const char *
browser_url(const struct browser *b)
{
	return b->state == BROWSER_READY ? b->url : NULL;
}

/* Return why it failed while failed, else NULL. */
const char *
browser_why(const struct browser *b)
{
	return b->state == BROWSER_FAILED ? b->why : NULL;
}

/* Return what it is ("Chrome Headless", "Chrome in Docker (IMAGE)"...). */
const char *
browser_label(const struct browser *b)
{
	return b->label;
}

/* Return /json/version's "Browser" while ready, else NULL. */
const char *
browser_product(const struct browser *b)
{
	return b->state == BROWSER_READY ? b->product : NULL;
}

/* Return the local browser's profile directory while it exists. */
const char *
browser_profile(const struct browser *b)
{
	return b->profile;
}

/* Return the container's name while it runs, else NULL. */
const char *
browser_container(const struct browser *b)
{
	return b->container;
}

/* Return the local browser's pid while it runs, else 0. */
pid_t
browser_pid(const struct browser *b)
{
	return b->proc != NULL && !proc_reaped(b->proc) ? proc_pid(b->proc) :
	    0;
}

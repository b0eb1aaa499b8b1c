/*
 * browser.c: the deck's headless Chrome (see browser.h): a local Chromium
 * or a container started, or a given browser found, and asked
 * /json/version, all on the loop.
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
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

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
#include <time.h>
#include <unistd.h>

#include "browser.h"
#include "cgroup.h"
#include "debuglog.h"
#include "hostport.h"
#include "http.h"
#include "jobtable.h"
#include "jsonval.h"
#include "loop.h"
#include "proc.h"
#include "pty.h"
#include "waitstatus.h"
#include "xmalloc.h"

#define BROWSER_TIMEOUT_MS	30000	/* a start's bound, by default */
#define BROWSER_LINE_MAX	1024	/* a line's bytes kept */
#define BROWSER_OUT_MAX		4096	/* a docker command's */
#define BROWSER_READ_MAX	65536	/* read a turn */
#define BROWSER_RETRY_MS	250	/* /json/version again */
#define BROWSER_ASK_MS		5000	/* one ask's bound */
#define BROWSER_VERSION_MS	5000	/* `docker version`'s bound */
#define BROWSER_REAP_MS		3000	/* the group's end awaited */
#define BROWSER_RMTREE_DEPTH	64	/* a profile's depth */
#define BROWSER_PROFILE		"jobdeck-browser-"	/* its name's start */

/* What the docker command in flight is. */
enum browser_step {
	BROWSER_STEP_NONE,
	BROWSER_STEP_VERSION,	/* docker version: a daemon? */
	BROWSER_STEP_RUN,	/* docker run -d */
	BROWSER_STEP_PORT,	/* docker port NAME 9222/tcp */
	BROWSER_STEP_RM		/* docker rm -f NAME */
};

/* A docker command: its process, its output pipe and what it said. */
struct browser_cmd {
	enum browser_step	 step;
	struct proc		*proc;		/* running, or NULL */
	int			 fd;
	uint64_t		 timer;
	char			 out[BROWSER_OUT_MAX];
	size_t			 len;
};

/* One subscriber. */
struct browser_sub {
	struct browser_cbs	 cbs;
	void			*arg;
};

struct browser {
	struct loop	 *loop;
	struct jobtable	 *jt;
	struct cgroup	 *cg;		/* containment, or NULL */
	struct http	 *http;		/* NULL until first needed */
	int		  own_http;

	/* The spec, copied. */
	char		 *cdp_url;
	char		 *image;
	char		 *command;
	char		**args;
	int64_t		  timeout_ms;

	enum browser_mode  mode;
	enum browser_kind  kind;
	enum browser_state state;
	char		 *url;		/* READY: the CDP URL */
	char		 *why;		/* FAILED: the reason */
	char		 *label;
	char		 *product;
	char		 *profile;	/* local: its directory */
	char		 *container;	/* docker: running */
	char		 *cname;	/* docker: to remove */
	char		 *json_url;	/* what is asked */
	char		 *target;	/* connect: the cdp_url's host:port */
	char		 *ask_error;	/* the last ask's failure */
	struct browser_sub *subs;
	size_t		  nsubs;

	/* The local browser. */
	char		 *prog;		/* its name, for messages */
	struct proc	 *proc;		/* it, NULL: none */
	int		  fd;		/* its output, or -1 */
	char		  line[BROWSER_LINE_MAX];
	size_t		  linelen;
	char		  last[BROWSER_LINE_MAX]; /* non-empty */

	struct browser_cmd cmd;
	struct http_req	 *req;
	uint64_t	  start_timer;
	uint64_t	  check_timer;
	uint64_t	  retry_timer;
	int		  cleaning;	/* a teardown not yet done */
	int		  start_after;	/* start once stopped */
	int		  launch_after;	/* STARTING: launch once clean */
	unsigned int	  runs;		/* containers named */
	unsigned int	  starts;	/* browser_begin()s */
};

static void	browser_notify(struct browser *);
static void	browser_set_str(char **, const char *);
static char	*browser_json_url(const char *, int, int *);
static void	browser_begin(struct browser *);
static void	browser_launch(struct browser *);
static void	browser_fail(struct browser *, const char *, ...)
		    __attribute__((format(printf, 2, 3)));
static void	browser_teardown(struct browser *, int);
static void	browser_settled(struct browser *);
static void	browser_cancel_timer(struct browser *, uint64_t *);
static void	browser_start_cb(void *);
static void	browser_ask(struct browser *);
static void	browser_ask_cb(void *);
static void	browser_reply_cb(long, const char *, size_t, const char *,
		    void *);
static int	browser_ws_ok(const struct jsonval *);
static void	browser_ready(struct browser *, const char *, const char *);
static int	browser_spawn(const char *, char **, struct proc *, int *,
		    char **);
static void	browser_local_begin(struct browser *);
static void	browser_local_read(struct browser *);
static void	browser_local_fd_cb(int, short, void *);
static void	browser_local_line(struct browser *);
static void	browser_local_exited(struct proc *, int, void *);
static void	browser_local_killed(struct proc *, void *);
static void	browser_local_gone(struct proc *, void *);
static void	browser_local_release(struct browser *);
static void	browser_local_done(struct browser *);
static void	browser_docker_begin(struct browser *);
static int	browser_cmd_run(struct browser *, enum browser_step,
		    char **, int64_t);
static void	browser_cmd_read(struct browser *);
static void	browser_cmd_fd_cb(int, short, void *);
static void	browser_cmd_exited(struct proc *, int, void *);
static void	browser_cmd_timeout_cb(void *);
static void	browser_cmd_kill(struct browser *);
static void	browser_cmd_contain_end(struct browser *);
static void	browser_cmd_done(struct browser *, int);
static const char *browser_cmd_last(struct browser *);
static int	browser_docker(struct browser *, enum browser_step,
		    const char *, const char *, int64_t);
static void	browser_docker_run(struct browser *);
static void	browser_free_local(struct browser *);
static void	browser_free_docker(struct browser *);
static int	browser_rmtree_at(int, const char *, int);
static void	browser_rmtree(const char *);
static const char *browser_tmpdir(void);

/* What the local browser tells. */
static const struct proc_cbs browser_local_cbs = {
	.exited = browser_local_exited,
	.killed = browser_local_killed,
	.gone = browser_local_gone,
};

/* What a docker command tells. */
static const struct proc_cbs browser_cmd_cbs = {
	.exited = browser_cmd_exited,
};
static void	browser_sweep_profiles(void);

/* Tell every subscriber of a change. */
static void
browser_notify(struct browser *b)
{
	size_t	i;

	for (i = 0; i < b->nsubs; i++) {
		if (b->subs[i].cbs.changed != NULL)
			b->subs[i].cbs.changed(b, b->subs[i].arg);
	}
}

/* Replace an owned string with a copy of s (NULL: none). */
static void
browser_set_str(char **p, const char *s)
{
	free(*p);
	*p = s != NULL ? xstrdup(s) : NULL;
}

/*
 * Return the /json/version URL for a ws:// or wss:// URL, allocated, and
 * set *path (unless NULL) when it had a path beyond "/"; NULL when it is
 * not one by hostport_ws_url()'s rule (a DNS name allowed when names is
 * set).
 */
static char *
browser_json_url(const char *ws, int names, int *path)
{
	char	*json, *cause = NULL;

	if (hostport_ws_url("url", ws, names, &json, path, &cause) != 0) {
		free(cause);
		return NULL;
	}
	return json;
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
	b->cmd.fd = -1;
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

/* Cancel a timer if it is set. */
static void
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
static void
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
	if (b->cmd.proc != NULL && b->cmd.step != BROWSER_STEP_RM)
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
		if (b->cmd.proc == NULL && browser_docker(b, BROWSER_STEP_RM,
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
static void
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

/* Ask json_url for /json/version now. */
static void
browser_ask(struct browser *b)
{
	char	*cause = NULL;

	if (b->http == NULL) {
		if ((b->http = http_new(b->loop, &cause)) == NULL) {
			browser_fail(b, "%s", cause);
			free(cause);
			return;
		}
		b->own_http = 1;
	}
	b->req = http_get(b->http, b->json_url, BROWSER_ASK_MS,
	    browser_reply_cb, b, &cause);
	if (b->req == NULL) {
		browser_fail(b, "%s", cause);
		free(cause);
	}
}

/* The retry or check timer: ask again. */
static void
browser_ask_cb(void *arg)
{
	struct browser	*b = arg;

	b->retry_timer = 0;
	b->check_timer = 0;
	browser_ask(b);
}

/*
 * /json/version answered (or not): READY on a reply with a
 * webSocketDebuggerUrl (for a given URL, one at its host and port: a
 * reply may not send jobs elsewhere); a failure fails a given URL's start
 * and a ready browser, and is asked again for one that is starting.
 */
static void
browser_reply_cb(long status, const char *body, size_t len,
    const char *error, void *arg)
{
	struct browser		*b = arg;
	struct jsonval		*doc = NULL;
	const char		*ws = NULL;
	char			*why = NULL, *cause = NULL;

	b->req = NULL;
	if (error != NULL)
		why = xprintf("%s: %s", b->json_url, error);
	else if (status != 200)
		why = xprintf("%s: HTTP status %ld", b->json_url, status);
	else if ((doc = jsonval_parse(body, len, &cause)) == NULL) {
		why = xprintf("%s: %s", b->json_url, cause);
		free(cause);
	} else if (!browser_ws_ok(jsonval_get(doc, "webSocketDebuggerUrl")))
		why = xprintf("%s: no webSocketDebuggerUrl in the reply",
		    b->json_url);
	else if (b->kind == BROWSER_KIND_REMOTE && !hostport_ws_same(
	    jsonval_get_string(doc, "webSocketDebuggerUrl"), b->cdp_url))
		why = xprintf("%s: refused the webSocketDebuggerUrl %s: not "
		    "%s://%s, the cdp_url's scheme, host and port",
		    b->json_url, jsonval_get_string(doc,
		    "webSocketDebuggerUrl"), strncmp(b->cdp_url, "wss://", 6) ==
		    0 ? "wss" : "ws", b->target);
	else
		ws = jsonval_get_string(doc, "webSocketDebuggerUrl");
	if (why == NULL) {
		if (b->state == BROWSER_STARTING)
			browser_ready(b, ws, jsonval_get_string(doc,
			    "Browser"));
		else if (b->state == BROWSER_READY)
			b->check_timer = loop_add_timer(b->loop,
			    BROWSER_CHECK_MS, browser_ask_cb, b);
	} else if (b->state == BROWSER_STARTING &&
	    b->kind != BROWSER_KIND_REMOTE) {
		debuglog("browser: %s; again", why);
		free(b->ask_error);
		b->ask_error = why;
		why = NULL;
		b->retry_timer = loop_add_timer(b->loop, BROWSER_RETRY_MS,
		    browser_ask_cb, b);
	} else if (b->state == BROWSER_STARTING || b->state == BROWSER_READY)
		browser_fail(b, "%s", why);
	free(why);
	jsonval_free(doc);
}

/* Return whether v is a string that is a ws:// or wss:// URL, no NUL. */
static int
browser_ws_ok(const struct jsonval *v)
{
	const char	*ws = jsonval_string(v);
	char		*json;

	if (ws == NULL || strlen(ws) != jsonval_string_len(v))
		return 0;
	if ((json = browser_json_url(ws, 1, NULL)) == NULL)
		return 0;
	free(json);
	return 1;
}

/* READY: the URL (the given one when it had a path) and the product. */
static void
browser_ready(struct browser *b, const char *ws, const char *product)
{
	int	path = 0;
	char	*json;

	browser_cancel_timer(b, &b->start_timer);
	if (b->kind == BROWSER_KIND_REMOTE) {
		json = browser_json_url(b->cdp_url, 1, &path);
		free(json);
	}
	browser_set_str(&b->url, path ? b->cdp_url : ws);
	browser_set_str(&b->product, product);
	browser_set_str(&b->ask_error, NULL);
	b->state = BROWSER_READY;
	debuglog("browser: ready %s (%s)", b->url,
	    product != NULL ? product : "?");
	b->check_timer = loop_add_timer(b->loop, BROWSER_CHECK_MS,
	    browser_ask_cb, b);
	browser_notify(b);
}

/*
 * Start argv as p (a supervised process, in its containment) on pipes
 * with /dev/null as stdin, in its own session and group, with this
 * process's environment (and p's marker); its output fd; -1 with *cause.
 */
static int
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

/* Start a local headless Chromium with a private profile. */
static void
browser_local_begin(struct browser *b)
{
	static const char *const known[] = {
		"chromium-headless-shell", "chromium", "google-chrome", NULL
	};
	char		**argv, *path = NULL, *dir, *cause = NULL;
	const char	 *tmp, *name;
	size_t		  n, i;
	int		  rc;

	b->kind = BROWSER_KIND_LOCAL;
	browser_set_str(&b->label, "Chrome Headless");
	if (b->command != NULL)
		path = pty_find_program(b->command, NULL);
	for (i = 0; b->command == NULL && known[i] != NULL && path == NULL;
	    i++)
		path = pty_find_program(known[i], NULL);
	if (path == NULL) {
		if (b->command != NULL)
			browser_fail(b, "%s: not found", b->command);
		else
			browser_fail(b, "no browser found: install "
			    "chromium-headless-shell or set browser_command");
		return;
	}
	name = strrchr(path, '/') != NULL ? strrchr(path, '/') + 1 : path;
	browser_set_str(&b->prog, name);

	/* Its deck's token in its name, for a sweep if the deck dies. */
	tmp = browser_tmpdir();
	if (b->cg != NULL)
		dir = xprintf("%s/" BROWSER_PROFILE "%s-XXXXXX", tmp,
		    cgroup_token(b->cg));
	else
		dir = xprintf("%s/" BROWSER_PROFILE "XXXXXX", tmp);
	if (mkdtemp(dir) == NULL) {
		browser_fail(b, "mkdtemp %s: %s", dir, strerror(errno));
		free(dir);
		free(path);
		return;
	}
	b->profile = dir;

	for (n = 0; b->args[n] != NULL; n++)
		;
	argv = xcalloc(n + 12, sizeof *argv);
	i = 0;
	argv[i++] = xstrdup(name);
	argv[i++] = xstrdup("--headless");
	argv[i++] = xstrdup("--remote-debugging-port=0");
	argv[i++] = xstrdup("--remote-debugging-address=127.0.0.1");
	argv[i++] = xprintf("--user-data-dir=%s", dir);
	argv[i++] = xstrdup("--no-first-run");
	argv[i++] = xstrdup("--no-default-browser-check");
	argv[i++] = xstrdup("--disable-gpu");
	if (geteuid() == 0)
		argv[i++] = xstrdup("--no-sandbox");
	for (n = 0; b->args[n] != NULL; n++)
		argv[i++] = xstrdup(b->args[n]);
	argv[i++] = xstrdup("about:blank");
	argv[i] = NULL;

	b->proc = proc_new(jobtable_reaper(b->jt), b->cg, 0,
	    &browser_local_cbs, b);
	b->linelen = 0;
	b->last[0] = '\0';
	rc = browser_spawn(path, argv, b->proc, &b->fd, &cause);
	for (i = 0; argv[i] != NULL; i++)
		free(argv[i]);
	free(argv);
	if (rc != 0) {
		proc_free(b->proc);
		b->proc = NULL;
		b->fd = -1;
		browser_fail(b, "%s: %s", path, cause);
		free(cause);
		free(path);
		return;
	}
	loop_watch_fd(b->loop, b->fd, POLLIN, browser_local_fd_cb, b);
	debuglog("browser: started %s (pid %ld, profile %s)", path,
	    (long)proc_pid(b->proc), dir);
	free(path);
}

/* Read what the local browser wrote (a turn's worth), line by line. */
static void
browser_local_read(struct browser *b)
{
	char	buf[4096];
	ssize_t	n;
	size_t	total = 0, i;

	while (b->fd != -1 && total < BROWSER_READ_MAX) {
		n = read(b->fd, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0) {
			loop_unwatch_fd(b->loop, b->fd);
			close(b->fd);
			b->fd = -1;
			if (b->linelen > 0)
				browser_local_line(b);
			return;
		}
		total += (size_t)n;
		for (i = 0; i < (size_t)n; i++) {
			if (buf[i] == '\n')
				browser_local_line(b);
			else if (buf[i] != '\r' &&
			    b->linelen < sizeof b->line - 1)
				b->line[b->linelen++] = buf[i];
		}
	}
}

/* The local browser's output is readable. */
static void
browser_local_fd_cb(int fd, short revents, void *arg)
{
	struct browser	*b = arg;

	(void)fd;
	(void)revents;
	browser_local_read(b);
}

/*
 * A whole line of the local browser's: kept when not empty, and while
 * starting, its "DevTools listening on ws://..." tells what to ask.
 */
static void
browser_local_line(struct browser *b)
{
	const char	*ws;
	char		*tok, *json;

	b->line[b->linelen] = '\0';
	b->linelen = 0;
	if (strspn(b->line, " \t") == strlen(b->line))
		return;
	memcpy(b->last, b->line, sizeof b->last);
	if (b->state != BROWSER_STARTING || b->json_url != NULL ||
	    (ws = strstr(b->line, "DevTools listening on ")) == NULL)
		return;
	ws += strlen("DevTools listening on ");
	tok = xstrndup(ws, strcspn(ws, " \t"));
	json = browser_json_url(tok, 0, NULL);
	debuglog("browser: DevTools at %s", tok);
	if (json == NULL) {
		/* A line that lies: the next may not; the timeout says. */
		free(b->ask_error);
		b->ask_error = xprintf("not a local ws:// URL: %s", tok);
		free(tok);
		return;
	}
	free(tok);
	b->json_url = json;
	browser_ask(b);
}

/* The local browser's leader ended: a failure unless it was stopped. */
static void
browser_local_exited(struct proc *p, int status, void *arg)
{
	struct browser	*b = arg;
	char		 how[64];

	browser_local_read(b);
	waitstatus_long(status, how, sizeof how);
	debuglog("browser: pid %ld ended: %s", (long)proc_pid(p), how);
	if (b->state == BROWSER_STARTING || b->state == BROWSER_READY) {
		if (b->last[0] != '\0')
			browser_fail(b, "%s: %s: %s", b->prog, how, b->last);
		else
			browser_fail(b, "%s: %s", b->prog, how);
		return;
	}
	proc_end(p, BROWSER_REAP_MS);
}

/* The grace is over: the proc layer has sent SIGKILL. */
static void
browser_local_killed(struct proc *p, void *arg)
{
	(void)arg;
	debuglog("browser: pid %ld: SIGKILL after %d ms", (long)proc_pid(p),
	    BROWSER_GRACE_MS);
}

/*
 * Nothing of the local browser's group and containment is left (or the
 * bound is over): it is released, the state moves on.
 */
static void
browser_local_gone(struct proc *p, void *arg)
{
	struct browser	*b = arg;

	(void)p;
	browser_local_done(b);
}

/*
 * Nothing of the local browser runs: close its output, remove its
 * profile, let its containment go.
 */
static void
browser_local_release(struct browser *b)
{
	if (b->fd != -1) {
		loop_unwatch_fd(b->loop, b->fd);
		close(b->fd);
		b->fd = -1;
	}
	if (b->profile != NULL) {
		browser_rmtree(b->profile);
		debuglog("browser: removed %s", b->profile);
		browser_set_str(&b->profile, NULL);
	}
	proc_free(b->proc);
	b->proc = NULL;
}

/* The local browser is gone: released, the state moves on. */
static void
browser_local_done(struct browser *b)
{
	browser_local_release(b);
	browser_settled(b);
}

/* Start in Docker when a daemon answers, else locally. */
static void
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
static int
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
static void
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
 * Remove name in directory dfd and, for a directory, everything inside
 * it first, never following a symbolic link; 0 or -1.
 */
static int
browser_rmtree_at(int dfd, const char *name, int depth)
{
	struct dirent	*de;
	DIR		*d;
	int		 fd, rc = 0;

	if (unlinkat(dfd, name, 0) == 0 || errno == ENOENT)
		return 0;
	if ((errno != EISDIR && errno != EPERM) ||
	    depth >= BROWSER_RMTREE_DEPTH)
		return -1;
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (fd == -1 || (d = fdopendir(fd)) == NULL) {
		if (fd != -1)
			close(fd);
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (browser_rmtree_at(dirfd(d), de->d_name, depth + 1) != 0)
			rc = -1;
	}
	closedir(d);
	if (unlinkat(dfd, name, AT_REMOVEDIR) != 0 && errno != ENOENT)
		rc = -1;
	return rc;
}

/* Remove a profile directory and everything in it. */
static void
browser_rmtree(const char *path)
{
	const char	*slash = strrchr(path, '/');
	char		*parent;
	int		 dfd;

	if (slash == NULL)
		return;
	parent = slash == path ? xstrdup("/") :
	    xstrndup(path, (size_t)(slash - path));
	dfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(parent);
	if (dfd == -1)
		return;
	if (browser_rmtree_at(dfd, slash + 1, 0) != 0)
		debuglog("browser: cannot remove all of %s", path);
	close(dfd);
}

/* Return where profiles are made: $TMPDIR when absolute, else /tmp. */
static const char *
browser_tmpdir(void)
{
	const char	*tmp = getenv("TMPDIR");

	return tmp != NULL && *tmp == '/' ? tmp : "/tmp";
}

/*
 * Remove the profiles that decks which have ended left where profiles are
 * made (a deck SIGKILLed while its browser ran): directories of ours
 * named jobdeck-browser-TOKEN-XXXXXX whose TOKEN's deck no longer runs
 * (cgroup_token_dead()).  A symbolic link is never followed, nor removed
 * by this; nothing else is touched.
 */
static void
browser_sweep_profiles(void)
{
	struct dirent	*de;
	struct stat	 sb;
	const char	*tok;
	size_t		 len;
	DIR		*d;

	if ((d = opendir(browser_tmpdir())) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, BROWSER_PROFILE,
		    strlen(BROWSER_PROFILE)) != 0)
			continue;
		tok = de->d_name + strlen(BROWSER_PROFILE);
		len = strcspn(tok, "-");
		/* mkdtemp()'s six characters after the token. */
		if (tok[len] != '-' || strlen(tok + len + 1) != 6 ||
		    !cgroup_token_dead(tok, len))
			continue;
		if (fstatat(dirfd(d), de->d_name, &sb, AT_SYMLINK_NOFOLLOW) !=
		    0 || !S_ISDIR(sb.st_mode) || sb.st_uid != geteuid())
			continue;
		debuglog("browser: removing %s/%s, a dead deck's profile",
		    browser_tmpdir(), de->d_name);
		if (browser_rmtree_at(dirfd(d), de->d_name, 0) != 0)
			debuglog("browser: cannot remove all of %s/%s",
			    browser_tmpdir(), de->d_name);
	}
	closedir(d);
}

/*
 * After the loop: end the local browser, bounded (proc_finish()):
 * SIGTERM, SIGKILL after the grace, what is left of its group and
 * containment killed (and its members we inherited reaped), its profile
 * removed.
 */
static void
browser_free_local(struct browser *b)
{
	if (b->fd != -1) {
		loop_unwatch_fd(b->loop, b->fd);
		close(b->fd);
		b->fd = -1;
	}
	if (b->proc != NULL) {
		proc_finish(b->proc, SIGTERM, BROWSER_GRACE_MS,
		    BROWSER_REAP_MS);
		debuglog("browser: pid %ld ended (free)",
		    (long)proc_pid(b->proc));
	}
	if (b->profile != NULL) {
		browser_rmtree(b->profile);
		browser_set_str(&b->profile, NULL);
	}
	proc_free(b->proc);
	b->proc = NULL;
}

/*
 * After the loop: kill a docker command in flight and remove the
 * container with `docker rm -f`, waited for at most BROWSER_DOCKER_RM_MS.
 */
static void
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

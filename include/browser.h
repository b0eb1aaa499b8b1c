/*
 * browser: the deck's headless Chrome, which jobs drive over the Chrome
 * DevTools Protocol (CDP).  What [browser] asks for (config.h's struct
 * config_browser):
 *
 * - BROWSER_AUTO (cdp_url = "auto"): start one.  With an image set and a
 *   Docker daemon that answers (`docker version`, bounded), run the image
 *   with its CDP port published on 127.0.0.1 (`docker run -d --rm -p
 *   127.0.0.1::9222 --name jobdeck-browser-PID-N IMAGE <flags>`, then
 *   `docker port`); otherwise start a local headless Chromium (command,
 *   or the first of chromium-headless-shell, chromium, google-chrome on
 *   PATH) with --remote-debugging-port=0, a private profile directory
 *   (mkdtemp under $TMPDIR, else /tmp) and --no-sandbox when run as
 *   root, read the port it chose from its "DevTools listening on" line,
 *   and ask http://127.0.0.1:PORT/json/version for webSocketDebuggerUrl.
 * - BROWSER_CONNECT (cdp_url = "ws://host:port[/path]"): a browser the
 *   user started; the same /json/version question, asked of its host,
 *   says whether it is reachable.  A reply whose webSocketDebuggerUrl is
 *   not at the cdp_url's host and port (hostport_ws_same()) is refused:
 *   FAILED with why, so an answer cannot send jobs elsewhere.  Stopping
 *   it only forgets it.
 * - BROWSER_OFF (no cdp_url, or false): nothing starts with the deck;
 *   browser_start() then starts one as for "auto" without an image.
 *
 * Nothing here blocks the loop: the browser and the docker commands are
 * supervised processes of the jobtable's reaper (proc.h), their output
 * read through loop watches, /json/version asked through http.h; timeout_ms bounds a
 * whole start, and a browser that does not answer is killed and Failed.
 * While ready it is asked again every BROWSER_CHECK_MS, so a browser that
 * went away (a crash, a container stopped) shows Failed with the reason;
 * a local browser's exit is known at once.  A failed browser stays failed
 * until browser_start() or browser_restart().
 *
 * The local browser runs in its own process group and session, in a
 * containment of its own (cgroup_job_new(cg, 0)), with /dev/null as stdin
 * and its stdout and stderr read and dropped (the last line kept for the
 * reason it died); each docker command has one too, and what it leaves
 * behind is killed when it ends.  The profile is named after the deck
 * (jobdeck-browser-TOKEN-XXXXXX, TOKEN cgroup_token(), when there is a
 * cg), and browser_new() removes those of decks that have ended (a deck
 * SIGKILLed while its browser ran): the user's own directories whose
 * TOKEN is a dead deck's, never following a link (a bounded walk, before
 * the loop).  browser_stop() sends SIGTERM to its group and SIGKILL
 * after BROWSER_GRACE_MS; once it has ended its profile directory is
 * removed (the state is BROWSER_STOPPED only then).  browser_free(), after
 * the loop (a deck's quit, after its jobs), stops whatever still runs and
 * waits for it, bounded: the local browser's group and containment are
 * killed and its profile removed, a container is removed with `docker rm
 * -f` (waited for at most BROWSER_DOCKER_RM_MS).
 *
 * browser_start() while a stop is under way starts it once STOPPED;
 * after a failure it is STARTING at once, its first step taken once what
 * the failed one left is cleaned up; browser_restart() is browser_stop()
 * and then browser_start().  With an image and no daemon that answers (or no docker
 * program), auto starts a local browser instead (kind and label say so,
 * the -v log says why).  A timeout_ms of 0 means 30 s.
 *
 * Subscribers are told of every change of state, URL or reason; one may
 * call browser_start(), browser_stop() or browser_restart() from its
 * callback.  Keeping BROWSER_ENV in the jobtable (jobtable_set_env()) in
 * step with READY is the caller's, in such a callback.
 *
 * The getters: browser_state_name() is the state's word for JSON and
 * `!browser status` ("idle", "starting", "ready", "failed", "stopping",
 * "stopped"); browser_url() is the webSocketDebuggerUrl while ready (the
 * configured URL when that had a path), else NULL; browser_why() the
 * reason while failed ("chromium-headless-shell: Exited 1: <its last
 * line>" in waitstatus_long()'s words, "timed out after 30 s waiting for
 * DevTools", "http://127.0.0.1:9/json/version: connect: Connection
 * refused", "docker run: <its last line>"), else NULL;
 * browser_label() what it is ("Chrome Headless", "Chrome in Docker
 * (IMAGE)", "Chrome at HOST:PORT"); browser_product() /json/version's
 * "Browser" ("HeadlessChrome/156.0.8078.79") or NULL; browser_profile()
 * the local browser's profile directory while it exists, else NULL;
 * browser_container() the container's name while it runs, else NULL;
 * browser_pid() the local browser's pid while it runs, else 0.
 *
 * browser_new() refuses a cdp_url that is neither "auto" nor a ws:// or
 * wss:// URL with a host ("cdp_url: expected ...").
 *
 * Ownership: the caller owns the struct browser and frees it after the
 * loop has ended and before the jobtable; it borrows the loop, jobtable,
 * cgroup (may be NULL) and http (NULL: one is made on first need and
 * owned here).  The spec's strings are copied.  Strings returned belong
 * to the browser and live until its next change.
 */
#ifndef JOBDECK_BROWSER_H
#define JOBDECK_BROWSER_H

#include <sys/types.h>

#include <stdint.h>

struct browser;
struct cgroup;
struct http;
struct jobtable;
struct loop;

#define BROWSER_CHECK_MS	5000	/* a ready browser asked again */
#define BROWSER_GRACE_MS	3000	/* SIGTERM to SIGKILL */
#define BROWSER_DOCKER_RM_MS	10000	/* browser_free()'s docker rm -f */

/* The variable every job started while the browser is ready gets. */
#define BROWSER_ENV		"JOBDECK_CDP_URL"

enum browser_mode {
	BROWSER_OFF,
	BROWSER_AUTO,
	BROWSER_CONNECT
};

enum browser_state {
	BROWSER_IDLE,		/* never started (mode off) */
	BROWSER_STARTING,	/* starting, or asked /json/version */
	BROWSER_READY,		/* CDP answers: url is set */
	BROWSER_FAILED,		/* why says why */
	BROWSER_STOPPING,	/* asked to stop, not yet gone */
	BROWSER_STOPPED		/* stopped, its profile removed */
};

/* How it runs when started: chosen at each start. */
enum browser_kind {
	BROWSER_KIND_NONE,	/* not started yet */
	BROWSER_KIND_LOCAL,	/* a child of the deck */
	BROWSER_KIND_DOCKER,	/* a container */
	BROWSER_KIND_REMOTE	/* the user's (connect) */
};

struct browser_spec {
	const char	 *cdp_url;	/* "auto", a ws:// or wss:// URL, */
					/*   or NULL (off) */
	const char	 *image;	/* auto: a Docker image, or NULL */
	const char	 *command;	/* auto: the program; NULL: the */
					/*   first known one on PATH */
	char *const	 *args;		/* extra flags, NULL-terminated, */
					/*   or NULL */
	int64_t		  timeout_ms;	/* a start's bound */
};

struct browser_cbs {
	void	(*changed)(struct browser *, void *arg);
};

struct browser	*browser_new(struct loop *, struct jobtable *,
		    struct cgroup *, struct http *,
		    const struct browser_spec *, char **cause);
void		 browser_free(struct browser *);
void		 browser_subscribe(struct browser *,
		    const struct browser_cbs *, void *arg);
void		 browser_unsubscribe(struct browser *, void *arg);

int		 browser_start(struct browser *, char **cause);
int		 browser_stop(struct browser *, char **cause);
int		 browser_restart(struct browser *, char **cause);

enum browser_mode  browser_mode(const struct browser *);
enum browser_kind  browser_kind(const struct browser *);
enum browser_state browser_state(const struct browser *);
const char	*browser_state_name(enum browser_state);
const char	*browser_url(const struct browser *);
const char	*browser_why(const struct browser *);
const char	*browser_label(const struct browser *);
const char	*browser_product(const struct browser *);
const char	*browser_profile(const struct browser *);
const char	*browser_container(const struct browser *);
pid_t		 browser_pid(const struct browser *);

#endif

/*
 * browser-private.h: what the pieces of the deck's browser share.  The
 * lifecycle (start, stop, teardown, the state and its subscribers, the
 * getters) is browser.c; asking the DevTools endpoint /json/version and
 * checking its answer is browser-cdp.c; the local Chromium process and
 * its profile directories are browser-local.c; the container and its
 * docker commands are browser-docker.c.
 *
 * Ownership: browser.c owns every struct browser (browser_new(),
 * browser_free()); the other pieces change its fields on the loop, as
 * the steps of a start and of a teardown.
 */
#ifndef JOBDECK_BROWSER_PRIVATE_H
#define JOBDECK_BROWSER_PRIVATE_H

#include <stddef.h>
#include <stdint.h>

#include "browser.h"

struct cgroup;
struct http;
struct http_req;
struct jobtable;
struct loop;
struct proc;

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

/* A docker command (supcmd.h) and what it said. */
struct browser_cmd {
	enum browser_step	 step;
	struct supcmd		*sc;		/* running, or NULL */
	char			 out[BROWSER_OUT_MAX];
	size_t			 len;
};

/* One subscriber. */
struct browser_sub {
	struct browser_cbs	 cbs;
	void			*arg;
};

/* The deck's browser: its spec, its state, and what a start holds. */
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

/* browser.c: the lifecycle. */
void		 browser_notify(struct browser *);
void		 browser_set_str(char **, const char *);
void		 browser_cancel_timer(struct browser *, uint64_t *);
void		 browser_fail(struct browser *, const char *, ...)
		    __attribute__((format(printf, 2, 3)));
void		 browser_settled(struct browser *);
int		 browser_spawn(const char *, char **, struct proc *, int *,
		    char **);

/* browser-cdp.c: the DevTools endpoint asked. */
char		*browser_json_url(const char *, int, int *);
void		 browser_ask(struct browser *);

/* browser-local.c: the local Chromium and its profiles. */
void		 browser_local_begin(struct browser *);
void		 browser_local_release(struct browser *);
void		 browser_free_local(struct browser *);
void		 browser_sweep_profiles(void);

/* browser-docker.c: the container and its docker commands. */
void		 browser_docker_begin(struct browser *);
int		 browser_docker(struct browser *, enum browser_step,
		    const char *, const char *, int64_t);
void		 browser_cmd_kill(struct browser *);
void		 browser_free_docker(struct browser *);

#endif

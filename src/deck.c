/*
 * deck.c: one running deck, its parts wired in order and torn down in
 * the reverse (include/deck.h).
 */
#include <sys/prctl.h>
#include <sys/resource.h>

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bind.h"
#include "browser.h"
#include "cgroup.h"
#include "cmd.h"
#include "config.h"
#include "ctl.h"
#include "deck.h"
#include "debuglog.h"
#include "jobfield.h"
#include "host.h"
#include "jobtable.h"
#include "loop.h"
#include "session.h"
#include "sessionsh.h"
#include "stack.h"
#include "store.h"
#include "server.h"
#include "ui.h"
#include "up.h"
#include "watch.h"
#include "xmalloc.h"

extern char **environ;

#define DECK_SWEEP_EVERY_MS	(60 * 60 * 1000)	/* retention's period */
#define DECK_SWEEP_STEP_MS	5		/* between its steps */
#define DECK_SWEEP_BUDGET	32		/* runs or files a step */

struct deck {
	struct server		*server;	/* terminals attached, or */
	struct up		*up;		/*   jobdeck up's lines */
	struct stack		*stack;
	struct sessionsh	*sessionsh;	/* NULL: cd, export, unset */
						/*   built in */
	struct cgroup		*cg;
	struct loop		*loop;
	struct jobtable		*jt;
	struct hosts		*hosts;		/* where jobs with a host run */
	struct browser		*browser;	/* the deck's, or NULL */
	struct store		*store;
	struct store_sweep	*sweep;		/* under way, or NULL */
	struct bind		*bind;		/* the keys (!help over ctl) */
	struct session		*session;
	struct ctl		*ctl;		/* the control socket */
	struct cmd_ctx		 ctx;		/*   what its commands see */
	struct cmd_deck		 info;		/* !deck */
	struct config		*cfg;
	char			*log_dir;
	char			*browser_cause;	/* said once there is a face */
	char			*sh_cause;
	struct deck_opts	 opts;
	uint64_t		 sweep_timer;
	int			 signo;	/* the signal that asked us to leave */
	int			 quitting;
	uint64_t		 quit_timer;
	int			 quit_running;	/* jobs running at its arming */
	struct watch		*cfg_watch;	/* reload = "auto": the files */
	uint64_t		 reload_timer;	/*   changed: reload next turn */
};

/*
 * Raise the soft limit on open files to the hard one: each job holds a pty
 * and a log file, so the usual 1024 would cap a deck at a few hundred jobs.
 */
static void
deck_raise_fd_limit(void)
{
	struct rlimit	rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/*
 * Start the -v log, debug-NAME.log in the log directory; a failure is
 * said on stderr and the deck runs without it.
 */
static void
deck_open_debuglog(const struct store *store, const char *deck)
{
	char	*path, *cause = NULL;

	if (store == NULL)
		cause = xstrdup("the output store could not be opened");
	else {
		path = xprintf("%s/debug-%s.log", store_dir(store), deck);
		if (debuglog_open(path, &cause) == 0)
			debuglog("deck %s starts, store deck %s", deck,
			    store_deck(store));
		free(path);
	}
	if (cause != NULL) {
		fprintf(stderr, "jobdeck: no debug log: %s\n", cause);
		free(cause);
	}
}

/*
 * The store's retention: a step of the sweep, then the next step soon, or
 * the next sweep in an hour; runs it finds lost are logged.
 */
static void
deck_sweep_cb(void *arg)
{
	struct deck	 *d = arg;
	char			**lost;
	int			  n, i;

	d->sweep_timer = 0;
	if (d->sweep == NULL)
		d->sweep = store_sweep_new(d->store, loop_wall_ms());
	if (d->sweep != NULL && store_sweep_step(d->sweep,
	    DECK_SWEEP_BUDGET) > 0) {
		d->sweep_timer = loop_add_timer(d->loop, DECK_SWEEP_STEP_MS,
		    deck_sweep_cb, d);
		return;
	}
	if (d->sweep != NULL) {
		n = store_sweep_lost(d->sweep, &lost);
		for (i = 0; i < n; i++) {
			debuglog("run %s was lost with its deck", lost[i]);
			free(lost[i]);
		}
		free(lost);
		store_sweep_free(d->sweep);
		d->sweep = NULL;
	}
	d->sweep_timer = loop_add_timer(d->loop, DECK_SWEEP_EVERY_MS,
	    deck_sweep_cb, d);
}

/*
 * Open the output store in dir with the configured limits; without it
 * jobs run unlogged, and the deck says why on stderr.
 */
static struct store *
deck_open_store(const struct config *cfg, const char *dir,
    struct jobtable *jt)
{
	struct store_limits	 lim;
	struct store		*store;
	char			*cause = NULL;

	config_store_limits(cfg, &lim);
	if ((store = store_open(dir, &lim, &cause)) == NULL) {
		fprintf(stderr, "jobdeck: output is not kept: %s\n", cause);
		jobtable_set_store_error(jt, cause);
		free(cause);
	}
	return store;
}

/*
 * Check what `jobdeck up` is to run before anything starts: the named
 * jobs must be configured, and without names some job must start by
 * itself.  0, or -1 with *cause.
 */
static int
deck_up_check(const struct config *cfg, char *const *names, int n,
    char **cause)
{
	const char	*file = cfg->path != NULL ? cfg->path : NULL;
	size_t		 i;
	int		 k;

	for (k = 0; k < n; k++) {
		if (config_find_job(cfg, names[k]) == NULL) {
			*cause = xprintf("no job named %s in %s", names[k],
			    file != NULL ? file : "the configuration (give -c "
			    "FILE or -f PROCFILE)");
			return -1;
		}
	}
	if (n > 0)
		return 0;
	for (i = 0; i < cfg->njobs; i++) {
		if (cfg->jobs[i].autostart)
			return 0;
	}
	if (file == NULL)
		*cause = xstrdup("nothing to run: no configuration file (give "
		    "-c FILE or -f PROCFILE)");
	else if (cfg->njobs == 0)
		*cause = xprintf("nothing to run: %s has no jobs", file);
	else
		*cause = xprintf("nothing to run: no job of %s starts by "
		    "itself (autostart = false); name the jobs to run", file);
	return -1;
}

/*
 * A grace period (and a second) went by while quitting: wait another one
 * if a job ended meanwhile (a stack stops in order, a layer at a time),
 * else stop waiting (SIGKILL went out at the grace period).
 */
static void
deck_quit_timeout_cb(void *arg)
{
	struct deck	*d = arg;
	int		 running = jobtable_running(d->jt);

	d->quit_timer = 0;
	if (running > 0 && running < d->quit_running) {
		d->quit_running = running;
		d->quit_timer = loop_add_timer(d->loop,
		    jobtable_grace(d->jt) + 1000, deck_quit_timeout_cb, d);
		return;
	}
	loop_stop(d->loop);
}

/*
 * Stop every job (SIGTERM, then SIGKILL after the grace period) and leave
 * the loop once none is left, the clients saying so meanwhile; jobdeck
 * up's lines do it their own way.
 */
static void
deck_quit(struct deck *d)
{
	/* No job starts while the jobs are stopped: on a timer or asked. */
	stack_end_timers(d->stack);
	jobtable_close(d->jt);
	if (d->up != NULL) {
		up_quit(d->up);
		return;
	}
	if (d->quitting)
		return;
	d->quitting = 1;
	server_quitting(d->server);
	jobtable_kill_all(d->jt);
	if (!jobtable_busy(d->jt)) {
		loop_stop(d->loop);
		return;
	}
	d->quit_running = jobtable_running(d->jt);
	d->quit_timer = loop_add_timer(d->loop, jobtable_grace(d->jt) + 1000,
	    deck_quit_timeout_cb, d);
}

/* Before each sleep: leave once quitting is done; draw the clients. */
static void
deck_hook(void *arg)
{
	struct deck	*d = arg;

	if (d->quitting && !jobtable_busy(d->jt))
		loop_stop(d->loop);
	server_draw(d->server);
}

/* The server's quit: !quit, or the last client left (on_last_detach). */
static void
deck_server_quit(void *arg)
{
	deck_quit(arg);
}

/* A command a client brought (`jobdeck CMD` on a running deck), in its cwd. */
static void
deck_server_start(const char *command, const char *cwd, void *arg)
{
	struct deck	*d = arg;

	cmd_start_job(&d->ctx, command, cwd);
}

/* Return how many terminals are attached (!deck). */
static int
deck_clients(void *arg)
{
	struct deck	*d = arg;

	return d->server != NULL ? server_clients(d->server) : 0;
}

/* ctl's attach: a terminal for the server, refused by jobdeck up. */
static void
deck_ctl_attach(const struct ctl_attach *a, void *arg)
{
	struct deck	*d = arg;

	server_attach(d->server, a);
}

/* SIGTERM, SIGHUP and SIGINT: stop every job and leave. */
static void
deck_signal_cb(int signo, void *arg)
{
	struct deck	*d = arg;

	if (d->signo == 0)
		d->signo = signo;
	deck_quit(d);
}

/* A job started: say once why jobs get no cgroup, if they do not. */
static void
deck_job_started(struct job *job, void *arg)
{
	struct deck	*d = arg;
	const char		*why;

	(void)job;
	if (d->server != NULL && (why = cgroup_warning(d->cg)) != NULL)
		server_message(d->server, why, 0);
}

/*
 * The browser changed: every job started from now on gets its URL while
 * it is ready, and no URL otherwise; then jobs that depend on it are
 * looked at again (they start with the URL).
 */
static void
deck_browser_changed(struct browser *b, void *arg)
{
	struct deck	*d = arg;

	jobtable_set_env(d->jt, BROWSER_ENV, browser_state(b) ==
	    BROWSER_READY ? browser_url(b) : NULL);
	jobtable_recheck(d->jt);
}

/*
 * Make the deck's browser from [browser]; NULL with *cause when it cannot
 * be made (the deck runs without one).
 */
static struct browser *
deck_browser_new(struct deck *d, const struct config *cfg,
    char **cause)
{
	const struct config_browser	*cb = &cfg->browser;
	struct browser_spec		 spec;

	memset(&spec, 0, sizeof spec);
	spec.cdp_url = cb->cdp_url;
	spec.image = cb->image;
	spec.command = cb->command;
	spec.args = cb->args;
	spec.timeout_ms = (int64_t)(cb->timeout * 1000);
	return browser_new(d->loop, d->jt, d->cg, NULL, &spec, cause);
}

/*
 * Keep JOBDECK_CDP_URL and the jobs that depend on the browser in step
 * with it, and give it to the stack.  Subscribed after the front end, so
 * that a change is told ("CDP Ready") before the jobs it starts.
 */
static void
deck_browser_follow(struct deck *d)
{
	static const struct browser_cbs deck_browser_cbs = {
		.changed = deck_browser_changed,
	};

	if (d->browser == NULL)
		return;
	browser_subscribe(d->browser, &deck_browser_cbs, d);
	stack_set_browser(d->stack, d->browser);
}

/*
 * Say a cause, after prefix, on the deck's screen, or on stderr for
 * jobdeck up.
 */
static void
deck_say(struct deck *d, const char *prefix, const char *cause)
{
	if (d->server != NULL) {
		char	*msg = xprintf("%s%s", prefix, cause);

		server_message(d->server, msg, 1);
		free(msg);
	} else
		fprintf(stderr, "jobdeck up: %s%s\n", prefix, cause);
}

/* Return whether the environment variable name is set to a true value. */
static int
deck_env_flag(const char *name)
{
	const char	*v = getenv(name);

	return v != NULL && *v != '\0' && *v != '0';
}

static void	deck_config_changed(const char *, void *);
static int	deck_reload(struct config *, struct cmd_reload *, char **,
		    void *);

static const struct watch_cbs deck_watch_cbs = {
	.changed = deck_config_changed,
};

/*
 * The settings a running deck cannot take, and why; every other one
 * applies at a reload (deck_apply_settings(), the clients' views, the
 * jobs' launches).
 */
static const struct deck_fixed {
	const char	*name;
	const char	*why;
} deck_fixed[] = {
	{ "log_dir", "the store opened at start: restart the deck" },
	{ "max_log_size", "the store opened at start: restart the deck" },
	{ "keep_history", "the store opened at start: restart the deck" },
	{ "keep_history_days", "the store opened at start: restart the deck" },
	{ "max_state_size", "the store opened at start: restart the deck" },
};

/* A reload's notes on the settings, as they are found. */
struct deck_notes {
	char	**v;
	size_t	  n;
};

/* Add a note on a setting to a reload's. */
static void
deck_note(struct deck_notes *dn, char *note)
{
	dn->v = xreallocarray(dn->v, dn->n + 1, sizeof *dn->v);
	dn->v[dn->n++] = note;
}

/* config_diff()'s callback over [settings]: a note, applied or not. */
static void
deck_setting_changed(const char *name, void *arg)
{
	size_t	i;

	for (i = 0; i < sizeof deck_fixed / sizeof deck_fixed[0]; i++) {
		if (strcmp(deck_fixed[i].name, name) == 0) {
			deck_note(arg, xprintf("%s not applied: %s", name,
			    deck_fixed[i].why));
			return;
		}
	}
	deck_note(arg, xprintf("%s applied", name));
}

/* Return whether two configurations bind the same keys. */
static int
deck_same_keys(const struct config *a, const struct config *b)
{
	size_t	i;

	if (a->nkeys != b->nkeys || ((a->settings.focus_key == NULL) !=
	    (b->settings.focus_key == NULL)) || (a->settings.focus_key !=
	    NULL && strcmp(a->settings.focus_key, b->settings.focus_key) != 0))
		return 0;
	for (i = 0; i < a->nkeys; i++) {
		if (a->keys[i].mode != b->keys[i].mode ||
		    strcmp(a->keys[i].action, b->keys[i].action) != 0 ||
		    strcmp(a->keys[i].keys, b->keys[i].keys) != 0)
			return 0;
	}
	return 1;
}

/*
 * Return whether two arrays of [SECTION.NAME] tables (structs of size
 * bytes whose first member is the name) are the same, in order.
 */
static int
deck_same_tables(const char *section, const void *a, size_t na,
    const void *b, size_t nb, size_t size)
{
	const char	*ta, *tb;
	size_t		 i;

	if (na != nb)
		return 0;
	for (i = 0; i < na; i++) {
		ta = (const char *)a + i * size;
		tb = (const char *)b + i * size;
		if (strcmp(*(char *const *)(const void *)ta,
		    *(char *const *)(const void *)tb) != 0 ||
		    config_diff(section, ta, tb, NULL, NULL) != 0)
			return 0;
	}
	return 1;
}

/* Apply the settings the table and the clients take from d->cfg. */
static void
deck_apply_settings(struct deck *d)
{
	const struct config_settings	*set = &d->cfg->settings;

	jobtable_set_grace(d->jt, (int)(set->kill_timeout * 1000));
	jobtable_set_max_running(d->jt, set->max_running);
	jobtable_set_keep_finished(d->jt, set->keep_finished);
	jobtable_set_scrollback(d->jt, set->scrollback);
	hosts_set_config(d->hosts, d->cfg->hosts, d->cfg->nhosts,
	    set->ssh_command);
	if (d->server != NULL)
		server_set_config(d->server, d->cfg);
}

/* The watched configuration changed and settled: reload, say how it went. */
static void
deck_reload_cb(void *arg)
{
	struct deck		*d = arg;
	struct cmd_reload	 r;
	char			*cause = NULL, *line;

	d->reload_timer = 0;
	if (deck_reload(NULL, &r, &cause, d) != 0) {
		deck_say(d, "reload: ", cause);
		free(cause);
		return;
	}
	line = cmd_reload_line(&r);
	if (d->server != NULL)
		server_message(d->server, line, 0);
	free(line);
	cmd_reload_clear(&r);
}

/* A watched file changed: reload on the next turn (not inside the watch). */
static void
deck_config_changed(const char *path, void *arg)
{
	struct deck	*d = arg;

	(void)path;
	if (d->reload_timer == 0)
		d->reload_timer = loop_add_timer(d->loop, 0, deck_reload_cb, d);
}

/*
 * Add path to globs, relative to dir (the config's): as written when
 * relative, its tail when it lies under dir; elsewhere it is not watched.
 */
static void
deck_watch_add(char ***globs, size_t *n, const char *dir, const char *path)
{
	size_t	len = strlen(dir);

	if (*path == '/') {
		if (strncmp(path, dir, len) != 0 || path[len] != '/')
			return;
		path += len + 1;
	}
	*globs = xreallocarray(*globs, *n + 1, sizeof **globs);
	(*globs)[(*n)++] = xstrdup(path);
}

/*
 * With reload = "auto", watch the configuration file and the env files
 * beside it (a Procfile's .env); a change reloads once quiet for half a
 * second.  Made anew at each reload; a failure is said.
 */
static void
deck_watch_config(struct deck *d)
{
	const struct config	*cfg = d->cfg;
	char			**globs = NULL, *dir, *cause = NULL;
	const char		 *base;
	size_t			  n = 0, i, k;

	watch_free(d->cfg_watch);
	d->cfg_watch = NULL;
	if (cfg->path == NULL || cfg->settings.reload != 1)
		return;
	dir = config_dir(cfg);
	base = strrchr(cfg->path, '/');
	deck_watch_add(&globs, &n, dir, base != NULL ? base + 1 : cfg->path);
	for (i = 0; i < cfg->settings.nenv_file; i++)
		deck_watch_add(&globs, &n, dir, cfg->settings.env_file[i]);
	for (i = 0; i < cfg->njobs; i++) {
		for (k = 0; k < cfg->jobs[i].nenv_file; k++)
			deck_watch_add(&globs, &n, dir,
			    cfg->jobs[i].env_file[k]);
	}
	d->cfg_watch = watch_new(d->loop, dir, globs, n, NULL, 0, 500,
	    &deck_watch_cbs, d, &cause);
	if (d->cfg_watch == NULL) {
		deck_say(d, "reload = \"auto\": cannot watch the "
		    "configuration: ", cause);
		free(cause);
	}
	for (i = 0; i < n; i++)
		free(globs[i]);
	free(globs);
	free(dir);
}

/*
 * Move the deck to cfg (taken; NULL: its file read again): the notes on
 * what of [settings], [keys], [groups] and [browser] changed, the stack
 * reloaded, the old configuration freed.  -1 with *cause when the file
 * does not load or the deck is quitting: nothing changes.
 */
static int
deck_reload(struct config *cfg, struct cmd_reload *out, char **cause,
    void *arg)
{
	struct deck		*d = arg;
	struct config		*old = d->cfg;
	struct deck_notes	 dn = { NULL, 0 };
	int			 keys;

	memset(out, 0, sizeof *out);
	if (d->quitting) {
		/* Its jobs are stopping: nothing may start now. */
		config_free(cfg);
		*cause = xstrdup("the deck is quitting");
		return -1;
	}
	if (cfg == NULL) {
		if (old->path == NULL) {
			*cause = xstrdup("no configuration file to read again "
			    "(start the deck with -c FILE or -f Procfile)");
			return -1;
		}
		if (config_load(old->path, old->procfile, &cfg, cause) != 0)
			return -1;
		/* A Procfile's ports keep the deck's --port-base. */
		if (cfg->procfile)
			config_set_port_base(cfg, old->settings.port_base);
	}
	config_diff("settings", &old->settings, &cfg->settings,
	    deck_setting_changed, &dn);
	if ((keys = !deck_same_keys(old, cfg)))
		deck_note(&dn, xstrdup("[keys] applied"));
	if (!deck_same_tables("groups", old->groups, old->ngroups, cfg->groups,
	    cfg->ngroups, sizeof *cfg->groups))
		deck_note(&dn, xstrdup("[groups] applied"));
	if (!deck_same_tables("hosts", old->hosts, old->nhosts, cfg->hosts,
	    cfg->nhosts, sizeof *cfg->hosts))
		deck_note(&dn, xstrdup("[hosts] applied: jobs started from now "
		    "on use them; running ones keep their connection"));
	if (config_diff("browser", &old->browser, &cfg->browser, NULL,
	    NULL) != 0)
		deck_note(&dn, xstrdup("[browser] not applied: the browser "
		    "started with the deck: restart the deck"));
	d->cfg = cfg;
	/* A lower max_running holds for the reload's own starts. */
	if (cfg->settings.max_running > 0 && (old->settings.max_running == 0 ||
	    cfg->settings.max_running < old->settings.max_running))
		jobtable_set_max_running(d->jt, cfg->settings.max_running);
	stack_reload(d->stack, cfg, &out->changes, &out->nchanges);
	if (keys) {
		bind_reset(d->bind);
		config_apply_keys(cfg, d->bind);
	}
	deck_apply_settings(d);
	deck_watch_config(d);
	config_free(old);
	out->notes = dn.v;
	out->nnotes = dn.n;
	debuglog("deck %s reloaded %s", d->opts.name, cfg->path != NULL ?
	    cfg->path : "its configuration");
	return 0;
}

/* Say msg on every attached terminal (cmd_deck's say: an !edit's end). */
static void
deck_info_say(const char *msg, int error, void *arg)
{
	struct deck	*d = arg;

	if (d->server != NULL)
		server_message(d->server, msg, error);
}

/* `quit` through the control socket: as !quit. */
static void
deck_ctl_quit(void *arg)
{
	deck_quit(arg);
}

/* `focus ID` through the control socket: as !focus. */
static void
deck_ctl_focus(struct job *job, void *arg)
{
	struct deck	*d = arg;

	if (d->server != NULL)
		server_focus_job(d->server, job);
}

/*
 * Make the deck's process ready to hold jobs: a subreaper (orphans of our
 * jobs come to us, so none escapes), no SIGPIPE, no SIGTSTP, every file
 * descriptor the hard limit allows.
 */
static void
deck_process_init(void)
{
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == -1)
		fprintf(stderr, "jobdeck: cannot become a subreaper: %s\n",
		    strerror(errno));
	signal(SIGPIPE, SIG_IGN);
	/*
	 * The terminal is in raw mode, so only kill(1) can stop us, and a
	 * stopped deck would leave it raw; curses also skips its SIGTSTP
	 * dance around every refresh when the signal is ignored.  Jobs get
	 * the default back (pty.c).
	 */
	signal(SIGTSTP, SIG_IGN);
	deck_raise_fd_limit();
}

/*
 * Make the loop, containment, session, job table and store, as the
 * configuration says.
 */
static void
deck_core_new(struct deck *d)
{
	static const struct jobtable_cbs deck_jobtable_cbs = {
		.started = deck_job_started,
	};
	const struct config	*cfg = d->cfg;

	/* Every job in a cgroup where we may; what dead decks left goes. */
	d->cg = cgroup_new(cgroup_env_flags());
	cgroup_sweep(d->cg);
	d->loop = loop_new();
	loop_watch_signal(d->loop, SIGTERM, deck_signal_cb, d);
	loop_watch_signal(d->loop, SIGHUP, deck_signal_cb, d);
	loop_watch_signal(d->loop, SIGINT, deck_signal_cb, d);
	d->session = session_new(environ);
	d->jt = jobtable_new(d->loop);
	jobtable_set_grace(d->jt, (int)(cfg->settings.kill_timeout * 1000));
	jobtable_set_max_running(d->jt, cfg->settings.max_running);
	jobtable_set_keep_finished(d->jt, cfg->settings.keep_finished);
	jobtable_set_cgroup(d->jt, d->cg);
	d->hosts = hosts_new(d->loop, jobtable_reaper(d->jt), d->opts.name);
	hosts_set_config(d->hosts, cfg->hosts, cfg->nhosts,
	    cfg->settings.ssh_command);
	jobtable_set_hosts(d->jt, d->hosts);
	/* What a dead deck of this name left on a Slurm cluster goes. */
	hosts_sweep(d->hosts);
	jobtable_subscribe(d->jt, &deck_jobtable_cbs, d);
	d->log_dir = cfg->settings.log_dir != NULL ?
	    xstrdup(cfg->settings.log_dir) : store_default_dir();
	d->store = deck_open_store(cfg, d->log_dir, d->jt);
	jobtable_set_store(d->jt, d->store);
	if (d->store != NULL)
		d->sweep_timer = loop_add_timer(d->loop, 0, deck_sweep_cb, d);
	if (d->opts.verbose)
		deck_open_debuglog(d->store, d->opts.name);
	jobtable_set_scrollback(d->jt, cfg->settings.scrollback);
	jobtable_set_no_pty(d->jt, deck_env_flag("JOBDECK_NO_PTY"));
}

/* A job's next_run field (jobfield.h) from the stack arg. */
static int64_t
deck_timer_next(const struct job *job, void *arg)
{
	return stack_next_run(arg, job);
}

/* A job's skipped field (jobfield.h) from the stack arg. */
static int64_t
deck_timer_skipped(const struct job *job, void *arg)
{
	return stack_skipped_runs(arg, job);
}

/* Let the job fields of jobs on a timer come from st (NULL: none). */
static void
deck_timer_fields(struct stack *st)
{
	static const struct jobfield_timer deck_timer = {
		.next_run = deck_timer_next,
		.skipped = deck_timer_skipped,
	};

	jobfield_set_timer(st != NULL ? &deck_timer : NULL, st);
}

/*
 * Make the stack, the session shell, the browser, the bindings and the
 * front end; -1 with *cause when the front end cannot be made.
 */
static int
deck_faces_new(struct deck *d, char **cause)
{
	static const struct server_cbs deck_server_cbs = {
		.quit = deck_server_quit,
		.start = deck_server_start,
	};
	struct server_opts	opts;
	char			real[PATH_MAX];

	d->stack = stack_new(d->loop, d->jt, d->cfg, d->session, NULL);
	deck_timer_fields(d->stack);
	/* The session shell; without it cd, export and unset are built in. */
	if (!deck_env_flag("JOBDECK_NO_SESSION_SHELL"))
		d->sessionsh = sessionsh_new(d->loop, d->jt, d->cg, d->session,
		    0, &d->sh_cause);
	/*
	 * The browser: started by deck_run(), before the jobs, and any
	 * failure said once there is a face to say it on.
	 */
	d->browser = deck_browser_new(d, d->cfg, &d->browser_cause);
	/* One set of bindings: the prompt's, and !help's over ctl. */
	d->bind = bind_new();
	config_apply_keys(d->cfg, d->bind);
	d->info.name = d->opts.name;
	if (d->cfg->path != NULL)
		d->info.config = realpath(d->cfg->path, real) != NULL ?
		    xstrdup(real) : xstrdup(d->cfg->path);
	d->info.started_ms = loop_wall_ms();
	d->info.clients = deck_clients;
	d->info.clients_arg = d;
	d->info.reload = deck_reload;
	d->info.say = deck_info_say;
	d->info.reload_arg = d;
	if (d->opts.headless && !d->opts.serve) {
		d->opts.up.browser = d->browser;
		d->opts.up.deck = d->opts.name;
		d->up = up_new(d->loop, d->jt, d->stack, &d->opts.up);
		return 0;
	}
	memset(&opts, 0, sizeof opts);
	opts.name = d->opts.name;
	opts.config_path = d->info.config;
	opts.quit_on_last = d->cfg->settings.on_last_detach == 1;
	opts.size = (enum server_size)d->cfg->settings.pty_size;
	opts.ui.config = d->cfg;
	opts.ui.stack = d->stack;
	opts.ui.browser = d->browser;
	opts.ui.sessionsh = d->sessionsh;
	opts.ui.bind = d->bind;
	opts.ui.deck = &d->info;
	d->server = server_new(d->loop, d->jt, d->session, &opts,
	    &deck_server_cbs, d);
	loop_set_hook(d->loop, deck_hook, d);
	(void)cause;
	return 0;
}

/*
 * Make a deck of the configuration cfg (the deck owns it from now on):
 * NULL with *cause, a whole line to print, and *status, the exit status,
 * when it cannot start.
 */
struct deck *
deck_new(struct config *cfg, const struct deck_opts *opts, char **cause,
    int *status)
{
	struct deck	*d;
	char		*why = NULL;

	d = xcalloc(1, sizeof *d);
	d->cfg = cfg;
	d->opts = *opts;
	*status = 2;
	/* A deck that stays may start with nothing to run. */
	if (opts->headless && !opts->up.stay && deck_up_check(cfg,
	    opts->words, opts->nwords, &why) != 0) {
		*cause = xprintf("jobdeck up: %s", why);
		goto fail;
	}
	/* A deck of that name may run: say so before the screen is taken. */
	if ((d->ctl = ctl_listen(opts->name, &why)) == NULL)
		goto fail_deck;
	deck_process_init();
	deck_core_new(d);
	if (deck_faces_new(d, &why) != 0) {
		*status = 1;
		goto fail_deck;
	}
	return d;

fail_deck:
	*cause = xprintf("jobdeck: %s", why);
fail:
	free(why);
	deck_free(d);
	return NULL;
}

/*
 * Start what the deck runs: the control socket's server, the browser, the
 * configured jobs (up: the named ones) and the commands given.  0, or -1
 * when jobdeck up's stack cannot start whole (said on stderr).
 */
static int
deck_start(struct deck *d)
{
	static const struct ctl_cbs deck_ctl_cbs = {
		.quit = deck_ctl_quit,
		.focus = deck_ctl_focus,
		.attach = deck_ctl_attach,
	};
	char	*cause = NULL;
	int	 i;

	d->ctx.jt = d->jt;
	d->ctx.session = d->session;
	d->ctx.bind = d->bind;
	d->ctx.stack = d->stack;
	d->ctx.browser = d->browser;
	d->ctx.sessionsh = d->sessionsh;
	d->ctx.deck = &d->info;
	deck_browser_follow(d);
	ctl_start(d->ctl, d->loop, &d->ctx, &deck_ctl_cbs, d);
	deck_watch_config(d);
	/* The browser first, so that it shows Starting… at once. */
	if (d->browser_cause != NULL)
		deck_say(d, "browser: ", d->browser_cause);
	else if (d->cfg->browser.cdp_url != NULL &&
	    browser_start(d->browser, &cause) != 0) {
		deck_say(d, "browser: ", cause);
		free(cause);
		cause = NULL;
	}
	if (d->sh_cause != NULL)
		deck_say(d, "no session shell (cd, export and unset are built "
		    "in): ", d->sh_cause);
	/* The configured jobs (up: the named ones), then typed commands. */
	if (d->server != NULL && !d->opts.headless) {
		if (stack_start_all(d->stack, NULL, 0, &cause) != 0) {
			deck_say(d, "", cause);
			free(cause);
		}
		for (i = 0; i < d->opts.nwords; i++)
			cmd_start_job(&d->ctx, d->opts.words[i], NULL);
		return 0;
	}
	if (stack_start_all(d->stack, d->opts.nwords > 0 ? d->opts.words :
	    NULL, d->opts.nwords, &cause) != 0) {
		/* A stack that cannot start whole does not run. */
		fprintf(stderr, "jobdeck up: %s\n", cause);
		jobtable_kill_all(d->jt);
		free(cause);
		return -1;
	}
	return 0;
}

/*
 * Run the deck until it quits; return its exit status: jobdeck up's first
 * failure's, else 128 + the signal that stopped it; 2 when up's stack
 * could not start.
 */
int
deck_run(struct deck *d)
{
	int	start_failed, status;

	start_failed = deck_start(d) != 0;
	if (d->signo != 0)
		deck_quit(d);
	loop_run(d->loop);
	status = d->up != NULL ? up_status(d->up) : 0;
	if (status == 0 && d->signo != 0)
		status = 128 + d->signo;
	if (start_failed)
		status = 2;
	return status;
}

/*
 * Free a deck, made whole or in part: every job stopped, then the browser
 * while its faces listen, the terminal given back, what the deck's
 * containment holds killed, and the rest freed.
 */
void
deck_free(struct deck *d)
{
	if (d == NULL)
		return;
	ctl_free(d->ctl);
	/*
	 * The jobs have stopped: the attached terminals are given back (their
	 * front ends see the browser, so before it goes); the clients hear
	 * the deck quit once everything below is gone.
	 */
	if (d->loop != NULL)
		loop_set_hook(d->loop, NULL, NULL);
	server_release(d->server);
	/* Now the browser, while jobdeck up's lines listen. */
	browser_free(d->browser);
	if (d->quit_timer != 0)
		loop_cancel_timer(d->loop, d->quit_timer);
	up_free(d->up);
	watch_free(d->cfg_watch);
	if (d->reload_timer != 0)
		loop_cancel_timer(d->loop, d->reload_timer);
	deck_timer_fields(NULL);
	/* The jobs are over: the hosts' connections close. */
	if (d->jt != NULL)
		jobtable_set_hosts(d->jt, NULL);
	hosts_free(d->hosts);
	stack_free(d->stack);
	sessionsh_free(d->sessionsh);
	if (d->cg != NULL) {
		cgroup_kill_all(d->cg);
		jobtable_kill_strays();
	}
	jobtable_free(d->jt);
	cgroup_free(d->cg);
	store_sweep_free(d->sweep);
	store_free(d->store);
	session_free(d->session);
	if (d->server != NULL) {
		char	*why = xprintf("[deck %s quit]", d->opts.name);

		server_free(d->server, d->signo != 0 ? 128 + d->signo : 0,
		    why);
		free(why);
	}
	loop_free(d->loop);
	bind_free(d->bind);
	if (d->loop != NULL)
		debuglog("deck %s ends (signal %d)", d->opts.name, d->signo);
	debuglog_close();
	free(d->log_dir);
	free(d->browser_cause);
	free(d->sh_cause);
	free((char *)d->info.config);
	config_free(d->cfg);
	free(d);
}

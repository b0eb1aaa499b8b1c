/*
 * main.c: jobdeck's options, wiring and the order of setup and teardown.
 * The control socket is bound first, so that a second deck of the same
 * name stops before it touches the screen; then the loop (it owns signal
 * delivery), the session, the job table, the front end, and the socket's
 * server; jobs named on the command line start last.  Before the loop the
 * deck's containment is made (a cgroup per job, or the environment marker;
 * JOBDECK_NO_CGROUP=1 asks for the marker alone) and what dead decks left
 * is killed.  The browser ([browser], browser.h) is made after the job
 * table and containment and, when configured, started before the
 * configured jobs; while it is ready every job started gets its URL as
 * JOBDECK_CDP_URL.  A browser that fails never stops the deck.  On the way
 * out every job is stopped, then the browser (its profile removed), before
 * the terminal is given back; then everything of the deck's cgroups and
 * marker is killed, anything still parented to jobdeck is killed and
 * reaped, and the cgroups are removed.
 */
#include <sys/prctl.h>
#include <sys/resource.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <locale.h>
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
#include "debuglog.h"
#include "jobtable.h"
#include "loop.h"
#include "mcp.h"
#include "run.h"
#include "session.h"
#include "sessionsh.h"
#include "stack.h"
#include "store.h"
#include "ui.h"
#include "up.h"
#include "xmalloc.h"

extern char **environ;

/* What main needs from the signal and job callbacks. */
#define MAIN_SWEEP_EVERY_MS	(60 * 60 * 1000)	/* the store's retention */
#define MAIN_SWEEP_STEP_MS	5		/* between its steps */
#define MAIN_SWEEP_BUDGET	32		/* runs or files a step */

struct main_state {
	struct ui		*ui;		/* the screen, or */
	struct up		*up;		/*   jobdeck up's lines */
	struct stack		*stack;
	struct sessionsh	*sessionsh;	/* NULL: cd, export, unset built in */
	struct cgroup		*cg;
	struct loop		*loop;
	struct jobtable		*jt;
	struct browser		*browser;	/* the deck's, or NULL */
	struct store		*store;
	struct store_sweep	*sweep;		/* under way, or NULL */
	struct bind		*bind;		/* the keys !help lists over ctl */
	uint64_t		 sweep_timer;
	int			 signo;	/* the signal that asked us to leave */
};

/* Print the usage line to f. */
static void
main_usage(FILE *f)
{
	fprintf(f, "usage: jobdeck [-c FILE | -f PROCFILE] [-S NAME] [-v] "
	    "[--check-config] [--help-config]\n"
	    "               [-h] [-V] [--] [COMMAND ...]\n"
	    "       jobdeck up [-c FILE | -f PROCFILE] [-S NAME] [-t] "
	    "[--no-color]\n"
	    "               [--port-base N] [--stay] [JOB ...]\n"
	    "       jobdeck ctl [-S NAME] [-r] [--json] COMMAND [ARGS ...]\n"
	    "       jobdeck run [-c FILE] [--json] [OPTIONS] "
	    "(JOBNAME | -- PROGRAM [ARG ...])\n");
}

/* Print the help text. */
static void
main_help(void)
{
	main_usage(stdout);
	printf("\n"
	    "A terminal UI that runs each COMMAND (a shell string) as a job on its\n"
	    "own pseudo-terminal and shows its live output beside a panel of jobs.\n"
	    "\n"
	    "  -c FILE          configuration file (TOML, or a Procfile by name;\n"
	    "                   default $XDG_CONFIG_HOME/jobdeck/config.toml)\n"
	    "  -f PROCFILE      read jobs from a Procfile (name: command lines)\n"
	    "  -S NAME          the deck's name, for its control socket "
	    "(default: default)\n"
	    "  --port-base N    a Procfile's first $PORT (default 5000)\n"
	    "  -v               write a debug log (draws, the control socket, "
	    "jobs)\n"
	    "                   to debug-NAME.log in the log directory\n"
	    "  --check-config   check the configuration and exit\n"
	    "  --help-config    list every configuration option and exit\n"
	    "  -h               show this help\n"
	    "  -V               show the version\n"
	    "\n"
	    "At the > prompt: a command starts a job; cd, export and unset persist;\n"
	    "!ps, !kill [-SIG] ID, !kill-all, !logs ID, !run NAME, !restart ID,\n"
	    "!focus ID, !help, !quit.\n"
	    "C-t (by default) gives the keyboard to the selected job and takes it\n"
	    "back; !help lists every key in force.\n"
	    "`jobdeck ctl COMMAND` runs a command in a running deck "
	    "(jobdeck ctl -h).\n"
	    "`jobdeck run` runs one command to its end without a screen "
	    "(jobdeck run -h).\n"
	    "`jobdeck up [JOB ...]` runs the configured jobs (or the named "
	    "ones and\n"
	    "what they depend on) without a screen: their output as "
	    "prefixed lines,\n"
	    "-t with times, --no-color; the exit status is the first "
	    "failing job's.\n"
	    "`jobdeck up --stay` stays when its jobs end (or with none) and "
	    "serves its\n"
	    "control socket until `jobdeck ctl quit`, SIGTERM, SIGINT or "
	    "SIGHUP.\n"
	    "See jobdeck(1).\n");
}

/*
 * Raise the soft limit on open files to the hard one: each job holds a pty
 * and a log file, so the usual 1024 would cap a deck at a few hundred jobs.
 */
static void
main_raise_fd_limit(void)
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
main_open_debuglog(const struct store *store, const char *deck)
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
main_sweep_cb(void *arg)
{
	struct main_state	 *ms = arg;
	char			**lost;
	int			  n, i;

	ms->sweep_timer = 0;
	if (ms->sweep == NULL)
		ms->sweep = store_sweep_new(ms->store, loop_wall_ms());
	if (ms->sweep != NULL && store_sweep_step(ms->sweep,
	    MAIN_SWEEP_BUDGET) > 0) {
		ms->sweep_timer = loop_add_timer(ms->loop, MAIN_SWEEP_STEP_MS,
		    main_sweep_cb, ms);
		return;
	}
	if (ms->sweep != NULL) {
		n = store_sweep_lost(ms->sweep, &lost);
		for (i = 0; i < n; i++) {
			debuglog("run %s was lost with its deck", lost[i]);
			free(lost[i]);
		}
		free(lost);
		store_sweep_free(ms->sweep);
		ms->sweep = NULL;
	}
	ms->sweep_timer = loop_add_timer(ms->loop, MAIN_SWEEP_EVERY_MS,
	    main_sweep_cb, ms);
}

/*
 * Open the output store in dir with the configured limits; without it
 * jobs run unlogged, and the deck says why on stderr.
 */
static struct store *
main_open_store(const struct config *cfg, const char *dir,
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
main_up_check(const struct config *cfg, char *const *names, int n,
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

/* Ask the front end, screen or lines, to stop every job and leave. */
static void
main_quit(struct main_state *ms)
{
	if (ms->ui != NULL)
		ui_quit(ms->ui);
	if (ms->up != NULL)
		up_quit(ms->up);
}

/* SIGTERM, SIGHUP and SIGINT: stop every job and leave. */
static void
main_signal_cb(int signo, void *arg)
{
	struct main_state	*ms = arg;

	if (ms->signo == 0)
		ms->signo = signo;
	main_quit(ms);
}

/* A job started: say once why jobs get no cgroup, if they do not. */
static void
main_job_started(struct job *job, void *arg)
{
	struct main_state	*ms = arg;
	const char		*why;

	(void)job;
	if (ms->ui != NULL && (why = cgroup_warning(ms->cg)) != NULL)
		ui_message(ms->ui, why, 0);
}

/*
 * The browser changed: every job started from now on gets its URL while
 * it is ready, and no URL otherwise; then jobs that depend on it are
 * looked at again (they start with the URL).
 */
static void
main_browser_changed(struct browser *b, void *arg)
{
	struct main_state	*ms = arg;

	jobtable_set_env(ms->jt, BROWSER_ENV, browser_state(b) ==
	    BROWSER_READY ? browser_url(b) : NULL);
	jobtable_recheck(ms->jt);
}

/*
 * Make the deck's browser from [browser]; NULL with *cause when it cannot
 * be made (the deck runs without one).
 */
static struct browser *
main_browser_new(struct main_state *ms, const struct config *cfg,
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
	return browser_new(ms->loop, ms->jt, ms->cg, NULL, &spec, cause);
}

/*
 * Keep JOBDECK_CDP_URL and the jobs that depend on the browser in step
 * with it, and give it to the stack.  Subscribed after the front end, so
 * that a change is told ("CDP Ready") before the jobs it starts.
 */
static void
main_browser_follow(struct main_state *ms)
{
	static const struct browser_cbs main_browser_cbs = {
		.changed = main_browser_changed,
	};

	if (ms->browser == NULL)
		return;
	browser_subscribe(ms->browser, &main_browser_cbs, ms);
	stack_set_browser(ms->stack, ms->browser);
}

/*
 * Say why the browser is not there or did not start: on the screen, or on
 * stderr for jobdeck up.
 */
static void
main_browser_warn(struct main_state *ms, const char *cause)
{
	char	*msg;

	msg = xprintf("browser: %s", cause);
	if (ms->ui != NULL)
		ui_message(ms->ui, msg, 1);
	else
		fprintf(stderr, "jobdeck up: %s\n", msg);
	free(msg);
}

/* Return whether the environment variable name is set to a true value. */
static int
main_env_flag(const char *name)
{
	const char	*v = getenv(name);

	return v != NULL && *v != '\0' && *v != '0';
}

/* `quit` through the control socket: as !quit. */
static void
main_ctl_quit(void *arg)
{
	main_quit(arg);
}

/* `focus ID` through the control socket: as !focus. */
static void
main_ctl_focus(struct job *job, void *arg)
{
	struct main_state	*ms = arg;

	if (ms->ui != NULL)
		ui_focus_job(ms->ui, job);
}

/* Run jobdeck. */
int
main(int argc, char **argv)
{
	static const struct ctl_cbs main_ctl_cbs = {
		.quit = main_ctl_quit,
		.focus = main_ctl_focus,
	};
	static const struct jobtable_cbs main_jobtable_cbs = {
		.started = main_job_started,
	};
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "check-config", no_argument, NULL, 'C' },
		{ "help-config", no_argument, NULL, 'H' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "port-base", required_argument, NULL, 'P' },
		{ "no-color", no_argument, NULL, 'N' },
		{ "stay", no_argument, NULL, 'Y' },
		{ NULL, 0, NULL, 0 }
	};
	struct main_state	 ms;
	struct loop		*loop;
	struct session		*session;
	struct jobtable		*jt;
	struct ui_opts		 opts;
	struct up_opts		 uopts;
	struct config		*cfg = NULL;
	char			*cause = NULL, *log_dir, *text;
	const char		*config = NULL, *deck = "default";
	struct ctl		*ctl;
	struct cmd_ctx		 ctx;
	char			*end, *browser_cause = NULL, *sh_cause = NULL;
	long			 port_base = 0;
	int			 ch, i, procfile = 0, check = 0, verbose = 0;
	int			 headless = 0, status, start_failed = 0;

	memset(&ms, 0, sizeof ms);
	/* Subcommands with front ends of their own. */
	if (argc > 1 && strcmp(argv[1], "run") == 0)
		return run_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "ctl") == 0)
		return ctl_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "mcp") == 0)
		return mcp_main(argc - 1, argv + 1);

	/* jobdeck up: the same deck, its lines instead of a screen. */
	memset(&uopts, 0, sizeof uopts);
	uopts.colour = -1;
	if (argc > 1 && strcmp(argv[1], "up") == 0) {
		headless = 1;
		argc--;
		argv++;
	}

	setlocale(LC_ALL, "");
	while ((ch = getopt_long(argc, argv, headless ? "+c:f:hS:tvV" :
	    "+c:f:hS:vV", longopts, NULL)) != -1) {
		switch (ch) {
		case 'c':
		case 'f':
			if (config != NULL) {
				fprintf(stderr, "jobdeck: -c and -f name one "
				    "file between them\n");
				return 2;
			}
			config = optarg;
			procfile = ch == 'f';
			break;
		case 'C':
			check = 1;
			break;
		case 'S':
			deck = optarg;
			break;
		case 'v':
			verbose = 1;
			break;
		case 't':
			uopts.timestamps = 1;
			break;
		case 'N':
			if (!headless) {
				fprintf(stderr, "jobdeck: --no-color is for "
				    "jobdeck up\n");
				return 2;
			}
			uopts.colour = 0;
			break;
		case 'Y':
			if (!headless) {
				fprintf(stderr, "jobdeck: --stay is for "
				    "jobdeck up\n");
				return 2;
			}
			uopts.stay = 1;
			break;
		case 'P':
			errno = 0;
			port_base = strtol(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' || errno != 0 ||
			    port_base < 1 || port_base > 65535) {
				fprintf(stderr, "jobdeck: --port-base wants a "
				    "port, 1 to 65535: %s\n", optarg);
				return 2;
			}
			break;
		case 'H':
			text = config_help_text();
			fputs(text, stdout);
			free(text);
			return 0;
		case 'h':
			main_help();
			return 0;
		case 'V':
			printf("jobdeck %s\n", JOBDECK_VERSION);
			return 0;
		default:
			main_usage(stderr);
			return 2;
		}
	}
	if (config_load(config, procfile, &cfg, &cause) != 0) {
		fprintf(stderr, "jobdeck: %s\n", cause);
		free(cause);
		return 2;
	}
	if (port_base != 0)
		config_set_port_base(cfg, (int)port_base);
	if (check) {
		printf("%s: ok, %zu job%s\n", cfg->path != NULL ? cfg->path :
		    "no configuration file", cfg->njobs,
		    cfg->njobs == 1 ? "" : "s");
		config_free(cfg);
		return 0;
	}
	/* A deck that stays may start with nothing to run. */
	if (headless && !uopts.stay && main_up_check(cfg, argv + optind,
	    argc - optind, &cause) != 0) {
		fprintf(stderr, "jobdeck up: %s\n", cause);
		free(cause);
		config_free(cfg);
		return 2;
	}
	/* A deck of that name may run: say so before the screen is taken. */
	if ((ctl = ctl_listen(deck, &cause)) == NULL) {
		fprintf(stderr, "jobdeck: %s\n", cause);
		free(cause);
		config_free(cfg);
		return 2;
	}

	/* Orphaned descendants of our jobs come to us, so none escapes. */
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
	main_raise_fd_limit();
	/* Every job in a cgroup where we may; what dead decks left goes. */
	ms.cg = cgroup_new(cgroup_env_flags());
	cgroup_sweep(ms.cg);

	loop = loop_new();
	loop_watch_signal(loop, SIGTERM, main_signal_cb, &ms);
	loop_watch_signal(loop, SIGHUP, main_signal_cb, &ms);
	loop_watch_signal(loop, SIGINT, main_signal_cb, &ms);
	session = session_new(environ);
	jt = jobtable_new(loop);
	jobtable_set_grace(jt, (int)(cfg->settings.kill_timeout * 1000));
	jobtable_set_max_running(jt, cfg->settings.max_running);
	jobtable_set_keep_finished(jt, cfg->settings.keep_finished);
	jobtable_set_cgroup(jt, ms.cg);
	jobtable_subscribe(jt, &main_jobtable_cbs, &ms);
	ms.jt = jt;
	log_dir = cfg->settings.log_dir != NULL ?
	    xstrdup(cfg->settings.log_dir) : store_default_dir();
	ms.loop = loop;
	ms.store = main_open_store(cfg, log_dir, jt);
	jobtable_set_store(jt, ms.store);
	if (ms.store != NULL)
		ms.sweep_timer = loop_add_timer(loop, 0, main_sweep_cb, &ms);
	if (verbose)
		main_open_debuglog(ms.store, deck);
	jobtable_set_scrollback(jt, cfg->settings.scrollback);
	jobtable_set_no_pty(jt, main_env_flag("JOBDECK_NO_PTY"));
	ms.stack = stack_new(loop, jt, cfg, session, NULL);
	/* The session shell; without it cd, export and unset are built in. */
	if (!main_env_flag("JOBDECK_NO_SESSION_SHELL"))
		ms.sessionsh = sessionsh_new(loop, jt, ms.cg, session, 0,
		    &sh_cause);
	/*
	 * The browser: started below, before the jobs, and any failure said
	 * once there is a face to say it on.
	 */
	ms.browser = main_browser_new(&ms, cfg, &browser_cause);
	memset(&opts, 0, sizeof opts);
	opts.config = cfg;
	opts.stack = ms.stack;
	opts.browser = ms.browser;
	opts.sessionsh = ms.sessionsh;
	uopts.browser = ms.browser;
	/* One set of bindings: the prompt's, and !help's over ctl. */
	ms.bind = bind_new();
	config_apply_keys(cfg, ms.bind);
	opts.bind = ms.bind;
	uopts.deck = deck;
	if (headless)
		ms.up = up_new(loop, jt, ms.stack, &uopts);
	else
		ms.ui = ui_new(loop, jt, session, &opts, &cause);
	if (ms.ui == NULL && ms.up == NULL) {
		fprintf(stderr, "jobdeck: %s\n", cause);
		free(cause);
		free(browser_cause);
		ctl_free(ctl);
		browser_free(ms.browser);
		stack_free(ms.stack);
		sessionsh_free(ms.sessionsh);
		free(sh_cause);
		jobtable_free(jt);
		cgroup_free(ms.cg);
		store_sweep_free(ms.sweep);
		store_free(ms.store);
		session_free(session);
		loop_free(loop);
		bind_free(ms.bind);
		free(log_dir);
		config_free(cfg);
		return 1;
	}
	memset(&ctx, 0, sizeof ctx);
	ctx.jt = jt;
	ctx.session = session;
	ctx.config = cfg;
	ctx.bind = ms.bind;
	ctx.stack = ms.stack;
	ctx.browser = ms.browser;
	ctx.sessionsh = ms.sessionsh;
	main_browser_follow(&ms);
	ctl_start(ctl, loop, &ctx, &main_ctl_cbs, &ms);
	/* The browser first, so that it shows Starting… at once. */
	if (browser_cause != NULL) {
		main_browser_warn(&ms, browser_cause);
		free(browser_cause);
	} else if (cfg->browser.cdp_url != NULL &&
	    browser_start(ms.browser, &cause) != 0) {
		main_browser_warn(&ms, cause);
		free(cause);
		cause = NULL;
	}
	if (sh_cause != NULL) {
		cause = xprintf("no session shell (cd, export and unset are "
		    "built in): %s", sh_cause);
		if (ms.ui != NULL)
			ui_message(ms.ui, cause, 1);
		else
			fprintf(stderr, "jobdeck: %s\n", cause);
		free(cause);
		free(sh_cause);
		cause = NULL;
	}
	/* The configured jobs (up: the named ones), then typed commands. */
	if (ms.ui != NULL)
		ui_start_stack(ms.ui);
	else if (stack_start_all(ms.stack, optind < argc ? argv + optind :
	    NULL, argc - optind, &cause) != 0) {
		/* A stack that cannot start whole does not run. */
		fprintf(stderr, "jobdeck up: %s\n", cause);
		start_failed = 1;
		jobtable_kill_all(jt);
		free(cause);
		cause = NULL;
	}
	for (i = optind; !headless && i < argc; i++)
		ui_start_job(ms.ui, argv[i]);
	if (ms.signo != 0)
		main_quit(&ms);

	loop_run(loop);

	/* up: the first failure's, else the signal's; a failed start: 2. */
	status = headless ? up_status(ms.up) : 0;
	if (status == 0 && ms.signo != 0)
		status = 128 + ms.signo;
	if (start_failed)
		status = 2;
	ctl_free(ctl);
	/* The jobs have stopped: now the browser, while its faces listen. */
	browser_free(ms.browser);
	ui_free(ms.ui);
	up_free(ms.up);
	stack_free(ms.stack);
	sessionsh_free(ms.sessionsh);
	cgroup_kill_all(ms.cg);
	jobtable_kill_strays();
	jobtable_free(jt);
	cgroup_free(ms.cg);
	store_sweep_free(ms.sweep);
	store_free(ms.store);
	session_free(session);
	loop_free(loop);
	bind_free(ms.bind);
	debuglog("deck %s ends (signal %d)", deck, ms.signo);
	debuglog_close();
	free(log_dir);
	config_free(cfg);
	return status;
}

/*
 * main.c: jobdeck's command line.  The subcommands (up, ctl, ls, run,
 * mcp) are a table; the deck's options and jobdeck up's are one table of
 * struct cliopt (cliopt.h) from which the usage and help are made.  The deck
 * itself is deck.c: main only parses, loads the configuration and runs
 * deck_new(), deck_run() and deck_free().
 */
#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bind.h"
#include "client.h"
#include "cliopt.h"
#include "cmd.h"
#include "config.h"
#include "ctl.h"
#include "daemon.h"
#include "deck.h"
#include "ls.h"
#include "mcp.h"
#include "run.h"
#include "xmalloc.h"

/* A subcommand with a front end of its own; argv[0] is its name. */
struct main_command {
	const char	*name;
	int		(*main)(int, char **);
	void		(*usage)(FILE *, const char *);
};

static int	main_up(int, char **);
static void	main_up_usage(FILE *, const char *);

static const struct main_command main_commands[] = {
	{ "up", main_up, main_up_usage },
	{ "ctl", ctl_main, ctl_usage },
	{ "ls", ls_main, ls_usage },
	{ "run", run_main, run_usage },
	{ "mcp", mcp_main, mcp_usage },
	{ "attach", client_attach_main, client_attach_usage },
	{ "kill-deck", client_kill_main, client_kill_usage },
};

/* The options of the deck; MAIN_UP marks those of jobdeck up alone. */
#define MAIN_UP		0x100
enum main_option {
	MAIN_OPT_CONFIG,
	MAIN_OPT_PROCFILE,
	MAIN_OPT_DECK,
	MAIN_OPT_DETACHED,
	MAIN_OPT_TIMES,
	MAIN_OPT_NO_COLOR,
	MAIN_OPT_PORT_BASE,
	MAIN_OPT_STAY,
	MAIN_OPT_VERBOSE,
	MAIN_OPT_CHECK,
	MAIN_OPT_HELP_CONFIG,
	MAIN_OPT_HELP,
	MAIN_OPT_VERSION,
};
static const struct cliopt main_options[] = {
	[MAIN_OPT_CONFIG] = { NULL, 'c', "FILE",
	    "configuration file (TOML, or a Procfile by name;\n"
	    "default $XDG_CONFIG_HOME/jobdeck/config.toml)", 0 },
	[MAIN_OPT_PROCFILE] = { NULL, 'f', "PROCFILE",
	    "read jobs from a Procfile (name: command lines)", 0 },
	[MAIN_OPT_DECK] = { NULL, 'S', "NAME",
	    "the deck's name, for its control socket (default:\ndefault)", 0 },
	[MAIN_OPT_DETACHED] = { "detached", 'd', NULL,
	    "start the deck in the background and return once\nit listens "
	    "(print its name); jobdeck attach shows it", 0 },
	[MAIN_OPT_TIMES] = { NULL, 't', NULL,
	    "up: prefix each line with the time", MAIN_UP },
	[MAIN_OPT_NO_COLOR] = { "no-color", 0, NULL,
	    "up: no colour in the lines", MAIN_UP },
	[MAIN_OPT_PORT_BASE] = { "port-base", 0, "N",
	    "a Procfile's first $PORT (default 5000)", 0 },
	[MAIN_OPT_STAY] = { "stay", 0, NULL,
	    "up: stay when the jobs end (or with none) and\nserve the "
	    "control socket until quit", MAIN_UP },
	[MAIN_OPT_VERBOSE] = { "verbose", 'v', NULL,
	    "write a debug log (draws, the control socket,\njobs) to "
	    "debug-NAME.log in the log directory", 0 },
	[MAIN_OPT_CHECK] = { "check-config", 0, NULL,
	    "check the configuration and exit", 0 },
	[MAIN_OPT_HELP_CONFIG] = { "help-config", 0, NULL,
	    "list every configuration option and exit", 0 },
	[MAIN_OPT_HELP] = { "help", 'h', NULL, "show this help", 0 },
	[MAIN_OPT_VERSION] = { "version", 'V', NULL, "show the version", 0 },
};
#define MAIN_NOPTIONS	CLIOPT_COUNT(main_options)

/* What the command line asks of a deck, before its configuration loads. */
struct main_args {
	const char		*config;
	int			 procfile;
	long			 port_base;
	int			 check;
	int			 detached;	/* -d */
	struct deck_opts	 deck;
};

/* Print the usage lines of jobdeck and its subcommands to f. */
static void
main_usage(FILE *f)
{
	size_t	i;

	cliopt_usage(f, "usage:", "jobdeck", main_options, MAIN_NOPTIONS, 0,
	    "[--] [COMMAND ...]");
	for (i = 0; i < CLIOPT_COUNT(main_commands); i++)
		main_commands[i].usage(f, "      ");
}

/* Print jobdeck up's usage line to f after lead. */
static void
main_up_usage(FILE *f, const char *lead)
{
	cliopt_usage(f, lead, "jobdeck up", main_options, MAIN_NOPTIONS,
	    MAIN_UP, "[JOB ...]");
}

/* Print the help text. */
static void
main_help(void)
{
	main_usage(stdout);
	printf("\n"
	    "A terminal UI that runs each COMMAND (a shell string) as a job on its\n"
	    "own pseudo-terminal and shows its live output beside a panel of jobs.\n"
	    "\n");
	cliopt_help(stdout, main_options, MAIN_NOPTIONS, MAIN_UP);
	printf("\n"
	    "At the > prompt: a command starts a job; cd, export and unset persist;\n"
	    "!ps, !kill [-SIG] ID, !kill-all, !logs ID, !run NAME, !restart ID,\n"
	    "!focus ID, !help, !quit.\n"
	    "C-t (by default) gives the keyboard to the selected job and takes it\n"
	    "back; !help lists every key in force.\n"
	    "The deck runs in the background: C-\\ or !detach leaves it running,\n"
	    "`jobdeck attach` shows it again (-r: only to look), -d starts it\n"
	    "detached, `jobdeck ls` lists the decks, `jobdeck kill-deck` ends one.\n"
	    "`jobdeck ctl COMMAND` runs a command in a running deck "
	    "(jobdeck ctl -h).\n"
	    "`jobdeck ls` lists the running decks (jobdeck ls -h).\n"
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
 * Take one option of row i with its value into a; -1 to go on, else the
 * exit status (help or version printed, or an error said).
 */
static int
main_option(struct main_args *a, int i, const char *value)
{
	char	*end, *text;

	if (i >= 0 && (main_options[i].flags & MAIN_UP) && !a->deck.headless) {
		if (main_options[i].name != NULL)
			fprintf(stderr, "jobdeck: --%s is for jobdeck up\n",
			    main_options[i].name);
		else
			fprintf(stderr, "jobdeck: -%c is for jobdeck up\n",
			    main_options[i].ch);
		return 2;
	}
	switch (i) {
	case MAIN_OPT_CONFIG:
	case MAIN_OPT_PROCFILE:
		if (a->config != NULL) {
			fprintf(stderr, "jobdeck: -c and -f name one file "
			    "between them\n");
			return 2;
		}
		a->config = value;
		a->procfile = i == MAIN_OPT_PROCFILE;
		return -1;
	case MAIN_OPT_DECK:
		a->deck.name = value;
		return -1;
	case MAIN_OPT_DETACHED:
		a->detached = 1;
		return -1;
	case MAIN_OPT_TIMES:
		a->deck.up.timestamps = 1;
		return -1;
	case MAIN_OPT_NO_COLOR:
		a->deck.up.colour = 0;
		return -1;
	case MAIN_OPT_PORT_BASE:
		errno = 0;
		a->port_base = strtol(value, &end, 10);
		if (*value == '\0' || *end != '\0' || errno != 0 ||
		    a->port_base < 1 || a->port_base > 65535) {
			fprintf(stderr, "jobdeck: --port-base wants a port, 1 "
			    "to 65535: %s\n", value);
			return 2;
		}
		return -1;
	case MAIN_OPT_STAY:
		a->deck.up.stay = 1;
		return -1;
	case MAIN_OPT_VERBOSE:
		a->deck.verbose = 1;
		return -1;
	case MAIN_OPT_CHECK:
		a->check = 1;
		return -1;
	case MAIN_OPT_HELP_CONFIG:
		text = config_help_text();
		fputs(text, stdout);
		free(text);
		return 0;
	case MAIN_OPT_HELP:
		main_help();
		return 0;
	case MAIN_OPT_VERSION:
		printf("jobdeck %s\n", JOBDECK_VERSION);
		return 0;
	}
	main_usage(stderr);
	return 2;
}

/* Parse the deck's command line into a; -1 to go on, else the exit status. */
static int
main_parse(int argc, char **argv, struct main_args *a)
{
	struct cliopt_parser	p;
	int			i, rc = -1;

	cliopt_begin(&p, a->deck.headless ? "jobdeck up" : "jobdeck",
	    main_options, MAIN_NOPTIONS);
	while (rc == -1 && (i = cliopt_next(&p, argc, argv)) != -1)
		rc = main_option(a, i, p.value);
	cliopt_end(&p);
	a->deck.words = argv + p.first;
	a->deck.nwords = argc - p.first;
	return rc;
}

/*
 * The deck as a server: attach to the deck of that name if it runs
 * (bringing the commands given), else start it in the background and,
 * unless -d, attach to it.  Returns the exit status.
 */
static int
main_serve(struct main_args *a, struct config *cfg)
{
	struct client_opts	o;
	char			*said = NULL;
	int			rc, rc2, started;

	memset(&o, 0, sizeof o);
	o.name = a->deck.name;
	if (!a->detached) {
		if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
			fprintf(stderr, "jobdeck: stdin and stdout must be a "
			    "terminal (start it in the background with -d, or "
			    "use jobdeck up)\n");
			config_free(cfg);
			return 1;
		}
		o.config = a->config;
		o.starts = a->deck.words;
		o.nstarts = a->deck.nwords;
		o.quiet_absent = 1;
		if ((rc = client_attach(&o)) != -1) {
			config_free(cfg);
			return rc;
		}
	}
	if (!a->detached && client_term_known(&said) != 0) {
		fprintf(stderr, "jobdeck: %s\n", said);
		free(said);
		config_free(cfg);
		return 2;
	}
	a->deck.serve = 1;
	/* The deck has its copy; the starter's is its own to free. */
	started = daemon_start(cfg, &a->deck, &rc, &said) == 0;
	config_free(cfg);
	/* Another jobdeck started it first: attach to that one instead. */
	if (!started && !a->detached && (rc2 = client_attach(&o)) != -1) {
		free(said);
		return rc2;
	}
	fputs(said, stderr);
	free(said);
	if (!started)
		return rc;
	if (a->detached) {
		printf("%s\n", a->deck.name);
		return 0;
	}
	o.starts = NULL;
	o.nstarts = 0;
	o.config = NULL;
	o.quiet_absent = 0;
	return client_attach(&o);
}

/*
 * Run a deck from its command line: the screen, or jobdeck up's lines
 * when headless.  Returns the exit status.
 */
static int
main_deck(int argc, char **argv, int headless)
{
	struct main_args	 a;
	struct config		*cfg = NULL;
	struct deck		*d;
	char			*cause = NULL;
	int			 rc;

	memset(&a, 0, sizeof a);
	a.deck.name = "default";
	a.deck.headless = headless;
	a.deck.up.colour = -1;
	setlocale(LC_ALL, "");
	if ((rc = main_parse(argc, argv, &a)) != -1)
		return rc;
	if (config_load(a.config, a.procfile, &cfg, &cause) != 0) {
		fprintf(stderr, "jobdeck: %s\n", cause);
		free(cause);
		return 2;
	}
	if (a.port_base != 0)
		config_set_port_base(cfg, (int)a.port_base);
	if (a.check) {
		printf("%s: ok, %zu job%s\n", cfg->path != NULL ? cfg->path :
		    "no configuration file", cfg->njobs,
		    cfg->njobs == 1 ? "" : "s");
		config_free(cfg);
		return 0;
	}
	if (!headless || a.detached)
		return main_serve(&a, cfg);
	if ((d = deck_new(cfg, &a.deck, &cause, &rc)) == NULL) {
		fprintf(stderr, "%s\n", cause);
		free(cause);
		return rc;
	}
	rc = deck_run(d);
	deck_free(d);
	return rc;
}

/* jobdeck up: the same deck, its lines instead of a screen. */
static int
main_up(int argc, char **argv)
{
	return main_deck(argc, argv, 1);
}

/* Run jobdeck: a subcommand of the table, else the deck. */
int
main(int argc, char **argv)
{
	size_t	i;

	/* A key may run any command: [keys] is checked against them. */
	bind_set_commands(&cmd_bind_commands);
	for (i = 0; argc > 1 && i < CLIOPT_COUNT(main_commands); i++) {
		if (strcmp(argv[1], main_commands[i].name) == 0)
			return main_commands[i].main(argc - 1, argv + 1);
	}
	return main_deck(argc, argv, 0);
}

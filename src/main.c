/*
 * main.c: jobdeck's options, wiring and the order of setup and teardown.
 * The loop comes first (it owns signal delivery), then the session, the job
 * table and the front end; jobs named on the command line start last.  On
 * the way out every job is stopped before the terminal is given back, and
 * anything still parented to jobdeck is killed and reaped.
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
#include <unistd.h>

#include "jobtable.h"
#include "joblog.h"
#include "loop.h"
#include "session.h"
#include "ui.h"
#include "xmalloc.h"

extern char **environ;

/* What main needs from the signal callbacks. */
struct main_state {
	struct ui	*ui;
	int		 signo;		/* the signal that asked us to leave */
};

/* Print the usage line to f. */
static void
main_usage(FILE *f)
{
	fprintf(f, "usage: jobdeck [-c FILE] [-h] [-V] [--] [COMMAND ...]\n");
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
	    "  -c FILE   configuration file (/dev/null: none)\n"
	    "  -h        show this help\n"
	    "  -V        show the version\n"
	    "\n"
	    "At the > prompt: a command starts a job; cd, export and unset persist;\n"
	    "!ps, !kill [-SIG] ID, !kill-all, !logs ID, !focus ID, !help, !quit.\n"
	    "Ctrl+T gives the keyboard to the selected job and takes it back.\n"
	    "See jobdeck(1).\n");
}

/*
 * Check the -c file: until configuration lands, only a file with nothing
 * but blank lines and comments is accepted.  Returns 0, or -1 after saying
 * why.
 */
static int
main_check_config(const char *path)
{
	FILE	*f;
	char	 line[4096];
	int	 lineno = 0;
	size_t	 skip;

	f = fopen(path, "re");
	if (f == NULL) {
		fprintf(stderr, "jobdeck: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof line, f) != NULL) {
		lineno++;
		skip = strspn(line, " \t\r\n");
		if (line[skip] != '\0' && line[skip] != '#') {
			fprintf(stderr, "jobdeck: %s:%d:%zu: configuration "
			    "settings are not supported yet (use an empty file "
			    "or -c /dev/null)\n", path, lineno, skip + 1);
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	return 0;
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

/* SIGTERM, SIGHUP and SIGINT: stop every job and leave. */
static void
main_signal_cb(int signo, void *arg)
{
	struct main_state	*ms = arg;

	if (ms->signo == 0)
		ms->signo = signo;
	if (ms->ui != NULL)
		ui_quit(ms->ui);
}

/* Run jobdeck. */
int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct main_state	 ms = { NULL, 0 };
	struct loop		*loop;
	struct session		*session;
	struct jobtable		*jt;
	struct ui_opts		 opts;
	char			*cause = NULL, *log_dir;
	const char		*config = NULL, *no_pty;
	int			 ch, i;

	setlocale(LC_ALL, "");
	while ((ch = getopt_long(argc, argv, "+c:hV", longopts, NULL)) != -1) {
		switch (ch) {
		case 'c':
			config = optarg;
			break;
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
	if (config != NULL && main_check_config(config) != 0)
		return 2;

	/* Orphaned descendants of our jobs come to us, so none escapes. */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == -1)
		fprintf(stderr, "jobdeck: cannot become a subreaper: %s\n",
		    strerror(errno));
	signal(SIGPIPE, SIG_IGN);
	main_raise_fd_limit();

	loop = loop_new();
	loop_watch_signal(loop, SIGTERM, main_signal_cb, &ms);
	loop_watch_signal(loop, SIGHUP, main_signal_cb, &ms);
	loop_watch_signal(loop, SIGINT, main_signal_cb, &ms);
	session = session_new(environ);
	jt = jobtable_new(loop);
	log_dir = joblog_default_dir();

	memset(&opts, 0, sizeof opts);
	opts.log_dir = log_dir;
	opts.scrollback = 10000;
	no_pty = getenv("JOBDECK_NO_PTY");
	opts.no_pty = no_pty != NULL && *no_pty != '\0' && *no_pty != '0';
	ms.ui = ui_new(loop, jt, session, &opts, &cause);
	if (ms.ui == NULL) {
		fprintf(stderr, "jobdeck: %s\n", cause);
		free(cause);
		jobtable_free(jt);
		session_free(session);
		loop_free(loop);
		free(log_dir);
		return 1;
	}
	for (i = optind; i < argc; i++)
		ui_start_job(ms.ui, argv[i]);
	if (ms.signo != 0)
		ui_quit(ms.ui);

	loop_run(loop);

	ui_free(ms.ui);
	jobtable_kill_strays();
	jobtable_free(jt);
	session_free(session);
	loop_free(loop);
	free(log_dir);
	return ms.signo != 0 ? 128 + ms.signo : 0;
}

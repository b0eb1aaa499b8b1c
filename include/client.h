/*
 * client: a terminal attached to a running deck (`jobdeck`, `jobdeck
 * attach`).  The client is thin: it connects to the deck's socket
 * (NAME.ro for a read-only client), passes its terminal's input and
 * output fds with the request (SCM_RIGHTS) and its TERM, COLORTERM,
 * LC_CTYPE and cwd, and then only waits (the deck sets the terminal's
 * mode and gives it back; the client restores it itself only when the
 * deck could not): the deck reads keys from and draws to the terminal
 * itself.  Signals are relayed on the connection (server.h): SIGWINCH as
 * "resize", SIGHUP, SIGTERM and SIGINT as "detach", SIGTSTP as
 * "suspend" (the client stops once the deck gave the terminal back, and
 * says "resume" when continued).  The deck's exit line ends it: its text
 * is printed after the terminal's mode is restored, and its status is the
 * client's.
 *
 * client_attach() never exits; it returns the exit status: the deck's
 * (0 detached, 0 the deck quit), 1 the connection was lost, 2 no deck or
 * the attach was refused (the reason on stderr).
 */
#ifndef JOBDECK_CLIENT_H
#define JOBDECK_CLIENT_H

#include <stdio.h>

/* What to attach to and what to bring. */
struct client_opts {
	const char	 *name;		/* the deck (-S) */
	const char	 *host;		/* -H: an ssh destination, or NULL */
	int		  read_only;	/* -r: NAME.ro */
	const char	 *config;	/* the config asked for, or NULL */
	char *const	 *starts;	/* commands to start there */
	int		  nstarts;
	int		  quiet_absent;	/* no deck: return -1, say nothing */
};

int	client_attach(const struct client_opts *);
int	client_term_known(char **cause);
int	client_attach_main(int argc, char **argv);
void	client_attach_usage(FILE *, const char *lead);
int	client_kill_main(int argc, char **argv);
void	client_kill_usage(FILE *, const char *lead);

#endif

/*
 * client.c: a terminal attached to a running deck (include/client.h), and
 * `jobdeck attach` and `jobdeck kill-deck` around it; with -H DEST both
 * run on ssh destination DEST instead (remote.h).
 */
#include <sys/socket.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include <curses.h>
#include <term.h>

#include "cliopt.h"
#include "client.h"
#include "ctl.h"
#include "ctlconn.h"
#include "remote.h"
#include "xmalloc.h"

#define CLIENT_LINE_MAX	1024	/* a line from the deck */
#define CLIENT_ATTACH	0x100	/* cliopt modes: attach's options */
#define CLIENT_KILL	0x200	/* ... kill-deck's */
/* What a terminal the deck could not finish writing to is told. */
#define CLIENT_RESET	"\033[?1006l\033[?1002l\033[?2004l\033[?1049l" \
			"\033[?25h\033[0m\r\n"

/* The signals relayed, and the self-pipe their handler writes. */
static const int client_signals[] = { SIGWINCH, SIGHUP, SIGTERM, SIGINT,
    SIGTSTP, SIGCONT };
static int	client_pipe[2] = { -1, -1 };

/*
 * One attached client: its connection, and the terminal's mode before it
 * attached (the deck sets and gives back the mode; the client puts it
 * back itself only when the deck could not: lost, or killed).
 */
struct client {
	int		 sock;
	struct termios	 saved;
	char		 line[CLIENT_LINE_MAX];
	size_t		 len;
	int		 detaching;	/* "detach" sent */
};

/* A relayed signal: its number to the self-pipe, nothing else. */
static void
client_signal(int signo)
{
	unsigned char	c = (unsigned char)signo;
	int		saved = errno;

	(void)write(client_pipe[1], &c, 1);
	errno = saved;
}

/* Give the terminal the mode it had before the attach. */
static void
client_cooked(struct client *cl)
{
	tcsetattr(STDIN_FILENO, TCSANOW, &cl->saved);
}

/* Send a line to the deck; a failure shows as the connection's end. */
static void
client_send(struct client *cl, const char *line)
{
	if (send(cl->sock, line, strlen(line), MSG_NOSIGNAL) == -1 &&
	    errno != EPIPE)
		fprintf(stderr, "jobdeck: %s\n", strerror(errno));
}

/* Install the relay of every signal of client_signals[]. */
static int
client_signals_start(void)
{
	struct sigaction	sa;
	size_t			i;

	if (pipe2(client_pipe, O_CLOEXEC | O_NONBLOCK) == -1)
		return -1;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = client_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	for (i = 0; i < sizeof client_signals / sizeof client_signals[0]; i++)
		sigaction(client_signals[i], &sa, NULL);
	return 0;
}

/* Stop until continued: the deck has given the terminal back. */
static void
client_stop(struct client *cl)
{
	struct sigaction	sa, old;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTSTP, &sa, &old);
	raise(SIGTSTP);
	sigaction(SIGTSTP, &old, NULL);
	/* Continued: the deck takes the terminal again, drawn anew. */
	client_send(cl, "resume\n");
}

/* Act on a relayed signal. */
static void
client_on_signal(struct client *cl, int signo)
{
	switch (signo) {
	case SIGWINCH:
	case SIGCONT:
		client_send(cl, "resize\n");
		break;
	case SIGTSTP:
		client_send(cl, "suspend\n");
		break;
	default:
		if (!cl->detaching)
			client_send(cl, "detach\n");
		cl->detaching = 1;
		break;
	}
}

/*
 * A line from the deck: "\036suspended" (stop now), or the exit line
 * ("\036exit N TEXT", "\036exit-unflushed N TEXT"): returns the status
 * with the terminal restored and TEXT printed; -1 to go on.
 */
static int
client_line(struct client *cl, const char *line)
{
	const char	*rest;
	char		*end;
	long		 code;
	int		 unflushed;

	if (line[0] != CTL_CONTROL)
		return -1;
	line++;
	if (strcmp(line, "suspended") == 0) {
		client_stop(cl);
		return -1;
	}
	unflushed = strncmp(line, "exit-unflushed ", 15) == 0;
	if (!unflushed && strncmp(line, "exit ", 5) != 0)
		return -1;
	rest = line + (unflushed ? 15 : 5);
	code = strtol(rest, &end, 10);
	if (end == rest || code < 0 || code > 255)
		code = 1;
	if (*end == ' ')
		end++;
	if (unflushed) {
		client_cooked(cl);
		(void)write(STDOUT_FILENO, CLIENT_RESET, strlen(CLIENT_RESET));
	}
	if (*end != '\0')
		printf("%s\n", end);
	fflush(stdout);
	return (int)code;
}

/* Read what the deck sent; the status once it said exit, else -1. */
static int
client_read(struct client *cl, const char *name)
{
	char	buf[512];
	ssize_t	n, i;
	int	rc;

	n = read(cl->sock, buf, sizeof buf);
	if (n == -1 && (errno == EINTR || errno == EAGAIN))
		return -1;
	if (n <= 0) {
		client_cooked(cl);
		(void)write(STDOUT_FILENO, CLIENT_RESET, strlen(CLIENT_RESET));
		printf("[lost the deck %s]\n", name);
		return 1;
	}
	for (i = 0; i < n; i++) {
		if (buf[i] != '\n') {
			if (cl->len < sizeof cl->line - 1)
				cl->line[cl->len++] = buf[i];
			continue;
		}
		cl->line[cl->len] = '\0';
		cl->len = 0;
		if ((rc = client_line(cl, cl->line)) != -1)
			return rc;
	}
	return -1;
}

/*
 * Return 0 when this terminal's TERM has a terminfo entry here, which the
 * deck needs to draw it; else -1 with *cause.
 */
int
client_term_known(char **cause)
{
	const char	*term = getenv("TERM");
	int		 err;

	if (term != NULL && *term != '\0' &&
	    setupterm(term, STDOUT_FILENO, &err) == OK) {
		del_curterm(cur_term);
		return 0;
	}
	*cause = xprintf("TERM=%s: no terminal description (terminfo) for it "
	    "here (set TERM, or install its entry: ncurses-term has most)",
	    term != NULL ? term : "");
	return -1;
}

/*
 * Read the deck's answer to the attach: "0" (attached) or "2" and the
 * reason, within CTL_ANSWER_TIMEOUT_MS; 0, or the status with the reason
 * said.
 */
static int
client_answer(struct client *cl)
{
	struct pollfd	pfd;
	char		buf[CLIENT_LINE_MAX], *nl;
	size_t		len = 0;
	ssize_t		n;

	pfd.fd = cl->sock;
	pfd.events = POLLIN;
	while (len < sizeof buf - 1) {
		if (poll(&pfd, 1, CTL_ANSWER_TIMEOUT_MS) == 0) {
			fprintf(stderr, "jobdeck: the deck did not answer the "
			    "attach within %d s\n", CTL_ANSWER_TIMEOUT_MS / 1000);
			return 2;
		}
		n = read(cl->sock, buf + len, 1);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (buf[len++] == '\n' && len > 2)
			break;
		if (len == 2 && buf[0] == '0' && buf[1] == '\n')
			return 0;
	}
	buf[len] = '\0';
	if (len >= 2 && buf[0] == '0' && buf[1] == '\n')
		return 0;
	nl = strchr(buf, '\n');
	fprintf(stderr, "jobdeck: %s\n", nl != NULL && nl[1] != '\0' ? nl + 1 :
	    "the deck did not answer the attach");
	return 2;
}

/* Add "key=value" to words when value is set. */
static void
client_word(char **words, int *n, const char *key, const char *value)
{
	if (value != NULL && *value != '\0')
		words[(*n)++] = xprintf("%s=%s", key, value);
}

/*
 * Send the attach request with the terminal's fds (stdin, stdout); 0 or
 * -1 with errno.
 */
static int
client_request(struct client *cl, const struct client_opts *o)
{
	union {
		char		buf[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr	align;
	}		 cm;
	struct msghdr	 msg;
	struct iovec	 iov;
	struct cmsghdr	*h;
	int		 fds[2] = { STDIN_FILENO, STDOUT_FILENO };
	char		**words, cwd[PATH_MAX], *req, *cause = NULL;
	char		 real[PATH_MAX];
	size_t		 len;
	ssize_t		 n;
	int		 nw = 0, i, rc = -1;

	words = xcalloc((size_t)o->nstarts + 8, sizeof *words);
	words[nw++] = xstrdup("attach");
	client_word(words, &nw, "term", getenv("TERM"));
	client_word(words, &nw, "colorterm", getenv("COLORTERM"));
	client_word(words, &nw, "ctype", setlocale(LC_CTYPE, NULL));
	client_word(words, &nw, "cwd", getcwd(cwd, sizeof cwd));
	if (o->config != NULL)
		client_word(words, &nw, "config", realpath(o->config, real) !=
		    NULL ? real : o->config);
	for (i = 0; i < o->nstarts; i++)
		client_word(words, &nw, "start", o->starts[i]);
	req = ctlconn_request(words, 0, &len, &cause);
	for (i = 0; i < nw; i++)
		free(words[i]);
	free(words);
	if (req == NULL) {
		fprintf(stderr, "jobdeck: %s\n", cause);
		free(cause);
		errno = EINVAL;
		return -1;
	}
	iov.iov_base = req;
	iov.iov_len = len;
	memset(&msg, 0, sizeof msg);
	memset(&cm, 0, sizeof cm);
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = cm.buf;
	msg.msg_controllen = sizeof cm.buf;
	h = CMSG_FIRSTHDR(&msg);
	h->cmsg_level = SOL_SOCKET;
	h->cmsg_type = SCM_RIGHTS;
	h->cmsg_len = CMSG_LEN(sizeof fds);
	memcpy(CMSG_DATA(h), fds, sizeof fds);
	do
		n = sendmsg(cl->sock, &msg, MSG_NOSIGNAL);
	while (n == -1 && errno == EINTR);
	if (n == (ssize_t)len)
		rc = 0;
	else if (n >= 0 && send(cl->sock, req + n, len - (size_t)n,
	    MSG_NOSIGNAL) == (ssize_t)(len - (size_t)n))
		rc = 0;
	free(req);
	return rc;
}

/*
 * Connect to the deck's socket (NAME.ro for -r), without waiting: a deck
 * whose backlog is full (it accepts nothing now) is said at once, -2; no
 * deck there is -1 with errno.
 */
static int
client_connect(const struct client_opts *o)
{
	char			*path, *cause = NULL;
	int			 fd, saved;

	if (ctl_socket_path(o->name, o->read_only ? CTL_PATH_READ_ONLY : 0,
	    &path, &cause) != 0) {
		fprintf(stderr, "jobdeck: %s\n", cause);
		free(cause);
		return -2;
	}
	if ((fd = ctl_connect(path, CTL_CONNECT_NOWAIT)) == -1) {
		saved = errno;
		if (saved == EAGAIN) {
			fprintf(stderr, "jobdeck: a deck named %s is running (%s), "
			    "but its socket takes no connection now: try "
			    "again\n", o->name, path);
			free(path);
			return -2;
		}
		free(path);
		errno = saved;
		return -1;
	}
	free(path);
	return fd;
}

/* Wait for the deck's lines and the signals until the exit line. */
static int
client_wait(struct client *cl, const char *name)
{
	struct pollfd	pfd[2];
	unsigned char	sig;
	int		rc;

	pfd[0].fd = cl->sock;
	pfd[0].events = POLLIN;
	pfd[1].fd = client_pipe[0];
	pfd[1].events = POLLIN;
	for (;;) {
		if (poll(pfd, 2, -1) == -1) {
			if (errno == EINTR)
				continue;
			client_cooked(cl);
			fprintf(stderr, "jobdeck: poll: %s\n", strerror(errno));
			return 1;
		}
		while (pfd[1].revents != 0 && read(client_pipe[0], &sig, 1) ==
		    1)
			client_on_signal(cl, sig);
		if (pfd[0].revents != 0 && (rc = client_read(cl, name)) != -1)
			return rc;
	}
}

/*
 * Attach this terminal to the deck o->name; the exit status (client.h).
 * With quiet_absent, no deck there returns -1 and says nothing.
 */
int
client_attach(const struct client_opts *o)
{
	struct client	cl;
	int		rc;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		fprintf(stderr, "jobdeck: attach needs a terminal on stdin and "
		    "stdout\n");
		return 2;
	}
	memset(&cl, 0, sizeof cl);
	if ((cl.sock = client_connect(o)) < 0) {
		if (cl.sock == -2)
			return 2;
		if (o->quiet_absent && (errno == ENOENT ||
		    errno == ECONNREFUSED))
			return -1;
		fprintf(stderr, "jobdeck: no deck named %s is running (%s): "
		    "start one with `jobdeck -S %s`, or see `jobdeck ls`\n",
		    o->name, strerror(errno), o->name);
		return 2;
	}
	if (tcgetattr(STDIN_FILENO, &cl.saved) == -1 ||
	    client_signals_start() == -1) {
		fprintf(stderr, "jobdeck: %s\n", strerror(errno));
		close(cl.sock);
		return 2;
	}
	if (client_request(&cl, o) != 0) {
		fprintf(stderr, "jobdeck: the attach request: %s\n",
		    strerror(errno));
		close(cl.sock);
		return 2;
	}
	if ((rc = client_answer(&cl)) == 0)
		rc = client_wait(&cl, o->name);
	close(cl.sock);
	return rc;
}

enum client_option {
	CLIENT_OPT_DECK,
	CLIENT_OPT_HOST,
	CLIENT_OPT_READ_ONLY,
	CLIENT_OPT_HELP,
};
static const struct cliopt client_options[] = {
	[CLIENT_OPT_DECK] = { NULL, 'S', "NAME",
	    "the deck (default: default)", 0 },
	[CLIENT_OPT_HOST] = { "host", 'H', "DEST",
	    "the deck on ssh destination DEST: the same\ncommand run there "
	    "by jobdeck, through ssh\n(attach: ssh -t)", 0 },
	[CLIENT_OPT_READ_ONLY] = { "read-only", 'r', NULL,
	    "attach: see everything, scroll, search, copy and\nopen logs, "
	    "but type nothing into jobs and run\nno command that changes the "
	    "deck", CLIENT_ATTACH },
	[CLIENT_OPT_HELP] = { "help", 'h', NULL, "show this help",
	    CLIOPT_HIDDEN },
};

/* Print jobdeck attach's usage line to f after lead. */
void
client_attach_usage(FILE *f, const char *lead)
{
	cliopt_usage(f, lead, "jobdeck attach", client_options,
	    CLIOPT_COUNT(client_options), CLIENT_ATTACH, NULL);
}

/* Print jobdeck kill-deck's usage line to f after lead. */
void
client_kill_usage(FILE *f, const char *lead)
{
	cliopt_usage(f, lead, "jobdeck kill-deck", client_options,
	    CLIOPT_COUNT(client_options), CLIENT_KILL, NULL);
}

/*
 * Parse the options of attach (modes CLIENT_ATTACH) or kill-deck (CLIENT_KILL) into
 * o; -1 to go on, else the exit status.
 */
static int
client_parse(int argc, char **argv, unsigned int modes,
    struct client_opts *o)
{
	struct cliopt_parser	p;
	const char		*prog = modes == CLIENT_ATTACH ? "jobdeck attach" :
				    "jobdeck kill-deck";
	int			i, rc = -1;

	memset(o, 0, sizeof *o);
	o->name = "default";
	cliopt_begin(&p, prog, client_options, CLIOPT_COUNT(client_options));
	while (rc == -1 && (i = cliopt_next(&p, argc, argv)) != -1) {
		if (i >= 0 && (client_options[i].flags & CLIOPT_MODES) != 0 &&
		    !(client_options[i].flags & modes)) {
			fprintf(stderr, "%s: -%c is for jobdeck attach\n", prog,
			    client_options[i].ch);
			rc = 2;
		} else if (i == CLIENT_OPT_DECK)
			o->name = p.value;
		else if (i == CLIENT_OPT_HOST)
			o->host = p.value;
		else if (i == CLIENT_OPT_READ_ONLY)
			o->read_only = 1;
		else if (i == CLIENT_OPT_HELP) {
			if (modes == CLIENT_ATTACH)
				client_attach_usage(stdout, "usage:");
			else
				client_kill_usage(stdout, "usage:");
			cliopt_help(stdout, client_options,
			    CLIOPT_COUNT(client_options), modes);
			rc = 0;
		} else {
			(modes == CLIENT_ATTACH ? client_attach_usage :
			    client_kill_usage)(stderr, "usage:");
			rc = 2;
		}
	}
	if (rc == -1 && p.first < argc) {
		fprintf(stderr, "%s: unexpected argument: %s\n", prog,
		    argv[p.first]);
		rc = 2;
	}
	cliopt_end(&p);
	return rc;
}

/*
 * jobdeck attach [-H DEST] [-S NAME] [-r]: this terminal to a running
 * deck, here or (-H) on ssh destination DEST through ssh -t.
 */
int
client_attach_main(int argc, char **argv)
{
	struct client_opts	 o;
	const char		*words[5];
	int			 rc, n = 0;

	setlocale(LC_ALL, "");
	if ((rc = client_parse(argc, argv, CLIENT_ATTACH, &o)) != -1)
		return rc;
	if (o.host != NULL) {
		words[n++] = "attach";
		words[n++] = "-S";
		words[n++] = o.name;
		if (o.read_only)
			words[n++] = "-r";
		words[n] = NULL;
		return remote_exec("jobdeck attach", o.host, words,
		    REMOTE_TTY);
	}
	return client_attach(&o);
}

/*
 * jobdeck kill-deck [-H DEST] [-S NAME]: as `jobdeck ctl [-H DEST] -S NAME
 * quit`.
 */
int
client_kill_main(int argc, char **argv)
{
	struct client_opts	 o;
	char			*av[7];
	int			 rc, n = 0;

	if ((rc = client_parse(argc, argv, CLIENT_KILL, &o)) != -1)
		return rc;
	av[n++] = (char *)"ctl";
	if (o.host != NULL) {
		av[n++] = (char *)"-H";
		av[n++] = (char *)o.host;
	}
	av[n++] = (char *)"-S";
	av[n++] = (char *)o.name;
	av[n++] = (char *)"quit";
	av[n] = NULL;
	return ctl_main(n, av);
}

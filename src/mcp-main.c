/*
 * mcp-main.c: `jobdeck mcp` (mcp.h): a protocol server (mcp.c) wired to
 * stdin, stdout and real control-socket requests (ctlconn.h) in lanes
 * (short requests, and waits), with one writer for stdout (outq.h) that a
 * stalled client cannot turn into unbounded memory; --start starts a deck
 * without a screen when none of that name runs and quits the one it
 * started, and only that one, at the end.
 */
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cliopt.h"
#include "child.h"
#include "ctl.h"
#include "ctlconn.h"
#include "jsonval.h"
#include "loop.h"
#include "mcp.h"
#include "mcp-private.h"
#include "outq.h"
#include "xmalloc.h"

#define MCP_REPLY_MAX		JSONVAL_MAX_INPUT	/* a deck's answer */
#define MCP_BACKLOG_MAX		(64 * 1024 * 1024)	/* stdout unread */
#define MCP_FLUSH_MS		5000	/* at the end, for stdout */
#define MCP_DECK_START_MS	10000	/* --start: the deck's socket */
#define MCP_DECK_QUIT_MS	10000	/* --start: the deck's leaving */

/*
 * Requests of the deck of one kind (short ones, or waits): those at the
 * deck, and those queued in the order asked.
 */
struct mcp_lane {
	int			 busy;		/* at the deck */
	int			 max;
	struct mcp_request	*head;		/* queued */
	struct mcp_request	**tail;
};

#define MCP_LANE_SHORT	0
#define MCP_LANE_WAIT	1
#define MCP_LANES	2

/* jobdeck mcp's process: stdin, stdout, the deck, the server. */
struct mcp_main {
	struct loop		*loop;
	struct mcp_server	*srv;
	const char		*deck;
	int			 read_only;
	int			 in_fd;
	char			*line;		/* the message being read */
	size_t			 linelen;
	int			 discard;	/* the rest of a line over max */
	struct outq		*out;		/* stdout */
	int			 in_done;	/* stdin ended: answer, end */
	int			 ending;
	int			 rc;
	struct mcp_lane		 lanes[MCP_LANES];
};

/*
 * A deck request of the io: queued (its words kept), then at the deck
 * (its ctlconn); and whom to tell.
 */
struct mcp_request {
	struct mcp_main		*m;
	struct mcp_lane		*lane;
	struct ctlconn		*cc;		/* NULL while queued */
	char			**words;	/* while queued */
	int			 flags;
	mcp_reply_cb		*done;
	void			*cb_arg;
	struct mcp_request	*next;		/* in the lane's queue */
};

/* The options of jobdeck mcp: usage and help are made from these. */
static const struct cliopt mcp_options[] = {
	{ NULL, 'S', "NAME", "the deck to use (default: default)", 0 },
	{ "read-only", 'r', NULL, "list and allow only the tools that look\n"
	  "(terminal_job_status, terminal_job_list,\nterminal_screen), "
	  "through the deck's read-only socket", 0 },
	{ "start", 's', NULL, "start a deck without a screen (jobdeck up\n"
	  "--stay) when none of that name runs; quit it\nat the end", 0 },
	{ "help", 'h', NULL, "show this help", CLIOPT_HIDDEN },
};
#define MCP_NOPTIONS CLIOPT_COUNT(mcp_options)

/* Print the usage line to f after lead ("usage:" or its blanks). */
void
mcp_usage(FILE *f, const char *lead)
{
	cliopt_usage(f, lead, "jobdeck mcp", mcp_options, MCP_NOPTIONS, 0,
	    NULL);
}

/* Print the help text. */
static void
mcp_main_help(void)
{
	mcp_usage(stdout, "usage:");
	printf("\nA Model Context Protocol server on stdin and stdout "
	    "(JSON-RPC 2.0, one\nmessage a line) whose tools run commands in "
	    "the deck NAME over its\ncontrol socket.\n\n");
	cliopt_help(stdout, mcp_options, MCP_NOPTIONS, 0);
	printf("\nExit status: 0 when stdin ends, 1 when the deck cannot be "
	    "started or\nstdout takes nothing, 2 usage.  See jobdeck(1).\n");
}

/* Stop the session: the loop ends once the turn is over. */
static void
mcp_main_end(struct mcp_main *m, int rc)
{
	if (!m->ending) {
		m->ending = 1;
		if (rc > m->rc)
			m->rc = rc;
	}
	loop_stop(m->loop);
}

/*
 * stdout had room, or its reader went away (the client is gone: no
 * answer can reach it, so the session ends, even with calls in flight).
 */
static void
mcp_main_out_cb(struct outq *q, void *arg)
{
	if (outq_error(q) != 0)
		mcp_main_end(arg, 0);
}

static const struct outq_cbs mcp_main_outq_cbs = { mcp_main_out_cb, NULL };

/*
 * The io's send: one message and its newline onto stdout's backlog, and
 * what stdout takes of it now.  A client that lets MCP_BACKLOG_MAX bytes
 * of answers pile up unread is given up on.
 */
static void
mcp_main_send(const char *msg, size_t len, void *arg)
{
	struct mcp_main	*m = arg;

	if (outq_error(m->out) != 0)
		return;
	if (outq_add(m->out, msg, len) != 0 ||
	    outq_add(m->out, "\n", 1) != 0) {
		fprintf(stderr, "jobdeck mcp: the client reads nothing: over "
		    "%d MiB of answers wait; giving up\n",
		    MCP_BACKLOG_MAX / (1024 * 1024));
		mcp_main_end(m, 1);
		return;
	}
	if (outq_flush(m->out) != 0)
		mcp_main_end(m, 0);	/* EPIPE: the client left */
}

/* At the end: give stdout up to MCP_FLUSH_MS to take what is left. */
static void
mcp_main_drain(struct mcp_main *m)
{
	int64_t	end = loop_now_ms() + MCP_FLUSH_MS, now;

	while (outq_pending(m->out) > 0 && (now = loop_now_ms()) < end)
		loop_run_once(m->loop, end - now);
}

static void	mcp_main_reply(int, int, const char *, size_t, void *);

static const struct ctlconn_cbs mcp_main_ctlconn_cbs = { mcp_main_reply };

/* Free a request's queued words. */
static void
mcp_main_words_free(struct mcp_request *r)
{
	size_t	i;

	for (i = 0; r->words != NULL && r->words[i] != NULL; i++)
		free(r->words[i]);
	free(r->words);
	r->words = NULL;
}

/* Send a request to the deck (words: its own, or the queued copy). */
static void
mcp_main_ask(struct mcp_request *r, char *const *words)
{
	struct mcp_main	*m = r->m;
	int		 flags = 0;

	if (r->flags & MCP_REQ_JSON)
		flags |= CTLCONN_JSON;
	if (m->read_only)
		flags |= CTLCONN_READ_ONLY;
	r->cc = ctlconn_new(m->loop, m->deck, words, flags, MCP_REPLY_MAX,
	    &mcp_main_ctlconn_cbs, r);
	r->lane->busy++;
}

/* Send a lane's queued requests while it has room (not once ending). */
static void
mcp_main_pump(struct mcp_main *m, struct mcp_lane *l)
{
	struct mcp_request	*r;

	while (!m->ending && l->busy < l->max && (r = l->head) != NULL) {
		if ((l->head = r->next) == NULL)
			l->tail = &l->head;
		r->next = NULL;
		mcp_main_ask(r, r->words);
		mcp_main_words_free(r);
	}
}

/*
 * A deck request of the io is answered: tell its call, then send the
 * next one of its lane (the call's own next request, if it asked for one
 * meanwhile, queues behind those already waiting).
 */
static void
mcp_main_reply(int status, int exit, const char *body, size_t len,
    void *arg)
{
	struct mcp_request	*r = arg;
	struct mcp_main		*m = r->m;
	struct mcp_lane		*l = r->lane;
	struct mcp_reply	 reply;

	reply.status = status;
	reply.exit = exit;
	reply.body = body;
	reply.len = len;
	r->done(&reply, r->cb_arg);
	ctlconn_free(r->cc);
	free(r);
	l->busy--;
	mcp_main_pump(m, l);
}

/*
 * The io's start: a request of the deck over its socket, at once while
 * its lane has room, else queued with a copy of its words.
 */
static struct mcp_request *
mcp_main_start(char *const *words, int flags, mcp_reply_cb *done,
    void *cb_arg, void *arg)
{
	struct mcp_main		*m = arg;
	struct mcp_request	*r;
	struct mcp_lane		*l;
	size_t			 i, n;

	l = &m->lanes[(flags & MCP_REQ_WAIT) ? MCP_LANE_WAIT :
	    MCP_LANE_SHORT];
	r = xcalloc(1, sizeof *r);
	r->m = m;
	r->lane = l;
	r->flags = flags;
	r->done = done;
	r->cb_arg = cb_arg;
	if (l->busy < l->max && l->head == NULL) {
		mcp_main_ask(r, words);
		return r;
	}
	for (n = 0; words[n] != NULL; n++)
		;
	r->words = xcalloc(n + 1, sizeof *r->words);
	for (i = 0; i < n; i++)
		r->words[i] = xstrdup(words[i]);
	*l->tail = r;
	l->tail = &r->next;
	return r;
}

/* The io's cancel: a request at the deck is dropped, a queued one unqueued. */
static void
mcp_main_cancel(struct mcp_request *r, void *arg)
{
	struct mcp_main		*m = arg;
	struct mcp_lane		*l = r->lane;
	struct mcp_request	**pp;

	if (r->cc != NULL) {
		ctlconn_free(r->cc);
		free(r);
		l->busy--;
		mcp_main_pump(m, l);
		return;
	}
	for (pp = &l->head; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == r) {
			if ((*pp = r->next) == NULL)
				l->tail = pp;
			break;
		}
	}
	mcp_main_words_free(r);
	free(r);
}

static const struct mcp_io mcp_main_io = {
	mcp_main_send, mcp_main_start, mcp_main_cancel, NULL
};

/* A whole line came: hand it to the server ("\r" before "\n" dropped). */
static void
mcp_main_line(struct mcp_main *m)
{
	size_t	len = m->linelen;

	if (len > 0 && m->line[len - 1] == '\r')
		len--;
	m->linelen = 0;
	if (len == 0)
		return;
	mcp_server_input(m->srv, m->line, len);
}

/* Take a piece of stdin: split at "\n", a line over max refused. */
static void
mcp_main_input(struct mcp_main *m, const char *buf, size_t len)
{
	const char	*p = buf, *end = buf + len, *nl;
	size_t		 n;

	while (p < end && !m->ending) {
		nl = memchr(p, '\n', (size_t)(end - p));
		n = (size_t)((nl != NULL ? nl : end) - p);
		if (!m->discard && m->linelen + n > MCP_LINE_MAX) {
			mcp_server_too_long(m->srv);
			m->discard = 1;
			m->linelen = 0;
		}
		if (!m->discard) {
			m->line = xreallocarray(m->line, m->linelen + n + 1,
			    1);
			memcpy(m->line + m->linelen, p, n);
			m->linelen += n;
		}
		if (nl == NULL)
			break;
		if (!m->discard)
			mcp_main_line(m);
		m->discard = 0;
		m->linelen = 0;
		p = nl + 1;
	}
}

/* stdin can be read. */
static void
mcp_main_in_cb(int fd, short revents, void *arg)
{
	struct mcp_main	*m = arg;
	char		 buf[65536];
	ssize_t		 n;

	(void)revents;
	n = read(fd, buf, sizeof buf);
	if (n == -1 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n > 0) {
		mcp_main_input(m, buf, (size_t)n);
		return;
	}
	/*
	 * The end: a last line without its newline is a message too; the
	 * session ends once every call is answered (mcp_main_hook_cb()).
	 */
	if (!m->discard && m->linelen > 0)
		mcp_main_line(m);
	loop_unwatch_fd(m->loop, fd);
	m->in_fd = -1;
	m->in_done = 1;
}

/* Before the loop sleeps: once stdin has ended, end with the last call. */
static void
mcp_main_hook_cb(void *arg)
{
	struct mcp_main	*m = arg;

	if (m->in_done && !m->ending && mcp_server_busy(m->srv) == 0)
		mcp_main_end(m, 0);
}

/* SIGTERM, SIGINT, SIGHUP: end the session as at the end of stdin. */
static void
mcp_main_signal_cb(int signo, void *arg)
{
	(void)signo;
	mcp_main_end(arg, 0);
}

/*
 * Return the pid of the process that listens on the socket at path
 * (SO_PEERCRED: who called listen()), 0 if it cannot be told, or -1 if
 * nothing answers there.
 */
static pid_t
mcp_main_deck_pid(const char *path)
{
	struct sockaddr_un	sun;
	struct ucred		cred;
	socklen_t		len = sizeof cred;
	pid_t			pid = -1;
	int			fd;

	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof sun.sun_path, "%s", path);
	if (connect(fd, (struct sockaddr *)&sun, sizeof sun) == 0) {
		pid = 0;
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0)
			pid = cred.pid;
	}
	close(fd);
	return pid;
}

/* Sleep ms milliseconds. */
static void
mcp_main_sleep(int ms)
{
	struct timespec	ts;

	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (long)(ms % 1000) * 1000000L;
	nanosleep(&ts, NULL);
}

/* What the child of mcp_main_deck_start() needs, made before the fork. */
struct mcp_main_child {
	pid_t	  parent;
	char	**argv;
};

/*
 * In the child of mcp_main_deck_start(): die with its parent (unless that
 * is gone already), then exec this program as `jobdeck up`.
 */
static void
mcp_main_deck_exec(void *arg)
{
	const struct mcp_main_child	*c = arg;

	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != c->parent)
		_exit(127);
	execv("/proc/self/exe", c->argv);
	child_say("jobdeck mcp", "/proc/self/exe", errno);
	_exit(127);
}

/* What child_fork() runs in mcp_main_deck_start()'s child. */
static const struct child_exec mcp_main_deck_cbs = { mcp_main_deck_exec };

/*
 * Start `jobdeck up --stay -S deck` (child_fork(): its own session,
 * /dev/null as stdin and stdout, our stderr) and wait until it
 * listens on the socket at path: its pid, the deck this session owns.
 * If it ends first because another deck took the name meanwhile (another
 * --start at the same moment), 0: that deck is used, and is not ours to
 * quit.  -1 (said on stderr) if no deck answers.
 */
static pid_t
mcp_main_deck_start(const char *deck, const char *path)
{
	struct child_spec	 cs;
	struct mcp_main_child	 c;
	pid_t			 pid;
	int			 null, status, error;
	int64_t			 end;
	char			*argv[] = { "jobdeck", "up", "--stay", "-S",
				    (char *)deck, NULL };

	fflush(stdout);
	fflush(stderr);
	if ((null = open("/dev/null", O_RDWR | O_CLOEXEC)) == -1) {
		fprintf(stderr, "jobdeck mcp: /dev/null: %s\n",
		    strerror(errno));
		return -1;
	}
	child_spec_init(&cs);
	cs.fds[0] = cs.fds[1] = null;
	cs.fds[2] = STDERR_FILENO;
	cs.nfds = 3;
	cs.session = 1;
	c.parent = getpid();
	c.argv = argv;
	pid = child_fork(&cs, &mcp_main_deck_cbs, &c);
	error = errno;
	close(null);
	if (pid == -1) {
		fprintf(stderr, "jobdeck mcp: fork: %s\n", strerror(error));
		return -1;
	}

	/* Ours once our child listens: any other deck there is another's. */
	end = loop_now_ms() + MCP_DECK_START_MS;
	while (mcp_main_deck_pid(path) != pid) {
		if (waitpid(pid, &status, WNOHANG) == pid) {
			if (mcp_main_deck_pid(path) != -1) {
				fprintf(stderr, "jobdeck mcp: another deck "
				    "'%s' started meanwhile: using it (its "
				    "owner quits it, not this session)\n",
				    deck);
				return 0;
			}
			fprintf(stderr, "jobdeck mcp: the deck '%s' did not "
			    "start (jobdeck up exited with status %d)\n", deck,
			    WIFEXITED(status) ? WEXITSTATUS(status) :
			    128 + WTERMSIG(status));
			return -1;
		}
		if (loop_now_ms() >= end) {
			fprintf(stderr, "jobdeck mcp: the deck '%s' did not "
			    "answer within %d s of starting\n", deck,
			    MCP_DECK_START_MS / 1000);
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			return -1;
		}
		mcp_main_sleep(50);
	}
	return pid;
}

/*
 * Quit the deck --start started, and reap it.  It is our child and not
 * reaped yet, so pid is that deck and no other (a deck that took the
 * name since is not touched): SIGTERM, which quits a deck as `quit`
 * does, and SIGKILL if it has not left after MCP_DECK_QUIT_MS.
 */
static void
mcp_main_deck_stop(pid_t pid)
{
	kill(pid, SIGTERM);
	if (child_wait(pid, MCP_DECK_QUIT_MS, NULL))
		return;
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* Parse the options; -1 to go on, else the exit status. */
static int
mcp_main_parse(int argc, char **argv, const char **deck, int *read_only,
    int *start)
{
	struct cliopt_parser	p;
	int			i, rc = -1;

	cliopt_begin(&p, "jobdeck mcp", mcp_options, MCP_NOPTIONS);
	while (rc == -1 && (i = cliopt_next(&p, argc, argv)) != -1) {
		switch (i < 0 ? '?' : mcp_options[i].ch) {
		case 'S':
			*deck = p.value;
			break;
		case 'r':
			*read_only = 1;
			break;
		case 's':
			*start = 1;
			break;
		case 'h':
			mcp_main_help();
			rc = 0;
			break;
		default:
			mcp_usage(stderr, "usage:");
			rc = 2;
			break;
		}
	}
	cliopt_end(&p);
	if (rc == -1 && optind < argc) {
		fprintf(stderr, "jobdeck mcp: unexpected argument '%s'\n",
		    argv[optind]);
		mcp_usage(stderr, "usage:");
		rc = 2;
	}
	return rc;
}

/* Run jobdeck mcp; argv[0] is "mcp".  Returns the exit status. */
int
mcp_main(int argc, char **argv)
{
	struct mcp_main	 m;
	struct mcp_opts	 opts;
	const char	*deck = "default";
	char		*path = NULL, *cause = NULL;
	int		 read_only = 0, start = 0, rc, i;
	pid_t		 pid = -1;

	signal(SIGPIPE, SIG_IGN);
	if ((rc = mcp_main_parse(argc, argv, &deck, &read_only,
	    &start)) != -1)
		return rc;
	if (ctl_socket_path(deck, read_only ? CTL_PATH_READ_ONLY : 0, &path,
	    &cause) != 0) {
		fprintf(stderr, "jobdeck mcp: %s\n", cause);
		free(cause);
		return 2;
	}
	if (start && mcp_main_deck_pid(path) == -1) {
		if ((pid = mcp_main_deck_start(deck, path)) == -1) {
			free(path);
			return 1;
		}
		if (pid == 0)
			pid = -1;	/* another's */
	}
	free(path);

	memset(&m, 0, sizeof m);
	m.loop = loop_new();
	m.deck = deck;
	m.read_only = read_only;
	m.in_fd = STDIN_FILENO;
	m.lanes[MCP_LANE_SHORT].max = MCP_DECK_SHORT_MAX;
	m.lanes[MCP_LANE_WAIT].max = MCP_DECK_WAIT_MAX;
	for (i = 0; i < MCP_LANES; i++)
		m.lanes[i].tail = &m.lanes[i].head;
	/* Idle, stdout is polled for its reader's leaving alone (POLLERR). */
	m.out = outq_open(m.loop, STDOUT_FILENO, OUTQ_WATCH | OUTQ_HANGUP,
	    &mcp_main_outq_cbs, &m);
	outq_set_limit(m.out, MCP_BACKLOG_MAX, OUTQ_LIMIT_FAIL);
	opts.read_only = read_only;
	opts.deck = deck;
	m.srv = mcp_server_new(m.loop, &opts, &mcp_main_io, &m);
	loop_watch_fd(m.loop, m.in_fd, POLLIN, mcp_main_in_cb, &m);
	loop_set_hook(m.loop, mcp_main_hook_cb, &m);
	loop_watch_signal(m.loop, SIGTERM, mcp_main_signal_cb, &m);
	loop_watch_signal(m.loop, SIGINT, mcp_main_signal_cb, &m);
	loop_watch_signal(m.loop, SIGHUP, mcp_main_signal_cb, &m);

	loop_run(m.loop);

	/*
	 * After a signal or a lost stdout: every call freed unanswered (at
	 * the end of stdin there are none left); what is written goes out.
	 */
	loop_set_hook(m.loop, NULL, NULL);
	mcp_server_free(m.srv);
	if (m.in_fd != -1)
		loop_unwatch_fd(m.loop, m.in_fd);
	mcp_main_drain(&m);
	if (pid != -1)
		mcp_main_deck_stop(pid);
	outq_free(m.out);
	loop_free(m.loop);
	free(m.line);
	return m.rc;
}

/*
 * ctl-client.c: `jobdeck ctl [-S NAME] [-r] [--json] COMMAND [ARGS ...]`,
 * the control socket's client (the protocol is in ctl.h).  It quotes each word
 * in single quotes so the deck expands nothing, sends the request line,
 * and copies the reply: the body to stdout as it arrives on success (so
 * streams flow), or each error line to stderr as "jobdeck ctl: ...".  The
 * protocol's control lines (keepalives, the start and end of logs
 * --follow) are taken out of the body.  Its exit status is the reply's
 * status: 0, 1 (the command failed) or 2 (a usage error, or no deck of
 * that name runs); after logs --follow, the job's, from the stream's exit
 * line, and after wait, the status its exit line gives.  A deck that
 * sends nothing for CTL_ANSWER_TIMEOUT_MS (a stopped one; streams and
 * waits get keepalives, so a long wait is never cut: its own --timeout
 * bounds it) or does not take the connection as long gives status 2:
 * "deck 'NAME' did not answer within 10 s".
 *
 * `--json` is taken before COMMAND or anywhere among its arguments before
 * a `--` word (write `send ID -- --json` to send that text).  `--read-only`
 * (`-r`), before COMMAND, talks to the deck's read-only socket NAME.ro,
 * where only the commands that look are allowed.
 */
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "ctl.h"
#include "expand.h"
#include "loop.h"
#include "xmalloc.h"

/* Print the usage lines to f. */
static void
ctl_client_usage(FILE *f)
{
	fprintf(f, "usage: jobdeck ctl [-S NAME] [-r] [--json] COMMAND "
	    "[ARGS ...]\n");
}

/* Print the help text. */
static void
ctl_client_help(void)
{
	const struct cmd_entry	*const *e;
	char			*u;

	ctl_client_usage(stdout);
	printf("\n"
	    "Runs COMMAND in the running deck NAME (default \"default\") "
	    "through its\n"
	    "control socket and prints the result; --json for JSON.\n"
	    "-r, --read-only: through its read-only socket, where only the "
	    "commands\n"
	    "marked * run (those that only look).\n"
	    "Commands (the prompt's, without the !):\n");
	for (e = cmd_table; *e != NULL; e++) {
		u = cmd_usage(*e);
		printf("%c %s\n", ((*e)->flags & CMD_READ_ONLY) ? '*' : ' ',
		    u[0] == '!' ? u + 1 : u);
		free(u);
	}
	printf("\n"
	    "Exit status: 0 success, 1 the command failed, 2 usage, no deck "
	    "or no\n"
	    "answer in %d s; logs --follow: the job's (128+N for signal N, "
	    "124 timed out);\n"
	    "grep: 0 when a line matched, 1 when none did; wait: the first "
	    "job that did\n"
	    "not complete (its exit code, 128+N for signal N; 1 canceled, "
	    "timed out or\n"
	    "still running at --timeout), 0 when all completed.\n"
	    "See jobdeck(1).\n", CTL_ANSWER_TIMEOUT_MS / 1000);
}

/* Append word to the request as one single-quoted shell word. */
static void
ctl_client_quote(char **req, size_t *len, const char *word)
{
	char	*q = expand_shell_quote(word);
	size_t	 n = strlen(q);

	*req = xreallocarray(*req, *len + n + 2, 1);
	if (*len > 0)
		(*req)[(*len)++] = ' ';
	memcpy(*req + *len, q, n);
	*len += n;
	free(q);
}

/*
 * Connect to the deck's socket; -1 with errno.  A full backlog (a deck
 * that accepts nothing) makes connect() wait as long as a send may:
 * CTL_ANSWER_TIMEOUT_MS, then EAGAIN.
 */
static int
ctl_client_connect(const char *path)
{
	struct sockaddr_un	sun;
	struct timeval		tv;
	int			fd, rc;

	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	tv.tv_sec = CTL_ANSWER_TIMEOUT_MS / 1000;
	tv.tv_usec = (CTL_ANSWER_TIMEOUT_MS % 1000) * 1000;
	if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) != 0) {
		rc = errno;
		close(fd);
		errno = rc;
		return -1;
	}
	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof sun.sun_path, "%s", path);
	do
		rc = connect(fd, (struct sockaddr *)&sun, sizeof sun);
	while (rc == -1 && errno == EINTR);
	if (rc == -1) {
		rc = errno;
		close(fd);
		errno = rc;
		return -1;
	}
	return fd;
}

/* Write all of buf to fd; 0 or -1. */
static int
ctl_client_write_all(int fd, const char *buf, size_t len, int sock)
{
	ssize_t	n;

	while (len > 0) {
		if (sock)
			n = send(fd, buf, len, MSG_NOSIGNAL);
		else
			n = write(fd, buf, len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Print each line of the deck's error reply to stderr, prefixed. */
static void
ctl_client_errors(const char *body, size_t len)
{
	const char	*p = body, *end = body + len, *nl;

	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			nl = end;
		fprintf(stderr, "jobdeck ctl: %.*s\n", (int)(nl - p), p);
		p = nl + 1;
	}
}

/* Say that deck name did not answer in time; the exit status for it. */
static int
ctl_client_no_answer(const char *name)
{
	fprintf(stderr, "jobdeck ctl: deck '%s' did not answer within %d s\n",
	    name, CTL_ANSWER_TIMEOUT_MS / 1000);
	return 2;
}

/*
 * Wait until fd can be read, at most CTL_ANSWER_TIMEOUT_MS; 0, or -1 if
 * nothing came in that time.
 */
static int
ctl_client_wait(int fd)
{
	struct pollfd	pfd;
	int64_t		now, end = loop_now_ms() + CTL_ANSWER_TIMEOUT_MS;
	int		n;

	pfd.fd = fd;
	pfd.events = POLLIN;
	for (;;) {
		if ((now = loop_now_ms()) >= end)
			return -1;
		n = poll(&pfd, 1, (int)(end - now));
		if (n > 0 || (n == -1 && errno != EINTR))
			return 0;	/* read() tells what happened */
	}
}

/* A reply as it is read. */
struct ctl_reply {
	int	 status;	/* of the status line, -1 before it */
	char	 head[2];
	size_t	 nhead;
	int	 bol;		/* the body is at the start of a line */
	char	 ctrl[32];	/* a control line being read */
	size_t	 nctrl;
	int	 in_ctrl;
	int	 follow;	/* a logs --follow stream: an exit line ends it */
	int	 exit;		/* the exit line's status, or -1 */
	char	*err;		/* the error lines, on failure */
	size_t	 errlen;
};

/* Act on a control line of the reply (its text after CTL_CONTROL). */
static void
ctl_client_control(struct ctl_reply *r, const char *text)
{
	char	*end;
	long	 n;

	if (strcmp(text, "follow") == 0)
		r->follow = 1;
	else if (strncmp(text, "exit ", 5) == 0) {
		n = strtol(text + 5, &end, 10);
		r->exit = (*end == '\0' && n >= 0 && n <= 255) ? (int)n : 1;
	}
	/* "" is a keepalive; other lines are for later versions. */
}

/*
 * Copy a piece of a successful reply's body to stdout, taking out the
 * control lines; 0, or -1 if stdout cannot be written.
 */
static int
ctl_client_body(struct ctl_reply *r, const char *p, size_t len)
{
	const char	*end = p + len, *start, *nl;
	size_t		 n;

	while (p < end) {
		if (r->in_ctrl || (r->bol && *p == CTL_CONTROL)) {
			if (!r->in_ctrl) {
				r->in_ctrl = 1;
				r->nctrl = 0;
				p++;
			}
			nl = memchr(p, '\n', (size_t)(end - p));
			n = (size_t)((nl != NULL ? nl : end) - p);
			if (n > sizeof r->ctrl - 1 - r->nctrl)
				n = sizeof r->ctrl - 1 - r->nctrl;
			memcpy(r->ctrl + r->nctrl, p, n);
			r->nctrl += n;
			if (nl == NULL)
				return 0;
			r->ctrl[r->nctrl] = '\0';
			ctl_client_control(r, r->ctrl);
			r->in_ctrl = 0;
			r->bol = 1;
			p = nl + 1;
			continue;
		}
		/* Output up to a control line, or to the end. */
		start = p;
		while (p < end) {
			nl = memchr(p, '\n', (size_t)(end - p));
			if (nl == NULL) {
				p = end;
				r->bol = 0;
				break;
			}
			p = nl + 1;
			r->bol = 1;
			if (p < end && *p == CTL_CONTROL)
				break;
		}
		if (ctl_client_write_all(STDOUT_FILENO, start,
		    (size_t)(p - start), 0) != 0)
			return -1;
	}
	return 0;
}

/* Take a piece of the reply; 0, or -1 if it is not a reply or stdout failed. */
static int
ctl_client_piece(struct ctl_reply *r, const char *buf, size_t len)
{
	size_t	off = 0;

	while (r->status == -1 && r->nhead < 2 && off < len)
		r->head[r->nhead++] = buf[off++];
	if (r->status == -1) {
		if (r->nhead < 2)
			return 0;
		if (r->head[0] < '0' || r->head[0] > '2' ||
		    r->head[1] != '\n') {
			fprintf(stderr, "jobdeck ctl: bad reply from the "
			    "deck\n");
			return -1;
		}
		r->status = r->head[0] - '0';
	}
	if (r->status == 0)
		return ctl_client_body(r, buf + off, len - off);
	r->err = xreallocarray(r->err, r->errlen + len - off + 1, 1);
	memcpy(r->err + r->errlen, buf + off, len - off);
	r->errlen += len - off;
	return 0;
}

/*
 * Read the reply: the status line, then the body, copied to stdout as it
 * comes on success (without the protocol's control lines), else gathered
 * and printed as errors.  Returns the exit status: the reply's, or the
 * job's from the exit line of logs --follow; 2 if deck name sends nothing
 * for CTL_ANSWER_TIMEOUT_MS.
 */
static int
ctl_client_reply(int fd, const char *name)
{
	struct ctl_reply	 r;
	char			 buf[65536];
	ssize_t			 n;
	int			 rc;

	memset(&r, 0, sizeof r);
	r.status = r.exit = -1;
	r.bol = 1;
	for (;;) {
		if (ctl_client_wait(fd) != 0) {
			free(r.err);
			return ctl_client_no_answer(name);
		}
		n = read(fd, buf, sizeof buf);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (ctl_client_piece(&r, buf, (size_t)n) != 0) {
			free(r.err);
			return 1;
		}
	}
	if (r.status == -1) {
		fprintf(stderr, "jobdeck ctl: the deck closed the connection "
		    "without a reply\n");
		return 1;
	}
	rc = r.status;
	if (rc != 0)
		ctl_client_errors(r.err != NULL ? r.err : "", r.errlen);
	else if (r.exit != -1)
		rc = r.exit;
	else if (r.follow) {
		fprintf(stderr, "jobdeck ctl: the deck ended the stream before "
		    "the job ended\n");
		rc = 1;
	}
	free(r.err);
	return rc;
}

/* Run `jobdeck ctl`; argv[0] is "ctl".  Returns the exit status. */
int
ctl_main(int argc, char **argv)
{
	const char	*name = "default";
	char		*path = NULL, *cause = NULL, *req = NULL;
	size_t		 len = 0;
	int		 i = 1, json = 0, fd, status, k, dashdash = 0;
	int		 flags = 0;

	while (i < argc && argv[i][0] == '-') {
		if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		}
		if (strcmp(argv[i], "--json") == 0)
			json = 1;
		else if (strcmp(argv[i], "-r") == 0 ||
		    strcmp(argv[i], "--read-only") == 0)
			flags |= CTL_PATH_READ_ONLY;
		else if (strcmp(argv[i], "-h") == 0 ||
		    strcmp(argv[i], "--help") == 0) {
			ctl_client_help();
			return 0;
		} else if (strcmp(argv[i], "-S") == 0 && i + 1 < argc)
			name = argv[++i];
		else if (strncmp(argv[i], "-S", 2) == 0 && argv[i][2] != '\0')
			name = argv[i] + 2;
		else {
			ctl_client_usage(stderr);
			return 2;
		}
		i++;
	}
	if (i >= argc) {
		ctl_client_usage(stderr);
		return 2;
	}
	for (k = i + 1; k < argc; k++) {
		if (strcmp(argv[k], "--") == 0)
			dashdash = 1;
		if (!dashdash && strcmp(argv[k], "--json") == 0)
			json = 1;
	}

	if (json)
		ctl_client_quote(&req, &len, "--json");
	dashdash = 0;
	for (k = i; k < argc; k++) {
		if (strchr(argv[k], '\n') != NULL) {
			fprintf(stderr, "jobdeck ctl: an argument cannot hold "
			    "a newline (send takes \\n)\n");
			free(req);
			return 2;
		}
		if (k > i && strcmp(argv[k], "--") == 0)
			dashdash = 1;
		if (k > i && !dashdash && strcmp(argv[k], "--json") == 0)
			continue;
		ctl_client_quote(&req, &len, argv[k]);
	}
	req = xreallocarray(req, len + 1, 1);
	req[len++] = '\n';
	if (len > CTL_REQUEST_MAX) {
		fprintf(stderr, "jobdeck ctl: request too long (more than %d "
		    "bytes)\n", CTL_REQUEST_MAX);
		free(req);
		return 2;
	}

	if (ctl_socket_path(name, flags, &path, &cause) != 0) {
		fprintf(stderr, "jobdeck ctl: %s\n", cause);
		free(cause);
		free(req);
		return 2;
	}
	if ((fd = ctl_client_connect(path)) == -1) {
		if (errno == EAGAIN)
			ctl_client_no_answer(name);
		else if (errno == ENOENT || errno == ECONNREFUSED)
			fprintf(stderr, "jobdeck ctl: no deck named %s is "
			    "running (%s)\n", name, path);
		else
			fprintf(stderr, "jobdeck ctl: %s: %s\n", path,
			    strerror(errno));
		free(path);
		free(req);
		return 2;
	}
	free(path);
	if (ctl_client_write_all(fd, req, len, 1) != 0 && errno != EPIPE &&
	    errno != ECONNRESET) {
		if (errno == EAGAIN)
			ctl_client_no_answer(name);
		else
			fprintf(stderr, "jobdeck ctl: %s\n", strerror(errno));
		free(req);
		close(fd);
		return 2;
	}
	free(req);
	status = ctl_client_reply(fd, name);
	close(fd);
	return status;
}

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
 * line, and after wait, the status its exit line gives.  The deck's
 * "\036error TEXT" line (a log or a grep that met damage in the store)
 * is said on stderr as "jobdeck ctl: TEXT".  A deck that
 * sends nothing for CTL_ANSWER_TIMEOUT_MS (a stopped one; streams and
 * waits get keepalives, so a long wait is never cut: its own --timeout
 * bounds it) or does not take the connection as long gives status 2:
 * "deck 'NAME' did not answer within 10 s".
 *
 * `--json` is taken before COMMAND or anywhere among its arguments before
 * a `--` word (write `send ID -- --json` to send that text).  `--read-only`
 * (`-r`), before COMMAND, talks to the deck's read-only socket NAME.ro,
 * where only the commands that look are allowed.  `-H DEST` (`--host`)
 * runs the same command with jobdeck on ssh destination DEST instead
 * (remote.h): the process becomes ssh, whose exit status is the remote
 * jobdeck's.
 */
#include <sys/socket.h>
#include <sys/time.h>

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cliopt.h"
#include "cmd.h"
#include "ctl.h"
#include "ctlconn.h"
#include "loop.h"
#include "remote.h"
#include "textesc.h"
#include "xmalloc.h"

/* The options of jobdeck ctl, before its COMMAND. */
enum ctl_client_option {
	CTL_OPT_DECK,
	CTL_OPT_HOST,
	CTL_OPT_READ_ONLY,
	CTL_OPT_JSON,
	CTL_OPT_HELP,
};
static const struct cliopt ctl_client_options[] = {
	[CTL_OPT_DECK] = { NULL, 'S', "NAME",
	    "the deck (default: default)", 0 },
	[CTL_OPT_HOST] = { "host", 'H', "DEST",
	    "the deck on ssh destination DEST: the same\ncommand run there "
	    "by jobdeck, through ssh", 0 },
	[CTL_OPT_READ_ONLY] = { "read-only", 'r', NULL,
	    "through its read-only socket, where only the\ncommands marked * "
	    "run (those that only look)", 0 },
	[CTL_OPT_JSON] = { "json", 0, NULL,
	    "the result as JSON (also after COMMAND)", 0 },
	[CTL_OPT_HELP] = { "help", 'h', NULL, "show this help",
	    CLIOPT_HIDDEN },
};

/* Print the usage line to f after lead ("usage:" or its blanks). */
void
ctl_usage(FILE *f, const char *lead)
{
	cliopt_usage(f, lead, "jobdeck ctl", ctl_client_options,
	    CLIOPT_COUNT(ctl_client_options), 0, "COMMAND [ARGS ...]");
}

/* Print the help text. */
static void
ctl_client_help(void)
{
	const struct cmd_entry	*const *e;
	char			*u;

	ctl_usage(stdout, "usage:");
	printf("\n"
	    "Runs COMMAND in the running deck NAME (default \"default\") "
	    "through its\n"
	    "control socket and prints the result.\n\n");
	cliopt_help(stdout, ctl_client_options,
	    CLIOPT_COUNT(ctl_client_options), 0);
	printf("\nCommands (the prompt's, without the !):\n");
	for (e = cmd_table; *e != NULL; e++) {
		if ((*e)->flags & CMD_SCREEN)
			continue;	/* a key's action: refused here */
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

/* A reply as it is read: the shared parser, and the error lines. */
struct ctl_reply {
	struct ctlconn_parse	 p;
	char			*err;	/* the error lines, on failure */
	size_t			 errlen;
};

/*
 * Take a piece of the reply's body: copied to stdout on success, else
 * gathered; 0, or -1 if stdout cannot be written.
 */
static int
ctl_client_body(const char *buf, size_t len, void *arg)
{
	struct ctl_reply	*r = arg;

	if (r->p.status == 0)
		return ctl_client_write_all(STDOUT_FILENO, buf, len, 0);
	r->err = xreallocarray(r->err, r->errlen + len + 1, 1);
	memcpy(r->err + r->errlen, buf, len);
	r->errlen += len;
	return 0;
}

/* Say on stderr what the deck's "\036error" line said, made safe. */
static void
ctl_client_say(const char *text)
{
	char	*safe;

	safe = textesc_visible(text, strlen(text));
	fprintf(stderr, "jobdeck ctl: %s\n", safe);
	free(safe);
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
	ctlconn_parse_init(&r.p);
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
		if ((rc = ctlconn_parse_feed(&r.p, buf, (size_t)n,
		    ctl_client_body, &r)) != 0) {
			if (rc == -1)
				fprintf(stderr, "jobdeck ctl: bad reply from "
				    "the deck\n");
			free(r.err);
			return 1;
		}
	}
	if (r.p.status == -1) {
		fprintf(stderr, "jobdeck ctl: the deck closed the connection "
		    "without a reply\n");
		return 1;
	}
	rc = r.p.status;
	if (r.p.error[0] != '\0')
		ctl_client_say(r.p.error);
	if (r.p.damaged > 0)
		fprintf(stderr, "jobdeck ctl: %d run%s damaged in the store: "
		    "searched up to %s damage\n", r.p.damaged,
		    r.p.damaged == 1 ? " is" : "s are", r.p.damaged == 1 ?
		    "its" : "their");
	if (rc != 0)
		ctl_client_errors(r.err != NULL ? r.err : "", r.errlen);
	else if (r.p.exit != -1)
		rc = r.p.exit;
	else if (r.p.follow) {
		fprintf(stderr, "jobdeck ctl: the deck ended the stream before "
		    "the job ended\n");
		rc = 1;
	}
	free(r.err);
	return rc;
}

/*
 * Parse the options before COMMAND; return the index of COMMAND, or -1 -
 * the exit status when done (help printed, or a usage error said).
 */
static int
ctl_client_parse(int argc, char **argv, const char **name,
    const char **host, int *flags, int *json)
{
	struct cliopt_parser	p;
	int			i, rc = -1;

	cliopt_begin(&p, "jobdeck ctl", ctl_client_options,
	    CLIOPT_COUNT(ctl_client_options));
	while (rc == -1 && (i = cliopt_next(&p, argc, argv)) != -1) {
		switch (i) {
		case CTL_OPT_DECK:
			*name = p.value;
			break;
		case CTL_OPT_HOST:
			*host = p.value;
			break;
		case CTL_OPT_READ_ONLY:
			*flags |= CTL_PATH_READ_ONLY;
			break;
		case CTL_OPT_JSON:
			*json = 1;
			break;
		case CTL_OPT_HELP:
			ctl_client_help();
			rc = 0;
			break;
		default:
			ctl_usage(stderr, "usage:");
			rc = 2;
			break;
		}
	}
	cliopt_end(&p);
	return rc == -1 ? p.first : -1 - rc;
}

/*
 * Run `jobdeck ctl` with the options parsed and argv[i...] (COMMAND and
 * its arguments) on ssh destination host; returns only on failure.
 */
static int
ctl_client_remote(const char *host, const char *name, int flags, int json,
    int argc, char **argv, int i)
{
	const char	**words;
	size_t		  n = 0;
	int		  rc;

	words = xreallocarray(NULL, (size_t)(argc - i) + 6, sizeof *words);
	words[n++] = "ctl";
	words[n++] = "-S";
	words[n++] = name;
	if (flags & CTL_PATH_READ_ONLY)
		words[n++] = "-r";
	if (json)
		words[n++] = "--json";
	while (i < argc)
		words[n++] = argv[i++];
	words[n] = NULL;
	rc = remote_exec("jobdeck ctl", host, words, 0);
	free(words);
	return rc;
}

/* Run `jobdeck ctl`; argv[0] is "ctl".  Returns the exit status. */
int
ctl_main(int argc, char **argv)
{
	const char	*name = "default", *host = NULL;
	char		*path = NULL, *cause = NULL, *req = NULL, **words;
	size_t		 len = 0, nwords;
	int		 i, json = 0, fd, status, k, dashdash = 0;
	int		 flags = 0;

	if ((i = ctl_client_parse(argc, argv, &name, &host, &flags,
	    &json)) < 0)
		return -i - 1;
	if (i >= argc) {
		ctl_usage(stderr, "usage:");
		return 2;
	}
	if (host != NULL)
		return ctl_client_remote(host, name, flags, json, argc, argv,
		    i);
	for (k = i + 1; k < argc; k++) {
		if (strcmp(argv[k], "--") == 0)
			dashdash = 1;
		if (!dashdash && strcmp(argv[k], "--json") == 0)
			json = 1;
	}

	/* The words without the --json flags taken above. */
	words = xreallocarray(NULL, (size_t)(argc - i) + 1, sizeof *words);
	nwords = 0;
	dashdash = 0;
	for (k = i; k < argc; k++) {
		if (k > i && strcmp(argv[k], "--") == 0)
			dashdash = 1;
		if (k > i && !dashdash && strcmp(argv[k], "--json") == 0)
			continue;
		words[nwords++] = argv[k];
	}
	words[nwords] = NULL;
	req = ctlconn_request(words, json, &len, &cause);
	free(words);
	if (req == NULL) {
		fprintf(stderr, "jobdeck ctl: %s\n", cause);
		free(cause);
		return 2;
	}

	if (ctl_socket_path(name, flags, &path, &cause) != 0) {
		fprintf(stderr, "jobdeck ctl: %s\n", cause);
		free(cause);
		free(req);
		return 2;
	}
	if ((fd = ctl_connect(path, 0)) == -1) {
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

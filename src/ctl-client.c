/*
 * ctl-client.c: `jobdeck ctl [-S NAME] [--json] COMMAND [ARGS ...]`, the
 * control socket's client (the protocol is in ctl.h).  It quotes each word
 * in single quotes so the deck expands nothing, sends the request line,
 * and copies the reply: the body to stdout as it arrives on success (so
 * streams flow), or each error line to stderr as "jobdeck ctl: ...".  Its
 * exit status is the reply's status: 0, 1 (the command failed) or 2 (a
 * usage error, or no deck of that name runs).
 *
 * `--json` is taken before COMMAND or anywhere among its arguments before
 * a `--` word (write `send ID -- --json` to send that text).
 */
#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl.h"
#include "xmalloc.h"

/* Print the usage lines to f. */
static void
ctl_client_usage(FILE *f)
{
	fprintf(f, "usage: jobdeck ctl [-S NAME] [--json] COMMAND "
	    "[ARGS ...]\n");
}

/* Print the help text. */
static void
ctl_client_help(void)
{
	ctl_client_usage(stdout);
	printf("\n"
	    "Runs COMMAND in the running deck NAME (default \"default\") "
	    "through its\n"
	    "control socket and prints the result; --json for JSON.\n"
	    "\n"
	    "  ps, list [--status STATE,...] [--limit N]\n"
	    "  status [--incremental] ID       logs [--follow] ID\n"
	    "  kill [-SIGNAL] ID...            kill-all\n"
	    "  restart ID                      run NAME [key=value ...]\n"
	    "  spawn [--name N] [--cwd DIR] [--env K=V]... [--no-shell] -- "
	    "COMMAND...\n"
	    "  send ID TEXT                    events\n"
	    "  quit                            help\n"
	    "\n"
	    "Exit status: 0 success, 1 the command failed, 2 usage or no "
	    "deck.\n"
	    "See jobdeck(1).\n");
}

/* Append word to the request in single quotes ('\'' for a quote). */
static void
ctl_client_quote(char **req, size_t *len, const char *word)
{
	const char	*p;
	size_t		 need = *len + 4 * strlen(word) + 4;

	*req = xreallocarray(*req, need, 1);
	if (*len > 0)
		(*req)[(*len)++] = ' ';
	(*req)[(*len)++] = '\'';
	for (p = word; *p != '\0'; p++) {
		if (*p == '\'') {
			memcpy(*req + *len, "'\\''", 4);
			*len += 4;
		} else
			(*req)[(*len)++] = *p;
	}
	(*req)[(*len)++] = '\'';
}

/* Connect to the deck's socket; -1 with errno. */
static int
ctl_client_connect(const char *path)
{
	struct sockaddr_un	sun;
	int			fd, rc;

	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return -1;
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

/*
 * Read the reply: the status line, then the body, copied to stdout as it
 * comes on success, else gathered and printed as errors.  Returns the
 * status.
 */
static int
ctl_client_reply(int fd)
{
	char	 buf[65536], head[2], *err = NULL;
	size_t	 errlen = 0, off, nhead = 0;
	ssize_t	 n;
	int	 status = -1;

	for (;;) {
		n = read(fd, buf, sizeof buf);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		off = 0;
		while (status == -1 && nhead < 2 && off < (size_t)n)
			head[nhead++] = buf[off++];
		if (status == -1 && nhead == 2) {
			if (head[0] < '0' || head[0] > '2' || head[1] != '\n') {
				fprintf(stderr, "jobdeck ctl: bad reply from "
				    "the deck\n");
				free(err);
				return 1;
			}
			status = head[0] - '0';
		}
		if (status == -1)
			continue;
		if (status == 0) {
			if (ctl_client_write_all(STDOUT_FILENO, buf + off,
			    (size_t)n - off, 0) != 0)
				return 1;
		} else {
			err = xreallocarray(err, errlen + (size_t)n - off + 1,
			    1);
			memcpy(err + errlen, buf + off, (size_t)n - off);
			errlen += (size_t)n - off;
		}
	}
	if (status == -1) {
		fprintf(stderr, "jobdeck ctl: the deck closed the connection "
		    "without a reply\n");
		return 1;
	}
	if (status != 0)
		ctl_client_errors(err != NULL ? err : "", errlen);
	free(err);
	return status;
}

/* Run `jobdeck ctl`; argv[0] is "ctl".  Returns the exit status. */
int
ctl_main(int argc, char **argv)
{
	const char	*name = "default";
	char		*path = NULL, *cause = NULL, *req = NULL;
	size_t		 len = 0;
	int		 i = 1, json = 0, fd, status, k, dashdash = 0;

	while (i < argc && argv[i][0] == '-') {
		if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		}
		if (strcmp(argv[i], "--json") == 0)
			json = 1;
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

	if (ctl_socket_path(name, 0, &path, &cause) != 0) {
		fprintf(stderr, "jobdeck ctl: %s\n", cause);
		free(cause);
		free(req);
		return 2;
	}
	if ((fd = ctl_client_connect(path)) == -1) {
		if (errno == ENOENT || errno == ECONNREFUSED)
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
		fprintf(stderr, "jobdeck ctl: %s\n", strerror(errno));
		free(req);
		close(fd);
		return 2;
	}
	free(req);
	status = ctl_client_reply(fd);
	close(fd);
	return status;
}

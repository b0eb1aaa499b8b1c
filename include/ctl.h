/*
 * ctl: the control socket.  Each deck listens on a Unix socket,
 * $XDG_RUNTIME_DIR/jobdeck/NAME.sock, else /run/user/UID/jobdeck/NAME.sock
 * when /run/user/UID is the user's own 0700 directory (a client started
 * with few variables, as MCP clients start their servers, still finds a
 * session's deck), else /tmp/jobdeck-UID/NAME.sock
 * (NAME from -S, "default" by default: [A-Za-z0-9_.-], at most 64
 * bytes).  The directory is made 0700 and must be a directory owned by
 * the user that neither group nor others can write; the socket is 0600,
 * and the server refuses (replies an error and closes) any peer whose
 * uid (SO_PEERCRED) is not its own.  A deck takes NAME.lock (flock, a
 * file left in place) beside the socket while it probes for a running
 * deck, replaces a stale socket (only one of its own user) and binds, so
 * decks of one name start one at a time.  ctl.c is the server,
 * ctl-client.c the `jobdeck ctl` client.  ctl_socket_names() lists the
 * names of the NAME.sock sockets in the directory, sorted (`jobdeck ls`
 * asks each; a SIGKILLed deck's socket is among them until the next
 * deck of its name replaces it).
 *
 * The read-only socket.  Beside NAME.sock every deck listens on NAME.ro
 * (ctl_socket_path() with CTL_PATH_READ_ONLY), made, checked, replaced
 * when stale and removed by the same rules under the same NAME.lock.  A
 * client that comes in there runs every request with ctx->read_only set:
 * only the commands that only look (CMD_READ_ONLY: ps, list, status
 * without --incremental, logs, grep, history, events, wait, help, browser
 * status...) run, streams included; anything else is answered status 1
 * with cmd_refuse_write()'s words ("kill: not allowed here: this
 * connection may only look (ps, list, ...)"), and the deck's callbacks
 * (quit, focus) are never called for it.  So a client given only NAME.ro
 * (`jobdeck ctl --read-only`, `jobdeck mcp --read-only`) can watch the
 * deck but change nothing, whatever it sends.  ctl_request_parse() is the
 * one rule that cuts a request line into words (tests/fuzz/fuzz_ctlro.c
 * runs the gate through it).
 *
 * The protocol.  A client connects, writes one request and reads one
 * reply; the server closes the connection when the reply is sent.  One
 * request is not a command: "attach KEY=VALUE..." sent with the
 * terminal's input and output fds (SCM_RIGHTS, on the request's bytes)
 * hands the connection and the fds to the deck's server of clients
 * (server.h says what is said on it from then on); a deck without one
 * (jobdeck up) answers status 2.  Fds passed with any other request are
 * closed.
 *
 *   Request: one line ending in "\n", at most CTL_REQUEST_MAX bytes with
 *   the newline: a command of the prompt's language without its "!"
 *   ("kill -TERM 3"), split into words by session_split() as the prompt
 *   splits it, and run through the same cmd_table[].  jobdeck ctl puts
 *   each word in single quotes ('it'\''s'), so the server expands
 *   nothing; a word cannot hold a newline.  An optional first word
 *   "--json" asks for the result as JSON.  A request without a newline
 *   is complete at end of file (the client may shut down its side after
 *   the request and go on reading); bytes after the newline are ignored.
 *
 *   Reply: a status line, "0\n", "1\n" or "2\n" (the exit status the
 *   client uses: success, the command failed, a bad request or usage),
 *   then the body.  On 0 the body is the command's output: text lines, or
 *   with --json one JSON document and "\n" (commands that only report a
 *   message give {"ok":true,"message":...}).  On 1 or 2 the body is the
 *   error messages, one per line, the prompt's own words ("no such job:
 *   9", "unknown command: !frob", "unterminated quote").
 *
 *   Control lines: no line of output starts with the byte CTL_CONTROL
 *   (0x1e, RS): text has its control characters stripped and JSON escapes
 *   them.  A line that does is the protocol's own, and jobdeck ctl never
 *   prints it: "\036\n" is a keepalive, "\036follow\n" starts a logs
 *   --follow stream and "\036exit N\n" ends it (see below);
 *   "\036error TEXT\n" says what jobdeck ctl tells on stderr as
 *   "jobdeck ctl: TEXT" (damage in the store a log or a grep met);
 *   "\036damaged N\n" before a grep's exit line says N runs were damaged
 *   in the store (searched up to the damage, or passed over when none of
 *   them could be read), which jobdeck ctl tells on stderr too.
 *
 *   logs ID streams the job's output as text lines (with --json one
 *   {"id","lines"} document), from the start of its log to the size the
 *   log had when the request came; logs RUN a run of the store, of this
 *   deck or an earlier one, the same way ({"run","lines"}).  A log
 *   damaged in the store is streamed up to its damage and then ends with
 *   "error" in the document (--json), "\036error logs: runs/RUN is
 *   damaged: ..." and "\036exit 1\n", so jobdeck ctl says why and exits
 *   1; so does a job's log the store cannot read at all, after the
 *   terminal's lines.
 *
 *   wait [--timeout S] ID... replies "0\n" and "\036follow\n" at once
 *   (an unknown ID: status 2, "no such job: 99"), keepalives while it
 *   waits, and once every job has ended for good (no restart pending) or
 *   left the table, or S seconds have passed, one line per job in the
 *   order given ("[3] web: completed", "[4] api: failed (exit 2)",
 *   "[5] db: running (the wait timed out)"; with --json one array of job
 *   objects), then "\036exit N\n": the status of the first job, in the
 *   order they ended, that did not complete (its exit code, 128+N for
 *   signal N, 1 if canceled, timed out or still live), 0 if all did.  A
 *   deck that quits meanwhile answers how the jobs stand then.
 *
 *   Streams: `events` and `logs --follow ID` reply "0\n" and then keep
 *   writing lines, until the client leaves or (logs) the job ends.
 *   events writes one JSON object per line: {"event":"started","id",
 *   "name","pid","command"}, {"event":"queued","id","name","command"},
 *   {"event":"output","id","text"} for each line of output as it
 *   completes (escape sequences stripped, as !logs shows it),
 *   {"event":"exited","id","exit_code","signal","duration_ms","state"},
 *   {"event":"changed","id","state","waiting_for","ready","note"} and
 *   {"event":"removed","id"}.  logs --follow writes "\036follow\n",
 *   the job's output from the start of its log and then each line as it
 *   completes (with --json, "output" events and a last "exited" one),
 *   and last "\036exit N\n", N being the status jobdeck ctl exits with:
 *   the job's exit code, 128+N for signal N, 124 if it timed out, and 1
 *   if it was canceled yet exited 0 or left the table without ending, or
 *   its log met damage (which ends the stream there, "\036error" first).  A
 *   stream that has had nothing to send for CTL_KEEPALIVE_MS is sent a
 *   keepalive, so a client can tell a quiet deck from a stopped one:
 *   jobdeck ctl gives up when nothing (not even a keepalive) has come for
 *   CTL_ANSWER_TIMEOUT_MS, and when connect() waits as long (a deck that
 *   accepts nothing), with status 2.
 *
 * Limits, so that no client can block or swamp the deck: every socket is
 * non-blocking and read and written through loop watches; a request must
 * be complete within CTL_REQUEST_TIMEOUT_MS and CTL_REQUEST_MAX bytes
 * (else "request timed out" or "request too long", status 2, and the
 * connection is closed); a NUL byte is an error.  Replies stream with a
 * small buffer per client: a log is read only as the client's socket
 * drains, a few KiB at a time, so a client costs tens of KiB and one line
 * (RAWTEXT_LINE_MAX) whatever the log's size, and each turn of the loop
 * does a bounded amount of work for it.  A client whose output waits and
 * which takes none of it for CTL_WRITE_TIMEOUT_MS is dropped; so is an
 * events client (or one following a job that is not logged) whose unsent
 * output passes CTL_OUTPUT_MAX.  A client that
 * closes its connection is dropped at once.
 *
 * Two budgets, so that clients that stay cannot lock out those that act.
 * A client whose reply is a stream (wait, events, logs, logs --follow,
 * grep) leaves the short requests' places for a stream's: at most
 * CTL_STREAMS_MAX streams at once, CTL_RO_STREAMS_MAX of them from
 * NAME.ro; one more is answered "too many streams at once" (status 1),
 * while the streams already granted go on (a script's wait is never cut
 * for another's).  Every other client (sending its request, waiting for
 * a session line, reading its reply) holds one of CTL_CLIENTS_MAX short
 * places, CTL_RO_CLIENTS_MAX at most from NAME.ro, so the full socket
 * always has places of its own.  When a socket's places are taken, a new
 * connection takes the place of the oldest client still sending its
 * request CTL_IDLE_MS after it came (told "request not complete: dropped
 * for a new client", status 2; a reader only of a reader); with no such
 * client it is not refused but waits, unaccepted, in the socket's
 * backlog (listen()'s CTL_CLIENTS_MAX, then connect() waits) until a
 * place frees: short requests end within CTL_REQUEST_TIMEOUT_MS,
 * CTL_WRITE_TIMEOUT_MS or their session line's limit.  So a kill or a
 * ps is always served, at worst after a short wait, and the deck holds
 * at most CTL_CLIENTS_MAX + CTL_STREAMS_MAX clients (fds, and tens of
 * KiB each; an events stream up to CTL_OUTPUT_MAX).  A client of another
 * uid is answered "permission denied" (status 2).
 *
 * Ownership: the caller owns the struct ctl; it owns the listening
 * sockets (both unlinked by ctl_free()), its clients and their sockets, and its loop
 * watches and timers.  The cmd_ctx given to ctl_start() is copied; what
 * it points to, and the callbacks, must outlive the struct ctl.  The
 * server never prints and never exits; ctl_main() (the client) prints and
 * returns an exit status.
 */
#ifndef JOBDECK_CTL_H
#define JOBDECK_CTL_H

#include <stdio.h>

#include <stddef.h>

struct cmd_ctx;
struct ctl;
struct job;
struct loop;
struct session;

/*
 * An attach request handed to the deck (server.h): the connection and the
 * terminal's two fds (input, output) are the callee's from then on; the
 * words after "attach" (key=value) are borrowed for the call.
 */
struct ctl_attach {
	int	  sock;
	int	  fds[2];
	int	  read_only;		/* came in on NAME.ro */
	int	  argc;
	char	**argv;
};

/* What the deck does for the socket's clients; any member may be NULL. */
struct ctl_cbs {
	void	(*quit)(void *arg);			/* quit */
	void	(*focus)(struct job *, void *arg);	/* focus ID */
	void	(*attach)(const struct ctl_attach *, void *arg); /* attach */
};

#define CTL_NAME_MAX		64
#define CTL_REQUEST_MAX		(64 * 1024)
#define CTL_REQUEST_TIMEOUT_MS	5000
#define CTL_WRITE_TIMEOUT_MS	5000	/* output waits, nothing is taken */
#define CTL_KEEPALIVE_MS	2000	/* a quiet stream's keepalive */
#define CTL_ANSWER_TIMEOUT_MS	10000	/* the client's wait for a byte */
#define CTL_OUTPUT_MAX		(256 * 1024)	/* a pushed stream's backlog */
#define CTL_CLIENTS_MAX		128	/* short requests at once */
#define CTL_RO_CLIENTS_MAX	(CTL_CLIENTS_MAX / 2)	/* of them on NAME.ro */
#define CTL_STREAMS_MAX		512	/* streams (wait, events...) at once */
#define CTL_RO_STREAMS_MAX	(CTL_STREAMS_MAX / 2)	/* of them on NAME.ro */
#define CTL_IDLE_MS		1000	/* a request not sent may give way */
#define CTL_CONTROL		'\036'	/* starts a line of the protocol */

/* Flags of ctl_socket_path(). */
#define CTL_PATH_CREATE		0x1	/* make the directory if need be */
#define CTL_PATH_READ_ONLY	0x2	/* the read-only socket, NAME.ro */

int		 ctl_socket_dir(int create, char **dir, char **cause);
int		 ctl_socket_path(const char *name, int flags, char **path,
		    char **cause);
#define CTL_CONNECT_NOWAIT	0x1	/* a full backlog: EAGAIN at once */
int		 ctl_connect(const char *path, int flags);
int		 ctl_socket_names(char ***names, size_t *count, char **cause);
struct ctl	*ctl_listen(const char *name, char **cause);
void		 ctl_start(struct ctl *, struct loop *,
		    const struct cmd_ctx *, const struct ctl_cbs *, void *arg);
void		 ctl_free(struct ctl *);
int		 ctl_request_parse(const struct session *, char *line,
		    size_t len, int *argc, char ***argv, int *first,
		    int *json, char **cause);

int		 ctl_main(int argc, char **argv);
void		 ctl_usage(FILE *, const char *lead);

#endif

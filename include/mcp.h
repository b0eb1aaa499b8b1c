/*
 * mcp: `jobdeck mcp [-S NAME] [--read-only] [--start]`, a Model Context
 * Protocol server on stdio for agents.  Each line of stdin is one
 * JSON-RPC 2.0 message; each answer is one line on stdout; stderr is the
 * server's log.  The tools (src/mcp-tools.c) run commands of the deck
 * named NAME over its control socket (ctl.h), the read-only one with
 * --read-only, so an agent starts and watches jobs in the very deck a
 * person is looking at.  --start starts a deck without a screen
 * (`jobdeck up --stay`) when none of that name runs, and quits it when the
 * session ends: only the deck it started (its child, known by the pid
 * that listens on the socket, SO_PEERCRED), and only while that child
 * lives, so a deck that another session started, or that won the name
 * in a race with ours, is never stopped.
 *
 * Every request read before the end of stdin is answered (tools/call
 * included: the session waits for its calls), stdout is flushed, and
 * then the session ends; a signal ends it at once.  Requests of the deck
 * queue within the process: at most MCP_DECK_SHORT_MAX at the deck at
 * once, and MCP_DECK_WAIT_MAX waits (MCP_REQ_WAIT: they last until jobs
 * end, and take a stream's place at the deck, ctl.h), each kind in the
 * order asked, so that a burst of calls is never refused for the
 * deck's limits and a wait never holds up a short request.
 *
 * The server itself (mcp.c) knows nothing of stdio or sockets: it is
 * given one message at a time (mcp_server_input()) and reaches the world
 * through a struct mcp_io, so the unit tests and the fuzz target drive it
 * with a fake deck.  mcp_main() wires it to stdin, stdout and real
 * control-socket requests (ctlconn.h).
 *
 * Ownership: the caller owns the struct mcp_server and the loop; the
 * server owns its calls in flight and cancels their requests when it is
 * freed.  Strings handed to callbacks are valid during the call only.
 */
#ifndef JOBDECK_MCP_H
#define JOBDECK_MCP_H

#include <stdio.h>

#include <stddef.h>

struct loop;
struct mcp_server;
struct mcp_request;	/* a deck request in flight: the io's own */

/*
 * A deck's answer to one request, as jobdeck ctl sees it: status 0, 1 or
 * 2 (ctl.h), and exit the N of a stream's "\036exit N" line (wait), else
 * -1; body is what came after the status line with the protocol's control
 * lines taken out.  status -1: no answer (no deck of that name, a deck
 * that stopped answering, a lost connection, a reply over the limit), and
 * body says why in words for the agent.
 */
struct mcp_reply {
	int		 status;
	int		 exit;
	const char	*body;
	size_t		 len;
};

typedef void	mcp_reply_cb(const struct mcp_reply *, void *cb_arg);

/* Flags of a deck request (mcp_io's start). */
#define MCP_REQ_JSON	0x1	/* --json */
#define MCP_REQ_WAIT	0x2	/* a wait: answered when its jobs end */

/*
 * What the server needs of the world.  send writes one JSON-RPC message
 * (without its newline).  start begins a request of the deck: words as
 * jobdeck ctl takes them (the command and its arguments, NULL-terminated;
 * flags MCP_REQ_*); done is called exactly once, from the loop and
 * never from inside start, unless cancel is called first; NULL means the
 * request could not even begin (done is not called).  quit is called once
 * the session is over (stdin closed, or the client asked); may be NULL.
 */
struct mcp_io {
	void	(*send)(const char *msg, size_t len, void *arg);
	struct mcp_request *(*start)(char *const *words, int flags,
		    mcp_reply_cb *done, void *cb_arg, void *arg);
	void	(*cancel)(struct mcp_request *, void *arg);
	void	(*quit)(void *arg);
};

/* Options of a server. */
struct mcp_opts {
	int		 read_only;	/* --read-only: the Ask profile */
	const char	*deck;		/* -S NAME, for messages */
};

#define MCP_LINE_MAX	(4 * 1024 * 1024)	/* one message, in bytes */
#define MCP_OUTPUT_MAX	(64 * 1024)		/* a tool's output text */
#define MCP_DECK_SHORT_MAX	16	/* requests at the deck at once */
#define MCP_DECK_WAIT_MAX	64	/* ... and waits (MCP_REQ_WAIT) */
#define MCP_CALLS_MAX		1024	/* tools/call in flight at once */

struct mcp_server *mcp_server_new(struct loop *, const struct mcp_opts *,
		    const struct mcp_io *, void *arg);
void		 mcp_server_input(struct mcp_server *, const char *msg,
		    size_t len);
int		 mcp_server_busy(const struct mcp_server *);
void		 mcp_server_too_long(struct mcp_server *);
void		 mcp_server_free(struct mcp_server *);

int		 mcp_main(int argc, char **argv);
void		 mcp_usage(FILE *, const char *lead);

#endif

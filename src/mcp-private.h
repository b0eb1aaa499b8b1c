/*
 * mcp-private.h: what mcp.c (the protocol) and mcp-tools.c (the tools)
 * share.  A tool is data: its name, words for the agent, a table of its
 * parameters (from which mcp.c makes the inputSchema of tools/list and
 * checks every call's arguments before the tool sees them), its
 * outputSchema as JSON text, whether the read-only profile lists it, and
 * the function that starts a call.
 *
 * A call runs on the loop: the tool's start function asks the deck
 * (mcp_call_ctl(), any number of times, one after another or at once) and
 * ends the call exactly once with mcp_call_finish() (a result: its
 * structuredContent and text), mcp_call_fail() (a result with isError:
 * the tool ran and could not do it, in words for the agent) or
 * mcp_call_invalid() (a JSON-RPC error -32602: arguments the parameter
 * table cannot catch).  After that the call is gone: a tool must not touch
 * it, and mcp.c frees the tool's state (mcp_call_set_state()).  A call
 * whose client goes away or cancels it is freed by mcp.c: its deck
 * requests are cancelled and their callbacks never come.
 *
 * Ownership: mcp.c owns every struct mcp_call and struct mcp_session; the
 * arguments given to start and the replies given to callbacks are
 * borrowed for the callback.
 */
#ifndef JOBDECK_MCP_PRIVATE_H
#define JOBDECK_MCP_PRIVATE_H

#include <stddef.h>
#include <stdint.h>

#include "mcp.h"

struct jsonval;
struct mcp_call;
struct mcp_session;

/* The type of a parameter, as JSON Schema says it. */
enum mcp_type {
	MCP_STRING,
	MCP_INTEGER,
	MCP_NUMBER,
	MCP_BOOLEAN,
	MCP_STRING_ARRAY,	/* an array of strings */
	MCP_STRING_MAP,		/* an object of string values (env) */
	MCP_JOB_ID,		/* an integer id, or a job's name */
	MCP_JOB_NAME		/* a job's name (name_check_job()) */
};

/* One parameter of a tool. */
struct mcp_param {
	const char	*name;
	enum mcp_type	 type;
	int		 required;
	const char	*description;
	const char	*const *choices;	/* MCP_STRING or items of */
						/*   MCP_STRING_ARRAY: the */
						/*   allowed words, NULL-ended */
	double		 min;		/* numbers: bounds, when min < max */
	double		 max;
	int		 nul_ok;	/* MCP_STRING: may hold NUL (the */
					/*   tool escapes it); any other */
					/*   string becomes a deck word, */
					/*   which a NUL would cut */
};

typedef void	mcp_tool_start(struct mcp_call *, const struct jsonval *args);

struct mcp_tool {
	const char		*name;
	const char		*title;
	const char		*description;
	const struct mcp_param	*params;	/* ended by a NULL name */
	const char		*output_schema;	/* a JSON object, as text */
	int			 read_only;	/* listed in the Ask profile */
	mcp_tool_start		*start;
};

/* mcp-tools.c: every tool, ended by a NULL name. */
extern const struct mcp_tool mcp_tools[];

typedef void	mcp_call_cb(struct mcp_call *, const struct mcp_reply *);

/* mcp.c, for the tools. */
int		 mcp_call_ctl(struct mcp_call *, char *const *words, int flags,
		    mcp_call_cb *done);
void		 mcp_call_finish(struct mcp_call *, const char *structured,
		    const char *text);
void		 mcp_call_fail(struct mcp_call *, const char *fmt, ...)
		    __attribute__((format(printf, 2, 3)));
void		 mcp_call_invalid(struct mcp_call *, const char *fmt, ...)
		    __attribute__((format(printf, 2, 3)));
void		 mcp_call_set_state(struct mcp_call *, void *state,
		    void (*free_state)(void *));
void		*mcp_call_state(struct mcp_call *);
const struct mcp_tool *mcp_call_tool(const struct mcp_call *);
struct mcp_session *mcp_call_session(struct mcp_call *);

/* The session: who the client is, and where it has read each job to. */
const char	*mcp_session_client(const struct mcp_session *);
const char	*mcp_session_mark(const struct mcp_session *, int64_t job,
		    const char *run);
void		 mcp_session_set_mark(struct mcp_session *, int64_t job,
		    const char *run, const char *mark);

#endif

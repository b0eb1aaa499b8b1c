/*
 * mcp-tools-private.h: what the pieces of the MCP tools share.  The
 * table of tools and their schemas is mcp-tools.c; what every tool uses
 * (a call's state, a deck request's words, the deck's replies read, the
 * tools' job object and status words) is mcp-tools-shared.c; the tools on
 * a job that exists (status, list, cancel, send_input, screen) are
 * mcp-tools-job.c; the tools that start a command (terminal, run) are
 * mcp-tools-run.c; the tools that change the configured jobs
 * (stack_reload, stack_scale) are mcp-tools-stack.c.
 *
 * Ownership: a struct mcp_tools_call is the call's state (mcp.c frees it
 * with the call); a struct mcp_tools_words belongs to its caller until
 * mcp_tools_ask() clears it.  Strings returned as char * are the
 * caller's to free; const ones are borrowed from the document given.
 */
#ifndef JOBDECK_MCP_TOOLS_PRIVATE_H
#define JOBDECK_MCP_TOOLS_PRIVATE_H

#include <stddef.h>
#include <stdint.h>

#include "jobfield.h"
#include "mcp-private.h"

struct json_buf;
struct jsonval;

/* How many lines of a deck's error reach the agent. */
#define MCP_TOOLS_ERROR_LINES	8

/* How often a status read starts over because the job restarted meanwhile. */
#define MCP_TOOLS_RETRIES	3

/* An agent's name, as spawn --agent takes it. */
#define MCP_TOOLS_AGENT_MAX	64

/* The state of one call, whatever the tool (mcp_call_set_state()). */
struct mcp_tools_call {
	char		*job;		/* the job, as asked */
	int64_t		 id;		/* its id, once known */
	char		*run;		/* the run first read */
	char		*since;		/* where this read starts */
	int		 incremental;	/* the session's mark moves */
	int		 async;		/* terminal: answer at once */
	const char	*previous;	/* cancel: the status before */
	int		 tries;		/* reads started over */
	double		 timeout;	/* seconds */
	int		 exit;		/* run: the wait's exit */
	char		*program;	/* run: for messages */
	unsigned int	 filter;	/* list: bits of status words */
	int64_t		 limit;		/* list: at most */
	size_t		 bytes;		/* send: how many */
};

/* The words of one deck request, NULL-terminated. */
struct mcp_tools_words {
	char		**v;
	size_t		  n;
	size_t		  size;
};

/* mcp-tools.c: the tools' status words, for status_filter. */
extern const char *const mcp_tools_status_words[];

/* mcp-tools.c: the names-by-change arrays of the deck's reload report. */
extern const char *const mcp_tools_change_words[];

/* The tools' start functions (mcp_tool_start). */
void		 mcp_tools_terminal(struct mcp_call *, const struct jsonval *);
void		 mcp_tools_run(struct mcp_call *, const struct jsonval *);
void		 mcp_tools_status(struct mcp_call *, const struct jsonval *);
void		 mcp_tools_job_list(struct mcp_call *, const struct jsonval *);
void		 mcp_tools_cancel(struct mcp_call *, const struct jsonval *);
void		 mcp_tools_send(struct mcp_call *, const struct jsonval *);
void		 mcp_tools_screen(struct mcp_call *, const struct jsonval *);
void		 mcp_tools_reload(struct mcp_call *, const struct jsonval *);
void		 mcp_tools_scale(struct mcp_call *, const struct jsonval *);

/* mcp-tools-shared.c: a call's state and a deck request's words. */
struct mcp_tools_call *mcp_tools_call_new(struct mcp_call *);
void		 mcp_tools_add(struct mcp_tools_words *, const char *);
void		 mcp_tools_addf(struct mcp_tools_words *, const char *, ...)
		    __attribute__((format(printf, 2, 3)));
void		 mcp_tools_add_escaped(struct mcp_tools_words *,
		    const char *);
void		 mcp_tools_add_place(struct mcp_tools_words *,
		    const struct jsonval *);
void		 mcp_tools_words_clear(struct mcp_tools_words *);
int		 mcp_tools_ask(struct mcp_call *, struct mcp_tools_words *,
		    int, mcp_call_cb *);
char		*mcp_tools_agent(struct mcp_call *);
char		*mcp_tools_escape(const char *, size_t);

/* mcp-tools-shared.c: the deck's replies. */
char		*mcp_tools_error_text(const struct mcp_reply *);
int		 mcp_tools_ok(struct mcp_call *, const struct mcp_reply *);
struct jsonval	*mcp_tools_parse(struct mcp_call *, const struct mcp_reply *);
struct jsonval	*mcp_tools_parse_job(struct mcp_call *,
		    const struct mcp_reply *, int64_t *);
const struct jsonval *mcp_tools_field(const struct jsonval *,
		    enum jobfield_id);
const char	*mcp_tools_string(const struct jsonval *, enum jobfield_id);
int		 mcp_tools_output_failed(struct mcp_call *,
		    const struct jsonval *);

/* mcp-tools-shared.c: the tools' arguments. */
char		*mcp_tools_job_word(const struct jsonval *);
int		 mcp_tools_arg_bool(const struct jsonval *, const char *, int);
double		 mcp_tools_arg_seconds(struct mcp_call *,
		    const struct jsonval *, const char *, double, double);
int		 mcp_tools_arg_host(struct mcp_call *, const struct jsonval *);

/* mcp-tools-shared.c: results, the tools' job object and status words. */
void		 mcp_tools_finish(struct mcp_call *, struct json_buf *,
		    char *);
void		 mcp_tools_cat(char **, const char *, ...)
		    __attribute__((format(printf, 2, 3)));
void		 mcp_tools_put_string(struct json_buf *, const char *,
		    const struct jsonval *);
void		 mcp_tools_put_int(struct json_buf *, const char *,
		    const struct jsonval *);
void		 mcp_tools_put_bool(struct json_buf *, const char *,
		    const struct jsonval *);
void		 mcp_tools_put_job(struct json_buf *, const struct jsonval *);
void		 mcp_tools_put_output(struct json_buf *,
		    const struct jsonval *, int, char **);
const char	*mcp_tools_job_status(const struct jsonval *);
int		 mcp_tools_is_running(const char *);
int		 mcp_tools_is_live(const char *);
char		*mcp_tools_job_line(const struct jsonval *);

#endif

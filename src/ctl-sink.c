/*
 * ctl-sink.c: a connection as the sink of a command's task (cmdsink.h:
 * wait, grep, logs) (ctl-private.h).  The task's lines and documents go
 * to the connection's queue a line each, its bytes as they are; its
 * control lines and its end are the protocol's: "\036WORD TEXT", then
 * "\036exit N" (a task whose code comes at the end says so first:
 * "\036follow") and the connection closes once all is sent.  The
 * connection counts as a stream (ctl_cmd_stream()), holds the task off
 * while CTL_STREAM_LOW bytes wait to be sent, tells it when the socket
 * drains and pulls its log (ctl_client_flush(): CTL_FILL_MAX bytes a
 * flush); a task that pushes what jobs print may let CTL_OUTPUT_MAX
 * bytes wait (the queue's limit: past it the connection is dropped); a
 * quiet task (wait, a follow) is sent keepalives.  What the task writes
 * after the peer went is dropped; the task is freed with the connection.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdsink.h"
#include "ctl.h"
#include "ctl-private.h"
#include "outq.h"

static int	ctl_sink_open(void *, char **);
static void	ctl_sink_text(const char *, size_t, void *);
static void	ctl_sink_raw(const char *, size_t, void *);
static void	ctl_sink_control(const char *, const char *, void *);
static int	ctl_sink_stalled(void *);
static void	ctl_sink_pushed(int, void *);
static void	ctl_sink_ready(void *);
static void	ctl_sink_done(int, void *);

static const struct cmd_sink_ops ctl_sink_ops = {
	.open = ctl_sink_open,
	.text = ctl_sink_text,
	.json = ctl_sink_text,
	.raw = ctl_sink_raw,
	.control = ctl_sink_control,
	.stalled = ctl_sink_stalled,
	.pushed = ctl_sink_pushed,
	.ready = ctl_sink_ready,
	.done = ctl_sink_done,
};

/* Make a new connection's sink. */
void
ctl_sink_init(struct ctl_client *c)
{
	cmd_sink_init(&c->sink, c->ctl->tasks, &ctl_sink_ops, c);
}

/* A task begins: the connection streams once the reply starts. */
static int
ctl_sink_open(void *arg, char **cause)
{
	return ctl_cmd_stream(arg, CTL_STREAM_TASK, cause);
}

/*
 * Queue bytes of a task's output, unless the peer has gone; one that
 * passed the queue's limit is dropped.
 */
static void
ctl_sink_add(struct ctl_client *c, const char *s, size_t len)
{
	if (c->flags & CTL_DEAD)
		return;
	if (outq_add(c->out, s, len) != 0 || outq_error(c->out) != 0) {
		ctl_client_drop(c);
		return;
	}
	c->flags |= CTL_SENT;
	ctl_client_watch(c);
}

/* A line of the task's (or a JSON document): it and a newline. */
static void
ctl_sink_text(const char *line, size_t len, void *arg)
{
	struct xbuf	b = { NULL, 0, 0 };

	xbuf_add(&b, line, len);
	xbuf_add(&b, "\n", 1);
	ctl_sink_add(arg, b.s, b.len);
	xbuf_clear(&b);
}

/* Bytes of the task's, as they are. */
static void
ctl_sink_raw(const char *buf, size_t len, void *arg)
{
	ctl_sink_add(arg, buf, len);
}

/* A control line: "\036WORD TEXT". */
static void
ctl_sink_control(const char *word, const char *text, void *arg)
{
	char	*line;

	line = xprintf("%c%s %s\n", CTL_CONTROL, word, text);
	ctl_sink_add(arg, line, strlen(line));
	free(line);
}

/* Whether the task should wait: the peer went, or enough waits to go. */
static int
ctl_sink_stalled(void *arg)
{
	struct ctl_client	*c = arg;

	return (c->flags & CTL_DEAD) ||
	    ctl_client_pending(c) >= CTL_STREAM_LOW;
}

/*
 * The task pushes what jobs print (a limit to what may wait), or no
 * longer (the peer reads at its pace).
 */
static void
ctl_sink_pushed(int on, void *arg)
{
	struct ctl_client	*c = arg;

	if (!(c->flags & CTL_DEAD))
		outq_set_limit(c->out, on ? CTL_OUTPUT_MAX : 0,
		    OUTQ_LIMIT_FAIL);
}

/* The task has output to pull: fill when the socket takes it. */
static void
ctl_sink_ready(void *arg)
{
	ctl_client_watch(arg);
}

/*
 * The task is done: the exit line (if it has a code), and close once all
 * is sent.
 */
static void
ctl_sink_done(int code, void *arg)
{
	struct ctl_client	*c = arg;
	char			 line[32];

	if (c->flags & CTL_DEAD)
		return;
	if (code >= 0) {
		snprintf(line, sizeof line, "%cexit %d\n", CTL_CONTROL, code);
		outq_add(c->out, line, strlen(line));
	}
	if (c->flags & CTL_WAIT) {
		c->ctl->nwait--;
		c->flags &= ~CTL_WAIT;
	}
	c->flags |= CTL_CLOSING | CTL_SENT;
	ctl_client_flush(c);
}

/*
 * Start the task after the "0" status line: a follow line when its code
 * comes at the end (so the client takes the exit line's status),
 * keepalives for a quiet one (so the client's time limit never cuts it),
 * then the task.
 */
void
ctl_sink_start(struct ctl_client *c)
{
	char	line[16];
	int	flags = cmd_sink_flags(&c->sink);

	if (flags & CMD_TASK_CODE) {
		snprintf(line, sizeof line, "%cfollow\n", CTL_CONTROL);
		outq_add(c->out, line, strlen(line));
	}
	if (flags & CMD_TASK_QUIET) {
		c->flags |= CTL_WAIT;
		c->ctl->nwait++;
		ctl_keepalive_start(c->ctl);
	}
	cmd_sink_start(&c->sink);
	ctl_client_flush(c);
}

/* The socket drained: a task held off may go on. */
void
ctl_sink_drained(struct ctl_client *c)
{
	if (cmd_sink_busy(&c->sink) && !(c->flags & CTL_DEAD) &&
	    ctl_client_pending(c) < CTL_STREAM_LOW)
		cmd_sink_writable(&c->sink);
}

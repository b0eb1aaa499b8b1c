/*
 * ctl-sink.c: a connection as the sink of a command's task (cmdsink.h:
 * wait, grep) (ctl-private.h).  The task's lines and documents go to the
 * connection's queue a line each; its control lines and its end are the
 * protocol's: "\036WORD TEXT", then "\036exit N" and the connection
 * closes once all is sent.  The connection counts as a stream
 * (ctl_cmd_stream()), holds the task off while CTL_STREAM_LOW bytes wait
 * to be sent and tells it when the socket drains; a quiet task (wait) is
 * sent keepalives.  What the task writes after the peer went is dropped;
 * the task is freed with the connection.
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
static void	ctl_sink_control(const char *, const char *, void *);
static int	ctl_sink_stalled(void *);
static void	ctl_sink_done(int, void *);

static const struct cmd_sink_ops ctl_sink_ops = {
	.open = ctl_sink_open,
	.text = ctl_sink_text,
	.json = ctl_sink_text,
	.raw = NULL,
	.control = ctl_sink_control,
	.stalled = ctl_sink_stalled,
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
	return ctl_cmd_stream(arg, CTL_STREAM_TASK, NULL, cause);
}

/* Queue bytes of a task's output, unless the peer has gone. */
static void
ctl_sink_add(struct ctl_client *c, const char *s, size_t len)
{
	if (c->flags & CTL_DEAD)
		return;
	outq_add(c->out, s, len);
	c->flags |= CTL_SENT;
	ctl_client_watch(c);
}

/* A line of the task's (or a JSON document): it and a newline. */
static void
ctl_sink_text(const char *line, size_t len, void *arg)
{
	ctl_sink_add(arg, line, len);
	ctl_sink_add(arg, "\n", 1);
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

/* The task is done: the exit line, and close once all is sent. */
static void
ctl_sink_done(int code, void *arg)
{
	struct ctl_client	*c = arg;
	char			 line[32];

	if (c->flags & CTL_DEAD)
		return;
	snprintf(line, sizeof line, "%cexit %d\n", CTL_CONTROL, code);
	outq_add(c->out, line, strlen(line));
	if (c->flags & CTL_WAIT) {
		c->ctl->nwait--;
		c->flags &= ~CTL_WAIT;
	}
	c->flags |= CTL_CLOSING | CTL_SENT;
	ctl_client_flush(c);
}

/*
 * Start the task after the "0" status line: a follow line (so the client
 * takes the exit line's status), keepalives for a quiet one (so the
 * client's time limit never cuts it), then the task.
 */
void
ctl_sink_start(struct ctl_client *c)
{
	char	line[16];

	snprintf(line, sizeof line, "%cfollow\n", CTL_CONTROL);
	outq_add(c->out, line, strlen(line));
	if (cmd_sink_quiet(&c->sink)) {
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

/*
 * ctl-private.h: what the parts of the control socket's server share:
 * ctl.c (connections, requests, replies), ctl-socket.c (paths, locks,
 * binding), ctl-events.c (events and their feeds) and ctl-sink.c (a
 * connection as a command task's sink: wait, grep, logs).
 * Nothing else includes it.
 *
 * Ownership: a struct ctl owns its sockets, clients, feeds and tasks hub;
 * a client owns its buffers, its outq and its sink's task (wait, grep,
 * logs).
 */
#ifndef JOBDECK_CTL_PRIVATE_H
#define JOBDECK_CTL_PRIVATE_H

#include <sys/types.h>

#include <stdint.h>

#include "cmd.h"
#include "cmdsink.h"
#include "ctl.h"
#include "store.h"
#include "xmalloc.h"

struct job_reader;
struct outq;
struct rawtext;

#define CTL_ACCEPT_BURST	64	/* connections accepted per turn */
#define CTL_ACCEPT_PAUSE_MS	100	/* out of fds: try again after */
#define CTL_READ_CHUNK		4096	/* request bytes per read */
#define CTL_STREAM_LOW		32768	/* read the run while less waits */
#define CTL_FILL_MAX		65536	/* a task's log read per flush */
#define CTL_PARTIAL_MS		250	/* quiet time before a partial line */

/* What a command turned its client into. */
enum ctl_stream {
	CTL_STREAM_NONE,
	CTL_STREAM_EVENTS,	/* events */
	CTL_STREAM_TASK		/* a command's task on the sink (wait...) */
};

struct ctl_client {
	struct ctl	*ctl;
	int		 fd;
	int64_t		 since;		/* ms: when it came */
	struct xbuf	 in;		/* the request so far */
	struct outq	*out;		/* unsent output */
	uint64_t	 req_timer;	/* the request's time limit */
	int		 json;

	/* Collected while the command runs. */
	struct xbuf	 body;
	struct xbuf	 messages;
	struct xbuf	 errors;
	enum ctl_stream	 stream;
	struct cmd_sink	 sink;		/* a command's task writes here */
	int		 passed[2];	/* fds sent with the request (attach) */
	int		 npassed;

#define CTL_ANSWERED	0x1	/* the request is read */
#define CTL_EVENTS	0x2	/* streaming every job's events */
#define CTL_NO_INPUT	0x40	/* the peer shut down its side */
#define CTL_SENT	0x80	/* sent something since the keepalive tick */
#define CTL_CLOSING	0x100	/* close once the output is sent */
#define CTL_DEAD	0x200	/* socket closed: free at the next reap */
#define CTL_WAIT	0x800	/* a quiet task (wait): keepalives */
#define CTL_READ_ONLY	0x1000	/* came in on NAME.ro: may only look */
#define CTL_LATER	0x2000	/* a session line: answers when it is done */
#define CTL_STREAMING	0x4000	/* a stream: holds no short request's place */
	int		 flags;
};

/*
 * Where the events stream is in a job's output: its run in the store and
 * the lines sent (a partial last line goes after CTL_PARTIAL_MS of quiet,
 * at quiet_at), or for a job that is not logged a converter of its bytes.
 */
struct ctl_feed {
	struct job		*job;
	struct job_reader	*reader;
	struct store_mark		 mark;
	int64_t			 quiet_at;	/* ms, 0: no partial waits */
	struct rawtext		*rt;
};

/* A listening socket: NAME.sock, or NAME.ro for clients that only look. */
struct ctl_sock {
	int			  fd;
	char			 *path;
	dev_t			  dev;	/* our socket, to unlink */
	ino_t			  ino;
};

#define CTL_SOCK_FULL		0	/* the index of NAME.sock */
#define CTL_SOCK_READ_ONLY	1	/* ... of NAME.ro */
#define CTL_SOCKS		2

struct ctl {
	struct loop		 *loop;
	struct jobtable		 *jt;
	struct ctl_sock		  socks[CTL_SOCKS];
	struct cmd_ctx		  ctx;
	const struct ctl_cbs	 *cbs;
	void			 *cbs_arg;
	int			  jt_handle;

	struct ctl_client	**clients;	/* in the order they came */
	int			  nclients;
	int			  alloc;
	int			  nevents;	/* clients of events */
	int			  nwait;	/* clients of a quiet task */
	struct ctl_feed		 *feeds;
	int			  nfeeds;
	struct cmd_tasks	 *tasks;	/* the clients' tasks, on jt */

	uint64_t		  reap_timer;
	uint64_t		  accept_timer;	/* out of fds: accept later */
	uint64_t		  room_timer;	/* full: one may become idle */
	int64_t			  room_at;	/* ... at this time */
	uint64_t		  keepalive_timer;
	uint64_t		  partial_timer;
};

/* ctl.c: connections, requests, replies. */
void		 ctl_buf_line(struct xbuf *, const char *);
size_t		 ctl_client_pending(const struct ctl_client *);
void		 ctl_client_queue(struct ctl_client *, struct xbuf *);
void		 ctl_client_drop(struct ctl_client *);
void		 ctl_client_flush(struct ctl_client *);
void		 ctl_client_send(struct ctl_client *, const char *, size_t);
void		 ctl_client_watch(struct ctl_client *);
void		 ctl_keepalive_start(struct ctl *);
int		 ctl_cmd_stream(struct ctl_client *, enum ctl_stream,
		    char **cause);
int		 ctl_count(const struct ctl *, int mask, int flags);

/* ctl-socket.c: paths, locks, binding. */
int		 ctl_probe(const char *path, char **cause);
int		 ctl_lock(const char *path, char **cause);
int		 ctl_bind(const char *name, struct ctl_sock *, char **cause);
void		 ctl_unbind(struct ctl_sock *);

/* ctl-events.c: events and their feeds. */
int		 ctl_cmd_events(void *, char **);
void		 ctl_feeds_start(struct ctl *);
void		 ctl_feed_clear(struct ctl_feed *);
struct ctl_feed	*ctl_feed(struct ctl *, struct job *, int);
void		 ctl_job_started(struct job *, void *);
void		 ctl_job_queued(struct job *, void *);
void		 ctl_job_changed(struct job *, void *);
void		 ctl_job_output(struct job *, const char *, size_t, void *);
void		 ctl_job_exited(struct job *, void *);
void		 ctl_job_removed(struct job *, void *);

/* ctl-sink.c: a connection as a command task's sink. */
void		 ctl_sink_init(struct ctl_client *);
void		 ctl_sink_start(struct ctl_client *);
void		 ctl_sink_drained(struct ctl_client *);

#endif

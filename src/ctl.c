/*
 * ctl.c: the control socket's server (the protocol is in ctl.h).
 *
 * The socket path and its directory are checked here for the client too.
 * ctl_listen() runs before the screen is taken: it finds out whether a
 * deck of that name runs (connect() succeeds), replaces a socket a crashed
 * deck left (connect() is refused), and binds; so for NAME.sock and then
 * the read-only NAME.ro.  ctl_start() then watches both sockets on the
 * loop and subscribes to the job table.  A client of NAME.ro is marked
 * CTL_READ_ONLY when accepted and every request it makes runs with
 * ctx.read_only set; the callbacks that reach the deck (quit, focus)
 * do nothing for it.
 *
 * Each client is read until its request line is complete, then the
 * command runs through cmd_execute() with a cmd_client of this file that
 * collects messages, errors, shown text and JSON into the reply; the reply
 * is written as far as the socket takes it, the rest when it is writable.
 *
 * `logs` is not collected: the command hands the job over (the client's
 * logs and follow callbacks) and the client becomes a log stream.  The
 * job's log file is read from its start, a chunk at a time and only while
 * less than CTL_STREAM_LOW bytes wait to be sent, at most CTL_FILL_MAX
 * bytes per flush, and each chunk goes through one rawtext_take(); so a
 * client holds tens of KiB and one line whatever the size of the log, and
 * a turn of the loop does a bounded amount of work for it.  Plain `logs`
 * stops at the size the log had when it was asked for; `logs --follow`
 * waits at the end of the log for the job's next output and stops at the
 * size the log has when the job ends.  A job that is not logged (no log
 * directory, or logging failed) is streamed from its emulator's text,
 * which its scrollback bounds.  `logs RUN` streams a run of the store
 * (of any deck) the same way.  A run damaged in the store is streamed up
 * to its damage, and the stream ends saying why ("\036error logs: ...")
 * with a non-zero exit line; so does one whose run could not be read at
 * all, after the emulator's lines.
 *
 * `events` clients are sent every job event as it happens: a job's output
 * is cut into lines by one rawtext per job.  An events client (or one
 * following a job that is not logged) whose unsent output passes
 * CTL_OUTPUT_MAX is dropped.
 *
 * A client with output waiting is dropped when for CTL_WRITE_TIMEOUT_MS
 * its socket took nothing and it read nothing of what the socket holds
 * (SIOCOUTQ did not shrink).  A stream that had nothing to send for
 * CTL_KEEPALIVE_MS is sent a keepalive line, so that its client can tell
 * a quiet deck from a stopped one.  A peer that closes is noticed at once:
 * a client is always polled for input or, once its peer has shut down its
 * side, for the hangup alone.
 *
 * Places (ctl.h): a client holds a short request's place until its reply
 * starts a stream (CTL_STREAMING), which counts against the streams'
 * budget instead (ctl_cmd_stream() refuses one over it).  A listening
 * socket whose short places are taken, with no idle request to give way,
 * is not polled (ctl_accept_update()): its new connections wait in the
 * kernel's backlog until a client is freed or becomes a stream, or the
 * oldest request still being sent has been at it for CTL_IDLE_MS.
 *
 * A client is never freed inside a callback: dropping one closes its
 * socket at once and marks it dead, and a zero-delay timer frees the dead.
 */
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/sockios.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "ctl.h"
#include "debuglog.h"
#include "fatal.h"
#include "grep.h"
#include "job.h"
#include "jobtable.h"
#include "json.h"
#include "loop.h"
#include "textesc.h"
#include "waitstatus.h"
#include "rawtext.h"
#include "session.h"
#include "store.h"
#include "xmalloc.h"

#define CTL_ACCEPT_BURST	64	/* connections accepted per turn */
#define CTL_ACCEPT_PAUSE_MS	100	/* out of fds: try again after */
#define CTL_READ_CHUNK		4096	/* request bytes per read */
#define CTL_LOG_LINES		256	/* lines of a run per read */
#define CTL_STREAM_LOW		32768	/* read the run while less waits */
#define CTL_FILL_MAX		65536	/* text read per flush */
#define CTL_END_OPEN		INT64_MAX	/* follow: no end known yet */
#define CTL_PARTIAL_MS		250	/* quiet time before a partial line */
#define CTL_GREP_BUDGET		(4 * 1024 * 1024)	/* searched per turn */

/* A growing byte buffer. */
/* What a command turned its client into. */
enum ctl_stream {
	CTL_STREAM_NONE,
	CTL_STREAM_EVENTS,	/* events */
	CTL_STREAM_LOGS,	/* logs: the output so far */
	CTL_STREAM_FOLLOW,	/* logs --follow: until the job ends */
	CTL_STREAM_GREP,	/* grep: matches as they are found */
	CTL_STREAM_WAIT		/* wait: an answer when the jobs end */
};

/*
 * One job of a wait: until it ends, the job; then how it ended, said at
 * once (the job may leave the table before the others end).
 */
struct ctl_wait {
	struct job	*job;		/* NULL once it left the table */
	int		 done;		/* the order it ended in, 0: not yet */
	int		 code;		/* its exit status for the client */
	char		*text;		/* "[3] web: failed (exit 2)" */
	char		*json;		/* its job object, with --json */
};

struct ctl_client {
	struct ctl	*ctl;
	int		 fd;
	int64_t		 since;		/* ms: when it came */
	struct xbuf	 in;		/* the request so far */
	struct xbuf	 out;		/* unsent output */
	size_t		 out_off;	/* sent part of out */
	uint64_t	 req_timer;	/* the request's time limit */
	uint64_t	 write_timer;	/* the write limit, while output waits */
	int64_t		 progress;	/* ms: the last write or read seen */
	int		 outq;		/* unread bytes in the socket then */
	int		 json;

	/* Collected while the command runs. */
	struct xbuf	 body;
	struct xbuf	 messages;
	struct xbuf	 errors;
	enum ctl_stream	 stream;
	struct job	*stream_job;

	/* A log stream: logs or logs --follow. */
	struct job	*job;		/* followed, until it ends */
	int		 job_id;
	struct store_reader *reader;	/* its run in the store, or NULL */
	char		*unread;	/* why its run could not be opened */
	char		*run;		/* logs RUN: the run's id */
	int		 exit;		/* follow's exit line, or -1 */
	int64_t		 next;		/* the next line of the run to send */
	int64_t		 end;		/* where to stop, or CTL_END_OPEN */
	struct store_mark	 mark;		/* not logged: emulator lines sent */
	int		 nlines;	/* lines sent (JSON: commas) */
	struct grep	*grep;		/* a grep stream's search */
	uint64_t	 grep_timer;	/* its next step */
	char		*tail;		/* sent after the last line */
	struct ctl_wait	*waits;		/* a wait's jobs, as given */
	int		 nwaits;
	int		 ndone;		/* how many have ended */
	int64_t		 wait_ms;	/* its time limit, 0: none */
	uint64_t	 wait_timer;	/* ... armed */

#define CTL_ANSWERED	0x1	/* the request is read */
#define CTL_EVENTS	0x2	/* streaming every job's events */
#define CTL_FOLLOW	0x4	/* streaming one job's output until it ends */
#define CTL_LOG		0x8	/* reading a job's log into out */
#define CTL_WAITING	0x10	/* at the end of the log: wait for output */
#define CTL_VT		0x20	/* the job is not logged: its emulator */
#define CTL_NO_INPUT	0x40	/* the peer shut down its side */
#define CTL_SENT	0x80	/* sent something since the keepalive tick */
#define CTL_CLOSING	0x100	/* close once the output is sent */
#define CTL_DEAD	0x200	/* socket closed: free at the next reap */
#define CTL_GREP_WAIT	0x400	/* grep: the next step when output drains */
#define CTL_WAIT	0x800	/* wait: answers when its jobs have ended */
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
	struct store_reader	*reader;
	char			 run[STORE_ID_LEN + 1];
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
	int			  nfollow;	/* clients of logs -f */
	int			  nwait;	/* clients of wait */
	struct ctl_feed		 *feeds;
	int			  nfeeds;

	uint64_t		  reap_timer;
	uint64_t		  accept_timer;	/* out of fds: accept later */
	uint64_t		  room_timer;	/* full: one may become idle */
	int64_t			  room_at;	/* ... at this time */
	uint64_t		  keepalive_timer;
	uint64_t		  partial_timer;
	uint64_t		  wait_timer;	/* look at the waits after an end */
};

static void	ctl_accept_cb(int, short, void *);
static void	ctl_accept_update(struct ctl *);
static void	ctl_client_cb(int, short, void *);
static void	ctl_client_drop(struct ctl_client *);
static void	ctl_client_flush(struct ctl_client *);
static void	ctl_buf_store_events(struct xbuf *, int,
		    const struct store_line *, int);
static void	ctl_partial_cb(void *);
static void	ctl_feed_clear(struct ctl_feed *);
static struct ctl_feed *ctl_feed(struct ctl *, struct job *, int);
static int	ctl_cmd_grep(struct grep *, void *, char **);
static void	ctl_grep_cb(void *);
static void	ctl_client_send(struct ctl_client *, const char *, size_t);
static void	ctl_stream_end(struct ctl_client *);
static void	ctl_follow_end(struct ctl_client *);
static void	ctl_buf_output_events(struct xbuf *, int, char **, int);
static void	ctl_job_started(struct job *, void *);
static void	ctl_job_output(struct job *, const char *, size_t, void *);
static void	ctl_job_exited(struct job *, void *);
static void	ctl_job_queued(struct job *, void *);
static void	ctl_job_changed(struct job *, void *);
static void	ctl_job_removed(struct job *, void *);
static void	ctl_cmd_message(const char *, void *);
static void	ctl_cmd_error(const char *, void *);
static void	ctl_cmd_show(const char *, char **, int, int, void *);
static void	ctl_cmd_quit(void *);
static void	ctl_cmd_select(struct job *, int, void *);
static void	ctl_cmd_json(const char *, void *);
static int	ctl_cmd_follow(struct job *, void *, char **);
static int	ctl_cmd_logs(struct job *, void *, char **);
static int	ctl_cmd_logs_run(const char *, const char *, void *, char **);
static int	ctl_cmd_wait(struct job **, int, int64_t, void *, char **);
static int	ctl_cmd_later(void *, char **);
static void	ctl_cmd_answered(void *);
static void	ctl_client_reply(struct ctl_client *, int);
static void	ctl_wait_answer(struct ctl_client *, const char *);
static void	ctl_wait_free(struct ctl_client *);
static void	ctl_wait_done(struct ctl_client *, struct ctl_wait *,
		    const char *);
static void	ctl_waits_soon(struct ctl *);

static const struct jobtable_cbs ctl_jobtable_cbs = {
	.started = ctl_job_started,
	.output = ctl_job_output,
	.exited = ctl_job_exited,
	.queued = ctl_job_queued,
	.changed = ctl_job_changed,
	.removed = ctl_job_removed,
};

static const struct cmd_client ctl_cmd_client = {
	.message = ctl_cmd_message,
	.error = ctl_cmd_error,
	.show = ctl_cmd_show,
	.select = ctl_cmd_select,
	.quit = ctl_cmd_quit,
	.json = ctl_cmd_json,
	.follow = ctl_cmd_follow,
	.logs = ctl_cmd_logs,
	.logs_run = ctl_cmd_logs_run,
	.grep = ctl_cmd_grep,
	.wait = ctl_cmd_wait,
	.later = ctl_cmd_later,
	.answered = ctl_cmd_answered,
};

/* Append a string and a newline to a buffer. */
static void
ctl_buf_line(struct xbuf *b, const char *s)
{
	xbuf_add(b, s, strlen(s));
	xbuf_add(b, "\n", 1);
}

/*
 * Append text lines (s, one or more lines without the last newline) and a
 * newline to a reply's body: a line cannot start with CTL_CONTROL, which
 * only the protocol's own lines do, so such a byte is dropped.
 */
static void
ctl_buf_text(struct xbuf *b, const char *s)
{
	const char	*nl;

	for (;;) {
		if (*s == CTL_CONTROL)
			s++;
		if ((nl = strchr(s, '\n')) == NULL)
			break;
		xbuf_add(b, s, (size_t)(nl + 1 - s));
		s = nl + 1;
	}
	ctl_buf_line(b, s);
}

/* Return whether name can name a deck: [A-Za-z0-9_.-]+, at most 64. */
static int
ctl_valid_name(const char *name)
{
	size_t	len = strlen(name);

	return len > 0 && len <= CTL_NAME_MAX &&
	    strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789_.-") == len;
}

/*
 * Check (and with create, make) the socket directory: a real directory,
 * owned by us, that group and others cannot write.  A missing directory
 * is fine without create (no deck runs there).
 */
static int
ctl_check_dir(const char *dir, int create, char **cause)
{
	struct stat	sb;

	if (lstat(dir, &sb) != 0) {
		if (errno != ENOENT) {
			*cause = xprintf("%s: %s", dir, strerror(errno));
			return -1;
		}
		if (!create)
			return 0;
		if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
			*cause = xprintf("cannot create %s: %s", dir,
			    strerror(errno));
			return -1;
		}
		if (lstat(dir, &sb) != 0) {
			*cause = xprintf("%s: %s", dir, strerror(errno));
			return -1;
		}
	}
	if (!S_ISDIR(sb.st_mode)) {
		*cause = xprintf("%s is not a directory", dir);
		return -1;
	}
	if (sb.st_uid != geteuid()) {
		*cause = xprintf("%s is owned by uid %ld, not by this user "
		    "(uid %ld); refusing to use it", dir, (long)sb.st_uid,
		    (long)geteuid());
		return -1;
	}
	if (sb.st_mode & (S_IWGRP | S_IWOTH)) {
		*cause = xprintf("%s can be written by group or others (mode "
		    "%04o); refusing to use it (chmod 700 it)", dir,
		    (unsigned int)(sb.st_mode & 07777));
		return -1;
	}
	return 0;
}

/*
 * Return the socket directory under /run/user/UID (where a session's
 * XDG_RUNTIME_DIR is) when that is the user's own directory that no one
 * else may enter, for a process started without XDG_RUNTIME_DIR (an MCP
 * client passes its server a few variables only); else NULL.
 */
static char *
ctl_runtime_fallback(void)
{
	struct stat	 sb;
	char		*run;

	run = xprintf("/run/user/%ld", (long)geteuid());
	if (stat(run, &sb) != 0 || !S_ISDIR(sb.st_mode) ||
	    sb.st_uid != geteuid() || (sb.st_mode & 077) != 0) {
		free(run);
		return NULL;
	}
	free(run);
	return xprintf("/run/user/%ld/jobdeck", (long)geteuid());
}

/*
 * Work out the socket path of deck name (NAME.sock, or NAME.ro with
 * CTL_PATH_READ_ONLY: no name's .sock or .lock can be it) and check its
 * directory (made with CTL_PATH_CREATE); 0 with *path (for the caller to
 * free), or -1 with *cause.
 */
int
ctl_socket_path(const char *name, int flags, char **path, char **cause)
{
	struct sockaddr_un	 sun;
	const char		*runtime;
	char			*dir;

	*path = NULL;
	if (!ctl_valid_name(name)) {
		*cause = xprintf("bad deck name: %s (letters, digits, '_', "
		    "'.' and '-', at most %d)", name, CTL_NAME_MAX);
		return -1;
	}
	runtime = getenv("XDG_RUNTIME_DIR");
	if (runtime != NULL && runtime[0] == '/')
		dir = xprintf("%s/jobdeck", runtime);
	else if ((dir = ctl_runtime_fallback()) == NULL)
		dir = xprintf("/tmp/jobdeck-%ld", (long)geteuid());
	if (ctl_check_dir(dir, (flags & CTL_PATH_CREATE) != 0, cause) != 0) {
		free(dir);
		return -1;
	}
	*path = xprintf("%s/%s.%s", dir, name,
	    (flags & CTL_PATH_READ_ONLY) ? "ro" : "sock");
	free(dir);
	if (strlen(*path) >= sizeof sun.sun_path) {
		*cause = xprintf("socket path too long: %s", *path);
		free(*path);
		*path = NULL;
		return -1;
	}
	return 0;
}

/* Fill a Unix socket address with path (checked to fit). */
static void
ctl_sockaddr(struct sockaddr_un *sun, const char *path)
{
	memset(sun, 0, sizeof *sun);
	sun->sun_family = AF_UNIX;
	snprintf(sun->sun_path, sizeof sun->sun_path, "%s", path);
}

/*
 * Return 1 if a deck answers on path, 0 if nothing does (no socket, or a
 * stale one, which is removed), -1 with *cause if path is unusable.
 */
static int
ctl_probe(const char *path, char **cause)
{
	struct sockaddr_un	sun;
	struct stat		sb;
	int			fd, rc;

	if (lstat(path, &sb) != 0) {
		if (errno == ENOENT)
			return 0;
		*cause = xprintf("%s: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISSOCK(sb.st_mode)) {
		*cause = xprintf("%s exists and is not a socket", path);
		return -1;
	}
	/* Non-blocking: a full backlog is EAGAIN, not a wait in connect(). */
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd == -1) {
		*cause = xprintf("socket: %s", strerror(errno));
		return -1;
	}
	ctl_sockaddr(&sun, path);
	do
		rc = connect(fd, (struct sockaddr *)&sun, sizeof sun);
	while (rc == -1 && errno == EINTR);
	close(fd);
	if (rc == 0 || errno == EAGAIN)
		return 1;	/* EAGAIN: a deck whose backlog is full */
	if (errno == ECONNREFUSED) {
		/* Left by a deck that died: nobody listens any more. */
		if (sb.st_uid != geteuid()) {
			*cause = xprintf("%s is owned by uid %ld, not by this "
			    "user; refusing to replace it", path,
			    (long)sb.st_uid);
			return -1;
		}
		if (unlink(path) != 0 && errno != ENOENT) {
			*cause = xprintf("cannot remove the stale socket %s: "
			    "%s", path, strerror(errno));
			return -1;
		}
		return 0;
	}
	*cause = xprintf("%s: %s", path, strerror(errno));
	return -1;
}

/*
 * Take NAME.lock beside the socket at path, so that decks of one name
 * start one at a time: without it, one could find the socket of another
 * that has bound but not yet listened "stale" and remove it.  Returns the
 * lock's fd (closing it ends the lock), or -1 with *cause.
 */
static int
ctl_lock(const char *path, char **cause)
{
	char	*lock;
	int	 fd, rc;

	lock = xprintf("%.*s.lock", (int)(strlen(path) - 5), path);
	fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY,
	    0600);
	if (fd == -1) {
		*cause = xprintf("%s: %s", lock, strerror(errno));
		free(lock);
		return -1;
	}
	do
		rc = flock(fd, LOCK_EX);
	while (rc == -1 && errno == EINTR);
	if (rc != 0) {
		*cause = xprintf("%s: %s", lock, strerror(errno));
		close(fd);
		fd = -1;
	}
	free(lock);
	return fd;
}

/*
 * Bind a socket at sock's path (a stale one was removed), 0600, and
 * listen on it; 0 with sock's fd and file, or -1 with *cause (no file
 * left behind).
 */
static int
ctl_bind(const char *name, struct ctl_sock *sock, char **cause)
{
	struct sockaddr_un	 sun;
	struct stat		 sb;
	const char		*path = sock->path;
	mode_t			 mask;
	int			 fd, rc, error;

	if (path == NULL)
		fatal("ctl_bind: no path");

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd == -1) {
		*cause = xprintf("socket: %s", strerror(errno));
		return -1;
	}
	ctl_sockaddr(&sun, path);
	mask = umask(0177);
	rc = bind(fd, (struct sockaddr *)&sun, sizeof sun);
	error = errno;
	umask(mask);
	if (rc != 0) {
		if (error == EADDRINUSE)
			*cause = xprintf("a deck named %s is running (%s)",
			    name, path);
		else
			*cause = xprintf("%s: %s", path, strerror(error));
		close(fd);
		return -1;
	}
	if (chmod(path, 0600) != 0 || listen(fd, CTL_CLIENTS_MAX) != 0 ||
	    stat(path, &sb) != 0) {
		*cause = xprintf("%s: %s", path, strerror(errno));
		unlink(path);
		close(fd);
		return -1;
	}
	sock->fd = fd;
	sock->dev = sb.st_dev;
	sock->ino = sb.st_ino;
	return 0;
}

/*
 * Close a listening socket, remove its file if it is still ours, and
 * free its path.
 */
static void
ctl_unbind(struct ctl_sock *sock)
{
	struct stat	sb;

	if (sock->fd != -1) {
		close(sock->fd);
		sock->fd = -1;
		if (stat(sock->path, &sb) == 0 && sb.st_dev == sock->dev &&
		    sb.st_ino == sock->ino)
			unlink(sock->path);
	}
	free(sock->path);
	sock->path = NULL;
}

/*
 * Make deck name's sockets, NAME.sock and the read-only NAME.ro, and
 * listen on them (nothing is read from them until ctl_start()); NULL with
 * *cause if a deck of that name runs, the directory is unsafe, or a
 * socket cannot be made.
 */
struct ctl *
ctl_listen(const char *name, char **cause)
{
	static const int	 flags[CTL_SOCKS] = {
		[CTL_SOCK_FULL] = CTL_PATH_CREATE,
		[CTL_SOCK_READ_ONLY] = CTL_PATH_READ_ONLY
	};
	struct ctl		*ctl;
	int			 lock = -1, rc, i;

	ctl = xcalloc(1, sizeof *ctl);
	ctl->jt_handle = -1;
	for (i = 0; i < CTL_SOCKS; i++)
		ctl->socks[i].fd = -1;
	for (i = 0; i < CTL_SOCKS; i++) {
		if (ctl_socket_path(name, flags[i], &ctl->socks[i].path,
		    cause) != 0)
			goto fail;
	}
	/* Held from the probes until both sockets listen. */
	if ((lock = ctl_lock(ctl->socks[CTL_SOCK_FULL].path, cause)) == -1)
		goto fail;
	for (i = 0; i < CTL_SOCKS; i++) {
		if ((rc = ctl_probe(ctl->socks[i].path, cause)) != 0) {
			if (rc == 1)
				*cause = xprintf("a deck named %s is running "
				    "(%s)", name, ctl->socks[i].path);
			goto fail;
		}
	}
	for (i = 0; i < CTL_SOCKS; i++) {
		if (ctl_bind(name, &ctl->socks[i], cause) != 0)
			goto fail;
	}
	close(lock);
	return ctl;

fail:
	for (i = 0; i < CTL_SOCKS; i++)
		ctl_unbind(&ctl->socks[i]);
	if (lock != -1)
		close(lock);
	free(ctl);
	return NULL;
}

/*
 * Start serving: watch both sockets on loop and run requests with a copy
 * of ctx (its client and arg are replaced; read_only is set for clients
 * of NAME.ro); cbs (with arg) do what only the deck can: quit, focus a
 * job, never for a read-only client.
 */
void
ctl_start(struct ctl *ctl, struct loop *loop, const struct cmd_ctx *ctx,
    const struct ctl_cbs *cbs, void *arg)
{
	int	i;

	ctl->loop = loop;
	ctl->jt = ctx->jt;
	ctl->ctx = *ctx;
	ctl->ctx.client = &ctl_cmd_client;
	ctl->ctx.arg = NULL;
	ctl->ctx.json = 0;
	ctl->cbs = cbs;
	ctl->cbs_arg = arg;
	ctl->jt_handle = jobtable_subscribe(ctl->jt, &ctl_jobtable_cbs, ctl);
	for (i = 0; i < CTL_SOCKS; i++)
		loop_watch_fd(loop, ctl->socks[i].fd, POLLIN, ctl_accept_cb,
		    ctl);
}

/* Return how many bytes of a client's output wait to be sent. */
static size_t
ctl_client_pending(const struct ctl_client *c)
{
	return c->out.len - c->out_off;
}

/* Return whether a client has more to send: output, or a log to read. */
static int
ctl_client_has_more(const struct ctl_client *c)
{
	return ctl_client_pending(c) > 0 ||
	    (c->flags & (CTL_LOG | CTL_WAITING)) == CTL_LOG;
}

/* Close a client's socket, log, watch and timers (not its memory). */
static void
ctl_client_close(struct ctl_client *c)
{
	struct ctl	*ctl = c->ctl;

	if (c->fd == -1)
		return;
	if (ctl->loop != NULL) {
		loop_unwatch_fd(ctl->loop, c->fd);
		if (c->req_timer != 0)
			loop_cancel_timer(ctl->loop, c->req_timer);
		if (c->write_timer != 0)
			loop_cancel_timer(ctl->loop, c->write_timer);
		if (c->grep_timer != 0)
			loop_cancel_timer(ctl->loop, c->grep_timer);
	}
	if (ctl->loop != NULL && c->wait_timer != 0)
		loop_cancel_timer(ctl->loop, c->wait_timer);
	c->req_timer = c->write_timer = c->grep_timer = c->wait_timer = 0;
	close(c->fd);
	c->fd = -1;
	store_reader_close(c->reader);
	c->reader = NULL;
	if (c->flags & CTL_EVENTS)
		ctl->nevents--;
	if (c->flags & CTL_FOLLOW)
		ctl->nfollow--;
	if (c->flags & CTL_WAIT)
		ctl->nwait--;
	c->flags &= ~(CTL_EVENTS | CTL_FOLLOW | CTL_LOG | CTL_WAITING |
	    CTL_WAIT);
	c->job = NULL;
}

/* Free a client (closed first if need be). */
static void
ctl_client_free(struct ctl_client *c)
{
	ctl_client_close(c);
	xbuf_clear(&c->in);
	xbuf_clear(&c->out);
	xbuf_clear(&c->body);
	xbuf_clear(&c->messages);
	xbuf_clear(&c->errors);
	store_reader_close(c->reader);
	grep_free(c->grep);
	free(c->tail);
	free(c->unread);
	free(c->run);
	ctl_wait_free(c);
	free(c);
}

/* Free the clients marked dead; a zero-delay timer after they died. */
static void
ctl_reap_cb(void *arg)
{
	struct ctl	*ctl = arg;
	int		 i, j;

	ctl->reap_timer = 0;
	for (i = j = 0; i < ctl->nclients; i++) {
		if ((ctl->clients[i]->flags & (CTL_DEAD | CTL_LATER)) ==
		    CTL_DEAD)
			ctl_client_free(ctl->clients[i]);
		else
			ctl->clients[j++] = ctl->clients[i];
	}
	ctl->nclients = j;
	if (ctl->nevents == 0) {
		for (i = 0; i < ctl->nfeeds; i++)
			ctl_feed_clear(&ctl->feeds[i]);
		ctl->nfeeds = 0;
	}
	/* Places are free: connections waiting in the backlog may come. */
	ctl_accept_update(ctl);
}

/* Drop a client: close its socket now, free it after this turn. */
static void
ctl_client_drop(struct ctl_client *c)
{
	struct ctl	*ctl = c->ctl;

	if (c->flags & CTL_DEAD)
		return;
	debuglog("ctl: client %d let go, %zu bytes unsent", c->fd,
	    ctl_client_pending(c));
	ctl_client_close(c);
	c->flags |= CTL_DEAD;
	if (ctl->reap_timer == 0 && ctl->loop != NULL)
		ctl->reap_timer = loop_add_timer(ctl->loop, 0, ctl_reap_cb,
		    ctl);
}

/*
 * Poll a client for what it needs: input (its request, or to see it
 * leave), room for its output or for more of its log.  With neither, it
 * is polled for the hangup alone: a Unix socket never has urgent data
 * (POLLPRI), and POLLHUP is always reported.
 */
static void
ctl_client_watch(struct ctl_client *c)
{
	short	events = 0;

	if (c->flags & CTL_DEAD)
		return;
	if (!(c->flags & CTL_NO_INPUT))
		events |= POLLIN;
	if (ctl_client_has_more(c))
		events |= POLLOUT;
	if (events == 0)
		events = POLLPRI;
	loop_set_events(c->ctl->loop, c->fd, events);
}

/* Return how many bytes the socket holds that the peer has not read. */
static int
ctl_client_outq(const struct ctl_client *c)
{
	int	n;

	if (ioctl(c->fd, SIOCOUTQ, &n) != 0)
		return 0;
	return n;
}

/*
 * The write limit: drop a client whose socket took nothing, and which
 * read nothing of what the socket holds, for CTL_WRITE_TIMEOUT_MS while
 * it had more to send.
 */
static void
ctl_client_write_timeout_cb(void *arg)
{
	struct ctl_client	*c = arg;
	int64_t			 now = loop_now_ms();
	int			 outq;

	c->write_timer = 0;
	if ((c->flags & CTL_DEAD) || !ctl_client_has_more(c))
		return;
	outq = ctl_client_outq(c);
	if (outq < c->outq)
		c->progress = now;
	c->outq = outq;
	if (now - c->progress >= CTL_WRITE_TIMEOUT_MS) {
		ctl_client_drop(c);
		return;
	}
	c->write_timer = loop_add_timer(c->ctl->loop, c->progress +
	    CTL_WRITE_TIMEOUT_MS - now, ctl_client_write_timeout_cb, c);
}

/*
 * Append lines of a job's text to b as the elements of a JSON array, after
 * nsent sent before: one writer for them all, its array's text without
 * the brackets.
 */
static void
ctl_buf_json_elements(struct xbuf *b, int nsent, char **lines, int count)
{
	struct json_buf	jb;
	int		i;

	if (count == 0)
		return;
	json_init(&jb);
	json_array_begin(&jb);
	for (i = 0; i < count; i++)
		json_put_string(&jb, lines[i]);
	if (nsent > 0)
		xbuf_add(b, ",", 1);
	xbuf_add(b, jb.data + 1, jb.len - 1);
	json_clear(&jb);
}

/*
 * Append lines of a job's text to a log stream and free them: text lines,
 * "output" events (follow --json) or elements of the "lines" array.
 */
static void
ctl_stream_lines(struct ctl_client *c, char **lines, int count)
{
	char	*text;
	size_t	 len;
	int	 i;

	if (!c->json) {
		for (i = 0; i < count; i++) {
			/* rawtext took the C0 controls; C1 ones are escaped. */
			len = strlen(lines[i]);
			if (!textesc_needed(lines[i], len)) {
				ctl_buf_line(&c->out, lines[i]);
				continue;
			}
			text = textesc_visible(lines[i], len);
			ctl_buf_line(&c->out, text);
			free(text);
		}
	} else if (c->stream == CTL_STREAM_FOLLOW)
		ctl_buf_output_events(&c->out, c->job_id, lines, count);
	else
		ctl_buf_json_elements(&c->out, c->nlines, lines, count);
	c->nlines += count;
	if (count > 0)
		c->flags |= CTL_SENT;
	rawtext_free_lines(lines, count);
}

/*
 * Append lines read from the store to a log stream and free them: text
 * lines, "output" events (follow --json) or elements of the "lines" array.
 */
static void
ctl_stream_store_lines(struct ctl_client *c, struct store_line *sl, int n)
{
	char	**lines;

	if (c->json && c->stream == CTL_STREAM_FOLLOW) {
		ctl_buf_store_events(&c->out, c->job_id, sl, n);
		c->nlines += n;
		if (n > 0)
			c->flags |= CTL_SENT;
		store_lines_free(sl, n);
		return;
	}
	lines = store_lines_take(sl, n);
	ctl_stream_lines(c, lines, n);
}

/*
 * Open the store's reader on a streamed job's run if it has one; one that
 * cannot be read keeps why, for the stream's end.
 */
static void
ctl_stream_open(struct ctl_client *c, struct job *job)
{
	char	*cause = NULL;

	if (c->reader != NULL || !job_logged(job))
		return;
	c->reader = store_reader_open(job_store_dir(job), job_run_id(job),
	    &cause);
	if (c->reader == NULL && c->unread == NULL)
		c->unread = cause;
	else
		free(cause);
}

/* Return the lines of a streamed run now, a partial last one too. */
static int64_t
ctl_stream_count(struct ctl_client *c)
{
	if (c->reader == NULL)
		return 0;
	store_reader_refresh(c->reader);
	return store_reader_count(c->reader);
}

/*
 * Read more of a streamed run into the client's output, CTL_LOG_LINES
 * lines at a time, while less than CTL_STREAM_LOW bytes wait and *budget
 * lasts; at the end of what is written wait for more (follow: complete
 * lines only) or end the stream.  At damage in the store the stream ends
 * there, followed or not (ctl_stream_end() says why).
 */
static void
ctl_stream_fill(struct ctl_client *c, size_t *budget)
{
	struct store_line	*sl;
	int64_t			 avail, to;
	size_t			 len;
	int			 n, i, refreshed = 0;

	while ((c->flags & (CTL_LOG | CTL_WAITING)) == CTL_LOG &&
	    *budget > 0 && ctl_client_pending(c) < CTL_STREAM_LOW) {
		if (c->next >= c->end) {
			ctl_stream_end(c);
			return;
		}
		if (c->reader == NULL) {
			/* Followed, and nothing stored yet. */
			c->flags |= CTL_WAITING;
			return;
		}
		avail = store_reader_count(c->reader);
		if (c->end == CTL_END_OPEN && store_reader_partial(c->reader))
			avail--;
		if (avail > c->end)
			avail = c->end;
		if (c->next < store_reader_first(c->reader))
			c->next = store_reader_first(c->reader);
		if (c->next >= avail) {
			if (!refreshed) {
				store_reader_refresh(c->reader);
				refreshed = 1;
				continue;
			}
			if (c->end == CTL_END_OPEN &&
			    store_reader_damage(c->reader) == NULL)
				c->flags |= CTL_WAITING;
			else
				ctl_stream_end(c);
			return;
		}
		to = avail - c->next > CTL_LOG_LINES ? c->next + CTL_LOG_LINES :
		    avail;
		if (store_reader_get(c->reader, c->next, to, STORE_TEXT, &sl,
		    &n) != 0 || n == 0) {
			/* Damaged (ctl_stream_end() says so), or removed. */
			ctl_stream_end(c);
			return;
		}
		for (i = 0, len = 0; i < n; i++)
			len += sl[i].len + 1;
		c->next = sl[n - 1].no + 1;
		*budget -= len < *budget ? len : *budget;
		ctl_stream_store_lines(c, sl, n);
	}
}

/*
 * Write what the socket takes of a client's output, topping it up from
 * the log it streams (at most CTL_FILL_MAX bytes of log per call); close
 * it once all is sent if it is closing, and keep its write limit.
 */
static void
ctl_client_flush(struct ctl_client *c)
{
	size_t	budget = CTL_FILL_MAX;
	ssize_t	n;
	int	wrote = 0;

	for (;;) {
		if ((c->flags & (CTL_LOG | CTL_WAITING)) == CTL_LOG)
			ctl_stream_fill(c, &budget);
		if ((c->flags & CTL_DEAD) || ctl_client_pending(c) == 0)
			break;
		n = write(c->fd, c->out.s + c->out_off, ctl_client_pending(c));
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN)
			break;
		if (n <= 0) {
			ctl_client_drop(c);
			return;
		}
		c->out_off += (size_t)n;
		wrote = 1;
		if (ctl_client_pending(c) > 0)
			break;		/* the socket is full */
		c->out.len = c->out_off = 0;
		if (!(c->flags & CTL_LOG) || (c->flags & CTL_WAITING) ||
		    budget == 0)
			break;
	}
	if (c->flags & CTL_DEAD)
		return;
	if ((c->flags & CTL_GREP_WAIT) && ctl_client_pending(c) <
	    CTL_STREAM_LOW) {
		c->flags &= ~CTL_GREP_WAIT;
		c->grep_timer = loop_add_timer(c->ctl->loop, 0, ctl_grep_cb, c);
	}
	if (ctl_client_pending(c) == 0) {
		c->out.len = c->out_off = 0;
		if ((c->flags & CTL_CLOSING) && !(c->flags & CTL_LOG)) {
			ctl_client_drop(c);
			return;
		}
	} else if (c->out_off > c->out.size / 2) {
		memmove(c->out.s, c->out.s + c->out_off,
		    ctl_client_pending(c));
		c->out.len -= c->out_off;
		c->out_off = 0;
	}
	if (wrote) {
		c->progress = loop_now_ms();
		c->outq = ctl_client_outq(c);
	}
	if (ctl_client_has_more(c) && c->write_timer == 0) {
		if (!wrote) {
			c->progress = loop_now_ms();
			c->outq = ctl_client_outq(c);
		}
		c->write_timer = loop_add_timer(c->ctl->loop,
		    CTL_WRITE_TIMEOUT_MS, ctl_client_write_timeout_cb, c);
	}
	ctl_client_watch(c);
}

/*
 * Queue output for a client and send what the socket takes; an events
 * client that lets more than CTL_OUTPUT_MAX bytes pile up is dropped.
 */
static void
ctl_client_send(struct ctl_client *c, const char *s, size_t len)
{
	int	was_empty = ctl_client_pending(c) == 0;

	if (c->flags & CTL_DEAD)
		return;
	if ((c->flags & CTL_EVENTS) &&
	    ctl_client_pending(c) + len > CTL_OUTPUT_MAX) {
		ctl_client_drop(c);
		return;
	}
	xbuf_add(&c->out, s, len);
	c->flags |= CTL_SENT;
	/* Otherwise the socket is full and POLLOUT is being waited for. */
	if (was_empty)
		ctl_client_flush(c);
}

/* Send a keepalive to each stream that has said nothing for a while. */
static void
ctl_keepalive_cb(void *arg)
{
	struct ctl		*ctl = arg;
	struct ctl_client	*c;
	static const char	 line[] = { CTL_CONTROL, '\n' };
	int			 i;

	ctl->keepalive_timer = 0;
	for (i = 0; i < ctl->nclients; i++) {
		c = ctl->clients[i];
		if (!(c->flags & (CTL_EVENTS | CTL_FOLLOW | CTL_WAIT)) ||
		    (c->flags & CTL_DEAD))
			continue;
		if (!(c->flags & CTL_SENT) && ctl_client_pending(c) == 0)
			ctl_client_send(c, line, sizeof line);
		c->flags &= ~CTL_SENT;
	}
	if (ctl->nevents + ctl->nfollow + ctl->nwait > 0)
		ctl->keepalive_timer = loop_add_timer(ctl->loop,
		    CTL_KEEPALIVE_MS, ctl_keepalive_cb, ctl);
}

/* Make sure the keepalive timer runs while there are streams. */
static void
ctl_keepalive_start(struct ctl *ctl)
{
	if (ctl->keepalive_timer == 0)
		ctl->keepalive_timer = loop_add_timer(ctl->loop,
		    CTL_KEEPALIVE_MS, ctl_keepalive_cb, ctl);
}

/* Answer a client with a status and one error line, then close it. */
static void
ctl_client_fail(struct ctl_client *c, int status, const char *fmt, ...)
{
	va_list	 ap;
	char	*msg, *reply;

	va_start(ap, fmt);
	msg = xvprintf(fmt, ap);
	va_end(ap);
	reply = xprintf("%d\n%s\n", status, msg);
	debuglog("ctl: client %d answered %d: %s", c->fd, status, msg);
	free(msg);
	c->flags |= CTL_ANSWERED | CTL_CLOSING;
	if (c->req_timer != 0) {
		loop_cancel_timer(c->ctl->loop, c->req_timer);
		c->req_timer = 0;
	}
	ctl_client_send(c, reply, strlen(reply));
	free(reply);
}

/* A request took too long to arrive: say so and drop it. */
static void
ctl_client_timeout_cb(void *arg)
{
	struct ctl_client	*c = arg;

	c->req_timer = 0;
	ctl_client_fail(c, 2, "request timed out after %d ms",
	    CTL_REQUEST_TIMEOUT_MS);
}

/* Write a short refusal to a socket we will not serve. */
static void
ctl_refuse(int fd, int status, const char *msg)
{
	char	*reply;

	reply = xprintf("%d\n%s\n", status, msg);
	(void)send(fd, reply, strlen(reply), MSG_NOSIGNAL | MSG_DONTWAIT);
	free(reply);
}

/* Let the listening sockets be polled again after running out of fds. */
static void
ctl_accept_resume_cb(void *arg)
{
	struct ctl	*ctl = arg;

	ctl->accept_timer = 0;
	ctl_accept_update(ctl);
}

/* Count the clients still open whose flags, under mask, are flags. */
static int
ctl_count(const struct ctl *ctl, int mask, int flags)
{
	const struct ctl_client	*c;
	int			 i, n = 0;

	for (i = 0; i < ctl->nclients; i++) {
		c = ctl->clients[i];
		n += !(c->flags & CTL_DEAD) && (c->flags & mask) == flags;
	}
	return n;
}

/*
 * Return whether the short requests' places are all taken for a new
 * client of NAME.sock, or of NAME.ro (read_only): CTL_CLIENTS_MAX clients
 * that are not streams, or CTL_RO_CLIENTS_MAX of them from NAME.ro.
 */
static int
ctl_short_full(const struct ctl *ctl, int read_only)
{
	if (ctl_count(ctl, CTL_STREAMING, 0) >= CTL_CLIENTS_MAX)
		return 1;
	return read_only && ctl_count(ctl, CTL_STREAMING | CTL_READ_ONLY,
	    CTL_READ_ONLY) >= CTL_RO_CLIENTS_MAX;
}

/*
 * Return the oldest client whose place a new one may take: one still
 * sending its request CTL_IDLE_MS after it came (from NAME.ro, for a new
 * client of NAME.ro); else NULL, with *next the time the oldest younger
 * one will be idle (-1: none is still sending its request).
 */
static struct ctl_client *
ctl_idle(const struct ctl *ctl, int read_only, int64_t now, int64_t *next)
{
	struct ctl_client	*c;
	int			 i;

	*next = -1;
	for (i = 0; i < ctl->nclients; i++) {
		c = ctl->clients[i];
		if ((c->flags & (CTL_ANSWERED | CTL_DEAD)) ||
		    (read_only && !(c->flags & CTL_READ_ONLY)))
			continue;
		if (now - c->since >= CTL_IDLE_MS)
			return c;
		if (*next == -1)
			*next = c->since + CTL_IDLE_MS;
	}
	return NULL;
}

/*
 * Return whether a new client of a socket can be served now: a place is
 * free, or an idle client can give up its own.  If not, *next is when an
 * idle one may (-1: only when a client ends or becomes a stream).
 */
static int
ctl_room(const struct ctl *ctl, int read_only, int64_t now, int64_t *next)
{
	*next = -1;
	if (!ctl_short_full(ctl, read_only))
		return 1;
	return ctl_idle(ctl, read_only, now, next) != NULL;
}

/* The oldest request may be idle now: look at the sockets again. */
static void
ctl_room_cb(void *arg)
{
	struct ctl	*ctl = arg;

	ctl->room_timer = 0;
	ctl_accept_update(ctl);
}

/*
 * Poll each listening socket that has room for a new client, and leave
 * the others' connections waiting in the kernel's backlog (bounded by
 * listen()); none while out of fds.  When only young requests hold the
 * places, look again once the oldest of them is idle.
 */
static void
ctl_accept_update(struct ctl *ctl)
{
	int64_t	now, next, soonest = -1;
	int	i, room;

	if (ctl->loop == NULL)
		return;
	now = loop_now_ms();
	for (i = 0; i < CTL_SOCKS; i++) {
		room = ctl->accept_timer == 0 && ctl_room(ctl,
		    i == CTL_SOCK_READ_ONLY, now, &next);
		loop_set_events(ctl->loop, ctl->socks[i].fd, room ? POLLIN :
		    0);
		if (!room && next != -1 && (soonest == -1 || next < soonest))
			soonest = next;
	}
	if (ctl->room_timer != 0 && (soonest == -1 ||
	    soonest != ctl->room_at)) {
		loop_cancel_timer(ctl->loop, ctl->room_timer);
		ctl->room_timer = 0;
	}
	if (soonest != -1 && ctl->room_timer == 0 && ctl->accept_timer == 0) {
		ctl->room_at = soonest;
		ctl->room_timer = loop_add_timer(ctl->loop, soonest > now ?
		    soonest - now : 1, ctl_room_cb, ctl);
	}
}

/* Drop an idle client for a new one, telling it why. */
static void
ctl_evict(struct ctl_client *c)
{
	debuglog("ctl: client %d evicted, its request not complete", c->fd);
	ctl_refuse(c->fd, 2, "request not complete: dropped for a new client "
	    "(too many clients at once)");
	ctl_client_drop(c);
}

/*
 * Accept waiting connections on either socket while it has room (else
 * they wait in the backlog, ctl_accept_update()): check the peer's uid,
 * take an idle client's place if need be; a client of NAME.ro is marked
 * read-only for good.
 */
static void
ctl_accept_cb(int fd, short revents, void *arg)
{
	struct ctl		*ctl = arg;
	struct ctl_client	*c, *idle;
	struct ucred		 cred;
	socklen_t		 len;
	char			*msg;
	int64_t			 now, next;
	int			 cfd, i, read_only;

	(void)revents;
	read_only = fd == ctl->socks[CTL_SOCK_READ_ONLY].fd;
	for (i = 0; i < CTL_ACCEPT_BURST; i++) {
		now = loop_now_ms();
		if (!ctl_room(ctl, read_only, now, &next)) {
			debuglog("ctl: %d clients at once: new ones%s wait",
			    ctl_count(ctl, CTL_STREAMING, 0),
			    read_only ? " (read-only)" : "");
			break;
		}
		cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (cfd == -1) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			/* Still readable: wait rather than spin. */
			if ((errno == EMFILE || errno == ENFILE ||
			    errno == ENOBUFS || errno == ENOMEM) &&
			    ctl->accept_timer == 0)
				ctl->accept_timer = loop_add_timer(ctl->loop,
				    CTL_ACCEPT_PAUSE_MS, ctl_accept_resume_cb,
				    ctl);
			break;
		}
		len = sizeof cred;
		if (getsockopt(cfd, SOL_SOCKET, SO_PEERCRED, &cred, &len) !=
		    0 || cred.uid != geteuid()) {
			debuglog("ctl: refused a peer of uid %ld",
			    (long)cred.uid);
			msg = xprintf("permission denied: this deck belongs to "
			    "uid %ld", (long)geteuid());
			ctl_refuse(cfd, 2, msg);
			close(cfd);
			free(msg);
			continue;
		}
		/* A reader takes the place of a reader only. */
		if (ctl_short_full(ctl, read_only) && (idle = ctl_idle(ctl,
		    read_only, now, &next)) != NULL)
			ctl_evict(idle);
		c = xcalloc(1, sizeof *c);
		c->ctl = ctl;
		c->fd = cfd;
		c->exit = -1;
		c->since = now;
		if (read_only)
			c->flags |= CTL_READ_ONLY;
		if (ctl->nclients == ctl->alloc) {
			ctl->alloc = ctl->alloc == 0 ? 16 : ctl->alloc * 2;
			ctl->clients = xreallocarray(ctl->clients, ctl->alloc,
			    sizeof *ctl->clients);
		}
		ctl->clients[ctl->nclients++] = c;
		c->req_timer = loop_add_timer(ctl->loop, CTL_REQUEST_TIMEOUT_MS,
		    ctl_client_timeout_cb, c);
		loop_watch_fd(ctl->loop, cfd, POLLIN, ctl_client_cb, c);
		debuglog("ctl: client %d connected%s, %d at once", cfd,
		    read_only ? " (read-only)" : "", ctl_count(ctl, 0, 0));
	}
	ctl_accept_update(ctl);
}

/* Build one JSON event line: begin it with its kind and the job's id. */
static void
ctl_event_begin(struct json_buf *jb, const char *kind, int id)
{
	json_init(jb);
	json_object_begin(jb);
	json_key(jb, "event");
	json_put_string(jb, kind);
	json_key(jb, "id");
	json_put_int(jb, id);
}

/* Finish a JSON event and return it as a line ending in "\n". */
static char *
ctl_event_end(struct json_buf *jb, size_t *len)
{
	char	*doc, *line;

	json_object_end(jb);
	doc = json_finish(jb, len);
	json_clear(jb);
	line = xprintf("%s\n", doc);
	free(doc);
	(*len)++;
	return line;
}

/*
 * Append "output" events for lines of a job's text that has no store
 * (its emulator's, or its bytes converted here): as ctl_buf_store_events()
 * writes them, without line numbers.
 */
static void
ctl_buf_output_events(struct xbuf *b, int id, char **lines, int count)
{
	struct store_line	*sl;
	int			 i;

	if (count == 0)
		return;
	sl = xcalloc((size_t)count, sizeof *sl);
	for (i = 0; i < count; i++) {
		sl[i].no = -1;
		sl[i].stream = STORE_TTY;
		sl[i].text = lines[i];
		sl[i].len = strlen(lines[i]);
	}
	ctl_buf_store_events(b, id, sl, count);
	free(sl);
}

/*
 * Append "output" events for lines read from the store: each with its
 * text, its line number (when it has one), its stream and whether it is a
 * partial line.  The one writer of output events.
 */
static void
ctl_buf_store_events(struct xbuf *b, int id, const struct store_line *sl,
    int n)
{
	struct json_buf	 ev;
	char		*line;
	size_t		 len;
	int		 i;

	for (i = 0; i < n; i++) {
		ctl_event_begin(&ev, "output", id);
		json_key(&ev, "text");
		json_put_stringn(&ev, sl[i].text, sl[i].len);
		if (sl[i].no >= 0) {
			json_key(&ev, "line");
			json_put_int(&ev, sl[i].no + 1);
		}
		json_key(&ev, "stream");
		json_put_string(&ev, sl[i].stream == STORE_STDERR ? "stderr" :
		    "stdout");
		if (sl[i].partial) {
			json_key(&ev, "partial");
			json_put_bool(&ev, 1);
		}
		line = ctl_event_end(&ev, &len);
		xbuf_add(b, line, len);
		free(line);
	}
}

/* Return an "exited" event line: exit code or signal, duration, state. */
static char *
ctl_event_exited(struct job *job, size_t *len)
{
	struct json_buf	 jb;

	ctl_event_begin(&jb, "exited", job_id(job));
	waitstatus_json(&jb, job_end_status(job));
	json_key(&jb, "duration_ms");
	json_put_int(&jb, job_duration_ms(job, loop_now_ms()));
	json_key(&jb, "state");
	json_put_string(&jb, job_state_name(job_state(job)));
	return ctl_event_end(&jb, len);
}

/* Send a line to every client streaming events. */
static void
ctl_broadcast(struct ctl *ctl, const char *line, size_t len)
{
	struct ctl_client	*c;
	int			 i;

	for (i = 0; i < ctl->nclients; i++) {
		c = ctl->clients[i];
		if ((c->flags & CTL_EVENTS) && !(c->flags & CTL_DEAD))
			ctl_client_send(c, line, len);
	}
}

/* Send "output" events for lines of a job's text, and free them. */
static void
ctl_broadcast_lines(struct ctl *ctl, struct job *job, char **lines,
    int count)
{
	struct xbuf	all = { NULL, 0, 0 };

	ctl_buf_output_events(&all, job_id(job), lines, count);
	rawtext_free_lines(lines, count);
	if (all.len > 0)
		ctl_broadcast(ctl, all.s, all.len);
	xbuf_clear(&all);
}

/* The first events client: a feed for every job, from its output now. */
static void
ctl_feeds_start(struct ctl *ctl)
{
	int	i, n = jobtable_count(ctl->jt);

	for (i = 0; i < n; i++)
		ctl_feed(ctl, jobtable_get(ctl->jt, i), 1);
}

/* Send "output" events for lines read from the store, and free them. */
static void
ctl_broadcast_store_lines(struct ctl *ctl, struct job *job,
    struct store_line *sl, int n)
{
	struct xbuf	all = { NULL, 0, 0 };

	ctl_buf_store_events(&all, job_id(job), sl, n);
	store_lines_free(sl, n);
	if (all.len > 0)
		ctl_broadcast(ctl, all.s, all.len);
	xbuf_clear(&all);
}

/* Free what a feed holds. */
static void
ctl_feed_clear(struct ctl_feed *f)
{
	store_reader_close(f->reader);
	f->reader = NULL;
	rawtext_free(f->rt);
	f->rt = NULL;
}

/*
 * Point a feed at the job's current run (a restart is a new run) from
 * line from on, or at a converter of its bytes when it is not logged.
 */
static void
ctl_feed_reset(struct ctl_feed *f, struct job *job, int64_t from)
{
	char	*cause = NULL;

	ctl_feed_clear(f);
	memset(&f->mark, 0, sizeof f->mark);
	f->quiet_at = 0;
	f->run[0] = '\0';
	if (job_logged(job)) {
		f->reader = store_reader_open(job_store_dir(job),
		    job_run_id(job), &cause);
		free(cause);
		snprintf(f->run, sizeof f->run, "%s", job_run_id(job));
	}
	if (f->reader == NULL) {
		f->rt = rawtext_new();
		return;
	}
	if (from < 0) {
		store_reader_refresh(f->reader);
		from = store_reader_count(f->reader) -
		    store_reader_partial(f->reader);
	}
	f->mark.line = from;
}

/*
 * Return the feed of a job, made if make is set (from the run's end now,
 * or its start when the job has just started); NULL if none.
 */
static struct ctl_feed *
ctl_feed(struct ctl *ctl, struct job *job, int make)
{
	struct ctl_feed	*f;
	int		 i;

	for (i = 0; i < ctl->nfeeds; i++) {
		if (ctl->feeds[i].job == job)
			return &ctl->feeds[i];
	}
	if (!make)
		return NULL;
	ctl->feeds = xreallocarray(ctl->feeds, ctl->nfeeds + 1,
	    sizeof *ctl->feeds);
	f = &ctl->feeds[ctl->nfeeds++];
	memset(f, 0, sizeof *f);
	f->job = job;
	ctl_feed_reset(f, job, make > 1 ? 0 : -1);
	return f;
}

/*
 * Send the lines of a feed's run written since it last sent: the complete
 * ones, and with partial (after a quiet time, or at the end) the partial
 * last line too, once for each time it grew.
 */
static void
ctl_feed_read(struct ctl *ctl, struct ctl_feed *f, int partial)
{
	struct store_line	*sl;
	int			 n;

	if (f->reader == NULL)
		return;
	store_reader_refresh(f->reader);
	if (store_reader_since(f->reader, &f->mark, STORE_TEXT, -1, partial,
	    &sl, &n, NULL) == 0)
		ctl_broadcast_store_lines(ctl, f->job, sl, n);
}

/* Arm the partial-line timer for the earliest feed that waits, if any. */
static void
ctl_partial_arm(struct ctl *ctl)
{
	int64_t	due = 0, now = loop_now_ms();
	int	i;

	if (ctl->partial_timer != 0)
		loop_cancel_timer(ctl->loop, ctl->partial_timer);
	ctl->partial_timer = 0;
	for (i = 0; i < ctl->nfeeds; i++) {
		if (ctl->feeds[i].quiet_at != 0 && (due == 0 ||
		    ctl->feeds[i].quiet_at < due))
			due = ctl->feeds[i].quiet_at;
	}
	if (due != 0)
		ctl->partial_timer = loop_add_timer(ctl->loop, due > now ?
		    due - now : 0, ctl_partial_cb, ctl);
}

/* A job has been quiet: send the partial last lines of feeds now due. */
static void
ctl_partial_cb(void *arg)
{
	struct ctl	*ctl = arg;
	int64_t		 now = loop_now_ms();
	int		 i;

	ctl->partial_timer = 0;
	for (i = 0; i < ctl->nfeeds; i++) {
		if (ctl->feeds[i].quiet_at == 0 || ctl->feeds[i].quiet_at > now)
			continue;
		ctl->feeds[i].quiet_at = 0;
		if (ctl->nevents > 0)
			ctl_feed_read(ctl, &ctl->feeds[i], 1);
	}
	ctl_partial_arm(ctl);
}

/* Send what a job's feed has not sent, its last line too; forget it. */
static void
ctl_feed_flush(struct ctl *ctl, struct job *job)
{
	struct ctl_feed	 *f;
	char		**lines;
	int		  count, i;

	if ((f = ctl_feed(ctl, job, 0)) == NULL)
		return;
	if (f->rt != NULL) {
		lines = rawtext_finish(f->rt, &count);
		f->rt = NULL;
		if (ctl->nevents > 0)
			ctl_broadcast_lines(ctl, job, lines, count);
		else
			rawtext_free_lines(lines, count);
	} else if (ctl->nevents > 0)
		ctl_feed_read(ctl, f, 1);
	ctl_feed_clear(f);
	i = (int)(f - ctl->feeds);
	memmove(&ctl->feeds[i], &ctl->feeds[i + 1],
	    (size_t)(ctl->nfeeds - i - 1) * sizeof *ctl->feeds);
	ctl->nfeeds--;
	ctl_partial_arm(ctl);
}

/*
 * The exit status that ends logs --follow: the job's exit code, or 128+N
 * for signal N, as a shell gives; 124 when it timed out (as timeout(1));
 * 1 for a job that never ended (removed) or that was canceled and still
 * exited 0, so that neither looks like a success.
 */
static int
ctl_follow_status(const struct job *job)
{
	int	st = job_exit_status(job), code;

	if (job_is_running(job) || job_state(job) == JOB_QUEUED)
		return 1;
	if (job_state(job) == JOB_TIMED_OUT)
		return 124;
	code = WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
	if (code == 0 && job_state(job) == JOB_CANCELED)
		code = 1;
	return code;
}

/*
 * End a log stream once its log is read: the tail (JSON's "]}", or
 * follow's "exited" event), then the exit line (follow's), and close once
 * all is sent.  A run the store could not read to its end (damaged, or
 * not at all: the emulator's lines were sent) says why: JSON's "error",
 * "\036error logs: why", and an exit line of 1 at least.  A follow that
 * ends so before its job does is done with the job.
 */
static void
ctl_stream_end(struct ctl_client *c)
{
	struct json_buf	 jb;
	const char	*why = NULL;
	char		*line, *text;
	int		 code = c->exit;

	if (c->reader != NULL)
		why = store_reader_damage(c->reader);
	if (why == NULL)
		why = c->unread;
	if (why != NULL && c->json && c->stream != CTL_STREAM_FOLLOW &&
	    c->tail != NULL) {
		/* {"id":N,"lines":[...],"error":"why"} */
		json_init(&jb);
		json_put_string(&jb, why);
		free(c->tail);
		c->tail = xprintf("],\"error\":%.*s}\n", (int)jb.len, jb.data);
		json_clear(&jb);
	}
	if (c->tail != NULL) {
		xbuf_add(&c->out, c->tail, strlen(c->tail));
		free(c->tail);
		c->tail = NULL;
	}
	if (why != NULL) {
		text = textesc_visible(why, strlen(why));
		line = xprintf("%cerror logs: %s\n", CTL_CONTROL, text);
		xbuf_add(&c->out, line, strlen(line));
		free(line);
		free(text);
		if (code <= 0)
			code = 1;
	}
	if (c->flags & CTL_FOLLOW) {
		/* Cut by damage while its job runs. */
		c->ctl->nfollow--;
		c->flags &= ~CTL_FOLLOW;
		c->job = NULL;
		if (code < 0)
			code = 1;
	}
	if (code >= 0) {
		line = xprintf("%cexit %d\n", CTL_CONTROL, code);
		xbuf_add(&c->out, line, strlen(line));
		free(line);
	}
	store_reader_close(c->reader);
	c->reader = NULL;
	c->flags &= ~(CTL_LOG | CTL_WAITING);
	c->flags |= CTL_CLOSING;
}

/*
 * A followed job has ended (or is going): its end becomes the stream's
 * tail ("exited" with --json, then the exit line), and the stream goes on
 * to the log's size now, or takes the emulator's last lines.
 */
static void
ctl_follow_end(struct ctl_client *c)
{
	struct job	 *job = c->job;
	char		**lines, *exited = NULL;
	size_t		  n;
	int		  count, partial;

	if (c->json)
		exited = ctl_event_exited(job, &n);
	c->tail = exited;
	c->exit = ctl_follow_status(job);
	if (c->flags & CTL_VT) {
		lines = job_text_since(job, &c->mark, &count, &partial);
		ctl_stream_lines(c, lines, count);
	} else {
		ctl_stream_open(c, job);
		c->end = ctl_stream_count(c);
	}
	c->ctl->nfollow--;
	c->flags &= ~(CTL_FOLLOW | CTL_WAITING);
	c->job = NULL;
	if (c->flags & CTL_VT)
		ctl_stream_end(c);
	ctl_client_flush(c);
}

/*
 * End a stream's JSON object in jb with an empty "lines" array, send all
 * of it but its last "]}" now (the lines go in between) and keep that as
 * the stream's tail; jb is cleared.
 */
static void
ctl_stream_json_open(struct ctl_client *c, struct json_buf *jb)
{
	char	*doc;
	size_t	 len;

	json_key(jb, "lines");
	json_array_begin(jb);
	json_array_end(jb);
	json_object_end(jb);
	doc = json_finish(jb, NULL);
	json_clear(jb);
	len = strlen(doc);
	xbuf_add(&c->out, doc, len - 2);
	c->tail = xprintf("%s\n", doc + len - 2);
	free(doc);
}

/*
 * Start a log stream after its "0" status line: logs (to the log's size
 * now) or logs --follow (until the job ends).
 */
static void
ctl_stream_start(struct ctl_client *c, struct job *job)
{
	const struct job_spec	 *spec = job_spec(job);
	struct json_buf		  jb;
	char			**lines, line[16];
	int			  count, ended, partial;

	(void)spec;
	c->job_id = job_id(job);
	ended = !job_is_running(job) && job_state(job) != JOB_QUEUED;
	/* No log, or a run the store cannot read: the terminal's lines. */
	ctl_stream_open(c, job);
	if (c->reader != NULL)
		c->flags |= CTL_LOG;
	else
		c->flags |= CTL_VT;
	if (c->stream == CTL_STREAM_FOLLOW) {
		snprintf(line, sizeof line, "%cfollow\n", CTL_CONTROL);
		xbuf_add(&c->out, line, strlen(line));
		c->job = job;
		c->flags |= CTL_FOLLOW;
		c->ctl->nfollow++;
		ctl_keepalive_start(c->ctl);
		if (ended)
			ctl_follow_end(c);
		else if (c->flags & CTL_VT) {
			lines = job_text_since(job, &c->mark, &count,
			    &partial);
			ctl_stream_lines(c, lines, count);
			c->flags |= CTL_WAITING;
			ctl_client_flush(c);
		} else {
			c->end = CTL_END_OPEN;
			ctl_client_flush(c);
		}
		return;
	}
	if (c->json) {
		json_init(&jb);
		json_object_begin(&jb);
		json_key(&jb, "id");
		json_put_int(&jb, c->job_id);
		/* Lines the store's cap dropped before the first one sent. */
		json_key(&jb, "dropped");
		json_put_int(&jb, c->reader != NULL ?
		    store_reader_first(c->reader) : 0);
		ctl_stream_json_open(c, &jb);
	}
	if (c->flags & CTL_VT) {
		lines = job_text_lines(job, &count);
		ctl_stream_lines(c, lines, count);
		ctl_stream_end(c);
	} else
		c->end = ctl_stream_count(c);
	ctl_client_flush(c);
}

/*
 * Start a stream of a run of the store (logs RUN) after its "0" status
 * line, to the run's size now: text lines, or {"run":RUN,"lines":[...]}.
 */
static void
ctl_stream_start_run(struct ctl_client *c)
{
	struct json_buf	 jb;

	c->flags |= CTL_LOG;
	if (c->json) {
		json_init(&jb);
		json_object_begin(&jb);
		json_key(&jb, "run");
		json_put_string(&jb, c->run);
		ctl_stream_json_open(c, &jb);
	}
	c->end = ctl_stream_count(c);
	ctl_client_flush(c);
}

/* Tell the events clients that a job started or was queued. */
static void
ctl_announce(struct ctl *ctl, struct job *job, const char *what)
{
	struct json_buf	 jb;
	char		*line;
	size_t		 n;

	if (ctl->nevents == 0)
		return;
	ctl_event_begin(&jb, what, job_id(job));
	json_key(&jb, "name");
	json_put_string(&jb, job_name(job));
	if (job_pid(job) > 0 && strcmp(what, "queued") != 0) {
		json_key(&jb, "pid");
		json_put_int(&jb, job_pid(job));
	}
	json_key(&jb, "command");
	json_put_string(&jb, job_command(job));
	line = ctl_event_end(&jb, &n);
	ctl_broadcast(ctl, line, n);
	free(line);
}

/* A job started (a new run): tell the events clients, read it from line 0. */
static void
ctl_job_started(struct job *job, void *arg)
{
	struct ctl	*ctl = arg;
	struct ctl_feed	*f;

	ctl_announce(ctl, job, "started");
	if (ctl->nevents == 0)
		return;
	if ((f = ctl_feed(ctl, job, 0)) != NULL)
		ctl_feed_reset(f, job, 0);
	else
		ctl_feed(ctl, job, 2);
}

/* A job waits for a free slot: tell the events clients. */
static void
ctl_job_queued(struct job *job, void *arg)
{
	ctl_announce(arg, job, "queued");
}

/*
 * What is shown of a job changed (it waits for something else, became
 * ready, got a note, stopped, continued, was renamed): tell the events
 * clients.
 */
static void
ctl_job_changed(struct job *job, void *arg)
{
	struct ctl	*ctl = arg;
	struct json_buf	 jb;
	char		*line;
	size_t		 n;

	if (ctl->nevents == 0)
		return;
	ctl_event_begin(&jb, "changed", job_id(job));
	json_key(&jb, "state");
	json_put_string(&jb, job_state_name(job_state(job)));
	json_key(&jb, "waiting_for");
	json_put_string(&jb, job_waiting_for(job));
	json_key(&jb, "ready");
	if (job_ready(job) == JOB_READY_NONE)
		json_put_null(&jb);
	else
		json_put_string(&jb, job_ready_name(job_ready(job)));
	json_key(&jb, "note");
	json_put_string(&jb, job_note(job));
	line = ctl_event_end(&jb, &n);
	ctl_broadcast(ctl, line, n);
	free(line);
}

/*
 * A job printed: its complete lines to the events clients, and its
 * followers waiting at the end of its log read on.
 */
static void
ctl_job_output(struct job *job, const char *buf, size_t len, void *arg)
{
	struct ctl		 *ctl = arg;
	struct ctl_client	 *c;
	struct ctl_feed		 *f;
	char			**lines;
	int			  count, i, newline, partial;

	if (ctl->nevents > 0) {
		f = ctl_feed(ctl, job, 1);
		if (f->rt != NULL) {
			rawtext_feed(f->rt, buf, len);
			lines = rawtext_take(f->rt, &count);
			ctl_broadcast_lines(ctl, job, lines, count);
		} else {
			ctl_feed_read(ctl, f, 0);
			f->quiet_at = loop_now_ms() + CTL_PARTIAL_MS;
			ctl_partial_arm(ctl);
		}
	}
	if (ctl->nfollow == 0)
		return;
	/* Without a newline, no line of the emulator's can have ended. */
	newline = memchr(buf, '\n', len) != NULL;
	for (i = 0; i < ctl->nclients; i++) {
		c = ctl->clients[i];
		if (!(c->flags & CTL_FOLLOW) || c->job != job ||
		    (c->flags & CTL_DEAD))
			continue;
		if (c->flags & CTL_VT) {
			if (!newline)
				continue;
			lines = job_text_since(job, &c->mark, &count,
			    &partial);
			ctl_stream_lines(c, lines, count);
			if (ctl_client_pending(c) > CTL_OUTPUT_MAX) {
				ctl_client_drop(c);
				continue;
			}
		} else if (c->flags & CTL_WAITING) {
			ctl_stream_open(c, job);
			c->flags &= ~CTL_WAITING;
		} else
			continue;
		ctl_client_flush(c);
	}
}

/* A job ended: its last line and "exited" to events; followers end. */
static void
ctl_job_exited(struct job *job, void *arg)
{
	struct ctl		*ctl = arg;
	struct ctl_client	*c;
	char			*line;
	size_t			 n;
	int			 i;

	ctl_feed_flush(ctl, job);
	if (ctl->nevents > 0) {
		line = ctl_event_exited(job, &n);
		ctl_broadcast(ctl, line, n);
		free(line);
	}
	for (i = 0; i < ctl->nclients; i++) {
		c = ctl->clients[i];
		if ((c->flags & CTL_FOLLOW) && c->job == job &&
		    !(c->flags & CTL_DEAD))
			ctl_follow_end(c);
	}
	ctl_waits_soon(ctl);
}

/*
 * A job of a wait leaves the table: it has ended (only an ended job
 * leaves), so how it ended is kept now, before it is freed.
 */
static void
ctl_waits_removed(struct ctl *ctl, struct job *job)
{
	struct ctl_client	*c;
	int			 i, k;

	for (i = 0; i < ctl->nclients; i++) {
		c = ctl->clients[i];
		if (!(c->flags & CTL_WAIT) || (c->flags & CTL_DEAD))
			continue;
		for (k = 0; k < c->nwaits; k++) {
			if (c->waits[k].job != job)
				continue;
			if (c->waits[k].done == 0)
				ctl_wait_done(c, &c->waits[k], NULL);
			c->waits[k].job = NULL;
		}
	}
	ctl_waits_soon(ctl);
}

/* A job leaves the table: forget it everywhere, tell events clients. */
static void
ctl_job_removed(struct job *job, void *arg)
{
	struct ctl		*ctl = arg;
	struct ctl_client	*c;
	struct json_buf		 jb;
	char			*line;
	size_t			 n;
	int			 i;

	ctl_feed_flush(ctl, job);
	for (i = 0; i < ctl->nclients; i++) {
		c = ctl->clients[i];
		if ((c->flags & CTL_FOLLOW) && c->job == job &&
		    !(c->flags & CTL_DEAD))
			ctl_follow_end(c);
	}
	ctl_waits_removed(ctl, job);
	if (ctl->nevents == 0)
		return;
	ctl_event_begin(&jb, "removed", job_id(job));
	line = ctl_event_end(&jb, &n);
	ctl_broadcast(ctl, line, n);
	free(line);
}

/* The command's message: kept for the reply. */
static void
ctl_cmd_message(const char *msg, void *arg)
{
	struct ctl_client	*c = arg;

	ctl_buf_text(&c->messages, msg);
}

/* The command's error: kept for the reply. */
static void
ctl_cmd_error(const char *msg, void *arg)
{
	struct ctl_client	*c = arg;

	ctl_buf_line(&c->errors, msg);
}

/* The command's text: its lines (JSON: {"title","lines"}) for the reply. */
static void
ctl_cmd_show(const char *title, char **lines, int count, int header,
    void *arg)
{
	struct ctl_client	*c = arg;
	struct json_buf		 jb;
	char			*doc;
	int			 i;

	(void)header;
	if (!c->json) {
		for (i = 0; i < count; i++)
			ctl_buf_text(&c->body, lines[i]);
		return;
	}
	json_init(&jb);
	json_object_begin(&jb);
	json_key(&jb, "title");
	json_put_string(&jb, title);
	json_key(&jb, "lines");
	json_array_begin(&jb);
	for (i = 0; i < count; i++)
		json_put_string(&jb, lines[i]);
	json_array_end(&jb);
	json_object_end(&jb);
	doc = json_finish(&jb, NULL);
	json_clear(&jb);
	ctl_buf_line(&c->body, doc);
	free(doc);
}

/* The command's JSON result: the reply's body. */
static void
ctl_cmd_json(const char *doc, void *arg)
{
	struct ctl_client	*c = arg;

	ctl_buf_line(&c->body, doc);
}

/* quit: hand it to the deck (never for a client that may only look). */
static void
ctl_cmd_quit(void *arg)
{
	struct ctl_client	*c = arg;
	struct ctl		*ctl = c->ctl;

	if (c->flags & CTL_READ_ONLY)
		return;
	if (ctl->cbs != NULL && ctl->cbs->quit != NULL)
		ctl->cbs->quit(ctl->cbs_arg);
}

/*
 * focus: hand it to the deck.  Jobs a client starts are not selected for
 * it (select without focus), so a script does not move the user's view;
 * a client that may only look moves nothing.
 */
static void
ctl_cmd_select(struct job *job, int focus, void *arg)
{
	struct ctl_client	*c = arg;
	struct ctl		*ctl = c->ctl;

	if (c->flags & CTL_READ_ONLY)
		return;
	if (focus && ctl->cbs != NULL && ctl->cbs->focus != NULL)
		ctl->cbs->focus(job, ctl->cbs_arg);
}

/*
 * Turn the client into a stream once the reply starts; 0, or -1 when it
 * streams already or the streams' budget is spent (CTL_STREAMS_MAX, and
 * CTL_RO_STREAMS_MAX of them from NAME.ro).
 */
static int
ctl_cmd_stream(struct ctl_client *c, enum ctl_stream stream,
    struct job *job, char **cause)
{
	struct ctl	*ctl = c->ctl;
	int		 read_only = (c->flags & CTL_READ_ONLY) != 0;

	if (c->stream != CTL_STREAM_NONE) {
		*cause = xstrdup("already streaming");
		return -1;
	}
	if (ctl_count(ctl, CTL_STREAMING, CTL_STREAMING) >= CTL_STREAMS_MAX ||
	    (read_only && ctl_count(ctl, CTL_STREAMING | CTL_READ_ONLY,
	    CTL_STREAMING | CTL_READ_ONLY) >= CTL_RO_STREAMS_MAX)) {
		debuglog("ctl: client %d refused a stream: too many", c->fd);
		*cause = xprintf("too many streams at once (%d%s); try again "
		    "when one has ended", read_only ? CTL_RO_STREAMS_MAX :
		    CTL_STREAMS_MAX, read_only ? " on the read-only socket" :
		    "");
		return -1;
	}
	c->stream = stream;
	c->stream_job = job;
	return 0;
}

/* events or logs --follow: the client streams once the reply starts. */
static int
ctl_cmd_follow(struct job *job, void *arg, char **cause)
{
	return ctl_cmd_stream(arg, job == NULL ? CTL_STREAM_EVENTS :
	    CTL_STREAM_FOLLOW, job, cause);
}

/* logs: the client streams the job's log as far as it goes now. */
static int
ctl_cmd_logs(struct job *job, void *arg, char **cause)
{
	return ctl_cmd_stream(arg, CTL_STREAM_LOGS, job, cause);
}

/*
 * logs RUN: the client streams a run of the store in dir (of any deck) as
 * far as it goes now; -1 with *cause when it cannot be read.
 */
static int
ctl_cmd_logs_run(const char *dir, const char *run, void *arg, char **cause)
{
	struct ctl_client	*c = arg;

	if (ctl_cmd_stream(c, CTL_STREAM_LOGS, NULL, cause) != 0)
		return -1;
	if ((c->reader = store_reader_open(dir, run, cause)) == NULL) {
		c->stream = CTL_STREAM_NONE;
		return -1;
	}
	c->run = xstrdup(run);
	return 0;
}

/* grep: the client streams the matches, and owns the search. */
static int
ctl_cmd_grep(struct grep *g, void *arg, char **cause)
{
	struct ctl_client	*c = arg;

	if (ctl_cmd_stream(c, CTL_STREAM_GREP, NULL, cause) != 0) {
		grep_free(g);
		return -1;
	}
	c->grep = g;
	return 0;
}

/*
 * A match of a grep stream: "RUN [ID NAME]:LINE: text" (escaped), or a
 * JSON object on a line of its own.
 */
static int
ctl_grep_match(const struct grep_match *m, void *arg)
{
	struct ctl_client	*c = arg;
	struct json_buf		 jb;
	char			*line, *text;

	if (c->json) {
		json_init(&jb);
		json_object_begin(&jb);
		json_key(&jb, "run");
		json_put_string(&jb, m->run);
		json_key(&jb, "id");
		json_put_int(&jb, m->meta != NULL ? m->meta->job : 0);
		json_key(&jb, "name");
		json_put_string(&jb, m->meta != NULL ? m->meta->name : NULL);
		json_key(&jb, "line");
		json_put_int(&jb, m->line + 1);
		json_key(&jb, "time_ms");
		json_put_int(&jb, m->time);
		json_key(&jb, "text");
		json_put_stringn(&jb, m->text, m->len);
		json_key(&jb, "match");
		json_array_begin(&jb);
		json_put_int(&jb, (int64_t)m->so);
		json_put_int(&jb, (int64_t)m->eo);
		json_array_end(&jb);
		json_object_end(&jb);
		line = json_finish(&jb, NULL);
		json_clear(&jb);
	} else {
		text = textesc_needed(m->text, m->len) ?
		    textesc_visible(m->text, m->len) : xstrndup(m->text, m->len);
		line = xprintf("%s [%d%s%s]:%lld: %s", m->run, m->meta != NULL ?
		    m->meta->job : 0, m->meta != NULL && m->meta->name != NULL ?
		    " " : "", m->meta != NULL && m->meta->name != NULL ?
		    m->meta->name : "", (long long)m->line + 1, text);
		free(text);
	}
	ctl_buf_line(&c->out, line);
	free(line);
	c->flags |= CTL_SENT;
	return 0;
}

static const struct grep_cbs ctl_grep_cbs = {
	.match = ctl_grep_match,
};

/*
 * A step of a grep stream: search on while less than CTL_STREAM_LOW
 * waits to be sent (else after the socket drains); at the end the exit
 * line: 0 when something matched, 1 when nothing did.  Damaged runs are
 * searched up to their damage, as grep_step() does, and told before it:
 * "\036error grep: " the first one's damage, "\036damaged N" how many.
 */
static void
ctl_grep_cb(void *arg)
{
	struct ctl_client	*c = arg;
	const char		*why;
	char			 line[32], *text, *err;
	int			 rc, damaged;

	c->grep_timer = 0;
	if ((c->flags & CTL_DEAD) || c->grep == NULL)
		return;
	if (ctl_client_pending(c) >= CTL_STREAM_LOW) {
		c->flags |= CTL_GREP_WAIT;
		return;
	}
	rc = grep_step(c->grep, CTL_GREP_BUDGET, &ctl_grep_cbs, c);
	if (rc <= 0) {
		if ((damaged = grep_damaged(c->grep, &why)) > 0) {
			text = textesc_visible(why, strlen(why));
			err = xprintf("%cerror grep: %s\n", CTL_CONTROL, text);
			xbuf_add(&c->out, err, strlen(err));
			free(err);
			free(text);
			snprintf(line, sizeof line, "%cdamaged %d\n",
			    CTL_CONTROL, damaged);
			xbuf_add(&c->out, line, strlen(line));
		}
		c->tail = xprintf("%cexit %d\n", CTL_CONTROL,
		    grep_matches(c->grep) > 0 ? 0 : 1);
		xbuf_add(&c->out, c->tail, strlen(c->tail));
		free(c->tail);
		c->tail = NULL;
		grep_free(c->grep);
		c->grep = NULL;
		c->flags |= CTL_CLOSING;
	} else if (ctl_client_pending(c) < CTL_STREAM_LOW)
		c->grep_timer = loop_add_timer(c->ctl->loop, 0, ctl_grep_cb, c);
	else
		c->flags |= CTL_GREP_WAIT;
	ctl_client_flush(c);
}

/* wait: the client answers once the jobs have ended (ctl_wait_check()). */
static int
ctl_cmd_wait(struct job **jobs, int n, int64_t timeout_ms, void *arg,
    char **cause)
{
	struct ctl_client	*c = arg;
	int			 i;

	if (ctl_cmd_stream(c, CTL_STREAM_WAIT, NULL, cause) != 0)
		return -1;
	c->waits = xcalloc((size_t)n, sizeof *c->waits);
	for (i = 0; i < n; i++)
		c->waits[i].job = jobs[i];
	c->nwaits = n;
	c->wait_ms = timeout_ms;
	return 0;
}

/* Free what a wait holds. */
static void
ctl_wait_free(struct ctl_client *c)
{
	int	i;

	for (i = 0; i < c->nwaits; i++) {
		free(c->waits[i].text);
		free(c->waits[i].json);
	}
	free(c->waits);
	c->waits = NULL;
	c->nwaits = 0;
}

/*
 * Return the exit status a wait gives for a job: 0 if it completed, its
 * exit code or 128+N for signal N if it failed, 1 if it was canceled,
 * timed out, or is still live (the wait gave up on it).
 */
static int
ctl_wait_code(const struct ctl *ctl, const struct job *job)
{
	int	code;

	if (jobtable_is_live(ctl->jt, job))
		return 1;
	if (job_state(job) == JOB_COMPLETED)
		return 0;
	if (job_state(job) != JOB_FAILED)
		return 1;
	code = waitstatus_shell_code(job_end_status(job));
	return code != 0 ? code : 1;
}

/*
 * Return a wait's line for a job: "[3] web: completed", "[4] api: failed
 * (exit 2)", "[5] db: canceled (SIGTERM)", or how a live one stands and
 * why it is told now ("running (the wait timed out)").
 */
static char *
ctl_wait_line(const struct ctl *ctl, struct job *job, const char *why)
{
	char		 how[64], name[WAITSTATUS_NAME_MAX], *line, *safe;
	const char	*label = job_name(job), *state;
	int		 status = job_end_status(job), code, sig;

	if (label == NULL)
		label = job_command(job);
	state = job_state_name(job_state(job));
	code = waitstatus_exit_code(status);
	sig = waitstatus_signal(status);
	if (jobtable_is_live(ctl->jt, job) && !job_is_running(job) &&
	    job_state(job) != JOB_QUEUED && job_state(job) != JOB_WAITING)
		snprintf(how, sizeof how, "restarting");
	else if (jobtable_is_live(ctl->jt, job) ||
	    job_state(job) == JOB_COMPLETED)
		snprintf(how, sizeof how, "%s", state);
	else if (code >= 0)
		snprintf(how, sizeof how, "%s (exit %d)", state, code);
	else if (sig > 0)
		snprintf(how, sizeof how, "%s (%s)", state,
		    waitstatus_signal_name(sig, name, sizeof name));
	else
		snprintf(how, sizeof how, "%s", state);
	line = xprintf("[%d] %s: %s%s%s%s", job_id(job), label, how,
	    why != NULL ? " (" : "", why != NULL ? why : "",
	    why != NULL ? ")" : "");
	if (!textesc_needed(line, strlen(line)))
		return line;
	safe = textesc_visible(line, strlen(line));
	free(line);
	return safe;
}

/*
 * A job of a wait has ended (or the wait gives up on it, saying why): keep
 * how it stands now, its line and (--json) its object, and its place in
 * the order of ends.
 */
static void
ctl_wait_done(struct ctl_client *c, struct ctl_wait *w, const char *why)
{
	struct json_buf	jb;

	w->done = ++c->ndone;
	w->code = ctl_wait_code(c->ctl, w->job);
	w->text = ctl_wait_line(c->ctl, w->job, why);
	if (c->json) {
		json_init(&jb);
		json_object_begin(&jb);
		cmd_json_job(&jb, w->job);
		json_object_end(&jb);
		w->json = json_finish(&jb, NULL);
		json_clear(&jb);
	}
}

/*
 * Answer a wait: what is still live is told as it stands (why: the wait
 * timed out, the deck quits), then a line per job in the order given
 * (--json: an array of job objects) and the exit line: the status of the
 * first job, in the order they ended, that did not complete; 0 when all
 * did.  The caller flushes.
 */
static void
ctl_wait_answer(struct ctl_client *c, const char *why)
{
	struct ctl	*ctl = c->ctl;
	struct ctl_wait	*w;
	char		*tail;
	int		 i, k, status = 0;

	for (i = 0; i < c->nwaits; i++) {
		if (c->waits[i].done == 0 && c->waits[i].job != NULL)
			ctl_wait_done(c, &c->waits[i], why);
	}
	for (k = 1; k <= c->ndone && status == 0; k++) {
		for (i = 0; i < c->nwaits; i++) {
			if (c->waits[i].done == k)
				status = c->waits[i].code;
		}
	}
	if (c->json)
		xbuf_add(&c->out, "[", 1);
	for (i = 0; i < c->nwaits; i++) {
		w = &c->waits[i];
		if (c->json) {
			if (i > 0)
				xbuf_add(&c->out, ",", 1);
			xbuf_add(&c->out, w->json, strlen(w->json));
		} else
			ctl_buf_line(&c->out, w->text);
	}
	if (c->json)
		xbuf_add(&c->out, "]\n", 2);
	tail = xprintf("%cexit %d\n", CTL_CONTROL, status);
	xbuf_add(&c->out, tail, strlen(tail));
	free(tail);
	if (c->wait_timer != 0 && ctl->loop != NULL)
		loop_cancel_timer(ctl->loop, c->wait_timer);
	c->wait_timer = 0;
	ctl->nwait--;
	c->flags &= ~CTL_WAIT;
	c->flags |= CTL_CLOSING | CTL_SENT;
}

/*
 * Look at a wait's jobs: those that have ended for good (not live: no
 * restart pending) are done; once all are, answer.  Returns whether it
 * answered.
 */
static int
ctl_wait_check(struct ctl_client *c)
{
	struct ctl_wait	*w;
	int		 i;

	for (i = 0; i < c->nwaits; i++) {
		w = &c->waits[i];
		if (w->done == 0 && w->job != NULL &&
		    !jobtable_is_live(c->ctl->jt, w->job))
			ctl_wait_done(c, w, NULL);
	}
	if (c->ndone < c->nwaits)
		return 0;
	ctl_wait_answer(c, NULL);
	return 1;
}

/* A wait's time limit: answer with what is still live as it stands. */
static void
ctl_wait_timeout_cb(void *arg)
{
	struct ctl_client	*c = arg;

	c->wait_timer = 0;
	if ((c->flags & CTL_DEAD) || !(c->flags & CTL_WAIT))
		return;
	ctl_wait_answer(c, "the wait timed out");
	ctl_client_flush(c);
}

/*
 * After a job ended (its restart policy has acted by now) or left the
 * table: look at every wait.
 */
static void
ctl_waits_cb(void *arg)
{
	struct ctl		*ctl = arg;
	struct ctl_client	*c;
	int			 i;

	ctl->wait_timer = 0;
	for (i = 0; i < ctl->nclients; i++) {
		c = ctl->clients[i];
		if ((c->flags & CTL_WAIT) && !(c->flags & CTL_DEAD) &&
		    ctl_wait_check(c))
			ctl_client_flush(c);
	}
}

/*
 * Look at the waits soon: a job's end is told before its restart policy
 * acts, so a zero-delay timer lets the policy arm its restart first.
 */
static void
ctl_waits_soon(struct ctl *ctl)
{
	if (ctl->nwait > 0 && ctl->wait_timer == 0)
		ctl->wait_timer = loop_add_timer(ctl->loop, 0, ctl_waits_cb,
		    ctl);
}

/*
 * Start a wait after its "0" status line: a follow line (so the client
 * takes the exit line's status), keepalives while it waits (so the
 * client's time limit never cuts it), its own time limit, and an answer
 * at once if its jobs have all ended already.
 */
static void
ctl_wait_start(struct ctl_client *c)
{
	struct ctl	*ctl = c->ctl;
	char		 line[16];

	snprintf(line, sizeof line, "%cfollow\n", CTL_CONTROL);
	xbuf_add(&c->out, line, strlen(line));
	c->flags |= CTL_WAIT;
	ctl->nwait++;
	ctl_keepalive_start(ctl);
	if (c->wait_ms > 0)
		c->wait_timer = loop_add_timer(ctl->loop, c->wait_ms,
		    ctl_wait_timeout_cb, c);
	ctl_wait_check(c);
	ctl_client_flush(c);
}

/*
 * Cut a request line (len bytes without its newline; line[len] may be
 * written) into words as the socket runs them: a NUL byte is refused, a
 * trailing CR dropped, the words split by session_split() on session,
 * leading "--json" words taken (*json set), and the command's '!'
 * dropped.  0 with the words (session_split_free() them) and *first, the
 * index of the command; or -1 with *cause, a bad request (status 2).
 */
int
ctl_request_parse(const struct session *session, char *line, size_t len,
    int *argc, char ***argv, int *first, int *json, char **cause)
{
	*argc = 0;
	*argv = NULL;
	*first = 0;
	if (memchr(line, '\0', len) != NULL) {
		*cause = xstrdup("bad request: it holds a NUL byte");
		return -1;
	}
	line[len] = '\0';
	if (len > 0 && line[len - 1] == '\r')
		line[len - 1] = '\0';
	if (session_split(session, line, argc, argv, cause) != 0)
		return -1;
	while (*first < *argc && strcmp((*argv)[*first], "--json") == 0) {
		*json = 1;
		(*first)++;
	}
	if (*first < *argc && (*argv)[*first][0] == '!')
		memmove((*argv)[*first], (*argv)[*first] + 1,
		    strlen((*argv)[*first]));
	if (*first == *argc || (*argv)[*first][0] == '\0') {
		*cause = xstrdup("empty request (try: help)");
		session_split_free(*argc, *argv);
		*argc = 0;
		*argv = NULL;
		return -1;
	}
	return 0;
}

/* Run a complete request and queue its reply. */
static void
ctl_client_request(struct ctl_client *c, char *line, size_t len)
{
	struct ctl	 *ctl = c->ctl;
	struct cmd_ctx	  ctx;
	char		**argv, *cause = NULL;
	int		  argc, first;

	c->flags |= CTL_ANSWERED;
	if (c->req_timer != 0) {
		loop_cancel_timer(ctl->loop, c->req_timer);
		c->req_timer = 0;
	}
	line[len] = '\0';
	debuglog("ctl: client %d%s asks: %.200s", c->fd,
	    (c->flags & CTL_READ_ONLY) ? " (read-only)" : "", line);
	if (ctl_request_parse(ctl->ctx.session, line, len, &argc, &argv,
	    &first, &c->json, &cause) != 0) {
		ctl_client_fail(c, 2, "%s", cause);
		free(cause);
		return;
	}

	ctx = ctl->ctx;
	ctx.arg = c;
	ctx.json = c->json;
	if (c->flags & CTL_READ_ONLY)
		ctx.read_only = 1;
	cmd_execute(&ctx, argc - first, argv + first);
	session_split_free(argc, argv);
	if (c->flags & (CTL_DEAD | CTL_LATER))
		return;
	ctl_client_reply(c, ctx.failed);
}

/*
 * A session line: the answer comes when the session shell has run it
 * (ctl_cmd_answered()); the client is kept until then, even if it goes.
 */
static int
ctl_cmd_later(void *arg, char **cause)
{
	struct ctl_client	*c = arg;

	(void)cause;
	c->flags |= CTL_LATER;
	return 0;
}

/* A session line is done: its messages or errors are the answer. */
static void
ctl_cmd_answered(void *arg)
{
	struct ctl_client	*c = arg;
	struct ctl		*ctl = c->ctl;

	c->flags &= ~CTL_LATER;
	if (c->flags & CTL_DEAD) {
		if (ctl->reap_timer == 0 && ctl->loop != NULL)
			ctl->reap_timer = loop_add_timer(ctl->loop, 0,
			    ctl_reap_cb, ctl);
		return;
	}
	ctl_client_reply(c, c->errors.len > 0 ? CMD_FAILED : 0);
}

/* Queue a request's reply: its status (failed), then errors or body. */
static void
ctl_client_reply(struct ctl_client *c, int failed)
{
	struct ctl	*ctl = c->ctl;
	struct json_buf	 jb;
	struct xbuf	 reply = { NULL, 0, 0 };
	char		*doc, status[8];

	if (failed != 0) {
		snprintf(status, sizeof status, "%d\n", failed);
		xbuf_add(&reply, status, strlen(status));
		if (c->errors.len == 0)
			ctl_buf_line(&c->errors, "command failed");
		xbuf_add(&reply, c->errors.s, c->errors.len);
		c->flags |= CTL_CLOSING;
		ctl_client_send(c, reply.s, reply.len);
		xbuf_clear(&reply);
		return;
	}
	if (c->stream != CTL_STREAM_NONE) {
		/* Its short request's place goes to the next one. */
		c->flags |= CTL_STREAMING;
		ctl_accept_update(ctl);
		xbuf_add(&c->out, "0\n", 2);
		if (c->stream == CTL_STREAM_EVENTS) {
			c->flags |= CTL_EVENTS;
			if (ctl->nevents++ == 0)
				ctl_feeds_start(ctl);
			ctl_keepalive_start(ctl);
			ctl_client_flush(c);
		} else if (c->stream == CTL_STREAM_GREP) {
			/* Like follow: the exit line at the end says it all. */
			doc = xprintf("%cfollow\n", CTL_CONTROL);
			xbuf_add(&c->out, doc, strlen(doc));
			free(doc);
			ctl_grep_cb(c);
		} else if (c->stream == CTL_STREAM_WAIT)
			ctl_wait_start(c);
		else if (c->run != NULL)
			ctl_stream_start_run(c);
		else
			ctl_stream_start(c, c->stream_job);
		return;
	}
	if (c->json && c->body.len == 0) {
		json_init(&jb);
		json_object_begin(&jb);
		json_key(&jb, "ok");
		json_put_bool(&jb, 1);
		json_key(&jb, "message");
		if (c->messages.len > 0)
			json_put_stringn(&jb, c->messages.s,
			    c->messages.len - 1);
		else
			json_put_null(&jb);
		json_object_end(&jb);
		doc = json_finish(&jb, NULL);
		json_clear(&jb);
		ctl_buf_line(&c->body, doc);
		free(doc);
	} else if (!c->json && c->messages.len > 0)
		xbuf_add(&c->body, c->messages.s, c->messages.len);
	xbuf_add(&reply, "0\n", 2);
	if (c->body.len > 0)
		xbuf_add(&reply, c->body.s, c->body.len);
	xbuf_clear(&c->body);
	c->flags |= CTL_CLOSING;
	ctl_client_send(c, reply.s, reply.len);
	xbuf_clear(&reply);
}

/*
 * Read a client's request.  Once it is read, input is read and thrown
 * away, to see the client leave: a hangup drops it, while a client that
 * only shut down its side (end of file, no hangup) is still written to.
 */
static void
ctl_client_read(struct ctl_client *c, short revents)
{
	char	 junk[CTL_READ_CHUNK], *nl;
	size_t	 room, old;
	ssize_t	 n;

	if (c->flags & CTL_ANSWERED) {
		n = read(c->fd, junk, sizeof junk);
		if (n > 0 || (n == -1 && (errno == EAGAIN || errno == EINTR)))
			return;
		if (n == 0 && !(revents & POLLHUP)) {
			c->flags |= CTL_NO_INPUT;
			ctl_client_watch(c);
		} else
			ctl_client_drop(c);
		return;
	}
	for (;;) {
		if (c->in.size < CTL_REQUEST_MAX + 1 &&
		    c->in.size - c->in.len < CTL_READ_CHUNK + 1) {
			c->in.size = c->in.size == 0 ? CTL_READ_CHUNK * 2 :
			    c->in.size * 2;
			if (c->in.size > CTL_REQUEST_MAX + 1)
				c->in.size = CTL_REQUEST_MAX + 1;
			c->in.s = xreallocarray(c->in.s, c->in.size, 1);
		}
		/* One byte stays free for the NUL. */
		room = c->in.size - 1 - c->in.len;
		if (room == 0) {
			ctl_client_fail(c, 2, "request too long (more than "
			    "%d bytes)", CTL_REQUEST_MAX);
			return;
		}
		n = read(c->fd, c->in.s + c->in.len, room);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN)
			return;
		if (n == -1) {
			ctl_client_drop(c);
			return;
		}
		if (n == 0) {
			/* End of file ends the request, if there is one. */
			c->flags |= CTL_NO_INPUT;
			if (c->in.len == 0)
				ctl_client_drop(c);
			else
				ctl_client_request(c, c->in.s, c->in.len);
			xbuf_clear(&c->in);
			return;
		}
		old = c->in.len;
		c->in.len += (size_t)n;
		nl = memchr(c->in.s + old, '\n', (size_t)n);
		if (nl != NULL) {
			ctl_client_request(c, c->in.s, (size_t)(nl - c->in.s));
			xbuf_clear(&c->in);
			return;
		}
	}
}

/* A client's socket is ready: write its output, read it, see it leave. */
static void
ctl_client_cb(int fd, short revents, void *arg)
{
	struct ctl_client	*c = arg;

	(void)fd;
	if (revents & (POLLNVAL | POLLERR)) {
		ctl_client_drop(c);
		return;
	}
	if (revents & POLLOUT)
		ctl_client_flush(c);
	if ((c->flags & CTL_DEAD) || !(revents & (POLLIN | POLLHUP)))
		return;
	if (!(c->flags & CTL_NO_INPUT))
		ctl_client_read(c, revents);
	else if (revents & POLLHUP)
		ctl_client_drop(c);
}

/*
 * Close every client (sending what each socket takes at once), stop
 * listening and remove both sockets if they are still ours.
 */
void
ctl_free(struct ctl *ctl)
{
	struct ctl_client	*c;
	char			*cause = NULL;
	int			 i, lock;

	if (ctl == NULL)
		return;
	for (i = 0; i < ctl->nclients; i++) {
		c = ctl->clients[i];
		/* A wait cut short by the deck's end hears how things stand. */
		if ((c->flags & CTL_WAIT) && !(c->flags & CTL_DEAD))
			ctl_wait_answer(c, "the deck quit");
		if (!(c->flags & CTL_DEAD) && ctl_client_pending(c) > 0)
			(void)write(c->fd, c->out.s + c->out_off,
			    ctl_client_pending(c));
		ctl_client_free(c);
	}
	free(ctl->clients);
	for (i = 0; i < ctl->nfeeds; i++)
		ctl_feed_clear(&ctl->feeds[i]);
	free(ctl->feeds);
	if (ctl->loop != NULL) {
		for (i = 0; i < CTL_SOCKS; i++)
			loop_unwatch_fd(ctl->loop, ctl->socks[i].fd);
		if (ctl->reap_timer != 0)
			loop_cancel_timer(ctl->loop, ctl->reap_timer);
		if (ctl->accept_timer != 0)
			loop_cancel_timer(ctl->loop, ctl->accept_timer);
		if (ctl->room_timer != 0)
			loop_cancel_timer(ctl->loop, ctl->room_timer);
		if (ctl->keepalive_timer != 0)
			loop_cancel_timer(ctl->loop, ctl->keepalive_timer);
		if (ctl->partial_timer != 0)
			loop_cancel_timer(ctl->loop, ctl->partial_timer);
		if (ctl->wait_timer != 0)
			loop_cancel_timer(ctl->loop, ctl->wait_timer);
	}
	if (ctl->jt_handle != -1)
		jobtable_unsubscribe(ctl->jt, ctl->jt_handle);
	/* Under the lock, or a deck starting now could lose its new socket. */
	if ((lock = ctl_lock(ctl->socks[CTL_SOCK_FULL].path, &cause)) == -1)
		free(cause);
	for (i = 0; i < CTL_SOCKS; i++)
		ctl_unbind(&ctl->socks[i]);
	if (lock != -1)
		close(lock);
	free(ctl);
}

/*
 * server.c: the deck's attached clients (include/server.h): attaching,
 * the client's line, drawing each in the loop's hook, the jobs' size,
 * leaving and the deck's end.
 */
#include <sys/socket.h>

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "ctl.h"
#include "debuglog.h"
#include "job.h"
#include "jobfield.h"
#include "jobtable.h"
#include "loop.h"
#include "server.h"
#include "textesc.h"
#include "ui.h"
#include "xmalloc.h"

#define SERVER_LINE_MAX		64	/* a client's line to the deck */
#define SERVER_AWAY_MAX		8	/* ends named on attach */
#define SERVER_FLUSH_MS		10	/* a leaving client's queue looked at */

enum server_state {
	SERVER_ATTACHED,
	SERVER_SUSPENDED,	/* its terminal given back for a while */
	SERVER_LEAVING,		/* ends at the next turn */
	SERVER_FLUSHING		/* its terminal given back, bytes going */
};

struct server_client {
	struct server		*srv;
	struct ui		*ui;
	int			 sock;		/* the client's line */
	enum server_state	 state;
	char			 in[SERVER_LINE_MAX];
	size_t			 inlen;
	int			 read_only;	/* came in on NAME.ro */
	int			 unflushed;	/* released with bytes unsent */
	int			 code;		/* its exit status */
	char			*why;		/* its exit line's text */
	int64_t			 deadline;	/* flushing until then */
	uint64_t		 timer;
	int64_t			 active;	/* last typed or resized */
};

struct server {
	struct loop		*loop;
	struct jobtable		*jt;
	struct session		*session;
	struct server_opts	 opts;
	struct ui_owner_cbs	 owner;
	const struct server_cbs	*cbs;
	void			*arg;
	struct server_client	**clients;
	int			 n;
	struct server_client	*latest;	/* the jobs' size follows */
	int			 rows, cols;	/* the size set, 0: none */
	int64_t			 away;		/* none attached since (wall) */
	char			*last_message;	/* said while none attached */
	int			 last_error;
	int			 quitting;
};

static void	server_owner_detach(struct ui *, enum ui_detach, void *);
static void	server_owner_quit(struct ui *, void *);
static void	server_owner_sized(struct ui *, int, void *);
static void	server_sock_cb(int, short, void *);

/* Return the client whose front end is ui, or NULL. */
static struct server_client *
server_find(const struct server *srv, const struct ui *ui)
{
	int	i;

	for (i = 0; i < srv->n; i++) {
		if (srv->clients[i]->ui == ui)
			return srv->clients[i];
	}
	return NULL;
}

/* Return how many clients are attached (leaving ones not counted). */
int
server_clients(const struct server *srv)
{
	int	i, n = 0;

	for (i = 0; i < srv->n; i++)
		n += srv->clients[i]->state == SERVER_ATTACHED ||
		    srv->clients[i]->state == SERVER_SUSPENDED;
	return n;
}

/* Write a line to a client's connection, as much as it takes now. */
static void
server_send(int sock, const char *line)
{
	if (sock != -1 && send(sock, line, strlen(line), MSG_DONTWAIT |
	    MSG_NOSIGNAL) == -1)
		debuglog("server: client line %d: %s", sock, strerror(errno));
}

/*
 * Return whether a client may size the jobs' terminals: attached, and not
 * read-only (a size is a change to the jobs: SIGWINCH).
 */
static int
server_may_size(const struct server_client *c)
{
	return c->state == SERVER_ATTACHED && c->ui != NULL && !c->read_only;
}

/*
 * Size the jobs' terminals by the policy: the latest client's pane, or
 * the smallest or largest rows and columns of the clients' panes, each
 * on its own; nothing when unchanged, or no client may size them.
 */
static void
server_apply_size(struct server *srv)
{
	struct server_client	*c;
	int			 i, rows = 0, cols = 0, r, k, small;

	small = srv->opts.size == SERVER_SIZE_SMALLEST;
	for (i = 0; i < srv->n; i++) {
		c = srv->clients[i];
		if (!server_may_size(c))
			continue;
		ui_pane_size(c->ui, &r, &k);
		if (srv->opts.size == SERVER_SIZE_LATEST) {
			if (c != srv->latest)
				continue;
		} else if (rows != 0) {
			r = small ? (r < rows ? r : rows) : (r > rows ? r : rows);
			k = small ? (k < cols ? k : cols) : (k > cols ? k : cols);
		}
		rows = r;
		cols = k;
	}
	if (rows <= 0 || cols <= 0 || (rows == srv->rows && cols == srv->cols))
		return;
	srv->rows = rows;
	srv->cols = cols;
	jobtable_set_size(srv->jt, rows, cols);
}

/*
 * Take a reloaded configuration: for clients attaching from now on and
 * the ones attached, the settings each client's view reads; and
 * on_last_detach and pty_size.
 */
void
server_set_config(struct server *srv, const struct config *cfg)
{
	int	i;

	srv->opts.ui.config = cfg;
	srv->opts.quit_on_last = cfg->settings.on_last_detach == 1;
	srv->opts.size = (enum server_size)cfg->settings.pty_size;
	for (i = 0; i < srv->n; i++)
		ui_set_settings(srv->clients[i]->ui, &cfg->settings);
	srv->rows = srv->cols = 0;
	server_apply_size(srv);
}

/* Make the most recently active attached client the latest (or none). */
static void
server_pick_latest(struct server *srv)
{
	struct server_client	*c;
	int			 i;

	srv->latest = NULL;
	for (i = 0; i < srv->n; i++) {
		c = srv->clients[i];
		if (server_may_size(c) && (srv->latest == NULL ||
		    c->active >= srv->latest->active))
			srv->latest = c;
	}
}

/* A client's pane changed size, or it typed to a job: size the jobs. */
static void
server_owner_sized(struct ui *ui, int resized, void *arg)
{
	struct server		*srv = arg;
	struct server_client	*c = server_find(srv, ui);

	if (c == NULL || !server_may_size(c))
		return;		/* being made (its attach sizes), or a viewer */
	if (srv->latest != c) {
		c->active = loop_now_ms();
		srv->latest = c;
	} else if (!resized)
		return;		/* a key of the latest: the size stands */
	server_apply_size(srv);
}

/* Remove a client from the list and free it: front end, fds, timer. */
static void
server_client_free(struct server_client *c)
{
	struct server	*srv = c->srv;
	int		 i;

	for (i = 0; i < srv->n; i++) {
		if (srv->clients[i] == c) {
			memmove(&srv->clients[i], &srv->clients[i + 1],
			    (size_t)(srv->n - i - 1) * sizeof *srv->clients);
			srv->n--;
			break;
		}
	}
	if (srv->latest == c)
		server_pick_latest(srv);
	if (c->timer != 0)
		loop_cancel_timer(srv->loop, c->timer);
	if (c->sock != -1) {
		loop_unwatch_fd(srv->loop, c->sock);
		close(c->sock);
	}
	ui_free(c->ui);
	free(c->why);
	free(c);
}

/* A leaving client's terminal is written (or out of time): tell it, end. */
static void
server_flush_cb(void *arg)
{
	struct server_client	*c = arg;
	struct server		*srv = c->srv;
	char			*line;

	c->timer = 0;
	if (ui_pending(c->ui) > 0 && loop_now_ms() < c->deadline) {
		c->timer = loop_add_timer(srv->loop, SERVER_FLUSH_MS,
		    server_flush_cb, c);
		return;
	}
	line = xprintf("%c%s %d %s\n", CTL_CONTROL, ui_pending(c->ui) > 0 ?
	    "exit-unflushed" : "exit", c->code, c->why);
	server_send(c->sock, line);
	free(line);
	server_client_free(c);
}

/*
 * End a leaving client now: its terminal given back, its last bytes
 * written for up to SERVER_LEAVE_MS, then its exit line.
 */
static void
server_client_end(struct server_client *c)
{
	struct server	*srv = c->srv;

	c->state = SERVER_FLUSHING;
	if (c->timer != 0) {
		loop_cancel_timer(srv->loop, c->timer);
		c->timer = 0;
	}
	ui_end(c->ui);
	c->deadline = loop_now_ms() + SERVER_LEAVE_MS;
	server_flush_cb(c);
}

/* The turn after a client was asked to leave: end it. */
static void
server_leave_cb(void *arg)
{
	struct server_client	*c = arg;

	c->timer = 0;
	server_client_end(c);
}

/*
 * A client leaves (code and why: its exit line): ended at the next turn,
 * never inside the front end's own call.  The last to leave may end the
 * deck (on_last_detach = "quit").
 */
static void
server_client_leave(struct server_client *c, int code, const char *why)
{
	struct server	*srv = c->srv;

	if (c->state == SERVER_LEAVING || c->state == SERVER_FLUSHING)
		return;
	debuglog("server: client %d leaves: %s", c->sock, why);
	c->state = SERVER_LEAVING;
	c->code = code;
	free(c->why);
	c->why = xstrdup(why);
	if (c->sock != -1)
		loop_set_events(srv->loop, c->sock, 0);
	c->timer = loop_add_timer(srv->loop, 0, server_leave_cb, c);
	if (srv->latest == c) {
		server_pick_latest(srv);
		server_apply_size(srv);
	}
	if (server_clients(srv) == 0) {
		srv->away = loop_wall_ms();
		if (srv->opts.quit_on_last && !srv->quitting)
			srv->cbs->quit(srv->arg);
	}
}

/* Leave with the detach line: "[detached from NAME]" and status 0. */
static void
server_client_detach(struct server_client *c, const char *how)
{
	char	*why;

	why = xprintf("[detached from %s%s]", c->srv->opts.name, how);
	server_client_leave(c, 0, why);
	free(why);
}

/* The front end's detach: asked, its terminal gone, or stalled. */
static void
server_owner_detach(struct ui *ui, enum ui_detach how, void *arg)
{
	struct server_client	*c = server_find(arg, ui);

	if (c == NULL)
		return;
	switch (how) {
	case UI_DETACH_ASKED:
		server_client_detach(c, "");
		break;
	case UI_DETACH_GONE:
		server_client_detach(c, ": the terminal went away");
		break;
	case UI_DETACH_STALLED:
		server_client_detach(c, ": the terminal took nothing for "
		    "seconds");
		break;
	}
}

/* !quit from a client: the deck stops every job and ends. */
static void
server_owner_quit(struct ui *ui, void *arg)
{
	struct server	*srv = arg;

	(void)ui;
	srv->cbs->quit(srv->arg);
}

/* Suspend a client (its SIGTSTP): the terminal back, then it stops. */
static void
server_client_suspend(struct server_client *c)
{
	char	line[32];

	if (c->state != SERVER_ATTACHED)
		return;
	c->state = SERVER_SUSPENDED;
	ui_end(c->ui);
	if (c->srv->latest == c) {
		server_pick_latest(c->srv);
		server_apply_size(c->srv);
	}
	snprintf(line, sizeof line, "%csuspended\n", CTL_CONTROL);
	server_send(c->sock, line);
}

/* Run one line a client sent. */
static void
server_client_line(struct server_client *c, const char *line)
{
	if (strcmp(line, "resize") == 0) {
		if (c->state == SERVER_ATTACHED)
			ui_resized(c->ui);
	} else if (strcmp(line, "detach") == 0)
		server_client_detach(c, "");
	else if (strcmp(line, "suspend") == 0)
		server_client_suspend(c);
	else if (strcmp(line, "resume") == 0) {
		if (c->state == SERVER_SUSPENDED) {
			c->state = SERVER_ATTACHED;
			ui_resume(c->ui);
			if (c->srv->latest == NULL) {
				server_pick_latest(c->srv);
				server_apply_size(c->srv);
			}
		}
	} else
		debuglog("server: client %d sent an unknown line", c->sock);
}

/* A client's connection is readable: its lines, or its leaving. */
static void
server_sock_cb(int fd, short revents, void *arg)
{
	struct server_client	*c = arg;
	char			 buf[256], *nl;
	ssize_t			 n;
	size_t			 i;

	(void)revents;
	n = read(fd, buf, sizeof buf);
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		/* The client is gone (killed): its terminal may live on. */
		loop_unwatch_fd(c->srv->loop, fd);
		close(c->sock);
		c->sock = -1;
		server_client_detach(c, ": the client went away");
		return;
	}
	for (i = 0; i < (size_t)n; i++) {
		if (buf[i] != '\n') {
			if (c->inlen < sizeof c->in - 1)
				c->in[c->inlen++] = buf[i];
			continue;
		}
		c->in[c->inlen] = '\0';
		c->inlen = 0;
		if ((nl = strchr(c->in, '\r')) != NULL)
			*nl = '\0';
		server_client_line(c, c->in);
		if (c->state == SERVER_LEAVING || c->state == SERVER_FLUSHING)
			return;
	}
}

/* Return the value of key=VALUE among an attach's words, or NULL. */
static const char *
server_word(const struct ctl_attach *a, const char *key)
{
	size_t	len = strlen(key);
	int	i;

	for (i = 0; i < a->argc; i++) {
		if (strncmp(a->argv[i], key, len) == 0 &&
		    a->argv[i][len] == '=')
			return a->argv[i] + len + 1;
	}
	return NULL;
}

/* Refuse an attach: "2\n" and the reason, the connection and fds closed. */
static void
server_refuse(const struct ctl_attach *a, const char *why)
{
	char	*line;

	line = xprintf("2\n%s\n", why);
	server_send(a->sock, line);
	free(line);
	close(a->sock);
	close(a->fds[0]);
	close(a->fds[1]);
}

/*
 * Say to a client that attaches after none was, what ended meanwhile:
 * "2 jobs ended while detached: [2] exited 1, [3] completed", at most
 * SERVER_AWAY_MAX named; else the deck's last message while alone.
 */
static void
server_tell_away(struct server *srv, struct server_client *c)
{
	struct job	*job;
	struct xbuf	 list = { NULL, 0, 0 };
	char		 how[64], *msg, *part;
	int		 i, n = 0, failed = 0;

	for (i = 0; i < jobtable_count(srv->jt); i++) {
		job = jobtable_get(srv->jt, i);
		if (job_is_running(job) || job_end_time(job) < srv->away ||
		    job_end_time(job) == 0)
			continue;
		failed |= job_state(job) == JOB_FAILED ||
		    job_state(job) == JOB_TIMED_OUT ||
		    job_state(job) == JOB_BLOCKED;
		if (n++ >= SERVER_AWAY_MAX)
			continue;
		job_describe_end(job, how, sizeof how);
		how[0] = (char)tolower((unsigned char)how[0]);
		part = xprintf("%s[%d] %s", n > 1 ? ", " : "", job_id(job),
		    how);
		xbuf_add(&list, part, strlen(part));
		free(part);
	}
	if (n > 0) {
		xbuf_add(&list, "", 1);
		msg = xprintf("%d job%s ended while detached: %s%s", n,
		    n == 1 ? "" : "s", list.s, n > SERVER_AWAY_MAX ? ", …" :
		    "");
		ui_message(c->ui, msg, failed);
		free(msg);
	} else if (srv->last_message != NULL)
		ui_message(c->ui, srv->last_message, srv->last_error);
	xbuf_clear(&list);
}

/*
 * Attach a terminal (ctl's `attach`): a front end on its fds, the
 * connection kept as its line; refused (status 2 and why) when the deck
 * quits, has SERVER_CLIENTS_MAX clients, was asked for another config,
 * or the terminal cannot be drawn.
 */
void
server_attach(struct server *srv, const struct ctl_attach *a)
{
	struct server_client	*c;
	struct ui_client	 uc;
	struct ui_opts		 opts;
	const char		*cfg, *cwd, *start;
	char			*cause = NULL, *why;
	int			 i, alone;

	cfg = server_word(a, "config");
	if (a->read_only && server_word(a, "start") != NULL) {
		server_refuse(a, "starting commands: not allowed here: this "
		    "connection may only look (attach without -r to start "
		    "them)");
		return;
	}
	if (srv->quitting) {
		server_refuse(a, "the deck is quitting");
		return;
	}
	if (cfg != NULL && (srv->opts.config_path == NULL ||
	    strcmp(cfg, srv->opts.config_path) != 0)) {
		why = xprintf("the deck %s runs %s, not %s: attach to it as it "
		    "is with `jobdeck attach -S %s`, or start another deck "
		    "with -S NAME", srv->opts.name, srv->opts.config_path !=
		    NULL ? srv->opts.config_path : "without a configuration",
		    cfg, srv->opts.name);
		server_refuse(a, why);
		free(why);
		return;
	}
	if (server_clients(srv) >= SERVER_CLIENTS_MAX) {
		server_refuse(a, "too many clients attached");
		return;
	}
	memset(&uc, 0, sizeof uc);
	uc.in_fd = a->fds[0];
	uc.out_fd = a->fds[1];
	uc.term = server_word(a, "term");
	uc.colorterm = server_word(a, "colorterm");
	uc.ctype = server_word(a, "ctype");
	uc.read_only = a->read_only;
	opts = srv->opts.ui;
	opts.owner = &srv->owner;
	opts.owner_arg = srv;
	c = xcalloc(1, sizeof *c);
	c->srv = srv;
	c->sock = a->sock;
	c->read_only = a->read_only;
	if ((c->ui = ui_new(srv->loop, srv->jt, srv->session, &opts, &uc,
	    &cause)) == NULL) {
		why = xprintf("2\n%s\n", cause);
		server_send(c->sock, why);
		free(why);
		free(cause);
		close(c->sock);
		free(c);
		return;
	}
	alone = server_clients(srv) == 0;
	srv->clients = xreallocarray(srv->clients, (size_t)srv->n + 1,
	    sizeof *srv->clients);
	srv->clients[srv->n++] = c;
	server_send(c->sock, "0\n");
	loop_watch_fd(srv->loop, c->sock, POLLIN, server_sock_cb, c);
	debuglog("server: client %d attached%s (%s)", c->sock,
	    a->read_only ? " read-only" : "", uc.term != NULL ? uc.term :
	    "no TERM");
	if (alone)
		server_tell_away(srv, c);
	c->active = loop_now_ms();
	if (!c->read_only)
		srv->latest = c;
	server_apply_size(srv);
	/* `jobdeck CMD...` on a running deck: the commands, in its cwd. */
	cwd = server_word(a, "cwd");
	for (i = 0; i < a->argc; i++) {
		if (strncmp(a->argv[i], "start=", 6) == 0 &&
		    (start = a->argv[i] + 6) != NULL)
			srv->cbs->start(start, cwd, srv->arg);
	}
}

/* Draw every attached client; the deck's before-sleep hook calls it. */
void
server_draw(struct server *srv)
{
	int	i;

	for (i = 0; i < srv->n; i++) {
		if (srv->clients[i]->state == SERVER_ATTACHED)
			ui_draw(srv->clients[i]->ui);
	}
}

/*
 * Say a message of the deck's to every client; kept for the next one to
 * attach when none is attached.
 */
void
server_message(struct server *srv, const char *msg, int error)
{
	int	i;

	debuglog("deck: %s", msg);
	if (server_clients(srv) == 0) {
		free(srv->last_message);
		srv->last_message = xstrdup(msg);
		srv->last_error = error;
	}
	for (i = 0; i < srv->n; i++) {
		if (srv->clients[i]->state == SERVER_ATTACHED ||
		    srv->clients[i]->state == SERVER_SUSPENDED)
			ui_message(srv->clients[i]->ui, msg, error);
	}
}

/* The deck quits: every client shows the jobs stopping; none attaches. */
void
server_quitting(struct server *srv)
{
	int	i;

	srv->quitting = 1;
	for (i = 0; i < srv->n; i++) {
		if (srv->clients[i]->state == SERVER_ATTACHED)
			ui_quitting(srv->clients[i]->ui);
	}
}

/* `jobdeck ctl focus ID`: the latest client selects and focuses it. */
void
server_focus_job(struct server *srv, struct job *job)
{
	if (srv->latest != NULL)
		ui_focus_job(srv->latest->ui, job);
}

/* Make the deck's server of clients; none attached yet. */
struct server *
server_new(struct loop *loop, struct jobtable *jt, struct session *session,
    const struct server_opts *opts, const struct server_cbs *cbs, void *arg)
{
	struct server	*srv;

	srv = xcalloc(1, sizeof *srv);
	srv->loop = loop;
	srv->jt = jt;
	srv->session = session;
	srv->opts = *opts;
	srv->cbs = cbs;
	srv->arg = arg;
	srv->owner.detach = server_owner_detach;
	srv->owner.quit = server_owner_quit;
	srv->owner.sized = server_owner_sized;
	srv->away = loop_wall_ms();
	return srv;
}

/*
 * The deck ends: give every client's terminal back (written what it
 * takes at once) and free their front ends, which use the job table and
 * the browser; their connections stay open, for server_free() to tell
 * them once the deck has cleaned up (a client returns when all is gone).
 */
void
server_release(struct server *srv)
{
	struct server_client	*c;
	int			 i;

	if (srv == NULL)
		return;
	for (i = 0; i < srv->n; i++) {
		c = srv->clients[i];
		if (c->ui == NULL)
			continue;
		if (c->state != SERVER_FLUSHING)
			ui_end(c->ui);
		c->unflushed = ui_pending(c->ui) > 0;
		if (c->timer != 0) {
			loop_cancel_timer(srv->loop, c->timer);
			c->timer = 0;
		}
		ui_free(c->ui);
		c->ui = NULL;
	}
	srv->latest = NULL;
}

/*
 * Tell every client the deck ended (why is their exit line's text, code
 * their status, the deck's own; one that was leaving hears its own) and
 * free the server; its clients' front ends first if not yet.
 */
void
server_free(struct server *srv, int code, const char *why)
{
	struct server_client	*c;
	char			*line;

	if (srv == NULL)
		return;
	server_release(srv);
	while (srv->n > 0) {
		c = srv->clients[0];
		line = xprintf("%c%s %d %s\n", CTL_CONTROL, c->unflushed ?
		    "exit-unflushed" : "exit", c->state == SERVER_FLUSHING ?
		    c->code : code, c->state == SERVER_FLUSHING ? c->why : why);
		server_send(c->sock, line);
		free(line);
		server_client_free(c);
	}
	free(srv->clients);
	free(srv->last_message);
	free(srv);
}

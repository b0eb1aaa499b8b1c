/*
 * supcmd.c: a short supervised command with bounded output on the loop
 * (supcmd.h): spawned on pipes by proc_spawn(), read as it writes, its
 * end told once both its exit and its output's end have come.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loop.h"
#include "proc.h"
#include "pty.h"
#include "supcmd.h"
#include "waitstatus.h"
#include "xmalloc.h"

struct supcmd {
	struct loop		*loop;
	struct proc		*proc;
	const struct supcmd_cbs	*cbs;
	void			*arg;
	int			 fd;		/* its output, or -1 at EOF */
	int			 exited;
	int			 status;
	uint64_t		 timer;
	char			*out;
	size_t			 len;
};

static void	supcmd_exited(struct proc *, int, void *);
static void	supcmd_fd_cb(int, short, void *);
static void	supcmd_timeout_cb(void *);
static void	supcmd_close(struct supcmd *);
static void	supcmd_free(struct supcmd *);

static const struct proc_cbs supcmd_proc_cbs = {
	.exited = supcmd_exited,
};

/*
 * Start argv (argv[0] searched in PATH) with envp (NULL: ours) and a
 * bound, contained in cg (NULL: not contained); NULL with *cause when it
 * cannot be started.
 */
struct supcmd *
supcmd_start(struct loop *loop, struct proc_reaper *r, struct cgroup *cg,
    char *const *argv, char *const *envp, int64_t bound_ms,
    const struct supcmd_cbs *cbs, void *arg, char **cause)
{
	extern char		**environ;
	struct supcmd		 *sc;
	struct pty_spec		  ps;
	struct pty_child	  child;

	sc = xcalloc(1, sizeof *sc);
	sc->loop = loop;
	sc->cbs = cbs;
	sc->arg = arg;
	sc->fd = -1;
	sc->out = xmalloc(SUPCMD_OUT_MAX + 1);
	sc->out[0] = '\0';
	sc->proc = proc_new(r, cg, 0, &supcmd_proc_cbs, sc);
	memset(&ps, 0, sizeof ps);
	ps.path = argv[0];
	ps.argv = argv;
	ps.envp = envp != NULL ? envp : environ;
	ps.rows = 24;
	ps.cols = 80;
	ps.no_pty = 1;
	ps.null_stdin = 1;
	memset(&child, 0, sizeof child);
	if (proc_spawn(sc->proc, &ps, &child, cause) != 0) {
		proc_free(sc->proc);
		free(sc->out);
		free(sc);
		return NULL;
	}
	if (child.in_fd != -1 && child.in_fd != child.out_fd)
		close(child.in_fd);
	sc->fd = child.out_fd;
	(void)fcntl(sc->fd, F_SETFL, fcntl(sc->fd, F_GETFL) | O_NONBLOCK);
	loop_watch_fd(loop, sc->fd, POLLIN, supcmd_fd_cb, sc);
	if (bound_ms > 0)
		sc->timer = loop_add_timer(loop, bound_ms, supcmd_timeout_cb,
		    sc);
	return sc;
}

/* Tell the end once both the exit and the output's end have come. */
static void
supcmd_maybe_done(struct supcmd *sc)
{
	if (!sc->exited || sc->fd != -1)
		return;
	if (sc->timer != 0) {
		loop_cancel_timer(sc->loop, sc->timer);
		sc->timer = 0;
	}
	sc->out[sc->len] = '\0';
	if (sc->cbs != NULL && sc->cbs->done != NULL)
		sc->cbs->done(sc, sc->status, sc->out, sc->len, sc->arg);
	supcmd_free(sc);
}

/* Read what the command wrote, keeping the first SUPCMD_OUT_MAX bytes. */
static void
supcmd_fd_cb(int fd, short revents, void *arg)
{
	struct supcmd	*sc = arg;
	char		 buf[4096];
	ssize_t		 n;
	size_t		 room;

	(void)revents;
	for (;;) {
		n = read(fd, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0)
			break;
		room = SUPCMD_OUT_MAX - sc->len;
		if ((size_t)n < room)
			room = (size_t)n;
		memcpy(sc->out + sc->len, buf, room);
		sc->len += room;
	}
	supcmd_close(sc);
	supcmd_maybe_done(sc);
}

/*
 * The command's leader ended: what is left in its containment is killed
 * (its group is not signalled: what it started in the background may
 * not have left it yet, and a daemon it started is the point of some).
 */
static void
supcmd_exited(struct proc *p, int status, void *arg)
{
	struct supcmd	*sc = arg;

	(void)p;
	sc->exited = 1;
	sc->status = status;
	proc_signal_escapees(sc->proc, SIGKILL);
	supcmd_maybe_done(sc);
}

/* The bound is over: killed, told as timed out. */
static void
supcmd_timeout_cb(void *arg)
{
	struct supcmd	*sc = arg;

	sc->timer = 0;
	proc_kill(sc->proc);
	supcmd_close(sc);
	sc->exited = 1;
	sc->status = WAITSTATUS_NONE;
	supcmd_maybe_done(sc);
}

/* Stop reading the command's output. */
static void
supcmd_close(struct supcmd *sc)
{
	if (sc->fd == -1)
		return;
	loop_unwatch_fd(sc->loop, sc->fd);
	close(sc->fd);
	sc->fd = -1;
}

/* Free the command (a leader not reaped yet is reaped as a stray). */
static void
supcmd_free(struct supcmd *sc)
{
	supcmd_close(sc);
	if (sc->timer != 0)
		loop_cancel_timer(sc->loop, sc->timer);
	proc_free(sc->proc);
	free(sc->out);
	free(sc);
}

/* Send sig to the command's group. */
void
supcmd_signal(struct supcmd *sc, int sig)
{
	proc_signal(sc->proc, sig);
}

/* Kill the command and all it started, and free it untold. */
void
supcmd_cancel(struct supcmd *sc)
{
	if (sc == NULL)
		return;
	proc_kill(sc->proc);
	supcmd_free(sc);
}

/*
 * After the loop (it blocks): sig to the command, SIGKILL after
 * grace_ms, reaped, and freed untold; 1 when it ended without SIGKILL.
 */
int
supcmd_finish(struct supcmd *sc, int sig, int64_t grace_ms)
{
	int	own;

	own = proc_finish(sc->proc, sig, grace_ms, grace_ms);
	supcmd_free(sc);
	return own;
}

/*
 * Return the last non-empty line of the string out (what a command said,
 * up to its first NUL), its trailing blanks cut off in place.
 */
const char *
supcmd_last_line(char *out)
{
	size_t	 len = strlen(out);
	char	*nl;

	while (len > 0 && strchr(" \t\r\n", out[len - 1]) != NULL)
		out[--len] = '\0';
	nl = strrchr(out, '\n');
	return nl != NULL ? nl + 1 : out;
}

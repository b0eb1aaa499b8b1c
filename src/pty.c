/*
 * pty.c: start a child on a new pseudo-terminal, or on pipes when no
 * terminal can be had.  The only caller of openpty(); the fork is
 * child.c's child_fork(), which gives the child its fds (the pty's slave,
 * or the pipes) and nothing else, its own session (the slave as its
 * controlling terminal, as forkpty() would), default signals, and the
 * cgroup asked for.
 *
 * Everything that needs memory or a lookup is done in the parent before
 * fork: the PATH search (in spec->envp's PATH, relative entries taken from
 * the child's cwd) and the fallback argv for scripts without a #! line.
 * The exec callback calls only async-signal-safe functions (chdir,
 * execve, write, _exit) plus strlen and glibc's strerrordesc_np, which
 * only index constant tables; it never touches the locale or the heap.
 *
 * The terminal starts in cooked mode with UTF-8 input (ICANON, ECHO, ISIG,
 * IEXTEN, IUTF8, ICRNL, OPOST|ONLCR) and the usual control characters.
 * IXON is off, so Ctrl+S and Ctrl+Q reach the program instead of freezing
 * its output.  Both ends are opened close-on-exec: the child has its
 * copies of the slave on fds 0-2 only.
 *
 * Exec failures, reported by the child on its own output: a name not found
 * in PATH gives "NAME: not found" and exit 127; other errors give
 * "NAME: strerror" and exit 126 (EACCES, ENOEXEC) or 127.  A file without
 * a #! line (ENOEXEC) is run with /bin/sh, as execvp() and shells do.  A
 * cwd that cannot be entered gives "cd: DIR: strerror" and exit 127.
 *
 * Pipe fallback (spec->no_pty, or no pty could be had for any reason):
 * stdin is one pipe, stdout and stderr share one pipe so their order is
 * kept, and the child still leads its own session and process group.  It
 * has no controlling terminal.  The parent should ignore SIGPIPE, since a
 * write to in_fd after the child exits raises it.
 *
 * Containment: with spec->cgroup_procs the child's first act, on either
 * path, is to write "0" to that cgroup.procs fd (child_fork()'s join),
 * so it is in its cgroup before it forks or execs anything.
 *
 * Split mode (spec->split_stderr) uses pipes only and gives stderr a pipe
 * of its own.  It also reports the exec: child_fork()'s exec report, a
 * close-on-exec pipe whose write end the child keeps on fd 3.  execve()
 * closes it, so the parent reads end of file; a failure writes the errno
 * there first.  The parent waits for one or the other, which costs the
 * time of a fork and an exec.  spec->null_stdin opens /dev/null as the
 * child's stdin instead of a pipe, spec->null_output as its stdout and
 * stderr (there is no out_fd then).  The parent's end of the stderr pipe
 * is kept above fd 2 (see pty_child_close()).
 */
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "child.h"
#include "pty.h"
#include "xmalloc.h"

/*
 * The system's <pty.h> is shadowed by ours under -Iinclude, so declare
 * openpty() (glibc libutil, the BSDs' <util.h>) here, as glibc does.
 */
int	openpty(int *, int *, char *, const struct termios *,
	    const struct winsize *);

/* What the child needs, prepared by the parent before fork. */
struct pty_prep {
	const char	 *name;		/* spec->path, for messages */
	char		 *file;		/* path to execve, or NULL: not found */
	char		**sh_argv;	/* argv for /bin/sh on ENOEXEC */
	char *const	 *argv;
	char *const	 *envp;
	const char	 *cwd;
	int		  split;	/* stderr apart, exec report on fd 3 */
	int		  null_stdin;
	int		  null_output;	/* stdout and stderr: /dev/null */
	int		  cgroup_procs;	/* above 2: cgroup.procs to join */
};

static const char *pty_env_path(char *const *);
static char	*pty_search_path(const char *, char *const *, const char *);
static void	 pty_prepare(const struct pty_spec *, struct pty_prep *);
static void	 pty_prep_free(struct pty_prep *);
static void	 pty_make_termios(struct termios *);
static void	 pty_make_winsize(struct winsize *, int, int);
static int	 pty_set_flags(int);
static void	 pty_child_exec(void *);
static int	 pty_spawn_pty(const struct pty_prep *, struct pty_child *,
		     const struct winsize *);
static int	 pty_open_pipes(const struct pty_prep *, int *, int *, int *,
		     int *, char **);
static void	 pty_close_pair(int *);
static int	 pty_read_report(int);
static int	 pty_spawn_pipes(const struct pty_prep *, struct pty_child *,
		     char **);

static char *const pty_empty_env[] = { NULL };

/* Return PATH's value in envp, or the system default path. */
static const char *
pty_env_path(char *const *envp)
{
	size_t	i;

	for (i = 0; envp[i] != NULL; i++) {
		if (strncmp(envp[i], "PATH=", 5) == 0)
			return envp[i] + 5;
	}
	return "/usr/local/bin:/usr/bin:/bin";
}

/* Find name in envp's PATH: an executable file, else one we may not run. */
static char *
pty_search_path(const char *name, char *const *envp, const char *cwd)
{
	struct stat	 sb;
	const char	*path, *end;
	char		*dir, *cand, *denied = NULL;
	size_t		 len;

	path = pty_env_path(envp);
	for (;;) {
		end = strchr(path, ':');
		len = end == NULL ? strlen(path) : (size_t)(end - path);
		dir = len == 0 ? xstrdup(".") : xstrndup(path, len);
		if (dir[0] != '/' && cwd != NULL)
			cand = xprintf("%s/%s/%s", cwd, dir, name);
		else
			cand = xprintf("%s/%s", dir, name);
		free(dir);
		if (stat(cand, &sb) == 0 && S_ISREG(sb.st_mode)) {
			if (access(cand, X_OK) == 0) {
				free(denied);
				return cand;
			}
			if (denied == NULL) {
				denied = cand;
				cand = NULL;
			}
		}
		free(cand);
		if (end == NULL)
			break;
		path = end + 1;
	}
	return denied;
}

/*
 * Return the file pty_spawn() would run for name in envp's PATH (NULL:
 * this process's environment), allocated, or NULL when there is none.
 */
char *
pty_find_program(const char *name, char *const *envp)
{
	if (strchr(name, '/') != NULL)
		return access(name, X_OK) == 0 ? xstrdup(name) : NULL;
	if (name[0] == '\0')
		return NULL;
	return pty_search_path(name, envp != NULL ? envp : environ, NULL);
}

/* Fill prep from spec: resolve the program, build the sh argv, find limits. */
static void
pty_prepare(const struct pty_spec *spec, struct pty_prep *prep)
{
	size_t		n, i;

	memset(prep, 0, sizeof *prep);
	prep->name = spec->path;
	prep->argv = spec->argv;
	prep->envp = spec->envp != NULL ? spec->envp : pty_empty_env;
	prep->cwd = spec->cwd;
	prep->split = spec->split_stderr;
	prep->null_stdin = spec->null_stdin;
	prep->null_output = spec->null_output && !spec->split_stderr;
	prep->cgroup_procs = spec->cgroup_procs > STDERR_FILENO ?
	    spec->cgroup_procs : -1;

	if (strchr(spec->path, '/') != NULL)
		prep->file = xstrdup(spec->path);
	else if (spec->path[0] != '\0')
		prep->file = pty_search_path(spec->path, prep->envp, spec->cwd);

	for (n = 0; spec->argv[n] != NULL; n++)
		/* nothing */;
	prep->sh_argv = xcalloc(n + 2, sizeof *prep->sh_argv);
	prep->sh_argv[0] = (char *)"sh";
	prep->sh_argv[1] = prep->file;
	for (i = 1; i < n; i++)
		prep->sh_argv[i + 1] = spec->argv[i];
}

/* Free what pty_prepare() allocated. */
static void
pty_prep_free(struct pty_prep *prep)
{
	free(prep->file);
	free(prep->sh_argv);
}

/* Fill t with a sane cooked-mode terminal. */
static void
pty_make_termios(struct termios *t)
{
	memset(t, 0, sizeof *t);
	t->c_iflag = ICRNL | IUTF8;
	t->c_oflag = OPOST | ONLCR;
	t->c_cflag = CREAD | CS8 | HUPCL;
	t->c_lflag = ICANON | ISIG | IEXTEN | ECHO | ECHOE | ECHOK | ECHOKE |
	    ECHOCTL;
	t->c_cc[VINTR] = 0x03;		/* ^C */
	t->c_cc[VQUIT] = 0x1c;		/* ^\ */
	t->c_cc[VERASE] = 0x7f;		/* ^? */
	t->c_cc[VKILL] = 0x15;		/* ^U */
	t->c_cc[VEOF] = 0x04;		/* ^D */
	t->c_cc[VSTART] = 0x11;		/* ^Q */
	t->c_cc[VSTOP] = 0x13;		/* ^S */
	t->c_cc[VSUSP] = 0x1a;		/* ^Z */
	t->c_cc[VREPRINT] = 0x12;	/* ^R */
	t->c_cc[VWERASE] = 0x17;	/* ^W */
	t->c_cc[VLNEXT] = 0x16;		/* ^V */
	t->c_cc[VDISCARD] = 0x0f;	/* ^O */
	t->c_cc[VMIN] = 1;
	t->c_cc[VTIME] = 0;
	cfsetispeed(t, B38400);
	cfsetospeed(t, B38400);
}

/* Fill ws with rows x cols, 24 x 80 for values that are not positive. */
static void
pty_make_winsize(struct winsize *ws, int rows, int cols)
{
	memset(ws, 0, sizeof *ws);
	ws->ws_row = rows <= 0 ? 24 : rows > USHRT_MAX ? USHRT_MAX : rows;
	ws->ws_col = cols <= 0 ? 80 : cols > USHRT_MAX ? USHRT_MAX : cols;
}

/* Set O_NONBLOCK and FD_CLOEXEC on a descriptor the parent keeps. */
static int
pty_set_flags(int fd)
{
	int	fl;

	if ((fl = fcntl(fd, F_GETFL)) == -1 ||
	    fcntl(fd, F_SETFL, fl | O_NONBLOCK) == -1)
		return -1;
	if ((fl = fcntl(fd, F_GETFD)) == -1 ||
	    fcntl(fd, F_SETFD, fl | FD_CLOEXEC) == -1)
		return -1;
	return 0;
}

/* What child_fork() runs in pty_spawn()'s child. */
static const struct child_exec pty_exec = { pty_child_exec };

/*
 * In the child (its fds in place): chdir, then exec the program, or /bin/sh
 * for a file without #!; say why not on stderr and exit 126 or 127.
 */
static void
pty_child_exec(void *arg)
{
	const struct pty_prep	*prep = arg;
	int			 error;

	if (prep->cwd != NULL && chdir(prep->cwd) != 0) {
		error = errno;
		child_say("cd", prep->cwd, error);
		child_exit(error, 127);
	}
	if (prep->file == NULL) {
		child_say(prep->name, "not found", 0);
		child_exit(ENOENT, 127);
	}
	execve(prep->file, prep->argv, prep->envp);
	error = errno;
	if (error == ENOEXEC) {
		execve("/bin/sh", prep->sh_argv, prep->envp);
		error = ENOEXEC;
	}
	child_say(prep->name, NULL, error);
	child_exit(error, error == EACCES || error == ENOEXEC ? 126 : 127);
}

/*
 * Try to start the child on a new pty, the slave its stdin, stdout,
 * stderr and controlling terminal; -1 with errno if there is no pty or no
 * fork.
 */
static int
pty_spawn_pty(const struct pty_prep *prep, struct pty_child *child,
    const struct winsize *ws)
{
	struct child_spec	cs;
	struct termios		tio;
	pid_t			pid;
	int			master, slave, error;

	pty_make_termios(&tio);
	if (openpty(&master, &slave, NULL, &tio, ws) == -1)
		return -1;
	if (fcntl(master, F_SETFD, FD_CLOEXEC) == -1 ||
	    fcntl(slave, F_SETFD, FD_CLOEXEC) == -1) {
		error = errno;
		close(master);
		close(slave);
		errno = error;
		return -1;
	}
	child_spec_init(&cs);
	cs.fds[0] = cs.fds[1] = cs.fds[2] = slave;
	cs.nfds = 3;
	cs.session = 1;
	cs.tty = 1;
	cs.join = prep->cgroup_procs;
	pid = child_fork(&cs, &pty_exec, (void *)prep);
	error = errno;
	close(slave);
	if (pid == -1) {
		close(master);
		errno = error;
		return -1;
	}
	/* A failure here cannot undo the fork; the fd still works. */
	(void)pty_set_flags(master);
	child->pid = pid;
	child->out_fd = child->in_fd = master;
	child->is_pty = 1;
	child->pty_errno = 0;
	return 0;
}

/* Close both ends of a pipe that are open and mark them closed. */
static void
pty_close_pair(int *p)
{
	if (p[0] != -1)
		close(p[0]);
	if (p[1] != -1)
		close(p[1]);
	p[0] = p[1] = -1;
}

/*
 * Open what the pipe child needs: stdin (a pipe, or /dev/null in in[0]
 * alone), stdout (a pipe, or /dev/null in out[1] alone), and in split
 * mode stderr (its read end moved above 2) and the exec report.  Every
 * end is close-on-exec; unused ones are -1.
 */
static int
pty_open_pipes(const struct pty_prep *prep, int *in, int *out, int *err,
    int *report, char **cause)
{
	int	fd, error;

	in[0] = in[1] = out[0] = out[1] = -1;
	err[0] = err[1] = report[0] = report[1] = -1;
	if (prep->null_stdin) {
		if ((in[0] = open("/dev/null", O_RDONLY | O_CLOEXEC)) == -1) {
			*cause = xprintf("/dev/null: %s", strerror(errno));
			return -1;
		}
	} else if (pipe2(in, O_CLOEXEC) != 0)
		goto fail;
	if (prep->null_output) {
		if ((out[1] = open("/dev/null", O_WRONLY | O_CLOEXEC)) == -1) {
			error = errno;
			pty_close_pair(in);
			*cause = xprintf("/dev/null: %s", strerror(error));
			return -1;
		}
	} else if (pipe2(out, O_CLOEXEC) != 0)
		goto fail;
	if (prep->split) {
		if (pipe2(err, O_CLOEXEC) != 0 || pipe2(report, O_CLOEXEC) != 0)
			goto fail;
		if (err[0] <= STDERR_FILENO) {
			if ((fd = fcntl(err[0], F_DUPFD_CLOEXEC, 3)) == -1)
				goto fail;
			close(err[0]);
			err[0] = fd;
		}
	}
	return 0;

fail:
	error = errno;
	pty_close_pair(in);
	pty_close_pair(out);
	pty_close_pair(err);
	pty_close_pair(report);
	*cause = xprintf("pipe: %s", strerror(error));
	return -1;
}

/* Wait for the split child's exec report: 0 once it has exec'd, or errno. */
static int
pty_read_report(int fd)
{
	int		error = 0;
	size_t		got = 0;
	ssize_t		n;
	char		buf[sizeof error];

	while (got < sizeof buf) {
		n = read(fd, buf + got, sizeof buf - got);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	if (got == sizeof buf)
		memcpy(&error, buf, sizeof error);
	return error;
}

/*
 * Start the child on pipes: stdin from one (or /dev/null), stdout and
 * stderr into another, or in split mode each into its own.
 */
static int
pty_spawn_pipes(const struct pty_prep *prep, struct pty_child *child,
    char **cause)
{
	struct child_spec	cs;
	pid_t			pid;
	int			in[2], out[2], err[2], report[2], error;

	if (pty_open_pipes(prep, in, out, err, report, cause) != 0)
		return -1;

	child_spec_init(&cs);
	cs.fds[0] = in[0];
	cs.fds[1] = out[1];
	cs.fds[2] = err[1] != -1 ? err[1] : out[1];
	cs.nfds = 3;
	cs.report = report[1];
	cs.session = 1;
	cs.join = prep->cgroup_procs;
	pid = child_fork(&cs, &pty_exec, (void *)prep);
	error = errno;
	close(in[0]);
	close(out[1]);
	if (err[1] != -1)
		close(err[1]);
	if (report[1] != -1)
		close(report[1]);
	if (pid == -1) {
		if (in[1] != -1)
			close(in[1]);
		if (out[0] != -1)
			close(out[0]);
		if (err[0] != -1)
			close(err[0]);
		if (report[0] != -1)
			close(report[0]);
		*cause = xprintf("fork: %s", strerror(error));
		return -1;
	}
	if (report[0] != -1) {
		child->exec_errno = pty_read_report(report[0]);
		close(report[0]);
	}
	if (in[1] != -1)
		(void)pty_set_flags(in[1]);
	if (out[0] != -1)
		(void)pty_set_flags(out[0]);
	if (err[0] != -1)
		(void)pty_set_flags(err[0]);
	child->pid = pid;
	child->out_fd = out[0];
	child->in_fd = in[1];
	child->err_fd = err[0];
	child->is_pty = 0;
	return 0;
}

/* Start spec's program on a pty, or on pipes if asked or no pty is free. */
int
pty_spawn(const struct pty_spec *spec, struct pty_child *child,
    char **cause)
{
	struct pty_prep	prep;
	struct winsize	ws;
	int		r;

	child->pid = -1;
	child->out_fd = child->in_fd = child->err_fd = -1;
	child->is_pty = 0;
	child->pty_errno = 0;
	child->exec_errno = 0;
	if (spec->path == NULL || spec->argv == NULL || spec->argv[0] == NULL) {
		*cause = xstrdup("no program to run");
		return -1;
	}

	pty_prepare(spec, &prep);
	pty_make_winsize(&ws, spec->rows, spec->cols);
	if (!spec->no_pty && !spec->split_stderr && !spec->null_stdin &&
	    !spec->null_output) {
		if (pty_spawn_pty(&prep, child, &ws) == 0) {
			pty_prep_free(&prep);
			return 0;
		}
		child->pty_errno = errno;
	}
	r = pty_spawn_pipes(&prep, child, cause);
	pty_prep_free(&prep);
	return r;
}

/* Tell the child's terminal its new size (SIGWINCH); pipes have none. */
int
pty_set_size(const struct pty_child *child, int rows, int cols)
{
	struct winsize	ws;

	if (!child->is_pty)
		return 0;
	if (rows <= 0 || cols <= 0) {
		errno = EINVAL;
		return -1;
	}
	pty_make_winsize(&ws, rows, cols);
	return ioctl(child->out_fd, TIOCSWINSZ, &ws);
}

/*
 * Close the child's fds once each and forget them; the child is left alone.
 * err_fd is only closed above 2 (it never is 0-2), so a zeroed struct that
 * was never spawned leaves this process's stdin open.
 */
void
pty_child_close(struct pty_child *child)
{
	if (child->out_fd >= 0)
		close(child->out_fd);
	if (child->in_fd >= 0 && child->in_fd != child->out_fd)
		close(child->in_fd);
	if (child->err_fd > STDERR_FILENO)
		close(child->err_fd);
	child->out_fd = child->in_fd = child->err_fd = -1;
}

/*
 * job.c: one process jobdeck runs: its spec, state, child fds, emulator,
 * its run in the store and exit status (its output as text is
 * job-text.c; job-private.h holds the struct both read).  The event loop lives elsewhere (jobtable.c); here
 * every function does one bounded step and returns.
 */
#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "expand.h"
#include "host.h"
#include "job.h"
#include "job-private.h"
#include "loop.h"
#include "proc.h"
#include "pty.h"
#include "store.h"
#include "textesc.h"
#include "vt.h"
#include "waitstatus.h"
#include "xmalloc.h"

/* The emulator's ring when the store keeps the rest of the scrollback. */
#define JOB_RING_MAX		1000
#define JOB_INPUT_MAX		(16 * 1024 * 1024)	/* unread input held */
/* The runs in the store a job remembers, newest kept (job_run_nth()). */
#define JOB_RUNS_MAX		10000

static void	job_vt_output(const char *, size_t, void *);
static void	job_store_begin(struct job *);
static void	job_store_failed(struct job *);
static void	job_store_update(struct job *);
static void	job_store_end(struct job *);
static void	job_runs_add(struct job *);
static void	job_mark_run(struct job *, int);

static const struct vt_cbs job_vt_cbs = {
	.output = job_vt_output,
};

/* Copy a NULL-terminated string array. */
static char **
job_copy_strv(char *const *v)
{
	char	**copy;
	size_t	  n, i;

	for (n = 0; v != NULL && v[n] != NULL; n++)
		;
	copy = xcalloc(n + 1, sizeof *copy);
	for (i = 0; i < n; i++)
		copy[i] = xstrdup(v[i]);
	return copy;
}

/* Copy what spec says to run and how into j (its name aside). */
static void
job_spec_copy(struct job *j, const struct job_spec *spec)
{
	j->argv = spec->argv != NULL ? job_copy_strv(spec->argv) : NULL;
	j->command = spec->command != NULL ? xstrdup(spec->command) :
	    expand_shell_join(spec->argv);
	j->shell = xstrdup(spec->shell != NULL ? spec->shell : "/bin/sh");
	j->cwd = spec->cwd != NULL ? xstrdup(spec->cwd) : NULL;
	j->host = spec->host != NULL ? xstrdup(spec->host) : NULL;
	j->envp = job_copy_strv(spec->envp);
	j->store = spec->store;
	j->store_error = spec->store_error != NULL ?
	    xstrdup(spec->store_error) : NULL;
	j->scrollback = spec->scrollback > 0 ? spec->scrollback : 0;
	j->no_pty = spec->no_pty;
	j->no_term = spec->no_term;
	j->no_screen = spec->no_screen;
	j->own_leftovers = spec->own_leftovers;
	j->input = spec->input != NULL ? xstrdup(spec->input) : NULL;
	j->input_eof = spec->input_eof;
	j->timeout_ms = spec->timeout_ms > 0 ? spec->timeout_ms : 0;
	j->restart = spec->restart;
	j->restart_delay_ms = spec->restart_delay_ms > 0 ?
	    spec->restart_delay_ms : 0;
	j->max_restarts = spec->max_restarts;
	j->restart_delay_max_ms = spec->restart_delay_max_ms > 0 ?
	    spec->restart_delay_max_ms : 0;
	j->group = spec->group != NULL ? xstrdup(spec->group) : NULL;
	j->priority = spec->priority;
	j->stop_signal = spec->stop_signal > 0 ? spec->stop_signal : 0;
	j->stop_command = spec->stop_command != NULL ?
	    xstrdup(spec->stop_command) : NULL;
	j->stop_timeout_ms = spec->stop_timeout_ms > 0 ?
	    spec->stop_timeout_ms : -1;
	j->agent = spec->agent != NULL ? xstrdup(spec->agent) : NULL;
}

/* Free what job_spec_copy() put into j. */
static void
job_spec_clear(struct job *j)
{
	size_t	i;

	for (i = 0; j->envp != NULL && j->envp[i] != NULL; i++)
		free(j->envp[i]);
	free(j->envp);
	for (i = 0; j->argv != NULL && j->argv[i] != NULL; i++)
		free(j->argv[i]);
	free(j->argv);
	free(j->input);
	free(j->agent);
	free(j->group);
	free(j->stop_command);
	free(j->command);
	free(j->shell);
	free(j->cwd);
	free(j->host);
	free(j->store_error);
	j->envp = j->argv = NULL;
	j->input = j->agent = j->group = j->stop_command = NULL;
	j->command = j->shell = j->cwd = j->host = j->store_error = NULL;
}

/* Create a queued job from a spec (copied). */
struct job *
job_new(int id, const struct job_spec *spec)
{
	struct job	*j;

	j = xcalloc(1, sizeof *j);
	j->id = id;
	j->name = spec->name != NULL ? xstrdup(spec->name) : NULL;
	job_spec_copy(j, spec);
	j->state = JOB_QUEUED;
	j->child.pid = -1;
	j->child.out_fd = j->child.in_fd = -1;
	j->rows = 24;
	j->cols = 80;
	return j;
}

/*
 * Give j a new spec for its next start (its name, state, process and
 * size stay: an ended job stays ended); the caller makes sure it does
 * not run now.
 */
void
job_set_spec(struct job *j, const struct job_spec *spec)
{
	job_spec_clear(j);
	job_spec_copy(j, spec);
}

/* Free a job, closing its fds; the process is not signalled. */
void
job_free(struct job *j)
{
	if (j == NULL)
		return;
	pty_child_close(&j->child);
	host_run_free(j->remote);
	proc_free(j->proc);
	if (j->vt != NULL)
		vt_free(j->vt);
	if (j->run != NULL)
		store_run_close(j->run);
	job_spec_clear(j);
	free(j->wait_reason);
	free(j->ready_text);
	free(j->note);
	free(j->start_error);
	free(j->exec_error);
	free(j->name);
	free(j->log_error);
	free(j->in);
	free(j->run_list);
	free(j);
}

/* Return whether an environment entry has the name of add (NAME=VALUE). */
static int
job_env_same(const char *entry, const char *add)
{
	size_t	len = strcspn(add, "=");

	return strncmp(entry, add, len) == 0 && entry[len] == '=';
}

/*
 * Return a copy of envp with TERM set to term (NULL: envp's own) and
 * every NAME=VALUE of the deck's env (NULL: none), each replacing an
 * entry of the same name.
 */
static char **
job_env_with(char *const *envp, const char *term, char *const *deck_env)
{
	char		**env;
	size_t		  n, m, i, k, a;
	int		  same;

	for (n = 0; envp[n] != NULL; n++)
		;
	for (m = 0; deck_env != NULL && deck_env[m] != NULL; m++)
		;
	env = xcalloc(n + 1 + m + 1, sizeof *env);
	for (i = k = 0; i < n; i++) {
		same = term != NULL && job_env_same(envp[i], term);
		for (a = 0; a < m && !same; a++)
			same = job_env_same(envp[i], deck_env[a]);
		if (!same)
			env[k++] = envp[i];
	}
	if (term != NULL)
		env[k++] = (char *)term;
	for (a = 0; a < m; a++)
		env[k++] = deck_env[a];
	env[k] = NULL;
	return env;
}

/*
 * Supervise the job's runs from now on with reaper (the jobtable's: its
 * containment, its SIGCHLD), each run's events told through cbs with arg;
 * the reaper must outlive the job.
 */
void
job_set_reaper(struct job *j, struct proc_reaper *reaper,
    const struct proc_cbs *cbs, void *arg)
{
	j->reaper = reaper;
	j->proc_cbs = cbs;
	j->proc_arg = arg;
}

/* Return the supervised process of the job's last run, or NULL. */
struct proc *
job_proc(const struct job *j)
{
	return j->proc;
}

/*
 * Start a run's supervision: what the last run left in its containment
 * is killed and the last run let go of; the new one's is made.
 */
static void
job_contain(struct job *j)
{
	host_run_free(j->remote);
	j->remote = NULL;
	proc_release(j->proc);
	j->proc = proc_new(j->reaper, j->reaper != NULL ?
	    proc_reaper_cgroup(j->reaper) : NULL, j->id, j->proc_cbs,
	    j->proc_arg);
}

/*
 * Return why a run's program could not be started (pty_spawn()'s
 * exec_errno), as a new string: its cwd's error when that cannot be
 * entered, "not found", or the error ("Permission denied").
 */
static char *
job_describe_exec(const struct job *j, int error)
{
	struct stat	sb;

	if (j->cwd != NULL && (stat(j->cwd, &sb) != 0 || !S_ISDIR(sb.st_mode) ||
	    access(j->cwd, X_OK) != 0))
		return xprintf("%s: %s", j->cwd, strerror(stat(j->cwd, &sb) !=
		    0 ? errno : !S_ISDIR(sb.st_mode) ? ENOTDIR : EACCES));
	if (error == ENOENT)
		return xstrdup("not found");
	return xstrdup(strerror(error));
}

/*
 * Make spec run the job on its host (host.h): the engine's client with
 * the command, cwd and environment the job would have here; 0 or -1.
 */
static int
job_wrap_remote(struct job *j, struct pty_spec *spec, char **cause)
{
	extern char	**environ;
	struct host_cmd	  cmd;

	if (j->hosts == NULL) {
		*cause = xprintf("%s: no hosts here", j->host);
		return -1;
	}
	memset(&cmd, 0, sizeof cmd);
	cmd.id = j->id;
	cmd.command = j->argv != NULL ? NULL : j->command;
	cmd.argv = j->argv;
	cmd.shell = j->shell;
	cmd.cwd = j->cwd;
	cmd.envp = j->envp;
	cmd.base = environ;
	cmd.no_pty = j->no_pty;
	cmd.rows = j->rows;
	cmd.cols = j->cols;
	j->remote = hosts_wrap(j->hosts, j->host, &cmd, spec, cause);
	return j->remote != NULL ? 0 : -1;
}

/* Give the job the hosts its runs on a host go through (NULL: none). */
void
job_set_hosts(struct job *j, struct hosts *hs)
{
	j->hosts = hs;
}

/* Return whether the job runs on a host (host.h), not here. */
int
job_is_remote(const struct job *j)
{
	return j->host != NULL;
}

/* Return the engine of the job's host: "ssh" or "slurm". */
const char *
job_host_engine(const struct job *j)
{
	return hosts_engine(j->hosts, j->host);
}

/* Return the last run's place on its host, or NULL for a local one. */
const struct host_run *
job_remote(const struct job *j)
{
	return j->remote;
}

/*
 * Start the child on a pty of rows x cols (or on pipes) with the deck's
 * env (NAME=VALUE entries over the job's own, NULL: none); 0 or -1.
 */
int
job_start(struct job *j, int rows, int cols, char *const *deck_env,
    char **cause)
{
	struct pty_spec	 spec;
	char		*argv[4];
	char		**env;
	int		 rc, last;

	if (job_is_running(j)) {
		*cause = xprintf("job %d is running", j->id);
		return -1;
	}
	last = (j->flags & JOB_REAPED) ? j->status : WAITSTATUS_NONE;
	/* Started again: what the last run left is closed, the rest kept. */
	pty_child_close(&j->child);
	j->child.pid = -1;
	j->flags = 0;
	j->input_wait = TTYWAIT_NONE;
	free(j->start_error);
	j->start_error = NULL;
	free(j->exec_error);
	j->exec_error = NULL;
	j->status = 0;
	j->ended = 0;
	j->in_len = 0;
	j->ready = JOB_READY_NONE;	/* a probe of this run may say more */
	free(j->ready_text);
	j->ready_text = NULL;
	j->ready_wall = 0;
	j->rows = rows > 0 ? rows : 24;
	j->cols = cols > 1 ? cols : 80;
	argv[0] = j->shell;
	argv[1] = (char *)"-c";
	argv[2] = j->command;
	argv[3] = NULL;
	job_contain(j);
	/* The run's containment marker is proc_spawn()'s to add. */
	env = job_env_with(j->envp, j->no_term ? NULL : "TERM=xterm-256color",
	    deck_env);

	memset(&spec, 0, sizeof spec);
	spec.path = j->argv != NULL ? j->argv[0] : j->shell;
	spec.argv = j->argv != NULL ? j->argv : argv;
	spec.envp = env;
	spec.cwd = j->cwd;
	spec.rows = j->rows;
	spec.cols = j->cols;
	spec.no_pty = j->no_pty;
	spec.split_stderr = j->no_pty;	/* stderr lines tagged */
	spec.null_stdin = j->no_pty && j->input_eof && j->input == NULL;
	if (j->host != NULL && job_wrap_remote(j, &spec, cause) != 0)
		rc = -1;
	else
		rc = proc_spawn(j->proc, &spec, &j->child, cause);
	free(env);
	if (rc != 0) {
		host_run_free(j->remote);
		j->remote = NULL;
		proc_free(j->proc);
		j->proc = NULL;
		return -1;
	}
	if (j->remote != NULL)
		host_run_started(j->remote, j->proc);
	if (j->child.exec_errno != 0)
		j->exec_error = job_describe_exec(j, j->child.exec_errno);

	j->state = JOB_RUNNING;
	j->started = loop_now_ms();
	j->started_wall = loop_wall_ms();
	j->ended_wall = 0;
	j->starts++;
	j->runs++;
	job_store_begin(j);
	job_runs_add(j);
	job_mark_run(j, last);
	if (j->input != NULL)
		job_write(j, j->input, strlen(j->input));
	return 0;
}

/* Queue bytes the emulator wants to send to the child. */
static void
job_vt_output(const char *buf, size_t len, void *arg)
{
	job_write(arg, buf, len);
}

/* Give the size of the job's terminal (its emulator's, once it has one). */
void
job_size(const struct job *j, int *rows, int *cols)
{
	*rows = j->vt != NULL ? vt_rows(j->vt) : j->rows;
	*cols = j->vt != NULL ? vt_cols(j->vt) : j->cols;
}

/* Return the job's emulator, creating it on first use. */
struct vt *
job_vt_get(struct job *j)
{
	static const char newline_mode[] = "\033[20h";

	if (j->vt == NULL) {
		/* With a store, scrolling past a short ring reads from it. */
		j->vt = vt_new(j->rows, j->cols, j->store != NULL &&
		    j->scrollback > JOB_RING_MAX ? JOB_RING_MAX : j->scrollback,
		    &job_vt_cbs, j);
		if (!j->child.is_pty) {
			/* On pipes nothing turns LF into CR LF. */
			vt_feed(j->vt, newline_mode, sizeof newline_mode - 1);
		}
	}
	return j->vt;
}

/* Remember the run the store began for this start, if it began one. */
static void
job_runs_add(struct job *j)
{
	struct job_run	*r;

	if (j->run_id[0] == '\0')
		return;
	if (j->nrun_list == JOB_RUNS_MAX) {
		memmove(j->run_list, j->run_list + 1,
		    (JOB_RUNS_MAX - 1) * sizeof *j->run_list);
		j->nrun_list--;
	} else if ((j->nrun_list & (j->nrun_list - 1)) == 0)
		j->run_list = xreallocarray(j->run_list, j->nrun_list == 0 ?
		    1 : (size_t)j->nrun_list * 2, sizeof *j->run_list);
	r = &j->run_list[j->nrun_list++];
	memcpy(r->id, j->run_id, sizeof r->id);
	r->no = j->runs;
}

/*
 * A run after the first starts on the screen the last one left: the
 * emulator is made ready for a new program and the run's mark written on
 * a line of its own, reversed; last is how the run before ended.
 */
static void
job_mark_run(struct job *j, int last)
{
	static const char	 lnm_on[] = "\033[20h", lnm_off[] = "\033[20l";
	char			 mark[JOB_MARK_MAX], *line;

	if (j->vt == NULL || j->runs < 2)
		return;
	vt_reset_program(j->vt);
	/* On pipes nothing turns LF into CR LF (as job_vt_get() sets). */
	if (j->child.is_pty)
		vt_feed(j->vt, lnm_off, sizeof lnm_off - 1);
	else
		vt_feed(j->vt, lnm_on, sizeof lnm_on - 1);
	job_format_run_mark(j->runs, j->started_wall, last, mark, sizeof mark);
	line = xprintf("\033[7m%s\033[m\r\n", mark);
	vt_feed(j->vt, line, strlen(line));
	free(line);
}

/* Return how many runs of the job the store has that it remembers. */
int
job_run_count(const struct job *j)
{
	return j->nrun_list;
}

/*
 * Return the id of remembered run i (0 the oldest) and its number among
 * the job's runs in *no (1 for its first); NULL past the last.
 */
const char *
job_run_nth(const struct job *j, int i, int *no)
{
	if (i < 0 || i >= j->nrun_list)
		return NULL;
	if (no != NULL)
		*no = j->run_list[i].no;
	return j->run_list[i].id;
}

/* Read once from fd into buf, store it as stream and feed the emulator. */
static ssize_t
job_read_fd(struct job *j, int fd, enum store_stream stream, char *buf,
    size_t size)
{
	ssize_t	n;

	if (fd == -1)
		return 0;
	do
		n = read(fd, buf, size);
	while (n == -1 && errno == EINTR);
	if (n == -1 && errno == EIO)
		n = 0;		/* Linux: the slave side is gone */
	if (n <= 0)
		return n;
	j->out_bytes += (uint64_t)n;
	if (j->run != NULL && store_run_write(j->run, stream, buf, (size_t)n,
	    loop_wall_ms()) == -1)
		job_store_failed(j);
	if (!j->no_screen)
		vt_feed(job_vt_get(j), buf, (size_t)n);
	return n;
}

/* Read once from the child's output (its stdout on pipes). */
ssize_t
job_read(struct job *j, char *buf, size_t size)
{
	return job_read_fd(j, j->child.out_fd, j->child.is_pty ? STORE_TTY :
	    j->child.err_fd > 2 ? STORE_STDOUT : STORE_TTY, buf, size);
}

/* Read once from the child's stderr, when it has a pipe of its own. */
ssize_t
job_read_err(struct job *j, char *buf, size_t size)
{
	return job_read_fd(j, j->child.err_fd > 2 ? j->child.err_fd : -1,
	    STORE_STDERR, buf, size);
}

/*
 * Show output that is not the child's (its stop command's, read from a
 * pipe) as the job's: into its run in the store (as stderr on pipes) and
 * onto its screen, where a pty's screen gets CR LF for each LF, as a
 * terminal would have made of it.
 */
void
job_feed(struct job *j, const char *buf, size_t len)
{
	struct vt	*vt;
	const char	*nl;
	size_t		 n;

	if (len == 0)
		return;
	if (j->run != NULL && store_run_write(j->run, j->child.is_pty ?
	    STORE_TTY : STORE_STDERR, buf, len, loop_wall_ms()) == -1)
		job_store_failed(j);
	vt = job_vt_get(j);
	if (!j->child.is_pty) {
		vt_feed(vt, buf, len);
		return;
	}
	while (len > 0) {
		nl = memchr(buf, '\n', len);
		n = nl != NULL ? (size_t)(nl - buf) : len;
		vt_feed(vt, buf, n);
		if (nl != NULL) {
			vt_feed(vt, "\r\n", 2);
			n++;
		}
		buf += n;
		len -= n;
	}
}

/* Return the fd of the child's own stderr pipe, or -1. */
int
job_err_fd(const struct job *j)
{
	return j->child.err_fd > 2 ? j->child.err_fd : -1;
}

/* Write the partial lines the store holds back; 1 if it still holds any. */
int
job_store_flush(struct job *j)
{
	if (j->run == NULL)
		return 0;
	if (store_run_flush(j->run, loop_wall_ms()) == -1)
		job_store_failed(j);
	return j->run != NULL && store_run_held(j->run);
}

/* Return whether the store holds back a partial line of the job's. */
int
job_store_held(const struct job *j)
{
	return j->run != NULL && store_run_held(j->run);
}

/* Close the output side once the child can write no more. */
void
job_close_output(struct job *j)
{
	pty_child_close(&j->child);
	j->in_len = 0;
	job_store_end(j);
}

/*
 * Close one output stream of a run on pipes (STORE_STDOUT or, split,
 * STORE_STDERR) as its reader going away would: the child's writes to it
 * fail (EPIPE, SIGPIPE); the fd stays the job's, at its end (/dev/null),
 * so whoever reads it sees EOF and ends the stream its usual way.  0, or
 * -1 with errno.
 */
int
job_close_stream(struct job *j, enum store_stream stream)
{
	int	fd, null, rc;

	fd = stream == STORE_STDERR ? job_err_fd(j) : stream == STORE_STDOUT &&
	    !j->child.is_pty ? j->child.out_fd : -1;
	if (fd == -1) {
		errno = EBADF;
		return -1;
	}
	if ((null = open("/dev/null", O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	rc = dup3(null, fd, O_CLOEXEC);
	close(null);
	return rc == -1 ? -1 : 0;
}

/*
 * Give the caller the child's stdin pipe (a run on pipes with no input of
 * the job's to write): the caller writes it and closes it; the job
 * forgets it.  Return the fd, or -1 if there is none to give.
 */
int
job_take_in_fd(struct job *j)
{
	int	fd = j->child.in_fd;

	if (fd == -1 || fd == j->child.out_fd || j->in_len > 0)
		return -1;
	j->child.in_fd = -1;
	return fd;
}

/*
 * Queue input for the child and try to write it now; 0, or -1 if it can
 * take none (EPIPE) or more than JOB_INPUT_MAX would wait (ENOBUFS).
 */
int
job_write(struct job *j, const char *buf, size_t len)
{
	if (j->child.in_fd == -1) {
		errno = EPIPE;
		return -1;
	}
	if (len > JOB_INPUT_MAX - j->in_len) {
		errno = ENOBUFS;
		return -1;
	}
	if (j->in_len + len > j->in_cap) {
		while (j->in_len + len > j->in_cap)
			j->in_cap = j->in_cap == 0 ? 256 : j->in_cap * 2;
		j->in = xreallocarray(j->in, j->in_cap, 1);
	}
	memcpy(j->in + j->in_len, buf, len);
	j->in_len += len;
	return job_flush_input(j) == -1 ? -1 : 0;
}

/* Write as much queued input as the child takes; pending bytes or -1. */
int
job_flush_input(struct job *j)
{
	ssize_t	n;

	while (j->in_len > 0) {
		n = write(j->child.in_fd, j->in, j->in_len);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				break;
			j->in_len = 0;	/* the reader is gone */
			return -1;
		}
		memmove(j->in, j->in + n, j->in_len - (size_t)n);
		j->in_len -= (size_t)n;
	}
	/* Input to the end, then EOF: a pipe's stdin is closed. */
	if (j->in_len == 0 && j->input_eof && !j->child.is_pty &&
	    j->child.in_fd != -1 && j->child.in_fd != j->child.out_fd) {
		close(j->child.in_fd);
		j->child.in_fd = -1;
	}
	return (int)(j->in_len > 0);
}

/* Return whether input is waiting for the child to read it. */
int
job_input_pending(const struct job *j)
{
	return j->in_len > 0 && j->child.in_fd != -1;
}

/* Resize the emulator and the pty, so the child gets SIGWINCH. */
int
job_resize(struct job *j, int rows, int cols)
{
	if (rows < 1 || cols < 2)
		return -1;
	if (rows == j->rows && cols == j->cols)
		return 0;
	j->rows = rows;
	j->cols = cols;
	if (j->vt != NULL)
		vt_resize(j->vt, rows, cols);
	if (j->child.out_fd == -1)
		return 0;
	return pty_set_size(&j->child, rows, cols);
}

/*
 * Send sig to the job's whole process group (see proc_signal()); 0 or -1
 * with errno.
 */
int
job_signal(struct job *j, int sig)
{
	if (j->proc == NULL) {
		errno = ESRCH;
		return -1;
	}
	return proc_signal(j->proc, sig);
}

/*
 * Send sig to the job's processes that left its process group (see
 * proc_signal_escapees()); returns how many were signalled now.
 */
int
job_signal_escapees(struct job *j, int sig)
{
	return j->proc != NULL ? proc_signal_escapees(j->proc, sig) : 0;
}

/*
 * Return whether something of the job's last run is left: a member of its
 * process group, or a process in its cgroup (see proc_lingers()).
 */
int
job_lingers(struct job *j)
{
	return j->proc != NULL && proc_lingers(j->proc);
}

/*
 * Once the job has ended and its cgroup is empty, remove the cgroup (its
 * CPU figure is kept); returns 1 while it still waits to be removed.
 */
int
job_tidy(struct job *j)
{
	if (j->proc == NULL || job_is_running(j))
		return 0;
	return proc_tidy(j->proc);
}

/*
 * Return the CPU time of the job's last run in ms, its processes that
 * left the group included (its cgroup's cpu.stat), or -1 when unknown.
 */
int64_t
job_cpu_ms(struct job *j)
{
	int64_t	cpu;

	if (j->proc == NULL)
		return -1;
	proc_usage(j->proc, &cpu, NULL);
	return cpu < 0 ? -1 : cpu / 1000;
}

/*
 * Return the memory of the job's last run in bytes while something of it
 * is left (see cgroup_job_usage()), or -1 when unknown.
 */
int64_t
job_memory_bytes(struct job *j)
{
	int64_t	mem;

	if (j->proc == NULL)
		return -1;
	proc_usage(j->proc, NULL, &mem);
	return mem;
}

/* Mark that the user asked the job to stop, so its end shows as canceled. */
void
job_set_cancel(struct job *j)
{
	if (job_is_running(j) || j->state == JOB_QUEUED ||
	    j->state == JOB_WAITING)
		j->flags |= JOB_CANCEL;
}

/*
 * Mark that jobdeck stops the running job for a failure (a liveness
 * probe's), so its end shows as failed however it exits, unless the user
 * stops it too (canceled) or its time is up (timed out).
 */
void
job_set_fail(struct job *j)
{
	if (job_is_running(j))
		j->flags |= JOB_FAIL;
}

/* Record that the job's leader was stopped (SIGSTOP, ^Z) or continued. */
void
job_set_stopped(struct job *j, int stopped)
{
	if (job_is_running(j) && j->state != (stopped ? JOB_STOPPED :
	    JOB_RUNNING)) {
		j->state = stopped ? JOB_STOPPED : JOB_RUNNING;
		job_store_update(j);
	}
}

/* Record the wait status of the job's process and its new state. */
void
job_set_exited(struct job *j, int status, int64_t now)
{
	j->flags |= JOB_REAPED;
	j->input_wait = TTYWAIT_NONE;
	if (j->remote != NULL)
		host_run_ended(j->remote, status);
	j->status = status;
	j->ended = now;
	if (j->started == 0)
		j->started = now;
	if (j->flags & JOB_TIMEOUT)
		j->state = JOB_TIMED_OUT;
	else if (j->flags & JOB_CANCEL)
		j->state = JOB_CANCELED;	/* the user's kill */
	else if (j->flags & JOB_FAIL)
		j->state = JOB_FAILED;		/* jobtable_fail() */
	else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGINT)
		j->state = JOB_CANCELED;	/* Ctrl+C */
	else if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		j->state = JOB_COMPLETED;
	else
		j->state = JOB_FAILED;
	j->ended_wall = loop_wall_ms();
	job_store_update(j);
	job_store_end(j);
}

/* Return how long the job has run (until it ended, or until now). */
int64_t
job_duration_ms(const struct job *j, int64_t now)
{
	if (j->started == 0)
		return 0;
	if (j->flags & JOB_REAPED)
		return j->ended - j->started;
	return now > j->started ? now - j->started : 0;
}

/* Return the job's id. */
int
job_id(const struct job *j)
{
	return j->id;
}

/* Give the job a new name (checked by the caller); a restart keeps it. */
void
job_set_name(struct job *j, const char *name)
{
	free(j->name);
	j->name = xstrdup(name);
}

/* Return the job's name, or NULL. */
const char *
job_name(const struct job *j)
{
	return j->name;
}

/* Return the job's command string. */
const char *
job_command(const struct job *j)
{
	return j->command;
}

/* Return the job's working directory, or NULL if inherited. */
const char *
job_cwd(const struct job *j)
{
	return j->cwd;
}

/* Return the child's pid (also its process group), or -1. */
pid_t
job_pid(const struct job *j)
{
	return j->child.pid;
}

/* Return the job's state. */
enum job_state
job_state(const struct job *j)
{
	return j->state;
}

/* Return the lower-case word for a state, as !ps shows it. */
const char *
job_state_name(enum job_state s)
{
	switch (s) {
	case JOB_QUEUED:
		return "queued";
	case JOB_WAITING:
		return "waiting";
	case JOB_RUNNING:
		return "running";
	case JOB_STOPPED:
		return "stopped";
	case JOB_COMPLETED:
		return "completed";
	case JOB_FAILED:
		return "failed";
	case JOB_CANCELED:
		return "canceled";
	case JOB_TIMED_OUT:
		return "timed-out";
	case JOB_BLOCKED:
		return "blocked";
	}
	return "unknown";
}

/*
 * Return whether the job has ended: completed, failed, canceled, timed
 * out or blocked (not queued, waiting or running).
 */
int
job_is_ended(const struct job *j)
{
	switch (j->state) {
	case JOB_COMPLETED:
	case JOB_FAILED:
	case JOB_CANCELED:
	case JOB_TIMED_OUT:
	case JOB_BLOCKED:
		return 1;
	case JOB_QUEUED:
	case JOB_WAITING:
	case JOB_RUNNING:
	case JOB_STOPPED:
		break;
	}
	return 0;
}

/* Return whether the job's process has not been reaped yet. */
int
job_is_running(const struct job *j)
{
	return j->state == JOB_RUNNING || j->state == JOB_STOPPED;
}

/* Return whether the job runs on a pty (not on pipes). */
int
job_is_pty(const struct job *j)
{
	return j->child.is_pty;
}

/* Return why the job has no pty (0 if it has one or pipes were asked for). */
int
job_pty_errno(const struct job *j)
{
	return j->child.pty_errno;
}

/*
 * Count a client giving the job its keys (delta 1) or taking them back
 * (-1); return how many do now (its output is urgent while any does).
 */
int
job_focus_count(struct job *j, int delta)
{
	j->focused += delta;
	if (j->focused < 0)
		j->focused = 0;
	return j->focused;
}

/* Return the fd the job's output is read from, or -1. */
int
job_out_fd(const struct job *j)
{
	return j->child.out_fd;
}

/* Return the fd the job's input is written to, or -1. */
int
job_in_fd(const struct job *j)
{
	return j->child.in_fd;
}

/* Return the raw wait status (valid once the job is no longer running). */
int
job_exit_status(const struct job *j)
{
	return j->status;
}

/*
 * Return how the job's last run ended, as a wait status, or
 * WAITSTATUS_NONE while it runs or waits, or when it never ran (a start
 * clears JOB_REAPED, so a running job has it unset).
 */
int
job_end_status(const struct job *j)
{
	if (j->state == JOB_QUEUED || j->state == JOB_WAITING ||
	    !(j->flags & JOB_REAPED))
		return WAITSTATUS_NONE;
	return j->status;
}

/*
 * Return the job's last end as an exit code (waitstatus_end_code()), or
 * -1 while it has not ended (queued, waiting, running).  A start that
 * failed (job_set_start_error()) never ran.
 */
int
job_end_code(const struct job *j)
{
	struct waitstatus_end	e;

	if (j->state == JOB_QUEUED || j->state == JOB_WAITING ||
	    job_is_running(j))
		return -1;
	e.status = j->start_error != NULL ? WAITSTATUS_NONE :
	    job_end_status(j);
	e.timed_out = j->state == JOB_TIMED_OUT;
	e.completed = j->state == JOB_COMPLETED;
	return waitstatus_end_code(&e);
}

/* Return the job's emulator, or NULL if it has printed nothing yet. */
struct vt *
job_vt(const struct job *j)
{
	return j->vt;
}

/* Return the id of the job's last run in the store, or NULL if none. */
const char *
job_run_id(const struct job *j)
{
	return j->run_id[0] != '\0' ? j->run_id : NULL;
}

/* Return the directory of the store the job's runs are in, or NULL. */
const char *
job_store_dir(const struct job *j)
{
	return j->store != NULL ? store_dir(j->store) : NULL;
}

/* Return why logging is off for this job, or NULL. */
const char *
job_log_error(const struct job *j)
{
	return j->log_error;
}

/* Return how many bytes of output the job has produced. */
uint64_t
job_output_bytes(const struct job *j)
{
	return j->out_bytes;
}

/* Copy the last non-empty line of output into buf; returns its length. */
size_t
job_last_line(const struct job *j, char *buf, size_t size)
{
	if (size > 0)
		buf[0] = '\0';
	if (j->vt == NULL)
		return 0;
	return vt_last_line(j->vt, buf, size);
}

/*
 * Describe the job's state and end for the panel: "Running", "Stopped",
 * "Queued", "Waiting", "Exited 1", "Killed by SIGTERM", "Never ran".
 */
const char *
job_describe_end(const struct job *j, char *buf, size_t size)
{
	switch (j->state) {
	case JOB_RUNNING:
		snprintf(buf, size, "Running");
		return buf;
	case JOB_STOPPED:
		snprintf(buf, size, "Stopped");
		return buf;
	case JOB_QUEUED:
		snprintf(buf, size, "Queued");
		return buf;
	case JOB_WAITING:
		snprintf(buf, size, "Waiting");
		return buf;
	case JOB_BLOCKED:
		snprintf(buf, size, "Blocked: %s", j->start_error != NULL ?
		    j->start_error : "a dependency failed");
		return buf;
	default:
		return waitstatus_long(job_end_status(j), buf, size);
	}
}

/* Fill m with what the store keeps of the job's current run. */
static void
job_store_meta(const struct job *j, struct store_meta *m)
{
	memset(m, 0, sizeof *m);
	m->job = j->id;
	m->start = j->starts;
	m->name = j->name;
	m->command = j->command;
	m->argv = j->argv;
	m->shell = j->shell;
	m->cwd = j->cwd;
	m->envp = j->envp;
	m->pty = j->child.is_pty;
	m->pid = j->child.pid;
	m->started = j->started_wall;
	m->ended = j->ended_wall;
	m->state = (char *)job_state_name(j->state);
	if ((j->flags & JOB_REAPED) && j->status != WAITSTATUS_NONE) {
		m->status = j->status;
		m->has_status = 1;
	}
}

/*
 * The store failed the job's run: logging is off for it, and says why
 * (once: job_log_warning()).  The run stays open until the job ends, so
 * that its state and end still reach its meta (store_run_update()).
 */
static void
job_store_failed(struct job *j)
{
	if (j->log_error == NULL)
		j->log_error = xstrdup(store_run_error(j->run) != NULL ?
		    store_run_error(j->run) : "the output store failed");
}

/* Begin a run of the job in the store, if the deck has one. */
static void
job_store_begin(struct job *j)
{
	struct store_meta	 m;
	char			*cause = NULL;

	if (j->run != NULL)
		store_run_close(j->run);
	j->run = NULL;
	j->run_id[0] = '\0';
	free(j->log_error);
	j->log_error = NULL;
	j->log_warned = 0;
	memset(&j->text_mark, 0, sizeof j->text_mark);
	if (j->store == NULL) {
		if (j->store_error != NULL)
			j->log_error = xstrdup(j->store_error);
		return;
	}
	job_store_meta(j, &m);
	if ((j->run = store_run_new(j->store, &m, &cause)) == NULL) {
		j->log_error = cause;
		return;
	}
	memcpy(j->run_id, m.run, sizeof j->run_id);
}

/* Write the job's state, times and end to its run's metadata. */
static void
job_store_update(struct job *j)
{
	struct store_meta	m;

	if (j->run == NULL)
		return;
	job_store_meta(j, &m);
	memcpy(m.run, j->run_id, sizeof m.run);
	if (store_run_update(j->run, &m) == -1)
		job_store_failed(j);
}

/* Once the job is reaped and its output read, close its run. */
static void
job_store_end(struct job *j)
{
	if (j->run == NULL || !(j->flags & JOB_REAPED) ||
	    j->child.out_fd != -1)
		return;
	if (store_run_flush(j->run, loop_wall_ms()) == -1)
		job_store_failed(j);
	store_run_close(j->run);
	j->run = NULL;
}

/* Return why the last run's program could not be started, or NULL. */
const char *
job_exec_error(const struct job *j)
{
	return j->exec_error;
}

/* Return the wall-clock time of the job's last start (ms), or 0. */
int64_t
job_start_time(const struct job *j)
{
	return j->started_wall;
}

/* Return the wall-clock time of the job's last end (ms), or 0 before it. */
int64_t
job_end_time(const struct job *j)
{
	return j->ended_wall;
}

/* Format wall ms as local HH:MM:SS (with .mmm if millis is set) into buf. */
const char *
job_format_clock(int64_t ms, int millis, char *buf, size_t size)
{
	struct tm	tm;
	time_t		t = (time_t)(ms / 1000);

	if (localtime_r(&t, &tm) == NULL)
		snprintf(buf, size, "%s", millis ? "--:--:--.---" : "--:--:--");
	else if (millis)
		snprintf(buf, size, "%02d:%02d:%02d.%03d", tm.tm_hour,
		    tm.tm_min, tm.tm_sec, (int)(ms % 1000));
	else
		snprintf(buf, size, "%02d:%02d:%02d", tm.tm_hour, tm.tm_min,
		    tm.tm_sec);
	return buf;
}

/*
 * Format the mark between two runs of a job, as the pane and the text
 * view show it: "── run 2 · 03:04:01 · restarted (exited 1) ──" for run
 * number run, started at wall ms started, after a run that ended with
 * wait status last (WAITSTATUS_NONE: not known).
 */
const char *
job_format_run_mark(int run, int64_t started, int last, char *buf,
    size_t size)
{
	char	when[16], how[48], end[64];

	job_format_clock(started, 0, when, sizeof when);
	end[0] = '\0';
	if (last != WAITSTATUS_NONE) {
		waitstatus_long(last, how, sizeof how);
		how[0] = (char)tolower((unsigned char)how[0]);
		snprintf(end, sizeof end, " (%s)", how);
	}
	snprintf(buf, size, "── run %d · %s · restarted%s ──", run, when, end);
	return buf;
}

/* Format a duration as "0m 03s", "2m 34s" or "1h 05m 00s" into buf. */
const char *
job_format_duration(int64_t ms, char *buf, size_t size)
{
	int64_t	s = ms / 1000;

	if (s >= 3600)
		snprintf(buf, size, "%lldh %02lldm %02llds", (long long)(s / 3600),
		    (long long)(s / 60 % 60), (long long)(s % 60));
	else
		snprintf(buf, size, "%lldm %02llds", (long long)(s / 60),
		    (long long)(s % 60));
	return buf;
}

/* Format CPU time in ms as seconds ("0.03s", "12.40s"); "-" for -1. */
const char *
job_format_cpu(int64_t ms, char *buf, size_t size)
{
	if (ms < 0)
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%lld.%02llds", (long long)(ms / 1000),
		    (long long)(ms % 1000 / 10));
	return buf;
}

/* Format a size in bytes as "900K", "12.3M", "1.5G" into buf; "-" for -1. */
const char *
job_format_bytes(int64_t bytes, char *buf, size_t size)
{
	if (bytes < 0)
		snprintf(buf, size, "-");
	else if (bytes < 1024 * 1024)
		snprintf(buf, size, "%lldK",
		    (long long)((bytes + 1023) / 1024));
	else if (bytes < (int64_t)1024 * 1024 * 1024)
		snprintf(buf, size, "%.1fM", (double)bytes / (1024 * 1024));
	else
		snprintf(buf, size, "%.1fG", (double)bytes /
		    (1024.0 * 1024 * 1024));
	return buf;
}

/*
 * Format a wall-clock time in ms since the epoch as ISO 8601 in UTC with
 * milliseconds ("2026-11-22T09:05:03.042Z") into buf; "-" for 0.
 */
const char *
job_format_time(int64_t ms, char *buf, size_t size)
{
	struct tm	tm;
	time_t		t = (time_t)(ms / 1000);
	char		tmp[32];

	if (ms <= 0 || gmtime_r(&t, &tm) == NULL) {
		snprintf(buf, size, "-");
		return buf;
	}
	strftime(tmp, sizeof tmp, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, size, "%s.%03dZ", tmp, (int)(ms % 1000));
	return buf;
}

/* Mark a running job as killed for running out of time. */
void
job_set_timed_out(struct job *j)
{
	if (job_is_running(j))
		j->flags |= JOB_TIMEOUT;
}

/*
 * Return whether an ended job's restart policy asks for another run: never
 * after the user's kill or a timeout, and no more than max_restarts times.
 */
int
job_restart_due(const struct job *j)
{
	if (j->restart == JOB_RESTART_NO)
		return 0;
	if (j->max_restarts >= 0 && j->starts > j->max_restarts)
		return 0;
	if (j->state == JOB_FAILED)
		return 1;
	return j->state == JOB_COMPLETED && j->restart == JOB_RESTART_ALWAYS;
}

/*
 * Return how long to wait before the restart the policy asks for: the
 * restart delay, doubled for each start in a row before this one, up to
 * restart_delay_max_ms (none when that is not above the delay).
 */
int64_t
job_restart_delay_ms(const struct job *j)
{
	int64_t	delay = j->restart_delay_ms, max = j->restart_delay_max_ms;
	int	i;

	if (delay == 0 || max <= delay)
		return delay;
	for (i = 1; i < j->starts && delay < max; i++)
		delay *= 2;
	return delay < max ? delay : max;
}

/* Return the job's argv when it runs without a shell, else NULL. */
char *const *
job_argv(const struct job *j)
{
	return j->argv;
}

/* Return the spec the job was made from (valid while the job lives). */
const struct job_spec *
job_spec(struct job *j)
{
	memset(&j->view, 0, sizeof j->view);
	j->view.name = j->name;
	j->view.command = j->command;
	j->view.argv = j->argv;
	j->view.shell = j->shell;
	j->view.cwd = j->cwd;
	j->view.host = j->host;
	j->view.envp = j->envp;
	j->view.store = j->store;
	j->view.store_error = j->store_error;
	j->view.scrollback = j->scrollback;
	j->view.no_pty = j->no_pty;
	j->view.no_term = j->no_term;
	j->view.no_screen = j->no_screen;
	j->view.own_leftovers = j->own_leftovers;
	j->view.input = j->input;
	j->view.input_eof = j->input_eof;
	j->view.timeout_ms = j->timeout_ms;
	j->view.restart = j->restart;
	j->view.restart_delay_ms = j->restart_delay_ms;
	j->view.max_restarts = j->max_restarts;
	j->view.restart_delay_max_ms = j->restart_delay_max_ms;
	j->view.group = j->group;
	j->view.priority = j->priority;
	j->view.stop_signal = j->stop_signal;
	j->view.stop_command = j->stop_command;
	j->view.stop_timeout_ms = j->stop_timeout_ms;
	j->view.agent = j->agent;
	return &j->view;
}

/* Return how many times the job was started (restarts plus one). */
int
job_starts(const struct job *j)
{
	return j->starts;
}

/* Forget earlier runs, so the restart policy counts from zero again. */
void
job_clear_starts(struct job *j)
{
	j->starts = 0;
}

/* Put an ended job back in the queue, to be started when there is room. */
void
job_set_queued(struct job *j)
{
	if (!job_is_running(j))
		j->state = JOB_QUEUED;
}

/*
 * A job that could not be started (again) ends as failed with status 127,
 * and the reason written into its screen.
 */
void
job_set_start_error(struct job *j, const char *why, int64_t now)
{
	char	*line;

	free(j->start_error);
	j->start_error = xstrdup(why != NULL ? why : "cannot start");
	line = xprintf("\r\njobdeck: %s\r\n", j->start_error);
	vt_feed(job_vt_get(j), line, strlen(line));
	free(line);
	j->flags = 0;
	job_set_exited(j, 127 << 8, now);
}

/*
 * A job that will not run because a dependency failed (why: "migrate
 * failed (exited 1)") is blocked: it ends with no exit status (it never
 * ran), the reason written into its screen and kept as its start error.
 */
void
job_set_blocked(struct job *j, const char *why, int64_t now)
{
	char	*line;

	free(j->start_error);
	j->start_error = xstrdup(why != NULL ? why : "a dependency failed");
	line = xprintf("\r\njobdeck: blocked: %s\r\n", j->start_error);
	vt_feed(job_vt_get(j), line, strlen(line));
	free(line);
	j->flags = JOB_REAPED;
	j->input_wait = TTYWAIT_NONE;
	j->status = WAITSTATUS_NONE;
	j->ended = now;
	j->state = JOB_BLOCKED;
	j->ended_wall = loop_wall_ms();
	job_store_update(j);
	job_store_end(j);
}

/*
 * Return why the job's logging is off, the first time it is asked after
 * logging failed (so it is shown once), else NULL.
 */
const char *
job_log_warning(struct job *j)
{
	if (j->log_error == NULL || j->log_warned)
		return NULL;
	j->log_warned = 1;
	return j->log_error;
}

/*
 * Hold a job that is not running before its start, waiting for why
 * ("db (ready)"); why NULL only updates nothing but the state.
 */
void
job_set_waiting(struct job *j, const char *why)
{
	if (job_is_running(j))
		return;
	j->state = JOB_WAITING;
	free(j->wait_reason);
	j->wait_reason = why != NULL ? xstrdup(why) : NULL;
}

/* Return what a waiting job waits for, or NULL. */
const char *
job_wait_reason(const struct job *j)
{
	return j->state == JOB_WAITING ? j->wait_reason : NULL;
}

/* Set whether the running job waits for input (the jobtable's probe). */
void
job_set_input_wait(struct job *j, enum ttywait w)
{
	j->input_wait = w;
}

/* Return whether the job waits for input: none unless it runs. */
enum ttywait
job_input_wait(const struct job *j)
{
	return j->state == JOB_RUNNING ? j->input_wait : TTYWAIT_NONE;
}

/*
 * Return what the job waits for, as its "waiting_for" says: a held job's
 * reason, "input" or "password" for a running one blocked reading its
 * terminal, else NULL.
 */
const char *
job_waiting_for(const struct job *j)
{
	if (j->state == JOB_WAITING)
		return j->wait_reason;
	return ttywait_name(job_input_wait(j));
}

/* Set what the readiness probe says of the current run (and when). */
void
job_set_ready(struct job *j, enum job_ready r)
{
	if (r == JOB_READY_YES && j->ready != JOB_READY_YES)
		j->ready_wall = loop_wall_ms();
	j->ready = r;
}

/* Set the short text of the readiness probe's last attempt (NULL: none). */
void
job_set_ready_text(struct job *j, const char *text)
{
	free(j->ready_text);
	j->ready_text = text != NULL ? xstrdup(text) : NULL;
}

/* Return the short text of the readiness probe's last attempt, or NULL. */
const char *
job_ready_text(const struct job *j)
{
	return j->ready_text;
}

/* Return when the current run passed its readiness probe (wall ms), or 0. */
int64_t
job_ready_time(const struct job *j)
{
	return j->ready_wall;
}

/* Return what the readiness probe says of the current run. */
enum job_ready
job_ready(const struct job *j)
{
	return j->ready;
}

/* Return the name of a readiness: "", "starting", "ready". */
const char *
job_ready_name(enum job_ready r)
{
	switch (r) {
	case JOB_READY_NONE:
		return "";
	case JOB_READY_STARTING:
		return "starting";
	case JOB_READY_YES:
		return "ready";
	}
	return "";
}

/* Set the note shown beside the job (why it restarted); NULL: none. */
void
job_set_note(struct job *j, const char *note)
{
	free(j->note);
	j->note = note != NULL ? xstrdup(note) : NULL;
}

/* Return the job's note, or NULL. */
const char *
job_note(const struct job *j)
{
	return j->note;
}

/* Return why the job's last start failed (job_set_start_error()), or NULL. */
const char *
job_start_error(const struct job *j)
{
	return j->start_error;
}

/* Return the agent that started the job (an MCP client's name), or NULL. */
const char *
job_agent(const struct job *j)
{
	return j->agent;
}

/*
 * Check an agent's name: 1 to JOB_AGENT_MAX bytes of printable UTF-8 (no
 * C0, DEL or C1 control, no byte that is not UTF-8); 0, or -1 with
 * *cause.
 */
int
job_check_agent(const char *s, char **cause)
{
	size_t	 len = strlen(s);
	char	*safe;

	if (len == 0) {
		*cause = xprintf("an agent's name cannot be empty");
		return -1;
	}
	if (len > JOB_AGENT_MAX) {
		*cause = xprintf("an agent's name is at most %d bytes (%zu "
		    "given)", JOB_AGENT_MAX, len);
		return -1;
	}
	if (textesc_needed(s, len)) {
		safe = textesc_visible(s, len);
		*cause = xprintf("an agent's name must be printable text: %s",
		    safe);
		free(safe);
		return -1;
	}
	return 0;
}

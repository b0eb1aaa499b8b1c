/*
 * pty: start a child on a fresh pseudo-terminal (openpty, then child.h's
 * child_fork()) or, when no terminal can be had, on pipes.  pty.c is the
 * only caller of openpty().  The child is the leader of its own session
 * and process group (the terminal its controlling one), has the terminal
 * (or the pipes) on fds 0-2 and inherits no other descriptor; its signal
 * mask and dispositions are reset; it runs in spec->cwd with exactly
 * spec->envp; if exec fails it prints "NAME: not found" (or the error) to its
 * stderr and exits 127.
 *
 * Split mode (spec->split_stderr, for `jobdeck run`): always pipes, the
 * child's stderr on a pipe of its own (err_fd), and pty_spawn() waits until
 * the child has called execve: exec_errno is then 0, or why the program
 * could not be started (ENOENT when not found, EACCES, a failed chdir's
 * errno); the child has written "NAME: not found" (or the error) to
 * err_fd and exits 126 or 127 as usual, and is the caller's to reap.
 * spec->null_stdin gives pipes with /dev/null as stdin and no in_fd;
 * spec->null_output (not with split_stderr) gives pipes with /dev/null as
 * stdout and stderr and no out_fd (-1), for a child whose output nobody
 * reads (a probe's command).
 *
 * Containment (spec->cgroup_procs, an fd above 2 of a cgroup's
 * cgroup.procs, opened by the caller; 0 or -1 for none): the child writes
 * "0" to it before anything else, so it is in that cgroup before it
 * execs and everything it forks is too.  A failed write is not reported:
 * the child runs on where it is.  The fd is the caller's; the child
 * closes its copy with every other.
 *
 * pty_spawn() always sets err_fd, to -1 or to an fd above 2 (never 0-2),
 * and pty_child_close() closes it only when it is above 2, so a pty_child
 * zeroed by calloc and never spawned (err_fd 0, as in job.c) never closes
 * this process's stdin.
 *
 * pty_find_program() is the PATH search pty_spawn() does, for a caller
 * that must choose among programs (the browser's candidates) before it
 * spawns one.
 *
 * Ownership: after pty_spawn() succeeds the caller owns the child's pid
 * and the fds in struct pty_child (close them with pty_child_close()).
 */
#ifndef JOBDECK_PTY_H
#define JOBDECK_PTY_H

#include <sys/types.h>

struct pty_spec {
	const char	 *path;		/* program: absolute, or searched in PATH */
	char *const	 *argv;		/* argv[0] first, NULL-terminated */
	char *const	 *envp;		/* full environment, NULL-terminated */
	const char	 *cwd;		/* NULL: inherit */
	int		  rows;
	int		  cols;
	int		  no_pty;	/* 1: use pipes without trying a pty */
	int		  split_stderr;	/* pipes only: stderr on its own pipe */
	int		  null_stdin;	/* pipes only: stdin is /dev/null */
	int		  null_output;	/* pipes only: stdout, stderr too */
	int		  cgroup_procs;	/* above 2: cgroup.procs to join */
};

struct pty_child {
	pid_t		  pid;
	int		  out_fd;	/* read the child's output (master or pipe) */
	int		  in_fd;	/* write the child's input (may equal out_fd) */
	int		  is_pty;	/* 1 when out_fd is a pty master */
	int		  pty_errno;	/* why there is no pty, or 0 */
	int		  err_fd;	/* its stderr when split, else -1 */
	int		  exec_errno;	/* split: why exec failed, or 0 */
};

int	pty_spawn(const struct pty_spec *, struct pty_child *, char **cause);
int	pty_set_size(const struct pty_child *, int rows, int cols);
void	pty_child_close(struct pty_child *);
char	*pty_find_program(const char *name, char *const *envp);

#endif

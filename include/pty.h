/*
 * pty: start a child on a fresh pseudo-terminal (forkpty) or, when no
 * terminal can be had, on pipes.  pty.c is the only caller of forkpty().
 * The child is the leader of its own session and process group, has the
 * terminal (or the pipes) on fds 0-2 and inherits no other descriptor; its
 * signal mask and dispositions are reset; it runs in spec->cwd with exactly
 * spec->envp; if exec fails it prints "NAME: not found" (or the error) to its
 * stderr and exits 127.
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
};

struct pty_child {
	pid_t		  pid;
	int		  out_fd;	/* read the child's output (master or pipe) */
	int		  in_fd;	/* write the child's input (may equal out_fd) */
	int		  is_pty;	/* 1 when out_fd is a pty master */
	int		  pty_errno;	/* why there is no pty, or 0 */
};

int	pty_spawn(const struct pty_spec *, struct pty_child *, char **cause);
int	pty_set_size(const struct pty_child *, int rows, int cols);
void	pty_child_close(struct pty_child *);

#endif

/*
 * outfd: our own stdout or stderr, written without blocking the loop and
 * without changing what we share with others.  A pipe, FIFO or terminal
 * is opened again through /proc/self/fd: a new open file description of
 * the same file, made non-blocking, so that nothing else sharing ours (a
 * shell reading the same terminal, the rest of a pipeline, our stdin on
 * a terminal opened once for all three) ever sees O_NONBLOCK, and nothing
 * is left to restore, even after a crash.  A regular file or block device
 * does not wait for a reader and is written as it is.  Anything else (a
 * socket, another device, or a reopening that fails: no /proc) is
 * written as it is, but only once the loop says it has room, PIPE_BUF
 * bytes at a time, which a pipe or socket with room takes without
 * blocking.  A closed fd, or one open only for reading, gives none.
 *
 * Ownership: when *own is set the returned fd is the caller's to close;
 * otherwise it is fd itself, which stays as it was.
 */
#ifndef JOBDECK_OUTFD_H
#define JOBDECK_OUTFD_H

enum outfd_mode {
	OUTFD_NONE,	/* nothing can be written: what is given is lost */
	OUTFD_DIRECT,	/* write as much as it takes, until EAGAIN */
	OUTFD_POLLED	/* write PIPE_BUF bytes once the loop says POLLOUT */
};

enum outfd_mode	 outfd_open(int fd, int *out, int *own);

#endif

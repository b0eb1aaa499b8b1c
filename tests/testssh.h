/*
 * testssh: a real OpenSSH server on 127.0.0.1 for the tests of jobs on
 * ssh hosts (issue 28).  testssh_start() makes a temporary directory with
 * a host key, a client key and authorized_keys (ssh-keygen), an
 * sshd_config (ListenAddress 127.0.0.1 on a free port, UsePAM no, public
 * keys of the current user only, StrictModes no since the files live
 * under /tmp, MaxSessions TESTSSH_MAX_SESSIONS), starts Debian's
 * /usr/sbin/sshd -D -e -f on it as a child of the test, waits until the
 * port answers with an SSH banner, and writes an ssh_config whose hosts
 * are:
 *   jd-a, jd-b	two aliases of that server (two "hosts"): the client
 *		key, known hosts in the directory (accept-new), BatchMode
 *   jd-badkey	the same server with a key it does not authorize
 *		("Permission denied (publickey)")
 *   jd-refused	a port of 127.0.0.1 the harness holds without listening
 *		("Connection refused")
 *   jd-silent	a listener of the harness that never accepts: TCP
 *		connects, no banner ever comes (only ConnectTimeout ends it)
 * ts->command is then the value for JOBDECK_SSH_COMMAND: "ssh -F CONFIG".
 *
 * It works as root (sshd's privilege separation directory /run/sshd is
 * made when missing, as Debian's unit does) and as an ordinary user (sshd
 * then logs in only that user).  What testssh_start() cannot do it says
 * in why and returns -1: TESTSSH_START() turns that into a skip with the
 * reason; a package missing here skips naming it (tests/need.h), one not
 * in scripts/deps.list fails.
 *
 * testssh_stop() kills sshd and every process under it (the connections'
 * sshd and what they run), and removes the directory; a test that fails
 * before it (check _exit()s) leaves neither sshd (it dies with the test's
 * process) nor the directory (a janitor shell removes it when the test's
 * end closes its pipe).
 *
 * A remote pty (ssh -tt) needs more of a server not run as root: the
 * pty's group must already be tty (/dev/pts mounted with gid=5), or sshd
 * fails its chown and drops the whole connection, every multiplexed
 * session with it.  testssh_pty() tries one; TESTSSH_NEED_PTY() skips a
 * test that needs one, with sshd's reason.
 *
 * testssh_spawn() and testssh_run() run a command (ssh, mostly) from a
 * test with the fork hygiene of child.h: in the background on fds given,
 * dying with the test, or to its end with its output.
 * testssh_connections() counts the established TCP connections to the
 * server: what "one connection per host" is checked with.
 *
 * Ownership: the caller owns the struct; the pids testssh_spawn() returns
 * are the caller's to reap.
 */
#ifndef JOBDECK_TESTSSH_H
#define JOBDECK_TESTSSH_H

#include <sys/types.h>

#include <stddef.h>

#include "skip.h"

#define TESTSSH_MAX_SESSIONS	100	/* sshd's MaxSessions (its default: 10) */

/* One running server and the files around it. */
struct testssh {
	char	dir[64];	/* the temporary directory (real path) */
	char	config[96];	/* DIR/ssh_config */
	char	log[96];	/* DIR/sshd.log: sshd -e's stderr */
	char	command[128];	/* JOBDECK_SSH_COMMAND: "ssh -F DIR/ssh_config" */
	int	port;		/* sshd's port on 127.0.0.1 */
	int	refused_port;	/* jd-refused's */
	int	refused_fd;	/* holds it, bound, not listening; or -1 */
	int	silent_port;	/* jd-silent's */
	int	silent_fd;	/* jd-silent's listener, or -1 */
	pid_t	pid;		/* sshd, or -1 */
	pid_t	janitor;	/* removes dir when janitor_fd closes */
	int	janitor_fd;	/* its pipe's write end, or -1 */
};

int	testssh_start(struct testssh *, char *why, size_t len);
void	testssh_stop(struct testssh *);
int	testssh_connections(const struct testssh *);
int	testssh_pty(struct testssh *, char *why, size_t len);
pid_t	testssh_spawn(const char *const argv[], int in, int out, int err);
int	testssh_run(const char *const argv[], int ms, char *out, size_t len);

/* Start ts's server, or skip the test saying why. */
#define TESTSSH_START(ts) do {						\
	char	testssh_why_[1024];					\
									\
	if (testssh_start((ts), testssh_why_,				\
	    sizeof testssh_why_) == -1)					\
		TEST_SKIP("%s", testssh_why_);				\
} while (0)

/* Skip the test, saying why, when ts's server gives no remote pty. */
#define TESTSSH_NEED_PTY(ts) do {					\
	char	testssh_why_[1024];					\
									\
	if (testssh_pty((ts), testssh_why_,				\
	    sizeof testssh_why_) == -1) {				\
		testssh_stop(ts);					\
		TEST_SKIP("%s", testssh_why_);				\
	}								\
} while (0)

#endif

/*
 * testssh.c: a real sshd on 127.0.0.1 in a temporary directory, the
 * ssh_config that reaches it, and the commands a test runs (see
 * testssh.h).
 */
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <netinet/in.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "child.h"
#include "need.h"
#include "testnet.h"
#include "testproc.h"
#include "testssh.h"

#define TESTSSH_SSHD		"/usr/sbin/sshd"
#define TESTSSH_PRIVSEP		"/run/sshd"	/* sshd's chroot as root */
#define TESTSSH_START_MS	30000	/* sshd's banner awaited at most */
#define TESTSSH_KEYGEN_MS	30000	/* one ssh-keygen at most */
#define TESTSSH_TRIES		5	/* ports tried (another may take one) */
#define TESTSSH_STEP_MS		20	/* a wait's look again */


static void	testssh_exec(void *);
static int	testssh_file(const char *, const char *, char *, size_t);
static int	testssh_keygen(const char *, const char *, char *, size_t);
static int	testssh_banner(struct testssh *, char *, size_t);
static int	testssh_config(struct testssh *, const char *, char *,
		    size_t);
static int	testssh_sshd(struct testssh *, char *, size_t);
static void	testssh_tail(const char *, char *, size_t);
static void	testssh_janitor_exec(void *);
static int	testssh_janitor(struct testssh *, char *, size_t);
static void	testssh_kill_tree(pid_t);
static int64_t	testssh_now_ms(void);

/* Return the monotonic clock in milliseconds. */
static int64_t
testssh_now_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* In the child: die with the test, then exec argv (a NULL-ended array). */
static void
testssh_exec(void *arg)
{
	char *const	*argv = arg;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	execvp(argv[0], argv);
	child_exit(errno, 127);
}

/*
 * Start argv in the background on in, out and err (its fds 0, 1, 2) in a
 * session of its own, killed when the test's process ends; return its pid.
 */
pid_t
testssh_spawn(const char *const argv[], int in, int out, int err)
{
	struct child_spec	spec;
	struct child_exec	ex = { testssh_exec };

	child_spec_init(&spec);
	spec.fds[0] = in;
	spec.fds[1] = out;
	spec.fds[2] = err;
	spec.nfds = 3;
	spec.session = 1;
	return child_fork(&spec, &ex, (void *)argv);
}

/*
 * Run argv to its end, its stdin /dev/null, its stdout and stderr
 * together in out (cut to len); return its wait status, or -1 if it did
 * not end within ms (then it is killed) or could not start.
 */
int
testssh_run(const char *const argv[], int ms, char *out, size_t len)
{
	struct pollfd	pfd;
	int64_t		end = testssh_now_ms() + ms;
	size_t		have = 0;
	ssize_t		n;
	pid_t		pid;
	int		p[2], null, status = -1, left;
	char		sink[512];

	if (len > 0)
		out[0] = '\0';
	if (pipe2(p, O_CLOEXEC) == -1)
		return -1;
	if ((null = open("/dev/null", O_RDONLY | O_CLOEXEC)) == -1) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	pid = testssh_spawn(argv, null, p[1], p[1]);
	close(null);
	close(p[1]);
	if (pid == -1) {
		close(p[0]);
		return -1;
	}
	pfd.fd = p[0];
	pfd.events = POLLIN;
	/* To end of file: a daemon that keeps the pipe open is cut off. */
	while ((left = (int)(end - testssh_now_ms())) > 0) {
		if (poll(&pfd, 1, left) <= 0)
			continue;
		if (have + 1 < len)
			n = read(p[0], out + have, len - have - 1);
		else
			n = read(p[0], sink, sizeof sink);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (have + 1 < len) {
			have += (size_t)n;
			out[have] = '\0';
		}
	}
	close(p[0]);
	left = (int)(end - testssh_now_ms());
	if (!child_wait(pid, left > 0 ? left : 0, &status)) {
		kill(pid, SIGKILL);
		child_wait(pid, TESTSSH_START_MS, NULL);
		return -1;
	}
	return status;
}

/* Write text to path (mode 0600); on failure say so in why, return -1. */
static int
testssh_file(const char *path, const char *text, char *why, size_t len)
{
	FILE	*f;
	int	 fd;

	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0600)) == -1 || (f = fdopen(fd, "w")) == NULL) {
		snprintf(why, len, "%s: %s", path, strerror(errno));
		if (fd != -1)
			close(fd);
		return -1;
	}
	fputs(text, f);
	if (fclose(f) != 0) {
		snprintf(why, len, "%s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Make an ed25519 key pair at path with no passphrase; -1 with why. */
static int
testssh_keygen(const char *path, const char *comment, char *why,
    size_t len)
{
	const char	*argv[] = { "ssh-keygen", "-q", "-t", "ed25519", "-N",
	    "", "-C", comment, "-f", path, NULL };
	char		 out[512];
	int		 st;

	st = testssh_run(argv, TESTSSH_KEYGEN_MS, out, sizeof out);
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		snprintf(why, len, "ssh-keygen of %s failed (status %d): %s",
		    path, st, out);
		return -1;
	}
	return 0;
}

/* Put the end of the file at path (at most len - 1 bytes) in out, one line. */
static void
testssh_tail(const char *path, char *out, size_t len)
{
	ssize_t	 n;
	off_t	 size;
	char	*p;
	int	 fd;

	out[0] = '\0';
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return;
	size = lseek(fd, 0, SEEK_END);
	lseek(fd, size > (off_t)len - 1 ? size - (off_t)len + 1 : 0, SEEK_SET);
	if ((n = read(fd, out, len - 1)) > 0) {
		out[n] = '\0';
		/* One line of a message: its newlines become "; ". */
		for (p = out; *p != '\0'; p++)
			if (*p == '\n')
				*p = p[1] != '\0' ? ';' : '\0';
	}
	close(fd);
}

/* Write sshd_config and ssh_config for ts->port and user; -1 with why. */
static int
testssh_config(struct testssh *ts, const char *user, char *why, size_t len)
{
	char	path[128], text[4096];
	int	n;

	snprintf(path, sizeof path, "%s/sshd_config", ts->dir);
	n = snprintf(text, sizeof text,
	    "ListenAddress 127.0.0.1:%d\n"
	    "HostKey %s/host_key\n"
	    "PidFile none\n"
	    "AuthorizedKeysFile %s/authorized_keys\n"
	    /* The files are under /tmp, whose modes StrictModes refuses. */
	    "StrictModes no\n"
	    "UsePAM no\n"
	    "PubkeyAuthentication yes\n"
	    "PasswordAuthentication no\n"
	    "KbdInteractiveAuthentication no\n"
	    "PermitRootLogin prohibit-password\n"
	    "AllowUsers %s\n"
	    "MaxSessions %d\n"
	    "MaxStartups 100\n"
	    "X11Forwarding no\n"
	    "PrintMotd no\n"
	    "PrintLastLog no\n"
	    "LogLevel VERBOSE\n",
	    ts->port, ts->dir, ts->dir, user, TESTSSH_MAX_SESSIONS);
	if (n < 0 || (size_t)n >= sizeof text) {
		snprintf(why, len, "sshd_config: too long");
		return -1;
	}
	if (testssh_file(path, text, why, len) == -1)
		return -1;
	n = snprintf(text, sizeof text,
	    "Host jd-a jd-b jd-badkey\n"
	    "\tHostName 127.0.0.1\n"
	    "\tPort %d\n"
	    "Host jd-refused\n"
	    "\tHostName 127.0.0.1\n"
	    "\tPort %d\n"
	    "Host jd-silent\n"
	    "\tHostName 127.0.0.1\n"
	    "\tPort %d\n"
	    /* IdentityFile adds up: the stranger's key must be the only. */
	    "Host jd-badkey\n"
	    "\tIdentityFile %s/stranger_key\n"
	    "Host * !jd-badkey\n"
	    "\tIdentityFile %s/client_key\n"
	    "Host *\n"
	    "\tUser %s\n"
	    "\tIdentitiesOnly yes\n"
	    "\tUserKnownHostsFile %s/known_hosts\n"
	    "\tGlobalKnownHostsFile /dev/null\n"
	    "\tStrictHostKeyChecking accept-new\n"
	    "\tBatchMode yes\n"
	    "\tLogLevel ERROR\n",
	    ts->port, ts->refused_port, ts->silent_port, ts->dir, ts->dir,
	    user, ts->dir);
	if (n < 0 || (size_t)n >= sizeof text) {
		snprintf(why, len, "ssh_config: too long");
		return -1;
	}
	return testssh_file(ts->config, text, why, len);
}

/*
 * Read ts->port until sshd's banner ("SSH-2.0-") comes: 1 once it has,
 * 0 if sshd ended first (why says its log), -1 when the time is up.
 */
static int
testssh_banner(struct testssh *ts, char *why, size_t len)
{
	struct sockaddr_in	sin;
	struct pollfd		pfd;
	struct timespec		step = { 0, TESTSSH_STEP_MS * 1000000L };
	int64_t			end = testssh_now_ms() + TESTSSH_START_MS;
	char			buf[64], log[512];
	ssize_t			n;
	int			fd, status;

	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons((uint16_t)ts->port);
	while (testssh_now_ms() < end) {
		if (waitpid(ts->pid, &status, WNOHANG) == ts->pid) {
			ts->pid = -1;
			testssh_tail(ts->log, log, sizeof log);
			snprintf(why, len, "sshd ended (status %d) before "
			    "it answered on 127.0.0.1:%d: %s", status,
			    ts->port, log);
			return 0;
		}
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd != -1 && connect(fd, (struct sockaddr *)&sin,
		    sizeof sin) == 0) {
			pfd.fd = fd;
			pfd.events = POLLIN;
			if (poll(&pfd, 1, (int)(end - testssh_now_ms())) == 1 &&
			    (n = read(fd, buf, sizeof buf - 1)) > 0) {
				buf[n] = '\0';
				if (strncmp(buf, "SSH-2.0-", 8) == 0) {
					close(fd);
					return 1;
				}
			}
		}
		if (fd != -1)
			close(fd);
		nanosleep(&step, NULL);
	}
	testssh_tail(ts->log, log, sizeof log);
	snprintf(why, len, "sshd did not answer on 127.0.0.1:%d within %d "
	    "ms: %s", ts->port, TESTSSH_START_MS, log);
	return -1;
}

/* Start sshd on ts's files, a new port each try; -1 with why. */
static int
testssh_sshd(struct testssh *ts, char *why, size_t len)
{
	char		 cfg[128];
	const char	*argv[] = { TESTSSH_SSHD, "-D", "-e", "-f", cfg, NULL };
	struct passwd	*pw;
	int		 try, fd, null, r;

	if ((pw = getpwuid(geteuid())) == NULL) {
		snprintf(why, len, "uid %ld has no passwd entry, which sshd "
		    "needs", (long)geteuid());
		return -1;
	}
	snprintf(cfg, sizeof cfg, "%s/sshd_config", ts->dir);
	for (try = 0; try < TESTSSH_TRIES; try++) {
		/* The port is free now; another may take it before sshd. */
		fd = testnet_bound(&ts->port);
		close(fd);
		if (testssh_config(ts, pw->pw_name, why, len) == -1)
			return -1;
		if ((fd = open(ts->log, O_WRONLY | O_CREAT | O_APPEND |
		    O_CLOEXEC, 0600)) == -1 ||
		    (null = open("/dev/null", O_RDONLY | O_CLOEXEC)) == -1) {
			snprintf(why, len, "%s: %s", ts->log, strerror(errno));
			if (fd != -1)
				close(fd);
			return -1;
		}
		ts->pid = testssh_spawn(argv, null, fd, fd);
		close(fd);
		close(null);
		if (ts->pid == -1) {
			snprintf(why, len, "fork: %s", strerror(errno));
			return -1;
		}
		if ((r = testssh_banner(ts, why, len)) == 1)
			return 0;
		if (r == -1 || strstr(why, "Address already in use") == NULL)
			return -1;
	}
	return -1;
}

/*
 * Start a server for ts (see testssh.h); return 0, or -1 with why when
 * this machine or user cannot (nothing is left then).
 */
int
testssh_start(struct testssh *ts, char *why, size_t len)
{
	char	path[128], pub[1024];
	int	missing, fd;
	ssize_t	n;

	memset(ts, 0, sizeof *ts);
	ts->pid = -1;
	ts->silent_fd = -1;
	ts->refused_fd = -1;
	ts->janitor_fd = -1;
	need_or_fail("/usr/sbin/sshd", why, len, &missing);
	if (!missing)
		need_or_fail("ssh", why, len, &missing);
	if (!missing)
		need_or_fail("ssh-keygen", why, len, &missing);
	if (missing)
		return -1;
	if (geteuid() == 0 && mkdir(TESTSSH_PRIVSEP, 0755) == -1 &&
	    errno != EEXIST) {
		snprintf(why, len, "sshd as root needs %s: %s",
		    TESTSSH_PRIVSEP, strerror(errno));
		return -1;
	}
	snprintf(ts->dir, sizeof ts->dir, "/tmp/jd-ssh.XXXXXX");
	if (mkdtemp(ts->dir) == NULL) {
		snprintf(why, len, "mkdtemp: %s", strerror(errno));
		return -1;
	}
	if (testssh_janitor(ts, why, len) == -1) {
		rmdir(ts->dir);
		return -1;
	}
	snprintf(ts->config, sizeof ts->config, "%s/ssh_config", ts->dir);
	snprintf(ts->log, sizeof ts->log, "%s/sshd.log", ts->dir);
	snprintf(ts->command, sizeof ts->command, "ssh -F %s", ts->config);
	/* Bound, not listening: refused, and no one else's port meanwhile. */
	ts->refused_fd = testnet_bound(&ts->refused_port);
	/* Listening with a backlog, never accepting: no banner comes. */
	ts->silent_fd = testnet_bound(&ts->silent_port);
	if (listen(ts->silent_fd, 16) == -1) {
		snprintf(why, len, "listen: %s", strerror(errno));
		goto fail;
	}
	snprintf(path, sizeof path, "%s/host_key", ts->dir);
	if (testssh_keygen(path, "jobdeck-test-host", why, len) == -1)
		goto fail;
	snprintf(path, sizeof path, "%s/client_key", ts->dir);
	if (testssh_keygen(path, "jobdeck-test-client", why, len) == -1)
		goto fail;
	snprintf(path, sizeof path, "%s/stranger_key", ts->dir);
	if (testssh_keygen(path, "jobdeck-test-stranger", why, len) == -1)
		goto fail;
	snprintf(path, sizeof path, "%s/client_key.pub", ts->dir);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1 ||
	    (n = read(fd, pub, sizeof pub - 1)) <= 0) {
		snprintf(why, len, "%s: %s", path, strerror(errno));
		if (fd != -1)
			close(fd);
		goto fail;
	}
	close(fd);
	pub[n] = '\0';
	snprintf(path, sizeof path, "%s/authorized_keys", ts->dir);
	if (testssh_file(path, pub, why, len) == -1)
		goto fail;
	if (testssh_sshd(ts, why, len) == -1)
		goto fail;
	return 0;
fail:
	testssh_stop(ts);
	return -1;
}

/* In the janitor: wait for end of file on fd 0, then remove argv[1]. */
static void
testssh_janitor_exec(void *arg)
{
	char *const	*argv = arg;

	execv(argv[0], argv);
	child_exit(errno, 127);
}

/*
 * Start ts's janitor: a shell that removes ts->dir once the pipe it reads
 * ends, when testssh_stop() closes it or the test's process is gone (a
 * failed assertion _exit()s); -1 with why.
 */
static int
testssh_janitor(struct testssh *ts, char *why, size_t len)
{
	const char		*argv[] = { "/bin/sh", "-c",
	    "cat >/dev/null; rm -rf -- \"$1\"", "jd-ssh-janitor", ts->dir,
	    NULL };
	struct child_spec	 spec;
	struct child_exec	 ex = { testssh_janitor_exec };
	int			 p[2], null;

	if (pipe2(p, O_CLOEXEC) == -1 ||
	    (null = open("/dev/null", O_WRONLY | O_CLOEXEC)) == -1) {
		snprintf(why, len, "janitor: %s", strerror(errno));
		return -1;
	}
	child_spec_init(&spec);
	spec.fds[0] = p[0];
	spec.fds[1] = null;
	spec.fds[2] = null;
	spec.nfds = 3;
	spec.session = 1;
	ts->janitor = child_fork(&spec, &ex, (void *)argv);
	close(p[0]);
	close(null);
	if (ts->janitor == -1) {
		snprintf(why, len, "janitor: fork: %s", strerror(errno));
		close(p[1]);
		return -1;
	}
	ts->janitor_fd = p[1];
	return 0;
}

/* Kill pid and every process below it (all found before any dies). */
static void
testssh_kill_tree(pid_t pid)
{
	pid_t		 tree[1024];
	size_t		 n = 1, i, before;
	struct testproc_stat st;
	DIR		*d;
	struct dirent	*de;
	long		 p;

	tree[0] = pid;
	/* Again and again over /proc until no new descendant is found. */
	do {
		before = n;
		if ((d = opendir("/proc")) == NULL)
			break;
		while ((de = readdir(d)) != NULL && n < 1024) {
			if ((p = strtol(de->d_name, NULL, 10)) <= 0 ||
			    testproc_stat((pid_t)p, &st) == -1)
				continue;
			for (i = 0; i < n && tree[i] != (pid_t)p; i++)
				;
			if (i < n)
				continue;
			for (i = 0; i < n; i++)
				if (st.ppid == tree[i]) {
					tree[n++] = (pid_t)p;
					break;
				}
		}
		closedir(d);
	} while (n != before);
	for (i = 0; i < n; i++)
		kill(tree[i], SIGKILL);
}

/* Stop ts's server and what runs under it; remove its directory. */
void
testssh_stop(struct testssh *ts)
{
	if (ts->pid > 0) {
		testssh_kill_tree(ts->pid);
		child_wait(ts->pid, TESTSSH_START_MS, NULL);
		ts->pid = -1;
	}
	if (ts->silent_fd != -1) {
		close(ts->silent_fd);
		ts->silent_fd = -1;
	}
	if (ts->refused_fd != -1) {
		close(ts->refused_fd);
		ts->refused_fd = -1;
	}
	/* The janitor reads end of file: it removes the directory. */
	if (ts->janitor_fd != -1) {
		close(ts->janitor_fd);
		ts->janitor_fd = -1;
		child_wait(ts->janitor, TESTSSH_START_MS, NULL);
	}
}

/*
 * Return 0 if ts's server gives a remote pty (ssh -tt), else -1 with why
 * (sshd's own words): a server not run as root must chown the pty to the
 * tty group, which fails where /dev/pts is not mounted with gid=5, and
 * then it closes the whole connection.
 */
int
testssh_pty(struct testssh *ts, char *why, size_t len)
{
	const char	*argv[] = { "ssh", "-F", ts->config, "-tt", "jd-a",
	    "test -t 0", NULL };
	char		 out[512], log[512];
	int		 st;

	st = testssh_run(argv, TESTSSH_START_MS, out, sizeof out);
	if (st == 0)
		return 0;
	testssh_tail(ts->log, log, sizeof log);
	snprintf(why, len, "sshd (uid %ld) gives no remote pty here (ssh -tt "
	    "exit %d): %s", (long)geteuid(),
	    st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1, log);
	return -1;
}

/*
 * Return how many TCP connections to ts's server are established (its
 * client ends: remote 127.0.0.1:port), or -1 if /proc/net/tcp cannot be
 * read.
 */
int
testssh_connections(const struct testssh *ts)
{
	FILE		*f;
	char		 line[512];
	unsigned int	 raddr, rport, state;
	int		 count = 0;

	if ((f = fopen("/proc/net/tcp", "re")) == NULL)
		return -1;
	while (fgets(line, sizeof line, f) != NULL) {
		/* "  sl  local_address rem_address   st ..." */
		if (sscanf(line, " %*u: %*x:%*x %x:%x %x", &raddr, &rport,
		    &state) != 3)
			continue;
		/* 01: ESTABLISHED; the address as the kernel stores it. */
		if (state == 0x01 && (int)rport == ts->port &&
		    raddr == htonl(INADDR_LOOPBACK))
			count++;
	}
	fclose(f);
	return count;
}

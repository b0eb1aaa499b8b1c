/*
 * cgroup.c: a cgroup (v2) per run of a job where one can be made, an
 * environment marker found by a /proc scan where not; see cgroup.h.
 *
 * The files used: /proc/self/{cgroup,mountinfo,stat} to find where we
 * are; in each cgroup cgroup.procs (join, walk), cgroup.kill, cgroup.events
 * ("populated"), cpu.stat (usage_usec), memory.current, and in the deck's
 * cgroup.controllers and cgroup.subtree_control; /proc/PID/stat (start
 * time, state), /proc/PID/environ (the marker) and /proc/PID/statm (RSS
 * when there is no memory controller).  Reference: the kernel's
 * Documentation/admin-guide/cgroup-v2.rst.
 */
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/vfs.h>
#include <sys/wait.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup.h"
#include "child.h"
#include "xmalloc.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC	0x63677270
#endif

#define CGROUP_PREFIX		"jobdeck."	/* a deck's directory, token */
#define CGROUP_VALUE_MAX	256	/* the longest marker value read */
#define CGROUP_KILL_ROUNDS	16	/* walks or scans per SIGKILL */
#define CGROUP_KILL_QUIET	3	/* marker: scans finding none to stop */
#define CGROUP_DEPTH_MAX	16	/* nested cgroups walked */
#define CGROUP_FILE_MAX		(4 * 1024 * 1024)	/* /proc text */

/* One run of a job. */
struct cgroup_job {
	struct cgroup	*cg;
	char		*name;		/* job-<id>-<run> */
	char		*marker;	/* JOBDECK_JOB=<token>/<name> */
	char		*dir;		/* its cgroup, NULL: the marker alone */
	int		 procs_fd;	/* cgroup.procs for the child, or -1 */
	pid_t		 pgid;		/* its process group, 0 before start */
	int64_t		 cpu_usec;	/* last read, -1: never */
	int		 removed;	/* dir is gone */
	int		 released;	/* the job let go of it */
	int		 pending;	/* marker: signal for cgroup_flush() */
	int		 rounds;	/* marker: SIGKILL scans so far */
	int		 quiet;		/* marker: ... in a row finding none */
	int		 found;		/* marker: hits of the current scan */
};

/* The deck's containment. */
struct cgroup {
	char		 *token;	/* jobdeck.<pid>.<start>.<pidns> */
	char		 *base;		/* the cgroup we run in, or NULL */
	char		 *dir;		/* <base>/<token>, NULL: marker alone */
	int		  has_kill;	/* cgroup.kill exists */
	int		  memory;	/* jobs' cgroups have memory.current */
	char		 *warning;	/* why jobs get no cgroup, or NULL */
	int		  warned;	/* cgroup_warning() told it */
	unsigned int	  run;		/* the last run number given */
	int		  flush_due;	/* a marker signal waits */
	struct cgroup_job **jobs;
	size_t		  njobs;
	size_t		  jobs_size;
	char		**graves;	/* dead decks' cgroups left to remove */
	size_t		  ngraves;
	size_t		  graves_size;
};

/* Called for each process whose environment holds the marker. */
typedef void	cgroup_scan_cb(pid_t, const char *value, void *arg);

/* Called for each process in a cgroup or below it. */
typedef void	cgroup_proc_cb(pid_t, void *arg);

/* What a walk of a cgroup sends, to whom not, and how many it reached. */
struct cgroup_walk {
	int	sig;
	pid_t	skip;		/* a process group spared, 0: none */
	int	n;
};

static const char cgroup_marker_eq[] = CGROUP_MARKER "=";

/* Read a file of at most max bytes into an allocated string, or NULL. */
static char *
cgroup_slurp(const char *path, size_t max)
{
	char	*buf;
	size_t	 len = 0, size = 4096;
	ssize_t	 n;
	int	 fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return NULL;
	buf = xmalloc(size);
	for (;;) {
		if (len + 1 == size) {
			if (size >= max)
				break;
			size *= 2;
			buf = xreallocarray(buf, size, 1);
		}
		n = read(fd, buf + len, size - len - 1);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	return buf;
}

/* Write s to path (one write, as cgroup files want); 0 or -1 with errno. */
static int
cgroup_write_file(const char *path, const char *s)
{
	ssize_t	n;
	int	fd, error;

	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) == -1)
		return -1;
	n = write(fd, s, strlen(s));
	error = errno;
	close(fd);
	if (n != (ssize_t)strlen(s)) {
		errno = n == -1 ? error : EIO;
		return -1;
	}
	return 0;
}

/* Read a number after "key " in a flat-keyed file; -1 if there is none. */
static int64_t
cgroup_read_key(const char *path, const char *key)
{
	char		*text, *p;
	size_t		 len = strlen(key);
	long long	 v = -1;

	if ((text = cgroup_slurp(path, 65536)) == NULL)
		return -1;
	for (p = text; p != NULL && *p != '\0'; p = strchr(p, '\n')) {
		if (*p == '\n')
			p++;
		if (strncmp(p, key, len) == 0 && p[len] == ' ') {
			v = strtoll(p + len + 1, NULL, 10);
			break;
		}
	}
	free(text);
	return v;
}

/* Read a file holding one number (memory.current); -1 if it does not. */
static int64_t
cgroup_read_number(const char *path)
{
	char		*text, *end;
	long long	 v;

	if ((text = cgroup_slurp(path, 4096)) == NULL)
		return -1;
	v = strtoll(text, &end, 10);
	if (end == text || v < 0)
		v = -1;
	free(text);
	return v;
}

/*
 * Read pid's start time (clock ticks since boot) and state from
 * /proc/PID/stat; 0, or -1 if there is no such process.
 */
static int
cgroup_proc_stat(pid_t pid, unsigned long long *start, char *state,
    pid_t *ppid)
{
	char			 path[64], buf[1024], *p;
	unsigned long long	 v;
	ssize_t			 n;
	long			 pp;
	int			 fd, field;

	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* The name may hold spaces and parentheses: skip to the last ')'. */
	if ((p = strrchr(buf, ')')) == NULL || p[1] != ' ')
		return -1;
	*state = p[2];
	p += 4;
	if (sscanf(p, "%ld", &pp) != 1)
		return -1;
	if (ppid != NULL)
		*ppid = (pid_t)pp;
	/* p is at field 4 (ppid); the start time is field 22. */
	for (field = 4; field < 22; field++) {
		if ((p = strchr(p, ' ')) == NULL)
			return -1;
		p++;
	}
	if (sscanf(p, "%llu", &v) != 1)
		return -1;
	*start = v;
	return 0;
}

/*
 * Parse a deck's token, "jobdeck.<pid>.<start>.<pidns>" (or, from an
 * older deck, without ".<pidns>": *ns is then 0), at the start of s,
 * ended by '\0' or '/'; return a pointer past it, or NULL.
 */
static const char *
cgroup_parse_token(const char *s, pid_t *pid, unsigned long long *start,
    unsigned long long *ns)
{
	char	*end;
	long	 p;

	if (strncmp(s, CGROUP_PREFIX, strlen(CGROUP_PREFIX)) != 0)
		return NULL;
	s += strlen(CGROUP_PREFIX);
	if (!isdigit((unsigned char)*s))
		return NULL;
	errno = 0;
	p = strtol(s, &end, 10);
	if (errno != 0 || p <= 0 || *end != '.' ||
	    !isdigit((unsigned char)end[1]))
		return NULL;
	*pid = (pid_t)p;
	*start = strtoull(end + 1, &end, 10);
	*ns = 0;
	if (errno == 0 && *end == '.' && isdigit((unsigned char)end[1]))
		*ns = strtoull(end + 1, &end, 10);
	if (errno != 0 || (*end != '\0' && *end != '/'))
		return NULL;
	return end;
}

/*
 * Return the id of this process's PID namespace (the inode of
 * /proc/self/ns/pid), or 0 where the kernel has none to show.
 */
static unsigned long long
cgroup_self_pidns(void)
{
	struct stat	sb;

	if (stat("/proc/self/ns/pid", &sb) != 0)
		return 0;
	return (unsigned long long)sb.st_ino;
}

/* Return whether the deck of this pid and start time still runs. */
static int
cgroup_deck_alive(pid_t pid, unsigned long long start)
{
	unsigned long long	now;
	char			state;

	if (cgroup_proc_stat(pid, &now, &state, NULL) != 0)
		return 0;
	return now == start && state != 'Z' && state != 'X' && state != 'x';
}

/*
 * Return whether the deck of a token is known to have ended: it is of
 * this PID namespace (its pid means the same process here; a deck in a
 * container or under unshare --pid names another one, and is never
 * judged from here) and no process has its pid and start time.
 */
static int
cgroup_deck_dead(pid_t pid, unsigned long long start, unsigned long long ns)
{
	if (ns != 0 && ns != cgroup_self_pidns())
		return 0;
	return !cgroup_deck_alive(pid, start);
}

/* Decode mountinfo's octal escapes (\040 for a space) in place. */
static void
cgroup_unescape(char *s)
{
	char	*out = s;

	while (*s != '\0') {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
			    (s[3] - '0'));
			s += 4;
		} else
			*out++ = *s++;
	}
	*out = '\0';
}

/*
 * Return the part of path below root ("" for root itself), or NULL when
 * path is not root or below it.
 */
static const char *
cgroup_below(const char *path, const char *root)
{
	size_t	len = strlen(root);

	if (strcmp(root, "/") == 0)
		return strcmp(path, "/") == 0 ? "" : path;
	while (len > 1 && root[len - 1] == '/')
		len--;
	if (strncmp(path, root, len) != 0)
		return NULL;
	if (path[len] == '\0')
		return "";
	return path[len] == '/' ? path + len : NULL;
}

/*
 * Find our cgroup v2 directory from the texts of /proc/self/mountinfo and
 * /proc/self/cgroup: the "0::PATH" line, under the first cgroup2 mount
 * whose root holds PATH.  NULL with *cause when there is none.
 */
char *
cgroup_locate(const char *mountinfo, const char *self_cgroup, char **cause)
{
	const char	*line, *end, *rel;
	char		*path = NULL, *copy, *f[5], *sep, *fstype, *dir = NULL;
	char		*save;
	int		 i, mounts = 0;

	for (line = self_cgroup; line != NULL && *line != '\0'; line = end) {
		end = strchr(line, '\n');
		if (strncmp(line, "0::", 3) == 0) {
			path = end == NULL ? xstrdup(line + 3) :
			    xstrndup(line + 3, (size_t)(end - line - 3));
			break;
		}
		if (end != NULL)
			end++;
	}
	if (path == NULL || path[0] != '/') {
		*cause = xstrdup("no cgroup v2 line in /proc/self/cgroup");
		free(path);
		return NULL;
	}
	if (strstr(path, " (deleted)") != NULL) {
		*cause = xprintf("our cgroup %s was removed", path);
		free(path);
		return NULL;
	}
	for (line = mountinfo; dir == NULL && line != NULL && *line != '\0';
	    line = end) {
		end = strchr(line, '\n');
		copy = end == NULL ? xstrdup(line) :
		    xstrndup(line, (size_t)(end - line));
		if (end != NULL)
			end++;
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT ... - FSTYPE SOURCE ... */
		sep = strstr(copy, " - ");
		fstype = sep != NULL ? sep + 3 : NULL;
		if (fstype == NULL || strncmp(fstype, "cgroup2 ", 8) != 0) {
			free(copy);
			continue;
		}
		*sep = '\0';
		save = NULL;
		for (i = 0; i < 5; i++) {
			f[i] = strtok_r(i == 0 ? copy : NULL, " ", &save);
			if (f[i] == NULL)
				break;
		}
		if (i == 5) {
			mounts++;
			cgroup_unescape(f[3]);
			cgroup_unescape(f[4]);
			if ((rel = cgroup_below(path, f[3])) != NULL)
				dir = xprintf("%s%s",
				    strcmp(f[4], "/") == 0 && *rel != '\0' ?
				    "" : f[4], rel);
		}
		free(copy);
	}
	if (dir == NULL)
		*cause = mounts == 0 ?
		    xstrdup("no cgroup2 file system mounted") :
		    xprintf("our cgroup %s is outside the cgroup2 mount", path);
	free(path);
	return dir;
}

/* Note why jobs get no cgroup, unless a reason was kept or told already. */
static void
cgroup_set_warning(struct cgroup *cg, const char *what, const char *path,
    int error)
{
	if (cg->warning != NULL || cg->warned)
		return;
	cg->warning = xprintf("jobs get no cgroup: %s (%s %s)",
	    strerror(error), what, path);
}

/* Return whether a directory entry of a cgroup is a cgroup inside it. */
static int
cgroup_is_sub(const struct dirent *de)
{
	return de->d_type == DT_DIR && strcmp(de->d_name, ".") != 0 &&
	    strcmp(de->d_name, "..") != 0;
}

/*
 * Remove a cgroup directory and the cgroups inside it, deepest first;
 * 0, or -1 while a process is still in one (EBUSY).
 */
static int
cgroup_rmtree(const char *dir, int depth)
{
	struct dirent	*de;
	DIR		*d;
	char		*sub;
	int		 rc = 0;

	if (rmdir(dir) == 0 || errno == ENOENT)
		return 0;
	/* A cgroup with cgroups inside is EBUSY, as one with processes. */
	if (errno != EBUSY && errno != ENOTEMPTY && errno != EEXIST)
		return -1;
	if (depth >= CGROUP_DEPTH_MAX || (d = opendir(dir)) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		if (!cgroup_is_sub(de))
			continue;
		sub = xprintf("%s/%s", dir, de->d_name);
		if (cgroup_rmtree(sub, depth + 1) != 0)
			rc = -1;
		free(sub);
	}
	closedir(d);
	if (rc == 0 && rmdir(dir) != 0 && errno != ENOENT)
		rc = -1;
	return rc;
}

/*
 * Send sig to pid, then SIGCONT after SIGTERM, SIGHUP and SIGINT so a
 * stopped process sees them; 0 or -1 as kill().
 */
static int
cgroup_send(pid_t pid, int sig)
{
	int	rc;

	rc = kill(pid, sig);
	if (sig == SIGTERM || sig == SIGHUP || sig == SIGINT)
		kill(pid, SIGCONT);
	return rc;
}

/* Call cb for every process in dir's cgroup and the cgroups below it. */
static void
cgroup_each_proc(const char *dir, int depth, cgroup_proc_cb *cb, void *arg)
{
	struct dirent	*de;
	DIR		*d;
	FILE		*f;
	char		*path;
	long		 pid;

	path = xprintf("%s/cgroup.procs", dir);
	f = fopen(path, "re");
	free(path);
	if (f == NULL)
		return;
	while (fscanf(f, "%ld", &pid) == 1) {
		if (pid > 0)
			cb((pid_t)pid, arg);
	}
	fclose(f);
	if (depth >= CGROUP_DEPTH_MAX || (d = opendir(dir)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (!cgroup_is_sub(de))
			continue;
		path = xprintf("%s/%s", dir, de->d_name);
		cgroup_each_proc(path, depth + 1, cb, arg);
		free(path);
	}
	closedir(d);
}

/* A walk's callback: signal a process unless it is spared. */
static void
cgroup_walk_cb(pid_t pid, void *arg)
{
	struct cgroup_walk	*w = arg;

	if (pid == getpid() || (w->skip > 0 && getpgid(pid) == w->skip))
		return;
	if (cgroup_send(pid, w->sig) == 0)
		w->n++;
}

/*
 * Send sig to every process in dir's cgroup and those below it, except
 * this process and members of process group skip (0: none), through
 * cgroup_send().  Return how many were signalled.
 */
static int
cgroup_walk(const char *dir, int sig, pid_t skip)
{
	struct cgroup_walk	w;

	w.sig = sig;
	w.skip = skip;
	w.n = 0;
	cgroup_each_proc(dir, 0, cgroup_walk_cb, &w);
	return w.n;
}

/*
 * SIGKILL every process in a cgroup and below: cgroup.kill where the
 * kernel has it, else walks of cgroup.procs until one finds nobody (a
 * fork racing a walk is restarted by the kernel once SIGKILL is pending,
 * so the rounds end).
 */
static void
cgroup_kill_dir(const char *dir)
{
	char	*path;
	int	 round, rc;

	path = xprintf("%s/cgroup.kill", dir);
	rc = cgroup_write_file(path, "1");
	free(path);
	if (rc == 0)
		return;
	for (round = 0; round < CGROUP_KILL_ROUNDS; round++) {
		if (cgroup_walk(dir, SIGKILL, 0) == 0)
			break;
	}
}

/*
 * Find the marker's value in a process's environment, read in pieces (an
 * environment may be megabytes); 1 with the value in buf, else 0.
 */
static int
cgroup_read_marker(int dirfd, const char *pid, char *buf, size_t size)
{
	char		 chunk[4096], path[64];
	size_t		 match = 0, got = 0, plen = strlen(cgroup_marker_eq);
	ssize_t		 n, i;
	int		 fd, state = 0;	/* 0 matching, 1 value, 2 other */

	snprintf(path, sizeof path, "%s/environ", pid);
	if ((fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC)) == -1)
		return 0;
	while ((n = read(fd, chunk, sizeof chunk)) > 0) {
		for (i = 0; i < n; i++) {
			if (chunk[i] == '\0') {
				if (state == 1)
					goto done;
				state = 0;
				match = 0;
			} else if (state == 1) {
				if (got + 1 >= size)
					state = 2;	/* too long: not ours */
				else
					buf[got++] = chunk[i];
			} else if (state == 0) {
				if (chunk[i] != cgroup_marker_eq[match])
					state = 2;
				else if (++match == plen)
					state = 1;
			}
		}
	}
done:
	close(fd);
	if (state != 1)
		return 0;
	buf[got] = '\0';
	return 1;
}

/*
 * Call cb for every process (ours, or all for root) but this one whose
 * environment holds the marker.
 */
static void
cgroup_scan(cgroup_scan_cb *cb, void *arg)
{
	struct dirent	*de;
	struct stat	 sb;
	DIR		*d;
	char		 value[CGROUP_VALUE_MAX], *end;
	uid_t		 uid = geteuid();
	long		 pid;

	if ((d = opendir("/proc")) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid = strtol(de->d_name, &end, 10);
		if (*end != '\0' || pid <= 0 || pid == getpid())
			continue;
		if (uid != 0 && (fstatat(dirfd(d), de->d_name, &sb, 0) != 0 ||
		    sb.st_uid != uid))
			continue;
		if (cgroup_read_marker(dirfd(d), de->d_name, value,
		    sizeof value))
			cb((pid_t)pid, value, arg);
	}
	closedir(d);
}

/*
 * Return the run's name in a marker's value when this deck set it
 * ("<token>/<name>"), else NULL.
 */
static const char *
cgroup_marker_run(const struct cgroup *cg, const char *value)
{
	size_t	len = strlen(cg->token);

	if (strncmp(value, cg->token, len) != 0 || value[len] != '/')
		return NULL;
	return value + len + 1;
}

/* Make the marker-only containment of this deck, with its token. */
static struct cgroup *
cgroup_alloc(void)
{
	struct cgroup		*cg;
	unsigned long long	 start = 0;
	char			 state;

	cg = xcalloc(1, sizeof *cg);
	if (cgroup_proc_stat(getpid(), &start, &state, NULL) != 0)
		start = 0;
	cg->token = xprintf(CGROUP_PREFIX "%ld.%llu.%llu", (long)getpid(),
	    start, cgroup_self_pidns());
	return cg;
}

/*
 * In cgroup_probe()'s child: join the cgroup whose cgroup.procs is fd 0
 * and exit 0, or with the errno of the write.
 */
static void
cgroup_probe_child(void *arg)
{
	ssize_t	r;

	(void)arg;
	r = write(STDIN_FILENO, "0", 1);
	_exit(r == 1 ? 0 : errno > 0 && errno < 256 ? errno : EIO);
}

/* What child_fork() runs in cgroup_probe()'s child. */
static const struct child_exec cgroup_probe_exec = { cgroup_probe_child };

/*
 * Check that a process can be moved into dir: a child joins a probe
 * cgroup in it and exits; 0, or -1 with errno.
 */
static int
cgroup_probe(const char *dir)
{
	struct child_spec	 cs;
	char			*probe, *procs;
	pid_t			 pid;
	int			 fd, status, error = 0, i;

	probe = xprintf("%s/probe", dir);
	procs = xprintf("%s/cgroup.procs", probe);
	if (mkdir(probe, 0755) != 0 && errno != EEXIST) {
		error = errno;
		goto out;
	}
	if ((fd = open(procs, O_WRONLY | O_CLOEXEC)) == -1) {
		error = errno;
		goto out;
	}
	child_spec_init(&cs);
	cs.fds[0] = fd;
	cs.nfds = 1;
	pid = child_fork(&cs, &cgroup_probe_exec, NULL);
	error = errno;
	close(fd);
	if (pid == -1)
		goto out;
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
	error = WIFEXITED(status) ? WEXITSTATUS(status) : EIO;
out:
	/* Its one process is reaped; the kernel may lag a moment. */
	for (i = 0; i < 100 && rmdir(probe) != 0 && errno == EBUSY; i++)
		usleep(1000);
	free(probe);
	free(procs);
	errno = error;
	return error == 0 ? 0 : -1;
}

/* Enable the memory controller for the jobs when the deck's parent has it. */
static void
cgroup_enable_memory(struct cgroup *cg)
{
	char	*path, *text, *p;
	size_t	 len = strlen("memory");

	path = xprintf("%s/cgroup.controllers", cg->dir);
	text = cgroup_slurp(path, 65536);
	free(path);
	if (text == NULL)
		return;
	for (p = text; (p = strstr(p, "memory")) != NULL; p += len) {
		if ((p == text || isspace((unsigned char)p[-1])) &&
		    (p[len] == '\0' || isspace((unsigned char)p[len])))
			break;
	}
	free(text);
	if (p == NULL)
		return;
	path = xprintf("%s/cgroup.subtree_control", cg->dir);
	cg->memory = cgroup_write_file(path, "+memory") == 0;
	free(path);
}

/* Make the deck's cgroup under base; on failure keep why and use markers. */
static void
cgroup_setup(struct cgroup *cg, const char *base)
{
	struct statfs	 sf;
	char		*dir, *path;

	if (statfs(base, &sf) != 0) {
		cgroup_set_warning(cg, "statfs", base, errno);
		return;
	}
	if (sf.f_type != CGROUP2_SUPER_MAGIC) {
		cgroup_set_warning(cg, "not a cgroup2 file system:", base,
		    ENOTSUP);
		return;
	}
	dir = xprintf("%s/%s", base, cg->token);
	if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
		cgroup_set_warning(cg, "mkdir", dir, errno);
		free(dir);
		return;
	}
	cg->dir = dir;
	cgroup_enable_memory(cg);
	if (cgroup_probe(dir) != 0) {
		path = xprintf("%s/probe/cgroup.procs", dir);
		cgroup_set_warning(cg, "write", path, errno);
		free(path);
		rmdir(dir);
		free(dir);
		cg->dir = NULL;
		cg->memory = 0;
		return;
	}
	path = xprintf("%s/cgroup.kill", dir);
	cg->has_kill = access(path, F_OK) == 0;
	free(path);
}

/*
 * Make the deck's containment in the cgroup we run in, found through
 * /proc; with CGROUP_NO_CGROUP, or where none can be made, the marker
 * alone (cgroup_warning() says why).  Never NULL.
 */
struct cgroup *
cgroup_new(int flags)
{
	struct cgroup	*cg;
	char		*mountinfo, *self, *base = NULL, *cause = NULL;

	mountinfo = cgroup_slurp("/proc/self/mountinfo", CGROUP_FILE_MAX);
	self = cgroup_slurp("/proc/self/cgroup", CGROUP_FILE_MAX);
	if (mountinfo != NULL && self != NULL)
		base = cgroup_locate(mountinfo, self, &cause);
	else
		cause = xstrdup("cannot read /proc/self");
	cg = cgroup_new_in(base, flags);
	if (base == NULL && !(flags & CGROUP_NO_CGROUP) && cg->warning == NULL)
		cg->warning = xprintf("jobs get no cgroup: %s", cause);
	free(cause);
	free(base);
	free(mountinfo);
	free(self);
	return cg;
}

/*
 * Make the deck's containment in the cgroup directory base (NULL: none);
 * base is also where cgroup_sweep() looks for dead decks.  Never NULL.
 */
struct cgroup *
cgroup_new_in(const char *base, int flags)
{
	struct cgroup	*cg = cgroup_alloc();

	if (base != NULL) {
		cg->base = xstrdup(base);
		if (!(flags & CGROUP_NO_CGROUP))
			cgroup_setup(cg, base);
	}
	return cg;
}

/* Free a run's state (its directory is not touched). */
static void
cgroup_job_destroy(struct cgroup_job *cgj)
{
	if (cgj->procs_fd != -1)
		close(cgj->procs_fd);
	free(cgj->name);
	free(cgj->marker);
	free(cgj->dir);
	free(cgj);
}

/*
 * Remove every directory this deck made, waiting up to a second for the
 * last processes to go, then free it all.  Processes are not signalled:
 * call cgroup_kill_all() first.
 */
void
cgroup_free(struct cgroup *cg)
{
	size_t	i;
	int	round, left = 1;

	if (cg == NULL)
		return;
	for (round = 0; round < 100 && left; round++) {
		if (round > 0)
			usleep(10000);
		left = 0;
		for (i = 0; i < cg->njobs; i++) {
			if (cg->jobs[i]->dir != NULL && !cg->jobs[i]->removed)
				left += cgroup_job_remove(cg->jobs[i]) != 0;
		}
		for (i = 0; i < cg->ngraves; i++)
			left += cgroup_rmtree(cg->graves[i], 0) != 0;
		if (cg->dir != NULL)
			left += cgroup_rmtree(cg->dir, 0) != 0;
	}
	for (i = 0; i < cg->njobs; i++)
		cgroup_job_destroy(cg->jobs[i]);
	for (i = 0; i < cg->ngraves; i++)
		free(cg->graves[i]);
	free(cg->jobs);
	free(cg->graves);
	free(cg->token);
	free(cg->base);
	free(cg->dir);
	free(cg->warning);
	free(cg);
}

/* Return the deck's token, jobdeck.<pid>.<start>.<pidns>. */
const char *
cgroup_token(const struct cgroup *cg)
{
	return cg->token;
}

/*
 * Return whether the len bytes at s are a deck's token whose deck has
 * ended (no process has its pid and start time); 0 for anything else.
 */
int
cgroup_token_dead(const char *s, size_t len)
{
	unsigned long long	 start, ns;
	const char		*end;
	char			 buf[96];
	pid_t			 deck;

	if (len >= sizeof buf)
		return 0;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if ((end = cgroup_parse_token(buf, &deck, &start, &ns)) == NULL ||
	    *end != '\0')
		return 0;
	return cgroup_deck_dead(deck, start, ns);
}

/*
 * Return the flags JOBDECK_NO_CGROUP asks for: CGROUP_NO_CGROUP when it
 * is set and starts with neither '0' nor nothing (main.c's rule for its
 * switches), else 0.
 */
int
cgroup_env_flags(void)
{
	const char	*v = getenv(CGROUP_ENV_NO_CGROUP);

	return v != NULL && *v != '\0' && *v != '0' ? CGROUP_NO_CGROUP : 0;
}

/* Return the deck's cgroup directory, or NULL when jobs get none. */
const char *
cgroup_dir(const struct cgroup *cg)
{
	return cg->dir;
}

/*
 * Return why jobs get no cgroup, the first time it is asked after that
 * happened (so it is shown once), else NULL.
 */
const char *
cgroup_warning(struct cgroup *cg)
{
	if (cg->warning == NULL || cg->warned)
		return NULL;
	cg->warned = 1;
	return cg->warning;
}

/* What a sweep of markers knows: who we are, whom we spare. */
struct cgroup_sweep {
	struct cgroup	*cg;
	pid_t		 spare[64];	/* this process's ancestors */
	int		 nspare;
	int		 killed;
};

/* A sweep's scan callback: kill a process marked by a dead deck. */
static void
cgroup_sweep_cb(pid_t pid, const char *value, void *arg)
{
	struct cgroup_sweep	*sw = arg;
	unsigned long long	 start, ns;
	pid_t			 deck;
	int			 i;

	if (cgroup_parse_token(value, &deck, &start, &ns) == NULL ||
	    cgroup_marker_run(sw->cg, value) != NULL ||
	    !cgroup_deck_dead(deck, start, ns))
		return;
	for (i = 0; i < sw->nspare; i++) {
		if (sw->spare[i] == pid)
			return;
	}
	if (kill(pid, SIGKILL) == 0)
		sw->killed++;
}

/* Add this process's ancestors to what a sweep spares. */
static void
cgroup_sweep_ancestors(struct cgroup_sweep *sw)
{
	unsigned long long	start;
	pid_t			pid = getpid(), ppid;
	char			state;

	while (sw->nspare < 64 &&
	    cgroup_proc_stat(pid, &start, &state, &ppid) == 0 && ppid > 1) {
		sw->spare[sw->nspare++] = ppid;
		pid = ppid;
	}
}

/* Add a dead deck's cgroup to those to remove. */
static void
cgroup_add_grave(struct cgroup *cg, char *path)
{
	if (cg->ngraves == cg->graves_size) {
		cg->graves_size = cg->graves_size * 2 + 4;
		cg->graves = xreallocarray(cg->graves, cg->graves_size,
		    sizeof *cg->graves);
	}
	cg->graves[cg->ngraves++] = path;
}

/*
 * Kill what dead decks left: every process in their cgroups beside ours
 * (those cgroups are removed, now or by cgroup_tidy()), and every process
 * carrying their marker, scanning again while a scan kills something (a
 * few rounds at most).  A deck is dead when no process has its pid and
 * start time.  Returns how many cgroups and processes were killed.
 */
int
cgroup_sweep(struct cgroup *cg)
{
	struct cgroup_sweep	 sw;
	unsigned long long	 start, ns;
	struct dirent		*de;
	DIR			*d;
	const char		*end;
	char			*path;
	pid_t			 deck;
	int			 round, n = 0;

	if (cg->base != NULL && (d = opendir(cg->base)) != NULL) {
		while ((de = readdir(d)) != NULL) {
			end = cgroup_parse_token(de->d_name, &deck, &start,
			    &ns);
			if (end == NULL || *end != '\0' ||
			    strcmp(de->d_name, cg->token) == 0 ||
			    !cgroup_deck_dead(deck, start, ns))
				continue;
			path = xprintf("%s/%s", cg->base, de->d_name);
			cgroup_kill_dir(path);
			n++;
			if (cgroup_rmtree(path, 0) == 0)
				free(path);
			else
				cgroup_add_grave(cg, path);
		}
		closedir(d);
	}
	memset(&sw, 0, sizeof sw);
	sw.cg = cg;
	cgroup_sweep_ancestors(&sw);
	for (round = 0; round < 20; round++) {
		sw.killed = 0;
		cgroup_scan(cgroup_sweep_cb, &sw);
		n += sw.killed;
		if (sw.killed == 0)
			break;
		usleep(10000);
	}
	return n;
}

/* A flush's scan callback: signal a process marked by a waiting run. */
static void
cgroup_flush_cb(pid_t pid, const char *value, void *arg)
{
	struct cgroup		*cg = arg;
	struct cgroup_job	*cgj;
	const char		*run;
	size_t			 i;

	if ((run = cgroup_marker_run(cg, value)) == NULL)
		return;
	for (i = 0; i < cg->njobs; i++) {
		cgj = cg->jobs[i];
		if (cgj->pending == 0 || strcmp(run, cgj->name) != 0)
			continue;
		if (cgj->pending != SIGKILL && cgj->pgid > 0 &&
		    getpgid(pid) == cgj->pgid)
			return;
		if (cgroup_send(pid, cgj->pending) == 0)
			cgj->found++;
		return;
	}
}

/*
 * Whether a queued SIGKILL needs another scan: while one finds something,
 * and until CGROUP_KILL_QUIET in a row have found nothing (a process in
 * the middle of an exec shows /proc no environment for a moment, so one
 * scan may miss it), at most CGROUP_KILL_ROUNDS.
 */
static int
cgroup_kill_again(struct cgroup_job *cgj)
{
	if (++cgj->rounds >= CGROUP_KILL_ROUNDS)
		return 0;
	if (cgj->found > 0)
		cgj->quiet = 0;
	else
		cgj->quiet++;
	return cgj->quiet < CGROUP_KILL_QUIET;
}

/*
 * Send the signals cgroup_job_signal() queued for runs without a cgroup:
 * one scan of /proc for them all.  A SIGKILL stays queued for more scans
 * (cgroup_kill_again()).  Returns 1 when another flush is due.
 */
int
cgroup_flush(struct cgroup *cg)
{
	struct cgroup_job	*cgj;
	size_t			 i;

	if (!cg->flush_due)
		return 0;
	for (i = 0; i < cg->njobs; i++)
		cg->jobs[i]->found = 0;
	cgroup_scan(cgroup_flush_cb, cg);
	cg->flush_due = 0;
	for (i = 0; i < cg->njobs; i++) {
		cgj = cg->jobs[i];
		if (cgj->pending == 0)
			continue;
		if (cgj->pending == SIGKILL && cgroup_kill_again(cgj))
			cg->flush_due = 1;
		else
			cgj->pending = 0;
	}
	return cg->flush_due;
}

/*
 * Remove the released runs' cgroups once empty, and dead decks' cgroups;
 * free the runs that are done with.  Returns how many still wait.
 */
int
cgroup_tidy(struct cgroup *cg)
{
	struct cgroup_job	*cgj;
	size_t			 i;
	int			 left = 0;

	for (i = 0; i < cg->njobs;) {
		cgj = cg->jobs[i];
		if (!cgj->released || cgj->pending != 0 ||
		    cgroup_job_remove(cgj) != 0) {
			left += cgj->released;
			i++;
			continue;
		}
		cgroup_job_destroy(cgj);
		cg->jobs[i] = cg->jobs[--cg->njobs];
	}
	for (i = 0; i < cg->ngraves;) {
		if (cgroup_rmtree(cg->graves[i], 0) != 0) {
			left++;
			i++;
			continue;
		}
		free(cg->graves[i]);
		cg->graves[i] = cg->graves[--cg->ngraves];
	}
	return left;
}

/* A final scan: the deck whose marked processes are killed, and a count. */
struct cgroup_final {
	const struct cgroup	*cg;
	int			 killed;
};

/* A final scan's callback: kill a process marked by this deck. */
static void
cgroup_kill_all_cb(pid_t pid, const char *value, void *arg)
{
	struct cgroup_final	*fin = arg;

	if (cgroup_marker_run(fin->cg, value) != NULL &&
	    kill(pid, SIGKILL) == 0)
		fin->killed++;
}

/*
 * SIGKILL everything this deck started that is still around: its cgroups
 * (and below), then processes with its marker, scanning again while a
 * scan kills something (a fifth of a second at most).  For the deck's
 * exit.
 */
void
cgroup_kill_all(struct cgroup *cg)
{
	struct cgroup_final	fin;
	int			round;

	if (cg->dir != NULL)
		cgroup_kill_dir(cg->dir);
	fin.cg = cg;
	for (round = 0; round < 20; round++) {
		fin.killed = 0;
		cgroup_scan(cgroup_kill_all_cb, &fin);
		if (fin.killed == 0)
			break;
		usleep(10000);
	}
}

/*
 * Start a run of job id: its cgroup directory and the cgroup.procs fd its
 * child joins through, or the marker alone when the deck has no cgroup or
 * this one cannot be made (cgroup_warning() tells it once).  Never NULL.
 */
struct cgroup_job *
cgroup_job_new(struct cgroup *cg, int id)
{
	struct cgroup_job	*cgj;
	char			*path;
	int			 fd;

	cgj = xcalloc(1, sizeof *cgj);
	cgj->cg = cg;
	cgj->name = xprintf("job-%d-%u", id, ++cg->run);
	cgj->marker = xprintf("%s%s/%s", cgroup_marker_eq, cg->token,
	    cgj->name);
	cgj->procs_fd = -1;
	cgj->cpu_usec = -1;
	if (cg->dir != NULL) {
		cgj->dir = xprintf("%s/%s", cg->dir, cgj->name);
		path = xprintf("%s/cgroup.procs", cgj->dir);
		if (mkdir(cgj->dir, 0755) != 0 && errno != EEXIST)
			cgroup_set_warning(cg, "mkdir", cgj->dir, errno);
		else if ((fd = open(path, O_WRONLY | O_CLOEXEC)) == -1) {
			cgroup_set_warning(cg, "open", path, errno);
			rmdir(cgj->dir);
		} else if (fd > 2)
			cgj->procs_fd = fd;
		else {
			/* Above 2, so the child's dup2s leave it alone. */
			cgj->procs_fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
			close(fd);
		}
		free(path);
		if (cgj->procs_fd == -1) {
			free(cgj->dir);
			cgj->dir = NULL;
		}
	}
	if (cg->njobs == cg->jobs_size) {
		cg->jobs_size = cg->jobs_size * 2 + 16;
		cg->jobs = xreallocarray(cg->jobs, cg->jobs_size,
		    sizeof *cg->jobs);
	}
	cg->jobs[cg->njobs++] = cgj;
	return cgj;
}

/* Return the run's environment entry, JOBDECK_JOB=<token>/job-<id>-<run>. */
const char *
cgroup_job_marker(const struct cgroup_job *cgj)
{
	return cgj->marker;
}

/*
 * Return envp (NULL: empty) for a child of the run: its entries but any
 * JOBDECK_JOB, then the run's marker.  The array is allocated (free() it);
 * its strings are envp's and the run's.
 */
char **
cgroup_job_env(const struct cgroup_job *cgj, char *const *envp)
{
	char	**env;
	size_t	  n = 0, i, k = 0;

	while (envp != NULL && envp[n] != NULL)
		n++;
	env = xcalloc(n + 2, sizeof *env);
	for (i = 0; i < n; i++) {
		if (strncmp(envp[i], cgroup_marker_eq,
		    strlen(cgroup_marker_eq)) != 0)
			env[k++] = envp[i];
	}
	env[k++] = cgj->marker;
	env[k] = NULL;
	return env;
}

/* Return the run's cgroup directory, or NULL when it has none. */
const char *
cgroup_job_dir(const struct cgroup_job *cgj)
{
	return cgj->dir;
}

/* Return the cgroup.procs fd the child writes "0" to (above 2), or -1. */
int
cgroup_job_procs_fd(const struct cgroup_job *cgj)
{
	return cgj->procs_fd;
}

/* The run's child is started, leading group pgid: close the procs fd. */
void
cgroup_job_started(struct cgroup_job *cgj, pid_t pgid)
{
	if (cgj->procs_fd != -1) {
		close(cgj->procs_fd);
		cgj->procs_fd = -1;
	}
	cgj->pgid = pgid;
}

/*
 * Send sig to the run's processes outside its process group: now through
 * its cgroup (SIGKILL to all of it), or, with the marker alone, queued for
 * cgroup_flush().  Returns how many were signalled now.
 */
int
cgroup_job_signal(struct cgroup_job *cgj, int sig)
{
	if (cgj->dir == NULL) {
		if (cgj->pending != SIGKILL)
			cgj->pending = sig;
		cgj->rounds = 0;
		cgj->quiet = 0;
		cgj->cg->flush_due = 1;
		return 0;
	}
	if (cgj->removed)
		return 0;
	if (sig == SIGKILL) {
		cgroup_kill_dir(cgj->dir);
		return 1;
	}
	return cgroup_walk(cgj->dir, sig, cgj->pgid);
}

/* Return whether a process is still in the run's cgroup (0 without one). */
int
cgroup_job_populated(const struct cgroup_job *cgj)
{
	char	*path;
	int64_t	 v;

	if (cgj->dir == NULL || cgj->removed)
		return 0;
	path = xprintf("%s/cgroup.events", cgj->dir);
	v = cgroup_read_key(path, "populated");
	free(path);
	return v > 0;
}

/* An RSS sum's callback: add the process's resident memory. */
static void
cgroup_rss_cb(pid_t pid, void *arg)
{
	int64_t		*sum = arg;
	char		 statm[64], buf[128];
	long		 page = sysconf(_SC_PAGESIZE);
	long long	 size, resident;
	ssize_t		 n;
	int		 fd;

	snprintf(statm, sizeof statm, "/proc/%ld/statm", (long)pid);
	if ((fd = open(statm, O_RDONLY | O_CLOEXEC)) == -1)
		return;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	if (sscanf(buf, "%lld %lld", &size, &resident) == 2)
		*sum += (int64_t)resident * (page > 0 ? page : 4096);
}

/* Add up the resident memory of the processes in a cgroup and below. */
static int64_t
cgroup_rss(const char *dir)
{
	int64_t	sum = 0;

	cgroup_each_proc(dir, 0, cgroup_rss_cb, &sum);
	return sum;
}

/*
 * Read the run's CPU time (cpu.stat usage_usec; after its cgroup was
 * removed, the last figure) and its memory (memory.current when the
 * controller is on, else the sum of its processes' RSS; -1 once removed);
 * either pointer may be NULL.  Both are -1 when unknown (the marker
 * alone).
 */
void
cgroup_job_usage(struct cgroup_job *cgj, int64_t *cpu_usec,
    int64_t *memory_bytes)
{
	char	*path;
	int64_t	 v = -1;

	if (cgj->dir != NULL && !cgj->removed && cpu_usec != NULL) {
		path = xprintf("%s/cpu.stat", cgj->dir);
		if ((v = cgroup_read_key(path, "usage_usec")) >= 0)
			cgj->cpu_usec = v;
		free(path);
	}
	if (cpu_usec != NULL)
		*cpu_usec = cgj->cpu_usec;
	if (memory_bytes == NULL)
		return;
	*memory_bytes = -1;
	if (cgj->dir == NULL || cgj->removed)
		return;
	if (cgj->cg->memory) {
		path = xprintf("%s/memory.current", cgj->dir);
		v = cgroup_read_number(path);
		free(path);
	}
	*memory_bytes = cgj->cg->memory && v >= 0 ? v :
	    cgroup_rss(cgj->dir);
}

/*
 * Remove the run's cgroup if no process is left in it, keeping its last
 * CPU figure; 0 when it is gone (or it never had one), -1 if not yet.
 */
int
cgroup_job_remove(struct cgroup_job *cgj)
{
	int64_t	cpu;

	if (cgj->dir == NULL || cgj->removed)
		return 0;
	if (cgroup_job_populated(cgj))
		return -1;
	cgroup_job_usage(cgj, &cpu, NULL);
	if (cgroup_rmtree(cgj->dir, 0) != 0)
		return -1;
	cgj->removed = 1;
	return 0;
}

/*
 * The job is done with this run (restarted or freed): the deck removes
 * its cgroup once empty and frees it (cgroup_tidy()).
 */
void
cgroup_job_release(struct cgroup_job *cgj)
{
	if (cgj->procs_fd != -1) {
		close(cgj->procs_fd);
		cgj->procs_fd = -1;
	}
	cgj->released = 1;
	cgroup_tidy(cgj->cg);
}

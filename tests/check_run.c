/*
 * check_run.c: end-to-end tests of `jobdeck run`, the real binary with
 * real children: the JSON result read back by value (tests/jsonread),
 * pass-through mode's output and exit statuses, timeouts that must take
 * the whole process group down, nothing the run started left once it
 * returns (setsid -f escapees too, by a cgroup or by the marker),
 * configured jobs with params, env and cwd, large output on both streams
 * at once, readers that stall, and usage errors.
 *
 * What the tests assert is behaviour, never wall-clock time: a reader
 * that is late waits until jobdeck's pipe to it is full (FIONREAD), not
 * for a time it hopes is enough; a time limit is checked from below only
 * (duration_ms, which cannot be short of it), and its end by what the
 * job saw or left.
 *
 * The binary is $JOBDECK_BIN, else ./jobdeck (relative to the directory
 * the suite runs from: the repository root under make).  Each test that
 * needs files gets a fresh temporary directory; jobs that the tests must
 * watch write their pids there.
 */
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "jsonread.h"
#include "testproc.h"

#define MAX_ARGS	32
#define WAIT_MS		60000

/* A finished `jobdeck run`: its exit status, output and time taken. */
struct res {
	int		 status;	/* exit status, or 128+N for signal N */
	char		*out;
	size_t		 out_len;
	char		*err;
	size_t		 err_len;
	long long	 ms;
	struct jsonread	*json;		/* parsed out, for jd_json() */
};

/* A started `jobdeck run`. */
struct proc {
	pid_t		 pid;
	int		 out_fd;
	int		 err_fd;
	long long	 started;
	int		 stall_out;	/* jd_wait never reads stdout */
};

/* Return monotonic milliseconds. */
static long long
now_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Start `jobdeck run ARGS...` (args NULL-terminated) with pipes for output. */
static void
jd_start_v(struct proc *p, const char *const *args)
{
	const char	*bin, *argv[MAX_ARGS + 3];
	int		 out[2], err[2], null, n = 0;

	if ((bin = getenv("JOBDECK_BIN")) == NULL || *bin == '\0')
		bin = "./jobdeck";
	argv[n++] = bin;
	argv[n++] = "run";
	for (; *args != NULL && n < MAX_ARGS + 2; args++)
		argv[n++] = *args;
	argv[n] = NULL;

	ck_assert_int_eq(pipe(out), 0);
	ck_assert_int_eq(pipe(err), 0);
	p->stall_out = 0;
	p->started = now_ms();
	p->pid = fork();
	ck_assert_int_ne(p->pid, -1);
	if (p->pid == 0) {
		null = open("/dev/null", O_RDONLY);
		dup2(null, 0);
		dup2(out[1], 1);
		dup2(err[1], 2);
		close_range(3, ~0U, 0);
		/* Command strings run in $SHELL: a POSIX one, as in term.c. */
		setenv("SHELL", "/bin/sh", 1);
		execv(bin, (char *const *)argv);
		dprintf(2, "cannot run %s: %s (build it with `make jobdeck`,"
		    " or set JOBDECK_BIN)\n", bin, strerror(errno));
		_exit(99);
	}
	close(out[1]);
	close(err[1]);
	p->out_fd = out[0];
	p->err_fd = err[0];
}

/* Append what fd has to *buf; 0 at its end. */
static int
jd_read(int fd, char **buf, size_t *len, size_t *size)
{
	char	tmp[65536];
	ssize_t	n;

	n = read(fd, tmp, sizeof tmp);
	if (n == -1 && errno == EINTR)
		return 1;
	if (n <= 0)
		return 0;
	if (*len + (size_t)n + 1 > *size) {
		*size = (*len + (size_t)n + 1) * 2;
		*buf = realloc(*buf, *size);
		ck_assert_ptr_nonnull(*buf);
	}
	memcpy(*buf + *len, tmp, (size_t)n);
	*len += (size_t)n;
	(*buf)[*len] = '\0';
	return 1;
}

/*
 * Read both outputs to their end (stdout not at all if p->stall_out: a
 * reader that stalls), wait for the exit; fill r.  Fail (killing jobdeck)
 * if it has not ended ms after it started.
 */
static void
jd_wait_ms(struct proc *p, struct res *r, long long ms)
{
	struct pollfd	 pfd[2];
	size_t		 out_size = 1, err_size = 1;
	int		 st, open_fds = 2, i;
	long long	 end = p->started + ms;

	memset(r, 0, sizeof *r);
	r->out = calloc(1, 1);
	r->err = calloc(1, 1);
	pfd[0].fd = p->out_fd;
	pfd[1].fd = p->err_fd;
	pfd[0].events = pfd[1].events = POLLIN;
	if (p->stall_out) {
		pfd[0].fd = -1;
		open_fds--;
	}
	while (open_fds > 0) {
		if (now_ms() >= end) {
			kill(p->pid, SIGKILL);
			ck_abort_msg("jobdeck run did not finish in %lld ms; "
			    "stderr: %s", ms, r->err);
		}
		if (poll(pfd, 2, 100) <= 0)
			continue;
		for (i = 0; i < 2; i++) {
			if (pfd[i].fd == -1 || pfd[i].revents == 0)
				continue;
			if (!(i == 0 ? jd_read(pfd[i].fd, &r->out, &r->out_len,
			    &out_size) : jd_read(pfd[i].fd, &r->err,
			    &r->err_len, &err_size))) {
				close(pfd[i].fd);
				pfd[i].fd = -1;
				open_fds--;
			}
		}
	}
	ck_assert_int_eq(waitpid(p->pid, &st, 0), p->pid);
	r->ms = now_ms() - p->started;
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	if (p->stall_out)
		close(p->out_fd);
	ck_assert_msg(r->status != 99, "%s", r->err);
}

/* Read both outputs to their end, wait for the exit; fill r. */
static void
jd_wait(struct proc *p, struct res *r)
{
	jd_wait_ms(p, r, WAIT_MS);
}

/* Run `jobdeck run ARGS...` (NULL-terminated) to its end into r. */
static void
jd(struct res *r, ...)
{
	const char	*args[MAX_ARGS + 1];
	struct proc	 p;
	va_list		 ap;
	int		 n = 0;

	va_start(ap, r);
	while (n < MAX_ARGS && (args[n] = va_arg(ap, const char *)) != NULL)
		n++;
	va_end(ap);
	args[n] = NULL;
	jd_start_v(&p, args);
	jd_wait(&p, r);
}

/* Parse r's stdout as the JSON result: one object and a newline. */
static const struct jsonread *
jd_json(struct res *r)
{
	char	*cause = NULL;

	ck_assert_msg(r->status == 0, "exit %d, stderr: %s", r->status,
	    r->err);
	ck_assert_msg(r->out_len > 0 && r->out[r->out_len - 1] == '\n',
	    "no newline at the end: %s", r->out);
	r->json = jsonread_parse(r->out, r->out_len - 1, &cause);
	ck_assert_msg(r->json != NULL, "invalid JSON (%s): %.300s", cause,
	    r->out);
	ck_assert_int_eq(jsonread_type(r->json), JSONREAD_OBJECT);
	return r->json;
}

/* Free what r holds. */
static void
res_free(struct res *r)
{
	free(r->out);
	free(r->err);
	jsonread_free(r->json);
}

/* Return member key of the result as a string (NUL-terminated), or fail. */
static const char *
jstr(const struct jsonread *v, const char *key)
{
	const char	*s = jsonread_string(jsonread_get(v, key), NULL);

	ck_assert_msg(s != NULL, "no string member %s", key);
	return s;
}

/* Return member key of the result as a number, or fail. */
static double
jnum(const struct jsonread *v, const char *key)
{
	const struct jsonread	*m = jsonread_get(v, key);

	ck_assert_msg(jsonread_type(m) == JSONREAD_NUMBER,
	    "no number member %s", key);
	return jsonread_number(m);
}

/* Return member key of the result as a bool, or fail. */
static int
jbool(const struct jsonread *v, const char *key)
{
	int	b = jsonread_bool(jsonread_get(v, key));

	ck_assert_msg(b != -1, "no boolean member %s", key);
	return b;
}

/* Make a fresh temporary directory into dir (size 64). */
static void
tmpdir(char *dir)
{
	strcpy(dir, "/tmp/check_run.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

/* Remove a temporary directory and everything in it. */
static void
rmtree(const char *dir)
{
	char	cmd[128];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* Write text to dir/name with mode; return the path in path (size 256). */
static void
write_file(char *path, const char *dir, const char *name, const char *text,
    mode_t mode)
{
	FILE	*f;

	snprintf(path, 256, "%s/%s", dir, name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(chmod(path, mode), 0);
}

/* Read a pid the job wrote to dir/name, waiting up to 5 s for it. */
static pid_t
read_pid(const char *dir, const char *name)
{
	char		 path[256];
	FILE		*f;
	long		 pid = 0;
	long long	 end = now_ms() + 5000;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	while (now_ms() < end) {
		if ((f = fopen(path, "r")) != NULL) {
			if (fscanf(f, "%ld", &pid) != 1)
				pid = 0;
			fclose(f);
			if (pid > 0)
				break;
		}
		usleep(10000);
	}
	ck_assert_msg(pid > 0, "no pid in %s", path);
	return (pid_t)pid;
}

/* Return 1 once pid is gone or a zombie (within 10 s), else 0. */
static int
is_dead(pid_t pid)
{
	long long	end = now_ms() + 10000;

	while (now_ms() < end) {
		if (testproc_dead(pid))
			return 1;
		usleep(20000);
	}
	return 0;
}

/*
 * Wait until the pipe fd, which this test does not read, is full: the
 * jobdeck run writing into it has to wait for its reader.
 */
static void
wait_pipe_full(int fd)
{
	long long	end = now_ms() + 20000;
	int		size, n = 0;

	ck_assert_int_gt(size = fcntl(fd, F_GETPIPE_SZ), 0);
	while (ioctl(fd, FIONREAD, &n) == 0 && n < size) {
		ck_assert_msg(now_ms() < end, "the pipe holds %d bytes of %d, "
		    "after 20 s", n, size);
		usleep(10000);
	}
}

/* The XDG_STATE_HOME of every run of the suite. */
static char	run_state[] = "/tmp/check_run_state.XXXXXX";

/*
 * The run is kept in the output store: its id in the JSON, its raw output
 * (both streams) and its end in runs/RUN/ under XDG_STATE_HOME.
 */
START_TEST(test_json_run_kept)
{
	struct res		 r;
	const struct jsonread	*v;
	char			 path[512], buf[4096], dir[64], cfg[256];
	const char		*run;
	FILE			*f;
	size_t			 n;

	jd(&r, "--json", "--", "sh", "-c", "echo kept-out; echo kept-err >&2; "
	    "exit 3", NULL);
	v = jd_json(&r);
	run = jstr(v, "run");
	ck_assert_uint_eq(strlen(run), 24);
	ck_assert_int_eq(run[8], 'T');
	snprintf(path, sizeof path, "%s/jobdeck/runs/%s/out.0", run_state,
	    run);
	ck_assert_ptr_nonnull(f = fopen(path, "r"));
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	ck_assert_uint_eq(n, strlen("kept-out\nkept-err\n"));
	ck_assert_ptr_nonnull(strstr(buf, "kept-out\n"));
	ck_assert_ptr_nonnull(strstr(buf, "kept-err\n"));
	snprintf(path, sizeof path, "%s/jobdeck/runs/%s/meta", run_state, run);
	ck_assert_ptr_nonnull(f = fopen(path, "r"));
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	ck_assert_ptr_nonnull(strstr(buf, "\nstate failed\n"));
	ck_assert_ptr_nonnull(strstr(buf, "\nstatus 768\n"));
	res_free(&r);

	/* A configuration's max_log_size holds for the run: 1 MiB in 4. */
	tmpdir(dir);
	write_file(cfg, dir, "config.toml", "[settings]\nmax_log_size = 1\n",
	    0600);
	jd(&r, "--json", "-c", cfg, "--", "echo", "capped", NULL);
	v = jd_json(&r);
	snprintf(path, sizeof path, "%s/jobdeck/runs/%s/meta", run_state,
	    jstr(v, "run"));
	ck_assert_ptr_nonnull(f = fopen(path, "r"));
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	ck_assert_msg(strstr(buf, "\nsegment 262144\n") != NULL, "%s", buf);
	res_free(&r);
	rmtree(dir);
}
END_TEST

START_TEST(test_json_success)
{
	struct res		 r;
	const struct jsonread	*v;

	jd(&r, "--json", "--", "echo", "hi", NULL);
	v = jd_json(&r);
	ck_assert_int_eq(jbool(v, "success"), 1);
	ck_assert_str_eq(jstr(v, "stdout"), "hi\n");
	ck_assert_str_eq(jstr(v, "stderr"), "");
	ck_assert(jnum(v, "return_code") == 0);
	ck_assert_int_eq(jsonread_type(jsonread_get(v, "signal")),
	    JSONREAD_NULL);
	ck_assert_ptr_nonnull(jsonread_get(v, "signal"));
	ck_assert_int_eq(jbool(v, "timed_out"), 0);
	ck_assert(jnum(v, "duration_ms") >= 0);
	ck_assert(jnum(v, "duration_ms") <= r.ms);
	ck_assert_str_eq(r.err, "");
	res_free(&r);
}
END_TEST

START_TEST(test_json_exit_code)
{
	struct res		 r;
	const struct jsonread	*v;

	jd(&r, "--json", "--", "sh", "-c", "exit 3", NULL);
	v = jd_json(&r);
	ck_assert_int_eq(jbool(v, "success"), 0);
	ck_assert(jnum(v, "return_code") == 3);
	ck_assert_int_eq(jbool(v, "timed_out"), 0);
	res_free(&r);
}
END_TEST

START_TEST(test_json_streams_apart)
{
	struct res		 r;
	const struct jsonread	*v;

	jd(&r, "--json", "--", "sh", "-c",
	    "echo out; echo err >&2; echo out2; echo err2 >&2", NULL);
	v = jd_json(&r);
	ck_assert_str_eq(jstr(v, "stdout"), "out\nout2\n");
	ck_assert_str_eq(jstr(v, "stderr"), "err\nerr2\n");
	ck_assert_int_eq(jbool(v, "success"), 1);
	res_free(&r);
}
END_TEST

START_TEST(test_json_signal)
{
	struct res		 r;
	const struct jsonread	*v;

	jd(&r, "--json", "--", "sh", "-c", "echo before; kill -9 $$", NULL);
	v = jd_json(&r);
	ck_assert_int_eq(jbool(v, "success"), 0);
	ck_assert_str_eq(jstr(v, "signal"), "SIGKILL");
	ck_assert(jnum(v, "return_code") == 128 + 9);
	ck_assert_str_eq(jstr(v, "stdout"), "before\n");
	res_free(&r);
}
END_TEST

START_TEST(test_json_not_found)
{
	struct res		 r;
	const struct jsonread	*v;

	jd(&r, "--json", "--", "no-such-program-jd", "x", NULL);
	v = jd_json(&r);
	ck_assert_int_eq(jbool(v, "success"), 0);
	ck_assert(jnum(v, "return_code") == 127);
	ck_assert_str_eq(jstr(v, "stderr"), "no-such-program-jd: not found\n");
	ck_assert_str_eq(jstr(v, "stdout"), "");
	res_free(&r);
}
END_TEST

START_TEST(test_json_permission_denied)
{
	struct res		 r;
	const struct jsonread	*v;
	char			 dir[64], path[256];

	tmpdir(dir);
	write_file(path, dir, "script", "#!/bin/sh\necho ran\n", 0644);
	jd(&r, "--json", "--", path, NULL);
	v = jd_json(&r);
	ck_assert_int_eq(jbool(v, "success"), 0);
	ck_assert(jnum(v, "return_code") == 126);
	ck_assert_ptr_nonnull(strstr(jstr(v, "stderr"), "Permission denied"));
	ck_assert_str_eq(jstr(v, "stdout"), "");
	res_free(&r);
	rmtree(dir);
}
END_TEST

/*
 * A program jobdeck cannot start (no fd left for its pipes): 125, in JSON
 * and passed through, saying why.
 */
START_TEST(test_json_not_started)
{
	struct res		 r;
	const struct jsonread	*v;
	struct rlimit		 rl, was;

	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &was), 0);
	rl = was;
	rl.rlim_cur = 10;
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	jd(&r, "--json", "--", "true", NULL);
	v = jd_json(&r);
	ck_assert_int_eq(jbool(v, "success"), 0);
	ck_assert(jnum(v, "return_code") == 125);
	ck_assert_msg(strstr(jstr(v, "stderr"), "Too many open files") !=
	    NULL, "%s", jstr(v, "stderr"));
	res_free(&r);
	jd(&r, "--", "true", NULL);
	ck_assert_int_eq(r.status, 125);
	ck_assert_msg(strstr(r.err, "Too many open files") != NULL, "%s",
	    r.err);
	res_free(&r);
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &was), 0);
}
END_TEST

START_TEST(test_json_timeout_kills_group)
{
	struct res		 r;
	const struct jsonread	*v;
	char			 dir[64], script[256];
	pid_t			 bg, escapee;

	tmpdir(dir);
	snprintf(script, sizeof script, "sleep 100 & echo $! > %s/bg;"
	    " setsid sleep 100 & echo $! > %s/escapee; echo started;"
	    " sleep 30", dir, dir);
	jd(&r, "--json", "--timeout", "0.5", "--", "sh", "-c", script, NULL);
	v = jd_json(&r);
	ck_assert_int_eq(jbool(v, "success"), 0);
	ck_assert_int_eq(jbool(v, "timed_out"), 1);
	ck_assert_ptr_nonnull(strstr(jstr(v, "stderr"),
	    "jobdeck: timed out after 0.5 s"));
	ck_assert_str_eq(jstr(v, "stdout"), "started\n");
	ck_assert_str_eq(jstr(v, "signal"), "SIGTERM");
	ck_assert(jnum(v, "return_code") == 124);
	/* Never early. */
	ck_assert(jnum(v, "duration_ms") >= 500);
	bg = read_pid(dir, "bg");
	escapee = read_pid(dir, "escapee");
	ck_assert_msg(is_dead(bg), "the background child %d lives", bg);
	ck_assert_msg(is_dead(escapee), "the setsid escapee %d lives",
	    escapee);
	res_free(&r);
	rmtree(dir);
}
END_TEST

START_TEST(test_json_timeout_sigkill_after_grace)
{
	struct res		 r;
	const struct jsonread	*v;

	/* SIGTERM is ignored: SIGKILL comes after the 2 s grace. */
	jd(&r, "--json", "--timeout", "0.3", "--", "sh", "-c",
	    "trap '' TERM; echo ready; sleep 30", NULL);
	v = jd_json(&r);
	ck_assert_int_eq(jbool(v, "timed_out"), 1);
	ck_assert_str_eq(jstr(v, "signal"), "SIGKILL");
	ck_assert(jnum(v, "return_code") == 124);
	/* Not before the timeout and the grace. */
	ck_assert(jnum(v, "duration_ms") >= 2300);
	res_free(&r);
}
END_TEST

START_TEST(test_json_input)
{
	struct res		 r;
	const struct jsonread	*v;

	jd(&r, "--json", "--input", "hello world\nline2\n", "--", "sh", "-c",
	    "read a; read b; echo \"got $a/$b\"; read c || echo eof", NULL);
	v = jd_json(&r);
	ck_assert_str_eq(jstr(v, "stdout"), "got hello world/line2\neof\n");
	res_free(&r);

	/* Without --input, stdin is /dev/null. */
	jd(&r, "--json", "--", "readlink", "/proc/self/fd/0", NULL);
	v = jd_json(&r);
	ck_assert_str_eq(jstr(v, "stdout"), "/dev/null\n");
	res_free(&r);
}
END_TEST

START_TEST(test_json_input_never_read)
{
	struct res		 r;
	const struct jsonread	*v;
	char			*big;

	/* More than a pipe holds, to a child that never reads it. */
	big = malloc(120001);
	ck_assert_ptr_nonnull(big);
	memset(big, 'x', 120000);
	big[120000] = '\0';
	jd(&r, "--json", "--input", big, "--", "sh", "-c", "echo done", NULL);
	v = jd_json(&r);
	ck_assert_int_eq(jbool(v, "success"), 1);
	ck_assert_str_eq(jstr(v, "stdout"), "done\n");
	res_free(&r);

	/* And all of it to one that does, a little later. */
	jd(&r, "--json", "--input", big, "--", "sh", "-c", "sleep 0.2; wc -c",
	    NULL);
	v = jd_json(&r);
	ck_assert_str_eq(jstr(v, "stdout"), "120000\n");
	res_free(&r);
	free(big);
}
END_TEST

START_TEST(test_json_big_output_both_streams)
{
	struct res		 r;
	const struct jsonread	*v;
	const char		*s;
	size_t			 len, i;

	jd(&r, "--json", "--", "sh", "-c",
	    "head -c 20000000 /dev/zero | tr '\\0' a &"
	    " head -c 20000000 /dev/zero | tr '\\0' b >&2; wait", NULL);
	v = jd_json(&r);
	ck_assert_int_eq(jbool(v, "success"), 1);
	s = jsonread_string(jsonread_get(v, "stdout"), &len);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(len, 20000000);
	for (i = 0; i < len && s[i] == 'a'; i++)
		/* nothing */;
	ck_assert_uint_eq(i, len);
	s = jsonread_string(jsonread_get(v, "stderr"), &len);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(len, 20000000);
	for (i = 0; i < len && s[i] == 'b'; i++)
		/* nothing */;
	ck_assert_uint_eq(i, len);
	res_free(&r);
}
END_TEST

START_TEST(test_json_invalid_utf8)
{
	static const char	 want[] = "\xef\xbf\xbdok\xef\xbf\xbd"
	    "\xef\xbf\xbd \xc3\xa9 \0 \x1b[1m\xef\xbf\xbd";
	struct res		 r;
	const struct jsonread	*v;
	const char		*s;
	size_t			 len;

	/* Stray bytes, an overlong form, a truncated sequence, a NUL. */
	jd(&r, "--json", "--", "printf",
	    "\\377ok\\300\\257 \\303\\251 \\000 \\033[1m\\342\\202", NULL);
	v = jd_json(&r);
	s = jsonread_string(jsonread_get(v, "stdout"), &len);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(len, sizeof want - 1);
	ck_assert(memcmp(s, want, len) == 0);
	ck_assert_ptr_nonnull(strstr(r.out, "\\u0000"));
	ck_assert_ptr_nonnull(strstr(r.out, "\\u001b[1m"));
	res_free(&r);
}
END_TEST

START_TEST(test_json_env_and_cwd)
{
	struct res		 r;
	const struct jsonread	*v;
	char			 dir[64], want[128];

	tmpdir(dir);
	jd(&r, "--json", "--env", "JD_A=one two", "--env", "JD_B=", "--env",
	    "JD_A=three", "--cwd", dir, "--", "sh", "-c",
	    "echo \"$JD_A|${JD_B-unset}|$(pwd -P)\"", NULL);
	v = jd_json(&r);
	snprintf(want, sizeof want, "three||%s\n", dir);
	ck_assert_str_eq(jstr(v, "stdout"), want);
	res_free(&r);

	/* A cwd that cannot be entered: the child's own 127. */
	jd(&r, "--json", "--cwd", "/nonexistent/jd", "--", "true", NULL);
	v = jd_json(&r);
	ck_assert(jnum(v, "return_code") == 127);
	ck_assert_ptr_nonnull(strstr(jstr(v, "stderr"), "/nonexistent/jd"));
	res_free(&r);
	rmtree(dir);
}
END_TEST

START_TEST(test_json_no_fd_leak)
{
	struct res		 r;
	const struct jsonread	*v;

	jd(&r, "--json", "--input", "x", "--", "sh", "-c",
	    "for f in /proc/$$/fd/*; do"
	    " if [ -e \"$f\" ]; then echo ${f##*/}; fi; done", NULL);
	v = jd_json(&r);
	ck_assert_str_eq(jstr(v, "stdout"), "0\n1\n2\n");
	res_free(&r);
}
END_TEST

START_TEST(test_output_held_by_background)
{
	struct res		 r;
	const struct jsonread	*v;
	char			 dir[64], script[512], path[256];
	pid_t			 held, detached;

	/*
	 * A background child keeps stdout open: it gets the grace, then
	 * SIGTERM (which it notes).
	 */
	tmpdir(dir);
	snprintf(script, sizeof script, "sh -c 'trap \"touch %s/term; exit "
	    "0\" TERM; while :; do sleep 0.05; done' & echo $! > %s/held;"
	    " echo hi", dir, dir);
	jd(&r, "--json", "--", "sh", "-c", script, NULL);
	v = jd_json(&r);
	ck_assert_int_eq(jbool(v, "success"), 1);
	ck_assert_int_eq(jbool(v, "timed_out"), 0);
	ck_assert_str_eq(jstr(v, "stdout"), "hi\n");
	held = read_pid(dir, "held");
	ck_assert(is_dead(held));
	snprintf(path, sizeof path, "%s/term", dir);
	ck_assert_msg(access(path, F_OK) == 0, "the child that held stdout "
	    "got no SIGTERM");
	res_free(&r);

	/*
	 * One lets go of the output: the run ends at once, and the child
	 * is killed as it ends.
	 */
	snprintf(script, sizeof script, "sleep 100 >/dev/null 2>&1 & "
	    "echo $! > %s/detached; echo hi", dir);
	jd(&r, "--json", "--", "sh", "-c", script, NULL);
	v = jd_json(&r);
	ck_assert_int_eq(jbool(v, "success"), 1);
	detached = read_pid(dir, "detached");
	ck_assert_msg(is_dead(detached), "the detached child %d outlives "
	    "the run", detached);
	res_free(&r);
	rmtree(dir);
}
END_TEST

/*
 * What leaves the run's process group (setsid -f, with or without the
 * output) is gone once jobdeck run returns: by a cgroup (as root) and by
 * the JOBDECK_JOB marker alone (JOBDECK_NO_CGROUP=1); a run's child
 * carries its own marker, whatever marker jobdeck had.
 */
START_TEST(test_escapee_gone)
{
	struct res		 r;
	const struct jsonread	*v;
	char			 arg[32], script[256], mine[128], *p;
	char			 stat[1024];
	unsigned long long	 start = 0;
	FILE			*f;
	size_t			 n;
	int			 field;

	/*
	 * A marker of a live deck (this test's pid and start time: a dead
	 * one's would be swept by any deck starting meanwhile).
	 */
	ck_assert_ptr_nonnull(f = fopen("/proc/self/stat", "r"));
	n = fread(stat, 1, sizeof stat - 1, f);
	fclose(f);
	stat[n] = '\0';
	ck_assert_ptr_nonnull(p = strrchr(stat, ')'));
	for (field = 2; field < 22 && p != NULL; field++)
		p = strchr(p + 1, ' ');
	ck_assert_ptr_nonnull(p);
	start = strtoull(p + 1, NULL, 10);
	snprintf(mine, sizeof mine, "jobdeck.%ld.%llu/job-1-1",
	    (long)getpid(), start);
	if (_i == 1)
		setenv("JOBDECK_NO_CGROUP", "1", 1);
	setenv("JOBDECK_JOB", mine, 1);
	snprintf(arg, sizeof arg, "4441%05d", (int)(getpid() % 100000));
	snprintf(script, sizeof script, "setsid -f sleep %s; "
	    "setsid -f sleep %s >/dev/null 2>&1 </dev/null; "
	    "echo \"$JOBDECK_JOB\"", arg, arg);
	jd(&r, "--json", "--", "sh", "-c", script, NULL);
	unsetenv("JOBDECK_NO_CGROUP");
	unsetenv("JOBDECK_JOB");
	v = jd_json(&r);
	ck_assert_int_eq(jbool(v, "success"), 1);
	ck_assert_msg(testproc_sleeps(arg, NULL) == 0, "%d `sleep %s` "
	    "outlive jobdeck run", testproc_sleeps(arg, NULL), arg);
	*strchr(mine, '/') = '\0';
	ck_assert_msg(strncmp(jstr(v, "stdout"), "jobdeck.", 8) == 0 &&
	    strstr(jstr(v, "stdout"), mine) == NULL, "marker %s",
	    jstr(v, "stdout"));
	res_free(&r);

	/* Pass-through, and a run that times out. */
	snprintf(script, sizeof script, "setsid -f sleep %s; sleep 30", arg);
	if (_i == 1)
		setenv("JOBDECK_NO_CGROUP", "1", 1);
	jd(&r, "--timeout", "0.5", "--", "sh", "-c", script, NULL);
	unsetenv("JOBDECK_NO_CGROUP");
	ck_assert_int_eq(r.status, 124);
	ck_assert_msg(testproc_sleeps(arg, NULL) == 0, "%d `sleep %s` "
	    "outlive jobdeck run's timeout", testproc_sleeps(arg, NULL), arg);
	res_free(&r);
}
END_TEST

START_TEST(test_signal_to_jobdeck)
{
	const char	*args[] = { "--", "sh", "-c",
	    "trap 'echo got TERM; exit 5' TERM; echo ready;"
	    " while :; do sleep 0.05; done", NULL };
	struct proc	 p;
	struct res	 r;

	char		 buf[6];
	size_t		 got = 0;
	ssize_t		 n;

	/* SIGTERM to jobdeck goes on to the job, whose status is ours. */
	jd_start_v(&p, args);
	while (got < sizeof buf && (n = read(p.out_fd, buf + got,
	    sizeof buf - got)) > 0)
		got += (size_t)n;
	ck_assert(got == sizeof buf && memcmp(buf, "ready\n", 6) == 0);
	ck_assert_int_eq(kill(p.pid, SIGTERM), 0);
	jd_wait(&p, &r);
	ck_assert_int_eq(r.status, 5);
	ck_assert_str_eq(r.out, "got TERM\n");
	res_free(&r);
}
END_TEST

/*
 * Start `jobdeck run ARGS... -- sh -c 'echo $$ > DIR/pid; exec yes x'`
 * (args NULL-terminated, at most 4) with its stdout on a pipe this test
 * never reads; return the pid of yes.
 */
static pid_t
jd_start_stalled(struct proc *p, const char *dir, const char *const *args)
{
	const char	*argv[MAX_ARGS];
	char		 script[160];
	int		 n = 0;

	snprintf(script, sizeof script, "echo $$ > %s/pid; exec yes x", dir);
	for (; *args != NULL && n < 4; args++)
		argv[n++] = *args;
	argv[n++] = "--";
	argv[n++] = "sh";
	argv[n++] = "-c";
	argv[n++] = script;
	argv[n] = NULL;
	jd_start_v(p, argv);
	p->stall_out = 1;
	return read_pid(dir, "pid");
}

/*
 * Nobody reads jobdeck's stdout: the timeout still stops the job, and
 * jobdeck ends about as soon as the job does, with 124.
 */
START_TEST(test_stalled_reader_timeout)
{
	const char	*args[] = { "--timeout", "2", NULL };
	struct proc	 p;
	struct res	 r;
	char		 dir[64];
	pid_t		 yes;

	tmpdir(dir);
	yes = jd_start_stalled(&p, dir, args);
	jd_wait_ms(&p, &r, 15000);
	ck_assert_int_eq(r.status, 124);
	ck_assert_str_eq(r.err, "jobdeck: timed out after 2 s\n");
	ck_assert_msg(is_dead(yes), "yes (%d) outlives jobdeck run", yes);
	res_free(&r);
	rmtree(dir);
}
END_TEST

/* SIGTERM to jobdeck whose stdout is stalled: the job ends, and so do we. */
START_TEST(test_stalled_reader_signal)
{
	const char	*args[] = { NULL };
	struct proc	 p;
	struct res	 r;
	char		 dir[64];
	pid_t		 yes;

	tmpdir(dir);
	yes = jd_start_stalled(&p, dir, args);
	wait_pipe_full(p.out_fd);
	ck_assert_int_eq(kill(p.pid, SIGTERM), 0);
	jd_wait_ms(&p, &r, 15000);
	ck_assert_int_eq(r.status, 128 + SIGTERM);
	ck_assert_msg(is_dead(yes), "yes (%d) outlives jobdeck run", yes);
	res_free(&r);
	rmtree(dir);
}
END_TEST

/*
 * With --json, a reader that never takes the result: jobdeck gives up
 * after its bounded wait (5 s of no progress) with 125, having written
 * only what the pipe holds of the result.
 */
START_TEST(test_stalled_reader_json)
{
	struct proc	 p;
	struct res	 r;
	const char	*args[] = { "--json", "--", "head", "-c", "1000000",
	    "/dev/zero", NULL };
	static char	 buf[1 << 20];
	size_t		 got = 0;
	ssize_t		 n;
	int		 keep;

	/* 1 MB of NULs is 6 MB of JSON: more than a pipe holds. */
	jd_start_v(&p, args);
	p.stall_out = 1;
	ck_assert_int_ge(keep = dup(p.out_fd), 0);
	wait_pipe_full(p.out_fd);
	jd_wait_ms(&p, &r, 30000);
	ck_assert_int_eq(r.status, 125);
	/* What it wrote before it gave up: a start, never the whole. */
	while (got < sizeof buf && (n = read(keep, buf + got,
	    sizeof buf - got)) > 0)
		got += (size_t)n;
	close(keep);
	ck_assert_msg(got > 0 && got < 1000000 && buf[0] == '{' &&
	    buf[got - 1] != '\n', "%zu bytes of the result were written",
	    got);
	res_free(&r);
}
END_TEST

/* Read fd until its end or max bytes; return the count. */
static size_t
drain_fd(int fd, size_t max)
{
	char	buf[65536];
	size_t	got = 0;
	ssize_t	n;

	while (got < max && ((n = read(fd, buf, sizeof buf)) > 0 ||
	    (n == -1 && errno == EINTR)))
		got += n > 0 ? (size_t)n : 0;
	return got;
}

/*
 * A slow reader (one that starts late) loses nothing, in pass-through
 * mode and with --json; one that goes away makes the job's writes fail
 * (SIGPIPE), and the job's status is ours.
 */
START_TEST(test_slow_reader_and_gone)
{
	const char	*seq[] = { "--", "seq", "1", "300000", NULL };
	const char	*json[] = { "--json", "--", "head", "-c", "1000000",
	    "/dev/zero", NULL };
	const char	*args[] = { NULL };
	struct proc	 p;
	struct res	 r;
	char		 dir[64];
	size_t		 got;
	pid_t		 yes;

	/* seq 1 300000 writes 1,988,895 bytes. */
	jd_start_v(&p, seq);
	wait_pipe_full(p.out_fd);
	got = drain_fd(p.out_fd, SIZE_MAX);
	p.stall_out = 1;	/* read already */
	jd_wait(&p, &r);
	ck_assert_int_eq(r.status, 0);
	ck_assert_uint_eq(got, 1988895);
	res_free(&r);

	jd_start_v(&p, json);
	wait_pipe_full(p.out_fd);
	got = drain_fd(p.out_fd, SIZE_MAX);
	p.stall_out = 1;
	jd_wait(&p, &r);
	ck_assert_int_eq(r.status, 0);
	ck_assert_msg(got > 6000000, "%zu bytes of JSON", got);
	res_free(&r);

	tmpdir(dir);
	yes = jd_start_stalled(&p, dir, args);
	ck_assert(drain_fd(p.out_fd, 100000) >= 100000);
	close(p.out_fd);
	p.out_fd = -1;		/* gone: jd_wait reads stderr alone */
	jd_wait_ms(&p, &r, 15000);
	ck_assert_int_eq(r.status, 128 + SIGPIPE);
	ck_assert_msg(is_dead(yes), "yes (%d) outlives jobdeck run", yes);
	res_free(&r);
	rmtree(dir);
}
END_TEST

/* The configuration of the configured-job tests; %s is a directory. */
static const char config_text[] =
    "[settings]\n"
    "kill_timeout = 60\n"
    "\n"
    "[[job]]\n"
    "name = \"greet\"\n"
    "command = \"echo {who} $GREETING ${EXTRA:-none}; pwd -P\"\n"
    "params = { who = \"world\" }\n"
    "env = { GREETING = \"hello\" }\n"
    "cwd = \"%s\"\n"
    "\n"
    "[[job]]\n"
    "name = \"words\"\n"
    "command = \"printf\"\n"
    "args = [\"%%s|\", \"{a}\", \"${GREETING:-none}\"]\n"
    "params = { a = \"x y\" }\n"
    "env = { GREETING = \"hi\" }\n"
    "\n"
    "[[job]]\n"
    "name = \"slow\"\n"
    "command = \"trap 'sleep 2.5; echo finished; exit 7' TERM; "
    "sleep 30\"\n"
    "timeout = 0.4\n"
    "\n"
    "[[job]]\n"
    "name = \"reader\"\n"
    "command = \"read x; echo got:$x\"\n"
    "input = \"from-config\\n\"\n";

/* Write the test configuration (mode 0600) into dir; its path in path. */
static void
write_config(char *path, const char *dir)
{
	char	text[2048];

	snprintf(text, sizeof text, config_text, dir);
	write_file(path, dir, "config.toml", text, 0600);
}

START_TEST(test_config_job_params_env_cwd)
{
	struct res		 r;
	const struct jsonread	*v;
	char			 dir[64], cfg[256], want[160];

	tmpdir(dir);
	write_config(cfg, dir);
	jd(&r, "-c", cfg, "--json", "greet", NULL);
	v = jd_json(&r);
	snprintf(want, sizeof want, "world hello none\n%s\n", dir);
	ck_assert_str_eq(jstr(v, "stdout"), want);
	res_free(&r);

	/* --param fills {who} (quoted for the shell); --env reaches ${...}. */
	jd(&r, "-c", cfg, "--json", "--param", "who=a 'b'; c", "--env",
	    "EXTRA=more", "--env", "GREETING=hey", "--cwd", "/", "greet",
	    NULL);
	v = jd_json(&r);
	ck_assert_str_eq(jstr(v, "stdout"), "a 'b'; c hey more\n/\n");
	res_free(&r);
	rmtree(dir);
}
END_TEST

/*
 * A job's env_file is read from beside the config file, wherever jobdeck
 * run is started (before, it was read from the working directory).
 */
START_TEST(test_config_env_file_beside)
{
	struct res		 r;
	const struct jsonread	*v;
	char			 dir[64], cfg[256], envp[256];

	tmpdir(dir);
	write_file(envp, dir, "vars.env", "FROM_FILE='beside the config'\n",
	    0600);
	write_file(cfg, dir, "config.toml", "[[job]]\nname = \"show\"\n"
	    "command = \"echo $FROM_FILE\"\nenv_file = [\"vars.env\"]\n",
	    0600);
	jd(&r, "-c", cfg, "--json", "show", NULL);
	v = jd_json(&r);
	ck_assert_str_eq(jstr(v, "stdout"), "beside the config\n");
	res_free(&r);
	rmtree(dir);
}
END_TEST

START_TEST(test_config_job_args)
{
	struct res		 r;
	const struct jsonread	*v;
	char			 dir[64], cfg[256];

	tmpdir(dir);
	write_config(cfg, dir);
	jd(&r, "-c", cfg, "--json", "words", NULL);
	v = jd_json(&r);
	ck_assert_str_eq(jstr(v, "stdout"), "x y|hi|");
	res_free(&r);

	jd(&r, "-c", cfg, "--json", "--param", "a=$(id)", "words", NULL);
	v = jd_json(&r);
	ck_assert_str_eq(jstr(v, "stdout"), "$(id)|hi|");
	res_free(&r);
	rmtree(dir);
}
END_TEST

START_TEST(test_config_job_timeout_and_input)
{
	struct res		 r;
	const struct jsonread	*v;
	char			 dir[64], cfg[256];

	tmpdir(dir);
	write_config(cfg, dir);
	/*
	 * timeout = 0.4 from the job, kill_timeout = 60 as the grace: the
	 * job's trap takes 2.5 s, longer than the 2 s grace of a run
	 * without a configuration, and it ends as it says.
	 */
	jd(&r, "-c", cfg, "--json", "slow", NULL);
	v = jd_json(&r);
	ck_assert_int_eq(jbool(v, "timed_out"), 1);
	ck_assert_ptr_nonnull(strstr(jstr(v, "stderr"),
	    "timed out after 0.4 s"));
	ck_assert_str_eq(jstr(v, "stdout"), "finished\n");
	/* Timed out, though it exited 7 by itself (no signal). */
	ck_assert(jnum(v, "return_code") == 124);
	ck_assert_int_eq(jsonread_type(jsonread_get(v, "signal")),
	    JSONREAD_NULL);
	ck_assert(jnum(v, "duration_ms") >= 400);
	res_free(&r);

	jd(&r, "-c", cfg, "--json", "reader", NULL);
	v = jd_json(&r);
	ck_assert_str_eq(jstr(v, "stdout"), "got:from-config\n");
	res_free(&r);

	/* The options win over the job's. */
	jd(&r, "-c", cfg, "--json", "--input", "mine\n", "reader", NULL);
	v = jd_json(&r);
	ck_assert_str_eq(jstr(v, "stdout"), "got:mine\n");
	res_free(&r);
	jd(&r, "-c", cfg, "--json", "--timeout", "0.2", "slow", NULL);
	v = jd_json(&r);
	ck_assert_ptr_nonnull(strstr(jstr(v, "stderr"),
	    "timed out after 0.2 s"));
	res_free(&r);
	rmtree(dir);
}
END_TEST

/*
 * {name} values are quoted for sh: a command string whose shell may read
 * quotes otherwise (fish, csh, ...) does not get them, since a value could
 * end its quoting there.  Commands without a value still run in it.
 */
START_TEST(test_config_job_params_other_shell)
{
	static const char text[] =
	    "[settings]\n"
	    "shell = \"%s\"\n"
	    "[[job]]\n"
	    "name = \"greet\"\n"
	    "command = \"echo hello {who}\"\n"
	    "params = { who = \"world\" }\n"
	    "[[job]]\n"
	    "name = \"plain\"\n"
	    "command = \"echo plain {nothing}\"\n";
	const struct jsonread	*v;
	struct res		 r;
	char			 dir[64], cfg[256], sh[256], buf[1024];
	char			 evil[300];

	tmpdir(dir);
	/* A shell of another family, here a stand-in that runs sh. */
	write_file(sh, dir, "fish", "#!/bin/sh\nexec /bin/sh \"$@\"\n", 0700);
	snprintf(buf, sizeof buf, text, sh);
	write_file(cfg, dir, "config.toml", buf, 0600);
	/* Refused when the file is read, with the place, whatever job runs. */
	jd(&r, "-c", cfg, "--json", "plain", NULL);
	ck_assert_int_eq(r.status, 2);
	ck_assert_msg(strstr(r.err, ":5:11: command: ") != NULL &&
	    strstr(r.err, "not a POSIX shell") != NULL, "stderr: %s", r.err);
	ck_assert_str_eq(r.out, "");
	res_free(&r);

	/* Without a parameter in it, a shell of another family is fine. */
	snprintf(buf, sizeof buf, "[settings]\nshell = \"%s\"\n[[job]]\n"
	    "name = \"plain\"\ncommand = \"echo plain {nothing}\"\n", sh);
	write_file(cfg, dir, "config.toml", buf, 0600);
	jd(&r, "-c", cfg, "--json", "plain", NULL);
	v = jd_json(&r);
	ck_assert_str_eq(jstr(v, "stdout"), "plain {nothing}\n");
	res_free(&r);

	/* The real thing, where it is installed: no way out of the quotes. */
	if (access("/usr/bin/fish", X_OK) == 0) {
		snprintf(buf, sizeof buf, text, "/usr/bin/fish");
		write_file(cfg, dir, "config.toml", buf, 0600);
		snprintf(evil, sizeof evil, "who=\\';touch %s/pwned;#", dir);
		jd(&r, "-c", cfg, "--json", "--param", evil, "greet", NULL);
		ck_assert_int_eq(r.status, 2);
		res_free(&r);
		snprintf(buf, sizeof buf, "%s/pwned", dir);
		ck_assert_msg(access(buf, F_OK) != 0, "a parameter ran a "
		    "command in fish");
	}
	rmtree(dir);
}
END_TEST

START_TEST(test_config_errors)
{
	struct res	 r;
	char		 dir[64], cfg[256], path[256];

	tmpdir(dir);
	write_config(cfg, dir);
	jd(&r, "-c", cfg, "--json", "nosuchjob", NULL);
	ck_assert_int_eq(r.status, 2);
	ck_assert_str_eq(r.err, "jobdeck run: no configured job named "
	    "nosuchjob\n");
	ck_assert_str_eq(r.out, "");
	res_free(&r);

	write_file(path, dir, "bad.toml", "[settings]\nkill_timeout = 1\n"
	    "oops\n", 0600);
	jd(&r, "-c", path, "greet", NULL);
	ck_assert_int_eq(r.status, 2);
	ck_assert_msg(strncmp(r.err, "jobdeck: ", 9) == 0 &&
	    strstr(r.err, "bad.toml:3:") != NULL, "%s", r.err);
	res_free(&r);

	jd(&r, "-c", cfg, "--param", "nokey", "greet", NULL);
	ck_assert_int_eq(r.status, 2);
	ck_assert_ptr_nonnull(strstr(r.err, "jobdeck run: --param: expected "
	    "key=value, not 'nokey'"));
	res_free(&r);

	/* -c applies to -- PROGRAM too, errors included. */
	jd(&r, "-c", path, "--", "true", NULL);
	ck_assert_int_eq(r.status, 2);
	res_free(&r);
	rmtree(dir);
}
END_TEST

START_TEST(test_pass_through)
{
	struct res	r;

	jd(&r, "--", "echo", "hi", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_str_eq(r.out, "hi\n");
	ck_assert_str_eq(r.err, "");
	res_free(&r);

	jd(&r, "--", "sh", "-c", "echo out; echo err >&2; exit 3", NULL);
	ck_assert_int_eq(r.status, 3);
	ck_assert_str_eq(r.out, "out\n");
	ck_assert_str_eq(r.err, "err\n");
	res_free(&r);
}
END_TEST

START_TEST(test_pass_through_statuses)
{
	struct res	 r;
	char		 dir[64], path[256];

	jd(&r, "--", "sh", "-c", "kill -9 $$", NULL);
	ck_assert_int_eq(r.status, 128 + 9);
	res_free(&r);

	jd(&r, "--", "no-such-program-jd", NULL);
	ck_assert_int_eq(r.status, 127);
	ck_assert_str_eq(r.err, "no-such-program-jd: not found\n");
	res_free(&r);

	tmpdir(dir);
	write_file(path, dir, "script", "#!/bin/sh\necho ran\n", 0644);
	jd(&r, "--", path, NULL);
	ck_assert_int_eq(r.status, 126);
	ck_assert_ptr_nonnull(strstr(r.err, "Permission denied"));
	res_free(&r);
	rmtree(dir);

	jd(&r, "--timeout", "0.3", "--", "sh", "-c", "echo a; sleep 30", NULL);
	ck_assert_int_eq(r.status, 124);
	ck_assert_str_eq(r.out, "a\n");
	ck_assert_str_eq(r.err, "jobdeck: timed out after 0.3 s\n");
	res_free(&r);

	jd(&r, "--timeout", "0", "--", "sh", "-c", "sleep 0.1", NULL);
	ck_assert_int_eq(r.status, 0);
	res_free(&r);
}
END_TEST

/* One usage error: the arguments and a part of the message. */
static const struct {
	const char	*args[6];
	const char	*want;
} usage_cases[] = {
	{ { "--frobnicate", "--", "true" }, "unknown option '--frobnicate'" },
	{ { "-x", "--", "true" }, "unknown option '-x'" },
	{ { "--json" }, "no command" },
	{ { "--json", "--" }, "no command" },
	{ { "--env", "NOEQUALS", "--", "true" }, "--env wants NAME=VALUE" },
	{ { "--env", "=x", "--", "true" }, "--env wants NAME=VALUE" },
	{ { "--timeout", "soon", "--", "true" }, "--timeout wants seconds" },
	{ { "--timeout", "-1", "--", "true" }, "--timeout wants seconds" },
	{ { "--timeout" }, "option '--timeout' needs a value" },
	{ { "--param", "a=b", "--", "true" }, "--param fills" },
	{ { "job", "extra" }, "unexpected 'extra'" },
	{ { "--host", "-oProxyCommand=x", "--", "true" },
	  "jobdeck run: --host: host \"-oProxyCommand=x\": not a [hosts] "
	  "name or an ssh destination" },
	{ { "--host", "a b", "--", "true" }, "--host: host \"a b\": not a" },
	{ { "--host", "me@", "--", "true" }, "--host: host \"me@\": not a" },
	{ { "--host" }, "option '--host' needs a value" },
};

START_TEST(test_usage_errors)
{
	struct proc	p;
	struct res	r;

	jd_start_v(&p, usage_cases[_i].args);
	jd_wait(&p, &r);
	ck_assert_int_eq(r.status, 2);
	ck_assert_msg(strstr(r.err, usage_cases[_i].want) != NULL,
	    "case %d: %s", _i, r.err);
	ck_assert_msg(strstr(r.err, "usage: jobdeck run") != NULL ||
	    strstr(r.err, "no configured job") != NULL, "case %d: %s", _i,
	    r.err);
	ck_assert_str_eq(r.out, "");
	res_free(&r);
}
END_TEST

START_TEST(test_help)
{
	struct res	r;

	jd(&r, "-h", NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_ptr_nonnull(strstr(r.out, "usage: jobdeck run"));
	res_free(&r);

	/* "--" as an option's value does not start PROGRAM. */
	jd(&r, "-c", "/dev/null", "--json", "--cwd", "--", "sh", NULL);
	ck_assert_int_eq(r.status, 2);
	ck_assert_ptr_nonnull(strstr(r.err, "no configured job named sh"));
	res_free(&r);
}
END_TEST

/*
 * While what the leader left holds the output (the linger grace, 60 s
 * from the configuration), the leader that exited stays a zombie of
 * jobdeck's: its pid, the group's id, cannot be reused while the group
 * may still be signalled.  Then the holder ends, and so does the run.
 */
START_TEST(test_leader_held_while_lingering)
{
	const char		*args[9];
	struct proc		 p;
	struct res		 r;
	const struct jsonread	*v;
	char			 dir[64], cfg[256], script[512], path[256];
	long long		 end;
	long			 ppid = 0;
	pid_t			 leader;
	int			 state;

	tmpdir(dir);
	write_config(cfg, dir);
	snprintf(script, sizeof script, "echo $$ > %s/pid; (while [ ! -e "
	    "%s/go ]; do sleep 0.05; done; echo late) & echo hi", dir, dir);
	args[0] = "-c";
	args[1] = cfg;
	args[2] = "--json";
	args[3] = "--";
	args[4] = "sh";
	args[5] = "-c";
	args[6] = script;
	args[7] = NULL;
	jd_start_v(&p, args);
	leader = read_pid(dir, "pid");
	end = now_ms() + WAIT_MS / 2;
	while ((state = testproc_state(leader, &ppid)) != 0 && state != 'Z' &&
	    now_ms() < end)
		usleep(10000);
	ck_assert_msg(state == 'Z' && ppid == (long)p.pid, "the leader %d "
	    "(state %c, parent %ld) is not a zombie of jobdeck run's (%d) "
	    "while its group holds the output", (int)leader,
	    state != 0 ? state : '-', ppid, (int)p.pid);
	write_file(path, dir, "go", "", 0600);
	jd_wait(&p, &r);
	v = jd_json(&r);
	ck_assert_int_eq(jbool(v, "success"), 1);
	ck_assert_str_eq(jstr(v, "stdout"), "hi\nlate\n");
	res_free(&r);
	rmtree(dir);
}
END_TEST

/*
 * A second signal to jobdeck while the grace runs (60 s, from the
 * configuration) sends SIGKILL at once: a job that ignores SIGTERM ends
 * killed (137), long before its grace would be over.
 */
START_TEST(test_second_signal_kills)
{
	const char	*args[8];
	struct proc	 p;
	struct res	 r;
	char		 dir[64], cfg[256], buf[64];
	size_t		 got = 0;
	ssize_t		 n;

	tmpdir(dir);
	write_config(cfg, dir);
	args[0] = "-c";
	args[1] = cfg;
	args[2] = "--";
	args[3] = "sh";
	args[4] = "-c";
	args[5] = "trap 'echo term' TERM; echo ready; while :; do sleep 0.05;"
	    " done";
	args[6] = NULL;
	jd_start_v(&p, args);
	while (got < 6 && (n = read(p.out_fd, buf + got, 6 - got)) > 0)
		got += (size_t)n;
	ck_assert(got == 6 && memcmp(buf, "ready\n", 6) == 0);
	ck_assert_int_eq(kill(p.pid, SIGTERM), 0);
	got = 0;
	while (got < 5 && (n = read(p.out_fd, buf + got, 5 - got)) > 0)
		got += (size_t)n;
	ck_assert(got == 5 && memcmp(buf, "term\n", 5) == 0);
	ck_assert_int_eq(kill(p.pid, SIGTERM), 0);
	jd_wait_ms(&p, &r, WAIT_MS / 2);
	ck_assert_int_eq(r.status, 128 + SIGKILL);
	res_free(&r);
	rmtree(dir);
}
END_TEST

/* Build the run suite. */
static Suite *
run_suite(void)
{
	Suite	*s = suite_create("run");
	TCase	*tc;

	tc = tcase_create("json");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_json_success);
	tcase_add_test(tc, test_json_run_kept);
	tcase_add_test(tc, test_json_exit_code);
	tcase_add_test(tc, test_json_streams_apart);
	tcase_add_test(tc, test_json_signal);
	tcase_add_test(tc, test_json_not_found);
	tcase_add_test(tc, test_json_permission_denied);
	tcase_add_test(tc, test_json_not_started);
	tcase_add_test(tc, test_json_input);
	tcase_add_test(tc, test_json_input_never_read);
	tcase_add_test(tc, test_json_big_output_both_streams);
	tcase_add_test(tc, test_json_invalid_utf8);
	tcase_add_test(tc, test_json_env_and_cwd);
	tcase_add_test(tc, test_json_no_fd_leak);
	suite_add_tcase(s, tc);

	tc = tcase_create("ending");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_json_timeout_kills_group);
	tcase_add_test(tc, test_json_timeout_sigkill_after_grace);
	tcase_add_test(tc, test_output_held_by_background);
	tcase_add_test(tc, test_leader_held_while_lingering);
	tcase_add_test(tc, test_second_signal_kills);
	tcase_add_loop_test(tc, test_escapee_gone, 0, 2);
	tcase_add_test(tc, test_signal_to_jobdeck);
	suite_add_tcase(s, tc);

	tc = tcase_create("stalled");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_stalled_reader_timeout);
	tcase_add_test(tc, test_stalled_reader_signal);
	tcase_add_test(tc, test_stalled_reader_json);
	tcase_add_test(tc, test_slow_reader_and_gone);
	suite_add_tcase(s, tc);

	tc = tcase_create("config");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_config_job_params_env_cwd);
	tcase_add_test(tc, test_config_job_args);
	tcase_add_test(tc, test_config_env_file_beside);
	tcase_add_test(tc, test_config_job_timeout_and_input);
	tcase_add_test(tc, test_config_errors);
	tcase_add_test(tc, test_config_job_params_other_shell);
	suite_add_tcase(s, tc);

	tc = tcase_create("pass-through");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_pass_through);
	tcase_add_test(tc, test_pass_through_statuses);
	tcase_add_loop_test(tc, test_usage_errors, 0,
	    sizeof usage_cases / sizeof usage_cases[0]);
	tcase_add_test(tc, test_help);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite; exit non-zero if any test failed. */
int
main(void)
{
	SRunner	*sr = srunner_create(run_suite());
	char	 cmd[128];
	int	 failed;

	/* Runs are kept in the store: a private one, not the user's. */
	if (mkdtemp(run_state) == NULL) {
		perror("mkdtemp");
		return EXIT_FAILURE;
	}
	setenv("XDG_STATE_HOME", run_state, 1);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	snprintf(cmd, sizeof cmd, "rm -rf %s", run_state);
	if (system(cmd) != 0)
		fprintf(stderr, "cleanup of %s failed\n", run_state);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

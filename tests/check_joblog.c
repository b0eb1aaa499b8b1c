/*
 * check_joblog.c: tests for the job log on real files and directories:
 * appending, modes, nested creation, a full disk (/dev/full), writes cut
 * short by signals, and the default directory.
 */
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "joblog.h"
#include "store.h"

static char	base[64];

/* Make a fresh temporary directory for each test, with umask 022. */
static void
setup(void)
{
	umask(022);
	strcpy(base, "/tmp/check_joblog.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(base));
}

/* Remove the test's directory. */
static void
teardown(void)
{
	char	cmd[256];

	snprintf(cmd, sizeof cmd, "chmod -R u+rwx %s; rm -rf %s", base, base);
	if (system(cmd) != 0)
		fprintf(stderr, "cleanup of %s failed\n", base);
}

/* Read a whole small file into buf; return its length. */
static size_t
slurp(const char *path, char *buf, size_t size)
{
	int	fd;
	ssize_t	n;
	size_t	len = 0;

	fd = open(path, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	while ((n = read(fd, buf + len, size - len - 1)) > 0)
		len += (size_t)n;
	buf[len] = '\0';
	close(fd);
	return len;
}

/* Return the permission bits of path. */
static mode_t
mode_of(const char *path)
{
	struct stat	sb;

	ck_assert_int_eq(stat(path, &sb), 0);
	return sb.st_mode & 07777;
}

START_TEST(test_open_creates_nested_dirs_and_modes)
{
	struct joblog	*jl;
	char		 dir[128], p[160], *cause = NULL;

	ck_assert_int_eq(mkdir(strcat(strcpy(p, base), "/keep"), 0755), 0);
	snprintf(dir, sizeof dir, "%s/keep/a//b/c/", base);
	jl = joblog_open(dir, "1.log", &cause);
	ck_assert_msg(jl != NULL, "%s", cause);
	snprintf(p, sizeof p, "%s/keep/a//b/c/1.log", base);
	ck_assert_str_eq(joblog_path(jl), p);
	ck_assert_ptr_null(joblog_error(jl));
	ck_assert_int_eq(joblog_size(jl), 0);

	/* Created directories are 0700, existing ones untouched; file 0600. */
	snprintf(p, sizeof p, "%s/keep", base);
	ck_assert_int_eq(mode_of(p), 0755);
	snprintf(p, sizeof p, "%s/keep/a", base);
	ck_assert_int_eq(mode_of(p), 0700);
	snprintf(p, sizeof p, "%s/keep/a/b", base);
	ck_assert_int_eq(mode_of(p), 0700);
	snprintf(p, sizeof p, "%s/keep/a/b/c", base);
	ck_assert_int_eq(mode_of(p), 0700);
	snprintf(p, sizeof p, "%s/keep/a/b/c/1.log", base);
	ck_assert_int_eq(mode_of(p), 0600);

	/* The fd is close-on-exec: a child does not inherit the log. */
	ck_assert_int_eq(system("for f in /proc/$$/fd/*; do"
	    " case $(readlink $f) in *1.log) exit 1;; esac; done; exit 0"), 0);
	joblog_close(jl);
}
END_TEST

START_TEST(test_append_and_size)
{
	struct joblog	*jl;
	char		 p[160], buf[256], *cause = NULL;

	snprintf(p, sizeof p, "%s/x.log", base);
	jl = joblog_open(base, "x.log", &cause);
	ck_assert_ptr_nonnull(jl);
	ck_assert_int_eq(joblog_write(jl, "hello ", 6), 0);
	ck_assert_int_eq(joblog_write(jl, "", 0), 0);
	ck_assert_int_eq(joblog_write(jl, "world\n", 6), 0);
	ck_assert_int_eq(joblog_size(jl), 12);
	ck_assert_int_eq(slurp(p, buf, sizeof buf), 12);
	ck_assert_str_eq(buf, "hello world\n");
	joblog_close(jl);

	/* Reopening appends, and the size counts what was there. */
	jl = joblog_open(base, "x.log", &cause);
	ck_assert_ptr_nonnull(jl);
	ck_assert_int_eq(joblog_size(jl), 12);
	ck_assert_int_eq(joblog_write(jl, "\0\x01\xff", 3), 0);
	ck_assert_int_eq(joblog_size(jl), 15);
	ck_assert_int_eq(slurp(p, buf, sizeof buf), 15);
	ck_assert_mem_eq(buf, "hello world\n\0\x01\xff", 15);
	joblog_close(jl);
}
END_TEST

/* Count this process's open descriptors. */
static int
count_fds(void)
{
	DIR		*d = opendir("/proc/self/fd");
	struct dirent	*de;
	int		 n = 0;

	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d)) != NULL)
		n += de->d_name[0] != '.';
	closedir(d);
	return n - 1;	/* the directory's own fd */
}

/* An idle log holds no descriptor and opens again on the next write. */
START_TEST(test_idle_closes_and_reopens)
{
	struct joblog	*jl;
	char		 p[160], buf[256], *cause = NULL;
	int		 before;

	snprintf(p, sizeof p, "%s/idle.log", base);
	before = count_fds();
	jl = joblog_open(base, "idle.log", &cause);
	ck_assert_ptr_nonnull(jl);
	ck_assert_int_eq(count_fds(), before + 1);
	ck_assert_int_eq(joblog_write(jl, "run 1\n", 6), 0);
	joblog_idle(jl);
	ck_assert_int_eq(count_fds(), before);
	ck_assert_str_eq(joblog_path(jl), p);
	ck_assert_int_eq(joblog_write(jl, "run 2\n", 6), 0);
	ck_assert_int_eq(count_fds(), before + 1);
	ck_assert_int_eq(joblog_size(jl), 12);
	ck_assert_int_eq(slurp(p, buf, sizeof buf), 12);
	ck_assert_str_eq(buf, "run 1\nrun 2\n");
	ck_assert_ptr_null(joblog_error(jl));

	/* The directory went away meanwhile: logging is off, with why. */
	joblog_idle(jl);
	ck_assert_int_eq(unlink(p), 0);
	ck_assert_int_eq(chmod(base, 0500), 0);
	if (geteuid() != 0) {
		ck_assert_int_eq(joblog_write(jl, "run 3\n", 6), -1);
		ck_assert_ptr_nonnull(strstr(joblog_error(jl),
		    "Permission denied"));
	}
	ck_assert_int_eq(chmod(base, 0700), 0);
	joblog_close(jl);
	ck_assert_int_eq(count_fds(), before);
}
END_TEST

/* A directory others may write to, and a log that is a link, are refused. */
START_TEST(test_unsafe_dir_and_link)
{
	struct joblog	*jl;
	char		 p[160], t[160], want[240], *cause = NULL;

	snprintf(p, sizeof p, "%s/open", base);
	ck_assert_int_eq(mkdir(p, 0700), 0);
	ck_assert_int_eq(chmod(p, 0777), 0);
	jl = joblog_open(p, "x.log", &cause);
	ck_assert_ptr_null(jl);
	snprintf(want, sizeof want, "%s: writable by group or others "
	    "(mode 0777)", p);
	ck_assert_str_eq(cause, want);
	free(cause);

	snprintf(t, sizeof t, "%s/target", base);
	snprintf(p, sizeof p, "%s/link.log", base);
	ck_assert_int_eq(symlink(t, p), 0);
	jl = joblog_open(base, "link.log", &cause);
	ck_assert_ptr_null(jl);
	ck_assert_ptr_nonnull(strstr(cause, "link.log"));
	free(cause);
	ck_assert_int_eq(access(t, F_OK), -1);
}
END_TEST

START_TEST(test_full_disk_turns_log_off)
{
	struct joblog	*jl;
	struct rlimit	 rl, old;
	char		 p[160], want[200], *cause = NULL;

	/* A file size limit of 0 fails every write, as a full disk does. */
	snprintf(p, sizeof p, "%s/full.log", base);
	jl = joblog_open(base, "full.log", &cause);
	ck_assert_msg(jl != NULL, "%s", cause);
	signal(SIGXFSZ, SIG_IGN);
	ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
	rl = old;
	rl.rlim_cur = 0;
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
	ck_assert_int_eq(joblog_write(jl, "data", 4), -1);
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_DFL);
	snprintf(want, sizeof want, "log disabled: %s: %s", p,
	    strerror(EFBIG));
	ck_assert_str_eq(joblog_error(jl), want);
	ck_assert_int_eq(joblog_size(jl), 0);

	/* Later writes are ignored; the message stays. */
	ck_assert_int_eq(joblog_write(jl, "more", 4), 0);
	ck_assert_int_eq(joblog_write(jl, "more", 4), 0);
	ck_assert_str_eq(joblog_error(jl), want);
	ck_assert_int_eq(joblog_size(jl), 0);
	joblog_close(jl);
}
END_TEST

START_TEST(test_open_errors)
{
	struct joblog	*jl;
	char		 p[160], want[200], *cause = NULL;
	int		 fd;

	/* A file where a directory should be. */
	snprintf(p, sizeof p, "%s/file", base);
	fd = open(p, O_WRONLY | O_CREAT, 0644);
	ck_assert_int_ge(fd, 0);
	close(fd);
	snprintf(p, sizeof p, "%s/file/sub", base);
	jl = joblog_open(p, "x.log", &cause);
	ck_assert_ptr_null(jl);
	snprintf(want, sizeof want, "%s/file/sub: Not a directory", base);
	ck_assert_str_eq(cause, want);
	free(cause);

	snprintf(p, sizeof p, "%s/file", base);
	jl = joblog_open(p, "x.log", &cause);
	ck_assert_ptr_null(jl);
	snprintf(want, sizeof want, "%s/file: Not a directory", base);
	ck_assert_str_eq(cause, want);
	free(cause);

	/* Names that are not one plain file name. */
	jl = joblog_open(base, "a/b", &cause);
	ck_assert_ptr_null(jl);
	ck_assert_ptr_nonnull(cause);
	free(cause);
	jl = joblog_open(base, "..", &cause);
	ck_assert_ptr_null(jl);
	free(cause);
	jl = joblog_open(base, "", &cause);
	ck_assert_ptr_null(jl);
	free(cause);

	/* The log name is a directory. */
	snprintf(p, sizeof p, "%s/d.log", base);
	ck_assert_int_eq(mkdir(p, 0700), 0);
	jl = joblog_open(base, "d.log", &cause);
	ck_assert_ptr_null(jl);
	snprintf(want, sizeof want, "%s/d.log: Is a directory", base);
	ck_assert_str_eq(cause, want);
	free(cause);
}
END_TEST

START_TEST(test_dir_of_other_user_refused)
{
	struct joblog	*jl;
	char		 p[160], want[200], *cause = NULL;

	if (geteuid() == 0) {
		snprintf(p, sizeof p, "%s/theirs", base);
		ck_assert_int_eq(mkdir(p, 0777), 0);
		ck_assert_int_eq(chown(p, 65534, 65534), 0);
	} else
		strcpy(p, "/");		/* owned by root */
	jl = joblog_open(p, "x.log", &cause);
	ck_assert_ptr_null(jl);
	snprintf(want, sizeof want, "%s: not owned by this user", p);
	ck_assert_str_eq(cause, want);
	free(cause);
}
END_TEST

/* Do nothing: the signal is there to interrupt write(). */
static void
alarm_handler(int signo)
{
	(void)signo;
}

START_TEST(test_write_survives_signals_and_short_writes)
{
	struct joblog		*jl;
	struct sigaction	 sa;
	struct itimerval	 it;
	char			 p[160], *cause = NULL, *data;
	size_t			 len = 8 * 1024 * 1024, i, got = 0;
	ssize_t			 n;
	pid_t			 pid;
	int			 rfd, status, bad = 0;
	char			 buf[65536];

	/*
	 * A FIFO log: writes block, and signals cut them short.  The reader
	 * is forked first so it holds no write end of the FIFO.
	 */
	snprintf(p, sizeof p, "%s/fifo.log", base);
	ck_assert_int_eq(mkfifo(p, 0600), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		/* Read slowly and check every byte of the pattern. */
		if ((rfd = open(p, O_RDONLY)) == -1)
			_exit(3);
		while ((n = read(rfd, buf, 4096)) > 0) {
			for (i = 0; i < (size_t)n; i++, got++)
				bad |= buf[i] != (char)(got * 7 % 251);
			if (got % (256 * 1024) < 4096)
				usleep(1000);
		}
		_exit(bad ? 2 : got == len ? 0 : 1);
	}
	jl = joblog_open(base, "fifo.log", &cause);
	ck_assert_msg(jl != NULL, "%s", cause);

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = alarm_handler;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;	/* no SA_RESTART: writes see EINTR */
	ck_assert_int_eq(sigaction(SIGALRM, &sa, NULL), 0);
	memset(&it, 0, sizeof it);
	it.it_interval.tv_usec = 500;
	it.it_value.tv_usec = 500;
	ck_assert_int_eq(setitimer(ITIMER_REAL, &it, NULL), 0);

	data = malloc(len);
	for (i = 0; i < len; i++)
		data[i] = (char)(i * 7 % 251);
	ck_assert_int_eq(joblog_write(jl, data, len), 0);
	memset(&it, 0, sizeof it);
	setitimer(ITIMER_REAL, &it, NULL);
	ck_assert_ptr_null(joblog_error(jl));
	ck_assert_int_eq(joblog_size(jl), (off_t)len);
	joblog_close(jl);
	free(data);

	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "reader status %d", status);
}
END_TEST

/* Set or unset an environment variable for the test. */
static void
set_env(const char *name, const char *value)
{
	if (value == NULL)
		unsetenv(name);
	else
		setenv(name, value, 1);
}

/* The rules are the store's (check_store); the log is its logs/. */
START_TEST(test_default_dir)
{
	static const char	*homes[] = { "/home/u", NULL };
	static const char	*states[] = { "/xdg/state", "relative", NULL };
	char			*d, *s, want[256];
	size_t			 i, j;

	for (i = 0; i < 2; i++) {
		for (j = 0; j < 3; j++) {
			set_env("HOME", homes[i]);
			set_env("XDG_STATE_HOME", states[j]);
			d = joblog_default_dir();
			s = store_default_dir();
			snprintf(want, sizeof want, "%s/logs", s);
			ck_assert_str_eq(d, want);
			free(d);
			free(s);
		}
	}
}
END_TEST

/* Build the joblog suite. */
static Suite *
joblog_suite(void)
{
	Suite	*s = suite_create("joblog");
	TCase	*tc;

	tc = tcase_create("file");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_open_creates_nested_dirs_and_modes);
	tcase_add_test(tc, test_append_and_size);
	tcase_add_test(tc, test_idle_closes_and_reopens);
	tcase_add_test(tc, test_full_disk_turns_log_off);
	tcase_add_test(tc, test_open_errors);
	tcase_add_test(tc, test_unsafe_dir_and_link);
	tcase_add_test(tc, test_dir_of_other_user_refused);
	tcase_add_test(tc, test_write_survives_signals_and_short_writes);
	suite_add_tcase(s, tc);

	tc = tcase_create("dir");
	tcase_add_test(tc, test_default_dir);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite; exit non-zero if any test failed. */
int
main(void)
{
	SRunner	*sr = srunner_create(joblog_suite());
	int	 failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

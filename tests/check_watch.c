/*
 * check_watch.c: tests for watch: the glob rules as a table, then real
 * files in a temporary directory on a real loop (debounce, new and moved
 * directories, ignores, default skips, editors' saves, the limit, a queue
 * overflow, freeing).  Which directories are watched is read from the
 * kernel (/proc/self/fdinfo of the inotify fd).
 */
#include <sys/ioctl.h>
#include <sys/stat.h>

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loop.h"
#include "skip.h"
#include "watch.h"

#define DEBOUNCE_MS	200	/* the watches' debounce in most cases */
#define WAIT_MS		5000	/* longest wait for a callback */
#define QUIET_MS	(3 * DEBOUNCE_MS)	/* time with no callback */

/* A temporary directory, a loop, a watch and what its callback saw. */
struct fx {
	char		 dir[64];
	struct loop	*loop;
	struct watch	*w;
	int		 calls;
	char		 path[PATH_MAX];	/* the last call's */
	int64_t		 at;			/* loop_now_ms of the last */
	int		 free_in_cb;		/* the callback frees w */
};

/* One row of the glob table. */
struct glob_case {
	const char	*glob;
	const char	*path;
	int		 match;
};

static const struct glob_case glob_cases[] = {
	/* The brief's examples. */
	{ "src/**/*.py", "src/a.py", 1 },
	{ "src/**/*.py", "src/x/y/b.py", 1 },
	{ "src/**/*.py", "a.py", 0 },
	{ "src/**/*.py", "lib/src/a.py", 0 },
	{ "src/**/*.py", "src/a.pyc", 0 },
	{ "src/**/*.py", "src", 0 },
	{ "**/*.c", "a.c", 1 },
	{ "**/*.c", "x/y/a.c", 1 },
	{ "**/*.c", "x/y/a.h", 0 },
	{ "*.toml", "Cargo.toml", 1 },
	{ "*.toml", "sub/Cargo.toml", 0 },
	/* One component: *, ?, literal. */
	{ "*", "a", 1 },
	{ "*", "a/b", 0 },
	{ "*.c", "a/b.c", 0 },
	{ "*.py", ".x.py", 1 },
	{ "?.c", "a.c", 1 },
	{ "?.c", "ab.c", 0 },
	{ "?.c", ".c", 0 },
	{ "Makefile", "Makefile", 1 },
	{ "Makefile", "makefile", 0 },
	{ "a**b", "aXYb", 1 },
	{ "a**b", "a/b", 0 },
	{ "\\*", "*", 1 },
	{ "\\*", "a", 0 },
	/* Brackets. */
	{ "[ab].c", "a.c", 1 },
	{ "[ab].c", "c.c", 0 },
	{ "[!ab].c", "c.c", 1 },
	{ "[!ab].c", "a.c", 0 },
	{ "[^ab].c", "c.c", 1 },
	{ "[^ab].c", "b.c", 0 },
	{ "[a-c]x", "bx", 1 },
	{ "[a-c]x", "dx", 0 },
	{ "[a-]", "-", 1 },
	{ "[]]", "]", 1 },
	{ "[!]]", "a", 1 },
	{ "[!]]", "]", 0 },
	{ "[*]", "*", 1 },
	{ "[*]", "a", 0 },
	{ "[", "[", 1 },
	{ "[/]", "/", 0 },
	/* ** alone, at the end, at the start, in the middle, repeated. */
	{ "**", "a", 1 },
	{ "**", "a/b/c", 1 },
	{ "**", ".env", 1 },
	{ "a/**", "a", 1 },
	{ "a/**", "a/b", 1 },
	{ "a/**", "a/b/c", 1 },
	{ "a/**", "b", 0 },
	{ "a/**", "ab", 0 },
	{ "**/a", "a", 1 },
	{ "**/a", "x/y/a", 1 },
	{ "**/a", "x/ab", 0 },
	{ "a/**/b", "a/b", 1 },
	{ "a/**/b", "a/x/b", 1 },
	{ "a/**/b", "a/x/y/b", 1 },
	{ "a/**/b", "a/x/y/c", 0 },
	{ "a/**/b", "a/b/c", 0 },
	{ "a/**/**/b", "a/b", 1 },
	{ "**/x/**/y", "x/y", 1 },
	{ "**/x/**/y", "q/x/r/s/y", 1 },
	{ "**/x/**/y", "q/y", 0 },
	/* Empty components, ".", a leading or a trailing slash. */
	{ "src//*.c", "src/a.c", 1 },
	{ "src/*.c", "src//a.c", 1 },
	{ "./src/*.c", "src/a.c", 1 },
	{ "/x.c", "x.c", 1 },
	{ "src/", "src", 1 },
	{ "src/*/", "src/a", 1 },
	{ "src/*/", "src/a/b", 0 },
	{ "", "a", 0 },
	/* Backtracking that would be exponential. */
	{ "**/a/**/a/**/a/**/a/**/a/**/b",
	  "a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/"
	  "a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/c", 0 },
};

/* Make the temporary directory and the loop. */
static void
fx_setup(struct fx *fx)
{
	memset(fx, 0, sizeof *fx);
	snprintf(fx->dir, sizeof fx->dir, "/tmp/check_watch.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(fx->dir));
	fx->loop = loop_new();
}

/* Free the watch and the loop and remove the directory. */
static void
fx_teardown(struct fx *fx)
{
	char	cmd[128];

	watch_free(fx->w);
	loop_free(fx->loop);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", fx->dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* Return dir/rel in a static buffer. */
static const char *
fx_path(struct fx *fx, const char *rel)
{
	static char	buf[PATH_MAX];

	snprintf(buf, sizeof buf, "%s/%s", fx->dir, rel);
	return buf;
}

/* Make the directory rel and its parents. */
static void
fx_mkdir(struct fx *fx, const char *rel)
{
	char	cmd[PATH_MAX + 32];

	snprintf(cmd, sizeof cmd, "mkdir -p '%s'", fx_path(fx, rel));
	ck_assert_int_eq(system(cmd), 0);
}

/* Write text to the file rel (created or truncated). */
static void
fx_write(struct fx *fx, const char *rel, const char *text)
{
	int	fd;

	fd = open(fx_path(fx, rel), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_msg(fd != -1, "open %s: %s", rel, strerror(errno));
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	ck_assert_int_eq(close(fd), 0);
}

/* Rename the path from to to (both relative to the directory). */
static void
fx_rename(struct fx *fx, const char *from, const char *to)
{
	char	src[PATH_MAX];

	snprintf(src, sizeof src, "%s", fx_path(fx, from));
	ck_assert_msg(rename(src, fx_path(fx, to)) == 0, "rename %s: %s",
	    from, strerror(errno));
}

/* The watch's callback: count, remember the path and the time. */
static void
fx_changed(const char *path, void *arg)
{
	struct fx	*fx = arg;

	fx->calls++;
	snprintf(fx->path, sizeof fx->path, "%s", path);
	fx->at = loop_now_ms();
	if (fx->free_in_cb) {
		watch_free(fx->w);
		fx->w = NULL;
	}
}

static const struct watch_cbs fx_cbs = { .changed = fx_changed };

/* Start the watch on the directory; fail the test with its cause. */
static void
fx_watch(struct fx *fx, const char *const *globs, size_t nglobs,
    const char *const *ignore, size_t nignore, int64_t debounce_ms)
{
	char	*cause = NULL;

	fx->w = watch_new(fx->loop, fx->dir, (char *const *)globs, nglobs,
	    (char *const *)ignore, nignore, debounce_ms, &fx_cbs, fx, &cause);
	ck_assert_msg(fx->w != NULL, "watch_new: %s", cause);
}

/* Run the loop for ms milliseconds. */
static void
fx_run(struct fx *fx, int64_t ms)
{
	int64_t	end = loop_now_ms() + ms, left;

	while ((left = end - loop_now_ms()) > 0)
		ck_assert_int_ne(loop_run_once(fx->loop, left), -1);
}

/* Run the loop until the callback ran n times in all, WAIT_MS at most. */
static void
fx_wait_calls(struct fx *fx, int n)
{
	int64_t	end = loop_now_ms() + WAIT_MS, left;

	while (fx->calls < n && (left = end - loop_now_ms()) > 0)
		ck_assert_int_ne(loop_run_once(fx->loop, left), -1);
	ck_assert_msg(fx->calls == n, "%d calls, wanted %d", fx->calls, n);
}

/* Return the one inotify fd of this process, or -1. */
static int
inotify_fd(void)
{
	DIR		*d;
	struct dirent	*e;
	char		 target[64];
	ssize_t		 n;
	int		 fd = -1;

	ck_assert_ptr_nonnull(d = opendir("/proc/self/fd"));
	while ((e = readdir(d)) != NULL) {
		n = readlinkat(dirfd(d), e->d_name, target, sizeof target - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		if (strcmp(target, "anon_inode:inotify") == 0)
			fd = atoi(e->d_name);
	}
	closedir(d);
	return fd;
}

/* Return how many directories the kernel watches for our inotify fd. */
static int
watched_dirs(void)
{
	char	 name[64], line[512];
	FILE	*f;
	int	 fd, n = 0;

	ck_assert_int_ne(fd = inotify_fd(), -1);
	snprintf(name, sizeof name, "/proc/self/fdinfo/%d", fd);
	ck_assert_ptr_nonnull(f = fopen(name, "r"));
	while (fgets(line, sizeof line, f) != NULL) {
		if (strncmp(line, "inotify wd:", 11) == 0)
			n++;
	}
	fclose(f);
	return n;
}

/* Return the number of open fds of this process. */
static int
fd_count(void)
{
	DIR		*d;
	struct dirent	*e;
	int		 n = 0;

	ck_assert_ptr_nonnull(d = opendir("/proc/self/fd"));
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] != '.')
			n++;
	}
	closedir(d);
	return n;
}

START_TEST(test_glob_table)
{
	const struct glob_case	*c;
	size_t			 i;

	for (i = 0; i < sizeof glob_cases / sizeof glob_cases[0]; i++) {
		c = &glob_cases[i];
		ck_assert_msg(watch_match(c->glob, c->path) == c->match,
		    "watch_match(\"%s\", \"%s\") != %d", c->glob, c->path,
		    c->match);
	}
}
END_TEST

/* One write: one call after the debounce, with the file's path. */
START_TEST(test_one_write)
{
	struct fx		 fx;
	static const char	*globs[] = { "*.py" };
	int64_t			 t0;

	fx_setup(&fx);
	fx_watch(&fx, globs, 1, NULL, 0, DEBOUNCE_MS);
	t0 = loop_now_ms();
	fx_write(&fx, "a.py", "x = 1\n");
	fx_wait_calls(&fx, 1);
	ck_assert_str_eq(fx.path, "a.py");
	ck_assert_int_ge(fx.at - t0, DEBOUNCE_MS);
	fx_run(&fx, QUIET_MS);
	ck_assert_int_eq(fx.calls, 1);
	fx_teardown(&fx);
}
END_TEST

/*
 * Ten writes, each closer to the last than the debounce but spanning more
 * than it: one call (the timer is re-armed); a later write, another.
 */
START_TEST(test_ten_writes)
{
	struct fx		 fx;
	static const char	*globs[] = { "src/**/*.py" };
	char			 text[32];
	int			 i;

	fx_setup(&fx);
	fx_mkdir(&fx, "src/x");
	fx_watch(&fx, globs, 1, NULL, 0, 2 * DEBOUNCE_MS);
	for (i = 0; i < 10; i++) {
		snprintf(text, sizeof text, "x = %d\n", i);
		fx_write(&fx, "src/x/b.py", text);
		fx_run(&fx, 60);
	}
	fx_wait_calls(&fx, 1);
	ck_assert_str_eq(fx.path, "src/x/b.py");
	fx_run(&fx, 2 * QUIET_MS);
	ck_assert_int_eq(fx.calls, 1);

	fx_write(&fx, "src/a.py", "y = 2\n");
	fx_wait_calls(&fx, 2);
	ck_assert_str_eq(fx.path, "src/a.py");
	fx_teardown(&fx);
}
END_TEST

/* A file in directories made after watch_new; they are watched from then. */
START_TEST(test_new_subdir)
{
	struct fx		 fx;
	static const char	*globs[] = { "src/**/*.py" };

	fx_setup(&fx);
	fx_mkdir(&fx, "src");
	fx_watch(&fx, globs, 1, NULL, 0, DEBOUNCE_MS);
	ck_assert_int_eq(watched_dirs(), 2);
	fx_mkdir(&fx, "src/new/deeper");
	fx_write(&fx, "src/new/deeper/c.py", "z = 3\n");
	fx_wait_calls(&fx, 1);
	ck_assert_str_eq(fx.path, "src/new/deeper/c.py");
	ck_assert_int_eq(watched_dirs(), 4);

	/* Now an event of its own; a directory no glob reaches: no watch. */
	fx_mkdir(&fx, "docs/x");
	fx_write(&fx, "src/new/deeper/c.py", "z = 4\n");
	fx_wait_calls(&fx, 2);
	ck_assert_str_eq(fx.path, "src/new/deeper/c.py");
	ck_assert_int_eq(watched_dirs(), 4);
	fx_teardown(&fx);
}
END_TEST

/* Ignored files and directories (there before or made after): no call. */
START_TEST(test_ignored)
{
	struct fx		 fx;
	static const char	*globs[] = { "**" };
	static const char	*ignore[] = { "*.log", "build", "**/tmp" };

	fx_setup(&fx);
	fx_mkdir(&fx, "build/obj");
	fx_mkdir(&fx, "sub");
	fx_watch(&fx, globs, 1, ignore, 3, DEBOUNCE_MS);
	ck_assert_int_eq(watched_dirs(), 2);
	fx_write(&fx, "x.log", "log\n");
	fx_write(&fx, "build/out.o", "obj\n");
	fx_write(&fx, "build/obj/a.o", "obj\n");
	fx_mkdir(&fx, "sub/tmp");
	fx_write(&fx, "sub/tmp/f", "tmp\n");
	fx_run(&fx, QUIET_MS);
	ck_assert_int_eq(fx.calls, 0);
	ck_assert_int_eq(watched_dirs(), 2);

	/* The same watch does see a file it is meant to. */
	fx_write(&fx, "sub/ok.txt", "ok\n");
	fx_wait_calls(&fx, 1);
	ck_assert_str_eq(fx.path, "sub/ok.txt");
	fx_teardown(&fx);
}
END_TEST

/* Files no glob matches: no call; then one that does. */
START_TEST(test_nonmatching)
{
	struct fx		 fx;
	static const char	*globs[] = { "*.py" };

	fx_setup(&fx);
	fx_mkdir(&fx, "sub");
	fx_watch(&fx, globs, 1, NULL, 0, DEBOUNCE_MS);
	ck_assert_int_eq(watched_dirs(), 1);
	fx_write(&fx, "a.txt", "no\n");
	fx_write(&fx, "a.pyc", "no\n");
	fx_write(&fx, "sub/a.py", "no\n");
	fx_run(&fx, QUIET_MS);
	ck_assert_int_eq(fx.calls, 0);
	fx_write(&fx, "a.py", "yes\n");
	fx_wait_calls(&fx, 1);
	ck_assert_str_eq(fx.path, "a.py");
	fx_teardown(&fx);
}
END_TEST

/* Saves through a rename, as vim makes them: one call each. */
START_TEST(test_vim_save)
{
	struct fx		 fx;
	static const char	*globs[] = { "*.py" };

	fx_setup(&fx);
	fx_write(&fx, "x.py", "v1\n");
	fx_watch(&fx, globs, 1, NULL, 0, DEBOUNCE_MS);

	/* A temporary file renamed over the target. */
	fx_write(&fx, ".x.py.swx", "");
	fx_write(&fx, "x.py.tmp", "v2\n");
	fx_rename(&fx, "x.py.tmp", "x.py");
	fx_wait_calls(&fx, 1);
	ck_assert_str_eq(fx.path, "x.py");
	fx_run(&fx, QUIET_MS);
	ck_assert_int_eq(fx.calls, 1);

	/* vim's own: the original to a backup, a new file, no backup. */
	fx_rename(&fx, "x.py", "x.py~");
	fx_write(&fx, "x.py", "v3\n");
	ck_assert_int_eq(unlink(fx_path(&fx, "x.py~")), 0);
	ck_assert_int_eq(unlink(fx_path(&fx, ".x.py.swx")), 0);
	fx_wait_calls(&fx, 2);
	ck_assert_str_eq(fx.path, "x.py");
	fx_run(&fx, QUIET_MS);
	ck_assert_int_eq(fx.calls, 2);
	fx_teardown(&fx);
}
END_TEST

/* watch_free with the timer armed: no call, no fd left. */
START_TEST(test_free_pending)
{
	struct fx		 fx;
	static const char	*globs[] = { "*.py" };
	int			 before, fd, queued = 1;
	int64_t			 end;

	fx_setup(&fx);
	before = fd_count();
	fx_watch(&fx, globs, 1, NULL, 0, DEBOUNCE_MS);
	ck_assert_int_eq(fd_count(), before + 1);
	fd = inotify_fd();
	fx_write(&fx, "a.py", "x\n");
	/* Run until the event is read: the timer is armed then. */
	end = loop_now_ms() + WAIT_MS;
	while (queued != 0 && loop_now_ms() < end) {
		ck_assert_int_ne(loop_run_once(fx.loop, 10), -1);
		ck_assert_int_eq(ioctl(fd, FIONREAD, &queued), 0);
	}
	ck_assert_int_eq(queued, 0);
	ck_assert_int_eq(fx.calls, 0);
	watch_free(fx.w);
	fx.w = NULL;
	ck_assert_int_eq(fd_count(), before);
	ck_assert_int_eq(inotify_fd(), -1);
	fx_run(&fx, QUIET_MS);
	ck_assert_int_eq(fx.calls, 0);
	fx_teardown(&fx);
}
END_TEST

/* The callback may free the watch. */
START_TEST(test_free_in_callback)
{
	struct fx		 fx;
	static const char	*globs[] = { "*.py" };

	fx_setup(&fx);
	fx.free_in_cb = 1;
	fx_watch(&fx, globs, 1, NULL, 0, DEBOUNCE_MS);
	fx_write(&fx, "a.py", "x\n");
	fx_wait_calls(&fx, 1);
	ck_assert_ptr_null(fx.w);
	ck_assert_int_eq(inotify_fd(), -1);
	fx_run(&fx, QUIET_MS);
	ck_assert_int_eq(fx.calls, 1);
	fx_teardown(&fx);
}
END_TEST

/* A glob's fixed leading components limit the walk. */
START_TEST(test_walk_limited)
{
	struct fx		 fx;
	static const char	*py[] = { "src/**/*.py" };
	static const char	*toml[] = { "*.toml" };
	static const char	*md[] = { "docs/*/*.md" };
	static const char	*all[] = { "**" };

	fx_setup(&fx);
	fx_mkdir(&fx, "src/a/b");
	fx_mkdir(&fx, "docs/x/y");
	fx_mkdir(&fx, "other");
	fx_watch(&fx, py, 1, NULL, 0, DEBOUNCE_MS);
	ck_assert_int_eq(watched_dirs(), 4);	/* ., src, src/a, src/a/b */
	watch_free(fx.w);
	fx_watch(&fx, toml, 1, NULL, 0, DEBOUNCE_MS);
	ck_assert_int_eq(watched_dirs(), 1);
	watch_free(fx.w);
	fx_watch(&fx, md, 1, NULL, 0, DEBOUNCE_MS);
	ck_assert_int_eq(watched_dirs(), 3);	/* ., docs, docs/x */
	watch_free(fx.w);
	fx_watch(&fx, all, 1, NULL, 0, DEBOUNCE_MS);
	ck_assert_int_eq(watched_dirs(), 8);
	fx_teardown(&fx);
}
END_TEST

/* .git, node_modules and dot-directories only when a glob names them. */
START_TEST(test_default_skips)
{
	struct fx		 fx;
	static const char	*any[] = { "**/*.c", "*/*.c" };
	static const char	*named[] = { ".github/**/*.yml",
				    "node_modules/pkg/*.js" };

	fx_setup(&fx);
	fx_mkdir(&fx, ".git/objects");
	fx_mkdir(&fx, "node_modules/pkg");
	fx_mkdir(&fx, ".github/workflows");
	fx_mkdir(&fx, "src/.cache");
	fx_watch(&fx, any, 2, NULL, 0, DEBOUNCE_MS);
	ck_assert_int_eq(watched_dirs(), 2);	/* ., src */
	fx_write(&fx, ".git/objects/x.c", "no\n");
	fx_write(&fx, "node_modules/pkg/x.c", "no\n");
	fx_write(&fx, "src/.cache/x.c", "no\n");
	fx_mkdir(&fx, "src/.new");
	fx_write(&fx, "src/.new/x.c", "no\n");
	fx_run(&fx, QUIET_MS);
	ck_assert_int_eq(fx.calls, 0);
	ck_assert_int_eq(watched_dirs(), 2);
	watch_free(fx.w);

	fx_watch(&fx, named, 2, NULL, 0, DEBOUNCE_MS);
	/* ., .github, .github/workflows, node_modules, node_modules/pkg */
	ck_assert_int_eq(watched_dirs(), 5);
	fx_write(&fx, ".github/workflows/ci.yml", "on: push\n");
	fx_wait_calls(&fx, 1);
	ck_assert_str_eq(fx.path, ".github/workflows/ci.yml");
	fx_write(&fx, "node_modules/pkg/i.js", "1\n");
	fx_wait_calls(&fx, 2);
	ck_assert_str_eq(fx.path, "node_modules/pkg/i.js");
	fx_teardown(&fx);
}
END_TEST

/* Directories moved away are forgotten (a change); moved in, walked. */
START_TEST(test_moved_dirs)
{
	struct fx		 fx, out;
	static const char	*globs[] = { "**/*.py" };
	char			 to[PATH_MAX];

	fx_setup(&fx);
	fx_setup(&out);
	fx_mkdir(&fx, "c/d");
	fx_mkdir(&out, "e/f");
	fx_write(&out, "e/f/z.py", "z\n");
	fx_watch(&fx, globs, 1, NULL, 0, DEBOUNCE_MS);
	ck_assert_int_eq(watched_dirs(), 3);

	snprintf(to, sizeof to, "%s/c", out.dir);
	ck_assert_int_eq(rename(fx_path(&fx, "c"), to), 0);
	fx_wait_calls(&fx, 1);
	ck_assert_str_eq(fx.path, "c");
	ck_assert_int_eq(watched_dirs(), 1);
	fx_write(&out, "c/d/gone.py", "x\n");
	fx_run(&fx, QUIET_MS);
	ck_assert_int_eq(fx.calls, 1);

	snprintf(to, sizeof to, "%s/e", out.dir);
	ck_assert_int_eq(rename(to, fx_path(&fx, "e")), 0);
	fx_wait_calls(&fx, 2);
	ck_assert_str_eq(fx.path, "e/f/z.py");
	ck_assert_int_eq(watched_dirs(), 3);
	fx_teardown(&out);
	fx_teardown(&fx);
}
END_TEST

/* More than WATCH_MAX_DIRS directories: a clear error, no fd left. */
START_TEST(test_limit)
{
	struct fx		 fx;
	static const char	*globs[] = { "**/*.c" };
	char			 name[32], *cause = NULL;
	int			 i, before;
	int64_t			 t0;

	fx_setup(&fx);
	for (i = 0; i < WATCH_MAX_DIRS; i++) {
		snprintf(name, sizeof name, "d%d", i);
		ck_assert_int_eq(mkdir(fx_path(&fx, name), 0755), 0);
	}
	before = fd_count();
	fx.w = watch_new(fx.loop, fx.dir, (char *const *)globs, 1, NULL, 0,
	    DEBOUNCE_MS, &fx_cbs, &fx, &cause);
	ck_assert_ptr_null(fx.w);
	ck_assert_ptr_nonnull(cause);
	ck_assert_msg(strstr(cause, "more than 4096 directories") != NULL,
	    "cause: %s", cause);
	free(cause);
	ck_assert_int_eq(fd_count(), before);

	/* One fewer: the base and 4095 below it are just allowed. */
	ck_assert_int_eq(rmdir(fx_path(&fx, "d0")), 0);
	t0 = loop_now_ms();
	fx_watch(&fx, globs, 1, NULL, 0, DEBOUNCE_MS);
	fprintf(stderr, "watch_new over %d directories: %lld ms\n",
	    WATCH_MAX_DIRS, (long long)(loop_now_ms() - t0));
	ck_assert_int_eq(watched_dirs(), WATCH_MAX_DIRS);
	fx_teardown(&fx);
}
END_TEST

/* A queue overflow counts as a change of ".". */
START_TEST(test_overflow)
{
	struct fx		 fx;
	static const char	*globs[] = { "never.matches" };
	FILE			*f;
	long			 max = 0, i;

	if ((f = fopen("/proc/sys/fs/inotify/max_queued_events", "r")) ==
	    NULL || fscanf(f, "%ld", &max) != 1 || max > 200000) {
		if (f != NULL)
			fclose(f);
		TEST_SKIP("max_queued_events unreadable or above 200000");
	}
	fclose(f);
	fx_setup(&fx);
	fx_write(&fx, "a", "");
	fx_write(&fx, "b", "");
	fx_watch(&fx, globs, 1, NULL, 0, DEBOUNCE_MS);
	/* Alternate files, so the kernel cannot merge the events. */
	for (i = 0; i <= max; i++) {
		ck_assert_int_eq(utimensat(AT_FDCWD,
		    fx_path(&fx, i % 2 ? "a" : "b"), NULL, 0), 0);
	}
	fx_wait_calls(&fx, 1);
	ck_assert_str_eq(fx.path, ".");
	fx_teardown(&fx);
}
END_TEST

/* Bad bases and globs: NULL with a cause, no fd left. */
START_TEST(test_errors)
{
	struct fx		 fx;
	static const char	*ok[] = { "*.c" };
	static const char	*up[] = { "src/../../x" };
	static const char	*empty[] = { "./" };
	char			*cause;
	int			 before;

	fx_setup(&fx);
	fx_write(&fx, "file", "");
	before = fd_count();

	cause = NULL;
	ck_assert_ptr_null(watch_new(fx.loop, fx_path(&fx, "missing"),
	    (char *const *)ok, 1, NULL, 0, 0, &fx_cbs, &fx, &cause));
	ck_assert_msg(strstr(cause, "missing") != NULL, "cause: %s", cause);
	free(cause);

	cause = NULL;
	ck_assert_ptr_null(watch_new(fx.loop, fx_path(&fx, "file"),
	    (char *const *)ok, 1, NULL, 0, 0, &fx_cbs, &fx, &cause));
	ck_assert_msg(strstr(cause, "Not a directory") != NULL, "cause: %s",
	    cause);
	free(cause);

	cause = NULL;
	ck_assert_ptr_null(watch_new(fx.loop, fx.dir, (char *const *)up, 1,
	    NULL, 0, 0, &fx_cbs, &fx, &cause));
	ck_assert_msg(strstr(cause, "'..'") != NULL, "cause: %s", cause);
	free(cause);

	cause = NULL;
	ck_assert_ptr_null(watch_new(fx.loop, fx.dir, (char *const *)empty, 1,
	    NULL, 0, 0, &fx_cbs, &fx, &cause));
	ck_assert_msg(strstr(cause, "names no file") != NULL, "cause: %s",
	    cause);
	free(cause);

	cause = NULL;
	ck_assert_ptr_null(watch_new(fx.loop, fx.dir, NULL, 0, NULL, 0, 0,
	    &fx_cbs, &fx, &cause));
	ck_assert_ptr_nonnull(cause);
	free(cause);

	ck_assert_int_eq(fd_count(), before);
	fx_teardown(&fx);
}
END_TEST

/* Build the watch suite. */
static Suite *
watch_suite(void)
{
	Suite	*s = suite_create("watch");
	TCase	*tc;

	tc = tcase_create("glob");
	tcase_add_test(tc, test_glob_table);
	suite_add_tcase(s, tc);

	tc = tcase_create("events");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_one_write);
	tcase_add_test(tc, test_ten_writes);
	tcase_add_test(tc, test_new_subdir);
	tcase_add_test(tc, test_ignored);
	tcase_add_test(tc, test_nonmatching);
	tcase_add_test(tc, test_vim_save);
	tcase_add_test(tc, test_free_pending);
	tcase_add_test(tc, test_free_in_callback);
	tcase_add_test(tc, test_moved_dirs);
	tcase_add_test(tc, test_overflow);
	suite_add_tcase(s, tc);

	tc = tcase_create("walk");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_walk_limited);
	tcase_add_test(tc, test_default_skips);
	tcase_add_test(tc, test_limit);
	tcase_add_test(tc, test_errors);
	suite_add_tcase(s, tc);
	return s;
}

/* Run the suite; exit non-zero if any test failed. */
int
main(void)
{
	SRunner	*sr = srunner_create(watch_suite());
	int	 failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

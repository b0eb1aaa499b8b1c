/*
 * check_browser_e2e.c: the browser end to end (issue 14).  Each test makes
 * a private directory (the configuration, the jobs' scripts and what they
 * write) with a tmp/ in it that is the deck's TMPDIR, where a local
 * browser's profile goes; it starts the real deck on the 120x40 pty on a
 * [browser] configuration, reads the panel, types at the prompt, and asks
 * the real `jobdeck ctl -S NAME [--json] browser`, parsing its JSON
 * (tests/jsonread.h).  The browser is the real chromium-headless-shell
 * (scripts/deps.sh installs it); a browser process of a test is one whose
 * command line names chromium and the test's TMPDIR (/proc), so none may
 * be left after !browser stop or any way out (after a SIGKILL of the deck,
 * once the next deck has started).  Docker mode runs only where
 * a Docker daemon answers (`docker version`), and says SKIP otherwise.
 *
 * Needs python3: a job asks the browser's /json/version through
 * JOBDECK_CDP_URL.
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <netinet/in.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "e2e/e2e.h"
#include "jsonread.h"
#include "skip.h"
#include "testnet.h"

#define BROWSER_MS	60000	/* a browser's start on a loaded machine */
#define WAIT_MS		10000	/* a screen, a file, a process gone */
#define CTL_MS		15000	/* one jobdeck ctl */
#define UP_MS		120000	/* a whole jobdeck up */

static const struct term_rect	panel = { 0, 0, 39, 40 };
static const struct term_rect	screen = { 0, 0, 0, 0 };

/*
 * Asks the browser of JOBDECK_CDP_URL for /json/version and writes the
 * URL and its "Browser" to argv[1] (whole, by a rename), or "unset".
 */
static const char cdp_py[] =
    "import json, os, sys, urllib.request\n"
    "url = os.environ.get('JOBDECK_CDP_URL')\n"
    "if url is None:\n"
    "    text = 'unset\\n'\n"
    "else:\n"
    "    host = url.split('/')[2]\n"
    "    with urllib.request.urlopen('http://%s/json/version' % host,\n"
    "                                timeout=20) as r:\n"
    "        v = json.load(r)\n"
    "    text = 'url %s\\nBrowser %s\\n' % (url, v['Browser'])\n"
    "with open(sys.argv[1] + '.tmp', 'w') as f:\n"
    "    f.write(text)\n"
    "os.rename(sys.argv[1] + '.tmp', sys.argv[1])\n";

/* A deck under test and its directory. */
struct bdeck {
	struct term	*t;
	char		 name[32];
	char		 dir[64];		/* mkdtemp: everything below */
	char		 tmp[128];		/* the deck's TMPDIR */
	char		 cfg[128];
	char		 run[PATH_MAX];		/* its XDG_RUNTIME_DIR */
	char		 env[160];		/* TMPDIR=tmp */
};

/*
 * Make the deck's directory with tmp/ and cdp.py in it, and write its
 * configuration: toml, each "@" standing for the directory.
 */
static void
bdeck_dir(struct bdeck *d, const char *name, const char *toml)
{
	char		 text[4096], *q = text;
	const char	*p;

	memset(d, 0, sizeof *d);
	snprintf(d->name, sizeof d->name, "%s", name);
	strcpy(d->dir, "/tmp/jd-browser.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(d->dir));
	snprintf(d->tmp, sizeof d->tmp, "%s/tmp", d->dir);
	ck_assert_int_eq(mkdir(d->tmp, 0700), 0);
	snprintf(d->cfg, sizeof d->cfg, "%s/jobdeck.toml", d->dir);
	snprintf(d->env, sizeof d->env, "TMPDIR=%s", d->tmp);
	for (p = toml; *p != '\0'; p++) {
		ck_assert_int_lt(q - text, (int)sizeof text - 128);
		if (*p == '@')
			q = stpcpy(q, d->dir);
		else
			*q++ = *p;
	}
	*q = '\0';
	e2e_put_file(d->dir, "jobdeck.toml", text, 0600);
	e2e_put_file(d->dir, "cdp.py", cdp_py, 0600);
}

/* Start the deck on its configuration, TMPDIR its tmp/. */
static void
bdeck_start(struct bdeck *d)
{
	const char	*args[] = { "-c", d->cfg, "-S", d->name, NULL };
	const char	*env[] = { d->env, NULL };

	d->t = e2e_start(args, env);
	ck_assert(snprintf(d->run, sizeof d->run, "%s/run",
	    term_tmpdir(d->t)) < (int)sizeof d->run);
}

/* Close the deck's terminal (if open) and remove its directory. */
static void
bdeck_end(struct bdeck *d)
{
	char	cmd[128];

	if (d->t != NULL)
		term_close(d->t);
	d->t = NULL;
	snprintf(cmd, sizeof cmd, "rm -rf %s", d->dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", d->dir);
}

/*
 * Return how many live processes name chromium and the deck's TMPDIR in
 * their command lines (a zombie's is empty); the first one's pid in
 * *first (may be NULL).
 */
static int
chromium_count(const struct bdeck *d, pid_t *first)
{
	DIR		*dir;
	struct dirent	*de;
	char		 path[300], buf[8192];
	ssize_t		 n, i;
	int		 fd, count = 0;

	dir = opendir("/proc");
	ck_assert_ptr_nonnull(dir);
	while ((de = readdir(dir)) != NULL) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "/proc/%s/cmdline", de->d_name);
		if ((fd = open(path, O_RDONLY)) == -1)
			continue;
		n = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (n <= 0)
			continue;
		for (i = 0; i < n; i++) {
			if (buf[i] == '\0')
				buf[i] = ' ';
		}
		buf[n] = '\0';
		if (strstr(buf, "chromium") == NULL ||
		    strstr(buf, d->tmp) == NULL)
			continue;
		if (count++ == 0 && first != NULL)
			*first = (pid_t)atol(de->d_name);
	}
	closedir(dir);
	return count;
}

/* Wait until no browser process of the deck is left (pumping its term). */
static void
wait_no_chromium(struct bdeck *d, const char *when)
{
	int64_t	end = term_now_ms() + WAIT_MS;
	pid_t	pid = 0;

	while (chromium_count(d, &pid) > 0) {
		ck_assert_msg(term_now_ms() < end, "%s: %d browser processes "
		    "left (pid %ld) after %d ms", when, chromium_count(d, NULL),
		    (long)pid, WAIT_MS);
		if (d->t != NULL)
			term_pump(d->t, 50);
		else
			usleep(50000);
	}
}

/* Return how many entries the deck's TMPDIR holds; the first's name. */
static int
tmp_entries(const struct bdeck *d, char *name, size_t size)
{
	DIR		*dir;
	struct dirent	*de;
	int		 n = 0;

	name[0] = '\0';
	dir = opendir(d->tmp);
	ck_assert_ptr_nonnull(dir);
	while ((de = readdir(dir)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (n++ == 0)
			snprintf(name, size, "%s", de->d_name);
	}
	closedir(dir);
	return n;
}

/* Assert that no browser of the deck runs and its profile is gone. */
static void
assert_gone(struct bdeck *d, const char *profile, const char *when)
{
	struct stat	sb;
	char		name[256];

	wait_no_chromium(d, when);
	ck_assert_msg(profile == NULL || profile[0] == '\0' ||
	    stat(profile, &sb) == -1, "%s: the profile %s is left", when,
	    profile);
	ck_assert_msg(tmp_entries(d, name, sizeof name) == 0, "%s: %s is left "
	    "in TMPDIR %s", when, name, d->tmp);
}

/*
 * Run `jobdeck ctl -S NAME ARGS...` (NULL-ended) on the deck, pumping its
 * screen; its stdout and stderr (to free), its exit status in *status.
 */
static char *
ctl(struct bdeck *d, int *status, ...)
{
	const char	*args[32];
	va_list		 ap;
	size_t		 n = 0;

	va_start(ap, status);
	while ((args[n] = va_arg(ap, const char *)) != NULL && n < 31)
		n++;
	va_end(ap);
	args[n] = NULL;
	return e2e_ctl(d->t, d->name, d->run, args, 1, CTL_MS, status);
}

/*
 * Run `jobdeck ARGS` (a shell's words) in the deck's directory, its homes
 * and TMPDIR there, stdin /dev/null, within UP_MS; its stdout and
 * stderr in out, its exit status returned.
 */
static int
run_in(struct bdeck *d, const char *args, char *out, size_t size)
{
	char	 cmd[2048];
	FILE	*f;
	size_t	 n = 0, k;
	int	 status;

	snprintf(cmd, sizeof cmd, "%s/run", d->dir);
	ck_assert(mkdir(cmd, 0700) == 0 || errno == EEXIST);
	snprintf(cmd, sizeof cmd, "cd %s && HOME=%s XDG_CONFIG_HOME=%s "
	    "XDG_STATE_HOME=%s/state XDG_RUNTIME_DIR=%s/run TMPDIR=%s "
	    "timeout -s KILL %d %s %s 2>&1 </dev/null", d->dir, d->dir,
	    d->dir, d->dir, d->dir, d->tmp, UP_MS / 1000, e2e_bin(), args);
	f = popen(cmd, "r");
	ck_assert_ptr_nonnull(f);
	while (n < size - 1 && (k = fread(out + n, 1, size - 1 - n, f)) > 0)
		n += k;
	out[n] = '\0';
	status = pclose(f);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* `ctl --json browser`, parsed (to free); it must succeed. */
static struct jsonread *
browser_json(struct bdeck *d)
{
	struct jsonread	*root;
	char		*out, *cause = NULL;
	int		 status;

	out = ctl(d, &status, "--json", "browser", (const char *)NULL);
	ck_assert_msg(status == 0, "ctl --json browser: status %d: %s",
	    status, out);
	root = jsonread_parse(out, strlen(out), &cause);
	ck_assert_msg(root != NULL, "bad JSON (%s): %s", cause, out);
	ck_assert_msg(jsonread_type(root) == JSONREAD_OBJECT, "not an "
	    "object: %s", out);
	free(out);
	return root;
}

/*
 * Wait until `ctl --json browser` says state is want (within ms); copy
 * its url and profile into url and profile (each may be NULL).
 */
static void
wait_browser(struct bdeck *d, const char *want, int ms, char *url,
    char *profile)
{
	struct jsonread	*root;
	int64_t		 end = term_now_ms() + ms;
	char		 was[64], why[512];

	for (;;) {
		root = browser_json(d);
		snprintf(was, sizeof was, "%s", jsonread_text(root, "state"));
		snprintf(why, sizeof why, "%s", jsonread_text(root, "error"));
		if (strcmp(was, want) == 0) {
			if (url != NULL)
				snprintf(url, PATH_MAX, "%s", jsonread_text(root, "url"));
			if (profile != NULL)
				snprintf(profile, PATH_MAX, "%s",
				    jsonread_text(root, "profile"));
			jsonread_free(root);
			return;
		}
		jsonread_free(root);
		ck_assert_msg(term_now_ms() < end, "browser: state \"%s\" (%s), "
		    "not \"%s\", after %d ms\n%s", was, why, want, ms,
		    e2e_dump(d->t));
		term_pump(d->t, 100);
	}
}

/* Wait until name of the deck's directory holds text; its content. */
static const char *
wait_file(struct bdeck *d, const char *name, const char *text, char *buf,
    size_t size)
{
	int64_t	end = term_now_ms() + WAIT_MS;

	while (strstr(e2e_get_file(d->dir, name, buf, size), text) == NULL) {
		ck_assert_msg(term_now_ms() < end, "%s: no \"%s\" after %d "
		    "ms: \"%s\"\n%s", name, text, WAIT_MS, buf,
		    e2e_dump(d->t));
		term_pump(d->t, 50);
	}
	return buf;
}

/* Type a job that runs cdp.py into out (in the deck's directory). */
static void
run_cdp_job(struct bdeck *d, const char *out)
{
	e2e_run(d->t, e2e_fmt("python3 %s/cdp.py %s/%s", d->dir, d->dir,
	    out));
}

/*
 * "auto": the panel shows [browser] Chrome Headless, Starting… and then
 * CDP Ready with its ws:// URL; ctl --json browser says ready with the
 * same URL, a pid and a profile in TMPDIR.  A job started then gets
 * JOBDECK_CDP_URL and reads /json/version through it.  !browser stop
 * leaves no browser process and no profile, and a job started then gets
 * no URL; !browser start brings it back; !quit leaves nothing either.
 */
START_TEST(test_browser_auto)
{
	struct bdeck		 d;
	struct jsonread		*root;
	char			 url[PATH_MAX], profile[PATH_MAX];
	char			 url2[PATH_MAX], profile2[PATH_MAX];
	char			 buf[4096], want[PATH_MAX + 8];
	int			 status;

	bdeck_dir(&d, "bauto", "[browser]\ncdp_url = \"auto\"\n");
	bdeck_start(&d);
	EXPECT_IN(d.t, &panel, "[browser] Chrome Headless", WAIT_MS);
	EXPECT_IN(d.t, &panel, "CDP Ready", BROWSER_MS);
	EXPECT_IN(d.t, &panel, "ws://127.0.0.1:", WAIT_MS);
	wait_browser(&d, "ready", WAIT_MS, url, profile);
	ck_assert_msg(strncmp(url, "ws://127.0.0.1:", 15) == 0 &&
	    strstr(url, "/devtools/browser/") != NULL, "url %s", url);
	ck_assert_msg(strncmp(profile, d.tmp, strlen(d.tmp)) == 0,
	    "profile %s not in %s", profile, d.tmp);
	root = browser_json(&d);
	ck_assert_str_eq(jsonread_text(root, "mode"), "auto");
	ck_assert_str_eq(jsonread_text(root, "kind"), "local");
	ck_assert_str_eq(jsonread_text(root, "label"), "Chrome Headless");
	ck_assert_msg(strncmp(jsonread_text(root, "product"), "HeadlessChrome/",
	    15) == 0, "product %s", jsonread_text(root, "product"));
	ck_assert_msg(jsonread_type(jsonread_get(root, "pid")) ==
	    JSONREAD_NUMBER && jsonread_number(jsonread_get(root, "pid")) > 1,
	    "no pid");
	ck_assert_str_eq(jsonread_text(root, "error"), "");
	jsonread_free(root);
	ck_assert_int_gt(chromium_count(&d, NULL), 0);

	/* A job started now drives it. */
	run_cdp_job(&d, "cdp1.txt");
	wait_file(&d, "cdp1.txt", "Browser HeadlessChrome/", buf, sizeof buf);
	snprintf(want, sizeof want, "url %s\n", url);
	ck_assert_msg(strncmp(buf, want, strlen(want)) == 0, "the job got "
	    "\"%s\", not %s", buf, url);

	/* The text status says the same. */
	free(ctl(&d, &status, "browser", "status", (const char *)NULL));
	ck_assert_int_eq(status, 0);

	/* Stopped: no process, no profile, no URL for new jobs. */
	e2e_run(d.t, "!browser stop");
	EXPECT_IN(d.t, &panel, "Stopped", BROWSER_MS);
	EXPECT_GONE_IN(d.t, &panel, "ws://", WAIT_MS);
	wait_browser(&d, "stopped", WAIT_MS, NULL, NULL);
	assert_gone(&d, profile, "after !browser stop");
	run_cdp_job(&d, "cdp2.txt");
	wait_file(&d, "cdp2.txt", "unset", buf, sizeof buf);

	/* Started again: a new browser, a new profile, ready. */
	e2e_run(d.t, "!browser start");
	EXPECT_IN(d.t, &panel, "CDP Ready", BROWSER_MS);
	wait_browser(&d, "ready", WAIT_MS, url2, profile2);
	ck_assert_msg(strncmp(url2, "ws://127.0.0.1:", 15) == 0, "url %s",
	    url2);
	ck_assert_int_gt(chromium_count(&d, NULL), 0);
	run_cdp_job(&d, "cdp3.txt");
	wait_file(&d, "cdp3.txt", "Browser HeadlessChrome/", buf, sizeof buf);

	/* !quit: the jobs, then the browser and its profile. */
	e2e_run(d.t, "!quit");
	ck_assert_msg(term_wait_exit(d.t, 3 * WAIT_MS, &status), "the deck "
	    "did not leave\n%s", e2e_dump(d.t));
	ck_assert_int_eq(status, 0);
	assert_gone(&d, profile2, "after !quit");
	bdeck_end(&d);
}
END_TEST

/*
 * Every other way out leaves no browser behind either: SIGTERM, SIGHUP,
 * SIGINT and `ctl quit`, with a job running.
 */
START_TEST(test_browser_ways_out)
{
	static const int	 sigs[] = { SIGTERM, SIGHUP, SIGINT, 0 };
	struct bdeck		 d;
	char			 profile[PATH_MAX], *out;
	size_t			 i;
	int			 status;

	for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		bdeck_dir(&d, "bout", "[browser]\ncdp_url = \"auto\"\n");
		bdeck_start(&d);
		EXPECT_IN(d.t, &panel, "CDP Ready", BROWSER_MS);
		wait_browser(&d, "ready", WAIT_MS, NULL, profile);
		e2e_run(d.t, "sleep 1000");
		EXPECT_IN(d.t, &panel, "Processes (1 running)", WAIT_MS);
		if (sigs[i] != 0)
			ck_assert_int_eq(kill(e2e_deck_pid(d.t), sigs[i]), 0);
		else {
			out = ctl(&d, &status, "quit", (const char *)NULL);
			ck_assert_msg(status == 0, "ctl quit: %d %s", status,
			    out);
			free(out);
		}
		ck_assert_msg(term_wait_exit(d.t, 3 * WAIT_MS, &status),
		    "the deck did not leave (%s)\n%s", sigs[i] != 0 ?
		    strsignal(sigs[i]) : "ctl quit", e2e_dump(d.t));
		assert_gone(&d, profile, sigs[i] != 0 ? strsignal(sigs[i]) :
		    "ctl quit");
		bdeck_end(&d);
	}
}
END_TEST

/*
 * A deck SIGKILLed while its browser runs leaves the browser and its
 * profile behind; the next deck (no browser of its own, the same TMPDIR)
 * kills the one and removes the other.
 */
START_TEST(test_browser_sigkilled)
{
	struct bdeck	 d, d2;
	struct stat	 sb;
	char		 profile[PATH_MAX], name[256];
	int64_t		 end;
	int		 status;

	bdeck_dir(&d, "bkill", "[browser]\ncdp_url = \"auto\"\n");
	bdeck_start(&d);
	EXPECT_IN(d.t, &panel, "CDP Ready", BROWSER_MS);
	wait_browser(&d, "ready", WAIT_MS, NULL, profile);
	ck_assert_int_eq(kill(e2e_deck_pid(d.t), SIGKILL), 0);
	ck_assert_msg(term_wait_exit(d.t, WAIT_MS, &status), "the deck "
	    "outlived SIGKILL");
	ck_assert_msg(stat(profile, &sb) == 0, "the profile %s went with the "
	    "deck: the next deck proves nothing", profile);

	/* The next deck, on a configuration without a browser. */
	d2 = d;
	snprintf(d2.name, sizeof d2.name, "bkill2");
	snprintf(d2.cfg, sizeof d2.cfg, "%s/plain.toml", d.dir);
	e2e_put_file(d.dir, "plain.toml", "", 0600);
	bdeck_start(&d2);
	end = term_now_ms() + WAIT_MS;
	while (stat(profile, &sb) == 0) {
		ck_assert_msg(term_now_ms() < end, "the dead deck's profile %s "
		    "is left after %d ms", profile, WAIT_MS);
		term_pump(d2.t, 50);
	}
	wait_no_chromium(&d2, "the next deck started");
	ck_assert_msg(tmp_entries(&d2, name, sizeof name) == 0, "%s is left "
	    "in TMPDIR %s", name, d.tmp);
	term_close(d2.t);
	bdeck_end(&d);
}
END_TEST

/*
 * A browser that crashes shows Failed with why, its URL no longer given
 * to new jobs; !browser restart brings a new one.  A browser program that
 * cannot start fails the same way, and the deck goes on.
 */
START_TEST(test_browser_crash)
{
	struct bdeck	 d;
	struct jsonread	*root;
	char		 buf[256];
	pid_t		 pid;

	bdeck_dir(&d, "bcrash", "[browser]\ncdp_url = \"auto\"\n");
	bdeck_start(&d);
	EXPECT_IN(d.t, &panel, "CDP Ready", BROWSER_MS);
	root = browser_json(&d);
	pid = (pid_t)jsonread_number(jsonread_get(root, "pid"));
	jsonread_free(root);
	ck_assert_int_gt(pid, 1);
	ck_assert_int_eq(kill(pid, SIGKILL), 0);
	EXPECT_IN(d.t, &panel, "Failed", WAIT_MS);
	EXPECT_IN(d.t, &panel, "  Failed: ", WAIT_MS);
	wait_browser(&d, "failed", WAIT_MS, NULL, NULL);
	root = browser_json(&d);
	ck_assert_msg(strstr(jsonread_text(root, "error"), "SIGKILL") != NULL ||
	    strstr(jsonread_text(root, "error"), "Killed") != NULL, "error: %s",
	    jsonread_text(root, "error"));
	jsonread_free(root);
	run_cdp_job(&d, "cdp.txt");
	wait_file(&d, "cdp.txt", "unset", buf, sizeof buf);
	e2e_run(d.t, "!browser restart");
	EXPECT_IN(d.t, &panel, "CDP Ready", BROWSER_MS);
	wait_browser(&d, "ready", WAIT_MS, NULL, NULL);
	bdeck_end(&d);
	wait_no_chromium(&d, "after the crash test's deck closed");

	/* A program that dies at once: Failed with its last line. */
	bdeck_dir(&d, "bcrash", "[browser]\ncdp_url = \"auto\"\n"
	    "browser_command = \"@/boom.sh\"\n");
	e2e_put_file(d.dir, "boom.sh", "#!/bin/sh\n"
	    "echo 'boom: no display' >&2\nexit 3\n", 0700);
	bdeck_start(&d);
	EXPECT_IN(d.t, &panel, "Failed", BROWSER_MS);
	wait_browser(&d, "failed", WAIT_MS, NULL, NULL);
	root = browser_json(&d);
	ck_assert_msg(strstr(jsonread_text(root, "error"), "boom: no display") !=
	    NULL, "error: %s", jsonread_text(root, "error"));
	jsonread_free(root);
	e2e_run(d.t, "echo still here");
	EXPECT_IN(d.t, &panel, "Exited 0", WAIT_MS);
	bdeck_end(&d);
}
END_TEST

/*
 * A ws:// URL nothing answers at: the panel and ctl say Failed, with the
 * reason (Connection refused); !browser restart tries again and fails
 * the same way.
 */
START_TEST(test_browser_refused)
{
	struct bdeck	 d;
	struct jsonread	*root;
	char		*out;
	int		 status, port = testnet_closed_port();

	bdeck_dir(&d, "brefused", e2e_fmt("[settings]\npanel_width = 90\n"
	    "[browser]\ncdp_url = \"ws://127.0.0.1:%d\"\n", port));
	bdeck_start(&d);
	EXPECT_IN(d.t, &screen, e2e_fmt("[browser] Chrome at 127.0.0.1:%d",
	    port), WAIT_MS);
	EXPECT_IN(d.t, &screen, "Failed: ", BROWSER_MS);
	EXPECT_IN(d.t, &screen, "Connection refused", WAIT_MS);
	root = browser_json(&d);
	ck_assert_str_eq(jsonread_text(root, "state"), "failed");
	ck_assert_str_eq(jsonread_text(root, "mode"), "connect");
	ck_assert_str_eq(jsonread_text(root, "url"), "");
	ck_assert_msg(strstr(jsonread_text(root, "error"), "Connection refused") !=
	    NULL, "error %s", jsonread_text(root, "error"));
	jsonread_free(root);
	out = ctl(&d, &status, "browser", (const char *)NULL);
	ck_assert_int_eq(status, 0);
	ck_assert_msg(strstr(out, "state      failed (Failed)") != NULL &&
	    strstr(out, "Connection refused") != NULL, "status: %s", out);
	free(out);

	/* A job started meanwhile gets no URL. */
	run_cdp_job(&d, "cdp.txt");
	{
		char	buf[256];

		wait_file(&d, "cdp.txt", "unset", buf, sizeof buf);
	}
	e2e_run(d.t, "!browser restart");
	EXPECT_IN(d.t, &screen, "Connection refused", BROWSER_MS);
	wait_browser(&d, "failed", BROWSER_MS, NULL, NULL);
	bdeck_end(&d);
}
END_TEST

/*
 * What a browser said comes from outside: a reason with escape sequences
 * in it is shown with them escaped, on the panel, in ctl's text and in
 * jobdeck up's line, and whole in JSON; the terminal never obeys them.
 */
START_TEST(test_browser_escaped)
{
	static const char	 shown[] = "boom \\e[2J\\e]0;pwned\\a done";
	static char		 out[65536];
	struct bdeck		 d;
	struct jsonread		*root;
	char			*text;
	int			 status;

	bdeck_dir(&d, "besc", "[settings]\npanel_width = 100\n"
	    "[browser]\ncdp_url = \"auto\"\n"
	    "browser_command = \"@/boom.sh\"\n"
	    "[[job]]\nname = \"drive\"\ncommand = \"true\"\n"
	    "depends_on = { browser = \"ready\" }\n");
	e2e_put_file(d.dir, "boom.sh", "#!/bin/sh\n"
	    "printf 'boom \\033[2J\\033]0;pwned\\007 done\\n' >&2\nexit 3\n",
	    0700);
	bdeck_start(&d);
	EXPECT_IN(d.t, &screen, shown, BROWSER_MS);
	root = browser_json(&d);
	ck_assert_msg(strstr(jsonread_text(root, "error"), "boom \033[2J\033]0;pwned"
	    "\007 done") != NULL, "error: %s", jsonread_text(root, "error"));
	jsonread_free(root);
	text = ctl(&d, &status, "browser", (const char *)NULL);
	ck_assert_msg(status == 0 && strstr(text, shown) != NULL &&
	    strchr(text, '\033') == NULL, "ctl browser: %s", text);
	free(text);
	term_close(d.t);
	d.t = NULL;

	/* jobdeck up: the browser's line, and the job that needed it. */
	status = run_in(&d, "up -c jobdeck.toml -S besc --no-color", out,
	    sizeof out);
	ck_assert_msg(status != 0 && strstr(out, shown) != NULL &&
	    strchr(out, '\033') == NULL && strstr(out, "browser | Failed: ") !=
	    NULL, "status %d:\n%s", status, out);
	bdeck_end(&d);
}
END_TEST

/* The words of the command: usage, an unknown one, ctl's exit status. */
START_TEST(test_browser_usage)
{
	struct bdeck	 d;
	char		*out;
	int		 status;

	bdeck_dir(&d, "busage", "");
	bdeck_start(&d);
	out = ctl(&d, &status, "browser", "frob", (const char *)NULL);
	ck_assert_int_eq(status, 2);
	ck_assert_msg(strstr(out, "browser: unknown word: frob") != NULL,
	    "%s", out);
	free(out);
	out = ctl(&d, &status, "browser", "start", "now", (const char *)NULL);
	ck_assert_int_eq(status, 2);
	ck_assert_msg(strstr(out, "usage: browser [start | stop | restart | "
	    "status]") != NULL || strstr(out, "usage: !browser") != NULL,
	    "%s", out);
	free(out);
	/* Not configured: idle, no row on the panel. */
	out = ctl(&d, &status, "--json", "browser", (const char *)NULL);
	ck_assert_int_eq(status, 0);
	ck_assert_msg(strstr(out, "\"state\":\"idle\"") != NULL, "%s", out);
	free(out);
	E2E_ASSERT(d.t, !term_find_in(d.t, &panel, "[browser]", NULL, NULL),
	    "a browser row for an idle browser");
	bdeck_end(&d);
}
END_TEST

/*
 * The row in every layout: 20 jobs and the browser's two lines at
 * 120x40 leave room for 11 entries (↓ 9 more with job 10 selected); one
 * line a job at 80x24 and in the narrow panel above the pane; zoomed, no
 * panel at all; the selected job stays in sight throughout.
 */
START_TEST(test_browser_layouts)
{
	struct bdeck		 d;
	struct term_rect	 r;
	struct term_cell	 c;
	int			 i, row, col, port = testnet_closed_port();

	bdeck_dir(&d, "blayout", e2e_fmt("[browser]\ncdp_url = "
	    "\"ws://127.0.0.1:%d\"\n", port));
	bdeck_start(&d);
	EXPECT_IN(d.t, &panel, "Failed", BROWSER_MS);
	for (i = 0; i < 20; i++)
		e2e_run(d.t, "sleep 1000");
	EXPECT_IN(d.t, &screen, "Processes (20 running)", 3 * WAIT_MS);
	for (i = 0; i < 10; i++) {
		term_key(d.t, TERM_KEY_CTRL_N);
		term_pump(d.t, 30);
	}
	EXPECT_IN(d.t, &panel, "[browser] Chrome at 127.0.0.1", WAIT_MS);
	EXPECT_IN(d.t, &panel, "  Failed: ", WAIT_MS);
	EXPECT_IN(d.t, &panel, "↓ 9 more", WAIT_MS);
	E2E_ASSERT(d.t, term_find_in(d.t, &panel, "[10] ", &row, &col) &&
	    term_cell(d.t, row, col, &c) == 0 && c.reverse,
	    "job 10 is not selected in sight");
	E2E_ASSERT(d.t, term_find_in(d.t, &panel, "[browser]", &row, &col) &&
	    row == 1, "the browser's row is not the panel's first");

	/* 80x24: a line a job and a line of browser; all 20 fit. */
	term_resize(d.t, 24, 80);
	r = (struct term_rect){ 0, 0, 23, 26 };
	EXPECT_IN(d.t, &r, "[browser] Chrome", WAIT_MS);
	EXPECT_IN(d.t, &r, "Failed", WAIT_MS);
	EXPECT_IN(d.t, &r, "[20] ", WAIT_MS);
	EXPECT_GONE_IN(d.t, &r, "more", WAIT_MS);
	EXPECT_GONE_IN(d.t, &r, "Failed: ", WAIT_MS);

	/* 80x16: short; job 10 still in sight. */
	term_resize(d.t, 16, 80);
	r = (struct term_rect){ 0, 0, 15, 26 };
	EXPECT_IN(d.t, &r, "[browser]", WAIT_MS);
	EXPECT_IN(d.t, &r, "[10] ", WAIT_MS);
	EXPECT_IN(d.t, &r, "more", WAIT_MS);

	/* 50 columns: the panel above the pane, the row first in it. */
	term_resize(d.t, 30, 50);
	r = (struct term_rect){ 0, 0, 9, 50 };
	EXPECT_IN(d.t, &r, "[browser]", WAIT_MS);
	EXPECT_IN(d.t, &r, "[10] ", WAIT_MS);

	/* Zoomed: no panel, no row; back again. */
	term_resize(d.t, 40, 120);
	EXPECT_IN(d.t, &panel, "  Failed: ", WAIT_MS);
	EXPECT_IN(d.t, &panel, "[10] ", WAIT_MS);
	term_type(d.t, "\x1a");
	EXPECT_GONE_IN(d.t, &screen, "[browser]", WAIT_MS);
	term_type(d.t, "\x1a");
	EXPECT_IN(d.t, &panel, "[browser]", WAIT_MS);
	bdeck_end(&d);
}
END_TEST

/*
 * A click on the panel under the browser's row selects the job drawn
 * there (the row counted), and a click on the row selects nothing.
 * Rows from 0 (term_mouse's too): the row on 1-2, job 1 on 3-5, job 2 on
 * 6-8, job 3 on 9-11.
 */
START_TEST(test_browser_click)
{
	static const struct term_rect	 title = { 0, 40, 1, 80 };
	struct bdeck			 d;
	int				 port = testnet_closed_port();

	bdeck_dir(&d, "bclick", e2e_fmt("[browser]\ncdp_url = "
	    "\"ws://127.0.0.1:%d\"\n", port));
	bdeck_start(&d);
	EXPECT_IN(d.t, &panel, "Failed", BROWSER_MS);
	e2e_run(d.t, "sleep 101");
	e2e_run(d.t, "sleep 102");
	e2e_run(d.t, "sleep 103");
	EXPECT_IN(d.t, &title, "[3] sleep 103", WAIT_MS);
	/* The last lines of jobs 1 and 2 (a row too few: 2 and 3). */
	term_mouse(d.t, 0, 5, 10, 1);
	term_mouse(d.t, 0, 5, 10, 0);
	EXPECT_IN(d.t, &title, "[1] sleep 101", WAIT_MS);
	term_mouse(d.t, 0, 8, 10, 1);
	term_mouse(d.t, 0, 8, 10, 0);
	EXPECT_IN(d.t, &title, "[2] sleep 102", WAIT_MS);
	term_mouse(d.t, 0, 1, 10, 1);
	term_mouse(d.t, 0, 1, 10, 0);
	term_pump(d.t, 300);
	EXPECT_IN(d.t, &title, "[2] sleep 102", WAIT_MS);
	bdeck_end(&d);
}
END_TEST

/*
 * cdp_url = null is not TOML: --check-config fails, says where, and what
 * to write instead.
 */
START_TEST(test_browser_null)
{
	struct bdeck	d;
	char		out[4096];
	int		status;

	bdeck_dir(&d, "bnull", "[browser]\ncdp_url = null\n");
	status = e2e_batch(e2e_fmt("-c %s --check-config", d.cfg), out,
	    sizeof out);
	ck_assert_msg(status == 2, "status %d: %s", status, out);
	ck_assert_str_eq(out, e2e_fmt("jobdeck: %s:2:11: cdp_url = null is "
	    "not TOML: leave cdp_url out, or write cdp_url = false, for no "
	    "browser\n", d.cfg));
	bdeck_end(&d);
}
END_TEST

/*
 * jobdeck up: the browser's changes as lines under "browser" (Starting…,
 * CDP Ready with its URL); a job that depends on it (browser = "ready")
 * starts once it is ready, with the URL; at the end, after the jobs, the
 * browser is stopped and says so, no process and no profile left.
 */
START_TEST(test_browser_up)
{
	struct bdeck	 d;
	static char	 out[65536];
	char		 cdp[4096];
	const char	*ready, *started, *drive, *stopped;
	int		 status;

	bdeck_dir(&d, "bup", "[browser]\ncdp_url = \"auto\"\n"
	    "[[job]]\nname = \"drive\"\n"
	    "command = \"python3 @/cdp.py @/cdp.txt\"\n"
	    "depends_on = { browser = \"ready\" }\n");
	status = run_in(&d, "up -c jobdeck.toml -S bup --no-color", out,
	    sizeof out);
	ck_assert_msg(status == 0, "status %d:\n%s", status, out);
	ck_assert_msg(strstr(out, "browser | Starting…\n") != NULL, "no "
	    "Starting:\n%s", out);
	ready = strstr(out, "browser | CDP Ready ws://127.0.0.1:");
	started = strstr(out, "drive   | started (pid ");
	drive = strstr(out, "drive   | exited with code 0\n");
	stopped = strstr(out, "browser | Stopped\n");
	ck_assert_msg(ready != NULL && started != NULL && drive != NULL &&
	    stopped != NULL && ready < started && started < drive &&
	    drive < stopped, "not ready, the job's start, its end, stopped "
	    "in that order:\n%s", out);
	e2e_get_file(d.dir, "cdp.txt", cdp, sizeof cdp);
	ck_assert_msg(strstr(cdp, "Browser HeadlessChrome/") != NULL,
	    "the job's cdp.txt: \"%s\"\n%s", cdp, out);
	assert_gone(&d, NULL, "after jobdeck up");
	bdeck_end(&d);
}
END_TEST

/*
 * On the screen too: a configured job that waits for the browser to be
 * ready starts with its URL.
 */
START_TEST(test_browser_depends)
{
	struct bdeck	d;
	char		buf[4096], url[PATH_MAX], want[PATH_MAX + 8];

	bdeck_dir(&d, "bdep", "[browser]\ncdp_url = \"auto\"\n"
	    "[[job]]\nname = \"drive\"\n"
	    "command = \"python3 @/cdp.py @/cdp.txt\"\n"
	    "depends_on = { browser = \"ready\" }\n");
	bdeck_start(&d);
	EXPECT_IN(d.t, &panel, "CDP Ready", BROWSER_MS);
	wait_browser(&d, "ready", WAIT_MS, url, NULL);
	wait_file(&d, "cdp.txt", "Browser HeadlessChrome/", buf, sizeof buf);
	snprintf(want, sizeof want, "url %s\n", url);
	ck_assert_msg(strncmp(buf, want, strlen(want)) == 0, "the job got "
	    "\"%s\", not %s", buf, url);
	bdeck_end(&d);
}
END_TEST

/* Return whether a Docker daemon answers here. */
static int
docker_answers(void)
{
	return system("docker version >/dev/null 2>&1") == 0;
}

/*
 * Docker mode: with browser_image set and a daemon answering, the browser
 * runs in a container and reaches CDP Ready; !quit removes the container.
 * Without a daemon: SKIP.
 */
START_TEST(test_browser_docker)
{
	struct bdeck	 d;
	struct jsonread	*root;
	char		 name[256], cmd[512], out[256];
	int		 status;

	if (!docker_answers())
		TEST_SKIP("no Docker daemon answers (docker version)");
	bdeck_dir(&d, "bdocker", "[browser]\ncdp_url = \"auto\"\n"
	    "browser_image = \"zenika/alpine-chrome:latest\"\n"
	    "browser_timeout = 300\n");
	bdeck_start(&d);
	EXPECT_IN(d.t, &panel, "[browser] Chrome in Docker", WAIT_MS);
	EXPECT_IN(d.t, &panel, "CDP Ready", 300000);
	root = browser_json(&d);
	ck_assert_str_eq(jsonread_text(root, "kind"), "docker");
	snprintf(name, sizeof name, "%s", jsonread_text(root, "container"));
	jsonread_free(root);
	ck_assert_msg(name[0] != '\0', "no container");
	e2e_run(d.t, "!quit");
	ck_assert(term_wait_exit(d.t, 3 * WAIT_MS, &status));
	snprintf(cmd, sizeof cmd, "docker ps -aq --filter name=%s", name);
	out[0] = '\0';
	{
		FILE	*f = popen(cmd, "r");
		size_t	 n;

		ck_assert_ptr_nonnull(f);
		n = fread(out, 1, sizeof out - 1, f);
		out[n] = '\0';
		pclose(f);
	}
	ck_assert_msg(out[0] == '\0', "container %s is left", name);
	bdeck_end(&d);
}
END_TEST

static Suite *
browser_suite(void)
{
	static const struct e2e_case	cases[] = {
		{ "browser_usage", &test_browser_usage, 30 },
		{ "browser_null", &test_browser_null, 20 },
		{ "browser_escaped", &test_browser_escaped, 120 },
		{ "browser_refused", &test_browser_refused, 90 },
		{ "browser_layouts", &test_browser_layouts, 90 },
		{ "browser_click", &test_browser_click, 60 },
		{ "browser_auto", &test_browser_auto, 300 },
		{ "browser_ways_out", &test_browser_ways_out, 240 },
		{ "browser_sigkilled", &test_browser_sigkilled, 180 },
		{ "browser_crash", &test_browser_crash, 180 },
		{ "browser_up", &test_browser_up, 180 },
		{ "browser_depends", &test_browser_depends, 120 },
		{ "browser_docker", &test_browser_docker, 400 },
	};
	Suite				*s = suite_create("browser_e2e");

	e2e_add_cases(s, cases, sizeof cases / sizeof cases[0]);
	return s;
}

/* Run the suite; the exit status says whether every test passed. */
int
main(void)
{
	return e2e_main(browser_suite());
}

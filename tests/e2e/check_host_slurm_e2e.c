/*
 * check_host_slurm_e2e.c: jobs on a Slurm host end to end (issue 28).
 * The suite starts the tests' one-node cluster once (tests/testslurm.h:
 * munged, slurmctld and slurmd on 127.0.0.1); every test skips, saying
 * why, when it could not start here.  Each test writes a configuration
 * with [hosts.NAME] slurm = [...] into a private directory (also the
 * jobs' cwd), starts the real deck on the 120x40 pty with the cluster's
 * SLURM_CONF and PATH (the deck runs srun, squeue and scancel from its
 * own PATH), and reads it through the real `jobdeck ctl -S NAME --json`
 * (tests/jsonread.h), its screen, and the cluster's own squeue.  The
 * cluster's node has all its memory as one consumable: a job of the
 * host "big" (--exclusive, no --mem) fills it, jobs of "gpu" ask for
 * little memory and share it.  After each test the cluster is emptied
 * (scancel --user: the cluster is the suite's own) so the next one
 * finds the node free.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
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
#include "testslurm.h"

#define WAIT_MS		60000	/* any condition a test waits for */
#define HOSTS		"[hosts.gpu]\nslurm = [\"--mem=16M\"]\n\n"	\
			"[hosts.big]\nslurm = [\"--exclusive\"]\n\n"

static const struct term_rect	 panel = { 0, 0, 39, 40 };
static const struct term_rect	 pane = { 1, 40, 37, 80 };
static const struct term_rect	 pane_title = { 0, 40, 1, 80 };

static struct testslurm		*ts;
static char			 ts_why[2048];
static size_t			 cases_left;	/* till the cluster stops */

/* Skip the test when the suite's cluster did not start. */
#define CLUSTER() do {							\
	if (ts == NULL)							\
		TEST_SKIP("no Slurm cluster: %s", ts_why);		\
} while (0)

/* A deck under test and its directory. */
struct deck {
	struct term	*t;
	char		 name[32];
	char		 run[PATH_MAX];	/* its XDG_RUNTIME_DIR */
	char		 dir[256];	/* config and the jobs' cwd */
	char		 cfg[256];
	char		 conf[PATH_MAX + 16];	/* SLURM_CONF=... */
	char		 path[8192];		/* PATH=... */
};

/*
 * Start the suite's cluster before its first test case (once: this runs
 * in the runner's process, so the cluster outlives each test's fork).
 */
static void
cluster_setup(void)
{
	static int	tried;

	if (!tried)
		ts = testslurm_start(ts_why, sizeof ts_why);
	tried = 1;
}

/* Stop the suite's cluster after its last test case. */
static void
cluster_teardown(void)
{
	if (cases_left > 0 && --cases_left == 0) {
		testslurm_stop(ts);
		ts = NULL;
	}
}

/* Run a Slurm command argv on the cluster; its output in out, exit 0. */
static void
slurm_cmd(const char *const argv[], char *out, size_t len)
{
	int	status;

	status = testslurm_run(ts, argv, out, len);
	ck_assert_msg(status != -1 && WIFEXITED(status) &&
	    WEXITSTATUS(status) == 0, "%s failed (status 0x%x): %s", argv[0],
	    status, out);
}

/* Return whether a job of the queue has a name starting with prefix. */
static int
squeue_has(const char *prefix, char *out, size_t len)
{
	const char *const	 argv[] = { "squeue", "-h", "-o", "%j|%i|%T",
	    NULL };
	const char		*p;

	slurm_cmd(argv, out, len);
	for (p = out; *p != '\0'; p = strchr(p, '\n') + 1) {
		if (strncmp(p, prefix, strlen(prefix)) == 0)
			return 1;
		if (strchr(p, '\n') == NULL)
			break;
	}
	return 0;
}

/* Wait until no job of the queue has a name starting with prefix. */
static void
wait_squeue_gone(struct term *t, const char *prefix)
{
	int64_t	end = term_now_ms() + WAIT_MS;
	char	out[4096];

	while (squeue_has(prefix, out, sizeof out)) {
		ck_assert_msg(term_now_ms() < end, "%s* still in squeue after "
		    "%d ms:\n%s", prefix, WAIT_MS, out);
		if (t != NULL)
			term_pump(t, 200);
		else
			usleep(200000);
	}
}

/*
 * Write the deck's configuration toml, each "@" in it standing for the
 * deck's directory.
 */
static void
deck_config(struct deck *d, const char *toml)
{
	const char	*p;
	char		*text, *q;

	text = malloc(strlen(toml) * (strlen(d->dir) + 1) + 1);
	ck_assert_ptr_nonnull(text);
	for (p = toml, q = text; *p != '\0'; p++) {
		if (*p == '@')
			q = stpcpy(q, d->dir);
		else
			*q++ = *p;
	}
	*q = '\0';
	e2e_put_file(d->dir, "slurm.toml", text, 0600);
	free(text);
}

/* Copy the cluster's SLURM_CONF and PATH into the deck's environment. */
static void
deck_env(struct deck *d)
{
	char *const	*e;

	for (e = testslurm_env(ts); *e != NULL; e++) {
		if (strncmp(*e, "SLURM_CONF=", 11) == 0)
			snprintf(d->conf, sizeof d->conf, "%s", *e);
		else if (strncmp(*e, "PATH=", 5) == 0)
			snprintf(d->path, sizeof d->path, "%s", *e);
	}
	ck_assert_msg(d->conf[0] != '\0' && d->path[0] != '\0',
	    "the cluster's environment lacks SLURM_CONF or PATH");
}

/* Start the deck named name on the configuration already written. */
static void
deck_open(struct deck *d)
{
	const char	*args[] = { "-c", d->cfg, "-S", d->name, NULL };
	const char	*env[] = { d->conf, d->path, NULL };

	d->t = e2e_start(args, env);
	ck_assert(snprintf(d->run, sizeof d->run, "%s/run",
	    term_tmpdir(d->t)) < (int)sizeof d->run);
}

/* Write the configuration toml and start the deck named name on it. */
static void
deck_start(struct deck *d, const char *name, const char *toml)
{
	const char	*path;
	char		*slash;

	memset(d, 0, sizeof *d);
	path = e2e_cfg_write("slurm.toml", "");
	snprintf(d->cfg, sizeof d->cfg, "%s", path);
	snprintf(d->dir, sizeof d->dir, "%s", path);
	slash = strrchr(d->dir, '/');
	ck_assert_ptr_nonnull(slash);
	*slash = '\0';
	deck_config(d, toml);
	snprintf(d->name, sizeof d->name, "%s", name);
	deck_env(d);
	deck_open(d);
}

/*
 * Close the deck's terminal, empty the cluster for the next test (it is
 * the suite's own) and remove the deck's directory.
 */
static void
deck_end(struct deck *d)
{
	const char *const	 argv[] = { "sh", "-c",
	    "scancel --user=\"$(id -un)\"", NULL };
	char			 out[4096];

	if (d->t != NULL)
		term_close(d->t);
	d->t = NULL;
	slurm_cmd(argv, out, sizeof out);
	wait_squeue_gone(NULL, "");
	e2e_cfg_remove();
}

/* Run `jobdeck ctl ARGS...` (NULL-ended) on the deck; its output (to free). */
static char *
ctl(struct deck *d, ...)
{
	va_list	 ap;
	char	*out;

	va_start(ap, d);
	out = e2e_ctl_okv(d->t, d->name, d->run, 0, ap);
	va_end(ap);
	return out;
}

/* Parse text as JSON, or fail saying what it was. */
static struct jsonread *
parse(const char *text)
{
	struct jsonread	*root;
	char		*cause = NULL;

	root = jsonread_parse(text, strlen(text), &cause);
	ck_assert_msg(root != NULL, "bad JSON (%s): %s", cause, text);
	return root;
}

/* Return job name of `ctl --json ps` (NULL: none) in *job; free root. */
static struct jsonread *
job_json(struct deck *d, const char *name, const struct jsonread **job)
{
	struct jsonread		*root;
	const struct jsonread	*jobs, *j;
	const char		*jn;
	char			*out;
	size_t			 i;

	out = ctl(d, "--json", "ps", (const char *)NULL);
	root = parse(out);
	free(out);
	jobs = jsonread_get(root, "jobs");
	*job = NULL;
	for (i = 0; i < jsonread_count(jobs); i++) {
		j = jsonread_index(jobs, i);
		jn = jsonread_string(jsonread_get(j, "name"), NULL);
		if (jn != NULL && strcmp(jn, name) == 0)
			*job = j;
	}
	return root;
}

/*
 * Copy job name's string at key (host.slurm.KEY when slurm is set) into
 * buf (a number as %g): "" when null or missing; all of ps in all.
 */
static void
job_get(struct deck *d, const char *name, int slurm, const char *key,
    char *buf, size_t len, char *all, size_t alen)
{
	const struct jsonread	*job, *v;
	struct jsonread		*root;
	char			*out;
	const char		*s;

	out = ctl(d, "--json", "ps", (const char *)NULL);
	snprintf(all, alen, "%s", out);
	free(out);
	root = job_json(d, name, &job);
	buf[0] = '\0';
	v = job;
	if (v != NULL && slurm)
		v = jsonread_get(jsonread_get(v, "host"), "slurm");
	if (v != NULL && (v = jsonread_get(v, key)) != NULL) {
		if (jsonread_type(v) == JSONREAD_NUMBER)
			snprintf(buf, len, "%g", jsonread_number(v));
		else if ((s = jsonread_string(v, NULL)) != NULL)
			snprintf(buf, len, "%s", s);
	}
	jsonread_free(root);
}

/*
 * Wait until job name's key (host.slurm.KEY when slurm is set) is want
 * (NULL: anything but null); its value in buf.
 */
static void
wait_job(struct deck *d, const char *name, int slurm, const char *key,
    const char *want, char *buf, size_t len)
{
	int64_t	end = term_now_ms() + WAIT_MS;
	char	all[16384];

	for (;;) {
		job_get(d, name, slurm, key, buf, len, all, sizeof all);
		if (want != NULL ? strcmp(buf, want) == 0 : buf[0] != '\0')
			return;
		ck_assert_msg(term_now_ms() < end, "job %s: %s%s is \"%s\", "
		    "not \"%s\" after %d ms: %s\n%s", name, slurm ?
		    "host.slurm." : "", key, buf, want != NULL ? want :
		    "(any)", WAIT_MS, all, e2e_dump(d->t));
		term_pump(d->t, 200);
	}
}

/*
 * 1. A job of a Slurm host runs on the cluster: its output (Slurm's job
 * id, the node's name), its cwd (--chdir) and a value of its env from
 * the configuration, byte-exact; the job object says where it ran.
 */
START_TEST(test_slurm_runs)
{
	struct deck	 d;
	const char	*toml = HOSTS
	    "[[job]]\nname = \"s\"\nhost = \"gpu\"\ncwd = \"@\"\n"
	    "env = { V = \"a b $x  'q' \\\"d\\\"\" }\n"
	    "command = \"echo id=$SLURM_JOB_ID; echo node=$(hostname); "
	    "echo cwd=$(pwd); printf 'V=[%s]\\\\n' \\\"$V\\\"\"\n";
	char		 buf[256], want[512], *out;

	CLUSTER();
	deck_start(&d, "sl1", toml);
	wait_job(&d, "s", 0, "state", "completed", buf, sizeof buf);
	e2e_wait_logs(d.t, d.name, d.run, "s", "V=[a b $x  'q' \"d\"]",
	    WAIT_MS);
	snprintf(want, sizeof want, "node=%s", testslurm_node(ts));
	e2e_wait_logs(d.t, d.name, d.run, "s", want, WAIT_MS);
	snprintf(want, sizeof want, "cwd=%s", d.dir);
	e2e_wait_logs(d.t, d.name, d.run, "s", want, WAIT_MS);
	out = ctl(&d, "logs", "s", (const char *)NULL);
	ck_assert_msg(strstr(out, "id=") != NULL && strstr(out, "id=")[3] >=
	    '1' && strstr(out, "id=")[3] <= '9', "no Slurm job id: %s", out);
	free(out);
	out = ctl(&d, "--json", "ps", (const char *)NULL);
	ck_assert_msg(strstr(out, "\"host\":{\"name\":\"gpu\",\"engine\":"
	    "\"slurm\",\"slurm\":{") != NULL, "the job's host: %s", out);
	free(out);
	wait_job(&d, "s", 0, "code", "0", buf, sizeof buf);
	deck_end(&d);
}
END_TEST

/* Return job name's id (fails when it has none). */
static int
job_id(struct deck *d, const char *name)
{
	char	buf[64];

	wait_job(d, name, 0, "id", NULL, buf, sizeof buf);
	return atoi(buf);
}

/* Return the Slurm job name of job name of the deck: jobdeck-DECK-ID. */
static const char *
token(struct deck *d, const char *name)
{
	static char	buf[128];

	snprintf(buf, sizeof buf, "jobdeck-%s-%d", d->name, job_id(d, name));
	return buf;
}

/*
 * 2. A job that finds the node full is PENDING in its object, with
 * Slurm's reason, and "Queued by Slurm" on the panel; once the job that
 * fills the node is killed it runs: RUNNING, on the node, with its id.
 */
START_TEST(test_slurm_pending)
{
	struct deck	 d;
	const char	*toml = HOSTS
	    "[[job]]\nname = \"a\"\nhost = \"big\"\n"
	    "command = \"echo a-runs; sleep 1000\"\n\n"
	    "[[job]]\nname = \"b\"\nhost = \"gpu\"\nautostart = false\n"
	    "command = \"echo b-runs; sleep 1000\"\n";
	char		 buf[256], id[64], want[256], *out;

	CLUSTER();
	deck_start(&d, "sl2", toml);
	wait_job(&d, "a", 1, "state", "RUNNING", buf, sizeof buf);
	e2e_wait_logs(d.t, d.name, d.run, "a", "a-runs", WAIT_MS);
	free(ctl(&d, "run", "b", (const char *)NULL));
	wait_job(&d, "b", 1, "state", "PENDING", buf, sizeof buf);
	wait_job(&d, "b", 1, "reason", NULL, buf, sizeof buf);
	ck_assert_msg(strncmp(buf, "Resources", 9) == 0 ||
	    strncmp(buf, "Priority", 8) == 0, "reason: %s", buf);
	EXPECT_IN(d.t, &panel, "Queued by Slurm (", WAIT_MS);
	EXPECT_IN(d.t, &panel, "◌ Queued", WAIT_MS);
	free(ctl(&d, "kill", "a", (const char *)NULL));
	wait_job(&d, "b", 1, "state", "RUNNING", buf, sizeof buf);
	wait_job(&d, "b", 1, "nodes", testslurm_node(ts), buf, sizeof buf);
	wait_job(&d, "b", 1, "job_id", NULL, id, sizeof id);
	ck_assert_msg(strspn(id, "0123456789") == strlen(id), "job_id %s",
	    id);
	e2e_wait_logs(d.t, d.name, d.run, "b", "b-runs", WAIT_MS);
	/* The panel's column cuts the job id off: "on NODE ·…". */
	snprintf(want, sizeof want, "on %s ·", testslurm_node(ts));
	EXPECT_IN(d.t, &panel, want, WAIT_MS);
	EXPECT_IN(d.t, &panel, "Running for ", WAIT_MS);
	EXPECT_GONE_IN(d.t, &panel, "Queued by Slurm", WAIT_MS);
	out = ctl(&d, "--json", "ps", (const char *)NULL);
	ck_assert_msg(strstr(out, "\"engine\":\"slurm\"") != NULL, "%s", out);
	free(out);
	deck_end(&d);
}
END_TEST

/* 3. A --pty job on the cluster answers what is typed into its focus. */
START_TEST(test_slurm_focus)
{
	struct deck	 d;
	const char	*toml = HOSTS
	    "[[job]]\nname = \"p\"\nhost = \"gpu\"\n"
	    "command = \"printf 'name? '; read n; echo \\\"hi $n\\\"\"\n";
	char		 buf[64];

	CLUSTER();
	deck_start(&d, "sl3", toml);
	EXPECT_IN(d.t, &pane, "name? ", WAIT_MS);
	term_key(d.t, TERM_KEY_CTRL_T);
	EXPECT_IN(d.t, &pane_title, "[Focused]", WAIT_MS);
	term_type(d.t, "Ada");
	EXPECT_IN(d.t, &pane, "name? Ada", WAIT_MS);
	term_key(d.t, TERM_KEY_ENTER);
	EXPECT_IN(d.t, &pane, "hi Ada", WAIT_MS);
	wait_job(&d, "p", 0, "state", "completed", buf, sizeof buf);
	deck_end(&d);
}
END_TEST

/*
 * 4. !kill of a PENDING job cancels it at once: gone from squeue, the
 * job canceled, the running one untouched; !kill of the running one
 * ends it and its Slurm job leaves the queue (after the cluster's
 * KillWait).
 */
START_TEST(test_slurm_kill)
{
	struct deck	 d;
	const char	*toml = HOSTS
	    "[[job]]\nname = \"r\"\nhost = \"big\"\n"
	    "command = \"echo r-runs; sleep 1000\"\n\n"
	    "[[job]]\nname = \"q\"\nhost = \"gpu\"\nautostart = false\n"
	    "command = \"echo q-runs; sleep 1000\"\n";
	char		 buf[256], r[160], q[160], line[64], out[4096];

	CLUSTER();
	deck_start(&d, "sl4", toml);
	wait_job(&d, "r", 1, "state", "RUNNING", buf, sizeof buf);
	snprintf(r, sizeof r, "%s|", token(&d, "r"));
	free(ctl(&d, "run", "q", (const char *)NULL));
	wait_job(&d, "q", 1, "state", "PENDING", buf, sizeof buf);
	snprintf(q, sizeof q, "%s|", token(&d, "q"));
	E2E_ASSERT(d.t, squeue_has(q, out, sizeof out), "q not in squeue");
	snprintf(line, sizeof line, "!kill %d", job_id(&d, "q"));
	e2e_run(d.t, line);
	wait_squeue_gone(d.t, q);
	wait_job(&d, "q", 0, "state", "canceled", buf, sizeof buf);
	E2E_ASSERT(d.t, squeue_has(r, out, sizeof out),
	    "r left the queue with q");
	job_get(&d, "r", 0, "state", buf, sizeof buf, out, sizeof out);
	ck_assert_msg(strcmp(buf, "running") == 0, "r: %s", out);
	snprintf(line, sizeof line, "!kill %d", job_id(&d, "r"));
	e2e_run(d.t, line);
	wait_job(&d, "r", 0, "state", "canceled", buf, sizeof buf);
	wait_squeue_gone(d.t, r);
	deck_end(&d);
}
END_TEST

/* 5. !quit with Slurm jobs running leaves none of the deck's in squeue. */
START_TEST(test_slurm_quit)
{
	struct deck	 d;
	const char	*toml = HOSTS
	    "[[job]]\nname = \"x\"\nhost = \"gpu\"\n"
	    "command = \"trap '' TERM; echo x-runs; while :; do sleep 1; "
	    "done\"\n\n"
	    "[[job]]\nname = \"y\"\nhost = \"gpu\"\n"
	    "command = \"echo y-runs; sleep 1000\"\n";
	char		 buf[256], out[4096];
	int		 status;

	CLUSTER();
	deck_start(&d, "sl5", toml);
	wait_job(&d, "x", 1, "state", "RUNNING", buf, sizeof buf);
	wait_job(&d, "y", 1, "state", "RUNNING", buf, sizeof buf);
	e2e_wait_logs(d.t, d.name, d.run, "x", "x-runs", WAIT_MS);
	E2E_ASSERT(d.t, squeue_has("jobdeck-sl5-", out, sizeof out),
	    "the jobs are not in squeue");
	e2e_run(d.t, "!quit");
	ck_assert_msg(term_wait_exit(d.t, WAIT_MS, &status), "the deck did "
	    "not end within %d ms of !quit\n%s", WAIT_MS, e2e_dump(d.t));
	wait_squeue_gone(NULL, "jobdeck-sl5-");
	deck_end(&d);
}
END_TEST

/* Return the pid in /proc/PID/comm is name's, else 0. */
static int
proc_is(pid_t pid, const char *name)
{
	char	path[64], comm[64] = "";
	FILE	*f;

	snprintf(path, sizeof path, "/proc/%ld/comm", (long)pid);
	if ((f = fopen(path, "r")) == NULL)
		return 0;
	if (fgets(comm, sizeof comm, f) == NULL)
		comm[0] = '\0';
	fclose(f);
	comm[strcspn(comm, "\n")] = '\0';
	return strcmp(comm, name) == 0;
}

/* Stop pid and its descendants (srun --pty is two processes). */
static void
proc_stop_tree(pid_t pid)
{
	DIR		*dir;
	struct dirent	*de;
	char		 path[300], line[512], *rp;
	FILE		*f;
	long		 ppid;

	ck_assert_int_eq(kill(pid, SIGSTOP), 0);
	ck_assert_ptr_nonnull(dir = opendir("/proc"));
	while ((de = readdir(dir)) != NULL) {
		if (strspn(de->d_name, "0123456789") != strlen(de->d_name))
			continue;
		snprintf(path, sizeof path, "/proc/%s/stat", de->d_name);
		if ((f = fopen(path, "r")) == NULL)
			continue;
		if (fgets(line, sizeof line, f) != NULL &&
		    (rp = strrchr(line, ')')) != NULL &&
		    sscanf(rp + 1, " %*c %ld", &ppid) == 1 && ppid == pid)
			proc_stop_tree((pid_t)atol(de->d_name));
		fclose(f);
	}
	closedir(dir);
}

/*
 * Put a squeue that answers two seconds late first in the deck's PATH
 * (DIR/bin/squeue, then the real one from the PATH it had).
 */
static void
slow_squeue(struct deck *d)
{
	char	bin[PATH_MAX], text[9000], path[sizeof d->path];

	snprintf(bin, sizeof bin, "%s/bin", d->dir);
	ck_assert_int_eq(mkdir(bin, 0700), 0);
	snprintf(text, sizeof text, "#!/bin/sh\nsleep 2\nPATH='%s' exec "
	    "squeue \"$@\"\n", d->path + 5);
	e2e_put_file(bin, "squeue", text, 0700);
	snprintf(path, sizeof path, "PATH=%s:%s", bin, d->path + 5);
	memcpy(d->path, path, sizeof path);
}

/*
 * 6. A deck killed with a job running, and its srun (killed, its child
 * stopped first: a srun that hears the hangup cancels its job itself),
 * leaves its Slurm job in the queue; a new deck of the same name and configuration,
 * whose own job has the old one's Slurm name, cancels it, and its own
 * job runs on.
 */
static void
sweep_case(int slow)
{
	struct deck	 d;
	struct term	*dead;
	const char	*toml = HOSTS
	    "[[job]]\nname = \"z\"\nhost = \"gpu\"\n"
	    "command = \"echo z-runs; sleep 1000\"\n";
	char		 buf[256], old[64], id[64], out[4096], pat[128];
	pid_t		 deck, srun;
	int64_t		 end;
	int		 status;

	deck_start(&d, "sl6", toml);
	wait_job(&d, "z", 1, "state", "RUNNING", buf, sizeof buf);
	wait_job(&d, "z", 1, "job_id", NULL, old, sizeof old);
	wait_job(&d, "z", 0, "pid", NULL, buf, sizeof buf);
	srun = (pid_t)atol(buf);
	E2E_ASSERT(d.t, proc_is(srun, "srun"), e2e_fmt("job z's pid %ld is "
	    "not srun", (long)srun));
	deck = e2e_deck_pid(d.t);
	proc_stop_tree(srun);
	ck_assert_int_eq(kill(srun, SIGKILL), 0);
	ck_assert_int_eq(kill(deck, SIGKILL), 0);
	E2E_ASSERT(d.t, term_wait_pid_dead(d.t, deck, WAIT_MS),
	    "the deck survived SIGKILL");
	ck_assert_msg(term_wait_exit(d.t, WAIT_MS, &status), "the client did "
	    "not end with its deck\n%s", e2e_dump(d.t));
	snprintf(pat, sizeof pat, "jobdeck-sl6-1|%s|", old);
	ck_assert_msg(squeue_has(pat, out, sizeof out), "the dead deck's job "
	    "%s left the queue by itself:\n%s", old, out);
	/* Its terminal (and the hung srun) stays till the end. */
	dead = d.t;
	if (slow)
		slow_squeue(&d);
	deck_open(&d);
	wait_squeue_gone(d.t, pat);
	/* Its job is the new one (squeue may name the old one till swept). */
	end = term_now_ms() + WAIT_MS;
	do {
		ck_assert_msg(term_now_ms() < end, "the new deck's job z is "
		    "still the old Slurm job %s: %s", old, out);
		term_pump(d.t, 200);
		job_get(&d, "z", 1, "job_id", id, sizeof id, out, sizeof out);
	} while (id[0] == '\0' || strcmp(id, old) == 0);
	wait_job(&d, "z", 1, "state", "RUNNING", buf, sizeof buf);
	e2e_wait_logs(d.t, d.name, d.run, "z", "z-runs", WAIT_MS);
	(void)kill(srun, SIGKILL);
	term_close(dead);
	deck_end(&d);
}

/* A dead deck's job is cancelled by the next deck of its name. */
START_TEST(test_slurm_sweep)
{
	CLUSTER();
	sweep_case(0);
}
END_TEST

/* ... also when the new deck's squeue is slower than its first job. */
START_TEST(test_slurm_sweep_slow)
{
	CLUSTER();
	sweep_case(1);
}
END_TEST

/*
 * 7. jobdeck run --host gpu runs a program in a job of the cluster
 * without a screen: its stdout and stderr apart, its exit status ours.
 */
START_TEST(test_slurm_run_cli)
{
	struct deck	 d;
	char		 out[4096], err[4096];
	pid_t		 pid;
	int		 status, fd;

	CLUSTER();
	memset(&d, 0, sizeof d);
	snprintf(d.cfg, sizeof d.cfg, "%s", e2e_cfg_write("slurm.toml",
	    HOSTS));
	snprintf(d.dir, sizeof d.dir, "%s", d.cfg);
	*strrchr(d.dir, '/') = '\0';
	deck_env(&d);
	ck_assert_int_ne(pid = fork(), -1);
	if (pid == 0) {
		if (chdir(d.dir) == -1 || putenv(d.conf) != 0 ||
		    putenv(d.path) != 0)
			_exit(127);
		fd = open("/dev/null", O_RDONLY);
		dup2(fd, 0);
		fd = open("out", O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fd, 1);
		fd = open("err", O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fd, 2);
		execl(e2e_bin(), e2e_bin(), "run", "-c", d.cfg, "--timeout",
		    "120", "--host", "gpu", "--", "sh", "-c", "echo "
		    "out:$SLURM_JOB_ID; echo err >&2; exit 3", (char *)NULL);
		_exit(127);
	}
	ck_assert_msg(testslurm_wait(pid, &status, WAIT_MS * 3) == 0,
	    "jobdeck run did not end");
	e2e_get_file(d.dir, "out", out, sizeof out);
	e2e_get_file(d.dir, "err", err, sizeof err);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 3,
	    "jobdeck run: status 0x%x, not exit 3; out: %s; err: %s", status,
	    out, err);
	/* Slurm's job id: it ran in a job of the cluster. */
	ck_assert_msg(strncmp(out, "out:", 4) == 0 && out[4] >= '1' &&
	    out[4] <= '9' && strspn(out + 4, "0123456789") ==
	    strlen(out + 4) - 1 && out[strlen(out) - 1] == '\n',
	    "stdout: \"%s\" (err: %s)", out, err);
	ck_assert_msg(strstr(err, "err\n") != NULL && strstr(err, "out") ==
	    NULL, "stderr: \"%s\"", err);
	wait_squeue_gone(NULL, "jobdeck-");
	e2e_cfg_remove();
}
END_TEST

/* The suite: one cluster for all its cases, each a test case of its own. */
static Suite *
host_slurm_suite(void)
{
	static const struct {
		const char	*name;
		const TTest	*const *test;
	} cases[] = {
		{ "runs", &test_slurm_runs },
		{ "pending", &test_slurm_pending },
		{ "focus", &test_slurm_focus },
		{ "kill", &test_slurm_kill },
		{ "quit", &test_slurm_quit },
		{ "sweep", &test_slurm_sweep },
		{ "sweep_slow", &test_slurm_sweep_slow },
		{ "run", &test_slurm_run_cli },
	};
	Suite	*s = suite_create("host_slurm_e2e");
	TCase	*tc;
	size_t	 i;

	cases_left = getenv("CK_RUN_CASE") != NULL ? 1 :
	    sizeof cases / sizeof cases[0];
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		tc = tcase_create(cases[i].name);
		tcase_add_unchecked_fixture(tc, cluster_setup,
		    cluster_teardown);
		tcase_set_timeout(tc, 300);
		tcase_add_test(tc, *cases[i].test);
		suite_add_tcase(s, tc);
	}
	return s;
}

/* Run the suite (CK_RUN_CASE=NAME: that case alone). */
int
main(void)
{
	return e2e_main(host_slurm_suite());
}

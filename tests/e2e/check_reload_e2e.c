/*
 * check_reload_e2e.c: changing a running stack end to end (issue 27).
 * The real deck on a config.toml (or a Procfile and .env) in the term's
 * temporary directory, driven by `jobdeck ctl` and by keys: !reload keeps
 * unchanged jobs (same pid), restarts a changed one, starts one added,
 * stops one removed and takes it off the table, never touches a typed
 * job, refuses a broken file with its place; reload = "auto" sees the
 * file change; a Procfile's .env change restarts its readers; F5 reloads
 * from the prompt; !scale and replicas with ports; !dup.  Every wait is
 * for a condition, with generous limits.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "e2e/e2e.h"
#include "jsonread.h"
#include "need.h"

#define WAIT_MS		15000	/* a job's start, end or change */
#define CTL_MS		15000	/* one jobdeck ctl */

/* A deck of the test: its term, name, directory and runtime directory. */
struct deck {
	struct term	*t;
	char		 name[32];
	char		 dir[512];	/* the config's (the term's tmpdir) */
	char		 run[600];	/* XDG_RUNTIME_DIR, for ctl */
};

/* Write text as file name (0600) in the deck's directory. */
static void
deck_file(struct deck *d, const char *name, const char *text)
{
	e2e_put_file(d->dir, name, text, 0600);
}

/*
 * Start a deck named name on file (config.toml, or a Procfile) written
 * from text in a fresh directory.
 */
static void
deck_start_env(struct deck *d, const char *name, const char *file,
    const char *text, const char *flag, const char *const *env)
{
	const char	*path, *slash;
	const char	*args[6];
	char		 cfg[600];

	memset(d, 0, sizeof *d);
	path = e2e_cfg_write(file, text);
	snprintf(cfg, sizeof cfg, "%s", path);
	snprintf(d->dir, sizeof d->dir, "%s", path);
	slash = strrchr(d->dir, '/');
	ck_assert_ptr_nonnull(slash);
	d->dir[slash - d->dir] = '\0';
	snprintf(d->name, sizeof d->name, "%s", name);
	args[0] = flag;
	args[1] = cfg;
	args[2] = "-S";
	args[3] = name;
	args[4] = NULL;
	d->t = e2e_start(args, env);
	ck_assert(snprintf(d->run, sizeof d->run, "%s/run",
	    term_tmpdir(d->t)) < (int)sizeof d->run);
}

/* deck_start_env() with the test's environment. */
static void
deck_start(struct deck *d, const char *name, const char *file,
    const char *text, const char *flag)
{
	deck_start_env(d, name, file, text, flag, NULL);
}

/* Quit the deck and close its terminal. */
static void
deck_end(struct deck *d)
{
	term_close(d->t);
	d->t = NULL;
	e2e_cfg_remove();
}

/*
 * Run `jobdeck ctl ARGS...` (NULL-ended) on the deck; its output and
 * stderr (to free), its exit status in *status.
 */
static char *
ctl_status(struct deck *d, int *status, ...)
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

/* Run `jobdeck ctl ARGS...`, which must succeed; its output (to free). */
#define CTL(d, ...) ctl_ok((d), __VA_ARGS__, (const char *)NULL)
static char *
ctl_ok(struct deck *d, ...)
{
	va_list	 ap;
	char	*out;

	va_start(ap, d);
	out = e2e_ctl_okv(d->t, d->name, d->run, 1, ap);
	va_end(ap);
	return out;
}

/*
 * The live job called name in `ctl --json list`: its pid (0: none, or it
 * has none) and state (copied into state, "" when there is no such job).
 */
static long
job_pid(struct deck *d, const char *name, char *state, size_t size)
{
	struct jsonread		*root;
	const struct jsonread	*jobs, *j;
	const char		*jn;
	char			*out, *cause = NULL;
	long			 pid = 0;
	size_t			 i;

	if (state != NULL)
		state[0] = '\0';
	out = CTL(d, "--json", "list");
	root = jsonread_parse(out, strlen(out), &cause);
	ck_assert_msg(root != NULL, "bad JSON (%s): %s", cause, out);
	free(out);
	jobs = jsonread_get(root, "jobs");
	for (i = 0; i < jsonread_count(jobs); i++) {
		j = jsonread_index(jobs, i);
		jn = jsonread_string(jsonread_get(j, "name"), NULL);
		if (jn == NULL || strcmp(jn, name) != 0)
			continue;
		pid = (long)jsonread_number(jsonread_get(j, "pid"));
		if (state != NULL)
			snprintf(state, size, "%s", jsonread_text(j, "state"));
	}
	jsonread_free(root);
	return pid;
}

/* Wait until job name runs with a pid other than not; its pid. */
static long
wait_running(struct deck *d, const char *name, long not)
{
	int64_t	end = term_now_ms() + WAIT_MS;
	char	state[64];
	long	pid;

	for (;;) {
		pid = job_pid(d, name, state, sizeof state);
		if (pid > 0 && pid != not && strcmp(state, "running") == 0)
			return pid;
		ck_assert_msg(term_now_ms() < end, "job %s: not running (a "
		    "pid other than %ld) after %d ms: state %s, pid %ld\n%s",
		    name, not, WAIT_MS, state, pid, e2e_dump(d->t));
		term_pump(d->t, 50);
	}
}

/* Wait until the table has no job called name. */
static void
wait_gone(struct deck *d, const char *name)
{
	int64_t	end = term_now_ms() + WAIT_MS;
	char	state[64];

	for (;;) {
		job_pid(d, name, state, sizeof state);
		if (state[0] == '\0')
			return;
		ck_assert_msg(term_now_ms() < end, "job %s still in the table "
		    "after %d ms: %s", name, WAIT_MS, state);
		term_pump(d->t, 50);
	}
}

/* Wait until `ctl logs NAME` holds text. */
#define wait_logs(d_, job_, text_)					\
	e2e_wait_logs((d_)->t, (d_)->name, (d_)->run, (job_), (text_), WAIT_MS)

/* Return whether the JSON array key of root holds exactly the names. */
static int
names_are(const struct jsonread *root, const char *key, const char *names)
{
	const struct jsonread	*a = jsonread_get(root, key);
	char			 got[512];
	size_t			 i, n = 0;

	got[0] = '\0';
	for (i = 0; i < jsonread_count(a); i++)
		n += (size_t)snprintf(got + n, sizeof got - n, "%s%s",
		    i > 0 ? " " : "", jsonread_string(jsonread_index(a, i),
		    NULL));
	return strcmp(got, names) == 0;
}

static const char	 stack_v1[] =
	"[[job]]\nname = \"db\"\ncommand = \"sleep 3001\"\n\n"
	"[[job]]\nname = \"worker\"\ncommand = \"sleep 3002\"\n"
	"depends_on = { db = \"started\" }\n\n"
	"[[job]]\nname = \"old\"\ncommand = \"sleep 3003\"\n";
static const char	 stack_v2[] =
	"[[job]]\nname = \"db\"\ncommand = \"sleep 3001\"\n\n"
	"[[job]]\nname = \"worker\"\ncommand = \"sleep 3012\"\n"
	"depends_on = { db = \"started\" }\n\n"
	"[[job]]\nname = \"extra\"\ncommand = \"sleep 3004\"\n\n"
	"[settings]\nkill_timeout = 2\n";

/*
 * A reload: db unchanged (same pid), worker changed (restarted with its
 * new command), extra added and started, old stopped and taken off the
 * table, a typed job untouched; the JSON reply names each.
 */
START_TEST(test_reload_diff)
{
	struct deck		 d;
	struct jsonread		*root;
	char			*out, *cause = NULL;
	long			 db, worker, old, typed;

	deck_start(&d, "rl1", "config.toml", stack_v1, "-c");
	db = wait_running(&d, "db", 0);
	worker = wait_running(&d, "worker", 0);
	old = wait_running(&d, "old", 0);
	free(CTL(&d, "spawn", "--name", "typed", "sleep 3005"));
	typed = wait_running(&d, "typed", 0);

	deck_file(&d, "config.toml", stack_v2);
	out = CTL(&d, "--json", "reload");
	root = jsonread_parse(out, strlen(out), &cause);
	ck_assert_msg(root != NULL, "bad JSON (%s): %s", cause, out);
	ck_assert_msg(names_are(root, "restarted", "worker"), "%s", out);
	ck_assert_msg(names_are(root, "added", "extra"), "%s", out);
	ck_assert_msg(names_are(root, "removed", "old"), "%s", out);
	ck_assert_msg(names_are(root, "unchanged", "db"), "%s", out);
	ck_assert_msg(strstr(out, "\"kill_timeout applied\"") != NULL, "%s",
	    out);
	/* Counts of replicas: none before an added job, none after a removed. */
	ck_assert_msg(strstr(out, "{\"name\":\"extra\",\"change\":\"added\","
	    "\"what\":null,\"replicas_before\":0,\"replicas_after\":1}") !=
	    NULL, "%s", out);
	ck_assert_msg(strstr(out, "{\"name\":\"old\",\"change\":\"removed\","
	    "\"what\":null,\"replicas_before\":1,\"replicas_after\":0}") !=
	    NULL, "%s", out);
	jsonread_free(root);
	free(out);

	ck_assert_int_ne(wait_running(&d, "worker", worker), worker);
	wait_running(&d, "extra", 0);
	wait_gone(&d, "old");
	ck_assert_msg(term_wait_pid_dead(d.t, (pid_t)old, WAIT_MS),
	    "old's process %ld lives on", old);
	ck_assert_int_eq(job_pid(&d, "db", NULL, 0), db);
	ck_assert_int_eq(job_pid(&d, "typed", NULL, 0), typed);
	out = CTL(&d, "list");
	ck_assert_msg(strstr(out, "sleep 3012") != NULL, "%s", out);
	free(out);

	/* Nothing changed since: a reload says so and touches nothing. */
	worker = job_pid(&d, "worker", NULL, 0);
	out = CTL(&d, "reload");
	ck_assert_msg(strstr(out, "reload: 0 restarted, 0 added, 0 removed, "
	    "3 unchanged") != NULL, "%s", out);
	free(out);
	ck_assert_int_eq(job_pid(&d, "worker", NULL, 0), worker);
	deck_end(&d);
}
END_TEST

/*
 * Settings at a reload: [keys] applied at once (the key table !help
 * gives shows the new key), a store setting said not applied, with why;
 * the jobs untouched.
 */
START_TEST(test_reload_settings)
{
	struct deck	 d;
	char		 text[1024], *out;
	long		 db;

	deck_start(&d, "rl13", "config.toml", stack_v1, "-c");
	db = wait_running(&d, "db", 0);
	out = CTL(&d, "help");
	ck_assert_msg(strstr(out, "F7") == NULL, "F7 bound already: %s", out);
	free(out);
	snprintf(text, sizeof text, "%s\n[settings]\nlog_dir = \"%s/elsewhere\"\n"
	    "\n[keys]\nredraw = \"F7\"\n", stack_v1, d.dir);
	deck_file(&d, "config.toml", text);
	out = CTL(&d, "--json", "reload");
	ck_assert_msg(strstr(out, "\"log_dir not applied: the store opened at "
	    "start: restart the deck\"") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "\"[keys] applied\"") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "\"unchanged\":[\"db\",\"worker\",\"old\"]")
	    != NULL, "%s", out);
	free(out);
	out = CTL(&d, "help");
	ck_assert_msg(strstr(out, "F7") != NULL, "the reloaded key is not in "
	    "!help: %s", out);
	free(out);
	ck_assert_int_eq(job_pid(&d, "db", NULL, 0), db);
	deck_end(&d);
}
END_TEST

/* A file that does not load changes nothing; the error has its place. */
START_TEST(test_reload_broken)
{
	struct deck	 d;
	char		*out;
	long		 db;
	int		 status;

	deck_start(&d, "rl2", "config.toml", stack_v1, "-c");
	db = wait_running(&d, "db", 0);
	wait_running(&d, "old", 0);
	deck_file(&d, "config.toml", "[[job]]\nname = \"db\"\ncommand "
	    "\"sleep 1\"\n");
	out = ctl_status(&d, &status, "reload", (const char *)NULL);
	ck_assert_msg(status != 0, "a broken file reloaded: %s", out);
	ck_assert_msg(strstr(out, "config.toml:3:9: ") != NULL, "%s", out);
	free(out);
	ck_assert_int_eq(job_pid(&d, "db", NULL, 0), db);
	wait_running(&d, "old", 0);
	deck_end(&d);
}
END_TEST

/* reload = "auto": a job added to the file starts, with no command. */
START_TEST(test_reload_auto)
{
	struct deck	 d;
	char		 text[1024];

	snprintf(text, sizeof text, "[settings]\nreload = \"auto\"\n\n%s",
	    stack_v1);
	deck_start(&d, "rl3", "config.toml", text, "-c");
	wait_running(&d, "db", 0);
	snprintf(text, sizeof text, "[settings]\nreload = \"auto\"\n\n%s\n"
	    "[[job]]\nname = \"late\"\ncommand = \"sleep 3006\"\n", stack_v1);
	deck_file(&d, "config.toml", text);
	wait_running(&d, "late", 0);
	deck_end(&d);
}
END_TEST

/*
 * A Procfile's .env changed: the jobs reading it restart with the new
 * value (the file is the same); F5 at the prompt reloads.
 */
START_TEST(test_reload_env_key)
{
	struct deck	 d;
	long		 web;

	deck_start(&d, "rl4", "Procfile", "web: echo \"colour=$COLOUR\"; "
	    "exec sleep 3007\n", "-f");
	deck_file(&d, ".env", "COLOUR=red\n");
	free(CTL(&d, "reload"));	/* the .env now exists */
	wait_logs(&d, "web", "colour=red");
	web = wait_running(&d, "web", 0);
	deck_file(&d, ".env", "COLOUR=blue\n");
	term_type(d.t, "\033[15~");	/* F5 */
	E2E_ASSERT(d.t, term_wait_text(d.t, "reload: 1 restarted", WAIT_MS),
	    "F5 did not reload");
	ck_assert_int_ne(wait_running(&d, "web", web), web);
	wait_logs(&d, "web", "colour=blue");
	deck_end(&d);
}
END_TEST

/*
 * !dup of a configured job starts a copy under a new name, which the
 * next reload (the file's own jobs) takes away; a typed job's copy runs
 * its command.
 */
START_TEST(test_dup)
{
	struct deck	 d;
	char		*out;
	int		 status;

	deck_start(&d, "rl5", "config.toml", stack_v1, "-c");
	wait_running(&d, "db", 0);
	out = CTL(&d, "dup", "db");
	ck_assert_msg(strstr(out, "db-2, a copy of db") != NULL, "%s", out);
	free(out);
	wait_running(&d, "db-2", 0);
	out = ctl_status(&d, &status, "dup", "db", "worker", (const char *)NULL);
	ck_assert_msg(status != 0 && strstr(out, "a configured job is named "
	    "worker") != NULL, "%s", out);
	free(out);
	out = ctl_status(&d, &status, "dup", "db", "worker.2",
	    (const char *)NULL);
	ck_assert_msg(status != 0 && strstr(out, "worker.2 is the name of a "
	    "replica of worker") != NULL, "%s", out);
	free(out);
	free(CTL(&d, "spawn", "--name", "mine", "sleep 3008"));
	free(CTL(&d, "dup", "mine", "yours"));
	wait_running(&d, "yours", 0);
	out = CTL(&d, "reload");
	ck_assert_msg(strstr(out, "removed    db-2") != NULL, "%s", out);
	free(out);
	wait_gone(&d, "db-2");
	wait_running(&d, "yours", 0);
	deck_end(&d);
}
END_TEST

/*
 * A dependant with restart = true restarts after the job it depends on
 * (once that is ready again: its first line names the new db's pid); one
 * without restart goes on.
 */
START_TEST(test_restart_dependant)
{
	static const char	 v1[] =
	    "[[job]]\nname = \"db\"\ncommand = \"sleep 1; echo $$$$ > db.pid; "
	    "echo up; exec sleep 3101\"\nready_log = \"up\"\n\n"
	    "[[job]]\nname = \"app\"\ncommand = \"printf db=; cat db.pid; "
	    "exec sleep 3102\"\ndepends_on = { db = { condition = "
	    "\"ready\", restart = true } }\n\n"
	    "[[job]]\nname = \"other\"\ncommand = \"sleep 3103\"\n"
	    "depends_on = { db = \"started\" }\n";
	struct deck		 d;
	struct jsonread		*root;
	char			 text[1024], want[64], *out, *cause = NULL, *p;
	long			 db, app, other;

	deck_start(&d, "rl7", "config.toml", v1, "-c");
	db = wait_running(&d, "db", 0);
	snprintf(want, sizeof want, "db=%ld", db);
	wait_logs(&d, "app", want);
	app = wait_running(&d, "app", 0);
	other = wait_running(&d, "other", 0);
	snprintf(text, sizeof text, "%s", v1);
	ck_assert_ptr_nonnull(p = strstr(text, "3101"));
	memcpy(p, "3111", 4);
	deck_file(&d, "config.toml", text);
	out = CTL(&d, "--json", "reload");
	root = jsonread_parse(out, strlen(out), &cause);
	ck_assert_msg(root != NULL, "bad JSON (%s): %s", cause, out);
	ck_assert_msg(names_are(root, "restarted", "db app"), "%s", out);
	ck_assert_msg(names_are(root, "unchanged", "other"), "%s", out);
	ck_assert_msg(strstr(out, "\"db restarted\"") != NULL, "%s", out);
	jsonread_free(root);
	free(out);
	db = wait_running(&d, "db", db);
	snprintf(want, sizeof want, "db=%ld", db);
	wait_logs(&d, "app", want);
	ck_assert_int_ne(wait_running(&d, "app", app), app);
	ck_assert_int_eq(job_pid(&d, "other", NULL, 0), other);
	deck_end(&d);
}
END_TEST

/*
 * Replicas with ports (web.N: JOBDECK_REPLICA=N, PORT base+N-1), !scale up
 * (a new replica, the others untouched) and down (the highest first).
 */
START_TEST(test_scale)
{
	static const char	 v1[] =
	    "[[job]]\nname = \"web\"\nreplicas = 2\nport = 7100\n"
	    "command = \"echo r=$JOBDECK_REPLICA p=$PORT; exec sleep 3201\"\n";
	struct deck		 d;
	struct jsonread		*root;
	char			*out, *cause = NULL;
	long			 w1, w2;
	int			 status;

	deck_start(&d, "rl8", "config.toml", v1, "-c");
	w1 = wait_running(&d, "web.1", 0);
	w2 = wait_running(&d, "web.2", 0);
	wait_logs(&d, "web.1", "r=1 p=7100");
	wait_logs(&d, "web.2", "r=2 p=7101");
	out = CTL(&d, "--json", "scale", "web", "3");
	root = jsonread_parse(out, strlen(out), &cause);
	ck_assert_msg(root != NULL, "bad JSON (%s): %s", cause, out);
	ck_assert_msg(names_are(root, "scaled", "web"), "%s", out);
	ck_assert_msg(strstr(out, "\"replicas_before\":2,\"replicas_after\""
	    ":3") != NULL, "%s", out);
	jsonread_free(root);
	free(out);
	wait_running(&d, "web.3", 0);
	wait_logs(&d, "web.3", "r=3 p=7102");
	ck_assert_int_eq(job_pid(&d, "web.1", NULL, 0), w1);
	ck_assert_int_eq(job_pid(&d, "web.2", NULL, 0), w2);
	out = CTL(&d, "scale", "web", "1");
	ck_assert_msg(strstr(out, "web: 3 -> 1 replicas") != NULL, "%s", out);
	free(out);
	wait_gone(&d, "web.3");
	wait_gone(&d, "web.2");
	ck_assert_msg(term_wait_pid_dead(d.t, (pid_t)w2, WAIT_MS),
	    "web.2's process %ld lives on", w2);
	ck_assert_int_eq(job_pid(&d, "web.1", NULL, 0), w1);
	out = ctl_status(&d, &status, "scale", "nope", "2", (const char *)NULL);
	ck_assert_msg(status != 0 && strstr(out, "no configured job named "
	    "nope") != NULL, "%s", out);
	free(out);
	deck_end(&d);
}
END_TEST

/* Type a line at the prompt (or to the focused job) and Enter. */
static void
type_line(struct deck *d, const char *line)
{
	term_type(d->t, line);
	term_key(d->t, TERM_KEY_ENTER);
}

/*
 * !edit through a real editor (vim, driven by keys): a saved change
 * restarts the job with it; a broken one changes nothing and says its
 * place; quitting without saving changes nothing.
 */
START_TEST(test_edit_vim)
{
	static const char *const	 env[] = { "VISUAL=vim -u NONE -N",
	    "EDITOR", NULL };
	struct deck			 d;
	char				*out;
	long				 worker;

	NEED("vim");
	deck_start_env(&d, "rl6", "config.toml", stack_v1, "-c", env);
	worker = wait_running(&d, "worker", 0);

	/* A good edit: the command changes, the job restarts with it. */
	type_line(&d, "!edit worker");
	E2E_ASSERT(d.t, term_wait_text(d.t, "command = \"sleep 3002\"",
	    WAIT_MS), "the editor shows no spec");
	type_line(&d, ":%s/3002/3022/");
	type_line(&d, ":wq");
	E2E_ASSERT(d.t, term_wait_text(d.t, "edit worker: reload: 1 "
	    "restarted", WAIT_MS), "no report of the edit");
	ck_assert_int_ne(wait_running(&d, "worker", worker), worker);
	out = CTL(&d, "list");
	ck_assert_msg(strstr(out, "sleep 3022") != NULL, "%s", out);
	free(out);
	worker = job_pid(&d, "worker", NULL, 0);

	/* A broken edit: refused at its place, nothing changes. */
	type_line(&d, "!edit worker");
	E2E_ASSERT(d.t, term_wait_text(d.t, "command = \"sleep 3022\"",
	    WAIT_MS), "the editor shows no spec");
	type_line(&d, ":%s/command = /command /");
	type_line(&d, ":wq");
	E2E_ASSERT(d.t, term_wait_text(d.t, "edit worker: worker.toml:",
	    WAIT_MS), "no place for the broken edit");
	E2E_ASSERT(d.t, term_wait_text(d.t, "nothing changed", WAIT_MS),
	    "the broken edit did not say nothing changed");

	/* Quit without saving (:cq): nothing changes either. */
	type_line(&d, "!edit worker");
	E2E_ASSERT(d.t, term_wait_text(d.t, "command = \"sleep 3022\"",
	    WAIT_MS), "the editor shows no spec");
	type_line(&d, ":cq");
	E2E_ASSERT(d.t, term_wait_text(d.t, "the editor exited 1", WAIT_MS),
	    "no word of the editor's failure");
	ck_assert_int_eq(job_pid(&d, "worker", NULL, 0), worker);
	out = CTL(&d, "list");
	ck_assert_msg(strstr(out, "sleep 3022") != NULL, "%s", out);
	free(out);
	deck_end(&d);
}
END_TEST

/*
 * A job that stops slowly (it ignores SIGTERM until the test kills it)
 * taken out of the file and put back before it has ended: the one put
 * back starts once the old has gone, rather than failing on its name;
 * the same for a replica scaled away and back.
 */
START_TEST(test_readd_stopping)
{
	static const char	 slow[] =
	    "[[job]]\nname = \"sc\"\ncommand = \"trap '' TERM; echo up; "
	    "while :; do sleep 0.1; done\"\nstop_timeout = 60\n"
	    "replicas = 2\n";
	static const char	 none[] =
	    "[[job]]\nname = \"other\"\ncommand = \"sleep 3301\"\n";
	struct deck		 d;
	char			*out;
	long			 old;

	deck_start(&d, "rl9", "config.toml", slow, "-c");
	wait_running(&d, "sc.1", 0);
	old = wait_running(&d, "sc.2", 0);
	wait_logs(&d, "sc.2", "up");
	free(CTL(&d, "scale", "sc", "1"));
	free(CTL(&d, "scale", "sc", "2"));
	ck_assert_msg(kill((pid_t)old, SIGKILL) == 0, "sc.2 ended too soon");
	ck_assert_int_ne(wait_running(&d, "sc.2", old), old);

	old = wait_running(&d, "sc.1", 0);
	wait_logs(&d, "sc.1", "up");
	deck_file(&d, "config.toml", none);
	free(CTL(&d, "reload"));
	deck_file(&d, "config.toml", slow);
	out = CTL(&d, "reload");
	ck_assert_msg(strstr(out, "added      sc") != NULL, "%s", out);
	free(out);
	ck_assert_msg(kill((pid_t)old, SIGKILL) == 0, "sc.1 ended too soon");
	ck_assert_int_ne(wait_running(&d, "sc.1", old), old);
	wait_running(&d, "sc.2", 0);
	deck_end(&d);
}
END_TEST

/*
 * A reload that lowers max_running and adds jobs: the added ones queue
 * (the new limit holds for the reload's own starts).
 */
START_TEST(test_reload_max_running)
{
	struct deck	 d;
	char		 state[64];

	deck_start(&d, "rl10", "config.toml", "[[job]]\nname = \"a\"\n"
	    "command = \"sleep 3401\"\n", "-c");
	wait_running(&d, "a", 0);
	deck_file(&d, "config.toml", "[settings]\nmax_running = 1\n\n"
	    "[[job]]\nname = \"a\"\ncommand = \"sleep 3401\"\n\n"
	    "[[job]]\nname = \"b\"\ncommand = \"sleep 3402\"\n");
	free(CTL(&d, "reload"));
	job_pid(&d, "b", state, sizeof state);
	ck_assert_msg(strcmp(state, "queued") == 0, "b is %s, not queued "
	    "behind a (max_running = 1)", state);
	free(CTL(&d, "kill", "a"));
	wait_running(&d, "b", 0);
	deck_end(&d);
}
END_TEST

/*
 * replicas = 3 then 1 in the file: replica 1 goes on as the job itself
 * (same pid, renamed), the others stop; 1 then 3 renames the other way,
 * and the next reload leaves the renamed job alone.
 */
START_TEST(test_replicas_down)
{
	static const char	 three[] =
	    "[[job]]\nname = \"web\"\ncommand = \"sleep 3501\"\n"
	    "replicas = 3\n";
	struct deck		 d;
	char			*out;
	long			 w1;

	deck_start(&d, "rl11", "config.toml", three, "-c");
	w1 = wait_running(&d, "web.1", 0);
	wait_running(&d, "web.3", 0);
	deck_file(&d, "config.toml", "[[job]]\nname = \"web\"\n"
	    "command = \"sleep 3501\"\n");
	free(CTL(&d, "reload"));
	wait_gone(&d, "web.3");
	wait_gone(&d, "web.2");
	ck_assert_int_eq(wait_running(&d, "web", 0), w1);
	deck_file(&d, "config.toml", three);
	free(CTL(&d, "reload"));
	wait_running(&d, "web.3", 0);
	ck_assert_int_eq(wait_running(&d, "web.1", 0), w1);
	/* Renamed, it is not taken for changed at the next reload. */
	out = CTL(&d, "reload");
	ck_assert_msg(strstr(out, "reload: 0 restarted") != NULL, "%s", out);
	free(out);
	ck_assert_int_eq(job_pid(&d, "web.1", NULL, 0), w1);
	deck_end(&d);
}
END_TEST

/*
 * A reload while the deck quits (a job slow to stop holds it) is refused:
 * nothing added starts.
 */
START_TEST(test_reload_quitting)
{
	static const char	 slow[] =
	    "[[job]]\nname = \"slow\"\ncommand = \"trap '' TERM; echo up; "
	    "while :; do sleep 0.1; done\"\nstop_timeout = 60\n";
	struct deck	 d;
	char		 text[1024], state[64], *out;
	long		 pid;
	int		 status;

	deck_start(&d, "rl12", "config.toml", slow, "-c");
	pid = wait_running(&d, "slow", 0);
	wait_logs(&d, "slow", "up");
	snprintf(text, sizeof text, "%s\n[[job]]\nname = \"new\"\n"
	    "command = \"sleep 3601\"\n", slow);
	deck_file(&d, "config.toml", text);
	free(CTL(&d, "quit"));
	out = ctl_status(&d, &status, "reload", (const char *)NULL);
	ck_assert_msg(status != 0 && strstr(out, "quitting") != NULL,
	    "a reload while quitting: %s", out);
	free(out);
	job_pid(&d, "new", state, sizeof state);
	ck_assert_msg(state[0] == '\0', "new is %s while the deck quits",
	    state);
	/* Nor does any other way of starting a job. */
	out = ctl_status(&d, &status, "scale", "slow", "2", (const char *)NULL);
	ck_assert_msg(status != 0 && strstr(out, "quitting") != NULL,
	    "a scale while quitting: %s", out);
	free(out);
	out = ctl_status(&d, &status, "spawn", "--name", "late", "sleep 3602",
	    (const char *)NULL);
	ck_assert_msg(status != 0 && strstr(out, "quitting") != NULL,
	    "a spawn while quitting: %s", out);
	free(out);
	out = ctl_status(&d, &status, "dup", "slow", (const char *)NULL);
	ck_assert_msg(status != 0 && strstr(out, "quitting") != NULL,
	    "a dup while quitting: %s", out);
	free(out);
	job_pid(&d, "late", state, sizeof state);
	ck_assert_msg(state[0] == '\0', "late is %s while the deck quits",
	    state);
	kill((pid_t)pid, SIGKILL);
	deck_end(&d);
}
END_TEST

/* Return whether directory dir holds a file whose name starts with prefix. */
static int
dir_has(const char *dir, const char *prefix)
{
	DIR		*dp;
	struct dirent	*de;
	int		 found = 0;

	ck_assert_ptr_nonnull(dp = opendir(dir));
	while (!found && (de = readdir(dp)) != NULL)
		found = strncmp(de->d_name, prefix, strlen(prefix)) == 0;
	closedir(dp);
	return found;
}

/*
 * The deck quits while an !edit's editor runs: the editor is stopped and
 * its temporary spec file goes with the deck.
 */
START_TEST(test_edit_quit)
{
	char		 tmp[] = "/tmp/jobdeck-rl13-XXXXXX", envtmp[64];
	const char	*env[4];
	struct deck	 d;
	int64_t		 end;
	int		 status;

	ck_assert_ptr_nonnull(mkdtemp(tmp));
	snprintf(envtmp, sizeof envtmp, "TMPDIR=%s", tmp);
	env[0] = envtmp;
	env[1] = "VISUAL=sleep 3701; :";
	env[2] = "EDITOR";
	env[3] = NULL;
	deck_start_env(&d, "rl13", "config.toml", stack_v1, "-c", env);
	wait_running(&d, "db", 0);
	type_line(&d, "!edit db");
	end = term_now_ms() + WAIT_MS;
	while (!dir_has(tmp, "jobdeck-edit-db-")) {
		ck_assert_msg(term_now_ms() < end, "no spec file in %s", tmp);
		term_pump(d.t, 50);
	}
	free(CTL(&d, "quit"));
	ck_assert_msg(term_wait_exit(d.t, WAIT_MS, &status), "the deck did "
	    "not quit");
	ck_assert_msg(!dir_has(tmp, "jobdeck-edit-db-"), "the spec file of "
	    "the !edit outlives the deck in %s", tmp);
	ck_assert_int_eq(rmdir(tmp), 0);
	deck_end(&d);
}
END_TEST

/*
 * A reload changes a job that !kill stopped: it stays stopped ("updated":
 * the next start takes the new spec), it is not started by the reload.
 */
START_TEST(test_reload_killed)
{
	struct deck	 d;
	char		 state[64], *out;
	long		 pid;

	deck_start(&d, "rl14", "config.toml", "[[job]]\nname = \"a\"\n"
	    "command = \"echo v1; exec sleep 3801\"\n", "-c");
	pid = wait_running(&d, "a", 0);
	free(CTL(&d, "kill", "a"));
	ck_assert_msg(term_wait_pid_dead(d.t, (pid_t)pid, WAIT_MS),
	    "a's process %ld lives on", pid);
	deck_file(&d, "config.toml", "[[job]]\nname = \"a\"\n"
	    "command = \"echo v2; exec sleep 3802\"\n");
	out = CTL(&d, "reload");
	ck_assert_msg(strstr(out, "updated    a (command)") != NULL, "%s",
	    out);
	free(out);
	free(CTL(&d, "ps"));		/* a turn of the deck's loop */
	ck_assert_int_eq(job_pid(&d, "a", state, sizeof state), pid);
	ck_assert_msg(strcmp(state, "canceled") == 0, "a is %s after the "
	    "reload, not canceled", state);
	free(CTL(&d, "restart", "a"));
	ck_assert_int_ne(wait_running(&d, "a", pid), pid);
	wait_logs(&d, "a", "v2");
	deck_end(&d);
}
END_TEST

/*
 * A reload that changes both a job and its dependant with restart = true:
 * the dependant, restarted for its own change, still waits for the new
 * run of the job it depends on (its first line names the new db's pid).
 */
START_TEST(test_restart_both)
{
	static const char	 v1[] =
	    "[[job]]\nname = \"db\"\ncommand = \"sleep 1; echo $$$$ > db.pid; "
	    "echo up; exec sleep 3901\"\nready_log = \"up\"\n\n"
	    "[[job]]\nname = \"app\"\ncommand = \"printf db=; cat db.pid; "
	    "exec sleep 3902\"\ndepends_on = { db = { condition = "
	    "\"ready\", restart = true } }\n";
	struct deck		 d;
	char			 text[1024], want[64], *p;
	long			 db, app;

	deck_start(&d, "rl15", "config.toml", v1, "-c");
	db = wait_running(&d, "db", 0);
	snprintf(want, sizeof want, "db=%ld", db);
	wait_logs(&d, "app", want);
	app = wait_running(&d, "app", 0);
	snprintf(text, sizeof text, "%s", v1);
	ck_assert_ptr_nonnull(p = strstr(text, "3901"));
	memcpy(p, "3911", 4);
	ck_assert_ptr_nonnull(p = strstr(text, "3902"));
	memcpy(p, "3912", 4);
	deck_file(&d, "config.toml", text);
	free(CTL(&d, "reload"));
	db = wait_running(&d, "db", db);
	app = wait_running(&d, "app", app);
	snprintf(want, sizeof want, "db=%ld", db);
	wait_logs(&d, "app", want);
	deck_end(&d);
}
END_TEST

/*
 * A reload changes a job !kill is stopping (it ignores SIGTERM, so its
 * grace runs): the user's stop stands ("updated"), the job ends canceled
 * and is not started again.
 */
START_TEST(test_reload_stopping)
{
	struct deck	 d;
	char		 state[64], *out;
	long		 pid;

	deck_start(&d, "rl16", "config.toml", "[[job]]\nname = \"a\"\n"
	    "command = \"trap '' TERM; echo v1; while :; do sleep 0.1; "
	    "done\"\nstop_timeout = 60\n", "-c");
	pid = wait_running(&d, "a", 0);
	wait_logs(&d, "a", "v1");
	free(CTL(&d, "kill", "a"));
	deck_file(&d, "config.toml", "[[job]]\nname = \"a\"\n"
	    "command = \"trap '' TERM; echo v2; while :; do sleep 0.1; "
	    "done\"\nstop_timeout = 60\n");
	out = CTL(&d, "reload");
	ck_assert_msg(strstr(out, "updated    a (command)") != NULL, "%s",
	    out);
	free(out);
	ck_assert_int_eq(kill((pid_t)pid, SIGKILL), 0);
	ck_assert_msg(term_wait_pid_dead(d.t, (pid_t)pid, WAIT_MS),
	    "a's process %ld lives on", pid);
	free(CTL(&d, "ps"));		/* a turn of the deck's loop */
	ck_assert_int_eq(job_pid(&d, "a", state, sizeof state), pid);
	ck_assert_msg(strcmp(state, "canceled") == 0, "a is %s after its "
	    "stop, not canceled", state);
	deck_end(&d);
}
END_TEST

/* The suite. */
static Suite *
reload_suite(void)
{
	static const struct e2e_case	cases[] = {
		{ "reload_diff", &test_reload_diff, 90 },
		{ "reload_broken", &test_reload_broken, 60 },
		{ "reload_settings", &test_reload_settings, 60 },
		{ "reload_auto", &test_reload_auto, 60 },
		{ "reload_env_key", &test_reload_env_key, 60 },
		{ "dup", &test_dup, 60 },
		{ "edit_vim", &test_edit_vim, 90 },
		{ "restart_dependant", &test_restart_dependant, 60 },
		{ "scale", &test_scale, 60 },
		{ "readd_stopping", &test_readd_stopping, 90 },
		{ "reload_max_running", &test_reload_max_running, 60 },
		{ "replicas_down", &test_replicas_down, 60 },
		{ "reload_quitting", &test_reload_quitting, 60 },
		{ "edit_quit", &test_edit_quit, 60 },
		{ "reload_killed", &test_reload_killed, 60 },
		{ "restart_both", &test_restart_both, 60 },
		{ "reload_stopping", &test_reload_stopping, 60 },
	};
	Suite				*s = suite_create("reload_e2e");

	e2e_add_cases(s, cases, sizeof cases / sizeof cases[0]);
	return s;
}

/* Run the suite; the exit status says whether every test passed. */
int
main(void)
{
	return e2e_main(reload_suite());
}

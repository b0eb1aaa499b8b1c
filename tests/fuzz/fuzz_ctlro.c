/*
 * fuzz_ctlro.c: fuzz target for the read-only socket's gate (ctl.h, "The
 * read-only socket").  The input is a request line as NAME.ro takes it
 * (up to the first "\n", as the server reads it); it is cut into words by
 * ctl_request_parse(), the server's own rule, and run through
 * cmd_execute() with read_only set, as ctl.c runs a client of NAME.ro.
 *
 * The deck is made once and kept for every input: a job table with a
 * store and three jobs that never start (the start policy keeps them
 * waiting), and a session.  What is checked, after every input:
 *
 *   - the jobs are as they were: their number, and each one's JSON
 *     object (id, name, state, command, cwd, group, note...);
 *   - the session's cwd and environment are as they were;
 *   - no job was asked to start (the policy is asked before any start);
 *   - no callback that changes something was called: select (a job
 *     started or focused), quit, paste, show_run;
 *   - a command that is not CMD_READ_ONLY failed with cmd_refuse_write()'s
 *     words and CMD_FAILED;
 *   - a request that cannot be parsed gives a cause and no words.
 *
 * The streams (events, grep) are taken over as the socket takes them (a
 * grep is freed), and a task begun on the sink (wait, logs) is let go as
 * when its peer goes: they only look.
 */
#include <sys/stat.h>

#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "cmdsink.h"
#include "ctl.h"
#include "fuzz.h"
#include "grep.h"
#include "job.h"
#include "jobfield.h"
#include "jobtable.h"
#include "json.h"
#include "loop.h"
#include "session.h"
#include "store.h"
#include "xmalloc.h"

/* The deck every input runs against, and what it looked like. */
struct fuzz_ro {
	struct loop	*loop;
	struct jobtable	*jt;
	struct store	*store;
	struct session	*session;
	struct cmd_tasks *tasks;	/* the sink's */
	struct cmd_sink	 sink;
	char		 dir[64];
	char		*before;	/* the jobs and session, as text */
	int		 ready;		/* set up: no start is allowed */
	int		 refused;	/* the gate's words were reported */
};

static struct fuzz_ro	fuzz_ro;

/* Abort: something a read-only client reached changes the deck. */
static void
fuzz_ro_changed(const char *what)
{
	fprintf(stderr, "fuzz_ctlro: a read-only request reached %s\n", what);
	abort();
}

/* The start policy: the jobs wait for ever; once set up, none may ask. */
static enum jobtable_gate
fuzz_ro_may_start(struct job *job, char **why, void *arg)
{
	(void)job;
	(void)arg;
	if (fuzz_ro.ready)
		fuzz_ro_changed("a job's start");
	*why = xstrdup("fuzzing");
	return JOBTABLE_WAIT;
}

static const struct jobtable_policy fuzz_ro_policy = {
	.may_start = fuzz_ro_may_start,
};

/* A message: nothing to check. */
static void
fuzz_ro_message(const char *msg, void *arg)
{
	(void)msg;
	(void)arg;
}

/* An error: note the gate's refusal. */
static void
fuzz_ro_error(const char *msg, void *arg)
{
	(void)arg;
	if (strstr(msg, ": not allowed here: this connection may only look "
	    "(") != NULL)
		fuzz_ro.refused = 1;
}

/* Shown text: nothing to check. */
static void
fuzz_ro_show(const char *title, char **lines, int count, int header,
    void *arg)
{
	(void)title;
	(void)lines;
	(void)count;
	(void)header;
	(void)arg;
}

/* A JSON result: nothing to check. */
static void
fuzz_ro_json(const char *doc, void *arg)
{
	(void)doc;
	(void)arg;
}

/* select: a job was started or focused for the client. */
static void
fuzz_ro_select(struct job *job, int focus, void *arg)
{
	(void)job;
	(void)focus;
	(void)arg;
	fuzz_ro_changed("select");
}

/* quit. */
static void
fuzz_ro_quit(void *arg)
{
	(void)arg;
	fuzz_ro_changed("quit");
}

/* paste. */
static int
fuzz_ro_paste(struct job *job, void *arg)
{
	(void)job;
	(void)arg;
	fuzz_ro_changed("paste");
	return -1;
}

/* show_run: a view opened on the deck's screen. */
static int
fuzz_ro_show_run(const char *title, const char *dir, const char *run,
    int64_t line, int live, void *arg, char **cause)
{
	(void)title;
	(void)dir;
	(void)run;
	(void)line;
	(void)live;
	(void)arg;
	(void)cause;
	fuzz_ro_changed("show_run");
	return -1;
}

/* events: the socket streams them; they only look. */
static int
fuzz_ro_events(void *arg, char **cause)
{
	(void)arg;
	(void)cause;
	return 0;
}

/* grep: the socket steps it; here it is taken and let go. */
static int
fuzz_ro_grep(struct grep *g, void *arg, char **cause)
{
	(void)arg;
	(void)cause;
	grep_free(g);
	return 0;
}

/* The sink takes every task (wait), as the socket does under its limit. */
static int
fuzz_ro_sink_open(void *arg, char **cause)
{
	(void)arg;
	(void)cause;
	return 0;
}

/* A task's end: nothing to tell. */
static void
fuzz_ro_sink_done(int code, void *arg)
{
	(void)code;
	(void)arg;
}

static const struct cmd_sink_ops fuzz_ro_sink_ops = {
	.open = fuzz_ro_sink_open,
	.done = fuzz_ro_sink_done,
};

static const struct cmd_client fuzz_ro_client = {
	.message = fuzz_ro_message,
	.error = fuzz_ro_error,
	.show = fuzz_ro_show,
	.select = fuzz_ro_select,
	.quit = fuzz_ro_quit,
	.json = fuzz_ro_json,
	.events = fuzz_ro_events,
	.show_run = fuzz_ro_show_run,
	.grep = fuzz_ro_grep,
	.paste = fuzz_ro_paste,
};

/* Return the jobs and the session as text, to compare (caller frees). */
static char *
fuzz_ro_state(void)
{
	struct json_buf	  jb;
	char		**env, *text;
	int		  i;

	json_init(&jb);
	json_array_begin(&jb);
	for (i = 0; i < jobtable_count(fuzz_ro.jt); i++) {
		json_object_begin(&jb);
		jobfield_json(&jb, jobtable_get(fuzz_ro.jt, i));
		json_object_end(&jb);
	}
	json_put_string(&jb, session_cwd(fuzz_ro.session));
	env = session_env(fuzz_ro.session);
	for (i = 0; env[i] != NULL; i++)
		json_put_string(&jb, env[i]);
	session_env_free(env);
	json_array_end(&jb);
	text = json_finish(&jb, NULL);
	json_clear(&jb);
	return text;
}

/* Remove one file or directory of the store (nftw, depth first). */
static int
fuzz_ro_rm(const char *path, const struct stat *sb, int flag,
    struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* Remove the store's directory at exit. */
static void
fuzz_ro_cleanup(void)
{
	if (fuzz_ro.dir[0] != '\0')
		(void)nftw(fuzz_ro.dir, fuzz_ro_rm, 16, FTW_DEPTH | FTW_PHYS);
}

/* Make the deck: a store, a session and three jobs that wait. */
static void
fuzz_ro_setup(void)
{
	static char		*env[] = { "HOME=/home/fuzz", "USER=fuzz",
				    "PATH=/bin:/usr/bin", "SHELL=/bin/sh",
				    NULL };
	static const char	*const names[] = { "web", NULL, "db" };
	static const char	*const commands[] = { "echo web",
				    "sleep 100", "cat" };
	struct store_limits	 lim;
	struct job_spec		 spec;
	char			*cause = NULL;
	size_t			 i;

	snprintf(fuzz_ro.dir, sizeof fuzz_ro.dir, "/tmp/fuzz_ctlro.XXXXXX");
	if (mkdtemp(fuzz_ro.dir) == NULL) {
		perror("fuzz_ctlro: mkdtemp");
		abort();
	}
	atexit(fuzz_ro_cleanup);
	fuzz_ro.loop = loop_new();
	fuzz_ro.jt = jobtable_new(fuzz_ro.loop);
	fuzz_ro.tasks = cmd_tasks_new(fuzz_ro.jt, fuzz_ro.loop);
	cmd_sink_init(&fuzz_ro.sink, fuzz_ro.tasks, &fuzz_ro_sink_ops, NULL);
	store_default_limits(&lim);
	if ((fuzz_ro.store = store_open(fuzz_ro.dir, &lim, &cause)) == NULL) {
		fprintf(stderr, "fuzz_ctlro: store: %s\n", cause);
		abort();
	}
	jobtable_set_store(fuzz_ro.jt, fuzz_ro.store);
	jobtable_set_policy(fuzz_ro.jt, &fuzz_ro_policy, NULL);
	fuzz_ro.session = session_new(env);
	for (i = 0; i < sizeof names / sizeof names[0]; i++) {
		memset(&spec, 0, sizeof spec);
		spec.name = names[i];
		spec.command = commands[i];
		spec.shell = "/bin/sh";
		spec.cwd = "/";
		spec.envp = env;
		spec.group = i == 2 ? "backend" : NULL;
		if (jobtable_spawn(fuzz_ro.jt, &spec, &cause) == NULL) {
			fprintf(stderr, "fuzz_ctlro: spawn: %s\n", cause);
			abort();
		}
	}
	fuzz_ro.before = fuzz_ro_state();
	fuzz_ro.ready = 1;
}

/* The deck's reload, which a read-only request must never reach. */
static int
fuzz_ro_reload(struct config *cfg, struct cmd_reload *out, char **cause,
    void *arg)
{
	(void)cfg;
	(void)out;
	(void)cause;
	(void)arg;
	fprintf(stderr, "fuzz_ctlro: a read-only request reloaded the deck\n");
	abort();
}

/* Run one request on the read-only context; abort if anything changed. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct cmd_deck	deck = {
		.name = "fuzz",
		.started_ms = 1,
		.reload = fuzz_ro_reload,
	};
	struct cmd_ctx	  ctx;
	const uint8_t	 *nl;
	char		**argv = NULL, *line, *cause = NULL, *after;
	size_t		  len;
	int		  argc = -1, first = -1, json = 0, rc;

	if (fuzz_ro.jt == NULL)
		fuzz_ro_setup();
	/* The server reads up to the newline, at most CTL_REQUEST_MAX. */
	if ((nl = memchr(data, '\n', size)) != NULL)
		size = (size_t)(nl - data);
	if (size >= CTL_REQUEST_MAX)
		return 0;
	len = size;
	line = xmalloc(len + 1);
	memcpy(line, data, len);

	rc = ctl_request_parse(fuzz_ro.session, line, len, &argc, &argv,
	    &first, &json, &cause);
	if (rc != 0) {
		if (cause == NULL || argv != NULL || argc != 0)
			abort();
		free(cause);
		free(line);
		return 0;
	}
	if (cause != NULL || argv == NULL || first < 0 || first >= argc ||
	    argv[argc] != NULL || argv[first][0] == '\0')
		abort();

	memset(&ctx, 0, sizeof ctx);
	ctx.jt = fuzz_ro.jt;
	ctx.session = fuzz_ro.session;
	ctx.client = &fuzz_ro_client;
	ctx.sink = &fuzz_ro.sink;
	ctx.deck = &deck;
	ctx.json = json;
	ctx.read_only = 1;
	fuzz_ro.refused = 0;
	if (cmd_execute(&ctx, argc - first, argv + first) == CMD_RETURN_WAIT)
		cmd_sink_gone(&fuzz_ro.sink);
	/* A command that may change something never runs here. */
	if (ctx.entry != NULL && !(ctx.entry->flags & CMD_READ_ONLY) &&
	    (ctx.failed != CMD_FAILED || !fuzz_ro.refused))
		fuzz_ro_changed(ctx.entry->name);
	session_split_free(argc, argv);
	free(line);

	after = fuzz_ro_state();
	if (strcmp(after, fuzz_ro.before) != 0) {
		fprintf(stderr, "fuzz_ctlro: the deck changed:\nbefore: %s\n"
		    "after:  %s\n", fuzz_ro.before, after);
		abort();
	}
	free(after);
	return 0;
}

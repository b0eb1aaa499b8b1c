/*
 * cmd-deck.c: !deck, which describes the deck the command runs in
 * (ctx->deck, struct cmd_deck): its name, pid, when it started, its jobs
 * (in the table, and running now), the terminals attached now and its
 * configuration file.  Text is a few "key: value" lines; with --json one
 * object, {"name","pid","started","started_at","jobs","running",
 * "clients","config"}, which is what `jobdeck ls` asks every deck for.
 */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "cmd.h"
#include "job.h"
#include "jobtable.h"
#include "json.h"
#include "xmalloc.h"

static void	cmd_deck_exec(struct cmd_ctx *, int, char **);

const struct cmd_entry cmd_deck_entry = {
	.name = "deck",
	.help = "describe this deck: name, pid, start, jobs, clients, "
	    "configuration",
	.min_args = 0,
	.max_args = 0,
	.flags = CMD_READ_ONLY,
	.exec = cmd_deck_exec,
};

/* What !deck says, gathered once for both forms. */
struct cmd_deck_facts {
	const struct cmd_deck	*deck;
	long			 pid;
	int			 jobs;
	int			 running;
	int			 clients;
	char			 started_at[48];	/* "" when unknown */
};

/* Gather the facts of the deck ctx runs in. */
static void
cmd_deck_facts(struct cmd_ctx *ctx, struct cmd_deck_facts *f)
{
	const struct cmd_deck	*d = ctx->deck;

	f->deck = d;
	f->pid = (long)getpid();
	f->jobs = ctx->jt != NULL ? jobtable_count(ctx->jt) : 0;
	f->running = ctx->jt != NULL ? jobtable_running(ctx->jt) : 0;
	f->clients = d->clients != NULL ? d->clients(d->clients_arg) : 0;
	f->started_at[0] = '\0';
	if (d->started_ms > 0)
		job_format_time(d->started_ms, f->started_at,
		    sizeof f->started_at);
}

/* Write the facts as one JSON object and hand it to the client. */
static void
cmd_deck_json(struct cmd_ctx *ctx, const struct cmd_deck_facts *f)
{
	struct json_buf	jb;

	json_init(&jb);
	json_object_begin(&jb);
	json_key(&jb, "name");
	json_put_string(&jb, f->deck->name);
	json_key(&jb, "pid");
	json_put_int(&jb, f->pid);
	json_key(&jb, "started");
	if (f->started_at[0] != '\0')
		json_put_int(&jb, f->deck->started_ms / 1000);
	else
		json_put_null(&jb);
	json_key(&jb, "started_at");
	json_put_string(&jb, f->started_at[0] != '\0' ? f->started_at : NULL);
	json_key(&jb, "jobs");
	json_put_int(&jb, f->jobs);
	json_key(&jb, "running");
	json_put_int(&jb, f->running);
	json_key(&jb, "clients");
	json_put_int(&jb, f->clients);
	json_key(&jb, "config");
	json_put_string(&jb, f->deck->config);
	json_object_end(&jb);
	cmd_json_buf(ctx, &jb);
}

/* Show the facts as "key: value" lines. */
static void
cmd_deck_text(struct cmd_ctx *ctx, const struct cmd_deck_facts *f)
{
	const struct cmd_deck	*d = f->deck;
	char			*lines[7];
	int			 n = 0, i;

	lines[n++] = xprintf("name: %s", d->name != NULL ? d->name : "-");
	lines[n++] = xprintf("pid: %ld", f->pid);
	lines[n++] = xprintf("started: %s", f->started_at[0] != '\0' ?
	    f->started_at : "-");
	lines[n++] = xprintf("jobs: %d", f->jobs);
	lines[n++] = xprintf("running: %d", f->running);
	lines[n++] = xprintf("clients: %d", f->clients);
	lines[n++] = xprintf("config: %s", d->config != NULL ? d->config :
	    "none");
	cmd_show(ctx, "Deck", lines, n, 0);
	for (i = 0; i < n; i++)
		free(lines[i]);
}

/* !deck: describe the deck, as text or one JSON object. */
static void
cmd_deck_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct cmd_deck_facts	f;

	(void)argc;
	(void)argv;
	if (ctx->deck == NULL) {
		cmd_error(ctx, "deck: not known here");
		return;
	}
	cmd_deck_facts(ctx, &f);
	if (ctx->json)
		cmd_deck_json(ctx, &f);
	else
		cmd_deck_text(ctx, &f);
}

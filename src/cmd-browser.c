/*
 * cmd-browser.c: !browser [start | stop | restart | status], the deck's
 * headless Chrome (browser.h), as text or, with --json, one object; and
 * the words people see for the browser's states, which the panel, `jobdeck
 * up` and the status share (cmd_browser_state_text(), cmd_browser_detail()).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "browser.h"
#include "cmd.h"
#include "json.h"
#include "xmalloc.h"

static void	cmd_browser_exec(struct cmd_ctx *, int, char **);

const struct cmd_entry cmd_browser_entry = {
	.name = "browser",
	.args = "[start | stop | restart | status]",
	.help = "the deck's headless Chrome (jobs get JOBDECK_CDP_URL): "
	    "start, stop or restart it, or say how it is (status, the "
	    "default)",
	.min_args = 0,
	.max_args = 1,
	.flags = CMD_READ_ONLY,
	.exec = cmd_browser_exec,
};

static void	cmd_browser_status(struct cmd_ctx *, struct browser *);

/* What each word does and says: data, not four functions. */
static const struct {
	const char	*word;
	int		(*act)(struct browser *, char **);	/* NULL: */
								/*   status */
	const char	*verb;		/* "browser: starting" */
} cmd_browser_acts[] = {
	{ "status", NULL, NULL },
	{ "start", browser_start, "starting" },
	{ "stop", browser_stop, "stopping" },
	{ "restart", browser_restart, "restarting" },
};
#define CMD_BROWSER_NACTS \
	(sizeof cmd_browser_acts / sizeof cmd_browser_acts[0])

/* The words of the modes and kinds, for the status and JSON. */
static const char *const cmd_browser_modes[] = {
	[BROWSER_OFF] = "off",
	[BROWSER_AUTO] = "auto",
	[BROWSER_CONNECT] = "connect",
};
static const char *const cmd_browser_kinds[] = {
	[BROWSER_KIND_NONE] = NULL,
	[BROWSER_KIND_LOCAL] = "local",
	[BROWSER_KIND_DOCKER] = "docker",
	[BROWSER_KIND_REMOTE] = "remote",
};

/*
 * Return the words a person sees for the browser's state: "Starting…",
 * "CDP Ready", "Failed", "Stopping…", "Stopped" ("Off" while idle).
 */
const char *
cmd_browser_state_text(const struct browser *b)
{
	switch (browser_state(b)) {
	case BROWSER_IDLE:
		return "Off";
	case BROWSER_STARTING:
		return "Starting…";
	case BROWSER_READY:
		return "CDP Ready";
	case BROWSER_FAILED:
		return "Failed";
	case BROWSER_STOPPING:
		return "Stopping…";
	case BROWSER_STOPPED:
		return "Stopped";
	}
	return "?";
}

/*
 * Return what goes with the state (to free): the ws:// URL while ready,
 * "Failed: WHY" once failed, else NULL.  Not escaped: it came from
 * outside, and each face escapes it its own way.
 */
char *
cmd_browser_detail(const struct browser *b)
{
	const char	*s;

	switch (browser_state(b)) {
	case BROWSER_READY:
		s = browser_url(b);
		return s != NULL ? xstrdup(s) : NULL;
	case BROWSER_FAILED:
		s = browser_why(b);
		return xprintf("Failed: %s", s != NULL ? s : "unknown reason");
	default:
		return NULL;
	}
}

/* !browser [WORD]: do what the word says (status without one). */
static void
cmd_browser_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	const char	*word = argc > ctx->first ? argv[ctx->first] : "status";
	char		*cause = NULL;
	size_t		 i;

	for (i = 0; i < CMD_BROWSER_NACTS; i++) {
		if (strcmp(cmd_browser_acts[i].word, word) == 0)
			break;
	}
	if (i == CMD_BROWSER_NACTS) {
		cmd_usage_error(ctx, "browser: unknown word: %s (start, stop, "
		    "restart or status)", word);
		return;
	}
	if (cmd_browser_acts[i].act != NULL && ctx->read_only) {
		cause = xprintf("browser %s", word);
		(void)cmd_refuse_write(ctx, cause);
		free(cause);
		return;
	}
	if (ctx->browser == NULL) {
		cmd_error(ctx, "browser: no browser here");
		return;
	}
	if (cmd_browser_acts[i].act == NULL) {
		cmd_browser_status(ctx, ctx->browser);
		return;
	}
	if (cmd_browser_acts[i].act(ctx->browser, &cause) != 0) {
		cmd_error(ctx, "%s", cause);
		free(cause);
		return;
	}
	cmd_message(ctx, "browser: %s %s", cmd_browser_acts[i].verb,
	    browser_label(ctx->browser));
}

/* Write the browser as one JSON object and hand it to the client. */
static void
cmd_browser_json(struct cmd_ctx *ctx, struct browser *b)
{
	struct json_buf	 jb;

	json_init(&jb);
	json_object_begin(&jb);
	json_key(&jb, "mode");
	json_put_string(&jb, cmd_browser_modes[browser_mode(b)]);
	json_key(&jb, "kind");
	json_put_string(&jb, cmd_browser_kinds[browser_kind(b)]);
	json_key(&jb, "state");
	json_put_string(&jb, browser_state_name(browser_state(b)));
	json_key(&jb, "label");
	json_put_string(&jb, browser_label(b));
	json_key(&jb, "url");
	json_put_string(&jb, browser_url(b));
	json_key(&jb, "product");
	json_put_string(&jb, browser_product(b));
	json_key(&jb, "pid");
	if (browser_pid(b) > 0)
		json_put_int(&jb, browser_pid(b));
	else
		json_put_null(&jb);
	json_key(&jb, "container");
	json_put_string(&jb, browser_container(b));
	json_key(&jb, "profile");
	json_put_string(&jb, browser_profile(b));
	json_key(&jb, "error");
	json_put_string(&jb, browser_why(b));
	json_object_end(&jb);
	cmd_json_buf(ctx, &jb);
}

/*
 * !browser status: the state (its word and what a person sees), what it
 * is, and the URL, product, pid or container, profile and reason it has.
 */
static void
cmd_browser_status(struct cmd_ctx *ctx, struct browser *b)
{
	const char	*kind = cmd_browser_kinds[browser_kind(b)];
	char		*lines[10];
	int		 n = 0, i;

	if (ctx->json) {
		cmd_browser_json(ctx, b);
		return;
	}
	lines[n++] = xprintf("state      %s (%s)",
	    browser_state_name(browser_state(b)), cmd_browser_state_text(b));
	lines[n++] = xprintf("browser    %s", browser_label(b));
	lines[n++] = xprintf("mode       %s%s%s",
	    cmd_browser_modes[browser_mode(b)], kind != NULL ? ", " : "",
	    kind != NULL ? kind : "");
	if (browser_url(b) != NULL)
		lines[n++] = xprintf("url        %s", browser_url(b));
	if (browser_product(b) != NULL)
		lines[n++] = xprintf("product    %s", browser_product(b));
	if (browser_pid(b) > 0)
		lines[n++] = xprintf("pid        %ld", (long)browser_pid(b));
	if (browser_container(b) != NULL)
		lines[n++] = xprintf("container  %s", browser_container(b));
	if (browser_profile(b) != NULL)
		lines[n++] = xprintf("profile    %s", browser_profile(b));
	if (browser_why(b) != NULL)
		lines[n++] = xprintf("why        %s", browser_why(b));
	cmd_show(ctx, "Browser", lines, n, 0);
	for (i = 0; i < n; i++)
		free(lines[i]);
}

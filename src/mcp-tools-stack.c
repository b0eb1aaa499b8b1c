/*
 * mcp-tools-stack.c: the MCP tools that change the deck's configured jobs
 * (mcp-tools-private.h): stack_reload (reload: the configuration file
 * read again and applied) and stack_scale (scale NAME N).  Both answer
 * with the deck's report of what changed (cmd-reload.c's --json object),
 * copied member by member so that what the agent gets satisfies the
 * tools' outputSchema (MCP_SCHEMA_RELOAD, mcp-tools.c) whatever the deck
 * sent, and a short text: the deck's own summary line ("reload: 1
 * restarted, 1 added, 0 removed, 3 unchanged"), then the names of each
 * change but unchanged and the settings.  A deck's refusal (a file that
 * does not load, a job that is not configured) is a tool error in the
 * deck's words.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "jsonval.h"
#include "mcp-tools-private.h"
#include "xmalloc.h"

static void	mcp_tools_reload_done(struct mcp_call *,
		    const struct mcp_reply *);

/* stack_reload: ask the deck to read its configuration again. */
void
mcp_tools_reload(struct mcp_call *call, const struct jsonval *args)
{
	struct mcp_tools_words	w = { NULL, 0, 0 };

	(void)args;
	mcp_tools_add(&w, "reload");
	(void)mcp_tools_ask(call, &w, MCP_REQ_JSON, mcp_tools_reload_done);
}

/* stack_scale: ask the deck to run replicas copies of job name. */
void
mcp_tools_scale(struct mcp_call *call, const struct jsonval *args)
{
	struct mcp_tools_words	w = { NULL, 0, 0 };
	int64_t			n = 0;

	(void)jsonval_int(jsonval_get(args, "replicas"), &n);
	mcp_tools_add(&w, "scale");
	mcp_tools_add(&w, jsonval_get_string(args, "name"));
	mcp_tools_addf(&w, "%lld", (long long)n);
	(void)mcp_tools_ask(call, &w, MCP_REQ_JSON, mcp_tools_reload_done);
}

/*
 * Put key and the strings of array v (others left out) as an array of
 * strings; with a label, append a line "LABEL: a, b" (sep between) to
 * *text when there are some.
 */
static void
mcp_tools_put_names(struct json_buf *jb, const char *key,
    const struct jsonval *v, const char *label, const char *sep,
    char **text)
{
	const struct jsonval	*s;
	size_t			 i;
	int			 n = 0;

	json_key(jb, key);
	json_array_begin(jb);
	for (i = 0; jsonval_type(v) == JSONVAL_ARRAY && i < jsonval_count(v);
	    i++) {
		s = jsonval_at(v, i);
		if (jsonval_type(s) != JSONVAL_STRING)
			continue;
		json_put_stringn(jb, jsonval_string(s), jsonval_string_len(s));
		if (label != NULL)
			mcp_tools_cat(text, "%s%s", n++ == 0 ? label : sep,
			    jsonval_string(s));
	}
	json_array_end(jb);
	if (n > 0)
		mcp_tools_cat(text, "\n");
}

/* Put the deck's "jobs" (each with a name and a change) as the tools'. */
static void
mcp_tools_put_changes(struct json_buf *jb, const struct jsonval *jobs)
{
	const struct jsonval	*job;
	size_t			 i;

	json_key(jb, "jobs");
	json_array_begin(jb);
	for (i = 0; jsonval_type(jobs) == JSONVAL_ARRAY &&
	    i < jsonval_count(jobs); i++) {
		job = jsonval_at(jobs, i);
		if (jsonval_get_string(job, "name") == NULL ||
		    jsonval_get_string(job, "change") == NULL)
			continue;
		json_object_begin(jb);
		mcp_tools_put_string(jb, "name", jsonval_get(job, "name"));
		mcp_tools_put_string(jb, "change", jsonval_get(job, "change"));
		mcp_tools_put_string(jb, "what", jsonval_get(job, "what"));
		mcp_tools_put_int(jb, "replicas_before",
		    jsonval_get(job, "replicas_before"));
		mcp_tools_put_int(jb, "replicas_after",
		    jsonval_get(job, "replicas_after"));
		json_object_end(jb);
	}
	json_array_end(jb);
}

/*
 * stack_reload, stack_scale: the deck's report as the result, its summary
 * line and the names that changed as the text.
 */
static void
mcp_tools_reload_done(struct mcp_call *call, const struct mcp_reply *r)
{
	struct json_buf		 jb;
	struct jsonval		*doc;
	const struct jsonval	*summary;
	char			*text = NULL, *label;
	size_t			 k;

	if ((doc = mcp_tools_parse(call, r)) == NULL)
		return;
	summary = jsonval_get(doc, "summary");
	if (jsonval_type(summary) != JSONVAL_STRING) {
		jsonval_free(doc);
		mcp_call_fail(call, "the deck's reply is not a report of "
		    "changes (no \"summary\"): is the deck older than this "
		    "jobdeck mcp?");
		return;
	}
	json_init(&jb);
	json_object_begin(&jb);
	mcp_tools_put_string(&jb, "summary", summary);
	mcp_tools_cat(&text, "%s\n", jsonval_string(summary));
	for (k = 0; mcp_tools_change_words[k] != NULL; k++) {
		label = xprintf("%s: ", mcp_tools_change_words[k]);
		mcp_tools_put_names(&jb, mcp_tools_change_words[k],
		    jsonval_get(doc, mcp_tools_change_words[k]),
		    strcmp(mcp_tools_change_words[k], "unchanged") != 0 ?
		    label : NULL, ", ", &text);
		free(label);
	}
	mcp_tools_put_changes(&jb, jsonval_get(doc, "jobs"));
	mcp_tools_put_names(&jb, "settings", jsonval_get(doc, "settings"),
	    "setting: ", "\nsetting: ", &text);
	json_object_end(&jb);
	jsonval_free(doc);
	mcp_tools_finish(call, &jb, text);
}

/*
 * cmd-stack.c: the commands of a configured stack: !start-group GROUP
 * starts every configured job of a group that is not live (and what they
 * depend on), !kill-group GROUP stops every live job of it, the ones
 * that depend on others first (see stack.h); !graph shows the stack's
 * dependency graph (stack_graph_new()) as a tree, or as JSON nodes and
 * edges.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "job.h"
#include "json.h"
#include "stack.h"
#include "xmalloc.h"

static void	cmd_group_exec(struct cmd_ctx *, int, char **);
static void	cmd_graph_exec(struct cmd_ctx *, int, char **);

const struct cmd_entry cmd_start_group_entry = {
	.name = "start-group",
	.args = "GROUP",
	.help = "start the configured jobs of a group that do not run (and "
	    "what they depend on)",
	.min_args = 1,
	.max_args = 1,
	.exec = cmd_group_exec,
};

const struct cmd_entry cmd_kill_group_entry = {
	.name = "kill-group",
	.args = "GROUP",
	.help = "stop every job of a group, the ones that depend on others "
	    "first",
	.min_args = 1,
	.max_args = 1,
	.exec = cmd_group_exec,
};

/* What each group command does and says: data, not two functions. */
static const struct {
	const struct cmd_entry	*entry;
	int			(*act)(struct stack *, const char *, int *,
				    char **);
	const char		*none;		/* nothing to do */
	const char		*verb;		/* "starting" N jobs of G */
} cmd_group_acts[] = {
	{ &cmd_start_group_entry, stack_start_group,
	  "every job of %s runs already", "starting" },
	{ &cmd_kill_group_entry, stack_kill_group,
	  "no running jobs in %s", "stopping" },
};

/* !start-group GROUP and !kill-group GROUP. */
static void
cmd_group_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	size_t	 i;
	char	*cause = NULL;
	int	 n;

	(void)argc;
	for (i = 0; cmd_group_acts[i].entry != ctx->entry; i++)
		/* nothing: ctx->entry is one of the table's */;
	if (ctx->stack == NULL) {
		cmd_error(ctx, "%s: no configured stack here",
		    ctx->entry->name);
		return;
	}
	if (cmd_group_acts[i].act(ctx->stack, argv[1], &n, &cause) != 0) {
		cmd_error(ctx, "%s", cause);
		free(cause);
		return;
	}
	if (n == 0)
		cmd_message(ctx, cmd_group_acts[i].none, argv[1]);
	else
		cmd_message(ctx, "%s %d job%s of %s", cmd_group_acts[i].verb,
		    n, n == 1 ? "" : "s", argv[1]);
}

const struct cmd_entry cmd_graph_entry = {
	.name = "graph",
	.help = "show the stack's dependency graph: each job's state, what "
	    "it waits on and how long it waited",
	.min_args = 0,
	.max_args = 0,
	.flags = CMD_READ_ONLY,
	.exec = cmd_graph_exec,
};

/* The lines of !graph's tree being made. */
struct cmd_graph_text {
	const struct stack_graph *g;
	struct cmd_ctx		*ctx;
	char			*shown;		/* a node's subtree is shown */
	char			**lines;
	int			 n;
};

/* Return the index of the node called name, or -1 (the browser). */
static int
cmd_graph_node(const struct stack_graph *g, const char *name)
{
	size_t	i;

	for (i = 0; i < g->nnodes; i++) {
		if (strcmp(g->nodes[i].name, name) == 0)
			return (int)i;
	}
	return -1;
}

/* Return what an edge's gate says as a mark: holds, never can, not yet. */
static const char *
cmd_graph_mark(enum jobtable_gate gate)
{
	switch (gate) {
	case JOBTABLE_GO:
		return "✓";
	case JOBTABLE_FAIL:
		return "✗";
	case JOBTABLE_WAIT:
		break;
	}
	return "…";
}

/*
 * Say how a node stands: "running, waited 1.20s", "waiting, 0.40s so
 * far", "blocked", "not started".
 */
static void
cmd_graph_state(const struct stack_graph_node *node, char *buf, size_t size)
{
	char	dur[32];

	if (node->state == NULL) {
		snprintf(buf, size, "not started");
		return;
	}
	job_format_cpu(node->waited_ms, dur, sizeof dur);
	if (node->waiting)
		snprintf(buf, size, "%s, %s so far", node->state, dur);
	else if (node->waited_ms >= 0)
		snprintf(buf, size, "%s, waited %s", node->state, dur);
	else
		snprintf(buf, size, "%s", node->state);
}

/*
 * Add node i's line to the tree, below edge e (NULL: a root) after
 * prefix, then the jobs it depends on, each once in full (a subtree
 * shown already is named with "(see above)").
 */
static void
cmd_graph_add(struct cmd_graph_text *t, int i,
    const struct stack_graph_edge *e, const char *prefix, int last)
{
	const struct stack_graph *g = t->g;
	const struct stack_graph_edge *child;
	char		 state[128], *sub, *line, *inner;
	const char	*name = i >= 0 ? g->nodes[i].name : e->to;
	size_t		 k, nchild = 0, seen = 0;

	if (i >= 0)
		cmd_graph_state(&g->nodes[i], state, sizeof state);
	else
		snprintf(state, sizeof state, "%s", t->ctx->browser != NULL ?
		    cmd_browser_state_text(t->ctx->browser) : "none");
	if (e != NULL)
		sub = xprintf(" (%s %s)", e->condition,
		    cmd_graph_mark(e->gate));
	else
		sub = xstrdup("");
	line = xprintf("%s%s%s%s: %s%s", prefix, e == NULL ? "" : last ?
	    "└─ " : "├─ ", name, sub, state, i >= 0 && t->shown[i] &&
	    e != NULL ? " (see above)" : "");
	free(sub);
	t->lines = xreallocarray(t->lines, (size_t)t->n + 1,
	    sizeof *t->lines);
	t->lines[t->n++] = line;
	if (i < 0 || t->shown[i])
		return;
	t->shown[i] = 1;
	for (k = 0; k < g->nedges; k++)
		nchild += strcmp(g->edges[k].from, name) == 0;
	inner = xprintf("%s%s", prefix, e == NULL ? "" : last ? "   " :
	    "│  ");
	for (k = 0; k < g->nedges; k++) {
		child = &g->edges[k];
		if (strcmp(child->from, name) != 0)
			continue;
		seen++;
		cmd_graph_add(t, cmd_graph_node(g, child->to), child, inner,
		    seen == nchild);
	}
	free(inner);
}

/* Write the graph as JSON: {"nodes": [...], "edges": [...]}. */
static void
cmd_graph_json(struct cmd_ctx *ctx, const struct stack_graph *g)
{
	const struct stack_graph_node *node;
	const struct stack_graph_edge *e;
	struct json_buf	jb;
	char		at[48];
	size_t		i;

	json_init(&jb);
	json_object_begin(&jb);
	json_key(&jb, "nodes");
	json_array_begin(&jb);
	for (i = 0; i < g->nnodes; i++) {
		node = &g->nodes[i];
		json_object_begin(&jb);
		json_key(&jb, "name");
		json_put_string(&jb, node->name);
		json_key(&jb, "id");
		if (node->job != NULL)
			json_put_int(&jb, job_id(node->job));
		else
			json_put_null(&jb);
		json_key(&jb, "state");
		json_put_string(&jb, node->state);
		json_key(&jb, "started_at");
		json_put_string(&jb, node->started_at > 0 ?
		    job_format_time(node->started_at, at, sizeof at) : NULL);
		json_key(&jb, "waited_ms");
		if (node->waited_ms >= 0)
			json_put_int(&jb, node->waited_ms);
		else
			json_put_null(&jb);
		json_key(&jb, "waiting");
		json_put_bool(&jb, node->waiting);
		json_object_end(&jb);
	}
	json_array_end(&jb);
	json_key(&jb, "edges");
	json_array_begin(&jb);
	for (i = 0; i < g->nedges; i++) {
		e = &g->edges[i];
		json_object_begin(&jb);
		json_key(&jb, "from");
		json_put_string(&jb, e->from);
		json_key(&jb, "to");
		json_put_string(&jb, e->to);
		json_key(&jb, "condition");
		json_put_string(&jb, e->condition);
		json_key(&jb, "satisfied");
		json_put_bool(&jb, e->gate == JOBTABLE_GO);
		json_object_end(&jb);
	}
	json_array_end(&jb);
	json_object_end(&jb);
	cmd_json_buf(ctx, &jb);
}

/*
 * !graph: the stack's jobs as a tree, each under the jobs that depend on
 * it (the roots: the jobs nothing depends on), each edge with its
 * condition and whether it holds; or, for JSON, the nodes and edges.
 */
static void
cmd_graph_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct stack_graph	*g;
	struct cmd_graph_text	 t;
	size_t			 i, k;

	(void)argc;
	(void)argv;
	if (ctx->stack == NULL) {
		cmd_error(ctx, "graph: no configured stack here");
		return;
	}
	g = stack_graph_new(ctx->stack);
	if (ctx->json) {
		cmd_graph_json(ctx, g);
		stack_graph_free(g);
		return;
	}
	if (g->nnodes == 0) {
		cmd_message(ctx, "graph: the configuration has no jobs");
		stack_graph_free(g);
		return;
	}
	memset(&t, 0, sizeof t);
	t.g = g;
	t.ctx = ctx;
	t.shown = xcalloc(g->nnodes, 1);
	for (i = 0; i < g->nnodes; i++) {
		for (k = 0; k < g->nedges; k++) {
			if (strcmp(g->edges[k].to, g->nodes[i].name) == 0)
				break;
		}
		if (k == g->nedges)
			cmd_graph_add(&t, (int)i, NULL, "", 1);
	}
	cmd_show(ctx, "Graph", t.lines, t.n, 0);
	for (i = 0; i < (size_t)t.n; i++)
		free(t.lines[i]);
	free(t.lines);
	free(t.shown);
	stack_graph_free(g);
}

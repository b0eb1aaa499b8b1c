/*
 * stack: the configured jobs as a stack.  It is the jobtable's policy
 * (jobtable_set_policy()): a configured job waits (JOB_WAITING, "db
 * (ready)") until each of its depends_on conditions holds and its
 * start_delay has passed, fails when one can never hold ("db exited
 * before it was ready"), and is stopped only after every live job that
 * depends on it (the reverse order on quit and !kill-all).  It runs each
 * run's readiness probe (the job is "starting" until it passes; a job
 * without one is ready once started) and liveness probe (whose failure
 * fails the job, so its restart policy applies), restarts jobs whose
 * watched files change (the note says why), applies [groups.NAME] limits,
 * and starts replicas NAME.1..NAME.N.  Starting a configured job also
 * starts the jobs it depends on that are not live, transitively.  Jobs
 * not from the configuration (typed, ctl spawn) are never held.  A job
 * may depend on the deck's browser (depends_on = { browser = "ready" }):
 * it waits for CDP Ready (for "started", Starting… will do) and fails
 * once the browser has failed; starting it starts a browser that does
 * not run (stack_set_browser(); the caller rechecks on every change).
 * Jobs with a schedule or an every start on their timetable
 * (timetable.h), as !restart runs a job again.
 *
 * The stack moves to a reloaded configuration while it runs
 * (stack_reload()): configured jobs are matched by name; an unchanged
 * one goes on (same pid, same run), a changed one (any option but its
 * replicas, autostart and watches; or the text its env files give it)
 * restarts with its new spec, dependencies first, one added starts if it
 * autostarts, one removed is stopped as !kill stops it and leaves the
 * table (its runs stay in the store).  stack_scale() changes how many
 * replicas a job runs (!scale), the highest-numbered stopped first,
 * until a reload changes its replicas.
 *
 * Ownership: the caller owns the struct stack and frees it before the
 * jobtable; the stack borrows the loop, jobtable, config, session and
 * http, and owns its probes, watches and timers.
 */
#ifndef JOBDECK_STACK_H
#define JOBDECK_STACK_H

#include <stddef.h>
#include <stdint.h>

#include "jobtable.h"

struct browser;
struct config;
struct config_job;
struct expand_param;
struct http;
struct job;
struct jobtable;
struct loop;
struct session;
struct stack;

struct stack	*stack_new(struct loop *, struct jobtable *,
		    const struct config *, struct session *, struct http *);
void		 stack_free(struct stack *);
void		 stack_set_browser(struct stack *, struct browser *);

int		 stack_start(struct stack *, const struct config_job *,
		    const struct expand_param *, size_t, struct job **first,
		    char **cause);
int		 stack_start_all(struct stack *, char *const *names, int n,
		    char **cause);
int		 stack_start_group(struct stack *, const char *group,
		    int *started, char **cause);
int		 stack_kill_group(struct stack *, const char *group,
		    int *stopped, char **cause);
const struct config_job *stack_job_config(const struct stack *,
		    const struct job *);
const struct config *stack_config(const struct stack *);

/* What a reload or a scale did to one configured job. */
enum stack_change_kind {
	STACK_UNCHANGED,	/* its jobs go on untouched */
	STACK_RESTARTED,	/* its spec changed: its live jobs restarted */
	STACK_UPDATED,		/*   none was live: the next start takes it */
	STACK_ADDED,		/* new: started if it autostarts */
	STACK_REMOVED,		/* gone from the file: stopped, removed */
	STACK_SCALED		/* only its count of replicas changed */
};

struct stack_change {
	char			*name;	/* the configured job's */
	enum stack_change_kind	 kind;
	char			*what;	/* the options that changed, */
					/*   "command, env", and failures; */
					/*   or NULL */
	int			 was;	/* replicas before and after (1 for */
	int			 now;	/*   a job without; 0 when absent) */
};

void		 stack_reload(struct stack *, const struct config *,
		    struct stack_change **, size_t *);
int		 stack_scale(struct stack *, const char *name, int n,
		    struct stack_change **, size_t *, char **cause);
void		 stack_changes_free(struct stack_change *, size_t);
const char	*stack_change_word(enum stack_change_kind);

/* Jobs on a timer (schedule, every; timetable.h): -1 for any other. */
void		 stack_end_timers(struct stack *);
int64_t		 stack_next_run(const struct stack *, const struct job *);
int64_t		 stack_skipped_runs(const struct stack *, const struct job *);
/*
 * The stack's dependency graph as it stands (!graph): a node per
 * configured job, with its (first replica's) job, state and how long it
 * was held before its last start (waited_ms: from being spawned, or held
 * again, to the start; while it is still held, until now; -1: it never
 * started), and an edge per depends_on condition: from the job that
 * waits to the one it depends on ("browser": the deck's browser), the
 * condition's name and what the gate says of it now.  The strings are
 * the config's, valid while the stack lives.
 */
struct stack_graph_node {
	const char	*name;
	struct job	*job;		/* NULL: none now */
	const char	*state;		/* job_state_name(); NULL: never */
					/*   started */
	int64_t		 started_at;	/* wall ms of its last start, or 0 */
	int64_t		 waited_ms;
	int		 waiting;	/* held now */
};

struct stack_graph_edge {
	const char		*from;
	const char		*to;
	const char		*condition;	/* "ready", "started"... */
	enum jobtable_gate	 gate;		/* GO: it holds; FAIL: it */
						/*   never can */
};

struct stack_graph {
	struct stack_graph_node	*nodes;
	size_t			 nnodes;
	struct stack_graph_edge	*edges;
	size_t			 nedges;
};

struct stack_graph *stack_graph_new(struct stack *);
void		 stack_graph_free(struct stack_graph *);

#endif

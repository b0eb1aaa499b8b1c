/*
 * stack.c: the configured jobs as a stack (see stack.h).  Groundwork:
 * starting configured jobs and their replicas.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "job.h"
#include "jobtable.h"
#include "launch.h"
#include "stack.h"
#include "xmalloc.h"

struct stack {
	struct loop		*loop;
	struct jobtable		*jt;
	const struct config	*config;
	struct session		*session;
	struct http		*http;
};

/* Make the stack of config's jobs on jt. */
struct stack *
stack_new(struct loop *loop, struct jobtable *jt, const struct config *config,
    struct session *session, struct http *http)
{
	struct stack	*st;

	st = xcalloc(1, sizeof *st);
	st->loop = loop;
	st->jt = jt;
	st->config = config;
	st->session = session;
	st->http = http;
	return st;
}

/* Free the stack. */
void
stack_free(struct stack *st)
{
	free(st);
}

/*
 * Start configured job cj (each of its replicas) with params over its
 * own; *first (if not NULL) is the first job started.  -1 with *cause.
 */
int
stack_start(struct stack *st, const struct config_job *cj,
    const struct expand_param *params, size_t nparams, struct job **first,
    char **cause)
{
	struct launch	*l;
	struct job	*job;
	char		*why = NULL;
	int		 r, n;

	if (first != NULL)
		*first = NULL;
	n = cj->replicas > 1 ? cj->replicas : 1;
	for (r = 1; r <= n; r++) {
		l = launch_new_at(cj, st->config != NULL ?
		    &st->config->settings : NULL, st->session, params, nparams,
		    n > 1 ? r : 0, NULL, &why);
		if (l == NULL)
			goto fail;
		job = jobtable_spawn(st->jt, launch_spec(l), &why);
		launch_free(l);
		if (job == NULL)
			goto fail;
		if (first != NULL && *first == NULL)
			*first = job;
	}
	return 0;

fail:
	*cause = xprintf("cannot start %s (%s)", cj->name, why);
	free(why);
	return -1;
}

/*
 * Start the named configured jobs (names NULL: every autostart job);
 * -1 with *cause (every failure, one a line) if any could not start.
 */
int
stack_start_all(struct stack *st, char *const *names, int n, char **cause)
{
	const struct config_job	*cj;
	char			*why, *all = NULL, *tmp;
	size_t			 i;
	int			 k;

	if (st->config == NULL)
		return 0;
	for (i = 0; i < st->config->njobs; i++) {
		cj = &st->config->jobs[i];
		if (names == NULL && !cj->autostart)
			continue;
		for (k = 0; names != NULL && k < n; k++) {
			if (strcmp(names[k], cj->name) == 0)
				break;
		}
		if (names != NULL && k == n)
			continue;
		why = NULL;
		if (stack_start(st, cj, NULL, 0, NULL, &why) != 0) {
			tmp = xprintf("%s%s%s", all != NULL ? all : "",
			    all != NULL ? "\n" : "", why);
			free(all);
			free(why);
			all = tmp;
		}
	}
	if (all == NULL)
		return 0;
	*cause = all;
	return -1;
}

/* Start every configured job of group; *started says how many. */
int
stack_start_group(struct stack *st, const char *group, int *started,
    char **cause)
{
	(void)st;
	(void)group;
	*started = 0;
	*cause = xstrdup("groups are not built yet");
	return -1;
}

/* Stop every live job of group; *stopped says how many. */
int
stack_kill_group(struct stack *st, const char *group, int *stopped,
    char **cause)
{
	(void)st;
	(void)group;
	*stopped = 0;
	*cause = xstrdup("groups are not built yet");
	return -1;
}

/* Return the configured job job was started from, or NULL. */
const struct config_job *
stack_job_config(const struct stack *st, const struct job *job)
{
	(void)st;
	(void)job;
	return NULL;
}

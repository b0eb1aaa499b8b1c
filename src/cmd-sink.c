/*
 * cmd-sink.c: a command's task on a face's sink (cmdsink.h): begun by the
 * command, started by the face, fed the jobs' ends by the tasks hub, done
 * or gone once.
 */
#include <stdlib.h>

#include "cmdsink.h"
#include "jobtable.h"
#include "xmalloc.h"

/* Every started task of a face, and the job table they hear of. */
struct cmd_tasks {
	struct jobtable	*jt;
	struct loop	*loop;
	int		 handle;	/* the subscription, or -1 */
	struct cmd_sink	*first;		/* the started tasks' sinks */
};

static void	cmd_tasks_output(struct job *, const char *, size_t, void *);
static void	cmd_tasks_exited(struct job *, void *);
static void	cmd_tasks_removed(struct job *, void *);

static const struct jobtable_cbs cmd_tasks_cbs = {
	.output = cmd_tasks_output,
	.exited = cmd_tasks_exited,
	.removed = cmd_tasks_removed,
};

/* Make a face's tasks hub on a job table and a loop (jt may be NULL). */
struct cmd_tasks *
cmd_tasks_new(struct jobtable *jt, struct loop *loop)
{
	struct cmd_tasks	*t;

	t = xcalloc(1, sizeof *t);
	t->jt = jt;
	t->loop = loop;
	t->handle = jt != NULL ? jobtable_subscribe(jt, &cmd_tasks_cbs, t) :
	    -1;
	return t;
}

/* Free a tasks hub; its sinks have gone first (else they are let go). */
void
cmd_tasks_free(struct cmd_tasks *t)
{
	if (t == NULL)
		return;
	while (t->first != NULL)
		cmd_sink_gone(t->first);
	if (t->handle != -1)
		jobtable_unsubscribe(t->jt, t->handle);
	free(t);
}

/* Return the loop a hub's tasks run on. */
struct loop *
cmd_tasks_loop(const struct cmd_tasks *t)
{
	return t->loop;
}

/* Return the job table a hub's tasks hear of. */
struct jobtable *
cmd_tasks_jobtable(const struct cmd_tasks *t)
{
	return t->jt;
}

/*
 * Tell every started task that asks of a job's end or removal (a task
 * may end itself, no other).
 */
static void
cmd_tasks_tell(struct cmd_tasks *t, struct job *job, int removed)
{
	struct cmd_sink	*s, *next;
	void		(*cb)(struct job *, void *);

	for (s = t->first; s != NULL; s = next) {
		next = s->next;
		cb = removed ? s->task->removed : s->task->exited;
		if (cb != NULL)
			cb(job, s->state);
	}
}

/* A job printed: tell every started task that asks. */
static void
cmd_tasks_output(struct job *job, const char *buf, size_t len, void *arg)
{
	struct cmd_tasks	*t = arg;
	struct cmd_sink		*s, *next;

	for (s = t->first; s != NULL; s = next) {
		next = s->next;
		if (s->task->output != NULL)
			s->task->output(job, buf, len, s->state);
	}
}

/* A job ended: tell the tasks. */
static void
cmd_tasks_exited(struct job *job, void *arg)
{
	cmd_tasks_tell(arg, job, 0);
}

/* A job leaves the table: tell the tasks. */
static void
cmd_tasks_removed(struct job *job, void *arg)
{
	cmd_tasks_tell(arg, job, 1);
}

/* Set a face's sink up: its ops and arg, its tasks hub; no task yet. */
void
cmd_sink_init(struct cmd_sink *s, struct cmd_tasks *tasks,
    const struct cmd_sink_ops *ops, void *arg)
{
	s->ops = ops;
	s->arg = arg;
	s->tasks = tasks;
	s->task = NULL;
	s->state = NULL;
	s->started = 0;
	s->prev = s->next = NULL;
}

/*
 * Begin a task on a sink: the face accepts it (the sink owns state now)
 * or refuses, with *cause, and state is freed.  0, or -1.
 */
int
cmd_sink_begin(struct cmd_sink *s, const struct cmd_task_ops *task,
    void *state, char **cause)
{
	if (s->task != NULL) {
		*cause = xstrdup("already streaming");
		task->free(state);
		return -1;
	}
	if (s->ops->open(s->arg, cause) != 0) {
		task->free(state);
		return -1;
	}
	s->task = task;
	s->state = state;
	return 0;
}

/* Return whether a task runs on a sink (begun, not yet done or gone). */
int
cmd_sink_busy(const struct cmd_sink *s)
{
	return s->task != NULL;
}

/* Return a sink's task's flags (CMD_TASK_CODE...), 0 without one. */
int
cmd_sink_flags(const struct cmd_sink *s)
{
	return s->task != NULL ? s->task->flags : 0;
}

/* Return whether a started task has output to be pulled now. */
int
cmd_sink_more(struct cmd_sink *s)
{
	return s->started && s->task->more != NULL && s->task->more(s->state);
}

/* Pull a started task's output while *budget lasts (and not stalled). */
void
cmd_sink_fill(struct cmd_sink *s, size_t *budget)
{
	if (s->started && s->task->fill != NULL)
		s->task->fill(budget, s->state);
}

/* Return the loop a sink's task runs on. */
struct loop *
cmd_sink_loop(const struct cmd_sink *s)
{
	return s->tasks->loop;
}

/* Take a sink's task off its hub's started list and forget it. */
static void
cmd_sink_detach(struct cmd_sink *s)
{
	if (s->started) {
		if (s->prev != NULL)
			s->prev->next = s->next;
		else
			s->tasks->first = s->next;
		if (s->next != NULL)
			s->next->prev = s->prev;
	}
	s->prev = s->next = NULL;
	s->started = 0;
	s->task = NULL;
	s->state = NULL;
}

/* The face has written its opening: the task starts (and hears of jobs). */
void
cmd_sink_start(struct cmd_sink *s)
{
	if (s->task == NULL || s->started)
		return;
	s->started = 1;
	s->prev = NULL;
	s->next = s->tasks->first;
	if (s->next != NULL)
		s->next->prev = s;
	s->tasks->first = s;
	if (s->task->start != NULL)
		s->task->start(s->state);
}

/* The peer can take more: tell a started task. */
void
cmd_sink_writable(struct cmd_sink *s)
{
	if (s->started && s->task->writable != NULL)
		s->task->writable(s->state);
}

/* Ask a started task to finish now, saying why (it says done). */
void
cmd_sink_stop(struct cmd_sink *s, const char *why)
{
	if (s->started && s->task->stop != NULL)
		s->task->stop(why, s->state);
}

/* The peer went away: the task is freed, without a done. */
void
cmd_sink_gone(struct cmd_sink *s)
{
	const struct cmd_task_ops	*task = s->task;
	void				*state = s->state;

	if (task == NULL)
		return;
	cmd_sink_detach(s);
	task->free(state);
}

/* Write a line of text (safe already, without its newline). */
void
cmd_sink_text(struct cmd_sink *s, const char *line, size_t len)
{
	if (s->ops->text != NULL)
		s->ops->text(line, len, s->arg);
}

/* Write a JSON document. */
void
cmd_sink_json(struct cmd_sink *s, const char *doc, size_t len)
{
	if (s->ops->json != NULL)
		s->ops->json(doc, len, s->arg);
}

/* Write bytes as they are. */
void
cmd_sink_raw(struct cmd_sink *s, const char *buf, size_t len)
{
	if (s->ops->raw != NULL)
		s->ops->raw(buf, len, s->arg);
}

/* Say something apart from the output: a word and its (safe) text. */
void
cmd_sink_control(struct cmd_sink *s, const char *word, const char *text)
{
	if (s->ops->control != NULL)
		s->ops->control(word, text, s->arg);
}

/* Return whether the peer holds enough for now (wait for writable). */
int
cmd_sink_stalled(struct cmd_sink *s)
{
	return s->ops->stalled != NULL && s->ops->stalled(s->arg);
}

/* The task writes as jobs print (on), or as the peer reads. */
void
cmd_sink_pushed(struct cmd_sink *s, int on)
{
	if (s->ops->pushed != NULL)
		s->ops->pushed(on, s->arg);
}

/* The task has output to be pulled: the face fills when it can. */
void
cmd_sink_ready(struct cmd_sink *s)
{
	if (s->ops->ready != NULL)
		s->ops->ready(s->arg);
}

/*
 * The task is done: it is freed, then the face hears the exit code.  The
 * caller (the task) touches its state no more.
 */
void
cmd_sink_done(struct cmd_sink *s, int code)
{
	if (s->task == NULL)
		return;
	cmd_sink_gone(s);
	s->ops->done(code, s->arg);
}

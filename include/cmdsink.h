/*
 * cmdsink: where a command that goes on after it returns writes, and how
 * it hears of its reader and of the jobs.
 *
 * A command whose result comes later (wait, grep: CMD_RETURN_WAIT) keeps
 * a small state of its own, a task.  A face that can run such commands
 * (a control connection, a test) fills a struct cmd_sink once with its
 * ops (cmd_sink_init()) and hands it in ctx->sink; a face without one
 * (the prompt) leaves it NULL, and those commands say they cannot run
 * there.  exec starts the task with cmd_sink_begin() (the face may
 * refuse: too many streams); cmd_execute() then returns CMD_RETURN_WAIT.
 * The face writes its own opening and calls cmd_sink_start(): from then
 * on the task writes lines, documents and bytes through the sink, holds
 * off while cmd_sink_stalled(), and ends with cmd_sink_done(code), which
 * tells the face the code and frees the task.  The face tells the task
 * when the peer can take more (cmd_sink_writable()), asks it to finish
 * now (cmd_sink_stop(): the deck quits) and says when the peer went away
 * (cmd_sink_gone()): the task is freed without a done.
 *
 * Jobs: a struct cmd_tasks is the one subscriber to a job table for every
 * task started on sinks made with it (a table has few subscriber places,
 * a deck may run hundreds of waits); it hands each running task the
 * output, ends and removals of jobs.  The face makes it with its loop and frees it
 * after its sinks.
 *
 * Ownership: the face owns the sink and the tasks hub; a sink owns its
 * task's state from cmd_sink_begin() until done or gone.  Text handed to
 * the sink is safe for a terminal already (textesc.h): the task escapes.
 * After cmd_sink_done() or within the task's free, the task must not
 * touch its state again.
 */
#ifndef JOBDECK_CMDSINK_H
#define JOBDECK_CMDSINK_H

#include <stddef.h>

struct job;
struct jobtable;
struct loop;

/*
 * What a face does with a task's output; arg is cmd_sink_init()'s.  open
 * accepts a task (0) or refuses it (-1 with *cause); text writes a line
 * (without its newline), json a document, raw bytes as they are; control
 * says something apart from the output, a word and its text ("error"
 * "grep: ..."); stalled says that the peer holds enough for now (the task
 * waits for writable, or for fill); pushed says that the task writes as
 * jobs print rather than as the peer reads (on: the face bounds what may
 * wait), or no longer; ready says that the task has output to be pulled
 * (its more): the face calls fill when the peer can take it; done ends
 * the output with the command's exit code (-1: none to tell).  Any but
 * open and done may be NULL (nothing written, never stalled).
 */
struct cmd_sink_ops {
	int	(*open)(void *arg, char **cause);
	void	(*text)(const char *line, size_t len, void *arg);
	void	(*json)(const char *doc, size_t len, void *arg);
	void	(*raw)(const char *buf, size_t len, void *arg);
	void	(*control)(const char *word, const char *text, void *arg);
	int	(*stalled)(void *arg);
	void	(*pushed)(int on, void *arg);
	void	(*ready)(void *arg);
	void	(*done)(int code, void *arg);
};

/*
 * A task's side; state is cmd_sink_begin()'s.  start runs once the face
 * has written its opening; writable after a stall, when the peer can take
 * more; more says whether it has output to be pulled now, and fill writes
 * it while the sink is not stalled and *budget (bytes, taken from as it
 * writes) lasts; output, exited and removed when a job prints, ends or is
 * about to leave the table (they may call back into the table); stop asks
 * it to finish now, saying why (it must call cmd_sink_done()); free frees
 * the state.  Any but free may be NULL.  CMD_TASK_CODE: its exit code
 * comes at the end (the face says so in its opening); CMD_TASK_QUIET: it
 * may say nothing for long (a wait): the face tells its peer that it
 * lives (keepalives).
 */
struct cmd_task_ops {
	void	(*start)(void *state);
	void	(*writable)(void *state);
	int	(*more)(void *state);
	void	(*fill)(size_t *budget, void *state);
	void	(*output)(struct job *, const char *buf, size_t len,
		    void *state);
	void	(*exited)(struct job *, void *state);
	void	(*removed)(struct job *, void *state);
	void	(*stop)(const char *why, void *state);
	void	(*free)(void *state);

#define CMD_TASK_CODE	0x1
#define CMD_TASK_QUIET	0x2
	int	  flags;
};

struct cmd_tasks;

/* A face's sink: its ops, and the task on it.  Members are cmdsink's. */
struct cmd_sink {
	const struct cmd_sink_ops	*ops;
	void				*arg;
	struct cmd_tasks		*tasks;

	const struct cmd_task_ops	*task;	/* NULL: none */
	void				*state;
	int				 started;
	struct cmd_sink			*prev;	/* among the tasks' started */
	struct cmd_sink			*next;
};

struct cmd_tasks *cmd_tasks_new(struct jobtable *, struct loop *);
void		 cmd_tasks_free(struct cmd_tasks *);
struct loop	*cmd_tasks_loop(const struct cmd_tasks *);
struct jobtable	*cmd_tasks_jobtable(const struct cmd_tasks *);

void	cmd_sink_init(struct cmd_sink *, struct cmd_tasks *,
	    const struct cmd_sink_ops *, void *arg);
int	cmd_sink_begin(struct cmd_sink *, const struct cmd_task_ops *,
	    void *state, char **cause);
int	cmd_sink_busy(const struct cmd_sink *);
int	cmd_sink_flags(const struct cmd_sink *);
int	cmd_sink_more(struct cmd_sink *);
void	cmd_sink_fill(struct cmd_sink *, size_t *budget);
struct loop *cmd_sink_loop(const struct cmd_sink *);
void	cmd_sink_start(struct cmd_sink *);
void	cmd_sink_writable(struct cmd_sink *);
void	cmd_sink_stop(struct cmd_sink *, const char *why);
void	cmd_sink_gone(struct cmd_sink *);

void	cmd_sink_text(struct cmd_sink *, const char *line, size_t len);
void	cmd_sink_json(struct cmd_sink *, const char *doc, size_t len);
void	cmd_sink_raw(struct cmd_sink *, const char *buf, size_t len);
void	cmd_sink_control(struct cmd_sink *, const char *word,
	    const char *text);
int	cmd_sink_stalled(struct cmd_sink *);
void	cmd_sink_pushed(struct cmd_sink *, int on);
void	cmd_sink_ready(struct cmd_sink *);
void	cmd_sink_done(struct cmd_sink *, int code);

#endif

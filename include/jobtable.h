/*
 * jobtable: every job of the deck.  It spawns jobs (giving ids 1, 2, 3...),
 * finds them by id or name, watches their fds on the loop (reading every
 * job's output all the time, with a per-turn budget so one noisy job cannot
 * starve the others), has each run supervised by its reaper (proc.h: it
 * reaps children on SIGCHLD with waitpid(-1, WNOHANG); jobdeck is a child
 * subreaper, so strays reparented to it are reaped too), kills a job's
 * process group with a grace period before SIGKILL (and, with a deck's
 * containment set by jobtable_set_cgroup(), what left the group: its
 * cgroup or its marker, see cgroup.h and jobtable.c), and tells
 * subscribers about starts, output and exits; a subscriber whose own
 * reader is slow may pause the reading of one stream of a job
 * (jobtable_pause_output()), so its child waits on the pipe.  Jobs
 * beyond max_running (or their group's limit) wait queued and start as others end, the highest
 * priority first, then in the order they were queued; a job's time limit,
 * restart policy (with its backoff) and way of stopping (stop_signal,
 * stop_command, stop_timeout) come from its spec and run here too, and
 * the oldest finished jobs beyond keep_finished are dropped.  A job may
 * be given a new spec (jobtable_respec(): a reloaded configuration), which
 * its next start takes, the same id and name kept.  Other
 * processes the deck starts (a probe's command, the browser, the session
 * shell) are supervised by the same reaper: jobtable_reaper().  A running
 * pty job that went quiet is probed, on a timer and a bounded number a
 * turn, for whether it waits for input (ttywait.h, job_input_wait());
 * output or input (jobtable_write(), jobtable_update()) clears it, and
 * subscribers hear of each change as changed.  A policy
 * (the stack's) may hold a job before any start and order the stops of
 * jobtable_kill_all().  It is the one place a job is made from a
 * spec: jobtable_spawn() gives every job the deck's log directory and
 * scrollback, and pipes when the deck runs without ptys, whatever the
 * caller's spec says of them; each start gets the deck's environment
 * (jobtable_set_env(): JOBDECK_CDP_URL while the browser is ready) over
 * the job's own.  It never prints.
 *
 * Ownership: the caller owns the struct jobtable; the jobtable owns every
 * struct job in it, its reaper and the watches and timers it adds to the
 * loop; the struct cgroup it is given stays the caller's.  A job
 * pointer stays valid until the removed callback has been told of it.
 */
#ifndef JOBDECK_JOBTABLE_H
#define JOBDECK_JOBTABLE_H

#include <sys/types.h>

#include <stddef.h>

#include "store.h"

struct cgroup;
struct hosts;
struct job;
struct store;
struct job_spec;
struct loop;
struct jobtable;
struct proc_reaper;

/*
 * Subscriber callbacks; any may be NULL.  They may call back into the
 * jobtable (spawn, kill, recheck...).  A job held by the policy is told
 * of as queued when it is new, as changed after that.
 */
struct jobtable_cbs {
	void	(*started)(struct job *, void *arg);
	void	(*output)(struct job *, const char *buf, size_t len,
		    void *arg);
	void	(*exited)(struct job *, void *arg);
	void	(*queued)(struct job *, void *arg);	/* waits for a slot */
	void	(*changed)(struct job *, void *arg);	/* stopped, continued, */
						/* renamed, waits for input or not */
	void	(*removed)(struct job *, void *arg);	/* about to be freed */
	void	(*stream)(struct job *, enum store_stream, const char *buf,
		    size_t len, void *arg);	/* output as output's, with */
					/* the stream it came on; len 0: that
					   stream is at its end (told once) */
};

/*
 * What may start, and in which order jobs stop; set by whoever knows the
 * jobs' dependencies (stack.c).  may_start is asked before every start of
 * a job (spawn, the queue, !restart, its restart policy): JOBTABLE_GO
 * starts it (or queues it), JOBTABLE_WAIT leaves it JOB_WAITING with
 * *why (allocated) as its reason until jobtable_recheck(), JOBTABLE_FAIL
 * ends it JOB_BLOCKED (a dependency failed: it never runs, has no exit
 * code) with *why as its reason.  stop_later says a live
 * job must go on running until others it serves have stopped: the
 * jobtable_kill_all() of a deck's quit or !kill-all stops it once
 * stop_later says 0 (checked again after every exit), or once nothing but
 * held jobs runs.  Both are questions: they must not call into the
 * jobtable.  A waiting job is live (it keeps its name, cannot be removed)
 * and a kill cancels it, as a queued one.
 */
enum jobtable_gate {
	JOBTABLE_GO,
	JOBTABLE_WAIT,
	JOBTABLE_FAIL
};

struct jobtable_policy {
	enum jobtable_gate (*may_start)(struct job *, char **why, void *arg);
	int	(*stop_later)(struct job *, void *arg);
};

#define JOBTABLE_READ_BUDGET	(256 * 1024)	/* bytes per job per turn */
#define JOBTABLE_KILL_GRACE_MS	5000
#define JOBTABLE_SCROLLBACK	10000	/* lines per job, unless set */

struct jobtable	*jobtable_new(struct loop *);
void		 jobtable_free(struct jobtable *);

int		 jobtable_subscribe(struct jobtable *,
		    const struct jobtable_cbs *, void *arg);
void		 jobtable_unsubscribe(struct jobtable *, int handle);

void		 jobtable_set_size(struct jobtable *, int rows, int cols);
void		 jobtable_set_grace(struct jobtable *, int ms);
void		 jobtable_set_store(struct jobtable *, struct store *);
struct store	*jobtable_store(const struct jobtable *);
struct loop	*jobtable_loop(const struct jobtable *);
void		 jobtable_close(struct jobtable *);
int		 jobtable_closed(const struct jobtable *);
void		 jobtable_set_store_error(struct jobtable *, const char *);
void		 jobtable_set_scrollback(struct jobtable *, int lines);
void		 jobtable_set_no_pty(struct jobtable *, int no_pty);
void		 jobtable_set_cgroup(struct jobtable *, struct cgroup *);
void		 jobtable_set_hosts(struct jobtable *, struct hosts *);
struct proc_reaper *jobtable_reaper(const struct jobtable *);
int		 jobtable_grace(const struct jobtable *);
struct job	*jobtable_spawn(struct jobtable *, const struct job_spec *,
		    char **cause);
struct job	*jobtable_find(struct jobtable *, const char *id_or_name,
		    char **cause);
int		 jobtable_count(const struct jobtable *);
struct job	*jobtable_get(const struct jobtable *, int index);
int		 jobtable_running(const struct jobtable *);
int		 jobtable_is_live(const struct jobtable *, const struct job *);
int		 jobtable_is_stopping(const struct jobtable *,
		    const struct job *);

int		 jobtable_kill(struct jobtable *, struct job *, int sig);
int		 jobtable_kill_all(struct jobtable *);
int		 jobtable_restart(struct jobtable *, struct job *, char **cause);
int		 jobtable_respec(struct jobtable *, struct job *,
		    const struct job_spec *, int restart, char **cause);
void		 jobtable_set_max_running(struct jobtable *, int n);
void		 jobtable_set_keep_finished(struct jobtable *, int n);
int		 jobtable_remove(struct jobtable *, struct job *,
		    char **cause);
int		 jobtable_clear_finished(struct jobtable *);
int		 jobtable_rename(struct jobtable *, struct job *,
		    const char *name, char **cause);
void		 jobtable_reap(struct jobtable *);
int		 jobtable_busy(const struct jobtable *);
void		 jobtable_kill_strays(void);

int		 jobtable_write(struct jobtable *, struct job *,
		    const char *buf, size_t len);
void		 jobtable_update(struct jobtable *, struct job *);
void		 jobtable_pause_output(struct jobtable *, struct job *,
		    enum store_stream, int paused);

void		 jobtable_set_env(struct jobtable *, const char *name,
		    const char *value);
void		 jobtable_set_policy(struct jobtable *,
		    const struct jobtable_policy *, void *arg);
void		 jobtable_recheck(struct jobtable *);
void		 jobtable_set_group_limit(struct jobtable *, const char *group,
		    int max_running);
int		 jobtable_fail(struct jobtable *, struct job *,
		    const char *why);
void		 jobtable_changed(struct jobtable *, struct job *);

#endif

/*
 * jobtable-private.h: struct jobtable and its entries, shared by
 * jobtable.c (the set: spawning, lookup, reading, a run's end,
 * subscribers), jobtable-stop.c (stopping: the stop signal or command,
 * the grace, kill-all, escapees) and jobtable-schedule.c (when a job
 * starts: the policy's gate, limits, the queue, the backoff).  Nothing
 * else includes this header; everyone else goes through jobtable.h.
 */
#ifndef JOBDECK_JOBTABLE_PRIVATE_H
#define JOBDECK_JOBTABLE_PRIVATE_H

#include <stddef.h>
#include <stdint.h>

#include "jobtable.h"
#include "proc.h"

/* The deck's own parts, and one for each attached client (server.h's */
/* SERVER_CLIENTS_MAX): a client that finds none free is refused. */
#define JOBTABLE_MAX_SUBS	96
#define JOBTABLE_READ_CHUNK	(16 * 1024)

/* One job and the loop state the table keeps for it. */
struct jobtable_entry {
	struct jobtable	*jt;
	struct job	*job;
	int		 out_fd;	/* watched output fd, or -1 */
	int		 in_fd;		/* watched input fd (pipes), or -1 */
	int		 err_fd;	/* watched stderr pipe, or -1 */
	int		 err_eof;	/* its stderr pipe is at its end */
	int		 hung;		/* output ended while the job runs */
					/*   (or, ended, stderr is not yet) */
	int		 out_eof;	/* its output was told at its end */
	int		 out_paused;	/* jobtable_pause_output()'s */
	int		 err_paused;
	uint64_t	 timeout_timer;	/* its time limit, 0: none armed */
	uint64_t	 restart_timer;	/* its restart delay, 0: none armed */
	int		 restart_asked;	/* jobtable_restart() while it ran */
	struct job	*respec;	/* jobtable_respec()'s spec for the */
					/*   next start (a job never run) */
	int		 stopping;	/* got a kill that ends in SIGKILL */
	uint64_t	 queue_seq;	/* when it joined the queue */
	int		 held;		/* kill_all's stop waits on stop_later */
	struct proc	*stop;		/* its stop command, NULL: none runs */
	int		 stop_fd;	/* that command's output, or -1 */
	int		 start_pending;	/* a start waits for that command */
	int64_t		 probe_at;	/* the next input probe, 0: none */
	int64_t		 probe_step;	/* the interval after it */
};

/* A [groups.NAME] limit. */
struct jobtable_group {
	char		*name;
	int		 max_running;	/* > 0 */
};

struct jobtable_sub {
	const struct jobtable_cbs	*cbs;
	void				*arg;
};

struct jobtable {
	struct loop		 *loop;
	int			  closed;	/* jobtable_close(): no spawns */
	struct jobtable_entry	**entries;
	int			  count;
	int			  alloc;
	int			  next_id;
	int			  rows;
	int			  cols;
	int			  grace_ms;
	int			  max_running;	/* 0: no limit */
	int			  keep_finished;	/* -1: keep every finished job */
	struct store		 *store;	/* the output store, or NULL */
	char			 *store_error;	/* why there is none, or NULL */
	char			**env;		/* jobtable_set_env()'s NAME=VALUE, */
	size_t			  nenv;		/*   NULL-terminated */
	int			  scrollback;	/* lines per job */
	int			  no_pty;	/* every job on pipes */
	struct proc_reaper	 *reaper;	/* SIGCHLD, containment */
	struct hosts		 *hosts;	/* the deck's, or NULL */
	uint64_t		  held_timer;	/* stores held partial lines */
	uint64_t		  probe_timer;	/* the input probes, 0: none */
	int64_t			  probe_due;	/* when it fires */
	struct jobtable_sub	  subs[JOBTABLE_MAX_SUBS];
	const struct jobtable_policy *policy;	/* NULL: every job may go */
	void			 *policy_arg;
	struct jobtable_group	 *groups;	/* limits, any order */
	int			  ngroups;
	uint64_t		  queue_seq;	/* the next job queued gets it */
	int			  starting;	/* in jobtable_start_queued() */
	int			  rechecking;	/* in jobtable_recheck() */
	int			  recheck_again;	/* asked for meanwhile */
	char			  buf[JOBTABLE_READ_CHUNK];
};

/* The events with nothing but a job to tell. */
enum jobtable_event {
	JOBTABLE_STARTED,
	JOBTABLE_EXITED,
	JOBTABLE_QUEUED,
	JOBTABLE_CHANGED,
	JOBTABLE_REMOVED
};

/* jobtable.c */
void	jobtable_emit(struct jobtable *jt, enum jobtable_event ev,
	    struct job *job);
void	jobtable_output(struct jobtable_entry *e, enum store_stream stream,
	    const char *buf, size_t len);
void	jobtable_unwatch(struct jobtable_entry *e);
void	jobtable_started(struct jobtable_entry *e);
void	jobtable_trim_finished(struct jobtable *jt);
struct job *jobtable_namesake(const struct jobtable *, const struct job *);
struct jobtable_entry *jobtable_entry(const struct jobtable *,
	    const struct job *);
struct job *jobtable_find_id(const struct jobtable *, int);

/* jobtable-stop.c */
int	jobtable_in_grace(struct jobtable_entry *e);
void	jobtable_stop_leftovers(struct jobtable_entry *e);
void	jobtable_stop_close(struct jobtable_entry *e);
void	jobtable_release_held(struct jobtable *jt);
void	jobtable_killed_cb(struct proc *p, void *arg);

/* jobtable-schedule.c */
int	jobtable_schedule(struct jobtable_entry *e, int fresh);
void	jobtable_start_entry(struct jobtable_entry *e);
void	jobtable_after_exit(struct jobtable_entry *e);
void	jobtable_respec_apply(struct jobtable_entry *e);

#endif /* JOBDECK_JOBTABLE_PRIVATE_H */

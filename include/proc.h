/*
 * proc: the one supervisor of the processes the deck starts: jobs' runs
 * (jobtable.c), probe and stop commands, the session shell, the browser
 * and its docker commands.  A supervised process (struct proc) is a
 * leader that leads its own process group (pty_spawn() gives it a
 * session), its containment (cgroup.h: a cgroup of its own, or its
 * JOBDECK_JOB marker) and what stopping it takes: a signal to the group
 * and to what left it (escapees), SIGCONT after SIGTERM, SIGHUP and
 * SIGINT so that a stopped group sees them, SIGKILL to all of it once a
 * grace is over.
 *
 * The reaper (struct proc_reaper, one a deck, made by the jobtable) is
 * the deck's only waitpid() on the loop: on SIGCHLD's self-pipe it reaps
 * every child that has changed, a batch at a time (reaped before any of
 * it is looked at, so the zombies a leader left to the deck, its child
 * subreaper, are gone when its group is looked for), tells each
 * supervised leader's exit (exited) or stop and continue (stopped), and
 * reaps what it does not supervise as strays.  A process proc_end() was
 * called for is looked at after every batch and told gone once nothing
 * of its group and cgroup is left (what leaves them is reaped by the
 * deck, so every such end comes with a SIGCHLD): no polling, and a bound
 * in case something never goes.  Signals for marked processes are sent
 * (cgroup_flush()) and the cgroups of ended processes removed on a timer
 * of the reaper's, again while one is not empty yet.
 *
 * A leader held (proc_hold()) is told exited but left a zombie until
 * proc_finish(), so its pid, its group's id, is not reused while its
 * group may be signalled; meanwhile the reaper reaps each other child by
 * its pid, as /proc lists them.
 *
 * proc_finish() is for after the loop: it stops a process and waits for
 * it, bounded, without the loop.
 *
 * A relay (proc_set_relay()) takes every signal but 0 for the group: the
 * leader is a client (ssh, srun) of a group on another machine, signalled
 * through it; SIGKILL goes to the local group as well.
 *
 * Ownership: the jobtable owns the reaper; whoever made a struct proc
 * frees it (proc_free(), which signals nothing: proc_kill() first to end
 * it) before the reaper is freed.  The struct cgroup stays the caller's.
 */
#ifndef JOBDECK_PROC_H
#define JOBDECK_PROC_H

#include <sys/types.h>

#include <stdint.h>

struct cgroup;
struct loop;
struct proc;
struct proc_reaper;
struct pty_child;
struct pty_spec;

/* A supervised process's events; any may be NULL. */
struct proc_cbs {
	void	(*exited)(struct proc *, int status, void *arg);
	void	(*stopped)(struct proc *, int stopped, void *arg);
	void	(*killed)(struct proc *, void *arg);	/* grace over */
	void	(*gone)(struct proc *, void *arg);	/* proc_end()'s */
};

/*
 * Who signals a leader's real group for it (proc_set_relay()): a job's
 * run on a host, whose local leader is only its ssh or srun client.
 */
struct proc_relay {
	int	(*signal)(struct proc *, int sig, void *arg);
};

/* The reaper's owner's: after every batch of reaped children. */
struct proc_reaper_cbs {
	void	(*reaped)(void *arg);
};

struct proc_reaper *proc_reaper_new(struct loop *);
void		 proc_reaper_free(struct proc_reaper *);
void		 proc_reaper_set_cbs(struct proc_reaper *,
		    const struct proc_reaper_cbs *, void *arg);
void		 proc_reaper_set_cgroup(struct proc_reaper *,
		    struct cgroup *);
struct cgroup	*proc_reaper_cgroup(const struct proc_reaper *);
void		 proc_reaper_reap(struct proc_reaper *);
void		 proc_kill_strays(void);

struct proc	*proc_new(struct proc_reaper *, struct cgroup *, int id,
		    const struct proc_cbs *, void *arg);
int		 proc_spawn(struct proc *, const struct pty_spec *,
		    struct pty_child *, char **cause);
int		 proc_join_fd(const struct proc *);
void		 proc_started(struct proc *, pid_t);
void		 proc_hold(struct proc *);
pid_t		 proc_pid(const struct proc *);
int		 proc_reaped(const struct proc *);
int		 proc_signal(struct proc *, int sig);
void		 proc_set_relay(struct proc *, const struct proc_relay *,
		    void *arg);
int		 proc_signal_escapees(struct proc *, int sig);
void		 proc_stop(struct proc *, int sig, int64_t grace_ms);
int		 proc_stopping(const struct proc *);
void		 proc_kill(struct proc *);
void		 proc_end(struct proc *, int64_t bound_ms);
int		 proc_lingers(struct proc *);
int		 proc_tidy(struct proc *);
void		 proc_usage(struct proc *, int64_t *cpu_usec,
		    int64_t *memory_bytes);
int		 proc_finish(struct proc *, int sig, int64_t grace_ms,
		    int64_t bound_ms);
void		 proc_release(struct proc *);
void		 proc_free(struct proc *);

#endif

/*
 * proc.c: the supervisor (see proc.h): the reaper on SIGCHLD, and each
 * supervised process's group, containment, stop, grace and end.
 *
 * The reaper keeps its processes in an array and finds a reaped pid by a
 * look through it.  Callbacks may free processes and make new ones, so
 * after each one the look starts again: a pid is looked for afresh, and
 * the processes whose end is awaited (proc_end()) are gone through again
 * from the start, each told once (its wait is over before it is told).
 *
 * Containment's work that cannot be done at once is the reaper's timer:
 * signals queued for marked processes are sent by cgroup_flush() on the
 * loop's next turn (a SIGKILL scan again every PROC_FLUSH_MS until a few
 * in a row find nothing, as cgroup.c says), and the cgroups of processes whose
 * leader has ended, and those let go of, are removed once empty, tried
 * again every PROC_TIDY_MS while one is not.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "child.h"
#include "debuglog.h"
#include "loop.h"
#include "proc.h"
#include "pty.h"
#include "xmalloc.h"

#define PROC_BATCH	64	/* reaped before any is looked at */
#define PROC_FLUSH_MS	10	/* the next scan of a SIGKILL by marker */
#define PROC_TIDY_MS	200	/* the next try at removing a cgroup */
#define PROC_STEP_MS	10	/* proc_finish()'s look again */
#define PROC_STRAYS	1024	/* proc_kill_strays()'s kills a round */
#define PROC_STRAY_ROUNDS 200	/* ... at most this many rounds */
#define PROC_CGROUPS	8	/* containments looked after at most */

/* One supervised process. */
struct proc {
	struct proc_reaper	*r;	/* NULL once the reaper is gone */
	const struct proc_cbs	*cbs;
	void			*arg;
	pid_t			 pid;	/* leader and group, 0: none */
	int			 reaped; /* the leader was reaped (or told, held) */
	int			 hold;	/* proc_hold(): kept a zombie */
	struct cgroup		*cg;	/* its containment's, or NULL */
	struct cgroup_job	*cgj;	/* its containment, or NULL */
	uint64_t		 kill_timer; /* proc_stop()'s grace, 0: none */
	int			 ending; /* proc_end(): gone is awaited */
	uint64_t		 end_timer; /* its bound, 0: none */
	int64_t			 end_ms; /* the bound, for the log */
	const struct proc_relay	*relay;	/* signals its real group, or NULL */
	void			*relay_arg;
};

struct proc_reaper {
	struct loop			*loop;
	struct cgroup			*cg;	/* the deck's, or NULL */
	const struct proc_reaper_cbs	*cbs;
	void				*arg;
	struct proc			**procs;
	int				 nprocs;
	int				 aprocs;
	uint64_t			 contain_timer; /* 0: none */
};

static void	proc_sigchld_cb(int, void *);
static void	proc_contain_cb(void *);
static void	proc_contain_soon(struct proc_reaper *, int64_t);
static void	proc_tidy_all(struct proc_reaper *);
static struct proc *proc_find(const struct proc_reaper *, pid_t);
static void	proc_reaped_one(struct proc_reaper *, pid_t, int);
static void	proc_check_gone(struct proc_reaper *);
static int	proc_empty(struct proc *);
static void	proc_kill_cb(void *);
static void	proc_end_cb(void *);
static void	proc_cancel(struct proc *, uint64_t *);
static int	proc_list_children(pid_t *, int);
static int	proc_cgroups(const struct proc_reaper *, struct cgroup **);
static int	proc_holding(const struct proc_reaper *);
static int	proc_reap_any(pid_t *, int *);
static int	proc_reap_listed(struct proc_reaper *, pid_t *, int *);
static int	proc_siginfo_status(const siginfo_t *);

/* Make the reaper of a deck's processes: it reaps on loop's SIGCHLD. */
struct proc_reaper *
proc_reaper_new(struct loop *loop)
{
	struct proc_reaper	*r;

	r = xcalloc(1, sizeof *r);
	r->loop = loop;
	loop_watch_signal(loop, SIGCHLD, proc_sigchld_cb, r);
	return r;
}

/*
 * Free the reaper; processes not freed yet are let go of (proc_free()
 * still frees them), none is signalled.
 */
void
proc_reaper_free(struct proc_reaper *r)
{
	struct proc	*p;
	int		 i;

	if (r == NULL)
		return;
	if (r->contain_timer != 0)
		loop_cancel_timer(r->loop, r->contain_timer);
	for (i = 0; i < r->nprocs; i++) {
		p = r->procs[i];
		proc_cancel(p, &p->kill_timer);
		proc_cancel(p, &p->end_timer);
		p->ending = 0;
		p->r = NULL;
	}
	free(r->procs);
	free(r);
}

/* Set who is told after every batch of reaped children (NULL: nobody). */
void
proc_reaper_set_cbs(struct proc_reaper *r, const struct proc_reaper_cbs *cbs,
    void *arg)
{
	r->cbs = cbs;
	r->arg = arg;
}

/*
 * Contain every process made from now on with cg (NULL: none but its
 * process group); cg is the caller's and must outlive the reaper.  What
 * cg has yet to remove (a sweep of dead decks') is retried from now on.
 */
void
proc_reaper_set_cgroup(struct proc_reaper *r, struct cgroup *cg)
{
	r->cg = cg;
	proc_tidy_all(r);
}

/* Return the containment processes get, or NULL. */
struct cgroup *
proc_reaper_cgroup(const struct proc_reaper *r)
{
	return r->cg;
}

/* Cancel a timer of p's, if it is armed. */
static void
proc_cancel(struct proc *p, uint64_t *id)
{
	if (*id != 0 && p->r != NULL)
		loop_cancel_timer(p->r->loop, *id);
	*id = 0;
}

/*
 * Fill cgs with the containments the reaper looks after: the deck's and
 * those its processes are in (one, but for tests); how many.
 */
static int
proc_cgroups(const struct proc_reaper *r, struct cgroup **cgs)
{
	struct cgroup	*cg;
	int		 i, k, n = 0;

	if (r->cg != NULL)
		cgs[n++] = r->cg;
	for (i = 0; i < r->nprocs && n < PROC_CGROUPS; i++) {
		if ((cg = r->procs[i]->cg) == NULL)
			continue;
		for (k = 0; k < n && cgs[k] != cg; k++)
			;
		if (k == n)
			cgs[n++] = cg;
	}
	return n;
}

/* Send queued marker signals, then remove what is empty; again if due. */
static void
proc_contain_cb(void *arg)
{
	struct proc_reaper	*r = arg;
	struct cgroup		*cgs[PROC_CGROUPS];
	int			 i, n, again = 0;

	r->contain_timer = 0;
	n = proc_cgroups(r, cgs);
	for (i = 0; i < n; i++)
		again |= cgroup_flush(cgs[i]);
	if (again)
		proc_contain_soon(r, PROC_FLUSH_MS);
	proc_tidy_all(r);
}

/* Arm the containment timer to run within ms, unless it is armed. */
static void
proc_contain_soon(struct proc_reaper *r, int64_t ms)
{
	if (r->contain_timer == 0)
		r->contain_timer = loop_add_timer(r->loop, ms,
		    proc_contain_cb, r);
}

/*
 * Remove the cgroups of processes whose leader has ended once they are
 * empty, and those let go of; try again later while one is not empty.
 */
static void
proc_tidy_all(struct proc_reaper *r)
{
	struct cgroup	*cgs[PROC_CGROUPS];
	int		 i, n, left = 0;

	n = proc_cgroups(r, cgs);
	if (n == 0)
		return;
	for (i = 0; i < r->nprocs; i++)
		left += proc_tidy(r->procs[i]);
	for (i = 0; i < n; i++)
		left += cgroup_tidy(cgs[i]);
	if (left > 0)
		proc_contain_soon(r, PROC_TIDY_MS);
}

/* Return the unreaped supervised leader pid, or NULL. */
static struct proc *
proc_find(const struct proc_reaper *r, pid_t pid)
{
	int	i;

	for (i = 0; i < r->nprocs; i++) {
		if (r->procs[i]->pid == pid && !r->procs[i]->reaped)
			return r->procs[i];
	}
	return NULL;
}

/* A child changed (status): tell its process, if it is a supervised one. */
static void
proc_reaped_one(struct proc_reaper *r, pid_t pid, int status)
{
	struct proc	*p;

	if ((p = proc_find(r, pid)) == NULL)
		return;		/* a stray reparented to the deck */
	if (WIFSTOPPED(status) || WIFCONTINUED(status)) {
		if (p->cbs->stopped != NULL)
			p->cbs->stopped(p, WIFSTOPPED(status), p->arg);
		return;
	}
	p->reaped = 1;
	if (p->cbs->exited != NULL)
		p->cbs->exited(p, status, p->arg);
}

/*
 * Tell gone to each process whose end is awaited and of which nothing is
 * left; SIGKILL again to the others.
 */
static void
proc_check_gone(struct proc_reaper *r)
{
	struct proc	*p;
	int		 i;

	for (i = 0; i < r->nprocs; i++) {
		p = r->procs[i];
		if (!p->ending)
			continue;
		if (!proc_empty(p)) {
			proc_kill(p);
			continue;
		}
		p->ending = 0;
		proc_cancel(p, &p->end_timer);
		if (p->cbs->gone != NULL)
			p->cbs->gone(p, p->arg);
		i = -1;		/* the array may have changed */
	}
}

/*
 * Reap every child that has changed: a batch is reaped before any of it
 * is looked at, then each is told; then the ends awaited are looked at,
 * the owner told, and ended cgroups tidied.
 */
void
proc_reaper_reap(struct proc_reaper *r)
{
	pid_t	pids[PROC_BATCH];
	int	statuses[PROC_BATCH], n, i;

	do {
		if (proc_holding(r))
			n = proc_reap_listed(r, pids, statuses);
		else
			n = proc_reap_any(pids, statuses);
		for (i = 0; i < n; i++)
			proc_reaped_one(r, pids[i], statuses[i]);
	} while (n == PROC_BATCH);
	proc_check_gone(r);
	if (r->cbs != NULL && r->cbs->reaped != NULL)
		r->cbs->reaped(r->arg);
	proc_tidy_all(r);
}

/* Reap a batch of any children (waitpid(-1)) into pids; how many. */
static int
proc_reap_any(pid_t *pids, int *statuses)
{
	pid_t	pid;
	int	status, n;

	for (n = 0; n < PROC_BATCH;) {
		pid = waitpid(-1, &status, WNOHANG | WUNTRACED | WCONTINUED);
		if (pid == -1 && errno == EINTR)
			continue;
		if (pid <= 0)
			break;
		pids[n] = pid;
		statuses[n++] = status;
	}
	return n;
}

/* Return whether a process of r's is held (proc_hold()). */
static int
proc_holding(const struct proc_reaper *r)
{
	int	i;

	for (i = 0; i < r->nprocs; i++) {
		if (r->procs[i]->hold && r->procs[i]->pid > 0)
			return 1;
	}
	return 0;
}

/* Return the wait status a waitid() siginfo of an exit stands for. */
static int
proc_siginfo_status(const siginfo_t *si)
{
	if (si->si_code == CLD_EXITED)
		return W_EXITCODE(si->si_status, 0);
	if (si->si_code == CLD_DUMPED)
		return W_EXITCODE(0, si->si_status) | WCOREFLAG;
	return W_EXITCODE(0, si->si_status);
}

/*
 * Reap a batch of children while a leader is held: each child /proc lists
 * is reaped by its pid (waitpid(-1) would take the held one too), and a
 * held leader only looked at (WNOWAIT), its exit told once and the zombie
 * left.  A child not listed yet comes with a SIGCHLD of its own later.
 * Where /proc lists no child while one has changed (no children file),
 * the batch is waitpid(-1)'s, the held one's included.  How many.
 */
static int
proc_reap_listed(struct proc_reaper *r, pid_t *pids, int *statuses)
{
	pid_t		 kids[PROC_STRAYS], pid;
	siginfo_t	 si;
	int		 nkids, i, k, n = 0, status;

	nkids = proc_list_children(kids, PROC_STRAYS);
	memset(&si, 0, sizeof si);
	if (nkids == 0 && waitid(P_ALL, 0, &si, WEXITED | WSTOPPED |
	    WCONTINUED | WNOHANG | WNOWAIT) == 0 && si.si_pid > 0)
		return proc_reap_any(pids, statuses);
	for (i = 0; i < nkids && n < PROC_BATCH; i++) {
		for (k = 0; k < r->nprocs; k++) {
			if (r->procs[k]->hold && r->procs[k]->pid == kids[i])
				break;
		}
		if (k < r->nprocs) {
			memset(&si, 0, sizeof si);
			if (!r->procs[k]->reaped && waitid(P_PID,
			    (id_t)kids[i], &si, WEXITED | WNOHANG |
			    WNOWAIT) == 0 && si.si_pid == kids[i]) {
				pids[n] = kids[i];
				statuses[n++] = proc_siginfo_status(&si);
			}
			continue;
		}
		while ((pid = waitpid(kids[i], &status, WNOHANG | WUNTRACED |
		    WCONTINUED)) == -1 && errno == EINTR)
			;
		if (pid == kids[i]) {
			pids[n] = pid;
			statuses[n++] = status;
		}
	}
	return n;
}

/* Reap on SIGCHLD. */
static void
proc_sigchld_cb(int signo, void *arg)
{
	(void)signo;
	proc_reaper_reap(arg);
}

/* Append to pids the children of this process listed by /proc; count. */
static int
proc_list_children(pid_t *pids, int max)
{
	DIR		*d;
	struct dirent	*de;
	FILE		*f;
	char		 path[320];
	long		 pid;
	int		 n = 0;

	d = opendir("/proc/self/task");
	if (d == NULL)
		return 0;
	while ((de = readdir(d)) != NULL && n < max) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "/proc/self/task/%s/children",
		    de->d_name);
		f = fopen(path, "re");
		if (f == NULL)
			continue;
		while (n < max && fscanf(f, "%ld", &pid) == 1)
			pids[n++] = (pid_t)pid;
		fclose(f);
	}
	closedir(d);
	return n;
}

/*
 * After the loop: kill every process still parented to this one (strays
 * that escaped their group and were reparented to this subreaper) and
 * reap them, until none is left or a few seconds have passed.
 */
void
proc_kill_strays(void)
{
	pid_t	pids[PROC_STRAYS];
	int	n, i, round;

	for (round = 0; round < PROC_STRAY_ROUNDS; round++) {
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		n = proc_list_children(pids, PROC_STRAYS);
		if (n == 0)
			return;
		for (i = 0; i < n; i++) {
			kill(-pids[i], SIGKILL);
			kill(pids[i], SIGKILL);
		}
		usleep(10000);
	}
}

/*
 * Make a supervised process, not started yet, told of through cbs (with
 * arg): its containment in cg (NULL: none but its group; the deck's,
 * proc_reaper_cgroup(), but for tests) is made now, named for job id (0:
 * no job's).  Start it with proc_spawn().  Without a reaper (r NULL)
 * nobody reaps it, times its stop or sends its marker's signals.
 */
struct proc *
proc_new(struct proc_reaper *r, struct cgroup *cg, int id,
    const struct proc_cbs *cbs, void *arg)
{
	static const struct proc_cbs	 none;
	struct proc			*p;

	p = xcalloc(1, sizeof *p);
	p->r = r;
	p->cbs = cbs != NULL ? cbs : &none;
	p->arg = arg;
	if ((p->cg = cg) != NULL)
		p->cgj = cgroup_job_new(cg, id);
	if (r == NULL)
		return p;	/* reaped by its owner */
	if (r->nprocs == r->aprocs) {
		r->aprocs = r->aprocs == 0 ? 16 : r->aprocs * 2;
		r->procs = xreallocarray(r->procs, (size_t)r->aprocs,
		    sizeof *r->procs);
	}
	r->procs[r->nprocs++] = p;
	return p;
}

/*
 * Start spec's program as p's leader (pty_spawn()), in p's containment:
 * it joins p's cgroup before it execs, and its environment is spec's
 * with p's marker.  0, or -1 with *cause.  Once only.
 */
int
proc_spawn(struct proc *p, const struct pty_spec *spec,
    struct pty_child *child, char **cause)
{
	struct pty_spec	  ps = *spec;
	char		**env = NULL;
	int		  rc;

	if (p->pid != 0) {
		*cause = xstrdup("started already");
		return -1;
	}
	if (p->cgj != NULL) {
		env = cgroup_job_env(p->cgj, spec->envp);
		ps.envp = env;
	}
	ps.cgroup_procs = proc_join_fd(p);
	rc = pty_spawn(&ps, child, cause);
	free(env);
	if (rc != 0)
		return -1;
	proc_started(p, child->pid);
	return 0;
}

/*
 * Return the cgroup.procs fd p's child must write "0" to (pty_spec's
 * cgroup_procs), or -1: for a caller that spawns it itself because its
 * environment must not carry the marker (the session shell's becomes
 * the session's).
 */
int
proc_join_fd(const struct proc *p)
{
	return p->cgj != NULL ? cgroup_job_procs_fd(p->cgj) : -1;
}

/* p's leader is pid, which leads its own process group. */
void
proc_started(struct proc *p, pid_t pid)
{
	p->pid = pid;
	p->reaped = 0;
	if (p->cgj != NULL)
		cgroup_job_started(p->cgj, pid);
}

/*
 * Keep p's leader a zombie once it has exited (its exit is told all the
 * same) until proc_finish() reaps it, or the reaper, as a stray, once p
 * is freed: its pid, its group's id, cannot be taken by another process
 * while p's group may still be signalled.  Its stops are not told.  For
 * an owner that signals the group long after the leader's exit (jobdeck
 * run: a grace for what holds its pipes); the reaper then reaps children
 * one by one as /proc lists them.
 */
void
proc_hold(struct proc *p)
{
	p->hold = 1;
}

/* Return p's leader (its group's id), or 0 before it started. */
pid_t
proc_pid(const struct proc *p)
{
	return p->pid;
}

/* Return whether p's leader has been reaped. */
int
proc_reaped(const struct proc *p)
{
	return p->reaped;
}

/*
 * Send sig to p's whole process group; 0 or -1 with errno.  Just after
 * the fork the child may not have called setsid() yet, so its group does
 * not exist: the leader alone gets it then (it has no children of its
 * own yet, and its signals stay blocked until its handlers are reset).
 */
int
proc_signal(struct proc *p, int sig)
{
	int	rc;

	if (p->relay != NULL && sig != 0) {
		/* The real group is elsewhere; SIGKILL ends ours too. */
		rc = p->relay->signal(p, sig, p->relay_arg);
		if (sig != SIGKILL)
			return rc;
	}
	if (p->pid <= 0) {
		errno = ESRCH;
		return -1;
	}
	if (kill(-p->pid, sig) == 0)
		return 0;
	if (errno == ESRCH && !p->reaped)
		return kill(p->pid, sig);
	return -1;
}

/*
 * Give p a relay: every signal but 0 goes to relay->signal() instead of
 * p's group (SIGKILL to both), for a leader that stands for a group on
 * another machine (an ssh or srun client).
 */
void
proc_set_relay(struct proc *p, const struct proc_relay *relay, void *arg)
{
	p->relay = relay;
	p->relay_arg = arg;
}

/*
 * Send sig to p's processes that left its group: through its cgroup at
 * once, or with the marker alone on the loop's next turn; SIGTERM,
 * SIGHUP and SIGINT are followed by SIGCONT.  Returns how many were
 * signalled now.
 */
int
proc_signal_escapees(struct proc *p, int sig)
{
	int	n;

	if (p->cgj == NULL)
		return 0;
	n = cgroup_job_signal(p->cgj, sig);
	if (p->r != NULL)
		proc_contain_soon(p->r, 0);
	return n;
}

/*
 * Stop p: sig (0: none now, its owner stops it another way) to its group
 * and its escapees, the group's followed by SIGCONT for SIGTERM, SIGHUP
 * and SIGINT, so that a stopped group sees it; SIGKILL to all of it
 * after grace_ms (the killed callback told then), unless a stop's grace
 * runs already.
 */
void
proc_stop(struct proc *p, int sig, int64_t grace_ms)
{
	if (sig != 0) {
		if (proc_signal(p, sig) == 0 && (sig == SIGTERM ||
		    sig == SIGHUP || sig == SIGINT))
			proc_signal(p, SIGCONT);
		proc_signal_escapees(p, sig);
	}
	if (p->kill_timer == 0 && p->r != NULL)
		p->kill_timer = loop_add_timer(p->r->loop, grace_ms,
		    proc_kill_cb, p);
}

/* Return whether a stop's grace runs (SIGKILL is to come). */
int
proc_stopping(const struct proc *p)
{
	return p->kill_timer != 0;
}

/* A stop's grace is over: SIGKILL, and tell. */
static void
proc_kill_cb(void *arg)
{
	struct proc	*p = arg;

	p->kill_timer = 0;
	proc_kill(p);
	if (p->cbs->killed != NULL)
		p->cbs->killed(p, p->arg);
}

/* SIGKILL to all of p (group, leader, escapees) now; no grace is left. */
void
proc_kill(struct proc *p)
{
	proc_cancel(p, &p->kill_timer);
	proc_signal(p, SIGKILL);
	proc_signal_escapees(p, SIGKILL);
}

/* Return whether nothing is left of p's group and cgroup. */
static int
proc_empty(struct proc *p)
{
	if (p->pid > 0 && (kill(-p->pid, 0) == 0 || errno != ESRCH))
		return 0;
	return p->cgj == NULL || !cgroup_job_populated(p->cgj);
}

/*
 * p's leader has ended, or is given up on: SIGKILL all of it, and tell
 * gone once nothing of its group and cgroup is left, looked at after
 * every batch the reaper reaps (before this returns, if nothing is left
 * now), or after bound_ms whatever is left (marked processes are not
 * looked for: that takes a scan of /proc).
 */
void
proc_end(struct proc *p, int64_t bound_ms)
{
	proc_kill(p);
	if (p->ending)
		return;
	if (proc_empty(p)) {
		if (p->cbs->gone != NULL)
			p->cbs->gone(p, p->arg);
		return;
	}
	p->ending = 1;
	p->end_ms = bound_ms;
	if (p->r != NULL)
		p->end_timer = loop_add_timer(p->r->loop, bound_ms,
		    proc_end_cb, p);
}

/* The bound of proc_end() is over: gone, whatever is left. */
static void
proc_end_cb(void *arg)
{
	struct proc	*p = arg;

	p->end_timer = 0;
	if (!p->ending)
		return;
	p->ending = 0;
	if (!proc_empty(p))
		debuglog("proc %ld: group or cgroup not empty after %lld ms",
		    (long)p->pid, (long long)p->end_ms);
	if (p->cbs->gone != NULL)
		p->cbs->gone(p, p->arg);
}

/*
 * Return whether something of p is left: a member of its process group,
 * or a process in its cgroup.  (Processes found only by the marker are
 * not looked for: that takes a scan of /proc.)
 */
int
proc_lingers(struct proc *p)
{
	if (p->pid > 0 && proc_signal(p, 0) == 0)
		return 1;
	return p->cgj != NULL && cgroup_job_populated(p->cgj);
}

/*
 * Once p's leader has been reaped and its cgroup is empty, remove the
 * cgroup (its CPU figure is kept); 1 while it waits to be removed.
 */
int
proc_tidy(struct proc *p)
{
	if (p->cgj == NULL || !p->reaped)
		return 0;
	return cgroup_job_remove(p->cgj) != 0;
}

/*
 * Read p's CPU time (µs, its processes that left the group included)
 * and memory (bytes, while something of it is left) from its cgroup; -1
 * each when unknown.  Either pointer may be NULL.
 */
void
proc_usage(struct proc *p, int64_t *cpu_usec, int64_t *memory_bytes)
{
	if (p->cgj == NULL) {
		if (cpu_usec != NULL)
			*cpu_usec = -1;
		if (memory_bytes != NULL)
			*memory_bytes = -1;
		return;
	}
	cgroup_job_usage(p->cgj, cpu_usec, memory_bytes);
}

/*
 * After the loop (it blocks): sig (0: none) to all of p, SIGKILL if its
 * leader has not ended within grace_ms (waited for as long again), then
 * SIGKILL to what is left of its group and cgroup, what of it is ours
 * reaped, until nothing is or bound_ms has passed.  1 when the leader
 * ended without that SIGKILL (or had ended), 0 when it took it.
 */
int
proc_finish(struct proc *p, int sig, int64_t grace_ms, int64_t bound_ms)
{
	struct timespec	 ts = { 0, PROC_STEP_MS * 1000 * 1000 };
	struct cgroup	*cg = p->cg;
	int64_t		 end;
	int		 own = 1;

	if (p->pid <= 0)
		return 1;
	proc_cancel(p, &p->kill_timer);
	proc_cancel(p, &p->end_timer);
	p->ending = 0;
	if (!p->reaped) {
		if (sig != 0) {
			proc_signal(p, sig);
			proc_signal_escapees(p, sig);
			if (cg != NULL)
				cgroup_flush(cg);
		}
		if (!child_wait(p->pid, grace_ms, NULL)) {
			own = 0;
			proc_signal(p, SIGKILL);
			proc_signal_escapees(p, SIGKILL);
			if (cg != NULL)
				cgroup_flush(cg);
			child_wait(p->pid, grace_ms, NULL);
		}
		p->reaped = 1;
	}
	end = loop_now_ms() + bound_ms;
	for (;;) {
		proc_signal(p, SIGKILL);
		proc_signal_escapees(p, SIGKILL);
		if (cg != NULL)
			cgroup_flush(cg);
		while (waitpid(-p->pid, NULL, WNOHANG) > 0)
			;
		if (proc_empty(p) || loop_now_ms() >= end)
			break;
		nanosleep(&ts, NULL);
	}
	return own;
}

/*
 * Done with p, whose leader has ended (or is given up on): what is left
 * in its containment is killed (SIGKILL; its group is not signalled),
 * then it is freed (proc_free()).
 */
void
proc_release(struct proc *p)
{
	if (p == NULL)
		return;
	proc_signal_escapees(p, SIGKILL);
	proc_free(p);
}

/*
 * Forget p: its timers are cancelled, its containment let go of (its
 * cgroup removed once empty), and a leader not reaped yet is reaped later
 * as a stray.  Nothing is signalled (proc_kill() first, to end it).
 */
void
proc_free(struct proc *p)
{
	struct proc_reaper	*r;
	int			 i;

	if (p == NULL)
		return;
	proc_cancel(p, &p->kill_timer);
	proc_cancel(p, &p->end_timer);
	if ((r = p->r) != NULL) {
		for (i = 0; i < r->nprocs; i++) {
			if (r->procs[i] == p) {
				r->procs[i] = r->procs[--r->nprocs];
				break;
			}
		}
		if (p->cgj != NULL)
			proc_contain_soon(r, 0);
	}
	if (p->cgj != NULL)
		cgroup_job_release(p->cgj);
	free(p);
}

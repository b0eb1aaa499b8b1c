/*
 * host.c: the hosts a deck's jobs run on (host.h): each found by the
 * name a job gives, the gate that waits for an ssh host's master, a
 * run's spec wrapped by its engine, the relay that signals its real
 * group, and the short commands beside them (supcmd.h).
 */
#include <sys/wait.h>

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "debuglog.h"
#include "entropy.h"
#include "host-private.h"
#include "loop.h"
#include "proc.h"
#include "pty.h"
#include "supcmd.h"
#include "waitstatus.h"
#include "xmalloc.h"

static int	host_relay_signal(struct proc *, int, void *);
static void	hosts_finish_oneshots(struct hosts *);
static const struct config_host *hosts_config(const struct hosts *,
		    const char *);

static const struct proc_relay host_relay = {
	.signal = host_relay_signal,
};

/* Make the hosts of a deck named deck (its Slurm jobs' and files' name). */
struct hosts *
hosts_new(struct loop *loop, struct proc_reaper *r, const char *deck)
{
	struct hosts	*hs;
	unsigned char	 rnd[4];

	hs = xcalloc(1, sizeof *hs);
	hs->loop = loop;
	hs->r = r;
	hs->deck = xstrdup(deck != NULL ? deck : "run");
	if (entropy_fill(rnd, sizeof rnd) != 0)
		memset(rnd, 0, sizeof rnd);
	hs->instance = xprintf("%s.%ld.%02x%02x%02x%02x", hs->deck,
	    (long)getpid(), rnd[0], rnd[1], rnd[2], rnd[3]);
	return hs;
}

/* Free one host: its master closed (after the loop), its state. */
static void
host_free(struct host *h)
{
	size_t	i;

	host_ssh_close(h);
	if (h->poll_timer != 0)
		loop_cancel_timer(h->hs->loop, h->poll_timer);
	free(h->name);
	free(h->dest);
	for (i = 0; h->slurm != NULL && h->slurm[i] != NULL; i++)
		free(h->slurm[i]);
	free(h->slurm);
	free(h->ctl_path);
	free(h->error);
	free(h->waiting);
	free(h);
}

/* Free the configuration's copy of the hosts table. */
static void
hosts_free_config(struct hosts *hs)
{
	size_t	i, k;

	for (i = 0; i < hs->ncfg; i++) {
		free(hs->cfg[i].name);
		free(hs->cfg[i].ssh);
		for (k = 0; hs->cfg[i].slurm != NULL &&
		    hs->cfg[i].slurm[k] != NULL; k++)
			free(hs->cfg[i].slurm[k]);
		free(hs->cfg[i].slurm);
	}
	free(hs->cfg);
	hs->cfg = NULL;
	hs->ncfg = 0;
}

/*
 * Free the hosts after the loop, once their jobs are gone: masters
 * closed, a squeue in flight killed.
 */
void
hosts_free(struct hosts *hs)
{
	size_t	i;

	if (hs == NULL)
		return;
	hosts_finish_oneshots(hs);
	for (i = 0; i < hs->nhosts; i++)
		host_free(hs->hosts[i]);
	free(hs->hosts);
	for (i = 0; i < hs->nruns; i++)
		hs->runs[i]->hs = NULL;
	free(hs->runs);
	if (hs->squeue != NULL)
		supcmd_cancel(hs->squeue);
	if (hs->squeue_timer != 0)
		loop_cancel_timer(hs->loop, hs->squeue_timer);
	hosts_free_config(hs);
	if (hs->ctl_dir != NULL)
		(void)rmdir(hs->ctl_dir);
	free(hs->ctl_dir);
	free(hs->ssh_command);
	free(hs->deck);
	free(hs->instance);
	free(hs);
}

/*
 * Return whether h is still what the configuration in hs makes of its
 * name: the same engine and ssh destination or srun options.
 */
static int
host_same(const struct hosts *hs, const struct host *h)
{
	const struct config_host	*ch = hosts_config(hs, h->name);
	size_t				 k;

	if (ch == NULL || ch->ssh != NULL) {
		return h->engine == HOST_SSH && strcmp(h->dest, ch != NULL ?
		    ch->ssh : h->name) == 0;
	}
	if (h->engine != HOST_SLURM)
		return 0;
	for (k = 0; k < ch->nslurm; k++) {
		if (h->slurm[k] == NULL || strcmp(h->slurm[k],
		    ch->slurm[k]) != 0)
			return 0;
	}
	return h->slurm[k] == NULL;
}

/*
 * Take the configuration's [hosts] and ssh_command (copied).  A host
 * the new table makes something else of (or any, when ssh_command
 * changed) is made anew at its next use; the old one's master runs on
 * for the runs it serves, until the deck ends.
 */
void
hosts_set_config(struct hosts *hs, const struct config_host *cfg, size_t n,
    const char *ssh_command)
{
	size_t	i, k, m;
	int	same;

	hosts_free_config(hs);
	hs->cfg = xcalloc(n + 1, sizeof *hs->cfg);
	for (i = 0; i < n; i++) {
		hs->cfg[i].name = xstrdup(cfg[i].name);
		hs->cfg[i].ssh = cfg[i].ssh != NULL ? xstrdup(cfg[i].ssh) :
		    NULL;
		if (cfg[i].slurm != NULL) {
			for (m = 0; cfg[i].slurm[m] != NULL; m++)
				;
			hs->cfg[i].slurm = xcalloc(m + 1,
			    sizeof *hs->cfg[i].slurm);
			for (k = 0; k < m; k++)
				hs->cfg[i].slurm[k] = xstrdup(cfg[i].slurm[k]);
			hs->cfg[i].nslurm = m;
		}
		hs->cfg[i].line = cfg[i].line;
	}
	hs->ncfg = n;
	same = (hs->ssh_command == NULL && ssh_command == NULL) ||
	    (hs->ssh_command != NULL && ssh_command != NULL &&
	    strcmp(hs->ssh_command, ssh_command) == 0);
	free(hs->ssh_command);
	hs->ssh_command = ssh_command != NULL ? xstrdup(ssh_command) : NULL;
	for (i = 0; i < hs->nhosts; i++) {
		if (!same || !host_same(hs, hs->hosts[i]))
			hs->hosts[i]->stale = 1;
	}
}

/* Say whom to tell (the jobtable's recheck) when a host's state moves. */
void
hosts_set_recheck(struct hosts *hs, void (*cb)(void *), void *arg)
{
	hs->recheck = cb;
	hs->recheck_arg = arg;
}

/* Let the jobs that wait for a host look again. */
void
host_recheck(struct hosts *hs)
{
	if (hs->recheck != NULL)
		hs->recheck(hs->recheck_arg);
}

/* Return the configured [hosts.NAME] called name, or NULL. */
static const struct config_host *
hosts_config(const struct hosts *hs, const char *name)
{
	size_t	i;

	for (i = 0; i < hs->ncfg; i++) {
		if (strcmp(hs->cfg[i].name, name) == 0)
			return &hs->cfg[i];
	}
	return NULL;
}

/*
 * Return the host called name, made from its [hosts.NAME] (or as a bare
 * ssh destination) at its first use or when the configuration changed.
 */
static struct host *
hosts_get(struct hosts *hs, const char *name)
{
	const struct config_host	*ch;
	struct host			*h;
	size_t				 i, k;

	for (i = 0; i < hs->nhosts; i++) {
		h = hs->hosts[i];
		if (!h->stale && strcmp(h->name, name) == 0)
			return h;
	}
	h = xcalloc(1, sizeof *h);
	h->hs = hs;
	h->name = xstrdup(name);
	h->index = hs->next_index++;
	if ((ch = hosts_config(hs, name)) != NULL && ch->ssh == NULL) {
		h->engine = HOST_SLURM;
		h->slurm = xcalloc(ch->nslurm + 1, sizeof *h->slurm);
		for (k = 0; k < ch->nslurm; k++)
			h->slurm[k] = xstrdup(ch->slurm[k]);
	} else {
		h->engine = HOST_SSH;
		h->dest = xstrdup(ch != NULL ? ch->ssh : name);
	}
	hs->hosts = xreallocarray(hs->hosts, hs->nhosts + 1,
	    sizeof *hs->hosts);
	hs->hosts[hs->nhosts++] = h;
	return h;
}

/* Return whether job id waited for h's last connection attempt. */
static int
host_waited(struct host *h, int id, int drop)
{
	size_t	i;

	for (i = 0; i < h->nwaiting; i++) {
		if (h->waiting[i] != id)
			continue;
		if (drop)
			h->waiting[i] = h->waiting[--h->nwaiting];
		return 1;
	}
	return 0;
}

/*
 * The gate of a run on host: a Slurm host lets it go (srun queues it);
 * an ssh host lets it go once its master is up, starts the master and
 * holds it ("connecting to build") until then, and fails the runs that
 * waited for a master that ended first, with its reason.
 */
enum host_gate
hosts_gate(struct hosts *hs, const char *name, int id, char **why)
{
	struct host	*h = hosts_get(hs, name);

	if (h->engine == HOST_SLURM)
		return HOST_GO;
	switch (h->state) {
	case HOST_UP:
		return HOST_GO;
	case HOST_FAILED:
		if (host_waited(h, id, 1)) {
			*why = xstrdup(h->error);
			return HOST_FAIL;
		}
		/* FALLTHROUGH */
	case HOST_IDLE:
		h->nwaiting = 0;
		if (host_ssh_connect(h) != 0) {
			*why = xstrdup(h->error);
			return HOST_FAIL;
		}
		break;
	case HOST_CONNECTING:
		break;
	}
	if (!host_waited(h, id, 0)) {
		h->waiting = xreallocarray(h->waiting, h->nwaiting + 1,
		    sizeof *h->waiting);
		h->waiting[h->nwaiting++] = id;
	}
	*why = xprintf("the connection to %s", h->name);
	return HOST_WAIT;
}

/*
 * Fill spec (path, argv, envp, cwd) with what runs cmd on host; the run
 * returned owns what they point to.  NULL and *cause when it cannot be.
 */
struct host_run *
hosts_wrap(struct hosts *hs, const char *name, const struct host_cmd *cmd,
    struct pty_spec *spec, char **cause)
{
	struct host_run	*run;
	int		 rc;

	run = xcalloc(1, sizeof *run);
	run->hs = hs;
	run->host = hosts_get(hs, name);
	run->id = cmd->id;
	if (run->host->engine == HOST_SLURM) {
		run->token = xprintf("jobdeck-%s-%d", hs->deck, cmd->id);
		rc = host_slurm_wrap(run, cmd, spec, cause);
	} else {
		run->token = xprintf("%s.%d.%lld.", hs->instance, cmd->id,
		    (long long)loop_wall_ms());
		rc = host_ssh_wrap(run, cmd, spec, cause);
	}
	if (rc != 0) {
		host_run_free(run);
		return NULL;
	}
	return run;
}

/*
 * Return the engine a run on host name would use ("ssh" or "slurm"),
 * from the configuration (a name not in it is an ssh destination).
 */
const char *
hosts_engine(const struct hosts *hs, const char *name)
{
	const struct config_host	*ch;

	if (hs == NULL || (ch = hosts_config(hs, name)) == NULL ||
	    ch->ssh != NULL)
		return "ssh";
	return "slurm";
}

/* Return how many ssh masters are up or connecting. */
int
hosts_connections(const struct hosts *hs)
{
	size_t	i;
	int	n = 0;

	for (i = 0; i < hs->nhosts; i++)
		n += hs->hosts[i]->master != NULL;
	return n;
}

/* The run's leader (its engine's client) started as p: signals relayed. */
void
host_run_started(struct host_run *run, struct proc *p)
{
	struct hosts	*hs = run->hs;

	run->proc = p;
	proc_set_relay(p, &host_relay, run);
	hs->runs = xreallocarray(hs->runs, hs->nruns + 1, sizeof *hs->runs);
	hs->runs[hs->nruns++] = run;
	if (run->host->engine == HOST_SLURM)
		host_slurm_poll(hs);
}

/* Forget a run among the live ones. */
static void
host_run_unlist(struct host_run *run)
{
	struct hosts	*hs = run->hs;
	size_t		 i;

	for (i = 0; hs != NULL && i < hs->nruns; i++) {
		if (hs->runs[i] == run) {
			hs->runs[i] = hs->runs[--hs->nruns];
			return;
		}
	}
}

/*
 * The run's leader ended with status: what is left of it there is the
 * host's script's (or Slurm's) to end, so signals go to the local group
 * alone again.
 */
void
host_run_ended(struct host_run *run, int status)
{
	/*
	 * An ssh client that died (killed, or ssh's own 255) may leave its
	 * job running there while the connection lives: end what it marked.
	 */
	if (run->host->engine == HOST_SSH && run->hs != NULL && !run->ended &&
	    (WIFSIGNALED(status) || (WIFEXITED(status) &&
	    WEXITSTATUS(status) == 255)))
		(void)host_ssh_signal(run, SIGKILL);
	run->ended = 1;
	if (run->proc != NULL)
		proc_set_relay(run->proc, NULL, NULL);
	host_run_unlist(run);
	/* Not listed, so hosts_free() cannot forget it: it forgets them. */
	run->hs = NULL;
}

/* Free a run (its leader's relay taken away first). */
void
host_run_free(struct host_run *run)
{
	size_t	i;

	if (run == NULL)
		return;
	if (run->proc != NULL && !run->ended)
		proc_set_relay(run->proc, NULL, NULL);
	host_run_unlist(run);
	for (i = 0; run->argv != NULL && run->argv[i] != NULL; i++)
		free(run->argv[i]);
	free(run->argv);
	for (i = 0; run->envp != NULL && run->envp[i] != NULL; i++)
		free(run->envp[i]);
	free(run->envp);
	free(run->token);
	free(run->text);
	free(run->slurm_id);
	free(run->slurm_state);
	free(run->slurm_nodes);
	free(run->slurm_reason);
	free(run);
}

/*
 * A signal for the run's group: to the host, while the run lives; an ssh
 * run's SIGSTOP and SIGCONT to its local client too, whose stop is what
 * the job's state shows (its wait status).
 */
static int
host_relay_signal(struct proc *p, int sig, void *arg)
{
	struct host_run	*run = arg;

	if (run->ended || run->hs == NULL || proc_reaped(p))
		return 0;
	if (run->host->engine == HOST_SLURM)
		return host_slurm_signal(run, sig);
	if ((sig == SIGSTOP || sig == SIGCONT) && proc_pid(p) > 0)
		(void)kill(-proc_pid(p), sig);
	return host_ssh_signal(run, sig);
}

/* Return the host's name as the run's job gave it. */
const char *
host_run_name(const struct host_run *run)
{
	return run->host->name;
}

/* Return the run's engine: "ssh" or "slurm". */
const char *
host_run_engine(const struct host_run *run)
{
	return run->host->engine == HOST_SLURM ? "slurm" : "ssh";
}

/* Return what the panel says of the run's place, or NULL. */
const char *
host_run_text(const struct host_run *run)
{
	return run->text;
}

/* Give the run's Slurm job id, state, nodes and reason (NULL: unknown). */
void
host_run_slurm(const struct host_run *run, const char **job_id,
    const char **state, const char **nodes, const char **reason)
{
	*job_id = run->slurm_id;
	*state = run->slurm_state;
	*nodes = run->slurm_nodes;
	*reason = run->slurm_reason;
}

/*
 * Start a command beside the runs (supcmd.h), contained as the deck's
 * jobs are, so a new deck sweeps what a SIGKILLed one left (a master).
 */
struct supcmd *
host_start(struct hosts *hs, char **argv, int64_t bound_ms,
    const struct supcmd_cbs *cbs, void *arg, char **cause)
{
	return supcmd_start(hs->loop, hs->r, proc_reaper_cgroup(hs->r), argv,
	    NULL, bound_ms, cbs, arg, cause);
}

/* A short command beside the runs (a signal, a scancel) in flight. */
struct host_oneshot {
	struct hosts	*hs;
	const char	*what;		/* static text, for the log */
	struct supcmd	*sc;
};

/*
 * A short command beside the runs ended: logged when it failed, and
 * forgotten.
 */
static void
host_oneshot_done(struct supcmd *sc, int status, const char *out,
    size_t len, void *arg)
{
	struct host_oneshot	*o = arg;
	struct hosts		*hs = o->hs;
	size_t			 i;

	(void)sc;
	(void)len;
	if (status != 0)
		debuglog("host: %s: %s: %s", o->what,
		    status == WAITSTATUS_NONE ? "timed out" : "failed", out);
	for (i = 0; i < hs->noneshots; i++) {
		if (hs->oneshots[i] == o) {
			hs->oneshots[i] = hs->oneshots[--hs->noneshots];
			break;
		}
	}
	free(o);
}

static const struct supcmd_cbs host_oneshot_cbs = {
	.done = host_oneshot_done,
};

/*
 * Run argv beside the runs (a signal, a scancel); what is a static text.
 * It is waited for when the hosts are freed: the last SIGKILL or scancel
 * of a deck that quits still goes out.
 */
void
host_oneshot(struct hosts *hs, char **argv, const char *what)
{
	struct host_oneshot	*o;
	char			*cause = NULL;

	o = xcalloc(1, sizeof *o);
	o->hs = hs;
	o->what = what;
	if ((o->sc = host_start(hs, argv, HOST_SIGNAL_MS, &host_oneshot_cbs,
	    o, &cause)) == NULL) {
		debuglog("host: %s: %s", what, cause);
		free(cause);
		free(o);
		return;
	}
	hs->oneshots = xreallocarray(hs->oneshots, hs->noneshots + 1,
	    sizeof *hs->oneshots);
	hs->oneshots[hs->noneshots++] = o;
}

/*
 * After the loop: wait for the short commands in flight (bounded), so a
 * quitting deck's last signals and cancels reach their hosts before the
 * connections close.
 */
static void
hosts_finish_oneshots(struct hosts *hs)
{
	int64_t	end = loop_now_ms() + HOST_FINISH_MS, left;
	size_t	i;

	/* One deadline for all of them, not one each. */
	for (i = 0; i < hs->noneshots; i++) {
		left = end - loop_now_ms();
		if (!supcmd_finish(hs->oneshots[i]->sc, 0, left > 0 ? left : 0))
			debuglog("host: %s: still running after %d ms",
			    hs->oneshots[i]->what, HOST_FINISH_MS);
		free(hs->oneshots[i]);
	}
	free(hs->oneshots);
	hs->oneshots = NULL;
	hs->noneshots = 0;
}

/* Cancel, on a Slurm cluster the deck uses, what a dead deck left. */
void
hosts_sweep(struct hosts *hs)
{
	size_t	i;

	for (i = 0; i < hs->ncfg; i++) {
		if (hs->cfg[i].ssh == NULL) {
			host_slurm_sweep(hs);
			return;
		}
	}
}

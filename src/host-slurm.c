/*
 * host-slurm.c: runs on a Slurm cluster (host.h): srun with the job's
 * name, cwd and environment, scancel for signals, squeue polled for
 * the panel's words, and what a dead deck of this name left cancelled.
 */
#include <sys/types.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "debuglog.h"
#include "host-private.h"
#include "loop.h"
#include "pty.h"
#include "supcmd.h"
#include "xmalloc.h"

static void	host_slurm_poll_cb(void *);
static void	host_slurm_squeue_done(struct supcmd *, int, const char *,
		    size_t, void *);
static void	host_slurm_sweep_done(struct supcmd *, int, const char *,
		    size_t, void *);

static const struct supcmd_cbs host_slurm_squeue_cbs = {
	.done = host_slurm_squeue_done,
};

static const struct supcmd_cbs host_slurm_sweep_cbs = {
	.done = host_slurm_sweep_done,
};

/*
 * Return "--user=UID": every squeue and scancel of ours sees and touches
 * our own jobs only (another user's deck may use the same job names).
 */
static const char *
host_slurm_user(void)
{
	static char	opt[32];

	snprintf(opt, sizeof opt, "--user=%ld", (long)geteuid());
	return opt;
}

/*
 * Return srun's --chdir for cmd's cwd: ~ and ~/x are the job's HOME (the
 * cluster's nodes share it with the deck's), which srun does not expand.
 */
static char *
host_slurm_chdir(const struct host_cmd *cmd)
{
	const char	*home = NULL, *cwd = cmd->cwd;
	size_t		 i;

	if (strcmp(cwd, "~") != 0 && strncmp(cwd, "~/", 2) != 0)
		return xprintf("--chdir=%s", cwd);
	for (i = 0; cmd->envp != NULL && cmd->envp[i] != NULL; i++) {
		if (strncmp(cmd->envp[i], "HOME=", 5) == 0)
			home = cmd->envp[i] + 5;
	}
	if (home == NULL && (home = getenv("HOME")) == NULL)
		home = "/";
	return xprintf("--chdir=%s%s", home, cwd + 1);
}

/*
 * Fill spec with srun running cmd on run's cluster: its name, --pty for a
 * pty, --chdir, the host's options, then the command (the deck's shell
 * -c, or its argv); the environment is srun's own, exported.
 */
int
host_slurm_wrap(struct host_run *run, const struct host_cmd *cmd,
    struct pty_spec *spec, char **cause)
{
	struct host	*h = run->host;
	size_t		 n = 0, i, nopt, nargv = 0;

	(void)cause;
	for (nopt = 0; h->slurm[nopt] != NULL; nopt++)
		;
	while (cmd->argv != NULL && cmd->argv[nargv] != NULL)
		nargv++;
	run->argv = xcalloc(nopt + nargv + 12, sizeof *run->argv);
	run->argv[n++] = xstrdup("srun");
	run->argv[n++] = xprintf("--job-name=%s", run->token);
	if (!cmd->no_pty)
		run->argv[n++] = xstrdup("--pty");
	if (cmd->cwd != NULL)
		run->argv[n++] = host_slurm_chdir(cmd);
	run->argv[n++] = xstrdup("--export=ALL");
	for (i = 0; i < nopt; i++)
		run->argv[n++] = xstrdup(h->slurm[i]);
	run->argv[n++] = xstrdup("--");
	if (cmd->argv != NULL) {
		for (i = 0; i < nargv; i++)
			run->argv[n++] = xstrdup(cmd->argv[i]);
	} else {
		run->argv[n++] = xstrdup(cmd->shell != NULL ? cmd->shell :
		    "/bin/sh");
		run->argv[n++] = xstrdup("-c");
		run->argv[n++] = xstrdup(cmd->command != NULL ? cmd->command :
		    "");
	}
	run->argv[n] = NULL;
	spec->path = run->argv[0];
	spec->argv = run->argv;
	spec->cwd = NULL;
	return 0;
}

/*
 * Send sig to the run's Slurm job: scancel --signal; a whole scancel for
 * SIGKILL, and for an end asked of a job still queued.
 */
int
host_slurm_signal(struct host_run *run, int sig)
{
	char		*argv[6], *name, *opt = NULL;
	const char	*abbrev;
	int		 queued;

	queued = run->slurm_state != NULL &&
	    strcmp(run->slurm_state, "PENDING") == 0;
	if (sig <= 0 || sig >= NSIG || (abbrev = sigabbrev_np(sig)) == NULL)
		return -1;
	name = xprintf("--name=%s", run->token);
	argv[0] = (char *)"scancel";
	argv[1] = name;
	argv[2] = (char *)host_slurm_user();
	if (sig == SIGKILL || (queued && (sig == SIGTERM || sig == SIGINT ||
	    sig == SIGHUP)))
		argv[3] = NULL;
	else {
		opt = xprintf("--signal=%s", abbrev);
		argv[3] = opt;
		argv[4] = NULL;
	}
	host_oneshot(run->hs, argv, "scancel");
	free(name);
	free(opt);
	return 0;
}

/* Replace *dst with a copy of [s, s + len). */
static void
host_slurm_set(char **dst, const char *s, size_t len)
{
	free(*dst);
	*dst = xprintf("%.*s", (int)len, s);
}

/* Return whether a run on a Slurm host lives. */
static int
host_slurm_live(const struct hosts *hs)
{
	size_t	i;

	for (i = 0; i < hs->nruns; i++) {
		if (hs->runs[i]->host->engine == HOST_SLURM)
			return 1;
	}
	return 0;
}

/* Ask squeue of the live runs' jobs, unless it is asked already. */
void
host_slurm_poll(struct hosts *hs)
{
	char	*argv[7], *names = NULL, *tmp, *cause = NULL;
	size_t	 i;

	if (hs->squeue != NULL || !host_slurm_live(hs))
		return;
	if (hs->squeue_timer != 0) {
		loop_cancel_timer(hs->loop, hs->squeue_timer);
		hs->squeue_timer = 0;
	}
	for (i = 0; i < hs->nruns; i++) {
		if (hs->runs[i]->host->engine != HOST_SLURM)
			continue;
		tmp = xprintf("%s%s%s", names != NULL ? names : "",
		    names != NULL ? "," : "", hs->runs[i]->token);
		free(names);
		names = tmp;
	}
	tmp = xprintf("--name=%s", names);
	free(names);
	argv[0] = (char *)"squeue";
	argv[1] = (char *)"-h";
	argv[2] = tmp;
	argv[3] = (char *)"-o";
	argv[4] = (char *)"%j|%i|%T|%r|%N";
	argv[5] = (char *)host_slurm_user();
	argv[6] = NULL;
	hs->squeue = host_start(hs, argv, HOST_SLURM_CMD_MS,
	    &host_slurm_squeue_cbs, hs, &cause);
	free(tmp);
	if (hs->squeue == NULL) {
		debuglog("host: squeue: %s", cause);
		free(cause);
		hs->squeue_timer = loop_add_timer(hs->loop, HOST_SLURM_POLL_MS,
		    host_slurm_poll_cb, hs);
	}
}

/* The poll's interval is over. */
static void
host_slurm_poll_cb(void *arg)
{
	struct hosts	*hs = arg;

	hs->squeue_timer = 0;
	host_slurm_poll(hs);
}

/* Split one squeue line "NAME|ID|STATE|REASON|NODES" into its 5 fields. */
static void
host_slurm_fields(const char *line, size_t len, const char *f[5],
    size_t fl[5])
{
	const char	*end = line + len, *bar;
	size_t		 k;

	for (k = 0; k < 5; k++) {
		f[k] = line;
		bar = memchr(line, '|', (size_t)(end - line));
		if (bar == NULL || k == 4)
			bar = end;
		fl[k] = (size_t)(bar - line);
		line = bar < end ? bar + 1 : end;
	}
}

/* Return the index of the live run whose Slurm name is [name, +len), or -1. */
static ssize_t
host_slurm_find(const struct hosts *hs, const char *name, size_t len)
{
	size_t	i;

	for (i = 0; i < hs->nruns; i++) {
		if (strlen(hs->runs[i]->token) == len &&
		    strncmp(hs->runs[i]->token, name, len) == 0)
			return (ssize_t)i;
	}
	return -1;
}

/* Return the Slurm job id [s, +len) as a number (0: not one). */
static unsigned long long
host_slurm_id(const char *s, size_t len)
{
	char			*copy;
	unsigned long long	 id;

	copy = xprintf("%.*s", (int)len, s);
	id = strtoull(copy, NULL, 10);
	free(copy);
	return id;
}

/* Update run from one squeue line's fields: its id, state and words. */
static void
host_slurm_update(struct host_run *run, const char *f[5], const size_t fl[5])
{
	char	*text;

	host_slurm_set(&run->slurm_id, f[1], fl[1]);
	host_slurm_set(&run->slurm_state, f[2], fl[2]);
	host_slurm_set(&run->slurm_reason, f[3], fl[3]);
	host_slurm_set(&run->slurm_nodes, f[4], fl[4]);
	if (strcmp(run->slurm_state, "PENDING") == 0)
		text = xprintf("Queued by Slurm (%s)", run->slurm_reason);
	else if (*run->slurm_nodes != '\0')
		text = xprintf("%s · Slurm job %s", run->slurm_nodes,
		    run->slurm_id);
	else
		text = xprintf("Slurm job %s %s", run->slurm_id,
		    run->slurm_state);
	free(run->text);
	run->text = text;
}

/*
 * Read squeue's lines [out, +len) for the live runs.  A job id is a
 * run's only: a dead deck of this name may have left a job of the same
 * name (its job ids began at 1 too) that its sweep could not tell from
 * this run's, and the run's is the newest (the highest id: the dead
 * deck submitted nothing after it ended).  So each run takes its state
 * from the newest job of its name and the older ones are cancelled.
 */
static void
host_slurm_read(struct hosts *hs, const char *out, size_t len)
{
	const char		*p, *nl, *end = out + len, *f[5];
	size_t			 fl[5], n = 0, pass, k;
	unsigned long long	*newest, id;
	ssize_t			 i;
	char			**argv = NULL;

	newest = xcalloc(hs->nruns + 1, sizeof *newest);
	for (pass = 0; pass < 2; pass++) {
		for (p = out; p < end; p = nl + 1) {
			if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
				nl = end;
			if (nl == p)
				continue;
			host_slurm_fields(p, (size_t)(nl - p), f, fl);
			if ((i = host_slurm_find(hs, f[0], fl[0])) == -1)
				continue;
			id = host_slurm_id(f[1], fl[1]);
			if (pass == 0) {
				if (id >= newest[i])
					newest[i] = id;
			} else if (id == newest[i])
				host_slurm_update(hs->runs[i], f, fl);
			else {
				argv = xreallocarray(argv, n + 3,
				    sizeof *argv);
				argv[++n] = xprintf("%.*s", (int)fl[1], f[1]);
			}
		}
	}
	free(newest);
	if (n > 0) {
		argv = xreallocarray(argv, n + 3, sizeof *argv);
		argv[0] = xstrdup("scancel");
		argv[n + 1] = xstrdup(host_slurm_user());
		argv[n + 2] = NULL;
		debuglog("host: cancelling %zu Slurm jobs a dead deck left "
		    "under this deck's names", n);
		host_oneshot(hs, argv, "scancel");
	}
	for (k = 0; argv != NULL && argv[k] != NULL; k++)
		free(argv[k]);
	free(argv);
}

/* squeue answered: each run's state read, the next poll in a second. */
static void
host_slurm_squeue_done(struct supcmd *sc, int status, const char *out,
    size_t len, void *arg)
{
	struct hosts	*hs = arg;

	(void)sc;
	hs->squeue = NULL;
	if (status == 0)
		host_slurm_read(hs, out, len);
	else
		debuglog("host: squeue failed: %s", out);
	if (host_slurm_live(hs))
		hs->squeue_timer = loop_add_timer(hs->loop, HOST_SLURM_POLL_MS,
		    host_slurm_poll_cb, hs);
}

/*
 * Cancel every job of the queue named jobdeck-DECK-... (a dead deck of
 * this name's: this one has none yet), asked of squeue first.
 */
void
host_slurm_sweep(struct hosts *hs)
{
	char	*argv[6], *cause = NULL;

	argv[0] = (char *)"squeue";
	argv[1] = (char *)"-h";
	argv[2] = (char *)"-o";
	argv[3] = (char *)"%j|%i";
	argv[4] = (char *)host_slurm_user();
	argv[5] = NULL;
	if (host_start(hs, argv, HOST_SLURM_CMD_MS, &host_slurm_sweep_cbs,
	    hs, &cause) == NULL) {
		debuglog("host: squeue: %s", cause);
		free(cause);
	}
}

/* The sweep's squeue answered: a scancel of the dead deck's job ids. */
static void
host_slurm_sweep_done(struct supcmd *sc, int status, const char *out,
    size_t len, void *arg)
{
	struct hosts	*hs = arg;
	const char	*p = out, *nl, *end = out + len, *bar;
	char		*prefix, **argv = NULL, *name;
	size_t		 n = 0, plen, i;

	(void)sc;
	if (status != 0)
		return;
	prefix = xprintf("jobdeck-%s-", hs->deck);
	plen = strlen(prefix);
	for (; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		bar = memchr(p, '|', (size_t)(nl - p));
		if (bar == NULL || (size_t)(bar - p) <= plen ||
		    strncmp(p, prefix, plen) != 0)
			continue;
		/*
		 * Not one of this deck's own runs (a dead deck's job of the
		 * same name goes at the run's poll: host_slurm_read()).
		 */
		name = xprintf("%.*s", (int)(bar - p), p);
		for (i = 0; i < hs->nruns; i++) {
			if (strcmp(hs->runs[i]->token, name) == 0)
				break;
		}
		free(name);
		if (i < hs->nruns)
			continue;
		argv = xreallocarray(argv, n + 3, sizeof *argv);
		argv[n + 1] = xprintf("%.*s", (int)(nl - bar - 1), bar + 1);
		n++;
	}
	free(prefix);
	if (n > 0) {
		argv = xreallocarray(argv, n + 3, sizeof *argv);
		argv[0] = xstrdup("scancel");
		argv[n + 1] = xstrdup(host_slurm_user());
		argv[n + 2] = NULL;
		debuglog("host: cancelling %zu Slurm jobs a dead deck left", n);
		host_oneshot(hs, argv, "scancel");
	}
	for (i = 0; argv != NULL && argv[i] != NULL; i++)
		free(argv[i]);
	free(argv);
}

/*
 * host: where a job's run happens when it has a host (job_spec.host): a
 * [hosts.NAME] of the configuration (ssh = DEST, or slurm = [srun
 * options]) or a bare ssh destination.  The run's local leader is a
 * client of the engine, started as any job's leader is (job.c), with the
 * argv and environment hosts_wrap() gives:
 *
 * ssh	one master connection per host (ssh -M -N, BatchMode, a
 *	ConnectTimeout, ControlPath DIR/NAME.ssh/N in the deck's private
 *	runtime directory), started by the first run's gate (hosts_gate():
 *	"connecting to build" until its socket is there; a master that ends
 *	first fails the runs that waited, with ssh's last line as the
 *	reason).  Each run is `ssh -S PATH -o ControlMaster=no [-tt] DEST
 *	SCRIPT`: a POSIX sh script (host-ssh.c) that reports its pid (its
 *	group's id: sshd made it a session leader) in a file on the host,
 *	sets the job's environment and cwd from octal escapes no shell
 *	re-parses, marks the job's processes (JOBDECK_REMOTE=TOKEN in their
 *	environment), runs the command, and kills every marked process when
 *	the command ends or the connection (its sshd) goes.  Signals reach
 *	the group through the master (the relay: `kill -s SIG -- -PGID`).
 * slurm	`srun --job-name=jobdeck-DECK-ID [--pty] --chdir=CWD OPTIONS
 *	-- ...` with the job's environment as srun's own (--export=ALL);
 *	signals are `scancel --signal`, SIGKILL a whole scancel; squeue is
 *	polled while a run lives for its state, reason, nodes and id
 *	(host_run_text()); a deck that starts cancels what a dead deck of
 *	its name left (hosts_sweep()).
 *
 * Everything runs on the loop as supervised commands (supcmd.h): no
 * connect, probe or signal ever blocks it.
 *
 * Ownership: the deck owns struct hosts (hosts_free() after the loop,
 * once the jobs are gone: it closes the masters).  A struct host_run is
 * its job's (host_run_free() when the run is over); it holds what the
 * spec hosts_wrap() filled points to.
 */
#ifndef JOBDECK_HOST_H
#define JOBDECK_HOST_H

#include <stddef.h>

struct config_host;
struct host_run;
struct hosts;
struct loop;
struct proc;
struct proc_reaper;
struct pty_spec;

enum host_gate {
	HOST_GO,
	HOST_WAIT,
	HOST_FAIL
};

/* A job's run as the host needs it (what job_start() would run here). */
struct host_cmd {
	int		 id;		/* the job's */
	const char	*command;	/* shell string, or NULL with argv */
	const char	*shell;		/* the deck's, for Slurm's nodes */
	char *const	*argv;
	const char	*cwd;		/* NULL: the login directory */
	char *const	*envp;		/* the job's whole environment */
	char *const	*base;		/* the deck's own: not sent */
	int		 no_pty;
	int		 rows;
	int		 cols;
};

struct hosts	*hosts_new(struct loop *, struct proc_reaper *,
		    const char *deck);
void		 hosts_free(struct hosts *);
void		 hosts_set_config(struct hosts *, const struct config_host *,
		    size_t n, const char *ssh_command);
void		 hosts_set_recheck(struct hosts *, void (*)(void *),
		    void *arg);
void		 hosts_sweep(struct hosts *);
enum host_gate	 hosts_gate(struct hosts *, const char *host, int id,
		    char **why);
struct host_run	*hosts_wrap(struct hosts *, const char *host,
		    const struct host_cmd *, struct pty_spec *, char **cause);
int		 hosts_connections(const struct hosts *);
const char	*hosts_engine(const struct hosts *, const char *host);

void		 host_run_started(struct host_run *, struct proc *);
void		 host_run_ended(struct host_run *, int status);
void		 host_run_free(struct host_run *);
const char	*host_run_name(const struct host_run *);
const char	*host_run_engine(const struct host_run *);
const char	*host_run_text(const struct host_run *);
void		 host_run_slurm(const struct host_run *, const char **job_id,
		    const char **state, const char **nodes,
		    const char **reason);

#endif

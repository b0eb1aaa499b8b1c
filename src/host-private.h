/*
 * host-private.h: what host.c (the hosts, gate, runs, relay),
 * host-ssh.c (masters, the remote script) and host-slurm.c (srun,
 * squeue, scancel) share.
 */
#ifndef JOBDECK_HOST_PRIVATE_H
#define JOBDECK_HOST_PRIVATE_H

#include <stdint.h>

#include "host.h"

struct host_oneshot;
struct supcmd;

enum host_engine {
	HOST_SSH,
	HOST_SLURM
};

enum host_state {
	HOST_IDLE,		/* no master */
	HOST_CONNECTING,	/* its master started, no socket yet */
	HOST_UP,		/* its socket is there */
	HOST_FAILED		/* the last master ended: error says why */
};

#define HOST_MASTER_POLL_MS	25	/* the socket looked for */
#define HOST_CONNECT_MS		60000	/* ... until then, at the most */
#define HOST_SIGNAL_MS		15000	/* a remote signal's bound */
#define HOST_SLURM_POLL_MS	1000	/* squeue while a run lives */
#define HOST_SLURM_CMD_MS	15000	/* squeue's, scancel's bound */
#define HOST_FINISH_MS		5000	/* one in flight, at the end */

struct host {
	struct hosts		*hs;
	char			*name;		/* as jobs say it */
	enum host_engine	 engine;
	char			*dest;		/* ssh */
	char			**slurm;	/* srun's options */
	int			 index;
	char			*ctl_path;	/* ssh: the master's socket */
	enum host_state		 state;
	struct supcmd		*master;
	char			*error;		/* FAILED: why */
	int			*waiting;	/* ids that waited for this */
	size_t			 nwaiting;	/*   attempt */
	uint64_t		 poll_timer;
	int64_t			 connect_end;	/* the socket's deadline */
	int			 stale;		/* gone from the config */
};

struct host_run {
	struct hosts		*hs;
	struct host		*host;
	int			 id;
	char			*token;		/* marker, Slurm job name */
	char			**argv;		/* the spec's */
	char			**envp;
	char			*text;		/* the panel's words, or NULL */
	char			*slurm_id;
	char			*slurm_state;
	char			*slurm_nodes;
	char			*slurm_reason;
	struct proc		*proc;
	int			 ended;
};

struct hosts {
	struct loop		*loop;
	struct proc_reaper	*r;
	char			*deck;
	char			*instance;	/* DECK.PID: remote files */
	char			*ssh_command;	/* the setting, or NULL */
	char			*ctl_dir;	/* DIR/DECK.ssh once made */
	struct config_host	*cfg;
	size_t			 ncfg;
	struct host		**hosts;
	size_t			 nhosts;
	struct host_run		**runs;		/* live runs */
	size_t			 nruns;
	void			(*recheck)(void *);
	void			*recheck_arg;
	struct host_oneshot	**oneshots;	/* signals, scancels in flight */
	size_t			 noneshots;
	struct supcmd		*squeue;
	uint64_t		 squeue_timer;
	int			 next_index;
};

struct supcmd_cbs;

struct supcmd *host_start(struct hosts *, char **argv, int64_t bound_ms,
	    const struct supcmd_cbs *, void *arg, char **cause);
void	host_oneshot(struct hosts *, char **argv, const char *what);
void	host_recheck(struct hosts *);

int	host_ssh_connect(struct host *);
void	host_ssh_close(struct host *);
int	host_ssh_wrap(struct host_run *, const struct host_cmd *,
	    struct pty_spec *, char **cause);
int	host_ssh_signal(struct host_run *, int sig);
char	*host_ssh_script(const struct host_run *, const struct host_cmd *);
char	*host_ssh_remote(const char *script);

int	host_slurm_wrap(struct host_run *, const struct host_cmd *,
	    struct pty_spec *, char **cause);
int	host_slurm_signal(struct host_run *, int sig);
void	host_slurm_poll(struct hosts *);
void	host_slurm_sweep(struct hosts *);

#endif

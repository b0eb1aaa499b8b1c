/*
 * supcmd: a short supervised command on the deck's loop (proc.h): argv
 * run on pipes (stdin /dev/null, stdout and stderr together), contained
 * in a job of a cgroup (cgroup.h; NULL: none), its output
 * kept up to SUPCMD_OUT_MAX bytes (the rest read and dropped), killed
 * with all it started once bound_ms passes, and its end told once, with
 * its wait status (WAITSTATUS_NONE when it timed out) and its output.
 * What the hosts run beside their jobs uses it: ssh masters, remote
 * signals, squeue, scancel.
 *
 * Ownership: supcmd_start() returns the command, which frees itself
 * after its done callback returns; supcmd_cancel() kills and frees one
 * before that (done is not told).  The reaper and loop stay the
 * caller's and must outlive every command.
 */
#ifndef JOBDECK_SUPCMD_H
#define JOBDECK_SUPCMD_H

#include <stddef.h>
#include <stdint.h>

#define SUPCMD_OUT_MAX	(64 * 1024)

struct cgroup;
struct loop;
struct proc_reaper;
struct supcmd;

struct supcmd_cbs {
	void	(*done)(struct supcmd *, int status, const char *out,
		    size_t len, void *arg);
};

struct supcmd	*supcmd_start(struct loop *, struct proc_reaper *,
		    struct cgroup *, char *const *argv, char *const *envp,
		    int64_t bound_ms, const struct supcmd_cbs *, void *arg,
		    char **cause);
void		 supcmd_signal(struct supcmd *, int sig);
void		 supcmd_cancel(struct supcmd *);
int		 supcmd_finish(struct supcmd *, int sig, int64_t grace_ms);
const char	*supcmd_last_line(char *out);

#endif

/*
 * cgroup: keeps every process a job starts within reach, so that a kill
 * finds those that left the job's process group (setsid, set -m, setsid
 * -f, a double fork).  Two ways behind one API:
 *
 * - A cgroup (v2) per run of a job, wherever jobdeck may make one (as
 *   root, or in a subtree systemd delegated to the user).  The deck makes
 *   <base>/<token>, where <base> is the cgroup it was started in (the
 *   "0::" line of /proc/self/cgroup, under the cgroup2 mount of
 *   /proc/self/mountinfo: unified, or hybrid beside v1) and its token is
 *   jobdeck.<pid>.<start>.<pidns>: its pid, its start time (field 22 of
 *   /proc/PID/stat), so a pid reused later is never taken for it, and its
 *   PID namespace (the inode of /proc/self/ns/pid), so a deck of another
 *   namespace is never judged by a pid that means another process.  Each
 *   run gets job-<id>-<run> inside; the child joins it before it execs
 *   (pty.c writes "0" to the cgroup.procs fd opened here), so nothing it
 *   forks is ever outside.  The deck's directory never holds a process
 *   (the "no internal processes" rule), so the memory controller is
 *   enabled in it for the jobs when its parent offers it.  SIGKILL goes
 *   through cgroup.kill (Linux 5.14), else cgroup.procs is walked until it
 *   is empty; other signals walk cgroup.procs.  A probe child checks at
 *   start that a process can really be moved in.
 * - Everywhere else (no cgroup2 mount, no permission, CGROUP_NO_CGROUP):
 *   the marker alone.  Every job has JOBDECK_JOB=<token>/job-<id>-<run>
 *   in its environment (in both ways), and what inherits
 *   it is found by a scan of /proc/PID/environ over this uid's processes
 *   (every process for root).  Signals for marked processes are queued by
 *   cgroup_job_signal() and sent by cgroup_flush(): one scan serves every
 *   job killed in the same turn of the loop, and SIGKILL scans repeat
 *   while they find something and until three in a row find nothing (a
 *   process in the middle of an exec shows no environment for a moment).
 *
 * Signals from here never go to members of the job's own process group:
 * the caller signals the group itself.  SIGTERM, SIGHUP and SIGINT are
 * followed by SIGCONT, so a stopped process sees them.
 *
 * Not only jobs: whatever jobdeck starts (probe and stop commands, the
 * browser and its docker commands, the session shell, `jobdeck run`'s
 * child) runs in a cgroup_job of its own, joined through pty_spawn()'s
 * cgroup_procs with cgroup_job_env()'s environment (proc.h's
 * proc_spawn() does both), and is killed whole when it is done with
 * (SIGKILL through cgroup_job_signal(), then cgroup_job_release()).
 *
 * cgroup_sweep() kills what dead decks left: their cgroups beside this
 * deck's, and processes with their marker (never this process or its
 * ancestors).  Only decks of this PID namespace are judged (a token
 * without its namespace, an older deck's, counts as ours): what a deck in
 * a container or under unshare --pid left is its own next deck's to
 * sweep, while the processes of one of ours are swept wherever they are,
 * a job's own PID namespace (unshare, bwrap, a browser's sandbox)
 * included.  cgroup_kill_all() kills what this deck left, at its exit.
 * cgroup_token_dead() says whether a name holds a dead deck's token, for
 * what else a deck leaves behind (the browser's profiles).
 * JOBDECK_NO_CGROUP=1 in the environment asks for the marker alone
 * (cgroup_env_flags()).
 * Only cgroup_new() (one probe child), cgroup_sweep(), cgroup_kill_all()
 * and cgroup_free() wait, for a bounded time, before and after the loop;
 * everything else is a few system calls (cgroup_flush() a /proc scan).
 *
 * Ownership: the caller owns the struct cgroup; it owns every struct
 * cgroup_job.  A job uses its cgroup_job from cgroup_job_new() until
 * cgroup_job_release(); the deck then removes its directory once it is
 * empty (cgroup_tidy()) and frees it.  Strings returned belong to their
 * struct; cgroup_locate() returns an allocated path.
 */
#ifndef JOBDECK_CGROUP_H
#define JOBDECK_CGROUP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct cgroup;
struct cgroup_job;

#define CGROUP_MARKER	"JOBDECK_JOB"	/* the environment variable */
#define CGROUP_NO_CGROUP 0x1		/* cgroup_new(): the marker alone */
#define CGROUP_ENV_NO_CGROUP "JOBDECK_NO_CGROUP" /* asks for it */

char		*cgroup_locate(const char *mountinfo, const char *self_cgroup,
		    char **cause);

struct cgroup	*cgroup_new(int flags);
struct cgroup	*cgroup_new_in(const char *base, int flags);
void		 cgroup_free(struct cgroup *);
const char	*cgroup_token(const struct cgroup *);
int		 cgroup_token_dead(const char *, size_t);
int		 cgroup_env_flags(void);
const char	*cgroup_dir(const struct cgroup *);
const char	*cgroup_warning(struct cgroup *);
int		 cgroup_sweep(struct cgroup *);
int		 cgroup_flush(struct cgroup *);
int		 cgroup_tidy(struct cgroup *);
void		 cgroup_kill_all(struct cgroup *);

struct cgroup_job *cgroup_job_new(struct cgroup *, int id);
const char	*cgroup_job_marker(const struct cgroup_job *);
char		**cgroup_job_env(const struct cgroup_job *, char *const *envp);
const char	*cgroup_job_dir(const struct cgroup_job *);
int		 cgroup_job_procs_fd(const struct cgroup_job *);
void		 cgroup_job_started(struct cgroup_job *, pid_t pgid);
int		 cgroup_job_signal(struct cgroup_job *, int sig);
int		 cgroup_job_populated(const struct cgroup_job *);
void		 cgroup_job_usage(struct cgroup_job *, int64_t *cpu_usec,
		    int64_t *memory_bytes);
int		 cgroup_job_remove(struct cgroup_job *);
void		 cgroup_job_release(struct cgroup_job *);

#endif

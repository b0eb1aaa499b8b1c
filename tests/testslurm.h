/*
 * testslurm: a one-node Slurm cluster of the tests' own, started from
 * nothing in a new temporary directory and gone again after.
 *
 * testslurm_start() writes a slurm.conf there (this machine's CPUs and
 * memory as `slurmd -C` reports them, one partition, free loopback ports
 * from testnet.h, state, spool, logs and pid files in the directory,
 * the current user as SlurmUser and SlurmdUser, proctrack/linuxproc and
 * task/none so no cgroup is needed), makes a munge key and starts
 * munged on a socket of its own (slurm.conf's AuthInfo names it: libmunge
 * reads no environment variable), then slurmctld -D and slurmd -D, and
 * waits until sinfo shows the node idle.  It works as root and as an
 * ordinary user (every daemon runs as the caller; jobs run as the caller).
 *
 * The daemons live in /usr/sbin, which an ordinary user's PATH may lack:
 * testslurm_start() adds /usr/sbin and /sbin to this process's PATH
 * first.  It returns NULL, *why saying what is missing (the package, as
 * tests/need.h says it) or which daemon did not come up (its log's last
 * lines), when it cannot start the cluster: the caller skips.  A program
 * scripts/deps.list does not name fails the running test.
 *
 * testslurm_env() is the environment a Slurm command of the test needs:
 * this process's, without any SLURM_* variable it inherited (a test run
 * inside a Slurm job must not talk to that job's cluster), with
 * SLURM_CONF set and the PATH above.  testslurm_run() and
 * testslurm_spawn() run a command in it.
 *
 * Ownership: the caller owns the struct testslurm and ends it with
 * testslurm_stop(), which cancels what still runs, stops the daemons
 * (TERM, then KILL after a limit), reaps them and removes the directory.
 * The daemons get SIGTERM if the process that started them dies.
 */
#ifndef JOBDECK_TESTSLURM_H
#define JOBDECK_TESTSLURM_H

#include <sys/types.h>

#include <stddef.h>

#include "skip.h"

struct testslurm;

struct testslurm	*testslurm_start(char *why, size_t len);
void			 testslurm_stop(struct testslurm *);
char *const		*testslurm_env(const struct testslurm *);
const char		*testslurm_dir(const struct testslurm *);
const char		*testslurm_conf(const struct testslurm *);
const char		*testslurm_munge_socket(const struct testslurm *);
const char		*testslurm_node(const struct testslurm *);
pid_t			 testslurm_spawn(const struct testslurm *,
			    const char *const argv[], int in, int out);
int			 testslurm_run(const struct testslurm *,
			    const char *const argv[], char *out, size_t len);
int			 testslurm_wait(pid_t, int *status, int limit_ms);

/* Start the cluster into ts, or skip the test saying why. */
#define TESTSLURM_START(ts) do {					\
	char	tsl_why_[2048];						\
	if (((ts) = testslurm_start(tsl_why_, sizeof tsl_why_)) == NULL) \
		TEST_SKIP("%s", tsl_why_);				\
} while (0)

#endif

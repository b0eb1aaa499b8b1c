/*
 * run-private.h: what jobdeck run's two files share: the command line
 * parsed (struct run_opts) and the command made from it (struct run_cmd,
 * run-cmd.c's), which run.c runs to its end (run_execute()).
 *
 * Ownership: a run_opts points into argv; a run_cmd owns its strings
 * (run_cmd_free()).
 */
#ifndef JOBDECK_RUN_PRIVATE_H
#define JOBDECK_RUN_PRIVATE_H

#include <stddef.h>
#include <stdint.h>

#include "waitstatus.h"

struct config;

#define RUN_DEFAULT_TIMEOUT	300.0		/* seconds */
#define RUN_DEFAULT_GRACE_MS	2000

#define RUN_EXIT_USAGE		2
#define RUN_EXIT_FAILURE	WAITSTATUS_NOT_RUN	/* jobdeck failed */

/* The command line, parsed; strings point into argv. */
struct run_opts {
	const char	 *config;	/* -c, or NULL */
	int		  json;
	int		  has_timeout;
	double		  timeout;
	const char	 *input;	/* --input, or NULL */
	const char	 *cwd;		/* --cwd, or NULL */
	const char	 *host;		/* --host, or NULL */
	char		**env;		/* --env K=V, in order */
	size_t		  nenv;
	char		**params;	/* --param K=V, in order */
	size_t		  nparams;
	const char	 *job;		/* JOBNAME, or NULL */
	char		**argv;		/* -- PROGRAM ARG..., or NULL */
};

/* What to start; every string is owned here. */
struct run_cmd {
	char		 *path;		/* program, searched in envp's PATH */
	char		**argv;
	char		**envp;
	size_t		  nenv;
	char		 *cwd;		/* NULL: jobdeck's (on a host: its */
					/*   login directory) */
	char		 *host;		/* NULL: here; else job_spec.host */
	char		 *input;	/* NULL: stdin is /dev/null */
	double		  timeout;	/* seconds, 0: none */
	int64_t		  grace_ms;	/* SIGTERM to SIGKILL */
};

int	run_execute(const struct run_cmd *, int json, const char *dir,
	    const struct config *);

#endif

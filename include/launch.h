/*
 * launch: a configured job ([[job]] or a Procfile line) turned into a
 * job_spec, ready for jobtable_spawn().  Templating runs here, with {name}
 * from the parameters (the caller's over the job's params):
 *   - the environment first, each layer over the ones before:
 *       1. the session's (its exports over jobdeck's own) unless
 *          inherit_env is off;
 *       2. the env files ([settings]' then the job's, dotenv.h), whose
 *          ${VAR} reads what is above it in the file, then the files and
 *          layers before, then the session's environment;
 *       3. PORT (port + replica - 1) when the job has a port;
 *       4. JOBDECK_REPLICA (1..N) for a replica; any other job has
 *          none (one from the layers above, a deck started inside a
 *          replica say, is dropped);
 *       5. the env values, in file order: ${VAR} from everything before
 *          them, then the session's environment, inherited or not;
 *          {name} values verbatim.
 *     A missing or bad env file is an error ("env_file .env: No such
 *     file or directory");
 *   - then command, args, input and cwd, ${VAR} from the job's finished
 *     environment (its env over the session's, or its env alone), through
 *     expand_command(): parameter values are quoted where a POSIX shell
 *     reads them as code, refused where other code would, and verbatim
 *     where they are data (see src/expand-argv.c), so they are never
 *     re-parsed by a shell.
 * A relative cwd is taken from the session's.  On a host (the job's
 * host, copied to the spec), cwd stays as written, a directory there, and
 * no cwd is none (the login directory).
 *
 * launch_new_at() is launch_new() for replica (1..N of a job with
 * replicas > 1: named config_replica_name(), NAME.replica; 0: the job
 * itself) with env_file
 * paths relative to base_dir (the config file's directory; NULL: the
 * session's cwd); launch_new() is launch_new_at(..., 0, NULL, ...).
 *
 * Ownership: launch_new() returns a struct launch that owns the spec and
 * every string it points to; launch_free() frees them.  The spec's
 * log_dir and scrollback are left unset: jobtable_spawn() gives every job
 * the deck's (and pipes when the deck runs without ptys).
 */
#ifndef JOBDECK_LAUNCH_H
#define JOBDECK_LAUNCH_H

#include <stddef.h>

struct config_job;
struct config_settings;
struct expand_param;
struct job_spec;
struct session;
struct launch;

struct launch	*launch_new(const struct config_job *,
		    const struct config_settings *, const struct session *,
		    const struct expand_param *params, size_t nparams,
		    char **cause);
struct launch	*launch_new_at(const struct config_job *,
		    const struct config_settings *, const struct session *,
		    const struct expand_param *params, size_t nparams,
		    int replica, const char *base_dir, char **cause);
struct job_spec	*launch_spec(struct launch *);
void		 launch_free(struct launch *);

int		 launch_parse_params(int argc, char **argv,
		    struct expand_param **params, size_t *nparams,
		    char **cause);
void		 launch_free_params(struct expand_param *, size_t);

#endif

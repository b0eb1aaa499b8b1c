/*
 * sessionsh: the session's persistent shell.  One child shell ($SHELL:
 * bash, zsh, or any other taken as a POSIX sh) on pipes, in its own
 * session, runs the lines made of session commands (cd, export, source,
 * alias, functions...).  After each line it prints a delimited dump of the
 * state the line left (exit status, cwd, environment, aliases, functions,
 * options and umask), which becomes the session's: session_set_state()
 * for the cwd and environment, and for bash a BASH_ENV file (aliases with
 * expand_aliases, functions) that every later bash job reads; it sources
 * the user's own BASH_ENV first, as bash would have.  The dump's markers
 * carry a random token drawn for each line, and every field comes byte
 * for byte (a cwd with a newline in it, say); a dump that cannot be read
 * is never taken for a state.  A variable too large to pass to programs
 * (over MAX_ARG_STRLEN) is refused: its export is undone in the shell and
 * the line fails naming it.
 *
 * Nothing blocks: lines are queued (at most SESSIONSH_QUEUE_MAX) and
 * written on POLLOUT, the dump read on POLLIN, and a line that takes
 * longer than the time limit, or prints more than SESSIONSH_OUTPUT_MAX
 * (with its state's dump), is cut: the shell is killed and started again
 * with the last good state.  sessionsh_then() queues a callback
 * that runs once every line before it is done, so a job started after a
 * session line sees its state.
 *
 * The shell is supervised like a job, by the jobtable's reaper (proc.h;
 * jt may be NULL, and the shell is then waited for when it is killed):
 * a cgroup of its own under the deck's (cg, may be NULL), killed whole
 * when it is cut or freed.
 *
 * Ownership: the caller owns the struct sessionsh, and the jobtable,
 * cgroup and session it borrows (which must outlive it).  The strings a done callback gets are
 * valid during the call only.
 */
#ifndef JOBDECK_SESSIONSH_H
#define JOBDECK_SESSIONSH_H

#include <stdint.h>

struct cgroup;
struct jobtable;
struct loop;
struct session;
struct sessionsh;

#define SESSIONSH_QUEUE_MAX	64
#define SESSIONSH_TIMEOUT_MS	8000	/* within CTL_ANSWER_TIMEOUT_MS */
#define SESSIONSH_OUTPUT_MAX	(8 * 1024 * 1024) /* a line and its dump */

/*
 * A line is done: status is the line's exit status (-1: it timed out,
 * the shell died, its state could not be read or a variable it exported
 * was refused; errors says so), output what it printed, errors what it
 * wrote to stderr (the shell's "line N:" prefixes dropped).  For
 * sessionsh_then() status is 0 and both are "".  A line or then() still
 * queued when the session shell is freed is dropped: status -1, output
 * and errors NULL; the callback must only release arg (the caller's
 * other objects, a ctl client say, may be gone already).
 */
typedef void	sessionsh_done_cb(int status, const char *output,
		    const char *errors, void *arg);

struct sessionsh *sessionsh_new(struct loop *, struct jobtable *,
		    struct cgroup *, struct session *, int64_t timeout_ms,
		    char **cause);
void		 sessionsh_free(struct sessionsh *);
int		 sessionsh_idle(const struct sessionsh *);
int		 sessionsh_run(struct sessionsh *, const char *line,
		    sessionsh_done_cb *, void *arg, char **cause);
int		 sessionsh_then(struct sessionsh *, sessionsh_done_cb *,
		    void *arg, char **cause);
const char	*sessionsh_shell(const struct sessionsh *);
char *const	*sessionsh_aliases(const struct sessionsh *);
char *const	*sessionsh_functions(const struct sessionsh *);

#endif

/*
 * session: the command line's shell state.  A working directory (with the
 * previous one for `cd -`) and an environment overlay on top of jobdeck's
 * own environment, changed by `cd`, `export` and `unset` like a shell's and
 * used for every job started later.  session also splits a builtin's
 * arguments into words the way a shell would for simple cases: quotes,
 * backslashes, $NAME and ${NAME} from the session environment, and a leading
 * ~.  session_split_list() cuts a line at its list operators (&&, ||, ;)
 * so the prompt can run `cd /app && export K=v` as a shell would.  It never
 * prints; errors come back in *cause.
 *
 * Ownership: the caller owns the struct session.  session_env() returns a
 * NULL-terminated array the caller frees with session_env_free().
 */
#ifndef JOBDECK_SESSION_H
#define JOBDECK_SESSION_H

#include <stddef.h>

struct session;

/* The operator before a part of a list: none for the first. */
enum session_op {
	SESSION_OP_NONE,
	SESSION_OP_AND,		/* && */
	SESSION_OP_OR,		/* || */
	SESSION_OP_SEQ		/* ; or a newline */
};

/* One command of an and-or list, as typed: borrowed from the line. */
struct session_part {
	const char	*text;
	size_t		 len;
	enum session_op	 op;
	const char	*other;		/* first other operator in it, or NULL */
};

struct session_list {
	struct session_part	*parts;
	int			 count;
};

struct session	*session_new(char *const *environ);
void		 session_free(struct session *);

const char	*session_cwd(const struct session *);
const char	*session_getenv(const struct session *, const char *name);
int		 session_cd(struct session *, const char *dir, char **cause);
int		 session_export(struct session *, const char *assignment,
		    char **cause);
int		 session_unset(struct session *, const char *name,
		    char **cause);

void		 session_set_state(struct session *, const char *cwd,
		    char *const *env);
char		**session_env(const struct session *);
void		 session_env_free(char **);
const char	*session_shell(const struct session *);

int		 session_split(const struct session *, const char *line,
		    int *argc, char ***argv, char **cause);
void		 session_split_free(int argc, char **argv);
int		 session_split_list(const char *line, struct session_list *,
		    char **cause);
void		 session_list_clear(struct session_list *);
const char	*session_raw_tail(const char *line, int n, int *total);

#endif

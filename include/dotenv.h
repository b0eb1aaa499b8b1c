/*
 * dotenv: environment files as foreman and docker compose read them.
 * One KEY=VALUE a line; blank lines and # comments; an optional `export `
 * prefix; values unquoted (trailing spaces and a ` #` comment dropped),
 * single-quoted (verbatim), or double-quoted (\n \t \" \\ \$ escapes);
 * both quoted forms may span lines; ${VAR}, ${VAR:-default} and $VAR
 * expand in unquoted and double-quoted values from the entries above,
 * then from lookup, by expand_text()'s rules.  The rules in full are at
 * the top of src/dotenv.c.  Errors name the place: ".env:3:7: expected
 * '=' after the name".  dotenv_load() reads a regular file only, never
 * through a symbolic link, and at most DOTENV_MAX_SIZE bytes; its
 * messages start with the path.
 *
 * Ownership: dotenv_parse() returns an array of "KEY=VALUE" strings in
 * file order (a later KEY replaces an earlier one), NULL-terminated,
 * that the caller frees with dotenv_free().
 */
#ifndef JOBDECK_DOTENV_H
#define JOBDECK_DOTENV_H

#include <stddef.h>

#define DOTENV_MAX_SIZE	(1024 * 1024)	/* bytes of one file */
#define DOTENV_MAX_ENTRIES 1024		/* names in one file */
#define DOTENV_MAX_OUTPUT (4 * DOTENV_MAX_SIZE)	/* bytes of its values, */
						/*   expanded, in all */

/* The value of name outside the file, or NULL. */
typedef const char *dotenv_lookup_fn(const char *name, void *arg);

int	 dotenv_parse(const char *name, const char *buf, size_t len,
	    dotenv_lookup_fn *, void *arg, char ***out, size_t *n,
	    char **cause);
int	 dotenv_load(const char *path, dotenv_lookup_fn *, void *arg,
	    char ***out, size_t *n, char **cause);
void	 dotenv_free(char **, size_t);

#endif

/* dotenv.c: environment files (see dotenv.h).  Groundwork stub. */
#include <stdlib.h>

#include "dotenv.h"
#include "xmalloc.h"

/* Parse a dotenv text (not built yet). */
int
dotenv_parse(const char *name, const char *buf, size_t len,
    dotenv_lookup_fn *lookup, void *arg, char ***out, size_t *n,
    char **cause)
{
	(void)buf;
	(void)len;
	(void)lookup;
	(void)arg;
	*out = NULL;
	*n = 0;
	*cause = xprintf("%s: env files are not read yet", name);
	return -1;
}

/* Read and parse a dotenv file (not built yet). */
int
dotenv_load(const char *path, dotenv_lookup_fn *lookup, void *arg,
    char ***out, size_t *n, char **cause)
{
	return dotenv_parse(path, "", 0, lookup, arg, out, n, cause);
}

/* Free what dotenv_parse() returned. */
void
dotenv_free(char **v, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

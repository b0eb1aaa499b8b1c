/*
 * fuzz_procfile.c: fuzz target for the Procfile parser
 * (include/procfile.h).  The input is a Procfile.  The entries must keep
 * the header's and src/procfile.c's promises: at most PROCFILE_MAX_ENTRIES,
 * names that pass name_check_job() (the one rule) and unique, commands
 * non-empty, one line each and
 * without blanks around them, lines from 1 and in file order.  An error
 * must be "LINE: message".
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "name.h"
#include "procfile.h"

/* The blanks procfile drops around names and commands. */
#define FUZZ_PROCFILE_BLANKS	" \t\r\f\v"

/* Abort unless cause is "LINE: message" with LINE from 1. */
static void
fuzz_procfile_cause(const char *cause)
{
	const char	*s = cause;

	if (s == NULL || *s < '1' || *s > '9')
		abort();
	while (*s >= '0' && *s <= '9')
		s++;
	if (s[0] != ':' || s[1] != ' ' || s[2] == '\0')
		abort();
}

/* Abort unless entry i of ents (n of them) keeps every promise. */
static void
fuzz_procfile_entry(const struct procfile_entry *ents, size_t n, size_t i)
{
	const struct procfile_entry	*e = &ents[i];
	char				*cause = NULL;
	size_t				 len, k;

	if (e->name == NULL || name_check_job(e->name, &cause) != 0)
		abort();
	if (e->command == NULL || (len = strlen(e->command)) == 0 ||
	    strchr(e->command, '\n') != NULL ||
	    strchr(FUZZ_PROCFILE_BLANKS, e->command[0]) != NULL ||
	    strchr(FUZZ_PROCFILE_BLANKS, e->command[len - 1]) != NULL)
		abort();
	if (e->line < 1 || (i > 0 && e->line <= ents[i - 1].line))
		abort();
	for (k = i + 1; k < n; k++) {
		if (strcmp(e->name, ents[k].name) == 0)
			abort();
	}
}

/* Parse the input as a Procfile, check the entries, free them. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct procfile_entry	*ents = NULL;
	char			*cause = NULL;
	size_t			 n = 0, i;

	if (procfile_parse((const char *)data, size, &ents, &n, &cause) != 0) {
		fuzz_procfile_cause(cause);
		free(cause);
		return 0;
	}
	if (cause != NULL || n > PROCFILE_MAX_ENTRIES ||
	    (n > 0 && ents == NULL))
		abort();
	for (i = 0; i < n; i++)
		fuzz_procfile_entry(ents, n, i);
	procfile_free(ents, n);
	return 0;
}

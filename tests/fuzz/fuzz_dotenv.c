/*
 * fuzz_dotenv.c: fuzz target for env files (include/dotenv.h).  The input
 * is a dotenv file, parsed with a lookup that knows OUTER (a value that
 * looks like more expansions and quotes) and EMPTY.  The promises checked,
 * from dotenv.h and the rules at the top of src/dotenv.c:
 *
 *   - entries or a cause, never both; a cause is "NAME:LINE:COL: message"
 *     with LINE and COL from 1, or "NAME: larger than ..." for an input
 *     over DOTENV_MAX_SIZE;
 *   - the array is NULL-terminated, at most DOTENV_MAX_ENTRIES entries,
 *     each "NAME=VALUE" with NAME an identifier (name_is_ident()), no name
 *     twice, and the values at most DOTENV_MAX_OUTPUT bytes in all;
 *   - written back as NAME="VALUE" with \\, \", \$ and \n escapes, the
 *     entries parse again, with no lookup, to exactly themselves: every
 *     value a parse gives can be written in the format.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dotenv.h"
#include "fuzz.h"
#include "name.h"
#include "xmalloc.h"

/* The name every message starts with. */
#define FUZZ_DOTENV_NAME	"fuzz.env"

/* The lookup of the first parse: the caller's environment. */
static const char *
fuzz_dotenv_lookup(const char *name, void *arg)
{
	(void)arg;
	if (strcmp(name, "OUTER") == 0)
		return "${EMPTY:-x} $OUTER \"'\\n";
	if (strcmp(name, "EMPTY") == 0)
		return "";
	return NULL;
}

/* Abort unless cause is "NAME:LINE:COL: message" or a size error. */
static void
fuzz_dotenv_cause(const char *cause, size_t size)
{
	const char	*s;
	int		 i;

	if (cause == NULL || strncmp(cause, FUZZ_DOTENV_NAME,
	    strlen(FUZZ_DOTENV_NAME)) != 0)
		abort();
	s = cause + strlen(FUZZ_DOTENV_NAME);
	if (size > DOTENV_MAX_SIZE) {
		if (strncmp(s, ": larger than ", 14) != 0)
			abort();
		return;
	}
	for (i = 0; i < 2; i++) {
		if (*s++ != ':' || *s < '1' || *s > '9')
			abort();
		while (*s >= '0' && *s <= '9')
			s++;
	}
	if (s[0] != ':' || s[1] != ' ' || s[2] == '\0')
		abort();
}

/* Return the entries written back as NAME="VALUE" lines; *len set. */
static char *
fuzz_dotenv_write(char **kv, size_t n, size_t *len)
{
	const char	*p;
	char		*out, *o;
	size_t		 i, size = 1;

	for (i = 0; i < n; i++)
		size += 2 * strlen(kv[i]) + 4;
	out = o = xmalloc(size);
	for (i = 0; i < n; i++) {
		for (p = kv[i]; *p != '='; p++)
			*o++ = *p;
		*o++ = '=';
		*o++ = '"';
		for (p++; *p != '\0'; p++) {
			if (*p == '\\' || *p == '"' || *p == '$')
				*o++ = '\\';
			if (*p == '\n') {
				*o++ = '\\';
				*o++ = 'n';
			} else
				*o++ = *p;
		}
		*o++ = '"';
		*o++ = '\n';
	}
	*len = (size_t)(o - out);
	return out;
}

/* Parse the input, check the entries, write them back and parse again. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char	**kv = NULL, **again = NULL, *cause = NULL, *text, *eq;
	size_t	  n = 0, n2 = 0, i, k, total = 0, len;

	if (dotenv_parse(FUZZ_DOTENV_NAME, (const char *)data, size,
	    fuzz_dotenv_lookup, NULL, &kv, &n, &cause) != 0) {
		if (kv != NULL || n != 0)
			abort();
		fuzz_dotenv_cause(cause, size);
		free(cause);
		return 0;
	}
	if (cause != NULL || kv == NULL || kv[n] != NULL ||
	    n > DOTENV_MAX_ENTRIES)
		abort();
	for (i = 0; i < n; i++) {
		if ((eq = strchr(kv[i], '=')) == NULL ||
		    !name_is_ident(kv[i], (size_t)(eq - kv[i])))
			abort();
		total += strlen(eq + 1);
		for (k = 0; k < i; k++) {
			if (strncmp(kv[k], kv[i], (size_t)(eq - kv[i]) + 1) ==
			    0)
				abort();
		}
	}
	if (total > DOTENV_MAX_OUTPUT)
		abort();

	text = fuzz_dotenv_write(kv, n, &len);
	if (len <= DOTENV_MAX_SIZE) {
		if (dotenv_parse(FUZZ_DOTENV_NAME, text, len, NULL, NULL,
		    &again, &n2, &cause) != 0 || n2 != n)
			abort();
		for (i = 0; i < n; i++) {
			if (strcmp(kv[i], again[i]) != 0)
				abort();
		}
		dotenv_free(again, n2);
	}
	free(text);
	dotenv_free(kv, n);
	return 0;
}

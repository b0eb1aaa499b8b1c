/*
 * name.c: the rules for identifiers (environment variables, template
 * names) and job names; see include/name.h.  The character classes are
 * spelt out rather than taken from <ctype.h>, whose answers depend on the
 * locale.  Names quoted in messages are cut to 32 bytes, with control
 * characters shown as '?' (textesc_excerpt()).
 */
#include <stdlib.h>
#include <string.h>

#include "name.h"
#include "textesc.h"
#include "xmalloc.h"

/* Bytes of a name quoted in a message. */
#define NAME_EXCERPT_MAX	32

/*
 * Return 1 if c may appear in an identifier: a letter or '_', or also a
 * digit when it is not the first character.
 */
int
name_is_ident_char(int c, int first)
{
	if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_')
		return 1;
	return !first && c >= '0' && c <= '9';
}

/* Return 1 if s[0..len) is an identifier: [A-Za-z_][A-Za-z0-9_]*. */
int
name_is_ident(const char *s, size_t len)
{
	size_t	i;

	if (len == 0)
		return 0;
	for (i = 0; i < len; i++) {
		if (!name_is_ident_char((unsigned char)s[i], i == 0))
			return 0;
	}
	return 1;
}

/* Check an environment variable's name; 0, or -1 with *cause set. */
int
name_check_env(const char *s, char **cause)
{
	char	*e;

	if (name_is_ident(s, strlen(s)))
		return 0;
	e = textesc_excerpt(s, strlen(s), NAME_EXCERPT_MAX);
	*cause = xprintf("env name '%s' must be a letter or '_' followed by "
	    "letters, digits and '_'", e);
	free(e);
	return -1;
}

/*
 * Check a job name: [A-Za-z0-9_.-]+, not all digits and not starting with
 * '-' (commands take it as an operand after their options); 0, or -1
 * with *cause set.
 */
int
name_check_job(const char *s, char **cause)
{
	const char	*p;
	char		*e;
	int		 digits = 1;

	e = textesc_excerpt(s, strlen(s), NAME_EXCERPT_MAX);
	if (*s == '\0') {
		*cause = xstrdup("a job name must not be empty");
		goto fail;
	}
	for (p = s; *p != '\0'; p++) {
		if (*p >= '0' && *p <= '9')
			continue;
		digits = 0;
		if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		    *p == '_' || *p == '.' || *p == '-')
			continue;
		*cause = xprintf("job name '%s' may only have letters, "
		    "digits, '_', '.' and '-'", e);
		goto fail;
	}
	if (*s == '-') {
		*cause = xprintf("job name '%s' must not start with '-' (it "
		    "would read as an option)", e);
		goto fail;
	}
	if (digits) {
		*cause = xprintf("job name '%s' must not be all digits (ids "
		    "are numbers)", e);
		goto fail;
	}
	free(e);
	return 0;

fail:
	free(e);
	return -1;
}

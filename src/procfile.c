/*
 * procfile.c: parse a Procfile (foreman, honcho, overmind) into entries.
 *
 * The format has no specification; foreman's README and its line pattern
 * ^([A-Za-z0-9_-]+):\s*(.+)$ are the reference.  Lines end at \n, and a \r
 * before it goes with the other trailing blanks, so CRLF files work.  A line
 * that is blank (spaces, tabs, \r, \f, \v), or whose first non-blank is '#',
 * is skipped.  Every other line is NAME ':' COMMAND, split at the first ':'
 * so commands may hold colons; blanks around the name and the command are
 * dropped.  A UTF-8 byte order mark at the start of the file is skipped.
 * NAME follows jobdeck's one rule for job names (name_check_job():
 * [A-Za-z0-9_.-]+, not all digits), so control characters never get in.
 *
 * Deviations: foreman silently ignores lines that do not match; here they
 * are errors, as are names given twice (foreman keeps the last), so a typo
 * never drops a process.  Blanks before the ':' are allowed; so are '.' in
 * a name, and names of digits alone are not (a number is a job's id).
 *
 * Errors ("LINE: message", LINE counting from 1):
 *	expected 'name: command'		no ':', or nothing before it
 *	job name 'we b' may only have ...	see name_check_job()
 *	job name '12' must not be all digits
 *	empty command for 'web'
 *	duplicate name 'web' (first on line 2)
 *	NUL byte in line
 *	line longer than 65536 bytes
 *	more than 256 entries
 */
#include <stdlib.h>
#include <string.h>

#include "name.h"
#include "procfile.h"
#include "xmalloc.h"

static int	 procfile_is_blank(char);

/* Return 1 if c is a blank that surrounds names and commands. */
static int
procfile_is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

/*
 * Parse the len bytes at buf (no terminator needed) into *out and *n; return
 * 0, or -1 with *out NULL, *n 0 and *cause set.  See the top of the file.
 */
int
procfile_parse(const char *buf, size_t len, struct procfile_entry **out,
    size_t *n, char **cause)
{
	struct procfile_entry	*ents = NULL;
	const char		*p, *end, *eol, *nl, *s, *e, *colon, *ne;
	char			*name, *why = NULL;
	size_t			 nents = 0, line = 0, i;

	*out = NULL;
	*n = 0;
	if (buf == NULL || len == 0)
		return 0;
	p = buf;
	end = buf + len;
	if (len >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
		p += 3;

	for (; p < end; p = nl == NULL ? end : nl + 1) {
		line++;
		nl = memchr(p, '\n', (size_t)(end - p));
		eol = nl == NULL ? end : nl;
		if (memchr(p, '\0', (size_t)(eol - p)) != NULL) {
			*cause = xprintf("%zu: NUL byte in line", line);
			goto fail;
		}
		if ((size_t)(eol - p) > PROCFILE_MAX_LINE) {
			*cause = xprintf("%zu: line longer than %d bytes", line,
			    PROCFILE_MAX_LINE);
			goto fail;
		}

		for (s = p; s < eol && procfile_is_blank(*s); s++)
			/* nothing */;
		for (e = eol; e > s && procfile_is_blank(e[-1]); e--)
			/* nothing */;
		if (s == e || *s == '#')
			continue;

		colon = memchr(s, ':', (size_t)(e - s));
		for (ne = colon; ne != NULL && ne > s &&
		    procfile_is_blank(ne[-1]); ne--)
			/* nothing */;
		if (colon == NULL || ne == s) {
			*cause = xprintf("%zu: expected 'name: command'", line);
			goto fail;
		}
		name = xstrndup(s, (size_t)(ne - s));
		if (name_check_job(name, &why) != 0) {
			*cause = xprintf("%zu: %s", line, why);
			free(why);
			goto fail_name;
		}
		for (colon++; colon < e && procfile_is_blank(*colon); colon++)
			/* nothing */;
		if (colon == e) {
			*cause = xprintf("%zu: empty command for '%s'", line,
			    name);
			goto fail_name;
		}
		for (i = 0; i < nents; i++) {
			if (strcmp(ents[i].name, name) == 0) {
				*cause = xprintf("%zu: duplicate name '%s' "
				    "(first on line %zu)", line, name,
				    ents[i].line);
				goto fail_name;
			}
		}
		if (nents == PROCFILE_MAX_ENTRIES) {
			*cause = xprintf("%zu: more than %d entries", line,
			    PROCFILE_MAX_ENTRIES);
			goto fail_name;
		}

		ents = xreallocarray(ents, nents + 1, sizeof *ents);
		ents[nents].name = name;
		ents[nents].command = xstrndup(colon, (size_t)(e - colon));
		ents[nents].line = line;
		nents++;
	}
	*out = ents;
	*n = nents;
	return 0;

fail_name:
	free(name);
fail:
	procfile_free(ents, nents);
	return -1;
}

/* Free n entries from procfile_parse() and the array; NULL is ignored. */
void
procfile_free(struct procfile_entry *ents, size_t n)
{
	size_t	i;

	if (ents == NULL)
		return;
	for (i = 0; i < n; i++) {
		free(ents[i].name);
		free(ents[i].command);
	}
	free(ents);
}

/*
 * textesc.c: control characters and bytes that are not UTF-8 written as
 * visible escapes, so no job name, command or message can drive the
 * terminal of whoever reads it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "textesc.h"
#include "utf8.h"
#include "xmalloc.h"

/* Return whether the byte b is one a terminal acts on (C0 or DEL). */
static int
textesc_is_control(unsigned char b)
{
	return b < 0x20 || b == 0x7f;
}

/*
 * Look at the character that starts p (len bytes left): return how many
 * bytes it takes, and write its escape into esc (at most 7 bytes and the
 * NUL), or leave esc empty when the character is safe as it is.
 */
static size_t
textesc_next(const unsigned char *p, size_t len, char esc[8])
{
	static const char	 names[] = "\033e\aa\bb\tt\nn\rr\vv\ff";
	const char		*k;
	uint32_t		 cp;
	int			 n;

	esc[0] = '\0';
	if (p[0] < 0x80) {
		if (!textesc_is_control(p[0]))
			return 1;
		k = p[0] != 0 ? memchr(names, p[0], sizeof names - 1) : NULL;
		if (k != NULL && (k - names) % 2 == 0)
			snprintf(esc, 8, "\\%c", k[1]);
		else
			snprintf(esc, 8, "\\x%02x", p[0]);
		return 1;
	}
	if ((n = utf8_decode(p, len, &cp)) < 0) {
		snprintf(esc, 8, "\\x%02x", p[0]);
		return 1;
	}
	if (cp <= 0x9f)
		snprintf(esc, 8, "\\u%04x", (unsigned)cp);
	return (size_t)n;
}

/* Return whether s (len bytes) holds anything a terminal would act on. */
int
textesc_needed(const char *s, size_t len)
{
	const unsigned char	*p = (const unsigned char *)s;
	char			 esc[8];
	size_t			 i = 0;

	while (i < len) {
		i += textesc_next(p + i, len - i, esc);
		if (esc[0] != '\0')
			return 1;
	}
	return 0;
}

/* Return a copy of s (len bytes) with everything unsafe escaped. */
char *
textesc_visible(const char *s, size_t len)
{
	const unsigned char	*p = (const unsigned char *)s;
	char			 esc[8], *out, *o;
	size_t			 i, n, size = 1;

	/* Measure, then write: the copy is no bigger than it must be. */
	for (i = 0; i < len; i += n) {
		n = textesc_next(p + i, len - i, esc);
		size += esc[0] != '\0' ? strlen(esc) : n;
	}
	out = o = xmalloc(size);
	for (i = 0; i < len; i += n) {
		n = textesc_next(p + i, len - i, esc);
		if (esc[0] != '\0')
			o = stpcpy(o, esc);
		else {
			memcpy(o, p + i, n);
			o += n;
		}
	}
	*o = '\0';
	return out;
}

/*
 * Return a copy of s[0..len) fit for a message: at most max bytes (cut at
 * a UTF-8 boundary, then "..."), with what a terminal would obey escaped
 * as textesc_visible() escapes it everywhere ("\e", "\x00", "\u009b").
 */
char *
textesc_excerpt(const char *s, size_t len, size_t max)
{
	char	*e, *r;
	size_t	 n = len;

	if (n > max)
		n = utf8_cut(s, max);
	e = textesc_visible(s, n);
	if (n == len)
		return e;
	r = xprintf("%s...", e);
	free(e);
	return r;
}

/*
 * textesc.c: control characters and bytes that are not UTF-8 written as
 * visible escapes, so no job name, command or message can drive the
 * terminal of whoever reads it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "textesc.h"
#include "xmalloc.h"

/*
 * Return the length of the valid UTF-8 sequence of at least two bytes at
 * s (of len bytes), or 0 if none starts there.
 */
static size_t
textesc_utf8_len(const unsigned char *s, size_t len)
{
	size_t		n, i;
	unsigned int	cp;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (len < n)
		return 0;
	cp = s[0] & (0x7f >> n);
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates and code points past U+10FFFF. */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

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
	size_t			 n;

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
	if ((n = textesc_utf8_len(p, len)) == 0) {
		snprintf(esc, 8, "\\x%02x", p[0]);
		return 1;
	}
	if (p[0] == 0xc2 && p[1] < 0xa0)
		snprintf(esc, 8, "\\u%04x", p[1]);
	return n;
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

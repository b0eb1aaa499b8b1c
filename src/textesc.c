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

/* Return a copy of s (len bytes) with everything unsafe escaped. */
char *
textesc_visible(const char *s, size_t len)
{
	static const char	 names[] = "\033e\aa\bb\tt\nn\rr\vv\ff";
	const unsigned char	*p = (const unsigned char *)s;
	const char		*k;
	char			*out, *o;
	size_t			 i = 0, n;

	/* At most six bytes out (\u0085) for each two in, four for one. */
	out = o = xmalloc(len * 4 + 1);
	while (i < len) {
		if (p[i] < 0x80 && !textesc_is_control(p[i])) {
			*o++ = (char)p[i++];
			continue;
		}
		if (p[i] < 0x80) {
			k = p[i] != 0 ? memchr(names, p[i], sizeof names - 1) :
			    NULL;
			if (k != NULL && (k - names) % 2 == 0)
				o += sprintf(o, "\\%c", k[1]);
			else
				o += sprintf(o, "\\x%02x", p[i]);
			i++;
			continue;
		}
		n = textesc_utf8_len(p + i, len - i);
		if (n == 0) {
			o += sprintf(o, "\\x%02x", p[i]);
			i++;
		} else if (p[i] == 0xc2 && p[i + 1] < 0xa0) {
			o += sprintf(o, "\\u%04x", p[i + 1]);
			i += 2;
		} else {
			memcpy(o, p + i, n);
			o += n;
			i += n;
		}
	}
	*o = '\0';
	return out;
}

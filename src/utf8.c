/*
 * utf8.c: UTF-8 decoded, checked, encoded and cut in one place (see
 * utf8.h for what counts as valid and what one U+FFFD stands for).
 *
 * Which bytes may follow a lead byte is RFC 3629's table: the second
 * byte's range is narrowed after E0 and F0 (no overlong forms), ED (no
 * surrogates) and F4 (nothing above U+10FFFF); C0, C1 and F5 to FF start
 * nothing.  So a sequence that passes the table is valid, and no code
 * point has to be checked after it is assembled.
 */
#include <stddef.h>
#include <stdint.h>

#include "utf8.h"

/*
 * Return the length of the character that lead byte b starts (2 to 4),
 * with the range its second byte must be in; 0 if b starts none.
 */
static int
utf8_lead(uint8_t b, uint8_t *lo, uint8_t *hi)
{
	*lo = 0x80;
	*hi = 0xbf;
	if (b >= 0xc2 && b <= 0xdf)
		return 2;
	if (b >= 0xe0 && b <= 0xef) {
		if (b == 0xe0)
			*lo = 0xa0;	/* overlong below U+0800 */
		else if (b == 0xed)
			*hi = 0x9f;	/* surrogates */
		return 3;
	}
	if (b >= 0xf0 && b <= 0xf4) {
		if (b == 0xf0)
			*lo = 0x90;	/* overlong below U+10000 */
		else if (b == 0xf4)
			*hi = 0x8f;	/* above U+10FFFF */
		return 4;
	}
	return 0;
}

/*
 * Decode as utf8_decode() does; *more is set when the bytes are a valid
 * start that len cut short, so a stream can wait for the rest.
 */
static int
utf8_scan(const uint8_t *p, size_t len, uint32_t *cp, int *more)
{
	uint8_t		lo, hi;
	uint32_t	c;
	int		need, i;

	*cp = UTF8_REPLACEMENT;
	*more = 0;
	if (len == 0)
		return 0;
	if (p[0] < 0x80) {
		*cp = p[0];
		return 1;
	}
	if ((need = utf8_lead(p[0], &lo, &hi)) == 0)
		return -1;
	c = p[0] & (0x7f >> need);
	for (i = 1; i < need; i++) {
		if ((size_t)i >= len) {
			*more = 1;
			return -i;
		}
		if (p[i] < lo || p[i] > hi)
			return -i;
		c = c << 6 | (p[i] & 0x3f);
		lo = 0x80;
		hi = 0xbf;
	}
	*cp = c;
	return need;
}

/*
 * Decode the character at the start of s (len bytes): return its length
 * (1 to 4) with its code point in *cp; where it is not valid, return
 * minus the length of its maximal subpart, with U+FFFD in *cp.  0 (and
 * U+FFFD) only for an empty s.
 */
int
utf8_decode(const void *s, size_t len, uint32_t *cp)
{
	int	more;

	return utf8_scan(s, len, cp, &more);
}

/* Return the offset of the first byte of s not in a valid character, or len. */
size_t
utf8_valid(const void *s, size_t len)
{
	const uint8_t	*p = s;
	size_t		 i = 0;
	uint32_t	 cp;
	int		 n;

	while (i < len) {
		if (p[i] < 0x80) {
			i++;
			continue;
		}
		if ((n = utf8_decode(p + i, len - i, &cp)) < 0)
			return i;
		i += (size_t)n;
	}
	return len;
}

/*
 * Write cp as UTF-8 into p (room for UTF8_MAX bytes) and return its
 * length; a surrogate or a value above U+10FFFF is written as U+FFFD.
 */
int
utf8_put(char *p, uint32_t cp)
{
	if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		cp = UTF8_REPLACEMENT;
	if (cp < 0x80) {
		p[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		p[0] = (char)(0xc0 | cp >> 6);
		p[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		p[0] = (char)(0xe0 | cp >> 12);
		p[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		p[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	p[0] = (char)(0xf0 | cp >> 18);
	p[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	p[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	p[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/*
 * Return where to cut s (which holds more than n bytes) at n bytes or
 * fewer without splitting a character: n, less the continuation bytes
 * (at most UTF8_MAX - 1, so a run of stray ones costs no more) that
 * s[n] would leave behind.
 */
size_t
utf8_cut(const void *s, size_t n)
{
	const uint8_t	*p = s;
	int		 back;

	for (back = 0; back < UTF8_MAX - 1 && n > 0 && (p[n] & 0xc0) == 0x80;
	    back++)
		n--;
	return n;
}

/*
 * Give the stream st its next byte b.  Return the length of the character
 * b completes (its bytes in st->b, its code point in *cp, ASCII included),
 * UTF8_MORE while it is incomplete, or, with U+FFFD in *cp and st empty
 * again, UTF8_BAD for a byte that starts no character or UTF8_CUT when b
 * cut a pending one short (b then goes in again, on its own).
 */
int
utf8_stream_byte(struct utf8_stream *st, uint8_t b, uint32_t *cp)
{
	int	n, more;

	st->b[st->len++] = b;
	n = utf8_scan(st->b, st->len, cp, &more);
	if (n > 0) {
		st->len = 0;
		return n;
	}
	if (more)
		return UTF8_MORE;
	n = st->len;
	st->len = 0;
	return n == 1 ? UTF8_BAD : UTF8_CUT;
}

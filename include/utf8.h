/*
 * utf8: the one place UTF-8 is read and written (RFC 3629).
 *
 * A character is valid when it is the shortest form of a Unicode scalar
 * value: no overlong form, no surrogate (U+D800 to U+DFFF), nothing above
 * U+10FFFF, and every byte it needs present.  Where the bytes are not a
 * valid character, the bytes that one U+FFFD stands for are their maximal
 * subpart (Unicode 15, section 3.9): a lead byte with as many of the
 * continuation bytes it needs as follow it, or one byte that cannot start
 * a character.
 *
 *  - utf8_decode(): the character at the start of a buffer, or the length
 *    of its maximal subpart; a buffer that ends inside a character ends
 *    in an invalid one.
 *  - utf8_valid(): where the first invalid character of a buffer starts.
 *  - utf8_put(): a code point written as UTF-8 (U+FFFD for one that is not
 *    a scalar value).
 *  - utf8_cut(): where to cut text so that no character is split.
 *  - struct utf8_stream: a character that may arrive a byte at a time,
 *    across feeds (the emulator's filter, rawtext).
 *
 * What a caller does with a control character or an invalid byte
 * (escape it, replace it, refuse the input) is the caller's rule; what is
 * valid is this file's.  No allocation: the caller owns every buffer.
 */
#ifndef JOBDECK_UTF8_H
#define JOBDECK_UTF8_H

#include <stddef.h>
#include <stdint.h>

#define UTF8_MAX		4	/* bytes of the longest character */
#define UTF8_REPLACEMENT	0xfffd	/* stands for what is not UTF-8 */

int	 utf8_decode(const void *, size_t, uint32_t *);
size_t	 utf8_valid(const void *, size_t);
int	 utf8_put(char *, uint32_t);
size_t	 utf8_cut(const void *, size_t);

/*
 * A character being read a byte at a time: the bytes it has so far.
 * Zeroed, it is empty; len is 0 again after every character it returns.
 */
struct utf8_stream {
	uint8_t	b[UTF8_MAX];
	uint8_t	len;
};

/* What utf8_stream_byte() returns when no character is complete. */
#define UTF8_MORE	0	/* the byte was taken: the character goes on */
#define UTF8_BAD	(-1)	/* the byte cannot start one: a U+FFFD */
#define UTF8_CUT	(-2)	/* it cut the one pending short: a U+FFFD, and
				   the byte must be given again */

int	 utf8_stream_byte(struct utf8_stream *, uint8_t, uint32_t *);

#endif

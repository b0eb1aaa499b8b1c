/*
 * xmalloc.c: allocation wrappers that call fatal() instead of returning
 * NULL, so callers never carry out-of-memory paths.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fatal.h"
#include "xmalloc.h"

/* Allocate size bytes (at least one) or die. */
void *
xmalloc(size_t size)
{
	void	*p;

	p = malloc(size == 0 ? 1 : size);
	if (p == NULL)
		fatal("out of memory allocating %zu bytes", size);
	return p;
}

/* Allocate a zeroed array of n elements of size bytes or die. */
void *
xcalloc(size_t n, size_t size)
{
	void	*p;

	if (n == 0 || size == 0)
		n = size = 1;
	p = calloc(n, size);
	if (p == NULL)
		fatal("out of memory allocating %zu x %zu bytes", n, size);
	return p;
}

/* Resize p to n elements of size bytes, checking for overflow, or die. */
void *
xreallocarray(void *p, size_t n, size_t size)
{
	void	*q;

	if (size != 0 && n > SIZE_MAX / size)
		fatal("array of %zu x %zu bytes overflows", n, size);
	q = realloc(p, n * size == 0 ? 1 : n * size);
	if (q == NULL)
		fatal("out of memory reallocating %zu x %zu bytes", n, size);
	return q;
}

/* Duplicate a string or die. */
char *
xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

/* Duplicate at most n bytes of s, always terminated, or die. */
char *
xstrndup(const char *s, size_t n)
{
	char	*p;
	size_t	 len;

	len = strnlen(s, n);
	p = xmalloc(len + 1);
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

/* Format ap into a newly allocated string or die. */
char *
xvprintf(const char *fmt, va_list ap)
{
	char	*s;

	if (vasprintf(&s, fmt, ap) < 0)
		fatal("out of memory formatting \"%s\"", fmt);
	return s;
}

/* Format into a newly allocated string or die. */
char *
xprintf(const char *fmt, ...)
{
	va_list	 ap;
	char	*s;

	va_start(ap, fmt);
	s = xvprintf(fmt, ap);
	va_end(ap);
	return s;
}

/* Append len bytes to b, keeping a NUL after them; it cannot fail. */
void
xbuf_add(struct xbuf *b, const void *p, size_t len)
{
	if (b->len + len + 1 > b->size) {
		b->size = (b->len + len + 1) * 2;
		b->s = xreallocarray(b->s, b->size, 1);
	}
	memcpy(b->s + b->len, p, len);
	b->len += len;
	b->s[b->len] = '\0';
}

/* Free what b holds and make it empty. */
void
xbuf_clear(struct xbuf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->size = 0;
}

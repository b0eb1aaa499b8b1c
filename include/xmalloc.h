/*
 * xmalloc: allocation that cannot fail.  Out of memory is one of the two
 * cases fatal() exists for, so these wrappers abort with a message instead
 * of returning NULL.  Every pointer they return is owned by the caller and
 * released with free().
 */
#ifndef JOBDECK_XMALLOC_H
#define JOBDECK_XMALLOC_H

#include <stdarg.h>
#include <stddef.h>

void	*xmalloc(size_t);
void	*xcalloc(size_t, size_t);
void	*xreallocarray(void *, size_t, size_t);
char	*xstrdup(const char *);
char	*xstrndup(const char *, size_t);
char	*xprintf(const char *, ...) __attribute__((format(printf, 1, 2)));
char	*xvprintf(const char *, va_list) __attribute__((format(printf, 1, 0)));

/* A growable string: s (NUL after its len bytes, or NULL while empty). */
struct xbuf {
	char	*s;
	size_t	 len;
	size_t	 size;
};

void	 xbuf_add(struct xbuf *, const void *, size_t);
void	 xbuf_clear(struct xbuf *);

#endif

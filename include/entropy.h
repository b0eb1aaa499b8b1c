/*
 * entropy: random bytes from the kernel, for whatever must not be
 * guessed or repeated (the store's ids, the session shell's markers).
 * getrandom(2) without blocking, else /dev/urandom (a kernel whose pool
 * is not ready yet, a seccomp filter without getrandom); never a
 * time- or pid-based stand-in: a caller that can live with one makes it
 * itself.
 */
#ifndef JOBDECK_ENTROPY_H
#define JOBDECK_ENTROPY_H

#include <stddef.h>

int	entropy_fill(void *buf, size_t len);

#endif

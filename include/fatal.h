/*
 * fatal: the last resort for broken invariants and out-of-memory.  It
 * restores nothing and prints to stderr; library modules report ordinary
 * errors through `char **cause` instead and never call it for user input.
 */
#ifndef JOBDECK_FATAL_H
#define JOBDECK_FATAL_H

void	fatal(const char *, ...)
	    __attribute__((noreturn, format(printf, 1, 2)));

#endif

/*
 * name: the rules for names a user gives, one function per rule, so that
 * every way in (the configuration, a Procfile, the prompt, the control
 * socket, jobdeck run) accepts the same names.
 *
 *   - An identifier, [A-Za-z_][A-Za-z0-9_]*, ASCII only whatever the
 *     locale: an environment variable's name (env, export, unset, --env)
 *     and a template's ${NAME} and {name}.
 *   - A job name, [A-Za-z0-9_.-]+, not only digits (a number is a job's
 *     id) and not starting with '-' (an option): no blank, no quote, no control character (ESC, BEL, C1, DEL)
 *     and no byte above 0x7e can reach a screen, a log file name or a JSON
 *     reply through it.
 *
 * name has no state, never prints and never exits.  Ownership: *cause is
 * an allocated message the caller frees.
 */
#ifndef JOBDECK_NAME_H
#define JOBDECK_NAME_H

#include <stddef.h>

int	name_is_ident_char(int c, int first);
int	name_is_ident(const char *s, size_t len);
int	name_check_env(const char *s, char **cause);
int	name_check_job(const char *s, char **cause);

#endif

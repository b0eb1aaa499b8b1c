/*
 * textesc: text that came from a job or a user, made safe to print on a
 * terminal.  Every byte that a terminal would act on rather than show --
 * the C0 controls, DEL, the C1 controls (as UTF-8, U+0080 to U+009F) and
 * bytes that are not UTF-8 -- is written as a visible escape: \e \a \b \t
 * \n \r \v \f for the usual ones, \xHH for any other byte, \uHHHH for a
 * C1 control.  Other characters, backslash included, stay as they are, so
 * plain text passes unchanged.  JSON has escapes of its own (json.c);
 * this is for text output.
 *
 * textesc_excerpt() is the form for a message: at most a given number of
 * bytes of the text (cut between characters, then "..."), escaped.
 *
 * Ownership: the returned string is the caller's to free.
 */
#ifndef JOBDECK_TEXTESC_H
#define JOBDECK_TEXTESC_H

#include <stddef.h>

char	*textesc_visible(const char *s, size_t len);
int	 textesc_needed(const char *s, size_t len);
char	*textesc_excerpt(const char *s, size_t len, size_t max);

#endif

/*
 * jobevent: a job's events as JSON lines, the one writer of them for
 * every stream (the control socket's `events`, a followed log): begin an
 * event with its kind and the job's id and end it as a line; "output"
 * events for lines read from the store (with their numbers) or for lines
 * of text that has no store; "exited" with how the job ended.
 *
 * Ownership: the lines returned and the text appended are the caller's;
 * the lines and the store's lines passed in stay the caller's.
 */
#ifndef JOBDECK_JOBEVENT_H
#define JOBDECK_JOBEVENT_H

#include <stddef.h>

struct job;
struct json_buf;
struct store_line;
struct xbuf;

void	 jobevent_begin(struct json_buf *, const char *kind, int id);
char	*jobevent_end(struct json_buf *, size_t *len);
void	 jobevent_output_lines(struct xbuf *, int id, char **lines,
	    int count);
void	 jobevent_output_store(struct xbuf *, int id,
	    const struct store_line *, int n);
void	 jobevent_output_named(struct xbuf *, int id, const char *name,
	    const struct store_line *, int n);
char	*jobevent_exited(struct job *, size_t *len);

#endif

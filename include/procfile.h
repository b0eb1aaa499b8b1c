/*
 * procfile: the Procfile convention of foreman, honcho and overmind.  Each
 * line is "name: command"; blank lines and # comments are skipped.  procfile
 * only parses: it never reads files, never prints and never exits.  Errors
 * come back in *cause as "LINE: message", and the caller puts the file name
 * in front ("Procfile:3: expected 'name: command'").
 *
 * Ownership: procfile_parse() gives the caller an array of entries, in file
 * order, that it releases with procfile_free(); *cause is freed with free().
 */
#ifndef JOBDECK_PROCFILE_H
#define JOBDECK_PROCFILE_H

#include <stddef.h>

/* Limits: entries in one file, and bytes in one line (without its \n). */
#define PROCFILE_MAX_ENTRIES	256
#define PROCFILE_MAX_LINE	65536

/* One "name: command" line. */
struct procfile_entry {
	char	*name;		/* name_check_job(): [A-Za-z0-9_.-]+ */
	char	*command;	/* trimmed, never empty */
	size_t	 line;		/* 1-based, for later messages */
};

int	procfile_parse(const char *buf, size_t len,
	    struct procfile_entry **out, size_t *n, char **cause);
void	procfile_free(struct procfile_entry *, size_t n);

#endif

/*
 * joblog: an append-only file of one job's raw output.  The directory is
 * created 0700 (with its parents) and the file 0600.  A write error (a full
 * disk, a removed directory) turns logging off for that job and records why;
 * the job itself goes on.
 *
 * Ownership: the caller owns the struct joblog; the joblog owns its fd.
 */
#ifndef JOBDECK_JOBLOG_H
#define JOBDECK_JOBLOG_H

#include <stddef.h>
#include <sys/types.h>

struct joblog;

struct joblog	*joblog_open(const char *dir, const char *name, char **cause);
void		 joblog_close(struct joblog *);
int		 joblog_write(struct joblog *, const void *buf, size_t len);
void		 joblog_idle(struct joblog *);
const char	*joblog_path(const struct joblog *);
const char	*joblog_error(const struct joblog *);
off_t		 joblog_size(const struct joblog *);

char		*joblog_default_dir(void);
int		 joblog_make_dir(const char *dir, char **cause);

#endif

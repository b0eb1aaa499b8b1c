/*
 * logmerge: the lines of several runs of the store as one log, in the
 * order they were written (the per-line times the store keeps), for a
 * merged !logs and `ctl logs ID ID...`.
 *
 * Each run added is a stream with a label (the caller's: which job it
 * is; several runs of one job share it).  Lines are ordered by their
 * time, then by the order the streams were added (so equal times keep
 * the order the jobs were given), then by their number in the run.  The
 * merged log's lines are numbered [first, count): a line's number is how
 * many lines of every stream come before it, lines the store's cap
 * dropped counting as before all others; so numbers stay put as runs
 * grow (new lines come later) and a line can be found by its number
 * without reading what is before it: a binary search of times over each
 * run's index (store_reader_find_time()).
 *
 * Reading is a k-way merge over one store reader per stream, each read
 * a window of lines at a time: memory is proportional to the lines asked
 * for times the streams, never to the runs' size.  logmerge_get() gives
 * lines by number (a view, backward as well as forward);
 * logmerge_next() goes on from where the last read ended, up to each
 * stream's limit (logmerge_limit(): a stream that must stop where its
 * run was when a command began, or at its complete lines while it is
 * followed).
 *
 * The order assumes each run's times never go backwards, as the store
 * writes them (wall time as output arrives); a run whose clock was set
 * back is merged as its times say, each line once.
 *
 * Ownership: the caller owns the struct logmerge; it owns its readers.
 * Lines given are the caller's (store_lines_free()).
 */
#ifndef JOBDECK_LOGMERGE_H
#define JOBDECK_LOGMERGE_H

#include <stdint.h>

struct logmerge;
struct store_line;

struct logmerge	*logmerge_new(const char *dir);
void		 logmerge_free(struct logmerge *);
int		 logmerge_add(struct logmerge *, const char *run, int label,
		    char **cause);
int		 logmerge_streams(const struct logmerge *);
int		 logmerge_label(const struct logmerge *, int stream);
const char	*logmerge_run(const struct logmerge *, int stream);
const char	*logmerge_damage(struct logmerge *, int stream);
int		 logmerge_refresh(struct logmerge *);
int64_t		 logmerge_first(const struct logmerge *);
int64_t		 logmerge_count(const struct logmerge *);
int		 logmerge_get(struct logmerge *, int64_t from, int64_t to,
		    int flags, struct store_line **lines, int **streams,
		    int *n);

/* logmerge_limit()'s: where each stream stops. */
#define LOGMERGE_ALL		0	/* its lines now, a partial one too */
#define LOGMERGE_COMPLETE	1	/* its complete lines now */
void		 logmerge_limit(struct logmerge *, int how);
void		 logmerge_seek(struct logmerge *, int64_t no);
int		 logmerge_next(struct logmerge *, int max, int flags,
		    struct store_line **lines, int **streams, int *n);
int		 logmerge_left(const struct logmerge *);

#endif

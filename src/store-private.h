/*
 * store-private.h: what store.c, store-meta.c, store-sweep.c and
 * store-id.c share: the store itself, run and deck ids, the run directory
 * and the meta file.  The files stand in floors: store-id.c uses none of
 * the others, store-meta.c only it, store.c and store-sweep.c those two.
 * Every path under the store is reached with openat() from a directory fd
 * and O_NOFOLLOW, so no symbolic link in the store is ever followed, and
 * every file through store_open_file(), so a FIFO or a device put where a
 * file should be is refused instead of blocking the deck's loop.
 */
#ifndef JOBDECK_STORE_PRIVATE_H
#define JOBDECK_STORE_PRIVATE_H

#include <sys/types.h>

#include <stdint.h>

#include "store.h"

#define STORE_META_MAX	(4 * 1024 * 1024)	/* bytes of a meta file */

/* The store and this deck's place in it. */
struct store {
	char			*dir;
	int			 runs_fd;	/* DIR/runs */
	int			 lock_fd;	/* DIR/decks/DECK.lock, flocked */
	char			 deck[STORE_ID_LEN + 1];
	struct store_limits	 lim;
};

/* store-id.c (store_id_valid() is in store.h) */
void	 store_id_new(char *id);
int64_t	 store_id_time(const char *id);

/* store.c */
int64_t	 store_segment_size(int64_t max_run_bytes);
int	 store_make_dir(const char *dir, char **cause);

/* store-meta.c */
int	 store_open_file(int dfd, const char *name, int flags, mode_t mode);
int	 store_write_all(int fd, const void *buf, size_t len);
const char *store_strerror(int error);
int	 store_open_sub(const char *dir, const char *sub, char **cause);
int	 store_open_run(const char *dir, const char *run, char **cause);
int	 store_meta_write(int run_fd, const struct store_meta *,
	     int64_t segment, char **cause);
int	 store_meta_load(int run_fd, const char *run, struct store_meta *,
	     int64_t *segment, char **cause);

#endif

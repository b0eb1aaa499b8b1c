/*
 * store-private.h: what store.c (the writer), store-reader.c,
 * store-lines.c, store-meta.c, store-sweep.c and store-id.c share: the
 * store itself, an index record, a reader, run and deck ids, the run
 * directory and the meta file.  The files stand in floors: store-id.c
 * uses none of the others, store-meta.c only it, store.c and
 * store-sweep.c those two; store-reader.c and store-lines.c read what
 * store.c writes (store-lines.c through store-reader.c).
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

#define STORE_SCAN_BLOCK	(1024 * 1024)	/* bytes scanned at once */
#define STORE_SCAN_MIN		4096		/* a scan reads at least */
#define STORE_REC_BLOCK		64		/* records read at once */

/* One index record: one write (or one piece of it), 32 bytes on disk. */
struct store_rec {
	uint64_t	off;		/* global offset of its first byte */
	uint64_t	line;		/* the line its first byte belongs to */
	int64_t		time;		/* wall ms */
	uint32_t	len;		/* bytes */
	uint8_t		stream;		/* enum store_stream */
	uint8_t		starts;		/* a line starts at off */
	uint8_t		pad[2];
};
_Static_assert(sizeof(struct store_rec) == 32, "an index record is 32 bytes");

/* One segment a reader sees. */
struct store_seg {
	int64_t		 no;
	int		 idx_fd;
	int		 out_fd;
	int64_t		 nrec;		/* records read (a cut: fewer) */
	struct store_rec first;		/* its first record, if nrec > 0 */
	struct store_rec last;		/* record nrec - 1, if nrec > 0 */
};

struct store_reader {
	char		 run[STORE_ID_LEN + 1];
	int		 dir_fd;
	int64_t		 seg;		/* segment size, from meta */
	struct store_seg *segs;		/* oldest first, consecutive */
	int		 nsegs;
	int64_t		 first;
	int64_t		 count;
	int		 partial;
	uint64_t	 bytes;		/* end of the bytes records cover */

	/*
	 * Damage: why the run is cut (NULL: it is whole), and where: no
	 * record is read from record cut_rec of segment cut_no on.  Kept
	 * across loads while that segment is kept.
	 */
	char		*why;
	int64_t		 cut_no;
	int64_t		 cut_rec;
	uint64_t	 written;	/* bytes the newest index says, or 0 */
	char		*text;		/* store_reader_damage()'s */

	/*
	 * Where the last read stopped: line at_line starts at at_off, and
	 * (after store_reader_get()) line at_line - 1 starts in record at_i
	 * of segment at_no, the last record it checked.
	 */
	int64_t		 at_line;	/* -1: nowhere */
	uint64_t	 at_off;
	int64_t		 at_no;		/* -1: not known */
	int64_t		 at_i;

	int		 cache_seg;	/* records cached: segs[cache_seg] */
	int64_t		 cache_base;	/* ... from this one */
	int		 cache_n;
	struct store_rec cache[STORE_REC_BLOCK];

	char		*win;		/* STORE_CHUNK_MAX bytes of output */
	uint64_t	 win_off;
	size_t		 win_len;
	char		*block;		/* store_reader_scan()'s buffer */
};

/* store-id.c (store_id_valid() is in store.h) */
void	 store_id_new(char *id);
int64_t	 store_id_time(const char *id);

/* store.c */
int64_t	 store_segment_size(int64_t max_run_bytes);
int	 store_make_dir(const char *dir, char **cause);
size_t	 store_count_nl(const char *buf, size_t len);

/* store-reader.c */
void	 store_reader_trim(struct store_reader *, int s, int64_t k,
	     char *why);
void	 store_reader_ends(struct store_reader *);
int	 store_reader_rec(struct store_reader *, int s, int64_t i,
	     struct store_rec *);
int	 store_reader_read(struct store_reader *, uint64_t off, char *buf,
	     size_t len);

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

/*
 * store-meta.c: a run's meta file, the list of runs and whether a deck is
 * alive.
 *
 * The meta file is text, one "key value" line per field (argv and env
 * repeat their key, one line per element), written to meta.tmp and
 * renamed over meta.  A value is escaped: backslash, newline, return and
 * tab as \\ \n \r \t, every other byte below 0x20 and 0x7f as \xHH; all
 * other bytes (UTF-8 or not) are written as they are.  The reader ignores
 * keys it does not know and refuses a malformed line with
 * "runs/RUN/meta:LINE: why".
 *
 * The last line, "room ....", is spare bytes the reader skips.  When the
 * disk is full, meta.tmp cannot be written, so the new text is written
 * over meta in place instead (the end of a run must reach its meta: a
 * run left "running" shows as lost later); that needs no new block as
 * long as the text fits in the bytes meta already has, and the room is
 * what lets the end of a run (its state, end time and status, some 40
 * bytes more than its start) fit.  meta.tmp is never left behind.
 */
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store-private.h"
#include "xmalloc.h"

#define STORE_META_VERSION	1
#define STORE_META_ROOM		64	/* bytes of the room line */
#define STORE_META_ROOM_MIN	6	/* "room \n" */

/* A growable buffer of the meta text. */
struct store_buf {
	char	*p;
	size_t	 len;
	size_t	 cap;
};

/* Append len bytes to b. */
static void
store_buf_add(struct store_buf *b, const char *s, size_t len)
{
	while (b->len + len + 1 > b->cap) {
		b->cap = b->cap == 0 ? 1024 : b->cap * 2;
		b->p = xreallocarray(b->p, b->cap, 1);
	}
	memcpy(b->p + b->len, s, len);
	b->len += len;
	b->p[b->len] = '\0';
}

/* Append the line "key value" with the value escaped. */
static void
store_buf_field(struct store_buf *b, const char *key, const char *value)
{
	static const char	 hex[] = "0123456789abcdef";
	const unsigned char	*v = (const unsigned char *)value;
	char			 esc[4];
	size_t			 plain;

	store_buf_add(b, key, strlen(key));
	store_buf_add(b, " ", 1);
	while (*v != '\0') {
		for (plain = 0; v[plain] >= 0x20 && v[plain] != 0x7f &&
		    v[plain] != '\\'; plain++)
			;
		store_buf_add(b, (const char *)v, plain);
		v += plain;
		if (*v == '\0')
			break;
		esc[0] = '\\';
		switch (*v) {
		case '\\':
			store_buf_add(b, "\\\\", 2);
			break;
		case '\n':
			store_buf_add(b, "\\n", 2);
			break;
		case '\r':
			store_buf_add(b, "\\r", 2);
			break;
		case '\t':
			store_buf_add(b, "\\t", 2);
			break;
		default:
			esc[1] = 'x';
			esc[2] = hex[*v >> 4];
			esc[3] = hex[*v & 0xf];
			store_buf_add(b, esc, 4);
			break;
		}
		v++;
	}
	store_buf_add(b, "\n", 1);
}

/* Append the line "key N". */
static void
store_buf_int(struct store_buf *b, const char *key, int64_t n)
{
	char	num[32];

	snprintf(num, sizeof num, "%" PRId64, n);
	store_buf_field(b, key, num);
}

/*
 * Open DIR/sub (runs or decks) as a directory fd, not following a link
 * there; -1 with *cause set if it is missing or not a directory.
 */
int
store_open_sub(const char *dir, const char *sub, char **cause)
{
	int	dfd, fd;

	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd == -1) {
		*cause = xprintf("%s: %s", dir, strerror(errno));
		return -1;
	}
	fd = openat(dfd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd == -1)
		*cause = xprintf("%s/%s: %s", dir, sub, strerror(errno));
	close(dfd);
	return fd;
}

/*
 * Open name in dfd as a regular file, with flags (O_NOFOLLOW, O_CLOEXEC
 * and O_NOCTTY added) and mode: opened with O_NONBLOCK, so that a FIFO or
 * a device put in its place cannot block the caller, checked with
 * fstat(), then O_NONBLOCK cleared.  -1 with errno; EINVAL when it is not
 * a regular file (store_strerror() words it).
 */
int
store_open_file(int dfd, const char *name, int flags, mode_t mode)
{
	struct stat	sb;
	int		fd, fl, error;

	fd = openat(dfd, name, flags | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC |
	    O_NOCTTY, mode);
	if (fd == -1) {
		/* O_WRONLY on a FIFO nobody reads, or a device not there. */
		if (errno == ENXIO)
			errno = EINVAL;
		return -1;
	}
	if (fstat(fd, &sb) != 0)
		error = errno;
	else if (!S_ISREG(sb.st_mode))
		error = EINVAL;
	else if ((fl = fcntl(fd, F_GETFL)) == -1 ||
	    fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) == -1)
		error = errno;
	else
		return fd;
	close(fd);
	errno = error;
	return -1;
}

/*
 * Return the words for errno error of a store file: strerror()'s, but
 * "not a regular file" for store_open_file()'s EINVAL.
 */
const char *
store_strerror(int error)
{
	return error == EINVAL ? "not a regular file" : strerror(error);
}

/* Open DIR/runs/RUN as a directory fd; the run id is checked first. */
int
store_open_run(const char *dir, const char *run, char **cause)
{
	int	runs_fd, fd;

	if (run == NULL || !store_id_valid(run)) {
		*cause = xprintf("bad run id: \"%s\"", run == NULL ? "" : run);
		return -1;
	}
	if ((runs_fd = store_open_sub(dir, "runs", cause)) == -1)
		return -1;
	fd = openat(runs_fd, run, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (fd == -1) {
		if (errno == ENOENT)
			*cause = xprintf("no run %s in %s", run, dir);
		else
			*cause = xprintf("runs/%s: %s", run, strerror(errno));
	}
	close(runs_fd);
	return fd;
}

/* Write all of buf to fd; -1 with errno set (ENOSPC for no progress). */
int
store_write_all(int fd, const void *buf, size_t len)
{
	const char	*p = buf;
	ssize_t		 n;

	while (len > 0) {
		n = write(fd, p, len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = ENOSPC;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Append the room line: len bytes, STORE_META_ROOM_MIN at least. */
static void
store_buf_room(struct store_buf *b, size_t len)
{
	store_buf_add(b, "room ", 5);
	for (; len > STORE_META_ROOM_MIN; len--)
		store_buf_add(b, ".", 1);
	store_buf_add(b, "\n", 1);
}

/*
 * Write the text of b (len bytes of fields, then its room line) over the
 * run's meta file in place, when the fields fit in the bytes the file
 * has: the rest of them becomes the room line again (or is cut off when
 * too few for one).  -1 with errno, ENOSPC when it does not fit, and then
 * the file is untouched.
 */
static int
store_meta_in_place(int run_fd, struct store_buf *b, size_t len)
{
	struct stat	sb;
	size_t		done = 0;
	ssize_t		n;
	int		fd, error;

	if ((fd = store_open_file(run_fd, "meta", O_WRONLY, 0)) == -1)
		return -1;
	if (fstat(fd, &sb) != 0)
		error = errno;
	else if ((size_t)sb.st_size < len)
		error = ENOSPC;		/* it would need a new block */
	else
		error = 0;
	if (error != 0) {
		close(fd);
		errno = error;
		return -1;
	}
	b->len = len;
	if ((size_t)sb.st_size - len >= STORE_META_ROOM_MIN)
		store_buf_room(b, (size_t)sb.st_size - len);
	while (done < b->len) {
		n = pwrite(fd, b->p + done, b->len - done, (off_t)done);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0) {
			error = n == 0 ? ENOSPC : errno;
			close(fd);
			errno = error;
			return -1;
		}
		done += (size_t)n;
	}
	if ((b->len < (size_t)sb.st_size && ftruncate(fd, (off_t)b->len) !=
	    0) || close(fd) != 0)
		return -1;
	return 0;
}

/*
 * Write the meta file of the run in run_fd: the text to meta.tmp, then
 * renamed over meta; with no space for meta.tmp, over meta in place
 * (store_meta_in_place()).  On failure meta.tmp is removed.
 */
int
store_meta_write(int run_fd, const struct store_meta *m, int64_t segment,
    char **cause)
{
	struct store_buf	 b = { NULL, 0, 0 };
	size_t			 len;
	int			 fd, i, error, written = 0;

	store_buf_int(&b, "version", STORE_META_VERSION);
	store_buf_field(&b, "run", m->run);
	store_buf_field(&b, "deck", m->deck);
	store_buf_int(&b, "job", m->job);
	store_buf_int(&b, "start", m->start);
	if (m->name != NULL)
		store_buf_field(&b, "name", m->name);
	if (m->command != NULL)
		store_buf_field(&b, "command", m->command);
	for (i = 0; m->argv != NULL && m->argv[i] != NULL; i++)
		store_buf_field(&b, "argv", m->argv[i]);
	if (m->shell != NULL)
		store_buf_field(&b, "shell", m->shell);
	if (m->cwd != NULL)
		store_buf_field(&b, "cwd", m->cwd);
	for (i = 0; m->envp != NULL && m->envp[i] != NULL; i++)
		store_buf_field(&b, "env", m->envp[i]);
	store_buf_int(&b, "pty", m->pty);
	store_buf_int(&b, "pid", m->pid);
	store_buf_int(&b, "started", m->started);
	store_buf_int(&b, "ended", m->ended);
	if (m->state != NULL)
		store_buf_field(&b, "state", m->state);
	if (m->has_status)
		store_buf_int(&b, "status", m->status);
	store_buf_int(&b, "segment", segment);
	len = b.len;
	store_buf_room(&b, STORE_META_ROOM);

	fd = store_open_file(run_fd, "meta.tmp", O_WRONLY | O_CREAT | O_TRUNC,
	    0600);
	if (fd != -1 && store_write_all(fd, b.p, b.len) == 0) {
		if (close(fd) == 0 && renameat(run_fd, "meta.tmp", run_fd,
		    "meta") == 0) {
			free(b.p);
			return 0;
		}
		written = 1;	/* so close or rename failed */
		fd = -1;
	}
	error = errno;
	if (fd != -1)
		close(fd);
	unlinkat(run_fd, "meta.tmp", 0);
	if ((error == ENOSPC || error == EDQUOT) &&
	    store_meta_in_place(run_fd, &b, len) == 0) {
		free(b.p);
		return 0;
	}
	free(b.p);
	if (written)
		*cause = xprintf("runs/%s/meta: %s", m->run, strerror(error));
	else
		*cause = xprintf("%s, writing runs/%s/meta.tmp",
		    store_strerror(error), m->run);
	return -1;
}

/* Undo the escapes of a value in place; -1 if one is malformed. */
static int
store_unescape(char *s)
{
	char	*out = s;
	int	 hi, lo;

	for (; *s != '\0'; s++) {
		if (*s != '\\') {
			*out++ = *s;
			continue;
		}
		switch (*++s) {
		case '\\':
			*out++ = '\\';
			break;
		case 'n':
			*out++ = '\n';
			break;
		case 'r':
			*out++ = '\r';
			break;
		case 't':
			*out++ = '\t';
			break;
		case 'x':
			hi = s[1] >= '0' && s[1] <= '9' ? s[1] - '0' :
			    s[1] >= 'a' && s[1] <= 'f' ? s[1] - 'a' + 10 : -1;
			lo = hi == -1 ? -1 : s[2] >= '0' && s[2] <= '9' ?
			    s[2] - '0' : s[2] >= 'a' && s[2] <= 'f' ?
			    s[2] - 'a' + 10 : -1;
			if (lo == -1 || (hi << 4 | lo) == 0)
				return -1;
			*out++ = (char)(hi << 4 | lo);
			s += 2;
			break;
		default:
			return -1;
		}
	}
	*out = '\0';
	return 0;
}

/* Parse a decimal integer in [min, max]; -1 if it is not one. */
static int
store_parse_int(const char *s, int64_t min, int64_t max, int64_t *out)
{
	char		*end;
	long long	 v;

	if (*s == '\0' || (*s != '-' && (*s < '0' || *s > '9')))
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

/* Add a string to a NULL-terminated array. */
static char **
store_array_add(char **array, int *n, const char *s)
{
	array = xreallocarray(array, (size_t)*n + 2, sizeof *array);
	array[(*n)++] = xstrdup(s);
	array[*n] = NULL;
	return array;
}

/* Set one field of m from a line's key and (unescaped) value. */
static int
store_meta_field(struct store_meta *m, const char *key, const char *value,
    int *nargv, int *nenv, int64_t *segment, const char **why)
{
	static const struct {
		const char	*key;
		size_t		 off;
	} strs[] = {
		{ "name", offsetof(struct store_meta, name) },
		{ "command", offsetof(struct store_meta, command) },
		{ "shell", offsetof(struct store_meta, shell) },
		{ "cwd", offsetof(struct store_meta, cwd) },
		{ "state", offsetof(struct store_meta, state) },
	};
	char		**field;
	int64_t		  v;
	size_t		  i;

	for (i = 0; i < sizeof strs / sizeof strs[0]; i++) {
		if (strcmp(key, strs[i].key) != 0)
			continue;
		field = (char **)((char *)m + strs[i].off);
		free(*field);
		*field = xstrdup(value);
		return 0;
	}
	if (strcmp(key, "argv") == 0) {
		m->argv = store_array_add(m->argv, nargv, value);
		return 0;
	}
	if (strcmp(key, "env") == 0) {
		m->envp = store_array_add(m->envp, nenv, value);
		return 0;
	}
	if (strcmp(key, "run") == 0 || strcmp(key, "deck") == 0) {
		if (!store_id_valid(value)) {
			*why = "bad id";
			return -1;
		}
		memcpy(key[0] == 'r' ? m->run : m->deck, value,
		    STORE_ID_LEN + 1);
		return 0;
	}
	if (strcmp(key, "room") == 0)
		return 0;	/* spare bytes (store_meta_write()) */
	if (strcmp(key, "version") == 0) {
		if (strcmp(value, "1") != 0) {
			*why = "unknown version";
			return -1;
		}
		return 0;
	}
	*why = "bad number";
	if (strcmp(key, "job") == 0 || strcmp(key, "start") == 0 ||
	    strcmp(key, "pty") == 0 || strcmp(key, "status") == 0) {
		if (store_parse_int(value, INT_MIN, INT_MAX, &v) != 0)
			return -1;
		if (key[0] == 'j')
			m->job = (int)v;
		else if (strcmp(key, "start") == 0)
			m->start = (int)v;
		else if (key[0] == 'p')
			m->pty = (int)v;
		else {
			m->status = (int)v;
			m->has_status = 1;
		}
		return 0;
	}
	if (strcmp(key, "pid") == 0) {
		if (store_parse_int(value, 0, INT_MAX, &v) != 0)
			return -1;
		m->pid = (pid_t)v;
		return 0;
	}
	if (strcmp(key, "started") == 0 || strcmp(key, "ended") == 0) {
		if (store_parse_int(value, 0, INT64_MAX, &v) != 0)
			return -1;
		if (key[0] == 's')
			m->started = v;
		else
			m->ended = v;
		return 0;
	}
	if (strcmp(key, "segment") == 0) {
		if (store_parse_int(value, 4096, INT64_MAX, &v) != 0 ||
		    v % 4096 != 0)
			return -1;
		*segment = v;
		return 0;
	}
	return 0;
}

/* Return 1 if key is one this version reads. */
static int
store_meta_known(const char *key)
{
	static const char	*keys[] = { "version", "run", "deck", "job",
	    "start", "name", "command", "argv", "shell", "cwd", "env", "pty",
	    "pid", "started", "ended", "state", "status", "segment", "room" };
	size_t			 i;

	for (i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		if (strcmp(key, keys[i]) == 0)
			return 1;
	}
	return 0;
}

/* Parse the meta text (NUL-terminated, modified) into m. */
static int
store_meta_parse(char *text, const char *run, struct store_meta *m,
    int64_t *segment, char **cause)
{
	char		*line, *next, *value;
	const char	*why;
	int		 no = 0, nargv = 0, nenv = 0;

	for (line = text; *line != '\0'; line = next) {
		no++;
		if ((next = strchr(line, '\n')) == NULL) {
			*cause = xprintf("runs/%s/meta:%d: no newline at the "
			    "end", run, no);
			return -1;
		}
		*next++ = '\0';
		if ((value = strchr(line, ' ')) == NULL || value == line) {
			*cause = xprintf("runs/%s/meta:%d: not \"key value\"",
			    run, no);
			return -1;
		}
		*value++ = '\0';
		if (!store_meta_known(line))
			continue;	/* a later version's */
		why = "bad escape";
		if (store_unescape(value) != 0 || store_meta_field(m, line,
		    value, &nargv, &nenv, segment, &why) != 0) {
			*cause = xprintf("runs/%s/meta:%d: %s: %s", run, no,
			    why, line);
			return -1;
		}
	}
	return 0;
}

/*
 * Read the meta file of the run in run_fd into m (cleared first) and the
 * segment size it was written with (0 if it says none).
 */
int
store_meta_load(int run_fd, const char *run, struct store_meta *m,
    int64_t *segment, char **cause)
{
	struct stat	 sb;
	char		*text;
	ssize_t		 n;
	size_t		 len = 0;
	int		 fd;

	memset(m, 0, sizeof *m);
	*segment = 0;
	fd = store_open_file(run_fd, "meta", O_RDONLY, 0);
	if (fd == -1 || fstat(fd, &sb) != 0) {
		*cause = xprintf("runs/%s/meta: %s", run,
		    store_strerror(errno));
		if (fd != -1)
			close(fd);
		return -1;
	}
	if (sb.st_size > STORE_META_MAX) {
		*cause = xprintf("runs/%s/meta: larger than 4 MiB", run);
		close(fd);
		return -1;
	}
	text = xmalloc((size_t)sb.st_size + 1);
	while (len < (size_t)sb.st_size) {
		n = read(fd, text + len, (size_t)sb.st_size - len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	text[len] = '\0';
	if (strlen(text) != len) {
		*cause = xprintf("runs/%s/meta: a NUL byte", run);
		free(text);
		return -1;
	}
	if (store_meta_parse(text, run, m, segment, cause) != 0) {
		free(text);
		store_meta_clear(m);
		return -1;
	}
	free(text);
	return 0;
}

/* Read the meta file of run in the store at dir into m. */
int
store_meta_read(const char *dir, const char *run, struct store_meta *m,
    char **cause)
{
	int64_t	segment;
	int	fd, r;

	memset(m, 0, sizeof *m);
	if ((fd = store_open_run(dir, run, cause)) == -1)
		return -1;
	r = store_meta_load(fd, run, m, &segment, cause);
	close(fd);
	return r;
}

/* Free a NULL-terminated array of strings. */
static void
store_array_free(char **array)
{
	int	i;

	for (i = 0; array != NULL && array[i] != NULL; i++)
		free(array[i]);
	free(array);
}

/* Copy a NULL-terminated array of strings (NULL stays NULL). */
static char **
store_array_copy(char **array)
{
	char	**copy;
	int	  i, n;

	if (array == NULL)
		return NULL;
	for (n = 0; array[n] != NULL; n++)
		;
	copy = xcalloc((size_t)n + 1, sizeof *copy);
	for (i = 0; i < n; i++)
		copy[i] = xstrdup(array[i]);
	return copy;
}

/* Free what m holds and zero it. */
void
store_meta_clear(struct store_meta *m)
{
	free(m->name);
	free(m->command);
	store_array_free(m->argv);
	free(m->shell);
	free(m->cwd);
	store_array_free(m->envp);
	free(m->state);
	memset(m, 0, sizeof *m);
}

/* Make dst a deep copy of src (dst's old contents are not freed). */
void
store_meta_copy(struct store_meta *dst, const struct store_meta *src)
{
	*dst = *src;
	dst->name = src->name == NULL ? NULL : xstrdup(src->name);
	dst->command = src->command == NULL ? NULL : xstrdup(src->command);
	dst->argv = store_array_copy(src->argv);
	dst->shell = src->shell == NULL ? NULL : xstrdup(src->shell);
	dst->cwd = src->cwd == NULL ? NULL : xstrdup(src->cwd);
	dst->envp = store_array_copy(src->envp);
	dst->state = src->state == NULL ? NULL : xstrdup(src->state);
}

/* Order run ids oldest first (they sort by time). */
static int
store_list_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * List the runs in the store at dir, oldest first; names that are not run
 * ids are skipped.  A store with no runs directory has no runs.
 */
int
store_list(const char *dir, char ***runs, int *count, char **cause)
{
	DIR		 *d;
	struct dirent	 *de;
	char		**list = NULL;
	int		  fd, n = 0, alloc = 0;

	*runs = NULL;
	*count = 0;
	if ((fd = store_open_sub(dir, "runs", cause)) == -1) {
		if (errno != ENOENT)
			return -1;
		free(*cause);
		*cause = NULL;
		return 0;
	}
	if ((d = fdopendir(fd)) == NULL) {
		*cause = xprintf("%s/runs: %s", dir, strerror(errno));
		close(fd);
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		if (!store_id_valid(de->d_name))
			continue;
		if (n == alloc) {
			alloc = alloc == 0 ? 64 : alloc * 2;
			list = xreallocarray(list, (size_t)alloc, sizeof *list);
		}
		list[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (n > 0)
		qsort(list, (size_t)n, sizeof *list, store_list_cmp);
	*runs = list;
	*count = n;
	return 0;
}

/* Free what store_list() returned. */
void
store_list_free(char **runs, int count)
{
	int	i;

	for (i = 0; i < count; i++)
		free(runs[i]);
	free(runs);
}

/*
 * Return 1 if deck's lock file is held by a live process (this one
 * included), 0 if the deck is dead or unknown: the lock is tried on a
 * fresh open file, so even this process's own lock refuses it.
 */
int
store_deck_alive(const char *dir, const char *deck)
{
	char	 name[STORE_ID_LEN + 8], *cause = NULL;
	int	 dfd, fd, alive;

	if (deck == NULL || !store_id_valid(deck))
		return 0;
	if ((dfd = store_open_sub(dir, "decks", &cause)) == -1) {
		free(cause);
		return 0;
	}
	snprintf(name, sizeof name, "%s.lock", deck);
	fd = store_open_file(dfd, name, O_RDONLY, 0);
	close(dfd);
	if (fd == -1)
		return 0;
	if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
		flock(fd, LOCK_UN);
		alive = 0;
	} else
		alive = errno == EWOULDBLOCK;
	close(fd);
	return alive;
}

/* Return a new string: the directory of run in the store at dir. */
char *
store_run_path(const char *dir, const char *run)
{
	return xprintf("%s/runs/%s", dir, run);
}

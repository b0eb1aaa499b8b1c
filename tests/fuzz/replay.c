/*
 * replay.c: the plain driver for a fuzz target, without libFuzzer.  Each
 * argument is a file, or a directory whose files (not those starting with
 * '.', not subdirectories) are taken in name order; every file is read
 * whole and handed to LLVMFuzzerTestOneInput() once.  A target that finds
 * a bug aborts (or a sanitizer stops it), so the exit status says it all;
 * on success it prints "NAME: N inputs replayed", and when a target aborts
 * (or AddressSanitizer stops it) it first names the input.
 *
 * `make test` links it with every fuzz_NAME.o and runs it on that target's
 * seed corpus and saved crashes (tests/fuzz/corpus/NAME, regress/NAME).
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"

void		__asan_on_error(void);

static int	replay_file(const char *);
static int	replay_dir(const char *);
static int	replay_compare(const void *, const void *);
static void	replay_blame(void);
static void	replay_abort(int);

static size_t		 replay_count;
static const char	*replay_current;

/* Name the input being replayed on stderr (async-signal-safe). */
static void
replay_blame(void)
{
	static const char	 msg[] = "replay: failed on ";
	size_t			 len;

	if (replay_current == NULL)
		return;
	len = strlen(replay_current);
	if (write(STDERR_FILENO, msg, sizeof msg - 1) == -1 ||
	    write(STDERR_FILENO, replay_current, len) == -1 ||
	    write(STDERR_FILENO, "\n", 1) == -1)
		return;
}

/* SIGABRT: a target found a bug; name the input, then die of it. */
static void
replay_abort(int sig)
{
	replay_blame();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* AddressSanitizer calls this before it reports an error. */
void
__asan_on_error(void)
{
	replay_blame();
}

/* Read path whole and run the target on it; 0, or -1 after a message. */
static int
replay_file(const char *path)
{
	FILE	*f;
	uint8_t	*buf = NULL, *p;
	size_t	 len = 0, size = 0, n;

	if ((f = fopen(path, "rb")) == NULL) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	for (;;) {
		if (len == size) {
			size = size == 0 ? 65536 : size * 2;
			if ((p = realloc(buf, size)) == NULL) {
				fprintf(stderr, "replay: out of memory\n");
				exit(1);
			}
			buf = p;
		}
		n = fread(buf + len, 1, size - len, f);
		if (n == 0)
			break;
		len += n;
	}
	if (ferror(f)) {
		fprintf(stderr, "replay: %s: read error\n", path);
		fclose(f);
		free(buf);
		return -1;
	}
	fclose(f);
	/* Exactly len bytes, so a read past the end is caught. */
	if ((p = malloc(len == 0 ? 1 : len)) == NULL) {
		fprintf(stderr, "replay: out of memory\n");
		exit(1);
	}
	memcpy(p, buf, len);
	free(buf);
	replay_current = path;
	LLVMFuzzerTestOneInput(p, len);
	replay_current = NULL;
	free(p);
	replay_count++;
	return 0;
}

/* Order two directory entry names for qsort. */
static int
replay_compare(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Replay every regular file of directory path, in name order. */
static int
replay_dir(const char *path)
{
	DIR		 *d;
	struct dirent	 *de;
	struct stat	  sb;
	char		**names = NULL, **tmp, *full;
	size_t		  n = 0, i;
	int		  rc = 0;

	if ((d = opendir(path)) == NULL) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if ((tmp = realloc(names, (n + 1) * sizeof *names)) == NULL ||
		    (tmp[n] = strdup(de->d_name)) == NULL) {
			fprintf(stderr, "replay: out of memory\n");
			exit(1);
		}
		names = tmp;
		n++;
	}
	closedir(d);
	if (n > 0)
		qsort(names, n, sizeof *names, replay_compare);
	for (i = 0; i < n; i++) {
		if ((full = malloc(strlen(path) + strlen(names[i]) + 2)) ==
		    NULL) {
			fprintf(stderr, "replay: out of memory\n");
			exit(1);
		}
		sprintf(full, "%s/%s", path, names[i]);
		if (stat(full, &sb) == 0 && S_ISREG(sb.st_mode) &&
		    replay_file(full) != 0)
			rc = -1;
		free(full);
		free(names[i]);
	}
	free(names);
	return rc;
}

/* Replay every file and directory named on the command line. */
int
main(int argc, char **argv)
{
	struct stat	 sb;
	const char	*name;
	int		 i, rc = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
	signal(SIGABRT, replay_abort);
	for (i = 1; i < argc; i++) {
		if (stat(argv[i], &sb) != 0) {
			fprintf(stderr, "replay: %s: %s\n", argv[i],
			    strerror(errno));
			rc = 1;
		} else if (S_ISDIR(sb.st_mode)) {
			if (replay_dir(argv[i]) != 0)
				rc = 1;
		} else if (replay_file(argv[i]) != 0)
			rc = 1;
	}
	if ((name = strrchr(argv[0], '/')) != NULL)
		name++;
	else
		name = argv[0];
	printf("%s: %zu inputs replayed\n", name, replay_count);
	return rc;
}

/*
 * testmnt.c: a tmpfs of a given size on a new directory, in a private
 * mount namespace of the test's process (see testmnt.h).
 */
#include <sys/mount.h>
#include <sys/stat.h>

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "skip.h"
#include "testmnt.h"

/*
 * Make dir (0700) and mount a tmpfs of bytes there, in this process's own
 * mount namespace; 0, or -1 after a SKIP line saying why test cannot.
 */
int
testmnt_tmpfs(const char *dir, size_t bytes, const char *test)
{
	const char	*fork_mode = getenv("CK_FORK");
	char		 opts[64];

	if (geteuid() != 0) {
		TEST_SKIP_LINE("%s: needs root to mount a tmpfs", test);
		return -1;
	}
	if (fork_mode != NULL && strcmp(fork_mode, "no") == 0) {
		TEST_SKIP_LINE("%s: CK_FORK=no would leak the mount", test);
		return -1;
	}
	if (unshare(CLONE_NEWNS) == -1 ||
	    mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) == -1) {
		TEST_SKIP_LINE("%s: no mount namespace: %s", test,
		    strerror(errno));
		return -1;
	}
	if (mkdir(dir, 0700) == -1 && errno != EEXIST) {
		TEST_SKIP_LINE("%s: %s: %s", test, dir, strerror(errno));
		return -1;
	}
	snprintf(opts, sizeof opts, "size=%zu,mode=0700", bytes);
	if (mount("tmpfs", dir, "tmpfs", 0, opts) == -1) {
		TEST_SKIP_LINE("%s: mount tmpfs on %s: %s", test, dir,
		    strerror(errno));
		return -1;
	}
	return 0;
}

/* Unmount what testmnt_tmpfs() mounted on dir (lazily) and remove dir. */
void
testmnt_umount(const char *dir)
{
	umount2(dir, MNT_DETACH);
	rmdir(dir);
}

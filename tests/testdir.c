/*
 * testdir.c: the scratch directories of the unit suites that make one
 * per test (probes, the browser, the Slurm cluster).
 */
#include <ftw.h>
#include <stdio.h>
#include <unistd.h>

#include "testdir.h"

/* Remove one entry of the tree nftw() walks, depth first. */
static int
testdir_remove_one(const char *path, const struct stat *st, int type,
    struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

/* Remove dir and everything under it (symbolic links are not followed). */
void
testdir_remove(const char *dir)
{
	nftw(dir, testdir_remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/*
 * testdir: a unit test's scratch directory removed with what it holds
 * (every file and directory under it, depth first; symbolic links are
 * removed, never followed).
 */
#ifndef JOBDECK_TESTDIR_H
#define JOBDECK_TESTDIR_H

void	testdir_remove(const char *dir);

#endif

/*
 * testdir: a unit test's scratch directory removed with what it holds
 * (files and empty directories one level down; nothing is followed).
 */
#ifndef JOBDECK_TESTDIR_H
#define JOBDECK_TESTDIR_H

void	testdir_remove(const char *dir);

#endif

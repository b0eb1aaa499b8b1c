/*
 * testmnt: a small tmpfs for a unit test that needs a file system that
 * really fills up (ENOSPC).  The mount is made in a mount namespace of
 * the test's own process (check forks one per test), so nothing outside
 * it sees the mount; a test that cannot have one (not root, CK_FORK=no,
 * no namespaces) is told why and skips (tests/skip.h).
 */
#ifndef JOBDECK_TESTMNT_H
#define JOBDECK_TESTMNT_H

#include <stddef.h>

int	testmnt_tmpfs(const char *dir, size_t bytes, const char *test);
void	testmnt_umount(const char *dir);

#endif

/*
 * testdir.c: the scratch directories of the unit suites that make one
 * per test (probes, the browser).
 */
#include <dirent.h>
#include <stdio.h>
#include <unistd.h>

#include "testdir.h"

/* Remove dir's entries (files, empty directories), then dir itself. */
void
testdir_remove(const char *dir)
{
	struct dirent	*de;
	DIR		*d;
	char		 path[4096];

	if ((d = opendir(dir)) != NULL) {
		while ((de = readdir(d)) != NULL) {
			if (de->d_name[0] == '.' && (de->d_name[1] == '\0' ||
			    (de->d_name[1] == '.' && de->d_name[2] == '\0')))
				continue;
			snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
			if (unlink(path) != 0)
				rmdir(path);
		}
		closedir(d);
	}
	rmdir(dir);
}

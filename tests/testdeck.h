/*
 * testdeck: what a test of commands runs on, made in one place: a new
 * temporary directory from a mkdtemp() template (dir, rewritten), a loop,
 * a job table on it with an output store in that directory (the default
 * limits) and a short kill grace; the test process made the reaper of
 * its jobs' orphans and SIGPIPE ignored.  The caller frees what it gets
 * (jobtable_free(), store_free(), loop_free()) and removes dir.
 */
#ifndef JOBDECK_TESTDECK_H
#define JOBDECK_TESTDECK_H

struct jobtable;
struct loop;
struct store;

void	testdeck_open(char *dir, struct loop **, struct jobtable **,
	    struct store **);

#endif

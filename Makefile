# jobdeck -- plain make.  Flags come from pkg-config (ncursesw, vterm, and
# check for the tests); `make run` and `make check` install what is missing
# first (scripts/deps.sh) and then re-run make, so pkg-config is only asked
# once the packages are there.

PREFIX	?= /usr/local
BINDIR	?= $(PREFIX)/bin
MANDIR	?= $(PREFIX)/share/man
DESTDIR	?=

CC	?= cc
PKG_CONFIG ?= pkg-config
VERSION	= 0.1.0

# One place for feature macros: _GNU_SOURCE covers POSIX, BSD (forkpty) and
# the Linux calls we use (pipe2, close_range, prctl).
WARN	= -Wall -Wextra -Werror
CSTD	= -std=c11 -D_GNU_SOURCE -DJOBDECK_VERSION='"$(VERSION)"'
OPT	?= -O2 -g
ifeq ($(SANITIZE),1)
OPT	= -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined
LDSAN	= -fsanitize=address,undefined
export UBSAN_OPTIONS = halt_on_error=1:print_stacktrace=1
export ASAN_OPTIONS = detect_leaks=1
endif
PKG_CFLAGS = $(shell $(PKG_CONFIG) --cflags ncursesw vterm)
PKG_LIBS   = $(shell $(PKG_CONFIG) --libs ncursesw vterm)
CHECK_CFLAGS = $(shell $(PKG_CONFIG) --cflags check)
CHECK_LIBS   = $(shell $(PKG_CONFIG) --libs check)
ALL_CFLAGS = $(CSTD) $(WARN) $(OPT) -Iinclude $(PKG_CFLAGS) -MMD -MP $(CFLAGS)
LIBS	= $(PKG_LIBS) -lutil $(LDSAN)

ifeq ($(SANITIZE),1)
B	= build/asan
TB	= tests/bin/asan
PROG	= build/asan/jobdeck
else
B	= build
TB	= tests/bin
PROG	= jobdeck
endif
LIB_SRCS = \
	src/fatal.c \
	src/xmalloc.c \
	src/loop.c \
	src/pty.c \
	src/vt.c \
	src/joblog.c \
	src/session.c \
	src/rawtext.c \
	src/job.c \
	src/jobtable.c \
	src/cmd.c \
	src/cmd-job.c \
	src/cmd-session.c \
	src/cmd-ui.c \
	src/keys.c \
	src/lineedit.c \
	src/ui.c \
	src/ui-draw.c \
	src/ui-pager.c
LIB_OBJS = $(LIB_SRCS:src/%.c=$(B)/%.o)

# Each unit suite links only the modules it tests.
BASE_OBJS = $(B)/fatal.o $(B)/xmalloc.o
CHECK_SUITES = loop pty vt joblog session job cmd keys lineedit rawtext
check_loop_OBJS	   = $(BASE_OBJS) $(B)/loop.o
check_pty_OBJS	   = $(BASE_OBJS) $(B)/pty.o
check_vt_OBJS	   = $(BASE_OBJS) $(B)/vt.o
check_joblog_OBJS  = $(BASE_OBJS) $(B)/joblog.o
check_session_OBJS = $(BASE_OBJS) $(B)/session.o
check_job_OBJS	   = $(BASE_OBJS) $(B)/loop.o $(B)/pty.o $(B)/vt.o \
		     $(B)/joblog.o $(B)/session.o $(B)/rawtext.o $(B)/job.o \
		     $(B)/jobtable.o
check_cmd_OBJS	   = $(check_job_OBJS) $(B)/cmd.o $(B)/cmd-job.o \
		     $(B)/cmd-session.o $(B)/cmd-ui.o
check_keys_OBJS	   = $(BASE_OBJS) $(B)/vt.o $(B)/keys.o
check_lineedit_OBJS = $(BASE_OBJS) $(B)/lineedit.o
check_rawtext_OBJS = $(BASE_OBJS) $(B)/rawtext.o
CHECK_BINS = $(CHECK_SUITES:%=$(TB)/check_%)
E2E_BIN	= $(TB)/check_e2e
E2E_OBJS = $(B)/tests/e2e/term.o $(B)/tests/e2e/check_e2e.o

# Benchmarks (never part of make check): the side-by-side harness and the
# emulator micro-benchmark; bench/run.sh installs the peers it compares.
BENCH_BIN = $(B)/bench/jdbench
VTBENCH_BIN = $(B)/bench/vtbench

.PHONY: all run check check-build test unit e2e manlint install uninstall \
	clean deps demo bench bench-quick
all: $(PROG)

$(PROG): $(LIB_OBJS) $(B)/main.o
	$(CC) $(OPT) -o $@ $^ $(LIBS) $(LDFLAGS)

$(B)/%.o: src/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(B)/tests/%.o: tests/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(CHECK_CFLAGS) -Itests -c -o $@ $<

.SECONDEXPANSION:
$(TB)/check_%: $(B)/tests/check_%.o $$(check_%_OBJS)
	@mkdir -p $(@D)
	$(CC) $(OPT) -o $@ $^ $(CHECK_LIBS) $(LIBS) $(LDFLAGS)

$(B)/bench/%.o: bench/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -Ibench -c -o $@ $<

$(BENCH_BIN): $(B)/bench/jdbench.o
	$(CC) $(OPT) -o $@ $^ -lutil $(LDSAN) $(LDFLAGS)

$(VTBENCH_BIN): $(B)/bench/vtbench.o $(BASE_OBJS) $(B)/vt.o
	$(CC) $(OPT) -o $@ $^ $(LIBS) $(LDFLAGS)

bench:
	@sh scripts/deps.sh
	@$(MAKE) --no-print-directory $(PROG) $(BENCH_BIN) $(VTBENCH_BIN)
	@sh bench/run.sh full

bench-quick:
	@sh scripts/deps.sh
	@$(MAKE) --no-print-directory $(PROG) $(BENCH_BIN) $(VTBENCH_BIN)
	@sh bench/run.sh quick

$(E2E_BIN): $(E2E_OBJS)
	@mkdir -p $(@D)
	$(CC) $(OPT) -o $@ $^ $(CHECK_LIBS) $(LIBS) $(LDFLAGS)

deps:
	@sh scripts/deps.sh

# The two commands of the README: install what is missing, then work.
run:
	@sh scripts/deps.sh
	@$(MAKE) --no-print-directory jobdeck
	./jobdeck -c config.toml.example $(DEMO_JOBS)

DEMO_JOBS = \
	'while :; do printf "\r%s" "$$(date +%T)"; sleep 1; done' \
	'read -p "Enter your name: " name && echo "Hello, $$name"' \
	'top'

check:
	@sh scripts/deps.sh
	@$(MAKE) --no-print-directory test

check-build: $(PROG) $(CHECK_BINS) $(E2E_BIN)

# The whole suite without the install step (what `check` runs).
test: check-build
	@JOBDECK_BIN=$(CURDIR)/$(PROG) sh tests/run.sh $(CHECK_BINS) $(E2E_BIN)
	@$(MAKE) --no-print-directory manlint

unit: $(CHECK_BINS)
	@sh tests/run.sh $(CHECK_BINS)

e2e: $(PROG) $(E2E_BIN)
	@JOBDECK_BIN=$(CURDIR)/$(PROG) sh tests/run.sh $(E2E_BIN)

# groff exits 0 even when it warns, so any output is a failure.
manlint:
	@out=$$(groff -mandoc -ww -z man/jobdeck.1 2>&1); \
	if [ -n "$$out" ]; then echo "$$out"; echo "man page: FAILED"; exit 1; fi; \
	echo "man page: lint clean"

install: jobdeck
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 755 jobdeck $(DESTDIR)$(BINDIR)/jobdeck
	install -m 644 man/jobdeck.1 $(DESTDIR)$(MANDIR)/man1/jobdeck.1

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/jobdeck $(DESTDIR)$(MANDIR)/man1/jobdeck.1

clean:
	rm -rf $(B) tests/bin jobdeck

# Keep objects make would see as intermediate, so nothing rebuilds twice.
.SECONDARY:

-include $(shell find $(B) -name '*.d' 2>/dev/null)

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
PKG_MODULES = ncursesw vterm libcurl jansson
PKG_CFLAGS = $(shell $(PKG_CONFIG) --cflags $(PKG_MODULES))
PKG_LIBS   = $(shell $(PKG_CONFIG) --libs $(PKG_MODULES))
# Goals that install what is missing first, or need no library; any other
# goal (plain make too) stops at once, in one line, when a library is
# missing, instead of a page of pkg-config's and the compiler's errors.
DEPS_FREE_GOALS = run check check-user deps clean bench bench-quick fuzz \
	uninstall
PKG_NEEDED = $(PKG_MODULES) $(if $(filter test check-build unit e2e fault \
	fuzz-replay tests/%,$(MAKECMDGOALS)),check)
ifneq ($(filter-out $(DEPS_FREE_GOALS),$(or $(MAKECMDGOALS),all)),)
PKG_MISSING := $(shell for m in $(PKG_NEEDED); do \
	$(PKG_CONFIG) --exists $$m 2>/dev/null || printf '%s ' $$m; done)
ifneq ($(strip $(PKG_MISSING)),)
$(error jobdeck: missing libraries: $(strip $(PKG_MISSING)). Run `make run` \
or `make check`, which install what is missing first (or sh scripts/deps.sh))
endif
endif
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
	src/utf8.c \
	src/entropy.c \
	src/waitstatus.c \
	src/textesc.c \
	src/texttable.c \
	src/debuglog.c \
	src/name.c \
	src/rxbound.c \
	src/duration.c \
	src/cron.c \
	src/cliopt.c \
	src/loop.c \
	src/child.c \
	src/pty.c \
	src/vt.c \
	src/vt-filter.c \
	src/vt-state.c \
	src/vt-grid.c \
	src/session.c \
	src/sessionsh.c \
	src/toml.c \
	src/config.c \
	src/config-load.c \
	src/config-stack.c \
	src/config-keys.c \
	src/config-help.c \
	src/config-diff.c \
	src/config-copy.c \
	src/config-write.c \
	src/expand.c \
	src/expand-argv.c \
	src/procfile.c \
	src/launch.c \
	src/rawtext.c \
	src/store.c \
	src/store-reader.c \
	src/store-lines.c \
	src/store-meta.c \
	src/store-id.c \
	src/store-sweep.c \
	src/grep.c \
	src/logmerge.c \
	src/lineprefix.c \
	src/cgroup.c \
	src/proc.c \
	src/ttywait.c \
	src/job.c \
	src/job-text.c \
	src/jobtable.c \
	src/jobtable-stop.c \
	src/jobtable-schedule.c \
	src/cmd.c \
	src/jobfield.c \
	src/jobevent.c \
	src/cmd-job.c \
	src/cmd-session.c \
	src/cmd-deck.c \
	src/cmd-ui.c \
	src/cmd-screen.c \
	src/cmd-run.c \
	src/cmd-ctl.c \
	src/cmd-history.c \
	src/cmd-grep.c \
	src/cmd-wait.c \
	src/cmd-sink.c \
	src/cmd-logs.c \
	src/cmd-logs-merge.c \
	src/cmd-stack.c \
	src/cmd-reload.c \
	src/cmd-browser.c \
	src/ctl.c \
	src/ctl-socket.c \
	src/ctl-events.c \
	src/ctl-sink.c \
	src/ctl-client.c \
	src/ls.c \
	src/remote.c \
	src/sshcmd.c \
	src/keys.c \
	src/input.c \
	src/bind.c \
	src/lineedit.c \
	src/ui.c \
	src/ui-draw.c \
	src/ui-colour.c \
	src/ui-edit.c \
	src/ui-mode.c \
	src/ui-panel.c \
	src/ui-pane.c \
	src/ui-frame.c \
	src/ui-pager-draw.c \
	src/ui-clip.c \
	src/ui-copy.c \
	src/ui-view.c \
	src/ui-mouse.c \
	src/ui-paste.c \
	src/ui-pager.c \
	src/ui-source.c \
	src/ui-term.c \
	src/server.c \
	src/client.c \
	src/daemon.c \
	src/json.c \
	src/run.c \
	src/run-cmd.c \
	src/outfd.c \
	src/outq.c \
	src/dotenv.c \
	src/hostport.c \
	src/http.c \
	src/probe.c \
	src/watch.c \
	src/stack.c \
	src/timetable.c \
	src/jsonval.c \
	src/browser.c \
	src/browser-cdp.c \
	src/browser-local.c \
	src/browser-docker.c \
	src/up.c \
	src/deck.c \
	src/ctlconn.c \
	src/mcp.c \
	src/mcp-main.c \
	src/mcp-tools.c \
	src/mcp-tools-shared.c \
	src/mcp-tools-job.c \
	src/mcp-tools-run.c \
	src/mcp-tools-stack.c \
	src/supcmd.c \
	src/host.c \
	src/host-ssh.c \
	src/host-slurm.c
LIB_OBJS = $(LIB_SRCS:src/%.c=$(B)/%.o)

# Each unit suite links only the modules it tests.
BASE_OBJS = $(B)/fatal.o $(B)/xmalloc.o $(B)/textesc.o $(B)/debuglog.o \
	    $(B)/entropy.o $(B)/utf8.o \
	    $(B)/name.o $(B)/rxbound.o $(B)/duration.o $(B)/cron.o
# The emulator is four layers: bytes, state, grid, API (vt.h lists them).
VT_OBJS = $(B)/vt.o $(B)/vt-filter.o $(B)/vt-state.o $(B)/vt-grid.o
CHECK_SUITES = loop child pty vt vt_filter session job cmd keys lineedit rawtext \
	       expand procfile toml config json run textesc cgroup store grep \
	       input bind probe watch dotenv jsonval browser mcp need cliopt utf8 ui jobfield proc
# What a test needs from outside the tree (tests/need.h): looked up in
# the one list scripts/deps.sh installs from.
NEED_OBJ = $(B)/tests/need.o
$(NEED_OBJ): CHECK_CFLAGS += -DJOBDECK_DEPS_LIST='"$(CURDIR)/scripts/deps.list"' \
	-DJOBDECK_DEPS_SH='"$(CURDIR)/scripts/deps.sh"'
$(B)/tests/check_need.o: CHECK_CFLAGS += -DJOBDECK_SRCDIR='"$(CURDIR)"'
check_need_OBJS	   = $(NEED_OBJ)
# The configuration: the option table, files, stacks, keys, help, diffs.
CONFIG_OBJS = $(B)/config.o $(B)/config-load.o $(B)/config-stack.o \
		     $(B)/config-keys.o $(B)/config-help.o $(B)/config-diff.o \
		     $(B)/config-copy.o $(B)/config-write.o
# Jobs on other hosts (ssh, Slurm) and the commands beside them.
HOST_OBJS = $(B)/supcmd.o $(B)/sshcmd.o $(B)/host.o $(B)/host-ssh.o \
	    $(B)/host-slurm.o $(B)/ctl-socket.o
# The output store and what it needs.
STORE_OBJS = $(B)/store.o $(B)/store-reader.o $(B)/store-lines.o \
	     $(B)/store-meta.o $(B)/store-sweep.o $(B)/store-id.o \
	     $(B)/rawtext.o
check_loop_OBJS	   = $(BASE_OBJS) $(B)/loop.o
check_child_OBJS   = $(BASE_OBJS) $(B)/child.o $(B)/tests/testproc.o
check_pty_OBJS	   = $(BASE_OBJS) $(B)/child.o $(B)/pty.o $(B)/cgroup.o
check_vt_OBJS	   = $(BASE_OBJS) $(VT_OBJS)
# The emulator's byte filter alone, through src/vt-filter.h.
check_vt_filter_OBJS = $(BASE_OBJS) $(B)/vt-filter.o
$(B)/tests/check_vt_filter.o: CHECK_CFLAGS += -Isrc
check_session_OBJS = $(check_job_OBJS)
check_job_OBJS	   = $(BASE_OBJS) $(B)/loop.o $(B)/child.o $(B)/pty.o \
		     $(VT_OBJS) \
		     $(B)/session.o $(B)/rawtext.o $(B)/proc.o $(B)/job.o \
		     $(B)/job-text.o \
		     $(B)/jobtable.o $(B)/jobtable-stop.o \
		     $(B)/jobtable-schedule.o $(B)/ttywait.o $(B)/expand.o \
		     $(B)/expand-argv.o \
		     $(B)/waitstatus.o $(B)/json.o $(B)/cgroup.o \
		     $(B)/store.o $(B)/store-reader.o $(B)/store-lines.o \
		     $(B)/store-meta.o $(B)/store-sweep.o \
		     $(B)/store-id.o $(B)/sessionsh.o $(NEED_OBJ) \
		     $(B)/tests/testproc.o $(HOST_OBJS)
check_cmd_OBJS	   = $(check_job_OBJS) $(B)/bind.o $(B)/cmd.o $(B)/cmd-job.o \
		     $(B)/texttable.o $(B)/jobfield.o $(B)/jobevent.o \
		     $(B)/cmd-session.o $(B)/cmd-deck.o $(B)/cmd-ui.o $(B)/cmd-screen.o \
		     $(B)/cmd-run.o \
		     $(B)/cmd-ctl.o $(B)/cmd-history.o $(B)/cmd-grep.o \
		     $(B)/cmd-wait.o $(B)/cmd-sink.o $(B)/cmd-logs.o \
		     $(B)/cmd-logs-merge.o $(B)/logmerge.o $(B)/lineprefix.o \
		     $(B)/cmd-stack.o $(B)/cmd-reload.o $(B)/cmd-browser.o $(B)/grep.o \
		     $(B)/keys.o \
		     $(B)/launch.o $(CONFIG_OBJS) $(B)/toml.o $(B)/procfile.o \
		     $(B)/stack.o $(B)/timetable.o $(B)/dotenv.o $(B)/http.o $(B)/probe.o \
		     $(B)/hostport.o \
		     $(B)/watch.o $(B)/browser.o $(B)/jsonval.o \
		     $(B)/browser-cdp.o $(B)/browser-local.o $(B)/browser-docker.o \
		     $(B)/tests/testnet.o $(B)/tests/testdeck.o
# Commands that go on as tasks (wait, grep) on a recording sink.
CHECK_SUITES += cmdsink
check_cmdsink_OBJS = $(check_cmd_OBJS)
# Keys that run commands: the command table under the bindings.
CHECK_SUITES += cmdkeys
check_cmdkeys_OBJS = $(check_cmd_OBJS)
# A job's events as JSON lines, on a real job and store lines.
CHECK_SUITES += jobevent
check_jobevent_OBJS = $(check_job_OBJS) $(B)/jobfield.o $(B)/jobevent.o \
		     $(B)/texttable.o $(B)/tests/jsonread.o
# A job's fields on real jobs and a real store, read back as JSON.
check_jobfield_OBJS = $(check_job_OBJS) $(B)/jobfield.o $(B)/texttable.o \
		     $(B)/tests/jsonread.o
check_probe_OBJS   = $(check_job_OBJS) $(B)/http.o $(B)/probe.o \
		     $(B)/hostport.o $(B)/tests/testnet.o $(B)/tests/testdir.o \
		     $(B)/tests/testproc.o
check_browser_OBJS = $(check_job_OBJS) $(B)/http.o $(B)/jsonval.o \
		     $(B)/hostport.o $(B)/tests/testnet.o $(B)/tests/testdir.o \
		     $(B)/tests/testproc.o $(B)/browser.o $(B)/browser-cdp.o \
		     $(B)/browser-local.o $(B)/browser-docker.o
check_jsonval_OBJS = $(BASE_OBJS) $(B)/jsonval.o
# The MCP server in process, on a fake deck (mcp.h's struct mcp_io).
# What mcp.o needs besides comes out of the archive, as for the fuzz
# targets.
check_mcp_OBJS	   = $(BASE_OBJS) $(B)/mcp.o $(B)/mcp-tools.o \
		     $(B)/mcp-tools-shared.o $(B)/mcp-tools-job.o \
		     $(B)/mcp-tools-run.o $(B)/mcp-tools-stack.o \
		     $(B)/tests/jsonread.o $(B)/libjobdeck.a
# It and fuzz_mcp drive the tools through src/mcp-private.h.
$(B)/tests/check_mcp.o $(B)/tests/fuzz/fuzz_mcp.o: CHECK_CFLAGS += -Isrc
# The front end's floors below ui.c, on a struct ui of its own
# (src/ui-private.h), out of the archive as check_mcp.
check_ui_OBJS	   = $(BASE_OBJS) $(B)/libjobdeck.a
$(B)/tests/check_ui.o: CHECK_CFLAGS += -Isrc
check_keys_OBJS	   = $(BASE_OBJS) $(VT_OBJS) $(B)/keys.o
check_input_OBJS   = $(BASE_OBJS) $(B)/input.o
check_lineedit_OBJS = $(BASE_OBJS) $(B)/lineedit.o
check_watch_OBJS   = $(BASE_OBJS) $(B)/loop.o $(B)/watch.o
# Cron expressions and durations: parsing, every message, the next time
# in local time across DST (TZ set in the test).
CHECK_SUITES += cron
check_cron_OBJS	   = $(BASE_OBJS) $(NEED_OBJ)
# The one writer to a reader that may stall, on real pipes and sockets.
CHECK_SUITES += outq
check_outq_OBJS	   = $(BASE_OBJS) $(B)/loop.o $(B)/outfd.o $(B)/outq.o
check_bind_OBJS	   = $(BASE_OBJS) $(B)/bind.o
check_rawtext_OBJS = $(BASE_OBJS) $(B)/rawtext.o
check_expand_OBJS  = $(BASE_OBJS) $(B)/expand.o $(B)/expand-argv.o
check_procfile_OBJS = $(BASE_OBJS) $(B)/procfile.o
check_toml_OBJS	   = $(BASE_OBJS) $(B)/toml.o
check_config_OBJS  = $(BASE_OBJS) $(B)/toml.o $(B)/procfile.o $(B)/expand.o \
		     $(B)/expand-argv.o $(CONFIG_OBJS) $(B)/session.o \
		     $(B)/launch.o $(B)/bind.o $(STORE_OBJS) $(B)/dotenv.o \
		     $(B)/waitstatus.o $(B)/json.o $(B)/hostport.o
check_dotenv_OBJS  = $(check_job_OBJS) $(B)/dotenv.o $(B)/launch.o \
		     $(CONFIG_OBJS) $(B)/toml.o $(B)/procfile.o $(B)/bind.o \
		     $(B)/hostport.o
check_json_OBJS	   = $(BASE_OBJS) $(B)/json.o $(B)/tests/jsonread.o
check_textesc_OBJS = $(BASE_OBJS)
check_cliopt_OBJS = $(BASE_OBJS) $(B)/cliopt.o
check_utf8_OBJS    = $(BASE_OBJS)
check_cgroup_OBJS  = $(BASE_OBJS) $(B)/child.o $(B)/cgroup.o \
		     $(B)/tests/testproc.o
check_proc_OBJS	   = $(BASE_OBJS) $(B)/loop.o $(B)/child.o $(B)/pty.o \
		     $(B)/cgroup.o $(B)/proc.o $(B)/tests/testproc.o \
		     $(B)/tests/testdir.o
check_store_OBJS   = $(BASE_OBJS) $(STORE_OBJS) $(B)/tests/testmnt.o
# Several runs of the store as one log in time order (a merged !logs).
CHECK_SUITES += logmerge
check_logmerge_OBJS = $(BASE_OBJS) $(STORE_OBJS) $(B)/logmerge.o
check_grep_OBJS	   = $(check_cmd_OBJS) $(B)/tests/testmnt.o
# A real sshd on 127.0.0.1 (tests/testssh.h) and the OpenSSH behaviour
# issue 28's jobs on ssh hosts stand on: aliases, one multiplexed
# connection, a killed master, ssh's own failures.
CHECK_SUITES += ssh
TESTSSH_OBJS = $(B)/child.o $(NEED_OBJ) $(B)/tests/testssh.o \
	       $(B)/tests/testnet.o $(B)/tests/testproc.o
check_ssh_OBJS	   = $(BASE_OBJS) $(TESTSSH_OBJS)
# What runs a job on another host, without a host: the ssh script run
# here, proc's relay, supcmd.
CHECK_SUITES += host
check_host_OBJS	   = $(check_job_OBJS) $(B)/tests/testdir.o
$(B)/tests/check_host.o: CHECK_CFLAGS += -Isrc
# The one rule for the user's ssh command (sshcmd.h), run through /bin/sh.
CHECK_SUITES += sshcmd
check_sshcmd_OBJS  = $(BASE_OBJS) $(B)/sshcmd.o
# The tests' one-node Slurm cluster (tests/testslurm.c) for issue 28:
# srun, srun --pty, squeue --name, scancel; skips without the packages.
CHECK_SUITES += slurm
check_slurm_OBJS   = $(BASE_OBJS) $(NEED_OBJ) $(B)/tests/testslurm.o \
		     $(B)/tests/testnet.o $(B)/tests/testdir.o
# check_run drives the binary (JOBDECK_BIN), so it links no module.
check_run_OBJS	   = $(BASE_OBJS) $(B)/tests/jsonread.o $(B)/tests/testproc.o
CHECK_BINS = $(CHECK_SUITES:%=$(TB)/check_%)
E2E_BIN	= $(TB)/check_e2e
E2E_OBJS = $(B)/tests/e2e/term.o $(B)/tests/e2e/e2e.o \
	   $(NEED_OBJ) \
	   $(B)/tests/e2e/check_e2e.o
# The front end's end-to-end suites of issue 12, one file each:
# tests/e2e/check_NAME_e2e.c (panel: resizes, zoom, notices, job commands;
# copy: copy mode and search; input: pastes and the mouse; keys: [keys]
# rebinding, !help, the focus key twice; echo: bytes drawn per key;
# colour: truecolor and pairs).
UI_E2E = panel copy input keys echo colour
UI_E2E_BINS = $(UI_E2E:%=$(TB)/check_%_e2e)
# The control socket end to end: the real deck, the real `jobdeck ctl`.
CTL_BIN	= $(TB)/check_ctl
CTL_OBJS = $(BASE_OBJS) $(B)/tests/e2e/term.o $(B)/tests/e2e/e2e.o \
	   $(NEED_OBJ) \
	   $(B)/tests/e2e/check_ctl.o $(B)/tests/jsonread.o
# jobdeck up and ctl wait end to end: the real binary on pipes, no terminal.
UP_BIN	= $(TB)/check_up_e2e
UP_OBJS	= $(BASE_OBJS) $(B)/tests/e2e/term.o $(B)/tests/e2e/e2e.o \
	   $(NEED_OBJ) \
	   $(B)/tests/e2e/check_up_e2e.o $(B)/tests/jsonread.o
# Stacks end to end: the real deck on a config, driven by `jobdeck ctl`.
STACK_E2E_BIN = $(TB)/check_stack_e2e
STACK_E2E_OBJS = $(BASE_OBJS) $(B)/tests/e2e/term.o $(B)/tests/e2e/e2e.o \
	   $(NEED_OBJ) \
	   $(B)/tests/e2e/check_stack_e2e.o $(B)/tests/jsonread.o \
	   $(B)/tests/testnet.o $(B)/tests/testproc.o
# Jobs on a timer end to end: every, overlap skip and queue, next_run.
SCHED_E2E_BIN = $(TB)/check_sched_e2e
SCHED_E2E_OBJS = $(BASE_OBJS) $(B)/tests/e2e/term.o $(B)/tests/e2e/e2e.o \
	   $(NEED_OBJ) \
	   $(B)/tests/e2e/check_sched_e2e.o $(B)/tests/jsonread.o
# The browser end to end: a real chromium-headless-shell, the panel's row,
# !browser, ctl browser, JOBDECK_CDP_URL, jobdeck up, every way out.
BROWSER_E2E_BIN = $(TB)/check_browser_e2e
BROWSER_E2E_OBJS = $(BASE_OBJS) $(B)/tests/e2e/term.o $(B)/tests/e2e/e2e.o \
	   $(NEED_OBJ) \
	   $(B)/tests/e2e/check_browser_e2e.o $(B)/tests/jsonread.o \
	   $(B)/tests/testnet.o
# The fault suite: every way out, floods, hostile output, no fds, ptys or
# disk, misbehaving children (about 80 s; some cases need root).
# jobdeck mcp end to end: the real deck, the real server, the official
# MCP TypeScript SDK as the client (tests/mcp/, installed by make check).
MCP_E2E_BIN = $(TB)/check_mcp_e2e
MCP_E2E_OBJS = $(BASE_OBJS) $(B)/tests/e2e/term.o $(B)/tests/e2e/e2e.o \
	   $(NEED_OBJ) \
	   $(B)/tests/e2e/check_mcp_e2e.o $(B)/tests/jsonread.o
# The deck as a server end to end: attach, detach, several clients, -r,
# -d, stale sockets, 200 cycles, a client that stops reading (issue 26).
ATTACH_E2E_BIN = $(TB)/check_attach_e2e
ATTACH_E2E_OBJS = $(B)/tests/e2e/term.o $(B)/tests/e2e/e2e.o \
	   $(NEED_OBJ) $(B)/tests/testproc.o \
	   $(B)/tests/e2e/check_attach_e2e.o
# Changing a running stack end to end: !reload, reload = "auto", .env,
# F5, !scale, !dup, !edit (issue 27).
RELOAD_E2E_BIN = $(TB)/check_reload_e2e
RELOAD_E2E_OBJS = $(BASE_OBJS) $(B)/tests/e2e/term.o $(B)/tests/e2e/e2e.o \
	   $(NEED_OBJ) \
	   $(B)/tests/e2e/check_reload_e2e.o $(B)/tests/jsonread.o
# A deck on another host end to end: ctl, ls and attach -H through the
# tests' sshd (issue 28); skips when the server cannot start.
REMOTE_E2E_BIN = $(TB)/check_remote_e2e
REMOTE_E2E_OBJS = $(sort $(BASE_OBJS) $(B)/tests/e2e/term.o \
	   $(B)/tests/e2e/e2e.o $(NEED_OBJ) $(TESTSSH_OBJS) \
	   $(B)/tests/e2e/check_remote_e2e.o)
# Jobs on a Slurm host end to end: srun, squeue's states on the panel
# and in the job object, focus, kills, !quit, a dead deck's jobs swept,
# jobdeck run --host, on the tests' one-node cluster (issue 28).
HOST_SLURM_E2E_BIN = $(TB)/check_host_slurm_e2e
HOST_SLURM_E2E_OBJS = $(sort $(BASE_OBJS) $(B)/tests/e2e/term.o \
	   $(B)/tests/e2e/e2e.o $(NEED_OBJ) $(B)/tests/jsonread.o \
	   $(B)/tests/testslurm.o $(B)/tests/testnet.o $(B)/tests/testdir.o \
	   $(B)/tests/e2e/check_host_slurm_e2e.o)
# Jobs on ssh hosts end to end through the tests' sshd (issue 28's cases):
# env and cwd byte-exact, prompts, resize, signals, a killed connection,
# one connection for 50 jobs, unreachable hosts, run --host, a dead deck.
HOST_SSH_E2E_BIN = $(TB)/check_host_ssh_e2e
HOST_SSH_E2E_OBJS = $(sort $(BASE_OBJS) $(B)/tests/e2e/term.o \
	   $(B)/tests/e2e/e2e.o $(NEED_OBJ) $(TESTSSH_OBJS) \
	   $(B)/tests/e2e/check_host_ssh_e2e.o)
FAULT_BIN = $(TB)/check_fault
FAULT_OBJS = $(B)/tests/e2e/term.o $(B)/tests/e2e/e2e.o \
	   $(NEED_OBJ) \
	     $(B)/tests/e2e/check_fault.o

# toml-test (https://github.com/toml-lang/toml-test): the decoder tool and
# the conformance runner, which `make test` runs on the suite in TOML_TEST:
# the shared checkout beside the tree when there is one, else the copy of
# its TOML 1.0.0 cases in tests/toml-test (same commit, MIT licence).
TOML_TEST ?= $(if $(wildcard ../shared/toml-test/tests/files-toml-1.0.0),../shared/toml-test,tests/toml-test)
TOML_TOOLS = $(TB)/toml-decode $(TB)/toml-conformance
TOML_TOOL_OBJS = $(BASE_OBJS) $(B)/toml.o $(B)/tests/tomljson.o

# Benchmarks (never part of make check): the side-by-side harness and the
# emulator micro-benchmark; bench/run.sh installs the peers it compares.
BENCH_BIN = $(B)/bench/jdbench
VTBENCH_BIN = $(B)/bench/vtbench
# storebench drives the real binary through the end-to-end harness and
# writes its data with the store API.
STOREBENCH_BIN = $(B)/bench/storebench
STOREBENCH_OBJS = $(B)/bench/storebench.o $(B)/tests/e2e/term.o \
		  $(BASE_OBJS) $(STORE_OBJS) $(B)/grep.o

# Fuzzing (tests/fuzz/): `make fuzz` builds each libFuzzer target with clang
# into build/fuzz/ (scripts/fuzz-deps.sh installs clang when missing) and
# runs it FUZZ_SECONDS; `make test` replays every seed and saved crash of
# each through tests/fuzz/replay.c, built with $(CC) like the rest.
FUZZ_TARGETS = toml config cmdline expand procfile vt store input dotenv \
	       jsonval mcp ctlro
FUZZ_SECONDS ?= 60
FUZZ_CC	?= clang
FUZZ_B	= build/fuzz
FUZZ_SAN = -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS = $(CSTD) -Wall -Wextra -O1 -g -fno-omit-frame-pointer \
	      $(FUZZ_SAN) -Iinclude $(PKG_CFLAGS) -MMD -MP
FUZZ_LIB = $(FUZZ_B)/libjobdeck.a
FUZZ_BINS = $(FUZZ_TARGETS:%=$(FUZZ_B)/fuzz_%)
FUZZ_REPLAY = $(FUZZ_TARGETS:%=$(TB)/fuzz_%)
# fuzz_mcp drives the tools through src/mcp-private.h.
$(FUZZ_B)/tests/fuzz_mcp.o: FUZZ_CFLAGS += -Isrc

.PHONY: all run check check-build check-user test unit e2e manlint install \
	uninstall \
	clean deps demo bench bench-quick fuzz fuzz-build fuzz-replay \
	mcp-sdk
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

# jdbench's hosts workload starts the tests' sshd (tests/testssh.h);
# ckshim.o stands for check's assertions there, outside a test runner.
$(B)/bench/jdbench.o: ALL_CFLAGS += -Itests
$(B)/bench/ckshim.o: ALL_CFLAGS += $(CHECK_CFLAGS)

$(BENCH_BIN): $(B)/bench/jdbench.o $(B)/bench/ckshim.o $(TESTSSH_OBJS)
	$(CC) $(OPT) -o $@ $^ -lutil $(LDSAN) $(LDFLAGS)

$(VTBENCH_BIN): $(B)/bench/vtbench.o $(BASE_OBJS) $(VT_OBJS)
	$(CC) $(OPT) -o $@ $^ $(LIBS) $(LDFLAGS)

$(B)/bench/storebench.o: ALL_CFLAGS += -Itests

$(STOREBENCH_BIN): $(STOREBENCH_OBJS)
	$(CC) $(OPT) -o $@ $^ $(LIBS) $(LDFLAGS)

bench:
	@sh scripts/deps.sh
	@$(MAKE) --no-print-directory $(PROG) $(BENCH_BIN) $(VTBENCH_BIN) \
	    $(STOREBENCH_BIN)
	@sh bench/run.sh full

bench-quick:
	@sh scripts/deps.sh
	@$(MAKE) --no-print-directory $(PROG) $(BENCH_BIN) $(VTBENCH_BIN) \
	    $(STOREBENCH_BIN)
	@sh bench/run.sh quick

$(E2E_BIN): $(E2E_OBJS)
	@mkdir -p $(@D)
	$(CC) $(OPT) -o $@ $^ $(CHECK_LIBS) $(LIBS) $(LDFLAGS)

$(UI_E2E_BINS): $(TB)/check_%_e2e: $(B)/tests/e2e/term.o \
    $(B)/tests/e2e/e2e.o $(NEED_OBJ) \
    $(B)/tests/e2e/check_%_e2e.o
	@mkdir -p $(@D)
	$(CC) $(OPT) -o $@ $^ $(CHECK_LIBS) $(LIBS) $(LDFLAGS)

$(CTL_BIN): $(CTL_OBJS)
	@mkdir -p $(@D)
	$(CC) $(OPT) -o $@ $^ $(CHECK_LIBS) $(LIBS) $(LDFLAGS)

$(UP_BIN): $(UP_OBJS)
	@mkdir -p $(@D)
	$(CC) $(OPT) -o $@ $^ $(CHECK_LIBS) $(LIBS) $(LDFLAGS)

$(STACK_E2E_BIN): $(STACK_E2E_OBJS)
	@mkdir -p $(@D)
	$(CC) $(OPT) -o $@ $^ $(CHECK_LIBS) $(LIBS) $(LDFLAGS)

$(SCHED_E2E_BIN): $(SCHED_E2E_OBJS)
	@mkdir -p $(@D)
	$(CC) $(OPT) -o $@ $^ $(CHECK_LIBS) $(LIBS) $(LDFLAGS)

$(BROWSER_E2E_BIN): $(BROWSER_E2E_OBJS)
	@mkdir -p $(@D)
	$(CC) $(OPT) -o $@ $^ $(CHECK_LIBS) $(LIBS) $(LDFLAGS)

$(MCP_E2E_BIN): $(MCP_E2E_OBJS)
	@mkdir -p $(@D)
	$(CC) $(OPT) -o $@ $^ $(CHECK_LIBS) $(LIBS) $(LDFLAGS)

$(ATTACH_E2E_BIN): $(ATTACH_E2E_OBJS)
	@mkdir -p $(@D)
	$(CC) $(OPT) -o $@ $^ $(CHECK_LIBS) $(LIBS) $(LDFLAGS)

$(RELOAD_E2E_BIN): $(RELOAD_E2E_OBJS)
	@mkdir -p $(@D)
	$(CC) $(OPT) -o $@ $^ $(CHECK_LIBS) $(LIBS) $(LDFLAGS)

$(HOST_SLURM_E2E_BIN): $(HOST_SLURM_E2E_OBJS)
	@mkdir -p $(@D)
	$(CC) $(OPT) -o $@ $^ $(CHECK_LIBS) $(LIBS) $(LDFLAGS)

$(REMOTE_E2E_BIN): $(REMOTE_E2E_OBJS)
	@mkdir -p $(@D)
	$(CC) $(OPT) -o $@ $^ $(CHECK_LIBS) $(LIBS) $(LDFLAGS)

$(HOST_SSH_E2E_BIN): $(HOST_SSH_E2E_OBJS)
	@mkdir -p $(@D)
	$(CC) $(OPT) -o $@ $^ $(CHECK_LIBS) $(LIBS) $(LDFLAGS)

$(FAULT_BIN): $(FAULT_OBJS)
	@mkdir -p $(@D)
	$(CC) $(OPT) -o $@ $^ $(CHECK_LIBS) $(LIBS) $(LDFLAGS)

$(TB)/toml-%: $(B)/tests/toml-%.o $(TOML_TOOL_OBJS)
	@mkdir -p $(@D)
	$(CC) $(OPT) -o $@ $^ -lm $(LDSAN) $(LDFLAGS)

# Fuzz targets link only the modules they use, out of one archive.
$(B)/libjobdeck.a: $(LIB_OBJS)
	rm -f $@
	$(AR) rcs $@ $^

$(TB)/fuzz_%: $(B)/tests/fuzz/replay.o $(B)/tests/fuzz/fuzz_%.o \
    $(B)/libjobdeck.a
	@mkdir -p $(@D)
	$(CC) $(OPT) -o $@ $^ $(LIBS) -lm $(LDFLAGS)

$(FUZZ_B)/%.o: src/%.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_B)/tests/%.o: tests/fuzz/%.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -Itests/fuzz -c -o $@ $<

$(FUZZ_LIB): $(LIB_SRCS:src/%.c=$(FUZZ_B)/%.o)
	rm -f $@
	$(AR) rcs $@ $^

$(FUZZ_B)/fuzz_%: $(FUZZ_B)/tests/fuzz_%.o $(FUZZ_LIB)
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^ $(PKG_LIBS) -lutil \
	    -lm $(LDFLAGS)

fuzz-build: $(FUZZ_BINS)

fuzz:
	@sh scripts/deps.sh
	@FUZZ_CC=$(FUZZ_CC) sh scripts/fuzz-deps.sh
	@$(MAKE) --no-print-directory fuzz-build
	@sh tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# Every seed corpus file and saved crash of every fuzz target, no clang.
fuzz-replay: $(FUZZ_REPLAY)
	@rc=0; for t in $(FUZZ_TARGETS); do \
	    r=tests/fuzz/regress/$$t; [ -d $$r ] || r=; \
	    $(TB)/fuzz_$$t tests/fuzz/corpus/$$t $$r || rc=1; \
	done; exit $$rc

deps:
	@sh scripts/deps.sh

# The two commands of the README: install what is missing, then work.
run:
	@sh scripts/deps.sh
	@$(MAKE) --no-print-directory jobdeck
	@chmod go-w config.toml.example
	./jobdeck -c config.toml.example

check:
	@sh scripts/deps.sh
	@$(MAKE) --no-print-directory test

check-build: $(PROG) $(CHECK_BINS) $(E2E_BIN) $(UI_E2E_BINS) $(CTL_BIN) \
	     $(UP_BIN) \
	     $(STACK_E2E_BIN) $(SCHED_E2E_BIN) $(BROWSER_E2E_BIN) \
	     $(MCP_E2E_BIN) $(TOML_TOOLS) \
	     $(FUZZ_REPLAY) $(FAULT_BIN) $(ATTACH_E2E_BIN) \
	     $(RELOAD_E2E_BIN) $(REMOTE_E2E_BIN) $(HOST_SLURM_E2E_BIN) \
	     $(HOST_SSH_E2E_BIN)

# The official MCP TypeScript SDK for check_mcp_e2e's client
# (tests/mcp/interop.mjs), from the npm registry into the ignored
# tests/mcp/node_modules, once per package-lock.json.  When npm cannot
# reach the registry the stamp is not made and the interop cases skip.
MCP_SDK_STAMP = tests/mcp/node_modules/.jobdeck-stamp
$(MCP_SDK_STAMP): tests/mcp/package.json tests/mcp/package-lock.json
	@if ! command -v npm >/dev/null 2>&1; then \
	    echo "jobdeck: no npm: the MCP interop tests will skip" >&2; \
	elif (cd tests/mcp && timeout 600 npm ci --no-audit --no-fund \
	    >/dev/null); then touch $@; \
	else echo "jobdeck: npm ci failed: the MCP interop tests will skip" >&2; \
	fi

mcp-sdk:
	@$(MAKE) --no-print-directory $(MCP_SDK_STAMP)

# The whole suite without the install step (what `check` runs).
test: check-build mcp-sdk
	@# jobdeck refuses a config others may write; a umask of 002 makes one.
	@chmod go-w config.toml.example
	@JOBDECK_BIN=$(CURDIR)/$(PROG) sh tests/run.sh $(CHECK_BINS) $(E2E_BIN) \
	    $(UI_E2E_BINS) $(CTL_BIN) $(UP_BIN) $(STACK_E2E_BIN) \
	    $(SCHED_E2E_BIN) \
	    $(BROWSER_E2E_BIN) $(MCP_E2E_BIN) $(FAULT_BIN) $(ATTACH_E2E_BIN) \
	    $(RELOAD_E2E_BIN) $(REMOTE_E2E_BIN) $(HOST_SLURM_E2E_BIN) \
	    $(HOST_SSH_E2E_BIN)
	@$(TB)/toml-conformance $(TOML_TEST)
	@$(MAKE) --no-print-directory fuzz-replay
	@$(MAKE) --no-print-directory manlint

# The suite again as an ordinary user, in a clone it owns (root makes the
# user): what needs root must say it skipped.
check-user:
	@sh scripts/check-as-user.sh

unit: $(PROG) $(CHECK_BINS)
	@JOBDECK_BIN=$(CURDIR)/$(PROG) sh tests/run.sh $(CHECK_BINS)

e2e: $(PROG) $(E2E_BIN) $(UI_E2E_BINS) $(CTL_BIN) $(UP_BIN) \
    $(STACK_E2E_BIN) $(SCHED_E2E_BIN) $(BROWSER_E2E_BIN) $(MCP_E2E_BIN) \
    $(ATTACH_E2E_BIN) $(RELOAD_E2E_BIN) $(REMOTE_E2E_BIN) \
    $(HOST_SLURM_E2E_BIN) $(HOST_SSH_E2E_BIN) mcp-sdk
	@JOBDECK_BIN=$(CURDIR)/$(PROG) sh tests/run.sh $(E2E_BIN) $(UI_E2E_BINS) \
	    $(CTL_BIN) $(UP_BIN) $(STACK_E2E_BIN) $(SCHED_E2E_BIN) \
	    $(BROWSER_E2E_BIN) $(MCP_E2E_BIN) $(ATTACH_E2E_BIN) $(RELOAD_E2E_BIN) \
	    $(REMOTE_E2E_BIN) $(HOST_SLURM_E2E_BIN) $(HOST_SSH_E2E_BIN)

.PHONY: fault
fault: $(PROG) $(FAULT_BIN)
	@JOBDECK_BIN=$(CURDIR)/$(PROG) sh tests/run.sh $(FAULT_BIN)

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

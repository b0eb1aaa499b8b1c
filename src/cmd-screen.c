/*
 * cmd-screen.c: the keys' actions at the prompt as commands (bind.h):
 * !next-job, !prev-job, !scroll-up, !scroll-down, !scroll-top,
 * !scroll-bottom, !zoom, !copy-mode, !search, !redraw and !detach.  Each
 * asks the client's screen (cmd_client's screen) for its action;
 * cmd_execute() refuses them where there is no screen (the control
 * socket).  They only change the client's view, never the deck, so a
 * read-only client (attach -r) may use them.  !focus,
 * !paste and !messages, the prompt's other keys, are in cmd-ui.c.
 */
#include "cmd.h"

static void	cmd_screen_exec(struct cmd_ctx *, int, char **);

/* A screen command: its name, the action it asks for, its help. */
#define CMD_SCREEN_ENTRY(n, a, h) {					\
	.name = (n),							\
	.args = "",							\
	.help = (h),							\
	.flags = CMD_SCREEN | CMD_READ_ONLY,				\
	.screen = (a),							\
	.exec = cmd_screen_exec,					\
}

const struct cmd_entry cmd_next_job_entry = CMD_SCREEN_ENTRY("next-job",
    BIND_NEXT_JOB, "select the next job of the panel");
const struct cmd_entry cmd_prev_job_entry = CMD_SCREEN_ENTRY("prev-job",
    BIND_PREV_JOB, "select the previous job of the panel");
const struct cmd_entry cmd_scroll_up_entry = CMD_SCREEN_ENTRY("scroll-up",
    BIND_SCROLL_UP, "scroll the selected pane a page back (past its ring, "
    "its log opens)");
const struct cmd_entry cmd_scroll_down_entry = CMD_SCREEN_ENTRY(
    "scroll-down", BIND_SCROLL_DOWN, "scroll the selected pane a page "
    "forward");
const struct cmd_entry cmd_scroll_top_entry = CMD_SCREEN_ENTRY("scroll-top",
    BIND_SCROLL_TOP, "scroll the selected pane to its oldest line (its "
    "log's first when the store holds more)");
const struct cmd_entry cmd_scroll_bottom_entry = CMD_SCREEN_ENTRY(
    "scroll-bottom", BIND_SCROLL_BOTTOM, "scroll the selected pane back to "
    "its live screen");
const struct cmd_entry cmd_zoom_entry = CMD_SCREEN_ENTRY("zoom", BIND_ZOOM,
    "hide the panel, or show it again");
const struct cmd_entry cmd_copy_mode_entry = CMD_SCREEN_ENTRY("copy-mode",
    BIND_COPY_MODE, "copy mode on the selected pane");
const struct cmd_entry cmd_search_entry = CMD_SCREEN_ENTRY("search",
    BIND_SEARCH_PANE, "copy mode on the selected pane, typing a search");
const struct cmd_entry cmd_redraw_entry = CMD_SCREEN_ENTRY("redraw",
    BIND_REDRAW, "draw the whole screen again");
const struct cmd_entry cmd_detach_entry = CMD_SCREEN_ENTRY("detach",
    BIND_DETACH, "detach this terminal: the deck and its jobs run on "
    "(jobdeck attach comes back)");

/* Ask the client's screen for the command's action (it has one). */
static void
cmd_screen_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	ctx->client->screen(ctx->entry->screen, ctx->arg);
}

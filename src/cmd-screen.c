/*
 * cmd-screen.c: the keys' actions at the prompt as commands (bind.h):
 * !next-job, !prev-job, !scroll-up, !scroll-down, !scroll-top,
 * !scroll-bottom, !zoom, !copy-mode, !search and !redraw.  Each asks the
 * client's screen (cmd_client's screen) for its action; cmd_execute()
 * refuses them where there is no screen (the control socket).  !focus,
 * !paste and !messages, the prompt's other keys, are in cmd-ui.c.
 */
#include "cmd.h"

static void	cmd_screen_exec(struct cmd_ctx *, int, char **);

const struct cmd_entry cmd_next_job_entry = {
	.name = "next-job",
	.args = "",
	.help = "select the next job of the panel",
	.flags = CMD_SCREEN,
	.screen = BIND_NEXT_JOB,
	.exec = cmd_screen_exec,
};

const struct cmd_entry cmd_prev_job_entry = {
	.name = "prev-job",
	.args = "",
	.help = "select the previous job of the panel",
	.flags = CMD_SCREEN,
	.screen = BIND_PREV_JOB,
	.exec = cmd_screen_exec,
};

const struct cmd_entry cmd_scroll_up_entry = {
	.name = "scroll-up",
	.args = "",
	.help = "scroll the selected pane a page back (past its ring, its log "
	    "opens)",
	.flags = CMD_SCREEN,
	.screen = BIND_SCROLL_UP,
	.exec = cmd_screen_exec,
};

const struct cmd_entry cmd_scroll_down_entry = {
	.name = "scroll-down",
	.args = "",
	.help = "scroll the selected pane a page forward",
	.flags = CMD_SCREEN,
	.screen = BIND_SCROLL_DOWN,
	.exec = cmd_screen_exec,
};

const struct cmd_entry cmd_scroll_top_entry = {
	.name = "scroll-top",
	.args = "",
	.help = "scroll the selected pane to its oldest line (its log's first "
	    "when the store holds more)",
	.flags = CMD_SCREEN,
	.screen = BIND_SCROLL_TOP,
	.exec = cmd_screen_exec,
};

const struct cmd_entry cmd_scroll_bottom_entry = {
	.name = "scroll-bottom",
	.args = "",
	.help = "scroll the selected pane back to its live screen",
	.flags = CMD_SCREEN,
	.screen = BIND_SCROLL_BOTTOM,
	.exec = cmd_screen_exec,
};

const struct cmd_entry cmd_zoom_entry = {
	.name = "zoom",
	.args = "",
	.help = "hide the panel, or show it again",
	.flags = CMD_SCREEN,
	.screen = BIND_ZOOM,
	.exec = cmd_screen_exec,
};

const struct cmd_entry cmd_copy_mode_entry = {
	.name = "copy-mode",
	.args = "",
	.help = "copy mode on the selected pane",
	.flags = CMD_SCREEN,
	.screen = BIND_COPY_MODE,
	.exec = cmd_screen_exec,
};

const struct cmd_entry cmd_search_entry = {
	.name = "search",
	.args = "",
	.help = "copy mode on the selected pane, typing a search",
	.flags = CMD_SCREEN,
	.screen = BIND_SEARCH_PANE,
	.exec = cmd_screen_exec,
};

const struct cmd_entry cmd_redraw_entry = {
	.name = "redraw",
	.args = "",
	.help = "draw the whole screen again",
	.flags = CMD_SCREEN,
	.screen = BIND_REDRAW,
	.exec = cmd_screen_exec,
};

/* Ask the client's screen for the command's action (it has one). */
static void
cmd_screen_exec(struct cmd_ctx *ctx, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	ctx->client->screen(ctx->entry->screen, ctx->arg);
}

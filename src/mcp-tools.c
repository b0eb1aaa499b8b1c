/*
 * mcp-tools.c: the tools of jobdeck mcp (mcp-private.h).
 * Groundwork: filled in by issue 15's mcp-tools part.
 */
#include <stddef.h>

#include "mcp-private.h"

const struct mcp_tool mcp_tools[] = {
	{ .name = NULL }
};

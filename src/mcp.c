/*
 * mcp.c: the Model Context Protocol server (mcp.h): JSON-RPC 2.0 over
 * stdio, the handshake, tools/list and tools/call over mcp_tools[].
 * Groundwork: filled in by issue 15's mcp-core part.
 */
#include <stdio.h>

#include "mcp.h"
#include "mcp-private.h"

/* Run jobdeck mcp. */
int
mcp_main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "jobdeck mcp: not built yet\n");
	return 2;
}

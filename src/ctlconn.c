/*
 * ctlconn.c: one control-socket request on a loop (ctlconn.h).
 * Groundwork: filled in by issue 15's mcp-core part.
 */
#include <stddef.h>

#include "ctlconn.h"

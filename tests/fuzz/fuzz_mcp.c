/*
 * fuzz_mcp.c: groundwork; filled in by issue 15's parts.
 */
#include <stdint.h>
#include <stddef.h>

#include "fuzz.h"

/* Take one input. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	(void)data;
	(void)size;
	return 0;
}

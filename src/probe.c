/* probe.c: readiness and liveness probes (see probe.h).  Groundwork stub. */
#include <stdlib.h>

#include "probe.h"
#include "xmalloc.h"

/* Start a probe (not built yet). */
struct probe *
probe_new(struct loop *loop, struct jobtable *jt, struct http *http,
    const struct probe_spec *spec, const struct probe_cbs *cbs, void *arg,
    char **cause)
{
	(void)loop;
	(void)jt;
	(void)http;
	(void)spec;
	(void)cbs;
	(void)arg;
	*cause = xstrdup("probes are not built yet");
	return NULL;
}

/* Feed output to a log probe. */
void
probe_feed(struct probe *p, const char *buf, size_t len)
{
	(void)p;
	(void)buf;
	(void)len;
}

/* Say what the probe checks. */
const char *
probe_describe(const struct probe *p)
{
	(void)p;
	return "";
}

/* Free a probe. */
void
probe_free(struct probe *p)
{
	(void)p;
}

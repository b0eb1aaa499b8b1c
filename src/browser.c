/*
 * browser.c: the deck's headless Chrome (stub until issue 14's helper
 * writes it).
 */
#include <stdlib.h>

#include "browser.h"
#include "xmalloc.h"

struct browser {
	enum browser_mode	 mode;
};

/* Make the deck's browser (stub: idle for ever). */
struct browser *
browser_new(struct loop *loop, struct jobtable *jt, struct cgroup *cg,
    struct http *http, const struct browser_spec *spec, char **cause)
{
	struct browser	*b;

	(void)loop;
	(void)jt;
	(void)cg;
	(void)http;
	(void)spec;
	(void)cause;
	b = xcalloc(1, sizeof *b);
	return b;
}

/* Free the browser. */
void
browser_free(struct browser *b)
{
	free(b);
}

/* Subscribe (stub). */
void
browser_subscribe(struct browser *b, const struct browser_cbs *cbs,
    void *arg)
{
	(void)b;
	(void)cbs;
	(void)arg;
}

/* Start (stub). */
int
browser_start(struct browser *b, char **cause)
{
	(void)b;
	*cause = xstrdup("browser: not written yet");
	return -1;
}

/* Stop (stub). */
int
browser_stop(struct browser *b, char **cause)
{
	(void)b;
	*cause = xstrdup("browser: not written yet");
	return -1;
}

/* Restart (stub). */
int
browser_restart(struct browser *b, char **cause)
{
	(void)b;
	*cause = xstrdup("browser: not written yet");
	return -1;
}

/* The mode. */
enum browser_mode
browser_mode(const struct browser *b)
{
	return b->mode;
}

/* The kind. */
enum browser_kind
browser_kind(const struct browser *b)
{
	(void)b;
	return BROWSER_KIND_NONE;
}

/* The state. */
enum browser_state
browser_state(const struct browser *b)
{
	(void)b;
	return BROWSER_IDLE;
}

/* The state's word. */
const char *
browser_state_name(enum browser_state s)
{
	(void)s;
	return "idle";
}

/* Stub getters. */
const char *browser_url(const struct browser *b) { (void)b; return NULL; }
const char *browser_why(const struct browser *b) { (void)b; return NULL; }
const char *browser_label(const struct browser *b) { (void)b; return "Chrome Headless"; }
const char *browser_product(const struct browser *b) { (void)b; return NULL; }
const char *browser_profile(const struct browser *b) { (void)b; return NULL; }
const char *browser_container(const struct browser *b) { (void)b; return NULL; }
pid_t browser_pid(const struct browser *b) { (void)b; return 0; }

/*
 * config-copy.c: a configuration copied whole (config_copy()), each
 * section's struct walked over config_options[] as config.c's
 * config_clear() walks it to free it, so an option added to the table is
 * copied without a word here.  !dup and !edit change a copy of the
 * deck's configuration and move the deck to it.
 */
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "expand.h"
#include "xmalloc.h"

/* Return a copy of the count strings at v (NULL-terminated), or NULL. */
static char **
config_copy_strv(char *const *v, size_t count)
{
	char	**copy;
	size_t	  i;

	if (v == NULL)
		return NULL;
	copy = xcalloc(count + 1, sizeof *copy);
	for (i = 0; i < count; i++)
		copy[i] = v[i] != NULL ? xstrdup(v[i]) : NULL;
	return copy;
}

/* Return a string copied, or NULL. */
static char *
config_copy_str(const char *s)
{
	return s != NULL ? xstrdup(s) : NULL;
}

/*
 * Make the struct of section at dst, a byte copy of src's, own copies of
 * every string, array and table an option of the section points to.
 */
static void
config_copy_section(const char *section, void *dst)
{
	const struct config_option	*o;
	struct expand_param		*pp, *np;
	struct config_dep		*dp, *nd;
	char				*field;
	size_t				 i, j, n;

	for (i = 0; i < config_noptions; i++) {
		o = &config_options[i];
		if (strcmp(o->section, section) != 0)
			continue;
		field = (char *)dst + o->offset;
		n = 0;
		if (o->type == CONFIG_STRING_ARRAY ||
		    o->type == CONFIG_STRING_TABLE || o->type == CONFIG_DEPS)
			memcpy(&n, (char *)dst + o->count, sizeof n);
		switch (o->type) {
		case CONFIG_STRING:
		case CONFIG_STRING_OR_FALSE:
			*(char **)field = config_copy_str(*(char **)field);
			break;
		case CONFIG_DEPS:
			if ((dp = *(struct config_dep **)field) == NULL)
				break;
			nd = xcalloc(n + 1, sizeof *nd);
			for (j = 0; j < n; j++) {
				nd[j] = dp[j];
				nd[j].name = config_copy_str(dp[j].name);
			}
			*(struct config_dep **)field = nd;
			break;
		case CONFIG_STRING_TABLE:
		case CONFIG_STRING_ARRAY:
			if (!(o->flags & CONFIG_PAIRS)) {
				*(char ***)field = config_copy_strv(
				    *(char ***)field, n);
				break;
			}
			if ((pp = *(struct expand_param **)field) == NULL)
				break;
			np = xcalloc(n + 1, sizeof *np);
			for (j = 0; j < n; j++) {
				np[j].key = config_copy_str(pp[j].key);
				np[j].value = config_copy_str(pp[j].value);
			}
			*(struct expand_param **)field = np;
			break;
		default:
			break;
		}
	}
}

/* Copy configured job src into dst, which owns what it holds then. */
void
config_copy_job(struct config_job *dst, const struct config_job *src)
{
	*dst = *src;
	config_copy_section("job", dst);
}

/* Return a copy of cfg that owns everything it holds (config_free()). */
struct config *
config_copy(const struct config *cfg)
{
	struct config	*c;
	size_t		 i;

	c = xcalloc(1, sizeof *c);
	*c = *cfg;
	c->path = config_copy_str(cfg->path);
	config_copy_section("settings", &c->settings);
	config_copy_section("browser", &c->browser);
	c->jobs = xcalloc(cfg->njobs + 1, sizeof *c->jobs);
	for (i = 0; i < cfg->njobs; i++)
		config_copy_job(&c->jobs[i], &cfg->jobs[i]);
	c->keys = xcalloc(cfg->nkeys + 1, sizeof *c->keys);
	for (i = 0; i < cfg->nkeys; i++) {
		c->keys[i] = cfg->keys[i];
		c->keys[i].action = config_copy_str(cfg->keys[i].action);
		c->keys[i].keys = config_copy_str(cfg->keys[i].keys);
	}
	c->groups = xcalloc(cfg->ngroups + 1, sizeof *c->groups);
	for (i = 0; i < cfg->ngroups; i++) {
		c->groups[i] = cfg->groups[i];
		c->groups[i].name = config_copy_str(cfg->groups[i].name);
		config_copy_section("groups", &c->groups[i]);
	}
	c->hosts = xcalloc(cfg->nhosts + 1, sizeof *c->hosts);
	for (i = 0; i < cfg->nhosts; i++) {
		c->hosts[i] = cfg->hosts[i];
		c->hosts[i].name = config_copy_str(cfg->hosts[i].name);
		config_copy_section("hosts", &c->hosts[i]);
	}
	return c;
}

/*
 * config-diff.c: what differs between two values of one section of the
 * configuration (a [[job]], [settings], [groups.NAME], [browser]), option
 * by option, walked over config_options[] as config.c walks it to free
 * them, so an option added to the table is compared without a word here.
 */
#include <string.h>

#include "config.h"
#include "expand.h"

/* Return whether two strings that may be NULL are equal. */
static int
config_diff_str(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	return strcmp(a, b) == 0;
}

/* Return the size_t count of array or table option o in the struct at base. */
static size_t
config_diff_count(const struct config_option *o, const void *base)
{
	size_t	n;

	memcpy(&n, (const char *)base + o->count, sizeof n);
	return n;
}

/* Return whether option o has the same value in the structs a and b. */
static int
config_diff_same(const struct config_option *o, const void *a, const void *b)
{
	const char			*fa = (const char *)a + o->offset;
	const char			*fb = (const char *)b + o->offset;
	const struct expand_param	*pa, *pb;
	const struct config_dep		*da, *db;
	char *const			*sa, *const *sb;
	size_t				 i, n;
	double				 xa, xb;
	int				 ia, ib;

	switch (o->type) {
	case CONFIG_STRING:
	case CONFIG_STRING_OR_FALSE:
		return config_diff_str(*(char *const *)fa, *(char *const *)fb);
	case CONFIG_INT:
	case CONFIG_BOOL:
	case CONFIG_ENUM:
		memcpy(&ia, fa, sizeof ia);
		memcpy(&ib, fb, sizeof ib);
		return ia == ib;
	case CONFIG_NUMBER:
		memcpy(&xa, fa, sizeof xa);
		memcpy(&xb, fb, sizeof xb);
		return xa == xb;
	default:
		break;
	}
	if ((n = config_diff_count(o, a)) != config_diff_count(o, b))
		return 0;
	if (o->type == CONFIG_DEPS) {
		da = *(const struct config_dep *const *)fa;
		db = *(const struct config_dep *const *)fb;
		for (i = 0; i < n; i++) {
			if (!config_diff_str(da[i].name, db[i].name) ||
			    da[i].browser != db[i].browser ||
			    da[i].cond != db[i].cond)
				return 0;
		}
		return 1;
	}
	if (o->flags & CONFIG_PAIRS) {
		pa = *(const struct expand_param *const *)fa;
		pb = *(const struct expand_param *const *)fb;
		for (i = 0; i < n; i++) {
			if (!config_diff_str(pa[i].key, pb[i].key) ||
			    !config_diff_str(pa[i].value, pb[i].value))
				return 0;
		}
		return 1;
	}
	sa = *(char *const *const *)fa;
	sb = *(char *const *const *)fb;
	for (i = 0; i < n; i++) {
		if (!config_diff_str(sa[i], sb[i]))
			return 0;
	}
	return 1;
}

/*
 * Compare the structs a and b of section ("job", "settings", "groups",
 * "browser") option by option; call changed(name, arg) for each option
 * whose value differs, and return how many did.
 */
int
config_diff(const char *section, const void *a, const void *b,
    void (*changed)(const char *, void *), void *arg)
{
	const struct config_option	*o;
	size_t				 i;
	int				 n = 0;

	for (i = 0; i < config_noptions; i++) {
		o = &config_options[i];
		if (strcmp(o->section, section) != 0 ||
		    config_diff_same(o, a, b))
			continue;
		n++;
		if (changed != NULL)
			changed(o->name, arg);
	}
	return n;
}

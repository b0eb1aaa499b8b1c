/*
 * fuzz_config.c: fuzz target for the configuration (include/config.h).
 * The input goes through config_parse() as config.toml and through
 * config_parse_procfile() as a Procfile.  A config that loads is walked
 * and checked against the promises of config.h and config_options[]:
 * numbers within their bounds, non-empty strings where required, job
 * names unique, [A-Za-z0-9_.-]+ and not all digits, arrays terminated
 * where their counts say, the focus key a valid name, and command, args,
 * cwd and input templates that expand with the job's own params, every
 * dependency a job of the file other than itself, group names like
 * job names, and [browser]'s cdp_url NULL, "auto" or a ws:// or wss://
 * URL (always NULL from a Procfile).  An error must name the file first.
 * The first jobs of a TOML config are written back (config_job_toml())
 * and read as a job of their config (config_parse_job()): that must
 * succeed and write the same text again.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bind.h"
#include "config.h"
#include "expand.h"
#include "fuzz.h"

/* The characters of a job name. */
#define FUZZ_CONFIG_NAME \
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-"

/* Abort unless template s expands with job j's params (NULL is fine). */
static void
fuzz_config_template(const struct config_job *j, const char *s, int flags)
{
	char	*r, *cause = NULL;

	if (s == NULL)
		return;
	r = expand_text(s, NULL, NULL, j->params, j->nparams, flags, &cause);
	if (r == NULL)
		abort();
	free(r);
}

/*
 * Abort unless each option of section, in base, keeps its table entry:
 * numbers within bounds, a non-empty string where it must be.
 */
static void
fuzz_config_options(const char *section, const void *base)
{
	const struct config_option	*o;
	const char			*field, *str;
	double				 d;
	size_t				 i;

	for (i = 0; i < config_noptions; i++) {
		o = &config_options[i];
		if (strcmp(o->section, section) != 0)
			continue;
		field = (const char *)base + o->offset;
		if (o->type == CONFIG_STRING) {
			str = *(char *const *)(const void *)field;
			if (str != NULL && str[0] == '\0' &&
			    (o->flags & CONFIG_NONEMPTY))
				abort();
			continue;
		}
		if (o->type == CONFIG_INT)
			d = *(const int *)(const void *)field;
		else if (o->type == CONFIG_NUMBER)
			d = *(const double *)(const void *)field;
		else
			continue;
		/* A number with no default is -1 when unset (stop_timeout). */
		if (o->type == CONFIG_NUMBER && o->def == NULL && d == -1)
			continue;
		if (!(d >= o->min && d <= o->max))
			abort();
	}
}

/* Abort unless job j of cfg keeps every promise of struct config_job. */
static void
fuzz_config_job(const struct config *cfg, const struct config_job *j)
{
	size_t	i, len;

	if (j->name == NULL || (len = strlen(j->name)) == 0 ||
	    strspn(j->name, FUZZ_CONFIG_NAME) != len ||
	    strspn(j->name, "0123456789") == len)
		abort();
	if (config_find_job(cfg, j->name) != j)
		abort();
	if (j->command == NULL || j->command[0] == '\0')
		abort();
	if (j->args != NULL && j->args[j->nargs] != NULL)
		abort();
	if (j->env != NULL) {
		if (j->env[j->nenv] != NULL)
			abort();
		for (i = 0; i < j->nenv; i++) {
			if (strchr(j->env[i], '=') == NULL)
				abort();
		}
	}
	if (j->params != NULL) {
		if (j->params[j->nparams].key != NULL)
			abort();
		for (i = 0; i < j->nparams; i++) {
			if (j->params[i].key == NULL)
				abort();
			if (j->params[i].value != NULL)
				(void)strlen(j->params[i].value);
		}
	}
	if (j->restart != CONFIG_RESTART_NO &&
	    j->restart != CONFIG_RESTART_ON_FAILURE &&
	    j->restart != CONFIG_RESTART_ALWAYS)
		abort();
	for (i = 0; i < j->ndeps; i++) {
		if (config_find_job(cfg, j->deps[i].name) == NULL ||
		    strcmp(j->deps[i].name, j->name) == 0)
			abort();
	}
	fuzz_config_options("job", j);
	fuzz_config_template(j, j->command, j->args == NULL ? EXPAND_SHELL : 0);
	for (i = 0; i < j->nargs; i++)
		fuzz_config_template(j, j->args[i], 0);
	fuzz_config_template(j, j->cwd, 0);
	fuzz_config_template(j, j->input, 0);
}

/* The jobs of one config written back and read again. */
#define FUZZ_CONFIG_ROUND_TRIPS	8

/*
 * Write each of the first jobs of cfg, a TOML config, as TOML, read it as
 * a job of cfg, and abort unless that works and writes the same text.
 */
static void
fuzz_config_round_trip(const struct config *cfg)
{
	struct config_job	*j;
	char			*text, *again, *cause = NULL;
	size_t			 i;

	for (i = 0; i < cfg->njobs && i < FUZZ_CONFIG_ROUND_TRIPS; i++) {
		text = config_job_toml(&cfg->jobs[i]);
		if (config_parse_job("edit", text, strlen(text), cfg, &j,
		    &cause) != 0 || j == NULL)
			abort();
		again = config_job_toml(j);
		if (strcmp(text, again) != 0)
			abort();
		free(again);
		free(text);
		config_job_free(j);
	}
}

/* Check what one parse gave: a config with no cause, or a named cause. */
static void
fuzz_config_check(int rc, struct config *cfg, char *cause, const char *name)
{
	const struct config_settings	*s;
	const char			*u;
	struct bind			*b;
	size_t				 i, len;

	if (rc != 0) {
		if (rc != -1 || cfg != NULL || cause == NULL ||
		    strncmp(cause, name, strlen(name)) != 0 ||
		    cause[strlen(name)] != ':')
			abort();
		free(cause);
		return;
	}
	if (cfg == NULL || cause != NULL)
		abort();
	s = &cfg->settings;
	if (s->shell != NULL)
		(void)strlen(s->shell);
	if (s->log_dir != NULL)
		(void)strlen(s->log_dir);
	/* Checked at load: applying cannot fail and leaves a focus key. */
	b = bind_new();
	config_apply_keys(cfg, b);
	if (bind_first_key(b, BIND_MAIN, BIND_FOCUS) == BIND_NO_KEY)
		abort();
	bind_free(b);
	fuzz_config_options("settings", s);
	if (cfg->njobs > 0 && cfg->jobs == NULL)
		abort();
	for (i = 0; i < cfg->njobs; i++)
		fuzz_config_job(cfg, &cfg->jobs[i]);
	if (cfg->ngroups > 0 && cfg->groups == NULL)
		abort();
	for (i = 0; i < cfg->ngroups; i++) {
		len = strlen(cfg->groups[i].name);
		if (len == 0 || strspn(cfg->groups[i].name,
		    FUZZ_CONFIG_NAME) != len)
			abort();
		fuzz_config_options("groups", &cfg->groups[i]);
	}
	/* Hosts: a job name's NAME, exactly one of ssh and slurm. */
	if (cfg->nhosts > 0 && cfg->hosts == NULL)
		abort();
	for (i = 0; i < cfg->nhosts; i++) {
		len = strlen(cfg->hosts[i].name);
		if (len == 0 || strspn(cfg->hosts[i].name,
		    FUZZ_CONFIG_NAME) != len ||
		    (cfg->hosts[i].ssh == NULL) == (cfg->hosts[i].slurm ==
		    NULL) || (cfg->hosts[i].ssh != NULL &&
		    !config_ssh_destination(cfg->hosts[i].ssh)))
			abort();
		fuzz_config_options("hosts", &cfg->hosts[i]);
	}
	for (i = 0; i < cfg->njobs; i++) {
		if (cfg->jobs[i].host != NULL && config_find_host(cfg,
		    cfg->jobs[i].host) == NULL &&
		    !config_ssh_destination(cfg->jobs[i].host))
			abort();
	}
	u = cfg->browser.cdp_url;
	if (u != NULL && strcmp(u, "auto") != 0 &&
	    strncmp(u, "ws://", 5) != 0 && strncmp(u, "wss://", 6) != 0)
		abort();
	if ((u != NULL || cfg->browser.line != 0) && cfg->procfile)
		abort();
	if (cfg->browser.args != NULL &&
	    cfg->browser.args[cfg->browser.nargs] != NULL)
		abort();
	fuzz_config_options("browser", &cfg->browser);
	config_free(cfg);
}

/* Load the input as a TOML configuration, then as a Procfile. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config	*cfg = NULL;
	char		*cause = NULL;
	int		 rc;

	rc = config_parse("config.toml", (const char *)data, size, &cfg,
	    &cause);
	if (rc == 0)
		fuzz_config_round_trip(cfg);
	fuzz_config_check(rc, cfg, cause, "config.toml");

	cfg = NULL;
	cause = NULL;
	rc = config_parse_procfile("Procfile", (const char *)data, size, &cfg,
	    &cause);
	fuzz_config_check(rc, cfg, cause, "Procfile");
	return 0;
}

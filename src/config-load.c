/*
 * config-load.c: reading a configuration file into a struct config
 * (config-private.h): the TOML tree's top level ([settings], [[job]],
 * [groups.NAME], [hosts.NAME], [browser], env_file, [keys]; an unknown
 * key is an error
 * with a suggestion), a Procfile with foreman's $PORT and a .env beside it,
 * and the file's security.  config_load() reads with open/fstat/read, at
 * most TOML_MAX_INPUT bytes.  The file holds commands jobdeck runs, so, as
 * ssh does with its files, one that is writable by group or others, or
 * owned by someone other than the user or root, is refused.  /dev/null is
 * the empty configuration.  Errors stop at the first one,
 * "NAME:LINE:COL: message".
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "config-private.h"
#include "expand.h"
#include "procfile.h"
#include "textesc.h"
#include "xmalloc.h"

static int	 config_jobs(struct config_ctx *, struct config *,
		     const struct toml_value *, const struct config *);
static int	 config_unknown_root(struct config_ctx *, const char *, size_t,
		     const struct toml_value *, int, int);
static int	 config_root(struct config_ctx *, struct config *,
		     const struct toml_value *);
static int	 config_is_procfile(const char *);
static int	 config_read(const char *, int, char **, size_t *, char **);

/*
 * Apply the job array v: one struct config_job per table, in order; then,
 * when base is set (config_parse_job()), base's jobs of other names as
 * shallow copies with no place (line 0), so the stack is checked whole.
 */
static int
config_jobs(struct config_ctx *ctx, struct config *cfg,
    const struct toml_value *v, const struct config *base)
{
	const struct toml_value	*t;
	struct config_names	 names;
	size_t			 n, i, nb;
	int			 r = 0;

	if (toml_type(v) != TOML_ARRAY)
		return config_fail(ctx, toml_line(v), toml_col(v),
		    xstrdup("job must be an array of tables ([[job]])"));
	n = toml_array_size(v);
	nb = base != NULL ? base->njobs : 0;
	cfg->jobs = xcalloc(n + nb == 0 ? 1 : n + nb, sizeof *cfg->jobs);
	for (names.size = 16; names.size < 2 * (n + nb); names.size *= 2)
		/* nothing */;
	names.slot = xcalloc(names.size, sizeof *names.slot);
	for (i = 0; r == 0 && i < n; i++) {
		t = toml_array_get(v, i);
		if (toml_type(t) != TOML_TABLE) {
			r = config_fail(ctx, toml_line(t), toml_col(t),
			    xstrdup("job must be an array of tables "
			    "([[job]])"));
			break;
		}
		config_init("job", &cfg->jobs[i]);
		cfg->jobs[i].line = toml_line(t);
		cfg->njobs = i + 1;
		if (config_section(ctx, "job", "[[job]]", t,
		    &cfg->jobs[i]) != 0 ||
		    config_check_job(ctx, cfg, i, t, v, &names) != 0 ||
		    config_check_timer(ctx, &cfg->jobs[i], t) != 0)
			r = -1;
	}
	for (i = 0; r == 0 && i < nb; i++) {
		cfg->jobs[cfg->njobs] = base->jobs[i];
		cfg->jobs[cfg->njobs].line = 0;
		if (config_names_add(&names, cfg->jobs, cfg->njobs) == 0)
			cfg->njobs++;
	}
	if (r == 0)
		r = config_check_stack(ctx, cfg, v, &names);
	free(names.slot);
	return r;
}

/* Report the unknown top-level key (len bytes) whose value is v. */
static int
config_unknown_root(struct config_ctx *ctx, const char *key, size_t len,
    const struct toml_value *v, int line, int col)
{
	const char	*near;
	char		*e, *hint, *msg;
	size_t		 k;
	int		 header;

	near = config_suggest(NULL, key, len);
	if (near != NULL && strcmp(near, "env_file") == 0)
		hint = xstrdup(" (did you mean 'env_file'?)");
	else if (near != NULL)
		hint = xprintf(" (did you mean %s?)", strcmp(near, "keys") == 0 ?
		    "[keys]" : config_section_table(near));
	else
		hint = NULL;
	for (k = 0; hint == NULL && k < config_nsections; k++) {
		if (config_lookup(config_sections[k], key, len) != NULL)
			hint = xprintf(" (it belongs in %s)",
			    config_section_table(config_sections[k]));
	}
	if (hint == NULL)
		hint = xstrdup("");

	/* A header's '[' comes before its key; a key = value's value after. */
	header = toml_line(v) < line ||
	    (toml_line(v) == line && toml_col(v) < col);
	e = textesc_excerpt(key, len, CONFIG_EXCERPT_MAX);
	if (header && toml_type(v) == TOML_TABLE)
		msg = xprintf("unknown table [%s]%s", e, hint);
	else if (header && toml_type(v) == TOML_ARRAY)
		msg = xprintf("unknown table [[%s]]%s", e, hint);
	else
		msg = xprintf("unknown key '%s'%s", e, hint);
	if (header) {
		line = toml_line(v);
		col = toml_col(v);
	}
	free(e);
	free(hint);
	return config_fail(ctx, line, col, msg);
}

/*
 * How [groups.NAME] and [hosts.NAME] are read alike: the section, what
 * one table is ("group"), the rule of its NAME, and where the array of
 * structs, its count, and a struct's name and line are.
 */
struct config_named {
	const char	*section;
	const char	*what;
	int		(*check)(const char *, char **);
	size_t		 size;
	size_t		 name;		/* offset of the char * */
	size_t		 line;		/* offset of the int */
};

/*
 * Apply the table v of section nt: a [SECTION.NAME] table of the
 * section's options for each NAME (nt's rule), into the array *arr of
 * *n structs, in file order.
 */
static int
config_named(struct config_ctx *ctx, const struct config_named *nt,
    const struct toml_value *v, void **arr, size_t *n)
{
	const struct toml_value	*tv;
	const char		*key, *sec = nt->section;
	char			*e, *msg, *where, *base, *name;
	size_t			 count, i, len;
	int			 line, r;

	if (toml_type(v) != TOML_TABLE)
		return config_fail(ctx, toml_line(v), toml_col(v),
		    xprintf("%s must be a table of tables ([%s.NAME])", sec,
		    sec));
	count = toml_table_size(v);
	*arr = xcalloc(count == 0 ? 1 : count, nt->size);
	for (i = 0; i < count; i++) {
		key = toml_table_key(v, i, &len);
		if (strlen(key) != len)
			msg = xprintf("%s names must not contain NUL bytes",
			    nt->what);
		else if (nt->check(key, &msg) == 0)
			msg = NULL;
		if (msg != NULL)
			return config_fail(ctx, toml_table_key_line(v, i),
			    toml_table_key_col(v, i), msg);
		e = textesc_excerpt(key, len, CONFIG_EXCERPT_MAX);
		tv = toml_table_value(v, i);
		if (toml_type(tv) != TOML_TABLE) {
			msg = xprintf("%s.%s must be a table ([%s.%s])", sec, e,
			    sec, e);
			free(e);
			return config_fail(ctx, toml_line(tv), toml_col(tv),
			    msg);
		}
		where = xprintf("[%s.%s]", sec, e);
		free(e);
		base = (char *)*arr + i * nt->size;
		config_init(sec, base);
		name = xstrndup(key, len);
		memcpy(base + nt->name, &name, sizeof name);
		line = toml_line(tv);
		memcpy(base + nt->line, &line, sizeof line);
		*n = i + 1;
		r = config_section(ctx, sec, where, tv, base);
		free(where);
		if (r != 0)
			return -1;
	}
	return 0;
}

/*
 * Apply the groups table v: a [groups.NAME] table of the "groups" options
 * for each group, NAME following the rule of job names.
 */
static int
config_groups(struct config_ctx *ctx, struct config *cfg,
    const struct toml_value *v)
{
	static const struct config_named nt = { "groups", "group",
	    config_check_group, sizeof (struct config_group),
	    offsetof(struct config_group, name),
	    offsetof(struct config_group, line) };
	void	*arr = NULL;
	int	 r;

	r = config_named(ctx, &nt, v, &arr, &cfg->ngroups);
	cfg->groups = arr;
	return r;
}

/*
 * Apply the hosts table v: a [hosts.NAME] table for each host, NAME
 * following the rule of job names, with exactly one of ssh and slurm (the
 * second written is the error).
 */
static int
config_hosts(struct config_ctx *ctx, struct config *cfg,
    const struct toml_value *v)
{
	static const struct config_named nt = { "hosts", "host",
	    config_check_host_name, sizeof (struct config_host),
	    offsetof(struct config_host, name),
	    offsetof(struct config_host, line) };
	const struct toml_value	*tv, *ssh, *slurm, *later;
	const struct config_host *h;
	void			*arr = NULL;
	char			*e, *msg;
	size_t			 i;
	int			 r;

	r = config_named(ctx, &nt, v, &arr, &cfg->nhosts);
	cfg->hosts = arr;
	for (i = 0; r == 0 && i < cfg->nhosts; i++) {
		h = &cfg->hosts[i];
		tv = toml_table_value(v, i);
		ssh = toml_table_get(tv, "ssh");
		slurm = toml_table_get(tv, "slurm");
		if (ssh != NULL && slurm == NULL)
			continue;
		if (ssh == NULL && slurm != NULL)
			continue;
		e = textesc_excerpt(h->name, strlen(h->name),
		    CONFIG_EXCERPT_MAX);
		if (ssh == NULL) {
			msg = xprintf("hosts.%s: needs ssh or slurm", e);
			later = tv;
		} else {
			msg = xprintf("hosts.%s: ssh and slurm are exclusive",
			    e);
			later = config_before(ssh, slurm) ? slurm : ssh;
		}
		free(e);
		r = config_fail(ctx, toml_line(later), toml_col(later), msg);
	}
	return r;
}

/*
 * Apply the top-level env_file v, the same option as [settings] env_file
 * (settings, the root's settings value, may set it too: an error at the
 * later of the two).
 */
static int
config_env_file(struct config_ctx *ctx, struct config *cfg,
    const struct toml_value *v, const struct toml_value *settings)
{
	const struct toml_value	*sv = NULL, *later;

	if (settings != NULL && toml_type(settings) == TOML_TABLE)
		sv = toml_table_get(settings, "env_file");
	if (sv != NULL) {
		later = config_before(v, sv) ? sv : v;
		return config_fail(ctx, toml_line(later), toml_col(later),
		    xprintf("env_file is set both at the top level (line %d) "
		    "and in [settings] (line %d): keep one", toml_line(v),
		    toml_line(sv)));
	}
	return config_set(ctx, config_find_option("settings", "env_file"), v,
	    &cfg->settings);
}

/*
 * Apply the root table: [settings], [[job]], [keys], [groups.NAME],
 * [hosts.NAME], [browser] and env_file only; then check the key bindings
 * (focus_key and [keys] together), the jobs' templates, which need the
 * settings (the shell), and their hosts, which need [hosts], wherever
 * they are.
 */
static int
config_root(struct config_ctx *ctx, struct config *cfg,
    const struct toml_value *root)
{
	const struct toml_value	*v, *jobs;
	const char		*key;
	size_t			 i, len;

	for (i = 0; i < toml_table_size(root); i++) {
		key = toml_table_key(root, i, &len);
		v = toml_table_value(root, i);
		if (len == 8 && memcmp(key, "settings", 8) == 0) {
			if (toml_type(v) != TOML_TABLE)
				return config_fail(ctx, toml_line(v),
				    toml_col(v), xstrdup("settings must be a "
				    "table ([settings])"));
			if (config_section(ctx, "settings", "[settings]", v,
			    &cfg->settings) != 0)
				return -1;
		} else if (len == 3 && memcmp(key, "job", 3) == 0) {
			if (config_jobs(ctx, cfg, v, NULL) != 0)
				return -1;
		} else if (len == 4 && memcmp(key, "keys", 4) == 0) {
			if (config_keys(ctx, cfg, BIND_MAIN, v) != 0)
				return -1;
		} else if (len == 6 && memcmp(key, "groups", 6) == 0) {
			if (config_groups(ctx, cfg, v) != 0)
				return -1;
		} else if (len == 5 && memcmp(key, "hosts", 5) == 0) {
			if (config_hosts(ctx, cfg, v) != 0)
				return -1;
		} else if (len == 8 && memcmp(key, "env_file", 8) == 0) {
			if (config_env_file(ctx, cfg, v,
			    toml_table_get(root, "settings")) != 0)
				return -1;
		} else if (len == 7 && memcmp(key, "browser", 7) == 0) {
			if (toml_type(v) != TOML_TABLE)
				return config_fail(ctx, toml_line(v),
				    toml_col(v), xstrdup("browser must be a "
				    "table ([browser])"));
			cfg->browser.line = toml_line(v);
			if (config_section(ctx, "browser", "[browser]", v,
			    &cfg->browser) != 0)
				return -1;
		} else
			return config_unknown_root(ctx, key, len, v,
			    toml_table_key_line(root, i),
			    toml_table_key_col(root, i));
	}
	if (config_check_keys(ctx, cfg) != 0)
		return -1;
	if (config_check_browser_deps(ctx, cfg) != 0)
		return -1;
	jobs = toml_table_get(root, "job");
	for (i = 0; i < cfg->njobs; i++) {
		if (config_check_templates(ctx, cfg, &cfg->jobs[i],
		    toml_array_get(jobs, i)) != 0 ||
		    config_check_job_host(ctx, cfg, &cfg->jobs[i],
		    toml_array_get(jobs, i)) != 0)
			return -1;
	}
	return 0;
}

/* Return a config with the defaults of every setting and no jobs. */
struct config *
config_default(void)
{
	struct config	*cfg;

	cfg = xcalloc(1, sizeof *cfg);
	config_init("settings", &cfg->settings);
	config_init("browser", &cfg->browser);
	return cfg;
}

/* Return 1 if step is the key name. */
static int
config_step_is(const struct toml_step *step, const char *name)
{
	return step->key != NULL && step->len == strlen(name) &&
	    memcmp(step->key, name, step->len) == 0;
}

/*
 * Return the option a null error's path (toml.h) was written for, the
 * null being its value: NAME at the top level, [SECTION] NAME,
 * [[job]] NAME, [groups.G] NAME or [hosts.H] NAME; else NULL.
 */
static const struct config_option *
config_null_option(const struct toml_error *err)
{
	const struct toml_step	*path = err->path, *last;
	size_t			 n = err->npath, k;

	if (n == 0 || path[n - 1].key == NULL)
		return NULL;
	last = &path[n - 1];
	if (n == 1)
		return config_step_is(last, "env_file") ?
		    config_find_option("settings", "env_file") : NULL;
	if (n == 3 && config_step_is(&path[0], "job") && path[1].key == NULL)
		return config_lookup("job", last->key, last->len);
	if (n == 3 && config_step_is(&path[0], "groups") &&
	    path[1].key != NULL)
		return config_lookup("groups", last->key, last->len);
	if (n == 3 && config_step_is(&path[0], "hosts") &&
	    path[1].key != NULL)
		return config_lookup("hosts", last->key, last->len);
	for (k = 0; n == 2 && k < config_nsections; k++) {
		if (strcmp(config_sections[k], "job") != 0 &&
		    strcmp(config_sections[k], "groups") != 0 &&
		    strcmp(config_sections[k], "hosts") != 0 &&
		    config_step_is(&path[0], config_sections[k]))
			return config_lookup(config_sections[k], last->key,
			    last->len);
	}
	return NULL;
}

/*
 * Report the TOML error err as "NAME:LINE:COL: message"; a null written
 * for an option that takes false says how to write none.
 */
static int
config_toml_error(struct config_ctx *ctx, const struct toml_error *err)
{
	const struct config_option	*o;

	if (err->code == TOML_ERROR_NULL &&
	    (o = config_null_option(err)) != NULL &&
	    o->type == CONFIG_STRING_OR_FALSE)
		return config_fail(ctx, err->line, err->col, xprintf("%s = %s "
		    "is not TOML: leave %s out, or write %s = false, for %s",
		    o->name, err->word, o->name, o->name, o->off));
	return config_fail(ctx, err->line, err->col, xstrdup(err->message));
}

/*
 * Parse the TOML text buf (len bytes) into *out; return 0, or -1 with *out
 * NULL and *cause "NAME:LINE:COL: message".  name is only for messages.
 */
int
config_parse(const char *name, const char *buf, size_t len,
    struct config **out, char **cause)
{
	struct config_ctx	 ctx;
	struct toml_value	*root;
	struct toml_error	 err;
	struct config		*cfg;

	*out = NULL;
	*cause = NULL;
	ctx.name = name == NULL ? "config" : name;
	ctx.cause = cause;
	if (buf == NULL)
		buf = "";
	if ((root = toml_parse_report(buf, len, &err)) == NULL) {
		config_toml_error(&ctx, &err);
		toml_error_clear(&err);
		return -1;
	}
	cfg = config_default();
	if (config_root(&ctx, cfg, root) != 0) {
		toml_free(root);
		config_free(cfg);
		return -1;
	}
	toml_free(root);
	*out = cfg;
	return 0;
}

/*
 * Check that root, an edited job's text, is one [[job]] table and nothing
 * else; return it, or NULL after config_fail().
 */
static const struct toml_value *
config_one_job(struct config_ctx *ctx, const struct toml_value *root)
{
	const struct toml_value	*v, *t;
	const char		*key;
	char			*e, *msg;
	size_t			 i, len;

	for (i = 0; i < toml_table_size(root); i++) {
		key = toml_table_key(root, i, &len);
		if (len == 3 && memcmp(key, "job", 3) == 0)
			continue;
		e = textesc_excerpt(key, len, CONFIG_EXCERPT_MAX);
		msg = xprintf("'%s' is not part of a job: the text is one "
		    "[[job]] table", e);
		free(e);
		config_fail(ctx, toml_table_key_line(root, i),
		    toml_table_key_col(root, i), msg);
		return NULL;
	}
	v = toml_table_get(root, "job");
	if (v == NULL || toml_type(v) != TOML_ARRAY ||
	    toml_array_size(v) == 0) {
		config_fail(ctx, v != NULL ? toml_line(v) : 1,
		    v != NULL ? toml_col(v) : 1,
		    xstrdup("the text must be one [[job]] table"));
		return NULL;
	}
	if (toml_array_size(v) > 1) {
		t = toml_array_get(v, 1);
		config_fail(ctx, toml_line(t), toml_col(t), xstrdup("a second "
		    "[[job]]: the text is one job"));
		return NULL;
	}
	return v;
}

/*
 * Parse buf (len bytes), one job's text, as a job of base's stack into
 * *out (config.h); 0, or -1 with *out NULL and *cause.
 */
int
config_parse_job(const char *name, const char *buf, size_t len,
    const struct config *base, struct config_job **out, char **cause)
{
	struct config_ctx	 ctx;
	struct toml_value	*root;
	const struct toml_value	*v;
	struct toml_error	 err;
	struct config		*cfg, *def = NULL;
	struct config_job	*j;
	int			 r = -1;

	*out = NULL;
	*cause = NULL;
	ctx.name = name == NULL ? "config" : name;
	ctx.cause = cause;
	if ((root = toml_parse_report(buf == NULL ? "" : buf, len,
	    &err)) == NULL) {
		config_toml_error(&ctx, &err);
		toml_error_clear(&err);
		return -1;
	}
	if (base == NULL)
		base = def = config_default();
	/* base's settings, [browser] and [hosts], borrowed: never freed. */
	cfg = xcalloc(1, sizeof *cfg);
	cfg->settings = base->settings;
	cfg->browser = base->browser;
	cfg->hosts = base->hosts;
	cfg->nhosts = base->nhosts;
	if ((v = config_one_job(&ctx, root)) != NULL &&
	    config_jobs(&ctx, cfg, v, base) == 0 &&
	    config_check_browser_deps(&ctx, cfg) == 0 &&
	    config_check_templates(&ctx, cfg, &cfg->jobs[0],
	    toml_array_get(v, 0)) == 0 &&
	    config_check_job_host(&ctx, cfg, &cfg->jobs[0],
	    toml_array_get(v, 0)) == 0) {
		*out = xmalloc(sizeof **out);
		**out = cfg->jobs[0];
		r = 0;
	} else if (cfg->njobs > 0) {
		j = xmalloc(sizeof *j);
		*j = cfg->jobs[0];
		config_job_free(j);
	}
	free(cfg->jobs);
	free(cfg);
	config_free(def);
	toml_free(root);
	return r;
}

/*
 * Parse the Procfile text buf (len bytes) into *out: one job per line with
 * the line's command as a shell string, its port as foreman gives it,
 * and defaults for the rest.  Return 0, or -1 with *out NULL and *cause
 * "NAME:LINE: message".
 */
int
config_parse_procfile(const char *name, const char *buf, size_t len,
    struct config **out, char **cause)
{
	struct procfile_entry	*ents;
	struct config		*cfg;
	struct config_job	*j;
	struct expand_command	 c;
	struct expand_result	 res;
	char			*pcause = NULL, *msg;
	size_t			 n, i;

	*out = NULL;
	*cause = NULL;
	if (name == NULL)
		name = "Procfile";
	if (procfile_parse(buf, len, &ents, &n, &pcause) != 0) {
		*cause = xprintf("%s:%s", name, pcause == NULL ?
		    "0: cannot parse" : pcause);
		free(pcause);
		return -1;
	}
	cfg = config_default();
	cfg->jobs = xcalloc(n == 0 ? 1 : n, sizeof *cfg->jobs);
	for (i = 0; i < n; i++) {
		j = &cfg->jobs[i];
		config_init("job", j);
		cfg->njobs = i + 1;
		j->line = (int)ents[i].line;
		j->name = xstrdup(ents[i].name);
		j->command = xstrdup(ents[i].command);
		msg = NULL;
		config_job_command(j, NULL, &c);
		if (expand_command(&c, NULL, NULL, NULL, 0, &res, &msg) != 0)
			goto fail;
		expand_result_clear(&res);
	}
	procfile_free(ents, n);
	cfg->procfile = 1;
	config_procfile_ports(cfg);
	*out = cfg;
	return 0;

fail:
	*cause = xprintf("%s:%zu: %s", name, ents[i].line, msg);
	free(msg);
	procfile_free(ents, n);
	config_free(cfg);
	return -1;
}

/* Return 1 if path's last component is Procfile or Procfile.something. */
static int
config_is_procfile(const char *path)
{
	const char	*base;

	base = strrchr(path, '/');
	base = base == NULL ? path : base + 1;
	return strcmp(base, "Procfile") == 0 ||
	    strncmp(base, "Procfile.", 9) == 0;
}

/*
 * Read path into *buf and *len, refusing what others could have written.
 * Return 0, 1 if missing_ok and the file does not exist, or -1 with
 * *cause set.
 */
static int
config_read(const char *path, int missing_ok, char **buf, size_t *len,
    char **cause)
{
	struct stat	 sb, null;
	char		*b = NULL;
	size_t		 n = 0, size = 0;
	ssize_t		 r;
	int		 fd;

	*buf = NULL;
	*len = 0;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) == -1) {
		if (missing_ok && (errno == ENOENT || errno == ENOTDIR))
			return 1;
		*cause = xprintf("cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &sb) != 0) {
		*cause = xprintf("cannot open %s: %s", path, strerror(errno));
		goto fail;
	}
	if (S_ISDIR(sb.st_mode)) {
		*cause = xprintf("cannot read %s: %s", path, strerror(EISDIR));
		goto fail;
	}
	if (S_ISCHR(sb.st_mode) && stat("/dev/null", &null) == 0 &&
	    S_ISCHR(null.st_mode) && null.st_rdev == sb.st_rdev) {
		close(fd);
		*buf = xstrdup("");
		return 0;
	}
	if (!S_ISREG(sb.st_mode) && !S_ISFIFO(sb.st_mode)) {
		*cause = xprintf("%s: not a regular file", path);
		goto fail;
	}
	if (sb.st_uid != getuid() && sb.st_uid != 0) {
		*cause = xprintf("%s: owned by another user (uid %lu); it must "
		    "be yours or root's", path, (unsigned long)sb.st_uid);
		goto fail;
	}
	if (sb.st_mode & (S_IWGRP | S_IWOTH)) {
		*cause = xprintf("%s: writable by %s (mode %04o); chmod go-w "
		    "it", path, (sb.st_mode & S_IWOTH) ? "others" : "group",
		    (unsigned)(sb.st_mode & 07777));
		goto fail;
	}
	if (S_ISREG(sb.st_mode) && sb.st_size > TOML_MAX_INPUT)
		goto too_big;

	for (;;) {
		if (n == size) {
			if (size > TOML_MAX_INPUT)
				goto too_big;
			/* Room for one byte too many, to see it is there. */
			size = size == 0 ? 8192 : size * 2;
			if (size > TOML_MAX_INPUT)
				size = TOML_MAX_INPUT + 1;
			b = xreallocarray(b, size + 1, 1);
		}
		r = read(fd, b + n, size - n);
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1) {
			*cause = xprintf("cannot read %s: %s", path,
			    strerror(errno));
			goto fail;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (n > TOML_MAX_INPUT)
		goto too_big;
	close(fd);
	if (b == NULL)
		b = xmalloc(1);
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;

too_big:
	*cause = xprintf("%s: larger than %d MiB", path,
	    TOML_MAX_INPUT / (1024 * 1024));
fail:
	free(b);
	close(fd);
	return -1;
}

/*
 * Return the default configuration file, $XDG_CONFIG_HOME/jobdeck/
 * config.toml (when that is an absolute path), else $HOME/.config/jobdeck/
 * config.toml, or NULL when neither is set.  The caller frees it.
 */
char *
config_default_path(void)
{
	const char	*dir;

	if ((dir = getenv("XDG_CONFIG_HOME")) != NULL && dir[0] == '/')
		return xprintf("%s/jobdeck/config.toml", dir);
	if ((dir = getenv("HOME")) != NULL && dir[0] != '\0')
		return xprintf("%s/.config/jobdeck/config.toml", dir);
	return NULL;
}

/*
 * Make the .env beside the Procfile cfg came from, when there is one, the
 * settings' env_file, as an absolute path (foreman reads it from there).
 */
static void
config_procfile_env(struct config *cfg)
{
	struct stat	 sb;
	char		*dir, *env;

	if ((dir = config_dir(cfg)) == NULL)
		return;
	env = xprintf("%s/.env", strcmp(dir, "/") == 0 ? "" : dir);
	free(dir);
	if (env[0] != '/' || stat(env, &sb) != 0) {
		free(env);
		return;
	}
	cfg->settings.env_file = xcalloc(2, sizeof *cfg->settings.env_file);
	cfg->settings.env_file[0] = env;
	cfg->settings.nenv_file = 1;
}

/*
 * Load the configuration at path (NULL: the default path, which may be
 * missing), as a Procfile when procfile is set or the file is called
 * Procfile or Procfile.* (with the .env beside it), else as TOML.  Return
 * 0 with *out set, or -1 with *out NULL and *cause set.
 */
int
config_load(const char *path, int procfile, struct config **out,
    char **cause)
{
	char	*def = NULL, *buf;
	size_t	 len;
	int	 r;

	*out = NULL;
	*cause = NULL;
	if (path == NULL) {
		if ((def = config_default_path()) == NULL) {
			*out = config_default();
			return 0;
		}
		path = def;
	}
	r = config_read(path, def != NULL, &buf, &len, cause);
	if (r == 1) {
		free(def);
		*out = config_default();
		return 0;
	}
	if (r == -1) {
		free(def);
		return -1;
	}
	if (procfile || config_is_procfile(path)) {
		r = config_parse_procfile(path, buf, len, out, cause);
		if (r == 0) {
			(*out)->path = xstrdup(path);
			config_procfile_env(*out);
		}
	} else {
		r = config_parse(path, buf, len, out, cause);
		if (r == 0)
			(*out)->path = xstrdup(path);
	}
	free(buf);
	free(def);
	return r;
}

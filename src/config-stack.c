/*
 * config-stack.c: the checks of a configuration as a stack, once its jobs
 * are read (config-private.h).  Job names are unique (an open-addressed
 * hash set, so 100,000 jobs load in a fraction of a second); each
 * depends_on name is a job of the file and not the job itself (or
 * "browser", when no job is called that: the [browser], which must set
 * cdp_url and is only started or ready); the dependencies make no cycle
 * ("dependency cycle: api -> worker -> api", at the edge that closes it,
 * or the first edge of a job read from the text when that is a deck's
 * job, config_parse_job());
 * no replica (NAME.1 .. NAME.N) has another job's name.  Within a job, at
 * most one readiness and one liveness probe are set.  A job's command,
 * args, cwd, input and env values are templates, expanded here with the
 * job's params and no environment (command, args and input together
 * through expand_command(), as launch_new() will), so a bad template is a
 * load error at the template at fault, not a failure at start.  A job's
 * host names a [hosts.NAME] or is an ssh destination (config_check_host(),
 * the one rule every front end checks a host by), once every table is
 * read, as [hosts] may come after the jobs.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "config-private.h"
#include "expand.h"
#include "textesc.h"
#include "xmalloc.h"

/* Jobs of a dependency cycle named in full; a longer one is cut short. */
#define CONFIG_CYCLE_SHOWN	15

static uint32_t	 config_hash(const char *);
static const struct toml_value *config_job_value(const struct toml_value *,
		     size_t);
static int	 config_check_text(struct config_ctx *,
		     const struct config_job *, const char *,
		     const struct toml_value *);
static int	 config_check_command(struct config_ctx *,
		     const struct config *, const struct config_job *,
		     const struct toml_value *);

/* Return the FNV-1a hash of s. */
static uint32_t
config_hash(const char *s)
{
	uint32_t	h = 2166136261u;

	for (; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/*
 * Return the slot of the set where name is, or the empty slot where it
 * would go.
 */
static size_t
config_names_slot(const struct config_names *names,
    const struct config_job *jobs, const char *name)
{
	size_t	i, mask = names->size - 1;

	for (i = config_hash(name) & mask; names->slot[i] != 0;
	    i = (i + 1) & mask) {
		if (strcmp(jobs[names->slot[i] - 1].name, name) == 0)
			break;
	}
	return i;
}

/*
 * Add job n of jobs to the set; return 0, or the index plus one of the
 * job that had its name first.
 */
int
config_names_add(struct config_names *names, const struct config_job *jobs,
    size_t n)
{
	size_t	i;

	i = config_names_slot(names, jobs, jobs[n].name);
	if (names->slot[i] != 0)
		return (int)names->slot[i];
	names->slot[i] = n + 1;
	return 0;
}

/* Return the index plus one of the job called name, or 0. */
static size_t
config_names_find(const struct config_names *names,
    const struct config_job *jobs, const char *name)
{
	return names->slot[config_names_slot(names, jobs, name)];
}

/* Return the job option stored at offset, or NULL. */
static const struct config_option *
config_job_option(size_t offset)
{
	size_t	i;

	for (i = 0; i < config_noptions; i++) {
		if (strcmp(config_options[i].section, "job") == 0 &&
		    config_options[i].offset == offset)
			return &config_options[i];
	}
	return NULL;
}

/* Return the value in job table t of the option stored at offset. */
static const struct toml_value *
config_job_value(const struct toml_value *t, size_t offset)
{
	const struct config_option	*o;

	if ((o = config_job_option(offset)) == NULL)
		return NULL;
	return toml_table_get(t, o->name);
}

/* Return 1 if value a was written before value b. */
int
config_before(const struct toml_value *a, const struct toml_value *b)
{
	return toml_line(a) < toml_line(b) ||
	    (toml_line(a) == toml_line(b) && toml_col(a) < toml_col(b));
}

/*
 * Check the template in the string value v of job j (what names it in a
 * message) with expand_text(): values verbatim, no environment yet.
 */
static int
config_check_text(struct config_ctx *ctx, const struct config_job *j,
    const char *what, const struct toml_value *v)
{
	char	*r, *msg = NULL, *full;

	r = expand_text(toml_string(v, NULL), NULL, NULL, j->params,
	    j->nparams, 0, &msg);
	if (r != NULL) {
		free(r);
		return 0;
	}
	full = xprintf("%s: %s", what, msg == NULL ? "cannot expand" : msg);
	free(msg);
	return config_fail(ctx, toml_line(v), toml_col(v), full);
}

/*
 * Fill c with what job j runs: its command, args and input, and the shell
 * a command string goes to (NULL: not known yet), as expand_command()
 * takes them.
 */
void
config_job_command(const struct config_job *j, const char *shell,
    struct expand_command *c)
{
	memset(c, 0, sizeof *c);
	c->command = j->command;
	c->args = j->args;
	c->nargs = j->nargs;
	c->input = j->input;
	c->shell = shell;
	c->terminal = j->pty;
}

/*
 * Check the command, args and input of job j (its table t) together with
 * expand_command(), as launch_new() will expand them but with no
 * environment yet, and point at the template at fault.
 */
static int
config_check_command(struct config_ctx *ctx, const struct config *cfg,
    const struct config_job *j, const struct toml_value *t)
{
	struct expand_command	 c;
	struct expand_result	 res;
	const struct toml_value	*v;
	char			*msg = NULL;

	config_job_command(j, cfg->settings.shell, &c);
	if (expand_command(&c, NULL, NULL, j->params, j->nparams, &res,
	    &msg) == 0) {
		expand_result_clear(&res);
		return 0;
	}
	switch (res.field) {
	case EXPAND_IN_ARG:
		v = toml_array_get(config_job_value(t, JOB(args)), res.index);
		break;
	case EXPAND_IN_INPUT:
		v = config_job_value(t, JOB(input));
		break;
	default:
		v = config_job_value(t, JOB(command));
		break;
	}
	if (v == NULL)
		v = t;
	return config_fail(ctx, toml_line(v), toml_col(v), msg);
}

/*
 * Check every template of job j, whose table is t: command, args and
 * input together, the others (cwd, env values) one by one.
 */
int
config_check_templates(struct config_ctx *ctx, const struct config *cfg,
    const struct config_job *j, const struct toml_value *t)
{
	const struct config_option	*o;
	const struct toml_value		*v;
	size_t				 i, k;
	char				*what;
	int				 r;

	if (config_check_command(ctx, cfg, j, t) != 0)
		return -1;
	for (i = 0; i < config_noptions; i++) {
		o = &config_options[i];
		if (strcmp(o->section, "job") != 0 ||
		    !(o->flags & CONFIG_TEMPLATE) || o->offset == JOB(command) ||
		    o->offset == JOB(args) || o->offset == JOB(input) ||
		    (v = toml_table_get(t, o->name)) == NULL)
			continue;
		if (o->type == CONFIG_STRING) {
			if (config_check_text(ctx, j, o->name, v) != 0)
				return -1;
			continue;
		}
		for (k = 0; k < toml_table_size(v); k++) {
			what = xprintf("%s %s", o->name,
			    toml_table_key(v, k, NULL));
			r = config_check_text(ctx, j, what,
			    toml_table_value(v, k));
			free(what);
			if (r != 0)
				return -1;
		}
	}
	return 0;
}

/*
 * Check that job j, whose table is t, sets at most one kind of the probe
 * at offset (what: "readiness"): of those set, the second written is the
 * error, naming the first.
 */
static int
config_check_probe(struct config_ctx *ctx, const struct config_job *j,
    const struct toml_value *t, size_t offset, const char *what)
{
	static const size_t		 kinds[] = {
		offsetof(struct config_probe, log),
		offsetof(struct config_probe, cmd),
		offsetof(struct config_probe, tcp),
		offsetof(struct config_probe, http)
	};
	const struct config_probe	*p;
	const struct config_option	*o, *oa = NULL, *ob = NULL;
	const struct toml_value		*v, *a = NULL, *b = NULL;
	size_t				 i;

	/* The common case, at most one set, without looking at the table. */
	p = (const struct config_probe *)(const void *)((const char *)j +
	    offset);
	if ((p->log != NULL) + (p->cmd != NULL) + (p->tcp != NULL) +
	    (p->http != NULL) < 2)
		return 0;
	for (i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
		if ((o = config_job_option(offset + kinds[i])) == NULL ||
		    (v = toml_table_get(t, o->name)) == NULL)
			continue;
		if (a == NULL || config_before(v, a)) {
			b = a;
			ob = oa;
			a = v;
			oa = o;
		} else if (b == NULL || config_before(v, b)) {
			b = v;
			ob = o;
		}
	}
	if (b == NULL)
		return 0;
	return config_fail(ctx, toml_line(b), toml_col(b), xprintf("%s and %s "
	    "(line %d) are both set: a job has at most one %s probe",
	    ob->name, oa->name, toml_line(a), what));
}

/*
 * Check job n of cfg once its table t is applied: required keys, one
 * probe of each sort and a unique name.  jobs is the whole array, for
 * messages.
 */
int
config_check_job(struct config_ctx *ctx, const struct config *cfg,
    size_t n, const struct toml_value *t, const struct toml_value *jobs,
    struct config_names *names)
{
	const struct config_job		*j = &cfg->jobs[n];
	const struct config_option	*o;
	const struct toml_value		*v, *first;
	size_t				 i;
	int				 k;
	char				*e, *msg;

	for (i = 0; i < config_noptions; i++) {
		o = &config_options[i];
		if (strcmp(o->section, "job") == 0 &&
		    (o->flags & CONFIG_REQUIRED) &&
		    toml_table_get(t, o->name) == NULL)
			return config_fail(ctx, toml_line(t), toml_col(t),
			    xprintf("[[job]] needs a %s", o->name));
	}
	if (config_check_probe(ctx, j, t, JOB(ready), "readiness") != 0 ||
	    config_check_probe(ctx, j, t, JOB(liveness), "liveness") != 0)
		return -1;
	if ((k = config_names_add(names, cfg->jobs, n)) == 0)
		return 0;
	v = config_job_value(t, JOB(name));
	first = config_job_value(toml_array_get(jobs, (size_t)k - 1),
	    JOB(name));
	e = textesc_excerpt(j->name, strlen(j->name), CONFIG_EXCERPT_MAX);
	msg = xprintf("duplicate job name '%s' (first at line %d)", e,
	    toml_line(first));
	free(e);
	return config_fail(ctx, toml_line(v), toml_col(v), msg);
}

/*
 * Check job j's timer once its table t is applied: schedule and every
 * exclude each other (the second written is the error); a job on a
 * timer does not start with the deck unless its table sets autostart
 * (its first run is at its first due time).
 */
int
config_check_timer(struct config_ctx *ctx, struct config_job *j,
    const struct toml_value *t)
{
	const struct toml_value	*s, *e;

	s = config_job_value(t, JOB(schedule));
	e = config_job_value(t, JOB(every));
	if (s != NULL && e != NULL) {
		if (config_before(e, s))
			return config_fail(ctx, toml_line(s), toml_col(s),
			    xprintf("schedule and every (line %d) are both "
			    "set: a job has one timetable", toml_line(e)));
		return config_fail(ctx, toml_line(e), toml_col(e),
		    xprintf("every and schedule (line %d) are both set: a "
		    "job has one timetable", toml_line(s)));
	}
	if ((s != NULL || e != NULL) &&
	    config_job_value(t, JOB(autostart)) == NULL)
		j->autostart = 0;
	return 0;
}

/*
 * Check that no replica of job n of cfg (NAME.1 .. NAME.N) has the name
 * of a job; jobs is the file's job tables.  A job with no table (a deck's
 * job, config_parse_job()) clashes with one read from the text: the
 * error is at that one's name.
 */
static int
config_check_replicas(struct config_ctx *ctx, const struct config *cfg,
    size_t n, const struct toml_value *jobs, const struct config_names *names)
{
	const struct config_job	*j = &cfg->jobs[n];
	const struct toml_value	*v, *t = toml_array_get(jobs, n);
	size_t			 k;
	char			*name, *e, *b, *msg;
	int			 r;

	for (r = 1; r <= j->replicas && j->replicas > 1; r++) {
		name = config_replica_name(j->name, r);
		k = config_names_find(names, cfg->jobs, name);
		if (k == 0) {
			free(name);
			continue;
		}
		v = config_job_value(t, JOB(replicas));
		e = textesc_excerpt(name, strlen(name), CONFIG_EXCERPT_MAX);
		if (t != NULL && cfg->jobs[k - 1].line == 0)
			msg = xprintf("replicas: '%s' is already the name of "
			    "another job", e);
		else if (t != NULL)
			msg = xprintf("replicas: '%s' is already the name of "
			    "the job at line %d", e, cfg->jobs[k - 1].line);
		else {
			v = config_job_value(toml_array_get(jobs, k - 1),
			    JOB(name));
			b = textesc_excerpt(j->name, strlen(j->name),
			    CONFIG_EXCERPT_MAX);
			msg = xprintf("'%s' is the name of a replica of '%s' "
			    "(replicas = %d)", e, b, j->replicas);
			free(b);
		}
		free(e);
		free(name);
		return config_fail(ctx, toml_line(v), toml_col(v), msg);
	}
	return 0;
}

/*
 * Report dependency d, which names no job of cfg: suggest the job whose
 * replica it names, else the nearest job name.
 */
static int
config_unknown_dep(struct config_ctx *ctx, const struct config *cfg,
    const struct config_dep *d, const struct config_names *names)
{
	const struct config_job	*j;
	const char		*best = NULL;
	char			*e, *b, *base, *hint, *msg;
	size_t			 i, k, bestd = CONFIG_SUGGEST_MAX + 1;
	int			 r;

	hint = NULL;
	if ((r = config_replica_parse(d->name, &base)) > 0) {
		k = config_names_find(names, cfg->jobs, base);
		j = k != 0 ? &cfg->jobs[k - 1] : NULL;
		if (j != NULL && r <= j->replicas) {
			b = textesc_excerpt(base, strlen(base),
			    CONFIG_EXCERPT_MAX);
			hint = xprintf(" ('%s' stands for all its replicas)",
			    b);
			free(b);
		}
		free(base);
	}
	for (i = 0; hint == NULL && i < cfg->njobs; i++) {
		if (config_near(d->name, strlen(d->name), cfg->jobs[i].name,
		    &bestd))
			best = cfg->jobs[i].name;
	}
	if (hint == NULL && best != NULL) {
		b = textesc_excerpt(best, strlen(best), CONFIG_EXCERPT_MAX);
		hint = xprintf(" (did you mean '%s'?)", b);
		free(b);
	}
	e = textesc_excerpt(d->name, strlen(d->name), CONFIG_EXCERPT_MAX);
	msg = xprintf("unknown job '%s' in depends_on%s", e,
	    hint != NULL ? hint : "");
	free(e);
	free(hint);
	return config_fail(ctx, d->line, d->col, msg);
}

/*
 * Report the dependency cycle closed by dependency d of job path[k]: the
 * jobs path[0..k], each depending on the next, and d on path[0]; past
 * CONFIG_CYCLE_SHOWN jobs, the middle is left out.  The error is at
 * dependency at.
 */
static int
config_cycle(struct config_ctx *ctx, const struct config *cfg,
    const size_t *path, size_t k, const struct config_dep *d,
    const struct config_dep *at)
{
	struct config_buf	 b = { NULL, 0, 0 };
	const char		*name;
	char			*e;
	size_t			 i;

	config_buf_printf(&b, "dependency cycle: ");
	for (i = 0; i <= k; i++) {
		if (i >= CONFIG_CYCLE_SHOWN && i < k) {
			if (i == CONFIG_CYCLE_SHOWN)
				config_buf_printf(&b, "... -> ");
			continue;
		}
		name = cfg->jobs[path[i]].name;
		e = textesc_excerpt(name, strlen(name), CONFIG_EXCERPT_MAX);
		config_buf_printf(&b, "%s -> ", e);
		free(e);
	}
	e = textesc_excerpt(d->name, strlen(d->name), CONFIG_EXCERPT_MAX);
	config_buf_printf(&b, "%s", e);
	free(e);
	return config_fail(ctx, at->line, at->col, b.s);
}

/*
 * Check the jobs' dependencies once every job is read: each names a job
 * of the file, not the job itself, and they make no cycle (a depth-first
 * walk with an explicit stack, so a long chain cannot overflow it).  The
 * jobs' replicas are checked here too, since they need every name.
 */
int
config_check_stack(struct config_ctx *ctx, const struct config *cfg,
    const struct toml_value *jobs, const struct config_names *names)
{
	const struct config_job	*j;
	const struct config_dep	*d, *at;
	size_t			*first, *target, *path, *next, i, k, m, sp, u, w;
	unsigned char		*state;	/* 0 unseen, 1 on the path, 2 done */
	char			*e;
	int			 r = 0;

	first = xcalloc(cfg->njobs + 1, sizeof *first);
	for (i = 0; i < cfg->njobs; i++) {
		j = &cfg->jobs[i];
		if (config_check_replicas(ctx, cfg, i, jobs, names) != 0) {
			free(first);
			return -1;
		}
		first[i + 1] = first[i] + j->ndeps;
	}
	target = xcalloc(first[cfg->njobs] + 1, sizeof *target);
	for (i = 0; r == 0 && i < cfg->njobs; i++) {
		j = &cfg->jobs[i];
		for (k = 0; r == 0 && k < j->ndeps; k++) {
			d = &j->deps[k];
			w = config_names_find(names, cfg->jobs, d->name);
			if (w == 0 && strcmp(d->name, CONFIG_DEP_BROWSER) == 0)
				((struct config_dep *)d)->browser = 1;
			else if (w == 0)
				r = config_unknown_dep(ctx, cfg, d, names);
			else if (w - 1 == i) {
				e = textesc_excerpt(d->name, strlen(d->name),
				    CONFIG_EXCERPT_MAX);
				r = config_fail(ctx, d->line, d->col,
				    xprintf("job '%s' depends on itself", e));
				free(e);
			} else
				target[first[i] + k] = w - 1;
		}
	}

	state = xcalloc(cfg->njobs + 1, 1);
	path = xcalloc(cfg->njobs + 1, sizeof *path);
	next = xcalloc(cfg->njobs + 1, sizeof *next);
	for (i = 0; r == 0 && i < cfg->njobs; i++) {
		if (state[i] != 0)
			continue;
		state[i] = 1;
		path[0] = i;
		next[0] = 0;
		sp = 1;
		while (r == 0 && sp > 0) {
			u = path[sp - 1];
			if (next[sp - 1] == cfg->jobs[u].ndeps) {
				state[u] = 2;
				sp--;
				continue;
			}
			k = next[sp - 1]++;
			if (cfg->jobs[u].deps[k].browser)
				continue;
			w = target[first[u] + k];
			if (state[w] == 0) {
				state[w] = 1;
				path[sp] = w;
				next[sp++] = 0;
			} else if (state[w] == 1) {
				for (k = 0; path[k] != w; k++)
					/* nothing */;
				d = at = &cfg->jobs[u].deps[next[sp - 1] - 1];
				/* A deck's job (line 0): at one read instead. */
				for (m = k; cfg->jobs[u].line == 0 && m < sp - 1;
				    m++) {
					if (cfg->jobs[path[m]].line != 0) {
						at = &cfg->jobs[path[m]].deps[
						    next[m] - 1];
						break;
					}
				}
				r = config_cycle(ctx, cfg, path + k, sp - 1 - k, d,
				    at);
			}
		}
	}
	free(next);
	free(path);
	free(state);
	free(target);
	free(first);
	return r;
}

/*
 * Check the dependencies on the browser once [browser] is read, wherever
 * it is: it must be configured to start, and it is never completed.
 */
int
config_check_browser_deps(struct config_ctx *ctx, const struct config *cfg)
{
	const struct config_dep	*d;
	size_t			 i, k;

	for (i = 0; i < cfg->njobs; i++) {
		for (k = 0; k < cfg->jobs[i].ndeps; k++) {
			d = &cfg->jobs[i].deps[k];
			if (!d->browser)
				continue;
			if (cfg->browser.cdp_url == NULL)
				return config_fail(ctx, d->line, d->col,
				    xstrdup("depends_on names the browser, "
				    "but [browser] sets no cdp_url (write "
				    "cdp_url = \"auto\" there)"));
			if (d->cond != CONFIG_COND_STARTED &&
			    d->cond != CONFIG_COND_READY)
				return config_fail(ctx, d->line, d->col,
				    xstrdup("the browser never completes: "
				    "depends_on it with \"started\" or "
				    "\"ready\""));
		}
	}
	return 0;
}

/*
 * Return 1 if s is an ssh destination jobdeck passes to ssh as an operand:
 * no blank or control character, no '-' first (ssh would take an option),
 * and at most one '@' with something on each side, the host not starting
 * with '-' either.
 */
int
config_ssh_destination(const char *s)
{
	const char	*at;

	if (s == NULL || *s == '\0' || *s == '-' ||
	    !config_graphic(s, strlen(s)))
		return 0;
	if ((at = strchr(s, '@')) == NULL)
		return 1;
	return at != s && strchr(at + 1, '@') == NULL && at[1] != '\0' &&
	    at[1] != '-';
}

/* Return the [hosts.NAME] table of cfg called name, or NULL. */
const struct config_host *
config_find_host(const struct config *cfg, const char *name)
{
	size_t	i;

	if (cfg == NULL || name == NULL)
		return NULL;
	for (i = 0; i < cfg->nhosts; i++) {
		if (strcmp(cfg->hosts[i].name, name) == 0)
			return &cfg->hosts[i];
	}
	return NULL;
}

/*
 * Check host, where a job is to run: a [hosts] name of cfg (NULL: none),
 * else an ssh destination; 0, or -1 with *cause.
 */
int
config_check_host(const struct config *cfg, const char *host, char **cause)
{
	char	*e;

	if (config_find_host(cfg, host) != NULL ||
	    config_ssh_destination(host))
		return 0;
	e = textesc_excerpt(host, strlen(host), CONFIG_EXCERPT_MAX);
	*cause = xprintf("host \"%s\": not a [hosts] name or an ssh "
	    "destination", e);
	free(e);
	return -1;
}

/*
 * Check job j's host, whose table is t, once cfg's [hosts] are read (and
 * that it has no stop_command, which would run here): the error is at the
 * value and names the job.
 */
int
config_check_job_host(struct config_ctx *ctx, const struct config *cfg,
    const struct config_job *j, const struct toml_value *t)
{
	const struct toml_value	*v;
	char			*msg, *e, *full;
	size_t			 at = JOB(host);

	if (j->host == NULL)
		return 0;
	if (j->stop_command != NULL) {
		/* It would run here, not where the job is. */
		msg = xstrdup("stop_command does not run on a host: use "
		    "stop_signal");
		at = JOB(stop_command);
	} else if (config_check_host(cfg, j->host, &msg) == 0)
		return 0;
	if ((v = config_job_value(t, at)) == NULL)
		v = t;
	e = textesc_excerpt(j->name, strlen(j->name), CONFIG_EXCERPT_MAX);
	full = xprintf("job %s: %s", e, msg);
	free(e);
	free(msg);
	return config_fail(ctx, toml_line(v), toml_col(v), full);
}

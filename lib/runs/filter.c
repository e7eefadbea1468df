/* filter.c: listing options, --filter KEY=VALUE and the experiment glob. */
#include "runs/list.h"

#include <ctype.h>
#include <fnmatch.h>
#include <string.h>

/* ---- glob ----------------------------------------------------------------- */

/* fnmatch() takes an unclosed '[' or a trailing '\\' literally; here such a
 * pattern, or a class holding '/', is malformed. */
static bool well_formed(const char *p)
{
	for (; *p; p++) {
		if (*p == '\\') {
			if (!*++p)
				return false;
			continue;
		}
		if (*p != '[')
			continue;
		p += p[1] == '!' || p[1] == '^' ? 2 : 1;
		/* A ']' first is a member; the class needs one member and its ']'. */
		for (bool first = true; first || *p != ']'; first = false, p++)
			if (!*p || *p == '/' || (*p == '\\' && (!*++p || *p == '/')))
				return false;
	}
	return true;
}

bool air__glob_match(const char *pattern, const char *text)
{
	return pattern && text && well_formed(pattern) &&
	       fnmatch(pattern, text, FNM_PATHNAME | FNM_CASEFOLD) == 0;
}

/* ---- options ------------------------------------------------------------ */

void air__list_options_defaults(air_list_options *o)
{
	memset(o, 0, sizeof(*o));
	o->limit = 20;
	o->max_inspected = 2000;
	o->workspace_probe = true;
	o->cache = true;
}

void air__list_options_dispose(air_list_options *o)
{
	air__free(o->user);
	air__free(o->experiment);
	air__free(o->accel_type);
	air__free(o->sweep_tag);
	o->user = o->experiment = o->accel_type = o->sweep_tag = NULL;
}

bool air__list_options_copy(air_list_options *dst, const air_list_options *src)
{
	*dst = *src;
	dst->user = air__strdup(src->user);
	dst->experiment = air__strdup(src->experiment);
	dst->accel_type = air__strdup(src->accel_type);
	dst->sweep_tag = air__strdup(src->sweep_tag);
	if ((src->user && !dst->user) || (src->experiment && !dst->experiment) ||
	    (src->accel_type && !dst->accel_type) || (src->sweep_tag && !dst->sweep_tag)) {
		air__list_options_dispose(dst);
		return false;
	}
	return true;
}

int air_list_options_new(air_list_options **out)
{
	if (!out)
		return AIR_EINVAL;
	*out = air__malloc(sizeof(**out));
	if (!*out)
		return AIR_ENOMEM;
	air__list_options_defaults(*out);
	return AIR_OK;
}

void air_list_options_free(air_list_options *opts)
{
	if (!opts)
		return;
	air__list_options_dispose(opts);
	air__free(opts);
}

int air_list_options_set_interrupt(air_list_options *opts, air_interrupt *intr)
{
	return air__call_opts_set_interrupt(opts ? &opts->call : NULL, intr);
}

int air_list_options_set_skip_cb(air_list_options *opts, air_list_skip_cb cb, void *userdata)
{
	if (!opts)
		return AIR_EINVAL;
	opts->on_skip = cb;
	opts->skip_ud = userdata;
	return AIR_OK;
}

int air_list_options_set_deadline_ms(air_list_options *opts, int64_t ms)
{
	return air__call_opts_set_deadline(opts ? &opts->call : NULL, ms);
}

int air_list_options_set_int(air_list_options *opts, int32_t opt, int64_t value)
{
	bool flag = value == 0 || value == 1;

	if (!opts)
		return AIR_EINVAL;
	switch (opt) {
	case AIR_LIST_LIMIT:
		if (value <= 0)
			return AIR_EINVAL;
		opts->limit = value;
		return AIR_OK;
	case AIR_LIST_MAX_INSPECTED:
		if (value <= 0)
			return AIR_EINVAL;
		opts->max_inspected = value;
		return AIR_OK;
	case AIR_LIST_ALL_STATUS:
	case AIR_LIST_ALL_USERS:
	case AIR_LIST_WORKSPACE_ID:
	case AIR_LIST_MLFLOW:
	case AIR_LIST_CACHE:
		if (!flag)
			return AIR_EINVAL;
		if (opt == AIR_LIST_ALL_STATUS)
			opts->all_status = value;
		else if (opt == AIR_LIST_ALL_USERS)
			opts->all_users = value;
		else if (opt == AIR_LIST_WORKSPACE_ID)
			opts->workspace_probe = value;
		else if (opt == AIR_LIST_CACHE)
			opts->cache = value;
		else
			opts->mlflow = value;
		return AIR_OK;
	default:
		return AIR_EUNSUPPORTED;
	}
}

static int bad_filter(air_error **err, const char *fmt, const char *arg)
{
	return air__fail(err, air__error_set_field(air__error_new(AIR_EINVAL, 0, fmt, arg), "filter"));
}

static int replace(char **slot, const char *value, size_t len, air_error **err)
{
	char *copy = air__strndup(value, len);

	if (!copy)
		return air__oom(err);
	air__free(*slot);
	*slot = copy;
	return AIR_OK;
}

int air_list_options_add_filter(air_list_options *opts, const char *filter, air_error **err)
{
	const char *eq, *key, *value;
	size_t klen, vlen;

	if (!opts || !filter)
		return air__failf(err, AIR_EINVAL, 0, "air_list_options_add_filter: %s is NULL",
		                  opts ? "filter" : "opts");
	eq = strchr(filter, '=');
	if (!eq)
		return bad_filter(err, "invalid filter \"%s\": expected KEY=VALUE", filter);
	for (key = filter; key < eq && isspace((unsigned char)*key); key++)
		;
	for (klen = (size_t)(eq - key); klen > 0 && isspace((unsigned char)key[klen - 1]); klen--)
		;
	value = air__trim(eq + 1, &vlen);
	if (klen == 0)
		return bad_filter(err, "invalid filter \"%s\": the key is empty", filter);
	if (vlen == 0)
		return bad_filter(err, "invalid filter \"%s\": the value is empty", filter);
	if (klen == 4 && !strncmp(key, "user", 4))
		return replace(&opts->user, value, vlen, err);
	if (klen == 10 && !strncmp(key, "experiment", 10))
		return replace(&opts->experiment, value, vlen, err);
	if (klen == 16 && !strncmp(key, "accelerator_type", 16))
		return replace(&opts->accel_type, value, vlen, err);
	if (klen == 16 && !strncmp(key, "num_accelerators", 16)) {
		char num[32];
		int64_t n;

		snprintf(num, sizeof(num), "%.*s", (int)(vlen < 31 ? vlen : 31), value);
		if (vlen > 30 || !air__parse_int64(num, &n) || n <= 0)
			return bad_filter(err,
			                  "invalid filter \"%s\": num_accelerators must be a positive integer",
			                  filter);
		opts->num_accel = n;
		return AIR_OK;
	}
	if (klen == 5 && !strncmp(key, "sweep", 5)) {
		char *base = air__strndup(value, vlen), *tag = base ? air__sweep_tag(base) : NULL;

		air__free(base);
		if (!tag)
			return air__oom(err);
		air__free(opts->sweep_tag);
		opts->sweep_tag = tag;
		return AIR_OK;
	}
	return bad_filter(err,
	                  "unknown filter key in \"%s\": valid keys are user, experiment, "
	                  "accelerator_type, num_accelerators, sweep",
	                  filter);
}

/* ---- sweeps ------------------------------------------------------------- */

/* The exact shape a sweep writes (air__sweep_launch_split()): a plain run's
 * launch directory is one segment below its experiment
 * (".../cli_launch/<experiment>/<run name>_<16 hex>/command.sh"), so a run
 * whose experiment is named like the tag never has this shape. */
bool air__run_in_sweep(const air_run *run, const char *tag)
{
	const char *t;
	size_t base_len, n;

	return air__sweep_launch_split(run->command_path, &base_len, &t, &n) && n == strlen(tag) &&
	       !memcmp(t, tag, n);
}

/* ---- matching ----------------------------------------------------------- */

bool air__list_has_task_filter(const air_list_options *o)
{
	return o->experiment || o->accel_type || o->num_accel > 0 || o->sweep_tag;
}

static bool contains_nocase(const char *hay, const char *needle)
{
	size_t n = strlen(needle);

	for (; *hay; hay++)
		if (strncasecmp(hay, needle, n) == 0)
			return true;
	return n == 0;
}

bool air__list_task_filters_match(const air_list_options *o, const air_run *run)
{
	if (o->experiment && !air__glob_match(o->experiment, run->experiment))
		return false;
	if (o->accel_type &&
	    (!run->accel_type ||
	     !contains_nocase(air__accelerator_display(run->accel_type), o->accel_type)))
		return false;
	if (o->num_accel > 0 && run->accel_count != o->num_accel)
		return false;
	if (o->sweep_tag && !air__run_in_sweep(run, o->sweep_tag))
		return false;
	return true;
}

/*
 * rerun_keep.c: what a past run had that its training_config.yaml does not
 * say. `air run --override` writes that file as read (the platform's
 * contract); the overrides are in the run's launch files and in the settings
 * runs/get shows. A rerun keeps them: they go into its config before its
 * own overrides, so `air rerun` starts the run that ran. One that the
 * config refuses next to the rerun's own overrides is left out, and named.
 */
#include "sweeps/sweeps.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config/config.h"
#include "core/core.h"

/* The most settings a rerun can keep: 7 from runs/get, 4 launch files. */
#define MAX_KEPT 11
/* The longest reason given for a setting left out, in bytes. */
#define WHY_MAX 200
/* The most assignments one setting makes (an image unsets a managed
 * environment's version and dependencies: the run could not have had them). */
#define MAX_PARTS 3

/* One setting to keep: the config paths it sets and their YAML value texts
 * (NULL: unset); or, with @why, one that cannot be kept. */
typedef struct kept_value {
	const char *path[MAX_PARTS];
	char *value[MAX_PARTS];
	size_t n;
	const char *why;
} kept_value;

typedef struct keeper {
	kept_value v[MAX_KEPT];
	size_t n;
	bool oom;
} keeper;

/* A new setting of @k: @path to @value (taken; NULL with @unset: null). */
static kept_value *keep(keeper *k, const char *path, char *value, bool unset)
{
	kept_value *v = &k->v[k->n++];

	if (!value && !unset)
		k->oom = true;
	v->path[0] = path;
	v->value[0] = value;
	v->n = 1;
	return v;
}

/* One more assignment of setting @v. */
static void also(kept_value *v, const char *path, char *value)
{
	v->path[v->n] = path;
	v->value[v->n++] = value;
}

/* @s as a YAML value: double-quoted, escaped as every YAML writer of libair
 * escapes (air__yaml_put_quoted()). */
static char *quoted(const char *s)
{
	air__buf b = AIR__BUF_INIT;

	air__yaml_put_quoted(&b, s, strlen(s));
	return air__buf_detach(&b);
}

/* Map @map (of strings) as a YAML flow mapping. */
static char *flow_map(const json_t *map)
{
	air__buf b = AIR__BUF_INIT;
	const char *key;
	json_t *v;
	bool first = true;

	air__buf_putc(&b, '{');
	json_object_foreach((json_t *)map, key, v) {
		air__buf_puts(&b, first ? "" : ", ");
		air__yaml_put_quoted(&b, key, strlen(key));
		air__buf_puts(&b, ": ");
		air__yaml_put_quoted(&b, json_string_value(v), strlen(json_string_value(v)));
		first = false;
	}
	air__buf_putc(&b, '}');
	return air__buf_detach(&b);
}

static bool differs(const char *run_value, const char *cfg_value)
{
	return run_value && (!cfg_value || strcmp(run_value, cfg_value) != 0);
}

/* The settings runs/get shows for @run that @w does not have. Only what it
 * shows counts: a platform that leaves a field out changes nothing. */
static void from_runs_get(const air_run *run, const air__workload *w, keeper *k)
{
	const json_t *task = air__run_workload_task(run->json); /* what ran; retries repeat it */
	const json_t *air = json_object_get(task, "ai_runtime_task");
	const json_t *retries = json_object_get(task, "max_retries");
	const json_t *timeout = json_object_get(run->json, "timeout_seconds");
	const char *pool = air__json_nonempty(air__json_at(air, "deployments.0.compute"),
	                                      "provisioned_capacity_id");
	const char *priority = air__json_nonempty(air, "priority_class");
	const char *image = air__json_nonempty(air, "unity_catalog_image_path");

	if (differs(run->accel_type, w->accelerator_type))
		keep(k, "compute.accelerator_type", quoted(run->accel_type), false);
	if (run->accel_count > 0 && run->accel_count != w->num_accelerators)
		keep(k, "compute.num_accelerators", air__sprintf("%lld", (long long)run->accel_count),
		     false);
	if (differs(pool, w->pool_id))
		keep(k, "compute.pool_id", quoted(pool), false);
	if (priority && (!w->priority_class || strcasecmp(priority, w->priority_class) != 0))
		keep(k, "compute.priority_class", quoted(priority), false);
	if (!w->docker_image_url && differs(image, w->uc_image)) {
		kept_value *v = keep(k, "environment.unity_catalog_image", quoted(image), false);

		if (w->environment_version)
			also(v, "environment.version", NULL);
		if (w->n_dependencies)
			also(v, "environment.dependencies", NULL);
	}
	if (json_is_integer(retries) && json_integer_value(retries) != w->max_retries)
		keep(k, "max_retries", air__sprintf("%lld", (long long)json_integer_value(retries)),
		     false);
	if (json_is_integer(timeout) && json_integer_value(timeout) != w->timeout_minutes * 60) {
		json_int_t s = json_integer_value(timeout);

		if (s == 0)
			keep(k, "timeout_minutes", NULL, true); /* the run had none */
		else if (s > 0 && s % 60 == 0)
			keep(k, "timeout_minutes", air__sprintf("%lld", (long long)(s / 60)), false);
		else
			keep(k, "timeout_minutes", NULL, true)->why = "its timeout is not whole minutes";
	}
}

/* env_vars.json ([{"name","value"}]) or secret_env_vars.json
 * ([{"name","secret_scope","secret_key"}]) as the config's map (NAME: value,
 * NAME: scope/key); NULL when it is not such a file. */
static json_t *as_map(const char *text, size_t len, bool secrets)
{
	json_t *arr = json_loadb(text, len, 0, NULL), *map = json_object(), *e;
	bool ok = json_is_array(arr) && map;
	size_t i;

	json_array_foreach(arr, i, e) {
		const char *name = json_string_value(json_object_get(e, "name"));
		const char *value = json_string_value(json_object_get(e, "value"));
		const char *scope = json_string_value(json_object_get(e, "secret_scope"));
		const char *key = json_string_value(json_object_get(e, "secret_key"));
		char *pair = secrets && scope && key ? air__sprintf("%s/%s", scope, key) : NULL;

		if (!ok || !name || (secrets ? !pair : !value) ||
		    json_object_set_new(map, name, json_string(secrets ? pair : value)) != 0)
			ok = false;
		air__free(pair);
	}
	json_decref(arr);
	if (!ok)
		json_decref(map);
	return ok ? map : NULL;
}

/* Whether YAML texts @a and @b hold different values (differently written
 * is the same); texts that are no YAML differ. */
static bool values_differ(const char *a, const char *b)
{
	air__buf ca = AIR__BUF_INIT, cb = AIR__BUF_INIT;
	bool differ = air__canon_value(a, &ca, NULL) != AIR_OK ||
	              air__canon_value(b, &cb, NULL) != AIR_OK ||
	              strcmp(air__buf_cstr(&ca), air__buf_cstr(&cb)) != 0;

	air__buf_dispose(&ca);
	air__buf_dispose(&cb);
	return differ;
}

/* What launch file @name (@body, @len bytes) holds that @w does not. */
static void from_file_body(const char *name, const char *body, size_t len,
                           const air__workload *w, keeper *k)
{
	char *text = air__strndup(body, len);

	if (!text) {
		k->oom = true;
	} else if (!strcmp(name, "command.sh")) {
		if (strcmp(text, w->command) != 0)
			keep(k, "command", quoted(text), false);
	} else if (!strcmp(name, "hyperparameters.yaml")) {
		if (!w->parameters_yaml || values_differ(text, w->parameters_yaml))
			keep(k, "parameters", air__strdup(text), false);
	} else {
		bool secrets = !strcmp(name, "secret_env_vars.json");
		/* What the config would write there, read as the file is. */
		char *mine = secrets ? (w->n_secrets ? air__secret_vars_json(w->secrets, w->n_secrets)
		                                     : NULL)
		                     : (w->n_env ? air__env_vars_json(w->env, w->n_env) : NULL);
		json_t *file = as_map(text, len, secrets);
		json_t *config = mine ? as_map(mine, strlen(mine), secrets) : json_object();

		if (!file)
			keep(k, secrets ? "secrets" : "env_variables", NULL, true)->why =
				"its launch file is not one libair reads";
		else if (!json_equal(file, config))
			keep(k, secrets ? "secrets" : "env_variables", flow_map(file), false);
		json_decref(file);
		json_decref(config);
		air__free(mine);
	}
	air__free(text);
}

/* Launch file @name of the past run against what @w gives. A file that is
 * gone says nothing (it may have been deleted); one that cannot be read
 * stops the rerun, which would otherwise run something else. */
static int from_launch_file(const char *name, const air__workload *w, air__launch_fetch fetch,
                            void *ud, keeper *k, air_error **err)
{
	air__http_resp resp = AIR__HTTP_RESP_INIT;
	air_error *e = NULL;
	int rc = fetch(ud, name, &resp, &e);

	if (rc == AIR_OK)
		from_file_body(name, resp.body ? resp.body : "", resp.body_len, w, k);
	air__http_resp_clear(&resp);
	if (rc == AIR_ENOTFOUND) {
		air_error_free(e);
		return AIR_OK;
	}
	return rc == AIR_OK ? AIR_OK : air__fail(err, e);
}

/* Whether @cfg with the settings of @k marked in @in, then the rerun's
 * overrides @over, validates; else why not, into @why. */
static bool fits(const air_config *cfg, const keeper *k, const bool *in,
                 const air__assign *over, size_t n_over, air__buf *why)
{
	air_config *trial = NULL;
	air_error *e = NULL;
	int rc = air__config_copy(cfg, &trial, &e);

	for (size_t i = 0; i < k->n; i++)
		for (size_t j = 0; rc == AIR_OK && in[i] && j < k->v[i].n; j++)
			rc = air_config_set(trial, k->v[i].path[j], k->v[i].value[j], &e);
	for (size_t i = 0; rc == AIR_OK && i < n_over; i++)
		rc = air_config_set(trial, over[i].path, over[i].value, &e);
	if (rc == AIR_OK)
		rc = air_config_validate(trial, &e);
	if (rc != AIR_OK) {
		const char *m = e ? air_error_message(e) : "out of memory";
		const char *field = e ? air_error_field(e) : NULL;
		const char *at = field && *field ? strstr(m, field) : NULL;
		size_t len, cut;

		/* From the field on: where the file is says nothing here. */
		if (at)
			m = at;
		len = strlen(m);
		cut = air__utf8_cut(m, len, WHY_MAX);

		/* The message may quote the value, a whole command. */
		air__buf_clear(why);
		air__buf_put(why, m, cut);
		if (cut < len)
			air__buf_puts(why, "\u2026");
	}
	air_error_free(e);
	air_config_free(trial);
	return rc == AIR_OK;
}

/* Whether path @path is @whole or a field within it. */
static bool within(const char *path, const char *whole)
{
	size_t n = strlen(whole);

	return !strncmp(path, whole, n) && (path[n] == '\0' || path[n] == '.');
}

/* Whether the rerun's own overrides @over replace setting @v (or what holds
 * it): the rerun's choice, not one to keep. One that changes a field
 * inside it (parameters.lr of the parameters kept) applies on top. */
static bool overridden(const kept_value *v, const air__assign *over, size_t n_over)
{
	for (size_t i = 0; i < n_over; i++)
		for (size_t j = 0; j < v->n; j++)
			if (within(v->path[j], over[i].path))
				return true;
	return false;
}

/* Which settings of @k to keep (@in): all that can be, if they fit
 * together with @over; else all but the one that does not fit; else each
 * in turn that fits with those kept before it. Why each other one is left
 * out goes to @why[i]. */
static void choose(const air_config *cfg, const keeper *k, const air__assign *over,
                   size_t n_over, bool *in, air__buf *why)
{
	air__buf all_why = AIR__BUF_INIT;

	for (size_t i = 0; i < k->n; i++)
		in[i] = !k->v[i].why;
	if (fits(cfg, k, in, over, n_over, &all_why))
		goto out;
	for (size_t i = 0; i < k->n; i++) {
		if (!in[i])
			continue;
		in[i] = false;
		if (fits(cfg, k, in, over, n_over, &why[i])) {
			air__buf_clear(&why[i]);
			air__buf_puts(&why[i], air__buf_cstr(&all_why));
			goto out;
		}
		in[i] = true;
	}
	for (size_t i = 0; i < k->n; i++)
		in[i] = false;
	for (size_t i = 0; i < k->n; i++) {
		in[i] = !k->v[i].why;
		if (in[i] && !fits(cfg, k, in, over, n_over, &why[i]))
			in[i] = false;
	}
out:
	air__buf_dispose(&all_why);
}

int air__rerun_keep(const air_run *run, air_config *cfg, const air__assign *over, size_t n_over,
                    air__launch_fetch fetch, void *ud, air__buf *kept, air__buf *left,
                    air_error **err)
{
	static const char *const files[] = {"command.sh", "hyperparameters.yaml", "env_vars.json",
	                                    "secret_env_vars.json"};
	air__workload w;
	keeper k = {.n = 0};
	bool in[MAX_KEPT] = {false};
	air__buf why[MAX_KEPT];
	int rc = AIR_OK;

	for (size_t i = 0; i < MAX_KEPT; i++)
		air__buf_init(&why[i]);
	/* A file that does not validate has nothing to compare. */
	if (air_config_validate(cfg, NULL) != AIR_OK || air__workload_load(cfg, &w, NULL) != AIR_OK)
		return AIR_OK;
	from_runs_get(run, &w, &k);
	for (size_t i = 0; rc == AIR_OK && i < sizeof(files) / sizeof(*files); i++)
		rc = from_launch_file(files[i], &w, fetch, ud, &k, err);
	air__workload_dispose(&w); /* it borrows from @cfg, changed below */
	if (rc == AIR_OK && k.oom)
		rc = air__oom(err);
	/* What the rerun overrides itself is neither kept nor left out. */
	for (size_t i = 0; rc == AIR_OK && i < k.n;) {
		if (!overridden(&k.v[i], over, n_over)) {
			i++;
			continue;
		}
		for (size_t j = 0; j < k.v[i].n; j++)
			air__free(k.v[i].value[j]);
		memmove(&k.v[i], &k.v[i + 1], (--k.n - i) * sizeof(k.v[i]));
	}
	if (rc == AIR_OK)
		choose(cfg, &k, over, n_over, in, why);
	for (size_t i = 0; i < k.n; i++) {
		kept_value *v = &k.v[i];
		air__buf *to = in[i] ? kept : left;

		for (size_t j = 0; rc == AIR_OK && in[i] && j < v->n; j++)
			rc = air_config_set(cfg, v->path[j], v->value[j], err);
		for (size_t j = 0; rc == AIR_OK && j < v->n; j++)
			air__buf_printf(to, "%s%s", to->len ? ", " : "", v->path[j]);
		if (rc == AIR_OK && !in[i])
			air__buf_printf(left, " (%s)", v->why ? v->why : air__buf_cstr(&why[i]));
		for (size_t j = 0; j < v->n; j++)
			air__free(v->value[j]);
		air__buf_dispose(&why[i]);
	}
	return rc;
}

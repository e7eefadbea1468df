/*
 * rerun_keep.c: what a past run had that its training_config.yaml does not
 * say. `air run --override` writes that file as read (the platform's
 * contract); the overrides are in the run's launch files and in the settings
 * runs/get shows. A rerun keeps them: they go into its config before its
 * own overrides, so `air rerun` starts the run that ran.
 */
#include "sweeps/sweeps.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/core.h"

/* The most settings a rerun can keep: 8 from runs/get, 4 launch files. */
#define MAX_KEPT 12

/* A setting to keep: its config path and YAML value text (NULL: unset). */
typedef struct kept_value {
	const char *path;
	char *value;
} kept_value;

typedef struct keeper {
	kept_value v[MAX_KEPT];
	size_t n;
	bool oom;
} keeper;

static void keep(keeper *k, const char *path, char *value, bool unset)
{
	if (!value && !unset) {
		k->oom = true;
		return;
	}
	k->v[k->n].path = path;
	k->v[k->n].value = value;
	k->n++;
}

/* @s as a YAML value: a JSON string is one. */
static char *quoted(const char *s)
{
	json_t *j = json_string(s);
	char *text = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;
	char *out = text ? air__strdup(text) : NULL;

	free(text); /* jansson's allocator */
	json_decref(j);
	return out;
}

/* The workload task of runs/get: the last task (retries repeat it), or
 * the task a for-each task runs. */
static const json_t *workload_task(const air_run *run, const json_t **last)
{
	const json_t *tasks = json_object_get(run->json, "tasks");
	size_t n = json_array_size(tasks);
	const json_t *inner;

	*last = n ? json_array_get(tasks, n - 1) : NULL;
	inner = air__json_at(*last, "for_each_task.task");
	return json_object_get(json_is_object(inner) ? inner : *last, "ai_runtime_task");
}

static bool differs(const char *run_value, const char *cfg_value)
{
	return run_value && (!cfg_value || strcmp(run_value, cfg_value) != 0);
}

/* The settings runs/get shows for @run that @w does not have. Only what it
 * shows counts: a platform that leaves a field out changes nothing. */
static void from_runs_get(const air_run *run, const air__workload *w, keeper *k)
{
	const json_t *last, *air = workload_task(run, &last);
	const json_t *retries = json_object_get(last, "max_retries");
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
	if (!w->docker_image_url && differs(image, w->uc_image))
		keep(k, "environment.unity_catalog_image", quoted(image), false);
	if (json_is_integer(retries) && json_integer_value(retries) != w->max_retries)
		keep(k, "max_retries", air__sprintf("%lld", (long long)json_integer_value(retries)),
		     false);
	if (json_is_integer(timeout) && json_integer_value(timeout) != w->timeout_minutes * 60) {
		json_int_t s = json_integer_value(timeout);

		if (s == 0)
			keep(k, "timeout_minutes", NULL, true); /* the run had none */
		else if (s > 0 && s % 60 == 0)
			keep(k, "timeout_minutes", air__sprintf("%lld", (long long)(s / 60)), false);
	}
}

/* env_vars.json ([{"name","value"}]) or secret_env_vars.json
 * ([{"name","secret_scope","secret_key"}]) as the config's map (NAME: value,
 * NAME: scope/key); NULL when it is not such a file. */
static char *as_map(const char *text, size_t len, bool secrets)
{
	json_t *arr = json_loadb(text, len, 0, NULL), *map = json_object(), *e;
	bool ok = json_is_array(arr) && map;
	size_t i;
	char *out;

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
	out = ok ? air__json_compact(map) : NULL;
	json_decref(arr);
	json_decref(map);
	return out;
}

/* Launch file @name of the past run against what @w gives: the config's
 * setting it holds, when they differ. A file that is gone says nothing (it
 * may have been deleted). */
static int from_launch_file(const char *name, const air__workload *w, air__launch_fetch fetch,
                            void *ud, keeper *k, air_error **err)
{
	air__http_resp resp = AIR__HTTP_RESP_INIT;
	air_error *e = NULL;
	const char *body;
	char *mine = NULL;
	int rc = fetch(ud, name, &resp, &e);

	if (rc == AIR_EINTERRUPTED || rc == AIR_ETIMEOUT)
		return air__fail(err, e);
	air_error_free(e);
	if (rc != AIR_OK) {
		air__http_resp_clear(&resp);
		return AIR_OK;
	}
	body = resp.body ? resp.body : "";
	if (!strcmp(name, "command.sh")) {
		if (resp.body_len != strlen(w->command) || memcmp(body, w->command, resp.body_len)) {
			char *text = air__strndup(body, resp.body_len);

			keep(k, "command", text ? quoted(text) : NULL, false);
			air__free(text);
		}
	} else if (!strcmp(name, "hyperparameters.yaml")) {
		if (!w->parameters_yaml || resp.body_len != strlen(w->parameters_yaml) ||
		    memcmp(body, w->parameters_yaml, resp.body_len))
			keep(k, "parameters", air__strndup(body, resp.body_len), false);
	} else {
		bool secrets = !strcmp(name, "secret_env_vars.json");

		mine = secrets ? (w->n_secrets ? air__secret_vars_json(w->secrets, w->n_secrets) : NULL)
		               : (w->n_env ? air__env_vars_json(w->env, w->n_env) : NULL);
		if (!mine || strlen(mine) != resp.body_len || memcmp(body, mine, resp.body_len)) {
			char *map = as_map(body, resp.body_len, secrets);

			if (map)
				keep(k, secrets ? "secrets" : "env_variables", map, false);
		}
	}
	air__free(mine);
	air__http_resp_clear(&resp);
	return AIR_OK;
}

int air__rerun_keep(const air_run *run, air_config *cfg, bool launch_files,
                    air__launch_fetch fetch, void *ud, air__buf *kept, air_error **err)
{
	static const char *const files[] = {"command.sh", "hyperparameters.yaml", "env_vars.json",
	                                    "secret_env_vars.json"};
	air__workload w;
	keeper k = {.n = 0};
	int rc = AIR_OK;

	/* A file that no longer validates has nothing to compare. */
	if (air_config_validate(cfg, NULL) != AIR_OK || air__workload_load(cfg, &w, NULL) != AIR_OK)
		return AIR_OK;
	from_runs_get(run, &w, &k);
	for (size_t i = 0; launch_files && rc == AIR_OK && i < sizeof(files) / sizeof(*files); i++)
		rc = from_launch_file(files[i], &w, fetch, ud, &k, err);
	air__workload_dispose(&w); /* it borrows from @cfg, changed below */
	if (rc == AIR_OK && k.oom)
		rc = air__oom(err);
	for (size_t i = 0; i < k.n; i++) {
		air_error *e = NULL;

		/* A value the config refuses is not kept: the file's stands. */
		if (rc == AIR_OK && air_config_set(cfg, k.v[i].path, k.v[i].value, &e) == AIR_OK)
			air__buf_printf(kept, "%s%s", kept->len ? ", " : "", k.v[i].path);
		air_error_free(e);
		air__free(k.v[i].value);
	}
	return rc;
}

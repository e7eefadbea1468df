/*
 * payload.c: the JSON bodies of the pre-flight validation and of
 * runs/submit (docs/submit.md). Keys are inserted in the documented order;
 * optional keys are omitted, never sent as zero values.
 */
#include "submit/submit.h"

#include <string.h>
#include <strings.h>

/* Build helpers that turn any allocation failure into a sticky flag. */
typedef struct jb {
	bool oom;
} jb;

static void set(jb *b, json_t *obj, const char *key, json_t *v)
{
	if (!v || json_object_set_new(obj, key, v) != 0)
		b->oom = true;
}

static void set_str(jb *b, json_t *obj, const char *key, const char *v)
{
	if (v)
		set(b, obj, key, json_string(v));
}

static void append(jb *b, json_t *arr, json_t *v)
{
	if (!v || json_array_append_new(arr, v) != 0)
		b->oom = true;
}

static json_t *finish(jb *b, json_t *root)
{
	if (b->oom || !root) {
		json_decref(root);
		return NULL;
	}
	return root;
}

static json_t *deployments(jb *b, const air__workload *w, const char *command_path)
{
	json_t *arr = json_array(), *dep = json_object(), *compute = json_object();

	set_str(b, compute, "accelerator_type", w->accelerator_type);
	set(b, compute, "accelerator_count", json_integer(w->num_accelerators));
	set_str(b, compute, "provisioned_capacity_id", w->pool_id);
	set_str(b, dep, "command_path", command_path);
	set(b, dep, "compute", compute);
	append(b, arr, dep);
	return arr;
}

json_t *air__preflight_body(const air__workload *w, const char *command_path)
{
	jb b = {false};
	json_t *root = json_object(), *task = json_object(), *opts = json_object();

	if (!opts)
		b.oom = true;
	set_str(&b, task, "experiment", w->experiment);
	set(&b, task, "deployments", deployments(&b, w, command_path));
	set_str(&b, task, "priority_class", w->priority_class);
	set_str(&b, task, "mlflow_run", w->mlflow_run_name);
	set_str(&b, task, "mlflow_experiment_directory", w->mlflow_experiment_directory);
	set_str(&b, task, "mlflow_artifact_location", w->mlflow_artifact_location);
	set_str(&b, task, "unity_catalog_image_path", w->uc_image);
	set(&b, root, "task", task);

	if (w->has_max_retries)
		set(&b, opts, "max_retries", json_integer(w->max_retries));
	if (w->timeout_minutes > 0)
		set(&b, opts, "timeout_minutes", json_integer(w->timeout_minutes));
	/* Only the YAML token: the --idempotency-key flag is not sent here. */
	set_str(&b, opts, "idempotency_token", w->idempotency_token);
	set_str(&b, opts, "usage_policy_name", w->usage_policy_name);
	set_str(&b, opts, "usage_policy_id", w->usage_policy_id);
	if (w->n_env > 0) {
		json_t *env = json_object();
		for (size_t i = 0; i < w->n_env; i++)
			set_str(&b, env, w->env[i].name, w->env[i].value);
		set(&b, opts, "env_variables", env);
	}
	if (w->n_secrets > 0) {
		json_t *sec = json_object();
		for (size_t i = 0; i < w->n_secrets; i++)
			set_str(&b, sec, w->secrets[i].name, w->secrets[i].ref);
		set(&b, opts, "secrets", sec);
	}
	if (opts && json_object_size(opts) > 0)
		set(&b, root, "run_options", opts);
	else
		json_decref(opts);
	return finish(&b, root);
}

/* "databricks_ai_v<N>" (any case) -> N's text, else NULL. */
static const char *ai_env_number(const char *channel)
{
	static const char prefix[] = "databricks_ai_v";
	size_t n = sizeof(prefix) - 1;
	const char *p;

	if (strlen(channel) <= n || strncasecmp(channel, prefix, n) != 0)
		return NULL;
	for (p = channel + n; *p; p++)
		if (*p < '0' || *p > '9')
			return NULL;
	return channel + n;
}

json_t *air__environment_spec(const air__workload *w, const char *default_runtime)
{
	jb b = {false};
	json_t *spec = json_object();
	const char *channel = w->environment_version;
	const char *num;

	if (!channel)
		channel = default_runtime && *default_runtime ? default_runtime : AIR__DEFAULT_RUNTIME;
	if (air__starts_with(channel, "CLIENT-GPU-"))
		channel += strlen("CLIENT-GPU-");
	if ((num = ai_env_number(channel))) {
		char *id = air__sprintf("workspace-base-environments/databricks_ai_v%s", num);
		set(&b, spec, "base_environment", id ? json_string(id) : NULL);
		air__free(id);
	} else {
		set_str(&b, spec, "environment_version", channel);
	}
	if (w->n_dependencies > 0) {
		json_t *deps = json_array();
		for (size_t i = 0; i < w->n_dependencies; i++)
			append(&b, deps, json_string(w->dependencies[i]));
		set(&b, spec, "dependencies", deps);
	}
	return finish(&b, spec);
}

json_t *air__ai_runtime_task(const air__workload *w, const char *command_path,
                             const char *code_source_path)
{
	jb b = {false};
	json_t *air = json_object();

	set_str(&b, air, "experiment", w->experiment);
	set(&b, air, "deployments", deployments(&b, w, command_path));
	set_str(&b, air, "priority_class", w->priority_class);
	set_str(&b, air, "unity_catalog_image_path", w->uc_image);
	set_str(&b, air, "code_source_path", code_source_path);
	set_str(&b, air, "mlflow_run", w->mlflow_run_name);
	set_str(&b, air, "mlflow_experiment_directory", w->mlflow_experiment_directory);
	set_str(&b, air, "mlflow_artifact_location", w->mlflow_artifact_location);
	return finish(&b, air);
}

const char *air__principal_key(int32_t type)
{
	switch (type) {
	case AIR_PRINCIPAL_GROUP:
		return "group_name";
	case AIR_PRINCIPAL_SERVICE_PRINCIPAL:
		return "service_principal_name";
	default:
		return "user_name";
	}
}

/* libair decision: the YAML grants travel with the run. */
static json_t *access_control_list(jb *b, const air__workload *w)
{
	json_t *acl = json_array();

	for (size_t i = 0; i < w->n_grants; i++) {
		json_t *g = json_object();
		set_str(b, g, air__principal_key(w->grants[i].principal_type), w->grants[i].principal);
		set_str(b, g, "permission_level", w->grants[i].level);
		append(b, acl, g);
	}
	return acl;
}

json_t *air__submit_body(const air__workload *w, const air__submit_params *p)
{
	jb b = {false};
	json_t *root = json_object(), *tasks = json_array(), *task = json_object();
	json_t *envs = json_array(), *env = json_object();

	set_str(&b, root, "run_name", w->experiment);
	set_str(&b, root, "idempotency_token", p->idempotency_token);
	set_str(&b, root, "budget_policy_id", p->budget_policy_id);
	if (w->timeout_minutes > 0)
		set(&b, root, "timeout_seconds", json_integer(w->timeout_minutes * 60));

	set_str(&b, task, "task_key", w->experiment);
	set_str(&b, task, "run_if", "ALL_SUCCESS");
	set_str(&b, task, "environment_key", "default");
	set(&b, task, "max_retries", json_integer(w->max_retries));
	if (w->max_retries > 0)
		set(&b, task, "retry_on_timeout", json_true());
	set(&b, task, "ai_runtime_task", air__ai_runtime_task(w, p->command_path, p->code_source_path));
	append(&b, tasks, task);
	set(&b, root, "tasks", tasks);

	set_str(&b, env, "environment_key", "default");
	set(&b, env, "spec", air__environment_spec(w, p->default_runtime));
	append(&b, envs, env);
	set(&b, root, "environments", envs);
	if (w->n_grants > 0)
		set(&b, root, "access_control_list", access_control_list(&b, w));
	return finish(&b, root);
}

/* workload.c: read the values a submission needs out of a validated
 * config once (air__workload), so that the rest of the flow and its tests do
 * not depend on the config object. */
#include "submit/submit.h"

#include <string.h>

static bool load_lists(const air_config *cfg, air__workload *w)
{
	size_t n;

	n = air_config_dependency_count(cfg);
	if (n && !(w->dependencies = air__calloc(n, sizeof(*w->dependencies))))
		return false;
	for (w->n_dependencies = 0; w->n_dependencies < n; w->n_dependencies++)
		w->dependencies[w->n_dependencies] = air_config_dependency(cfg, w->n_dependencies);

	n = air_config_env_count(cfg);
	if (n && !(w->env = air__calloc(n, sizeof(*w->env))))
		return false;
	for (w->n_env = 0; w->n_env < n; w->n_env++) {
		w->env[w->n_env].name = air_config_env_name(cfg, w->n_env);
		w->env[w->n_env].value = air_config_env_value(cfg, w->n_env);
	}

	n = air_config_secret_count(cfg);
	if (n && !(w->secrets = air__calloc(n, sizeof(*w->secrets))))
		return false;
	for (w->n_secrets = 0; w->n_secrets < n; w->n_secrets++) {
		air__secret_var *s = &w->secrets[w->n_secrets];
		s->name = air_config_secret_name(cfg, w->n_secrets);
		s->ref = air_config_secret_ref(cfg, w->n_secrets);
		s->scope = air_config_secret_scope(cfg, w->n_secrets);
		s->key = air_config_secret_key(cfg, w->n_secrets);
	}

	n = air_config_permission_count(cfg);
	if (n && !(w->grants = air__calloc(n, sizeof(*w->grants))))
		return false;
	for (w->n_grants = 0; w->n_grants < n; w->n_grants++) {
		air__grant *g = &w->grants[w->n_grants];
		g->principal_type = air_config_permission_principal_type(cfg, w->n_grants);
		g->principal = air_config_permission_principal(cfg, w->n_grants);
		g->level = air_config_permission_level(cfg, w->n_grants);
	}

	n = air_config_include_path_count(cfg);
	if (n && !(w->include_paths = air__calloc(n, sizeof(*w->include_paths))))
		return false;
	for (w->n_include_paths = 0; w->n_include_paths < n; w->n_include_paths++)
		w->include_paths[w->n_include_paths] = air_config_include_path(cfg, w->n_include_paths);
	return true;
}

int air__workload_load(const air_config *cfg, air__workload *w, air_error **err)
{
	int rc;

	memset(w, 0, sizeof(*w));
	w->experiment = air_config_experiment_name(cfg);
	w->command = air_config_command(cfg);
	w->accelerator_type = air_config_accelerator_type(cfg);
	w->num_accelerators = air_config_num_accelerators(cfg);
	w->pool_id = air_config_pool_id(cfg);
	w->priority_class = air_config_priority_class(cfg);
	w->environment_version = air_config_environment_version(cfg);
	w->uc_image = air_config_unity_catalog_image(cfg);
	w->docker_image_url = air_config_docker_image_url(cfg);
	w->docker_tag_policy = air_config_docker_image_tag_policy(cfg);
	w->docker_credentials_scope = air_config_docker_image_credentials_scope(cfg);
	w->docker_credentials_key = air_config_docker_image_credentials_key(cfg);
	w->max_retries = air_config_max_retries(cfg);
	w->timeout_minutes = air_config_timeout_minutes(cfg);
	w->idempotency_token = air_config_idempotency_token(cfg);
	w->mlflow_run_name = air_config_mlflow_run_name(cfg);
	w->mlflow_experiment_directory = air_config_mlflow_experiment_directory(cfg);
	w->mlflow_artifact_location = air_config_mlflow_artifact_location(cfg);
	w->usage_policy_name = air_config_usage_policy_name(cfg);
	w->usage_policy_id = air_config_usage_policy_id(cfg);
	w->has_code_source = air_config_code_source_form(cfg) != AIR_CODE_SOURCE_NONE;
	w->root_path = air_config_root_path(cfg);
	w->remote_volume = air_config_remote_volume(cfg);
	w->git_commit = air_config_git_commit(cfg);
	w->git_branch = air_config_git_branch(cfg);
	w->source_bytes = air_config_source_bytes(cfg, &w->source_len);
	w->base_dir = air_config_base_dir(cfg);
	if (!w->experiment || !w->command || !w->accelerator_type)
		return air__failf(err, AIR_ECONFIG, AIR_KIND_INVALID_CONFIG,
		                  "the configuration has not been validated");
	if (!load_lists(cfg, w)) {
		air__workload_dispose(w);
		return air__oom(err);
	}
	if (air_config_has_parameters(cfg) &&
	    (rc = air_config_parameters_yaml(cfg, &w->parameters_yaml, err)) != AIR_OK) {
		air__workload_dispose(w);
		return rc;
	}
	/* The pre-flight sends only what the user wrote; the accessor reports the default 3. */
	w->has_max_retries = air_config_is_set(cfg, "max_retries") != 0;
	return AIR_OK;
}

void air__workload_dispose(air__workload *w)
{
	if (!w)
		return;
	air__free(w->dependencies);
	air__free(w->env);
	air__free(w->secrets);
	air__free(w->grants);
	air__free(w->include_paths);
	air_free(w->parameters_yaml);
	memset(w, 0, sizeof(*w));
}

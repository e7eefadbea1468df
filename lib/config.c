/* config.c: placeholder implementation of config.h; every call reports AIR_EUNSUPPORTED. */
#include "internal.h"

int air_config_parse_file(const char *path, air_config **out, air_error **err)
{
	return AIR_EUNSUPPORTED;
}

int air_config_parse_buffer(const char *data, size_t len, const char *name, const char *base_dir, air_config **out, air_error **err)
{
	return AIR_EUNSUPPORTED;
}

int air_config_load_file(const char *path, air_config **out, air_error **err)
{
	return AIR_EUNSUPPORTED;
}

int air_config_load_buffer(const char *data, size_t len, const char *name, const char *base_dir, air_config **out, air_error **err)
{
	return AIR_EUNSUPPORTED;
}

int air_config_validate(air_config *cfg, air_error **err)
{
	return AIR_EUNSUPPORTED;
}

int32_t air_config_is_valid(const air_config *cfg)
{
	return 0;
}

void air_config_free(air_config *cfg)
{
}

int air_config_override(air_config *cfg, const char *assignment, air_error **err)
{
	return AIR_EUNSUPPORTED;
}

int air_config_set(air_config *cfg, const char *path, const char *yaml_value, air_error **err)
{
	return AIR_EUNSUPPORTED;
}

size_t air_config_change_count(const air_config *cfg)
{
	return 0;
}

const char *air_config_change_path(const air_config *cfg, size_t i)
{
	return NULL;
}

const char *air_config_change_old(const air_config *cfg, size_t i)
{
	return NULL;
}

const char *air_config_change_new(const air_config *cfg, size_t i)
{
	return NULL;
}

int air_config_to_yaml(const air_config *cfg, char **out, air_error **err)
{
	return AIR_EUNSUPPORTED;
}

int air_config_to_json(const air_config *cfg, char **out, air_error **err)
{
	return AIR_EUNSUPPORTED;
}

const char *air_config_source_name(const air_config *cfg)
{
	return NULL;
}

const char *air_config_base_dir(const air_config *cfg)
{
	return NULL;
}

const char *air_config_source_bytes(const air_config *cfg, size_t *len_out)
{
	return NULL;
}

int air_schema_help(const char *path, uint32_t flags, char **out, air_error **err)
{
	return AIR_EUNSUPPORTED;
}

const char *air_config_experiment_name(const air_config *cfg)
{
	return NULL;
}

const char *air_config_command(const air_config *cfg)
{
	return NULL;
}

const char *air_config_accelerator_type(const air_config *cfg)
{
	return NULL;
}

int64_t air_config_num_accelerators(const air_config *cfg)
{
	return 0;
}

int64_t air_config_num_nodes(const air_config *cfg)
{
	return 0;
}

const char *air_config_pool_id(const air_config *cfg)
{
	return NULL;
}

const char *air_config_priority_class(const air_config *cfg)
{
	return NULL;
}

const char *air_config_environment_version(const air_config *cfg)
{
	return NULL;
}

int32_t air_config_has_dependencies(const air_config *cfg)
{
	return 0;
}

size_t air_config_dependency_count(const air_config *cfg)
{
	return 0;
}

const char *air_config_dependency(const air_config *cfg, size_t i)
{
	return NULL;
}

const char *air_config_unity_catalog_image(const air_config *cfg)
{
	return NULL;
}

const char *air_config_docker_image_url(const air_config *cfg)
{
	return NULL;
}

const char *air_config_docker_image_tag_policy(const air_config *cfg)
{
	return NULL;
}

const char *air_config_docker_image_credentials_scope(const air_config *cfg)
{
	return NULL;
}

const char *air_config_docker_image_credentials_key(const air_config *cfg)
{
	return NULL;
}

size_t air_config_env_count(const air_config *cfg)
{
	return 0;
}

const char *air_config_env_name(const air_config *cfg, size_t i)
{
	return NULL;
}

const char *air_config_env_value(const air_config *cfg, size_t i)
{
	return NULL;
}

size_t air_config_secret_count(const air_config *cfg)
{
	return 0;
}

const char *air_config_secret_name(const air_config *cfg, size_t i)
{
	return NULL;
}

const char *air_config_secret_ref(const air_config *cfg, size_t i)
{
	return NULL;
}

const char *air_config_secret_scope(const air_config *cfg, size_t i)
{
	return NULL;
}

const char *air_config_secret_key(const air_config *cfg, size_t i)
{
	return NULL;
}

int32_t air_config_has_parameters(const air_config *cfg)
{
	return 0;
}

int air_config_parameters_yaml(const air_config *cfg, char **out, air_error **err)
{
	return AIR_EUNSUPPORTED;
}

int air_config_parameters_json(const air_config *cfg, char **out, air_error **err)
{
	return AIR_EUNSUPPORTED;
}

int32_t air_config_code_source_form(const air_config *cfg)
{
	return 0;
}

const char *air_config_root_path(const air_config *cfg)
{
	return NULL;
}

const char *air_config_remote_volume(const air_config *cfg)
{
	return NULL;
}

size_t air_config_include_path_count(const air_config *cfg)
{
	return 0;
}

const char *air_config_include_path(const air_config *cfg, size_t i)
{
	return NULL;
}

const char *air_config_git_commit(const air_config *cfg)
{
	return NULL;
}

const char *air_config_git_branch(const air_config *cfg)
{
	return NULL;
}

int64_t air_config_max_retries(const air_config *cfg)
{
	return 0;
}

int64_t air_config_timeout_minutes(const air_config *cfg)
{
	return 0;
}

const char *air_config_idempotency_token(const air_config *cfg)
{
	return NULL;
}

const char *air_config_mlflow_run_name(const air_config *cfg)
{
	return NULL;
}

const char *air_config_mlflow_experiment_directory(const air_config *cfg)
{
	return NULL;
}

const char *air_config_mlflow_artifact_location(const air_config *cfg)
{
	return NULL;
}

const char *air_config_usage_policy_name(const air_config *cfg)
{
	return NULL;
}

const char *air_config_usage_policy_id(const air_config *cfg)
{
	return NULL;
}

size_t air_config_permission_count(const air_config *cfg)
{
	return 0;
}

int32_t air_config_permission_principal_type(const air_config *cfg, size_t i)
{
	return 0;
}

const char *air_config_permission_principal(const air_config *cfg, size_t i)
{
	return NULL;
}

const char *air_config_permission_level(const air_config *cfg, size_t i)
{
	return NULL;
}

int32_t air_accelerator_gpus_per_node(const char *accelerator_type)
{
	return 0;
}

const char *air_accelerator_display_name(const char *accelerator_type)
{
	return NULL;
}

/* access.c: value accessors of a validated config (config.h). */
#include <string.h>

#include "config/config.h"

/* The published values, or NULL when the config is not (or no longer) valid. */
static const air__cfg_values *values(const air_config *cfg)
{
	return cfg && cfg->valid ? &cfg->v : NULL;
}

#define STRING_GETTER(fn, member)                          \
	const char *fn(const air_config *cfg)              \
	{                                                  \
		const air__cfg_values *v = values(cfg);    \
		return v ? v->member : NULL;               \
	}

STRING_GETTER(air_config_experiment_name, experiment_name)
STRING_GETTER(air_config_command, command)
STRING_GETTER(air_config_accelerator_type, accelerator_type)
STRING_GETTER(air_config_pool_id, pool_id)
STRING_GETTER(air_config_priority_class, priority_class)
STRING_GETTER(air_config_environment_version, environment_version)
STRING_GETTER(air_config_unity_catalog_image, unity_catalog_image)
STRING_GETTER(air_config_docker_image_url, docker_url)
STRING_GETTER(air_config_docker_image_tag_policy, docker_tag_policy)
STRING_GETTER(air_config_docker_image_credentials_scope, docker_credentials_scope)
STRING_GETTER(air_config_docker_image_credentials_key, docker_credentials_key)
STRING_GETTER(air_config_root_path, root_path)
STRING_GETTER(air_config_remote_volume, remote_volume)
STRING_GETTER(air_config_git_commit, git_commit)
STRING_GETTER(air_config_git_branch, git_branch)
STRING_GETTER(air_config_idempotency_token, idempotency_token)
STRING_GETTER(air_config_mlflow_run_name, mlflow_run_name)
STRING_GETTER(air_config_mlflow_experiment_directory, mlflow_experiment_directory)
STRING_GETTER(air_config_mlflow_artifact_location, mlflow_artifact_location)
STRING_GETTER(air_config_usage_policy_name, usage_policy_name)
STRING_GETTER(air_config_usage_policy_id, usage_policy_id)

int64_t air_config_num_accelerators(const air_config *cfg)
{
	const air__cfg_values *v = values(cfg);
	return v ? v->num_accelerators : 0;
}

int64_t air_config_num_nodes(const air_config *cfg)
{
	const air__cfg_values *v = values(cfg);
	return v ? v->num_nodes : 0;
}

int64_t air_config_max_retries(const air_config *cfg)
{
	const air__cfg_values *v = values(cfg);
	return v ? v->max_retries : 3;
}

int64_t air_config_timeout_minutes(const air_config *cfg)
{
	const air__cfg_values *v = values(cfg);
	return v ? v->timeout_minutes : 0;
}

int32_t air_config_has_dependencies(const air_config *cfg)
{
	const air__cfg_values *v = values(cfg);
	return v && v->has_dependencies;
}

size_t air_config_dependency_count(const air_config *cfg)
{
	const air__cfg_values *v = values(cfg);
	return v ? v->ndependencies : 0;
}

const char *air_config_dependency(const air_config *cfg, size_t i)
{
	const air__cfg_values *v = values(cfg);
	return v && i < v->ndependencies ? v->dependencies[i] : NULL;
}

size_t air_config_env_count(const air_config *cfg)
{
	const air__cfg_values *v = values(cfg);
	return v ? v->nenv : 0;
}

const char *air_config_env_name(const air_config *cfg, size_t i)
{
	const air__cfg_values *v = values(cfg);
	return v && i < v->nenv ? v->env[i].name : NULL;
}

const char *air_config_env_value(const air_config *cfg, size_t i)
{
	const air__cfg_values *v = values(cfg);
	return v && i < v->nenv ? v->env[i].value : NULL;
}

size_t air_config_secret_count(const air_config *cfg)
{
	const air__cfg_values *v = values(cfg);
	return v ? v->nsecrets : 0;
}

const char *air_config_secret_name(const air_config *cfg, size_t i)
{
	const air__cfg_values *v = values(cfg);
	return v && i < v->nsecrets ? v->secrets[i].name : NULL;
}

const char *air_config_secret_ref(const air_config *cfg, size_t i)
{
	const air__cfg_values *v = values(cfg);
	return v && i < v->nsecrets ? v->secrets[i].value : NULL;
}

const char *air_config_secret_scope(const air_config *cfg, size_t i)
{
	const air__cfg_values *v = values(cfg);
	return v && i < v->nsecrets ? v->secrets[i].scope : NULL;
}

const char *air_config_secret_key(const air_config *cfg, size_t i)
{
	const air__cfg_values *v = values(cfg);
	return v && i < v->nsecrets ? v->secrets[i].key : NULL;
}

int32_t air_config_has_parameters(const air_config *cfg)
{
	const air__cfg_values *v = values(cfg);
	return v && v->parameters && v->parameters->len > 0;
}

int32_t air_config_code_source_form(const air_config *cfg)
{
	const air__cfg_values *v = values(cfg);
	return v ? v->code_source_form : AIR_CODE_SOURCE_NONE;
}

size_t air_config_include_path_count(const air_config *cfg)
{
	const air__cfg_values *v = values(cfg);
	return v ? v->ninclude_paths : 0;
}

const char *air_config_include_path(const air_config *cfg, size_t i)
{
	const air__cfg_values *v = values(cfg);
	return v && i < v->ninclude_paths ? v->include_paths[i] : NULL;
}

size_t air_config_permission_count(const air_config *cfg)
{
	const air__cfg_values *v = values(cfg);
	return v ? v->ngrants : 0;
}

int32_t air_config_permission_principal_type(const air_config *cfg, size_t i)
{
	const air__cfg_values *v = values(cfg);
	return v && i < v->ngrants ? v->grants[i].type : 0;
}

const char *air_config_permission_principal(const air_config *cfg, size_t i)
{
	const air__cfg_values *v = values(cfg);
	return v && i < v->ngrants ? v->grants[i].principal : NULL;
}

const char *air_config_permission_level(const air_config *cfg, size_t i)
{
	const air__cfg_values *v = values(cfg);
	return v && i < v->ngrants ? v->grants[i].level : NULL;
}

int32_t air_config_is_set(const air_config *cfg, const char *path)
{
	const air__ynode *node;
	const char *seg = path;

	if (!cfg || !path || !*path)
		return 0;
	node = cfg->root;
	while (node) {
		const char *dot = strchr(seg, '.');
		size_t n = dot ? (size_t)(dot - seg) : strlen(seg);
		air__ypair *p = air__ymap_pair(node, seg, n);

		node = p && !air__ynode_is_null(p->value) ? p->value : NULL;
		if (!dot)
			break;
		seg = dot + 1;
	}
	return node ? 1 : 0;
}

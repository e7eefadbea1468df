/**
 * @file
 * config.h: the workload YAML (the file that describes an AI Runtime run).
 *
 * Life cycle: parse (syntax only) -> any number of overrides -> validate
 * (strict decoding of every field, then the semantic rules in order). The
 * load functions do parse + validate in one call. Value accessors return the
 * values of the last successful validation; before it (or after a later
 * override) they return NULL / 0 / the documented default.
 *
 * Errors are AIR_ECONFIG with kind AIR_KIND_INVALID_CONFIG and carry the
 * field path ("compute.num_accelerators", "permissions[0].level") plus file,
 * line and column where the YAML gives them; the message then reads
 * "<file>:<line>:<col>: <field>: <problem>" and can be printed as is. Values
 * set by overrides have no position ("<file>: <field>: <problem>").
 * Strings returned by accessors are owned by the config and stay valid until
 * the next override, validation or air_config_free().
 * A config is used by one thread at a time.
 *
 * Accessor values are "as written" (the scalar's text, not trimmed) unless
 * the comment says trimmed or normalised; non-string scalars are their
 * literal text ("8", "0x10", "true").
 */
#ifndef AIR_CONFIG_H
#define AIR_CONFIG_H

#include "types.h"

AIR_BEGIN_DECLS

/** Limits of workload files. */
typedef enum air_config_limit {
	AIR_CONFIG_MAX_BYTES = 1024 * 1024 /**< largest workload file libair reads; bigger ones are refused */
} air_config_limit;

/** Forms of code_source (air_config_code_source_form()). ABI: append only. */
typedef enum air_code_source_form {
	AIR_CODE_SOURCE_NONE = 0,   /**< no code_source */
	AIR_CODE_SOURCE_FLAT = 1,   /**< root_path etc. directly under code_source */
	AIR_CODE_SOURCE_NESTED = 2  /**< type: snapshot + snapshot: {...} */
} air_code_source_form;

/** Principal kinds of a permission grant. ABI: append only. */
typedef enum air_principal {
	AIR_PRINCIPAL_USER = 1,              /**< user_name */
	AIR_PRINCIPAL_GROUP = 2,             /**< group_name */
	AIR_PRINCIPAL_SERVICE_PRINCIPAL = 3  /**< service_principal_name */
} air_principal;

/* ---- parsing and validation ------------------------------------------- */

/**
 * Parse the YAML file at @p path without validating it.
 * Refuses files above AIR_CONFIG_MAX_BYTES, invalid UTF-8, syntax errors,
 * duplicate keys, a non-mapping root, excessive nesting and alias expansion
 * bombs. An empty file parses (validation then reports it as empty unless
 * overrides filled it). The base directory is the directory part of
 * @p path as given ("." for a bare file name).
 * @param[out] out receives the new config.
 * @return AIR_OK, AIR_EINVAL (NULL argument), AIR_ECONFIG, AIR_EIO (unreadable
 *         file) or AIR_ENOMEM. @since 1.0
 */
AIR_EXTERN int air_config_parse_file(const char *path, air_config **out, air_error **err);

/**
 * Parse @p len bytes of YAML from memory (no NUL needed).
 * @param name shown in messages as the file name (may be NULL: "<memory>").
 * @param base_dir directory that relative code_source.root_path values are
 *        resolved against at submit time (may be NULL: the current directory).
 * @return AIR_OK, AIR_EINVAL (NULL @p out, or NULL @p data with a length), AIR_ECONFIG or
 *         AIR_ENOMEM. @since 1.0
 */
AIR_EXTERN int air_config_parse_buffer(const char *data, size_t len, const char *name,
                                       const char *base_dir, air_config **out, air_error **err);

/**
 * air_config_parse_file() followed by air_config_validate(). On failure *out is NULL.
 * @return AIR_OK, AIR_EINVAL (NULL argument), AIR_EIO (unreadable file), AIR_ECONFIG
 *         (parsing or validation) or AIR_ENOMEM. @since 1.0
 */
AIR_EXTERN int air_config_load_file(const char *path, air_config **out, air_error **err);

/**
 * air_config_parse_buffer() followed by air_config_validate().
 * @return AIR_OK, AIR_EINVAL (NULL @p out, or NULL @p data with a length), AIR_ECONFIG
 *         (parsing or validation) or AIR_ENOMEM. @since 1.0
 */
AIR_EXTERN int air_config_load_buffer(const char *data, size_t len, const char *name,
                                      const char *base_dir, air_config **out, air_error **err);

/**
 * Decode every field strictly and apply the semantic rules in their
 * documented order; the first failure is returned. On success the value
 * accessors below become available.
 * @return AIR_OK or AIR_ECONFIG. @since 1.0
 */
AIR_EXTERN int air_config_validate(air_config *cfg, air_error **err);

/** 1 when the last validation succeeded and no override came after it. @since 1.0 */
AIR_EXTERN int32_t air_config_is_valid(const air_config *cfg);

/** Release @p cfg; NULL is a no-op. @since 1.0 */
AIR_EXTERN void air_config_free(air_config *cfg);

/* ---- overrides -------------------------------------------------------- */

/**
 * Apply one `FIELD_PATH=VALUE` override (the `--override` syntax): split at
 * the first '=' (the path is trimmed), check the path against the schema
 * (unknown segments are refused with the list of valid fields; any sub-path
 * of parameters, env_variables and secrets is accepted), parse VALUE as a
 * YAML document (8 int, '8' string, [a, b] list, {a: 1} map) and set it in
 * the document, creating intermediate mappings ("null" or an empty value
 * unsets the field). Nothing is modified when an error is returned. The
 * config must be validated again afterwards; air_config_is_valid() is 0.
 * Every applied override is recorded (air_config_change_*).
 * @return AIR_OK, AIR_EINVAL (NULL argument), AIR_ECONFIG or AIR_ENOMEM. @since 1.0
 */
AIR_EXTERN int air_config_override(air_config *cfg, const char *assignment, air_error **err);

/**
 * Like air_config_override() with the path and the YAML value text given separately (NULL
 * value = null).
 * @return AIR_OK, AIR_EINVAL (NULL @p cfg or @p path), AIR_ECONFIG or
 *         AIR_ENOMEM. @since 1.0
 */
AIR_EXTERN int air_config_set(air_config *cfg, const char *path, const char *yaml_value,
                              air_error **err);

/** Number of overrides applied so far. @since 1.0 */
AIR_EXTERN size_t air_config_change_count(const air_config *cfg);
/** Field path of override @p i (in application order), or NULL when out of range. @since 1.0 */
AIR_EXTERN const char *air_config_change_path(const air_config *cfg, size_t i);
/** Previous value of override @p i as one-line flow YAML ("1", "[a, b]", "\"8\""), or NULL when the field was unset or null. @since 1.0 */
AIR_EXTERN const char *air_config_change_old(const air_config *cfg, size_t i);
/** New value of override @p i as compact YAML text ("null" when unset by it). @since 1.0 */
AIR_EXTERN const char *air_config_change_new(const air_config *cfg, size_t i);

/* ---- serialisation ---------------------------------------------------- */

/**
 * The effective (overridden) document as block YAML: keys in document order,
 * comments dropped, aliases expanded, strings quoted where a YAML 1.2 or 1.1
 * reader would type them otherwise; "{}\n" for an empty document. Needs no
 * validation. Free *out with air_free().
 * @return AIR_OK, AIR_EINVAL (NULL @p cfg or @p out) or AIR_ENOMEM. @since 1.0
 */
AIR_EXTERN int air_config_to_yaml(const air_config *cfg, char **out, air_error **err);
/**
 * The effective (overridden) document as compact JSON with YAML 1.2 core
 * typing (0x10 -> 16, .5 -> 0.5; .inf/.nan stay strings; integers beyond
 * int64 become floats). Needs no validation. Free *out with air_free().
 * @return AIR_OK, AIR_EINVAL (NULL @p cfg or @p out) or AIR_ENOMEM. @since 1.0
 */
AIR_EXTERN int air_config_to_json(const air_config *cfg, char **out, air_error **err);

/** Path the config was read from, or the name given to parse_buffer. @since 1.0 */
AIR_EXTERN const char *air_config_source_name(const air_config *cfg);
/** Directory relative root_path values resolve against. @since 1.0 */
AIR_EXTERN const char *air_config_base_dir(const air_config *cfg);
/** The original bytes as read (before overrides); @p len_out may be NULL. @since 1.0 */
AIR_EXTERN const char *air_config_source_bytes(const air_config *cfg, size_t *len_out);
/**
 * 1 when the dotted @p path ("max_retries", "compute.pool_id",
 * "env_variables.RANK") is written in the effective document (after
 * overrides) with a non-null value, else 0. Tells an explicit value from a
 * default: air_config_max_retries() returns 3 either way. Needs no validation.
 * @since 1.0
 */
AIR_EXTERN int32_t air_config_is_set(const air_config *cfg, const char *path);

/* ---- field help ------------------------------------------------------- */

/** Kinds of schema fields. ABI: append only. */
typedef enum air_schema_kind {
	AIR_FIELD_OBJECT = 1,         /**< a mapping with the fixed children of air_field_child() */
	AIR_FIELD_STRING = 2,         /**< a string */
	AIR_FIELD_INT = 3,            /**< an integer */
	AIR_FIELD_SCALAR = 4,         /**< a string or an integer */
	AIR_FIELD_BOOL_OR_STRING = 5, /**< a boolean or a string */
	AIR_FIELD_STRING_LIST = 6,    /**< a list of strings */
	AIR_FIELD_OBJECT_LIST = 7,    /**< a list of objects, each with the children listed */
	AIR_FIELD_STRING_MAP = 8,     /**< user-defined keys with string values (env_variables) */
	AIR_FIELD_ANY_MAP = 9         /**< user-defined keys with any values (parameters) */
} air_schema_kind;

/**
 * The schema field at @p path: "config", "config.compute",
 * "compute.accelerator_type" (a leading "config." is optional). Works
 * offline; the field lives in static storage (never freed).
 * An unknown path is AIR_ECONFIG whose error names the path (air_error_field()),
 * offers the closest valid name (air_error_suggestion()) and lists the valid
 * fields in its message; a path under a user-defined map or under a leaf gets
 * its own explanation.
 * @return AIR_OK, AIR_EINVAL (NULL @p out), AIR_ECONFIG or AIR_ENOMEM. @since 1.0
 */
AIR_EXTERN int air_schema_lookup(const char *path, const air_field **out, air_error **err);
/** The root field ("config"): the whole workload document. Static. @since 1.0 */
AIR_EXTERN const air_field *air_schema_root(void);
/** Field name ("accelerator_type"; "config" for the root). @since 1.0 */
AIR_EXTERN const char *air_field_name(const air_field *f);
/** AIR_FIELD_* kind. @since 1.0 */
AIR_EXTERN int32_t air_field_kind(const air_field *f);
/** Type as the documentation shows it ("string", "int", "list of string", "map"). @since 1.0 */
AIR_EXTERN const char *air_field_type(const air_field *f);
/** 1 when the field must always be set, else 0 (see air_field_required_when()). @since 1.0 */
AIR_EXTERN int32_t air_field_required(const air_field *f);
/** "yes", "no", or the condition under which the field is required ("when code_source uses the nested form"). @since 1.0 */
AIR_EXTERN const char *air_field_required_when(const air_field *f);
/** The value used when the field is not set, as YAML text ("3"), or NULL when there is none. @since 1.0 */
AIR_EXTERN const char *air_field_default(const air_field *f);
/** What the field means; sentences, never NULL. @since 1.0 */
AIR_EXTERN const char *air_field_description(const air_field *f);
/** Number of fixed children (objects and object lists), else 0. @since 1.0 */
AIR_EXTERN size_t air_field_child_count(const air_field *f);
/** Child @p i in documentation order, or NULL when out of range. @since 1.0 */
AIR_EXTERN const air_field *air_field_child(const air_field *f, size_t i);

/* ---- values (after a successful validation) --------------------------- */

/** experiment_name as written (1-100 bytes of [A-Za-z0-9_-]). @since 1.0 */
AIR_EXTERN const char *air_config_experiment_name(const air_config *cfg);
/** command, after overrides, verbatim. @since 1.0 */
AIR_EXTERN const char *air_config_command(const air_config *cfg);
/** compute.accelerator_type ("GPU_8xH100"), an exact member of the accelerator table. @since 1.0 */
AIR_EXTERN const char *air_config_accelerator_type(const air_config *cfg);
/** compute.num_accelerators (total GPUs). @since 1.0 */
AIR_EXTERN int64_t air_config_num_accelerators(const air_config *cfg);
/** Nodes the run occupies: num_accelerators / GPUs per node of the type. @since 1.0 */
AIR_EXTERN int64_t air_config_num_nodes(const air_config *cfg);
/** compute.pool_id, trimmed; NULL when unset. @since 1.0 */
AIR_EXTERN const char *air_config_pool_id(const air_config *cfg);
/** compute.priority_class, trimmed and upper-cased ("BEST_EFFORT"); NULL when unset. @since 1.0 */
AIR_EXTERN const char *air_config_priority_class(const air_config *cfg);

/**
 * environment.version, normalised: trimmed, a legacy "CLIENT-GPU-" prefix
 * removed, lower-cased ("6", "databricks_ai_v6"); NULL when unset (the
 * submission then uses the default channel). @since 1.0
 */
AIR_EXTERN const char *air_config_environment_version(const air_config *cfg);
/** 1 when environment.dependencies is set (possibly to an empty list). @since 1.0 */
AIR_EXTERN int32_t air_config_has_dependencies(const air_config *cfg);
/** Number of environment.dependencies entries. @since 1.0 */
AIR_EXTERN size_t air_config_dependency_count(const air_config *cfg);
/** Dependency @p i verbatim, or NULL when out of range. @since 1.0 */
AIR_EXTERN const char *air_config_dependency(const air_config *cfg, size_t i);
/** environment.unity_catalog_image, trimmed; NULL when unset. @since 1.0 */
AIR_EXTERN const char *air_config_unity_catalog_image(const air_config *cfg);
/** environment.docker_image.url, trimmed; NULL when no legacy image. @since 1.0 */
AIR_EXTERN const char *air_config_docker_image_url(const air_config *cfg);
/** environment.docker_image.tag_policy lower-cased ("auto" when unset). NULL without image. @since 1.0 */
AIR_EXTERN const char *air_config_docker_image_tag_policy(const air_config *cfg);
/** environment.docker_image.credentials_scope, trimmed; NULL when unset or blank. @since 1.0 */
AIR_EXTERN const char *air_config_docker_image_credentials_scope(const air_config *cfg);
/** environment.docker_image.credentials_key, trimmed; NULL when unset or blank. @since 1.0 */
AIR_EXTERN const char *air_config_docker_image_credentials_key(const air_config *cfg);

/** Number of env_variables (entries whose value is null are left out). @since 1.0 */
AIR_EXTERN size_t air_config_env_count(const air_config *cfg);
/** Name of env variable @p i (sorted by name, bytewise); NULL when out of range. @since 1.0 */
AIR_EXTERN const char *air_config_env_name(const air_config *cfg, size_t i);
/** Value of env variable @p i as written (scalars as their literal text, not trimmed). @since 1.0 */
AIR_EXTERN const char *air_config_env_value(const air_config *cfg, size_t i);
/** Number of secrets (entries whose value is null are left out). @since 1.0 */
AIR_EXTERN size_t air_config_secret_count(const air_config *cfg);
/** Name of secret @p i (sorted by name). @since 1.0 */
AIR_EXTERN const char *air_config_secret_name(const air_config *cfg, size_t i);
/** The "scope/key" reference of secret @p i as written. @since 1.0 */
AIR_EXTERN const char *air_config_secret_ref(const air_config *cfg, size_t i);
/** The scope part of secret @p i: the text before its single '/'. @since 1.0 */
AIR_EXTERN const char *air_config_secret_scope(const air_config *cfg, size_t i);
/** The key part of secret @p i: the text after its single '/'. @since 1.0 */
AIR_EXTERN const char *air_config_secret_key(const air_config *cfg, size_t i);

/** 1 when parameters is a non-empty mapping. @since 1.0 */
AIR_EXTERN int32_t air_config_has_parameters(const air_config *cfg);
/**
 * parameters as a YAML document (the hyperparameters.yaml contents): block
 * style, keys sorted bytewise at every level, typing as in
 * air_config_to_yaml(); "{}\n" without parameters. AIR_EINVAL unless the
 * config is valid. Free with air_free().
 * @return AIR_OK, AIR_EINVAL (NULL argument, or not validated since the last change) or
 *         AIR_ENOMEM. @since 1.0
 */
AIR_EXTERN int air_config_parameters_yaml(const air_config *cfg, char **out, air_error **err);
/**
 * parameters as a compact JSON object in document order ("{}" without them); AIR_EINVAL
 * unless valid. Free with air_free().
 * @return AIR_OK, AIR_EINVAL (NULL argument, or not validated since the last change) or
 *         AIR_ENOMEM. @since 1.0
 */
AIR_EXTERN int air_config_parameters_json(const air_config *cfg, char **out, air_error **err);

/** AIR_CODE_SOURCE_* form of code_source. @since 1.0 */
AIR_EXTERN int32_t air_config_code_source_form(const air_config *cfg);
/** Snapshot root_path as written (trimmed); NULL without code_source. @since 1.0 */
AIR_EXTERN const char *air_config_root_path(const air_config *cfg);
/** Snapshot remote_volume as written (starts with "/Volumes/"); NULL when unset. @since 1.0 */
AIR_EXTERN const char *air_config_remote_volume(const air_config *cfg);
/** Number of snapshot include_paths (0 when unset). @since 1.0 */
AIR_EXTERN size_t air_config_include_path_count(const air_config *cfg);
/** Include path @p i, trimmed, in YAML order. @since 1.0 */
AIR_EXTERN const char *air_config_include_path(const air_config *cfg, size_t i);
/** Snapshot git.commit as written; NULL when unset. @since 1.0 */
AIR_EXTERN const char *air_config_git_commit(const air_config *cfg);
/** Snapshot git.branch as written (matches ^[A-Za-z0-9_./-]+$); NULL when unset. @since 1.0 */
AIR_EXTERN const char *air_config_git_branch(const air_config *cfg);

/** max_retries (default 3). @since 1.0 */
AIR_EXTERN int64_t air_config_max_retries(const air_config *cfg);
/** timeout_minutes; 0 when unset. @since 1.0 */
AIR_EXTERN int64_t air_config_timeout_minutes(const air_config *cfg);
/** idempotency_token as written, not trimmed (its trimmed length is 1..64); NULL when unset. @since 1.0 */
AIR_EXTERN const char *air_config_idempotency_token(const air_config *cfg);
/** mlflow_run_name as written; NULL when unset. @since 1.0 */
AIR_EXTERN const char *air_config_mlflow_run_name(const air_config *cfg);
/** mlflow_experiment_directory as written; NULL when unset. @since 1.0 */
AIR_EXTERN const char *air_config_mlflow_experiment_directory(const air_config *cfg);
/** mlflow_artifact_location trimmed, a /Volumes/ path prefixed with "dbfs:"; NULL when unset. @since 1.0 */
AIR_EXTERN const char *air_config_mlflow_artifact_location(const air_config *cfg);
/** usage_policy_name as written; NULL when unset. @since 1.0 */
AIR_EXTERN const char *air_config_usage_policy_name(const air_config *cfg);
/** usage_policy_id as written; NULL when unset. @since 1.0 */
AIR_EXTERN const char *air_config_usage_policy_id(const air_config *cfg);

/** Number of permissions entries. @since 1.0 */
AIR_EXTERN size_t air_config_permission_count(const air_config *cfg);
/** AIR_PRINCIPAL_* of grant @p i; 0 when out of range. @since 1.0 */
AIR_EXTERN int32_t air_config_permission_principal_type(const air_config *cfg, size_t i);
/** Principal name of grant @p i, trimmed. @since 1.0 */
AIR_EXTERN const char *air_config_permission_principal(const air_config *cfg, size_t i);
/** Permission level of grant @p i, trimmed ("CAN_VIEW"; membership is server-checked). @since 1.0 */
AIR_EXTERN const char *air_config_permission_level(const air_config *cfg, size_t i);

/** GPUs per node of an accelerator type; 0 when @p accelerator_type is unknown. @since 1.0 */
AIR_EXTERN int32_t air_accelerator_gpus_per_node(const char *accelerator_type);
/** Display name of an accelerator type ("H100"); the input itself when unknown. @since 1.0 */
AIR_EXTERN const char *air_accelerator_display_name(const char *accelerator_type);

AIR_END_DECLS

#endif /* AIR_CONFIG_H */

/*
 * config.h: private types of the workload-config engine (config*.c).
 *
 * Pipeline: yaml.c parses the bytes into a small node tree kept in an
 * arena (node.c); overrides edit that tree (override.c);
 * validation decodes it strictly against the schema table (schema.c,
 * decode.c) into a model of node pointers, applies the semantic rules
 * in their documented order (config_rules*.c) and publishes the normalised
 * values the accessors return (values.c).
 */
#ifndef AIR_CONFIG_INTERNAL_H
#define AIR_CONFIG_INTERNAL_H

#include "core/core.h"

/* Nesting deeper than this is refused (the schema needs 5 levels). */
#define AIR__CFG_MAX_DEPTH 64
/* Nodes that alias expansion may add to a document (billion-laughs guard). */
#define AIR__CFG_MAX_ALIAS_NODES 100000

/* ---- arena (node.c) ---------------------------------------------
 * Nodes and strings of one document live in one arena and are released
 * together; overrides only ever add to it. */
typedef struct air__arena_chunk air__arena_chunk;
typedef struct air__arena {
	air__arena_chunk *head;
} air__arena;

void *air__arena_alloc(air__arena *a, size_t n);   /* 8-byte aligned; NULL on OOM */
char *air__arena_strndup(air__arena *a, const char *s, size_t n);
void air__arena_dispose(air__arena *a);

/* ---- YAML node tree (node.c) ----------------------------------- */
typedef enum air__ykind { AIR__Y_SCALAR, AIR__Y_SEQ, AIR__Y_MAP } air__ykind;
typedef struct air__ynode air__ynode;
typedef struct air__ypair {
	air__ynode *key;   /* always a scalar */
	air__ynode *value;
} air__ypair;

struct air__ynode {
	uint8_t kind;           /* air__ykind */
	uint8_t type;           /* air__ytype, scalars only */
	int32_t line, column;   /* 1-based; 0 when unknown (values set by overrides) */
	size_t len;             /* scalar: text bytes; sequence: items; mapping: pairs */
	union {
		char *text;         /* NUL-terminated, never contains NUL */
		air__ynode **items;
		air__ypair *pairs;
	} u;
};

air__ynode *air__ynode_new(air__arena *a, air__ykind kind, int32_t line, int32_t column);
air__ynode *air__yscalar_new(air__arena *a, air__ytype type, const char *text, size_t len,
                             int32_t line, int32_t column);
bool air__ynode_is_null(const air__ynode *n);
/* Value of @key in mapping @map; NULL when absent or null (null = absent). */
air__ynode *air__ymap_get(const air__ynode *map, const char *key);
/* Pair of @key in @map whatever its value, or NULL. */
air__ypair *air__ymap_pair(const air__ynode *map, const char *key, size_t key_len);
/* The first key of @map that repeats an earlier one (by text) into *dup, or
 * NULL; false on OOM. */
bool air__ymap_first_duplicate(const air__ynode *map, const air__ynode **dup);
/* The pairs of @map sorted by key, bytewise (keys are unique). air__free() it. */
air__ypair **air__ymap_sorted(const air__ynode *map);
/* Deep copy; every copied node is charged to *budget, NULL when it runs out
 * (*budget is then 0) or on OOM. */
air__ynode *air__ynode_copy(air__arena *a, const air__ynode *n, size_t *budget);
/* Parse an integer scalar ("8", "-3", "0x10", "0o10"); false when out of range. */
bool air__yint_value(const air__ynode *n, int64_t *out);
/* "a mapping", "a list", "the string \"x\"", "the integer 8", ... for messages. */
void air__ynode_describe(const air__ynode *n, char *out, size_t cap);

/* ---- parsing (yaml.c) ------------------------------------------ */
/* Parse the first document of @data. *root is NULL when the stream holds no
 * document. With @positions false every node gets line/column 0 (override
 * values). Errors are AIR_ECONFIG naming @name and the position. */
int air__yaml_parse(air__arena *a, const char *data, size_t len, const char *name,
                    bool positions, air__ynode **root, air_error **err);

/* ---- raw input checks (text.c) ---------------------------------- */
/* Printable UTF-8 without NUL; errors name @name and the position (none
 * when @name is NULL). */
int air__yaml_check_text(const char *data, size_t len, const char *name, air_error **err);
/* The checks air__yaml_parse() runs first: the text, and input that would
 * crash libfyaml 0.7.12. */
int air__yaml_check_input(const char *data, size_t len, const char *name, bool positions,
                          air_error **err);

/* ---- emission (emit.c) ----------------------------------------- */
/* One-line flow YAML ("8", "\"8\"", "[a, b]", "{a: 1}"). */
void air__yemit_flow(air__buf *b, const air__ynode *n);
/* A block-style YAML document ending in a newline; keys sorted when asked. */
void air__yemit_block(air__buf *b, const air__ynode *n, bool sort_keys);
/* Compact JSON with core-schema typing (ints, floats, bools, nulls). */
void air__yemit_json(air__buf *b, const air__ynode *n);
/* A JSON string literal of @len bytes of UTF-8. */
void air__json_put_string(air__buf *b, const char *s, size_t len);

/* ---- errors (error.c) ------------------------------------------ */
/* Fail with AIR_ECONFIG: message "<file>:<line>:<col>: <field>: <problem>"
 * (parts left out when unknown); field and position are set on the error. */
int air__cfg_fail(air_error **err, const char *file, const air__ynode *at, const char *field,
                  const char *fmt, ...) AIR__PRINTF(5, 6);
int air__cfg_fail_at(air_error **err, const char *file, int32_t line, int32_t column,
                     const char *field, const char *fmt, ...) AIR__PRINTF(6, 7);
/* @len bytes of @s as a double-quoted, escaped, possibly shortened literal. */
const char *air__cfg_quote(char *out, size_t cap, const char *s, size_t len);

/* ---- schema (schema.c) ----------------------------------------- */
typedef enum air__fkind {
	AIR__F_OBJECT,
	AIR__F_STRING,
	AIR__F_INT,
	AIR__F_SCALAR,          /* string or int (environment.version) */
	AIR__F_BOOL_OR_STRING,  /* git.remote */
	AIR__F_STRING_LIST,
	AIR__F_OBJECT_LIST,     /* permissions: walked as its element object */
	AIR__F_STRING_MAP,      /* user-defined keys, string values */
	AIR__F_ANY_MAP          /* user-defined keys, any values */
} air__fkind;

/* A schema field; the public air_field is this structure (static storage). */
typedef struct air_field air__field;
struct air_field {
	const char *name;
	air__fkind kind;
	const char *type_label;   /* as the documentation shows it */
	const char *required;     /* "yes", "no" or the condition */
	const char *description;
	const air__field *fields; /* children of objects and object lists */
	size_t nfields;
	const char *type_hint;    /* extra sentence for type errors, or NULL */
	const char *dflt;         /* the value used when unset, as YAML text, or NULL */
};

const air__field *air__schema_root(void);
const air__field *air__field_child(const air__field *f, const char *name, size_t len);
bool air__field_has_children(const air__field *f);
bool air__field_is_user_map(const air__field *f);
/* Append the child names of @f sorted bytewise, comma-separated. */
void air__field_put_sorted(air__buf *b, const air__field *f);
/* Child of @f closest to @name under the did-you-mean rule, or NULL. */
const char *air__field_suggest(const air__field *f, const char *name, size_t len);
size_t air__levenshtein(const char *a, size_t alen, const char *b, size_t blen);

/* ---- validation ------------------------------------------------------- */
/* The code snapshot fields, in whichever form they were written. */
typedef struct air__cfg_snapshot {
	const char *prefix;        /* "code_source" or "code_source.snapshot" */
	const air__ynode *map;     /* the mapping holding them */
	const air__ynode *root_path, *remote_volume, *include_paths;
	const air__ynode *git, *git_branch, *git_commit, *git_remote;
} air__cfg_snapshot;

/* Decoded document: value nodes (NULL = absent) of every schema field. */
typedef struct air__cfg_model {
	const air__ynode *root;
	const air__ynode *experiment_name, *command;
	const air__ynode *compute, *accelerator_type, *num_accelerators, *pool_id, *priority_class;
	const air__ynode *environment, *version, *dependencies, *unity_catalog_image;
	const air__ynode *docker_image, *docker_url, *docker_tag_policy;
	const air__ynode *docker_credentials_scope, *docker_credentials_key;
	const air__ynode *env_variables, *secrets, *parameters, *permissions;
	const air__ynode *code_source, *code_source_type, *code_source_snapshot;
	air__cfg_snapshot flat, nested;  /* keys found directly / under snapshot */
	const air__ynode *max_retries, *timeout_minutes, *idempotency_token;
	const air__ynode *mlflow_run_name, *mlflow_experiment_directory, *mlflow_artifact_location;
	const air__ynode *usage_policy_name, *usage_policy_id;
} air__cfg_model;

typedef struct air__cfg_kv {
	const char *name, *value;   /* value: env value or secret "scope/key" */
	const char *scope, *key;    /* secrets only */
} air__cfg_kv;

typedef struct air__cfg_grant {
	int32_t type;               /* AIR_PRINCIPAL_* */
	const char *principal, *level;
} air__cfg_grant;

/* What the accessors return after a successful validation. */
typedef struct air__cfg_values {
	const char *experiment_name, *command;
	const char *accelerator_type, *pool_id, *priority_class;
	int64_t num_accelerators, num_nodes;
	const char *environment_version, *unity_catalog_image;
	bool has_dependencies;
	const char **dependencies;
	size_t ndependencies;
	const char *docker_url, *docker_tag_policy, *docker_credentials_scope,
		*docker_credentials_key;
	air__cfg_kv *env, *secrets;
	size_t nenv, nsecrets;
	const air__ynode *parameters;
	int32_t code_source_form;
	const char *root_path, *remote_volume, *git_commit, *git_branch;
	const char **include_paths;
	size_t ninclude_paths;
	int64_t max_retries, timeout_minutes;
	const char *idempotency_token, *mlflow_run_name, *mlflow_experiment_directory;
	const char *mlflow_artifact_location, *usage_policy_name, *usage_policy_id;
	air__cfg_grant *grants;
	size_t ngrants;
} air__cfg_values;

typedef struct air__cfg_change {
	const char *path, *old_value, *new_value;
} air__cfg_change;

struct air_config {
	char *name;                /* file path or buffer name */
	char *base_dir;
	char *bytes;               /* the original input */
	size_t len;
	air__arena doc;            /* tree, override values, change records */
	air__ynode *root;          /* NULL for an empty document */
	air__cfg_change *changes;
	size_t nchanges, changes_cap;
	bool valid;
	air__arena vals;           /* published values; reset by every validation */
	air__cfg_values v;
};

/* copy.c: a copy of @src's effective document (not validated, without
 * its change records), positions kept. */
int air__config_copy(const air_config *src, air_config **out, air_error **err);

/* decode.c: strict decoding (first error in document order wins). */
int air__cfg_decode(const air_config *cfg, air__cfg_model *m, air_error **err);
/* config_rules*.c: the semantic rules in their documented order. */
int air__cfg_rules(const air_config *cfg, const air__cfg_model *m, air_error **err);
int air__cfg_rules_environment(const air_config *cfg, const air__cfg_model *m, air_error **err);
int air__cfg_rules_code_source(const air_config *cfg, const air__cfg_model *m, air_error **err);
/* The snapshot a valid model uses (flat or nested), NULL without code_source. */
const air__cfg_snapshot *air__cfg_snapshot_of(const air__cfg_model *m, int32_t *form);
/* Normalised environment.version ("6", "databricks_ai_v6") into @out, or false. */
bool air__cfg_version_normalize(const char *text, char *out, size_t cap);
/* values.c: fill cfg->v from a validated model. */
int air__cfg_publish(air_config *cfg, const air__cfg_model *m);

#endif /* AIR_CONFIG_INTERNAL_H */

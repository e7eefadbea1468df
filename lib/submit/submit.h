/*
 * submit.h: the pieces of air_client_submit() (submit*.c,
 * preflight.c, artifacts.c). The flow is in flow.c; everything that
 * builds bytes or JSON is a pure function of an air__workload so that it can
 * be tested without a server.
 */
#ifndef AIR_SUBMIT_INTERNAL_H
#define AIR_SUBMIT_INTERNAL_H

#include <jansson.h>

#include "transport/transport.h"
#include "core/core.h"
#include "submit/snapshot.h"

/* Built-in default environment channel (CLIENT-GPU-6). */
#define AIR__DEFAULT_RUNTIME "CLIENT-GPU-6"
/* Longest idempotency token the Jobs API takes (bytes). */
#define AIR__IDEMPOTENCY_MAX 64

typedef struct air__env_var {
	const char *name;
	const char *value;
} air__env_var;

typedef struct air__secret_var {
	const char *name;
	const char *ref;   /* "scope/key" as written */
	const char *scope;
	const char *key;
} air__secret_var;

typedef struct air__grant {
	int32_t principal_type; /* AIR_PRINCIPAL_* */
	const char *principal;
	const char *level;
} air__grant;

/* The values of a validated config that a submission uses. Strings are
 * borrowed from the config (or the test that built the struct); the arrays
 * and parameters_yaml belong to the struct (air__workload_dispose()). */
typedef struct air__workload {
	const char *experiment;
	const char *command;
	const char *accelerator_type;
	int64_t num_accelerators;
	const char *pool_id;            /* trimmed */
	const char *priority_class;     /* upper-cased */
	const char *environment_version; /* normalised ("6", "databricks_ai_v6") */
	const char **dependencies;
	size_t n_dependencies;
	const char *uc_image;           /* trimmed */
	const char *docker_image_url;   /* legacy */
	const char *docker_tag_policy;
	const char *docker_credentials_scope;
	const char *docker_credentials_key;
	air__env_var *env;
	size_t n_env;
	air__secret_var *secrets;
	size_t n_secrets;
	char *parameters_yaml;          /* owned; NULL without parameters */
	bool has_max_retries;           /* max_retries written in the YAML */
	int64_t max_retries;
	int64_t timeout_minutes;        /* 0 = unset */
	const char *idempotency_token;  /* YAML, as written */
	const char *mlflow_run_name;
	const char *mlflow_experiment_directory;
	const char *mlflow_artifact_location;
	const char *usage_policy_name;
	const char *usage_policy_id;
	air__grant *grants;
	size_t n_grants;
	bool has_code_source;
	const char *root_path;
	const char *remote_volume;
	const char *git_commit;
	const char *git_branch;
	const char **include_paths;
	size_t n_include_paths;
	const char *source_bytes;       /* training_config.yaml */
	size_t source_len;
	const char *base_dir;
} air__workload;

/* ---- the public objects (submit.c) ---- */
struct air_submit_options {
	air__call_opts call;
	char *idempotency_key;  /* AIR_SUBMIT_IDEMPOTENCY_KEY */
	char *base_dir;         /* AIR_SUBMIT_BASE_DIR */
	bool skip_preflight;    /* AIR_SUBMIT_SKIP_PREFLIGHT */
	air_progress_cb progress;
	void *progress_ud;
};

struct air_progress {
	int32_t phase;
	int64_t bytes_done;
	int64_t bytes_total;
	const char *detail;
};

struct air_submission {
	int64_t run_id;
	char *dashboard_url;
	char *idempotency_token;
	char *launch_dir;
	char *code_source_path;
	bool snapshot_reused;
};

/* What a submission holds beyond struct air_submission, whose layout the ABI
 * baseline records (abi/libair.abi): allocated with it, the public struct
 * first. Every air_submission is one of these (flow.c). */
typedef struct air__submission_ext {
	struct air_submission sub;
	char **warnings;        /* what failed after runs/submit without failing it */
	size_t n_warnings;
} air__submission_ext;

/* ---- workload.c ---- */
int air__workload_load(const air_config *cfg, air__workload *w, air_error **err);
void air__workload_dispose(air__workload *w);

/* ---- flow.c ---- */
/* The idempotency key a submission is given: @option (never blank), else the
 * YAML idempotency_token, both verbatim; *key NULL when neither is set (a
 * fresh one is made). AIR_EINVAL naming the field when it is longer than
 * AIR__IDEMPOTENCY_MAX bytes. */
int air__idempotency_key(const char *option, const air__workload *w, const char **key,
                         air_error **err);

/* ---- inspect.c: a submission's code as air_client_check() reports it ---- */
#define AIR__CODE_CHANGES_SHOWN 5
typedef struct air__code_report {
	air_error *plan_error;    /* the snapshot plan failed (field set), or NULL */
	char *root;               /* the resolved root_path, once known */
	bool git_mode;            /* git.commit / git.branch: a git archive of a commit */
	bool in_git;              /* the root lies in a git work tree */
	char *commit;             /* the commit archived, or HEAD of a plain snapshot in git */
	size_t n_changes;         /* plain snapshot in git: uncommitted changes listed */
	bool changes_truncated;   /* more than git's output limit */
	char *changes[AIR__CODE_CHANGES_SHOWN]; /* the first of them */
	air_error *package_error; /* packaging failed, or NULL */
	bool packaged;
	int64_t files;            /* packaged: regular files */
	int64_t bytes;            /* packaged: their bytes, uncompressed */
	int64_t archive_bytes;    /* packaged: the .tar.gz */
} air__code_report;

/*
 * Plan the code snapshot of @w as a submission through @c (may be NULL)
 * would, relative paths against @base_dir (NULL: the config's), read its git
 * state and, with @package, package it into a temporary file that is then
 * dropped. Problems of the code are in @out; the return is AIR_OK, or an
 * interrupt, the deadline or out of memory.
 */
int air__code_inspect(const air__workload *w, const air_client *c, const char *base_dir,
                      bool package, const air__ctx *ctx, air__code_report *out, air_error **err);
void air__code_report_dispose(air__code_report *r);

/* ---- payload.c ---- */
/* Pre-flight body. NULL on allocation failure. */
json_t *air__preflight_body(const air__workload *w, const char *command_path);

typedef struct air__submit_params {
	const char *command_path;
	const char *idempotency_token;
	const char *budget_policy_id;  /* or NULL */
	const char *code_source_path;  /* or NULL */
	const char *default_runtime;   /* client/env default channel, or NULL */
} air__submit_params;

/* runs/submit body. NULL on allocation failure. */
json_t *air__submit_body(const air__workload *w, const air__submit_params *p);
/* environments[0].spec: environment_version or base_environment (+ dependencies). */
json_t *air__environment_spec(const air__workload *w, const char *default_runtime);
/* tasks[0].ai_runtime_task of runs/submit (and of a bundle's job);
 * @code_source_path may be NULL. NULL on allocation failure. */
json_t *air__ai_runtime_task(const air__workload *w, const char *command_path,
                             const char *code_source_path);
/* "user_name", "group_name" or "service_principal_name" for an AIR_PRINCIPAL_*. */
const char *air__principal_key(int32_t type);

/* ---- artifacts.c ---- */
typedef struct air__artifact {
	const char *name;  /* file name in the launch directory */
	char *data;        /* owned */
	size_t len;
} air__artifact;

#define AIR__MAX_ARTIFACTS 5

/* Every launch artifact name, in upload-table order. */
extern const char *const air__artifact_names[AIR__MAX_ARTIFACTS];

/* The launch artifacts in upload-table order; *n receives their number. */
int air__artifacts_build(const air__workload *w, air__artifact out[AIR__MAX_ARTIFACTS], size_t *n,
                         air_error **err);
void air__artifacts_dispose(air__artifact *a, size_t n);
/* env_vars.json / secret_env_vars.json contents (compact, sorted by name). */
char *air__env_vars_json(const air__env_var *env, size_t n);
char *air__secret_vars_json(const air__secret_var *secrets, size_t n);
/* "<base>/.air/cli_launch/<experiment>/<run name>_<hex16>", cleaned. */
char *air__launch_dir(const char *user_base, const char *experiment, const char *run_name,
                      const char *hex16);
/* 16 lowercase hex characters from a fresh random UUIDv4 (hyphens removed). */
int air__launch_suffix(char out[17]);

/* ---- preflight.c ---- */
/* AIR_OK when the server accepts the config or the check fails open;
 * AIR_EREJECTED listing every finding; other errors abort. */
int air__preflight(air_client *c, const air__ctx *ctx, const json_t *body, air_error **err);
/* The call alone: AIR_OK with the reply ({"errors": [...]} or not), or its
 * error as it came (air__preflight_fails_open() tells what it means). */
int air__preflight_call(air_client *c, const air__ctx *ctx, const json_t *body, json_t **reply,
                        air_error **err);
/* The findings of a 2xx reply: AIR_OK when none, else AIR_EREJECTED. */
int air__preflight_findings(const json_t *reply, air_error **err);
/* True when a failed pre-flight call must not stop the submission. */
bool air__preflight_fails_open(const air_error *e);

/* ---- policy.c ---- */
int air__policy_resolve(air_client *c, const air__ctx *ctx, const char *name, char **id,
                        air_error **err);
/* Pick the policy named @name among @policies (an array of distinct
 * {"policy_id","policy_name"} objects). */
int air__policy_match(const json_t *policies, const char *name, char **id, air_error **err);

/* ---- workspace.c: workspace and Files API calls ---- */
/* "/api/2.0/workspace-files/import-file/<path, one percent-encoded segment>" */
char *air__import_file_url(const char *abs_path);
/* "/api/2.0/fs/files<path, each segment percent-encoded>" (or fs/directories) */
char *air__files_api_url(const char *kind, const char *abs_path);
int air__ws_mkdirs(air_client *c, const air__ctx *ctx, const char *path, air_error **err);
/* get-status: AIR_OK with *object_type (air__free), AIR_ENOTFOUND when absent. */
int air__ws_get_status(air_client *c, const air__ctx *ctx, const char *path, bool export_info,
                       char **object_type, air_error **err);

typedef struct air__upload {
	const char *path;  /* absolute workspace path */
	const void *data;  /* the bytes (NULL with @source) */
	size_t len;
	air__http_source source; /* or: @len bytes read on demand (a file) */
	void *source_ud;
} air__upload;

/* The import-file request of @up (its URL from air__import_file_url()). */
void air__ws_import_req(air__http_req *r, const char *url, const air__upload *up, bool overwrite);
/* The errors of mkdirs and of an import, naming the path (a 403 is
 * AIR_EPERMISSION, an existing file AIR_ECONFLICT). Take @e. */
air_error *air__ws_mkdirs_error(air_error *e, const char *path);
air_error *air__ws_import_error(air_error *e, const char *path);

/* import-file uploads in parallel; a 404 (missing parent) gets one mkdirs
 * and one retry. Failures of entries marked in @optional (n entries, or
 * NULL) are ignored. */
int air__ws_import_many(air_client *c, const air__ctx *ctx, const air__upload *ups, size_t n,
                        const bool *optional, air_error **err);
/* The export request (direct download) of the workspace file @path into
 * @r; *query is its query (air__free()), NULL when out of memory. */
void air__ws_export_req(air__http_req *r, const char *path, char **query);
/* export (direct download) of the workspace file @path into @resp: AIR_OK,
 * AIR_ENOTFOUND when it does not exist ("<path> does not exist"), else the
 * request's error ("reading <path>: ..."). */
int air__ws_export(air_client *c, const air__ctx *ctx, const char *path, air__http_resp *resp,
                   air_error **err);
/* One import-file upload of @up; without @overwrite an existing file is
 * AIR_ECONFLICT ("file already exists: <path>"). */
int air__ws_import(air_client *c, const air__ctx *ctx, const air__upload *up, bool overwrite,
                   air_error **err);
/* get-status, mkdirs when missing, error when not a directory. */
int air__ws_ensure_directory(air_client *c, const air__ctx *ctx, const char *dir, air_error **err);
/* Files API: PUT (?overwrite=true with @overwrite, else an existing file is
 * AIR_ECONFLICT); exists = HEAD directories (404) + HEAD files. */
int air__volume_put(air_client *c, const air__ctx *ctx, const air__upload *up, bool overwrite,
                    air_error **err);
/* HEAD fs/directories<path>: AIR_OK when it is a directory, AIR_ENOTFOUND
 * (no error) when not, else the request's error. */
int air__volume_directory_exists(air_client *c, const air__ctx *ctx, const char *path,
                                 air_error **err);
int air__volume_file_exists(air_client *c, const air__ctx *ctx, const char *path, bool *exists,
                            air_error **err);

/* ---- experiment.c: the permissions on the run's MLflow experiment ---- */
/* "<mlflow_experiment_directory or /Users/<user_name>>/<experiment>". air__free(). */
char *air__experiment_path(const air__workload *w, const char *user_name);
/* The experiment level of a job permission level (CAN_VIEW -> CAN_READ,
 * CAN_MANAGE_RUN -> CAN_EDIT, CAN_MANAGE and IS_OWNER -> CAN_MANAGE), or
 * NULL when it has none. Static. */
const char *air__experiment_level(const char *job_level);
/* True when @e says the workspace has no MLflow experiments or permissions
 * (ENDPOINT_NOT_FOUND, FEATURE_DISABLED: a local workspace). */
bool air__experiment_unsupported(const air_error *e);
/* experiments/get-by-name: AIR_OK with *id (air__free()), AIR_ENOTFOUND
 * when there is no such experiment, or the request's error. */
int air__experiment_find(air_client *c, const air__ctx *ctx, const char *path, char **id,
                         air_error **err);
/* After runs/submit: grant @w's permissions on its experiment (created when
 * missing). What fails is a line of @warnings; the return is AIR_OK, or
 * AIR_ENOMEM. */
int air__experiment_grant(air_client *c, const air__ctx *ctx, const air__workload *w,
                          air__buf *warnings);

/* ---- flow.c: the steps of a submission (docs/submit.md#sequence) ----
 * air_client_submit() runs them all in order; a sweep runs the shared ones
 * once (snapshot, identity, workspace checks) and builds each variant's
 * launch directory and runs/submit itself; a rerun skips the snapshot. */
typedef struct air__flow {
	air_client *c;
	const air_submit_options *opts;
	air__ctx ctx;
	air__workload w;
	air__snapshot snap;
	bool has_snap;
	int32_t phase;        /* phase of the upload in progress (for byte events) */
	const char *detail;
	char *user_base;
	char *launch_dir;
	char *command_path;
	char *token;
	char *policy_id;
	char *code_source_path;
	char *snap_dir;       /* where snapshots go */
	bool reused;
	const char *run_name; /* borrowed; NULL: the experiment */
	air__buf warnings;    /* lines: what failed after runs/submit */
} air__flow;

/* @f for a submission of @cfg (validated) through @c (NULL: offline checks
 * only) with @opts (may be NULL): its workload read, its call started. */
int air__flow_open(air__flow *f, air_client *c, const air_config *cfg,
                   const air_submit_options *opts, air_error **err);
/* The snapshot plan (a plain-tar snapshot packaged) when there is a code_source. */
int air__flow_local_checks(air__flow *f, air_error **err);
/* The user's base directory (f->user_base). */
int air__flow_identity(air__flow *f, air_error **err);
/* A fresh launch directory under it (f->launch_dir, f->command_path). */
int air__flow_launch_dir(air__flow *f, air_error **err);
int air__flow_preflight(air__flow *f, air_error **err);
/* The key given (option, else YAML token) or a fresh UUIDv4 (f->token). */
int air__flow_choose_token(air__flow *f, air_error **err);
/* Usage policy, experiment directory, legacy image. */
int air__flow_workspace_checks(air__flow *f, air_error **err);
/* One mkdirs of f->launch_dir and the launch artifacts in parallel. */
int air__flow_upload_artifacts(air__flow *f, air_error **err);
/* The code snapshot (reused when a git-pinned one is there): f->code_source_path. */
int air__flow_upload_snapshot(air__flow *f, air_error **err);
/* The git provenance sidecars into f->launch_dir; best effort. */
int air__flow_upload_sidecars(air__flow *f, air_error **err);
int air__flow_submit_run(air__flow *f, int64_t *run_id, air_error **err);
/* After runs/submit: the permissions on the experiment; the run stands
 * whatever happens (each failure is a warning of the submission). */
int air__flow_grant_permissions(air__flow *f, air_error **err);
/* The submission object; takes f's token, launch dir and code source path. */
int air__flow_result(air__flow *f, int64_t run_id, air_submission **out, air_error **err);
void air__flow_dispose(air__flow *f);

/* ---- legacy_image.c ---- */
/* Wait until the legacy image is AVAILABLE; @poll_ms between reads. */
int air__image_check(air_client *c, const air__ctx *ctx, const air__workload *w, int64_t poll_ms,
                     air_error **err);

#endif /* AIR_SUBMIT_INTERNAL_H */

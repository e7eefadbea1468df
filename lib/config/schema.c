/*
 * schema.c: the workload YAML schema as one table. Strict decoding,
 * override path checks and field help (`air run -h config.<path>`) all walk
 * it, so they cannot disagree. Children are in documentation order.
 */
#include "config/config.h"

#include <string.h>

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define OBJ(name, req, desc, kids) \
	{name, AIR__F_OBJECT, "object", req, desc, kids, N(kids), NULL, NULL}
#define STR(name, req, desc) {name, AIR__F_STRING, "string", req, desc, NULL, 0, NULL, NULL}
#define INT(name, req, desc) {name, AIR__F_INT, "int", req, desc, NULL, 0, NULL, NULL}

static const air__field git_fields[] = {
	STR("branch", "one of branch or commit",
	    "Local branch whose head commit is archived; letters, digits and '_', '.', '/', '-' "
	    "only. Uncommitted changes under the snapshot are an error at submit."),
	STR("commit", "one of branch or commit",
	    "Commit whose tree is archived; it must exist in the local repository (nothing is "
	    "fetched)."),
	{"remote", AIR__F_BOOL_OR_STRING, "bool or string", "no",
	 "No longer supported: fetching from a remote was removed. Only false (or an empty "
	 "string) is accepted.",
	 NULL, 0, "It must be false or empty.", "false"},
};

#define SNAPSHOT_FIELDS(root_req)                                                             \
	STR("root_path", root_req,                                                            \
	    "Directory to upload, relative to the YAML file's directory ($VARS and ~ are "     \
	    "expanded). It is extracted on every node; $CODE_SOURCE_PATH points at it."),     \
	STR("remote_volume", "no",                                                            \
	    "Unity Catalog volume (/Volumes/...) that receives the code archive instead of "  \
	    "the workspace files."),                                                          \
	OBJ("git", "no",                                                                      \
	    "Archive a local git commit or branch head instead of the working tree. Set "     \
	    "exactly one of branch or commit.",                                               \
	    git_fields),                                                                      \
	{"include_paths", AIR__F_STRING_LIST, "list of string", "no",                         \
	 "Upload only these paths, relative to root_path (no leading '/', no '..' "           \
	 "segments). Must not be an empty list.",                                             \
	 NULL, 0, NULL, NULL}

static const air__field snapshot_fields[] = {
	SNAPSHOT_FIELDS("when code_source.snapshot is set"),
};

static const air__field code_source_fields[] = {
	SNAPSHOT_FIELDS("when code_source uses the flattened form"),
	STR("type", "when code_source uses the nested form",
	    "Marker of the nested form; must be \"snapshot\". Not used in the flattened form."),
	OBJ("snapshot", "when code_source.type is \"snapshot\"",
	    "The code snapshot in the nested form (compatible with older releases): root_path, "
	    "remote_volume, include_paths and git.",
	    snapshot_fields),
};

static const air__field compute_fields[] = {
	INT("num_accelerators", "no",
	    "Total number of GPUs (not nodes). It must be a positive multiple of the GPUs per node "
	    "of accelerator_type, e.g. 8, 16, 24 for GPU_8xH100; nodes = num_accelerators / GPUs "
	    "per node. Every workload sets it: validation requires it, although the schema's "
	    "Required label says no (as in the official tool's help)."),
	STR("accelerator_type", "no",
	    "GPU type, matched case-sensitively: GPU_1xA10 (1 A10 per node), GPU_8xH100 (8 H100 "
	    "per node) or GPU_1xH100 (1 H100 per node). Availability differs per workspace; see "
	    "https://docs.databricks.com/aws/en/compute/serverless/gpu for the current list. Every "
	    "workload sets it: validation requires it, although the schema's Required label says no "
	    "(as in the official tool's help)."),
	STR("pool_id", "no",
	    "Id of a provisioned GPU pool (provisioned capacity) to run in; `air list pools` "
	    "shows them. At most 255 bytes; surrounding spaces are ignored."),
	STR("priority_class", "no",
	    "Scheduling priority inside the pool: BEST_EFFORT (may be preempted), NORMAL or "
	    "CRITICAL, matched case-insensitively. Requires pool_id."),
};

static const air__field docker_image_fields[] = {
	STR("url", "when environment.docker_image is set",
	    "Image reference in its registry, e.g. myreg.io/team/train:v3. It must be registered "
	    "in the workspace (and AVAILABLE) before submitting."),
	{"tag_policy", AIR__F_STRING, "string", "no",
	 "How the tag is resolved: auto (the default) or latest.", NULL, 0, NULL, "auto"},
	STR("credentials_scope", "no",
	    "Secret scope holding the registry credentials. Set together with credentials_key, "
	    "and only with tag_policy latest."),
	STR("credentials_key", "no",
	    "Secret key holding the registry credentials. Set together with credentials_scope, "
	    "and only with tag_policy latest."),
};

static const air__field environment_fields[] = {
	{"dependencies", AIR__F_STRING_LIST, "list of strings", "no",
	 "Extra pip requirement lines installed before the command, written as a YAML list, "
	 "e.g. [numpy, \"torch==2.3.0\"]. Items may be pip options such as \"-r requirements.txt\" or "
	 "\"--extra-index-url URL\"; a requirements file path instead of a list is not accepted.",
	 NULL, 0,
	 "It must be a YAML list of pip requirement lines (e.g. [numpy]); to use a requirements "
	 "file, list \"-r <file>\" as an item.", NULL},
	{"version", AIR__F_SCALAR, "string or int", "no",
	 "Environment version: an integer (e.g. 6) or databricks_ai_v<N> with N >= 5 (the "
	 "Databricks AI environment: client image plus preinstalled ML stack), case-insensitive. "
	 "Requires dependencies (an empty list is fine). Default: $DATABRICKS_DL_RUNTIME_IMAGE, "
	 "else 6.",
	 NULL, 0, "It must be an integer or databricks_ai_v<N>.", "6"},
	STR("unity_catalog_image", "no",
	    "Custom container image from the workspace's artifact registry, written "
	    "<catalog>.<schema>.<artifact>:<tag> (push it with `air images push`). It excludes "
	    "version, dependencies and docker_image."),
	OBJ("docker_image", "no",
	    "Legacy custom image from a container registry; prefer unity_catalog_image. It "
	    "excludes version, dependencies and unity_catalog_image.",
	    docker_image_fields),
};

static const air__field permission_fields[] = {
	STR("user_name", "one principal per grant", "User (e-mail address) receiving the grant."),
	STR("group_name", "one principal per grant", "Workspace group receiving the grant."),
	STR("service_principal_name", "one principal per grant",
	    "Application id of the service principal receiving the grant."),
	STR("level", "when a grant is listed",
	    "Permission level: CAN_VIEW, CAN_MANAGE_RUN or CAN_MANAGE (Jobs also knows IS_OWNER)."),
};

static const air__field top_fields[] = {
	STR("experiment_name", "yes",
	    "Name of the experiment. It becomes the Jobs run name and task key and the MLflow "
	    "experiment (created when missing, else appended to): at most 100 characters, "
	    "letters, digits, '-' and '_' only."),
	OBJ("compute", "yes",
	    "The GPUs the workload runs on. Allocation is in whole nodes.", compute_fields),
	OBJ("environment", "no",
	    "The runtime the command runs in. Choose one: a managed environment (dependencies, "
	    "with a version if wanted: a version requires dependencies, an empty list is fine), "
	    "a unity_catalog_image, or the legacy docker_image.",
	    environment_fields),
	STR("command", "yes",
	    "Shell command run on every node (uploaded as command.sh). At most 1000 lines; move "
	    "longer logic into a script in code_source. Paths refer to the remote container: "
	    "$CODE_SOURCE_PATH is the extracted code, $HYPERPARAMETERS_PATH the parameters file, "
	    "$NUM_NODES, $NODE_RANK, $MASTER_ADDR, $MASTER_PORT, $WORLD_SIZE and "
	    "$LOCAL_WORLD_SIZE describe the topology, and $MLFLOW_RUN_ID names the MLflow run "
	    "the workload logs to."),
	{"env_variables", AIR__F_STRING_MAP, "map of string to string", "no",
	 "Environment variables set on every node, written NAME: value. A name may not also "
	 "appear in secrets.",
	 NULL, 0, NULL, NULL},
	{"secrets", AIR__F_STRING_MAP, "map of string to string", "no",
	 "Environment variables read from Databricks secrets, written NAME: scope/key. A name may "
	 "not also appear in env_variables.",
	 NULL, 0, NULL, NULL},
	OBJ("code_source", "no",
	    "Local code uploaded with the run and extracted on every node ($CODE_SOURCE_PATH). "
	    "Write root_path (and optionally remote_volume, include_paths, git) directly here "
	    "(flattened form), or under snapshot next to type: snapshot (nested form); do not mix "
	    "the two forms.",
	    code_source_fields),
	{"max_retries", AIR__F_INT, "int", "no",
	 "How many times a failed run is retried: 0 disables retries. Default 3.", NULL, 0, NULL,
	 "3"},
	INT("timeout_minutes", "no",
	    "Time limit of each attempt in minutes, at least 1. Default: the workspace's."),
	STR("idempotency_token", "no",
	    "Reuse key, at most 64 bytes: submitting again with the token of an existing run "
	    "returns that run instead of starting a new one. An idempotency key given with the "
	    "submission (AIR_SUBMIT_IDEMPOTENCY_KEY) overrides it."),
	{"parameters", AIR__F_ANY_MAP, "map of string to any", "no",
	 "Free-form hyperparameters (any nested values), uploaded as hyperparameters.yaml; the "
	 "workload finds the file at $HYPERPARAMETERS_PATH. Not validated.",
	 NULL, 0, NULL, NULL},
	STR("mlflow_run_name", "no",
	    "Name of the MLflow run: at most 100 characters, letters, digits, '-' and '_' only. "
	    "Default: generated."),
	STR("mlflow_experiment_directory", "no",
	    "Workspace directory of the MLflow experiment; it must start with /Workspace and is "
	    "created when missing. Default: your home folder."),
	STR("mlflow_artifact_location", "no",
	    "Where MLflow stores the run's artifacts: a dbfs:/ URI, or a /Volumes/ path (sent as "
	    "dbfs:/Volumes/...)."),
	{"permissions", AIR__F_OBJECT_LIST, "list of object", "no",
	 "Grants on the run, one entry per principal: exactly one of user_name, group_name or "
	 "service_principal_name, plus a level.",
	 permission_fields, N(permission_fields), NULL, NULL},
	STR("usage_policy_name", "no",
	    "Name of the usage (budget) policy the run is billed to, resolved to its id at submit. "
	    "At most 127 bytes; excludes usage_policy_id."),
	STR("usage_policy_id", "no",
	    "Id (a UUID) of the usage policy the run is billed to; excludes usage_policy_name."),
};

static const air__field root = {
	"config", AIR__F_OBJECT, "object", "yes",
	"The workload YAML: what to run, on which GPUs and in which environment. Unknown keys "
	"are rejected at every level.",
	top_fields, N(top_fields), NULL, NULL,
};

const air__field *air__schema_root(void)
{
	return &root;
}

const air__field *air__field_child(const air__field *f, const char *name, size_t len)
{
	for (size_t i = 0; i < f->nfields; i++)
		if (strlen(f->fields[i].name) == len && !memcmp(f->fields[i].name, name, len))
			return &f->fields[i];
	return NULL;
}

bool air__field_has_children(const air__field *f)
{
	return f->kind == AIR__F_OBJECT || f->kind == AIR__F_OBJECT_LIST;
}

bool air__field_is_user_map(const air__field *f)
{
	return f->kind == AIR__F_STRING_MAP || f->kind == AIR__F_ANY_MAP;
}

void air__field_put_sorted(air__buf *b, const air__field *f)
{
	const char *last = NULL;

	/* Selection by "smallest name above the last one": the lists are tiny. */
	for (size_t n = 0; n < f->nfields; n++) {
		const char *next = NULL;
		for (size_t i = 0; i < f->nfields; i++) {
			const char *c = f->fields[i].name;
			if ((!last || strcmp(c, last) > 0) && (!next || strcmp(c, next) < 0))
				next = c;
		}
		air__buf_puts(b, n ? ", " : "");
		air__buf_puts(b, next);
		last = next;
	}
}

size_t air__levenshtein(const char *a, size_t alen, const char *b, size_t blen)
{
	size_t row[64], i, j;

	/* Names in the schema are short; longer inputs are never close. */
	if (blen >= N(row) || alen >= N(row))
		return SIZE_MAX;
	for (j = 0; j <= blen; j++)
		row[j] = j;
	for (i = 1; i <= alen; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (j = 1; j <= blen; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[blen];
}

const char *air__field_suggest(const air__field *f, const char *name, size_t len)
{
	const char *best = NULL;
	size_t best_d = SIZE_MAX;

	for (size_t i = 0; i < f->nfields; i++) {
		const char *c = f->fields[i].name;
		size_t clen = strlen(c), limit = clen / 3 > 1 ? clen / 3 : 1;
		size_t d = air__levenshtein(name, len, c, clen);
		if (d > limit)
			continue;
		if (d < best_d || (d == best_d && strcmp(c, best) < 0)) {
			best = c;
			best_d = d;
		}
	}
	return best;
}

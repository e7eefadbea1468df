/*
 * bundle.c: air_config_write_bundle() — a workload as a Declarative
 * Automation Bundle (databricks.yml + generated_artifacts/), built from the
 * same pieces as a submission (payload.c, artifacts.c) and written without
 * contacting the workspace. Every check comes before the first write.
 */
#include "submit/bundle.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "submit/snapshot.h"

#define COMMAND_PATH "./" ARTIFACTS_DIR "/command.sh"

struct air_bundle_options {
	air__call_opts call;
	char *base_dir;
	char *default_runtime;
	bool force;
	bool use_environment;
};

struct air_bundle {
	char *dir;
	char *job_key;
	char **files;
	size_t n_files;
	char **removed;
	size_t n_removed;
};

/* ---- options ------------------------------------------------------------- */

int air_bundle_options_new(air_bundle_options **out)
{
	if (!out)
		return AIR_EINVAL;
	if (!(*out = air__calloc(1, sizeof(**out))))
		return AIR_ENOMEM;
	(*out)->use_environment = true;
	return AIR_OK;
}

void air_bundle_options_free(air_bundle_options *opts)
{
	if (!opts)
		return;
	air__free(opts->base_dir);
	air__free(opts->default_runtime);
	air__free(opts);
}

int air_bundle_options_set_str(air_bundle_options *opts, int32_t opt, const char *value)
{
	char **slot, *copy = NULL;

	if (!opts || opt == AIR_BUNDLE_FORCE || opt == AIR_BUNDLE_USE_ENVIRONMENT)
		return AIR_EINVAL;
	if (opt == AIR_BUNDLE_BASE_DIR)
		slot = &opts->base_dir;
	else if (opt == AIR_BUNDLE_DEFAULT_RUNTIME)
		slot = &opts->default_runtime;
	else
		return AIR_EUNSUPPORTED;
	if (value && !(copy = air__strdup(value)))
		return AIR_ENOMEM;
	air__free(*slot);
	*slot = copy;
	return AIR_OK;
}

int air_bundle_options_set_int(air_bundle_options *opts, int32_t opt, int64_t value)
{
	if (!opts || opt == AIR_BUNDLE_BASE_DIR || opt == AIR_BUNDLE_DEFAULT_RUNTIME)
		return AIR_EINVAL;
	if (opt != AIR_BUNDLE_FORCE && opt != AIR_BUNDLE_USE_ENVIRONMENT)
		return AIR_EUNSUPPORTED;
	if (value != 0 && value != 1)
		return AIR_EINVAL;
	if (opt == AIR_BUNDLE_FORCE)
		opts->force = value == 1;
	else
		opts->use_environment = value == 1;
	return AIR_OK;
}

int air_bundle_options_set_interrupt(air_bundle_options *opts, air_interrupt *intr)
{
	return air__call_opts_set_interrupt(opts ? &opts->call : NULL, intr);
}

int air_bundle_options_set_deadline_ms(air_bundle_options *opts, int64_t ms)
{
	return air__call_opts_set_deadline(opts ? &opts->call : NULL, ms);
}

/* ---- result --------------------------------------------------------------- */

const char *air_bundle_dir(const air_bundle *bundle) { return bundle ? bundle->dir : NULL; }

const char *air_bundle_job_key(const air_bundle *bundle) { return bundle ? bundle->job_key : NULL; }

size_t air_bundle_file_count(const air_bundle *bundle) { return bundle ? bundle->n_files : 0; }

const char *air_bundle_file(const air_bundle *bundle, size_t i)
{
	return bundle && i < bundle->n_files ? bundle->files[i] : NULL;
}

size_t air_bundle_removed_count(const air_bundle *bundle) { return bundle ? bundle->n_removed : 0; }

const char *air_bundle_removed(const air_bundle *bundle, size_t i)
{
	return bundle && i < bundle->n_removed ? bundle->removed[i] : NULL;
}

void air_bundle_free(air_bundle *bundle)
{
	if (!bundle)
		return;
	for (size_t i = 0; i < bundle->n_files; i++)
		air__free(bundle->files[i]);
	for (size_t i = 0; i < bundle->n_removed; i++)
		air__free(bundle->removed[i]);
	air__free(bundle->files);
	air__free(bundle->removed);
	air__free(bundle->dir);
	air__free(bundle->job_key);
	air__free(bundle);
}

static bool list_add(char ***list, size_t *n, const char *s)
{
	char **grown = air__realloc(*list, (*n + 1) * sizeof(**list));

	if (!grown)
		return false;
	*list = grown;
	return (grown[*n] = air__strdup(s)) ? (++*n, true) : false;
}

/* ---- checks ----------------------------------------------------------------- */

static int unsupported(air_error **err, const char *field, const char *why)
{
	return air__fail(err, air__error_set_field(air__error_new(AIR_EUNSUPPORTED,
	                 AIR_KIND_INVALID_CONFIG, "%s cannot be converted to a bundle: %s", field, why),
	                 field));
}

/* The fields a bundle cannot express, in the documented order. */
static int refuse_unsupported(const air_config *cfg, const air__workload *w, air_error **err)
{
	const char *p = air_config_code_source_form(cfg) == AIR_CODE_SOURCE_NESTED ? "code_source.snapshot"
	                                                                            : "code_source";
	char field[64];

	if (w->usage_policy_name)
		return unsupported(err, "usage_policy_name", "resolving a policy name needs the workspace; "
		                   "set usage_policy_id instead");
	if (w->docker_image_url)
		return unsupported(err, "environment.docker_image", "the legacy image is registered with "
		                   "the workspace at submit time; use environment.unity_catalog_image");
	if (w->remote_volume) {
		snprintf(field, sizeof(field), "%s.remote_volume", p);
		return unsupported(err, field, "bundle deploy uploads the code from the bundle directory");
	}
	if (w->git_commit || w->git_branch) {
		snprintf(field, sizeof(field), "%s.git", p);
		return unsupported(err, field, "bundle deploy uploads the working tree, not a commit");
	}
	if (w->n_include_paths > 0) {
		snprintf(field, sizeof(field), "%s.include_paths", p);
		return unsupported(err, field, "bundle deploy uploads the whole code directory");
	}
	return AIR_OK;
}

static const char *process_env(const char *name, void *ud)
{
	(void)ud;
	return getenv(name);
}

/* "./<root relative to @dir>" ("." for the directory itself); the root must
 * exist and lie inside @dir (both absolute, symlinks resolved). */
static int code_source_path(const air__workload *w, const char *base_dir, const char *dir,
                            char **out, air_error **err)
{
	char *root = air__snapshot_resolve_root(w->root_path, base_dir, getenv("HOME"), process_env,
	                                        NULL);
	char real[PATH_MAX];
	size_t n = strlen(dir);
	int rc = AIR_OK;

	*out = NULL;
	if (!root)
		return air__oom(err);
	if (!realpath(root, real))
		rc = air__fail(err, air__error_set_field(air__error_new(AIR_ESNAPSHOT, 0,
		               "code_source root_path %s (resolved to %s) does not exist: %s", w->root_path,
		               root, strerror(errno)), "code_source.root_path"));
	else if (strcmp(real, dir) != 0 && !(strncmp(real, dir, n) == 0 && (real[n] == '/' || n == 1)))
		rc = air__fail(err, air__error_set_field(air__error_new(AIR_EINVAL,
		               AIR_KIND_INVALID_ARGUMENT, "code_source root_path %s (%s) lies outside the "
		               "bundle directory %s; bundle deploy uploads only files under the bundle root, "
		               "so write the bundle to a directory that contains the code", w->root_path,
		               real, dir), "code_source.root_path"));
	else if (!(*out = !strcmp(real, dir) ? air__strdup(".")
	                                     : air__sprintf("./%s", real + n + (n == 1 ? 0 : 1))))
		rc = air__oom(err);
	air__free(root);
	return rc;
}

/* ---- the model -------------------------------------------------------------- */

typedef struct jb {
	bool oom;
} jb;

static void put(jb *b, json_t *obj, const char *key, json_t *v)
{
	if (!v || json_object_set_new(obj, key, v) != 0)
		b->oom = true;
}

static void push(jb *b, json_t *arr, json_t *v)
{
	if (!v || json_array_append_new(arr, v) != 0)
		b->oom = true;
}

static json_t *task_of(jb *b, const air__workload *w, const char *code_path)
{
	json_t *task = json_object();

	put(b, task, "task_key", json_string(w->experiment));
	put(b, task, "environment_key", json_string("default"));
	put(b, task, "max_retries", json_integer(w->max_retries));
	if (w->timeout_minutes > 0)
		put(b, task, "timeout_seconds", json_integer(w->timeout_minutes * 60));
	put(b, task, "ai_runtime_task", air__ai_runtime_task(w, COMMAND_PATH, code_path));
	return task;
}

static json_t *job_of(jb *b, const air__workload *w, const char *code_path, const char *runtime)
{
	json_t *job = json_object(), *tasks = json_array(), *envs = json_array(), *env = json_object();
	char *policy = w->usage_policy_id ? air__trim_dup(w->usage_policy_id) : NULL;

	put(b, job, "name", json_string(w->experiment));
	push(b, tasks, task_of(b, w, code_path));
	put(b, job, "tasks", tasks);
	put(b, env, "environment_key", json_string("default"));
	put(b, env, "spec", air__environment_spec(w, runtime));
	push(b, envs, env);
	put(b, job, "environments", envs);
	if (w->usage_policy_id)
		put(b, job, "budget_policy_id", policy ? json_string(policy) : NULL);
	if (w->n_grants > 0) {
		json_t *perms = json_array();
		for (size_t i = 0; i < w->n_grants; i++) {
			json_t *g = json_object();
			put(b, g, "level", json_string(w->grants[i].level));
			put(b, g, air__principal_key(w->grants[i].principal_type),
			    json_string(w->grants[i].principal));
			push(b, perms, g);
		}
		put(b, job, "permissions", perms);
	}
	air__free(policy);
	return job;
}

static json_t *bundle_model(const air__workload *w, const char *code_path, const char *runtime)
{
	jb b = {false};
	json_t *root = json_object(), *bundle = json_object(), *sync = json_object();
	json_t *paths = json_array(), *targets = json_object(), *dev = json_object();
	json_t *resources = json_object(), *jobs = json_object();

	put(&b, bundle, "name", json_string(w->experiment));
	put(&b, root, "bundle", bundle);
	push(&b, paths, json_string(ARTIFACTS_DIR));
	put(&b, sync, "paths", paths);
	put(&b, root, "sync", sync);
	put(&b, dev, "mode", json_string("development"));
	put(&b, dev, "default", json_true());
	put(&b, targets, "dev", dev);
	put(&b, root, "targets", targets);
	put(&b, jobs, w->experiment, job_of(&b, w, code_path, runtime));
	put(&b, resources, "jobs", jobs);
	put(&b, root, "resources", resources);
	if (b.oom) {
		json_decref(root);
		return NULL;
	}
	return root;
}

/* ---- files ------------------------------------------------------------------ */

typedef struct conv {
	const air_config *cfg;
	const air_bundle_options *o;
	air__ctx ctx;
	air__workload w;
	char *dir;          /* absolute, symlinks resolved */
	char *code_path;
	char *yaml;
	air__artifact arts[AIR__MAX_ARTIFACTS];
	size_t n_arts;
	air__bundle_file files[AIR__MAX_ARTIFACTS + 1];
	size_t n_files;
} conv;

/* The absolute output directory, symlinks resolved as far as it exists (it
 * is created only when the files are written). */
static int prepare_dir(conv *c, const char *output_dir, air_error **err)
{
	char cwd[PATH_MAX], real[PATH_MAX], *raw, *clean;
	struct stat st;
	size_t end;
	int rc = AIR_OK;

	if (output_dir[0] == '/')
		raw = air__strdup(output_dir);
	else if (getcwd(cwd, sizeof(cwd)))
		raw = air__sprintf("%s/%s", cwd, output_dir);
	else
		return air__failf(err, AIR_EIO, AIR_KIND_IO, "cannot read the current directory: %s",
		                  strerror(errno));
	clean = raw ? air__path_clean(raw) : NULL;
	air__free(raw);
	if (!clean)
		return air__oom(err);
	/* The deepest existing ancestor, resolved, with the missing rest appended. */
	for (end = strlen(clean);;) {
		char saved = clean[end];
		bool found;

		clean[end] = '\0';
		found = realpath(end ? clean : "/", real) != NULL;
		clean[end] = saved;
		if (found)
			break;
		while (end > 0 && clean[end - 1] != '/')
			end--;
		if (end > 0)
			end--;
	}
	if (!(c->dir = air__sprintf("%s%s", strcmp(real, "/") ? real : "", clean + end)))
		rc = air__oom(err);
	else if (!c->dir[0] && (air__free(c->dir), !(c->dir = air__strdup("/"))))
		rc = air__oom(err);
	if (rc == AIR_OK && stat(c->dir, &st) == 0 && !S_ISDIR(st.st_mode))
		rc = air__failf(err, AIR_EIO, AIR_KIND_IO, "%s is not a directory", c->dir);
	air__free(clean);
	return rc;
}

static const char *default_runtime(const conv *c)
{
	if (c->o && c->o->default_runtime && *c->o->default_runtime)
		return c->o->default_runtime;
	if (c->o && !c->o->use_environment)
		return NULL;
	return getenv("DATABRICKS_DL_RUNTIME_IMAGE");
}

static int build(conv *c, air_error **err)
{
	json_t *model;
	int rc;

	if ((rc = air__artifacts_build(&c->w, c->arts, &c->n_arts, err)) != AIR_OK)
		return rc;
	if (!(model = bundle_model(&c->w, c->code_path, default_runtime(c))))
		return air__oom(err);
	rc = air__bundle_yaml(model, &c->yaml, err);
	json_decref(model);
	if (rc != AIR_OK)
		return rc;
	c->files[c->n_files++] = (air__bundle_file){air__strdup(BUNDLE_FILE), c->yaml,
	                                            strlen(c->yaml), 0644};
	for (size_t i = 0; i < c->n_arts; i++)
		c->files[c->n_files++] = (air__bundle_file){air__sprintf(ARTIFACTS_DIR "/%s",
		                                                         c->arts[i].name),
		                                    c->arts[i].data, c->arts[i].len,
		                                    strcmp(c->arts[i].name, "command.sh") ? 0644 : 0755};
	for (size_t i = 0; i < c->n_files; i++)
		if (!c->files[i].rel)
			return air__oom(err);
	return AIR_OK;
}

/* The bundle replaced whole; the files written and removed listed in @b. */
static int write_all(conv *c, air_bundle *b, air_error **err)
{
	unsigned removed;
	int rc = air__bundle_put(c->dir, c->files, c->n_files, c->o && c->o->force, &c->ctx, &removed,
	                         err);

	for (size_t i = 0; rc == AIR_OK && i < c->n_files; i++)
		if (!list_add(&b->files, &b->n_files, c->files[i].rel))
			rc = air__oom(err);
	for (size_t i = 0; rc == AIR_OK && i < AIR__MAX_ARTIFACTS; i++) {
		char rel[128];
		snprintf(rel, sizeof(rel), ARTIFACTS_DIR "/%s", air__artifact_names[i]);
		if ((removed & (1u << i)) && !list_add(&b->removed, &b->n_removed, rel))
			rc = air__oom(err);
	}
	return rc;
}

static void conv_dispose(conv *c)
{
	for (size_t i = 0; i < c->n_files; i++)
		air__free(c->files[i].rel);
	air__artifacts_dispose(c->arts, c->n_arts);
	air__workload_dispose(&c->w);
	air__free(c->dir);
	air__free(c->code_path);
	air__free(c->yaml);
}

int air_config_write_bundle(const air_config *cfg, const char *output_dir,
                            const air_bundle_options *opts, air_bundle **out, air_error **err)
{
	conv c;
	air_bundle *b = NULL;
	int rc;

	if (out)
		*out = NULL;
	if (!cfg || !out)
		return air__failf(err, AIR_EINVAL, AIR_KIND_INVALID_ARGUMENT,
		                  "air_config_write_bundle: cfg and out are required");
	if (!air_config_is_valid(cfg))
		return air__failf(err, AIR_ECONFIG, AIR_KIND_INVALID_CONFIG,
		                  "the configuration has not been validated (call air_config_validate "
		                  "after the last override)");
	memset(&c, 0, sizeof(c));
	c.cfg = cfg;
	c.o = opts;
	air__ctx_init(&c.ctx, opts ? &opts->call : NULL, NULL);
	if (!output_dir || !*output_dir)
		output_dir = air_config_base_dir(cfg);
	rc = air__workload_load(cfg, &c.w, err);
	if (rc == AIR_OK)
		rc = refuse_unsupported(cfg, &c.w, err);
	if (rc == AIR_OK)
		rc = air__ctx_check(&c.ctx, "writing the bundle", err);
	if (rc == AIR_OK)
		rc = prepare_dir(&c, output_dir, err);
	if (rc == AIR_OK && c.w.has_code_source)
		rc = code_source_path(&c.w, opts && opts->base_dir ? opts->base_dir : c.w.base_dir, c.dir,
		                      &c.code_path, err);
	if (rc == AIR_OK)
		rc = build(&c, err);
	if (rc == AIR_OK && !(b = air__calloc(1, sizeof(*b))))
		rc = air__oom(err);
	if (rc == AIR_OK && (!(b->dir = air__strdup(c.dir)) ||
	                     !(b->job_key = air__strdup(c.w.experiment))))
		rc = air__oom(err);
	if (rc == AIR_OK)
		rc = write_all(&c, b, err);
	if (rc == AIR_OK) {
		*out = b;
		b = NULL;
	}
	air_bundle_free(b);
	conv_dispose(&c);
	return rc;
}

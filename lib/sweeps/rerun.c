/*
 * rerun.c: air_client_rerun() (docs/submit.md#reruns) — the exact workload
 * of a past run submitted again. The run's task names its launch directory
 * (command_path) and code snapshot (code_source_path); the directory's
 * training_config.yaml is its effective config, with what the run had
 * otherwise (`air run --override`: rerun_keep.c). Without overrides the new
 * run uses the same launch directory and snapshot, uploading nothing, unless
 * one of its launch files was deleted: then, as with overrides, a new launch
 * directory holds the config's files and the snapshot is the same. Either
 * way the snapshot must still exist.
 */
#include "sweeps/sweeps.h"

#include <string.h>

struct air_rerun_options {
	air__call_opts call;
	char *key;
	bool skip_preflight;
	char **overrides;
	size_t n_overrides;
};

int air_rerun_options_new(air_rerun_options **out)
{
	if (!out)
		return AIR_EINVAL;
	return (*out = air__calloc(1, sizeof(**out))) ? AIR_OK : AIR_ENOMEM;
}

void air_rerun_options_free(air_rerun_options *o)
{
	if (!o)
		return;
	for (size_t i = 0; i < o->n_overrides; i++)
		air__free(o->overrides[i]);
	air__free(o->overrides);
	air__free(o->key);
	air__free(o);
}

int air_rerun_options_set_str(air_rerun_options *o, int32_t opt, const char *value)
{
	char *copy = NULL;

	if (!o)
		return AIR_EINVAL;
	if (opt == AIR_RERUN_SKIP_PREFLIGHT)
		return AIR_EINVAL;
	if (opt != AIR_RERUN_IDEMPOTENCY_KEY)
		return AIR_EUNSUPPORTED;
	if (value && (air__is_blank(value) || strlen(value) > AIR__IDEMPOTENCY_MAX))
		return AIR_EINVAL;
	if (value && !(copy = air__strdup(value)))
		return AIR_ENOMEM;
	air__free(o->key);
	o->key = copy;
	return AIR_OK;
}

int air_rerun_options_set_int(air_rerun_options *o, int32_t opt, int64_t value)
{
	if (!o || opt == AIR_RERUN_IDEMPOTENCY_KEY)
		return AIR_EINVAL;
	if (opt != AIR_RERUN_SKIP_PREFLIGHT)
		return AIR_EUNSUPPORTED;
	if (value != 0 && value != 1)
		return AIR_EINVAL;
	o->skip_preflight = value;
	return AIR_OK;
}

int air_rerun_options_add_override(air_rerun_options *o, const char *assignment)
{
	char **grown, *copy;

	if (!o || !assignment || !strchr(assignment, '='))
		return AIR_EINVAL;
	if (!(copy = air__strdup(assignment)))
		return AIR_ENOMEM;
	if (!(grown = air__realloc(o->overrides, (o->n_overrides + 1) * sizeof(*grown)))) {
		air__free(copy);
		return AIR_ENOMEM;
	}
	o->overrides = grown;
	o->overrides[o->n_overrides++] = copy;
	return AIR_OK;
}

int air_rerun_options_set_interrupt(air_rerun_options *o, air_interrupt *intr)
{
	return air__call_opts_set_interrupt(o ? &o->call : NULL, intr);
}

int air_rerun_options_set_deadline_ms(air_rerun_options *o, int64_t ms)
{
	return air__call_opts_set_deadline(o ? &o->call : NULL, ms);
}

/* ---- the rerun ----------------------------------------------------------- */

typedef struct rerun {
	air_client *c;
	int64_t id;
	const air_rerun_options *o;
	air__ctx ctx;
	air_run *run;
	char *launch_dir;
	air__assign *over;      /* the overrides split at '=' (strings owned) */
	size_t n_over;
	air_config *cfg;
	char *yaml;             /* the new run's effective config */
	char *key, *name;
	air_submit_options *sopts;
	air__flow f;
	bool flow_open;
	char *kept;             /* the config paths kept from the past run, "a, b" */
	char *left;             /* those it had that this rerun cannot keep, "c (why)" */
} rerun;

static int not_found(air_error **err, const char *fmt, int64_t id, const char *path)
{
	return air__failf(err, AIR_ENOTFOUND, AIR_KIND_NOT_FOUND, fmt, (long long)id, path);
}

/* The past run and the directory of its command.sh. */
static int read_run(rerun *r, air_error **err)
{
	const char *slash;
	int rc = air__run_fetch(r->c, &r->ctx, r->id, &r->run, err);

	if (rc != AIR_OK)
		return rc;
	slash = r->run->command_path ? strrchr(r->run->command_path, '/') : NULL;
	if (!r->run->ai_runtime || !slash)
		return air__failf(err, AIR_ENOTFOUND, AIR_KIND_NOT_FOUND,
		                  "run %lld is not an AI Runtime run with a launch directory: it cannot "
		                  "be rerun", (long long)r->id);
	r->launch_dir = air__strndup(r->run->command_path, (size_t)(slash - r->run->command_path));
	return r->launch_dir ? AIR_OK : air__oom(err);
}

/* The bytes of the workspace file @path into @resp; its absence is
 * AIR_ENOTFOUND (an error saying so, naming the run @r). */
static int fetch(rerun *r, const char *path, air__http_resp *resp, air_error **err)
{
	air_error *e = NULL;
	int rc = air__ws_export(r->c, &r->ctx, path, resp, &e);

	if (rc == AIR_ENOTFOUND) {
		air_error_free(e);
		return not_found(err, "the launch files of run %lld were deleted: %s does not exist",
		                 r->id, path);
	}
	return rc == AIR_OK ? AIR_OK : air__fail(err, e);
}

/* Where the past run keeps launch file @name: its command.sh is its own
 * command_path, the others are beside it. NULL on OOM. */
static char *launch_file_path(const rerun *r, const char *name)
{
	return !strcmp(name, "command.sh") ? air__strdup(r->run->command_path)
	                                   : air__sprintf("%s/%s", r->launch_dir, name);
}

/* Launch file @name of the past run (air__launch_fetch). */
static int fetch_launch_file(void *ud, const char *name, air__http_resp *resp, air_error **err)
{
	rerun *r = ud;
	char *path = launch_file_path(r, name);
	int rc = path ? fetch(r, path, resp, err) : air__oom(err);

	air__free(path);
	return rc;
}

/* training_config.yaml of the launch directory, with what the past run had
 * otherwise, then the overrides applied. */
static int read_config(rerun *r, air_error **err)
{
	char *path = air__sprintf("%s/training_config.yaml", r->launch_dir);
	air__http_resp resp = AIR__HTTP_RESP_INIT;
	air__buf kept = AIR__BUF_INIT, left = AIR__BUF_INIT;
	int rc;

	if (!path)
		return air__oom(err);
	rc = fetch(r, path, &resp, err);
	if (rc == AIR_OK)
		rc = air_config_parse_buffer(resp.body ? resp.body : "", resp.body_len, path, NULL,
		                             &r->cfg, err);
	if (rc == AIR_OK)
		rc = air__rerun_keep(r->run, r->cfg, r->over, r->n_over, fetch_launch_file, r, &kept,
		                     &left, err);
	if (rc == AIR_OK && ((kept.len && !(r->kept = air__buf_detach(&kept))) ||
	                     (left.len && !(r->left = air__buf_detach(&left)))))
		rc = air__oom(err);
	air__buf_dispose(&kept);
	air__buf_dispose(&left);
	for (size_t i = 0; i < r->n_over && rc == AIR_OK; i++) {
		const air__assign *a = &r->over[i];
		rc = air_config_set(r->cfg, a->path, a->value, err);
	}
	if (rc == AIR_OK)
		rc = air_config_validate(r->cfg, err);
	if (rc == AIR_OK && r->n_over)
		rc = air_config_to_yaml(r->cfg, &r->yaml, err);
	air__http_resp_clear(&resp);
	air__free(path);
	return rc;
}

/* The same code snapshot, which must still be there. */
static int check_snapshot(rerun *r, air_error **err)
{
	const char *path = r->run->code_source_path;
	bool exists = false;
	int rc;

	if (!path)
		return AIR_OK;
	if ((rc = air__snapshot_find(r->c, &r->ctx, path, &exists, err)) != AIR_OK)
		return rc;
	return exists ? AIR_OK
	              : not_found(err, "the code snapshot of run %lld was deleted: %s does not "
	                          "exist", r->id, path);
}

/* The overrides as a point; the key and the run name that follow from them. */
static int identify(rerun *r, air_error **err)
{
	const air_rerun_options *o = r->o;
	char *canon = NULL, hex[2 * AIR__SHA256_LEN + 1];
	const char *base;
	int rc = AIR_OK;

	if (o && o->n_overrides && !(r->over = air__calloc(o->n_overrides, sizeof(*r->over))))
		return air__oom(err);
	for (size_t i = 0; o && i < o->n_overrides; i++, r->n_over++) {
		const char *eq = strchr(o->overrides[i], '=');
		char *raw = air__strndup(o->overrides[i], (size_t)(eq - o->overrides[i]));

		r->over[i].path = raw ? air__trim_dup(raw) : NULL;
		r->over[i].value = air__strdup(eq + 1);
		air__free(raw);
		if (!r->over[i].path || !r->over[i].value) {
			r->n_over++;
			return air__oom(err);
		}
	}
	if ((rc = air__canon_point(r->over, r->n_over, &canon, err)) != AIR_OK)
		return rc;
	base = r->run->name && *r->run->name ? r->run->name : r->run->experiment;
	r->name = air__sweep_run_name(base ? base : "rerun", r->over, r->n_over);
	if (o && o->key) {
		r->key = air__strdup(o->key);
	} else {
		char *text = air__sprintf("air-rerun-v1\n%lld\n%s", (long long)r->id, canon);
		if (text)
			air__sha256_hex(text, strlen(text), hex);
		r->key = text ? air__sprintf("rerun-%lld-%.16s", (long long)r->id, hex) : NULL;
		air__free(text);
	}
	air__free(canon);
	return r->name && r->key ? AIR_OK : air__oom(err);
}

/* Whether every launch file of the config (command.sh, and
 * hyperparameters.yaml, env_vars.json, secret_env_vars.json when it has
 * them) is still in the past run's launch directory; its
 * training_config.yaml was read already. */
static int launch_files_there(rerun *r, bool *there, const char **gone, air_error **err)
{
	air__artifact arts[AIR__MAX_ARTIFACTS];
	size_t n = 0;
	int rc = air__artifacts_build(&r->f.w, arts, &n, err);

	*there = rc == AIR_OK;
	*gone = NULL;
	for (size_t i = 0; rc == AIR_OK && *there && i < n; i++) {
		char *path, *type = NULL;

		if (!strcmp(arts[i].name, "training_config.yaml"))
			continue;
		if (!(path = launch_file_path(r, arts[i].name))) {
			rc = air__oom(err);
			break;
		}
		rc = air__ws_get_status(r->c, &r->ctx, path, false, &type, err);
		if (rc == AIR_ENOTFOUND) {
			*there = false;
			*gone = arts[i].name; /* a static name */
			rc = AIR_OK;
		}
		air__free(type);
		air__free(path);
	}
	air__artifacts_dispose(arts, n);
	return rc;
}

/* The launch directory: the past run's as it is (*upload false), or a new
 * one for the overridden config's files, or for the config's files again
 * when one of the past run's was deleted. */
static int launch_dir(rerun *r, bool *upload, air_error **err)
{
	bool there = false;
	const char *gone = NULL;
	int rc;

	*upload = true;
	if (!r->n_over) {
		if ((rc = launch_files_there(r, &there, &gone, err)) != AIR_OK)
			return rc;
		if (there) {
			*upload = false;
			r->f.launch_dir = air__strdup(r->launch_dir);
			r->f.command_path = air__strdup(r->run->command_path);
			return r->f.launch_dir && r->f.command_path ? AIR_OK : air__oom(err);
		}
		/* a launch file is gone but the config is there: write them again */
		air__buf_printf(&r->f.warnings, "the launch file %s of run %lld was deleted: this run's "
		                "launch files are written again from its training_config.yaml, with "
		                "what it keeps of the run; what only that file held is lost\n",
		                gone ? gone : "?", (long long)r->id);
		if ((rc = air_config_to_yaml(r->cfg, &r->yaml, err)) != AIR_OK)
			return rc;
	}
	r->f.w.source_bytes = r->yaml;
	r->f.w.source_len = strlen(r->yaml);
	return air__flow_launch_dir(&r->f, err);
}

static int submit(rerun *r, air_submission **out, air_error **err)
{
	bool upload = true;
	int64_t id = 0;
	int rc = air_submit_options_new(&r->sopts);

	if (rc == AIR_OK && r->o && r->o->skip_preflight)
		rc = air_submit_options_set_int(r->sopts, AIR_SUBMIT_SKIP_PREFLIGHT, 1);
	if (rc == AIR_OK && r->o && r->o->call.intr)
		rc = air_submit_options_set_interrupt(r->sopts, r->o->call.intr);
	if (rc != AIR_OK)
		return air__failf(err, rc, 0, "cannot set up the rerun's options");
	if ((rc = air__flow_open(&r->f, r->c, r->cfg, r->sopts, err)) == AIR_OK) {
		r->f.ctx.deadline = r->ctx.deadline;
		r->f.ctx.deadline_ms = r->ctx.deadline_ms;
	}
	r->flow_open = true;
	if (rc == AIR_OK && r->kept)
		air__buf_printf(&r->f.warnings, "run %lld was submitted with overrides that its "
		                "training_config.yaml does not hold; this run keeps them (%s)\n",
		                (long long)r->id, r->kept);
	if (rc == AIR_OK && r->left)
		air__buf_printf(&r->f.warnings, "run %lld ran with settings that this run leaves out, "
		                "as its config cannot take them: %s\n", (long long)r->id, r->left);
	if (rc == AIR_OK)
		rc = air__flow_identity(&r->f, err);
	if (rc == AIR_OK && !(r->f.token = air__strdup(r->key)))
		rc = air__oom(err);
	r->f.run_name = r->name;
	if (rc == AIR_OK && r->run->code_source_path &&
	    !(r->f.code_source_path = air__strdup(r->run->code_source_path)))
		rc = air__oom(err);
	if (rc == AIR_OK)
		rc = launch_dir(r, &upload, err);
	if (rc == AIR_OK)
		rc = air__flow_preflight(&r->f, err);
	if (rc == AIR_OK)
		rc = air__flow_workspace_checks(&r->f, err);
	if (rc == AIR_OK && upload)
		rc = air__flow_upload_artifacts(&r->f, err);
	if (rc == AIR_OK)
		rc = air__flow_submit_run(&r->f, &id, err);
	if (rc == AIR_OK)
		rc = air__flow_grant_permissions(&r->f, err);
	if (rc == AIR_OK)
		rc = air__flow_result(&r->f, id, out, err);
	return rc;
}

int air_client_rerun(air_client *client, int64_t run_id, const air_rerun_options *opts,
                     air_submission **out, air_error **err)
{
	rerun r;
	int rc;

	memset(&r, 0, sizeof(r));
	r.c = client;
	r.id = run_id;
	r.o = opts;
	if (out)
		*out = NULL;
	if (!client || !out)
		return air__failf(err, AIR_EINVAL, AIR_KIND_INVALID_ARGUMENT,
		                  "air_client_rerun: client and out are required");
	if ((rc = air__check_run_id(run_id, err)) != AIR_OK)
		return rc;
	air__client_ctx(client, opts ? &opts->call : NULL, &r.ctx);
	rc = air__client_ensure_resolved(client, &r.ctx, err);
	if (rc == AIR_OK)
		rc = read_run(&r, err);
	if (rc == AIR_OK)
		rc = identify(&r, err);
	if (rc == AIR_OK)
		rc = read_config(&r, err);
	if (rc == AIR_OK)
		rc = check_snapshot(&r, err);
	if (rc == AIR_OK)
		rc = submit(&r, out, err);
	if (r.flow_open)
		air__flow_dispose(&r.f);
	air_submit_options_free(r.sopts);
	for (size_t i = 0; i < r.n_over; i++) {
		air__free((char *)r.over[i].path);
		air__free((char *)r.over[i].value);
	}
	air__free(r.over);
	air_run_free(r.run);
	air_config_free(r.cfg);
	air__free(r.launch_dir);
	air__free(r.yaml);
	air__free(r.key);
	air__free(r.name);
	air__free(r.kept);
	air__free(r.left);
	return rc;
}

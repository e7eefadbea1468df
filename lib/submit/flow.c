/*
 * flow.c: air_client_submit() — the sequence of docs/submit.md#sequence.
 *
 * Local checks come first (the snapshot plan; a plain-tar snapshot is
 * packaged here too), so a bad snapshot fails before the first request;
 * air_config_check_submission() makes them, and the key check, alone.
 * Then: identity (cached on the client) -> pre-flight -> token -> usage
 * policy -> experiment directory -> legacy image -> one mkdirs of the launch
 * directory and its artifacts uploaded in parallel -> code snapshot -> git
 * sidecars -> runs/submit. A simple run therefore costs 5 requests in 4
 * sequential round trips once the user is known.
 */
#include "submit/submit.h"

#include <stdlib.h>
#include <string.h>

#include "transport/transport.h"
#include "core/core.h"
#include "submit/snapshot.h"

#define SUBMIT_PATH "/api/2.2/jobs/runs/submit"
/* The legacy image is polled every 5 s; AIR_IMAGE_POLL_MS overrides it
 * (tests, impatient scripts), read like the DATABRICKS_* variables: not with
 * AIR_OPT_USE_ENVIRONMENT = 0. */
#define IMAGE_POLL_MS 5000


static int notify(air__flow *f, int32_t phase, int64_t done, int64_t total, const char *detail)
{
	air_progress ev = {phase, done, total, detail};

	f->phase = phase;
	f->detail = detail;
	if (!f->opts || !f->opts->progress || f->opts->progress(&ev, f->opts->progress_ud) == 0)
		return AIR_OK;
	return AIR_EABORTED;
}

static int aborted(air_error **err)
{
	return air__failf(err, AIR_EABORTED, AIR_KIND_ABORTED,
	                  "the submission was stopped by the progress callback");
}

/* Phase notification that turns a non-zero callback return into an error. */
static int enter(air__flow *f, int32_t phase, int64_t total, const char *detail, air_error **err)
{
	int rc = air__ctx_check(&f->ctx, "the submission", err);

	if (rc != AIR_OK)
		return rc;
	return notify(f, phase, 0, total, detail) == AIR_OK ? AIR_OK : aborted(err);
}

/* Upload progress from the transport, reported during the upload phases
 * (JSON bodies of the other calls are not worth counting). */
static int on_bytes(void *ud, int64_t done, int64_t total)
{
	air__flow *f = ud;

	if (f->phase != AIR_PHASE_ARTIFACTS && f->phase != AIR_PHASE_SNAPSHOT)
		return 0;
	return notify(f, f->phase, done, total, f->detail);
}

/* Everything local: the snapshot plan (packaged in plain mode). The config
 * size limit of the workload file is enforced when the config is parsed. */
int air__flow_local_checks(air__flow *f, air_error **err)
{
	air__snapshot_spec spec;
	int rc;

	if (!f->w.has_code_source)
		return AIR_OK;
	air__snapshot_spec_of(&f->w, f->c, f->opts ? f->opts->base_dir : NULL, &f->ctx, &spec);
	f->has_snap = true;
	rc = air__snapshot_plan(&spec, &f->snap, err);
	if (rc == AIR_OK && f->snap.mode == AIR__SNAPSHOT_PLAIN &&
	    (rc = enter(f, AIR_PHASE_PACKAGING, 0, f->snap.root, err)) == AIR_OK)
		rc = air__snapshot_package(&f->snap, &f->ctx, err);
	return rc;
}

int air__flow_identity(air__flow *f, air_error **err)
{
	air_error *e = NULL;
	int rc = enter(f, AIR_PHASE_IDENTITY, 0, NULL, err);

	if (rc != AIR_OK)
		return rc;
	rc = air__client_user_base(f->c, &f->ctx, &f->user_base, &e);
	if (rc != AIR_OK)
		return air__fail(err, air__error_prefix(e, "looking up the current user"));
	return AIR_OK;
}

int air__flow_launch_dir(air__flow *f, air_error **err)
{
	char hex[17];
	int rc = air__launch_suffix(hex);

	if (rc != AIR_OK)
		return air__failf(err, rc, 0, "cannot read random bytes for the launch directory");
	f->launch_dir = air__launch_dir(f->user_base, f->w.experiment, f->w.mlflow_run_name, hex);
	f->command_path = f->launch_dir ? air__sprintf("%s/command.sh", f->launch_dir) : NULL;
	return f->command_path ? AIR_OK : air__oom(err);
}

int air__flow_preflight(air__flow *f, air_error **err)
{
	json_t *body;
	int rc;

	if (f->opts && f->opts->skip_preflight)
		return AIR_OK;
	if ((rc = enter(f, AIR_PHASE_PREFLIGHT, 0, NULL, err)) != AIR_OK)
		return rc;
	if (!(body = air__preflight_body(&f->w, f->command_path)))
		return air__oom(err);
	rc = air__preflight(f->c, &f->ctx, body, err);
	json_decref(body);
	return rc;
}

int air__idempotency_key(const char *option, const air__workload *w, const char **key,
                         air_error **err)
{
	/* never blank: the setters refuse that */
	const char *yaml = w->idempotency_token && *w->idempotency_token ? w->idempotency_token : NULL;
	size_t n;

	*key = option ? option : yaml;
	if (!*key || (n = strlen(*key)) <= AIR__IDEMPOTENCY_MAX)
		return AIR_OK;
	return air__fail(err, air__error_set_field(air__error_new(AIR_EINVAL,
	                 AIR_KIND_INVALID_ARGUMENT, "the idempotency key is %zu bytes long; at most %d "
	                 "bytes are allowed", n, AIR__IDEMPOTENCY_MAX),
	                 option ? "idempotency_key" : "idempotency_token"));
}

/* The key given for the submission (air__idempotency_key). */
static int given_token(const air__flow *f, const char **key, air_error **err)
{
	return air__idempotency_key(f->opts ? f->opts->idempotency_key : NULL, &f->w, key, err);
}

/* the given key, else a fresh UUIDv4. */
int air__flow_choose_token(air__flow *f, air_error **err)
{
	const char *key;
	char uuid[37];
	int rc = given_token(f, &key, err);

	if (rc != AIR_OK)
		return rc;
	if (!key && air__uuid4(uuid) != AIR_OK)
		return air__failf(err, AIR_EIO, 0, "cannot read random bytes for the idempotency token");
	return (f->token = air__strdup(key ? key : uuid)) ? AIR_OK : air__oom(err);
}

int air__flow_workspace_checks(air__flow *f, air_error **err)
{
	const air__workload *w = &f->w;
	int rc = AIR_OK;

	if (w->usage_policy_name) {
		if ((rc = enter(f, AIR_PHASE_POLICY, 0, w->usage_policy_name, err)) == AIR_OK)
			rc = air__policy_resolve(f->c, &f->ctx, w->usage_policy_name, &f->policy_id, err);
	} else if (w->usage_policy_id) {
		rc = (f->policy_id = air__trim_dup(w->usage_policy_id)) ? AIR_OK : air__oom(err);
	}
	if (rc == AIR_OK && w->mlflow_experiment_directory &&
	    (rc = enter(f, AIR_PHASE_DIRECTORY, 0, w->mlflow_experiment_directory, err)) == AIR_OK)
		rc = air__ws_ensure_directory(f->c, &f->ctx, w->mlflow_experiment_directory, err);
	if (rc == AIR_OK && w->docker_image_url &&
	    (rc = enter(f, AIR_PHASE_IMAGE, 0, w->docker_image_url, err)) == AIR_OK) {
		const char *knob = air__client_env(f->c, "AIR_IMAGE_POLL_MS");
		int64_t poll_ms = IMAGE_POLL_MS;
		if (knob && (!air__parse_int64(knob, &poll_ms) || poll_ms < 0))
			poll_ms = IMAGE_POLL_MS;
		rc = air__image_check(f->c, &f->ctx, w, poll_ms, err);
	}
	return rc;
}

int air__flow_upload_artifacts(air__flow *f, air_error **err)
{
	air__artifact arts[AIR__MAX_ARTIFACTS];
	air__upload ups[AIR__MAX_ARTIFACTS];
	char *paths[AIR__MAX_ARTIFACTS] = {NULL};
	size_t n = 0;
	int64_t total = 0;
	int rc;

	if ((rc = enter(f, AIR_PHASE_DIRECTORY, 0, f->launch_dir, err)) != AIR_OK ||
	    (rc = air__ws_mkdirs(f->c, &f->ctx, f->launch_dir, err)) != AIR_OK ||
	    (rc = air__artifacts_build(&f->w, arts, &n, err)) != AIR_OK)
		return rc;
	for (size_t i = 0; i < n; i++) {
		if (!(paths[i] = air__sprintf("%s/%s", f->launch_dir, arts[i].name))) {
			rc = air__oom(err);
			goto out;
		}
		ups[i] = (air__upload){.path = paths[i], .data = arts[i].data, .len = arts[i].len};
		total += (int64_t)arts[i].len;
	}
	if ((rc = enter(f, AIR_PHASE_ARTIFACTS, total, f->launch_dir, err)) == AIR_OK)
		rc = air__ws_import_many(f->c, &f->ctx, ups, n, NULL, err);
out:
	for (size_t i = 0; i < n; i++)
		air__free(paths[i]);
	air__artifacts_dispose(arts, n);
	return rc;
}

/*
 * A plain-tar snapshot keeps the reference's name, "<dirname>_<UTC
 * second>.tar.gz", as long as that name is unambiguous: it is uploaded
 * without overwrite, so an archive that already holds that name (another
 * snapshot of the same directory in the same second, maybe with other code)
 * is never replaced under a run that points at it. When the name is taken,
 * the snapshot goes to "<dirname>_<UTC second>_<sha16>.tar.gz", named by its
 * content, where overwriting can only put the same bytes back.
 */
static int put_plain(air__flow *f, air_error **err)
{
	air_error *e = NULL;
	char *name, *path;
	int rc = air__snapshot_put(f->c, &f->ctx, &f->snap, f->code_source_path, false, &e);

	if (rc != AIR_ECONFLICT)
		return rc == AIR_OK ? AIR_OK : air__fail(err, e);
	air_error_free(e);
	name = air__snapshot_content_name(&f->snap);
	path = name ? air__sprintf("%s/%s", f->snap_dir, name) : NULL;
	air__free(name);
	if (!path)
		return air__oom(err);
	air__client_debug(f->c, AIR_DEBUG_INFO, "%s exists: the snapshot goes to %s",
	                  f->code_source_path, path);
	air__free(f->code_source_path);
	f->code_source_path = path;
	f->detail = path; /* the progress of the upload names where it goes now */
	if ((rc = enter(f, AIR_PHASE_SNAPSHOT, f->snap.archive.size, path, err)) != AIR_OK)
		return rc;
	return air__snapshot_put(f->c, &f->ctx, &f->snap, f->code_source_path, true, err);
}

int air__flow_upload_snapshot(air__flow *f, air_error **err)
{
	int rc = AIR_OK;

	if (!f->has_snap)
		return AIR_OK;
	f->snap_dir = air__snapshot_upload_dir(f->w.remote_volume, f->user_base);
	f->code_source_path = f->snap_dir ? air__sprintf("%s/%s", f->snap_dir, f->snap.archive_name)
	                                  : NULL;
	if (!f->code_source_path)
		return air__oom(err);
	/* Git snapshots are named by content: an existing one is reused. */
	if (f->snap.mode == AIR__SNAPSHOT_GIT &&
	    (rc = enter(f, AIR_PHASE_SNAPSHOT, 0, f->code_source_path, err)) == AIR_OK)
		rc = air__snapshot_find(f->c, &f->ctx, f->code_source_path, &f->reused, err);
	if (rc != AIR_OK || f->reused)
		return rc;
	if ((rc = enter(f, AIR_PHASE_PACKAGING, 0, f->snap.root, err)) == AIR_OK &&
	    (rc = air__snapshot_package(&f->snap, &f->ctx, err)) == AIR_OK &&
	    (rc = enter(f, AIR_PHASE_SNAPSHOT, f->snap.archive.size, f->code_source_path, err)) ==
	        AIR_OK)
		rc = f->snap.mode == AIR__SNAPSHOT_PLAIN ? put_plain(f, err)
		                                        : air__snapshot_put(f->c, &f->ctx, &f->snap,
		                                                            f->code_source_path, true, err);
	return rc;
}

/* best effort, never fails the submission (only interrupts do). */
int air__flow_upload_sidecars(air__flow *f, air_error **err)
{
	air__git_sidecars sc;
	air__upload ups[2];
	char *state_path, *diff_path;
	bool optional[2] = {true, true};
	size_t n = 0;
	air_error *e = NULL;
	int rc = AIR_OK;

	if (!f->has_snap || !air__git_sidecars_build(&f->snap, f->launch_dir, &f->ctx, &sc))
		return AIR_OK;
	state_path = air__sprintf("%s/git_state.json", f->launch_dir);
	diff_path = air__sprintf("%s/git_diff.patch", f->launch_dir);
	if (state_path && diff_path) {
		ups[n++] = (air__upload){.path = state_path, .data = sc.state_json,
		                          .len = strlen(sc.state_json)};
		if (sc.diff)
			ups[n++] = (air__upload){.path = diff_path, .data = sc.diff, .len = sc.diff_len};
		rc = air__ws_import_many(f->c, &f->ctx, ups, n, optional, &e);
		if (rc == AIR_EINTERRUPTED || rc == AIR_EABORTED) {
			air__fail(err, e);
			e = NULL;
		} else {
			if (rc != AIR_OK)
				air__client_debug(f->c, AIR_DEBUG_INFO, "git provenance not uploaded: %s",
				                  air_error_message(e));
			rc = AIR_OK;
		}
	}
	air_error_free(e);
	air__free(state_path);
	air__free(diff_path);
	air__git_sidecars_dispose(&sc);
	return rc;
}

int air__flow_submit_run(air__flow *f, int64_t *run_id, air_error **err)
{
	air__submit_params p = {f->command_path, f->token, f->policy_id, f->code_source_path,
	                        air__client_default_runtime(f->c)};
	json_t *body, *reply = NULL;
	air_error *e = NULL;
	int rc;

	if ((rc = enter(f, AIR_PHASE_SUBMIT, 0, f->w.experiment, err)) != AIR_OK)
		return rc;
	if (!(body = air__submit_body(&f->w, &p)) ||
	    (f->run_name && !air__json_set_str(body, "run_name", f->run_name))) {
		json_decref(body);
		return air__oom(err);
	}
	/* The token makes the transport's replays safe: the same run comes back. */
	rc = air__api_json(f->c, &f->ctx, "POST", SUBMIT_PATH, NULL, body, &reply, NULL, &e);
	json_decref(body);
	if (rc != AIR_OK)
		return air__fail(err, air__error_prefix(e, "submitting the run of experiment %s",
		                                        f->w.experiment));
	if (!air__json_int64(reply, "run_id", run_id) || *run_id <= 0)
		rc = air__failf(err, AIR_EPROTO, 0, "runs/submit replied without a run_id");
	json_decref(reply);
	return rc;
}

/* After runs/submit: the run stands whatever happens here, an interrupt
 * included (each failure is a warning of the submission). */
int air__flow_grant_permissions(air__flow *f, air_error **err)
{
	if (!f->w.n_grants)
		return AIR_OK;
	notify(f, AIR_PHASE_PERMISSIONS, 0, 0, f->w.experiment); /* submitted: return ignored */
	return air__experiment_grant(f->c, &f->ctx, &f->w, &f->warnings) == AIR_OK ? AIR_OK
	                                                                            : air__oom(err);
}

/* The lines of f->warnings as the submission's warnings. */
static bool take_warnings(air__flow *f, air__submission_ext *sub)
{
	const char *p = air__buf_cstr(&f->warnings);
	size_t n = 0;

	for (const char *q = p; *q; q++)
		n += *q == '\n';
	if (!n)
		return true;
	if (!(sub->warnings = air__calloc(n, sizeof(*sub->warnings))))
		return false;
	for (; *p; p = strchr(p, '\n') + 1)
		if (!(sub->warnings[sub->n_warnings++] = air__strndup(p, strcspn(p, "\n"))))
			return false;
	return true;
}

int air__flow_result(air__flow *f, int64_t run_id, air_submission **out, air_error **err)
{
	const char *host = air__client_host(f->c);
	air__submission_ext *ext = air__calloc(1, sizeof(*ext));
	air_submission *sub = ext ? &ext->sub : NULL;

	if (!sub)
		return air__oom(err);
	sub->run_id = run_id;
	sub->dashboard_url = air__sprintf("%s/jobs/runs/%lld", host ? host : "", (long long)run_id);
	sub->idempotency_token = f->token;
	sub->launch_dir = f->launch_dir;
	sub->code_source_path = f->code_source_path;
	sub->snapshot_reused = f->reused;
	f->token = f->launch_dir = f->code_source_path = NULL;
	if (!sub->dashboard_url || !take_warnings(f, ext)) {
		air_submission_free(sub);
		return air__oom(err);
	}
	*out = sub;
	return AIR_OK;
}

static int validated(const air_config *cfg, air_error **err)
{
	if (air_config_is_valid(cfg))
		return AIR_OK;
	return air__failf(err, AIR_ECONFIG, AIR_KIND_INVALID_CONFIG,
	                  "the configuration has not been validated (call air_config_validate after "
	                  "the last override)");
}

void air__flow_dispose(air__flow *f)
{
	air__workload_dispose(&f->w);
	if (f->has_snap)
		air__snapshot_dispose(&f->snap);
	air__free(f->user_base);
	air__free(f->launch_dir);
	air__free(f->command_path);
	air__free(f->token);
	air__free(f->policy_id);
	air__free(f->code_source_path);
	air__free(f->snap_dir);
	air__buf_dispose(&f->warnings);
}

int air__flow_open(air__flow *f, air_client *c, const air_config *cfg,
                   const air_submit_options *opts, air_error **err)
{
	int rc = validated(cfg, err);

	memset(f, 0, sizeof(*f));
	if (rc != AIR_OK)
		return rc;
	f->c = c;
	f->opts = opts;
	if (c) {
		air__client_ctx(c, opts ? &opts->call : NULL, &f->ctx);
		f->ctx.on_progress = on_bytes;
		f->ctx.progress_ud = f;
	} else {
		air__ctx_init(&f->ctx, opts ? &opts->call : NULL, NULL);
	}
	return air__workload_load(cfg, &f->w, err);
}

/* The checks of a submission that need no workspace: the idempotency key
 * (checked after the pre-flight by a submission, as the reference does),
 * then the local checks that come first. */
int air_config_check_submission(const air_config *cfg, const air_submit_options *opts,
                                air_error **err)
{
	air__flow f;
	const char *key;
	int rc;

	if (!cfg)
		return air__failf(err, AIR_EINVAL, AIR_KIND_INVALID_ARGUMENT,
		                  "air_config_check_submission: cfg is required");
	rc = air__flow_open(&f, NULL, cfg, opts, err);
	if (rc == AIR_OK)
		rc = given_token(&f, &key, err);
	if (rc == AIR_OK)
		rc = air__flow_local_checks(&f, err);
	air__flow_dispose(&f);
	return rc;
}

int air_client_submit(air_client *client, const air_config *cfg, const air_submit_options *opts,
                      air_submission **out, air_error **err)
{
	air__flow f;
	int64_t run_id = 0;
	int rc;

	if (out)
		*out = NULL;
	if (!client || !cfg || !out)
		return air__failf(err, AIR_EINVAL, AIR_KIND_INVALID_ARGUMENT,
		                  "air_client_submit: client, cfg and out are required");
	rc = air__flow_open(&f, client, cfg, opts, err);
	if (rc == AIR_OK)
		rc = air__flow_local_checks(&f, err);
	if (rc == AIR_OK)
		rc = air__client_ensure_resolved(client, &f.ctx, err);
	if (rc == AIR_OK)
		rc = air__flow_identity(&f, err);
	if (rc == AIR_OK)
		rc = air__flow_launch_dir(&f, err);
	if (rc == AIR_OK)
		rc = air__flow_preflight(&f, err);
	if (rc == AIR_OK)
		rc = air__flow_choose_token(&f, err);
	if (rc == AIR_OK)
		rc = air__flow_workspace_checks(&f, err);
	if (rc == AIR_OK)
		rc = air__flow_upload_artifacts(&f, err);
	if (rc == AIR_OK)
		rc = air__flow_upload_snapshot(&f, err);
	if (rc == AIR_OK)
		rc = air__flow_upload_sidecars(&f, err);
	if (rc == AIR_OK)
		rc = air__flow_submit_run(&f, &run_id, err);
	if (rc == AIR_OK)
		rc = air__flow_grant_permissions(&f, err);
	if (rc == AIR_OK)
		rc = air__flow_result(&f, run_id, out, err);
	if (rc == AIR_OK)
		notify(&f, AIR_PHASE_DONE, 0, 0, (*out)->dashboard_url); /* submitted: return ignored */
	air__flow_dispose(&f);
	return rc;
}

/*
 * mlruns.c: the MLflow file store of a local workspace, <state>/mlruns,
 * laid out as MLflow's FileStore lays it out, so that the mlflow package of
 * a workload (MLFLOW_TRACKING_URI=file://<state>/mlruns, MLFLOW_EXPERIMENT_ID,
 * MLFLOW_RUN_ID) resumes the run libair made and logs into it:
 *
 *   <experiment id>/meta.yaml                 the experiment
 *   <experiment id>/<run id>/meta.yaml        the run (status: 1 RUNNING, 3 FINISHED,
 *                                             4 FAILED, 5 KILLED)
 *   <experiment id>/<run id>/metrics/<key>    one point per line: "<timestamp ms> <value> <step>"
 *   <experiment id>/<run id>/params/, tags/, artifacts/
 *
 * The submission creates the experiment (when new) and the run while the
 * supervisor loads, and the supervisor before the nodes start should the
 * submission not have (their files are written once: neither replaces what
 * the other made); the supervisor records the run's end in its meta.yaml (a
 * reader that finds the supervisor gone does too). Shared by the library
 * and the supervisor.
 */
#include "local/local_priv.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

/* MLflow's RunStatus and SourceType values (as its meta.yaml stores them). */
#define MLFLOW_RUNNING 1
#define MLFLOW_FINISHED 3
#define MLFLOW_FAILED 4
#define MLFLOW_KILLED 5
#define MLFLOW_SOURCE_LOCAL 4

/* <state> of a run folder <state>/jobs/runs/<id>. */
static char *state_of(const char *run_dir)
{
	const char *cut = NULL;

	for (const char *p = strstr(run_dir, "/jobs/runs/"); p; p = strstr(p + 1, "/jobs/runs/"))
		cut = p;
	return cut ? air__strndup(run_dir, (size_t)(cut - run_dir)) : NULL;
}

char *air__lmlruns_dir(const char *state_dir)
{
	return air__lpath(state_dir, "mlruns");
}

char *air__lmlruns_uri(const char *state_dir)
{
	air__buf b = AIR__BUF_INIT;
	char *dir = air__lmlruns_dir(state_dir), *uri = NULL;

	/* Percent-encoded: MLflow decodes the path of a file: URI. */
	if (dir) {
		air__buf_puts(&b, "file://");
		air__buf_put_urlencoded(&b, dir, true);
		uri = air__buf_oom(&b) ? NULL : air__buf_detach(&b);
	}
	air__buf_dispose(&b);
	air__free(dir);
	return uri;
}

char *air__lmlruns_run_dir(const char *state_dir, const json_t *rec)
{
	const char *exp = air__json_nonempty(rec, "mlflow_experiment_id");
	const char *run = air__json_nonempty(rec, "mlflow_run_id");

	/* Ids libair made (hex, "local-" + hex): never a path of their own. */
	if (!exp || !run || strchr(exp, '/') || strchr(run, '/') || exp[0] == '.' || run[0] == '.')
		return NULL;
	return air__sprintf("%s/mlruns/%s/%s", state_dir, exp, run);
}

/* "key: value\n" with the value written as YAML reads it back as this string. */
static void put_str(air__buf *b, const char *key, const char *value)
{
	air__buf_printf(b, "%s: ", key);
	if (air__yaml_plain_ok(value, strlen(value)))
		air__buf_puts(b, value);
	else
		air__yaml_put_quoted(b, value, strlen(value));
	air__buf_putc(b, '\n');
}

/* meta.yaml of @dir: replaced, or only made when missing (@once). */
static int write_meta(const char *dir, air__buf *b, bool once)
{
	char *path = air__lpath(dir, "meta.yaml");
	int rc = !path || air__buf_oom(b) ? (errno = ENOMEM, -1)
	         : once ? air__lwrite_once(path, b->ptr, b->len, 0600)
	                : air__lwrite_atomic(path, b->ptr, b->len, 0600, false);

	air__free(path);
	return rc;
}

/* The experiment's folder and meta.yaml, unless it has them already. */
static int create_experiment(const char *state_dir, const json_t *rec, int64_t now)
{
	const char *id = air__json_str(rec, "mlflow_experiment_id");
	const char *name = air__json_nonempty(rec, "experiment");
	char *store = air__lmlruns_dir(state_dir), *dir = store ? air__lpath(store, "%s", id) : NULL;
	char *meta = dir ? air__lpath(dir, "meta.yaml") : NULL, *trash = NULL, *uri;
	air__buf b = AIR__BUF_INIT;
	int rc = -1;

	if (!meta || (trash = air__lpath(store, ".trash")) == NULL || air__lmkdirs(trash, 0700) != 0)
		goto out;
	air__lspread_below(store); /* each experiment's folder where there is room (spread.c) */
	if (air__lmkdirs(dir, 0700) != 0)
		goto out;
	if (air__lexists(meta)) {
		rc = 0;
		goto out;
	}
	uri = air__lmlruns_uri(state_dir);
	air__buf_printf(&b, "artifact_location: %s/%s\n", uri ? uri : "", id);
	air__buf_printf(&b, "creation_time: %lld\n", (long long)now);
	put_str(&b, "experiment_id", id);
	air__buf_printf(&b, "last_update_time: %lld\n", (long long)now);
	air__buf_puts(&b, "lifecycle_stage: active\n");
	put_str(&b, "name", name ? name : id);
	air__free(uri);
	rc = write_meta(dir, &b, true);
out:
	air__buf_dispose(&b);
	air__free(trash);
	air__free(meta);
	air__free(dir);
	air__free(store);
	return rc;
}

const char *air__lmlruns_run_name(const json_t *rec)
{
	const char *name = air__json_nonempty(rec, "mlflow_run_name");

	/* Unconfirmed: what the platform names an MLflow run whose workload
	 * names none. Its Jobs run name keeps the variants of a sweep apart. */
	if (!name)
		name = air__json_nonempty(json_object_get(rec, "payload"), "run_name");
	return name ? name : air__json_nonempty(rec, "experiment");
}

/* A tag file of the run (what mlflow.set_tag() writes), unless it exists:
 * one the workload set stays. */
static void write_tag(const char *run_dir, const char *tag, const char *value)
{
	char *path = air__lpath(run_dir, "tags/%s", tag);

	if (path && value)
		air__lwrite_once(path, value, strlen(value), 0600);
	air__free(path);
}

int air__lmlruns_create(const char *run_folder)
{
	char *state = state_of(run_folder), *rpath = air__lpath(run_folder, "run.json");
	json_t *rec = rpath ? air__lread_json(rpath) : NULL;
	char *dir = state && rec ? air__lmlruns_run_dir(state, rec) : NULL, *uri = NULL;
	const char *name = air__lmlruns_run_name(rec);
	const char *user = air__json_nonempty(rec, "user");
	char *meta = dir ? air__lpath(dir, "meta.yaml") : NULL;
	int64_t now = air__now_ms();
	air__buf b = AIR__BUF_INIT;
	int rc = -1;

	if (meta && air__lexists(meta)) { /* made by the submission, or the supervisor */
		rc = 0;
		goto out;
	}
	if (!meta || create_experiment(state, rec, now) != 0)
		goto out;
	for (size_t i = 0; i < 4; i++) {
		static const char *const sub[] = {"metrics", "params", "tags", "artifacts"};
		char *p = air__lpath(dir, "%s", sub[i]);
		int made = p ? air__lmkdirs(p, 0700) : -1;

		air__free(p);
		if (made != 0)
			goto out;
	}
	uri = air__lmlruns_uri(state);
	air__buf_printf(&b, "artifact_uri: %s/%s/%s/artifacts\n", uri ? uri : "",
	                air__json_str(rec, "mlflow_experiment_id"), air__json_str(rec, "mlflow_run_id"));
	air__buf_puts(&b, "deleted_time: null\nend_time: null\nentry_point_name: ''\n");
	put_str(&b, "experiment_id", air__json_str(rec, "mlflow_experiment_id"));
	air__buf_puts(&b, "lifecycle_stage: active\n");
	put_str(&b, "run_id", air__json_str(rec, "mlflow_run_id"));
	put_str(&b, "run_name", name ? name : "");
	put_str(&b, "run_uuid", air__json_str(rec, "mlflow_run_id"));
	air__buf_printf(&b, "source_name: ''\nsource_type: %d\nsource_version: ''\n",
	                MLFLOW_SOURCE_LOCAL);
	air__buf_printf(&b, "start_time: %lld\nstatus: %d\ntags: []\n",
	                (long long)air__json_int64_or(rec, "submit_time", now), MLFLOW_RUNNING);
	put_str(&b, "user_id", user ? user : "");
	/* The tags first: whoever sees the run's meta.yaml sees them. */
	write_tag(dir, "mlflow.runName", name);
	write_tag(dir, "mlflow.user", user);
	rc = write_meta(dir, &b, true);
out:
	air__buf_dispose(&b);
	air__free(uri);
	air__free(meta);
	air__free(dir);
	json_decref(rec);
	air__free(rpath);
	air__free(state);
	return rc;
}

/* MLflow's status of a run that ended with Jobs result @result. */
static int ended_status(const char *result)
{
	if (result && !strcmp(result, "SUCCESS"))
		return MLFLOW_FINISHED;
	return result && !strcmp(result, "CANCELED") ? MLFLOW_KILLED : MLFLOW_FAILED;
}

void air__lmlruns_finish(const char *run_folder, const char *result)
{
	char *state = state_of(run_folder), *rpath = air__lpath(run_folder, "run.json");
	json_t *rec = rpath ? air__lread_json(rpath) : NULL;
	char *dir = state && rec ? air__lmlruns_run_dir(state, rec) : NULL;
	char *meta = dir ? air__lpath(dir, "meta.yaml") : NULL;
	air__buf old = AIR__BUF_INIT, b = AIR__BUF_INIT;

	/* Top-level "status:" and "end_time:" lines replaced, the rest kept as
	 * MLflow (or the workload's mlflow.end_run()) wrote it. */
	if (meta && air__lread_file(meta, (size_t)1 << 20, &old) == 0) {
		for (const char *p = air__buf_cstr(&old); *p;) {
			const char *nl = strchr(p, '\n');
			size_t n = nl ? (size_t)(nl - p) + 1 : strlen(p);

			if (air__starts_with(p, "status:"))
				air__buf_printf(&b, "status: %d\n", ended_status(result));
			else if (air__starts_with(p, "end_time:"))
				air__buf_printf(&b, "end_time: %lld\n", (long long)air__now_ms());
			else
				air__buf_put(&b, p, n);
			p += n;
		}
		write_meta(dir, &b, false);
	}
	air__buf_dispose(&old);
	air__buf_dispose(&b);
	air__free(meta);
	air__free(dir);
	json_decref(rec);
	air__free(rpath);
	air__free(state);
}

/*
 * submit.c: the pre-flight check and runs/submit of a local workspace.
 *
 * runs/submit takes the payload a real workspace would get, finds the launch
 * directory and the code snapshot the submission uploaded into
 * <state>/workspace, and, under the state lock: removes what a submission
 * that was killed half-way left (jobs/runs/.new-* and the idempotency record
 * it wrote); returns the run of an idempotency token already seen; resolves
 * the secrets (a missing or too short one fails the submission, nothing is
 * created); gives out the next run id; makes the run's folder under a
 * temporary name with the run's lock (so that the run is never visible
 * without an owner) and starts the supervisor, which loads while the run's
 * records and its token's record are written and the folder is renamed into
 * place; makes the run's MLflow run; and gives the supervisor its go-ahead,
 * the secret values. A supervisor that cannot start leaves the run ended
 * INTERNAL_ERROR with the reason, as a workspace does when it cannot launch
 * a run. The new run's records are written without waiting for the disk and
 * synced once the supervisor runs (docs/local.md, "Crashes and durability").
 */
#include "local/endpoints.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What runs/submit needs of its payload. */
typedef struct lsub {
	const json_t *body, *task, *air, *compute;
	const char *token;
	const char *command_path;
	const char *code_source_path;
	const char *accel_type;
	int64_t accel_count, nodes, per_node;
	char *launch_dir;       /* stored launch directory */
	char *code_archive;     /* stored archive, or NULL */
	json_t *secret_spec;    /* {"NAME": "scope/key"} */
	json_t *env_vars;       /* {"NAME": "value"} of the launch's env_vars.json */
} lsub;

/* ---- pre-flight --------------------------------------------------------------------- */

/* The number of nodes of @compute ({"accelerator_type", "accelerator_count"});
 * 0 when it does not make whole nodes (runs/submit says so). */
static int64_t node_count(const json_t *compute, int64_t *per_node)
{
	const char *type = air__json_nonempty(compute, "accelerator_type");
	const air__accelerator *acc = type ? air__accelerator_find(type) : NULL;
	int64_t count = air__json_int64_or(compute, "accelerator_count", 0);

	if (!acc || count <= 0 || count % acc->gpus_per_node)
		return 0;
	if (per_node)
		*per_node = acc->gpus_per_node;
	return count / acc->gpus_per_node;
}

/* A finding of the pre-flight reply. */
static int add_finding(json_t *errors, const char *path, const char *message, const char *code)
{
	json_t *e = json_pack("{s:s, s:s, s:s}", "path", path, "message", message, "code", code);

	return e && json_array_append_new(errors, e) == 0 ? AIR_OK : AIR_ENOMEM;
}

int air__lsubmit_preflight(air__lcall *c)
{
	json_t *body, *errors = json_array(), *vals = NULL;
	const json_t *spec, *compute;
	const char *missing = NULL;
	air__buf why = AIR__BUF_INIT;
	int64_t nodes;
	int rc = AIR_OK, r;

	if (!errors)
		return air__oom(c->err);
	if (!(body = air__lbody_json(c, &rc))) {
		json_decref(errors);
		return rc;
	}
	compute = air__json_at(body, "task.deployments.0.compute");
	if ((nodes = node_count(compute, NULL)) > 0 &&
	    air__local_check_nodes(nodes, air__json_str(compute, "accelerator_type"),
	                           air__json_int64_or(compute, "accelerator_count", 0),
	                           &why) != AIR_OK &&
	    add_finding(errors, "compute.num_accelerators", air__buf_cstr(&why), "TOO_MANY_NODES") !=
	        AIR_OK)
		rc = air__oom(c->err);
	air__buf_clear(&why);
	spec = air__json_at(body, "run_options.secrets");
	if (json_is_object(spec) && json_object_size(spec) > 0) {
		r = air__lsecrets_resolve(c->ws, spec, &vals, &missing, &why);
		if (r == AIR_ENOMEM)
			rc = air__oom(c->err);
		else if (r != AIR_OK) {
			char *path = missing ? air__sprintf("secrets.%s", missing) : air__strdup("secrets");
			if (!path || add_finding(errors, path, air__buf_cstr(&why),
			                         r == AIR_ENOTFOUND ? "SECRET_NOT_FOUND"
			                         : missing          ? "INVALID_SECRET"
			                                            : "SECRETS_TOO_LARGE") != AIR_OK)
				rc = air__oom(c->err);
			air__free(path);
		}
	}
	air__buf_clear(&why);
	if (rc == AIR_OK) {
		char *path = NULL;
		const json_t *vars = air__json_at(body, "run_options.env_variables");

		if (air__local_check_env(json_is_object(vars) ? vars : NULL, vals, &path, &why) !=
		        AIR_OK &&
		    (!path || add_finding(errors, path, air__buf_cstr(&why), "ENVIRONMENT_TOO_LARGE") !=
		                  AIR_OK))
			rc = air__oom(c->err);
		air__free(path);
	}
	air__lsecrets_wipe(vals);
	air__buf_dispose(&why);
	json_decref(body);
	if (rc != AIR_OK) {
		json_decref(errors);
		return rc;
	}
	return air__lreply_json(c, 200, json_pack("{s:o}", "errors", errors));
}

/* ---- the payload -------------------------------------------------------------------- */

static void lsub_dispose(lsub *s)
{
	air__free(s->launch_dir);
	air__free(s->code_archive);
	json_decref(s->env_vars);
	json_decref(s->secret_spec);
}

/* {"NAME": "scope/key"} from the launch directory's secret_env_vars.json. */
static json_t *secret_spec(const char *launch_dir)
{
	char *path = air__lpath(launch_dir, "secret_env_vars.json");
	json_t *arr = path ? air__lread_json(path) : NULL, *spec = json_object(), *e;
	size_t i;

	json_array_foreach(arr, i, e) {
		const char *name = air__json_nonempty(e, "name");
		const char *scope = air__json_str(e, "secret_scope"), *key = air__json_str(e, "secret_key");
		char *ref = name && scope && key ? air__sprintf("%s/%s", scope, key) : NULL;

		if (spec && ref)
			json_object_set_new(spec, name, json_string(ref));
		air__free(ref);
	}
	json_decref(arr);
	air__free(path);
	return spec;
}

/* *bad: a copy of the first name of the run's env_vars.json that a node's
 * environment cannot hold (air__lvariable_name_ok()), or NULL (secret
 * names: air__lsecrets_resolve()); s->env_vars gets them as an object.
 * AIR_OK or AIR_ENOMEM. */
static int bad_variable_name(lsub *s, char **bad)
{
	char *path = air__lpath(s->launch_dir, "env_vars.json");
	json_t *vars = path ? air__lread_json(path) : NULL, *e;
	bool oom = !path || !(s->env_vars = json_object());
	size_t i;

	*bad = NULL;
	json_array_foreach(vars, i, e) {
		const char *n = air__json_str(e, "name"), *v = air__json_str(e, "value");
		if (!*bad && !oom && n && !air__lvariable_name_ok(n))
			oom = !(*bad = air__strdup(n));
		if (!oom && n && v)
			oom = json_object_set_new(s->env_vars, n, json_string(v)) != 0;
	}
	json_decref(vars);
	air__free(path);
	return oom ? AIR_ENOMEM : AIR_OK;
}

/* Read and check the payload; replies 400 (returning false) when it is not
 * one a workspace would run. */
static bool read_payload(air__lcall *c, lsub *s, int *rc)
{
	const json_t *dep;
	air__buf why = AIR__BUF_INIT;
	struct stat st;
	char *dir;

	s->task = air__json_at(s->body, "tasks.0");
	s->air = json_object_get(s->task, "ai_runtime_task");
	dep = air__json_at(s->air, "deployments.0");
	s->compute = json_object_get(dep, "compute");
	s->token = air__json_nonempty(s->body, "idempotency_token");
	s->command_path = air__json_nonempty(dep, "command_path");
	s->code_source_path = air__json_nonempty(s->air, "code_source_path");
	s->accel_type = air__json_nonempty(s->compute, "accelerator_type");
	s->accel_count = air__json_int64_or(s->compute, "accelerator_count", 0);
	if (!json_is_object(s->air) || !s->command_path || s->command_path[0] != '/' ||
	    strrchr(s->command_path, '/') == s->command_path) {
		*rc = air__lreply_bad_request(c, "a local workspace runs ai_runtime_task runs with a "
		                              "command_path");
		return false;
	}
	if ((s->nodes = node_count(s->compute, &s->per_node)) == 0) {
		*rc = air__lreply_bad_request(c, "compute %s x %lld does not make whole nodes",
		                              s->accel_type ? s->accel_type : "(none)",
		                              (long long)s->accel_count);
		return false;
	}
	if (air__local_check_nodes(s->nodes, s->accel_type, s->accel_count, &why) != AIR_OK) {
		*rc = air__lreply_bad_request(c, "%s", air__buf_cstr(&why));
		air__buf_dispose(&why);
		return false;
	}
	dir = air__strndup(s->command_path, (size_t)(strrchr(s->command_path, '/') -
	                                            s->command_path));
	s->launch_dir = dir && *dir ? air__lws_file(c->ws, dir) : NULL;
	air__free(dir);
	{
		/* Reached without a link: so is the launch directory holding it. */
		char *cmd = air__lws_file(c->ws, s->command_path);
		int fd = cmd ? air__lws_open(c->ws, cmd, false, &st) : -1;
		bool ok = fd >= 0;

		if (fd >= 0)
			close(fd);
		air__free(cmd);
		if (!s->launch_dir || !ok) {
			*rc = air__lreply_bad_request(c, "command_path %s does not exist in the local "
			                              "workspace", s->command_path);
			return false;
		}
	}
	if (s->code_source_path) {
		int fd;

		s->code_archive = air__lws_file(c->ws, s->code_source_path);
		fd = s->code_archive ? air__lws_open(c->ws, s->code_archive, false, &st) : -1;
		if (fd >= 0)
			close(fd);
		if (fd < 0) {
			*rc = air__lreply_bad_request(c, "code_source_path %s does not exist in the local "
			                              "workspace", s->code_source_path);
			return false;
		}
	}
	if (!(s->secret_spec = secret_spec(s->launch_dir))) {
		*rc = air__oom(c->err);
		return false;
	}
	{
		char *name = NULL;
		if (bad_variable_name(s, &name) != AIR_OK) {
			*rc = air__oom(c->err);
			return false;
		}
		if (name) {
			*rc = air__lreply_bad_request(c, "env_variables: \"%s\" cannot be the name of an "
			                              "environment variable on a local node (it holds '=' "
			                              "or is empty)", name);
			air__free(name);
			return false;
		}
	}
	return true;
}

/* ---- the run's folder ------------------------------------------------------------------ */

/* A file holding a positive decimal id; 0 when missing or malformed. */
static int64_t read_id(const char *path)
{
	air__buf b = AIR__BUF_INIT;
	int64_t id = 0;

	if (air__lread_file(path, 64, &b) == 0) {
		size_t n;
		const char *t = air__trim(b.ptr, &n);
		char *v = air__strndup(t, n);
		if (!v || !air__parse_int64(v, &id) || id < 0)
			id = 0;
		air__free(v);
	}
	air__buf_dispose(&b);
	return id;
}

/* The idempotency record of @token, or NULL on OOM. */
static char *token_record(const air__local *ws, const char *token)
{
	char hex[2 * AIR__SHA256_LEN + 1];

	air__sha256_hex(token, strlen(token), hex);
	return air__sprintf("%s/idempotency/%s", ws->dir, hex);
}

/* The run id a token created, 0 when none; *deleted when its folder is gone. */
static int64_t token_run(const air__local *ws, const char *token, char **record, bool *deleted)
{
	int64_t id;
	char *dir;

	*deleted = false;
	if (!(*record = token_record(ws, token)))
		return 0;
	if ((id = read_id(*record)) > 0) {
		dir = air__lrun_dir(ws->dir, id);
		*deleted = dir && !air__lexists(dir);
		air__free(dir);
	}
	return id;
}

/* Write @record, the idempotency record of run @id. 0, or -1 with errno. */
static int write_record(const air__local *ws, const char *record, int64_t id)
{
	char *dir = air__lpath(ws->dir, "idempotency"), text[24];
	int rc = dir ? air__lmkdirs(dir, 0700) : (errno = ENOMEM, -1);

	snprintf(text, sizeof(text), "%lld\n", (long long)id);
	if (rc == 0)
		rc = air__lwrite_atomic(record, text, strlen(text), 0600, false);
	air__free(dir);
	return rc;
}

/* The next run id (recorded): one above the last given, never below
 * @highest (the highest run there: a counter cut short by a crash does not
 * go back), and free. 0 on failure. */
static int64_t next_run_id(const air__local *ws, int64_t highest)
{
	char *path = air__lpath(ws->dir, "last_run_id"), text[24];
	int64_t last = path ? read_id(path) : 0;
	bool taken = true;

	if (last < highest)
		last = highest;
	if (last >= INT64_MAX - 1000000) { /* no room to give one out */
		air__free(path);
		errno = EOVERFLOW;
		return 0;
	}
	for (int tries = 0; path && taken && tries < 1000000; tries++) {
		char *dir = air__lrun_dir(ws->dir, ++last);
		taken = !dir || air__lexists(dir);
		air__free(dir);
	}
	snprintf(text, sizeof(text), "%lld\n", (long long)last);
	if (!path || taken || air__lwrite_in_place(path, text, strlen(text)) != 0)
		last = 0;
	air__free(path);
	return last;
}

static json_t *run_record(const air__lcall *c, const lsub *s, int64_t id)
{
	const char *exp = air__json_nonempty(s->air, "experiment");
	char mlrun[33], *mlexp = air__lmlflow_experiment_id(exp ? exp : "");
	json_t *deps = air__json_at(s->body, "environments.0.spec.dependencies");
	json_t *rec;

	if (!mlexp || air__lmlflow_new_run_id(id, mlrun) != AIR_OK) {
		air__free(mlexp);
		return NULL;
	}
	rec = json_pack("{s:I, s:I, s:s, s:s*, s:s, s:s*, s:I, s:I, s:s, s:I, s:I, s:b, s:I,"
	                " s:s, s:s*, s:s*, s:s, s:s, s:O*, s:s*, s:O}",
	                "run_id", (json_int_t)id, "submit_time", (json_int_t)air__now_ms(),
	                "user", c->ws->user, "idempotency_token", s->token,
	                "experiment", exp ? exp : "", "mlflow_run_name",
	                air__json_nonempty(s->air, "mlflow_run"), "nodes", (json_int_t)s->nodes,
	                "gpus_per_node", (json_int_t)s->per_node, "accelerator_type", s->accel_type,
	                "accelerator_count", (json_int_t)s->accel_count, "max_retries",
	                (json_int_t)air__json_int64_or(s->task, "max_retries", 0),
	                "retry_on_timeout", json_is_true(json_object_get(s->task, "retry_on_timeout")),
	                "timeout_seconds", (json_int_t)air__json_int64_or(s->body, "timeout_seconds", 0),
	                "command_path", s->command_path, "code_source_path", s->code_source_path,
	                "code_archive", s->code_archive, "mlflow_run_id", mlrun,
	                "mlflow_experiment_id", mlexp, "dependencies", json_is_array(deps) ? deps : NULL,
	                "image", air__json_nonempty(s->air, "unity_catalog_image_path"),
	                "payload", s->body);
	air__free(mlexp);
	return rec;
}

/* Start building the run's folder as @tmp: the folder and its supervisor
 * lock (*lock_fd, held). 0, or -1 with errno (nothing left). */
static int begin_run_dir(const char *tmp, int *lock_fd)
{
	char *lock = air__lpath(tmp, "supervisor.lock");
	int rc = lock ? air__lmkdirs(tmp, 0700) : (errno = ENOMEM, -1);

	*lock_fd = -1;
	if (rc == 0 && (rc = air__llock(lock, false, NULL, lock_fd)) != 0) {
		int saved = errno;
		air__lremove_tree(tmp);
		errno = saved;
	}
	air__free(lock);
	return rc;
}

/* The folders the supervisor needs first: the nodes' working directories
 * and the first attempt's logs, made while it loads rather than on its way
 * to the nodes (it makes what is missing). 0, or -1 with errno. */
static int make_node_folders(const char *tmp, int64_t nodes)
{
	char *logs = air__lpath(tmp, "logs/attempt_0");
	int rc = logs ? air__lmkdirs(logs, 0700) : (errno = ENOMEM, -1);

	for (int64_t n = 0; rc == 0 && n < nodes; n++) {
		char *work = air__lnode_work(tmp, n);

		rc = work ? air__lmkdirs(work, 0700) : (errno = ENOMEM, -1);
		air__free(work);
	}
	air__free(logs);
	return rc;
}

/* Write the records of the run's folder @tmp, the token's idempotency
 * @record (may be NULL), and rename the folder to @dir. 0, or -1 with errno
 * (the record removed; the caller removes @tmp). */
static int end_run_dir(const air__lcall *c, const lsub *s, int64_t id, const char *tmp,
                       const char *dir, const char *record)
{
	char *launch = air__lpath(tmp, "launch");
	json_t *rec = run_record(c, s, id), *status = air__lstatus_new();
	char *rpath = air__lpath(tmp, "run.json"), *spath = air__lpath(tmp, "status.json");
	char *reserve = air__lpath(tmp, "status.reserve");
	int rc = launch && rec && status && rpath && spath && reserve ? 0 : -1;

	if (rc != 0)
		errno = ENOMEM;
	if (rc == 0)
		rc = air__lcopy_dir_files(s->launch_dir, launch);
	if (rc == 0)
		rc = make_node_folders(tmp, s->nodes);
	/* A disk too full for the run's last status is found now, before the
	 * run exists (the supervisor keeps the reserve until the run ends). A
	 * reserve beyond the file size limit is left out, as the supervisor's
	 * would be. */
	if (rc == 0 && air__lreserve(reserve, AIR__LOCAL_RESERVE_BYTES) != 0 &&
	    (errno == ENOSPC || errno == EDQUOT))
		rc = -1;
	/* Nobody sees @tmp: its files are written without temporary names. */
	if (rc == 0)
		rc = air__lwrite_json_fresh(rpath, rec);
	if (rc == 0)
		rc = air__lwrite_json_fresh(spath, status);
	/* The record before the run is seen: a submission killed at any point
	 * leaves the run with its record, or neither (the next one removes a
	 * .new-<id> folder with its record). */
	if (rc == 0 && record && (rc = write_record(c->ws, record, id)) != 0)
		record = NULL;
	if (rc == 0 && (rc = rename(tmp, dir)) != 0 && record) {
		int saved = errno;
		unlink(record);
		errno = saved;
	}
	json_decref(rec);
	json_decref(status);
	air__free(launch);
	air__free(rpath);
	air__free(spath);
	air__free(reserve);
	return rc;
}

/* The run's MLflow links name folders: <state>/ml/experiments/<experiment
 * id>/runs/<MLflow run id> is a symbolic link to the run's folder (best
 * effort: nothing reads it). */
static void link_mlflow_names(const air__local *ws, int64_t id)
{
	char *dir = air__lrun_dir(ws->dir, id), *rpath = dir ? air__lpath(dir, "run.json") : NULL;
	json_t *rec = rpath ? air__lread_json(rpath) : NULL;
	const char *exp = air__json_str(rec, "mlflow_experiment_id");
	const char *run = air__json_str(rec, "mlflow_run_id");
	char *runs = exp ? air__sprintf("%s/ml/experiments/%s/runs", ws->dir, exp) : NULL;
	char *link = runs && run ? air__lpath(runs, "%s", run) : NULL;
	char *target = air__sprintf("../../../../jobs/runs/%lld", (long long)id);

	if (link && target && air__lmkdirs(runs, 0700) == 0 && symlink(target, link) != 0 &&
	    errno == EEXIST && unlink(link) == 0) /* a leftover of an earlier state directory */
		(void)!symlink(target, link);
	air__free(target);
	air__free(link);
	air__free(runs);
	json_decref(rec);
	air__free(rpath);
	air__free(dir);
}

/* Whether the run of @dir is still as it was submitted (PENDING, no
 * supervisor ever recorded in it). */
static bool as_submitted(const char *dir)
{
	char *path = air__lpath(dir, "status.json");
	json_t *status = path ? air__lread_json(path) : NULL;
	const char *state = air__json_str(status, "state");
	bool yes = state && !strcmp(state, AIR__L_PENDING) &&
	           !json_object_get(status, "supervisor_pid");

	json_decref(status);
	air__free(path);
	return yes;
}

/* Make the run's MLflow links and MLflow run (best effort: without them the
 * run goes on, without metrics; the supervisor makes a missing MLflow run
 * before the nodes start), then let the supervisor @st (started while the
 * run was made; NULL: it could not be, for the reason in @why) take the run
 * over. When it cannot start, or fails at its start, the run ends with the
 * reason, and its MLflow run with it, under the run's lock (*lock_fd, held
 * by this call). Unless all of the secrets were sent: then a supervisor may
 * have had its go-ahead although its launcher failed (killed after its
 * fork), and the run is its own while it holds the lock, or once it
 * recorded a state. */
static void launch(air__lcall *c, air__lstarting *st, air__buf *why, int64_t id, const char *dir,
                   int *lock_fd, const json_t *secrets)
{
	json_t *status;
	bool whole = false;
	int taken = -1; /* the lock taken again, when *lock_fd was let go */

	/* Still while the supervisor loads, most of the time. */
	link_mlflow_names(c->ws, id);
	air__lmlruns_create(dir);
	if (st && air__lspawn_go(st, secrets, c->ctx, &whole, why) == AIR_OK)
		return;
	if (whole) {
		char *lock = air__lpath(dir, "supervisor.lock");
		bool ours;

		close(*lock_fd); /* never unlocked: that would release a supervisor's too */
		*lock_fd = -1;
		ours = lock && air__llock(lock, false, NULL, &taken) == 0 && as_submitted(dir);
		air__free(lock);
		if (!ours) {
			air__lunlock(taken);
			return;
		}
	}
	air__lreserve_drop(dir);
	status = air__lstatus_new();
	if (status && air__lstatus_finish(status, AIR__L_INTERNAL_ERROR, "FAILED",
	                                  air__buf_cstr(why)) == AIR_OK) {
		air__lmlruns_finish(dir, "FAILED");
		air__lstatus_write(dir, status, true);
	}
	json_decref(status);
	air__lunlock(taken);
}

/* The idempotency record that the unfinished folder @tmp of run @id wrote,
 * removed with it. */
static void forget_record(const air__local *ws, const char *tmp, int64_t id)
{
	char *rpath = air__lpath(tmp, "run.json");
	json_t *rec = rpath ? air__lread_json(rpath) : NULL;
	const char *token = air__json_str(rec, "idempotency_token");
	char *record = token ? token_record(ws, token) : NULL;

	if (record && read_id(record) == id)
		unlink(record);
	air__free(record);
	json_decref(rec);
	air__free(rpath);
}

/* Under the state lock, no run folder is being built: a jobs/runs/.new-<id>
 * folder is what a submission killed half-way left, removed with the
 * idempotency record it may have written. *highest gets the highest id of
 * the runs there (0 when none). */
static void tidy_runs(const air__local *ws, int64_t *highest)
{
	char *runs = air__lpath(ws->dir, "jobs/runs");
	DIR *d = runs ? opendir(runs) : NULL;
	struct dirent *e;

	*highest = 0;
	while (d && (e = readdir(d)) != NULL) {
		int64_t id;
		char *path;

		if (air__parse_int64(e->d_name, &id) && id > *highest)
			*highest = id;
		if (!air__starts_with(e->d_name, ".new-"))
			continue;
		if ((path = air__lpath(runs, "%s", e->d_name)) != NULL) {
			if (air__parse_int64(e->d_name + 5, &id) && id > 0)
				forget_record(ws, path, id);
			air__lremove_tree(path);
		}
		air__free(path);
	}
	if (d)
		closedir(d);
	air__free(runs);
}

/* The records of new run @id are written without waiting for the disk (the
 * renames keep them whole for every process); once its supervisor runs,
 * they are synced, so that runs/submit returns with the run on disk
 * (docs/local.md, "Crashes and durability"). Best effort: a failure here
 * changes nothing for the run. */
static void make_durable(const air__local *ws, int64_t id, const char *record)
{
	char *dir = air__lrun_dir(ws->dir, id);
	char *paths[] = {dir ? air__lpath(dir, "run.json") : NULL,
	                 dir ? air__lpath(dir, "status.json") : NULL, dir,
	                 air__lpath(ws->dir, "jobs/runs"), record ? air__strdup(record) : NULL,
	                 record ? air__lpath(ws->dir, "idempotency") : NULL};

	air__lsync_all((const char *const *)paths, AIR__ARRAY_SIZE(paths));
	for (size_t i = 0; i < AIR__ARRAY_SIZE(paths); i++)
		air__free(paths[i]);
}

/* Whether @command_path and @token are a variant's of a sweep whose stop
 * mark says stopped (air_client_stop_sweep()): read under the state lock,
 * so that no variant starts once the stop is written. A plain rerun of a
 * variant's run shares its launch directory, not its key: not refused. */
static bool sweep_stopped(const air__local *ws, const char *command_path, const char *token)
{
	const char *tag;
	size_t base_len, tag_len;
	char *base, *name, *mark, *file;
	air__buf text = AIR__BUF_INIT;
	struct stat st;
	bool stopped = false;
	int fd;

	if (!air__sweep_launch_split(command_path, &base_len, &tag, &tag_len) ||
	    !air__sweep_token_in(token, tag, tag_len))
		return false;
	base = air__strndup(command_path, base_len);
	name = air__strndup(tag, tag_len);
	mark = base && name ? air__sweep_mark_path(base, name) : NULL;
	file = mark ? air__lws_file(ws, mark) : NULL;
	fd = file ? air__lws_open(ws, file, false, &st) : -1;
	if (fd >= 0 && air__lread_fd(fd, 4096, &text) == 0)
		stopped = air__sweep_mark_stopped(text.ptr, text.len);
	if (fd >= 0)
		close(fd);
	air__buf_dispose(&text);
	air__free(file);
	air__free(mark);
	air__free(name);
	air__free(base);
	return stopped;
}

/* Under the state lock: the existing run of the token, or a new run
 * (*created: its idempotency record, or "" without a token). */
static int create_run(air__lcall *c, lsub *s, const char *program, int64_t *id_out,
                      char **created)
{
	char *record = NULL, *dir = NULL, *tmp = NULL;
	json_t *vals = NULL;
	const char *missing = NULL;
	air__buf why = AIR__BUF_INIT;
	bool deleted = false, started = false;
	air__lstarting st;
	int64_t id = 0, highest;
	int lock_fd = -1, rc = AIR_OK, r;

	*id_out = 0;
	/* First: what a killed submission left goes, its token's record too. */
	tidy_runs(c->ws, &highest);
	if (s->token && (id = token_run(c->ws, s->token, &record, &deleted)) > 0) {
		if (deleted)
			rc = air__lreply_bad_request(c, "the run created with this idempotency token "
			                             "(%lld) was deleted", (long long)id);
		else
			*id_out = id;
		goto out;
	}
	if (sweep_stopped(c->ws, s->command_path, s->token)) {
		/* The platform has no such refusal: a sweep there sees its mark
		 * between submissions (docs/submit.md, "Stopping a sweep"). */
		rc = air__lreply_error(c, 409, "RESOURCE_CONFLICT", "the sweep of %s was stopped: "
		                       "its variants are no longer submitted", s->command_path);
		goto out;
	}
	r = air__lsecrets_resolve(c->ws, s->secret_spec, &vals, &missing, &why);
	if (r == AIR_ENOMEM) {
		rc = air__oom(c->err);
		goto out;
	}
	if (r != AIR_OK) {
		rc = air__lreply_bad_request(c, "%s", air__buf_cstr(&why));
		goto out;
	}
	/* As the pre-flight says (a submission may skip it): no node could
	 * start with such an environment. */
	air__buf_clear(&why);
	{
		char *path = NULL;

		if (air__local_check_env(s->env_vars, vals, &path, &why) != AIR_OK) {
			rc = path ? air__lreply_bad_request(c, "%s: %s", path, air__buf_cstr(&why))
			          : air__oom(c->err);
			air__free(path);
			goto out;
		}
	}
	if ((id = next_run_id(c->ws, highest)) <= 0) {
		rc = air__lreply_io_error(c, "cannot give out a run id");
		goto out;
	}
	dir = air__lrun_dir(c->ws->dir, id);
	tmp = air__sprintf("%s/jobs/runs/.new-%lld", c->ws->dir, (long long)id);
	if (!dir || !tmp) {
		rc = air__oom(c->err);
		goto out;
	}
	/* The supervisor loads while the run's records are written. */
	air__buf_clear(&why);
	if (begin_run_dir(tmp, &lock_fd) != 0) {
		rc = air__lreply_io_error(c, "cannot create the run's folder");
		goto out;
	}
	started = air__lspawn_start(c->ws, program, id, tmp, lock_fd, &st, &why) == AIR_OK;
	if (end_run_dir(c, s, id, tmp, dir, record) != 0) {
		int saved = errno;

		if (started)
			air__lspawn_abandon(&st, c->ctx);
		air__lunlock(lock_fd);
		lock_fd = -1;
		air__lremove_tree(tmp);
		errno = saved;
		rc = air__lreply_io_error(c, "cannot create the run's folder");
		goto out;
	}
	*id_out = id;
	*created = record ? record : air__strdup("");
	record = NULL;
	/* The run exists and is locked: the state lock is no longer needed for
	 * the start, but keeping it is simpler and short. */
	launch(c, started ? &st : NULL, &why, id, dir, &lock_fd, vals);
out:
	/* Closed, never unlocked: the lock belongs to the supervisor now (an
	 * unlock would release it for every holder of the description). */
	if (lock_fd >= 0)
		close(lock_fd);
	air__lsecrets_wipe(vals);
	air__buf_dispose(&why);
	air__free(record);
	air__free(dir);
	air__free(tmp);
	return rc;
}

/* A run with a code snapshot needs air-local-extract beside the supervisor
 * @program: PERMANENT when it is not there, as when the supervisor is not. */
static int extractor_there(air__lcall *c, const char *program)
{
	char *extractor = air__lextractor_beside(program);
	int rc = AIR_OK, missing;

	if (!extractor)
		return air__oom(c->err);
	if ((missing = air__lprogram_problem(extractor)) != 0)
		rc = air__fail(c->err, air__error_new(AIR_EUNSUPPORTED, AIR_KIND_PERMANENT,
		                                      "the local runtime cannot extract the code "
		                                      "snapshot: %s is not beside its supervisor "
		                                      "program %s (%s); install them together",
		                                      AIR__LOCAL_EXTRACTOR, program, strerror(missing)));
	air__free(extractor);
	return rc;
}

int air__lsubmit_run(air__lcall *c)
{
	lsub s;
	char *program = NULL, *lock = NULL, *runs = NULL, *created = NULL;
	int64_t id = 0;
	int rc = AIR_OK, fd = -1;

	memset(&s, 0, sizeof(s));
	/* What an earlier interrupted submission left to reap, if it ended. */
	air__lspawn_reap_left(c->ws);
	if (!(s.body = air__lbody_json(c, &rc)))
		return rc;
	if (!read_payload(c, &s, &rc))
		goto out;
	if (!air__lsupervisor_path(c->ws, &program)) {
		/* An installation problem, not a server's hiccup: PERMANENT. */
		char *why = air__lsupervisor_missing();
		rc = why ? air__fail(c->err, air__error_new(AIR_EUNSUPPORTED, AIR_KIND_PERMANENT, "%s",
		                                            why))
		         : air__oom(c->err);
		air__free(why);
		goto out;
	}
	if (s.code_archive && (rc = extractor_there(c, program)) != AIR_OK)
		goto out;
	runs = air__lpath(c->ws->dir, "jobs/runs");
	lock = air__lpath(c->ws->dir, ".lock");
	if (!runs || !lock) {
		rc = air__oom(c->err);
		goto out;
	}
	if (air__lmkdirs(runs, 0700) != 0) {
		rc = air__lreply_io_error(c, "cannot create the state directory");
		goto out;
	}
	air__lspread_below(runs); /* each run's folder where there is room (spread.c) */
	if (air__llock(lock, true, c->ctx, &fd) != 0) {
		rc = errno == EINTR ? air__ctx_check(c->ctx, "runs/submit", c->err)
		                    : air__lreply_io_error(c, "cannot lock the state directory");
		if (rc == AIR_OK) /* neither interrupted nor past the deadline */
			rc = air__lreply_io_error(c, "cannot lock the state directory");
		goto out;
	}
	rc = create_run(c, &s, program, &id, &created);
	air__lunlock(fd);
	if (created)
		make_durable(c->ws, id, *created ? created : NULL);
	if (rc == AIR_OK && c->reply->status == 0)
		rc = air__lreply_json(c, 200, json_pack("{s:I}", "run_id", (json_int_t)id));
out:
	lsub_dispose(&s);
	json_decref((json_t *)s.body);
	air__free(program);
	air__free(lock);
	air__free(runs);
	air__free(created);
	return rc;
}

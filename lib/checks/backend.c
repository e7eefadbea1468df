/*
 * backend.c: what the backend answers about the workload itself — the
 * checks of the backend's own kind (a local workspace: the secrets' local
 * values, this machine's GPUs and node limit; air__client_checks_path()),
 * and last the workspace's pre-flight validation, as a submission makes it
 * (its fail-open cases are skipped here: the submission would go on).
 */
#include "checks/checks.h"

#include <string.h>

/* The pre-flight body, built once, naming a launch directory under @base
 * that is never created. NULL when out of memory. */
static const json_t *body_for(air__checker *k, const char *base)
{
	char hex[17], *launch, *command;

	if (k->preflight_body)
		return k->preflight_body;
	if (air__launch_suffix(hex) != AIR_OK)
		memcpy(hex, "0000000000000000", sizeof(hex));
	launch = air__launch_dir(base, k->w.experiment, k->w.mlflow_run_name, hex);
	command = launch ? air__sprintf("%s/command.sh", launch) : NULL;
	if (command)
		k->preflight_body = air__preflight_body(&k->w, command);
	air__free(command);
	air__free(launch);
	return k->preflight_body;
}

/* The static name of a check a backend reports, or NULL for a name this
 * library does not know (left out). */
static const char *known_name(const char *name)
{
	static const char *const names[] = {"local_secret", "local_gpus", "local_node_limit"};

	for (size_t i = 0; name && i < AIR__ARRAY_SIZE(names); i++)
		if (!strcmp(name, names[i]))
			return names[i];
	return NULL;
}

static int32_t status_of(const char *s)
{
	for (int32_t st = AIR_CHECK_PASS; s && st <= AIR_CHECK_SKIPPED; st++)
		if (!strcmp(s, air_check_status_name(st)))
			return st;
	return 0;
}

int air__check_backend(air__checker *k)
{
	const char *path = air__client_checks_path(k->c);
	const json_t *body;
	json_t *reply = NULL, *c;
	air_error *e = NULL;
	size_t i;
	int rc = AIR_OK;

	if (!path)
		return AIR_OK;
	/* Looked up here without a report: the checks that need it report it. */
	if (!k->user_base && !k->base_error)
		air__client_user_base(k->c, &k->ctx, &k->user_base, &k->base_error);
	if (!(body = body_for(k, k->user_base ? k->user_base : "/Workspace")))
		return air__oom(k->err);
	if (air__api_json(k->c, &k->ctx, "POST", path, NULL, body, &reply, NULL, &e) != AIR_OK)
		return air__fail(k->err, air__error_prefix(e, "the checks of the workspace"));
	json_array_foreach(json_object_get(reply, "checks"), i, c) {
		const char *name = known_name(air__json_str(c, "name"));
		int32_t status = status_of(air__json_str(c, "status"));
		if (rc == AIR_OK && name && status)
			rc = air__check_add(k, name, status, air__json_nonempty(c, "field"), "%s",
			                    air__json_str(c, "message") ? air__json_str(c, "message") : "");
	}
	k->replaced = json_incref(json_object_get(reply, "replaces"));
	k->skips = json_incref(json_object_get(reply, "skips"));
	json_decref(reply);
	return rc;
}

/* The pre-flight call failed with @e (taken). */
static int preflight_failed(air__checker *k, air_error *e)
{
	int rc;

	if (air__check_stopped(k, e))
		return air__check_request_failed(k, "preflight", NULL, e, "");
	if (air__preflight_fails_open(e))
		rc = air__check_add(k, "preflight", AIR_CHECK_SKIPPED, NULL, "the workspace's "
		                    "pre-flight validation is not available (%s); runs/submit "
		                    "validates the run instead", air_error_message(e));
	else
		rc = air__check_add(k, "preflight", AIR_CHECK_FAIL, NULL, "the workspace's pre-flight "
		                    "validation failed: %s", air_error_message(e));
	air_error_free(e);
	return rc;
}

/* Whether a check before the pre-flight already failed on @field. */
static bool failed_before(const air__checker *k, const char *field)
{
	for (size_t i = 0; field && i < air_check_report_count(k->report); i++) {
		const air_check *c = air_check_report_get(k->report, i);
		if (air_check_status(c) == AIR_CHECK_FAIL && air_check_field(c) &&
		    !strcmp(air_check_field(c), field))
			return true;
	}
	return false;
}

int air__check_preflight(air__checker *k)
{
	size_t repeated = 0;
	const json_t *body;
	json_t *reply = NULL, *errors, *f;
	air_error *e = NULL;
	size_t i;
	int rc;

	if (air__check_not_here(k, "preflight", NULL, &rc) ||
	    !air__check_user_base(k, "preflight", NULL, &rc))
		return rc;
	if (!(body = body_for(k, k->user_base)))
		return air__oom(k->err);
	if (air__preflight_call(k->c, &k->ctx, body, &reply, &e) != AIR_OK)
		return preflight_failed(k, e);
	errors = json_object_get(reply, "errors");
	if (!json_is_array(errors) || !json_array_size(errors))
		rc = air__check_add(k, "preflight", AIR_CHECK_PASS, NULL,
		                    "the workspace accepts the configuration");
	json_array_foreach(errors, i, f) {
		air__buf line = AIR__BUF_INIT;
		/* one line, whatever the server wrote */
		air__buf_put_one_line(&line, air__json_str(f, "message") ? air__json_str(f, "message")
		                                                          : "(no message)");
		/* What a check above already reported fails the report once. */
		if (failed_before(k, air__json_nonempty(f, "path"))) {
			repeated++;
			air__buf_dispose(&line);
			continue;
		}
		if (rc == AIR_OK)
			rc = air__buf_oom(&line)
			         ? air__oom(k->err)
			         : air__check_add(k, "preflight", AIR_CHECK_FAIL,
			                          air__json_nonempty(f, "path"),
			                          "the workspace rejects it: %s", air__buf_cstr(&line));
		air__buf_dispose(&line);
	}
	if (rc == AIR_OK && repeated && repeated == json_array_size(errors))
		rc = air__check_add(k, "preflight", AIR_CHECK_SKIPPED, NULL,
		                    "the workspace rejects only what the checks above report");
	json_decref(reply);
	return rc;
}

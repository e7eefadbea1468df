/*
 * experiment.c: the workload's permissions on the MLflow experiment its run
 * writes to (docs/submit.md#the-experiments-permissions). The grants travel with the run for the
 * job (access_control_list of runs/submit); once the run is submitted, the
 * same grants are made on the experiment, "<mlflow_experiment_directory or
 * /Users/<me>>/<experiment_name>", created first when the run has not
 * created it yet, with the levels mapped to the experiment's. Any failure is
 * a warning of the submission: the run stands.
 */
#include "submit/submit.h"

#include <string.h>

#define GET_BY_NAME_PATH "/api/2.0/mlflow/experiments/get-by-name"
#define CREATE_PATH "/api/2.0/mlflow/experiments/create"
#define PERMISSIONS_PREFIX "/api/2.0/permissions/experiments/"

char *air__experiment_path(const air__workload *w, const char *user_name)
{
	const char *dir = w->mlflow_experiment_directory;
	size_t n;

	if (!dir)
		return air__sprintf("/Users/%s/%s", user_name, w->experiment);
	for (n = strlen(dir); n > 1 && dir[n - 1] == '/'; n--)
		;
	return air__sprintf("%.*s/%s", (int)n, dir, w->experiment);
}

const char *air__experiment_level(const char *job_level)
{
	static const char *const map[][2] = {
		{"CAN_VIEW", "CAN_READ"},     {"CAN_MANAGE_RUN", "CAN_EDIT"},
		{"CAN_MANAGE", "CAN_MANAGE"}, {"IS_OWNER", "CAN_MANAGE"},
	};

	for (size_t i = 0; job_level && i < AIR__ARRAY_SIZE(map); i++)
		if (!air__strcasecmp(job_level, map[i][0]))
			return map[i][1];
	return NULL;
}

bool air__experiment_unsupported(const air_error *e)
{
	const char *code = air_error_server_code(e);

	return code && (!strcmp(code, "ENDPOINT_NOT_FOUND") || !strcmp(code, "FEATURE_DISABLED"));
}

int air__experiment_find(air_client *c, const air__ctx *ctx, const char *path, char **id,
                         air_error **err)
{
	air__buf q = AIR__BUF_INIT;
	json_t *reply = NULL;
	const char *v;
	int rc;

	*id = NULL;
	air__buf_query(&q, "experiment_name", path);
	rc = air__buf_oom(&q) ? air__oom(err)
	                      : air__api_json(c, ctx, "GET", GET_BY_NAME_PATH, air__buf_cstr(&q),
	                                      NULL, &reply, NULL, err);
	air__buf_dispose(&q);
	if (rc != AIR_OK)
		return rc;
	v = air__json_nonempty(json_object_get(reply, "experiment"), "experiment_id");
	if (!v)
		rc = air__failf(err, AIR_EPROTO, 0, "experiments/get-by-name replied without an "
		                "experiment_id for %s", path);
	else if (!(*id = air__strdup(v)))
		rc = air__oom(err);
	json_decref(reply);
	return rc;
}

/* The experiment's id, the experiment created when the run has not made it
 * yet (one the run makes meanwhile is found again). */
static int find_or_create(air_client *c, const air__ctx *ctx, const air__workload *w,
                          const char *path, char **id, air_error **err)
{
	air_error *e = NULL;
	json_t *body, *reply = NULL;
	const char *v;
	int rc = air__experiment_find(c, ctx, path, id, &e);

	if (rc != AIR_ENOTFOUND)
		return rc == AIR_OK ? AIR_OK : air__fail(err, e);
	air_error_free(e);
	e = NULL;
	body = json_pack("{s:s}", "name", path);
	if (!body || (w->mlflow_artifact_location &&
	              !air__json_set_str(body, "artifact_location", w->mlflow_artifact_location))) {
		json_decref(body);
		return air__oom(err);
	}
	rc = air__api_json(c, ctx, "POST", CREATE_PATH, NULL, body, &reply, NULL, &e);
	json_decref(body);
	if (rc == AIR_ECONFLICT) {
		air_error_free(e);
		return air__experiment_find(c, ctx, path, id, err);
	}
	if (rc != AIR_OK)
		return air__fail(err, e);
	v = air__json_nonempty(reply, "experiment_id");
	rc = v && (*id = air__strdup(v)) ? AIR_OK
	     : v ? air__oom(err)
	         : air__failf(err, AIR_EPROTO, 0, "experiments/create replied without an "
	                      "experiment_id for %s", path);
	json_decref(reply);
	return rc;
}

/* The grants of @w with experiment levels; the first level without one in
 * *unmapped. */
static json_t *experiment_acl(const air__workload *w, const char **unmapped)
{
	json_t *acl = json_array();

	*unmapped = NULL;
	for (size_t i = 0; acl && i < w->n_grants; i++) {
		const air__grant *g = &w->grants[i];
		const char *level = air__experiment_level(g->level);
		json_t *entry;

		if (!level) {
			if (!*unmapped)
				*unmapped = g->level;
			continue;
		}
		entry = json_pack("{s:s, s:s}", air__principal_key(g->principal_type), g->principal,
		                  "permission_level", level);
		if (!entry || json_array_append_new(acl, entry) != 0) {
			json_decref(acl);
			return NULL;
		}
	}
	return acl;
}

int air__experiment_grant(air_client *c, const air__ctx *ctx, const air__workload *w,
                          air__buf *warnings)
{
	char *user = NULL, *path = NULL, *id = NULL, *url = NULL;
	const char *unmapped;
	json_t *body = NULL, *acl;
	air_error *e = NULL;
	int rc;

	if (!w->n_grants)
		return AIR_OK;
	if (!(acl = experiment_acl(w, &unmapped)))
		return AIR_ENOMEM;
	if (unmapped)
		air__buf_printf(warnings, "permission level %s has no MLflow experiment counterpart "
		                "(CAN_VIEW, CAN_MANAGE_RUN, CAN_MANAGE, IS_OWNER have): it is granted "
		                "on the job only\n", unmapped);
	rc = w->mlflow_experiment_directory ? AIR_OK : air__client_user_name(c, ctx, &user, &e);
	if (rc == AIR_OK && !(path = air__experiment_path(w, user)))
		rc = AIR_ENOMEM;
	if (rc == AIR_OK && json_array_size(acl) > 0)
		rc = find_or_create(c, ctx, w, path, &id, &e);
	if (rc == AIR_OK && id) {
		body = json_pack("{s:O}", "access_control_list", acl);
		url = air__sprintf(PERMISSIONS_PREFIX "%s", id);
		rc = body && url ? air__api_json(c, ctx, "PATCH", url, NULL, body, NULL, NULL, &e)
		                 : AIR_ENOMEM;
	}
	if (rc != AIR_OK && rc != AIR_ENOMEM) {
		if (air__experiment_unsupported(e))
			air__client_debug(c, AIR_DEBUG_INFO, "no experiment permissions here: %s",
			                  air_error_message(e));
		else
			air__buf_printf(warnings, "the permissions were not granted on the MLflow "
			                "experiment %s: %s\n", path ? path : w->experiment,
			                air_error_message(e));
		rc = AIR_OK;
	}
	air_error_free(e);
	json_decref(body);
	json_decref(acl);
	air__free(url);
	air__free(id);
	air__free(path);
	air__free(user);
	return rc;
}

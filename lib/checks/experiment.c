/*
 * experiment.c: whether this identity may grant the workload's permissions
 * on the MLflow experiment its run writes to, as the submission does after
 * runs/submit (lib/submit/experiment.c): the experiment is looked up by name
 * and its permissionLevels list what may be granted on it.
 * One entry per grant; an experiment that does not exist yet is created by
 * the submission, whose creator may grant every level.
 */
#include "checks/checks.h"

#include <stdio.h>
#include <string.h>

#define PERMISSIONS_PREFIX "/api/2.0/permissions/experiments/"

/* The levels the identity may grant on experiment @id ({level: true}), or
 * NULL with *e. */
static json_t *grantable(air__checker *k, const char *id, air_error **e)
{
	char *path = air__sprintf(PERMISSIONS_PREFIX "%s/permissionLevels", id);
	json_t *reply = NULL, *set = json_object(), *v;
	size_t i;

	if (!path || !set ||
	    air__api_json(k->c, &k->ctx, "GET", path, NULL, NULL, &reply, NULL, e) != AIR_OK) {
		if (!*e)
			*e = air__error_new(AIR_ENOMEM, 0, "out of memory");
		json_decref(set);
		set = NULL;
	}
	json_array_foreach(json_object_get(reply, "permission_levels"), i, v) {
		const char *level = air__json_str(v, "permission_level");
		if (set && level && json_object_set_new(set, level, json_true()) != 0) {
			json_decref(set);
			set = NULL;
			*e = air__error_new(AIR_ENOMEM, 0, "out of memory");
		}
	}
	json_decref(reply);
	air__free(path);
	return set;
}

/* "CAN_READ, CAN_EDIT" of @set. air__free(). */
static char *levels_text(const json_t *set)
{
	air__buf b = AIR__BUF_INIT;
	const char *key;
	json_t *v;

	json_object_foreach((json_t *)set, key, v)
		air__buf_printf(&b, "%s%s", b.len ? ", " : "", key);
	return air__buf_oom(&b) ? NULL : air__buf_detach(&b);
}

/* The entry of grant @i: what it maps to and whether it may be granted
 * (@levels NULL: the experiment does not exist yet). */
static int grant_check(air__checker *k, size_t i, const char *path, const json_t *levels)
{
	const air__grant *g = &k->w.grants[i];
	const char *level = air__experiment_level(g->level);
	char field[48], *may;
	int rc;

	snprintf(field, sizeof(field), "permissions[%zu]", i);
	if (!level)
		return air__check_add(k, "experiment_permissions", AIR_CHECK_WARN, field,
		                      "%s has no MLflow experiment counterpart: %s gets it on the job "
		                      "only, not on experiment %s", g->level, g->principal, path);
	if (!levels)
		return air__check_add(k, "experiment_permissions", AIR_CHECK_PASS, field,
		                      "experiment %s does not exist yet: the submission creates it, and "
		                      "its creator may grant %s (%s) to %s", path, level, g->level,
		                      g->principal);
	if (json_object_get(levels, level))
		return air__check_add(k, "experiment_permissions", AIR_CHECK_PASS, field,
		                      "%s (%s) may be granted to %s on experiment %s", level, g->level,
		                      g->principal, path);
	if (!(may = levels_text(levels)))
		return air__oom(k->err);
	rc = air__check_add(k, "experiment_permissions", AIR_CHECK_FAIL, field,
	                    "%s (%s) may not be granted to %s on experiment %s by this identity "
	                    "(it may grant: %s)", level, g->level, g->principal, path,
	                    *may ? may : "nothing");
	air__free(may);
	return rc;
}

int air__check_experiment(air__checker *k)
{
	const char *field = "permissions";
	char *path = NULL, *id = NULL;
	json_t *levels = NULL;
	air_error *e = NULL;
	int rc = AIR_OK, found;

	if (!k->w.n_grants || air__check_not_here(k, "experiment_permissions", field, &rc))
		return rc;
	if (!k->w.mlflow_experiment_directory &&
	    !air__check_user_name(k, "experiment_permissions", field, &rc))
		return rc;
	if (!(path = air__experiment_path(&k->w, k->user_name)))
		return air__oom(k->err);
	found = air__experiment_find(k->c, &k->ctx, path, &id, &e);
	if (found == AIR_OK && !(levels = grantable(k, id, &e)) && air_error_http_status(e) == 403)
		rc = air__check_add(k, "experiment_permissions", AIR_CHECK_FAIL, field,
		                    "the permissions of experiment %s may not be managed by this "
		                    "identity: %s", path, air_error_message(e));
	else if ((found == AIR_OK && !levels) || (found != AIR_OK && found != AIR_ENOTFOUND)) {
		rc = air__experiment_unsupported(e)
		         ? air__check_add(k, "experiment_permissions", AIR_CHECK_SKIPPED, field,
		                          "the workspace has no MLflow experiment permissions: %s",
		                          air_error_message(e))
		         : air__check_request_failed(k, "experiment_permissions", field,
		                                     air__error_clone(e),
		                                     "the experiment's permissions cannot be read");
	} else {
		for (size_t i = 0; rc == AIR_OK && i < k->w.n_grants; i++)
			rc = grant_check(k, i, path, levels);
	}
	air_error_free(e);
	json_decref(levels);
	air__free(id);
	air__free(path);
	return rc;
}

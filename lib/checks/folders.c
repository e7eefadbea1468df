/*
 * folders.c: the folders a submission writes to exist or can be created:
 * the artifact base (<user base>/.air: launch directories and workspace
 * snapshots), the volume of code_source.remote_volume, and the folder of the
 * MLflow experiment (mlflow_experiment_directory, else the user's home).
 * A folder that does not exist passes when its nearest existing parent is a
 * folder: the submission creates the rest (workspace/mkdirs).
 */
#include "checks/checks.h"

#include <string.h>

/* Report whether @path exists, or which existing folder it would be
 * created in (get-status, then its parents). */
static int folder(air__checker *k, const char *name, const char *field, const char *what,
                  const char *path)
{
	char *p = air__strdup(path), *type = NULL, *slash;
	air_error *e = NULL;
	int rc;

	if (!p)
		return air__oom(k->err);
	while ((rc = air__ws_get_status(k->c, &k->ctx, p, false, &type, &e)) == AIR_ENOTFOUND &&
	       (slash = strrchr(p, '/')) && slash != p)
		*slash = '\0';
	if (rc == AIR_ENOTFOUND)
		rc = air__check_add(k, name, AIR_CHECK_FAIL, field, "%s %s cannot be created: none of "
		                    "its folders exists", what, path);
	else if (rc == AIR_OK && strcmp(type, "DIRECTORY") != 0)
		rc = air__check_add(k, name, AIR_CHECK_FAIL, field, "%s %s cannot be created: %s is a "
		                    "%s, not a folder", what, path, p, *type ? type : "file");
	else if (rc == AIR_OK && !strcmp(p, path))
		rc = air__check_add(k, name, AIR_CHECK_PASS, field, "%s %s exists", what, path);
	else if (rc == AIR_OK)
		rc = air__check_add(k, name, AIR_CHECK_PASS, field, "%s %s does not exist yet: the "
		                    "submission creates it in %s", what, path, p);
	else if (air_error_http_status(e) == 403)
		rc = air__check_add(k, name, AIR_CHECK_FAIL, field, "%s %s: %s", what, path,
		                    air_error_message(e));
	else {
		rc = air__check_request_failed(k, name, field, e, what);
		e = NULL;
	}
	air_error_free(e);
	air__free(type);
	air__free(p);
	return rc;
}

/* "/Volumes/<catalog>/<schema>/<volume>" of a remote_volume path. */
static char *volume_root(const char *path)
{
	const char *p = path;

	for (int i = 0; i < 4 && p; i++)
		p = strchr(p + 1, '/');
	return p ? air__strndup(path, (size_t)(p - path)) : air__strdup(path);
}

static int volume(air__checker *k)
{
	const char *field = "code_source.remote_volume";
	char *root;
	air_error *e = NULL;
	int rc;

	if (!k->w.remote_volume)
		return AIR_OK;
	if (air__check_not_here(k, "snapshot_volume", field, &rc))
		return rc;
	if (!(root = volume_root(k->w.remote_volume)))
		return air__oom(k->err);
	rc = air__volume_directory_exists(k->c, &k->ctx, root, &e);
	if (rc == AIR_OK)
		rc = air__check_add(k, "snapshot_volume", AIR_CHECK_PASS, field, "volume %s exists",
		                    root);
	else if (rc == AIR_ENOTFOUND)
		rc = air__check_add(k, "snapshot_volume", AIR_CHECK_FAIL, field, "volume %s does not "
		                    "exist (volumes are created in Unity Catalog, not by a submission)",
		                    root);
	else if (air_error_http_status(e) == 403)
		rc = air__check_add(k, "snapshot_volume", AIR_CHECK_FAIL, field, "%s",
		                    air_error_message(e));
	else {
		rc = air__check_request_failed(k, "snapshot_volume", field, e,
		                               "the volume cannot be looked up");
		e = NULL;
	}
	air_error_free(e);
	air__free(root);
	return rc;
}

int air__check_folders(air__checker *k)
{
	char *path;
	int rc;

	if (!air__check_not_here(k, "artifact_base", NULL, &rc) &&
	    air__check_user_base(k, "artifact_base", NULL, &rc)) {
		if (!(path = air__sprintf("%s/.air", k->user_base)))
			return air__oom(k->err);
		rc = folder(k, "artifact_base", NULL, "the artifact base", path);
		air__free(path);
	}
	if (rc == AIR_OK)
		rc = volume(k);
	if (rc != AIR_OK)
		return rc;
	if (k->w.mlflow_experiment_directory)
		return air__check_not_here(k, "experiment_parent", "mlflow_experiment_directory", &rc)
		           ? rc
		           : folder(k, "experiment_parent", "mlflow_experiment_directory",
		                    "the experiment's folder", k->w.mlflow_experiment_directory);
	/* The experiment goes to the user's home. */
	if (air__check_not_here(k, "experiment_parent", "experiment_name", &rc) ||
	    !air__check_user_name(k, "experiment_parent", "experiment_name", &rc))
		return rc;
	if (!(path = air__sprintf("/Users/%s", k->user_name)))
		return air__oom(k->err);
	rc = folder(k, "experiment_parent", "experiment_name", "the experiment's folder", path);
	air__free(path);
	return rc;
}

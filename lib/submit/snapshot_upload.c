/* snapshot_upload.c: where the code snapshot goes: the
 * workspace (import-file, parent directory created on demand) or a Unity
 * Catalog volume (Files API, parents created implicitly). */
#include "submit/snapshot.h"

#include "submit/submit.h"

static bool on_volume(const char *path)
{
	return air__starts_with(path, "/Volumes/");
}

int air__snapshot_find(air_client *c, const air__ctx *ctx, const char *path, bool *exists,
                       air_error **err)
{
	char *type = NULL;
	int rc;

	*exists = false;
	if (on_volume(path))
		return air__volume_file_exists(c, ctx, path, exists, err);
	rc = air__ws_get_status(c, ctx, path, true, &type, err);
	air__free(type);
	if (rc == AIR_ENOTFOUND)
		return AIR_OK;
	*exists = rc == AIR_OK;
	return rc;
}

int air__snapshot_put(air_client *c, const air__ctx *ctx, const air__snapshot *s, const char *path,
                      air_error **err)
{
	if (on_volume(path))
		return air__volume_put(c, ctx, path, s->data.ptr, s->data.len, err);
	return air__ws_import(c, ctx, path, s->data.ptr, s->data.len, err);
}

/* snapshot_upload.c: where the code snapshot goes: the
 * workspace (import-file, parent directory created on demand) or a Unity
 * Catalog volume (Files API, parents created implicitly). */
#include "submit/snapshot.h"

#include <string.h>

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
                      bool overwrite, air_error **err)
{
	/* Read from the archive's file as the upload goes: never in memory. */
	air__upload up = {path, NULL, (size_t)s->archive.size, air__archive_read_at,
	                  (void *)&s->archive};

	if (on_volume(path))
		return air__volume_put(c, ctx, &up, overwrite, err);
	return air__ws_import(c, ctx, &up, overwrite, err);
}

char *air__snapshot_content_name(const air__snapshot *s)
{
	size_t n = strlen(s->archive_name) - strlen(".tar.gz");

	return air__sprintf("%.*s_%.16s.tar.gz", (int)n, s->archive_name, s->archive.sha256);
}

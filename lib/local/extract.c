/*
 * extract.c: the code snapshot of a local run, extracted as a node would:
 * the gzip-compressed tar into <run>/code. Entries must be relative, without
 * "..", and may not write through symbolic links; the archive's top-level
 * directory becomes $CODE_SOURCE_PATH.
 */
#include "local/local_priv.h"
#include "core/core_archive.h"

#include <string.h>

/* A relative path without "." or ".." segments and without NUL. */
static bool clean_relative(const char *p)
{
	if (!p || !*p || p[0] == '/')
		return false;
	while (*p) {
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - p) : strlen(p);

		if (n == 2 && p[0] == '.' && p[1] == '.')
			return false;
		p += n;
		while (*p == '/')
			p++;
	}
	return true;
}

/* @dest + "/" + @rel; NULL on OOM. */
static char *under(const char *dest, const char *rel)
{
	while (rel[0] == '.' && rel[1] == '/')
		rel += 2;
	return air__sprintf("%s/%s", dest, rel);
}

static int copy_data(struct archive *in, struct archive *out)
{
	const void *buf;
	size_t size;
	la_int64_t off;
	int r;

	while ((r = air__la.archive_read_data_block(in, &buf, &size, &off)) == ARCHIVE_OK)
		if (air__la.archive_write_data_block(out, buf, size, off) != ARCHIVE_OK)
			return ARCHIVE_FATAL;
	return r == ARCHIVE_EOF ? ARCHIVE_OK : r;
}

/* The first path segment of @p (its top-level directory), or NULL. */
static char *first_segment(const char *p)
{
	const char *slash;

	while (p[0] == '.' && p[1] == '/')
		p += 2;
	slash = strchr(p, '/');
	return slash && slash > p ? air__strndup(p, (size_t)(slash - p)) : NULL;
}

int air__lextract(const char *archive, const char *dest, char **top, air__buf *why)
{
	struct archive *in, *out;
	struct archive_entry *e;
	int rc = AIR_OK, r;

	*top = NULL;
	if (!air__libarchive_load(why)) {
		air__buf_puts(why, " (needed to extract the code snapshot)");
		return AIR_EUNSUPPORTED;
	}
	in = air__la.archive_read_new();
	out = air__la.archive_write_disk_new();
	if (!in || !out) {
		air__la.archive_read_free(in);
		air__la.archive_write_free(out);
		return AIR_ENOMEM;
	}
	air__la.archive_read_support_filter_all(in);
	air__la.archive_read_support_format_tar(in);
	/* Entry names are checked here (the state directory may itself contain
	 * ".."); writing through a symbolic link is refused by libarchive. */
	air__la.archive_write_disk_set_options(out, ARCHIVE_EXTRACT_TIME | ARCHIVE_EXTRACT_PERM |
	                                        ARCHIVE_EXTRACT_SECURE_SYMLINKS);
	if (air__lmkdirs(dest, 0700) != 0) {
		air__buf_printf(why, "cannot create %s", dest);
		rc = AIR_EIO;
	} else if (air__la.archive_read_open_filename(in, archive, 65536) != ARCHIVE_OK) {
		air__buf_printf(why, "cannot read %s: %s", archive, air__la.archive_error_string(in));
		rc = AIR_ESNAPSHOT;
	}
	while (rc == AIR_OK && (r = air__la.archive_read_next_header(in, &e)) != ARCHIVE_EOF) {
		const char *name = air__la.archive_entry_pathname(e), *link = air__la.archive_entry_hardlink(e);
		char *path = NULL, *target = NULL;

		if (r != ARCHIVE_OK && r != ARCHIVE_WARN) {
			air__buf_printf(why, "%s: %s", archive, air__la.archive_error_string(in));
			rc = AIR_ESNAPSHOT;
			break;
		}
		if (!clean_relative(name) || (link && !clean_relative(link))) {
			air__buf_printf(why, "%s: the entry %s leaves the snapshot's directory", archive,
			                name ? name : "(unnamed)");
			rc = AIR_ESNAPSHOT;
			break;
		}
		if (!*top)
			*top = first_segment(name);
		path = under(dest, name);
		target = link ? under(dest, link) : NULL;
		if (!path || (link && !target)) {
			rc = AIR_ENOMEM;
		} else {
			air__la.archive_entry_copy_pathname(e, path);
			if (target)
				air__la.archive_entry_copy_hardlink(e, target);
			if (air__la.archive_write_header(out, e) != ARCHIVE_OK ||
			    (air__la.archive_entry_size(e) > 0 && copy_data(in, out) != ARCHIVE_OK) ||
			    air__la.archive_write_finish_entry(out) != ARCHIVE_OK) {
				air__buf_printf(why, "cannot extract %s: %s", name, air__la.archive_error_string(out));
				rc = AIR_ESNAPSHOT;
			}
		}
		air__free(path);
		air__free(target);
	}
	air__la.archive_read_free(in);
	air__la.archive_write_free(out);
	if (rc != AIR_OK) {
		air__free(*top);
		*top = NULL;
	}
	return rc;
}

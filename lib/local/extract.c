/*
 * extract.c: the code snapshot of a local run, extracted as a node would:
 * the gzip-compressed tar into <run>/code. Entries must be relative, without
 * "." or ".." segments, and may not write through symbolic links (a link in
 * the snapshot may point anywhere: the snapshot is the workload's own); the
 * archive's top-level directory becomes $CODE_SOURCE_PATH.
 */
#include "local/local_priv.h"
#include "core/core_archive.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* @p past its leading "./" segments (tar's way of naming entries). */
static const char *past_dot_slash(const char *p)
{
	while (p[0] == '.' && p[1] == '/')
		p += 2;
	return p;
}

/* A relative path without "." or ".." segments (past leading "./") and
 * without NUL. */
static bool clean_relative(const char *p)
{
	if (!p || !*p || p[0] == '/')
		return false;
	p = past_dot_slash(p);
	while (*p == '/')
		p++;
	while (*p) {
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - p) : strlen(p);

		if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		p += n;
		while (*p == '/')
			p++;
	}
	return true;
}

/* "./" + @rel, relative to the snapshot's folder (the working directory
 * while it is extracted); NULL on OOM. */
static char *under(const char *rel)
{
	return air__sprintf("./%s", past_dot_slash(rel));
}

/* Copy the entry's data; on failure *@err is the failing side's error. */
static int copy_data(struct archive *in, struct archive *out, const char **err)
{
	const void *buf;
	size_t size;
	la_int64_t off;
	int r;

	while ((r = air__la.archive_read_data_block(in, &buf, &size, &off)) == ARCHIVE_OK)
		if (air__la.archive_write_data_block(out, buf, size, off) != ARCHIVE_OK) {
			*err = air__la.archive_error_string(out);
			return ARCHIVE_FATAL;
		}
	if (r != ARCHIVE_EOF)
		*err = air__la.archive_error_string(in);
	return r == ARCHIVE_EOF ? ARCHIVE_OK : r;
}

/* The first path segment of @p (its top-level directory), or NULL. */
static char *first_segment(const char *p)
{
	const char *slash;

	p = past_dot_slash(p);
	slash = strchr(p, '/');
	return slash && slash > p ? air__strndup(p, (size_t)(slash - p)) : NULL;
}

/* Extract entry @e of @in to @out, named @name (checked) and linked to
 * @link (checked, or NULL); AIR_OK, or the reason in @why. */
static int extract_entry(struct archive *in, struct archive *out, struct archive_entry *e,
                         const char *name, const char *link, air__buf *why)
{
	char *path = under(name), *target = link ? under(link) : NULL;
	const char *err = NULL;
	int rc = AIR_OK;

	if (!path || (link && !target)) {
		rc = AIR_ENOMEM;
	} else {
		air__la.archive_entry_copy_pathname(e, path);
		if (target)
			air__la.archive_entry_copy_hardlink(e, target);
		if (air__la.archive_write_header(out, e) != ARCHIVE_OK ||
		    (air__la.archive_entry_size(e) > 0 && copy_data(in, out, &err) != ARCHIVE_OK) ||
		    air__la.archive_write_finish_entry(out) != ARCHIVE_OK) {
			if (!err)
				err = air__la.archive_error_string(out);
			air__buf_printf(why, "cannot extract %s: %s", name, err ? err : "unknown error");
			rc = AIR_ESNAPSHOT;
		}
	}
	air__free(path);
	air__free(target);
	return rc;
}

/* Every entry of the open @in into the working directory; *top as for
 * air__lextract(). */
static int extract_all(const char *archive, struct archive *in, struct archive *out, char **top,
                       air__buf *why)
{
	struct archive_entry *e;
	int rc = AIR_OK, r;

	while (rc == AIR_OK && (r = air__la.archive_read_next_header(in, &e)) != ARCHIVE_EOF) {
		char *name, *link;

		if (r != ARCHIVE_OK && r != ARCHIVE_WARN) {
			air__buf_printf(why, "%s: %s", archive, air__la.archive_error_string(in));
			return AIR_ESNAPSHOT;
		}
		/* Copies: the entry's own strings go when its names are replaced. */
		name = air__strdup(air__la.archive_entry_pathname(e) ? air__la.archive_entry_pathname(e)
		                                                    : "");
		link = air__la.archive_entry_hardlink(e) ? air__strdup(air__la.archive_entry_hardlink(e))
		                                         : NULL;
		if (!name || (air__la.archive_entry_hardlink(e) && !link)) {
			rc = AIR_ENOMEM;
		} else if (!clean_relative(name) || (link && !clean_relative(link))) {
			air__buf_printf(why, "%s: the entry %s leaves the snapshot's directory", archive,
			                *name ? name : "(unnamed)");
			rc = AIR_ESNAPSHOT;
		} else {
			if (!*top)
				*top = first_segment(name);
			rc = extract_entry(in, out, e, name, link, why);
		}
		air__free(name);
		air__free(link);
	}
	return rc;
}

int air__lextract(const char *archive, const char *dest, char **top, air__buf *why)
{
	struct archive *in, *out;
	int rc = AIR_OK, here = -1, there = -1;

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
	/* Entry names are checked here; writing through a symbolic link is
	 * refused by libarchive, which looks at every part of the path it is
	 * given: relative to @dest, so that links above it (a state directory
	 * reached through one) are not its business. */
	air__la.archive_write_disk_set_options(out, ARCHIVE_EXTRACT_TIME | ARCHIVE_EXTRACT_PERM |
	                                        ARCHIVE_EXTRACT_SECURE_SYMLINKS);
	if (air__lmkdirs(dest, 0700) != 0 ||
	    (there = open(dest, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		air__buf_printf(why, "cannot create %s: %s", dest, strerror(errno));
		rc = AIR_EIO;
	} else if (air__la.archive_read_open_filename(in, archive, 65536) != ARCHIVE_OK) {
		air__buf_printf(why, "cannot read %s: %s", archive, air__la.archive_error_string(in));
		rc = AIR_ESNAPSHOT;
	} else if ((here = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 || fchdir(there) != 0) {
		air__buf_printf(why, "cannot enter %s: %s", dest, strerror(errno));
		rc = AIR_EIO;
	} else {
		rc = extract_all(archive, in, out, top, why);
		if (fchdir(here) != 0 && rc == AIR_OK) {
			air__buf_printf(why, "cannot return to the working directory: %s",
			                strerror(errno));
			rc = AIR_EIO;
		}
	}
	if (here >= 0)
		close(here);
	if (there >= 0)
		close(there);
	air__la.archive_read_free(in);
	air__la.archive_write_free(out);
	if (rc != AIR_OK) {
		air__free(*top);
		*top = NULL;
	}
	return rc;
}

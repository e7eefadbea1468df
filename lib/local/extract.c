/*
 * extract.c: the code snapshot of a local run, extracted as a node would:
 * the gzip-compressed tar into <run>/code. Entries must be relative, without
 * "..", and may not write through symbolic links; the archive's top-level
 * directory becomes $CODE_SOURCE_PATH.
 */
#include "local/local_priv.h"

#include <archive.h>
#include <archive_entry.h>
#include <dlfcn.h>
#include <string.h>

/* libarchive is loaded when a snapshot is extracted, not when the program
 * starts: a run without a snapshot does not pay for loading it and the
 * dozen libraries it needs. Its soname has been libarchive.so.13 for all of
 * libarchive 3. */
#define LIBARCHIVE_SONAME "libarchive.so.13"
#define ARCHIVE_CALLS(X)                                                                       \
	X(archive_read_new) X(archive_write_disk_new) X(archive_read_free) X(archive_write_free)  \
	X(archive_read_support_filter_all) X(archive_read_support_format_tar)                     \
	X(archive_write_disk_set_options) X(archive_read_open_filename) X(archive_error_string)   \
	X(archive_read_next_header) X(archive_entry_pathname) X(archive_entry_hardlink)          \
	X(archive_entry_copy_pathname) X(archive_entry_copy_hardlink) X(archive_write_header)    \
	X(archive_entry_size) X(archive_write_finish_entry) X(archive_read_data_block)           \
	X(archive_write_data_block)

#define ARCHIVE_MEMBER(f) __typeof__(&f) f;
static struct {
	ARCHIVE_CALLS(ARCHIVE_MEMBER)
} la;
#undef ARCHIVE_MEMBER

#ifdef AIR_LIBARCHIVE_LINKED
/* libarchive built with libair (a meson subproject): linked in. */
static bool load_libarchive(air__buf *why)
{
	(void)why;
#define ARCHIVE_LINK(f) la.f = f;
	ARCHIVE_CALLS(ARCHIVE_LINK)
#undef ARCHIVE_LINK
	return true;
}
#else
/* Load libarchive (once: the program extracts one snapshot). */
static bool load_libarchive(air__buf *why)
{
	void *h = la.archive_read_new ? NULL : dlopen(LIBARCHIVE_SONAME, RTLD_NOW | RTLD_LOCAL);

	if (la.archive_read_new)
		return true;
	if (!h) {
		air__buf_printf(why, "cannot load %s to extract the code snapshot: %s",
		                LIBARCHIVE_SONAME, dlerror());
		return false;
	}
#define ARCHIVE_LOAD(f) *(void **)&la.f = dlsym(h, #f);
	ARCHIVE_CALLS(ARCHIVE_LOAD)
#undef ARCHIVE_LOAD
#define ARCHIVE_CHECK(f) || !la.f
	if (0 ARCHIVE_CALLS(ARCHIVE_CHECK)) {
		air__buf_printf(why, "%s lacks a function needed to extract the code snapshot",
		                LIBARCHIVE_SONAME);
		memset(&la, 0, sizeof(la));
		return false;
	}
#undef ARCHIVE_CHECK
	return true;
}
#endif

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

	while ((r = la.archive_read_data_block(in, &buf, &size, &off)) == ARCHIVE_OK)
		if (la.archive_write_data_block(out, buf, size, off) != ARCHIVE_OK)
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
	if (!load_libarchive(why))
		return AIR_EUNSUPPORTED;
	in = la.archive_read_new();
	out = la.archive_write_disk_new();
	if (!in || !out) {
		la.archive_read_free(in);
		la.archive_write_free(out);
		return AIR_ENOMEM;
	}
	la.archive_read_support_filter_all(in);
	la.archive_read_support_format_tar(in);
	/* Entry names are checked here (the state directory may itself contain
	 * ".."); writing through a symbolic link is refused by libarchive. */
	la.archive_write_disk_set_options(out, ARCHIVE_EXTRACT_TIME | ARCHIVE_EXTRACT_PERM |
	                                        ARCHIVE_EXTRACT_SECURE_SYMLINKS);
	if (air__lmkdirs(dest, 0700) != 0) {
		air__buf_printf(why, "cannot create %s", dest);
		rc = AIR_EIO;
	} else if (la.archive_read_open_filename(in, archive, 65536) != ARCHIVE_OK) {
		air__buf_printf(why, "cannot read %s: %s", archive, la.archive_error_string(in));
		rc = AIR_ESNAPSHOT;
	}
	while (rc == AIR_OK && (r = la.archive_read_next_header(in, &e)) != ARCHIVE_EOF) {
		const char *name = la.archive_entry_pathname(e), *link = la.archive_entry_hardlink(e);
		char *path = NULL, *target = NULL;

		if (r != ARCHIVE_OK && r != ARCHIVE_WARN) {
			air__buf_printf(why, "%s: %s", archive, la.archive_error_string(in));
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
			la.archive_entry_copy_pathname(e, path);
			if (target)
				la.archive_entry_copy_hardlink(e, target);
			if (la.archive_write_header(out, e) != ARCHIVE_OK ||
			    (la.archive_entry_size(e) > 0 && copy_data(in, out) != ARCHIVE_OK) ||
			    la.archive_write_finish_entry(out) != ARCHIVE_OK) {
				air__buf_printf(why, "cannot extract %s: %s", name, la.archive_error_string(out));
				rc = AIR_ESNAPSHOT;
			}
		}
		air__free(path);
		air__free(target);
	}
	la.archive_read_free(in);
	la.archive_write_free(out);
	if (rc != AIR_OK) {
		air__free(*top);
		*top = NULL;
	}
	return rc;
}

/*
 * snapshot_tar.c: the snapshot archive, a gzip-compressed pax tar built with
 * libarchive and streamed to an unlinked temporary file (hashed on the way),
 * every entry under "<dirname>/". Only libarchive's buffers and one read
 * chunk are in memory, whatever the size of the tree.
 *
 * Plain mode walks the root without following symbolic links: a link is
 * stored as a link when its target stays inside the root, and the snapshot is
 * refused when it points outside (an absolute target, or one that leaves the
 * root lexically or once resolved) — following it could ship files from
 * outside the project. Sockets, FIFOs and devices are skipped (git cannot
 * track them either). Owners are not recorded (uid/gid 0, no names).
 */
#include "submit/snapshot.h"
#include "core/core_archive.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct sink {
	air__archive *out;
	struct sha256_ctx sha;
	bool too_big;
	int write_errno;  /* writing the temporary file failed */
} sink;

typedef struct walk {
	struct archive *a;
	const char *root;
	char *real_root;
	const char *dirname;
	const air__ignore *ig;
	const air__ctx *ctx;
	air__buf path;    /* scratch: absolute path */
	air__buf member;  /* scratch: archive member name */
	air__archive *out; /* counts the files and their bytes */
} walk;

int air__snapshot_tmpfile(air_error **err)
{
	const char *dir = getenv("TMPDIR");
	char *tmpl;
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
	if (!(tmpl = air__sprintf("%s/air-snapshot-XXXXXX", dir)))
		return air__oom(err), -1;
	fd = mkostemp(tmpl, O_CLOEXEC);
	if (fd < 0)
		air__failf(err, AIR_EIO, 0, "cannot create a temporary file in %s: %s", dir,
		           strerror(errno));
	else
		unlink(tmpl); /* the open descriptor keeps it alive until closed */
	air__free(tmpl);
	return fd;
}

void air__archive_dispose(air__archive *a)
{
	if (a->fd >= 0)
		close(a->fd);
	*a = (air__archive)AIR__ARCHIVE_INIT;
}

ssize_t air__archive_read_at(void *ud, int64_t offset, void *buf, size_t len)
{
	const air__archive *a = ud;
	ssize_t n;

	do
		n = pread(a->fd, buf, len, (off_t)offset);
	while (n < 0 && errno == EINTR);
	return n;
}

static la_ssize_t sink_write(struct archive *a, void *ud, const void *buf, size_t len)
{
	sink *s = ud;
	const char *p = buf;
	size_t left = len;

	(void)a;
	if ((uint64_t)s->out->size + len > AIR__SNAPSHOT_MAX_BYTES) {
		s->too_big = true;
		return -1;
	}
	while (left > 0) {
		ssize_t n = write(s->out->fd, p, left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			s->write_errno = n < 0 ? errno : EIO;
			return -1;
		}
		p += n;
		left -= (size_t)n;
	}
	sha256_update(&s->sha, len, buf);
	s->out->size += (int64_t)len;
	return (la_ssize_t)len;
}

/* libarchive, loaded on first use (core/core_archive.h). */
static int load_libarchive(air_error **err)
{
	air__buf why = AIR__BUF_INIT;
	int rc = AIR_OK;

	if (!air__libarchive_load(&why))
		rc = air__failf(err, AIR_ESNAPSHOT, 0, "cannot pack the code snapshot: %s",
		                air__buf_oom(&why) ? "out of memory" : air__buf_cstr(&why));
	air__buf_dispose(&why);
	return rc;
}

/* A new archive for @s->out: its temporary file and a writer onto it. */
static struct archive *writer_open(sink *s, air_error **err)
{
	struct archive *a;

	*s->out = (air__archive)AIR__ARCHIVE_INIT;
	sha256_init(&s->sha);
	if (load_libarchive(err) != AIR_OK || (s->out->fd = air__snapshot_tmpfile(err)) < 0)
		return NULL;
	if (!(a = air__la.archive_write_new())) {
		air__archive_dispose(s->out);
		air__failf(err, AIR_ENOMEM, 0, "cannot start the code snapshot archive");
		return NULL;
	}
	if (air__la.archive_write_add_filter_gzip(a) != ARCHIVE_OK ||
	    air__la.archive_write_set_format_pax_restricted(a) != ARCHIVE_OK ||
	    air__la.archive_write_set_bytes_in_last_block(a, 1) != ARCHIVE_OK ||
	    air__la.archive_write_open(a, s, NULL, sink_write, NULL) != ARCHIVE_OK) {
		air__la.archive_write_free(a);
		air__archive_dispose(s->out);
		air__failf(err, AIR_ENOMEM, 0, "cannot start the code snapshot archive");
		return NULL;
	}
	return a;
}

/* The archive is complete: its digest. */
static void sink_finish(sink *s)
{
	air__sha256_hex_digest(&s->sha, s->out->sha256);
}

static int archive_failure(struct archive *a, const sink *s, air_error **err)
{
	if (s->too_big)
		return air__failf(err, AIR_ESNAPSHOT, 0,
		                  "the code snapshot is larger than %zu MiB; narrow it with include_paths "
		                  "or .gitignore",
		                  AIR__SNAPSHOT_MAX_BYTES >> 20);
	if (s->write_errno)
		return air__failf(err, AIR_EIO, 0, "cannot write the code snapshot to a temporary file: %s",
		                  strerror(s->write_errno));
	return air__failf(err, AIR_ESNAPSHOT, 0, "cannot build the code snapshot: %s",
	                  air__la.archive_error_string(a) ? air__la.archive_error_string(a) : "archive error");
}

/* Point w->path at "<root>/<rel>" and w->member at "<dirname>/<rel>". */
static void set_names(walk *w, const char *rel)
{
	air__buf_clear(&w->path);
	air__buf_puts(&w->path, w->root);
	air__buf_clear(&w->member);
	air__buf_puts(&w->member, w->dirname);
	if (*rel) {
		air__buf_putc(&w->path, '/');
		air__buf_puts(&w->path, rel);
		air__buf_putc(&w->member, '/');
		air__buf_puts(&w->member, rel);
	}
}

/* A real path inside the root (or the root itself). */
static bool inside_root(const walk *w, const char *real)
{
	size_t n = strlen(w->real_root);

	if (!strcmp(w->real_root, "/"))
		return true;
	return !strncmp(real, w->real_root, n) && (real[n] == '\0' || real[n] == '/');
}

static int check_symlink(walk *w, const char *rel, const char *target, air_error **err)
{
	const char *slash = strrchr(rel, '/');
	char *joined, *clean, real[PATH_MAX];
	bool escapes;

	if (target[0] == '/')
		return air__failf(err, AIR_ESNAPSHOT, 0,
		                  "symbolic link %s/%s points outside code_source root_path (%s); absolute "
		                  "link targets are not packaged — remove the link or exclude it in .gitignore",
		                  w->root, rel, target);
	joined = air__sprintf("%.*s%s%s", slash ? (int)(slash - rel) : 0, rel, slash ? "/" : "", target);
	clean = joined ? air__path_clean(joined) : NULL;
	air__free(joined);
	if (!clean)
		return air__oom(err);
	escapes = !strcmp(clean, "..") || air__starts_with(clean, "../");
	air__free(clean);
	/* Lexically inside; a link through other links may still leave the root. */
	if (!escapes && realpath(air__buf_cstr(&w->path), real))
		escapes = !inside_root(w, real);
	if (escapes)
		return air__failf(err, AIR_ESNAPSHOT, 0,
		                  "symbolic link %s/%s points outside code_source root_path (%s); remove the "
		                  "link or exclude it in .gitignore",
		                  w->root, rel, target);
	return AIR_OK;
}

static struct archive_entry *new_entry(const walk *w, const struct stat *st, bool dir)
{
	struct archive_entry *e = air__la.archive_entry_new();
	air__buf name = AIR__BUF_INIT;

	if (!e)
		return NULL;
	air__buf_puts(&name, air__buf_cstr(&w->member));
	if (dir)
		air__buf_putc(&name, '/');
	air__la.archive_entry_copy_pathname(e, air__buf_cstr(&name));
	air__buf_dispose(&name);
	air__la.archive_entry_set_mode(e, st->st_mode & (S_IFMT | 0777));
	air__la.archive_entry_set_mtime(e, st->st_mtime, 0);
	air__la.archive_entry_set_uid(e, 0);
	air__la.archive_entry_set_gid(e, 0);
	return e;
}

static int add_file(walk *w, air_error **err)
{
	int fd = open(air__buf_cstr(&w->path), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct archive_entry *e = NULL;
	struct stat st;
	char chunk[65536];
	int64_t left;
	int rc = AIR_OK;

	if (fd < 0 || fstat(fd, &st) != 0) {
		rc = air__failf(err, AIR_ESNAPSHOT, 0, "cannot read %s for the code snapshot: %s",
		                air__buf_cstr(&w->path), strerror(errno));
		goto out;
	}
	if (!(e = new_entry(w, &st, false))) {
		rc = air__oom(err);
		goto out;
	}
	air__la.archive_entry_set_size(e, st.st_size);
	if (air__la.archive_write_header(w->a, e) != ARCHIVE_OK) {
		rc = AIR_ESNAPSHOT; /* reported by the caller from the archive */
		goto out;
	}
	/* Exactly st_size bytes: a file that shrinks meanwhile is zero-padded by
	 * libarchive, one that grows is cut at the recorded size. */
	for (left = st.st_size; left > 0;) {
		ssize_t n = read(fd, chunk, left < (int64_t)sizeof(chunk) ? (size_t)left : sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = air__failf(err, AIR_ESNAPSHOT, 0, "cannot read %s for the code snapshot: %s",
			                air__buf_cstr(&w->path), strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		if (air__la.archive_write_data(w->a, chunk, (size_t)n) < 0) {
			rc = AIR_ESNAPSHOT;
			goto out;
		}
		left -= n;
	}
	w->out->files++;
	w->out->content_bytes += st.st_size;
out:
	air__la.archive_entry_free(e);
	if (fd >= 0)
		close(fd);
	return rc;
}

static int add_path(walk *w, const char *rel, bool explicit_path, air_error **err);

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int add_children(walk *w, const char *rel, air_error **err)
{
	DIR *d;
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0;
	int rc = AIR_OK;

	set_names(w, rel);
	if (!(d = opendir(air__buf_cstr(&w->path))))
		return air__failf(err, AIR_ESNAPSHOT, 0, "cannot read directory %s for the code snapshot: %s",
		                  air__buf_cstr(&w->path), strerror(errno));
	while (rc == AIR_OK && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (n == cap) {
			char **grown = air__realloc(names, (cap = cap ? 2 * cap : 16) * sizeof(*names));
			if (!grown) {
				rc = air__oom(err);
				break;
			}
			names = grown;
		}
		if (!(names[n] = *rel ? air__sprintf("%s/%s", rel, de->d_name) : air__strdup(de->d_name)))
			rc = air__oom(err);
		else
			n++;
	}
	closedir(d);
	/* Sorted for a reproducible archive (an empty directory has no list). */
	if (rc == AIR_OK && n > 1)
		qsort(names, n, sizeof(*names), cmp_name);
	for (size_t i = 0; rc == AIR_OK && i < n; i++)
		rc = add_path(w, names[i], false, err);
	for (size_t i = 0; i < n; i++)
		air__free(names[i]);
	air__free(names);
	return rc;
}

static int add_path(walk *w, const char *rel, bool explicit_path, air_error **err)
{
	struct archive_entry *e;
	struct stat st;
	char target[PATH_MAX];
	ssize_t tl;
	int rc;

	if (air__ctx_check(w->ctx, "packaging the code snapshot", NULL) != AIR_OK)
		return air__ctx_check(w->ctx, "packaging the code snapshot", err);
	if (*rel && !explicit_path && air__ignore_excludes(w->ig, w->dirname, rel))
		return AIR_OK;
	set_names(w, rel);
	if (lstat(air__buf_cstr(&w->path), &st) != 0)
		return air__failf(err, AIR_ESNAPSHOT, 0, "cannot read %s for the code snapshot: %s",
		                  air__buf_cstr(&w->path), strerror(errno));
	if (S_ISREG(st.st_mode))
		return add_file(w, err);
	if (!S_ISDIR(st.st_mode) && !S_ISLNK(st.st_mode))
		return AIR_OK;
	if (!(e = new_entry(w, &st, S_ISDIR(st.st_mode))))
		return air__oom(err);
	rc = AIR_OK;
	if (S_ISLNK(st.st_mode)) {
		tl = readlink(air__buf_cstr(&w->path), target, sizeof(target) - 1);
		if (tl < 0) {
			rc = air__failf(err, AIR_ESNAPSHOT, 0, "cannot read link %s: %s",
			                air__buf_cstr(&w->path), strerror(errno));
		} else {
			target[tl] = '\0';
			rc = check_symlink(w, rel, target, err);
			air__la.archive_entry_copy_symlink(e, target);
		}
	}
	if (rc == AIR_OK && air__la.archive_write_header(w->a, e) != ARCHIVE_OK)
		rc = AIR_ESNAPSHOT;
	air__la.archive_entry_free(e);
	if (rc == AIR_OK && S_ISDIR(st.st_mode))
		rc = add_children(w, rel, err);
	return rc;
}

/* Parent directory entries of an include path ("a/" for "a/b/c"), then the path. */
static int add_include(walk *w, const char *path, air_error **err)
{
	char *rel = air__path_clean(path), real[PATH_MAX];
	int rc = AIR_OK;

	if (!rel)
		return air__oom(err);
	set_names(w, rel);
	/* A component may be a link to a directory elsewhere. */
	if (realpath(air__buf_cstr(&w->path), real) && !inside_root(w, real))
		rc = air__failf(err, AIR_ESNAPSHOT, 0,
		                "code_source include path %s leads outside root_path %s", path, w->root);
	for (char *s = rel; rc == AIR_OK && (s = strchr(s, '/')); s++) {
		struct stat st;
		*s = '\0';
		set_names(w, rel);
		if (lstat(air__buf_cstr(&w->path), &st) == 0) {
			struct archive_entry *e = new_entry(w, &st, true);
			if (!e)
				rc = air__oom(err);
			else if (air__la.archive_write_header(w->a, e) != ARCHIVE_OK)
				rc = AIR_ESNAPSHOT;
			air__la.archive_entry_free(e);
		}
		*s = '/';
	}
	if (rc == AIR_OK)
		rc = add_path(w, rel, true, err);
	air__free(rel);
	return rc;
}

int air__snapshot_tar_plain(const char *root, const char *dirname, const air__ignore *ig,
                            char *const *include, size_t n_include, const air__ctx *ctx,
                            air__archive *out, air_error **err)
{
	sink s = {.out = out};
	walk w = {NULL, root, NULL, dirname, ig, ctx, AIR__BUF_INIT, AIR__BUF_INIT, out};
	air_error *e = NULL;
	char real[PATH_MAX];
	int rc = AIR_OK;

	*out = (air__archive)AIR__ARCHIVE_INIT;
	if (!realpath(root, real))
		return air__failf(err, AIR_ESNAPSHOT, 0, "cannot resolve code_source root_path %s: %s", root,
		                  strerror(errno));
	if (!(w.real_root = air__strdup(real)))
		return air__oom(err);
	if (!(w.a = writer_open(&s, &e))) {
		air__free(w.real_root);
		return air__fail(err, e);
	}
	if (n_include == 0) {
		rc = add_path(&w, "", false, &e);
	} else {
		struct stat st;
		struct archive_entry *top;
		set_names(&w, "");
		if (stat(root, &st) != 0 || !(top = new_entry(&w, &st, true))) {
			rc = air__failf(&e, AIR_ESNAPSHOT, 0, "cannot read %s", root);
		} else {
			if (air__la.archive_write_header(w.a, top) != ARCHIVE_OK)
				rc = AIR_ESNAPSHOT;
			air__la.archive_entry_free(top);
		}
		for (size_t i = 0; rc == AIR_OK && i < n_include; i++)
			rc = add_include(&w, include[i], &e);
	}
	if (rc == AIR_OK && air__la.archive_write_close(w.a) != ARCHIVE_OK)
		rc = AIR_ESNAPSHOT;
	if (rc != AIR_OK && !e)
		rc = archive_failure(w.a, &s, &e);
	air__la.archive_write_free(w.a);
	air__free(w.real_root);
	air__buf_dispose(&w.path);
	air__buf_dispose(&w.member);
	if (rc != AIR_OK) {
		air__archive_dispose(out);
		return air__fail(err, e);
	}
	sink_finish(&s);
	return AIR_OK;
}

int air__snapshot_tar_repack(int fd, const char *dirname, air__archive *out, air_error **err)
{
	sink s = {.out = out};
	struct archive *in, *a = NULL;
	struct archive_entry *e;
	size_t dl = strlen(dirname);
	air_error *fail = NULL;
	int rc = AIR_OK, r;

	*out = (air__archive)AIR__ARCHIVE_INIT;
	if ((rc = load_libarchive(err)) != AIR_OK)
		return rc;
	in = air__la.archive_read_new();
	if (!in || air__la.archive_read_support_format_tar(in) != ARCHIVE_OK ||
	    air__la.archive_read_open_fd(in, fd, 65536) != ARCHIVE_OK) {
		rc = air__failf(&fail, AIR_ESNAPSHOT, 0, "cannot read the git archive: %s",
		                in && air__la.archive_error_string(in) ? air__la.archive_error_string(in) : "archive error");
		goto out;
	}
	if (!(a = writer_open(&s, &fail))) {
		rc = air_error_code(fail);
		goto out;
	}
	while ((r = air__la.archive_read_next_header(in, &e)) == ARCHIVE_OK) {
		const char *name = air__la.archive_entry_pathname(e);
		const void *buf;
		size_t len;
		int64_t off;

		if (!name || strncmp(name, dirname, dl) != 0 || name[dl] != '/') {
			rc = air__failf(&fail, AIR_ESNAPSHOT, 0, "git archive entry %s is not under %s/",
			                name ? name : "(unnamed)", dirname);
			goto out;
		}
		air__la.archive_entry_set_uid(e, 0);
		air__la.archive_entry_set_gid(e, 0);
		air__la.archive_entry_copy_uname(e, NULL);
		air__la.archive_entry_copy_gname(e, NULL);
		if (air__la.archive_entry_filetype(e) == AE_IFREG) {
			out->files++;
			out->content_bytes += air__la.archive_entry_size(e);
		}
		if (air__la.archive_write_header(a, e) != ARCHIVE_OK) {
			rc = AIR_ESNAPSHOT;
			goto out;
		}
		while ((r = air__la.archive_read_data_block(in, &buf, &len, &off)) == ARCHIVE_OK) {
			if (air__la.archive_write_data(a, buf, len) < 0) {
				rc = AIR_ESNAPSHOT;
				goto out;
			}
		}
		if (r != ARCHIVE_EOF)
			break;
	}
	if (r != ARCHIVE_EOF) {
		rc = air__failf(&fail, AIR_ESNAPSHOT, 0, "cannot read the git archive: %s",
		                air__la.archive_error_string(in) ? air__la.archive_error_string(in) : "archive error");
		goto out;
	}
	if (air__la.archive_write_close(a) != ARCHIVE_OK)
		rc = AIR_ESNAPSHOT;
out:
	if (rc != AIR_OK && !fail)
		rc = archive_failure(a, &s, &fail);
	air__la.archive_read_free(in);
	if (a)
		air__la.archive_write_free(a);
	if (rc != AIR_OK) {
		air__archive_dispose(out);
		return air__fail(err, fail);
	}
	sink_finish(&s);
	return AIR_OK;
}

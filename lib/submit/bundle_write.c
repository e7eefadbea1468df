/*
 * bundle_write.c: a bundle's files put in place (air__bundle_put(),
 * bundle.h). The bundle is databricks.yml and generated_artifacts/; the
 * directory around them holds the user's code and files, which are not ours.
 *
 * The new generated_artifacts/ is built beside the old one, in a temporary
 * directory (with the user's own entries of the old one hard-linked into
 * it), and databricks.yml in a temporary file beside the old one; then the
 * directories are exchanged in one rename (RENAME_EXCHANGE) and the file
 * renamed over the old. A failure before the exchange leaves the old bundle
 * untouched; a failure of the last rename exchanges the directories back.
 *
 * Nothing is written or deleted through a symbolic link that leaves the
 * bundle directory: databricks.yml or generated_artifacts as such a link (or
 * through one) is refused; one that stays inside is followed. Inside the
 * artifacts directory, links are never followed (removed or kept as links).
 */
#include "submit/bundle.h"
#include "core/core_fsize.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_DEPTH 64 /* of the user's directories kept in generated_artifacts/ */

/* Where databricks.yml or generated_artifacts/ is, links inside resolved. */
typedef struct target {
	const char *name; /* BUNDLE_FILE or ARTIFACTS_DIR: how messages name it */
	char *path;       /* absolute, its directory resolved */
	char *parent;     /* the directory holding it */
	bool exists;
	mode_t mode;      /* when it exists */
} target;

static void target_dispose(target *t)
{
	air__free(t->path);
	air__free(t->parent);
}

static bool strictly_inside(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (!strcmp(dir, "/"))
		return path[0] == '/' && path[1];
	return !strncmp(path, dir, n) && path[n] == '/' && path[n + 1];
}

static int refuse_link(const char *dir, const target *t, const char *to, bool dangling,
                       air_error **err)
{
	if (dangling)
		return air__failf(err, AIR_EINVAL, AIR_KIND_INVALID_ARGUMENT,
		                  "%s is a symbolic link to %s, which does not exist: libair does not "
		                  "write through it (remove the link)", t->name, to);
	return air__failf(err, AIR_EINVAL, AIR_KIND_INVALID_ARGUMENT,
	                  "%s is a symbolic link to %s, outside the bundle directory %s: libair "
	                  "neither writes nor deletes through it (replace the link with a %s in the "
	                  "bundle directory)", t->name, to, dir,
	                  strcmp(t->name, ARTIFACTS_DIR) ? "file" : "directory");
}

/* Resolve @t->name in @dir: itself, or the target of a link that stays
 * inside @dir; a link that leaves it (or leads nowhere) is refused. */
static int resolve(const char *dir, target *t, bool want_dir, air_error **err)
{
	char *path = air__sprintf("%s/%s", dir, t->name), real[PATH_MAX], *slash;
	struct stat st;
	int rc = AIR_OK;

	if (!path)
		return air__oom(err);
	if (lstat(path, &st) != 0) {
		if (errno != ENOENT && errno != ENOTDIR)
			rc = air__failf(err, AIR_EIO, AIR_KIND_IO, "cannot read %s: %s", path, strerror(errno));
		t->path = path;
		path = NULL;
	} else if (!S_ISLNK(st.st_mode)) {
		t->exists = true;
		t->path = path;
		path = NULL;
	} else if (!realpath(path, real)) {
		char to[PATH_MAX];
		ssize_t n = readlink(path, to, sizeof(to) - 1);
		to[n > 0 ? n : 0] = '\0';
		rc = refuse_link(dir, t, to, true, err);
	} else if (!strictly_inside(real, dir)) {
		rc = refuse_link(dir, t, real, false, err);
	} else if (lstat(real, &st) != 0) {
		rc = air__failf(err, AIR_EIO, AIR_KIND_IO, "cannot read %s: %s", real, strerror(errno));
	} else if (!(t->path = air__strdup(real))) {
		rc = air__oom(err);
	} else {
		t->exists = true;
	}
	air__free(path);
	if (rc != AIR_OK)
		return rc;
	if (t->exists)
		t->mode = st.st_mode;
	if (t->exists && want_dir && !S_ISDIR(st.st_mode))
		return air__failf(err, AIR_EIO, AIR_KIND_IO, "%s is not a directory", t->path);
	if (t->exists && !want_dir && !S_ISREG(st.st_mode))
		return air__failf(err, AIR_EIO, AIR_KIND_IO, "%s is not a regular file", t->path);
	if (!(t->parent = air__strdup(t->path)))
		return air__oom(err);
	slash = strrchr(t->parent, '/');
	slash[slash == t->parent ? 1 : 0] = '\0';
	return AIR_OK;
}

/* Index of @name in air__artifact_names, or -1: not ours. */
static int artifact_index(const char *name)
{
	for (int i = 0; i < AIR__MAX_ARTIFACTS; i++)
		if (!strcmp(name, air__artifact_names[i]))
			return i;
	return -1;
}

/* Bit i: the new bundle has air__artifact_names[i]. */
static unsigned written_mask(const air__bundle_file *files, size_t n)
{
	unsigned mask = 0;

	for (size_t i = 0; i < n; i++) {
		const char *name = strchr(files[i].rel, '/');
		int k = name ? artifact_index(name + 1) : -1;
		if (k >= 0)
			mask |= 1u << k;
	}
	return mask;
}

/* Without force: an existing databricks.yml or generated artifact. */
static int refuse_existing(const char *dir, const target *yml, const target *art, air_error **err)
{
	if (yml->exists)
		return air__failf(err, AIR_ECONFLICT, AIR_KIND_CONFLICT, "%s already exists in %s",
		                  BUNDLE_FILE, dir);
	for (int i = 0; art->exists && i < AIR__MAX_ARTIFACTS; i++) {
		char *p = air__sprintf("%s/%s", art->path, air__artifact_names[i]);
		struct stat st;
		bool there = p && lstat(p, &st) == 0;

		air__free(p);
		if (!p)
			return air__oom(err);
		if (there)
			return air__failf(err, AIR_ECONFLICT, AIR_KIND_CONFLICT, ARTIFACTS_DIR
			                  "/%s already exists in %s", air__artifact_names[i], dir);
	}
	return AIR_OK;
}

/* Remove the tree at @name in @at, never following a link. Best effort. */
static void remove_at(int at, const char *name, int depth)
{
	struct stat st;
	struct dirent *e;
	DIR *d = NULL;
	int fd;

	if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return;
	if (!S_ISDIR(st.st_mode)) {
		unlinkat(at, name, 0);
		return;
	}
	if (depth <= MAX_DEPTH + 1 &&
	    (fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) >= 0 &&
	    !(d = fdopendir(fd)))
		close(fd);
	while (d && (e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			remove_at(dirfd(d), e->d_name, depth + 1);
	if (d)
		closedir(d);
	unlinkat(at, name, AT_REMOVEDIR);
}

static int cannot_keep(const char *rel, const char *name, air_error **err)
{
	return air__failf(err, AIR_EIO, AIR_KIND_IO, "cannot keep %s/%s in the new bundle: %s", rel,
	                  name, strerror(errno));
}

/*
 * The entries of the old artifacts directory @from that are not generated
 * artifacts (the user's) go into the new one, @to: directories are made
 * again, anything else hard-linked (a link stays a link). Generated
 * artifacts are skipped: rewritten, or gone from the workload (bit i of
 * *@removed set for air__artifact_names[i] when @written lacks it).
 */
static int keep_user_entries(int from, int to, const char *rel, int depth, unsigned written,
                             unsigned *removed, air_error **err)
{
	int fd = dup(from), rc = AIR_OK;
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return air__failf(err, AIR_EIO, AIR_KIND_IO, "cannot read %s: %s", rel, strerror(errno));
	}
	while (rc == AIR_OK && (e = readdir(d)) != NULL) {
		int k = depth == 0 ? artifact_index(e->d_name) : -1, sub_from, sub_to;
		struct stat st;
		char *sub;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (fstatat(from, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
			rc = cannot_keep(rel, e->d_name, err);
		} else if (k >= 0 && S_ISDIR(st.st_mode)) {
			rc = air__failf(err, AIR_EIO, AIR_KIND_IO, "%s/%s is a directory, not a generated "
			                "artifact: move it away", rel, e->d_name);
		} else if (k >= 0) {
			if (!(written & (1u << k)))
				*removed |= 1u << k;
		} else if (!S_ISDIR(st.st_mode)) {
			if (linkat(from, e->d_name, to, e->d_name, 0) != 0)
				rc = cannot_keep(rel, e->d_name, err);
		} else if (depth >= MAX_DEPTH) {
			errno = ELOOP;
			rc = cannot_keep(rel, e->d_name, err);
		} else if (mkdirat(to, e->d_name, 0700) != 0 ||
		           fchmodat(to, e->d_name, st.st_mode & 07777, 0) != 0) {
			rc = cannot_keep(rel, e->d_name, err);
		} else if (!(sub = air__sprintf("%s/%s", rel, e->d_name))) {
			rc = air__oom(err);
		} else {
			sub_from = openat(from, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			sub_to = openat(to, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub_from < 0 || sub_to < 0)
				rc = cannot_keep(rel, e->d_name, err);
			else
				rc = keep_user_entries(sub_from, sub_to, sub, depth + 1, written, removed, err);
			if (sub_from >= 0)
				close(sub_from);
			if (sub_to >= 0)
				close(sub_to);
			air__free(sub);
		}
	}
	closedir(d);
	return rc;
}

/* A new file @name in @at holding @data, with @mode, on disk; @shown names
 * it in errors (where it is going, not the temporary name). */
static int write_new(int at, const char *name, const air__bundle_file *f, const char *shown,
                     air_error **err)
{
	int fd = openat(at, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	size_t off = 0;
	int rc = AIR_OK;
	air__fsize_guard_t fsize;

	if (fd < 0)
		return air__failf(err, AIR_EIO, AIR_KIND_IO, "cannot create %s: %s", shown,
		                  strerror(errno));
	air__fsize_guard(&fsize); /* past the file size limit: EFBIG, not SIGXFSZ */
	while (rc == AIR_OK && off < f->len) {
		ssize_t n = write(fd, f->data + off, f->len - off);
		if (n > 0)
			off += (size_t)n;
		else if (n < 0 && errno != EINTR)
			rc = air__failf(err, AIR_EIO, AIR_KIND_IO, "cannot write %s: %s", shown,
			                strerror(errno));
	}
	air__fsize_unguard(&fsize);
	if (rc == AIR_OK && (fchmod(fd, f->mode) != 0 || fsync(fd) != 0))
		rc = air__failf(err, AIR_EIO, AIR_KIND_IO, "cannot write %s: %s", shown, strerror(errno));
	if (close(fd) != 0 && rc == AIR_OK)
		rc = air__failf(err, AIR_EIO, AIR_KIND_IO, "cannot write %s: %s", shown, strerror(errno));
	return rc;
}

/* mkdir -p */
static int make_dirs(const char *path, air_error **err)
{
	char *copy = air__strdup(path);
	int rc = AIR_OK;

	if (!copy)
		return air__oom(err);
	for (char *p = copy + 1; rc == AIR_OK; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char c = *p;
		*p = '\0';
		if (mkdir(copy, 0777) != 0 && errno != EEXIST)
			rc = air__failf(err, AIR_EIO, AIR_KIND_IO, "cannot create directory %s: %s", copy,
			                strerror(errno));
		*p = c;
		if (!c)
			break;
	}
	air__free(copy);
	return rc;
}

/* The state of one replacement. */
typedef struct put {
	const char *dir;
	target yml, art;
	int yml_at, art_at;    /* the directories holding them */
	const char *yml_name, *art_name;
	char stage[64];        /* the new artifacts directory, in art_at */
	char yml_tmp[64];      /* the new databricks.yml, in yml_at */
	char old[64];          /* the old artifacts directory once moved aside, or "" */
	bool staged, yml_written, exchanged;
} put;

static int open_dir(const char *path, int *fd, air_error **err)
{
	if ((*fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0)
		return AIR_OK;
	return air__failf(err, AIR_EIO, AIR_KIND_IO, "cannot open %s: %s", path, strerror(errno));
}

/* The new generated_artifacts/ and databricks.yml, written beside the old. */
static int stage(put *p, const air__bundle_file *files, size_t n, const air__ctx *ctx,
                 unsigned *removed, air_error **err)
{
	char uuid[37], *shown;
	int fd = -1, old = -1, rc;

	if (air__uuid4(uuid) != AIR_OK)
		return air__failf(err, AIR_EIO, AIR_KIND_IO,
		                  "cannot read random bytes for a temporary name");
	snprintf(p->stage, sizeof(p->stage), "." ARTIFACTS_DIR ".%.12s.tmp", uuid);
	snprintf(p->yml_tmp, sizeof(p->yml_tmp), "." BUNDLE_FILE ".%.12s.tmp", uuid);
	if (mkdirat(p->art_at, p->stage, 0777) != 0)
		return air__failf(err, AIR_EIO, AIR_KIND_IO, "cannot create a directory in %s: %s",
		                  p->art.parent, strerror(errno));
	p->staged = true;
	if (p->art.exists && fchmodat(p->art_at, p->stage, p->art.mode & 07777, 0) != 0)
		return air__failf(err, AIR_EIO, AIR_KIND_IO, "cannot create a directory in %s: %s",
		                  p->art.parent, strerror(errno));
	if ((fd = openat(p->art_at, p->stage, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return air__failf(err, AIR_EIO, AIR_KIND_IO, "cannot open a directory in %s: %s",
		                  p->art.parent, strerror(errno));
	rc = AIR_OK;
	for (size_t i = 0; rc == AIR_OK && i < n; i++) {
		const char *slash = strchr(files[i].rel, '/');
		if ((rc = air__ctx_check(ctx, "writing the bundle", err)) != AIR_OK)
			break;
		if (!(shown = air__sprintf("%s/%s", p->dir, files[i].rel))) {
			rc = air__oom(err);
		} else if (slash) {
			rc = write_new(fd, slash + 1, &files[i], shown, err);
		} else {
			p->yml_written = true; /* removed on failure, even in part */
			rc = write_new(p->yml_at, p->yml_tmp, &files[i], shown, err);
		}
		air__free(shown);
	}
	if (rc == AIR_OK && p->art.exists &&
	    (rc = open_dir(p->art.path, &old, err)) == AIR_OK)
		rc = keep_user_entries(old, fd, ARTIFACTS_DIR, 0, written_mask(files, n), removed, err);
	if (rc == AIR_OK && fsync(fd) != 0)
		rc = air__failf(err, AIR_EIO, AIR_KIND_IO, "cannot write %s/%s: %s", p->dir,
		                ARTIFACTS_DIR, strerror(errno));
	if (old >= 0)
		close(old);
	close(fd);
	return rc;
}

/* renameat2() flags the file system (or the kernel) does not support. */
static bool unsupported(void)
{
	return errno == EINVAL || errno == ENOSYS;
}

/* RENAME_EXCHANGE where the file system has it; else two renames. */
static int swap_artifacts(put *p, air_error **err)
{
	if (!p->art.exists) {
		if (renameat2(p->art_at, p->stage, p->art_at, p->art_name, RENAME_NOREPLACE) == 0 ||
		    (unsupported() && renameat(p->art_at, p->stage, p->art_at, p->art_name) == 0))
			return AIR_OK;
	} else if (renameat2(p->art_at, p->stage, p->art_at, p->art_name, RENAME_EXCHANGE) == 0) {
		p->exchanged = true;
		return AIR_OK;
	} else if (unsupported()) {
		snprintf(p->old, sizeof(p->old), "%.*s.old", (int)strlen(p->stage) - 4, p->stage);
		if (renameat(p->art_at, p->art_name, p->art_at, p->old) == 0) {
			if (renameat(p->art_at, p->stage, p->art_at, p->art_name) == 0)
				return AIR_OK;
			renameat(p->art_at, p->old, p->art_at, p->art_name);
		}
		p->old[0] = '\0';
	}
	return air__failf(err, AIR_EIO, AIR_KIND_IO, "cannot replace %s: %s", p->art.path,
	                  strerror(errno));
}

/* Put the old artifacts directory back (databricks.yml could not be replaced). */
static void swap_back(put *p)
{
	if (p->exchanged) {
		renameat2(p->art_at, p->stage, p->art_at, p->art_name, RENAME_EXCHANGE);
		p->exchanged = false;
		return;
	}
	renameat(p->art_at, p->art_name, p->art_at, p->stage);
	if (p->old[0] && renameat(p->art_at, p->old, p->art_at, p->art_name) == 0)
		p->old[0] = '\0';
}

static int put_in_place(put *p, air_error **err)
{
	int rc = swap_artifacts(p, err);

	if (rc != AIR_OK)
		return rc;
	if (renameat(p->yml_at, p->yml_tmp, p->yml_at, p->yml_name) != 0) {
		rc = air__failf(err, AIR_EIO, AIR_KIND_IO, "cannot replace %s: %s", p->yml.path,
		                strerror(errno));
		swap_back(p);
		return rc;
	}
	p->yml_written = false;
	if (!p->exchanged)
		p->staged = false; /* the stage is the bundle's now */
	fsync(p->art_at);
	fsync(p->yml_at);
	return AIR_OK;
}

int air__bundle_put(const char *dir, const air__bundle_file *files, size_t n, bool force,
                    const air__ctx *ctx, unsigned *removed, air_error **err)
{
	put p;
	int rc;

	memset(&p, 0, sizeof(p));
	p.dir = dir;
	p.yml.name = BUNDLE_FILE;
	p.art.name = ARTIFACTS_DIR;
	p.yml_at = p.art_at = -1;
	*removed = 0;
	rc = resolve(dir, &p.yml, false, err);
	if (rc == AIR_OK)
		rc = resolve(dir, &p.art, true, err);
	if (rc == AIR_OK && p.art.exists && strictly_inside(p.yml.path, p.art.path))
		rc = air__failf(err, AIR_EINVAL, AIR_KIND_INVALID_ARGUMENT,
		                "%s links into %s, which the new bundle replaces", BUNDLE_FILE,
		                ARTIFACTS_DIR);
	if (rc == AIR_OK && !force)
		rc = refuse_existing(dir, &p.yml, &p.art, err);
	if (rc == AIR_OK)
		rc = make_dirs(dir, err);
	if (rc == AIR_OK && (rc = open_dir(p.yml.parent, &p.yml_at, err)) == AIR_OK)
		rc = open_dir(p.art.parent, &p.art_at, err);
	if (rc == AIR_OK) {
		p.yml_name = strrchr(p.yml.path, '/') + 1;
		p.art_name = strrchr(p.art.path, '/') + 1;
		rc = stage(&p, files, n, ctx, removed, err);
	}
	if (rc == AIR_OK)
		rc = put_in_place(&p, err);
	if (p.yml_written)
		unlinkat(p.yml_at, p.yml_tmp, 0);
	if (p.old[0])
		remove_at(p.art_at, p.old, 0);
	if (p.staged)
		remove_at(p.art_at, p.stage, 0); /* the new one after a failure, else the old one */
	if (p.yml_at >= 0)
		close(p.yml_at);
	if (p.art_at >= 0)
		close(p.art_at);
	target_dispose(&p.yml);
	target_dispose(&p.art);
	if (rc != AIR_OK)
		*removed = 0;
	return rc;
}

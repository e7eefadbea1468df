/*
 * store.c: the files of a local state directory: paths, directories, atomic
 * writes (temporary file + rename), whole-file reads, opening
 * a path without following links, flock() locks.
 */
#include "local/local_priv.h"

#include <dirent.h>
#include <limits.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define LOCK_POLL_MS 10

char *air__lpath(const char *dir, const char *fmt, ...)
{
	va_list ap;
	char *rest, *p;

	va_start(ap, fmt);
	rest = air__vsprintf(fmt, ap);
	va_end(ap);
	if (!rest)
		return NULL;
	p = air__sprintf("%s/%s", dir, rest);
	air__free(rest);
	return p;
}

int air__lmkdirs(const char *path, mode_t mode)
{
	struct stat st;
	char *parent;
	const char *slash;
	int rc;

	/* Most often the directory or its parent exists: one call. */
	if (mkdir(path, mode) == 0)
		return 0;
	if (errno == EEXIST)
		goto check;
	if (errno != ENOENT || !(slash = strrchr(path, '/')) || slash == path)
		return -1;
	if (!(parent = air__strndup(path, (size_t)(slash - path)))) {
		errno = ENOMEM;
		return -1;
	}
	rc = air__lmkdirs(parent, mode);
	air__free(parent);
	if (rc != 0)
		return -1;
	if (mkdir(path, mode) == 0)
		return 0;
	if (errno != EEXIST)
		return -1;
check:
	if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	return 0;
}

static int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len > 0) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

/* fsync() of the file or directory @path: 0, or -1 with errno. */
static int sync_path(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc, saved;

	if (fd < 0)
		return -1;
	rc = fsync(fd);
	saved = errno;
	close(fd);
	errno = saved;
	return rc;
}

void air__lsync_all(const char *const *paths, size_t n)
{
	int fds[16];

	n = n < AIR__ARRAY_SIZE(fds) ? n : AIR__ARRAY_SIZE(fds);
	for (size_t i = 0; i < n; i++) {
		fds[i] = paths[i] ? open(paths[i], O_RDONLY | O_NONBLOCK | O_CLOEXEC) : -1;
#ifdef SYNC_FILE_RANGE_WRITE
		if (fds[i] >= 0)
			sync_file_range(fds[i], 0, 0, SYNC_FILE_RANGE_WRITE); /* a folder: nothing to do */
#endif
	}
	for (size_t i = 0; i < n; i++)
		if (fds[i] >= 0) {
			fsync(fds[i]);
			close(fds[i]);
		}
}

/* The directory holding @path (its name's entry), synced. */
static int sync_parent(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? air__strndup(path, slash == path ? 1 : (size_t)(slash - path)) : NULL;
	int rc = dir ? sync_path(dir) : -1;

	air__free(dir);
	return rc;
}

/* A temporary name beside @path ("<path>.tmp-<16 random hex>"), or NULL
 * with errno. */
static char *tmp_name(const char *path)
{
	unsigned char rnd[8];
	char suffix[17], *tmp;

	if (air__random_bytes(rnd, sizeof(rnd)) != AIR_OK) {
		errno = EIO;
		return NULL;
	}
	for (size_t i = 0; i < sizeof(rnd); i++)
		snprintf(suffix + 2 * i, 3, "%02x", rnd[i]);
	if (!(tmp = air__sprintf("%s.tmp-%s", path, suffix)))
		errno = ENOMEM;
	return tmp;
}

/* air__lwrite_atomic() of @path relative to the folder @at (AT_FDCWD: the
 * working directory), its folder synced by the caller. */
static int write_atomic_at(int at, const char *path, const void *data, size_t len,
                           mode_t mode, bool durable)
{
	char *tmp;
	int fd, saved, rc;
	bool made;

	if (!(tmp = tmp_name(path)))
		return -1;
	fd = openat(at, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (!(made = fd >= 0))
		goto fail;
	if (write_all(fd, data, len) != 0)
		goto fail;
	/* On disk before it is named: a crash leaves the old content or the
	 * new one, never an empty file. */
	if (durable && fsync(fd) != 0)
		goto fail;
	rc = close(fd);
	fd = -1; /* released even by a close() that failed */
	if (rc != 0 || renameat(at, tmp, at, path) != 0)
		goto fail;
	air__free(tmp);
	return 0;
fail:
	saved = errno;
	if (fd >= 0)
		close(fd);
	if (made)
		unlinkat(at, tmp, 0);
	air__free(tmp);
	errno = saved;
	return -1;
}

int air__lwrite_atomic(const char *path, const void *data, size_t len, mode_t mode,
                       bool durable)
{
	if (write_atomic_at(AT_FDCWD, path, data, len, mode, durable) != 0)
		return -1;
	return durable ? sync_parent(path) : 0;
}

int air__lwrite_atomic_at(int dir, const char *name, const void *data, size_t len, mode_t mode)
{
	return write_atomic_at(dir, name, data, len, mode, false);
}

int air__lwrite_in_place(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
	struct stat st;
	ssize_t w = 0;
	int rc = -1, saved;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0)
		rc = -1;
	else if (!S_ISREG(st.st_mode))
		errno = EINVAL;
	else if (st.st_nlink > 1) { /* a file shared with another name: replaced, never written */
		close(fd);
		return air__lwrite_atomic(path, data, len, 0600, false);
	}
	else if ((w = pwrite(fd, data, len, 0)) != (ssize_t)len)
		errno = w >= 0 ? ENOSPC : errno; /* a short write: out of room */
	else if ((off_t)len >= st.st_size || ftruncate(fd, (off_t)len) == 0)
		rc = 0;
	saved = errno;
	if (close(fd) != 0 && rc == 0)
		return -1;
	errno = saved;
	return rc;
}

int air__lwrite_fresh(const char *path, const void *data, size_t len, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode), saved;

	if (fd < 0)
		return -1;
	if (write_all(fd, data, len) != 0) {
		saved = errno;
		close(fd);
		unlink(path);
		errno = saved;
		return -1;
	}
	/* A failed close() has released the descriptor all the same: never
	 * closed twice (another thread may have it by now). */
	if (close(fd) != 0) {
		saved = errno;
		unlink(path);
		errno = saved;
		return -1;
	}
	return 0;
}

int air__lreserve(const char *path, off_t bytes)
{
	bool made = false;
	struct rlimit lim;
	int fd, e;

	/* Beyond the file size limit, the calling program would get SIGXFSZ. */
	if (getrlimit(RLIMIT_FSIZE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY &&
	    lim.rlim_cur < (rlim_t)bytes) {
		errno = EFBIG;
		return -1;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd >= 0)
		made = true;
	else if (errno == EEXIST)
		fd = open(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	/* posix_fallocate() returns its error instead of setting errno. */
	if ((e = posix_fallocate(fd, 0, bytes)) != 0) {
		close(fd);
		if (made)
			unlink(path);
		errno = e;
		return -1;
	}
	return close(fd);
}

/* @v as one compact line, written atomically (@durable) or @fresh. */
static int write_json(const char *path, const json_t *v, bool durable, bool fresh)
{
	char *text = air__json_compact(v);
	char *line = text ? air__sprintf("%s\n", text) : NULL;
	int rc;

	air__free(text);
	if (!line) {
		errno = ENOMEM;
		return -1;
	}
	rc = fresh ? air__lwrite_fresh(path, line, strlen(line), 0600)
	           : air__lwrite_atomic(path, line, strlen(line), 0600, durable);
	air__free(line);
	return rc;
}

int air__lwrite_once(const char *path, const void *data, size_t len, mode_t mode)
{
	char *tmp;
	int rc, saved;

	if (!(tmp = tmp_name(path)))
		return -1;
	/* Whole under its temporary name, then linked: link() never replaces. */
	if ((rc = air__lwrite_fresh(tmp, data, len, mode)) == 0) {
		if (link(tmp, path) != 0 && errno != EEXIST)
			rc = -1;
		saved = errno;
		unlink(tmp);
		errno = saved;
	}
	air__free(tmp);
	return rc;
}

int air__lwrite_json(const char *path, const json_t *v, bool durable)
{
	return write_json(path, v, durable, false);
}

int air__lwrite_json_fresh(const char *path, const json_t *v)
{
	return write_json(path, v, false, true);
}

int air__lread_fd(int fd, size_t max, air__buf *out)
{
	char chunk[16384];

	air__buf_clear(out);
	for (;;) {
		ssize_t r = read(fd, chunk, sizeof(chunk));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			break;
		if (out->len + (size_t)r > max) {
			errno = EFBIG;
			return -1;
		}
		air__buf_put(out, chunk, (size_t)r);
	}
	if (air__buf_oom(out)) {
		errno = ENOMEM;
		return -1;
	}
	if (!out->ptr)
		air__buf_puts(out, ""); /* an empty file is "" */
	return 0;
}

int air__lread_file(const char *path, size_t max, air__buf *out)
{
	/* Non-blocking: a FIFO in a file's place is opened at once, then refused. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	int rc, saved;

	air__buf_clear(out);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0)
		saved = errno;
	else
		saved = S_ISREG(st.st_mode) ? 0 : S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
	if (saved != 0) {
		close(fd);
		errno = saved;
		return -1;
	}
	rc = air__lread_fd(fd, max, out);
	saved = errno;
	close(fd);
	errno = saved;
	return rc;
}

/* One name of a path opened under @dir without following a link. */
static int open_name(int dir, const char *name, int flags)
{
	int fd;

	do
		fd = openat(dir, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | flags);
	while (fd < 0 && errno == EINTR);
	/* A link (ELOOP) or a file where a folder was expected (ENOTDIR) is
	 * as good as missing. */
	if (fd < 0 && (errno == ELOOP || errno == ENOTDIR))
		errno = ENOENT;
	return fd;
}

int air__lopen_name(int dir, const char *name, bool dir_ok, struct stat *st)
{
	int fd = open_name(dir, name, O_NONBLOCK);

	if (fd >= 0 && (fstat(fd, st) != 0 ||
	                !(S_ISREG(st->st_mode) || (dir_ok && S_ISDIR(st->st_mode))))) {
		close(fd);
		fd = -1;
		errno = ENOENT;
	}
	return fd;
}

/* The folder @name in @dir, made first with @make (0700; @spread: from a
 * parent marked as air__lspread_at() does): a link, or anything else in its
 * place, is ENOTDIR when made, else ENOENT. */
static int folder_name(int dir, const char *name, bool make, bool spread)
{
	int fd = open_name(dir, name, O_DIRECTORY);

	if (fd >= 0 || !make || errno != ENOENT)
		return fd;
	if (spread)
		air__lspread_at(dir);
	if (mkdirat(dir, name, 0700) != 0 && errno != EEXIST)
		return -1;
	if ((fd = open_name(dir, name, O_DIRECTORY)) < 0 && errno == ENOENT)
		errno = ENOTDIR;
	return fd;
}

/* Walk @rel under @root, each folder as folder_name() opens it (@make), the
 * last name as air__lopen_name() does (@dir_ok, *st) unless @to_folder. */
static int walk_beneath(const char *root, const char *rel, bool to_folder, bool make,
                        bool dir_ok, struct stat *st)
{
	int dir = open(root, O_RDONLY | O_CLOEXEC | O_DIRECTORY), fd = -1, saved;
	char name[NAME_MAX + 1];
	const char *start = rel;

	/* A state directory not made yet is made (private) with what is in it. */
	if (dir < 0 && make && errno == ENOENT && air__lmkdirs(root, 0700) == 0)
		dir = open(root, O_RDONLY | O_CLOEXEC | O_DIRECTORY);
	while (dir >= 0) {
		size_t n = strcspn(rel, "/");
		bool last = rel[n] == '\0';

		if (n == 0 || n > NAME_MAX) {
			errno = n && make ? ENAMETOOLONG : ENOENT; /* such a name is not there */
			break;
		}
		memcpy(name, rel, n);
		name[n] = '\0';
		/* The tree's folders where there is room (spread.c); the
		 * state directory itself is not marked. */
		fd = last && !to_folder ? air__lopen_name(dir, name, dir_ok, st)
		                        : folder_name(dir, name, make, rel != start);
		if (fd < 0 || last)
			break;
		close(dir);
		dir = fd;
		fd = -1;
		rel += n + 1;
	}
	saved = errno;
	if (dir >= 0)
		close(dir);
	errno = saved;
	return fd;
}

int air__lopen_beneath(const char *root, const char *rel, bool dir_ok, struct stat *st)
{
	return walk_beneath(root, rel, false, false, dir_ok, st);
}

int air__lfolder_beneath(const char *root, const char *rel, bool make)
{
	return walk_beneath(root, rel, true, make, true, NULL);
}

json_t *air__lread_json(const char *path)
{
	air__buf b = AIR__BUF_INIT;
	json_t *v = NULL;

	if (air__lread_file(path, AIR__LOCAL_MAX_JSON, &b) == 0)
		v = json_loadb(b.ptr, b.len, JSON_REJECT_DUPLICATES, NULL);
	air__buf_dispose(&b);
	return v;
}

int air__llock(const char *path, bool wait, const air__ctx *ctx, int *fd)
{
	int f = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600), saved;

	*fd = -1;
	if (f < 0)
		return -1;
	for (;;) {
		if (flock(f, LOCK_EX | LOCK_NB) == 0) {
			*fd = f;
			return 0;
		}
		saved = errno;
		if (saved == EINTR)
			continue;
		if (saved != EWOULDBLOCK || !wait)
			break;
		/* Held by another process: wait in slices, so that the call's
		 * interrupt and deadline still apply. */
		if (air__ctx_sleep(ctx, LOCK_POLL_MS, NULL, NULL) != AIR_OK) {
			saved = EINTR;
			break;
		}
	}
	close(f);
	errno = saved;
	return -1;
}

void air__lunlock(int fd)
{
	if (fd >= 0) {
		flock(fd, LOCK_UN);
		close(fd);
	}
}

int air__lremove_tree(const char *path)
{
	struct stat st;
	DIR *d;
	struct dirent *e;
	int rc = 0;

	if (lstat(path, &st) != 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlink(path);
	if (!(d = opendir(path)))
		return -1;
	while (rc == 0 && (e = readdir(d)) != NULL) {
		char *child;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (!(child = air__lpath(path, "%s", e->d_name))) {
			errno = ENOMEM;
			rc = -1;
			break;
		}
		rc = air__lremove_tree(child);
		air__free(child);
	}
	closedir(d);
	return rc == 0 ? rmdir(path) : rc;
}

static int copy_file(const char *from, const char *to)
{
	air__buf b = AIR__BUF_INIT;
	int rc = air__lread_file(from, SIZE_MAX / 2, &b);

	if (rc == 0)
		rc = air__lwrite_fresh(to, b.ptr, b.len, 0600);
	air__buf_dispose(&b);
	return rc;
}

int air__lcopy_dir_files(const char *from, const char *to)
{
	DIR *d;
	struct dirent *e;
	int rc = air__lmkdirs(to, 0700);

	if (rc != 0)
		return rc;
	if (!(d = opendir(from)))
		return -1;
	while (rc == 0 && (e = readdir(d)) != NULL) {
		char *src = air__lpath(from, "%s", e->d_name);
		char *dst = air__lpath(to, "%s", e->d_name);
		struct stat st;

		if (!src || !dst) {
			errno = ENOMEM;
			rc = -1;
		} else if (lstat(src, &st) == 0 && S_ISREG(st.st_mode)) {
			rc = copy_file(src, dst);
		}
		air__free(src);
		air__free(dst);
	}
	closedir(d);
	return rc;
}

bool air__lexists(const char *path)
{
	struct stat st;

	return path && lstat(path, &st) == 0;
}

/*
 * list_cache.c: what a listing fetched for finished runs, kept on disk.
 *
 * A terminal run never changes, so its runs/get object and, once resolved,
 * its MLflow ids and run name are kept: a later listing reads them instead
 * of asking the workspace again. One file per run,
 * <cache dir>/air/runs/<first 32 hex digits of SHA-256(host)>/<run id>.json,
 * where the cache dir is $DATABRICKS_CACHE_DIR, else
 * $XDG_CACHE_HOME/databricks, else ~/.cache/databricks — the folder the
 * Databricks CLI keeps its own cache in (its exact default is unconfirmed;
 * this follows the XDG convention it uses on Linux). The directories are
 * 0700 and the files 0600; a file is written to a temporary name and
 * renamed, so concurrent listings never read half an entry. The folders
 * under the cache dir are opened one by one without following a symbolic
 * link, must be this user's and writable by no one else (the host's folder
 * readable by no one else), and every entry is reached through the host
 * folder's descriptor: a link or a folder planted by someone else is never
 * written to or pruned. Entries expire after 60 days; an unreadable,
 * damaged or special file (a FIFO) is a miss (and is replaced); a folder is
 * kept to MAX_ENTRIES entries (the lowest run ids, the oldest runs, go
 * first: a listing reads newest first, so the runs it reads first stay),
 * an entry to MAX_ENTRY_BYTES, and a temporary file a killed listing left
 * is removed after TMP_MAX_AGE_S. DATABRICKS_CACHE_ENABLED=false (or 0) turns
 * the cache off, as for the Databricks CLI, and so does AIR_LIST_CACHE 0.
 * Nothing here ever fails a listing: every problem is a miss.
 */
#include "transport/transport.h"
#include "runs/list.h"
#include "core/core_fsize.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_AGE_MS (60LL * 24 * 3600 * 1000)
#define MAX_ENTRIES 2000
#define MAX_ENTRY_BYTES ((size_t)1 << 20)
/* 2: only runs whose life cycle ended (version 1 kept runs still
 * terminating, so its entries are misses). */
#define ENTRY_VERSION 2
#define TMP_MAX_AGE_S 3600
#define TMP_INFIX ".json.tmp-"

struct air__list_cache {
	int fd; /* the host's folder */
};

static bool env_disabled(void)
{
	const char *v = getenv("DATABRICKS_CACHE_ENABLED");

	return v && (!strcasecmp(v, "false") || !strcmp(v, "0"));
}

/* The cache's base folder (no trailing slash), or NULL without a home. */
static char *base_dir(void)
{
	const char *dir = getenv("DATABRICKS_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");

	if (dir && *dir)
		return air__strdup(dir);
	if (xdg && *xdg == '/')
		return air__sprintf("%s/databricks", xdg);
	if (home && *home)
		return air__sprintf("%s/.cache/databricks", home);
	return NULL;
}

/* mkdir -p of @path (the folders the user's setting names; created 0700). */
static bool make_dirs(char *path)
{
	for (char *p = path + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char c = *p;
		*p = '\0';
		if (mkdir(path, 0700) != 0 && errno != EEXIST) {
			*p = c;
			return false;
		}
		*p = c;
		if (!c)
			return true;
	}
}

/* Folder @name of folder @at, created 0700 when missing, opened without
 * following a link: this user's, and writable by no one else (readable by
 * no one else either when @private). Its descriptor (@at closed), or -1. */
static int open_own_dir(int at, const char *name, bool private)
{
	struct stat st;
	int fd;

	if (mkdirat(at, name, 0700) != 0 && errno != EEXIST)
		fd = -1;
	else
		fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	close(at);
	if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	                (st.st_mode & (private ? 077 : 022)))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

air__list_cache *air__list_cache_open(air_client *c)
{
	const char *host = air__client_host(c);
	char hex[2 * AIR__SHA256_LEN + 1], *base;
	air__list_cache *cache;
	int fd;

	if (env_disabled() || !host || !strncmp(host, "local:", 6) || !(base = base_dir()))
		return NULL;
	air__sha256_hex(host, strlen(host), hex);
	hex[32] = '\0';
	fd = make_dirs(base) ? open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	if (fd >= 0)
		fd = open_own_dir(fd, "air", false);
	if (fd >= 0)
		fd = open_own_dir(fd, "runs", false);
	if (fd >= 0)
		fd = open_own_dir(fd, hex, true);
	if (fd < 0) {
		air__client_debug(c, AIR_DEBUG_INFO, "list cache off: %s/air/runs/%s is not a folder "
		                  "of yours that only you can use (a link, another user's, or "
		                  "writable by others)", base, hex);
		air__free(base);
		return NULL;
	}
	air__free(base);
	if (!(cache = air__calloc(1, sizeof(*cache)))) {
		close(fd);
		return NULL;
	}
	cache->fd = fd;
	return cache;
}

/* The name of run @id's entry: "<id>.json". */
static void entry_name(int64_t id, char out[32])
{
	snprintf(out, 32, "%lld.json", (long long)id);
}

void air__list_cache_close(air__list_cache *cache)
{
	if (!cache)
		return;
	close(cache->fd);
	air__free(cache);
}

json_t *air__list_cache_get(const air__list_cache *cache, int64_t run_id)
{
	char name[32];
	json_t *doc = NULL, *run;
	struct stat st;
	int fd = -1;
	int64_t saved;

	if (!cache)
		return NULL;
	entry_name(run_id, name);
	/* Non-blocking: a FIFO in an entry's place is opened at once, then left. */
	fd = openat(cache->fd, name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    (size_t)st.st_size <= MAX_ENTRY_BYTES)
		doc = json_loadfd(fd, 0, NULL);
	if (fd >= 0)
		close(fd);
	run = json_object_get(doc, "run");
	saved = air__json_int64_or(doc, "saved_ms", 0);
	if (!json_is_object(run) || air__json_int64_or(doc, "version", 0) != ENTRY_VERSION ||
	    air__json_int64_or(run, "run_id", 0) != run_id || saved <= 0 ||
	    !air__life_cycle_is_final(air__json_str(json_object_get(run, "state"),
	                                            "life_cycle_state")) ||
	    air__now_ms() - saved > MAX_AGE_MS) {
		if (fd >= 0)
			unlinkat(cache->fd, name, 0); /* damaged, expired or not a file: gone */
		json_decref(doc);
		doc = NULL;
	}
	return doc;
}

/* The run id an entry's name holds ("<id>.json", written as this file
 * writes it: no sign, no leading zero), or -1. */
static int64_t entry_id(const char *name)
{
	const char *dot = strchr(name, '.');
	char digits[24], canonical[32];
	int64_t id;

	if (!dot || strcmp(dot, ".json") || dot == name || (size_t)(dot - name) >= sizeof(digits))
		return -1;
	memcpy(digits, name, (size_t)(dot - name));
	digits[dot - name] = '\0';
	if (!air__parse_int64(digits, &id) || id < 0)
		return -1;
	entry_name(id, canonical);
	return strcmp(canonical, name) ? -1 : id;
}

/* Remove expired entries, temporary files a killed listing left, anything
 * that is not a regular file, and past MAX_ENTRIES the lowest run ids. */
static void prune(const air__list_cache *cache)
{
	/* A descriptor of its own: a dup() would share the read position, and
	 * every prune after the first of a listing would see nothing. */
	int dfd = openat(cache->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	struct dirent *de;
	int64_t *ids = NULL, now = air__now_ms();
	size_t n = 0, cap = 0;

	if (!d && dfd >= 0)
		close(dfd);
	while (d && (de = readdir(d)) != NULL) {
		struct stat st;
		int64_t id = entry_id(de->d_name);
		bool tmp = strstr(de->d_name, TMP_INFIX) != NULL;

		if ((id < 0 && !tmp) || fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		if (!S_ISREG(st.st_mode) ||
		    (tmp ? now / 1000 - (int64_t)st.st_mtime > TMP_MAX_AGE_S
		         : now - (int64_t)st.st_mtime * 1000 > MAX_AGE_MS)) {
			unlinkat(dfd, de->d_name, 0);
			continue;
		}
		if (tmp)
			continue;
		if (n == cap) {
			void *p = air__realloc(ids, (cap = cap ? cap * 2 : 256) * sizeof(*ids));
			if (!p)
				break;
			ids = p;
		}
		ids[n++] = id;
	}
	/* Rarely more than a few over: drop the lowest id one at a time. */
	while (d && n > MAX_ENTRIES) {
		char name[32];
		size_t o = 0;

		for (size_t i = 1; i < n; i++)
			if (ids[i] < ids[o])
				o = i;
		entry_name(ids[o], name);
		unlinkat(dfd, name, 0);
		ids[o] = ids[--n];
	}
	air__free(ids);
	if (d)
		closedir(d);
}

/* A new temporary file of @cache for entry @name: its descriptor, its name
 * in @tmp; -1 when it cannot be made. */
static int make_tmp(const air__list_cache *cache, const char *name, char *tmp, size_t size)
{
	uint8_t r[8];

	for (int tries = 0; tries < 8; tries++) {
		int fd;

		if (air__random_bytes(r, sizeof(r)) != AIR_OK)
			return -1;
		snprintf(tmp, size, "%.*s" TMP_INFIX "%02x%02x%02x%02x%02x%02x%02x%02x",
		         (int)(strlen(name) - strlen(".json")), name, r[0], r[1], r[2], r[3], r[4],
		         r[5], r[6], r[7]);
		fd = openat(cache->fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		            0600);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return -1;
}

void air__list_cache_put(const air__list_cache *cache, const air_run *run, bool with_mlflow)
{
	json_t *doc, *ml = NULL;
	char name[32], tmp[96], *text = NULL;
	size_t len;
	int fd = -1;
	bool ok = false;

	/* Only a run whose life cycle has ended: a result alone (a run still
	 * terminating) may change yet. */
	if (!cache || !run->terminal || !air__life_cycle_is_final(run->life_cycle) || !run->json)
		return;
	doc = json_pack("{s:i, s:I, s:O}", "version", ENTRY_VERSION, "saved_ms",
	                (json_int_t)air__now_ms(), "run", run->json);
	if (doc && with_mlflow && (ml = json_object()) != NULL) {
		if (run->mlflow_exp_id && run->mlflow_run_id) {
			air__json_set_str(ml, "mlflow_experiment_id", run->mlflow_exp_id);
			air__json_set_str(ml, "mlflow_run_id", run->mlflow_run_id);
		}
		if (run->status_message)
			air__json_set_str(ml, "status_message", run->status_message);
		if (run->mlflow_run_name)
			air__json_set_str(ml, "run_name", run->mlflow_run_name);
		json_object_set_new(doc, "mlflow", ml);
	}
	entry_name(run->id, name);
	if (doc && (text = json_dumps(doc, JSON_COMPACT)) != NULL &&
	    (len = strlen(text)) <= MAX_ENTRY_BYTES &&
	    (fd = make_tmp(cache, name, tmp, sizeof(tmp))) >= 0) {
		size_t off = 0;
		air__fsize_guard_t fsize;

		air__fsize_guard(&fsize); /* past the file size limit: not cached, no SIGXFSZ */
		while (off < len) {
			ssize_t w = write(fd, text + off, len - off);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				break;
			off += (size_t)w;
		}
		air__fsize_unguard(&fsize);
		ok = off == len;
		ok = close(fd) == 0 && ok;
		ok = ok && renameat(cache->fd, tmp, cache->fd, name) == 0;
		if (!ok)
			unlinkat(cache->fd, tmp, 0);
	}
	if (ok)
		prune(cache);
	free(text); /* jansson's allocator */
	json_decref(doc);
}

bool air__list_cache_apply_mlflow(const json_t *entry, air_run *run, const char *host)
{
	const json_t *ml = json_object_get(entry, "mlflow");
	json_t *output;
	const char *name;

	if (!json_is_object(ml))
		return false;
	output = json_pack("{s:O}", "ai_runtime_task_output", ml);
	if (!output || air__run_set_output(run, output, host) != AIR_OK) {
		json_decref(output);
		return false;
	}
	json_decref(output);
	name = air__json_nonempty(ml, "run_name");
	if (name && !run->mlflow_run_name && !(run->mlflow_run_name = air__strdup(name)))
		return false;
	return true;
}

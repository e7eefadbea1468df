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
 * renamed, so concurrent listings never read half an entry. Entries expire
 * after 60 days; an unreadable or damaged one is a miss (and is replaced);
 * a directory is kept to MAX_ENTRIES files (the oldest go first) and an
 * entry to MAX_ENTRY_BYTES. DATABRICKS_CACHE_ENABLED=false (or 0) turns
 * the cache off, as for the Databricks CLI, and so does AIR_LIST_CACHE 0.
 * Nothing here ever fails a listing: every problem is a miss.
 */
#include "transport/transport.h"
#include "runs/list.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_AGE_MS (60LL * 24 * 3600 * 1000)
#define MAX_ENTRIES 2000
#define MAX_ENTRY_BYTES ((size_t)1 << 20)
#define ENTRY_VERSION 1

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

/* mkdir -p of @path; the folders it creates are 0700. */
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

char *air__list_cache_dir(air_client *c)
{
	const char *host = air__client_host(c);
	char hex[2 * AIR__SHA256_LEN + 1], *base, *dir = NULL;
	struct stat st;

	if (env_disabled() || !host || !strncmp(host, "local:", 6) || !(base = base_dir()))
		return NULL;
	air__sha256_hex(host, strlen(host), hex);
	dir = air__sprintf("%s/air/runs/%.32s", base, hex);
	air__free(base);
	/* Ours must be private: a folder others can read is not used. */
	if (!dir || !make_dirs(dir) || stat(dir, &st) != 0 || !S_ISDIR(st.st_mode) ||
	    st.st_uid != geteuid() || (st.st_mode & 077)) {
		air__free(dir);
		return NULL;
	}
	return dir;
}

static char *entry_path(const char *dir, int64_t run_id)
{
	return air__sprintf("%s/%lld.json", dir, (long long)run_id);
}

json_t *air__list_cache_get(const char *dir, int64_t run_id)
{
	char *path = dir ? entry_path(dir, run_id) : NULL;
	json_t *doc = NULL, *run;
	struct stat st;
	int fd = path ? open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) : -1;
	int64_t saved;

	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    (size_t)st.st_size <= MAX_ENTRY_BYTES)
		doc = json_loadfd(fd, 0, NULL);
	if (fd >= 0)
		close(fd);
	run = json_object_get(doc, "run");
	saved = air__json_int64_or(doc, "saved_ms", 0);
	if (!json_is_object(run) || air__json_int64_or(doc, "version", 0) != ENTRY_VERSION ||
	    air__json_int64_or(run, "run_id", 0) != run_id || saved <= 0 ||
	    air__now_ms() - saved > MAX_AGE_MS) {
		if (doc && path)
			unlink(path); /* damaged or expired: a miss, and gone */
		json_decref(doc);
		doc = NULL;
	}
	air__free(path);
	return doc;
}

/* Remove expired entries and, past MAX_ENTRIES, the oldest ones. */
static void prune(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	struct { char name[32]; int64_t mtime_ms; } *ents = NULL, oldest;
	size_t n = 0, cap = 0;
	int64_t now = air__now_ms();

	while (d && (de = readdir(d)) != NULL) {
		struct stat st;
		size_t len = strlen(de->d_name);

		if (len < 6 || len >= sizeof(oldest.name) || strcmp(de->d_name + len - 5, ".json") ||
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		if (now - (int64_t)st.st_mtime * 1000 > MAX_AGE_MS) {
			unlinkat(dirfd(d), de->d_name, 0);
			continue;
		}
		if (n == cap) {
			void *p = air__realloc(ents, (cap = cap ? cap * 2 : 256) * sizeof(*ents));
			if (!p)
				break;
			ents = p;
		}
		memcpy(ents[n].name, de->d_name, len + 1);
		ents[n++].mtime_ms = (int64_t)st.st_mtime * 1000;
	}
	/* Rarely more than a few over: drop the oldest one at a time. */
	while (d && n > MAX_ENTRIES) {
		size_t o = 0;
		for (size_t i = 1; i < n; i++)
			if (ents[i].mtime_ms < ents[o].mtime_ms)
				o = i;
		unlinkat(dirfd(d), ents[o].name, 0);
		ents[o] = ents[--n];
	}
	air__free(ents);
	if (d)
		closedir(d);
}

void air__list_cache_put(const char *dir, const air_run *run, bool with_mlflow)
{
	json_t *doc, *ml = NULL;
	char *path, *tmp = NULL, *text = NULL;
	size_t len;
	int fd = -1;
	bool ok = false;

	if (!dir || !run->terminal || !run->json)
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
	path = entry_path(dir, run->id);
	if (doc && path && (text = json_dumps(doc, JSON_COMPACT)) != NULL &&
	    (len = strlen(text)) <= MAX_ENTRY_BYTES &&
	    (tmp = air__sprintf("%s.tmp-XXXXXX", path)) != NULL && (fd = mkstemp(tmp)) >= 0) {
		size_t off = 0;
		while (off < len) {
			ssize_t w = write(fd, text + off, len - off);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				break;
			off += (size_t)w;
		}
		ok = off == len && fchmod(fd, 0600) == 0;
		ok = close(fd) == 0 && ok;
		ok = ok && rename(tmp, path) == 0;
		if (!ok)
			unlink(tmp);
	}
	if (ok)
		prune(dir);
	free(text); /* jansson's allocator */
	air__free(tmp);
	air__free(path);
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

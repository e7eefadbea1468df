/*
 * u2m.c: tokens cached by `databricks auth login` in the plaintext token
 * cache ~/.databricks/token-cache.json (docs/auth.md): reading, refreshing,
 * and rewriting the file atomically.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "transport/auth.h"
#include "core/core_fsize.h"
#include "core/core.h"

#define CACHE_VERSION 1
#define CACHE_MAX_BYTES (16 * 1024 * 1024)

/* Serialises read-modify-write cycles of the cache within the process. */
static pthread_mutex_t cache_file_lock = PTHREAD_MUTEX_INITIALIZER;

char *air__u2m_cache_path(const air_client *c)
{
	return c->cfg.home ? air__sprintf("%s/.databricks/token-cache.json", c->cfg.home) : NULL;
}

/* An RFC 3339 expiry -> epoch ms. */
static bool parse_expiry(const char *s, int64_t *out_ms)
{
	int64_t secs;
	int32_t ns;

	if (!air__parse_rfc3339(s, &secs, &ns) || secs < 0 || secs > INT64_MAX / 1000 - 1)
		return false;
	*out_ms = secs * 1000 + ns / 1000000;
	return true;
}

/* Read and check the cache document. AIR_ENOTFOUND when the file is absent. */
static int read_cache(const char *path, json_t **out, air_error **err)
{
	FILE *f = fopen(path, "rb");
	air__buf b = AIR__BUF_INIT;
	char chunk[4096];
	size_t n;
	json_error_t je;
	json_t *doc, *version;
	int rc;

	*out = NULL;
	if (!f) {
		if (errno == ENOENT || errno == ENOTDIR)
			return AIR_ENOTFOUND;
		return air__failf(err, AIR_EIO, 0, "cannot read token cache %s: %s", path,
		                  strerror(errno));
	}
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0 && b.len <= CACHE_MAX_BYTES)
		air__buf_put(&b, chunk, n);
	explicit_bzero(chunk, sizeof(chunk));
	fclose(f);
	if (air__buf_oom(&b) || b.len > CACHE_MAX_BYTES) {
		air__free_secret(b.ptr);
		return air__failf(err, AIR_EIO, 0, "cannot read token cache %s: too large", path);
	}
	doc = json_loadb(air__buf_cstr(&b), b.len, 0, &je);
	air__free_secret(b.ptr);
	if (!doc) {
		/* The reason and position only: the quoted text could be a token. */
		rc = air__failf(err, AIR_EIO, 0,
		                "token cache %s is not a JSON object: %s (line %d, column %d)", path,
		                air__json_error_reason(&je), je.line, je.column);
		explicit_bzero(&je, sizeof(je));
		return rc;
	}
	if (!json_is_object(doc)) {
		json_decref(doc);
		return air__failf(err, AIR_EIO, 0, "token cache %s is not a JSON object", path);
	}
	version = json_object_get(doc, "version");
	if (!json_is_integer(version) || json_integer_value(version) != CACHE_VERSION) {
		char v[32] = "missing";
		if (json_is_integer(version))
			snprintf(v, sizeof(v), "%lld", (long long)json_integer_value(version));
		json_decref(doc);
		return air__failf(err, AIR_EIO, 0,
		                  "token cache %s has version %s; libair reads version %d "
		                  "(log in again with databricks auth login)",
		                  path, v, CACHE_VERSION);
	}
	if (json_object_get(doc, "tokens") && !json_is_object(json_object_get(doc, "tokens"))) {
		json_decref(doc);
		return air__failf(err, AIR_EIO, 0, "token cache %s: \"tokens\" is not an object", path);
	}
	*out = doc;
	return AIR_OK;
}

int air__u2m_load(const air_client *c, const char *key, air__token *out, air_error **err)
{
	char *path = air__u2m_cache_path(c);
	json_t *doc = NULL, *entry;
	const char *at, *expiry;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!path)
		return AIR_ENOTFOUND;
	pthread_mutex_lock(&cache_file_lock);
	rc = read_cache(path, &doc, err);
	pthread_mutex_unlock(&cache_file_lock);
	if (rc != AIR_OK) {
		air__free(path);
		return rc;
	}
	entry = json_object_get(json_object_get(doc, "tokens"), key);
	at = air__json_nonempty(entry, "access_token");
	if (!at) {
		json_decref(doc);
		air__free(path);
		return AIR_ENOTFOUND;
	}
	expiry = air__json_nonempty(entry, "expiry");
	if (expiry && !parse_expiry(expiry, &out->expiry_ms)) {
		rc = air__failf(err, AIR_EIO, 0, "token cache %s: entry \"%s\" has a malformed expiry",
		                path, key);
	} else {
		/* Go's zero time (year 1) means "no expiry". */
		if (out->expiry_ms < 0)
			out->expiry_ms = 0;
		out->access_token = air__strdup(at);
		out->token_type = air__strdup(air__json_nonempty(entry, "token_type") ?
		                              air__json_nonempty(entry, "token_type") : "Bearer");
		if (air__json_nonempty(entry, "refresh_token"))
			out->refresh_token = air__strdup(air__json_nonempty(entry, "refresh_token"));
		if (!out->access_token || !out->token_type)
			rc = air__oom(err);
	}
	if (rc != AIR_OK)
		air__token_clear(out);
	json_decref(doc);
	air__free(path);
	return rc;
}

/* Write @doc to @path through a temporary file in the same directory. */
static int write_atomically(const char *path, const json_t *doc, air_error **err)
{
	air__fsize_guard_t fsize;
	char *tmp = air__sprintf("%s.tmp-XXXXXX", path);
	char *text = NULL;
	int fd = -1, rc = AIR_OK;
	size_t len, off = 0;

	if (!tmp || !(text = json_dumps(doc, JSON_INDENT(2)))) {
		rc = air__oom(err);
		goto done;
	}
	if ((fd = mkstemp(tmp)) < 0) {
		rc = air__failf(err, AIR_EIO, 0, "cannot write token cache %s: %s", path,
		                strerror(errno));
		goto done;
	}
	len = strlen(text);
	air__fsize_guard(&fsize); /* past the file size limit: an error, not SIGXFSZ */
	while (off < len) {
		ssize_t w = write(fd, text + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	air__fsize_unguard(&fsize);
	if (off < len || fchmod(fd, 0600) != 0 || fsync(fd) != 0 || close(fd) != 0) {
		rc = air__failf(err, AIR_EIO, 0, "cannot write token cache %s: %s", path,
		                strerror(errno));
		if (off < len)
			close(fd);
		unlink(tmp);
		goto done;
	}
	if (rename(tmp, path) != 0) {
		rc = air__failf(err, AIR_EIO, 0, "cannot replace token cache %s: %s", path,
		                strerror(errno));
		unlink(tmp);
	}
done:
	if (text) {
		explicit_bzero(text, strlen(text));
		free(text); /* jansson's allocator */
	}
	air__free(tmp);
	return rc;
}

static bool set_str(json_t *obj, const char *key, const char *value)
{
	return value ? air__json_set_str(obj, key, value) : true;
}

/* Write @tok into @tokens[@key], keeping members this version does not know. */
static bool update_entry(json_t *tokens, const char *key, const air__token *tok)
{
	json_t *entry = json_object_get(tokens, key);
	char expiry[32];

	if (!json_is_object(entry)) {
		entry = json_object();
		if (!entry || json_object_set_new(tokens, key, entry) != 0)
			return false;
	}
	if (tok->expiry_ms > 0)
		air__format_rfc3339(tok->expiry_ms / 1000, expiry);
	else
		json_object_del(entry, "expiry");
	return set_str(entry, "access_token", tok->access_token) &&
	       set_str(entry, "token_type", tok->token_type) &&
	       set_str(entry, "refresh_token", tok->refresh_token) &&
	       (tok->expiry_ms <= 0 || set_str(entry, "expiry", expiry));
}

int air__u2m_store(const air_client *c, const char *key, const air__token *tok,
                   const char *spent_refresh_token, air_error **err)
{
	char *path = air__u2m_cache_path(c), *dir = NULL;
	json_t *doc = NULL, *tokens = NULL, *entry;
	const char *k;
	bool ok;
	int rc;

	if (!path)
		return air__failf(err, AIR_EIO, 0, "no home directory for the token cache");
	dir = air__strndup(path, (size_t)(strrchr(path, '/') - path));
	pthread_mutex_lock(&cache_file_lock);
	rc = read_cache(path, &doc, err);
	if (rc == AIR_ENOTFOUND) {
		rc = AIR_OK;
		doc = json_pack("{s:i}", "version", CACHE_VERSION);
	}
	if (rc == AIR_OK && dir && mkdir(dir, 0700) != 0 && errno != EEXIST)
		rc = air__failf(err, AIR_EIO, 0, "cannot create %s: %s", dir, strerror(errno));
	if (rc == AIR_OK) {
		if (doc && !(tokens = json_object_get(doc, "tokens")) && (tokens = json_object()))
			json_object_set_new(doc, "tokens", tokens);
		ok = dir && tokens && update_entry(tokens, key, tok);
		/* The login may be mirrored under another key (the CLI keeps a copy
		 * under the host): its refresh token is spent too, so update it. */
		json_object_foreach(tokens, k, entry) {
			const char *rt = air__json_str(entry, "refresh_token");
			if (ok && spent_refresh_token && rt && strcmp(rt, spent_refresh_token) == 0)
				ok = update_entry(tokens, k, tok);
		}
		rc = ok ? write_atomically(path, doc, err)
		        : air__oom(err);
	}
	pthread_mutex_unlock(&cache_file_lock);
	json_decref(doc);
	air__free(dir);
	air__free(path);
	return rc;
}

int air__u2m_refresh(air_client *c, const air__ctx *ctx, const char *endpoint,
                     const char *cache_key, const air__token *old, bool once, air__token *out,
                     air_error **err)
{
	air__buf form = AIR__BUF_INIT;
	air_error *e = NULL, *store_err = NULL;
	int rc;

	if (!old->refresh_token)
		return air__failf(err, AIR_EAUTH, 0,
		                  "the cached login for \"%s\" expired and has no refresh token; run "
		                  "databricks auth login again",
		                  cache_key);
	air__buf_puts(&form, "grant_type=refresh_token&refresh_token=");
	air__buf_put_form(&form, old->refresh_token);
	/* The token as the form encodes it is a secret too. */
	if (!air__buf_oom(&form))
		air__secrets_add(c->secrets, strstr(form.ptr, "refresh_token=") + 14);
	air__buf_puts(&form, "&client_id=databricks-cli");
	if (air__buf_oom(&form)) {
		air__free_secret(form.ptr);
		return air__oom(err);
	}
	rc = air__oauth_request(c, ctx, endpoint, form.ptr, NULL, once, out, &e);
	air__free_secret(form.ptr);
	if (rc != AIR_OK) {
		const char *code = air_error_server_code(e);
		/* OAuth says invalid_grant; legacy replies carry it as the message. */
		if ((code && strcmp(code, "invalid_grant") == 0) ||
		    strstr(air_error_message(e), "invalid_grant")) {
			air_error *r = air__error_new(
			        AIR_EAUTH, 0,
			        "the refresh token for \"%s\" is invalid or expired: run databricks auth "
			        "login %s%s (%s)",
			        cache_key, air__starts_with(cache_key, "http") ? "--host " : "--profile ",
			        cache_key, air_error_message(e));
			air_error_free(e);
			e = r;
		}
		return air__fail(err, e);
	}
	if (!out->refresh_token && !(out->refresh_token = air__strdup(old->refresh_token))) {
		air__token_clear(out);
		return air__oom(err);
	}
	/* The new token is usable even if the cache cannot be rewritten. */
	if (air__u2m_store(c, cache_key, out, old->refresh_token, &store_err) != AIR_OK)
		air__client_debug(c, AIR_DEBUG_INFO, "token cache not updated: %s",
		                  air_error_message(store_err));
	air_error_free(store_err);
	return AIR_OK;
}

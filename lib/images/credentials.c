/* credentials.c: registry credentials from the local Docker configuration,
 * stored in the caller's secret scope (credentials.h). */
#include "images/credentials.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "images/docker_config.h"

#define CONFIG_MAX_BYTES (4 * 1024 * 1024)
#define HELPER_OUTPUT_MAX (64 * 1024)
#define SCOPES_LIST_PATH "/api/2.0/secrets/scopes/list"
#define SCOPES_CREATE_PATH "/api/2.0/secrets/scopes/create"
#define SECRETS_PUT_PATH "/api/2.0/secrets/put"

void air__registry_creds_dispose(air__registry_creds *cr)
{
	air__free_secret(cr->user);
	air__free_secret(cr->secret);
	air__free(cr->source);
	air__free(cr->problems);
	memset(cr, 0, sizeof(*cr));
}

/* Append a problem to cr->problems (out of memory: the note is dropped). */
static void note(air__registry_creds *cr, const char *fmt, ...) AIR__PRINTF(2, 3);
static void note(air__registry_creds *cr, const char *fmt, ...)
{
	air__buf b = AIR__BUF_INIT;
	va_list ap;

	if (cr->problems) {
		air__buf_puts(&b, cr->problems);
		air__buf_puts(&b, "; ");
	}
	va_start(ap, fmt);
	air__buf_vprintf(&b, fmt, ap);
	va_end(ap);
	if (air__buf_oom(&b)) {
		air__buf_dispose(&b);
		return;
	}
	air__free(cr->problems);
	cr->problems = air__buf_detach(&b);
}

/* Remember every form in which the credentials travel, then keep them. */
static int found(air_client *c, air__registry_creds *cr, const char *user, const char *secret,
                 char *source, air_error **err)
{
	char *pair = air__sprintf("%s:%s", user, secret), *b64 = pair ? air__base64(pair, strlen(pair))
	                                                               : NULL;
	bool ok = pair && b64 && air__client_add_secret(c, secret) == AIR_OK &&
	          air__client_add_secret(c, pair) == AIR_OK && air__client_add_secret(c, b64) == AIR_OK;

	air__free_secret(pair);
	air__free_secret(b64);
	if (!ok || !source || !(cr->user = air__strdup(user)) || !(cr->secret = air__strdup(secret))) {
		air__free(source);
		air__free_secret(cr->user);
		cr->user = NULL;
		return air__oom(err);
	}
	cr->source = source;
	return AIR_OK;
}

static char *config_path(air_client *c, const char *config_dir)
{
	const char *dir = config_dir && *config_dir ? config_dir : air__client_env(c, "DOCKER_CONFIG");
	const char *home;

	if (dir)
		return air__sprintf("%s/config.json", dir);
	home = air__client_opt_str(c, AIR_OPT_HOME_DIR);
	if (!home)
		home = getenv("HOME");
	return home && *home ? air__sprintf("%s/.docker/config.json", home) : NULL;
}

/* The file's bytes; AIR_ENOTFOUND when it does not exist, AIR_EIO noted. */
static int read_config(const char *path, air__buf *out, air__registry_creds *cr)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return AIR_ENOTFOUND;
		note(cr, "cannot read %s: %s", path, strerror(errno));
		return AIR_EIO;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > CONFIG_MAX_BYTES) {
		note(cr, "%s is not a regular file of at most %d bytes", path, CONFIG_MAX_BYTES);
		close(fd);
		return AIR_EIO;
	}
	for (;;) {
		char chunk[8192];
		ssize_t n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			note(cr, "cannot read %s: %s", path, strerror(errno));
			close(fd);
			return AIR_EIO;
		}
		if (n == 0 || out->len + (size_t)n > CONFIG_MAX_BYTES)
			break;
		air__buf_put(out, chunk, (size_t)n);
	}
	close(fd);
	return air__buf_oom(out) ? AIR_ENOMEM : AIR_OK;
}

/* `docker-credential-<name> get` with the registry on stdin: {"Username","Secret"}.
 * A helper's output is never quoted (it may hold the credentials, even when
 * the helper fails): notes say which helper failed and how. */
static int run_helper(air_client *c, const air__ctx *ctx, const char *name, const char *registry,
                      int64_t timeout_ms, air__registry_creds *cr, air_error **err)
{
	char *prog = air__sprintf("docker-credential-%s", name);
	const char *argv[] = {prog, "get", NULL};
	air__proc_opts o = AIR__PROC_OPTS_INIT;
	air__proc_result r;
	air_error *e = NULL;
	json_t *reply = NULL;
	const char *user, *secret;
	int rc;

	if (!prog)
		return air__oom(err);
	o.timeout_ms = timeout_ms;
	o.ctx = ctx;
	o.stdout_limit = HELPER_OUTPUT_MAX;
	o.stdin_data = registry;
	o.stdin_len = strlen(registry);
	rc = air__proc_run(argv, &o, &r, &e);
	if (rc == AIR_EIO) {
		note(cr, "%s", air_error_message(e)); /* could not start: names the program only */
		rc = AIR_OK;
	} else if (rc != AIR_OK) {
		air__fail(err, e);
		e = NULL;
	} else if (r.timed_out) {
		note(cr, "%s did not answer within %lld ms", prog, (long long)timeout_ms);
	} else if (r.overflow) {
		note(cr, "%s printed more than %d bytes", prog, HELPER_OUTPUT_MAX);
	} else if (r.term_signal) {
		note(cr, "%s was killed by signal %d", prog, r.term_signal);
	} else if (r.exit_code != 0) {
		note(cr, "%s exited with status %d: no credentials for %s", prog, r.exit_code, registry);
	} else if (!(reply = air__json_parse(r.out.ptr, r.out.len, prog, NULL))) {
		note(cr, "%s printed no valid JSON", prog);
	} else if (!(user = air__json_nonempty(reply, "Username")) ||
	           !(secret = air__json_nonempty(reply, "Secret"))) {
		note(cr, "%s answered without a Username and a Secret", prog);
	} else {
		rc = found(c, cr, user, secret, air__sprintf("credential helper %s", prog), err);
	}
	if (reply) {
		/* The reply held the secret: overwrite it before it is freed. */
		const char *s = air__json_str(reply, "Secret");
		if (s)
			memset((char *)s, 0, strlen(s));
		json_decref(reply);
	}
	if (r.out.ptr)
		memset(r.out.ptr, 0, r.out.cap);
	if (r.err.ptr)
		memset(r.err.ptr, 0, r.err.cap);
	air__proc_result_dispose(&r);
	air_error_free(e);
	air__free(prog);
	return rc;
}

int air__registry_creds_discover(air_client *c, const air__ctx *ctx, const char *config_dir,
                                 const char *registry, int64_t helper_timeout_ms,
                                 air__registry_creds *out, air_error **err)
{
	char *path = config_path(c, config_dir), *user = NULL, *secret = NULL;
	air__docker_config *cfg = NULL;
	air__buf text = AIR__BUF_INIT;
	air_error *e = NULL;
	const char *helper;
	bool per_registry;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!path)
		return AIR_OK; /* no home directory: nothing to look at */
	rc = read_config(path, &text, out);
	if (rc == AIR_OK && air__docker_config_parse(path, text.ptr ? text.ptr : "", text.len, &cfg,
	                                             &e) != AIR_OK)
		note(out, "%s", air_error_message(e));
	if (text.ptr)
		memset(text.ptr, 0, text.cap);
	air__buf_dispose(&text);
	air_error_free(e);
	if (rc == AIR_ENOMEM) {
		air__free(path);
		return air__oom(err);
	}
	rc = AIR_OK;
	/* The registry's credHelpers entry, then credsStore, then auths. */
	if (cfg && (helper = air__docker_config_helper(cfg, registry, &per_registry))) {
		const char *store = per_registry ? air__docker_config_store(cfg) : NULL;
		rc = run_helper(c, ctx, helper, registry, helper_timeout_ms, out, err);
		if (rc == AIR_OK && !out->user && store && strcmp(store, helper) != 0)
			rc = run_helper(c, ctx, store, registry, helper_timeout_ms, out, err);
	}
	if (rc == AIR_OK && cfg && !out->user &&
	    (rc = air__docker_config_inline(cfg, registry, &user, &secret)) != AIR_ENOTFOUND) {
		rc = rc == AIR_OK ? found(c, out, user, secret, air__sprintf("auths in %s", path), err)
		                  : air__oom(err);
	} else if (rc == AIR_ENOTFOUND) {
		rc = AIR_OK;
	}
	air__free_secret(user);
	air__free_secret(secret);
	air__docker_config_free(cfg);
	air__free(path);
	return rc;
}

char *air__registry_configured_host(air_client *c, const char *config_dir,
                                    const char *workspace_host)
{
	char *path = config_path(c, config_dir), *label = NULL, *host = NULL;
	air__registry_creds notes = {NULL, NULL, NULL, NULL};
	air__docker_config *cfg = NULL;
	air__buf text = AIR__BUF_INIT;

	if (path && read_config(path, &text, &notes) == AIR_OK &&
	    air__docker_config_parse(path, air__buf_cstr(&text), text.len, &cfg, NULL) == AIR_OK) {
		const char *h = workspace_host ? strstr(workspace_host, "://") : NULL;
		h = h ? h + 3 : workspace_host;
		label = h ? air__strndup(h, strcspn(h, ".:/")) : NULL;
		host = air__docker_config_helper_host(cfg, ".container.", label);
	}
	if (text.ptr)
		memset(text.ptr, 0, text.cap);
	air__buf_dispose(&text);
	air__registry_creds_dispose(&notes);
	air__docker_config_free(cfg);
	air__free(label);
	air__free(path);
	return host;
}

/* @s with every character outside [A-Za-z0-9._-] (and @extra) replaced by '_'. */
static void sanitize(air__buf *b, const char *s, const char *extra)
{
	for (; *s; s++)
		air__buf_putc(b, isalnum((unsigned char)*s) || strchr("._-", *s) ||
		                         (extra && strchr(extra, *s)) ? *s : '_');
}

char *air__registry_scope_name(const char *user_name)
{
	air__buf b = AIR__BUF_INIT;

	air__buf_puts(&b, "docker-credentials-");
	sanitize(&b, user_name, "@");
	return air__buf_detach(&b);
}

char *air__registry_key_name(const char *registry, const char *docker_user)
{
	char *host = air__docker_registry_host(registry);
	air__buf b = AIR__BUF_INIT;

	if (!host)
		return NULL;
	sanitize(&b, host, NULL);
	air__buf_putc(&b, '-');
	sanitize(&b, docker_user, NULL);
	air__buf_puts(&b, "-local");
	air__free(host);
	return air__buf_detach(&b);
}

/* Whether the scope exists; a failed listing says "unknown" (false). */
static bool scope_listed(air_client *c, const air__ctx *ctx, const char *scope)
{
	json_t *reply = NULL, *s;
	size_t i;
	bool yes = false;

	if (air__api_json(c, ctx, "GET", SCOPES_LIST_PATH, NULL, NULL, &reply, NULL, NULL) != AIR_OK)
		return false;
	json_array_foreach(json_object_get(reply, "scopes"), i, s) {
		const char *name = air__json_str(s, "name");
		yes |= name && !strcmp(name, scope);
	}
	json_decref(reply);
	return yes;
}

static bool server_code_is(const air_error *e, const char *code)
{
	const char *got = air_error_server_code(e);
	return got && !strcmp(got, code);
}

static int create_scope(air_client *c, const air__ctx *ctx, const char *scope, air_error **err)
{
	json_t *body = json_pack("{s:s}", "scope", scope);
	air_error *e = NULL;
	int rc;

	if (!body)
		return air__oom(err);
	rc = air__api_json(c, ctx, "POST", SCOPES_CREATE_PATH, NULL, body, NULL, NULL, &e);
	json_decref(body);
	if (rc == AIR_OK || server_code_is(e, "RESOURCE_ALREADY_EXISTS") ||
	    server_code_is(e, "ALREADY_EXISTS")) {
		air_error_free(e);
		return AIR_OK;
	}
	if (server_code_is(e, "RESOURCE_LIMIT_EXCEEDED"))
		air__error_prefix(air__error_set_kind(air__error_set_code(e, AIR_EAPI), AIR_KIND_PERMANENT),
		                  "the workspace's limit of secret scopes is reached, so secret scope %s "
		                  "for the registry credentials cannot be created (delete an unused scope, "
		                  "or store the credentials yourself and name them by scope and key)", scope);
	else if (air_error_http_status(e) == 403)
		air__error_prefix(e, "you may not create secret scope %s for the registry credentials "
		                  "(ask a workspace admin to create it and grant you WRITE on it)", scope);
	else
		air__error_prefix(e, "creating secret scope %s for the registry credentials", scope);
	return air__fail(err, e);
}

static int put_secret(air_client *c, const air__ctx *ctx, const char *scope, const char *key,
                      const air__registry_creds *cr, air_error **err)
{
	char *pair = air__sprintf("%s:%s", cr->user, cr->secret);
	char *b64 = pair ? air__base64(pair, strlen(pair)) : NULL;
	json_t *body = b64 ? json_pack("{s:s, s:s, s:s}", "scope", scope, "key", key, "string_value",
	                               b64) : NULL;
	air_error *e = NULL;
	int rc;

	air__free_secret(pair);
	air__free_secret(b64);
	if (!body)
		return air__oom(err);
	rc = air__api_json(c, ctx, "POST", SECRETS_PUT_PATH, NULL, body, NULL, NULL, &e);
	{
		const char *v = air__json_str(body, "string_value");
		if (v)
			memset((char *)v, 0, strlen(v));
	}
	json_decref(body);
	if (rc == AIR_OK)
		return AIR_OK;
	if (air_error_http_status(e) == 403)
		air__error_prefix(e, "you may not write secret %s/%s for the registry credentials (ask "
		                  "for WRITE permission on the scope)", scope, key);
	else
		air__error_prefix(e, "storing the registry credentials as secret %s/%s", scope, key);
	return air__fail(err, e);
}

int air__registry_creds_store(air_client *c, const air__ctx *ctx, const char *registry,
                              const air__registry_creds *cr, char **scope, char **key,
                              air_error **err)
{
	char *user_name = NULL;
	air_error *e = NULL;
	int rc;

	*scope = *key = NULL;
	rc = air__client_user_name(c, ctx, &user_name, &e);
	if (rc != AIR_OK)
		return air__fail(err, air__error_prefix(e, "looking up the current user"));
	*scope = air__registry_scope_name(user_name);
	*key = air__registry_key_name(registry, cr->user);
	air__free(user_name);
	if (!*scope || !*key)
		rc = air__oom(err);
	if (rc == AIR_OK && !scope_listed(c, ctx, *scope))
		rc = create_scope(c, ctx, *scope, err);
	if (rc == AIR_OK)
		rc = put_secret(c, ctx, *scope, *key, cr, err);
	if (rc != AIR_OK) {
		air__free(*scope);
		air__free(*key);
		*scope = *key = NULL;
	}
	return rc;
}

/*
 * registry.c: whether a Unity Catalog image is in the workspace's artifact
 * registry and readable by this identity (images.h).
 *
 * No REST endpoint of the workspace is documented to say so (unconfirmed), so
 * libair asks the registry the way `docker pull` would, without pulling: a
 * registry v2 manifest request, HEAD /v2/<catalog.schema.artifact>/manifests/
 * <tag>, with the credentials the local Docker configuration has for the
 * registry (the credential helper `databricks auth docker configure` sets
 * up), through the registry's token service when it answers 401 with a
 * Bearer challenge (the Docker registry token protocol). Anything short of a
 * clear answer is AIR__REGISTRY_UNKNOWN, never a pass.
 */
#include "images/images.h"

#include <string.h>
#include <strings.h>

#include "images/credentials.h"
#include "images/docker_config.h"

#define MANIFEST_ACCEPT                                                                    \
	"Accept: application/vnd.oci.image.index.v1+json, "                                \
	"application/vnd.oci.image.manifest.v1+json, "                                     \
	"application/vnd.docker.distribution.manifest.list.v2+json, "                      \
	"application/vnd.docker.distribution.manifest.v2+json"
#define REGISTRY_CONNECT_MS 10000
#define REGISTRY_INACTIVITY_MS 30000
#define TOKEN_REPLY_MAX (256 * 1024)

typedef struct probe {
	air_client *c;
	const air__ctx *ctx;
	char *base;                /* "https://host[:port]" */
	char *name, *tag;
	air__registry_creds creds;
	char *basic;               /* "Authorization: Basic ..." or NULL */
	char *bearer;              /* "Authorization: Bearer ..." or NULL */
	char *failure;             /* why the last request got no reply */
} probe;

void air__registry_lookup_dispose(air__registry_lookup *r)
{
	if (!r)
		return;
	air__free(r->registry);
	air__free(r->why);
	memset(r, 0, sizeof(*r));
}

static void probe_dispose(probe *p)
{
	air__free(p->base);
	air__free(p->name);
	air__free(p->tag);
	air__registry_creds_dispose(&p->creds);
	air__free_secret(p->basic);
	air__free_secret(p->bearer);
	air__free(p->failure);
}

/* One request through the engine, never with the workspace's credentials.
 * AIR_OK with @resp (status 0 when no reply came: p->failure says why), or
 * the failure that stops the look-up (interrupt, deadline, out of memory). */
static int ask(probe *p, const char *url, const char *query, const char *auth, bool head,
               air__http_resp *resp, air_error **err)
{
	const char *headers[3] = {MANIFEST_ACCEPT, auth, NULL};
	air__http_req req = {.method = head ? "HEAD" : "GET", .path = url, .query = query,
	                     .headers = headers,
	                     .flags = AIR__HTTP_NO_AUTH | AIR__HTTP_ABSOLUTE_URL |
	                              AIR__HTTP_NO_WORKSPACE,
	                     .connect_timeout_ms = REGISTRY_CONNECT_MS,
	                     .inactivity_timeout_ms = REGISTRY_INACTIVITY_MS,
	                     .max_reply = TOKEN_REPLY_MAX};
	air_error *e = NULL;
	int rc;

	air__http_resp_clear(resp);
	rc = air__http_do(p->c, p->ctx, &req, resp, &e);
	if (rc == AIR_OK)
		return AIR_OK;
	if (rc == AIR_ENOMEM || air__ctx_check(p->ctx, "looking up the image", NULL) != AIR_OK) {
		air_error_free(e);
		return rc == AIR_ENOMEM ? air__oom(err)
		                        : air__ctx_check(p->ctx, "looking up the image", err);
	}
	if (rc == AIR_EINTERRUPTED)
		return air__fail(err, e);
	if (!resp->status) {
		air__free(p->failure);
		p->failure = air__strdup(air_error_message(e));
	}
	air_error_free(e);
	return AIR_OK;
}

/* The value of @key in a WWW-Authenticate challenge (`Bearer realm="...",
 * service="...",scope="..."`), or NULL. air__free(). */
static char *challenge_param(const char *challenge, const char *key)
{
	size_t kn = strlen(key);

	for (const char *s = strchr(challenge, ' '); s && *s;) {
		const char *name, *v;
		size_t n;

		s += strspn(s, " ,\t");
		name = s;
		n = strcspn(s, "=, \t");
		s += n;
		if (*s != '=')
			continue;
		v = ++s;
		if (*v == '"') {
			const char *end = strchr(++v, '"');
			if (!end)
				return NULL;
			s = end + 1;
			if (n == kn && !strncasecmp(name, key, kn))
				return air__strndup(v, (size_t)(end - v));
		} else {
			s += strcspn(s, ", \t");
			if (n == kn && !strncasecmp(name, key, kn))
				return air__strndup(v, (size_t)(s - v));
		}
	}
	return NULL;
}

/* A pull token from the registry's token service for a Bearer @challenge:
 * p->bearer set, or *status the service's refusal (0: no answer). */
static int fetch_token(probe *p, const char *challenge, int32_t *status, air_error **err)
{
	char *realm = challenge_param(challenge, "realm");
	char *service = challenge_param(challenge, "service");
	char *scope = challenge_param(challenge, "scope");
	air__http_resp resp = AIR__HTTP_RESP_INIT;
	air__buf q = AIR__BUF_INIT;
	json_t *reply = NULL;
	const char *token;
	int rc = AIR_OK;

	*status = 0;
	if (!realm)
		goto out;
	if (service)
		air__buf_query(&q, "service", service);
	if (scope) {
		air__buf_query(&q, "scope", scope);
	} else {
		char *s = air__sprintf("repository:%s:pull", p->name);
		air__buf_query(&q, "scope", s ? s : "");
		air__free(s);
	}
	if (air__buf_oom(&q)) {
		rc = air__oom(err);
		goto out;
	}
	rc = ask(p, realm, air__buf_cstr(&q), p->basic, false, &resp, err);
	*status = resp.status;
	if (rc != AIR_OK || resp.status < 200 || resp.status >= 300)
		goto out;
	reply = air__json_parse(resp.body ? resp.body : "", resp.body_len, "the token reply", NULL);
	token = air__json_nonempty(reply, "token");
	if (!token)
		token = air__json_nonempty(reply, "access_token");
	if (!token) {
		*status = 0;
		air__free(p->failure);
		p->failure = air__strdup("its token service answered without a token");
	} else if (air__client_add_secret(p->c, token) != AIR_OK ||
	           !(p->bearer = air__sprintf("Authorization: Bearer %s", token))) {
		rc = air__oom(err);
	}
out:
	if (reply) {
		const char *t = air__json_str(reply, "token"), *a = air__json_str(reply, "access_token");
		if (t)
			memset((char *)t, 0, strlen(t));
		if (a)
			memset((char *)a, 0, strlen(a));
		json_decref(reply);
	}
	if (resp.body)
		memset(resp.body, 0, resp.body_len);
	air__http_resp_clear(&resp);
	air__buf_dispose(&q);
	air__free(realm);
	air__free(service);
	air__free(scope);
	return rc;
}

/* HEAD of the manifest, through the token service when the registry asks
 * for a bearer token: the final status in *status (0: no reply). */
static int head_manifest(probe *p, int32_t *status, air_error **err)
{
	air__http_resp resp = AIR__HTTP_RESP_INIT;
	char *url = air__sprintf("%s/v2/%s/manifests/%s", p->base, p->name, p->tag);
	int rc;

	if (!url)
		return air__oom(err);
	rc = ask(p, url, NULL, p->basic, true, &resp, err);
	*status = resp.status;
	if (rc == AIR_OK && resp.status == 401 && resp.challenge &&
	    !strncasecmp(resp.challenge, "Bearer ", 7)) {
		int32_t token_status = 0;
		char *challenge = air__strdup(resp.challenge);
		rc = challenge ? fetch_token(p, challenge, &token_status, err) : air__oom(err);
		air__free(challenge);
		if (rc == AIR_OK && p->bearer)
			rc = ask(p, url, NULL, p->bearer, true, &resp, err);
		*status = p->bearer ? resp.status : token_status == 403 ? 403 : token_status ? 401 : 0;
	}
	air__http_resp_clear(&resp);
	air__free(url);
	return rc;
}

static int set_result(air__registry_lookup *out, air__registry_verdict v, const char *fmt, ...)
	AIR__PRINTF(3, 4);
static int set_result(air__registry_lookup *out, air__registry_verdict v, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	out->verdict = v;
	out->why = air__vsprintf(fmt, ap);
	va_end(ap);
	return out->why ? AIR_OK : AIR_ENOMEM;
}

/* The verdict of the manifest's status. */
static int judge(const probe *p, const char *image, int32_t status, air__registry_lookup *out)
{
	const char *reg = out->registry, *src = p->creds.source;

	if (status >= 200 && status < 300)
		return src ? set_result(out, AIR__REGISTRY_FOUND, "%s is in registry %s and readable "
		                        "with the credentials of %s", image, reg, src)
		           : set_result(out, AIR__REGISTRY_FOUND, "%s is in registry %s, readable "
		                        "without credentials", image, reg);
	if (status == 404)
		return set_result(out, AIR__REGISTRY_MISSING, "registry %s has no image %s with tag %s "
		                  "(push it first)", reg, p->name, p->tag);
	if (status == 403 || (status == 401 && src))
		return src ? set_result(out, AIR__REGISTRY_DENIED, "registry %s does not let the "
		                        "identity of %s read %s", reg, src, image)
		           : set_result(out, AIR__REGISTRY_DENIED, "registry %s does not let anyone "
		                        "read %s without credentials", reg, image);
	if (status == 401)
		return set_result(out, AIR__REGISTRY_UNKNOWN, "registry %s asks for credentials and "
		                  "the Docker configuration has none for it%s%s", reg,
		                  p->creds.problems ? " (" : "",
		                  p->creds.problems ? p->creds.problems : "");
	if (status == 0)
		return set_result(out, AIR__REGISTRY_UNKNOWN, "registry %s gave no answer: %s", reg,
		                  p->failure ? p->failure : "no reply");
	return set_result(out, AIR__REGISTRY_UNKNOWN, "registry %s answered HTTP %d", reg,
	                  (int)status);
}

int air__registry_lookup_image(air_client *c, const air__ctx *ctx, const char *uc_image,
                               const char *registry, const char *config_dir,
                               air__registry_lookup *out, air_error **err)
{
	probe p = {c, ctx, NULL, NULL, NULL, {NULL, NULL, NULL, NULL}, NULL, NULL, NULL};
	const char *colon = strrchr(uc_image, ':');
	char *key = NULL;
	int32_t status = 0;
	int rc = AIR_OK;

	memset(out, 0, sizeof(*out));
	out->registry = registry && *registry
	                    ? air__strdup(registry)
	                    : air__registry_configured_host(c, config_dir, air__client_host(c));
	if (!out->registry)
		return set_result(out, AIR__REGISTRY_UNKNOWN, "no registry to ask: the Docker "
		                  "configuration has no credential helper for the workspace's "
		                  "artifact registry (`databricks auth docker configure` sets one "
		                  "up) and none was given") == AIR_OK ? AIR_OK : air__oom(err);
	p.name = colon ? air__strndup(uc_image, (size_t)(colon - uc_image)) : air__strdup(uc_image);
	p.tag = air__strdup(colon ? colon + 1 : "latest");
	p.base = strstr(out->registry, "://") ? air__strdup(out->registry)
	                                      : air__sprintf("https://%s", out->registry);
	key = air__docker_registry_host(out->registry);
	if (!p.name || !p.tag || !p.base || !key) {
		rc = air__oom(err);
		goto out;
	}
	for (size_t n = strlen(p.base); n > 0 && p.base[n - 1] == '/'; n--)
		p.base[n - 1] = '\0';
	rc = air__registry_creds_discover(c, ctx, config_dir, key, AIR__REGISTER_HELPER_TIMEOUT_MS,
	                                  &p.creds, err);
	if (rc == AIR_OK && p.creds.user) {
		char *pair = air__sprintf("%s:%s", p.creds.user, p.creds.secret);
		char *b64 = pair ? air__base64(pair, strlen(pair)) : NULL;
		p.basic = b64 ? air__sprintf("Authorization: Basic %s", b64) : NULL;
		air__free_secret(pair);
		air__free_secret(b64);
		if (!p.basic)
			rc = air__oom(err);
	}
	if (rc == AIR_OK)
		rc = head_manifest(&p, &status, err);
	if (rc == AIR_OK && judge(&p, uc_image, status, out) != AIR_OK)
		rc = air__oom(err);
out:
	air__free(key);
	probe_dispose(&p);
	return rc;
}

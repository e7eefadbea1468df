/* docker_config.c: reading a Docker client config.json (docker_config.h). */
#include "images/docker_config.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

struct air__docker_config {
	json_t *root;
};

int air__docker_config_parse(const char *path, const char *data, size_t len,
                             air__docker_config **out, air_error **err)
{
	air_error *e = NULL;
	json_t *root;

	*out = NULL;
	root = air__json_parse(data, len, path, &e);
	if (!root)
		return air__fail(err, air__error_set_code(air__error_set_kind(e, AIR_KIND_IO), AIR_EIO));
	if (!json_is_object(root)) {
		json_decref(root);
		return air__failf(err, AIR_EIO, AIR_KIND_IO, "%s: the Docker configuration is not a "
		                  "JSON object", path);
	}
	if (!(*out = air__calloc(1, sizeof(**out)))) {
		json_decref(root);
		return air__oom(err);
	}
	(*out)->root = root;
	return AIR_OK;
}

void air__docker_config_free(air__docker_config *c)
{
	if (!c)
		return;
	json_decref(c->root);
	air__free(c);
}

static bool is_hub_host(const char *host, size_t n)
{
	static const char *const hub[] = {"docker.io", "index.docker.io", "registry-1.docker.io"};

	for (size_t i = 0; i < AIR__ARRAY_SIZE(hub); i++)
		if (strlen(hub[i]) == n && !strncasecmp(hub[i], host, n))
			return true;
	return false;
}

char *air__docker_registry_key(const char *image_url)
{
	const char *slash = strchr(image_url, '/');
	size_t n = slash ? (size_t)(slash - image_url) : strlen(image_url);

	if (is_hub_host(image_url, n))
		return air__strdup(AIR__DOCKER_HUB_KEY);
	return air__strndup(image_url, n);
}

char *air__docker_registry_host(const char *key)
{
	const char *s = key, *end;
	char *out;

	if (!strncasecmp(s, "https://", 8))
		s += 8;
	else if (!strncasecmp(s, "http://", 7))
		s += 7;
	end = s + strcspn(s, "/");
	if (is_hub_host(s, (size_t)(end - s)))
		return air__strdup("index.docker.io");
	out = air__strndup(s, (size_t)(end - s));
	for (char *p = out; p && *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return out;
}

/* The member of object @obj whose key is @registry, else the first whose key
 * names the same host. */
static const json_t *by_registry(const json_t *obj, const char *registry)
{
	const json_t *exact = json_object_get(obj, registry), *found = NULL, *v;
	char *want, *host;
	const char *key;

	if (exact || !json_is_object(obj))
		return exact;
	if (!(want = air__docker_registry_host(registry)))
		return NULL;
	json_object_foreach((json_t *)obj, key, v) {
		host = air__docker_registry_host(key);
		if (host && *host && !strcmp(host, want))
			found = v;
		air__free(host);
		if (found)
			break;
	}
	air__free(want);
	return found;
}

/* A helper name is appended to "docker-credential-": no paths, no options. */
static bool plain_name(const char *s)
{
	if (!s || !*s || *s == '-' || *s == '.')
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '.' && *s != '_' && *s != '-')
			return false;
	return true;
}

char *air__docker_config_helper_host(const air__docker_config *c, const char *marker,
                                     const char *label)
{
	const json_t *helpers = json_object_get(c->root, "credHelpers"), *v;
	size_t ln = label ? strlen(label) : 0;
	char *best = NULL;
	const char *key;

	json_object_foreach((json_t *)helpers, key, v) {
		char *host = air__docker_registry_host(key);
		bool preferred = host && ln && !strncmp(host, label, ln) && host[ln] == '.';

		if (!host || !strstr(host, marker) || (best && !preferred)) {
			air__free(host);
			continue;
		}
		air__free(best);
		best = host;
		if (preferred)
			break;
	}
	return best;
}

const char *air__docker_config_store(const air__docker_config *c)
{
	const char *store = json_string_value(json_object_get(c->root, "credsStore"));
	return plain_name(store) ? store : NULL;
}

const char *air__docker_config_helper(const air__docker_config *c, const char *registry,
                                      bool *per_registry)
{
	const json_t *h = by_registry(json_object_get(c->root, "credHelpers"), registry);

	if (per_registry)
		*per_registry = false;
	if (plain_name(json_string_value(h))) {
		if (per_registry)
			*per_registry = true;
		return json_string_value(h);
	}
	return air__docker_config_store(c);
}

int air__docker_config_inline(const air__docker_config *c, const char *registry, char **user,
                              char **secret)
{
	const json_t *entry = by_registry(json_object_get(c->root, "auths"), registry);
	const char *auth = json_string_value(json_object_get(entry, "auth")), *colon;
	air__buf b = AIR__BUF_INIT;
	int rc = AIR_ENOTFOUND;

	*user = *secret = NULL;
	if (auth && air__base64_decode(auth, strlen(auth), &b) && b.len > 0 &&
	    !memchr(b.ptr, '\0', b.len) && (colon = strchr(b.ptr, ':')) && colon > b.ptr &&
	    colon[1]) {
		*user = air__strndup(b.ptr, (size_t)(colon - b.ptr));
		*secret = air__strdup(colon + 1);
		rc = *user && *secret ? AIR_OK : AIR_ENOMEM;
		if (rc != AIR_OK) {
			air__free_secret(*user);
			air__free_secret(*secret);
			*user = *secret = NULL;
		}
	}
	if (b.ptr)
		memset(b.ptr, 0, b.cap);
	air__buf_dispose(&b);
	return rc;
}

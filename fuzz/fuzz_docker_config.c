/*
 * fuzz_docker_config.c: libFuzzer target for the Docker client configuration
 * reader (lib/images/docker_config.c) that register-image uses to find the
 * credentials of a private registry, checked against a model of its rules
 * written here with jansson directly:
 *   - the input parses iff jansson reads it as a JSON object; otherwise the
 *     error is AIR_EIO, kind IO, names the file and never quotes the input
 *     (jansson's " near '...'" is cut: the file may hold credentials);
 *   - for every registry named in the input (auths and credHelpers keys,
 *     credsStore) and a few fixed ones: the helper is the credHelpers member
 *     with exactly that key, else the first whose key names the same host,
 *     when it is a plain name ([A-Za-z0-9._-]+, not starting with '-' or
 *     '.'), else credsStore when plain, else none;
 *   - the inline credentials are those of the auths member found the same
 *     way: its "auth" string decodes (base64) to "user:secret" with a
 *     non-empty user and secret and no NUL byte, split at the first ':'.
 *
 *   CC=clang meson setup build-fuzz -Dfuzzers=enabled && ninja -C build-fuzz fuzz/fuzz_docker_config
 *   build-fuzz/fuzz/fuzz_docker_config -max_total_time=120 WORKDIR fuzz/corpus/fuzz_docker_config
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "images/docker_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PATH "fuzz/config.json"

#define CHECK(c)                                                                           \
	do {                                                                               \
		if (!(c)) {                                                                \
			fprintf(stderr, "fuzz_docker_config: %s failed (line %d)\n", #c, __LINE__); \
			abort();                                                           \
		}                                                                          \
	} while (0)

static bool same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static bool plain(const char *s)
{
	if (!s || !*s || *s == '-' || *s == '.')
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("._-", *s))
			return false;
	return true;
}

/* The member of @obj for @registry: the exact key, else the first key of the same host. */
static json_t *member(json_t *obj, const char *registry)
{
	char *want, *host;
	const char *key;
	json_t *v, *found = NULL;

	if (!json_is_object(obj))
		return NULL;
	if ((v = json_object_get(obj, registry)))
		return v;
	want = air__docker_registry_host(registry);
	CHECK(want);
	json_object_foreach(obj, key, v) {
		host = air__docker_registry_host(key);
		CHECK(host);
		if (*host && !strcmp(host, want))
			found = v;
		air__free(host);
		if (found)
			break;
	}
	air__free(want);
	return found;
}

static void check_registry(const air__docker_config *c, json_t *root, const char *registry)
{
	const char *store = json_string_value(json_object_get(root, "credsStore"));
	const char *h = json_string_value(member(json_object_get(root, "credHelpers"), registry));
	const char *want_helper = plain(h) ? h : plain(store) ? store : NULL;
	const char *got;
	json_t *entry = member(json_object_get(root, "auths"), registry);
	const char *auth = json_string_value(json_object_get(entry, "auth"));
	char *user = NULL, *secret = NULL, *want_user = NULL, *want_secret = NULL;
	bool per = true;
	int rc;

	got = air__docker_config_helper(c, registry, &per);
	CHECK(same(got, want_helper));
	CHECK(per == (got && plain(h)));
	CHECK(!got || plain(got));
	if (auth) {
		air__buf b = AIR__BUF_INIT;
		const char *colon;
		if (air__base64_decode(auth, strlen(auth), &b) && b.len && !memchr(b.ptr, '\0', b.len) &&
		    (colon = strchr(b.ptr, ':')) && colon > b.ptr && colon[1]) {
			want_user = air__strndup(b.ptr, (size_t)(colon - b.ptr));
			want_secret = air__strdup(colon + 1);
			CHECK(want_user && want_secret);
		}
		air__buf_dispose(&b);
	}
	rc = air__docker_config_inline(c, registry, &user, &secret);
	CHECK(rc == (want_user ? AIR_OK : AIR_ENOTFOUND));
	CHECK(same(user, want_user) && same(secret, want_secret));
	CHECK(!user || !strchr(user, ':'));
	air__free_secret(user);
	air__free_secret(secret);
	air__free(want_user);
	air__free(want_secret);
}

static void check_keys(const air__docker_config *c, json_t *root, const char *section)
{
	const char *key;
	json_t *v;
	int n = 0;

	json_object_foreach(json_object_get(root, section), key, v) {
		char *k, *h;
		if (n++ == 16)
			break;
		check_registry(c, root, key);
		/* the names derived from a key are well-formed */
		k = air__docker_registry_key(key);
		h = air__docker_registry_host(key);
		CHECK(k && h && !strchr(h, '/'));
		for (const char *p = h; *p; p++)
			CHECK(!isupper((unsigned char)*p));
		air__free(k);
		air__free(h);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const fixed[] = {AIR__DOCKER_HUB_KEY, "docker.io", "myreg.io",
	                                    "localhost:5000", ""};
	const char *d = (const char *)data;
	json_t *root = json_loadb(d, size, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
	air__docker_config *c = NULL;
	air_error *err = NULL;
	int rc = air__docker_config_parse(PATH, d, size, &c, &err);

	if (!json_is_object(root)) {
		CHECK(rc == AIR_EIO && !c && err);
		CHECK(air_error_kind(err) == AIR_KIND_IO);
		CHECK(strstr(air_error_message(err), PATH));
		CHECK(!strstr(air_error_message(err), " near "));
	} else {
		CHECK(rc == AIR_OK && c && !err);
		for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
			check_registry(c, root, fixed[i]);
		check_keys(c, root, "auths");
		check_keys(c, root, "credHelpers");
		if (json_string_value(json_object_get(root, "credsStore")))
			check_registry(c, root, json_string_value(json_object_get(root, "credsStore")));
	}
	air_error_free(err);
	air__docker_config_free(c);
	json_decref(root);
	return 0;
}

/*
 * secrets.c: each secret scope the workload names exists, and each key is
 * listed in its scope: secrets/scopes/list once, then secrets/list once per
 * scope (docs/cli.md#check-a-workload-before-submitting-air-check). Metadata
 * only: no value is ever read. A scope whose keys may not be listed (403, no
 * READ permission on it) is "cannot verify", a warning, not "missing".
 */
#include "checks/checks.h"

#include <string.h>

#define SCOPES_PATH "/api/2.0/secrets/scopes/list"
#define KEYS_PATH "/api/2.0/secrets/list"

/* The names in @reply's array @list of objects with a @key member, as an
 * object {name: true}. */
static json_t *name_set(const json_t *reply, const char *list, const char *key)
{
	json_t *set = json_object(), *e;
	size_t i;

	json_array_foreach(json_object_get(reply, list), i, e) {
		const char *name = air__json_str(e, key);
		if (set && name && json_object_set_new(set, name, json_true()) != 0) {
			json_decref(set);
			return NULL;
		}
	}
	return set;
}

/* The scopes of the workspace ({name: true}), or NULL with *e. */
static json_t *list_scopes(air__checker *k, air_error **e)
{
	json_t *reply = NULL, *set;

	if (air__api_json(k->c, &k->ctx, "GET", SCOPES_PATH, NULL, NULL, &reply, NULL, e) != AIR_OK)
		return NULL;
	set = name_set(reply, "scopes", "name");
	json_decref(reply);
	if (!set)
		*e = air__error_new(AIR_ENOMEM, 0, "out of memory");
	return set;
}

/* secret_scope of each scope, named by the first secret that uses it. */
static int scope_checks(air__checker *k, const json_t *scopes, air_error *e)
{
	const air__workload *w = &k->w;
	int rc = AIR_OK;

	for (size_t i = 0; rc == AIR_OK && i < w->n_secrets; i++) {
		const air__secret_var *s = &w->secrets[i];
		bool first = true;
		char *field;

		for (size_t j = 0; j < i; j++)
			first = first && strcmp(w->secrets[j].scope, s->scope) != 0;
		if (!first)
			continue;
		if (!(field = air__sprintf("secrets.%s", s->name)))
			return air__oom(k->err);
		if (e)
			rc = air__check_request_failed(k, "secret_scope", field, air__error_clone(e),
			                               "the secret scopes cannot be listed");
		else if (json_object_get(scopes, s->scope))
			rc = air__check_add(k, "secret_scope", AIR_CHECK_PASS, field,
			                    "secret scope %s exists", s->scope);
		else
			rc = air__check_add(k, "secret_scope", AIR_CHECK_FAIL, field,
			                    "secret scope %s does not exist in the workspace", s->scope);
		air__free(field);
	}
	return rc;
}

/* secret_key of @s, from the keys of its scope (@keys, or the listing's error @e). */
static int key_check(air__checker *k, const air__secret_var *s, const json_t *keys,
                     const air_error *e, const char *field)
{
	if (keys && json_object_get(keys, s->key))
		return air__check_add(k, "secret_key", AIR_CHECK_PASS, field,
		                      "secret %s (%s) is listed in scope %s", s->name, s->key, s->scope);
	if (keys)
		return air__check_add(k, "secret_key", AIR_CHECK_FAIL, field,
		                      "scope %s has no key %s", s->scope, s->key);
	if (air_error_http_status(e) == 403)
		return air__check_add(k, "secret_key", AIR_CHECK_WARN, field, "cannot verify key %s: "
		                      "the keys of scope %s may not be listed with this identity (no "
		                      "READ permission on it), which the run needs to read them",
		                      s->key, s->scope);
	if (air_error_code(e) == AIR_ENOTFOUND)
		return air__check_add(k, "secret_key", AIR_CHECK_FAIL, field,
		                      "secret scope %s does not exist, so key %s is not there",
		                      s->scope, s->key);
	return air__check_request_failed(k, "secret_key", field, air__error_clone(e),
	                                 "the keys of the scope cannot be listed");
}

/* The keys of one scope, listed once. */
typedef struct scope_keys {
	const char *scope;
	bool absent;      /* scopes/list did not list it */
	json_t *keys;     /* {key: true}, or NULL with @err */
	air_error *err;
} scope_keys;

/* The keys of @scope, from @cache (listed when new). */
static scope_keys *keys_of(air__checker *k, scope_keys *cache, size_t *n, const json_t *scopes,
                           const char *scope)
{
	scope_keys *sk;
	air__buf q = AIR__BUF_INIT;
	json_t *reply = NULL;

	for (size_t i = 0; i < *n; i++)
		if (!strcmp(cache[i].scope, scope))
			return &cache[i];
	sk = &cache[(*n)++];
	sk->scope = scope;
	if (scopes && !json_object_get(scopes, scope)) {
		sk->absent = true;
		return sk;
	}
	air__buf_query(&q, "scope", scope);
	if (air__buf_oom(&q))
		sk->err = air__error_new(AIR_ENOMEM, 0, "out of memory");
	else if (air__api_json(k->c, &k->ctx, "GET", KEYS_PATH, air__buf_cstr(&q), NULL, &reply, NULL,
	                       &sk->err) == AIR_OK &&
	         !(sk->keys = name_set(reply, "secrets", "key")))
		sk->err = air__error_new(AIR_ENOMEM, 0, "out of memory");
	air__buf_dispose(&q);
	json_decref(reply);
	return sk;
}

int air__check_secrets(air__checker *k)
{
	const air__workload *w = &k->w;
	air_error *scopes_err = NULL;
	scope_keys *cache;
	json_t *scopes;
	size_t n = 0;
	int rc = AIR_OK;

	if (!w->n_secrets || air__check_not_here(k, "secret_scope", NULL, &rc))
		return rc;
	if (!(cache = air__calloc(w->n_secrets, sizeof(*cache))))
		return air__oom(k->err);
	scopes = list_scopes(k, &scopes_err);
	rc = air_error_code(scopes_err) == AIR_ENOMEM ? air__oom(k->err)
	                                              : scope_checks(k, scopes, scopes_err);
	for (size_t i = 0; rc == AIR_OK && i < w->n_secrets; i++) {
		const air__secret_var *s = &w->secrets[i];
		char *field = air__sprintf("secrets.%s", s->name);
		scope_keys *sk;

		if (field && air__check_not_here(k, "secret_key", field, &rc)) {
			air__free(field);
			continue;
		}
		sk = field ? keys_of(k, cache, &n, scopes, s->scope) : NULL;
		if (!sk || air_error_code(sk->err) == AIR_ENOMEM)
			rc = air__oom(k->err);
		else if (sk->absent)
			rc = air__check_add(k, "secret_key", AIR_CHECK_SKIPPED, field,
			                    "scope %s does not exist", s->scope);
		else
			rc = key_check(k, s, sk->keys, sk->err, field);
		air__free(field);
	}
	for (size_t i = 0; i < n; i++) {
		json_decref(cache[i].keys);
		air_error_free(cache[i].err);
	}
	air__free(cache);
	air_error_free(scopes_err);
	json_decref(scopes);
	return rc;
}

/* pools.c: provisioned GPU pools, the values of compute.pool_id. */
#include "transport/transport.h"
#include "core/core.h"

#include <string.h>

#define POOLS_PATH "/api/2.0/ai-training/provisioned-capacities"
#define NAME_PREFIX "provisioned-capacities/"

struct air_pool {
	char *id;
	char *accel_type;
	int64_t reserved, used, idle;
};

struct air_pool_list {
	air_pool *pools;
	size_t count, cap;
};

static const char *bare_id(const char *name)
{
	return air__starts_with(name, NAME_PREFIX) ? name + strlen(NAME_PREFIX) : name;
}

/* Fill @p from one provisioned_capacities entry (counts may be strings). */
static int pool_from_json(air_pool *p, const json_t *obj)
{
	const json_t *spec = json_object_get(obj, "spec");
	const json_t *usage = air__json_at(obj, "status.usage");
	const char *name = air__json_str(obj, "name");

	memset(p, 0, sizeof(*p));
	p->id = air__strdup(bare_id(name ? name : ""));
	p->accel_type = air__strdup(air__json_nonempty(spec, "accelerator_type"));
	p->reserved = air__json_int64_or(spec, "accelerator_count", 0);
	p->used = air__json_int64_or(usage, "used_accelerator_count", -1);
	p->idle = air__json_int64_or(usage, "idle_accelerator_count", -1);
	/* A reported usage with one count absent means zero of that kind. */
	if (json_is_object(usage) && (p->used >= 0 || p->idle >= 0)) {
		p->used = p->used < 0 ? 0 : p->used;
		p->idle = p->idle < 0 ? 0 : p->idle;
	}
	return p->id && (p->accel_type || !air__json_nonempty(spec, "accelerator_type")) ? AIR_OK
	                                                                                   : AIR_ENOMEM;
}

static void pool_dispose(air_pool *p)
{
	air__free(p->id);
	air__free(p->accel_type);
}

/* FEATURE_DISABLED is permanent: the workspace has not enabled pools. */
static int map_error(int rc, air_error **err, air_error *e)
{
	const char *code = e ? air_error_server_code(e) : NULL;

	if (code && !strcmp(code, "FEATURE_DISABLED")) {
		air__error_set_code(e, AIR_EDISABLED);
		air__error_set_kind(e, AIR_KIND_PERMANENT);
		air__error_set_retryable(e, false);
		air__error_prefix(e, "GPU pools are not enabled for this workspace");
	}
	return e ? air__fail(err, e) : rc;
}

static int list_append(air_pool_list *l, const json_t *obj)
{
	if (l->count == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		air_pool *p = air__realloc(l->pools, cap * sizeof(*p));
		if (!p)
			return AIR_ENOMEM;
		l->pools = p;
		l->cap = cap;
	}
	if (pool_from_json(&l->pools[l->count], obj) != AIR_OK) {
		pool_dispose(&l->pools[l->count]);
		return AIR_ENOMEM;
	}
	l->count++;
	return AIR_OK;
}

int air_client_list_pools(air_client *client, const air_call_options *opts, air_pool_list **out,
                          air_error **err)
{
	air__ctx ctx;
	air_pool_list *l;
	json_t *seen;
	char *token = NULL;
	int rc;

	if (!out)
		return air__failf(err, AIR_EINVAL, 0, "air_client_list_pools: out is NULL");
	*out = NULL;
	if (!client)
		return air__failf(err, AIR_EINVAL, 0, "air_client_list_pools: client is NULL");
	air__client_ctx(client, opts ? &opts->call : NULL, &ctx);
	rc = air__client_ensure_resolved(client, &ctx, err);
	if (rc != AIR_OK)
		return rc;
	l = air__calloc(1, sizeof(*l));
	seen = json_object();
	if (!l || !seen) {
		air__free(l);
		json_decref(seen);
		return air__oom(err);
	}
	for (;;) {
		air__buf q = AIR__BUF_INIT;
		json_t *page = NULL, *item;
		air_error *e = NULL;
		const char *next;
		size_t i;

		air__buf_query_int(&q, "page_size", 100);
		if (token)
			air__buf_query(&q, "page_token", token);
		rc = air__buf_oom(&q) ? AIR_ENOMEM
		                      : air__api_json(client, &ctx, "GET", POOLS_PATH,
		                                      air__buf_cstr(&q), NULL, &page, NULL, &e);
		air__buf_dispose(&q);
		if (rc != AIR_OK) {
			rc = map_error(rc, err, e);
			break;
		}
		json_array_foreach(json_object_get(page, "provisioned_capacities"), i, item) {
			if ((rc = list_append(l, item)) != AIR_OK)
				break;
		}
		next = air__json_nonempty(page, "next_page_token");
		air__free(token);
		token = NULL;
		if (rc == AIR_OK && next && !json_object_get(seen, next)) {
			token = air__strdup(next);
			if (!token || json_object_set_new(seen, next, json_true()))
				rc = AIR_ENOMEM;
		}
		json_decref(page);
		if (rc != AIR_OK || !token)
			break;
	}
	air__free(token);
	json_decref(seen);
	if (rc == AIR_ENOMEM)
		air__oom(err);
	if (rc != AIR_OK) {
		air_pool_list_free(l);
		return rc;
	}
	*out = l;
	return AIR_OK;
}

size_t air_pool_list_count(const air_pool_list *list) { return list ? list->count : 0; }

const air_pool *air_pool_list_get(const air_pool_list *list, size_t i)
{
	return list && i < list->count ? &list->pools[i] : NULL;
}

void air_pool_list_free(air_pool_list *list)
{
	if (!list)
		return;
	for (size_t i = 0; i < list->count; i++)
		pool_dispose(&list->pools[i]);
	air__free(list->pools);
	air__free(list);
}

int air_client_get_pool(air_client *client, const char *pool_id, const air_call_options *opts,
                        air_pool **out, air_error **err)
{
	air__ctx ctx;
	size_t trimmed_len;
	air__buf path = AIR__BUF_INIT;
	json_t *reply = NULL, *obj;
	air_error *e = NULL;
	char *id;
	int rc;

	if (!out)
		return air__failf(err, AIR_EINVAL, 0, "air_client_get_pool: out is NULL");
	*out = NULL;
	if (!client)
		return air__failf(err, AIR_EINVAL, 0, "air_client_get_pool: client is NULL");
	/* "provisioned-capacities/" alone names no pool either. */
	if (air__is_blank(pool_id) || air__is_blank(bare_id(air__trim(pool_id, &trimmed_len))))
		return air__fail(err, air__error_set_field(
			air__error_new(AIR_EINVAL, 0, "pool ID is empty: pass a pool ID or "
			                              "\"provisioned-capacities/<id>\""),
			"pool_id"));
	air__client_ctx(client, opts ? &opts->call : NULL, &ctx);
	rc = air__client_ensure_resolved(client, &ctx, err);
	if (rc != AIR_OK)
		return rc;
	id = air__trim_dup(pool_id);
	if (!id)
		return air__oom(err);
	air__buf_puts(&path, POOLS_PATH "/");
	air__buf_put_urlencoded(&path, bare_id(id), false);
	rc = air__buf_oom(&path) ? AIR_ENOMEM
	                         : air__api_json(client, &ctx, "GET", air__buf_cstr(&path), NULL,
	                                         NULL, &reply, NULL, &e);
	air__buf_dispose(&path);
	if (rc == AIR_OK) {
		/* Accept the capacity itself or a {"provisioned_capacity": {...}} wrapper. */
		obj = json_object_get(reply, "provisioned_capacity");
		if (!json_is_object(obj))
			obj = reply;
		*out = air__calloc(1, sizeof(**out));
		if (!*out || pool_from_json(*out, obj) != AIR_OK) {
			air_pool_free(*out);
			*out = NULL;
			rc = AIR_ENOMEM;
		} else if (!(*out)->id[0]) {
			/* Replies without a name still describe the requested pool. */
			air__free((*out)->id);
			if (!((*out)->id = air__strdup(bare_id(id)))) {
				air_pool_free(*out);
				*out = NULL;
				rc = AIR_ENOMEM;
			}
		}
	} else {
		rc = map_error(rc, err, e);
	}
	if (rc == AIR_ENOMEM)
		air__oom(err);
	air__free(id);
	json_decref(reply);
	return rc;
}

void air_pool_free(air_pool *pool)
{
	if (!pool)
		return;
	pool_dispose(pool);
	air__free(pool);
}

const char *air_pool_id(const air_pool *pool) { return pool ? pool->id : NULL; }
const char *air_pool_accelerator_type(const air_pool *pool) { return pool ? pool->accel_type : NULL; }
int64_t air_pool_reserved_accelerators(const air_pool *pool) { return pool ? pool->reserved : 0; }
int64_t air_pool_used_accelerators(const air_pool *pool) { return pool ? pool->used : -1; }
int64_t air_pool_idle_accelerators(const air_pool *pool) { return pool ? pool->idle : -1; }

/*
 * compute.c: the GPU pool of compute.pool_id exists and offers the
 * workload's accelerator type, and the type is one the workspace offers: its
 * compute options (the list `air run -h config.compute` shows), else its
 * pools.
 */
#include "checks/checks.h"

#include <string.h>

static int pool(air__checker *k)
{
	const char *field = "compute.pool_id", *type;
	air_call_options co;
	air_pool *p = NULL;
	air_error *e = NULL;
	int rc;

	if (!k->w.pool_id || air__check_not_here(k, "pool", field, &rc))
		return k->w.pool_id ? rc : AIR_OK;
	air__check_call_options(k, &co);
	rc = air_client_get_pool(k->c, k->w.pool_id, &co, &p, &e);
	type = air_pool_accelerator_type(p);
	if (rc == AIR_ENOTFOUND)
		rc = air__check_add(k, "pool", AIR_CHECK_FAIL, field, "GPU pool %s does not exist",
		                    k->w.pool_id);
	else if (rc == AIR_EDISABLED)
		rc = air__check_add(k, "pool", AIR_CHECK_FAIL, field, "%s", air_error_message(e));
	else if (rc != AIR_OK) {
		rc = air__check_request_failed(k, "pool", field, e, "the GPU pool cannot be read");
		e = NULL;
	} else if (!type)
		rc = air__check_add(k, "pool", AIR_CHECK_SKIPPED, field, "GPU pool %s does not say "
		                    "which accelerator type it has", k->w.pool_id);
	else if (strcmp(type, k->w.accelerator_type) != 0)
		rc = air__check_add(k, "pool", AIR_CHECK_FAIL, field, "GPU pool %s has %s, not the "
		                    "%s of compute.accelerator_type", k->w.pool_id, type,
		                    k->w.accelerator_type);
	else
		rc = air__check_add(k, "pool", AIR_CHECK_PASS, field, "GPU pool %s offers %s (%lld "
		                    "reserved)", k->w.pool_id, type,
		                    (long long)air_pool_reserved_accelerators(p));
	air_error_free(e);
	air_pool_free(p);
	return rc;
}

/* Whether @type is an entry of the comma-separated @list. */
static bool listed(const char *list, const char *type)
{
	size_t n = strlen(type);

	for (const char *p = list; p && *p;) {
		size_t len = strcspn(p, ",");
		if (len == n && !memcmp(p, type, n))
			return true;
		p += len + (p[len] == ',');
	}
	return false;
}

/* Without compute options: a pool of the type shows it is offered. */
static int from_pools(air__checker *k, const char *why)
{
	const char *field = "compute.accelerator_type", *type = k->w.accelerator_type;
	air_call_options co;
	air_pool_list *pools = NULL;
	int rc;

	air__check_call_options(k, &co);
	if ((rc = air_client_list_pools(k->c, &co, &pools, NULL)) == AIR_OK)
		for (size_t i = 0; i < air_pool_list_count(pools); i++) {
			const air_pool *p = air_pool_list_get(pools, i);
			const char *t = air_pool_accelerator_type(p);
			if (t && !strcmp(t, type)) {
				rc = air__check_add(k, "accelerator_offered", AIR_CHECK_PASS, field,
				                    "%s is offered by GPU pool %s", type, air_pool_id(p));
				air_pool_list_free(pools);
				return rc;
			}
		}
	air_pool_list_free(pools);
	if ((rc = air__ctx_check(&k->ctx, "the check", k->err)) != AIR_OK)
		return rc;
	return air__check_add(k, "accelerator_offered", AIR_CHECK_SKIPPED, field, "the workspace "
	                      "does not say whether it offers %s (%s)", type, why);
}

static int offered(air__checker *k)
{
	const char *field = "compute.accelerator_type", *type = k->w.accelerator_type;
	air_call_options co;
	air_error *e = NULL;
	char *list = NULL;
	int rc;

	if (air__check_not_here(k, "accelerator_offered", field, &rc))
		return rc;
	air__check_call_options(k, &co);
	rc = air_client_list_accelerator_types(k->c, &co, &list, &e);
	if (rc != AIR_OK && air__check_stopped(k, e))
		return air__check_request_failed(k, "accelerator_offered", field, e, "");
	if (rc != AIR_OK)
		rc = from_pools(k, air_error_message(e));
	else if (listed(list, type))
		rc = air__check_add(k, "accelerator_offered", AIR_CHECK_PASS, field,
		                    "the workspace offers %s", type);
	else {
		for (char *c = strchr(list, ','); c; c = strchr(c + 1, ','))
			*c = ' '; /* "a b": shown as a list */
		rc = air__check_add(k, "accelerator_offered", AIR_CHECK_FAIL, field,
		                    "the workspace does not offer %s; it offers: %s", type,
		                    *list ? list : "none");
	}
	air_error_free(e);
	air_free(list);
	return rc;
}

int air__check_compute(air__checker *k)
{
	int rc = pool(k);

	return rc == AIR_OK ? offered(k) : rc;
}

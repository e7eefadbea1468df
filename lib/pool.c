/* pool.c: placeholder implementation of pool.h; every call reports AIR_EUNSUPPORTED. */
#include "internal.h"

int air_client_list_pools(air_client *client, air_pool_list **out, air_error **err)
{
	return AIR_EUNSUPPORTED;
}

size_t air_pool_list_count(const air_pool_list *list)
{
	return 0;
}

const air_pool *air_pool_list_get(const air_pool_list *list, size_t i)
{
	return NULL;
}

void air_pool_list_free(air_pool_list *list)
{
}

int air_client_get_pool(air_client *client, const char *pool_id, air_pool **out, air_error **err)
{
	return AIR_EUNSUPPORTED;
}

void air_pool_free(air_pool *pool)
{
}

const char *air_pool_id(const air_pool *pool)
{
	return NULL;
}

const char *air_pool_accelerator_type(const air_pool *pool)
{
	return NULL;
}

int64_t air_pool_reserved_accelerators(const air_pool *pool)
{
	return 0;
}

int64_t air_pool_used_accelerators(const air_pool *pool)
{
	return 0;
}

int64_t air_pool_idle_accelerators(const air_pool *pool)
{
	return 0;
}

/* global.c: reference-counted process-wide initialisation (libcurl). */
#include "core/core.h"

#include <pthread.h>

#include <curl/curl.h>

static pthread_mutex_t global_lock = PTHREAD_MUTEX_INITIALIZER;
static int global_refs;

int air_global_init(void)
{
	int rc = AIR_OK;

	pthread_mutex_lock(&global_lock);
	if (global_refs == 0 && curl_global_init(CURL_GLOBAL_ALL) != CURLE_OK)
		rc = AIR_EINTERNAL;
	if (rc == AIR_OK)
		global_refs++;
	pthread_mutex_unlock(&global_lock);
	return rc;
}

void air_global_cleanup(void)
{
	pthread_mutex_lock(&global_lock);
	if (global_refs > 0 && --global_refs == 0)
		curl_global_cleanup();
	pthread_mutex_unlock(&global_lock);
}

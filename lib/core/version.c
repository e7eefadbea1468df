/* version.c: run-time version and feature queries. */
#include "core/core.h"

#include "core/core_curl.h"

uint32_t air_version_number(void) { return AIR_VERSION_NUM; }

const char *air_version_string(void) { return AIR_VERSION_STRING; }

uint32_t air_features(void)
{
	uint32_t f = AIR_FEATURE_OAUTH | AIR_FEATURE_SNAPSHOT | AIR_FEATURE_THREADSAFE |
	             AIR_FEATURE_LOCAL;
	/* HTTPS: the libcurl that requests would use has TLS. */
	const curl_version_info_data *ci =
		air__curl_load(NULL) == AIR_OK ? air__curl.curl_version_info(CURLVERSION_NOW) : NULL;

	if (ci && (ci->features & CURL_VERSION_SSL))
		f |= AIR_FEATURE_HTTPS;
	return f;
}

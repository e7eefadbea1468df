/* version.c: run-time version and feature queries. */
#include "core/core.h"

#include <curl/curl.h>

uint32_t air_version_number(void) { return AIR_VERSION_NUM; }

const char *air_version_string(void) { return AIR_VERSION_STRING; }

uint32_t air_features(void)
{
	uint32_t f = AIR_FEATURE_OAUTH | AIR_FEATURE_SNAPSHOT | AIR_FEATURE_THREADSAFE |
	             AIR_FEATURE_LOCAL;
	const curl_version_info_data *ci = curl_version_info(CURLVERSION_NOW);

	if (ci && (ci->features & CURL_VERSION_SSL))
		f |= AIR_FEATURE_HTTPS;
	return f;
}

/*
 * global.c: reference-counted process-wide initialisation, and libcurl
 * loaded on first use (core_curl.h).
 *
 * air_global_init() loads and initialises libcurl at once, as a program that
 * also uses libcurl itself expects. A client holds a reference too
 * (air__global_hold()), but libcurl is loaded only when the client first
 * needs it: a client of a local workspace never does.
 */
#include "core/core.h"
#include "core/core_curl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

air__curl_api air__curl;

static pthread_mutex_t global_lock = PTHREAD_MUTEX_INITIALIZER;
static int global_refs;
static bool curl_loaded, curl_initialised;

#ifdef AIR_LIBCURL_LINKED
/* libcurl built with libair (a meson subproject): linked in. */
static bool resolve_curl(air_error **err)
{
	(void)err;
#define CURL_LINK(f) air__curl.f = f;
	AIR__CURL_CALLS(CURL_LINK)
#undef CURL_LINK
	return true;
}
#else
/* Every libcurl 7 and 8 has soname 4; Debian names its TLS flavours apart. */
static const char *const curl_sonames[] = {"libcurl.so.4", "libcurl-gnutls.so.4",
                                           "libcurl-nss.so.4"};

/* The oldest libcurl whose options the transport sets: CURLOPT_PROTOCOLS_STR
 * (7.85) when the headers have it, else 7.80. */
#if LIBCURL_VERSION_NUM >= 0x075500
#  define CURL_NEEDED 0x075500
#else
#  define CURL_NEEDED 0x075000
#endif

/* The functions of the library at @h, when it is a libcurl recent enough. */
static bool resolve_from(void *h)
{
	const curl_version_info_data *v;
	bool complete = true;

#define CURL_LOAD(f) complete = (*(void **)&air__curl.f = dlsym(h, #f)) != NULL && complete;
	AIR__CURL_CALLS(CURL_LOAD)
#undef CURL_LOAD
	v = complete ? air__curl.curl_version_info(CURLVERSION_NOW) : NULL;
	if (v && v->version_num >= CURL_NEEDED)
		return true;
	memset(&air__curl, 0, sizeof(air__curl));
	return false;
}

static bool resolve_curl(air_error **err)
{
	bool found = false;

	for (size_t i = 0; i < AIR__ARRAY_SIZE(curl_sonames); i++) {
		void *h = dlopen(curl_sonames[i], RTLD_NOW | RTLD_LOCAL);
		if (h && resolve_from(h))
			return true; /* kept loaded for the life of the process */
		if (h) {
			found = true;
			dlclose(h);
		}
	}
	if (found)
		air__failf(err, AIR_EINTERNAL, 0, "the libcurl found is older than %d.%d, which libair "
		           "needs", CURL_NEEDED >> 16, (CURL_NEEDED >> 8) & 0xFF);
	else
		air__failf(err, AIR_EINTERNAL, 0, "cannot load libcurl (%s): %s", curl_sonames[0],
		           dlerror());
	return false;
}
#endif

/* With global_lock held. */
static int load_locked(air_error **err)
{
	if (!curl_loaded && !(curl_loaded = resolve_curl(err)))
		return AIR_EINTERNAL;
	if (global_refs > 0 && !curl_initialised) {
		if (air__curl.curl_global_init(CURL_GLOBAL_ALL) != CURLE_OK)
			return air__failf(err, AIR_EINTERNAL, 0, "cannot initialise libcurl");
		curl_initialised = true;
	}
	return AIR_OK;
}

int air__curl_load(air_error **err)
{
	int rc;

	pthread_mutex_lock(&global_lock);
	rc = load_locked(err);
	pthread_mutex_unlock(&global_lock);
	return rc;
}

void air__global_hold(void)
{
	pthread_mutex_lock(&global_lock);
	global_refs++;
	pthread_mutex_unlock(&global_lock);
}

int air_global_init(void)
{
	int rc;

	pthread_mutex_lock(&global_lock);
	global_refs++;
	if ((rc = load_locked(NULL)) != AIR_OK)
		global_refs--;
	pthread_mutex_unlock(&global_lock);
	return rc;
}

void air_global_cleanup(void)
{
	pthread_mutex_lock(&global_lock);
	if (global_refs > 0 && --global_refs == 0 && curl_initialised) {
		air__curl.curl_global_cleanup();
		curl_initialised = false;
	}
	pthread_mutex_unlock(&global_lock);
}

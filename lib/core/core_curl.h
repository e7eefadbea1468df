/*
 * core_curl.h: libcurl, loaded when a request or a URL first needs it.
 *
 * libcurl and the libraries it needs (TLS, Kerberos, LDAP, SSH, IDN ...)
 * are most of what a program linked with libair spends starting: a client
 * of a local workspace never uses them. So libair is not linked with
 * libcurl; its functions are called through air__curl, filled by
 * air__curl_load(), which every path into libcurl calls first. A libcurl
 * built with libair (a meson subproject) is linked in instead.
 *
 * The transport module and core's global.c and version.c include this
 * header; nothing else calls libcurl.
 */
#ifndef AIR_CORE_CORE_CURL_H
#define AIR_CORE_CORE_CURL_H

#include <curl/curl.h>

#include "core/base.h"

/* curl.h's type-checking wrappers of these two (typecheck-gcc.h) are macros
 * that call the functions by name; here they are called through pointers. */
#undef curl_easy_setopt
#undef curl_easy_getinfo

#define AIR__CURL_CALLS(X)                                                                     \
	X(curl_global_init) X(curl_global_cleanup) X(curl_version_info) X(curl_free)              \
	X(curl_easy_init) X(curl_easy_cleanup) X(curl_easy_reset) X(curl_easy_setopt)            \
	X(curl_easy_getinfo) X(curl_easy_strerror) X(curl_easy_unescape)                         \
	X(curl_multi_init) X(curl_multi_cleanup) X(curl_multi_setopt) X(curl_multi_add_handle)   \
	X(curl_multi_remove_handle) X(curl_multi_perform) X(curl_multi_poll)                     \
	X(curl_multi_info_read) X(curl_share_init) X(curl_share_cleanup) X(curl_share_setopt)    \
	X(curl_slist_append) X(curl_slist_free_all) X(curl_url) X(curl_url_cleanup)              \
	X(curl_url_set) X(curl_url_get) X(curl_url_strerror)

#define AIR__CURL_MEMBER(f) __typeof__(&f) f;
/* libcurl's functions, valid once air__curl_load() succeeded. */
typedef struct air__curl_api {
	AIR__CURL_CALLS(AIR__CURL_MEMBER)
} air__curl_api;
#undef AIR__CURL_MEMBER

extern air__curl_api air__curl;

/* Load libcurl (once per process) and, while a client or air_global_init()
 * holds the library, initialise it. AIR_OK, or AIR_EINTERNAL naming the
 * library that could not be loaded. Thread-safe; cheap once loaded. */
int air__curl_load(air_error **err);

#endif

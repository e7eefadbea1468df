/* archive.c: libarchive loaded on first use (core_archive.h). */
#include "core/core_archive.h"

#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

/* Its soname has been libarchive.so.13 for all of libarchive 3. */
#define LIBARCHIVE_SONAME "libarchive.so.13"

air__libarchive_api air__la;

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static bool loaded;

#ifdef AIR_LIBARCHIVE_LINKED
/* libarchive built with libair (a meson subproject): linked in. */
static bool resolve(air__buf *why)
{
	(void)why;
#define ARCHIVE_LINK(f) air__la.f = f;
	AIR__ARCHIVE_CALLS(ARCHIVE_LINK)
#undef ARCHIVE_LINK
	return true;
}
#else
static bool resolve(air__buf *why)
{
	void *h = dlopen(LIBARCHIVE_SONAME, RTLD_NOW | RTLD_LOCAL);
	bool complete = true;

	if (!h) {
		air__buf_printf(why, "cannot load %s: %s", LIBARCHIVE_SONAME, dlerror());
		return false;
	}
#define ARCHIVE_LOAD(f) complete = (*(void **)&air__la.f = dlsym(h, #f)) != NULL && complete;
	AIR__ARCHIVE_CALLS(ARCHIVE_LOAD)
#undef ARCHIVE_LOAD
	if (!complete) {
		memset(&air__la, 0, sizeof(air__la));
		dlclose(h);
		air__buf_printf(why, "%s lacks a function libair needs (libarchive 3.4 or later)",
		                LIBARCHIVE_SONAME);
		return false;
	}
	return true; /* kept loaded for the life of the process */
}
#endif

bool air__libarchive_load(air__buf *why)
{
	bool ok;

	pthread_mutex_lock(&load_lock);
	ok = loaded || (loaded = resolve(why));
	pthread_mutex_unlock(&load_lock);
	return ok;
}

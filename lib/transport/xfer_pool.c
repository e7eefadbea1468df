/*
 * xfer_pool.c: what the transport shares across the threads of a client.
 *
 * - A curl share object for DNS and TLS sessions, locked per data kind.
 *   Connections are deliberately not put in it: libcurl documents that
 *   sharing a connection cache between concurrently running threads is not
 *   supported (CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT).
 * - A pool of transfer contexts instead: each is a multi handle with its own
 *   connection cache plus idle easy handles. A call borrows one for its
 *   duration, so a thread reuses the connections some earlier call (on any
 *   thread) left open, and no cache is ever used by two threads at once.
 * - The client-wide token bucket of the rate limit, and counters.
 */
#include <string.h>

#include <pthread.h>
#include <stdatomic.h>

#include "transport/http_priv.h"

#define MAX_IDLE_CONTEXTS 16
#define CONNECTIONS_PER_CONTEXT 16L

struct air__transport {
	CURLSH *share;
	pthread_mutex_t locks[CURL_LOCK_DATA_LAST];
	pthread_mutex_t pool_lock;
	air__xfer_ctx *idle;
	size_t nidle;
	pthread_mutex_t bucket_lock;
	double tokens;
	int64_t bucket_ms;
	bool bucket_started;
	atomic_llong requests;
	atomic_llong connects;
};

static void share_lock(CURL *h, curl_lock_data data, curl_lock_access access, void *ud)
{
	air__transport *t = ud;

	(void)h;
	(void)access;
	if ((int)data >= 0 && data < CURL_LOCK_DATA_LAST)
		pthread_mutex_lock(&t->locks[data]);
}

static void share_unlock(CURL *h, curl_lock_data data, void *ud)
{
	air__transport *t = ud;

	(void)h;
	if ((int)data >= 0 && data < CURL_LOCK_DATA_LAST)
		pthread_mutex_unlock(&t->locks[data]);
}

int air__transport_new(air__transport **out)
{
	air__transport *t = air__calloc(1, sizeof(*t));

	*out = NULL;
	if (!t)
		return AIR_ENOMEM;
	for (int i = 0; i < CURL_LOCK_DATA_LAST; i++)
		pthread_mutex_init(&t->locks[i], NULL);
	pthread_mutex_init(&t->pool_lock, NULL);
	pthread_mutex_init(&t->bucket_lock, NULL);
	atomic_init(&t->requests, 0);
	atomic_init(&t->connects, 0);
	*out = t; /* the share comes with the first transfer: libcurl is not loaded yet */
	return AIR_OK;
}

/* The share, made with the first transfer context (pool_lock held). */
static bool make_share(air__transport *t)
{
	CURLSH *sh;

	if (t->share)
		return true;
	if (!(sh = air__curl.curl_share_init()))
		return false;
	if (air__curl.curl_share_setopt(sh, CURLSHOPT_USERDATA, t) != CURLSHE_OK ||
	    air__curl.curl_share_setopt(sh, CURLSHOPT_LOCKFUNC, share_lock) != CURLSHE_OK ||
	    air__curl.curl_share_setopt(sh, CURLSHOPT_UNLOCKFUNC, share_unlock) != CURLSHE_OK ||
	    air__curl.curl_share_setopt(sh, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS) != CURLSHE_OK ||
	    air__curl.curl_share_setopt(sh, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION) !=
	            CURLSHE_OK) {
		air__curl.curl_share_cleanup(sh);
		return false;
	}
	t->share = sh;
	return true;
}

static void ctx_free(air__xfer_ctx *x)
{
	for (size_t i = 0; i < x->nidle; i++)
		air__curl.curl_easy_cleanup(x->idle[i]);
	air__curl.curl_multi_cleanup(x->multi);
	air__free(x);
}

void air__transport_free(air__transport *t)
{
	if (!t)
		return;
	while (t->idle) {
		air__xfer_ctx *x = t->idle;
		t->idle = x->next;
		ctx_free(x);
	}
	/* Easy handles referencing the share are gone: it can be released. */
	if (t->share)
		air__curl.curl_share_cleanup(t->share);
	for (int i = 0; i < CURL_LOCK_DATA_LAST; i++)
		pthread_mutex_destroy(&t->locks[i]);
	pthread_mutex_destroy(&t->pool_lock);
	pthread_mutex_destroy(&t->bucket_lock);
	air__free(t);
}

air__xfer_ctx *air__transport_checkout(air__transport *t)
{
	air__xfer_ctx *x;

	bool shared;

	pthread_mutex_lock(&t->pool_lock);
	if ((x = t->idle) != NULL) {
		t->idle = x->next;
		t->nidle--;
	}
	shared = make_share(t);
	pthread_mutex_unlock(&t->pool_lock);
	if (!shared) {
		air__transport_checkin(t, x);
		return NULL;
	}
	if (x) {
		x->next = NULL;
		return x;
	}
	if (!(x = air__calloc(1, sizeof(*x))))
		return NULL;
	if (!(x->multi = air__curl.curl_multi_init())) {
		air__free(x);
		return NULL;
	}
	air__curl.curl_multi_setopt(x->multi, CURLMOPT_MAXCONNECTS, CONNECTIONS_PER_CONTEXT);
	return x;
}

void air__transport_checkin(air__transport *t, air__xfer_ctx *x)
{
	if (!x)
		return;
	pthread_mutex_lock(&t->pool_lock);
	if (t->nidle < MAX_IDLE_CONTEXTS) {
		x->next = t->idle;
		t->idle = x;
		t->nidle++;
		x = NULL;
	}
	pthread_mutex_unlock(&t->pool_lock);
	if (x)
		ctx_free(x);
}

CURL *air__xfer_ctx_easy(air__transport *t, air__xfer_ctx *x)
{
	CURL *e = x->nidle > 0 ? x->idle[--x->nidle] : air__curl.curl_easy_init();

	if (e)
		air__curl.curl_easy_setopt(e, CURLOPT_SHARE, t->share);
	return e;
}

void air__xfer_ctx_put_easy(air__xfer_ctx *x, CURL *easy)
{
	if (!easy)
		return;
	/* Back to defaults (keeps the handle's caches); the share is set again on reuse. */
	air__curl.curl_easy_reset(easy);
	if (x->nidle < AIR__ARRAY_SIZE(x->idle))
		x->idle[x->nidle++] = easy;
	else
		air__curl.curl_easy_cleanup(easy);
}

int64_t air__transport_reserve(air__transport *t, int64_t rps, int64_t now_ms)
{
	int64_t wait = 0;

	if (rps <= 0)
		return 0;
	pthread_mutex_lock(&t->bucket_lock);
	if (!t->bucket_started) {
		t->tokens = (double)rps;
		t->bucket_started = true;
	} else if (now_ms > t->bucket_ms) {
		t->tokens += (double)(now_ms - t->bucket_ms) * (double)rps / 1000.0;
		if (t->tokens > (double)rps)
			t->tokens = (double)rps;
	}
	if (now_ms > t->bucket_ms)
		t->bucket_ms = now_ms;
	/* Negative tokens are reservations queued behind the current one. */
	t->tokens -= 1.0;
	if (t->tokens < 0) {
		double w = -t->tokens * 1000.0 / (double)rps;
		wait = (int64_t)w;
		if ((double)wait < w)
			wait++;
	}
	pthread_mutex_unlock(&t->bucket_lock);
	return wait;
}

void air__transport_count(air__transport *t, int64_t requests, int64_t connects)
{
	atomic_fetch_add(&t->requests, requests);
	atomic_fetch_add(&t->connects, connects);
}

void air__transport_stats(const air__transport *t, int64_t *requests, int64_t *connects)
{
	air__transport *m = (air__transport *)t;

	*requests = atomic_load(&m->requests);
	*connects = atomic_load(&m->connects);
}

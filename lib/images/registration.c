/*
 * registration.c: registering a legacy image with the workspace
 * (ai-compute-manager images): credentials (given, or found locally and
 * stored), the prior digest, the registration itself with one anonymous
 * retry when the registry rejects found credentials, the wait until
 * AVAILABLE, and the final digest.
 */
#include "images/images.h"

#include <string.h>

#include "images/credentials.h"
#include "images/docker_config.h"
#include "images/registration.h"

#define IMAGES_PATH "/api/2.0/ai-compute-manager/images"
#define IMAGES_GET_PATH "/api/2.0/ai-compute-manager/images:get"
#define ACCESS_PATH "/api/2.0/ai-compute-manager/images:checkImageAccess"

char *air__docker_image_normalize(const char *url)
{
	char *t = air__trim_dup(url), *out = NULL, *at, *last;
	const char *first_end;
	size_t host_len;
	bool has_dot = false;
	air__buf b = AIR__BUF_INIT;

	if (!t)
		return NULL;
	/* Docker Hub defaults when the first component is not a registry host. */
	first_end = strchr(t, '/');
	host_len = first_end ? (size_t)(first_end - t) : 0;
	for (size_t i = 0; i < host_len && t[i] != ':'; i++)
		has_dot |= t[i] == '.';
	if (!first_end)
		air__buf_puts(&b, "docker.io/library/");
	else if (!has_dot)
		air__buf_puts(&b, "docker.io/");
	at = strchr(t, '@');
	if (at) {
		/* name:tag@digest -> name@digest */
		char *colon;
		*at = '\0';
		last = strrchr(t, '/');
		colon = strchr(last ? last : t, ':');
		if (colon)
			*colon = '\0';
		air__buf_puts(&b, t);
		air__buf_putc(&b, '@');
		air__buf_puts(&b, at + 1);
	} else {
		last = strrchr(t, '/');
		air__buf_puts(&b, t);
		if (!strchr(last ? last : t, ':'))
			air__buf_puts(&b, ":latest");
	}
	if (!air__buf_oom(&b))
		out = air__buf_detach(&b);
	air__buf_dispose(&b);
	air__free(t);
	return out;
}

air_error *air__image_import_failed(const char *url, const json_t *img)
{
	const char *why = air__json_nonempty(img, "status_message");
	air__buf b = AIR__BUF_INIT;
	air_error *e;

	air__buf_put_one_line(&b, why ? why : "unknown error");
	e = air__error_new(AIR_EAPI, AIR_KIND_PERMANENT, "image %s failed to import: %s", url,
	                   air__buf_oom(&b) ? "unknown error" : air__buf_cstr(&b));
	air__buf_dispose(&b);
	return e;
}

const char *air__image_reply_state(const json_t *reply, const json_t **img)
{
	const json_t *inner = json_object_get(reply, "image");
	const char *state;

	*img = json_is_object(inner) ? inner : reply;
	state = air__json_nonempty(*img, "state");
	if (state && (!strcmp(state, "AVAILABLE") || !strcmp(state, "FAILED") ||
	              !strcmp(state, "IMPORTING")))
		return state;
	return "PENDING";
}

int air__image_get(air_client *c, const air__ctx *ctx, const char *url, json_t **reply,
                   air_error **err)
{
	air__buf q = AIR__BUF_INIT;
	int rc;

	*reply = NULL;
	air__buf_query(&q, "docker_image_url", url);
	rc = air__buf_oom(&q) ? air__oom(err)
	                      : air__api_json(c, ctx, "GET", IMAGES_GET_PATH, air__buf_cstr(&q), NULL,
	                                      reply, NULL, err);
	air__buf_dispose(&q);
	return rc;
}

/* ---- one registration ------------------------------------------------------ */

typedef struct reg {
	air_client *c;
	const air__ctx *ctx;
	const air__register_req *req;
	char *scope, *key;          /* credentials named in the registration, or NULL */
	bool discovered;            /* they were found locally (an anonymous retry is allowed) */
	air_error *storage_failure; /* why found credentials could not be used */
	char *prior_digest;
	json_t *reply;              /* the registration reply, then the latest read */
	bool available_at_once;
} reg;

static air_error *with_field(const reg *r, air_error *e)
{
	return r->req->field ? air__error_set_field(e, r->req->field) : e;
}

/* "publicly_accessible" of checkImageAccess; false when unknown. */
static bool publicly_accessible(reg *r)
{
	air__buf q = AIR__BUF_INIT;
	json_t *reply = NULL;
	bool yes = false;

	air__buf_query(&q, "docker_image_url", r->req->url);
	if (!air__buf_oom(&q) && air__api_json(r->c, r->ctx, "GET", ACCESS_PATH, air__buf_cstr(&q),
	                                       NULL, &reply, NULL, NULL) == AIR_OK)
		yes = json_is_true(json_object_get(reply, "publicly_accessible"));
	json_decref(reply);
	air__buf_dispose(&q);
	return yes;
}

/* Credentials found in the local Docker configuration, stored in the
 * caller's secret scope. A failure to store them is kept for later. */
static int discover(reg *r, air_error **err)
{
	char *registry = air__docker_registry_key(r->req->url);
	air__registry_creds cr;
	air_error *e = NULL;
	int rc;

	if (!registry)
		return air__oom(err);
	rc = air__registry_creds_discover(r->c, r->ctx, r->req->docker_config_dir, registry,
	                                  r->req->helper_timeout_ms, &cr, err);
	if (rc == AIR_OK && cr.problems)
		air__client_debug(r->c, AIR_DEBUG_INFO, "registry credentials for %s: %s", registry,
		                  cr.problems);
	if (rc == AIR_OK && cr.user) {
		air__client_debug(r->c, AIR_DEBUG_INFO, "registry credentials for %s from %s", registry,
		                  cr.source);
		if (publicly_accessible(r)) {
			air__client_debug(r->c, AIR_DEBUG_INFO, "%s is public: registering it anonymously",
			                  r->req->url);
		} else if ((rc = air__registry_creds_store(r->c, r->ctx, registry, &cr, &r->scope,
		                                           &r->key, &e)) == AIR_OK) {
			r->discovered = true;
		} else if (rc != AIR_EINTERRUPTED && rc != AIR_ETIMEOUT && rc != AIR_ENOMEM) {
			/* Reported only if the registry then refuses anonymous access. */
			air__error_prefix(e, "the credentials of %s (from %s) could not be stored", registry,
			                  cr.source);
			r->storage_failure = e;
			e = NULL;
			rc = AIR_OK;
		} else {
			air__fail(err, e);
			e = NULL;
		}
	}
	air__registry_creds_dispose(&cr);
	air_error_free(e);
	air__free(registry);
	return rc;
}

/* The digest registered before this call; none when the image is unknown. */
static int prior_digest(reg *r, air_error **err)
{
	json_t *reply = NULL;
	const json_t *img;
	air_error *e = NULL;
	int rc = air__image_get(r->c, r->ctx, r->req->url, &reply, &e);

	if (rc == AIR_OK) {
		air__image_reply_state(reply, &img);
		if (air__json_nonempty(img, "manifest_sha256") &&
		    !(r->prior_digest = air__strdup(air__json_nonempty(img, "manifest_sha256"))))
			rc = air__oom(err);
	} else if (air_error_http_status(e) == 404 || rc == AIR_ENOTFOUND) {
		rc = AIR_OK;
	} else {
		rc = air__fail(err, with_field(r, air__error_prefix(e, "reading the registration of %s",
		                                                    r->req->url)));
		e = NULL;
	}
	air_error_free(e);
	json_decref(reply);
	return rc;
}

static int post(reg *r, bool with_credentials, air_error **e)
{
	json_t *body = json_pack("{s:s}", "docker_image_url", r->req->url);
	int rc;

	if (body && with_credentials && r->scope &&
	    (!air__json_set_str(body, "credentials_scope", r->scope) ||
	     !air__json_set_str(body, "credentials_key", r->key))) {
		json_decref(body);
		body = NULL;
	}
	if (!body)
		return air__oom(e);
	json_decref(r->reply);
	r->reply = NULL;
	rc = air__api_json(r->c, r->ctx, "POST", IMAGES_PATH, NULL, body, &r->reply, NULL, e);
	json_decref(body);
	return rc;
}

static bool refused(const air_error *e)
{
	int32_t status = air_error_http_status(e);
	return status == 401 || status == 403;
}

/* POST the registration; a refusal of found credentials gets one anonymous try. */
static int submit(reg *r, air_error **err)
{
	air_error *e = NULL;
	int rc = post(r, true, &e);

	if (rc != AIR_OK && refused(e) && r->discovered) {
		air__client_debug(r->c, AIR_DEBUG_INFO, "the registry refused the local credentials "
		                  "for %s (%s); trying anonymously", r->req->url, air_error_message(e));
		air_error_free(e);
		e = NULL;
		air__free(r->scope);
		air__free(r->key);
		r->scope = r->key = NULL;
		rc = post(r, false, &e);
	}
	if (rc == AIR_OK)
		return AIR_OK;
	if (refused(e) && r->req->credentials_scope) {
		air__error_prefix(e, "the registry rejected the credentials in secret %s/%s for image %s",
		                  r->req->credentials_scope, r->req->credentials_key, r->req->url);
	} else if (refused(e) && r->storage_failure) {
		air__error_prefix(e, "registering image %s: %s; the registry refused anonymous access",
		                  r->req->url, air_error_message(r->storage_failure));
		air__error_set_code(air__error_set_kind(e, air_error_kind(r->storage_failure)),
		                    air_error_code(r->storage_failure));
	} else {
		air__error_prefix(e, "registering image %s", r->req->url);
	}
	return air__fail(err, with_field(r, e));
}

/* Poll until AVAILABLE, FAILED or the wait limit. */
static int wait_available(reg *r, air_error **err)
{
	int64_t start = air__mono_ms();
	const json_t *img;
	const char *state = air__image_reply_state(r->reply, &img);
	int rc = AIR_OK;

	r->available_at_once = !strcmp(state, "AVAILABLE");
	while (rc == AIR_OK && strcmp(state, "AVAILABLE") != 0) {
		int64_t waited = air__mono_ms() - start, left = r->req->timeout_ms - waited;
		json_t *reply = NULL;

		if (!strcmp(state, "FAILED")) {
			return air__fail(err, with_field(r, air__image_import_failed(r->req->url, img)));
		}
		if (left <= 0)
			return air__fail(err, with_field(r, air__error_set_retryable(air__error_new(
			                 AIR_ETIMEOUT, AIR_KIND_TRANSIENT, "image %s is still %s after %lld "
			                 "minutes", r->req->url, state,
			                 (long long)((r->req->timeout_ms + 59999) / 60000)), true)));
		rc = air__ctx_sleep(r->ctx, r->req->poll_ms < left ? r->req->poll_ms : left,
		                    "waiting for the image", err);
		if (rc == AIR_OK && (rc = air__image_get(r->c, r->ctx, r->req->url, &reply, err)) == AIR_OK) {
			json_decref(r->reply);
			r->reply = reply;
			state = air__image_reply_state(r->reply, &img);
		}
	}
	return rc;
}

/* The image is AVAILABLE: one more read, only for a newer digest. As in the
 * official tool, a failed read is no failure: the digest of the last reply
 * (the registration's or the last poll's) stands. An interruption is. */
static int result(reg *r, air_image_registration **out, air_error **err)
{
	const json_t *img;
	const char *digest;
	air_image_registration *res;
	json_t *reply = NULL;
	air_error *e = NULL;
	int rc = air__image_get(r->c, r->ctx, r->req->url, &reply, &e);

	if (rc == AIR_EINTERRUPTED || rc == AIR_ENOMEM)
		return air__fail(err, e);
	if (rc != AIR_OK) {
		air__client_debug(r->c, AIR_DEBUG_INFO, "re-reading the registration of %s failed (%s); "
		                  "keeping the digest of the last reply", r->req->url,
		                  air_error_message(e));
		air_error_free(e);
	}
	air__image_reply_state(reply, &img);
	digest = air__json_nonempty(img, "manifest_sha256");
	if (!digest) {
		air__image_reply_state(r->reply, &img);
		digest = air__json_nonempty(img, "manifest_sha256");
	}
	res = air__image_registration_new(r->req->url, digest, "AVAILABLE", r->scope, r->key);
	if (!res) {
		json_decref(reply);
		return air__oom(err);
	}
	res->image_updated = !r->prior_digest || (digest && strcmp(digest, r->prior_digest) != 0);
	res->cached = r->available_at_once && r->prior_digest && digest &&
	              !strcmp(digest, r->prior_digest);
	json_decref(reply);
	if (out)
		*out = res;
	else
		air_image_registration_free(res);
	return AIR_OK;
}

int air__image_register(air_client *c, const air__ctx *ctx, const air__register_req *req,
                        air_image_registration **out, air_error **err)
{
	reg r;
	int rc = AIR_OK;

	if (out)
		*out = NULL;
	memset(&r, 0, sizeof(r));
	r.c = c;
	r.ctx = ctx;
	r.req = req;
	if (req->credentials_scope) {
		r.scope = air__strdup(req->credentials_scope);
		r.key = air__strdup(req->credentials_key);
		if (!r.scope || !r.key)
			rc = air__oom(err);
	} else if (req->discover) {
		rc = discover(&r, err);
	}
	if (rc == AIR_OK)
		rc = prior_digest(&r, err);
	if (rc == AIR_OK)
		rc = submit(&r, err);
	if (rc == AIR_OK)
		rc = wait_available(&r, err);
	if (rc == AIR_OK)
		rc = result(&r, out, err);
	air__free(r.scope);
	air__free(r.key);
	air__free(r.prior_digest);
	air_error_free(r.storage_failure);
	json_decref(r.reply);
	return rc;
}

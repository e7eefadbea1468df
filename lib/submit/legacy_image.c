/*
 * legacy_image.c: the legacy environment.docker_image must be registered and
 * AVAILABLE before a run is submitted. The image is not
 * attached to the run (as in the reference). With tag_policy "latest" the
 * image is registered again first, with the credentials named in the YAML or
 * anonymously (libair does not read local Docker credentials).
 */
#include "submit/submit.h"

#include <string.h>

#include "transport/transport.h"
#include "core/core.h"

#define IMAGES_PATH "/api/2.0/ai-compute-manager/images"
#define IMAGES_GET_PATH "/api/2.0/ai-compute-manager/images:get"
#define WAIT_LIMIT_MS (60 * 60 * 1000)

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

static int register_image(air_client *c, const air__ctx *ctx, const air__workload *w,
                          const char *url, air_error **err)
{
	json_t *body = json_pack("{s:s}", "docker_image_url", url);
	air_error *e = NULL;
	int rc;

	if (body && w->docker_credentials_scope) {
		json_object_set_new(body, "credentials_scope", json_string(w->docker_credentials_scope));
		json_object_set_new(body, "credentials_key", json_string(w->docker_credentials_key));
	}
	if (!body)
		return air__oom(err);
	rc = air__api_json(c, ctx, "POST", IMAGES_PATH, NULL, body, NULL, NULL, &e);
	json_decref(body);
	if (rc == AIR_OK)
		return AIR_OK;
	if ((air_error_http_status(e) == 401 || air_error_http_status(e) == 403) &&
	    w->docker_credentials_scope)
		air__error_prefix(e, "the registry rejected the credentials in secret %s/%s for image %s",
		                  w->docker_credentials_scope, w->docker_credentials_key, url);
	else
		air__error_prefix(e, "registering image %s", url);
	return air__fail(err, air__error_set_field(e, "environment.docker_image"));
}

/* The registration's state; unknown or absent counts as PENDING. */
static const char *image_state(const json_t *reply, const json_t **img)
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

int air__image_check(air_client *c, const air__ctx *ctx, const air__workload *w, int64_t poll_ms,
                     air_error **err)
{
	char *url = air__docker_image_normalize(w->docker_image_url);
	air__buf q = AIR__BUF_INIT;
	int64_t start = air__mono_ms();
	int rc;

	if (!url)
		return air__oom(err);
	air__buf_query(&q, "docker_image_url", url);
	rc = air__buf_oom(&q) ? air__oom(err) : AIR_OK;
	if (rc == AIR_OK && w->docker_tag_policy && !strcmp(w->docker_tag_policy, "latest"))
		rc = register_image(c, ctx, w, url, err);
	while (rc == AIR_OK) {
		json_t *reply = NULL;
		const json_t *img;
		const char *state;
		air_error *e = NULL;

		rc = air__api_json(c, ctx, "GET", IMAGES_GET_PATH, air__buf_cstr(&q), NULL, &reply, NULL, &e);
		if (rc != AIR_OK) {
			if (air_error_http_status(e) == 404)
				air__error_set_message(e, "image %s is not registered in this workspace; "
				                       "register it first (air register-image %s)", url, url);
			else
				air__error_prefix(e, "checking image %s", url);
			rc = air__fail(err, air__error_set_field(e, "environment.docker_image"));
			break;
		}
		state = image_state(reply, &img);
		if (!strcmp(state, "FAILED")) {
			const char *why = air__json_nonempty(img, "status_message");
			rc = air__fail(err, air__error_set_field(air__error_new(AIR_EAPI, AIR_KIND_PERMANENT,
			               "image %s failed to import: %s", url, why ? why : "unknown error"),
			               "environment.docker_image"));
		} else if (strcmp(state, "AVAILABLE") != 0) {
			if (air__mono_ms() - start >= WAIT_LIMIT_MS)
				rc = air__failf(err, AIR_ETIMEOUT, 0, "image %s is still %s after an hour", url,
				                state);
			else
				rc = air__ctx_sleep(ctx, poll_ms, "waiting for the image", err);
			if (rc == AIR_OK) {
				json_decref(reply);
				continue;
			}
		}
		json_decref(reply);
		break;
	}
	air__buf_dispose(&q);
	air__free(url);
	return rc;
}

/*
 * legacy_image.c: the legacy environment.docker_image must be registered and
 * AVAILABLE before a run is submitted. The image is not attached to the run
 * (as in the reference). With tag_policy "latest" the image is registered
 * again first (the images module), with the credentials named in the YAML or
 * those of the local Docker configuration.
 */
#include "submit/submit.h"

#include <string.h>

#include "transport/transport.h"
#include "core/core.h"
#include "images/images.h"

#define IMAGES_GET_PATH "/api/2.0/ai-compute-manager/images:get"
#define WAIT_LIMIT_MS (60 * 60 * 1000)

/* tag_policy "latest": register the tag again, waiting until AVAILABLE. */
static int register_image(air_client *c, const air__ctx *ctx, const air__workload *w,
                          const char *url, int64_t poll_ms, air_error **err)
{
	air__register_req req;

	memset(&req, 0, sizeof(req));
	req.url = url;
	req.credentials_scope = w->docker_credentials_scope;
	req.credentials_key = w->docker_credentials_key;
	req.discover = true;
	req.helper_timeout_ms = AIR__REGISTER_HELPER_TIMEOUT_MS;
	req.poll_ms = poll_ms;
	req.timeout_ms = AIR__REGISTER_TIMEOUT_MS;
	req.field = "environment.docker_image";
	return air__image_register(c, ctx, &req, NULL, err);
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
	if (w->docker_tag_policy && !strcmp(w->docker_tag_policy, "latest")) {
		rc = register_image(c, ctx, w, url, poll_ms, err);
		air__free(url);
		return rc;
	}
	air__buf_query(&q, "docker_image_url", url);
	rc = air__buf_oom(&q) ? air__oom(err) : AIR_OK;
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
		state = air__image_reply_state(reply, &img);
		if (!strcmp(state, "FAILED")) {
			rc = air__fail(err, air__error_set_field(air__image_import_failed(url, img),
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

/*
 * images.c: the workload's image. A unity_catalog_image must be in the
 * workspace's artifact registry and readable by this identity (asked of the
 * registry itself, images.h: skipped with the reason when it cannot be, never
 * a false pass); a legacy docker_image must be registered with the workspace
 * and AVAILABLE (images:get, read once: the submission is what waits).
 */
#include "checks/checks.h"

#include <string.h>

#define IMAGES_GET_PATH "/api/2.0/ai-compute-manager/images:get"

static int uc_image(air__checker *k)
{
	static const int32_t status[] = {
		[AIR__REGISTRY_FOUND] = AIR_CHECK_PASS, [AIR__REGISTRY_MISSING] = AIR_CHECK_FAIL,
		[AIR__REGISTRY_DENIED] = AIR_CHECK_FAIL, [AIR__REGISTRY_UNKNOWN] = AIR_CHECK_SKIPPED,
	};
	const char *field = "environment.unity_catalog_image";
	air__registry_lookup found;
	int rc;

	if (air__check_not_here(k, "image_readable", field, &rc))
		return rc;
	rc = air__registry_lookup_image(k->c, &k->ctx, k->w.uc_image,
	                                air__check_opt(k, AIR_CHECKS_REGISTRY_HOST),
	                                air__check_opt(k, AIR_CHECKS_DOCKER_CONFIG_DIR), &found,
	                                k->err);
	if (rc == AIR_OK)
		rc = air__check_add(k, "image_readable", status[found.verdict], field, "%s", found.why);
	air__registry_lookup_dispose(&found);
	return rc;
}

/* The registration's verdict from images:get: @got its outcome, @e its error (taken). */
static int registration(air__checker *k, const char *url, int got, air_error *e,
                        const json_t *reply)
{
	const char *field = "environment.docker_image.url", *state;
	bool latest = k->w.docker_tag_policy && !strcmp(k->w.docker_tag_policy, "latest");
	const json_t *img = NULL;

	if (got != AIR_OK && got != AIR_ENOTFOUND)
		return air__check_request_failed(k, "docker_image_registered", field, e,
		                                 "the image's registration cannot be read");
	air_error_free(e);
	if (got == AIR_ENOTFOUND && latest)
		return air__check_add(k, "docker_image_registered", AIR_CHECK_PASS, field,
		                      "%s is not registered yet: with tag_policy latest the submission "
		                      "registers it", url);
	if (got == AIR_ENOTFOUND)
		return air__check_add(k, "docker_image_registered", AIR_CHECK_FAIL, field,
		                      "%s is not registered with the workspace: register it first "
		                      "(register-image)", url);
	state = air__image_reply_state(reply, &img);
	if (!strcmp(state, "AVAILABLE"))
		return air__check_add(k, "docker_image_registered", AIR_CHECK_PASS, field,
		                      "%s is registered and AVAILABLE", url);
	if (!strcmp(state, "FAILED"))
		return air__check_add(k, "docker_image_registered", AIR_CHECK_FAIL, field,
		                      "the workspace's import of %s FAILED: %s", url,
		                      air__json_nonempty(img, "status_message")
		                          ? air__json_str(img, "status_message") : "no reason given");
	return air__check_add(k, "docker_image_registered", AIR_CHECK_WARN, field,
	                      "%s is still %s: the submission waits until it is AVAILABLE", url,
	                      state);
}

static int docker_image(air__checker *k)
{
	char *url;
	air__buf q = AIR__BUF_INIT;
	json_t *reply = NULL;
	air_error *e = NULL;
	int rc;

	if (air__check_not_here(k, "docker_image_registered", "environment.docker_image.url", &rc))
		return rc;
	if (!(url = air__docker_image_normalize(k->w.docker_image_url)))
		return air__oom(k->err);
	air__buf_query(&q, "docker_image_url", url);
	if (air__buf_oom(&q)) {
		rc = air__oom(k->err);
	} else {
		rc = air__api_json(k->c, &k->ctx, "GET", IMAGES_GET_PATH, air__buf_cstr(&q), NULL,
		                   &reply, NULL, &e);
		rc = registration(k, url, rc, e, reply);
	}
	air__buf_dispose(&q);
	json_decref(reply);
	air__free(url);
	return rc;
}

int air__check_images(air__checker *k)
{
	if (k->w.uc_image)
		return uc_image(k);
	if (k->w.docker_image_url)
		return docker_image(k);
	return AIR_OK;
}

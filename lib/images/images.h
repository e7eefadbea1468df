/*
 * images.h: what other modules use of the images module: the legacy image
 * URL normalisation and registration (a submission re-registers a
 * docker_image whose tag_policy is "latest"). It is the only header of
 * lib/images/ that files outside the folder include.
 */
#ifndef AIR_IMAGES_INTERNAL_H
#define AIR_IMAGES_INTERNAL_H

#include "transport/transport.h"

/* Normalised legacy image URL: docker.io/library/ for a bare name,
 * docker.io/ when the first component is not a host, a tag before @digest
 * dropped, ":latest" when untagged. air__free(). */
char *air__docker_image_normalize(const char *url);

/* The state of an images:get or registration reply ({"image": {...}} or the
 * object itself) and that object in *img: AVAILABLE, FAILED, IMPORTING, or
 * PENDING for anything else (absent or unknown). */
const char *air__image_reply_state(const json_t *reply, const json_t **img);
/* The error of an image whose import FAILED (@img as above): AIR_EAPI,
 * PERMANENT, quoting the server's status message on one line. */
air_error *air__image_import_failed(const char *url, const json_t *img);

/* One registration. Strings are borrowed. */
typedef struct air__register_req {
	const char *url;               /* normalised */
	const char *credentials_scope; /* stored credentials, or NULL */
	const char *credentials_key;
	bool discover;                 /* look for local Docker credentials when none are given */
	const char *docker_config_dir; /* NULL: $DOCKER_CONFIG, else <home>/.docker */
	int64_t helper_timeout_ms;
	int64_t poll_ms;
	int64_t timeout_ms;            /* waiting for AVAILABLE */
	const char *field;             /* field named by errors ("environment.docker_image"), or NULL */
} air__register_req;

/* Defaults of air__register_req (also those of the public options). */
#define AIR__REGISTER_TIMEOUT_MS (60 * 60 * 1000)
#define AIR__REGISTER_POLL_MS 5000
#define AIR__REGISTER_HELPER_TIMEOUT_MS 10000

/* Register and wait until AVAILABLE (air_client_register_image()). @out may
 * be NULL when only the outcome matters. */
int air__image_register(air_client *c, const air__ctx *ctx, const air__register_req *req,
                        air_image_registration **out, air_error **err);

/* ---- the workspace's artifact registry (registry.c) ---- */

/* What a look-up of a Unity Catalog image found. */
typedef enum air__registry_verdict {
	AIR__REGISTRY_FOUND = 1,   /* the manifest is there and the identity may read it */
	AIR__REGISTRY_MISSING = 2, /* the registry has no such image or tag */
	AIR__REGISTRY_DENIED = 3,  /* the registry refused the identity */
	AIR__REGISTRY_UNKNOWN = 4  /* no answer could be had: no registry, no credentials... */
} air__registry_verdict;

typedef struct air__registry_lookup {
	air__registry_verdict verdict;
	char *registry;   /* the registry asked (host[:port] or URL), or NULL */
	char *why;        /* one sentence: what was found or why nothing could be */
} air__registry_lookup;

void air__registry_lookup_dispose(air__registry_lookup *r);

/*
 * Look for @uc_image ("catalog.schema.artifact:tag") in the workspace's
 * artifact registry: @registry ("host[:port]", https, or a URL), else the one
 * the Docker configuration of @config_dir has a ".container." credential
 * helper for. A registry v2 manifest request (HEAD /v2/<name>/manifests/<tag>)
 * with the credentials of the local Docker configuration (credential helper,
 * inline auths), through the registry's token service when it asks for a
 * bearer token. Nothing is pulled. Fails only when interrupted, past the
 * deadline or out of memory: every other outcome is in @out.
 */
int air__registry_lookup_image(air_client *c, const air__ctx *ctx, const char *uc_image,
                               const char *registry, const char *config_dir,
                               air__registry_lookup *out, air_error **err);

#endif /* AIR_IMAGES_INTERNAL_H */

/**
 * @file
 * images.h: push a local container image to the workspace's artifact
 * registry, for use as environment.unity_catalog_image.
 *
 * Drives the `docker` command (inspect, pull, tag, push) and asks
 * `databricks auth docker configure <profile>` for the registry host unless
 * AIR_IMAGE_REGISTRY_HOST is given; the profile is the client's (resolved
 * like every other call). No Docker engine is touched by libair itself.
 */
#ifndef AIR_IMAGES_H
#define AIR_IMAGES_H

#include "options.h"

AIR_BEGIN_DECLS

/** Options of an image push. 1..99 strings, 100..199 integers. ABI: append only. */
typedef enum air_image_option {
	AIR_IMAGE_SOURCE = 1,         /**< local image NAME[:TAG] or NAME\@DIGEST (required) */
	AIR_IMAGE_CATALOG = 2,        /**< destination catalog (required) */
	AIR_IMAGE_SCHEMA = 3,         /**< destination schema (required) */
	AIR_IMAGE_ARTIFACT = 4,       /**< ARTIFACT[:TAG]; default: the source's last component and tag */
	AIR_IMAGE_REGISTRY_HOST = 5,  /**< registry host; skips `databricks auth docker configure` */
	AIR_IMAGE_DOCKER = 6,         /**< docker program; default "docker" (looked up on PATH) */
	AIR_IMAGE_DATABRICKS_CLI = 7, /**< databricks program; default "databricks" */
	AIR_IMAGE_PULL = 100          /**< 1: pull linux/amd64 even when the image exists locally */
} air_image_option;

/** Create options with defaults. @since 1.0 */
AIR_EXTERN int air_image_push_options_new(air_image_push_options **out);
/** Release options; NULL is a no-op. @since 1.0 */
AIR_EXTERN void air_image_push_options_free(air_image_push_options *opts);
/** Set a string option (copied). @since 1.0 */
AIR_EXTERN int air_image_push_options_set_str(air_image_push_options *opts, int32_t opt,
                                              const char *value);
/** Set an integer option. @since 1.0 */
AIR_EXTERN int air_image_push_options_set_int(air_image_push_options *opts, int32_t opt,
                                              int64_t value);
/** Stop the push when @p intr is raised: the running docker command is killed (borrowed). @since 1.0 */
AIR_EXTERN int air_image_push_options_set_interrupt(air_image_push_options *opts,
                                                    air_interrupt *intr);
/** At most @p ms milliseconds for the whole push; 0 = none. @since 1.0 */
AIR_EXTERN int air_image_push_options_set_deadline_ms(air_image_push_options *opts, int64_t ms);

/**
 * Validate the names, then tag and push the image through the workspace of
 * @p client, whose configuration must come from a profile with an OAuth login
 * (the Docker credential helper does not work with PATs or M2M).
 * @param[out] uc_image receives "<catalog>.<schema>.<artifact>:<tag>" (free with air_free()).
 * @param[out] registry_image optional; receives "<host>/<catalog>.<schema>.<artifact>:<tag>".
 * @return AIR_OK, AIR_EINVAL (names), AIR_EAUTH (no profile), AIR_EIO (docker
 *         failed), AIR_EINTERRUPTED, AIR_ETIMEOUT.
 * @since 1.0
 */
AIR_EXTERN int air_client_push_image(air_client *client, const air_image_push_options *opts,
                                     char **uc_image, char **registry_image, air_error **err);

AIR_END_DECLS

#endif /* AIR_IMAGES_H */

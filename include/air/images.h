/**
 * @file
 * images.h: container images.
 *
 * Push: a local container image goes to the workspace's artifact registry,
 * for use as environment.unity_catalog_image. Drives the `docker` command
 * (inspect, pull, tag, push) and asks `databricks auth docker configure
 * <profile>` for the registry host unless AIR_IMAGE_REGISTRY_HOST is given;
 * the profile is the client's (resolved like every other call). No Docker
 * engine is touched by libair itself.
 *
 * Register (legacy environment.docker_image): the workspace imports an image
 * from its registry. Credentials of a private registry are found in the local
 * Docker configuration, stored in the caller's secret scope and named in the
 * registration by scope and key; the call then waits until the workspace has
 * the image AVAILABLE.
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

/**
 * Create options with defaults.
 * @return AIR_OK, AIR_EINVAL (NULL @p out) or AIR_ENOMEM. @since 1.0
 */
AIR_EXTERN int air_image_push_options_new(air_image_push_options **out);
/** Release options; NULL is a no-op. @since 1.0 */
AIR_EXTERN void air_image_push_options_free(air_image_push_options *opts);
/**
 * Set a string option (copied).
 * @return AIR_OK, AIR_EINVAL (NULL @p opts, an integer option), AIR_EUNSUPPORTED (unknown
 *         option) or AIR_ENOMEM. @since 1.0
 */
AIR_EXTERN int air_image_push_options_set_str(air_image_push_options *opts, int32_t opt,
                                              const char *value);
/**
 * Set an integer option.
 * @return AIR_OK, AIR_EINVAL (NULL @p opts, a string option, a value other than 0 or 1)
 *         or AIR_EUNSUPPORTED. @since 1.0
 */
AIR_EXTERN int air_image_push_options_set_int(air_image_push_options *opts, int32_t opt,
                                              int64_t value);
/**
 * Stop the push when @p intr is raised: the running docker command is killed (borrowed).
 * @return AIR_OK or AIR_EINVAL (NULL @p opts). @since 1.0
 */
AIR_EXTERN int air_image_push_options_set_interrupt(air_image_push_options *opts,
                                                    air_interrupt *intr);
/**
 * At most @p ms milliseconds for the whole push; 0 = none.
 * @return AIR_OK or AIR_EINVAL (NULL @p opts; @p ms negative or above a year). @since 1.0
 */
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

/* ---- registration (legacy environment.docker_image) ------------------- */

/** Options of an image registration. 1..99 strings, 100..199 integers. ABI: append only. */
typedef enum air_register_option {
	AIR_REGISTER_TAG_POLICY = 1,        /**< "" (default) or "latest"; "auto" and anything else
	                                         are AIR_EINVAL. Accepted for compatibility: both
	                                         register the tag as it is now */
	AIR_REGISTER_DOCKER_CONFIG_DIR = 2, /**< directory of config.json; default $DOCKER_CONFIG
	                                         (when the client reads the environment), else
	                                         $HOME/.docker */
	AIR_REGISTER_CREDENTIALS_SCOPE = 3, /**< use credentials already stored in this secret
	                                         scope (with AIR_REGISTER_CREDENTIALS_KEY) instead
	                                         of the local Docker configuration */
	AIR_REGISTER_CREDENTIALS_KEY = 4,   /**< the secret holding base64("user:password") */
	AIR_REGISTER_TIMEOUT_MS = 100,      /**< how long to wait for AVAILABLE; default 3600000
	                                         (60 minutes); must be > 0 */
	AIR_REGISTER_POLL_INTERVAL_MS = 101,/**< between reads of the registration; default 5000 */
	AIR_REGISTER_HELPER_TIMEOUT_MS = 102,/**< per run of a docker-credential-* helper; default
	                                          10000 */
	AIR_REGISTER_DISCOVER = 103         /**< 1 (default): look for local Docker credentials;
	                                         0: register anonymously */
} air_register_option;

/**
 * Create registration options with defaults.
 * @return AIR_OK, AIR_EINVAL (NULL @p out) or AIR_ENOMEM. @since 1.1
 */
AIR_EXTERN int air_register_image_options_new(air_register_image_options **out);
/** Release options; NULL is a no-op. @since 1.1 */
AIR_EXTERN void air_register_image_options_free(air_register_image_options *opts);
/**
 * Set a string option (copied; NULL unsets).
 * @return AIR_OK, AIR_EINVAL (bad tag policy, integer option), AIR_EUNSUPPORTED. @since 1.1
 */
AIR_EXTERN int air_register_image_options_set_str(air_register_image_options *opts, int32_t opt,
                                                  const char *value);
/**
 * Set an integer option.
 * @return AIR_OK, AIR_EINVAL (out of range, string option), AIR_EUNSUPPORTED. @since 1.1
 */
AIR_EXTERN int air_register_image_options_set_int(air_register_image_options *opts, int32_t opt,
                                                  int64_t value);
/**
 * Stop the registration when @p intr is raised (borrowed): a running
 * credential helper is killed, a wait ends at once. The workspace keeps
 * importing an image it has accepted.
 * @return AIR_OK or AIR_EINVAL (NULL @p opts). @since 1.1
 */
AIR_EXTERN int air_register_image_options_set_interrupt(air_register_image_options *opts,
                                                        air_interrupt *intr);
/**
 * At most @p ms milliseconds for the whole call; 0 = none.
 * @return AIR_OK or AIR_EINVAL (NULL @p opts; @p ms negative or above a year). @since 1.1
 */
AIR_EXTERN int air_register_image_options_set_deadline_ms(air_register_image_options *opts,
                                                          int64_t ms);

/**
 * Register the legacy container image @p image_url with the workspace of
 * @p client and wait until it is AVAILABLE.
 *
 * The URL is normalised first (docker.io/library/ for a bare name, ":latest"
 * when untagged, a tag before "@digest" dropped). Credentials come from the
 * options (stored scope/key), else from the local Docker configuration: the
 * registry's credHelpers entry, then credsStore (`docker-credential-<name>
 * get`, the registry on stdin), then the inline auths entry; Docker Hub is
 * looked up as "https://index.docker.io/v1/". Found credentials are stored
 * as secret "<registry host>-<docker user>-local" in scope
 * "docker-credentials-<workspace user>" (created when missing), unless the
 * workspace reports the image publicly accessible; they never appear in
 * errors or traces. Credentials the registry rejects (401/403) are dropped
 * for one anonymous attempt; a failure to store them is reported only when
 * the registration then fails with 401/403.
 *
 * @param[out] out the registration; release with air_image_registration_free().
 * @return AIR_OK; AIR_EINVAL (empty URL, bad options); AIR_ETIMEOUT (kind
 *         TRANSIENT: still not AVAILABLE after AIR_REGISTER_TIMEOUT_MS, or the
 *         deadline); AIR_EAPI (kind PERMANENT: the import FAILED, with the
 *         workspace's message); AIR_EPERMISSION (the registry or the secret
 *         scope refused access); transport codes (AIR_ERATELIMIT, AIR_ESERVER
 *         are TRANSIENT); AIR_EINTERRUPTED.
 * @since 1.1
 */
AIR_EXTERN int air_client_register_image(air_client *client, const char *image_url,
                                         const air_register_image_options *opts,
                                         air_image_registration **out, air_error **err);

/** The normalised image URL that was registered ("docker.io/library/ubuntu:22.04"). @since 1.1 */
AIR_EXTERN const char *air_image_registration_url(const air_image_registration *reg);
/** The image's manifest digest as the workspace reports it, or NULL. @since 1.1 */
AIR_EXTERN const char *air_image_registration_manifest_sha256(const air_image_registration *reg);
/** The registration state: "AVAILABLE" after a successful call. @since 1.1 */
AIR_EXTERN const char *air_image_registration_status(const air_image_registration *reg);
/**
 * 1 when this call changed the image the workspace runs: a first
 * registration, or a digest different from the one registered before. @since 1.1
 */
AIR_EXTERN int32_t air_image_registration_image_updated(const air_image_registration *reg);
/**
 * 1 when the workspace already had this very image: the registration was
 * AVAILABLE at once with the digest it had before the call. @since 1.1
 */
AIR_EXTERN int32_t air_image_registration_cached(const air_image_registration *reg);
/** Secret scope of the credentials the registration used, or NULL (anonymous). @since 1.1 */
AIR_EXTERN const char *air_image_registration_credentials_scope(const air_image_registration *reg);
/** Secret key of the credentials the registration used, or NULL (anonymous). @since 1.1 */
AIR_EXTERN const char *air_image_registration_credentials_key(const air_image_registration *reg);
/** Release @p reg; NULL is a no-op. @since 1.1 */
AIR_EXTERN void air_image_registration_free(air_image_registration *reg);

AIR_END_DECLS

#endif /* AIR_IMAGES_H */

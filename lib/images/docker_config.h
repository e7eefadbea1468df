/*
 * docker_config.h: the local Docker client configuration, read to find the
 * credentials of a private registry ($DOCKER_CONFIG/config.json, else
 * ~/.docker/config.json): the credential helper that serves a registry
 * (credHelpers, then credsStore) and the inline credentials of auths. Pure
 * parsing and look-ups; running the helpers is credentials.c's job.
 */
#ifndef AIR_IMAGES_DOCKER_CONFIG_H
#define AIR_IMAGES_DOCKER_CONFIG_H

#include "transport/transport.h"

/* The registry key Docker uses for Docker Hub. */
#define AIR__DOCKER_HUB_KEY "https://index.docker.io/v1/"

typedef struct air__docker_config air__docker_config;

/*
 * Parse @len bytes of a config.json read from @path (named in errors).
 * AIR_EIO when it is not a JSON object (the message gives the reason and
 * position, never the text: it may hold credentials). Members of unexpected
 * types are ignored.
 */
int air__docker_config_parse(const char *path, const char *data, size_t len,
                             air__docker_config **out, air_error **err);
void air__docker_config_free(air__docker_config *c);

/* The registry key of a normalised image URL: AIR__DOCKER_HUB_KEY for Docker
 * Hub hosts (docker.io, index.docker.io, registry-1.docker.io), else the
 * image's host[:port]. air__free(). */
char *air__docker_registry_key(const char *image_url);

/* The host of a registry key or auths entry: scheme and path removed,
 * lower-cased; Docker Hub aliases become "index.docker.io". air__free(). */
char *air__docker_registry_host(const char *key);

/*
 * The credential helper that serves @registry (a registry key): its credHelpers
 * entry (matched by host), else credsStore; NULL when neither names one. A
 * name that is not a plain program suffix ([A-Za-z0-9._-]+) is ignored.
 * *per_registry (may be NULL) tells which. Borrowed from @c.
 */
const char *air__docker_config_helper(const air__docker_config *c, const char *registry,
                                      bool *per_registry);

/*
 * The host of a credHelpers entry whose host contains @marker (the
 * ".container." of a workspace's artifact registry), preferring the one whose
 * first label is @label (may be NULL); NULL when none. air__free().
 */
char *air__docker_config_helper_host(const air__docker_config *c, const char *marker,
                                     const char *label);

/* The credsStore helper, or NULL (also when it is not a plain name). Borrowed. */
const char *air__docker_config_store(const air__docker_config *c);

/*
 * The inline credentials of @registry: the base64 "user:password" of its
 * auths entry (matched by host). AIR_OK with *user and *secret (free both
 * with air__free_secret()), or AIR_ENOTFOUND when there is no usable entry.
 */
int air__docker_config_inline(const air__docker_config *c, const char *registry, char **user,
                              char **secret);

#endif /* AIR_IMAGES_DOCKER_CONFIG_H */

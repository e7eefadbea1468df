/*
 * credentials.h: the credentials of a private registry for a registration:
 * found in the local Docker configuration (credential helpers through
 * `docker-credential-<name> get`, inline auths) and stored in the caller's
 * secret scope, so that the registration names them by scope and key. Every
 * value found is added to the client's secrets before anything else is done
 * with it.
 */
#ifndef AIR_IMAGES_CREDENTIALS_H
#define AIR_IMAGES_CREDENTIALS_H

#include "transport/transport.h"

typedef struct air__registry_creds {
	char *user;     /* NULL: nothing found */
	char *secret;
	char *source;   /* "credential helper docker-credential-desktop", "auths in <file>" */
	char *problems; /* what went wrong on the way ("; "-separated), or NULL */
} air__registry_creds;

void air__registry_creds_dispose(air__registry_creds *cr);

/*
 * Look for the credentials of @registry (a registry key) in the Docker
 * configuration of @config_dir (NULL: $DOCKER_CONFIG, else <home>/.docker):
 * its credHelpers entry, then credsStore, then the inline auths entry; the
 * first that yields credentials wins. A missing file means none. Problems
 * (unreadable file, a helper that fails or hangs past @helper_timeout_ms) are
 * noted in out->problems and the search goes on. Returns AIR_OK, or the
 * interrupt/deadline/out-of-memory failure that stopped the search.
 */
int air__registry_creds_discover(air_client *c, const air__ctx *ctx, const char *config_dir,
                                 const char *registry, int64_t helper_timeout_ms,
                                 air__registry_creds *out, air_error **err);

/*
 * The artifact registry a workspace's Docker credential helper was set up for
 * (`databricks auth docker configure` adds a credHelpers entry for it): the
 * host of a credHelpers entry of the Docker configuration of @config_dir
 * containing ".container.", preferring the one whose first label is that of
 * @workspace_host. NULL when there is none (air__free()).
 */
char *air__registry_configured_host(air_client *c, const char *config_dir,
                                    const char *workspace_host);

/* "docker-credentials-<user name>" and "<registry host>-<docker user>-local",
 * each character a secret name may not hold replaced by '_'. air__free(). */
char *air__registry_scope_name(const char *user_name);
char *air__registry_key_name(const char *registry, const char *docker_user);

/*
 * Store @cr in the caller's secret scope (scopes/list, scopes/create when
 * missing, secrets/put of base64("user:password")). *scope and *key receive
 * the reference (air__free()). A full scope quota, or no permission to create
 * the scope or write the secret, is an error saying so.
 */
int air__registry_creds_store(air_client *c, const air__ctx *ctx, const char *registry,
                              const air__registry_creds *cr, char **scope, char **key,
                              air_error **err);

#endif /* AIR_IMAGES_CREDENTIALS_H */

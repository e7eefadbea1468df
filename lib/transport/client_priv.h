/*
 * client_priv.h: the air_client structure and the interfaces between the
 * client-level files of the transport module (client.c, api.c, identity.c,
 * resolve.c, auth.c, oauth.c, u2m.c, the backends). The request engine below
 * them (http.h) never sees a client; other modules use transport.h only.
 */
#ifndef AIR_TRANSPORT_CLIENT_PRIV_H
#define AIR_TRANSPORT_CLIENT_PRIV_H

#include <pthread.h>
#include <stdatomic.h>

#include "transport/backend.h"
#include "transport/transport.h"

/* Option ids: strings 1..AIR__OPT_STR_MAX, integers AIR__OPT_INT_FIRST..MAX. */
#define AIR__OPT_STR_MAX   AIR_OPT_DISCOVERY_URL
#define AIR__OPT_INT_FIRST AIR_OPT_CONNECT_TIMEOUT_MS
#define AIR__OPT_INT_MAX   AIR_OPT_MAX_PARALLEL
#define AIR__OPT_INT_COUNT (AIR__OPT_INT_MAX - AIR__OPT_INT_FIRST + 1)

/* Configuration attributes layered by resolution. */
typedef enum air__attr {
	AIR__A_HOST,
	AIR__A_TOKEN,
	AIR__A_USERNAME,
	AIR__A_PASSWORD,
	AIR__A_CLIENT_ID,
	AIR__A_CLIENT_SECRET,
	AIR__A_ACCOUNT_ID,
	AIR__A_WORKSPACE_ID,
	AIR__A_AUTH_TYPE,
	AIR__A_DISCOVERY_URL,
	AIR__A_COUNT
} air__attr;

/* Where an attribute's value came from (for messages and the U2M cache key). */
typedef enum air__src {
	AIR__SRC_NONE,
	AIR__SRC_OPTION,
	AIR__SRC_ENV,
	AIR__SRC_PROFILE,
	AIR__SRC_HOST_QUERY,
	AIR__SRC_METADATA
} air__src;

/* Resolved configuration; written once under the resolve lock, then read-only. */
typedef struct air__cfg {
	char *attr[AIR__A_COUNT];
	air__src src[AIR__A_COUNT];
	char *profile;          /* section the values came from, or NULL */
	bool through_profile;   /* a profile name was chosen (explicit, env, default) */
	char *config_file;      /* the config file consulted, or NULL */
	char *home;             /* home directory, or NULL when unknown */
	char *auth_storage;     /* "plaintext", "secure" or NULL (default: secure) */
	bool auth_storage_explicit;
	char *host_type;        /* "workspace" | "account" | "unified" from metadata, or NULL */
	const air__backend_kind *backend; /* the kind of the host, once it is known */
	/* Transport settings: explicit option > environment > profile > default. */
	int64_t rate_limit;
	int64_t inactivity_ms;
	int64_t retry_deadline_ms;
	bool skip_verify;
} air__cfg;

typedef struct air__auth air__auth;
typedef struct air__transport air__transport;

struct air_client_options {
	char *opt_str[AIR__OPT_STR_MAX + 1];
	int64_t opt_int[AIR__OPT_INT_COUNT];
	bool opt_int_set[AIR__OPT_INT_COUNT];
	char **env;             /* private environment ("NAME=value"), or NULL */
	air_debug_cb debug_cb;
	void *debug_ud;
	air_interrupt *intr;    /* client-wide interrupt (borrowed), or NULL */
};

struct air_client {
	air_client_options o;   /* a copy, fixed for the client's life */

	pthread_mutex_t resolve_lock;
	atomic_bool resolved;   /* set (release) after resolve_rc/cfg/http are final */
	int resolve_rc;
	air_error *resolve_err;
	air__cfg cfg;
	char *user_agent;

	air__secrets *secrets;  /* every credential known, in every form sent */
	air__auth *auth;        /* credential provider (own lock) */
	air__transport *tp;     /* curl share, handle pool, rate limiter (own locks) */
	air__http_env http;     /* what the engine runs with; complete once resolved */
	air__backend *backend;  /* answers every request; open once resolved */

	pthread_mutex_t cache_lock; /* user_name, probed workspace id */
	char *user_name;
	bool ws_probed;
	int64_t ws_probed_id;
};

/* ---- client.c ---- */
/* Use @envp ("NAME=value", NULL-terminated, copied) instead of the process
 * environment; NULL returns to the process environment. For tests. */
int air__client_options_set_environment(air_client_options *o, const char *const *envp);
/* Whether the integer option was explicitly set. */
bool air__client_opt_int_is_set(const air_client *c, int32_t opt);

/* ---- resolve.c ---- */
/* Layer options, environment and config file into c->cfg (no network). */
int air__resolve_config(air_client *c, air_error **err);
void air__cfg_clear(air__cfg *cfg);
/* The final form of a workspace URL in c->cfg (normalised; workspace and
 * account ids from its query; account hosts refused): air__backend_http's
 * finish_host. */
int air__resolve_workspace_host(air_client *c, air_error **err);
/* docs/auth.md#the-host normalisation: *out_host gets
 * "scheme://host[:port]"; workspace/account ids from the query (w, o,
 * workspace_id; a, account_id) go to *out_ws / *out_acct (NULL when absent). */
int air__host_normalize(const char *raw, char **out_host, char **out_ws, char **out_acct,
                        air_error **err);
/* Expand a leading "~" with the resolved home directory (copy). */
char *air__expand_home(const air_client *c, const char *path);

#endif /* AIR_TRANSPORT_CLIENT_PRIV_H */

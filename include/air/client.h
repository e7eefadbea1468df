/**
 * @file
 * client.h: a connection to one Databricks workspace.
 *
 * A client resolves its configuration the way the Databricks CLI and SDKs do
 * (explicit options > environment > ~/.databrickscfg profile), authenticates
 * (PAT, OAuth M2M, the `databricks auth login` token cache, basic) and talks
 * HTTPS with connection reuse, retries with back-off and an overall deadline
 * per call.
 *
 * Threads: options are fixed when the client is created, so a client may be
 * shared freely: every function taking an air_client except air_client_free()
 * may be called from many threads at once; connections and the token cache
 * are shared. Callbacks run on the thread that made the call.
 */
#ifndef AIR_CLIENT_H
#define AIR_CLIENT_H

#include "options.h"

AIR_BEGIN_DECLS

/** Client options. 1..99 strings, 100..199 integers. ABI: append only. */
typedef enum air_option {
	AIR_OPT_HOST = 1,                /**< workspace URL (DATABRICKS_HOST) */
	AIR_OPT_TOKEN = 2,               /**< personal access token (DATABRICKS_TOKEN) */
	AIR_OPT_PROFILE = 3,             /**< profile name; like --profile, it wins over env auth */
	AIR_OPT_CONFIG_FILE = 4,         /**< config file (DATABRICKS_CONFIG_FILE, ~/.databrickscfg) */
	AIR_OPT_CLIENT_ID = 5,           /**< OAuth M2M client id */
	AIR_OPT_CLIENT_SECRET = 6,       /**< OAuth M2M client secret */
	AIR_OPT_AUTH_TYPE = 7,           /**< pat | basic | oauth-m2m | databricks-cli */
	AIR_OPT_USERNAME = 8,            /**< basic auth user */
	AIR_OPT_PASSWORD = 9,            /**< basic auth password */
	AIR_OPT_WORKSPACE_ID = 10,       /**< X-Databricks-Workspace-Id routing header */
	AIR_OPT_USER_AGENT_SUFFIX = 11,  /**< appended to the User-Agent ("myapp/1.2") */
	AIR_OPT_CA_FILE = 12,            /**< PEM bundle of trusted CAs */
	AIR_OPT_HOME_DIR = 13,           /**< home directory for ~ expansion and the token cache */
	AIR_OPT_AUTH_STORAGE = 14,       /**< U2M token storage: plaintext | secure */
	AIR_OPT_USER_WORKSPACE_DIR = 15, /**< artifact base instead of /Workspace/Users/\<me\> */
	AIR_OPT_DEFAULT_RUNTIME = 16,    /**< default environment channel (DATABRICKS_DL_RUNTIME_IMAGE) */
	AIR_OPT_DISCOVERY_URL = 17,      /**< OAuth authorization-server metadata URL */
	AIR_OPT_CONNECT_TIMEOUT_MS = 100,   /**< TCP+TLS connect timeout per attempt; default 30000 */
	AIR_OPT_REQUEST_TIMEOUT_MS = 101,   /**< total time per attempt; default 0 = none (inactivity applies) */
	AIR_OPT_INACTIVITY_TIMEOUT_MS = 102,/**< abort an attempt stalled this long; default 60000 */
	AIR_OPT_RETRY_DEADLINE_MS = 103,    /**< overall retry budget per call; default 120000 */
	AIR_OPT_RETRY_BACKOFF_MS = 104,     /**< back-off unit: attempt n waits min(n,10) units + jitter; default 1000 */
	AIR_OPT_USE_ENVIRONMENT = 105,      /**< 1 (default): read DATABRICKS_* variables; 0: ignore them */
	AIR_OPT_SKIP_TLS_VERIFY = 106,      /**< 1: do not verify certificates (testing only) */
	AIR_OPT_RATE_LIMIT = 107,           /**< requests per second across the client; default 15, 0 = off */
	AIR_OPT_MAX_PARALLEL = 108          /**< concurrent transfers of one call (uploads); default 8 */
} air_option;

/** Kinds of debug callback messages. */
typedef enum air_debug_type {
	AIR_DEBUG_INFO = 0,      /**< resolution, retries, decisions */
	AIR_DEBUG_REQUEST = 1,   /**< request line and headers (credentials redacted) */
	AIR_DEBUG_RESPONSE = 2,  /**< status line and headers */
	AIR_DEBUG_BODY_OUT = 3,  /**< request body excerpt (secret values redacted) */
	AIR_DEBUG_BODY_IN = 4    /**< response body excerpt (token values redacted) */
} air_debug_type;

/**
 * Debug/trace callback: @p type is an air_debug_type, @p text is @p len
 * bytes (no NUL needed), borrowed until return. The return value is ignored.
 */
typedef int (*air_debug_cb)(int32_t type, const char *text, size_t len, void *userdata);

/* ---- options ----------------------------------------------------------- */

/**
 * Create client options with defaults (environment and config file are read).
 * @return AIR_OK, AIR_EINVAL (NULL @p out) or AIR_ENOMEM. @since 1.0
 */
AIR_EXTERN int air_client_options_new(air_client_options **out);
/** Release options (secrets are overwritten); NULL is a no-op. @since 1.0 */
AIR_EXTERN void air_client_options_free(air_client_options *opts);
/**
 * Set a string option; @p value is copied (NULL unsets).
 * @return AIR_OK, AIR_EINVAL (integer option, bad value), AIR_EUNSUPPORTED
 *         (unknown option: lets a newer program probe an older library),
 *         AIR_ENOMEM. @since 1.0
 */
AIR_EXTERN int air_client_options_set_str(air_client_options *opts, int32_t opt,
                                          const char *value);
/** Set an integer option. @return AIR_OK, AIR_EINVAL, AIR_EUNSUPPORTED. @since 1.0 */
AIR_EXTERN int air_client_options_set_int(air_client_options *opts, int32_t opt, int64_t value);
/**
 * Trace requests, replies and decisions of every call on the client through
 * @p cb (NULL removes it). Credentials are redacted before @p cb sees the
 * text. With a shared client @p cb may run on several threads at once, each
 * time on the thread making the call. @p userdata is borrowed.
 * @return AIR_OK or AIR_EINVAL (NULL @p opts). @since 1.0
 */
AIR_EXTERN int air_client_options_set_debug_cb(air_client_options *opts, air_debug_cb cb,
                                               void *userdata);
/**
 * A client-wide interrupt, e.g. for shutdown: once raised, every call on the
 * client (on every thread) stops with AIR_EINTERRUPTED as if its own
 * interrupt had been raised, and calls started while it is raised stop before
 * their first request. Answers the client already has cached (the user name,
 * the workspace id) are still returned. air_interrupt_reset() lets the client
 * work again. @p intr is borrowed: it must outlive the client.
 * @return AIR_OK or AIR_EINVAL (NULL @p opts). @since 1.0
 */
AIR_EXTERN int air_client_options_set_interrupt(air_client_options *opts, air_interrupt *intr);

/* ---- the client ------------------------------------------------------------ */

/**
 * Create a client. Nothing is resolved or contacted yet.
 * @param opts may be NULL: defaults, configuration from the environment and
 *        ~/.databrickscfg. The options are copied.
 * @param[out] out receives the client; release with air_client_free().
 * @return AIR_OK, AIR_EINVAL (NULL @p out), AIR_ENOMEM, or AIR_EINTERNAL (libcurl cannot
 *         be initialised). @since 1.0
 */
AIR_EXTERN int air_client_new(const air_client_options *opts, air_client **out, air_error **err);
/** Release @p client; no call may be in progress. NULL is a no-op. @since 1.0 */
AIR_EXTERN void air_client_free(air_client *client);

/**
 * Resolve host and credentials now (profile, environment, host metadata,
 * OAuth discovery, an OAuth token) instead of on the first request,
 * reporting configuration errors early: no host, no credentials, unknown
 * profile, malformed config file (with its line), conflicting auth methods,
 * http:// to a non-loopback host. Makes no request for PAT auth. The outcome
 * of the configuration is cached; an interrupted resolution is not.
 * @return AIR_OK; AIR_EINVAL (NULL @p client); the resolution failures of docs/auth.md
 *         (AIR_EAUTH, AIR_EINVAL, AIR_EIO, AIR_EUNSUPPORTED); transport codes of the host
 *         metadata and OAuth requests. @since 1.0
 */
AIR_EXTERN int air_client_resolve(air_client *client, const air_call_options *opts,
                                  air_error **err);

/** Normalised host URL ("https://x.cloud.databricks.com") after resolution, else NULL. @since 1.0 */
AIR_EXTERN const char *air_client_host(const air_client *client);
/** Auth method in use ("pat", "oauth-m2m", "databricks-cli", "basic") after resolution, else NULL. @since 1.0 */
AIR_EXTERN const char *air_client_auth_type(const air_client *client);
/** Profile the configuration came from after resolution, or NULL. @since 1.0 */
AIR_EXTERN const char *air_client_profile(const air_client *client);

/**
 * The caller's user name (SCIM Me userName), looked up once and cached.
 * @param[out] out free with air_free().
 * @return AIR_OK, AIR_EINVAL (NULL @p client or @p out), transport codes. @since 1.0
 */
AIR_EXTERN int air_client_current_user(air_client *client, const air_call_options *opts,
                                       char **out, air_error **err);
/**
 * The numeric workspace id (X-Databricks-Org-Id of SCIM Me), cached.
 * @return AIR_OK, or AIR_EPROTO when the workspace does not report it. @since 1.0
 */
AIR_EXTERN int air_client_workspace_id(air_client *client, const air_call_options *opts,
                                       int64_t *out, air_error **err);

AIR_END_DECLS

#endif /* AIR_CLIENT_H */

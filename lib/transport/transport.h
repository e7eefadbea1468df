/*
 * transport.h: what the modules above (runs, logs, submit, images) may use
 * of the transport module: requests through a client (resolved on first
 * use), the JSON helpers, the identity look-ups, and the client's settings.
 * It is the only header of lib/transport/ that files outside the folder
 * include. All functions are safe to call from many threads.
 */
#ifndef AIR_TRANSPORT_TRANSPORT_H
#define AIR_TRANSPORT_TRANSPORT_H

#include "transport/http.h"

/* ---- calls (client.c) ---------------------------------------------------------- */

/* Start a public call on @c: its interrupt and deadline (@call may be NULL)
 * plus the client-wide interrupt. */
void air__client_ctx(const air_client *c, const air__call_opts *call, air__ctx *ctx);

/* Resolve configuration and credentials once (locked); later calls return the
 * cached outcome. Every workspace call goes through this first. */
int air__client_ensure_resolved(air_client *c, const air__ctx *ctx, air_error **err);

/* Normalised host "scheme://host[:port]" after resolution, else NULL. */
const char *air__client_host(const air_client *c);
/* Profile the configuration came from after resolution, or NULL. */
const char *air__client_profile(const air_client *c);

/* getenv(@name) unless AIR_OPT_USE_ENVIRONMENT is 0; NULL when unset or empty. */
const char *air__client_env(const air_client *c, const char *name);

/* Explicitly set option values (NULL / the default when unset). */
const char *air__client_opt_str(const air_client *c, int32_t opt);
int64_t air__client_opt_int(const air_client *c, int32_t opt);

/* The pause between reads of a run's state when the caller gives none: the
 * backend's (3000 ms over HTTP, 1000 ms for a local workspace). After
 * resolution; the HTTP backend's before it. */
int64_t air__client_poll_ms(const air_client *c);

/* The request that answers the checks particular to the backend's kind
 * (POST the pre-flight body: air_client_check()), or NULL when the
 * workspace's APIs answer them all. After resolution. */
const char *air__client_checks_path(const air_client *c);
/* Why the workload's environment section (version, dependencies, images)
 * is not used where @c runs workloads (a local workspace), or NULL. Before
 * resolution, from the host the options or DATABRICKS_HOST name. */
const char *air__client_runs_environment(const air_client *c);
/* Whether the workspace queues submitted runs for capacity (a workspace)
 * or starts them at once on this machine (a local one), and how many
 * variants a sweep has going at a time by default: submissions in flight
 * where runs are queued, runs going where they are not (backend.h). After
 * resolution; the HTTP backend's before it. */
bool air__client_schedules_runs(const air_client *c);
int64_t air__client_sweep_parallel(const air_client *c);

/* Default environment channel: AIR_OPT_DEFAULT_RUNTIME, else env
 * DATABRICKS_DL_RUNTIME_IMAGE, else NULL (caller uses the built-in "6"). */
const char *air__client_default_runtime(const air_client *c);

/* Debug callback, printf-style; no-op without one. Secrets are scrubbed. */
void air__client_debug(const air_client *c, int32_t type, const char *fmt, ...) AIR__PRINTF(3, 4);

/* Remember a secret the client came to know (a credential fetched for a
 * registry, say), so that errors and traces never show it. */
int air__client_add_secret(air_client *c, const char *value);

/* ---- requests (api.c) ------------------------------------------------------------ */

/* One request (resolving the client first). @resp may be NULL when the reply
 * is not needed. */
int air__http_do(air_client *c, const air__ctx *ctx, const air__http_req *req,
                 air__http_resp *resp, air_error **err);

/* @n requests concurrently (see air__http_run()). */
int air__http_do_many(air_client *c, const air__ctx *ctx, const air__http_req *reqs, size_t n,
                      air__http_resp *resps, air_error **err);

/*
 * One request started now and finished later on the calling thread, so that
 * the caller works while the server answers (the next page of a log chain):
 * air__http_begin() sends it (a local:// client answers it at once),
 * air__http_pump() moves it on without waiting (from the same thread), and
 * air__http_end() waits for the outcome, like air__http_do(), and releases
 * the handle; air__http_drop() abandons it. @req and @resp (and the sink's
 * data) must outlive the handle. Never fails itself: a request that cannot
 * start reports why from air__http_end().
 */
typedef struct air__http_pending air__http_pending;
air__http_pending *air__http_begin(air_client *c, const air__ctx *ctx, const air__http_req *req,
                                   air__http_resp *resp);
void air__http_pump(air__http_pending *p);
int air__http_end(air__http_pending *p, air_error **err);
void air__http_drop(air__http_pending *p);

/* Requests fed while earlier ones run, on the calling thread
 * (air__http_run_feed(); a local workspace answers them one at a time). */
int air__http_do_feed(air_client *c, const air__ctx *ctx, const air__http_feed *feed,
                      air_error **err);

/* The request of a JSON API call (as air__api_json() makes it): @body_text
 * (borrowed, compact JSON, or NULL) with its Content-Type, and Accept. */
void air__api_json_req(air__http_req *req, const char *method, const char *path,
                       const char *query, const char *body_text);
/* The JSON of a reply to such a request (an empty body gives an empty
 * object); an unparsable one is AIR_EPROTO naming the request. */
int air__api_json_reply(const air__http_resp *resp, const char *method, const char *path,
                        json_t **out, air_error **err);

/*
 * JSON API call: @body (borrowed, may be NULL) is sent compact with
 * Content-Type application/json; the reply is parsed into *out (an empty
 * body gives an empty object). @out and @resp may be NULL.
 */
int air__api_json(air_client *c, const air__ctx *ctx, const char *method, const char *path,
                  const char *query, const json_t *body, json_t **out, air__http_resp *resp,
                  air_error **err);

/* The error of a reply a module turns into an error itself (e.g. one of
 * several parallel requests): every secret @c knows is removed, exactly as
 * in the errors the transport returns. */
air_error *air__http_client_error(air_client *c, const char *method, const char *path,
                                  int32_t status, const char *body, size_t body_len,
                                  const char *request_id, int64_t retry_after_ms);

/* Requests and new connections made through this client so far. */
void air__http_stats(const air_client *c, int64_t *requests, int64_t *connects);

/* ---- a run's changes and node logs without requests (api.c) ------------------------ *
 * What a backend that holds the runs itself (the local workspace) offers
 * beyond requests; with any other backend these fall back to what a module
 * does anyway (a sleep, the log endpoint). */

/* A watch on run @run_id (with @logs, its node output too), or NULL when the
 * client's backend has none: the pauses are sleeps. Open it before reading
 * the run, so that no change between the read and the pause is missed.
 * AIR_OK or AIR_ENOMEM (the client resolved first: its failures). */
typedef struct air__run_watch air__run_watch;
int air__run_watch_open(air_client *c, const air__ctx *ctx, int64_t run_id, bool logs,
                        air__run_watch **out, air_error **err);
/* Pause @ms before reading the run again, as air__ctx_sleep() (@w may be
 * NULL), ended early by a change of the run. */
int air__run_watch_pause(air__run_watch *w, const air__ctx *ctx, int64_t ms, const char *what,
                         air_error **err);
void air__run_watch_free(air__run_watch *w);

/*
 * One page of the log endpoint read straight from the backend, when it can
 * (the local workspace): @q is the page's query; the records in @out are
 * borrowed from *reader (NULL at first; air__log_reader_free()) until the
 * next call. AIR_OK; AIR_EUNSUPPORTED when the log endpoint must be asked
 * instead (another backend, or a query only the endpoint answers the same
 * way); or a failure (AIR_ENOMEM, AIR_EINTERRUPTED, AIR_ETIMEOUT).
 */
typedef struct air__log_reader air__log_reader;
int air__log_read(air_client *c, const air__ctx *ctx, air__log_reader **reader,
                  const air__log_query *q, air__log_span *out, air_error **err);
void air__log_reader_free(air__log_reader *reader);

/* ---- identity (identity.c) --------------------------------------------------------- */

/* SCIM Me userName, cached after the first success. *out: air__free(). */
int air__client_user_name(air_client *c, const air__ctx *ctx, char **out, air_error **err);

/* The user's artifact base: AIR_OPT_USER_WORKSPACE_DIR or env
 * DATABRICKS_INTERNAL_USER_WORKSPACE_DIR when set (no request), else
 * "/Workspace/Users/<userName>". *out: air__free(). */
int air__client_user_base(air_client *c, const air__ctx *ctx, char **out, air_error **err);

/* Workspace id from the X-Databricks-Org-Id header of SCIM Me
 * (excludedAttributes=entitlements), cached. AIR_EPROTO when absent. */
int air__client_workspace_id(air_client *c, const air__ctx *ctx, int64_t *out, air_error **err);

/* Workspace id if already known (configured or probed), else 0. No request. */
int64_t air__client_known_workspace_id(const air_client *c);

#endif /* AIR_TRANSPORT_TRANSPORT_H */

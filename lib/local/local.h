/*
 * local.h: the local workspace (docs/local.md) — what the transport module
 * may use of lib/local/. A local workspace is a state directory on this
 * machine that answers, in-process, the workspace requests libair's modules
 * make (identity, pre-flight, workspace files, Files API, Jobs runs, the log
 * endpoint, the few MLflow calls), and runs submitted workloads as node
 * processes under a detached supervisor (the air-local-supervisor program).
 * Nothing is sent over any network.
 *
 * The transport's local backend (lib/transport/backend_local.c, the only
 * file that includes this header) resolves a host "local://" or
 * "local:///dir" into a state directory (air__local_state_dir) and, for
 * such a client, hands every request to air__local_serve() instead of the
 * HTTP engine. A reply with a status >= 400 is turned into an error by the
 * transport exactly as a server's reply would be.
 *
 * An air__local is immutable once created and may be used by many threads;
 * processes sharing a state directory coordinate through file locks.
 */
#ifndef AIR_LOCAL_LOCAL_H
#define AIR_LOCAL_LOCAL_H

#include "core/core.h"

/* ---- hosts ---------------------------------------------------------------------- */

/* True when @host names a local workspace ("local://...", any case). */
bool air__local_is_host(const char *host);

/*
 * The state directory of a local host: "local://" -> @xdg_state_home/air/local
 * when @xdg_state_home is an absolute path, else @home/.local/state/air/local;
 * "local:///some/dir" -> "/some/dir" ("." and ".." segments resolved, repeated
 * and trailing slashes dropped). AIR_EINVAL for any other form (a relative
 * directory, a query, no home directory) and for the root directory, also
 * when normalising or symbolic links lead to it.
 * *out: air__free().
 */
int air__local_state_dir(const char *host, const char *xdg_state_home, const char *home,
                         char **out, air_error **err);

/* ---- limits ------------------------------------------------------------------------ */

/* The node limit of a local workspace on this machine (docs/local.md): twice
 * the online CPUs, at least AIR__LOCAL_MIN_NODES_LIMIT and at most
 * AIR__LOCAL_MAX_NODES_LIMIT, and fewer when the open-file limit would not
 * give each node its two descriptors. A workload with more nodes is refused
 * before anything starts (pre-flight and runs/submit). */
#define AIR__LOCAL_MIN_NODES_LIMIT 8
#define AIR__LOCAL_MAX_NODES_LIMIT 256
int64_t air__local_max_nodes(void);
/* AIR_OK when @nodes nodes (@count accelerators of @type) fit the node
 * limit; else AIR_EINVAL with the reason in @why, naming the limit and the
 * requested node count. */
int air__local_check_nodes(int64_t nodes, const char *type, int64_t count, air__buf *why);


/* ---- the workspace ---------------------------------------------------------------- */

/* The request that answers the checks a local workspace gives its own
 * meaning (air_client_check()): POST the pre-flight body, the reply is
 * {"checks": [{"name", "status", "field", "message"}], "replaces": [names],
 * "skips": {name: why}}. Never sent to a workspace. */
#define AIR__LOCAL_CHECKS_PATH "/local/checks"

typedef struct air__local air__local;

/* What a local workspace needs of its client. */
typedef struct air__local_env {
	/* The client's environment (secrets named by variable, the secrets file
	 * override); NULL when unset or empty. */
	const char *(*getenv)(void *ud, const char *name);
	void *getenv_ud;
	/* Secret values the workspace resolves are added here, so that the
	 * client's errors and traces never show them. May be NULL. */
	air__secrets *secrets;
} air__local_env;

/* A workspace over @state_dir (created on first write). @env is copied. */
int air__local_new(const char *state_dir, const air__local_env *env, air__local **out,
                   air_error **err);
void air__local_free(air__local *ws);

/* Body sink of a download: called with the reply's bytes; non-zero aborts. */
typedef int (*air__local_sink)(const void *data, size_t len, void *ud);

typedef struct air__local_req {
	const char *method;      /* "GET", "POST", "PUT", "HEAD" */
	const char *path;        /* "/api/2.0/...", percent-encoded */
	const char *query;       /* "k=v&k2=v2" or NULL */
	const void *body;
	size_t body_len;
	air__local_sink sink;    /* NULL: the body is returned in the reply */
	void *sink_ud;
} air__local_req;

typedef struct air__local_reply {
	int32_t status;          /* an HTTP status */
	char *body;              /* NUL-terminated; NULL when it went to the sink */
	size_t body_len;
	char *org_id;            /* X-Databricks-Org-Id of identity replies, or NULL */
} air__local_reply;

#define AIR__LOCAL_REPLY_INIT {0, NULL, 0, NULL}

void air__local_reply_clear(air__local_reply *r);

/*
 * Answer one request. Returns AIR_OK with a reply of any status (errors are
 * replies: {"error_code", "message"}), or AIR_EINTERRUPTED / AIR_ETIMEOUT
 * (@ctx), AIR_EABORTED (the sink stopped), AIR_ENOMEM.
 */
int air__local_serve(air__local *ws, const air__ctx *ctx, const air__local_req *req,
                     air__local_reply *reply, air_error **err);

/* ---- what a reader of a run gets without a request ------------------------------- */

/*
 * A watch on run @run_id (watch.c): air__local_watch_wait() pauses @ms
 * like air__ctx_sleep(), but ends as soon as the run's state changes (and
 * with @logs, shortly after its nodes write output), so that a reader
 * polling the run sees its end at once. Without inotify, or while the run
 * has no folder, the pause is a sleep. AIR_OK or AIR_ENOMEM.
 */
typedef struct air__local_watch air__local_watch;
int air__local_watch_run(air__local *ws, int64_t run_id, bool logs, air__local_watch **out);
/* AIR_OK (a change, or @ms passed), AIR_EINTERRUPTED or AIR_ETIMEOUT (an
 * error naming @what). */
int air__local_watch_wait(air__local_watch *w, const air__ctx *ctx, int64_t ms, const char *what,
                          air_error **err);
void air__local_watch_free(air__local_watch *w);

/*
 * One page of the log endpoint read straight from the node log (logread.c):
 * the same records, in the same order, with the same page tokens, without
 * a page of JSON; @q may also ask for a tail oldest first (its @tail).
 * *reader (NULL at first) keeps the open file and the page's buffer between
 * pages; the records of @out stay valid until the next call with it.
 * AIR_OK; AIR_EUNSUPPORTED when the endpoint must answer this query (a run
 * that does not exist or is damaged, a page token that is no record's
 * start, a descending page: its reply or error is the workspace's);
 * AIR_ENOMEM, AIR_EINTERRUPTED or AIR_ETIMEOUT (@ctx, checked per page).
 */
typedef struct air__local_log air__local_log;
int air__local_log_read(air__local *ws, const air__ctx *ctx, air__local_log **reader,
                        const air__log_query *q, air__log_span *out, air_error **err);
void air__local_log_free(air__local_log *reader);

#endif /* AIR_LOCAL_LOCAL_H */

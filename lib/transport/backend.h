/*
 * backend.h: where a client's requests go.
 *
 * Resolving its configuration, a client picks the backend kind of its host,
 * once: the request engine for a workspace URL (backend_http.c) or the local
 * workspace for local:// (backend_local.c, the only file that knows
 * lib/local/). From then on every request of the client runs through that
 * backend's ops: api.c, identity.c and the modules above make the same
 * requests and get the same replies (air__http_resp) and errors (the classes
 * of air__http_reply_error()), whichever backend answers.
 *
 * A new endpoint: the module calls it through transport.h (air__api_json,
 * air__http_do); the HTTP backend sends any request as it is, and the local
 * workspace answers it with one line of its router (route() in
 * lib/local/serve.c) and a handler (lib/local/endpoints.h). Until it has
 * one, the local workspace answers 404 ENDPOINT_NOT_FOUND.
 *
 * A new backend: a kind in a file of its own, one row of backend.c's table.
 */
#ifndef AIR_TRANSPORT_BACKEND_H
#define AIR_TRANSPORT_BACKEND_H

#include "transport/http.h"

typedef struct air__backend air__backend;

/* What a backend does. An open backend is immutable and used by many
 * threads at once. */
typedef struct air__backend_ops {
	/* @n requests, their replies in @resps (@n entries, as air__http_run()):
	 * AIR_OK when every one succeeded, else the code of the lowest-index
	 * failure with its error in *err; a reply with status >= 400 is a
	 * failure and stays in its @resps entry. */
	int (*run)(air__backend *b, const air__ctx *ctx, const air__http_req *reqs, size_t n,
	           air__http_resp *resps, air_error **err);
	/* Optional: start one request that the caller advances
	 * (air__http_async_pump) and collects (air__http_finish) on its own
	 * thread, so that it overlaps the caller's work. AIR_OK or AIR_ENOMEM.
	 * A backend without it answers through run() when the request begins. */
	int (*start)(air__backend *b, const air__ctx *ctx, const air__http_req *req,
	             air__http_resp *resp, air__http_async **out);
	void (*free)(air__backend *b);
	/* Optional: requests fed while earlier ones run (air__http_run_feed).
	 * A backend without it answers them one at a time through run(). */
	int (*feed)(air__backend *b, const air__ctx *ctx, const air__http_feed *feed,
	            air_error **err);
	/* Optional: one page of a run's node log read without a request
	 * (air__log_read() in transport.h): AIR_OK with @out, AIR_EUNSUPPORTED
	 * when the log endpoint must answer @q, or a failure. *reader is the
	 * backend's state from one page to the next (NULL at first), released
	 * by log_close. */
	int (*log_read)(air__backend *b, const air__ctx *ctx, void **reader,
	                const air__log_query *q, air__log_span *out, air_error **err);
	void (*log_close)(air__backend *b, void *reader);
	/* Optional: a watch on run @run_id's changes (with @logs, its node
	 * output too), so that a pause between two reads of it ends when the run
	 * moves on (air__run_watch_pause() in transport.h). AIR_OK or AIR_ENOMEM. */
	int (*watch)(air__backend *b, int64_t run_id, bool logs, void **out);
	int (*watch_pause)(air__backend *b, void *watch, const air__ctx *ctx, int64_t ms,
	                   const char *what, air_error **err);
	void (*watch_free)(air__backend *b, void *watch);
} air__backend_ops;

struct air__backend {
	const air__backend_ops *ops;
};

/* A kind of backend: the hosts it serves, what resolution does for them, and
 * how one is opened. */
typedef struct air__backend_kind {
	const char *name;
	/* Whether the configured host @host is one of this kind's. */
	bool (*serves)(const char *host);
	/* Resolution, once the host is known: turn c->cfg's host into its final
	 * form, with what it implies (ids in its query, a state directory...). */
	int (*finish_host)(air_client *c, air_error **err);
	/* Whether requests carry the client's credentials. When false none is
	 * read or checked and the client's auth type is the kind's name. */
	bool credentials;
	/* Pause between reads of a run's state that a log stream or a wait makes
	 * unless its options say otherwise. */
	int64_t poll_ms;
	/* The request (POST, with the pre-flight body) that answers the checks
	 * particular to where this kind runs workloads (air_client_check():
	 * secrets with local values, this machine's GPUs and node limit), and
	 * names the checks that mean nothing there; NULL when the workspace's
	 * own APIs answer every check. */
	const char *checks_path;
	/* Whether submitted runs wait for capacity in the workspace's scheduler
	 * (a sweep then bounds only its requests in flight) or start at once on
	 * this machine (a sweep then bounds the runs it has going), and how many
	 * of those a sweep has at a time unless told otherwise. */
	bool schedules_runs;
	/* Where a run gets its environment when not from the workload's
	 * environment section (version, dependencies, images): the reason the
	 * checks of that section give for skipping; NULL when from the section. */
	const char *runs_environment;
	int64_t sweep_parallel;
	/* The backend of @c, whose configuration is resolved. */
	int (*open)(air_client *c, air__backend **out, air_error **err);
} air__backend_kind;

extern const air__backend_kind air__backend_http;  /* backend_http.c */
extern const air__backend_kind air__backend_local; /* backend_local.c */

/* The kind serving the configured host @host (backend.c). */
const air__backend_kind *air__backend_kind_of(const char *host);

/* Run @n requests through @b (see air__backend_ops.run). */
int air__backend_run(air__backend *b, const air__ctx *ctx, const air__http_req *reqs, size_t n,
                     air__http_resp *resps, air_error **err);
/* Start one request through @b when it can overlap the caller's work
 * (air__backend_ops.start): AIR_OK with *out set, AIR_OK with *out NULL
 * when @b cannot (then run it), or AIR_ENOMEM. */
int air__backend_start(air__backend *b, const air__ctx *ctx, const air__http_req *req,
                       air__http_resp *resp, air__http_async **out);
/* Run @feed through @b (see air__http_run_feed()). */
int air__backend_feed(air__backend *b, const air__ctx *ctx, const air__http_feed *feed,
                      air_error **err);
/* NULL is a no-op. */
void air__backend_free(air__backend *b);

#endif /* AIR_TRANSPORT_BACKEND_H */

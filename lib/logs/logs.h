/*
 * logs.h: the internals of the logs module (the iterator and its pieces,
 * the MLflow fallback, downloads), shared by the files of lib/logs/, and
 * what the failure module above it uses (the log options, the node count).
 * Never installed.
 */
#ifndef AIR_LOGS_LOGS_H
#define AIR_LOGS_LOGS_H

#include "runs/runs.h"

#define AIR__LOGS_DEFAULT_TAIL 10000
#define AIR__LOGS_DEDUP_MAX 100000
#define AIR__LOGS_MAX_LINE (4 * 1024 * 1024)

struct air_logs_options {
	air__call_opts call;
	int32_t follow;          /* 0 or 1 */
	int64_t tail;            /* -1 = default */
	int64_t minutes;         /* 0 = off */
	int32_t node;            /* -1 = not set (stream: 0; download: every node) */
	int32_t attempt;         /* -1 = latest */
	int64_t poll_ms;         /* -1 = the client's */
	int32_t max_failures;
	air_log_record_cb on_record;   /* the callback stream only */
	void *record_ud;
	air_log_status_cb on_status;
	void *status_ud;
	air_log_waiting_cb on_waiting; /* NULL: no waiting messages, no extra requests */
	void *waiting_ud;
	air_log_text_cb on_text;       /* the callback stream only (1.2: last, the layout of
	                                  1.1's fields is kept) */
	void *text_ud;
	air_log_attempt_cb on_attempt; /* 1.2 */
	void *attempt_ud;
};

struct air_log_record {
	const char *line;
	size_t len;
	int64_t time_ns;
	int32_t node;
	int32_t source;
	int32_t alert;     /* first matching fatal pattern, 0 when none, -1 until asked */
};

struct air_logs_summary {
	int64_t records;
	char *state;
	bool terminal, succeeded;
	int32_t source;
	char *no_logs;
};

void air__logs_options_defaults(air_logs_options *o);
/* Tail target: the option, or 10000 when unset. */
int64_t air__logs_tail_target(const air_logs_options *o);
/* an attempt beyond the latest is AIR_EINVAL naming 0..latest. */
int air__logs_check_attempt(const air_run *run, int32_t attempt, air_error **err);
/* AIR_OK unless @node (>= 0) is past the nodes @run ran on (AIR_EINVAL,
 * field "node"); a run whose node count is unknown passes. Downloads only:
 * a stream of such a node has no logs (its message says why). */
int air__logs_check_node(const air_run *run, int32_t node, air_error **err);
/* Nodes of @run: accelerators / GPUs per node of its type; AIR_EPROTO when
 * the run reports no compute, an unknown type or a remainder (download.c). */
int air__logs_node_count(const air_run *run, int64_t *out, air_error **err);

/* ---- pages, bounds and de-duplication (page.c), pure ---------------- */

/* A parsed page. Its buffers are kept from one parse to the next, so that a
 * stream allocates nothing per page once they have grown. Zero it first. */
typedef struct air__log_page {
	char *arena;             /* the decoded strings */
	size_t arena_cap;
	air__log_rec *recs;
	size_t n, cap;
	const char *next_token;  /* in the arena; NULL when none or empty */
} air__log_page;

/* Parse a logs endpoint reply into @p (page_json.c): AIR_EPROTO when it is
 * not one well-formed JSON object (then p->n is 0); non-object entries of
 * log_records are skipped. */
int air__log_page_parse(air__log_page *p, const char *data, size_t len, air_error **err);
/* The same for the reply in @body, which the page keeps as its arena (its
 * strings decoded in place, not copied): @body gets the page's former
 * arena as its storage, empty. */
int air__log_page_take(air__log_page *p, air__buf *body, air_error **err);
void air__log_page_dispose(air__log_page *p);

/* Query bounds in whole epoch seconds (0 = omit): from = now - minutes when
 * minutes > 0, else floor(run start); to = ceil(run end) for a terminal run. */
void air__logs_bounds(int64_t run_start_ms, int64_t run_end_ms, bool terminal, int64_t minutes,
                      int64_t now_ms, int64_t *from, int64_t *to);
/* Query of the logs endpoint for @q in the documented key order; 0/negative
 * values omitted (@q's tail is not the endpoint's: never sent). */
void air__logs_query(air__buf *b, const air__log_query *q);

/*
 * The de-dup set of (T, body) pairs, evicting the oldest beyond @max.
 * Records with T below the last emitted T are skipped before the set is
 * consulted, so only pairs carrying the last emitted T can ever match: the
 * set keeps just those (bodies as 64-bit hashes), which behaves like the
 * full set while staying a few entries in practice.
 */
typedef struct air__dedup {
	int64_t t;           /* timestamp shared by every entry */
	uint64_t *fifo;      /* hashes, oldest at head */
	size_t head, len, fifo_cap;
	uint64_t *slots;     /* open addressing, 0 = empty */
	size_t slot_cap;
	size_t max;
	/* The first record at t, not hashed yet: most timestamps have one
	 * record, which then never needs its hash. */
	const char *pending;
	size_t pending_len;
} air__dedup;

void air__dedup_init(air__dedup *d, size_t max);
void air__dedup_dispose(air__dedup *d);
/* Caller guarantees t >= the last t seen. Returns 1 when (t, body) is
 * already in the set, 0 after adding it, AIR_ENOMEM. @body must stay valid
 * until the next check or air__dedup_settle(). */
int air__dedup_check(air__dedup *d, int64_t t, const char *body, size_t len);
/* Take in the record of the last check for good, before its body goes
 * away (the end of its page): 0 or AIR_ENOMEM. */
int air__dedup_settle(air__dedup *d);

/* ---- an iteration in progress (iter.c, mlflow.c, waiting.c) ------------------ */

/* One queued record: its text in the parsed page (@line, zero-copy), or
 * at @off in the batch buffer (@line NULL). */
typedef struct air__queued {
	const char *line;
	size_t off, len;
	int64_t time_ns;
} air__queued;

/* The state every step of an iteration shares. Steps queue the records they
 * find (copied into @batch); air_log_iter_next() hands them out in order and
 * runs the next step only once the queue is empty, so memory stays bounded
 * by one step (one page, or one tail). */
typedef struct air__stream {
	air_client *c;
	air__ctx ctx;            /* interrupts and the absolute deadline of the opening call */
	int64_t run_id;
	air_logs_options o;
	int32_t node;            /* effective node */
	air_run *run;            /* latest runs/get */
	char *reported_state;    /* last state given to on_status */
	int32_t seen_attempt;    /* the run's latest attempt when last read; -1 before */
	int64_t delivered;       /* records queued so far */
	int32_t source;
	int32_t failures;        /* consecutive page failures */
	char *no_logs;
	bool waiting_shown;      /* a waiting message is up (not yet ended with NULL) */
	air__buf body;           /* the page being read, reused */
	air__log_page page;      /* the page parsed, reused; queued records point into it */
	/* The node log read straight from the backend when it can (the local
	 * workspace: air__log_read()), else NULL; its page is the current one
	 * when @direct. */
	air__log_reader *reader;
	bool direct;
	air__log_span span;      /* the current page's records, from @page or @reader */
	/* The next page of a chain, requested while the current one is handed
	 * out (into @body, which the parsed page no longer needs). */
	air__http_pending *pending;
	air__http_req pending_req;
	air__http_resp pending_resp;
	air__buf pending_query;
	air__buf batch;          /* texts of the queued records */
	air__queued *q;          /* the queue: q[qpos..qn) not handed out yet */
	size_t qn, qpos, qcap;
	/* Text for the text callback (air__log_iter_next_text()): a tail's
	 * pages are asked of the backend as text when @text_wanted; such a page
	 * (@text_n records, borrowed from the reader) is handed out whole. */
	bool text_wanted;
	const char *text;
	size_t text_len, text_n;
	air__buf text_buf;       /* queued records joined into text */
} air__stream;

/* Queue one record (its text is copied). */
int air__stream_emit(air__stream *s, const char *line, size_t len, int64_t time_ns,
                     air_error **err);
/* Queue one record of s->page without copying it (@line is NUL-terminated
 * and stays until the page is parsed again, after the queue is empty). */
int air__stream_emit_page(air__stream *s, const char *line, size_t len, int64_t time_ns,
                          air_error **err);
/* Queue @n records of the current page (s->span) without copying them. */
int air__stream_emit_span(air__stream *s, const air__log_rec *recs, size_t n, air_error **err);
/* Set s->no_logs from the run's state. */
int air__stream_set_no_logs(air__stream *s, air_error **err);
/* "No logs" text: terminal runs name the final state (+ ": <message>"). */
char *air__no_logs_message(const air_run *run);

/* ---- the waiting message (waiting.c) ------------------------- */

/* Poll period of the waiting message: polls 0, 5, 10, ... of the follow loop. */
#define AIR__LOGS_WAITING_EVERY 5

/* "<payload>..." of a status message "STATUS:<payload>" (type trimmed and
 * case-insensitive; payload trimmed, trailing dots dropped); NULL for any
 * other type, a blank payload, no colon or NULL. air__free(). */
char *air__logs_status_text(const char *status_message);
/* The message to show: the status text, else the accelerator-capacity text
 * while PENDING, else "waiting for the run to start on node N". NULL only
 * when out of memory. air__free(). */
char *air__logs_waiting_text(const air_run *run, const char *status_message, int32_t node);
/* With a waiting callback: runs/get-output of the latest task, then the
 * callback with the message. Failures to read are ignored; AIR_EABORTED when
 * the callback asks to stop. */
int air__stream_show_waiting(air__stream *s, air_error **err);
/* After a message was shown: the callback with NULL (the wait is over). */
int air__stream_end_waiting(air__stream *s, air_error **err);

/* The text callback's iteration (stream.c): ask a tail's pages of the
 * backend as text (before the first next_text). */
void air__log_iter_want_text(air_log_iter *it);
/* Like air_log_iter_next(), but every record ready at once, as text (each
 * line followed by "\n"; borrowed until the next call). */
int air__log_iter_next_text(air_log_iter *it, const char **text, size_t *len, air_error **err);

/* ---- MLflow log artifacts (mlflow.c) --------------------------------------- */

typedef struct air__chunk {
	int64_t index;
	char *path;
} air__chunk;

/* Layout probe: true for logs/attempt_<a>/node_<n>. Never fails. */
bool air__mlflow_attempt_layout(air_client *c, const air__ctx *ctx, const char *mlflow_run,
                                int32_t attempt);
/* "logs/attempt_<a>/node_<n>" or "logs/node_<n>"; air__free(). */
char *air__mlflow_log_dir(bool attempt_layout, int32_t attempt, int32_t node);
/* Chunks of @dir sorted by index (default logs-0 when none are listed). */
int air__mlflow_list_chunks(air_client *c, const air__ctx *ctx, const char *mlflow_run,
                            const char *dir, air__chunk **out, size_t *n, air_error **err);
void air__mlflow_chunks_free(air__chunk *chunks, size_t n);
/* Chunk index of a basename "logs-<n>.chunk.txt", else -1. */
int64_t air__mlflow_chunk_index(const char *path);

/* Reply caps (docs/errors.md): a page of the log endpoint (at most 10 000
 * records), an MLflow chunk read into memory (the fallback's tail), and one
 * streamed to a file (downloads). */
#define AIR__LOGS_PAGE_MAX ((size_t)64 << 20)
#define AIR__LOGS_CHUNK_MAX ((size_t)256 << 20)
#define AIR__LOGS_DOWNLOAD_CHUNK_MAX ((size_t)1 << 31)

/* A pre-signed download: URL and the headers the workspace asked for. */
typedef struct air__signed {
	char *url;
	char **headers;          /* "Name: value", NULL-terminated */
	bool absolute;
} air__signed;

/* credentials-for-read of one artifact. */
int air__mlflow_sign(air_client *c, const air__ctx *ctx, const char *mlflow_run,
                     const char *path, air__signed *out, air_error **err);
/* Request for a signed download: no Databricks auth, the returned headers. */
void air__signed_request(const air__signed *sg, air__http_req *req);
void air__signed_dispose(air__signed *sg);
/* Sign and download one artifact into memory (resp->body). */
int air__mlflow_download(air_client *c, const air__ctx *ctx, const char *mlflow_run,
                         const char *path, air__http_resp *resp, air_error **err);

/* The MLflow fallback of an iteration: fresh runs/get, ids, chunks from the
 * highest down, the last tail-target lines queued. */
int air__mlflow_fallback(air__stream *s, air_error **err);

#endif /* AIR_LOGS_LOGS_H */

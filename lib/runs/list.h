/*
 * list.h: listing internals shared by filter.c, list.c and list_index.c, and
 * by cancel.c. Never installed.
 */
#ifndef AIR_RUNS_LIST_H
#define AIR_RUNS_LIST_H

#include "runs/runs.h"

struct air_list_options {
	air__call_opts call;
	int64_t limit;           /* > 0 */
	int64_t max_inspected;   /* > 0 */
	bool all_status, all_users;
	bool workspace_probe;    /* AIR_LIST_WORKSPACE_ID */
	bool mlflow;             /* AIR_LIST_MLFLOW */
	bool cache;              /* AIR_LIST_CACHE */
	char *user;              /* filters; NULL when not given */
	char *experiment;
	char *accel_type;
	int64_t num_accel;       /* 0 when not given */
	char *sweep_tag;         /* sweep=BASE: the folder of its launch directories */
	air_list_skip_cb on_skip;  /* damaged runs left out, or NULL */
	void *skip_ud;
};

/* Case-insensitive glob of docs/runs-and-logs.md#listing-runs, fnmatch(3)
 * with FNM_PATHNAME | FNM_CASEFOLD: '*' any run of non-'/' characters, '?'
 * one non-'/' character, '[...]' a class ('!' or '^' negates, ranges, '\'
 * escapes), '/' only matches itself. A malformed pattern (unclosed or empty
 * class, trailing '\', '/' inside a class) matches nothing. */
bool air__glob_match(const char *pattern, const char *text);

/* Whether the experiment/accelerator filters are set (they need whole runs). */
bool air__list_has_task_filter(const air_list_options *o);
/* The task filters against a derived run. */
bool air__list_task_filters_match(const air_list_options *o, const air_run *run);
/* Copy @src into @dst (strings duplicated); false on OOM. */
bool air__list_options_copy(air_list_options *dst, const air_list_options *src);
void air__list_options_dispose(air_list_options *o);
void air__list_options_defaults(air_list_options *o);

/* A run the listing could not read (@e, taken): a damaged one (DATA_LOSS)
 * is left out and reported to the skip callback (AIR_OK, or AIR_EABORTED
 * when the callback stops the listing); any other error is the listing's. */
int air__list_skip_damaged(air_run_iter *it, int64_t run_id, air_error *e, air_error **err);

/* Start time of a list row: tasks[0].start_time when > 0, else start_time. */
int64_t air__list_row_start_ms(const air_run *run);

typedef struct air__list_cache air__list_cache; /* list_cache.c */

typedef struct air__index_entry {
	int64_t run_id;
	int64_t submit_ns;   /* 0 when unparseable */
	size_t order;        /* arrival order, the tie-breaker */
} air__index_entry;

/* Submit time of an index entry: RFC 3339 string or {"seconds","nanos"}, in
 * ns since the epoch; 0 when unparseable. */
int64_t air__parse_submit_time(const json_t *v);
/* Sort entries by submit time, newest first; ties keep their order. */
void air__index_sort(air__index_entry *e, size_t n);
/* Sort runs by list-row start, newest first, runs without a start last; stable. */
void air__list_sort_rows(air_run **rows, size_t n);

/* ---- the iterator (list.c, list_index.c) ---- */

struct air_run_iter {
	air_client *client;
	air_list_options opts;
	air__ctx ctx;                /* from the opening call: interrupt, absolute deadline */
	char *scope_user;            /* creator to keep; NULL = every user */
	int64_t ws_id;
	bool with_ws;                /* "?o=<ws_id>" even when 0 (probe failed) */
	bool use_index;              /* index strategy (until it fails) */
	air_run **ready;             /* rows queued, handed out from pos */
	size_t n_ready, pos, cap;
	air_run *current;            /* last row handed out */
	int64_t queued;              /* rows queued in total (against the limit) */
	bool done, truncated;
	/* scan strategy */
	json_t *page;
	size_t page_pos;
	char *token;
	json_t *seen_tokens;
	int64_t inspected;
	air__list_cache *cache;      /* the list cache of the host, or NULL (off) */
	/* index strategy */
	air__index_entry *ids;
	size_t n_ids, id_pos;
	bool index_loaded;
};

/* Queue a row (takes it, also on failure). */
int air__iter_push(air_run_iter *it, air_run *run, air_error **err);
/* A list row from a runs/get object (takes @obj): derived run + dashboard URL. */
int air__iter_make_row(air_run_iter *it, json_t *obj, air_run **out, air_error **err);
/* Index strategy: queue the next batch; falls back to the scan strategy
 * (use_index = false) when the index cannot be read. */
int air__index_fill(air_run_iter *it, air_error **err);

/* ---- the list cache (list_cache.c): finished runs kept on disk ---- */

/* The host's cache folder, opened (created 0700), or NULL when the cache is
 * off (DATABRICKS_CACHE_ENABLED=false, a local:// host) or unusable. */
air__list_cache *air__list_cache_open(air_client *c);
void air__list_cache_close(air__list_cache *cache);
/* The entry of @run_id ({"run": runs/get object, "mlflow": {...}?}), or NULL
 * (a miss; a damaged or expired entry is removed). @cache may be NULL. */
json_t *air__list_cache_get(const air__list_cache *cache, int64_t run_id);
/* Keep a run whose life cycle has ended (with its MLflow ids and name when
 * @with_mlflow); failures are silent. @cache may be NULL. */
void air__list_cache_put(const air__list_cache *cache, const air_run *run, bool with_mlflow);
/* Apply the MLflow part of @entry to @run; false when it has none. */
bool air__list_cache_apply_mlflow(const json_t *entry, air_run *run, const char *host);

#endif /* AIR_RUNS_LIST_H */

/*
 * runs.h: what the runs module offers the modules above it (logs, submit):
 * the air_run object, runs/get and its derivations. It is the only header of
 * lib/runs/ that files outside the folder include. Never installed.
 */
#ifndef AIR_RUNS_RUNS_H
#define AIR_RUNS_RUNS_H

#include "transport/transport.h"

/* One sweep (for-each) iteration; strings are borrowed from run->iter_json. */
typedef struct air__iteration {
	const char *task_key;
	int64_t run_id;
	const char *state;
	const char *experiment;
} air__iteration;

/* Strings marked (b) are borrowed from the JSON the run owns; the others are
 * owned. Everything is derived once by air__run_from_json(). */
struct air_run {
	json_t *json;                        /* merged runs/get object */
	int64_t id;
	const char *name, *creator;          /* (b) */
	const char *life_cycle, *result;     /* (b) NULL when absent or empty */
	const char *state_message;           /* (b) */
	const char *state;                   /* (b) or static: display state */
	bool terminal, succeeded, ai_runtime, sweep;
	int64_t run_start_ms, run_end_ms;    /* the run's own start_time / end_time */
	int64_t start_ms, end_ms;            /* reported: last task's when set, else the run's */
	int64_t task_run_id;                 /* last task's run_id */
	int64_t first_task_run_id;           /* tasks[0].run_id (list rows resolve MLflow with it) */
	int32_t attempt, latest_attempt, max_retries;
	const char *experiment;              /* (b) "/Users/<user>/" stripped */
	const char *accel_type;              /* (b) */
	int64_t accel_count;
	char *accel_label;                   /* "8x H100" or NULL */
	const char *command_path;            /* (b) */
	const char *code_source_path;        /* (b) */
	const char *env_version;             /* (b) */
	int64_t sweep_stats[5];              /* AIR_SWEEP_* */
	char *dashboard_url;
	char *mlflow_run_id, *mlflow_exp_id, *mlflow_run_name, *status_message;
	char *mlflow_run_url, *mlflow_exp_url;
	json_t *iter_json;                   /* runs/get of the for-each task */
	air__iteration *iters;
	size_t n_iters;
	char *config_yaml;                   /* AIR_GET_CONFIG */
	size_t config_len;
	/* listings: where the row came from (list_cache.c) */
	bool from_get;                       /* json is a runs/get object */
	bool cache_hit, cache_mlflow;        /* json / MLflow part read from the list cache */
};

struct air_get_options {
	air__call_opts call;
	bool mlflow, sweep, workspace_id, mlflow_name, config; /* AIR_GET_* */
};

struct air_wait_options {
	air__call_opts call;
	int64_t poll_ms;        /* -1 = the client's */
	air_wait_state_cb on_state;
	void *state_ud;
};

/* ---- derivation (parse.c), pure ---------------------------------------- */

/* Build a run from a merged runs/get object; takes the reference to @obj
 * (also on failure). AIR_EPROTO when it is not an object with a run_id. */
int air__run_from_json(json_t *obj, air_run **out, air_error **err);
/* air_state of a display state name; AIR_STATE_OTHER for names not known,
 * AIR_STATE_UNKNOWN for NULL (state.c). */
int32_t air__state_from_name(const char *name);
/* Display state of a Jobs "state" object; never NULL. */
const char *air__display_state(const json_t *state);
/* Terminal rule of docs/runs-and-logs.md#reading-a-run (NULL/empty states allowed). */
bool air__state_is_terminal(const char *life_cycle, const char *result);
/* Whether life-cycle state @life_cycle is a final one (TERMINATED, SKIPPED,
 * INTERNAL_ERROR): the run cannot change any more. */
bool air__life_cycle_is_final(const char *life_cycle);
/* the task that describes the workload (tasks[0], or its for-each inner task). */
const json_t *air__run_workload_task(const json_t *run);
/* ai_runtime_task, or legacy gen_ai_compute_task with a training script. */
bool air__run_json_is_ai_runtime(const json_t *run);
/* Experiment name without a leading "/Users/<user>/" (a suffix of @name). */
const char *air__strip_user_prefix(const char *name);
/* Attach the runs/get object of the for-each task (iterations); takes @obj. */
void air__run_set_iterations(air_run *run, json_t *obj);
/* Record a runs/get-output reply (MLflow ids, status message); NULL = unresolved. */
int air__run_set_output(air_run *run, const json_t *output, const char *host);
/* "<host>/jobs/runs/<id>[?o=<ws>]"; @with_ws adds the query even for 0. */
int air__run_set_dashboard(air_run *run, const char *host, int64_t ws_id, bool with_ws);

/* ---- sweeps (filter.c) ---------------------------------------------------- */

/* Whether @run was submitted by the sweep whose folder is @tag. */
bool air__run_in_sweep(const air_run *run, const char *tag);
/* Each of the caller's AI Runtime runs by the scan strategy (at most 2000;
 * active ones unless @all_status; of the sweep whose folder is @sweep_tag
 * when given) handed to @each, borrowed; a code other than AIR_OK from
 * @each ends the listing with it (AIR_ENOMEM as out of memory). */
int air__list_each(air_client *client, const air__call_opts *call, const char *sweep_tag,
                   bool all_status, int (*each)(const air_run *run, void *ud), void *ud,
                   air_error **err);
/* Request the cancellation of the caller's active runs (those of the sweep
 * whose folder is @sweep_tag, when given): air_client_cancel_all(). */
int air__cancel_active(air_client *client, const air__call_opts *call, const char *sweep_tag,
                       air_cancel_report **out, air_error **err);

/* ---- Jobs calls (fetch.c) ------------------------------------------------ */

/* GET runs/get for @run_id, following next_page_token (tasks or iterations
 * appended). The "Run ... does not exist" replies come back as AIR_ENOTFOUND. */
int air__run_fetch_json(air_client *c, const air__ctx *ctx, int64_t run_id, json_t **out,
                        air_error **err);
/* Merge one more runs/get page into @merged (tasks or iterations). */
void air__run_merge_page(json_t *merged, const json_t *page);
/* air__run_fetch_json + air__run_from_json + dashboard URL (known workspace id). */
int air__run_fetch(air_client *c, const air__ctx *ctx, int64_t run_id, air_run **out,
                   air_error **err);
/* runs/get-output of a task run; best-effort: NULL on any error or id 0. */
json_t *air__run_fetch_output(air_client *c, const air__ctx *ctx, int64_t task_run_id);
/* mlflow/runs/get → run.info.run_name; best-effort. */
void air__run_fetch_mlflow_name(air_client *c, const air__ctx *ctx, air_run *run);
/* Query "run_id=<id>". */
void air__query_run_id(air__buf *q, int64_t run_id);

#endif /* AIR_RUNS_RUNS_H */

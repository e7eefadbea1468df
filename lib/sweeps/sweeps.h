/*
 * sweeps.h: sweeps and reruns (include/air/sweep.h, docs/submit.md#sweeps):
 * the points of a sweep (points.c, points_file.c), their canonical form,
 * keys and run names (canon.c), each variant's config (variant.c), the
 * public objects (sweep.c), the submission pipeline (pipeline.c, submit.c)
 * and reruns (rerun.c; what they keep of the past run, rerun_keep.c). It
 * is the only header of lib/sweeps/ that files outside the folder would
 * include; none does.
 */
#ifndef AIR_SWEEPS_SWEEPS_H
#define AIR_SWEEPS_SWEEPS_H

#include "submit/submit.h"
#include "runs/runs.h"
#include "transport/transport.h"
#include "core/core.h"

/* Longest base key taken (bytes); keys keep at most its first
 * AIR__SWEEP_KEY_BASE bytes, and a digest of all of it. */
#define AIR__SWEEP_BASE_MAX 256
#define AIR__SWEEP_KEY_BASE (AIR__IDEMPOTENCY_MAX - 17)
/* Longest run name a sweep sends (bytes). The Jobs API documents no limit
 * for run_name (unconfirmed); this keeps names readable in every listing. */
#define AIR__SWEEP_RUN_NAME_MAX 256

/* One override of a point: a field path and its YAML value text. */
typedef struct air__assign {
	const char *path;
	const char *value;
} air__assign;

/* ---- points.c ---- */
typedef struct air__axis {
	char *path;
	char **values;
	size_t n;
} air__axis;

typedef struct air__xpoint {
	air__assign *a;   /* path and value strings owned */
	size_t n;
} air__xpoint;

struct air_sweep_points {
	air__axis *axes;
	size_t n_axes;
	uint64_t grid_size;     /* product of the axes' sizes (saturated) */
	air__xpoint *points;
	size_t n_points, cap_points;
	bool sampled;
	uint64_t sample_n, seed;
	uint64_t *picked;       /* the sample: indexes into the full set, ascending */
	size_t n_picked;
	air__assign *scratch;   /* a grid point of the getters, one per axis */
	size_t scratch_index;   /* the point scratch holds, or SIZE_MAX */
};

/* Number of points before sampling (saturated at UINT64_MAX). */
uint64_t air__points_full_count(const air_sweep_points *p);
/* Point @i (after sampling) into @out (air__points_size() entries, strings
 * borrowed from @p); its number of overrides. */
size_t air__points_get(const air_sweep_points *p, size_t i, air__assign *out);
/* The most overrides any point has. */
size_t air__points_width(const air_sweep_points *p);
/* Add an explicit point whose strings are handed over (freed on failure). */
int air__points_add_owned(air_sweep_points *p, air__assign *a, size_t n, air_error **err);

/* ---- canon.c: canonical values, keys, names ---- */
/* @yaml (an override value) in canonical JSON: integers in decimal, floats
 * in their shortest round-trip form with a fraction or an exponent, strings
 * as given, mappings with sorted keys. AIR_ECONFIG when it is no YAML. */
int air__canon_value(const char *yaml, air__buf *out, air_error **err);
/* @d in its shortest round-trip form, with a fraction or an exponent
 * ("0.15", "1e-10", "2.0"), in the C locale whatever the program's. */
void air__sweep_put_double(air__buf *b, double d);
/* The point as a canonical JSON object (paths sorted); *out air__free(). */
int air__canon_point(const air__assign *a, size_t n, char **out, air_error **err);
/* The idempotency key of a point: <base, cut to AIR__SWEEP_KEY_BASE bytes>-<16 hex
 * of SHA-256("air-sweep-v1\n" base "\n" canonical point)>. */
char *air__sweep_key(const char *base, const char *canonical_point);
/* "<experiment> <name>=<value> ...": each override named by its last path
 * segment (the whole path when two would share one), values as in the
 * canonical form (strings bare), at most AIR__SWEEP_RUN_NAME_MAX bytes. */
char *air__sweep_run_name(const char *experiment, const air__assign *a, size_t n);
/* The base key derived when none is given:
 * "<user name before '@'>-<experiment>-<YYYYMMDD UTC of @now_ms>-<8 hex of SHA-256 of @cfg's JSON>". */
int air__sweep_derived_base(const air_config *cfg, const char *user, int64_t now_ms, char **out,
                            air_error **err);
/* The longest point text a message carries, in bytes. */
#define AIR__SWEEP_POINT_TEXT_MAX 200
/* "PATH=VALUE PATH=VALUE" of a point, for messages: beyond
 * AIR__SWEEP_POINT_TEXT_MAX bytes, cut at a UTF-8 boundary and followed by
 * "… (N bytes)" (freed with air__free()). */
char *air__point_text(const air__assign *a, size_t n);

/* ---- sweep.c: the public objects ---- */
struct air_sweep_options {
	air__call_opts call;
	char *base_key;
	char *base_dir;
	int64_t max_parallel;   /* 0: the backend's */
	bool skip_preflight;
	bool resume;            /* AIR_SWEEP_RESUME */
	air_sweep_progress_cb progress;
	void *progress_ud;
};

typedef struct air__variant {
	int32_t status;          /* AIR_VARIANT_* */
	char *point;             /* canonical JSON */
	char *run_name;
	char *key;
	int64_t run_id;
	char *dashboard_url;
	char *launch_dir;
	air_error *err;
} air__variant;

struct air_sweep {
	air__variant *v;
	size_t n;
	size_t failed;
	char *base_key;
	bool stopped;     /* its stop mark was found (air_client_stop_sweep()) */
	bool resumed;     /* this submission undid an earlier stop (AIR_SWEEP_RESUME) */
};

/* A sweep of @n variants in status AIR_VARIANT_VALID. */
int air__sweep_new(size_t n, air_sweep **out, air_error **err);
/* Variant @i failed with @e (taken). */
void air__sweep_fail(air_sweep *s, size_t i, air_error *e);
/* The keys of every variant from @base (taken into s->base_key). */
int air__sweep_set_keys(air_sweep *s, char *base, air_error **err);

/* ---- variant.c: each variant's config ---- */
/* @base with point @i of @points applied, validated, and checked to share
 * what the variants of a sweep share; errors name the variant. */
int air__variant_config(const air_config *base, const air_sweep_points *points, size_t i,
                        air_config **out, air_error **err);
/* "PATH=VALUE ..." of variant @i of @points as written, as messages name it
 * (air__point_text()); NULL when out of memory. */
char *air__variant_text(const air_sweep_points *points, size_t i);
/* Validate every variant of @base into @s (points, run names); two
 * variants of one canonical point are AIR_EINVAL, naming both. */
int air__variants_check(const air_config *base, const air_sweep_points *points, air__ctx *ctx,
                        air_sweep *s, air_error **err);
/* Validate the sweep (@snapshot: with the shared snapshot's offline checks,
 * which a submission makes with its own) into a new *out, with its keys when
 * the base key is known offline. */
int air__sweep_check(const air_config *cfg, const air_sweep_points *points,
                     const air_sweep_options *opts, bool snapshot, air__ctx *ctx,
                     air_sweep **out, air_error **err);
/* The base key known without the workspace: the option, else the YAML
 * idempotency_token; NULL when it needs the user's name. */
const char *air__sweep_offline_base(const air_config *cfg, const air_sweep_options *opts);
/* The submit options of a sweep's shared steps (@o's base dir, pre-flight
 * switch, interrupt and deadline). */
int air__sweep_submit_options(const air_sweep_options *o, air_submit_options **out,
                              air_error **err);

/* ---- pipeline.c: every variant's launch directory and runs/submit ---- */
typedef struct air__pipeline_env {
	air_client *c;
	air__ctx *ctx;
	const air_config *base;
	const air_sweep_points *points;
	const air_sweep_options *opts;
	air_sweep *sweep;
	const char *sweep_dir;         /* variants go to <sweep_dir>/v<index> */
	const char *policy_id;         /* or NULL */
	const char *code_source_path;  /* or NULL */
	int64_t max_parallel;
	const char *mark_path;         /* the sweep's stop mark, looked at; or NULL */
} air__pipeline_env;

/* Submit the variants whose status is AIR_VARIANT_VALID, from @first on,
 * at most @count of them (SIZE_MAX: all); run ids go into e->sweep. AIR_OK,
 * or the code that stopped the whole sweep (interrupt, deadline, callback).
 * A stop mark found sets e->sweep->stopped: the variants not sent fail with
 * AIR_EABORTED, and the call returns AIR_OK. */
int air__pipeline_run(const air__pipeline_env *e, size_t first, size_t count, air_error **err);
/* The sweep's callback for variant @i; AIR_EABORTED when it asks to stop. */
int air__sweep_notify(const air__pipeline_env *e, size_t i);

/* ---- stop_sweep.c: the stop mark ---- */
/* Write the stop mark at @path: "<word> <UTC time of @when_ms, to the
 * millisecond>" ("stopped", or "resumed" for a stop undone: a mark says
 * stopped only by its first word, core/sweep_mark.c). */
int air__sweep_mark_write(air_client *c, const air__ctx *ctx, const char *path, const char *word,
                          int64_t when_ms, air_error **err);

/* ---- rerun_keep.c: what a rerun keeps of the past run ---- */
/* Read launch file @name ("command.sh", ...) of the past run into @resp;
 * AIR_ENOTFOUND when it is gone. */
typedef int (*air__launch_fetch)(void *ud, const char *name, air__http_resp *resp,
                                 air_error **err);
/* Put into @cfg (the past run's training_config.yaml) what the run had
 * otherwise: the settings runs/get shows for @run (compute, its pool,
 * priority and image, max_retries, timeout) and what its launch files hold
 * (command, parameters, env_variables, secrets, read by @fetch), where they
 * differ from @cfg's. A setting that @cfg refuses with the rerun's
 * overrides @over is left out. The config paths set go to @kept ("a, b"),
 * those left out to @left ("c (why)"). A launch file that is gone changes
 * nothing; one that cannot be read otherwise, an interrupt, the deadline
 * or no memory fails it. */
int air__rerun_keep(const air_run *run, air_config *cfg, const air__assign *over, size_t n_over,
                    air__launch_fetch fetch, void *ud, air__buf *kept, air__buf *left,
                    air_error **err);

#endif /* AIR_SWEEPS_SWEEPS_H */

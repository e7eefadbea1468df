/*
 * endpoints.h: the request handlers of the in-process local workspace and
 * the reply helpers they share (serve.c routes requests to them).
 *
 *   serve.c     routing, identity, replies, query and path decoding
 *   files.c     workspace files and the Files API over <state>/workspace
 *   submit.c    pre-flight and runs/submit (a new run and its supervisor)
 *   secrets.c   secret values from the environment or the secrets file
 *   spawn.c     starting the detached supervisor program
 *   jobs.c      runs/get, get-output, list, cancel, the workflows index
 *   logs.c      the log endpoint and the MLflow calls libair makes
 *   metrics.c   MLflow metrics from the file store (mlruns.c)
 *   misc.c      usage policies, pools, compute options, legacy images
 *   checks.c    the pre-submit checks with a local meaning (air_client_check)
 */
#ifndef AIR_LOCAL_ENDPOINTS_H
#define AIR_LOCAL_ENDPOINTS_H

#include <sched.h>

#include "local/local_priv.h"

/* One request being answered. */
typedef struct air__lcall {
	air__local *ws;
	const air__ctx *ctx;
	const air__local_req *req;
	air__local_reply *reply;
	air_error **err;
} air__lcall;

/* ---- replies (serve.c); each returns AIR_OK or AIR_ENOMEM ---- */
/* @v (stolen) as the JSON body with @status. */
int air__lreply_json(air__lcall *c, int32_t status, json_t *v);
/* {"error_code": @code, "message": ...} with @status. */
int air__lreply_error(air__lcall *c, int32_t status, const char *code, const char *fmt, ...)
	AIR__PRINTF(4, 5);
/* A raw body (copied), or through the request's sink. AIR_EABORTED when the
 * sink stopped. */
int air__lreply_bytes(air__lcall *c, int32_t status, const void *data, size_t len);
/* The usual failure replies. */
int air__lreply_bad_request(air__lcall *c, const char *fmt, ...) AIR__PRINTF(2, 3);
int air__lreply_not_found(air__lcall *c, const char *fmt, ...) AIR__PRINTF(2, 3);
/* 500 INTERNAL_ERROR naming @what and strerror(errno). */
int air__lreply_io_error(air__lcall *c, const char *what);
/* {} with 200. */
int air__lreply_empty(air__lcall *c);
/* 500 DATA_LOSS: run @id is damaged, @damage says how (air__lrun_load()).
 * A listing skips such a run and reports it (air_list_options_set_skip_cb). */
int air__lreply_damaged(air__lcall *c, int64_t id, const char *damage);

/* ---- decoding (serve.c) ---- */
/* The decoded value of @key in the request's query, or NULL (air__free()). */
char *air__lquery(const air__lcall *c, const char *key);
/* Integer value of @key: true with *out, false when absent; *bad set when
 * present but not an integer. */
bool air__lquery_int(const air__lcall *c, const char *key, int64_t *out, bool *bad);
/* Percent-decode @s (n bytes; '+' is a space in queries); NULL on OOM or an
 * encoded NUL. */
char *air__lurl_decode(const char *s, size_t n, bool plus_is_space);
/* The file of workspace path @abs under <state>/workspace, or NULL when @abs
 * is not a clean absolute path (no "." or ".." segment, no NUL). */
char *air__lws_file(const air__local *ws, const char *abs);
/* Open @file (from air__lws_file()) without following a symbolic link
 * anywhere under the state directory (air__lopen_beneath()): the
 * descriptor, or -1 when it is missing, reached through a link, or not a
 * regular file (or, with @dir_ok, a folder). */
int air__lws_open(const air__local *ws, const char *file, bool dir_ok, struct stat *st);
/* The request body as a JSON object; replies 400 and returns NULL when it is
 * not one (*rc gets the reply's outcome). */
json_t *air__lbody_json(air__lcall *c, int *rc);

/* ---- handlers: each answers the request in c->reply ---- */
int air__lfiles_get_status(air__lcall *c);
int air__lfiles_mkdirs(air__lcall *c);
int air__lfiles_import(air__lcall *c, const char *encoded_path);
int air__lfiles_export(air__lcall *c);
/* @kind "files" or "directories"; @encoded_path after it. */
int air__lfiles_fs(air__lcall *c, const char *kind, const char *encoded_path);

int air__lsubmit_preflight(air__lcall *c);
int air__lsubmit_run(air__lcall *c);

int air__ljobs_get(air__lcall *c);
int air__ljobs_get_output(air__lcall *c);
int air__ljobs_list(air__lcall *c);
int air__ljobs_cancel(air__lcall *c);
int air__ljobs_workflows(air__lcall *c);

int air__llogs_read(air__lcall *c, const char *run_id_text);
int air__lmlflow_run(air__lcall *c);
int air__lmlflow_list(air__lcall *c);
int air__lmlflow_sign(air__lcall *c);
int air__lmlflow_fetch(air__lcall *c, const char *rest);
/* mlflow/metrics/get-history (metrics.c). */
int air__lmlflow_history(air__lcall *c);
/* The run folder of MLflow run @mlflow_run of this workspace with its
 * record and status (json_decref() both), or NULL when there is none. */
char *air__lmlflow_run_dir(air__lcall *c, const char *mlflow_run, json_t **rec, json_t **status);
/* The latest value of each metric of run record @rec, as "metrics" of the
 * runs/get "data" object @data (left out when there is none). AIR_OK or
 * AIR_ENOMEM. */
int air__lmlflow_latest(const air__local *ws, const json_t *rec, json_t *data);

int air__lmisc_policies(air__lcall *c);
int air__lmisc_pools(air__lcall *c, const char *id);
int air__lmisc_compute_options(air__lcall *c);
int air__lmisc_image(air__lcall *c, bool create);

/* The checks a local workspace gives its own meaning (checks.c,
 * AIR__LOCAL_CHECKS_PATH). */
int air__lchecks(air__lcall *c);

/* ---- runs, as the Jobs API shows them (jobs.c) ---- */
/* The runs/get object of @run_id, or NULL when there is no such run or it is
 * damaged (then *damage, which may be NULL, says how: air__free()). */
json_t *air__ljobs_run_object(const air__local *ws, int64_t run_id, char **damage);
/* The MLflow experiment id of a local run ("local-<hex>"). */
char *air__lmlflow_experiment_id(const char *experiment);
/* The MLflow run id of a new run: its run id in hex, then random hex. */
int air__lmlflow_new_run_id(int64_t run_id, char out[33]);
/* The run id inside an MLflow run id, or 0. */
int64_t air__lmlflow_run_of(const char *mlflow_run_id);

/* ---- secrets (secrets.c) ---- */
/* Whether @name can be a variable of a node's environment: not empty, no
 * '=' ("A=B" would reach the node as variable A holding "B=<value>"). For
 * secrets and env_variables alike. */
bool air__lvariable_name_ok(const char *name);
/* The values of the secrets @spec ({"NAME": "scope/key"}) into *out
 * ({"NAME": "value"}); each is also added to the client's secret set. On a
 * missing secret returns AIR_ENOTFOUND with *missing = its NAME (borrowed)
 * and the reason in @why (never a value); on an unusable one AIR_EINVAL
 * with *missing; when together they are more than a run can be given,
 * AIR_EINVAL with *missing NULL. */
int air__lsecrets_resolve(const air__local *ws, const json_t *spec, json_t **out,
                          const char **missing, air__buf *why);
/* Where secret @name (@ref "scope/key") has its local value, into @where
 * ("the environment variable NAME", "the secrets file F"), never the value
 * itself. AIR_OK; AIR_ENOTFOUND (none) or AIR_EINVAL (unusable: too short,
 * an unreadable secrets file) with the reason in @why; AIR_ENOMEM. */
int air__lsecrets_locate(const air__local *ws, const char *name, const char *ref, air__buf *where,
                         air__buf *why);
/* The secrets file the workspace reads (the override or <state>/secrets.json). */
char *air__lsecrets_file(const air__local *ws);

/* ---- the supervisor (spawn.c) ---- */
/* 0 when @path is a program this process may run (an executable regular
 * file), else why not: an errno (EISDIR for what is not a regular file). */
int air__lprogram_problem(const char *path);
/* Whether the supervisor program can be found; *path gets it (air__free()). */
bool air__lsupervisor_path(const air__local *ws, char **path);
/* Why it cannot, where it was looked for and how to fix it (air__free()). */
char *air__lsupervisor_missing(void);
/* A supervisor started ahead of its run's records: it loads while they are
 * written, and waits for the go-ahead (the secret values) before it reads
 * them. */
typedef struct air__lstarting {
	air__local *ws;
	pid_t pid;  /* the launcher, reaped by air__lspawn_go() or _abandon() */
	int sock;   /* the secrets' socket */
	bool aside; /* the launcher loads on the submitting thread's other CPUs */
	cpu_set_t cpus; /* the submitting thread's CPUs, when @aside */
} air__lstarting;
/*
 * Start the supervisor of @run_id, whose folder is being built as
 * @build_dir (its supervisor.log is made there): it inherits @lock_fd (the
 * run's lock, held), detaches itself, and waits. AIR_OK, or an error code
 * with the reason in @why (nothing left to reap).
 */
int air__lspawn_start(air__local *ws, const char *program, int64_t run_id,
                      const char *build_dir, int lock_fd, air__lstarting *st, air__buf *why);
/*
 * The run is made: hand @secrets over, and the supervisor takes the run
 * over. AIR_OK once it runs; else an error code with the reason in @why.
 * *whole: all of the secrets were sent, so that a supervisor whose launcher
 * was reported failed may have them all the same (and the run with them);
 * otherwise no supervisor takes the run. @ctx's interrupt and deadline stop
 * both waits (the secrets' reading, the launcher's exit); a launcher left
 * then is reaped by a later air__lspawn_reap_left() once it has ended.
 */
int air__lspawn_go(air__lstarting *st, const json_t *secrets, const air__ctx *ctx, bool *whole,
                   air__buf *why);
/* The run was not made: the supervisor gets nothing and exits. It is
 * waited for until @ctx's interrupt or deadline (a hung one is then left to
 * air__lspawn_reap_left()). */
void air__lspawn_abandon(air__lstarting *st, const air__ctx *ctx);
/* Reap the launchers @ws's interrupted submissions left, those that have
 * ended (never one the caller reaped: each is watched through its pidfd). */
void air__lspawn_reap_left(air__local *ws);
/* air__lspawn_reap_left(), then forget the rest (the workspace is freed). */
void air__lspawn_forget_left(air__local *ws);

#endif /* AIR_LOCAL_ENDPOINTS_H */

/*
 * checks.h: the checks module — air_client_check() (include/air/check.h),
 * the pre-submit check of a workload. It is the top of the module order:
 * nothing includes this header but the module's own files.
 *
 *   check.c       the call, its order of checks, the report's entries
 *   report.c      the public objects: options, report, checks
 *   offline.c     reproducibility and resource sanity (no request)
 *   code.c        the idempotency key, code paths, snapshot, code commit
 *   secrets.c     secret scopes and keys (listed, never read)
 *   images.c      the Unity Catalog image's registry, the legacy image's registration
 *   folders.c     the artifact base, the volume, the experiment's folder
 *   compute.c     the GPU pool and the accelerator types on offer
 *   experiment.c  the permissions to grant on the MLflow experiment
 *   backend.c     the backend's own checks (a local workspace) and the pre-flight
 */
#ifndef AIR_CHECKS_CHECKS_H
#define AIR_CHECKS_CHECKS_H

#include "images/images.h"
#include "submit/submit.h"
#include "transport/transport.h"
#include "core/core.h"

struct air_check {
	const char *name;  /* static */
	int32_t status;    /* AIR_CHECK_* */
	char *field;       /* or NULL */
	char *message;
	int64_t bytes;     /* -1: none */
	int64_t files;     /* -1: none */
};

struct air_check_report {
	air_check *items;
	size_t count, cap;
	bool strict;
};

/* The string options, by number (AIR_CHECKS_IDEMPOTENCY_KEY .. _DOCKER_CONFIG_DIR). */
#define AIR__CHECK_STR_OPTS 5

struct air_check_options {
	air__call_opts call;
	char *str[AIR__CHECK_STR_OPTS];
	bool strict;
	bool no_resources, no_reproducibility, no_sanity;
	air_check_cb cb;
	void *cb_ud;
};

/* One running check. */
typedef struct air__checker {
	air_client *c;
	const air_config *cfg;
	const air_check_options *opts;
	air__ctx ctx;
	air__workload w;
	air__code_report code;
	bool code_known;          /* code inspected */
	air_check_report *report;
	air_error **err;          /* the call's */
	/* identity, looked up once (air__check_user_base, air__check_user_name) */
	char *user_name;          /* or NULL */
	char *user_base;          /* or NULL */
	air_error *base_error;    /* why the base could not be had */
	air_error *name_error;    /* why the name could not be had */
	json_t *preflight_body;   /* what the pre-flight and the backend's checks get */
	/* what the backend's own checks answered (backend.c) */
	json_t *replaced;         /* names of the checks it replaces, or NULL */
	json_t *skips;            /* {name: why} of the checks it has no meaning for, or NULL */
	/* The workspace did not answer a request within its retries (a
	 * network failure, a retry deadline spent): the checks after it are
	 * skipped with this reason rather than each waiting out its own. */
	char *unreachable;
} air__checker;

/* The string option @opt of the call, or NULL. */
const char *air__check_opt(const air__checker *k, int32_t opt);

/* ---- entries (check.c) ---- */
/* Add a check with a formatted message and hand it to the callback: AIR_OK,
 * AIR_EABORTED (the callback stopped the call) or AIR_ENOMEM, with the
 * error in the call's err. */
int air__check_add(air__checker *k, const char *name, int32_t status, const char *field,
                   const char *fmt, ...) AIR__PRINTF(5, 6);
/* The same with a size and a file count. */
int air__check_add_sized(air__checker *k, const char *name, int32_t status, const char *field,
                         int64_t bytes, int64_t files, const char *fmt, ...) AIR__PRINTF(7, 8);
/* Whether @e is the end of the call rather than an answer about a check: an
 * interrupt, the deadline (also a request that timed out just before it), a
 * callback that stopped, a lack of memory. */
bool air__check_stopped(const air__checker *k, const air_error *e);
/*
 * A check whose request failed with @e (taken). When the call was
 * interrupted or ran past its deadline, that stops it (returned). Otherwise
 * the check is reported: a failure for an error the submission would meet
 * as well (authentication: 401), else skipped, "<what>: <message>".
 */
int air__check_request_failed(air__checker *k, const char *name, const char *field, air_error *e,
                              const char *what);
/* True when check @name is not to be made: the backend has no meaning for
 * it (then it is reported skipped with the backend's reason, or not at all
 * when the backend replaces it with checks of its own), or the workspace did
 * not answer an earlier request (skipped, saying so). *rc: that report's
 * outcome. Every check of the workspace's resources starts with it. */
bool air__check_not_here(air__checker *k, const char *name, const char *field, int *rc);
/* The call's interrupt and what is left of its deadline, for a public call. */
void air__check_call_options(const air__checker *k, air_call_options *out);
/* The artifact base (k->user_base) or the user name (k->user_name), looked
 * up once: true when known; else false after reporting check @name (@field)
 * as unable to look it up (*rc: that report's outcome). */
bool air__check_user_base(air__checker *k, const char *name, const char *field, int *rc);
bool air__check_user_name(air__checker *k, const char *name, const char *field, int *rc);
/* "12.3 MiB", "512 bytes" (static buffer per call site: @out). */
const char *air__check_size(int64_t bytes, char out[32]);

/* ---- the checks: each adds its entries and returns AIR_OK, or what stops the call ---- */
int air__check_environment(air__checker *k);      /* offline.c */
int air__check_dependencies(air__checker *k);
int air__check_image_exclusive(air__checker *k);
int air__check_num_accelerators(air__checker *k);
int air__check_rendezvous(air__checker *k);
int air__check_code_commit(air__checker *k);      /* code.c */
int air__check_idempotency_key(air__checker *k);
int air__check_code(air__checker *k);             /* code_paths, snapshot */
int air__check_secrets(air__checker *k);          /* secrets.c */
int air__check_images(air__checker *k);           /* images.c */
int air__check_folders(air__checker *k);          /* folders.c */
int air__check_compute(air__checker *k);          /* compute.c */
int air__check_experiment(air__checker *k);       /* experiment.c */
int air__check_backend(air__checker *k);          /* backend.c */
int air__check_preflight(air__checker *k);

/* Pure pieces, tested alone. */
/* Whether a pip requirement pins its version: "==1.2" (no wildcard, no other
 * clause), "===", a --hash, a direct reference with #sha256= or a 40-hex
 * commit, a wheel file. *name (may be NULL) gets the package name or the
 * reference (air__free()). Options other than -e are not packages: false with
 * *name NULL. */
bool air__requirement_pinned(const char *req, char **name);
/* Whether @command names a rendezvous variable or a launcher's node count;
 * *found (may be NULL) gets which (static). */
bool air__command_rendezvous(const char *command, const char **found);

#endif /* AIR_CHECKS_CHECKS_H */

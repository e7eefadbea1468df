/*
 * core.h: what the core module offers every other libair module. It is the
 * header of lib/core/ that files outside the folder include, with
 * core_curl.h for the files that call libcurl and core_archive.h for those
 * that call libarchive.
 *
 *   base.h    allocation, buffers, errors, time, randomness, strings
 *   json.h    jansson helpers for the workspace's JSON (64-bit ids)
 *   proc.h    running helper programs (git, docker) without a shell
 *   sha256.h  SHA-256
 *   accel.c   the accelerator types known offline (below)
 *   yaml_scalar.c  the YAML scalar rules of every YAML writer (below)
 *   sweep_mark.c   the workspace names of a sweep's runs and stop mark (below)
 */
#ifndef AIR_CORE_CORE_H
#define AIR_CORE_CORE_H

#include "core/base.h"
#include "core/json.h"
#include "core/proc.h"
#include "core/sha256.h"

/* ---- accelerator types (accel.c): the one table config and runs use ---- */
typedef struct air__accelerator {
	const char *type;      /* "GPU_8xH100" */
	const char *display;   /* "H100" */
	int32_t gpus_per_node; /* 8 */
} air__accelerator;

/* The entry of @type (exact match), or NULL. */
const air__accelerator *air__accelerator_find(const char *type);
/* "GPU_1xA10, GPU_1xH100, GPU_8xH100" (sorted) */
const char *air__accelerator_list(void);
/* Display name ("H100") of a current or legacy type ("h100_80gb"); @type itself when unknown. */
const char *air__accelerator_display(const char *type);

/* ---- log records: what the log endpoint answers, as values shared by the
 * logs module, the transport and the local workspace (which can hand them
 * over without building a page of JSON) ---- */

/* One record of a node's log. */
typedef struct air__log_rec {
	const char *body;    /* NUL-terminated, borrowed; "" when absent */
	size_t len;
	int64_t time_ns;     /* 0 when missing or unparseable */
} air__log_rec;

/* A page request of the log endpoint (the query of air__logs_query()). */
typedef struct air__log_query {
	int64_t run_id;
	int32_t attempt;     /* -1: the latest */
	int32_t node;
	bool ascending;      /* oldest first */
	int64_t from, to;    /* whole epoch seconds; 0: unbounded */
	const char *token;   /* a page token of the same chain, or NULL */
	/* Ascending from the oldest of the newest @tail records of [from, to)
	 * when > 0 and there is no token (a tail read oldest first, one page
	 * after the other; the endpoint itself only pages a tail newest first). */
	int64_t tail;
	int64_t page_size;   /* records; 0: the reader's choice */
	/* The page as text (air__log_span's @text) rather than records, when
	 * the reader can (a reader that cannot gives records). */
	bool text;
} air__log_query;

/* A page of records, borrowed from whoever read it: @n records in @recs, or,
 * for a query that asked for text, @n records' lines in @text, each followed
 * by "\n" (@recs NULL). */
typedef struct air__log_span {
	const air__log_rec *recs;
	size_t n;
	const char *next_token; /* the next page of the chain, or NULL at its end */
	const char *text;
	size_t text_len;
} air__log_span;

/* ---- sweeps (sweep_mark.c): their names in the workspace ---- */

/* "sweep-<base key, [A-Za-z0-9._-] kept, the rest '_', at most 32 bytes>-<8
 * hex of its SHA-256>": the folder of a sweep's launch directories. */
char *air__sweep_tag(const char *base_key);
/* Whether @command_path has the exact shape a sweep writes,
 * "<user base>/.air/cli_launch/<experiment>/<tag>/<16 hex>/v<i>/command.sh":
 * then the length of its user base, and its tag (@tag_len bytes). */
bool air__sweep_launch_split(const char *command_path, size_t *base_len, const char **tag,
                             size_t *tag_len);
/* Whether the idempotency token @token is a variant's key of the sweep of
 * tag @tag (@tag_len bytes): "<its base key>-<16 hex>", the base key cut to
 * 47 bytes at most (then only its first 32 bytes, which the tag keeps, are
 * compared). A rerun's key ("rerun-<id>-...") is not. */
bool air__sweep_token_in(const char *token, const char *tag, size_t tag_len);
/* The shortest base a key may hold cut: 47 bytes less a UTF-8 sequence. */
#define AIR__SWEEP_CUT_BASE_MIN 44
/* "<user base>/.air/sweeps/<tag>/stopped": the stop mark of a sweep. */
char *air__sweep_mark_path(const char *user_base, const char *tag);
/* Whether the content of a stop mark says stopped ("stopped", then
 * whitespace or nothing). */
bool air__sweep_mark_stopped(const char *text, size_t len);
/* When a mark that says resumed ("resumed <UTC time>") was written, in
 * epoch ms, else 0. */
int64_t air__sweep_mark_resumed_ms(const char *text, size_t len);

/* ---- YAML scalars (yaml_scalar.c): one set of rules for config and submit ---- */
/* YAML 1.2 core schema type of a scalar. */
typedef enum air__ytype {
	AIR__YT_STR, AIR__YT_NULL, AIR__YT_BOOL, AIR__YT_INT, AIR__YT_FLOAT
} air__ytype;

/* Core-schema type of a plain scalar's text. */
air__ytype air__yscalar_resolve(const char *text, size_t len);
/* Whether @len bytes of @s may be written as a plain scalar in block and flow
 * context and read back as this string under YAML 1.2 and 1.1 alike
 * (anything that starts like a number, a date or a 1.1 boolean is not). */
bool air__yaml_plain_ok(const char *s, size_t len);
/* Whether a literal block scalar (|) reproduces the multi-line string @s
 * exactly: it starts with visible text and needs no escapes. */
bool air__yaml_literal_ok(const char *s, size_t len);
/* @s as a double-quoted scalar, escaped (line breaks, controls C0, DEL and
 * C1, U+0085, U+2028, U+2029, U+FEFF), appended to @b. */
void air__yaml_put_quoted(air__buf *b, const char *s, size_t len);

/* A client's reference on the process-wide state (global.c): released by
 * air_global_cleanup(), like air_global_init()'s, but libcurl is loaded only
 * when first needed (core_curl.h). */
void air__global_hold(void);

#endif /* AIR_CORE_CORE_H */

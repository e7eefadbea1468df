/*
 * base.h: helpers shared by every libair module (allocation, buffers, errors,
 * time, randomness, strings). Never installed; other folders include core/core.h.
 *
 * Naming: air__ (double underscore) for non-static internal functions; they
 * are hidden by -fvisibility=hidden and the version script.
 */
#ifndef AIR_CORE_BASE_H
#define AIR_CORE_BASE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <air/air.h>

#if defined(__GNUC__)
#  define AIR__PRINTF(f, a) __attribute__((format(printf, f, a)))
#  define AIR__UNUSED __attribute__((unused))
#else
#  define AIR__PRINTF(f, a)
#  define AIR__UNUSED
#endif

#define AIR__ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- allocation (alloc.c): every allocation goes through these so that a
 * per-client allocator can be added later without touching callers. */
void *air__malloc(size_t n);
void *air__calloc(size_t count, size_t n);
void *air__realloc(void *p, size_t n);
void air__free(void *p);
char *air__strdup(const char *s);           /* NULL in -> NULL out */
/* Free @s after overwriting it (tokens, secrets, passwords). NULL is a no-op. */
void air__free_secret(char *s);
char *air__strndup(const char *s, size_t n);
char *air__sprintf(const char *fmt, ...) AIR__PRINTF(1, 2);
char *air__vsprintf(const char *fmt, va_list ap) AIR__PRINTF(1, 0);

/* ---- growable byte buffer (buf.c). Always NUL-terminated when ptr != NULL.
 * Allocation failures are sticky: check air__buf_oom() once at the end. */
typedef struct air__buf {
	char *ptr;
	size_t len;
	size_t cap;
	bool oom;
} air__buf;

#define AIR__BUF_INIT {NULL, 0, 0, false}

void air__buf_init(air__buf *b);
bool air__buf_grow(air__buf *b, size_t extra);
void air__buf_put(air__buf *b, const void *data, size_t len);
void air__buf_puts(air__buf *b, const char *s);
void air__buf_putc(air__buf *b, char c);
void air__buf_printf(air__buf *b, const char *fmt, ...) AIR__PRINTF(2, 3);
void air__buf_vprintf(air__buf *b, const char *fmt, va_list ap) AIR__PRINTF(2, 0);
/* Percent-encode @s (RFC 3986 unreserved kept); keep '/' when @keep_slash. */
void air__buf_put_urlencoded(air__buf *b, const char *s, bool keep_slash);
/* Append "&key=value" (or "key=value" when empty), both percent-encoded. */
/* @s with its line breaks escaped (CR as the two characters \r, LF as \n):
 * text from a server quoted in a message stays on one line and cannot add
 * lines of its own. */
void air__buf_put_one_line(air__buf *b, const char *s);
void air__buf_query(air__buf *b, const char *key, const char *value);
void air__buf_query_int(air__buf *b, const char *key, int64_t value);
void air__buf_clear(air__buf *b);          /* len = 0, keeps memory */
void air__buf_dispose(air__buf *b);        /* frees */
char *air__buf_detach(air__buf *b);        /* returns ptr ("" when empty), resets b; NULL on oom */
static inline bool air__buf_oom(const air__buf *b) { return b->oom; }
/* A reply body sink (http.h) that appends to the air__buf @ud: -1 (stop)
 * when out of memory; and its reset, which empties the buffer so that a
 * replayed request starts again. */
int air__buf_sink(const void *data, size_t len, void *ud);
int air__buf_sink_reset(void *ud);
static inline const char *air__buf_cstr(const air__buf *b) { return b->ptr ? b->ptr : ""; }

/* ---- errors (errors.c) -------------------------------------------------
 * Internal code builds an air_error, may inspect or decorate it, then hands it
 * to the caller with air__fail(), which stores it in *err (when err != NULL)
 * or frees it, and returns its code:
 *
 *     return air__failf(err, AIR_EIO, 0, "cannot read %s: %s", path, strerror(errno));
 *
 * kind 0 means "the default kind of this code" (air__default_kind()).
 * On allocation failure air__error_new() returns a static out-of-memory error
 * that air_error_free() ignores, so callers never need to check it. */
air_error *air__error_new(int code, int32_t kind, const char *fmt, ...) AIR__PRINTF(3, 4);
air_error *air__error_vnew(int code, int32_t kind, const char *fmt, va_list ap) AIR__PRINTF(3, 0);
int air__fail(air_error **err, air_error *e);
int air__failf(air_error **err, int code, int32_t kind, const char *fmt, ...) AIR__PRINTF(4, 5);
int32_t air__default_kind(int code);
bool air__default_retryable(int32_t kind);
/* Decorators; all are no-ops on the static OOM error and return e. */
air_error *air__error_set_field(air_error *e, const char *field);
air_error *air__error_set_position(air_error *e, const char *file, int32_t line, int32_t column);
air_error *air__error_set_http(air_error *e, int32_t status, const char *server_code,
                               const char *request_id, int64_t retry_after_ms);
air_error *air__error_set_retryable(air_error *e, bool retryable);
air_error *air__error_set_kind(air_error *e, int32_t kind);
air_error *air__error_set_code(air_error *e, int code);
/* Replace the message with "<prefix>: <old message>". */
air_error *air__error_prefix(air_error *e, const char *fmt, ...) AIR__PRINTF(2, 3);
/* Replace the message entirely. */
air_error *air__error_set_message(air_error *e, const char *fmt, ...) AIR__PRINTF(2, 3);
air_error *air__error_set_suggestion(air_error *e, const char *suggestion);
/* The "out of memory" failure: AIR_ENOMEM with its error. */
int air__oom(air_error **err);
/* Remove every occurrence of @secret (len >= 4) from the message, as "[REDACTED]". */
air_error *air__error_redact(air_error *e, const char *secret);
air_error *air__error_clone(const air_error *e);

/* ---- base64 (base64.c) ---------------------------------------------------- */
/* Standard padded base64 of @len bytes. air__free() the result; NULL on OOM. */
char *air__base64(const void *data, size_t len);
/* Append the bytes @s (standard alphabet, padding optional) decodes to; false
 * when it is not base64 (or on OOM). Whitespace is not accepted. */
bool air__base64_decode(const char *s, size_t len, air__buf *out);

/* ---- secrets (secrets.c) ------------------------------------------------------
 * The credentials a client knows, in every form it sends them (raw, Basic
 * base64, form-encoded): every error and trace is scrubbed of all of them.
 * Thread-safe; values are overwritten when the set is freed. */
typedef struct air__secrets air__secrets;
int air__secrets_new(air__secrets **out);
void air__secrets_free(air__secrets *s);
/* Remember @value (copied); values under 4 bytes are ignored. */
int air__secrets_add(air__secrets *s, const char *value);
int air__secrets_addn(air__secrets *s, const char *value, size_t len);
/* Replace every remembered value in @b by "[REDACTED]" (the whole text by
 * "[withheld]" when memory runs out). NULL @s is a no-op. */
void air__secrets_scrub(air__secrets *s, air__buf *b);
/* The same on an error's message; returns @e. */
air_error *air__secrets_redact(air__secrets *s, air_error *e);

/* ---- time and sleeping (util.c) ------------------------------------------ */
int64_t air__now_ms(void);      /* wall clock, epoch ms UTC */
int64_t air__mono_ms(void);     /* monotonic ms */
/* air__mono_ms() @ms from now: INT64_MAX when that is beyond it (a wait
 * without end), now for a negative @ms. */
int64_t air__mono_after(int64_t ms);
/* "2024-01-15T14:30:45Z" for epoch seconds @t (whole seconds) (time.c). */
void air__format_rfc3339(int64_t t, char out[32]);
/* "YYYY-MM-DD(T|t| )HH:MM:SS[.frac](Z|z|+HH:MM|-HH:MM)" -> epoch seconds and
 * nanoseconds (@nanos may be NULL); false when malformed (time.c). */
bool air__parse_rfc3339(const char *s, int64_t *secs, int32_t *nanos);

/* ---- randomness (util.c) -------------------------------------------------- */
/* Fill @buf from the OS RNG (getrandom, /dev/urandom fallback). */
int air__random_bytes(void *buf, size_t n);
/* Lowercase hyphenated UUIDv4 (36 chars + NUL). */
int air__uuid4(char out[37]);
/* Uniform value in [lo, hi]. */
int64_t air__random_range(int64_t lo, int64_t hi);

/* ---- strings (util.c) ----------------------------------------------------- */
/* Pointer/length of @s without leading and trailing ASCII whitespace. */
const char *air__trim(const char *s, size_t *len_out);
char *air__trim_dup(const char *s);
/* *slot = a copy of @value (NULL: none), the old one freed: the string
 * option setters. AIR_OK, or AIR_ENOMEM leaving *slot as it was. */
int air__set_str_copy(char **slot, const char *value);
bool air__is_blank(const char *s);
/* Where to cut @s to at most @max bytes without splitting a UTF-8 sequence
 * (the cut backs off at most 3 bytes: never to 0 for a valid text): @len
 * itself when it fits. */
size_t air__utf8_cut(const char *s, size_t len, size_t max);
/* The first control character of @s (C0, DEL), or NULL: such a character
 * in a credential or header value would break the request (CR LF adds
 * headers). */
const char *air__find_control(const char *s);
int air__strcasecmp(const char *a, const char *b);
bool air__starts_with(const char *s, const char *prefix);
bool air__ends_with(const char *s, const char *suffix);
/* Clean a POSIX path lexically: no duplicate or trailing '/', '.' and '..'
 * resolved ("/.." is "/"). NULL on OOM; air__free(). */
char *air__path_clean(const char *path);
/* Strict decimal int64 parse of the whole string (leading '+'/'-' allowed). */
bool air__parse_int64(const char *s, int64_t *out);
/* AIR_EINVAL (field "run_id") unless @run_id is a positive Jobs run id. */
int air__check_run_id(int64_t run_id, air_error **err);

/* ---- interrupts (interrupt.c) --------------------------------------------- */
bool air__interrupted(const air_interrupt *intr);  /* NULL-safe */
/* Read end of the interrupt's pipe (readable once raised), -1 for NULL. */
int air__interrupt_fd(const air_interrupt *intr);
/* Sleep @ms, waking at once when one of the @n interrupts (entries may be
 * NULL) is raised. AIR_OK after the full sleep, else AIR_EINTERRUPTED. */
int air__wait_interrupts(air_interrupt *const *intrs, size_t n, int64_t ms);
/* The same with one interrupt (may be NULL). */
int air__sleep_ms(air_interrupt *intr, int64_t ms);

/* ---- calls (call.c) -----------------------------------------------------------
 * Every options object of the public API starts with an air__call_opts, so
 * that one piece of code reads the interrupt and deadline of any call. */
typedef struct air__call_opts {
	air_interrupt *intr;   /* borrowed, may be NULL */
	int64_t deadline_ms;   /* relative to the start of the call; 0 = none */
} air__call_opts;

#define AIR__CALL_OPTS_INIT {NULL, 0}

struct air_call_options {
	air__call_opts call;
};

/* What a running call hands down to everything it does. A NULL ctx means: no
 * interrupt, no deadline, no progress callback. */
typedef struct air__ctx {
	air_interrupt *intr;         /* the call's, or NULL */
	air_interrupt *client_intr;  /* the client-wide one, or NULL */
	int64_t deadline;            /* monotonic ms; 0 = none */
	int64_t deadline_ms;         /* the deadline as given, for messages */
	/* Upload progress (sum over parallel requests); non-zero return aborts
	 * with AIR_EABORTED. May be NULL. */
	int (*on_progress)(void *ud, int64_t done, int64_t total);
	void *progress_ud;
} air__ctx;

/* Start a call now: interrupt and deadline from @call (may be NULL). */
void air__ctx_init(air__ctx *ctx, const air__call_opts *call, air_interrupt *client_intr);
/* Options setters shared by every options type (AIR_EINVAL for NULL, bad ms). */
int air__call_opts_set_interrupt(air__call_opts *o, air_interrupt *intr);
int air__call_opts_set_deadline(air__call_opts *o, int64_t ms);
/* True when the call's or the client's interrupt is raised. */
bool air__ctx_interrupted(const air__ctx *ctx);
/* Milliseconds left before the deadline: INT64_MAX without one, 0 once passed. */
int64_t air__ctx_remaining(const air__ctx *ctx);
/* The call options of a call made within @ctx's: its interrupt and what is
 * left of its deadline (one deadline for the whole of an outer call). */
air__call_opts air__ctx_rest(const air__ctx *ctx);
/* AIR_OK while the call may go on; else AIR_EINTERRUPTED or AIR_ETIMEOUT with
 * an error naming @what ("GET /api/..."; may be NULL). */
int air__ctx_check(const air__ctx *ctx, const char *what, air_error **err);
/* The AIR_ETIMEOUT error of a passed deadline (kind TRANSIENT, retryable). */
air_error *air__ctx_deadline_error(const air__ctx *ctx, const char *what);
/* Sleep @ms (cut to the deadline), waking at once for either interrupt.
 * AIR_OK after the full sleep; AIR_EINTERRUPTED or AIR_ETIMEOUT (with an
 * error naming @what) otherwise. */
int air__ctx_sleep(const air__ctx *ctx, int64_t ms, const char *what, air_error **err);
/* Wait until @fd has one of poll()'s @events (POLLIN, POLLOUT; an error or
 * hang-up counts too), @ms pass (cut to the deadline) or an interrupt is
 * raised: AIR_OK with *ready telling whether @fd is ready; else
 * AIR_EINTERRUPTED or AIR_ETIMEOUT (with an error naming @what). @fd -1: a
 * sleep that the interrupts end. */
int air__ctx_wait_fd(const air__ctx *ctx, int fd, short events, int64_t ms, bool *ready,
                     const char *what, air_error **err);
/* The read ends of the ctx's interrupts into @fds (up to 2); their number. */
size_t air__ctx_fds(const air__ctx *ctx, int fds[2]);

#endif /* AIR_CORE_BASE_H */

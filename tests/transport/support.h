/* support.h: helpers shared by the transport tests. */
#ifndef AIR_TRANSPORT_TEST_SUPPORT_H
#define AIR_TRANSPORT_TEST_SUPPORT_H

#include <pthread.h>

#include "transport/client_priv.h"
#include "fakews.h"
#include "test.h"

/* A client with a private environment @env ("NAME=value", NULL-terminated;
 * NULL = empty). HOME is a fresh directory (tc_home()) unless @env sets it. */
air_client *tc_client(const char *const *env);
/* Change an option of a client (white-box: the public API fixes options at
 * air_client_new()); a resolved client forgets its resolution, so the next
 * call resolves as a client made with the changed options would. */
int tc_set_str(air_client *c, int32_t opt, const char *value);
int tc_set_int(air_client *c, int32_t opt, int64_t value);
int tc_set_interrupt(air_client *c, air_interrupt *intr);
int tc_set_environment(air_client *c, const char *const *envp);
/* The HOME directory given to the last tc_client(). */
const char *tc_home(void);
/* Write @text to @dir/@name; returns the path (static storage, one at a time). */
const char *tc_write(const char *dir, const char *name, const char *text);
/* air__client_ensure_resolved() with a fresh error. */
int tc_resolve(air_client *c, air_error **err);
/* A resolved attribute (white-box), or NULL. */
const char *tc_attr(const air_client *c, air__attr a);

/* Everything the debug callback receives, for redaction checks. */
typedef struct tc_trace {
	pthread_mutex_t lock;
	air__buf text;  /* all messages, each followed by "\n--\n" */
	int count[5];   /* messages per air_debug_type */
} tc_trace;

void tc_trace_init(tc_trace *t);
void tc_trace_attach(air_client *c, tc_trace *t);
void tc_trace_free(tc_trace *t);

/* The fake workspace of this test binary, started on first use and reset
 * (configuration, faults, records) on every call. */
fakews *tc_fakews(void);
/* A client for @fw like fakews_client(), but with a private environment and
 * a fresh HOME (tc_home()). */
air_client *tc_fakews_client(fakews *fw);

/* Recorded request @i (0-based, oldest first) of fakews, or NULL. Borrowed from @reqs. */
json_t *tc_request(json_t *reqs, size_t i);
/* Header @name (lower-case) of a recorded request, or NULL. */
const char *tc_header(json_t *req, const char *name);

#endif

/*
 * fakews.h: start, drive and inspect the fake workspace server
 * (tests/fakews/fakews.py) from C tests. See tests/fakews/README.md for the
 * server's control API. Every function fails the running test (FAIL) when
 * the server cannot be reached, so callers need no error handling.
 */
#ifndef AIR_TEST_FAKEWS_H
#define AIR_TEST_FAKEWS_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include <air/air.h>

typedef struct fakews fakews;

/* Start a server on 127.0.0.1 (port 0) and wait until it accepts requests. */
fakews *fakews_start(void);
/* Stop the server process and free @fw; NULL is a no-op. */
void fakews_stop(fakews *fw);
/* "http://127.0.0.1:PORT" */
const char *fakews_url(const fakews *fw);
/* POST /__fakews/reset: default configuration, no runs, files, faults or records. */
void fakews_reset(fakews *fw);
/* Control call: @method and @path under the server ("/__fakews/..."), optional
 * JSON body text. Returns the parsed JSON reply (caller json_decref()s). */
json_t *fakews_call(fakews *fw, const char *method, const char *path, const char *json_body);
/* Same with a printf-formatted body. */
json_t *fakews_callf(fakews *fw, const char *method, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Recorded API requests (control calls excluded), oldest first:
 * the "requests" array of GET /__fakews/requests. Caller json_decref()s. */
json_t *fakews_requests(fakews *fw);
/* Number of recorded requests with this method and path (exact path match). */
int fakews_count(fakews *fw, const char *method, const char *path);
/* Raw bytes of an uploaded workspace/volume file, or NULL. free() the result. */
char *fakews_file(fakews *fw, const char *path, size_t *len);
/* A client pointed at the server: host = URL, token "dapi-test", environment
 * ignored, fast back-off (10 ms unit). Caller frees it. */
air_client *fakews_client(fakews *fw);
/* The options fakews_client() uses (host, token, no environment, 10 ms
 * back-off, no rate limit), to add to before fakews_client_from(). */
air_client_options *fakews_client_options(fakews *fw);
/* A client from @opts, which it frees. */
air_client *fakews_client_from(air_client_options *opts);

/* Additions (see tests/fakews/README.md). Like the calls above, they FAIL
 * the running test when the server cannot be reached or rejects the call.
 * Control calls on one fakews are serialised, so any thread may make them. */

/* Port the server listens on. */
int fakews_port(const fakews *fw);
/* POST /__fakews/config with a printf-formatted JSON object. */
void fakews_configf(fakews *fw, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* POST /__fakews/faults with a printf-formatted rule; returns the rule id. */
int fakews_faultf(fakews *fw, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* DELETE /__fakews/faults */
void fakews_clear_faults(fakews *fw);
/* POST /__fakews/runs with a printf-formatted (partial) run object; returns its run id. */
int64_t fakews_create_runf(fakews *fw, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* GET /__fakews/runs/<id>: {"run": <runs/get view>, "submitted": <submit body>, ...}.
 * Caller json_decref()s. */
json_t *fakews_run(fakews *fw, int64_t run_id);
/* DELETE /__fakews/requests */
void fakews_clear_requests(fakews *fw);
/* The most recent recorded request matching @method and @path (as for
 * fakews_count), or NULL. Caller json_decref()s. */
json_t *fakews_last_request(fakews *fw, const char *method, const char *path);
/*
 * Matching used by fakews_count() and fakews_last_request(): @method NULL or
 * "*" matches any method; @path matches the decoded path exactly, or as a
 * prefix when it ends with '*'.
 */

#endif /* AIR_TEST_FAKEWS_H */

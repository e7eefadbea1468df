/*
 * fakews.h: start, drive and inspect the fake workspace server
 * (tests/fakews/fakews.py) from C tests. See tests/fakews/README.md for the
 * server's control API. Every function fails the running test (FAIL) when
 * the server cannot be reached, so callers need no error handling.
 */
#ifndef AIR_TEST_FAKEWS_H
#define AIR_TEST_FAKEWS_H

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

#endif /* AIR_TEST_FAKEWS_H */

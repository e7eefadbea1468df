/*
 * fixture.h: the fake workspace shared by the runs/logs integration tests.
 * One fakews per test binary, reset before every test; `client` points at it.
 */
#ifndef AIR_RUNS_FIXTURE_H
#define AIR_RUNS_FIXTURE_H

#include <stdbool.h>

#include <jansson.h>

#include <air/air.h>

#include "fakews.h"

extern fakews *fw;
extern air_client *client;

/* Lookup options with the AIR_GET_* options of the 0-terminated @set at 1;
 * freed by fixture_teardown(). GET(...) is the short form. */
const air_get_options *fixture_get_options(const int32_t *set);
#define GET(...) fixture_get_options((const int32_t[]){__VA_ARGS__, 0})

/* Test hooks: start (once) or reset the server, make a fresh client. */
void fixture_setup(void);
void fixture_teardown(void);

/* RUN(id, result): the standard terminal ai_runtime_task run started at
 * 1700000000000 and ended 12 s later, task run id id+1, GPU_1xH100 x1. */
int64_t fixture_std_run(int64_t id, const char *result);
/* The same run on @nodes nodes of GPU_1xH100. */
int64_t fixture_std_run_on(int64_t id, const char *result, int nodes);
/* POST a control call under /__fakews with a printf-formatted JSON body; the
 * reply is dropped. */
void fixture_post(const char *path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Recorded API requests with this method and path (prefix when ending in
 * '*'), oldest first. Caller json_decref()s. */
json_t *fixture_requests(const char *method, const char *path);
/* First value of query key @key of request @req, or NULL. */
const char *fixture_query(const json_t *req, const char *key);
/* The query of request @req as "k=v&..." in recorded key order (static buffer). */
const char *fixture_query_string(const json_t *req);

/* Whether @s ends with @suffix (NULL @s: false). */
bool ends_with(const char *s, const char *suffix);

#endif /* AIR_RUNS_FIXTURE_H */

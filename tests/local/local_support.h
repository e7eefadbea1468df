/*
 * local_support.h: helpers of the local workspace tests (public API only):
 * a client on a fresh state directory, workloads from YAML text, waiting for
 * a run, reading its logs, and a teardown that leaves no run going.
 */
#ifndef AIR_LOCAL_SUPPORT_H
#define AIR_LOCAL_SUPPORT_H

#include <air/air.h>

/* Generous bound on how long a run may take to do what a test asks; the
 * tests never pass or fail on time, this only ends a hang. */
#define LOCAL_PATIENCE_MS 120000

/* A client on "local://<state>". */
air_client *local_client(const char *state);
/* Start a test: a fresh state directory (*state) and a client on it, which
 * local_end() cleans up after the test whatever its outcome. */
air_client *local_begin(const char **state);
/* The teardown hook: cancel what the test left going, wait for it to end,
 * release the client. Never fails the test. */
void local_end(void);
/* A validated workload from @yaml; relative paths resolve against @dir. */
air_config *local_config(const char *yaml, const char *dir);
/* Submit @cfg (with idempotency @key, may be NULL); returns the run id. */
int64_t local_submit(air_client *c, const air_config *cfg, const char *key);
/* Wait until run @id ends; returns the final run (air_run_free()). */
air_run *local_wait(air_client *c, int64_t id);
/* Wait until run @id is RUNNING (or has ended). */
void local_wait_running(air_client *c, int64_t id);
/* Every line of node @node, attempt @attempt (-1: latest) of run @id, each
 * followed by "\n" (free()). */
char *local_logs(air_client *c, int64_t id, int32_t node, int32_t attempt);
/* The value after "@key=" on its own line of @text (a static copy), or NULL. */
const char *local_field(const char *text, const char *key);
/* Wait until @path exists (a file a node writes). */
void local_wait_file(const char *path);
/* Wait until process @pid is gone. */
void local_wait_gone(long pid);
/* A pid written by a node into @path. */
long local_read_pid(const char *path);
/* Check that no supervisor of @state wrote to its log (its errors and any
 * sanitizer report would be there). */
void local_check_supervisors(const char *state);

#endif /* AIR_LOCAL_SUPPORT_H */

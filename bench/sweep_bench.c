/*
 * sweep_bench.c: a sweep against the fake workspace with a 10 ms reply
 * latency, and how close it comes to the protocol's minimum.
 *
 * A sweep of N variants makes, once: the identity and the pre-flight (one
 * for a grid over parameters), one round trip each; then per variant one
 * mkdirs, its launch files (3 with parameters) and one runs/submit. With at
 * most P requests in flight and every reply taking at least L = 10 ms, the
 * sweep cannot finish faster than
 *
 *     critical path = shared round trips x L + ceil(N x requests per variant / P) x L
 *
 * (400 variants x 5 requests / 8 = 250 rounds: 2.52 s). The benchmark counts
 * the requests of each kind on the server, and measures the wall time of
 * air_client_submit_sweep() (the offline validation of every variant
 * included, reported apart too) against that critical path. Targets: one
 * runs/submit plus the variant's own files per variant, the shared requests
 * once per sweep, total <= 1.1 x the critical path.
 *
 * The fake workspace is a Python program: handling a request costs it CPU
 * time, and its threads share one interpreter lock, so requests in flight
 * together are handled one after the other. The same sweep with no latency
 * first measures that floor (it includes libair's own work), which the
 * second ratio adds to the critical path.
 *
 * Usage: sweep_bench [VARIANTS [MAX_PARALLEL [LATENCY_MS]]] (default 400, 8,
 * 10). The last line of the output is one JSON object with the figures.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <air/air.h>

#include "fakews.h"

#define SHARED_ROUND_TRIPS 2 /* identity, pre-flight */

static const char workload[] = "experiment_name: bench-sweep\n"
                               "command: python train.py\n"
                               "compute: {accelerator_type: GPU_1xH100, num_accelerators: 1}\n"
                               "parameters: {lr: 0.01, seed: 0}\n";

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void die(const char *what, int rc, air_error *err)
{
	fprintf(stderr, "sweep_bench: %s: %s (%s)\n", what, err ? air_error_message(err) : "",
	        air_status_name(rc));
	exit(1);
}

/* n points: 4 learning rates x n/4 seeds. */
static air_sweep_points *grid(int n)
{
	static const char *const lr[] = {"1e-4", "3e-4", "1e-3", "3e-3"};
	air_sweep_points *p = NULL;
	char **seeds = calloc((size_t)n / 4, sizeof(*seeds));
	air_error *err = NULL;
	int rc = air_sweep_points_new(&p);

	for (int i = 0; rc == AIR_OK && i < n / 4; i++) {
		seeds[i] = malloc(16);
		snprintf(seeds[i], 16, "%d", i);
	}
	if (rc == AIR_OK)
		rc = air_sweep_points_add_axis(p, "parameters.lr", lr, 4, &err);
	if (rc == AIR_OK)
		rc = air_sweep_points_add_axis(p, "parameters.seed", (const char *const *)seeds,
		                               (size_t)n / 4, &err);
	if (rc != AIR_OK)
		die("building the grid", rc, err);
	for (int i = 0; i < n / 4; i++)
		free(seeds[i]);
	free(seeds);
	return p;
}

/* One sweep with base key @base: its wall time in ms. */
static double one_sweep(air_client *client, const air_config *cfg, const air_sweep_points *p,
                        air_sweep_options *o, const char *base, air_sweep **s)
{
	air_error *err = NULL;
	double t0 = now_ms();
	int rc;

	if ((rc = air_sweep_options_set_str(o, AIR_SWEEP_BASE_KEY, base)) != AIR_OK ||
	    (rc = air_client_submit_sweep(client, cfg, p, o, s, &err)) != AIR_OK)
		die("submitting", rc, err);
	return now_ms() - t0;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 400, maxp = argc > 2 ? atoi(argv[2]) : 8;
	int LATENCY_MS = argc > 3 ? atoi(argv[3]) : 10;
	double floor_ms;
	fakews *fw;
	air_client *client;
	air_config *cfg = NULL;
	air_sweep_points *p;
	air_sweep_options *o = NULL;
	air_sweep *s = NULL, *dry = NULL;
	air_error *err = NULL;
	double t0, total_ms, validate_ms, critical_ms;
	int rc, mkdirs, uploads, submits, all, shared, rounds;
	double per_variant;
	json_t *conns;

	if (n < 4 || n % 4 || maxp < 1 || LATENCY_MS < 1) {
		fprintf(stderr, "usage: sweep_bench [VARIANTS (a multiple of 4) [MAX_PARALLEL "
		        "[LATENCY_MS]]]\n");
		return 2;
	}
	setenv("FAKEWS_PY", AIR_BENCH_FAKEWS, 0);
	setenv("PYTHON", AIR_BENCH_PYTHON, 0);
	fw = fakews_start();
	client = fakews_client(fw);
	p = grid(n);
	if ((rc = air_config_load_buffer(workload, strlen(workload), "bench.yaml", NULL, &cfg,
	                                 &err)) != AIR_OK ||
	    (rc = air_sweep_options_new(&o)) != AIR_OK ||
	    (rc = air_sweep_options_set_int(o, AIR_SWEEP_MAX_PARALLEL, maxp)) != AIR_OK)
		die("setting up", rc, err);
	/* the floor: the same sweep (another base key: new runs) without latency */
	floor_ms = one_sweep(client, cfg, p, o, "bench-floor", &s);
	air_sweep_free(s);
	s = NULL;
	fakews_reset(fw);
	fakews_configf(fw, "{\"latency_ms\":%d}", LATENCY_MS);

	t0 = now_ms();
	if ((rc = air_config_validate_sweep(cfg, p, o, &dry, &err)) != AIR_OK)
		die("validating", rc, err);
	validate_ms = now_ms() - t0;
	air_sweep_free(dry);

	total_ms = one_sweep(client, cfg, p, o, "bench", &s);

	mkdirs = fakews_count(fw, "POST", "/api/2.0/workspace/mkdirs");
	uploads = fakews_count(fw, "POST", "/api/2.0/workspace-files/import-file/*");
	submits = fakews_count(fw, "POST", "/api/2.2/jobs/runs/submit");
	all = fakews_count(fw, "*", "*");
	shared = all - mkdirs - uploads - submits;
	per_variant = (double)(mkdirs + uploads + submits) / n;
	rounds = (mkdirs + uploads + submits + maxp - 1) / maxp;
	critical_ms = (double)(SHARED_ROUND_TRIPS + rounds) * LATENCY_MS;
	conns = fakews_call(fw, "GET", "/__fakews/connections", NULL);

	printf("variants:               %d at most %d in flight (%zu failed)\n", n, maxp,
	       air_sweep_failed_count(s));
	printf("server latency:         %d ms per reply\n", LATENCY_MS);
	printf("requests per variant:   %.2f = mkdirs %.2f + launch files %.2f + runs/submit %.2f "
	       "(target: 1 runs/submit + its own files)\n", per_variant, (double)mkdirs / n,
	       (double)uploads / n, (double)submits / n);
	printf("shared requests:        %d per sweep (identity, pre-flight)\n", shared);
	printf("connections:            at most %lld open at once\n",
	       (long long)json_integer_value(json_object_get(conns, "max_open")));
	printf("validation:             %.0f ms for %d variants (offline, also inside the total)\n",
	       validate_ms, n);
	printf("total:                  %.0f ms (%.0f variants/s)\n", total_ms, n / (total_ms / 1e3));
	printf("critical path:          %.0f ms = (%d shared + ceil(%d requests / %d)) round trips x "
	       "%d ms\n", critical_ms, SHARED_ROUND_TRIPS, mkdirs + uploads + submits, maxp,
	       LATENCY_MS);
	printf("ratio:                  %.2f (target <= 1.1)\n", total_ms / critical_ms);
	printf("server floor:           %.0f ms: the same sweep without latency\n", floor_ms);
	printf("ratio with the floor:   %.2f = total / (critical path + server floor)\n",
	       total_ms / (critical_ms + floor_ms));
	printf("{\"bench\":\"sweep\",\"variants\":%d,\"max_parallel\":%d,\"failed\":%zu,"
	       "\"latency_ms\":%d,\"requests_per_variant\":%.2f,\"mkdirs_per_variant\":%.2f,"
	       "\"files_per_variant\":%.2f,\"submits_per_variant\":%.2f,\"shared_requests\":%d,"
	       "\"max_connections\":%lld,\"validate_ms\":%.0f,\"total_ms\":%.0f,"
	       "\"critical_ms\":%.0f,\"ratio\":%.3f,\"floor_ms\":%.0f,\"ratio_with_floor\":%.3f}\n",
	       n, maxp, air_sweep_failed_count(s), LATENCY_MS, per_variant, (double)mkdirs / n,
	       (double)uploads / n, (double)submits / n, shared,
	       (long long)json_integer_value(json_object_get(conns, "max_open")), validate_ms,
	       total_ms, critical_ms, total_ms / critical_ms, floor_ms,
	       total_ms / (critical_ms + floor_ms));
	json_decref(conns);
	air_sweep_free(s);
	air_sweep_options_free(o);
	air_sweep_points_free(p);
	air_config_free(cfg);
	air_client_free(client);
	fakews_stop(fw);
	return 0;
}

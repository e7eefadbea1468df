/*
 * submit_bench.c: submissions per second against the fake workspace with a
 * 10 ms reply latency, and how close they come to the protocol's minimum.
 *
 * A simple run needs, once the user is known, 5 requests in 4 sequential
 * round trips: pre-flight -> mkdirs of the launch directory -> the two
 * launch files in parallel -> runs/submit. With every reply taking at least
 * L = 10 ms, one run cannot finish faster than 4 x L, and T threads each
 * submitting N/T runs one after the other cannot finish N runs faster than
 *
 *     critical path = (N / T) x round trips per run x L
 *
 * (200 runs, 8 threads: 25 x 4 x 10 ms = 1000 ms). The benchmark measures
 * requests and round trips per run from the server's request log (a round
 * trip is a burst of requests arriving together; the next burst can only
 * start once the previous replies arrived, L later) and the wall time of the
 * whole batch against that critical path. Targets: <= 5 requests and <= 4
 * round trips per run, total <= 1.3 x the critical path.
 *
 * Usage: submit_bench [SUBMISSIONS [THREADS]]. The last line of the output
 * is one JSON object with the figures.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <air/air.h>

#include "fakews.h"
#include "test.h"

#define LATENCY_MS 10
#define CALIBRATION_RUNS 5

static const char workload[] = "experiment_name: bench\n"
                               "command: python train.py\n"
                               "compute:\n"
                               "  accelerator_type: GPU_1xH100\n"
                               "  num_accelerators: 1\n";

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void die(const char *what, int rc, air_error *err)
{
	fprintf(stderr, "submit_bench: %s: %s (%s)\n", what, err ? air_error_message(err) : "",
	        air_status_name(rc));
	exit(1);
}

typedef struct worker {
	pthread_t thread;
	air_client *client;
	int runs;
	int failures;
} worker;

static void *submit_loop(void *arg)
{
	worker *w = arg;
	air_config *cfg = NULL;
	air_error *err = NULL;
	int rc = air_config_load_buffer(workload, strlen(workload), "bench.yaml", NULL, &cfg, &err);

	if (rc != AIR_OK)
		die("loading the workload", rc, err);
	for (int i = 0; i < w->runs; i++) {
		air_submission *sub = NULL;
		if ((rc = air_client_submit(w->client, cfg, NULL, &sub, &err)) != AIR_OK) {
			fprintf(stderr, "submit_bench: submission failed: %s\n", err ? air_error_message(err) : "");
			air_error_free(err);
			err = NULL;
			w->failures++;
		}
		air_submission_free(sub);
	}
	air_config_free(cfg);
	return NULL;
}

/* Round trips in the request log of runs made one at a time. A request sent
 * after a reply arrives at least one latency after the request it waited
 * for, so one arriving a latency or more after the first request of the
 * current burst starts a new burst; parallel requests arrive together. */
static int round_trips(fakews *fw)
{
	json_t *r = fakews_call(fw, "GET", "/__fakews/requests?bodies=false", NULL), *q;
	int64_t start = -1;
	int bursts = 0;
	size_t i;

	json_array_foreach(json_object_get(r, "requests"), i, q) {
		int64_t t = json_integer_value(json_object_get(q, "time_ms"));
		if (start < 0 || t - start >= LATENCY_MS) {
			bursts++;
			start = t;
		}
	}
	json_decref(r);
	return bursts;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 200, threads = argc > 2 ? atoi(argv[2]) : 8;
	worker *ws = calloc((size_t)(threads > 0 ? threads : 1), sizeof(*ws));
	fakews *fw;
	air_client *client;
	air_error *err = NULL;
	char *user = NULL;
	double t0, total_ms, critical_ms, per_run_requests;
	int rc, requests, failures = 0, trips;
	worker cal = {0};

	if (n <= 0 || threads <= 0 || n % threads != 0 || !ws) {
		fprintf(stderr, "usage: submit_bench [SUBMISSIONS [THREADS]] (SUBMISSIONS a multiple of THREADS)\n");
		return 2;
	}
	setenv("FAKEWS_PY", AIR_BENCH_FAKEWS, 0);
	setenv("PYTHON", AIR_BENCH_PYTHON, 0);
	fw = fakews_start();
	fakews_configf(fw, "{\"latency_ms\":%d}", LATENCY_MS);
	client = fakews_client(fw);
	/* the user is looked up once per client; the figures are for later runs */
	if ((rc = air_client_current_user(client, NULL, &user, &err)) != AIR_OK)
		die("looking up the user", rc, err);
	air_free(user);
	/* one run opens the connections that the parallel uploads reuse */
	cal.client = client;
	cal.runs = 1;
	submit_loop(&cal);

	/* calibration: a few runs one at a time give the sequential round trips */
	fakews_clear_requests(fw);
	cal.runs = CALIBRATION_RUNS;
	submit_loop(&cal);
	trips = round_trips(fw);

	fakews_clear_requests(fw);
	t0 = now_ms();
	for (int t = 0; t < threads; t++) {
		ws[t].client = client;
		ws[t].runs = n / threads;
		pthread_create(&ws[t].thread, NULL, submit_loop, &ws[t]);
	}
	for (int t = 0; t < threads; t++) {
		pthread_join(ws[t].thread, NULL);
		failures += ws[t].failures;
	}
	total_ms = now_ms() - t0;
	requests = fakews_count(fw, "*", "*");
	per_run_requests = (double)requests / n;
	critical_ms = (double)n / threads * ((double)trips / CALIBRATION_RUNS) * LATENCY_MS;

	printf("submissions:            %d in %d threads (%d failed)\n", n, threads, failures + cal.failures);
	printf("server latency:         %d ms per reply\n", LATENCY_MS);
	printf("requests per run:       %.2f (target <= 5)\n", per_run_requests);
	printf("round trips per run:    %.2f (target <= 4)\n", (double)trips / CALIBRATION_RUNS);
	printf("total:                  %.0f ms (%.1f runs/s)\n", total_ms, n / (total_ms / 1e3));
	printf("critical path:          %.0f ms = %d runs / %d threads x %.0f round trips x %d ms\n",
	       critical_ms, n, threads, (double)trips / CALIBRATION_RUNS, LATENCY_MS);
	printf("ratio:                  %.2f (target <= 1.3)\n", total_ms / critical_ms);
	printf("{\"bench\":\"submit\",\"submissions\":%d,\"threads\":%d,\"failures\":%d,"
	       "\"requests_per_run\":%.2f,\"round_trips_per_run\":%.2f,\"total_ms\":%.0f,"
	       "\"critical_path_ms\":%.0f,\"ratio\":%.3f}\n",
	       n, threads, failures + cal.failures, per_run_requests, (double)trips / CALIBRATION_RUNS,
	       total_ms, critical_ms, total_ms / critical_ms);
	air_client_free(client);
	fakews_stop(fw);
	free(ws);
	return failures + cal.failures ? 1 : 0;
}

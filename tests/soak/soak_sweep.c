/*
 * soak_sweep.c: a large sweep submitted exactly once under faults.
 *
 * One sweep of N variants (a grid) against the fake workspace while
 * runs/submit loses replies (the run is created, the connection reset
 * before the reply) and answers 503, and every other step resets a
 * connection now and then. A variant that still fails once the library gave
 * up is submitted again by submitting the whole sweep again with the same
 * base key, as a user would. Then the same sweep once more.
 *
 * Passes when exactly N runs exist, one per variant key (no duplicates),
 * every variant got back the run its key has, the second submission started
 * nothing new and returned the same run ids, and the fake workspace never
 * saw more than max-parallel (8) connections open at once. Prints the
 * figures.
 *
 * Usage: soak_sweep [VARIANTS [MAX_PARALLEL]] (default 200, 8);
 * tests/soak/run-full.sh runs 2000.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <air/air.h>

#include "fakews.h"

#define MAX_ROUNDS 20 /* submissions of the sweep before giving up on a variant */
#define SUBMIT "/api/2.2/jobs/runs/submit"

static const char workload[] = "experiment_name: soak-sweep\n"
                               "command: python train.py\n"
                               "compute: {accelerator_type: GPU_1xH100, num_accelerators: 1}\n"
                               "parameters: {lr: 0.01, seed: 0}\n";

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A grid of @n points: 10 learning rates x n/10 seeds (n a multiple of 10). */
static air_sweep_points *grid(int n)
{
	air_sweep_points *p = NULL;
	const char *lr[10] = {"1e-5", "3e-5", "1e-4", "3e-4", "1e-3", "3e-3", "0.01", "0.03", "0.1",
	                      "0.3"};
	char **seeds = calloc((size_t)n / 10, sizeof(*seeds));

	if (air_sweep_points_new(&p) != AIR_OK || !seeds)
		return NULL;
	for (int i = 0; i < n / 10; i++) {
		seeds[i] = malloc(16);
		snprintf(seeds[i], 16, "%d", i);
	}
	if (air_sweep_points_add_axis(p, "parameters.lr", lr, 10, NULL) != AIR_OK ||
	    air_sweep_points_add_axis(p, "parameters.seed", (const char *const *)seeds,
	                              (size_t)n / 10, NULL) != AIR_OK) {
		air_sweep_points_free(p);
		p = NULL;
	}
	for (int i = 0; i < n / 10; i++)
		free(seeds[i]);
	free(seeds);
	return p;
}

/* Submit the sweep until no variant failed; the last outcome, rounds in *rounds. */
static air_sweep *submit_all(air_client *c, air_config *cfg, air_sweep_points *p,
                             air_sweep_options *o, int *rounds)
{
	air_sweep *s = NULL;

	for (*rounds = 1; *rounds <= MAX_ROUNDS; (*rounds)++) {
		air_error *err = NULL;
		int rc;

		air_sweep_free(s);
		s = NULL;
		rc = air_client_submit_sweep(c, cfg, p, o, &s, &err);
		if (rc != AIR_OK)
			printf("soak sweep: round %d: %s\n", *rounds, air_error_message(err));
		air_error_free(err);
		if (rc == AIR_OK && air_sweep_failed_count(s) == 0)
			return s;
	}
	return s;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 200, maxp = argc > 2 ? atoi(argv[2]) : 8;
	fakews *fw = fakews_start();
	air_client *c = NULL;
	air_config *cfg = NULL;
	air_sweep_points *p = grid(n);
	air_sweep_options *o = NULL;
	air_sweep *s1 = NULL, *s2 = NULL;
	json_t *runs, *conns;
	int rounds1 = 0, rounds2 = 0, failures = 0, lost = 0, created, submits;
	int64_t max_open;
	double t0, t1, t2;
	bool ok = true;

	if (n < 10 || n % 10 || !p || maxp < 1) {
		fprintf(stderr, "usage: soak_sweep [VARIANTS (a multiple of 10) [MAX_PARALLEL]]\n");
		return 2;
	}
	fakews_configf(fw, "{\"record_requests\":false}");
	/* lost replies and 503s on runs/submit, resets on every other step */
	fakews_faultf(fw, "{\"method\":\"POST\",\"path\":\"%s\",\"action\":\"reset_after\","
	              "\"times\":-1,\"probability\":0.05,\"seed\":11}", SUBMIT);
	fakews_faultf(fw, "{\"method\":\"POST\",\"path\":\"%s\",\"status\":503,\"times\":-1,"
	              "\"probability\":0.05,\"seed\":12,\"body\":{\"error_code\":"
	              "\"TEMPORARILY_UNAVAILABLE\",\"message\":\"busy\"}}", SUBMIT);
	fakews_faultf(fw, "{\"path\":\"/api/2.0/workspace*\",\"action\":\"reset_before\","
	              "\"times\":-1,\"probability\":0.01,\"seed\":13}");
	c = fakews_client(fw);
	if (air_config_load_buffer(workload, strlen(workload), "soak.yaml", NULL, &cfg, NULL) ||
	    air_sweep_options_new(&o) || air_sweep_options_set_str(o, AIR_SWEEP_BASE_KEY, "soak") ||
	    air_sweep_options_set_int(o, AIR_SWEEP_MAX_PARALLEL, maxp)) {
		fprintf(stderr, "soak sweep: cannot set up\n");
		return 1;
	}
	t0 = now_s();
	s1 = submit_all(c, cfg, p, o, &rounds1);
	t1 = now_s();
	s2 = submit_all(c, cfg, p, o, &rounds2);
	t2 = now_s();

	runs = fakews_call(fw, "GET", "/__fakews/runs", NULL);
	created = (int)json_array_size(json_object_get(runs, "runs"));
	submits = 0;
	{
		size_t i;
		json_t *r;
		json_array_foreach(json_object_get(runs, "runs"), i, r)
			submits += (int)json_integer_value(json_object_get(r, "submits"));
	}
	json_decref(runs);
	conns = fakews_call(fw, "GET", "/__fakews/connections", NULL);
	max_open = json_integer_value(json_object_get(conns, "max_open"));
	json_decref(conns);
	for (size_t i = 0; s1 && s2 && i < (size_t)n; i++) {
		int64_t a = air_sweep_variant_run_id(s1, i), b = air_sweep_variant_run_id(s2, i);
		failures += air_sweep_variant_status(s1, i) != AIR_VARIANT_SUBMITTED;
		lost += a <= 0 || a != b;
		for (size_t j = 0; j < i && a > 0; j++)
			lost += air_sweep_variant_run_id(s1, j) == a; /* two variants, one run */
	}
	printf("soak sweep: %d variants, max-parallel %d: %.2f s (%d round%s), again %.2f s "
	       "(%d round%s)\n", n, maxp, t1 - t0, rounds1, rounds1 == 1 ? "" : "s", t2 - t1, rounds2,
	       rounds2 == 1 ? "" : "s");
	printf("soak sweep: runs created %d (expected %d), runs/submit answered %d, variants "
	       "failed %d, lost or duplicated %d\n", created, n, submits, failures, lost);
	printf("soak sweep: connections open at once: at most %lld (limit %d)\n",
	       (long long)max_open, maxp);
	ok = s1 && s2 && created == n && failures == 0 && lost == 0 && max_open <= maxp;
	printf("soak sweep: %s\n", ok ? "ok" : "FAILED");
	air_sweep_free(s1);
	air_sweep_free(s2);
	air_sweep_options_free(o);
	air_sweep_points_free(p);
	air_config_free(cfg);
	air_client_free(c);
	fakews_stop(fw);
	return ok ? 0 : 1;
}

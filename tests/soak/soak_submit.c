/*
 * soak_submit.c: exactly-once submission under random faults.
 *
 * N submissions from P processes of T threads each (one client per process,
 * shared by its threads) against the fake workspace, with random faults on
 * every step of a submission (identity, pre-flight, mkdirs, the launch files,
 * runs/submit): a reset before the request is handled, a reset after it was
 * handled (the reply is lost, the run exists), 503 and 429 with Retry-After,
 * a trickled (slow) body and a truncated one. Each submission has its own
 * idempotency key; a submission that still fails once the library gave up
 * (the retry deadline is 1.5 s: two Retry-After of 1 s in a row do it) is
 * submitted again by the caller with the same key, until it succeeds.
 *
 * Passes when exactly N runs exist, each key has exactly one run (no
 * duplicates), every submission got back the run its key has (none lost)
 * and no process crashed. Prints the figures.
 *
 * Usage: soak_submit [SUBMISSIONS [PROCESSES [THREADS]]]; without
 * arguments $AIR_SOAK_SUBMISSIONS (default 150), 3 processes, 4 threads.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <air/air.h>

#include "fakews.h"

#define MAX_ATTEMPTS 50 /* caller-side submissions of one key before giving up */

static const char workload[] = "experiment_name: soak\n"
                               "command: python train.py\n"
                               "compute: {accelerator_type: GPU_1xH100, num_accelerators: 1}\n";

/* Every step of a submission, and the fault mix applied to each. */
static const char *const steps[] = {
	"/api/2.0/preview/scim/v2/Me",        "/api/2.0/ai-training/config:validate",
	"/api/2.0/workspace/mkdirs",          "/api/2.0/workspace-files/import-file/*",
	"/api/2.2/jobs/runs/submit",
};
static const struct fault {
	const char *name;
	const char *rule; /* JSON members after "path" */
} faults[] = {
	{"reset before reply", "\"action\":\"reset_before\",\"probability\":0.04"},
	{"reply lost after the work (reset_after)", "\"action\":\"reset_after\",\"probability\":0.04"},
	{"503 + Retry-After", "\"status\":503,\"probability\":0.03,\"headers\":{\"Retry-After\":\"1\"},"
	                      "\"body\":{\"error_code\":\"TEMPORARILY_UNAVAILABLE\",\"message\":\"busy\"}"},
	{"429 + Retry-After", "\"status\":429,\"probability\":0.03,\"headers\":{\"Retry-After\":\"1\"},"
	                      "\"body\":{\"error_code\":\"REQUEST_LIMIT_EXCEEDED\",\"message\":\"slow down\"}"},
	{"slow (trickled) body", "\"action\":\"trickle\",\"chunk_bytes\":16,\"interval_ms\":10,"
	                         "\"probability\":0.03"},
	{"truncated body", "\"action\":\"truncate\",\"probability\":0.03"},
};
enum { NSTEPS = sizeof(steps) / sizeof(steps[0]), NFAULTS = sizeof(faults) / sizeof(faults[0]) };

typedef struct worker {
	pthread_t thread;
	air_client *client;
	const air_config *cfg;
	int proc, index, count;
	FILE *out;               /* "key run_id caller_retries" lines */
	pthread_mutex_t *out_lock;
	int failures;
} worker;

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Submit with @key until the library reports a run (same key every time). */
static int64_t submit_once(worker *w, const char *key, int *retries)
{
	air_submit_options *o = NULL;
	int64_t run_id = 0;

	if (air_submit_options_new(&o) != AIR_OK ||
	    air_submit_options_set_str(o, AIR_SUBMIT_IDEMPOTENCY_KEY, key) != AIR_OK) {
		air_submit_options_free(o);
		return 0;
	}
	for (int attempt = 0; attempt < MAX_ATTEMPTS && run_id == 0; attempt++) {
		air_submission *sub = NULL;
		air_error *err = NULL;
		int rc = air_client_submit(w->client, w->cfg, o, &sub, &err);

		if (rc == AIR_OK) {
			run_id = air_submission_run_id(sub);
		} else {
			(*retries)++;
			if (!air_error_retryable(err))
				fprintf(stderr, "soak: %s: not retryable: %s\n", key, air_error_message(err));
		}
		air_submission_free(sub);
		air_error_free(err);
	}
	air_submit_options_free(o);
	return run_id;
}

static void *work(void *arg)
{
	worker *w = arg;

	for (int i = 0; i < w->count; i++) {
		char key[64];
		int retries = 0;
		int64_t run_id;

		snprintf(key, sizeof(key), "soak-p%d-t%d-%d", w->proc, w->index, i);
		run_id = submit_once(w, key, &retries);
		if (run_id == 0)
			w->failures++;
		pthread_mutex_lock(w->out_lock);
		fprintf(w->out, "%s %lld %d\n", key, (long long)run_id, retries);
		pthread_mutex_unlock(w->out_lock);
	}
	return NULL;
}

/* One process: T threads sharing one client; results into @path. */
static int run_process(const char *url, int proc, int threads, int per_thread, int extra,
                       const char *path)
{
	air_client_options *opts = NULL;
	air_client *c = NULL;
	air_config *cfg = NULL;
	air_error *err = NULL;
	worker w[64];
	pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	FILE *out = fopen(path, "w");
	int failures = 0;

	if (!out || air_client_options_new(&opts) != AIR_OK ||
	    air_client_options_set_str(opts, AIR_OPT_HOST, url) != AIR_OK ||
	    air_client_options_set_str(opts, AIR_OPT_TOKEN, "dapi-test") != AIR_OK ||
	    air_client_options_set_int(opts, AIR_OPT_USE_ENVIRONMENT, 0) != AIR_OK ||
	    air_client_options_set_int(opts, AIR_OPT_RETRY_BACKOFF_MS, 10) != AIR_OK ||
	    /* Short: two Retry-After: 1 in a row make the library give up, and
	     * the caller submits again with the same key. */
	    air_client_options_set_int(opts, AIR_OPT_RETRY_DEADLINE_MS, 1500) != AIR_OK ||
	    air_client_options_set_int(opts, AIR_OPT_RATE_LIMIT, 0) != AIR_OK ||
	    air_client_new(opts, &c, &err) != AIR_OK ||
	    air_config_load_buffer(workload, strlen(workload), "soak.yaml", NULL, &cfg, &err) != AIR_OK) {
		fprintf(stderr, "soak: process %d cannot start: %s\n", proc, err ? air_error_message(err) : "");
		return 1;
	}
	air_client_options_free(opts);
	for (int t = 0; t < threads; t++) {
		w[t] = (worker){0, c, cfg, proc, t, per_thread + (t < extra), out, &lock, 0};
		pthread_create(&w[t].thread, NULL, work, &w[t]);
	}
	for (int t = 0; t < threads; t++) {
		pthread_join(w[t].thread, NULL);
		failures += w[t].failures;
	}
	fclose(out);
	air_config_free(cfg);
	air_client_free(c);
	return failures ? 1 : 0;
}

typedef struct result {
	char key[64];
	int64_t run_id;
} result;

static int cmp_key(const void *a, const void *b)
{
	return strcmp(((const result *)a)->key, ((const result *)b)->key);
}

int main(int argc, char **argv)
{
	const char *env_n = getenv("AIR_SOAK_SUBMISSIONS");
	int total = argc > 1 ? atoi(argv[1]) : env_n ? atoi(env_n) : 150;
	int procs = argc > 2 ? atoi(argv[2]) : 3, threads = argc > 3 ? atoi(argv[3]) : 4;
	const char *tmp = getenv("TMPDIR");
	char dir[512];
	fakews *fw;
	pid_t pids[64];
	result *got;
	size_t ngot = 0;
	int caller_retries = 0, crashed = 0, unfinished = 0, dups = 0, lost = 0, mismatched = 0;
	json_t *runs, *rules, *reqs;
	size_t nruns;
	double t0;

	if (total < 1 || procs < 1 || procs > 64 || threads < 1 || threads > 64) {
		fprintf(stderr, "usage: soak_submit [SUBMISSIONS [PROCESSES<=64 [THREADS<=64]]]\n");
		return 2;
	}
	snprintf(dir, sizeof(dir), "%s/air-soak-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	fw = fakews_start();
	fakews_configf(fw, "{\"record_requests\":false}");
	for (int s = 0; s < NSTEPS; s++)
		for (int f = 0; f < NFAULTS; f++)
			fakews_faultf(fw, "{\"path\":\"%s\",\"times\":-1,\"seed\":%d,%s}", steps[s],
			              1000 * s + f + 1, faults[f].rule);
	t0 = now_s();
	for (int p = 0; p < procs; p++) {
		int share = total / procs + (p < total % procs);
		char path[600];

		snprintf(path, sizeof(path), "%s/p%d.txt", dir, p);
		fflush(NULL);
		if ((pids[p] = fork()) == 0)
			_exit(run_process(fakews_url(fw), p, threads, share / threads, share % threads, path));
	}
	for (int p = 0; p < procs; p++) {
		int st = 0;
		if (waitpid(pids[p], &st, 0) != pids[p] || !WIFEXITED(st))
			crashed++;
		else if (WEXITSTATUS(st) != 0)
			unfinished++;
	}

	/* What the processes got back: key -> run id. */
	got = calloc((size_t)total + 1, sizeof(*got));
	for (int p = 0; p < procs && got; p++) {
		char path[600], key[64];
		long long id;
		int r;
		FILE *f;

		snprintf(path, sizeof(path), "%s/p%d.txt", dir, p);
		if (!(f = fopen(path, "r")))
			continue;
		while (ngot < (size_t)total && fscanf(f, "%63s %lld %d", key, &id, &r) == 3) {
			snprintf(got[ngot].key, sizeof(got[ngot].key), "%s", key);
			got[ngot++].run_id = id;
			caller_retries += r;
		}
		fclose(f);
		unlink(path);
	}
	rmdir(dir);
	qsort(got, ngot, sizeof(*got), cmp_key);

	/* What the workspace has: one run per key, the run the caller got. */
	runs = fakews_call(fw, "GET", "/__fakews/runs", NULL);
	nruns = json_array_size(json_object_get(runs, "runs"));
	{
		result *have = calloc(nruns + 1, sizeof(*have));
		for (size_t i = 0; i < nruns && have; i++) {
			json_t *r = json_array_get(json_object_get(runs, "runs"), i);
			const char *tok = json_string_value(json_object_get(r, "idempotency_token"));
			snprintf(have[i].key, sizeof(have[i].key), "%s", tok ? tok : "");
			have[i].run_id = json_integer_value(json_object_get(json_object_get(r, "run"), "run_id"));
		}
		if (have)
			qsort(have, nruns, sizeof(*have), cmp_key);
		for (size_t i = 1; i < nruns && have; i++)
			dups += strcmp(have[i].key, have[i - 1].key) == 0;
		for (size_t i = 0; i < ngot && have; i++) {
			result *h = bsearch(&got[i], have, nruns, sizeof(*have), cmp_key);
			if (got[i].run_id == 0 || !h)
				lost++;
			else if (h->run_id != got[i].run_id)
				mismatched++;
		}
		free(have);
	}
	lost += total - (int)ngot;
	printf("soak submit: %d submissions from %d processes x %d threads in %.1f s\n", total, procs,
	       threads, now_s() - t0);
	printf("soak submit: runs created %zu (expected %d), duplicates %d, lost %d, "
	       "mismatched %d, crashed processes %d\n",
	       nruns, total, dups, lost, mismatched, crashed);
	printf("soak submit: submissions the caller repeated with the same key: %d\n", caller_retries);
	rules = fakews_call(fw, "GET", "/__fakews/faults", NULL);
	{
		long long per[NFAULTS] = {0}, all = 0;
		json_t *list = json_object_get(rules, "faults");
		for (size_t i = 0; i < json_array_size(list); i++)
			per[i % NFAULTS] += json_integer_value(json_object_get(json_array_get(list, i), "applied"));
		printf("soak submit: faults applied:");
		for (int f = 0; f < NFAULTS; f++) {
			printf("%s %s %lld", f ? "," : "", faults[f].name, per[f]);
			all += per[f];
		}
		printf(" (total %lld)\n", all);
	}
	reqs = NULL;
	json_decref(rules);
	json_decref(runs);
	json_decref(reqs);
	free(got);
	fakews_stop(fw);
	if (crashed || unfinished || dups || lost || mismatched || nruns != (size_t)total) {
		printf("soak submit: FAILED\n");
		return 1;
	}
	printf("soak submit: ok\n");
	return 0;
}

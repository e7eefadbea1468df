/*
 * soak_logs.c: every log record delivered once, in order, while the log
 * endpoint misbehaves.
 *
 * R runs are RUNNING for D seconds on the fake workspace, each writing N
 * records "seq <i>" spread over that time (they become visible as time
 * passes). One thread per run follows it with air_client_stream_logs()
 * while random faults hit the log pages: 503 and 500 errors (pages fail),
 * resets before and after the reply, stale replies of an earlier page of
 * the same run (pages repeat), replies held past the inactivity timeout
 * (pages time out), truncated and trickled bodies. Small pages (100
 * records) make many of them.
 *
 * Passes when every stream ends without error and each run's records came
 * exactly once and in order (seq 0, 1, ..., N-1). Prints the figures.
 *
 * Usage: soak_logs [RUNS [RECORDS [SECONDS]]]; without arguments
 * $AIR_SOAK_LOG_RUNS (default 6) runs of 1500 records over 4 s.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <air/air.h>

#include "fakews.h"

#define LOGS_PATH "/api/2.0/ai-training/workflows/by-run-id/*"

static const struct fault {
	const char *name;
	const char *rule;
} faults[] = {
	{"503", "\"status\":503,\"probability\":0.06,\"body\":{\"error_code\":\"TEMPORARILY_UNAVAILABLE\","
	        "\"message\":\"busy\"}"},
	{"500", "\"status\":500,\"probability\":0.03,\"body\":{\"error_code\":\"INTERNAL_ERROR\","
	        "\"message\":\"oops\"}"},
	{"reset before reply", "\"action\":\"reset_before\",\"probability\":0.03"},
	{"reply lost (reset_after)", "\"action\":\"reset_after\",\"probability\":0.03"},
	{"stale page repeated", "\"action\":\"repeat\",\"probability\":0.08"},
	{"held past the inactivity timeout", "\"action\":\"delay\",\"delay_ms\":1600,"
	                                     "\"probability\":0.01"},
	{"truncated body", "\"action\":\"truncate\",\"probability\":0.03"},
	{"trickled body", "\"action\":\"trickle\",\"chunk_bytes\":512,\"interval_ms\":5,"
	                  "\"probability\":0.03"},
};
enum { NFAULTS = sizeof(faults) / sizeof(faults[0]) };

typedef struct follower {
	pthread_t thread;
	air_client *client;
	int64_t run_id;
	int64_t records;
	/* outcome */
	int64_t next;          /* the seq expected next */
	int64_t delivered, out_of_order, foreign;
	int rc;
	char error[512];
} follower;

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int on_record(const air_log_record *rec, void *ud)
{
	follower *f = ud;
	size_t len;
	const char *line = air_log_record_line(rec, &len);
	long long seq;
	char tail;

	f->delivered++;
	if (sscanf(line, "seq %lld%c", &seq, &tail) != 1) {
		f->foreign++;
		return 0;
	}
	if (seq != f->next)
		f->out_of_order++;
	f->next = seq + 1;
	return 0;
}

static void *follow(void *arg)
{
	follower *f = arg;
	air_logs_options *o = NULL;
	air_logs_summary *sum = NULL;
	air_error *err = NULL;

	f->rc = air_logs_options_new(&o);
	if (f->rc == AIR_OK)
		f->rc = air_logs_options_set_int(o, AIR_LOGS_POLL_INTERVAL_MS, 50);
	if (f->rc == AIR_OK)
		f->rc = air_logs_options_set_int(o, AIR_LOGS_MAX_PAGE_FAILURES, 1000000);
	if (f->rc == AIR_OK)
		f->rc = air_logs_options_set_record_cb(o, on_record, f);
	if (f->rc == AIR_OK)
		f->rc = air_client_stream_logs(f->client, f->run_id, o, &sum, &err);
	if (f->rc != AIR_OK)
		snprintf(f->error, sizeof(f->error), "%s", err ? air_error_message(err) : air_strerror(f->rc));
	air_error_free(err);
	air_logs_summary_free(sum);
	air_logs_options_free(o);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *env_r = getenv("AIR_SOAK_LOG_RUNS");
	int runs = argc > 1 ? atoi(argv[1]) : env_r ? atoi(env_r) : 6;
	int64_t records = argc > 2 ? atoll(argv[2]) : 1500;
	int seconds = argc > 3 ? atoi(argv[3]) : 4;
	follower *f;
	fakews *fw;
	air_client_options *opts = NULL;
	air_client *c = NULL;
	air_error *err = NULL;
	struct timespec wall;
	int64_t start_ns, delivered = 0, bad = 0;
	int failed = 0;
	json_t *rules;
	double t0;

	if (runs < 1 || runs > 256 || records < 1 || seconds < 1) {
		fprintf(stderr, "usage: soak_logs [RUNS<=256 [RECORDS [SECONDS]]]\n");
		return 2;
	}
	f = calloc((size_t)runs, sizeof(*f));
	fw = fakews_start();
	fakews_configf(fw, "{\"record_requests\":false,\"logs_page_size\":100}");
	if (!f || air_client_options_new(&opts) != AIR_OK ||
	    air_client_options_set_str(opts, AIR_OPT_HOST, fakews_url(fw)) != AIR_OK ||
	    air_client_options_set_str(opts, AIR_OPT_TOKEN, "dapi-test") != AIR_OK ||
	    air_client_options_set_int(opts, AIR_OPT_USE_ENVIRONMENT, 0) != AIR_OK ||
	    air_client_options_set_int(opts, AIR_OPT_RETRY_BACKOFF_MS, 10) != AIR_OK ||
	    air_client_options_set_int(opts, AIR_OPT_INACTIVITY_TIMEOUT_MS, 1000) != AIR_OK ||
	    air_client_options_set_int(opts, AIR_OPT_RATE_LIMIT, 0) != AIR_OK ||
	    air_client_new(opts, &c, &err) != AIR_OK) {
		fprintf(stderr, "soak: cannot start: %s\n", err ? air_error_message(err) : "");
		return 1;
	}
	air_client_options_free(opts);
	for (int fl = 0; fl < NFAULTS; fl++)
		fakews_faultf(fw, "{\"path\":\"%s\",\"times\":-1,\"seed\":%d,%s}", LOGS_PATH, fl + 1,
		              faults[fl].rule);
	/* Runs RUNNING for @seconds from now; records spread over 90 % of it. */
	clock_gettime(CLOCK_REALTIME, &wall);
	start_ns = (int64_t)wall.tv_sec * 1000000000 + wall.tv_nsec + 50000000;
	for (int i = 0; i < runs; i++) {
		int64_t id = 1000 + 10 * i;
		f[i] = (follower){0, c, id, records, 0, 0, 0, 0, 0, ""};
		fakews_create_runf(fw, "{\"run_id\":%lld,\"tasks\":[{\"run_id\":%lld,\"ai_runtime_task\":"
		                       "{\"experiment\":\"soak\"}}],\"lifecycle\":{\"pending_ms\":0,"
		                       "\"running_ms\":%d,\"result\":\"SUCCESS\"}}",
		                   (long long)id, (long long)id + 1, seconds * 1000);
		{
			char path[64];
			snprintf(path, sizeof(path), "/__fakews/runs/%lld/logs", (long long)id);
			json_decref(fakews_callf(fw, "POST", path,
			                         "{\"synthetic\":{\"count\":%lld,\"start_ns\":%lld,"
			                         "\"step_ns\":%lld,\"text\":\"seq {i}\"}}",
			                         (long long)records, (long long)start_ns,
			                         (long long)seconds * 900000000 / records));
		}
	}
	t0 = now_s();
	for (int i = 0; i < runs; i++)
		pthread_create(&f[i].thread, NULL, follow, &f[i]);
	for (int i = 0; i < runs; i++) {
		pthread_join(f[i].thread, NULL);
		delivered += f[i].delivered;
		if (f[i].rc != AIR_OK || f[i].out_of_order || f[i].foreign ||
		    f[i].delivered != f[i].records || f[i].next != f[i].records) {
			failed++;
			bad += f[i].out_of_order + f[i].foreign;
			printf("soak logs: run %lld: %s delivered %lld of %lld, %lld out of order or "
			       "repeated, %lld foreign%s%s\n",
			       (long long)f[i].run_id, f[i].rc == AIR_OK ? "ok," : "FAILED,",
			       (long long)f[i].delivered, (long long)f[i].records,
			       (long long)f[i].out_of_order, (long long)f[i].foreign,
			       f[i].error[0] ? ": " : "", f[i].error);
		}
	}
	printf("soak logs: %d runs x %lld records followed for %.1f s: %lld delivered "
	       "(expected %lld), %lld out of order or repeated, %d runs failed\n",
	       runs, (long long)records, now_s() - t0, (long long)delivered,
	       (long long)records * runs, (long long)bad, failed);
	rules = fakews_call(fw, "GET", "/__fakews/faults", NULL);
	{
		json_t *list = json_object_get(rules, "faults");
		long long all = 0, seen = 0;
		printf("soak logs: faults applied to log pages:");
		for (size_t i = 0; i < json_array_size(list) && i < NFAULTS; i++) {
			long long n = json_integer_value(json_object_get(json_array_get(list, i), "applied"));
			printf("%s %s %lld", i ? "," : "", faults[i].name, n);
			all += n;
		}
		seen = json_integer_value(json_object_get(json_array_get(list, 0), "seen"));
		printf(" (total %lld of %lld page requests)\n", all, seen);
	}
	json_decref(rules);
	air_client_free(c);
	fakews_stop(fw);
	free(f);
	printf("soak logs: %s\n", failed ? "FAILED" : "ok");
	return failed ? 1 : 0;
}

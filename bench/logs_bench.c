/*
 * logs_bench.c: throughput and memory of air_client_stream_logs().
 *
 * A fake workspace serves a followed (RUNNING) run with 100 000 and then
 * 1 000 000 synthetic records, read through the record callback
 * (air_client_stream_logs()) and through the iterator (air_log_iter_next()). Following is what streams without bound: a
 * finished run only yields its tail (10 000 lines by default), and a tail of
 * a million would measure a buffer, not a stream. The record callback counts
 * and, at the last expected record, marks the run finished so that the next
 * poll drains the boundary second and ends the stream.
 *
 * For each size the same pages (ascending, the server's 1000-record pages)
 * are also fetched raw with air__http_do(), only looking for the page token,
 * which is the floor any client pays for the transfer. Reported per phase:
 * wall time, records/s, client CPU time, peak RSS of the phase (VmHWM after
 * resetting it through /proc/self/clear_refs; ru_maxrss when that is not
 * allowed). Each phase runs ROUNDS times, alternating with its raw
 * counterpart; the fastest round's wall time and the least CPU time of the
 * rounds count (the server and other load share the machine, and the CPU
 * time a process is charged varies with what else runs); RSS is the highest
 * of the rounds. The ratios are the stream's (and the iterator's) wall and
 * CPU time over the raw fetch's.
 *
 * A failure report (air_client_get_failure()) of a FAILED run of each size
 * whose log ends with a traceback reads a tail of the log: with the default
 * 5000 records and with the largest, 100 000. Its time and peak RSS show
 * what a report costs whatever the log's length. The last line is one JSON
 * object with every figure.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "transport/transport.h"
#include "bench_support.h"
#include "fakews.h"
#include "logs/logs.h"
#include "test.h"

#define START_NS 1700000000000000000LL
#define STEP_NS 1000000LL /* 1 ms apart: 1000 records share each second */
#define ROUNDS 5

typedef struct phase {
	double wall_s, cpu_s;
	long rss_kib;
	int64_t records;
} phase;

typedef struct counter {
	fakews *fw;
	int64_t run_id, expected, seen;
} counter;

/* The start of a measured phase: its peak RSS reset, its clocks read. */
static phase phase_start(void)
{
	phase p = {0};

	bench_reset_peak();
	p.wall_s = bench_now_s();
	p.cpu_s = bench_cpu_s();
	return p;
}

/* The end of it: wall and CPU time since the start, its peak RSS. */
static void phase_end(phase *p, bool per_phase)
{
	p->wall_s = bench_now_s() - p->wall_s;
	p->cpu_s = bench_cpu_s() - p->cpu_s;
	p->rss_kib = bench_peak_kib(per_phase);
}

static int64_t make_run(fakews *fw, int64_t n)
{
	char path[96], body[256];
	int64_t id;

	fakews_reset(fw);
	fakews_configf(fw, "{\"record_requests\":false}");
	id = fakews_create_runf(fw, "{\"start_time\":%lld,\"state\":{\"life_cycle_state\":\"RUNNING\"},"
	                            "\"tasks\":[{\"ai_runtime_task\":{\"experiment\":\"bench\"}}]}",
	                        START_NS / 1000000);
	snprintf(path, sizeof(path), "/__fakews/runs/%lld/logs", (long long)id);
	snprintf(body, sizeof(body),
	         "{\"synthetic\":{\"count\":%lld,\"start_ns\":%lld,\"step_ns\":%lld,"
	         "\"text\":\"step {i} loss=0.123456 lr=0.0001 tokens/s=123456\"}}",
	         (long long)n, START_NS, STEP_NS);
	json_decref(fakews_call(fw, "POST", path, body));
	return id;
}

static int count_record(const air_log_record *rec, void *ud)
{
	counter *c = ud;

	(void)rec;
	if (++c->seen == c->expected) {
		/* Everything arrived: let the run end so that the stream finishes. */
		char path[64];
		int64_t end_ms = (START_NS + c->expected * STEP_NS) / 1000000 + 1000;
		snprintf(path, sizeof(path), "/__fakews/runs/%lld", (long long)c->run_id);
		json_decref(fakews_callf(c->fw, "POST", path,
		                         "{\"state\":{\"life_cycle_state\":\"TERMINATED\",\"result_state\":"
		                         "\"SUCCESS\"},\"end_time\":%lld}",
		                         (long long)end_ms));
	}
	return 0;
}

static phase stream_phase(fakews *fw, int64_t n, bool per_phase)
{
	counter c = {fw, make_run(fw, n), n, 0};
	air_client *client = fakews_client(fw);
	air_logs_options *o = NULL;
	air_logs_summary *sum = NULL;
	air_error *err = NULL;
	phase p;
	int rc;

	air_logs_options_new(&o);
	air_logs_options_set_int(o, AIR_LOGS_POLL_INTERVAL_MS, 1);
	air_logs_options_set_record_cb(o, count_record, &c);
	p = phase_start();
	rc = air_client_stream_logs(client, c.run_id, o, &sum, &err);
	phase_end(&p, per_phase);
	p.records = air_logs_summary_records(sum);
	if (rc != AIR_OK || p.records != n) {
		fprintf(stderr, "stream of %lld records failed: %s (got %lld)\n", (long long)n,
		        err ? air_error_message(err) : air_strerror(rc), (long long)p.records);
		exit(1);
	}
	air_logs_summary_free(sum);
	air_logs_options_free(o);
	air_error_free(err);
	air_client_free(client);
	return p;
}

/* The same through the iterator: the records pulled one by one. */
static phase iter_phase(fakews *fw, int64_t n, bool per_phase)
{
	counter c = {fw, make_run(fw, n), n, 0};
	air_client *client = fakews_client(fw);
	air_logs_options *o = NULL;
	air_log_iter *it = NULL;
	const air_log_record *rec;
	air_error *err = NULL;
	phase p;
	int rc;

	air_logs_options_new(&o);
	air_logs_options_set_int(o, AIR_LOGS_POLL_INTERVAL_MS, 1);
	p = phase_start();
	rc = air_client_open_logs(client, c.run_id, o, &it, &err);
	while (rc == AIR_OK && (rc = air_log_iter_next(it, &rec, &err)) == AIR_OK)
		count_record(rec, &c);
	phase_end(&p, per_phase);
	p.records = air_logs_summary_records(air_log_iter_summary(it));
	if (rc != AIR_EDONE || p.records != n) {
		fprintf(stderr, "iterator over %lld records failed: %s (got %lld)\n", (long long)n,
		        err ? air_error_message(err) : air_strerror(rc), (long long)p.records);
		exit(1);
	}
	air_log_iter_free(it);
	air_logs_options_free(o);
	air_error_free(err);
	air_client_free(client);
	return p;
}

/* A FAILED run of @n records whose last lines are a traceback. */
static int64_t make_failed_run(fakews *fw, int64_t n)
{
	int64_t end_ns = START_NS + n * STEP_NS, id = make_run(fw, n);
	char path[96];

	snprintf(path, sizeof(path), "/__fakews/runs/%lld", (long long)id);
	json_decref(fakews_callf(fw, "POST", path,
	                         "{\"state\":{\"life_cycle_state\":\"TERMINATED\",\"result_state\":"
	                         "\"FAILED\"},\"end_time\":%lld}",
	                         (long long)(end_ns / 1000000 + 1000)));
	snprintf(path, sizeof(path), "/__fakews/runs/%lld/logs", (long long)id);
	json_decref(fakews_callf(fw, "POST", path,
	                         "{\"records\":[{\"time_unix_nano\":%lld,\"body\":\"Traceback (most "
	                         "recent call last):\"},{\"time_unix_nano\":%lld,\"body\":\"  File "
	                         "\\\"train.py\\\", line 1\"},{\"time_unix_nano\":%lld,\"body\":"
	                         "\"ValueError: end\"}]}",
	                         (long long)end_ns, (long long)end_ns + 1, (long long)end_ns + 2));
	return id;
}

/* The failure report of such a run, reading the last @scan records. */
static phase failure_phase(fakews *fw, int64_t n, int32_t scan, bool per_phase)
{
	int64_t id = make_failed_run(fw, n);
	air_client *client = fakews_client(fw);
	air_failure_options *o = NULL;
	air_failure *f = NULL;
	air_error *err = NULL;
	phase p;
	int rc;

	air_failure_options_new(&o);
	air_failure_options_set_int(o, AIR_FAILURE_SCAN_LINES, scan);
	p = phase_start();
	rc = air_client_get_failure(client, id, o, &f, &err);
	phase_end(&p, per_phase);
	p.records = scan;
	if (rc != AIR_OK || air_failure_excerpt_kind(f) != AIR_EXCERPT_TRACEBACK) {
		fprintf(stderr, "failure report of %lld records failed: %s\n", (long long)n,
		        err ? air_error_message(err) : air_strerror(rc));
		exit(1);
	}
	air_failure_free(f);
	air_failure_options_free(o);
	air_error_free(err);
	air_client_free(client);
	return p;
}

/* Keep the fastest round's wall time, the least CPU time and the highest
 * peak RSS. */
static void keep_best(phase *best, phase p, int round)
{
	long rss = round && best->rss_kib > p.rss_kib ? best->rss_kib : p.rss_kib;
	double cpu = round && best->cpu_s < p.cpu_s ? best->cpu_s : p.cpu_s;

	if (!round || p.wall_s < best->wall_s)
		*best = p;
	best->rss_kib = rss;
	best->cpu_s = cpu;
}

/* The same page chain without parsing records: only the token is looked up. */
static phase raw_phase(fakews *fw, int64_t n, bool per_phase)
{
	int64_t id = make_run(fw, n);
	air_client *client = fakews_client(fw);
	char path[96], *token = NULL;
	phase p;

	snprintf(path, sizeof(path), "/api/2.0/ai-training/workflows/by-run-id/%lld/logs", (long long)id);
	p = phase_start();
	do {
		air__buf q = AIR__BUF_INIT;
		air__http_req req = {0};
		air__http_resp resp = AIR__HTTP_RESP_INIT;
		const char *k, *v, *end;

		air__logs_query(&q, &(air__log_query){.attempt = -1, .ascending = true,
		                                      .from = START_NS / 1000000000, .token = token});
		req.method = "GET";
		req.path = path;
		req.query = air__buf_cstr(&q);
		if (air__http_do(client, NULL, &req, &resp, NULL) != AIR_OK || !resp.body) {
			fprintf(stderr, "raw fetch failed\n");
			exit(1);
		}
		free(token);
		token = NULL;
		k = strstr(resp.body, "\"next_page_token\"");
		v = k ? strchr(k + 17, '"') : NULL;
		end = v ? strchr(v + 1, '"') : NULL;
		if (end)
			token = strndup(v + 1, (size_t)(end - v - 1));
		air__http_resp_clear(&resp);
		air__buf_dispose(&q);
	} while (token);
	phase_end(&p, per_phase);
	p.records = n;
	air_client_free(client);
	return p;
}

int main(void)
{
	static const int64_t sizes[2] = {100000, 1000000};
	static const int32_t scans[2] = {5000, 100000};
	phase st[2], it[2], raw[2], fail[2][2];
	bool per_phase = bench_reset_peak();
	fakews *fw;

	setenv("FAKEWS_PY", AIR_BENCH_FAKEWS, 0);
	setenv("PYTHON", AIR_BENCH_PYTHON, 0);
	fw = fakews_start();
	for (int i = 0; i < 2; i++) {
		for (int r = 0; r < ROUNDS; r++) {
			keep_best(&raw[i], raw_phase(fw, sizes[i], per_phase), r);
			keep_best(&st[i], stream_phase(fw, sizes[i], per_phase), r);
			keep_best(&it[i], iter_phase(fw, sizes[i], per_phase), r);
			for (int k = 0; k < 2; k++)
				keep_best(&fail[i][k], failure_phase(fw, sizes[i], scans[k], per_phase), r);
		}
		printf("%8lld records: stream %.2f s (%.0f records/s, client CPU %.2f s, peak RSS %ld KiB); "
		       "iterator %.2f s (client CPU %.2f s, peak RSS %ld KiB); "
		       "raw fetch %.2f s (client CPU %.2f s, peak RSS %ld KiB); "
		       "ratio %.3f, CPU ratio %.2f (iterator %.3f, %.2f)\n",
		       (long long)sizes[i], st[i].wall_s, (double)sizes[i] / st[i].wall_s, st[i].cpu_s,
		       st[i].rss_kib, it[i].wall_s, it[i].cpu_s, it[i].rss_kib, raw[i].wall_s,
		       raw[i].cpu_s, raw[i].rss_kib, st[i].wall_s / raw[i].wall_s,
		       st[i].cpu_s / raw[i].cpu_s, it[i].wall_s / raw[i].wall_s,
		       it[i].cpu_s / raw[i].cpu_s);
		for (int k = 0; k < 2; k++)
			printf("%8lld records: failure report of the last %d: %.3f s (client CPU %.3f s, "
			       "peak RSS %ld KiB)\n",
			       (long long)sizes[i], (int)scans[k], fail[i][k].wall_s, fail[i][k].cpu_s,
			       fail[i][k].rss_kib);
	}
	printf("peak RSS measured %s\n", per_phase ? "per phase (VmHWM reset through clear_refs)"
	                                           : "for the whole process (ru_maxrss)");
	printf("{\"bench\":\"logs\",\"rss_per_phase\":%s", per_phase ? "true" : "false");
	for (int i = 0; i < 2; i++)
		printf(",\"records_%lld\":{\"stream_s\":%.3f,\"records_per_s\":%.0f,\"stream_cpu_s\":%.3f,"
		       "\"stream_rss_kib\":%ld,\"iter_s\":%.3f,\"iter_cpu_s\":%.3f,\"iter_rss_kib\":%ld,"
		       "\"raw_s\":%.3f,\"raw_cpu_s\":%.3f,\"raw_rss_kib\":%ld,"
		       "\"ratio\":%.3f,\"cpu_ratio\":%.3f,\"iter_ratio\":%.3f,\"iter_cpu_ratio\":%.3f}",
		       (long long)sizes[i], st[i].wall_s, (double)sizes[i] / st[i].wall_s, st[i].cpu_s,
		       st[i].rss_kib, it[i].wall_s, it[i].cpu_s, it[i].rss_kib, raw[i].wall_s,
		       raw[i].cpu_s, raw[i].rss_kib, st[i].wall_s / raw[i].wall_s,
		       st[i].cpu_s / raw[i].cpu_s, it[i].wall_s / raw[i].wall_s,
		       it[i].cpu_s / raw[i].cpu_s);
	for (int i = 0; i < 2; i++)
		for (int k = 0; k < 2; k++)
			printf(",\"failure_%lld_scan_%d\":{\"s\":%.3f,\"cpu_s\":%.3f,\"rss_kib\":%ld}",
			       (long long)sizes[i], (int)scans[k], fail[i][k].wall_s, fail[i][k].cpu_s,
			       fail[i][k].rss_kib);
	printf(",\"rss_growth_kib\":%ld}\n", st[1].rss_kib - st[0].rss_kib);
	fakews_stop(fw);
	return 0;
}

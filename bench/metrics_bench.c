/*
 * metrics_bench.c: throughput and memory of metric histories
 * (air_client_open_metric_history() + air_metric_iter_next()).
 *
 * One metric of 100 000 and then 1 000 000 points is read to its end, page
 * by page (the default page size, 10 000), from:
 * - the fake workspace (a finished run, a synthetic history served by the
 *   Python server as JSON, non-finite values none);
 * - a local workspace (a finished local run whose workload wrote the
 *   metrics file itself, 1 point per line).
 * Reported per phase: wall time, points/s, client CPU time and the peak RSS
 * of the phase (VmHWM after a reset through /proc/self/clear_refs;
 * ru_maxrss when that is not allowed), which stays flat from 100 000 to
 * 1 000 000 points when memory is bounded by a page. The fastest of ROUNDS
 * rounds counts, the highest RSS. The last line is one JSON object.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_support.h"
#include "fakews.h"
#include "test.h"

#define ROUNDS 3

typedef struct phase {
	double wall_s, cpu_s;
	long rss_kib;
} phase;

static void die(const char *what, const air_error *err)
{
	fprintf(stderr, "metrics_bench: %s: %s\n", what, err ? air_error_message(err) : "failed");
	exit(1);
}

/* Read metric "loss" of run @id to its end: it must have @n points. */
static phase read_history(air_client *c, int64_t id, int64_t n, bool per_phase)
{
	air_metric_iter *it = NULL;
	const air_metric_point *pt;
	air_error *err = NULL;
	int64_t seen = 0;
	phase p;
	double t0, c0;
	int rc;

	bench_reset_peak();
	t0 = bench_now_s();
	c0 = bench_cpu_s();
	rc = air_client_open_metric_history(c, id, "loss", NULL, &it, &err);
	while (rc == AIR_OK && (rc = air_metric_iter_next(it, &pt, &err)) == AIR_OK)
		seen++;
	p.wall_s = bench_now_s() - t0;
	p.cpu_s = bench_cpu_s() - c0;
	p.rss_kib = bench_peak_kib(per_phase);
	if (rc != AIR_EDONE || seen != n) {
		fprintf(stderr, "metrics_bench: run %lld: %lld of %lld points\n", (long long)id,
		        (long long)seen, (long long)n);
		die("history", err);
	}
	air_metric_iter_free(it);
	return p;
}

static void keep_best(phase *best, phase p, int round)
{
	long rss = round && best->rss_kib > p.rss_kib ? best->rss_kib : p.rss_kib;

	if (!round || p.wall_s < best->wall_s)
		*best = p;
	best->rss_kib = rss;
}

/* A finished run of the fake workspace whose loss has @n points. */
static int64_t fake_run(fakews *fw, int64_t n)
{
	char path[128];
	json_t *info;
	int64_t id;

	fakews_reset(fw);
	fakews_configf(fw, "{\"record_requests\":false}");
	id = fakews_create_runf(fw, "{\"start_time\":1700000000000,\"tasks\":[{\"ai_runtime_task\":"
	                            "{\"experiment\":\"bench\"}}]}");
	info = fakews_run(fw, id);
	snprintf(path, sizeof(path), "/__fakews/mlflow/%s/metrics",
	         json_string_value(json_object_get(json_object_get(info, "mlflow"), "run_id")));
	json_decref(info);
	json_decref(fakews_callf(fw, "POST", path, "{\"synthetic\":{\"key\":\"loss\",\"count\":%lld}}",
	                         (long long)n));
	return id;
}

/* A finished local run whose workload wrote @n points of loss. */
static int64_t local_run(air_client *c, int64_t n)
{
	char yaml[1024];
	air_config *cfg = NULL;
	air_submission *sub = NULL;
	air_wait_options *w = NULL;
	air_run *run = NULL;
	air_error *err = NULL;
	int64_t id;

	snprintf(yaml, sizeof(yaml),
	         "experiment_name: bench\ncompute: {accelerator_type: GPU_1xA10, num_accelerators: 1}\n"
	         "command: |\n"
	         "  d=\"${MLFLOW_TRACKING_URI#file://}/$MLFLOW_EXPERIMENT_ID/$MLFLOW_RUN_ID/metrics\"\n"
	         "  awk 'BEGIN { for (i = 0; i < %lld; i++)"
	         " printf \"%%.0f %%.6g %%d\\n\", 1700000000000 + i, 1 / (i + 1), i }'"
	         " > \"$d/loss\"\n",
	         (long long)n);
	if (air_config_load_buffer(yaml, strlen(yaml), "bench.yaml", NULL, &cfg, &err) != AIR_OK)
		die("config", err);
	if (air_client_submit(c, cfg, NULL, &sub, &err) != AIR_OK)
		die("submit", err);
	id = air_submission_run_id(sub);
	air_wait_options_new(&w);
	air_wait_options_set_int(w, AIR_WAIT_POLL_INTERVAL_MS, 20);
	if (air_client_wait_run(c, id, w, &run, &err) != AIR_OK || !air_run_succeeded(run))
		die("local run", err);
	air_run_free(run);
	air_wait_options_free(w);
	air_submission_free(sub);
	air_config_free(cfg);
	return id;
}

int main(void)
{
	static const int64_t sizes[2] = {100000, 1000000};
	char dir[] = "/tmp/air-metrics-bench-XXXXXX", host[128], cmd[256];
	phase fake[2], local[2];
	bool per_phase = bench_reset_peak();
	air_client_options *lo = NULL;
	air_client *lc = NULL, *fc;
	air_error *err = NULL;
	fakews *fw;

	setenv("FAKEWS_PY", AIR_BENCH_FAKEWS, 0);
	setenv("PYTHON", AIR_BENCH_PYTHON, 0);
	setenv("AIR_LOCAL_SUPERVISOR", AIR_BENCH_SUPERVISOR, 0);
	fw = fakews_start();
	fc = fakews_client(fw);
	if (!mkdtemp(dir))
		die("mkdtemp", NULL);
	snprintf(host, sizeof(host), "local://%s", dir);
	if (air_client_options_new(&lo) != AIR_OK ||
	    air_client_options_set_str(lo, AIR_OPT_HOST, host) != AIR_OK ||
	    air_client_new(lo, &lc, &err) != AIR_OK)
		die("local client", err);
	for (int i = 0; i < 2; i++) {
		int64_t fid = fake_run(fw, sizes[i]), lid = local_run(lc, sizes[i]);

		for (int r = 0; r < ROUNDS; r++) {
			keep_best(&fake[i], read_history(fc, fid, sizes[i], per_phase), r);
			keep_best(&local[i], read_history(lc, lid, sizes[i], per_phase), r);
		}
		printf("%8lld points: fake workspace %.2f s (%.0f points/s, client CPU %.2f s, peak RSS "
		       "%ld KiB); local workspace %.2f s (%.0f points/s, CPU %.2f s, peak RSS %ld KiB)\n",
		       (long long)sizes[i], fake[i].wall_s, (double)sizes[i] / fake[i].wall_s,
		       fake[i].cpu_s, fake[i].rss_kib, local[i].wall_s,
		       (double)sizes[i] / local[i].wall_s, local[i].cpu_s, local[i].rss_kib);
	}
	printf("peak RSS measured %s\n", per_phase ? "per phase (VmHWM reset through clear_refs)"
	                                           : "for the whole process (ru_maxrss)");
	printf("{\"bench\":\"metrics\",\"rss_per_phase\":%s", per_phase ? "true" : "false");
	for (int i = 0; i < 2; i++)
		printf(",\"points_%lld\":{\"fake_s\":%.3f,\"fake_points_per_s\":%.0f,\"fake_cpu_s\":%.3f,"
		       "\"fake_rss_kib\":%ld,\"local_s\":%.3f,\"local_points_per_s\":%.0f,"
		       "\"local_cpu_s\":%.3f,\"local_rss_kib\":%ld}",
		       (long long)sizes[i], fake[i].wall_s, (double)sizes[i] / fake[i].wall_s,
		       fake[i].cpu_s, fake[i].rss_kib, local[i].wall_s,
		       (double)sizes[i] / local[i].wall_s, local[i].cpu_s, local[i].rss_kib);
	printf(",\"fake_rss_growth_kib\":%ld,\"local_rss_growth_kib\":%ld}\n",
	       fake[1].rss_kib - fake[0].rss_kib, local[1].rss_kib - local[0].rss_kib);
	air_client_free(lc);
	air_client_options_free(lo);
	air_client_free(fc);
	fakews_stop(fw);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "metrics_bench: could not remove %s\n", dir);
	return 0;
}

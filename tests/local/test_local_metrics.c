/*
 * test_local_metrics.c: the MLflow metrics of local runs (docs/local.md): the
 * file store a run gets (meta.yaml of the experiment and the run, the
 * nodes' MLFLOW_* variables), metrics a workload appends itself read back
 * through air_client_get_metrics() and histories (pages, system metrics
 * with '/', NaN and infinities, following a run to its end), keys that
 * could leave the store refused, links, FIFOs and overlong lines never
 * read, and the run's status at its end.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <air/air.h>

#include "local_support.h"
#include "test.h"

AIR_TEST_HOOKS(NULL, local_end)

/* What each node learns about the store, and the line format of its metrics. */
#define STORE_SH                                                                      \
	"  d=\"${MLFLOW_TRACKING_URI#file://}/$MLFLOW_EXPERIMENT_ID/$MLFLOW_RUN_ID\"\n"   \
	"  echo \"uri=$MLFLOW_TRACKING_URI\"; echo \"exp=$MLFLOW_EXPERIMENT_ID\"\n"       \
	"  echo \"run=$MLFLOW_RUN_ID\"\n"                                                 \
	"  point() { mkdir -p \"$d/metrics/$(dirname \"$1\")\";"                          \
	" echo \"$(date +%%s)000 $2 $3\" >> \"$d/metrics/$1\"; }\n"

static char *read_text(const char *path)
{
	char *text = air_test_read_file(path, NULL);

	if (!text)
		FAIL("cannot read %s", path);
	return text;
}

static int64_t run_yaml(air_client *c, const char *script)
{
	char yaml[4096];
	air_config *cfg;
	int64_t id;

	snprintf(yaml, sizeof(yaml),
	         "experiment_name: metrics-local\nmlflow_run_name: lr-01\n"
	         "compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}\n"
	         "command: |\n" STORE_SH "%s",
	         script);
	cfg = local_config(yaml, NULL);
	id = local_submit(c, cfg, NULL);
	air_config_free(cfg);
	return id;
}

/* "key:step=value" of each point. */
static char *history(air_client *c, int64_t id, const char *key, const air_metrics_options *o)
{
	static char text[8192];
	air_metric_iter *it = NULL;
	const air_metric_point *pt;
	air_error *err = NULL;
	int rc;

	text[0] = '\0';
	ASSERT_OK(air_client_open_metric_history(c, id, key, o, &it, &err), err);
	while ((rc = air_metric_iter_next(it, &pt, &err)) == AIR_OK) {
		size_t used = strlen(text);
		snprintf(text + used, sizeof(text) - used, "%s%s:%lld=%g", used ? " " : "",
		         air_metric_point_key(pt), (long long)air_metric_point_step(pt),
		         air_metric_point_value(pt));
	}
	ASSERT_OK(rc == AIR_EDONE ? AIR_OK : rc, err);
	air_metric_iter_free(it);
	return text;
}

AIR_TEST(local_metrics__a_run_gets_a_file_store_its_workload_logs_into)
{
	const char *state;
	air_client *c = local_begin(&state);
	int64_t id = run_yaml(c, "  point loss 2.5 0; point loss 1.25 1; point loss 0.5 2\n"
	                         "  point system/gpu_0_utilization_percentage 87 0\n"
	                         "  point odd nan 0; point odd inf 1; point odd -inf 2\n"
	                         "  printf 'not a point\\n1700000000000 0.5 3\\n' >> \"$d/metrics/odd\"\n");
	air_run *run = local_wait(c, id);
	char *logs = local_logs(c, id, 0, -1), uri[4200], path[4200], *meta;
	air_metrics *m = NULL;
	air_error *err = NULL;
	char exp[64], run_id[64];

	ASSERT_EQ_STR(air_run_state_name(run), "SUCCESS");
	snprintf(exp, sizeof(exp), "%s", local_field(logs, "exp"));
	snprintf(run_id, sizeof(run_id), "%s", local_field(logs, "run"));
	snprintf(uri, sizeof(uri), "file://%s/mlruns", state);
	ASSERT_EQ_STR(local_field(logs, "uri"), uri);
	ASSERT_TRUE(!strncmp(exp, "local-", 6));

	/* The experiment and the run in MLflow's FileStore format. */
	snprintf(path, sizeof(path), "%s/mlruns/%s/meta.yaml", state, exp);
	meta = read_text(path);
	ASSERT_CONTAINS(meta, "name: metrics-local\n");
	ASSERT_CONTAINS(meta, "lifecycle_stage: active\n");
	ASSERT_CONTAINS(meta, "creation_time: ");
	free(meta);
	snprintf(path, sizeof(path), "%s/mlruns/%s/%s/meta.yaml", state, exp, run_id);
	meta = read_text(path);
	ASSERT_CONTAINS(meta, "run_name: lr-01\n");
	ASSERT_CONTAINS(meta, "source_type: 4\n");
	ASSERT_CONTAINS(meta, "artifact_uri: file://");
	/* The run ended: FINISHED (3) and an end time. */
	ASSERT_CONTAINS(meta, "status: 3\n");
	ASSERT_NOT_CONTAINS(meta, "end_time: null");
	free(meta);
	snprintf(path, sizeof(path), "%s/mlruns/%s/%s/tags/mlflow.runName", state, exp, run_id);
	meta = read_text(path);
	ASSERT_EQ_STR(meta, "lr-01");
	free(meta);

	/* The latest value of each metric: the last line of each file. */
	ASSERT_OK(air_client_get_metrics(c, id, NULL, &m, &err), err);
	ASSERT_EQ_INT(air_metrics_count(m), 3);
	ASSERT_EQ_STR(air_metrics_mlflow_run_id(m), run_id);
	ASSERT_EQ_STR(air_metrics_mlflow_status(m), "FINISHED");
	ASSERT_EQ_STR(air_metrics_key(m, 0), "loss");
	ASSERT_TRUE(air_metrics_value(m, 0) == 0.5);
	ASSERT_EQ_INT(air_metrics_step(m, 0), 2);
	ASSERT_TRUE(air_metrics_timestamp_ms(m, 0) > 1700000000000LL);
	ASSERT_EQ_STR(air_metrics_key(m, 1), "odd");
	ASSERT_TRUE(air_metrics_value(m, 1) == 0.5);
	ASSERT_EQ_INT(air_metrics_step(m, 1), 3);
	ASSERT_EQ_STR(air_metrics_key(m, 2), "system/gpu_0_utilization_percentage");
	ASSERT_TRUE(air_metrics_value(m, 2) == 87);
	air_metrics_free(m);

	/* Histories: one key, every key; lines that are not points are left out. */
	ASSERT_EQ_STR(history(c, id, "loss", NULL), "loss:0=2.5 loss:1=1.25 loss:2=0.5");
	ASSERT_EQ_STR(history(c, id, "odd", NULL), "odd:0=nan odd:1=inf odd:2=-inf odd:3=0.5");
	ASSERT_EQ_STR(history(c, id, NULL, NULL),
	              "loss:0=2.5 loss:1=1.25 loss:2=0.5 odd:0=nan odd:1=inf odd:2=-inf odd:3=0.5 "
	              "system/gpu_0_utilization_percentage:0=87");
	ASSERT_EQ_STR(history(c, id, "system/gpu_0_utilization_percentage", NULL),
	              "system/gpu_0_utilization_percentage:0=87");
	ASSERT_EQ_STR(history(c, id, "never-logged", NULL), "");
	free(logs);
	air_run_free(run);
	local_check_supervisors(state);
}

AIR_TEST(local_metrics__histories_come_in_pages_and_keys_cannot_leave_the_store)
{
	const char *state;
	air_client *c = local_begin(&state);
	int64_t id = run_yaml(c, "  for i in $(seq 0 249); do echo \"17000000$i $i $i\"; done"
	                         " > \"$d/metrics/steps\"\n"
	                         "  printf '1 1 1' >> \"$d/metrics/steps\"\n");
	air_run *run = local_wait(c, id);
	air_metrics_options *o = NULL;
	air_metric_iter *it = NULL;
	const air_metric_point *pt;
	air_error *err = NULL;
	int64_t n = 0;
	int rc;

	ASSERT_EQ_STR(air_run_state_name(run), "SUCCESS");
	ASSERT_EQ_INT(air_metrics_options_new(&o), AIR_OK);
	ASSERT_EQ_INT(air_metrics_options_set_int(o, AIR_METRICS_PAGE_SIZE, 7), AIR_OK);
	ASSERT_OK(air_client_open_metric_history(c, id, "steps", o, &it, &err), err);
	while ((rc = air_metric_iter_next(it, &pt, &err)) == AIR_OK) {
		ASSERT_EQ_INT(air_metric_point_step(pt), n);
		ASSERT_TRUE(air_metric_point_value(pt) == (double)n);
		n++;
	}
	ASSERT_EQ_INT(rc, AIR_EDONE);
	/* The last line has no newline: it is still being written. */
	ASSERT_EQ_INT(n, 250);
	air_metric_iter_free(it);

	/* Keys that would name something outside the run's metrics. */
	{
		static const char *const bad[] = {"../meta", "/etc/passwd", "a/../../b", "a//b", "./x",
		                                  "x/"};
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			it = NULL;
			err = NULL;
			ASSERT_OK(air_client_open_metric_history(c, id, bad[i], o, &it, &err), err);
			ASSERT_EQ_INT(air_metric_iter_next(it, &pt, &err), AIR_EAPI);
			ASSERT_CONTAINS(air_error_message(err), "is not a metric key");
			air_error_free(err);
			air_metric_iter_free(it);
		}
	}
	air_metrics_options_free(o);
	air_run_free(run);
}

/* The peak resident size of this process, in KiB. */
static long peak_kib(void)
{
	struct rusage ru;

	ASSERT_EQ_INT(getrusage(RUSAGE_SELF, &ru), 0);
	return ru.ru_maxrss;
}

AIR_TEST(local_metrics__links_fifos_and_long_lines_are_never_read)
{
	const char *state;
	air_client *c = local_begin(&state);
	/* A point outside the store reached through links to a folder and to a
	 * file, FIFOs where metrics would be, and a 24 MiB line (a hole of the
	 * file: no disk) between two points. */
	int64_t id = run_yaml(c, "  o=\"$d/../../../outside\"; mkdir -p \"$o\" \"$d/metrics/sub\"\n"
	                         "  echo '1700000000000 666 0' > \"$o/ext\"\n"
	                         "  ln -s \"$o\" \"$d/metrics/linkdir\"\n"
	                         "  ln -s \"$o\" \"$d/metrics/sub/up\"\n"
	                         "  ln -s \"$o/ext\" \"$d/metrics/linkfile\"\n"
	                         "  mkfifo \"$d/metrics/fifo\" \"$d/metrics/sub/fifo\"\n"
	                         "  point sub/ok 3 0\n"
	                         "  printf '1700000000000 1 0\\n' > \"$d/metrics/long\"\n"
	                         "  truncate -s 24M \"$d/metrics/long\"\n"
	                         "  printf '\\n1700000000000 2 1\\n' >> \"$d/metrics/long\"\n");
	air_run *run = local_wait(c, id);
	static const char *const absent[] = {"linkdir/ext", "sub/up/ext", "linkfile", "fifo",
	                                     "sub/fifo"};
	air_metrics *m = NULL;
	air_error *err = NULL;
	long before;

	ASSERT_EQ_STR(air_run_state_name(run), "SUCCESS");
	for (size_t i = 0; i < sizeof(absent) / sizeof(absent[0]); i++)
		ASSERT_EQ_STR(history(c, id, absent[i], NULL), "");
	ASSERT_EQ_STR(history(c, id, "sub/ok", NULL), "sub/ok:0=3");

	/* The long line is passed over, never held whole. */
	before = peak_kib();
	ASSERT_EQ_STR(history(c, id, "long", NULL), "long:0=1 long:1=2");
	ASSERT_TRUE(peak_kib() - before < 8 * 1024);

	/* The latest values: the two regular files only. */
	ASSERT_OK(air_client_get_metrics(c, id, NULL, &m, &err), err);
	ASSERT_EQ_INT(air_metrics_count(m), 2);
	for (size_t i = 0; i < air_metrics_count(m); i++)
		ASSERT_TRUE(!strcmp(air_metrics_key(m, i), "long") ||
		            !strcmp(air_metrics_key(m, i), "sub/ok"));
	air_metrics_free(m);
	air_run_free(run);
}

/* Following: the workload logs a point, then waits for the test to ask for
 * the next one (a file the poll callback creates), three times. */
typedef struct pacer {
	const char *state;
	int polls;
} pacer;

static int next_point(const char *st, void *ud)
{
	pacer *p = ud;
	char path[4200];

	(void)st;
	snprintf(path, sizeof(path), "%s/go-%d", p->state, ++p->polls);
	air_test_write_file(path, "", 0);
	return 0;
}

AIR_TEST(local_metrics__following_a_run_delivers_each_point_once_until_it_ends)
{
	const char *state;
	air_client *c = local_begin(&state);
	char script[1024];
	air_metrics_options *o = NULL;
	pacer p = {NULL, 0};
	int64_t id;
	const char *got;

	snprintf(script, sizeof(script),
	         "  for i in 1 2 3; do point loss $i $i; point acc 0.$i $i\n"
	         "    while [ ! -e '%s'/go-$i ]; do sleep 0.05; done; done\n"
	         "  point loss 9 9\n",
	         state);
	id = run_yaml(c, script);
	p.state = state;
	ASSERT_EQ_INT(air_metrics_options_new(&o), AIR_OK);
	ASSERT_EQ_INT(air_metrics_options_set_int(o, AIR_METRICS_FOLLOW, 1), AIR_OK);
	ASSERT_EQ_INT(air_metrics_options_set_int(o, AIR_METRICS_POLL_INTERVAL_MS, 50), AIR_OK);
	ASSERT_EQ_INT(air_metrics_options_set_int(o, AIR_METRICS_PAGE_SIZE, 2), AIR_OK);
	ASSERT_EQ_INT(air_metrics_options_set_deadline_ms(o, LOCAL_PATIENCE_MS), AIR_OK);
	ASSERT_EQ_INT(air_metrics_options_set_poll_cb(o, next_point, &p), AIR_OK);
	got = history(c, id, "loss", o);
	ASSERT_EQ_STR(got, "loss:1=1 loss:2=2 loss:3=3 loss:9=9");
	ASSERT_TRUE(p.polls >= 3);
	air_metrics_options_free(o);
	air_run_free(local_wait(c, id));
}

AIR_TEST(local_metrics__a_failed_run_ends_its_mlflow_run_failed)
{
	const char *state;
	air_client *c = local_begin(&state);
	int64_t id = run_yaml(c, "  point loss 1 0; exit 3\n");
	air_run *run = local_wait(c, id);
	char *logs = local_logs(c, id, 0, -1), path[4200], *meta;
	air_metrics *m = NULL;
	air_error *err = NULL;

	ASSERT_EQ_STR(air_run_state_name(run), "FAILED");
	ASSERT_OK(air_client_get_metrics(c, id, NULL, &m, &err), err);
	ASSERT_EQ_STR(air_metrics_mlflow_status(m), "FAILED");
	ASSERT_EQ_INT(air_metrics_run_state(m), AIR_STATE_FAILED);
	ASSERT_EQ_INT(air_metrics_count(m), 1);
	snprintf(path, sizeof(path), "%s/mlruns/%s/%s/meta.yaml", state, local_field(logs, "exp"),
	         air_metrics_mlflow_run_id(m));
	meta = read_text(path);
	ASSERT_CONTAINS(meta, "status: 4\n");
	free(meta);
	free(logs);
	air_metrics_free(m);
	air_run_free(run);
}

/* test_list_cache.c: the on-disk list cache of finished runs against the
 * fake workspace: a second listing asks nothing about a run that was already
 * terminal, the files are private, a damaged entry is a miss, and
 * DATABRICKS_CACHE_ENABLED=false or AIR_LIST_CACHE 0 turn it off. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fixture.h"
#include "test.h"

static char cache_dir[1024];

static void setup(void)
{
	static int n;

	fixture_setup();
	snprintf(cache_dir, sizeof(cache_dir), "%s/list-cache-%d", air_test_tmpdir(), n++);
	setenv("DATABRICKS_CACHE_DIR", cache_dir, 1);
	setenv("DATABRICKS_CACHE_ENABLED", "true", 1);
}

AIR_TEST_HOOKS(setup, fixture_teardown)

#define ME "tester@databricks.com"
#define DONE "{\"life_cycle_state\":\"TERMINATED\",\"result_state\":\"SUCCESS\"}"
#define RUNNING "{\"life_cycle_state\":\"RUNNING\"}"
#define TASK "{\"run_id\":%lld,\"ai_runtime_task\":{\"experiment\":\"exp\",\"deployments\":[{" \
             "\"compute\":{\"accelerator_type\":\"GPU_1xH100\",\"accelerator_count\":1}}]}}"

/* The four runs of these tests: 1-3 finished, 4 running; run 1 has MLflow ids. */
static void create_runs(void)
{
	for (int64_t id = 1; id <= 4; id++)
		fakews_create_runf(fw, "{\"run_id\":%lld,\"start_time\":%lld,\"creator_user_name\":\"" ME
		                       "\",\"state\":%s,\"tasks\":[" TASK "]}",
		                   (long long)id, 1700000000000LL + id * 1000, id < 4 ? DONE : RUNNING,
		                   (long long)id * 10);
	fixture_post("/__fakews/runs/1/output",
	             "{\"ai_runtime_task_output\":{\"mlflow_experiment_id\":\"e1\",\"mlflow_run_id\":\"m1\"}}");
	fixture_post("/__fakews/mlflow", "{\"runs\":{\"m1\":{\"experiment_id\":\"e1\",\"run_name\":\"first\"}}}");
}

/* List with --all-status (and MLflow ids); the rows' names by id. */
static void list_all(int32_t cache, char names[5][32])
{
	air_list_options *o = NULL;
	air_run_iter *it = NULL;
	air_error *err = NULL;
	const air_run *run;
	int rc, n = 0;

	air_list_options_new(&o);
	air_list_options_set_int(o, AIR_LIST_ALL_STATUS, 1);
	air_list_options_set_int(o, AIR_LIST_MLFLOW, 1);
	if (cache >= 0)
		ASSERT_OK(air_list_options_set_int(o, AIR_LIST_CACHE, cache), NULL);
	ASSERT_OK(air_client_list_runs(client, o, &it, &err), err);
	while ((rc = air_run_iter_next(it, &run, &err)) == AIR_OK) {
		int64_t id = air_run_id(run);
		ASSERT_TRUE(id >= 1 && id <= 4);
		snprintf(names[id], 32, "%s", air_run_mlflow_run_name(run) ? air_run_mlflow_run_name(run) : "-");
		n++;
	}
	ASSERT_EQ_INT(rc, AIR_EDONE);
	ASSERT_EQ_INT(n, 4);
	air_run_iter_free(it);
	air_list_options_free(o);
}

/* Per-run requests about run @id: runs/get of it, runs/get-output of its
 * task run (id * 10). */
static int per_run_requests(int64_t id)
{
	json_t *reqs = fixture_requests("GET", "/api/2.2/jobs/runs/get*");
	char run[32], task[32];
	int n = 0;

	snprintf(run, sizeof(run), "%lld", (long long)id);
	snprintf(task, sizeof(task), "%lld", (long long)id * 10);
	for (size_t i = 0; i < json_array_size(reqs); i++) {
		const char *rid = fixture_query(json_array_get(reqs, i), "run_id");
		n += rid && (!strcmp(rid, run) || !strcmp(rid, task));
	}
	json_decref(reqs);
	return n;
}

/* The entry file of run @id (the only host folder under the cache). */
static void entry_path(int64_t id, char *out, size_t size)
{
	char runs[1100];
	DIR *d;
	struct dirent *de;

	snprintf(runs, sizeof(runs), "%s/air/runs", cache_dir);
	ASSERT_NOT_NULL(d = opendir(runs));
	out[0] = '\0';
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] != '.')
			snprintf(out, size, "%s/%s/%lld.json", runs, de->d_name, (long long)id);
	closedir(d);
	ASSERT_TRUE(out[0] != '\0');
}

AIR_TEST(list_cache__second_listing_asks_nothing_about_finished_runs)
{
	char first[5][32] = {{0}}, second[5][32] = {{0}}, path[1400];
	struct stat st;

	create_runs();
	list_all(-1, first);
	ASSERT_EQ_STR(first[1], "first");
	for (int64_t id = 1; id <= 4; id++)
		ASSERT_TRUE(per_run_requests(id) > 0);
	fakews_clear_requests(fw);
	list_all(-1, second);
	/* The finished runs come from the cache, MLflow ids and names included;
	 * the running one is read again. */
	for (int64_t id = 1; id <= 3; id++)
		ASSERT_EQ_INT(per_run_requests(id), 0);
	ASSERT_TRUE(per_run_requests(4) > 0);
	{
		json_t *ml = fixture_requests("GET", "/api/2.0/mlflow/runs/get");
		for (size_t i = 0; i < json_array_size(ml); i++)
			ASSERT_NE_INT(strcmp(fixture_query(json_array_get(ml, i), "run_id"), "m1"), 0);
		json_decref(ml);
	}
	for (int id = 1; id <= 4; id++)
		ASSERT_EQ_STR(second[id], first[id]);
	/* Private: 0600 files in a 0700 folder, keyed by run id. */
	entry_path(1, path, sizeof(path));
	ASSERT_EQ_INT(stat(path, &st), 0);
	ASSERT_EQ_INT(st.st_mode & 0777, 0600);
	*strrchr(path, '/') = '\0';
	ASSERT_EQ_INT(stat(path, &st), 0);
	ASSERT_EQ_INT(st.st_mode & 0777, 0700);
	entry_path(4, path, sizeof(path));
	ASSERT_NE_INT(stat(path, &st), 0); /* an active run is never kept */
}

AIR_TEST(list_cache__a_damaged_entry_is_a_miss)
{
	char names[5][32] = {{0}}, path[1400];
	FILE *f;

	create_runs();
	list_all(-1, names);
	entry_path(2, path, sizeof(path));
	ASSERT_NOT_NULL(f = fopen(path, "w"));
	fputs("{\"version\":1,\"run\":[tru", f);
	fclose(f);
	fakews_clear_requests(fw);
	list_all(-1, names);
	ASSERT_TRUE(per_run_requests(2) > 0);
	ASSERT_EQ_INT(per_run_requests(3), 0);
	/* ...and replaced by a good one. */
	fakews_clear_requests(fw);
	list_all(-1, names);
	ASSERT_EQ_INT(per_run_requests(2), 0);
}

AIR_TEST(list_cache__turned_off_by_the_environment_or_the_option)
{
	char names[5][32] = {{0}};

	create_runs();
	setenv("DATABRICKS_CACHE_ENABLED", "false", 1);
	list_all(-1, names);
	fakews_clear_requests(fw);
	list_all(-1, names);
	ASSERT_TRUE(per_run_requests(1) > 0);
	setenv("DATABRICKS_CACHE_ENABLED", "true", 1);
	list_all(0, names);
	fakews_clear_requests(fw);
	list_all(0, names);
	ASSERT_TRUE(per_run_requests(1) > 0);
	/* Neither wrote anything. */
	{
		char runs[1100];
		struct stat st;
		snprintf(runs, sizeof(runs), "%s/air", cache_dir);
		ASSERT_NE_INT(stat(runs, &st), 0);
	}
	ASSERT_EQ_INT(air_list_options_set_int(NULL, AIR_LIST_CACHE, 1), AIR_EINVAL);
}

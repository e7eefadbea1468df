/* test_list_cache.c: the on-disk list cache of finished runs against the
 * fake workspace: a second listing asks nothing about a run that was already
 * terminal, the files are private, a damaged entry is a miss, and
 * DATABRICKS_CACHE_ENABLED=false or AIR_LIST_CACHE 0 turn it off; a link
 * or a folder others can write is never used, a run still terminating is
 * not kept, a FIFO is a miss, left temporary files go, and past the bound
 * the lowest run ids go first. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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

/* A file @path holding @text, last changed @age_s seconds ago. */
static void write_aged(const char *path, const char *text, long age_s)
{
	struct timespec t[2];

	air_test_write_file(path, text, strlen(text));
	clock_gettime(CLOCK_REALTIME, &t[0]);
	t[0].tv_sec -= age_s;
	t[1] = t[0];
	ASSERT_EQ_INT(utimensat(AT_FDCWD, path, t, 0), 0);
}

/* The host folder of the cache, after a first listing made it. */
static void host_dir(char *out, size_t size)
{
	entry_path(1, out, size);
	*strrchr(out, '/') = '\0';
}

AIR_TEST(list_cache__a_planted_link_or_a_folder_others_can_write_is_never_used)
{
	char names[5][32] = {{0}}, host[1400], victim[1100], path[4096], runs[1100];
	struct stat st;

	create_runs();
	list_all(-1, names);
	host_dir(host, sizeof(host));
	/* The host folder replaced by a link to someone's folder with an old
	 * entry-like file: never written to, never pruned. */
	snprintf(victim, sizeof(victim), "%s/victim", air_test_tmpdir());
	ASSERT_EQ_INT(mkdir(victim, 0700), 0);
	snprintf(path, sizeof(path), "%s/9.json", victim);
	write_aged(path, "keep me", 100L * 24 * 3600);
	snprintf(path, sizeof(path), "rm -rf '%s' && ln -s '%s' '%s'", host, victim, host);
	ASSERT_EQ_INT(system(path), 0);
	fakews_clear_requests(fw);
	list_all(-1, names);
	ASSERT_TRUE(per_run_requests(1) > 0); /* no cache: the link is not followed */
	snprintf(path, sizeof(path), "%s/9.json", victim);
	ASSERT_EQ_INT(stat(path, &st), 0);
	snprintf(path, sizeof(path), "%s/1.json", victim);
	ASSERT_NE_INT(stat(path, &st), 0);
	/* A folder on the way that others may write to: not used either. */
	ASSERT_EQ_INT(unlink(host), 0);
	snprintf(runs, sizeof(runs), "%s/air/runs", cache_dir);
	ASSERT_EQ_INT(chmod(runs, 0777), 0);
	list_all(-1, names);
	ASSERT_NE_INT(stat(host, &st), 0);
	ASSERT_EQ_INT(chmod(runs, 0700), 0);
	list_all(-1, names);
	fakews_clear_requests(fw);
	list_all(-1, names);
	ASSERT_EQ_INT(per_run_requests(1), 0); /* an own, private folder again */
}

AIR_TEST(list_cache__a_run_still_terminating_is_not_kept)
{
	char names[5][32] = {{0}}, path[1400];
	struct stat st;

	create_runs();
	fakews_create_runf(fw, "{\"run_id\":5,\"start_time\":1700000009000,\"creator_user_name\":\""
	                       ME "\",\"state\":{\"life_cycle_state\":\"TERMINATING\",\"result_state\":"
	                       "\"CANCELED\"},\"tasks\":[" TASK "]}", 50LL);
	{
		air_list_options *o = NULL;
		air_run_iter *it = NULL;
		air_error *err = NULL;
		const air_run *run;
		int n = 0;

		air_list_options_new(&o);
		air_list_options_set_int(o, AIR_LIST_ALL_STATUS, 1);
		ASSERT_OK(air_client_list_runs(client, o, &it, &err), err);
		while (air_run_iter_next(it, &run, &err) == AIR_OK)
			n++;
		ASSERT_EQ_INT(n, 5);
		air_run_iter_free(it);
		air_list_options_free(o);
	}
	(void)names;
	entry_path(5, path, sizeof(path));
	ASSERT_NE_INT(stat(path, &st), 0); /* its result is known, its life cycle has not ended */
	entry_path(3, path, sizeof(path));
	ASSERT_EQ_INT(stat(path, &st), 0);
}

/* Whether @name is in folder @dir (as a regular file), as @there says. */
static void expect_file(const char *dir, const char *name, bool there)
{
	char path[1600];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (there != (lstat(path, &st) == 0 && S_ISREG(st.st_mode)))
		FAIL("%s: %s", name, there ? "missing, or not a regular file" : "still there");
}

AIR_TEST(list_cache__a_fifo_left_temporary_files_and_the_bound)
{
	char names[5][32] = {{0}}, host[1400], path[1500];

	create_runs();
	list_all(-1, names);
	host_dir(host, sizeof(host));
	/* A FIFO in an entry's place: a miss (not a wait), then a good entry. */
	snprintf(path, sizeof(path), "%s/2.json", host);
	ASSERT_EQ_INT(unlink(path), 0);
	ASSERT_EQ_INT(mkfifo(path, 0600), 0);
	/* What killed listings left: removed once an hour old. */
	snprintf(path, sizeof(path), "%s/7.json.tmp-0011223344556677", host);
	write_aged(path, "{", 2 * 3600);
	snprintf(path, sizeof(path), "%s/8.json.tmp-8899aabbccddeeff", host);
	write_aged(path, "{", 60);
	/* 1998 entries of other runs (higher ids here): with runs 1-3 that is
	 * 2001, and the lowest id goes. */
	for (int id = 1000; id < 2998; id++) {
		snprintf(path, sizeof(path), "%s/%d.json", host, id);
		air_test_write_file(path, "{}", 2);
	}
	fakews_clear_requests(fw);
	list_all(-1, names);
	ASSERT_TRUE(per_run_requests(2) > 0);
	expect_file(host, "7.json.tmp-0011223344556677", false);
	expect_file(host, "8.json.tmp-8899aabbccddeeff", true);
	expect_file(host, "1000.json", true);
	expect_file(host, "1.json", false);
	expect_file(host, "3.json", true);
	expect_file(host, "2.json", true); /* a regular file again */
}

/* Every entry a listing writes keeps the bound, not only its first; an
 * entry of the first version (which kept runs still terminating) is a miss. */
AIR_TEST(list_cache__every_write_keeps_the_bound_and_old_entries_are_misses)
{
	char names[5][32] = {{0}}, host[1400], path[1500];
	DIR *d;
	struct dirent *de;
	int n = 0;

	create_runs();
	list_all(-1, names);
	host_dir(host, sizeof(host));
	for (int id = 1; id <= 3; id++) {
		snprintf(path, sizeof(path), "%s/%d.json", host, id);
		ASSERT_EQ_INT(unlink(path), 0);
	}
	for (int id = 1000; id < 2999; id++) { /* 1999 others */
		snprintf(path, sizeof(path), "%s/%d.json", host, id);
		air_test_write_file(path, "{}", 2);
	}
	list_all(-1, names); /* writes runs 1-3 again: three entries */
	ASSERT_NOT_NULL(d = opendir(host));
	while ((de = readdir(d)) != NULL)
		n += strstr(de->d_name, ".json") != NULL;
	closedir(d);
	ASSERT_EQ_INT(n, 2000);
	expect_file(host, "1000.json", true);
	/* Version 1 wrote the same object: read now, it is a miss and replaced. */
	snprintf(path, sizeof(path), "%s/3.json", host);
	{
		struct timespec now;
		char text[256];
		clock_gettime(CLOCK_REALTIME, &now);
		snprintf(text, sizeof(text), "{\"version\":1,\"saved_ms\":%lld,\"run\":{\"run_id\":3,"
		         "\"state\":{\"life_cycle_state\":\"TERMINATING\",\"result_state\":\"SUCCESS\"}}}",
		         (long long)now.tv_sec * 1000);
		air_test_write_file(path, text, strlen(text));
	}
	fakews_clear_requests(fw);
	list_all(-1, names);
	ASSERT_TRUE(per_run_requests(3) > 0);
}

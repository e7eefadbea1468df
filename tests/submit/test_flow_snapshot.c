/* test_flow_snapshot.c: code snapshots through the whole submission — the
 * git-pinned snapshot and its cache (SCENARIOS S19), a plain directory
 * (S20), a Unity Catalog volume (S21), dirty trees and missing commits (S22)
 * and the snapshot problems that must stop a run before its first request. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "submit_test.h"
#include "test.h"

AIR_TEST_HOOKS(flow_setup, NULL)

#define U "/Workspace/Users/tester@databricks.com"
#define HEAD "experiment_name: smoke-test\ncommand: python train.py\n" \
             "compute: {accelerator_type: GPU_1xH100, num_accelerators: 1}\n"

/* The details of the snapshot phase's progress events, one per line (the
 * details are copied while they are valid: during the callback). */
static char snapshot_details[8192];

static int note_snapshot(const air_progress *ev, void *ud)
{
	size_t n = strlen(snapshot_details);

	(void)ud;
	if (air_progress_phase(ev) == AIR_PHASE_SNAPSHOT && air_progress_detail(ev))
		snprintf(snapshot_details + n, sizeof(snapshot_details) - n, "%s\n",
		         air_progress_detail(ev));
	return 0;
}

static int submit_in(const char *dir, const char *yaml, air_submission **sub, air_error **err)
{
	air_config *cfg = load_yaml(dir, "w.yaml", yaml);
	air_client *c = fakews_client(flow_fw);
	air_submit_options *o = NULL;
	int rc;

	snapshot_details[0] = '\0';
	ASSERT_EQ_INT(air_submit_options_new(&o), AIR_OK);
	ASSERT_EQ_INT(air_submit_options_set_progress_cb(o, note_snapshot, NULL), AIR_OK);
	rc = air_client_submit(c, cfg, o, sub, err);
	air_submit_options_free(o);
	air_client_free(c);
	air_config_free(cfg);
	return rc;
}

/* The last detail of the snapshot phase: where the archive went. */
static const char *last_snapshot_detail(void)
{
	static char last[sizeof(snapshot_details)];
	char *end = strrchr(snapshot_details, '\n'), *start;

	if (!end)
		return "";
	*end = '\0';
	start = strrchr(snapshot_details, '\n');
	snprintf(last, sizeof(last), "%s", start ? start + 1 : snapshot_details);
	*end = '\n';
	return last;
}

static air_submission *submit_ok_in(const char *dir, const char *yaml)
{
	air_submission *sub = NULL;
	air_error *err = NULL;

	ASSERT_OK(submit_in(dir, yaml, &sub, &err), err);
	return sub;
}

static char *fetch(const char *path, size_t *len)
{
	char *data = fakews_file(flow_fw, path, len);

	if (!data)
		FAIL("nothing at %s", path);
	return data;
}

static const char *csp_of_submit(void)
{
	static char buf[1024];
	json_t *body = last_body("POST", "/api/2.2/jobs/runs/submit");
	const char *v = json_string_value(json_object_get(
		json_object_get(json_array_get(json_object_get(body, "tasks"), 0), "ai_runtime_task"),
		"code_source_path"));

	snprintf(buf, sizeof(buf), "%s", v ? v : "");
	json_decref(body);
	return buf;
}

AIR_TEST(flow__git_pinned_snapshot_is_cached)
{
	const char *dir = air_test_tmpdir();
	const char *const files[] = {"train.py=print(1)\n", NULL};
	char repo[4200], yaml[1024], key[65], material[128], csp[512], want[2048];
	air_submission *sub;
	size_t len = 0;
	char *data, *state;
	tar_list l;
	json_t *st;

	snprintf(repo, sizeof(repo), "%s/repo", dir);
	snprintf(material, sizeof(material), "%s\n\nv1", git_repo(repo, files));
	sh("echo dirty >> '%s/train.py'", repo); /* irrelevant for a pinned commit */
	snprintf(yaml, sizeof(yaml), HEAD "code_source: {type: snapshot, snapshot: {root_path: ./repo, "
	         "git: {commit: %.40s}}}\n", material);
	snprintf(key, sizeof(key), "%s", sh_out("printf '%%s' '%s' | sha256sum | cut -c1-64", material));
	snprintf(csp, sizeof(csp), U "/.air/repo_snapshots/.internal/repo_%.16s.tar.gz", key);

	sub = submit_ok_in(dir, yaml);
	ASSERT_EQ_STR(air_submission_code_source_path(sub), csp);
	ASSERT_EQ_INT(air_submission_snapshot_reused(sub), 0);
	ASSERT_EQ_STR(csp_of_submit(), csp);
	/* the cache check precedes the upload (into a directory made on the 404) */
	snprintf(want, sizeof(want), "GET /api/2.0/workspace/get-status\n"
	         "POST /api/2.0/workspace-files/import-file%s\nPOST /api/2.0/workspace/mkdirs\n"
	         "POST /api/2.0/workspace-files/import-file%s\n", csp, csp);
	ASSERT_CONTAINS(request_log(), want);
	{
		json_t *req = fakews_last_request(flow_fw, "GET", "/api/2.0/workspace/get-status");
		snprintf(want, sizeof(want), "{\"path\":[\"%s\"],\"return_export_info\":[\"true\"]}", csp);
		assert_json_eq(json_incref(json_object_get(req, "query")), want);
		json_decref(req);
	}
	data = fetch(csp, &len);
	tar_read(data, len, &l);
	ASSERT_EQ_STR(tar_names(&l), "repo/,repo/train.py");
	ASSERT_EQ_STR(tar_find(&l, "repo/train.py")->data, "print(1)\n"); /* the commit, not the tree */
	tar_free(&l);
	free(data);
	/* provenance next to command.sh */
	snprintf(want, sizeof(want), "%s/git_state.json", air_submission_launch_dir(sub));
	state = fetch(want, &len);
	st = json_loads(state, 0, NULL);
	ASSERT_EQ_STR(json_string_value(json_object_get(st, "packaging_mode")), "git_archive");
	ASSERT_EQ_INT(strncmp(json_string_value(json_object_get(st, "tip_commit")), material, 40), 0);
	ASSERT_TRUE(json_is_true(json_object_get(st, "dirty")));
	ASSERT_EQ_STR(json_string_value(json_object_get(st, "diff_status")), "captured");
	json_decref(st);
	free(state);
	snprintf(want, sizeof(want), "%s/git_diff.patch", air_submission_launch_dir(sub));
	state = fetch(want, &len);
	ASSERT_CONTAINS(state, "+dirty");
	free(state);
	air_submission_free(sub);

	/* second submission: found, not uploaded again */
	fakews_clear_requests(flow_fw);
	sub = submit_ok_in(dir, yaml);
	ASSERT_EQ_INT(air_submission_snapshot_reused(sub), 1);
	ASSERT_EQ_STR(air_submission_code_source_path(sub), csp);
	ASSERT_EQ_STR(csp_of_submit(), csp);
	ASSERT_EQ_INT(fakews_count(flow_fw, "POST", "/api/2.0/workspace-files/import-file/*.tar.gz"), 0);
	ASSERT_EQ_INT(count_prefix("POST", "/api/2.0/workspace-files/import-file" U "/.air/repo_snapshots"), 0);
	air_submission_free(sub);
}

static const char *s20_tree(const char *dir)
{
	static char src[4200];
	char p[4300];

	snprintf(src, sizeof(src), "%s/src", dir);
	snprintf(p, sizeof(p), "%s/train.py", src);
	air_test_write_file(p, "print(2)\n", 9);
	snprintf(p, sizeof(p), "%s/data/big.bin", src);
	air_test_write_file(p, "0123456789", 10);
	snprintf(p, sizeof(p), "%s/.gitignore", src);
	air_test_write_file(p, "data/\n*.log\n", 12);
	snprintf(p, sizeof(p), "%s/x.log", src);
	air_test_write_file(p, "log", 3);
	return src;
}

AIR_TEST(flow__plain_directory_snapshot)
{
	const char *dir = air_test_tmpdir();
	air_submission *sub;
	const char *csp;
	size_t len = 0;
	char *data;
	tar_list l;

	s20_tree(dir);
	sub = submit_ok_in(dir, HEAD "code_source: {root_path: ./src}\n");
	csp = air_submission_code_source_path(sub);
	ASSERT_TRUE(has_prefix(csp, U "/.air/repo_snapshots/.internal/src_"));
	ASSERT_EQ_INT(strlen(csp), strlen(U "/.air/repo_snapshots/.internal/src_YYYYMMDD_HHMMSS.tar.gz"));
	ASSERT_EQ_INT(fakews_count(flow_fw, "GET", "/api/2.0/workspace/get-status"), 0);
	data = fetch(csp, &len);
	tar_read(data, len, &l);
	ASSERT_EQ_STR(tar_names(&l), "src/,src/.gitignore,src/train.py");
	tar_free(&l);
	free(data);
	/* not a git repository: no sidecars */
	ASSERT_NOT_CONTAINS(request_log(), "git_state.json");
	ASSERT_EQ_INT(count_prefix("POST", "/api/2.0/workspace-files/import-file/"), 4); /* 2 + 404 + retry */
	air_submission_free(sub);
}

AIR_TEST(flow__snapshot_to_a_volume)
{
	const char *dir = air_test_tmpdir();
	air_submission *sub;
	const char *csp;
	char want[512];

	s20_tree(dir);
	sub = submit_ok_in(dir, HEAD "code_source: {root_path: ./src, remote_volume: /Volumes/main/default/code}\n");
	csp = air_submission_code_source_path(sub);
	ASSERT_TRUE(has_prefix(csp, "/Volumes/main/default/code/.internal/src_"));
	ASSERT_EQ_STR(csp_of_submit(), csp);
	snprintf(want, sizeof(want), "/api/2.0/fs/files%s", csp);
	ASSERT_EQ_INT(fakews_count(flow_fw, "PUT", want), 1);
	{
		json_t *req = fakews_last_request(flow_fw, "PUT", want);
		/* created, never overwritten (a plain snapshot's name is not its content) */
		assert_json_eq(json_incref(json_object_get(req, "query")), "{}");
		json_decref(req);
	}
	/* only the two launch artifacts went through import-file */
	ASSERT_EQ_INT(count_prefix("POST", "/api/2.0/workspace-files/import-file/"), 2);
	air_submission_free(sub);
}

/* Archives under @dir named as plain-tar snapshots of "src" would be in
 * the coming minute ("src_<UTC second>.tar.gz"), each holding "OLD". */
static void occupy_plain_names(const char *dir)
{
	time_t now = time(NULL);

	for (time_t t = now - 1; t <= now + 60; t++) {
		char stamp[32], path[1024];
		struct tm tm;

		gmtime_r(&t, &tm);
		strftime(stamp, sizeof(stamp), "%Y%m%d_%H%M%S", &tm);
		snprintf(path, sizeof(path), "/__fakews/file?path=%s/src_%s.tar.gz", dir, stamp);
		json_decref(fakews_call(flow_fw, "POST", path, "OLD"));
	}
}

/* A plain-tar snapshot whose time-stamped name is taken goes to a name made
 * from its content, and the archive holding the name is left alone. */
static void expect_content_name(const char *dir, const char *yaml)
{
	const char *tmp = air_test_tmpdir();
	air_submission *sub;
	const char *csp;
	char official[1024], file[4200], want[64];
	size_t len = 0, n;
	char *data;
	tar_list l;

	s20_tree(tmp);
	occupy_plain_names(dir);
	sub = submit_ok_in(tmp, yaml);
	csp = air_submission_code_source_path(sub);
	air_test_note("code_source_path %s", csp);
	ASSERT_EQ_STR(csp_of_submit(), csp);
	/* the upload's progress names the new place, not the freed old name */
	ASSERT_EQ_STR(last_snapshot_detail(), csp);
	n = strlen(dir) + strlen("/src_YYYYMMDD_HHMMSS");
	ASSERT_EQ_INT(strlen(csp), n + strlen("_0123456789abcdef.tar.gz"));
	data = fetch(csp, &len);
	tar_read(data, len, &l);
	ASSERT_EQ_STR(tar_names(&l), "src/,src/.gitignore,src/train.py");
	tar_free(&l);
	snprintf(file, sizeof(file), "%s/archive.tar.gz", tmp);
	air_test_write_file(file, data, len);
	free(data);
	snprintf(want, sizeof(want), "_%s.tar.gz", sh_out("sha256sum '%s' | cut -c1-16", file));
	ASSERT_TRUE(has_suffix(csp, want));
	/* the archive that had the name still holds what it held */
	snprintf(official, sizeof(official), "%.*s.tar.gz", (int)n, csp);
	data = fetch(official, &len);
	ASSERT_EQ_INT(len, 3);
	ASSERT_EQ_INT(memcmp(data, "OLD", 3), 0);
	free(data);
	air_submission_free(sub);
}

AIR_TEST(flow__plain_snapshot_never_replaces_an_archive_with_its_name)
{
	expect_content_name(U "/.air/repo_snapshots/.internal", HEAD "code_source: {root_path: ./src}\n");
}

AIR_TEST(flow__plain_snapshot_on_a_volume_never_replaces_an_archive_with_its_name)
{
	expect_content_name("/Volumes/main/default/code/.internal",
	                    HEAD "code_source: {root_path: ./src, remote_volume: /Volumes/main/default/code}\n");
}

AIR_TEST(flow__volume_permission_error_names_the_file)
{
	const char *dir = air_test_tmpdir();
	air_submission *sub = NULL;
	air_error *err = NULL;

	s20_tree(dir);
	fakews_faultf(flow_fw, "{\"method\":\"PUT\",\"path\":\"/api/2.0/fs/files/*\",\"status\":403,"
	              "\"body\":{\"error_code\":\"PERMISSION_DENIED\",\"message\":\"no volume access\"}}");
	ASSERT_EQ_INT(submit_in(dir, HEAD "code_source: {root_path: ./src, remote_volume: /Volumes/main/default/code}\n",
	                        &sub, &err), AIR_EPERMISSION);
	ASSERT_NULL(sub);
	ASSERT_CONTAINS(air_error_message(err),
	                "permission denied writing volume file /Volumes/main/default/code/.internal/src_");
	ASSERT_CONTAINS(air_error_message(err), "no volume access");
	ASSERT_EQ_INT(fakews_count(flow_fw, "POST", "/api/2.2/jobs/runs/submit"), 0);
	air_error_free(err);
}

AIR_TEST(flow__experiment_directory_errors_name_the_directory)
{
	const char *dir = air_test_tmpdir();
	air_submission *sub = NULL;
	air_error *err = NULL;

	fakews_faultf(flow_fw, "{\"path\":\"/api/2.0/workspace/mkdirs\",\"status\":403,"
	              "\"body\":{\"error_code\":\"PERMISSION_DENIED\",\"message\":\"read only\"}}");
	ASSERT_EQ_INT(submit_in(dir, HEAD, &sub, &err), AIR_EPERMISSION);
	ASSERT_CONTAINS(air_error_message(err), "permission denied creating directory " U "/");
	ASSERT_CONTAINS(air_error_message(err), "read only");
	air_error_free(err);

	fakews_clear_faults(flow_fw);
	fakews_faultf(flow_fw, "{\"path\":\"/api/2.0/workspace/mkdirs\",\"status\":400,"
	              "\"body\":{\"error_code\":\"INVALID_PARAMETER_VALUE\",\"message\":\"bad path\"}}");
	err = NULL;
	ASSERT_EQ_INT(submit_in(dir, HEAD, &sub, &err), AIR_EAPI);
	ASSERT_CONTAINS(air_error_message(err), "creating directory " U "/");
	ASSERT_NOT_CONTAINS(air_error_message(err), "permission denied");
	ASSERT_EQ_INT(fakews_count(flow_fw, "POST", "/api/2.2/jobs/runs/submit"), 0);
	air_error_free(err);
}

AIR_TEST(flow__git_pinned_snapshot_on_a_volume_is_cached)
{
	const char *dir = air_test_tmpdir();
	const char *const files[] = {"a.py=1\n", NULL};
	char repo[4200], yaml[1024], sha[41];
	air_submission *sub;

	snprintf(repo, sizeof(repo), "%s/repo", dir);
	snprintf(sha, sizeof(sha), "%s", git_repo(repo, files));
	snprintf(yaml, sizeof(yaml), HEAD "code_source: {root_path: repo, remote_volume: /Volumes/c/s/v, "
	         "git: {branch: main}}\n");
	sub = submit_ok_in(dir, yaml);
	ASSERT_EQ_INT(air_submission_snapshot_reused(sub), 0);
	ASSERT_EQ_INT(count_prefix("HEAD", "/api/2.0/fs/directories/Volumes/c/s/v/.internal/repo_"), 1);
	ASSERT_EQ_INT(count_prefix("HEAD", "/api/2.0/fs/files/Volumes/c/s/v/.internal/repo_"), 1);
	ASSERT_EQ_INT(count_prefix("PUT", "/api/2.0/fs/files/Volumes/c/s/v/.internal/repo_"), 1);
	air_submission_free(sub);
	fakews_clear_requests(flow_fw);
	sub = submit_ok_in(dir, yaml);
	ASSERT_EQ_INT(air_submission_snapshot_reused(sub), 1);
	ASSERT_EQ_INT(count_prefix("PUT", "/api/2.0/fs/files/"), 0);
	air_submission_free(sub);
}

/* The run must stop before its first request. */
static void refused_before_any_request(const char *dir, const char *yaml, const char *needle)
{
	air_submission *sub = NULL;
	air_error *err = NULL;

	ASSERT_EQ_INT(submit_in(dir, yaml, &sub, &err), AIR_ESNAPSHOT);
	ASSERT_NULL(sub);
	ASSERT_CONTAINS(air_error_message(err), needle);
	ASSERT_EQ_STR(request_log(), "");
	air_error_free(err);
}

AIR_TEST(flow__dirty_tree_and_missing_git_objects)
{
	const char *dir = air_test_tmpdir();
	const char *const files[] = {"a.py=1\n", NULL};
	char repo[4200];

	snprintf(repo, sizeof(repo), "%s/repo", dir);
	git_repo(repo, files);
	sh("echo 2 > '%s/a.py'", repo);
	refused_before_any_request(dir, HEAD "code_source: {root_path: repo, git: {branch: main}}\n",
	                           "uncommitted");
	refused_before_any_request(dir, HEAD "code_source: {root_path: repo, git: {branch: nope}}\n", "nope");
	refused_before_any_request(dir, HEAD "code_source: {root_path: repo, git: {commit: deadbeef}}\n",
	                           "deadbeef");
	refused_before_any_request(dir, HEAD "code_source: {root_path: repo, git: {commit: HEAD}, "
	                           "include_paths: [a.py, missing]}\n", "missing");
}

AIR_TEST(flow__snapshot_problems_stop_before_any_request)
{
	const char *dir = air_test_tmpdir();
	char *src = strdup(s20_tree(dir));

	refused_before_any_request(dir, HEAD "code_source: {root_path: ./nothere}\n", "nothere");
	refused_before_any_request(dir, HEAD "code_source: {root_path: ./src, include_paths: [train.py, gone]}\n",
	                           "gone");
	refused_before_any_request(dir, HEAD "code_source: {root_path: ./src, git: {commit: abc}}\n",
	                           "not inside a git work tree");
	sh("ln -s ../../etc '%s/escape'", src);
	refused_before_any_request(dir, HEAD "code_source: {root_path: ./src}\n", "escape");
	free(src);
}

AIR_TEST(flow__unreadable_file_stops_before_any_request)
{
	const char *dir = air_test_tmpdir(), *text = HEAD "code_source: {root_path: ./src}\n";
	char yaml[4200];
	pid_t pid;
	int status = 0;

	sh("chmod 000 '%s/train.py'", s20_tree(dir));
	snprintf(yaml, sizeof(yaml), "%s/w.yaml", dir);
	air_test_write_file(yaml, text, strlen(text));
	if (!running_as_root()) {
		refused_before_any_request(dir, text, "train.py");
		return;
	}
	/* root reads anything: submit as an unprivileged user in a child */
	sh("chmod -R a+rX '%s/..' && chmod 000 '%s/src/train.py'", dir, dir);
	/* Its own temporary folder: $TMPDIR may be root's alone. */
	sh("mkdir -m 1777 '%s/tmp'", dir);
	pid = fork();
	if (pid == 0) {
		char tmp[4200];
		air_config *cfg = NULL;
		air_client *c;
		air_submission *sub = NULL;
		air_error *err = NULL;
		int rc;
		if (setgid(65534) != 0 || setuid(65534) != 0)
			_exit(77);
		snprintf(tmp, sizeof(tmp), "%s/tmp", dir);
		setenv("TMPDIR", tmp, 1);
		if (air_config_load_file(yaml, &cfg, NULL) != AIR_OK)
			_exit(2);
		c = fakews_client(flow_fw);
		rc = air_client_submit(c, cfg, NULL, &sub, &err);
		if (rc != AIR_ESNAPSHOT || !strstr(air_error_message(err), "train.py")) {
			fprintf(stderr, "child: %d %s\n", rc, err ? air_error_message(err) : "");
			rc = 1;
		} else {
			rc = 0;
		}
		air_error_free(err);
		air_submission_free(sub);
		air_client_free(c);
		air_config_free(cfg);
		_exit(rc);
	}
	ASSERT_TRUE(waitpid(pid, &status, 0) == pid);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 77)
		air_test_skip("cannot drop privileges to make a file unreadable");
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ_INT(WEXITSTATUS(status), 0);
	ASSERT_EQ_STR(request_log(), "");
}

AIR_TEST(flow__base_dir_option_resolves_a_relative_root)
{
	static const char yaml[] = HEAD "code_source: {root_path: src}\n";
	char dir[4096];
	air_config *cfg = NULL;
	air_client *c = fakews_client(flow_fw);
	air_submit_options *o = NULL;
	air_submission *sub = NULL;
	air_error *err = NULL;

	char cwd[4096];
	int rc;

	snprintf(dir, sizeof(dir), "%s", air_test_tmpdir()); /* its buffer is reused */
	s20_tree(dir);
	/* from memory: relative roots resolve against the current directory ... */
	ASSERT_EQ_INT(air_config_load_buffer(yaml, strlen(yaml), "mem.yaml", NULL, &cfg, NULL), AIR_OK);
	ASSERT_NOT_NULL(getcwd(cwd, sizeof(cwd)));
	ASSERT_EQ_INT(chdir(air_test_tmpdir()), 0); /* an empty one */
	rc = air_client_submit(c, cfg, NULL, &sub, &err);
	ASSERT_EQ_INT(chdir(cwd), 0);
	ASSERT_EQ_INT(rc, AIR_ESNAPSHOT);
	ASSERT_CONTAINS(air_error_message(err), "src");
	air_error_free(err);
	err = NULL;
	/* ... unless the submission names a base directory */
	ASSERT_EQ_INT(air_submit_options_new(&o), AIR_OK);
	ASSERT_EQ_INT(air_submit_options_set_str(o, AIR_SUBMIT_BASE_DIR, dir), AIR_OK);
	ASSERT_OK(air_client_submit(c, cfg, o, &sub, &err), err);
	ASSERT_TRUE(has_prefix(air_submission_code_source_path(sub), U "/.air/repo_snapshots/.internal/src_"));
	air_submission_free(sub);
	air_submit_options_free(o);
	air_client_free(c);
	air_config_free(cfg);
}

AIR_TEST(flow__a_big_snapshot_is_uploaded_from_a_file)
{
	const char *dir = air_test_tmpdir();
	char src[4200];
	air_submission *sub;
	json_t *files, *f;
	long before, after;
	int64_t size = 0;

	if (under_valgrind())
		air_test_skip("resident size under valgrind says nothing about the program");
	snprintf(src, sizeof(src), "%s/src", dir);
	big_tree(src, 64, 1);
	before = peak_rss_kib();
	sub = submit_ok_in(dir, HEAD "code_source: {root_path: ./src}\n");
	after = peak_rss_kib();
	files = fakews_call(flow_fw, "GET", "/__fakews/files", NULL);
	for (size_t i = 0; i < json_array_size(json_object_get(files, "files")); i++) {
		f = json_array_get(json_object_get(files, "files"), i);
		if (!strcmp(json_string_value(json_object_get(f, "path")),
		            air_submission_code_source_path(sub)))
			size = json_integer_value(json_object_get(f, "size"));
	}
	json_decref(files);
	air_test_note("uploaded %lld bytes; peak resident size %ld KiB -> %ld KiB", (long long)size,
	              before, after);
	ASSERT_TRUE(size > 64 << 20);
	ASSERT_TRUE(after - before < 24 * 1024);
	air_submission_free(sub);
}

/* test_artifacts.c: launch directory naming and the launch artifacts'
 * exact contents (docs/submit.md#launch-artifacts), and
 * the errors of parallel uploads (against the fake workspace). */
#include <stdlib.h>
#include <string.h>

#include "fakews.h"
#include "submit/snapshot.h"
#include "submit/submit.h"
#include "test.h"

AIR_TEST(artifacts__env_vars_sorted_compact)
{
	air__env_var env[] = {{"B", "2"}, {"A", "x"}, {"C_\xc3\xa9", "q\"uote"}};
	char *s = air__env_vars_json(env, 3);

	ASSERT_EQ_STR(s, "[{\"name\":\"A\",\"value\":\"x\"},{\"name\":\"B\",\"value\":\"2\"},"
	                 "{\"name\":\"C_\xc3\xa9\",\"value\":\"q\\\"uote\"}]");
	air__free(s);
	/* the input order is left alone */
	ASSERT_EQ_STR(env[0].name, "B");
}

AIR_TEST(artifacts__secret_vars_split_scope_key)
{
	air__secret_var sec[] = {{"Z", "s2/k2", "s2", "k2"}, {"HF_TOKEN", "my_scope/hf_token", "my_scope", "hf_token"}};
	char *s = air__secret_vars_json(sec, 2);

	ASSERT_EQ_STR(s, "[{\"name\":\"HF_TOKEN\",\"secret_scope\":\"my_scope\",\"secret_key\":\"hf_token\"},"
	                 "{\"name\":\"Z\",\"secret_scope\":\"s2\",\"secret_key\":\"k2\"}]");
	air__free(s);
}

AIR_TEST(artifacts__minimal_set_is_config_and_command)
{
	static const char yaml[] = "experiment_name: smoke-test\ncommand: python train.py\n";
	air__workload w;
	air__artifact a[AIR__MAX_ARTIFACTS];
	size_t n = 0;
	air_error *err = NULL;

	memset(&w, 0, sizeof(w));
	w.command = "python train.py";
	w.source_bytes = yaml;
	w.source_len = sizeof(yaml) - 1;
	ASSERT_OK(air__artifacts_build(&w, a, &n, &err), err);
	ASSERT_EQ_INT(n, 2);
	ASSERT_EQ_STR(a[0].name, "training_config.yaml");
	ASSERT_EQ_INT(a[0].len, sizeof(yaml) - 1);
	ASSERT_TRUE(memcmp(a[0].data, yaml, a[0].len) == 0);
	ASSERT_EQ_STR(a[1].name, "command.sh");
	ASSERT_EQ_INT(a[1].len, strlen("python train.py")); /* no shebang, no newline */
	ASSERT_TRUE(memcmp(a[1].data, "python train.py", a[1].len) == 0);
	air__artifacts_dispose(a, n);
}

AIR_TEST(artifacts__full_set_in_table_order)
{
	air__env_var env[] = {{"B", "2"}, {"A", "x"}};
	air__secret_var sec[] = {{"HF_TOKEN", "my_scope/hf_token", "my_scope", "hf_token"}};
	char params[] = "lr: 0.001\nmodel:\n  layers: 4\n";
	air__workload w;
	air__artifact a[AIR__MAX_ARTIFACTS];
	size_t n = 0;
	air_error *err = NULL;
	static const char *const names[] = {"training_config.yaml", "command.sh", "hyperparameters.yaml",
	                                    "env_vars.json", "secret_env_vars.json"};

	memset(&w, 0, sizeof(w));
	w.command = "echo $A\n";
	w.source_bytes = "x: 1\n";
	w.source_len = 5;
	w.parameters_yaml = params;
	w.env = env;
	w.n_env = 2;
	w.secrets = sec;
	w.n_secrets = 1;
	ASSERT_OK(air__artifacts_build(&w, a, &n, &err), err);
	ASSERT_EQ_INT(n, 5);
	for (size_t i = 0; i < n; i++)
		ASSERT_EQ_STR(a[i].name, names[i]);
	ASSERT_EQ_STR(a[1].data, "echo $A\n");
	ASSERT_EQ_STR(a[2].data, params);
	ASSERT_EQ_STR(a[3].data, "[{\"name\":\"A\",\"value\":\"x\"},{\"name\":\"B\",\"value\":\"2\"}]");
	ASSERT_EQ_STR(a[4].data,
	              "[{\"name\":\"HF_TOKEN\",\"secret_scope\":\"my_scope\",\"secret_key\":\"hf_token\"}]");
	air__artifacts_dispose(a, n);
}

AIR_TEST(artifacts__launch_dir_naming)
{
	char *d = air__launch_dir("/Workspace/Users/tester@databricks.com", "smoke-test", NULL,
	                          "0123456789abcdef");

	ASSERT_EQ_STR(d, "/Workspace/Users/tester@databricks.com/.air/cli_launch/smoke-test/"
	                 "smoke-test_0123456789abcdef");
	air__free(d);
	/* mlflow_run_name names the leaf; the base is cleaned like a POSIX path */
	d = air__launch_dir("/Workspace//Shared/team/", "exp", "run-1", "00ff00ff00ff00ff");
	ASSERT_EQ_STR(d, "/Workspace/Shared/team/.air/cli_launch/exp/run-1_00ff00ff00ff00ff");
	air__free(d);
}

AIR_TEST(artifacts__launch_suffix_is_fresh_hex)
{
	char a[17], b[17];

	ASSERT_EQ_INT(air__launch_suffix(a), AIR_OK);
	ASSERT_EQ_INT(air__launch_suffix(b), AIR_OK);
	ASSERT_EQ_INT(strlen(a), 16);
	ASSERT_EQ_INT(strspn(a, "0123456789abcdef"), 16);
	ASSERT_TRUE(strcmp(a, b) != 0);
	/* the 13th hex digit of a UUIDv4 is its version */
	ASSERT_EQ_INT(a[12], '4');
}

AIR_TEST(artifacts__path_clean)
{
	static const char *const cases[][2] = {
		{"/a//b/", "/a/b"}, {"/a/./b/../c", "/a/c"}, {"/../x", "/x"}, {"a/../..", ".."},
		{"", "."}, {"/", "/"}, {"a/b/../../c/", "c"}, {"//", "/"}, {"../a/./b", "../a/b"},
	};

	for (size_t i = 0; i < AIR__ARRAY_SIZE(cases); i++) {
		char *c = air__path_clean(cases[i][0]);
		ASSERT_EQ_STR(c, cases[i][1]);
		air__free(c);
	}
}

AIR_TEST(artifacts__import_file_url_one_segment)
{
	char *u = air__import_file_url("/Workspace/Users/tester@databricks.com/a b/c.yaml");

	ASSERT_EQ_STR(u, "/api/2.0/workspace-files/import-file/"
	                 "Workspace%2FUsers%2Ftester@databricks.com%2Fa%20b%2Fc.yaml");
	air__free(u);
	u = air__files_api_url("files", "/Volumes/main/default/code/.internal/src 1.tar.gz");
	ASSERT_EQ_STR(u, "/api/2.0/fs/files/Volumes/main/default/code/.internal/src%201.tar.gz");
	air__free(u);
}

AIR_TEST(artifacts__parallel_upload_errors_are_redacted)
{
	fakews *fw = fakews_start();
	air_client *c = fakews_client(fw);
	const air__upload ups[] = {
		{"/Workspace/Users/tester@databricks.com/launch/a.txt", "first-file", 10, NULL, NULL},
		{"/Workspace/Users/tester@databricks.com/launch/b.txt", "second-file", 11, NULL, NULL},
	};
	air_error *err = NULL;

	/* The first upload fails and succeeds on its own retry; the second one's
	 * error (built from its reply, not by the transport) quotes the token. */
	fakews_faultf(fw, "{\"path\":\"/api/2.0/workspace-files/import-file/*\","
	                  "\"body_contains\":\"first-file\",\"status\":404,\"body\":"
	                  "{\"error_code\":\"RESOURCE_DOES_NOT_EXIST\",\"message\":\"no parent\"}}");
	fakews_faultf(fw, "{\"path\":\"/api/2.0/workspace-files/import-file/*\","
	                  "\"body_contains\":\"second-file\",\"status\":400,\"times\":-1,\"body\":"
	                  "{\"error_code\":\"INVALID_PARAMETER_VALUE\","
	                  "\"message\":\"credential dapi-test may not write here\"}}");
	ASSERT_EQ_INT(air__ws_import_many(c, NULL, ups, 2, NULL, &err), AIR_EAPI);
	air_test_note("%s", air_error_message(err));
	ASSERT_CONTAINS(air_error_message(err), "uploading /Workspace/Users/tester@databricks.com/launch/b.txt");
	ASSERT_CONTAINS(air_error_message(err), "credential [REDACTED] may not write here");
	ASSERT_NOT_CONTAINS(air_error_message(err), "dapi-test");
	ASSERT_EQ_INT(air_error_http_status(err), 400);
	ASSERT_EQ_INT(fakews_count(fw, "POST", "/api/2.0/workspace/mkdirs"), 1);
	air_error_free(err);
	air_client_free(c);
	fakews_stop(fw);
}

/* test_override.c: `--override FIELD_PATH=VALUE` and air_config_set(). */
#include <stdlib.h>
#include <string.h>

#include <air/air.h>

#include "test.h"

static const char valid_yaml[] =
	"experiment_name: smoke-test\n"
	"command: python train.py\n"
	"compute:\n"
	"  accelerator_type: GPU_1xH100\n"
	"  num_accelerators: 1\n";

static air_config *parse(const char *text)
{
	air_config *cfg = NULL;
	air_error *err = NULL;

	if (air_config_parse_buffer(text, strlen(text), "w.yaml", NULL, &cfg, &err) != AIR_OK)
		FAIL("parse: %s", air_error_message(err));
	return cfg;
}

static char *json_of(const air_config *cfg)
{
	char *s = NULL;

	if (air_config_to_json(cfg, &s, NULL) != AIR_OK)
		FAIL("to_json failed");
	return s;
}

/* Override parameters.v=@value and return the JSON of parameters.v. */
static void check_typing(const char *value, const char *want_json, const char *want_new)
{
	air_config *cfg = parse(valid_yaml);
	air_error *err = NULL;
	char *assign = malloc(strlen(value) + 16), *json, *want;

	sprintf(assign, "parameters.v=%s", value);
	ASSERT_OK(air_config_override(cfg, assign, &err), err);
	json = json_of(cfg);
	want = malloc(strlen(want_json) + 32);
	sprintf(want, "\"parameters\":{\"v\":%s}", want_json);
	ASSERT_CONTAINS(json, want);
	ASSERT_EQ_STR(air_config_change_new(cfg, 0), want_new);
	ASSERT_NULL(air_config_change_old(cfg, 0));
	air_free(json);
	free(want);
	free(assign);
	air_config_free(cfg);
}

AIR_TEST(override__value_typing)
{
	check_typing("8", "8", "8");
	check_typing("true", "true", "true");
	check_typing("1.5", "1.5", "1.5");
	check_typing("abc", "\"abc\"", "abc");
	check_typing("'8'", "\"8\"", "\"8\"");
	check_typing("[a, b]", "[\"a\",\"b\"]", "[a, b]");
	check_typing("{a: 1}", "{\"a\":1}", "{a: 1}");
	check_typing("null", "null", "null");
	check_typing("", "null", "null");
	check_typing("  spaced  ", "\"spaced\"", "spaced");
	check_typing("a=b=c", "\"a=b=c\"", "a=b=c");
	check_typing("0x10", "16", "0x10");
	check_typing("yes", "\"yes\"", "\"yes\"");
}

AIR_TEST(override__change_records)
{
	air_config *cfg = parse(valid_yaml);
	air_error *err = NULL;

	ASSERT_EQ_INT(air_config_change_count(cfg), 0);
	ASSERT_OK(air_config_override(cfg, " compute.num_accelerators =2", &err), err);
	ASSERT_OK(air_config_override(cfg, "timeout_minutes=45", &err), err);
	ASSERT_OK(air_config_override(cfg, "compute.num_accelerators=3", &err), err);
	ASSERT_OK(air_config_override(cfg, "command=", &err), err);
	ASSERT_EQ_INT(air_config_change_count(cfg), 4);
	ASSERT_EQ_STR(air_config_change_path(cfg, 0), "compute.num_accelerators");
	ASSERT_EQ_STR(air_config_change_old(cfg, 0), "1");
	ASSERT_EQ_STR(air_config_change_new(cfg, 0), "2");
	ASSERT_EQ_STR(air_config_change_path(cfg, 1), "timeout_minutes");
	ASSERT_NULL(air_config_change_old(cfg, 1));
	ASSERT_EQ_STR(air_config_change_new(cfg, 1), "45");
	ASSERT_EQ_STR(air_config_change_old(cfg, 2), "2");
	ASSERT_EQ_STR(air_config_change_old(cfg, 3), "python train.py");
	ASSERT_EQ_STR(air_config_change_new(cfg, 3), "null");
	ASSERT_NULL(air_config_change_path(cfg, 4));
	ASSERT_NULL(air_config_change_old(cfg, 4));
	ASSERT_NULL(air_config_change_new(cfg, 4));
	ASSERT_NULL(air_config_change_path(NULL, 0));
	ASSERT_EQ_INT(air_config_change_count(NULL), 0);
	air_config_free(cfg);
}

AIR_TEST(override__old_values_are_compact_yaml)
{
	air_config *cfg = parse("experiment_name: e\ncompute: {accelerator_type: GPU_1xA10}\n"
	                        "parameters:\n  list: [a, 'b c', \"8\"]\n  nested:\n    k: v\n");
	air_error *err = NULL;

	ASSERT_OK(air_config_override(cfg, "parameters.list=1", &err), err);
	ASSERT_EQ_STR(air_config_change_old(cfg, 0), "[a, b c, \"8\"]");
	ASSERT_OK(air_config_override(cfg, "parameters.nested=~", &err), err);
	ASSERT_EQ_STR(air_config_change_old(cfg, 1), "{k: v}");
	ASSERT_OK(air_config_override(cfg, "parameters.nested=x", &err), err);
	ASSERT_NULL(air_config_change_old(cfg, 2)); /* null counts as unset */
	ASSERT_OK(air_config_override(cfg, "compute=5", &err), err);
	ASSERT_EQ_STR(air_config_change_old(cfg, 3), "{accelerator_type: GPU_1xA10}");
	air_config_free(cfg);
}

AIR_TEST(override__unknown_segment_lists_fields_and_changes_nothing)
{
	air_config *cfg = parse(valid_yaml);
	air_error *err = NULL;
	char *before = json_of(cfg), *after;

	ASSERT_EQ_INT(air_config_override(cfg, "compute.acclerator_type=GPU_1xA10", &err), AIR_ECONFIG);
	ASSERT_EQ_STR(air_error_field(err), "compute.acclerator_type");
	ASSERT_CONTAINS(air_error_message(err), "compute.acclerator_type=GPU_1xA10");
	ASSERT_CONTAINS(air_error_message(err), "unknown field \"acclerator_type\" in compute");
	ASSERT_CONTAINS(air_error_message(err), "did you mean \"accelerator_type\"");
	ASSERT_CONTAINS(air_error_message(err),
	                "valid fields: accelerator_type, num_accelerators, pool_id, priority_class");
	ASSERT_EQ_INT(air_error_kind(err), AIR_KIND_INVALID_CONFIG);
	air_error_free(err);
	err = NULL;
	ASSERT_EQ_INT(air_config_override(cfg, "bogus=1", &err), AIR_ECONFIG);
	ASSERT_CONTAINS(air_error_message(err),
	                "valid fields: code_source, command, compute, env_variables, environment, "
	                "experiment_name, idempotency_token, max_retries, mlflow_artifact_location, "
	                "mlflow_experiment_directory, mlflow_run_name, parameters, permissions, "
	                "secrets, timeout_minutes, usage_policy_id, usage_policy_name");
	ASSERT_NOT_CONTAINS(air_error_message(err), "did you mean");
	air_error_free(err);
	err = NULL;
	ASSERT_EQ_INT(air_config_override(cfg, "code_source.snapshot.gitt.branch=x", &err), AIR_ECONFIG);
	ASSERT_CONTAINS(air_error_message(err), "in code_source.snapshot (did you mean \"git\"?)");
	air_error_free(err);
	after = json_of(cfg);
	ASSERT_EQ_STR(after, before);
	ASSERT_EQ_INT(air_config_change_count(cfg), 0);
	air_free(before);
	air_free(after);
	air_config_free(cfg);
}

AIR_TEST(override__segment_after_scalar)
{
	air_config *cfg = parse(valid_yaml);
	air_error *err = NULL;

	ASSERT_EQ_INT(air_config_override(cfg, "command.sub=x", &err), AIR_ECONFIG);
	ASSERT_CONTAINS(air_error_message(err), "command is a string, not an object");
	ASSERT_CONTAINS(air_error_message(err), "\"sub\"");
	air_error_free(err);
	err = NULL;
	ASSERT_EQ_INT(air_config_override(cfg, "compute.num_accelerators.a.b=x", &err), AIR_ECONFIG);
	ASSERT_CONTAINS(air_error_message(err), "compute.num_accelerators is an int");
	ASSERT_CONTAINS(air_error_message(err), "\"a.b\"");
	air_error_free(err);
	err = NULL;
	ASSERT_EQ_INT(air_config_override(cfg, "environment.dependencies.x=1", &err), AIR_ECONFIG);
	ASSERT_CONTAINS(air_error_message(err), "list of strings, not an object");
	air_error_free(err);
	ASSERT_EQ_INT(air_config_change_count(cfg), 0);
	air_config_free(cfg);
}

AIR_TEST(override__user_maps_take_any_sub_path)
{
	air_config *cfg = parse(valid_yaml);
	air_error *err = NULL;
	char *json;

	ASSERT_OK(air_config_override(cfg, "parameters.model.layers.count=4", &err), err);
	ASSERT_OK(air_config_override(cfg, "env_variables.RANK=0", &err), err);
	ASSERT_OK(air_config_override(cfg, "secrets.HF=scope/key", &err), err);
	ASSERT_OK(air_config_override(cfg, "parameters.we ird=1", &err), err);
	ASSERT_OK(air_config_validate(cfg, &err), err);
	json = json_of(cfg);
	ASSERT_CONTAINS(json, "\"parameters\":{\"model\":{\"layers\":{\"count\":4}},\"we ird\":1}");
	air_free(json);
	ASSERT_EQ_STR(air_config_env_name(cfg, 0), "RANK");
	ASSERT_EQ_STR(air_config_env_value(cfg, 0), "0");
	ASSERT_EQ_STR(air_config_secret_key(cfg, 0), "key");
	air_config_free(cfg);
}

AIR_TEST(override__both_code_source_forms_are_paths)
{
	air_config *cfg = parse(valid_yaml);
	air_error *err = NULL;

	ASSERT_OK(air_config_override(cfg, "code_source.snapshot.root_path=src", &err), err);
	ASSERT_OK(air_config_override(cfg, "code_source.type=snapshot", &err), err);
	ASSERT_OK(air_config_validate(cfg, &err), err);
	ASSERT_EQ_INT(air_config_code_source_form(cfg), AIR_CODE_SOURCE_NESTED);
	ASSERT_OK(air_config_override(cfg, "code_source=null", &err), err);
	ASSERT_OK(air_config_override(cfg, "code_source.root_path=src", &err), err);
	ASSERT_OK(air_config_override(cfg, "code_source.git.commit=abc", &err), err);
	ASSERT_OK(air_config_validate(cfg, &err), err);
	ASSERT_EQ_INT(air_config_code_source_form(cfg), AIR_CODE_SOURCE_FLAT);
	ASSERT_EQ_STR(air_config_git_commit(cfg), "abc");
	air_config_free(cfg);
}

AIR_TEST(override__non_mappings_on_the_path_are_replaced)
{
	air_config *cfg = parse("experiment_name: e\ncommand: c\ncompute: 5\nenvironment: [x]\n");
	air_error *err = NULL;
	char *json;

	ASSERT_OK(air_config_override(cfg, "compute.accelerator_type=GPU_8xH100", &err), err);
	ASSERT_OK(air_config_override(cfg, "environment.docker_image.url=r/i", &err), err);
	json = json_of(cfg);
	ASSERT_CONTAINS(json, "\"compute\":{\"accelerator_type\":\"GPU_8xH100\"}");
	ASSERT_CONTAINS(json, "\"environment\":{\"docker_image\":{\"url\":\"r/i\"}}");
	air_free(json);
	air_config_free(cfg);
}

AIR_TEST(override__validation_is_the_callers_step)
{
	air_config *cfg = parse(valid_yaml);
	air_error *err = NULL;

	ASSERT_OK(air_config_validate(cfg, &err), err);
	ASSERT_EQ_INT(air_config_is_valid(cfg), 1);
	/* Each override alone would be invalid; together they are fine. */
	ASSERT_OK(air_config_override(cfg, "compute.accelerator_type=GPU_8xH100", &err), err);
	ASSERT_EQ_INT(air_config_is_valid(cfg), 0);
	ASSERT_NULL(air_config_experiment_name(cfg));
	ASSERT_EQ_INT(air_config_validate(cfg, &err), AIR_ECONFIG);
	ASSERT_CONTAINS(air_error_message(err), "multiple of 8");
	air_error_free(err);
	err = NULL;
	ASSERT_OK(air_config_override(cfg, "compute.num_accelerators=8", &err), err);
	ASSERT_OK(air_config_validate(cfg, &err), err);
	ASSERT_EQ_INT(air_config_num_accelerators(cfg), 8);
	ASSERT_EQ_STR(air_config_experiment_name(cfg), "smoke-test");
	air_config_free(cfg);
}

AIR_TEST(override__malformed_assignments)
{
	air_config *cfg = parse(valid_yaml);
	air_error *err = NULL;

	ASSERT_EQ_INT(air_config_override(cfg, "train.yaml", &err), AIR_ECONFIG);
	ASSERT_CONTAINS(air_error_message(err), "\"train.yaml\"");
	ASSERT_CONTAINS(air_error_message(err), "FIELD_PATH=VALUE");
	ASSERT_CONTAINS(air_error_message(err), "looks like a config file");
	ASSERT_NOT_CONTAINS(air_error_message(err), "-f"); /* a front end's flag */
	air_error_free(err);
	err = NULL;
	ASSERT_EQ_INT(air_config_override(cfg, "conf/train.yml", &err), AIR_ECONFIG);
	ASSERT_CONTAINS(air_error_message(err), "looks like a config file");
	air_error_free(err);
	err = NULL;
	ASSERT_EQ_INT(air_config_override(cfg, "timeout_minutes", &err), AIR_ECONFIG);
	ASSERT_NOT_CONTAINS(air_error_message(err), "config file");
	air_error_free(err);
	err = NULL;
	ASSERT_EQ_INT(air_config_override(cfg, " =5", &err), AIR_ECONFIG);
	ASSERT_CONTAINS(air_error_message(err), "empty");
	ASSERT_NULL(air_error_field(err));
	air_error_free(err);
	err = NULL;
	ASSERT_EQ_INT(air_config_override(cfg, "compute..x=1", &err), AIR_ECONFIG);
	ASSERT_CONTAINS(air_error_message(err), "empty field name");
	air_error_free(err);
	err = NULL;
	ASSERT_EQ_INT(air_config_override(cfg, "command=[unclosed", &err), AIR_ECONFIG);
	ASSERT_CONTAINS(air_error_message(err), "command=[unclosed");
	ASSERT_CONTAINS(air_error_message(err), "YAML syntax error");
	ASSERT_EQ_STR(air_error_field(err), "command");
	ASSERT_NULL(air_error_file(err));
	air_error_free(err);
	err = NULL;
	ASSERT_EQ_INT(air_config_override(cfg, "command=\xff", &err), AIR_ECONFIG);
	ASSERT_CONTAINS(air_error_message(err), "UTF-8");
	air_error_free(err);
	err = NULL;
	ASSERT_EQ_INT(air_config_override(cfg, "parameters.\x01=1", &err), AIR_ECONFIG);
	ASSERT_CONTAINS(air_error_message(err), "U+0001");
	air_error_free(err);
	ASSERT_EQ_INT(air_config_change_count(cfg), 0);
	ASSERT_EQ_INT(air_config_override(NULL, "a=1", NULL), AIR_EINVAL);
	ASSERT_EQ_INT(air_config_override(cfg, NULL, NULL), AIR_EINVAL);
	air_config_free(cfg);
}

AIR_TEST(override__set_takes_path_and_value_apart)
{
	air_config *cfg = parse(valid_yaml);
	air_error *err = NULL;

	ASSERT_OK(air_config_set(cfg, " compute.num_accelerators ", "2", &err), err);
	ASSERT_OK(air_config_set(cfg, "command", "a=b", &err), err);
	ASSERT_OK(air_config_set(cfg, "timeout_minutes", NULL, &err), err);
	ASSERT_EQ_STR(air_config_change_path(cfg, 0), "compute.num_accelerators");
	ASSERT_EQ_STR(air_config_change_new(cfg, 2), "null");
	ASSERT_OK(air_config_validate(cfg, &err), err);
	ASSERT_EQ_STR(air_config_command(cfg), "a=b");
	ASSERT_EQ_INT(air_config_num_accelerators(cfg), 2);
	ASSERT_EQ_INT(air_config_set(cfg, "nope", "1", &err), AIR_ECONFIG);
	ASSERT_CONTAINS(air_error_message(err), "\"nope=1\"");
	air_error_free(err);
	err = NULL;
	ASSERT_EQ_INT(air_config_set(cfg, "  ", "1", &err), AIR_ECONFIG);
	air_error_free(err);
	ASSERT_EQ_INT(air_config_set(cfg, NULL, "1", NULL), AIR_EINVAL);
	air_config_free(cfg);
}

AIR_TEST(override__value_errors_from_validation_have_no_position)
{
	air_config *cfg = parse(valid_yaml);
	air_error *err = NULL;

	ASSERT_OK(air_config_override(cfg, "compute.num_accelerators=abc", &err), err);
	ASSERT_EQ_INT(air_config_validate(cfg, &err), AIR_ECONFIG);
	ASSERT_EQ_STR(air_error_field(err), "compute.num_accelerators");
	ASSERT_EQ_INT(air_error_line(err), 0);
	ASSERT_EQ_STR(air_error_file(err), "w.yaml");
	/* The file's text does not hold the value: the message says so. */
	ASSERT_EQ_STR(air_error_message(err), "w.yaml (overridden): compute.num_accelerators: "
	                                      "expected an integer, got the string \"abc\"");
	air_error_free(err);
	air_config_free(cfg);
}

/* An override nests no deeper than a config may (64 levels, the path's
 * mappings and the value's collections together): the config it makes
 * always loads again. */
AIR_TEST(override__nesting_is_bounded_like_the_parser)
{
	air_config *cfg = parse(valid_yaml), *again = NULL;
	air_error *err = NULL;
	char path[512] = "parameters", assignment[600];
	char *yaml = NULL;

	for (int i = 1; i < 64; i++) /* 64 mappings with the document's */
		strcat(path, ".a");
	snprintf(assignment, sizeof(assignment), "%s=1", path);
	ASSERT_OK(air_config_override(cfg, assignment, &err), err);
	ASSERT_OK(air_config_to_yaml(cfg, &yaml, &err), err);
	ASSERT_OK(air_config_load_buffer(yaml, strlen(yaml), "again.yaml", NULL, &again, &err), err);
	air_config_free(again);
	air_free(yaml);
	/* one level more: in the path, or in the value */
	snprintf(assignment, sizeof(assignment), "%s.b=1", path);
	ASSERT_EQ_INT(air_config_override(cfg, assignment, &err), AIR_ECONFIG);
	ASSERT_CONTAINS(air_error_message(err), "nests deeper than 64 levels");
	air_error_free(err);
	err = NULL;
	snprintf(assignment, sizeof(assignment), "%s=[1]", path);
	ASSERT_EQ_INT(air_config_override(cfg, assignment, &err), AIR_ECONFIG);
	ASSERT_CONTAINS(air_error_message(err), "nests deeper than 64 levels");
	air_error_free(err);
	air_config_free(cfg);
}

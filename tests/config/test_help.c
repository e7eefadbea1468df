/* test_help.c: field help, `air run -h config[.<path>]`, text and JSON. */
#include <stdlib.h>
#include <string.h>

#include <air/air.h>
#include <jansson.h>

#include "test.h"

static char *help(const char *path, uint32_t flags)
{
	char *s = NULL;
	air_error *err = NULL;

	ASSERT_OK(air_schema_help(path, flags, &s, &err), err);
	return s;
}

/* The error of an unresolvable path; the caller frees it. */
static air_error *help_error(const char *path)
{
	char *s = (char *)1;
	air_error *err = NULL;

	ASSERT_EQ_INT(air_schema_help(path, AIR_HELP_TEXT, &s, &err), AIR_ECONFIG);
	ASSERT_NULL(s);
	/* The field is the full path, "config." included. */
	if (strncmp(path, "config", 6) || (path[6] && path[6] != '.'))
		ASSERT_TRUE(!strncmp(air_error_field(err), "config.", 7) &&
		            !strcmp(air_error_field(err) + 7, path));
	else
		ASSERT_EQ_STR(air_error_field(err), path);
	return err;
}

AIR_TEST(help__root_lists_the_17_fields_in_schema_order)
{
	static const char *const rows[] = {
		"    experiment_name              (required) Name of the experiment.\n",
		"    compute                      (required) The GPUs the workload runs on.\n",
		"    environment                  The runtime the command runs in.\n",
		"    command                      (required) Shell command run on every node",
		"    env_variables                Environment variables set on every node",
		"    secrets                      ", "    code_source                  ",
		"    max_retries                  ", "    timeout_minutes              ",
		"    idempotency_token            ", "    parameters                   ",
		"    mlflow_run_name              ", "    mlflow_experiment_directory  ",
		"    mlflow_artifact_location     ", "    permissions                  ",
		"    usage_policy_name            ", "    usage_policy_id              ",
	};
	char *text = help("config", AIR_HELP_TEXT), *p;
	int required = 0;

	ASSERT_TRUE(!strncmp(text, "config\n  The workload YAML", 26));
	p = strstr(text, "\n\n  Fields:\n");
	ASSERT_NOT_NULL(p);
	p += strlen("\n\n  Fields:\n");
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		if (strncmp(p, rows[i], strlen(rows[i])))
			FAIL("row %zu: \"%.60s\" does not start with \"%s\"", i, p, rows[i]);
		required += !strncmp(p + 33, "(required) ", 11);
		p = strchr(p, '\n') + 1;
	}
	ASSERT_EQ_INT(required, 3);
	ASSERT_EQ_STR(p, "\n  Run \"air run -h config.<field>\" for the details of a field.\n");
	air_free(text);
	/* "", "config" and "config." all mean the whole schema. */
	text = help("", AIR_HELP_TEXT);
	ASSERT_TRUE(!strncmp(text, "config\n", 7));
	air_free(text);
	text = help("config.", AIR_HELP_TEXT);
	ASSERT_TRUE(!strncmp(text, "config\n", 7));
	air_free(text);
}

AIR_TEST(help__compute_exact_text)
{
	char *text = help("config.compute", AIR_HELP_TEXT);

	ASSERT_EQ_STR(text,
	              "config.compute\n"
	              "  The GPUs the workload runs on. Allocation is in whole nodes.\n"
	              "\n"
	              "  Fields:\n"
	              "    num_accelerators  Total number of GPUs (not nodes).\n"
	              "    accelerator_type  GPU type, matched case-sensitively: GPU_1xA10 (1 A10 per "
	              "node), GPU_8xH100 (8 H100 per node) or GPU_1xH100 (1 H100 per node).\n"
	              "    pool_id           Id of a provisioned GPU pool (provisioned capacity) to run "
	              "in; `air list pools` shows them.\n"
	              "    priority_class    Scheduling priority inside the pool: BEST_EFFORT (may be "
	              "preempted), NORMAL or CRITICAL, matched case-insensitively.\n"
	              "\n"
	              "  Run \"air run -h config.compute.<field>\" for the details of a field.\n");
	air_free(text);
}

AIR_TEST(help__leaf_exact_text_without_config_prefix)
{
	char *text = help("compute.accelerator_type", AIR_HELP_TEXT);

	ASSERT_EQ_STR(text,
	              "config.compute.accelerator_type\n"
	              "  GPU type, matched case-sensitively: GPU_1xA10 (1 A10 per node), GPU_8xH100 (8 "
	              "H100 per node) or GPU_1xH100 (1 H100 per node). Availability differs per "
	              "workspace; see https://docs.databricks.com/aws/en/compute/serverless/gpu for the "
	              "current list.\n"
	              "\n"
	              "  Type:     string\n"
	              "  Required: no\n");
	air_free(text);
}

AIR_TEST(help__conditional_requirements_and_union_types)
{
	char *text = help("config.environment.docker_image.url", AIR_HELP_TEXT);

	ASSERT_CONTAINS(text, "\n  Required: when environment.docker_image is set\n");
	air_free(text);
	text = help("config.code_source.snapshot.git.remote", AIR_HELP_TEXT);
	ASSERT_CONTAINS(text, "\n  Type:     bool or string\n  Required: no\n");
	ASSERT_CONTAINS(text, "No longer supported");
	air_free(text);
	text = help("config.code_source.root_path", AIR_HELP_TEXT);
	ASSERT_CONTAINS(text, "  Required: when code_source uses the flattened form\n");
	air_free(text);
	text = help("code_source.snapshot.root_path", AIR_HELP_TEXT);
	ASSERT_CONTAINS(text, "config.code_source.snapshot.root_path\n");
	ASSERT_CONTAINS(text, "  Required: when code_source.snapshot is set\n");
	air_free(text);
	text = help("config.environment.dependencies", AIR_HELP_TEXT);
	ASSERT_CONTAINS(text, "  Type:     list of strings\n");
	air_free(text);
	text = help("config.environment.version", AIR_HELP_TEXT);
	ASSERT_CONTAINS(text, "  Type:     string or int\n");
	ASSERT_CONTAINS(text, "databricks_ai_v<N>");
	air_free(text);
	text = help("config.code_source.git.branch", AIR_HELP_TEXT);
	ASSERT_CONTAINS(text, "  Required: one of branch or commit\n");
	air_free(text);
	text = help("config.experiment_name", AIR_HELP_TEXT);
	ASSERT_CONTAINS(text, "  Required: yes\n");
	ASSERT_CONTAINS(text, "100");
	air_free(text);
}

AIR_TEST(help__permissions_walked_as_its_element)
{
	char *text = help("config.permissions", AIR_HELP_TEXT);

	ASSERT_CONTAINS(text, "  Fields:\n    user_name               User (e-mail address)");
	ASSERT_CONTAINS(text, "\n    level                   Permission level:");
	air_free(text);
	text = help("config.permissions.level", AIR_HELP_TEXT);
	ASSERT_CONTAINS(text, "config.permissions.level\n");
	ASSERT_CONTAINS(text, "  Required: when a grant is listed\n");
	air_free(text);
	text = help("permissions.group_name", AIR_HELP_TEXT);
	ASSERT_CONTAINS(text, "  Required: one principal per grant\n");
	air_free(text);
}

AIR_TEST(help__unknown_field_suggestion_and_siblings)
{
	air_error *err = help_error("config.compute.acclerator_type");

	ASSERT_CONTAINS(air_error_message(err), "config.compute.acclerator_type");
	ASSERT_CONTAINS(air_error_message(err), "did you mean \"accelerator_type\"");
	ASSERT_CONTAINS(air_error_message(err),
	                "accelerator_type, num_accelerators, pool_id, priority_class");
	ASSERT_EQ_INT(air_error_kind(err), AIR_KIND_INVALID_CONFIG);
	air_error_free(err);
	err = help_error("config.code_source.rootpath");
	ASSERT_CONTAINS(air_error_message(err), "did you mean \"root_path\"");
	air_error_free(err);
	err = help_error("config.zzzzzzzzzzzz");
	ASSERT_NOT_CONTAINS(air_error_message(err), "did you mean");
	ASSERT_CONTAINS(air_error_message(err), "code_source, command, compute, env_variables");
	air_error_free(err);
}

AIR_TEST(help__user_maps_and_leaves)
{
	static const char *const maps[] = {"config.parameters.learning_rate", "env_variables.HOME",
	                                   "config.secrets.HF_TOKEN"};
	air_error *err;

	for (size_t i = 0; i < 3; i++) {
		err = help_error(maps[i]);
		ASSERT_CONTAINS(air_error_message(err), "user-defined keys");
		ASSERT_CONTAINS(air_error_message(err), "air run -h config.");
		air_error_free(err);
	}
	err = help_error("config.command.foo");
	ASSERT_CONTAINS(air_error_message(err), "config.command is a string, not an object");
	ASSERT_CONTAINS(air_error_message(err), "\"foo\"");
	air_error_free(err);
	err = help_error("config.compute.num_accelerators.x");
	ASSERT_CONTAINS(air_error_message(err), "is an int, not an object");
	air_error_free(err);
	{
		char *s = NULL;
		err = NULL;
		ASSERT_EQ_INT(air_schema_help("config.compute..pool_id", 0, &s, &err), AIR_ECONFIG);
		ASSERT_EQ_STR(air_error_field(err), "config.compute.");
		ASSERT_CONTAINS(air_error_message(err), "empty field name");
		air_error_free(err);
	}
	/* "configx" is not "config" followed by a path. */
	err = help_error("configx");
	ASSERT_CONTAINS(air_error_message(err), "unknown field \"configx\"");
	air_error_free(err);
}

AIR_TEST(help__json_has_the_same_content)
{
	char *text = help("config.compute", AIR_HELP_JSON);
	json_error_t jerr;
	json_t *v = json_loads(text, 0, &jerr), *fields;

	if (!v)
		FAIL("invalid JSON: %s", jerr.text);
	ASSERT_EQ_STR(json_string_value(json_object_get(v, "path")), "config.compute");
	ASSERT_EQ_STR(json_string_value(json_object_get(v, "type")), "object");
	ASSERT_EQ_STR(json_string_value(json_object_get(v, "required")), "yes");
	ASSERT_CONTAINS(json_string_value(json_object_get(v, "description")), "whole nodes");
	fields = json_object_get(v, "fields");
	ASSERT_EQ_INT(json_array_size(fields), 4);
	ASSERT_EQ_STR(json_string_value(json_object_get(json_array_get(fields, 0), "name")),
	              "num_accelerators");
	ASSERT_EQ_STR(json_string_value(json_object_get(json_array_get(fields, 0), "type")), "int");
	ASSERT_EQ_STR(json_string_value(json_object_get(json_array_get(fields, 0), "summary")),
	              "Total number of GPUs (not nodes).");
	json_decref(v);
	air_free(text);

	text = help("environment.docker_image.url", AIR_HELP_JSON);
	v = json_loads(text, 0, &jerr);
	ASSERT_NOT_NULL(v);
	ASSERT_EQ_STR(json_string_value(json_object_get(v, "required")),
	              "when environment.docker_image is set");
	ASSERT_NULL(json_object_get(v, "fields"));
	json_decref(v);
	air_free(text);
}

/* Every path of the schema resolves, has a description and a summary. */
static void walk(const char *path, int depth)
{
	char *json = help(path, AIR_HELP_JSON), *text = help(path, AIR_HELP_TEXT);
	json_t *v = json_loads(json, 0, NULL), *fields;
	size_t i;
	json_t *f;

	ASSERT_NOT_NULL(v);
	ASSERT_TRUE(strlen(json_string_value(json_object_get(v, "description"))) > 20);
	ASSERT_CONTAINS(text, json_string_value(json_object_get(v, "description")));
	fields = json_object_get(v, "fields");
	json_array_foreach(fields, i, f) {
		char child[256];
		ASSERT_TRUE(strlen(json_string_value(json_object_get(f, "summary"))) > 5);
		snprintf(child, sizeof(child), "%s.%s", path, json_string_value(json_object_get(f, "name")));
		ASSERT_TRUE(depth < 6);
		walk(child, depth + 1);
	}
	json_decref(v);
	air_free(json);
	air_free(text);
}

AIR_TEST(help__every_schema_path_resolves)
{
	walk("config", 0);
}

AIR_TEST(help__argument_checks)
{
	char *s = NULL;

	ASSERT_EQ_INT(air_schema_help("config", AIR_HELP_TEXT, NULL, NULL), AIR_EINVAL);
	ASSERT_EQ_INT(air_schema_help("config", 7, &s, NULL), AIR_EINVAL);
	ASSERT_OK(air_schema_help(NULL, AIR_HELP_TEXT, &s, NULL), NULL);
	ASSERT_TRUE(!strncmp(s, "config\n", 7));
	air_free(s);
	ASSERT_EQ_INT(air_schema_help("config.\xff", AIR_HELP_TEXT, &s, NULL), AIR_ECONFIG);
}

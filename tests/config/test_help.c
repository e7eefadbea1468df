/* test_help.c: structured field help (air_schema_lookup(), air_field_*). The
 * text layouts of `air run -h` are the CLI's and are tested with it. */
#include <stdlib.h>
#include <string.h>

#include <air/air.h>

#include "test.h"

static const air_field *field(const char *path)
{
	const air_field *f = NULL;
	air_error *err = NULL;

	ASSERT_OK(air_schema_lookup(path, &f, &err), err);
	ASSERT_NOT_NULL(f);
	return f;
}

/* The error of an unresolvable path; the caller frees it. */
static air_error *lookup_error(const char *path)
{
	const air_field *f = (const air_field *)1;
	air_error *err = NULL;

	ASSERT_EQ_INT(air_schema_lookup(path, &f, &err), AIR_ECONFIG);
	ASSERT_NULL(f);
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
	static const char *const names[] = {
		"experiment_name", "compute", "environment", "command", "env_variables", "secrets",
		"code_source", "max_retries", "timeout_minutes", "idempotency_token", "parameters",
		"mlflow_run_name", "mlflow_experiment_directory", "mlflow_artifact_location",
		"permissions", "usage_policy_name", "usage_policy_id",
	};
	const air_field *root = field("config");
	int required = 0;

	ASSERT_TRUE(root == air_schema_root());
	ASSERT_EQ_STR(air_field_name(root), "config");
	ASSERT_EQ_INT(air_field_kind(root), AIR_FIELD_OBJECT);
	ASSERT_TRUE(!strncmp(air_field_description(root), "The workload YAML", 17));
	ASSERT_EQ_INT(air_field_child_count(root), 17);
	for (size_t i = 0; i < 17; i++) {
		ASSERT_EQ_STR(air_field_name(air_field_child(root, i)), names[i]);
		required += air_field_required(air_field_child(root, i));
	}
	ASSERT_EQ_INT(required, 3);
	ASSERT_NULL(air_field_child(root, 17));
	/* "", "config" and "config." all mean the whole schema. */
	ASSERT_TRUE(field("") == root);
	ASSERT_TRUE(field("config.") == root);
	ASSERT_TRUE(field(NULL) == root);
}

AIR_TEST(help__compute_children)
{
	static const char *const names[] = {"num_accelerators", "accelerator_type", "pool_id",
	                                    "priority_class"};
	const air_field *f = field("config.compute");

	ASSERT_EQ_STR(air_field_description(f),
	              "The GPUs the workload runs on. Allocation is in whole nodes.");
	ASSERT_EQ_STR(air_field_type(f), "object");
	ASSERT_EQ_INT(air_field_required(f), 1);
	ASSERT_EQ_STR(air_field_required_when(f), "yes");
	ASSERT_EQ_INT(air_field_child_count(f), 4);
	for (size_t i = 0; i < 4; i++)
		ASSERT_EQ_STR(air_field_name(air_field_child(f, i)), names[i]);
	ASSERT_EQ_STR(air_field_type(air_field_child(f, 0)), "int");
	ASSERT_EQ_INT(air_field_kind(air_field_child(f, 0)), AIR_FIELD_INT);
	/* Lookups by path and by child are the same static field. */
	ASSERT_TRUE(field("compute.pool_id") == air_field_child(f, 2));
}

AIR_TEST(help__leaf_without_config_prefix)
{
	const air_field *f = field("compute.accelerator_type");

	ASSERT_EQ_STR(air_field_name(f), "accelerator_type");
	ASSERT_EQ_INT(air_field_kind(f), AIR_FIELD_STRING);
	ASSERT_EQ_STR(air_field_type(f), "string");
	ASSERT_EQ_INT(air_field_required(f), 0);
	ASSERT_EQ_STR(air_field_required_when(f), "no");
	ASSERT_NULL(air_field_default(f));
	ASSERT_EQ_INT(air_field_child_count(f), 0);
	ASSERT_NULL(air_field_child(f, 0));
	ASSERT_CONTAINS(air_field_description(f), "GPU_1xA10 (1 A10 per node)");
}

AIR_TEST(help__conditional_requirements_union_types_and_defaults)
{
	ASSERT_EQ_STR(air_field_required_when(field("config.environment.docker_image.url")),
	              "when environment.docker_image is set");
	ASSERT_EQ_INT(air_field_required(field("config.environment.docker_image.url")), 0);
	ASSERT_EQ_STR(air_field_type(field("config.code_source.snapshot.git.remote")),
	              "bool or string");
	ASSERT_EQ_INT(air_field_kind(field("config.code_source.snapshot.git.remote")),
	              AIR_FIELD_BOOL_OR_STRING);
	ASSERT_EQ_STR(air_field_default(field("config.code_source.git.remote")), "false");
	ASSERT_CONTAINS(air_field_description(field("code_source.git.remote")), "No longer supported");
	ASSERT_EQ_STR(air_field_required_when(field("config.code_source.root_path")),
	              "when code_source uses the flattened form");
	ASSERT_EQ_STR(air_field_required_when(field("code_source.snapshot.root_path")),
	              "when code_source.snapshot is set");
	ASSERT_EQ_STR(air_field_type(field("config.environment.dependencies")), "list of strings");
	ASSERT_EQ_INT(air_field_kind(field("config.environment.dependencies")), AIR_FIELD_STRING_LIST);
	ASSERT_EQ_STR(air_field_type(field("config.environment.version")), "string or int");
	ASSERT_EQ_INT(air_field_kind(field("config.environment.version")), AIR_FIELD_SCALAR);
	ASSERT_EQ_STR(air_field_default(field("config.environment.version")), "6");
	ASSERT_EQ_STR(air_field_default(field("max_retries")), "3");
	ASSERT_EQ_STR(air_field_default(field("environment.docker_image.tag_policy")), "auto");
	ASSERT_EQ_STR(air_field_required_when(field("config.code_source.git.branch")),
	              "one of branch or commit");
	ASSERT_EQ_INT(air_field_required(field("config.experiment_name")), 1);
	ASSERT_EQ_INT(air_field_kind(field("env_variables")), AIR_FIELD_STRING_MAP);
	ASSERT_EQ_INT(air_field_kind(field("parameters")), AIR_FIELD_ANY_MAP);
}

AIR_TEST(help__permissions_walked_as_its_element)
{
	const air_field *f = field("config.permissions");

	ASSERT_EQ_INT(air_field_kind(f), AIR_FIELD_OBJECT_LIST);
	ASSERT_EQ_STR(air_field_name(air_field_child(f, 0)), "user_name");
	ASSERT_EQ_STR(air_field_name(air_field_child(f, 3)), "level");
	ASSERT_EQ_STR(air_field_required_when(field("config.permissions.level")),
	              "when a grant is listed");
	ASSERT_EQ_STR(air_field_required_when(field("permissions.group_name")),
	              "one principal per grant");
}

AIR_TEST(help__unknown_field_suggestion_and_siblings)
{
	air_error *err = lookup_error("config.compute.acclerator_type");

	ASSERT_CONTAINS(air_error_message(err), "config.compute.acclerator_type");
	ASSERT_CONTAINS(air_error_message(err), "did you mean \"accelerator_type\"");
	ASSERT_EQ_STR(air_error_suggestion(err), "accelerator_type");
	ASSERT_CONTAINS(air_error_message(err),
	                "accelerator_type, num_accelerators, pool_id, priority_class");
	ASSERT_EQ_INT(air_error_kind(err), AIR_KIND_INVALID_CONFIG);
	air_error_free(err);
	err = lookup_error("config.code_source.rootpath");
	ASSERT_EQ_STR(air_error_suggestion(err), "root_path");
	air_error_free(err);
	err = lookup_error("config.zzzzzzzzzzzz");
	ASSERT_NOT_CONTAINS(air_error_message(err), "did you mean");
	ASSERT_NULL(air_error_suggestion(err));
	ASSERT_CONTAINS(air_error_message(err), "code_source, command, compute, env_variables");
	air_error_free(err);
}

AIR_TEST(help__user_maps_and_leaves)
{
	static const char *const maps[] = {"config.parameters.learning_rate", "env_variables.HOME",
	                                   "config.secrets.HF_TOKEN"};
	air_error *err;

	for (size_t i = 0; i < 3; i++) {
		err = lookup_error(maps[i]);
		ASSERT_CONTAINS(air_error_message(err), "user-defined keys");
		air_error_free(err);
	}
	err = lookup_error("config.command.foo");
	ASSERT_CONTAINS(air_error_message(err), "config.command is a string, not an object");
	ASSERT_CONTAINS(air_error_message(err), "\"foo\"");
	air_error_free(err);
	err = lookup_error("config.compute.num_accelerators.x");
	ASSERT_CONTAINS(air_error_message(err), "is an int, not an object");
	air_error_free(err);
	{
		const air_field *f = NULL;
		err = NULL;
		ASSERT_EQ_INT(air_schema_lookup("config.compute..pool_id", &f, &err), AIR_ECONFIG);
		ASSERT_EQ_STR(air_error_field(err), "config.compute.");
		ASSERT_CONTAINS(air_error_message(err), "empty field name");
		air_error_free(err);
	}
	/* "configx" is not "config" followed by a path. */
	err = lookup_error("configx");
	ASSERT_CONTAINS(air_error_message(err), "unknown field \"configx\"");
	air_error_free(err);
}

/* Every field of the schema resolves by its path and is described. */
static void walk(const char *path, const air_field *f, int depth)
{
	ASSERT_TRUE(field(path) == f);
	ASSERT_TRUE(strlen(air_field_description(f)) > 20);
	ASSERT_NOT_NULL(air_field_type(f));
	ASSERT_TRUE(air_field_kind(f) >= AIR_FIELD_OBJECT && air_field_kind(f) <= AIR_FIELD_ANY_MAP);
	ASSERT_EQ_INT(air_field_child_count(f) > 0, air_field_kind(f) == AIR_FIELD_OBJECT ||
	                                                air_field_kind(f) == AIR_FIELD_OBJECT_LIST);
	for (size_t i = 0; i < air_field_child_count(f); i++) {
		char child[256];
		int n = snprintf(child, sizeof(child), "%s.%s", path,
		                 air_field_name(air_field_child(f, i)));
		ASSERT_TRUE(n > 0 && (size_t)n < sizeof(child));
		ASSERT_TRUE(depth < 6);
		walk(child, air_field_child(f, i), depth + 1);
	}
}

AIR_TEST(help__every_schema_path_resolves)
{
	walk("config", air_schema_root(), 0);
}

AIR_TEST(help__argument_checks)
{
	const air_field *f = NULL;

	ASSERT_EQ_INT(air_schema_lookup("config", NULL, NULL), AIR_EINVAL);
	ASSERT_EQ_INT(air_schema_lookup("config.\xff", &f, NULL), AIR_ECONFIG);
	ASSERT_NULL(air_field_name(NULL));
	ASSERT_EQ_INT(air_field_child_count(NULL), 0);
	ASSERT_EQ_INT(air_field_kind(NULL), 0);
}

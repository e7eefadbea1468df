/* test_list_filter.c: listing options, --filter parsing, the experiment glob, index ordering. */
#include <stdlib.h>
#include <string.h>

#include "runs/list.h"
#include "test.h"

AIR_TEST(glob__wildcards_do_not_cross_slashes)
{
	ASSERT_TRUE(air__glob_match("QWEN*", "qwen-train"));
	ASSERT_TRUE(air__glob_match("qwen*", "QWEN-Train"));
	ASSERT_TRUE(air__glob_match("*", ""));
	ASSERT_TRUE(air__glob_match("*", "anything"));
	ASSERT_FALSE(air__glob_match("*", "a/b"));
	ASSERT_TRUE(air__glob_match("*/*", "a/b"));
	ASSERT_TRUE(air__glob_match("a*/b*", "ax/by"));
	ASSERT_FALSE(air__glob_match("*b", "a/b"));
	ASSERT_TRUE(air__glob_match("?", "x"));
	ASSERT_FALSE(air__glob_match("?", "/"));
	ASSERT_FALSE(air__glob_match("?", ""));
	ASSERT_FALSE(air__glob_match("?", "xy"));
	ASSERT_TRUE(air__glob_match("a?c", "abc"));
	ASSERT_TRUE(air__glob_match("exp", "EXP"));
	ASSERT_FALSE(air__glob_match("exp", "exp2"));
	ASSERT_FALSE(air__glob_match("exp", "my-exp"));
	ASSERT_TRUE(air__glob_match("*a*a*a*a*a*a*a*a*b",
	                            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab"));
	ASSERT_FALSE(air__glob_match("*a*a*a*a*a*a*a*a*b",
	                             "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"));
	ASSERT_TRUE(air__glob_match("a\\*b", "a*b"));
	ASSERT_FALSE(air__glob_match("a\\*b", "axb"));
	ASSERT_FALSE(air__glob_match(NULL, "x"));
	ASSERT_FALSE(air__glob_match("x", NULL));
}

AIR_TEST(glob__classes)
{
	ASSERT_TRUE(air__glob_match("run-[0-9]", "run-7"));
	ASSERT_FALSE(air__glob_match("run-[0-9]", "run-x"));
	ASSERT_TRUE(air__glob_match("[a-c]x", "Bx"));
	ASSERT_TRUE(air__glob_match("[A-C]x", "bx"));
	ASSERT_TRUE(air__glob_match("[!a]x", "bx"));
	ASSERT_FALSE(air__glob_match("[!a]x", "ax"));
	ASSERT_FALSE(air__glob_match("[^a]x", "Ax"));
	ASSERT_TRUE(air__glob_match("[]]", "]"));
	ASSERT_TRUE(air__glob_match("[a-]", "-"));
	ASSERT_TRUE(air__glob_match("[\\]]", "]"));
	ASSERT_FALSE(air__glob_match("[!x]", "/"));
}

AIR_TEST(glob__malformed_patterns_match_nothing)
{
	ASSERT_FALSE(air__glob_match("[abc", "a"));
	ASSERT_FALSE(air__glob_match("[abc", "[abc"));
	ASSERT_FALSE(air__glob_match("[]", "]"));
	ASSERT_FALSE(air__glob_match("abc\\", "abc"));
	ASSERT_FALSE(air__glob_match("[a/b]", "a"));
	ASSERT_FALSE(air__glob_match("x*[", "xyz"));
	ASSERT_FALSE(air__glob_match("[z-", "z"));
	ASSERT_FALSE(air__glob_match("[!]", "!"));
	ASSERT_FALSE(air__glob_match("[a\\/]", "a"));
	/* An escaped '[' opens no class. */
	ASSERT_TRUE(air__glob_match("a\\[b*", "A[Bc"));
}

/* Many stars against a long name that does not match: the answer comes
 * (a matcher that retried every split of every star would not finish). */
AIR_TEST(glob__many_stars_on_a_long_name)
{
	char pattern[64] = "", name[401];

	for (int i = 0; i < 20; i++)
		strcat(pattern, "*a");
	strcat(pattern, "*b");
	memset(name, 'a', 400);
	name[400] = '\0';
	ASSERT_FALSE(air__glob_match(pattern, name));
	name[399] = 'B';
	ASSERT_TRUE(air__glob_match(pattern, name));
}

static air_list_options *opts_new(void)
{
	air_list_options *o = NULL;
	ASSERT_EQ_INT(air_list_options_new(&o), AIR_OK);
	return o;
}

AIR_TEST(list_options__defaults_and_ranges)
{
	air_list_options *o = opts_new();

	ASSERT_EQ_INT(o->limit, 20);
	ASSERT_EQ_INT(o->max_inspected, 2000);
	ASSERT_FALSE(o->all_status);
	ASSERT_FALSE(o->all_users);
	ASSERT_TRUE(o->workspace_probe);
	ASSERT_FALSE(o->mlflow);
	ASSERT_EQ_INT(air_list_options_set_int(o, AIR_LIST_LIMIT, 0), AIR_EINVAL);
	ASSERT_EQ_INT(air_list_options_set_int(o, AIR_LIST_LIMIT, -5), AIR_EINVAL);
	ASSERT_EQ_INT(air_list_options_set_int(o, AIR_LIST_LIMIT, 3), AIR_OK);
	ASSERT_EQ_INT(o->limit, 3);
	ASSERT_EQ_INT(air_list_options_set_int(o, AIR_LIST_MAX_INSPECTED, 0), AIR_EINVAL);
	ASSERT_EQ_INT(air_list_options_set_int(o, AIR_LIST_ALL_STATUS, 2), AIR_EINVAL);
	ASSERT_EQ_INT(air_list_options_set_int(o, AIR_LIST_ALL_STATUS, 1), AIR_OK);
	ASSERT_EQ_INT(air_list_options_set_int(o, AIR_LIST_ALL_USERS, 1), AIR_OK);
	ASSERT_EQ_INT(air_list_options_set_int(o, AIR_LIST_WORKSPACE_ID, 0), AIR_OK);
	ASSERT_EQ_INT(air_list_options_set_int(o, AIR_LIST_MLFLOW, 1), AIR_OK);
	ASSERT_TRUE(o->all_status && o->all_users && !o->workspace_probe && o->mlflow);
	ASSERT_EQ_INT(air_list_options_set_int(o, 999, 1), AIR_EUNSUPPORTED);
	ASSERT_EQ_INT(air_list_options_set_int(NULL, AIR_LIST_LIMIT, 1), AIR_EINVAL);
	ASSERT_EQ_INT(air_list_options_new(NULL), AIR_EINVAL);
	air_list_options_free(o);
	air_list_options_free(NULL);
}

static void expect_bad_filter(const char *f, const char *needle)
{
	air_list_options *o = opts_new();
	air_error *err = NULL;

	ASSERT_EQ_INT(air_list_options_add_filter(o, f, &err), AIR_EINVAL);
	ASSERT_NOT_NULL(err);
	ASSERT_EQ_INT(air_error_kind(err), AIR_KIND_INVALID_ARGUMENT);
	ASSERT_CONTAINS(air_error_message(err), needle);
	ASSERT_EQ_STR(air_error_field(err), "filter");
	air_error_free(err);
	air_list_options_free(o);
}

AIR_TEST(list_options__bad_filters_name_the_problem)
{
	expect_bad_filter("color=red", "unknown filter key");
	expect_bad_filter("color=red", "color=red");
	expect_bad_filter("experiment", "expected KEY=VALUE");
	expect_bad_filter("=x", "key is empty");
	expect_bad_filter("  =x", "key is empty");
	expect_bad_filter("num_accelerators=0", "positive integer");
	expect_bad_filter("num_accelerators=-8", "positive integer");
	expect_bad_filter("num_accelerators=8x", "positive integer");
	expect_bad_filter("num_accelerators=99999999999999999999999999", "positive integer");
	expect_bad_filter("user=", "value is empty");
	expect_bad_filter("user                                    x=y", "unknown filter key");
	expect_bad_filter("USER=a", "unknown filter key");
}

AIR_TEST(list_options__filters_later_wins)
{
	air_list_options *o = opts_new();
	air_error *err = NULL;

	ASSERT_OK(air_list_options_add_filter(o, "user=a@x", &err), err);
	ASSERT_OK(air_list_options_add_filter(o, " user = other@x ", &err), err);
	ASSERT_OK(air_list_options_add_filter(o, "experiment=QWEN*", &err), err);
	ASSERT_OK(air_list_options_add_filter(o, "accelerator_type=h100", &err), err);
	ASSERT_OK(air_list_options_add_filter(o, "num_accelerators=16", &err), err);
	ASSERT_OK(air_list_options_add_filter(o, "num_accelerators=8", &err), err);
	ASSERT_OK(air_list_options_add_filter(o, "experiment=a=b", &err), err);
	ASSERT_EQ_STR(o->user, "other@x");
	ASSERT_EQ_STR(o->experiment, "a=b");
	ASSERT_EQ_STR(o->accel_type, "h100");
	ASSERT_EQ_INT(o->num_accel, 8);
	ASSERT_TRUE(air__list_has_task_filter(o));
	ASSERT_EQ_INT(air_list_options_add_filter(NULL, "user=x", NULL), AIR_EINVAL);
	ASSERT_EQ_INT(air_list_options_add_filter(o, NULL, NULL), AIR_EINVAL);
	air_list_options_free(o);
}

static air_run *run_of(const char *exp, const char *type, int count)
{
	char buf[512];
	air_run *r = NULL;

	snprintf(buf, sizeof(buf),
	         "{\"run_id\":1,\"tasks\":[{\"run_id\":2,\"ai_runtime_task\":{\"experiment\":\"%s\","
	         "\"deployments\":[{\"compute\":{\"accelerator_type\":\"%s\",\"accelerator_count\":%d}}]}}]}",
	         exp, type, count);
	ASSERT_EQ_INT(air__run_from_json(json_loads(buf, 0, NULL), &r, NULL), AIR_OK);
	return r;
}

AIR_TEST(list_options__task_filters_match)
{
	air_list_options *o = opts_new();
	air_run *r = run_of("/Users/tester@databricks.com/qwen-train", "GPU_8xH100", 8);
	air_run *a10 = run_of("other", "GPU_1xA10", 1);
	air_run *odd = run_of("x", "TPU_v9", 4);

	ASSERT_FALSE(air__list_has_task_filter(o));
	ASSERT_TRUE(air__list_task_filters_match(o, r));
	ASSERT_OK(air_list_options_add_filter(o, "experiment=QWEN*", NULL), NULL);
	ASSERT_TRUE(air__list_task_filters_match(o, r));
	ASSERT_FALSE(air__list_task_filters_match(o, a10));
	air_list_options_free(o);

	o = opts_new();
	ASSERT_OK(air_list_options_add_filter(o, "accelerator_type=h100", NULL), NULL);
	ASSERT_TRUE(air__list_task_filters_match(o, r));
	ASSERT_FALSE(air__list_task_filters_match(o, a10));
	ASSERT_OK(air_list_options_add_filter(o, "accelerator_type=1", NULL), NULL);
	ASSERT_TRUE(air__list_task_filters_match(o, r)); /* "H100" contains "1" */
	ASSERT_TRUE(air__list_task_filters_match(o, a10));
	ASSERT_OK(air_list_options_add_filter(o, "accelerator_type=tpu_V", NULL), NULL);
	ASSERT_TRUE(air__list_task_filters_match(o, odd));
	ASSERT_FALSE(air__list_task_filters_match(o, r));
	air_list_options_free(o);

	o = opts_new();
	ASSERT_OK(air_list_options_add_filter(o, "num_accelerators=8", NULL), NULL);
	ASSERT_TRUE(air__list_task_filters_match(o, r));
	ASSERT_FALSE(air__list_task_filters_match(o, a10));
	ASSERT_OK(air_list_options_add_filter(o, "experiment=[", NULL), NULL);
	ASSERT_FALSE(air__list_task_filters_match(o, r)); /* malformed: matches nothing */
	air_list_options_free(o);
	air_run_free(r);
	air_run_free(a10);
	air_run_free(odd);
}

AIR_TEST(index__submit_times)
{
	json_t *v;

	v = json_string("2024-06-05T17:32:39Z");
	ASSERT_EQ_INT(air__parse_submit_time(v), 1717608759LL * 1000000000LL);
	json_decref(v);
	v = json_string("2024-06-05T17:32:39.25+02:00");
	ASSERT_EQ_INT(air__parse_submit_time(v), (1717608759LL - 7200) * 1000000000LL + 250000000LL);
	json_decref(v);
	v = json_loads("{\"seconds\":1717700000,\"nanos\":5}", 0, NULL);
	ASSERT_EQ_INT(air__parse_submit_time(v), 1717700000LL * 1000000000LL + 5);
	json_decref(v);
	v = json_loads("{\"seconds\":\"1717700000\"}", 0, NULL);
	ASSERT_EQ_INT(air__parse_submit_time(v), 1717700000LL * 1000000000LL);
	json_decref(v);
	{
		static const char *const bad[] = {"yesterday", "2024-06-05", "2024-13-05T00:00:00Z",
		                                  "2024-06-05T17:32:39", "2024-06-05T17:32:39Zjunk"};
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			v = json_string(bad[i]);
			ASSERT_EQ_INT(air__parse_submit_time(v), 0);
			json_decref(v);
		}
	}
	ASSERT_EQ_INT(air__parse_submit_time(NULL), 0);
	v = json_integer(5);
	ASSERT_EQ_INT(air__parse_submit_time(v), 0);
	json_decref(v);
}

AIR_TEST(index__sort_newest_first_stable)
{
	air__index_entry e[] = {{11, 100, 0}, {12, 300, 1}, {13, 0, 2}, {14, 300, 3}, {15, 200, 4}};

	air__index_sort(e, 5);
	ASSERT_EQ_INT(e[0].run_id, 12);
	ASSERT_EQ_INT(e[1].run_id, 14);
	ASSERT_EQ_INT(e[2].run_id, 15);
	ASSERT_EQ_INT(e[3].run_id, 11);
	ASSERT_EQ_INT(e[4].run_id, 13);
}

static air_run *started(int64_t id, int64_t run_start, int64_t task0_start)
{
	char buf[256];
	air_run *r = NULL;

	snprintf(buf, sizeof(buf),
	         "{\"run_id\":%lld,\"start_time\":%lld,\"tasks\":[{\"run_id\":1,\"start_time\":%lld},"
	         "{\"run_id\":2,\"start_time\":1}]}",
	         (long long)id, (long long)run_start, (long long)task0_start);
	ASSERT_EQ_INT(air__run_from_json(json_loads(buf, 0, NULL), &r, NULL), AIR_OK);
	return r;
}

AIR_TEST(index__rows_sorted_by_start_missing_last)
{
	air_run *rows[5] = {started(1, 0, 0), started(2, 50, 0), started(3, 10, 500),
	                    started(4, 0, 0), started(5, 100, 0)};

	ASSERT_EQ_INT(air__list_row_start_ms(rows[2]), 500);
	ASSERT_EQ_INT(air__list_row_start_ms(rows[1]), 50);
	air__list_sort_rows(rows, 5);
	ASSERT_EQ_INT(rows[0]->id, 3);
	ASSERT_EQ_INT(rows[1]->id, 5);
	ASSERT_EQ_INT(rows[2]->id, 2);
	ASSERT_EQ_INT(rows[3]->id, 1);
	ASSERT_EQ_INT(rows[4]->id, 4);
	for (int i = 0; i < 5; i++)
		air_run_free(rows[i]);
}

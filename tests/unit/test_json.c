/* test_json.c: jansson helpers (64-bit ids as numbers or strings, paths, parse errors). */
#include "core/core.h"
#include "test.h"

AIR_TEST(json__int64_from_numbers_and_strings)
{
	json_t *o = json_loads("{\"a\":1700000003000000000,\"b\":\"334747067049496\",\"c\":\"12x\","
	                       "\"d\":1.5,\"e\":\"123\\u0000junk\",\"f\":\"-9223372036854775808\"}",
	                       JSON_ALLOW_NUL, NULL);
	int64_t v = 0;

	ASSERT_NOT_NULL(o);
	ASSERT_TRUE(air__json_int64(o, "a", &v));
	ASSERT_EQ_INT(v, 1700000003000000000LL);
	ASSERT_TRUE(air__json_int64(o, "b", &v));
	ASSERT_EQ_INT(v, 334747067049496LL);
	ASSERT_FALSE(air__json_int64(o, "c", &v));
	ASSERT_FALSE(air__json_int64(o, "d", &v));
	ASSERT_FALSE(air__json_int64(o, "e", &v)); /* embedded NUL: not a number */
	ASSERT_TRUE(air__json_int64(o, "f", &v));
	ASSERT_EQ_INT(v, INT64_MIN);
	ASSERT_FALSE(air__json_int64(o, "missing", &v));
	ASSERT_EQ_INT(air__json_int64_or(o, "missing", 7), 7);
	json_decref(o);
}

AIR_TEST(json__paths_and_strings)
{
	json_t *o = json_loads("{\"state\":{\"result_state\":\"SUCCESS\",\"m\":\"\"},"
	                       "\"tasks\":[{\"run_id\":5},{\"run_id\":6}]}", 0, NULL);
	int64_t v = 0;

	ASSERT_EQ_STR(json_string_value(air__json_at(o, "state.result_state")), "SUCCESS");
	ASSERT_TRUE(air__json_value_int64(air__json_at(o, "tasks.1.run_id"), &v));
	ASSERT_EQ_INT(v, 6);
	ASSERT_NULL(air__json_at(o, "tasks.2.run_id"));
	ASSERT_NULL(air__json_at(o, "tasks.x"));
	ASSERT_NULL(air__json_at(o, "state.result_state.deeper"));
	ASSERT_EQ_STR(air__json_str(air__json_at(o, "state"), "m"), "");
	ASSERT_NULL(air__json_nonempty(air__json_at(o, "state"), "m"));
	json_decref(o);
}

AIR_TEST(json__parse_errors_never_quote_the_input)
{
	static const char body[] = "{\"userName\" \"dapi-short\"}";
	air_error *err = NULL;
	json_t *v = air__json_parse(body, sizeof(body) - 1, "the reply", &err);

	ASSERT_NULL(v);
	ASSERT_EQ_INT(air_error_code(err), AIR_EPROTO);
	ASSERT_CONTAINS(air_error_message(err), "malformed JSON in the reply");
	ASSERT_NOT_CONTAINS(air_error_message(err), "dapi-short");
	air_error_free(err);
}

AIR_TEST(json__compact_keeps_insertion_order)
{
	json_t *o = json_object();
	char *s;

	ASSERT_TRUE(air__json_set_str(o, "z", "1"));
	ASSERT_TRUE(air__json_set_int(o, "a", 9007199254740993LL)); /* > 2^53 stays exact */
	ASSERT_TRUE(air__json_set_str(o, "skip", NULL));
	s = air__json_compact(o);
	ASSERT_EQ_STR(s, "{\"z\":\"1\",\"a\":9007199254740993}");
	air__free(s);
	json_decref(o);
}

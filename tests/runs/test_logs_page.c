/* test_logs_page.c: log pages, bounds, queries, the de-dup set, chunk names and options. */
#include <stdlib.h>

#include "logs/logs.h"
#include "test.h"

/* @text parsed into @p, and also taken whole as a reply buffer (decoded in
 * place), which must give the same page. */
static void parse_ok(air__log_page *p, const char *text)
{
	air_error *err = NULL;
	air__log_page q = {0};
	air__buf body = AIR__BUF_INIT;

	memset(p, 0, sizeof(*p));
	ASSERT_OK(air__log_page_parse(p, text, strlen(text), &err), err);
	air__buf_put(&body, text, strlen(text));
	ASSERT_OK(air__log_page_take(&q, &body, &err), err);
	ASSERT_EQ_INT(body.len, 0);
	ASSERT_EQ_INT(q.n, p->n);
	for (size_t i = 0; i < p->n; i++) {
		ASSERT_EQ_INT(q.recs[i].time_ns, p->recs[i].time_ns);
		ASSERT_EQ_INT(q.recs[i].len, p->recs[i].len);
		ASSERT_EQ_INT(memcmp(q.recs[i].body, p->recs[i].body, p->recs[i].len + 1), 0);
	}
	if (p->next_token)
		ASSERT_EQ_STR(q.next_token, p->next_token);
	else
		ASSERT_NULL(q.next_token);
	air__buf_dispose(&body);
	air__log_page_dispose(&q);
}

AIR_TEST(logs_page__records_numbers_and_strings)
{
	air__log_page p;

	parse_ok(&p, "{\"log_records\":[{\"time_unix_nano\":1700000003000000000,\"body\":\"CUDA out of "
	             "memory\",\"node_index\":0},{\"time_unix_nano\":\"1700000002000000001\",\"body\":"
	             "\"step 2\"},{\"body\":\"no time\"},{\"time_unix_nano\":\"soon\",\"body\":\"bad\"},"
	             "{\"time_unix_nano\":-5},{\"time_unix_nano\":1.5e18,\"body\":7},"
	             "{\"time_unix_nano\":1,\"body\":\"nul\\u0000inside\"}],"
	             "\"next_page_token\":\"p2\"}");
	ASSERT_EQ_INT(p.n, 7);
	ASSERT_EQ_INT(p.recs[0].time_ns, 1700000003000000000LL);
	ASSERT_EQ_STR(p.recs[0].body, "CUDA out of memory");
	ASSERT_EQ_INT(p.recs[1].time_ns, 1700000002000000001LL);
	ASSERT_EQ_INT(p.recs[2].time_ns, 0);
	ASSERT_EQ_INT(p.recs[3].time_ns, 0);
	ASSERT_EQ_INT(p.recs[4].time_ns, 0);
	ASSERT_EQ_STR(p.recs[4].body, "");
	ASSERT_EQ_INT(p.recs[4].len, 0);
	ASSERT_EQ_INT(p.recs[5].time_ns, 0); /* a double is not an exact nanosecond */
	ASSERT_EQ_STR(p.recs[5].body, "");
	ASSERT_EQ_INT(p.recs[6].len, 10);
	ASSERT_EQ_INT(memcmp(p.recs[6].body, "nul\0inside", 10), 0);
	ASSERT_EQ_STR(p.next_token, "p2");
	air__log_page_dispose(&p);

	parse_ok(&p, "{}");
	ASSERT_EQ_INT(p.n, 0);
	ASSERT_NULL(p.next_token);
	air__log_page_dispose(&p);
	parse_ok(&p, "{\"log_records\":[],\"next_page_token\":\"\"}");
	ASSERT_NULL(p.next_token);
	air__log_page_dispose(&p);
}

/* A page keeps the reply buffer it was taken from, and hands its former
 * one to the next transfer: two buffers take turns, and a page's records
 * stay whole while the next reply is written. */
AIR_TEST(logs_page__replies_and_pages_take_turns_with_two_buffers)
{
	static const char *const replies[] = {
		"{\"log_records\":[{\"time_unix_nano\":1,\"body\":\"first \\\"one\\\"\"}],"
		"\"next_page_token\":\"t1\"}",
		"{\"log_records\":[{\"time_unix_nano\":2,\"body\":\"second\\ttab\"}]}",
		"{\"log_records\":[{\"time_unix_nano\":3,\"body\":\"third \\u00e9\"}]}"};
	static const char *const bodies[] = {"first \"one\"", "second\ttab", "third \xc3\xa9"};
	air__log_page page = {0};
	air__buf body = AIR__BUF_INIT;
	char *seen[3];
	air_error *err = NULL;

	for (int i = 0; i < 3; i++) {
		air__buf_put(&body, replies[i], strlen(replies[i]));
		seen[i] = body.ptr;
		ASSERT_OK(air__log_page_take(&page, &body, &err), err);
		ASSERT_TRUE(page.arena == seen[i]); /* kept, not copied */
		ASSERT_EQ_INT(page.n, 1);
		ASSERT_EQ_INT(page.recs[0].time_ns, i + 1);
		ASSERT_EQ_STR(page.recs[0].body, bodies[i]);
		/* The next reply is written while this page is read. */
		air__buf_put(&body, "{\"log_records\":[]}", 18);
		ASSERT_EQ_STR(page.recs[0].body, bodies[i]);
		air__buf_clear(&body);
	}
	ASSERT_EQ_STR(page.next_token ? page.next_token : "", "");
	/* An empty buffer, never grown, is an empty reply. */
	air__buf_dispose(&body);
	ASSERT_EQ_INT(air__log_page_take(&page, &body, &err), AIR_EPROTO);
	air_error_free(err);
	air__buf_dispose(&body);
	air__log_page_dispose(&page);
}

AIR_TEST(logs_page__malformed_replies)
{
	static const char *const bad[] = {"", "[]", "not json", "{\"log_records\":", "42"};
	air__log_page p = {0};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		air_error *err = NULL;
		ASSERT_EQ_INT(air__log_page_parse(&p, bad[i], strlen(bad[i]), &err), AIR_EPROTO);
		ASSERT_NOT_NULL(err);
		ASSERT_EQ_INT(p.n, 0);
		ASSERT_NULL(p.next_token);
		air_error_free(err);
	}
	air__log_page_dispose(&p);
	/* log_records of the wrong type or with odd entries are tolerated. */
	parse_ok(&p, "{\"log_records\":{\"a\":1}}");
	ASSERT_EQ_INT(p.n, 0);
	air__log_page_dispose(&p);
	parse_ok(&p, "{\"log_records\":[1,null,\"x\",{\"body\":\"kept\"},[{}]]}");
	ASSERT_EQ_INT(p.n, 1);
	ASSERT_EQ_STR(p.recs[0].body, "kept");
	air__log_page_dispose(&p);
}

AIR_TEST(logs_page__string_escapes)
{
	air__log_page p;

	parse_ok(&p, "{ \"next_page_token\" : \"t\\/1\" ,\n\t\"log_records\" : [ {\"body\":"
	             "\"q\\\"b\\\\s\\n\\r\\t\\b\\f\\/\"},{\"body\":\"\\u00e9\\u20ac\\ud83d\\ude00\"},"
	             "{\"body\":\"\\ud800x\\udc00\"},{\"body\":\"\\u0041\\u0000z\"}] }\r\n");
	ASSERT_EQ_INT(p.n, 4);
	ASSERT_EQ_STR(p.recs[0].body, "q\"b\\s\n\r\t\b\f/");
	ASSERT_EQ_STR(p.recs[1].body, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
	ASSERT_EQ_STR(p.recs[2].body, "\xef\xbf\xbdx\xef\xbf\xbd");
	ASSERT_EQ_INT(p.recs[3].len, 3);
	ASSERT_EQ_INT(memcmp(p.recs[3].body, "A\0z", 3), 0);
	ASSERT_EQ_STR(p.next_token, "t/1");
	air__log_page_dispose(&p);
}

AIR_TEST(logs_page__skips_other_members)
{
	air__log_page p;

	parse_ok(&p, "{\"x\":{\"a\":[1,2.5e-3,true,false,null,{\"b\":\"\\u1234\"}]},\"log_records\":["
	             "{\"node_index\":3,\"attrs\":{\"k\":[\"v\"]},\"time_unix_nano\":5,\"body\":\"a\"},"
	             "{\"body\":null,\"time_unix_nano\":[1]},{\"body\":\"late\",\"body\":7},"
	             "{\"time_unix_nano\":\" 12\"},{\"time_unix_nano\":\"-4\"},"
	             "{\"time_unix_nano\":99999999999999999999},{}],\"next_page_token\":5}");
	ASSERT_EQ_INT(p.n, 7);
	ASSERT_EQ_INT(p.recs[0].time_ns, 5);
	ASSERT_EQ_STR(p.recs[0].body, "a");
	ASSERT_EQ_STR(p.recs[1].body, "");
	ASSERT_EQ_INT(p.recs[1].time_ns, 0);
	ASSERT_EQ_STR(p.recs[2].body, "");      /* a later non-string body wins */
	ASSERT_EQ_INT(p.recs[3].time_ns, 0);    /* not a strict integer */
	ASSERT_EQ_INT(p.recs[4].time_ns, 0);
	ASSERT_EQ_INT(p.recs[5].time_ns, 0);
	ASSERT_EQ_INT(p.recs[6].len, 0);
	ASSERT_NULL(p.next_token);
	air__log_page_dispose(&p);
	/* A repeated log_records: the last one wins. */
	parse_ok(&p, "{\"log_records\":[{\"body\":\"a\"}],\"log_records\":[{\"body\":\"b\"}]}");
	ASSERT_EQ_INT(p.n, 1);
	ASSERT_EQ_STR(p.recs[0].body, "b");
	air__log_page_dispose(&p);
}

AIR_TEST(logs_page__syntax_errors)
{
	static const char *const bad[] = {
		"{\"log_records\":[{\"body\":\"x\"}]", "{\"a\":1}x", "{\"a\" 1}", "{\"a\":tru}",
		"{\"a\":\"\\q\"}", "{\"a\":\"\\u12\"}", "{\"a\":-}", "{\"a\":1.}", "{\"a\":1e}",
		"{\"a\":[1,]}", "{,}", "{\"a\":\"unterminated}", "{\"log_records\":[{\"body\":\"x\",}]}",
		"{\"log_records\":[{\"body\" \"x\"}]}", "{'a':1}"};
	air__log_page p = {0};
	char deep[400];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		air_error *err = NULL;
		if (air__log_page_parse(&p, bad[i], strlen(bad[i]), &err) != AIR_EPROTO)
			FAIL("accepted %s", bad[i]);
		ASSERT_CONTAINS(air_error_message(err), "malformed log page");
		air_error_free(err);
	}
	/* Nesting is bounded. */
	memset(deep, '[', sizeof(deep));
	memcpy(deep, "{\"a\":", 5);
	ASSERT_EQ_INT(air__log_page_parse(&p, deep, sizeof(deep), NULL), AIR_EPROTO);
	air__log_page_dispose(&p);
}

AIR_TEST(logs_page__buffers_are_reused)
{
	air__log_page p = {0};
	const char *big = "{\"log_records\":[{\"body\":\"a long enough line\"},{\"body\":\"b\"}],"
	                  "\"next_page_token\":\"t1\"}";
	char *arena;

	ASSERT_OK(air__log_page_parse(&p, big, strlen(big), NULL), NULL);
	arena = p.arena;
	ASSERT_EQ_INT(p.n, 2);
	big = "{\"log_records\":[{\"body\":\"c\"}]}";
	ASSERT_OK(air__log_page_parse(&p, big, strlen(big), NULL), NULL);
	ASSERT_TRUE(p.arena == arena);
	ASSERT_EQ_INT(p.n, 1);
	ASSERT_EQ_STR(p.recs[0].body, "c");
	ASSERT_NULL(p.next_token);
	air__log_page_dispose(&p);
	air__log_page_dispose(&p);
}

AIR_TEST(logs_bounds__run_window)
{
	int64_t from, to;

	/* SCENARIOS S45: whole seconds, `to` rounded up. */
	air__logs_bounds(1700000000000LL, 1700000012000LL, true, 0, 0, &from, &to);
	ASSERT_EQ_INT(from, 1700000000LL);
	ASSERT_EQ_INT(to, 1700000012LL);
	air__logs_bounds(1700000000999LL, 1700000012001LL, true, 0, 0, &from, &to);
	ASSERT_EQ_INT(from, 1700000000LL);
	ASSERT_EQ_INT(to, 1700000013LL);
	/* Active: no `to`; not started: no `from`. */
	air__logs_bounds(1700000000000LL, 0, false, 0, 0, &from, &to);
	ASSERT_EQ_INT(from, 1700000000LL);
	ASSERT_EQ_INT(to, 0);
	air__logs_bounds(0, 1700000012000LL, false, 0, 0, &from, &to);
	ASSERT_EQ_INT(from, 0);
	ASSERT_EQ_INT(to, 0);
	air__logs_bounds(0, 0, true, 0, 0, &from, &to);
	ASSERT_EQ_INT(to, 0);
	/* A server-sent end at INT64_MAX rounds up without overflowing. */
	air__logs_bounds(0, INT64_MAX, true, 0, 0, &from, &to);
	ASSERT_EQ_INT(to, INT64_MAX / 1000 + 1);
	/* --minutes wins over the start time. */
	air__logs_bounds(1700000000000LL, 1700000012000LL, true, 30, 1800000000500LL, &from, &to);
	ASSERT_EQ_INT(from, 1800000000LL - 1800);
	ASSERT_EQ_INT(to, 1700000012LL);
}

AIR_TEST(logs_bounds__query_order)
{
	air__buf q = AIR__BUF_INIT;

	air__logs_query(&q, &(air__log_query){.attempt = -1, .node = 0, .ascending = false,
	                                      .from = 1700000000, .to = 1700000012,
	                                      .page_size = 10000});
	ASSERT_EQ_STR(air__buf_cstr(&q),
	              "ascending=false&from=1700000000&to=1700000012&page_size=10000&filter.node_index=0");
	air__buf_clear(&q);
	air__logs_query(&q, &(air__log_query){.attempt = 0, .node = 2, .ascending = true,
	                                      .token = "t/ok="});
	ASSERT_EQ_STR(air__buf_cstr(&q),
	              "ascending=true&page_token=t%2Fok%3D&ref.attempt_number=0&filter.node_index=2");
	air__buf_dispose(&q);
}

/* A check whose body then goes away, as at the end of a page. */
static int check_settled(air__dedup *d, int64_t t, const char *body, size_t len)
{
	int rc = air__dedup_check(d, t, body, len);

	return air__dedup_settle(d) == AIR_OK ? rc : AIR_ENOMEM;
}

AIR_TEST(dedup__same_timestamp_pairs)
{
	air__dedup d;

	air__dedup_init(&d, AIR__LOGS_DEDUP_MAX);
	ASSERT_EQ_INT(check_settled(&d, 10, "a", 1), 0);
	ASSERT_EQ_INT(check_settled(&d, 10, "a", 1), 1);
	ASSERT_EQ_INT(check_settled(&d, 10, "b", 1), 0);
	ASSERT_EQ_INT(check_settled(&d, 10, "b", 1), 1);
	ASSERT_EQ_INT(check_settled(&d, 10, "a", 1), 1);
	/* A newer timestamp: the same body is a new pair. */
	ASSERT_EQ_INT(check_settled(&d, 11, "a", 1), 0);
	ASSERT_EQ_INT(check_settled(&d, 11, "a", 1), 1);
	ASSERT_EQ_INT(check_settled(&d, 11, "", 0), 0);
	ASSERT_EQ_INT(check_settled(&d, 11, "", 0), 1);
	air__dedup_dispose(&d);
}

AIR_TEST(dedup__many_pairs_and_growth)
{
	air__dedup d;
	char body[32];

	air__dedup_init(&d, AIR__LOGS_DEDUP_MAX);
	for (int i = 0; i < 5000; i++) {
		snprintf(body, sizeof(body), "line %d", i);
		ASSERT_EQ_INT(check_settled(&d, 42, body, strlen(body)), 0);
	}
	for (int i = 0; i < 5000; i++) {
		snprintf(body, sizeof(body), "line %d", i);
		ASSERT_EQ_INT(check_settled(&d, 42, body, strlen(body)), 1);
	}
	ASSERT_EQ_INT(d.len, 5000);
	ASSERT_TRUE(d.slot_cap >= 10000);
	/* A new timestamp after a burst releases the big table. */
	ASSERT_EQ_INT(check_settled(&d, 43, "x", 1), 0);
	ASSERT_EQ_INT(d.len, 1);
	ASSERT_TRUE(d.slot_cap <= 1024);
	air__dedup_dispose(&d);
}

AIR_TEST(dedup__evicts_the_oldest_beyond_max)
{
	air__dedup d;
	char body[16];

	air__dedup_init(&d, 4);
	for (int i = 0; i < 6; i++) {
		snprintf(body, sizeof(body), "b%d", i);
		ASSERT_EQ_INT(check_settled(&d, 7, body, strlen(body)), 0);
	}
	ASSERT_EQ_INT(d.len, 4);
	/* b0 and b1 were evicted; b2..b5 remain. */
	ASSERT_EQ_INT(check_settled(&d, 7, "b5", 2), 1);
	ASSERT_EQ_INT(check_settled(&d, 7, "b2", 2), 1);
	ASSERT_EQ_INT(check_settled(&d, 7, "b0", 2), 0); /* evicts b2 */
	ASSERT_EQ_INT(check_settled(&d, 7, "b2", 2), 0);
	ASSERT_EQ_INT(check_settled(&d, 7, "b4", 2), 1);
	air__dedup_dispose(&d);
	air__dedup_init(&d, 1);
	ASSERT_EQ_INT(check_settled(&d, 1, "a", 1), 0);
	ASSERT_EQ_INT(check_settled(&d, 1, "a", 1), 1);
	ASSERT_EQ_INT(check_settled(&d, 1, "b", 1), 0);
	ASSERT_EQ_INT(check_settled(&d, 1, "a", 1), 0);
	air__dedup_dispose(&d);
}

AIR_TEST(dedup__eviction_keeps_probe_chains_intact)
{
	/* Many evictions through a small table exercise the backward-shift delete. */
	air__dedup d;
	char body[32];

	air__dedup_init(&d, 37);
	for (int i = 0; i < 20000; i++) {
		snprintf(body, sizeof(body), "%d", i);
		ASSERT_EQ_INT(check_settled(&d, 5, body, strlen(body)), 0);
		if (i >= 36) {
			snprintf(body, sizeof(body), "%d", i - 36);
			ASSERT_EQ_INT(check_settled(&d, 5, body, strlen(body)), 1);
			/* re-checking a present pair does not insert it again */
		}
	}
	ASSERT_EQ_INT(d.len, 37);
	air__dedup_dispose(&d);
}

/* Records checked within a page are compared with each other as they come;
 * the last one is taken in when the page ends, before its body goes. */
AIR_TEST(dedup__records_of_a_page_and_the_next)
{
	char page1[] = "x y y q", page2[] = "y q z";
	air__dedup d;

	air__dedup_init(&d, AIR__LOGS_DEDUP_MAX);
	ASSERT_EQ_INT(air__dedup_check(&d, 10, page1, 1), 0);
	ASSERT_EQ_INT(air__dedup_check(&d, 11, page1 + 2, 1), 0);
	ASSERT_EQ_INT(air__dedup_check(&d, 11, page1 + 4, 1), 1);
	ASSERT_EQ_INT(air__dedup_check(&d, 11, page1 + 6, 1), 0);
	ASSERT_EQ_INT(air__dedup_settle(&d), AIR_OK);
	memset(page1, '-', sizeof(page1) - 1); /* the page is gone */
	ASSERT_EQ_INT(air__dedup_check(&d, 11, page2, 1), 1);
	ASSERT_EQ_INT(air__dedup_check(&d, 11, page2 + 2, 1), 1);
	ASSERT_EQ_INT(air__dedup_check(&d, 11, page2 + 4, 1), 0);
	ASSERT_EQ_INT(air__dedup_settle(&d), AIR_OK);
	/* A record alone at its timestamp at the end of a page. */
	ASSERT_EQ_INT(air__dedup_check(&d, 12, page2 + 4, 1), 0);
	ASSERT_EQ_INT(air__dedup_settle(&d), AIR_OK);
	memset(page2, '-', sizeof(page2) - 1);
	ASSERT_EQ_INT(air__dedup_check(&d, 12, "z", 1), 1);
	air__dedup_dispose(&d);
}

AIR_TEST(mlflow__chunk_names)
{
	ASSERT_EQ_INT(air__mlflow_chunk_index("logs/attempt_0/node_0/logs-1.chunk.txt"), 1);
	ASSERT_EQ_INT(air__mlflow_chunk_index("logs-0.chunk.txt"), 0);
	ASSERT_EQ_INT(air__mlflow_chunk_index("logs/node_3/logs-120.chunk.txt"), 120);
	ASSERT_EQ_INT(air__mlflow_chunk_index("logs/node_0/other.txt"), -1);
	ASSERT_EQ_INT(air__mlflow_chunk_index("logs/node_0/logs-.chunk.txt"), -1);
	ASSERT_EQ_INT(air__mlflow_chunk_index("logs/node_0/logs-1.chunk.txt.bak"), -1);
	ASSERT_EQ_INT(air__mlflow_chunk_index("logs/node_0/xlogs-1.chunk.txt"), -1);
	ASSERT_EQ_INT(air__mlflow_chunk_index("logs/node_0/logs-1a.chunk.txt"), -1);
	ASSERT_EQ_INT(air__mlflow_chunk_index("logs-99999999999999999999.chunk.txt"), -1);
}

AIR_TEST(mlflow__log_dirs)
{
	char *d = air__mlflow_log_dir(true, 2, 5);
	ASSERT_EQ_STR(d, "logs/attempt_2/node_5");
	air__free(d);
	d = air__mlflow_log_dir(false, 2, 5);
	ASSERT_EQ_STR(d, "logs/node_5");
	air__free(d);
}

static air_run *run_of(const char *state)
{
	char buf[256];
	air_run *r = NULL;

	snprintf(buf, sizeof(buf), "{\"run_id\":9,\"state\":%s}", state);
	ASSERT_EQ_INT(air__run_from_json(json_loads(buf, 0, NULL), &r, NULL), AIR_OK);
	return r;
}

AIR_TEST(logs__no_logs_messages)
{
	air_run *r = run_of("{\"life_cycle_state\":\"TERMINATED\",\"result_state\":\"FAILED\","
	                    "\"state_message\":\"boom\"}");
	char *m = air__no_logs_message(r);

	ASSERT_CONTAINS(m, "run 9");
	ASSERT_TRUE(air__ends_with(m, "FAILED: boom"));
	air__free(m);
	air_run_free(r);
	r = run_of("{\"life_cycle_state\":\"TERMINATED\",\"result_state\":\"SUCCESS\"}");
	m = air__no_logs_message(r);
	ASSERT_TRUE(air__ends_with(m, "SUCCESS"));
	air__free(m);
	air_run_free(r);
	r = run_of("{\"life_cycle_state\":\"RUNNING\"}");
	m = air__no_logs_message(r);
	ASSERT_CONTAINS(m, "9");
	ASSERT_CONTAINS(m, "no logs yet");
	ASSERT_CONTAINS(m, "RUNNING");
	air__free(m);
	air_run_free(r);
}

AIR_TEST(logs_options__defaults_and_ranges)
{
	air_logs_options *o = NULL;

	ASSERT_EQ_INT(air_logs_options_new(&o), AIR_OK);
	ASSERT_EQ_INT(o->follow, 1);
	ASSERT_EQ_INT(air__logs_tail_target(o), 10000);
	ASSERT_EQ_INT(o->node, -1);
	ASSERT_EQ_INT(o->attempt, -1);
	ASSERT_EQ_INT(o->poll_ms, -1); /* the client's */
	ASSERT_EQ_INT(o->max_failures, 5);
	ASSERT_EQ_INT(air_logs_options_set_int(o, AIR_LOGS_FOLLOW, 2), AIR_EINVAL);
	ASSERT_EQ_INT(air_logs_options_set_int(o, AIR_LOGS_FOLLOW, 0), AIR_OK);
	ASSERT_EQ_INT(air_logs_options_set_int(o, AIR_LOGS_TAIL_LINES, -2), AIR_EINVAL);
	ASSERT_EQ_INT(air_logs_options_set_int(o, AIR_LOGS_TAIL_LINES, 0), AIR_OK);
	ASSERT_EQ_INT(air__logs_tail_target(o), 0);
	ASSERT_EQ_INT(air_logs_options_set_int(o, AIR_LOGS_MINUTES, -1), AIR_EINVAL);
	ASSERT_EQ_INT(air_logs_options_set_int(o, AIR_LOGS_MINUTES, INT64_MAX), AIR_EINVAL);
	ASSERT_EQ_INT(air_logs_options_set_int(o, AIR_LOGS_NODE, -2), AIR_EINVAL);
	ASSERT_EQ_INT(air_logs_options_set_int(o, AIR_LOGS_NODE, 3), AIR_OK);
	ASSERT_EQ_INT(air_logs_options_set_int(o, AIR_LOGS_ATTEMPT, -7), AIR_OK);
	ASSERT_EQ_INT(o->attempt, -1);
	ASSERT_EQ_INT(air_logs_options_set_int(o, AIR_LOGS_ATTEMPT, (int64_t)INT32_MAX + 1),
	              AIR_EINVAL);
	ASSERT_EQ_INT(air_logs_options_set_int(o, AIR_LOGS_POLL_INTERVAL_MS, -1), AIR_EINVAL);
	ASSERT_EQ_INT(air_logs_options_set_int(o, AIR_LOGS_MAX_PAGE_FAILURES, 0), AIR_EINVAL);
	ASSERT_EQ_INT(air_logs_options_set_int(o, 12345, 0), AIR_EUNSUPPORTED);
	ASSERT_EQ_INT(air_logs_options_set_int(NULL, AIR_LOGS_NODE, 0), AIR_EINVAL);
	ASSERT_EQ_INT(air_logs_options_set_interrupt(NULL, NULL), AIR_EINVAL);
	air_logs_options_free(o);
	air_logs_options_free(NULL);
	air_logs_summary_free(NULL);
	air_download_report_free(NULL);
	ASSERT_EQ_INT(air_logs_summary_state(NULL), AIR_STATE_UNKNOWN);
	ASSERT_EQ_INT(air_logs_summary_records(NULL), 0);
	ASSERT_NULL(air_log_record_line(NULL, NULL));
}

AIR_TEST(logs_summary__state)
{
	air_logs_summary s = {0};

	s.state = (char *)"SUCCESS";
	ASSERT_EQ_INT(air_logs_summary_state(&s), AIR_STATE_SUCCESS);
	ASSERT_EQ_STR(air_logs_summary_state_name(&s), "SUCCESS");
	s.state = (char *)"SOMETHING_NEW";
	ASSERT_EQ_INT(air_logs_summary_state(&s), AIR_STATE_OTHER);
	ASSERT_EQ_STR(air_logs_summary_state_name(&s), "SOMETHING_NEW");
}

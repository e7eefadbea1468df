/*
 * test_local_reader.c: node logs read straight from their files
 * (lib/local/logread.c) give what the log endpoint gives — the same records,
 * times, page tokens and bounds — and leave to the endpoint what it alone
 * answers; the watch of a run (lib/local/watch.c) ends a pause when the run
 * changes. White-box, on state directories built by hand.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "local/local_priv.h"
#include "test.h"

#define RUN 3
#define ENDPOINT "/api/2.0/ai-training/workflows/by-run-id/3/logs"

/* A state directory (its path in *state, may be NULL) with run 3 in
 * @state_json and node 0's log @log_text (NULL: no log yet). */
static air__local *make_run(const char *state_json, const char *log_text, const char **state_out)
{
	const char *state = air_test_tmpdir();
	char *run = air__sprintf("%s/jobs/runs/%d", state, RUN);
	char *logs = air__sprintf("%s/logs/attempt_0", run);
	char *status = air__lpath(run, "status.json"), *log = air__lpath(logs, "node_0.log");
	air__local *ws = NULL;

	ASSERT_EQ_INT(air__lmkdirs(logs, 0700), 0);
	air_test_write_file(status, state_json, strlen(state_json));
	if (log_text)
		air_test_write_file(log, log_text, strlen(log_text));
	ASSERT_OK(air__local_new(state, NULL, &ws, NULL), NULL);
	if (state_out)
		*state_out = state;
	air__free(log);
	air__free(run);
	air__free(logs);
	air__free(status);
	return ws;
}

static const char ended[] = "{\"state\":\"TERMINATED\",\"result\":\"SUCCESS\",\"attempts\":[{}]}";

/* A page of the endpoint for @q, as the module would ask for it. */
static json_t *endpoint_page(air__local *ws, const air__log_query *q)
{
	air__buf query = AIR__BUF_INIT;
	air__local_reply r = AIR__LOCAL_REPLY_INIT;
	air_error *err = NULL;
	air__local_req req;
	json_t *v;

	air__buf_query(&query, "ascending", q->ascending ? "true" : "false");
	if (q->from > 0)
		air__buf_query_int(&query, "from", q->from);
	if (q->to > 0)
		air__buf_query_int(&query, "to", q->to);
	if (q->token)
		air__buf_query(&query, "page_token", q->token);
	if (q->page_size > 0)
		air__buf_query_int(&query, "page_size", q->page_size);
	air__buf_query_int(&query, "filter.node_index", q->node);
	req = (air__local_req){"GET", ENDPOINT, air__buf_cstr(&query), NULL, 0, NULL, NULL};
	ASSERT_OK(air__local_serve(ws, NULL, &req, &r, &err), err);
	ASSERT_EQ_INT(r.status, 200);
	v = json_loads(r.body, 0, NULL);
	ASSERT_NOT_NULL(v);
	air__local_reply_clear(&r);
	air__buf_dispose(&query);
	return v;
}

/* Every record of the chain of @first, as "<time> <body>\n" lines, page by
 * page through the endpoint or (@direct) the reader. */
static char *chain(air__local *ws, const air__log_query *first, bool direct)
{
	air__buf out = AIR__BUF_INIT;
	air__log_query q = *first;
	air__local_log *r = NULL;
	char *token = NULL;

	do {
		if (direct) {
			air__log_span span;
			air_error *err = NULL;
			ASSERT_OK(air__local_log_read(ws, NULL, &r, &q, &span, &err), err);
			for (size_t i = 0; i < span.n; i++) {
				ASSERT_EQ_INT(strlen(span.recs[i].body), span.recs[i].len);
				air__buf_printf(&out, "%lld %s\n", (long long)span.recs[i].time_ns,
				                span.recs[i].body);
			}
			air__free(token);
			token = air__strdup(span.next_token);
		} else {
			json_t *page = endpoint_page(ws, &q), *rec;
			size_t i;
			json_array_foreach(json_object_get(page, "log_records"), i, rec)
				air__buf_printf(&out, "%lld %s\n",
				                (long long)air__json_int64_or(rec, "time_unix_nano", -1),
				                air__json_str(rec, "body"));
			air__free(token);
			token = air__strdup(air__json_str(page, "next_page_token"));
			json_decref(page);
		}
		q.token = token;
	} while (token);
	air__local_log_free(r);
	return air__buf_detach(&out);
}

/* The pages of @first asked for as text (@tail: a tail read oldest first,
 * as the log iterator asks it), joined. */
static char *text_chain(air__local *ws, const air__log_query *first)
{
	air__buf out = AIR__BUF_INIT;
	air__log_query q = *first;
	air__local_log *r = NULL;
	char *token = NULL;
	int64_t left = q.tail;

	q.text = true;
	if (q.tail > 0)
		q.page_size = q.tail;
	do {
		air__log_span span;
		air_error *err = NULL;
		ASSERT_OK(air__local_log_read(ws, NULL, &r, &q, &span, &err), err);
		ASSERT_NULL(span.recs);
		ASSERT_TRUE(span.text_len == 0 || span.text[span.text_len - 1] == '\n');
		air__buf_put(&out, span.text, span.text_len);
		air__free(token);
		token = air__strdup(span.next_token);
		q.token = token;
		if (left > 0) {
			left -= (int64_t)span.n;
			q.tail = 0;
			q.page_size = left;
			if (left == 0)
				break;
		}
	} while (token);
	air__free(token);
	air__local_log_free(r);
	return air__buf_detach(&out);
}

/* The lines of a chain() of the endpoint ("<time> <body>" each), bodies only. */
static char *bodies(const char *records)
{
	air__buf out = AIR__BUF_INIT;

	for (const char *p = records; *p;) {
		const char *nl = strchr(p, '\n'), *sp = strchr(p, ' ');
		air__buf_put(&out, sp + 1, (size_t)(nl + 1 - (sp + 1)));
		p = nl + 1;
	}
	air__buf_putc(&out, '\0');
	out.len--;
	return air__buf_detach(&out);
}

/* 2500 records, one a second from t = 1001 s. */
static char *tick_log(void)
{
	air__buf b = AIR__BUF_INIT;

	for (int i = 1; i <= 2500; i++)
		air__buf_printf(&b, "%lld r%d\n", (long long)(1000 + i) * 1000000000, i);
	return air__buf_detach(&b);
}

/* Queries of tick_log(): windows, page sizes, an attempt, a node without a log. */
static const air__log_query windows[] = {
	{.run_id = RUN, .attempt = -1, .ascending = true},
	{.run_id = RUN, .attempt = -1, .ascending = true, .from = 1101, .to = 2101},
	{.run_id = RUN, .attempt = -1, .ascending = true, .page_size = 700},
	{.run_id = RUN, .attempt = -1, .ascending = true, .from = 1500, .page_size = 1},
	{.run_id = RUN, .attempt = 0, .ascending = true, .to = 1003},
	{.run_id = RUN, .attempt = -1, .ascending = true, .from = 9999},
	{.run_id = RUN, .attempt = -1, .node = 1, .ascending = true},
};

/* The lines of tick_log()'s records @first to @last, each with its newline. */
static char *tick_lines(int64_t first, int64_t last)
{
	air__buf b = AIR__BUF_INIT;

	for (int64_t k = first; k <= last; k++)
		air__buf_printf(&b, "r%lld\n", (long long)k);
	air__buf_putc(&b, '\0');
	b.len--;
	return air__buf_detach(&b);
}

AIR_TEST(local_reader__pages_are_the_endpoints)
{
	char *log = tick_log();
	air__local *ws = make_run(ended, log, NULL);

	for (size_t i = 0; i < AIR__ARRAY_SIZE(windows); i++) {
		char *want = chain(ws, &windows[i], false), *got = chain(ws, &windows[i], true);
		ASSERT_EQ_STR(got, want);
		air__free(want);
		air__free(got);
	}
	air__local_free(ws);
	air__free(log);
}

/* A tail read oldest first is the endpoint's tail (newest first) turned around. */
AIR_TEST(local_reader__a_tail_is_the_newest_records_oldest_first)
{
	char *log = tick_log();
	air__local *ws = make_run(ended, log, NULL);
	const int64_t tails[] = {1, 7, 1000, 2499, 2500, 100000};

	for (size_t i = 0; i < AIR__ARRAY_SIZE(tails); i++) {
		for (int64_t to = 0; to <= 2001; to += 2001) {
			air__log_query q = {.run_id = RUN, .attempt = -1, .ascending = true, .to = to,
			                    .from = 1002, .tail = tails[i], .page_size = tails[i]};
			air__log_span span;
			air__local_log *r = NULL;
			int64_t last = to ? 1000 : 2500;
			int64_t n = tails[i] < last - 1 ? tails[i] : last - 1, seen = 0;

			do {
				ASSERT_OK(air__local_log_read(ws, NULL, &r, &q, &span, NULL), NULL);
				for (size_t k = 0; k < span.n; k++, seen++) {
					char want[32];
					snprintf(want, sizeof(want), "r%lld", (long long)(last - n + 1 + seen));
					ASSERT_EQ_STR(span.recs[k].body, want);
				}
				q.token = span.next_token;
				q.tail = 0;
				q.page_size = n - seen;
			} while (q.token && seen < n);
			ASSERT_EQ_INT(seen, n);
			air__local_log_free(r);
		}
	}
	air__local_free(ws);
	air__free(log);
}

/* With the count file of a finished log, a tail is found by counting the
 * shorter way (from the start or back from the end), with the same
 * records; a count file of another size is not used. */
AIR_TEST(local_reader__a_counted_log_gives_the_same_tails)
{
	char *log = tick_log();
	const char *state;
	air__local *ws = make_run(ended, log, &state);
	char *path = air__sprintf("%s/jobs/runs/%d/logs/attempt_0/node_0.log.count", state, RUN);
	const int64_t tails[] = {1, 7, 1000, 1249, 1250, 1251, 2499, 2500, 100000};
	char count[64];

	for (int stale = 0; stale < 2; stale++) {
		snprintf(count, sizeof(count), "%zu %d\n", strlen(log) + (size_t)stale, stale ? 7 : 2500);
		air_test_write_file(path, count, strlen(count));
		for (size_t i = 0; i < AIR__ARRAY_SIZE(tails); i++) {
			for (int text = 0; text < 2; text++) {
				air__log_query q = {.run_id = RUN, .attempt = -1, .ascending = true,
				                    .tail = tails[i]};
				int64_t n = tails[i] < 2500 ? tails[i] : 2500;
				char *want = tick_lines(2500 - n + 1, 2500), *got;

				if (text) {
					got = text_chain(ws, &q);
				} else {
					char *records;
					q.page_size = q.tail;
					records = chain(ws, &q, true);
					got = bodies(records);
					air__free(records);
				}
				ASSERT_EQ_STR(got, want);
				air__free(want);
				air__free(got);
			}
		}
	}
	air__free(path);
	air__local_free(ws);
	air__free(log);
}

/* With the count file @count written beside the log of run RUN (in
 * @state), each of the @n queries @q gives the text @want[i] it gave
 * without it (freed here). */
static void same_text_counted(air__local *ws, const char *state, const air__log_query *q,
                              size_t n, char **want, const char *count)
{
	char *path = air__sprintf("%s/jobs/runs/%d/logs/attempt_0/node_0.log.count", state, RUN);

	air_test_write_file(path, count, strlen(count));
	for (size_t i = 0; i < n; i++) {
		char *got = text_chain(ws, &q[i]);
		ASSERT_EQ_STR(got, want[i]);
		air__free(got);
		air__free(want[i]);
	}
	air__free(path);
}

/* A log whose count file vouches for its times' width (nineteen digits, as
 * the writer makes them from 2001 on) gives the same text, whole, paged or
 * as a tail, over several blocks; a record too short to hold such a time
 * is read as the endpoint reads it all the same. */
AIR_TEST(local_reader__a_vouched_log_gives_the_same_text)
{
	air__buf b = AIR__BUF_INIT;
	const char *state;
	air__local *ws;
	char count[64];
	const air__log_query queries[] = {
		{.run_id = RUN, .attempt = -1, .ascending = true},
		{.run_id = RUN, .attempt = -1, .ascending = true, .page_size = 700},
		{.run_id = RUN, .attempt = -1, .ascending = true, .tail = 1},
		{.run_id = RUN, .attempt = -1, .ascending = true, .tail = 9000},
		{.run_id = RUN, .attempt = -1, .ascending = true, .tail = 20000},
	};
	char *want[AIR__ARRAY_SIZE(queries)];

	for (int i = 1; i <= 12000; i++)
		air__buf_printf(&b, "%lld line %d\n", 1700000000000000000LL + i, i);
	air__buf_puts(&b, "12 short\n1700000000000020000 \n1700000000000020001 last\n");
	ASSERT_TRUE(b.len > 256 * 1024); /* more than one block */
	ws = make_run(ended, air__buf_cstr(&b), &state);
	for (size_t i = 0; i < AIR__ARRAY_SIZE(queries); i++)
		want[i] = text_chain(ws, &queries[i]);
	ASSERT_CONTAINS(want[0], "\nline 12000\nshort\n\nlast\n");
	snprintf(count, sizeof(count), "%zu %d %d\n", b.len, 12003, AIR__LOCAL_TEXT_AT);
	same_text_counted(ws, state, queries, AIR__ARRAY_SIZE(queries), want, count);
	/* Records with their times too, as the endpoint reads them (which does
	 * not take the count file's word), whole, paged and bounded in time. */
	for (size_t i = 0; i < 2; i++) {
		air__log_query q = queries[i];
		char *endpoint, *direct;

		q.to = i ? 1700000001 : 0; /* a bound after every record */
		endpoint = chain(ws, &q, false);
		direct = chain(ws, &q, true);
		ASSERT_CONTAINS(endpoint, "\n1700000000000012000 line 12000\n12 short\n");
		ASSERT_EQ_STR(direct, endpoint);
		air__free(endpoint);
		air__free(direct);
	}
	air__local_free(ws);
	air__buf_dispose(&b);
}

/* A count file the log does not bear out (it vouches for nineteen-digit
 * times beside a log of short ones) is not used: the text, whole, paged and
 * as tails, is the log's. */
AIR_TEST(local_reader__a_count_file_the_log_belies_is_not_used)
{
	air__buf b = AIR__BUF_INIT;
	const char *state;
	air__local *ws;
	char count[64];
	const air__log_query queries[] = {
		{.run_id = RUN, .attempt = -1, .ascending = true},
		{.run_id = RUN, .attempt = -1, .ascending = true, .page_size = 700},
		{.run_id = RUN, .attempt = -1, .ascending = true, .tail = 3},
		{.run_id = RUN, .attempt = -1, .ascending = true, .tail = 5000},
	};
	char *want[AIR__ARRAY_SIZE(queries)];

	for (int i = 1; i <= 6000; i++)
		air__buf_printf(&b, "%d line number %d of a log whose times are short\n", i, i);
	ws = make_run(ended, air__buf_cstr(&b), &state);
	for (size_t i = 0; i < AIR__ARRAY_SIZE(queries); i++)
		want[i] = text_chain(ws, &queries[i]);
	ASSERT_CONTAINS(want[0], "\nline number 6000 of a log whose times are short\n");
	ASSERT_CONTAINS(want[2], "line number 5998 of");
	snprintf(count, sizeof(count), "%zu 6000 %d\n", b.len, AIR__LOCAL_TEXT_AT);
	same_text_counted(ws, state, queries, AIR__ARRAY_SIZE(queries), want, count);
	air__local_free(ws);
	air__buf_dispose(&b);
}

/* Times as the endpoint reads them, however a record is written. */
AIR_TEST(local_reader__odd_records_read_as_the_endpoint_reads_them)
{
	static const char odd[] = "1700000000000000000 nineteen digits\n"
	                          "1700000000000000001 \n"
	                          "1700000000000000002x no space\n"
	                          "9223372036854775806 near the largest time\n"
	                          "99999999999999999999999 too many digits\n"
	                          "12 short\n"
	                          "no time at all\n"
	                          "\n"
	                          "1700000000000000003 last, still being written";
	air__local *ws = make_run(ended, odd, NULL);
	air__log_query q = {.run_id = RUN, .attempt = -1, .ascending = true};
	char *want = chain(ws, &q, false), *got = chain(ws, &q, true);

	ASSERT_CONTAINS(want, "1700000000000000001 \n");
	ASSERT_NOT_CONTAINS(want, "still being written");
	ASSERT_EQ_STR(got, want);
	air__free(want);
	air__free(got);
	air__local_free(ws);
}

/* A record longer than the reader's block, then more. */
AIR_TEST(local_reader__a_record_longer_than_a_block_is_read_whole)
{
	size_t big = 700 * 1024;
	air__buf b = AIR__BUF_INIT;
	air__local *ws;
	air__log_query q = {.run_id = RUN, .attempt = -1, .ascending = true};
	char *want, *got;

	air__buf_puts(&b, "1700000000000000000 first\n1700000000000000001 ");
	for (size_t i = 0; i < big; i++)
		air__buf_putc(&b, (char)('a' + i % 26));
	air__buf_puts(&b, "\n1700000000000000002 after\n");
	ws = make_run(ended, air__buf_cstr(&b), NULL);
	want = chain(ws, &q, false);
	got = chain(ws, &q, true);
	ASSERT_EQ_INT(strlen(got), b.len);
	ASSERT_EQ_STR(got, want);
	air__free(want);
	air__free(got);
	air__local_free(ws);
	air__buf_dispose(&b);
}

/* A query asked for text gives the lines of the records the endpoint gives,
 * each followed by a newline: windows, pages, tails, odd records, a record
 * longer than a block. */
AIR_TEST(local_reader__text_pages_are_the_endpoints_lines)
{
	char *log = tick_log();
	air__buf big = AIR__BUF_INIT;
	const char *odd = "1700000000000000000 nineteen digits\n1700000000000000001 \n"
	                  "1700000000000000002x no space\n99999999999999999999999 too many\n"
	                  "12 short\nno time at all\n\n1700000000000000003 being written";
	const int64_t tails[] = {1, 7, 1000, 2500, 100000};
	air__local *ws = make_run(ended, log, NULL);

	for (size_t i = 0; i < AIR__ARRAY_SIZE(windows); i++) {
		char *want = chain(ws, &windows[i], false), *lines = bodies(want);
		char *got = text_chain(ws, &windows[i]);
		ASSERT_EQ_STR(got, lines);
		air__free(want);
		air__free(lines);
		air__free(got);
	}
	for (size_t i = 0; i < AIR__ARRAY_SIZE(tails); i++) {
		for (int64_t to = 0; to <= 2001; to += 2001) {
			air__log_query q = {.run_id = RUN, .attempt = -1, .ascending = true, .to = to,
			                    .from = 1002, .tail = tails[i]};
			int64_t last = to ? 1000 : 2500, n = tails[i] < last - 1 ? tails[i] : last - 1;
			char *want = tick_lines(last - n + 1, last), *got = text_chain(ws, &q);
			ASSERT_EQ_STR(got, want);
			air__free(want);
			air__free(got);
		}
	}
	air__local_free(ws);
	air__free(log);

	/* Odd records, then a record longer than a block between two others. */
	air__buf_puts(&big, "1700000000000000000 first\n1700000000000000001 ");
	for (size_t i = 0; i < 700 * 1024; i++)
		air__buf_putc(&big, (char)('a' + i % 26));
	air__buf_puts(&big, "\n1700000000000000002 after\n");
	/* Odd records, a record longer than a block, times that do not grow. */
	const char *logs[] = {odd, air__buf_cstr(&big),
	                      "2000000000000 a\n3000000000000 b\nno time\n"};
	for (size_t k = 0; k < AIR__ARRAY_SIZE(logs); k++) {
		const air__log_query qs[] = {
			{.run_id = RUN, .attempt = -1, .ascending = true},
			{.run_id = RUN, .attempt = -1, .ascending = true, .tail = 10},
			{.run_id = RUN, .attempt = -1, .ascending = true, .to = 2500},
		};

		ws = make_run(ended, logs[k], NULL);
		for (size_t i = 0; i < AIR__ARRAY_SIZE(qs); i++) {
			air__log_query all = qs[i];
			char *want, *lines, *got;

			all.tail = 0; /* the endpoint's records, a tail of 10 is all of them */
			want = chain(ws, &all, false);
			lines = bodies(want);
			got = text_chain(ws, &qs[i]);
			ASSERT_EQ_STR(got, lines);
			air__free(want);
			air__free(lines);
			air__free(got);
		}
		air__local_free(ws);
	}
	air__buf_dispose(&big);
}

/* While the run goes on (its supervisor holds the lock), the log may not
 * exist yet and grows: each page sees what is there. */
AIR_TEST(local_reader__a_log_that_appears_later_is_read)
{
	static const char running[] = "{\"state\":\"RUNNING\",\"attempts\":[{}]}";
	const char *state;
	air__local *ws = make_run(running, NULL, &state);
	char *log = air__sprintf("%s/jobs/runs/%d/logs/attempt_0/node_0.log", state, RUN);
	char *lock = air__sprintf("%s/jobs/runs/%d/supervisor.lock", state, RUN);
	air__log_query q = {.run_id = RUN, .attempt = -1, .ascending = true};
	air__local_log *r = NULL;
	air__log_span span;
	int fd = -1;

	ASSERT_EQ_INT(air__llock(lock, false, NULL, &fd), 0);
	ASSERT_OK(air__local_log_read(ws, NULL, &r, &q, &span, NULL), NULL);
	ASSERT_EQ_INT(span.n, 0);
	ASSERT_NULL(span.next_token);
	air_test_write_file(log, "1700000000000000000 one\n1700000000000000001 tw", 47);
	ASSERT_OK(air__local_log_read(ws, NULL, &r, &q, &span, NULL), NULL);
	ASSERT_EQ_INT(span.n, 1);
	ASSERT_EQ_STR(span.recs[0].body, "one");
	air_test_write_file(log, "1700000000000000000 one\n1700000000000000001 two\n", 48);
	q.from = 1700000000;
	ASSERT_OK(air__local_log_read(ws, NULL, &r, &q, &span, NULL), NULL);
	ASSERT_EQ_INT(span.n, 2);
	ASSERT_EQ_STR(span.recs[1].body, "two");
	ASSERT_EQ_INT(span.recs[1].time_ns, 1700000000000000001LL);
	air__local_log_free(r);
	air__lunlock(fd);
	air__free(lock);
	air__free(log);
	air__local_free(ws);
}

/* What only the endpoint answers the same way is left to it. */
AIR_TEST(local_reader__the_endpoint_answers_what_it_alone_can)
{
	char *log = tick_log();
	const char *state;
	air__local *ws = make_run(ended, log, &state);
	const air__log_query left[] = {
		{.run_id = RUN, .attempt = -1, .ascending = false},           /* newest first */
		{.run_id = RUN, .attempt = -1, .ascending = true, .token = "5"}, /* not a record start */
		{.run_id = RUN, .attempt = -1, .ascending = true, .token = "x"},
		{.run_id = 4, .attempt = -1, .ascending = true},               /* no such run */
		{.run_id = RUN, .attempt = -1, .node = -1, .ascending = true},
	};
	char *status = air__sprintf("%s/jobs/runs/%d/status.json", state, RUN);

	for (size_t i = 0; i < AIR__ARRAY_SIZE(left); i++) {
		air__local_log *r = NULL;
		air__log_span span;
		ASSERT_EQ_INT(air__local_log_read(ws, NULL, &r, &left[i], &span, NULL),
		              AIR_EUNSUPPORTED);
		air__local_log_free(r);
	}
	/* A damaged run: the endpoint says so (DATA_LOSS). */
	air_test_write_file(status, "{\"state\":", 9);
	{
		air__local_log *r = NULL;
		air__log_span span;
		ASSERT_EQ_INT(air__local_log_read(ws, NULL, &r, &left[0], &span, NULL),
		              AIR_EUNSUPPORTED);
		ASSERT_EQ_INT(air__local_log_read(ws, NULL, &r,
		                                  &(air__log_query){.run_id = RUN, .attempt = -1,
		                                                    .ascending = true},
		                                  &span, NULL),
		              AIR_EUNSUPPORTED);
		air__local_log_free(r);
	}
	air__free(status);
	air__free(log);
	air__local_free(ws);
}

/* A pause on a watched run ends when its status.json is replaced; an
 * interrupt ends it too. The pauses are ten minutes: only the events can end
 * them before the test's time limit. */
AIR_TEST(local_reader__a_watched_run_wakes_its_reader)
{
	static const char running[] = "{\"state\":\"RUNNING\",\"attempts\":[{}]}";
	const char *state;
	air__local *ws = make_run(running, NULL, &state);
	char *status = air__sprintf("%s/jobs/runs/%d/status.json", state, RUN);
	json_t *fresh = json_pack("{s:s}", "state", "TERMINATED");
	air__local_watch *w = NULL;
	air_interrupt *intr = NULL;
	air__ctx ctx;
	air_error *err = NULL;

	ASSERT_OK(air__local_watch_run(ws, RUN, false, &w), NULL);
	/* Replaced (as the supervisor does) before the pause: the event waits for it. */
	ASSERT_EQ_INT(air__lwrite_json(status, fresh, false), 0);
	ASSERT_OK(air__local_watch_wait(w, NULL, 600000, "test", &err), err);
	ASSERT_OK(air_interrupt_new(&intr), NULL);
	air__ctx_init(&ctx, NULL, intr);
	air_interrupt_trigger(intr);
	ASSERT_EQ_INT(air__local_watch_wait(w, &ctx, 600000, "test", &err), AIR_EINTERRUPTED);
	air_error_free(err);
	air_interrupt_free(intr);
	air__local_watch_free(w);
	json_decref(fresh);
	air__free(status);
	air__local_free(ws);
}

/* A watch's inotify instance serves the next watch (closing one waits for
 * the kernel): what the first one saw does not wake the second, and the
 * second wakes on its own run's change. */
AIR_TEST(local_reader__a_watch_reuses_the_instance_of_an_ended_one)
{
	static const char running[] = "{\"state\":\"RUNNING\",\"attempts\":[{}]}";
	const char *state;
	air__local *ws = make_run(running, "1 a\n", &state);
	char *status = air__sprintf("%s/jobs/runs/%d/status.json", state, RUN);
	char *log = air__sprintf("%s/jobs/runs/%d/logs/attempt_0/node_0.log", state, RUN);
	json_t *fresh = json_pack("{s:s}", "state", "TERMINATED");
	air__local_watch *w = NULL;
	air_interrupt *intr = NULL;
	air__ctx ctx;
	air_error *err = NULL;
	int64_t t0;

	ASSERT_OK(air__local_watch_run(ws, RUN, true, &w), NULL);
	/* Changes the first watch never read. */
	ASSERT_EQ_INT(air__lwrite_json(status, fresh, false), 0);
	air_test_write_file(log, "1 a\n2 b\n", 8);
	air__local_watch_free(w);
	ASSERT_EQ_INT(ws->n_idle_watch_fds, 1);
	ASSERT_OK(air__local_watch_run(ws, RUN, true, &w), NULL);
	ASSERT_EQ_INT(ws->n_idle_watch_fds, 0);
	/* Nothing new: the pause lasts its time (an interrupt ends it, so that
	 * the test waits on no clock but its own). */
	ASSERT_OK(air_interrupt_new(&intr), NULL);
	air__ctx_init(&ctx, NULL, intr);
	t0 = air__mono_ms();
	ASSERT_OK(air__local_watch_wait(w, &ctx, 200, "test", &err), err);
	ASSERT_TRUE(air__mono_ms() - t0 >= 200);
	/* Its own run's change wakes it. */
	ASSERT_EQ_INT(air__lwrite_json(status, fresh, false), 0);
	ASSERT_OK(air__local_watch_wait(w, &ctx, 600000, "test", &err), err);
	air_interrupt_free(intr);
	air__local_watch_free(w);
	json_decref(fresh);
	air__free(status);
	air__free(log);
	air__local_free(ws);
}

/* test_core.c: version, buffers, strings, randomness, interrupts. */
#include <poll.h>
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/core.h"
#include "test.h"

AIR_TEST(version__runtime_matches_header)
{
	char expect[32];

	ASSERT_EQ_INT(air_version_number(), AIR_VERSION_NUM);
	snprintf(expect, sizeof(expect), "%d.%d.%d", AIR_VERSION_MAJOR, AIR_VERSION_MINOR,
	         AIR_VERSION_PATCH);
	ASSERT_EQ_STR(air_version_string(), expect);
	ASSERT_TRUE(air_features() & AIR_FEATURE_THREADSAFE);
	ASSERT_TRUE(AIR_VERSION_AT_LEAST(0, 1, 0));
}

AIR_TEST(global__init_is_reference_counted)
{
	ASSERT_EQ_INT(air_global_init(), AIR_OK);
	ASSERT_EQ_INT(air_global_init(), AIR_OK);
	air_global_cleanup();
	air_global_cleanup();
	air_global_cleanup(); /* extra cleanup is harmless */
}

AIR_TEST(buf__printf_urlencode_query)
{
	air__buf b = AIR__BUF_INIT;

	air__buf_printf(&b, "%s-%d", "x", 42);
	ASSERT_EQ_STR(air__buf_cstr(&b), "x-42");
	air__buf_clear(&b);
	air__buf_put_urlencoded(&b, "/Workspace/Users/a b@c.com", false);
	ASSERT_EQ_STR(air__buf_cstr(&b), "%2FWorkspace%2FUsers%2Fa%20b%40c.com");
	air__buf_clear(&b);
	air__buf_put_urlencoded(&b, "/Volumes/x y", true);
	ASSERT_EQ_STR(air__buf_cstr(&b), "/Volumes/x%20y");
	air__buf_clear(&b);
	air__buf_query(&b, "filter_by.policy_name", "team a");
	air__buf_query_int(&b, "page_size", 1000);
	ASSERT_EQ_STR(air__buf_cstr(&b), "filter_by.policy_name=team%20a&page_size=1000");
	{
		char *s = air__buf_detach(&b);
		ASSERT_EQ_STR(s, "filter_by.policy_name=team%20a&page_size=1000");
		air__free(s);
	}
	ASSERT_NULL(b.ptr);
	air__buf_dispose(&b);
}

AIR_TEST(buf__grows_past_many_pages)
{
	air__buf b = AIR__BUF_INIT;

	for (int i = 0; i < 100000; i++)
		air__buf_putc(&b, 'a');
	ASSERT_EQ_INT(b.len, 100000);
	ASSERT_EQ_INT(strlen(b.ptr), 100000);
	ASSERT_FALSE(air__buf_oom(&b));
	air__buf_dispose(&b);
}

AIR_TEST(util__trim_and_blank)
{
	size_t n;
	const char *t = air__trim("  ab c \n", &n);
	char *d;

	ASSERT_EQ_INT(n, 4);
	ASSERT_TRUE(strncmp(t, "ab c", n) == 0);
	ASSERT_TRUE(air__is_blank(" \t\n"));
	ASSERT_TRUE(air__is_blank(NULL));
	ASSERT_FALSE(air__is_blank(" x "));
	d = air__trim_dup("  y ");
	ASSERT_EQ_STR(d, "y");
	air__free(d);
	ASSERT_EQ_INT(air__strcasecmp("Team-A", "team-a"), 0);
	ASSERT_TRUE(air__starts_with("/Workspace/x", "/Workspace"));
	ASSERT_TRUE(air__ends_with("a.yaml", ".yaml"));
}

AIR_TEST(util__utf8_cut_keeps_whole_characters)
{
	const char *s = "ab\xC3\xA9\xE2\x82\xAC!"; /* a b é € ! */

	ASSERT_EQ_INT(air__utf8_cut(s, 8, 8), 8);  /* fits */
	ASSERT_EQ_INT(air__utf8_cut(s, 8, 3), 2);  /* not inside é */
	ASSERT_EQ_INT(air__utf8_cut(s, 8, 4), 4);
	ASSERT_EQ_INT(air__utf8_cut(s, 8, 5), 4);  /* not inside € */
	ASSERT_EQ_INT(air__utf8_cut(s, 8, 6), 4);
	ASSERT_EQ_INT(air__utf8_cut(s, 8, 7), 7);
	/* not UTF-8: at most 3 bytes back */
	ASSERT_EQ_INT(air__utf8_cut("a\x80\x80\x80\x80\x80", 6, 5), 2);
}

AIR_TEST(util__parse_int64_is_strict)
{
	int64_t v;

	ASSERT_TRUE(air__parse_int64("9223372036854775807", &v));
	ASSERT_EQ_INT(v, INT64_MAX);
	ASSERT_TRUE(air__parse_int64("-9223372036854775808", &v));
	ASSERT_EQ_INT(v, INT64_MIN);
	ASSERT_FALSE(air__parse_int64("9223372036854775808", &v));
	ASSERT_FALSE(air__parse_int64("12a", &v));
	ASSERT_FALSE(air__parse_int64("", &v));
	ASSERT_FALSE(air__parse_int64("-", &v));
	ASSERT_FALSE(air__parse_int64(" 1", &v));
}

AIR_TEST(util__uuid4_shape_and_uniqueness)
{
	char a[37], b[37];

	ASSERT_EQ_INT(air__uuid4(a), AIR_OK);
	ASSERT_EQ_INT(air__uuid4(b), AIR_OK);
	ASSERT_EQ_INT(strlen(a), 36);
	ASSERT_TRUE(a[8] == '-' && a[13] == '-' && a[18] == '-' && a[23] == '-');
	ASSERT_TRUE(a[14] == '4');
	ASSERT_TRUE(strchr("89ab", a[19]) != NULL);
	ASSERT_TRUE(strcmp(a, b) != 0);
	for (int i = 0; i < 36; i++)
		ASSERT_TRUE(a[i] == '-' || (a[i] >= '0' && a[i] <= '9') || (a[i] >= 'a' && a[i] <= 'f'));
}

AIR_TEST(util__rfc3339)
{
	char out[32];

	air__format_rfc3339(1700000000, out);
	ASSERT_EQ_STR(out, "2023-11-14T22:13:20Z");
}

static void *trigger_later(void *arg)
{
	air__sleep_ms(NULL, 50);
	air_interrupt_trigger(arg);
	return NULL;
}

AIR_TEST(interrupt__wakes_a_sleep_from_another_thread)
{
	air_interrupt *intr = NULL;
	pthread_t t;
	int64_t start;
	int rc;

	ASSERT_EQ_INT(air_interrupt_new(&intr), AIR_OK);
	ASSERT_EQ_INT(air_interrupt_is_triggered(intr), 0);
	start = air__mono_ms();
	pthread_create(&t, NULL, trigger_later, intr);
	rc = air__sleep_ms(intr, 10000);
	pthread_join(t, NULL);
	ASSERT_EQ_INT(rc, AIR_EINTERRUPTED);
	ASSERT_TRUE(air__mono_ms() - start < 5000);
	ASSERT_EQ_INT(air_interrupt_is_triggered(intr), 1);
	air_interrupt_reset(intr);
	ASSERT_EQ_INT(air__sleep_ms(intr, 5), AIR_OK);
	air_interrupt_free(intr);
	air_interrupt_free(NULL);
}

/* A call's wait on a descriptor: for any poll() events, for ever without
 * overflowing, or cut by the call's interrupt or deadline; fd -1 is a sleep
 * that only these end. */
AIR_TEST(ctx__wait_fd_waits_for_any_events_and_stops_at_the_call)
{
	air__call_opts call = AIR__CALL_OPTS_INIT;
	air_interrupt *intr = NULL;
	air_error *err = NULL;
	air__ctx ctx;
	pthread_t t;
	bool ready;
	int sv[2];

	ASSERT_EQ_INT(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	air__ctx_init(&ctx, NULL, NULL);
	/* an endless wait: ready at once for writing, then for reading */
	ASSERT_EQ_INT(air__ctx_wait_fd(&ctx, sv[0], POLLOUT, INT64_MAX, &ready, "w", NULL), AIR_OK);
	ASSERT_TRUE(ready);
	ASSERT_EQ_INT(air__ctx_wait_fd(&ctx, sv[0], POLLIN, 1, &ready, "r", NULL), AIR_OK);
	ASSERT_FALSE(ready);
	ASSERT_EQ_INT(write(sv[1], "x", 1), 1);
	ASSERT_EQ_INT(air__ctx_wait_fd(&ctx, sv[0], POLLIN, INT64_MAX, &ready, "r", NULL), AIR_OK);
	ASSERT_TRUE(ready);
	/* no descriptor, no end: the interrupt ends it, raised before or during */
	ASSERT_EQ_INT(air_interrupt_new(&intr), AIR_OK);
	call.intr = intr;
	air__ctx_init(&ctx, &call, NULL);
	pthread_create(&t, NULL, trigger_later, intr);
	ASSERT_EQ_INT(air__ctx_wait_fd(&ctx, -1, POLLIN, INT64_MAX, &ready, "the wait", &err),
	              AIR_EINTERRUPTED);
	pthread_join(t, NULL);
	ASSERT_FALSE(ready);
	ASSERT_EQ_STR(air_error_message(err), "the wait: interrupted");
	air_error_free(err);
	err = NULL;
	ASSERT_EQ_INT(air__ctx_wait_fd(&ctx, sv[0], POLLOUT, INT64_MAX, &ready, NULL, NULL),
	              AIR_EINTERRUPTED);
	/* ... and the deadline */
	call.intr = NULL;
	call.deadline_ms = 20;
	air__ctx_init(&ctx, &call, NULL);
	ASSERT_EQ_INT(air__ctx_wait_fd(&ctx, -1, POLLIN, INT64_MAX, &ready, "the wait", &err),
	              AIR_ETIMEOUT);
	ASSERT_CONTAINS(air_error_message(err), "deadline of 20 ms");
	air_error_free(err);
	/* the end of a wait never overflows */
	ASSERT_EQ_INT(air__mono_after(INT64_MAX), INT64_MAX);
	ASSERT_TRUE(air__mono_after(-5) <= air__mono_ms());
	air_interrupt_free(intr);
	close(sv[0]);
	close(sv[1]);
}

AIR_TEST(core__rfc3339)
{
	int64_t s;
	int32_t ns;

	ASSERT_TRUE(air__parse_rfc3339("1970-01-01T00:00:00Z", &s, &ns));
	ASSERT_EQ_INT(s, 0);
	ASSERT_TRUE(air__parse_rfc3339("2024-01-15T14:30:45Z", &s, NULL));
	ASSERT_EQ_INT(s, 1705329045LL);
	ASSERT_TRUE(air__parse_rfc3339("2024-01-15T14:30:45.123456789Z", &s, &ns));
	ASSERT_EQ_INT(s, 1705329045LL);
	ASSERT_EQ_INT(ns, 123456789);
	ASSERT_TRUE(air__parse_rfc3339("2024-01-15T16:30:45+02:00", &s, &ns));
	ASSERT_EQ_INT(s, 1705329045LL);
	ASSERT_EQ_INT(ns, 0);
	ASSERT_TRUE(air__parse_rfc3339("2024-01-15t09:00:45.5-05:30", &s, &ns));
	ASSERT_EQ_INT(s, 1705329045LL);
	ASSERT_EQ_INT(ns, 500000000);
	/* The Jobs index writes a space between date and time. */
	ASSERT_TRUE(air__parse_rfc3339("2024-01-15 14:30:45z", &s, NULL));
	ASSERT_EQ_INT(s, 1705329045LL);
	ASSERT_TRUE(air__parse_rfc3339("0001-01-01T00:00:00Z", &s, NULL));
	ASSERT_TRUE(s < 0);
	ASSERT_FALSE(air__parse_rfc3339("2024-01-15T14:30:45", &s, NULL));
	ASSERT_FALSE(air__parse_rfc3339("2024-01-15T14:30:45.Z", &s, NULL));
	ASSERT_FALSE(air__parse_rfc3339("2024-13-15T14:30:45Z", &s, NULL));
	ASSERT_FALSE(air__parse_rfc3339("2024-01-15T14:30:45+24:00", &s, NULL));
	ASSERT_FALSE(air__parse_rfc3339("yesterday", &s, NULL));
	ASSERT_FALSE(air__parse_rfc3339(NULL, &s, NULL));
}

AIR_TEST(core__run_id_check)
{
	air_error *err = NULL;

	ASSERT_EQ_INT(air__check_run_id(1, &err), AIR_OK);
	ASSERT_NULL(err);
	ASSERT_EQ_INT(air__check_run_id(0, &err), AIR_EINVAL);
	ASSERT_EQ_STR(air_error_field(err), "run_id");
	ASSERT_CONTAINS(air_error_message(err), "positive");
	air_error_free(err);
	ASSERT_EQ_INT(air__check_run_id(-5, NULL), AIR_EINVAL);
}

AIR_TEST(core__base64_round_trips_and_rejects_garbage)
{
	static const char *const plain[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar",
	                                    "user:p@ss:word"};
	static const char *const bad[] = {"Zg=", "Z", "Zm9v!", "Zm 9v", "Zh==", "=Zm9", "Zm9vYg===",
	                                  "Zm9v\n", "Zm9vYg=", "Zm=v"};

	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
		char *enc = air__base64(plain[i], strlen(plain[i]));
		air__buf b = AIR__BUF_INIT, unpadded = AIR__BUF_INIT;
		size_t n;

		ASSERT_NOT_NULL(enc);
		ASSERT_TRUE(air__base64_decode(enc, strlen(enc), &b));
		ASSERT_EQ_STR(air__buf_cstr(&b), plain[i]);
		for (n = strlen(enc); n && enc[n - 1] == '='; n--)
			;
		ASSERT_TRUE(air__base64_decode(enc, n, &unpadded));
		ASSERT_EQ_STR(air__buf_cstr(&unpadded), plain[i]);
		air__buf_dispose(&b);
		air__buf_dispose(&unpadded);
		air__free(enc);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		air__buf b = AIR__BUF_INIT;
		ASSERT_FALSE(air__base64_decode(bad[i], strlen(bad[i]), &b));
		air__buf_dispose(&b);
	}
}

/* The one set of YAML scalar rules the workload emitter and the bundle
 * writer share: plain only when every reader takes it for this string. */
AIR_TEST(core__yaml_scalar_rules)
{
	static const char *const plain[] = {"plain-name", "_ok", "./generated_artifacts/x.sh",
	                                    "a b", "GPU_1xH100", "x:y", "nULL"};
	static const char *const quoted[] = {"", "true", "yes", "No", "on", "OFF", "y", "null",
	                                     "~", "0x1F", "1e3", "12", "-x", ".5", "a: b", "a #c",
	                                     "[x]", "x,y", "trail ", "end:", "line\nbreak",
	                                     "c1\xc2\x9b"};
	air__buf b = AIR__BUF_INIT;

	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
		ASSERT_TRUE(air__yaml_plain_ok(plain[i], strlen(plain[i])));
	for (size_t i = 0; i < sizeof(quoted) / sizeof(quoted[0]); i++) {
		air_test_note("%s", quoted[i]);
		ASSERT_FALSE(air__yaml_plain_ok(quoted[i], strlen(quoted[i])));
	}
	ASSERT_EQ_INT(air__yscalar_resolve("1e3", 3), AIR__YT_FLOAT);
	ASSERT_EQ_INT(air__yscalar_resolve("0o17", 4), AIR__YT_INT);
	ASSERT_EQ_INT(air__yscalar_resolve("True", 4), AIR__YT_BOOL);
	ASSERT_TRUE(air__yaml_literal_ok("a\nb\n", 4));
	ASSERT_FALSE(air__yaml_literal_ok(" a\nb", 4));
	ASSERT_FALSE(air__yaml_literal_ok("a\xc2\x80\nb", 5));
	air__yaml_put_quoted(&b, "q\"\\\n\t\x01\xe2\x80\xa8", 9);
	ASSERT_EQ_STR(air__buf_cstr(&b), "\"q\\\"\\\\\\n\\t\\x01\\L\"");
	air__buf_clear(&b);
	air__yaml_put_quoted(&b, "\x7f\xc2\x9b\xc2\x85\xc2\xa0", 7);
	ASSERT_EQ_STR(air__buf_cstr(&b), "\"\\x7F\\x9B\\N\xc2\xa0\"");
	air__buf_dispose(&b);
}

/* The names a sweep gives its runs in the workspace: the launch directory
 * of a variant, its key, and the stop mark (core/sweep_mark.c). */
AIR_TEST(core__sweep_names)
{
	char *tag = air__sweep_tag("lr sweep/../x"), *long_tag;
	const char *t;
	size_t base_len, n;
	char path[512], token[128];
	static const char *const not_variants[] = {
		"/Workspace/Users/u/.air/cli_launch/exp/run_0123456789abcdef/command.sh",
		"/Workspace/Users/u/.air/cli_launch/sweep-a-12345678/0123456789abcdef/v0/command.sh",
		"/Workspace/Users/u/.air/cli_launch/exp/sweep-a-12345678/0123456789ABCDEF/v0/command.sh",
		"/Workspace/Users/u/.air/cli_launch/exp/sweep-a-12345678/0123456789abcdef/vx/command.sh",
		"/Workspace/Users/u/.air/cli_launch/exp/sweep-a-12345678/0123456789abcdef/v0/run.sh",
		"/Workspace/Users/u/.air/cli_launch/exp/plain-a-12345678/0123456789abcdef/v0/command.sh",
		NULL};

	ASSERT_TRUE(!strncmp(tag, "sweep-lr_sweep_.._x-", 20) && strlen(tag) == 28);
	snprintf(path, sizeof(path), "/Workspace/Users/u@x.com/.air/cli_launch/e/x/%s/"
	         "0123456789abcdef/v12/command.sh", tag);
	ASSERT_TRUE(air__sweep_launch_split(path, &base_len, &t, &n));
	ASSERT_EQ_INT(base_len, strlen("/Workspace/Users/u@x.com"));
	ASSERT_TRUE(n == strlen(tag) && !memcmp(t, tag, n));
	for (size_t i = 0; not_variants[i]; i++)
		ASSERT_FALSE(air__sweep_launch_split(not_variants[i], &base_len, &t, &n));

	/* A variant's key is in its sweep; a rerun's is not, nor another's. */
	ASSERT_TRUE(air__sweep_token_in("lr sweep/../x-0123456789abcdef", tag, strlen(tag)));
	ASSERT_FALSE(air__sweep_token_in("rerun-7-0123456789abcdef", tag, strlen(tag)));
	ASSERT_FALSE(air__sweep_token_in("other-0123456789abcdef", tag, strlen(tag)));
	ASSERT_FALSE(air__sweep_token_in("lr sweep/../x-0123456789ABCDEF", tag, strlen(tag)));
	ASSERT_FALSE(air__sweep_token_in(NULL, tag, strlen(tag)));
	/* A long base is cut in the key: its first 32 bytes tell. */
	long_tag = air__sweep_tag("a-base-key-of-sixty-bytes-or-so-that-a-key-cannot-hold-whole");
	snprintf(token, sizeof(token), "%.47s-0123456789abcdef",
	         "a-base-key-of-sixty-bytes-or-so-that-a-key-cannot-hold-whole");
	ASSERT_TRUE(air__sweep_token_in(token, long_tag, strlen(long_tag)));
	token[0] = 'b';
	ASSERT_FALSE(air__sweep_token_in(token, long_tag, strlen(long_tag)));

	ASSERT_TRUE(air__sweep_mark_stopped("stopped 2026-12-06T04:00:00Z\n", 29));
	ASSERT_TRUE(air__sweep_mark_stopped("stopped", 7));
	ASSERT_FALSE(air__sweep_mark_stopped("stoppedx", 8));
	ASSERT_FALSE(air__sweep_mark_stopped("", 0));
	ASSERT_FALSE(air__sweep_mark_stopped("resumed 2026-12-06T04:00:00.250Z\n", 33));
	/* A stop undone says when, to the millisecond (whole seconds too). */
	ASSERT_EQ_INT(air__sweep_mark_resumed_ms("resumed 2026-12-06T04:00:00.250Z\n", 33),
	              1796529600250LL);
	ASSERT_EQ_INT(air__sweep_mark_resumed_ms("resumed 2026-12-06T04:00:00Z", 28), 1796529600000LL);
	ASSERT_EQ_INT(air__sweep_mark_resumed_ms("stopped 2026-12-06T04:00:00Z", 28), 0);
	ASSERT_EQ_INT(air__sweep_mark_resumed_ms("resumed soon", 12), 0);
	ASSERT_EQ_INT(air__sweep_mark_resumed_ms("resumed 2026-12-06T04:00:00Z", 12), 0); /* cut */
	air__free(long_tag);
	air__free(tag);
}

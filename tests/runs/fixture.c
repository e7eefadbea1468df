/* fixture.c: see fixture.h. */
#include "fixture.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"

fakews *fw;
air_client *client;

static void stop_server(void)
{
	fakews_stop(fw);
	fw = NULL;
}

void fixture_setup(void)
{
	if (!fw) {
		fw = fakews_start();
		atexit(stop_server);
	} else {
		fakews_reset(fw);
	}
	client = fakews_client(fw);
}

static air_get_options *get_opts[32];
static size_t n_get_opts;

const air_get_options *fixture_get_options(const int32_t *set)
{
	air_get_options *o = NULL;

	ASSERT_TRUE(n_get_opts < sizeof(get_opts) / sizeof(get_opts[0]));
	ASSERT_EQ_INT(air_get_options_new(&o), AIR_OK);
	for (; *set; set++)
		ASSERT_EQ_INT(air_get_options_set_int(o, *set, 1), AIR_OK);
	get_opts[n_get_opts++] = o;
	return o;
}

void fixture_teardown(void)
{
	air_client_free(client);
	client = NULL;
	while (n_get_opts > 0)
		air_get_options_free(get_opts[--n_get_opts]);
}

int64_t fixture_std_run(int64_t id, const char *result)
{
	return fixture_std_run_on(id, result, 1);
}

int64_t fixture_std_run_on(int64_t id, const char *result, int nodes)
{
	return fakews_create_runf(
		fw,
		"{\"run_id\":%lld,\"run_name\":\"smoke-test\",\"creator_user_name\":\"tester@databricks.com\","
		"\"start_time\":1700000000000,\"end_time\":1700000012000,\"state\":{\"life_cycle_state\":"
		"\"TERMINATED\",\"result_state\":\"%s\",\"state_message\":\"\"},\"tasks\":[{\"run_id\":%lld,"
		"\"attempt_number\":0,\"max_retries\":3,\"ai_runtime_task\":{\"experiment\":\"smoke-test\","
		"\"deployments\":[{\"command_path\":\"/Workspace/Users/tester@databricks.com/.air/cli_launch/"
		"smoke-test/smoke-test_0123456789abcdef/command.sh\",\"compute\":{\"accelerator_type\":"
		"\"GPU_1xH100\",\"accelerator_count\":%d}}]}}]}",
		(long long)id, result, (long long)id + 1, nodes);
}

void fixture_post(const char *path, const char *fmt, ...)
{
	va_list ap;
	char *body = NULL;

	va_start(ap, fmt);
	if (vasprintf(&body, fmt, ap) < 0)
		body = NULL;
	va_end(ap);
	if (!body)
		FAIL("out of memory");
	json_decref(fakews_call(fw, "POST", path, body));
	free(body);
}

static bool path_matches(const char *pattern, const char *path)
{
	size_t n = strlen(pattern);

	if (n && pattern[n - 1] == '*')
		return strncmp(pattern, path, n - 1) == 0;
	return strcmp(pattern, path) == 0;
}

json_t *fixture_requests(const char *method, const char *path)
{
	json_t *all = fakews_requests(fw), *out = json_array(), *r;
	size_t i;

	json_array_foreach(all, i, r) {
		const char *m = json_string_value(json_object_get(r, "method"));
		const char *p = json_string_value(json_object_get(r, "path"));
		if ((!method || (m && !strcmp(m, method))) && p && path_matches(path, p))
			json_array_append(out, r);
	}
	json_decref(all);
	return out;
}

const char *fixture_query(const json_t *req, const char *key)
{
	json_t *v = json_object_get(json_object_get(req, "query"), key);
	return json_string_value(json_array_get(v, 0));
}

const char *fixture_query_string(const json_t *req)
{
	static char buf[1024];
	const char *key;
	json_t *vals;
	size_t used = 0;

	buf[0] = '\0';
	json_object_foreach(json_object_get(req, "query"), key, vals) {
		used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%s=%s", used ? "&" : "", key,
		                         json_string_value(json_array_get(vals, 0)));
		if (used >= sizeof(buf))
			break;
	}
	return buf;
}

bool ends_with(const char *s, const char *suffix)
{
	size_t n = s ? strlen(s) : 0, m = strlen(suffix);
	return s && n >= m && memcmp(s + n - m, suffix, m) == 0;
}

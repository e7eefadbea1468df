/* test_checks.c: the decisions taken on server replies — pre-flight
 * findings and fail-open, usage policy matching (docs/submit.md#sequence) —
 * and the legacy image URL normalisation (docs/submit.md#legacy-environmentdocker_image). */
#include <stdlib.h>
#include <string.h>

#include "submit/submit.h"
#include "images/images.h"
#include "test.h"

static json_t *parse(const char *text)
{
	json_error_t e;
	json_t *v = json_loads(text, 0, &e);

	if (!v)
		FAIL("bad JSON in test: %s", e.text);
	return v;
}

AIR_TEST(checks__preflight_without_findings)
{
	json_t *r = parse("{}"), *r2 = parse("{\"errors\":[]}");

	ASSERT_EQ_INT(air__preflight_findings(r, NULL), AIR_OK);
	ASSERT_EQ_INT(air__preflight_findings(r2, NULL), AIR_OK);
	json_decref(r);
	json_decref(r2);
}

AIR_TEST(checks__preflight_findings_listed_one_per_line)
{
	json_t *r = parse("{\"errors\":[{\"path\":\"experiment\",\"message\":\"only letters\",\"code\":\"X\"},"
	                  "{\"path\":\"deployments[0].compute.accelerator_count\",\"message\":\"must be a multiple of 8\"},"
	                  "{\"path\":\"\",\"message\":\"general problem\"}]}");
	air_error *err = NULL;

	ASSERT_EQ_INT(air__preflight_findings(r, &err), AIR_EREJECTED);
	ASSERT_EQ_INT(air_error_code(err), AIR_EREJECTED);
	ASSERT_CONTAINS(air_error_message(err), "rejected");
	ASSERT_CONTAINS(air_error_message(err), "\nexperiment: only letters");
	ASSERT_CONTAINS(air_error_message(err),
	                "\ndeployments[0].compute.accelerator_count: must be a multiple of 8");
	ASSERT_CONTAINS(air_error_message(err), "\ngeneral problem");
	air_error_free(err);
	json_decref(r);
}

/* A finding cannot add lines of its own: its line breaks are escaped. */
AIR_TEST(checks__preflight_findings_stay_on_their_line)
{
	json_t *r = parse("{\"errors\":[{\"path\":\"a\\nb\",\"message\":\"bad\\r\\nforged: line\"}]}");
	air_error *err = NULL;
	const char *m;

	ASSERT_EQ_INT(air__preflight_findings(r, &err), AIR_EREJECTED);
	m = air_error_message(err);
	ASSERT_CONTAINS(m, "\na\\nb: bad\\r\\nforged: line");
	ASSERT_EQ_INT(strchr(strchr(m, '\n') + 1, '\n') == NULL, 1);
	ASSERT_NULL(strchr(m, '\r'));
	air_error_free(err);
	json_decref(r);
}

static air_error *http_error(int code, int32_t status, const char *server_code)
{
	return air__error_set_http(air__error_new(code, 0, "server said no"), status, server_code, NULL, -1);
}

AIR_TEST(checks__preflight_fail_open_classes)
{
	struct {
		int32_t status;
		const char *code;
		bool open;
	} cases[] = {
		{400, "FEATURE_DISABLED", true}, {403, "FEATURE_DISABLED", true},
		{404, "ENDPOINT_NOT_FOUND", true}, {501, NULL, true}, {500, "INTERNAL_ERROR", true},
		{503, "TEMPORARILY_UNAVAILABLE", true}, {400, "INVALID_PARAMETER_VALUE", false},
		{401, "UNAUTHENTICATED", false}, {403, "PERMISSION_DENIED", false}, {0, NULL, false},
		{429, "REQUEST_LIMIT_EXCEEDED", false},
	};

	for (size_t i = 0; i < AIR__ARRAY_SIZE(cases); i++) {
		air_error *e = http_error(AIR_EAPI, cases[i].status, cases[i].code);
		if (air__preflight_fails_open(e) != cases[i].open)
			FAIL("status %d code %s: expected fail-open %d", cases[i].status,
			     cases[i].code ? cases[i].code : "-", cases[i].open);
		air_error_free(e);
	}
}

static int match(const char *policies, const char *name, char **id, air_error **err)
{
	json_t *p = parse(policies);
	int rc = air__policy_match(p, name, id, err);

	json_decref(p);
	return rc;
}

AIR_TEST(checks__policy_exact_case_insensitive_trimmed)
{
	char *id = NULL;
	air_error *err = NULL;

	ASSERT_OK(match("[{\"policy_id\":\"id-x\",\"policy_name\":\"team-alpha\"},"
	                "{\"policy_id\":\"12345678-90ab-cdef-1234-567890abcdef\",\"policy_name\":\" Team-A \"}]",
	                "team-a", &id, &err), err);
	ASSERT_EQ_STR(id, "12345678-90ab-cdef-1234-567890abcdef");
	air__free(id);
}

AIR_TEST(checks__policy_not_found_lists_candidates)
{
	char *id = NULL;
	air_error *err = NULL;

	ASSERT_EQ_INT(match("[{\"policy_id\":\"2\",\"policy_name\":\"team-c\"},"
	                    "{\"policy_id\":\"1\",\"policy_name\":\"team-b\"}]", "team-a", &id, &err),
	              AIR_ENOTFOUND);
	ASSERT_NULL(id);
	ASSERT_CONTAINS(air_error_message(err), "\"team-a\"");
	ASSERT_CONTAINS(air_error_message(err), "team-b, team-c");
	ASSERT_EQ_STR(air_error_field(err), "usage_policy_name");
	air_error_free(err);
}

AIR_TEST(checks__policy_not_found_caps_candidates_at_ten)
{
	air__buf b = AIR__BUF_INIT;
	json_t *p;
	char *id = NULL;
	air_error *err = NULL;

	air__buf_putc(&b, '[');
	for (int i = 0; i < 12; i++)
		air__buf_printf(&b, "%s{\"policy_id\":\"%d\",\"policy_name\":\"p%02d\"}", i ? "," : "", i, i);
	air__buf_putc(&b, ']');
	p = parse(air__buf_cstr(&b));
	ASSERT_EQ_INT(air__policy_match(p, "q", &id, &err), AIR_ENOTFOUND);
	ASSERT_CONTAINS(air_error_message(err), "p00, p01");
	ASSERT_CONTAINS(air_error_message(err), "p09, ...");
	ASSERT_NOT_CONTAINS(air_error_message(err), "p10");
	air_error_free(err);
	json_decref(p);
	air__buf_dispose(&b);
}

AIR_TEST(checks__policy_ambiguous_and_id_less)
{
	char *id = NULL;
	air_error *err = NULL;

	ASSERT_EQ_INT(match("[{\"policy_id\":\"1\",\"policy_name\":\"A\"},{\"policy_id\":\"2\",\"policy_name\":\"a\"}]",
	                    "a", &id, &err), AIR_ECONFLICT);
	ASSERT_CONTAINS(air_error_message(err), "1, 2");
	air_error_free(err);
	err = NULL;
	ASSERT_NE_INT(match("[{\"policy_id\":\"\",\"policy_name\":\"a\"}]", "a", &id, &err), AIR_OK);
	ASSERT_NULL(id);
	ASSERT_CONTAINS(air_error_message(err), "\"a\"");
	air_error_free(err);
}

AIR_TEST(checks__docker_image_normalisation)
{
	static const char *const cases[][2] = {
		{"ubuntu", "docker.io/library/ubuntu:latest"},
		{" team/train:v3 ", "docker.io/team/train:v3"},
		{"myreg.io/team/train:v3", "myreg.io/team/train:v3"},
		{"myreg.io/team/train", "myreg.io/team/train:latest"},
		{"myreg.io:5000/team/train", "myreg.io:5000/team/train:latest"},
		{"localhost:5000/x", "docker.io/localhost:5000/x:latest"},
		{"reg.io/a:1@sha256:abc", "reg.io/a@sha256:abc"},
		{"ubuntu@sha256:abc", "docker.io/library/ubuntu@sha256:abc"},
	};

	for (size_t i = 0; i < AIR__ARRAY_SIZE(cases); i++) {
		char *n = air__docker_image_normalize(cases[i][0]);
		ASSERT_EQ_STR(n, cases[i][1]);
		air__free(n);
	}
}

/* test_errors.c: status codes, kinds and the air_error object. */
#include "core/core.h"
#include "test.h"

AIR_TEST(errors__strerror_covers_every_code)
{
	for (int code = 0; code >= AIR_EINTERNAL; code--) {
		ASSERT_TRUE(strcmp(air_strerror(code), "unknown status code") != 0);
		ASSERT_TRUE(strcmp(air_status_name(code), "AIR_E?") != 0);
	}
	ASSERT_EQ_STR(air_strerror(-999), "unknown status code");
	ASSERT_EQ_STR(air_status_name(AIR_ENOTFOUND), "AIR_ENOTFOUND");
}

AIR_TEST(errors__kind_names_match_json_vocabulary)
{
	ASSERT_EQ_STR(air_kind_name(AIR_KIND_NOT_FOUND), "NOT_FOUND");
	ASSERT_EQ_STR(air_kind_name(AIR_KIND_TRANSIENT), "TRANSIENT");
	ASSERT_EQ_STR(air_kind_name(AIR_KIND_PERMANENT), "PERMANENT");
	ASSERT_EQ_STR(air_kind_name(AIR_KIND_CONFLICT), "CONFLICT");
	ASSERT_EQ_STR(air_kind_name(AIR_KIND_INVALID_CONFIG), "INVALID_CONFIG");
	ASSERT_EQ_STR(air_kind_name(42), "UNKNOWN");
}

AIR_TEST(errors__failf_fills_optional_out_parameter)
{
	air_error *err = NULL;
	int rc = air__failf(&err, AIR_ENET, 0, "connect to %s failed", "h");

	ASSERT_EQ_INT(rc, AIR_ENET);
	ASSERT_NOT_NULL(err);
	ASSERT_EQ_INT(air_error_code(err), AIR_ENET);
	ASSERT_EQ_INT(air_error_kind(err), AIR_KIND_TRANSIENT);
	ASSERT_EQ_INT(air_error_retryable(err), 1);
	ASSERT_EQ_STR(air_error_message(err), "connect to h failed");
	ASSERT_EQ_INT(air_error_retry_after_ms(err), -1);
	ASSERT_NULL(air_error_field(err));
	air_error_free(err);
	/* NULL out-parameter: only the code comes back. */
	ASSERT_EQ_INT(air__failf(NULL, AIR_EIO, 0, "x"), AIR_EIO);
}

AIR_TEST(errors__first_error_wins)
{
	air_error *err = NULL;

	air__failf(&err, AIR_EIO, 0, "first");
	air__failf(&err, AIR_ENET, 0, "second");
	ASSERT_EQ_STR(air_error_message(err), "first");
	air_error_free(err);
}

AIR_TEST(errors__decorators_and_prefix)
{
	air_error *e = air__error_new(AIR_ECONFIG, 0, "must be > 0");

	air__error_set_field(e, "compute.num_accelerators");
	air__error_set_position(e, "w.yaml", 4, 21);
	air__error_prefix(e, "%s", "compute.num_accelerators");
	ASSERT_EQ_STR(air_error_message(e), "compute.num_accelerators: must be > 0");
	ASSERT_EQ_STR(air_error_field(e), "compute.num_accelerators");
	ASSERT_EQ_STR(air_error_file(e), "w.yaml");
	ASSERT_EQ_INT(air_error_line(e), 4);
	ASSERT_EQ_INT(air_error_column(e), 21);
	ASSERT_EQ_INT(air_error_kind(e), AIR_KIND_INVALID_CONFIG);
	air__error_set_http(e, 503, "TEMPORARILY_UNAVAILABLE", "req-1", 2000);
	ASSERT_EQ_INT(air_error_http_status(e), 503);
	ASSERT_EQ_STR(air_error_server_code(e), "TEMPORARILY_UNAVAILABLE");
	ASSERT_EQ_STR(air_error_request_id(e), "req-1");
	ASSERT_EQ_INT(air_error_retry_after_ms(e), 2000);
	{
		air_error *c = air__error_clone(e);
		ASSERT_EQ_STR(air_error_message(c), air_error_message(e));
		ASSERT_EQ_STR(air_error_request_id(c), "req-1");
		ASSERT_EQ_INT(air_error_line(c), 4);
		air_error_free(c);
	}
	air_error_free(e);
}

AIR_TEST(errors__redact_removes_every_occurrence)
{
	air_error *e = air__error_new(AIR_EAUTH, 0, "token dapi-secret-1 rejected (dapi-secret-1)");

	air__error_redact(e, "dapi-secret-1");
	ASSERT_NOT_CONTAINS(air_error_message(e), "dapi-secret-1");
	ASSERT_EQ_STR(air_error_message(e), "token [REDACTED] rejected ([REDACTED])");
	air_error_free(e);
}

AIR_TEST(errors__getters_and_free_accept_null)
{
	air_error_free(NULL);
	ASSERT_EQ_INT(air_error_code(NULL), AIR_OK);
	ASSERT_EQ_STR(air_error_message(NULL), "");
	ASSERT_EQ_INT(air_error_kind(NULL), AIR_KIND_NONE);
}

/*
 * preflight.c: the workspace's validation of a workload before anything is
 * uploaded. Findings stop the submission; an endpoint
 * that is disabled, missing or failing does not (fail open), because the
 * submission itself is validated again by runs/submit.
 */
#include "submit/submit.h"

#include <string.h>

#include "transport/transport.h"
#include "core/core.h"

#define PREFLIGHT_PATH "/api/2.0/ai-training/config:validate"

int air__preflight_findings(const json_t *reply, air_error **err)
{
	json_t *errors = json_object_get(reply, "errors"), *item;
	air__buf msg = AIR__BUF_INIT;
	size_t i;
	int rc;

	if (!json_is_array(errors) || json_array_size(errors) == 0)
		return AIR_OK;
	air__buf_puts(&msg, "the workspace rejected the configuration:");
	json_array_foreach(errors, i, item) {
		const char *path = air__json_nonempty(item, "path");
		const char *text = air__json_str(item, "message");
		/* One line per finding, whatever the server wrote. */
		air__buf_putc(&msg, '\n');
		if (path) {
			air__buf_put_one_line(&msg, path);
			air__buf_puts(&msg, ": ");
		}
		air__buf_put_one_line(&msg, text ? text : "(no message)");
	}
	if (air__buf_oom(&msg))
		rc = air__oom(err);
	else
		rc = air__failf(err, AIR_EREJECTED, AIR_KIND_INVALID_CONFIG, "%s", air__buf_cstr(&msg));
	air__buf_dispose(&msg);
	return rc;
}

bool air__preflight_fails_open(const air_error *e)
{
	const char *code = air_error_server_code(e);
	int32_t status = air_error_http_status(e);

	return (code && !strcmp(code, "FEATURE_DISABLED")) || status == 404 || status == 501 ||
	       status >= 500;
}

int air__preflight_call(air_client *c, const air__ctx *ctx, const json_t *body, json_t **reply,
                        air_error **err)
{
	return air__api_json(c, ctx, "POST", PREFLIGHT_PATH, NULL, body, reply, NULL, err);
}

int air__preflight(air_client *c, const air__ctx *ctx, const json_t *body, air_error **err)
{
	json_t *reply = NULL;
	air_error *e = NULL;
	int rc = air__preflight_call(c, ctx, body, &reply, &e);

	if (rc != AIR_OK) {
		if (air__preflight_fails_open(e)) {
			air__client_debug(c, AIR_DEBUG_INFO, "pre-flight validation unavailable (%s); continuing",
			                  air_error_message(e));
			air_error_free(e);
			return AIR_OK;
		}
		if (air_error_http_status(e))
			air__error_prefix(e, "pre-flight validation of the configuration failed");
		return air__fail(err, e);
	}
	rc = air__preflight_findings(reply, err);
	json_decref(reply);
	return rc;
}

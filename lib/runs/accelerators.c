/* accelerators.c: the accelerator types a workspace offers (its compute
 * options), for the field help of compute and the checks. */
#include "transport/transport.h"
#include "core/core.h"

#include <string.h>

#define COMPUTE_OPTIONS_PATH "/api/2.0/ai-compute-manager/compute-options"

/* The type an entry of "compute_options" names. The reply's shape is not
 * documented (newer source): {"hardware_accelerator": "GPU_1xA10"} is what
 * the official tool reads; "accelerator_type" and a bare string are taken
 * too, since they are what a list of accelerator types would plausibly hold. */
static const char *entry_type(const json_t *e)
{
	if (json_is_string(e))
		return json_string_value(e);
	if (air__json_nonempty(e, "hardware_accelerator"))
		return air__json_nonempty(e, "hardware_accelerator");
	return air__json_nonempty(e, "accelerator_type");
}

/* "a,b" of the types in @options, first occurrence only. */
static char *type_list(const json_t *options)
{
	air__buf b = AIR__BUF_INIT;
	json_t *e;
	size_t i;

	json_array_foreach(options, i, e) {
		const char *t = entry_type(e);
		size_t n = t ? strlen(t) : 0;
		bool seen = false;

		if (!n || strchr(t, ','))
			continue;
		for (const char *p = air__buf_cstr(&b); *p && !seen;) {
			size_t len = strcspn(p, ",");
			seen = len == n && !memcmp(p, t, n);
			p += len + (p[len] == ',');
		}
		if (!seen) {
			air__buf_puts(&b, b.len ? "," : "");
			air__buf_puts(&b, t);
		}
	}
	if (air__buf_oom(&b)) {
		air__buf_dispose(&b);
		return NULL;
	}
	return air__buf_detach(&b);
}

int air_client_list_accelerator_types(air_client *client, const air_call_options *opts,
                                      char **out, air_error **err)
{
	air__ctx ctx;
	json_t *reply = NULL;
	air_error *e = NULL;
	int rc;

	if (!out)
		return air__failf(err, AIR_EINVAL, 0, "air_client_list_accelerator_types: out is NULL");
	*out = NULL;
	if (!client)
		return air__failf(err, AIR_EINVAL, 0, "air_client_list_accelerator_types: client is NULL");
	air__client_ctx(client, opts ? &opts->call : NULL, &ctx);
	if ((rc = air__client_ensure_resolved(client, &ctx, err)) != AIR_OK)
		return rc;
	rc = air__api_json(client, &ctx, "GET", COMPUTE_OPTIONS_PATH, NULL, NULL, &reply, NULL, &e);
	if (rc != AIR_OK) {
		const char *code = air_error_server_code(e);
		if (code && !strcmp(code, "FEATURE_DISABLED"))
			air__error_set_code(air__error_set_kind(e, AIR_KIND_PERMANENT), AIR_EDISABLED);
		return air__fail(err, air__error_prefix(e, "listing the accelerator types the "
		                                          "workspace offers"));
	}
	*out = type_list(json_object_get(reply, "compute_options"));
	json_decref(reply);
	return *out ? AIR_OK : air__oom(err);
}

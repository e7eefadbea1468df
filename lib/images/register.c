/*
 * register.c: air_client_register_image() — its options and result objects;
 * the registration itself is registration.c.
 */
#include "images/images.h"

#include <string.h>
#include <strings.h>

#include "images/registration.h"

struct air_register_image_options {
	air__call_opts call;
	char *str[AIR_REGISTER_CREDENTIALS_KEY + 1]; /* indexed by the string options */
	int64_t timeout_ms;
	int64_t poll_ms;
	int64_t helper_timeout_ms;
	bool discover;
};

int air_register_image_options_new(air_register_image_options **out)
{
	if (!out)
		return AIR_EINVAL;
	if (!(*out = air__calloc(1, sizeof(**out))))
		return AIR_ENOMEM;
	(*out)->timeout_ms = AIR__REGISTER_TIMEOUT_MS;
	(*out)->poll_ms = AIR__REGISTER_POLL_MS;
	(*out)->helper_timeout_ms = AIR__REGISTER_HELPER_TIMEOUT_MS;
	(*out)->discover = true;
	return AIR_OK;
}

void air_register_image_options_free(air_register_image_options *opts)
{
	if (!opts)
		return;
	for (size_t i = 0; i < AIR__ARRAY_SIZE(opts->str); i++)
		air__free(opts->str[i]);
	air__free(opts);
}

/* "" or "latest" (trimmed, any case). */
static bool valid_tag_policy(const char *v)
{
	size_t n;
	const char *t = air__trim(v, &n);

	return n == 0 || (n == 6 && !strncasecmp(t, "latest", 6));
}

int air_register_image_options_set_str(air_register_image_options *opts, int32_t opt,
                                       const char *value)
{
	if (!opts || (opt >= AIR_REGISTER_TIMEOUT_MS && opt <= AIR_REGISTER_DISCOVER))
		return AIR_EINVAL;
	if (opt < AIR_REGISTER_TAG_POLICY || opt > AIR_REGISTER_CREDENTIALS_KEY)
		return AIR_EUNSUPPORTED;
	if (opt == AIR_REGISTER_TAG_POLICY && value && !valid_tag_policy(value))
		return AIR_EINVAL;
	return air__set_str_copy(&opts->str[opt], value);
}

int air_register_image_options_set_int(air_register_image_options *opts, int32_t opt,
                                       int64_t value)
{
	if (!opts || (opt >= AIR_REGISTER_TAG_POLICY && opt <= AIR_REGISTER_CREDENTIALS_KEY))
		return AIR_EINVAL;
	switch (opt) {
	case AIR_REGISTER_TIMEOUT_MS:
		if (value <= 0)
			return AIR_EINVAL;
		opts->timeout_ms = value;
		return AIR_OK;
	case AIR_REGISTER_POLL_INTERVAL_MS:
		if (value < 0)
			return AIR_EINVAL;
		opts->poll_ms = value;
		return AIR_OK;
	case AIR_REGISTER_HELPER_TIMEOUT_MS:
		if (value <= 0)
			return AIR_EINVAL;
		opts->helper_timeout_ms = value;
		return AIR_OK;
	case AIR_REGISTER_DISCOVER:
		if (value != 0 && value != 1)
			return AIR_EINVAL;
		opts->discover = value == 1;
		return AIR_OK;
	default:
		return AIR_EUNSUPPORTED;
	}
}

int air_register_image_options_set_interrupt(air_register_image_options *opts,
                                             air_interrupt *intr)
{
	return air__call_opts_set_interrupt(opts ? &opts->call : NULL, intr);
}

int air_register_image_options_set_deadline_ms(air_register_image_options *opts, int64_t ms)
{
	return air__call_opts_set_deadline(opts ? &opts->call : NULL, ms);
}

static int invalid(air_error **err, const char *field, const char *message)
{
	return air__fail(err, air__error_set_field(air__error_new(AIR_EINVAL,
	                 AIR_KIND_INVALID_ARGUMENT, "%s", message), field));
}

int air_client_register_image(air_client *client, const char *image_url,
                              const air_register_image_options *opts,
                              air_image_registration **out, air_error **err)
{
	static const air_register_image_options defaults = {
		AIR__CALL_OPTS_INIT, {NULL}, AIR__REGISTER_TIMEOUT_MS, AIR__REGISTER_POLL_MS,
		AIR__REGISTER_HELPER_TIMEOUT_MS, true};
	const air_register_image_options *o = opts ? opts : &defaults;
	const char *scope = o->str[AIR_REGISTER_CREDENTIALS_SCOPE];
	const char *key = o->str[AIR_REGISTER_CREDENTIALS_KEY];
	air__register_req req;
	air__ctx ctx;
	char *url;
	int rc;

	if (out)
		*out = NULL;
	if (!client || !out)
		return air__failf(err, AIR_EINVAL, AIR_KIND_INVALID_ARGUMENT,
		                  "air_client_register_image: client and out are required");
	if (!image_url || air__is_blank(image_url))
		return invalid(err, "image_url", "the image URL is empty");
	if ((scope && *scope) != (key && *key))
		return invalid(err, "credentials", "the credentials scope and key go together");
	if (!(url = air__docker_image_normalize(image_url)))
		return air__oom(err);
	memset(&req, 0, sizeof(req));
	req.url = url;
	req.credentials_scope = scope && *scope ? scope : NULL;
	req.credentials_key = key && *key ? key : NULL;
	req.discover = o->discover;
	req.docker_config_dir = o->str[AIR_REGISTER_DOCKER_CONFIG_DIR];
	req.helper_timeout_ms = o->helper_timeout_ms;
	req.poll_ms = o->poll_ms;
	req.timeout_ms = o->timeout_ms;
	air__client_ctx(client, &o->call, &ctx);
	rc = air__client_ensure_resolved(client, &ctx, err);
	if (rc == AIR_OK)
		rc = air__image_register(client, &ctx, &req, out, err);
	air__free(url);
	return rc;
}

air_image_registration *air__image_registration_new(const char *url, const char *digest,
                                                    const char *status, const char *scope,
                                                    const char *key)
{
	air_image_registration *r = air__calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->url = air__strdup(url);
	r->status = air__strdup(status);
	r->manifest_sha256 = air__strdup(digest);
	r->credentials_scope = air__strdup(scope);
	r->credentials_key = air__strdup(key);
	if (!r->url || !r->status || (digest && !r->manifest_sha256) ||
	    (scope && !r->credentials_scope) || (key && !r->credentials_key)) {
		air_image_registration_free(r);
		return NULL;
	}
	return r;
}

const char *air_image_registration_url(const air_image_registration *reg)
{
	return reg ? reg->url : NULL;
}

const char *air_image_registration_manifest_sha256(const air_image_registration *reg)
{
	return reg ? reg->manifest_sha256 : NULL;
}

const char *air_image_registration_status(const air_image_registration *reg)
{
	return reg ? reg->status : NULL;
}

int32_t air_image_registration_image_updated(const air_image_registration *reg)
{
	return reg && reg->image_updated;
}

int32_t air_image_registration_cached(const air_image_registration *reg)
{
	return reg && reg->cached;
}

const char *air_image_registration_credentials_scope(const air_image_registration *reg)
{
	return reg ? reg->credentials_scope : NULL;
}

const char *air_image_registration_credentials_key(const air_image_registration *reg)
{
	return reg ? reg->credentials_key : NULL;
}

void air_image_registration_free(air_image_registration *reg)
{
	if (!reg)
		return;
	air__free(reg->url);
	air__free(reg->manifest_sha256);
	air__free(reg->status);
	air__free(reg->credentials_scope);
	air__free(reg->credentials_key);
	air__free(reg);
}

/* cmd_register_image.c: `air register-image IMAGE_URL`
 * (docs/cli.md#register-a-legacy-docker-image-air-register-image-image_url):
 * register a legacy environment.docker_image with the workspace and wait until
 * it is AVAILABLE. Argument, auth and registration failures are error envelopes
 * under -o json (docs/cli.md#in-ci-json-output-and-exit-codes). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "runs_cli.h"

static const char register_usage[] = "air register-image IMAGE_URL [--timeout-minutes N]";

static const char register_description[] =
	"Register a container image (environment.docker_image, legacy) with the workspace and wait\n"
	"until it is available. Credentials of a private registry are read from the local Docker\n"
	"configuration ($DOCKER_CONFIG/config.json or ~/.docker/config.json: credHelpers, credsStore,\n"
	"auths) and stored in your secret scope docker-credentials-<user>; they are never printed.\n";

/* Poll interval from $AIR_REGISTER_POLL_MS (tests), else -1 (library default). */
static int64_t poll_ms(void)
{
	const char *v = getenv("AIR_REGISTER_POLL_MS");
	char *end;
	long long n;

	if (!v || !*v)
		return -1;
	n = strtoll(v, &end, 10);
	return *end || n < 0 ? -1 : (int64_t)n;
}

static int build_options(const char *tag_policy, int64_t minutes, air_register_image_options **out)
{
	air_register_image_options *o = NULL;
	int rc = air_register_image_options_new(&o);

	if (rc == AIR_OK && tag_policy)
		rc = air_register_image_options_set_str(o, AIR_REGISTER_TAG_POLICY, tag_policy);
	if (rc == AIR_OK)
		rc = air_register_image_options_set_int(o, AIR_REGISTER_TIMEOUT_MS, minutes * 60 * 1000);
	if (rc == AIR_OK && poll_ms() >= 0)
		rc = air_register_image_options_set_int(o, AIR_REGISTER_POLL_INTERVAL_MS, poll_ms());
	if (rc == AIR_OK)
		rc = air_register_image_options_set_interrupt(o, cli_interrupt());
	if (rc != AIR_OK) {
		air_register_image_options_free(o);
		return rc;
	}
	*out = o;
	return AIR_OK;
}

/* REGISTRATION_FAILED: TRANSIENT and retryable for a poll timeout, 429, 5xx
 * and network failures (the library's TRANSIENT kind), else PERMANENT. */
static int report_failure(const cli_globals *g, int rc, const air_error *err)
{
	char *full = cli_air_message(err, rc, NULL);
	const char *msg = full ? full : air_strerror(rc);
	bool transient = err ? air_error_kind(err) == AIR_KIND_TRANSIENT : rc == AIR_ETIMEOUT;
	int out;

	if (rc == AIR_EINTERRUPTED || cli_interrupted())
		out = cli_report_interrupted();
	else if (rc == AIR_EINVAL)
		out = cli_runs_invalid(g, "%s", msg);
	else if (g->json)
		out = cli_print_error_envelope("REGISTRATION_FAILED", transient ? "TRANSIENT" : "PERMANENT",
		                               msg, transient);
	else
		out = cli_error("%s", msg);
	free(full);
	return out;
}

static json_t *str_or_null(const char *s) { return s ? json_string(s) : json_null(); }

static int print_result(const cli_globals *g, const air_image_registration *r)
{
	const char *digest = air_image_registration_manifest_sha256(r);

	if (g->json) {
		json_t *d = json_object();
		json_object_set_new(d, "docker_image_url", json_string(air_image_registration_url(r)));
		json_object_set_new(d, "manifest_sha256", str_or_null(digest));
		json_object_set_new(d, "status", json_string(air_image_registration_status(r)));
		json_object_set_new(d, "image_updated",
		                    json_boolean(air_image_registration_image_updated(r)));
		json_object_set_new(d, "cached", json_boolean(air_image_registration_cached(r)));
		return cli_print_data(d);
	}
	printf("Image %s is %s.\n", air_image_registration_url(r), air_image_registration_status(r));
	printf("Manifest: %s\n", digest ? digest : "unknown");
	if (air_image_registration_cached(r))
		printf("The workspace already had this image; nothing was imported.\n");
	else if (air_image_registration_image_updated(r))
		printf("The workspace now runs this image.\n");
	else
		printf("The image is unchanged.\n");
	fflush(stdout);
	if (air_image_registration_credentials_scope(r))
		fprintf(stderr, "Registry credentials are stored as secret %s/%s.\n",
		        air_image_registration_credentials_scope(r),
		        air_image_registration_credentials_key(r));
	return 0;
}

static int register_image(const cli_globals *g, const char *url, const char *tag_policy,
                          int64_t minutes)
{
	air_register_image_options *o = NULL;
	air_image_registration *r = NULL;
	air_client *client = NULL;
	air_error *err = NULL;
	int rc;

	if (build_options(tag_policy, minutes, &o) != AIR_OK)
		return cli_runs_invalid(g, "cannot prepare the registration options");
	if (cli_runs_open(g, 0, &client, NULL) != 0) {
		air_register_image_options_free(o);
		return 1;
	}
	if (!g->json)
		fprintf(stderr, "Registering %s (waiting up to %" PRId64 " minute%s for the workspace to "
		        "import it)...\n", url, minutes, minutes == 1 ? "" : "s");
	rc = air_client_register_image(client, url, o, &r, &err);
	rc = rc == AIR_OK ? print_result(g, r) : report_failure(g, rc, err);
	air_image_registration_free(r);
	air_error_free(err);
	cli_client_free(client);
	air_register_image_options_free(o);
	return rc;
}

/* "" or "latest" (any case, surrounding blanks ignored). */
static bool valid_tag_policy(const char *v)
{
	size_t start = strspn(v, " \t"), len = strlen(v + start);

	while (len && (v[start + len - 1] == ' ' || v[start + len - 1] == '\t'))
		len--;
	return len == 0 || (len == 6 && !strncasecmp(v + start, "latest", 6));
}

int cmd_register_image(int argc, char **argv, cli_globals *g)
{
	const char *tag_policy = NULL;
	int64_t minutes = 60;
	cli_strlist pos = {NULL, 0};
	const cli_flag flags[] = {
		{"timeout-minutes", 0, CLI_INT, &minutes, NULL, "N",
		 "how long to wait for the image to become available (default 60)", false},
		{"tag-policy", 0, CLI_STRING, &tag_policy, NULL, "POLICY", "empty or latest", true},
		{NULL, 0, CLI_BOOL, NULL, NULL, NULL, NULL, false},
	};
	int rc;

	if (cli_wants_help(argc, argv)) {
		fputs(register_description, stdout);
		cli_print_usage(stdout, register_usage, flags);
		return 0;
	}
	if (!cli_parse(argc, argv, flags, g, &pos, register_usage)) {
		cli_strlist_free(&pos);
		return 1;
	}
	if (pos.count != 1) {
		rc = cli_error("accepts 1 arg(s), received %d", pos.count);
		cli_print_usage(stderr, register_usage, flags);
	} else if (strspn(pos.items[0], " \t\r\n") == strlen(pos.items[0])) {
		rc = cli_runs_invalid(g, "the image URL is empty");
	} else if (minutes <= 0) {
		rc = cli_runs_invalid(g, "--timeout-minutes must be greater than 0, got %" PRId64, minutes);
	} else if (minutes > INT64_MAX / 60000) {
		rc = cli_runs_invalid(g, "--timeout-minutes is too large: %" PRId64, minutes);
	} else if (tag_policy && !valid_tag_policy(tag_policy)) {
		rc = cli_runs_invalid(g, "--tag-policy must be empty or \"latest\", got \"%s\"", tag_policy);
	} else {
		rc = register_image(g, pos.items[0], tag_policy, minutes);
	}
	cli_strlist_free(&pos);
	return rc;
}

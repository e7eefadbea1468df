/*
 * push.c: air_client_push_image() — validate the Unity Catalog names, learn
 * the registry host from `databricks auth docker configure <profile>` (which
 * also installs the Docker credential helper; the profile is the client's),
 * make sure a linux/amd64 image is present (pulling it when absent or asked
 * to), then `docker tag` and `docker push`. Every program is started from an
 * argument vector, never through a shell, and killed when the call is
 * interrupted or its deadline passes.
 */
#include <string.h>

#include "transport/transport.h"

#define NAME_MAX_TOTAL 255
#define TAG_MAX 128
#define QUICK_TIMEOUT_MS (2 * 60 * 1000)
#define OUTPUT_TAIL (16 * 1024)

struct air_image_push_options {
	air__call_opts call;
	char *str[AIR_IMAGE_DATABRICKS_CLI + 1]; /* indexed by the string options */
	bool pull;
};

/* One push: the options and the call's interrupts and deadline. */
typedef struct push {
	const air_image_push_options *o;
	air__ctx ctx;
} push;

int air_image_push_options_new(air_image_push_options **out)
{
	if (!out)
		return AIR_EINVAL;
	*out = air__calloc(1, sizeof(**out));
	return *out ? AIR_OK : AIR_ENOMEM;
}

void air_image_push_options_free(air_image_push_options *opts)
{
	if (!opts)
		return;
	for (size_t i = 0; i < AIR__ARRAY_SIZE(opts->str); i++)
		air__free(opts->str[i]);
	air__free(opts);
}

int air_image_push_options_set_str(air_image_push_options *opts, int32_t opt, const char *value)
{
	if (!opts || opt == AIR_IMAGE_PULL)
		return AIR_EINVAL;
	if (opt < AIR_IMAGE_SOURCE || opt > AIR_IMAGE_DATABRICKS_CLI)
		return AIR_EUNSUPPORTED;
	return air__set_str_copy(&opts->str[opt], value);
}

int air_image_push_options_set_int(air_image_push_options *opts, int32_t opt, int64_t value)
{
	if (!opts)
		return AIR_EINVAL;
	if (opt >= AIR_IMAGE_SOURCE && opt <= AIR_IMAGE_DATABRICKS_CLI)
		return AIR_EINVAL;
	if (opt != AIR_IMAGE_PULL)
		return AIR_EUNSUPPORTED;
	if (value != 0 && value != 1)
		return AIR_EINVAL;
	opts->pull = value == 1;
	return AIR_OK;
}

int air_image_push_options_set_interrupt(air_image_push_options *opts, air_interrupt *intr)
{
	return air__call_opts_set_interrupt(opts ? &opts->call : NULL, intr);
}

int air_image_push_options_set_deadline_ms(air_image_push_options *opts, int64_t ms)
{
	return air__call_opts_set_deadline(opts ? &opts->call : NULL, ms);
}

static bool is_lower_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* ^[a-z0-9]+((_|__|-+)[a-z0-9]+)*$ */
static bool valid_name(const char *s)
{
	size_t i = 0;

	for (;;) {
		size_t run = 0;
		while (is_lower_alnum(s[i])) {
			i++;
			run++;
		}
		if (run == 0)
			return false;
		if (!s[i])
			return true;
		if (s[i] == '_') {
			i += s[i + 1] == '_' ? 2 : 1;
		} else if (s[i] == '-') {
			while (s[i] == '-')
				i++;
		} else {
			return false;
		}
	}
}

/* ^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$ */
static bool valid_tag(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > TAG_MAX || s[0] == '.' || s[0] == '-')
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '.' || c == '-'))
			return false;
	}
	return true;
}

static int invalid(air_error **err, const char *field, const char *fmt, const char *value)
{
	air_error *e = air__error_new(AIR_EINVAL, AIR_KIND_INVALID_ARGUMENT, fmt, value);
	return air__fail(err, air__error_set_field(e, field));
}

/* The destination names: catalog, schema, artifact and tag (defaults from the source). */
typedef struct target {
	const char *catalog, *schema;
	char *artifact, *tag;
} target;

static int parse_target(const air_image_push_options *o, target *t, air_error **err)
{
	const char *src = o->str[AIR_IMAGE_SOURCE], *art = o->str[AIR_IMAGE_ARTIFACT];
	const char *at, *last, *colon;
	char *name;
	size_t total;

	t->catalog = o->str[AIR_IMAGE_CATALOG];
	t->schema = o->str[AIR_IMAGE_SCHEMA];
	if (!src || !*src)
		return invalid(err, "source", "the source image is required%s", "");
	if (!t->catalog || !*t->catalog)
		return invalid(err, "catalog", "the destination catalog is required%s", "");
	if (!t->schema || !*t->schema)
		return invalid(err, "schema", "the destination schema is required%s", "");
	/* source NAME[:TAG] or NAME[:TAG]@DIGEST; the registry may carry a ":port". */
	at = strchr(src, '@');
	name = air__strndup(src, at ? (size_t)(at - src) : strlen(src));
	if (!name)
		return air__oom(err);
	last = strrchr(name, '/');
	last = last ? last + 1 : name;
	colon = strchr(last, ':');
	if (art && *art) {
		const char *ac = strchr(art, ':');
		t->artifact = air__strndup(art, ac ? (size_t)(ac - art) : strlen(art));
		t->tag = air__strdup(ac ? ac + 1 : (colon ? colon + 1 : "latest"));
	} else {
		t->artifact = air__strndup(last, colon ? (size_t)(colon - last) : strlen(last));
		t->tag = air__strdup(colon ? colon + 1 : "latest");
	}
	air__free(name);
	if (!t->artifact || !t->tag)
		return air__oom(err);
	if (!valid_name(t->catalog))
		return invalid(err, "catalog", "catalog \"%s\" must match ^[a-z0-9]+((_|__|-+)[a-z0-9]+)*$",
		               t->catalog);
	if (!valid_name(t->schema))
		return invalid(err, "schema", "schema \"%s\" must match ^[a-z0-9]+((_|__|-+)[a-z0-9]+)*$",
		               t->schema);
	if (!valid_name(t->artifact))
		return invalid(err, "artifact", "artifact \"%s\" must match ^[a-z0-9]+((_|__|-+)[a-z0-9]+)*$ "
		               "(the source's last component, unless the artifact option names it)",
		               t->artifact);
	if (!valid_tag(t->tag))
		return invalid(err, "tag", "tag \"%s\" must match ^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$", t->tag);
	total = strlen(t->catalog) + strlen(t->schema) + strlen(t->artifact) + 2;
	if (total > NAME_MAX_TOTAL)
		return air__fail(err, air__error_set_field(air__error_new(AIR_EINVAL,
		                 AIR_KIND_INVALID_ARGUMENT, "%s.%s.%s is %zu characters long; at most %d are "
		                 "allowed", t->catalog, t->schema, t->artifact, total, NAME_MAX_TOTAL), "artifact"));
	return AIR_OK;
}

/* Run a program; AIR_EIO naming @what with its last output line on failure. */
static int run(const push *p, const char *const *argv, int64_t timeout_ms, const char *what,
               air__proc_result *r, air_error **err)
{
	air__proc_opts o = AIR__PROC_OPTS_INIT;
	char line[512];
	int rc;

	o.timeout_ms = timeout_ms;
	o.ctx = &p->ctx;
	o.stdout_limit = OUTPUT_TAIL;
	o.stdout_keep_tail = true;
	rc = air__proc_run(argv, &o, r, err);
	if (rc != AIR_OK || air__proc_ok(r))
		return rc;
	if (r->timed_out)
		return air__failf(err, AIR_EIO, AIR_KIND_IO, "%s timed out", what);
	return air__failf(err, AIR_EIO, AIR_KIND_IO, "%s failed (exit %d): %s", what, r->exit_code,
	                  air__proc_last_line(r, line, sizeof(line)));
}

/* The first word of @text naming a "...container..." registry host. */
static char *find_registry_host(const char *text)
{
	static const char trim_chars[] = "\"'`,;()<>[]";
	const char *p = text;

	while (*p) {
		size_t n, skip;
		char *word;
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		n = strcspn(p, " \t\r\n");
		word = air__strndup(p, n);
		p += n;
		if (!word)
			return NULL;
		skip = strspn(word, trim_chars);
		memmove(word, word + skip, strlen(word + skip) + 1);
		for (size_t l = strlen(word); l && (strchr(trim_chars, word[l - 1]) || word[l - 1] == '.' ||
		                                    word[l - 1] == '/' || word[l - 1] == ':'); l--)
			word[l - 1] = '\0';
		if (air__starts_with(word, "https://") || air__starts_with(word, "http://"))
			memmove(word, strstr(word, "//") + 2, strlen(strstr(word, "//") + 2) + 1);
		if (strstr(word, ".container.") && !strchr(word, '/'))
			return word;
		air__free(word);
	}
	return NULL;
}

static int registry_host(air_client *client, push *p, char **host, air_error **err)
{
	const air_image_push_options *o = p->o;
	const char *cli = o->str[AIR_IMAGE_DATABRICKS_CLI] ? o->str[AIR_IMAGE_DATABRICKS_CLI] : "databricks";
	const char *profile;
	air__proc_result r;
	int rc;

	if (o->str[AIR_IMAGE_REGISTRY_HOST] && *o->str[AIR_IMAGE_REGISTRY_HOST])
		return (*host = air__strdup(o->str[AIR_IMAGE_REGISTRY_HOST])) ? AIR_OK
		       : air__oom(err);
	/* The profile the client names (option, then DATABRICKS_CONFIG_PROFILE)
	 * is all `databricks auth docker configure` needs; otherwise the one its
	 * resolved configuration came from (a default profile). */
	profile = air__client_opt_str(client, AIR_OPT_PROFILE);
	if (!profile)
		profile = air__client_env(client, "DATABRICKS_CONFIG_PROFILE");
	if (!profile) {
		if ((rc = air__client_ensure_resolved(client, &p->ctx, err)) != AIR_OK)
			return rc;
		profile = air__client_profile(client);
	}
	if (!profile || !*profile)
		return air__fail(err, air__error_set_field(air__error_new(AIR_EAUTH, AIR_KIND_PERMANENT,
		                 "pushing images needs a workspace OAuth login through a Databricks CLI "
		                 "profile (the Docker credential helper does not work with tokens): run "
		                 "`databricks auth login --profile NAME` and choose that profile (the "
		                 "client's profile option or DATABRICKS_CONFIG_PROFILE)"), "profile"));
	{
		const char *argv[] = {cli, "auth", "docker", "configure", profile, NULL};
		rc = run(p, argv, QUICK_TIMEOUT_MS, "databricks auth docker configure", &r, err);
	}
	if (rc == AIR_OK && !(*host = find_registry_host(air__buf_cstr(&r.out))) &&
	    !(*host = find_registry_host(air__buf_cstr(&r.err))))
		rc = air__failf(err, AIR_EIO, AIR_KIND_IO,
		                "databricks auth docker configure did not report a registry host");
	air__proc_result_dispose(&r);
	return rc;
}

/* "linux/amd64" of a local image; AIR_ENOTFOUND (no error) when absent. */
static int inspect(const push *p, const char *docker, const char *source, char **platform,
                   air_error **err)
{
	const char *argv[] = {docker, "image", "inspect", "--format", "{{.Os}}/{{.Architecture}}", source,
	                      NULL};
	air__proc_opts o = AIR__PROC_OPTS_INIT;
	air__proc_result r;
	int rc;

	o.timeout_ms = QUICK_TIMEOUT_MS;
	o.ctx = &p->ctx;
	rc = air__proc_run(argv, &o, &r, err);
	if (rc == AIR_OK && !air__proc_ok(&r))
		rc = AIR_ENOTFOUND;
	else if (rc == AIR_OK && !(*platform = air__trim_dup(air__buf_cstr(&r.out))))
		rc = air__oom(err);
	air__proc_result_dispose(&r);
	return rc;
}

static int local_amd64_image(const push *p, const char *docker, air_error **err)
{
	const char *source = p->o->str[AIR_IMAGE_SOURCE];
	char *platform = NULL;
	int rc = p->o->pull ? AIR_ENOTFOUND : inspect(p, docker, source, &platform, err);

	if (rc == AIR_ENOTFOUND) {
		const char *argv[] = {docker, "pull", "--platform", "linux/amd64", source, NULL};
		air__proc_result r;
		rc = run(p, argv, 0, "docker pull", &r, err);
		air__proc_result_dispose(&r);
		if (rc == AIR_OK && (rc = inspect(p, docker, source, &platform, err)) == AIR_ENOTFOUND)
			rc = air__failf(err, AIR_EIO, AIR_KIND_IO, "image %s is not available after docker pull",
			                source);
	}
	if (rc == AIR_OK && strcmp(platform, "linux/amd64") != 0)
		rc = air__fail(err, air__error_set_field(air__error_new(AIR_EINVAL, AIR_KIND_INVALID_ARGUMENT,
		               "image %s is built for %s; AI Runtime needs linux/amd64 (the pull option "
		               "fetches the linux/amd64 variant)", source, platform), "source"));
	air__free(platform);
	return rc;
}

int air_client_push_image(air_client *client, const air_image_push_options *opts,
                          char **uc_image, char **registry_image, air_error **err)
{
	push p = {opts, {0}};
	target t = {NULL, NULL, NULL, NULL};
	char *host = NULL, *uc = NULL, *remote = NULL;
	const char *docker;
	air__proc_result r;
	int rc;

	if (uc_image)
		*uc_image = NULL;
	if (registry_image)
		*registry_image = NULL;
	if (!client || !opts || !uc_image)
		return air__failf(err, AIR_EINVAL, AIR_KIND_INVALID_ARGUMENT,
		                  "air_client_push_image: client, options and uc_image are required");
	air__client_ctx(client, &opts->call, &p.ctx);
	docker = opts->str[AIR_IMAGE_DOCKER] ? opts->str[AIR_IMAGE_DOCKER] : "docker";
	rc = parse_target(opts, &t, err);
	if (rc == AIR_OK)
		rc = registry_host(client, &p, &host, err);
	if (rc == AIR_OK && (!(uc = air__sprintf("%s.%s.%s:%s", t.catalog, t.schema, t.artifact, t.tag)) ||
	                     !(remote = air__sprintf("%s/%s", host, uc))))
		rc = air__oom(err);
	if (rc == AIR_OK)
		rc = local_amd64_image(&p, docker, err);
	if (rc == AIR_OK) {
		const char *argv[] = {docker, "tag", opts->str[AIR_IMAGE_SOURCE], remote, NULL};
		rc = run(&p, argv, QUICK_TIMEOUT_MS, "docker tag", &r, err);
		air__proc_result_dispose(&r);
	}
	if (rc == AIR_OK) {
		const char *argv[] = {docker, "push", remote, NULL};
		rc = run(&p, argv, 0, "docker push", &r, err);
		air__proc_result_dispose(&r);
	}
	if (rc == AIR_OK) {
		*uc_image = uc;
		uc = NULL;
		if (registry_image) {
			*registry_image = remote;
			remote = NULL;
		}
	}
	air__free(t.artifact);
	air__free(t.tag);
	air__free(host);
	air__free(uc);
	air__free(remote);
	return rc;
}

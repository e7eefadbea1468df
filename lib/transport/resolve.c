/*
 * resolve.c: configuration resolution (docs/auth.md): explicit
 * options > environment > ~/.databrickscfg profile, and the checks that need
 * no network (host normalisation is in url.c).
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <pwd.h>
#include <string.h>
#include <unistd.h>

#include "transport/client_priv.h"
#include "transport/profile.h"

#define SETTINGS_SECTION "__settings__"

static const struct attr_info {
	const char *name;   /* attribute name and profile key */
	const char *env;    /* environment variable */
	int32_t opt;        /* client option, 0 when none */
	const char *method; /* auth method whose input this is, or NULL */
	bool routing;       /* never taken from the environment with an explicit profile */
} attrs[AIR__A_COUNT] = {
	[AIR__A_HOST] = {"host", "DATABRICKS_HOST", AIR_OPT_HOST, NULL, false},
	[AIR__A_TOKEN] = {"token", "DATABRICKS_TOKEN", AIR_OPT_TOKEN, "pat", false},
	[AIR__A_USERNAME] = {"username", "DATABRICKS_USERNAME", AIR_OPT_USERNAME, "basic", false},
	[AIR__A_PASSWORD] = {"password", "DATABRICKS_PASSWORD", AIR_OPT_PASSWORD, "basic", false},
	[AIR__A_CLIENT_ID] = {"client_id", "DATABRICKS_CLIENT_ID", AIR_OPT_CLIENT_ID, "oauth-m2m",
	                      false},
	[AIR__A_CLIENT_SECRET] = {"client_secret", "DATABRICKS_CLIENT_SECRET",
	                          AIR_OPT_CLIENT_SECRET, "oauth-m2m", false},
	[AIR__A_ACCOUNT_ID] = {"account_id", "DATABRICKS_ACCOUNT_ID", 0, NULL, true},
	[AIR__A_WORKSPACE_ID] = {"workspace_id", "DATABRICKS_WORKSPACE_ID", AIR_OPT_WORKSPACE_ID,
	                         NULL, true},
	[AIR__A_AUTH_TYPE] = {"auth_type", "DATABRICKS_AUTH_TYPE", AIR_OPT_AUTH_TYPE, NULL, true},
	[AIR__A_DISCOVERY_URL] = {"discovery_url", "DATABRICKS_DISCOVERY_URL",
	                          AIR_OPT_DISCOVERY_URL, NULL, true},
};

static const char *const supported_auth_types[] = {"pat", "basic", "oauth-m2m", "databricks-cli"};

/* Names of the options behind the attributes, for messages. */
static const char *const option_names[AIR__A_COUNT] = {
	[AIR__A_HOST] = "AIR_OPT_HOST", [AIR__A_TOKEN] = "AIR_OPT_TOKEN",
	[AIR__A_USERNAME] = "AIR_OPT_USERNAME", [AIR__A_PASSWORD] = "AIR_OPT_PASSWORD",
	[AIR__A_CLIENT_ID] = "AIR_OPT_CLIENT_ID", [AIR__A_CLIENT_SECRET] = "AIR_OPT_CLIENT_SECRET",
	[AIR__A_WORKSPACE_ID] = "AIR_OPT_WORKSPACE_ID", [AIR__A_AUTH_TYPE] = "AIR_OPT_AUTH_TYPE",
	[AIR__A_DISCOVERY_URL] = "AIR_OPT_DISCOVERY_URL",
};

void air__cfg_clear(air__cfg *cfg)
{
	for (int i = 0; i < AIR__A_COUNT; i++)
		air__free_secret(cfg->attr[i]);
	air__free(cfg->profile);
	air__free(cfg->config_file);
	air__free(cfg->home);
	air__free(cfg->auth_storage);
	air__free(cfg->host_type);
	memset(cfg, 0, sizeof(*cfg));
}

static const char *file_name(const air__cfg *cfg)
{
	return cfg->config_file ? cfg->config_file : "~/.databrickscfg";
}

/* Resolution state; the config file is read at most once. */
typedef struct resolver {
	air_client *c;
	air__cfg *cfg;
	air__ini *ini;
	bool ini_loaded;
	const char *section;    /* section whose values were used, or NULL */
	bool named_missing_file; /* a profile was named but the config file does not exist */
} resolver;

static int set_attr(resolver *r, air__attr a, const char *value, air__src src)
{
	char *copy;

	if (!value || !*value || r->cfg->attr[a])
		return AIR_OK;
	if (!(copy = air__strdup(value)))
		return AIR_ENOMEM;
	r->cfg->attr[a] = copy;
	r->cfg->src[a] = src;
	return AIR_OK;
}

static int load_ini(resolver *r, air_error **err)
{
	int rc;

	if (r->ini_loaded)
		return AIR_OK;
	r->ini_loaded = true;
	if (!r->cfg->config_file)
		return AIR_OK;
	rc = air__ini_load(r->cfg->config_file, &r->ini, err);
	if (rc == AIR_OK)
		air__client_debug(r->c, AIR_DEBUG_INFO, "config file %s %s", r->cfg->config_file,
		                  r->ini ? "loaded" : "not found");
	return rc;
}

/* A named profile must exist and hold at least one value. */
static int check_profile(resolver *r, const char *name, air_error **err)
{
	if (strcmp(name, SETTINGS_SECTION) == 0)
		return air__failf(err, AIR_EINVAL, 0,
		                  "\"%s\" is the reserved settings section of %s, not a profile",
		                  name, file_name(r->cfg));
	if (!r->ini) {
		r->named_missing_file = true;
		return AIR_OK; /* a missing file is skipped; credential selection reports it */
	}
	for (int i = 0; i < AIR__A_COUNT; i++)
		if (air__ini_get(r->ini, name, attrs[i].name))
			return AIR_OK;
	return air__failf(err, AIR_EINVAL, 0, "profile \"%s\" not found in %s%s", name,
	                  r->cfg->config_file,
	                  air__ini_has_section(r->ini, name) ? " (the section is empty)" : "");
}

static int fill_from_section(resolver *r, const char *section, bool only_auth_and_host)
{
	int rc = AIR_OK;

	if (!r->ini || !air__ini_has_section(r->ini, section))
		return AIR_OK;
	r->section = section;
	for (int i = 0; i < AIR__A_COUNT && rc == AIR_OK; i++) {
		if (only_auth_and_host && !attrs[i].method && i != AIR__A_HOST)
			continue;
		rc = set_attr(r, (air__attr)i, air__ini_get(r->ini, section, attrs[i].name),
		              AIR__SRC_PROFILE);
	}
	return rc;
}

/* Environment values; with an explicit profile only auth inputs and host
 * (gap-filling), never routing attributes. */
static int fill_from_env(resolver *r, bool explicit_profile)
{
	int rc = AIR_OK;

	for (int i = 0; i < AIR__A_COUNT && rc == AIR_OK; i++) {
		if (explicit_profile && (attrs[i].routing || (!attrs[i].method && i != AIR__A_HOST)))
			continue;
		rc = set_attr(r, (air__attr)i, air__client_env(r->c, attrs[i].env), AIR__SRC_ENV);
	}
	return rc;
}

static int fill_from_options(resolver *r)
{
	int rc = AIR_OK;

	for (int i = 0; i < AIR__A_COUNT && rc == AIR_OK; i++)
		if (attrs[i].opt)
			rc = set_attr(r, (air__attr)i, air__client_opt_str(r->c, attrs[i].opt),
			              AIR__SRC_OPTION);
	return rc;
}

static bool any_auth_input(const air__cfg *cfg)
{
	for (int i = 0; i < AIR__A_COUNT; i++)
		if (attrs[i].method && cfg->attr[i])
			return true;
	return false;
}

/* docs/auth.md#where-values-come-from, with a profile: an explicit profile wins
 * over environment auth. */
static int resolve_explicit_profile(resolver *r, const char *name, air_error **err)
{
	int rc;

	if ((rc = load_ini(r, err)) != AIR_OK || (rc = check_profile(r, name, err)) != AIR_OK)
		return rc;
	if (!(r->cfg->profile = air__strdup(name)))
		return AIR_ENOMEM;
	r->cfg->through_profile = true;
	if ((rc = fill_from_section(r, name, false)) != AIR_OK)
		return rc;
	return fill_from_env(r, true);
}

/* docs/auth.md#where-values-come-from, without a profile: environment first. */
static int resolve_env_first(resolver *r, air_error **err)
{
	const char *name = air__client_env(r->c, "DATABRICKS_CONFIG_PROFILE");
	bool host_given = r->cfg->attr[AIR__A_HOST] || air__client_env(r->c, "DATABRICKS_HOST");
	int rc;

	if (!name && !host_given) {
		if ((rc = load_ini(r, err)) != AIR_OK)
			return rc;
		name = air__ini_get(r->ini, SETTINGS_SECTION, "default_profile");
		if (!name && air__ini_get(r->ini, "DEFAULT", "host"))
			name = "DEFAULT";
	}
	if ((rc = fill_from_env(r, false)) != AIR_OK)
		return rc;
	if (!name && (any_auth_input(r->cfg) || r->cfg->attr[AIR__A_HOST]))
		return AIR_OK; /* DATABRICKS_HOST (or any auth input) alone: no config file */
	if ((rc = load_ini(r, err)) != AIR_OK)
		return rc;
	if (!name)
		return fill_from_section(r, "DEFAULT", false);
	if ((rc = check_profile(r, name, err)) != AIR_OK)
		return rc;
	if (!(r->cfg->profile = air__strdup(name)))
		return AIR_ENOMEM;
	r->cfg->through_profile = true;
	return fill_from_section(r, name, false);
}

static char *home_dir(const air_client *c)
{
	const char *h = air__client_opt_str(c, AIR_OPT_HOME_DIR);
	struct passwd pw, *res = NULL;
	char buf[4096];

	if (h)
		return air__strdup(h);
	if ((h = air__client_env(c, "HOME")) != NULL)
		return air__strdup(h);
	/* Only a process that reads its real environment falls back to passwd:
	 * a private or disabled environment must not see the real home. */
	if (c->o.env || air__client_opt_int(c, AIR_OPT_USE_ENVIRONMENT) == 0)
		return NULL;
	if (getpwuid_r(getuid(), &pw, buf, sizeof(buf), &res) == 0 && res && res->pw_dir)
		return air__strdup(res->pw_dir);
	return NULL;
}

char *air__expand_home(const air_client *c, const char *path)
{
	if (path[0] != '~')
		return air__strdup(path);
	if (path[1] != '\0' && path[1] != '/')
		return air__strdup(path); /* ~user is not expanded */
	if (!c->cfg.home)
		return NULL;
	return air__sprintf("%s%s", c->cfg.home, path + 1);
}

static int parse_setting(const char *value, const char *what, int64_t scale, int64_t *out,
                         air_error **err)
{
	int64_t v;

	if (!air__parse_int64(value, &v) || v < 0 || v > INT64_MAX / scale)
		return air__failf(err, AIR_EINVAL, 0, "%s: \"%s\" is not a non-negative integer",
		                  what, value);
	*out = v * scale;
	return AIR_OK;
}

/* Transport settings: explicit option > environment > profile > default. */
static int resolve_settings(resolver *r, air_error **err)
{
	air_client *c = r->c;
	air__cfg *cfg = r->cfg;
	const char *sec = r->section, *v;
	int rc;

	cfg->rate_limit = air__client_opt_int(c, AIR_OPT_RATE_LIMIT);
	if (!air__client_opt_int_is_set(c, AIR_OPT_RATE_LIMIT)) {
		if ((v = air__client_env(c, "DATABRICKS_RATE_LIMIT")) != NULL) {
			if ((rc = parse_setting(v, "DATABRICKS_RATE_LIMIT", 1, &cfg->rate_limit, err)))
				return rc;
		} else if (sec && (v = air__ini_get(r->ini, sec, "rate_limit")) != NULL) {
			if ((rc = parse_setting(v, "rate_limit", 1, &cfg->rate_limit, err)))
				return rc;
		}
	}
	cfg->inactivity_ms = air__client_opt_int(c, AIR_OPT_INACTIVITY_TIMEOUT_MS);
	if (!air__client_opt_int_is_set(c, AIR_OPT_INACTIVITY_TIMEOUT_MS) && sec &&
	    (v = air__ini_get(r->ini, sec, "http_timeout_seconds")) != NULL &&
	    (rc = parse_setting(v, "http_timeout_seconds", 1000, &cfg->inactivity_ms, err)))
		return rc;
	cfg->retry_deadline_ms = air__client_opt_int(c, AIR_OPT_RETRY_DEADLINE_MS);
	if (!air__client_opt_int_is_set(c, AIR_OPT_RETRY_DEADLINE_MS) && sec &&
	    (v = air__ini_get(r->ini, sec, "retry_timeout_seconds")) != NULL &&
	    (rc = parse_setting(v, "retry_timeout_seconds", 1000, &cfg->retry_deadline_ms, err)))
		return rc;
	cfg->skip_verify = air__client_opt_int(c, AIR_OPT_SKIP_TLS_VERIFY) != 0;
	if (!air__client_opt_int_is_set(c, AIR_OPT_SKIP_TLS_VERIFY) && sec &&
	    (v = air__ini_get(r->ini, sec, "skip_verify")) != NULL)
		cfg->skip_verify = strcmp(v, "true") == 0 || strcmp(v, "1") == 0;
	return AIR_OK;
}

/* U2M storage mode: option > DATABRICKS_AUTH_STORAGE > [__settings__] > secure. */
static int resolve_auth_storage(resolver *r, air_error **err)
{
	const char *v = air__client_opt_str(r->c, AIR_OPT_AUTH_STORAGE);
	const char *what = "AIR_OPT_AUTH_STORAGE";

	if (!v) {
		v = air__client_env(r->c, "DATABRICKS_AUTH_STORAGE");
		what = "DATABRICKS_AUTH_STORAGE";
	}
	if (!v) {
		/* The settings section is consulted even when profiles are not:
		 * a broken file only matters when the profile algorithm reads it. */
		if (!r->ini_loaded)
			load_ini(r, NULL);
		v = air__ini_get(r->ini, SETTINGS_SECTION, "auth_storage");
		what = "auth_storage in [__settings__]";
	}
	if (!v)
		return AIR_OK;
	if (strcmp(v, "plaintext") != 0 && strcmp(v, "secure") != 0)
		return air__failf(err, AIR_EINVAL, 0,
		                  "%s: unknown token storage \"%s\" (expected plaintext or secure)",
		                  what, v);
	r->cfg->auth_storage_explicit = true;
	return (r->cfg->auth_storage = air__strdup(v)) ? AIR_OK : AIR_ENOMEM;
}

static int no_host_error(resolver *r, air_error **err)
{
	const air__cfg *cfg = r->cfg;

	if (r->named_missing_file)
		return air__failf(err, AIR_EAUTH, 0,
		                  "profile \"%s\" cannot be used: config file %s does not exist",
		                  cfg->profile, file_name(cfg));
	if (cfg->profile)
		return air__failf(err, AIR_EAUTH, 0, "profile \"%s\" in %s has no host", cfg->profile,
		                  file_name(cfg));
	if (any_auth_input(cfg))
		return air__failf(err, AIR_EAUTH, 0,
		                  "no host configured: set DATABRICKS_HOST or use a profile with a host");
	return air__fail(err, air__error_set_field(air__error_new(AIR_EAUTH, 0,
	                 "no default profile is configured: choose a profile (the profile option or "
	                 "DATABRICKS_CONFIG_PROFILE) or create one (databricks configure, or "
	                 "databricks auth login), or set DATABRICKS_HOST (local:// runs workloads on "
	                 "this machine)"), "profile"));
}

static int check_auth_type(const air__cfg *cfg, air_error **err)
{
	const char *t = cfg->attr[AIR__A_AUTH_TYPE];

	if (!t)
		return AIR_OK;
	for (size_t i = 0; i < AIR__ARRAY_SIZE(supported_auth_types); i++)
		if (strcmp(t, supported_auth_types[i]) == 0)
			return AIR_OK;
	return air__failf(err, AIR_EAUTH, 0,
	                  "auth type \"%s\" is not supported by libair "
	                  "(supported: pat, basic, oauth-m2m, databricks-cli)",
	                  t);
}

/* Without auth_type, inputs of more than one method are ambiguous. */
static int check_conflicts(const air__cfg *cfg, air_error **err)
{
	const char *seen[AIR__A_COUNT];
	size_t n = 0;
	air__buf b = AIR__BUF_INIT;
	int rc;

	if (cfg->attr[AIR__A_AUTH_TYPE])
		return AIR_OK;
	for (int i = 0; i < AIR__A_COUNT; i++) {
		bool dup = false;
		if (!attrs[i].method || !cfg->attr[i])
			continue;
		for (size_t j = 0; j < n; j++)
			dup = dup || strcmp(seen[j], attrs[i].method) == 0;
		if (!dup)
			seen[n++] = attrs[i].method;
	}
	if (n < 2)
		return AIR_OK;
	for (size_t j = 0; j < n; j++)
		air__buf_printf(&b, "%s%s", j == 0 ? "" : (j + 1 == n ? " and " : ", "), seen[j]);
	rc = air__failf(err, AIR_EAUTH, 0,
	                "more than one authorization method configured: %s; set auth_type "
	                "(DATABRICKS_AUTH_TYPE) to choose one",
	                air__buf_cstr(&b));
	air__buf_dispose(&b);
	return rc;
}

/* Where attribute @a came from: "environment variable DATABRICKS_TOKEN",
 * "option AIR_OPT_TOKEN", "profile \"p\" in FILE, line N". */
static void describe_source(const resolver *r, air__attr a, air__buf *b)
{
	const air__cfg *cfg = r->cfg;
	int line;

	switch (cfg->src[a]) {
	case AIR__SRC_OPTION:
		air__buf_printf(b, "option %s", option_names[a] ? option_names[a] : attrs[a].name);
		break;
	case AIR__SRC_ENV:
		air__buf_printf(b, "environment variable %s", attrs[a].env);
		break;
	case AIR__SRC_PROFILE:
		line = r->section ? air__ini_line(r->ini, r->section, attrs[a].name) : 0;
		air__buf_printf(b, "profile \"%s\" in %s", r->section ? r->section : "?",
		                file_name(cfg));
		if (line > 0)
			air__buf_printf(b, ", line %d", line);
		break;
	case AIR__SRC_HOST_QUERY:
		air__buf_puts(b, "the query of the host URL");
		break;
	default:
		air__buf_puts(b, "the host metadata");
		break;
	}
}

static const char *control_name(char c, char other[16])
{
	switch (c) {
	case '\r':
		return "a carriage return";
	case '\n':
		return "a line feed";
	case '\t':
		return "a tab";
	case 0x1B:
		return "an escape";
	default:
		snprintf(other, 16, "byte 0x%02X", (unsigned char)c);
		return other;
	}
}

/* Credentials (and the workspace id) go into request headers, where a
 * control character would break the request: CR LF would even add headers
 * of its own. Such a value is refused, naming where it came from and never
 * quoting it. */
static int check_header_values(resolver *r, air_error **err)
{
	for (int i = 0; i < AIR__A_COUNT; i++) {
		const char *v = r->cfg->attr[i], *bad;
		air__buf where = AIR__BUF_INIT;
		char byte[16];
		int rc;

		if ((!attrs[i].method && i != AIR__A_WORKSPACE_ID) || !v || !(bad = air__find_control(v)))
			continue;
		describe_source(r, (air__attr)i, &where);
		rc = air__failf(err, AIR_EAUTH, AIR_KIND_PERMANENT,
		                "the %s from %s contains a control character (%s at position %zu); "
		                "credentials must be a single line without control characters",
		                i == AIR__A_WORKSPACE_ID ? "workspace id" : attrs[i].name,
		                air__buf_cstr(&where), control_name(*bad, byte), (size_t)(bad - v) + 1);
		air__buf_dispose(&where);
		return rc;
	}
	return AIR_OK;
}

/* The credentials a request would carry: single lines, of a supported auth
 * type, without conflicts. */
static int check_credentials(resolver *r, air_error **err)
{
	int rc = check_header_values(r, err);

	if (rc == AIR_OK)
		rc = check_auth_type(r->cfg, err);
	if (rc == AIR_OK)
		rc = check_conflicts(r->cfg, err);
	return rc;
}

/* The host selects its backend kind (backend.h), which finishes it. */
static int finish_host(resolver *r, air_error **err)
{
	if (!r->cfg->attr[AIR__A_HOST])
		return no_host_error(r, err);
	r->cfg->backend = air__backend_kind_of(r->cfg->attr[AIR__A_HOST]);
	return r->cfg->backend->finish_host(r->c, err);
}

int air__resolve_workspace_host(air_client *c, air_error **err)
{
	resolver r = {c, &c->cfg, NULL, false, NULL, false};
	air__cfg *cfg = &c->cfg;
	char *host = NULL, *ws = NULL, *acct = NULL;
	int rc;

	rc = air__host_normalize(cfg->attr[AIR__A_HOST], &host, &ws, &acct, err);
	if (rc != AIR_OK)
		return rc;
	air__free(cfg->attr[AIR__A_HOST]);
	cfg->attr[AIR__A_HOST] = host;
	if (cfg->attr[AIR__A_WORKSPACE_ID] && strcmp(cfg->attr[AIR__A_WORKSPACE_ID], "none") == 0) {
		air__free(cfg->attr[AIR__A_WORKSPACE_ID]);
		cfg->attr[AIR__A_WORKSPACE_ID] = NULL;
		cfg->src[AIR__A_WORKSPACE_ID] = AIR__SRC_NONE;
	}
	rc = set_attr(&r, AIR__A_WORKSPACE_ID, ws, AIR__SRC_HOST_QUERY);
	if (rc == AIR_OK)
		rc = set_attr(&r, AIR__A_ACCOUNT_ID, acct, AIR__SRC_HOST_QUERY);
	air__free(ws);
	air__free(acct);
	if (rc != AIR_OK)
		return rc;
	if (air__starts_with(host, "https://accounts.") ||
	    air__starts_with(host, "https://accounts-dod."))
		return air__failf(err, AIR_EINVAL, 0,
		                  "%s is an account console host; workspace commands need a "
		                  "workspace host",
		                  host);
	if (cfg->src[AIR__A_ACCOUNT_ID] == AIR__SRC_PROFILE && !cfg->attr[AIR__A_WORKSPACE_ID])
		return air__failf(err, AIR_EINVAL, 0,
		                  "profile \"%s\" is an account-level profile (account_id without "
		                  "workspace_id) and cannot run workspace commands",
		                  cfg->profile ? cfg->profile : "DEFAULT");
	return air__check_url_safe(host, "the workspace host", err);
}

int air__resolve_config(air_client *c, air_error **err)
{
	resolver r = {c, &c->cfg, NULL, false, NULL, false};
	const char *profile = air__client_opt_str(c, AIR_OPT_PROFILE);
	const char *file = air__client_opt_str(c, AIR_OPT_CONFIG_FILE);
	int rc;

	air__cfg_clear(&c->cfg);
	c->cfg.home = home_dir(c);
	if (!file)
		file = air__client_env(c, "DATABRICKS_CONFIG_FILE");
	c->cfg.config_file = air__expand_home(c, file ? file : "~/.databrickscfg");
	if (c->cfg.home == NULL && !c->cfg.config_file)
		air__client_debug(c, AIR_DEBUG_INFO, "no home directory: no default config file");

	rc = fill_from_options(&r);
	if (rc == AIR_OK)
		rc = profile ? resolve_explicit_profile(&r, profile, err) : resolve_env_first(&r, err);
	if (rc == AIR_OK)
		rc = resolve_auth_storage(&r, err);
	if (rc == AIR_OK)
		rc = resolve_settings(&r, err);
	if (rc == AIR_OK && r.section && !c->cfg.profile)
		rc = (c->cfg.profile = air__strdup(r.section)) ? AIR_OK : AIR_ENOMEM;
	if (rc == AIR_OK)
		rc = finish_host(&r, err);
	/* A backend that sends no credentials leaves whatever is configured unused. */
	if (rc == AIR_OK && c->cfg.backend->credentials)
		rc = check_credentials(&r, err);
	air__ini_free(r.ini);
	if (rc == AIR_ENOMEM)
		return air__failf(err, AIR_ENOMEM, 0, "out of memory resolving the configuration");
	return rc;
}

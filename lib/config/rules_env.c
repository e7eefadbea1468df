/* rules_env.c: rules 8-13a, the `environment` block. */
#include "config/config.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#define FAIL(node, field, ...) air__cfg_fail(err, cfg->name, (node), (field), __VA_ARGS__)

static bool all_digits(const char *s, size_t len)
{
	if (len == 0)
		return false;
	for (size_t i = 0; i < len; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

/* 0: invalid; 1: valid; 2: databricks_ai_v<N> with N < 5. */
static int version_form(const char *text, char *out, size_t cap)
{
	static const char legacy[] = "CLIENT-GPU-", ai[] = "databricks_ai_v";
	size_t len, n;
	const char *s = air__trim(text, &len);

	/* Legacy channel names keep working (the prefix is exact-case). */
	if (len > strlen(legacy) && !strncmp(s, legacy, strlen(legacy)) &&
	    all_digits(s + strlen(legacy), len - strlen(legacy))) {
		s += strlen(legacy);
		len -= strlen(legacy);
	}
	if (len + 1 > cap)
		return 0;
	for (size_t i = 0; i < len; i++)
		out[i] = (s[i] >= 'A' && s[i] <= 'Z') ? (char)(s[i] - 'A' + 'a') : s[i];
	out[len] = '\0';
	if (all_digits(out, len))
		return 1;
	if (len <= strlen(ai) || strncmp(out, ai, strlen(ai)) || !all_digits(out + strlen(ai), len - strlen(ai)))
		return 0;
	for (s = out + strlen(ai); *s == '0' && s[1]; s++)
		; /* leading zeros do not make N bigger */
	n = strlen(s);
	return (n > 1 || *s >= '5') ? 1 : 2;
}

bool air__cfg_version_normalize(const char *text, char *out, size_t cap)
{
	return version_form(text, out, cap) == 1;
}

/* <catalog>.<schema>.<artifact>:<tag>, no '/', '@' or whitespace anywhere. */
static bool is_uc_image(const char *s, size_t len)
{
	size_t dots = 0, part = 0, i;

	for (i = 0; i < len && s[i] != ':'; i++) {
		if (strchr("/@ \t\r\n", s[i]))
			return false;
		if (s[i] == '.') {
			if (part == 0)
				return false;
			dots++, part = 0;
		} else {
			part++;
		}
	}
	if (dots != 2 || part == 0 || i + 1 >= len)
		return false;
	for (i++; i < len; i++)
		if (strchr("/@: \t\r\n", s[i]))
			return false;
	return true;
}

static bool trimmed_set(const air__ynode *n)
{
	return n && !air__is_blank(n->u.text);
}

/* Rule 8: at most one way of choosing the runtime. */
static int exclusive_rule(const air_config *cfg, const air__cfg_model *m, air_error **err)
{
	const struct {
		const air__ynode *node;
		const char *name;
	} ways[] = {
		{m->version, "environment.version"},
		{m->dependencies, "environment.dependencies"},
		{m->unity_catalog_image, "environment.unity_catalog_image"},
		{m->docker_image, "environment.docker_image"},
	};
	bool managed = m->version || m->dependencies;
	char names[160] = "";
	size_t used = 0, set = 0;

	if ((int)managed + !!m->unity_catalog_image + !!m->docker_image < 2)
		return 0;
	for (size_t i = 0; i < AIR__ARRAY_SIZE(ways); i++) {
		if (!ways[i].node)
			continue;
		used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s",
		                         set++ ? ", " : "", ways[i].name);
	}
	return FAIL(m->environment, "environment",
	            "%s cannot be combined; choose one of a managed environment "
	            "(version/dependencies), unity_catalog_image or the legacy docker_image",
	            names);
}

/* Rules 9-12: the legacy docker_image. */
static int docker_rules(const air_config *cfg, const air__cfg_model *m, air_error **err)
{
	const air__ynode *policy = m->docker_tag_policy;
	bool scope = trimmed_set(m->docker_credentials_scope), key = trimmed_set(m->docker_credentials_key);
	bool latest = false;
	char q[96];

	if (!m->docker_url)
		return FAIL(m->docker_image, "environment.docker_image.url",
		            "is required when environment.docker_image is set");
	if (air__is_blank(m->docker_url->u.text))
		return FAIL(m->docker_url, "environment.docker_image.url", "must not be blank");
	if (policy) {
		size_t len;
		const char *s = air__trim(policy->u.text, &len);
		latest = len == 6 && !strncasecmp(s, "latest", 6);
		if (len && !latest && !(len == 4 && !strncasecmp(s, "auto", 4)))
			return FAIL(policy, "environment.docker_image.tag_policy",
			            "%s is not a tag policy; allowed values: auto, latest",
			            air__cfg_quote(q, sizeof(q), policy->u.text, policy->len));
	}
	if (scope != key)
		return FAIL(scope ? m->docker_credentials_scope : m->docker_credentials_key,
		            scope ? "environment.docker_image.credentials_scope"
		                  : "environment.docker_image.credentials_key",
		            "environment.docker_image.credentials_scope and "
		            "environment.docker_image.credentials_key must be set together");
	if (scope && !latest)
		return FAIL(m->docker_credentials_scope, "environment.docker_image.credentials_scope",
		            "registry credentials (credentials_scope, credentials_key) require "
		            "environment.docker_image.tag_policy: latest");
	return 0;
}

int air__cfg_rules_environment(const air_config *cfg, const air__cfg_model *m, air_error **err)
{
	char q[96], norm[64];
	int rc;

	if (!m->environment)
		return 0;
	if ((rc = exclusive_rule(cfg, m, err)))
		return rc;
	if (m->unity_catalog_image) {
		const air__ynode *n = m->unity_catalog_image;
		size_t len;
		const char *s = air__trim(n->u.text, &len);
		if (len == 0)
			return FAIL(n, "environment.unity_catalog_image", "must not be blank");
		if (!is_uc_image(s, len))
			return FAIL(n, "environment.unity_catalog_image",
			            "%s is not of the form <catalog>.<schema>.<artifact>:<tag>",
			            air__cfg_quote(q, sizeof(q), n->u.text, n->len));
	}
	if (m->docker_image && (rc = docker_rules(cfg, m, err)))
		return rc;
	if (!m->version || m->unity_catalog_image || m->docker_image)
		return 0;
	if (!m->dependencies)
		return FAIL(m->version, "environment.version",
		            "requires environment.dependencies (an empty list is fine)");
	switch (version_form(m->version->u.text, norm, sizeof(norm))) {
	case 1:
		return 0;
	case 2:
		return FAIL(m->version, "environment.version",
		            "%s is not supported: databricks_ai_v<N> needs N >= 5",
		            air__cfg_quote(q, sizeof(q), m->version->u.text, m->version->len));
	default:
		return FAIL(m->version, "environment.version",
		            "%s is not an environment version; use an integer (e.g. 6) or "
		            "databricks_ai_v<N> with N >= 5",
		            air__cfg_quote(q, sizeof(q), m->version->u.text, m->version->len));
	}
}

/*
 * rules.c: the semantic rules of a decoded workload, in the documented
 * order; the first failure is the one reported. The
 * environment rules (8-13a) are in rules_env.c, the code_source rules
 * (18a-28) in rules_code.c.
 */
#include "config/config.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#define FAIL(node, field, ...) air__cfg_fail(err, cfg->name, (node), (field), __VA_ARGS__)

static bool only_chars(const char *s, size_t len, const char *extra)
{
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      strchr(extra, c)))
			return false;
	}
	return true;
}

/* Rules 1-3. */
static int experiment_rules(const air_config *cfg, const air__cfg_model *m, air_error **err)
{
	const air__ynode *n = m->experiment_name;
	char q[96];

	if (!n)
		return FAIL(m->root, "experiment_name", "is required");
	if (n->len == 0)
		return FAIL(n, "experiment_name", "must not be empty");
	if (n->len > 100)
		return FAIL(n, "experiment_name", "is %zu bytes long; the limit is 100", n->len);
	if (!only_chars(n->u.text, n->len, "-_"))
		return FAIL(n, "experiment_name",
		            "%s may only contain letters, digits, '-' and '_'",
		            air__cfg_quote(q, sizeof(q), n->u.text, n->len));
	return 0;
}

/* Rules 4-7c. */
static int compute_rules(const air_config *cfg, const air__cfg_model *m, air_error **err)
{
	static const char *const priorities[] = {"BEST_EFFORT", "NORMAL", "CRITICAL"};
	const air__ynode *type = m->accelerator_type, *count = m->num_accelerators;
	const air__accelerator *acc;
	int64_t total = 0;
	size_t len;
	const char *s;
	char q[96];

	if (!m->compute)
		return FAIL(m->root, "compute", "is required (accelerator_type and num_accelerators)");
	if (!type)
		return FAIL(m->compute, "compute.accelerator_type", "is required; valid types: %s",
		            air__accelerator_list());
	if (!(acc = air__accelerator_find(type->u.text)))
		return FAIL(type, "compute.accelerator_type",
		            "%s is not a supported accelerator type; valid types (case-sensitive): %s",
		            air__cfg_quote(q, sizeof(q), type->u.text, type->len),
		            air__accelerator_list());
	if (!count)
		return FAIL(m->compute, "compute.num_accelerators",
		            "is required (the total number of GPUs, a multiple of %d for %s)",
		            (int)acc->gpus_per_node, acc->type);
	air__yint_value(count, &total);
	if (total <= 0)
		return FAIL(count, "compute.num_accelerators", "must be greater than 0, got %lld",
		            (long long)total);
	if (total % acc->gpus_per_node != 0)
		return FAIL(count, "compute.num_accelerators",
		            "%s has %d GPUs per node, so num_accelerators must be a multiple of %d; "
		            "got %lld",
		            acc->type, (int)acc->gpus_per_node, (int)acc->gpus_per_node,
		            (long long)total);
	if (m->pool_id) {
		air__trim(m->pool_id->u.text, &len);
		if (len == 0)
			return FAIL(m->pool_id, "compute.pool_id", "must not be blank");
		if (len > 255)
			return FAIL(m->pool_id, "compute.pool_id",
			            "is %zu bytes long; the limit is 255", len);
	}
	if (m->priority_class) {
		bool ok = false;
		s = air__trim(m->priority_class->u.text, &len);
		for (size_t i = 0; i < AIR__ARRAY_SIZE(priorities); i++)
			ok |= strlen(priorities[i]) == len && !strncasecmp(s, priorities[i], len);
		if (!ok)
			return FAIL(m->priority_class, "compute.priority_class",
			            "%s is not a priority class; allowed values: BEST_EFFORT, NORMAL, "
			            "CRITICAL",
			            air__cfg_quote(q, sizeof(q), m->priority_class->u.text,
			                           m->priority_class->len));
		if (!m->pool_id)
			return FAIL(m->priority_class, "compute.priority_class",
			            "requires compute.pool_id (priorities apply inside a GPU pool)");
	}
	return 0;
}

/* Rules 14-16. */
static int command_rules(const air_config *cfg, const air__cfg_model *m, air_error **err)
{
	const air__ynode *n = m->command;
	size_t lines = 1;

	if (!n)
		return FAIL(m->root, "command", "is required");
	if (air__is_blank(n->u.text))
		return FAIL(n, "command", "must not be blank");
	for (const char *p = n->u.text; (p = strchr(p, '\n')) != NULL; p++)
		lines++;
	if (lines > 1000)
		return FAIL(n, "command",
		            "has %zu lines; the limit is 1000 (move longer logic into a script in "
		            "code_source)",
		            lines);
	return 0;
}

static bool is_secret_ref(const char *s)
{
	const char *slash = strchr(s, '/');

	return slash && slash != s && slash[1] && !strchr(slash + 1, '/');
}

/* Fail naming "<map>.<name>"; user-defined names have no length bound. */
static int fail_named(const air_config *cfg, const air__ynode *at, const char *map,
                      const air__ynode *name, const char *problem, air_error **err)
{
	char q[96], *field = air__sprintf("%s.%s", map, name->u.text);
	int rc;

	if (!field)
		return air__oom(err);
	rc = FAIL(at, field, "%s %s", air__cfg_quote(q, sizeof(q), at->u.text, at->len), problem);
	air__free(field);
	return rc;
}

/* Rules 17-18, in sorted name order. */
static int variable_rules(const air_config *cfg, const air__cfg_model *m, air_error **err)
{
	air__ypair **env = NULL, **sec = NULL;
	size_t nenv = m->env_variables ? m->env_variables->len : 0;
	size_t nsec = m->secrets ? m->secrets->len : 0;
	int rc = 0;

	if ((nsec && !(sec = air__ymap_sorted(m->secrets))) ||
	    (nenv && !(env = air__ymap_sorted(m->env_variables)))) {
		rc = air__oom(err);
		goto out;
	}
	for (size_t i = 0; i < nsec && !rc; i++) {
		const air__ynode *v = sec[i]->value;
		if (air__ynode_is_null(v) || is_secret_ref(v->u.text))
			continue;
		rc = fail_named(cfg, v, "secrets", sec[i]->key,
		                "is not a secret reference; expected scope/key", err);
	}
	/* Merge the two sorted name lists: the first common name is reported. */
	for (size_t i = 0, j = 0; !rc && i < nenv && j < nsec;) {
		const air__ynode *a = env[i]->key, *b = sec[j]->key;
		int c = strcmp(a->u.text, b->u.text);
		if (c == 0 && !air__ynode_is_null(env[i]->value) && !air__ynode_is_null(sec[j]->value)) {
			rc = fail_named(cfg, a, "env_variables", a,
			                "is defined in both env_variables and secrets", err);
		} else if (c <= 0) {
			i++, j += c == 0;
		} else {
			j++;
		}
	}
out:
	air__free(env);
	air__free(sec);
	return rc;
}

static int trimmed_required(const air_config *cfg, const air__ynode *n, const char *field,
                            size_t limit, air_error **err)
{
	size_t len;

	air__trim(n->u.text, &len);
	if (len == 0)
		return FAIL(n, field, "must not be blank");
	if (len > limit)
		return FAIL(n, field, "is %zu bytes long; the limit is %zu", len, limit);
	return 0;
}

/* Rules 29-33a. */
static int run_option_rules(const air_config *cfg, const air__cfg_model *m, air_error **err)
{
	int64_t v;
	size_t len;
	const char *s;
	char q[96];
	int rc;

	if (m->max_retries && air__yint_value(m->max_retries, &v) && v < 0)
		return FAIL(m->max_retries, "max_retries",
		            "must be 0 or more (0 disables retries), got %lld", (long long)v);
	/* libair decision: the Jobs API carries max_retries and timeout_seconds
	 * as 32-bit integers, so larger values are refused here rather than
	 * overflowing or being rejected by the server after the uploads. */
	if (m->max_retries && air__yint_value(m->max_retries, &v) && v > INT32_MAX)
		return FAIL(m->max_retries, "max_retries", "must be at most %d, got %lld",
		            INT32_MAX, (long long)v);
	if (m->timeout_minutes && air__yint_value(m->timeout_minutes, &v) && v < 1)
		return FAIL(m->timeout_minutes, "timeout_minutes", "must be at least 1, got %lld",
		            (long long)v);
	if (m->timeout_minutes && air__yint_value(m->timeout_minutes, &v) && v > INT32_MAX / 60)
		return FAIL(m->timeout_minutes, "timeout_minutes",
		            "must be at most %d (%d seconds), got %lld", INT32_MAX / 60, INT32_MAX,
		            (long long)v);
	if (m->idempotency_token &&
	    (rc = trimmed_required(cfg, m->idempotency_token, "idempotency_token", 64, err)))
		return rc;
	if (m->mlflow_run_name) {
		if ((rc = trimmed_required(cfg, m->mlflow_run_name, "mlflow_run_name", 100, err)))
			return rc;
		s = air__trim(m->mlflow_run_name->u.text, &len);
		if (!only_chars(s, len, "-_"))
			return FAIL(m->mlflow_run_name, "mlflow_run_name",
			            "%s may only contain letters, digits, '-' and '_'",
			            air__cfg_quote(q, sizeof(q), s, len));
	}
	if (m->mlflow_experiment_directory) {
		const air__ynode *n = m->mlflow_experiment_directory;
		if ((rc = trimmed_required(cfg, n, "mlflow_experiment_directory", SIZE_MAX, err)))
			return rc;
		s = air__trim(n->u.text, &len);
		if (len < 10 || strncmp(s, "/Workspace", 10) != 0)
			return FAIL(n, "mlflow_experiment_directory", "%s must start with /Workspace",
			            air__cfg_quote(q, sizeof(q), n->u.text, n->len));
	}
	if (m->mlflow_artifact_location) {
		const air__ynode *n = m->mlflow_artifact_location;
		if ((rc = trimmed_required(cfg, n, "mlflow_artifact_location", SIZE_MAX, err)))
			return rc;
		s = air__trim(n->u.text, &len);
		if (!(len >= 9 && !strncmp(s, "/Volumes/", 9)) && !(len >= 6 && !strncmp(s, "dbfs:/", 6)))
			return FAIL(n, "mlflow_artifact_location",
			            "%s must be a dbfs:/ URI or a /Volumes/ path",
			            air__cfg_quote(q, sizeof(q), n->u.text, n->len));
	}
	return 0;
}

/* Rule 34. Field names are only formatted when a grant fails. */
static int permission_rules(const air_config *cfg, const air__cfg_model *m, air_error **err)
{
	static const char *const principals[] = {"user_name", "group_name", "service_principal_name"};
	char field[96], names[96];

	for (size_t i = 0; m->permissions && i < m->permissions->len; i++) {
		const air__ynode *grant = m->permissions->u.items[i], *level, *found = NULL;
		const char *found_name = NULL;
		size_t count = 0;

		for (size_t k = 0; k < AIR__ARRAY_SIZE(principals); k++) {
			const air__ynode *p = air__ymap_get(grant, principals[k]);
			if (p) {
				found = p;
				found_name = principals[k];
				count++;
			}
		}
		if (count != 1) {
			names[0] = '\0';
			for (size_t k = 0; k < AIR__ARRAY_SIZE(principals); k++)
				if (air__ymap_get(grant, principals[k]))
					snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
					         names[0] ? ", " : "", principals[k]);
			snprintf(field, sizeof(field), "permissions[%zu]", i);
			return FAIL(grant, field,
			            "exactly one of user_name, group_name, service_principal_name must be "
			            "set; found %s",
			            count ? names : "none");
		}
		if (air__is_blank(found->u.text)) {
			snprintf(field, sizeof(field), "permissions[%zu].%s", i, found_name);
			return FAIL(found, field, "must not be blank");
		}
		level = air__ymap_get(grant, "level");
		if (!level || air__is_blank(level->u.text)) {
			snprintf(field, sizeof(field), "permissions[%zu].level", i);
			return level ? FAIL(level, field, "must not be blank")
			             : FAIL(grant, field, "is required (CAN_VIEW, CAN_MANAGE_RUN or CAN_MANAGE)");
		}
	}
	return 0;
}

static bool is_uuid(const char *s, size_t len)
{
	if (len != 36)
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;
		if (dash ? c != '-'
		         : !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
			return false;
	}
	return true;
}

/* Rules 35-37. */
static int policy_rules(const air_config *cfg, const air__cfg_model *m, air_error **err)
{
	const air__ynode *id = m->usage_policy_id;
	size_t len;
	const char *s;
	char q[96];
	int rc;

	if (m->usage_policy_name && id)
		return FAIL(id, "usage_policy_id",
		            "usage_policy_name and usage_policy_id are mutually exclusive; set one");
	if (m->usage_policy_name &&
	    (rc = trimmed_required(cfg, m->usage_policy_name, "usage_policy_name", 127, err)))
		return rc;
	if (id) {
		s = air__trim(id->u.text, &len);
		if (len == 0)
			return FAIL(id, "usage_policy_id", "must not be blank");
		if (!is_uuid(s, len))
			return FAIL(id, "usage_policy_id",
			            "%s is not a policy id (a UUID); to name a policy use "
			            "usage_policy_name instead",
			            air__cfg_quote(q, sizeof(q), id->u.text, id->len));
	}
	return 0;
}

int air__cfg_rules(const air_config *cfg, const air__cfg_model *m, air_error **err)
{
	int rc;

	if ((rc = experiment_rules(cfg, m, err)) || (rc = compute_rules(cfg, m, err)) ||
	    (rc = air__cfg_rules_environment(cfg, m, err)) || (rc = command_rules(cfg, m, err)) ||
	    (rc = variable_rules(cfg, m, err)) || (rc = air__cfg_rules_code_source(cfg, m, err)) ||
	    (rc = run_option_rules(cfg, m, err)) || (rc = permission_rules(cfg, m, err)) ||
	    (rc = policy_rules(cfg, m, err)))
		return rc;
	return 0;
}

/*
 * values.c: the values a validated config publishes to its accessors.
 * Strings point into the document when they are used as written, and into
 * the values arena when they are trimmed or normalised.
 */
#include "config/config.h"

#include <string.h>

typedef struct publisher {
	air__arena *a;
	bool oom;
} publisher;

static const char *text(const air__ynode *n)
{
	return n ? n->u.text : NULL;
}

static const char *copy(publisher *p, const char *s, size_t len)
{
	char *c = air__arena_strndup(p->a, s, len);

	p->oom |= !c;
	return c;
}

static const char *trimmed(publisher *p, const air__ynode *n)
{
	size_t len;
	const char *s;

	if (!n)
		return NULL;
	s = air__trim(n->u.text, &len);
	return len == n->len ? n->u.text : copy(p, s, len);
}

/* Trimmed, or NULL when blank (the rules treat blank as unset). */
static const char *trimmed_or_null(publisher *p, const air__ynode *n)
{
	const char *s = trimmed(p, n);

	return s && *s ? s : NULL;
}

static const char *recase(publisher *p, const air__ynode *n, bool upper)
{
	size_t len;
	const char *s = air__trim(n->u.text, &len);
	char *c = (char *)copy(p, s, len);

	for (size_t i = 0; c && i < len; i++) {
		if (upper && c[i] >= 'a' && c[i] <= 'z')
			c[i] = (char)(c[i] - 'a' + 'A');
		else if (!upper && c[i] >= 'A' && c[i] <= 'Z')
			c[i] = (char)(c[i] - 'A' + 'a');
	}
	return c;
}

static const char **strings(publisher *p, const air__ynode *seq, size_t *count, bool trim)
{
	const char **v;

	*count = seq ? seq->len : 0;
	if (!*count)
		return NULL;
	if (!(v = air__arena_alloc(p->a, *count * sizeof(*v)))) {
		p->oom = true;
		return NULL;
	}
	for (size_t i = 0; i < *count; i++)
		v[i] = trim ? trimmed(p, seq->u.items[i]) : seq->u.items[i]->u.text;
	return v;
}

/* Sorted NAME: value entries without the null ones; secrets also split. */
static air__cfg_kv *variables(publisher *p, const air__ynode *map, size_t *count, bool secret)
{
	air__ypair **sorted;
	air__cfg_kv *v;
	size_t n = 0;

	*count = 0;
	if (!map || !map->len)
		return NULL;
	v = air__arena_alloc(p->a, map->len * sizeof(*v));
	if (!v || !(sorted = air__ymap_sorted(map))) {
		p->oom = true;
		return NULL;
	}
	for (size_t i = 0; i < map->len; i++) {
		const air__ynode *value = sorted[i]->value;
		if (air__ynode_is_null(value))
			continue;
		v[n].name = sorted[i]->key->u.text;
		v[n].value = value->u.text;
		v[n].scope = v[n].key = NULL;
		if (secret) {
			const char *slash = strchr(value->u.text, '/');
			v[n].scope = copy(p, value->u.text, (size_t)(slash - value->u.text));
			v[n].key = slash + 1;
		}
		n++;
	}
	air__free(sorted);
	*count = n;
	return v;
}

static air__cfg_grant *grants(publisher *p, const air__ynode *seq, size_t *count)
{
	static const char *const names[] = {"user_name", "group_name", "service_principal_name"};
	static const int32_t types[] = {AIR_PRINCIPAL_USER, AIR_PRINCIPAL_GROUP,
	                                AIR_PRINCIPAL_SERVICE_PRINCIPAL};
	air__cfg_grant *g;

	*count = seq ? seq->len : 0;
	if (!*count)
		return NULL;
	if (!(g = air__arena_alloc(p->a, *count * sizeof(*g)))) {
		p->oom = true;
		return NULL;
	}
	for (size_t i = 0; i < *count; i++) {
		const air__ynode *grant = seq->u.items[i];
		for (size_t k = 0; k < AIR__ARRAY_SIZE(names); k++) {
			const air__ynode *who = air__ymap_get(grant, names[k]);
			if (who) {
				g[i].type = types[k];
				g[i].principal = trimmed(p, who);
			}
		}
		g[i].level = trimmed(p, air__ymap_get(grant, "level"));
	}
	return g;
}

static const char *artifact_location(publisher *p, const air__ynode *n)
{
	size_t len;
	const char *s;
	char *c;

	if (!n)
		return NULL;
	s = air__trim(n->u.text, &len);
	if (strncmp(s, "/Volumes/", 9) != 0)
		return trimmed(p, n);
	if (!(c = air__arena_alloc(p->a, len + 6))) {
		p->oom = true;
		return NULL;
	}
	memcpy(c, "dbfs:", 5);
	memcpy(c + 5, s, len);
	c[len + 5] = '\0';
	return c;
}

int air__cfg_publish(air_config *cfg, const air__cfg_model *m)
{
	publisher p = {&cfg->vals, false};
	air__cfg_values *v = &cfg->v;
	const air__cfg_snapshot *s;
	char version[64];

	memset(v, 0, sizeof(*v));
	v->experiment_name = text(m->experiment_name);
	v->command = text(m->command);
	v->accelerator_type = text(m->accelerator_type);
	air__yint_value(m->num_accelerators, &v->num_accelerators);
	v->num_nodes = v->num_accelerators / air_accelerator_gpus_per_node(v->accelerator_type);
	v->pool_id = trimmed(&p, m->pool_id);
	v->priority_class = m->priority_class ? recase(&p, m->priority_class, true) : NULL;

	if (m->version && air__cfg_version_normalize(m->version->u.text, version, sizeof(version)))
		v->environment_version = copy(&p, version, strlen(version));
	v->has_dependencies = m->dependencies != NULL;
	v->dependencies = strings(&p, m->dependencies, &v->ndependencies, false);
	v->unity_catalog_image = trimmed(&p, m->unity_catalog_image);
	if (m->docker_image) {
		v->docker_url = trimmed(&p, m->docker_url);
		v->docker_tag_policy = m->docker_tag_policy ? recase(&p, m->docker_tag_policy, false) : "";
		if (!p.oom && !*v->docker_tag_policy)
			v->docker_tag_policy = "auto";
		v->docker_credentials_scope = trimmed_or_null(&p, m->docker_credentials_scope);
		v->docker_credentials_key = trimmed_or_null(&p, m->docker_credentials_key);
	}

	v->env = variables(&p, m->env_variables, &v->nenv, false);
	v->secrets = variables(&p, m->secrets, &v->nsecrets, true);
	v->parameters = m->parameters;

	if ((s = air__cfg_snapshot_of(m, &v->code_source_form)) != NULL) {
		v->root_path = trimmed(&p, s->root_path);
		v->remote_volume = text(s->remote_volume);
		v->include_paths = strings(&p, s->include_paths, &v->ninclude_paths, true);
		v->git_commit = text(s->git_commit);
		v->git_branch = text(s->git_branch);
	}

	v->max_retries = 3;
	if (m->max_retries)
		air__yint_value(m->max_retries, &v->max_retries);
	if (m->timeout_minutes)
		air__yint_value(m->timeout_minutes, &v->timeout_minutes);
	v->idempotency_token = text(m->idempotency_token);
	v->mlflow_run_name = text(m->mlflow_run_name);
	v->mlflow_experiment_directory = text(m->mlflow_experiment_directory);
	v->mlflow_artifact_location = artifact_location(&p, m->mlflow_artifact_location);
	v->usage_policy_name = text(m->usage_policy_name);
	v->usage_policy_id = text(m->usage_policy_id);
	v->grants = grants(&p, m->permissions, &v->ngrants);
	return p.oom ? AIR_ENOMEM : AIR_OK;
}

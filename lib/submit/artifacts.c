/*
 * artifacts.c: the launch directory and the files uploaded into it
 *. The file names are part of the
 * server-side launcher contract: it finds the sidecars next to command.sh.
 */
#include "submit/submit.h"

#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "submit/snapshot.h"

int air__launch_suffix(char out[17])
{
	char uuid[37];
	size_t k = 0;
	int rc = air__uuid4(uuid);

	if (rc != AIR_OK)
		return rc;
	for (size_t i = 0; uuid[i] && k < 16; i++)
		if (uuid[i] != '-')
			out[k++] = uuid[i];
	out[k] = '\0';
	return AIR_OK;
}

char *air__launch_dir(const char *user_base, const char *experiment, const char *run_name,
                      const char *hex16)
{
	char *raw = air__sprintf("%s/.air/cli_launch/%s/%s_%s", user_base, experiment,
	                         run_name ? run_name : experiment, hex16);
	char *clean = raw ? air__path_clean(raw) : NULL;

	air__free(raw);
	return clean;
}

static int cmp_env(const void *a, const void *b)
{
	return strcmp(((const air__env_var *)a)->name, ((const air__env_var *)b)->name);
}

static int cmp_secret(const void *a, const void *b)
{
	return strcmp(((const air__secret_var *)a)->name, ((const air__secret_var *)b)->name);
}

/* Serialise @arr compactly and release it. */
static char *dump(json_t *arr, bool oom)
{
	char *s = (arr && !oom) ? air__json_compact(arr) : NULL;

	json_decref(arr);
	return s;
}

char *air__env_vars_json(const air__env_var *env, size_t n)
{
	air__env_var *sorted = air__calloc(n ? n : 1, sizeof(*sorted));
	json_t *arr = json_array();
	bool oom = !sorted;

	if (sorted) {
		memcpy(sorted, env, n * sizeof(*env));
		qsort(sorted, n, sizeof(*sorted), cmp_env);
	}
	for (size_t i = 0; !oom && i < n; i++) {
		json_t *o = json_pack("{s:s, s:s}", "name", sorted[i].name, "value", sorted[i].value);
		oom = !o || json_array_append_new(arr, o) != 0;
	}
	air__free(sorted);
	return dump(arr, oom);
}

char *air__secret_vars_json(const air__secret_var *secrets, size_t n)
{
	air__secret_var *sorted = air__calloc(n ? n : 1, sizeof(*sorted));
	json_t *arr = json_array();
	bool oom = !sorted;

	if (sorted) {
		memcpy(sorted, secrets, n * sizeof(*secrets));
		qsort(sorted, n, sizeof(*sorted), cmp_secret);
	}
	for (size_t i = 0; !oom && i < n; i++) {
		json_t *o = json_pack("{s:s, s:s, s:s}", "name", sorted[i].name, "secret_scope",
		                      sorted[i].scope, "secret_key", sorted[i].key);
		oom = !o || json_array_append_new(arr, o) != 0;
	}
	air__free(sorted);
	return dump(arr, oom);
}

const char *const air__artifact_names[AIR__MAX_ARTIFACTS] = {
	"training_config.yaml", "command.sh", "hyperparameters.yaml", "env_vars.json",
	"secret_env_vars.json",
};

static bool add(air__artifact *out, size_t *n, const char *name, char *data, size_t len)
{
	if (!data)
		return false;
	out[*n].name = name;
	out[*n].data = data;
	out[*n].len = len;
	(*n)++;
	return true;
}

int air__artifacts_build(const air__workload *w, air__artifact out[AIR__MAX_ARTIFACTS], size_t *n,
                         air_error **err)
{
	bool ok;
	char *s;

	*n = 0;
	/* The file as read from disk: overrides are not reflected (reference behaviour). */
	ok = add(out, n, air__artifact_names[0], air__strndup(w->source_bytes ? w->source_bytes : "",
	         w->source_len), w->source_len);
	ok = ok && add(out, n, air__artifact_names[1], air__strdup(w->command), strlen(w->command));
	if (ok && w->parameters_yaml)
		ok = add(out, n, air__artifact_names[2], air__strdup(w->parameters_yaml),
		         strlen(w->parameters_yaml));
	if (ok && w->n_env > 0)
		ok = (s = air__env_vars_json(w->env, w->n_env)) &&
		     add(out, n, air__artifact_names[3], s, strlen(s));
	if (ok && w->n_secrets > 0)
		ok = (s = air__secret_vars_json(w->secrets, w->n_secrets)) &&
		     add(out, n, air__artifact_names[4], s, strlen(s));
	if (!ok) {
		air__artifacts_dispose(out, *n);
		*n = 0;
		return air__failf(err, AIR_ENOMEM, 0, "out of memory building the launch artifacts");
	}
	return AIR_OK;
}

void air__artifacts_dispose(air__artifact *a, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		air__free(a[i].data);
		a[i].data = NULL;
	}
}

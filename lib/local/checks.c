/*
 * checks.c: the pre-submit checks a local workspace gives its own meaning
 * (air_client_check(), AIR__LOCAL_CHECKS_PATH). The request carries the
 * workload's pre-flight body; the reply says, for this machine:
 *
 *   local_secret      each secret has a local value (the environment or the
 *                     secrets file, named; never the value): else a failure
 *   local_gpus        the GPUs nvidia-smi lists against the request: fewer is
 *                     a warning (a local run is a CPU-only smoke test then)
 *   local_node_limit  the node count against this machine's node limit
 *
 * and which of the workspace's checks it replaces (the secret scopes and
 * keys) or has no meaning for here, with the reason (pools, the registry and
 * registered images, the snapshot volume, the accelerator types on offer,
 * experiment permissions).
 */
#include "local/endpoints.h"

#include <stdlib.h>
#include <string.h>

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int add(json_t *checks, const char *name, const char *status, const char *field,
               const air__buf *message)
{
	json_t *c = json_pack("{s:s, s:s, s:s, s:s}", "name", name, "status", status, "field", field,
	                      "message", air__buf_cstr(message));

	return c && !air__buf_oom(message) && json_array_append_new(checks, c) == 0 ? AIR_OK
	                                                                            : AIR_ENOMEM;
}

/* local_secret of each secret of {"NAME": "scope/key"}, in name order. */
static int secret_checks(const air__local *ws, const json_t *spec, json_t *checks)
{
	const char **names = NULL;
	const char *name;
	json_t *v;
	size_t n = 0;
	int rc = AIR_OK;

	if (!(names = air__calloc(json_object_size(spec) + 1, sizeof(*names))))
		return AIR_ENOMEM;
	json_object_foreach((json_t *)spec, name, v)
		names[n++] = name;
	qsort(names, n, sizeof(*names), cmp_names);
	for (size_t i = 0; rc == AIR_OK && i < n; i++) {
		const char *ref = air__json_str(spec, names[i]);
		air__buf where = AIR__BUF_INIT, why = AIR__BUF_INIT, msg = AIR__BUF_INIT;
		char *field = air__sprintf("secrets.%s", names[i]);
		int r = ref ? air__lsecrets_locate(ws, names[i], ref, &where, &why) : AIR_EINVAL;

		if (r == AIR_OK)
			air__buf_printf(&msg, "%s (%s) has a local value: %s", names[i], ref,
			                air__buf_cstr(&where));
		else
			air__buf_puts(&msg, why.len ? air__buf_cstr(&why) : "no scope/key reference");
		rc = r == AIR_ENOMEM || !field ? AIR_ENOMEM
		                               : add(checks, "local_secret", r == AIR_OK ? "pass" : "fail",
		                                     field, &msg);
		air__free(field);
		air__buf_dispose(&where);
		air__buf_dispose(&why);
		air__buf_dispose(&msg);
	}
	air__free(names);
	return rc;
}

/* local_gpus and local_node_limit of {"accelerator_type", "accelerator_count"}. */
static int compute_checks(const air__ctx *ctx, const json_t *compute, json_t *checks)
{
	const char *type = air__json_nonempty(compute, "accelerator_type");
	const air__accelerator *acc = type ? air__accelerator_find(type) : NULL;
	int64_t count = air__json_int64_or(compute, "accelerator_count", 0), nodes;
	air__buf msg = AIR__BUF_INIT;
	size_t ngpus = 0;
	int32_t *gpus;
	int rc;

	if (!acc || count <= 0 || count % acc->gpus_per_node)
		return AIR_OK; /* the configuration's own rules say what is wrong */
	nodes = count / acc->gpus_per_node;
	gpus = air__lgpus(ctx, &ngpus);
	air__free(gpus);
	if ((int64_t)ngpus >= count)
		air__buf_printf(&msg, "this machine has %zu GPU%s for the %lld the workload asks for",
		                ngpus, ngpus == 1 ? "" : "s", (long long)count);
	else
		air__buf_printf(&msg, "the workload asks for %lld GPU%s (%s) and this machine has %zu: "
		                "a local run goes ahead with %s", (long long)count,
		                count == 1 ? "" : "s", type, ngpus,
		                ngpus ? "the GPUs there are" : "none (a CPU-only smoke test)");
	rc = add(checks, "local_gpus", (int64_t)ngpus >= count ? "pass" : "warn",
	         "compute.num_accelerators", &msg);
	air__buf_clear(&msg);
	if (rc == AIR_OK && air__local_check_nodes(nodes, type, count, &msg) == AIR_OK)
		air__buf_printf(&msg, "%lld node%s; a local workspace runs up to %lld on this machine",
		                (long long)nodes, nodes == 1 ? "" : "s",
		                (long long)air__local_max_nodes());
	if (rc == AIR_OK)
		rc = add(checks, "local_node_limit",
		         nodes <= air__local_max_nodes() ? "pass" : "fail", "compute.num_accelerators",
		         &msg);
	air__buf_dispose(&msg);
	return rc;
}

/* The workspace's checks that mean nothing here, and why. */
static json_t *skips(void)
{
	static const char image[] = "a local workspace runs the command on this machine, not in "
	                            "a container image";

	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}",
	                 "image_readable", image,
	                 "docker_image_registered", image,
	                 "snapshot_volume", "a local workspace creates volumes as they are written "
	                 "to",
	                 "pool", "a local workspace has no GPU pools",
	                 "accelerator_offered", "a local workspace takes every accelerator type "
	                 "(local_gpus compares the request with this machine's GPUs)",
	                 "experiment_permissions", "a local workspace has no MLflow experiments "
	                 "to grant permissions on");
}

int air__lchecks(air__lcall *c)
{
	json_t *body, *checks = json_array(), *spec;
	int rc = AIR_OK;

	if (!checks)
		return air__oom(c->err);
	if (!(body = air__lbody_json(c, &rc))) {
		json_decref(checks);
		return rc;
	}
	spec = air__json_at(body, "run_options.secrets");
	if (json_is_object(spec))
		rc = secret_checks(c->ws, spec, checks);
	if (rc == AIR_OK)
		rc = compute_checks(c->ctx, air__json_at(body, "task.deployments.0.compute"), checks);
	json_decref(body);
	if (rc != AIR_OK) {
		json_decref(checks);
		return air__oom(c->err);
	}
	return air__lreply_json(c, 200, json_pack("{s:o, s:[s, s], s:o}", "checks", checks,
	                                          "replaces", "secret_scope", "secret_key",
	                                          "skips", skips()));
}

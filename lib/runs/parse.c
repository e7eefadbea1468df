/* parse.c: derive an air_run from a runs/get object. */
#include "runs/runs.h"

#include <string.h>

static const char *nonempty(const char *s) { return s && *s ? s : NULL; }

const char *air__display_state(const json_t *state)
{
	const char *s = air__json_nonempty(state, "result_state");

	if (!s)
		s = air__json_nonempty(state, "life_cycle_state");
	return s ? s : "UNKNOWN";
}

bool air__life_cycle_is_final(const char *life_cycle)
{
	static const char *const final_cycles[] = {"TERMINATED", "SKIPPED", "INTERNAL_ERROR"};

	for (size_t i = 0; life_cycle && i < AIR__ARRAY_SIZE(final_cycles); i++)
		if (!strcmp(life_cycle, final_cycles[i]))
			return true;
	return false;
}

bool air__state_is_terminal(const char *life_cycle, const char *result)
{
	static const char *const final_results[] = {"SUCCESS", "FAILED", "CANCELED"};

	if (air__life_cycle_is_final(life_cycle))
		return true;
	for (size_t i = 0; result && i < AIR__ARRAY_SIZE(final_results); i++)
		if (!strcmp(result, final_results[i]))
			return true;
	return false;
}

const json_t *air__run_workload_task(const json_t *run)
{
	const json_t *task = air__json_at(run, "tasks.0");
	const json_t *inner = air__json_at(task, "for_each_task.task");

	return json_is_object(inner) ? inner : task;
}

static bool task_is_ai_runtime(const json_t *task)
{
	return json_is_object(json_object_get(task, "ai_runtime_task")) ||
	       air__json_nonempty(json_object_get(task, "gen_ai_compute_task"),
	                          "training_script_path") != NULL;
}

bool air__run_json_is_ai_runtime(const json_t *run)
{
	const json_t *task = air__run_workload_task(run);

	return json_is_object(task) && task_is_ai_runtime(task);
}

const char *air__strip_user_prefix(const char *name)
{
	const char *user, *slash;

	if (!name || !air__starts_with(name, "/Users/"))
		return name;
	user = name + strlen("/Users/");
	slash = strchr(user, '/');
	return slash && slash > user ? slash + 1 : name;
}

/* Experiment, compute and paths of the workload task (current or legacy shape). */
static void read_workload(air_run *r, const json_t *task)
{
	const json_t *air = json_object_get(task, "ai_runtime_task");
	const json_t *legacy = json_object_get(task, "gen_ai_compute_task");

	if (json_is_object(air)) {
		const json_t *dep = air__json_at(air, "deployments.0");
		const json_t *compute = json_object_get(dep, "compute");

		r->experiment = air__json_nonempty(air, "experiment");
		r->command_path = air__json_nonempty(dep, "command_path");
		r->code_source_path = air__json_nonempty(air, "code_source_path");
		r->accel_type = air__json_nonempty(compute, "accelerator_type");
		r->accel_count = air__json_int64_or(compute, "accelerator_count", 0);
	} else if (json_is_object(legacy)) {
		const json_t *compute = json_object_get(legacy, "compute");

		r->experiment = air__json_nonempty(legacy, "mlflow_experiment_name");
		r->accel_type = air__json_nonempty(compute, "gpu_type");
		r->accel_count = air__json_int64_or(compute, "num_gpus", 0);
	}
	r->experiment = nonempty(air__strip_user_prefix(r->experiment));
}

static void read_tasks(air_run *r)
{
	const json_t *tasks = json_object_get(r->json, "tasks");
	size_t n = json_array_size(tasks);
	const json_t *last = n ? json_array_get(tasks, n - 1) : NULL;
	const json_t *first = n ? json_array_get(tasks, 0) : NULL;
	const json_t *stats;
	static const char *const stat_keys[] = {"total_iterations", "completed_iterations",
	                                        "succeeded_iterations", "failed_iterations",
	                                        "active_iterations"};
	int64_t v;

	for (size_t i = 0; i < n; i++) {
		v = air__json_int64_or(json_array_get(tasks, i), "attempt_number", 0);
		if (v > r->latest_attempt && v <= INT32_MAX)
			r->latest_attempt = (int32_t)v;
	}
	r->start_ms = r->run_start_ms;
	r->end_ms = r->run_end_ms;
	if (last) {
		v = air__json_int64_or(last, "start_time", 0);
		if (v > 0)
			r->start_ms = v;
		v = air__json_int64_or(last, "end_time", 0);
		if (v > 0)
			r->end_ms = v;
		r->task_run_id = air__json_int64_or(last, "run_id", 0);
		v = air__json_int64_or(last, "attempt_number", 0);
		r->attempt = v >= 0 && v <= INT32_MAX ? (int32_t)v : 0;
		v = air__json_int64_or(last, "max_retries", 0);
		r->max_retries = v >= -1 && v <= INT32_MAX ? (int32_t)v : 0;
		/* Retries repeat the same task: the latest attempt describes the workload. */
		read_workload(r, json_is_object(air__json_at(last, "for_each_task.task"))
		                         ? air__json_at(last, "for_each_task.task")
		                         : last);
	}
	r->first_task_run_id = air__json_int64_or(first, "run_id", 0);
	r->ai_runtime = air__run_json_is_ai_runtime(r->json);
	r->sweep = json_is_object(json_object_get(first, "for_each_task"));
	stats = air__json_at(first, "for_each_task.stats.task_run_stats");
	for (size_t i = 0; r->sweep && i < AIR__ARRAY_SIZE(stat_keys); i++)
		r->sweep_stats[i] = air__json_int64_or(stats, stat_keys[i], 0);
}

static void read_environment(air_run *r)
{
	const json_t *envs = json_object_get(r->json, "environments");
	size_t i;
	json_t *e;

	json_array_foreach(envs, i, e) {
		const char *key = air__json_str(e, "environment_key");
		if (key && !strcmp(key, "default")) {
			r->env_version = air__json_nonempty(json_object_get(e, "spec"),
			                                    "environment_version");
			return;
		}
	}
}

static int make_label(air_run *r)
{
	if (r->accel_count <= 0 || !r->accel_type)
		return AIR_OK;
	r->accel_label = air__sprintf("%lldx %s", (long long)r->accel_count,
	                              air__accelerator_display(r->accel_type));
	return r->accel_label ? AIR_OK : AIR_ENOMEM;
}

int air__run_from_json(json_t *obj, air_run **out, air_error **err)
{
	air_run *r;
	const json_t *state;

	*out = NULL;
	if (!json_is_object(obj)) {
		json_decref(obj);
		return air__failf(err, AIR_EPROTO, 0, "runs/get reply is not a JSON object");
	}
	r = air__calloc(1, sizeof(*r));
	if (!r) {
		json_decref(obj);
		return air__oom(err);
	}
	r->json = obj;
	if (!air__json_int64(obj, "run_id", &r->id) || r->id <= 0) {
		air_run_free(r);
		return air__failf(err, AIR_EPROTO, 0, "runs/get reply has no valid run_id");
	}
	state = json_object_get(obj, "state");
	r->name = air__json_str(obj, "run_name");
	r->creator = air__json_str(obj, "creator_user_name");
	r->life_cycle = air__json_nonempty(state, "life_cycle_state");
	r->result = air__json_nonempty(state, "result_state");
	r->state_message = air__json_nonempty(state, "state_message");
	r->state = air__display_state(state);
	r->terminal = air__state_is_terminal(r->life_cycle, r->result);
	r->succeeded = r->result && !strcmp(r->result, "SUCCESS");
	r->run_start_ms = air__json_int64_or(obj, "start_time", 0);
	r->run_end_ms = air__json_int64_or(obj, "end_time", 0);
	read_tasks(r);
	read_environment(r);
	if (make_label(r) != AIR_OK) {
		air_run_free(r);
		return air__oom(err);
	}
	*out = r;
	return AIR_OK;
}

void air__run_set_iterations(air_run *run, json_t *obj)
{
	const json_t *items = json_object_get(obj, "iterations");
	size_t n = json_array_size(items), i;
	json_t *it;

	json_decref(run->iter_json);
	air__free(run->iters);
	run->iter_json = obj;
	run->iters = n ? air__calloc(n, sizeof(*run->iters)) : NULL;
	run->n_iters = run->iters ? n : 0;
	json_array_foreach(items, i, it) {
		air__iteration *d;
		const char *exp;

		if (i >= run->n_iters)
			break;
		d = &run->iters[i];
		d->task_key = air__json_str(it, "task_key");
		d->run_id = air__json_int64_or(it, "run_id", 0);
		d->state = air__display_state(json_object_get(it, "state"));
		exp = air__json_nonempty(json_object_get(it, "gen_ai_compute_task"),
		                         "mlflow_experiment_name");
		if (!exp)
			exp = air__json_nonempty(json_object_get(it, "ai_runtime_task"), "experiment");
		d->experiment = nonempty(air__strip_user_prefix(exp));
	}
}

int air__run_set_output(air_run *run, const json_t *output, const char *host)
{
	const json_t *o = json_object_get(output, "ai_runtime_task_output");
	const char *exp = air__json_nonempty(o, "mlflow_experiment_id");
	const char *mrun = air__json_nonempty(o, "mlflow_run_id");
	const char *msg = air__json_nonempty(o, "status_message");

	if (msg && !run->status_message && !(run->status_message = air__strdup(msg)))
		return AIR_ENOMEM;
	if (!exp || !mrun || run->mlflow_run_id)
		return AIR_OK;
	run->mlflow_exp_id = air__strdup(exp);
	run->mlflow_run_id = air__strdup(mrun);
	run->mlflow_exp_url = air__sprintf("%s/ml/experiments/%s", host ? host : "", exp);
	run->mlflow_run_url = air__sprintf("%s/ml/experiments/%s/runs/%s", host ? host : "", exp,
	                                   mrun);
	if (!run->mlflow_exp_id || !run->mlflow_run_id || !run->mlflow_exp_url ||
	    !run->mlflow_run_url)
		return AIR_ENOMEM;
	return AIR_OK;
}

int air__run_set_dashboard(air_run *run, const char *host, int64_t ws_id, bool with_ws)
{
	air__free(run->dashboard_url);
	if (with_ws || ws_id > 0)
		run->dashboard_url = air__sprintf("%s/jobs/runs/%lld?o=%lld", host ? host : "",
		                                  (long long)run->id, (long long)ws_id);
	else
		run->dashboard_url = air__sprintf("%s/jobs/runs/%lld", host ? host : "",
		                                  (long long)run->id);
	return run->dashboard_url ? AIR_OK : AIR_ENOMEM;
}

/* run.c: the air_run getters (values derived by parse.c). */
#include "runs/runs.h"

void air_run_free(air_run *run)
{
	if (!run)
		return;
	json_decref(run->json);
	json_decref(run->iter_json);
	air__free(run->iters);
	air__free(run->accel_label);
	air__free(run->dashboard_url);
	air__free(run->mlflow_run_id);
	air__free(run->mlflow_exp_id);
	air__free(run->mlflow_run_name);
	air__free(run->status_message);
	air__free(run->mlflow_run_url);
	air__free(run->mlflow_exp_url);
	air__free(run->config_yaml);
	air__free(run);
}

int64_t air_run_id(const air_run *run) { return run ? run->id : 0; }
const char *air_run_name(const air_run *run) { return run ? run->name : NULL; }
const char *air_run_creator(const air_run *run) { return run ? run->creator : NULL; }
int32_t air_run_state(const air_run *run)
{
	return run ? air__state_from_name(run->state) : AIR_STATE_UNKNOWN;
}
const char *air_run_state_name(const air_run *run) { return run ? run->state : "UNKNOWN"; }
const char *air_run_life_cycle_state(const air_run *run) { return run ? run->life_cycle : NULL; }
const char *air_run_result_state(const air_run *run) { return run ? run->result : NULL; }
const char *air_run_state_message(const air_run *run) { return run ? run->state_message : NULL; }
int32_t air_run_is_terminal(const air_run *run) { return run && run->terminal; }
int32_t air_run_succeeded(const air_run *run) { return run && run->succeeded; }
int32_t air_run_is_ai_runtime(const air_run *run) { return run && run->ai_runtime; }
int64_t air_run_start_time_ms(const air_run *run) { return run ? run->start_ms : 0; }
int64_t air_run_end_time_ms(const air_run *run) { return run ? run->end_ms : 0; }
int64_t air_run_task_run_id(const air_run *run) { return run ? run->task_run_id : 0; }
int32_t air_run_attempt_number(const air_run *run) { return run ? run->attempt : 0; }
int32_t air_run_latest_attempt(const air_run *run) { return run ? run->latest_attempt : 0; }
int32_t air_run_max_retries(const air_run *run) { return run ? run->max_retries : 0; }
const char *air_run_experiment_name(const air_run *run) { return run ? run->experiment : NULL; }
const char *air_run_accelerator_type(const air_run *run) { return run ? run->accel_type : NULL; }
int64_t air_run_accelerator_count(const air_run *run) { return run ? run->accel_count : 0; }
const char *air_run_accelerators(const air_run *run) { return run ? run->accel_label : NULL; }
const char *air_run_command_path(const air_run *run) { return run ? run->command_path : NULL; }

const char *air_run_code_source_path(const air_run *run)
{
	return run ? run->code_source_path : NULL;
}

const char *air_run_environment_version(const air_run *run)
{
	return run ? run->env_version : NULL;
}

const char *air_run_dashboard_url(const air_run *run) { return run ? run->dashboard_url : NULL; }
const char *air_run_mlflow_run_id(const air_run *run) { return run ? run->mlflow_run_id : NULL; }

const char *air_run_mlflow_experiment_id(const air_run *run)
{
	return run ? run->mlflow_exp_id : NULL;
}

const char *air_run_mlflow_run_name(const air_run *run)
{
	return run ? run->mlflow_run_name : NULL;
}

const char *air_run_mlflow_run_url(const air_run *run) { return run ? run->mlflow_run_url : NULL; }

const char *air_run_mlflow_experiment_url(const air_run *run)
{
	return run ? run->mlflow_exp_url : NULL;
}

const char *air_run_status_message(const air_run *run)
{
	return run ? run->status_message : NULL;
}

int32_t air_run_is_sweep(const air_run *run) { return run && run->sweep; }

int64_t air_run_sweep_stat(const air_run *run, int32_t which)
{
	if (!run || which < 0 || which >= (int32_t)AIR__ARRAY_SIZE(run->sweep_stats))
		return 0;
	return run->sweep_stats[which];
}

size_t air_run_iteration_count(const air_run *run) { return run ? run->n_iters : 0; }

static const air__iteration *iteration(const air_run *run, size_t i)
{
	return run && i < run->n_iters ? &run->iters[i] : NULL;
}

const char *air_run_iteration_task_key(const air_run *run, size_t i)
{
	const air__iteration *it = iteration(run, i);
	return it ? it->task_key : NULL;
}

int64_t air_run_iteration_run_id(const air_run *run, size_t i)
{
	const air__iteration *it = iteration(run, i);
	return it ? it->run_id : 0;
}

const char *air_run_iteration_state_name(const air_run *run, size_t i)
{
	const air__iteration *it = iteration(run, i);
	return it ? it->state : NULL;
}

int32_t air_run_iteration_state(const air_run *run, size_t i)
{
	const air__iteration *it = iteration(run, i);
	return it ? air__state_from_name(it->state) : AIR_STATE_UNKNOWN;
}

const char *air_run_iteration_experiment(const air_run *run, size_t i)
{
	const air__iteration *it = iteration(run, i);
	return it ? it->experiment : NULL;
}

const char *air_run_config_yaml(const air_run *run, size_t *len_out)
{
	if (len_out)
		*len_out = run && run->config_yaml ? run->config_len : 0;
	return run ? run->config_yaml : NULL;
}

int air_run_to_json(const air_run *run, char **out, air_error **err)
{
	if (!out)
		return air__failf(err, AIR_EINVAL, 0, "air_run_to_json: out is NULL");
	*out = NULL;
	if (!run)
		return air__failf(err, AIR_EINVAL, 0, "air_run_to_json: run is NULL");
	*out = air__json_compact(run->json);
	return *out ? AIR_OK : air__oom(err);
}

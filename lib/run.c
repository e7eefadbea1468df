/* run.c: placeholder implementation of run.h; every call reports AIR_EUNSUPPORTED. */
#include "internal.h"

int air_client_get_run(air_client *client, int64_t run_id, uint32_t flags, air_run **out, air_error **err)
{
	return AIR_EUNSUPPORTED;
}

void air_run_free(air_run *run)
{
}

int64_t air_run_id(const air_run *run)
{
	return 0;
}

const char *air_run_name(const air_run *run)
{
	return NULL;
}

const char *air_run_creator(const air_run *run)
{
	return NULL;
}

const char *air_run_state(const air_run *run)
{
	return NULL;
}

const char *air_run_life_cycle_state(const air_run *run)
{
	return NULL;
}

const char *air_run_result_state(const air_run *run)
{
	return NULL;
}

const char *air_run_state_message(const air_run *run)
{
	return NULL;
}

int32_t air_run_is_terminal(const air_run *run)
{
	return 0;
}

int32_t air_run_succeeded(const air_run *run)
{
	return 0;
}

int32_t air_run_is_ai_runtime(const air_run *run)
{
	return 0;
}

int64_t air_run_start_time_ms(const air_run *run)
{
	return 0;
}

int64_t air_run_end_time_ms(const air_run *run)
{
	return 0;
}

int64_t air_run_task_run_id(const air_run *run)
{
	return 0;
}

int32_t air_run_attempt_number(const air_run *run)
{
	return 0;
}

int32_t air_run_latest_attempt(const air_run *run)
{
	return 0;
}

int32_t air_run_max_retries(const air_run *run)
{
	return 0;
}

const char *air_run_experiment_name(const air_run *run)
{
	return NULL;
}

const char *air_run_accelerator_type(const air_run *run)
{
	return NULL;
}

int64_t air_run_accelerator_count(const air_run *run)
{
	return 0;
}

const char *air_run_command_path(const air_run *run)
{
	return NULL;
}

const char *air_run_code_source_path(const air_run *run)
{
	return NULL;
}

const char *air_run_environment_version(const air_run *run)
{
	return NULL;
}

const char *air_run_dashboard_url(const air_run *run)
{
	return NULL;
}

const char *air_run_mlflow_run_id(const air_run *run)
{
	return NULL;
}

const char *air_run_mlflow_experiment_id(const air_run *run)
{
	return NULL;
}

const char *air_run_mlflow_run_name(const air_run *run)
{
	return NULL;
}

const char *air_run_mlflow_run_url(const air_run *run)
{
	return NULL;
}

const char *air_run_mlflow_experiment_url(const air_run *run)
{
	return NULL;
}

const char *air_run_status_message(const air_run *run)
{
	return NULL;
}

int32_t air_run_is_sweep(const air_run *run)
{
	return 0;
}

int64_t air_run_sweep_stat(const air_run *run, int32_t which)
{
	return 0;
}

size_t air_run_iteration_count(const air_run *run)
{
	return 0;
}

const char *air_run_iteration_task_key(const air_run *run, size_t i)
{
	return NULL;
}

int64_t air_run_iteration_run_id(const air_run *run, size_t i)
{
	return 0;
}

const char *air_run_iteration_state(const air_run *run, size_t i)
{
	return NULL;
}

const char *air_run_iteration_experiment(const air_run *run, size_t i)
{
	return NULL;
}

int air_run_to_json(const air_run *run, char **out, air_error **err)
{
	return AIR_EUNSUPPORTED;
}

int air_list_options_new(air_list_options **out)
{
	return AIR_EUNSUPPORTED;
}

void air_list_options_free(air_list_options *opts)
{
}

int air_list_options_set_int(air_list_options *opts, int32_t opt, int64_t value)
{
	return AIR_EUNSUPPORTED;
}

int air_list_options_add_filter(air_list_options *opts, const char *filter, air_error **err)
{
	return AIR_EUNSUPPORTED;
}

int air_client_list_runs(air_client *client, const air_list_options *opts, air_run_iter **out, air_error **err)
{
	return AIR_EUNSUPPORTED;
}

int air_run_iter_next(air_run_iter *iter, const air_run **run, air_error **err)
{
	return AIR_EUNSUPPORTED;
}

int32_t air_run_iter_truncated(const air_run_iter *iter)
{
	return 0;
}

void air_run_iter_free(air_run_iter *iter)
{
}

int air_client_cancel_run(air_client *client, int64_t run_id, air_error **err)
{
	return AIR_EUNSUPPORTED;
}

int air_client_cancel_runs(air_client *client, const int64_t *run_ids, size_t n, air_cancel_report **out, air_error **err)
{
	return AIR_EUNSUPPORTED;
}

int air_client_cancel_all(air_client *client, air_cancel_report **out, air_error **err)
{
	return AIR_EUNSUPPORTED;
}

size_t air_cancel_report_count(const air_cancel_report *rep)
{
	return 0;
}

int64_t air_cancel_report_run_id(const air_cancel_report *rep, size_t i)
{
	return 0;
}

int32_t air_cancel_report_status(const air_cancel_report *rep, size_t i)
{
	return 0;
}

const char *air_cancel_report_message(const air_cancel_report *rep, size_t i)
{
	return NULL;
}

size_t air_cancel_report_failures(const air_cancel_report *rep)
{
	return 0;
}

void air_cancel_report_free(air_cancel_report *rep)
{
}

/* shim.c: casts the //export trampolines of callbacks.go to libair's
 * callback types; userdata is a cgo.Handle value (an integer). */
#include "shim.h"
#include "_cgo_export.h"

static int log_record_cb(const air_log_record *rec, void *userdata)
{
	return airgoLogRecord((air_log_record *)rec, (uintptr_t)userdata);
}

static int log_text_cb(const char *text, size_t len, void *userdata)
{
	return airgoLogText((char *)text, len, (uintptr_t)userdata);
}

static int log_status_cb(const char *current, const char *previous, void *userdata)
{
	return airgoLogStatus((char *)current, (char *)previous, (uintptr_t)userdata);
}

static int log_waiting_cb(const char *message, void *userdata)
{
	return airgoLogWaiting((char *)message, (uintptr_t)userdata);
}

static int log_attempt_cb(int32_t attempt, void *userdata)
{
	return airgoLogAttempt(attempt, (uintptr_t)userdata);
}

static int progress_cb(const air_progress *ev, void *userdata)
{
	return airgoProgress((air_progress *)ev, (uintptr_t)userdata);
}

static int wait_state_cb(const air_run *run, void *userdata)
{
	return airgoWaitState((air_run *)run, (uintptr_t)userdata);
}

static int metrics_poll_cb(const char *state, void *userdata)
{
	return airgoMetricsPoll((char *)state, (uintptr_t)userdata);
}

static int check_cb(const air_check *check, void *userdata)
{
	return airgoCheck((air_check *)check, (uintptr_t)userdata);
}

static int sweep_progress_cb(const air_sweep *sweep, size_t index, void *userdata)
{
	return airgoSweepProgress((air_sweep *)sweep, index, (uintptr_t)userdata);
}

static int debug_cb(int32_t type, const char *text, size_t len, void *userdata)
{
	return airgoDebug(type, (char *)text, len, (uintptr_t)userdata);
}

int airgo_client_options_set_debug(air_client_options *opts, uintptr_t handle)
{
	return air_client_options_set_debug_cb(opts, handle ? debug_cb : NULL, (void *)handle);
}

int airgo_submit_options_set_progress(air_submit_options *opts, uintptr_t handle)
{
	return air_submit_options_set_progress_cb(opts, handle ? progress_cb : NULL, (void *)handle);
}

int airgo_sweep_options_set_progress(air_sweep_options *opts, uintptr_t handle)
{
	return air_sweep_options_set_progress_cb(opts, handle ? sweep_progress_cb : NULL,
	                                         (void *)handle);
}

int airgo_wait_options_set_state(air_wait_options *opts, uintptr_t handle)
{
	return air_wait_options_set_state_cb(opts, handle ? wait_state_cb : NULL, (void *)handle);
}

int airgo_check_options_set_cb(air_check_options *opts, uintptr_t handle)
{
	return air_check_options_set_check_cb(opts, handle ? check_cb : NULL, (void *)handle);
}

int airgo_logs_options_set_callbacks(air_logs_options *opts, int record, int status, int waiting,
                                     int attempt, uintptr_t handle)
{
	int rc = air_logs_options_set_record_cb(opts, record ? log_record_cb : NULL, (void *)handle);

	if (rc == AIR_OK)
		rc = air_logs_options_set_status_cb(opts, status ? log_status_cb : NULL, (void *)handle);
	if (rc == AIR_OK)
		rc = air_logs_options_set_waiting_cb(opts, waiting ? log_waiting_cb : NULL,
		                                     (void *)handle);
	if (rc == AIR_OK)
		rc = air_logs_options_set_attempt_cb(opts, attempt ? log_attempt_cb : NULL,
		                                     (void *)handle);
	return rc;
}

int airgo_logs_options_set_text(air_logs_options *opts, uintptr_t handle)
{
	return air_logs_options_set_text_cb(opts, handle ? log_text_cb : NULL, (void *)handle);
}

int airgo_metrics_options_set_poll(air_metrics_options *opts, uintptr_t handle)
{
	return air_metrics_options_set_poll_cb(opts, handle ? metrics_poll_cb : NULL, (void *)handle);
}

void airgo_log_record_fields(const air_log_record *rec, int alert, airgo_log_fields *out)
{
	out->line = air_log_record_line(rec, &out->len);
	out->time_ns = air_log_record_time_ns(rec);
	out->node = air_log_record_node(rec);
	out->source = air_log_record_source(rec);
	out->alert = alert ? air_log_record_alert(rec) : 0;
}

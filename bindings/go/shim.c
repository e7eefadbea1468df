/* shim.c: casts the //export trampolines of callbacks.go to libair's callback
 * types; userdata is a cgo.Handle value (an integer), never a Go pointer. */
#include "shim.h"
#include "_cgo_export.h"

static int log_record_cb(const air_log_record *rec, void *userdata)
{
	return airgoLogRecord((air_log_record *)rec, (uintptr_t)userdata);
}

static int log_status_cb(const char *current, const char *previous, void *userdata)
{
	return airgoLogStatus((char *)current, (char *)previous, (uintptr_t)userdata);
}

static int log_alert_cb(const air_log_record *rec, int32_t pattern, void *userdata)
{
	return airgoLogAlert((air_log_record *)rec, pattern, (uintptr_t)userdata);
}

static int log_waiting_cb(const char *message, void *userdata)
{
	return airgoLogWaiting((char *)message, (uintptr_t)userdata);
}

static int progress_cb(const air_progress *ev, void *userdata)
{
	return airgoProgress((air_progress *)ev, (uintptr_t)userdata);
}

static int debug_cb(int32_t type, const char *text, size_t len, void *userdata)
{
	return airgoDebug(type, (char *)text, len, (uintptr_t)userdata);
}

int airgo_client_set_debug(air_client *client, uintptr_t handle)
{
	return air_client_set_debug_cb(client, handle ? debug_cb : NULL, (void *)handle);
}

int airgo_submit_options_set_progress(air_submit_options *opts, uintptr_t handle)
{
	return air_submit_options_set_progress_cb(opts, handle ? progress_cb : NULL, (void *)handle);
}

int airgo_stream_logs(air_client *client, int64_t run_id, const air_logs_options *opts,
                      int on_record, int on_status, int on_alert, uintptr_t handle,
                      air_logs_summary **summary, air_error **err)
{
	return air_client_stream_logs(client, run_id, opts, on_record ? log_record_cb : NULL,
	                              on_status ? log_status_cb : NULL,
	                              on_alert ? log_alert_cb : NULL, (void *)handle, summary, err);
}

int airgo_logs_options_set_waiting(air_logs_options *opts, uintptr_t handle)
{
	return air_logs_options_set_waiting_cb(opts, handle ? log_waiting_cb : NULL, (void *)handle);
}

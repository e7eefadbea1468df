/* shim.h: C wrappers that hand libair the Go trampolines of callbacks.go,
 * cast to the libair callback types, with a cgo.Handle as userdata. */
#ifndef AIRGO_SHIM_H
#define AIRGO_SHIM_H

#include <stdint.h>
#include <air/air.h>

int airgo_client_set_debug(air_client *client, uintptr_t handle);
int airgo_submit_options_set_progress(air_submit_options *opts, uintptr_t handle);
int airgo_stream_logs(air_client *client, int64_t run_id, const air_logs_options *opts,
                      int on_record, int on_status, int on_alert, uintptr_t handle,
                      air_logs_summary **summary, air_error **err);
int airgo_logs_options_set_waiting(air_logs_options *opts, uintptr_t handle);

#endif

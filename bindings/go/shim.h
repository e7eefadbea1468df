/* shim.h: install the Go trampolines of callbacks.go as libair callbacks,
 * with a cgo.Handle value as userdata. */
#ifndef AIRGO_SHIM_H
#define AIRGO_SHIM_H

#include <stdint.h>
#include <air/air.h>

int airgo_client_options_set_debug(air_client_options *opts, uintptr_t handle);
int airgo_submit_options_set_progress(air_submit_options *opts, uintptr_t handle);
int airgo_wait_options_set_state(air_wait_options *opts, uintptr_t handle);
int airgo_check_options_set_cb(air_check_options *opts, uintptr_t handle);
int airgo_sweep_options_set_progress(air_sweep_options *opts, uintptr_t handle);
int airgo_logs_options_set_callbacks(air_logs_options *opts, int record, int status, int waiting,
                                     uintptr_t handle);
int airgo_metrics_options_set_poll(air_metrics_options *opts, uintptr_t handle);

#endif

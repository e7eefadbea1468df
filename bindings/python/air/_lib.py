"""The loaded libair and the ctypes signature of every function it exports.

ctypes defaults every result to a C ``int`` and converts arguments by
guessing, which truncates pointers and 64-bit integers; so every exported
function is declared here (the tests check each declaration against the
header prototype), and the package calls nothing that is not in SIGNATURES.
"""

import ctypes as C
from typing import Any, Dict, List, Optional, Tuple

from . import _find

# Argument and result types, named after the C types they stand for.
VOIDP = C.c_void_p          # any opaque handle (air_client *, const air_run *, ...)
STR = C.c_char_p            # const char * in; borrowed NUL-terminated string out
INT = C.c_int               # int status
I32 = C.c_int32
I64 = C.c_int64
U32 = C.c_uint32
SIZE = C.c_size_t
OUT_HANDLE = C.POINTER(C.c_void_p)   # air_x ** (including air_error **err)
OUT_STR = C.POINTER(C.c_void_p)      # char ** of an owned string: kept as a pointer for air_free()
OUT_SIZE = C.POINTER(C.c_size_t)
OUT_I64 = C.POINTER(C.c_int64)
I64_ARRAY = C.POINTER(C.c_int64)
VOID = None

# Callback types. Strings that come with a length are void * (read with
# ctypes.string_at()).
DEBUG_CB = C.CFUNCTYPE(C.c_int, C.c_int32, C.c_void_p, C.c_size_t, C.c_void_p)
PROGRESS_CB = C.CFUNCTYPE(C.c_int, C.c_void_p, C.c_void_p)
LOG_RECORD_CB = C.CFUNCTYPE(C.c_int, C.c_void_p, C.c_void_p)
LOG_STATUS_CB = C.CFUNCTYPE(C.c_int, C.c_char_p, C.c_char_p, C.c_void_p)
LOG_WAITING_CB = C.CFUNCTYPE(C.c_int, C.c_char_p, C.c_void_p)
WAIT_STATE_CB = C.CFUNCTYPE(C.c_int, C.c_void_p, C.c_void_p)
LIST_SKIP_CB = C.CFUNCTYPE(C.c_int, C.c_int64, C.c_void_p, C.c_void_p)

# name: (restype, argtypes), in header order.
SIGNATURES: Dict[str, Tuple[Any, List[Any]]] = {
    # version.h
    "air_version_number": (U32, []),
    "air_version_string": (STR, []),
    "air_features": (U32, []),
    # global.h
    "air_global_init": (INT, []),
    "air_global_cleanup": (VOID, []),
    "air_free": (VOID, [VOIDP]),
    # errors.h
    "air_strerror": (STR, [INT]),
    "air_status_name": (STR, [INT]),
    "air_kind_name": (STR, [I32]),
    "air_error_code": (I32, [VOIDP]),
    "air_error_kind": (I32, [VOIDP]),
    "air_error_message": (STR, [VOIDP]),
    "air_error_field": (STR, [VOIDP]),
    "air_error_file": (STR, [VOIDP]),
    "air_error_line": (I32, [VOIDP]),
    "air_error_column": (I32, [VOIDP]),
    "air_error_retryable": (I32, [VOIDP]),
    "air_error_suggestion": (STR, [VOIDP]),
    "air_error_http_status": (I32, [VOIDP]),
    "air_error_server_code": (STR, [VOIDP]),
    "air_error_request_id": (STR, [VOIDP]),
    "air_error_retry_after_ms": (I64, [VOIDP]),
    "air_error_free": (VOID, [VOIDP]),
    # interrupt.h
    "air_interrupt_new": (INT, [OUT_HANDLE]),
    "air_interrupt_trigger": (VOID, [VOIDP]),
    "air_interrupt_is_triggered": (I32, [VOIDP]),
    "air_interrupt_reset": (VOID, [VOIDP]),
    "air_interrupt_wakeup_fd": (INT, [VOIDP]),
    "air_interrupt_free": (VOID, [VOIDP]),
    # options.h
    "air_call_options_new": (INT, [OUT_HANDLE]),
    "air_call_options_free": (VOID, [VOIDP]),
    "air_call_options_set_interrupt": (INT, [VOIDP, VOIDP]),
    "air_call_options_set_deadline_ms": (INT, [VOIDP, I64]),
    # config.h
    "air_config_parse_file": (INT, [STR, OUT_HANDLE, OUT_HANDLE]),
    "air_config_parse_buffer": (INT, [STR, SIZE, STR, STR, OUT_HANDLE, OUT_HANDLE]),
    "air_config_load_file": (INT, [STR, OUT_HANDLE, OUT_HANDLE]),
    "air_config_load_buffer": (INT, [STR, SIZE, STR, STR, OUT_HANDLE, OUT_HANDLE]),
    "air_config_validate": (INT, [VOIDP, OUT_HANDLE]),
    "air_config_is_valid": (I32, [VOIDP]),
    "air_config_free": (VOID, [VOIDP]),
    "air_config_override": (INT, [VOIDP, STR, OUT_HANDLE]),
    "air_config_set": (INT, [VOIDP, STR, STR, OUT_HANDLE]),
    "air_config_change_count": (SIZE, [VOIDP]),
    "air_config_change_path": (STR, [VOIDP, SIZE]),
    "air_config_change_old": (STR, [VOIDP, SIZE]),
    "air_config_change_new": (STR, [VOIDP, SIZE]),
    "air_config_to_yaml": (INT, [VOIDP, OUT_STR, OUT_HANDLE]),
    "air_config_to_json": (INT, [VOIDP, OUT_STR, OUT_HANDLE]),
    "air_config_source_name": (STR, [VOIDP]),
    "air_config_base_dir": (STR, [VOIDP]),
    "air_config_source_bytes": (VOIDP, [VOIDP, OUT_SIZE]),
    "air_config_is_set": (I32, [VOIDP, STR]),
    "air_schema_lookup": (INT, [STR, OUT_HANDLE, OUT_HANDLE]),
    "air_schema_root": (VOIDP, []),
    "air_field_name": (STR, [VOIDP]),
    "air_field_kind": (I32, [VOIDP]),
    "air_field_type": (STR, [VOIDP]),
    "air_field_required": (I32, [VOIDP]),
    "air_field_required_when": (STR, [VOIDP]),
    "air_field_default": (STR, [VOIDP]),
    "air_field_description": (STR, [VOIDP]),
    "air_field_child_count": (SIZE, [VOIDP]),
    "air_field_child": (VOIDP, [VOIDP, SIZE]),
    "air_config_experiment_name": (STR, [VOIDP]),
    "air_config_command": (STR, [VOIDP]),
    "air_config_accelerator_type": (STR, [VOIDP]),
    "air_config_num_accelerators": (I64, [VOIDP]),
    "air_config_num_nodes": (I64, [VOIDP]),
    "air_config_pool_id": (STR, [VOIDP]),
    "air_config_priority_class": (STR, [VOIDP]),
    "air_config_environment_version": (STR, [VOIDP]),
    "air_config_has_dependencies": (I32, [VOIDP]),
    "air_config_dependency_count": (SIZE, [VOIDP]),
    "air_config_dependency": (STR, [VOIDP, SIZE]),
    "air_config_unity_catalog_image": (STR, [VOIDP]),
    "air_config_docker_image_url": (STR, [VOIDP]),
    "air_config_docker_image_tag_policy": (STR, [VOIDP]),
    "air_config_docker_image_credentials_scope": (STR, [VOIDP]),
    "air_config_docker_image_credentials_key": (STR, [VOIDP]),
    "air_config_env_count": (SIZE, [VOIDP]),
    "air_config_env_name": (STR, [VOIDP, SIZE]),
    "air_config_env_value": (STR, [VOIDP, SIZE]),
    "air_config_secret_count": (SIZE, [VOIDP]),
    "air_config_secret_name": (STR, [VOIDP, SIZE]),
    "air_config_secret_ref": (STR, [VOIDP, SIZE]),
    "air_config_secret_scope": (STR, [VOIDP, SIZE]),
    "air_config_secret_key": (STR, [VOIDP, SIZE]),
    "air_config_has_parameters": (I32, [VOIDP]),
    "air_config_parameters_yaml": (INT, [VOIDP, OUT_STR, OUT_HANDLE]),
    "air_config_parameters_json": (INT, [VOIDP, OUT_STR, OUT_HANDLE]),
    "air_config_code_source_form": (I32, [VOIDP]),
    "air_config_root_path": (STR, [VOIDP]),
    "air_config_remote_volume": (STR, [VOIDP]),
    "air_config_include_path_count": (SIZE, [VOIDP]),
    "air_config_include_path": (STR, [VOIDP, SIZE]),
    "air_config_git_commit": (STR, [VOIDP]),
    "air_config_git_branch": (STR, [VOIDP]),
    "air_config_max_retries": (I64, [VOIDP]),
    "air_config_timeout_minutes": (I64, [VOIDP]),
    "air_config_idempotency_token": (STR, [VOIDP]),
    "air_config_mlflow_run_name": (STR, [VOIDP]),
    "air_config_mlflow_experiment_directory": (STR, [VOIDP]),
    "air_config_mlflow_artifact_location": (STR, [VOIDP]),
    "air_config_usage_policy_name": (STR, [VOIDP]),
    "air_config_usage_policy_id": (STR, [VOIDP]),
    "air_config_permission_count": (SIZE, [VOIDP]),
    "air_config_permission_principal_type": (I32, [VOIDP, SIZE]),
    "air_config_permission_principal": (STR, [VOIDP, SIZE]),
    "air_config_permission_level": (STR, [VOIDP, SIZE]),
    "air_accelerator_gpus_per_node": (I32, [STR]),
    "air_accelerator_display_name": (STR, [STR]),
    # client.h
    "air_client_options_new": (INT, [OUT_HANDLE]),
    "air_client_options_free": (VOID, [VOIDP]),
    "air_client_options_set_str": (INT, [VOIDP, I32, STR]),
    "air_client_options_set_int": (INT, [VOIDP, I32, I64]),
    "air_client_options_set_debug_cb": (INT, [VOIDP, DEBUG_CB, VOIDP]),
    "air_client_options_set_interrupt": (INT, [VOIDP, VOIDP]),
    "air_client_new": (INT, [VOIDP, OUT_HANDLE, OUT_HANDLE]),
    "air_client_free": (VOID, [VOIDP]),
    "air_client_resolve": (INT, [VOIDP, VOIDP, OUT_HANDLE]),
    "air_client_host": (STR, [VOIDP]),
    "air_client_auth_type": (STR, [VOIDP]),
    "air_client_profile": (STR, [VOIDP]),
    "air_client_current_user": (INT, [VOIDP, VOIDP, OUT_STR, OUT_HANDLE]),
    "air_client_workspace_id": (INT, [VOIDP, VOIDP, OUT_I64, OUT_HANDLE]),
    # submit.h
    "air_phase_name": (STR, [I32]),
    "air_progress_phase": (I32, [VOIDP]),
    "air_progress_bytes_done": (I64, [VOIDP]),
    "air_progress_bytes_total": (I64, [VOIDP]),
    "air_progress_detail": (STR, [VOIDP]),
    "air_submit_options_new": (INT, [OUT_HANDLE]),
    "air_submit_options_free": (VOID, [VOIDP]),
    "air_submit_options_set_str": (INT, [VOIDP, I32, STR]),
    "air_submit_options_set_int": (INT, [VOIDP, I32, I64]),
    "air_submit_options_set_progress_cb": (INT, [VOIDP, PROGRESS_CB, VOIDP]),
    "air_submit_options_set_interrupt": (INT, [VOIDP, VOIDP]),
    "air_submit_options_set_deadline_ms": (INT, [VOIDP, I64]),
    "air_client_submit": (INT, [VOIDP, VOIDP, VOIDP, OUT_HANDLE, OUT_HANDLE]),
    "air_config_check_submission": (INT, [VOIDP, VOIDP, OUT_HANDLE]),
    "air_submission_run_id": (I64, [VOIDP]),
    "air_submission_dashboard_url": (STR, [VOIDP]),
    "air_submission_idempotency_token": (STR, [VOIDP]),
    "air_submission_launch_dir": (STR, [VOIDP]),
    "air_submission_code_source_path": (STR, [VOIDP]),
    "air_submission_snapshot_reused": (I32, [VOIDP]),
    "air_submission_free": (VOID, [VOIDP]),
    "air_client_poll_mlflow_links": (INT, [
        VOIDP, I64, I32, I64, VOIDP, OUT_STR, OUT_STR, OUT_HANDLE]),
    # run.h
    "air_state_name": (STR, [I32]),
    "air_state_is_terminal": (I32, [I32]),
    "air_get_options_new": (INT, [OUT_HANDLE]),
    "air_get_options_free": (VOID, [VOIDP]),
    "air_get_options_set_int": (INT, [VOIDP, I32, I64]),
    "air_get_options_set_interrupt": (INT, [VOIDP, VOIDP]),
    "air_get_options_set_deadline_ms": (INT, [VOIDP, I64]),
    "air_client_get_run": (INT, [VOIDP, I64, VOIDP, OUT_HANDLE, OUT_HANDLE]),
    "air_run_free": (VOID, [VOIDP]),
    "air_run_id": (I64, [VOIDP]),
    "air_run_name": (STR, [VOIDP]),
    "air_run_creator": (STR, [VOIDP]),
    "air_run_state": (I32, [VOIDP]),
    "air_run_state_name": (STR, [VOIDP]),
    "air_run_life_cycle_state": (STR, [VOIDP]),
    "air_run_result_state": (STR, [VOIDP]),
    "air_run_state_message": (STR, [VOIDP]),
    "air_run_is_terminal": (I32, [VOIDP]),
    "air_run_succeeded": (I32, [VOIDP]),
    "air_run_is_ai_runtime": (I32, [VOIDP]),
    "air_run_start_time_ms": (I64, [VOIDP]),
    "air_run_end_time_ms": (I64, [VOIDP]),
    "air_run_task_run_id": (I64, [VOIDP]),
    "air_run_attempt_number": (I32, [VOIDP]),
    "air_run_latest_attempt": (I32, [VOIDP]),
    "air_run_max_retries": (I32, [VOIDP]),
    "air_run_experiment_name": (STR, [VOIDP]),
    "air_run_accelerator_type": (STR, [VOIDP]),
    "air_run_accelerator_count": (I64, [VOIDP]),
    "air_run_accelerators": (STR, [VOIDP]),
    "air_run_command_path": (STR, [VOIDP]),
    "air_run_code_source_path": (STR, [VOIDP]),
    "air_run_environment_version": (STR, [VOIDP]),
    "air_run_dashboard_url": (STR, [VOIDP]),
    "air_run_mlflow_run_id": (STR, [VOIDP]),
    "air_run_mlflow_experiment_id": (STR, [VOIDP]),
    "air_run_mlflow_run_name": (STR, [VOIDP]),
    "air_run_mlflow_run_url": (STR, [VOIDP]),
    "air_run_mlflow_experiment_url": (STR, [VOIDP]),
    "air_run_status_message": (STR, [VOIDP]),
    "air_run_is_sweep": (I32, [VOIDP]),
    "air_run_sweep_stat": (I64, [VOIDP, I32]),
    "air_run_iteration_count": (SIZE, [VOIDP]),
    "air_run_iteration_task_key": (STR, [VOIDP, SIZE]),
    "air_run_iteration_run_id": (I64, [VOIDP, SIZE]),
    "air_run_iteration_state": (I32, [VOIDP, SIZE]),
    "air_run_iteration_state_name": (STR, [VOIDP, SIZE]),
    "air_run_iteration_experiment": (STR, [VOIDP, SIZE]),
    "air_run_config_yaml": (VOIDP, [VOIDP, OUT_SIZE]),
    "air_run_to_json": (INT, [VOIDP, OUT_STR, OUT_HANDLE]),
    "air_list_options_new": (INT, [OUT_HANDLE]),
    "air_list_options_free": (VOID, [VOIDP]),
    "air_list_options_set_int": (INT, [VOIDP, I32, I64]),
    "air_list_options_set_interrupt": (INT, [VOIDP, VOIDP]),
    "air_list_options_set_deadline_ms": (INT, [VOIDP, I64]),
    "air_list_options_add_filter": (INT, [VOIDP, STR, OUT_HANDLE]),
    "air_list_options_set_skip_cb": (INT, [VOIDP, LIST_SKIP_CB, VOIDP]),
    "air_client_list_runs": (INT, [VOIDP, VOIDP, OUT_HANDLE, OUT_HANDLE]),
    "air_run_iter_next": (INT, [VOIDP, OUT_HANDLE, OUT_HANDLE]),
    "air_run_iter_truncated": (I32, [VOIDP]),
    "air_run_iter_free": (VOID, [VOIDP]),
    "air_client_cancel_run": (INT, [VOIDP, I64, VOIDP, OUT_HANDLE]),
    "air_client_cancel_runs": (INT, [VOIDP, I64_ARRAY, SIZE, VOIDP, OUT_HANDLE, OUT_HANDLE]),
    "air_client_cancel_all": (INT, [VOIDP, VOIDP, OUT_HANDLE, OUT_HANDLE]),
    "air_cancel_report_count": (SIZE, [VOIDP]),
    "air_cancel_report_run_id": (I64, [VOIDP, SIZE]),
    "air_cancel_report_status": (I32, [VOIDP, SIZE]),
    "air_cancel_report_message": (STR, [VOIDP, SIZE]),
    "air_cancel_report_failures": (SIZE, [VOIDP]),
    "air_cancel_report_free": (VOID, [VOIDP]),
    "air_wait_options_new": (INT, [OUT_HANDLE]),
    "air_wait_options_free": (VOID, [VOIDP]),
    "air_wait_options_set_int": (INT, [VOIDP, I32, I64]),
    "air_wait_options_set_interrupt": (INT, [VOIDP, VOIDP]),
    "air_wait_options_set_deadline_ms": (INT, [VOIDP, I64]),
    "air_wait_options_set_state_cb": (INT, [VOIDP, WAIT_STATE_CB, VOIDP]),
    "air_client_wait_run": (INT, [VOIDP, I64, VOIDP, OUT_HANDLE, OUT_HANDLE]),
    # logs.h
    "air_logs_options_new": (INT, [OUT_HANDLE]),
    "air_logs_options_free": (VOID, [VOIDP]),
    "air_logs_options_set_int": (INT, [VOIDP, I32, I64]),
    "air_logs_options_set_interrupt": (INT, [VOIDP, VOIDP]),
    "air_logs_options_set_deadline_ms": (INT, [VOIDP, I64]),
    "air_logs_options_set_record_cb": (INT, [VOIDP, LOG_RECORD_CB, VOIDP]),
    "air_logs_options_set_status_cb": (INT, [VOIDP, LOG_STATUS_CB, VOIDP]),
    "air_logs_options_set_waiting_cb": (INT, [VOIDP, LOG_WAITING_CB, VOIDP]),
    "air_log_record_line": (VOIDP, [VOIDP, OUT_SIZE]),
    "air_log_record_time_ns": (I64, [VOIDP]),
    "air_log_record_node": (I32, [VOIDP]),
    "air_log_record_source": (I32, [VOIDP]),
    "air_log_record_alert": (I32, [VOIDP]),
    "air_log_alert_pattern_count": (I32, []),
    "air_log_alert_pattern": (STR, [I32]),
    "air_log_match_alert": (I32, [STR, SIZE]),
    "air_client_open_logs": (INT, [VOIDP, I64, VOIDP, OUT_HANDLE, OUT_HANDLE]),
    "air_log_iter_next": (INT, [VOIDP, OUT_HANDLE, OUT_HANDLE]),
    "air_log_iter_summary": (VOIDP, [VOIDP]),
    "air_log_iter_free": (VOID, [VOIDP]),
    "air_client_stream_logs": (INT, [VOIDP, I64, VOIDP, OUT_HANDLE, OUT_HANDLE]),
    "air_logs_summary_records": (I64, [VOIDP]),
    "air_logs_summary_state": (I32, [VOIDP]),
    "air_logs_summary_state_name": (STR, [VOIDP]),
    "air_logs_summary_terminal": (I32, [VOIDP]),
    "air_logs_summary_succeeded": (I32, [VOIDP]),
    "air_logs_summary_source": (I32, [VOIDP]),
    "air_logs_summary_no_logs_message": (STR, [VOIDP]),
    "air_logs_summary_free": (VOID, [VOIDP]),
    "air_client_download_logs": (INT, [VOIDP, I64, STR, VOIDP, OUT_HANDLE, OUT_HANDLE]),
    "air_download_report_count": (SIZE, [VOIDP]),
    "air_download_report_node": (I32, [VOIDP, SIZE]),
    "air_download_report_path": (STR, [VOIDP, SIZE]),
    "air_download_report_bytes": (I64, [VOIDP, SIZE]),
    "air_download_report_complete": (I32, [VOIDP, SIZE]),
    "air_download_report_error": (STR, [VOIDP, SIZE]),
    "air_download_report_no_logs_message": (STR, [VOIDP]),
    "air_download_report_terminal": (I32, [VOIDP]),
    "air_download_report_succeeded": (I32, [VOIDP]),
    "air_download_report_state": (I32, [VOIDP]),
    "air_download_report_state_name": (STR, [VOIDP]),
    "air_download_report_free": (VOID, [VOIDP]),
    # pool.h
    "air_client_list_pools": (INT, [VOIDP, VOIDP, OUT_HANDLE, OUT_HANDLE]),
    "air_pool_list_count": (SIZE, [VOIDP]),
    "air_pool_list_get": (VOIDP, [VOIDP, SIZE]),
    "air_pool_list_free": (VOID, [VOIDP]),
    "air_client_get_pool": (INT, [VOIDP, STR, VOIDP, OUT_HANDLE, OUT_HANDLE]),
    "air_pool_free": (VOID, [VOIDP]),
    "air_pool_id": (STR, [VOIDP]),
    "air_pool_accelerator_type": (STR, [VOIDP]),
    "air_pool_reserved_accelerators": (I64, [VOIDP]),
    "air_pool_used_accelerators": (I64, [VOIDP]),
    "air_pool_idle_accelerators": (I64, [VOIDP]),
    # images.h
    "air_image_push_options_new": (INT, [OUT_HANDLE]),
    "air_image_push_options_free": (VOID, [VOIDP]),
    "air_image_push_options_set_str": (INT, [VOIDP, I32, STR]),
    "air_image_push_options_set_int": (INT, [VOIDP, I32, I64]),
    "air_image_push_options_set_interrupt": (INT, [VOIDP, VOIDP]),
    "air_image_push_options_set_deadline_ms": (INT, [VOIDP, I64]),
    "air_client_push_image": (INT, [VOIDP, VOIDP, OUT_STR, OUT_STR, OUT_HANDLE]),
    "air_register_image_options_new": (INT, [OUT_HANDLE]),
    "air_register_image_options_free": (VOID, [VOIDP]),
    "air_register_image_options_set_str": (INT, [VOIDP, I32, STR]),
    "air_register_image_options_set_int": (INT, [VOIDP, I32, I64]),
    "air_register_image_options_set_interrupt": (INT, [VOIDP, VOIDP]),
    "air_register_image_options_set_deadline_ms": (INT, [VOIDP, I64]),
    "air_client_register_image": (INT, [VOIDP, STR, VOIDP, OUT_HANDLE, OUT_HANDLE]),
    "air_image_registration_url": (STR, [VOIDP]),
    "air_image_registration_manifest_sha256": (STR, [VOIDP]),
    "air_image_registration_status": (STR, [VOIDP]),
    "air_image_registration_image_updated": (I32, [VOIDP]),
    "air_image_registration_cached": (I32, [VOIDP]),
    "air_image_registration_credentials_scope": (STR, [VOIDP]),
    "air_image_registration_credentials_key": (STR, [VOIDP]),
    "air_image_registration_free": (VOID, [VOIDP]),
    # bundle.h
    "air_bundle_options_new": (INT, [OUT_HANDLE]),
    "air_bundle_options_free": (VOID, [VOIDP]),
    "air_bundle_options_set_str": (INT, [VOIDP, I32, STR]),
    "air_bundle_options_set_int": (INT, [VOIDP, I32, I64]),
    "air_bundle_options_set_interrupt": (INT, [VOIDP, VOIDP]),
    "air_bundle_options_set_deadline_ms": (INT, [VOIDP, I64]),
    "air_config_write_bundle": (INT, [VOIDP, STR, VOIDP, OUT_HANDLE, OUT_HANDLE]),
    "air_bundle_dir": (STR, [VOIDP]),
    "air_bundle_job_key": (STR, [VOIDP]),
    "air_bundle_file_count": (SIZE, [VOIDP]),
    "air_bundle_file": (STR, [VOIDP, SIZE]),
    "air_bundle_removed_count": (SIZE, [VOIDP]),
    "air_bundle_removed": (STR, [VOIDP, SIZE]),
    "air_bundle_free": (VOID, [VOIDP]),
}

# The oldest library this package works with (0xMMmmpp).
MIN_VERSION = 0x010000


class _Missing:
    """Stands in for a function the loaded library does not export (an
    older libair): calling it raises UnsupportedError."""

    def __init__(self, name: str) -> None:
        self.__name__ = name

    def __call__(self, *args: Any) -> Any:
        from .errors import UnsupportedError
        raise UnsupportedError("%s is not exported by the loaded libair (%s)" % (self.__name__, lib.path))


class Library:
    """The loaded CDLL with every signature applied, one attribute per
    declared function; ``missing`` lists the declared functions it lacks."""

    def __init__(self, dll: C.CDLL, path: str) -> None:
        self.path = path
        self.dll = dll
        self.missing: List[str] = []
        for name, (restype, argtypes) in SIGNATURES.items():
            try:
                fn = getattr(dll, name)
            except AttributeError:
                self.missing.append(name)
                setattr(self, name, _Missing(name))
                continue
            fn.restype = restype
            fn.argtypes = argtypes
            setattr(self, name, fn)

    def __getattr__(self, name: str) -> Any:  # only reached for undeclared names
        raise AttributeError("air._lib: %s is not declared in SIGNATURES" % name)

    def has(self, name: str) -> bool:
        """True when the loaded library exports @name."""
        return name not in self.missing


lib = Library(*_find.load())

if lib.has("air_version_number") and lib.air_version_number() < MIN_VERSION:
    raise ImportError("air: libair at %s is version %s; this package needs %d.%d or newer" % (
        lib.path, lib.air_version_string().decode(), MIN_VERSION >> 16, (MIN_VERSION >> 8) & 0xff))


def pythonapi_check_signals() -> Optional[Any]:
    """PyErr_CheckSignals of this interpreter, or None where ctypes.pythonapi is absent."""
    try:
        fn = C.pythonapi.PyErr_CheckSignals
    except AttributeError:
        return None
    fn.restype = C.c_int
    fn.argtypes = []
    return fn

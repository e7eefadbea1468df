"""The configuration: its defaults, which keys merge, and the feature switches."""

from .replies import ApiError

DEFAULT_USER = "tester@databricks.com"

# Keys whose dict values are merged (recursively) rather than replaced.
MERGED_CONFIG_KEYS = ("lifecycle", "features", "oauth", "secrets", "experiments")

# Status and error code of a disabled feature (features.<name> = false).
FEATURE_OFF = {
    "logs": (403, "FEATURE_DISABLED"),
    "preflight": (400, "FEATURE_DISABLED"),
    "workflows_index": (404, "ENDPOINT_NOT_FOUND"),
    "pools": (403, "FEATURE_DISABLED"),
}


def default_config():
    return {
        "tokens": ["dapi-test"],
        "user": DEFAULT_USER,
        "org_id": "900800700600500",
        "lifecycle": {
            "pending_ms": 0,
            "running_ms": 0,
            "result": "SUCCESS",
            "state_message": "",
            "pending_status": "STATUS:Waiting for accelerators to become available",
            "running_status": "STATUS:Workload is running",
        },
        "auto_logs": 0,
        "preflight": {"errors": []},
        "latency_ms": 0,
        "logs_page_size": 1000,
        "logs_lag_ms": 0,
        "logs_max_page_size": 10000,
        "logs_time_as_string": False,
        "list_page_size": 25,
        "get_page_size": 100,
        "workflows_page_size": 100,
        "artifacts_page_size": 1000,
        "mlflow_nonfinite": "token",
        "oauth": {"clients": {}, "expires_in": 3600, "refresh_tokens": {}},
        "features": {"logs": True, "preflight": True, "workflows_index": True, "pools": True},
        "basic_auth": {},
        "host_metadata": None,
        "presigned_headers": [{"name": "x-ms-blob-type", "value": "BlockBlob"}],
        "compute_options": ["GPU_1xA10", "GPU_1xH100", "GPU_8xH100"],
        "secrets": {"max_scopes": None, "can_create_scope": True, "can_put": True,
                    "unreadable": []},
        "experiments": {"grantable": ["CAN_READ", "CAN_EDIT", "CAN_MANAGE"], "manage": True},
        "record_requests": True,
        "next_run_id": 555,
    }


def require_feature(config, name):
    """Raise the configured error when features.<name> is not true."""
    v = config["features"].get(name, True)
    if v is True:
        return
    if v == "ENDPOINT_NOT_FOUND":
        raise ApiError(404, "ENDPOINT_NOT_FOUND", "no route")
    status, code = FEATURE_OFF.get(name, (403, "FEATURE_DISABLED"))
    if v == "FEATURE_DISABLED" and code != "FEATURE_DISABLED":
        status, code = 403, "FEATURE_DISABLED"
    if code == "ENDPOINT_NOT_FOUND":
        raise ApiError(status, code, "no route")
    raise ApiError(status, code, "Feature %s is not enabled for this workspace." % name)

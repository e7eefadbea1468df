"""Routing of workspace API requests: the table of endpoints, the credential
check of /api/ calls, and the mapping of handler errors to error replies."""

from . import (api_experiments, api_files, api_identity, api_images, api_jobs, api_mlflow,
               api_policies, api_pools, api_registry, api_secrets, api_training)
from .replies import ApiError, error_resp

# (method, exact path) -> handler(state, request). HEAD also finds the GET route.
EXACT_ROUTES = {
    ("GET", "/api/2.0/preview/scim/v2/Me"): api_identity.scim_me,
    ("POST", "/api/2.0/ai-training/config:validate"): api_policies.preflight,
    ("GET", "/api/2.0/serverless-policies"): api_policies.list_policies,
    ("GET", "/api/2.0/workspace/get-status"): api_files.ws_get_status,
    ("POST", "/api/2.0/workspace/mkdirs"): api_files.ws_mkdirs,
    ("GET", "/api/2.0/workspace/export"): api_files.ws_export,
    ("POST", "/api/2.2/jobs/runs/submit"): api_jobs.runs_submit,
    ("GET", "/api/2.2/jobs/runs/get"): api_jobs.runs_get,
    ("GET", "/api/2.2/jobs/runs/get-output"): api_jobs.runs_get_output,
    ("GET", "/api/2.2/jobs/runs/list"): api_jobs.runs_list,
    ("POST", "/api/2.2/jobs/runs/cancel"): api_jobs.runs_cancel,
    ("GET", "/api/2.0/ai-training/workflows"): api_training.workflows,
    ("GET", "/api/2.0/mlflow/runs/get"): api_mlflow.mlflow_run,
    ("GET", "/api/2.0/mlflow/metrics/get-history"): api_mlflow.mlflow_history,
    ("GET", "/api/2.0/mlflow/artifacts/list"): api_mlflow.mlflow_list,
    ("GET", "/api/2.0/mlflow/artifacts/credentials-for-read"): api_mlflow.mlflow_creds,
    ("GET", "/api/2.0/ai-training/provisioned-capacities"): api_pools.pools_list,
    ("GET", "/api/2.0/ai-compute-manager/images:get"): api_images.image_get,
    ("POST", "/api/2.0/ai-compute-manager/images"): api_images.image_register,
    ("GET", "/api/2.0/ai-compute-manager/images:checkImageAccess"): api_images.image_access,
    ("GET", "/api/2.0/ai-compute-manager/compute-options"): api_images.compute_options,
    ("GET", "/api/2.0/secrets/scopes/list"): api_secrets.scopes_list,
    ("POST", "/api/2.0/secrets/scopes/create"): api_secrets.scopes_create,
    ("POST", "/api/2.0/secrets/put"): api_secrets.secrets_put,
    ("GET", "/api/2.0/secrets/list"): api_secrets.secrets_list,
    ("GET", "/api/2.0/mlflow/experiments/get-by-name"): api_experiments.get_by_name,
    ("POST", "/api/2.0/mlflow/experiments/create"): api_experiments.create,
    ("GET", api_registry.TOKEN_PATH): api_registry.token,
    ("GET", "/.well-known/databricks-config"): api_identity.host_metadata,
    ("GET", "/oidc/.well-known/oauth-authorization-server"): api_identity.oidc_discovery,
    ("POST", "/oidc/v1/token"): api_identity.oidc_token,
    ("HEAD", "/"): api_identity.host_probe,
}

# (method or "*", path prefix, handler), tried in order when no exact route
# matches; a GET prefix also serves HEAD.
PREFIX_ROUTES = [
    ("POST", api_files.IMPORT_PREFIX, api_files.ws_import),
    ("*", api_files.FS_FILES_PREFIX, api_files.fs_files),
    ("*", api_files.FS_DIRS_PREFIX, api_files.fs_dirs),
    ("GET", api_training.LOGS_PREFIX, api_training.logs),
    ("GET", api_pools.POOL_PREFIX, api_pools.pool_get),
    ("GET", api_mlflow.PRESIGNED_PREFIX, api_mlflow.presigned),
    ("*", api_experiments.PERMISSIONS_PREFIX, api_experiments.permissions),
    ("GET", api_registry.REGISTRY_PREFIX, api_registry.manifest),
]


def find_route(method, path):
    fn = EXACT_ROUTES.get((method, path))
    if fn is None and method == "HEAD":
        fn = EXACT_ROUTES.get(("GET", path))
    if fn is None:
        for m, pre, f in PREFIX_ROUTES:
            if (m == "*" or m == method or (method == "HEAD" and m == "GET")) \
                    and path.startswith(pre):
                return f
    return fn


def dispatch(st, req):
    """The reply to a workspace API request (faults already applied)."""
    if req.path.startswith("/api/"):
        with st.lock:
            ok = api_identity.authorized(st, req)
        if not ok:
            if "authorization" not in req.headers:
                return error_resp(401, "UNAUTHENTICATED",
                                  "Credential was not sent or was of an unsupported type for this API.")
            return error_resp(401, "UNAUTHENTICATED", "Invalid access token.")
    fn = find_route(req.method, req.path)
    if fn is None:
        return error_resp(404, "ENDPOINT_NOT_FOUND", "no route")
    try:
        return fn(st, req)
    except ApiError as e:
        return error_resp(e.status, e.code, e.message, e.headers)

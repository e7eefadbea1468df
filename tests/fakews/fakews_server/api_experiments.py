"""MLflow experiments by name (get-by-name, create) and their permissions
(PATCH, GET, permissionLevels). The configuration key "experiments" scripts
what the caller may grant ("grantable": the levels permissionLevels lists)
and refusals ("manage": false answers 403 to permissionLevels and PATCH)."""

import copy
import re

from .replies import ApiError, bad, json_resp

PERMISSIONS_PREFIX = "/api/2.0/permissions/experiments/"
LEVELS_PATH = re.compile(r"([^/]+)/permissionLevels")


def experiment_by_id(st, eid):
    for name, e in st.experiments.items():
        if e["experiment_id"] == eid:
            return name, e
    raise ApiError(404, "RESOURCE_DOES_NOT_EXIST", "Experiment with id '%s' does not exist." % eid)


def get_by_name(st, req):
    name = req.q("experiment_name")
    if not name:
        raise bad("experiment_name is required")
    with st.lock:
        e = st.experiments.get(name)
        if e is None:
            raise ApiError(404, "RESOURCE_DOES_NOT_EXIST",
                           "Could not find experiment with name %s" % name)
        return json_resp({"experiment": {"experiment_id": e["experiment_id"], "name": name,
                                         "lifecycle_stage": "active"}})


def create(st, req):
    b = req.json()
    name = b.get("name")
    if not isinstance(name, str) or not name:
        raise bad("name is required")
    with st.lock:
        if name in st.experiments:
            raise ApiError(400, "RESOURCE_ALREADY_EXISTS",
                           "Experiment '%s' already exists." % name)
        eid = st.add_experiment(name, b.get("artifact_location"))
    return json_resp({"experiment_id": eid})


def _refuse(st):
    if not st.config["experiments"].get("manage", True):
        raise ApiError(403, "PERMISSION_DENIED", "User %s does not have permission to manage "
                       "the permissions of this experiment." % st.config["user"])


def permissions(st, req):
    """PATCH merges access_control_list entries; GET shows them."""
    rest = req.path[len(PERMISSIONS_PREFIX):]
    m = LEVELS_PATH.fullmatch(rest)
    with st.lock:
        if m:
            if req.method != "GET":
                raise ApiError(404, "ENDPOINT_NOT_FOUND", "no route")
            experiment_by_id(st, m.group(1))
            _refuse(st)
            levels = st.config["experiments"].get("grantable") or []
            return json_resp({"permission_levels": [
                {"permission_level": lv, "description": "Can %s" % lv.lower()} for lv in levels]})
        _, e = experiment_by_id(st, rest)
        if req.method == "PATCH":
            _refuse(st)
            acl = req.json().get("access_control_list")
            if not isinstance(acl, list):
                raise bad("access_control_list must be a list")
            levels = st.config["experiments"].get("grantable") or []
            for entry in acl:
                if not isinstance(entry, dict) or entry.get("permission_level") not in levels:
                    raise ApiError(400, "INVALID_PARAMETER_VALUE", "Permission level %r cannot "
                                   "be granted on experiments" % (entry or {}).get(
                                       "permission_level"))
            e["acl"].extend(copy.deepcopy(acl))
        elif req.method != "GET":
            raise ApiError(404, "ENDPOINT_NOT_FOUND", "no route")
        return json_resp({"object_id": "/experiments/" + e["experiment_id"],
                          "object_type": "mlflowExperiment",
                          "access_control_list": copy.deepcopy(e["acl"])})

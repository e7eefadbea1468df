"""Secrets: scopes/list, scopes/create and put. The configuration key
"secrets" scripts the workspace's limits: "max_scopes" (scopes/create beyond
it: 400 RESOURCE_LIMIT_EXCEEDED), "can_create_scope" and "can_put" (false:
403 PERMISSION_DENIED)."""

from .replies import ApiError, bad, json_resp


def scopes_list(st, req):
    with st.lock:
        names = sorted(st.secret_scopes)
    return json_resp({"scopes": [{"name": n, "backend_type": "DATABRICKS"} for n in names]}
                     if names else {})


def scopes_create(st, req):
    b = req.json()
    name = b.get("scope")
    if not isinstance(name, str) or not name:
        raise bad("scope is required")
    with st.lock:
        rules = st.config["secrets"]
        if not rules.get("can_create_scope", True):
            raise ApiError(403, "PERMISSION_DENIED",
                           "User %s does not have permission to create secret scopes."
                           % st.config["user"])
        if name in st.secret_scopes:
            raise ApiError(400, "RESOURCE_ALREADY_EXISTS", "Scope %s already exists!" % name)
        limit = rules.get("max_scopes")
        if limit is not None and len(st.secret_scopes) >= limit:
            raise ApiError(400, "RESOURCE_LIMIT_EXCEEDED",
                           "Maximum number of secret scopes (%d) reached." % limit)
        st.secret_scopes[name] = {}
    return json_resp({})


def secrets_put(st, req):
    b = req.json()
    scope, key = b.get("scope"), b.get("key")
    with st.lock:
        if scope not in st.secret_scopes:
            raise ApiError(404, "RESOURCE_DOES_NOT_EXIST", "Scope %s does not exist!" % scope)
        if not isinstance(key, str) or not key:
            raise bad("key is required")
        if not st.config["secrets"].get("can_put", True):
            raise ApiError(403, "PERMISSION_DENIED",
                           "User %s does not have WRITE permission on scope %s."
                           % (st.config["user"], scope))
        st.secret_scopes[scope][key] = b.get("string_value", b.get("bytes_value"))
    return json_resp({})


def secrets_list(st, req):
    """The keys of a scope (metadata only: no value). A scope listed in the
    configuration's secrets.unreadable answers 403, as a scope without READ
    permission does."""
    scope = req.q("scope")
    if not scope:
        raise bad("scope is required")
    with st.lock:
        if scope not in st.secret_scopes:
            raise ApiError(404, "RESOURCE_DOES_NOT_EXIST", "Scope %s does not exist!" % scope)
        if scope in (st.config["secrets"].get("unreadable") or []):
            raise ApiError(403, "PERMISSION_DENIED",
                           "User %s does not have READ permission on scope %s."
                           % (st.config["user"], scope))
        keys = sorted(st.secret_scopes[scope])
    return json_resp({"secrets": [{"key": k, "last_updated_timestamp": 1700000000000}
                                  for k in keys]} if keys else {})

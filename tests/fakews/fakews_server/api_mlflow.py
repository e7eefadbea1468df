"""MLflow: runs/get (with the latest value of each metric), metrics/get-history
(paged), artifacts/list, credentials-for-read, and the pre-signed downloads
those credentials point at (/presigned/<run>/<path>, blob-store style)."""

import copy
import hashlib
import hmac
from urllib.parse import quote

from .paging import page_offset, paged
from .replies import ApiError, Resp, bad, json_resp

PRESIGNED_PREFIX = "/presigned/"


def mlflow_entry(st, req):
    """The (run id, entry) named by run_id or run_uuid (call under the lock)."""
    rid = req.q("run_id") or req.q("run_uuid")
    if not rid:
        raise bad("run_id is required")
    e = st.mlflow.get(rid)
    if e is None:
        raise ApiError(404, "RESOURCE_DOES_NOT_EXIST", "Run '%s' not found." % rid)
    return rid, e


def mlflow_run(st, req):
    with st.lock:
        rid, e = mlflow_entry(st, req)
        exp = str(e.get("experiment_id", "0"))
        info = {
            "run_id": rid,
            "run_uuid": rid,
            "run_name": e.get("run_name", ""),
            "experiment_id": exp,
            "user_id": e.get("user_id", st.config["user"]),
            "status": e.get("status", "FINISHED"),
            "start_time": e.get("start_time", 1700000000000),
            "artifact_uri": "dbfs:/databricks/mlflow-tracking/%s/%s/artifacts" % (exp, rid),
            "lifecycle_stage": "active",
        }
        if "end_time" in e:
            info["end_time"] = e["end_time"]
        data = copy.deepcopy(e.get("data", {}))
        store = e.get("metric_store")
        if store is not None and "metrics" not in data:
            latest = store.latest(st.config["mlflow_nonfinite"])
            if latest:
                data["metrics"] = latest
    return json_resp({"run": {"info": info, "data": data}})


def mlflow_history(st, req):
    """One page of a metric's history (max_results, page_token)."""
    key = req.q("metric_key")
    if not key:
        raise bad("metric_key is required")
    mr = req.q("max_results")
    try:
        max_results = None if mr is None else int(mr)
    except ValueError:
        raise bad("max_results must be an integer")
    with st.lock:
        _rid, e = mlflow_entry(st, req)
        store = e.get("metric_store")
        if store is None:
            return json_resp({})
        out = store.page(key, max_results, req.q("page_token"), st.config["mlflow_nonfinite"])
    return json_resp(out)


def mlflow_list(st, req):
    """The direct children of path; directories are derived from the artifact paths."""
    path = (req.q("path") or "").strip("/")
    off = page_offset(req, "art")
    with st.lock:
        rid, e = mlflow_entry(st, req)
        exp = str(e.get("experiment_id", "0"))
        size = max(1, int(st.config["artifacts_page_size"]))
        pre = path + "/" if path else ""
        seen = {}                         # child path -> size, None for a directory
        for p, data in e["artifacts"].items():
            if not p.startswith(pre):
                continue
            rest = p[len(pre):]
            if not rest:
                continue
            head, sep, _ = rest.partition("/")
            if sep:
                seen.setdefault(pre + head, None)
            else:
                seen[pre + head] = len(data)
    entries = []
    for p in sorted(seen):
        if seen[p] is None:
            entries.append({"path": p, "is_dir": True})
        else:
            entries.append({"path": p, "is_dir": False, "file_size": seen[p]})
    out = paged(entries, off, size, "files", "art")
    out["root_uri"] = "dbfs:/databricks/mlflow-tracking/%s/%s/artifacts" % (exp, rid)
    return json_resp(out)


def sign(st, rid, path):
    """The signature of a pre-signed URL (keyed by the server's per-process secret)."""
    msg = ("%s\n%s" % (rid, path)).encode()
    return hmac.new(st.secret, msg, hashlib.sha256).hexdigest()[:32]


def mlflow_creds(st, req):
    paths = req.query.get("path") or []
    if not paths:
        raise bad("path is required")
    with st.lock:
        rid, _e = mlflow_entry(st, req)
        headers = copy.deepcopy(st.config.get("presigned_headers") or [])
    infos = []
    for p in paths:
        p = p.strip("/")
        uri = "%s/presigned/%s/%s?sig=%s" % (req.base(), quote(rid, safe=""),
                                             quote(p, safe="/"), sign(st, rid, p))
        info = {"run_id": rid, "path": p, "signed_uri": uri, "type": "AZURE_SAS_URI"}
        if headers:
            info["headers"] = headers
        infos.append(info)
    return json_resp({"credential_infos": infos})


def presigned(st, req):
    """A pre-signed download: no credential, required headers, XML errors."""
    def xml(status, code, msg):
        body = ("<?xml version=\"1.0\" encoding=\"utf-8\"?><Error><Code>%s</Code>"
                "<Message>%s</Message></Error>" % (code, msg)).encode()
        return Resp(status, body, content_type="application/xml")
    if req.method not in ("GET", "HEAD"):
        return xml(405, "UnsupportedHttpVerb", "The resource doesn't support the HTTP verb.")
    if "authorization" in req.headers:
        return xml(400, "InvalidAuthenticationInfo",
                   "Only one auth mechanism allowed; an Authorization header is not accepted "
                   "with a signed URL.")
    rest = req.path[len(PRESIGNED_PREFIX):]
    rid, _, path = rest.partition("/")
    if not rid or not path or not hmac.compare_digest(req.q("sig", ""), sign(st, rid, path)):
        return xml(403, "AuthenticationFailed", "Signature did not match.")
    with st.lock:
        required = copy.deepcopy(st.config.get("presigned_headers") or [])
        e = st.mlflow.get(rid)
        data = e["artifacts"].get(path) if e else None
    for h in required:
        name = str(h.get("name", "")).lower()
        if req.headers.get(name) != h.get("value"):
            return xml(400, "MissingRequiredHeader",
                       "The required header %s: %s is missing." % (h.get("name"), h.get("value")))
    if data is None:
        return xml(404, "BlobNotFound", "The specified blob does not exist.")
    return Resp(200, data, content_type="application/octet-stream")

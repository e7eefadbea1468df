"""The control API under /__fakews/: health, reset, shutdown, configuration,
recorded requests, fault rules, and direct access to runs, files, MLflow,
policies, pools, images, secrets, experiments and the registry. Handled under the state lock; never
recorded and never subject to faults."""

import copy
import hashlib
import os
import re

from .paths import canonical_path, check_path, parent_of
from .replies import ApiError, Resp, bad, error_resp, json_resp
from .runs import apply_patch, create_run, run_info
from .values import id_key

# The reply of POST /__fakews/shutdown; the server stops after sending it.
SHUTDOWN_REPLY = json_resp({})

RUN_PATH = re.compile(r"/runs/([^/]+)(/logs|/output)?")
MLFLOW_METRICS_PATH = re.compile(r"/mlflow/([^/]+)/metrics")


def handle_control(st, req):
    """Answer a control request; a handler returning None means no such route."""
    p = req.path[len("/__fakews"):]
    try:
        with st.lock:
            fn = ROUTES.get(p)
            if fn is not None:
                resp = fn(st, req)
            elif RUN_PATH.fullmatch(p):
                resp = run_route(st, req, RUN_PATH.fullmatch(p))
            elif MLFLOW_METRICS_PATH.fullmatch(p):
                resp = mlflow_metrics(st, req, MLFLOW_METRICS_PATH.fullmatch(p).group(1))
            else:
                resp = None
            if resp is not None:
                return resp
    except ApiError as e:
        return error_resp(e.status, e.code, e.message)
    return error_resp(404, "ENDPOINT_NOT_FOUND", "no control route %s %s" % (req.method, req.path))


def health(st, req):
    return json_resp({"ok": True, "pid": os.getpid()})


def reset(st, req):
    if req.method == "POST":
        st.reset()
        return json_resp({})
    return None


def shutdown(st, req):
    return SHUTDOWN_REPLY if req.method == "POST" else None


def connections(st, req):
    if req.method == "GET":
        return json_resp({"open": st.conn_open, "max_open": st.conn_max,
                          "accepted": st.conn_accepted})
    return None


def config(st, req):
    if req.method == "POST":
        st.set_config(req.json(required=False))
    return json_resp(st.config_view())


def requests(st, req):
    """List (filters: since, method, path with a trailing *, bodies) or forget the records."""
    if req.method == "DELETE":
        st.requests = []
        return json_resp({})
    since = req.q_int("since", 0)
    method = req.q("method")
    path = req.q("path")
    bodies = req.q_bool("bodies", True)
    out = []
    for r in st.requests:
        if r["seq"] <= since or (method not in (None, "", "*") and r["method"] != method):
            continue
        if path and not (r["path"].startswith(path[:-1]) if path.endswith("*")
                         else r["path"] == path):
            continue
        if not bodies:
            r = {k: v for k, v in r.items() if k not in ("body", "body_b64")}
        out.append(r)
    return json_resp({"requests": out})


def faults(st, req):
    if req.method == "POST":
        return json_resp({"id": st.faults.add(req.json())})
    if req.method == "DELETE":
        st.faults.clear()
        return json_resp({})
    return json_resp({"faults": st.faults.rules})


def runs(st, req):
    if req.method == "POST":
        return json_resp({"run_id": create_run(st, req.json())})
    return json_resp({"runs": [run_info(st, r) for r in
                               sorted(st.runs.values(), key=lambda r: r.seq)]})


def run_route(st, req, mm):
    """/runs/<id>: get, patch, delete; /runs/<id>/logs and /output: add logs, set the output."""
    m = req.method
    rid = id_key(mm.group(1))
    run = st.runs.get(rid) if rid is not None else None
    if run is None:
        return error_resp(404, "RESOURCE_DOES_NOT_EXIST", "no run %s" % mm.group(1))
    sub = mm.group(2)
    if sub == "/logs" and m == "POST":
        b = req.json()
        if "records" in b:
            if not isinstance(b["records"], list):
                raise bad("records must be an array")
            run.logs.add_records(b["records"])
        if "synthetic" in b:
            syn = b["synthetic"]
            for s in (syn if isinstance(syn, list) else [syn]):
                run.logs.add_synthetic(s)
        return json_resp(run.logs.summary())
    if sub == "/output" and m == "POST":
        run.output = req.json(required=False)
        return json_resp({})
    if sub is None and m == "POST":
        apply_patch(st, run, req.json())
        return json_resp(run_info(st, run))
    if sub is None and m == "DELETE":
        st.delete_run(rid)
        return json_resp({})
    if sub is None and m == "GET":
        return json_resp(run_info(st, run))
    return None


def files(st, req):
    if req.method != "GET":
        return None
    out = [{"path": k, "size": len(v["data"]),
            "sha256": hashlib.sha256(v["data"]).hexdigest(),
            "kind": "volume" if k.startswith("/Volumes/") else "workspace"}
           for k, v in sorted(st.files.items())]
    return json_resp({"files": out, "dirs": sorted(st.dirs)})


def file(st, req):
    """POST stores the raw body (parents created), DELETE removes the file; any
    other method reads it."""
    path = req.q("path")
    if not path:
        raise bad("path is required")
    cp = canonical_path(path)
    if req.method == "POST":
        check_path(path)
        st.make_dirs(parent_of(cp))
        st.put_file(cp, req.body)
        return json_resp({})
    f = st.files.pop(cp, None) if req.method == "DELETE" else st.files.get(cp)
    if f is None:
        return error_resp(404, "RESOURCE_DOES_NOT_EXIST", "no file %s" % path)
    if req.method == "DELETE":
        return json_resp({})
    return Resp(200, f["data"], content_type="application/octet-stream")


def mlflow(st, req):
    if req.method == "POST":
        b = req.json()
        entries = b.get("runs", {})
        if not isinstance(entries, dict):
            raise bad("runs must be an object")
        for rid, e in entries.items():
            st.merge_mlflow(rid, e)
    return json_resp({"runs": {k: mlflow_view(v) for k, v in st.mlflow.items()}})


def mlflow_view(e):
    """An MLflow store entry as the control API shows it."""
    out = {k: v for k, v in e.items() if k not in ("artifacts", "metric_store")}
    out["artifacts"] = sorted(e["artifacts"])
    if "metric_store" in e:
        out["metric_history"] = e["metric_store"].summary()
    return out


def mlflow_metrics(st, req, rid):
    """POST appends points to the histories of MLflow run @rid (created when
    missing): {"metrics": {key: [{"value","step","timestamp"}]}, "synthetic":
    {"key","count",...}, "token_generation": N}; GET shows their sizes."""
    if req.method == "POST":
        st.mlflow_store(rid).add(req.json())
    elif req.method != "GET":
        return None
    e = st.mlflow.get(rid)
    if e is None or "metric_store" not in e:
        return json_resp({"metrics": {}, "token_generation": 0})
    return json_resp(e["metric_store"].summary())


def policies(st, req):
    if req.method != "POST":
        return None
    b = req.json()
    pol = b.get("policies", [])
    if not isinstance(pol, list):
        raise bad("policies must be an array")
    st.policies = copy.deepcopy(pol)
    st.policies_page_size = b.get("page_size")
    return json_resp({})


def pools(st, req):
    if req.method != "POST":
        return None
    b = req.json()
    items = b.get("pools", [])
    if not isinstance(items, list):
        raise bad("pools must be an array")
    st.pools = copy.deepcopy(items)
    st.pools_page_size = b.get("page_size")
    return json_resp({})


def images(st, req):
    if req.method == "POST":
        imgs = req.json().get("images", {})
        if not isinstance(imgs, dict):
            raise bad("images must be an object")
        for url, e in imgs.items():
            e = copy.deepcopy(e)
            # Scripted states start from PENDING unless a state is given.
            if isinstance(e.get("states"), list) and e["states"] and "state" not in e:
                e["state"] = "PENDING"
            st.images[url] = e
    return json_resp({"images": st.images})


def secrets(st, req):
    if req.method == "POST":
        scopes = req.json().get("scopes", {})
        if not isinstance(scopes, dict) or not all(isinstance(v, dict) for v in scopes.values()):
            raise bad("scopes must be an object of objects")
        for name, keys in scopes.items():
            st.secret_scopes.setdefault(name, {}).update(keys)
    return json_resp({"scopes": st.secret_scopes})


def experiments(st, req):
    """{"experiments": {name: {"artifact_location"?}}} creates experiments; GET
    shows them with their ids and granted access_control_list."""
    if req.method == "POST":
        exps = req.json().get("experiments", {})
        if not isinstance(exps, dict) or not all(isinstance(v, dict) for v in exps.values()):
            raise bad("experiments must be an object of objects")
        for name, e in exps.items():
            if name not in st.experiments:
                st.add_experiment(name, e.get("artifact_location"))
    return json_resp({"experiments": copy.deepcopy(st.experiments)})


def registry(st, req):
    """Merge {"repositories", "users", "anonymous", "token_auth"} into the registry."""
    if req.method == "POST":
        b = req.json()
        for k in ("repositories", "users"):
            if k in b:
                if not isinstance(b[k], dict):
                    raise bad("%s must be an object" % k)
                st.registry[k].update(copy.deepcopy(b[k]))
        for k in ("anonymous", "token_auth"):
            if k in b:
                st.registry[k] = bool(b[k])
    view = {k: v for k, v in st.registry.items() if k != "tokens"}
    return json_resp(view)


# Control path (after /__fakews) -> handler.
ROUTES = {
    "/health": health,
    "/reset": reset,
    "/shutdown": shutdown,
    "/config": config,
    "/connections": connections,
    "/requests": requests,
    "/faults": faults,
    "/runs": runs,
    "/files": files,
    "/file": file,
    "/mlflow": mlflow,
    "/policies": policies,
    "/pools": pools,
    "/images": images,
    "/secrets": secrets,
    "/experiments": experiments,
    "/registry": registry,
}

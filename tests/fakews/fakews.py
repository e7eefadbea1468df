#!/usr/bin/env python3
"""fakews: a fake Databricks workspace for libair's tests.

A stateful HTTP/1.1 server on 127.0.0.1 (standard library only) implementing
the workspace endpoints of PROTOCOL.md that libair uses, plus a control API
under /__fakews/. See README.md next to this file for the contract.
"""

import argparse
import base64
import bisect
import copy
import hashlib
import heapq
import hmac
import itertools
import json
import os
import re
import signal
import socket
import struct
import sys
import threading
import time
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, quote, unquote, unquote_plus

DEFAULT_USER = "tester@databricks.com"

ACTIVE_STATES = ("QUEUED", "PENDING", "RUNNING", "TERMINATING", "BLOCKED", "WAITING_FOR_RETRY")
TERMINAL_STATES = ("TERMINATED", "SKIPPED", "INTERNAL_ERROR")

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
        "logs_max_page_size": 10000,
        "logs_time_as_string": False,
        "list_page_size": 25,
        "get_page_size": 100,
        "workflows_page_size": 100,
        "artifacts_page_size": 1000,
        "oauth": {"clients": {}, "expires_in": 3600, "refresh_tokens": {}},
        "features": {"logs": True, "preflight": True, "workflows_index": True, "pools": True},
        "basic_auth": {},
        "host_metadata": None,
        "presigned_headers": [{"name": "x-ms-blob-type", "value": "BlockBlob"}],
        "compute_options": ["GPU_1xA10", "GPU_1xH100", "GPU_8xH100"],
        "record_requests": True,
        "next_run_id": 555,
    }


# Keys whose dict values are merged (recursively) rather than replaced.
MERGED_CONFIG_KEYS = ("lifecycle", "features", "oauth")


class ApiError(Exception):
    def __init__(self, status, code, message, headers=None):
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers or []


class Resp:
    __slots__ = ("status", "body", "headers", "content_type")

    def __init__(self, status=200, body=b"", headers=None, content_type=None):
        self.status = status
        self.body = body
        self.headers = headers or []
        self.content_type = content_type


def json_resp(obj, status=200, headers=None):
    return Resp(status, json.dumps(obj, separators=(",", ":")).encode(), headers, "application/json")


# The reply of POST /__fakews/shutdown; the server stops after sending it.
SHUTDOWN_REPLY = json_resp({})


def error_resp(status, code, message, headers=None):
    return json_resp({"error_code": code, "message": message}, status, headers)


def bad(message):
    return ApiError(400, "INVALID_PARAMETER_VALUE", message)


def now_ms():
    return int(time.time() * 1000)


def rfc3339(ms):
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms // 1000)) + ".%03dZ" % (ms % 1000)


def http_date(ms):
    return time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(ms // 1000))


def as_int(value, name, minimum=None):
    """An integer from a JSON number, a decimal string or a query value."""
    if isinstance(value, bool):
        raise bad("%s must be an integer" % name)
    if isinstance(value, int):
        n = value
    elif isinstance(value, str) and re.fullmatch(r"-?[0-9]+", value.strip()):
        n = int(value.strip())
    else:
        raise bad("%s must be an integer, got %r" % (name, value))
    if minimum is not None and n < minimum:
        raise bad("%s must be >= %d" % (name, minimum))
    return n


def id_key(value):
    """Integer key of a run id given as a number or a string; None if invalid."""
    try:
        return as_int(value, "run_id")
    except ApiError:
        return None


def encode_token(obj):
    raw = json.dumps(obj, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_token(tok):
    try:
        pad = "=" * (-len(tok) % 4)
        obj = json.loads(base64.urlsafe_b64decode(tok + pad))
        if not isinstance(obj, dict):
            raise ValueError
        return obj
    except Exception:
        raise bad("invalid page_token %r" % tok)


def merge(dst, src):
    for k, v in src.items():
        if isinstance(v, dict) and isinstance(dst.get(k), dict):
            merge(dst[k], v)
        else:
            dst[k] = copy.deepcopy(v)


def canonical_path(p):
    """Workspace paths: /Users/x -> /Workspace/Users/x; /Volumes and /Workspace kept."""
    if p == "/Workspace" or p.startswith("/Workspace/") or p == "/Volumes" or p.startswith("/Volumes/"):
        return p
    if p == "/":
        return "/Workspace"
    return "/Workspace" + p


def check_path(p, name="path"):
    if not isinstance(p, str) or not p.startswith("/"):
        raise bad("%s must be an absolute path, got %r" % (name, p))
    if p != "/" and (p.endswith("/") or "//" in p or "/./" in p or "/../" in p
                     or p.endswith("/.") or p.endswith("/..")):
        raise bad("%s is not a normalised path: %r" % (name, p))
    return p


def parent_of(p):
    return p.rsplit("/", 1)[0] or "/"


def nodes_of(task):
    """Node count of an ai_runtime_task deployment (GPU_8x* = 8 GPUs per node)."""
    try:
        comp = task["ai_runtime_task"]["deployments"][0]["compute"]
        count = int(comp.get("accelerator_count", 1))
        per = 8 if "8x" in str(comp.get("accelerator_type", "")) else 1
        return max(1, count // per)
    except Exception:
        return 1


def is_air_run(obj):
    tasks = obj.get("tasks") or []
    if not tasks or not isinstance(tasks[0], dict):
        return False
    t = tasks[0]
    if isinstance(t.get("for_each_task"), dict):
        t = t["for_each_task"].get("task") or {}
    if "ai_runtime_task" in t:
        return True
    g = t.get("gen_ai_compute_task")
    return isinstance(g, dict) and bool(g.get("training_script_path"))


# ---------------------------------------------------------------------------
# Logs: explicit records plus lazily generated synthetic blocks


class LogStore:
    """Log records of one run.

    Explicit records live in sorted lists per (node, attempt): (T, seq, body, raw T).
    Synthetic blocks are arithmetic sequences generated on demand. Every record
    has a total-order key (T, block, tie): block 0 = explicit records (tie =
    insertion seq), block k = synthetic block k (tie = index in the block).
    Page tokens carry the key of the last record served.
    """

    def __init__(self):
        self.explicit = {}
        self.blocks = []
        self.seq = 0

    def add_records(self, records):
        for r in records:
            if not isinstance(r, dict):
                raise bad("log records must be objects")
            raw = r.get("time_unix_nano", 0)
            try:
                t = as_int(raw, "time_unix_nano")
            except ApiError:
                t = 0
            body = r.get("body", "")
            if not isinstance(body, str):
                raise bad("log record body must be a string")
            node = as_int(r.get("node_index", 0), "node_index", 0)
            attempt = as_int(r.get("attempt", 0), "attempt", 0)
            self.seq += 1
            bisect.insort(self.explicit.setdefault((node, attempt), []), (t, self.seq, body, raw))

    def add_synthetic(self, s):
        if not isinstance(s, dict):
            raise bad("synthetic must be an object")
        blk = {
            "count": as_int(s.get("count", 0), "count", 0),
            "start_ns": as_int(s.get("start_ns", 0), "start_ns", 0),
            "step_ns": as_int(s.get("step_ns", 1000000), "step_ns", 0),
            "node_index": as_int(s.get("node_index", 0), "node_index", 0),
            "attempt": as_int(s.get("attempt", 0), "attempt", 0),
            "text": s.get("text", "step {i}"),
        }
        if not isinstance(blk["text"], str):
            raise bad("synthetic text must be a string")
        self.blocks.append(blk)

    def summary(self):
        return {
            "records": sum(len(v) for v in self.explicit.values()),
            "synthetic": copy.deepcopy(self.blocks),
        }

    def snapshot(self, node, attempt):
        """Sources for one (node, attempt), taken under the state lock."""
        srcs = []
        lst = self.explicit.get((node, attempt))
        if lst:
            srcs.append((0, list(lst), None))
        for k, blk in enumerate(self.blocks):
            if blk["node_index"] == node and blk["attempt"] == attempt and blk["count"] > 0:
                srcs.append((k + 1, None, blk))
        return srcs


def _source_fns(src, node, as_string):
    bid, lst, blk = src
    if lst is not None:
        def key(i):
            e = lst[i]
            return (e[0], 0, e[1])

        def rec(i):
            e = lst[i]
            return {"time_unix_nano": e[3], "body": e[2], "node_index": node}
        return len(lst), key, rec
    start, step, text = blk["start_ns"], blk["step_ns"], blk["text"]
    attempt = str(blk["attempt"])

    def key(i):
        return (start + i * step, bid, i)

    def rec(i):
        t = start + i * step
        body = text.replace("{i}", str(i)).replace("{node}", str(node)).replace("{attempt}", attempt)
        return {"time_unix_nano": str(t) if as_string else t, "body": body, "node_index": node}
    return blk["count"], key, rec


def _first_above(n, key, bound):
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi) // 2
        if key(mid) > bound:
            hi = mid
        else:
            lo = mid + 1
    return lo


def _last_below(n, key, bound):
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi) // 2
        if key(mid) < bound:
            lo = mid + 1
        else:
            hi = mid
    return lo - 1


def log_page(srcs, node, lo_ns, hi_ns, ascending, cursor, limit, as_string):
    """Up to @limit records with lo_ns <= T < hi_ns after @cursor; returns (records, next cursor)."""
    its = []
    for src in srcs:
        n, key, rec = _source_fns(src, node, as_string)
        if ascending:
            bound = (lo_ns, -1, -1)
            if cursor is not None and cursor > bound:
                bound = cursor
            i = _first_above(n, key, bound)
            if i < n and key(i)[0] < hi_ns:
                its.append([i, n, key, rec])
        else:
            bound = (hi_ns, -1, -1)
            if cursor is not None and cursor < bound:
                bound = cursor
            i = _last_below(n, key, bound)
            if i >= 0 and key(i)[0] >= lo_ns:
                its.append([i, n, key, rec])
    out = []
    last_key = None
    want = limit + 1
    if len(its) == 1:
        i, n, key, rec = its[0]
        while len(out) < want and 0 <= i < n:
            k = key(i)
            if (ascending and k[0] >= hi_ns) or (not ascending and k[0] < lo_ns):
                break
            out.append((k, rec, i))
            i += 1 if ascending else -1
    else:
        heap = []
        for idx, it in enumerate(its):
            k = it[2](it[0])
            heap.append((k if ascending else tuple(-x for x in k), idx))
        heapq.heapify(heap)
        while heap and len(out) < want:
            hk, idx = heapq.heappop(heap)
            it = its[idx]
            i, n, key, rec = it
            k = key(i)
            out.append((k, rec, i))
            i += 1 if ascending else -1
            it[0] = i
            if 0 <= i < n:
                k2 = key(i)
                if (ascending and k2[0] < hi_ns) or (not ascending and k2[0] >= lo_ns):
                    heapq.heappush(heap, (k2 if ascending else tuple(-x for x in k2), idx))
    more = len(out) > limit
    out = out[:limit]
    if more and out:
        last_key = out[-1][0]
    return [rec(i) for (_k, rec, i) in out], last_key


# ---------------------------------------------------------------------------
# Runs


class Run:
    def __init__(self, rid, obj, seq, created):
        self.rid = rid                # integer key
        self.obj = obj                # stored run object (static part)
        self.seq = seq
        self.created_ms = created
        self.life = None              # lifecycle parameters + t0 while time-driven
        self.cancelled_ms = None
        self.submitted = None
        self.token = None
        self.submits = 0
        self.cancels = 0
        self.output = None
        self.sequence = []
        self.logs = LogStore()
        self.mlflow = None            # (experiment_id, mlflow_run_id)


def life_state(run, now):
    L = run.life
    start = L["t0"] + int(L.get("pending_ms", 0))
    end = start + int(L.get("running_ms", 0))
    c = run.cancelled_ms
    if c is not None and c < end:
        return ("TERMINATED", "CANCELED", "Run cancelled.", start if c >= start else 0, c)
    if now < start:
        return ("PENDING", None, "", 0, 0)
    if now < end:
        return ("RUNNING", None, "", start, 0)
    result = L.get("result", "SUCCESS")
    if result in ("INTERNAL_ERROR", "SKIPPED"):
        return (result, "FAILED" if result == "INTERNAL_ERROR" else None,
                L.get("state_message", ""), start, end)
    return ("TERMINATED", result, L.get("state_message", ""), start, end)


def run_view(run, now):
    v = copy.deepcopy(run.obj)
    if run.life is not None:
        lcs, rs, msg, st, et = life_state(run, now)
        state = {"life_cycle_state": lcs, "state_message": msg,
                 "user_cancelled_or_timedout": rs == "CANCELED"}
        if rs:
            state["result_state"] = rs
        v["state"] = state
        v["start_time"] = st
        v["end_time"] = et
        for t in v.get("tasks") or []:
            if isinstance(t, dict):
                t["state"] = copy.deepcopy(state)
                t["start_time"] = st
                t["end_time"] = et
    return v


def view_terminal(v):
    st = v.get("state") or {}
    return st.get("life_cycle_state") in TERMINAL_STATES or \
        st.get("result_state") in ("SUCCESS", "FAILED", "CANCELED", "TIMEDOUT")


# ---------------------------------------------------------------------------
# State


class State:
    def __init__(self, defaults):
        self.lock = threading.RLock()
        self.defaults = defaults
        self.secret = os.urandom(16)
        self.reset()

    def reset(self):
        with self.lock:
            self.config = copy.deepcopy(self.defaults)
            self.next_id = int(self.config.pop("next_run_id"))
            self.next_job_id = 1001
            self.runs = {}
            self.task_index = {}
            self.tokens = {}
            self.run_seq = 0
            self.dirs = set()
            self.files = {}
            self.object_id = 1000
            self.mlflow = {}
            self.policies = []
            self.policies_page_size = None
            self.pools = []
            self.pools_page_size = None
            self.images = {}
            self.secret_scopes = {}
            self.requests = []
            self.req_seq = 0
            self.faults = []
            self.fault_seq = 0
            self.oauth_tokens = {}
            self.at_counter = 0
            self.rt_counter = 0
            self.base_dirs()

    def base_dirs(self):
        for d in ("/Workspace", "/Workspace/Users", "/Workspace/Shared", "/Workspace/Repos",
                  "/Volumes", "/Workspace/Users/" + self.config["user"]):
            self.dirs.add(d)

    # -- ids -------------------------------------------------------------
    def alloc_id(self):
        while self.next_id in self.runs or self.next_id in self.task_index:
            self.next_id += 1
        rid = self.next_id
        self.next_id += 1
        return rid

    def index_tasks(self, run):
        for k in [k for k, v in self.task_index.items() if v == run.rid]:
            del self.task_index[k]
        for t in run.obj.get("tasks") or []:
            if isinstance(t, dict):
                k = id_key(t.get("run_id"))
                if k is not None:
                    self.task_index[k] = run.rid

    def add_run(self, rid, obj):
        self.run_seq += 1
        run = Run(rid, obj, self.run_seq, now_ms())
        self.runs[rid] = run
        for t in obj.get("tasks") or []:
            if isinstance(t, dict) and "run_id" not in t:
                t["run_id"] = self.alloc_id()
            if isinstance(t, dict):
                t.setdefault("attempt_number", 0)
        self.index_tasks(run)
        return run

    def attach_mlflow(self, run):
        tasks = run.obj.get("tasks") or []
        if not tasks or not isinstance(tasks[0], dict) or "ai_runtime_task" not in tasks[0]:
            return
        art = tasks[0]["ai_runtime_task"] if isinstance(tasks[0]["ai_runtime_task"], dict) else {}
        exp = str(3000000000000000 + run.rid)
        mrun = hashlib.md5(("fakews-%d" % run.rid).encode()).hexdigest()
        run.mlflow = (exp, mrun)
        if mrun not in self.mlflow:
            self.mlflow[mrun] = {
                "experiment_id": exp,
                "run_name": art.get("mlflow_run") or art.get("experiment") or "run",
                "artifacts": {},
            }

    # -- files -----------------------------------------------------------
    def is_dir(self, p):
        return p in self.dirs

    def make_dirs(self, p):
        parts = p.split("/")
        for i in range(2, len(parts) + 1):
            d = "/".join(parts[:i])
            if d in self.files:
                raise ApiError(400, "RESOURCE_ALREADY_EXISTS",
                               "Path (%s) already exists and is not a directory." % d)
            if d not in self.dirs:
                self.dirs.add(d)

    def put_file(self, p, data):
        self.object_id += 1
        self.files[p] = {"data": data, "mtime": now_ms(), "id": self.object_id}

    # -- config ----------------------------------------------------------
    def config_view(self):
        c = copy.deepcopy(self.config)
        c["next_run_id"] = self.next_id
        return c

    def set_config(self, patch):
        if not isinstance(patch, dict):
            raise bad("config must be an object")
        known = default_config()
        for k in patch:
            if k not in known:
                raise bad("unknown config key %r" % k)
        for k, v in patch.items():
            if k == "next_run_id":
                self.next_id = as_int(v, "next_run_id", 1)
            elif k in MERGED_CONFIG_KEYS and isinstance(v, dict):
                merge(self.config[k], v)
            else:
                self.config[k] = copy.deepcopy(v)
        if "user" in patch:
            self.base_dirs()

    # -- requests and faults --------------------------------------------
    def record(self, req):
        if not self.config.get("record_requests", True):
            return None
        self.req_seq += 1
        entry = {
            "seq": self.req_seq,
            "method": req.method,
            "path": req.path,
            "raw_path": req.raw_path,
            "query": req.query,
            "headers": req.headers,
            "body": req.body_text(),
            "body_b64": base64.b64encode(req.body).decode(),
            "status": None,
            "time_ms": req.time_ms,
            "fault": None,
        }
        self.requests.append(entry)
        return entry

    def match_fault(self, req):
        for rule in self.faults:
            m = rule["method"]
            if m != "*" and m.upper() != req.method:
                continue
            p = rule["path"]
            if p.endswith("*"):
                pre = p[:-1]
                if not (req.path.startswith(pre) or req.raw_path.startswith(pre)):
                    continue
            elif p != req.path and p != req.raw_path:
                continue
            q = rule.get("query")
            if q and any(req.query.get(k, [None])[0] != str(v) for k, v in q.items()):
                continue
            bc = rule.get("body_contains")
            if bc and bc.encode() not in req.body:
                continue
            rule["seen"] += 1
            if rule["seen"] <= rule["after"]:
                continue
            if rule["times"] != -1 and rule["applied"] >= rule["times"]:
                continue
            rule["applied"] += 1
            return copy.deepcopy(rule)
        return None

    def add_fault(self, r):
        if not isinstance(r, dict):
            raise bad("fault rule must be an object")
        action = r.get("action", "status")
        if action not in ("status", "reset_before", "reset_after", "delay"):
            raise bad("unknown fault action %r" % action)
        path = r.get("path")
        if not isinstance(path, str) or not path:
            raise bad("fault rule needs a path")
        self.fault_seq += 1
        rule = {
            "id": self.fault_seq,
            "method": str(r.get("method", "*")),
            "path": path,
            "action": action,
            "status": as_int(r.get("status", 500), "status", 100),
            "body": r.get("body"),
            "headers": r.get("headers") or {},
            "content_type": r.get("content_type"),
            "times": as_int(r.get("times", 1), "times", -1),
            "after": as_int(r.get("after", 0), "after", 0),
            "delay_ms": as_int(r.get("delay_ms", 0), "delay_ms", 0),
            "query": r.get("query"),
            "body_contains": r.get("body_contains"),
            "seen": 0,
            "applied": 0,
        }
        if rule["query"] is not None and not isinstance(rule["query"], dict):
            raise bad("fault query must be an object")
        if not isinstance(rule["headers"], dict):
            raise bad("fault headers must be an object")
        self.faults.append(rule)
        return rule["id"]


# ---------------------------------------------------------------------------
# Requests


class Req:
    __slots__ = ("method", "path", "raw_path", "query", "headers", "body", "time_ms", "host")

    def __init__(self, method, path, raw_path, query, headers, body, host):
        self.method = method
        self.path = path
        self.raw_path = raw_path
        self.query = query
        self.headers = headers
        self.body = body
        self.time_ms = now_ms()
        self.host = host

    def q(self, name, default=None):
        v = self.query.get(name)
        return v[0] if v else default

    def q_int(self, name, default=None, minimum=None):
        v = self.q(name)
        if v is None or v == "":
            return default
        return as_int(v, name, minimum)

    def q_bool(self, name, default=False):
        v = self.q(name)
        if v is None or v == "":
            return default
        if v.lower() == "true":
            return True
        if v.lower() == "false":
            return False
        raise bad("%s must be true or false, got %r" % (name, v))

    def body_text(self):
        try:
            return self.body.decode("utf-8")
        except UnicodeDecodeError:
            return None

    def json(self, required=True):
        if not self.body.strip():
            if required:
                raise bad("request body must be a JSON object")
            return {}
        try:
            obj = json.loads(self.body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as e:
            raise bad("malformed JSON body: %s" % e)
        if not isinstance(obj, dict):
            raise bad("request body must be a JSON object")
        return obj

    def base(self):
        return "http://" + self.host


# ---------------------------------------------------------------------------
# The workspace API


class App:
    def __init__(self, state):
        self.st = state
        self.exact = {}
        self.prefix = []
        r = self.route
        r("GET", "/api/2.0/preview/scim/v2/Me", self.scim_me)
        r("POST", "/api/2.0/ai-training/config:validate", self.preflight)
        r("GET", "/api/2.0/serverless-policies", self.list_policies)
        r("GET", "/api/2.0/workspace/get-status", self.ws_get_status)
        r("POST", "/api/2.0/workspace/mkdirs", self.ws_mkdirs)
        r("GET", "/api/2.0/workspace/export", self.ws_export)
        r("POST", "/api/2.2/jobs/runs/submit", self.runs_submit)
        r("GET", "/api/2.2/jobs/runs/get", self.runs_get)
        r("GET", "/api/2.2/jobs/runs/get-output", self.runs_get_output)
        r("GET", "/api/2.2/jobs/runs/list", self.runs_list)
        r("POST", "/api/2.2/jobs/runs/cancel", self.runs_cancel)
        r("GET", "/api/2.0/ai-training/workflows", self.workflows)
        r("GET", "/api/2.0/mlflow/runs/get", self.mlflow_run)
        r("GET", "/api/2.0/mlflow/artifacts/list", self.mlflow_list)
        r("GET", "/api/2.0/mlflow/artifacts/credentials-for-read", self.mlflow_creds)
        r("GET", "/api/2.0/ai-training/provisioned-capacities", self.pools_list)
        r("GET", "/api/2.0/ai-compute-manager/images:get", self.image_get)
        r("POST", "/api/2.0/ai-compute-manager/images", self.image_register)
        r("GET", "/api/2.0/ai-compute-manager/images:checkImageAccess", self.image_access)
        r("GET", "/api/2.0/ai-compute-manager/compute-options", self.compute_options)
        r("GET", "/api/2.0/secrets/scopes/list", self.scopes_list)
        r("POST", "/api/2.0/secrets/scopes/create", self.scopes_create)
        r("POST", "/api/2.0/secrets/put", self.secrets_put)
        r("GET", "/.well-known/databricks-config", self.host_metadata)
        r("GET", "/oidc/.well-known/oauth-authorization-server", self.oidc_discovery)
        r("POST", "/oidc/v1/token", self.oidc_token)
        r("HEAD", "/", lambda req: Resp(200))
        self.prefix = [
            ("POST", "/api/2.0/workspace-files/import-file/", self.ws_import),
            ("*", "/api/2.0/fs/files/", self.fs_files),
            ("*", "/api/2.0/fs/directories/", self.fs_dirs),
            ("GET", "/api/2.0/ai-training/workflows/by-run-id/", self.logs),
            ("GET", "/api/2.0/ai-training/provisioned-capacities/", self.pool_get),
            ("GET", "/presigned/", self.presigned),
        ]

    def route(self, method, path, fn):
        self.exact[(method, path)] = fn

    # -- dispatch --------------------------------------------------------
    def dispatch(self, req):
        st = self.st
        if req.path.startswith("/api/"):
            with st.lock:
                ok = self.authorized(req)
            if not ok:
                if "authorization" not in req.headers:
                    return error_resp(401, "UNAUTHENTICATED",
                                      "Credential was not sent or was of an unsupported type for this API.")
                return error_resp(401, "UNAUTHENTICATED", "Invalid access token.")
        fn = self.exact.get((req.method, req.path))
        if fn is None and req.method == "HEAD":
            fn = self.exact.get(("GET", req.path))
        if fn is None:
            for m, pre, f in self.prefix:
                if (m == "*" or m == req.method or (req.method == "HEAD" and m == "GET")) \
                        and req.path.startswith(pre):
                    fn = f
                    break
        if fn is None:
            return error_resp(404, "ENDPOINT_NOT_FOUND", "no route")
        try:
            return fn(req)
        except ApiError as e:
            return error_resp(e.status, e.code, e.message, e.headers)

    def authorized(self, req):
        cfg = self.st.config
        tokens = cfg.get("tokens") or []
        if not tokens:
            return True
        auth = req.headers.get("authorization", "")
        scheme, _, cred = auth.partition(" ")
        cred = cred.strip()
        if scheme.lower() == "bearer" and cred:
            if cred in tokens:
                return True
            exp = self.st.oauth_tokens.get(cred)
            return exp is not None and now_ms() < exp
        if scheme.lower() == "basic" and cred:
            try:
                user, _, pw = base64.b64decode(cred).decode("utf-8").partition(":")
            except Exception:
                return False
            return (cfg.get("basic_auth") or {}).get(user) == pw
        return False

    def feature(self, name):
        v = self.st.config["features"].get(name, True)
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

    # -- identity, auth ---------------------------------------------------
    def scim_me(self, req):
        with self.st.lock:
            user = self.st.config["user"]
            org = self.st.config["org_id"]
        body = {
            "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"],
            "id": "7000000000000001",
            "userName": user,
            "displayName": user.split("@")[0],
            "active": True,
            "emails": [{"type": "work", "value": user, "primary": True}],
        }
        excl = ",".join(req.query.get("excludedAttributes", []))
        if "entitlements" not in excl:
            body["entitlements"] = [{"value": "workspace-access"}]
        headers = []
        if org is not None:
            headers.append(("X-Databricks-Org-Id", str(org)))
        return json_resp(body, headers=headers)

    def host_metadata(self, req):
        with self.st.lock:
            md = copy.deepcopy(self.st.config.get("host_metadata"))
        if md is None:
            return error_resp(404, "ENDPOINT_NOT_FOUND", "no route")
        return json_resp(md)

    def oidc_discovery(self, req):
        b = req.base()
        return json_resp({
            "issuer": b + "/oidc",
            "authorization_endpoint": b + "/oidc/v1/authorize",
            "token_endpoint": b + "/oidc/v1/token",
            "jwks_uri": b + "/oidc/jwks.json",
            "grant_types_supported": ["client_credentials", "authorization_code", "refresh_token"],
            "response_types_supported": ["code"],
            "scopes_supported": ["all-apis", "offline_access", "sql"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "none"],
        })

    def oidc_token(self, req):
        def oerr(status, code, desc):
            return json_resp({"error": code, "error_description": desc}, status)
        try:
            text = req.body.decode("utf-8")
        except UnicodeDecodeError:
            return oerr(400, "invalid_request", "body is not form-encoded text")
        form = {k: v[0] for k, v in parse_qs(text, keep_blank_values=True).items()}
        grant = form.get("grant_type")
        st = self.st
        with st.lock:
            oauth = st.config["oauth"]
            expires_in = int(oauth.get("expires_in", 3600))
            if grant == "client_credentials":
                cid, secret = form.get("client_id"), form.get("client_secret")
                auth = req.headers.get("authorization", "")
                if auth.lower().startswith("basic "):
                    try:
                        dec = base64.b64decode(auth[6:].strip()).decode("utf-8")
                    except Exception:
                        return oerr(401, "invalid_client", "malformed Basic credentials")
                    c, _, s = dec.partition(":")
                    cid, secret = unquote_plus(c), unquote_plus(s)
                clients = oauth.get("clients") or {}
                if cid is None or cid not in clients or clients[cid] != secret:
                    return oerr(401, "invalid_client", "Client authentication failed")
                scope = form.get("scope", "all-apis")
                tok = self.issue_token(expires_in)
                return json_resp({"access_token": tok, "token_type": "Bearer",
                                  "expires_in": expires_in, "scope": scope})
            if grant == "refresh_token":
                if form.get("client_id") != "databricks-cli":
                    return oerr(401, "invalid_client", "unknown client_id %r" % form.get("client_id"))
                rts = oauth.get("refresh_tokens") or {}
                rt = form.get("refresh_token")
                if isinstance(rts, list):
                    rts = {k: {} for k in rts}
                if not rt or rt not in rts:
                    return oerr(400, "invalid_grant", "Refresh token is invalid or expired")
                over = rts[rt] if isinstance(rts[rt], dict) else {}
                tok = over.get("access_token") or self.issue_token(expires_in)
                if over.get("access_token"):
                    st.oauth_tokens[tok] = now_ms() + expires_in * 1000
                if "refresh_token" in over:
                    new_rt = over["refresh_token"]
                else:
                    st.rt_counter += 1
                    new_rt = "rt-%d" % st.rt_counter
                if new_rt and new_rt not in rts:
                    if isinstance(oauth.get("refresh_tokens"), list):
                        oauth["refresh_tokens"].append(new_rt)
                    else:
                        oauth.setdefault("refresh_tokens", {})[new_rt] = {}
                body = {"access_token": tok, "token_type": "Bearer", "expires_in": expires_in,
                        "scope": "all-apis offline_access"}
                if new_rt:
                    body["refresh_token"] = new_rt
                return json_resp(body)
        return oerr(400, "unsupported_grant_type", "grant_type %r is not supported" % grant)

    def issue_token(self, expires_in):
        st = self.st
        st.at_counter += 1
        tok = "at-%d" % st.at_counter
        st.oauth_tokens[tok] = now_ms() + expires_in * 1000
        return tok

    # -- pre-flight, policies ------------------------------------------
    def preflight(self, req):
        body = req.json()
        with self.st.lock:
            self.feature("preflight")
            reply = copy.deepcopy(self.st.config["preflight"])
        if not isinstance(body.get("task"), dict):
            raise bad("task is required")
        return json_resp(reply)

    def list_policies(self, req):
        size = req.q_int("page_size", 1000, 1)
        if size > 1000:
            raise bad("page_size must be <= 1000")
        name = (req.q("filter_by.policy_name") or "").strip().lower()
        off = self.offset(req, "policies")
        with self.st.lock:
            if self.st.policies_page_size:
                size = min(size, self.st.policies_page_size)
            pol = [copy.deepcopy(p) for p in self.st.policies
                   if name in str(p.get("policy_name", "")).lower()]
        return json_resp(self.paged(pol, off, size, "policies", "policies"))

    def offset(self, req, kind):
        tok = req.q("page_token")
        if not tok:
            return 0
        t = decode_token(tok)
        if t.get("k") != kind or not isinstance(t.get("o"), int) or t["o"] < 0:
            raise bad("invalid page_token %r" % tok)
        return t["o"]

    def paged(self, items, off, size, key, kind):
        page = items[off:off + size]
        out = {}
        if page:
            out[key] = page
        if off + size < len(items):
            out["next_page_token"] = encode_token({"k": kind, "o": off + size})
        return out

    # -- workspace ------------------------------------------------------
    def ws_path(self, req, name="path"):
        p = req.q(name)
        if p is None or p == "":
            raise bad("%s is required" % name)
        check_path(p, name)
        return p

    def ws_get_status(self, req):
        p = self.ws_path(req)
        req.q_bool("return_export_info")
        cp = canonical_path(p)
        with self.st.lock:
            if cp in self.st.dirs:
                return json_resp({"object_type": "DIRECTORY", "path": p,
                                  "object_id": int(hashlib.sha256(cp.encode()).hexdigest()[:12], 16)})
            f = self.st.files.get(cp)
            if f is None:
                raise ApiError(404, "RESOURCE_DOES_NOT_EXIST", "Path (%s) doesn't exist." % p)
            return json_resp({"object_type": "FILE", "path": p, "object_id": f["id"],
                              "size": len(f["data"]), "created_at": f["mtime"],
                              "modified_at": f["mtime"]})

    def ws_mkdirs(self, req):
        body = req.json()
        p = body.get("path")
        check_path(p)
        cp = canonical_path(p)
        if cp.startswith("/Volumes"):
            raise bad("Path (%s) is not a workspace path." % p)
        with self.st.lock:
            self.st.make_dirs(cp)
        return json_resp({})

    def ws_import(self, req):
        rest = req.raw_path[len("/api/2.0/workspace-files/import-file/"):]
        p = "/" + unquote(rest)
        check_path(p)
        overwrite = req.q_bool("overwrite")
        cp = canonical_path(p)
        if cp.startswith("/Volumes"):
            raise bad("Path (%s) is not a workspace path; use the Files API." % p)
        with self.st.lock:
            par = parent_of(cp)
            if par not in self.st.dirs:
                raise ApiError(404, "RESOURCE_DOES_NOT_EXIST",
                               "The parent folder (%s) does not exist." % parent_of(p))
            if cp in self.st.dirs:
                raise ApiError(400, "RESOURCE_ALREADY_EXISTS",
                               "Path (%s) already exists as a directory." % p)
            if cp in self.st.files and not overwrite:
                raise ApiError(409, "RESOURCE_ALREADY_EXISTS", "Path (%s) already exists." % p)
            self.st.put_file(cp, req.body)
        return json_resp({})

    def ws_export(self, req):
        p = self.ws_path(req)
        direct = req.q_bool("direct_download")
        cp = canonical_path(p)
        with self.st.lock:
            if cp in self.st.dirs:
                raise bad("Path (%s) is a directory." % p)
            f = self.st.files.get(cp)
            if f is None:
                raise ApiError(404, "RESOURCE_DOES_NOT_EXIST", "Path (%s) doesn't exist." % p)
            data = f["data"]
        if direct:
            return Resp(200, data, content_type="application/octet-stream")
        return json_resp({"content": base64.b64encode(data).decode(), "file_type": p.rsplit(".", 1)[-1]})

    def fs_target(self, req, prefix):
        rest = req.raw_path[len(prefix) - 1:]
        p = unquote(rest)
        check_path(p)
        if not (p.startswith("/Volumes/") or p.startswith("/Workspace/")):
            raise bad("Files API paths start with /Volumes/ or /Workspace/: %r" % p)
        return p

    def fs_files(self, req):
        p = self.fs_target(req, "/api/2.0/fs/files/")
        st = self.st
        with st.lock:
            if req.method in ("HEAD", "GET"):
                f = st.files.get(p)
                if f is None:
                    raise ApiError(404, "NOT_FOUND", "The file %s does not exist." % p)
                return Resp(200, f["data"], [("Last-Modified", http_date(f["mtime"]))],
                            "application/octet-stream")
            if req.method == "PUT":
                overwrite = req.q_bool("overwrite")
                if p in st.dirs:
                    raise ApiError(409, "ALREADY_EXISTS", "%s is a directory." % p)
                if p in st.files and not overwrite:
                    raise ApiError(409, "ALREADY_EXISTS", "The file %s already exists." % p)
                st.make_dirs(parent_of(p))
                st.put_file(p, req.body)
                return Resp(204)
            if req.method == "DELETE":
                if st.files.pop(p, None) is None:
                    raise ApiError(404, "NOT_FOUND", "The file %s does not exist." % p)
                return Resp(204)
        return error_resp(404, "ENDPOINT_NOT_FOUND", "no route")

    def fs_dirs(self, req):
        p = self.fs_target(req, "/api/2.0/fs/directories/")
        st = self.st
        with st.lock:
            if req.method in ("HEAD", "GET"):
                if p not in st.dirs:
                    raise ApiError(404, "NOT_FOUND", "The directory %s does not exist." % p)
                if req.method == "HEAD":
                    return Resp(200)
                pre = p + "/"
                contents = [{"path": d, "is_directory": True, "name": d[len(pre):]}
                            for d in sorted(st.dirs) if d.startswith(pre) and "/" not in d[len(pre):]]
                contents += [{"path": f, "is_directory": False, "name": f[len(pre):],
                              "file_size": len(v["data"]), "last_modified": v["mtime"]}
                             for f, v in sorted(st.files.items())
                             if f.startswith(pre) and "/" not in f[len(pre):]]
                return json_resp({"contents": contents} if contents else {})
            if req.method == "PUT":
                st.make_dirs(p)
                return Resp(204)
        return error_resp(404, "ENDPOINT_NOT_FOUND", "no route")

    # -- jobs -----------------------------------------------------------
    def validate_submit(self, b):
        if not isinstance(b.get("run_name"), str) or not b["run_name"]:
            raise bad("run_name is required")
        tok = b.get("idempotency_token")
        if tok is not None and (not isinstance(tok, str) or len(tok) > 64):
            raise bad("idempotency_token must be a string of at most 64 characters")
        if "timeout_seconds" in b:
            as_int(b["timeout_seconds"], "timeout_seconds", 0)
        tasks = b.get("tasks")
        if not isinstance(tasks, list) or not tasks:
            raise bad("tasks must be a non-empty array")
        envs = b.get("environments", [])
        if not isinstance(envs, list):
            raise bad("environments must be an array")
        env_keys = set()
        for i, e in enumerate(envs):
            if not isinstance(e, dict) or not isinstance(e.get("environment_key"), str):
                raise bad("environments[%d].environment_key is required" % i)
            if not isinstance(e.get("spec", {}), dict):
                raise bad("environments[%d].spec must be an object" % i)
            env_keys.add(e["environment_key"])
        for i, t in enumerate(tasks):
            if not isinstance(t, dict):
                raise bad("tasks[%d] must be an object" % i)
            if not isinstance(t.get("task_key"), str) or not t["task_key"]:
                raise bad("tasks[%d].task_key is required" % i)
            if "max_retries" in t:
                as_int(t["max_retries"], "tasks[%d].max_retries" % i, -1)
            ek = t.get("environment_key")
            if ek is not None and ek not in env_keys:
                raise bad("tasks[%d].environment_key %r does not match any environment" % (i, ek))
        art = tasks[0].get("ai_runtime_task")
        if not isinstance(art, dict):
            raise bad("tasks[0].ai_runtime_task is required")
        if not isinstance(art.get("experiment"), str) or not art["experiment"]:
            raise bad("tasks[0].ai_runtime_task.experiment is required")
        deps = art.get("deployments")
        if not isinstance(deps, list) or not deps:
            raise bad("tasks[0].ai_runtime_task.deployments must be a non-empty array")
        for j, d in enumerate(deps):
            where = "tasks[0].ai_runtime_task.deployments[%d]" % j
            if not isinstance(d, dict) or not isinstance(d.get("command_path"), str) \
                    or not d["command_path"]:
                raise bad(where + ".command_path is required")
            comp = d.get("compute")
            if not isinstance(comp, dict) or not isinstance(comp.get("accelerator_type"), str):
                raise bad(where + ".compute.accelerator_type is required")
            if as_int(comp.get("accelerator_count"), where + ".compute.accelerator_count", 1) < 1:
                raise bad(where + ".compute.accelerator_count must be positive")

    def runs_submit(self, req):
        b = req.json()
        self.validate_submit(b)
        st = self.st
        with st.lock:
            tok = b.get("idempotency_token")
            if tok and tok in st.tokens:
                rid = st.tokens[tok]
                run = st.runs.get(rid)
                if run is None:
                    raise bad("The run submitted with idempotency token %r has been deleted." % tok)
                run.submits += 1
                return json_resp({"run_id": run.obj.get("run_id", rid)})
            rid = st.alloc_id()
            job_id = st.next_job_id
            st.next_job_id += 1
            # Task run ids follow the run id (as in RUN(id): task run id = id + 1).
            tasks = []
            for t in b["tasks"]:
                t = copy.deepcopy(t)
                t["run_id"] = st.alloc_id()
                t["attempt_number"] = 0
                t.setdefault("max_retries", 0)
                tasks.append(t)
            obj = {
                "job_id": job_id,
                "run_id": rid,
                "creator_user_name": st.config["user"],
                "number_in_job": rid,
                "original_attempt_run_id": rid,
                "run_name": b["run_name"],
                "run_type": "SUBMIT_RUN",
                "format": "MULTI_TASK",
                "run_page_url": "%s/?o=%s#job/%d/run/%d" % (req.base(), st.config["org_id"], job_id, rid),
                "tasks": tasks,
            }
            if "environments" in b:
                obj["environments"] = copy.deepcopy(b["environments"])
            if "timeout_seconds" in b:
                obj["timeout_seconds"] = b["timeout_seconds"]
            run = st.add_run(rid, obj)
            run.submitted = copy.deepcopy(b)
            run.token = tok
            run.submits = 1
            run.life = dict(copy.deepcopy(st.config["lifecycle"]), t0=run.created_ms)
            if tok:
                st.tokens[tok] = rid
            st.attach_mlflow(run)
            self.auto_logs(run)
        return json_resp({"run_id": rid})

    def auto_logs(self, run):
        n = self.st.config.get("auto_logs") or 0
        text = "node {node} step {i}"
        if isinstance(n, dict):
            text = n.get("text", text)
            n = n.get("count", 0)
        n = int(n)
        if n <= 0:
            return
        tasks = run.obj.get("tasks") or []
        nodes = nodes_of(tasks[0]) if tasks else 1
        L = run.life
        start_ns = (L["t0"] + int(L.get("pending_ms", 0))) * 1000000
        step = int(L.get("running_ms", 0)) * 1000000 // n
        for node in range(nodes):
            run.logs.add_synthetic({"count": n, "start_ns": start_ns, "step_ns": step,
                                    "node_index": node, "attempt": 0, "text": text})

    def run_id_param(self, req):
        v = req.q("run_id")
        if v is None or v == "":
            raise bad("run_id is required")
        rid = id_key(v)
        if rid is None:
            raise bad("Invalid run_id %r" % v)
        return rid

    def not_found(self, rid):
        return bad("Run %s does not exist." % rid)

    def runs_get(self, req):
        rid = self.run_id_param(req)
        tok = req.q("page_token")
        st = self.st
        with st.lock:
            run = st.runs.get(rid)
            if run is None:
                raise self.not_found(rid)
            if not tok and run.sequence:
                self.apply_patch(run, run.sequence.pop(0))
            v = run_view(run, now_ms())
            size = max(1, int(st.config["get_page_size"]))
        key = "iterations" if isinstance(v.get("iterations"), list) else "tasks"
        items = v.get(key)
        if not isinstance(items, list):
            return json_resp(v)
        off = 0
        if tok:
            t = decode_token(tok)
            if t.get("k") != "get" or t.get("r") != rid or not isinstance(t.get("o"), int):
                raise bad("invalid page_token %r" % tok)
            off = t["o"]
        v[key] = items[off:off + size]
        if off + size < len(items):
            v["next_page_token"] = encode_token({"k": "get", "r": rid, "o": off + size})
        return json_resp(v)

    def runs_get_output(self, req):
        rid = self.run_id_param(req)
        st = self.st
        with st.lock:
            if rid in st.runs and rid not in st.task_index:
                raise bad("Retrieving the output of runs with multiple tasks is not supported. "
                          "Please retrieve the output of each individual task run instead.")
            parent = st.task_index.get(rid)
            run = st.runs.get(parent) if parent is not None else None
            if run is None:
                raise self.not_found(rid)
            if run.output is not None:
                return json_resp(copy.deepcopy(run.output))
            v = run_view(run, now_ms())
            task = None
            for t in v.get("tasks") or []:
                if isinstance(t, dict) and id_key(t.get("run_id")) == rid:
                    task = t
            if task is None:
                raise self.not_found(rid)
            out = {"metadata": task}
            if "ai_runtime_task" in task:
                o = {}
                lcs = (task.get("state") or v.get("state") or {}).get("life_cycle_state")
                started = (id_key(task.get("start_time")) or 0) > 0 or \
                    (id_key(v.get("start_time")) or 0) > 0
                if started and run.mlflow:
                    o["mlflow_experiment_id"], o["mlflow_run_id"] = run.mlflow
                L = run.life or st.config["lifecycle"]
                if lcs in ("PENDING", "QUEUED", "BLOCKED"):
                    o["status_message"] = L.get("pending_status", "")
                elif lcs == "RUNNING":
                    o["status_message"] = L.get("running_status", "")
                out["ai_runtime_task_output"] = o
            return json_resp(out)

    def runs_list(self, req):
        limit = req.q_int("limit", 0, 0)
        if limit > 25:
            raise bad("limit must be between 1 and 25")
        active = req.q_bool("active_only")
        completed = req.q_bool("completed_only")
        if active and completed:
            raise bad("active_only and completed_only cannot both be true")
        expand = req.q_bool("expand_tasks")
        rtype = req.q("run_type")
        if rtype is not None and rtype not in ("JOB_RUN", "WORKFLOW_RUN", "SUBMIT_RUN"):
            raise bad("invalid run_type %r" % rtype)
        job_id = req.q_int("job_id")
        t_from = req.q_int("start_time_from", 0, 0)
        t_to = req.q_int("start_time_to", 0, 0)
        off = req.q_int("offset", 0, 0)
        tok = req.q("page_token")
        if tok:
            off = self.offset(req, "list")
        st = self.st
        with st.lock:
            size = min(limit or 25, max(1, int(st.config["list_page_size"])))
            tsize = max(1, int(st.config["get_page_size"]))
            now = now_ms()
            rows = []
            for run in st.runs.values():
                v = run_view(run, now)
                if rtype and v.get("run_type", "SUBMIT_RUN") != rtype:
                    continue
                if job_id is not None and id_key(v.get("job_id")) != job_id:
                    continue
                term = view_terminal(v)
                if (active and term) or (completed and not term):
                    continue
                stt = id_key(v.get("start_time")) or 0
                if t_from and stt < t_from:
                    continue
                if t_to and stt > t_to:
                    continue
                rows.append(((stt or run.created_ms, run.seq), v))
        rows.sort(key=lambda r: r[0], reverse=True)
        page = []
        for _k, v in rows[off:off + size]:
            if not expand:
                v.pop("tasks", None)
            elif isinstance(v.get("tasks"), list) and len(v["tasks"]) > tsize:
                v["tasks"] = v["tasks"][:tsize]
                v["has_more"] = True
            page.append(v)
        more = off + size < len(rows)
        out = {"has_more": more}
        if page:
            out["runs"] = page
        if more:
            out["next_page_token"] = encode_token({"k": "list", "o": off + size})
        if off > 0:
            out["prev_page_token"] = encode_token({"k": "list", "o": max(0, off - size)})
        return json_resp(out)

    def runs_cancel(self, req):
        b = req.json()
        if "run_id" not in b:
            raise bad("run_id is required")
        rid = id_key(b["run_id"])
        if rid is None:
            raise bad("Invalid run_id %r" % (b["run_id"],))
        st = self.st
        with st.lock:
            run = st.runs.get(rid)
            if run is None:
                raise self.not_found(rid)
            run.cancels += 1
            now = now_ms()
            v = run_view(run, now)
            if not view_terminal(v):
                run.sequence = []
                if run.life is not None:
                    run.cancelled_ms = now
                else:
                    state = {"life_cycle_state": "TERMINATED", "result_state": "CANCELED",
                             "state_message": "Run cancelled.", "user_cancelled_or_timedout": True}
                    run.obj["state"] = state
                    run.obj["end_time"] = now
                    for t in run.obj.get("tasks") or []:
                        if isinstance(t, dict):
                            t["state"] = copy.deepcopy(state)
                            t["end_time"] = now
        return json_resp({})

    # -- runs created by tests ------------------------------------------
    def apply_patch(self, run, patch):
        st = self.st
        if not isinstance(patch, dict):
            raise bad("run patch must be an object")
        patch = copy.deepcopy(patch)
        if "lifecycle" in patch:
            lc = patch.pop("lifecycle")
            if lc is None or lc is False:
                if run.life is not None:
                    run.obj = run_view(run, now_ms())
                run.life = None
            else:
                base = copy.deepcopy(st.config["lifecycle"])
                if isinstance(lc, dict):
                    base.update(lc)
                run.life = dict(base, t0=now_ms())
                run.cancelled_ms = None
        if "sequence" in patch:
            seq = patch.pop("sequence")
            if not isinstance(seq, list):
                raise bad("sequence must be an array of run patches")
            run.sequence = seq
        if "output" in patch:
            run.output = patch.pop("output")
        if any(k in patch for k in ("state", "start_time", "end_time")) and run.life is not None:
            run.obj = run_view(run, now_ms())
            run.life = None
        if "run_id" in patch and id_key(patch["run_id"]) != run.rid:
            raise bad("run_id cannot be changed")
        for k, v in patch.items():
            run.obj[k] = v
        for t in run.obj.get("tasks") or []:
            if isinstance(t, dict):
                if "run_id" not in t:
                    t["run_id"] = st.alloc_id()
                t.setdefault("attempt_number", 0)
        st.index_tasks(run)

    def create_run(self, body):
        st = self.st
        obj = copy.deepcopy(body)
        life = obj.pop("lifecycle", None)
        seq = obj.pop("sequence", None)
        output = obj.pop("output", None)
        if "run_id" in obj:
            rid = id_key(obj["run_id"])
            if rid is None or rid <= 0:
                raise bad("invalid run_id %r" % (obj["run_id"],))
            if rid in st.runs:
                raise ApiError(409, "RESOURCE_ALREADY_EXISTS", "run %d exists" % rid)
        else:
            rid = st.alloc_id()
            obj["run_id"] = rid
        if not isinstance(obj.get("tasks", []), list):
            raise bad("tasks must be an array")
        obj.setdefault("run_name", "Untitled")
        obj.setdefault("creator_user_name", st.config["user"])
        obj.setdefault("run_type", "SUBMIT_RUN")
        obj.setdefault("tasks", [])
        if not life:
            obj.setdefault("state", {"life_cycle_state": "TERMINATED", "result_state": "SUCCESS",
                                     "state_message": ""})
            obj.setdefault("start_time", 0)
            obj.setdefault("end_time", 0)
        run = st.add_run(rid, obj)
        if life:
            base = copy.deepcopy(st.config["lifecycle"])
            if isinstance(life, dict):
                base.update(life)
            run.life = dict(base, t0=run.created_ms)
        if seq is not None:
            if not isinstance(seq, list):
                raise bad("sequence must be an array of run patches")
            run.sequence = seq
        run.output = output
        st.attach_mlflow(run)
        return rid

    def run_info(self, run):
        st = self.st
        return {
            "run": run_view(run, now_ms()),
            "submitted": copy.deepcopy(run.submitted),
            "idempotency_token": run.token,
            "submits": run.submits,
            "cancels": run.cancels,
            "lifecycle": copy.deepcopy(run.life),
            "cancelled_ms": run.cancelled_ms,
            "sequence": copy.deepcopy(run.sequence),
            "output": copy.deepcopy(run.output),
            "logs": run.logs.summary(),
            "mlflow": ({"experiment_id": run.mlflow[0], "run_id": run.mlflow[1]}
                       if run.mlflow else None),
            "created_ms": run.created_ms,
            "task_run_ids": sorted(k for k, v in st.task_index.items() if v == run.rid),
        }

    # -- AI Runtime ------------------------------------------------------
    def workflows(self, req):
        active = req.q_bool("active_only")
        size = req.q_int("page_size", 0, 0)
        off = self.offset(req, "wf")
        st = self.st
        with st.lock:
            self.feature("workflows_index")
            size = min(size or 1000, max(1, int(st.config["workflows_page_size"])))
            user = st.config["user"]
            now = now_ms()
            rows = []
            for run in st.runs.values():
                v = run_view(run, now)
                if not is_air_run(v) or v.get("creator_user_name") != user:
                    continue
                if active and view_terminal(v):
                    continue
                t = id_key(v.get("start_time")) or run.created_ms
                if run.life is not None:
                    t = run.created_ms
                rows.append(((t, run.seq), {"job_run_id": v.get("run_id", run.rid),
                                            "submit_time": rfc3339(t)}))
        rows.sort(key=lambda r: r[0], reverse=True)
        return json_resp(self.paged([r[1] for r in rows], off, size, "training_workflows", "wf"))

    LOGS_RE = re.compile(r"^/api/2\.0/ai-training/workflows/by-run-id/([^/]+)/logs$")

    def logs(self, req):
        m = self.LOGS_RE.match(req.path)
        if not m:
            return error_resp(404, "ENDPOINT_NOT_FOUND", "no route")
        rid = id_key(m.group(1))
        if rid is None:
            raise bad("invalid run id %r" % m.group(1))
        asc = req.q_bool("ascending", True)
        t_from = req.q_int("from", 0, 0)
        t_to = req.q_int("to", 0, 0)
        node = req.q_int("filter.node_index", 0, 0)
        attempt = req.q_int("ref.attempt_number", None, 0)
        size = req.q_int("page_size", 0, 0)
        tok = req.q("page_token")
        cursor = None
        if tok:
            t = decode_token(tok)
            c = t.get("c")
            if t.get("k") != "logs" or t.get("a") != asc or not isinstance(c, list) or len(c) != 3 \
                    or not all(isinstance(x, int) for x in c):
                raise bad("invalid page_token %r" % tok)
            cursor = tuple(c)
        st = self.st
        with st.lock:
            self.feature("logs")
            run = st.runs.get(rid)
            if run is None:
                raise ApiError(404, "RESOURCE_DOES_NOT_EXIST", "Run %d does not exist." % rid)
            if attempt is None:
                attempt = 0
                for t in run_view(run, now_ms()).get("tasks") or []:
                    if isinstance(t, dict):
                        attempt = max(attempt, id_key(t.get("attempt_number")) or 0)
            srcs = run.logs.snapshot(node, attempt)
            cfg = st.config
            size = min(size or int(cfg["logs_page_size"]), int(cfg["logs_max_page_size"]))
            as_string = bool(cfg.get("logs_time_as_string"))
        lo = t_from * 1000000000
        hi = t_to * 1000000000 if t_to else time.time_ns()
        recs, last = log_page(srcs, node, lo, hi, asc, cursor, max(1, size), as_string)
        out = {"log_records": recs}
        if last is not None:
            out["next_page_token"] = encode_token({"k": "logs", "a": asc, "c": list(last)})
        return json_resp(out)

    # -- MLflow ----------------------------------------------------------
    def mlflow_entry(self, req):
        rid = req.q("run_id") or req.q("run_uuid")
        if not rid:
            raise bad("run_id is required")
        e = self.st.mlflow.get(rid)
        if e is None:
            raise ApiError(404, "RESOURCE_DOES_NOT_EXIST", "Run '%s' not found." % rid)
        return rid, e

    def mlflow_run(self, req):
        with self.st.lock:
            rid, e = self.mlflow_entry(req)
            exp = str(e.get("experiment_id", "0"))
            info = {
                "run_id": rid,
                "run_uuid": rid,
                "run_name": e.get("run_name", ""),
                "experiment_id": exp,
                "user_id": e.get("user_id", self.st.config["user"]),
                "status": e.get("status", "FINISHED"),
                "start_time": e.get("start_time", 1700000000000),
                "artifact_uri": "dbfs:/databricks/mlflow-tracking/%s/%s/artifacts" % (exp, rid),
                "lifecycle_stage": "active",
            }
            if "end_time" in e:
                info["end_time"] = e["end_time"]
            data = copy.deepcopy(e.get("data", {}))
        return json_resp({"run": {"info": info, "data": data}})

    def mlflow_list(self, req):
        path = (req.q("path") or "").strip("/")
        off = self.offset(req, "art")
        st = self.st
        with st.lock:
            rid, e = self.mlflow_entry(req)
            exp = str(e.get("experiment_id", "0"))
            size = max(1, int(st.config["artifacts_page_size"]))
            pre = path + "/" if path else ""
            seen = {}
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
        out = self.paged(entries, off, size, "files", "art")
        out["root_uri"] = "dbfs:/databricks/mlflow-tracking/%s/%s/artifacts" % (exp, rid)
        return json_resp(out)

    def sign(self, rid, path):
        msg = ("%s\n%s" % (rid, path)).encode()
        return hmac.new(self.st.secret, msg, hashlib.sha256).hexdigest()[:32]

    def mlflow_creds(self, req):
        paths = req.query.get("path") or []
        if not paths:
            raise bad("path is required")
        with self.st.lock:
            rid, _e = self.mlflow_entry(req)
            headers = copy.deepcopy(self.st.config.get("presigned_headers") or [])
        infos = []
        for p in paths:
            p = p.strip("/")
            uri = "%s/presigned/%s/%s?sig=%s" % (req.base(), quote(rid, safe=""),
                                                 quote(p, safe="/"), self.sign(rid, p))
            info = {"run_id": rid, "path": p, "signed_uri": uri, "type": "AZURE_SAS_URI"}
            if headers:
                info["headers"] = headers
            infos.append(info)
        return json_resp({"credential_infos": infos})

    def presigned(self, req):
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
        rest = req.path[len("/presigned/"):]
        rid, _, path = rest.partition("/")
        if not rid or not path or not hmac.compare_digest(req.q("sig", ""), self.sign(rid, path)):
            return xml(403, "AuthenticationFailed", "Signature did not match.")
        with self.st.lock:
            required = copy.deepcopy(self.st.config.get("presigned_headers") or [])
            e = self.st.mlflow.get(rid)
            data = e["artifacts"].get(path) if e else None
        for h in required:
            name = str(h.get("name", "")).lower()
            if req.headers.get(name) != h.get("value"):
                return xml(400, "MissingRequiredHeader",
                           "The required header %s: %s is missing." % (h.get("name"), h.get("value")))
        if data is None:
            return xml(404, "BlobNotFound", "The specified blob does not exist.")
        return Resp(200, data, content_type="application/octet-stream")

    # -- pools, images, misc ---------------------------------------------
    def pool_obj(self, p):
        if "name" in p:
            return copy.deepcopy(p)
        return {
            "name": "provisioned-capacities/%s" % p.get("id", ""),
            "spec": {"accelerator_type": p.get("accelerator_type", "GPU_8xH100"),
                     "accelerator_count": p.get("accelerator_count", 8)},
            "status": {"usage": {"used_accelerator_count": p.get("used", 0),
                                 "idle_accelerator_count": p.get("idle", 0)}},
        }

    def pools_list(self, req):
        size = req.q_int("page_size", 100, 1)
        off = self.offset(req, "pools")
        with self.st.lock:
            self.feature("pools")
            if self.st.pools_page_size:
                size = min(size, self.st.pools_page_size)
            items = [self.pool_obj(p) for p in self.st.pools]
        return json_resp(self.paged(items, off, size, "provisioned_capacities", "pools"))

    def pool_get(self, req):
        pid = req.path[len("/api/2.0/ai-training/provisioned-capacities/"):]
        with self.st.lock:
            self.feature("pools")
            for p in self.st.pools:
                o = self.pool_obj(p)
                if o["name"].split("/", 1)[-1] == pid:
                    return json_resp(o)
        raise ApiError(404, "RESOURCE_DOES_NOT_EXIST", "Provisioned capacity %s does not exist." % pid)

    IMAGE_FIELDS = ("docker_image_url", "state", "status_message", "manifest_sha256")

    def image_view(self, url, e):
        out = {"docker_image_url": url}
        for k in self.IMAGE_FIELDS[1:]:
            if k in e:
                out[k] = e[k]
        return out

    def image_get(self, req):
        url = req.q("docker_image_url")
        if not url:
            raise bad("docker_image_url is required")
        with self.st.lock:
            e = self.st.images.get(url)
            if e is None or not e.get("registered", True):
                raise ApiError(404, "RESOURCE_DOES_NOT_EXIST", "Image %s is not registered." % url)
            if e.get("states"):
                s = e["states"].pop(0)
                if isinstance(s, str):
                    e["state"] = s
                elif isinstance(s, dict):
                    e.update(s)
            return json_resp(self.image_view(url, e))

    def image_register(self, req):
        b = req.json()
        url = b.get("docker_image_url")
        if not isinstance(url, str) or not url:
            raise bad("docker_image_url is required")
        with self.st.lock:
            e = self.st.images.get(url)
            if e is None:
                e = {"state": "AVAILABLE",
                     "manifest_sha256": hashlib.sha256(url.encode()).hexdigest()}
                self.st.images[url] = e
            e["registered"] = True
            e["registrations"] = e.get("registrations", 0) + 1
            for k in ("credentials_scope", "credentials_key"):
                if k in b:
                    e[k] = b[k]
            return json_resp({"image": self.image_view(url, e)})

    def image_access(self, req):
        url = req.q("docker_image_url") or ""
        with self.st.lock:
            e = self.st.images.get(url) or {}
            return json_resp({"publicly_accessible": bool(e.get("public", False))})

    def compute_options(self, req):
        with self.st.lock:
            opts = list(self.st.config.get("compute_options") or [])
        return json_resp({"compute_options": [{"hardware_accelerator": o} for o in opts]})

    def scopes_list(self, req):
        with self.st.lock:
            names = sorted(self.st.secret_scopes)
        return json_resp({"scopes": [{"name": n, "backend_type": "DATABRICKS"} for n in names]}
                         if names else {})

    def scopes_create(self, req):
        b = req.json()
        name = b.get("scope")
        if not isinstance(name, str) or not name:
            raise bad("scope is required")
        with self.st.lock:
            if name in self.st.secret_scopes:
                raise ApiError(400, "RESOURCE_ALREADY_EXISTS", "Scope %s already exists!" % name)
            self.st.secret_scopes[name] = {}
        return json_resp({})

    def secrets_put(self, req):
        b = req.json()
        scope, key = b.get("scope"), b.get("key")
        with self.st.lock:
            if scope not in self.st.secret_scopes:
                raise ApiError(404, "RESOURCE_DOES_NOT_EXIST", "Scope %s does not exist!" % scope)
            if not isinstance(key, str) or not key:
                raise bad("key is required")
            self.st.secret_scopes[scope][key] = b.get("string_value", b.get("bytes_value"))
        return json_resp({})

    # -- control API -----------------------------------------------------
    def control(self, req, server):
        st = self.st
        p = req.path[len("/__fakews"):]
        m = req.method
        try:
            with st.lock:
                if p == "/health":
                    return json_resp({"ok": True, "pid": os.getpid()})
                if p == "/reset" and m == "POST":
                    st.reset()
                    return json_resp({})
                if p == "/shutdown" and m == "POST":
                    return SHUTDOWN_REPLY
                if p == "/config":
                    if m == "POST":
                        st.set_config(req.json(required=False))
                    return json_resp(st.config_view())
                if p == "/requests":
                    if m == "DELETE":
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
                if p == "/faults":
                    if m == "POST":
                        return json_resp({"id": st.add_fault(req.json())})
                    if m == "DELETE":
                        st.faults = []
                        return json_resp({})
                    return json_resp({"faults": st.faults})
                if p == "/runs":
                    if m == "POST":
                        return json_resp({"run_id": self.create_run(req.json())})
                    return json_resp({"runs": [self.run_info(r) for r in
                                               sorted(st.runs.values(), key=lambda r: r.seq)]})
                mm = re.fullmatch(r"/runs/([^/]+)(/logs|/output)?", p)
                if mm:
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
                        self.apply_patch(run, req.json())
                        return json_resp(self.run_info(run))
                    if sub is None and m == "DELETE":
                        del st.runs[rid]
                        st.index_tasks(Run(rid, {}, 0, 0))
                        return json_resp({})
                    if sub is None and m == "GET":
                        return json_resp(self.run_info(run))
                if p == "/files" and m == "GET":
                    files = [{"path": k, "size": len(v["data"]),
                              "sha256": hashlib.sha256(v["data"]).hexdigest(),
                              "kind": "volume" if k.startswith("/Volumes/") else "workspace"}
                             for k, v in sorted(st.files.items())]
                    return json_resp({"files": files, "dirs": sorted(st.dirs)})
                if p == "/file":
                    path = req.q("path")
                    if not path:
                        raise bad("path is required")
                    cp = canonical_path(path)
                    if m == "POST":
                        check_path(path)
                        st.make_dirs(parent_of(cp))
                        st.put_file(cp, req.body)
                        return json_resp({})
                    f = st.files.get(cp)
                    if f is None:
                        return error_resp(404, "RESOURCE_DOES_NOT_EXIST", "no file %s" % path)
                    return Resp(200, f["data"], content_type="application/octet-stream")
                if p == "/mlflow":
                    if m == "POST":
                        b = req.json()
                        runs = b.get("runs", {})
                        if not isinstance(runs, dict):
                            raise bad("runs must be an object")
                        for rid, e in runs.items():
                            self.mlflow_merge(rid, e)
                    return json_resp({"runs": {
                        k: dict({kk: vv for kk, vv in v.items() if kk != "artifacts"},
                                artifacts=sorted(v["artifacts"]))
                        for k, v in st.mlflow.items()}})
                if p == "/policies" and m == "POST":
                    b = req.json()
                    pol = b.get("policies", [])
                    if not isinstance(pol, list):
                        raise bad("policies must be an array")
                    st.policies = copy.deepcopy(pol)
                    st.policies_page_size = b.get("page_size")
                    return json_resp({})
                if p == "/pools" and m == "POST":
                    b = req.json()
                    pools = b.get("pools", [])
                    if not isinstance(pools, list):
                        raise bad("pools must be an array")
                    st.pools = copy.deepcopy(pools)
                    st.pools_page_size = b.get("page_size")
                    return json_resp({})
                if p == "/images":
                    if m == "POST":
                        imgs = req.json().get("images", {})
                        if not isinstance(imgs, dict):
                            raise bad("images must be an object")
                        for url, e in imgs.items():
                            e = copy.deepcopy(e)
                            if isinstance(e.get("states"), list) and e["states"] and "state" not in e:
                                e["state"] = "PENDING"
                            st.images[url] = e
                    return json_resp({"images": st.images})
                if p == "/secrets":
                    return json_resp({"scopes": st.secret_scopes})
        except ApiError as e:
            return error_resp(e.status, e.code, e.message)
        return error_resp(404, "ENDPOINT_NOT_FOUND", "no control route %s %s" % (m, req.path))

    def mlflow_merge(self, rid, e):
        if not isinstance(e, dict):
            raise bad("mlflow run entries must be objects")
        cur = self.st.mlflow.setdefault(rid, {"experiment_id": "0", "run_name": rid, "artifacts": {}})
        for k, v in e.items():
            if k == "artifacts":
                if not isinstance(v, dict):
                    raise bad("artifacts must be an object")
                for path, content in v.items():
                    if isinstance(content, str):
                        data = content.encode("utf-8")
                    elif isinstance(content, dict) and "b64" in content:
                        data = base64.b64decode(content["b64"])
                    else:
                        raise bad("artifact content must be a string or {\"b64\": ...}")
                    cur["artifacts"][path.strip("/")] = data
            else:
                cur[k] = copy.deepcopy(v)


# ---------------------------------------------------------------------------
# HTTP


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fakews/1.0"
    sys_version = ""
    timeout = 600

    def setup(self):
        super().setup()
        try:
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except OSError:
            pass

    def log_request(self, code="-", size="-"):
        pass

    def log_message(self, fmt, *args):
        self.server.log("%s %s" % (self.address_string(), fmt % args))

    def do_any(self):
        srv = self.server
        app, st = srv.app, srv.state
        raw = self.path
        if raw.startswith("http://") or raw.startswith("https://"):
            raw = "/" + raw.split("://", 1)[1].partition("/")[2]
        raw_path, _, raw_query = raw.partition("?")
        body = self.read_body()
        if body is None:
            self.close_connection = True
            self.send(error_resp(400, "MALFORMED_REQUEST", "unreadable request body"))
            return
        headers = {}
        for k, v in self.headers.items():
            k = k.lower()
            headers[k] = headers[k] + ", " + v if k in headers else v
        host = headers.get("host") or "%s:%d" % srv.server_address[:2]
        req = Req(self.command, unquote(raw_path), raw_path,
                  parse_qs(raw_query, keep_blank_values=True), headers, body, host)
        t0 = time.monotonic()
        if req.path.startswith("/__fakews/") or req.path == "/__fakews":
            try:
                resp = app.control(req, srv)
            except Exception:
                traceback.print_exc()
                resp = error_resp(500, "INTERNAL_ERROR", "fakews control failure")
            self.send(resp)
            if resp is SHUTDOWN_REPLY:
                # Only once the reply is out: stopping ends the process.
                self.wfile.flush()
                threading.Thread(target=srv.shutdown, daemon=True).start()
            return
        with st.lock:
            entry = st.record(req)
            rule = st.match_fault(req)
            latency = int(st.config.get("latency_ms") or 0)
        if entry is not None and rule is not None:
            entry["fault"] = rule["id"]
        delay = latency + (rule["delay_ms"] if rule else 0)
        if delay > 0:
            time.sleep(delay / 1000.0)
        action = rule["action"] if rule else None
        if action == "reset_before":
            self.finish_entry(entry, None, req, t0)
            self.reset_connection()
            return
        if action == "status":
            b = rule["body"]
            ctype = rule.get("content_type")
            if b is None:
                data = b""
            elif isinstance(b, str):
                data = b.encode("utf-8")
                ctype = ctype or "text/plain; charset=utf-8"
            else:
                data = json.dumps(b).encode()
                ctype = ctype or "application/json"
            resp = Resp(rule["status"], data, [(k, str(v)) for k, v in rule["headers"].items()], ctype)
        else:
            try:
                resp = app.dispatch(req)
            except Exception as e:
                traceback.print_exc()
                resp = error_resp(500, "INTERNAL_ERROR", "fakews: %s: %s" % (type(e).__name__, e))
        if action == "reset_after":
            self.finish_entry(entry, resp.status, req, t0)
            self.reset_connection()
            return
        self.finish_entry(entry, resp.status, req, t0)
        self.send(resp)

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = do_any

    def finish_entry(self, entry, status, req, t0):
        if entry is not None:
            with self.server.state.lock:
                entry["status"] = status
        self.server.log("%s %s -> %s (%.1f ms)" % (req.method, req.raw_path,
                                                   status if status is not None else "RESET",
                                                   (time.monotonic() - t0) * 1000))

    def read_body(self):
        try:
            te = self.headers.get("Transfer-Encoding", "")
            if "chunked" in te.lower():
                parts = []
                while True:
                    line = self.rfile.readline(65537)
                    if not line:
                        return None
                    size = int(line.split(b";", 1)[0].strip() or b"0", 16)
                    if size == 0:
                        while True:
                            t = self.rfile.readline(65537)
                            if t in (b"\r\n", b"\n", b""):
                                break
                        break
                    data = self.rfile.read(size)
                    if len(data) != size:
                        return None
                    parts.append(data)
                    self.rfile.readline(65537)
                return b"".join(parts)
            n = self.headers.get("Content-Length")
            if n:
                n = int(n)
                data = self.rfile.read(n) if n > 0 else b""
                return data if len(data) == n else None
            return b""
        except (ValueError, OSError):
            return None

    def send(self, resp):
        head = self.command == "HEAD"
        self.send_response(resp.status)
        for k, v in resp.headers:
            self.send_header(k, v)
        if resp.status != 204 and resp.status >= 200:
            if resp.content_type:
                self.send_header("Content-Type", resp.content_type)
            self.send_header("Content-Length", str(len(resp.body)))
        if not any(k.lower() == "x-request-id" for k, _v in resp.headers):
            self.send_header("X-Request-Id", "fakews-%d" % next(self.server.request_ids))
        if self.close_connection:
            self.send_header("Connection", "close")
        self._headers_buffer.append(b"\r\n")
        if not head and resp.body and resp.status != 204:
            self._headers_buffer.append(resp.body)
        try:
            self.flush_headers()
        except OSError:
            self.close_connection = True

    def reset_connection(self):
        """Close abruptly with an RST (SO_LINGER on, timeout 0)."""
        self.close_connection = True
        try:
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass
        # rfile holds a reference to the socket: close it first so that the
        # close below really closes the descriptor (sending the RST). wfile is
        # left open: http.server flushes it after the handler returns.
        try:
            self.rfile.close()
        except OSError:
            pass
        try:
            self.connection.close()
        except OSError:
            pass


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 256

    def __init__(self, addr, state, log_file=None):
        self.state = state
        self.app = App(state)
        self.log_file = log_file
        self.log_lock = threading.Lock()
        self.request_ids = itertools.count(1)
        super().__init__(addr, Handler)

    def server_bind(self):
        # Skip HTTPServer.server_bind: its getfqdn() may do a slow reverse lookup.
        import socketserver
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = self.server_address[:2]

    def log(self, line):
        if self.log_file is not None:
            with self.log_lock:
                self.log_file.write("%s %s\n" % (time.strftime("%H:%M:%S"), line))
                self.log_file.flush()

    def handle_error(self, request, client_address):
        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, TimeoutError, OSError)):
            return
        super().handle_error(request, client_address)


def main(argv=None):
    ap = argparse.ArgumentParser(description="fake Databricks workspace (see README.md)")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--port-file")
    ap.add_argument("--token", action="append", help="accepted bearer token (repeatable)")
    ap.add_argument("--user")
    ap.add_argument("--config", help="JSON object merged into the default configuration")
    ap.add_argument("--log", help="append one line per request to this file")
    ap.add_argument("--parent-pid", type=int, help="exit when this process is gone")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)

    defaults = default_config()
    if args.token:
        defaults["tokens"] = args.token
    if args.user:
        defaults["user"] = args.user
    if args.config:
        probe = State(copy.deepcopy(defaults))
        try:
            probe.set_config(json.loads(args.config))
        except (ApiError, ValueError) as e:
            ap.error("--config: %s" % e)
        defaults = probe.config_view()
    state = State(defaults)
    log_file = open(args.log, "a", buffering=1) if args.log else None
    server = Server(("127.0.0.1", args.port), state, log_file)
    port = server.server_address[1]

    def stop(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)

    if args.parent_pid:
        # When the watched process is our parent, being reparented means it is
        # gone (even while it is an unreaped zombie, which kill(pid, 0) still sees).
        direct = os.getppid() == args.parent_pid

        def watch():
            while True:
                time.sleep(0.2)
                if direct and os.getppid() != args.parent_pid:
                    os._exit(0)
                try:
                    os.kill(args.parent_pid, 0)
                except ProcessLookupError:
                    os._exit(0)
                except PermissionError:
                    pass
        threading.Thread(target=watch, daemon=True).start()

    try:
        # Inside the try: a signal may arrive as soon as the port is announced.
        if args.port_file:
            tmp = "%s.tmp.%d" % (args.port_file, os.getpid())
            with open(tmp, "w") as f:
                f.write("%d\n" % port)
            os.replace(tmp, args.port_file)
        if not args.quiet:
            print("fakews listening on http://127.0.0.1:%d" % port, flush=True)
        server.serve_forever(poll_interval=0.1)
    except KeyboardInterrupt:
        pass
    finally:
        try:
            server.socket.close()
        except OSError:
            pass
        if log_file:
            log_file.flush()
        sys.stdout.flush()
        os._exit(0)


if __name__ == "__main__":
    main()

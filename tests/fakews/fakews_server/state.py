"""The workspace state: configuration and every store (runs and their task
ids, idempotency tokens, files and directories, MLflow runs, policies, pools,
images, secret scopes, issued OAuth tokens, recorded requests, fault rules),
all guarded by one lock."""

import base64
import copy
import hashlib
import os
import threading

from .api_registry import default_registry
from .config import MERGED_CONFIG_KEYS, default_config
from .faults import FaultRules
from .metricstore import MetricStore
from .replies import ApiError, bad
from .runs import Run
from .values import as_int, id_key, merge, now_ms


class State:
    """Everything a reset returns to the defaults; use it with .lock held."""

    def __init__(self, defaults):
        self.lock = threading.RLock()
        self.defaults = defaults
        self.secret = os.urandom(16)      # signs pre-signed download URLs
        self.conn_epoch = 0               # bumped by each reset
        self.reset()

    def reset(self):
        with self.lock:
            self.config = copy.deepcopy(self.defaults)
            self.next_id = int(self.config.pop("next_run_id"))
            self.next_job_id = 1001
            self.runs = {}                # run id -> Run
            self.task_index = {}          # task run id -> run id
            self.tokens = {}              # idempotency token -> run id
            self.run_seq = 0
            self.dirs = set()
            self.files = {}               # path -> {"data", "mtime", "id"}
            self.object_id = 1000
            self.mlflow = {}              # MLflow run id -> {"experiment_id", "artifacts", ...}
            self.policies = []
            self.policies_page_size = None
            self.pools = []
            self.pools_page_size = None
            self.images = {}              # image URL -> registration
            self.secret_scopes = {}       # scope -> {key: value}
            self.experiments = {}         # MLflow experiment name -> {"experiment_id", ...}
            self.experiment_seq = 0
            self.registry = default_registry()
            self.requests = []            # request records, oldest first
            self.req_seq = 0
            self.faults = FaultRules()
            self.oauth_tokens = {}        # issued access token -> expiry (epoch ms)
            self.at_counter = 0
            self.rt_counter = 0
            # Connections are counted per reset: one a previous test's client
            # closed, but whose end this server has not seen yet, is not
            # counted against the next test.
            self.conn_epoch += 1
            self.conn_open = 0              # connections used since, open now
            self.conn_max = 0               # most of them open at once
            self.conn_accepted = 0          # connections used since
            self.base_dirs()

    def connection_used(self, epoch):
        """A connection made an API request: counted in this reset's epoch
        (also one kept alive from before the reset). The epoch it is
        counted in."""
        with self.lock:
            if epoch != self.conn_epoch:
                self.conn_open += 1
                self.conn_accepted += 1
                self.conn_max = max(self.conn_max, self.conn_open)
            return self.conn_epoch

    def connection_closed(self, epoch):
        with self.lock:
            if epoch == self.conn_epoch:
                self.conn_open -= 1

    def base_dirs(self):
        for d in ("/Workspace", "/Workspace/Users", "/Workspace/Shared", "/Workspace/Repos",
                  "/Volumes", "/Workspace/Users/" + self.config["user"]):
            self.dirs.add(d)

    # -- runs ------------------------------------------------------------
    def alloc_id(self):
        """The next free id (runs and task runs share the counter)."""
        while self.next_id in self.runs or self.next_id in self.task_index:
            self.next_id += 1
        rid = self.next_id
        self.next_id += 1
        return rid

    def unindex_tasks(self, rid):
        for k in [k for k, v in self.task_index.items() if v == rid]:
            del self.task_index[k]

    def index_tasks(self, run):
        """Map the run's task run ids to the run (after its tasks changed)."""
        self.unindex_tasks(run.rid)
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

    def delete_run(self, rid):
        del self.runs[rid]
        self.unindex_tasks(rid)

    def attach_mlflow(self, run):
        """Give an AI Runtime run its MLflow experiment and run ids (registered in the store)."""
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

    # -- MLflow ----------------------------------------------------------
    def merge_mlflow(self, rid, e):
        """Merge a control-API entry into MLflow run @rid (artifacts: text or {"b64": ...})."""
        if not isinstance(e, dict):
            raise bad("mlflow run entries must be objects")
        cur = self.mlflow.setdefault(rid, {"experiment_id": "0", "run_name": rid, "artifacts": {}})
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
            elif k == "metric_store":
                raise bad("metric histories are added with POST /__fakews/mlflow/<run>/metrics")
            else:
                cur[k] = copy.deepcopy(v)

    def mlflow_store(self, rid):
        """The metrics of MLflow run @rid (the run is created when missing)."""
        cur = self.mlflow.setdefault(rid, {"experiment_id": "0", "run_name": rid, "artifacts": {}})
        return cur.setdefault("metric_store", MetricStore())

    def add_experiment(self, name, artifact_location=None):
        """A new MLflow experiment @name; returns its id."""
        self.experiment_seq += 1
        eid = str(4000000000000000 + self.experiment_seq)
        self.experiments[name] = {"experiment_id": eid, "artifact_location": artifact_location,
                                  "acl": []}
        return eid

    # -- OAuth -----------------------------------------------------------
    def issue_token(self, expires_in):
        self.at_counter += 1
        tok = "at-%d" % self.at_counter
        self.oauth_tokens[tok] = now_ms() + expires_in * 1000
        return tok

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

    # -- request records -------------------------------------------------
    def record(self, req):
        """Append the request to the records; returns the entry (None when not recording)."""
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

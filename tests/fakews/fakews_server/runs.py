"""Runs: the stored run, how a time-driven run advances (its life cycle), the
runs/get view, and the edits tests make (create, patch, bookkeeping view)."""

import copy

from .logstore import LogStore
from .replies import ApiError, bad
from .values import id_key, now_ms

TERMINAL_STATES = ("TERMINATED", "SKIPPED", "INTERNAL_ERROR")


class Run:
    """A stored run: the run object plus fakews bookkeeping."""

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
    """(life_cycle_state, result_state, message, start_time, end_time) of a
    time-driven run at @now: PENDING, RUNNING, then the configured result."""
    L = run.life
    start = L["t0"] + int(L.get("pending_ms", 0))
    end = start + int(L.get("running_ms", 0))
    c = run.cancelled_ms
    if c is not None and c < end:
        return ("TERMINATED", "CANCELED", "Run cancelled.", start if c >= start else 0, c)
    # A phase of zero length is never seen, also in the millisecond that a
    # zero-length run's start may be moved by (add_auto_logs below).
    if now < start and int(L.get("pending_ms", 0)) > 0:
        return ("PENDING", None, "", 0, 0)
    if now < end and int(L.get("running_ms", 0)) > 0:
        return ("RUNNING", None, "", start, 0)
    result = L.get("result", "SUCCESS")
    if result in ("INTERNAL_ERROR", "SKIPPED"):
        return (result, "FAILED" if result == "INTERNAL_ERROR" else None,
                L.get("state_message", ""), start, end)
    return ("TERMINATED", result, L.get("state_message", ""), start, end)


# Termination details of a result: the Jobs API's codes and types (how the
# platform fills them for AI Runtime runs is not documented).
TERMINATIONS = {
    "SUCCESS": ("SUCCESS", "SUCCESS"),
    "FAILED": ("RUN_EXECUTION_ERROR", "CLIENT_ERROR"),
    "TIMEDOUT": ("CANCELED", "CLIENT_ERROR"),
    "CANCELED": ("USER_CANCELED", "CLIENT_ERROR"),
}


def status_view(lcs, rs, msg):
    """The Jobs API's "status" of a run or task: its state and, once it has
    ended, the termination details (message = the state message)."""
    if not rs and lcs not in TERMINAL_STATES:
        return {"state": lcs}
    code, kind = ("INTERNAL_ERROR", "INTERNAL_ERROR") if lcs == "INTERNAL_ERROR" \
        else TERMINATIONS.get(rs, ("INTERNAL_ERROR", "INTERNAL_ERROR"))
    return {"state": "TERMINATED",
            "termination_details": {"code": code, "type": kind, "message": msg}}


def run_view(run, now):
    """The run as runs/get serves it at @now (a copy; state, status and times
    filled in for a time-driven run)."""
    v = copy.deepcopy(run.obj)
    if run.life is not None:
        lcs, rs, msg, st, et = life_state(run, now)
        state = {"life_cycle_state": lcs, "state_message": msg,
                 "user_cancelled_or_timedout": rs == "CANCELED"}
        if rs:
            state["result_state"] = rs
        v["state"] = state
        v["status"] = status_view(lcs, rs, msg)
        v["start_time"] = st
        v["end_time"] = et
        for t in v.get("tasks") or []:
            if isinstance(t, dict):
                t["state"] = copy.deepcopy(state)
                t["status"] = copy.deepcopy(v["status"])
                t["start_time"] = st
                t["end_time"] = et
    return v


def view_terminal(v):
    """Whether a run view has finished (terminal life cycle or final result)."""
    st = v.get("state") or {}
    return st.get("life_cycle_state") in TERMINAL_STATES or \
        st.get("result_state") in ("SUCCESS", "FAILED", "CANCELED", "TIMEDOUT")


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
    """Whether the run is an AI Runtime run (listed by the workflows index)."""
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


def add_auto_logs(run, setting):
    """Synthetic log lines of a submitted run per the auto_logs configuration,
    spread evenly over its RUNNING time, one block per node; then the lines
    of "last" on node "last_node", stamped just before the run ends (how a
    failed workload's log ends)."""
    n = setting or 0
    text = "node {node} step {i}"
    last = []
    if isinstance(n, dict):
        text = n.get("text", text)
        last = n.get("last") or []
        last_node = int(n.get("last_node", 0))
        n = n.get("count", 0)
    n = int(n)
    tasks = run.obj.get("tasks") or []
    nodes = nodes_of(tasks[0]) if tasks else 1
    L = run.life
    # A run of zero length has its lines at its end instant, which a
    # client's exclusive upper bound (the end rounded up to a whole second,
    # docs/runs-and-logs.md) leaves out when the end falls on a whole second: such a
    # run starts a millisecond later instead.
    if int(L.get("running_ms", 0)) <= 0 and \
            (L["t0"] + int(L.get("pending_ms", 0))) % 1000 == 0:
        L["t0"] += 1
    start_ns = (L["t0"] + int(L.get("pending_ms", 0))) * 1000000
    running_ns = int(L.get("running_ms", 0)) * 1000000
    for node in range(nodes if n > 0 else 0):
        run.logs.add_synthetic({"count": n, "start_ns": start_ns, "step_ns": running_ns // n,
                                "node_index": node, "attempt": 0, "text": text})
    if last:
        end_ns = start_ns + running_ns
        run.logs.add_records([{"time_unix_nano": end_ns - len(last) + i, "body": body,
                               "node_index": last_node} for i, body in enumerate(last)])


# -- runs created and edited by tests (control API, runs/get sequences) ------

def apply_patch(st, run, patch):
    """Merge @patch into @run (top level); special keys lifecycle, sequence, output."""
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


def create_run(st, body):
    """Store a run from a (partial) run object; returns its integer id."""
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


def run_info(st, run):
    """The run with fakews bookkeeping, as GET /__fakews/runs/<id> serves it."""
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

"""Jobs runs: runs/submit (validation, idempotency), runs/get (paged tasks or
iterations, scripted sequences), runs/get-output, runs/list and runs/cancel."""

import copy

from .paging import decode_token, encode_token, page_offset
from .replies import bad, json_resp
from .runs import add_auto_logs, apply_patch, run_view, view_terminal
from .values import as_int, id_key, now_ms


def validate_submit(b):
    """Check a runs/submit body; raises 400 INVALID_PARAMETER_VALUE."""
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


def runs_submit(st, req):
    b = req.json()
    validate_submit(b)
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
        add_auto_logs(run, st.config.get("auto_logs"))
    return json_resp({"run_id": rid})


def run_id_param(req):
    v = req.q("run_id")
    if v is None or v == "":
        raise bad("run_id is required")
    rid = id_key(v)
    if rid is None:
        raise bad("Invalid run_id %r" % v)
    return rid


def not_found(rid):
    """An unknown run, in the Jobs style (400, not 404)."""
    return bad("Run %s does not exist." % rid)


def runs_get(st, req):
    """The first page first applies the next scripted patch of the run's sequence."""
    rid = run_id_param(req)
    tok = req.q("page_token")
    with st.lock:
        run = st.runs.get(rid)
        if run is None:
            raise not_found(rid)
        if not tok and run.sequence:
            apply_patch(st, run, run.sequence.pop(0))
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


def runs_get_output(st, req):
    rid = run_id_param(req)
    with st.lock:
        if rid in st.runs and rid not in st.task_index:
            raise bad("Retrieving the output of runs with multiple tasks is not supported. "
                      "Please retrieve the output of each individual task run instead.")
        parent = st.task_index.get(rid)
        run = st.runs.get(parent) if parent is not None else None
        if run is None:
            raise not_found(rid)
        if run.output is not None:
            return json_resp(copy.deepcopy(run.output))
        v = run_view(run, now_ms())
        task = None
        for t in v.get("tasks") or []:
            if isinstance(t, dict) and id_key(t.get("run_id")) == rid:
                task = t
        if task is None:
            raise not_found(rid)
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


def runs_list(st, req):
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
        off = page_offset(req, "list")
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


def runs_cancel(st, req):
    b = req.json()
    if "run_id" not in b:
        raise bad("run_id is required")
    rid = id_key(b["run_id"])
    if rid is None:
        raise bad("Invalid run_id %r" % (b["run_id"],))
    with st.lock:
        run = st.runs.get(rid)
        if run is None:
            raise not_found(rid)
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

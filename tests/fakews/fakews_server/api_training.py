"""AI Runtime training workflows: the index of the user's runs
(/api/2.0/ai-training/workflows) and the logs of a run (by-run-id/<id>/logs)."""

import re
import time

from .config import require_feature
from .logstore import log_page
from .paging import decode_token, encode_token, page_offset, paged
from .replies import ApiError, bad, error_resp, json_resp
from .runs import is_air_run, run_view, view_terminal
from .values import id_key, now_ms, rfc3339

LOGS_PREFIX = "/api/2.0/ai-training/workflows/by-run-id/"
LOGS_RE = re.compile(r"^/api/2\.0/ai-training/workflows/by-run-id/([^/]+)/logs$")


def workflows(st, req):
    """The AI Runtime runs of the configured user, newest first."""
    active = req.q_bool("active_only")
    size = req.q_int("page_size", 0, 0)
    off = page_offset(req, "wf")
    with st.lock:
        require_feature(st.config, "workflows_index")
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
            # Submit time: creation time of time-driven runs, else start_time.
            t = id_key(v.get("start_time")) or run.created_ms
            if run.life is not None:
                t = run.created_ms
            rows.append(((t, run.seq), {"job_run_id": v.get("run_id", run.rid),
                                        "submit_time": rfc3339(t)}))
    rows.sort(key=lambda r: r[0], reverse=True)
    return json_resp(paged([r[1] for r in rows], off, size, "training_workflows", "wf"))


def logs(st, req):
    """One page of a run's log records for one node and attempt; the page token
    carries the key of the last record served."""
    m = LOGS_RE.match(req.path)
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
    with st.lock:
        require_feature(st.config, "logs")
        run = st.runs.get(rid)
        if run is None:
            raise ApiError(404, "RESOURCE_DOES_NOT_EXIST", "Run %d does not exist." % rid)
        view = run_view(run, now_ms())
        if attempt is None:
            attempt = 0
            for t in view.get("tasks") or []:
                if isinstance(t, dict):
                    attempt = max(attempt, id_key(t.get("attempt_number")) or 0)
        # A run seen ended shows every line it wrote: also those stamped at
        # its end when that end is still a moment ahead (a zero-length run
        # whose start add_auto_logs() moved by a millisecond).
        end_ms = (view.get("end_time") or 0) if view_terminal(view) else 0
        cfg = st.config
        srcs = run.logs.snapshot(node, attempt, int(cfg.get("logs_lag_ms") or 0))
        size = min(size or int(cfg["logs_page_size"]), int(cfg["logs_max_page_size"]))
        as_string = bool(cfg.get("logs_time_as_string"))
    # Paged outside the lock: the snapshot copied the explicit records and
    # synthetic blocks never change.
    lo = t_from * 1000000000
    hi = t_to * 1000000000 if t_to else max(time.time_ns(), end_ms * 1000000 + 1)
    recs, last = log_page(srcs, node, lo, hi, asc, cursor, max(1, size), as_string)
    out = {"log_records": recs}
    if last is not None:
        out["next_page_token"] = encode_token({"k": "logs", "a": asc, "c": list(last)})
    return json_resp(out)

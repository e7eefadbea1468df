"""Pre-flight validation (ai-training config:validate) and serverless policies."""

import copy

from .config import require_feature
from .paging import page_offset, paged
from .replies import bad, json_resp


def preflight(st, req):
    body = req.json()
    with st.lock:
        require_feature(st.config, "preflight")
        reply = copy.deepcopy(st.config["preflight"])
    if not isinstance(body.get("task"), dict):
        raise bad("task is required")
    return json_resp(reply)


def list_policies(st, req):
    size = req.q_int("page_size", 1000, 1)
    if size > 1000:
        raise bad("page_size must be <= 1000")
    name = (req.q("filter_by.policy_name") or "").strip().lower()
    off = page_offset(req, "policies")
    with st.lock:
        if st.policies_page_size:
            size = min(size, st.policies_page_size)
        pol = [copy.deepcopy(p) for p in st.policies
               if name in str(p.get("policy_name", "")).lower()]
    return json_resp(paged(pol, off, size, "policies", "policies"))

"""Pools: the provisioned capacities of ai-training (list and get)."""

import copy

from .config import require_feature
from .paging import page_offset, paged
from .replies import ApiError, json_resp

POOL_PREFIX = "/api/2.0/ai-training/provisioned-capacities/"


def pool_obj(p):
    """The served form of a pool given to the control API (with "name": verbatim)."""
    if "name" in p:
        return copy.deepcopy(p)
    return {
        "name": "provisioned-capacities/%s" % p.get("id", ""),
        "spec": {"accelerator_type": p.get("accelerator_type", "GPU_8xH100"),
                 "accelerator_count": p.get("accelerator_count", 8)},
        "status": {"usage": {"used_accelerator_count": p.get("used", 0),
                             "idle_accelerator_count": p.get("idle", 0)}},
    }


def pools_list(st, req):
    size = req.q_int("page_size", 100, 1)
    off = page_offset(req, "pools")
    with st.lock:
        require_feature(st.config, "pools")
        if st.pools_page_size:
            size = min(size, st.pools_page_size)
        items = [pool_obj(p) for p in st.pools]
    return json_resp(paged(items, off, size, "provisioned_capacities", "pools"))


def pool_get(st, req):
    pid = req.path[len(POOL_PREFIX):]
    with st.lock:
        require_feature(st.config, "pools")
        for p in st.pools:
            o = pool_obj(p)
            if o["name"].split("/", 1)[-1] == pid:
                return json_resp(o)
    raise ApiError(404, "RESOURCE_DOES_NOT_EXIST", "Provisioned capacity %s does not exist." % pid)

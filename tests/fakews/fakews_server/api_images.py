"""Container images of ai-compute-manager (get with scripted states, register,
check access) and its compute options."""

import hashlib

from .replies import ApiError, bad, json_resp

IMAGE_FIELDS = ("docker_image_url", "state", "status_message", "manifest_sha256")


def image_view(url, e):
    out = {"docker_image_url": url}
    for k in IMAGE_FIELDS[1:]:
        if k in e:
            out[k] = e[k]
    return out


def image_get(st, req):
    """Each GET first takes the next entry of the registration's "states"."""
    url = req.q("docker_image_url")
    if not url:
        raise bad("docker_image_url is required")
    with st.lock:
        e = st.images.get(url)
        if e is None or not e.get("registered", True):
            raise ApiError(404, "RESOURCE_DOES_NOT_EXIST", "Image %s is not registered." % url)
        if e.get("states"):
            s = e["states"].pop(0)
            if isinstance(s, str):
                e["state"] = s
            elif isinstance(s, dict):
                e.update(s)
        return json_resp(image_view(url, e))


def image_register(st, req):
    b = req.json()
    url = b.get("docker_image_url")
    if not isinstance(url, str) or not url:
        raise bad("docker_image_url is required")
    with st.lock:
        e = st.images.get(url)
        if e is None:
            e = {"state": "AVAILABLE",
                 "manifest_sha256": hashlib.sha256(url.encode()).hexdigest()}
            st.images[url] = e
        e["registered"] = True
        e["registrations"] = e.get("registrations", 0) + 1
        for k in ("credentials_scope", "credentials_key"):
            if k in b:
                e[k] = b[k]
        return json_resp({"image": image_view(url, e)})


def image_access(st, req):
    url = req.q("docker_image_url") or ""
    with st.lock:
        e = st.images.get(url) or {}
        return json_resp({"publicly_accessible": bool(e.get("public", False))})


def compute_options(st, req):
    with st.lock:
        opts = list(st.config.get("compute_options") or [])
    return json_resp({"compute_options": [{"hardware_accelerator": o} for o in opts]})

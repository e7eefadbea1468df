"""Container images of ai-compute-manager (get with scripted states, register,
check access) and its compute options.

A registration may script what a POST does to it: "on_register" (an object
merged into it on every POST: a new digest, a state, "states" for the polls
that follow), "requires_credentials" (a POST without a credential reference
is refused with 403, as a private registry refuses anonymous pulls) and
"rejects_credentials" (a POST naming stored credentials is refused with 401,
as a registry refuses a wrong password). A credential reference must name a
stored secret."""

import copy
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


def _credentials(st, b):
    """The (scope, key) a registration names, checked against the secrets store."""
    scope, key = b.get("credentials_scope"), b.get("credentials_key")
    if scope is None and key is None:
        return None
    if not isinstance(scope, str) or not isinstance(key, str) or not scope or not key:
        raise bad("credentials_scope and credentials_key go together")
    if key not in st.secret_scopes.get(scope, {}):
        raise bad("Secret %s/%s does not exist." % (scope, key))
    return scope, key


def image_register(st, req):
    b = req.json()
    url = b.get("docker_image_url")
    if not isinstance(url, str) or not url:
        raise bad("docker_image_url is required")
    with st.lock:
        creds = _credentials(st, b)
        e = st.images.get(url)
        if e is None:
            e = {"state": "AVAILABLE",
                 "manifest_sha256": hashlib.sha256(url.encode()).hexdigest()}
            st.images[url] = e
        e["registrations"] = e.get("registrations", 0) + 1
        if creds and e.get("rejects_credentials"):
            raise ApiError(401, "UNAUTHENTICATED",
                           "Registry rejected the credentials for %s: unauthorized" % url)
        if not creds and e.get("requires_credentials"):
            raise ApiError(403, "PERMISSION_DENIED",
                           "Registry denied access to %s: authentication required" % url)
        e["registered"] = True
        # A registration scripted without a state or digest gets those of a new one.
        e.setdefault("state", "AVAILABLE")
        e.setdefault("manifest_sha256", hashlib.sha256(url.encode()).hexdigest())
        for k in ("credentials_scope", "credentials_key"):
            e.pop(k, None)
        if creds:
            e["credentials_scope"], e["credentials_key"] = creds
        if isinstance(e.get("on_register"), dict):
            e.update(copy.deepcopy(e["on_register"]))
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

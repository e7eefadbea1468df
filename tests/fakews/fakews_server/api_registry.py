"""A container registry (Docker registry HTTP API v2) on the server's own
address, standing in for a workspace's artifact registry: manifest look-ups
(HEAD/GET /v2/<name>/manifests/<ref>) and a token service (/v2/token), with
HTTP Basic credentials, or bearer tokens when "token_auth" is set.

State (control API /__fakews/registry): {"repositories": {name: {"tags":
[tag, ...], "readers": [user, ...] or absent (every authenticated user)}},
"users": {user: password}, "anonymous": false, "token_auth": false}."""

import base64
import hashlib

from .replies import Resp, json_resp

REGISTRY_PREFIX = "/v2/"
TOKEN_PATH = "/v2/token"


def default_registry():
    return {"repositories": {}, "users": {}, "anonymous": False, "token_auth": False,
            "tokens": {}}


def _errors(status, code, message, headers=None):
    return json_resp({"errors": [{"code": code, "message": message}]}, status, headers)


def _basic_user(reg, req):
    """(user, ok) of a Basic Authorization header; (None, True) without one."""
    auth = req.headers.get("authorization", "")
    if not auth.lower().startswith("basic "):
        return None, True
    try:
        user, _, password = base64.b64decode(auth[6:].strip()).decode("utf-8").partition(":")
    except Exception:
        return None, False
    return user, reg["users"].get(user) == password


def token(st, req):
    with st.lock:
        reg = st.registry
        user, ok = _basic_user(reg, req)
        if not ok or (user is None and not reg["anonymous"]):
            return _errors(401, "UNAUTHORIZED", "authentication required")
        tok = "regtok-%d" % (len(reg["tokens"]) + 1)
        reg["tokens"][tok] = user
    return json_resp({"token": tok, "expires_in": 300})


def manifest(st, req):
    rest = req.path[len(REGISTRY_PREFIX):]
    name, sep, ref = rest.rpartition("/manifests/")
    if not sep or not name or not ref:
        return _errors(404, "NAME_UNKNOWN", "no route")
    with st.lock:
        reg = st.registry
        auth = req.headers.get("authorization", "")
        if reg["token_auth"]:
            user = reg["tokens"].get(auth[7:].strip(), False) \
                if auth.lower().startswith("bearer ") else False
            if user is False:
                challenge = 'Bearer realm="%s%s",service="fakews",scope="repository:%s:pull"' \
                    % (req.base(), TOKEN_PATH, name)
                return _errors(401, "UNAUTHORIZED", "authentication required",
                               [("WWW-Authenticate", challenge)])
        else:
            user, ok = _basic_user(reg, req)
            if not ok or (user is None and not reg["anonymous"]):
                return _errors(401, "UNAUTHORIZED", "authentication required",
                               [("WWW-Authenticate", 'Basic realm="fakews"')])
        repo = reg["repositories"].get(name)
        readers = (repo or {}).get("readers")
        if readers is not None and user not in readers:
            return _errors(403, "DENIED", "requested access to the resource is denied")
        if repo is None or ref not in (repo.get("tags") or []):
            return _errors(404, "MANIFEST_UNKNOWN", "manifest unknown")
    digest = "sha256:" + hashlib.sha256(("%s:%s" % (name, ref)).encode()).hexdigest()
    return Resp(200, b"{}", [("Docker-Content-Digest", digest)],
                "application/vnd.oci.image.manifest.v1+json")

"""Identity and authentication: credential checks of /api/ calls, SCIM Me,
host metadata and the host probe, OIDC discovery and the OAuth token endpoint."""

import base64
import copy
from urllib.parse import parse_qs, unquote_plus

from .replies import Resp, error_resp, json_resp
from .values import now_ms


def authorized(st, req):
    """Whether the request carries an accepted credential (call under the lock)."""
    cfg = st.config
    tokens = cfg.get("tokens") or []
    if not tokens:
        return True
    auth = req.headers.get("authorization", "")
    scheme, _, cred = auth.partition(" ")
    cred = cred.strip()
    if scheme.lower() == "bearer" and cred:
        if cred in tokens:
            return True
        exp = st.oauth_tokens.get(cred)
        return exp is not None and now_ms() < exp
    if scheme.lower() == "basic" and cred:
        try:
            user, _, pw = base64.b64decode(cred).decode("utf-8").partition(":")
        except Exception:
            return False
        return (cfg.get("basic_auth") or {}).get(user) == pw
    return False


def scim_me(st, req):
    with st.lock:
        user = st.config["user"]
        org = st.config["org_id"]
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


def host_metadata(st, req):
    with st.lock:
        md = copy.deepcopy(st.config.get("host_metadata"))
    if md is None:
        return error_resp(404, "ENDPOINT_NOT_FOUND", "no route")
    return json_resp(md)


def host_probe(st, req):
    """HEAD /: the host answers."""
    return Resp(200)


def oidc_discovery(st, req):
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


def oidc_token(st, req):
    """POST /oidc/v1/token: client_credentials (M2M) and refresh_token grants."""
    def oerr(status, code, desc):
        return json_resp({"error": code, "error_description": desc}, status)
    try:
        text = req.body.decode("utf-8")
    except UnicodeDecodeError:
        return oerr(400, "invalid_request", "body is not form-encoded text")
    form = {k: v[0] for k, v in parse_qs(text, keep_blank_values=True).items()}
    grant = form.get("grant_type")
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
            tok = st.issue_token(expires_in)
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
            tok = over.get("access_token") or st.issue_token(expires_in)
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

"""Page tokens (opaque base64url JSON) and the offset paging of list endpoints."""

import base64
import json

from .replies import bad


def encode_token(obj):
    raw = json.dumps(obj, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_token(tok):
    try:
        pad = "=" * (-len(tok) % 4)
        obj = json.loads(base64.urlsafe_b64decode(tok + pad))
        if not isinstance(obj, dict):
            raise ValueError
        return obj
    except Exception:
        raise bad("invalid page_token %r" % tok)


def page_offset(req, kind):
    """The offset in the request's page_token (0 without one); @kind names the list."""
    tok = req.q("page_token")
    if not tok:
        return 0
    t = decode_token(tok)
    if t.get("k") != kind or not isinstance(t.get("o"), int) or t["o"] < 0:
        raise bad("invalid page_token %r" % tok)
    return t["o"]


def paged(items, off, size, key, kind):
    """One page of @items under @key (omitted when empty) plus next_page_token."""
    page = items[off:off + size]
    out = {}
    if page:
        out[key] = page
    if off + size < len(items):
        out["next_page_token"] = encode_token({"k": kind, "o": off + size})
    return out

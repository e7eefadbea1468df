"""Fault rules: their validation, matching requests against them, and applying
them (delays, connection resets, scripted status replies such as a 503 with
Retry-After, hostile bodies: endless, trickled, truncated, echoing the
request, repeating an earlier reply)."""

import copy
import json
import random
import socket
import struct
import time

from .replies import Resp, bad
from .values import as_int

ACTIONS = ("status", "reset_before", "reset_after", "delay", "endless", "trickle", "truncate",
           "echo", "repeat")
# Actions that answer with their own status (default 500); the others with the
# handler's reply, or 200 for "endless".
OWN_STATUS = ("status", "echo")


class FaultRules:
    """The rules in the order added; ids keep counting when the rules are cleared."""

    def __init__(self):
        self.rules = []
        self.seq = 0
        self.rngs = {}     # rule id -> random.Random of its "probability"
        self.replies = {}  # (repeat rule id, path) -> the last reply to a matching request

    def clear(self):
        self.rules = []
        self.rngs = {}
        self.replies = {}

    def add(self, r):
        if not isinstance(r, dict):
            raise bad("fault rule must be an object")
        action = r.get("action", "status")
        if action not in ACTIONS:
            raise bad("unknown fault action %r" % action)
        path = r.get("path")
        if not isinstance(path, str) or not path:
            raise bad("fault rule needs a path")
        prob = r.get("probability", 1)
        if isinstance(prob, bool) or not isinstance(prob, (int, float)) or not 0 <= prob <= 1:
            raise bad("fault probability must be a number from 0 to 1")
        default_status = 500 if action in OWN_STATUS else 200
        self.seq += 1
        rule = {
            "id": self.seq,
            "method": str(r.get("method", "*")),
            "path": path,
            "action": action,
            "status": as_int(r.get("status", default_status), "status", 100),
            "body": r.get("body"),
            "headers": r.get("headers") or {},
            "content_type": r.get("content_type"),
            "times": as_int(r.get("times", 1), "times", -1),
            "after": as_int(r.get("after", 0), "after", 0),
            "delay_ms": as_int(r.get("delay_ms", 0), "delay_ms", 0),
            "query": r.get("query"),
            "body_contains": r.get("body_contains"),
            "probability": prob,
            "seed": as_int(r.get("seed", self.seq), "seed"),
            "interval_ms": as_int(r.get("interval_ms", 100 if action == "trickle" else 0),
                                  "interval_ms", 0),
            "chunk_bytes": as_int(r.get("chunk_bytes", 1 if action == "trickle" else 65536),
                                  "chunk_bytes", 1),
            "limit_bytes": as_int(r.get("limit_bytes", 1 << 32), "limit_bytes", 0),
            "keep_bytes": as_int(r.get("keep_bytes", -1), "keep_bytes", -1),
            "seen": 0,
            "applied": 0,
        }
        if rule["query"] is not None and not isinstance(rule["query"], dict):
            raise bad("fault query must be an object")
        if not isinstance(rule["headers"], dict):
            raise bad("fault headers must be an object")
        if rule["body"] is not None and action in ("endless", "echo") \
                and not isinstance(rule["body"], str):
            raise bad("the body of an %s fault must be a string" % action)
        self.rules.append(rule)
        self.rngs[rule["id"]] = random.Random(rule["seed"])
        return rule["id"]

    @staticmethod
    def matches(rule, req):
        """Whether @rule's method, path, query and body filters select @req."""
        m = rule["method"]
        if m != "*" and m.upper() != req.method:
            return False
        p = rule["path"]
        if p.endswith("*"):
            pre = p[:-1]
            if not (req.path.startswith(pre) or req.raw_path.startswith(pre)):
                return False
        elif p != req.path and p != req.raw_path:
            return False
        q = rule.get("query")
        if q and any(req.query.get(k, [None])[0] != str(v) for k, v in q.items()):
            return False
        bc = rule.get("body_contains")
        return not (bc and bc.encode() not in req.body)

    def match(self, req):
        """(rule, watchers): the first rule that applies to @req (a copy, or None),
        counting it, and the ids of the "repeat" rules that select @req (they
        remember its reply, see remember())."""
        found = None
        watchers = []
        for rule in self.rules:
            if not self.matches(rule, req):
                continue
            if rule["action"] == "repeat":
                watchers.append(rule["id"])
            if found is not None:
                continue
            rule["seen"] += 1
            if rule["seen"] <= rule["after"]:
                continue
            if rule["times"] != -1 and rule["applied"] >= rule["times"]:
                continue
            if rule["probability"] < 1 and \
                    self.rngs[rule["id"]].random() >= rule["probability"]:
                continue
            rule["applied"] += 1
            found = copy.deepcopy(rule)
        return found, watchers

    def remember(self, watchers, req, resp):
        """Keep @resp as the last reply to @req's path for each "repeat" rule in
        @watchers."""
        for rid in watchers:
            self.replies[(rid, req.path)] = resp

    def previous(self, rule_id, req):
        """The reply a "repeat" rule remembered for @req's path, or None."""
        return self.replies.get((rule_id, req.path))


def pause(latency_ms, rule):
    """Sleep the configured latency plus the rule's delay_ms (outside the state lock)."""
    delay = latency_ms + (rule["delay_ms"] if rule else 0)
    if delay > 0:
        time.sleep(delay / 1000.0)


def status_reply(rule):
    """The reply of a "status" rule: JSON body, text body or none, and its headers."""
    b = rule["body"]
    ctype = rule.get("content_type")
    if b is None:
        data = b""
    elif isinstance(b, str):
        data = b.encode("utf-8")
        ctype = ctype or "text/plain; charset=utf-8"
    else:
        data = json.dumps(b).encode()
        ctype = ctype or "application/json"
    return Resp(rule["status"], data, [(k, str(v)) for k, v in rule["headers"].items()], ctype)


def reset_connection(handler):
    """Close the handler's connection abruptly with an RST (SO_LINGER on, timeout 0)."""
    handler.close_connection = True
    try:
        handler.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    except OSError:
        pass
    # rfile holds a reference to the socket: close it first so that the
    # close below really closes the descriptor (sending the RST). wfile is
    # left open: http.server flushes it after the handler returns.
    try:
        handler.rfile.close()
    except OSError:
        pass
    try:
        handler.connection.close()
    except OSError:
        pass


def echo_reply(rule, req):
    """The reply of an "echo" rule: the request's Authorization header and body
    sent back, as a token endpoint that quotes what it received would. The
    rule's string body is a template ({authorization}, {body}) sent as text;
    without one, an OAuth-style JSON error."""
    auth = req.headers.get("authorization", "")
    body = req.body.decode("utf-8", "replace")
    headers = [(k, str(v)) for k, v in rule["headers"].items()]
    if isinstance(rule["body"], str):
        text = rule["body"].replace("{authorization}", auth).replace("{body}", body)
        return Resp(rule["status"], text.encode("utf-8"), headers,
                    rule.get("content_type") or "text/plain; charset=utf-8")
    doc = {"error": "invalid_client",
           "error_description": "rejected Authorization: %s with body %s" % (auth, body)}
    return Resp(rule["status"], json.dumps(doc).encode(), headers, "application/json")


def _head(handler, status, headers, content_type, framing):
    """Status line and headers with @framing ("chunked" or a Content-Length)."""
    handler.send_response(status)
    for k, v in headers:
        handler.send_header(k, v)
    if content_type:
        handler.send_header("Content-Type", content_type)
    if framing == "chunked":
        handler.send_header("Transfer-Encoding", "chunked")
    else:
        handler.send_header("Content-Length", str(framing))
    handler.end_headers()
    handler.wfile.flush()


def _chunk(handler, data):
    handler.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
    handler.wfile.flush()


def send_endless(handler, rule):
    """An "endless" reply: the rule's status, a chunked body that starts with
    the rule's body (a string) and goes on with 'x' in chunk_bytes chunks
    until the client goes away or limit_bytes were sent; then the connection
    closes. The request is not handled."""
    handler.close_connection = True
    ctype = rule.get("content_type") or "application/json"
    head = (rule["body"] if isinstance(rule["body"], str) else '{"filler": "').encode()
    filler = b"x" * rule["chunk_bytes"]
    try:
        _head(handler, rule["status"], [(k, str(v)) for k, v in rule["headers"].items()],
              ctype, "chunked")
        if handler.command == "HEAD":
            return
        _chunk(handler, head)
        sent = len(head)
        while sent < rule["limit_bytes"]:
            _chunk(handler, filler)
            sent += len(filler)
            if rule["interval_ms"]:
                time.sleep(rule["interval_ms"] / 1000.0)
        handler.wfile.write(b"0\r\n\r\n")
        handler.wfile.flush()
    except OSError:
        pass


def send_trickle(handler, resp, rule):
    """A "trickle" reply: @resp (the handler's reply, or the rule's status and
    body when it has one) as a chunked body of chunk_bytes bytes every
    interval_ms, so that a complete reply takes as long as the rule says."""
    try:
        _head(handler, resp.status, resp.headers, resp.content_type, "chunked")
        if handler.command == "HEAD":
            return
        body, n = resp.body, rule["chunk_bytes"]
        for i in range(0, len(body), n):
            if i:
                time.sleep(rule["interval_ms"] / 1000.0)
            _chunk(handler, body[i:i + n])
        handler.wfile.write(b"0\r\n\r\n")
        handler.wfile.flush()
    except OSError:
        handler.close_connection = True


def send_truncated(handler, resp, rule):
    """A "truncate" reply: @resp's headers with a Content-Length 1024 bytes
    beyond its body, then only keep_bytes of the body (default: half), then
    the connection closes."""
    handler.close_connection = True
    body = resp.body
    keep = rule["keep_bytes"] if rule["keep_bytes"] >= 0 else len(body) // 2
    try:
        _head(handler, resp.status, resp.headers + [("Connection", "close")], resp.content_type,
              len(body) + 1024)
        if handler.command != "HEAD":
            handler.wfile.write(body[:keep])
            handler.wfile.flush()
    except OSError:
        pass

"""Fault rules: their validation, matching requests against them, and applying
them (delays, connection resets, scripted status replies such as a 503 with
Retry-After)."""

import copy
import json
import socket
import struct
import time

from .replies import Resp, bad
from .values import as_int

ACTIONS = ("status", "reset_before", "reset_after", "delay")


class FaultRules:
    """The rules in the order added; ids keep counting when the rules are cleared."""

    def __init__(self):
        self.rules = []
        self.seq = 0

    def clear(self):
        self.rules = []

    def add(self, r):
        if not isinstance(r, dict):
            raise bad("fault rule must be an object")
        action = r.get("action", "status")
        if action not in ACTIONS:
            raise bad("unknown fault action %r" % action)
        path = r.get("path")
        if not isinstance(path, str) or not path:
            raise bad("fault rule needs a path")
        self.seq += 1
        rule = {
            "id": self.seq,
            "method": str(r.get("method", "*")),
            "path": path,
            "action": action,
            "status": as_int(r.get("status", 500), "status", 100),
            "body": r.get("body"),
            "headers": r.get("headers") or {},
            "content_type": r.get("content_type"),
            "times": as_int(r.get("times", 1), "times", -1),
            "after": as_int(r.get("after", 0), "after", 0),
            "delay_ms": as_int(r.get("delay_ms", 0), "delay_ms", 0),
            "query": r.get("query"),
            "body_contains": r.get("body_contains"),
            "seen": 0,
            "applied": 0,
        }
        if rule["query"] is not None and not isinstance(rule["query"], dict):
            raise bad("fault query must be an object")
        if not isinstance(rule["headers"], dict):
            raise bad("fault headers must be an object")
        self.rules.append(rule)
        return rule["id"]

    def match(self, req):
        """The first rule that applies to @req (a copy), counting it; None if none does."""
        for rule in self.rules:
            m = rule["method"]
            if m != "*" and m.upper() != req.method:
                continue
            p = rule["path"]
            if p.endswith("*"):
                pre = p[:-1]
                if not (req.path.startswith(pre) or req.raw_path.startswith(pre)):
                    continue
            elif p != req.path and p != req.raw_path:
                continue
            q = rule.get("query")
            if q and any(req.query.get(k, [None])[0] != str(v) for k, v in q.items()):
                continue
            bc = rule.get("body_contains")
            if bc and bc.encode() not in req.body:
                continue
            rule["seen"] += 1
            if rule["seen"] <= rule["after"]:
                continue
            if rule["times"] != -1 and rule["applied"] >= rule["times"]:
                continue
            rule["applied"] += 1
            return copy.deepcopy(rule)
        return None


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

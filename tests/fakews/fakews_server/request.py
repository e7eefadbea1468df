"""The parsed request handed to handlers: decoded and raw path, query, headers
(lower-case names), body bytes, and typed accessors for parameters."""

import json

from .replies import bad
from .values import as_int, now_ms


class Req:
    __slots__ = ("method", "path", "raw_path", "query", "headers", "body", "time_ms", "host")

    def __init__(self, method, path, raw_path, query, headers, body, host):
        self.method = method
        self.path = path
        self.raw_path = raw_path
        self.query = query
        self.headers = headers
        self.body = body
        self.time_ms = now_ms()
        self.host = host

    def q(self, name, default=None):
        v = self.query.get(name)
        return v[0] if v else default

    def q_int(self, name, default=None, minimum=None):
        v = self.q(name)
        if v is None or v == "":
            return default
        return as_int(v, name, minimum)

    def q_bool(self, name, default=False):
        v = self.q(name)
        if v is None or v == "":
            return default
        if v.lower() == "true":
            return True
        if v.lower() == "false":
            return False
        raise bad("%s must be true or false, got %r" % (name, v))

    def body_text(self):
        try:
            return self.body.decode("utf-8")
        except UnicodeDecodeError:
            return None

    def json(self, required=True):
        if not self.body.strip():
            if required:
                raise bad("request body must be a JSON object")
            return {}
        try:
            obj = json.loads(self.body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as e:
            raise bad("malformed JSON body: %s" % e)
        if not isinstance(obj, dict):
            raise bad("request body must be a JSON object")
        return obj

    def base(self):
        """The URL of this server as the client addressed it."""
        return "http://" + self.host

"""Replies and errors: the reply object every handler returns, JSON and error
replies, and the exception that handlers raise to answer with an error."""

import json


class ApiError(Exception):
    """Raised by a handler; answered as {"error_code": code, "message": message}."""

    def __init__(self, status, code, message, headers=None):
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers or []


class Resp:
    """A reply: status, body bytes, extra (name, value) headers, Content-Type."""

    __slots__ = ("status", "body", "headers", "content_type")

    def __init__(self, status=200, body=b"", headers=None, content_type=None):
        self.status = status
        self.body = body
        self.headers = headers or []
        self.content_type = content_type


def json_resp(obj, status=200, headers=None):
    return Resp(status, json.dumps(obj, separators=(",", ":")).encode(), headers, "application/json")


def error_resp(status, code, message, headers=None):
    return json_resp({"error_code": code, "message": message}, status, headers)


def bad(message):
    return ApiError(400, "INVALID_PARAMETER_VALUE", message)

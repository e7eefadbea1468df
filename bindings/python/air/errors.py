"""The exception hierarchy: one class per AIR_E* status, all under AirError.

Every exception carries the details of libair's air_error object (or, for
calls that report only a status, what the status implies).
"""

from . import constants as K
from ._lib import lib


def strerror(code):
    """Static English text of a status code."""
    return lib.air_strerror(int(code)).decode()


def status_name(code):
    """Symbolic name of a status code ("AIR_ENOTFOUND")."""
    return lib.air_status_name(int(code)).decode()


def kind_name(kind):
    """Name of an error kind as used in JSON output ("NOT_FOUND")."""
    name = lib.air_kind_name(int(kind))
    return name.decode() if name else None


# Kind and retryability implied by a status when the call reports no
# air_error (setters, option objects); mirrors lib/errors.c.
_STATUS_KIND = {
    K.ENOMEM: K.KIND_INTERNAL, K.EINVAL: K.KIND_INVALID_ARGUMENT,
    K.ECONFIG: K.KIND_INVALID_CONFIG, K.ENET: K.KIND_TRANSIENT,
    K.ETIMEOUT: K.KIND_TRANSIENT, K.EAUTH: K.KIND_PERMANENT,
    K.ENOTFOUND: K.KIND_NOT_FOUND, K.ECONFLICT: K.KIND_CONFLICT,
    K.ERATELIMIT: K.KIND_TRANSIENT, K.ESERVER: K.KIND_TRANSIENT,
    K.EPROTO: K.KIND_PERMANENT, K.EABORTED: K.KIND_ABORTED,
    K.EINTERRUPTED: K.KIND_ABORTED, K.EUNSUPPORTED: K.KIND_INVALID_ARGUMENT,
    K.EIO: K.KIND_IO, K.EAPI: K.KIND_PERMANENT, K.EREJECTED: K.KIND_INVALID_CONFIG,
    K.ESNAPSHOT: K.KIND_INVALID_CONFIG, K.EPERMISSION: K.KIND_PERMANENT,
    K.EDISABLED: K.KIND_PERMANENT, K.EINTERNAL: K.KIND_INTERNAL,
}


class AirError(Exception):
    """A libair call failed.

    Attributes: code (AIR_E* value), code_name, kind (KIND_*), kind_name,
    message, field (workload field path or None), file, line, column (0 when
    unknown), retryable (bool), http_status (0 when no reply was involved),
    server_code, request_id, retry_after_ms (None when the reply had no
    Retry-After).
    """

    def __init__(self, message, code=None, kind=None, field=None, file=None, line=0,
                 column=0, retryable=False, http_status=0, server_code=None,
                 request_id=None, retry_after_ms=None):
        super().__init__(message)
        self.code = code if code is not None else getattr(type(self), "CODE", None)
        self.kind = kind if kind is not None else _STATUS_KIND.get(self.code, K.KIND_NONE)
        self.message = message
        self.field = field
        self.file = file
        self.line = line
        self.column = column
        self.retryable = bool(retryable)
        self.http_status = http_status
        self.server_code = server_code
        self.request_id = request_id
        self.retry_after_ms = retry_after_ms

    @property
    def code_name(self):
        return status_name(self.code) if self.code is not None else None

    @property
    def kind_name(self):
        return kind_name(self.kind)

    def __str__(self):
        where = ""
        if self.file and self.line:
            where = "%s:%d:%d: " % (self.file, self.line, self.column)
        elif self.file:
            where = "%s: " % self.file
        return where + self.message

    def __repr__(self):
        return "%s(code=%s, kind=%s, message=%r, field=%r)" % (
            type(self).__name__, self.code_name, self.kind_name, self.message, self.field)


def _cls(name, code, doc):
    return type(name, (AirError,), {"CODE": code, "__doc__": doc})


OutOfMemoryError = _cls("OutOfMemoryError", K.ENOMEM, "AIR_ENOMEM: out of memory.")
InvalidArgumentError = _cls("InvalidArgumentError", K.EINVAL, "AIR_EINVAL: invalid argument.")
ConfigError = _cls("ConfigError", K.ECONFIG, "AIR_ECONFIG: the workload configuration is invalid.")
NetworkError = _cls("NetworkError", K.ENET, "AIR_ENET: network failure.")
TimedOutError = _cls("TimedOutError", K.ETIMEOUT, "AIR_ETIMEOUT: a timeout or the retry deadline expired.")
AuthError = _cls("AuthError", K.EAUTH, "AIR_EAUTH: no usable credentials, or they were rejected.")
NotFoundError = _cls("NotFoundError", K.ENOTFOUND, "AIR_ENOTFOUND: the target does not exist.")
ConflictError = _cls("ConflictError", K.ECONFLICT, "AIR_ECONFLICT: already exists or changed concurrently.")
RateLimitError = _cls("RateLimitError", K.ERATELIMIT, "AIR_ERATELIMIT: rate limited until the deadline.")
ServerError = _cls("ServerError", K.ESERVER, "AIR_ESERVER: the workspace failed (5xx).")
ProtocolError = _cls("ProtocolError", K.EPROTO, "AIR_EPROTO: a reply could not be understood.")
AbortedError = _cls("AbortedError", K.EABORTED, "AIR_EABORTED: a callback asked to stop.")
CallInterruptedError = _cls("CallInterruptedError", K.EINTERRUPTED,
                            "AIR_EINTERRUPTED: the call's Interrupt was triggered.")
UnsupportedError = _cls("UnsupportedError", K.EUNSUPPORTED,
                        "AIR_EUNSUPPORTED: unknown option or feature not available.")
LocalIOError = _cls("LocalIOError", K.EIO, "AIR_EIO: local file or process failure.")
ApiError = _cls("ApiError", K.EAPI, "AIR_EAPI: the workspace rejected the request.")
RejectedError = _cls("RejectedError", K.EREJECTED,
                     "AIR_EREJECTED: the workspace's pre-flight validation rejected the config.")
SnapshotError = _cls("SnapshotError", K.ESNAPSHOT, "AIR_ESNAPSHOT: the code snapshot cannot be built.")
PermissionDeniedError = _cls("PermissionDeniedError", K.EPERMISSION, "AIR_EPERMISSION: permission denied.")
FeatureDisabledError = _cls("FeatureDisabledError", K.EDISABLED,
                            "AIR_EDISABLED: the feature is not enabled in this workspace.")
InternalError = _cls("InternalError", K.EINTERNAL, "AIR_EINTERNAL: a libair bug.")

_BY_CODE = {c.CODE: c for c in (
    OutOfMemoryError, InvalidArgumentError, ConfigError, NetworkError, TimedOutError,
    AuthError, NotFoundError, ConflictError, RateLimitError, ServerError, ProtocolError,
    AbortedError, CallInterruptedError, UnsupportedError, LocalIOError, ApiError,
    RejectedError, SnapshotError, PermissionDeniedError, FeatureDisabledError, InternalError)}


def error_class(code):
    """The exception class of a status code (AirError when unknown)."""
    return _BY_CODE.get(code, AirError)


def _s(b):
    return b.decode("utf-8", "replace") if b is not None else None


def from_error(rc, err):
    """Build the exception for status @rc and release @err (an air_error *
    as an int, a c_void_p or None)."""
    ptr = getattr(err, "value", err)
    if not ptr:
        return error_class(rc)(strerror(rc), code=rc)
    try:
        code = lib.air_error_code(ptr)
        if code == K.OK:
            code = rc
        retry_after = lib.air_error_retry_after_ms(ptr)
        return error_class(code)(
            _s(lib.air_error_message(ptr)) or strerror(code), code=code,
            kind=lib.air_error_kind(ptr), field=_s(lib.air_error_field(ptr)),
            file=_s(lib.air_error_file(ptr)), line=lib.air_error_line(ptr),
            column=lib.air_error_column(ptr), retryable=lib.air_error_retryable(ptr),
            http_status=lib.air_error_http_status(ptr),
            server_code=_s(lib.air_error_server_code(ptr)),
            request_id=_s(lib.air_error_request_id(ptr)),
            retry_after_ms=None if retry_after < 0 else retry_after)
    finally:
        lib.air_error_free(ptr)


def check(rc, err=None):
    """Raise the exception of @rc unless it is AIR_OK; always release @err."""
    if rc == K.OK:
        ptr = getattr(err, "value", err)
        if ptr:
            lib.air_error_free(ptr)
        return
    raise from_error(rc, err)


def _unsupported_symbol(name):
    return UnsupportedError("%s is not exported by the loaded libair (%s)" % (name, lib.path),
                            code=K.EUNSUPPORTED)

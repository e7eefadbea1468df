"""The exception hierarchy: one class per AIR_E* status, all under AirError,
each also under the built-in exception it resembles (ValueError for a bad
config or argument, LookupError for a missing run, TimeoutError for a
deadline, OSError for local files: FileNotFoundError / PermissionError when
the file is missing or unreadable)."""

import ctypes as C
import errno as _errno
import os
from datetime import timedelta
from typing import Any, Dict, Optional, Type, Union

from . import constants as K
from ._lib import lib
from .enums import ErrorKind


def strerror(code: int) -> str:
    """Static English text of a status code."""
    return str(lib.air_strerror(int(code)).decode())


def status_name(code: int) -> str:
    """Symbolic name of a status code ("AIR_ENOTFOUND")."""
    return str(lib.air_status_name(int(code)).decode())


# Kind implied by a status when a call reports no air_error (option setters).
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

    ``str(error)`` is libair's message as is: a config error already reads
    "file:line:col: field: problem". Attributes: ``code`` (the AIR_E* value)
    and ``code_name``, ``kind`` (an ErrorKind), ``message``, ``field`` (the
    workload field path, the option at fault such as "profile", or None), ``suggestion`` (the name probably meant,
    or None), ``file``, ``line``, ``column`` (0 when unknown), ``retryable``,
    ``http_status`` (0 when no reply was involved), ``server_code``,
    ``request_id`` and ``retry_after`` (a timedelta, or None).
    """

    CODE: Optional[int] = None

    def __init__(self, message: str, *, code: Optional[int] = None,
                 kind: Optional[ErrorKind] = None, field: Optional[str] = None,
                 suggestion: Optional[str] = None, file: Optional[str] = None,
                 line: int = 0, column: int = 0, retryable: bool = False,
                 http_status: int = 0, server_code: Optional[str] = None,
                 request_id: Optional[str] = None,
                 retry_after: Optional[timedelta] = None) -> None:
        super().__init__(message)
        self.code: int = code if code is not None else (type(self).CODE or 0)
        self.kind: ErrorKind = kind if kind is not None else ErrorKind(
            _STATUS_KIND.get(self.code, K.KIND_NONE))
        self.message = message
        self.field = field
        self.suggestion = suggestion
        self.file = file
        self.line = line
        self.column = column
        self.retryable = retryable
        self.http_status = http_status
        self.server_code = server_code
        self.request_id = request_id
        self.retry_after = retry_after

    @property
    def code_name(self) -> str:
        """Symbolic name of ``code`` ("AIR_ENOTFOUND")."""
        return status_name(self.code)

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return "%s(%r, code=%s, kind=%s, field=%r)" % (
            type(self).__name__, self.message, self.code_name, self.kind.name, self.field)

    def __reduce__(self) -> Any:  # picklable across processes, attributes included
        return (_rebuild, (type(self), self.message, dict(self.__dict__)))


def _rebuild(cls: Type[AirError], message: str, state: Dict[str, Any]) -> AirError:
    exc = cls(message)
    exc.__dict__.update(state)
    return exc


class OutOfMemoryError(AirError, MemoryError):
    """AIR_ENOMEM: out of memory."""
    CODE = K.ENOMEM


class InvalidArgumentError(AirError, ValueError):
    """AIR_EINVAL: an invalid argument (run id, option value, filter)."""
    CODE = K.EINVAL


class ConfigError(AirError, ValueError):
    """AIR_ECONFIG: the workload configuration is invalid."""
    CODE = K.ECONFIG


class NetworkError(AirError, ConnectionError):
    """AIR_ENET: network failure (resolve, connect, reset, TLS)."""
    CODE = K.ENET


class TimedOutError(AirError, TimeoutError):
    """AIR_ETIMEOUT: a timeout, the retry deadline or the call's deadline expired."""
    CODE = K.ETIMEOUT


class AuthError(AirError):
    """AIR_EAUTH: no usable credentials, or the workspace rejected them."""
    CODE = K.EAUTH


class NotFoundError(AirError, LookupError):
    """AIR_ENOTFOUND: the run, file or resource does not exist."""
    CODE = K.ENOTFOUND


class ConflictError(AirError):
    """AIR_ECONFLICT: already exists, or changed concurrently."""
    CODE = K.ECONFLICT


class RateLimitError(AirError):
    """AIR_ERATELIMIT: the workspace kept answering 429 until the deadline."""
    CODE = K.ERATELIMIT


class ServerError(AirError):
    """AIR_ESERVER: the workspace failed (5xx)."""
    CODE = K.ESERVER


class ProtocolError(AirError):
    """AIR_EPROTO: a reply could not be understood."""
    CODE = K.EPROTO


class AbortedError(AirError):
    """AIR_EABORTED: the call was stopped by a callback."""
    CODE = K.EABORTED


class CallInterruptedError(AirError):
    """AIR_EINTERRUPTED: an air.Interrupt of the call (or of its client) was
    triggered. Ctrl-C raises KeyboardInterrupt instead."""
    CODE = K.EINTERRUPTED


class UnsupportedError(AirError, NotImplementedError):
    """AIR_EUNSUPPORTED: unknown option, or a feature the loaded library lacks."""
    CODE = K.EUNSUPPORTED


class LocalIOError(AirError, OSError):
    """AIR_EIO: a local file or helper program failed."""
    CODE = K.EIO


class AirFileNotFoundError(LocalIOError, FileNotFoundError):
    """A file libair was asked to read does not exist (AIR_EIO)."""


class AirFilePermissionError(LocalIOError, PermissionError):
    """A file libair was asked to read cannot be read (AIR_EIO)."""


class ApiError(AirError):
    """AIR_EAPI: the workspace rejected the request (other 4xx)."""
    CODE = K.EAPI


class RejectedError(AirError, ValueError):
    """AIR_EREJECTED: the workspace's pre-flight validation rejected the config."""
    CODE = K.EREJECTED


class SnapshotError(AirError):
    """AIR_ESNAPSHOT: the code snapshot cannot be built."""
    CODE = K.ESNAPSHOT


class PermissionDeniedError(AirError):
    """AIR_EPERMISSION: the workspace denied access (403)."""
    CODE = K.EPERMISSION


class FeatureDisabledError(AirError):
    """AIR_EDISABLED: the feature is not enabled in this workspace."""
    CODE = K.EDISABLED


class InternalError(AirError):
    """AIR_EINTERNAL: a libair bug."""
    CODE = K.EINTERNAL


class NotValidatedError(AirError, RuntimeError):
    """A Config value was read while the config is not validated: before
    its first successful validate(), after a failed one, or after an
    override since. Call validate()."""
    CODE = K.EINVAL


_BY_CODE: Dict[int, Type[AirError]] = {c.CODE: c for c in (
    OutOfMemoryError, InvalidArgumentError, ConfigError, NetworkError, TimedOutError,
    AuthError, NotFoundError, ConflictError, RateLimitError, ServerError, ProtocolError,
    AbortedError, CallInterruptedError, UnsupportedError, LocalIOError, ApiError,
    RejectedError, SnapshotError, PermissionDeniedError, FeatureDisabledError,
    InternalError) if c.CODE is not None}


def error_class(code: int) -> Type[AirError]:
    """The exception class of a status code (AirError when unknown)."""
    return _BY_CODE.get(code, AirError)


def _s(b: Optional[bytes]) -> Optional[str]:
    return b.decode("utf-8", "replace") if b is not None else None


PathArg = Union[str, os.PathLike[str], bytes, None]


def _file_error(exc: AirError, path: PathArg) -> AirError:
    """An AIR_EIO about reading ``path``, with the errno, strerror and filename
    of the file system's answer: FileNotFoundError or PermissionError when
    that is what it says."""
    if path is None:
        return exc
    try:
        with open(path, "rb"):
            return exc
    except OSError as os_exc:
        err = os_exc
    cls: Type[AirError] = type(exc)
    if isinstance(err, FileNotFoundError):
        cls = AirFileNotFoundError
    elif isinstance(err, PermissionError):
        cls = AirFilePermissionError
    new = cls(exc.message)
    new.__dict__.update(exc.__dict__)
    if isinstance(new, OSError):
        new.errno = err.errno if err.errno is not None else _errno.EIO
        new.strerror = err.strerror
        new.filename = os.fsdecode(path)
    return new


def error_of(rc: int, ptr: Optional[int]) -> AirError:
    """The exception for status ``rc`` built from the air_error * ``ptr``
    (borrowed: not released), or from ``rc`` alone when it is None."""
    if not ptr:
        return error_class(rc)(strerror(rc), code=rc)
    code = int(lib.air_error_code(ptr)) or rc
    retry_after = int(lib.air_error_retry_after_ms(ptr))
    kind = int(lib.air_error_kind(ptr))
    return error_class(code)(
        _s(lib.air_error_message(ptr)) or strerror(code), code=code,
        kind=ErrorKind(kind) if kind in ErrorKind._value2member_map_ else None,
        field=_s(lib.air_error_field(ptr)),
        suggestion=_s(lib.air_error_suggestion(ptr)),
        file=_s(lib.air_error_file(ptr)), line=int(lib.air_error_line(ptr)),
        column=int(lib.air_error_column(ptr)),
        retryable=bool(lib.air_error_retryable(ptr)),
        http_status=int(lib.air_error_http_status(ptr)),
        server_code=_s(lib.air_error_server_code(ptr)),
        request_id=_s(lib.air_error_request_id(ptr)),
        retry_after=None if retry_after < 0 else timedelta(milliseconds=retry_after))


def from_error(rc: int, err: "C.c_void_p | int | None", path: PathArg = None) -> AirError:
    """The exception for status ``rc``, built from and releasing ``err`` (an
    air_error * or None); ``path`` is the file the call read, for AIR_EIO."""
    ptr = err.value if isinstance(err, C.c_void_p) else err
    try:
        exc = error_of(rc, ptr)
    finally:
        if ptr:
            lib.air_error_free(ptr)
            if isinstance(err, C.c_void_p):
                err.value = None
    if exc.code == K.EIO:
        exc = _file_error(exc, path)
    return exc


def check(rc: int, err: "C.c_void_p | None" = None, path: PathArg = None) -> None:
    """Raise the exception of ``rc`` unless it is AIR_OK; always release ``err``."""
    if rc == K.OK:
        if err is not None and err.value:
            lib.air_error_free(err)
            err.value = None
        return
    raise from_error(rc, err, path)

"""Conversions shared by the wrappers."""

import ctypes as C
import os
from datetime import datetime, timedelta, timezone
from typing import Any, Optional, Union

from ._lib import lib

StrPath = Union[str, os.PathLike[str]]
Seconds = Union[float, int, timedelta]


def enc(value: Union[str, bytes, os.PathLike[str], None]) -> Optional[bytes]:
    """A str, bytes or path as the bytes of a C string (None stays None)."""
    if value is None:
        return None
    if isinstance(value, bytes):
        return value
    if isinstance(value, os.PathLike):
        return os.fsencode(value)
    if isinstance(value, str):
        return value.encode("utf-8")
    raise TypeError("expected str, bytes or os.PathLike, not %s" % type(value).__name__)


def dec(value: Any) -> Optional[str]:
    """A borrowed C string (bytes from a c_char_p result) as str, or None."""
    return value.decode("utf-8", "replace") if value is not None else None


def take_str(ptr: C.c_void_p) -> Optional[str]:
    """Copy an owned string returned through a char ** and air_free() it."""
    p = ptr.value
    if not p:
        return None
    try:
        return C.string_at(p).decode("utf-8", "replace")
    finally:
        lib.air_free(p)
        ptr.value = None


def bytes_at(ptr: Optional[int], length: int) -> bytes:
    """Bytes of a borrowed (pointer, length) pair."""
    return C.string_at(ptr, length) if ptr else b""


def millis(value: Optional[Seconds], what: str) -> Optional[int]:
    """Seconds (float) or a timedelta as whole milliseconds (None stays None)."""
    if value is None:
        return None
    if isinstance(value, timedelta):
        seconds = value.total_seconds()
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        seconds = float(value)
    else:
        raise TypeError("%s takes seconds (int, float) or a timedelta, not %s"
                        % (what, type(value).__name__))
    if seconds < 0:
        raise ValueError("%s must not be negative" % what)
    return int(round(seconds * 1000))


def from_ms(ms: int) -> Optional[datetime]:
    """Epoch milliseconds (UTC) as an aware datetime; None for 0."""
    return datetime.fromtimestamp(ms / 1000.0, tz=timezone.utc) if ms > 0 else None


def from_ns(ns: int) -> Optional[datetime]:
    """Epoch nanoseconds (UTC) as an aware datetime (microsecond precision); None for 0."""
    if ns <= 0:
        return None
    return datetime.fromtimestamp(ns // 1000000000, tz=timezone.utc) + timedelta(
        microseconds=(ns % 1000000000) // 1000)

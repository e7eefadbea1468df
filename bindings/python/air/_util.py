"""Conversions shared by the wrappers."""

import ctypes as C
import os

from ._lib import lib


def enc(value):
    """A Python string, bytes or path as the bytes of a C string (None stays None)."""
    if value is None:
        return None
    if isinstance(value, bytes):
        return value
    if isinstance(value, os.PathLike):
        return os.fsencode(value)
    if isinstance(value, str):
        return value.encode("utf-8")
    raise TypeError("expected str, bytes or os.PathLike, not %s" % type(value).__name__)


def dec(value):
    """A borrowed C string (bytes from a c_char_p result) as str, or None."""
    return value.decode("utf-8", "replace") if value is not None else None


def take_str(ptr):
    """Copy an owned string returned through a char ** and air_free() it."""
    p = ptr.value if isinstance(ptr, C.c_void_p) else ptr
    if not p:
        return None
    try:
        return C.string_at(p).decode("utf-8", "replace")
    finally:
        lib.air_free(p)


def bytes_at(ptr, length):
    """Bytes of a borrowed (pointer, length) pair."""
    if not ptr:
        return b""
    return C.string_at(ptr, length)


class CallbackGuard:
    """Runs Python callbacks for the duration of one C call.

    A trampoline made by wrap() calls the user's function; a truthy return
    value asks libair to stop (the call then fails with AIR_EABORTED). An
    exception raised by the function is kept, the trampoline returns 1 so
    that libair stops, and raise_pending() raises it again once the C call
    has returned. The CFUNCTYPE objects live as long as the guard, which the
    caller keeps until the C call returns.
    """

    def __init__(self):
        self.pending = None
        self.stopped = False
        self._keep = []

    def wrap(self, cbtype, fn, adapt):
        if fn is None:
            return cbtype()  # a NULL function pointer

        def trampoline(*args):
            if self.pending is not None:
                return 1
            try:
                if fn(*adapt(*args)):
                    self.stopped = True
                    return 1
                return 0
            except BaseException as exc:  # noqa: B902 - KeyboardInterrupt too
                self.pending = exc
                return 1

        cfn = cbtype(trampoline)
        self._keep.append(cfn)
        return cfn

    def raise_pending(self):
        exc, self.pending = self.pending, None
        if exc is not None:
            try:
                raise exc
            finally:
                exc = None


class Owned:
    """What every wrapper of one libair handle (self._h, released by its
    close()) shares: use as a context manager, and release when collected."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if getattr(self, "_h", None):
            self.close()

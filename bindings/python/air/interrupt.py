"""Interrupt: stop a long call (submit, log stream, download) from another thread."""

import ctypes as C

from ._lib import lib
from ._util import Owned
from .errors import check


class Interrupt(Owned):
    """A cancellation flag (air_interrupt).

    Pass it as ``interrupt=`` to Client.submit(), stream_logs() or
    download_logs(); trigger() from any thread makes that call raise
    CallInterruptedError promptly. trigger() and is_triggered are safe from
    any thread; close() only when no call uses the flag any more.
    """

    def __init__(self):
        out = C.c_void_p()
        check(lib.air_interrupt_new(C.byref(out)))
        self._h = out.value

    @property
    def _handle(self):
        if not self._h:
            raise ValueError("operation on a closed Interrupt")
        return self._h

    def trigger(self):
        """Raise the flag."""
        lib.air_interrupt_trigger(self._handle)

    def reset(self):
        """Lower the flag so that the object can be reused."""
        lib.air_interrupt_reset(self._handle)

    @property
    def is_triggered(self):
        return bool(lib.air_interrupt_is_triggered(self._handle))

    def close(self):
        h, self._h = self._h, None
        if h:
            lib.air_interrupt_free(h)


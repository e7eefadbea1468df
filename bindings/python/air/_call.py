"""Blocking libair calls: Ctrl-C, air.Interrupt and exceptions in callbacks.

Every call that can block goes through a Call:

* The call's options carry an air_interrupt of its own (CallInterrupt). The
  air.Interrupt objects the caller passed (the call's and the client's) are
  linked to it while the call runs, so their trigger() raises it.
* On the main thread, for the duration of the C call only, Python's signal
  wakeup descriptor (signal.set_wakeup_fd()) is the interrupt's wakeup
  descriptor: when a signal that has a Python handler arrives (Ctrl-C),
  Python's C-level handler writes a byte there and the C call returns
  AIR_EINTERRUPTED at once. The previous descriptor is restored afterwards,
  so nested calls (a callback making a call) and event loops keep theirs.
* After AIR_EINTERRUPTED the pending Python signal handlers run at once:
  KeyboardInterrupt (or what the user's handler raises) propagates from the
  call. A handler that returns normally makes the call start again, as
  Python does for system calls (PEP 475), unless a linked air.Interrupt was
  triggered: then CallInterruptedError.
* A callback run by the C call records its exception in the call's Scope
  and makes libair stop; the exception is raised once the C call returns.

Calls on other threads never touch the wakeup descriptor (Python delivers
signals to the main thread only): stop them with an air.Interrupt.
"""

import ctypes as C
import signal
import threading
import time
import traceback
from typing import TYPE_CHECKING, Any, Callable, List, Optional, Sequence, Set

from . import constants as K
from ._lib import lib, pythonapi_check_signals
from .errors import PathArg, check, from_error

if TYPE_CHECKING:
    from ._opts import Options

# Guards the links between air.Interrupt objects and CallInterrupts, and the
# C interrupts' reset and free against a concurrent trigger. Re-entrant: a
# Python signal handler may call Interrupt.trigger() on the main thread
# while that thread holds it.
LINK_LOCK = threading.RLock()

_local = threading.local()
_check_signals = pythonapi_check_signals()


class CallInterrupt:
    """An air_interrupt owned by one call or iterator."""

    def __init__(self) -> None:
        out = C.c_void_p()
        rc = int(lib.air_interrupt_new(C.byref(out)))
        if rc != K.OK:
            raise from_error(rc, None)
        self.handle: Optional[int] = out.value
        self.fd = int(lib.air_interrupt_wakeup_fd(self.handle))

    def trigger(self) -> None:
        """Raise it (any thread)."""
        with LINK_LOCK:
            if self.handle:
                lib.air_interrupt_trigger(self.handle)

    def reset(self) -> None:
        """Lower it; no call may be using it."""
        with LINK_LOCK:
            if self.handle:
                lib.air_interrupt_reset(self.handle)

    def free(self) -> None:
        """Release it; no call may be using it."""
        with LINK_LOCK:
            h, self.handle = self.handle, None
        if h:
            lib.air_interrupt_free(h)


class Linkable:
    """What a Call needs of air.Interrupt (defined in interrupt.py)."""

    _calls: Set[CallInterrupt]
    _triggered: bool


class Scope:
    """One C call in progress on this thread: the first exception its
    callbacks raised."""

    def __init__(self) -> None:
        self.pending: Optional[BaseException] = None


def _scopes() -> List[Scope]:
    stack: Optional[List[Scope]] = getattr(_local, "scopes", None)
    if stack is None:
        stack = _local.scopes = []
    return stack


def current_scope() -> Optional[Scope]:
    """The innermost C call of this thread, or None."""
    stack = _scopes()
    return stack[-1] if stack else None


def trampoline(cbtype: Any, fn: Callable[..., object], adapt: Callable[..., Sequence[Any]]) -> Any:
    """A C function pointer of ``cbtype`` calling fn(*adapt(*c_args)). An
    exception stops the C call (return 1) and is raised when it returns; the
    return value of ``fn`` is ignored. Keep the result alive during the call."""

    def call(*args: Any) -> int:
        try:
            scope = current_scope()
            if scope is not None and scope.pending is not None:
                return 1
            fn(*adapt(*args))
            return 0
        except BaseException as exc:  # KeyboardInterrupt included
            scope = current_scope()
            if scope is not None:
                if scope.pending is None:
                    scope.pending = exc
            else:
                traceback.print_exception(type(exc), exc, exc.__traceback__)
            return 1

    return cbtype(call)


def _on_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


def _swap_wakeup_fd(fd: int) -> Optional[int]:
    """Make ``fd`` Python's signal wakeup descriptor; the previous one, or None
    when this interpreter does not allow it here."""
    try:
        return signal.set_wakeup_fd(fd, warn_on_full_buffer=False)
    except (ValueError, OSError):
        return None


def run_signal_handlers() -> None:
    """Run the pending Python signal handlers now (their exception propagates)."""
    if _check_signals is not None:
        _check_signals()


class Call:
    """The interrupt plumbing of one blocking call, or of an iterator's
    successive calls. ``interrupt`` goes on the C options."""

    def __init__(self, *links: Optional[Linkable]) -> None:
        self.links = [link for link in links if link is not None]
        self.intr = CallInterrupt()
        self.spurious = False
        with LINK_LOCK:
            for link in self.links:
                link._calls.add(self.intr)
                if link._triggered:
                    self.intr.trigger()

    @property
    def interrupt(self) -> Optional[int]:
        """The air_interrupt * for the options."""
        return self.intr.handle

    def close(self) -> None:
        """Unlink and release the interrupt; no C call may be using it."""
        with LINK_LOCK:
            for link in self.links:
                link._calls.discard(self.intr)
            self.links = []
        self.intr.free()

    def __enter__(self) -> "Call":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def linked_trigger(self) -> bool:
        """True when a linked air.Interrupt is raised."""
        return any(link._triggered for link in self.links)

    def once(self, fn: Callable[[], int]) -> int:
        """Run the C call ``fn`` once with signals routed to the interrupt;
        raise what its callbacks raised."""
        scope = Scope()
        stack = _scopes()
        stack.append(scope)
        try:
            if _on_main_thread():
                old = _swap_wakeup_fd(self.intr.fd)
                try:
                    rc = int(fn())
                finally:
                    if old is not None:
                        _swap_wakeup_fd(old)
            else:
                rc = int(fn())
        finally:
            stack.pop()
        if scope.pending is not None:
            exc, scope.pending = scope.pending, None
            raise exc
        return rc

    def run(self, fn: Callable[[], int], err: Optional[C.c_void_p] = None,
            resumable: bool = True, before: Optional[Callable[[], None]] = None) -> int:
        """Run the C call ``fn`` to its end. After AIR_EINTERRUPTED the signal
        handlers run (their exception propagates); when none raised and no
        linked air.Interrupt was triggered, the call was woken by a signal
        whose handler returned: it runs again when ``resumable`` (the failed
        attempt's ``err`` released, ``before`` called before each attempt), else
        ``spurious`` is set and AIR_EINTERRUPTED returned."""
        while True:
            if before is not None:
                before()
            try:
                rc = self.once(fn)
            except BaseException:
                if err is not None and err.value:
                    lib.air_error_free(err)
                    err.value = None
                raise
            if rc != K.EINTERRUPTED:
                return rc
            run_signal_handlers()
            if self.linked_trigger() or not _on_main_thread():
                return rc
            self.spurious = True
            if not resumable:
                return rc
            if err is not None and err.value:
                lib.air_error_free(err)
                err.value = None
            self.intr.reset()
            self.spurious = False


def blocking(opts: "Options", links: Sequence[Optional[Linkable]],
             invoke: Callable[[C.c_void_p], int], timeout_ms: Optional[int] = None,
             path: PathArg = None, resumable: bool = True) -> None:
    """Run invoke(err), a C call taking ``opts``, with the interrupt of a Call
    linked to ``links`` on the options and ``timeout_ms`` (None or 0: none) as the
    deadline of all its attempts together; raise its error."""
    end = None if not timeout_ms else time.monotonic() + timeout_ms / 1000.0
    with Call(*links) as call:
        opts.set_interrupt(call.interrupt)

        def before() -> None:
            if end is not None:
                opts.set_deadline_ms(max(1, int((end - time.monotonic()) * 1000)))

        err = C.c_void_p()
        rc = call.run(lambda: invoke(err), err, resumable=resumable, before=before)
        check(rc, err, path)

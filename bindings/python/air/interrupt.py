"""Interrupt: stop blocking calls from another thread."""

from typing import Set

from ._call import LINK_LOCK, CallInterrupt, Linkable


class Interrupt(Linkable):
    """A cancellation flag for blocking calls.

    Pass it as ``interrupt=`` to a blocking call, or to ``Client()`` for
    every call of that client. trigger(), from any thread or a signal
    handler, makes those calls raise CallInterruptedError promptly (a wait
    wakes at once, a transfer is abandoned, a helper program is killed);
    calls started while it is triggered fail at once. reset() lowers it.
    Ctrl-C needs no Interrupt: it raises KeyboardInterrupt by itself.
    """

    def __init__(self) -> None:
        self._calls: Set[CallInterrupt] = set()
        self._triggered = False

    def trigger(self) -> None:
        """Raise the flag: every call using it stops."""
        with LINK_LOCK:
            self._triggered = True
            for call in list(self._calls):
                call.trigger()

    def reset(self) -> None:
        """Lower the flag; calls started from now on run normally."""
        with LINK_LOCK:
            self._triggered = False

    @property
    def is_triggered(self) -> bool:
        """True while the flag is raised."""
        return self._triggered

    def __repr__(self) -> str:
        return "<air.Interrupt %s>" % ("triggered" if self._triggered else "lowered")

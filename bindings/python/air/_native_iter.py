"""What the iterators over libair's pull iterators share (LogStream,
MetricHistory): the client kept in use while they are open, the opening
(options, interrupt, deadline; again after a signal whose handler
returned), the C iterator and its Call released once, and closing by
close(), ``with`` or garbage collection."""

import ctypes as C
import time
from typing import TYPE_CHECKING, Any, Callable, Iterator, List, Optional, Tuple, TypeVar

from ._call import Call
from ._lib import lib
from .errors import check
from .interrupt import Interrupt

if TYPE_CHECKING:
    from .client import Client

T = TypeVar("T")


class NativeIterator(Iterator[T]):
    """Base of an iterator reading a libair iterator on the calling thread.
    A subclass names its options kind (``_KIND``: air_<kind>_options_*) and
    the C function that frees its iterator (``_FREE``), makes the C call
    that opens it (``_open_c``) and implements __next__."""

    _KIND = ""
    _FREE = ""

    def _start(self, client: "Client", ints: List[Tuple[int, int]],
               interrupt: Optional[Interrupt], deadline: Optional[float]) -> None:
        """Keep @client in use until close(); remember how to open."""
        self._client = client
        self._h: Optional[int] = None
        self._call: Optional[Call] = None
        self._ints = ints
        self._interrupt = interrupt
        self._deadline = deadline
        # (setter, ctypes callback) pairs applied to the options; kept alive
        self._keep: List[Tuple[Callable[..., Any], Any]] = []
        self._client_h: Optional[int] = client._acquire()

    def _open_c(self, opts: C.c_void_p, out: C.c_void_p, err: C.c_void_p) -> int:
        raise NotImplementedError

    def _open_first(self) -> None:
        """Open the C iterator; the iterator is closed when that fails."""
        try:
            self._open()
        except BaseException:
            self.close()
            raise

    def _open(self) -> None:
        """Open the C iterator (again, after a signal whose handler returned)."""
        call = self._call = Call(self._interrupt, self._client._interrupt)

        def fn(what: str) -> Any:
            return getattr(lib, "air_%s_options_%s" % (self._KIND, what))

        opts = C.c_void_p()
        check(int(fn("new")(C.byref(opts))))
        try:
            for opt, value in self._ints:
                check(int(fn("set_int")(opts, opt, value)))
            for setter, cfn in self._keep:
                check(int(setter(opts, cfn, None)))
            check(int(fn("set_interrupt")(opts, call.interrupt)))
            out = C.c_void_p()
            err = C.c_void_p()

            def before() -> None:
                if self._deadline is not None:
                    left = max(1, int((self._deadline - time.monotonic()) * 1000))
                    check(int(fn("set_deadline_ms")(opts, left)))

            try:
                rc = call.run(lambda: self._open_c(opts, out, err), err, before=before)
            finally:
                self._h = out.value  # also when a callback raised after a successful open
            check(rc, err)
        finally:
            fn("free")(opts)

    def _free_iter(self) -> None:
        h, self._h = self._h, None
        if h:
            getattr(lib, self._FREE)(h)
        call, self._call = self._call, None
        if call is not None:
            call.close()

    def close(self) -> None:
        """Stop reading and release the iterator (idempotent)."""
        self._free_iter()
        client_h, self._client_h = self._client_h, None
        if client_h:
            self._client._release()

    def __iter__(self) -> "NativeIterator[T]":
        return self

    def __enter__(self) -> "NativeIterator[T]":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        if getattr(self, "_client_h", None):
            self.close()

"""RunListing: the lazy iterator of Client.list_runs()."""

import ctypes as C
import time
from typing import TYPE_CHECKING, Iterator, List, Optional, Tuple

from . import constants as K
from ._call import Call
from ._lib import lib
from ._opts import Options
from ._util import enc
from .errors import check
from .interrupt import Interrupt
from .runs import Run

if TYPE_CHECKING:
    from .client import Client


class RunListing(Iterator[Run]):
    """AI Runtime runs, newest first, read page by page as you iterate
    (each item a Run snapshot). ``truncated`` tells whether the listing
    stopped at max_inspected. close() (or a ``with`` block, exhausting it,
    or garbage collection) releases it."""

    def __init__(self, client: "Client", ints: List[Tuple[int, int]], filters: List[str],
                 interrupt: Optional[Interrupt], timeout_ms: Optional[int]) -> None:
        self._client = client
        self._h: Optional[int] = None
        self._call: Optional[Call] = None
        self.truncated = False
        self._client_h: Optional[int] = client._acquire()
        try:
            self._call = call = Call(interrupt, client._interrupt)
            with Options("list") as opts:
                for opt, value in ints:
                    opts.set_int(opt, value)
                for f in filters:
                    err = C.c_void_p()
                    check(int(lib.air_list_options_add_filter(opts.handle, enc(f), C.byref(err))),
                          err)
                opts.set_interrupt(call.interrupt)
                end = None if not timeout_ms else time.monotonic() + timeout_ms / 1000.0

                def before() -> None:
                    if end is not None:
                        opts.set_deadline_ms(max(1, int((end - time.monotonic()) * 1000)))

                out = C.c_void_p()
                err = C.c_void_p()
                client_h = self._client_h
                try:
                    rc = call.run(lambda: int(lib.air_client_list_runs(
                        client_h, opts.handle, C.byref(out), C.byref(err))), err, before=before)
                finally:
                    self._h = out.value  # also when a callback raised after a successful open
                check(rc, err)
        except BaseException:
            self.close()
            raise

    def __iter__(self) -> "RunListing":
        return self

    def __next__(self) -> Run:
        if self._h is None or self._call is None:
            raise StopIteration
        it, call = self._h, self._call
        ptr = C.c_void_p()
        err = C.c_void_p()
        try:
            rc = call.run(lambda: int(lib.air_run_iter_next(it, C.byref(ptr), C.byref(err))), err)
            if rc == K.EDONE:
                self.close()
                raise StopIteration
            check(rc, err)
            return Run._from_c(ptr.value, self._client)
        except StopIteration:
            raise
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        """Release the listing (idempotent)."""
        h, self._h = self._h, None
        if h:
            self.truncated = bool(lib.air_run_iter_truncated(h))
            lib.air_run_iter_free(h)
        call, self._call = self._call, None
        if call is not None:
            call.close()
        client_h, self._client_h = self._client_h, None
        if client_h:
            self._client._release()

    def __enter__(self) -> "RunListing":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        if getattr(self, "_client_h", None):
            self.close()

"""Metrics: how a run is learning — its MLflow metrics, the latest values and
the histories (MetricHistory, an iterator that can follow a run)."""

import ctypes as C
import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import (TYPE_CHECKING, Any, Callable, Dict, Iterator, List, Mapping, NamedTuple,
                    Optional, Tuple)

from . import constants as K
from ._call import Call, trampoline
from ._lib import lib
from ._signatures import METRICS_POLL_CB
from ._util import dec, enc, from_ms
from .enums import State
from .errors import check
from .interrupt import Interrupt

if TYPE_CHECKING:
    from .client import Client


class MetricPoint(NamedTuple):
    """One point of a metric's history. A NamedTuple, so that a list of them
    is a table: ``pandas.DataFrame(client.metrics(run_id)["loss"])``."""

    step: int
    """The step it was logged at."""
    value: float
    """The value (NaN and infinities as logged)."""
    timestamp: int
    """When it was logged, epoch milliseconds UTC."""
    key: str
    """The metric ("loss", "system/gpu_0_utilization_percentage")."""

    @property
    def time(self) -> Optional[datetime]:
        """When it was logged (aware, UTC), or None."""
        return from_ms(self.timestamp)


@dataclass(frozen=True)
class LatestMetrics(Mapping[str, MetricPoint]):
    """The latest value of each metric of a run (Client.latest_metrics()): a
    mapping of key to MetricPoint, sorted by key, and what was read with it."""

    points: Dict[str, MetricPoint] = field(default_factory=dict)
    """Key to latest point."""
    mlflow_run_id: Optional[str] = None
    """The MLflow run read from; None when the run has none yet."""
    mlflow_status: Optional[str] = None
    """The MLflow run's status ("RUNNING", "FINISHED", "FAILED", "KILLED"), or None."""
    state: State = State.UNKNOWN
    """The Jobs run's display state when the metrics were read."""
    state_name: str = "UNKNOWN"
    """That state as the workspace wrote it."""

    def __getitem__(self, key: str) -> MetricPoint:
        return self.points[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.points)

    def __len__(self) -> int:
        return len(self.points)

    @classmethod
    def _take(cls, m: Optional[int]) -> "LatestMetrics":
        try:
            points = {}
            for i in range(int(lib.air_metrics_count(m))):
                key = dec(lib.air_metrics_key(m, i)) or ""
                points[key] = MetricPoint(int(lib.air_metrics_step(m, i)),
                                          float(lib.air_metrics_value(m, i)),
                                          int(lib.air_metrics_timestamp_ms(m, i)), key)
            return cls(points, dec(lib.air_metrics_mlflow_run_id(m)),
                       dec(lib.air_metrics_mlflow_status(m)),
                       State._from_c(int(lib.air_metrics_run_state(m))),
                       dec(lib.air_metrics_run_state_name(m)) or "UNKNOWN")
        finally:
            lib.air_metrics_free(m)


def _point(pt: Optional[int]) -> MetricPoint:
    return MetricPoint(int(lib.air_metric_point_step(pt)), float(lib.air_metric_point_value(pt)),
                       int(lib.air_metric_point_timestamp_ms(pt)),
                       dec(lib.air_metric_point_key(pt)) or "")


class MetricHistory(Iterator[MetricPoint]):
    """The points of one metric's history, or of every metric of a run, read
    on the calling thread as you iterate (Client.metric_history()), a page at
    a time. With ``follow`` an active run is followed until it ends (it
    blocks between polls) and each point comes once. close() (or a ``with``
    block, or garbage collection) stops early; ``state`` is the run's
    display state at the last poll.
    """

    def __init__(self, client: "Client", run_id: int, key: Optional[str],
                 ints: List[Tuple[int, int]], interrupt: Optional[Interrupt],
                 deadline: Optional[float], on_poll: Optional[Callable[[str], object]]) -> None:
        self._client = client
        self._h: Optional[int] = None
        self._call: Optional[Call] = None
        self._run_id = run_id
        self._key = key
        self._ints = ints
        self._interrupt = interrupt
        self._deadline = deadline
        self._keep: List[Any] = []
        if on_poll is not None:
            self._keep.append(trampoline(METRICS_POLL_CB, on_poll, lambda st, _u: (dec(st) or "",)))
        self._delivered: Dict[str, int] = {}
        self._skip: Dict[str, int] = {}     # after a reopen: points of each key delivered before
        self.state: State = State.UNKNOWN
        """The run's display state at the last poll."""
        self.mlflow_run_id: Optional[str] = None
        """The MLflow run read from, once known."""
        self._client_h: Optional[int] = client._acquire()
        try:
            self._open()
        except BaseException:
            self.close()
            raise

    def _open(self) -> None:
        """Open the C iterator (again, after a signal whose handler returned)."""
        call = self._call = Call(self._interrupt, self._client._interrupt)
        opts = C.c_void_p()
        check(int(lib.air_metrics_options_new(C.byref(opts))))
        try:
            for opt, value in self._ints:
                check(int(lib.air_metrics_options_set_int(opts, opt, value)))
            for cfn in self._keep:
                check(int(lib.air_metrics_options_set_poll_cb(opts, cfn, None)))
            check(int(lib.air_metrics_options_set_interrupt(opts, call.interrupt)))
            out = C.c_void_p()
            err = C.c_void_p()

            def before() -> None:
                if self._deadline is not None:
                    left = max(1, int((self._deadline - time.monotonic()) * 1000))
                    check(int(lib.air_metrics_options_set_deadline_ms(opts, left)))

            try:
                rc = call.run(lambda: int(lib.air_client_open_metric_history(
                    self._client_h, self._run_id, enc(self._key), opts, C.byref(out),
                    C.byref(err))), err, before=before)
            finally:
                self._h = out.value
            check(rc, err)
        finally:
            lib.air_metrics_options_free(opts)

    def __iter__(self) -> "MetricHistory":
        return self

    def __next__(self) -> MetricPoint:
        while True:
            if self._h is None or self._call is None:
                raise StopIteration
            it, call = self._h, self._call
            ptr = C.c_void_p()
            err = C.c_void_p()
            try:
                rc = call.run(lambda: int(lib.air_metric_iter_next(it, C.byref(ptr), C.byref(err))),
                              err, resumable=False)
            except BaseException:
                self.close()
                raise
            self._observe(it)
            if rc == K.OK:
                pt = _point(ptr.value)
                if self._skip.get(pt.key, 0) > 0:   # delivered before a reopen
                    self._skip[pt.key] -= 1
                    continue
                self._delivered[pt.key] = self._delivered.get(pt.key, 0) + 1
                return pt
            if rc == K.EDONE:
                self.close()
                raise StopIteration
            if rc == K.EINTERRUPTED and call.spurious:
                if err.value:
                    lib.air_error_free(err)
                # A history comes key by key in the same order: reading it
                # again and skipping what each key delivered loses nothing.
                self._free_iter()
                self._skip = dict(self._delivered)
                self._open()
                continue
            self.close()
            check(rc, err)

    def _observe(self, it: int) -> None:
        self.state = State._from_c(int(lib.air_metric_iter_run_state(it)))
        self.mlflow_run_id = dec(lib.air_metric_iter_mlflow_run_id(it)) or self.mlflow_run_id

    def _free_iter(self) -> None:
        h, self._h = self._h, None
        if h:
            lib.air_metric_iter_free(h)
        call, self._call = self._call, None
        if call is not None:
            call.close()

    def close(self) -> None:
        """Stop reading and release the iterator (idempotent)."""
        self._free_iter()
        client_h, self._client_h = self._client_h, None
        if client_h:
            self._client._release()

    def __enter__(self) -> "MetricHistory":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        if getattr(self, "_client_h", None):
            self.close()

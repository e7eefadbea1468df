"""Metrics: how a run is learning — its MLflow metrics, the latest values and
the histories (MetricHistory, an iterator that can follow a run)."""

import ctypes as C
from dataclasses import dataclass, field
from datetime import datetime
from typing import (TYPE_CHECKING, Callable, Dict, Iterator, List, Mapping, NamedTuple,
                    Optional, Tuple)

from . import constants as K
from ._call import trampoline
from ._native_iter import NativeIterator
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


class MetricHistory(NativeIterator[MetricPoint]):
    """The points of one metric's history, or of every metric of a run, read
    on the calling thread as you iterate (Client.metric_history()), a page at
    a time. With ``follow`` an active run is followed until it ends (it
    blocks between polls) and each point comes once. close() (or a ``with``
    block, or garbage collection) stops early; ``state`` is the run's
    display state at the last poll.
    """

    _KIND = "metrics"
    _FREE = "air_metric_iter_free"

    def __init__(self, client: "Client", run_id: int, key: Optional[str],
                 ints: List[Tuple[int, int]], interrupt: Optional[Interrupt],
                 deadline: Optional[float], on_poll: Optional[Callable[[str], object]]) -> None:
        self._start(client, ints, interrupt, deadline)
        self._run_id = run_id
        self._key = key
        if on_poll is not None:
            self._keep.append((lib.air_metrics_options_set_poll_cb, trampoline(
                METRICS_POLL_CB, on_poll, lambda st, _u: (dec(st) or "",))))
        self._delivered: Dict[str, int] = {}
        self._skip: Dict[str, int] = {}     # after a reopen: points of each key delivered before
        self.state: State = State.UNKNOWN
        """The run's display state at the last poll."""
        self.mlflow_run_id: Optional[str] = None
        """The MLflow run read from, once known."""
        self._open_first()

    def _open_c(self, opts: C.c_void_p, out: C.c_void_p, err: C.c_void_p) -> int:
        return int(lib.air_client_open_metric_history(self._client_h, self._run_id, enc(self._key),
                                                      opts, C.byref(out), C.byref(err)))

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

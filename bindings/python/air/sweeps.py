"""Sweeps: many variants of one workload, each submitted exactly once
(Client.sweep()), and their outcome."""

import ctypes as C
import json
import time
from dataclasses import dataclass, field
from datetime import timedelta
from typing import (TYPE_CHECKING, Any, Callable, Dict, Iterable, Iterator, List, Mapping,
                    Optional, Sequence, Union)

from . import constants as K
from ._lib import lib
from ._util import dec, enc
from .enums import State, VariantStatus
from .errors import AirError, check, error_of

if TYPE_CHECKING:
    from .client import Client
    from .interrupt import Interrupt
    from .logs import LogStream
    from .runs import CancelReport, Run

Value = Any
"""A value of a point: str, int, float, bool, None, or lists and dicts of them."""


def yaml_value(value: Value) -> str:
    """The override language's text of a Python value: JSON, which is YAML
    (so the string "32" stays a string and 1e-3 a float)."""
    if isinstance(value, float) and value != value:
        raise ValueError("a point's value cannot be NaN")
    return json.dumps(value)


@dataclass(frozen=True)
class Variant:
    """One variant of a sweep: its point and what became of it."""

    index: int
    """Its position in the sweep."""
    point: Dict[str, Value]
    """Its overrides in canonical form ({"parameters.lr": 0.001, ...})."""
    run_name: str
    """The Jobs run name carrying the point ("exp lr=0.001 batch_size=32")."""
    idempotency_key: Optional[str]
    """Its key (None in a dry run without a base key)."""
    status: VariantStatus
    """VALID (dry run), SUBMITTED or FAILED."""
    run_id: Optional[int]
    """The run, or None when it was not submitted."""
    dashboard_url: Optional[str]
    """"<host>/jobs/runs/<id>", or None."""
    launch_dir: Optional[str]
    """Its launch directory, or None."""
    error: Optional[AirError]
    """Why it was not submitted, or None."""
    client: Optional["Client"] = field(default=None, repr=False, compare=False)

    @property
    def submitted(self) -> bool:
        """True when it has a run."""
        return self.run_id is not None

    def _client(self) -> "Client":
        if self.client is None or self.run_id is None:
            raise ValueError("variant %d has no run" % self.index)
        return self.client

    def wait(self, **kwargs: Any) -> "Run":
        """Wait for its run to finish; see Client.wait()."""
        return self._client().wait(int(self.run_id or 0), **kwargs)

    def get(self, **kwargs: Any) -> "Run":
        """A snapshot of its run; see Client.get_run()."""
        return self._client().get_run(int(self.run_id or 0), **kwargs)

    def logs(self, **kwargs: Any) -> "LogStream":
        """Its run's log records; see Client.logs()."""
        return self._client().logs(int(self.run_id or 0), **kwargs)

    @classmethod
    def _from_c(cls, h: Optional[int], i: int, client: Optional["Client"]) -> "Variant":
        run_id = int(lib.air_sweep_variant_run_id(h, i))
        err = lib.air_sweep_variant_error(h, i)
        status = int(lib.air_sweep_variant_status(h, i))
        return cls(i, json.loads(dec(lib.air_sweep_variant_point(h, i)) or "{}"),
                   dec(lib.air_sweep_variant_run_name(h, i)) or "",
                   dec(lib.air_sweep_variant_idempotency_key(h, i)),
                   VariantStatus(status), run_id if run_id > 0 else None,
                   dec(lib.air_sweep_variant_dashboard_url(h, i)),
                   dec(lib.air_sweep_variant_launch_dir(h, i)),
                   error_of(K.EIO, err) if err else None, client)


@dataclass(frozen=True)
class Sweep:
    """The outcome of Client.sweep(): every variant, in order.

    Iterate over it, index it, or ask for ``failed``; ``results()`` waits
    for every run and returns one row per variant (a list of dicts, ready
    for ``pandas.DataFrame``)."""

    base_key: Optional[str]
    """The base of the variants' keys (``air list --sweep BASE``)."""
    variants: List[Variant]
    """One per point."""
    client: Optional["Client"] = field(default=None, repr=False, compare=False)
    resumed: bool = False
    """True when this submission undid an earlier stop (``resume=True``)."""

    def __iter__(self) -> Iterator[Variant]:
        return iter(self.variants)

    def __len__(self) -> int:
        return len(self.variants)

    def __getitem__(self, i: int) -> Variant:
        return self.variants[i]

    @property
    def failed(self) -> List[Variant]:
        """The variants that were not submitted."""
        return [v for v in self.variants if v.status is VariantStatus.FAILED]

    @property
    def run_ids(self) -> List[int]:
        """The runs of the variants that were submitted."""
        return [int(v.run_id) for v in self.variants if v.run_id is not None]

    def cancel(self, **kwargs: Any) -> "CancelReport":
        """Stop the sweep (Client.stop_sweep(): no further variant of it
        starts, wherever it is submitted), then request cancellation of
        every run of this outcome; see Client.cancel_runs()."""
        if self.client is None:
            raise ValueError("a dry run has no runs")
        if self.base_key is not None:
            self.client.stop_sweep(self.base_key, **kwargs)
        return self.client.cancel_runs(self.run_ids, **kwargs)

    def results(self, *, timeout: Union[float, timedelta, None] = None,
                poll_interval: Union[float, timedelta, None] = None,
                interrupt: Optional["Interrupt"] = None) -> List[Dict[str, Any]]:
        """Wait until every run has ended, then one row per variant: its
        index, the point's values (by path), run_id, state (the State's
        name), duration in seconds, succeeded, and error (None, or the reason
        it was not submitted). ``timeout`` bounds the whole wait."""
        end = None if timeout is None else time.monotonic() + (
            timeout.total_seconds() if isinstance(timeout, timedelta) else float(timeout))
        rows: List[Dict[str, Any]] = []
        for v in self.variants:
            row: Dict[str, Any] = {"index": v.index}
            row.update(v.point)
            row.update(run_id=v.run_id, state=None, duration=None, succeeded=False,
                       error=None if v.error is None else str(v.error))
            if v.run_id is not None and self.client is not None:
                left = None if end is None else max(0.001, end - time.monotonic())
                run = self.client.wait(v.run_id, timeout=left, poll_interval=poll_interval,
                                       interrupt=interrupt)
                row.update(state=run.state.name, succeeded=run.state is State.SUCCESS,
                           duration=None if run.duration is None
                           else run.duration.total_seconds())
            rows.append(row)
        return rows

    @classmethod
    def _take(cls, h: Optional[int], client: Optional["Client"]) -> "Sweep":
        """Copy the C sweep @h (not released here)."""
        return cls(dec(lib.air_sweep_base_key(h)),
                   [Variant._from_c(h, i, client) for i in range(int(lib.air_sweep_count(h)))],
                   client, bool(lib.air_sweep_resumed(h)))


def _strings(texts: List[bytes]) -> Any:
    """A C array of the strings (const char *const *); keep @texts alive."""
    arr = (C.c_char_p * max(len(texts), 1))(*texts)
    return C.cast(arr, C.POINTER(C.c_void_p))


class Points:
    """An air_sweep_points built from Python values."""

    def __init__(self, grid: Optional[Mapping[str, Iterable[Value]]],
                 points: Union[Iterable[Mapping[str, Value]], str, None],
                 sample: Optional[int], seed: int) -> None:
        if (grid is None) == (points is None):
            raise ValueError("give either grid= or points=")
        out = C.c_void_p()
        check(int(lib.air_sweep_points_new(C.byref(out))))
        self.handle: Optional[int] = out.value
        try:
            if grid is not None:
                for path, values in grid.items():
                    texts = [yaml_value(v).encode() for v in values]
                    arr = _strings(texts)
                    self._call(lambda err: int(lib.air_sweep_points_add_axis(
                        self.handle, enc(path), arr, len(texts), C.byref(err))))
            elif isinstance(points, str) or hasattr(points, "__fspath__"):
                self._call(lambda err: int(lib.air_sweep_points_load_file(
                    self.handle, enc(str(points)), C.byref(err))))
            else:
                for p in points or ():
                    texts = [("%s=%s" % (k, yaml_value(v))).encode() for k, v in p.items()]
                    arr = _strings(texts)
                    self._call(lambda err: int(lib.air_sweep_points_add_point(
                        self.handle, arr, len(texts), C.byref(err))))
            if sample is not None:
                n = int(sample)
                self._call(lambda err: int(lib.air_sweep_points_sample(
                    self.handle, n, int(seed), C.byref(err))))
        except BaseException:
            self.close()
            raise

    @staticmethod
    def _call(fn: Callable[[C.c_void_p], int]) -> None:
        err = C.c_void_p()
        check(int(fn(err)), err)

    def close(self) -> None:
        """Release the points (idempotent)."""
        h, self.handle = self.handle, None
        if h:
            lib.air_sweep_points_free(h)

    def __enter__(self) -> "Points":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def overrides_of(overrides: Union[Mapping[str, Value], Sequence[str]]) -> List[str]:
    """PATH=VALUE strings from a mapping of Python values or a list of them."""
    if isinstance(overrides, Mapping):
        return ["%s=%s" % (k, yaml_value(v)) for k, v in overrides.items()]
    return [str(o) for o in overrides]

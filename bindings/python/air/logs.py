"""Logs: records, the LogStream iterator, downloads."""

import ctypes as C
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Callable, Iterator, List, Optional, Tuple, cast

from . import constants as K
from ._call import trampoline
from ._native_iter import NativeIterator
from ._lib import lib
from ._signatures import LOG_ATTEMPT_CB, LOG_STATUS_CB, LOG_WAITING_CB
from ._util import bytes_at, dec, from_ns
from .enums import LogSource, State
from .errors import check
from .interrupt import Interrupt

if TYPE_CHECKING:
    from .client import Client


@dataclass(frozen=True)
class LogRecord:
    """One log line of a run (a copy: keep it as long as you like)."""

    raw: bytes
    """The exact bytes of the line, without its newline."""
    time_ns: int
    """Record time in nanoseconds since the epoch; 0 when unknown."""
    node: int
    """The node the line came from."""
    source: LogSource
    """The log endpoint, or MLflow artifacts after a fallback."""
    alert: int = cast(int, None)
    """Number of the first fatal pattern the line matches (see alert_patterns()), or 0.
    Matched when first read (a record nobody asks costs nothing); a value
    given to the constructor is kept."""

    @property
    def line(self) -> str:
        """The line decoded as UTF-8 (invalid bytes replaced)."""
        return self.raw.decode("utf-8", "replace")

    @property
    def time(self) -> Optional[datetime]:
        """Record time (aware, UTC, microsecond precision), or None."""
        return from_ns(self.time_ns)

    @classmethod
    def _from_c(cls, rec: Optional[int]) -> "LogRecord":
        n = C.c_size_t()
        p = lib.air_log_record_line(rec, C.byref(n))
        return cls(bytes_at(p, n.value), int(lib.air_log_record_time_ns(rec)),
                   int(lib.air_log_record_node(rec)),
                   _SOURCES.get(int(lib.air_log_record_source(rec))) or
                   LogSource(int(lib.air_log_record_source(rec))))


_SOURCES = {int(m.value): m for m in LogSource}


def _alert_of(rec: LogRecord) -> int:
    alert = rec.__dict__.get("_alert")
    if alert is None:
        alert = match_alert(rec.raw)
        object.__setattr__(rec, "_alert", alert)
    return cast(int, alert)


def _keep_alert(rec: LogRecord, value: Optional[int]) -> None:
    rec.__dict__["_alert"] = value  # None: matched when first read


# The dataclass keeps its field (constructor, fields(), asdict(), ==): the
# value lives behind a property, computed from the line on first access.
LogRecord.alert = property(  # type: ignore[assignment]
    _alert_of, _keep_alert,
    doc="Number of the first fatal pattern the line matches (see alert_patterns()), or 0; "
        "matched when first read.")


@dataclass(frozen=True)
class LogsSummary:
    """What a finished LogStream observed."""

    records: int
    """Records delivered."""
    state: State
    """Last observed display state of the run."""
    state_name: str
    """That state as the workspace wrote it."""
    terminal: bool
    """True when the run had finished."""
    succeeded: bool
    """True when the run ended SUCCESS."""
    source: LogSource
    """What served the records."""
    no_logs_message: Optional[str]
    """When the run had no log record at all: why (run, state, message); else None."""


def alert_patterns() -> List[str]:
    """The fatal-line patterns (regular expressions); pattern n is item n-1."""
    return [dec(lib.air_log_alert_pattern(i)) or ""
            for i in range(1, int(lib.air_log_alert_pattern_count()) + 1)]


def alert_label(pattern: int) -> Optional[str]:
    """A short label of fatal pattern ``pattern`` ("CUDA out of memory"), or None."""
    return dec(lib.air_log_alert_label(int(pattern)))


def match_alert(line: "str | bytes") -> int:
    """Number of the first fatal pattern that ``line`` matches, or 0."""
    raw = line.encode("utf-8") if isinstance(line, str) else line
    return int(lib.air_log_match_alert(raw, len(raw)))


class LogStream(NativeIterator[LogRecord]):
    """The log records of a run, read on the calling thread as you iterate
    (Client.logs()). For an active run with ``follow`` it blocks between
    polls until the run ends. ``summary`` is set once iteration is complete.
    close() (or a ``with`` block, or garbage collection) stops early.
    """

    _KIND = "logs"
    _FREE = "air_log_iter_free"

    def __init__(self, client: "Client", run_id: int, ints: List[Tuple[int, int]],
                 interrupt: Optional[Interrupt], deadline: Optional[float],
                 on_status: Optional[Callable[[str, Optional[str]], object]],
                 on_waiting: Optional[Callable[[Optional[str]], object]],
                 on_attempt: Optional[Callable[[int], object]] = None) -> None:
        self._start(client, ints, interrupt, deadline)
        self._run_id = run_id
        if on_status is not None:
            self._keep.append((lib.air_logs_options_set_status_cb, trampoline(
                LOG_STATUS_CB, on_status, lambda cur, prev, _u: (dec(cur) or "", dec(prev)))))
        if on_waiting is not None:
            self._keep.append((lib.air_logs_options_set_waiting_cb, trampoline(
                LOG_WAITING_CB, on_waiting, lambda msg, _u: (dec(msg),))))
        if on_attempt is not None:
            self._keep.append((lib.air_logs_options_set_attempt_cb, trampoline(
                LOG_ATTEMPT_CB, on_attempt, lambda attempt, _u: (int(attempt),))))
        self.summary: Optional[LogsSummary] = None
        self._delivered = 0
        self._last_ns = 0
        self._same_ns = 0      # records delivered with time_ns == _last_ns
        self._skip: Optional[Tuple[int, int, int]] = None  # after a reopen: what to skip
        self._open_first()

    def _open_c(self, opts: C.c_void_p, out: C.c_void_p, err: C.c_void_p) -> int:
        return int(lib.air_client_open_logs(self._client_h, self._run_id, opts, C.byref(out),
                                            C.byref(err)))

    def _reopen(self) -> None:
        self._free_iter()
        self._skip = (self._last_ns, self._same_ns, self._delivered)
        self._open()

    def _skipped(self, rec: LogRecord, seen: List[int]) -> bool:
        """After a reopen, whether ``rec`` was delivered before."""
        if self._skip is None:
            return False
        last_ns, same, delivered = self._skip
        if last_ns == 0:  # no times: count records instead
            seen[0] += 1
            if seen[0] <= delivered:
                return True
        elif rec.time_ns < last_ns:
            return True
        elif rec.time_ns == last_ns and seen[0] < same:
            seen[0] += 1
            return True
        self._skip = None
        return False

    def __next__(self) -> LogRecord:
        seen = [0]
        while True:
            if self._h is None or self._call is None:
                raise StopIteration
            it, call = self._h, self._call
            ptr = C.c_void_p()
            err = C.c_void_p()
            if lib.air_log_iter_buffered(it) > 0:
                # Handed out from memory: nothing to wait for, no callback to run.
                rc = int(lib.air_log_iter_next(it, C.byref(ptr), C.byref(err)))
            else:
                try:
                    rc = call.run(lambda: int(lib.air_log_iter_next(it, C.byref(ptr),
                                                                    C.byref(err))),
                                  err, resumable=False)
                except BaseException:
                    self.close()
                    raise
            if rc == K.OK:
                rec = LogRecord._from_c(ptr.value)
                if self._skipped(rec, seen):
                    continue
                self._count(rec)
                return rec
            if rc == K.EDONE:
                self._finish()
                raise StopIteration
            if rc == K.EINTERRUPTED and call.spurious:
                if err.value:
                    lib.air_error_free(err)
                self._reopen()
                seen[0] = 0
                continue
            self.close()
            check(rc, err)

    def _count(self, rec: LogRecord) -> None:
        self._delivered += 1
        if rec.time_ns != self._last_ns:
            self._last_ns, self._same_ns = rec.time_ns, 0
        self._same_ns += 1

    def _finish(self) -> None:
        s = lib.air_log_iter_summary(self._h)
        self.summary = LogsSummary(
            self._delivered, State._from_c(int(lib.air_logs_summary_state(s))),
            dec(lib.air_logs_summary_state_name(s)) or "UNKNOWN",
            bool(lib.air_logs_summary_terminal(s)), bool(lib.air_logs_summary_succeeded(s)),
            LogSource(int(lib.air_logs_summary_source(s))),
            dec(lib.air_logs_summary_no_logs_message(s)))
        self.close()


@dataclass(frozen=True)
class DownloadEntry:
    """One node of a log download."""

    node: int
    """Node index."""
    path: Optional[str]
    """The file written, or None when nothing was."""
    bytes: int
    """Bytes written."""
    complete: bool
    """True when every chunk was downloaded."""
    error: Optional[str]
    """What went wrong, or None."""


@dataclass(frozen=True)
class DownloadReport:
    """The files Client.download_logs() wrote."""

    entries: Tuple[DownloadEntry, ...]
    """One entry per node requested."""
    no_logs_message: Optional[str]
    """When the run has no MLflow logs: why; else None."""
    state: State
    """Display state of the run when the download ended."""
    state_name: str
    """That state as the workspace wrote it."""
    terminal: bool
    """True when the run had finished when the download ended."""
    succeeded: bool
    """True when the run had ended SUCCESS."""

    def __iter__(self) -> Iterator[DownloadEntry]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    @property
    def ok(self) -> bool:
        """True when every node was downloaded completely."""
        return all(e.complete for e in self.entries)

    @classmethod
    def _take(cls, rep: Optional[int]) -> "DownloadReport":
        try:
            return cls(tuple(DownloadEntry(int(lib.air_download_report_node(rep, i)),
                                           dec(lib.air_download_report_path(rep, i)),
                                           int(lib.air_download_report_bytes(rep, i)),
                                           bool(lib.air_download_report_complete(rep, i)),
                                           dec(lib.air_download_report_error(rep, i)))
                             for i in range(int(lib.air_download_report_count(rep)))),
                       dec(lib.air_download_report_no_logs_message(rep)),
                       State._from_c(int(lib.air_download_report_state(rep))),
                       dec(lib.air_download_report_state_name(rep)) or "UNKNOWN",
                       bool(lib.air_download_report_terminal(rep)),
                       bool(lib.air_download_report_succeeded(rep)))
        finally:
            lib.air_download_report_free(rep)

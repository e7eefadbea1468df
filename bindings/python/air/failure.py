"""Why a run failed: air.Failure, read with Client.failure() or Run.failure."""

import ctypes as C
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional, Tuple, Type, TypeVar

from . import constants as K
from ._lib import lib
from ._opts import Options
from ._util import Seconds, bytes_at, dec
from .enums import ExcerptKind, NodeSource, State
from .interrupt import Interrupt

if TYPE_CHECKING:
    from .client import Client


@dataclass(frozen=True)
class Failure:
    """Why a run ended without succeeding: what the platform says, and an
    excerpt of the failing node's log (docs/runs-and-logs.md#why-a-run-failed).

    No root cause is guessed: ``message`` is the platform's, ``excerpt`` the
    log's own lines.
    """

    run_id: int
    """The Jobs run id."""
    state: State
    """How the run ended (FAILED, TIMEDOUT, CANCELED, ...)."""
    state_name: str
    """That state as the workspace wrote it."""
    message: Optional[str]
    """Why the run ended, in the platform's words (the state message, else the
    termination message), or None."""
    node: Optional[int]
    """The node whose log the excerpt comes from; None when the run never started."""
    attempt: int
    """The attempt the report is about, 0-based (the latest one)."""
    excerpt: Tuple[str, ...]
    """The last Python traceback of the node's log, else its first line that
    matches an alert pattern with its neighbours, else its last 20 lines."""
    excerpt_kind: ExcerptKind
    """Which of these the excerpt is (NONE when there is none)."""
    excerpt_omitted: int
    """Lines of a long traceback left out after its first line."""
    excerpt_problem: Optional[str]
    """Why there is no excerpt (the log could not be read, or has no line)."""
    alert_label: Optional[str]
    """What an alert pattern says of the excerpt ("CUDA out of memory"), or None."""
    node_source: NodeSource
    """How the node was chosen: named by the platform, found by its traceback, ..."""
    attempts_allowed: Optional[int]
    """max_retries + 1; None when retries are unlimited."""
    state_message: Optional[str]
    """state.state_message of runs/get."""
    termination_code: Optional[str]
    """status.termination_details.code ("RUN_EXECUTION_ERROR")."""
    termination_type: Optional[str]
    """status.termination_details.type ("CLIENT_ERROR")."""
    termination_message: Optional[str]
    """status.termination_details.message."""

    summary: str = ""
    """The report's first line, as ``air`` prints it: "Run 7 FAILED (attempt 2
    of 2, node 0): <message>" (a last "(attempt N)" of the message, which the
    place says already, left out). Made by the library when it reads the
    report: a copy with another ``message`` keeps it."""

    def __str__(self) -> str:
        return "\n".join([self.summary] + ["  " + line for line in self.excerpt])

    @classmethod
    def _from_c(cls, f: int) -> "Failure":
        def s(name: str) -> Optional[str]:
            return dec(getattr(lib, "air_failure_" + name)(f))

        lines = []
        for i in range(int(lib.air_failure_excerpt_count(f))):
            n = C.c_size_t()
            p = lib.air_failure_excerpt_line(f, i, C.byref(n))
            lines.append(bytes_at(p, n.value).decode("utf-8", "replace"))
        node = int(lib.air_failure_node(f))
        allowed = int(lib.air_failure_attempts_allowed(f))
        return cls(
            run_id=int(lib.air_failure_run_id(f)),
            state=State._from_c(int(lib.air_failure_state(f))),
            state_name=s("state_name") or "UNKNOWN", message=s("message"),
            node=node if node >= 0 else None, attempt=int(lib.air_failure_attempt(f)),
            excerpt=tuple(lines), excerpt_kind=_enum(ExcerptKind, lib.air_failure_excerpt_kind(f),
                                                     ExcerptKind.NONE),
            excerpt_omitted=int(lib.air_failure_excerpt_omitted(f)),
            excerpt_problem=s("excerpt_problem"), alert_label=s("alert_label"),
            node_source=_enum(NodeSource, lib.air_failure_node_source(f), NodeSource.NONE),
            attempts_allowed=allowed if allowed >= 0 else None,
            state_message=s("state_message"), termination_code=s("termination_code"),
            termination_type=s("termination_type"), termination_message=s("termination_message"),
            summary=s("summary") or "")


E = TypeVar("E", ExcerptKind, NodeSource)


def _enum(kind: Type[E], value: int, default: E) -> E:
    """A value of @kind; @default for one this package does not know yet."""
    try:
        return kind(int(value))
    except ValueError:
        return default


def get_failure(client: "Client", run_id: int, *, node: Optional[int], attempt: Optional[int],
                excerpt_lines: Optional[int], scan_lines: Optional[int],
                scan_nodes: Optional[int], interrupt: Optional[Interrupt],
                timeout: Optional[Seconds]) -> Optional[Failure]:
    """Client.failure()."""
    out = C.c_void_p()
    try:
        with Options("failure") as opts:
            for opt, value, what in ((K.FAILURE_NODE, node, "node"),
                                     (K.FAILURE_ATTEMPT, attempt, "attempt"),
                                     (K.FAILURE_EXCERPT_LINES, excerpt_lines, "excerpt_lines"),
                                     (K.FAILURE_SCAN_LINES, scan_lines, "scan_lines"),
                                     (K.FAILURE_SCAN_NODES, scan_nodes, "scan_nodes")):
                opts.set_int(opt, value, what)
            client._blocking(opts, interrupt, lambda h, err: int(lib.air_client_get_failure(
                h, int(run_id), opts.handle, C.byref(out), C.byref(err))), timeout)
        return Failure._from_c(out.value) if out.value else None
    finally:
        lib.air_failure_free(out)

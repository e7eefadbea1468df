"""Runs: snapshots (Run), sweep iterations, cancellation reports."""

import ctypes as C
import functools
import json
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Dict, Iterator, Optional, Tuple

from . import constants as K
from ._lib import lib
from ._util import bytes_at, dec, from_ms, take_str
from .enums import State
from .errors import check, strerror

if TYPE_CHECKING:
    from .client import Client
    from .failure import Failure


@dataclass(frozen=True)
class Iteration:
    """One iteration of a sweep run (read with ``get_run(..., sweep=True)``)."""

    task_key: Optional[str]
    """Task key of the iteration."""
    run_id: int
    """Run id of the iteration (0 when unknown)."""
    state: State
    """Display state."""
    state_name: Optional[str]
    """Display state as the workspace wrote it."""
    experiment: Optional[str]
    """Experiment of the iteration."""


@dataclass(frozen=True)
class SweepStats:
    """Iteration counts of a sweep run."""

    total: int
    """Iterations in the sweep."""
    completed: int
    """Iterations that have finished."""
    succeeded: int
    """Iterations that succeeded."""
    failed: int
    """Iterations that failed."""
    active: int
    """Iterations still running."""


@dataclass(frozen=True)
class Run:
    """A snapshot of one Jobs run, copied out of libair."""

    run_id: int
    """The Jobs run id."""
    name: Optional[str]
    """run_name."""
    creator: Optional[str]
    """creator_user_name."""
    state: State
    """Display state: the result once there is one, else the life cycle state."""
    state_name: str
    """Display state as the workspace wrote it ("SUCCESS", or a state newer than State)."""
    result: Optional[State]
    """The result (SUCCESS, FAILED, CANCELED, ...) once finished, else None."""
    life_cycle_state: Optional[str]
    """state.life_cycle_state as written."""
    state_message: Optional[str]
    """state.state_message."""
    is_terminal: bool
    """True once the run has finished."""
    succeeded: bool
    """True when the result is SUCCESS."""
    is_ai_runtime: bool
    """True for an AI Runtime run."""
    started_at: Optional[datetime]
    """Start (aware, UTC), None before it started."""
    ended_at: Optional[datetime]
    """End (aware, UTC), None while running."""
    task_run_id: int
    """Run id of the last task (0 without tasks)."""
    attempt_number: int
    """attempt_number of the last task (0-based)."""
    latest_attempt: int
    """Highest attempt_number over the tasks."""
    max_retries: int
    """max_retries of the last task; -1 means unlimited."""
    experiment_name: Optional[str]
    """Experiment name without its "/Users/<user>/" prefix."""
    accelerator_type: Optional[str]
    """Accelerator type ("GPU_8xH100")."""
    accelerator_count: int
    """Accelerators (0 when unknown)."""
    accelerators: Optional[str]
    """Display label ("8x H100")."""
    command_path: Optional[str]
    """The uploaded command script."""
    code_source_path: Optional[str]
    """code_source_path of the run."""
    environment_version: Optional[str]
    """environment_version of the default environment."""
    dashboard_url: Optional[str]
    """"<host>/jobs/runs/<id>" (with "?o=<workspace id>" when known)."""
    mlflow_run_id: Optional[str]
    """MLflow run id (get_run(..., mlflow=True))."""
    mlflow_experiment_id: Optional[str]
    """MLflow experiment id (get_run(..., mlflow=True))."""
    mlflow_run_name: Optional[str]
    """MLflow run name (get_run(..., mlflow_name=True))."""
    mlflow_run_url: Optional[str]
    """MLflow run page, when resolved."""
    mlflow_experiment_url: Optional[str]
    """MLflow experiment page, when resolved."""
    status_message: Optional[str]
    """The AI Runtime status message (get_run(..., mlflow=True))."""
    sweep: Optional[SweepStats]
    """Iteration counts when the run is a sweep, else None."""
    iterations: Tuple[Iteration, ...]
    """Sweep iterations (get_run(..., sweep=True))."""
    config_yaml: Optional[str]
    """The workload YAML uploaded with the run (get_run(..., config=True))."""
    json: str = field(repr=False)
    """The merged runs/get object as JSON text."""
    client: Optional["Client"] = field(default=None, repr=False, compare=False)
    """The client that read the run (what ``failure`` reads through)."""

    @functools.cached_property
    def failure(self) -> Optional["Failure"]:
        """Why the run failed (an :class:`air.Failure`): None for a run that
        succeeded or is still going, without a request; else read once
        through the client that read the run (:meth:`Client.failure`), then
        kept. Ctrl-C stops the read (KeyboardInterrupt)."""
        if not self.is_terminal or self.succeeded:
            return None
        if self.client is None:
            raise ValueError("run %d was not read through a Client" % self.run_id)
        return self.client.failure(self.run_id)

    @property
    def duration(self) -> Optional[timedelta]:
        """ended_at - started_at once both are known, else None."""
        if self.started_at is None or self.ended_at is None:
            return None
        return self.ended_at - self.started_at

    def to_dict(self) -> Dict[str, Any]:
        """The merged runs/get object."""
        doc: Dict[str, Any] = json.loads(self.json) if self.json else {}
        return doc

    @classmethod
    def _from_c(cls, r: Optional[int], client: Optional["Client"] = None) -> "Run":
        if not r:
            raise ValueError("no run")

        def s(name: str) -> Optional[str]:
            return dec(getattr(lib, "air_run_" + name)(r))

        n = C.c_size_t()
        yaml_ptr = lib.air_run_config_yaml(r, C.byref(n))
        out = C.c_void_p()
        err = C.c_void_p()
        check(int(lib.air_run_to_json(r, C.byref(out), C.byref(err))), err)
        result = s("result_state")
        is_sweep = bool(lib.air_run_is_sweep(r))
        return cls(
            run_id=int(lib.air_run_id(r)), name=s("name"), creator=s("creator"),
            state=State._from_c(int(lib.air_run_state(r))),
            state_name=s("state_name") or "UNKNOWN",
            result=State._from_name(result) if result else None,
            life_cycle_state=s("life_cycle_state"), state_message=s("state_message"),
            is_terminal=bool(lib.air_run_is_terminal(r)), succeeded=bool(lib.air_run_succeeded(r)),
            is_ai_runtime=bool(lib.air_run_is_ai_runtime(r)),
            started_at=from_ms(int(lib.air_run_start_time_ms(r))),
            ended_at=from_ms(int(lib.air_run_end_time_ms(r))),
            task_run_id=int(lib.air_run_task_run_id(r)),
            attempt_number=int(lib.air_run_attempt_number(r)),
            latest_attempt=int(lib.air_run_latest_attempt(r)),
            max_retries=int(lib.air_run_max_retries(r)),
            experiment_name=s("experiment_name"), accelerator_type=s("accelerator_type"),
            accelerator_count=int(lib.air_run_accelerator_count(r)),
            accelerators=s("accelerators"), command_path=s("command_path"),
            code_source_path=s("code_source_path"), environment_version=s("environment_version"),
            dashboard_url=s("dashboard_url"), mlflow_run_id=s("mlflow_run_id"),
            mlflow_experiment_id=s("mlflow_experiment_id"), mlflow_run_name=s("mlflow_run_name"),
            mlflow_run_url=s("mlflow_run_url"), mlflow_experiment_url=s("mlflow_experiment_url"),
            status_message=s("status_message"),
            sweep=SweepStats(*(int(lib.air_run_sweep_stat(r, w)) for w in (
                K.SWEEP_TOTAL, K.SWEEP_COMPLETED, K.SWEEP_SUCCEEDED, K.SWEEP_FAILED,
                K.SWEEP_ACTIVE))) if is_sweep else None,
            iterations=tuple(Iteration(dec(lib.air_run_iteration_task_key(r, i)),
                                       int(lib.air_run_iteration_run_id(r, i)),
                                       State._from_c(int(lib.air_run_iteration_state(r, i))),
                                       dec(lib.air_run_iteration_state_name(r, i)),
                                       dec(lib.air_run_iteration_experiment(r, i)))
                             for i in range(int(lib.air_run_iteration_count(r)))),
            config_yaml=bytes_at(yaml_ptr, n.value).decode("utf-8", "replace") if yaml_ptr else None,
            json=take_str(out) or "", client=client)


@dataclass(frozen=True)
class CancelOutcome:
    """What happened to one run of a cancellation."""

    run_id: int
    """The run."""
    code: int
    """AIR_OK (0) when cancellation was requested, else the AIR_E* status."""
    message: Optional[str]
    """Why it failed, or None."""

    @property
    def ok(self) -> bool:
        """True when cancellation was requested."""
        return self.code == K.OK


@dataclass(frozen=True)
class CancelReport:
    """Per-run outcomes of cancel_runs() / cancel_all() / cancel_sweep()."""

    outcomes: Tuple[CancelOutcome, ...]
    """One entry per run."""
    failures: int
    """Number of failed entries."""

    @property
    def ok(self) -> bool:
        """True when every request succeeded."""
        return self.failures == 0

    def __iter__(self) -> Iterator[CancelOutcome]:
        return iter(self.outcomes)

    def __len__(self) -> int:
        return len(self.outcomes)

    @classmethod
    def _take(cls, rep: Optional[int]) -> "CancelReport":
        try:
            outcomes = []
            for i in range(int(lib.air_cancel_report_count(rep))):
                code = int(lib.air_cancel_report_status(rep, i))
                msg = dec(lib.air_cancel_report_message(rep, i))
                outcomes.append(CancelOutcome(int(lib.air_cancel_report_run_id(rep, i)), code,
                                              msg if msg or code == K.OK else strerror(code)))
            return cls(tuple(outcomes), int(lib.air_cancel_report_failures(rep)))
        finally:
            lib.air_cancel_report_free(rep)

"""Small results of calls: submission progress and outcome, pools, image
pushes and registrations, MLflow links, bundles, pre-submit checks."""

from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Callable, Iterator, List, Optional, Tuple, Union

from .enums import CheckStatus, Phase

if TYPE_CHECKING:
    from .client import Client
    from .interrupt import Interrupt
    from .logs import LogStream
    from .runs import Run


@dataclass(frozen=True)
class Progress:
    """A submission progress notification."""

    phase: Phase
    """What the submission is doing."""
    bytes_done: int
    """Bytes transferred so far in this phase (upload phases), else 0."""
    bytes_total: int
    """Total bytes of this phase when known, else 0."""
    detail: Optional[str]
    """What the phase works on (a path, a policy name), or None."""


@dataclass(frozen=True)
class Submission:
    """The outcome of Client.submit(): the run it started."""

    run_id: int
    """The Jobs run id."""
    dashboard_url: str
    """"<host>/jobs/runs/<id>"."""
    idempotency_token: str
    """The idempotency token that was sent (submitting again with it never starts a second run)."""
    launch_dir: str
    """The workspace directory holding command.sh and the other artifacts."""
    code_source_path: Optional[str]
    """code_source_path sent with the run, or None without code_source."""
    snapshot_reused: bool
    """True when an identical code snapshot was already uploaded."""
    client: "Client" = field(repr=False, compare=False)
    """The client that submitted it (used by wait(), logs(), get(), cancel())."""
    warnings: Tuple[str, ...] = ()
    """Steps after runs/submit that failed without failing the submission
    (granting the permissions on the MLflow experiment), and for a rerun the
    settings of the past run its training_config.yaml does not give, kept."""

    def wait(self, timeout: Union[float, timedelta, None] = None, *,
             poll_interval: Union[float, timedelta, None] = None,
             on_state: Optional[Callable[["Run"], object]] = None,
             interrupt: Optional["Interrupt"] = None) -> "Run":
        """Wait for the run to finish; see Client.wait().

        Returns the final :class:`air.Run` whatever its result: a run that
        failed, timed out or was cancelled is no exception. Check
        ``run.succeeded``; ``run.failure`` then tells why (the platform's
        message, the failing node and attempt, and the excerpt of its log:
        its last traceback, else its first alert line, else its last lines)::

            run = sub.wait()
            if not run.succeeded:
                print(run.failure)    # "Run 7 FAILED (attempt 1 of 1, node 0): ..."
        """
        return self.client.wait(self.run_id, timeout=timeout, poll_interval=poll_interval,
                                on_state=on_state, interrupt=interrupt)

    def logs(self, **kwargs: Any) -> "LogStream":
        """The run's log records; see Client.logs()."""
        return self.client.logs(self.run_id, **kwargs)

    def get(self, **kwargs: Any) -> "Run":
        """A snapshot of the run; see Client.get_run()."""
        return self.client.get_run(self.run_id, **kwargs)

    def cancel(self) -> None:
        """Request cancellation of the run."""
        self.client.cancel_run(self.run_id)


@dataclass(frozen=True)
class Pool:
    """A provisioned GPU pool (a value for compute.pool_id)."""

    id: str
    """Bare pool id."""
    accelerator_type: Optional[str]
    """Accelerator type of the pool."""
    reserved_accelerators: int
    """Reserved accelerators."""
    used_accelerators: Optional[int]
    """Accelerators in use; None when the workspace does not report usage."""
    idle_accelerators: Optional[int]
    """Idle accelerators; None when the workspace does not report usage."""


@dataclass(frozen=True)
class ImagePush:
    """The result of Client.push_image()."""

    uc_image: str
    """"<catalog>.<schema>.<artifact>:<tag>": the environment.unity_catalog_image value."""
    registry_image: Optional[str]
    """The full registry reference "<host>/<catalog>.<schema>.<artifact>:<tag>"."""


@dataclass(frozen=True)
class ImageRegistration:
    """The result of Client.register_image(): the image is AVAILABLE."""

    url: str
    """The normalised image URL that was registered ("docker.io/library/ubuntu:22.04")."""
    manifest_sha256: Optional[str]
    """The image's manifest digest as the workspace reports it, or None."""
    status: str
    """The registration state: "AVAILABLE"."""
    image_updated: bool
    """True when this call changed the image the workspace runs: a first
    registration, or a digest different from the one registered before."""
    cached: bool
    """True when the workspace already had this very image (same digest)."""
    credentials_scope: Optional[str]
    """Secret scope of the credentials the registration used; None when anonymous."""
    credentials_key: Optional[str]
    """Secret key of the credentials the registration used; None when anonymous."""

    @property
    def credentials(self) -> Optional[Tuple[str, str]]:
        """(scope, key) of the credentials used, or None when anonymous."""
        if self.credentials_scope is None or self.credentials_key is None:
            return None
        return (self.credentials_scope, self.credentials_key)


@dataclass(frozen=True)
class Bundle:
    """The result of Config.write_bundle(): a Declarative Automation Bundle
    (deploy it with ``databricks bundle deploy``, run it with
    ``databricks bundle run <job_key>``)."""

    dir: str
    """The output directory, absolute."""
    job_key: str
    """The job's resource key (resources.jobs.<key>, the experiment name)."""
    files: List[str]
    """The files written, relative to ``dir``, in order ("databricks.yml",
    "generated_artifacts/command.sh", ...)."""
    removed: List[str]
    """Stale generated artifacts removed (force only), relative to ``dir``."""


@dataclass(frozen=True)
class MlflowLinks:
    """MLflow pages of a run; None while not known yet."""

    run_url: Optional[str]
    """"<host>/ml/experiments/<exp>/runs/<run>"."""
    experiment_url: Optional[str]
    """"<host>/ml/experiments/<exp>"."""


@dataclass(frozen=True)
class Check:
    """One check of a CheckReport (Client.check())."""

    name: str
    """Stable identifier ("secret_key"); docs/cli.md lists them."""
    status: CheckStatus
    """PASS, WARN, FAIL or SKIPPED; str() gives "pass", "warn", "fail", "skipped"."""
    field: Optional[str]
    """The workload field it is about ("secrets.HF_TOKEN"), or None."""
    message: str
    """What was found, or why the check was skipped."""
    bytes: Optional[int] = None
    """Bytes measured (the code snapshot), or None."""
    files: Optional[int] = None
    """Files counted (the code snapshot), or None."""


@dataclass(frozen=True)
class CheckReport:
    """The outcome of Client.check(): its checks in the order they were made;
    iterating over the report gives them."""

    checks: Tuple[Check, ...]
    """Every check."""
    ok: bool
    """True when no check failed (and, with strict=True, none warned)."""

    def __iter__(self) -> Iterator[Check]:
        return iter(self.checks)

    def __len__(self) -> int:
        return len(self.checks)

    def failed(self) -> List[Check]:
        """The checks that failed."""
        return [c for c in self.checks if c.status is CheckStatus.FAIL]

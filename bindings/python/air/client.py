"""Client: one Databricks workspace, and everything done through it."""

import ctypes as C
import io
import os
import threading
import time
import uuid
from contextlib import contextmanager
from typing import (Any, Callable, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence,
                    Tuple, Union)

from . import constants as K
from ._call import blocking, trampoline
from ._lib import lib
from ._signatures import (CHECK_CB, DEBUG_CB, LOG_ATTEMPT_CB, LOG_STATUS_CB, LOG_TEXT_CB,
                          LOG_WAITING_CB, PROGRESS_CB, SWEEP_PROGRESS_CB, WAIT_STATE_CB)
from ._opts import Options
from ._util import Seconds, StrPath, dec, enc, millis, take_str
from .config import Config
from .failure import Failure, get_failure
from .enums import CheckStatus, DebugType, LogSource, Phase, State
from .errors import check
from .interrupt import Interrupt
from .listing import RunListing
from .logs import DownloadReport, LogStream, LogsSummary
from .metrics import LatestMetrics, MetricHistory, MetricPoint
from .results import (Check, CheckReport, ImagePush, ImageRegistration, MlflowLinks, Pool,
                      Progress, Submission)
from .runs import CancelReport, Run
from .sweeps import Points, Sweep, Value, Variant, overrides_of

_STR_OPTIONS = {
    "host": K.OPT_HOST, "token": K.OPT_TOKEN, "profile": K.OPT_PROFILE,
    "config_file": K.OPT_CONFIG_FILE, "client_id": K.OPT_CLIENT_ID,
    "client_secret": K.OPT_CLIENT_SECRET, "auth_type": K.OPT_AUTH_TYPE,
    "username": K.OPT_USERNAME, "password": K.OPT_PASSWORD,
    "workspace_id": K.OPT_WORKSPACE_ID, "user_agent_suffix": K.OPT_USER_AGENT_SUFFIX,
    "ca_file": K.OPT_CA_FILE, "home_dir": K.OPT_HOME_DIR, "auth_storage": K.OPT_AUTH_STORAGE,
    "user_workspace_dir": K.OPT_USER_WORKSPACE_DIR, "default_runtime": K.OPT_DEFAULT_RUNTIME,
    "discovery_url": K.OPT_DISCOVERY_URL,
}
_SECONDS_OPTIONS = {
    "connect_timeout": K.OPT_CONNECT_TIMEOUT_MS, "request_timeout": K.OPT_REQUEST_TIMEOUT_MS,
    "inactivity_timeout": K.OPT_INACTIVITY_TIMEOUT_MS, "retry_deadline": K.OPT_RETRY_DEADLINE_MS,
    "retry_backoff": K.OPT_RETRY_BACKOFF_MS,
}

DebugFn = Callable[[DebugType, str], object]



def _logs_ints(follow: bool, tail: Optional[int], minutes: Optional[int], node: int,
               attempt: Optional[int], poll_interval: Optional[Seconds],
               max_page_failures: Optional[int]) -> List[Tuple[int, int]]:
    """The AIR_LOGS_* integers of a log read (Client.logs(), Client.copy_logs())."""
    ints: List[Tuple[int, int]] = [(K.LOGS_FOLLOW, int(follow)), (K.LOGS_NODE, int(node))]
    for opt, value in ((K.LOGS_TAIL_LINES, tail), (K.LOGS_MINUTES, minutes),
                       (K.LOGS_ATTEMPT, attempt),
                       (K.LOGS_POLL_INTERVAL_MS, millis(poll_interval, "poll_interval")),
                       (K.LOGS_MAX_PAGE_FAILURES, max_page_failures)):
        if value is not None:
            ints.append((opt, int(value)))
    return ints

class Client:
    """A connection to one Databricks workspace, or to the local workspace.

    Configuration is resolved as the Databricks CLI does: the arguments, else
    the DATABRICKS_* environment variables (unless ``use_environment=False``),
    else a ~/.databrickscfg profile::

        client = air.Client()                                    # DATABRICKS_HOST, profiles...
        client = air.Client("https://dbc-1.cloud.databricks.com", "dapi...")
        client = air.Client(profile="dev")
        client = air.Client("local://")                          # runs on this machine

    The host ``local://`` (state in ~/.local/state/air/local) or
    ``local:///some/dir`` is the local workspace: workloads run on this
    machine with the platform's contract, no credentials are read and
    nothing goes over the network (docs/local.md).

    Args:
        host: the workspace URL, or ``local://``.
        token: a personal access token.
        profile: a section of the configuration file (``config_file``,
            default ~/.databrickscfg).
        client_id, client_secret: a service principal (OAuth M2M).
        auth_type: force one method ("pat", "oauth-m2m", "databricks-cli", ...).
        connect_timeout, request_timeout, inactivity_timeout, retry_deadline,
            retry_backoff: seconds (int, float) or timedeltas.
        use_environment: False ignores the DATABRICKS_* variables.
        debug: ``debug(kind, text)`` receives a trace of requests and
            decisions (credentials redacted), also from other threads
            sharing the client.
        interrupt: an :class:`air.Interrupt` that stops every call of this
            client, on every thread, when triggered.

    The other keyword arguments are the Databricks CLI's settings of the
    same names. Every blocking method also takes ``interrupt=`` and (except
    where noted) ``timeout=`` (seconds or a timedelta) and raises an
    :class:`air.AirError` subclass on failure; Ctrl-C stops it
    (KeyboardInterrupt).

    Nothing is contacted until the first call (or :meth:`resolve`). A Client
    may be shared by any number of threads. :meth:`close` (or leaving a
    ``with`` block) refuses new calls; the connection is released once the
    calls and iterators still using it are done.
    """

    def __init__(self, host: Optional[str] = None, token: Optional[str] = None, *,
                 profile: Optional[str] = None, config_file: Optional[StrPath] = None,
                 client_id: Optional[str] = None, client_secret: Optional[str] = None,
                 auth_type: Optional[str] = None, username: Optional[str] = None,
                 password: Optional[str] = None, workspace_id: Optional[str] = None,
                 user_agent_suffix: Optional[str] = None, ca_file: Optional[StrPath] = None,
                 home_dir: Optional[StrPath] = None, auth_storage: Optional[str] = None,
                 user_workspace_dir: Optional[str] = None, default_runtime: Optional[str] = None,
                 discovery_url: Optional[str] = None, connect_timeout: Optional[Seconds] = None,
                 request_timeout: Optional[Seconds] = None,
                 inactivity_timeout: Optional[Seconds] = None,
                 retry_deadline: Optional[Seconds] = None,
                 retry_backoff: Optional[Seconds] = None, use_environment: bool = True,
                 skip_tls_verify: bool = False, rate_limit: Optional[int] = None,
                 max_parallel: Optional[int] = None, debug: Optional[DebugFn] = None,
                 interrupt: Optional[Interrupt] = None) -> None:
        self._lock = threading.Lock()
        self._h: Optional[int] = None
        self._users = 0
        self._closing = False
        self._interrupt = interrupt
        self._debug_cfn: Any = None
        strs: Dict[str, Any] = dict(
            host=host, token=token, profile=profile, config_file=config_file,
            client_id=client_id, client_secret=client_secret, auth_type=auth_type,
            username=username, password=password, workspace_id=workspace_id,
            user_agent_suffix=user_agent_suffix, ca_file=ca_file, home_dir=home_dir,
            auth_storage=auth_storage, user_workspace_dir=user_workspace_dir,
            default_runtime=default_runtime, discovery_url=discovery_url)
        seconds: Dict[str, Optional[Seconds]] = dict(
            connect_timeout=connect_timeout, request_timeout=request_timeout,
            inactivity_timeout=inactivity_timeout, retry_deadline=retry_deadline,
            retry_backoff=retry_backoff)
        opts = C.c_void_p()
        check(int(lib.air_client_options_new(C.byref(opts))))
        try:
            for name, value in strs.items():
                if value is not None:
                    if not isinstance(value, (str, bytes)) and not hasattr(value, "__fspath__"):
                        raise TypeError("%s takes a string, not %s" % (name, type(value).__name__))
                    check(int(lib.air_client_options_set_str(opts, _STR_OPTIONS[name], enc(value))))
            for name, secs in seconds.items():
                ms = millis(secs, name)
                if ms is not None:
                    check(int(lib.air_client_options_set_int(opts, _SECONDS_OPTIONS[name], ms)))
            for opt, flag in ((K.OPT_USE_ENVIRONMENT, use_environment),
                              (K.OPT_SKIP_TLS_VERIFY, skip_tls_verify)):
                check(int(lib.air_client_options_set_int(opts, opt, 1 if flag else 0)))
            for opt, count, what in ((K.OPT_RATE_LIMIT, rate_limit, "rate_limit"),
                                     (K.OPT_MAX_PARALLEL, max_parallel, "max_parallel")):
                if count is not None:
                    if isinstance(count, bool) or not isinstance(count, int):
                        raise TypeError("%s takes an int" % what)
                    check(int(lib.air_client_options_set_int(opts, opt, count)))
            if debug is not None:
                self._debug_cfn = trampoline(DEBUG_CB, debug, _debug_args)
                check(int(lib.air_client_options_set_debug_cb(opts, self._debug_cfn, None)))
            out = C.c_void_p()
            err = C.c_void_p()
            check(int(lib.air_client_new(opts, C.byref(out), C.byref(err))), err)
            self._h = out.value
        finally:
            lib.air_client_options_free(opts)

    # ---- life cycle ------------------------------------------------------

    def _acquire(self) -> int:
        with self._lock:
            if not self._h or self._closing:
                raise ValueError("operation on a closed Client")
            self._users += 1
            return self._h

    def _release(self) -> None:
        with self._lock:
            self._users -= 1
            h = self._h if self._closing and self._users == 0 else None
            if h:
                self._h = None
        if h:
            lib.air_client_free(h)

    @contextmanager
    def _use(self) -> Iterator[int]:
        h = self._acquire()
        try:
            yield h
        finally:
            self._release()

    def close(self) -> None:
        """Refuse new calls; release the connection now, or when the last call
        or iterator still using it is done. Idempotent, never raises."""
        with self._lock:
            self._closing = True
            h = self._h if self._users == 0 else None
            if h:
                self._h = None
        if h:
            lib.air_client_free(h)

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        if getattr(self, "_h", None):
            self.close()

    def __repr__(self) -> str:
        return "<air.Client %s>" % ("closed" if self._closing else (self.host or "unresolved"))

    # ---- one blocking call ---------------------------------------------------

    def _blocking(self, opts: Options, interrupt: Optional[Interrupt],
                  invoke: Callable[[int, C.c_void_p], int], timeout: Optional[Seconds] = None,
                  path: Optional[StrPath] = None) -> None:
        """Run invoke(client, err) with the interrupt and deadline on opts;
        raise its error."""
        ms = millis(timeout, "timeout")
        with self._use() as h:
            blocking(opts, (interrupt, self._interrupt), lambda err: invoke(h, err), ms, path)

    def _simple(self, interrupt: Optional[Interrupt], timeout: Optional[Seconds],
                invoke: Callable[[int, Optional[int], C.c_void_p], int]) -> None:
        """A call taking air_call_options."""
        with Options("call") as opts:
            self._blocking(opts, interrupt, lambda h, err: invoke(h, opts.handle, err), timeout)

    # ---- identity ----------------------------------------------------------

    def resolve(self, *, interrupt: Optional[Interrupt] = None,
                timeout: Optional[Seconds] = None) -> None:
        """Resolve host and credentials now, reporting configuration errors
        (no host, no credentials, unknown profile) before the first request."""
        self._simple(interrupt, timeout,
                     lambda h, o, err: int(lib.air_client_resolve(h, o, C.byref(err))))

    @property
    def host(self) -> Optional[str]:
        """The normalised workspace URL once resolved, else None."""
        with self._use() as h:
            return dec(lib.air_client_host(h))

    @property
    def auth_type(self) -> Optional[str]:
        """The auth method in use ("pat", "oauth-m2m", ...) once resolved, else None."""
        with self._use() as h:
            return dec(lib.air_client_auth_type(h))

    @property
    def profile(self) -> Optional[str]:
        """The profile the configuration came from once resolved, or None."""
        with self._use() as h:
            return dec(lib.air_client_profile(h))

    def current_user(self, *, interrupt: Optional[Interrupt] = None,
                     timeout: Optional[Seconds] = None) -> str:
        """The caller's user name (looked up once, then cached)."""
        out = C.c_void_p()
        try:
            self._simple(interrupt, timeout, lambda h, o, err: int(
                lib.air_client_current_user(h, o, C.byref(out), C.byref(err))))
            return take_str(out) or ""
        finally:
            take_str(out)

    def workspace_id(self, *, interrupt: Optional[Interrupt] = None,
                     timeout: Optional[Seconds] = None) -> int:
        """The numeric workspace id (cached)."""
        out = C.c_int64()
        self._simple(interrupt, timeout, lambda h, o, err: int(
            lib.air_client_workspace_id(h, o, C.byref(out), C.byref(err))))
        return int(out.value)

    # ---- submit ----------------------------------------------------------

    def submit(self, config: Union[Config, StrPath], *, idempotency_key: Optional[str] = None,
               base_dir: Optional[StrPath] = None, skip_preflight: bool = False,
               progress: Optional[Callable[[Progress], object]] = None,
               interrupt: Optional[Interrupt] = None,
               timeout: Optional[Seconds] = None) -> Submission:
        """Submit a workload as a run.

        Args:
            config: a validated :class:`air.Config`, or the path of a YAML file.
            idempotency_key: submitting again with the same key never starts
                a second run (default: the YAML's idempotency_token, else a
                fresh key).
            base_dir: what relative paths of the workload resolve against
                (default: the YAML file's directory).
            skip_preflight: skip the workspace's validation of the config.
            progress: ``progress(Progress)``, called on this thread; an
                exception it raises stops the submission and propagates.

        Returns:
            The :class:`air.Submission`: run id, dashboard URL, ...
        """
        own = None
        if not isinstance(config, Config):
            config = own = Config.load(config)
        try:
            if idempotency_key is None and not config.is_set("idempotency_token"):
                # Fixed here so that a restarted call (a signal whose handler
                # returned) cannot start a second run.
                idempotency_key = str(uuid.uuid4())
            cfn = None if progress is None else trampoline(PROGRESS_CB, progress, _progress_args)
            out = C.c_void_p()
            try:
                with Options("submit") as opts:
                    opts.set_str(K.SUBMIT_IDEMPOTENCY_KEY, idempotency_key)
                    opts.set_str(K.SUBMIT_BASE_DIR, None if base_dir is None else str(base_dir))
                    if skip_preflight:
                        opts.set_int(K.SUBMIT_SKIP_PREFLIGHT, 1)
                    if cfn is not None:
                        check(int(lib.air_submit_options_set_progress_cb(opts.handle, cfn, None)))
                    cfg_h = config._handle
                    self._blocking(opts, interrupt, lambda h, err: int(lib.air_client_submit(
                        h, cfg_h, opts.handle, C.byref(out), C.byref(err))), timeout)
                return _submission(out.value, self)
            finally:
                lib.air_submission_free(out)
        finally:
            if own is not None:
                own.close()

    def check(self, config: Union[Config, StrPath], *, strict: bool = False,
              resources: bool = True, reproducibility: bool = True, sanity: bool = True,
              idempotency_key: Optional[str] = None, base_dir: Optional[StrPath] = None,
              registry_host: Optional[str] = None, docker_config_dir: Optional[StrPath] = None,
              on_check: Optional[Callable[[Check], object]] = None,
              interrupt: Optional[Interrupt] = None,
              timeout: Optional[Seconds] = None) -> CheckReport:
        """Check a workload before submitting it; nothing is uploaded or
        submitted, no secret value is read.

        The resources the workload names in the workspace (secret scopes and
        keys, images, folders, the GPU pool and accelerator type, the
        permissions to grant on the MLflow experiment, the code snapshot) and
        the workspace's pre-flight validation; its reproducibility (pinned
        environment and dependencies, code at a commit); resource sanity. On
        a local workspace the checks have local meanings (the secrets' local
        values, this machine's GPUs and node limit).

        Args:
            config: a validated :class:`air.Config`, or the path of a YAML file.
            strict: a warning fails the report too.
            resources, reproducibility, sanity: False leaves that group out
                (only the resources contact the workspace).
            idempotency_key: the key the submission would use (at most 64 bytes).
            base_dir: what relative paths of the workload resolve against.
            registry_host: the workspace's artifact registry (for
                unity_catalog_image); default: the one Docker is set up for.
            docker_config_dir: the directory of Docker's config.json.
            on_check: ``on_check(Check)`` as each check completes, on this
                thread; an exception it raises stops the call and propagates.

        Returns:
            The :class:`air.CheckReport`: iterate over its checks; ``.ok``
            tells whether the workload is fit to submit. A failing check is
            no exception.
        """
        own = None
        if not isinstance(config, Config):
            config = own = Config.load(config)
        try:
            cfn = None if on_check is None else trampoline(CHECK_CB, on_check, _check_args)
            out = C.c_void_p()
            try:
                with Options("check") as opts:
                    for opt, flag in ((K.CHECKS_STRICT, strict), (K.CHECKS_RESOURCES, resources),
                                      (K.CHECKS_REPRODUCIBILITY, reproducibility),
                                      (K.CHECKS_SANITY, sanity)):
                        opts.set_int(opt, 1 if flag else 0)
                    opts.set_str(K.CHECKS_IDEMPOTENCY_KEY, idempotency_key, "idempotency_key")
                    for opt, value in ((K.CHECKS_BASE_DIR, base_dir),
                                       (K.CHECKS_REGISTRY_HOST, registry_host),
                                       (K.CHECKS_DOCKER_CONFIG_DIR, docker_config_dir)):
                        opts.set_str(opt, None if value is None else str(value))
                    if cfn is not None:
                        check(int(lib.air_check_options_set_check_cb(opts.handle, cfn, None)))
                    cfg_h = config._handle
                    self._blocking(opts, interrupt, lambda h, err: int(lib.air_client_check(
                        h, cfg_h, opts.handle, C.byref(out), C.byref(err))), timeout)
                r = out.value
                return CheckReport(tuple(_check(lib.air_check_report_get(r, i))
                                         for i in range(int(lib.air_check_report_count(r)))),
                                   bool(lib.air_check_report_ok(r)))
            finally:
                lib.air_check_report_free(out)
        finally:
            if own is not None:
                own.close()

    def sweep(self, config: Union[Config, StrPath], *,
              grid: Optional[Mapping[str, Iterable[Value]]] = None,
              points: Union[Iterable[Mapping[str, Value]], StrPath, None] = None,
              sample: Optional[int] = None, seed: int = 0, base_key: Optional[str] = None,
              max_parallel: Optional[int] = None, base_dir: Optional[StrPath] = None,
              skip_preflight: bool = False, dry_run: bool = False, resume: bool = False,
              on_progress: Optional[Callable[[Variant], object]] = None,
              interrupt: Optional[Interrupt] = None,
              timeout: Optional[Seconds] = None) -> Sweep:
        """Submit many variants of a workload, each exactly once
        (docs/submit.md, "Sweeps").

        Args:
            config: a validated :class:`air.Config`, or the path of a YAML file.
            grid: ``{"parameters.lr": [1e-3, 3e-4], ...}``: every combination
                of the values is a variant (the first path varying slowest).
            points: the variants themselves, ``[{"parameters.lr": 1e-3,
                "compute.num_accelerators": 8}, ...]``, or the path of a JSON
                Lines or YAML file of them. Give grid or points.
            sample: keep a random sample of this many points; ``seed``
                chooses it (the same seed, the same points).
            base_key: the base of every variant's idempotency key (default:
                the YAML idempotency_token, else derived from the user, the
                experiment, the date and the config); a new one starts a
                fresh sweep.
            max_parallel: variants at a time (default 8; 1 on a local
                workspace, where it bounds the runs going at once).
            dry_run: only validate every variant; nothing is sent.
            resume: undo an earlier stop of this sweep (:meth:`stop_sweep`)
                once its checks have passed, so that its variants without a
                run are submitted; the outcome's ``resumed`` says whether
                there was one to undo. Needs ``base_key`` (or the YAML
                idempotency_token): a derived key changes with the date.
            on_progress: ``on_progress(Variant)`` when a variant starts
                uploading, is submitted or fails, on this thread; an
                exception it raises stops the sweep and propagates.

        Every variant is validated before anything is uploaded; a bad point
        raises :class:`air.ConfigError` naming the variant and the field.
        The same call again starts nothing new and returns the same runs.
        Interrupted (Ctrl-C, ``interrupt``, ``timeout``) once variants were
        being sent, the exception carries the outcome so far as ``.sweep``.

        Returns:
            The :class:`air.Sweep`: every variant with its run or its error.
        """
        own = None
        if not isinstance(config, Config):
            config = own = Config.load(config)
        cfn = None if on_progress is None else trampoline(
            SWEEP_PROGRESS_CB, on_progress, lambda h, i, _u: (Variant._from_c(h, i, self),))
        out = C.c_void_p()
        try:
            with Points(grid, None if points is None else
                        (str(points) if isinstance(points, (str, os.PathLike)) else points),
                        sample, seed) as pts, Options("sweep") as opts:
                opts.set_str(K.SWEEP_BASE_KEY, base_key, "base_key")
                opts.set_str(K.SWEEP_BASE_DIR, None if base_dir is None else str(base_dir))
                opts.set_int(K.SWEEP_MAX_PARALLEL, max_parallel, "max_parallel")
                if skip_preflight:
                    opts.set_int(K.SWEEP_SKIP_PREFLIGHT, 1)
                if resume:
                    opts.set_int(K.SWEEP_RESUME, 1)
                if cfn is not None:
                    check(int(lib.air_sweep_options_set_progress_cb(opts.handle, cfn, None)))
                cfg_h = config._handle

                def invoke(h: int, err: C.c_void_p) -> int:
                    lib.air_sweep_free(out)  # a restarted call starts afresh
                    out.value = None
                    if dry_run:
                        return int(lib.air_config_validate_sweep(cfg_h, pts.handle, opts.handle,
                                                                 C.byref(out), C.byref(err)))
                    return int(lib.air_client_submit_sweep(h, cfg_h, pts.handle, opts.handle,
                                                           C.byref(out), C.byref(err)))
                try:
                    self._blocking(opts, interrupt, invoke, timeout)
                except BaseException as exc:
                    if out.value:
                        setattr(exc, "sweep", Sweep._take(out.value, self))
                    raise
                return Sweep._take(out.value, None if dry_run else self)
        finally:
            lib.air_sweep_free(out)
            if own is not None:
                own.close()

    def rerun(self, run_id: int, *,
              overrides: Union[Mapping[str, Value], Sequence[str]] = (),
              idempotency_key: Optional[str] = None, skip_preflight: bool = False,
              interrupt: Optional[Interrupt] = None,
              timeout: Optional[Seconds] = None) -> Submission:
        """Submit the exact workload of a past run again (docs/submit.md,
        "Reruns"): its config, code snapshot and launch files, uploading
        nothing again, with ``overrides`` (``{"parameters.lr": 3e-4}`` or
        ``["parameters.lr=3e-4"]``) applied. The key defaults to one derived
        from the run id and the overrides: the same rerun twice is one run.
        What the past run was submitted with beyond its training_config.yaml
        (``air run --override``) is kept and named in ``warnings``.
        A deleted snapshot or launch file raises :class:`air.NotFoundError`
        naming it."""
        out = C.c_void_p()
        try:
            with Options("rerun") as opts:
                for o in overrides_of(overrides):
                    rc = int(lib.air_rerun_options_add_override(opts.handle, enc(o)))
                    if rc == K.EINVAL:
                        raise ValueError("invalid override %r: expected PATH=VALUE" % o)
                    check(rc)
                opts.set_str(K.RERUN_IDEMPOTENCY_KEY, idempotency_key, "idempotency_key")
                if skip_preflight:
                    opts.set_int(K.RERUN_SKIP_PREFLIGHT, 1)
                self._blocking(opts, interrupt, lambda h, err: int(lib.air_client_rerun(
                    h, int(run_id), opts.handle, C.byref(out), C.byref(err))), timeout)
            return _submission(out.value, self)
        finally:
            lib.air_submission_free(out)

    def poll_mlflow_links(self, run_id: int, max_polls: int = 10, interval: Seconds = 2.0, *,
                          interrupt: Optional[Interrupt] = None,
                          timeout: Optional[Seconds] = None) -> MlflowLinks:
        """Best-effort MLflow links of a run just submitted.

        Polls until the run's MLflow ids appear (once it has started), at
        most ``max_polls`` times, ``interval`` apart.
        """
        run_url = C.c_void_p()
        exp_url = C.c_void_p()
        gap = millis(interval, "interval") or 0
        try:
            self._simple(interrupt, timeout, lambda h, o, err: int(lib.air_client_poll_mlflow_links(
                h, int(run_id), int(max_polls), gap, o, C.byref(run_url), C.byref(exp_url),
                C.byref(err))))
            return MlflowLinks(take_str(run_url), take_str(exp_url))
        finally:
            take_str(run_url)
            take_str(exp_url)

    # ---- runs --------------------------------------------------------------

    def get_run(self, run_id: int, *, mlflow: bool = False, sweep: bool = False,
                mlflow_name: bool = False, config: bool = False,
                require_workspace_id: bool = False, interrupt: Optional[Interrupt] = None,
                timeout: Optional[Seconds] = None) -> Run:
        """A snapshot of a run.

        Args:
            run_id: the Job Run ID.
            mlflow: also resolve its MLflow ids and links.
            sweep: also read the iterations of a sweep.
            mlflow_name: also read the MLflow run name.
            config: also read the workload YAML it was submitted with.
            require_workspace_id: fail unless the dashboard URL can carry
                the workspace id.

        Returns:
            An :class:`air.Run`.
        """
        out = C.c_void_p()
        try:
            with Options("get") as opts:
                for opt, flag in ((K.GET_MLFLOW, mlflow), (K.GET_SWEEP, sweep),
                                  (K.GET_MLFLOW_NAME, mlflow_name), (K.GET_CONFIG, config),
                                  (K.GET_WORKSPACE_ID, require_workspace_id)):
                    if flag:
                        opts.set_int(opt, 1)
                self._blocking(opts, interrupt, lambda h, err: int(lib.air_client_get_run(
                    h, int(run_id), opts.handle, C.byref(out), C.byref(err))), timeout)
            return Run._from_c(out.value, self)
        finally:
            lib.air_run_free(out)

    def failure(self, run_id: int, *, node: Optional[int] = None, attempt: Optional[int] = None,
                excerpt_lines: Optional[int] = None, scan_lines: Optional[int] = None,
                scan_nodes: Optional[int] = None, interrupt: Optional[Interrupt] = None,
                timeout: Optional[Seconds] = None) -> Optional[Failure]:
        """Why a run failed: the platform's message and the excerpt of the
        failing node's log (its last traceback, else its first alert line,
        else its last lines), read as a tail in bounded memory.

        Args:
            run_id: the Job Run ID.
            node: the node whose log to read (default: the one the platform
                names, else the first whose log has a traceback, else 0).
            attempt: the attempt, 0-based (default: the latest).
            excerpt_lines: most lines in the excerpt (default 40).
            scan_lines: log records read, the newest (default 5000).
            scan_nodes: nodes searched for a traceback when none is named
                (default 8).

        Returns:
            An :class:`air.Failure`, or None when the run succeeded or is
            still going. A log that cannot be read does not raise: the
            failure then has no excerpt and ``excerpt_problem`` says why.
        """
        return get_failure(self, run_id, node=node, attempt=attempt, excerpt_lines=excerpt_lines,
                           scan_lines=scan_lines, scan_nodes=scan_nodes, interrupt=interrupt,
                           timeout=timeout)

    def wait(self, run_id: int, *, timeout: Optional[Seconds] = None,
             poll_interval: Optional[Seconds] = None,
             on_state: Optional[Callable[[Run], object]] = None,
             interrupt: Optional[Interrupt] = None) -> Run:
        """Wait until a run finishes.

        Args:
            run_id: the Job Run ID.
            timeout: raise :class:`air.TimedOutError` (also a TimeoutError)
                when the run is still going after it.
            poll_interval: the pause between reads (default 3 s; 1 s for a
                local workspace).
            on_state: ``on_state(Run)``, called with the first snapshot and
                then on every state change.

        Returns:
            The final :class:`air.Run`, whatever its result (check ``state``).
        """
        cfn = None if on_state is None else trampoline(
            WAIT_STATE_CB, on_state, lambda r, _u: (Run._from_c(r, self),))
        out = C.c_void_p()
        try:
            with Options("wait") as opts:
                opts.set_int(K.WAIT_POLL_INTERVAL_MS, millis(poll_interval, "poll_interval"))
                if cfn is not None:
                    check(int(lib.air_wait_options_set_state_cb(opts.handle, cfn, None)))
                self._blocking(opts, interrupt, lambda h, err: int(lib.air_client_wait_run(
                    h, int(run_id), opts.handle, C.byref(out), C.byref(err))), timeout)
            return Run._from_c(out.value, self)
        finally:
            lib.air_run_free(out)

    def list_runs(self, *, limit: Optional[int] = None, all_status: bool = False,
                  all_users: bool = False, max_inspected: Optional[int] = None,
                  workspace_id: bool = True, mlflow: bool = False, cache: bool = True,
                  filters: Union[Mapping[str, object], Iterable[str], None] = None,
                  interrupt: Optional[Interrupt] = None,
                  timeout: Optional[Seconds] = None) -> RunListing:
        """AI Runtime runs, newest first, as a lazy iterator.

        Pages are read as you iterate.

        Args:
            limit: at most this many runs (default 20).
            all_status: include finished runs (default: active ones only).
            all_users: include other users' runs (default: the caller's).
            max_inspected: stop after inspecting this many runs.
            workspace_id: False skips the workspace id probe of the
                dashboard URLs.
            mlflow: also resolve the MLflow ids of each run.
            filters: ``{"experiment": "x"}`` or ``["experiment=x"]``; keys
                user, experiment (a glob), accelerator_type,
                num_accelerators and sweep (a sweep's base key: its runs).
            cache: False neither reads nor writes the on-disk cache of
                finished runs (default: the cache is used).

        Returns:
            A :class:`air.RunListing` of :class:`air.Run`.
        """
        if isinstance(filters, Mapping):
            items: List[str] = ["%s=%s" % kv for kv in filters.items()]
        else:
            items = list(filters or ())
        ints: List[Tuple[int, int]] = []
        for opt, value in ((K.LIST_LIMIT, limit), (K.LIST_MAX_INSPECTED, max_inspected)):
            if value is not None:
                ints.append((opt, int(value)))
        ints += [(K.LIST_ALL_STATUS, int(all_status)), (K.LIST_ALL_USERS, int(all_users)),
                 (K.LIST_WORKSPACE_ID, int(workspace_id)), (K.LIST_MLFLOW, int(mlflow)),
                 (K.LIST_CACHE, int(cache))]
        return RunListing(self, ints, items, interrupt, millis(timeout, "timeout"))

    def cancel_run(self, run_id: int, *, interrupt: Optional[Interrupt] = None,
                   timeout: Optional[Seconds] = None) -> None:
        """Request cancellation of one run (wait() tells when it has ended)."""
        self._simple(interrupt, timeout, lambda h, o, err: int(
            lib.air_client_cancel_run(h, int(run_id), o, C.byref(err))))

    def cancel_runs(self, run_ids: Iterable[int], *, interrupt: Optional[Interrupt] = None,
                    timeout: Optional[Seconds] = None) -> CancelReport:
        """Request cancellation of several runs; one failing id does not stop
        the others (see the report)."""
        ids = [int(i) for i in run_ids]
        arr = (C.c_int64 * max(len(ids), 1))(*ids)
        out = C.c_void_p()
        try:
            self._simple(interrupt, timeout, lambda h, o, err: int(lib.air_client_cancel_runs(
                h, arr, len(ids), o, C.byref(out), C.byref(err))))
            rep, out.value = out.value, None
            return CancelReport._take(rep)
        finally:
            lib.air_cancel_report_free(out)

    def cancel_all(self, *, interrupt: Optional[Interrupt] = None,
                   timeout: Optional[Seconds] = None) -> CancelReport:
        """Cancel every active AI Runtime run of the caller."""
        out = C.c_void_p()
        try:
            self._simple(interrupt, timeout, lambda h, o, err: int(lib.air_client_cancel_all(
                h, o, C.byref(out), C.byref(err))))
            rep, out.value = out.value, None
            return CancelReport._take(rep)
        finally:
            lib.air_cancel_report_free(out)

    def stop_sweep(self, base_key: str, *, interrupt: Optional[Interrupt] = None,
                   timeout: Optional[Seconds] = None) -> None:
        """Stop the sweep of this base key wherever it is being submitted:
        it submits no further variant, now or when submitted again; its runs
        go on (cancel_sweep() cancels them too). See docs/submit.md,
        "Stopping a sweep"."""
        self._simple(interrupt, timeout, lambda h, o, err: int(lib.air_client_stop_sweep(
            h, enc(base_key), o, C.byref(err))))

    def cancel_sweep(self, base_key: str, *, interrupt: Optional[Interrupt] = None,
                     timeout: Optional[Seconds] = None) -> CancelReport:
        """Stop the sweep of this base key (stop_sweep()), then request the
        cancellation of its active runs."""
        out = C.c_void_p()
        try:
            self._simple(interrupt, timeout, lambda h, o, err: int(lib.air_client_cancel_sweep(
                h, enc(base_key), o, C.byref(out), C.byref(err))))
            rep, out.value = out.value, None
            return CancelReport._take(rep)
        finally:
            lib.air_cancel_report_free(out)

    # ---- logs --------------------------------------------------------------

    def logs(self, run_id: int, *, follow: bool = True, tail: Optional[int] = None,
             minutes: Optional[int] = None, node: int = 0, attempt: Optional[int] = None,
             poll_interval: Optional[Seconds] = None, max_page_failures: Optional[int] = None,
             on_status: Optional[Callable[[str, Optional[str]], object]] = None,
             on_waiting: Optional[Callable[[Optional[str]], object]] = None,
             on_attempt: Optional[Callable[[int], object]] = None,
             interrupt: Optional[Interrupt] = None,
             timeout: Optional[Seconds] = None) -> LogStream:
        """The log records of a run, in order, as an iterator read on this thread.

        ``for rec in client.logs(run_id): print(rec.line)``. An active run is
        followed until it ends; a finished run gives its last lines. The
        stream checks that the run exists before returning.

        Args:
            run_id: the Job Run ID.
            follow: False reads what there is in one pass.
            tail: the last lines of a finished run (default 10000).
            minutes: only the lines of the last N minutes.
            node: the node index.
            attempt: the retry attempt (default: the latest).
            on_status: ``on_status(current, previous)`` sees the run's
                display state change.
            on_waiting: ``on_waiting(message)`` says what a run without
                lines yet is waiting for, then gets None.
            on_attempt: ``on_attempt(attempt)`` (0-based) is called when a
                followed run starts another attempt, before its lines.
            timeout: bounds the whole iteration.

        Returns:
            A :class:`air.LogStream` of :class:`air.LogRecord`.
        """
        ints = _logs_ints(follow, tail, minutes, node, attempt, poll_interval,
                          max_page_failures)
        ms = millis(timeout, "timeout")
        deadline = None if not ms else time.monotonic() + ms / 1000.0
        return LogStream(self, int(run_id), ints, interrupt, deadline, on_status, on_waiting,
                         on_attempt)

    def copy_logs(self, run_id: int, file: Any, *, follow: bool = True,
                  tail: Optional[int] = None, minutes: Optional[int] = None, node: int = 0,
                  attempt: Optional[int] = None, poll_interval: Optional[Seconds] = None,
                  max_page_failures: Optional[int] = None,
                  on_status: Optional[Callable[[str, Optional[str]], object]] = None,
                  on_waiting: Optional[Callable[[Optional[str]], object]] = None,
                  on_attempt: Optional[Callable[[int], object]] = None,
                  interrupt: Optional[Interrupt] = None,
                  timeout: Optional[Seconds] = None) -> LogsSummary:
        """Write the lines of a run's logs to ``file``, each followed by a
        newline, many lines per ``file.write()``: what :meth:`logs` reads,
        without a Python object per line (a finished local run's lines come
        straight from its node log).

        ``file`` is a binary file (it gets bytes) or a text file (it gets
        str; bytes that are not UTF-8 become U+FFFD). The other arguments
        are those of :meth:`logs`. An exception raised by ``file.write()``
        stops the copy and is raised.

        Returns:
            The :class:`air.LogsSummary` of what was read.
        """
        as_text = isinstance(file, io.TextIOBase)

        def chunk(ptr: int, n: int, _u: object) -> Tuple[object]:
            data = C.string_at(ptr, n)
            return (data.decode("utf-8", "replace") if as_text else data,)

        callbacks = [(lib.air_logs_options_set_text_cb, trampoline(LOG_TEXT_CB, file.write,
                                                                   chunk))]
        if on_status is not None:
            callbacks.append((lib.air_logs_options_set_status_cb, trampoline(
                LOG_STATUS_CB, on_status, lambda cur, prev, _u: (dec(cur) or "", dec(prev)))))
        if on_waiting is not None:
            callbacks.append((lib.air_logs_options_set_waiting_cb, trampoline(
                LOG_WAITING_CB, on_waiting, lambda msg, _u: (dec(msg),))))
        if on_attempt is not None:
            callbacks.append((lib.air_logs_options_set_attempt_cb, trampoline(
                LOG_ATTEMPT_CB, on_attempt, lambda attempt, _u: (int(attempt),))))
        out = C.c_void_p()
        try:
            with Options("logs") as opts:
                for opt, value in _logs_ints(follow, tail, minutes, node, attempt,
                                             poll_interval, max_page_failures):
                    opts.set_int(opt, value)
                for setter, cfn in callbacks:
                    check(int(setter(opts.handle, cfn, None)))
                self._blocking(opts, interrupt, lambda h, err: int(lib.air_client_stream_logs(
                    h, int(run_id), opts.handle, C.byref(out), C.byref(err))), timeout)
            return LogsSummary(
                int(lib.air_logs_summary_records(out)),
                State._from_c(int(lib.air_logs_summary_state(out))),
                dec(lib.air_logs_summary_state_name(out)) or "UNKNOWN",
                bool(lib.air_logs_summary_terminal(out)),
                bool(lib.air_logs_summary_succeeded(out)),
                LogSource(int(lib.air_logs_summary_source(out))),
                dec(lib.air_logs_summary_no_logs_message(out)))
        finally:
            lib.air_logs_summary_free(out)

    # ---- metrics -------------------------------------------------------------

    def latest_metrics(self, run_id: int, *, interrupt: Optional[Interrupt] = None,
                       timeout: Optional[Seconds] = None) -> LatestMetrics:
        """The latest value of each MLflow metric of a run.

        ``client.latest_metrics(run_id)["loss"].value``. A run without an
        MLflow run yet, or without metrics, gives an empty mapping.

        Returns:
            An :class:`air.LatestMetrics` (a mapping of key to
            :class:`air.MetricPoint`).
        """
        out = C.c_void_p()
        with Options("metrics") as opts:
            self._blocking(opts, interrupt, lambda h, err: int(lib.air_client_get_metrics(
                h, int(run_id), opts.handle, C.byref(out), C.byref(err))), timeout)
        return LatestMetrics._take(out.value)

    def metric_history(self, run_id: int, key: Optional[str] = None, *, follow: bool = False,
                       page_size: Optional[int] = None, poll_interval: Optional[Seconds] = None,
                       on_poll: Optional[Callable[[str], object]] = None,
                       interrupt: Optional[Interrupt] = None,
                       timeout: Optional[Seconds] = None) -> MetricHistory:
        """The points of metric ``key`` of a run (every metric when None), in
        order, as an iterator read on this thread a page at a time.

        ``for pt in client.metric_history(run_id, "loss", follow=True): ...``
        follows an active run until it ends, each point once.

        Args:
            run_id: the Job Run ID.
            key: the metric ("loss", "system/gpu_0_utilization_percentage").
            follow: follow an active run until it ends.
            page_size: points per page (1..25000; default 10000).
            poll_interval: pause between polls while following.
            on_poll: ``on_poll(state)`` after each poll while following.
            timeout: bounds the whole iteration.

        Returns:
            A :class:`air.MetricHistory` of :class:`air.MetricPoint`.
        """
        ints: List[Tuple[int, int]] = [(K.METRICS_FOLLOW, int(follow))]
        for opt, value in ((K.METRICS_PAGE_SIZE, page_size),
                           (K.METRICS_POLL_INTERVAL_MS, millis(poll_interval, "poll_interval"))):
            if value is not None:
                ints.append((opt, int(value)))
        ms = millis(timeout, "timeout")
        deadline = None if not ms else time.monotonic() + ms / 1000.0
        return MetricHistory(self, int(run_id), key, ints, interrupt, deadline, on_poll)

    def metrics(self, run_id: int, keys: Optional[Iterable[str]] = None, *,
                interrupt: Optional[Interrupt] = None,
                timeout: Optional[Seconds] = None) -> Dict[str, List[MetricPoint]]:
        """The full history of each metric of a run (or of ``keys``, in that
        order, a missing one as an empty list), system metrics included.

        ``pandas.DataFrame(client.metrics(run_id)["loss"])`` is a table with
        the columns step, value, timestamp and key.
        """
        ms = millis(timeout, "timeout")
        deadline = None if not ms else time.monotonic() + ms / 1000.0
        out: Dict[str, List[MetricPoint]] = {}
        names: List[Optional[str]] = [None] if keys is None else list(keys)
        for name in names:
            if name is not None:
                out.setdefault(name, [])
            left = None if deadline is None else max(0.001, deadline - time.monotonic())
            with self.metric_history(run_id, name, interrupt=interrupt, timeout=left) as h:
                for pt in h:
                    out.setdefault(pt.key, []).append(pt)
        return out

    def download_logs(self, run_id: int, directory: StrPath, *, node: Optional[int] = None,
                      attempt: Optional[int] = None, interrupt: Optional[Interrupt] = None,
                      timeout: Optional[Seconds] = None) -> DownloadReport:
        """Download the MLflow log artifacts of a run.

        Writes ``<directory>/logs/node_<n>.log`` for every node, or for
        ``node`` alone.

        Returns:
            An :class:`air.DownloadReport`.
        """
        out = C.c_void_p()
        try:
            with Options("logs") as opts:
                opts.set_int(K.LOGS_NODE, -1 if node is None else node)
                opts.set_int(K.LOGS_ATTEMPT, attempt)
                self._blocking(opts, interrupt, lambda h, err: int(lib.air_client_download_logs(
                    h, int(run_id), enc(directory), opts.handle, C.byref(out), C.byref(err))),
                    timeout)
            rep, out.value = out.value, None
            return DownloadReport._take(rep)
        finally:
            lib.air_download_report_free(out)

    # ---- pools and images ------------------------------------------------------

    def list_pools(self, *, interrupt: Optional[Interrupt] = None,
                   timeout: Optional[Seconds] = None) -> List[Pool]:
        """The workspace's provisioned GPU pools."""
        out = C.c_void_p()
        try:
            self._simple(interrupt, timeout, lambda h, o, err: int(lib.air_client_list_pools(
                h, o, C.byref(out), C.byref(err))))
            return [_pool(lib.air_pool_list_get(out.value, i))
                    for i in range(int(lib.air_pool_list_count(out.value)))]
        finally:
            lib.air_pool_list_free(out)

    def accelerator_types(self, *, interrupt: Optional[Interrupt] = None,
                          timeout: Optional[Seconds] = None) -> List[str]:
        """The accelerator types the workspace offers (its compute options),
        in its order; types libair does not know are included."""
        out = C.c_void_p()
        try:
            self._simple(interrupt, timeout, lambda h, o, err: int(
                lib.air_client_list_accelerator_types(h, o, C.byref(out), C.byref(err))))
            text = take_str(out) or ""
            return text.split(",") if text else []
        finally:
            take_str(out)

    def get_pool(self, pool_id: str, *, interrupt: Optional[Interrupt] = None,
                 timeout: Optional[Seconds] = None) -> Pool:
        """One pool, by bare id or "provisioned-capacities/<id>"."""
        out = C.c_void_p()
        try:
            self._simple(interrupt, timeout, lambda h, o, err: int(lib.air_client_get_pool(
                h, enc(pool_id), o, C.byref(out), C.byref(err))))
            return _pool(out.value)
        finally:
            lib.air_pool_free(out)

    def push_image(self, source: str, catalog: str, schema: str, *,
                   artifact: Optional[str] = None, registry_host: Optional[str] = None,
                   docker: Optional[str] = None, databricks_cli: Optional[str] = None,
                   pull: bool = False, interrupt: Optional[Interrupt] = None,
                   timeout: Optional[Seconds] = None) -> ImagePush:
        """Tag and push a local image to the workspace's registry (``air images push``).

        Args:
            source: the local image, ``NAME[:TAG]`` or ``NAME@DIGEST``.
            catalog, schema: where it goes in Unity Catalog.
            artifact: ``ARTIFACT[:TAG]`` (default: from the source).
            registry_host: the registry (default: from the client's profile).
            docker, databricks_cli: the programs to run.
            pull: pull the source even when it exists locally.

        Returns:
            An :class:`air.ImagePush`; ``uc_image`` is the value of
            ``environment.unity_catalog_image``.
        """
        uc = C.c_void_p()
        reg = C.c_void_p()
        try:
            with Options("image_push") as opts:
                for opt, value in ((K.IMAGE_SOURCE, source), (K.IMAGE_CATALOG, catalog),
                                   (K.IMAGE_SCHEMA, schema), (K.IMAGE_ARTIFACT, artifact),
                                   (K.IMAGE_REGISTRY_HOST, registry_host),
                                   (K.IMAGE_DOCKER, docker),
                                   (K.IMAGE_DATABRICKS_CLI, databricks_cli)):
                    opts.set_str(opt, value)
                if pull:
                    opts.set_int(K.IMAGE_PULL, 1)
                self._blocking(opts, interrupt, lambda h, err: int(lib.air_client_push_image(
                    h, opts.handle, C.byref(uc), C.byref(reg), C.byref(err))), timeout)
            return ImagePush(take_str(uc) or "", take_str(reg))
        finally:
            take_str(uc)
            take_str(reg)

    def register_image(self, url: str, *, tag_policy: Optional[str] = None,
                       credentials: Optional[Tuple[str, str]] = None, discover: bool = True,
                       docker_config_dir: Optional[StrPath] = None,
                       timeout: Optional[Seconds] = None,
                       poll_interval: Optional[Seconds] = None,
                       helper_timeout: Optional[Seconds] = None,
                       interrupt: Optional[Interrupt] = None) -> ImageRegistration:
        """Register a legacy container image and wait until it is AVAILABLE.

        The image of ``environment.docker_image`` (``air register-image``);
        since libair 1.1. The URL is normalised first ("ubuntu" becomes
        "docker.io/library/ubuntu:latest").

        Args:
            url: the image reference.
            tag_policy: None, "" or "latest".
            credentials: ``(scope, key)`` of a secret already holding
                base64("user:password").
            discover: without ``credentials``, look the registry's
                credentials up in the Docker configuration and store them in
                the caller's secret scope (never in errors or traces); False
                registers anonymously.
            docker_config_dir: the Docker configuration (default
                $DOCKER_CONFIG or ~/.docker).
            timeout: how long to wait for AVAILABLE (default 60 minutes),
                then :class:`air.TimedOutError` (kind TRANSIENT).
            poll_interval: between reads of the registration (default 5 s).
            helper_timeout: per run of a docker-credential-* helper
                (default 10 s).

        Returns:
            An :class:`air.ImageRegistration`.

        Raises:
            ApiError: the import FAILED (the workspace's message).
            PermissionDeniedError: a registry or secret scope refused access.
        """
        if credentials is not None:
            if (isinstance(credentials, (str, bytes)) or len(credentials) != 2
                    or not all(isinstance(x, str) for x in credentials)):
                raise TypeError("credentials takes a (scope, key) pair of strings")
        scope, key = credentials if credentials is not None else (None, None)
        out = C.c_void_p()
        try:
            with Options("register_image") as opts:
                opts.set_str(K.REGISTER_TAG_POLICY, tag_policy, "tag_policy")
                opts.set_str(K.REGISTER_CREDENTIALS_SCOPE, scope, "credentials")
                opts.set_str(K.REGISTER_CREDENTIALS_KEY, key, "credentials")
                opts.set_str(K.REGISTER_DOCKER_CONFIG_DIR, None if docker_config_dir is None
                             else os.fspath(docker_config_dir), "docker_config_dir")
                for opt, secs, what in ((K.REGISTER_TIMEOUT_MS, timeout, "timeout"),
                                        (K.REGISTER_POLL_INTERVAL_MS, poll_interval,
                                         "poll_interval"),
                                        (K.REGISTER_HELPER_TIMEOUT_MS, helper_timeout,
                                         "helper_timeout")):
                    opts.set_int(opt, millis(secs, what), what)
                opts.set_int(K.REGISTER_DISCOVER, 1 if discover else 0)
                self._blocking(opts, interrupt, lambda h, err: int(lib.air_client_register_image(
                    h, enc(url), opts.handle, C.byref(out), C.byref(err))))
            r = out.value
            return ImageRegistration(
                dec(lib.air_image_registration_url(r)) or "",
                dec(lib.air_image_registration_manifest_sha256(r)),
                dec(lib.air_image_registration_status(r)) or "",
                bool(lib.air_image_registration_image_updated(r)),
                bool(lib.air_image_registration_cached(r)),
                dec(lib.air_image_registration_credentials_scope(r)),
                dec(lib.air_image_registration_credentials_key(r)))
        finally:
            lib.air_image_registration_free(out)


def _submission(s: Optional[int], client: "Client") -> Submission:
    warnings = tuple(dec(lib.air_submission_warning(s, i)) or ""
                     for i in range(int(lib.air_submission_warning_count(s))))
    return Submission(int(lib.air_submission_run_id(s)),
                      dec(lib.air_submission_dashboard_url(s)) or "",
                      dec(lib.air_submission_idempotency_token(s)) or "",
                      dec(lib.air_submission_launch_dir(s)) or "",
                      dec(lib.air_submission_code_source_path(s)),
                      bool(lib.air_submission_snapshot_reused(s)), client, warnings)


def _debug_args(kind: int, text: Optional[int], length: int, _ud: Any) -> Tuple[Any, ...]:
    raw = C.string_at(text, length) if text else b""
    try:
        k = DebugType(kind)
    except ValueError:
        k = DebugType.INFO
    return (k, raw.decode("utf-8", "replace"))


def _progress_args(ev: Optional[int], _ud: Any) -> Tuple[Progress]:
    return (Progress(Phase(int(lib.air_progress_phase(ev))), int(lib.air_progress_bytes_done(ev)),
                     int(lib.air_progress_bytes_total(ev)), dec(lib.air_progress_detail(ev))),)


def _check_args(c: Optional[int], _ud: Any) -> Tuple[Check]:
    return (_check(c),)


def _check(c: Optional[int]) -> Check:
    size, files = int(lib.air_check_bytes(c)), int(lib.air_check_files(c))
    return Check(dec(lib.air_check_name(c)) or "", CheckStatus(int(lib.air_check_status(c))),
                 dec(lib.air_check_field(c)), dec(lib.air_check_message(c)) or "",
                 None if size < 0 else size, None if files < 0 else files)


def _pool(p: Optional[int]) -> Pool:
    used = int(lib.air_pool_used_accelerators(p))
    idle = int(lib.air_pool_idle_accelerators(p))
    return Pool(dec(lib.air_pool_id(p)) or "", dec(lib.air_pool_accelerator_type(p)),
                int(lib.air_pool_reserved_accelerators(p)), None if used < 0 else used,
                None if idle < 0 else idle)

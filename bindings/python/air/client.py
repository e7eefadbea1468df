"""Client: one Databricks workspace, and everything done through it."""

import collections
import contextlib
import ctypes as C
import json as _json
import threading

from . import constants as K
from ._lib import (lib, DEBUG_CB, PROGRESS_CB, LOG_RECORD_CB, LOG_STATUS_CB, LOG_ALERT_CB,
                   LOG_WAITING_CB)
from ._util import CallbackGuard, Owned, bytes_at, dec, enc, take_str
from .config import Config
from .errors import check

# Keyword arguments of Client() and set_option(), from air_option.
OPTIONS = {
    "host": K.OPT_HOST, "token": K.OPT_TOKEN, "profile": K.OPT_PROFILE,
    "config_file": K.OPT_CONFIG_FILE, "client_id": K.OPT_CLIENT_ID,
    "client_secret": K.OPT_CLIENT_SECRET, "auth_type": K.OPT_AUTH_TYPE,
    "username": K.OPT_USERNAME, "password": K.OPT_PASSWORD,
    "workspace_id": K.OPT_WORKSPACE_ID, "user_agent_suffix": K.OPT_USER_AGENT_SUFFIX,
    "ca_file": K.OPT_CA_FILE, "home_dir": K.OPT_HOME_DIR, "auth_storage": K.OPT_AUTH_STORAGE,
    "user_workspace_dir": K.OPT_USER_WORKSPACE_DIR, "default_runtime": K.OPT_DEFAULT_RUNTIME,
    "discovery_url": K.OPT_DISCOVERY_URL,
    "connect_timeout_ms": K.OPT_CONNECT_TIMEOUT_MS, "request_timeout_ms": K.OPT_REQUEST_TIMEOUT_MS,
    "inactivity_timeout_ms": K.OPT_INACTIVITY_TIMEOUT_MS,
    "retry_deadline_ms": K.OPT_RETRY_DEADLINE_MS, "retry_backoff_ms": K.OPT_RETRY_BACKOFF_MS,
    "use_environment": K.OPT_USE_ENVIRONMENT, "skip_tls_verify": K.OPT_SKIP_TLS_VERIFY,
    "rate_limit": K.OPT_RATE_LIMIT, "max_parallel": K.OPT_MAX_PARALLEL,
}


def _is_int_option(opt):
    return opt >= 100


Progress = collections.namedtuple("Progress", "phase bytes_done bytes_total detail")
Progress.__doc__ = "A submission progress notification (phase is a PHASE_* constant)."
Submission = collections.namedtuple(
    "Submission", "run_id dashboard_url idempotency_token launch_dir code_source_path snapshot_reused")
Submission.__doc__ = "The outcome of Client.submit()."
Iteration = collections.namedtuple("Iteration", "task_key run_id state experiment")
CancelOutcome = collections.namedtuple("CancelOutcome", "run_id status message")
CancelOutcome.__doc__ = "One run of a cancellation: status is OK or the AIR_E* code, message None when it worked."
Pool = collections.namedtuple("Pool", "id accelerator_type reserved_accelerators used_accelerators "
                                      "idle_accelerators")
Pool.__doc__ = "A provisioned GPU pool; used/idle are -1 when the workspace does not report usage."
LogsSummary = collections.namedtuple("LogsSummary", "records state terminal succeeded source ok "
                                                    "no_logs_message")
LogsSummary.__doc__ = "What a finished log stream observed."
DownloadEntry = collections.namedtuple("DownloadEntry", "node path bytes complete error")


class LogRecord:
    """One log record: ``line`` (str, decoded as UTF-8 with replacement),
    ``raw`` (the exact bytes), ``time_ns``, ``node`` and ``source``
    (LOG_SOURCE_*). A copy: it may be kept after the callback returns."""

    __slots__ = ("raw", "time_ns", "node", "source")

    def __init__(self, raw, time_ns, node, source):
        self.raw = raw
        self.time_ns = time_ns
        self.node = node
        self.source = source

    @classmethod
    def _from_c(cls, rec):
        n = C.c_size_t()
        p = lib.air_log_record_line(rec, C.byref(n))
        return cls(bytes_at(p, n.value), lib.air_log_record_time_ns(rec),
                   lib.air_log_record_node(rec), lib.air_log_record_source(rec))

    @property
    def line(self):
        return self.raw.decode("utf-8", "replace")

    def __repr__(self):
        return "LogRecord(time_ns=%d, node=%d, line=%r)" % (self.time_ns, self.node, self.line)


class CancelReport:
    """Per-run outcomes of cancel_runs() / cancel_all()."""

    def __init__(self, outcomes, failures):
        self.outcomes = outcomes
        self.failures = failures

    @property
    def ok(self):
        return self.failures == 0

    def __iter__(self):
        return iter(self.outcomes)

    def __len__(self):
        return len(self.outcomes)

    def __repr__(self):
        return "CancelReport(%r, failures=%d)" % (self.outcomes, self.failures)

    @classmethod
    def _take(cls, rep):
        try:
            outcomes = [CancelOutcome(lib.air_cancel_report_run_id(rep, i),
                                      lib.air_cancel_report_status(rep, i),
                                      dec(lib.air_cancel_report_message(rep, i)))
                        for i in range(lib.air_cancel_report_count(rep))]
            return cls(outcomes, lib.air_cancel_report_failures(rep))
        finally:
            lib.air_cancel_report_free(rep)


class DownloadReport:
    """Files written by download_logs()."""

    def __init__(self, entries, no_logs_message, ok):
        self.entries = entries
        self.no_logs_message = no_logs_message
        self.ok = ok

    def __iter__(self):
        return iter(self.entries)

    def __len__(self):
        return len(self.entries)

    @classmethod
    def _take(cls, rep):
        try:
            entries = [DownloadEntry(lib.air_download_report_node(rep, i),
                                     dec(lib.air_download_report_path(rep, i)),
                                     lib.air_download_report_bytes(rep, i),
                                     bool(lib.air_download_report_complete(rep, i)),
                                     dec(lib.air_download_report_error(rep, i)))
                       for i in range(lib.air_download_report_count(rep))]
            return cls(entries, dec(lib.air_download_report_no_logs_message(rep)),
                       bool(lib.air_download_report_ok(rep)))
        finally:
            lib.air_download_report_free(rep)


_RUN_STR = ("name", "creator", "state", "life_cycle_state", "result_state", "state_message",
            "experiment_name", "accelerator_type", "command_path", "code_source_path",
            "environment_version", "accelerators", "dashboard_url", "mlflow_run_id", "mlflow_experiment_id",
            "mlflow_run_name", "mlflow_run_url", "mlflow_experiment_url", "status_message")
_RUN_INT = ("id", "start_time_ms", "end_time_ms", "task_run_id", "attempt_number",
            "latest_attempt", "max_retries", "accelerator_count")
_RUN_BOOL = ("is_terminal", "succeeded", "is_ai_runtime", "is_sweep")
_SWEEP = (("total", K.SWEEP_TOTAL), ("completed", K.SWEEP_COMPLETED),
          ("succeeded", K.SWEEP_SUCCEEDED), ("failed", K.SWEEP_FAILED),
          ("active", K.SWEEP_ACTIVE))


class Run:
    """A snapshot of one run (air_run), copied out of the library: every
    getter of run.h is a read-only property (id, name, state, is_terminal,
    dashboard_url, ...); ``sweep_stats`` is a dict (None when not a sweep),
    ``iterations`` a list of Iteration, ``config_yaml`` the uploaded
    workload YAML (with config=True, else None), ``json`` the merged runs/get object
    as text and to_dict() its parsed form."""

    def __init__(self, values):
        self._v = values

    @classmethod
    def _from_c(cls, r):
        v = {}
        for n in _RUN_STR:  # a getter newer than the loaded library reads as None
            v[n] = dec(getattr(lib, "air_run_" + n)(r)) if lib.has("air_run_" + n) else None
        for n in _RUN_INT:
            v[n] = getattr(lib, "air_run_" + n)(r)
        for n in _RUN_BOOL:
            v[n] = bool(getattr(lib, "air_run_" + n)(r))
        v["sweep_stats"] = ({k: lib.air_run_sweep_stat(r, w) for k, w in _SWEEP}
                            if v["is_sweep"] else None)
        v["iterations"] = [Iteration(dec(lib.air_run_iteration_task_key(r, i)),
                                     lib.air_run_iteration_run_id(r, i),
                                     dec(lib.air_run_iteration_state(r, i)),
                                     dec(lib.air_run_iteration_experiment(r, i)))
                           for i in range(lib.air_run_iteration_count(r))]
        n = C.c_size_t()
        p = lib.air_run_config_yaml(r, C.byref(n)) if lib.has("air_run_config_yaml") else None
        v["config_yaml"] = bytes_at(p, n.value).decode("utf-8", "replace") if p else None
        out = C.c_void_p()
        err = C.c_void_p()
        check(lib.air_run_to_json(r, C.byref(out), C.byref(err)), err)
        v["json"] = take_str(out)
        return cls(v)

    def to_dict(self):
        return _json.loads(self._v["json"]) if self._v["json"] else {}

    def __repr__(self):
        return "<air.Run %d %s>" % (self._v["id"], self._v["state"])


for _n in _RUN_STR + _RUN_INT + _RUN_BOOL + ("sweep_stats", "iterations", "config_yaml", "json"):
    setattr(Run, _n, property(lambda self, _k=_n: self._v[_k]))
del _n


class RunListing(Owned):
    """A lazy listing of runs, newest first (Client.list_runs()).

    Iterate it (pages are fetched as needed; each item is a Run snapshot).
    ``truncated`` tells whether the listing stopped at max_inspected. Close
    it, or leave the ``with`` block / exhaust it, to release the iterator.
    """

    def __init__(self, client, handle):
        self._client = client
        self._h = handle
        self.truncated = False

    def __iter__(self):
        return self

    def __next__(self):
        if not self._h:
            raise StopIteration
        out = C.c_void_p()
        err = C.c_void_p()
        try:
            check(lib.air_run_iter_next(self._h, C.byref(out), C.byref(err)), err)
            if not out.value:
                self.truncated = bool(lib.air_run_iter_truncated(self._h))
                self.close()
                raise StopIteration
            return Run._from_c(out.value)
        except StopIteration:
            raise
        except BaseException:
            self.close()
            raise

    def close(self):
        h, self._h = self._h, None
        if h:
            self.truncated = bool(lib.air_run_iter_truncated(h))
            lib.air_run_iter_free(h)
            self._client._release()


@contextlib.contextmanager
def _options(new, free):
    out = C.c_void_p()
    check(new(C.byref(out)))
    try:
        yield out.value
    finally:
        free(out.value)


def _logs_options(lib_opts, follow, tail_lines, minutes, node, attempt, poll_interval_ms,
                  max_page_failures, interrupt):
    values = ((K.LOGS_FOLLOW, None if follow is None else int(bool(follow))),
              (K.LOGS_TAIL_LINES, tail_lines), (K.LOGS_MINUTES, minutes), (K.LOGS_NODE, node),
              (K.LOGS_ATTEMPT, attempt), (K.LOGS_POLL_INTERVAL_MS, poll_interval_ms),
              (K.LOGS_MAX_PAGE_FAILURES, max_page_failures))
    for opt, value in values:
        if value is not None:
            check(lib.air_logs_options_set_int(lib_opts, opt, int(value)))
    if interrupt is not None:
        check(lib.air_logs_options_set_interrupt(lib_opts, interrupt._handle))


class Client(Owned):
    """A connection to one workspace (air_client).

    Options are keyword arguments named after AIR_OPT_* in lower case:
    ``Client(host="https://...", token="dapi...", retry_deadline_ms=30000)``;
    strings for options 1..99, integers (or bools) for 100..199. ``debug`` is
    an optional callable ``debug(type, text)`` receiving DEBUG_* traces
    (credentials redacted); it may run on several threads at once.
    ``interrupt`` is an optional Interrupt that, once triggered, stops every
    call on this client, on every thread (see set_interrupt()).

    Nothing is resolved until the first request (or resolve()). Once
    configured, a Client may be shared by any number of threads: libair
    locks what it shares and ctypes releases the GIL during each call.
    set_option() must not race with other calls, and close() waits for no
    one: it refuses while a call is in progress. Release the client with
    close() or a ``with`` block; garbage collection releases it otherwise.
    """

    def __init__(self, *, debug=None, interrupt=None, **options):
        out = C.c_void_p()
        err = C.c_void_p()
        check(lib.air_client_new(C.byref(out), C.byref(err)), err)
        self._h = out.value
        self._lock = threading.Lock()
        self._busy = 0
        self._debug_cfn = None
        self._interrupt = None
        try:
            for name, value in options.items():
                self.set_option(name, value)
            if debug is not None:
                self.set_debug(debug)
            if interrupt is not None:
                self.set_interrupt(interrupt)
        except BaseException:
            self.close()
            raise

    # ---- life cycle ------------------------------------------------------

    def _acquire(self):
        with self._lock:
            if not self._h:
                raise ValueError("operation on a closed Client")
            self._busy += 1
            return self._h

    def _release(self):
        with self._lock:
            self._busy -= 1

    @contextlib.contextmanager
    def _use(self):
        h = self._acquire()
        try:
            yield h
        finally:
            self._release()

    def close(self):
        """Release the client. Raises RuntimeError while a call (or an open
        RunListing) still uses it. Idempotent."""
        with self._lock:
            if self._busy:
                raise RuntimeError("Client.close() while %d call(s) are in progress" % self._busy)
            h, self._h = self._h, None
        if h:
            lib.air_client_free(h)
        self._debug_cfn = None
        self._interrupt = None

    def __del__(self):  # a client still in use is left to its last user
        if getattr(self, "_h", None) and not self._busy:
            self.close()

    # ---- options ---------------------------------------------------------

    def set_option(self, option, value):
        """Set an option by keyword name ("host") or OPT_* number. None unsets
        a string option."""
        if isinstance(option, str):
            try:
                opt = OPTIONS[option]
            except KeyError:
                raise TypeError("unknown client option %r" % option) from None
        else:
            opt = int(option)
        with self._lock:
            if not self._h:
                raise ValueError("operation on a closed Client")
            if self._busy:
                raise RuntimeError("client options cannot change while calls are in progress")
            if _is_int_option(opt):
                if value is None or isinstance(value, str):
                    raise TypeError("option %r takes an integer" % (option,))
                check(lib.air_client_set_int(self._h, opt, int(value)))
            else:
                if value is not None and not isinstance(value, (str, bytes)):
                    if isinstance(value, bool) or not isinstance(value, int):
                        raise TypeError("option %r takes a string" % (option,))
                    value = str(value)
                check(lib.air_client_set_str(self._h, opt, enc(value)))

    def set_debug(self, fn):
        """Install (or with None remove) the debug callback fn(type, text)."""
        if fn is None:
            cfn = DEBUG_CB()  # NULL removes the callback
        else:
            def trampoline(kind, text, length, _userdata):
                try:
                    fn(kind, bytes_at(text, length).decode("utf-8", "replace"))
                except Exception:  # the return value is ignored; report and go on
                    import sys
                    import traceback
                    traceback.print_exc(file=sys.stderr)
                return 0
            cfn = DEBUG_CB(trampoline)
        with self._lock:
            if not self._h:
                raise ValueError("operation on a closed Client")
            if self._busy:
                raise RuntimeError("client options cannot change while calls are in progress")
            check(lib.air_client_set_debug_cb(self._h, cfn, None))
            self._debug_cfn = cfn

    def set_interrupt(self, interrupt):
        """Install (or with None remove) a client-wide Interrupt: once it is
        triggered, from any thread, every call on this client (on every
        thread) raises CallInterruptedError promptly, also in the middle of a
        transfer or a retry wait, in addition to the interrupt= of a call.
        interrupt.reset() lets the client work again. Keep the Interrupt open
        while it is installed; like set_option(), not while calls are in
        progress."""
        h = None if interrupt is None else interrupt._handle
        with self._lock:
            if not self._h:
                raise ValueError("operation on a closed Client")
            if self._busy:
                raise RuntimeError("client options cannot change while calls are in progress")
            check(lib.air_client_set_interrupt(self._h, h))
            self._interrupt = interrupt  # the library borrows it

    # ---- identity ----------------------------------------------------------

    def resolve(self):
        """Resolve host and credentials now (reports configuration errors early)."""
        with self._use() as h:
            err = C.c_void_p()
            check(lib.air_client_resolve(h, C.byref(err)), err)
        return self

    @property
    def host(self):
        with self._use() as h:
            return dec(lib.air_client_host(h))

    @property
    def auth_type(self):
        with self._use() as h:
            return dec(lib.air_client_auth_type(h))

    @property
    def profile(self):
        with self._use() as h:
            return dec(lib.air_client_profile(h))

    def current_user(self):
        """The caller's user name (cached)."""
        with self._use() as h:
            out = C.c_void_p()
            err = C.c_void_p()
            check(lib.air_client_current_user(h, C.byref(out), C.byref(err)), err)
            return take_str(out)

    def workspace_id(self):
        """The numeric workspace id (cached)."""
        with self._use() as h:
            out = C.c_int64()
            err = C.c_void_p()
            check(lib.air_client_workspace_id(h, C.byref(out), C.byref(err)), err)
            return out.value

    # ---- submit ----------------------------------------------------------

    def submit(self, config, *, idempotency_key=None, base_dir=None, skip_preflight=False,
               progress=None, interrupt=None):
        """Submit a workload: @config is a Config or the path of a YAML file.

        @progress is called as progress(Progress) on this thread; a truthy
        return stops the submission (AbortedError), and an exception it
        raises stops it and is raised again here. @interrupt (an Interrupt)
        stops it from another thread (CallInterruptedError).
        Returns a Submission.
        """
        own = None
        if not isinstance(config, Config):
            config = own = Config.load(config)
        guard = CallbackGuard()
        try:
            with self._use() as h, _options(lib.air_submit_options_new,
                                            lib.air_submit_options_free) as opts:
                if idempotency_key is not None:
                    check(lib.air_submit_options_set_str(opts, K.SUBMIT_IDEMPOTENCY_KEY,
                                                         enc(idempotency_key)))
                if base_dir is not None:
                    check(lib.air_submit_options_set_str(opts, K.SUBMIT_BASE_DIR, enc(base_dir)))
                if skip_preflight:
                    check(lib.air_submit_options_set_int(opts, K.SUBMIT_SKIP_PREFLIGHT, 1))
                cb = guard.wrap(PROGRESS_CB, progress, lambda ev, _u: (Progress(
                    lib.air_progress_phase(ev), lib.air_progress_bytes_done(ev),
                    lib.air_progress_bytes_total(ev), dec(lib.air_progress_detail(ev))),))
                if progress is not None:
                    check(lib.air_submit_options_set_progress_cb(opts, cb, None))
                if interrupt is not None:
                    check(lib.air_submit_options_set_interrupt(opts, interrupt._handle))
                out = C.c_void_p()
                err = C.c_void_p()
                rc = lib.air_client_submit(h, config._handle, opts, C.byref(out), C.byref(err))
                if guard.pending is not None:
                    if err.value:
                        lib.air_error_free(err)
                    if out.value:
                        lib.air_submission_free(out)
                    guard.raise_pending()
                check(rc, err)
                s = out.value
                try:
                    return Submission(lib.air_submission_run_id(s),
                                      dec(lib.air_submission_dashboard_url(s)),
                                      dec(lib.air_submission_idempotency_token(s)),
                                      dec(lib.air_submission_launch_dir(s)),
                                      dec(lib.air_submission_code_source_path(s)),
                                      bool(lib.air_submission_snapshot_reused(s)))
                finally:
                    lib.air_submission_free(s)
        finally:
            if own is not None:
                own.close()

    def poll_mlflow_links(self, run_id, max_polls=10, interval_ms=2000):
        """Best-effort MLflow links of a run just submitted: (run_url,
        experiment_url), each None while not known yet."""
        with self._use() as h:
            run_url = C.c_void_p()
            exp_url = C.c_void_p()
            err = C.c_void_p()
            rc = lib.air_client_poll_mlflow_links(h, int(run_id), int(max_polls), int(interval_ms),
                                                  C.byref(run_url), C.byref(exp_url), C.byref(err))
            urls = (take_str(run_url), take_str(exp_url))
            check(rc, err)
            return urls

    # ---- runs --------------------------------------------------------------

    def get_run(self, run_id, *, mlflow=False, sweep=False, workspace_id=False,
                mlflow_name=False, config=False, flags=0):
        """Read one run (a Run snapshot). The keyword flags are AIR_GET_*."""
        flags |= ((K.GET_MLFLOW if mlflow else 0) | (K.GET_SWEEP if sweep else 0)
                  | (K.GET_WORKSPACE_ID if workspace_id else 0)
                  | (K.GET_MLFLOW_NAME if mlflow_name else 0)
                  | (K.GET_CONFIG if config else 0))
        with self._use() as h:
            out = C.c_void_p()
            err = C.c_void_p()
            check(lib.air_client_get_run(h, int(run_id), flags, C.byref(out), C.byref(err)), err)
            try:
                return Run._from_c(out.value)
            finally:
                lib.air_run_free(out.value)

    def list_runs(self, *, limit=None, all_status=False, all_users=False, max_inspected=None,
                  workspace_id=None, mlflow=False, filters=()):
        """A lazy RunListing of AI Runtime runs, newest first. @filters are
        "KEY=VALUE" strings or a dict (user, experiment, accelerator_type,
        num_accelerators). @workspace_id False skips the workspace id probe;
        @mlflow resolves MLflow ids of the runs returned."""
        if isinstance(filters, dict):
            filters = ["%s=%s" % kv for kv in filters.items()]
        h = self._acquire()
        try:
            with _options(lib.air_list_options_new, lib.air_list_options_free) as opts:
                for opt, value in ((K.LIST_LIMIT, limit), (K.LIST_MAX_INSPECTED, max_inspected),
                                   (K.LIST_ALL_STATUS, int(bool(all_status)) if all_status else None),
                                   (K.LIST_ALL_USERS, int(bool(all_users)) if all_users else None),
                                   (K.LIST_WORKSPACE_ID,
                                    None if workspace_id is None else int(bool(workspace_id))),
                                   (K.LIST_MLFLOW, 1 if mlflow else None)):
                    if value is not None:
                        check(lib.air_list_options_set_int(opts, opt, int(value)))
                for f in filters:
                    err = C.c_void_p()
                    check(lib.air_list_options_add_filter(opts, enc(f), C.byref(err)), err)
                out = C.c_void_p()
                err = C.c_void_p()
                check(lib.air_client_list_runs(h, opts, C.byref(out), C.byref(err)), err)
        except BaseException:
            self._release()
            raise
        return RunListing(self, out.value)

    def cancel_run(self, run_id):
        """Request cancellation of one run."""
        with self._use() as h:
            err = C.c_void_p()
            check(lib.air_client_cancel_run(h, int(run_id), C.byref(err)), err)

    def cancel_runs(self, run_ids):
        """Request cancellation of several runs; returns a CancelReport (one
        failing id does not stop the others)."""
        ids = [int(i) for i in run_ids]
        arr = (C.c_int64 * max(len(ids), 1))(*ids)
        with self._use() as h:
            out = C.c_void_p()
            err = C.c_void_p()
            check(lib.air_client_cancel_runs(h, arr, len(ids), C.byref(out), C.byref(err)), err)
            return CancelReport._take(out.value)

    def cancel_all(self):
        """Cancel every active AI Runtime run of the caller; returns a CancelReport."""
        with self._use() as h:
            out = C.c_void_p()
            err = C.c_void_p()
            check(lib.air_client_cancel_all(h, C.byref(out), C.byref(err)), err)
            return CancelReport._take(out.value)

    # ---- logs --------------------------------------------------------------

    def stream_logs(self, run_id, on_record=None, *, on_status=None, on_alert=None,
                    on_waiting=None, follow=None, tail_lines=None, minutes=None, node=None,
                    attempt=None, poll_interval_ms=None, max_page_failures=None,
                    interrupt=None):
        """Stream the logs of a run to callbacks, on this thread.

        on_record(LogRecord), on_status(current, previous),
        on_alert(LogRecord, pattern) and on_waiting(message) may each be None.
        on_waiting receives what a followed run without log lines is waiting
        for ("Allocating nodes...", on polls 0, 5, 10, ...; each costs a
        runs/get-output request), then None once the wait is over. A truthy
        return value from any of them stops the stream with AbortedError; an
        exception raised by one stops it and is raised again here. @interrupt
        stops it from another thread (CallInterruptedError). Returns a
        LogsSummary.
        """
        guard = CallbackGuard()
        rec_cb = guard.wrap(LOG_RECORD_CB, on_record, lambda r, _u: (LogRecord._from_c(r),))
        st_cb = guard.wrap(LOG_STATUS_CB, on_status, lambda c, p, _u: (dec(c), dec(p)))
        al_cb = guard.wrap(LOG_ALERT_CB, on_alert,
                           lambda r, pat, _u: (LogRecord._from_c(r), pat))
        wt_cb = guard.wrap(LOG_WAITING_CB, on_waiting, lambda m, _u: (dec(m),))
        with self._use() as h, _options(lib.air_logs_options_new,
                                        lib.air_logs_options_free) as opts:
            _logs_options(opts, follow, tail_lines, minutes, node, attempt, poll_interval_ms,
                          max_page_failures, interrupt)
            if on_waiting is not None:
                check(lib.air_logs_options_set_waiting_cb(opts, wt_cb, None))
            summary = C.c_void_p()
            err = C.c_void_p()
            rc = lib.air_client_stream_logs(h, int(run_id), opts, rec_cb, st_cb, al_cb, None,
                                            C.byref(summary), C.byref(err))
            try:
                if guard.pending is not None:
                    if err.value:
                        lib.air_error_free(err)
                    guard.raise_pending()
                check(rc, err)
                s = summary.value
                if not s:
                    return None
                return LogsSummary(lib.air_logs_summary_records(s),
                                   dec(lib.air_logs_summary_state(s)),
                                   bool(lib.air_logs_summary_terminal(s)),
                                   bool(lib.air_logs_summary_succeeded(s)),
                                   lib.air_logs_summary_source(s),
                                   bool(lib.air_logs_summary_ok(s)),
                                   dec(lib.air_logs_summary_no_logs_message(s)))
            finally:
                lib.air_logs_summary_free(summary)

    def download_logs(self, run_id, directory, *, node=None, attempt=None, interrupt=None,
                      poll_interval_ms=None, max_page_failures=None):
        """Download the MLflow log artifacts into <directory>/logs/node_<n>.log
        (every node, or @node). Returns a DownloadReport."""
        with self._use() as h, _options(lib.air_logs_options_new,
                                        lib.air_logs_options_free) as opts:
            _logs_options(opts, None, None, None, node, attempt, poll_interval_ms,
                          max_page_failures, interrupt)
            out = C.c_void_p()
            err = C.c_void_p()
            check(lib.air_client_download_logs(h, int(run_id), enc(directory), opts,
                                               C.byref(out), C.byref(err)), err)
            return DownloadReport._take(out.value)

    # ---- pools -------------------------------------------------------------

    @staticmethod
    def _pool(p):
        return Pool(dec(lib.air_pool_id(p)), dec(lib.air_pool_accelerator_type(p)),
                    lib.air_pool_reserved_accelerators(p), lib.air_pool_used_accelerators(p),
                    lib.air_pool_idle_accelerators(p))

    def list_pools(self):
        """The workspace's GPU pools, as a list of Pool."""
        with self._use() as h:
            out = C.c_void_p()
            err = C.c_void_p()
            check(lib.air_client_list_pools(h, C.byref(out), C.byref(err)), err)
            try:
                return [self._pool(lib.air_pool_list_get(out.value, i))
                        for i in range(lib.air_pool_list_count(out.value))]
            finally:
                lib.air_pool_list_free(out.value)

    def get_pool(self, pool_id):
        """One pool by id (bare or "provisioned-capacities/<id>")."""
        with self._use() as h:
            out = C.c_void_p()
            err = C.c_void_p()
            check(lib.air_client_get_pool(h, enc(pool_id), C.byref(out), C.byref(err)), err)
            try:
                return self._pool(out.value)
            finally:
                lib.air_pool_free(out.value)


def alert_patterns():
    """The fatal-line patterns, numbered from 1 (index 0 of the list is pattern 1)."""
    return [dec(lib.air_log_alert_pattern(i)) for i in range(1, lib.air_log_alert_pattern_count() + 1)]


def match_alert(line):
    """Number of the first fatal pattern matching @line, or 0."""
    raw = enc(line)
    return lib.air_log_match_alert(raw, len(raw))

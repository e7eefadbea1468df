"""The Python binding against the fake workspace (tests/fakews): the client,
submit, get, wait, lazy listings, cancel, the log iterator, downloads,
pools, image registration, errors as Python exceptions, exceptions raised in callbacks,
interrupts from another thread, one client shared by threads, and closing."""

import base64
import dataclasses
import json
import os
import tempfile
import threading
import time
import unittest
from datetime import datetime, timedelta, timezone

from bindtest import MINIMAL_YAML, TOKEN, air, air_run_body
from fakews_client import FakeWSCase

SUBMIT = "/api/2.2/jobs/runs/submit"
GET = "/api/2.2/jobs/runs/get"


class Boom(Exception):
    """Raised by test callbacks."""


class WorkspaceCase(FakeWSCase):
    def client(self, **kw):
        opts = dict(host=self.fw.url, token=TOKEN, use_environment=False, retry_backoff=0.01)
        opts.update(kw)
        c = air.Client(**opts)
        self.addCleanup(c.close)
        return c

    def new_run(self, **kw):
        return self.fw.create_run(air_run_body(**kw))

    def run_with_logs(self, count=50, **kw):
        rid = self.new_run(**kw)
        self.fw.add_logs(rid, synthetic={"count": count, "start_ns": 1700000000000000000,
                                         "step_ns": 1000000, "text": "step {i}"})
        return rid


class ClientTest(WorkspaceCase):
    def test_arguments_are_checked(self):
        with self.assertRaises(TypeError):
            air.Client(hots="x")  # type: ignore[call-arg]
        with self.assertRaises(TypeError):
            air.Client(retry_deadline="soon")
        with self.assertRaises(TypeError):
            air.Client(host=42.0)
        with self.assertRaises(ValueError):
            air.Client(connect_timeout=-1)

    def test_resolve_identity(self):
        c = self.client()
        self.assertIsNone(c.host)
        c.resolve()
        self.assertEqual(c.host.rstrip("/"), self.fw.url)
        self.assertEqual(c.auth_type, "pat")
        self.assertEqual(c.current_user(), "tester@databricks.com")
        self.assertEqual(c.workspace_id(), 900800700600500)

    def test_environment_host_and_token(self):
        old = {k: os.environ.get(k) for k in ("DATABRICKS_HOST", "DATABRICKS_TOKEN")}
        os.environ.update(DATABRICKS_HOST=self.fw.url, DATABRICKS_TOKEN=TOKEN)
        try:
            with air.Client() as c:
                self.assertEqual(c.current_user(), "tester@databricks.com")
        finally:
            for k, v in old.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v

    def test_resolve_without_host_fails_early(self):
        with air.Client(use_environment=False, token=TOKEN, config_file="/nonexistent/cfg") as c:
            with self.assertRaises(air.AirError) as cm:
                c.resolve()
            self.assertFalse(cm.exception.retryable)

    def test_debug_callback_sees_requests_without_secrets(self):
        seen = []
        c = self.client(debug=lambda kind, text: seen.append((kind, text)))
        c.current_user()
        self.assertIn(air.DebugType.REQUEST, {k for k, _ in seen})
        self.assertTrue(any("/api/2.0/preview/scim/v2/Me" in t for _, t in seen))
        self.assertFalse(any(TOKEN in t for _, t in seen), "token leaked into debug output")

    def test_debug_callback_exception_propagates_from_the_call(self):
        def debug(kind, text):
            raise Boom(text[:10])

        c = self.client(debug=debug)
        with self.assertRaises(Boom):
            c.current_user()
        rid = self.run_with_logs(count=3)
        for opener in (lambda: c.logs(rid), lambda: c.list_runs(all_status=True),
                       lambda: c.get_run(rid)):
            with self.assertRaises(Boom):
                opener()
        self.assertEqual(c._users, 0)  # everything opened was released

    def test_bad_token_is_auth_error(self):
        with self.assertRaises(air.AuthError) as cm:
            self.client(token="dapi-wrong").current_user()
        e = cm.exception
        self.assertEqual((e.kind, e.http_status), (air.ErrorKind.PERMANENT, 401))
        self.assertNotIn("dapi-wrong", str(e))

    def test_close_refuses_new_calls(self):
        with self.client() as c:
            pass
        with self.assertRaises(ValueError):
            c.current_user()
        c.close()
        self.assertIn("closed", repr(c))

    def test_exit_keeps_the_users_exception(self):
        self.new_run(active=True)
        with self.assertRaises(KeyError):
            with self.client() as c:
                listing = c.list_runs()
                stream = c.logs(self.run_with_logs(count=3))
                raise KeyError("mine")
        # The open iterators keep the connection until they are done.
        self.assertEqual(len(list(listing)), 1)
        self.assertEqual(len(list(stream)), 3)
        self.assertIsNone(c._h)
        with self.assertRaises(ValueError):
            c.list_runs()

    def test_client_interrupt_stops_calls_on_every_thread(self):
        intr = air.Interrupt()
        c = self.client(interrupt=intr)
        self.fw.fault(path="/api/2.0/preview/scim/v2/Me", action="delay", delay_ms=30000, times=-1)
        errors = []

        def call():
            try:
                c.current_user()
            except BaseException as exc:
                errors.append(exc)

        threads = [threading.Thread(target=call) for _ in range(3)]
        for t in threads:
            t.start()
        while sum(r["status"] is None for r in self.fw.requests(bodies=False)) < 3:
            time.sleep(0.01)
        t0 = time.monotonic()
        intr.trigger()
        for t in threads:
            t.join(20)
        self.assertLess(time.monotonic() - t0, 20)  # not the 30 s delay
        self.assertEqual([type(e) for e in errors], [air.CallInterruptedError] * 3)
        self.assertIs(errors[0].kind, air.ErrorKind.ABORTED)
        with self.assertRaises(air.CallInterruptedError):  # raised: calls stop before starting
            c.workspace_id()
        self.fw.clear_faults()
        intr.reset()
        self.assertEqual(c.current_user(), "tester@databricks.com")


class SubmitTest(WorkspaceCase):
    def test_submit_with_progress(self):
        c = self.client()
        phases = []
        with air.Config.loads(MINIMAL_YAML) as cfg:
            sub = c.submit(cfg, idempotency_key="bindings-key-1",
                           progress=lambda p: phases.append(p.phase))
        self.assertGreater(sub.run_id, 0)
        self.assertEqual(sub.idempotency_token, "bindings-key-1")
        self.assertTrue(sub.dashboard_url.endswith("/jobs/runs/%d" % sub.run_id))
        self.assertIsNone(sub.code_source_path)
        self.assertIn(air.Phase.SUBMIT, phases)
        self.assertEqual(phases, sorted(phases, key=lambda p: p.value))
        self.assertEqual(self.fw.run(sub.run_id)["idempotency_token"], "bindings-key-1")
        again = c.submit(air.Config.loads(MINIMAL_YAML), idempotency_key="bindings-key-1")
        self.assertEqual(again.run_id, sub.run_id)
        self.assertEqual(len(self.fw.runs()), 1)

    def test_submit_a_path_and_wait(self):
        self.fw.config(lifecycle={"pending_ms": 0, "running_ms": 300})
        with tempfile.NamedTemporaryFile("w", suffix=".yaml") as f:
            f.write(MINIMAL_YAML)
            f.flush()
            sub = self.client().submit(f.name)
        self.assertTrue(sub.idempotency_token)  # one is always sent
        run = sub.wait(poll_interval=0.05)
        self.assertIs(run.state, air.State.SUCCESS)
        self.assertEqual(run.name, "bindings-test")

    def test_missing_file_is_file_not_found(self):
        with self.assertRaises(FileNotFoundError):
            self.client().submit("/nonexistent/train.yaml")

    def test_progress_exception_propagates(self):
        def progress(p):
            raise Boom("from progress")

        with air.Config.loads(MINIMAL_YAML) as cfg, self.assertRaises(Boom) as cm:
            self.client().submit(cfg, progress=progress)
        self.assertEqual(str(cm.exception), "from progress")
        self.assertEqual(self.fw.count("POST", SUBMIT), 0)

    def test_preflight_rejection(self):
        self.fw.config(preflight={"errors": [{"field": "compute.accelerator_type",
                                              "message": "not available here"}]})
        with air.Config.loads(MINIMAL_YAML) as cfg, self.assertRaises(air.RejectedError) as cm:
            self.client().submit(cfg)
        self.assertIn("not available here", cm.exception.message)
        self.assertIs(cm.exception.kind, air.ErrorKind.INVALID_CONFIG)

    def test_interrupted_from_another_thread(self):
        self.fw.fault(method="POST", path=SUBMIT, action="delay", delay_ms=30000)
        intr = air.Interrupt()
        threading.Timer(0.3, intr.trigger).start()
        with air.Config.loads(MINIMAL_YAML) as cfg, self.assertRaises(air.CallInterruptedError):
            self.client().submit(cfg, interrupt=intr, idempotency_key="k-intr")

    def test_deadline(self):
        self.fw.fault(method="POST", path=SUBMIT, action="delay", delay_ms=30000)
        with air.Config.loads(MINIMAL_YAML) as cfg, self.assertRaises(TimeoutError) as cm:
            self.client().submit(cfg, timeout=timedelta(milliseconds=300))
        self.assertIsInstance(cm.exception, air.TimedOutError)
        self.assertTrue(cm.exception.retryable)


class RunsTest(WorkspaceCase):
    def test_get_run(self):
        rid = self.fw.create_run(dict(air_run_body(name="get-me", accel="GPU_8xH100", count=16),
                                      start_time=1700000000000, end_time=1700000090500))
        r = self.client().get_run(rid)
        self.assertEqual((r.run_id, r.name), (rid, "get-me"))
        self.assertIs(r.state, air.State.SUCCESS)
        self.assertIs(r.result, air.State.SUCCESS)
        self.assertEqual(r.state_name, "SUCCESS")
        self.assertTrue(r.is_terminal and r.succeeded and r.is_ai_runtime)
        self.assertEqual(r.started_at, datetime(2023, 11, 14, 22, 13, 20, tzinfo=timezone.utc))
        self.assertEqual(r.duration, timedelta(seconds=90.5))
        self.assertEqual((r.accelerator_type, r.accelerator_count), ("GPU_8xH100", 16))
        self.assertIn("/jobs/runs/%d" % rid, r.dashboard_url)
        self.assertEqual(r.to_dict()["run_id"], rid)
        self.assertIsNone(r.sweep)

    def test_active_run_has_no_result(self):
        r = self.client().get_run(self.new_run(active=True))
        self.assertIs(r.state, air.State.RUNNING)
        self.assertIsNone(r.result)
        self.assertFalse(r.state.is_terminal)
        self.assertIsNone(r.ended_at)
        self.assertIsNone(r.duration)

    def test_missing_run(self):
        with self.assertRaises(LookupError) as cm:
            self.client().get_run(987654321)
        e = cm.exception
        self.assertIsInstance(e, air.NotFoundError)
        self.assertIs(e.kind, air.ErrorKind.NOT_FOUND)
        self.assertFalse(e.retryable)

    def test_invalid_run_id(self):
        with self.assertRaises(ValueError):
            self.client().get_run(0)

    def test_wait_reports_states(self):
        rid = self.fw.create_run(dict(air_run_body(), lifecycle={"pending_ms": 200,
                                                                 "running_ms": 300}))
        seen = []
        run = self.client().wait(rid, poll_interval=0.02, on_state=lambda r: seen.append(r.state))
        self.assertIs(run.state, air.State.SUCCESS)
        self.assertEqual(seen[0], air.State.PENDING)
        self.assertEqual(seen[-1], air.State.SUCCESS)
        self.assertEqual(len(seen), len(set(seen)))

    def test_wait_timeout_is_timeout_error(self):
        rid = self.new_run(active=True)
        with self.assertRaises(TimeoutError):
            self.client().wait(rid, timeout=0.3, poll_interval=0.05)

    def test_wait_callback_exception_propagates(self):
        def on_state(run):
            raise Boom(run.state.name)

        with self.assertRaises(Boom):
            self.client().wait(self.new_run(active=True), on_state=on_state)

    def test_list_runs_is_lazy(self):
        self.fw.config(list_page_size=2)
        ids = [self.new_run(name="list-%d" % i, active=True) for i in range(5)]
        c = self.client()
        with c.list_runs(limit=5) as listing:
            self.assertEqual(self.fw.count("GET", "/api/2.2/jobs/runs/list"), 0)
            first = next(listing)
            self.assertEqual(self.fw.count("GET", "/api/2.2/jobs/runs/list"), 1)
            rest = [r.run_id for r in listing]
        self.assertEqual([first.run_id] + rest, sorted(ids, reverse=True))
        self.assertEqual(self.fw.count("GET", "/api/2.2/jobs/runs/list"), 3)
        self.assertFalse(listing.truncated)
        self.assertTrue(all(isinstance(r, air.Run) for r in c.list_runs(limit=2)))

    def test_list_filters(self):
        self.new_run(name="alpha", active=True)
        beta = self.new_run(name="beta", active=True)
        self.assertEqual([r.run_id for r in self.client().list_runs(filters={"experiment": "beta"})],
                         [beta])
        with self.assertRaises(air.InvalidArgumentError):
            self.client().list_runs(filters=["no-equals-sign"])

    def test_list_cache_spares_finished_runs(self):
        """The second --all-status listing asks nothing about a finished run
        (the library's on-disk list cache, the same call as C and Go)."""
        done = [self.new_run(name="done-%d" % i) for i in range(2)]
        active = self.new_run(name="busy", active=True)
        old = {k: os.environ.get(k) for k in ("DATABRICKS_CACHE_ENABLED", "DATABRICKS_CACHE_DIR")}
        with tempfile.TemporaryDirectory() as tmp:
            os.environ.update(DATABRICKS_CACHE_ENABLED="true", DATABRICKS_CACHE_DIR=tmp)
            try:
                c = self.client()
                first = sorted(r.run_id for r in c.list_runs(all_status=True))
                self.fw.clear_requests()
                second = sorted(r.run_id for r in c.list_runs(all_status=True))
            finally:
                for k, v in old.items():
                    if v is None:
                        os.environ.pop(k, None)
                    else:
                        os.environ[k] = v
        asked = [r["query"].get("run_id") for r in self.fw.requests("GET", GET)]
        asked = [v[0] if isinstance(v, list) else v for v in asked]
        self.assertEqual(first, sorted(done + [active]))
        self.assertEqual(second, first)
        self.assertEqual([a for a in asked if int(a) in done], [])
        self.assertIn(str(active), [str(a) for a in asked])

    def test_cancel(self):
        rid = self.new_run(active=True)
        c = self.client()
        c.cancel_run(rid)
        self.assertEqual(self.fw.run(rid)["cancels"], 1)
        rep = c.cancel_runs([rid, 987654321])
        self.assertEqual((len(rep), rep.failures, rep.ok), (2, 1, False))
        by_id = {o.run_id: o for o in rep}
        self.assertTrue(by_id[rid].ok)
        self.assertEqual(by_id[987654321].code, air.constants.ENOTFOUND)
        self.assertTrue(by_id[987654321].message)

    def test_cancel_all_and_submission_helpers(self):
        ids = {self.new_run(name="c%d" % i, active=True) for i in range(2)}
        rep = self.client().cancel_all()
        self.assertEqual({o.run_id for o in rep}, ids)
        self.assertTrue(rep.ok)


class LogsTest(WorkspaceCase):
    def test_finished_run(self):
        rid = self.run_with_logs()
        states = []
        stream = self.client().logs(rid, on_status=lambda cur, prev: states.append((cur, prev)))
        self.assertIsNone(stream.summary)
        lines = list(stream)
        self.assertEqual([r.line for r in lines], ["step %d" % i for i in range(50)])
        self.assertEqual(lines[1].time_ns - lines[0].time_ns, 1000000)
        self.assertEqual(lines[0].time, datetime(2023, 11, 14, 22, 13, 20, tzinfo=timezone.utc))
        self.assertEqual({(r.node, r.source) for r in lines}, {(0, air.LogSource.ENDPOINT)})
        s = stream.summary
        self.assertEqual((s.records, s.state, s.terminal, s.succeeded),
                         (50, air.State.SUCCESS, True, True))
        self.assertEqual(states, [("SUCCESS", None)])

    def test_tail(self):
        lines = [r.line for r in self.client().logs(self.run_with_logs(), tail=5)]
        self.assertEqual(lines, ["step %d" % i for i in range(45, 50)])

    def test_alert(self):
        rid = self.new_run()
        self.fw.add_logs(rid, records=[
            {"time_unix_nano": 1700000000000000000, "body": "ok"},
            {"time_unix_nano": 1700000000000000001, "body": "RuntimeError: CUDA out of memory"}])
        records = list(self.client().logs(rid))
        # Not matched while iterating: when first read, after the iterator has moved on.
        self.assertEqual([vars(r).get("_alert", "eager") for r in records], [None, None])
        self.assertEqual([r.alert for r in records], [0, 1])
        self.assertEqual(air.match_alert("CUDA out of memory"), 1)
        self.assertEqual(len(air.alert_patterns()), 21)
        # Still the dataclass field: constructor, fields(), asdict(), ==.
        given = air.LogRecord(b"ok", 1, 0, air.LogSource.ENDPOINT, 7)
        self.assertEqual(given.alert, 7)
        self.assertEqual(dataclasses.asdict(records[1])["alert"], 1)
        self.assertIn("alert", [f.name for f in dataclasses.fields(air.LogRecord)])
        self.assertEqual(records[1], air.LogRecord(records[1].raw, records[1].time_ns,
                                                   records[1].node, records[1].source, 1))
        with self.assertRaises(dataclasses.FrozenInstanceError):
            records[0].alert = 3  # type: ignore[misc]

    def test_follow_active_run(self):
        self.fw.config(auto_logs=4)
        self.fw.config(lifecycle={"pending_ms": 0, "running_ms": 600})
        with air.Config.loads(MINIMAL_YAML) as cfg:
            sub = self.client().submit(cfg)
        stream = sub.logs(poll_interval=0.05)
        self.assertEqual([r.line for r in stream], ["node 0 step %d" % i for i in range(4)])
        self.assertIs(stream.summary.state, air.State.SUCCESS)

    def test_break_releases(self):
        c = self.client()
        stream = c.logs(self.run_with_logs())
        for rec in stream:
            break
        stream.close()
        self.assertEqual(c._users, 0)
        self.assertEqual(list(stream), [])

    def waiting_run(self):
        """PENDING on polls 0-5 with a status message, then RUNNING with a line on poll 6."""
        rid = self.fw.create_run({"state": {"life_cycle_state": "PENDING"},
                                  "tasks": [{"ai_runtime_task": {}}],
                                  "sequence": [{}] * 6 + [{"state": {"life_cycle_state": "RUNNING"}},
                                                          {"state": {"life_cycle_state": "TERMINATED",
                                                                     "result_state": "SUCCESS"},
                                                           "end_time": 1700000030000}]})
        self.fw.set_output(rid, {"ai_runtime_task_output": {"status_message": "STATUS:Allocating nodes.."}})
        self.fw.add_logs(rid, records=[{"time_unix_nano": 1700000001000000000, "body": "up"}])
        self.fw.fault(path="/api/2.0/ai-training/workflows/by-run-id/%d/logs" % rid, status=200,
                      body={"log_records": []}, times=6)
        return rid

    def test_waiting_callback(self):
        events = []
        for rec in self.client().logs(self.waiting_run(), on_waiting=events.append,
                                      poll_interval=0.005):
            events.append(rec.line)
        self.assertEqual(events, ["Allocating nodes...", "Allocating nodes...", None, "up"])

    def test_callback_exception_propagates_and_ends_the_stream(self):
        def on_waiting(msg):
            raise Boom(msg)

        stream = self.client().logs(self.waiting_run(), on_waiting=on_waiting, poll_interval=0.005)
        with self.assertRaises(Boom):
            next(stream)
        self.assertEqual(list(stream), [])

    def test_status_callback_exception_propagates(self):
        def on_status(cur, prev):
            raise Boom(cur)

        with self.assertRaises(Boom) as cm:
            list(self.client().logs(self.run_with_logs(), on_status=on_status))
        self.assertEqual(str(cm.exception), "SUCCESS")

    def test_interrupt_from_another_thread(self):
        rid = self.new_run(active=True)
        intr = air.Interrupt()
        threading.Timer(0.3, intr.trigger).start()
        t0 = time.monotonic()
        with self.assertRaises(air.CallInterruptedError) as cm:
            list(self.client().logs(rid, poll_interval=30, interrupt=intr))
        self.assertLess(time.monotonic() - t0, 20)  # not the 30 s poll
        self.assertIs(cm.exception.kind, air.ErrorKind.ABORTED)

    def test_missing_run_fails_at_once(self):
        with self.assertRaises(air.NotFoundError):
            self.client().logs(987654321)

    def test_download_logs(self):
        body = air_run_body(accel="GPU_8xH100", count=16)
        body.update(start_time=1700000000000, end_time=1700000100000)
        rid = self.fw.create_run(body)
        ids = self.fw.run(rid)["mlflow"]
        self.fw.mlflow({ids["run_id"]: {"experiment_id": ids["experiment_id"], "artifacts": {
            "logs/node_0/logs-0.chunk.txt": "a0\n", "logs/node_0/logs-1.chunk.txt": "a1\n",
            "logs/node_1/logs-0.chunk.txt": "b0\n"}}})
        with tempfile.TemporaryDirectory() as d:
            rep = self.client().download_logs(rid, d)
            self.assertTrue(rep.ok)
            self.assertEqual([e.node for e in rep], [0, 1])
            first = rep.entries[0]
            self.assertEqual((first.path, first.bytes), (os.path.join(d, "logs", "node_0.log"), 6))
            with open(first.path) as f:
                self.assertEqual(f.read(), "a0\na1\n")
            self.assertIs(rep.state, air.State.SUCCESS)
            self.assertTrue(rep.terminal and rep.succeeded)


class ErrorMappingTest(WorkspaceCase):
    def test_permission_denied(self):
        rid = self.new_run()
        self.fw.fault(method="GET", path=GET, status=403,
                      body={"error_code": "PERMISSION_DENIED", "message": "no access"}, times=-1)
        with self.assertRaises(air.PermissionDeniedError) as cm:
            self.client().get_run(rid)
        e = cm.exception
        self.assertEqual((e.kind, e.http_status, e.server_code),
                         (air.ErrorKind.PERMANENT, 403, "PERMISSION_DENIED"))
        self.assertTrue(e.request_id)
        self.assertIn("no access", str(e))

    def test_persistent_503_is_transient(self):
        rid = self.new_run()
        self.fw.fault(method="GET", path=GET, status=503, headers={"Retry-After": "1"},
                      body={"error_code": "TEMPORARILY_UNAVAILABLE", "message": "busy"}, times=-1)
        with self.assertRaises(air.AirError) as cm:
            self.client(retry_deadline=0.4).get_run(rid)
        e = cm.exception
        self.assertIs(e.kind, air.ErrorKind.TRANSIENT)
        self.assertTrue(e.retryable)
        self.assertEqual(e.retry_after, timedelta(seconds=1))

    def test_transient_failure_is_retried(self):
        rid = self.new_run()
        self.fw.fault(method="GET", path=GET, status=503, times=2,
                      body={"error_code": "TEMPORARILY_UNAVAILABLE", "message": "busy"})
        self.assertEqual(self.client().get_run(rid).run_id, rid)


class PoolsTest(WorkspaceCase):
    def test_list_and_get(self):
        self.fw.pools([{"id": "pool-a", "accelerator_type": "GPU_8xH100", "accelerator_count": 64,
                        "used": 16, "idle": 48},
                       {"id": "pool-b", "accelerator_type": "GPU_1xA10", "accelerator_count": 4}])
        c = self.client()
        pools = c.list_pools()
        self.assertEqual(pools[0], air.Pool("pool-a", "GPU_8xH100", 64, 16, 48))
        self.assertEqual(c.get_pool("provisioned-capacities/pool-a").id, "pool-a")
        with self.assertRaises(air.NotFoundError):
            c.get_pool("pool-zzz")

    def test_disabled(self):
        self.fw.config(features={"pools": False})
        with self.assertRaises(air.FeatureDisabledError):
            self.client().list_pools()


IMAGE = "myreg.io/team/train:v3"
IMAGES = "/api/2.0/ai-compute-manager/images"
PASSWORD = "s3cret-Pa55word"
AUTH_B64 = base64.b64encode(b"alice:" + PASSWORD.encode()).decode()


class RegisterImageTest(WorkspaceCase):
    def setUp(self):
        super().setUp()
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.docker_dir = tmp.name

    def docker_config(self, obj):
        with open(os.path.join(self.docker_dir, "config.json"), "w") as f:
            json.dump(obj, f)

    def register(self, url=IMAGE, client=None, **kw):
        kw.setdefault("docker_config_dir", self.docker_dir)
        kw.setdefault("poll_interval", 0.01)
        return (client or self.client()).register_image(url, **kw)

    def test_anonymous_first_registration_then_cached(self):
        reg = self.register("ubuntu")
        self.assertIsInstance(reg, air.ImageRegistration)
        self.assertEqual(reg.url, "docker.io/library/ubuntu:latest")
        self.assertEqual(reg.status, "AVAILABLE")
        self.assertEqual(len(reg.manifest_sha256), 64)
        self.assertEqual((reg.image_updated, reg.cached), (True, False))
        self.assertIsNone(reg.credentials)
        self.assertIsNone(reg.credentials_scope)
        again = self.register("ubuntu")
        self.assertEqual((again.image_updated, again.cached), (False, True))
        self.assertEqual(again.manifest_sha256, reg.manifest_sha256)
        with self.assertRaises(AttributeError):
            reg.status = "x"  # type: ignore[misc]

    def test_private_registry_credentials_are_stored_and_kept_secret(self):
        self.fw.images({IMAGE: {"registered": False, "requires_credentials": True}})
        self.docker_config({"auths": {"https://myreg.io/v2/": {"auth": AUTH_B64}}})
        trace = []
        c = self.client(debug=lambda kind, text: trace.append(text))
        reg = self.register(client=c)
        scope = "docker-credentials-tester@databricks.com"
        self.assertEqual(reg.credentials, (scope, "myreg.io-alice-local"))
        secrets = self.fw.call("GET", "/__fakews/secrets")["scopes"]
        self.assertEqual(secrets[scope]["myreg.io-alice-local"], AUTH_B64)
        self.assertEqual(json.loads(self.fw.last("POST", IMAGES)["body"]),
                         {"docker_image_url": IMAGE, "credentials_scope": scope,
                          "credentials_key": "myreg.io-alice-local"})
        text = "\n".join(trace)
        self.assertTrue(text)
        self.assertNotIn(PASSWORD, text)
        self.assertNotIn(AUTH_B64, text)

    def test_explicit_credentials(self):
        self.fw.call("POST", "/__fakews/secrets", {"scopes": {"team": {"reg": "dTpw"}}})
        self.fw.images({IMAGE: {"registered": False, "requires_credentials": True}})
        reg = self.register(credentials=("team", "reg"))
        self.assertEqual((reg.credentials_scope, reg.credentials_key), ("team", "reg"))
        self.assertEqual(self.fw.count(path="/api/2.0/secrets/put"), 0)

    def test_private_registry_without_credentials_is_permission_denied(self):
        self.fw.images({IMAGE: {"registered": False, "requires_credentials": True}})
        with self.assertRaises(air.PermissionDeniedError) as cm:
            self.register(discover=False)
        self.assertIs(cm.exception.kind, air.ErrorKind.PERMANENT)

    def test_pending_until_the_timeout_is_transient(self):
        self.fw.images({IMAGE: {"registered": False, "on_register": {"state": "PENDING"}}})
        with self.assertRaises(air.TimedOutError) as cm:
            self.register(timeout=timedelta(milliseconds=100))
        e = cm.exception
        self.assertIsInstance(e, TimeoutError)
        self.assertIs(e.kind, air.ErrorKind.TRANSIENT)
        self.assertTrue(e.retryable)
        self.assertIn("still PENDING", str(e))
        self.assertIn(IMAGE, str(e))

    def test_failed_import_is_permanent(self):
        self.fw.images({IMAGE: {"registered": False, "on_register": {
            "state": "IMPORTING",
            "states": [{"state": "FAILED", "status_message": "manifest unknown"}]}}})
        with self.assertRaises(air.ApiError) as cm:
            self.register()
        self.assertIs(cm.exception.kind, air.ErrorKind.PERMANENT)
        self.assertFalse(cm.exception.retryable)
        self.assertIn("manifest unknown", str(cm.exception))

    def test_arguments(self):
        with self.assertRaises(air.InvalidArgumentError) as cm:
            self.register(tag_policy="auto")
        self.assertIn("tag_policy", str(cm.exception))
        with self.assertRaises(air.InvalidArgumentError) as cm:
            self.register(timeout=0)
        self.assertIn("timeout", str(cm.exception))
        with self.assertRaises(TypeError):
            self.register(credentials="team/reg")  # type: ignore[arg-type]
        with self.assertRaises(air.InvalidArgumentError):
            self.register("  ")
        self.assertEqual(self.fw.count(path=IMAGES), 0)
        self.assertEqual(self.register(tag_policy="latest").status, "AVAILABLE")

    def test_interrupt_from_another_thread_ends_the_wait(self):
        self.fw.images({IMAGE: {"registered": False, "on_register": {"state": "PENDING"}}})
        intr = air.Interrupt()
        errors = []

        def call():
            try:
                self.register(poll_interval=60, interrupt=intr)
            except BaseException as exc:
                errors.append(exc)

        t = threading.Thread(target=call)
        t.start()
        while not self.fw.count("POST", IMAGES):
            time.sleep(0.01)
        intr.trigger()
        t.join(60)
        self.assertFalse(t.is_alive())
        self.assertEqual([type(e) for e in errors], [air.CallInterruptedError])


class ThreadsTest(WorkspaceCase):
    def test_one_client_many_threads(self):
        ids = [self.new_run(name="t%d" % i) for i in range(8)]
        rid_logs = self.run_with_logs(count=200)
        c = self.client()
        errors, results, streamed = [], {}, []

        def getter(rid):
            try:
                for _ in range(5):
                    results.setdefault(rid, []).append(c.get_run(rid).run_id)
            except BaseException as exc:
                errors.append(exc)

        def streamer():
            try:
                streamed.extend(r.line for r in c.logs(rid_logs))
            except BaseException as exc:
                errors.append(exc)

        threads = [threading.Thread(target=getter, args=(rid,)) for rid in ids]
        threads.append(threading.Thread(target=streamer))
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        self.assertEqual(errors, [])
        self.assertEqual(results, {rid: [rid] * 5 for rid in ids})
        self.assertEqual(streamed, ["step %d" % i for i in range(200)])


class MetricsTest(WorkspaceCase):
    def run_with_metrics(self, active=False, **metrics):
        body = air_run_body()
        body["start_time"] = 1700000000000
        if active:
            body["state"] = {"life_cycle_state": "RUNNING"}
        rid = self.fw.create_run(body)
        mlflow = self.fw.mlflow_run_of(rid)
        if metrics:
            self.fw.add_metrics(mlflow, {k.replace("__", "/"): [
                {"value": v, "step": i, "timestamp": 1700000000000 + i} for i, v in enumerate(vs)]
                for k, vs in metrics.items()})
        return rid, mlflow

    def test_histories_as_lists_of_named_tuples(self):
        rid, mlflow = self.run_with_metrics(loss=[2.5, 1.0, "NaN"], acc=[0.5],
                                            system__gpu_0_utilization_percentage=[77])
        got = self.client().metrics(rid)
        self.assertEqual(list(got), ["acc", "loss", "system/gpu_0_utilization_percentage"])
        loss = got["loss"]
        self.assertEqual(loss[0], air.MetricPoint(0, 2.5, 1700000000000, "loss"))
        self.assertEqual(loss[1]._asdict(), {"step": 1, "value": 1.0, "timestamp": 1700000000001,
                                             "key": "loss"})
        self.assertTrue(loss[2].value != loss[2].value)   # NaN
        self.assertEqual(loss[0].time, datetime(2023, 11, 14, 22, 13, 20, tzinfo=timezone.utc))
        # What pandas.DataFrame(points) takes: the fields of the tuples.
        self.assertEqual(air.MetricPoint._fields, ("step", "value", "timestamp", "key"))
        # Named keys in the order asked, a missing one empty.
        self.assertEqual(self.client().metrics(rid, ["nope", "acc"]),
                         {"nope": [], "acc": [air.MetricPoint(0, 0.5, 1700000000000, "acc")]})
        # Paged: several pages, each point once.
        self.fw.add_metrics(mlflow, synthetic={"key": "big", "count": 2500})
        hist = self.client().metric_history(rid, "big", page_size=1000)
        self.assertEqual([p.step for p in hist], list(range(2500)))
        self.assertEqual(self.fw.count("GET", "/api/2.0/mlflow/metrics/get-history") >= 3, True)

    def test_latest_values(self):
        rid, mlflow = self.run_with_metrics(loss=[2.5, 1.0], acc=[0.5, 0.75])
        latest = self.client().latest_metrics(rid)
        self.assertEqual(dict(latest), {
            "acc": air.MetricPoint(1, 0.75, 1700000000001, "acc"),
            "loss": air.MetricPoint(1, 1.0, 1700000000001, "loss")})
        self.assertEqual(latest["loss"].value, 1.0)
        self.assertEqual(latest.mlflow_run_id, mlflow)
        self.assertEqual(latest.mlflow_status, "FINISHED")
        self.assertIs(latest.state, air.State.SUCCESS)

    def test_no_metrics_and_missing_runs(self):
        rid, _ = self.run_with_metrics()
        c = self.client()
        self.assertEqual(c.metrics(rid), {})
        self.assertEqual(len(c.latest_metrics(rid)), 0)
        pending = self.fw.create_run({"state": {"life_cycle_state": "PENDING"},
                                      "tasks": [{"ai_runtime_task": {}}]})
        latest = c.latest_metrics(pending)
        self.assertIsNone(latest.mlflow_run_id)
        self.assertIs(latest.state, air.State.PENDING)
        with self.assertRaises(air.NotFoundError):
            c.metrics(424242)
        with self.assertRaises(air.NotFoundError):
            c.latest_metrics(424242)
        with self.assertRaises(ValueError):
            c.metric_history(rid, "")

    def test_following_a_run_until_it_ends(self):
        rid, mlflow = self.run_with_metrics(active=True, loss=[3])
        polls = []

        def on_poll(state):
            polls.append(state)
            if len(polls) == 1:
                self.fw.add_metrics(mlflow, {"loss": [{"value": 2, "step": 1}, {"value": 1, "step": 2}]})
            elif len(polls) == 2:
                self.fw.add_metrics(mlflow, {"loss": [{"value": 0.5, "step": 3}]})
                self.fw.update_run(rid, {"state": {"life_cycle_state": "TERMINATED",
                                                   "result_state": "FAILED"}})

        hist = self.client().metric_history(rid, "loss", follow=True, poll_interval=0.01,
                                            page_size=2, on_poll=on_poll)
        self.assertEqual([(p.step, p.value) for p in hist], [(0, 3), (1, 2), (2, 1), (3, 0.5)])
        self.assertEqual(polls, ["RUNNING", "RUNNING"])
        self.assertIs(hist.state, air.State.FAILED)
        self.assertEqual(hist.mlflow_run_id, mlflow)

    def test_a_followed_history_stops_for_an_interrupt_and_a_callback(self):
        rid, _ = self.run_with_metrics(active=True)
        intr = air.Interrupt()
        threading.Timer(0.3, intr.trigger).start()
        with self.assertRaises(air.CallInterruptedError):
            list(self.client().metric_history(rid, follow=True, poll_interval=0.05,
                                              interrupt=intr))

        def boom(state):
            raise Boom()
        with self.assertRaises(Boom):
            list(self.client().metric_history(rid, follow=True, poll_interval=0.01, on_poll=boom))


class SweepTest(WorkspaceCase):
    """Client.sweep() and Client.rerun()."""

    def config(self):
        return air.Config.loads(MINIMAL_YAML + "parameters: {lr: 0.1}\n", name="w.yaml")

    def test_a_grid_and_its_results(self):
        c = self.client()
        seen = []
        with self.config() as cfg:
            s = c.sweep(cfg, grid={"parameters.lr": [1e-3, 3e-4], "parameters.opt": ["adam", "32"]},
                        base_key="py", on_progress=lambda v: seen.append((v.index, v.status)))
            again = c.sweep(cfg, grid={"parameters.lr": [0.001, 3e-4],
                                       "parameters.opt": ["adam", "32"]}, base_key="py")
        self.assertIsInstance(s, air.Sweep)
        self.assertEqual(len(s), 4)
        self.assertEqual(s.base_key, "py")
        self.assertEqual(s[1].point, {"parameters.lr": 0.001, "parameters.opt": "32"})
        self.assertEqual(s[1].run_name, "bindings-test lr=0.001 opt=32")
        self.assertTrue(all(v.status is air.VariantStatus.SUBMITTED for v in s))
        self.assertEqual(s.failed, [])
        self.assertEqual(again.run_ids, s.run_ids)          # nothing new
        self.assertEqual(len(self.fw.runs()), 4)
        self.assertEqual(sorted(i for i, st in seen if st is air.VariantStatus.SUBMITTED),
                         [0, 1, 2, 3])
        rows = s.results(timeout=60)
        self.assertEqual(rows[1]["parameters.opt"], "32")
        self.assertEqual(rows[1]["state"], "SUCCESS")
        self.assertTrue(all(r["succeeded"] for r in rows))

    def test_points_sample_and_dry_run(self):
        c = self.client()
        pts = [{"parameters.lr": x / 10} for x in range(1, 9)]
        with self.config() as cfg:
            d = c.sweep(cfg, points=pts, sample=3, seed=5, dry_run=True, base_key="k")
            d2 = c.sweep(cfg, points=pts, sample=3, seed=5, dry_run=True)
        self.assertEqual(len(d), 3)
        self.assertEqual([v.point for v in d], [v.point for v in d2])
        self.assertTrue(all(v.status is air.VariantStatus.VALID and v.run_id is None for v in d))
        self.assertTrue(d[0].idempotency_key.startswith("k-"))
        self.assertEqual(self.fw.requests(), [])

    def test_a_bad_point_and_a_callback_that_raises(self):
        c = self.client()
        with self.config() as cfg:
            with self.assertRaises(air.ConfigError) as cm:
                c.sweep(cfg, grid={"compute.num_accelerators": [1, 0]})
            self.assertEqual(cm.exception.field, "compute.num_accelerators")
            self.assertIn("variant 1", str(cm.exception))

            def boom(v):
                if v.status is air.VariantStatus.SUBMITTED:
                    raise Boom("stop")
            with self.assertRaises(Boom) as cm2:
                c.sweep(cfg, grid={"parameters.lr": [1, 2, 3, 4, 5, 6]}, max_parallel=1,
                        on_progress=boom)
        self.assertIsInstance(cm2.exception.sweep, air.Sweep)
        self.assertLess(len(cm2.exception.sweep.run_ids), 6)
        with self.config() as cfg, self.assertRaises(ValueError):
            c.sweep(cfg, grid={}, points=[])

    def test_stop_and_cancel_a_sweep(self):
        c = self.client()
        self.fw.config(lifecycle={"pending_ms": 600000})
        with self.config() as cfg:
            s = c.sweep(cfg, grid={"parameters.lr": [1, 2]}, base_key="py-stop")
            report = s.cancel()                      # Client.cancel_sweep(): stopped, cancelled
            again = c.sweep(cfg, grid={"parameters.lr": [1, 2, 3]}, base_key="py-stop")
            c.stop_sweep("py-other")
            other = c.sweep(cfg, grid={"parameters.lr": [1]}, base_key="py-other")
        self.assertEqual(sorted(o.run_id for o in report), sorted(s.run_ids))
        self.assertEqual(again.run_ids, s.run_ids)   # its runs, and nothing new
        self.assertEqual(len(again.failed), 1)       # the stop stays
        self.assertIsInstance(again[2].error, air.AbortedError)
        self.assertIn("sweep py-stop was stopped", str(again[2].error))
        self.assertEqual([v.run_id for v in other], [None])
        self.assertEqual(len(self.fw.runs()), 2)
        self.assertFalse(other.resumed)
        with self.config() as cfg:
            resumed = c.sweep(cfg, grid={"parameters.lr": [1]}, base_key="py-other", resume=True)
            plain = c.sweep(cfg, grid={"parameters.lr": [1]}, base_key="py-other", resume=True)
        self.assertTrue(resumed.resumed)              # the stop undone: its variant submitted
        self.assertEqual(len(resumed.run_ids), 1)
        self.assertFalse(plain.resumed)               # nothing left to undo; the same run
        self.assertEqual(plain.run_ids, resumed.run_ids)
        self.assertEqual(len(self.fw.runs()), 3)
        with self.assertRaises(air.InvalidArgumentError):
            c.stop_sweep(" ")

    def test_rerun(self):
        c = self.client()
        with self.config() as cfg:
            first = c.submit(cfg)
        again = c.rerun(first.run_id, overrides={"parameters.lr": 0.5})
        twice = c.rerun(first.run_id, overrides=["parameters.lr=0.5"])
        self.assertNotEqual(again.run_id, first.run_id)
        self.assertEqual(twice.run_id, again.run_id)
        self.assertTrue(again.idempotency_token.startswith("rerun-%d-" % first.run_id))
        with self.assertRaises(air.NotFoundError):
            c.rerun(424242)
        # A run submitted with an override its training_config.yaml does not
        # hold: the rerun keeps it and says so.
        with self.config() as cfg:
            overridden = c.submit(cfg.override("compute.num_accelerators=2").validate())
        kept = c.rerun(overridden.run_id)
        self.assertEqual(len(kept.warnings), 1)
        self.assertIn("this run keeps them (compute.num_accelerators)", kept.warnings[0])
        self.assertEqual(c.get_run(kept.run_id).accelerator_count, 2)


if __name__ == "__main__":
    unittest.main()


class CheckTest(WorkspaceCase):
    YAML = MINIMAL_YAML + "secrets: {HF_TOKEN: ml/hf, WANDB: ml/wandb}\n" \
        "permissions: [{user_name: a@b.com, level: CAN_VIEW}]\n"

    def setUp(self):
        super().setUp()
        self.fw.call("POST", "/__fakews/secrets", {"scopes": {"ml": {"hf": "hf_py_value"}}})

    def test_report_iterable_with_ok(self):
        c = self.client()
        with air.Config.loads(self.YAML, name="w.yaml") as cfg:
            report = c.check(cfg)
        self.assertFalse(report.ok)
        self.assertEqual(len(list(report)), len(report))
        keys = {(ch.name, ch.field): ch for ch in report}
        self.assertIs(keys[("secret_key", "secrets.HF_TOKEN")].status, air.CheckStatus.PASS)
        wandb = keys[("secret_key", "secrets.WANDB")]
        self.assertIs(wandb.status, air.CheckStatus.FAIL)
        self.assertEqual(wandb.message, "scope ml has no key wandb")
        self.assertEqual(str(wandb.status), "fail")
        self.assertIn(wandb, report.failed())
        self.assertIs(keys[("preflight", None)].status, air.CheckStatus.PASS)
        self.assertNotIn("hf_py_value", repr(report))
        self.assertEqual(self.fw.count("POST", "/api/2.2/jobs/runs/submit"), 0)

    def test_options_callback_and_errors(self):
        c = self.client()
        seen = []
        with air.Config.loads(MINIMAL_YAML, name="w.yaml") as cfg:
            report = c.check(cfg, resources=False, strict=True, on_check=seen.append)
            self.assertFalse(report.ok)  # the environment version is not pinned
            self.assertEqual([ch.name for ch in report], [ch.name for ch in seen])
            self.assertEqual(self.fw.requests(), [])
            with self.assertRaises(Boom):
                c.check(cfg, on_check=lambda ch: (_ for _ in ()).throw(Boom()))
            with self.assertRaises(air.InvalidArgumentError):
                c.check(cfg, idempotency_key=" ")

    def test_accelerator_types(self):
        self.fw.config(compute_options=["GPU_1xA10", "GPU_NEXT"])
        self.assertEqual(self.client().accelerator_types(), ["GPU_1xA10", "GPU_NEXT"])

    def test_submission_warnings(self):
        self.fw.config(experiments={"manage": False})
        with air.Config.loads(self.YAML.replace("WANDB: ml/wandb", "X: ml/hf"),
                              name="w.yaml") as cfg:
            sub = self.client().submit(cfg)
        self.assertEqual(len(sub.warnings), 1)
        self.assertIn("the permissions were not granted on the MLflow experiment",
                      sub.warnings[0])

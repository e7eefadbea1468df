"""The Python binding against the fake workspace (tests/fakews): client
options, submit, get, list, cancel, log streaming with Python callbacks,
interrupts from another thread, error mapping, pools, sharing one client
between threads."""

import os
import tempfile
import threading
import time
import unittest

from bindtest import MINIMAL_YAML, air, skip_unimplemented
from fakews_client import FakeWS

TOKEN = "dapi-test"
SUBMIT = "/api/2.2/jobs/runs/submit"


def air_run_body(name="bind-exp", active=False, accel="GPU_1xA10", count=1):
    """A stored AI Runtime run (fakews control API)."""
    body = {"run_name": name, "tasks": [{
        "task_key": name,
        "ai_runtime_task": {"experiment": name, "deployments": [
            {"compute": {"accelerator_type": accel, "accelerator_count": count}}]}}]}
    if active:
        body["lifecycle"] = {"pending_ms": 0, "running_ms": 600000}
    return body


class WorkspaceCase(unittest.TestCase):
    fw = None

    @classmethod
    def setUpClass(cls):
        cls.fw = FakeWS().start()

    @classmethod
    def tearDownClass(cls):
        cls.fw.stop()

    def setUp(self):
        self.fw.reset()

    def client(self, **kw):
        opts = dict(host=self.fw.url, token=TOKEN, use_environment=False, retry_backoff_ms=10)
        opts.update(kw)
        c = air.Client(**opts)
        self.addCleanup(c.close)
        return c

    def air_error(self, fn, *args, **kw):
        """The AirError fn raises (an UnsupportedError escapes: module not landed)."""
        try:
            fn(*args, **kw)
        except air.UnsupportedError:
            raise
        except air.AirError as exc:
            return exc
        self.fail("%s did not fail" % getattr(fn, "__name__", fn))

    def new_run(self, **kw):
        return self.fw.create_run(air_run_body(**kw))


@skip_unimplemented
class ClientTest(WorkspaceCase):
    def test_option_keywords_are_checked(self):
        with self.assertRaises(TypeError):
            air.Client(hots="x")
        with self.assertRaises(TypeError):
            air.Client(retry_deadline_ms="soon")
        with self.assertRaises(TypeError):
            air.Client(host=42.0)

    def test_unknown_option_number_is_unsupported(self):
        c = self.client()
        try:
            c.set_option(99, "x")
        except air.UnsupportedError as e:
            self.assertEqual(e.code, air.EUNSUPPORTED)
        else:
            self.fail("option 99 accepted")
        with self.assertRaises(air.UnsupportedError):
            c.set_option(199, 1)

    def test_type_mismatch_is_einval(self):
        c = self.client()
        self.assertEqual(air._L.air_client_set_int(c._h, air.OPT_HOST, 1), air.EINVAL)
        self.assertEqual(air._L.air_client_set_str(c._h, air.OPT_RATE_LIMIT, b"1"), air.EINVAL)

    def test_resolve_identity(self):
        c = self.client()
        c.resolve()
        self.assertEqual(c.host.rstrip("/"), self.fw.url)
        self.assertEqual(c.auth_type, "pat")
        self.assertEqual(c.current_user(), "tester@databricks.com")
        self.assertEqual(c.workspace_id(), 900800700600500)

    def test_resolve_without_host_fails_early(self):
        with air.Client(use_environment=False, token=TOKEN, config_file="/nonexistent/cfg") as c:
            e = self.air_error(c.resolve)
            self.assertIn(e.kind, (air.KIND_INVALID_ARGUMENT, air.KIND_PERMANENT))
            self.assertFalse(e.retryable)

    def test_debug_callback_sees_requests_without_secrets(self):
        seen = []
        c = self.client(debug=lambda kind, text: seen.append((kind, text)))
        c.current_user()
        kinds = {k for k, _ in seen}
        self.assertIn(air.DEBUG_REQUEST, kinds)
        self.assertTrue(any("/api/2.0/preview/scim/v2/Me" in t for _, t in seen))
        self.assertFalse(any(TOKEN in t for _, t in seen), "token leaked into debug output")

    def test_client_interrupt_stops_calls_on_every_thread(self):
        path = "/api/2.0/preview/scim/v2/Me"
        with air.Interrupt() as intr:
            c = self.client(interrupt=intr)
            self.fw.fault(path=path, action="delay", delay_ms=5000, times=-1)
            errors = []

            def call():
                try:
                    c.current_user()
                except air.AirError as exc:
                    errors.append(exc)

            threads = [threading.Thread(target=call) for _ in range(3)]
            t0 = time.monotonic()
            for t in threads:
                t.start()
            time.sleep(0.3)
            intr.trigger()
            for t in threads:
                t.join()
            elapsed = time.monotonic() - t0
            self.assertEqual(len(errors), 3)
            for e in errors:
                self.assertIsInstance(e, air.CallInterruptedError)
                self.assertEqual(e.kind, air.KIND_ABORTED)
            self.assertLess(elapsed, 2.0)
            # A back-off wait is cut short as well.
            self.fw.clear_faults()
            self.fw.fault(path=path, status=503, times=-1, headers={"Retry-After": "5"})
            t0 = time.monotonic()
            with self.assertRaises(air.CallInterruptedError):
                c.workspace_id()
            self.assertLess(time.monotonic() - t0, 3.0)  # not the 5 s asked for
            # Lowered again, or removed, the client works.
            self.fw.clear_faults()
            intr.reset()
            self.assertEqual(c.current_user(), "tester@databricks.com")
            intr.trigger()
            c.set_interrupt(None)
            self.assertEqual(c.workspace_id(), 900800700600500)

    def test_bad_token_is_auth_error(self):
        c = self.client(token="dapi-wrong")
        with self.assertRaises(air.AuthError) as cm:
            c.current_user()
        e = cm.exception
        self.assertEqual((e.code, e.kind, e.http_status), (air.EAUTH, air.KIND_PERMANENT, 401))
        self.assertFalse(e.retryable)
        self.assertNotIn("dapi-wrong", str(e))

    def test_context_manager_and_close(self):
        with self.client() as c:
            pass
        with self.assertRaises(ValueError):
            c.current_user()
        c.close()


@skip_unimplemented
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
        self.assertTrue(sub.launch_dir)
        self.assertIsNone(sub.code_source_path)
        self.assertIn(air.PHASE_SUBMIT, phases)
        self.assertEqual(phases, sorted(phases))
        self.assertEqual(self.fw.count("POST", SUBMIT), 1)
        self.assertEqual(self.fw.run(sub.run_id)["idempotency_token"], "bindings-key-1")

    def test_submit_accepts_a_path(self):
        with tempfile.NamedTemporaryFile("w", suffix=".yaml") as f:
            f.write(MINIMAL_YAML)
            f.flush()
            sub = self.client().submit(f.name)
        self.assertEqual(self.fw.run(sub.run_id)["run"]["run_name"], "bindings-test")

    def test_progress_stop_by_return_value(self):
        calls = []

        def progress(p):
            calls.append(p)
            return True

        with air.Config.loads(MINIMAL_YAML) as cfg, self.assertRaises(air.AbortedError) as cm:
            self.client().submit(cfg, progress=progress)
        self.assertEqual(len(calls), 1)
        self.assertEqual(cm.exception.kind, air.KIND_ABORTED)
        self.assertEqual(self.fw.count("POST", SUBMIT), 0)

    def test_progress_exception_propagates(self):
        class Boom(Exception):
            pass

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
        self.assertEqual(cm.exception.kind, air.KIND_INVALID_CONFIG)
        self.assertEqual(self.fw.count("POST", SUBMIT), 0)

    def test_interrupted_submission(self):
        self.fw.config(latency_ms=300)
        intr = air.Interrupt()
        self.addCleanup(intr.close)
        timer = threading.Timer(0.2, intr.trigger)
        timer.start()
        self.addCleanup(timer.cancel)
        t0 = time.monotonic()
        with air.Config.loads(MINIMAL_YAML) as cfg, self.assertRaises(air.CallInterruptedError):
            self.client().submit(cfg, interrupt=intr)
        self.assertLess(time.monotonic() - t0, 5)


@skip_unimplemented
class RunsTest(WorkspaceCase):
    def test_get_run(self):
        rid = self.new_run(name="get-me", accel="GPU_8xH100", count=16)
        r = self.client().get_run(rid)
        self.assertEqual(r.id, rid)
        self.assertEqual(r.name, "get-me")
        self.assertEqual(r.state, "SUCCESS")
        self.assertTrue(r.is_terminal)
        self.assertTrue(r.succeeded)
        self.assertTrue(r.is_ai_runtime)
        self.assertEqual((r.accelerator_type, r.accelerator_count), ("GPU_8xH100", 16))
        self.assertIn("/jobs/runs/%d" % rid, r.dashboard_url)
        self.assertEqual(r.to_dict()["run_id"], rid)
        self.assertIsNone(r.sweep_stats)

    def test_get_missing_run(self):
        with self.assertRaises(air.NotFoundError) as cm:
            self.client().get_run(987654321)
        e = cm.exception
        self.assertEqual((e.code, e.kind, e.kind_name), (air.ENOTFOUND, air.KIND_NOT_FOUND, "NOT_FOUND"))
        self.assertFalse(e.retryable)
        self.assertGreaterEqual(e.http_status, 400)

    def test_invalid_run_id(self):
        with self.assertRaises(air.InvalidArgumentError):
            self.client().get_run(0)

    def test_list_runs_newest_first(self):
        ids = [self.new_run(name="list-%d" % i, active=True) for i in range(3)]
        c = self.client()
        with c.list_runs() as listing:
            got = [r.id for r in listing]
        self.assertEqual(got, sorted(ids, reverse=True))
        self.assertFalse(listing.truncated)
        two = list(c.list_runs(limit=2))
        self.assertEqual([r.id for r in two], sorted(ids, reverse=True)[:2])
        self.assertTrue(all(isinstance(r, air.Run) and r.name.startswith("list-") for r in two))

    def test_list_filters(self):
        self.new_run(name="alpha", active=True)
        beta = self.new_run(name="beta", active=True)
        got = [r.id for r in self.client().list_runs(filters={"experiment": "beta"})]
        self.assertEqual(got, [beta])
        with self.assertRaises(air.InvalidArgumentError):
            self.client().list_runs(filters=["no-equals-sign"])

    def test_listing_holds_the_client(self):
        self.new_run(active=True)
        c = self.client()
        listing = c.list_runs()
        with self.assertRaises(RuntimeError):
            c.close()
        listing.close()
        c.close()

    def test_cancel(self):
        rid = self.new_run(active=True)
        c = self.client()
        c.cancel_run(rid)
        self.assertEqual(self.fw.run(rid)["cancels"], 1)
        rep = c.cancel_runs([rid, 987654321])
        self.assertEqual(len(rep), 2)
        self.assertEqual(rep.failures, 1)
        self.assertFalse(rep.ok)
        by_id = {o.run_id: o for o in rep}
        self.assertEqual(by_id[rid].status, air.OK)
        self.assertIsNone(by_id[rid].message)
        self.assertEqual(by_id[987654321].status, air.ENOTFOUND)
        self.assertTrue(by_id[987654321].message)

    def test_cancel_all(self):
        ids = {self.new_run(name="c%d" % i, active=True) for i in range(2)}
        rep = self.client().cancel_all()
        self.assertEqual({o.run_id for o in rep}, ids)
        self.assertTrue(rep.ok)


@skip_unimplemented
class LogsTest(WorkspaceCase):
    def finished_run_with_logs(self, count=50):
        rid = self.new_run()
        self.fw.add_logs(rid, synthetic={"count": count, "start_ns": 1700000000000000000,
                                         "step_ns": 1000000, "text": "step {i}"})
        return rid

    def test_stream_finished_run(self):
        rid = self.finished_run_with_logs()
        lines, states = [], []
        s = self.client().stream_logs(rid, lambda rec: lines.append(rec),
                                      on_status=lambda cur, prev: states.append((cur, prev)))
        self.assertEqual([r.line for r in lines], ["step %d" % i for i in range(50)])
        self.assertEqual(lines[1].time_ns - lines[0].time_ns, 1000000)
        self.assertEqual({r.node for r in lines}, {0})
        self.assertEqual({r.source for r in lines}, {air.LOG_SOURCE_ENDPOINT})
        self.assertEqual(s.records, 50)
        self.assertEqual(s.state, "SUCCESS")
        self.assertTrue(s.terminal and s.succeeded and s.ok)
        self.assertEqual(states[0][1], None)

    def test_tail_lines(self):
        rid = self.finished_run_with_logs()
        lines = []
        self.client().stream_logs(rid, lambda rec: lines.append(rec.line), tail_lines=5)
        self.assertEqual(lines, ["step %d" % i for i in range(45, 50)])

    def test_stop_by_return_value(self):
        rid = self.finished_run_with_logs()
        got = []

        def on_record(rec):
            got.append(rec.line)
            return len(got) == 5

        with self.assertRaises(air.AbortedError) as cm:
            self.client().stream_logs(rid, on_record)
        self.assertEqual(len(got), 5)
        self.assertEqual(cm.exception.kind, air.KIND_ABORTED)

    def test_exception_in_callback_propagates(self):
        rid = self.finished_run_with_logs()
        got = []

        def on_record(rec):
            got.append(rec)
            if len(got) == 10:
                raise KeyError("stop here")

        with self.assertRaises(KeyError) as cm:
            self.client().stream_logs(rid, on_record)
        self.assertEqual(cm.exception.args, ("stop here",))
        self.assertEqual(len(got), 10, "callback called again after raising")

    def test_alert_callback(self):
        rid = self.new_run()
        self.fw.add_logs(rid, records=[
            {"time_unix_nano": 1700000000000000000, "body": "ok", "node_index": 0, "attempt": 0},
            {"time_unix_nano": 1700000000000000001, "body": "RuntimeError: CUDA out of memory",
             "node_index": 0, "attempt": 0}])
        order = []
        self.client().stream_logs(rid, lambda r: order.append(("rec", r.line)),
                                  on_alert=lambda r, p: order.append(("alert", p)))
        self.assertEqual(order, [("rec", "ok"), ("alert", 1),
                                 ("rec", "RuntimeError: CUDA out of memory")])

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
        s = self.client().stream_logs(self.waiting_run(), lambda r: events.append(r.line),
                                      on_waiting=events.append, poll_interval_ms=5)
        self.assertEqual(events, ["Allocating nodes...", "Allocating nodes...", None, "up"])
        self.assertEqual(s.records, 1)
        self.assertEqual(self.fw.count("GET", "/api/2.2/jobs/runs/get-output"), 2)
        # Without on_waiting: the same stream and no get-output at all.
        self.fw.clear_requests()
        lines = []
        self.client().stream_logs(self.waiting_run(), lambda r: lines.append(r.line),
                                  poll_interval_ms=5)
        self.assertEqual(lines, ["up"])
        self.assertEqual(self.fw.count("GET", "/api/2.2/jobs/runs/get-output"), 0)

    def test_interrupt_from_another_thread(self):
        rid = self.new_run(active=True)
        intr = air.Interrupt()
        self.addCleanup(intr.close)
        timer = threading.Timer(0.3, intr.trigger)
        timer.start()
        self.addCleanup(timer.cancel)
        t0 = time.monotonic()
        with self.assertRaises(air.CallInterruptedError) as cm:
            self.client().stream_logs(rid, lambda r: None, poll_interval_ms=5000, interrupt=intr)
        self.assertLess(time.monotonic() - t0, 4)
        self.assertEqual(cm.exception.kind, air.KIND_ABORTED)

    def test_missing_run(self):
        with self.assertRaises(air.NotFoundError):
            self.client().stream_logs(987654321, lambda r: None)

    def test_download_logs(self):
        body = air_run_body(accel="GPU_8xH100", count=16)
        body.update(start_time=1700000000000, end_time=1700000100000)  # started: MLflow ids known
        rid = self.fw.create_run(body)
        ids = self.fw.run(rid)["mlflow"]
        if not ids:
            self.skipTest("fakews attached no MLflow run")
        self.fw.mlflow({ids["run_id"]: {"experiment_id": ids["experiment_id"], "artifacts": {
            "logs/node_0/logs-0.chunk.txt": "a0\n", "logs/node_0/logs-1.chunk.txt": "a1\n",
            "logs/node_1/logs-0.chunk.txt": "b0\n"}}})
        with tempfile.TemporaryDirectory() as d:
            rep = self.client().download_logs(rid, d)
            self.assertTrue(rep.ok)
            self.assertEqual([e.node for e in rep], [0, 1])
            first = rep.entries[0]
            self.assertEqual(first.path, os.path.join(d, "logs", "node_0.log"))
            self.assertTrue(first.complete)
            self.assertEqual(first.bytes, 6)
            with open(first.path) as f:
                self.assertEqual(f.read(), "a0\na1\n")

    def test_alert_patterns(self):
        pats = air.alert_patterns()
        if not pats:
            raise air.UnsupportedError("no alert patterns")
        self.assertEqual(len(pats), 21)
        self.assertEqual(air.match_alert("CUDA out of memory"), 1)
        self.assertEqual(air.match_alert("all good"), 0)
        self.assertEqual(air.match_alert("ERROR: Script failed with exit code 0 after 3s"), 0)


@skip_unimplemented
class ErrorMappingTest(WorkspaceCase):
    def test_permission_denied(self):
        rid = self.new_run()
        self.fw.fault(method="GET", path="/api/2.2/jobs/runs/get", action="status", status=403,
                      body={"error_code": "PERMISSION_DENIED", "message": "no access"},
                      times=-1)
        with self.assertRaises(air.PermissionDeniedError) as cm:
            self.client().get_run(rid)
        e = cm.exception
        self.assertEqual((e.code, e.kind, e.http_status), (air.EPERMISSION, air.KIND_PERMANENT, 403))
        self.assertEqual(e.server_code, "PERMISSION_DENIED")
        self.assertTrue(e.request_id)  # the reply's x-request-id
        self.assertIn("no access", e.message)
        self.assertFalse(e.retryable)

    def test_persistent_503_is_transient_and_retryable(self):
        rid = self.new_run()
        self.fw.fault(method="GET", path="/api/2.2/jobs/runs/get", action="status", status=503,
                      body={"error_code": "TEMPORARILY_UNAVAILABLE", "message": "busy"},
                      headers={"Retry-After": "1"}, times=-1)
        t0 = time.monotonic()
        e = self.air_error(self.client(retry_deadline_ms=400).get_run, rid)
        self.assertEqual(e.kind, air.KIND_TRANSIENT)
        self.assertTrue(e.retryable)
        self.assertEqual(e.http_status, 503)
        self.assertEqual(e.retry_after_ms, 1000)
        self.assertLess(time.monotonic() - t0, 10)

    def test_transient_failure_is_retried(self):
        rid = self.new_run()
        self.fw.fault(method="GET", path="/api/2.2/jobs/runs/get", action="status", status=503,
                      body={"error_code": "TEMPORARILY_UNAVAILABLE", "message": "busy"}, times=2)
        self.assertEqual(self.client().get_run(rid).id, rid)
        self.assertEqual(self.fw.count("GET", "/api/2.2/jobs/runs/get"), 3)


@skip_unimplemented
class PoolsTest(WorkspaceCase):
    def test_list_and_get(self):
        self.fw.pools([{"id": "pool-a", "accelerator_type": "GPU_8xH100", "accelerator_count": 64,
                        "used": 16, "idle": 48},
                       {"id": "pool-b", "accelerator_type": "GPU_1xA10", "accelerator_count": 4}])
        c = self.client()
        pools = c.list_pools()
        self.assertEqual([p.id for p in pools], ["pool-a", "pool-b"])
        self.assertEqual(pools[0], air.Pool("pool-a", "GPU_8xH100", 64, 16, 48))
        self.assertEqual(c.get_pool("provisioned-capacities/pool-a").id, "pool-a")
        with self.assertRaises(air.NotFoundError):
            c.get_pool("pool-zzz")
        with self.assertRaises(air.InvalidArgumentError):
            c.get_pool("  ")

    def test_disabled(self):
        self.fw.config(features={"pools": False})
        with self.assertRaises(air.FeatureDisabledError) as cm:
            self.client().list_pools()
        self.assertEqual(cm.exception.kind, air.KIND_PERMANENT)


@skip_unimplemented
class ThreadsTest(WorkspaceCase):
    def test_one_client_many_threads(self):
        ids = [self.new_run(name="t%d" % i) for i in range(8)]
        rid_logs = self.new_run(name="logs")
        self.fw.add_logs(rid_logs, synthetic={"count": 200, "start_ns": 1700000000000000000,
                                              "step_ns": 1000, "text": "line {i}"})
        c = self.client()
        errors, results, streamed = [], {}, []

        def getter(rid):
            try:
                for _ in range(5):
                    results.setdefault(rid, []).append(c.get_run(rid).id)
            except BaseException as exc:  # reported by the main thread
                errors.append(exc)

        def streamer():
            try:
                c.stream_logs(rid_logs, lambda r: streamed.append(r.line))
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
        self.assertEqual(streamed, ["line %d" % i for i in range(200)])


if __name__ == "__main__":
    unittest.main()

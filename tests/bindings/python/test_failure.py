"""Why a run failed, through the Python binding: Client.failure() and
Run.failure against the fake workspace (the node a message names, the
traceback, a log that cannot be read, runs without a failure, no request
for them) and against the local workspace (a Python ZeroDivisionError
reported by Submission.wait()'s run)."""

import os
import shutil
import tempfile
import unittest

from bindtest import TOKEN, air, air_run_body
from fakews_client import FakeWSCase

PATIENCE_S = 120
LOGS = "/api/2.0/ai-training/workflows/by-run-id/%d/logs"
TRACEBACK = [
    "Traceback (most recent call last):",
    '  File "train.py", line 3, in <module>',
    "RuntimeError: CUDA error: an illegal memory access was encountered",
]


class WorkspaceFailureTest(FakeWSCase):
    def setUp(self):
        super().setUp()
        self.client = air.Client(host=self.fw.url, token=TOKEN, use_environment=False,
                                 retry_backoff=0.01)
        self.addCleanup(self.client.close)

    def failed_run(self, message="node 1 exited with status 1", nodes=2):
        body = air_run_body(accel="GPU_8xH100", count=8 * nodes)
        body.update(start_time=1700000000000, end_time=1700000010000, state={
            "life_cycle_state": "TERMINATED", "result_state": "FAILED", "state_message": message})
        rid = self.fw.create_run(body)
        self.fw.add_logs(rid, records=[{"time_unix_nano": 1700000001000000000 + i, "body": b,
                                        "node_index": 1} for i, b in enumerate(TRACEBACK)])
        return rid

    def test_failure_of_a_failed_run(self):
        rid = self.failed_run()
        f = self.client.failure(rid)
        self.assertIsInstance(f, air.Failure)
        self.assertEqual((f.run_id, f.state, f.state_name), (rid, air.State.FAILED, "FAILED"))
        self.assertEqual(f.message, "node 1 exited with status 1")
        self.assertEqual((f.node, f.node_source), (1, air.NodeSource.REPORTED))
        self.assertEqual((f.attempt, f.attempts_allowed), (0, 1))
        self.assertEqual(f.excerpt, tuple(TRACEBACK))
        self.assertIs(f.excerpt_kind, air.ExcerptKind.TRACEBACK)
        self.assertEqual(f.alert_label, "CUDA error")
        self.assertIsNone(f.excerpt_problem)
        self.assertEqual(f.summary,
                         "Run %d FAILED (attempt 1 of 1, node 1): node 1 exited with status 1"
                         % rid)
        # str() is the summary, then the excerpt indented
        self.assertEqual(str(f), "\n".join([f.summary] + ["  " + l for l in TRACEBACK]))
        # the options: another node, fewer lines
        f = self.client.failure(rid, node=0, excerpt_lines=2)
        self.assertEqual((f.node, f.node_source, f.excerpt), (0, air.NodeSource.OPTION, ()))
        self.assertIn("No logs found", f.excerpt_problem)
        with self.assertRaises(air.InvalidArgumentError):
            self.client.failure(rid, excerpt_lines=0)
        with self.assertRaises(air.InvalidArgumentError):
            self.client.failure(rid, attempt=3)

    def test_run_failure_is_read_once_and_only_for_a_failed_run(self):
        rid = self.failed_run()
        run = self.client.get_run(rid)
        self.fw.clear_requests()
        self.assertEqual(run.failure.excerpt[-1], TRACEBACK[-1])
        self.assertIs(run.failure, run.failure)
        self.assertEqual(self.fw.count("GET", "/api/2.2/jobs/runs/get"), 2)  # report + log open
        ok = self.fw.create_run(air_run_body())
        active = self.fw.create_run(air_run_body(active=True))
        for r in (self.client.get_run(ok), self.client.get_run(active)):
            self.fw.clear_requests()
            self.assertIsNone(r.failure)
            self.assertEqual(self.fw.requests(), [])
            self.assertIsNone(self.client.failure(r.run_id))
        listed = [r for r in self.client.list_runs(all_status=True, limit=10) if r.run_id == rid]
        self.assertEqual(listed[0].failure.node, 1)

    def test_a_log_that_cannot_be_read(self):
        rid = self.failed_run(message="Workload failed")
        self.fw.set_output(rid, {})
        self.fw.fault(path=LOGS % rid, status=404, times=-1,
                      body={"error_code": "ENDPOINT_NOT_FOUND", "message": "no"})
        f = self.client.failure(rid)
        self.assertEqual(f.message, "Workload failed")
        self.assertEqual((f.excerpt, f.excerpt_kind), ((), air.ExcerptKind.NONE))
        self.assertIn("No logs found for run %d" % rid, f.excerpt_problem)

    def test_interrupt(self):
        rid = self.failed_run()
        self.fw.fault(path=LOGS % rid, action="delay", delay_ms=30000, times=-1)
        intr = air.Interrupt()
        intr.trigger()
        with self.assertRaises(air.CallInterruptedError):
            self.client.failure(rid, interrupt=intr)
        with self.assertRaises(air.TimedOutError):
            self.client.failure(rid, timeout=0.2)


ZERO_DIVISION = """\
experiment_name: py-failure
compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}
command: |
  echo "loading"
  "${PYTHON:-python3}" -c 'print("step 1", flush=True); 1 / 0'
max_retries: 0
"""


class LocalFailureTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="air-py-failure-")
        self.client = air.Client("local://" + os.path.join(self.tmp, "state"),
                                 use_environment=False)

    def tearDown(self):
        self.client.close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_wait_then_failure(self):
        with air.Config.loads(ZERO_DIVISION, name="w.yaml", base_dir=self.tmp) as cfg:
            sub = self.client.submit(cfg)
        run = sub.wait(PATIENCE_S, poll_interval=0.05)
        self.assertFalse(run.succeeded)
        f = run.failure
        self.assertEqual(f.message, "node 0 exited with status 1")
        self.assertEqual((f.node, f.attempt), (0, 0))
        self.assertEqual(f.termination_code, "RUN_EXECUTION_ERROR")
        self.assertEqual(f.excerpt[0], "Traceback (most recent call last):")
        self.assertEqual(f.excerpt[-1], "ZeroDivisionError: division by zero")


if __name__ == "__main__":
    unittest.main()

"""Why a run failed, through the `air` command line against the fake
workspace (docs/cli.md#why-a-run-failed): the block on stderr after
`air run --watch` and a followed `air logs`, the FAILURE event of
`--watch -o json`, the Failure panel and the JSON fields of `air get`, and
the output of runs that did not fail, which does not change."""

import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_cli_runs import LOGS, VALID_YAML, CliCase, std_run  # noqa: E402

TRACEBACK = [
    "Traceback (most recent call last):",
    '  File "/code/train.py", line 12, in <module>',
    "    loss = model(batch)",
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 GiB",
]
MESSAGE = "Workload failed: node 0 exited with code 1"


class FailureCli(CliCase):
    def submit(self, *args):
        d = tempfile.mkdtemp(dir=self.home)
        path = os.path.join(d, "valid.yaml")
        with open(path, "w") as f:
            f.write(VALID_YAML)
        return self.air("run", "-f", path, "--watch", *args)

    def failing_lifecycle(self, result="FAILED"):
        self.fw.config(lifecycle={"pending_ms": 0, "running_ms": 300, "result": result,
                                  "state_message": MESSAGE},
                       auto_logs={"count": 2, "text": "step {i}", "last": TRACEBACK})

    def test_watch_ends_a_failed_run_with_the_block_on_stderr(self):
        self.failing_lifecycle()
        rc, out, err = self.submit()
        self.assertEqual(rc, 1, err)
        # stdout is the log, as before
        self.assertEqual(out.splitlines()[-6:], ["step 0", "step 1"] + TRACEBACK)
        block = err[err.index("Run 555 "):].splitlines()
        self.assertEqual(block, [
            "Run 555 FAILED (attempt 1 of 4, node 0): " + MESSAGE,
            "Last traceback in the log of node 0 (CUDA out of memory):",
        ] + ["  " + line for line in TRACEBACK] + [
            "The whole log: air logs 555 --node 0 --retry 0",
        ])

    def test_watch_json_has_a_failure_event_before_the_last_line(self):
        self.failing_lifecycle("TIMEDOUT")
        rc, out, err = self.submit("-o", "json")
        self.assertEqual(rc, 1, err)
        ev = self.jsonl(out)
        self.assertEqual(ev[-2], {"type": "FAILURE", "ts": ev[-2]["ts"], "run_id": "555",
                                  "status": "TIMEDOUT", "message": MESSAGE, "node": 0,
                                  "attempt": 0, "excerpt": TRACEBACK})
        self.assertEqual(ev[-1]["data"]["status"], "TIMEDOUT")
        self.assertNotIn("Run 555", err)

    def test_runs_that_succeed_print_nothing_more(self):
        self.fw.config(lifecycle={"pending_ms": 0, "running_ms": 300, "result": "SUCCESS"},
                       auto_logs={"count": 2, "text": "step {i}"})
        rc, out, err = self.submit()
        self.assertEqual(rc, 0, err)
        self.assertNotIn("Run 555", err)
        rc, out, err = self.submit("-o", "json")
        self.assertEqual(rc, 0, err)
        self.assertNotIn("FAILURE", [e.get("type") for e in self.jsonl(out)])

    def failed_run(self, rid=123, **extra):
        extra.setdefault("state", {"life_cycle_state": "TERMINATED", "result_state": "FAILED",
                                   "state_message": MESSAGE})
        self.fw.create_run(std_run(rid, "FAILED", **extra))
        self.fw.add_logs(rid, records=[{"time_unix_nano": 1700000001000000000 + i, "body": b}
                                       for i, b in enumerate(["step 1"] + TRACEBACK)])

    def test_get_json_has_the_state_message_and_the_failure(self):
        self.failed_run()
        rc, out, err = self.air("get", "123", "-o", "json")
        self.assertEqual(rc, 0, err)
        data = self.envelope(out)["data"]
        self.assertEqual(data["status"], "FAILED")
        self.assertEqual(data["state_message"], MESSAGE)
        self.assertEqual(data["failure"], {"message": MESSAGE, "node": 0, "attempt": 0,
                                           "excerpt": TRACEBACK})
        self.assertEqual(list(data)[-2:], ["state_message", "failure"])
        # an active run: its message, no failure; a run that succeeded: neither
        self.fw.create_run({"run_id": 200, "start_time": 1700000000000, "state": {
            "life_cycle_state": "RUNNING", "state_message": "Waiting"}, "tasks": []})
        data = self.envelope(self.air("get", "200", "-o", "json")[1])["data"]
        self.assertEqual((data["state_message"], data["failure"]), ("Waiting", None))
        self.fw.create_run(std_run(300))
        data = self.envelope(self.air("get", "300", "-o", "json")[1])["data"]
        self.assertNotIn("state_message", data)
        self.assertNotIn("failure", data)

    def test_get_text_shows_the_failure_panel(self):
        self.failed_run(max_retries=2, tasks=[{
            "run_id": 124, "attempt_number": 2, "max_retries": 2,
            "ai_runtime_task": {"experiment": "smoke-test"}}])
        self.fw.add_logs(123, records=[{"time_unix_nano": 1700000002000000000, "body": "again",
                                        "attempt": 2}])
        rc, out, err = self.air("get", "123")
        self.assertEqual(rc, 0, err)
        panel = out[out.index("Failure"):].splitlines()
        self.assertIn("Run 123 FAILED (attempt 3 of 3, node 0): " + MESSAGE, panel[1])
        self.assertIn("Last lines of the log of node 0:", panel[2])
        self.assertIn("  again", panel[3])
        self.assertIn("The whole log: air logs 123 --node 0 --retry 2", panel[4])

    def test_a_message_ending_with_its_attempt_names_it_once(self):
        # a local run's message ends with "(attempt N)": the line's place says it already
        msg = "node 0 exited with status 1"
        for rid, tail, shown in ((125, " (attempt 3)", msg),
                                 (127, " (attempt 2)", msg + " (attempt 2)")):
            self.failed_run(rid, max_retries=2, state={
                "life_cycle_state": "TERMINATED", "result_state": "FAILED",
                "state_message": msg + tail}, tasks=[{
                    "run_id": rid + 1000, "attempt_number": 2, "max_retries": 2,
                    "ai_runtime_task": {"experiment": "smoke-test"}}])
            rc, out, err = self.air("get", str(rid))
            self.assertEqual(rc, 0, err)
            panel = out[out.index("Failure"):].splitlines()
            self.assertEqual(panel[1].strip("│ "),
                             "Run %d FAILED (attempt 3 of 3, node 0): %s" % (rid, shown))
            data = self.envelope(self.air("get", str(rid), "-o", "json")[1])["data"]
            self.assertEqual(data["failure"]["message"], msg + tail)

    def test_a_followed_logs_ends_with_the_block(self):
        self.failed_run(state={"life_cycle_state": "RUNNING"}, sequence=[
            {}, {"state": {"life_cycle_state": "TERMINATED", "result_state": "FAILED",
                           "state_message": MESSAGE}}])
        rc, out, err = self.air("logs", "123")
        self.assertEqual(rc, 1, err)
        self.assertEqual(out.splitlines(), ["step 1"] + TRACEBACK)
        self.assertIn("Run 123 FAILED (attempt 1 of 4, node 0): " + MESSAGE, err)
        self.assertIn("  " + TRACEBACK[-1], err)
        # the tail of a run that had already failed: the log alone
        rc, out, err = self.air("logs", "123")
        self.assertEqual(rc, 1, err)
        self.assertNotIn("Run 123", err)

    def test_a_log_that_cannot_be_read_leaves_the_message(self):
        self.failed_run(output={})
        self.fw.fault(path=LOGS % 123, status=404, times=-1,
                      body={"error_code": "ENDPOINT_NOT_FOUND", "message": "no"})
        rc, out, err = self.air("get", "123", "-o", "json")
        self.assertEqual(rc, 0, err)
        failure = self.envelope(out)["data"]["failure"]
        self.assertEqual((failure["message"], failure["excerpt"]), (MESSAGE, []))
        rc, out, err = self.air("get", "123")
        self.assertIn("No log excerpt: No logs found for run 123", out)


if __name__ == "__main__":
    unittest.main()

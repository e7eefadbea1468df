"""The waiting message of `air logs` and `air run --watch` (docs/runs-and-logs.md#waiting-message):
shown on an interactive stderr (a pseudo-terminal here) while a followed run
has no log lines, erased once lines start; absent, and costing no
runs/get-output request, when stderr is not a terminal or in JSON mode."""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# Only helpers: importing a TestCase subclass would run its tests here too.
from test_cli_runs import AIR, LOGS, VALID_YAML, CliCase, air_task  # noqa: E402
from cli_case import run_on_terminal  # noqa: E402

OUTPUT = "/api/2.2/jobs/runs/get-output"
ERASE = "\r\x1b[2K"


def status(message):
    return {"ai_runtime_task_output": {"status_message": message}}


class TtyCase(CliCase):
    def air_tty(self, *args, columns=200, timeout=60):
        """Run air with stdin and stderr on a pseudo-terminal and stdout on a
        pipe: (exit code, stdout, everything written to the terminal)."""
        rc, out, _, tty = run_on_terminal([AIR, *args], self.env, ("stdin", "stderr"), columns,
                                          timeout)
        return rc, out, tty


class LogsWaitingTest(TtyCase):
    """Run 123 (task run 124): PENDING on polls 0-5, RUNNING from poll 6, no
    lines until poll 12, TERMINATED/SUCCESS on poll 13."""

    def setup_run(self):
        running = {"state": {"life_cycle_state": "RUNNING"}, "start_time": 1700000000000}
        done = {"state": {"life_cycle_state": "TERMINATED", "result_state": "SUCCESS"},
                "end_time": 1700000030000}
        self.fw.create_run({"run_id": 123, "state": {"life_cycle_state": "PENDING"},
                            "tasks": [{"run_id": 124, **air_task()}],
                            "sequence": [{}] * 6 + [running] + [{}] * 6 + [done]})
        self.fw.add_logs(123, records=[
            {"time_unix_nano": 1700000001000000000, "body": "hello", "node_index": 0, "attempt": 0},
            {"time_unix_nano": 1700000002000000000, "body": "world", "node_index": 0, "attempt": 0}])
        self.fw.fault(path=LOGS % 123, status=200, body={"log_records": []}, times=12)
        # get-output on polls 0, 5 and 10, in that order.
        self.fw.fault(path=OUTPUT, status=200, body={}, times=1)
        self.fw.fault(path=OUTPUT, status=200, body=status("STATUS:Allocating nodes.."), times=1)
        self.fw.fault(path=OUTPUT, status=200, body=status("INFO:Image pulled"), times=1)
        self.fw.clear_requests()

    def test_messages_on_a_terminal(self):
        self.setup_run()
        rc, out, tty = self.air_tty("logs", "123")
        self.assertEqual((rc, out), (0, "hello\nworld\n"), tty)
        shown = [m for m in tty.split(ERASE) if m]
        self.assertEqual(shown, ["Waiting for accelerator capacity...", "Allocating nodes...",
                                 "Waiting for the run to start on node 0..."], repr(tty))
        # Erased before the first line (and nothing after it).
        self.assertTrue(tty.endswith(ERASE), repr(tty))
        reqs = self.fw.requests("GET", OUTPUT, bodies=False)
        self.assertEqual([r["query"]["run_id"] for r in reqs], [["124"]] * 3)
        # Asked on polls 0, 5 and 10 (one runs/get per poll).
        polls, gets = [], 0
        for r in self.fw.requests(bodies=False):
            if r["path"] == "/api/2.2/jobs/runs/get":
                gets += 1
            elif r["path"] == OUTPUT:
                polls.append(gets - 1)
        self.assertEqual(polls, [0, 5, 10])
        self.assertEqual(self.fw.count("GET", "/api/2.2/jobs/runs/get"), 14)

    def test_nothing_without_a_terminal(self):
        self.setup_run()
        rc, out, err = self.air("logs", "123")
        self.assertEqual((rc, out), (0, "hello\nworld\n"), err)
        self.assertNotIn("Waiting", err)
        self.assertNotIn("\x1b", err)
        self.assertEqual(self.fw.count("GET", OUTPUT), 0)

    def test_nothing_in_json_mode(self):
        self.setup_run()
        rc, out, tty = self.air_tty("logs", "123", "-o", "json")
        self.assertEqual(rc, 0, tty)
        self.assertEqual([e["line"] for e in self.jsonl(out)], ["hello", "world"])
        self.assertEqual(tty, "")
        self.assertEqual(self.fw.count("GET", OUTPUT), 0)

    def test_finished_run_has_no_wait(self):
        self.fw.create_run({"run_id": 9, "start_time": 1700000000000, "end_time": 1700000001000,
                            "state": {"life_cycle_state": "TERMINATED", "result_state": "SUCCESS"},
                            "tasks": [{"run_id": 10, **air_task()}]})
        self.fw.add_logs(9, records=[{"time_unix_nano": 1700000000500000000, "body": "x"}])
        self.fw.clear_requests()
        rc, out, tty = self.air_tty("logs", "9")
        self.assertEqual((rc, out, tty), (0, "x\n", ""))
        self.assertEqual(self.fw.count("GET", OUTPUT), 0)

    def test_untrusted_text_is_cleaned_and_fits_the_line(self):
        # Escape sequences from the server are not passed to the terminal,
        # and the message is cut so that it never wraps (40 columns).
        self.fw.create_run({"run_id": 5, "state": {"life_cycle_state": "RUNNING"},
                            "start_time": 1700000000000, "tasks": [{"run_id": 6, **air_task()}],
                            "sequence": [{}, {"state": {"life_cycle_state": "TERMINATED",
                                                        "result_state": "FAILED"},
                                              "end_time": 1700000001000}]})
        self.fw.add_logs(5, records=[])
        self.fw.fault(path=OUTPUT, status=200, times=1,
                      body=status("STATUS:\x1b[31mred\x07 " + "x" * 100))
        rc, out, tty = self.air_tty("logs", "5", columns=40)
        self.assertEqual(rc, 1, tty)
        # After the wait, why the followed run failed (docs/cli.md#why-a-run-failed).
        tty, _, block = tty.partition("Run 5 FAILED (attempt 1 of 1, node 0)")
        self.assertIn("No logs found for run 5", block)
        shown = [m for m in tty.split(ERASE) if m]
        self.assertEqual(shown, ["?[31mred? " + "x" * 29], repr(tty))
        self.assertIn("no logs", out.lower())


class WatchWaitingTest(TtyCase):
    def setUp(self):
        super().setUp()
        # PENDING for 1.5 s (from the submission: room for a slow start) with
        # the default "STATUS:Waiting for accelerators to become available",
        # then two lines while RUNNING.
        self.fw.config(lifecycle={"pending_ms": 1500, "running_ms": 600, "result": "SUCCESS"},
                       auto_logs={"count": 2, "text": "step {i}"})

    def submit(self, *args, tty=True):
        d = tempfile.mkdtemp(dir=self.home)
        path = os.path.join(d, "valid.yaml")
        with open(path, "w") as f:
            f.write(VALID_YAML)
        return (self.air_tty if tty else self.air)("run", "-f", path, "--watch", *args)

    def test_text_watch_on_a_terminal(self):
        rc, out, tty = self.submit()
        self.assertEqual(rc, 0, tty)
        self.assertEqual(out.splitlines()[-2:], ["step 0", "step 1"])
        self.assertIn(ERASE + "Waiting for accelerators to become available...", tty)
        # The last waiting message is erased before the lines start.
        self.assertEqual(tty.rsplit("...", 1)[1], ERASE, repr(tty))
        self.assertGreaterEqual(self.fw.count("GET", OUTPUT), 1)

    def test_json_watch_on_a_terminal(self):
        rc, out, tty = self.submit("-o", "json")
        self.assertEqual(rc, 0, tty)
        self.assertEqual([e["line"] for e in self.jsonl(out) if e.get("type") == "LOG"],
                         ["step 0", "step 1"])
        self.assertNotIn("Waiting", tty)
        self.assertEqual(self.fw.count("GET", OUTPUT), 0)

    def test_text_watch_on_pipes(self):
        rc, out, err = self.submit(tty=False)
        self.assertEqual(rc, 0, err)
        self.assertEqual(out.splitlines()[-2:], ["step 0", "step 1"])
        self.assertNotIn("Waiting", err)
        self.assertEqual(self.fw.count("GET", OUTPUT), 0)


if __name__ == "__main__":
    unittest.main()

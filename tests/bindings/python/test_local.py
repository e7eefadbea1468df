"""The Python binding against the local workspace (local:///<dir>,
docs/local.md): a workload submitted through air.Client runs on this
machine, the waiter sees it succeed and the log iterator gives its lines;
a sleeping one is cancelled and its process ends.

The library finds its supervisor program next to itself in the build tree
(AIR_LIBRARY_PATH). Nothing depends on the machine's speed: the tests wait
for states, lines and files; PATIENCE_S only ends a hang."""

import io
import json
import os
import shutil
import tempfile
import time
import unittest

from bindtest import air

PATIENCE_S = 120

ECHO_ENV = """\
experiment_name: py-local-echo
compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}
env_variables: {AIR_PY_GREETING: hello from python}
command: |
  echo "greeting=$AIR_PY_GREETING"
  echo "rank=$NODE_RANK nodes=$NUM_NODES"
"""

METRICS = """\
experiment_name: py-local-metrics
compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}
command: |
  d="${MLFLOW_TRACKING_URI#file://}/$MLFLOW_EXPERIMENT_ID/$MLFLOW_RUN_ID/metrics"
  mkdir -p "$d/system"
  printf '1700000000000 2.5 0\\n1700000001000 1.25 1\\n' > "$d/loss"
  printf '1700000000000 40 0\\n' > "$d/system/gpu_0_utilization_percentage"
"""

SLEEPER = """\
experiment_name: py-local-sleep
compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}
command: |
  echo $$ > "%s.tmp" && mv "%s.tmp" "%s"
  echo started
  exec sleep 600
"""


RETRIED = """\
experiment_name: py-local-retried
compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}
max_retries: 1
command: |
  wait_for() { for i in $(seq 2400); do [ -e "%s.$1" ] && return; sleep 0.05; done; exit 9; }
  if [ ! -e "%s.tried" ]; then touch "%s.tried"; echo first; wait_for seen; exit 3; fi
  wait_for go; echo second
"""


def alive(pid):
    """True while @pid runs (a zombie has ended)."""
    try:
        os.kill(pid, 0)
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rpartition(")")[2].split()[0] != "Z"
    except (ProcessLookupError, FileNotFoundError):
        return False


class LocalTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="air-py-local-")
        self.state = os.path.join(self.tmp, "state")
        self.client = air.Client("local://" + self.state, use_environment=False)

    def tearDown(self):
        try:
            self.client.cancel_all()
            runs = os.path.join(self.state, "jobs", "runs")
            for run_id in os.listdir(runs) if os.path.isdir(runs) else ():
                self.client.wait(int(run_id), timeout=PATIENCE_S, poll_interval=0.05)
                with open(os.path.join(runs, run_id, "status.json")) as f:
                    pid = json.load(f).get("supervisor_pid")
                if pid:
                    self.wait_until(lambda: not alive(pid), "supervisor %d to end" % pid)
        finally:
            self.client.close()
            shutil.rmtree(self.tmp, ignore_errors=True)

    def wait_until(self, cond, what):
        deadline = time.monotonic() + PATIENCE_S
        while not cond():
            if time.monotonic() > deadline:
                self.fail("waited %d s for %s" % (PATIENCE_S, what))
            time.sleep(0.05)

    def submit(self, yaml):
        with air.Config.loads(yaml, name="workload.yaml", base_dir=self.tmp) as cfg:
            return self.client.submit(cfg)

    def test_the_host_selects_the_local_workspace(self):
        self.assertIn(air.Feature.LOCAL, air.features())
        self.client.resolve()
        self.assertEqual(self.client.host, "local://" + self.state)
        self.assertEqual(self.client.auth_type, "local")

    def test_check_has_local_meanings(self):
        yaml = ECHO_ENV + "secrets: {PY_SECRET: ml/py}\n"
        with air.Config.loads(yaml, name="workload.yaml", base_dir=self.tmp) as cfg:
            report = self.client.check(cfg)
        by_name = {c.name: c for c in report}
        self.assertFalse(report.ok)
        self.assertIs(by_name["local_secret"].status, air.CheckStatus.FAIL)
        self.assertEqual(by_name["local_secret"].field, "secrets.PY_SECRET")
        self.assertIs(by_name["local_node_limit"].status, air.CheckStatus.PASS)
        self.assertEqual(str(by_name["accelerator_offered"].status), "skipped")
        self.assertNotIn("secret_scope", by_name)
        self.assertEqual(self.client.accelerator_types()[:1], ["GPU_1xA10"])

    def test_submit_wait_and_read_the_logs(self):
        sub = self.submit(ECHO_ENV)
        self.assertTrue(sub.dashboard_url.startswith("local://" + self.state), sub.dashboard_url)
        states = []
        run = sub.wait(PATIENCE_S, poll_interval=0.05, on_state=lambda r: states.append(r.state))
        self.assertIs(run.state, air.State.SUCCESS, run.state_message)
        self.assertTrue(run.succeeded)
        self.assertEqual(states[-1], air.State.SUCCESS)
        lines = [rec.line for rec in self.client.logs(sub.run_id, timeout=PATIENCE_S)]
        # without GPUs, the supervisor's warning "[air local] ..." comes first
        self.assertEqual([ln for ln in lines if not ln.startswith("[air local]")],
                         ["greeting=hello from python", "rank=0 nodes=1"])
        self.assertEqual(self.client.get_run(sub.run_id).experiment_name, "py-local-echo")

    def test_a_follower_is_told_where_each_attempt_begins(self):
        # Each attempt waits for the reader (attempt 0 until its line was
        # read, attempt 1 until on_attempt), so the order is not timing's.
        gate = os.path.join(self.tmp, "gate")
        sub = self.submit(RETRIED % (gate, gate, gate))
        order = []

        def on_attempt(attempt):
            order.append(attempt)
            open(gate + ".go", "w").close()

        for rec in self.client.logs(sub.run_id, on_attempt=on_attempt, timeout=PATIENCE_S):
            if not rec.line.startswith("[air local]"):
                order.append(rec.line)
            if rec.line == "first":
                open(gate + ".seen", "w").close()
        self.assertEqual(order, ["first", 1, "second"])

    def test_copy_logs_writes_the_lines_to_a_file(self):
        sub = self.submit("experiment_name: py-local-copy\n"
                          "compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}\n"
                          "command: seq 1 30000\nmax_retries: 0\n")
        self.assertIs(sub.wait(PATIENCE_S, poll_interval=0.05).state, air.State.SUCCESS)
        want = "".join("%d\n" % i for i in range(1, 30001))
        path = os.path.join(self.tmp, "out.log")
        with open(path, "wb") as f:
            summary = self.client.copy_logs(sub.run_id, f, tail=40000, timeout=PATIENCE_S)
        with open(path, encoding="utf-8") as f:
            lines = [ln for ln in f if not ln.startswith("[air local]")]
        self.assertEqual("".join(lines), want)
        self.assertTrue(summary.terminal and summary.succeeded)
        self.assertGreaterEqual(summary.records, 30000)
        # A text file gets str; an exception from write() stops the copy.
        text = io.StringIO()
        self.client.copy_logs(sub.run_id, text, tail=2)
        self.assertEqual(text.getvalue(), "29999\n30000\n")

        class Full(io.RawIOBase):
            def write(self, b):
                raise OSError(28, "No space left on device")

        with self.assertRaises(OSError):
            self.client.copy_logs(sub.run_id, Full(), tail=10)

    def test_metrics_the_workload_logged(self):
        sub = self.submit(METRICS)
        self.assertIs(sub.wait(PATIENCE_S, poll_interval=0.05).state, air.State.SUCCESS)
        got = self.client.metrics(sub.run_id)
        self.assertEqual(got, {
            "loss": [air.MetricPoint(0, 2.5, 1700000000000, "loss"),
                     air.MetricPoint(1, 1.25, 1700000001000, "loss")],
            "system/gpu_0_utilization_percentage": [
                air.MetricPoint(0, 40.0, 1700000000000, "system/gpu_0_utilization_percentage")]})
        latest = self.client.latest_metrics(sub.run_id)
        self.assertEqual(latest["loss"].value, 1.25)
        self.assertEqual(latest.mlflow_status, "FINISHED")

    def test_a_sweep_runs_one_variant_at_a_time(self):
        yaml = ("experiment_name: py-local-sweep\n"
                "compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}\n"
                "parameters: {lr: 0.1}\n"
                "command: cat \"$HYPERPARAMETERS_PATH\"\n")
        with air.Config.loads(yaml, name="workload.yaml", base_dir=self.tmp) as cfg:
            s = self.client.sweep(cfg, grid={"parameters.lr": [0.5, 0.7]}, base_key="local")
        rows = s.results(timeout=PATIENCE_S, poll_interval=0.05)
        self.assertEqual([r["state"] for r in rows], ["SUCCESS", "SUCCESS"])
        lines = [rec.line for rec in self.client.logs(s[1].run_id, timeout=PATIENCE_S)]
        self.assertIn("lr: 0.7", lines)
        again = self.client.rerun(s[1].run_id)
        run = again.wait(PATIENCE_S, poll_interval=0.05)
        self.assertIs(run.state, air.State.SUCCESS, run.state_message)
        self.assertEqual(run.name, "py-local-sweep lr=0.7")

    def test_cancel_a_sleeping_run(self):
        pid_file = os.path.join(self.tmp, "node.pid")
        sub = self.submit(SLEEPER % (pid_file, pid_file, pid_file))
        stream = self.client.logs(sub.run_id, poll_interval=0.05, timeout=PATIENCE_S)
        for rec in stream:
            if rec.line == "started":
                break
        stream.close()
        self.wait_until(lambda: os.path.exists(pid_file), pid_file)
        with open(pid_file) as f:
            pid = int(f.read())
        self.assertTrue(alive(pid))
        self.assertIs(self.client.get_run(sub.run_id).state, air.State.RUNNING)
        sub.cancel()
        run = sub.wait(PATIENCE_S, poll_interval=0.05)
        self.assertIs(run.state, air.State.CANCELED)
        self.wait_until(lambda: not alive(pid), "the node's process %d to end" % pid)


if __name__ == "__main__":
    unittest.main()

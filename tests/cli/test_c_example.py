"""The README's C example (examples/c/submit_and_watch.c) against the fake
workspace: it submits a shipped workload, streams the run's logs to the end
and exits with the run's outcome."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.environ["AIR_SOURCE_ROOT"], "tests", "support"))
from fakews_client import FakeWS  # noqa: E402
from interrupting import interrupt, line_starting  # noqa: E402

EXAMPLE = sys.argv.pop(1) if len(sys.argv) > 1 else os.environ["AIR_C_EXAMPLE"]
WORKLOAD = os.path.join(os.environ["AIR_SOURCE_ROOT"], "examples", "single-gpu.yaml")


class CExampleTest(unittest.TestCase):
    def setUp(self):
        self.fw = FakeWS()
        self.fw.start()
        self.home = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.home, True)
        self.env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": self.home,
            "DATABRICKS_HOST": self.fw.url,
            "DATABRICKS_TOKEN": "dapi-test",
            "DATABRICKS_CONFIG_FILE": os.path.join(self.home, "none.cfg"),
        }
        for k in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"):
            if k in os.environ:
                self.env[k] = os.environ[k]

    def tearDown(self):
        self.fw.stop()

    def run_example(self, *args):
        return subprocess.run([EXAMPLE, WORKLOAD, *args], env=self.env, capture_output=True,
                              text=True, timeout=120)

    def test_submits_and_streams_until_success(self):
        self.fw.config(lifecycle={"pending_ms": 200, "running_ms": 1200, "result": "SUCCESS"},
                       auto_logs=3)
        p = self.run_example("--override", "timeout_minutes=45")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("run 555: " + self.fw.url + "/jobs/runs/555", p.stdout)
        lines = [l for l in p.stdout.splitlines() if l.startswith("node 0 step")]
        self.assertEqual(lines, ["node 0 step 0", "node 0 step 1", "node 0 step 2"])
        self.assertIn("SUCCESS", p.stderr)
        submit = self.fw.last("POST", "/api/2.2/jobs/runs/submit")
        body = json.loads(submit["body"])
        self.assertEqual(body["run_name"], "single-gpu-quickstart")
        self.assertEqual(body["timeout_seconds"], 45 * 60)
        self.assertEqual(self.fw.count("POST", "/api/2.2/jobs/runs/submit"), 1)

    def test_failed_run_exits_non_zero(self):
        self.fw.config(lifecycle={"pending_ms": 0, "running_ms": 300, "result": "FAILED"})
        p = self.run_example()
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn("FAILED", p.stderr)

    def test_ctrl_c_says_the_run_keeps_going(self):
        self.fw.config(lifecycle={"pending_ms": 0, "running_ms": 3600000, "result": "SUCCESS"},
                       auto_logs={"count": 3600000, "text": "step {i}"})
        # Once a log line shows, the run is being followed.
        rc, _, err = interrupt([EXAMPLE, WORKLOAD], self.env, line_starting("step "))
        self.assertEqual(rc, 1, err)
        self.assertIn("run 555 keeps going; `air cancel 555` stops it", err)
        self.assertEqual(self.fw.count("POST", "/api/2.2/jobs/runs/cancel"), 0)

    def test_invalid_override_is_reported_before_any_request(self):
        p = self.run_example("--override", "compute.num_accelerators=0")
        self.assertEqual(p.returncode, 1)
        self.assertIn("num_accelerators", p.stderr)
        self.assertEqual(self.fw.count(), 0)


if __name__ == "__main__":
    unittest.main(verbosity=2)

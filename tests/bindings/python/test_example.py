"""examples/python/sweep.py (the notebook-style sweep) runs against the fake
workspace with only the host and token set, submits one run per grid point
with Client.sweep() (keys derived from the base key and the point: running it
again starts nothing new), follows the first run's logs and prints the
results table."""

import os
import subprocess
import sys
import tempfile
import unittest

from bindtest import PACKAGE_DIR, SOURCE_ROOT, TOKEN
from fakews_client import FakeWS
from interrupting import interrupt, line_starting

EXAMPLE = os.path.join(SOURCE_ROOT, "examples", "python", "sweep.py")


class SweepExampleTest(unittest.TestCase):
    def test_runs_and_is_idempotent(self):
        with FakeWS() as fw:
            fw.config(auto_logs=3)
            env = {k: v for k, v in os.environ.items() if not k.startswith("DATABRICKS_")}
            env.update(DATABRICKS_HOST=fw.url, DATABRICKS_TOKEN=TOKEN, PYTHONPATH=PACKAGE_DIR,
                       HOME=fw._dir)  # no ~/.databrickscfg of the machine
            outputs = []
            for _ in range(2):
                done = subprocess.run([sys.executable, EXAMPLE], env=env, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, universal_newlines=True, timeout=120)
                self.assertEqual(done.returncode, 0, done.stderr)
                outputs.append(done.stdout)
            runs = fw.runs()
        self.assertEqual(len(runs), 4)
        self.assertEqual(outputs[0], outputs[1])
        out = outputs[0]
        self.assertIn("[node 0] node 0 step 2", out)
        self.assertIn("4 of 4 runs succeeded", out)
        keys = {str(r["submitted"]["idempotency_token"]) for r in runs}
        self.assertEqual(len(keys), 4)
        self.assertTrue(all(k.startswith("lr-sweep-1-") and len(k) == len("lr-sweep-1-") + 16
                            for k in keys), keys)
        names = sorted(str(r["submitted"]["run_name"]) for r in runs)
        self.assertEqual(names[0], "lr-sweep lr=0.0003 batch_size=16")
        table = [ln.split() for ln in out.splitlines() if ln.split()[-2:-1] == ["SUCCESS"]]
        self.assertEqual([(row[0], row[1]) for row in table],
                         [("0.001", "16"), ("0.001", "32"), ("0.0003", "16"), ("0.0003", "32")])

    def test_every_run_succeeds_on_the_local_workspace(self):
        # The workload is whole: its command needs nothing but python3.
        with tempfile.TemporaryDirectory() as tmp:
            env = {k: v for k, v in os.environ.items() if not k.startswith("DATABRICKS_")}
            env.update(DATABRICKS_HOST="local://" + os.path.join(tmp, "state"),
                       PYTHONPATH=PACKAGE_DIR, HOME=tmp)
            done = subprocess.run([sys.executable, EXAMPLE], env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, universal_newlines=True, timeout=300)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("[node 0] step 4 loss", done.stdout)
        self.assertIn("4 of 4 runs succeeded", done.stdout)

    def test_ctrl_c_says_the_runs_keep_going(self):
        with FakeWS() as fw:
            fw.config(lifecycle={"pending_ms": 0, "running_ms": 3600000, "result": "SUCCESS"},
                      auto_logs={"count": 3600000, "text": "step {i}"})
            env = {k: v for k, v in os.environ.items() if not k.startswith("DATABRICKS_")}
            env.update(DATABRICKS_HOST=fw.url, DATABRICKS_TOKEN=TOKEN, PYTHONPATH=PACKAGE_DIR,
                       HOME=fw._dir)
            # Interrupted while it follows the first run's logs.
            rc, _, err = interrupt([sys.executable, EXAMPLE], env, line_starting("[node 0]"))
            cancels = fw.count("POST", "/api/2.2/jobs/runs/cancel")
        self.assertEqual(rc, 1, err)
        self.assertRegex(err, r"runs( \d+){4} keep going; `air cancel --sweep lr-sweep-1` stops them")
        self.assertNotIn("Traceback", err)
        self.assertEqual(cancels, 0)


if __name__ == "__main__":
    unittest.main()

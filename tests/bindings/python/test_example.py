"""examples/python/sweep.py (the notebook-style sweep) runs against the fake
workspace with only the host and token set, submits one run per grid point
with idempotency keys (running it again starts nothing new), follows the
first run's logs and prints the results table."""

import os
import subprocess
import sys
import unittest

from bindtest import PACKAGE_DIR, SOURCE_ROOT, TOKEN
from fakews_client import FakeWS

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
        params = sorted(str(r["submitted"]["idempotency_token"]) for r in runs)
        self.assertEqual(params, ["lr-sweep-1-%d" % i for i in range(4)])
        table = [ln.split() for ln in out.splitlines() if ln.split()[-2:-1] == ["SUCCESS"]]
        self.assertEqual([(row[0], row[1]) for row in table],
                         [("0.001", "16"), ("0.001", "32"), ("0.0003", "16"), ("0.0003", "32")])


if __name__ == "__main__":
    unittest.main()

"""The C examples of docs/c.md: examples/c/check_workload.c on every shipped
workload (offline), and examples/c/wait_runs.c waiting for several runs of
the fake workspace at once, one thread each on a shared client.

usage: test_c_examples.py CHECK_WORKLOAD WAIT_RUNS
"""
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.environ["AIR_SOURCE_ROOT"], "tests", "support"))
from fakews_client import FakeWS  # noqa: E402
from interrupting import interrupt  # noqa: E402

SRC = os.environ["AIR_SOURCE_ROOT"]
CHECK_WORKLOAD = WAIT_RUNS = None


def sanitizer_env(env):
    for k in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", "TSAN_OPTIONS"):
        if k in os.environ:
            env[k] = os.environ[k]
    return env


class CheckWorkload(unittest.TestCase):
    def test_every_example_workload(self):
        files = sorted(glob.glob(os.path.join(SRC, "examples", "*.yaml")))
        self.assertTrue(files)
        for path in files:
            p = subprocess.run([CHECK_WORKLOAD, path], capture_output=True, text=True,
                               timeout=60, env=sanitizer_env({"PATH": os.environ["PATH"]}))
            self.assertEqual(p.returncode, 0, path + ": " + p.stderr)
            self.assertRegex(p.stdout, r"^[\w-]+: \d+ x GPU_\w+ on \d+ node\(s\), libair \d")

    def test_invalid_workload_names_file_line_and_field(self):
        with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
            f.write("experiment_name: x\ncompute:\n  accelerator_type: GPU_1xA10\n"
                    "  num_accelerators: 0\ncommand: echo\n")
        try:
            p = subprocess.run([CHECK_WORKLOAD, f.name], capture_output=True, text=True,
                               timeout=60, env=sanitizer_env({"PATH": os.environ["PATH"]}))
        finally:
            os.unlink(f.name)
        self.assertEqual(p.returncode, 1)
        self.assertIn(f.name + ":4:", p.stderr)
        self.assertIn("compute.num_accelerators", p.stderr)


class WaitRuns(unittest.TestCase):
    def setUp(self):
        self.fw = FakeWS()
        self.fw.start()
        self.home = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.home, True)
        self.env = sanitizer_env({
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": self.home,
            "DATABRICKS_HOST": self.fw.url,
            "DATABRICKS_TOKEN": "dapi-test",
            "DATABRICKS_CONFIG_FILE": os.path.join(self.home, "none.cfg"),
        })

    def tearDown(self):
        self.fw.stop()

    def run_state(self, run_id, result, running_ms):
        self.fw.create_run({"run_id": run_id, "run_name": "r%d" % run_id, "tasks": [],
                            "lifecycle": {"pending_ms": 0, "running_ms": running_ms,
                                          "result": result}})

    def test_waits_for_every_run_on_its_own_thread(self):
        self.run_state(101, "SUCCESS", 300)
        self.run_state(102, "SUCCESS", 900)
        self.run_state(103, "SUCCESS", 0)
        p = subprocess.run([WAIT_RUNS, "101", "102", "103"], capture_output=True, text=True,
                           env=self.env, timeout=120)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertEqual(sorted(p.stdout.splitlines()),
                         ["run 101: SUCCESS", "run 102: SUCCESS", "run 103: SUCCESS"])

    def test_one_failed_run_fails_the_program(self):
        self.run_state(201, "SUCCESS", 0)
        self.run_state(202, "FAILED", 200)
        p = subprocess.run([WAIT_RUNS, "201", "202", "999"], capture_output=True, text=True,
                           env=self.env, timeout=120)
        self.assertEqual(p.returncode, 1)
        lines = sorted(p.stdout.splitlines())
        self.assertEqual(lines[:2], ["run 201: SUCCESS", "run 202: FAILED"])
        self.assertTrue(lines[2].startswith("run 999: "), lines)

    def test_ctrl_c_stops_every_wait(self):
        for i in range(301, 305):
            self.fw.create_run({"run_id": i, "tasks": [],
                                "state": {"life_cycle_state": "RUNNING"}})
        # Every thread has read its run once before the signal comes.
        rc, out, err = interrupt([WAIT_RUNS, "301", "302", "303", "304"], self.env,
                                 lambda proc: self.fw_wait_reads(4))
        self.assertEqual(rc, 1, out + err)
        self.assertEqual(len(out.splitlines()), 4, out)
        self.assertTrue(all("interrupt" in l for l in out.splitlines()), out)

    def fw_wait_reads(self, n):
        import time
        for _ in range(600):
            if self.fw.count("GET", "/api/2.2/jobs/runs/get") >= n:
                return
            time.sleep(0.1)
        self.fail("the waits never read their runs")


if __name__ == "__main__":
    CHECK_WORKLOAD, WAIT_RUNS = sys.argv[1], sys.argv[2]
    del sys.argv[1:3]
    unittest.main(verbosity=2)

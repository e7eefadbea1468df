"""Ctrl-C: SIGINT (or SIGTERM) stops a blocked `air` command promptly, with
exit status 1 (docs/cli.md#in-ci-json-output-and-exit-codes), "Error: interrupted" on stderr and no
process of its group left behind. Each command is stuck in a wait far longer
than the bound (a 60 s log poll, a 60 s server delay, a 60 s `docker push`),
so only the interrupt can end it in time."""

import json
import os
import signal
import stat
import subprocess
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.join(os.environ.get("AIR_SOURCE_ROOT", "."), "tests", "support"))
from cli_case import AIR, WorkspaceCase  # noqa: E402

# The stop is expected well under a second; the bound leaves room for a loaded
# machine and stays far below the waits the commands are stuck in.
STOP_BOUND_S = 10
STUCK_MS = 60000
# How long a command may take to reach the point where it is stuck.
READY_S = 60
VALID = ("experiment_name: smoke-test\n"
         "command: python train.py\n"
         "compute:\n"
         "  accelerator_type: GPU_1xH100\n"
         "  num_accelerators: 1\n")
LOGS = "/api/2.0/ai-training/workflows/by-run-id/%d/logs"


class Proc:
    """An `air` process in its own process group, its output collected by threads."""

    def __init__(self, args, env, stdin=subprocess.DEVNULL):
        self.p = subprocess.Popen([AIR, *args], env=env, stdin=stdin, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, start_new_session=True)
        self.out, self.err = bytearray(), bytearray()
        self.cond = threading.Condition()
        self.readers = [threading.Thread(target=self._read, args=(s, b), daemon=True)
                        for s, b in ((self.p.stdout, self.out), (self.p.stderr, self.err))]
        for t in self.readers:
            t.start()

    def _read(self, stream, buf):
        for chunk in iter(lambda: stream.read1(4096), b""):
            with self.cond:
                buf.extend(chunk)
                self.cond.notify_all()
        with self.cond:
            self.cond.notify_all()

    def wait_output(self, needle, err=False, timeout=READY_S):
        """Wait until stdout (or stderr) contains @needle; False when the process ended first."""
        buf = self.err if err else self.out
        deadline = time.monotonic() + timeout
        with self.cond:
            while needle.encode() not in buf:
                if self.p.poll() is not None or time.monotonic() > deadline:
                    return needle.encode() in buf
                self.cond.wait(0.05)
        return True

    def interrupt(self, sig=signal.SIGINT):
        """Send @sig to the air process alone; (exit status, seconds to exit)."""
        t0 = time.monotonic()
        os.kill(self.p.pid, sig)
        try:
            rc = self.p.wait(STOP_BOUND_S)
        except subprocess.TimeoutExpired:
            rc = None
        took = time.monotonic() - t0
        if rc is None:
            os.killpg(self.p.pid, signal.SIGKILL)
            self.p.wait()
        for t in self.readers:
            t.join(5)
        return rc, took

    def kill(self):
        """Clean-up: end the group if still running, close the pipes."""
        if self.p.poll() is None:
            os.killpg(self.p.pid, signal.SIGKILL)
            self.p.wait()
        for t in self.readers:
            t.join(5)
        for f in (self.p.stdin, self.p.stdout, self.p.stderr):
            if f:
                f.close()

    def text(self, err=False):
        return bytes(self.err if err else self.out).decode("utf-8", "replace")


def group_members(pgid):
    """Live processes (not zombies) of process group @pgid."""
    found = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                s = f.read()
        except OSError:
            continue
        fields = s[s.rindex(")") + 2:].split()
        if fields[0] != "Z" and int(fields[2]) == pgid:
            found.append(int(d))
    return found


class InterruptCase(WorkspaceCase):
    EXTRA_ENV = {"AIR_LOGS_POLL_MS": str(STUCK_MS)}

    def start(self, *args, stdin=subprocess.DEVNULL):
        p = Proc(args, self.env, stdin)
        self.addCleanup(p.kill)
        return p

    def assert_interrupted(self, p, sig=signal.SIGINT, run_id=None):
        """Interrupt @p and check how it ended; returns its stdout. With
        @run_id, a followed run: stderr also says it keeps going and how to
        stop it."""
        rc, took = p.interrupt(sig)
        self.assertIsNotNone(rc, "still running %d s after the signal" % STOP_BOUND_S)
        self.assertEqual(rc, 1, p.text(err=True))
        self.assertLess(took, STOP_BOUND_S)
        self.assertEqual(group_members(p.p.pid), [], "processes left behind")
        end = "Error: interrupted\n"
        if run_id is not None:
            end += "Run %d keeps going; `air cancel %d` stops it.\n" % (run_id, run_id)
        self.assertTrue(p.text(err=True).endswith(end), p.text(err=True))
        return p.text()

    def yaml(self):
        path = os.path.join(self.tmp.name, "valid.yaml")
        with open(path, "w") as f:
            f.write(VALID)
        return path

    def stuck_request(self, method, path):
        """Delay every @method @path request far beyond the bound."""
        self.fw.fault(method=method, path=path, action="delay", delay_ms=STUCK_MS, times=-1)

    def wait_request(self, p, method, path):
        deadline = time.monotonic() + READY_S
        while self.fw.count(method, path) == 0:
            self.assertIsNone(p.p.poll(), p.text(err=True))
            self.assertLess(time.monotonic(), deadline, "no %s %s request" % (method, path))
            time.sleep(0.02)


class LogsFollow(InterruptCase):
    """`air logs RUN_ID` following an active run, stopped between polls."""

    def active_run(self):
        self.fw.create_run({"run_id": 123, "start_time": int(time.time() * 1000) - 60000,
                            "state": {"life_cycle_state": "RUNNING"},
                            "tasks": [{"run_id": 124, "ai_runtime_task": {"experiment": "x"}}]})
        now_ns = time.time_ns()
        self.fw.add_logs(123, [{"time_unix_nano": now_ns - 2000000000, "body": "step 1"},
                               {"time_unix_nano": now_ns - 1000000000, "body": "step 2"}])

    def test_text(self):
        self.active_run()
        p = self.start("logs", "123")
        self.assertTrue(p.wait_output("step 2\n"), p.text(err=True))
        self.assertEqual(self.assert_interrupted(p, run_id=123), "step 1\nstep 2\n")
        self.assertGreaterEqual(self.fw.count("GET", LOGS % 123), 1)

    def test_json_sigterm(self):
        self.active_run()
        p = self.start("logs", "123", "-o", "json")
        self.assertTrue(p.wait_output('"step 2"'), p.text(err=True))
        out = self.assert_interrupted(p, signal.SIGTERM, run_id=123)
        # Only the events: no error envelope after an interruption.
        self.assertEqual([(e["type"], e["line"]) for e in map(json.loads, out.splitlines())],
                         [("LOG", "step 1"), ("LOG", "step 2")])


class RunWatch(InterruptCase):
    """`air run --watch` streaming a long run: the watch stops, the run goes on."""

    def long_run(self):
        # One line per millisecond of a very long RUNNING phase.
        self.fw.config(lifecycle={"pending_ms": 0, "running_ms": 3600000, "result": "SUCCESS"},
                       auto_logs={"count": 3600000, "text": "step {i}"})

    def test_text(self):
        self.long_run()
        p = self.start("run", "-f", self.yaml(), "--watch")
        self.assertTrue(p.wait_output("step 0\n"), p.text(err=True))
        out = self.assert_interrupted(p, run_id=555)
        self.assertIn("Monitoring run 555", out)
        self.assertEqual(self.fw.count("POST", "/api/2.2/jobs/runs/cancel"), 0)

    def test_json(self):
        self.long_run()
        p = self.start("run", "-f", self.yaml(), "--watch", "-o", "json")
        self.assertTrue(p.wait_output('"step 0"'), p.text(err=True))
        events = [json.loads(line) for line in self.assert_interrupted(p, run_id=555).splitlines()]
        self.assertEqual(events[0]["type"], "SUBMITTED")
        # No terminal line: the last event is a log line.
        self.assertEqual(events[-1]["type"], "LOG")


class MetricsWatch(InterruptCase):
    """`air metrics --watch` of an active run, stopped between polls."""

    def test_text(self):
        self.fw.create_run({"run_id": 123, "start_time": int(time.time() * 1000) - 60000,
                            "state": {"life_cycle_state": "RUNNING"},
                            "tasks": [{"run_id": 124, "ai_runtime_task": {"experiment": "x"}}]})
        p = self.start("metrics", "123", "--watch", "--metric", "loss")
        self.wait_request(p, "GET", "/api/2.0/mlflow/metrics/get-history")
        self.assertEqual(self.assert_interrupted(p, run_id=123), "")

    def test_slow_history(self):
        self.fw.create_run({"run_id": 123, "start_time": 1700000000000,
                            "tasks": [{"run_id": 124, "ai_runtime_task": {"experiment": "x"}}]})
        self.stuck_request("GET", "/api/2.0/mlflow/runs/get")
        p = self.start("metrics", "123")
        self.wait_request(p, "GET", "/api/2.0/mlflow/runs/get")
        self.assert_interrupted(p)


class SlowCalls(InterruptCase):
    """Commands stuck in a request the workspace does not answer."""

    def check(self, method, path, *args):
        self.stuck_request(method, path)
        p = self.start(*args)
        self.wait_request(p, method, path)
        self.assertEqual(self.assert_interrupted(p), "")

    def test_get(self):
        self.fw.create_run({"run_id": 123, "state": {"life_cycle_state": "RUNNING"}})
        self.check("GET", "/api/2.2/jobs/runs/get", "get", "123", "-o", "json")

    def test_identity_probe_of_logs(self):
        self.check("GET", "/api/2.0/preview/scim/v2/Me", "logs", "123")

    def test_list(self):
        self.check("GET", "/api/2.0/preview/scim/v2/Me", "list")

    def test_cancel(self):
        self.fw.create_run({"run_id": 123, "state": {"life_cycle_state": "RUNNING"}})
        self.check("POST", "/api/2.2/jobs/runs/cancel", "cancel", "123")

    def test_list_pools(self):
        self.check("GET", "/api/2.0/ai-training/provisioned-capacities", "list", "pools")

    def test_submit(self):
        self.check("POST", "/api/2.2/jobs/runs/submit", "run", "-f", self.yaml())

    def test_upload(self):
        self.check("POST", "/api/2.0/workspace/mkdirs", "run", "-f", self.yaml())


class Prompts(InterruptCase):
    def test_cancel_all_prompt_declines(self):
        self.fw.create_run({"run_id": 123, "creator_user_name": "tester@databricks.com",
                            "start_time": int(time.time() * 1000),
                            "state": {"life_cycle_state": "RUNNING"},
                            "tasks": [{"run_id": 124, "ai_runtime_task": {"experiment": "x"}}]})
        p = self.start("cancel", "--all", stdin=subprocess.PIPE)
        self.assertTrue(p.wait_output("[y/N] ", err=True), p.text(err=True))
        rc, took = p.interrupt()
        self.assertEqual(rc, 1, p.text(err=True))
        self.assertLess(took, STOP_BOUND_S)
        self.assertTrue(p.text(err=True).endswith("\nAborted: no run was cancelled.\n"),
                        p.text(err=True))
        self.assertEqual(self.fw.count("POST", "/api/2.2/jobs/runs/cancel"), 0)


FAKE_DATABRICKS = """#!/bin/sh
echo "Docker credential helper configured for dbc-1.container.cloud.databricks.com"
"""
# `docker push` hangs (exec: the process libair started is the one that waits).
FAKE_DOCKER = """#!/bin/sh
echo "$1" >> "$(dirname "$0")/calls.log"
case "$1" in
image) echo linux/amd64;;
push) exec sleep %d;;
esac
exit 0
""" % (STUCK_MS // 1000)


def read_words(path):
    try:
        with open(path) as f:
            return f.read().split()
    except FileNotFoundError:
        return []


class ImagesPush(InterruptCase):
    def test_push_kills_docker(self):
        bin_dir = os.path.join(self.tmp.name, "bin")
        os.mkdir(bin_dir)
        for name, text in (("docker", FAKE_DOCKER), ("databricks", FAKE_DATABRICKS)):
            path = os.path.join(bin_dir, name)
            with open(path, "w") as f:
                f.write(text)
            os.chmod(path, stat.S_IRWXU)
        cfg = self.env["DATABRICKS_CONFIG_FILE"]
        with open(cfg, "w") as f:
            f.write("[prof]\nhost = %s\ntoken = dapi-test\n" % self.fw.url)
        for k in ("DATABRICKS_HOST", "DATABRICKS_TOKEN"):
            del self.env[k]
        self.env["PATH"] = bin_dir + os.pathsep + os.environ.get("PATH", "")
        p = self.start("images", "push", "-s", "img:1", "--catalog", "main", "--schema", "ml",
                       "-p", "prof")
        deadline = time.monotonic() + READY_S
        log = os.path.join(bin_dir, "calls.log")
        while "push" not in read_words(log):
            self.assertIsNone(p.p.poll(), p.text(err=True))
            self.assertLess(time.monotonic(), deadline, "docker push was not started")
            time.sleep(0.02)
        self.assertEqual(self.assert_interrupted(p), "")


if __name__ == "__main__":
    unittest.main()

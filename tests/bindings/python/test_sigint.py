"""Ctrl-C: a child process receives SIGINT while blocked in each kind of
libair call (the fake workspace holds the request, or the call sleeps
between polls, or a helper program runs) and must raise KeyboardInterrupt
in the caller at once, restore the signal wakeup descriptor and leave no
thread behind. Also: the user's own SIGINT handler runs (its exception
propagates; when it returns the call goes on), nested calls, Python code in
a callback, and calls on another thread (stopped with an air.Interrupt)."""

import os
import signal
import stat
import subprocess
import sys
import tempfile
import time
import unittest

from bindtest import HERE, TOKEN, air_run_body
from fakews_client import FakeWSCase, python_exe

CHILD = os.path.join(HERE, "sigint_child.py")
DELAY_MS = 60000   # what an uninterrupted call would wait
BOUND = 20         # seconds: far above a prompt return, far below DELAY_MS


class SigintCase(FakeWSCase):
    def hold(self, path, method="*", after=0, times=-1, delay_ms=DELAY_MS):
        """Delay matching requests (the server records them on arrival)."""
        self.fw.fault(method=method, path=path, action="delay", delay_ms=delay_ms, after=after,
                      times=times)

    def pending(self, path):
        """A ready() test: a request to @path has arrived and is not answered yet."""
        return lambda: any(r["status"] is None for r in self.fw.requests(path=path, bodies=False))

    def interrupt(self, kind, arg, ready, expect="KeyboardInterrupt 1 -1", after=None):
        """Run the child, SIGINT it once ready() is true (then call after()),
        check its last line."""
        p = subprocess.Popen([python_exe(), CHILD, kind, self.fw.url, str(arg)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             universal_newlines=True)
        try:
            deadline = time.monotonic() + 60
            while not ready():
                if p.poll() is not None:
                    self.fail("child ended before the call blocked: %s %s" % p.communicate())
                if time.monotonic() > deadline:
                    self.fail("the child never reached the call")
                time.sleep(0.01)
            t0 = time.monotonic()
            p.send_signal(signal.SIGINT)
            if after is not None:
                after()
            out, err = p.communicate(timeout=DELAY_MS / 1000 + 30)
            elapsed = time.monotonic() - t0
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
        lines = out.strip().splitlines()
        self.assertTrue(lines, "no output; stderr: %s" % err)
        self.assertEqual(lines[-1], expect, "stderr: %s" % err)
        self.assertEqual(p.returncode, 0, err)
        self.assertNotIn("Exception ignored", err)
        self.assertLess(elapsed, BOUND)
        return lines

    def active_run(self):
        return self.fw.create_run(air_run_body(active=True))


class EveryCallTest(SigintCase):
    def test_get(self):
        self.hold("/api/2.2/jobs/runs/get")
        self.interrupt("get", self.active_run(), self.pending("/api/2.2/jobs/runs/get"))

    def test_submit(self):
        self.hold("/api/2.2/jobs/runs/submit", method="POST")
        self.interrupt("submit", 0, self.pending("/api/2.2/jobs/runs/submit"))

    def test_wait_between_polls(self):
        rid = self.active_run()
        self.interrupt("wait", rid, lambda: any(
            r["status"] == 200 for r in self.fw.requests(path="/api/2.2/jobs/runs/get",
                                                         bodies=False)))

    def test_logs_iteration(self):
        rid = self.active_run()
        path = "/api/2.0/ai-training/workflows/by-run-id/%d/logs" % rid
        self.hold(path, after=1)
        self.interrupt("logs", rid, self.pending(path))

    def test_list_paging(self):
        self.fw.config(list_page_size=2)
        for _ in range(5):
            self.active_run()
        self.hold("/api/2.2/jobs/runs/list", after=1)
        lines = self.interrupt("list", 0, self.pending("/api/2.2/jobs/runs/list"))
        self.assertEqual(len([ln for ln in lines if ln.startswith("run ")]), 2)

    def test_cancel(self):
        self.hold("/api/2.2/jobs/runs/cancel")
        self.interrupt("cancel", self.active_run(), self.pending("/api/2.2/jobs/runs/cancel"))

    def test_download(self):
        body = air_run_body()
        body.update(start_time=1700000000000, end_time=1700000100000)
        rid = self.fw.create_run(body)
        self.hold("/api/2.0/mlflow/artifacts/list")
        self.interrupt("download", rid, self.pending("/api/2.0/mlflow/artifacts/list"))

    def test_pools(self):
        self.hold("/api/2.0/ai-training/provisioned-capacities")
        self.interrupt("pools", 0, self.pending("/api/2.0/ai-training/provisioned-capacities"))

    def test_register_image_between_polls(self):
        image = "myreg.io/team/train:v3"
        self.fw.images({image: {"registered": False, "on_register": {"state": "PENDING"}}})
        self.interrupt("register", image, lambda: any(
            r["status"] == 200 for r in self.fw.requests(
                method="POST", path="/api/2.0/ai-compute-manager/images", bodies=False)))

    def test_register_image_request(self):
        self.hold("/api/2.0/ai-compute-manager/images:get")
        self.interrupt("register", "ubuntu", self.pending("/api/2.0/ai-compute-manager/images:get"))

    def test_image_push_kills_the_helper(self):
        with tempfile.TemporaryDirectory() as d:
            marker = os.path.join(d, "docker.pid")
            docker = os.path.join(d, "docker")
            with open(docker, "w") as f:
                f.write("#!/bin/sh\necho $$ > %s.tmp && mv %s.tmp %s\nexec sleep %d\n"
                        % (marker, marker, marker, DELAY_MS // 1000))
            os.chmod(docker, stat.S_IRWXU)
            self.interrupt("push", docker, lambda: os.path.exists(marker))
            with open(marker) as f:
                pid = int(f.read())
            deadline = time.monotonic() + BOUND
            while _alive(pid) and time.monotonic() < deadline:
                time.sleep(0.05)
            self.assertFalse(_alive(pid), "the docker helper was left running")


class HandlerTest(SigintCase):
    def test_users_handler_exception_propagates(self):
        self.hold("/api/2.2/jobs/runs/get")
        self.interrupt("user_raises", self.active_run(), self.pending("/api/2.2/jobs/runs/get"),
                       expect="Boom 1 -1")

    def test_users_handler_that_returns_lets_the_call_go_on(self):
        self.hold("/api/2.2/jobs/runs/get", times=1, delay_ms=DELAY_MS)
        self.interrupt("user_returns", self.active_run(), self.pending("/api/2.2/jobs/runs/get"),
                       expect="returned handled=1 1 -1")

    def test_log_iteration_resumes_without_repeating_records(self):
        rid = self.active_run()
        now = time.time_ns()
        self.fw.add_logs(rid, records=[{"time_unix_nano": now + i, "body": "r%d" % i}
                                       for i in range(3)])
        path = "/api/2.0/ai-training/workflows/by-run-id/%d/logs" % rid
        self.hold(path, after=1, times=1)
        lines = self.interrupt("logs_resume", rid, self.pending(path),
                               expect="returned handled=1 1 -1", after=lambda: self.fw.update_run(
                                   rid, state={"life_cycle_state": "TERMINATED",
                                               "result_state": "SUCCESS"},
                                   end_time=int(time.time() * 1000)))
        self.assertEqual([ln for ln in lines if ln.startswith("record")],
                         ["record r0", "record r1", "record r2"])


class NestingTest(SigintCase):
    def test_call_inside_a_callback(self):
        self.fw.create_run(air_run_body())  # 555, read by the progress callback
        self.hold("/api/2.2/jobs/runs/get")
        self.interrupt("nested", 0, self.pending("/api/2.2/jobs/runs/get"))

    def test_python_code_inside_a_callback(self):
        rid = self.active_run()
        self.interrupt("callback", rid, lambda: any(
            r["status"] == 200 for r in self.fw.requests(path="/api/2.2/jobs/runs/get",
                                                         bodies=False)))

    def test_call_on_another_thread(self):
        self.hold("/api/2.2/jobs/runs/get")
        rid = self.active_run()
        self.interrupt("thread", rid, lambda: sum(
            r["status"] is None for r in self.fw.requests(path="/api/2.2/jobs/runs/get",
                                                          bodies=False)) == 2,
            expect="KeyboardInterrupt+CallInterruptedError,CallInterruptedError 1 -1")


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie of an exited parent does not count
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


if __name__ == "__main__":
    unittest.main()

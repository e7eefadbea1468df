"""`air list` on a terminal without --limit: the interactive view
(docs/runs-and-logs.md#command-line), driven in a tmux pane (send-keys, capture-pane). It
shows a screen of runs, fetches more only as the user scrolls (the runs/list
requests are counted), selects a row with arrows and j/k, moves a screen with
space and b, quits with q and honours Ctrl-C, also in the middle of a fetch.
On the selected run, Enter opens its MLflow page with $BROWSER (a fake one
here) or shows the URL when no browser starts, i shows its details and L a
snapshot of its logs. A dumb terminal, --limit or -o json give the plain
output."""

import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.join(os.environ.get("AIR_SOURCE_ROOT", "."), "tests", "support"))
from cli_case import AIR, WorkspaceCase  # noqa: E402

TMUX = shutil.which("tmux")
# Waits for the screen poll the pane; they end as soon as it shows what is
# expected, so the bound only stops a broken test.
WAIT_S = 30
PASS_ENV = ("PATH", "LD_LIBRARY_PATH", "ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", "TSAN_OPTIONS")
RUNS = 40
ROWS = 12  # a header, 10 runs, the status line


def running_run(i):
    t = 1700000000000 + i * 1000
    return {"run_name": "r%d" % i, "start_time": t, "state": {"life_cycle_state": "RUNNING"},
            "tasks": [{"task_key": "t", "start_time": t, "ai_runtime_task": {
                "experiment": "exp-%02d" % i,
                "deployments": [{"compute": {"accelerator_type": "GPU_1xH100", "accelerator_count": 1}}]}}]}


@unittest.skipUnless(TMUX or os.environ.get("AIR_TEST_CI"), "tmux is not installed")
class ListPager(WorkspaceCase):
    TMP_DIR = "/tmp"  # tmux's socket path must stay short

    def setUp(self):
        super().setUp()
        self.fw.config(list_page_size=10)
        self.ids = [self.fw.create_run(running_run(i)) for i in range(RUNS)]
        self.fw.clear_requests()
        self.sessions = 0
        self.sock = os.path.join(self.tmp.name, "tmux0.sock")
        self.err = os.path.join(self.tmp.name, "err")
        self.exit = os.path.join(self.tmp.name, "exit")
        # The pane stays after the command ends, so its output can be read.
        self.conf = os.path.join(self.tmp.name, "tmux.conf")
        with open(self.conf, "w") as f:
            f.write("set -g remain-on-exit on\nset -g history-limit 1000\n")
        # The pane's command gets these alone (env -i).
        self.vars = {k: v for k, v in self.env.items()
                     if k in PASS_ENV or k in ("HOME",) or k.startswith("DATABRICKS_")}
        self.vars["TZ"] = "UTC"
        self.addCleanup(self.kill_servers)

    def tmux(self, *args, check=True):
        return subprocess.run([TMUX, "-S", self.sock, "-f", self.conf, *args], capture_output=True,
                              text=True, check=check, timeout=30)

    def start(self, *args, term=None, rows=ROWS):
        """`air list ARGS` in a detached pane of @rows; its TERM is tmux's
        unless @term."""
        env = " ".join("%s=%s" % (k, shlex.quote(v)) for k, v in self.vars.items())
        term_arg = "TERM=%s" % term if term else 'TERM="$TERM"'
        cmd = "env -i %s %s %s list %s 2>%s; echo $? >%s" % (
            term_arg, env, shlex.quote(AIR), " ".join(map(shlex.quote, args)), shlex.quote(self.err),
            shlex.quote(self.exit))
        self.tmux("new-session", "-d", "-x", "120", "-y", str(rows), "-s", "t", cmd)

    def screen(self, history=False):
        r = self.tmux("capture-pane", "-p", "-t", "t", *(["-S", "-"] if history else []), check=False)
        return r.stdout if r.returncode == 0 else ""

    def kill_servers(self):
        for i in range(self.sessions + 1):
            self.sock = os.path.join(self.tmp.name, "tmux%d.sock" % i)
            self.tmux("kill-server", check=False)

    def restart(self):
        """Another pane, on a server of its own (a server being killed may
        still hold its socket)."""
        self.tmux("kill-server", check=False)
        self.sessions += 1
        self.sock = os.path.join(self.tmp.name, "tmux%d.sock" % self.sessions)
        if os.path.exists(self.exit):
            os.unlink(self.exit)

    def wait_screen(self, pattern):
        deadline = time.monotonic() + WAIT_S
        while True:
            text = self.screen()
            if re.search(pattern, text):
                return text
            if time.monotonic() > deadline:
                self.fail("the screen never showed %r:\n%s" % (pattern, text))
            time.sleep(0.05)

    def wait_exit(self):
        deadline = time.monotonic() + WAIT_S
        while True:
            if os.path.exists(self.exit):
                with open(self.exit) as f:
                    status = f.read()
                if status.endswith("\n"):
                    break
            if time.monotonic() > deadline:
                self.fail("air list did not end:\n" + self.screen())
            time.sleep(0.05)
        with open(self.err) as f:
            return int(status), f.read()

    def keys(self, *keys):
        self.tmux("send-keys", "-t", "t", *keys)

    def lists(self):
        return self.fw.count("GET", "/api/2.2/jobs/runs/list")

    def test_pages_fetch_more_and_q_quits(self):
        self.start()
        text = self.wait_screen(r"Runs 1-10 of 10\+")
        lines = text.splitlines()
        self.assertEqual(lines[0].split(), ["Run", "ID", "Experiment", "Status", "Started", "Duration",
                                            "MLflow", "User", "Accelerators"])
        newest = self.ids[-1]
        self.assertTrue(lines[1].startswith("%d " % newest), lines[1])
        self.assertIn("2023-11-14T22:13:59+00:00", lines[1])
        self.assertIn("exp-39", lines[1])
        self.assertIn("RUNNING", lines[1])
        first = self.lists()
        self.assertLessEqual(first, 2)  # a screen's worth, not all 4 pages
        # j/k and the arrows move the selection (shown in the status line);
        # the screen follows once it leaves it.
        self.wait_screen(r"Runs 1-10 of 10\+  \[%d\]" % self.ids[-1])
        self.keys("j")
        self.wait_screen(r"Runs 1-10 of 10\+  \[%d\]" % self.ids[-2])
        self.keys("k")
        self.wait_screen(r"Runs 1-10 of \d+\+  \[%d\]" % self.ids[-1])
        self.keys("Down")
        self.wait_screen(r"\[%d\]" % self.ids[-2])
        self.keys("Up")
        self.wait_screen(r"\[%d\]" % self.ids[-1])
        self.keys("j" * 10)
        self.wait_screen(r"Runs 2-11 of \d+\+?  \[%d\]" % self.ids[-11])
        self.keys("g")
        self.wait_screen(r"Runs 1-10 of \d+\+?  \[%d\]" % self.ids[-1])
        self.keys("Space")
        text = self.wait_screen(r"Runs 11-20 of \d+\+? ")
        self.assertTrue(text.splitlines()[1].startswith("%d " % self.ids[-11]))
        self.assertGreater(self.lists(), first)
        self.keys("b")
        self.wait_screen(r"Runs 1-10 of")
        for _ in range(3):
            self.keys("Space")
        text = self.wait_screen(r"Runs 31-40 of 40\+")
        self.assertIn("exp-00", text)
        self.keys("Space")  # past the end: the listing ends there, the view stays
        self.wait_screen(r"Runs 31-40 of 40 ")
        self.keys("g")
        self.wait_screen(r"Runs 1-10 of 40 ")
        self.keys("q")
        rc, err = self.wait_exit()
        self.assertEqual((rc, err), (0, ""))
        self.assertEqual(self.lists(), 4)

    def test_enter_opens_the_mlflow_page_i_details_l_logs(self):
        newest = self.ids[-1]
        self.fw.set_output(newest, {"ai_runtime_task_output": {"mlflow_experiment_id": "exp1",
                                                               "mlflow_run_id": "run1"}})
        self.fw.set_output(self.ids[-2], {})  # no MLflow run (yet)
        self.fw.add_logs(newest, [{"time_unix_nano": 1700000041000000000 + i, "body": "hello %d" % i}
                                  for i in range(3)])
        mlflow = self.fw.url + "/ml/experiments/exp1/runs/run1"
        # A browser that notes what it was asked to open.
        opened = os.path.join(self.tmp.name, "opened")
        browser = os.path.join(self.tmp.name, "fake-browser")
        with open(browser, "w") as f:
            f.write("#!/bin/sh\necho \"$@\" >> %s\n" % shlex.quote(opened))
        os.chmod(browser, 0o755)
        self.vars["BROWSER"] = browser
        self.start(rows=20)  # room for the details
        self.wait_screen(r"\[%d\]" % newest)
        self.keys("Enter")
        self.wait_screen(re.escape("Opened in the browser: " + mlflow))
        with open(opened) as f:
            self.assertEqual(f.read(), mlflow + "\n")
        # i: the details of the selected run; any key goes back.
        self.keys("i")
        text = self.wait_screen(r"(?s)Run %d\n.*State message" % newest)
        self.assertIn("exp-39", text)
        self.assertIn("Dashboard       %s/jobs/runs/%d" % (self.fw.url, newest), text)
        self.assertIn("MLflow run URL  " + mlflow, text)
        self.keys("x")
        self.wait_screen(r"Runs 1-18 of")
        # L: the run's log lines as they are now.
        self.keys("L")
        # The title is drawn before the lines arrive: wait for the last one.
        text = self.wait_screen(r"(?s)Logs of run %d \(node 0\).*hello 2" % newest)
        self.assertEqual([l for l in text.splitlines() if l.startswith("hello ")],
                         ["hello 0", "hello 1", "hello 2"])
        self.keys("x")
        self.wait_screen(r"Runs 1-18 of")
        # Another run, without MLflow ids yet: its Jobs page.
        self.keys("j", "Enter")
        self.wait_screen(re.escape("Opened in the browser: %s/jobs/runs/%d" % (self.fw.url,
                                                                               self.ids[-2])))
        self.keys("q")
        rc, err = self.wait_exit()
        self.assertEqual((rc, err), (0, ""))

        # No browser can be started: the URL is shown instead.
        self.restart()
        del self.vars["BROWSER"]
        self.vars["PATH"] = self.tmp.name  # no xdg-open there
        self.start()
        self.wait_screen(r"\[%d\]" % newest)
        self.keys("Enter")
        self.wait_screen(re.escape("MLflow run: %s   (no browser could be started" % mlflow))
        self.keys("q")
        self.assertEqual(self.wait_exit(), (0, ""))

    def test_ctrl_c_in_the_view_and_during_a_fetch(self):
        self.start()
        self.wait_screen(r"Runs 1-10 of")
        self.keys("C-c")
        rc, err = self.wait_exit()
        self.assertEqual(rc, 1)
        self.assertIn("Error: interrupted", err)
        # a fetch stuck on a slow page ends at once too
        self.restart()
        self.fw.fault(method="GET", path="/api/2.2/jobs/runs/list", action="delay", delay_ms=60000,
                      after=1, times=-1)
        self.start()
        self.wait_screen(r"Runs 1-10 of")
        self.keys("Space")
        self.wait_screen(r"loading\.\.\.")
        t0 = time.monotonic()
        self.keys("C-c")
        rc, err = self.wait_exit()
        self.assertLess(time.monotonic() - t0, 10)  # the page is delayed 60 s
        self.assertEqual(rc, 1)
        self.assertIn("Error: interrupted", err)

    def test_plain_output_on_a_dumb_terminal_with_limit_or_json(self):
        for args, term, rows in ((["--limit", "5"], None, 5), ([], "dumb", 20)):
            self.restart()
            self.start(*args, term=term)
            rc, err = self.wait_exit()  # nothing to press: it ends by itself
            self.assertEqual((rc, err), (0, ""), args)
            lines = [l for l in self.screen(history=True).splitlines() if l.strip()]
            lines = [l for l in lines if not l.startswith("Pane is dead")]
            self.assertEqual(lines[0].split()[:3], ["Run", "ID", "Experiment"], lines)
            self.assertEqual(len(lines), 1 + rows, lines)
            self.assertTrue(lines[1].startswith("%d " % self.ids[-1]))
        self.restart()
        self.start("-o", "json")
        rc, err = self.wait_exit()
        self.assertEqual((rc, err), (0, ""))
        self.assertIn('"run_id": "%d"' % self.ids[-1], self.screen(history=True))

    def test_no_runs(self):
        self.fw.reset()
        self.start()
        rc, err = self.wait_exit()
        self.assertEqual((rc, err), (0, ""))
        self.assertIn("No runs found.", self.screen(history=True))


if __name__ == "__main__":
    unittest.main(verbosity=2)

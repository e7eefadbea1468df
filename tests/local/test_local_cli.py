"""The local workspace end to end through the `air` command line: two nodes
that rendezvous over MASTER_ADDR/MASTER_PORT, cancel and log following from
other processes, retries, timeouts, idempotency keys, secrets, a killed
supervisor and a killed `air`, the --local flag and profiles, and the
quickstart's local demo.

Every test has its own state directory. Nothing depends on the machine's
speed: tests wait for states and files, and PATIENCE_S only ends a hang."""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest

AIR = os.environ.get("AIR_CLI", "air")
SRC = os.environ.get("AIR_SOURCE_ROOT", os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
PATIENCE_S = 120
TERMINAL = ("SUCCESS", "FAILED", "CANCELED", "TIMEDOUT")

RENDEZVOUS = r'''
import os, socket, time
addr, port = os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"])
rank, nodes = int(os.environ["NODE_RANK"]), int(os.environ["NUM_NODES"])
if rank == 0:
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind((addr, port))
    srv.listen(nodes)
    for _ in range(nodes - 1):
        conn, _ = srv.accept()
        peer = int(conn.recv(16).decode())
        conn.sendall(b"welcome %d" % peer)
        print("rank 0 met rank %d" % peer, flush=True)
else:
    give_up = time.monotonic() + 120
    while True:
        try:
            s = socket.create_connection((addr, port))
            break
        except OSError:
            if time.monotonic() > give_up:
                raise
            time.sleep(0.05)
    s.sendall(str(rank).encode())
    print("rank %d got: %s" % (rank, s.recv(64).decode()), flush=True)
'''


def read(path):
    with open(path) as f:
        return f.read()


def yaml_of(command, name="local-test", nodes=1, extra=""):
    body = "\n".join("  " + line for line in command.strip("\n").split("\n"))
    return ("experiment_name: %s\n"
            "compute: {accelerator_type: GPU_1xA10, num_accelerators: %d}\n"
            "command: |\n%s\n%s" % (name, nodes, body, extra))


class Proc:
    """An `air` process whose output threads collect."""

    def __init__(self, args, env):
        self.p = subprocess.Popen([AIR, *args], env=env, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  start_new_session=True)
        self.out, self.err = bytearray(), bytearray()
        self.cond = threading.Condition()
        self.threads = [threading.Thread(target=self._read, args=(s, b), daemon=True)
                        for s, b in ((self.p.stdout, self.out), (self.p.stderr, self.err))]
        for t in self.threads:
            t.start()

    def _read(self, stream, buf):
        for chunk in iter(lambda: stream.read1(4096), b""):
            with self.cond:
                buf.extend(chunk)
                self.cond.notify_all()

    def wait_output(self, pattern):
        """The first match of @pattern in stdout, waiting for it."""
        deadline = time.monotonic() + PATIENCE_S
        with self.cond:
            while True:
                m = re.search(pattern, self.out.decode(errors="replace"))
                if m or self.p.poll() is not None or time.monotonic() > deadline:
                    return m
                self.cond.wait(0.05)

    def finish(self):
        rc = self.p.wait(PATIENCE_S)
        for t in self.threads:
            t.join()
        self.p.stdout.close()
        self.p.stderr.close()
        return rc, self.out.decode(), self.err.decode()


class LocalTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="air-local-")
        self.state = os.path.join(self.tmp, "state")
        env = {k: v for k, v in os.environ.items() if not k.startswith("DATABRICKS_")}
        env.update(DATABRICKS_HOST="local://" + self.state, DATABRICKS_CONFIG_FILE="/dev/null",
                   AIR_LOGS_POLL_MS="100")
        self.env = env

    def tearDown(self):
        self.air("cancel", "--all", "--yes")
        for run in self.runs():
            self.wait_state(run["run_id"], TERMINAL)
        for log in self.supervisor_logs():
            text = read(log)
            self.assertEqual(text, "", "%s: %s" % (log, text))
        shutil.rmtree(self.tmp, ignore_errors=True)

    # ---- helpers ----------------------------------------------------------------------

    def air(self, *args, env=None, check=None):
        p = subprocess.run([AIR, *args], env=env or self.env, stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, timeout=PATIENCE_S)
        if check is not None:
            self.assertEqual(p.returncode, check, "air %s:\n%s\n%s" % (" ".join(args), p.stdout,
                                                                      p.stderr))
        return p

    def write(self, name, text):
        path = os.path.join(self.tmp, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        return path

    def run_yaml(self, yaml, *args, check=None, env=None):
        return self.air("run", "-f", self.write("workload.yaml", yaml), *args, env=env,
                        check=check)

    def submit(self, yaml, *args):
        out = self.run_yaml(yaml, *args, check=0).stdout
        return re.search(r"Job Run ID: (\d+)", out).group(1)

    def get(self, run_id):
        p = self.air("get", run_id, "-o", "json", check=0)
        return json.loads(p.stdout)["data"]

    def runs(self):
        p = self.air("list", "--all-status", "--limit", "100", "-o", "json")
        return json.loads(p.stdout)["data"]["runs"] if p.returncode == 0 else []

    def wait_state(self, run_id, states):
        deadline = time.monotonic() + PATIENCE_S
        while time.monotonic() < deadline:
            status = self.get(run_id)["status"]
            if status in states:
                return status
            time.sleep(0.05)
        self.fail("run %s never reached %s" % (run_id, states))

    def wait_file(self, path):
        deadline = time.monotonic() + PATIENCE_S
        while time.monotonic() < deadline:
            if os.path.exists(path):
                with open(path) as f:
                    text = f.read()
                if text.endswith("\n"):
                    return text.strip()
            time.sleep(0.05)
        self.fail("%s never appeared" % path)

    def wait_gone(self, pid):
        """Until @pid has ended (a zombie has: reaping it is its new parent's business)."""
        deadline = time.monotonic() + PATIENCE_S
        while time.monotonic() < deadline:
            try:
                os.kill(pid, 0)
                with open("/proc/%d/stat" % pid) as f:
                    if f.read().rpartition(")")[2].split()[0] == "Z":
                        return
            except (ProcessLookupError, FileNotFoundError):
                return
            time.sleep(0.05)
        self.fail("process %d is still running" % pid)

    def supervisors(self):
        """The pids of the supervisor programs of this state directory."""
        pids = []
        for entry in os.listdir("/proc"):
            try:
                with open("/proc/%s/cmdline" % entry, "rb") as f:
                    args = f.read().split(b"\0")
            except OSError:
                continue
            if (entry.isdigit() and len(args) > 2 and args[0].endswith(b"air-local-supervisor")
                    and args[1] == self.state.encode()):
                pids.append(int(entry))
        return pids

    def wait_no_supervisor(self):
        """Until no supervisor of this state directory is left (scanned again
        after each one ends: a launcher forks the supervisor before it
        exits). One still in its exec has no command line yet and is not
        seen: wait first for something it does."""
        deadline = time.monotonic() + PATIENCE_S
        while time.monotonic() < deadline:
            pids = self.supervisors()
            if not pids:
                return
            for pid in pids:
                self.wait_gone(pid)
        self.fail("a supervisor of %s is still running" % self.state)

    def status_file(self, run_id):
        with open(os.path.join(self.state, "jobs", "runs", str(run_id), "status.json")) as f:
            return json.load(f)

    def supervisor_logs(self, state=None):
        runs = os.path.join(state or self.state, "jobs", "runs")
        if not os.path.isdir(runs):
            return []
        return [os.path.join(runs, d, "supervisor.log") for d in os.listdir(runs)
                if os.path.exists(os.path.join(runs, d, "supervisor.log"))]

    def shim_env(self, **extra):
        """This test's environment with tests/local/kill_after_spawn.so, set
        on the supervisor (its variables in @extra)."""
        shim = os.path.join(os.environ["AIR_BUILD_ROOT"], "tests", "local", "kill_after_spawn.so")
        # The shim comes before a sanitizer's runtime in the library list.
        return dict(self.env, LD_PRELOAD=shim, AIR_TEST_KILL_AFTER_SPAWN_OF="air-local-supervisor",
                    ASAN_OPTIONS=":".join(filter(None, [os.environ.get("ASAN_OPTIONS"),
                                                        "verify_asan_link_order=0"])), **extra)

    def long_command(self):
        """A node that records the pid of a background child, then waits on it."""
        pids = os.path.join(self.tmp, "pid-")
        return ("sleep 300 &\necho $! > %s$NODE_RANK.tmp && mv %s$NODE_RANK.tmp %s$NODE_RANK\n"
                "echo started\nwait\n" % (pids, pids, pids)), pids

    # ---- tests ------------------------------------------------------------------------

    def test_two_nodes_rendezvous_over_master_addr_and_port(self):
        self.write("code/rendezvous.py", RENDEZVOUS)
        yaml = yaml_of('"${PYTHON:-python3}" "$CODE_SOURCE_PATH/rendezvous.py"', nodes=2,
                       extra="code_source: {root_path: code}\nmax_retries: 0\n")
        p = self.run_yaml(yaml, "--watch", check=0)
        self.assertIn("rank 0 met rank 1", p.stdout)
        run_id = re.search(r"Job Run ID: (\d+)", p.stdout).group(1)
        node1 = self.air("logs", run_id, "--node", "1", check=0).stdout
        self.assertIn("rank 1 got: welcome 1", node1)
        # Every node's log, downloaded as from a workspace.
        dest = os.path.join(self.tmp, "download")
        self.air("logs", run_id, "--download-to", dest, check=0)
        with open(os.path.join(dest, "logs", "node_1.log")) as f:
            self.assertIn("rank 1 got: welcome 1", f.read())
        self.assertEqual(self.get(run_id)["status"], "SUCCESS")

    def test_cancel_from_another_process_stops_the_nodes(self):
        command, pids = self.long_command()
        run_id = self.submit(yaml_of(command, nodes=2))
        children = [int(self.wait_file(pids + str(n))) for n in (0, 1)]
        self.assertEqual(self.get(run_id)["status"], "RUNNING")
        self.air("cancel", run_id, check=0)
        self.assertEqual(self.wait_state(run_id, TERMINAL), "CANCELED")
        for pid in children:
            self.wait_gone(pid)

    def test_cancel_of_a_sweep_returns_once_its_runs_have_ended(self):
        # A local sweep may start its next variant as a run ends; `air cancel
        # --sweep` looks until the runs it cancelled have ended, so none is
        # left going (or stopping) when it returns.
        command, pids = self.long_command()
        path = self.write("sweep.yaml", yaml_of(command, extra="env_variables: {V: none}\n"))
        self.air("sweep", "-f", path, "--grid", "env_variables.V=a,b", "--max-parallel", "2",
                 "--idempotency-key", "s1", check=0)
        self.wait_file(pids + "0")
        p = self.air("cancel", "--sweep", "s1", "-y", "-o", "json", check=0)
        self.assertEqual(len(json.loads(p.stdout)["data"]["cancelled"]), 2, p.stderr)
        listed = json.loads(self.air("list", "--sweep", "s1", "-o", "json", check=0).stdout)
        self.assertEqual([r["status"] for r in listed["data"]["runs"]], ["CANCELED", "CANCELED"])

    def test_a_sweep_cancelled_while_it_waits_says_so(self):
        command, pids = self.long_command()
        path = self.write("sweep.yaml", yaml_of(command, extra="env_variables: {V: none}\n"))
        sweep = subprocess.Popen([AIR, "sweep", "-f", path, "--grid", "env_variables.V=a,b",
                                  "--idempotency-key", "s2"], env=self.env,
                                 stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
        try:
            self.wait_file(pids + "0")
            self.air("cancel", "--sweep", "s2", "-y", check=0)
            out, err = sweep.communicate(timeout=PATIENCE_S)
        finally:
            if sweep.poll() is None:
                sweep.kill()
                sweep.wait()
        self.assertEqual(sweep.returncode, 1, err)
        self.assertIn("Sweep s2: `air cancel --sweep s2` stops it.", err)
        self.assertIn("The sweep was stopped: the variants not submitted stay so", err)
        # The stop, whether the sweep saw its run cancelled or the mark first.
        self.assertIn("1 variant was not submitted: sweep s2 was stopped.", err)
        self.assertNotIn("Error: variant", err)
        self.assertNotIn("The runs keep going", err)
        # Run again: nothing new, and the run it has is shown.
        p = self.air("sweep", "-f", path, "--grid", "env_variables.V=a,b", "--idempotency-key",
                     "s2", check=1)
        self.assertRegex(p.stdout, r"(?m)^0 +V=a +1 +CANCELED$")
        self.assertRegex(p.stdout, r"(?m)^1 +V=b +- +NOT SUBMITTED$")
        self.assertIn("1 variant was not submitted: sweep s2 was stopped.", p.stderr)

    def test_an_interrupted_sweep_says_how_to_submit_the_rest(self):
        # Ctrl-C while the sweep waits for a place: the variant left is not
        # an error of its own, and the tip names the key that submits it.
        command, pids = self.long_command()
        path = self.write("sweep.yaml", yaml_of(command, extra="env_variables: {V: none}\n"))
        sweep = Proc(["sweep", "-f", path, "--grid", "env_variables.V=a,b",
                      "--idempotency-key", "s5"], self.env)
        self.wait_file(pids + "0")
        os.kill(sweep.p.pid, signal.SIGINT)
        rc, out, err = sweep.finish()
        self.assertEqual(rc, 1, err)
        self.assertRegex(out, r"(?m)^1 +V=b +- +NOT SUBMITTED$")
        self.assertIn("1 variant was not submitted: the sweep was interrupted before it.", err)
        self.assertIn("The same `air sweep` with --idempotency-key s5 submits the variants not "
                      "submitted; those submitted keep their runs.", err)
        self.assertNotIn("Error: variant", err)

    def test_a_stopped_sweep_starts_nothing(self):
        # `air cancel --sweep` with no active run stops the sweep all the
        # same: an `air sweep` of it (there between two runs, here not yet
        # started) starts no run.
        p = self.air("cancel", "--sweep", "s4", "-y", check=0)
        self.assertIn("Sweep s4 is stopped", p.stderr)
        path = self.write("sweep.yaml", yaml_of("true", extra="env_variables: {V: none}\n"))
        p = self.air("sweep", "-f", path, "--grid", "env_variables.V=a,b",
                     "--idempotency-key", "s4", check=1)
        self.assertIn("not submitted: sweep s4 was stopped", p.stderr)
        listed = json.loads(self.air("list", "--sweep", "s4", "-o", "json", check=0).stdout)
        self.assertEqual(listed["data"]["runs"], [])

    def test_follow_logs_from_a_second_process(self):
        go = os.path.join(self.tmp, "go")
        command = ("echo waiting\nwhile [ ! -e %s ]; do sleep 0.05; done\n"
                   "for i in 1 2 3 4 5; do echo line-$i; done\n" % go)
        run_id = self.submit(yaml_of(command))
        follower = Proc(["logs", run_id], self.env)
        self.assertTrue(follower.wait_output("waiting"))
        open(go, "w").close()
        rc, out, err = follower.finish()
        self.assertEqual(rc, 0, err)
        lines = [line for line in out.splitlines() if line.startswith("line-")]
        self.assertEqual(lines, ["line-%d" % i for i in range(1, 6)])
        # The same logs, read back: a tail, and the last hour.
        self.assertEqual(self.air("logs", run_id, "--tail", "2", check=0).stdout,
                         "line-4\nline-5\n")
        self.assertIn("line-3\n", self.air("logs", run_id, "--minutes", "60", check=0).stdout)

    def test_logs_of_a_finished_run_come_whole_and_load_no_network_library(self):
        # Lines longer and shorter than the times they follow, a blank one,
        # and enough of them to fill several blocks of the node log.
        command = ("echo first; echo; printf '%0300d\\n' 7\n"
                   "seq 1 200000\necho last\n")
        run_id = self.submit(yaml_of(command), "--watch")
        want = "first\n\n" + "0" * 299 + "7\n" + "".join(
            "%d\n" % i for i in range(1, 200001)) + "last\n"
        out = self.air("logs", run_id, "--tail", "300000", check=0).stdout
        # (the local workspace's own notes come first: no such GPU here)
        self.assertEqual(re.sub(r"(?m)^\[air local\] .*\n", "", out), want)
        p = self.air("logs", run_id, "--tail", "3", check=0)
        self.assertEqual(p.stdout, "199999\n200000\nlast\n")
        self.assertEqual(p.stderr, "")
        # Without --tail, the last 10000 lines, and a word on stderr that
        # there may be more (it cannot tell a log of just 10000 lines).
        p = self.air("logs", run_id, check=0)
        self.assertEqual(p.stdout, "".join("%d\n" % i for i in range(190002, 200001)) + "last\n")
        self.assertEqual(p.stderr, "(at most the last 10000 lines: --tail N for more)\n")
        # JSON events still come one per record.
        events = [json.loads(line) for line in
                  self.air("logs", run_id, "--tail", "2", "-o", "json", check=0).stdout.split()]
        self.assertEqual([e["line"] for e in events if e["type"] == "LOG"], ["200000", "last"])
        # A local workspace needs neither libcurl nor libarchive; a
        # Databricks host loads libcurl when its URL is first read (this
        # plain http:// one is then refused before any connection).
        env = dict(self.env, LD_DEBUG="files")
        loaded = self.air("logs", run_id, "--tail", "1", env=env, check=0).stderr
        self.assertNotIn("libcurl", loaded)
        self.assertNotIn("libarchive", loaded)
        env = dict(env, DATABRICKS_HOST="http://10.0.0.1", DATABRICKS_TOKEN="x")
        p = self.air("list", env=env)
        self.assertIn("file=libcurl", p.stderr)
        self.assertIn("refusing to send credentials over plain http://", p.stderr)

    def test_a_failing_node_restarts_the_attempt(self):
        marker = os.path.join(self.tmp, "failed-once")
        command = ('if [ "$NODE_RANK" = 1 ] && [ ! -e %s ]; then\n'
                   '  touch %s; echo failing; exit 3\nfi\necho "fine on node $NODE_RANK"\n'
                   % (marker, marker))
        p = self.run_yaml(yaml_of(command, nodes=2, extra="max_retries: 1\n"), "--watch",
                          check=0)
        run_id = re.search(r"Job Run ID: (\d+)", p.stdout).group(1)
        run = self.get(run_id)
        self.assertEqual((run["status"], run["attempt_number"]), ("SUCCESS", 1))
        first = self.air("logs", run_id, "--node", "1", "--retry", "0", check=0).stdout
        self.assertIn("failing", first)
        latest = self.air("logs", run_id, "--node", "1", check=0).stdout
        self.assertIn("fine on node 1", latest)
        self.assertNotIn("failing", latest)
        self.air("logs", run_id, "--retry", "2", check=1)

    def test_an_attempt_past_timeout_minutes_is_timedout(self):
        env = dict(self.env, AIR_LOCAL_MINUTE_MS="300")
        p = self.run_yaml(yaml_of("sleep 300", extra="timeout_minutes: 1\nmax_retries: 0\n"),
                          "--watch", env=env, check=1)
        run_id = re.search(r"Job Run ID: (\d+)", p.stdout).group(1)
        self.assertEqual(self.get(run_id)["status"], "TIMEDOUT")

    def test_a_python_error_is_shown_with_its_traceback(self):
        command = ('echo "loading data"\n'
                   '"${PYTHON:-python3}" -c \'print("step 1", flush=True); 1 / 0\'\n')
        p = self.run_yaml(yaml_of(command, extra="max_retries: 0\n"), "--watch", check=1)
        run_id = re.search(r"Job Run ID: (\d+)", p.stdout).group(1)
        self.assertIn("ZeroDivisionError: division by zero", p.stdout)
        block = p.stderr[p.stderr.index("Run %s " % run_id):].splitlines()
        self.assertEqual(block[0], "Run %s FAILED (attempt 1 of 1, node 0): node 0 exited with "
                                   "status 1" % run_id)
        self.assertEqual(block[1], "Last traceback in the log of node 0:")
        self.assertEqual(block[-2], "  ZeroDivisionError: division by zero")
        self.assertEqual(block[-1], "The whole log: air logs %s --node 0 --retry 0" % run_id)
        data = self.get(run_id)
        self.assertEqual(data["state_message"], "node 0 exited with status 1")
        self.assertEqual(data["failure"]["excerpt"][-1], "ZeroDivisionError: division by zero")
        self.assertEqual((data["failure"]["node"], data["failure"]["attempt"]), (0, 0))
        text = self.air("get", run_id, check=0).stdout
        self.assertIn("ZeroDivisionError: division by zero", text)
        self.assertIn("node 0 exited with status 1", text)

    def test_the_failure_block_follows_the_log_through_one_pipe(self):
        # `air run --watch 2>&1 | tee log` in CI: stdout is a pipe, fully
        # buffered; the block on stderr must still come after the last line.
        command = 'for i in 1 2 3; do echo "line $i"; done\nexit 3\n'
        path = self.write("workload.yaml", yaml_of(command, extra="max_retries: 0\n"))
        p = subprocess.run([AIR, "run", "-f", path, "--watch"], env=self.env,
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=PATIENCE_S)
        self.assertEqual(p.returncode, 1, p.stdout)
        lines = p.stdout.splitlines()
        last_log = max(i for i, line in enumerate(lines) if line == "line 3")
        block = next(i for i, line in enumerate(lines) if " FAILED (attempt 1 of 1" in line)
        self.assertLess(last_log, block, p.stdout)

    def test_watch_marks_where_each_attempt_begins(self):
        # Each attempt waits for the watcher (attempt 1 until its line was
        # shown, attempt 2 until the rule was): the order is not timing's.
        gate = os.path.join(self.tmp, "gate")
        command = ('wait_for() { for i in $(seq 2400); do [ -e "%s.$1" ] && return; '
                   'sleep 0.05; done; exit 9; }\n'
                   'if [ ! -e %s.tried ]; then touch %s.tried; echo one; wait_for seen; exit 3; fi\n'
                   'wait_for go; echo two\n' % (gate, gate, gate))
        path = self.write("workload.yaml", yaml_of(command, extra="max_retries: 1\n"))
        for json_mode in (False, True):
            if json_mode:
                os.unlink(gate + ".tried")
                os.unlink(gate + ".seen")
                os.unlink(gate + ".go")
            watcher = Proc((["-o", "json"] if json_mode else []) + ["run", "-f", path, "--watch"],
                           self.env)
            self.assertTrue(watcher.wait_output(r'"line":"one"' if json_mode else r"\none\n"))
            open(gate + ".seen", "w").close()
            self.assertTrue(watcher.wait_output(r'"type":"ATTEMPT".*"attempt":1' if json_mode
                                                else r"= Attempt 2 \(--retry 1\) ="))
            open(gate + ".go", "w").close()
            rc, out, err = watcher.finish()
            self.assertEqual(rc, 0, out + err)
            if json_mode:
                events = [json.loads(line) for line in out.splitlines() if line.startswith('{"type')]
                kinds = [(e["type"], e.get("line", e.get("attempt"))) for e in events
                         if e["type"] in ("ATTEMPT", "LOG") and "[air local]" not in e.get("line", "")]
                self.assertEqual(kinds, [("LOG", "one"), ("ATTEMPT", 1), ("LOG", "two")])
            else:
                lines = [line for line in out.splitlines() if "[air local]" not in line]
                start = lines.index("one")
                self.assertEqual(lines[start:start + 3], ["one", "=" * 18 + " Attempt 2 (--retry 1) "
                                                          + "=" * 19, "two"])

    def test_an_idempotency_key_gives_back_the_same_run(self):
        yaml = yaml_of("echo once")
        first = self.submit(yaml, "--idempotency-key", "nightly-1")
        again = self.submit(yaml, "--idempotency-key", "nightly-1")
        self.assertEqual(first, again)
        self.wait_state(first, TERMINAL)
        self.assertEqual([r["run_id"] for r in self.runs()], [first])

    def test_launch_files_are_the_runs_own_and_the_run_id_counter_written_in_place(self):
        """A run's launch files are its own copies: a workload that writes its
        script in place changes neither the uploaded file nor another run's.
        last_run_id is written in place: no file made or deleted."""
        first = self.submit(yaml_of("echo one"))
        counter = os.path.join(self.state, "last_run_id")
        inode = os.stat(counter).st_ino
        run_id = self.submit(yaml_of('echo "# touched $((6 * 7))" >> "$0"\necho two'))
        self.assertEqual(os.stat(counter).st_ino, inode)
        with open(counter) as f:
            self.assertEqual(f.read(), "%s\n" % run_id)
        # A counter with another name (a hard link) is replaced, never written.
        elsewhere = self.write("notes.txt", "my notes\n")
        os.unlink(counter)
        os.link(elsewhere, counter)
        self.submit(yaml_of("echo three"))
        self.assertEqual(read(elsewhere), "my notes\n")
        self.assertEqual(read(counter), "%d\n" % (int(run_id) + 1))
        self.assertEqual(int(run_id), int(first) + 1)
        self.assertEqual(self.wait_state(run_id, TERMINAL), "SUCCESS")
        run_dir = os.path.join(self.state, "jobs", "runs", run_id)
        with open(os.path.join(run_dir, "run.json")) as f:
            command_path = json.load(f)["command_path"]
        with open(os.path.join(run_dir, "launch", "command.sh")) as f:
            self.assertIn("# touched 42", f.read())
        with open(os.path.join(self.state, "workspace", command_path.lstrip("/"))) as f:
            self.assertNotIn("# touched 42", f.read())

    def test_run_ids_never_wrap_around(self):
        """A counter at the end of the run ids refuses the submission, saying
        so, instead of wrapping around to negative ids."""
        self.submit(yaml_of("echo one"))
        with open(os.path.join(self.state, "last_run_id"), "w") as f:
            f.write("9223372036854775000\n")
        p = self.run_yaml(yaml_of("echo two"), check=None)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("cannot give out a run id", p.stderr)
        self.assertEqual(len(self.runs()), 1)

    def test_secrets_missing_fail_before_start_and_are_never_printed(self):
        yaml = yaml_of('echo "token is $AIR_TEST_TOKEN"', extra="secrets:\n"
                       "  AIR_TEST_TOKEN: ml-team/hf-token\n")
        env = {k: v for k, v in self.env.items() if k != "AIR_TEST_TOKEN"}
        p = self.run_yaml(yaml, "--watch", env=env, check=1)
        self.assertIn("AIR_TEST_TOKEN", p.stderr)
        self.assertIn("ml-team/hf-token", p.stderr)
        self.assertEqual(self.runs(), [])
        value = "hf_local_value_1234"
        p = self.run_yaml(yaml, "--watch", "--debug", env=dict(env, AIR_TEST_TOKEN=value),
                          check=0)
        self.assertIn("token is [REDACTED]", p.stdout)
        self.assertNotIn(value, p.stdout + p.stderr)
        run_id = re.search(r"Job Run ID: (\d+)", p.stdout).group(1)
        for path, _, files in os.walk(os.path.join(self.state, "jobs", "runs", run_id)):
            for name in files:
                with open(os.path.join(path, name), "rb") as f:
                    self.assertNotIn(value.encode(), f.read(), os.path.join(path, name))

    def test_a_killed_supervisor_is_reported_and_takes_its_nodes(self):
        command, pids = self.long_command()
        run_id = self.submit(yaml_of(command, nodes=2))
        children = [int(self.wait_file(pids + str(n))) for n in (0, 1)]
        supervisor = self.status_file(run_id)["supervisor_pid"]
        os.kill(supervisor, signal.SIGKILL)
        self.wait_gone(supervisor)
        run = self.get(run_id)
        self.assertEqual(run["status"], "FAILED")
        text = self.air("get", run_id, check=0).stdout
        self.assertIn("FAILED", text)
        self.assertIn("supervisor", self.status_file(run_id)["message"])
        for pid in children:
            self.wait_gone(pid)

    def test_a_supervisor_killed_while_it_prepares_is_reported_by_its_pid(self):
        """When preparing can take long (looking for GPUs can take seconds),
        the supervisor records its pid before it prepares the run: its death
        then is its own, not the submitting program's."""
        bin_dir = os.path.join(self.tmp, "bin")
        os.makedirs(bin_dir)
        smi = self.write("bin/nvidia-smi", "#!/bin/sh\nsleep %d\necho 0\n" % PATIENCE_S)
        os.chmod(smi, 0o700)
        env = dict(self.env, PATH=bin_dir + ":" + self.env.get("PATH", "/usr/bin:/bin"))
        run_id = re.search(r"Job Run ID: (\d+)",
                           self.run_yaml(yaml_of("echo never"), check=0, env=env).stdout).group(1)
        deadline = time.monotonic() + PATIENCE_S
        status = self.status_file(run_id)
        while "supervisor_pid" not in status and time.monotonic() < deadline:
            time.sleep(0.05)
            status = self.status_file(run_id)
        self.assertEqual(status["status_message"], "STATUS:Preparing the run")
        os.kill(status["supervisor_pid"], signal.SIGKILL)
        self.wait_gone(status["supervisor_pid"])
        self.assertEqual(self.wait_state(run_id, TERMINAL), "FAILED")
        self.assertIn("local supervisor of this run (pid %d)" % status["supervisor_pid"],
                      self.status_file(run_id)["message"])

    def test_a_submission_killed_as_its_supervisor_starts_keeps_its_key(self):
        """The supervisor starts while the run is made, and waits for its
        go-ahead: a submission killed as it launches the supervisor leaves no
        run (the supervisor exits untouched, and says why), and the same key
        then makes one. Killed once the run's folder is in place, before the
        go-ahead, it leaves a run that never started, which the same key
        gives back; killed just after the go-ahead, a run that the same key
        gives back, whose MLflow run is there for its workload. Never a
        second run: the idempotency record is written before the run's
        folder is in place."""
        meta = os.path.join(self.state, "mlruns", "$MLFLOW_EXPERIMENT_ID", "$MLFLOW_RUN_ID",
                            "meta.yaml")
        yaml = yaml_of("echo once\ngrep -q '^status: 1$' \"%s\" && echo mlflow-ready" % meta)
        env = self.shim_env()
        p = self.run_yaml(yaml, "--idempotency-key", "killed-1", env=env)
        self.assertEqual(p.returncode, -signal.SIGKILL, p.stderr)
        # Its line is waited for: a supervisor still in its exec has no
        # command line yet, and a scan of the processes can miss it.
        unfinished = os.path.join(self.state, "jobs", "runs", ".new-1", "supervisor.log")
        self.assertIn("no go-ahead from the submission", self.wait_file(unfinished))
        self.wait_no_supervisor()
        self.assertEqual(self.runs(), [])
        first = self.submit(yaml, "--idempotency-key", "killed-1")
        self.assertFalse(os.path.exists(unfinished))
        self.assertEqual([r["run_id"] for r in self.runs()], [first])
        self.assertEqual(self.wait_state(first, TERMINAL), "SUCCESS")

        p = self.run_yaml(yaml, "--idempotency-key", "killed-2",
                          env=dict(env, AIR_TEST_KILL_AFTER_RENAME_OF="/.new-"))
        self.assertEqual(p.returncode, -signal.SIGKILL, p.stderr)
        self.wait_no_supervisor()
        never = self.submit(yaml, "--idempotency-key", "killed-2")
        self.assertEqual(self.wait_state(never, TERMINAL), "FAILED")
        self.assertIn("did not take it over", self.status_file(never)["message"])
        log = os.path.join(self.state, "jobs", "runs", never, "supervisor.log")
        self.assertIn("no go-ahead from the submission", read(log))
        open(log, "w").close()  # said, and expected here

        p = self.run_yaml(yaml, "--idempotency-key", "killed-3",
                          env=dict(env, AIR_TEST_KILL_AFTER_GO="1"))
        self.assertEqual(p.returncode, -signal.SIGKILL, p.stderr)
        again = self.submit(yaml, "--idempotency-key", "killed-3")
        self.assertEqual(sorted((r["run_id"] for r in self.runs()), key=int),
                         [first, never, again])
        self.assertEqual(self.wait_state(again, TERMINAL), "SUCCESS")
        self.assertIn("mlflow-ready", self.air("logs", again, check=0).stdout)

    def test_a_supervisor_stops_waiting_once_its_submitter_is_gone(self):
        """A submission killed as it launched the supervisor, but whose copy
        forked without exec keeps the supervisor's socket open: the
        supervisor sees the submitter gone and exits without a go-ahead,
        instead of waiting for that copy."""
        pid_file = os.path.join(self.tmp, "copy.pid")
        env = self.shim_env(AIR_TEST_FORKED_PID_FILE=pid_file)
        p = self.run_yaml(yaml_of("echo never"), env=env)
        self.assertEqual(p.returncode, -signal.SIGKILL, p.stderr)
        copy = int(self.wait_file(pid_file))
        try:
            # Its line is waited for: a supervisor still in its exec has no
            # command line yet, and a scan of the processes can miss it.
            self.assertIn("no go-ahead from the submission",
                          self.wait_file(os.path.join(self.state, "jobs", "runs", ".new-1",
                                                      "supervisor.log")))
            self.wait_no_supervisor()
        finally:
            os.kill(copy, signal.SIGKILL)
        self.wait_gone(copy)
        run_id = self.submit(yaml_of("echo after"))
        self.assertEqual(self.wait_state(run_id, TERMINAL), "SUCCESS")

    def test_a_ctrl_c_as_the_supervisor_starts_does_not_reach_it(self):
        """The supervisor is in a session of its own from its start: a SIGINT
        to the submitter's process group right after it was started (a
        Ctrl-C at that moment) does not reach it, and the run goes on."""
        env = self.shim_env(AIR_TEST_INT_GROUP_AFTER_SPAWN="1")
        p = subprocess.run([AIR, "run", "-f", self.write("workload.yaml", yaml_of("echo went on"))],
                           env=env, capture_output=True, text=True, timeout=PATIENCE_S,
                           start_new_session=True)
        run_id = re.search(r"Job Run ID: (\d+)", p.stdout + p.stderr).group(1)
        self.assertEqual(self.wait_state(run_id, TERMINAL), "SUCCESS", self.get(run_id))
        self.assertIn("went on", self.air("logs", run_id, check=0).stdout)

    def test_a_killed_air_leaves_the_run_going(self):
        go = os.path.join(self.tmp, "go")
        command = "echo waiting\nwhile [ ! -e %s ]; do sleep 0.05; done\necho finished\n" % go
        watcher = Proc(["run", "-f", self.write("workload.yaml", yaml_of(command)), "--watch"],
                       self.env)
        run_id = watcher.wait_output(r"Job Run ID: (\d+)").group(1)
        self.assertTrue(watcher.wait_output("waiting"))
        os.kill(watcher.p.pid, signal.SIGKILL)
        watcher.finish()
        self.assertEqual(self.get(run_id)["status"], "RUNNING")
        open(go, "w").close()
        self.assertEqual(self.wait_state(run_id, TERMINAL), "SUCCESS")
        self.assertIn("finished", self.air("logs", run_id, check=0).stdout)

    def test_a_damaged_run_is_reported_and_the_others_still_list(self):
        first = self.submit(yaml_of("echo one", name="damaged"))
        second = self.submit(yaml_of("echo two", name="healthy"))
        for run_id in (first, second):
            self.wait_state(run_id, TERMINAL)
        path = os.path.join(self.state, "jobs", "runs", first, "status.json")
        text = read(path)
        with open(path, "w") as f:
            f.write(text[:len(text) // 2])  # truncated JSON
        p = self.air("get", first, check=1)
        self.assertIn("Run %s is damaged" % first, p.stderr)
        self.assertIn(path, p.stderr)
        self.assertIn("not valid JSON", p.stderr)
        self.assertNotIn("does not exist", p.stderr)
        for args in (["--all-status"], []):
            p = self.air("list", *args, check=0)
            self.assertIn("Run %s is damaged: %s" % (first, path), p.stderr)
            if args:
                self.assertRegex(p.stdout, r"\n%s\s+healthy\s+SUCCESS" % second)
        listed = json.loads(self.air("list", "--all-status", "-o", "json", check=0).stdout)
        self.assertEqual([r["run_id"] for r in listed["data"]["runs"]], [second])
        os.remove(path)  # the teardown lists what is left

    def test_a_full_disk_is_reported_without_a_torn_record(self):
        if os.geteuid() != 0 or not shutil.which("unshare"):
            self.skipTest("needs root and unshare(1) to mount a small tmpfs")
        probe = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c",
                                "mount -t tmpfs -o size=64k tmpfs %s" % self.tmp],
                               capture_output=True)
        if probe.returncode != 0:
            self.skipTest("cannot mount a tmpfs here: %s" % probe.stderr.decode().strip())
        disk, out = os.path.join(self.tmp, "disk"), os.path.join(self.tmp, "out")
        os.makedirs(disk)
        os.makedirs(out)
        state = os.path.join(disk, "state")
        # The disk fills only once "before" is in the node log (however slowly
        # the supervisor copies output), so that line is never one of the lost.
        yaml = self.write("full.yaml", yaml_of(
            "echo before\n"
            "until grep -qs ' before$' ../../logs/attempt_0/node_0.log; do sleep 0.05; done\n"
            "head -c 16M /dev/zero > fill 2> /dev/null || true\n"
            "for i in $(seq 1 300); do echo \"after the fill $i\"; done\n",
            extra="max_retries: 0\n"))
        # Everything that sees the disk runs in the mount namespace it lives in.
        script = ('mount -t tmpfs -o size=4m tmpfs "$DISK" || exit 99\n'
                  '"$AIR" run -f "$YAML" --watch > "$OUT/run.txt" 2>&1\n'
                  'id=$(sed -n "s/.*Job Run ID: \\([0-9]*\\).*/\\1/p" "$OUT/run.txt")\n'
                  'run="$STATE/jobs/runs/$id"\n'
                  'cp "$run/status.json" "$run/logs/attempt_0/node_0.log" "$OUT/"\n'
                  'ls -a "$run" > "$OUT/files"\n'
                  '"$AIR" get "$id" -o json > "$OUT/get.json"\n')
        env = dict(self.env, DATABRICKS_HOST="local://" + state, DISK=disk, OUT=out, YAML=yaml,
                   STATE=state, AIR=shutil.which(AIR) or AIR)
        p = subprocess.run(["unshare", "--mount", "--propagation", "private", "bash", "-c",
                            script], env=env, capture_output=True, text=True,
                           timeout=PATIENCE_S)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr + read(os.path.join(out, "run.txt")))
        status = json.loads(read(os.path.join(out, "status.json")))
        self.assertEqual((status["state"], status.get("result")), ("TERMINATED", "SUCCESS"))
        log = os.path.join(state, "jobs", "runs", "1", "logs", "attempt_0", "node_0.log")
        self.assertIn("cannot write %s: No space left on device" % log, status["message"])
        self.assertEqual(json.loads(read(os.path.join(out, "get.json")))["data"]["status"],
                         "SUCCESS")
        self.assertNotIn("status.reserve", read(os.path.join(out, "files")))
        text = read(os.path.join(out, "node_0.log"))
        self.assertTrue(text.endswith("\n"), "a torn record ends the log: %r" % text[-80:])
        for line in text.splitlines():
            self.assertRegex(line, r"^\d+ (before|after the fill \d+|\[air local\] .*)$")
        self.assertIn(" before\n", text)

    def test_a_disk_too_full_for_a_run_refuses_its_submission(self):
        """The reserve for a run's last status.json is made with its folder:
        a disk without room for it refuses the submission, and nothing of
        the run is left or started."""
        if os.geteuid() != 0 or not shutil.which("unshare"):
            self.skipTest("needs root and unshare(1) to mount a small tmpfs")
        disk, out = os.path.join(self.tmp, "disk"), os.path.join(self.tmp, "out")
        os.makedirs(disk)
        os.makedirs(out)
        state = os.path.join(disk, "state")
        marker = os.path.join(out, "ran")
        yaml = self.write("small.yaml", yaml_of("touch %s" % marker, extra="max_retries: 0\n"))
        script = ('mount -t tmpfs -o size=4m tmpfs "$DISK" || exit 99\n'
                  '"$AIR" run -f "$YAML" --watch > "$OUT/first.txt" 2>&1 || exit 98\n'
                  'rm -f "$MARKER"\n'
                  'avail=$(df -k --output=avail "$DISK" | tail -1)\n'
                  'head -c $(( (avail - 64) * 1024 )) /dev/zero > "$DISK/fill"\n'
                  '"$AIR" run -f "$YAML" --watch > "$OUT/second.txt" 2>&1\n'
                  'echo $? > "$OUT/rc"\n'
                  'ls -a "$STATE/jobs/runs" > "$OUT/runs"\n')
        env = dict(self.env, DATABRICKS_HOST="local://" + state, DISK=disk, OUT=out, YAML=yaml,
                   STATE=state, MARKER=marker, AIR=shutil.which(AIR) or AIR)
        p = subprocess.run(["unshare", "--mount", "--propagation", "private", "bash", "-c",
                            script], env=env, capture_output=True, text=True,
                           timeout=PATIENCE_S)
        if p.returncode == 99:
            self.skipTest("cannot mount a tmpfs here: %s" % p.stderr.strip())
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        second = read(os.path.join(out, "second.txt"))
        self.assertEqual(read(os.path.join(out, "rc")).strip(), "1", second)
        self.assertIn("cannot create the run's folder: No space left on device", second)
        self.assertEqual(read(os.path.join(out, "runs")).split(), [".", "..", "1"])
        self.assertFalse(os.path.exists(marker))

    def test_local_flag_and_profiles_select_a_local_workspace(self):
        env = {k: v for k, v in self.env.items() if k != "DATABRICKS_HOST"}
        env["XDG_STATE_HOME"] = os.path.join(self.tmp, "xdg")
        yaml = yaml_of("echo hello from the default state directory")
        p = self.run_yaml(yaml, "--local", "--watch", env=env, check=0)
        self.assertIn("hello from the default state directory", p.stdout)
        default = os.path.join(self.tmp, "xdg", "air", "local")
        self.assertTrue(os.path.isdir(os.path.join(default, "jobs", "runs", "1")))
        self.assertEqual([read(f) for f in self.supervisor_logs(default)], [""])
        # A profile whose host is local:///dir.
        other = os.path.join(self.tmp, "profile-state")
        cfg = self.write("databrickscfg", "[DEFAULT]\nhost = local://%s\n" % other)
        env = dict(env, DATABRICKS_CONFIG_FILE=cfg)
        self.run_yaml(yaml_of("echo via a profile"), "--watch", env=env, check=0)
        self.assertTrue(os.path.isdir(os.path.join(other, "jobs", "runs", "1")))
        listing = self.air("list", "--all-status", env=env, check=0).stdout
        self.assertIn("local-test", listing)
        self.assertIn("SUCCESS", listing)

    def test_a_state_directory_of_another_user_is_refused_not_taken_for_empty(self):
        run_id = self.submit(yaml_of("true"))
        self.wait_state(run_id, TERMINAL)
        if os.geteuid() == 0:
            # root without the capabilities that pass over file permissions
            os.chown(self.state, 65534, 65534)
            prefix = ["setpriv", "--inh-caps", "-all", "--bounding-set",
                      "-dac_override,-dac_read_search", "--"]
        else:
            prefix = []
        os.chmod(self.state, 0o700 if prefix else 0)
        try:
            for args in (["list", "--all-status"], ["cancel", "--all", "--yes"], ["get", run_id]):
                p = subprocess.run([*prefix, AIR, *args], env=self.env, stdin=subprocess.DEVNULL,
                                   capture_output=True, text=True, timeout=PATIENCE_S)
                self.assertEqual(p.returncode, 1, "%s: %s%s" % (args, p.stdout, p.stderr))
                self.assertIn("local workspace %s: Permission denied (its state directory is "
                              "not yours to read)" % self.state, p.stderr)
                self.assertNotIn("No runs found", p.stdout + p.stderr)
                self.assertNotIn("databricks auth describe", p.stderr)
        finally:
            os.chown(self.state, os.geteuid(), os.getegid())
            os.chmod(self.state, 0o700)
        # Its runs folder alone unreadable: an error too, not an empty list.
        runs = os.path.join(self.state, "jobs", "runs")
        if prefix:
            os.chown(runs, 65534, 65534)
        os.chmod(runs, 0o700 if prefix else 0)
        try:
            for args in (["list", "--all-status"], ["cancel", "--all", "--yes"]):
                p = subprocess.run([*prefix, AIR, *args], env=self.env, stdin=subprocess.DEVNULL,
                                   capture_output=True, text=True, timeout=PATIENCE_S)
                self.assertEqual(p.returncode, 1, "%s: %s%s" % (args, p.stdout, p.stderr))
                self.assertIn("cannot read its runs (jobs/runs): Permission denied", p.stderr)
                self.assertNotIn("No runs found", p.stdout + p.stderr)
                self.assertNotIn("No active runs found", p.stdout + p.stderr)
        finally:
            os.chown(runs, os.geteuid(), os.getegid())
            os.chmod(runs, 0o700)
        # A file where the state directory should be: said so, not a refusal.
        afile = self.write("not-a-folder", "x")
        p = self.air("list", "--all-status", env=dict(self.env, DATABRICKS_HOST="local://" + afile),
                     check=1)
        self.assertIn("local workspace %s: Not a directory (the state directory is a file)" % afile,
                      p.stderr)

    def test_suggested_commands_name_the_workspace_of_the_command_line(self):
        # The failure block's "whole log" command works as printed: it
        # carries --local, or the profile, of the command line it ends.
        env = {k: v for k, v in self.env.items() if k != "DATABRICKS_HOST"}
        env["XDG_STATE_HOME"] = os.path.join(self.tmp, "xdg")
        failing = yaml_of("echo about to fail; exit 3", extra="max_retries: 0\n")
        p = self.run_yaml(failing, "--local", "--watch", env=env, check=1)
        run_id = re.search(r"Job Run ID: (\d+)", p.stdout).group(1)
        last = p.stderr.strip().splitlines()[-1]
        self.assertEqual(last, "The whole log: air logs --local %s --node 0 --retry 0" % run_id)
        again = self.air(*last.split(": ", 1)[1].split()[1:], env=env, check=1)
        self.assertIn("about to fail", again.stdout)
        # So does the listing an empty list of active runs points at.
        p = self.air("list", "--local", env=env, check=0)
        self.assertEqual(p.stdout, "No active runs found.\n")
        hint = re.search(r"1 finished run is not shown; `(air [^`]*)` lists it\.", p.stderr)
        self.assertEqual(hint and hint.group(1), "air list --all-status --local", p.stderr)
        again = self.air(*hint.group(1).split()[1:], env=env, check=0)
        self.assertIn(run_id, again.stdout)
        cfg = self.write("profiles.cfg", "[lab]\nhost = local://%s\n" % self.state)
        env = dict(env, DATABRICKS_CONFIG_FILE=cfg)
        p = self.run_yaml(failing, "-p", "lab", "--watch", env=env, check=1)
        run_id = re.search(r"Job Run ID: (\d+)", p.stdout).group(1)
        self.assertIn("The whole log: air logs -p lab %s --node 0" % run_id, p.stderr)
        # A run that is not there: the listing it points at is of this workspace.
        p = self.air("--local", "cancel", "999", env=dict(env, DATABRICKS_CONFIG_FILE="/dev/null"))
        self.assertIn("(air list --local shows them)", p.stderr)
        # One sentence: the workspace's reason, then the hint (no nested parentheses).
        self.assertRegex(p.stderr, r"(?m)^Run 999 not found: Run 999 does not exist\. "
                         r"\(INVALID_PARAMETER_VALUE\); check that it is a Job Run ID "
                         r"\(air list --local shows them\)\.$")

    def test_quickstart_local_demo(self):
        env = {k: v for k, v in self.env.items() if k != "DATABRICKS_HOST"}
        env["XDG_STATE_HOME"] = os.path.join(self.tmp, "xdg")
        p = subprocess.run(["bash", os.path.join(SRC, "examples", "local-demo.sh"), AIR],
                           env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                           timeout=PATIENCE_S)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("hyper-parameters: epochs=3 steps_per_epoch=4 learning_rate=0.05",
                      p.stdout)
        self.assertIn("epoch 3/3 step 4/4 loss", p.stdout)
        self.assertIn("training finished: final loss", p.stdout)
        listing = p.stdout.split("== air list")[1]
        self.assertRegex(listing, r"\n1\s+local-train\s+SUCCESS")
        self.assertIn("Status:       SUCCESS", p.stdout)
        # The quickstart ends with the loss curve the workload logged (12 steps).
        chart = p.stdout.split("== air metrics")[1]
        self.assertRegex(chart, r"\nloss  last 0\.7\d* \(step 12\)  min 0\.7\d*  max 2\.26")
        self.assertIn("┤", chart)
        self.assertRegex(chart, r"\n\s+1\s+12  step\n")
        self.assertRegex(p.stdout, r"│ loss\s+0\.7\d* \(step 12\)")
        state = os.path.join(self.tmp, "xdg", "air", "local")
        self.assertEqual([read(f) for f in self.supervisor_logs(state)], [""])


if __name__ == "__main__":
    unittest.main(verbosity=2)

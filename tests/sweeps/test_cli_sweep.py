"""`air sweep`, `air rerun`, `air list --sweep` and `air cancel --sweep` end
to end against the fake workspace: the table and the JSON envelope, a variant
that fails (exit 1, "error" instead of "run_id"), --dry-run (no request),
submitting again (nothing new), --points files, --sample/--seed, --watch (a
line or JSON object per change, and Ctrl-C), and usage errors."""

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.join(os.environ.get("AIR_SOURCE_ROOT", "."), "tests", "support"))
from cli_case import AIR, WorkspaceCase, run_on_terminal  # noqa: E402

WORKLOAD = ("experiment_name: lr-sweep\n"
            "command: python train.py\n"
            "compute: {accelerator_type: GPU_1xH100, num_accelerators: 1}\n"
            "parameters: {lr: 0.01, batch_size: 16}\n")
SUBMIT = "/api/2.2/jobs/runs/submit"
GRID = ["--grid", "parameters.lr=1e-3,3e-4", "--grid", "parameters.batch_size=32,64"]


class Sweep(WorkspaceCase):
    def setUp(self):
        super().setUp()
        self.yaml = os.path.join(self.home, "w.yaml")
        with open(self.yaml, "w") as f:
            f.write(WORKLOAD)

    def sweep(self, *args, **kw):
        return self.air("sweep", "-f", self.yaml, *args, **kw)

    def test_a_grid_prints_one_row_per_variant(self):
        self.fw.config(lifecycle={"pending_ms": 600000})  # the state is read
        rc, out, err = self.sweep(*GRID, "--idempotency-key", "demo")
        self.assertEqual(rc, 0, err)
        rows = out.splitlines()
        self.assertEqual(rows[0].split(), ["#", "POINT", "RUN", "ID", "STATE"])
        cells = rows[1].split()
        self.assertEqual(cells[:3], ["0", "lr=0.001", "batch_size=32"])
        self.assertIn(int(cells[3]), range(555, 570))
        self.assertEqual(cells[4], "PENDING")
        self.assertEqual(len(rows), 5)
        self.assertIn("air list --sweep demo", err)
        self.assertIn("air cancel --sweep demo", err)
        self.assertEqual(self.fw.count("POST", SUBMIT), 4)
        # Progress on stderr off a terminal too: a line per variant, by its run.
        progress = sorted(l for l in err.splitlines() if l.startswith("variant "))
        self.assertEqual(len(progress), 4, err)
        self.assertEqual(progress[0], "variant 0 (lr=0.001 batch_size=32): run %s" % cells[3])
        # Named, with how to stop it, before the first variant's line.
        lines = err.splitlines()
        named = lines.index("Sweep demo: `air cancel --sweep demo` stops it.")
        self.assertLess(named, min(i for i, l in enumerate(lines) if l.startswith("variant ")))

    def test_again_after_the_runs_ended_shows_their_states(self):
        self.fw.config(lifecycle={"pending_ms": 600000})
        rc, out, err = self.sweep("--grid", "parameters.lr=1,2", "--idempotency-key", "again")
        self.assertEqual(rc, 0, err)
        self.assertEqual([r.split()[-1] for r in out.splitlines()[1:]], ["PENDING", "PENDING"])
        self.assertIn("The runs keep going", err)
        for r in self.fw.runs():
            self.fw.update_run(r["run"]["run_id"], lifecycle={"pending_ms": 0, "running_ms": 0,
                                                             "result": "SUCCESS"})
        rc, out, err = self.sweep("--grid", "parameters.lr=1,2", "--idempotency-key", "again")
        self.assertEqual(rc, 0, err)
        self.assertEqual(len(self.fw.runs()), 2)
        self.assertEqual([r.split()[-1] for r in out.splitlines()[1:]], ["SUCCESS", "SUCCESS"])
        self.assertNotIn("keep going", err)
        self.assertIn("The runs have all ended", err)
        # Followed: the table before the watch shows them ended too.
        rc, out, err = self.sweep("--grid", "parameters.lr=1,2", "--idempotency-key", "again",
                                  "--watch", env={"AIR_LOGS_POLL_MS": "100"})
        self.assertEqual(rc, 0, err)
        self.assertEqual(len(self.fw.runs()), 2)
        self.assertEqual([r.split()[-1] for r in out.splitlines()[1:3]], ["SUCCESS", "SUCCESS"])

    def test_json_lists_points_run_ids_and_keys(self):
        rc, out, err = self.sweep(*GRID, "--idempotency-key", "demo", "-o", "json")
        self.assertEqual(rc, 0, err)
        doc = json.loads(out)
        self.assertEqual(doc["v"], 1)
        runs = doc["data"]["runs"]
        self.assertEqual(doc["data"]["sweep"], "demo")
        self.assertEqual(len(runs), 4)
        self.assertEqual(runs[0]["point"], {"parameters.lr": 0.001, "parameters.batch_size": 32})
        ids = {str(r["run"]["run_id"]): r["run"]["run_name"] for r in self.fw.runs()}
        self.assertEqual(ids[runs[0]["run_id"]], "lr-sweep lr=0.001 batch_size=32")
        self.assertEqual(runs[0]["run_name"], "lr-sweep lr=0.001 batch_size=32")
        self.assertTrue(runs[0]["idempotency_key"].startswith("demo-"))
        self.assertNotIn("error", runs[0])
        # again: the same runs, nothing new
        rc, out2, err = self.sweep(*GRID, "--idempotency-key", "demo", "-o", "json")
        self.assertEqual(rc, 0, err)
        self.assertEqual([r["run_id"] for r in json.loads(out2)["data"]["runs"]],
                         [r["run_id"] for r in runs])
        self.assertEqual(len(self.fw.runs()), 4)

    def test_a_failed_variant_carries_an_error_and_exit_1(self):
        self.fw.fault(method="POST", path=SUBMIT, status=400, after=1,
                      body={"error_code": "INVALID_PARAMETER_VALUE", "message": "refused"})
        rc, out, err = self.sweep("--grid", "parameters.lr=1,2", "-o", "json")
        self.assertEqual(rc, 1, err)
        runs = json.loads(out)["data"]["runs"]
        failed = [r for r in runs if "error" in r]
        self.assertEqual(len(failed), 1)
        self.assertNotIn("run_id", failed[0])
        self.assertIn("refused", failed[0]["error"]["message"])
        rc, out, err = self.sweep("--grid", "parameters.lr=3,4")
        self.assertEqual(rc, 0, err)

    def test_dry_run_validates_and_sends_nothing(self):
        rc, out, err = self.sweep(*GRID, "--dry-run", env={"DATABRICKS_HOST": "",
                                                             "DATABRICKS_TOKEN": ""})
        self.assertEqual(rc, 0, err)
        self.assertIn("VALID", out)
        self.assertIn("nothing was submitted", err)
        self.assertEqual(self.fw.requests(), [])
        rc, out, err = self.sweep("--grid", "compute.num_accelerators=1,0", "--dry-run")
        self.assertEqual(rc, 1)
        self.assertIn("variant 1 (compute.num_accelerators=0)", err)
        self.assertIn("compute.num_accelerators", err)
        rc, out, err = self.sweep(*GRID, "--dry-run", "--idempotency-key", "k", "-o", "json")
        doc = json.loads(out)["data"]
        self.assertTrue(doc["dry_run"])
        self.assertTrue(doc["runs"][3]["idempotency_key"].startswith("k-"))
        self.assertNotIn("run_id", doc["runs"][3])

    def test_resume_undoes_a_stop_and_submits_the_rest(self):
        rc, out, err = self.air("cancel", "--sweep", "paused", "-y")
        self.assertEqual(rc, 0, err)
        rc, out, err = self.sweep("--grid", "parameters.lr=1,2", "--idempotency-key", "paused")
        self.assertEqual(rc, 1, err)
        self.assertIn("with --idempotency-key paused --resume it undoes the stop and submits "
                      "them", err)
        self.assertEqual(self.fw.count("POST", SUBMIT), 0)
        rc, out, err = self.sweep("--grid", "parameters.lr=1,2", "--idempotency-key", "paused",
                                  "--resume", "-o", "json")
        self.assertEqual(rc, 0, err)
        doc = json.loads(out)["data"]
        self.assertIs(doc["resumed"], True)
        self.assertEqual(len([r for r in doc["runs"] if "run_id" in r]), 2)
        self.assertEqual(len(self.fw.runs()), 2)
        # Not stopped any more: the text says nothing of a stop, and the
        # runs are the same.
        rc, out, err = self.sweep("--grid", "parameters.lr=1,2", "--idempotency-key", "paused",
                                  "--resume")
        self.assertEqual(rc, 0, err)
        self.assertNotIn("stop is undone", err)
        self.assertEqual(len(self.fw.runs()), 2)
        # Stopped again, then resumed in text mode: said before the variants.
        self.air("cancel", "--sweep", "paused", "-y")
        rc, out, err = self.sweep("--grid", "parameters.lr=1,2,3", "--idempotency-key", "paused",
                                  "--resume")
        self.assertEqual(rc, 0, err)
        self.assertIn("Sweep paused: its stop is undone (--resume).", err)
        self.assertEqual(len(self.fw.runs()), 3)
        rc, out, err = self.sweep("--grid", "parameters.lr=1", "--resume", "--dry-run")
        self.assertEqual(rc, 1)
        self.assertIn("--resume goes without --dry-run", err)
        # A derived key changes with the date: resuming needs the key.
        rc, out, err = self.sweep("--grid", "parameters.lr=1", "--resume")
        self.assertEqual(rc, 1)
        self.assertIn("--resume needs the sweep's key: give --idempotency-key BASE", err)
        self.assertEqual(len(self.fw.runs()), 3)

    def test_a_base_invalid_on_its_own_says_the_points_come_after(self):
        # The points would make each variant valid, but the file with its
        # overrides is the base: validated first, and the error says so.
        args = ["--override", "compute.accelerator_type=GPU_8xH100",
                "--grid", "compute.num_accelerators=8,16", "--dry-run"]
        rc, out, err = self.sweep(*args)
        self.assertEqual(rc, 1, err)
        self.assertIn("compute.num_accelerators", err)
        self.assertIn("validated before the points are applied", err)
        self.assertEqual(out, "")
        # As the hint says: an override sets what the points change.
        rc, out, err = self.sweep("--override", "compute.num_accelerators=8", *args)
        self.assertEqual(rc, 0, err)
        self.assertEqual([r.split()[-1] for r in out.splitlines()[1:]], ["VALID", "VALID"])
        # Not said of a file that does not parse.
        with open(self.yaml, "a") as f:
            f.write("compute: [\n")
        rc, out, err = self.sweep(*args)
        self.assertEqual(rc, 1, err)
        self.assertNotIn("points are applied", err)

    def test_a_huge_bad_point_is_cut_in_the_error(self):
        points = os.path.join(self.home, "huge.jsonl")
        with open(points, "w") as f:
            f.write(json.dumps({"compute.num_accelerators": "A" * (1 << 20)}) + "\n")
        rc, out, err = self.sweep("--points", points, "--dry-run")
        self.assertEqual(rc, 1, err[:1000])
        self.assertIn("variant 0 (compute.num_accelerators=\"AAAA", err)
        self.assertIn("\u2026", err)
        self.assertLess(len(err), 2000)

    def test_points_file_and_a_sample(self):
        points = os.path.join(self.home, "points.jsonl")
        with open(points, "w") as f:
            for lr in (0.1, 0.2, 0.3, 0.4, 0.5):
                f.write(json.dumps({"parameters.lr": lr}) + "\n")
        rc, out, err = self.sweep("--points", points, "--sample", "2", "--seed", "7", "-o",
                                  "json")
        self.assertEqual(rc, 0, err)
        first = [r["point"] for r in json.loads(out)["data"]["runs"]]
        self.assertEqual(len(first), 2)
        rc, out, err = self.sweep("--points", points, "--sample", "2", "--seed", "7", "-o",
                                  "json")
        self.assertEqual([r["point"] for r in json.loads(out)["data"]["runs"]], first)

    def test_a_sample_larger_than_the_points_says_so(self):
        rc, out, err = self.sweep("--grid", "parameters.lr=1,2", "--sample", "5", "--dry-run",
                                  "--idempotency-key", "k")
        self.assertEqual(rc, 0, err)
        self.assertIn("--sample 5: only 2 points; all are used", err)
        self.assertIn("2 variants are valid", err)
        self.assertEqual(len(out.splitlines()), 3)
        rc, out, err = self.sweep("--grid", "parameters.lr=1", "--sample", "2", "--dry-run",
                                  "--idempotency-key", "k")
        self.assertEqual(rc, 0, err)
        self.assertIn("--sample 2: only 1 point; all are used", err)
        self.assertIn("1 variant is valid", err)
        rc, out, err = self.sweep("--grid", "parameters.lr=1,2,3", "--sample", "2", "--dry-run")
        self.assertEqual(rc, 0, err)
        self.assertNotIn("--sample", err)

    def test_list_and_cancel_a_sweep(self):
        self.fw.config(lifecycle={"pending_ms": 600000})
        rc, out, err = self.sweep("--grid", "parameters.lr=1,2,3", "--idempotency-key", "s1")
        self.assertEqual(rc, 0, err)
        rc, out, err = self.sweep("--grid", "parameters.lr=9", "--idempotency-key", "other")
        rc, out, err = self.air("list", "--sweep", "s1", "-o", "json")
        self.assertEqual(rc, 0, err)
        names = sorted(r["run_name"] for r in json.loads(out)["data"]["runs"])
        self.assertEqual(names, ["lr-sweep lr=1", "lr-sweep lr=2", "lr-sweep lr=3"])
        rc, out, err = self.air("cancel", "--sweep", "s1", "-y")
        self.assertEqual(rc, 0, err)
        self.assertIn("Cancelled 3 runs", err)
        states = {r["run"]["run_name"]: r["run"]["state"].get("result_state")
                  for r in self.fw.runs()}
        self.assertEqual(states, {"lr-sweep lr=1": "CANCELED", "lr-sweep lr=2": "CANCELED",
                                  "lr-sweep lr=3": "CANCELED", "lr-sweep lr=9": None})

    def test_cancel_also_cancels_the_runs_started_while_it_asked(self):
        # A sweep that waits for a free place starts its next variant when
        # one of its runs ends: one that starts while `air cancel --sweep`
        # asks is cancelled too.
        self.fw.config(lifecycle={"pending_ms": 600000})
        rc, out, err = self.sweep("--grid", "parameters.lr=1,2", "--idempotency-key", "s1")
        self.assertEqual(rc, 0, err)
        p = subprocess.Popen([AIR, "cancel", "--sweep", "s1"], env=self.env,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
        asked = b""
        while not asked.endswith(b"[y/N] "):
            chunk = os.read(p.stderr.fileno(), 4096)
            if not chunk:
                break
            asked += chunk
        self.assertIn(b"Cancel these runs and stop sweep s1? [y/N]", asked)
        rc, _, err = self.sweep("--grid", "parameters.lr=1,2,3", "--idempotency-key", "s1")
        self.assertEqual(rc, 0, err)
        out, err = p.communicate(b"y\n", timeout=60)
        err = (asked + err).decode()
        self.assertEqual(p.returncode, 0, err)
        self.assertIn("1 more run of sweep s1 started meanwhile; cancelling it too.", err)
        self.assertIn("Cancelled 3 runs", err)
        states = {r["run"]["run_name"]: r["run"]["state"].get("result_state")
                  for r in self.fw.runs()}
        self.assertEqual(states, {"lr-sweep lr=1": "CANCELED", "lr-sweep lr=2": "CANCELED",
                                  "lr-sweep lr=3": "CANCELED"})

    def test_cancel_stops_a_sweep_with_no_active_run(self):
        # Between two runs, or still starting, a sweep has no active run:
        # it is stopped all the same, and then submits nothing, also when
        # it is run again.
        rc, out, err = self.air("cancel", "--sweep", "later", "-y", "-o", "json")
        self.assertEqual(rc, 0, err)
        self.assertIn("No runs of sweep later found.", err)
        self.assertIn("Sweep later is stopped: an `air sweep` of it that is still going "
                      "submits no more variants.", err)
        self.assertEqual(json.loads(out)["data"], {"cancelled": [], "stopped": True})
        rc, out, err = self.sweep("--grid", "parameters.lr=1,2", "--idempotency-key", "later")
        self.assertEqual(rc, 1, err)
        self.assertIn("not submitted: sweep later was stopped", err)
        self.assertIn("The sweep was stopped: the variants not submitted stay so", err)
        self.assertEqual(self.fw.runs(), [])

    def test_a_stop_that_fails_is_an_error_and_the_runs_are_cancelled(self):
        self.fw.config(lifecycle={"pending_ms": 600000})
        rc, out, err = self.sweep("--grid", "parameters.lr=1,2", "--idempotency-key", "s3")
        self.assertEqual(rc, 0, err)
        self.fw.fault(method="POST", path="/api/2.0/workspace-files/import-file/*", status=403,
                      times=-1, body={"error_code": "PERMISSION_DENIED", "message": "no"})
        rc, out, err = self.air("cancel", "--sweep", "s3", "-y", "-o", "json")
        self.assertEqual(rc, 1, err)
        self.assertIn("Error: could not stop sweep s3:", err)
        data = json.loads(out)["data"]
        self.assertEqual(len(data["cancelled"]), 2)
        self.assertFalse(data["stopped"])

    def test_cancel_reports_what_it_cancelled_when_it_cannot_look_again(self):
        self.fw.config(lifecycle={"pending_ms": 600000})
        rc, out, err = self.sweep("--grid", "parameters.lr=1,2", "--idempotency-key", "s1")
        self.assertEqual(rc, 0, err)
        self.fw.clear_requests()
        rc, out, err = self.air("cancel", "--sweep", "s1", "-y", "-o", "json")
        self.assertEqual(rc, 0, err)
        lists = len(self.fw.requests("GET", "/api/2.2/jobs/runs/list"))
        # The same again, the listing refused after the first look's requests.
        rc, out, err = self.sweep("--grid", "parameters.lr=1,2", "--idempotency-key", "s2")
        self.assertEqual(rc, 0, err)
        self.fw.fault(method="GET", path="/api/2.2/jobs/runs/list", status=403, after=lists // 2,
                      times=-1, body={"error_code": "PERMISSION_DENIED", "message": "no"})
        rc, out, err = self.air("cancel", "--sweep", "s2", "-y", "-o", "json")
        self.assertEqual(rc, 0, err)
        data = json.loads(out)["data"]
        self.assertEqual(len(data["cancelled"]), 2)
        self.assertNotIn("all", data)
        self.assertIn("Warning: could not look again for runs of sweep s2 started meanwhile",
                      err)

    def test_cancel_says_which_sweep_has_nothing_to_cancel(self):
        self.fw.config(lifecycle={"pending_ms": 600000})
        # No run at all may be a mistyped key: the stop is asked for.
        rc, out, err = self.air("cancel", "--sweep", "nosuch", stdin="n\n")
        self.assertEqual(rc, 1, err)
        self.assertIn("Stop it all the same (an `air sweep` of it that is still starting then "
                      "submits nothing)? [y/N] Aborted: the sweep was not stopped. (standard "
                      "input is not a terminal: -y confirms)", err)
        self.assertEqual(self.fw.requests("POST", "/api/2.0/workspace-files/import-file/*"), [])
        rc, out, err = self.air("cancel", "--sweep", "nosuch", "-y")
        self.assertEqual(rc, 0, err)
        self.assertIn("No runs of sweep nosuch found.", err)
        rc, out, err = self.sweep("--grid", "parameters.lr=1", "--idempotency-key", "ended")
        self.assertEqual(rc, 0, err)
        rc, out, err = self.air("cancel", "--sweep", "ended", "-y")
        self.assertEqual(rc, 0, err)
        rc, out, err = self.air("cancel", "--sweep", "ended", "-y")
        self.assertEqual(rc, 0, err)
        self.assertIn("No active runs of sweep ended.", err)
        self.assertNotIn("No runs of sweep", err)

    def test_a_plain_run_named_like_the_tag_is_not_in_the_sweep(self):
        self.fw.config(lifecycle={"pending_ms": 600000})
        rc, out, err = self.sweep("--grid", "parameters.lr=1", "--idempotency-key", "s1")
        self.assertEqual(rc, 0, err)
        tag = "sweep-s1-" + hashlib.sha256(b"s1").hexdigest()[:8]
        plain = os.path.join(self.home, "plain.yaml")
        with open(plain, "w") as f:
            f.write(WORKLOAD.replace("lr-sweep", tag))
        rc, out, err = self.air("run", "-f", plain)
        self.assertEqual(rc, 0, err)
        rc, out, err = self.air("list", "--sweep", "s1", "-o", "json")
        self.assertEqual(rc, 0, err)
        self.assertEqual([r["run_name"] for r in json.loads(out)["data"]["runs"]],
                         ["lr-sweep lr=1"])
        rc, out, err = self.air("cancel", "--sweep", "s1", "-y")
        self.assertEqual(rc, 0, err)
        self.assertIn("Cancelled 1 run", err)
        states = {r["run"]["run_name"]: r["run"]["state"].get("result_state")
                  for r in self.fw.runs()}
        self.assertEqual(states.pop("lr-sweep lr=1"), "CANCELED")
        self.assertEqual(list(states.values()), [None])

    def test_watch_reports_every_change_until_the_runs_end(self):
        self.fw.config(lifecycle={"pending_ms": 300, "running_ms": 300, "result": "FAILED"})
        rc, out, err = self.sweep("--grid", "parameters.lr=1,2", "--watch", "-o", "json",
                                  env={"AIR_LOGS_POLL_MS": "100"})
        self.assertEqual(rc, 1, err)  # the runs failed
        events = [json.loads(l) for l in out.splitlines()]
        self.assertEqual(events[-1]["type"], "DONE")
        self.assertEqual(events[-1]["succeeded"], 0)
        final = {e["index"]: e["status"] for e in events if e["type"] == "STATE"}
        self.assertEqual(final, {0: "FAILED", 1: "FAILED"})

    def test_watch_with_a_metric_on_a_terminal(self):
        self.fw.config(lifecycle={"pending_ms": 0, "running_ms": 200})
        rc, out, err, term = run_on_terminal(
            [AIR, "sweep", "-f", self.yaml, "--grid", "parameters.lr=1,2", "--watch", "--metric",
             "loss"], dict(self.env, AIR_LOGS_POLL_MS="100"), terminal=("stdout",))
        self.assertEqual(rc, 0, err)
        self.assertIn("loss", term)
        self.assertIn("SUCCESS", term)
        self.assertIn("2 of 2 runs succeeded", err)

    def test_watch_lines_name_the_metric(self):
        self.fw.config(lifecycle={"pending_ms": 0, "running_ms": 200})
        rc, out, err = self.sweep("--grid", "parameters.lr=1,2", "--watch", "--metric", "loss",
                                  env={"AIR_LOGS_POLL_MS": "100"})
        self.assertEqual(rc, 0, err)
        done = [l for l in out.splitlines() if " SUCCESS " in l]
        self.assertEqual(len(done), 2, out)
        for line in done:
            self.assertRegex(line, r"^variant [01] \(lr=[12]\): run \d+ SUCCESS "
                                   r"\S+ loss=\S+$")

    def test_ctrl_c_stops_watching_not_the_runs(self):
        self.fw.config(lifecycle={"pending_ms": 600000})
        p = subprocess.Popen([AIR, "sweep", "-f", self.yaml, "--grid", "parameters.lr=1,2",
                              "--idempotency-key", "cc", "--watch"], env=self.env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while self.fw.count("POST", SUBMIT) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.2)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 1, err)
        self.assertIn("the runs keep going", err)
        self.assertIn("air cancel --sweep cc", err)
        self.assertEqual(self.fw.count("POST", "/api/2.2/jobs/runs/cancel"), 0)

    def test_usage_errors(self):
        for args, want in ((["--grid", "parameters.lr=1", "--points", "p.jsonl"], "not both"),
                           ([], "give the points"),
                           (["--grid", "parameters.lr=1", "--seed", "3"], "--seed goes with"),
                           (["--grid", "parameters.lr=1", "--metric", "loss"], "--metric goes"),
                           (["--grid", "parameters.lr=1", "--max-parallel", "0"], "--max-parallel"),
                           (["--grid", "parameters.lr"], "PATH=V1,V2"),
                           (["--grid", "parameters.lr=1", "--idempotency-key", " "], "empty")):
            rc, out, err = self.sweep(*args)
            self.assertEqual(rc, 1, args)
            self.assertIn(want, err, args)
            self.assertEqual(out, "")
        rc, out, err = self.air("sweep", "--grid", "parameters.lr=1")
        self.assertIn("\"file\"", err)


class Rerun(WorkspaceCase):
    def setUp(self):
        super().setUp()
        self.yaml = os.path.join(self.home, "w.yaml")
        with open(self.yaml, "w") as f:
            f.write(WORKLOAD)
        rc, out, err = self.air("run", "-f", self.yaml, "-o", "json")
        self.assertEqual(rc, 0, err)
        self.first = json.loads(out)["data"]["run_id"]

    def test_rerun_prints_the_new_run(self):
        rc, out, err = self.air("rerun", self.first, "-o", "json")
        self.assertEqual(rc, 0, err)
        data = json.loads(out)["data"]
        self.assertNotEqual(data["run_id"], self.first)
        self.assertEqual(data["rerun_of"], self.first)
        self.assertTrue(data["idempotency_key"].startswith("rerun-%s-" % self.first))
        rc, out, err = self.air("rerun", self.first, "--override", "parameters.lr=0.5")
        self.assertEqual(rc, 0, err)
        self.assertIn("Job Run ID:", out)
        self.assertIn("MLflow run:", out)  # output as air run's
        self.assertNotIn("does not hold", err)  # the first run had no overrides
        body = json.loads(self.fw.last("POST", SUBMIT)["body"])
        self.assertEqual(body["run_name"], "lr-sweep lr=0.5")

    def test_rerun_keeps_the_runs_own_overrides(self):
        rc, out, err = self.air("run", "-f", self.yaml, "-o", "json",
                                "--override", "compute.num_accelerators=2")
        self.assertEqual(rc, 0, err)
        overridden = json.loads(out)["data"]["run_id"]
        rc, out, err = self.air("rerun", overridden)
        self.assertEqual(rc, 0, err)
        self.assertIn("Warning: run %s was submitted with overrides that its "
                      "training_config.yaml does not hold; this run keeps them "
                      "(compute.num_accelerators)" % overridden, err)
        body = json.loads(self.fw.last("POST", SUBMIT)["body"])
        compute = body["tasks"][0]["ai_runtime_task"]["deployments"][0]["compute"]
        self.assertEqual(compute["accelerator_count"], 2)

    def test_rerun_errors(self):
        for args, want in ((["abc"], "invalid run ID"), ([], "give the ID"),
                           (["1", "2"], "give one run ID"),
                           ([self.first, "--override", "nope"], "PATH=VALUE"),
                           (["424242"], "424242")):
            rc, out, err = self.air("rerun", *args)
            self.assertEqual(rc, 1, args)
            self.assertIn(want, err, args)


if __name__ == "__main__":
    unittest.main()

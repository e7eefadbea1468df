"""CLI tests of air get / list / cancel / logs / list pools / get pool and
run --watch against the fake workspace (SCENARIOS S34-S54)."""

import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

ROOT = os.environ.get("AIR_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "support"))
from cli_case import AIR, WorkspaceCase  # noqa: E402,F401  (AIR: for the modules importing it)

ME = "tester@databricks.com"
L = "/Workspace/Users/tester@databricks.com/.air/cli_launch/smoke-test/smoke-test_0123456789abcdef"
LOGS = "/api/2.0/ai-training/workflows/by-run-id/%d/logs"
VALID_YAML = """experiment_name: smoke-test
command: python train.py
compute:
  accelerator_type: GPU_1xH100
  num_accelerators: 1
"""


def std_run(rid, result="SUCCESS", **extra):
    run = {
        "run_id": rid, "run_name": "smoke-test", "creator_user_name": ME,
        "start_time": 1700000000000, "end_time": 1700000012000,
        "state": {"life_cycle_state": "TERMINATED", "result_state": result, "state_message": ""},
        "tasks": [{"run_id": rid + 1, "attempt_number": 0, "max_retries": 3, "ai_runtime_task": {
            "experiment": "smoke-test", "deployments": [{"command_path": L + "/command.sh", "compute": {
                "accelerator_type": "GPU_1xH100", "accelerator_count": 1}}]}}],
    }
    run.update(extra)
    return run


def air_task(exp="e", gpu="GPU_1xH100", count=1):
    return {"ai_runtime_task": {"experiment": exp, "deployments": [
        {"compute": {"accelerator_type": gpu, "accelerator_count": count}}]}}


def listed(rid, start, user=ME, state="RUNNING", task=None):
    st = {"life_cycle_state": state} if state == "RUNNING" else \
        {"life_cycle_state": "TERMINATED", "result_state": state}
    return {"run_id": rid, "run_name": "r%d" % rid, "creator_user_name": user, "start_time": start,
            "state": st, "tasks": [task if task is not None else air_task()]}


STD_RECORDS = [
    {"time_unix_nano": 1700000003000000000, "body": "CUDA out of memory"},
    {"time_unix_nano": "1700000002000000000", "body": "step 2"},
    {"time_unix_nano": 1700000001000000000, "body": "step 1"},
]


class CliCase(WorkspaceCase):
    EXTRA_ENV = {"AIR_LOGS_POLL_MS": "20"}

    def envelope(self, out):
        doc = json.loads(out)
        self.assertEqual(doc["v"], 1)
        self.assertRegex(doc["ts"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
        return doc

    def expect_error(self, args, code, kind, retryable, needle=None):
        rc, out, err = self.air(args[0], "-o", "json", *args[1:])
        self.assertEqual(rc, 1, err)
        doc = self.envelope(out)
        self.assertEqual(list(doc["error"].keys()), ["code", "kind", "message", "retryable"])
        self.assertEqual((doc["error"]["code"], doc["error"]["kind"], doc["error"]["retryable"]),
                         (code, kind, retryable), doc)
        if needle:
            self.assertIn(needle, doc["error"]["message"])
        self.assertNotIn("Error:", err)
        return doc

    def paths(self):
        return [r["path"] for r in self.fw.requests(bodies=False)]

    def jsonl(self, out):
        return [json.loads(line) for line in out.splitlines() if line.strip()]


class GetTest(CliCase):
    def setup_s34(self):
        self.fw.create_run(std_run(123, environments=[
            {"environment_key": "default", "spec": {"environment_version": "6"}}]))
        self.fw.set_output(123, {"ai_runtime_task_output": {"mlflow_experiment_id": "exp1",
                                                            "mlflow_run_id": "run1"}})
        self.fw.mlflow({"run1": {"experiment_id": "exp1", "run_name": "my-run"}})
        self.fw.put_file(L + "/training_config.yaml",
                         b"experiment_name: smoke-test\ncommand: |\n  python train.py\n")
        self.fw.clear_requests()

    def test_json_s34(self):
        self.setup_s34()
        rc, out, err = self.air("get", "123", "-o", "json")
        self.assertEqual(rc, 0, err)
        data = self.envelope(out)["data"]
        H = self.fw.url
        self.assertEqual(data, {
            "run_id": "123", "status": "SUCCESS", "started_at": "2023-11-14T22:13:20+00:00",
            "duration_seconds": 12, "attempt_number": 0, "experiment_name": "smoke-test",
            "dashboard_url": H + "/jobs/runs/123?o=900800700600500",
            "mlflow_url": H + "/ml/experiments/exp1/runs/run1/artifacts/logs/node_0"})
        self.assertEqual(list(data.keys())[0], "run_id")
        reqs = self.fw.requests(bodies=False)
        self.assertEqual([r["path"] for r in reqs], [
            "/api/2.0/preview/scim/v2/Me", "/api/2.2/jobs/runs/get", "/api/2.0/preview/scim/v2/Me",
            "/api/2.2/jobs/runs/get-output"])
        self.assertNotIn("excludedAttributes", reqs[0]["query"])
        self.assertEqual(reqs[2]["query"]["excludedAttributes"], ["entitlements"])
        self.assertEqual(reqs[3]["query"]["run_id"], ["124"])

    def test_text_s34(self):
        self.setup_s34()
        rc, out, err = self.air("get", "123")
        self.assertEqual(rc, 0, err)
        H = self.fw.url
        self.assertIn("Configuration", out)
        self.assertIn("command: |", out)
        self.assertRegex(out, r"Environment:\s+6")
        self.assertRegex(out, r"MLflow Run:\s+my-run")
        self.assertRegex(out, r"Accelerators:\s+1x H100")
        self.assertRegex(out, r"Submitted:\s+2023-11-14 22:13 UTC")
        self.assertRegex(out, r"Max Retries:\s+3")
        self.assertRegex(out, r"Duration:\s+12s")
        lines = out.splitlines()
        self.assertTrue(any(l.endswith(H + "/jobs/runs/123?o=900800700600500") for l in lines))
        self.assertTrue(any(l.endswith(H + "/ml/experiments/exp1/runs/run1") for l in lines))
        paths = self.paths()
        self.assertIn("/api/2.0/mlflow/runs/get", paths)
        self.assertIn("/api/2.0/workspace/export", paths)

    def test_mlflow_unresolved(self):
        self.fw.create_run(std_run(123))
        self.fw.set_output(123, {})
        rc, out, _ = self.air("get", "123", "-o", "json")
        self.assertEqual(rc, 0)
        self.assertIsNone(self.envelope(out)["data"]["mlflow_url"])
        rc, out, _ = self.air("get", "123")
        self.assertRegex(out, r"MLflow Run:\s+N/A")

    def test_times_and_nulls(self):
        self.fw.create_run(std_run(123, start_time=1700000000250, end_time=1700000012750))
        data = self.envelope(self.air("get", "123", "-o", "json")[1])["data"]
        self.assertEqual(data["started_at"], "2023-11-14T22:13:20.250000+00:00")
        self.assertEqual(data["duration_seconds"], 12)  # 12.5 rounds to even
        self.fw.create_run(std_run(200, start_time=1700000000000, end_time=1700000013500))
        data = self.envelope(self.air("get", "200", "-o", "json")[1])["data"]
        self.assertEqual(data["duration_seconds"], 14)  # 13.5 rounds to even
        # `list` rounds the same way: a run has one duration.
        listing = self.air("list", "--all-status")[1]
        self.assertRegex(listing, r"\n123 .* 12s ")
        self.assertRegex(listing, r"\n200 .* 14s ")
        self.fw.create_run({"run_id": 300, "state": {"life_cycle_state": "PENDING"}, "tasks": []})
        data = self.envelope(self.air("get", "300", "-o", "json")[1])["data"]
        self.assertEqual(data["status"], "PENDING")
        for k in ("started_at", "duration_seconds", "experiment_name", "mlflow_url"):
            self.assertIsNone(data[k], k)
        self.assertEqual(data["attempt_number"], 0)

    def test_not_found_s35(self):
        doc = self.expect_error(["get", "5"], "NOT_FOUND", "NOT_FOUND", False, "5")
        self.fw.fault(path="/api/2.2/jobs/runs/get", status=404, times=-1,
                      body={"error_code": "RESOURCE_DOES_NOT_EXIST", "message": "gone"})
        self.expect_error(["get", "6"], "NOT_FOUND", "NOT_FOUND", False)
        self.fw.clear_faults()
        self.fw.fault(path="/api/2.2/jobs/runs/get", status=500, times=-1,
                      body={"error_code": "INTERNAL_ERROR", "message": "boom"})
        self.expect_error(["get", "7"], "INTERNAL_ERROR", "TRANSIENT", True, "boom")
        rc, out, err = self.air("get", "7")
        self.assertEqual((rc, out), (1, ""))
        self.assertTrue(err.startswith("Error: "), err)
        self.assertTrue(doc)

    def test_invalid_ids_s36(self):
        for bad in ("notanumber", "0", "-3", "1.5", "99999999999999999999"):
            self.fw.clear_requests()
            self.expect_error(["get", "--", bad], "INVALID_ARGS", "PERMANENT", False)
            self.assertEqual(self.paths(), [])
        rc, out, err = self.air("get", "abc")
        self.assertEqual((rc, out), (1, ""))
        self.assertIn("Error: ", err)
        rc, _, err = self.air("get")
        self.assertEqual(rc, 1)
        self.assertIn("Usage", err)

    def test_workspace_id_unavailable_s37(self):
        self.fw.config(org_id=None)
        self.fw.create_run(std_run(123))
        self.expect_error(["get", "123"], "INTERNAL_ERROR", "TRANSIENT", True)

    def test_auth_failures(self):
        self.fw.config(tokens=["another"])
        self.expect_error(["get", "123"], "UNAUTHENTICATED", "PERMANENT", False,
                          "authentication failed")
        env = {"DATABRICKS_TOKEN": ""}
        rc, out, err = self.air("get", "123", "-o", "json", env=env)
        doc = self.envelope(out)
        self.assertEqual((rc, doc["error"]["code"]), (1, "UNAUTHENTICATED"))
        self.assertNotIn("dapi-test", out + err)
        # The library names the profile option; the CLI adds its flag.
        self.assertIn("the profile option", doc["error"]["message"])
        self.assertTrue(doc["error"]["message"].endswith("; pass --profile NAME"), doc)

    def test_sweep_text(self):
        self.fw.create_run({"run_id": 40, "creator_user_name": ME, "state": {"life_cycle_state": "RUNNING"},
                            "tasks": [{"run_id": 41, "for_each_task": {
                                "task": air_task("sw"), "stats": {"task_run_stats": {
                                    "total_iterations": 2, "completed_iterations": 1,
                                    "succeeded_iterations": 1, "failed_iterations": 0,
                                    "active_iterations": 1}}}}]})
        self.fw.create_run({"run_id": 41, "state": {"life_cycle_state": "RUNNING"}, "iterations": [
            {"task_key": "sw_0", "run_id": 42, "state": {"life_cycle_state": "TERMINATED",
                                                         "result_state": "SUCCESS"}},
            {"task_key": "sw_1", "run_id": 43, "state": {"life_cycle_state": "RUNNING"}}]})
        rc, out, err = self.air("get", "40")
        self.assertEqual(rc, 0, err)
        self.assertIn("2 total, 1 completed, 1 succeeded, 0 failed, 1 active", out)
        self.assertRegex(out, r"sw_0\s+42\s+SUCCESS")
        self.assertRegex(out, r"sw_1\s+43\s+RUNNING")
        self.assertIn("/jobs/runs/40?o=", out)


class PermissionDeniedTest(CliCase):
    """A 403 PERMISSION_DENIED ends, in text mode, with the official tool's
    identity block and next steps (docs/cli.md)."""

    DENIED = {"error_code": "PERMISSION_DENIED", "message": "User cannot view this run"}

    def assert_block(self, err, profile=None):
        lines = err.splitlines()
        self.assertTrue(lines[0].startswith("Error: "), err)
        rest = lines[1:]
        if profile:
            self.assertIn("Profile: " + profile, rest)
        self.assertIn("Host: " + self.fw.url, rest)
        self.assertIn("Auth type: pat", rest)
        steps = rest[rest.index("Next steps:") + 1:]
        self.assertEqual(len(steps), 3, err)
        self.assertIn("required permissions", steps[0])
        self.assertIn("databricks auth describe", steps[1])
        self.assertIn("databricks auth login --profile <name>", steps[2])
        self.assertLess(rest.index("Host: " + self.fw.url), rest.index("Next steps:"))

    def test_get_text_and_json(self):
        self.fw.create_run(std_run(123))
        self.fw.fault(path="/api/2.2/jobs/runs/get", status=403, times=-1, body=self.DENIED)
        rc, out, err = self.air("get", "123")
        self.assertEqual((rc, out), (1, ""))
        self.assertIn("User cannot view this run", err.splitlines()[0])
        self.assert_block(err)
        doc = self.expect_error(["get", "123"], "INTERNAL_ERROR", "TRANSIENT", True)
        self.assertNotIn("Next steps", json.dumps(doc))

    def test_submit_text_with_a_profile(self):
        with open(self.env["DATABRICKS_CONFIG_FILE"], "w") as f:
            f.write("[dev]\nhost = %s\ntoken = dapi-test\n" % self.fw.url)
        path = os.path.join(self.home, "valid.yaml")
        with open(path, "w") as f:
            f.write(VALID_YAML)
        self.fw.fault(method="POST", path="/api/2.2/jobs/runs/submit", status=403, times=-1,
                      body=self.DENIED)
        env = {"DATABRICKS_HOST": "", "DATABRICKS_TOKEN": ""}
        rc, out, err = self.air("run", "-f", path, "-p", "dev", env=env)
        self.assertEqual((rc, out), (1, ""))
        self.assert_block(err[err.index("Error: "):], profile="dev")
        # -o json: the plain error line alone
        rc, out, err = self.air("run", "-f", path, "-p", "dev", "-o", "json", env=env)
        self.assertEqual((rc, out), (1, ""))
        self.assertNotIn("Next steps", err)

    def test_other_errors_have_no_block(self):
        self.fw.fault(path="/api/2.2/jobs/runs/get", status=400, times=-1,
                      body={"error_code": "INVALID_PARAMETER_VALUE", "message": "bad"})
        rc, _, err = self.air("get", "123")
        self.assertEqual(rc, 1)
        self.assertNotIn("Next steps", err)


class ListTest(CliCase):
    def s38_runs(self):
        self.fw.create_run(listed(1, 1700000004000))
        self.fw.create_run(listed(2, 1700000003000, task={"notebook_task": {}}))
        self.fw.create_run(listed(3, 1700000002000, user="other@x"))
        self.fw.create_run(listed(4, 1700000001000, task={"for_each_task": {"task": air_task("sw")}}))
        self.fw.clear_requests()

    def test_json_s38(self):
        self.s38_runs()
        rc, out, err = self.air("list", "-o", "json")
        self.assertEqual(rc, 0, err)
        rows = self.envelope(out)["data"]["runs"]
        self.assertEqual([r["run_id"] for r in rows], ["1", "4"])
        self.assertEqual(rows[0], {"run_id": "1", "run_name": "r1", "user": ME, "status": "RUNNING",
                                   "started_at": "2023-11-14T22:13:24+00:00", "is_sweep": False})
        self.assertTrue(rows[1]["is_sweep"])
        reqs = self.fw.requests(bodies=False)
        self.assertEqual([r["path"] for r in reqs], [
            "/api/2.0/preview/scim/v2/Me", "/api/2.0/preview/scim/v2/Me", "/api/2.2/jobs/runs/list"])
        self.assertEqual(reqs[2]["query"], {"run_type": ["SUBMIT_RUN"], "expand_tasks": ["true"],
                                            "limit": ["25"], "active_only": ["true"]})

    def test_text_s38(self):
        self.s38_runs()
        rc, out, err = self.air("list", env={"TZ": "UTC"})
        self.assertEqual(rc, 0, err)
        lines = out.splitlines()
        self.assertEqual(lines[0].split(), ["Run", "ID", "Experiment", "Status", "Started", "Duration",
                                            "MLflow", "User", "Accelerators"])
        self.assertEqual(len(lines), 3)
        self.assertTrue(lines[1].startswith("1 "))
        self.assertIn("1x H100", lines[1])
        # ISO 8601 to the second, with the offset of the local time zone
        self.assertIn(" 2023-11-14T22:13:24+00:00 ", lines[1])
        rc, out, err = self.air("list", env={"TZ": "IST-5:30"})
        self.assertIn(" 2023-11-15T03:43:24+05:30 ", out.splitlines()[1])
        rc, out, err = self.air("list", env={"TZ": "EST5"})
        self.assertIn(" 2023-11-14T17:13:24-05:00 ", out.splitlines()[1])
        self.assertIn("/api/2.2/jobs/runs/get-output", self.paths())
        self.assertIn("/api/2.0/mlflow/runs/get", self.paths())

    def test_empty(self):
        rc, out, _ = self.air("list", "-o", "json")
        self.assertEqual((rc, self.envelope(out)["data"]), (0, {"runs": []}))
        rc, out, _ = self.air("list")
        self.assertEqual(rc, 0)
        self.assertEqual(len(out.splitlines()), 1)
        self.assertIn("No runs", out)

    def test_no_active_runs_counts_finished_ones(self):
        for rid in (1, 2, 3):
            self.fw.create_run(listed(rid, 1700000000000 + rid, state="SUCCESS"))
        self.fw.create_run(listed(4, 1700000000004, user="other@x", state="FAILED"))
        rc, out, err = self.air("list")
        self.assertEqual(rc, 0, err)
        self.assertEqual(out, "No active runs found.\n")
        self.assertIn("3 finished runs", err)
        self.assertIn("air list --all-status", err)
        # --limit bounds the count (the listing pages no further than needed).
        rc, out, err = self.air("list", "--limit", "2")
        self.assertEqual((rc, out), (0, "No active runs found.\n"))
        self.assertIn("more than 2 finished runs", err)
        # The other users' runs count with --all-users; the JSON output is as before.
        rc, out, err = self.air("list", "--all-users")
        self.assertIn("4 finished runs", err)
        self.assertIn("air list --all-status --all-users", err)
        self.fw.clear_requests()
        rc, out, err = self.air("list", "-o", "json")
        self.assertEqual((rc, self.envelope(out)["data"], err), (0, {"runs": []}, ""))
        self.assertEqual(self.fw.count("GET", "/api/2.2/jobs/runs/list"), 1)
        # Nothing finished either: the plain line, no hint.
        self.fw.reset()
        rc, out, err = self.air("list")
        self.assertEqual((rc, out, err), (0, "No runs found.\n", ""))

    def test_index_s39(self):
        self.fw.create_run(std_run(12))
        self.fw.fault(path="/api/2.0/ai-training/workflows", query={"page_token": "t"}, times=-1,
                      status=200, body={"training_workflows": [
                          {"job_run_id": 11, "submit_time": "2024-06-05T17:32:39Z"}],
                          "next_page_token": "t"})
        self.fw.fault(path="/api/2.0/ai-training/workflows", times=-1, status=200, body={
            "training_workflows": [{"job_run_id": "11", "submit_time": "2024-06-05T17:32:39Z"},
                                   {"job_run_id": 12, "submit_time": {"seconds": 1717700000}}],
            "next_page_token": "t"})
        self.fw.fault(path="/api/2.2/jobs/runs/get", query={"run_id": "11"}, times=-1, status=403,
                      body={"error_code": "PERMISSION_DENIED", "message": "no"})
        rc, out, err = self.air("list", "--all-status", "-o", "json")
        self.assertEqual(rc, 0, err)
        self.assertEqual([r["run_id"] for r in self.envelope(out)["data"]["runs"]], ["12"])
        self.assertEqual(self.fw.count("GET", "/api/2.2/jobs/runs/list"), 0)
        for r in self.fw.requests("GET", "/api/2.0/ai-training/workflows", bodies=False):
            self.assertNotIn("active_only", r["query"])
        gets = [r["query"]["run_id"][0] for r in self.fw.requests("GET", "/api/2.2/jobs/runs/get",
                                                                 bodies=False)]
        # Both are fetched in one concurrent batch: the order on the wire is free.
        self.assertEqual(sorted(gets), ["11", "12"])

    def test_index_fallback_and_all_users_s39(self):
        self.fw.create_run(listed(1, 1700000001000, state="SUCCESS"))
        self.fw.fault(path="/api/2.0/ai-training/workflows", times=-1, status=404,
                      body={"error_code": "ENDPOINT_NOT_FOUND", "message": "no"})
        rc, out, _ = self.air("list", "--all-status", "-o", "json")
        self.assertEqual(rc, 0)
        self.assertEqual(len(self.envelope(out)["data"]["runs"]), 1)
        lst = self.fw.requests("GET", "/api/2.2/jobs/runs/list", bodies=False)
        self.assertNotIn("active_only", lst[0]["query"])
        self.fw.clear_requests()
        rc, out, _ = self.air("list", "--all-status", "--all-users", "-o", "json")
        self.assertEqual(rc, 0)
        self.assertEqual(self.fw.count("GET", "/api/2.0/ai-training/workflows"), 0)
        me = self.fw.requests("GET", "/api/2.0/preview/scim/v2/Me", bodies=False)
        self.assertEqual([r["query"].get("excludedAttributes") for r in me], [["entitlements"]])

    def test_filters_and_limit_s40(self):
        self.fw.create_run(listed(1, 1700000005000, task=air_task(
            "/Users/tester@databricks.com/qwen-train", "GPU_8xH100", 8)))
        self.fw.create_run(listed(2, 1700000004000, task=air_task("llama", "GPU_8xH100", 16)))
        self.fw.create_run(listed(3, 1700000003000, task=air_task("other", "GPU_1xA10", 1)))
        self.fw.create_run(listed(4, 1700000002000, user="other@x", task=air_task("x", "GPU_1xA10", 8)))

        def ids(*args):
            rc, out, err = self.air("list", "-o", "json", *args)
            self.assertEqual(rc, 0, err)
            return [r["run_id"] for r in self.envelope(out)["data"]["runs"]]
        self.assertEqual(ids("--filter", "experiment=QWEN*"), ["1"])
        self.assertEqual(ids("--filter", "accelerator_type=h100"), ["1", "2"])
        self.assertEqual(ids("--filter", "num_accelerators=8"), ["1"])
        self.assertEqual(ids("--filter", "user=other@x"), ["4"])
        self.assertEqual(ids("--filter", "num_accelerators=16", "--filter", "num_accelerators=8"), ["1"])
        self.assertEqual(ids("--limit", "1"), ["1"])
        self.assertEqual(ids("--all-users"), ["1", "2", "3", "4"])

    def test_errors_are_plain_s40(self):
        for args in (["--filter", "color=red"], ["--filter", "experiment"],
                     ["--filter", "num_accelerators=0"], ["--limit", "0"], ["--limit", "x"]):
            self.fw.clear_requests()
            rc, out, err = self.air("list", "-o", "json", *args)
            self.assertEqual((rc, out), (1, ""), args)
            self.assertIn("Error: ", err)
            self.assertEqual(self.paths(), [], args)
        self.fw.config(tokens=["nope"])
        rc, out, err = self.air("list", "-o", "json")
        self.assertEqual((rc, out), (1, ""))
        self.assertIn("Error: ", err)

    def test_workspace_probe_tolerated_s37(self):
        self.fw.config(org_id=None)
        self.fw.create_run(listed(1, 1700000004000))
        rc, out, err = self.air("list", "-o", "json")
        self.assertEqual(rc, 0, err)
        self.assertEqual(len(self.envelope(out)["data"]["runs"]), 1)


class CancelTest(CliCase):
    def test_one_s41(self):
        self.fw.create_run(listed(123, 1700000001000))
        rc, out, err = self.air("cancel", "123")
        self.assertEqual((rc, out), (0, ""), err)
        self.assertIn("123", err)
        body = self.fw.requests("POST", "/api/2.2/jobs/runs/cancel")[0]["body"]
        self.assertEqual(body, '{"run_id":123}')
        self.fw.create_run(listed(124, 1700000001000))
        rc, out, _ = self.air("cancel", "124", "-o", "json")
        self.assertEqual(rc, 0)
        self.assertEqual(self.envelope(out)["data"], {"cancelled": ["124"]})

    def test_several_s42(self):
        self.fw.create_run(listed(6, 1700000001000))
        rc, out, err = self.air("cancel", "6", "5", "abc", "-o", "json")
        self.assertEqual(rc, 1, err)
        data = self.envelope(out)["data"]
        self.assertEqual(data["cancelled"], ["6"])
        self.assertEqual([f["run_id"] for f in data["failed"]], ["5", "abc"])
        self.assertIn("invalid run ID", data["failed"][1]["error"])
        self.assertNotIn("all", data)
        bodies = [r["body"] for r in self.fw.requests("POST", "/api/2.2/jobs/runs/cancel")]
        self.assertEqual(bodies, ['{"run_id":6}', '{"run_id":5}'])
        self.fw.create_run(listed(7, 1700000001000))
        rc, out, err = self.air("cancel", "7", "5")
        self.assertEqual((rc, out), (1, ""))
        self.assertIn("Job Run ID", err)      # the not-found hint for 5
        self.assertRegex(err, r"\b1 run could not be cancelled")

    def test_all_s43(self):
        a, b = 334747067049496, 566001814929041
        self.fw.create_run(listed(a, 1700000002000))
        self.fw.create_run(listed(b, 1700000001000))
        self.fw.create_run(listed(3, 1700000001000, user="other@x"))
        rc, out, err = self.air("cancel", "--all", "-y")
        self.assertEqual(rc, 0, err)
        self.assertIn(ME, err)
        self.assertIn(self.fw.url, err)
        self.assertEqual(self.paths(), ["/api/2.0/preview/scim/v2/Me", "/api/2.2/jobs/runs/list",
                                        "/api/2.2/jobs/runs/cancel", "/api/2.2/jobs/runs/cancel"])
        self.assertEqual([r["body"] for r in self.fw.requests("POST", "/api/2.2/jobs/runs/cancel")],
                         ['{"run_id":%d}' % a, '{"run_id":%d}' % b])
        self.assertEqual(self.fw.requests("GET", "/api/2.2/jobs/runs/list")[0]["query"]["active_only"],
                         ["true"])

    def test_all_prompt_s43(self):
        self.fw.create_run(listed(11, 1700000002000))
        self.fw.clear_requests()
        rc, out, err = self.air("cancel", "--all", stdin="n\n")
        self.assertEqual(rc, 1)
        self.assertIn("[y/N]", err)
        self.assertIn("11", err)                 # preview table
        self.assertEqual(self.fw.count("POST", "/api/2.2/jobs/runs/cancel"), 0)
        rc, out, err = self.air("cancel", "--all", "-o", "json", stdin="n\n")
        self.assertEqual((rc, out), (1, ""))
        rc, out, err = self.air("cancel", "--all", "-o", "json", stdin="YES\n")
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.envelope(out)["data"], {"cancelled": ["11"], "all": True})
        rc, out, err = self.air("cancel", "--all", "-o", "json")
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.envelope(out)["data"],
                         {"cancelled": [], "all": True, "workspace": self.fw.url})
        # Text mode: only the notice, no "Cancelled 0 runs." line.
        rc, out, err = self.air("cancel", "--all", "-y")
        self.assertEqual((rc, out), (0, ""), err)
        self.assertIn("No active runs", err)
        self.assertNotIn("Cancelled", err)

    def test_usage_errors(self):
        for args in (["cancel"], ["cancel", "--all", "5"]):
            rc, out, err = self.air(*args, "-o", "json")
            self.assertEqual((rc, out), (1, ""), args)
            self.assertIn("Error: ", err)
        self.assertEqual(self.paths(), [])

    def test_finished_run_s44(self):
        self.fw.create_run(std_run(123))
        rc, _, err = self.air("cancel", "123")
        self.assertEqual(rc, 0, err)

    def test_setup_failure_is_internal(self):
        self.fw.config(tokens=["x"])
        self.fw.create_run(listed(11, 1700000002000))
        self.expect_error(["cancel", "--all", "-y"], "INTERNAL_ERROR", "TRANSIENT", True)


class LogsTest(CliCase):
    def test_help_says_an_active_run_is_followed(self):
        rc, out, _ = self.air("logs", "--help")
        self.assertEqual(rc, 0)
        about = out.split("Usage:")[0]
        self.assertIn("An active run is followed until it ends", about)
        self.assertIn("no --follow flag", about)
        self.assertIn("air cancel RUN_ID", about)
        # --follow and -f are not flags of the official tool: the error says
        # that following is the default.
        for flag in ("--follow", "-f"):
            rc, out, err = self.air("logs", "123", flag)
            self.assertEqual((rc, out), (1, ""))
            self.assertIn("unknown flag: %s (air logs follows an active run until it ends by "
                          "default" % flag, err)
        self.assertEqual(self.paths(), [])

    def test_a_failed_output_is_an_error_and_stops_the_stream(self):
        # A full disk: the lines the output misses make `air logs` fail, and
        # it stops at the write that failed (its 1 MiB buffer): a run it
        # follows is followed no further, a finished one read no further.
        running = dict(std_run(123), state={"life_cycle_state": "RUNNING"})
        self.fw.create_run(running)
        self.fw.add_logs(123, synthetic={"count": 200000, "start_ns": 1700000001000000000,
                                         "step_ns": 1000, "text": "step {i}"})
        self.fw.clear_requests()
        with open("/dev/full", "w") as full:
            p = subprocess.run([AIR, "logs", "123"], env=self.env, stdin=subprocess.DEVNULL,
                               stdout=full, stderr=subprocess.PIPE, text=True, timeout=60)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertEqual(p.stderr, "Error: writing standard output: No space left on device\n")
        pages = len(self.fw.requests("GET", LOGS % 123, bodies=False))
        self.assertLess(pages, 15)          # 20 pages of 10000 lines hold them all
        # Any command: the JSON of `air get` is lost as well.
        with open("/dev/full", "w") as full:
            p = subprocess.run([AIR, "get", "123", "-o", "json"], env=self.env,
                               stdin=subprocess.DEVNULL, stdout=full, stderr=subprocess.PIPE,
                               text=True, timeout=60)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("Error: writing standard output: No space left on device", p.stderr)

    def test_tail_s45(self):
        self.fw.create_run(std_run(123))
        self.fw.add_logs(123, records=STD_RECORDS)
        self.fw.clear_requests()
        rc, out, err = self.air("logs", "123")
        self.assertEqual((rc, out), (0, "step 1\nstep 2\nCUDA out of memory\n"), err)
        q = self.fw.requests("GET", LOGS % 123, bodies=False)[0]["query"]
        self.assertEqual(q, {"ascending": ["false"], "from": ["1700000000"], "to": ["1700000012"],
                             "page_size": ["10000"], "filter.node_index": ["0"]})
        rc, out, _ = self.air("logs", "123", "-o", "json")
        ev = self.jsonl(out)
        self.assertEqual([(e["type"], e["line"]) for e in ev], [
            ("LOG", "step 1"), ("LOG", "step 2"), ("ALERT", "CUDA out of memory"),
            ("LOG", "CUDA out of memory")])
        self.assertEqual(list(ev[0].keys()), ["type", "ts", "node", "line"])
        self.assertTrue(all(e["node"] == 0 for e in ev))
        rc, out, _ = self.air("logs", "123", "--lines", "1")
        self.assertEqual(out, "CUDA out of memory\n")
        self.assertEqual(self.fw.requests("GET", LOGS % 123, bodies=False)[-1]["query"]["page_size"], ["1"])
        self.air("logs", "123", "--retry", "0")
        self.assertEqual(self.fw.requests("GET", LOGS % 123, bodies=False)[-1]["query"]["ref.attempt_number"],
                         ["0"])
        rc, out, _ = self.air("logs", "123", "--node", "2", "-o", "json")
        self.assertEqual(self.fw.requests("GET", LOGS % 123, bodies=False)[-1]["query"]["filter.node_index"],
                         ["2"])
        self.assertTrue(all(e["node"] == 2 for e in self.jsonl(out)))

    def test_validation_order_s46(self):
        cases = [
            (["--review", "--lines", "-1"], "--review"),
            (["--download-to", "d", "--lines", "0"], "--download-to"),
            (["--download-to", "d", "--minutes", "5", "--node", "-1"], "--download-to"),
            (["--lines", "100", "--minutes", "30"], "--minutes"),
            (["--lines", "-1", "--minutes", "-1"], "--tail/--lines"),
            (["--minutes", "-1", "--node", "-1"], "--minutes"),
            (["--node", "-1"], "--node"),
            (["--tail", "5", "--lines", "6"], "--tail"),
            (["--minutes", "999999999999999"], "--minutes"),
            (["--retry", "9999999999"], "--retry"),
        ]
        for args, needle in cases:
            self.fw.clear_requests()
            self.expect_error(["logs", "123"] + args, "INVALID_ARGS", "PERMANENT", False, needle)
            self.assertEqual(self.paths(), [], args)
        self.expect_error(["logs", "abc"], "INVALID_ARGS", "PERMANENT", False, "abc")
        rc, out, err = self.air("logs", "123", "--node", "-1")
        self.assertEqual((rc, out), (1, ""))
        self.assertTrue(err.startswith("Error: "))
        rc, _, err = self.air("logs", "123", "--node", "x")
        self.assertEqual(rc, 1)

    def test_minutes_and_lines_zero_s46(self):
        import time
        self.fw.create_run(std_run(123))
        self.fw.add_logs(123, records=STD_RECORDS)
        self.air("logs", "123", "--minutes", "30")
        frm = int(self.fw.requests("GET", LOGS % 123, bodies=False)[0]["query"]["from"][0])
        self.assertLess(abs(frm - (int(time.time()) - 1800)), 10)
        self.fw.clear_requests()
        self.fw.set_output(123, {"ai_runtime_task_output": {"mlflow_experiment_id": "e",
                                                            "mlflow_run_id": "r"}})
        self.fw.mlflow({"r": {"artifacts": {"logs/node_0/logs-0.chunk.txt": "x\n"}}})
        rc, out, err = self.air("logs", "123", "--lines", "0")
        self.assertEqual((rc, out), (0, ""), err)
        self.assertEqual(self.fw.count("GET", LOGS % 123), 0)
        self.fw.set_output(123, {})
        rc, out, _ = self.air("logs", "123", "--lines", "0")
        self.assertIn("123", out)

    def test_follow_s47(self):
        self.fw.create_run({
            "run_id": 123, "start_time": 1700000000000, "state": {"life_cycle_state": "RUNNING"},
            "tasks": [{"run_id": 124, "ai_runtime_task": {"experiment": "x"}}],
            "sequence": [{}, {}, {"state": {"life_cycle_state": "TERMINATED", "result_state": "FAILED"},
                                 "end_time": 1700000030000}]})
        T = lambda s: 1700000000000000000 + int(s * 1e9)  # noqa: E731
        self.fw.fault(path=LOGS % 123, query={"page_token": "p2"}, status=200, body={"log_records": [
            {"time_unix_nano": T(2), "body": "b"}, {"time_unix_nano": T(0.5), "body": "stale"},
            {"time_unix_nano": T(3), "body": "c"}]})
        self.fw.fault(path=LOGS % 123, status=200, body={"log_records": [
            {"time_unix_nano": T(1), "body": "a"}, {"time_unix_nano": T(2), "body": "b"}],
            "next_page_token": "p2"})
        self.fw.fault(path=LOGS % 123, status=200, body={"log_records": [
            {"time_unix_nano": T(3), "body": "c"}, {"time_unix_nano": T(4), "body": "d"}]})
        self.fw.fault(path=LOGS % 123, status=200, body={"log_records": [
            {"time_unix_nano": T(4), "body": "d"}, {"time_unix_nano": T(5), "body": "e"}]})
        rc, out, err = self.air("logs", "123", "-o", "json")
        self.assertEqual(rc, 1, err)
        ev = self.jsonl(out)
        self.assertEqual([(e["type"], e["line"]) for e in ev],
                         [("LOG", x) for x in "abcde"])
        qs = [r["query"] for r in self.fw.requests("GET", LOGS % 123, bodies=False)]
        self.assertEqual(qs[0], {"ascending": ["true"], "from": ["1700000000"], "filter.node_index": ["0"]})
        self.assertEqual(qs[2]["from"], ["1700000003"])
        self.assertEqual(qs[3]["to"], ["1700000030"])

    def mlflow_s48(self, layout="logs/attempt_0/node_0"):
        self.fw.create_run(std_run(123))
        self.fw.set_output(123, {"ai_runtime_task_output": {"mlflow_experiment_id": "exp1",
                                                            "mlflow_run_id": "run1"}})
        self.fw.mlflow({"run1": {"experiment_id": "exp1", "artifacts": {
            layout + "/logs-1.chunk.txt": "line 3\nline 4\n",
            layout + "/logs-0.chunk.txt": "line 1\nline 2\n", layout + "/other.txt": "x"}}})

    def test_mlflow_fallback_s48(self):
        self.mlflow_s48()
        self.fw.config(features={"logs": False})
        self.fw.clear_requests()
        rc, out, err = self.air("logs", "123")
        self.assertEqual((rc, out), (0, "line 1\nline 2\nline 3\nline 4\n"), err)
        self.assertEqual(self.fw.count("GET", LOGS % 123), 1)
        pre = self.fw.requests("GET", "/presigned/*", bodies=False)
        self.assertEqual([p["path"].rsplit("/", 1)[1] for p in pre],
                         ["logs-1.chunk.txt", "logs-0.chunk.txt"])
        for p in pre:
            self.assertNotIn("authorization", p["headers"])
            self.assertEqual(p["headers"]["x-ms-blob-type"], "BlockBlob")
        rc, out, _ = self.air("logs", "123", "--lines", "3")
        self.assertEqual(out, "line 2\nline 3\nline 4\n")

    def test_mlflow_old_layout_and_404_s48(self):
        self.mlflow_s48("logs/node_0")
        self.fw.fault(path=LOGS % 123, status=404, times=-1,
                      body={"error_code": "ENDPOINT_NOT_FOUND", "message": "no"})
        rc, out, err = self.air("logs", "123")
        self.assertEqual((rc, out), (0, "line 1\nline 2\nline 3\nline 4\n"), err)

    def test_persistent_failures_s49(self):
        self.mlflow_s48()
        self.fw.fault(path=LOGS % 123, status=500, times=-1,
                      body={"error_code": "INTERNAL_ERROR", "message": "x"})
        rc, out, err = self.air("logs", "123")
        self.assertEqual((rc, out), (0, "line 1\nline 2\nline 3\nline 4\n"), err)
        self.assertEqual(self.fw.count("GET", LOGS % 123), 5)

    def test_no_logs_s50(self):
        self.fw.create_run({"run_id": 9, "start_time": 1700000000000, "end_time": 1700000001000,
                            "state": {"life_cycle_state": "TERMINATED", "result_state": "FAILED",
                                      "state_message": "boom"},
                            "tasks": [{"ai_runtime_task": {}}], "output": {}})
        rc, out, err = self.air("logs", "9")
        self.assertEqual(rc, 1, err)
        self.assertEqual(len(out.splitlines()), 1)
        self.assertIn("9", out)
        self.assertTrue(out.rstrip("\n").endswith("FAILED: boom"), out)
        rc, out, _ = self.air("logs", "9", "-o", "json")
        ev = self.jsonl(out)
        self.assertEqual(rc, 1)
        self.assertEqual([e["type"] for e in ev], ["ERROR"])
        self.assertEqual(ev[0]["node"], 0)
        self.assertTrue(ev[0]["line"].endswith("FAILED: boom"))
        self.fw.update_run(9, state={"life_cycle_state": "TERMINATED", "result_state": "SUCCESS"})
        rc, _, _ = self.air("logs", "9")
        self.assertEqual(rc, 0)

    def test_attempts_s51(self):
        self.fw.create_run({"run_id": 77, "start_time": 1700000000000, "state": {"life_cycle_state": "RUNNING"},
                            "tasks": [{"run_id": 78, "attempt_number": 0, "ai_runtime_task": {}},
                                      {"run_id": 79, "attempt_number": 1, "ai_runtime_task": {}}]})
        self.fw.add_logs(77, records=[{"time_unix_nano": 1700000001000000000, "body": "try 0", "attempt": 0}])
        self.expect_error(["logs", "77", "--retry", "2"], "INVALID_ARGS", "PERMANENT", False, "0..1")
        self.fw.clear_requests()
        rc, out, err = self.air("logs", "77", "--retry", "0")
        self.assertEqual((rc, out), (0, "try 0\n"), err)
        self.assertEqual(self.fw.count("GET", "/api/2.2/jobs/runs/get"), 1)
        q = self.fw.requests("GET", LOGS % 77, bodies=False)[0]["query"]
        self.assertEqual((q["ref.attempt_number"], q["ascending"]), (["0"], ["false"]))

    def test_not_found_s35(self):
        self.expect_error(["logs", "5"], "NOT_FOUND", "NOT_FOUND", False, "5")

    def test_download_s52(self):
        self.fw.create_run({"run_id": 123, "start_time": 1700000000000, "end_time": 1700000001000,
                            "state": {"life_cycle_state": "TERMINATED", "result_state": "SUCCESS"},
                            "tasks": [{"run_id": 124, **air_task("d", "GPU_1xA10", 2)}]})
        self.fw.set_output(123, {"ai_runtime_task_output": {"mlflow_experiment_id": "exp1",
                                                            "mlflow_run_id": "run1"}})
        self.fw.mlflow({"run1": {"artifacts": {
            "logs/node_0/logs-0.chunk.txt": "a\r\nb\r\n", "logs/node_0/logs-1.chunk.txt": "c\n",
            "logs/node_1/logs-0.chunk.txt": "z\n"}}})
        self.fw.fault(path="/presigned/run1/logs/node_1/logs-0.chunk.txt", status=500, times=-1)
        out_dir = os.path.join(self.home, "out")
        rc, out, err = self.air("logs", "123", "--download-to", out_dir)
        self.assertEqual(rc, 1, err)  # a node failed: the download is incomplete
        with open(os.path.join(out_dir, "logs", "node_0.log"), "rb") as f:
            self.assertEqual(f.read(), b"a\r\nb\r\nc\n")
        self.assertFalse(os.path.exists(os.path.join(out_dir, "logs", "node_1.log")))
        self.assertIn("1 of 2", err)
        self.assertRegex(err, r"Warning: node 1")
        # Once node 1 downloads too, the command succeeds; a later download
        # whose middle chunk fails keeps the good file and says it failed.
        self.fw.clear_faults()
        rc, _, err = self.air("logs", "123", "--download-to", out_dir)
        self.assertEqual(rc, 0, err)
        self.fw.fault(path="/presigned/run1/logs/node_0/logs-1.chunk.txt", status=500, times=-1)
        rc, _, err = self.air("logs", "123", "--download-to", out_dir)
        self.assertEqual(rc, 1, err)
        self.assertIn("node_0.log was left as it was", err)
        with open(os.path.join(out_dir, "logs", "node_0.log"), "rb") as f:
            self.assertEqual(f.read(), b"a\r\nb\r\nc\n")
        self.assertEqual(sorted(os.listdir(os.path.join(out_dir, "logs"))),
                         ["node_0.log", "node_1.log"])
        self.expect_error(["logs", "123", "--download-to", out_dir, "--node", "5"],
                          "INVALID_ARGS", "PERMANENT", False, "0..1")
        self.fw.fault(path="/presigned/*", status=500, times=-1)
        self.expect_error(["logs", "123", "--download-to", out_dir + "2"],
                          "INTERNAL_ERROR", "TRANSIENT", True)
        self.fw.set_output(123, {})
        rc, out, _ = self.air("logs", "123", "--download-to", out_dir + "3")
        self.assertEqual(rc, 0)
        self.assertIn("123", out)


class PoolsTest(CliCase):
    def test_list_pools(self):
        self.fw.pools([{"id": "p1", "accelerator_type": "GPU_8xH100", "accelerator_count": 16},
                       {"name": "provisioned-capacities/p2", "spec": {"accelerator_type": "GPU_1xA10",
                                                                      "accelerator_count": "4"}}])
        rc, out, err = self.air("list", "pools", "-o", "json")
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.envelope(out)["data"], {"pools": [
            {"pool_id": "p1", "accelerator_type": "GPU_8xH100", "reserved_accelerators": 16},
            {"pool_id": "p2", "accelerator_type": "GPU_1xA10", "reserved_accelerators": 4}]})
        rc, out, _ = self.air("list", "pools")
        self.assertEqual(out.splitlines()[0].split(), ["ID", "ACCELERATOR", "RESERVED"])
        self.assertRegex(out, r"p2\s+GPU_1xA10\s+4")
        self.fw.pools([])
        rc, out, _ = self.air("list", "pools")
        self.assertEqual((rc, len(out.splitlines())), (0, 1))
        self.assertIn("No GPU pools", out)

    def test_get_pool(self):
        self.fw.pools([{"id": "p1", "accelerator_type": "GPU_8xH100", "accelerator_count": 16,
                        "used": 3, "idle": 13},
                       {"name": "provisioned-capacities/p2", "spec": {"accelerator_type": "GPU_1xA10",
                                                                      "accelerator_count": 4}}])
        rc, out, err = self.air("get", "pool", "provisioned-capacities/p1", "-o", "json")
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.envelope(out)["data"], {
            "pool_id": "p1", "accelerator_type": "GPU_8xH100", "reserved_accelerators": 16,
            "used_accelerators": 3, "idle_accelerators": 13})
        rc, out, _ = self.air("get", "pool", "p2", "-o", "json")
        data = self.envelope(out)["data"]
        self.assertIsNone(data["used_accelerators"])
        self.assertIsNone(data["idle_accelerators"])
        self.expect_error(["get", "pool", " "], "INVALID_ARGS", "PERMANENT", False)
        self.expect_error(["get", "pool", "provisioned-capacities/"], "INVALID_ARGS",
                          "PERMANENT", False)
        self.expect_error(["get", "pool", "nope"], "NOT_FOUND", "NOT_FOUND", False)
        self.fw.config(features={"pools": False})
        self.expect_error(["get", "pool", "p1"], "FEATURE_DISABLED", "PERMANENT", False)
        self.expect_error(["list", "pools"], "FEATURE_DISABLED", "PERMANENT", False)


class WatchTest(CliCase):
    def submit(self, *args, **kw):
        d = tempfile.mkdtemp(dir=self.home)
        path = os.path.join(d, "valid.yaml")
        with open(path, "w") as f:
            f.write(VALID_YAML)
        return self.air("run", "-f", path, "--watch", *args, **kw)

    def lifecycle(self, result="SUCCESS"):
        self.fw.config(lifecycle={"pending_ms": 400, "running_ms": 800, "result": result},
                       auto_logs={"count": 2, "text": "step {i}"})

    def test_json_success_s53(self):
        self.lifecycle()
        rc, out, err = self.submit("-o", "json")
        self.assertEqual(rc, 0, err)
        ev = self.jsonl(out)
        H = self.fw.url
        self.assertEqual(ev[0], {"type": "SUBMITTED", "ts": ev[0]["ts"], "run_id": "555",
                                 "dashboard_url": H + "/jobs/runs/555"})
        statuses = [(e["status"], e.get("previous_status")) for e in ev if e.get("type") == "STATUS"]
        self.assertEqual(statuses, [("PENDING", None), ("RUNNING", "PENDING"), ("SUCCESS", "RUNNING")])
        self.assertNotIn("previous_status", ev[1])
        self.assertEqual(ev[1]["type"], "STATUS")
        # The lines come with the polls between the first and the last STATUS
        # (the first line may already arrive with the poll that saw PENDING).
        self.assertEqual([e["line"] for e in ev if e.get("type") == "LOG"], ["step 0", "step 1"])
        self.assertEqual(ev[-2]["type"], "STATUS")
        self.assertEqual(ev[-1]["data"], {"status": "SUCCESS", "run_id": "555",
                                          "dashboard_url": H + "/jobs/runs/555"})
        self.assertEqual(list(ev[-1].keys()), ["v", "ts", "data"])
        self.assertEqual(out.splitlines()[-1], json.dumps(ev[-1], separators=(",", ":")))
        self.assertEqual(self.fw.count("GET", "/api/2.0/mlflow/runs/get"), 0)

    def test_json_run_finished_before_the_first_poll(self):
        # As docs/cli.md says: STATUS events are the states the polls saw, so
        # a run that ended before the first poll has no RUNNING; its lines
        # (the tail) follow the STATUS event of the poll that fetched them.
        self.fw.config(lifecycle={"pending_ms": 0, "running_ms": 0, "result": "SUCCESS"},
                       auto_logs={"count": 2, "text": "step {i}"})
        rc, out, err = self.submit("-o", "json")
        self.assertEqual(rc, 0, err)
        ev = self.jsonl(out)
        self.assertEqual([(e.get("type"), e.get("status") or e.get("line")) for e in ev[:-1]],
                         [("SUBMITTED", None), ("STATUS", "SUCCESS"), ("LOG", "step 0"),
                          ("LOG", "step 1")])
        self.assertEqual(ev[-1]["data"]["status"], "SUCCESS")

    def test_text_failure_s54(self):
        self.lifecycle("FAILED")
        rc, out, err = self.submit()
        self.assertEqual(rc, 1, err)
        lines = out.splitlines()
        i = lines.index("")
        self.assertIn("555", lines[i + 1])
        self.assertEqual(len(lines[i + 2]), 60)
        self.assertIn(" Logs ", lines[i + 2])
        self.assertEqual(lines[i + 3:], ["step 0", "step 1"])

    def test_fallback_terminal_status_s54(self):
        # A run that is already SUCCESS at the first check: tail, then MLflow.
        self.fw.config(lifecycle={"pending_ms": 0, "running_ms": 0, "result": "SUCCESS"},
                       features={"logs": False})
        mrun = hashlib.md5(b"fakews-555").hexdigest()
        self.fw.mlflow({mrun: {"artifacts": {"logs/node_0/logs-0.chunk.txt": "step 1\nstep 2\n"}}})
        rc, out, err = self.submit("-o", "json")
        self.assertEqual(rc, 0, err)
        ev = self.jsonl(out)
        self.assertEqual([e.get("type") for e in ev], ["SUBMITTED", "STATUS", "LOG", "LOG", None])
        self.assertEqual(ev[-1]["data"]["status"], "SUCCESS")

    def test_run_deleted_mid_watch_s54(self):
        self.fw.config(lifecycle={"pending_ms": 0, "running_ms": 60000})
        self.fw.fault(path="/api/2.2/jobs/runs/get", after=2, times=-1, status=400,
                      body={"error_code": "RESOURCE_DOES_NOT_EXIST", "message": "Run 555 does not exist."})
        rc, out, err = self.submit("-o", "json")
        self.assertEqual(rc, 1, err)
        m = re.search(r'^\{\n  "v": 1,.*?^\}$', out, re.S | re.M)
        self.assertTrue(m, out)
        self.assertEqual(json.loads(m.group(0))["error"]["code"], "NOT_FOUND")
        self.assertEqual(json.loads(out.splitlines()[-1])["data"]["status"], "UNKNOWN")


if __name__ == "__main__":
    unittest.main()

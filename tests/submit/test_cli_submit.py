"""`air run` submissions end to end against the fake workspace: output shapes
and exit codes of SCENARIOS S05.7, S08, S09, S13, S23, S24 and S26, the
--watch hand-over, and the code snapshot's "Uploading <archive>..." line (on
a pipe and on a terminal)."""

import json
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.join(os.environ.get("AIR_SOURCE_ROOT", "."), "tests", "support"))
from cli_case import AIR, WorkspaceCase, run_on_terminal  # noqa: E402

VALID = ("experiment_name: smoke-test\n"
         "command: python train.py\n"
         "compute:\n"
         "  accelerator_type: GPU_1xH100\n"
         "  num_accelerators: 1\n")
U = "/Workspace/Users/tester@databricks.com"


class RunSubmit(WorkspaceCase):
    def setUp(self):
        super().setUp()
        self.yaml = os.path.join(self.tmp.name, "valid.yaml")
        with open(self.yaml, "w") as f:
            f.write(VALID)

    def paths(self):
        return ["%s %s" % (r["method"], r["path"]) for r in self.fw.requests(bodies=False)]

    def test_s08_text(self):
        rc, out, err = self.air("run", "-f", self.yaml)
        self.assertEqual(rc, 0, err)
        lines = out.splitlines()
        self.assertTrue(any("555" in l and "Run ID" in l for l in lines), out)
        dash = self.fw.url + "/jobs/runs/555"
        self.assertTrue(any(l.endswith(dash) for l in lines), out)
        self.assertNotIn("?o=", out)
        self.assertIn("smoke-test", err)
        self.assertIn("--watch", err)
        self.assertNotIn("Error", err)
        calls = self.paths()
        self.assertEqual(calls[:3], ["GET /api/2.0/preview/scim/v2/Me",
                                     "POST /api/2.0/ai-training/config:validate",
                                     "POST /api/2.0/workspace/mkdirs"])
        self.assertEqual(sum(c.startswith("POST /api/2.0/workspace-files/import-file/") for c in calls), 2)
        self.assertEqual(calls.count("POST /api/2.2/jobs/runs/submit"), 1)
        # best-effort MLflow links: one runs/get, at most three get-output reads
        self.assertEqual(calls.count("GET /api/2.2/jobs/runs/get"), 1)
        self.assertLessEqual(calls.count("GET /api/2.2/jobs/runs/get-output"), 3)
        after = calls[calls.index("POST /api/2.2/jobs/runs/submit") + 1:]
        self.assertTrue(all(c.startswith("GET /api/2.2/jobs/runs/get") for c in after), after)
        # the fake runs start at once, so the links resolve
        self.assertTrue(any("/ml/experiments/" in l and "/runs/" in l for l in lines), out)
        # same command_path in the pre-flight and the submission
        pre = json.loads(self.fw.last("POST", "/api/2.0/ai-training/config:validate")["body"])
        sub = json.loads(self.fw.last("POST", "/api/2.2/jobs/runs/submit")["body"])
        cp = pre["task"]["deployments"][0]["command_path"]
        self.assertRegex(cp, r"^%s/\.air/cli_launch/smoke-test/smoke-test_[0-9a-f]{16}/command\.sh$" % re.escape(U))
        self.assertEqual(sub["tasks"][0]["ai_runtime_task"]["deployments"][0]["command_path"], cp)

    def test_s09_json(self):
        rc, out, err = self.air("run", "-f", self.yaml, "-o", "json")
        self.assertEqual(rc, 0, err)
        env = json.loads(out)
        self.assertEqual(list(env), ["v", "ts", "data"])
        self.assertEqual(env["v"], 1)
        self.assertRegex(env["ts"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
        self.assertEqual(env["data"], {"status": "PENDING", "run_id": "555",
                                       "dashboard_url": self.fw.url + "/jobs/runs/555"})
        self.assertNotIn("smoke-test", err)
        self.assertEqual(self.fw.count("GET", "/api/2.2/jobs/runs/get"), 0)
        self.assertEqual(self.fw.count("GET", "/api/2.2/jobs/runs/get-output"), 0)

    def test_s13_preflight_rejection(self):
        self.fw.config(preflight={"errors": [
            {"path": "experiment", "message": "only letters", "code": "DISALLOWED_CHARACTERS"},
            {"path": "deployments[0].compute.accelerator_count", "message": "must be a multiple of 8",
             "code": "COUNT_NOT_MULTIPLE"}]})
        for mode in ([], ["-o", "json"]):
            self.fw.clear_requests()
            rc, out, err = self.air("run", "-f", self.yaml, *mode)
            self.assertEqual(rc, 1)
            self.assertEqual(out, "")
            self.assertTrue(err.startswith("Error: ") or "\nError: " in err, err)
            self.assertIn("experiment: only letters", err)
            self.assertIn("deployments[0].compute.accelerator_count: must be a multiple of 8", err)
            self.assertEqual(self.paths(), ["GET /api/2.0/preview/scim/v2/Me",
                                            "POST /api/2.0/ai-training/config:validate"])

    def test_s23_idempotency_key_reuse(self):
        ids = []
        for _ in range(2):
            rc, out, err = self.air("run", "-f", self.yaml, "--idempotency-key", "my-key-1", "-o", "json")
            self.assertEqual(rc, 0, err)
            ids.append(json.loads(out)["data"]["run_id"])
            body = json.loads(self.fw.last("POST", "/api/2.2/jobs/runs/submit")["body"])
            self.assertEqual(body["idempotency_token"], "my-key-1")
        self.assertEqual(ids, ["555", "555"])
        self.assertEqual(len(self.fw.runs()), 1)
        mkdirs = [json.loads(r["body"])["path"] for r in self.fw.requests("POST", "/api/2.0/workspace/mkdirs")]
        self.assertEqual(len(set(mkdirs)), 2)

    def test_s24_overlong_key(self):
        rc, out, err = self.air("run", "-f", self.yaml, "--idempotency-key", "k" * 65, "-o", "json")
        self.assertEqual(rc, 1)
        self.assertEqual(out, "")
        self.assertIn("Error: ", err)
        self.assertIn("64", err)
        self.assertEqual(self.paths(), ["GET /api/2.0/preview/scim/v2/Me",
                                        "POST /api/2.0/ai-training/config:validate"])

    def test_empty_key_is_a_usage_error(self):
        for key in ("", "  "):
            self.fw.clear_requests()
            rc, out, err = self.air("run", "-f", self.yaml, "--idempotency-key", key, "-o", "json")
            self.assertEqual(rc, 1)
            self.assertEqual(out, "")
            self.assertIn("Error: --idempotency-key is empty", err)
            self.assertIn("Usage:", err)
            self.assertEqual(self.paths(), [])
        self.assertEqual(self.fw.runs(), [])

    def test_s26_submit_rejected(self):
        self.fw.fault(method="POST", path="/api/2.2/jobs/runs/submit", status=400,
                      body={"error_code": "INVALID_PARAMETER_VALUE", "message": "bad accelerator"})
        rc, out, err = self.air("run", "-f", self.yaml, "-o", "json")
        self.assertEqual(rc, 1)
        self.assertEqual(out, "")
        self.assertRegex(err, r"(?m)^Error: .*bad accelerator")

    def test_s05_override_reaches_artifacts_not_the_uploaded_file(self):
        rc, out, err = self.air("run", "-f", self.yaml, "--override", "env_variables.RANK=0")
        self.assertEqual(rc, 0, err)
        files = [f["path"] for f in self.fw.files()["files"]]
        launch = [p for p in files if p.endswith("/env_vars.json")]
        self.assertEqual(len(launch), 1)
        self.assertEqual(json.loads(self.fw.file(launch[0])), [{"name": "RANK", "value": "0"}])
        cfg = launch[0].replace("/env_vars.json", "/training_config.yaml")
        self.assertEqual(self.fw.file(cfg).decode(), VALID)

    def test_failures_before_submission_are_plain_errors(self):
        self.fw.config(tokens=["something-else"])
        rc, out, err = self.air("run", "-f", self.yaml, "-o", "json")
        self.assertEqual(rc, 1)
        self.assertEqual(out, "")
        self.assertIn("Error: ", err)
        self.assertNotIn("dapi-test", err)  # secrets never in messages

    def test_watch_json_starts_with_submitted(self):
        rc, out, err = self.air("run", "-f", self.yaml, "--watch", "-o", "json")
        self.assertEqual(rc, 0, err)
        lines = [json.loads(l) for l in out.splitlines()]
        self.assertEqual(lines[0]["type"], "SUBMITTED")
        self.assertEqual(lines[0]["run_id"], "555")
        self.assertEqual(lines[0]["dashboard_url"], self.fw.url + "/jobs/runs/555")
        self.assertFalse(any(l.get("data", {}).get("status") == "PENDING" for l in lines), out)

    def test_watch_text_prints_the_submit_lines_first(self):
        rc, out, err = self.air("run", "-f", self.yaml, "--watch")
        self.assertEqual(rc, 0, err)
        lines = out.splitlines()
        self.assertIn("555", lines[0])
        self.assertTrue(lines[1].endswith("/jobs/runs/555"), out)
        self.assertNotIn("/ml/experiments/", out)  # no MLflow link poll in watch mode

    def code_source_yaml(self):
        src = os.path.join(self.tmp.name, "proj")
        os.mkdir(src)
        with open(os.path.join(src, "train.py"), "w") as f:
            f.write("print(1)\n")
        path = os.path.join(self.tmp.name, "code.yaml")
        with open(path, "w") as f:
            f.write(VALID + "code_source:\n  root_path: ./proj\n")
        return path

    def test_uploading_line_off_a_terminal(self):
        yaml = self.code_source_yaml()
        rc, out, err = self.air("run", "-f", yaml)
        self.assertEqual(rc, 0, err)
        lines = [l for l in err.splitlines() if l.startswith("Uploading")]
        self.assertEqual(len(lines), 1, err)
        self.assertRegex(lines[0], r"^Uploading proj_\d{8}_\d{6}\.tar\.gz\.\.\.$")
        self.assertNotIn("KiB", err)  # the progress bar is for terminals only
        self.assertNotIn("\r", err)
        sub = json.loads(self.fw.last("POST", "/api/2.2/jobs/runs/submit")["body"])
        self.assertTrue(sub["tasks"][0]["ai_runtime_task"]["code_source_path"].endswith(
            lines[0][len("Uploading "):-3]))
        rc, out, err = self.air("run", "-f", yaml, "-o", "json")
        self.assertEqual(rc, 0, err)
        self.assertNotIn("Uploading", err)

    def test_uploading_line_on_a_terminal(self):
        yaml = self.code_source_yaml()
        rc, _, _, term = run_on_terminal([AIR, "run", "-f", yaml], self.env, ("stderr",))
        self.assertEqual(rc, 0, term)
        self.assertRegex(term, r"Uploading proj_\d{8}_\d{6}\.tar\.gz\.\.\. \(\d+/\d+ KiB\)")


if __name__ == "__main__":
    unittest.main()

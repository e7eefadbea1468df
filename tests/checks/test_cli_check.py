"""`air check` and `air run --check` end to end against the fake workspace
and the local workspace: one line per check (mark, field, message) in text,
the JSON envelope, the exit status (failures; warnings with --strict),
--override, a run that submits nothing when its check fails, and the
accelerator types of a configured workspace in `air run -h config.compute`."""

import json
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.environ.get("AIR_SOURCE_ROOT", "."), "tests", "support"))
from cli_case import WorkspaceCase  # noqa: E402

PINNED = ("experiment_name: smoke-test\n"
          "command: python train.py\n"
          "compute: {accelerator_type: GPU_1xH100, num_accelerators: 1}\n"
          "environment: {version: '6', dependencies: [numpy==1.26.4]}\n")


class Check(WorkspaceCase):
    EXTRA_ENV = {"LC_ALL": "C.UTF-8"}

    def setUp(self):
        super().setUp()
        self.yaml = os.path.join(self.home, "w.yaml")
        self.write(PINNED + "secrets: {HF_TOKEN: ml/hf}\n")
        self.fw.call("POST", "/__fakews/secrets", {"scopes": {"ml": {"hf": "hf_value_0123"}}})

    def write(self, text):
        with open(self.yaml, "w") as f:
            f.write(text)

    def test_text_lines_and_exit_status(self):
        rc, out, err = self.air("check", "-f", self.yaml)
        self.assertEqual(rc, 0, out + err)
        lines = out.splitlines()
        self.assertIn("\u2713 secrets.HF_TOKEN: secret scope ml exists", lines)
        self.assertIn("\u2713 preflight: the workspace accepts the configuration", lines)
        self.assertIn("\u2713 environment.version: pinned to environment version 6", lines)
        self.assertRegex(err, r"\d+ passed, 0 warnings, 0 failed, \d+ skipped")
        self.assertNotIn("hf_value_0123", out + err)
        # a failing check: exit 1, marked
        self.write(PINNED + "secrets: {HF_TOKEN: ml/nope}\n")
        rc, out, err = self.air("check", "-f", self.yaml)
        self.assertEqual(rc, 1, out + err)
        self.assertIn("\u2717 secrets.HF_TOKEN: scope ml has no key nope", out.splitlines())

    def test_ascii_marks_without_utf8(self):
        rc, out, err = self.air("check", "-f", self.yaml, env={"LC_ALL": "C"})
        self.assertEqual(rc, 0, err)
        self.assertIn("+ preflight: the workspace accepts the configuration", out.splitlines())

    def test_warnings_fail_only_with_strict(self):
        self.write(PINNED.replace("numpy==1.26.4", "numpy"))
        rc, out, err = self.air("check", "-f", self.yaml)
        self.assertEqual(rc, 0, out + err)
        self.assertIn("! environment.dependencies[0]: numpy is not pinned", out)
        rc, out, err = self.air("check", "-f", self.yaml, "--strict")
        self.assertEqual(rc, 1, out + err)

    def test_json(self):
        self.write(PINNED + "secrets: {HF_TOKEN: other/hf}\n")
        rc, out, err = self.air("-o", "json", "check", "-f", self.yaml)
        self.assertEqual(rc, 1, err)
        doc = json.loads(out)
        self.assertEqual(doc["v"], 1)
        self.assertIs(doc["data"]["ok"], False)
        checks = doc["data"]["checks"]
        self.assertIn({"name": "secret_scope", "status": "fail", "field": "secrets.HF_TOKEN",
                       "message": "secret scope other does not exist in the workspace"}, checks)
        for c in checks:
            self.assertEqual(list(c)[:4], ["name", "status", "field", "message"])
            self.assertIn(c["status"], ("pass", "warn", "fail", "skipped"))
        pre = [c for c in checks if c["name"] == "preflight"]
        self.assertEqual(pre, [{"name": "preflight", "status": "pass", "field": None,
                                "message": "the workspace accepts the configuration"}])
        self.assertEqual(err, "")

    def test_override_and_usage(self):
        rc, out, err = self.air("check", "-f", self.yaml, "--override", "secrets.HF_TOKEN=ml/x")
        self.assertEqual(rc, 1, out + err)
        self.assertIn("changing secrets.HF_TOKEN from ml/hf to ml/x", err)
        self.assertIn("scope ml has no key x", out)
        rc, out, err = self.air("check")
        self.assertEqual(rc, 1)
        self.assertIn('Error: required flag(s) "file" not set', err)
        rc, out, err = self.air("check", "--help")
        self.assertEqual(rc, 0)
        self.assertIn("--strict", out)

    def test_nothing_uploaded_or_submitted(self):
        rc, out, err = self.air("check", "-f", self.yaml)
        self.assertEqual(rc, 0, err)
        for r in self.fw.requests(bodies=False):
            self.assertTrue(r["method"] in ("GET", "HEAD") or
                            r["path"] == "/api/2.0/ai-training/config:validate", r)

    def test_run_check_submits_nothing_when_it_fails(self):
        self.write(PINNED + "secrets: {HF_TOKEN: ml/nope}\n")
        rc, out, err = self.air("run", "-f", self.yaml, "--check")
        self.assertEqual(rc, 1, out + err)
        self.assertEqual(out, "")
        self.assertIn("\u2717 secrets.HF_TOKEN: scope ml has no key nope", err)
        self.assertIn("Error: the check failed (1 failed check): nothing was submitted", err)
        self.assertEqual(self.fw.count("POST", "/api/2.2/jobs/runs/submit"), 0)
        self.assertEqual(self.fw.count("POST", "/api/2.0/workspace/mkdirs"), 0)

    def test_run_check_then_submits(self):
        self.write(PINNED.replace("numpy==1.26.4", "numpy") + "secrets: {HF_TOKEN: ml/hf}\n")
        rc, out, err = self.air("-o", "json", "run", "-f", self.yaml, "--check")
        self.assertEqual(rc, 0, err)
        self.assertEqual(json.loads(out)["data"]["run_id"], "555")
        # the warning is shown, the run submitted
        self.assertIn("! environment.dependencies[0]: numpy is not pinned", err)
        self.assertEqual(self.fw.count("POST", "/api/2.2/jobs/runs/submit"), 1)

    def test_run_check_with_dry_run_stays_offline(self):
        rc, out, err = self.air("run", "-f", self.yaml, "--check", "--dry-run")
        self.assertEqual(rc, 0, err)
        self.assertIn("nothing was submitted", err)
        self.assertEqual(self.fw.requests(bodies=False), [])

    def test_local(self):
        self.write(PINNED + "secrets: {HF_TOKEN: ml/hf}\n")
        state = os.path.join(self.home, "state")
        env = {"DATABRICKS_HOST": "local://" + state, "HF_TOKEN": "local-value-1234"}
        rc, out, err = self.air("check", "-f", self.yaml, env=env)
        self.assertIn("\u2713 secrets.HF_TOKEN: HF_TOKEN (ml/hf) has a local value: the "
                      "environment variable HF_TOKEN", out.splitlines())
        self.assertNotIn("local-value-1234", out + err)
        self.assertIn("- compute.accelerator_type: a local workspace takes every accelerator type",
                      out)
        self.assertEqual(rc, 0, out + err)
        env.pop("HF_TOKEN")
        rc, out, err = self.air("check", "-f", self.yaml, env=env)
        self.assertEqual(rc, 1, out + err)
        self.assertIn("\u2717 secrets.HF_TOKEN: secret HF_TOKEN (ml/hf) has no local value", out)
        self.assertEqual(self.fw.requests(bodies=False), [])


class ComputeHelp(WorkspaceCase):
    def test_offered_types_of_a_configured_workspace(self):
        self.fw.config(compute_options=["GPU_1xA10", "GPU_FUTURE", "GPU_8xH100"])
        rc, out, err = self.air("run", "-h", "config.compute")
        self.assertEqual(rc, 0, err)
        self.assertTrue(out.endswith("\n  This workspace offers: GPU_1xA10, GPU_8xH100\n"), out)
        self.assertEqual(err, "")
        self.assertEqual(self.fw.count("GET", "/api/2.0/ai-compute-manager/compute-options"), 1)

    def test_failure_is_a_warning_and_the_help_stays(self):
        self.fw.fault(path="/api/2.0/ai-compute-manager/compute-options", status=403, times=-1,
                      body={"error_code": "FEATURE_DISABLED", "message": "off"})
        rc, out, err = self.air("run", "-h", "config.compute.accelerator_type")
        self.assertEqual(rc, 0, err)
        self.assertIn("GPU_1xA10", out)
        self.assertNotIn("This workspace offers", out)
        self.assertIn("Warning: the accelerator types this workspace offers are not known", err)

    def test_offline_without_a_workspace(self):
        env = {k: v for k, v in self.env.items() if not k.startswith("DATABRICKS_")}
        env["DATABRICKS_CONFIG_FILE"] = os.path.join(self.home, "databrickscfg")
        self.env = env
        rc, out, err = self.air("run", "-h", "config.compute")
        self.assertEqual(rc, 0, err)
        self.assertNotIn("This workspace offers", out)
        self.assertEqual(err, "")
        self.assertEqual(self.fw.requests(bodies=False), [])


if __name__ == "__main__":
    unittest.main()

"""`air convert-to-dabs YAML_PATH [--output-dir DIR] [--force]` end to end
(docs/cli.md#run-a-workload-as-a-job-air-convert-to-dabs-yaml_path): the files
written and the next steps, the default output directory, --force, the
refusals as plain errors (also under -o json), and that the workspace is never
contacted. The bundle's content is checked
field by field by tests/submit/test_bundle.c."""

import json
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.environ.get("AIR_SOURCE_ROOT", "."), "tests", "support"))
from cli_case import WorkspaceCase  # noqa: E402

WORKLOAD = ("experiment_name: train-llm\n"
            "command: python train.py\n"
            "compute: {accelerator_type: GPU_8xH100, num_accelerators: 8}\n"
            "code_source: {root_path: ./src}\n"
            "env_variables: {A: '1'}\n")
FILES = ["databricks.yml", "generated_artifacts/training_config.yaml",
         "generated_artifacts/command.sh", "generated_artifacts/env_vars.json"]


class ConvertToDabs(WorkspaceCase):
    """A workspace is configured, and must not be contacted."""

    def setUp(self):
        super().setUp()
        self.proj = os.path.realpath(os.path.join(self.tmp.name, "proj"))
        os.makedirs(os.path.join(self.proj, "src"))
        self.yaml = self.write("train.yaml", WORKLOAD)

    def write(self, name, text):
        path = os.path.join(self.proj, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def air(self, *args, cwd=None):
        return super().air(*args, cwd=cwd or self.tmp.name)

    def test_text_default_output_dir(self):
        rc, out, err = self.air("convert-to-dabs", "proj/train.yaml")
        self.assertEqual(rc, 0, err)
        self.assertEqual(err, "")
        lines = out.splitlines()
        self.assertIn(self.proj, lines[0])
        self.assertIn("train-llm", lines[0])
        self.assertEqual([l.strip() for l in lines[1:5]], FILES)
        # The official tool's closing block, then the way to remove the job.
        head = lines.index("To deploy and run this workload as a bundle:")
        self.assertEqual([l.strip() for l in lines[head + 1:head + 4]],
                         ["1. databricks bundle validate", "2. databricks bundle deploy",
                          "3. databricks bundle run train-llm"])
        self.assertIn(self.proj, lines[head + 4])
        self.assertIn("databricks bundle destroy", lines[head + 4])
        self.assertEqual(len(lines), head + 5)
        for f in FILES:
            self.assertTrue(os.path.isfile(os.path.join(self.proj, f)), f)
        with open(os.path.join(self.proj, "databricks.yml")) as f:
            text = f.read()
        self.assertIn("code_source_path: ./src", text)
        self.assertIn("command_path: ./generated_artifacts/command.sh", text)
        with open(os.path.join(self.proj, "generated_artifacts/training_config.yaml")) as f:
            self.assertEqual(f.read(), WORKLOAD)
        self.assertEqual(self.fw.count(), 0)

    def test_json_output_dir_and_force(self):
        out_dir = os.path.join(self.proj, "bundle")
        self.write("train.yaml", WORKLOAD.replace("./src", "project_root/src"))
        os.makedirs(out_dir)
        rc, out, err = self.air("convert-to-dabs", self.yaml, "--output-dir", self.proj, "-o", "json")
        self.assertEqual(rc, 0, err)
        data = json.loads(out)["data"]
        self.assertEqual(data, {"bundle_dir": self.proj, "job_key": "train-llm", "files": FILES,
                                "removed": []})
        # again: refused, naming the file and --force; nothing on stdout
        for mode in ([], ["-o", "json"]):
            rc, out, err = self.air("convert-to-dabs", self.yaml, *mode)
            self.assertEqual((rc, out), (1, ""))
            self.assertIn("Error: databricks.yml already exists", err)
            self.assertIn("--force", err)
        self.write("train.yaml", WORKLOAD.replace("env_variables: {A: '1'}\n", ""))
        rc, out, err = self.air("convert-to-dabs", self.yaml, "--force")
        self.assertEqual(rc, 0, err)
        self.assertIn("generated_artifacts/env_vars.json (removed", out)
        self.assertFalse(os.path.exists(os.path.join(self.proj, "generated_artifacts/env_vars.json")))
        # a directory that does not hold the code
        rc, out, err = self.air("convert-to-dabs", self.yaml, "--output-dir", out_dir)
        self.assertEqual((rc, out), (1, ""))
        self.assertIn("bundle root", err)
        self.assertFalse(os.listdir(out_dir))
        self.assertEqual(self.fw.count(), 0)

    def test_force_never_writes_or_deletes_through_a_link_leaving_the_bundle(self):
        outside = os.path.join(self.tmp.name, "outside")
        os.mkdir(outside)
        for name, text in (("env_vars.json", "precious\n"), ("command.sh", "keep\n")):
            with open(os.path.join(outside, name), "w") as f:
                f.write(text)
        os.symlink(outside, os.path.join(self.proj, "generated_artifacts"))
        self.write("train.yaml", WORKLOAD.replace("env_variables: {A: '1'}\n", ""))
        for mode in ([], ["-o", "json"]):
            rc, out, err = self.air("convert-to-dabs", self.yaml, "--force", *mode)
            self.assertEqual((rc, out), (1, ""))
            self.assertTrue(err.startswith("Error: generated_artifacts is a symbolic link to %s"
                                           % outside), err)
        self.assertEqual(sorted(os.listdir(outside)), ["command.sh", "env_vars.json"])
        with open(os.path.join(outside, "command.sh")) as f:
            self.assertEqual(f.read(), "keep\n")
        self.assertEqual(sorted(os.listdir(self.proj)), ["generated_artifacts", "src", "train.yaml"])

    def test_refusals(self):
        cases = [("usage_policy_name: team\n", "usage_policy_name"),
                 ("environment: {docker_image: {url: a/b}}\n", "environment.docker_image"),
                 ("", "code_source.remote_volume"), ("", "code_source.git"),
                 ("", "code_source.include_paths")]
        code = {"code_source.remote_volume": "remote_volume: /Volumes/a/b/c",
                "code_source.git": "git: {branch: main}",
                "code_source.include_paths": "include_paths: [a]"}
        for extra, field in cases:
            text = WORKLOAD + extra
            if field in code:
                text = text.replace("{root_path: ./src}", "{root_path: ./src, %s}" % code[field])
            self.write("train.yaml", text)
            for mode in ([], ["-o", "json"]):
                rc, out, err = self.air("convert-to-dabs", self.yaml, *mode)
                self.assertEqual((rc, out), (1, ""), field)
                self.assertTrue(err.startswith("Error: %s cannot be converted" % field), err)
            self.assertFalse(os.path.exists(os.path.join(self.proj, "databricks.yml")))

    def test_usage_and_config_errors(self):
        for args in ([], [self.yaml, self.yaml], [self.yaml, "--nope"]):
            rc, out, err = self.air("convert-to-dabs", *args)
            self.assertEqual((rc, out), (1, ""))
            self.assertIn("Usage:", err)
        bad = self.write("bad.yaml", "experiment_name: x\ncommand: y\n")
        rc, out, err = self.air("convert-to-dabs", bad, "-o", "json")
        self.assertEqual((rc, out), (1, ""))
        self.assertIn("compute", err)
        rc, out, err = self.air("convert-to-dabs", "--help")
        self.assertEqual(rc, 0)
        self.assertIn("--output-dir", out)
        self.assertIn("--force", out)


if __name__ == "__main__":
    unittest.main(verbosity=2)

#!/usr/bin/env python3
"""`air run` without a workspace: SCENARIOS S01-S07, the dry-run half of S03/S04,
field help, and a dry run of every shipped example.

Every test runs the CLI with no credentials at all (empty config file, temp
HOME); a real submission is pointed at a closed local port, so reaching the
network would show up as a different error than the expected config error.
"""
import json
import os
import re
import subprocess
import tempfile
import unittest

AIR = os.environ["AIR_CLI"]
ROOT = os.environ["AIR_SOURCE_ROOT"]
VALID = """experiment_name: smoke-test
command: python train.py
compute:
  accelerator_type: GPU_1xH100
  num_accelerators: 1
"""
TS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
TOP_FIELDS = ("code_source, command, compute, env_variables, environment, experiment_name, "
              "idempotency_token, max_retries, mlflow_artifact_location, "
              "mlflow_experiment_directory, mlflow_run_name, parameters, permissions, secrets, "
              "timeout_minutes, usage_policy_id, usage_policy_name")


class RunCli(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        cfgfile = os.path.join(self.dir, "databrickscfg")
        open(cfgfile, "w").close()
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("DATABRICKS_")}
        self.env.update(HOME=self.dir, DATABRICKS_CONFIG_FILE=cfgfile)

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, text, name="valid.yaml"):
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def air(self, *args, env=None):
        p = subprocess.run([AIR, *args], capture_output=True, text=True, timeout=30,
                           env=env or self.env, cwd=self.dir)
        return p.returncode, p.stdout, p.stderr

    def assert_config_error(self, rc, out, err, *needles):
        self.assertEqual(rc, 1, err)
        self.assertEqual(out, "")
        # Override change lines may come first; the error is the last line.
        lines = err.splitlines()
        self.assertTrue(lines and lines[-1].startswith("Error: "), err)
        self.assertTrue(all(l.startswith(("changing ", "setting ")) for l in lines[:-1]), err)
        for n in needles:
            self.assertIn(n, err)

    # ---- S01, S02, S07 -------------------------------------------------

    def test_s01_dry_run_text(self):
        rc, out, err = self.air("run", "-f", self.write(VALID), "--dry-run")
        self.assertEqual(rc, 0, err)
        self.assertEqual(out, "")
        self.assertIn("smoke-test", err)
        self.assertIn("valid", err)
        self.assertIn("nothing was submitted", err)

    def test_s02_dry_run_json_ignores_watch(self):
        rc, out, err = self.air("run", "-f", self.write(VALID), "--dry-run", "--watch", "-o", "json")
        self.assertEqual(rc, 0, err)
        doc = json.loads(out)
        self.assertEqual(list(doc), ["v", "ts", "data"])
        self.assertEqual(doc["v"], 1)
        self.assertRegex(doc["ts"], TS)
        self.assertEqual(doc["data"], {"status": "DRY_RUN_OK", "dry_run": True})
        self.assertIn('\n  "v": 1,', out)  # pretty-printed, 2-space indent
        self.assertTrue(out.endswith("}\n"))

    def test_s07_missing_file_flag(self):
        rc, out, err = self.air("run", "--dry-run")
        self.assertEqual(rc, 1)
        self.assertEqual(out, "")
        self.assertIn("Error:", err)
        self.assertIn('"file"', err)

    def test_missing_file_is_an_error(self):
        rc, out, err = self.air("run", "-f", os.path.join(self.dir, "nope.yaml"), "--dry-run",
                                "-o", "json")
        self.assert_config_error(rc, out, err, "nope.yaml")

    # ---- S03 -----------------------------------------------------------

    S03 = {
        "a": (VALID.replace("smoke-test", "bad.name"), ["experiment_name", "bad.name"]),
        "b": (VALID.replace("smoke-test", "x" * 101), ["experiment_name", "101"]),
        "c": (VALID.replace("experiment_name: smoke-test\n", ""), ["experiment_name"]),
        "d": ("experiment_name: smoke-test\ncommand: python train.py\n", ["compute"]),
        "e": (VALID.replace("GPU_1xH100", "gpu_1xh100"),
              ["gpu_1xh100", "GPU_1xA10", "GPU_1xH100", "GPU_8xH100"]),
        "f": (VALID.replace("GPU_1xH100", "GPU_8xH100").replace(": 1\n", ": 3\n"), ["8", "3"]),
        "g": (VALID.replace("num_accelerators: 1", "num_accelerators: 0"),
              ["num_accelerators", "0"]),
        "h": (VALID.replace("num_accelerators: 1", 'num_accelerators: "8"'), ["num_accelerators"]),
        "i": (VALID.replace("command: python train.py\n", ""), ["command"]),
        "j": (VALID.replace("python train.py", '"   "'), ["command"]),
        "k": (VALID.replace("python train.py", '"' + "x\\n" * 1000 + 'x"'), ["1001", "1000"]),
        "l": (VALID + "env_variables: {TOK: a}\nsecrets: {TOK: s/k}\n", ["TOK"]),
        "m": (VALID + "secrets: {T: noslash}\n", ["T", "noslash"]),
        "n": (VALID + "environment: {dependencies: ./reqs.yaml}\n", ["environment.dependencies"]),
        "o": (VALID + "environment: {version: 5}\n", ["environment.version", "dependencies"]),
        "p": (VALID + "environment: {docker_image: {url: a/b:1}, dependencies: [x]}\n",
              ["dependencies"]),
        "q": (VALID + "code_source: {type: git, snapshot: {root_path: .}}\n",
              ["code_source.type", "git"]),
        "r1": (VALID + "code_source: {type: snapshot, snapshot: {root_path: ., include_paths: [/etc]}}\n",
               ["/etc"]),
        "r2": (VALID + "code_source: {type: snapshot, snapshot: {root_path: ., include_paths: [../x]}}\n",
               ["../x"]),
        "s": (VALID + "code_source: {type: snapshot, snapshot: {root_path: ., git: {branch: main, commit: abc}}}\n",
              ["branch", "commit"]),
        "t": (VALID + "code_source: {type: snapshot, snapshot: {root_path: ., git: {branch: main, remote: origin}}}\n",
              ["git.remote"]),
        "u": (VALID + "max_retries: -1\n", ["max_retries", "-1"]),
        "v": (VALID + "timeout_minutes: 0\n", ["timeout_minutes", "0"]),
        "w": (VALID + "idempotency_token: " + "k" * 65 + "\n", ["idempotency_token", "64"]),
        "x": (VALID + "mlflow_experiment_directory: /Users/me\n", ["/Workspace"]),
        "y": (VALID + "usage_policy_name: p\nusage_policy_id: 12345678-90ab-cdef-1234-567890abcdef\n",
              ["usage_policy_name", "usage_policy_id"]),
        "z": (VALID + "usage_policy_id: team-a\n", ["usage_policy_id", "team-a", "usage_policy_name"]),
        "aa": (VALID + "permissions: [{user_name: a, group_name: g, level: CAN_VIEW}]\n", ["permissions"]),
        "ab": (VALID + "permissions: [{group_name: users}]\n", ["level"]),
        "ac": ("", ["empty"]),
        "ad": ("compute: [\n", []),
    }

    def test_s03_invalid_matrix_dry_run(self):
        for row, (text, needles) in self.S03.items():
            path = self.write(text, "s03_%s.yaml" % row)
            for extra in ([], ["-o", "json"]):
                with self.subTest(row=row, extra=extra):
                    rc, out, err = self.air("run", "-f", path, "--dry-run", *extra)
                    self.assert_config_error(rc, out, err, *needles)
                    if row in ("ac", "ad"):
                        self.assertIn(path, err)

    def test_s03_invalid_matrix_real_submit_stops_before_the_network(self):
        env = dict(self.env, DATABRICKS_HOST="http://127.0.0.1:9", DATABRICKS_TOKEN="dapi-test")
        for row in ("a", "f", "h", "l", "q", "ac", "ad"):
            text, needles = self.S03[row]
            path = self.write(text, "s03_%s.yaml" % row)
            with self.subTest(row=row):
                rc, out, err = self.air("run", "-f", path, "-o", "json", env=env)
                self.assert_config_error(rc, out, err, *needles)
                self.assertNotIn("dapi-test", err)

    def test_errors_carry_file_line_column_and_field(self):
        path = self.write(VALID.replace("num_accelerators: 1", "num_accelerators: 0"))
        rc, out, err = self.air("run", "-f", path, "--dry-run")
        self.assertEqual(err, "Error: %s:5:21: compute.num_accelerators: must be greater than 0, got 0\n" % path)

    # ---- S04 -----------------------------------------------------------

    def test_s04_strict_decoding_and_forms(self):
        rows = [
            (VALID + "extra_field: 1\n", ["extra_field"]),
            (VALID + "priority: 100\n", ["priority"]),
            ("_bases_: [b.yaml]\n" + VALID, ["_bases_"]),
            (VALID + "environment: {bogus: 1}\n", ["bogus"]),
            (VALID + "code_source: {type: snapshot, snapshot: {root_path: .}, root_path: .}\n",
             ["code_source", "type", "snapshot", "root_path"]),
            (VALID + "code_source: {type: snapshot, root_path: .}\n", ["code_source", "type", "root_path"]),
            (VALID.replace("  num_accelerators: 1\n", "  num_accelerators: 1\n  priority_class: NORMAL\n"),
             ["priority_class", "pool_id"]),
            (VALID + "environment: {unity_catalog_image: main.ml.img:1, version: 6}\n",
             ["unity_catalog_image", "version"]),
            (VALID + "environment: {version: databricks_ai_v4, dependencies: [x]}\n",
             ["environment.version"]),
        ]
        for i, (text, needles) in enumerate(rows):
            with self.subTest(row=i):
                rc, out, err = self.air("run", "-f", self.write(text, "s04_%d.yaml" % i), "--dry-run")
                self.assert_config_error(rc, out, err, *needles)

    def test_s04_flat_code_source_is_accepted(self):
        os.mkdir(os.path.join(self.dir, "src"))
        rc, out, err = self.air("run", "-f", self.write(VALID + "code_source: {root_path: .}\n"),
                                "--dry-run")
        self.assertEqual(rc, 0, err)

    # ---- S05 -----------------------------------------------------------

    def test_s05_overrides_report_changes_on_stderr(self):
        rc, out, err = self.air("run", "-f", self.write(VALID), "--dry-run",
                                "--override", "compute.num_accelerators=2",
                                "--override", "timeout_minutes=45")
        self.assertEqual(rc, 0, err)
        self.assertEqual(out, "")
        lines = err.splitlines()
        self.assertEqual(lines[0], "changing compute.num_accelerators from 1 to 2")
        self.assertEqual(lines[1], "setting timeout_minutes to 45")
        self.assertIn("smoke-test", lines[2])

    def test_s05_override_errors(self):
        path = self.write(VALID)
        cases = [
            (["--override", "bogus=1"], ["bogus", TOP_FIELDS]),
            (["--override", "compute.num_accelerators=abc"], ["num_accelerators", "abc"]),
            (["--override", "command.sub=x"], ["command", "not an object"]),
            (["--override", "train.yaml"], ["train.yaml", "pass it with -f"]),
            (["--override", "=5"], ["empty"]),
        ]
        for args, needles in cases:
            with self.subTest(args=args):
                rc, out, err = self.air("run", "-f", path, "--dry-run", "-o", "json", *args)
                self.assert_config_error(rc, out, err, *needles)

    def test_s05_override_then_validation_error(self):
        rc, out, err = self.air("run", "-f", self.write(VALID), "--dry-run",
                                "--override", "compute.num_accelerators=0")
        self.assertEqual(rc, 1)
        self.assertEqual(out, "")
        lines = err.splitlines()
        self.assertEqual(lines[0], "changing compute.num_accelerators from 1 to 0")
        self.assertTrue(lines[1].startswith("Error: "), err)
        self.assertIn("num_accelerators", lines[1])

    def test_overrides_apply_in_order_before_validation(self):
        rc, out, err = self.air("run", "-f", self.write(VALID), "--dry-run",
                                "--override", "compute.accelerator_type=GPU_8xH100",
                                "--override", "compute.num_accelerators=8",
                                "--override", "env_variables.RANK=0")
        self.assertEqual(rc, 0, err)
        self.assertIn("setting env_variables.RANK to 0", err)

    # ---- S06 -----------------------------------------------------------

    def test_s06_field_help(self):
        rc, out, err = self.air("run", "-h", "config")
        self.assertEqual((rc, err), (0, ""))
        lines = out.splitlines()
        self.assertEqual(lines[0], "config")
        start = lines.index("  Fields:") + 1
        rows = lines[start:start + 17]
        names = [r.split()[0] for r in rows]
        self.assertEqual(names[0], "experiment_name")
        self.assertEqual(names[-1], "usage_policy_id")
        self.assertEqual(sorted(names), sorted(TOP_FIELDS.split(", ")))
        required = [r.split()[0] for r in rows if "(required) " in r]
        self.assertEqual(required, ["experiment_name", "compute", "command"])
        self.assertEqual(lines[start + 17], "")
        self.assertIn("-h config.<field>", lines[start + 18])

        rc, out, err = self.air("run", "-h", "config.compute")
        self.assertEqual(rc, 0)
        self.assertIn("    num_accelerators  ", out)
        self.assertIn("    accelerator_type  ", out)

        rc, out, err = self.air("run", "-h", "compute.accelerator_type")
        self.assertEqual(rc, 0)
        self.assertTrue(out.startswith("config.compute.accelerator_type\n"))
        self.assertIn("  Type:     string\n  Required: no\n", out)

        rc, out, err = self.air("run", "-h", "config.environment.docker_image.url")
        self.assertIn("  Required: when environment.docker_image is set\n", out)

        # The schema's label is "no" (as in the official tool's help), while
        # validation needs both: the description says so instead of
        # contradicting the label.
        for path in ("config.compute.num_accelerators", "config.compute.accelerator_type"):
            rc, out, err = self.air("run", "-h", path)
            self.assertIn("  Required: no\n", out)
            about = " ".join(out.split("\n\n")[0].split())
            self.assertIn("validation requires it, although the schema's Required label says no", about)

        rc, out, err = self.air("run", "-h", "config.code_source.snapshot.git.remote")
        self.assertIn("  Type:     bool or string\n", out)

    def test_s06_field_help_errors_exit_0(self):
        cases = [
            ("config.compute.acclerator_type",
             ["config.compute.acclerator_type", "accelerator_type", "accelerator_type, num_accelerators"]),
            ("config.zzzzzzzzzzzz", ["config.zzzzzzzzzzzz"]),
            ("config.parameters.learning_rate",
             ["user-defined", 'run "air run -h config.parameters"']),
            ("config.command.foo", ["not an object"]),
        ]
        for path, needles in cases:
            with self.subTest(path=path):
                rc, out, err = self.air("run", "-h", path)
                self.assertEqual(rc, 0)
                self.assertEqual(out, "")
                self.assertTrue(err.startswith("Error: "), err)
                for n in needles:
                    self.assertIn(n, err)
                if path == "config.zzzzzzzzzzzz":
                    self.assertNotIn("did you mean", err)

    def test_s06_plain_h_prints_command_help(self):
        for args in (["run", "-h"], ["run", "--help"], ["run", "-f", "x.yaml", "-h"]):
            with self.subTest(args=args):
                rc, out, err = self.air(*args)
                self.assertEqual(rc, 0)
                self.assertIn("Usage:", out)
                self.assertIn("--override", out)
                self.assertIn("--dry-run", out)

    def test_field_help_spellings(self):
        _, text, _ = self.air("run", "-h", "config.compute")
        self.assertIn("    accelerator_type  ", text)
        for args in (["run", "--help", "config.compute"], ["run", "config.compute", "-h"],
                     ["run", "config.compute", "--help"], ["run", "-o", "text", "compute", "-h"],
                     ["run", "-f", "x.yaml", "config.compute", "--help"]):
            with self.subTest(args=args):
                rc, out, err = self.air(*args)
                self.assertEqual((rc, out, err), (0, text, ""))
        # a flag's value is not a path: the command's help
        rc, out, err = self.air("run", "-f", "config.yaml", "--help")
        self.assertEqual(rc, 0)
        self.assertIn("Usage:", out)

    def test_command_help_lists_every_node_variable(self):
        rc, out, err = self.air("run", "-h", "config.command")
        self.assertEqual(rc, 0)
        for var in ("CODE_SOURCE_PATH", "HYPERPARAMETERS_PATH", "MASTER_ADDR", "MASTER_PORT",
                    "NUM_NODES", "NODE_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "MLFLOW_RUN_ID"):
            self.assertIn("$" + var, out)

    def test_field_help_names_the_flags_of_air_run(self):
        # The library's help names the option; the CLI adds its flag.
        rc, out, err = self.air("run", "-h", "config.idempotency_token")
        self.assertEqual((rc, err), (0, ""))
        self.assertIn("AIR_SUBMIT_IDEMPOTENCY_KEY", out)
        self.assertIn("the --idempotency-key flag", out)

    def test_field_help_works_with_other_flags_and_no_file(self):
        rc, out, err = self.air("run", "-o", "json", "-h", "config.permissions")
        self.assertEqual(rc, 0)
        self.assertIn("  Fields:\n    user_name", out)

    # ---- what the submission checks offline --------------------------------

    def test_dry_run_refuses_an_idempotency_key_the_submission_refuses(self):
        """Lengths are counted, and reported, in bytes: 40 x "é" is 80."""
        path = self.write(VALID)
        for key, length in (("k" * 65, 65), ("\u00e9" * 40, 80)):
            with self.subTest(length=length):
                rc, out, err = self.air("run", "-f", path, "--dry-run", "--idempotency-key", key)
                self.assert_config_error(rc, out, err, "idempotency key is %d bytes long" % length,
                                         "at most 64 bytes")
        rc, out, err = self.air("run", "-f", path, "--dry-run", "--idempotency-key", "k" * 64)
        self.assertEqual(rc, 0, err)
        rc, out, err = self.air("run", "-f", self.write(VALID + "idempotency_token: " + "\u00e9" * 40
                                                         + "\n", "token.yaml"), "--dry-run")
        self.assert_config_error(rc, out, err, "idempotency_token: is 80 bytes long; the limit is 64")

    def test_dry_run_checks_the_code_snapshot(self):
        """The snapshot plan and a plain-tar packaging are local: a dry run
        refuses what the submission would refuse before its first request."""
        rc, out, err = self.air("run", "-f", self.write(VALID + "code_source:\n  root_path: missing\n",
                                                         "missing.yaml"), "--dry-run")
        self.assert_config_error(rc, out, err, "missing")
        code = os.path.join(self.dir, "code")
        os.mkdir(code)
        os.symlink("/etc/hostname", os.path.join(code, "escaping-link"))
        rc, out, err = self.air("run", "-f", self.write(VALID + "code_source:\n  root_path: code\n",
                                                         "code.yaml"), "--dry-run")
        self.assert_config_error(rc, out, err, "escaping-link")
        os.unlink(os.path.join(code, "escaping-link"))
        rc, out, err = self.air("run", "-f", os.path.join(self.dir, "code.yaml"), "--dry-run")
        self.assertEqual(rc, 0, err)

    # ---- examples -------------------------------------------------------

    def test_examples_dry_run(self):
        examples = os.path.join(ROOT, "examples")
        names = sorted(n for n in os.listdir(examples) if n.endswith(".yaml"))
        self.assertGreaterEqual(len(names), 4)
        for name in names:
            for extra in ([], ["-o", "json"]):
                with self.subTest(example=name, extra=extra):
                    rc, out, err = self.air("run", "-f", os.path.join(examples, name), "--dry-run", *extra)
                    self.assertEqual(rc, 0, err)
                    if extra:
                        self.assertEqual(json.loads(out)["data"]["status"], "DRY_RUN_OK")


if __name__ == "__main__":
    unittest.main(verbosity=2)

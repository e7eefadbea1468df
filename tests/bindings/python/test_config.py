"""Workload YAML through the Python binding: load, parse, override (checked
at once), validation errors with field path and position, typed values and
what they read after a failed override or validation, Python exceptions for
files, serialisation, the schema, bundles (Config.write_bundle), the dry run
(Config.check_submission)."""

import errno
import glob
import json
import os
import pathlib
import tempfile
import unittest
from datetime import timedelta

from bindtest import SOURCE_ROOT, MINIMAL_YAML, air

FULL_YAML = """\
experiment_name: full-test
compute:
  accelerator_type: GPU_8xH100
  num_accelerators: 16
environment:
  version: 6
  dependencies:
    - torch==2.4.0
    - -r requirements.txt
command: |
  python train.py --lr $LR
env_variables:
  ZED: last
  ALPHA: first
secrets:
  HF_TOKEN: my-scope/hf-key
parameters:
  lr: 0.1
  layers: [1, 2]
max_retries: 0
timeout_minutes: 90
idempotency_token: tok-123
permissions:
  - user_name: someone@example.com
    level: CAN_VIEW
  - group_name: team
    level: CAN_MANAGE_RUN
"""


class LoadTest(unittest.TestCase):
    def test_minimal_values_and_defaults(self):
        with air.Config.loads(MINIMAL_YAML, name="mini.yaml") as cfg:
            self.assertTrue(cfg.is_valid)
            self.assertEqual(cfg.experiment_name, "bindings-test")
            self.assertEqual(cfg.command, "python train.py")
            self.assertEqual(cfg.accelerator_type, "GPU_1xA10")
            self.assertEqual((cfg.num_accelerators, cfg.num_nodes), (1, 1))
            self.assertEqual(cfg.max_retries, 3)
            self.assertFalse(cfg.is_set("max_retries"))
            self.assertTrue(cfg.is_set("compute.accelerator_type"))
            self.assertIsNone(cfg.timeout)
            self.assertIsNone(cfg.pool_id)
            self.assertIs(cfg.code_source_form, air.CodeSourceForm.NONE)
            self.assertFalse(cfg.has_dependencies)
            self.assertEqual(cfg.dependencies, [])
            self.assertEqual(cfg.env_variables, {})
            self.assertEqual(cfg.parameters, {})
            self.assertEqual(cfg.source_name, "mini.yaml")
            self.assertEqual(cfg.source_bytes, MINIMAL_YAML.encode())
            self.assertEqual(cfg.changes, [])

    def test_full_accessors(self):
        with air.Config.loads(FULL_YAML) as cfg:
            self.assertEqual(cfg.num_nodes, 2)
            self.assertEqual(cfg.environment_version, "6")
            self.assertTrue(cfg.has_dependencies)
            self.assertEqual(cfg.dependencies, ["torch==2.4.0", "-r requirements.txt"])
            self.assertEqual(list(cfg.env_variables.items()), [("ALPHA", "first"), ("ZED", "last")])
            self.assertEqual(cfg.secrets, {"HF_TOKEN": air.Secret("HF_TOKEN", "my-scope/hf-key",
                                                                  "my-scope", "hf-key")})
            self.assertTrue(cfg.has_parameters)
            self.assertEqual(cfg.parameters, {"lr": 0.1, "layers": [1, 2]})
            self.assertIn("lr: 0.1", cfg.parameters_yaml())
            self.assertEqual((cfg.max_retries, cfg.timeout), (0, timedelta(minutes=90)))
            self.assertEqual(cfg.idempotency_token, "tok-123")
            self.assertEqual(cfg.permissions, [
                air.Permission(air.Principal.USER, "someone@example.com", "CAN_VIEW"),
                air.Permission(air.Principal.GROUP, "team", "CAN_MANAGE_RUN")])
            self.assertEqual(cfg.command, "python train.py --lr $LR\n")

    def test_values_are_typed_properties_with_docstrings(self):
        for name in ("experiment_name", "num_accelerators", "timeout", "parameters", "secrets"):
            prop = getattr(air.Config, name)
            self.assertIsInstance(prop, property, name)
            self.assertTrue(prop.__doc__, name)
            self.assertIn("return", prop.fget.__annotations__, name)

    def test_load_file_with_overrides(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "train.yaml")
            with open(path, "w") as f:
                f.write(MINIMAL_YAML)
            with air.Config.load(path) as cfg:
                self.assertEqual(cfg.source_name, path)
            with air.Config.load(path, overrides=["compute.accelerator_type=GPU_8xH100",
                                                  "compute.num_accelerators=16"]) as cfg:
                self.assertEqual((cfg.accelerator_type, cfg.num_accelerators, cfg.num_nodes),
                                 ("GPU_8xH100", 16, 2))
                self.assertEqual(cfg.changes[1], air.Change("compute.num_accelerators", "1", "16"))

    def test_examples_load(self):
        paths = sorted(glob.glob(os.path.join(SOURCE_ROOT, "examples", "*.yaml")))
        self.assertTrue(paths)
        for path in paths:
            with self.subTest(example=os.path.basename(path)), air.Config.load(path) as cfg:
                self.assertGreater(cfg.num_accelerators, 0)
                self.assertEqual(cfg.to_dict()["experiment_name"], cfg.experiment_name)

    def test_copy_is_independent(self):
        with air.Config.loads(MINIMAL_YAML, name="m.yaml") as cfg, cfg.copy() as other:
            other.set("compute.num_accelerators", 2).validate()
            self.assertEqual((cfg.num_accelerators, other.num_accelerators), (1, 2))
            self.assertEqual(other.source_name, "m.yaml")

    def test_close_is_idempotent_and_final(self):
        cfg = air.Config.loads(MINIMAL_YAML)
        cfg.close()
        cfg.close()
        with self.assertRaises(ValueError):
            cfg.experiment_name
        self.assertIn("closed", repr(cfg))


class FileErrorTest(unittest.TestCase):
    def test_missing_file_is_file_not_found(self):
        with self.assertRaises(FileNotFoundError) as cm:
            air.Config.load("/nonexistent/dir/train.yaml")
        e = cm.exception
        self.assertIsInstance(e, air.AirFileNotFoundError)
        self.assertIsInstance(e, air.LocalIOError)
        self.assertEqual((e.errno, e.filename), (errno.ENOENT, "/nonexistent/dir/train.yaml"))
        self.assertEqual((e.code, e.kind), (air.constants.EIO, air.ErrorKind.IO))
        self.assertIn("/nonexistent/dir/train.yaml", str(e))

    def test_unreadable_file_is_os_error(self):
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaises(OSError) as cm:
                air.Config.load(d)  # a directory
            self.assertIsInstance(cm.exception, air.AirError)
            self.assertEqual(cm.exception.filename, d)
            path = os.path.join(d, "secret.yaml")
            with open(path, "w") as f:
                f.write(MINIMAL_YAML)
            os.chmod(path, 0)
            if os.access(path, os.R_OK):
                self.skipTest("running as root: permissions do not stop reading")
            with self.assertRaises(PermissionError) as cm2:
                air.Config.load(path)
            self.assertIsInstance(cm2.exception, air.AirFilePermissionError)

    def test_oversized_file_is_refused(self):
        with tempfile.NamedTemporaryFile("w", suffix=".yaml") as f:
            f.write(MINIMAL_YAML)
            f.write("# " + "x" * air.constants.CONFIG_MAX_BYTES + "\n")
            f.flush()
            with self.assertRaises(air.ConfigError):
                air.Config.parse(f.name)


class OverrideTest(unittest.TestCase):
    def test_override_invalidates_until_validate(self):
        with air.Config.loads(MINIMAL_YAML) as cfg:
            cfg.override("experiment_name=renamed")
            self.assertFalse(cfg.is_valid)
            with self.assertRaises(air.NotValidatedError):
                cfg.experiment_name
            self.assertEqual(cfg.to_dict()["experiment_name"], "renamed")
            cfg.validate()
            self.assertEqual(cfg.experiment_name, "renamed")
            self.assertEqual(cfg.changes, [air.Change("experiment_name", "bindings-test", "renamed")])

    def test_wrong_type_is_refused_at_once_naming_the_field(self):
        with air.Config.loads(MINIMAL_YAML, name="m.yaml") as cfg:
            for bad in ("compute.num_accelerators=abc", "compute.num_accelerators=[1, 2]",
                        "compute=3", "environment.dependencies=torch"):
                with self.subTest(bad=bad), self.assertRaises(air.ConfigError) as cm:
                    cfg.override(bad)
                self.assertEqual(cm.exception.field, bad.split("=")[0])
                self.assertIn(bad.split("=")[0], str(cm.exception))
            self.assertIn('got the string "abc"', str(self._error(cfg, "compute.num_accelerators=abc")))
            with self.assertRaises(air.ConfigError) as cm:
                cfg.set("compute.num_accelerators", "8")
            self.assertEqual(cm.exception.field, "compute.num_accelerators")
            # Nothing changed: still valid with the old values.
            self.assertEqual(cfg.changes, [])
            self.assertTrue(cfg.is_valid)
            self.assertEqual(cfg.num_accelerators, 1)

    def _error(self, cfg, assignment):
        try:
            cfg.override(assignment)
        except air.ConfigError as exc:
            return exc
        self.fail("%s accepted" % assignment)

    def test_values_that_fit_are_accepted(self):
        with air.Config.loads(MINIMAL_YAML) as cfg:
            cfg.override("compute.num_accelerators=0x1")
            cfg.override("experiment_name=123")
            cfg.override("env_variables={A: 1}")
            cfg.override("max_retries=null")
            cfg.set("parameters", {"lr": 0.5, "layers": [1, 2]})
            cfg.set("env_variables.B", "two")
            cfg.validate()
            self.assertEqual(cfg.env_variables, {"A": "1", "B": "two"})
            self.assertEqual(cfg.parameters, {"lr": 0.5, "layers": [1, 2]})
            self.assertEqual(cfg.experiment_name, "123")

    def test_unknown_path_suggests_and_changes_nothing(self):
        with air.Config.loads(MINIMAL_YAML) as cfg:
            with self.assertRaises(air.ConfigError) as cm:
                cfg.override("compute.num_acelerators=8")
            self.assertEqual(cm.exception.suggestion, "num_accelerators")
            self.assertEqual(cfg.changes, [])
            self.assertTrue(cfg.is_valid)

    def test_failed_validation_leaves_no_values(self):
        with air.Config.loads(MINIMAL_YAML) as cfg:
            cfg.override("compute.accelerator_type=GPU_8xH100")  # 1 is not a multiple of 8
            with self.assertRaises(air.ConfigError) as cm:
                cfg.validate()
            self.assertEqual(cm.exception.field, "compute.num_accelerators")
            self.assertFalse(cfg.is_valid)
            with self.assertRaises(air.NotValidatedError):
                cfg.num_accelerators
            self.assertEqual(cfg.to_dict()["compute"]["accelerator_type"], "GPU_8xH100")
            cfg.override("compute.num_accelerators=8").validate()
            self.assertEqual((cfg.num_accelerators, cfg.num_nodes), (8, 1))

    def test_serialisation_reflects_overrides(self):
        with air.Config.loads(MINIMAL_YAML) as cfg:
            cfg.override("compute.num_accelerators=4")
            self.assertEqual(json.loads(cfg.to_json())["compute"]["num_accelerators"], 4)
            with air.Config.loads(cfg.to_yaml()) as again:
                self.assertEqual(again.num_accelerators, 4)


class ValidationErrorTest(unittest.TestCase):
    def test_type_error_carries_field_and_position_once(self):
        text = MINIMAL_YAML.replace("num_accelerators: 1", 'num_accelerators: "8"')
        with self.assertRaises(air.ConfigError) as cm:
            air.Config.loads(text, name="bad.yaml")
        e = cm.exception
        self.assertIsInstance(e, ValueError)
        self.assertEqual((e.code, e.kind), (air.constants.ECONFIG, air.ErrorKind.INVALID_CONFIG))
        self.assertEqual((e.field, e.file, e.line), ("compute.num_accelerators", "bad.yaml", 4))
        self.assertGreater(e.column, 0)
        self.assertFalse(e.retryable)
        self.assertTrue(str(e).startswith("bad.yaml:4:%d: compute.num_accelerators: " % e.column))
        self.assertEqual(str(e).count("bad.yaml"), 1)
        self.assertEqual(str(e), e.message)

    def test_unknown_key_names_key_and_line(self):
        with self.assertRaises(air.ConfigError) as cm:
            air.Config.loads(MINIMAL_YAML + "priority: high\n", name="x.yaml")
        self.assertIn("priority", cm.exception.message)
        self.assertEqual(cm.exception.line, 6)

    def test_parse_only_then_validate(self):
        with air.Config.parses(MINIMAL_YAML.replace("command: python train.py\n", "")) as cfg:
            self.assertFalse(cfg.is_valid)
            with self.assertRaises(air.NotValidatedError):
                cfg.experiment_name
            with self.assertRaises(air.ConfigError) as cm:
                cfg.validate()
            self.assertEqual(cm.exception.field, "command")
            cfg.override("command=echo hi").validate()
            self.assertEqual(cfg.command, "echo hi")

    def test_syntax_error_has_line(self):
        with self.assertRaises(air.ConfigError) as cm:
            air.Config.loads("experiment_name: [unclosed\n", name="s.yaml")
        self.assertEqual(cm.exception.file, "s.yaml")
        self.assertGreaterEqual(cm.exception.line, 1)


class SchemaTest(unittest.TestCase):
    def test_field(self):
        f = air.field("compute.num_accelerators")
        self.assertEqual((f.name, f.kind, f.type), ("num_accelerators", air.FieldKind.INT, "int"))
        self.assertEqual(f.path, "config.compute.num_accelerators")
        self.assertTrue(f.description)
        self.assertEqual(air.field("config.compute.num_accelerators"), f)
        compute = air.field("compute")
        self.assertIs(compute.kind, air.FieldKind.OBJECT)
        self.assertEqual(compute.child("num_accelerators"), f)
        self.assertEqual(air.field("max_retries").default, "3")

    def test_root(self):
        root = air.schema()
        self.assertEqual(root.name, "config")
        self.assertIn("compute", [c.name for c in root.children])
        self.assertEqual(root.child("compute"), air.field("compute"))

    def test_unknown_path_suggests(self):
        with self.assertRaises(air.ConfigError) as cm:
            air.field("compute.acelerator_type")
        self.assertEqual(cm.exception.suggestion, "accelerator_type")

    def test_accelerators(self):
        self.assertEqual(air.accelerator_gpus_per_node("GPU_8xH100"), 8)
        self.assertEqual(air.accelerator_gpus_per_node("TPU"), 0)
        self.assertEqual(air.accelerator_display_name("GPU_8xH100"), "H100")


class BundleTest(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.dir = pathlib.Path(tmp.name)
        (self.dir / "src").mkdir()

    def load(self, extra=""):
        cfg = air.Config.loads(MINIMAL_YAML + extra, name="w.yaml", base_dir=self.dir)
        self.addCleanup(cfg.close)
        return cfg

    def test_files_written(self):
        cfg = self.load("code_source: {root_path: src}\nenv_variables: {A: x}\n")
        b = cfg.write_bundle(self.dir / "out" / "..", default_runtime="5")
        self.assertIsInstance(b, air.Bundle)
        self.assertEqual(b.dir, os.path.realpath(self.dir))
        self.assertEqual(b.job_key, "bindings-test")
        self.assertEqual(b.files, ["databricks.yml", "generated_artifacts/training_config.yaml",
                                   "generated_artifacts/command.sh",
                                   "generated_artifacts/env_vars.json"])
        self.assertEqual(b.removed, [])
        for rel in b.files:
            self.assertTrue((self.dir / rel).is_file(), rel)
        yml = (self.dir / "databricks.yml").read_text()
        self.assertIn("bindings-test", yml)
        self.assertIn("code_source_path: ./src", yml)
        self.assertIn("environment_version: \"5\"", yml.replace("'", "\""))

    def test_default_output_dir_is_the_base_dir(self):
        b = self.load().write_bundle(use_environment=False)
        self.assertEqual(b.dir, os.path.realpath(self.dir))
        self.assertTrue((self.dir / "databricks.yml").is_file())

    def test_refused_without_force_naming_the_file(self):
        cfg = self.load("env_variables: {A: x}\n")
        cfg.write_bundle(str(self.dir))
        before = (self.dir / "databricks.yml").read_bytes()
        with self.assertRaises(air.ConflictError) as cm:
            cfg.write_bundle(str(self.dir))
        self.assertIn("databricks.yml already exists", str(cm.exception))
        self.assertEqual(cm.exception.kind, air.ErrorKind.CONFLICT)
        (self.dir / "databricks.yml").unlink()
        with self.assertRaises(air.ConflictError) as cm:
            self.load().write_bundle(self.dir)
        self.assertIn("generated_artifacts/training_config.yaml already exists",
                      str(cm.exception))
        self.assertFalse((self.dir / "databricks.yml").exists(), "nothing is written")
        # force: overwritten, and the sidecar the workload no longer has removed
        b = self.load().write_bundle(self.dir, force=True)
        self.assertEqual(b.removed, ["generated_artifacts/env_vars.json"])
        self.assertFalse((self.dir / "generated_artifacts" / "env_vars.json").exists())
        self.assertEqual((self.dir / "databricks.yml").read_bytes(), before)

    def test_fields_a_bundle_cannot_express(self):
        with self.assertRaises(air.UnsupportedError) as cm:
            self.load("usage_policy_name: team\n").write_bundle(self.dir)
        self.assertEqual(cm.exception.field, "usage_policy_name")
        self.assertFalse((self.dir / "databricks.yml").exists())

    def test_code_source_outside_the_output_dir(self):
        cfg = self.load("code_source: {root_path: src}\n")
        with tempfile.TemporaryDirectory() as elsewhere:
            with self.assertRaises(air.InvalidArgumentError) as cm:
                cfg.write_bundle(os.path.join(elsewhere, "b"))
        self.assertEqual(cm.exception.field, "code_source.root_path")

    def test_not_validated(self):
        cfg = air.Config.parses(MINIMAL_YAML, name="w.yaml", base_dir=str(self.dir))
        self.addCleanup(cfg.close)
        with self.assertRaises(air.ConfigError):
            cfg.write_bundle(self.dir)

    def test_interrupt(self):
        stop = air.Interrupt()
        stop.trigger()
        with self.assertRaises(air.CallInterruptedError):
            self.load().write_bundle(self.dir, interrupt=stop)
        self.assertFalse((self.dir / "databricks.yml").exists())

    def test_argument_types(self):
        with self.assertRaises(TypeError):
            self.load().write_bundle(42)  # type: ignore[arg-type]


class CheckSubmissionTest(unittest.TestCase):
    """Config.check_submission(): what a submission checks without the
    workspace (the dry run)."""

    def test_key_and_snapshot(self):
        with tempfile.TemporaryDirectory() as d:
            with air.Config.loads(MINIMAL_YAML, name="w.yaml", base_dir=d) as cfg:
                cfg.check_submission()
                cfg.check_submission(idempotency_key="k" * 64)
                with self.assertRaises(air.InvalidArgumentError) as cm:
                    cfg.check_submission(idempotency_key="\u00e9" * 40)
                self.assertIn("80 bytes long", str(cm.exception))
                self.assertEqual(cm.exception.field, "idempotency_key")
            with air.Config.loads(MINIMAL_YAML + "code_source: {root_path: gone}\n", name="w.yaml",
                                  base_dir=d) as cfg:
                with self.assertRaises(air.SnapshotError) as cm:
                    cfg.check_submission()
                self.assertIn("gone", str(cm.exception))
                os.mkdir(os.path.join(d, "gone"))
                cfg.check_submission()


if __name__ == "__main__":
    unittest.main()

"""Workload YAML through the Python binding: load, parse, override,
validation errors with field path and position, accessors, serialisation,
schema help."""

import glob
import json
import os
import tempfile
import unittest

from bindtest import SOURCE_ROOT, MINIMAL_YAML, STRICT, air

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


class ConfigModule(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        try:
            air.Config.loads(MINIMAL_YAML).close()
        except air.UnsupportedError as exc:
            if STRICT:
                raise
            raise unittest.SkipTest("config module not implemented yet: %s" % exc)


class LoadTest(ConfigModule):
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
            self.assertEqual(cfg.timeout_minutes, 0)
            self.assertIsNone(cfg.pool_id)
            self.assertEqual(cfg.code_source_form, air.CODE_SOURCE_NONE)
            self.assertFalse(cfg.has_dependencies)
            self.assertEqual(cfg.dependencies, [])
            self.assertEqual(cfg.env_variables, {})
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
            self.assertEqual(cfg.secrets, {"HF_TOKEN": "my-scope/hf-key"})
            self.assertEqual(cfg.secret_details,
                             [air.Secret("HF_TOKEN", "my-scope/hf-key", "my-scope", "hf-key")])
            self.assertTrue(cfg.has_parameters)
            self.assertEqual(cfg.parameters, {"lr": 0.1, "layers": [1, 2]})
            self.assertIn("lr: 0.1", cfg.parameters_yaml())
            self.assertEqual((cfg.max_retries, cfg.timeout_minutes), (0, 90))
            self.assertEqual(cfg.idempotency_token, "tok-123")
            self.assertEqual(cfg.permissions, [
                air.Permission(air.PRINCIPAL_USER, "someone@example.com", "CAN_VIEW"),
                air.Permission(air.PRINCIPAL_GROUP, "team", "CAN_MANAGE_RUN")])
            self.assertEqual(cfg.command, "python train.py --lr $LR\n")

    def test_load_file_with_overrides(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "train.yaml")
            with open(path, "w") as f:
                f.write(MINIMAL_YAML)
            with air.Config.load(path) as cfg:
                self.assertEqual(cfg.source_name, path)
                self.assertEqual(cfg.num_accelerators, 1)
            with air.Config.load(path, overrides=["compute.accelerator_type=GPU_8xH100",
                                                  "compute.num_accelerators=16"]) as cfg:
                self.assertTrue(cfg.is_valid)
                self.assertEqual((cfg.accelerator_type, cfg.num_accelerators, cfg.num_nodes),
                                 ("GPU_8xH100", 16, 2))
                self.assertEqual([c.path for c in cfg.changes],
                                 ["compute.accelerator_type", "compute.num_accelerators"])
                self.assertEqual(cfg.changes[1], air.Change("compute.num_accelerators", "1", "16"))

    def test_examples_load(self):
        paths = sorted(glob.glob(os.path.join(SOURCE_ROOT, "examples", "*.yaml")))
        if not paths:
            self.skipTest("no examples/*.yaml yet")
        for path in paths:
            with self.subTest(example=os.path.basename(path)):
                with air.Config.load(path) as cfg:
                    self.assertTrue(cfg.is_valid)
                    self.assertTrue(cfg.experiment_name)
                    self.assertGreater(cfg.num_accelerators, 0)
                    doc = cfg.to_dict()
                    self.assertEqual(doc["experiment_name"], cfg.experiment_name)

    def test_missing_file_is_io_error(self):
        with self.assertRaises(air.LocalIOError) as cm:
            air.Config.load("/nonexistent/dir/train.yaml")
        self.assertEqual(cm.exception.code, air.EIO)
        self.assertEqual(cm.exception.kind, air.KIND_IO)

    def test_oversized_file_is_refused(self):
        with tempfile.NamedTemporaryFile("w", suffix=".yaml") as f:
            f.write(MINIMAL_YAML)
            f.write("# " + "x" * air.CONFIG_MAX_BYTES + "\n")
            f.flush()
            with self.assertRaises(air.ConfigError):
                air.Config.parse(f.name)

    def test_close_is_idempotent_and_final(self):
        cfg = air.Config.loads(MINIMAL_YAML)
        cfg.close()
        cfg.close()
        with self.assertRaises(ValueError):
            cfg.experiment_name
        self.assertIn("closed", repr(cfg))


class OverrideTest(ConfigModule):
    def test_override_invalidates_until_validate(self):
        with air.Config.loads(MINIMAL_YAML) as cfg:
            cfg.override("experiment_name=renamed")
            self.assertFalse(cfg.is_valid)
            cfg.validate()
            self.assertTrue(cfg.is_valid)
            self.assertEqual(cfg.experiment_name, "renamed")
            self.assertEqual(cfg.changes, [air.Change("experiment_name", "bindings-test", "renamed")])

    def test_set_with_flow_collection_and_unset(self):
        with air.Config.loads(MINIMAL_YAML) as cfg:
            cfg.set("env_variables", "{B: 2, A: one}")
            cfg.set("max_retries", "null")
            cfg.validate()
            self.assertEqual(cfg.env_variables, {"A": "one", "B": "2"})
            self.assertEqual(cfg.max_retries, 3)
            self.assertIsNone(cfg.changes[0].old)

    def test_unknown_path_is_refused_and_changes_nothing(self):
        with air.Config.loads(MINIMAL_YAML) as cfg:
            with self.assertRaises(air.ConfigError) as cm:
                cfg.override("compute.num_acelerators=8")
            self.assertIn("num_acelerators", str(cm.exception))
            self.assertEqual(cfg.changes, [])
            self.assertTrue(cfg.is_valid)

    def test_serialisation_reflects_overrides(self):
        with air.Config.loads(MINIMAL_YAML) as cfg:
            cfg.override("compute.num_accelerators=4")
            doc = json.loads(cfg.to_json())
            self.assertEqual(doc["compute"]["num_accelerators"], 4)
            with air.Config.loads(cfg.to_yaml()) as again:
                self.assertEqual(again.num_accelerators, 4)
                self.assertEqual(again.experiment_name, "bindings-test")


class ValidationErrorTest(ConfigModule):
    def test_type_error_carries_field_and_position(self):
        text = MINIMAL_YAML.replace("num_accelerators: 1", 'num_accelerators: "8"')
        with self.assertRaises(air.ConfigError) as cm:
            air.Config.loads(text, name="bad.yaml")
        e = cm.exception
        self.assertEqual((e.code, e.kind, e.kind_name), (air.ECONFIG, air.KIND_INVALID_CONFIG,
                                                         "INVALID_CONFIG"))
        self.assertEqual(e.field, "compute.num_accelerators")
        self.assertEqual(e.file, "bad.yaml")
        self.assertEqual(e.line, 4)
        self.assertGreater(e.column, 0)
        self.assertFalse(e.retryable)
        self.assertEqual(e.http_status, 0)
        self.assertIn("bad.yaml:4:", str(e))

    def test_unknown_key_names_key_and_line(self):
        text = MINIMAL_YAML + "priority: high\n"
        with self.assertRaises(air.ConfigError) as cm:
            air.Config.loads(text, name="x.yaml")
        self.assertIn("priority", cm.exception.message)
        self.assertEqual(cm.exception.line, 6)

    def test_semantic_rule(self):
        text = MINIMAL_YAML.replace("GPU_1xA10", "GPU_8xH100")
        with self.assertRaises(air.ConfigError) as cm:
            air.Config.loads(text)
        self.assertEqual(cm.exception.field, "compute.num_accelerators")

    def test_parse_only_then_validate(self):
        text = MINIMAL_YAML.replace("command: python train.py\n", "")
        with air.Config.parses(text) as cfg:
            self.assertFalse(cfg.is_valid)
            self.assertIsNone(cfg.experiment_name)
            with self.assertRaises(air.ConfigError) as cm:
                cfg.validate()
            self.assertEqual(cm.exception.field, "command")
            cfg.override("command=echo hi")
            cfg.validate()
            self.assertEqual(cfg.command, "echo hi")

    def test_syntax_error_has_line(self):
        with self.assertRaises(air.ConfigError) as cm:
            air.Config.loads("experiment_name: [unclosed\n", name="s.yaml")
        self.assertEqual(cm.exception.file, "s.yaml")
        self.assertGreaterEqual(cm.exception.line, 1)


class HelpTest(ConfigModule):
    def test_text_help(self):
        text = air.schema_help("config.compute")
        self.assertIn("accelerator_type", text)
        self.assertIn("num_accelerators", text)
        self.assertEqual(air.schema_help("compute"), text)

    def test_json_help(self):
        doc = air.schema_help("compute.num_accelerators", as_json=True)
        self.assertIn(doc["path"], ("compute.num_accelerators", "config.compute.num_accelerators"))
        self.assertEqual(doc["type"], "int")

    def test_unknown_path_suggests(self):
        with self.assertRaises(air.ConfigError) as cm:
            air.schema_help("compute.acelerator_type")
        self.assertIn("accelerator_type", str(cm.exception))

    def test_accelerators(self):
        self.assertEqual(air.accelerator_gpus_per_node("GPU_8xH100"), 8)
        self.assertEqual(air.accelerator_gpus_per_node("GPU_1xA10"), 1)
        self.assertEqual(air.accelerator_gpus_per_node("TPU"), 0)
        self.assertEqual(air.accelerator_display_name("GPU_8xH100"), "H100")
        self.assertEqual(air.accelerator_display_name("TPU"), "TPU")


if __name__ == "__main__":
    unittest.main()

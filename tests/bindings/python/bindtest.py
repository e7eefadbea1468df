"""Shared set-up of the Python binding tests.

Environment (set by tests/bindings/meson.build): AIR_LIBRARY_PATH (the
built libair.so), AIR_SOURCE_ROOT, AIR_BUILD_ROOT, FAKEWS_PY, PYTHON.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_ROOT = os.environ.get("AIR_SOURCE_ROOT") or os.path.abspath(os.path.join(HERE, "..", "..", ".."))
BUILD_ROOT = os.environ.get("AIR_BUILD_ROOT")
PACKAGE_DIR = os.path.join(SOURCE_ROOT, "bindings", "python")
sys.path.insert(0, PACKAGE_DIR)
sys.path.insert(0, os.path.join(SOURCE_ROOT, "tests", "support"))

import air  # noqa: E402

TOKEN = "dapi-test"

MINIMAL_YAML = """\
experiment_name: bindings-test
compute:
  accelerator_type: GPU_1xA10
  num_accelerators: 1
command: python train.py
"""


def air_run_body(name="bind-exp", active=False, accel="GPU_1xA10", count=1):
    """A stored AI Runtime run (fakews control API); active: RUNNING for 10 minutes."""
    body = {"run_name": name, "tasks": [{
        "task_key": name,
        "ai_runtime_task": {"experiment": name, "deployments": [
            {"compute": {"accelerator_type": accel, "accelerator_count": count}}]}}]}
    if active:
        body["lifecycle"] = {"pending_ms": 0, "running_ms": 600000}
    return body

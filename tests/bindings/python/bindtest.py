"""Shared set-up of the Python binding tests.

Environment (set by tests/meson.build): AIR_LIBRARY_PATH (the built
libair.so), AIR_SOURCE_ROOT, AIR_BUILD_ROOT, FAKEWS_PY, PYTHON.

A libair module that is not implemented yet answers AIR_EUNSUPPORTED; a test
that reaches such a call is reported as skipped (naming the call), so the
suite runs fully as modules land. AIR_BINDINGS_STRICT=1 turns those skips
into failures.
"""

import functools
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_ROOT = os.environ.get("AIR_SOURCE_ROOT") or os.path.abspath(os.path.join(HERE, "..", "..", ".."))
BUILD_ROOT = os.environ.get("AIR_BUILD_ROOT")
sys.path.insert(0, os.path.join(SOURCE_ROOT, "bindings", "python"))
sys.path.insert(0, os.path.join(SOURCE_ROOT, "tests", "support"))

import air  # noqa: E402

STRICT = os.environ.get("AIR_BINDINGS_STRICT") == "1"


def skip_unimplemented(cls):
    """Class decorator: an UnsupportedError escaping a test skips it."""
    for name in dir(cls):
        if not name.startswith("test"):
            continue
        fn = getattr(cls, name)

        def wrapper(self, _fn=fn):
            try:
                return _fn(self)
            except air.UnsupportedError as exc:
                if STRICT:
                    raise
                raise unittest.SkipTest("libair module not implemented yet: %s" % exc) from None

        functools.update_wrapper(wrapper, fn)
        setattr(cls, name, wrapper)
    return cls


MINIMAL_YAML = """\
experiment_name: bindings-test
compute:
  accelerator_type: GPU_1xA10
  num_accelerators: 1
command: python train.py
"""

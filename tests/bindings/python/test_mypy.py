"""``mypy --strict`` is clean on the package, with the modules generated
from the headers, and on the example that uses it (run when mypy is
installed: Debian package mypy)."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_ROOT = os.environ.get("AIR_SOURCE_ROOT") or os.path.abspath(os.path.join(HERE, "..", "..", ".."))
PACKAGE_DIR = os.path.join(SOURCE_ROOT, "bindings", "python")

MYPY = os.environ.get("MYPY") or shutil.which("mypy")


@unittest.skipUnless(MYPY or os.environ.get("AIR_TEST_CI"), "mypy is not installed")
class MypyTest(unittest.TestCase):
    def test_strict(self):
        self.assertTrue(MYPY, "mypy is not installed (Debian package mypy)")
        with tempfile.TemporaryDirectory() as tmp:
            package = os.path.join(tmp, "air")  # the package as built: with its tables
            shutil.copytree(os.path.join(PACKAGE_DIR, "air"), package,
                            ignore=shutil.ignore_patterns("__pycache__", "_libs"))
            subprocess.run([sys.executable, os.path.join(SOURCE_ROOT, "bindings", "gen_tables.py"),
                            "--python", package], check=True)
            done = subprocess.run(
                [MYPY, "--strict", "--cache-dir", os.path.join(tmp, "cache"), "--no-error-summary",
                 package, os.path.join(SOURCE_ROOT, "examples", "python", "sweep.py")],
                env=dict(os.environ, MYPYPATH=tmp), stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT, universal_newlines=True, timeout=600)
        self.assertEqual(done.returncode, 0, done.stdout)


if __name__ == "__main__":
    unittest.main()

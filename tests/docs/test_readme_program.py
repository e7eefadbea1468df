#!/usr/bin/env python3
"""README.md's first C program, built and run exactly as the README says.

usage: test_readme_program.py [sanitized]

The program is the C block of "## A first C program"; the commands are the
shell block after it, run as written with bash in a directory laid out like
a fresh clone after the set-up (`build/` is this build, `examples/` the
source tree's). They build the program against the build tree and run a
workload on the local workspace: it must print the run's log and exit 0.
The same binary exits 1 for a run that fails. In a sanitized build the
README's plain `cc` line cannot link the instrumented library: skipped.
"""
import os
import re
import subprocess
import sys
import tempfile
import unittest

SRC = os.environ["AIR_SOURCE_ROOT"]
BUILD = os.environ["AIR_BUILD_ROOT"]
SANITIZED = False


def readme_section():
    with open(os.path.join(SRC, "README.md"), encoding="utf-8") as f:
        text = f.read()
    start = text.index("## A first C program")
    return text[start:text.index("\n## ", start + 1)]


def blocks(text, lang):
    return re.findall(r"\n```%s\n(.*?)\n```" % lang, text, re.S)


class ReadmeProgram(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        section = readme_section()
        cls.program = blocks(section, "c")[0] + "\n"
        cls.commands = blocks(section, "sh")[0]
        cls.tmp = tempfile.TemporaryDirectory(prefix="air-readme-")
        cls.clone = cls.tmp.name
        os.symlink(BUILD, os.path.join(cls.clone, "build"))
        os.symlink(os.path.join(SRC, "examples"), os.path.join(cls.clone, "examples"))
        with open(os.path.join(cls.clone, "prog.c"), "w") as f:
            f.write(cls.program)
        home = os.path.join(cls.clone, "home")
        os.mkdir(home)
        cls.env = {k: v for k, v in os.environ.items()
                   if not k.startswith(("DATABRICKS_", "AIR_", "PKG_CONFIG"))
                   and k not in ("LD_LIBRARY_PATH", "LD_PRELOAD")}
        cls.env.update(HOME=home, DATABRICKS_CONFIG_FILE=os.path.join(home, "none"))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def run_in_clone(self, script):
        return subprocess.run(["bash", "-e", "-c", script], cwd=self.clone, env=self.env,
                              capture_output=True, text=True, timeout=300)

    def test_the_readme_commands_build_and_run_it(self):
        if SANITIZED:
            self.skipTest("sanitized build: a plain cc cannot link the instrumented libair")
        self.assertIn("cc prog.c ", self.commands)
        p = self.run_in_clone(self.commands)
        self.assertEqual(p.returncode, 0, "%s\n%s\n%s" % (self.commands, p.stdout, p.stderr))
        self.assertIn("training finished", p.stdout)  # the last line of examples/local-train

        # A run that fails: exit status 1.
        with open(os.path.join(self.clone, "fails.yaml"), "w") as f:
            f.write("experiment_name: fails\ncommand: echo giving up; exit 3\nmax_retries: 0\n"
                    "compute: {accelerator_type: GPU_1xA10, num_accelerators: 1}\n")
        p = self.run_in_clone("DATABRICKS_HOST=local:// ./prog fails.yaml")
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn("giving up", p.stdout)
        # No argument: usage, not a crash.
        p = self.run_in_clone("./prog")
        self.assertEqual(p.returncode, 2)
        self.assertIn("usage:", p.stderr)


if __name__ == "__main__":
    if len(sys.argv) > 1:
        SANITIZED = sys.argv.pop(1) == "sanitized"
    unittest.main(verbosity=2)

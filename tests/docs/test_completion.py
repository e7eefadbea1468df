#!/usr/bin/env python3
"""The bash completion (completion/air.bash) driven the way bash drives it:
COMP_WORDS/COMP_CWORD set, _air called, COMPREPLY read back, in
`bash --norc --noprofile`.

usage: test_completion.py SCHEMA_DUMP

What it must offer is read from the CLI itself (tests/docs/cli_surface.py)
and from the library's field help (SCHEMA_DUMP, tests/docs/schema_dump), so
a new command, flag or workload field that the completion misses fails here.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cli_surface  # noqa: E402

SRC = os.environ["AIR_SOURCE_ROOT"]
AIR = os.environ["AIR_CLI"]
SCRIPT = os.path.join(SRC, "completion", "air.bash")
DUMP = None

DRIVER = r'''
source "$1"; shift
complete -p air >/dev/null || exit 3
COMP_WORDS=("$@")
COMP_CWORD=$(($# - 1))
COMP_LINE="$*"
COMP_POINT=${#COMP_LINE}
_air
printf '%s\n' "${COMPREPLY[@]}"
'''


class Completion(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not shutil.which("bash"):
            raise unittest.SkipTest("bash is not installed")
        cls.tmp = tempfile.mkdtemp(prefix="air-completion-")
        cls.names, cls.globals = cli_surface.top_level(AIR)
        cls.commands = cli_surface.commands(AIR)
        out = subprocess.run([DUMP], capture_output=True, text=True, check=True).stdout
        cls.fields = {}
        for line in out.splitlines():
            path, kind = line.split("\t")[:2]
            cls.fields[path] = int(kind)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def complete(self, *words, env=None, cwd=None):
        e = dict(os.environ, HOME=self.tmp)
        e.pop("DATABRICKS_CONFIG_FILE", None)
        e.update(env or {})
        p = subprocess.run(["bash", "--norc", "--noprofile", "-c", DRIVER, "driver", SCRIPT,
                            AIR, *words], capture_output=True, text=True, env=e, cwd=cwd,
                           timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stderr, "")
        return [w for w in p.stdout.split("\n") if w]

    def test_commands(self):
        got = self.complete("")
        for name in self.names:
            self.assertIn(name, got)
        self.assertEqual(sorted(self.complete("r")), ["register-image", "rerun", "run"])
        self.assertEqual(self.complete("ru"), ["run"])
        self.assertEqual(sorted(self.complete("help", "")), sorted(self.names))

    def test_subcommands(self):
        for cmd in self.commands:
            if cmd.subcommands:
                self.assertEqual(sorted(self.complete(*cmd.words, "")), sorted(cmd.subcommands),
                                 cmd.name)

    def test_every_flag_of_every_command(self):
        for cmd in self.commands:
            got = self.complete(*cmd.words, "-")
            want = {s for f in cmd.flags for s in (f.long, f.short) if s}
            want |= {s for f in cli_surface.global_flags_of_commands(AIR, cmd.words[0])
                     for s in (f.long, f.short) if s}
            self.assertEqual(want - set(got), set(), "air %s -<TAB>" % cmd.name)
            self.assertEqual(set(got) - want, set(), "air %s -<TAB>" % cmd.name)

    def test_global_flags(self):
        got = self.complete("--")
        for f in self.globals:
            self.assertIn(f.long, got)

    def test_flag_values_are_skipped(self):
        self.assertEqual(self.complete("-o", "json", "run", "-f", "x.yaml", "--wa"), ["--watch"])
        self.assertEqual(self.complete("list", "--limit", "5", "--all-s"), ["--all-status"])

    def test_output_values(self):
        self.assertEqual(self.complete("-o", ""), ["text", "json"])
        self.assertEqual(self.complete("logs", "--output", "j"), ["json"])

    def test_field_paths_follow_the_schema(self):
        self.assertEqual(self.complete("run", "-h", ""), ["config."])
        self.assertEqual(self.complete("run", "-h", "conf"), ["config."])
        objects = [""] + [p for p, kind in self.fields.items() if kind in (1, 7)]
        for obj in objects:
            prefix = "config." + obj + ("." if obj else "")
            want = sorted("config." + p for p in self.fields
                          if p.startswith(obj + "." if obj else "") and
                          "." not in p[len(obj) + 1 if obj else 0:])
            got = sorted(self.complete("run", "-h", prefix))
            if len(want) == 1 and self.fields[want[0][len("config."):]] in (1, 7):
                want = [want[0] + "."]
            self.assertEqual(got, want, prefix)

    def test_single_field_matches(self):
        self.assertEqual(self.complete("run", "-h", "config.compute.po"),
                         ["config.compute.pool_id"])
        self.assertEqual(self.complete("run", "-h", "config.comp"), ["config.compute."])
        self.assertEqual(self.complete("run", "-h", "config.compute.nope"), [])
        self.assertEqual(self.complete("run", "-h", "config.nope.x"), [])

    def test_profiles(self):
        cfg = os.path.join(self.tmp, "profiles.cfg")
        with open(cfg, "w") as f:
            f.write("host = https://x\n[DEFAULT]\nhost = https://a\n[ dev ]\ntoken = t\n"
                    "[prod-eu]\n# [commented]\n[__settings__]\ndefault_profile = dev\n")
        env = {"DATABRICKS_CONFIG_FILE": cfg}
        self.assertEqual(self.complete("-p", "", env=env), ["DEFAULT", "dev", "prod-eu"])
        self.assertEqual(self.complete("run", "-f", "x.yaml", "--profile", "d", env=env),
                         ["dev"])
        home_cfg = os.path.join(self.tmp, ".databrickscfg")
        with open(home_cfg, "w") as f:
            f.write("[home-profile]\nhost = https://h\n")
        try:
            self.assertEqual(self.complete("list", "-p", ""), ["home-profile"])
        finally:
            os.remove(home_cfg)
        self.assertEqual(self.complete("-p", ""), [])

    def test_file_arguments(self):
        d = os.path.join(self.tmp, "files")
        os.makedirs(os.path.join(d, "sub"))
        open(os.path.join(d, "train.yaml"), "w").close()
        self.assertEqual(self.complete("run", "-f", "tr", cwd=d), ["train.yaml"])
        self.assertEqual(self.complete("logs", "7", "--download-to", "", cwd=d), ["sub"])

    def test_no_completion_for_free_values(self):
        self.assertEqual(self.complete("list", "--limit", ""), [])
        self.assertEqual(self.complete("cancel", ""), [])


if __name__ == "__main__":
    DUMP = sys.argv.pop(1)
    unittest.main(verbosity=2)

#!/usr/bin/env python3
"""The guides say only what the code does.

usage: check_guides.py [CC]

* Every API name (air_*, AIR_*) in README.md and docs/*.md is declared by a
  public header, or is an environment variable the sources read (NEWS.md,
  the history, may name what is gone; names ending in "_" are prefixes).
* A code block after `<!-- example: PATH -->` is the file PATH, verbatim.
* Every C block with a main() compiles against the headers (CC, -fsyntax-only).
* Every `air ...` command in a shell block of README.md, docs/*.md and the
  examples of air(1) is a command of `air --help` with flags its
  `--help` lists (tests/docs/cli_surface.py).
* The API table of docs/go.md gives each call the results its Go
  declaration has (bindings/go).
"""
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cli_surface  # noqa: E402

SRC = os.environ["AIR_SOURCE_ROOT"]
BUILD = os.environ["AIR_BUILD_ROOT"]
AIR = os.environ["AIR_CLI"]
CC = None


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def pages():
    return [os.path.join(SRC, "README.md")] + sorted(glob.glob(os.path.join(SRC, "docs", "*.md")))


def blocks(text, langs):
    """(language, body, line before the fence) of fenced code blocks."""
    out = []
    for m in re.finditer(r"(?:^|\n)([^\n]*)\n```(\w*)\n(.*?)\n```", text, re.S):
        if m.group(2) in langs:
            out.append((m.group(2), m.group(3), m.group(1)))
    return out


def command_lines(body):
    """Shell command segments that run air."""
    body = body.replace("\\\n", " ")
    for line in body.splitlines():
        line = re.sub(r"(^|\s)#.*$", "", line)
        for seg in re.split(r"\||;|&&|\$\(|\bdo\b", line):
            seg = seg.strip().rstrip(")")
            if re.match(r"^(\S*/)?air\s|^(\S*/)?air$", seg) and "air_" not in seg.split()[0]:
                yield seg


def go_results():
    """{function or method name: its results without the error} of the exported
    functions of bindings/go ("" for an error alone)."""
    out = {}
    for path in glob.glob(os.path.join(SRC, "bindings", "go", "*.go")):
        text = read(path)
        for m in re.finditer(r"^func (?:\([^)]*\) )?([A-Z]\w*)\(", text, re.M):
            depth, i = 1, m.end()
            while depth:  # the parameters may hold func types
                depth += {"(": 1, ")": -1}.get(text[i], 0)
                i += 1
            results = text[i:text.index("{", i)].strip()
            if results.startswith("("):
                results = results[1:-1]
            parts = [r.strip() for r in results.split(",") if r.strip()]
            parts = [p.split()[-1] for p in parts if p.split()[-1] != "error"]
            out[m.group(1)] = ", ".join(parts)
    return out


class Guides(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        headers = ""
        for h in glob.glob(os.path.join(SRC, "include", "air", "*.h*")):
            headers += read(h)
        cls.api = set(re.findall(r"\b((?:air|AIR)_\w+)", headers))
        code = ""
        for d in ("lib", "cli", "bindings", "tests"):
            for path in glob.glob(os.path.join(SRC, d, "**", "*.*"), recursive=True):
                if path.endswith((".c", ".h", ".py", ".go", ".build")):
                    code += read(path)
        cls.env_vars = set(re.findall(r"[\"'](AIR_[A-Z0-9_]+)[\"']", code))
        cls.names, cls.globals = cli_surface.top_level(AIR)
        cls.commands = {c.words: c for c in cli_surface.commands(AIR)}

    def test_api_names_exist(self):
        unknown = []
        for page in pages():
            if page.endswith("NEWS.md"):
                continue
            for name in set(re.findall(r"\b((?:air|AIR)_[A-Za-z0-9_]*)", read(page))):
                if name.endswith("_") or name.startswith(("air__", "AIR__")):
                    continue
                if name not in self.api and name not in self.env_vars:
                    unknown.append("%s: %s" % (os.path.relpath(page, SRC), name))
        self.assertEqual(sorted(unknown), [])

    def test_examples_are_the_files(self):
        seen = 0
        for page in pages():
            for lang, body, before in blocks(read(page), {"c", "sh", "yaml", "python", "go"}):
                m = re.match(r"<!-- example: (\S+) -->", before.strip())
                if m:
                    seen += 1
                    self.assertEqual(body + "\n", read(os.path.join(SRC, m.group(1))),
                                     "%s: the block differs from %s" % (page, m.group(1)))
        self.assertGreater(seen, 0)

    def test_c_programs_compile(self):
        if not CC or not shutil.which(CC):
            self.skipTest("no C compiler")
        n = 0
        with tempfile.TemporaryDirectory() as tmp:
            for page in pages():
                for _, body, _ in blocks(read(page), {"c"}):
                    if "main(" not in body:
                        continue
                    n += 1
                    path = os.path.join(tmp, "snippet%d.c" % n)
                    with open(path, "w") as f:
                        f.write(body)
                    p = subprocess.run([CC, "-std=c11", "-Wall", "-Werror", "-fsyntax-only",
                                        "-I", os.path.join(SRC, "include"),
                                        "-I", os.path.join(BUILD, "include"),
                                        "-I", os.path.join(BUILD, "include", "air"), path],
                                       capture_output=True, text=True)
                    self.assertEqual(p.returncode, 0, "%s:\n%s\n%s" % (page, body, p.stderr))
        self.assertGreater(n, 0)

    def check_command(self, where, seg):
        try:
            toks = shlex.split(seg)
        except ValueError:
            toks = seg.split()
        toks = toks[1:]
        words, flags, i = [], [], 0
        takes_value = {s for f in self.globals for s in (f.long, f.short) if s and f.metavar}
        while i < len(toks):
            t = toks[i]
            if t.startswith("-") and t != "-":
                flags.append(t.split("=")[0])
                if "=" not in t and (t in takes_value or self.flag_takes_value(words, t)):
                    i += 1
            elif not words or (tuple(words) in self.commands and
                               t in self.commands[tuple(words)].subcommands):
                words.append(t)
            i += 1
        if not words:
            for f in flags:
                self.assertIn(f, {s for g in self.globals for s in (g.long, g.short) if s},
                              "%s: `%s`" % (where, seg))
            return
        self.assertIn(tuple(words[:1]), self.commands, "%s: `%s`: no such command" % (where, seg))
        cmd = self.commands[tuple(words)]
        allowed = {s for f in cmd.flags for s in (f.long, f.short) if s}
        allowed |= {s for f in cli_surface.global_flags_of_commands(AIR, words[0])
                    for s in (f.long, f.short) if s}
        for f in flags:
            self.assertIn(f, allowed, "%s: `%s`: air %s has no flag %s" % (where, seg,
                                                                            cmd.name, f))

    def flag_takes_value(self, words, flag):
        cmd = self.commands.get(tuple(words))
        return bool(cmd) and any(flag in (f.long, f.short) and f.metavar for f in cmd.flags)

    def test_go_api_table_matches_the_binding(self):
        decls = go_results()
        text = read(os.path.join(SRC, "docs", "go.md"))
        table = text[text.index("## The API"):]
        rows, wrong = 0, []
        for line in table[table.index("|---"):].splitlines()[1:]:
            if not line.startswith("| `"):
                break
            calls_cell, _, returns_cell = [c.strip() for c in line.strip("|").split("|")]
            calls = [c for c in re.findall(r"`([^`]+)`", calls_cell) if not c.endswith("*")]
            types = [t for t in re.findall(r"`([^`]+)`", returns_cell) if t != "error"]
            if not types and "error" not in returns_cell:
                continue  # described in words ("run and experiment URLs")
            for i, call in enumerate(calls):
                name = re.match(r"(?:\w+\.)?(\w+)", call).group(1)
                want = types[i] if len(types) == len(calls) else (types[0] if types else "")
                if decls.get(name) != want:
                    wrong.append("%s returns %s, the table says %s" % (
                        call, decls.get(name, "(not declared)") or "only an error",
                        want or "nothing"))
                rows += 1
        self.assertEqual(wrong, [], "docs/go.md, The API")
        self.assertGreater(rows, 20)

    def test_commands_exist(self):
        sources = [(p, read(p)) for p in pages()]
        sources.append(("air.1.scd", read(os.path.join(SRC, "docs", "man", "air.1.scd"))))
        n = 0
        for where, text in sources:
            for _, body, _ in blocks(text, {"sh", ""}):
                for seg in command_lines(body):
                    n += 1
                    self.check_command(os.path.relpath(where, SRC), seg)
        self.assertGreater(n, 20)


if __name__ == "__main__":
    if len(sys.argv) > 1:
        CC = sys.argv.pop(1)
    unittest.main(verbosity=2)

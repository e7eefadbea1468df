#!/usr/bin/env python3
"""The air(1) manual page documents the command line that `air` really has.

usage: check_man.py [BUILT_PAGE]

The commands, subcommands and flags are read from `air --help` and
`air CMD [SUB] --help` (tests/docs/cli_surface.py), never from a list kept
here, so a command or flag added to the CLI fails this test until the page
(docs/man/air.1.scd) describes it:

* every command has a "## air CMD" section (or "## air CMD SUB" sections);
* every flag of a command appears in its section, the global flags in
  GLOBAL FLAGS;
* the other way round, every section names an existing command and every
  flag a section defines exists.

BUILT_PAGE, when given, is the roff page meson built from the source: it must
carry the same sections and flags (scdoc accepted all of it).
"""
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cli_surface  # noqa: E402

SRC = os.environ["AIR_SOURCE_ROOT"]
AIR = os.environ["AIR_CLI"]
SOURCE = os.path.join(SRC, "docs", "man", "air.1.scd")
BUILT = None


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def mentions(text, flag):
    return re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(flag), text) is not None


def scd_sections(text):
    """{"GLOBAL FLAGS": body, ..., "air run": body, ...} (# and ## headings)."""
    out, name = {}, None
    for line in text.splitlines():
        m = re.match(r"^(#{1,2}) (.+)$", line)
        if m:
            name = m.group(2).strip()
            out[name] = ""
        elif name:
            out[name] += line + "\n"
    return out


def roff_sections(text):
    """The same split of scdoc's roff output (.SH / .SS headings)."""
    out, name = {}, None
    for line in text.splitlines():
        m = re.match(r'^\.S[HS] "?([^"]+)"?$', line)
        if m:
            name = m.group(1).strip()
            out[name] = ""
        elif name:
            out[name] += line.replace("\\-", "-").replace("\\fB", "").replace("\\fR", "") \
                .replace("\\fI", "") + "\n"
    return out


class ManPage(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.names, cls.globals = cli_surface.top_level(AIR)
        cls.commands = cli_surface.commands(AIR)
        cls.pages = [("source", scd_sections(read(SOURCE)))]
        if BUILT:
            cls.pages.append(("built", roff_sections(read(BUILT))))

    def sections_of(self, sections, words):
        """The section of `air WORDS`, else every section below it."""
        exact = "air " + " ".join(words)
        if exact in sections:
            return sections[exact]
        below = [body for title, body in sections.items() if title.startswith(exact + " ")]
        return "".join(below) if below else None

    def test_surface_is_read(self):
        self.assertIn("run", self.names)
        self.assertIn("--output", [f.long for f in self.globals])
        run = [c for c in self.commands if c.words == ("run",)][0]
        self.assertIn("--file", [f.long for f in run.flags])

    def test_every_command_has_a_section(self):
        for kind, sections in self.pages:
            for cmd in self.commands:
                self.assertIsNotNone(self.sections_of(sections, cmd.words),
                                     "%s page: no section for `air %s`" % (kind, cmd.name))

    def test_every_flag_is_described(self):
        for kind, sections in self.pages:
            missing = []
            for cmd in self.commands:
                body = self.sections_of(sections, cmd.words) or ""
                for f in cmd.flags:
                    for spelling in filter(None, (f.long, f.short)):
                        if not mentions(body, spelling):
                            missing.append("air %s %s" % (cmd.name, spelling))
            body = sections.get("GLOBAL FLAGS", "")
            for f in self.globals:
                for spelling in filter(None, (f.long, f.short)):
                    if not mentions(body, spelling):
                        missing.append("global %s" % spelling)
            self.assertEqual(missing, [], "%s page lacks these flags" % kind)

    def test_sections_name_existing_commands(self):
        known = {"air " + c.name for c in self.commands}
        for kind, sections in self.pages:
            for title in sections:
                if title.startswith("air "):
                    self.assertIn(title, known, "%s page: `%s` is not a command" % (kind, title))

    def test_defined_flags_exist(self):
        # Definition lines of the source: "*--flag* ..." or "*-s, --flag* ..." at the start.
        sections = self.pages[0][1]
        global_names = {s for f in self.globals for s in (f.long, f.short) if s}
        for cmd in self.commands:
            title = "air " + cmd.name
            if title not in sections:
                continue
            names = {s for f in cmd.flags for s in (f.long, f.short) if s} | global_names
            for line in sections[title].splitlines():
                for flag in re.findall(r"^\*((?:-\w, )?--?[\w-]+)", line):
                    for spelling in flag.split(", "):
                        self.assertIn(spelling, names, "%s: %s is not a flag" % (title, line))


if __name__ == "__main__":
    if len(sys.argv) > 1:
        BUILT = sys.argv.pop(1)
    unittest.main(verbosity=2)

#!/usr/bin/env python3
"""docs/workload-yaml.md against the library's own field help.

usage: check_workload_yaml.py SCHEMA_DUMP [--write]

SCHEMA_DUMP is tests/docs/schema_dump (every field of air_schema_root(), one
tab-separated line each). The "Field reference" section of the page, between
its two markers, must be exactly the table rendered from that output: every
field of the schema with its type, requirement, default and description.
--write regenerates the section in place (after a schema change).

Every dotted field path the rest of the page names in backquotes
(`compute.pool_id`, `permissions[0].level`) must be a field of the schema too,
except the keys of older schemas that the page names as refused (NOT_FIELDS),
which must stay unknown to the library.
"""
import os
import re
import subprocess
import sys
import unittest

SRC = os.environ.get("AIR_SOURCE_ROOT") or os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__))))
PAGE = os.path.join(SRC, "docs", "workload-yaml.md")
BEGIN = ("<!-- field-reference: generated from the library's field help by "
         "tests/docs/check_workload_yaml.py --write; do not edit by hand -->")
END = "<!-- end of field-reference -->"
# Keys of older schemas that the page names as refused (with a pointer).
NOT_FIELDS = {"compute.node_pool_id", "compute.pool_name", "compute.provisioned_capacity_id"}
# Fields whose keys are the user's: paths below them are data, not schema.
MAPS = {"env_variables", "secrets", "parameters"}
DUMP = None


def schema():
    out = subprocess.run([DUMP], capture_output=True, text=True, check=True).stdout
    fields = []
    for line in out.splitlines():
        path, kind, typ, req, default, desc = line.split("\t")
        fields.append({"path": path, "kind": int(kind), "type": typ, "required": req,
                       "default": None if default == "-" else default, "description": desc})
    return fields


def cell(text):
    return text.replace("|", "\\|")


def render(fields):
    rows = [BEGIN, "",
            "| Field | Type | Required | Default | Description |",
            "|---|---|---|---|---|"]
    for f in fields:
        rows.append("| `%s` | %s | %s | %s | %s |" % (
            f["path"], cell(f["type"]), cell(f["required"]),
            "`%s`" % f["default"] if f["default"] is not None else "",
            cell(f["description"])))
    rows += ["", END]
    return "\n".join(rows)


def split_page(text):
    if text.count(BEGIN) != 1 or text.count(END) != 1:
        raise AssertionError("%s: the field reference markers must appear once each" % PAGE)
    head, rest = text.split(BEGIN, 1)
    body, tail = rest.split(END, 1)
    return head, BEGIN + body + END, tail


def named_paths(text):
    """Dotted paths in backquotes whose first segment is a top-level field."""
    for token in re.findall(r"`([^`\n]+)`", text):
        token = re.sub(r"\[[^\]]*\]", "", token.strip())
        if token.startswith("config."):
            token = token[len("config."):]
        if re.fullmatch(r"[a-z_]+(\.[a-z_]+)+", token):
            yield token


class WorkloadYamlPage(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.fields = schema()
        cls.paths = {f["path"] for f in cls.fields}
        cls.text = open(PAGE, encoding="utf-8").read()

    def test_schema_is_walked(self):
        self.assertIn("compute.accelerator_type", self.paths)
        self.assertIn("code_source.snapshot.git.commit", self.paths)
        self.assertGreater(len(self.fields), 40)

    def test_reference_section_is_the_field_help(self):
        _, section, _ = split_page(self.text)
        want = render(self.fields)
        if section != want:
            import difflib
            diff = "\n".join(difflib.unified_diff(section.splitlines(), want.splitlines(),
                                                  "docs/workload-yaml.md", "field help",
                                                  lineterm=""))
            self.fail("the field reference differs from the library's field help "
                      "(regenerate: %s %s --write):\n%s" % (sys.argv[0], DUMP, diff))

    def test_every_field_is_in_the_reference(self):
        _, section, _ = split_page(self.text)
        for f in self.fields:
            self.assertIn("| `%s` | %s | %s |" % (f["path"], cell(f["type"]),
                                                  cell(f["required"])), section)

    def test_every_named_field_exists(self):
        head, _, tail = split_page(self.text)
        top = {p for p in self.paths if "." not in p}
        unknown = []
        for path in named_paths(head + tail):
            first = path.split(".")[0]
            if first not in top or first in MAPS or path in NOT_FIELDS:
                continue
            if path not in self.paths:
                unknown.append(path)
        self.assertEqual(unknown, [], "the page names fields the schema does not have")

    def test_refused_keys_are_unknown_to_the_library(self):
        for path in NOT_FIELDS:
            self.assertNotIn(path, self.paths)
            self.assertIn("`%s`" % path, self.text)


def write():
    text = open(PAGE, encoding="utf-8").read()
    head, _, tail = split_page(text)
    text = head + render(schema()) + tail
    with open(PAGE, "w", encoding="utf-8") as f:
        f.write(text)
    print("updated", PAGE)


if __name__ == "__main__":
    DUMP = sys.argv.pop(1)
    if sys.argv[1:] == ["--write"]:
        write()
    else:
        unittest.main(verbosity=2)

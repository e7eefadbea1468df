#!/usr/bin/env python3
"""References to documentation point into this repository and resolve.

Over every tracked text file (sources, tests, build files, docs):

* no citation of a specification that is not part of the repository: its
  file names, or a numbered section (`§1.2`) other than of an RFC, FIPS or
  OAuth standard named on the same line;
* every `docs/<name>.md` exists, and a `docs/<name>.md#anchor` names a
  heading of that file (anchors as Markdown renderers make them);
* no `docs/<name>.md.<n>` (a section number is not an anchor);
* no Markdown file has the same heading twice under one parent heading (a
  section pasted twice; its anchor would reach only the first).

    check_doc_refs.py SRC_ROOT
    check_doc_refs.py --self-test     # the checks catch what they should
"""
import os
import re
import subprocess
import sys

TEXT = (".c", ".h", ".in", ".py", ".go", ".md", ".build", ".txt", ".sh", ".scd", ".toml",
        ".cmake", ".bash", ".yaml", ".yml", ".json")
# Spelled in pieces so that this file does not cite them itself.
FOREIGN = ["PROTOCOL" + ".md", "CLI_AND_OUTPUT", "WORKLOAD_YAML" + ".md", "SCENARIOS" + ".md",
           "STYLE" + ".md", "PROTOCOL" + " §", "shared" + "/spec"]
STANDARDS = re.compile(r"\b(RFC\s*\d+|FIPS|OAuth)\b")
DOC_REF = re.compile(r"\bdocs/([\w.-]+?\.md)(#[\w-]+|\.\d[\w.]*)?")


def anchor(heading):
    """The anchor of a Markdown heading, as GitHub and most renderers make it."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path):
    with open(path, encoding="utf-8") as f:
        text = re.sub(r"```.*?```", "", f.read(), flags=re.S)
    return {anchor(m.group(1)) for m in re.finditer(r"^#{1,6}\s+(.+?)\s*#*\s*$", text, re.M)}


def repeated_headings(rel, text):
    """Headings a Markdown file repeats under the same parent heading."""
    out, seen, parents = [], set(), []
    in_code = False
    for n, line in enumerate(text.splitlines(), 1):
        if line.startswith("```"):
            in_code = not in_code
            continue
        m = None if in_code else re.match(r"^(#{1,6})\s+(.+?)\s*#*\s*$", line)
        if not m:
            continue
        level, title = len(m.group(1)), m.group(2)
        parents = [p for p in parents if p[0] < level]
        key = (tuple(parents), level, title)
        if key in seen:
            out.append("%s:%d: the heading '%s' is there twice under the same parent: a section "
                       "pasted twice?" % (rel, n, title))
        seen.add(key)
        parents.append((level, title))
    return out


def tracked_files(src):
    try:
        out = subprocess.run(["git", "-C", src, "ls-files"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, universal_newlines=True, check=True).stdout
        return [p for p in out.splitlines() if os.path.isfile(os.path.join(src, p))]
    except (OSError, subprocess.CalledProcessError):  # a release tarball
        files = []
        for root, dirs, names in os.walk(src):
            dirs[:] = [d for d in dirs if not d.startswith((".", "build", "subprojects"))]
            files += [os.path.relpath(os.path.join(root, n), src) for n in names]
        return files


def problems_in(rel, text, docs_dir):
    out = []
    cache = {}
    for n, line in enumerate(text.splitlines(), 1):
        where = "%s:%d" % (rel, n)
        for name in FOREIGN:
            if name in line:
                out.append("%s: cites %s, which is not in this repository: point at docs/"
                           % (where, name.split()[0]))
        if re.search(r"§\s*\d", line) and not STANDARDS.search(line):
            out.append("%s: a numbered section of a document outside the repository: %s"
                       % (where, line.strip()))
        for m in DOC_REF.finditer(line):
            doc, frag = m.group(1), m.group(2) or ""
            path = os.path.join(docs_dir, doc)
            if not os.path.isfile(path):
                out.append("%s: docs/%s does not exist" % (where, doc))
            elif frag.startswith("."):
                out.append("%s: docs/%s%s: use docs/%s#<heading anchor>" % (where, doc, frag, doc))
            elif frag:
                if path not in cache:
                    cache[path] = anchors(path)
                if frag[1:] not in cache[path]:
                    out.append("%s: docs/%s has no heading with the anchor %s" % (where, doc, frag))
    return out


def check(src):
    docs_dir = os.path.join(src, "docs")
    me = os.path.relpath(os.path.abspath(__file__), src)
    problems = []
    count = 0
    for rel in tracked_files(src):
        if rel == me or not rel.endswith(TEXT) or rel.startswith("abi/"):
            continue
        try:
            with open(os.path.join(src, rel), encoding="utf-8") as f:
                text = f.read()
        except (UnicodeDecodeError, OSError):
            continue
        count += 1
        problems += problems_in(rel, text, docs_dir)
        if rel.endswith(".md"):
            problems += repeated_headings(rel, text)
    return count, problems


def self_test():
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "docs"))
        with open(os.path.join(tmp, "docs", "a.md"), "w") as f:
            f.write("# Title\n\n## Reading a run (`air get`)\n\n```sh\n# not a heading\n```\n")
        cases = {
            "/* see docs/a.md#reading-a-run-air-get */": 0,
            "/* see docs/a.md and docs/a.md#title */": 0,
            "/* base64 (RFC 4648 §4) */": 0,
            "/* see docs/a.md#not-a-heading */": 1,
            "/* see docs/b.md */": 1,
            "/* see docs/a.md.2 */": 1,
            "/* the contract (" + "PROTOCOL" + ".md §1.2) */": 2,
            "/* classification (§3.2) */": 1,
        }
        bad = []
        for text, want in cases.items():
            got = problems_in("x.c", text, os.path.join(tmp, "docs"))
            if len(got) != want:
                bad.append("%r: %d problems, expected %d: %s" % (text, len(got), want, got))
        headings = {
            "# A\n## Added\n## Fixed\n# B\n## Added\n": 0,
            "# A\n## Payloads\n### Tests\n## Sweeps\n### Tests\n": 0,
            "# A\n## Payloads\n## Sweeps\n## Payloads\n": 1,
            "# A\n```sh\n# a comment\n# a comment\n```\n": 0,
        }
        for text, want in headings.items():
            got = repeated_headings("x.md", text)
            if len(got) != want:
                bad.append("%r: %d repeated headings, expected %d: %s" % (text, len(got), want, got))
    print("\n".join(bad) if bad else "self-test passed")
    return 1 if bad else 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    count, problems = check(sys.argv[1])
    if problems:
        print("\n".join(problems))
        return 1
    print("%d files: every documentation reference is in the repository and resolves" % count)
    return 0


sys.exit(main())

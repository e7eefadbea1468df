#!/usr/bin/env python3
"""No dead internal functions: every air__ function that a header of lib/
declares is called somewhere besides its declaration and its definition (in
lib/, or by the tests, fuzzers or benchmarks that exercise it). The compiler
already reports unused static functions; this covers the extern ones.

    check_unused.py SRC_ROOT
"""
import collections
import glob
import os
import re
import sys


def strip_comments(text):
    return re.sub(r"//[^\n]*", "", re.sub(r"/\*.*?\*/", "", text, flags=re.S))


def main():
    src = sys.argv[1]
    sources = {}
    for pattern in ("lib/**/*.[ch]", "tests/**/*.[ch]", "fuzz/**/*.[ch]", "bench/**/*.[ch]",
                    "cli/**/*.[ch]"):
        for path in glob.glob(os.path.join(src, pattern), recursive=True):
            with open(path, encoding="utf-8") as f:
                sources[os.path.relpath(path, src)] = strip_comments(f.read())
    declared = {}
    for rel, text in sources.items():
        if rel.startswith("lib/") and rel.endswith(".h"):
            for m in re.finditer(r"^[^#\s(][^;{}()]*?\b(air__\w+)\s*\(", text, re.M):
                declared.setdefault(m.group(1), rel)
    if len(declared) < 100:
        print("found only %d declarations: the scan is broken" % len(declared))
        return 1
    uses = collections.Counter()
    for text in sources.values():
        uses.update(re.findall(r"\bair__\w+", text))
    unused = []
    for name, header in sorted(declared.items()):
        if uses[name] <= 2:  # the declaration and the definition
            unused.append("%s (declared in %s) is never called: remove it" % (name, header))
    if unused:
        print("\n".join(unused))
        return 1
    print("%d internal functions, each called" % len(declared))
    return 0


sys.exit(main())

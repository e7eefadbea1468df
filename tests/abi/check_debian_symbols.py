#!/usr/bin/env python3
"""debian/libair1.symbols is lib/libair.map in dpkg-gensymbols' format.

usage: check_debian_symbols.py SOURCE_ROOT [--write]

Each symbol of a version node LIBAIR_M.m gets the minimal version M.m.0 (the
release that added it), plus the node's own symbol. The package build runs
dpkg-gensymbols -c4, so the file must list exactly what libair.so.1 exports;
this check keeps it in step with the map without building the package.
--write regenerates the file.
"""
import os
import re
import sys

HEADER = "libair.so.1 libair1 #MINVER#\n* Build-Depends-Package: libair-dev\n"


def render(map_text):
    lines = []
    for node, body in re.findall(r"^(LIBAIR_\d+\.\d+)\s*\{(.*?)\}", map_text, re.S | re.M):
        minver = node[len("LIBAIR_"):] + ".0"
        lines.append(" %s@%s %s" % (node, node, minver))
        body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
        body = body.split("local:")[0]
        for sym in re.findall(r"\b(air_\w+)\s*;", body):
            lines.append(" %s@%s %s" % (sym, node, minver))
    return HEADER + "\n".join(sorted(lines)) + "\n"


def main(src, write=False):
    with open(os.path.join(src, "lib", "libair.map")) as f:
        want = render(f.read())
    path = os.path.join(src, "debian", "libair1.symbols")
    if write:
        with open(path, "w") as f:
            f.write(want)
        return 0
    with open(path) as f:
        have = f.read()
    if have != want:
        import difflib
        sys.stdout.writelines(difflib.unified_diff(have.splitlines(True), want.splitlines(True),
                                                   "debian/libair1.symbols", "lib/libair.map"))
        print("regenerate with: %s %s --write" % (sys.argv[0], src))
        return 1
    print("debian/libair1.symbols: %d symbols, as in lib/libair.map" % (want.count("\n") - 2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:] == ["--write"]))

#!/usr/bin/env python3
"""Enum values of the public headers are ABI: they may be added, never
changed or removed. Compares the headers with the baseline abi/constants.txt
("NAME VALUE" lines). Constants are enums (which ctypes, cgo and debuggers
see): a numeric #define other than the version macros is refused.

    check_constants.py SRC_ROOT            # check
    check_constants.py SRC_ROOT --update   # rewrite the baseline (on release)
"""
import os
import re
import sys

# Macros that are not ABI: they describe the header's own version.
NOT_ABI = re.compile(r"^AIR_VERSION_(MAJOR|MINOR|PATCH|NUM|STRING)$")


def parse_value(text, known):
    expr = text.strip()
    expr = re.sub(r"(?<=[0-9a-fA-FxX])[uUlL]+\b", "", expr)
    expr = re.sub(r"\bAIR_\w+\b", lambda m: str(known[m.group(0)]), expr)
    if not re.fullmatch(r"[0-9xXa-fA-F\s()<>|*+\-/]+", expr):
        return None
    try:
        return int(eval(expr, {"__builtins__": {}}))  # arithmetic on literals only
    except Exception:
        return None


def header_constants(src, defines=None):
    values = {}
    hdr_dir = os.path.join(src, "include", "air")
    for name in sorted(os.listdir(hdr_dir)):
        if not (name.endswith(".h") or name.endswith(".h.in")):
            continue
        text = re.sub(r"/\*.*?\*/", "", open(os.path.join(hdr_dir, name)).read(), flags=re.S)
        for body in re.findall(r"\benum\s+\w*\s*\{(.*?)\}", text, re.S):
            for item in body.split(","):
                m = re.match(r"\s*(AIR_\w+)\s*=\s*(.+?)\s*$", item, re.S)
                if m:
                    v = parse_value(m.group(2), values)
                    if v is not None:
                        values[m.group(1)] = v
        for m in re.finditer(r"^#\s*define\s+(AIR_\w+)[ \t]+(.+)$", text, re.M):
            if NOT_ABI.match(m.group(1)):
                continue
            v = parse_value(m.group(2), values)
            if v is not None:
                values[m.group(1)] = v
                if defines is not None:
                    defines.append("%s (%s)" % (m.group(1), name))
    return values


def main():
    src = sys.argv[1]
    baseline = os.path.join(src, "abi", "constants.txt")
    defines = []
    current = header_constants(src, defines)
    if defines:
        print("numeric #define constants (make them enum values): " + ", ".join(defines))
        return 1
    if "--update" in sys.argv:
        with open(baseline, "w") as f:
            f.write("# Public enum values and numeric macros of libair (ABI; append only).\n")
            f.write("# Regenerate with tests/abi/check_constants.py . --update on release.\n")
            for k in sorted(current):
                f.write("%s %d\n" % (k, current[k]))
        print("wrote %s (%d constants)" % (baseline, len(current)))
        return 0
    problems = []
    known = {}
    for line in open(baseline):
        if line.startswith("#") or not line.strip():
            continue
        k, v = line.split()
        known[k] = int(v)
    for k, v in sorted(known.items()):
        if k not in current:
            problems.append("removed: %s (was %d)" % (k, v))
        elif current[k] != v:
            problems.append("changed: %s %d -> %d" % (k, v, current[k]))
    added = sorted(set(current) - set(known))
    if problems:
        print("\n".join(problems))
        return 1
    print("%d constants unchanged%s" % (len(known), (", %d added: %s" % (len(added), " ".join(added))) if added else ""))
    return 0


sys.exit(main())

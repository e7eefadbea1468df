#!/usr/bin/env python3
"""The API reference builds without a single Doxygen warning and documents
every exported symbol.

usage: check_api_docs.py DOXYGEN DOXYFILE   (both empty/absent without doxygen)

Runs Doxygen with the configuration of `ninja -C build docs`
(docs/api/Doxyfile.in: WARN_IF_UNDOCUMENTED, WARN_AS_ERROR) into a scratch
directory, then checks that each symbol of lib/libair.map has its entry in
the generated function index. Skipped (exit 77) when doxygen is missing.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

SRC = os.environ["AIR_SOURCE_ROOT"]


def main(doxygen, doxyfile=None):
    if not doxygen or not doxyfile or not os.path.exists(doxyfile):
        print("1..0 # SKIP doxygen is not installed")
        return 77
    tmp = tempfile.mkdtemp(prefix="air-apidocs-")
    try:
        with open(doxyfile, encoding="utf-8") as f:
            config = f.read() + "\nOUTPUT_DIRECTORY = %s\n" % tmp
        p = subprocess.run([doxygen, "-"], input=config, capture_output=True, text=True,
                           timeout=600)
        if p.returncode != 0 or p.stderr.strip():
            print("doxygen failed (%d):\n%s%s" % (p.returncode, p.stdout, p.stderr))
            return 1
        documented = set()
        for page in os.listdir(os.path.join(tmp, "html")):
            if page.startswith("globals_func"):
                with open(os.path.join(tmp, "html", page), encoding="utf-8") as f:
                    documented |= set(re.findall(r"\b(air_\w+)\(\)&#160;:", f.read()))
        with open(os.path.join(SRC, "lib", "libair.map"), encoding="utf-8") as f:
            exported = set(re.findall(r"^\s*(air_\w+);", f.read(), re.M))
        missing = sorted(exported - documented)
        if missing:
            print("exported but not in the API reference:", " ".join(missing))
            return 1
        print("API reference: %d functions documented, no warnings" % len(documented))
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))

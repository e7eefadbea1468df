#!/usr/bin/env python3
"""Run the Go binding tests (tests/bindings/go) against the built libair.

Exit 77 (skip) when the go tool is missing. GOCACHE and GOPATH live in the
build directory, so the tests work on a clean machine as any user, and no
module is ever fetched (GOPROXY=off, GOFLAGS=-mod=mod). The test binary is
built first and then run, so that LD_PRELOAD (ASan builds) applies to it
and not to the go tool.
"""

import os
import shutil
import subprocess
import sys

src = os.environ["AIR_SOURCE_ROOT"]
build = os.environ["AIR_BUILD_ROOT"]
libdir = os.path.dirname(os.environ["AIR_LIBRARY_PATH"])
go = os.environ.get("GO") or shutil.which("go")
if not go:
    print("go not found: skipping the Go binding tests")
    sys.exit(77)

work = os.path.join(build, "tests", "bindings", "go-work")
os.makedirs(work, exist_ok=True)
env = dict(os.environ)
preload = env.pop("LD_PRELOAD", None)
env.update({
    "GOCACHE": os.path.join(work, "cache"),
    "GOPATH": os.path.join(work, "path"),
    "GOFLAGS": "-mod=mod",
    "GOPROXY": "off",
    "GOTOOLCHAIN": "local",
    "GO111MODULE": "on",
    "CGO_ENABLED": "1",
    "CGO_CFLAGS": "-I%s -I%s -I%s" % (os.path.join(src, "include"), os.path.join(src, "include", "air"),
                                      os.path.join(build, "include", "air")),
    "CGO_LDFLAGS": "-L%s -lair" % libdir,
    "LD_LIBRARY_PATH": libdir + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else ""),
})
pkg = os.path.join(src, "tests", "bindings", "go")
binary = os.path.join(work, "air.test")
for cmd in ([go, "vet", "./...", os.path.join("..", "..", "..", "bindings", "go")],
            [go, "test", "-c", "-o", binary, "."]):
    rc = subprocess.call(cmd, cwd=pkg, env=env)
    if rc != 0:
        sys.exit(rc)
if preload:
    env["LD_PRELOAD"] = preload
args = [binary, "-test.v", "-test.count=1"] + sys.argv[1:]
sys.exit(subprocess.call(args, cwd=pkg, env=env))

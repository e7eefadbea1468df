#!/usr/bin/env python3
"""Run the Go binding tests against the built libair.

Steps: go vet of the binding and its tests; staticcheck when Debian's
go-staticcheck is installed; the programs of examples/go built (their paths
in $AIR_GO_EXAMPLE_<NAME>); the test binary of tests/bindings/go (which
also builds a fresh module outside the tree and runs the binding's examples
and the context tests from it), run with GODEBUG=cgocheck=2. In a sanitizer
build (LD_PRELOAD set) only the test binary runs, without the fresh module:
vet, staticcheck and the module build check the Go side, which the
sanitizers do not change, and cost a minute of CPU with a cold cache.

cgo finds libair through pkg-config ("#cgo pkg-config: libair") with
PKG_CONFIG_PATH=<build>/meson-uninstalled; no CGO_CFLAGS, CGO_LDFLAGS or
LD_LIBRARY_PATH. Binaries get libair's directory as their run path
(-ldflags=-r) unless the .pc gives one. GOCACHE and GOPATH live in the build
directory, so the tests work on a clean machine as any user, and no module
is ever fetched (GOPROXY=off, GOFLAGS=-mod=mod). The test binary is built
first and then run, so that LD_PRELOAD (ASan builds) applies to it and not
to the go tool. Exit 77 (skip) when the go tool is missing.
"""

import os
import shutil
import subprocess
import sys

src = os.environ["AIR_SOURCE_ROOT"]
build = os.environ["AIR_BUILD_ROOT"]
go = os.environ.get("GO") or shutil.which("go")
if not go:
    print("go not found: skipping the Go binding tests")
    sys.exit(77)

work = os.path.join(build, "tests", "bindings", "go-work")
os.makedirs(work, exist_ok=True)
env = dict(os.environ)
preload = env.pop("LD_PRELOAD", None)
for name in ("CGO_CFLAGS", "CGO_LDFLAGS", "LD_LIBRARY_PATH"):
    env.pop(name, None)
pc_dir = os.path.join(build, "meson-uninstalled")
env.update({
    "GO": go,
    "GOCACHE": os.path.join(work, "cache"),
    "GOPATH": os.path.join(work, "path"),
    "GOFLAGS": "-mod=mod",
    "GOPROXY": "off",
    "GOTOOLCHAIN": "local",
    "GO111MODULE": "on",
    "CGO_ENABLED": "1",
    "PKG_CONFIG_PATH": pc_dir + (":" + env["PKG_CONFIG_PATH"] if env.get("PKG_CONFIG_PATH") else ""),
    "STATICCHECK_CACHE": os.path.join(work, "staticcheck"),
})

libs = subprocess.run(["pkg-config", "--libs", "libair"], env=env, check=True,
                      stdout=subprocess.PIPE, universal_newlines=True).stdout.split()
ldflags = []
if not any(f.startswith(("-Wl,-rpath", "-Wl,-R")) for f in libs):
    ldflags = ["-ldflags=-r " + ":".join(f[2:] for f in libs if f.startswith("-L"))]

binding = os.path.join(src, "bindings", "go")
pkg = os.path.join(src, "tests", "bindings", "go")


def run(cmd, cwd, extra=None):
    print("+ " + " ".join(cmd), flush=True)
    rc = subprocess.call(cmd, cwd=cwd, env=dict(env, **(extra or {})))
    if rc != 0:
        sys.exit(rc)


extra = {"GODEBUG": "cgocheck=2"}
if preload:
    extra.update({"LD_PRELOAD": preload, "AIR_GO_SKIP_FRESH_MODULE": "sanitizer build"})
    print("sanitizer build: vet, staticcheck and the fresh module run in the plain build")
else:
    run([go, "vet", "./..."], binding)
    run([go, "vet", "./..."], pkg)
    staticcheck = shutil.which("go-staticcheck") or shutil.which("staticcheck")
    if staticcheck:
        run([staticcheck, "./..."], binding)
        run([staticcheck, "./..."], pkg)
    else:
        print("staticcheck not installed (Debian: go-staticcheck): skipped")
    # The programs of examples/go, run by TestExamplePrograms.
    examples = os.path.join(src, "examples", "go")
    run([go, "vet", "./..."], examples)
    for name in ("watch",):
        exe = os.path.join(work, "example-" + name)
        run([go, "build", "-o", exe] + ldflags + ["./" + name], examples)
        extra["AIR_GO_EXAMPLE_" + name.upper()] = exe
binary = os.path.join(work, "air.test")
run([go, "test", "-c", "-o", binary] + ldflags + ["."], pkg)
run([binary, "-test.v", "-test.count=1", "-test.timeout=600s"] + sys.argv[1:], pkg, extra)

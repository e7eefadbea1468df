#!/usr/bin/env python3
"""Records per second through the log iterators of the Python and Go bindings.

A local run (local://, in a temporary state directory) prints LINES lines;
its finished log is then read whole (tail LINES, no follow) through
air.Client.logs() and Go's Client.Logs():

* Python: each record's line read (``rec.raw``), and then each record's
  alert too (``rec.alert``, matched when first read);
* Go: records with their alert (the default) and, where the binding has the
  option, with ``LogsOptions.NoAlerts``.

Each figure is the best of ROUNDS rounds, wall and CPU time; the CPU time of
the Go program is its own (it runs as a child). The last line is one JSON
object with every figure. Not a test: nothing here passes or fails on speed.

Usage: bench/bindings_logs_bench.py [--build DIR] [--lines N]
(DIR: a meson build directory of this source tree, default ./build)
"""

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

ROUNDS = 3
SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

GO_PROGRAM = """\
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"time"

	air "libair/air"
)

func main() {
	id, _ := strconv.ParseInt(os.Args[2], 10, 64)
	lines, _ := strconv.Atoi(os.Args[3])
	c, err := air.NewClient(&air.ClientOptions{Host: os.Args[1], IgnoreEnvironment: true})
	if err != nil {
		panic(err)
	}
	defer c.Close()
	out := map[string]float64{}
	for _, v := range []struct {
		name string
		opts air.LogsOptions
	}{VARIANTS} {
		best := 0.0
		for r := 0; r < %(rounds)d; r++ {
			v.opts.NoFollow, v.opts.TailLines = true, air.Int(lines)
			t0 := time.Now()
			it := c.Logs(context.Background(), id, &v.opts)
			n, alerts := 0, 0
			for it.Next() {
				n++
				alerts += it.Record().Alert
			}
			if it.Err() != nil || n != lines {
				panic(fmt.Sprint(it.Err(), n))
			}
			if s := time.Since(t0).Seconds(); best == 0 || s < best {
				best = s
			}
		}
		out[v.name] = float64(lines) / best
	}
	json.NewEncoder(os.Stdout).Encode(out)
}
"""


def cpu_self():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def best_of(f):
    """(best wall, CPU of that round) of ROUNDS calls of f."""
    best = None
    for _ in range(ROUNDS):
        t0, c0 = time.monotonic(), cpu_self()
        f()
        wall, cpu = time.monotonic() - t0, cpu_self() - c0
        if best is None or wall < best[0]:
            best = (wall, cpu)
    return best


def go_figures(go, build, host, run_id, lines, work):
    """Records/s of each Go variant, or {} without the go tool."""
    if not go:
        return {}
    binding = os.path.join(SRC, "bindings", "go")
    with open(os.path.join(binding, "logs.go")) as f:
        no_alerts = "NoAlerts" in f.read()
    variants = '{"go_alerts", air.LogsOptions{}}'
    if no_alerts:
        variants += ', {"go_no_alerts", air.LogsOptions{NoAlerts: true}}'
    mod = os.path.join(work, "gobench")
    os.makedirs(mod, exist_ok=True)
    with open(os.path.join(mod, "go.mod"), "w") as f:
        f.write("module gobench\n\ngo 1.19\n\nrequire libair/air v0.0.0\n\n"
                "replace libair/air => %s\n" % binding)
    with open(os.path.join(mod, "main.go"), "w") as f:
        f.write((GO_PROGRAM % {"rounds": ROUNDS}).replace("VARIANTS", variants))
    env = dict(os.environ, GOFLAGS="-mod=mod", GOPROXY="off", GOTOOLCHAIN="local",
               CGO_ENABLED="1", GOCACHE=os.path.join(build, "tests", "bindings", "go-work",
                                                     "cache"),
               GOPATH=os.path.join(build, "tests", "bindings", "go-work", "path"),
               PKG_CONFIG_PATH=os.path.join(build, "meson-uninstalled"))
    libdir = os.path.join(build, "lib")
    subprocess.run([go, "build", "-ldflags=-r " + libdir, "-o", "gobench", "."], cwd=mod,
                   env=env, check=True)
    r = subprocess.run([os.path.join(mod, "gobench"), host, str(run_id), str(lines)],
                       env=env, check=True, stdout=subprocess.PIPE, universal_newlines=True)
    return json.loads(r.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(SRC, "build"))
    ap.add_argument("--lines", type=int, default=200000)
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    os.environ["AIR_LIBRARY_PATH"] = os.path.join(build, "lib", "libair.so.1")
    sys.path.insert(0, os.path.join(SRC, "bindings", "python"))
    import air  # noqa: E402 (the binding of this source tree)

    work = tempfile.mkdtemp(prefix="air-bindings-bench-")
    try:
        host = "local://" + os.path.join(work, "state")
        client = air.Client(host, use_environment=False)
        cfg = air.Config.loads(
            "experiment_name: bench\ncompute: {accelerator_type: GPU_1xA10, "
            "num_accelerators: 1}\ncommand: seq %d\n" % a.lines)
        run_id = client.submit(cfg).run_id
        run = client.wait(run_id)
        assert run.succeeded, run

        def read(alerts):
            n = 0
            for rec in client.logs(run_id, follow=False, tail=a.lines):
                n += len(rec.raw) >= 0
                if alerts:
                    n += rec.alert * 0
            return n

        count = read(False)
        py_lines = best_of(lambda: read(False))
        py_alerts = best_of(lambda: read(True))
        go = go_figures(os.environ.get("GO") or shutil.which("go"), build, host, run_id, count,
                        work)
        client.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    fig = {"bench": "bindings_logs", "records": count,
           "py_records_per_s": count / py_lines[0], "py_cpu_s": py_lines[1],
           "py_alerts_records_per_s": count / py_alerts[0], "py_alerts_cpu_s": py_alerts[1]}
    fig.update({k + "_records_per_s": v for k, v in go.items()})
    print("%d records of a finished local run" % count)
    print("  Python: %.0f records/s reading lines (CPU %.2f s), %.0f records/s with alerts "
          "(CPU %.2f s)" % (fig["py_records_per_s"], py_lines[1],
                            fig["py_alerts_records_per_s"], py_alerts[1]))
    for k, v in go.items():
        print("  Go %s: %.0f records/s" % (k[3:], v))
    print(json.dumps(fig, sort_keys=True))


if __name__ == "__main__":
    main()
